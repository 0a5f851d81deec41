# shellcheck shell=bash
# The big sets' recipe: sourced by make-fixtures.sh (uses its log, step, die,
# hash16, now, elapsed, wait_serial, qmp, quit_guest, pkg_versions, CACHE,
# PY, HERE and the stock73 recipe's prepare_apt73, prepare_stock73_kernel,
# prepare_sid_chroot and in_sid). Its own file, so editing it re-keys only
# the two big sets. See README.md, "The big sets".
#
# Two sets, one recipe: `big`, the stock Debian 6.12 kernel
# (prepare_stock_kernel), and `big73`, the stock Debian 7.3 kernel
# (prepare_stock73_kernel). Each boots a 1 GiB guest whose /init
# (big_init.sh) builds an inode tree with guest/mktree.c on tmpfs and on
# ext4 in two stages; the guest is dumped after each:
#   small-*  ~20 k inodes      big-*  >= 200 k inodes
# as  S-elf.vmcore (QEMU ELF, paging: readable by drgn and libkdumpfile),
#     S-d17-zlib.vmcore, S-d17-lzo.vmcore (makedumpfile 1.7.2, the host's),
#     S-d17-zstd.vmcore (makedumpfile of sid, in a sid chroot: Debian 12's
#                       1.7.2 has zstd compiled out, -z writes uncompressed)
# Truth: S-truth.txt, drgn's walk of every s_inodes list of
# S-d17-zlib.vmcore (drgn_truth_big.py): per-superblock counts, then one
# line per inode. drgn 0.0.22 (the host's) for big; 0.3.0 (the sid chroot)
# for big73, which 0.0.22 cannot read.

BIG_MEM=1024
# mktree entry ranges: stage 1 tmpfs 0..A, ext4 0..B; stage 2 up to C, D.
# (each range of N entries makes ~1.011 N inodes: the leaf directories)
BIG_STAGE1="12000 6000"
BIG_STAGE2="132000 70000"
BIG_EXT4_INODES=76000

# big_sid DIR CMD...: CMD in the sid chroot (its makedumpfile), DIR at /fx (rw), and
# a /proc: without /proc/meminfo makedumpfile's cyclic buffer shrinks to
# nothing and it takes hours (and a GB of progress lines).
big_sid() {
	unshare --mount --propagation private sh -c '
		c=$1 fx=$2; shift 2
		mount --bind "$fx" "$c/fx" && mount -t proc proc "$c/proc" &&
		exec chroot "$c" "$@"' big_sid "$BIG_SID" "$@"
}

big_qmp() {   # big_qmp COMMAND: a bare QMP command (stop, cont)
	$PY -c 'import sys; sys.path.insert(0, sys.argv[1]); from qmp import QMP
QMP(sys.argv[2]).execute(sys.argv[3])' "$HERE" "$W/qmp.sock" "$1"
}

big_initramfs() {
	step "build the big set's initramfs (busybox, mktree, modules, ext4 image)"
	local root=$W/root m
	rm -rf "$root"; mkdir -p "$root/bin" "$root/etc" "$root/modules"
	cp /bin/busybox "$root/bin/busybox"
	install -m 755 "$HERE/big_init.sh" "$root/init"
	gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/mktree" "$HERE/guest/mktree.c" >&2 ||
		die "gcc guest/mktree.c"
	for m in $(cat "$KDIR/modules.list"); do cp "$KDIR/modules/$m.ko" "$root/modules/"; done
	# shellcheck disable=SC2086
	set -- $BIG_STAGE1 $BIG_STAGE2
	printf 'FX_MODULES="%s"\nFX_STAGE1_TMPFS=%s\nFX_STAGE1_EXT4=%s\nFX_STAGE2_TMPFS=%s\nFX_STAGE2_EXT4=%s\n' \
		"$(cat "$KDIR/modules.list")" "$1" "$2" "$3" "$4" > "$root/etc/fixture.conf"
	truncate -s 64M "$root/ext4.img"
	mkfs.ext4 -q -F -N "$BIG_EXT4_INODES" -L inodedump-big -U 00000000-0000-4000-8000-0000000b1900 \
		-E root_owner=0:0 "$root/ext4.img" >&2 || die "mkfs.ext4"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$W/initramfs.cpio.gz" ||
		die "cpio"
}

# big_dump STAGE: the guest stopped, its two ELF dumps, the guest running
# again. The paging one is kept; the other feeds makedumpfile (big_derive).
big_dump() {
	local s=$1 t
	big_qmp stop || die "qmp stop"
	step "QMP dump $s-elf.vmcore (paging) and the makedumpfile input"
	t=$(qmp dump "$OUT/$s-elf.vmcore" --paging) || die "qmp dump $s-elf"
	TIMINGS="${TIMINGS}dump_${s}_elf_s=$t\n"
	t=$(qmp dump "$W/$s-nopaging.elf") || die "qmp dump $s nopaging"
	TIMINGS="${TIMINGS}dump_${s}_nopaging_s=$t\n"
	big_qmp cont || die "qmp cont"
}

big_derive() {   # big_derive STAGE
	local s=$1 t0 spec name args
	step "$s: rewrite ELF program headers for makedumpfile (pitfall 4)"
	$PY "$HERE/elf_fixphdr.py" "$W/$s-nopaging.elf" "$W/$s-fixed.elf" || die "elf_fixphdr.py"
	rm -f "$W/$s-nopaging.elf"
	for spec in "d17-zlib:-d 17 -c" "d17-lzo:-d 17 -l"; do
		name=${spec%%:*} args=${spec#*:}
		step "$s: makedumpfile $args -> $s-$name.vmcore"
		t0=$(now)
		# shellcheck disable=SC2086
		makedumpfile $args "$W/$s-fixed.elf" "$OUT/$s-$name.vmcore" >"$W/makedumpfile-$s-$name.log" 2>&1 || {
			cat "$W/makedumpfile-$s-$name.log" >&2; die "makedumpfile $args"; }
		TIMINGS="${TIMINGS}makedumpfile_${s}_${name}_s=$(elapsed "$t0")\n"
	done
	step "$s: makedumpfile -d 17 -z (sid chroot) -> $s-d17-zstd.vmcore"
	t0=$(now)
	big_sid "$W" makedumpfile -d 17 -z "/fx/$s-fixed.elf" "/fx/$s-d17-zstd.vmcore" \
		>"$W/makedumpfile-$s-zstd.log" 2>&1 || { cat "$W/makedumpfile-$s-zstd.log" >&2; die "makedumpfile -z"; }
	mv "$W/$s-d17-zstd.vmcore" "$OUT/$s-d17-zstd.vmcore"
	TIMINGS="${TIMINGS}makedumpfile_${s}_d17-zstd_s=$(elapsed "$t0")\n"
	rm -f "$W/$s-fixed.elf"
	chmod 0644 "$OUT/$s"-*.vmcore
}

big_truth() {   # big_truth STAGE (BIG_DRGN: host or sid)
	local s=$1 t0 n
	t0=$(now)
	if [ "$BIG_DRGN" = sid ]; then
		step "$s: truth from drgn $(cat "$BIG_SID/drgn-version") (sid chroot) reading $s-d17-zlib.vmcore"
		in_sid "$BIG_SID" "$OUT" "$HERE" /usr/bin/python3 /src/drgn_truth_big.py \
			/fx/vmlinux "/fx/$s-d17-zlib.vmcore" > "$OUT/$s-truth.txt" ||
			die "drgn_truth_big.py $s (sid chroot)"
	else
		step "$s: truth from drgn $($PY -c 'import drgn; print(drgn.__version__)') reading $s-d17-zlib.vmcore"
		$PY "$HERE/drgn_truth_big.py" "$OUT/vmlinux" "$OUT/$s-d17-zlib.vmcore" > "$OUT/$s-truth.txt" ||
			die "drgn_truth_big.py $s"
	fi
	TIMINGS="${TIMINGS}truth_${s}_s=$(elapsed "$t0")\n"
	n=$(grep -c '^inode ' "$OUT/$s-truth.txt")
	log "$s: drgn walked $n inodes"
	TIMINGS="${TIMINGS}inodes_${s}=$n\n"
	case $s in
	small) [ "$n" -ge 15000 ] && [ "$n" -lt 40000 ] || die "small: $n inodes, not ~20 k" ;;
	big) [ "$n" -ge 200000 ] || die "big: $n inodes, not >= 200 k" ;;
	esac
}

build_big() {   # build_big [big|big73]
	local t_all h inputs t0 t set=${1:-big}
	SET=$set
	t_all=$(now)
	case $set in
	big) prepare_stock_kernel; BIG_DRGN=host ;;
	big73) BIG_DRGN=sid ;;   # its kernel is found with the private apt state
	*) die "build_big: no set $set" ;;
	esac
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.stock73-prepare.lock"   # the private apt state is shared
	flock 9
	prepare_apt73
	[ "$set" != big73 ] || prepare_stock73_kernel
	prepare_sid_chroot
	exec 9>&-
	BIG_SID=$SID_CHROOT
	step "hash inputs"
	inputs=$(
		echo "set=$set"
		echo "$KERNEL_ID"
		echo "truth drgn: $BIG_DRGN"
		pkg_versions
		dpkg-query -W -f='${Package}=${Version}\n' gcc libc6-dev
		echo "sid-chroot $SID_ID"
		echo "mem=$BIG_MEM stage1=$BIG_STAGE1 stage2=$BIG_STAGE2 ext4_inodes=$BIG_EXT4_INODES"
		(cd "$HERE" && sha256sum make-fixtures.sh qmp.py elf_fixphdr.py big.sh big_init.sh \
			guest/mktree.c drgn_truth_big.py)
	)
	if claim_set "$set" "$inputs"; then echo "$OUT"; return 0; fi
	h=$SET_HASH
	TIMINGS=""
	ln -f "$KDIR/vmlinux" "$OUT/vmlinux" 2>/dev/null || cp "$KDIR/vmlinux" "$OUT/vmlinux"
	big_initramfs

	step "boot QEMU (TCG, ${BIG_MEM} MiB)"
	rm -f "$W/qmp.sock" "$W/ctl.sock" "$OUT/serial.log"
	t0=$(now)
	qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
		-smp 2,sockets=2,cores=1,threads=1 -m "$BIG_MEM" \
		-nographic -no-reboot -device vmcoreinfo \
		-kernel "$KDIR/vmlinuz" -initrd "$W/initramfs.cpio.gz" \
		-append "console=ttyS0 qemu_fw_cfg.ioport=12@0x510:0:1:4 no_timer_check" \
		-monitor none \
		-chardev "file,id=con,path=$OUT/serial.log" -serial chardev:con \
		-chardev "socket,id=ctl,path=$W/ctl.sock,server=on,wait=off" -serial chardev:ctl \
		-qmp "unix:$W/qmp.sock,server=on,wait=off" \
		</dev/null >"$W/qemu.out" 2>&1 &
	QEMU_PID=$!
	# no_timer_check: on a busy host TCG's timer can look broken to the
	# kernel's IO-APIC check ("IO-APIC + timer doesn't work!": a panic).
	wait_serial "$OUT/serial.log" 'inodedump-big: ready 1|Kernel panic' "$BOOT_TIMEOUT" "stage 1 (ready 1)"
	! grep -q 'Kernel panic' "$OUT/serial.log" || die "$(grep -m1 'Kernel panic' "$OUT/serial.log")"
	TIMINGS="${TIMINGS}boot_to_ready1_s=$(elapsed "$t0")\n"
	! grep -q 'inodedump-big: FAILED' "$OUT/serial.log" || die "$(grep 'inodedump-big: FAILED' "$OUT/serial.log")"
	big_dump small
	step "stage 2: tell the guest to grow the tree"
	$PY - "$W/ctl.sock" <<-'EOF2' || die "send 'more' on ttyS1"
		import socket, sys, time
		s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"more\n")
		time.sleep(0.5); s.close()
	EOF2
	t=$(now)
	big_derive small   # while the guest works
	wait_serial "$OUT/serial.log" 'inodedump-big: ready 2|Kernel panic' $((BOOT_TIMEOUT * 3)) "stage 2 (ready 2)"
	! grep -q 'Kernel panic' "$OUT/serial.log" || die "$(grep -m1 'Kernel panic' "$OUT/serial.log")"
	TIMINGS="${TIMINGS}stage2_s=$(elapsed "$t")\n"
	! grep -q 'inodedump-big: FAILED' "$OUT/serial.log" || die "$(grep 'inodedump-big: FAILED' "$OUT/serial.log")"
	big_dump big
	quit_guest "$t0"
	big_derive big
	big_truth small
	big_truth big

	step "write info.txt"
	{
		echo "set=$set"
		echo "release=$(cat "$KDIR/release")"
		echo "kernel=$KERNEL_ID"
		echo "hash=$h"
		echo "makedumpfile_zstd=$(cat "$BIG_SID/inodedump-inputs.txt") chroot=$BIG_SID"
		printf '%b' "$TIMINGS"
		echo "total_build_s=$(elapsed "$t_all")"
		for f in "$OUT"/*.vmcore; do echo "size_$(basename "$f")=$(stat -c %s "$f")"; done
	} > "$OUT/info.txt"
	[ "${FX_KEEP_WORK:-0}" = 1 ] || rm -rf "$W"
	touch "$OUT/.complete"
	ln -sfn "$OUT" "$HERE/out/$set"
	exec 8>&-
	log "done in $(elapsed "$t_all") s: $OUT"
	echo "$OUT"
}
