#!/usr/bin/env bash
# Build, or reuse from the cache, inodedump's patched test kernel.
#
# Inputs: Debian's linux-source-6.12, kernel-patches/*.patch,
# tests/vmcores/kernel.config, tests/vmcores/trigger/, this script.
# Output: the last line on stdout is a directory holding bzImage, vmlinux,
# vfsdbg_trigger.ko, config and release (see CONTRACT.md). Progress and
# errors go to stderr.
#
# Two cache directories, so that a change to the trigger module alone
# rebuilds the module and not the kernel:
#   kbuild-<khash>/  the patched, configured and built source tree
#                    (khash: patches, fragment, this script, toolchain)
#   kernel-<hash>/   the artefacts (hash: the same plus the trigger sources)
# Each is complete only once its .complete stamp exists (written last).
# The inputs are copied to a staging directory before they are hashed, so
# an edit made while the build runs cannot end up under the wrong hash.
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
patch_dir=$repo/kernel-patches
fragment=$here/kernel.config
trigger_dir=$here/trigger
cache_root=${INODEDUMP_CACHE:-$HOME/.cache/inodedump}
src_pkg=linux-source-6.12
src_tar=/usr/src/linux-source-6.12.tar.xz
build_pkgs=(build-essential flex bison bc libelf-dev libssl-dev dwarves cpio)

step=start
log() { printf 'build-kernel.sh: %s\n' "$*" >&2; }
die() { log "FAILED at step '$step': $*"; exit 1; }
trap 'log "FAILED at step '\''$step'\'' (command: $BASH_COMMAND)"' ERR

pkg_version() {
	dpkg-query -W -f='${db:Status-Status} ${Version}' "$1" 2>/dev/null |
		sed -n 's/^installed //p' || true
}

ensure_packages() {
	local missing=() p
	for p in "$src_pkg" "${build_pkgs[@]}"; do
		[[ -n $(pkg_version "$p") ]] || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	log "installing missing Debian packages: ${missing[*]}"
	local sudo=()
	((EUID == 0)) || sudo=(sudo)
	"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}

# sha256 (first 16 hex) of the named files' contents and names, plus
# extra strings given after "--".
input_hash() {
	local f
	{
		while (($#)) && [[ $1 != -- ]]; do
			f=$1
			shift
			printf '%s ' "${f#"$stage"/}"
			sha256sum <"$f"
		done
		(($#)) && shift
		printf '%s\n' "$@"
	} | sha256sum | cut -c1-16
}

# Every assignment and "is not set" line of the fragment must hold in
# .config after olddefconfig; Kconfig drops silently what it cannot satisfy.
check_config() {
	local config=$1 line sym bad=0
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			grep -qxF -- "$line" "$config" && continue
			sym=${BASH_REMATCH[1]}
			log "config: wanted '$line', got '$(grep -E "^(# )?$sym[= ]" "$config" || echo "$sym absent")'"
			bad=1
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			sym=${BASH_REMATCH[1]}
			grep -qE "^$sym=" "$config" || continue
			log "config: wanted '$line', got '$(grep -E "^$sym=" "$config")'"
			bad=1
		fi
	done <"$fragment"
	((bad == 0)) || die "config fragment did not stick (see above)"
}

# Run a build command with its output in a log; show the log's tail on failure.
run_logged() {
	local logfile=$1
	shift
	if ! "$@" >>"$logfile" 2>&1; then
		tail -n 40 "$logfile" >&2
		die "'$*' failed; full log: $logfile"
	fi
}

build_tree() {
	local kdir=$1 tree=$1/linux-source-6.12 buildlog=$1/build.log p t0

	step="clean stale tree"
	rm -rf "$kdir"
	mkdir -p "$kdir"
	: >"$buildlog"

	step="unpack $src_tar"
	log "unpacking $src_tar into $kdir"
	tar -xf "$src_tar" -C "$kdir"
	[[ -f $tree/Makefile ]] || die "no linux-source-6.12/Makefile in $src_tar"

	for p in "$patch_dir"/[0-9][0-9][0-9][0-9]-*.patch; do
		[[ $(basename "$p") == 0000-* ]] && continue
		step="apply $(basename "$p")"
		log "applying $(basename "$p")"
		patch -d "$tree" -p1 --forward --batch --quiet <"$p" >&2 ||
			die "patch -p1 did not apply cleanly"
	done

	step="configure (tinyconfig + kernel.config + olddefconfig)"
	log "configuring: tinyconfig + $(basename "$fragment") + olddefconfig"
	run_logged "$buildlog" make -C "$tree" tinyconfig
	run_logged "$buildlog" "$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" \
		"$tree/.config" "$fragment"
	run_logged "$buildlog" make -C "$tree" olddefconfig

	step="check config"
	check_config "$tree/.config"

	step="build kernel (make -j$(nproc))"
	log "building bzImage + vmlinux with make -j$(nproc) (log: $buildlog)"
	t0=$SECONDS
	run_logged "$buildlog" make -C "$tree" -j"$(nproc)" all
	log "kernel built in $((SECONDS - t0)) s"

	step="stamp kernel tree"
	touch "$kdir/.complete"
}

build_module_and_collect() {
	local out=$1 tree=$2 f

	step="clean stale artefacts"
	rm -rf "$out"
	mkdir -p "$out/trigger"

	step="build trigger module"
	log "building vfsdbg_trigger.ko"
	cp "$stage"/trigger/* "$out/trigger/"
	run_logged "$out/trigger/build.log" make -C "$tree" M="$out/trigger" modules

	step="collect artefacts"
	cp "$tree/arch/x86/boot/bzImage" "$out/bzImage"
	cp "$tree/vmlinux" "$out/vmlinux"
	cp "$out/trigger/vfsdbg_trigger.ko" "$out/vfsdbg_trigger.ko"
	cp "$tree/.config" "$out/config"
	cp "$tree/include/config/kernel.release" "$out/release"
	ln -s "$tree" "$out/kbuild"

	step="stamp artefacts"
	touch "$out/.complete"
}

main() {
	step="check Debian packages"
	ensure_packages
	[[ -f $src_tar ]] || die "$src_tar missing although $src_pkg is installed"

	step="stage inputs"
	stage=$(mktemp -d "${TMPDIR:-/tmp}/inodedump-build-kernel.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	mkdir "$stage/kernel-patches" "$stage/trigger"
	local patches trigger_files
	patches=("$patch_dir"/*.patch)
	[[ -f ${patches[0]} ]] || die "no patches in $patch_dir"
	mapfile -t trigger_files < <(find "$trigger_dir" -maxdepth 1 -type f \
		\( -name '*.c' -o -name '*.h' -o -name Kbuild -o -name Makefile \) | sort)
	((${#trigger_files[@]})) || die "no trigger sources in $trigger_dir"
	cp "${patches[@]}" "$stage/kernel-patches/"
	cp "${trigger_files[@]}" "$stage/trigger/"
	cp "$fragment" "$here/build-kernel.sh" "$stage/"
	patch_dir=$stage/kernel-patches
	fragment=$stage/kernel.config
	patches=("$patch_dir"/*.patch)
	trigger_files=("$stage"/trigger/*)

	step="hash inputs"
	local toolchain=() p
	for p in "$src_pkg" gcc binutils dwarves; do
		toolchain+=("$p=$(pkg_version "$p")")
	done
	local khash hash
	khash=$(input_hash "${patches[@]}" "$fragment" "$stage/build-kernel.sh" -- "${toolchain[@]}")
	hash=$(input_hash "${trigger_files[@]}" -- "kbuild-$khash")

	local kdir=$cache_root/kbuild-$khash out=$cache_root/kernel-$hash
	if [[ -f $out/.complete ]]; then
		log "reusing $out"
		printf '%s\n' "$out"
		return
	fi

	step="lock cache"
	mkdir -p "$cache_root"
	exec 9>"$cache_root/.build-kernel.lock"
	flock 9
	if [[ -f $out/.complete ]]; then
		log "reusing $out (built by a concurrent run)"
		printf '%s\n' "$out"
		return
	fi

	if [[ -f $kdir/.complete ]]; then
		log "reusing kernel tree $kdir"
	else
		build_tree "$kdir"
	fi
	build_module_and_collect "$out" "$kdir/linux-source-6.12"
	log "done: $(cat "$out/release") in $out after $SECONDS s"
	printf '%s\n' "$out"
}

main "$@"
