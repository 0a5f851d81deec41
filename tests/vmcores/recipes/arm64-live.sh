# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64-live: `vmcore-inode --live` (/proc/kcore, the running kernel's own
# BTF and kallsyms: no vmlinux in the guest) inside the arm64 set's guest.
# The binary is this tree's vmcore-inode cross-built for arm64 (Debian
# 12's gcc-aarch64-linux-gnu, a sysroot of bookworm's arm64 -dev
# packages); it and its libraries go into the initramfs. At the ready
# marker the host dumps the guest (elf-nopaging.vmcore), drgn reads the
# truth from that dump, and the host sends the truth's addresses: the
# guest runs `--live --json ADDR...` and `--live --sweep --jsonl`, framed
# on the console (serial.log; tests/test_arm64_live.py reads it). The key
# holds the sources' digests: a change to the library rebuilds the set.
# README.md, "The arm64 sets".
. "$RECIPES/arm64.sh"
FX_KEY="set kernel call:arm64_live_key host-tools debs:qemu-system-arm,gcc-aarch64-linux-gnu"
FX_KEY="$FX_KEY sums:make-fixtures.sh,fx/arm64.sh,recipes/arm64.sh,recipes/arm64-live.sh,qmp.py,init.sh,drgn_truth.py,stat_vs_truth.py"
BOOT_MEM=512

arm64_live_key() { echo "$ARM64_BUSYBOX_ID"; echo "$ARM64_VI_ID"; }
arm64_prepare() {
	prepare_apt_arm64; prepare_arm64_busybox; prepare_arm64_kernel
	prepare_arm64_sysroot; prepare_arm64_vmcore_inode
}
recipe_content() {
	fx_stock_content "$FX_SET"
	mv "$ROOT/init" "$ROOT/init.sh"
	step "the arm64 vmcore-inode and its libraries into the initramfs"
	arm64_live_files "$ROOT"
	# /init: init.sh in the background with a FIFO as its /dev/ttyS1; this
	# shell reads the host's commands on the console: "live ADDR..." runs
	# vmcore-inode, "panic" goes on to init.sh. Its files go to / (the
	# initramfs), never to the tmpfs or ext4 whose inodes are counted.
	cat > "$ROOT/init" <<-'INIT'
		#!/bin/busybox sh
		/bin/busybox mkdir -p /dev && /bin/busybox mount -t devtmpfs devtmpfs /dev &&
			/bin/busybox mkfifo /dev/ttyS1 && /bin/busybox umount /dev
		/bin/busybox sh /init.sh &
		export PATH=/bin:/sbin HOME=/ LD_LIBRARY_PATH=/live/lib INODEDUMP_NO_CACHE=1
		while [ ! -e /proc/self ] || [ ! -e /bin/stty ]; do /bin/busybox sleep 0.2; done
		live_run() {
			name=$1; shift
			"$@" > /live.out 2> /live.err
			rc=$?
			echo "inodedump-live-begin name=$name"
			cat /live.out; echo
			echo "inodedump-live-stderr name=$name"
			cat /live.err; echo
			echo "inodedump-live-end name=$name rc=$rc"
		}
		while :; do
			stty -F /dev/ttyAMA0 -echo 2>/dev/null
			read -r cmd args < /dev/ttyAMA0 || { sleep 1; continue; }
			case $cmd in
			live)
				# shellcheck disable=SC2086
				live_run decode /live/vmcore-inode --live --json $args
				live_run sweep /live/vmcore-inode --live --sweep --jsonl
				echo "inodedump-live: done" ;;
			panic) echo panic > /dev/ttyS1 ;;
			esac
		done
	INIT
	chmod 755 "$ROOT/init"
}
recipe_run() {
	local t addrs
	step "boot QEMU (TCG, ${BOOT_MEM} MiB, $BOOT_CPU)"
	fx_boot_arm64 "$KDIR/$BOOT_KERNEL" "$BOOT_MEM" "$BOOT_APPEND" "$OUT/serial.log" "$BOOT_CPU"
	fx_wait_ready "$OUT/serial.log"
	step "QMP dump elf-nopaging.vmcore"
	t=$(qmp dump "$OUT/elf-nopaging.vmcore") || die "qmp dump elf-nopaging"
	TIMINGS="${TIMINGS}dump_elf_nopaging_s=$t\n"
	DRGN_USE_LIBKDUMPFILE_FOR_ELF=1 fx_truth_drgn "$OUT" elf-nopaging.vmcore 18
	addrs=$(sed -n 's/^addr=\([0-9a-f]*\) .*/\1/p' "$OUT/truth.txt" | tr '\n' ' ')
	step "vmcore-inode --live in the guest"
	t=$(now)
	fx_ctl "live $addrs"
	wait_serial "$OUT/serial.log" 'inodedump-live: done' 600 "the guest's live runs"
	TIMINGS="${TIMINGS}live_runs_s=$(elapsed "$t")\n"
	quit_guest "$T_BOOT"
	chmod 0644 "$OUT"/*.vmcore
}
recipe_truth() {
	fx_truth_vs_stat "$OUT"
	grep -q 'inodedump-live-end name=decode rc=' "$OUT/serial.log" || die "no framed decode run in serial.log"
}
recipe_info() {
	echo "cpu=$BOOT_CPU qemu=$(dpkg-query -W -f='${Version}' qemu-system-arm) drgn=$($PY -c 'import drgn; print(drgn.__version__)')"
	echo "arm64_vmcore_inode=$ARM64_VI"
}
