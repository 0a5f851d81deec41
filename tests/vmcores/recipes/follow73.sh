# shellcheck shell=bash disable=SC2034  # the library reads these variables
# follow73: `vmcore-inode --live --follow` inside a guest of the debugvfs73
# kernel (upstream 7.3 CONFIG_DEBUG_VFS, its trigger module), on the live
# set's machinery: vmcore-inode (LIVE_BIN: make-fixtures.sh follow73
# [BINARY]), its ldd closure and a debug-only vmlinux in the initramfs.
# The guest (follow_init.sh) starts the follower before anything fires,
# overruns the log under it, loads the trigger (warnings only: nothing
# opens bug_badmode, so nothing panics), stops it with SIGTERM; then times
# one-shot decodes of a reported inode (vmcore-inode --live, and drgn
# 0.3.0 from the sid chroot on /proc/kcore) for bench/; then every inode
# three ways (--live --sweep, the sweep of a QEMU dump of the guest taken
# then and handed in on a virtio disk, drgn's s_inodes walk) for
# bench/kcore_bench.py. The dump is not kept. The key
# holds the binary's and every library's contents, as the live set's.
# README.md, "The follow73 set"; tests/test_follow.py.
FX_KEY="set kernel host-tools sid sums:follow_init.sh,drgn_one_inode.py,drgn_sweep_inodes.py,guest/followstamp.c,guest/nofutex.c,guest/fxtool.c,elf_pack_debug.py,recipes/follow73.sh,qmp.py,../lsan.supp call:follow_key"
BOOT_APPEND="$STD_APPEND printk.devkmsg=on"
MAKEDUMPFILE=""
FX_INFO_SIZES="vmlinux.guest"
# The reports the trigger fires (debugvfs73.sh: DV73_REPORTS_BEFORE_PANIC)
FOLLOW_REPORTS=7
FOLLOW_TRUTH_LINES=23

# lib_closure BINARY: the shared objects it loads, as ldd resolves them
# ("NAME PATH"; the loader as "LOADER PATH"), plus libkdumpfile (dlopen'ed
# by lib/target/kdl.c) and what it needs. As recipes/live.sh's.
KDL_SONAME=libkdumpfile.so.10
lib_closure() {
	local out kdl
	kdl=$(ldconfig -p | awk -v so="$KDL_SONAME" '$1 == so && /x86-64/ { print $NF; exit }')
	[ -n "$kdl" ] || die "ldconfig does not know $KDL_SONAME"
	out=$(ldd "$1" && ldd "$kdl" && echo "	$KDL_SONAME => $kdl (0)") || die "ldd $1 / $kdl"
	if printf '%s\n' "$out" | grep -q 'not found'; then
		printf '%s\n' "$out" >&2
		die "ldd $1: a library is not found"
	fi
	printf '%s\n' "$out" | awk '
		$2 == "=>" && $3 ~ /^\// { print $1, $3; next }
		$1 ~ /^\// { print "LOADER", $1 }' | sort -u
}

recipe_prepare() {
	fx_shared prepare_apt73 prepare_dv73_source prepare_sid_chroot
	follow_kernel
	[ -f "$LIVE_BIN" ] && [ -x "$LIVE_BIN" ] || die "no vmcore-inode binary at '$LIVE_BIN'"
	LIVE_BIN=$(readlink -f "$LIVE_BIN")
	LIVE_LIBS=$(lib_closure "$LIVE_BIN")
}
# follow_kernel: prepare_debugvfs73_kernel's KDIR and KERNEL_ID; a complete
# KDIR (never changed once complete) is used without its lock, which another
# set's kernel build may hold for a quarter of an hour.
follow_kernel() {
	local h
	DV73_KH=$(dv73_tree_key)
	h=$(dv73_kernel_key "kbuild=$DV73_KH")
	if [ -f "$CACHE/dv73-kernel-$h/.complete" ]; then
		KDIR=$CACHE/dv73-kernel-$h
		KERNEL_ID="linux-source-$DV73_SERIES=$DV73_SRC_VER dv73-kernel=$h"
		log "reusing $KDIR"
	else
		prepare_debugvfs73_kernel
	fi
}
follow_key() {   # contents only: the same build in another folder hashes the same
	echo "binary $(sha256sum < "$LIVE_BIN" | cut -d' ' -f1)"
	printf '%s\n' "$LIVE_LIBS" | while read -r name path; do
		echo "lib $name $(sha256sum < "$path" | cut -d' ' -f1)"
	done
}

# drgn_content: python3 and drgn 0.3.0 from the sid chroot under /drgn
# (the interpreter, its standard library without tests, drgn, and the ELF
# closure of both), with /drgn/run ADDRESS: what a drgn user does to see
# one inode of the running kernel (drgn_one_inode.py).
drgn_content() {
	local py pyver f
	step "python3 and drgn $(cat "$SID_CHROOT/drgn-version") from the sid chroot into /drgn"
	py=$(readlink -f "$SID_CHROOT/usr/bin/python3")
	pyver=$(basename "$py")
	[ -d "$SID_CHROOT/usr/lib/$pyver" ] || die "no $SID_CHROOT/usr/lib/$pyver"
	mkdir -p "$ROOT/drgn/bin" "$ROOT/drgn/lib/$pyver" "$ROOT/drgn/site" "$ROOT/drgn/so"
	cp -L "$py" "$ROOT/drgn/bin/python3"
	# the standard library (PYTHONHOME=/drgn), without tests and GUIs
	(cd "$SID_CHROOT/usr/lib/$pyver" && tar -c --exclude=test --exclude=tests \
		--exclude=idlelib --exclude=tkinter --exclude=turtledemo \
		--exclude=ensurepip --exclude=__pycache__ --exclude=site-packages \
		--exclude=dist-packages .) | tar -x -C "$ROOT/drgn/lib/$pyver" ||
		die "copy the standard library"
	for f in drgn _drgn_util "_drgn.cpython-*.so"; do
		# shellcheck disable=SC2086  # the glob
		cp -rL "$SID_CHROOT"/usr/lib/python3/dist-packages/$f "$ROOT/drgn/site/" ||
			die "no $f in the sid chroot"
	done
	# the shared objects of the interpreter, _drgn and lib-dynload, as the
	# chroot's loader resolves them; its loader, called by path
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /bin/sh -c \
		"for f in /usr/bin/$pyver /usr/lib/python3/dist-packages/_drgn*.so /usr/lib/$pyver/lib-dynload/*.so; do ldd \"\$f\"; done" \
		> "$W/drgn-ldd.txt" || die "ldd in the sid chroot"
	awk '$2 == "=>" && $3 ~ /^\// { print $3 }' "$W/drgn-ldd.txt" | sort -u | while read -r f; do
		cp -L "$SID_CHROOT$f" "$ROOT/drgn/so/" || die "copy $f from the sid chroot"
	done
	cp -L "$SID_CHROOT/lib64/ld-linux-x86-64.so.2" "$ROOT/drgn/so/ld.so" || die "the sid loader"
	gcc -shared -fPIC -O2 -Wall -Werror -o "$ROOT/drgn/so/nofutex.so" "$HERE/guest/nofutex.c" >&2 ||
		die "gcc guest/nofutex.c"
	cp "$HERE/drgn_one_inode.py" "$ROOT/drgn/one_inode.py"
	cp "$HERE/drgn_sweep_inodes.py" "$ROOT/drgn/sweep_inodes.py"
	cat > "$ROOT/drgn/run" <<-'EOF'
		#!/bin/sh
		# drgn on /proc/kcore with /live/vmlinux: one inode (follow73)
		export PYTHONHOME=/drgn PYTHONPATH=/drgn/site PYTHONDONTWRITEBYTECODE=1
		# no CONFIG_FUTEX in this kernel: drgn's OpenMP indexing on one
		# thread, pthread_once(3) without futex (guest/nofutex.c)
		export OMP_NUM_THREADS=1 LD_PRELOAD=/drgn/so/nofutex.so
		exec /drgn/so/ld.so --library-path /drgn/so /drgn/bin/python3 /drgn/one_inode.py "$@"
	EOF
	sed 's#/drgn/one_inode.py "$@"#/drgn/sweep_inodes.py "$@"#' "$ROOT/drgn/run" > "$ROOT/drgn/run-sweep"
	chmod 0755 "$ROOT/drgn/run" "$ROOT/drgn/run-sweep"
}

recipe_content() {
	local name path
	printf '%s\n' "$LIVE_LIBS" > "$OUT/live-libs.txt"
	fx_init "$HERE/follow_init.sh"
	cp "$KDIR/$DV73_MODULE.ko" "$ROOT/modules/"
	fx_ext4 16M inodedump 00000000-0000-4000-8000-00000000e4e4
	fx_static_tool guest/fxtool.c "$ROOT/bin/fxtool"
	fx_static_tool guest/followstamp.c "$ROOT/bin/followstamp"
	step "copy vmcore-inode and its ldd closure into the initramfs"
	mkdir -p "$ROOT/live/lib"
	cp "$LIVE_BIN" "$ROOT/live/vmcore-inode"
	chmod 0755 "$ROOT/live/vmcore-inode"
	while read -r name path; do
		if [ "$name" = LOADER ]; then   # the PT_INTERP path, exactly
			mkdir -p "$ROOT$(dirname "$path")"
			cp -L "$path" "$ROOT$path"
			chmod 0755 "$ROOT$path"
		else
			cp -L "$path" "$ROOT/live/lib/$name"
			chmod 0644 "$ROOT/live/lib/$name"
		fi
	done < "$OUT/live-libs.txt"
	{
		echo "export LD_LIBRARY_PATH=/live/lib"
		if grep -q '^libasan' "$OUT/live-libs.txt"; then
			# the sanitizer build, as run-tests.sh runs it
			cp "$HERE/../lsan.supp" "$ROOT/live/lsan.supp"
			echo "export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1"
			echo "export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
			echo "export LSAN_OPTIONS=suppressions=/live/lsan.supp:print_suppressions=0"
		fi
	} > "$ROOT/live/env"
	step "debug-only compressed vmlinux for the guest"
	fx_debug_vmlinux "$KDIR/vmlinux" "$OUT/vmlinux.guest"
	cp "$OUT/vmlinux.guest" "$ROOT/live/vmlinux"
	chmod 0644 "$ROOT/live/vmlinux"
	drgn_content
}

# bench_dump: the guest dumped as it is now (QMP kdump-zlib, the VM
# stopped while it runs; unflattened by the host's makedumpfile -R),
# written on its /dev/vda, and "dumped SIZE" on its ttyS1.
BENCH_DISK=256M
bench_dump() {
	local t size
	grep -q 'inodedump-bench: dump now' "$OUT/serial.log" || return 0
	step "QMP dump of the guest for the sweep benchmark"
	t=$(qmp dump "$W/bench.flat" --format kdump-zlib) || die "qmp dump bench.flat"
	# QEMU writes makedumpfile's flattened format: put in place here, so
	# that the guest's dump sweep times the sweep, not the rearranging
	makedumpfile -R "$W/bench.vmcore" < "$W/bench.flat" > /dev/null || die "makedumpfile -R bench.flat"
	rm -f "$W/bench.flat"
	size=$(stat -c %s "$W/bench.vmcore")
	[ "$size" -le "$(numfmt --from=iec "$BENCH_DISK")" ] || die "the dump ($size bytes) does not fit $BENCH_DISK"
	dd if="$W/bench.vmcore" of="$W/bench.img" conv=notrunc status=none || die "dd bench.vmcore"
	rm -f "$W/bench.vmcore"
	echo "bench_dump_s=$t bench_dump_bytes=$size" > "$OUT/bench-dump.txt"
	fx_ctl "dumped $size"
}

recipe_run() {
	step "boot QEMU (TCG, 1024 MiB)"
	echo "initramfs_bytes=$(stat -c %s "$W/initramfs.cpio.gz")" > "$OUT/initramfs.txt"
	# /dev/vda: where the dump of the sweep benchmark goes in (empty now)
	truncate -s "$BENCH_DISK" "$W/bench.img" || die "truncate bench.img"
	BOOT_EXTRA=(-drive "file=$W/bench.img,format=raw,if=virtio")
	fx_boot "$KDIR/bzImage" 1024 "$BOOT_APPEND" "$OUT/serial.log" max "$OUT/follow.jsonl"
	BOOT_EXTRA=()
	wait_serial "$OUT/serial.log" 'inodedump-bench: dump now|inodedump-init: FAILED' $((BOOT_TIMEOUT * 4)) "the end of the follow runs"
	bench_dump
	wait_serial "$OUT/serial.log" 'inodedump-init: (ready|FAILED)' $((BOOT_TIMEOUT * 4)) "the end of the sweeps"
	quit_guest "$T_BOOT"
	tr -d '\r' < "$OUT/serial.log" > "$OUT/console.txt"
	if grep -q 'inodedump-init: FAILED' "$OUT/console.txt"; then
		grep 'inodedump-init: FAILED' "$OUT/console.txt" >&2
		die "the guest's init failed"
	fi
}

recipe_truth() {
	fx_truth_serial "=$FOLLOW_TRUTH_LINES"
	grep -q "inodedump-trigger: done reports=$FOLLOW_REPORTS\$" "$OUT/console.txt" ||
		die "the trigger did not print 'done reports=$FOLLOW_REPORTS'"
	grep -q '^inodedump-follow: rc=' "$OUT/console.txt" || die "no exit status of the follower"
	step "reports.txt: the report lines as the console printed them"
	sed -n 's/^\[ *[0-9.]*\] //; /: inode:[0-9a-f]* fs:\|: unreadable inode:[0-9a-f]*$/p' \
		"$OUT/console.txt" > "$OUT/reports.txt"
	[ "$(wc -l < "$OUT/reports.txt")" -eq "$FOLLOW_REPORTS" ] ||
		die "expected $FOLLOW_REPORTS report lines on the console, got $(wc -l < "$OUT/reports.txt")"
	! grep -q 'Kernel panic\|kernel BUG' "$OUT/console.txt" || die "the guest panicked"
}
recipe_info() {
	echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
	cat "$OUT/initramfs.txt"
	[ ! -f "$OUT/bench-dump.txt" ] || cat "$OUT/bench-dump.txt"
}
