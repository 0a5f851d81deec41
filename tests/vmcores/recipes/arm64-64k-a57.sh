# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64-64k-a57: the arm64-64k set's kernel and guest on -cpu cortex-a57,
# which has no ARMv8.2 LVA: the VA_BITS=52 kernel runs with 48 bits
# (TCR_EL1_T1SZ=0x10). Booted under sid's QEMU 11 (arm64-writers'
# qemu-system-aarch64, run in the sid chroot), which also writes
# kdump-raw-zlib (diskdump, not flattened) besides arm64-64k's dumps.
# README.md, "The arm64-64k sets".
. "$RECIPES/arm64-64k.sh"
FX_KEY="$FX_KEY call:a64k_a57_key sums:recipes/arm64-64k-a57.sh"
BOOT_CPU=cortex-a57
A64K_T1SZ=0x10   # 64 - 48

a64k_a57_key() { echo "$SID_QEMU_ARM_ID"; }
eval "a64k_prepare_64k() $(declare -f recipe_prepare | tail -n +2)"
recipe_prepare() {
	a64k_prepare_64k
	fx_shared prepare_sid_qemu_arm
	ARM64_QEMU=(sid_run "$SID_CHROOT" "$SID_QEMU_ARM")
}
# fx_run's QMP dumps, then QEMU 11's kdump-raw-zlib of the same moment
eval "a64k_qmp_dumps() $(declare -f fx_qmp_dumps | tail -n +2)"
fx_qmp_dumps() {
	local t
	a64k_qmp_dumps "$@"
	step "QMP dump qemu-kdump-raw-zlib.vmcore (QEMU 11)"
	t=$(qmp dump "$1/qemu-kdump-raw-zlib.vmcore" --format kdump-raw-zlib) || die "qmp dump kdump-raw-zlib"
	TIMINGS="${TIMINGS}dump_qemu_kdump_raw_zlib_s=$t\n"
}
eval "a64k_info_64k() $(declare -f recipe_info | tail -n +2)"
recipe_info() {
	a64k_info_64k | sed "s|^arch=arm64 cpu=$BOOT_CPU qemu=.*|arch=arm64 cpu=$BOOT_CPU qemu=$SID_QEMU_ARM_ID (sid chroot)|"
}
