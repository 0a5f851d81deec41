# shellcheck shell=bash
# The nobtf set's recipe: sourced by make-fixtures.sh after debugvfs73.sh
# (uses its log, step, die, hash16, now, elapsed, CACHE, PY, HERE,
# pkg_versions, claim_set, quit_guest, stock73.sh's prepare_apt73 and
# debugvfs73.sh's prepare_dv73_source, dv73_build_tree, dv73_check_config,
# dv73_run_guest and its trigger module). Its own file, with its inputs in
# nobtf/, so that editing it re-keys only this set. See README.md, "The
# nobtf set".
#
# A real dump of a kernel built without CONFIG_DEBUG_INFO_BTF (issue 16: a
# run without vmlinux must say what is missing and where to get it). The
# kernel is the debugvfs73 one with BTF turned off: a copy (cp -a) of
# debugvfs73's built tree, nobtf/kernel.config merged in, olddefconfig,
# make. Kbuild rebuilds what depends on the option, which is nearly
# everything (include/linux/compiler_types.h, included by every file, tests
# CONFIG_DEBUG_INFO_BTF), but not the host tools, and no unpacking. The
# guest is debugvfs73's (init, trigger, truth lines, may_open() panic),
# behind nobtf/init.sh, which first prints what the running kernel says of
# its BTF. Dumps: elf-nopaging.vmcore and qemu-kdump-zlib.flat (QEMU) after
# the panic, d17-zlib.vmcore (makedumpfile -d 17 -c).

NOBTF_DIR=$HERE/nobtf

# nobtf_build_tree DIR FROM FRAGMENT: copy the built tree FROM into
# DIR/linux, merge FRAGMENT into its .config, check it, rebuild. This
# function's own text is part of the tree's cache key (declare -f).
nobtf_build_tree() {
	local dir=$1 from=$2 frag=$3 tree=$1/linux buildlog=$1/build.log t0
	rm -rf "$dir"; mkdir -p "$dir"
	: > "$buildlog"
	step "copy the debugvfs73 kernel tree (cp -a: the build rewrites files in place)"
	t0=$(now)
	cp -a "$from" "$tree" || die "cp -a $from"
	elapsed "$t0" > "$dir/copy_s"
	step "configure (debugvfs73's .config + nobtf/kernel.config + olddefconfig)"
	cp "$frag" "$dir/kernel.config"
	{ "$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" "$tree/.config" "$frag" &&
		make -C "$tree" olddefconfig; } >> "$buildlog" 2>&1 || { tail -30 "$buildlog" >&2; die "configure"; }
	dv73_check_config "$tree/.config" "$frag"
	step "rebuild the kernel without BTF (nice -n 5 make -j2; log $buildlog)"
	t0=$(now)
	nice -n 5 make -C "$tree" -j2 all >> "$buildlog" 2>&1 || { tail -40 "$buildlog" >&2; die "make"; }
	elapsed "$t0" > "$dir/build_s"
	log "kernel rebuilt in $(cat "$dir/build_s") s (copy $(cat "$dir/copy_s") s)"
	touch "$dir/.complete"
}

# prepare_nobtf_kernel (after prepare_dv73_source) -> KDIR (bzImage,
# vmlinux, $DV73_MODULE.ko, config, release), KERNEL_ID. Cache directories:
# dv73-kbuild-<h> (debugvfs73's tree, built here if missing, under its lock
# and key), nobtf-kbuild-<h> (that + the fragment + nobtf_build_tree),
# nobtf-kernel-<h> (that + the trigger's sources).
prepare_nobtf_kernel() {
	local frag=$DV73_DIR/kernel.config nfrag=$NOBTF_DIR/kernel.config kh nh h kb nb p tool="" f
	for p in $DV73_TOOLCHAIN; do tool="$tool $(dpkg-query -W -f='${Package}=${Version}' "$p")"; done
	# debugvfs73's tree, keyed as prepare_debugvfs73_kernel keys it
	kh=$( { echo "linux-source-$DV73_SERIES=$DV73_SRC_VER$tool"; sha256sum < "$frag"; declare -f dv73_build_tree; } | hash16)
	kb=$CACHE/dv73-kbuild-$kh
	nh=$( { echo "dv73-kbuild=$kh"; sha256sum < "$nfrag"; declare -f nobtf_build_tree; } | hash16)
	nb=$CACHE/nobtf-kbuild-$nh
	h=$( { echo "nobtf-kbuild=$nh"; (cd "$DV73_DIR/trigger" && sha256sum Kbuild Makefile ./*.c); } | hash16)
	KDIR=$CACHE/nobtf-kernel-$h
	KERNEL_ID="linux-source-$DV73_SERIES=$DV73_SRC_VER nobtf-kernel=$h"
	if [ -f "$KDIR/.complete" ]; then
		log "reusing $KDIR"
		return 0
	fi
	if [ -f "$nb/.complete" ]; then
		log "reusing kernel tree $nb"
	else
		# debugvfs73's lock (fd 6) while its tree is built or copied
		exec 6>"$CACHE/.dv73-kernel.lock"
		flock 6
		if [ -f "$kb/.complete" ]; then
			log "copying debugvfs73's kernel tree $kb"
		else
			log "debugvfs73's kernel tree $kb is not there: building it first"
			dv73_build_tree "$kb" "$frag"
		fi
		nobtf_build_tree "$nb" "$kb/linux" "$nfrag"
		exec 6>&-
	fi
	step "build the trigger module ($DV73_MODULE.ko) against the tree without BTF"
	local tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/trigger"
	cp "$DV73_DIR/trigger/Kbuild" "$DV73_DIR/trigger/Makefile" "$DV73_DIR"/trigger/*.c "$tmp/trigger/"
	make -C "$nb/linux" M="$tmp/trigger" modules > "$tmp/trigger/build.log" 2>&1 || {
		cat "$tmp/trigger/build.log" >&2; die "trigger module"; }
	cp "$nb/linux/arch/x86/boot/bzImage" "$nb/linux/vmlinux" "$tmp/"
	cp "$tmp/trigger/$DV73_MODULE.ko" "$tmp/"
	cp "$nb/linux/.config" "$tmp/config"
	cp "$nb/linux/include/config/kernel.release" "$tmp/release"
	cp "$nb/build_s" "$tmp/kernel_build_s"
	cp "$nb/copy_s" "$tmp/kernel_copy_s"
	for f in bzImage vmlinux "$DV73_MODULE.ko" config release; do
		[ -s "$tmp/$f" ] || die "$tmp lacks $f"
	done
	# (into files first: with pipefail, nm | grep -q fails when grep quits early)
	step "check: vmlinux has no .BTF section and no __start_BTF symbol"
	readelf -SW "$tmp/vmlinux" > "$tmp/sections.txt" || die "readelf -S vmlinux"
	nm "$tmp/vmlinux" > "$tmp/nm.txt" || die "nm vmlinux"
	if grep -qE '\] \.BTF ' "$tmp/sections.txt"; then die "vmlinux has a .BTF section"; fi
	if grep -qE ' __start_BTF$' "$tmp/nm.txt"; then die "vmlinux has __start_BTF"; fi
	grep -qE ' _stext$' "$tmp/nm.txt" || die "nm vmlinux names no _stext (the check above would prove nothing)"
	grep -qE '\] \.debug_info ' "$tmp/sections.txt" || die "vmlinux has no DWARF (.debug_info)"
	rm -f "$tmp/sections.txt" "$tmp/nm.txt"
	touch "$tmp/.complete"
	rm -rf "$KDIR"; mv "$tmp" "$KDIR"
	log "kernel $(cat "$KDIR/release") without BTF in $KDIR"
}

# debugvfs73's initramfs with nobtf/init.sh as /init in front of its init.
nobtf_initramfs() {   # $1 = staging dir, $2 = output cpio.gz
	local root=$1
	step "build busybox initramfs (nobtf/init.sh, then debugvfs73/init.sh, $DV73_MODULE.ko, ext4 image)"
	rm -rf "$root"; mkdir -p "$root/bin" "$root/modules"
	cp /bin/busybox "$root/bin/busybox"
	install -m 755 "$NOBTF_DIR/init.sh" "$root/init"
	install -m 755 "$DV73_DIR/init.sh" "$root/init.debugvfs73"
	cp "$KDIR/$DV73_MODULE.ko" "$root/modules/"
	truncate -s 16M "$root/ext4.img"
	mkfs.ext4 -q -F -L inodedump -U 00000000-0000-4000-8000-00000000e4e4 \
		-E root_owner=0:0 "$root/ext4.img" >&2 || die "mkfs.ext4"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$2" || die "cpio"
}

# The set: its own lock, hash and directory (claim_set), as for the others.
build_nobtf() {
	local set=nobtf t_all h inputs n line t0 id_vmlinux id_dump
	# shellcheck disable=SC2034  # make-fixtures.sh's log and die name it
	SET=$set
	t_all=$(now)
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.stock73-prepare.lock"   # shared: apt state, debs
	flock 9
	prepare_apt73
	prepare_dv73_source
	exec 9>&-
	exec 7>"$CACHE/.nobtf-kernel.lock"
	flock 7
	prepare_nobtf_kernel
	exec 7>&-
	step "hash inputs"
	inputs=$(
		echo "set=$set"
		echo "$KERNEL_ID"
		pkg_versions
		(cd "$HERE" && sha256sum make-fixtures.sh qmp.py elf_fixphdr.py debugvfs73.sh nobtf.sh \
			debugvfs73/init.sh nobtf/init.sh)
	)
	if claim_set "$set" "$inputs"; then echo "$OUT"; return 0; fi
	h=$SET_HASH
	TIMINGS=""
	step "link vmlinux"
	ln -f "$KDIR/vmlinux" "$OUT/vmlinux" 2>/dev/null || cp "$KDIR/vmlinux" "$OUT/vmlinux"
	nobtf_initramfs "$W/root" "$W/initramfs.cpio.gz"
	dv73_run_guest   # boot, trigger, panic; elf-nopaging, elf-paging, qemu-kdump-zlib
	rm -f "$OUT/elf-paging.vmcore"   # one ELF dump is enough here

	step "the running kernel had no BTF (its /proc/kallsyms, /sys/kernel/btf)"
	line=$(grep -a -m1 '^inodedump-nobtf: ' "$OUT/serial.log" | tr -d '\r') || die "no inodedump-nobtf line on the console"
	[ -n "$line" ] || die "no inodedump-nobtf line on the console"
	log "$line"
	case $line in
	*" stext=1 start_btf=0 sys_btf=no") ;;
	*) die "the guest's kernel does not look BTF-less: $line" ;;
	esac
	n=${line#*kallsyms=}; n=${n%% *}
	[ "$n" -gt 10000 ] || die "the guest's /proc/kallsyms has only $n lines"

	step "the dump is of this vmlinux (VMCOREINFO BUILD-ID = vmlinux's build-id)"
	id_vmlinux=$(readelf -n "$OUT/vmlinux" | awk '/Build ID:/ && !n++ { print $3 }')
	id_dump=$(grep -a -m1 -o 'BUILD-ID=[0-9a-f]*' "$OUT/elf-nopaging.vmcore" | cut -d= -f2)
	if [ -z "$id_vmlinux" ] || [ "$id_vmlinux" != "$id_dump" ]; then
		die "build-id: vmlinux '$id_vmlinux', dump's VMCOREINFO '$id_dump'"
	fi

	step "rewrite ELF program headers for makedumpfile (pitfall 4)"
	$PY "$HERE/elf_fixphdr.py" "$OUT/elf-nopaging.vmcore" "$W/fixed.elf" || die "elf_fixphdr.py"
	step "makedumpfile -d 17 -c -> d17-zlib.vmcore"
	t0=$(now)
	makedumpfile -d 17 -c "$W/fixed.elf" "$OUT/d17-zlib.vmcore" > "$W/makedumpfile.log" 2>&1 || {
		cat "$W/makedumpfile.log" >&2; die "makedumpfile -d 17 -c"; }
	TIMINGS="${TIMINGS}makedumpfile_d17-zlib_s=$(elapsed "$t0")\n"
	rm -f "$W/fixed.elf"
	chmod 0644 "$OUT/d17-zlib.vmcore"

	step "truth.txt from the kernel's inodedump-truth lines"
	grep 'inodedump-truth: ' "$OUT/serial.log" | sed 's/.*inodedump-truth: //' | tr -d '\r' > "$OUT/truth.txt"
	n=$(wc -l < "$OUT/truth.txt")
	[ "$n" -eq "$DV73_TRUTH_LINES" ] || die "expected $DV73_TRUTH_LINES truth lines in serial.log, got $n"

	step "write info.txt"
	{
		echo "set=$set"
		echo "release=$(cat "$KDIR/release")"
		echo "kernel=$KERNEL_ID"
		echo "hash=$h"
		echo "build_id=$id_vmlinux"
		# shellcheck disable=SC2086
		printf 'guest_%s\n' ${line#inodedump-nobtf: }
		echo "kernel_copy_s=$(cat "$KDIR/kernel_copy_s")"
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
