# shellcheck shell=bash disable=SC2034  # the library reads these variables
# s390x-7: the s390x set's recipe on Debian's newest 7.x s390x kernel
# (trixie-backports: linux-binary-7.N.M+deb13-s390x with linux-modules and
# -dbg of its version, its config from linux-base) that downloads; busybox
# and makedumpfile 1.7.2 for s390x are bookworm's, as for the s390x set
# (measured: trixie's s390x libc6 answered 404 from the mirror's pool,
# while its lists named it). This kernel has BTF (CONFIG_DEBUG_INFO_BTF=y)
# and CONFIG_KALLSYMS_ALL=y. README.md, "The s390x sets".
. "$RECIPES/s390x.sh"
FX_KEY="$FX_KEY sums:recipes/s390x-7.sh"
S390X_73_SUITES="trixie trixie-backports"
S390X_73_SERIES='7\.[0-9]+\.[0-9]+'
# 7.x: crc32c and virtio_console are built in; ext4's closure is jbd2,
# crc16, mbcache
S390X_MODULES="ext4 loop"
s390x_key() {
	echo "$S390X_BUSYBOX_ID"; echo "$S390X_MDF_ID"
	echo "suites=$S390X_SUITES kernel-suites=$S390X_73_SUITES mem=$BOOT_MEM cpu=$BOOT_CPU mdf=$S390X_MAKEDUMPFILE"
}
s390x_prepare() {
	prepare_apt_s390x $S390X_SUITES; prepare_s390x_busybox; prepare_s390x_makedumpfile
	prepare_apt_s390x $S390X_73_SUITES; prepare_s390x_73_kernel "$S390X_73_SERIES"
	prepare_apt73; prepare_sid_chroot
}
