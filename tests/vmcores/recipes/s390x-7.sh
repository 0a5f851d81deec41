# shellcheck shell=bash disable=SC2034  # the library reads these variables
# s390x-7: the s390x set's recipe on Debian's newest 7.x s390x kernel
# (trixie-backports: linux-binary-7.N.M+deb13-s390x with linux-modules and
# -dbg of its version), with trixie's busybox-static and makedumpfile
# (1.7.6) for s390x. README.md, "The s390x sets".
. "$RECIPES/s390x.sh"
FX_KEY="$FX_KEY sums:recipes/s390x-7.sh"
S390X_SUITES="trixie trixie-backports"
S390X_73_SERIES='7\.[0-9]+\.[0-9]+'
# 7.x: crc32c is built in (no crc32c_generic); ext4's closure is jbd2,
# crc16, mbcache
S390X_MODULES="virtio_console ext4 loop"
# trixie is merged-/usr and 64-bit time_t: its libraries' names
S390X_MDF_DEBS="makedumpfile libc6 libdw1t64 libelf1t64 liblzo2-2 libzstd1 zlib1g libbz2-1.0 liblzma5 libgcc-s1"
s390x_prepare() {
	prepare_apt_s390x $S390X_SUITES; prepare_s390x_busybox
	prepare_s390x_73_kernel "$S390X_73_SERIES"
	prepare_s390x_makedumpfile
	prepare_apt73; prepare_sid_chroot
}
