#!/bin/bash
# Build (or reuse) the inodedump vmcore fixture sets. See README.md and CONTRACT.md.
#
#   tests/vmcores/make-fixtures.sh [patched|stock|stock4|stock73|wrapped|writers|big|all]   (default: all)
#   tests/vmcores/make-fixtures.sh live [BINARY]
#   tests/vmcores/make-fixtures.sh debugvfs73   (all also builds it; recipe in debugvfs73.sh)  # fx-hook
#   tests/vmcores/make-fixtures.sh nobtf   (all also builds it; recipe in nobtf.sh)  # fx-hook
#
# all = stock, stock4 (the stock kernel with 4-level paging, 1 GiB),
# stock73 (the stock Debian 7.3 kernel from trixie-backports, truth from
# drgn 0.3.0 in a sid chroot; recipe in stock73.sh), patched, wrapped,
# writers (sid's QEMU and makedumpfile on both stock kernels; writers.sh),
# big (>= 200 k inodes on the stock 6.12 kernel; recipe in big.sh).
# live boots the patched kernel with BINARY (default:
# $VMCORE_INODE, else build/vmcore-inode), its shared libraries and a
# debug-only vmlinux in the initramfs and runs `vmcore-inode --live` in the
# guest; its hash includes the binary's and every library's contents, so an
# unchanged build reuses the set.
#
# Every set lives in ${INODEDUMP_CACHE:-$HOME/.cache/inodedump}/fixtures-<set>-<hash>
# (hash of every input), with `.complete` written last; a complete set is
# reused. tests/vmcores/out/<set> is a symlink to it. Progress on stderr; the
# last stdout line of a successful run is the last set's directory.
#
# Environment: INODEDUMP_CACHE (cache root), FX_BOOT_TIMEOUT (seconds to wait
# for the guest's ready marker, default 600; the live set waits 3x as long),
# FX_KEEP_WORK=1 (keep .work/), FX_APT_MAX_AGE (stock73: seconds before the
# private package lists are refreshed, default 86400).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${INODEDUMP_CACHE:-$HOME/.cache/inodedump}
BOOT_TIMEOUT=${FX_BOOT_TIMEOUT:-600}
PY=/usr/bin/python3          # Debian's python3 (has drgn); PATH's python3 may not
SET=-
STEP=start
QEMU_PID=

log() { printf 'make-fixtures: [%s] %s\n' "$SET" "$*" >&2; }
step() { STEP=$1; log "== $STEP"; }
die() { printf 'make-fixtures: [%s] FAILED in step "%s": %s\n' "$SET" "$STEP" "$*" >&2; exit 1; }
on_err() {
	local rc=$?
	printf 'make-fixtures: [%s] FAILED in step "%s" (exit %s, line %s)\n' "$SET" "$STEP" "$rc" "${BASH_LINENO[0]}" >&2
	exit "$rc"
}
trap on_err ERR
cleanup() {
	if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill "$QEMU_PID" 2>/dev/null || true
	fi
}
trap cleanup EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------- packages
# Debian packages the recipe uses (binary they provide, for the check).
PACKAGES="qemu-system-x86:qemu-system-x86_64 busybox-static:busybox makedumpfile:makedumpfile
python3-drgn: e2fsprogs:mkfs.ext4 cpio:cpio xz-utils:xz gzip:gzip kmod:modinfo
binutils:objcopy dpkg:dpkg-deb apt:apt-get coreutils:sha256sum"

check_packages() {
	step "check Debian packages"
	local missing="" p
	for entry in $PACKAGES; do
		p=${entry%%:*}
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		if [ "$(id -u)" = 0 ]; then
			log "installing:$missing"
			apt-get install -y --no-install-recommends $missing >&2 || die "apt-get install$missing"
		else
			die "missing Debian packages:$missing (apt-get install$missing)"
		fi
	fi
	[ -x /usr/bin/python3 ] && $PY -c 'import drgn' || die "/usr/bin/python3 cannot import drgn"
}

pkg_versions() {
	local entry
	for entry in $PACKAGES; do
		dpkg-query -W -f='${Package}=${Version}\n' "${entry%%:*}"
	done
}

hash16() { sha256sum | cut -c1-16; }

# claim_set SET INPUTS: the set's directory OUT=$CACHE/fixtures-SET-H, H the
# hash of INPUTS (in SET_HASH), locked on fd 8 so one builder per set works
# at a time (parallel test runs share the cache). Returns 0 when a complete
# set is there (linked as out/SET, lock released); else empties OUT, makes
# W=OUT/.work and OUT/inputs.txt and returns 1: the caller builds, holding
# the lock, and writes OUT/.complete last.
claim_set() {
	local set=$1 inputs=$2
	SET_HASH=$(printf '%s\n' "$inputs" | hash16)
	OUT=$CACHE/fixtures-$set-$SET_HASH
	mkdir -p "$HERE/out" "$CACHE"
	exec 8>"$CACHE/.fixtures-$set.lock"
	flock 8
	if [ -f "$OUT/.complete" ]; then
		log "reusing complete set $OUT"
		ln -sfn "$OUT" "$HERE/out/$set"
		exec 8>&-
		return 0
	fi
	log "building $OUT"
	rm -rf "$OUT"; mkdir -p "$OUT"
	W=$OUT/.work; mkdir -p "$W"
	printf '%s\n' "$inputs" > "$OUT/inputs.txt"
	return 1
}

# The stock73 set (7.3 kernel, private apt state, sid chroot with drgn 0.3.0).
# shellcheck source=stock73.sh
. "$HERE/stock73.sh"
# The writers set (sid's QEMU and makedumpfile; recipe in writers.sh).
# shellcheck source=writers.sh
. "$HERE/writers.sh"
# The big set (>= 200 k inodes, stock 6.12 kernel; recipe in big.sh).
# shellcheck source=big.sh
. "$HERE/big.sh"
  # fx-hook
# Sets with a recipe file of their own hook in here on lines ending in  # fx-hook
# "fx-hook". Every set hashes this file without those lines (the  # fx-hook
# function below stands in for sha256sum on it), so adding a hook re-keys  # fx-hook
# no set: each new set is keyed by its own recipe file.  # fx-hook
sha256sum() {  # fx-hook
	if [ "${1-}" != make-fixtures.sh ]; then command sha256sum "$@"; return; fi  # fx-hook
	shift  # fx-hook
	printf '%s  make-fixtures.sh\n' "$(grep -v '  # fx-hook$' make-fixtures.sh | command sha256sum | cut -d" " -f1)"  # fx-hook
	[ $# -eq 0 ] || command sha256sum "$@"  # fx-hook
}  # fx-hook
# The big73 set (the big set's recipe, big.sh, with the stock 7.3 kernel:  # fx-hook
# make-fixtures.sh big73; part of all).  # fx-hook
# The 7.3 DEBUG_VFS set (make-fixtures.sh debugvfs73; part of all).  # fx-hook
# shellcheck source=debugvfs73.sh  # fx-hook
. "$HERE/debugvfs73.sh"  # fx-hook
# The 7.3 kernel without BTF (make-fixtures.sh nobtf; part of all).  # fx-hook
# shellcheck source=nobtf.sh  # fx-hook
. "$HERE/nobtf.sh"  # fx-hook

# ---------------------------------------------------------------- stock kernel
# Newest linux-image-6.12.*+deb12-amd64-unsigned with an installable candidate
# and a -dbg of the same version. Prints "release version".
find_stock_kernel() {
	local name rel ver dver
	for name in $(apt-cache pkgnames linux-image-6.12. |
		grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' | sort -rV); do
		rel=${name#linux-image-}; rel=${rel%-unsigned}
		ver=$(apt-cache policy "$name" | awk '/Candidate:/ { print $2 }')
		dver=$(apt-cache policy "linux-image-$rel-dbg" | awk '/Candidate:/ { print $2 }')
		if [ -n "$ver" ] && [ "$ver" != "(none)" ] && [ "$ver" = "$dver" ]; then
			echo "$rel $ver"
			return 0
		fi
	done
	return 1
}

# Modules the stock initramfs loads (dependencies are added first).
STOCK_MODULES="qemu_fw_cfg crc32c_generic ext4 loop"

# prepare_stock_kernel -> sets KDIR (vmlinuz, vmlinux, modules/*.ko, release, modules.list)
prepare_stock_kernel() {
	step "find newest stock Debian 6.12 kernel"
	local rv rel ver debs img dbg h tmp
	rv=$(find_stock_kernel) || die "no linux-image-6.12.*+deb12-amd64-unsigned with a matching -dbg in apt-cache (apt-get update?)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	h=$(printf '%s\n' "unsigned=$ver dbg=$ver rel=$rel modules=$STOCK_MODULES v2" | hash16)
	KDIR=$CACHE/stock-kernel-$h
	KERNEL_ID="linux-image-$rel-unsigned=$ver linux-image-$rel-dbg=$ver"
	if [ -f "$KDIR/.complete" ]; then
		log "reusing $KDIR"
		return 0
	fi
	debs=$CACHE/debs
	mkdir -p "$debs"
	img=$(ls "$debs"/linux-image-"$rel"-unsigned_*_amd64.deb 2>/dev/null | grep -F "_${ver}_" | head -1 || true)
	dbg=$(ls "$debs"/linux-image-"$rel"-dbg_*_amd64.deb 2>/dev/null | grep -F "_${ver}_" | head -1 || true)
	if [ -z "$img" ] || [ -z "$dbg" ]; then
		step "download linux-image-$rel-unsigned and -dbg ($ver, ~1.1 GB)"
		(cd "$debs" && apt-get download "linux-image-$rel-unsigned=$ver" "linux-image-$rel-dbg=$ver") >&2 ||
			die "apt-get download"
		img=$(ls "$debs"/linux-image-"$rel"-unsigned_*_amd64.deb | grep -F "_${ver}_" | head -1)
		dbg=$(ls "$debs"/linux-image-"$rel"-dbg_*_amd64.deb | grep -F "_${ver}_" | head -1)
	fi
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules"
	step "extract vmlinux-$rel from the -dbg package (only that member; ~90 s)"
	dpkg-deb --fsys-tarfile "$dbg" | tar -x -C "$tmp/x" "./usr/lib/debug/boot/vmlinux-$rel" ||
		die "extract vmlinux from $dbg"
	mv "$tmp/x/usr/lib/debug/boot/vmlinux-$rel" "$tmp/vmlinux"
	step "extract kernel and modules from the unsigned image package"
	dpkg-deb -x "$img" "$tmp/x" || die "dpkg-deb -x $img"
	cp "$tmp/x/boot/vmlinuz-$rel" "$tmp/vmlinuz"
	local mdir=$tmp/x/lib/modules/$rel/kernel order="" m
	add_module() {   # depth-first: dependencies before the module
		local name=$1 file deps d
		case " $order " in *" $name "*) return 0 ;; esac
		file=$(find "$mdir" -name "$name.ko.xz" -o -name "$name.ko" | head -1)
		[ -n "$file" ] || die "module $name not in $img"
		deps=$(modinfo -F depends "$file" | tr ',' ' ')
		for d in $deps; do add_module "$d"; done
		case "$file" in
		*.xz) xz -dc "$file" > "$tmp/modules/$name.ko" ;;
		*) cp "$file" "$tmp/modules/$name.ko" ;;
		esac
		order="$order $name"
	}
	for m in $STOCK_MODULES; do add_module "$m"; done
	echo "$order" | sed 's/^ //' > "$tmp/modules.list"
	echo "$rel" > "$tmp/release"
	echo "$KERNEL_ID" > "$tmp/packages"
	rm -rf "$tmp/x"
	touch "$tmp/.complete"
	rm -rf "$KDIR"; mv "$tmp" "$KDIR"
	log "kernel cached in $KDIR (modules: $(cat "$KDIR/modules.list"))"
}

# ---------------------------------------------------------------- patched kernel
prepare_patched_kernel() {
	step "build patched kernel (tests/vmcores/build-kernel.sh)"
	[ -x "$HERE/build-kernel.sh" ] || [ -f "$HERE/build-kernel.sh" ] || die "tests/vmcores/build-kernel.sh does not exist"
	local out
	out=$(bash "$HERE/build-kernel.sh" | tail -1) || die "build-kernel.sh failed"
	[ -n "$out" ] && [ -d "$out" ] || die "build-kernel.sh printed no cache dir (got '$out')"
	for f in bzImage vmlinux vfsdbg_trigger.ko config release; do
		[ -f "$out/$f" ] || die "build-kernel.sh dir $out lacks $f"
	done
	KDIR=$out
	KERNEL_ID="patched-kernel=$(basename "$out")"
	log "kernel $(cat "$KDIR/release") in $KDIR"
}

# guest/fxtool.c, static (kmsg-fill, kmsg-dump, runas): $1 = output
build_fxtool() {
	step "build guest/fxtool (static)"
	gcc -static -O2 -Wall -Wextra -Werror -o "$1" "$HERE/guest/fxtool.c" >&2 || die "gcc guest/fxtool.c"
}

# The shared objects BINARY loads, as ldd resolves them: "NAME PATH" lines
# (NAME = the soname asked for; the dynamic loader as "LOADER PATH"), plus
# libkdumpfile, which libinodedump loads with dlopen(3) (lib/kdl.c), and
# what it needs.
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

# ---------------------------------------------------------------- guest
build_initramfs() {   # $1 = set, $2 = staging dir, $3 = output cpio.gz
	local set=$1 root=$2 out=$3
	step "build busybox initramfs"
	rm -rf "$root"; mkdir -p "$root/bin" "$root/etc" "$root/modules"
	cp /bin/busybox "$root/bin/busybox"
	install -m 755 "$HERE/init.sh" "$root/init"
	case $set in
	stock | stock4 | stock73)
		local mods m
		mods=$(cat "$KDIR/modules.list")
		for m in $mods; do cp "$KDIR/modules/$m.ko" "$root/modules/"; done
		printf 'FX_SET=%s\nFX_MODULES="%s"\nFX_EXT4=1\nFX_TRIGGER=0\n' "${set%4}" "$mods" > "$root/etc/fixture.conf"
		step "make the (empty) ext4 image the guest fills"
		truncate -s 16M "$root/ext4.img"
		mkfs.ext4 -q -F -L inodedump -U 00000000-0000-4000-8000-00000000e4e4 \
			-E root_owner=0:0 "$root/ext4.img" >&2 || die "mkfs.ext4"
		;;
	patched)
		cp "$KDIR/vfsdbg_trigger.ko" "$root/modules/"
		printf 'FX_SET=patched\nFX_MODULES=""\nFX_EXT4=0\nFX_TRIGGER=1\n' > "$root/etc/fixture.conf"
		;;
	wrapped)
		cp "$KDIR/vfsdbg_trigger.ko" "$root/modules/"
		build_fxtool "$root/bin/fxtool"
		printf 'FX_SET=wrapped\nFX_MODULES=""\nFX_EXT4=0\nFX_TRIGGER=1\nFX_FILL=%s\nFX_POSITION="%s"\nFX_KMSG_DUMP=1\n' \
			"$WRAPPED_FILL" "$WRAPPED_POSITION" > "$root/etc/fixture.conf"
		;;
	live)
		cp "$KDIR/vfsdbg_trigger.ko" "$root/modules/"
		build_fxtool "$root/bin/fxtool"
		# the live kernel's log wrapped too, positioned as in the wrapped set
		printf 'FX_SET=live\nFX_MODULES=""\nFX_EXT4=0\nFX_TRIGGER=1\nFX_FILL=%s\nFX_POSITION="%s"\nFX_LIVE=1\n' \
			"$WRAPPED_FILL" "$WRAPPED_POSITION" > "$root/etc/fixture.conf"
		step "copy vmcore-inode and its ldd closure into the initramfs"
		mkdir -p "$root/live/lib"
		cp "$LIVE_BIN" "$root/live/vmcore-inode"
		chmod 0755 "$root/live/vmcore-inode"
		local name path
		while read -r name path; do
			if [ "$name" = LOADER ]; then   # the PT_INTERP path, exactly
				mkdir -p "$root$(dirname "$path")"
				cp -L "$path" "$root$path"
				chmod 0755 "$root$path"
			else
				cp -L "$path" "$root/live/lib/$name"
				chmod 0644 "$root/live/lib/$name"
			fi
		done < "$OUT/live-libs.txt"
		{
			echo "export LD_LIBRARY_PATH=/live/lib"
			if grep -q '^libasan' "$OUT/live-libs.txt"; then
				# the sanitizer build, as run-tests.sh runs it
				cp "$HERE/../lsan.supp" "$root/live/lsan.supp"
				echo "export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1"
				echo "export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
				echo "export LSAN_OPTIONS=suppressions=/live/lsan.supp:print_suppressions=0"
			fi
		} > "$root/live/env"
		step "debug-only compressed vmlinux for the guest (as make-committed.sh)"
		# shellcheck disable=SC2086
		objcopy --only-keep-debug --compress-debug-sections=zlib \
			--remove-section=.debug_loclists --remove-section=.debug_rnglists \
			--remove-section=.debug_frame --remove-section=.debug_aranges \
			--remove-section=.debug_loc --remove-section=.debug_ranges \
			"$KDIR/vmlinux" "$W/vmlinux.debug" || die "objcopy --only-keep-debug"
		$PY "$HERE/elf_pack_debug.py" "$W/vmlinux.debug" "$OUT/vmlinux.guest" >&2 || die "elf_pack_debug.py"
		rm -f "$W/vmlinux.debug"
		cp "$OUT/vmlinux.guest" "$root/live/vmlinux"
		chmod 0644 "$root/live/vmlinux"
		;;
	esac
	step "pack initramfs"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$out" || die "cpio"
}

wait_serial() {   # $1 = log, $2 = regex, $3 = timeout s, $4 = what
	local t0=$SECONDS
	while ! grep -qE "$2" "$1" 2>/dev/null; do
		# A panic we are not waiting for ends the wait now, not at the timeout.
		case $2 in
		*anic*) ;;
		*)	if grep -q 'Kernel panic - not syncing' "$1" 2>/dev/null; then
				tail -30 "$1" >&2 || true
				die "the guest panicked while we waited for $4"
			fi ;;
		esac
		if ! kill -0 "$QEMU_PID" 2>/dev/null; then
			tail -30 "$1" >&2 || true
			die "QEMU exited while waiting for $4"
		fi
		if [ $((SECONDS - t0)) -ge "$3" ]; then
			tail -30 "$1" >&2 || true
			die "timeout (${3}s) waiting for $4"
		fi
		sleep 0.2
	done
}

qmp() { python3 "$HERE/qmp.py" "$W/qmp.sock" "$@"; }

run_guest() {   # $1 = set; writes the dumps into $OUT
	local set=$1 mem kernel t0 t append extra=() port="" timeout=$BOOT_TIMEOUT
	local cpu=max   # TCG's max CPU has LA57: the kernel uses 5-level paging
	# no_timer_check: on a loaded host TCG's timer interrupts come late and
	# the kernel's IO-APIC timer check panics at boot ("IO-APIC + timer
	# doesn't work!", seen on a cold CI run with two guests and builds).
	append="console=ttyS0 qemu_fw_cfg.ioport=12@0x510:0:1:4 no_timer_check"
	case $set in
	stock | stock73) mem=512; kernel=$KDIR/vmlinuz ;;
	# The same kernel with 4-level page tables and twice the memory.
	stock4) mem=1024; kernel=$KDIR/vmlinuz; cpu=max,la57=off ;;
	patched) mem=256; kernel=$KDIR/bzImage ;;
	wrapped)
		mem=256; kernel=$KDIR/bzImage
		# /dev/kmsg writes are rate limited (10 per 5 s) unless devkmsg=on
		append="$append printk.devkmsg=on"
		port=$OUT/guest-kmsg.txt ;;
	live)
		mem=1024; kernel=$KDIR/bzImage; port=$OUT/live.txt
		append="$append printk.devkmsg=on"
		timeout=$((BOOT_TIMEOUT * 3)) ;;
	esac
	# ttyS2: the guest's raw output port, a file here (wrapped, live)
	[ -z "$port" ] || extra=(-chardev "file,id=port,path=$port" -serial chardev:port)
	step "boot QEMU (TCG, ${mem} MiB)"
	rm -f "$W/qmp.sock" "$W/ctl.sock" "$OUT/serial.log"
	t0=$(now)
	qemu-system-x86_64 -accel tcg,thread=multi -cpu "$cpu" \
		-smp 2,sockets=2,cores=1,threads=1 -m "$mem" \
		-nographic -no-reboot -device vmcoreinfo \
		-kernel "$kernel" -initrd "$W/initramfs.cpio.gz" \
		-append "$append" \
		-monitor none \
		-chardev "file,id=con,path=$OUT/serial.log" -serial chardev:con \
		-chardev "socket,id=ctl,path=$W/ctl.sock,server=on,wait=off" -serial chardev:ctl \
		"${extra[@]}" \
		-qmp "unix:$W/qmp.sock,server=on,wait=off" \
		</dev/null >"$W/qemu.out" 2>&1 &
	QEMU_PID=$!
	wait_serial "$OUT/serial.log" 'inodedump-init: ready' "$timeout" "the guest's ready marker"
	TIMINGS="${TIMINGS}boot_to_ready_s=$(elapsed "$t0")\n"
	log "guest ready after $(elapsed "$t0") s"
	if grep -q 'inodedump-init: FAILED' "$OUT/serial.log"; then
		grep 'inodedump-init: FAILED' "$OUT/serial.log" >&2
		die "guest init reported a failure"
	fi
	case $set in
	wrapped) wait_serial "$port" '^inodedump-kmsg-end ' 60 "the end of the guest's kmsg dump on ttyS2" ;;
	live)
		wait_serial "$port" '^inodedump-live: done' 60 "the end of the live runs on ttyS2"
		quit_guest "$t0"
		return 0 ;;
	esac

	step "QMP dump elf-nopaging.vmcore"
	t=$(qmp dump "$OUT/elf-nopaging.vmcore") || die "qmp dump elf-nopaging"
	TIMINGS="${TIMINGS}dump_elf_nopaging_s=$t\n"
	step "QMP dump elf-paging.vmcore"
	t=$(qmp dump "$OUT/elf-paging.vmcore" --paging) || die "qmp dump elf-paging"
	TIMINGS="${TIMINGS}dump_elf_paging_s=$t\n"
	step "QMP dump qemu-kdump-zlib.flat"
	t=$(qmp dump "$OUT/qemu-kdump-zlib.flat" --format kdump-zlib) || die "qmp dump kdump-zlib"
	TIMINGS="${TIMINGS}dump_qemu_kdump_zlib_s=$t\n"
	if [ "$set" = wrapped ]; then   # no panic: its records would push more out
		quit_guest "$t0"
		chmod 0644 "$OUT"/*.vmcore "$OUT"/*.flat
		return 0
	fi

	step "panic the guest (sysrq-c) and dump panic.vmcore"
	python3 - "$W/ctl.sock" <<-'EOF' || die "send panic command on ttyS1"
		import socket, sys
		s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"panic\n")
		import time; time.sleep(0.5); s.close()
	EOF
	wait_serial "$OUT/serial.log" 'end Kernel panic' 120 "the panic"
	sleep 1
	t=$(qmp dump "$OUT/panic.vmcore") || die "qmp dump panic"
	TIMINGS="${TIMINGS}dump_panic_s=$t\n"
	quit_guest "$t0"
	chmod 0644 "$OUT"/*.vmcore "$OUT"/*.flat
}

quit_guest() {   # $1 = boot start time
	step "quit QEMU"
	qmp quit || true
	for _ in $(seq 1 100); do kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 0.1; done
	kill "$QEMU_PID" 2>/dev/null || true
	wait "$QEMU_PID" 2>/dev/null || true
	QEMU_PID=
	TIMINGS="${TIMINGS}qemu_total_s=$(elapsed "$1")\n"
}

derive_dumps() {   # $1 = set
	local t0 specs=("d17-zlib:-d 17 -c" "d17-lzo:-d 17 -l" "d31-zlib:-d 31 -c")
	[ "$1" != live ] || return 0
	[ "$1" != wrapped ] || specs=("d17-zlib:-d 17 -c" "d17-lzo:-d 17 -l")
	step "rewrite ELF program headers for makedumpfile (pitfall 4)"
	$PY "$HERE/elf_fixphdr.py" "$OUT/elf-nopaging.vmcore" "$W/fixed.elf" || die "elf_fixphdr.py"
	for spec in "${specs[@]}"; do
		local name=${spec%%:*} args=${spec#*:}
		step "makedumpfile $args -> $name.vmcore"
		t0=$(now)
		# shellcheck disable=SC2086
		makedumpfile $args "$W/fixed.elf" "$OUT/$name.vmcore" >"$W/makedumpfile-$name.log" 2>&1 || {
			cat "$W/makedumpfile-$name.log" >&2; die "makedumpfile $args"; }
		TIMINGS="${TIMINGS}makedumpfile_${name}_s=$(elapsed "$t0")\n"
	done
	rm -f "$W/fixed.elf"
	chmod 0644 "$OUT"/*.vmcore
}

write_truth() {   # $1 = set
	local set=$1 n
	case $set in
	patched | wrapped | live)
		step "truth.txt from the kernel's inodedump-truth lines"
		grep 'inodedump-truth: ' "$OUT/serial.log" | sed 's/.*inodedump-truth: //' | tr -d '\r' > "$OUT/truth.txt"
		n=$(wc -l < "$OUT/truth.txt")
		[ "$n" -ge 11 ] || die "expected >= 11 truth lines in serial.log, got $n"
		grep -q 'inodedump-trigger: done reports=2' "$OUT/serial.log" || die "trigger did not report 'done reports=2'"
		;;
	stock | stock4)
		step "truth.txt from drgn reading d17-zlib.vmcore"
		$PY "$HERE/drgn_truth.py" "$OUT/vmlinux" "$OUT/d17-zlib.vmcore" --stock > "$OUT/truth.txt" ||
			die "drgn_truth.py"
		n=$(wc -l < "$OUT/truth.txt")
		[ "$n" -eq 18 ] || die "expected 18 truth lines, got $n"
		;;
	stock73)
		step "truth.txt from drgn $(cat "$SID_CHROOT/drgn-version") (sid chroot) reading d17-zlib.vmcore"
		in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth73.py \
			/fx/vmlinux /fx/d17-zlib.vmcore --stock > "$OUT/truth.txt" || die "drgn_truth73.py in the sid chroot"
		n=$(wc -l < "$OUT/truth.txt")
		[ "$n" -eq 18 ] || die "expected 18 truth lines, got $n"
		step "truth.txt agrees with the guest's own stat(1) lines"
		$PY "$HERE/stat_vs_truth.py" "$OUT/serial.log" "$OUT/truth.txt" >&2 || die "stat_vs_truth.py"
		;;
	esac
	case $set in
	wrapped)
		step "check the wrap: early boot records gone from the guest's own log view"
		grep -q '^inodedump-kmsg-end records=[0-9]* lost=0$' "$OUT/guest-kmsg.txt" ||
			die "guest-kmsg.txt: no clean end marker: $(tail -1 "$OUT/guest-kmsg.txt")"
		grep -q 'Linux version' "$OUT/serial.log" || die "serial.log has no 'Linux version' line"
		! grep -q 'Linux version' "$OUT/guest-kmsg.txt" || die "the ring did not wrap: 'Linux version' still in the guest's log"
		[ "$(grep -c 'encountered for inode' "$OUT/guest-kmsg.txt")" -eq 2 ] ||
			die "the guest's log view does not hold both reports"
		;;
	live)
		grep -q '^inodedump-live: done' "$OUT/live.txt" || die "live.txt has no done marker"
		;;
	esac
}

build_set() {   # $1 = set
	local set=$1 t_all h inputs
	SET=$set
	t_all=$(now)
	WRAPPED_FILL="" WRAPPED_POSITION=""
	case $set in
	stock | stock4) prepare_stock_kernel ;;
	stock73)
		# one preparer at a time: the kernel and the chroot are shared
		mkdir -p "$CACHE"
		exec 9>"$CACHE/.stock73-prepare.lock"
		flock 9
		prepare_apt73
		prepare_stock73_kernel
		prepare_sid_chroot
		exec 9>&- ;;
	patched) prepare_patched_kernel ;;
	wrapped) prepare_patched_kernel; wrapped_fill ;;
	live) prepare_patched_kernel; wrapped_fill ;;
	*) die "unknown set '$set' (patched|stock|stock4|stock73|wrapped|all|live)" ;;
	esac
	step "hash inputs"
	local libs=""
	if [ "$set" = live ]; then
		[ -f "$LIVE_BIN" ] && [ -x "$LIVE_BIN" ] || die "no vmcore-inode binary at '$LIVE_BIN'"
		LIVE_BIN=$(readlink -f "$LIVE_BIN")
		libs=$(lib_closure "$LIVE_BIN")
	fi
	inputs=$(
		echo "set=$set"
		echo "$KERNEL_ID"
		pkg_versions
		(cd "$HERE" && sha256sum make-fixtures.sh qmp.py elf_fixphdr.py init.sh drgn_truth.py)
		[ -z "$WRAPPED_FILL" ] || echo "fill=$WRAPPED_FILL position=$WRAPPED_POSITION"
		if [ "$set" = stock73 ]; then
			echo "sid-chroot $SID_ID"
			(cd "$HERE" && sha256sum stock73.sh drgn_truth73.py stat_vs_truth.py)
		fi
		case $set in
		wrapped | live)
			dpkg-query -W -f='${Package}=${Version}\n' gcc libc6-dev
			(cd "$HERE" && sha256sum guest/fxtool.c printk_ring.py)
			;;
		esac
		if [ "$set" = live ]; then
			(cd "$HERE" && sha256sum elf_pack_debug.py ../lsan.supp)
			# contents only: the same build in another folder hashes the same
			echo "binary $(sha256sum < "$LIVE_BIN" | cut -d' ' -f1)"
			printf '%s\n' "$libs" | while read -r name path; do
				echo "lib $name $(sha256sum < "$path" | cut -d' ' -f1)"
			done
		fi
	)
	if claim_set "$set" "$inputs"; then echo "$OUT"; return 0; fi
	h=$SET_HASH
	[ "$set" != live ] || printf '%s\n' "$libs" > "$OUT/live-libs.txt"
	TIMINGS=""

	step "link vmlinux"
	ln -f "$KDIR/vmlinux" "$OUT/vmlinux" 2>/dev/null || cp "$KDIR/vmlinux" "$OUT/vmlinux"

	build_initramfs "$set" "$W/root" "$W/initramfs.cpio.gz"
	local attempt=1
	while :; do
		run_guest "$set"
		[ "$set" = wrapped ] || break
		# The test needs the first report's record to wrap the data ring
		# (kmsg-position aims at that; a message from elsewhere in between
		# would spoil it): boot again if it does not.
		step "ring geometry and the records that wrap the data ring (printk_ring.py)"
		if $PY "$HERE/printk_ring.py" "$OUT/vmlinux" "$OUT/elf-paging.vmcore" --need-report-wrap > "$OUT/ring.txt"; then
			cat "$OUT/ring.txt" >&2
			break
		fi
		cat "$OUT/ring.txt" >&2
		cp "$OUT/ring.txt" "$OUT/ring-attempt$attempt.txt"
		cp "$OUT/serial.log" "$OUT/serial-attempt$attempt.log"
		[ "$attempt" -lt 3 ] || die "the first report's record did not wrap the data ring in $attempt boots"
		attempt=$((attempt + 1))
		log "the first report's record does not wrap the data ring: booting again (attempt $attempt)"
		rm -f "$OUT"/*.vmcore "$OUT"/*.flat "$OUT/guest-kmsg.txt"
		TIMINGS=""
	done
	derive_dumps "$set"
	write_truth "$set"

	step "write info.txt"
	{
		echo "set=$set"
		echo "release=$(cat "$KDIR/release")"
		echo "kernel=$KERNEL_ID"
		echo "hash=$h"
		[ "$set" != stock73 ] || echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
		printf '%b' "$TIMINGS"
		echo "total_build_s=$(elapsed "$t_all")"
		for f in "$OUT"/*.vmcore "$OUT"/*.flat "$OUT/vmlinux" "$OUT/vmlinux.guest"; do
			[ -f "$f" ] || continue
			echo "size_$(basename "$f")=$(stat -c %s "$f")"
		done
	} > "$OUT/info.txt"
	[ "${FX_KEEP_WORK:-0}" = 1 ] || rm -rf "$W"
	touch "$OUT/.complete"
	ln -sfn "$OUT" "$HERE/out/$set"
	exec 8>&-
	log "done in $(elapsed "$t_all") s: $OUT"
	echo "$OUT"
}

WRAPPED_FILL=   # set by wrapped_fill
WRAPPED_POSITION=
WRAPPED_BACK=88
LIVE_BIN=

# Records the wrapped set's guest writes to /dev/kmsg before the trigger,
# from the kernel's own CONFIG_LOG_BUF_SHIFT: 2^shift / 16 records of ~190
# bytes (fxtool's mix) fill the 2^shift-byte data ring about 11 times and its
# 2^(shift-5) descriptors twice (shift 17: 8192 records, ~1.5 MB, 128 KiB
# ring, 4096 descriptors). With 2 CPUs CONFIG_LOG_CPU_MAX_BUF_SHIFT=12 adds
# nothing (4 KiB extra is below half the ring), so the ring is 2^shift bytes.
wrapped_fill() {
	local shift
	shift=$(sed -n 's/^CONFIG_LOG_BUF_SHIFT=//p' "$KDIR/config")
	[ -n "$shift" ] || die "no CONFIG_LOG_BUF_SHIFT in $KDIR/config"
	WRAPPED_FILL=$(( (1 << shift) / 16 ))
	log "CONFIG_LOG_BUF_SHIFT=$shift: ${WRAPPED_FILL} filler records"
	# Then put the data ring's head WRAPPED_BACK bytes before the end of the
	# array (fxtool kmsg-position, reading head_lpos through /proc/kcore at
	# these offsets). The trigger's first records are "loading out-of-tree
	# module taints kernel." (a 72-byte block) and the first report (96):
	# the taint message ends 16 bytes before the end, so the report's block
	# wraps (without the taint message it would start 88 bytes before the end
	# and wrap too). The recipe checks it and boots again if not.
	local offs
	offs=$($PY - "$KDIR/vmlinux" <<-'EOF'
		import sys, drgn
		prog = drgn.Program()
		prog.load_debug_info([sys.argv[1]])
		t = prog.type("struct printk_ringbuffer")
		print(drgn.offsetof(t, "text_data_ring.head_lpos"),
		      drgn.offsetof(t, "text_data_ring.size_bits"))
	EOF
	) || die "offsets of struct printk_ringbuffer from $KDIR/vmlinux"
	WRAPPED_POSITION="$offs $WRAPPED_BACK"
	log "kmsg-position: head_lpos/size_bits offsets and back = $WRAPPED_POSITION"
}

main() {
	local what=${1:-all}
	check_packages
	case $what in
	debugvfs73) build_debugvfs73 ;;  # fx-hook
	nobtf) build_nobtf ;;  # fx-hook
	stock | stock4 | stock73 | patched | wrapped) build_set "$what" ;;
	writers) build_writers_set ;;
	big) build_big ;;
	big73) build_big big73 ;;  # fx-hook
	live)
		LIVE_BIN=${2:-${VMCORE_INODE:-$HERE/../../build/vmcore-inode}}
		build_set live ;;
	all)
		# The patched kernel (CPU-bound, ~10-20 min from nothing) builds in
		# the background while the stock sets download, debootstrap and
		# boot; build_set patched then reuses it, or waits on
		# build-kernel.sh's own lock and reruns it in the foreground (with
		# its errors) if the background build failed.
		mkdir -p "$CACHE"
		log "building the patched kernel in the background (log: $CACHE/.prefetch-kernel.log)"
		( nice -n 5 bash "$HERE/build-kernel.sh" > /dev/null 2> "$CACHE/.prefetch-kernel.log" || true ) &
		build_set stock; build_set stock4; build_set stock73; build_set patched; build_set wrapped; build_writers_set; build_big ;;
	*) die "usage: make-fixtures.sh [patched|stock|stock4|stock73|wrapped|writers|big|all] | live [BINARY]" ;;
	esac
	[ "$what" != all ] || build_debugvfs73  # fx-hook
	[ "$what" != all ] || build_big big73  # fx-hook
	[ "$what" != all ] || build_nobtf  # fx-hook
}

main "$@"
