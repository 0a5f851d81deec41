# shellcheck shell=bash
# Fixture library, the sid chroot: one debootstrapped sid (after
# prepare_apt73) holding every tool taken from sid, and the two ways of
# running a command in it (in_sid: read-only /fx and /src; sid_run: the
# cache read-write at its own path, and /proc).

# The one sid chroot: every tool taken from sid (drgn 0.3.0 for truth,
# QEMU 11 and makedumpfile 1.7.8 for the writers and big sets, crash 9.0.2
# and the libraries our crash extension and Python module load for the
# bridges' tests). One debootstrap (~4 min) instead of one per tool.
SID_INCLUDE=python3-drgn,qemu-system-x86,makedumpfile,crash,libdw1t64,libelf1t64,liblzo2-2,libzstd1,zlib1g,libbpf1

# prepare_sid_chroot -> SID_CHROOT (a debootstrapped sid holding the
# comma-separated packages $SID_INCLUDE), SID_ID (what it holds). Keyed by
# debootstrap's version, the variant, the included packages and the
# versions sid has of them and of python3; the chroot is made once per key
# (~4 min) and shared by every set and test after.
prepare_sid_chroot() {
	step "sid chroot (debootstrap --variant=minbase --include=$SID_INCLUDE)"
	local v h tmp p
	command -v debootstrap >/dev/null || {
		[ "$(id -u)" = 0 ] && [ -z "${FX_KEY_ONLY:-}" ] || die "debootstrap is missing (apt-get install debootstrap)"
		log "installing debootstrap (Debian 12 package)"
		apt-get install -y --no-install-recommends debootstrap >&2 || die "apt-get install debootstrap"
	}
	SID_ID="debootstrap=$(dpkg-query -W -f='${Version}' debootstrap) variant=minbase include=$SID_INCLUDE"
	local want="${SID_INCLUDE//,/ } python3 libkdumpfile12" vers
	# shellcheck disable=SC2086
	vers=$(suite_versions sid $want)
	for p in $want; do
		v=$(printf '%s\n' "$vers" | awk -v p="$p" '$1 == p { print $2 }')
		[ -n "$v" ] || die "sid has no $p (private package lists)"
		SID_ID="$SID_ID $p=$v"
	done
	h=$(printf '%s\n' "$SID_ID" | hash16)
	SID_CHROOT=$CACHE/sid-chroot-$h
	! fx_cached "$SID_CHROOT" "$SID_ID" || return 0
	tmp=$SID_CHROOT.tmp.$$
	rm -rf "$tmp"
	step "debootstrap sid into $tmp (~3 min)"
	# debootstrap downloads with wget, whose defaults (900 s read timeout,
	# 20 tries) made a stalled mirror connection hang a run for a quarter
	# of an hour here: a stall now fails after 60 s and is retried.
	printf 'read_timeout = 60\nconnect_timeout = 30\ntries = 5\nwaitretry = 5\n' > "$tmp.wgetrc"
	WGETRC=$tmp.wgetrc debootstrap --variant=minbase --include="$SID_INCLUDE" \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		sid "$tmp" "$MIRROR" > "$tmp.log" 2>&1 || { tail -20 "$tmp.log" >&2; die "debootstrap sid"; }
	mkdir -p "$tmp/fx" "$tmp/src"
	rm -rf "$tmp/var/cache/apt/archives"/*.deb
	case ",$SID_INCLUDE," in
	*,python3-drgn,*)
		chroot "$tmp" /usr/bin/python3 -c 'import drgn; print(drgn.__version__)' > "$tmp/drgn-version" ||
			die "drgn does not import in the sid chroot"
		log "drgn $(cat "$tmp/drgn-version") in the sid chroot" ;;
	esac
	printf '%s\n' "$SID_ID" > "$tmp/inodedump-inputs.txt"
	mv "$tmp.log" "$tmp/debootstrap.log"
	rm -f "$tmp.wgetrc"
	touch "$tmp/.complete"
	rm -rf "$SID_CHROOT"; mv "$tmp" "$SID_CHROOT"
}

# in_sid CHROOT FXDIR SRCDIR CMD...: CMD in the chroot with FXDIR at /fx and
# SRCDIR at /src (read-only bind mounts in a private mount namespace: they
# vanish with the command, whatever happens to it).
in_sid() {
	unshare --mount --propagation private sh -c '
		c=$1 fx=$2 src=$3; shift 3
		mount --bind "$fx" "$c/fx" && mount -o remount,bind,ro "$c/fx" &&
		mount --bind "$src" "$c/src" && mount -o remount,bind,ro "$c/src" &&
		exec chroot "$c" "$@"' in_sid "$@"
}

# sid_run CHROOT CMD...: CMD in the chroot, the cache bind-mounted at its
# own path (read-write: QEMU and makedumpfile write the dumps there) and
# /proc mounted (without /proc/meminfo makedumpfile's cyclic buffer shrinks
# to nothing and it takes hours), in a private mount namespace that
# vanishes with CMD. The paths a recipe uses are the same inside and out.
sid_run() {
	mkdir -p "$1$CACHE"
	unshare --mount --propagation private sh -c '
		c=$1 cache=$2; shift 2
		mount --bind "$cache" "$c$cache" && mount -t proc proc "$c/proc" &&
		exec chroot "$c" "$@"' sid_run "$1" "$CACHE" "${@:2}"
}
