# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64-73: Debian's stock arm64 7.x kernel from trixie-backports (the
# flavour `arm64`: 4 KiB pages; linux-binary/linux-modules/-dbg, the
# package split of the amd64 stock73 set) on -cpu cortex-a57, the arm64
# set's guest. Truth from drgn 0.3.0 in the sid chroot (drgn 0.0.22
# cannot read 7.x), checked against the guest's stat(1) lines.
# README.md, "The arm64 sets".
. "$RECIPES/arm64.sh"
FX_KEY="$FX_KEY sid sums:recipes/arm64-73.sh,drgn_truth73.py"
ARM64_FLAVOUR=arm64
ARM64_TRUTH_CHROOT=1

arm64_prepare() {
	prepare_apt_arm64; prepare_arm64_busybox
	prepare_apt_arm64_73; prepare_arm64_73_kernel "$ARM64_FLAVOUR"
	prepare_apt_arm64_sid; prepare_arm64_makedumpfile
	prepare_apt73; prepare_sid_chroot
}
recipe_info() {
	echo "cpu=$BOOT_CPU qemu=$(dpkg-query -W -f='${Version}' qemu-system-arm)"
	echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
	echo "$ARM64_MDF_INFO"
}
