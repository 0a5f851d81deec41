# shellcheck shell=bash
# The stock73 set's recipe: sourced by make-fixtures.sh (uses its log, step,
# die, hash16, CACHE, PY). Kept in its own file so that editing the 7.3 recipe
# re-keys only the stock73 set, not the 6.12 sets (their hash covers
# make-fixtures.sh, not this file). See README.md, "The stock73 set".
#
# Nothing is installed on the host: the trixie-backports and sid package
# lists live in a private apt state under the cache, the kernel packages are
# downloaded and only the files needed are extracted, and drgn 0.3.0 runs in
# a debootstrapped sid chroot.

STOCK73_SERIES=7.3
# Modules the 7.3 initramfs loads, dependencies first (modinfo closure):
# ext4 needs jbd2, crc16 (kernel/lib/crc/ on 7.x) and mbcache; crc32c is
# built in since 6.14. qemu_fw_cfg first: without it no VMCOREINFO.
STOCK73_MODULES="qemu_fw_cfg ext4 loop"
# The one sid chroot: every tool taken from sid (drgn 0.3.0 for truth,
# QEMU 11 and makedumpfile 1.7.8 for the writers and big sets, crash 9.0.2
# and the libraries our crash extension and Python module load for the
# bridges' tests). One debootstrap (~4 min) instead of one per tool.
SID_INCLUDE=python3-drgn,qemu-system-x86,makedumpfile,crash,libdw1t64,libelf1t64,liblzo2-2,libzstd1,zlib1g,libbpf1
# Refresh the private package lists when they are older than this (seconds).
APT_MAX_AGE=${FX_APT_MAX_AGE:-86400}

# The host's own Debian mirror: the URIs of the first deb822 stanza (in
# /etc/apt/sources.list.d/*.sources) whose suites are not -security ones.
# Read at run time: no mirror is written into this repository.
host_mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk '
			BEGIN { RS = ""; FS = "\n" }
			{
				u = ""; s = ""; en = 1
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
					if ($i ~ /^Suites:/) { s = $i }
					if ($i ~ /^Enabled:[ \t]*no/) { en = 0 }
				}
				if (en && u != "" && s != "" && s !~ /-security/) { print u; exit }
			}' "$f")
		if [ -n "$uri" ]; then
			echo "${uri%/}"
			return 0
		fi
	done
	return 1
}

# apt73 ARGS...: apt-get/apt-cache against the private state in $APT73
# (trixie-backports and sid lists; the host's lists and sources untouched).
apt73_opts() {
	echo "-o Dir::Etc::sourcelist=$APT73/sources.list -o Dir::Etc::sourceparts=- \
-o Dir::State::Lists=$APT73/lists -o Dir::State::status=$APT73/status \
-o Dir::Cache=$APT73/cache -o APT::Architecture=amd64 -o APT::Architectures=amd64 \
-o Debug::NoLocking=1 -o APT::Sandbox::User=root"
}
apt73() { local cmd=$1; shift; # shellcheck disable=SC2046
	"$cmd" $(apt73_opts) "$@"; }

# prepare_apt73: the private apt state, updated when missing or stale.
prepare_apt73() {
	step "private apt state for trixie-backports and sid"
	local mirror age
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	MIRROR=$mirror
	APT73=$CACHE/apt-state
	mkdir -p "$APT73/lists/partial" "$APT73/cache/archives/partial"
	touch "$APT73/status"
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	printf 'deb [signed-by=%s] %s %s main\n' "$key" "$mirror" trixie-backports "$key" "$mirror" sid \
		> "$APT73/sources.list.new"
	if ! cmp -s "$APT73/sources.list.new" "$APT73/sources.list"; then
		mv "$APT73/sources.list.new" "$APT73/sources.list"
		rm -f "$APT73/updated"
	else
		rm -f "$APT73/sources.list.new"
	fi
	age=$APT_MAX_AGE
	if [ -f "$APT73/updated" ]; then
		age=$(( $(date +%s) - $(stat -c %Y "$APT73/updated") ))
	fi
	if [ "$age" -ge "$APT_MAX_AGE" ]; then
		step "apt-get update (private state: trixie-backports, sid)"
		if apt73 apt-get -q update >&2; then
			touch "$APT73/updated"
		elif [ -f "$APT73/updated" ]; then
			# offline with complete caches still builds: the versions the old
			# lists name are what the cache is keyed by
			log "apt-get update failed: using the package lists of $(date -r "$APT73/updated" '+%F %T')"
		else
			die "apt-get update (private state)"
		fi
	else
		log "package lists are ${age}s old (FX_APT_MAX_AGE=$APT_MAX_AGE): not updating"
	fi
}

# suite_versions SUITE PKG...: "PKG VERSION" for each PKG that SUITE has,
# from one apt-cache policy (each apt-cache run costs ~1 s with sid's lists).
suite_versions() {
	local suite=$1; shift
	apt73 apt-cache policy "$@" 2>/dev/null | awk -v suite="$suite" '
		/^[^ ]+:$/ { pkg = substr($0, 1, length($0) - 1); v = ""; next }
		/^ +(\*\*\* )?[^ ]+ -?[0-9]+$/ { sub(/^ *\*\*\* /, ""); v = $1; next }
		v != "" && $0 ~ (" " suite "/") && !(pkg in seen) { seen[pkg] = 1; print pkg, v }'
}

# Newest linux-binary-7.3.*+deb13-amd64 in trixie-backports whose modules
# and -dbg packages have the same version. Prints "release version".
find_stock73_kernel() {
	local names rel vers ver
	names=$(apt73 apt-cache pkgnames "linux-binary-$STOCK73_SERIES." |
		grep -E "^linux-binary-${STOCK73_SERIES//./\\.}\.[0-9]+\+deb13-amd64$" | sort -rV)
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2046
	vers=$(suite_versions trixie-backports $(for n in $names; do
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

# prepare_stock73_kernel -> KDIR (vmlinuz, vmlinux, modules/*.ko,
# modules.list, release, packages), KERNEL_ID
prepare_stock73_kernel() {
	step "find newest stock Debian $STOCK73_SERIES kernel in trixie-backports"
	local rv rel ver h tmp debs bin mods dbg p
	rv=$(find_stock73_kernel) ||
		die "no linux-binary-$STOCK73_SERIES.*+deb13-amd64 with matching linux-modules and -dbg in trixie-backports"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	KERNEL_ID="linux-binary-$rel=$ver linux-modules-$rel=$ver linux-image-$rel-dbg=$ver"
	# v1: the extraction below; bump it when that changes what is extracted
	h=$(printf '%s\n' "$KERNEL_ID modules=$STOCK73_MODULES stock73-kernel-v1" | hash16)
	KDIR=$CACHE/stock73-kernel-$h
	if [ -f "$KDIR/.complete" ]; then
		log "reusing $KDIR"
		return 0
	fi
	debs=$CACHE/debs
	mkdir -p "$debs"
	for p in "linux-binary-$rel" "linux-modules-$rel" "linux-image-$rel-dbg"; do
		if ! ls "$debs/${p}_"*"_amd64.deb" 2>/dev/null | grep -qF "_${ver}_"; then
			step "download $p=$ver"
			(cd "$debs" && apt73 apt-get -q download "$p=$ver") >&2 || die "apt-get download $p=$ver"
		fi
	done
	bin=$(ls "$debs/linux-binary-${rel}_"*"_amd64.deb" | grep -F "_${ver}_" | head -1)
	mods=$(ls "$debs/linux-modules-${rel}_"*"_amd64.deb" | grep -F "_${ver}_" | head -1)
	dbg=$(ls "$debs/linux-image-${rel}-dbg_"*"_amd64.deb" | grep -F "_${ver}_" | head -1)
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules"
	step "extract vmlinux from the -dbg package (only that member)"
	# ./usr/lib/debug/boot/vmlinux-R is a symlink to this file
	dpkg-deb --fsys-tarfile "$dbg" | tar -x -C "$tmp/x" "./usr/lib/debug/lib/modules/$rel/vmlinux" ||
		die "extract vmlinux from $dbg"
	mv "$tmp/x/usr/lib/debug/lib/modules/$rel/vmlinux" "$tmp/vmlinux"
	step "extract vmlinuz from linux-binary"
	dpkg-deb --fsys-tarfile "$bin" | tar -x -C "$tmp/x" "./usr/lib/modules/$rel/vmlinuz" ||
		die "extract vmlinuz from $bin"
	mv "$tmp/x/usr/lib/modules/$rel/vmlinuz" "$tmp/vmlinuz"
	step "extract the modules the guest needs from linux-modules"
	# The package has no modules.dep (made at install): unpack every module
	# once (~15 s; 13 s is the decompression of the .deb, which a pass per
	# module would pay each time), follow modinfo's depends, keep those.
	dpkg-deb --fsys-tarfile "$mods" | tar -x -C "$tmp/x" --wildcards "./usr/lib/modules/$rel/kernel/*" ||
		die "extract the modules from $mods"
	local order="" m
	add_module73() {   # depth-first: dependencies before the module
		local name=$1 file deps d
		case " $order " in *" $name "*) return 0 ;; esac
		file=$(find "$tmp/x/usr/lib/modules/$rel/kernel" \( -name "$name.ko" -o -name "$name.ko.xz" -o -name "$name.ko.zst" \) | head -1)
		[ -n "$file" ] || die "module $name not in $mods"
		deps=$(modinfo -F depends "$file" | tr ',' ' ')
		for d in $deps; do add_module73 "$d"; done
		case "$file" in
		*.xz) xz -dc "$file" > "$tmp/modules/$name.ko" ;;
		*.zst) zstd -qdc "$file" > "$tmp/modules/$name.ko" ;;
		*) cp "$file" "$tmp/modules/$name.ko" ;;
		esac
		order="$order $name"
	}
	for m in $STOCK73_MODULES; do add_module73 "$m"; done
	echo "$order" | sed 's/^ //' > "$tmp/modules.list"
	echo "$rel" > "$tmp/release"
	echo "$KERNEL_ID" > "$tmp/packages"
	rm -rf "$tmp/x"
	touch "$tmp/.complete"
	rm -rf "$KDIR"; mv "$tmp" "$KDIR"
	log "kernel cached in $KDIR (modules: $(cat "$KDIR/modules.list"))"
}

# prepare_sid_chroot -> SID_CHROOT (a debootstrapped sid holding the
# comma-separated packages $SID_INCLUDE), SID_ID (what it holds). Keyed by
# debootstrap's version, the variant, the included packages and the
# versions sid has of them and of python3; the chroot is made once per key
# (~4 min) and shared by every set and test after.
prepare_sid_chroot() {
	step "sid chroot (debootstrap --variant=minbase --include=$SID_INCLUDE)"
	local v h tmp p
	command -v debootstrap >/dev/null || {
		[ "$(id -u)" = 0 ] || die "debootstrap is missing (apt-get install debootstrap)"
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
	if [ -f "$SID_CHROOT/.complete" ]; then
		log "reusing $SID_CHROOT ($SID_ID)"
		return 0
	fi
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
