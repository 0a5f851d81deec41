# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, Debian's default arm64 kernels (the arm64-510 and
# arm64-61 sets): bullseye's 5.10 and bookworm's 6.1 arm64 kernels, built
# with CONFIG_KALLSYMS_ALL off (kallsyms holds text symbols only: no
# __start_BTF, no module data); the -dbg package's vmlinux and module
# debug files; bookworm's makedumpfile:arm64 1.7.2. Over fx/arm64.sh (a
# file of its own so the other arm64 sets' keys, which hash fx/arm64.sh,
# stay). README.md, "The arm64-510 and arm64-61 sets"; FIXTURES.md,
# "Debian's default arm64 kernels".
# The guest's modules are the 6.12 arm64 set's (ARM64_MODULES:
# crc32c_generic is a module on both kernels).

# prepare_apt_arm64_510 -> APTARM510: bullseye for arm64 (the host's
# mirror). bullseye-security answers 404 for every arm64 file
# (FIXTURES.md): bullseye's own newest kernel is the one reachable.
prepare_apt_arm64_510() {
	local mirror
	step "private apt state for bullseye arm64"
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	APTARM510=$CACHE/apt-state-arm64-bullseye
	APT_ARCH=arm64 fx_apt_state "$APTARM510" "bullseye arm64" \
		"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bullseye main"
}
apt_arm64_510() {
	step "private apt state for bullseye arm64"
	local mirror key=/usr/share/keyrings/debian-archive-keyring.gpg
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	APTARM510=$CACHE/apt-state-arm64-bullseye
	APT_ARCH=arm64 fx_apt_state "$APTARM510" "bullseye arm64" \
		"$(printf 'deb [signed-by=%s] %s %s main\n' "$key" "$mirror" bullseye)"
}
apt_arm64_510() { local APT73=$APTARM510 APT_ARCH=arm64; apt73 "$@"; }

# ARM64_DEB_DEBUG_MODULES: the modules whose debug files (the -dbg
# package's lib/modules/R/kernel/.../M.ko) the set keeps beside its
# vmlinux, in KDIR/debug/ (a --debug-root: lib/modules/R/kernel/...)
ARM64_DEB_DEBUG_MODULES="ext4"

# prepare_arm64_deb_kernel APT SERIES -> KDIR (vmlinuz, vmlinux,
# modules/*.ko, modules.list, config, release, packages, debug/ with the
# ARM64_DEB_DEBUG_MODULES debug files), KERNEL_ID
prepare_arm64_deb_kernel() {
	local apt=$1 series=$2 rv rel ver
	step "find newest stock Debian $series arm64 kernel"
	rv=$(fx_find_image_dbg "$apt" "$series" arm64) ||
		die "no linux-image-$series.0-*-arm64-unsigned with a matching -dbg (private arm64 lists)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	fx_deb_image_kernel arm64 "$apt" "$rel" "$ver" "linux-image-$rel-unsigned" arm64-deb-kernel \
		"$ARM64_MODULES" "$ARM64_DEB_DEBUG_MODULES"
}

# prepare_arm64_makedumpfile_bookworm (after prepare_apt_arm64) ->
# ARM64_MDF, ARM64_MDF_ID, ARM64_MDF_VERSION: bookworm's makedumpfile:arm64
# (1.7.2, what a Debian 12 arm64 system runs; it accepts these 48-bit
# kernels, FIXTURES.md) in a sysroot, as prepare_arm64_makedumpfile does
# with sid's
ARM64_MDF_BOOKWORM_DEBS="makedumpfile libc6 libdw1 libelf1 liblzo2-2 libzstd1 zlib1g libbz2-1.0 liblzma5"
prepare_arm64_makedumpfile_bookworm() {
	ARM64_MDF_DEBS=$ARM64_MDF_BOOKWORM_DEBS APTARMSID=$APTARM prepare_arm64_makedumpfile
}
