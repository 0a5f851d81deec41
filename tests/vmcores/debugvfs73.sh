# shellcheck shell=bash
# The debugvfs73 set's recipe: sourced by make-fixtures.sh after stock73.sh
# (uses its log, step, die, hash16, CACHE, PY, wait_serial, qmp, quit_guest,
# derive_dumps, and stock73.sh's private apt state, suite_versions,
# prepare_sid_chroot, in_sid). Kept in its own file, with its inputs in
# debugvfs73/, so that editing it re-keys only this set. See README.md,
# "The debugvfs73 set".
#
# Debian's linux-source-7.3 from trixie-backports (the version found by
# query, never pinned; downloaded and extracted, nothing installed on the
# host), built from tinyconfig + debugvfs73/kernel.config: upstream's own
# CONFIG_DEBUG_VFS assertions, no patches. The trigger module
# (debugvfs73/trigger/) fires real upstream VFS_WARN_ON_INODE reports at
# several call sites and, last, one VFS_BUG_ON_INODE that panics the guest;
# the dumps are taken before it (live) and after it (as kdump would).

DV73_SERIES=7.3
DV73_DIR=$HERE/debugvfs73
# What the kernel tree's cache key holds besides the source version and the
# fragment: the toolchain that compiles it.
DV73_TOOLCHAIN="gcc-12 binutils dwarves make"
DV73_MODULE=vfsdbg73_trigger

# prepare_dv73_source -> DV73_SRC_VER, DV73_SRC_DEB: the newest
# linux-source-7.3 in trixie-backports, downloaded into $CACHE/debs.
prepare_dv73_source() {
	step "find linux-source-$DV73_SERIES in trixie-backports"
	local pkg=linux-source-$DV73_SERIES
	DV73_SRC_VER=$(suite_versions trixie-backports "$pkg" | awk -v p="$pkg" '$1 == p { print $2 }')
	[ -n "$DV73_SRC_VER" ] || die "trixie-backports has no $pkg (private package lists)"
	log "$pkg version $DV73_SRC_VER"
	mkdir -p "$CACHE/debs"
	DV73_SRC_DEB=$(ls "$CACHE/debs/${pkg}_"*_all.deb 2>/dev/null | grep -F "_${DV73_SRC_VER}_" | head -1 || true)
	if [ -z "$DV73_SRC_DEB" ]; then
		step "download $pkg=$DV73_SRC_VER (~170 MB)"
		(cd "$CACHE/debs" && apt73 apt-get -q download "$pkg=$DV73_SRC_VER") >&2 ||
			die "apt-get download $pkg=$DV73_SRC_VER"
		DV73_SRC_DEB=$(ls "$CACHE/debs/${pkg}_"*_all.deb | grep -F "_${DV73_SRC_VER}_" | head -1)
	fi
}

# dv73_check_config CONFIG FRAGMENT: every "=y"/"=N" and "is not set" line of
# the fragment holds in CONFIG (Kconfig silently drops what it cannot meet).
dv73_check_config() {
	local line sym bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$1" && continue
			sym=${line%%=*}
			log "config: wanted '$line', got '$(grep -E "^(# )?$sym[= ]" "$1" || echo "$sym absent")'"
			bad=1 ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			grep -qE "^$sym=" "$1" || continue
			log "config: wanted '$line', got '$(grep -E "^$sym=" "$1")'"
			bad=1 ;;
		esac
	done < "$2"
	[ "$bad" = 0 ] || die "config fragment did not stick (see above)"
}

# dv73_build_tree DIR FRAGMENT: unpack linux-source into DIR/linux, configure
# (tinyconfig + FRAGMENT + olddefconfig, checked) and build it. This
# function's own text is part of the tree's cache key (declare -f).
dv73_build_tree() {
	local dir=$1 frag=$2 tree=$1/linux buildlog=$1/build.log t0 tarball
	rm -rf "$dir"; mkdir -p "$dir/x"
	: > "$buildlog"
	step "unpack linux-source-$DV73_SERIES ($DV73_SRC_VER)"
	tarball=./usr/src/linux-source-$DV73_SERIES.tar.xz
	dpkg-deb --fsys-tarfile "$DV73_SRC_DEB" | tar -x -C "$dir/x" "$tarball" ||
		die "extract $tarball from $DV73_SRC_DEB"
	tar -xf "$dir/x/$tarball" -C "$dir"
	rm -rf "$dir/x"
	mv "$dir/linux-source-$DV73_SERIES" "$tree"
	[ -f "$tree/Makefile" ] || die "no Makefile in linux-source-$DV73_SERIES"
	step "configure (tinyconfig + debugvfs73/kernel.config + olddefconfig)"
	cp "$frag" "$dir/kernel.config"
	{ make -C "$tree" tinyconfig &&
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" "$tree/.config" "$frag" &&
		make -C "$tree" olddefconfig; } >> "$buildlog" 2>&1 || { tail -30 "$buildlog" >&2; die "configure"; }
	dv73_check_config "$tree/.config" "$frag"
	step "build the kernel (nice -n 5 make -j2, ~15 min; log $buildlog)"
	t0=$(now)
	nice -n 5 make -C "$tree" -j2 all >> "$buildlog" 2>&1 || { tail -40 "$buildlog" >&2; die "make"; }
	echo "$(elapsed "$t0")" > "$dir/build_s"
	log "kernel built in $(cat "$dir/build_s") s"
	touch "$dir/.complete"
}

# prepare_debugvfs73_kernel (after prepare_dv73_source) -> KDIR (bzImage,
# vmlinux, $DV73_MODULE.ko, config, release), KERNEL_ID. Two cache
# directories, as build-kernel.sh has: dv73-kbuild-<h> the built tree
# (source version, fragment, toolchain, the build function),
# dv73-kernel-<h> the artefacts (that + the trigger).
prepare_debugvfs73_kernel() {
	local frag=$DV73_DIR/kernel.config kh h kb p tool="" f
	for p in $DV73_TOOLCHAIN; do tool="$tool $(dpkg-query -W -f='${Package}=${Version}' "$p")"; done
	kh=$( { echo "linux-source-$DV73_SERIES=$DV73_SRC_VER$tool"; sha256sum < "$frag"; declare -f dv73_build_tree; } | hash16)
	kb=$CACHE/dv73-kbuild-$kh
	h=$( { echo "kbuild=$kh"; (cd "$DV73_DIR/trigger" && sha256sum Kbuild Makefile ./*.c); } | hash16)
	KDIR=$CACHE/dv73-kernel-$h
	KERNEL_ID="linux-source-$DV73_SERIES=$DV73_SRC_VER dv73-kernel=$h"
	if [ -f "$KDIR/.complete" ]; then
		log "reusing $KDIR"
		return 0
	fi
	if [ -f "$kb/.complete" ]; then
		log "reusing kernel tree $kb"
	else
		dv73_build_tree "$kb" "$frag"
	fi
	step "build the trigger module ($DV73_MODULE.ko)"
	local tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/trigger"
	cp "$DV73_DIR/trigger/Kbuild" "$DV73_DIR/trigger/Makefile" "$DV73_DIR"/trigger/*.c "$tmp/trigger/"
	make -C "$kb/linux" M="$tmp/trigger" modules > "$tmp/trigger/build.log" 2>&1 || {
		cat "$tmp/trigger/build.log" >&2; die "trigger module"; }
	cp "$kb/linux/arch/x86/boot/bzImage" "$kb/linux/vmlinux" "$tmp/"
	cp "$tmp/trigger/$DV73_MODULE.ko" "$tmp/"
	cp "$kb/linux/.config" "$tmp/config"
	cp "$kb/linux/include/config/kernel.release" "$tmp/release"
	cp "$kb/build_s" "$tmp/kernel_build_s"
	for f in bzImage vmlinux "$DV73_MODULE.ko" config release; do
		[ -s "$tmp/$f" ] || die "$tmp lacks $f"
	done
	touch "$tmp/.complete"
	rm -rf "$KDIR"; mv "$tmp" "$KDIR"
	log "kernel $(cat "$KDIR/release") in $KDIR"
}

# Roles the guest gives the trigger (debugvfs73/init.sh makes the files) and
# the reports the module fires before the panic: victim_symlink 1,
# cached_twice 1, victim_ext4 2, victim_new 1, dump_inode() directly 2.
DV73_FILES="regular empty big dir symlink_short symlink_long hardlink fifo chardev"
DV73_REPORTS_BEFORE_PANIC=7
DV73_TRUTH_LINES=23   # 12 tmpfs roles + 10 ext4 roles + victim_new

dv73_initramfs() {   # $1 = staging dir, $2 = output cpio.gz
	local root=$1
	step "build busybox initramfs (debugvfs73/init.sh, $DV73_MODULE.ko, ext4 image)"
	rm -rf "$root"; mkdir -p "$root/bin" "$root/modules"
	cp /bin/busybox "$root/bin/busybox"
	install -m 755 "$DV73_DIR/init.sh" "$root/init"
	cp "$KDIR/$DV73_MODULE.ko" "$root/modules/"
	truncate -s 16M "$root/ext4.img"
	mkfs.ext4 -q -F -L inodedump -U 00000000-0000-4000-8000-00000000e4e4 \
		-E root_owner=0:0 "$root/ext4.img" >&2 || die "mkfs.ext4"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$2" || die "cpio"
}

# Boot, let the module fire, then have the guest open bug_badmode: the
# VFS_BUG_ON_INODE in may_open() oopses and (oops=panic) panics it. Every
# dump is taken after the panic, as kdump would see the machine.
dv73_run_guest() {
	local t0 t
	step "boot QEMU (TCG, 256 MiB)"
	rm -f "$W/qmp.sock" "$W/ctl.sock" "$OUT/serial.log"
	t0=$(now)
	qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
		-smp 2,sockets=2,cores=1,threads=1 -m 256 \
		-nographic -no-reboot -device vmcoreinfo \
		-kernel "$KDIR/bzImage" -initrd "$W/initramfs.cpio.gz" \
		-append "console=ttyS0 qemu_fw_cfg.ioport=12@0x510:0:1:4 oops=panic" \
		-monitor none \
		-chardev "file,id=con,path=$OUT/serial.log" -serial chardev:con \
		-chardev "socket,id=ctl,path=$W/ctl.sock,server=on,wait=off" -serial chardev:ctl \
		-qmp "unix:$W/qmp.sock,server=on,wait=off" \
		</dev/null >"$W/qemu.out" 2>&1 &
	QEMU_PID=$!
	wait_serial "$OUT/serial.log" 'inodedump-init: ready' "$BOOT_TIMEOUT" "the guest's ready marker"
	TIMINGS="${TIMINGS}boot_to_ready_s=$(elapsed "$t0")\n"
	log "guest ready after $(elapsed "$t0") s"
	if grep -q 'inodedump-init: FAILED' "$OUT/serial.log"; then
		grep 'inodedump-init: FAILED' "$OUT/serial.log" >&2
		die "guest init reported a failure"
	fi
	grep -q "inodedump-trigger: done reports=$DV73_REPORTS_BEFORE_PANIC\$" <(tr -d '\r' < "$OUT/serial.log") ||
		die "the trigger did not print 'done reports=$DV73_REPORTS_BEFORE_PANIC'"

	step "open bug_badmode in the guest: may_open()'s VFS_BUG_ON_INODE panics it"
	$PY - "$W/ctl.sock" <<-'PYEOF' || die "send panic command on ttyS1"
		import socket, sys, time
		s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"panic\n")
		time.sleep(0.5); s.close()
	PYEOF
	wait_serial "$OUT/serial.log" 'end Kernel panic' 120 "the panic"
	grep -q 'kernel BUG at fs/namei.c' "$OUT/serial.log" || die "the panic is not may_open()'s BUG"
	sleep 1
	step "QMP dump elf-nopaging.vmcore (after the panic)"
	t=$(qmp dump "$OUT/elf-nopaging.vmcore") || die "qmp dump elf-nopaging"
	TIMINGS="${TIMINGS}dump_elf_nopaging_s=$t\n"
	step "QMP dump elf-paging.vmcore"
	t=$(qmp dump "$OUT/elf-paging.vmcore" --paging) || die "qmp dump elf-paging"
	TIMINGS="${TIMINGS}dump_elf_paging_s=$t\n"
	step "QMP dump qemu-kdump-zlib.flat"
	t=$(qmp dump "$OUT/qemu-kdump-zlib.flat" --format kdump-zlib) || die "qmp dump kdump-zlib"
	TIMINGS="${TIMINGS}dump_qemu_kdump_zlib_s=$t\n"
	quit_guest "$t0"
	chmod 0644 "$OUT"/*.vmcore "$OUT"/*.flat
}

# dv73_truth_roles TRUTH: "role=path" for each truth line with a path (the
# arguments drgn_truth73.py takes).
dv73_truth_roles() {
	awk '{ r = ""; p = ""
		for (i = 1; i <= NF; i++) { if ($i ~ /^role=/) r = substr($i, 6); if ($i ~ /^path=/) p = substr($i, 6) }
		if (p != "-") print r "=" p }' "$1"
}

# truth.txt: the module's lines; drgn-truth.txt: drgn 0.3.0 (sid chroot) on
# d17-zlib.vmcore for every role with a path; both must agree.
dv73_write_truth() {
	local n roles
	step "truth.txt from the kernel's inodedump-truth lines"
	grep 'inodedump-truth: ' "$OUT/serial.log" | sed 's/.*inodedump-truth: //' | tr -d '\r' > "$OUT/truth.txt"
	n=$(wc -l < "$OUT/truth.txt")
	[ "$n" -eq "$DV73_TRUTH_LINES" ] || die "expected $DV73_TRUTH_LINES truth lines in serial.log, got $n"
	roles=$(dv73_truth_roles "$OUT/truth.txt")
	step "drgn-truth.txt from drgn $(cat "$SID_CHROOT/drgn-version") (sid chroot) reading d17-zlib.vmcore"
	# shellcheck disable=SC2086
	in_sid "$SID_CHROOT" "$OUT" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth73.py \
		/fx/vmlinux /fx/d17-zlib.vmcore $roles > "$OUT/drgn-truth.txt" || die "drgn_truth73.py in the sid chroot"
	step "the kernel's truth lines agree with drgn's"
	$PY "$DV73_DIR/truth_vs_drgn.py" "$OUT/truth.txt" "$OUT/drgn-truth.txt" >&2 || die "truth_vs_drgn.py"
	step "reports.txt: the report lines as the console printed them"
	# A console line cut off by the panic is printed again after
	# "** replaying previous printk message **" (timing decides): the cut
	# copy is not a report of its own.
	tr -d '\r' < "$OUT/serial.log" | awk '
		/^\*\* replaying previous printk message \*\*$/ { if (last) n--; last = 0; next }
		{ line = $0; sub(/^\[ *[0-9.]*\] /, "", line); last = 0 }
		line ~ /: inode:[0-9a-f]* fs:|: unreadable inode:[0-9a-f]*$/ { out[++n] = line; last = 1 }
		END { for (i = 1; i <= n; i++) print out[i] }' > "$OUT/reports.txt"
	n=$(wc -l < "$OUT/reports.txt")
	[ "$n" -eq $((DV73_REPORTS_BEFORE_PANIC + 1)) ] ||
		die "expected $((DV73_REPORTS_BEFORE_PANIC + 1)) report lines on the console, got $n"
}

# The set: its own lock, hash and directory (claim_set), as for the others.
build_debugvfs73() {
	local set=debugvfs73 t_all h inputs
	SET=$set
	t_all=$(now)
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.stock73-prepare.lock"   # shared: apt state, debs, chroot
	flock 9
	prepare_apt73
	prepare_dv73_source
	prepare_sid_chroot
	exec 9>&-
	# The kernel (~15 min to build) under a lock of its own: the shared one
	# would keep every other user of the apt state and the chroot waiting.
	exec 7>"$CACHE/.dv73-kernel.lock"
	flock 7
	prepare_debugvfs73_kernel
	exec 7>&-
	step "hash inputs"
	inputs=$(
		echo "set=$set"
		echo "$KERNEL_ID"
		pkg_versions
		echo "sid-chroot $SID_ID"
		(cd "$HERE" && sha256sum make-fixtures.sh qmp.py elf_fixphdr.py debugvfs73.sh \
			debugvfs73/init.sh debugvfs73/truth_vs_drgn.py drgn_truth.py drgn_truth73.py)
	)
	if claim_set "$set" "$inputs"; then echo "$OUT"; return 0; fi
	h=$SET_HASH
	TIMINGS=""
	step "link vmlinux"
	ln -f "$KDIR/vmlinux" "$OUT/vmlinux" 2>/dev/null || cp "$KDIR/vmlinux" "$OUT/vmlinux"
	dv73_initramfs "$W/root" "$W/initramfs.cpio.gz"
	dv73_run_guest
	derive_dumps "$set"
	dv73_write_truth
	step "write info.txt"
	{
		echo "set=$set"
		echo "release=$(cat "$KDIR/release")"
		echo "kernel=$KERNEL_ID"
		echo "hash=$h"
		echo "drgn=$(cat "$SID_CHROOT/drgn-version") sid_chroot=$SID_CHROOT"
		echo "kernel_build_s=$(cat "$KDIR/kernel_build_s")"
		printf '%b' "$TIMINGS"
		echo "total_build_s=$(elapsed "$t_all")"
		for f in "$OUT"/*.vmcore "$OUT"/*.flat "$OUT/vmlinux"; do
			[ -f "$f" ] || continue
			echo "size_$(basename "$f")=$(stat -c %s "$f")"
		done
	} > "$OUT/info.txt"
	[ "${FX_KEEP_WORK:-0}" = 1 ] || rm -rf "$W"
	touch "$OUT/.complete"
	ln -sfn "$OUT" "$HERE/out/$set"
	exec 8>&-
	log "done in $(elapsed "$t_all") s: $OUT"
	echo "$OUT"
}
