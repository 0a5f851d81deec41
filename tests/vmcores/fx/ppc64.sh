# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, ppc64le: Debian 12's ppc64el kernel (linux-image-R-
# powerpc64le and its -dbg), busybox and makedumpfile through a private apt
# state with APT::Architectures=ppc64el (the host stays amd64: nothing is
# installed, no `dpkg --add-architecture`), the guest under
# qemu-system-ppc64 -M pseries -cpu power9 (Debian 12's qemu-system-ppc on
# the host, TCG): the radix MMU, 64 KiB pages. README.md, "The ppc64le set".
#
# Measured (FIXTURES.md, "ppc64le"): pseries has no fw_cfg, so no
# `-device vmcoreinfo`, and QEMU's ELF has no VMCOREINFO; QEMU 7.2 writes
# it (and its kdump-zlib) with big-endian headers for this little-endian
# guest. The guest's init prints /sys/kernel/vmcoreinfo (where its note
# is); elf_addnote.py makes the kdump kernel's ELF from that, which drgn
# and makedumpfile read.

# Modules the guest loads (their modinfo closure first): ext4 asks the
# crypto API for "crc32c" at mount (crc32c_generic: a module here).
PPC64_MODULES="crc32c_generic ext4 loop"
# Makedumpfile and what it loads, bookworm's ppc64el builds (a sysroot).
PPC64_MDF_DEBS="makedumpfile libc6 libdw1 libelf1 liblzo2-2 libzstd1 zlib1g libbz2-1.0 liblzma5 libgcc-s1"

fx_deb_ppc64() { FX_DEB_ARCH=ppc64el fx_deb "$@"; }
apt_ppc64() { local APT73=$APTPPC APT_ARCH=ppc64el; apt73 "$@"; }

# prepare_apt_ppc64 -> APTPPC: bookworm for ppc64el (the host's mirror,
# read at run time). Not bookworm-security: its ppc64el index was caught
# mid-sync here and a first update that fails has no lists to fall back on.
prepare_apt_ppc64() {
	step "private apt state for bookworm ppc64el"
	local mirror key=/usr/share/keyrings/debian-archive-keyring.gpg
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	APTPPC=$CACHE/apt-state-ppc64el-bookworm
	APT_ARCH=ppc64el fx_apt_state "$APTPPC" "bookworm ppc64el" \
		"$(printf 'deb [signed-by=%s] %s %s main\n' "$key" "$mirror" bookworm)"
}

# Newest linux-image-6.1.0-N-powerpc64le whose -dbg has the same
# candidate. Prints "release version".
find_ppc64_kernel() {
	local names n rel vers ver
	names=$(apt_ppc64 apt-cache pkgnames linux-image-6.1.0- |
		grep -E '^linux-image-6\.1\.0-[0-9]+-powerpc64le$' | sort -rV)
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2046
	vers=$(arm64_candidates apt_ppc64 $(for n in $names; do echo "$n $n-dbg"; done))
	for n in $names; do
		rel=${n#linux-image-}
		ver=$(printf '%s\n' "$vers" | awk -v p="$n" '$1 == p { print $2 }')
		if [ -n "$ver" ] && printf '%s\n' "$vers" | grep -qxF "$n-dbg $ver"; then
			echo "$rel $ver"
			return 0
		fi
	done
	return 1
}

# prepare_ppc64_kernel (after prepare_apt_ppc64) -> KDIR (vmlinuz: the
# stripped ELF vmlinux QEMU boots, vmlinux: the -dbg one, modules/*.ko,
# modules.list, config, release, packages), KERNEL_ID
prepare_ppc64_kernel() {
	step "find newest stock Debian 6.1 ppc64el kernel"
	local rv rel ver h tmp img dbg
	rv=$(find_ppc64_kernel) ||
		die "no linux-image-6.1.0-*-powerpc64le with a matching -dbg (private ppc64el lists)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	KERNEL_ID="linux-image-$rel:ppc64el=$ver linux-image-$rel-dbg:ppc64el=$ver"
	h=$(printf '%s\n' "$KERNEL_ID modules=$PPC64_MODULES ppc64-kernel-v1" | hash16)
	KDIR=$CACHE/ppc64-kernel-$h
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	img=$(fx_deb_ppc64 "linux-image-$rel" "$ver" apt_ppc64)
	dbg=$(fx_deb_ppc64 "linux-image-$rel-dbg" "$ver" apt_ppc64)
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules"
	step "extract vmlinux-$rel from the ppc64el -dbg package (only that member)"
	fx_deb_member "$dbg" "usr/lib/debug/boot/vmlinux-$rel" "$tmp/vmlinux"
	step "extract the kernel and modules from the ppc64el image package"
	dpkg-deb -x "$img" "$tmp/x" || die "dpkg-deb -x $img"
	cp "$tmp/x/boot/vmlinux-$rel" "$tmp/vmlinuz"
	cp "$tmp/x/boot/config-$rel" "$tmp/config"
	# shellcheck disable=SC2086
	fx_modules "$tmp/x/lib/modules/$rel/kernel" "$tmp/modules" $PPC64_MODULES
	fx_kernel_done "$tmp" "$rel"
}

# prepare_ppc64_busybox -> PPC64_BUSYBOX (bookworm's busybox-static:ppc64el)
prepare_ppc64_busybox() {
	fx_foreign_busybox ppc64el apt_ppc64 ppc64
	PPC64_BUSYBOX_ID=$FOREIGN_BUSYBOX_ID PPC64_BUSYBOX=$FOREIGN_BUSYBOX
}

# prepare_ppc64_makedumpfile -> PPC64_MDF (a sysroot of bookworm's
# ppc64el makedumpfile, run under qemu-ppc64le-static -L), PPC64_MDF_ID,
# PPC64_MDF_VERSION
prepare_ppc64_makedumpfile() {
	# shellcheck disable=SC2086
	fx_foreign_mdf ppc64el apt_ppc64 ppc64 qemu-ppc64le-static $PPC64_MDF_DEBS
	PPC64_MDF=$FOREIGN_MDF PPC64_MDF_ID=$FOREIGN_MDF_ID PPC64_MDF_VERSION=$FOREIGN_MDF_VERSION
}
ppc64_mdf_runner() { shift; fx_foreign_mdf_in qemu-ppc64le-static "$PPC64_MDF" "$@"; }

# ---------------------------------------------------------------- the guest
# fx_boot_ppc64 KERNEL MEM APPEND SERIAL [CPU]: fx_boot's guest on
# qemu-system-ppc64 -M pseries (TCG). Its -serial ports are spapr-vty
# consoles: hvc0 (the console, into SERIAL) and hvc1 (the control socket,
# which the guest's /init links as /dev/ttyS1). The cap-* settings: the
# Spectre workarounds TCG cannot do (else QEMU warns, or refuses).
# -action panic=none: a pseries kernel's panic calls RTAS ibm,os-term,
# on which QEMU ends (measured: "OS terminated: OS panic") before the
# panic is dumped; with none the guest goes on to its end-of-panic line.
fx_boot_ppc64() {
	local kernel=$1 mem=$2 append=$3 serial=$4 cpu=${5:-power9}
	rm -f "$W/qmp.sock" "$W/ctl.sock" "$serial"
	T_BOOT=$(now)
	qemu-system-ppc64 -M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off \
		-accel tcg,thread=multi -cpu "$cpu" -smp 2 -m "$mem" \
		-nographic -no-reboot -action panic=none -nic none -vga none \
		-kernel "$kernel" -initrd "$W/initramfs.cpio.gz" \
		-append "$append" \
		-monitor none \
		-chardev "file,id=con,path=$serial" -serial chardev:con \
		-chardev "socket,id=ctl,path=$W/ctl.sock,server=on,wait=off" -serial chardev:ctl \
		-qmp "unix:$W/qmp.sock,server=on,wait=off" \
		</dev/null >"$W/qemu.out" 2>&1 &
	QEMU_PID=$!
}

# fx_ppc64_content NAME: the stock sets' guest (fx_stock_content), started
# by fx_vmcoreinfo_init's /init: /dev/ttyS1 is hvc1
fx_ppc64_content() {
	fx_stock_content "$1"
	fx_vmcoreinfo_init hvc1
}

# ppc64_dumps: fx_addnote_dumps by the ppc64el makedumpfile, the recipe's
# PPC64_MAKEDUMPFILE specs
ppc64_dumps() {
	# shellcheck disable=SC2086
	fx_addnote_dumps ppc64_mdf_runner $PPC64_MAKEDUMPFILE
}
