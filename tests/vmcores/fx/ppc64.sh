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
	step "busybox-static:ppc64el"
	local ver deb dir
	ver=$(arm64_candidates apt_ppc64 busybox-static | awk '{ print $2 }')
	[ -n "$ver" ] || die "no busybox-static candidate in the ppc64el lists"
	PPC64_BUSYBOX_ID="busybox-static:ppc64el=$ver"
	dir=$CACHE/ppc64-busybox-$(printf '%s\n' "$PPC64_BUSYBOX_ID" | hash16)
	PPC64_BUSYBOX=$dir/busybox
	! fx_cached "$dir" || return 0
	mkdir -p "$CACHE/debs"
	deb=$(fx_deb_ppc64 busybox-static "$ver" apt_ppc64)
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp/x"
	fx_deb_member "$deb" bin/busybox "$dir.tmp/busybox"
	rm -rf "$dir.tmp/x"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
}

# prepare_ppc64_makedumpfile -> PPC64_MDF (a sysroot of bookworm's
# ppc64el makedumpfile, run under qemu-ppc64le-static -L), PPC64_MDF_ID,
# PPC64_MDF_VERSION
prepare_ppc64_makedumpfile() {
	step "bookworm's makedumpfile:ppc64el in a sysroot (qemu-ppc64le-static)"
	local vers n dir deb pv
	# shellcheck disable=SC2086
	vers=$(arm64_candidates apt_ppc64 $PPC64_MDF_DEBS)
	# shellcheck disable=SC2086
	[ "$(printf '%s\n' "$vers" | grep -c .)" -eq "$(echo $PPC64_MDF_DEBS | wc -w)" ] ||
		die "bookworm ppc64el lacks some of: $PPC64_MDF_DEBS (have: $vers)"
	PPC64_MDF_ID=$(printf '%s\n' "$vers" | awk '{ printf "%s%s:ppc64el=%s", (NR > 1 ? " " : ""), $1, $2 }')
	PPC64_MDF_VERSION=$(printf '%s\n' "$vers" | awk '$1 == "makedumpfile" { print $2 }')
	dir=$CACHE/ppc64-makedumpfile-$(printf '%s\n' "$PPC64_MDF_ID" | hash16)
	PPC64_MDF=$dir
	! fx_cached "$dir" || return 0
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
	while read -r n pv; do
		deb=$(fx_deb_ppc64 "$n" "$pv" apt_ppc64)
		dpkg-deb -x "$deb" "$dir.tmp" || die "dpkg-deb -x $deb"
	done <<< "$vers"
	# libc6's /lib64/ld64.so.2 is an absolute link: -L resolves the
	# loader's path in the sysroot, not the link's target
	ln -sf ../lib/powerpc64le-linux-gnu/ld64.so.2 "$dir.tmp/lib64/ld64.so.2"
	ppc64_mdf_in "$dir.tmp" -v >&2 || die "makedumpfile:ppc64el does not run under qemu-ppc64le-static"
	printf '%s\n' "$PPC64_MDF_ID" > "$dir.tmp/packages"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
}
ppc64_mdf_in() {   # SYSROOT ARGS...: the sysroot's ppc64el makedumpfile
	local sys=$1; shift
	qemu-ppc64le-static -L "$sys" "$sys/usr/bin/makedumpfile" "$@"
}
ppc64_mdf_runner() { shift; ppc64_mdf_in "$PPC64_MDF" "$@"; }

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
# by an /init that links /dev/ttyS1 to hvc1 (as fx_arm64_content does for
# its console) and prints where the kernel's VMCOREINFO note is
# ("inodedump-vmcoreinfo: 0xPHYS SIZE", hex, from /sys/kernel/vmcoreinfo).
fx_ppc64_content() {
	fx_stock_content "$1"
	mv "$ROOT/init" "$ROOT/init.sh"
	cat > "$ROOT/init" <<-'INIT'
		#!/bin/busybox sh
		/bin/busybox mkdir -p /dev /sys && /bin/busybox mount -t devtmpfs devtmpfs /dev &&
			/bin/busybox ln -sf hvc1 /dev/ttyS1 && /bin/busybox mount -t sysfs sysfs /sys &&
			echo "inodedump-vmcoreinfo: $(/bin/busybox cat /sys/kernel/vmcoreinfo)" > /dev/console &&
			/bin/busybox umount /sys && /bin/busybox umount /dev
		exec /bin/busybox sh /init.sh
	INIT
	chmod 755 "$ROOT/init"
}

# ppc64_dumps: the kdump kernel's ELF (elf-vmcoreinfo.vmcore) from
# OUT/elf-nopaging.vmcore and the guest's inodedump-vmcoreinfo line, then
# the recipe's PPC64_MAKEDUMPFILE specs from it by the ppc64el makedumpfile
ppc64_dumps() {
	local at
	at=$(sed -n 's/.*inodedump-vmcoreinfo: \(0x[0-9a-f]* [0-9a-f]*\).*/\1/p' "$OUT/serial.log" | head -1)
	[ -n "$at" ] || die "the guest printed no inodedump-vmcoreinfo line"
	step "elf-vmcoreinfo.vmcore: QEMU's ELF with the note at $at"
	# shellcheck disable=SC2086
	$PY "$HERE/elf_addnote.py" "$OUT/elf-nopaging.vmcore" "$OUT/elf-vmcoreinfo.vmcore" $at ||
		die "elf_addnote.py"
	MDF_RUNNER=(ppc64_mdf_runner)
	# shellcheck disable=SC2086
	fx_makedumpfile "$OUT/elf-vmcoreinfo.vmcore" "$OUT/" "" $PPC64_MAKEDUMPFILE
	MDF_RUNNER=()
	chmod 0644 "$OUT"/*.vmcore
}
