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
FX_KEY="$FX_KEY sums:make-fixtures.sh,fx/arm64.sh,fx/cross.sh,recipes/arm64.sh,recipes/arm64-live.sh,qmp.py,init.sh,drgn_truth.py,stat_vs_truth.py"
BOOT_MEM=512

arm64_live_key() { echo "$ARM64_BUSYBOX_ID"; echo "$ARM64_VI_ID"; }
arm64_prepare() {
	prepare_apt_arm64; prepare_arm64_busybox; prepare_arm64_kernel
	prepare_arm64_sysroot; prepare_arm64_vmcore_inode
}
recipe_content() {
	fx_stock_content "$FX_SET"
	step "the arm64 vmcore-inode and its libraries into the initramfs"
	arm64_live_files "$ROOT"
	# /init: init.sh in the background, the host's commands on the console
	# (fx_cross_live_init)
	# shellcheck disable=SC2016  # $args: the guest's
	fx_cross_live_init "$ROOT" ttyAMA0 "" 'decode --live --json $args' 'sweep --live --sweep --jsonl'
}
recipe_run() {
	local t
	step "boot QEMU (TCG, ${BOOT_MEM} MiB, $BOOT_CPU)"
	fx_boot_arm64 "$KDIR/$BOOT_KERNEL" "$BOOT_MEM" "$BOOT_APPEND" "$OUT/serial.log" "$BOOT_CPU"
	fx_wait_ready "$OUT/serial.log"
	step "QMP dump elf-nopaging.vmcore"
	t=$(qmp dump "$OUT/elf-nopaging.vmcore") || die "qmp dump elf-nopaging"
	TIMINGS="${TIMINGS}dump_elf_nopaging_s=$t\n"
	DRGN_USE_LIBKDUMPFILE_FOR_ELF=1 fx_truth_drgn "$OUT" elf-nopaging.vmcore 18
	fx_cross_live_runs 600
}
recipe_truth() {
	fx_truth_vs_stat "$OUT"
	grep -q 'inodedump-live-end name=decode rc=' "$OUT/serial.log" || die "no framed decode run in serial.log"
}
recipe_info() {
	echo "cpu=$BOOT_CPU qemu=$(dpkg-query -W -f='${Version}' qemu-system-arm) drgn=$($PY -c 'import drgn; print(drgn.__version__)')"
	echo "arm64_vmcore_inode=$ARM64_VI"
}
