# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64-writers: the arm64 set's kernel and guest under sid's QEMU 11
# (qemu-system-aarch64 from sid's qemu-system-arm, run in the sid chroot):
# what QEMU 11 writes for an arm64 guest, of one moment: the paging:false
# ELF (the truth's), kdump-zlib (flattened) and kdump-raw-zlib (diskdump).
# Truth as the arm64 set's (drgn 0.0.22 through libkdumpfile on the ELF).
# README.md, "The arm64 sets".
. "$RECIPES/arm64.sh"
FX_KEY="set kernel call:arm64_key host-tools sid"
FX_KEY="$FX_KEY sums:make-fixtures.sh,fx/arm64.sh,recipes/arm64.sh,recipes/arm64-writers.sh,qmp.py,init.sh,drgn_truth.py,stat_vs_truth.py"
ARM64_W_FORMATS="kdump-zlib kdump-raw-zlib"

arm64_key() { echo "$ARM64_BUSYBOX_ID"; echo "$SID_QEMU_ARM_ID"; echo "formats=$ARM64_W_FORMATS"; }
arm64_prepare() {
	prepare_apt_arm64; prepare_arm64_busybox; prepare_arm64_kernel
	prepare_apt73; prepare_sid_chroot; prepare_sid_qemu_arm
}
recipe_run() {
	local t fmt file
	step "boot sid's QEMU (TCG, ${BOOT_MEM} MiB, $BOOT_CPU)"
	ARM64_QEMU=(sid_run "$SID_CHROOT" "$SID_QEMU_ARM")
	fx_boot_arm64 "$KDIR/$BOOT_KERNEL" "$BOOT_MEM" "$BOOT_APPEND" "$OUT/serial.log" "$BOOT_CPU"
	ARM64_QEMU=(qemu-system-aarch64)
	fx_wait_ready "$OUT/serial.log"
	step "QMP dump elf-nopaging.vmcore"
	t=$(qmp dump "$OUT/elf-nopaging.vmcore") || die "qmp dump elf-nopaging"
	TIMINGS="${TIMINGS}dump_elf_nopaging_s=$t\n"
	for fmt in $ARM64_W_FORMATS; do
		case $fmt in
		kdump-raw-*) file=qemu-$fmt.vmcore ;;
		*) file=qemu-$fmt.flat ;;
		esac
		step "QMP dump $file"
		t=$(qmp dump "$OUT/$file" --format "$fmt") || die "qmp dump $fmt"
		TIMINGS="${TIMINGS}dump_qemu_${fmt//-/_}_s=$t\n"
	done
	quit_guest "$T_BOOT"
	chmod 0644 "$OUT"/*.vmcore "$OUT"/*.flat
}
recipe_info() {
	echo "cpu=$BOOT_CPU qemu=$SID_QEMU_ARM_ID (sid chroot $SID_CHROOT) drgn=$($PY -c 'import drgn; print(drgn.__version__)')"
}
