#!/bin/bash
# Build (or reuse) the inodedump vmcore fixture sets. See README.md and CONTRACT.md.
#
#   tests/vmcores/make-fixtures.sh [SET...|all]       (default: all)
#   tests/vmcores/make-fixtures.sh live [BINARY]
#   tests/vmcores/make-fixtures.sh key [SET...|all]   each set's key, nothing built:
#                                                     "SET HASH complete|absent DIR"
#   tests/vmcores/make-fixtures.sh inputs SET         the text that key hashes
#   tests/vmcores/make-fixtures.sh stamps [accept|bump NAME]   (fx/stamps.txt)
#
# A set is a recipe, recipes/SET.sh: its kernel, its guest's content, how it
# is run and dumped, its makedumpfile formats, its truth and its key; the
# steps are the library's, fx/*.sh (README.md, "Recipes"). The sets:
# stock, stock4 (the stock kernel with 4-level paging, 1 GiB), stock73 (the
# stock Debian 7.3 kernel from trixie-backports, truth from drgn 0.3.0 in a
# sid chroot), patched, wrapped, writers (sid's QEMU and makedumpfile on
# both stock kernels), big (>= 200 k inodes on the stock 6.12 kernel),
# debugvfs73 (the 7.3 kernel with CONFIG_DEBUG_VFS), big73 (big's recipe on
# the stock 7.3 kernel), nobtf (the 7.3 kernel without BTF), fs612 and
# fs73 (XFS, btrfs, overlayfs in a mount namespace, -d 0/17/31 dumps of one
# moment; the stock 6.12 and 7.3 kernels), old510 (Debian 11's stock 5.10
# from bullseye-security, with inode-cache churn), kdump73 and kdump612
# (real kdump captures: kexec -p, the panic, makedumpfile in the capture
# kernel writing kdump-tools' and RHEL's /var/crash to a virtio disk; the
# debugvfs73 guest on its kernel with PCI/virtio, the stock guest on the
# stock 6.12 kernel), arm64, arm64max, arm64-73, arm64-73-16k,
# arm64-writers, arm64-live (Debian's arm64 6.12 and 7.3 kernels on QEMU
# virt; README.md, "The arm64 sets"), arm64-64k and arm64-64k-a57 (the
# debugvfs73 source cross-built for arm64 with 64 KiB pages, -cpu max and
# cortex-a57; README.md, "The arm64-64k sets"), arm64-510 and arm64-61
# (Debian 11's and 12's default arm64 kernels, 5.10 and 6.1: kallsyms
# without data symbols; README.md, "The arm64-510 and arm64-61 sets"), ppc64le (Debian's ppc64el
# 6.1 on QEMU pseries, radix), s390x and s390x-7 (Debian's s390x 6.1 and
# 7.x on QEMU s390-ccw-virtio, big-endian), s390x-live (--live in the 7.x
# guest, vmcore-inode cross-built for s390x; README.md, "The s390x sets"):
# `all` builds them in the order ALL_SETS
# gives below, the kernels built here in a lane of their own meanwhile. live boots the patched kernel with BINARY (default:
# $VMCORE_INODE, else build/vmcore-inode), its shared libraries and a
# debug-only vmlinux in the initramfs and runs `vmcore-inode --live` in the
# guest; its key includes the binary's and every library's contents, so an
# unchanged build reuses the set.
#
# Every set lives in ${INODEDUMP_CACHE:-$HOME/.cache/inodedump}/fixtures-<set>-<hash>
# (hash of every input), with `.complete` written last; a complete set is
# reused. tests/vmcores/out/<set> is a symlink to it. Progress on stderr; the
# last stdout line of a successful run is the last set's directory.
#
# Environment: INODEDUMP_CACHE (cache root), FX_BOOT_TIMEOUT (seconds to wait
# for the guest's ready marker, default 600; the live set waits 3x as long),
# FX_KEEP_WORK=1 (keep .work/), FX_APT_MAX_AGE (seconds before the private
# package lists are refreshed, default 86400).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fx/core.sh
. "$HERE/fx/core.sh"
# shellcheck source=fx/apt.sh
. "$FX/apt.sh"
# shellcheck source=fx/sid.sh
. "$FX/sid.sh"
# shellcheck source=fx/kbuild.sh
. "$FX/kbuild.sh"
# shellcheck source=fx/guest.sh
. "$FX/guest.sh"
# shellcheck source=fx/dumps.sh
. "$FX/dumps.sh"
# shellcheck source=fx/truth.sh
. "$FX/truth.sh"
# shellcheck source=fx/foreign.sh
. "$FX/foreign.sh"
# shellcheck source=fx/cross.sh
. "$FX/cross.sh"
# shellcheck source=fx/arm64.sh
. "$FX/arm64.sh"
# shellcheck source=fx/arm64deb.sh
. "$FX/arm64deb.sh"
# shellcheck source=fx/ppc64.sh
. "$FX/ppc64.sh"
# shellcheck source=fx/s390x.sh
. "$FX/s390x.sh"
trap on_err ERR
trap cleanup EXIT

# `all`'s order: the sets of Debian's own kernels first (downloads, boots:
# they leave the cores idle at times), then those of the kernels built
# here, which the kernel lane (kernels_lane) builds meanwhile. rhel612
# (Debian's 6.12, dwz: 7 minutes of one core) is among the first, where
# the lane keeps the other core busy; last, it left one core idle.
ALL_SETS="stock stock4 stock73 writers big big73 fs612 fs73 old510 kdump612 rhel612"
ALL_SETS="$ALL_SETS arm64 arm64max arm64-73 arm64-73-16k arm64-writers arm64-live arm64-510 arm64-61 ppc64le s390x s390x-7 s390x-live"
ALL_SETS="$ALL_SETS patched wrapped debugvfs73 nobtf kdump73 arm64-64k arm64-64k-a57"
# The sets whose recipe_prepare builds a kernel here, in the order the
# kernel lane builds them (patched's is build-kernel.sh, first).
KERNEL_SETS="debugvfs73 nobtf arm64-64k"
# Sets built by name only, not by `all`: e2e61 (a Debian 12 system booted
# twice under TCG, kdump-tools' capture; README.md, "The e2e61 set").
NAMED_SETS="e2e61"
LIVE_BIN=${VMCORE_INODE:-$HERE/../../build/vmcore-inode}

# kernels_lane: the patched kernel (build-kernel.sh), then each KERNEL_SETS
# set's recipe_prepare alone (FX_PREPARE_ONLY: its kernel, the shared
# preparations it needs; no set claimed). A failure is left for the set's
# own build to meet and report.
kernels_lane() {
	local s
	bash "$HERE/build-kernel.sh" > /dev/null || true
	for s in $KERNEL_SETS; do FX_PREPARE_ONLY=1 fx_build "$s" || true; done
}

# prune_debs: the -dbg packages (about 1 GB each) go once every set is
# built: each kernel's directory holds what was taken from its package,
# and fx_deb downloads a package again (seconds) if a key change needs it.
prune_debs() {
	local f n=0 bytes=0
	for f in "$CACHE"/debs/*-dbg_*.deb; do
		[ -f "$f" ] || continue
		bytes=$((bytes + $(stat -c %s "$f")))
		rm -f "$f"
		n=$((n + 1))
	done
	[ "$n" -eq 0 ] || log "removed $n -dbg packages ($((bytes / 1000000)) MB) from $CACHE/debs"
}

# prune_trees: each kernel tree built here cut to what a module's build
# against it needs (fx_prune_tree), once every set is built.
prune_trees() {
	local d before
	before=$(du -sm "$CACHE" 2>/dev/null | cut -f1)
	for d in "$CACHE"/kbuild-*/linux-source-6.12; do [ -d "$d" ] && fx_prune_tree "$d" x86; done
	for d in "$CACHE"/dv73-kbuild-*/linux "$CACHE"/nobtf-kbuild-*/linux; do
		[ -d "$d" ] && fx_prune_tree "$d" x86
	done
	for d in "$CACHE"/a64k-kbuild-*/linux; do [ -d "$d" ] && fx_prune_tree "$d" arm64; done
	log "kernel trees pruned: the cache went from $before MB to $(du -sm "$CACHE" 2>/dev/null | cut -f1) MB"
}

# key / inputs: each set's key, nothing built, downloaded or updated
key_mode() {
	local what=$1 s rc=0
	shift
	[ $# -gt 0 ] || set -- all
	[ "$1" != all ] || set -- $ALL_SETS
	check_packages
	for s in "$@"; do
		set +e
		( set -e; FX_KEY_ONLY=$what fx_build "$s" )
		[ $? -eq 0 ] || { echo "$s - no-key"; rc=1; }
		set -e
	done
	return "$rc"
}

# stamps: each stamp of fx/stamps.txt and whether its code changed since;
# accept NAME records the code as it is (the change does not alter what
# the sets hold); bump NAME sets the key digest to the code's (every set
# whose key names NAME is rebuilt).
stamps_mode() {
	local cmd=${1:-} name=${2:-} line code
	if [ -z "$cmd" ]; then
		fx_stamps_status
		return 0
	fi
	[ -n "$name" ] && [ -n "$(fx_stamp "$name")" ] || die "usage: make-fixtures.sh stamps [accept|bump NAME]"
	line=$(fx_stamps_status | awk -v n="$name" '$1 == n')
	code=${line##* }
	case $cmd in
	accept) awk -v n="$name" -v c="$code" '$1 == n { $3 = c } { print }' "$FX/stamps.txt" ;;
	bump) awk -v n="$name" -v c="$code" '$1 == n { $2 = c; $3 = c } { print }' "$FX/stamps.txt" ;;
	*) die "usage: make-fixtures.sh stamps [accept|bump NAME]" ;;
	esac > "$FX/stamps.txt.new"
	mv "$FX/stamps.txt.new" "$FX/stamps.txt"
	fx_stamps_status | awk -v n="$name" '$1 == n'
}

main() {
	local what=${1:-all} s
	case $what in
	key | inputs) shift; key_mode "$what" "$@"; return ;;
	stamps) shift; stamps_mode "$@"; return ;;
	esac
	check_packages
	fx_stamps_warn
	case $what in
	live | follow73)   # BINARY's own guest sets, not in all
		LIVE_BIN=${2:-$LIVE_BIN}
		fx_build "$what" ;;
	all)
		# The kernels built here (CPU-bound: ~45 min of both cores from
		# nothing) build in a lane of their own while the sets of Debian's
		# kernels download, debootstrap and boot; each of those sets then
		# reuses its kernel, or waits on the kernel's own lock and builds
		# it in the foreground (with its errors) if the lane failed. The
		# lane is the longest path from nothing (measured 2026-12-07: the
		# Debian sets done after 42 min, the lane's kernels after ~60), so
		# it runs at the foreground's priority, not below it.
		mkdir -p "$CACHE"
		log "building the kernels in the background (log: $CACHE/.prefetch-kernel.log)"
		kernels_lane > /dev/null 2> "$CACHE/.prefetch-kernel.log" &
		for s in $ALL_SETS; do fx_build "$s"; done
		wait
		prune_debs
		prune_trees ;;
	*)
		for s in "$@"; do
			case " $ALL_SETS $NAMED_SETS " in
			*" $s "*) ;;
			*) die "usage: make-fixtures.sh [all|live [BINARY]|follow73 [BINARY]|key [SET...]|inputs SET|stamps] or SET... ($ALL_SETS $NAMED_SETS)" ;;
			esac
		done
		for s in "$@"; do fx_build "$s"; done ;;
	esac
}

main "$@"
