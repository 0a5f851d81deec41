# shellcheck shell=bash disable=SC2034  # the library reads these variables
# arm64-61: Debian 12's default arm64 kernel (bookworm(-security)'s newest
# 6.1 arm64-unsigned with a -dbg of the same version), the arm64-510
# set's recipe otherwise: KALLSYMS_ALL off, BTF on; its VMCOREINFO has
# VMEMMAP_START. README.md, "The arm64-510 and arm64-61 sets".
. "$RECIPES/arm64-510.sh"
FX_KEY="$FX_KEY sums:recipes/arm64-61.sh"
ARM64DEB_SERIES=6.1
arm64_prepare() {
	prepare_apt_arm64; prepare_arm64_busybox
	prepare_arm64_deb_kernel apt_arm64 "$ARM64DEB_SERIES"
	prepare_arm64_makedumpfile_bookworm
}
