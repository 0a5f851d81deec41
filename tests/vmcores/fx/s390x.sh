# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, s390x: Debian's s390x kernels (bookworm's
# linux-image-6.1.0-N-s390x, trixie-backports' split 7.x packages, each
# with its -dbg), busybox and makedumpfile through private apt states with
# APT::Architectures=s390x (fx/foreign.sh: the host stays amd64, nothing is
# installed, no `dpkg --add-architecture`), the guest under
# qemu-system-s390x -M s390-ccw-virtio (Debian 12's qemu-system-misc on
# the host, TCG): a big-endian kernel, 4 KiB pages, DAT tables. README.md,
# "The s390x sets".
#
# Measured (README.md, "The s390x sets"): s390-ccw-virtio has no fw_cfg, so no
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

# prepare_s390x_kernel SERIES (after prepare_apt_s390x) -> KDIR (vmlinuz:
# the image QEMU boots, vmlinux: the -dbg one, modules/*.ko, modules.list,
# config, release, packages, debug/ with the S390X_DEBUG_MODULES debug
# files), KERNEL_ID: the newest linux-image-SERIES.0-N-s390x with a -dbg
# of its version
prepare_s390x_kernel() {
	local rv rel ver
	step "find the newest Debian $1 s390x kernel"
	rv=$(fx_find_image_dbg apt_s390x "$1" s390x "") ||
		die "no linux-image-$1.0-N-s390x with a matching -dbg (private s390x lists)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	fx_deb_image_kernel s390x apt_s390x "$rel" "$ver" "linux-image-$rel" s390x-kernel \
		"$S390X_MODULES" "$S390X_DEBUG_MODULES"
}

# find_s390x_73_kernel SERIES-ERE: each linux-binary-R (R matching
# ^SERIES-ERE+deb13-s390x$) whose linux-modules-R and linux-image-R-dbg have
# its candidate version (7.x's package split), newest first: "release
# version" lines.
find_s390x_73_kernel() {
	local names
	names=$(apt_s390x apt-cache pkgnames linux-binary- | grep -E "^linux-binary-$1\+deb13-s390x\$" | sort -rV)
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2046,SC2086
	fx_split_matches "$names" "$(arm64_candidates apt_s390x $(fx_split_pkgs $names))"
}

s390x_73_kdir() {   # RELEASE VERSION -> KERNEL_ID, KDIR
	KERNEL_ID="linux-binary-$1:s390x=$2 linux-base-$1:s390x=$2 linux-modules-$1:s390x=$2 linux-image-$1-dbg:s390x=$2"
	# v1: the extraction below; bump it when that changes what is extracted
	KDIR=$CACHE/s390x-73-kernel-$(printf '%s\n' "$KERNEL_ID modules=$S390X_MODULES debug=$S390X_DEBUG_MODULES s390x-73-kernel-v1" | hash16)
}

# prepare_s390x_73_kernel SERIES-ERE (after prepare_apt_s390x) -> KDIR,
# KERNEL_ID: prepare_s390x_kernel's files from 7.x's split packages
# (linux-binary: vmlinuz under usr/lib/modules/R; linux-base of the same
# version: its config there; linux-modules: the .ko.xz modules; the -dbg:
# vmlinux and the modules' debug files under usr/lib/debug/lib/modules/R). The newest kernel already extracted, else
# the newest whose three packages download: measured, the lists named
# 7.3.4 while the mirror's pool answered 404 for its linux-binary.
prepare_s390x_73_kernel() {
	local list rel ver tmp bin base mods dbg m f out
	step "find the newest Debian 7.x s390x kernel ($1)"
	list=$(find_s390x_73_kernel "$1")
	[ -n "$list" ] ||
		die "no linux-binary-$1+deb13-s390x with matching linux-modules and -dbg (private s390x lists)"
	while read -r rel ver; do
		s390x_73_kdir "$rel" "$ver"
		if [ -f "$KDIR/.complete" ]; then
			log "kernel $rel version $ver"
			fx_cached "$KDIR"
			return 0
		fi
	done <<< "$list"
	read -r rel ver <<< "$list"
	s390x_73_kdir "$rel" "$ver"
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	while read -r rel ver; do
		s390x_73_kdir "$rel" "$ver"
		bin=$(fx_deb_s390x "linux-binary-$rel" "$ver" apt_s390x) &&
			base=$(fx_deb_s390x "linux-base-$rel" "$ver" apt_s390x) &&
			mods=$(fx_deb_s390x "linux-modules-$rel" "$ver" apt_s390x) &&
			dbg=$(fx_deb_s390x "linux-image-$rel-dbg" "$ver" apt_s390x) && break
		log "kernel $rel: a package did not download; the next older one"
		bin=
	done <<< "$list"
	[ -n "$bin" ] || die "no 7.x s390x kernel downloads"
	log "kernel $rel version $ver"
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules" "$tmp/debug/lib/modules/$rel"
	step "extract vmlinuz from linux-binary, config from linux-base"
	fx_deb_member "$bin" "usr/lib/modules/$rel/vmlinuz" "$tmp/vmlinuz"
	fx_deb_member "$base" "usr/lib/modules/$rel/config" "$tmp/config"
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
		out=$tmp/debug/lib/modules/$rel/${f#*/lib/modules/"$rel"/}
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
	fx_foreign_busybox s390x apt_s390x s390x
	S390X_BUSYBOX_ID=$FOREIGN_BUSYBOX_ID FX_BUSYBOX=$FOREIGN_BUSYBOX
}

# prepare_s390x_makedumpfile -> S390X_MDF (a sysroot of the lists'
# makedumpfile:s390x, run under qemu-s390x-static -L), S390X_MDF_ID,
# S390X_MDF_VERSION
prepare_s390x_makedumpfile() {
	# shellcheck disable=SC2086
	fx_foreign_mdf s390x apt_s390x s390x qemu-s390x-static $S390X_MDF_DEBS
	S390X_MDF=$FOREIGN_MDF S390X_MDF_ID=$FOREIGN_MDF_ID S390X_MDF_VERSION=$FOREIGN_MDF_VERSION
}
s390x_mdf_runner() { shift; fx_foreign_mdf_in qemu-s390x-static "$S390X_MDF" "$@"; }

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
# by fx_vmcoreinfo_init's /init: /dev/ttyS1 is hvc0 (the control socket's
# virtio console: fx_boot_s390x; init.sh loads virtio_console first)
fx_s390x_content() {
	fx_stock_content "$1"
	fx_vmcoreinfo_init hvc0
}

# fx_panic_s390x (fx_run's PANIC_FN): the guest's init panics it.
# Measured: the console shows the panic and its call trace but never the
# "end Kernel panic" line fx_panic waits for, and QEMU's status stays
# "running" (no disabled wait reaches QEMU): the wait is for the panic's
# first line, then for the console to be quiet 2 s.
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

# ---------------------------------------------------------------- truth
# s390x_truth_more (after fx_truth_drgn and fx_truth_vs_stat):
#   truth-modules.txt  drgn 0.3.0 with the ext4 module's debug file
#                      (OUT/debug): ext4's operations by name (the kernel's
#                      kallsyms has no module data symbols: KALLSYMS_ALL off)
#   sweep-counts.txt   drgn 0.3.0's per-superblock inode counts
# both reading elf-vmcoreinfo.vmcore, the truth's dump
# (S390X_MODULE_TRUTH=0: no truth-modules.txt, the guest has no ext4 files)
s390x_truth_more() {
	local mods
	if [ "${S390X_MODULE_TRUTH:-1}" = 1 ]; then
		step "truth-modules.txt: drgn $(cat "$SID_CHROOT/drgn-version") with the ext4 module's debug file"
		mods=$(cd "$OUT" && find debug -name '*.ko' | sort | sed 's|^|/fx/|')
		# shellcheck disable=SC2086
		in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth_modules.py \
			/fx/vmlinux /fx/elf-vmcoreinfo.vmcore $mods -- --stock > "$OUT/truth-modules.txt" ||
			die "drgn_truth_modules.py in the sid chroot"
		grep -q ' i_op=ext4_file_inode_operations ' "$OUT/truth-modules.txt" ||
			die "drgn did not name ext4's operations from the module's debug file"
	fi
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
	for c in DEBUG_INFO_BTF KALLSYMS_ALL CRASH_DUMP CRASH_CORE VMCORE_INFO RANDOMIZE_BASE; do
		echo "config_$c=$(sed -n "s/^CONFIG_$c=//p" "$KDIR/config" | grep . || echo n)"
	done
	echo "vmcoreinfo=$(tr -d '\r' < "$OUT/serial.log" | sed -n 's/.*inodedump-vmcoreinfo: //p' | head -1)"
}

# s390x_mdf_refuse MESSAGE (after fx_addnote_dumps made elf-vmcoreinfo.vmcore):
# the s390x makedumpfile must refuse this kernel's dump (-d 17 -c), saying
# MESSAGE; the line goes to info.txt (S390X_MDF_INFO: its own line,
# makedumpfile_s390x_refusing=VERSION refused=MESSAGE).
# Should a newer makedumpfile filter it, the build fails: make its dumps then.
s390x_mdf_refuse() {
	local msg
	step "makedumpfile $S390X_MDF_VERSION (s390x) refuses this kernel"
	if s390x_mdf_runner makedumpfile -d 17 -c "$OUT/elf-vmcoreinfo.vmcore" "$W/refused.vmcore" \
		> "$W/mdf-refused.log" 2>&1; then
		die "makedumpfile $S390X_MDF_VERSION filtered this kernel: make its dumps (S390X_MAKEDUMPFILE)"
	fi
	msg=$(tr '\r' '\n' < "$W/mdf-refused.log" | grep -m1 -F "$1") || {
		cat "$W/mdf-refused.log" >&2; die "makedumpfile failed, but not with '$1'"; }
	log "refused: $msg"
	S390X_MDF_INFO="makedumpfile_s390x_refusing=$S390X_MDF_VERSION refused=${msg// /_}"
	rm -f "$W/refused.vmcore"
}
