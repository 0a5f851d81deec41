# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, kernels built from source: the patched 6.12 kernel
# (build-kernel.sh, which keys and caches it itself), and Debian's
# linux-source-7.3 built from tinyconfig + a fragment (the debugvfs73
# kernel), or that built tree copied and rebuilt with a second fragment
# (the nobtf kernel); each with its trigger module built against the tree.

# ---------------------------------------------------------------- patched 6.12
prepare_patched_kernel() {
	if [ -n "${FX_KEY_ONLY:-}" ]; then
		KDIR=$(patched_kernel_dir)
		KERNEL_ID="patched-kernel=$(basename "$KDIR")"
		return 0
	fi
	step "build patched kernel (tests/vmcores/build-kernel.sh)"
	[ -x "$HERE/build-kernel.sh" ] || [ -f "$HERE/build-kernel.sh" ] || die "tests/vmcores/build-kernel.sh does not exist"
	local out
	out=$(bash "$HERE/build-kernel.sh" | tail -1) || die "build-kernel.sh failed"
	[ -n "$out" ] && [ -d "$out" ] || die "build-kernel.sh printed no cache dir (got '$out')"
	for f in bzImage vmlinux vfsdbg_trigger.ko config release; do
		[ -f "$out/$f" ] || die "build-kernel.sh dir $out lacks $f"
	done
	KDIR=$out
	KERNEL_ID="patched-kernel=$(basename "$out")"
	[ "$(patched_kernel_dir)" = "$KDIR" ] ||
		log "note: patched_kernel_dir ($(patched_kernel_dir)) is not what build-kernel.sh made: key mode is off for patched"
	log "kernel $(cat "$KDIR/release") in $KDIR"
}

# patched_kernel_dir: the kernel-<hash> directory build-kernel.sh makes or
# reuses, computed as it computes it (its input_hash over the patches, the
# fragment, its own text and the toolchain; then the trigger's sources),
# without building: for key mode. prepare_patched_kernel checks that the
# two agree whenever it runs build-kernel.sh.
patched_kernel_dir() {
	local repo f p kh h
	repo=$(cd "$HERE/../.." && pwd)
	pv() { dpkg-query -W -f='${db:Status-Status} ${Version}' "$1" 2>/dev/null | sed -n 's/^installed //p' || true; }
	kh=$( {
		for f in "$repo"/kernel-patches/*.patch; do
			printf '%s ' "kernel-patches/$(basename "$f")"; sha256sum < "$f"
		done
		printf '%s ' kernel.config; sha256sum < "$HERE/kernel.config"
		printf '%s ' build-kernel.sh; sha256sum < "$HERE/build-kernel.sh"
		for p in linux-source-6.12 gcc binutils dwarves; do echo "$p=$(pv "$p")"; done
	} | hash16)
	h=$( {
		for f in "$HERE"/trigger/*; do
			case ${f##*/} in *.c | *.h | Kbuild | Makefile) [ -f "$f" ] || continue ;; *) continue ;; esac
			printf '%s ' "trigger/${f##*/}"; sha256sum < "$f"
		done
		echo "kbuild-$kh"
	} | hash16)
	echo "$CACHE/kernel-$h"
}

# ---------------------------------------------------------------- linux-source-7.3
DV73_SERIES=7.3
DV73_DIR=$HERE/debugvfs73
NOBTF_DIR=$HERE/nobtf
# What the kernel tree's cache key holds besides the source version and the
# fragment: the toolchain that compiles it.
DV73_TOOLCHAIN="gcc-12 binutils dwarves make"
DV73_MODULE=vfsdbg73_trigger

# prepare_dv73_source (after prepare_apt73) -> DV73_SRC_VER, DV73_SRC_DEB:
# the newest linux-source-7.3 in trixie-backports, downloaded into
# $CACHE/debs (key mode: the version only).
prepare_dv73_source() {
	step "find linux-source-$DV73_SERIES in trixie-backports"
	local pkg=linux-source-$DV73_SERIES
	DV73_SRC_VER=$(suite_versions trixie-backports "$pkg" | awk -v p="$pkg" '$1 == p { print $2 }')
	[ -n "$DV73_SRC_VER" ] || die "trixie-backports has no $pkg (private package lists)"
	log "$pkg version $DV73_SRC_VER"
	[ -z "${FX_KEY_ONLY:-}" ] || return 0
	mkdir -p "$CACHE/debs"
	DV73_SRC_DEB=$(fx_deb "$pkg" "$DV73_SRC_VER" apt73)
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
# function's own text is part of the tree's cache key (declare -f): keep it
# as it is, or every set with this kernel is rebuilt (~15 min).
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
	step "build the kernel (make -j2, ~15 min; log $buildlog)"
	t0=$(now)
	make -C "$tree" -j2 all >> "$buildlog" 2>&1 || { tail -40 "$buildlog" >&2; die "make"; }
	echo "$(elapsed "$t0")" > "$dir/build_s"
	log "kernel built in $(cat "$dir/build_s") s"
	touch "$dir/.complete"
}

# nobtf_build_tree DIR FROM FRAGMENT: copy the built tree FROM into
# DIR/linux, merge FRAGMENT into its .config, check it, rebuild. This
# function's own text is part of the tree's cache key (declare -f), as above.
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
	step "rebuild the kernel without BTF (make -j2; log $buildlog)"
	t0=$(now)
	make -C "$tree" -j2 all >> "$buildlog" 2>&1 || { tail -40 "$buildlog" >&2; die "make"; }
	elapsed "$t0" > "$dir/build_s"
	log "kernel rebuilt in $(cat "$dir/build_s") s (copy $(cat "$dir/copy_s") s)"
	touch "$dir/.complete"
}

dv73_toolchain() {
	local p tool=""
	for p in $DV73_TOOLCHAIN; do tool="$tool $(dpkg-query -W -f='${Package}=${Version}' "$p")"; done
	echo "$tool"
}
# the keys of the built trees (dv73-kbuild-<h>, nobtf-kbuild-<h>)
dv73_tree_key() {
	{ echo "linux-source-$DV73_SERIES=$DV73_SRC_VER$(dv73_toolchain)"; sha256sum < "$DV73_DIR/kernel.config"
		declare -f dv73_build_tree; } | hash16
}
nobtf_tree_key() {
	{ echo "dv73-kbuild=$1"; sha256sum < "$NOBTF_DIR/kernel.config"; declare -f nobtf_build_tree; } | hash16
}
# the key of a kernel's artefacts: its tree's key line and the trigger's sources
dv73_kernel_key() {
	{ echo "$1"; (cd "$DV73_DIR/trigger" && sha256sum Kbuild Makefile ./*.c); } | hash16
}

# dv73_collect TREEDIR: build the trigger module against TREEDIR/linux and
# collect bzImage, vmlinux, the module, config, release and the tree's build
# times into $KDIR.tmp.$$ (left there for the caller's checks: it ends with
# fx_kbuild_done).
dv73_collect() {
	local tb=$1 f
	step "build the trigger module ($DV73_MODULE.ko)"
	KTMP=$KDIR.tmp.$$
	rm -rf "$KTMP"; mkdir -p "$KTMP/trigger"
	cp "$DV73_DIR/trigger/Kbuild" "$DV73_DIR/trigger/Makefile" "$DV73_DIR"/trigger/*.c "$KTMP/trigger/"
	make -C "$tb/linux" M="$KTMP/trigger" modules > "$KTMP/trigger/build.log" 2>&1 || {
		cat "$KTMP/trigger/build.log" >&2; die "trigger module"; }
	cp "$tb/linux/arch/x86/boot/bzImage" "$tb/linux/vmlinux" "$KTMP/"
	cp "$KTMP/trigger/$DV73_MODULE.ko" "$KTMP/"
	cp "$tb/linux/.config" "$KTMP/config"
	cp "$tb/linux/include/config/kernel.release" "$KTMP/release"
	cp "$tb/build_s" "$KTMP/kernel_build_s"
	[ ! -f "$tb/copy_s" ] || cp "$tb/copy_s" "$KTMP/kernel_copy_s"
	for f in bzImage vmlinux "$DV73_MODULE.ko" config release; do
		[ -s "$KTMP/$f" ] || die "$KTMP lacks $f"
	done
}
fx_kbuild_done() {
	touch "$KTMP/.complete"
	rm -rf "$KDIR"; mv "$KTMP" "$KDIR"
}

# dv73_kernel LOCK BUILD: KDIR made by the function BUILD under the cache's
# .LOCK.lock (~15 min to build: the shared lock would keep every other user
# of the apt state and the chroot waiting); nothing in key mode or when
# KDIR is complete.
dv73_kernel() {
	[ -z "${FX_KEY_ONLY:-}" ] || return 0
	exec 7>"$CACHE/.$1.lock"
	flock 7
	if ! fx_cached "$KDIR"; then
		"$2"
	fi
	exec 7>&-
}

# prepare_debugvfs73_kernel (after prepare_dv73_source) -> KDIR (bzImage,
# vmlinux, $DV73_MODULE.ko, config, release), KERNEL_ID. Two cache
# directories, as build-kernel.sh has: dv73-kbuild-<h> the built tree
# (source version, fragment, toolchain, the build function),
# dv73-kernel-<h> the artefacts (that + the trigger).
prepare_debugvfs73_kernel() {
	DV73_KH=$(dv73_tree_key)
	local h
	h=$(dv73_kernel_key "kbuild=$DV73_KH")
	KDIR=$CACHE/dv73-kernel-$h
	KERNEL_ID="linux-source-$DV73_SERIES=$DV73_SRC_VER dv73-kernel=$h"
	dv73_kernel dv73-kernel dv73_make_kernel
}
dv73_make_kernel() {
	local kb=$CACHE/dv73-kbuild-$DV73_KH
	if [ -f "$kb/.complete" ]; then
		log "reusing kernel tree $kb"
	else
		dv73_build_tree "$kb" "$DV73_DIR/kernel.config"
	fi
	dv73_collect "$kb"
	fx_kbuild_done
	log "kernel $(cat "$KDIR/release") in $KDIR"
}

# prepare_nobtf_kernel (after prepare_dv73_source) -> KDIR, KERNEL_ID.
# Cache directories: dv73-kbuild-<h> (debugvfs73's tree, built here if
# missing, under its lock and key), nobtf-kbuild-<h> (that + the fragment +
# nobtf_build_tree), nobtf-kernel-<h> (that + the trigger's sources).
prepare_nobtf_kernel() {
	DV73_KH=$(dv73_tree_key)
	NOBTF_NH=$(nobtf_tree_key "$DV73_KH")
	local h
	h=$(dv73_kernel_key "nobtf-kbuild=$NOBTF_NH")
	KDIR=$CACHE/nobtf-kernel-$h
	KERNEL_ID="linux-source-$DV73_SERIES=$DV73_SRC_VER nobtf-kernel=$h"
	dv73_kernel nobtf-kernel nobtf_make_kernel
}
nobtf_make_kernel() {
	local kb=$CACHE/dv73-kbuild-$DV73_KH nb=$CACHE/nobtf-kbuild-$NOBTF_NH
	if [ -f "$nb/.complete" ]; then
		log "reusing kernel tree $nb"
	else
		# debugvfs73's lock (fd 6) while its tree is built or copied
		exec 6>"$CACHE/.dv73-kernel.lock"
		flock 6
		if [ -f "$kb/.complete" ] && [ ! -f "$kb/.pruned" ]; then
			log "copying debugvfs73's kernel tree $kb"
		else
			log "debugvfs73's whole kernel tree $kb is not there: building it first"
			dv73_build_tree "$kb" "$DV73_DIR/kernel.config"
		fi
		nobtf_build_tree "$nb" "$kb/linux" "$NOBTF_DIR/kernel.config"
		exec 6>&-
	fi
	dv73_collect "$nb"
	# (into files first: with pipefail, nm | grep -q fails when grep quits early)
	step "check: vmlinux has no .BTF section and no __start_BTF symbol"
	readelf -SW "$KTMP/vmlinux" > "$KTMP/sections.txt" || die "readelf -S vmlinux"
	nm "$KTMP/vmlinux" > "$KTMP/nm.txt" || die "nm vmlinux"
	if grep -qE '\] \.BTF ' "$KTMP/sections.txt"; then die "vmlinux has a .BTF section"; fi
	if grep -qE ' __start_BTF$' "$KTMP/nm.txt"; then die "vmlinux has __start_BTF"; fi
	grep -qE ' _stext$' "$KTMP/nm.txt" || die "nm vmlinux names no _stext (the check above would prove nothing)"
	grep -qE '\] \.debug_info ' "$KTMP/sections.txt" || die "vmlinux has no DWARF (.debug_info)"
	rm -f "$KTMP/sections.txt" "$KTMP/nm.txt"
	fx_kbuild_done
	log "kernel $(cat "$KDIR/release") without BTF in $KDIR"
}

# ---------------------------------------------------------------- pruning
# fx_prune_tree TREE SRCARCH: TREE (a built kernel tree) cut down to what
# an external module's build (make M=) and the artefacts' collection read:
# the kernel's own scripts/package/install-extmod-build list (Makefiles,
# include/, arch/SRCARCH's includes, scripts/, objtool, Module.symvers,
# the generated headers), plus .config, vmlinux (module BTF is made
# against it) and the boot image. Marked TREE/../.pruned. A tree so cut
# still builds and collects a changed trigger module (its key is the
# tree's, unchanged); only nobtf's rebuild needs the whole tree, and
# nobtf_make_kernel builds debugvfs73's again for it. 6.12's tree: 2.4 GB
# -> 148 MB.
fx_prune_tree() {
	local tree=$1 arch=$2 dir x
	dir=$(dirname "$tree")
	[ -f "$dir/.complete" ] && [ ! -f "$dir/.pruned" ] || return 0
	[ -f "$tree/scripts/package/install-extmod-build" ] || return 0
	x=$tree.extmod.$$
	rm -rf "$x"
	(cd "$tree" && srctree=. SRCARCH=$arch CC=gcc HOSTCC=gcc MAKE=make \
		sh scripts/package/install-extmod-build "$x") > /dev/null || { rm -rf "$x"; return 1; }
	cp -a "$tree/.config" "$x/.config"
	ln "$tree/vmlinux" "$x/vmlinux" 2>/dev/null || cp "$tree/vmlinux" "$x/vmlinux"
	for f in arch/x86/boot/bzImage arch/arm64/boot/Image arch/arm64/boot/Image.gz; do
		[ -f "$tree/$f" ] || continue
		mkdir -p "$x/$(dirname "$f")"
		cp -a "$tree/$f" "$x/$f"
	done
	touch "$dir/.pruned"
	rm -rf "$tree"
	mv "$x" "$tree"
}

# ---------------------------------------------------------------- linux-source-7.3 for arm64, 64 KiB pages
# The arm64-64k set's kernel: the same linux-source-7.3 cross-built with
# Debian 12's gcc-aarch64-linux-gnu from tinyconfig + arm64-64k/kernel.config
# (no Debian flavour has 64 KiB pages), and the debugvfs73 trigger module
# built against it. Cache directories as debugvfs73's: a64k-kbuild-<h> the
# built tree, a64k-kernel-<h> the artefacts (Image, vmlinux, the module).
A64K_DIR=$HERE/arm64-64k
A64K_TOOLCHAIN="gcc-12-aarch64-linux-gnu binutils-aarch64-linux-gnu dwarves make"
A64K_MAKE="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"

# a64k_build_tree DIR FRAGMENT: dv73_build_tree for arm64 (ARCH and
# CROSS_COMPILE on every make). Its text is part of the tree's key.
a64k_build_tree() {
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
	step "configure for arm64 (tinyconfig + arm64-64k/kernel.config + olddefconfig)"
	cp "$frag" "$dir/kernel.config"
	# shellcheck disable=SC2086
	{ make -C "$tree" $A64K_MAKE tinyconfig &&
		ARCH=arm64 "$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" "$tree/.config" "$frag" &&
		make -C "$tree" $A64K_MAKE olddefconfig; } >> "$buildlog" 2>&1 || { tail -30 "$buildlog" >&2; die "configure"; }
	dv73_check_config "$tree/.config" "$frag"
	step "cross-build the arm64 kernel (make -j2; log $buildlog)"
	t0=$(now)
	# shellcheck disable=SC2086
	make -C "$tree" $A64K_MAKE -j2 all >> "$buildlog" 2>&1 || { tail -40 "$buildlog" >&2; die "make"; }
	echo "$(elapsed "$t0")" > "$dir/build_s"
	log "kernel built in $(cat "$dir/build_s") s"
	touch "$dir/.complete"
}
a64k_toolchain() {
	local p tool=""
	for p in $A64K_TOOLCHAIN; do tool="$tool $(dpkg-query -W -f='${Package}=${Version}' "$p")"; done
	echo "$tool"
}
a64k_tree_key() {
	{ echo "linux-source-$DV73_SERIES=$DV73_SRC_VER$(a64k_toolchain) $A64K_MAKE"
		sha256sum < "$A64K_DIR/kernel.config"; declare -f a64k_build_tree; } | hash16
}

# prepare_a64k_kernel (after prepare_dv73_source) -> KDIR (Image, vmlinux,
# $DV73_MODULE.ko, config, release, kernel_build_s), KERNEL_ID
prepare_a64k_kernel() {
	A64K_KH=$(a64k_tree_key)
	local h
	h=$(dv73_kernel_key "a64k-kbuild=$A64K_KH")
	KDIR=$CACHE/a64k-kernel-$h
	KERNEL_ID="linux-source-$DV73_SERIES=$DV73_SRC_VER a64k-kernel=$h"
	dv73_kernel a64k-kernel a64k_make_kernel
}
a64k_make_kernel() {
	local kb=$CACHE/a64k-kbuild-$A64K_KH f
	if [ -f "$kb/.complete" ]; then
		log "reusing kernel tree $kb"
	else
		a64k_build_tree "$kb" "$A64K_DIR/kernel.config"
	fi
	step "build the trigger module ($DV73_MODULE.ko) for arm64"
	KTMP=$KDIR.tmp.$$
	rm -rf "$KTMP"; mkdir -p "$KTMP/trigger"
	cp "$DV73_DIR/trigger/Kbuild" "$DV73_DIR/trigger/Makefile" "$DV73_DIR"/trigger/*.c "$KTMP/trigger/"
	# shellcheck disable=SC2086
	make -C "$kb/linux" $A64K_MAKE M="$KTMP/trigger" modules > "$KTMP/trigger/build.log" 2>&1 || {
		cat "$KTMP/trigger/build.log" >&2; die "trigger module"; }
	cp "$kb/linux/arch/arm64/boot/Image" "$kb/linux/vmlinux" "$KTMP/"
	cp "$KTMP/trigger/$DV73_MODULE.ko" "$KTMP/"
	cp "$kb/linux/.config" "$KTMP/config"
	cp "$kb/linux/include/config/kernel.release" "$KTMP/release"
	cp "$kb/build_s" "$KTMP/kernel_build_s"
	for f in Image vmlinux "$DV73_MODULE.ko" config release; do
		[ -s "$KTMP/$f" ] || die "$KTMP lacks $f"
	done
	file -b "$KTMP/$DV73_MODULE.ko" | grep -q 'ARM aarch64' || die "$DV73_MODULE.ko is not an arm64 module"
	fx_kbuild_done
	log "kernel $(cat "$KDIR/release") (arm64, 64 KiB pages) in $KDIR"
}
