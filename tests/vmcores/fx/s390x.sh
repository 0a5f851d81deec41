# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, s390x: Debian's s390x kernels (linux-image-R-s390x and
# its -dbg), busybox and makedumpfile through private apt states with
# APT::Architectures=s390x (the host stays amd64: nothing is installed, no
# `dpkg --add-architecture`), the guest under qemu-system-s390x -M
# s390-ccw-virtio (Debian 12's qemu-system-misc on the host, TCG): a
# big-endian kernel, 4 KiB pages, DAT tables. README.md, "The s390x sets".
#
# Measured (FIXTURES.md, "s390x"): s390-ccw-virtio has no fw_cfg, so no
# `-device vmcoreinfo`, and QEMU's ELF has no VMCOREINFO (its s390 CPU
# notes only). The guest's init prints /sys/kernel/vmcoreinfo (where the
# kernel's note is); elf_addnote.py makes the kdump kernel's ELF from that
# (what /proc/vmcore holds), which drgn and makedumpfile read.

# Modules the guest loads (their modinfo closure first): ext4 asks the
# crypto API for "crc32c" at mount; virtio_console: the control port, hvc0.
S390X_MODULES="virtio_console crc32c_generic ext4 loop"
# The modules whose -dbg debug files the set keeps in KDIR/debug (a
# --debug-root: lib/modules/R/kernel/...), for the truth's and a decoder's
# module types and operations.
S390X_DEBUG_MODULES="ext4 jbd2"
# Makedumpfile and what it loads, Debian's s390x builds (a sysroot).
S390X_MDF_DEBS="makedumpfile libc6 libdw1 libelf1 liblzo2-2 libzstd1 zlib1g libbz2-1.0 liblzma5 libgcc-s1"

fx_deb_s390x() { FX_DEB_ARCH=s390x fx_deb "$@"; }
# apt_s390x ARGS...: apt73 against the s390x state in $APTS390X
apt_s390x() { local APT73=$APTS390X APT_ARCH=s390x; apt73 "$@"; }

# prepare_apt_s390x SUITE... -> APTS390X: these suites for s390x (the
# host's mirror, read at run time), in apt-state-s390x-SUITE
prepare_apt_s390x() {
	local mirror key=/usr/share/keyrings/debian-archive-keyring.gpg s lines=""
	step "private apt state for $* s390x"
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	for s in "$@"; do lines="$lines$(printf 'deb [signed-by=%s] %s %s main' "$key" "$mirror" "$s")"$'\n'; done
	APTS390X=$CACHE/apt-state-s390x-$1
	APT_ARCH=s390x fx_apt_state "$APTS390X" "$* s390x" "${lines%$'\n'}"
}

# find_s390x_kernel PATTERN: the newest linux-image-* matching PATTERN (an
# ERE over the package name, ending in -s390x) whose -dbg has the same
# candidate. Prints "release version".
find_s390x_kernel() {
	local pat=$1 names n rel vers ver
	names=$(apt_s390x apt-cache pkgnames linux-image- | grep -E "$pat" | sort -rV)
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2046
	vers=$(arm64_candidates apt_s390x $(for n in $names; do echo "$n $n-dbg"; done))
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

# prepare_s390x_kernel PATTERN (after prepare_apt_s390x) -> KDIR (vmlinuz:
# the image QEMU boots, vmlinux: the -dbg one, modules/*.ko, modules.list,
# config, release, packages, debug/ with the S390X_DEBUG_MODULES debug
# files), KERNEL_ID
prepare_s390x_kernel() {
	local pat=$1 rv rel ver h tmp img dbg m f members=()
	step "find the newest Debian s390x kernel ($pat)"
	rv=$(find_s390x_kernel "$pat") ||
		die "no package matching $pat with a matching -dbg (private s390x lists)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	KERNEL_ID="linux-image-$rel:s390x=$ver linux-image-$rel-dbg:s390x=$ver"
	# v1: the extraction below; bump it when that changes what is extracted
	h=$(printf '%s\n' "$KERNEL_ID modules=$S390X_MODULES debug=$S390X_DEBUG_MODULES s390x-kernel-v1" | hash16)
	KDIR=$CACHE/s390x-kernel-$h
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	img=$(fx_deb_s390x "linux-image-$rel" "$ver" apt_s390x)
	dbg=$(fx_deb_s390x "linux-image-$rel-dbg" "$ver" apt_s390x)
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules" "$tmp/debug"
	step "extract the kernel, config and modules from the s390x image package"
	dpkg-deb -x "$img" "$tmp/x" || die "dpkg-deb -x $img"
	cp "$tmp/x/boot/vmlinuz-$rel" "$tmp/vmlinuz"
	cp "$tmp/x/boot/config-$rel" "$tmp/config"
	for m in $S390X_DEBUG_MODULES; do
		f=$(cd "$tmp/x" && find "lib/modules/$rel/kernel" -name "$m.ko" | head -1)
		[ -n "$f" ] || die "no $m.ko in $img"
		members+=("./usr/lib/debug/$f")
	done
	# shellcheck disable=SC2086
	fx_modules "$tmp/x/lib/modules/$rel/kernel" "$tmp/modules" $S390X_MODULES
	rm -rf "$tmp/x"; mkdir -p "$tmp/x"
	step "extract vmlinux-$rel and ${S390X_DEBUG_MODULES// /, } debug files from the -dbg package (one pass)"
	dpkg-deb --fsys-tarfile "$dbg" | tar -x -C "$tmp/x" "./usr/lib/debug/boot/vmlinux-$rel" "${members[@]}" ||
		die "extract vmlinux and module debug files from $dbg"
	mv "$tmp/x/usr/lib/debug/boot/vmlinux-$rel" "$tmp/vmlinux"
	mv "$tmp/x/usr/lib/debug/lib" "$tmp/debug/lib"
	fx_kernel_done "$tmp" "$rel"
}

# find_s390x_73_kernel SERIES-ERE: the newest linux-binary-R (R matching
# ^SERIES-ERE+deb13-s390x$) whose linux-modules-R and linux-image-R-dbg have
# its candidate version (7.x's package split). Prints "release version".
find_s390x_73_kernel() {
	local pat="^linux-binary-$1\+deb13-s390x\$" names n rel vers ver
	names=$(apt_s390x apt-cache pkgnames linux-binary- | grep -E "$pat" | sort -rV)
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2046
	vers=$(arm64_candidates apt_s390x $(for n in $names; do
		rel=${n#linux-binary-}; echo "$n linux-modules-$rel linux-image-$rel-dbg"; done))
	for n in $names; do
		rel=${n#linux-binary-}
		ver=$(printf '%s\n' "$vers" | awk -v p="$n" '$1 == p { print $2 }')
		if [ -n "$ver" ] &&
			printf '%s\n' "$vers" | grep -qxF "linux-modules-$rel $ver" &&
			printf '%s\n' "$vers" | grep -qxF "linux-image-$rel-dbg $ver"; then
			echo "$rel $ver"
			return 0
		fi
	done
	return 1
}

# prepare_s390x_73_kernel SERIES-ERE (after prepare_apt_s390x) -> KDIR,
# KERNEL_ID: prepare_s390x_kernel's files from 7.x's split packages
# (linux-binary: vmlinuz and config under usr/lib/modules/R; linux-modules:
# the .ko.xz modules; the -dbg: vmlinux and the modules' debug files under
# usr/lib/debug/lib/modules/R)
prepare_s390x_73_kernel() {
	local rv rel ver h tmp bin mods dbg m f out
	step "find the newest Debian 7.x s390x kernel ($1)"
	rv=$(find_s390x_73_kernel "$1") ||
		die "no linux-binary-$1+deb13-s390x with matching linux-modules and -dbg (private s390x lists)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	KERNEL_ID="linux-binary-$rel:s390x=$ver linux-modules-$rel:s390x=$ver linux-image-$rel-dbg:s390x=$ver"
	# v1: the extraction below; bump it when that changes what is extracted
	h=$(printf '%s\n' "$KERNEL_ID modules=$S390X_MODULES debug=$S390X_DEBUG_MODULES s390x-73-kernel-v1" | hash16)
	KDIR=$CACHE/s390x-73-kernel-$h
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	bin=$(fx_deb_s390x "linux-binary-$rel" "$ver" apt_s390x)
	mods=$(fx_deb_s390x "linux-modules-$rel" "$ver" apt_s390x)
	dbg=$(fx_deb_s390x "linux-image-$rel-dbg" "$ver" apt_s390x)
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules" "$tmp/debug/lib/modules/$rel"
	step "extract vmlinuz and config from linux-binary"
	dpkg-deb -x "$bin" "$tmp/x" || die "dpkg-deb -x $bin"
	cp "$tmp/x/usr/lib/modules/$rel/vmlinuz" "$tmp/vmlinuz"
	f=$(find "$tmp/x" -name "config-$rel" -o -name config -path "*/$rel/*" | head -1)
	[ -n "$f" ] || die "no config in $bin"
	cp "$f" "$tmp/config"
	rm -rf "$tmp/x"; mkdir -p "$tmp/x"
	step "extract the modules the guest needs from linux-modules"
	dpkg-deb --fsys-tarfile "$mods" | tar -x -C "$tmp/x" --wildcards "./usr/lib/modules/$rel/kernel/*" ||
		die "extract the modules from $mods"
	# shellcheck disable=SC2086
	fx_modules "$tmp/x/usr/lib/modules/$rel/kernel" "$tmp/modules" $S390X_MODULES
	rm -rf "$tmp/x"; mkdir -p "$tmp/x"
	step "extract vmlinux and ${S390X_DEBUG_MODULES// /, } debug files from the -dbg package (one pass)"
	local pats=("*/lib/modules/$rel/vmlinux")
	for m in $S390X_DEBUG_MODULES; do pats+=("*/$m.ko" "*/$m.ko.xz"); done
	dpkg-deb --fsys-tarfile "$dbg" | tar -x -C "$tmp/x" --wildcards "${pats[@]}" 2>/dev/null || true
	f=$(find "$tmp/x" -path "*/lib/modules/$rel/vmlinux" | head -1)
	[ -n "$f" ] || die "no vmlinux in $dbg"
	mv "$f" "$tmp/vmlinux"
	for m in $S390X_DEBUG_MODULES; do
		f=$(find "$tmp/x" \( -name "$m.ko" -o -name "$m.ko.xz" \) | head -1)
		[ -n "$f" ] || die "no $m.ko in $dbg"
		out=$tmp/debug/lib/modules/$rel/${f#*/lib/modules/$rel/}
		out=${out%.xz}
		mkdir -p "$(dirname "$out")"
		case $f in
		*.xz) xz -dc "$f" > "$out" || die "xz -d $f" ;;
		*) mv "$f" "$out" ;;
		esac
	done
	fx_kernel_done "$tmp" "$rel"
}

# prepare_s390x_busybox -> FX_BUSYBOX (busybox-static:s390x), S390X_BUSYBOX_ID
prepare_s390x_busybox() {
	step "busybox-static:s390x"
	local ver deb dir
	ver=$(arm64_candidates apt_s390x busybox-static | awk '{ print $2 }')
	[ -n "$ver" ] || die "no busybox-static candidate in the s390x lists"
	S390X_BUSYBOX_ID="busybox-static:s390x=$ver"
	dir=$CACHE/s390x-busybox-$(printf '%s\n' "$S390X_BUSYBOX_ID" | hash16)
	FX_BUSYBOX=$dir/busybox
	! fx_cached "$dir" || return 0
	mkdir -p "$CACHE/debs"
	deb=$(fx_deb_s390x busybox-static "$ver" apt_s390x)
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp/x"
	fx_deb_member "$deb" bin/busybox "$dir.tmp/busybox"
	rm -rf "$dir.tmp/x"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
}

# prepare_s390x_makedumpfile -> S390X_MDF (a sysroot of the lists'
# makedumpfile:s390x, run under qemu-s390x-static -L), S390X_MDF_ID,
# S390X_MDF_VERSION
prepare_s390x_makedumpfile() {
	step "makedumpfile:s390x in a sysroot (qemu-s390x-static)"
	local vers n dir deb pv t
	# shellcheck disable=SC2086
	vers=$(arm64_candidates apt_s390x $S390X_MDF_DEBS)
	# shellcheck disable=SC2086
	[ "$(printf '%s\n' "$vers" | grep -c .)" -eq "$(echo $S390X_MDF_DEBS | wc -w)" ] ||
		die "the s390x lists lack some of: $S390X_MDF_DEBS (have: $vers)"
	S390X_MDF_ID=$(printf '%s\n' "$vers" | awk '{ printf "%s%s:s390x=%s", (NR > 1 ? " " : ""), $1, $2 }')
	S390X_MDF_VERSION=$(printf '%s\n' "$vers" | awk '$1 == "makedumpfile" { print $2 }')
	dir=$CACHE/s390x-makedumpfile-$(printf '%s\n' "$S390X_MDF_ID" | hash16)
	S390X_MDF=$dir
	! fx_cached "$dir" || return 0
	mkdir -p "$CACHE/debs"
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
	while read -r n pv; do
		deb=$(fx_deb_s390x "$n" "$pv" apt_s390x)
		dpkg-deb -x "$deb" "$dir.tmp" || die "dpkg-deb -x $deb"
	done <<< "$vers"
	# a merged-/usr suite (trixie): /lib is base-files' link, not in these
	# .debs. -L resolves the loader's path in the sysroot, not an absolute
	# link's target: libc6's /lib/ld64.so.1 is made relative.
	[ -e "$dir.tmp/lib" ] || ln -s usr/lib "$dir.tmp/lib"
	t=$(readlink "$dir.tmp/lib/ld64.so.1" || true)
	case $t in
	/*) ln -sf "$(realpath -m --relative-to="$(dirname "$(realpath -m "$dir.tmp/lib/ld64.so.1")")" "$dir.tmp$t")" \
		"$dir.tmp/lib/ld64.so.1" ;;
	esac
	s390x_mdf_in "$dir.tmp" -v >&2 || die "makedumpfile:s390x does not run under qemu-s390x-static"
	printf '%s\n' "$S390X_MDF_ID" > "$dir.tmp/packages"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
}
s390x_mdf_in() {   # SYSROOT ARGS...: the sysroot's s390x makedumpfile
	local sys=$1; shift
	qemu-s390x-static -L "$sys" "$sys/usr/bin/makedumpfile" "$@"
}
s390x_mdf_runner() { shift; s390x_mdf_in "$S390X_MDF" "$@"; }

# ---------------------------------------------------------------- the guest
# fx_boot_s390x KERNEL MEM APPEND SERIAL [CPU]: fx_boot's guest on
# qemu-system-s390x -M s390-ccw-virtio (TCG). The console is the SCLP
# VT220 one (its -serial; ttysclp0 in the guest) into SERIAL, a file; the
# control socket a virtio console (virtio-serial-ccw: hvc0 in the guest,
# virtio_console.ko), which fx_s390x_content links as /dev/ttyS1.
# Measured: the console on a socket chardev with a logfile (fx_boot_arm64's
# way) logs every line after the console's registration twice; the SCLP
# line-mode console (a second -serial, sclp_line0) never delivered the
# host's line to a reader in the guest.
# -action panic=none and -no-shutdown: should the guest's panic reach
# QEMU (a disabled wait, every CPU stopped), QEMU stays for panic.vmcore.
fx_boot_s390x() {
	local kernel=$1 mem=$2 append=$3 serial=$4 cpu=${5:-max}
	rm -f "$W/qmp.sock" "$W/ctl.sock" "$serial"
	T_BOOT=$(now)
	qemu-system-s390x -M s390-ccw-virtio -accel tcg,thread=multi -cpu "$cpu" -smp 2 -m "$mem" \
		-nographic -no-reboot -no-shutdown -action panic=none -nic none \
		-kernel "$kernel" -initrd "$W/initramfs.cpio.gz" \
		-append "$append" \
		-monitor none \
		-chardev "file,id=con,path=$serial" -serial chardev:con \
		-device virtio-serial-ccw -chardev "socket,id=ctl,path=$W/ctl.sock,server=on,wait=off" \
		-device virtconsole,chardev=ctl \
		-qmp "unix:$W/qmp.sock,server=on,wait=off" \
		</dev/null >"$W/qemu.out" 2>&1 &
	QEMU_PID=$!
}

# fx_s390x_content NAME: the stock sets' guest (fx_stock_content), started
# by an /init that links /dev/ttyS1 to hvc0 (the control socket's virtio
# console: fx_boot_s390x; init.sh loads virtio_console first) and prints
# where the kernel's VMCOREINFO note is ("inodedump-vmcoreinfo: 0xPHYS
# SIZE", hex, from /sys/kernel/vmcoreinfo), as fx_ppc64_content does.
fx_s390x_content() {
	fx_stock_content "$1"
	mv "$ROOT/init" "$ROOT/init.sh"
	cat > "$ROOT/init" <<-'INIT'
		#!/bin/busybox sh
		/bin/busybox mkdir -p /dev /sys && /bin/busybox mount -t devtmpfs devtmpfs /dev &&
			/bin/busybox ln -sf hvc0 /dev/ttyS1 && /bin/busybox mount -t sysfs sysfs /sys &&
			echo "inodedump-vmcoreinfo: $(/bin/busybox cat /sys/kernel/vmcoreinfo)" > /dev/console &&
			/bin/busybox umount /sys && /bin/busybox umount /dev
		exec /bin/busybox sh /init.sh
	INIT
	chmod 755 "$ROOT/init"
}

# fx_panic_s390x: the guest's init panics it. Measured: the console shows
# the panic and its call trace but never the "end Kernel panic" line, and
# QEMU's status stays "running" (no disabled wait reaches QEMU): the wait
# is for the panic's first line, then for the console to be quiet 2 s.
fx_panic_s390x() {
	local n=-1 i
	fx_ctl panic
	wait_serial "$OUT/serial.log" 'Kernel panic - not syncing' 120 "the panic"
	for i in $(seq 1 60); do
		[ "$(stat -c %s "$OUT/serial.log")" != "$n" ] || return 0
		n=$(stat -c %s "$OUT/serial.log")
		sleep 2
	done
}

# s390x_run: fx_run's steps for this guest: boot, ready, the QMP dumps
# (elf-nopaging, elf-paging, qemu-kdump-zlib), the panic and panic.vmcore
s390x_run() {
	local t
	step "boot QEMU s390x (TCG, ${BOOT_MEM} MiB)"
	fx_boot_s390x "$KDIR/$BOOT_KERNEL" "$BOOT_MEM" "$BOOT_APPEND" "$OUT/serial.log" "$BOOT_CPU"
	fx_wait_ready "$OUT/serial.log" "${BOOT_WAIT:-$BOOT_TIMEOUT}"
	fx_qmp_dumps "$OUT"
	step "panic the guest (sysrq-c) and dump panic.vmcore"
	fx_panic_s390x
	sleep 1
	t=$(qmp dump "$OUT/panic.vmcore") || die "qmp dump panic"
	TIMINGS="${TIMINGS}dump_panic_s=$t\n"
	quit_guest "$T_BOOT"
	chmod 0644 "$OUT"/*.vmcore "$OUT"/*.flat
}

# s390x_dumps: the kdump kernel's ELF (elf-vmcoreinfo.vmcore) from
# OUT/elf-nopaging.vmcore and the guest's inodedump-vmcoreinfo line, then
# the recipe's S390X_MAKEDUMPFILE specs from it by the s390x makedumpfile
s390x_dumps() {
	local at
	at=$(tr -d '\r' < "$OUT/serial.log" |
		sed -n 's/.*inodedump-vmcoreinfo: \(0x[0-9a-f]* [0-9a-f]*\).*/\1/p' | head -1)
	[ -n "$at" ] || die "the guest printed no inodedump-vmcoreinfo line"
	step "elf-vmcoreinfo.vmcore: QEMU's ELF with the note at $at"
	# shellcheck disable=SC2086
	$PY "$HERE/elf_addnote.py" "$OUT/elf-nopaging.vmcore" "$OUT/elf-vmcoreinfo.vmcore" $at ||
		die "elf_addnote.py"
	MDF_RUNNER=(s390x_mdf_runner)
	# shellcheck disable=SC2086
	fx_makedumpfile "$OUT/elf-vmcoreinfo.vmcore" "$OUT/" "" $S390X_MAKEDUMPFILE
	MDF_RUNNER=()
	chmod 0644 "$OUT"/*.vmcore
}

# ---------------------------------------------------------------- truth
# s390x_truth_more (after fx_truth_drgn and fx_truth_vs_stat):
#   truth-modules.txt  drgn 0.3.0 with the ext4 module's debug file
#                      (OUT/debug): ext4's operations by name (the kernel's
#                      kallsyms has no module data symbols: KALLSYMS_ALL off)
#   sweep-counts.txt   drgn 0.3.0's per-superblock inode counts
# both reading elf-vmcoreinfo.vmcore, the truth's dump.
s390x_truth_more() {
	local mods
	step "truth-modules.txt: drgn $(cat "$SID_CHROOT/drgn-version") with the ext4 module's debug file"
	mods=$(cd "$OUT" && find debug -name '*.ko' | sort | sed 's|^|/fx/|')
	# shellcheck disable=SC2086
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth_modules.py \
		/fx/vmlinux /fx/elf-vmcoreinfo.vmcore $mods -- --stock > "$OUT/truth-modules.txt" ||
		die "drgn_truth_modules.py in the sid chroot"
	grep -q ' i_op=ext4_file_inode_operations ' "$OUT/truth-modules.txt" ||
		die "drgn did not name ext4's operations from the module's debug file"
	step "sweep-counts.txt: drgn's inodes per superblock"
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_sb_counts.py \
		/fx/vmlinux /fx/elf-vmcoreinfo.vmcore > "$OUT/sweep-counts.txt" ||
		die "drgn_sb_counts.py in the sid chroot"
	[ "$(grep -c ' inodes=' "$OUT/sweep-counts.txt")" -ge 2 ] || die "sweep-counts.txt: no superblocks"
}

# s390x_kernel_info: info.txt's facts of the kernel (its config) and the
# dumps' VMCOREINFO
s390x_kernel_info() {
	local c
	for c in DEBUG_INFO_BTF KALLSYMS_ALL CRASH_DUMP CRASH_CORE RANDOMIZE_BASE PGTABLE_LEVELS; do
		echo "config_$c=$(sed -n "s/^CONFIG_$c=//p" "$KDIR/config" | grep . || echo n)"
	done
	echo "vmcoreinfo=$(tr -d '\r' < "$OUT/serial.log" | sed -n 's/.*inodedump-vmcoreinfo: //p' | head -1)"
}
