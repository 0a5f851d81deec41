# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, arm64: Debian's arm64 kernels, busybox, makedumpfile and
# -dev packages through private apt states with APT::Architectures=arm64
# (the host stays amd64: nothing of them is installed, no `dpkg
# --add-architecture`); the guest under qemu-system-aarch64 (Debian 12's
# qemu-system-arm, or sid's in the sid chroot; TCG); makedumpfile:arm64
# under qemu-aarch64-static; this tree's vmcore-inode cross-built for the
# guest's --live runs. README.md, "The arm64 sets"; FIXTURES.md, "Other
# architectures".

# Modules the arm64 guests load (their modinfo closure first): qemu_fw_cfg
# first (without it no VMCOREINFO reaches the dump, FIXTURES.md), then
# ext4 (jbd2 mbcache crc16 by depends) and loop for the ext4 image.
# crc32c: ext4 asks the crypto API for "crc32c" at mount; arm64 6.12 has
# crc32c_generic as a module, 7.x has crc32c built in.
ARM64_MODULES="qemu_fw_cfg crc32c_generic ext4 loop"
ARM64_73_MODULES="qemu_fw_cfg ext4 loop"

# fx_deb_arm64 PKG VER APT: fx_deb of the arm64 .deb
fx_deb_arm64() { FX_DEB_ARCH=arm64 fx_deb "$@"; }

# apt_arm64 ARGS...: apt73 against the bookworm arm64 state $APTARM
apt_arm64() { local APT73=$APTARM APT_ARCH=arm64; apt73 "$@"; }
# apt_arm64_73 ARGS...: apt73 against the trixie-backports arm64 state
apt_arm64_73() { local APT73=$APTARM73 APT_ARCH=arm64; apt73 "$@"; }

# prepare_apt_arm64 -> APTARM: bookworm and bookworm-security for arm64
# (the host's mirrors, read at run time)
prepare_apt_arm64() {
	step "private apt state for bookworm(-security) arm64"
	local mirror sec key=/usr/share/keyrings/debian-archive-keyring.gpg
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	sec=$(host_mirror security) || die "no Debian security mirror in /etc/apt/sources.list.d/*.sources"
	APTARM=$CACHE/apt-state-arm64
	APT_ARCH=arm64 fx_apt_state "$APTARM" "bookworm, bookworm-security arm64" \
		"$(printf 'deb [signed-by=%s] %s %s main\n' "$key" "$mirror" bookworm "$key" "$sec" bookworm-security)"
}

# prepare_apt_arm64_73 -> APTARM73: trixie and trixie-backports for arm64
prepare_apt_arm64_73() {
	step "private apt state for trixie(-backports) arm64"
	local mirror key=/usr/share/keyrings/debian-archive-keyring.gpg
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	APTARM73=$CACHE/apt-state-arm64-trixie
	APT_ARCH=arm64 fx_apt_state "$APTARM73" "trixie, trixie-backports arm64" \
		"$(printf 'deb [signed-by=%s] %s %s main\n' "$key" "$mirror" trixie "$key" "$mirror" trixie-backports)"
}

# arm64_candidates APT PKG...: "PKG VERSION" of each PKG's candidate
arm64_candidates() {
	local apt=$1; shift
	$apt apt-cache policy "$@" 2>/dev/null | awk '
		/^[^ ]+:$/ { pkg = substr($0, 1, length($0) - 1) }
		/^ +Candidate:/ && $2 != "(none)" { print pkg, $2 }'
}

# Newest linux-image-6.12.*+deb12-arm64-unsigned whose -dbg has the same
# candidate. Prints "release version".
find_arm64_kernel() {
	local names n rel vers ver
	names=$(apt_arm64 apt-cache pkgnames linux-image-6.12. |
		grep -E '^linux-image-6\.12\.[0-9]+\+deb12-arm64-unsigned$' | sort -rV)
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2046
	vers=$(arm64_candidates apt_arm64 $(for n in $names; do
		rel=${n#linux-image-}; rel=${rel%-unsigned}; echo "$n linux-image-$rel-dbg"; done))
	for n in $names; do
		rel=${n#linux-image-}; rel=${rel%-unsigned}
		ver=$(printf '%s\n' "$vers" | awk -v p="$n" '$1 == p { print $2 }')
		if [ -n "$ver" ] && printf '%s\n' "$vers" | grep -qxF "linux-image-$rel-dbg $ver"; then
			echo "$rel $ver"
			return 0
		fi
	done
	return 1
}

# prepare_arm64_kernel (after prepare_apt_arm64) -> KDIR (vmlinuz: a raw
# arm64 Image, vmlinux, modules/*.ko, modules.list, release, packages),
# KERNEL_ID
prepare_arm64_kernel() {
	step "find newest stock Debian 6.12 arm64 kernel"
	local rv rel ver h tmp img dbg
	rv=$(find_arm64_kernel) ||
		die "no linux-image-6.12.*+deb12-arm64-unsigned with a matching -dbg (private arm64 lists)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	KERNEL_ID="linux-image-$rel-unsigned:arm64=$ver linux-image-$rel-dbg:arm64=$ver"
	# v1: the extraction below; bump it when that changes what is extracted
	h=$(printf '%s\n' "$KERNEL_ID modules=$ARM64_MODULES arm64-kernel-v1" | hash16)
	KDIR=$CACHE/arm64-kernel-$h
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	img=$(fx_deb_arm64 "linux-image-$rel-unsigned" "$ver" apt_arm64)
	dbg=$(fx_deb_arm64 "linux-image-$rel-dbg" "$ver" apt_arm64)
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules"
	step "extract vmlinux-$rel from the arm64 -dbg package (only that member)"
	fx_deb_member "$dbg" "usr/lib/debug/boot/vmlinux-$rel" "$tmp/vmlinux"
	step "extract the Image and modules from the arm64 image package"
	dpkg-deb -x "$img" "$tmp/x" || die "dpkg-deb -x $img"
	cp "$tmp/x/boot/vmlinuz-$rel" "$tmp/vmlinuz"
	cp "$tmp/x/boot/config-$rel" "$tmp/config"
	fx_modules "$tmp/x/lib/modules/$rel/kernel" "$tmp/modules" $ARM64_MODULES
	fx_kernel_done "$tmp" "$rel"
}

# Newest linux-binary-7.*+deb13-FLAVOUR (arm64 or arm64-16k) in
# trixie-backports whose linux-modules and -dbg have the same version.
# Prints "release version".
find_arm64_73_kernel() {
	local flavour=$1 names
	names=$(apt_arm64_73 apt-cache pkgnames linux-binary-7. |
		grep -E "^linux-binary-7\.[0-9]+\.[0-9]+\+deb13-$flavour\$" | sort -rV)
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2046,SC2086
	fx_split_matches "$names" "$(APT73=$APTARM73 APT_ARCH=arm64 suite_versions trixie-backports \
		$(fx_split_pkgs $names))" | fx_first
}

# prepare_arm64_73_kernel FLAVOUR (after prepare_apt_arm64_73) -> KDIR, KERNEL_ID:
# the 7.x package split of prepare_stock73_kernel, for arm64
prepare_arm64_73_kernel() {
	local flavour=$1 rv rel ver h tmp bin mods dbg
	step "find newest stock Debian 7.x $flavour kernel in trixie-backports"
	rv=$(find_arm64_73_kernel "$flavour") ||
		die "no linux-binary-7.*+deb13-$flavour with matching linux-modules and -dbg in trixie-backports"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	KERNEL_ID="linux-binary-$rel:arm64=$ver linux-modules-$rel:arm64=$ver linux-image-$rel-dbg:arm64=$ver"
	h=$(printf '%s\n' "$KERNEL_ID modules=$ARM64_73_MODULES arm64-73-kernel-v1" | hash16)
	KDIR=$CACHE/arm64-73-kernel-$h
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	bin=$(fx_deb_arm64 "linux-binary-$rel" "$ver" apt_arm64_73)
	mods=$(fx_deb_arm64 "linux-modules-$rel" "$ver" apt_arm64_73)
	dbg=$(fx_deb_arm64 "linux-image-$rel-dbg" "$ver" apt_arm64_73)
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules"
	step "extract vmlinux from the -dbg package (only that member)"
	fx_deb_member "$dbg" "usr/lib/debug/lib/modules/$rel/vmlinux" "$tmp/vmlinux"
	step "extract vmlinuz from linux-binary"
	fx_deb_member "$bin" "usr/lib/modules/$rel/vmlinuz" "$tmp/vmlinuz"
	step "extract the modules the guest needs from linux-modules"
	dpkg-deb --fsys-tarfile "$mods" | tar -x -C "$tmp/x" --wildcards "./usr/lib/modules/$rel/kernel/*" ||
		die "extract the modules from $mods"
	fx_modules "$tmp/x/usr/lib/modules/$rel/kernel" "$tmp/modules" $ARM64_73_MODULES
	fx_kernel_done "$tmp" "$rel"
}

# prepare_arm64_busybox (after prepare_apt_arm64) -> ARM64_BUSYBOX (a static
# arm64 busybox from bookworm's busybox-static:arm64), ARM64_BUSYBOX_ID
prepare_arm64_busybox() {
	fx_foreign_busybox arm64 apt_arm64 arm64
	ARM64_BUSYBOX_ID=$FOREIGN_BUSYBOX_ID ARM64_BUSYBOX=$FOREIGN_BUSYBOX
}

# ---------------------------------------------------------------- the guest
# The arm64 kernel command line: the PL011 console; fw_cfg (and with it
# qemu_fw_cfg's VMCOREINFO) is found through the device tree.
ARM64_APPEND="console=ttyAMA0"

# fx_boot_arm64 KERNEL MEM APPEND SERIAL [CPU]: fx_boot's guest on
# qemu-system-aarch64 -M virt (TCG). The virt machine has one UART: the
# console is a socket chardev, logged into SERIAL (logfile= records what
# the guest writes whether or not the host is connected), and the host's
# commands (fx_ctl on $W/ctl.sock) arrive on the console's input, which
# init.sh reads as /dev/ttyS1 (fx_arm64_content). -nic none: no network
# (and no option ROM). ARM64_QEMU: the QEMU to run (an array: a runner in
# front). Sets QEMU_PID and T_BOOT.
ARM64_QEMU=(qemu-system-aarch64)   # arm64-writers: sid's, in the sid chroot
fx_boot_arm64() {
	local kernel=$1 mem=$2 append=$3 serial=$4 cpu=${5:-cortex-a57}
	rm -f "$W/qmp.sock" "$W/ctl.sock" "$serial"
	T_BOOT=$(now)
	"${ARM64_QEMU[@]}" -M virt -accel tcg,thread=multi -cpu "$cpu" -smp 2 -m "$mem" \
		-nographic -no-reboot -device vmcoreinfo -nic none \
		-kernel "$kernel" -initrd "$W/initramfs.cpio.gz" \
		-append "$append" \
		-monitor none \
		-chardev "socket,id=con,path=$W/ctl.sock,server=on,wait=off,logfile=$serial" \
		-serial chardev:con \
		-qmp "unix:$W/qmp.sock,server=on,wait=off" \
		</dev/null >"$W/qemu.out" 2>&1 &
	QEMU_PID=$!
}

# fx_arm64_content NAME: the stock sets' guest (fx_stock_content: init.sh,
# the modules, the empty ext4 image), started by a two-line /init that
# links /dev/ttyS1 (where init.sh waits for the host's "panic") to the
# console, ttyAMA0: devtmpfs is one instance however often it is mounted,
# so the link is there when init.sh mounts it again. init.sh itself is
# unchanged (its text is in other sets' keys).
fx_arm64_content() {
	fx_stock_content "$1"
	mv "$ROOT/init" "$ROOT/init.sh"
	cat > "$ROOT/init" <<-'INIT'
		#!/bin/busybox sh
		/bin/busybox mkdir -p /dev && /bin/busybox mount -t devtmpfs devtmpfs /dev &&
			/bin/busybox ln -sf ttyAMA0 /dev/ttyS1 && /bin/busybox umount /dev
		exec /bin/busybox sh /init.sh
	INIT
	chmod 755 "$ROOT/init"
}

# ---------------------------------------------------------------- arm64 makedumpfile
# makedumpfile reads dumps of its own architecture only (the amd64 1.7.8
# of the sid chroot fails on an arm64 ELF: "Can't get the address of
# system_utsname"), so the arm64 sets run sid's arm64 build under
# qemu-aarch64-static (Debian 12's qemu-user-static, no binfmt needed):
# makedumpfile:arm64 and the libraries it loads, unpacked from their sid
# .debs into a sysroot (-L), nothing installed.
ARM64_MDF_DEBS="makedumpfile libc6 libdw1t64 libelf1t64 liblzo2-2 libzstd1 zlib1g libbz2-1.0 liblzma5"

# prepare_apt_arm64_sid -> APTARMSID: sid for arm64
prepare_apt_arm64_sid() {
	step "private apt state for sid arm64"
	local mirror key=/usr/share/keyrings/debian-archive-keyring.gpg
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	APTARMSID=$CACHE/apt-state-arm64-sid
	APT_ARCH=arm64 fx_apt_state "$APTARMSID" "sid arm64" \
		"$(printf 'deb [signed-by=%s] %s %s main\n' "$key" "$mirror" sid)"
}
apt_arm64_sid() { local APT73=$APTARMSID APT_ARCH=arm64; apt73 "$@"; }

# prepare_arm64_makedumpfile (after prepare_apt_arm64_sid) -> ARM64_MDF
# (the sysroot), ARM64_MDF_ID (its packages=versions), ARM64_MDF_VERSION
prepare_arm64_makedumpfile() {
	# shellcheck disable=SC2086
	fx_foreign_mdf arm64 apt_arm64_sid arm64 qemu-aarch64-static $ARM64_MDF_DEBS
	ARM64_MDF=$FOREIGN_MDF ARM64_MDF_ID=$FOREIGN_MDF_ID ARM64_MDF_VERSION=$FOREIGN_MDF_VERSION
}

# arm64_mdf_in SYSROOT ARGS...: the sysroot's arm64 makedumpfile
arm64_mdf_in() { fx_foreign_mdf_in qemu-aarch64-static "$@"; }
# MDF_RUNNER=(arm64_mdf_runner): fx_makedumpfile's "makedumpfile ARGS" run so
arm64_mdf_runner() { shift; arm64_mdf_in "$ARM64_MDF" "$@"; }

# arm64_mdf_dumps: the recipe's ARM64_MAKEDUMPFILE specs (fx_makedumpfile's
# NAME:OPTIONS) from OUT/elf-nopaging.vmcore
# by the arm64 makedumpfile, as ARM64_MDF_EXPECT says: "dumps" (all made),
# or "refuse" (the kernel is one makedumpfile cannot filter: its first run
# must fail saying ARM64_MDF_REFUSAL, which goes to info.txt as
# makedumpfile_refused=). Either
# way a change of what makedumpfile does fails the build, not a test.
arm64_mdf_dumps() {
	local msg
	step "rewrite ELF program headers for makedumpfile (pitfall 4)"
	fx_fixphdr "$OUT/elf-nopaging.vmcore" "$W/fixed.elf"
	if [ "$ARM64_MDF_EXPECT" = refuse ]; then
		step "makedumpfile $ARM64_MDF_VERSION (arm64) refuses this kernel"
		if arm64_mdf_in "$ARM64_MDF" -d 17 -c "$W/fixed.elf" "$W/refused.vmcore" > "$W/mdf-refused.log" 2>&1; then
			die "makedumpfile $ARM64_MDF_VERSION filtered this kernel (ARM64_MDF_EXPECT=refuse): make its dumps"
		fi
		grep -q "$ARM64_MDF_REFUSAL" "$W/mdf-refused.log" || {
			cat "$W/mdf-refused.log" >&2; die "makedumpfile failed, but not with '$ARM64_MDF_REFUSAL'"; }
		msg=$(grep -m1 "$ARM64_MDF_REFUSAL" "$W/mdf-refused.log")
		log "refused: $msg"
		ARM64_MDF_INFO="makedumpfile_arm64=$ARM64_MDF_VERSION makedumpfile_refused=${msg// /_}"
	else
		MDF_RUNNER=(arm64_mdf_runner)
		# shellcheck disable=SC2086
		fx_makedumpfile "$W/fixed.elf" "$OUT/" "" $ARM64_MAKEDUMPFILE
		MDF_RUNNER=()
		ARM64_MDF_INFO="makedumpfile_arm64=$ARM64_MDF_VERSION"
		chmod 0644 "$OUT"/*.vmcore
	fi
	rm -f "$W/fixed.elf" "$W/refused.vmcore"
}

# ---------------------------------------------------------------- sid's QEMU for arm64
# prepare_sid_qemu_arm (after prepare_apt73 and prepare_sid_chroot) ->
# SID_QEMU_ARM (sid's qemu-system-aarch64, from sid's amd64
# qemu-system-arm .deb, only that binary), SID_QEMU_ARM_ID. It runs in the
# sid chroot (sid_run), whose qemu-system-x86 brought every library it
# loads: the shared chroot keeps its package list (and every set's key).
prepare_sid_qemu_arm() {
	step "sid's qemu-system-aarch64 (from qemu-system-arm, run in the sid chroot)"
	local ver deb dir
	ver=$(suite_versions sid qemu-system-arm | awk '{ print $2 }')
	[ -n "$ver" ] || die "sid has no qemu-system-arm (private package lists)"
	SID_QEMU_ARM_ID="qemu-system-arm=$ver"
	dir=$CACHE/sid-qemu-arm-$(printf '%s\n' "$SID_QEMU_ARM_ID $SID_ID" | hash16)
	SID_QEMU_ARM=$dir/qemu-system-aarch64
	! fx_cached "$dir" || return 0
	mkdir -p "$CACHE/debs"
	deb=$(fx_deb qemu-system-arm "$ver" apt73)
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp/x"
	fx_deb_member "$deb" usr/bin/qemu-system-aarch64 "$dir.tmp/qemu-system-aarch64"
	rm -rf "$dir.tmp/x"
	sid_run "$SID_CHROOT" "$dir.tmp/qemu-system-aarch64" --version >&2 ||
		die "sid's qemu-system-aarch64 does not run in the sid chroot"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
}

# ---------------------------------------------------------------- vmcore-inode for arm64
# The arm64-live set runs this tree's vmcore-inode inside the arm64 guest:
# cross-built with Debian 12's gcc-aarch64-linux-gnu against a sysroot of
# bookworm's arm64 -dev packages (unpacked, nothing installed; fx/cross.sh).

# prepare_arm64_sysroot (after prepare_apt_arm64) -> ARM64_SYSROOT, ARM64_SYSROOT_ID
prepare_arm64_sysroot() {
	fx_cross_sysroot arm64 apt_arm64 arm64-sysroot
	ARM64_SYSROOT=$CROSS_SYSROOT ARM64_SYSROOT_ID=$CROSS_SYSROOT_ID
}

# prepare_arm64_vmcore_inode (after prepare_arm64_sysroot) -> ARM64_VI (the
# build directory: vmcore-inode, libinodedump.so.0), ARM64_VI_ID
prepare_arm64_vmcore_inode() {
	fx_cross_vmcore_inode arm64-vi aarch64-linux-gnu aarch64 little
	ARM64_VI=$CROSS_VI ARM64_VI_ID=$CROSS_VI_ID
}

# arm64_live_files ROOT: the arm64 vmcore-inode and its libraries in
# ROOT/live/, the loader at its PT_INTERP path /lib/ld-linux-aarch64.so.1
arm64_live_files() {
	fx_cross_live_files "$1" "$ARM64_SYSROOT" "$ARM64_VI" aarch64-linux-gnu /lib/ld-linux-aarch64.so.1
}
