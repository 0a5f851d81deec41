# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, the guests of other architectures (arm64, ppc64le,
# s390x), what their libraries (fx/arm64.sh, fx/arm64deb.sh, fx/ppc64.sh,
# fx/s390x.sh) share: an architecture's busybox-static and makedumpfile
# (a sysroot run under qemu-ARCH-static) from a private apt state with
# APT::Architectures=ARCH, a kernel from linux-image-R(-unsigned) and its
# -dbg, and for a machine without fw_cfg (pseries, s390-ccw-virtio) the
# guest's word on where its VMCOREINFO note is and the kdump ELF made
# from it. The host stays amd64: nothing is installed.

# fx_foreign_busybox ARCH APT PREFIX -> FOREIGN_BUSYBOX_ID, FOREIGN_BUSYBOX:
# the static busybox of busybox-static:ARCH (APT's candidate), in
# $CACHE/PREFIX-busybox-HASH (HASH: of FOREIGN_BUSYBOX_ID)
fx_foreign_busybox() {
	local arch=$1 apt=$2 prefix=$3 ver deb dir
	step "busybox-static:$arch"
	ver=$(arm64_candidates "$apt" busybox-static | awk '{ print $2 }')
	[ -n "$ver" ] || die "no busybox-static candidate in the $arch lists"
	FOREIGN_BUSYBOX_ID="busybox-static:$arch=$ver"
	dir=$CACHE/$prefix-busybox-$(printf '%s\n' "$FOREIGN_BUSYBOX_ID" | hash16)
	FOREIGN_BUSYBOX=$dir/busybox
	! fx_cached "$dir" || return 0
	mkdir -p "$CACHE/debs"
	deb=$(FX_DEB_ARCH=$arch fx_deb busybox-static "$ver" "$apt")
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp/x"
	# bin/busybox, or usr/bin/busybox in a merged-/usr suite (trixie)
	dpkg-deb -x "$deb" "$dir.tmp/x" || die "dpkg-deb -x $deb"
	mv "$(find "$dir.tmp/x" -path '*bin/busybox' -type f | head -1)" "$dir.tmp/busybox" ||
		die "no busybox in $deb"
	rm -rf "$dir.tmp/x"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
}

# fx_foreign_mdf ARCH APT PREFIX QEMU PKG... -> FOREIGN_MDF (a sysroot of
# these ARCH packages, APT's candidates: makedumpfile and what it loads, in
# $CACHE/PREFIX-makedumpfile-HASH), FOREIGN_MDF_ID (their
# packages=versions), FOREIGN_MDF_VERSION (makedumpfile's); its
# makedumpfile runs under QEMU (qemu-ARCH-static -L: fx_foreign_mdf_in)
fx_foreign_mdf() {
	local arch=$1 apt=$2 prefix=$3 qemu=$4 vers n dir deb pv l t
	shift 4
	step "makedumpfile:$arch in a sysroot ($qemu)"
	vers=$(arm64_candidates "$apt" "$@")
	[ "$(printf '%s\n' "$vers" | grep -c .)" -eq "$#" ] ||
		die "the $arch lists lack some of: $* (have: $vers)"
	FOREIGN_MDF_ID=$(printf '%s\n' "$vers" | awk -v a="$arch" '{ printf "%s%s:%s=%s", (NR > 1 ? " " : ""), $1, a, $2 }')
	FOREIGN_MDF_VERSION=$(printf '%s\n' "$vers" | awk '$1 == "makedumpfile" { print $2 }')
	dir=$CACHE/$prefix-makedumpfile-$(printf '%s\n' "$FOREIGN_MDF_ID" | hash16)
	FOREIGN_MDF=$dir
	! fx_cached "$dir" || return 0
	mkdir -p "$CACHE/debs"
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
	while read -r n pv; do
		deb=$(FX_DEB_ARCH=$arch fx_deb "$n" "$pv" "$apt")
		dpkg-deb -x "$deb" "$dir.tmp" || die "dpkg-deb -x $deb"
	done <<< "$vers"
	# A merged-/usr suite (sid, trixie): /lib is base-files' link, not in
	# these .debs. -L resolves the loader's path in the sysroot, not an
	# absolute link's target: libc6's loader links (ppc64el's
	# /lib64/ld64.so.2) are made relative.
	[ -e "$dir.tmp/lib" ] || ln -s usr/lib "$dir.tmp/lib"
	for l in "$dir.tmp"/lib/ld*.so* "$dir.tmp"/lib64/ld*.so*; do
		t=$(readlink "$l") || continue
		case $t in
		/*) ln -sf "$(realpath -m --relative-to="$(realpath "$(dirname "$l")")" "$dir.tmp$t")" "$l" ;;
		esac
	done
	fx_foreign_mdf_in "$qemu" "$dir.tmp" -v >&2 || die "makedumpfile:$arch does not run under $qemu"
	printf '%s\n' "$FOREIGN_MDF_ID" > "$dir.tmp/packages"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
}
fx_foreign_mdf_in() {   # QEMU SYSROOT ARGS...: the sysroot's makedumpfile
	local qemu=$1 sys=$2
	shift 2
	"$qemu" -L "$sys" "$sys/usr/bin/makedumpfile" "$@"
}

# fx_deb_image_kernel ARCH APT RELEASE VERSION IMAGE-PKG PREFIX MODULES
# DEBUG-MODULES -> KDIR ($CACHE/PREFIX-HASH: vmlinuz, config, modules/*.ko
# and modules.list (MODULES and their modinfo closure), vmlinux from the
# -dbg package, debug/lib/modules/R/kernel/... with DEBUG-MODULES' debug
# files: a --debug-root), KERNEL_ID. IMAGE-PKG: linux-image-R-unsigned
# (arm64) or linux-image-R (s390x); the -dbg is linux-image-R-dbg.
fx_deb_image_kernel() {
	local arch=$1 apt=$2 rel=$3 ver=$4 imgpkg=$5 prefix=$6 mods=$7 dmods=$8 h tmp img dbg m f members=()
	KERNEL_ID="$imgpkg:$arch=$ver linux-image-$rel-dbg:$arch=$ver"
	# v1: the extraction below; bump it when that changes what is extracted
	h=$(printf '%s\n' "$KERNEL_ID modules=$mods debug=$dmods $prefix-v1" | hash16)
	KDIR=$CACHE/$prefix-$h
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	img=$(FX_DEB_ARCH=$arch fx_deb "$imgpkg" "$ver" "$apt")
	dbg=$(FX_DEB_ARCH=$arch fx_deb "linux-image-$rel-dbg" "$ver" "$apt")
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules" "$tmp/debug"
	step "extract the kernel, config and modules from the $arch image package"
	dpkg-deb -x "$img" "$tmp/x" || die "dpkg-deb -x $img"
	cp "$tmp/x/boot/vmlinuz-$rel" "$tmp/vmlinuz"
	cp "$tmp/x/boot/config-$rel" "$tmp/config"
	for m in $dmods; do
		f=$(cd "$tmp/x" && find "lib/modules/$rel/kernel" -name "$m.ko" | head -1)
		[ -n "$f" ] || die "no $m.ko in $img"
		members+=("./usr/lib/debug/$f")
	done
	# shellcheck disable=SC2086
	fx_modules "$tmp/x/lib/modules/$rel/kernel" "$tmp/modules" $mods
	rm -rf "$tmp/x"; mkdir -p "$tmp/x"
	step "extract vmlinux-$rel and ${dmods// /, } debug files from the -dbg package (one pass)"
	dpkg-deb --fsys-tarfile "$dbg" | tar -x -C "$tmp/x" "./usr/lib/debug/boot/vmlinux-$rel" "${members[@]}" ||
		die "extract vmlinux and module debug files from $dbg"
	mv "$tmp/x/usr/lib/debug/boot/vmlinux-$rel" "$tmp/vmlinux"
	mv "$tmp/x/usr/lib/debug/lib" "$tmp/debug/lib"
	fx_kernel_done "$tmp" "$rel"
}

# ---------------------------------------------------------------- no fw_cfg
# fx_vmcoreinfo_init LINK: $ROOT/init (the stock sets' init.sh, which
# fx_stock_content put there) becomes init.sh, started by an /init that
# links /dev/ttyS1 (where init.sh waits for the host's "panic") to LINK and
# prints where the kernel's VMCOREINFO note is ("inodedump-vmcoreinfo:
# 0xPHYS SIZE", hex, from /sys/kernel/vmcoreinfo): QEMU's machines without
# fw_cfg put no VMCOREINFO into their dumps. devtmpfs is one instance
# however often it is mounted: the link is there when init.sh mounts it.
fx_vmcoreinfo_init() {
	mv "$ROOT/init" "$ROOT/init.sh"
	sed "s/@LINK@/$1/" > "$ROOT/init" <<-'INIT'
		#!/bin/busybox sh
		/bin/busybox mkdir -p /dev /sys && /bin/busybox mount -t devtmpfs devtmpfs /dev &&
			/bin/busybox ln -sf @LINK@ /dev/ttyS1 && /bin/busybox mount -t sysfs sysfs /sys &&
			echo "inodedump-vmcoreinfo: $(/bin/busybox cat /sys/kernel/vmcoreinfo)" > /dev/console &&
			/bin/busybox umount /sys && /bin/busybox umount /dev
		exec /bin/busybox sh /init.sh
	INIT
	chmod 755 "$ROOT/init"
}

# fx_addnote_dumps RUNNER SPEC...: the kdump kernel's ELF
# (OUT/elf-vmcoreinfo.vmcore: elf_addnote.py) from OUT/elf-nopaging.vmcore
# and the guest's inodedump-vmcoreinfo line, then fx_makedumpfile's SPECs
# (NAME:OPTIONS) from it by RUNNER (MDF_RUNNER: the architecture's
# makedumpfile)
fx_addnote_dumps() {
	local runner=$1 at
	shift
	at=$(tr -d '\r' < "$OUT/serial.log" |
		sed -n 's/.*inodedump-vmcoreinfo: \(0x[0-9a-f]* [0-9a-f]*\).*/\1/p' | head -1)
	[ -n "$at" ] || die "the guest printed no inodedump-vmcoreinfo line"
	step "elf-vmcoreinfo.vmcore: QEMU's ELF with the note at $at"
	# shellcheck disable=SC2086
	$PY "$HERE/elf_addnote.py" "$OUT/elf-nopaging.vmcore" "$OUT/elf-vmcoreinfo.vmcore" $at ||
		die "elf_addnote.py"
	MDF_RUNNER=("$runner")
	fx_makedumpfile "$OUT/elf-vmcoreinfo.vmcore" "$OUT/" "" "$@"
	MDF_RUNNER=()
	chmod 0644 "$OUT"/*.vmcore
}
