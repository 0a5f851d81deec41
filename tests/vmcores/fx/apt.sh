# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, kernels from Debian packages: the private apt state
# (trixie-backports and sid lists under the cache; the host's lists and
# sources untouched), the stock 6.12 kernel (the host's apt) and the stock
# 7.3 kernel (the private state), each reduced to vmlinuz, the -dbg vmlinux
# and the modules the guest loads with their modinfo closure.

# Modules the stock 6.12 initramfs loads (dependencies are added first).
STOCK_MODULES="qemu_fw_cfg crc32c_generic ext4 loop"
STOCK73_SERIES=7.3
# Modules the 7.3 initramfs loads, dependencies first (modinfo closure):
# ext4 needs jbd2, crc16 (kernel/lib/crc/ on 7.x) and mbcache; crc32c is
# built in since 6.14. qemu_fw_cfg first: without it no VMCOREINFO.
STOCK73_MODULES="qemu_fw_cfg ext4 loop"
# Refresh the private package lists when they are older than this (seconds).
APT_MAX_AGE=${FX_APT_MAX_AGE:-86400}

# The host's own Debian mirror: the URIs of the first deb822 stanza (in
# /etc/apt/sources.list.d/*.sources) whose suites are not -security ones;
# with "security", of the first whose suites are. Read at run time: no
# mirror is written into this repository.
host_mirror() {
	local f uri want=${1:-main}
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk -v want="$want" '
			BEGIN { RS = ""; FS = "\n" }
			{
				u = ""; s = ""; en = 1
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
					if ($i ~ /^Suites:/) { s = $i }
					if ($i ~ /^Enabled:[ \t]*no/) { en = 0 }
				}
				sec = s ~ /-security/
				if (en && u != "" && s != "" && sec == (want == "security")) { print u; exit }
			}' "$f")
		if [ -n "$uri" ]; then
			echo "${uri%/}"
			return 0
		fi
	done
	return 1
}

# apt73 ARGS...: apt-get/apt-cache against the private state in $APT73
# (trixie-backports and sid lists; the host's lists and sources untouched),
# for the architecture $APT_ARCH (default amd64; the arm64 states of
# fx/arm64.sh set arm64: never `dpkg --add-architecture` on the host).
apt73_opts() {
	local arch=${APT_ARCH:-amd64}
	echo "-o Dir::Etc::sourcelist=$APT73/sources.list -o Dir::Etc::sourceparts=- \
-o Dir::State::Lists=$APT73/lists -o Dir::State::status=$APT73/status \
-o Dir::Cache=$APT73/cache -o APT::Architecture=$arch -o APT::Architectures=$arch \
-o Debug::NoLocking=1 -o APT::Sandbox::User=root"
}
apt73() { local cmd=$1; shift; # shellcheck disable=SC2046
	"$cmd" $(apt73_opts) "$@"; }

# prepare_apt73: the private apt state, updated when missing or stale (key
# mode: used as it is, never updated).
prepare_apt73() {
	step "private apt state for trixie-backports and sid"
	local mirror key=/usr/share/keyrings/debian-archive-keyring.gpg
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	MIRROR=$mirror
	APT73=$CACHE/apt-state
	fx_apt_state "$APT73" "trixie-backports, sid" \
		"$(printf 'deb [signed-by=%s] %s %s main\n' "$key" "$mirror" trixie-backports "$key" "$mirror" sid)"
}

# fx_apt_state DIR WHAT SOURCES: a private apt state in DIR (sources.list
# SOURCES, lists, cache, an empty status) for apt73 with APT73=DIR, updated
# when missing, stale or its sources changed (key mode: used as it is).
fx_apt_state() {
	local APT73=$1 what=$2 sources=$3 age
	if [ -n "${FX_KEY_ONLY:-}" ]; then
		[ -f "$APT73/updated" ] || die "no private apt state in $APT73 (a build makes it)"
		return 0
	fi
	mkdir -p "$APT73/lists/partial" "$APT73/cache/archives/partial"
	touch "$APT73/status"
	printf '%s\n' "$sources" > "$APT73/sources.list.new"
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
		step "apt-get update (private state: $what)"
		if apt73 apt-get -q update >&2; then
			touch "$APT73/updated"
		elif [ -f "$APT73/updated" ]; then
			# offline with complete caches still builds: the versions the old
			# lists name are what the cache is keyed by
			log "apt-get update failed: using the package lists of $(date -r "$APT73/updated" '+%F %T')"
		else
			die "apt-get update (private state: $what)"
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

# fx_deb PKG VER [APT]: the .deb of PKG=VER in $CACHE/debs (downloaded
# there first when missing, with APT: apt73 or nothing for the host's),
# for the architecture FX_DEB_ARCH (default amd64; fx_deb_arm64) or all:
# bookworm's busybox-static or makedumpfile has the same version on both.
fx_deb() {
	local pkg=$1 ver=$2 apt=${3:-} fver arch=${FX_DEB_ARCH:-amd64}
	fver=${ver//:/%3a}   # an epoch's colon is %3a in the file name
	if ! ls "$CACHE/debs/${pkg}_"*.deb 2>/dev/null | grep -qF -e "_${fver}_$arch.deb" -e "_${fver}_all.deb"; then
		step "download $pkg=$ver ($arch)"
		(cd "$CACHE/debs" && $apt apt-get -q download "$pkg=$ver") >&2 || die "apt-get download $pkg=$ver"
	fi
	ls "$CACHE/debs/${pkg}_"*.deb | grep -F -e "_${fver}_$arch.deb" -e "_${fver}_all.deb" | head -1
}

# fx_modules MODDIR DEST MODULE...: each MODULE found under MODDIR, depth
# first (modinfo's depends before the module), decompressed into DEST/;
# DEST/../modules.list gets the load order.
fx_modules() {
	local mdir=$1 dest=$2 order="" m
	shift 2
	add_module() {
		local name=$1 file deps d
		case " $order " in *" $name "*) return 0 ;; esac
		file=$(find "$mdir" \( -name "$name.ko" -o -name "$name.ko.xz" -o -name "$name.ko.zst" \) | head -1)
		[ -n "$file" ] || die "module $name not in $mdir"
		deps=$(modinfo -F depends "$file" | tr ',' ' ')
		for d in $deps; do add_module "$d"; done
		case "$file" in
		*.xz) xz -dc "$file" > "$dest/$name.ko" ;;
		*.zst) zstd -qdc "$file" > "$dest/$name.ko" ;;
		*) cp "$file" "$dest/$name.ko" ;;
		esac
		order="$order $name"
	}
	for m in "$@"; do add_module "$m"; done
	echo "$order" | sed 's/^ //' > "$dest/../modules.list"
}

# fx_deb_member DEB MEMBER OUT: the one file MEMBER of DEB (unpacked in
# OUT's directory's x/) as OUT, without unpacking the rest
fx_deb_member() {
	local x
	x=$(dirname "$3")/x
	dpkg-deb --fsys-tarfile "$1" | tar -x -C "$x" "./$2" || die "extract $2 from $1"
	mv "$x/$2" "$3"
}

# fx_kernel_done TMP: the extracted kernel's release and packages files,
# then TMP becomes KDIR (complete).
fx_kernel_done() {
	local tmp=$1 rel=$2
	echo "$rel" > "$tmp/release"
	echo "$KERNEL_ID" > "$tmp/packages"
	rm -rf "$tmp/x"
	touch "$tmp/.complete"
	rm -rf "$KDIR"; mv "$tmp" "$KDIR"
	log "kernel cached in $KDIR (modules: $(cat "$KDIR/modules.list"))"
}

# ---------------------------------------------------------------- stock 6.12
# Newest linux-image-6.12.*+deb12-amd64-unsigned with an installable candidate
# and a -dbg of the same version. Prints "release version".
find_stock_kernel() {
	local name rel ver dver
	for name in $(apt-cache pkgnames linux-image-6.12. |
		grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' | sort -rV); do
		rel=${name#linux-image-}; rel=${rel%-unsigned}
		ver=$(apt-cache policy "$name" | awk '/Candidate:/ { print $2 }')
		dver=$(apt-cache policy "linux-image-$rel-dbg" | awk '/Candidate:/ { print $2 }')
		if [ -n "$ver" ] && [ "$ver" != "(none)" ] && [ "$ver" = "$dver" ]; then
			echo "$rel $ver"
			return 0
		fi
	done
	return 1
}

# prepare_stock_kernel -> KDIR (vmlinuz, vmlinux, modules/*.ko, release,
# modules.list, packages), KERNEL_ID
prepare_stock_kernel() {
	step "find newest stock Debian 6.12 kernel"
	local rv rel ver img dbg h tmp
	rv=$(find_stock_kernel) || die "no linux-image-6.12.*+deb12-amd64-unsigned with a matching -dbg in apt-cache (apt-get update?)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	h=$(printf '%s\n' "unsigned=$ver dbg=$ver rel=$rel modules=$STOCK_MODULES v2" | hash16)
	KDIR=$CACHE/stock-kernel-$h
	KERNEL_ID="linux-image-$rel-unsigned=$ver linux-image-$rel-dbg=$ver"
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	img=$(fx_deb "linux-image-$rel-unsigned" "$ver")
	dbg=$(fx_deb "linux-image-$rel-dbg" "$ver")
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules"
	step "extract vmlinux-$rel from the -dbg package (only that member; ~90 s)"
	fx_deb_member "$dbg" "usr/lib/debug/boot/vmlinux-$rel" "$tmp/vmlinux"
	step "extract kernel and modules from the unsigned image package"
	dpkg-deb -x "$img" "$tmp/x" || die "dpkg-deb -x $img"
	cp "$tmp/x/boot/vmlinuz-$rel" "$tmp/vmlinuz"
	fx_modules "$tmp/x/lib/modules/$rel/kernel" "$tmp/modules" $STOCK_MODULES
	fx_kernel_done "$tmp" "$rel"
}

# ---------------------------------------------------------------- stock 7.3
# 7.x's package split: linux-binary-R (the kernel), linux-modules-R,
# linux-image-R-dbg. fx_split_pkgs NAME...: for each linux-binary-R, the
# three package names (for one apt-cache policy). fx_split_matches NAMES
# VERS: each linux-binary-R of NAMES (in their order) whose linux-modules-R
# and linux-image-R-dbg have its version in VERS ("PKG VERSION" lines):
# "release version" lines. fx_first: the first line, failing when none.
fx_split_pkgs() {
	local n
	for n in "$@"; do echo "$n linux-modules-${n#linux-binary-} linux-image-${n#linux-binary-}-dbg"; done
}
fx_split_matches() {
	local n rel ver
	for n in $1; do
		rel=${n#linux-binary-}
		ver=$(printf '%s\n' "$2" | awk -v p="$n" '$1 == p { print $2 }')
		if [ -n "$ver" ] &&
			printf '%s\n' "$2" | grep -qxF "linux-modules-$rel $ver" &&
			printf '%s\n' "$2" | grep -qxF "linux-image-$rel-dbg $ver"; then
			echo "$rel $ver"
		fi
	done
}
fx_first() { awk 'NR == 1 { print; f = 1 } END { exit !f }'; }

# Newest linux-binary-7.3.*+deb13-amd64 in trixie-backports whose modules
# and -dbg packages have the same version. Prints "release version".
find_stock73_kernel() {
	local names
	names=$(apt73 apt-cache pkgnames "linux-binary-$STOCK73_SERIES." |
		grep -E "^linux-binary-${STOCK73_SERIES//./\\.}\.[0-9]+\+deb13-amd64$" | sort -rV)
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2046,SC2086
	fx_split_matches "$names" "$(suite_versions trixie-backports $(fx_split_pkgs $names))" | fx_first
}

# prepare_stock73_kernel (after prepare_apt73) -> KDIR (vmlinuz, vmlinux,
# modules/*.ko, modules.list, release, packages), KERNEL_ID
prepare_stock73_kernel() {
	step "find newest stock Debian $STOCK73_SERIES kernel in trixie-backports"
	local rv rel ver h tmp bin mods dbg
	rv=$(find_stock73_kernel) ||
		die "no linux-binary-$STOCK73_SERIES.*+deb13-amd64 with matching linux-modules and -dbg in trixie-backports"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	KERNEL_ID="linux-binary-$rel=$ver linux-modules-$rel=$ver linux-image-$rel-dbg=$ver"
	# v1: the extraction below; bump it when that changes what is extracted
	h=$(printf '%s\n' "$KERNEL_ID modules=$STOCK73_MODULES stock73-kernel-v1" | hash16)
	KDIR=$CACHE/stock73-kernel-$h
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	bin=$(fx_deb "linux-binary-$rel" "$ver" apt73)
	mods=$(fx_deb "linux-modules-$rel" "$ver" apt73)
	dbg=$(fx_deb "linux-image-$rel-dbg" "$ver" apt73)
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules"
	step "extract vmlinux from the -dbg package (only that member)"
	# ./usr/lib/debug/boot/vmlinux-R is a symlink to this file
	fx_deb_member "$dbg" "usr/lib/debug/lib/modules/$rel/vmlinux" "$tmp/vmlinux"
	step "extract vmlinuz from linux-binary"
	fx_deb_member "$bin" "usr/lib/modules/$rel/vmlinuz" "$tmp/vmlinuz"
	step "extract the modules the guest needs from linux-modules"
	# The package has no modules.dep (made at install): unpack every module
	# once (~15 s; 13 s is the decompression of the .deb, which a pass per
	# module would pay each time), follow modinfo's depends, keep those.
	dpkg-deb --fsys-tarfile "$mods" | tar -x -C "$tmp/x" --wildcards "./usr/lib/modules/$rel/kernel/*" ||
		die "extract the modules from $mods"
	fx_modules "$tmp/x/usr/lib/modules/$rel/kernel" "$tmp/modules" $STOCK73_MODULES
	fx_kernel_done "$tmp" "$rel"
}

# ---------------------------------------------------------------- stock 5.10
# Debian 11's stock kernel: bullseye and bullseye-security through a
# private apt state of their own (the host stays Debian 12). The image
# package is linux-image-5.10.0-N-amd64-unsigned (vmlinuz in boot/, plain
# .ko modules), its DWARF in linux-image-5.10.0-N-amd64-dbg.
OLD510_SERIES=5.10
OLD510_MODULES="qemu_fw_cfg crc32c_generic ext4 loop"

# apt510 ARGS...: apt73 against the bullseye state in $APT510
apt510() { local APT73=$APT510; apt73 "$@"; }

# prepare_apt510 -> APT510: bullseye (the host's mirror) and
# bullseye-security (the host's security mirror), both read at run time
prepare_apt510() {
	step "private apt state for bullseye and bullseye-security"
	local mirror sec key=/usr/share/keyrings/debian-archive-keyring.gpg
	mirror=$(host_mirror) || die "no Debian mirror in /etc/apt/sources.list.d/*.sources"
	sec=$(host_mirror security) || die "no Debian security mirror in /etc/apt/sources.list.d/*.sources"
	APT510=$CACHE/apt-state-bullseye
	fx_apt_state "$APT510" "bullseye, bullseye-security" \
		"$(printf 'deb [signed-by=%s] %s %s main\n' "$key" "$mirror" bullseye "$key" "$sec" bullseye-security)"
}

# fx_find_image_dbg APT SERIES FLAVOUR [SUFFIX]: the newest
# linux-image-SERIES.0-N-FLAVOUR-unsigned (SUFFIX: -unsigned, or nothing:
# s390x has no signed images) whose -dbg has the same candidate version
# (APT: apt510, apt_arm64...). Prints "release version".
fx_find_image_dbg() {
	local apt=$1 series=$2 flavour=$3 suffix=${4--unsigned} names n rel vers ver
	names=$($apt apt-cache pkgnames "linux-image-$series." |
		grep -E "^linux-image-${series//./\\.}\.0-[0-9]+-$flavour$suffix\$" | sort -rV)
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2046
	vers=$($apt apt-cache policy $(for n in $names; do
		rel=${n#linux-image-}; rel=${rel%"$suffix"}; echo "$n linux-image-$rel-dbg"; done) 2>/dev/null |
		awk '/^[^ ]+:$/ { pkg = substr($0, 1, length($0) - 1) }
			/^ +Candidate:/ && $2 != "(none)" { print pkg, $2 }')
	for n in $names; do
		rel=${n#linux-image-}; rel=${rel%"$suffix"}
		ver=$(printf '%s\n' "$vers" | awk -v p="$n" '$1 == p { print $2 }')
		if [ -n "$ver" ] && printf '%s\n' "$vers" | grep -qxF "linux-image-$rel-dbg $ver"; then
			echo "$rel $ver"
			return 0
		fi
	done
	return 1
}
find_old510_kernel() { fx_find_image_dbg apt510 "$OLD510_SERIES" amd64; }

# prepare_old510_kernel (after prepare_apt510) -> KDIR (vmlinuz, vmlinux,
# modules/*.ko, modules.list, config, release, packages), KERNEL_ID
prepare_old510_kernel() {
	step "find newest stock Debian $OLD510_SERIES kernel in bullseye(-security)"
	local rv rel ver h tmp img dbg
	rv=$(find_old510_kernel) ||
		die "no linux-image-$OLD510_SERIES.0-*-amd64-unsigned with a matching -dbg in bullseye(-security)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	KERNEL_ID="linux-image-$rel-unsigned=$ver linux-image-$rel-dbg=$ver"
	# v1: the extraction below; bump it when that changes what is extracted
	h=$(printf '%s\n' "$KERNEL_ID modules=$OLD510_MODULES old510-kernel-v1" | hash16)
	KDIR=$CACHE/old510-kernel-$h
	! fx_cached "$KDIR" || return 0
	mkdir -p "$CACHE/debs"
	img=$(fx_deb "linux-image-$rel-unsigned" "$ver" apt510)
	dbg=$(fx_deb "linux-image-$rel-dbg" "$ver" apt510)
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules"
	step "extract vmlinux-$rel from the -dbg package (only that member)"
	fx_deb_member "$dbg" "usr/lib/debug/boot/vmlinux-$rel" "$tmp/vmlinux"
	step "extract kernel, config and modules from the unsigned image package"
	dpkg-deb -x "$img" "$tmp/x" || die "dpkg-deb -x $img"
	cp "$tmp/x/boot/vmlinuz-$rel" "$tmp/vmlinuz"
	cp "$tmp/x/boot/config-$rel" "$tmp/config"
	fx_modules "$tmp/x/lib/modules/$rel/kernel" "$tmp/modules" $OLD510_MODULES
	fx_kernel_done "$tmp" "$rel"
}

# ---------------------------------------------------------------- userspace from .debs
# A guest's dynamically linked programs, from the host's own suite
# (bookworm: the host is Debian 12) without installing them on the host:
# each package's candidate .deb (fx_deb, cached in $CACHE/debs) unpacked
# into a sysroot, the programs and the shared libraries they need (ELF
# NEEDED, closed over, found in the sysroot only) copied into the guest.

# fx_debs_candidates PKG...: "PKG=VERSION" (the host apt's candidate) for
# each PKG, one a line, for a key (`call:`); fails when one has none
fx_debs_candidates() {
	local out
	out=$(apt-cache policy "$@" 2>/dev/null | awk '
		/^[^ ]+:$/ { pkg = substr($0, 1, length($0) - 1) }
		/^ +Candidate:/ && $2 != "(none)" { print pkg "=" $2 }')
	[ "$(printf '%s\n' "$out" | grep -c .)" -eq "$#" ] ||
		die "no candidate for some of: $* (apt-get update?); have: $out"
	printf '%s\n' "$out"
}

# fx_deb_sysroot DIR PKG...: each PKG's candidate .deb unpacked into DIR
fx_deb_sysroot() {
	local dir=$1 pv deb
	shift
	mkdir -p "$dir" "$CACHE/debs"
	for pv in $(fx_debs_candidates "$@"); do
		deb=$(fx_deb "${pv%%=*}" "${pv#*=}")
		dpkg-deb -x "$deb" "$dir" || die "dpkg-deb -x $deb"
	done
}

# fx_sys_path SYSROOT PATH: PATH's file in SYSROOT, its symlinks followed
# inside SYSROOT (libc6's /lib64/ld-linux-x86-64.so.2 is an absolute link:
# cp -L would take the host's)
fx_sys_path() {
	local sys=$1 p=$2 t n=0
	while [ -L "$sys$p" ] && [ "$n" -lt 20 ]; do
		t=$(readlink "$sys$p")
		case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
		n=$((n + 1))
	done
	echo "$sys$p"
}

# fx_needed_closure SYSROOT TRIPLET DEST FILE...: the shared libraries
# each FILE needs (its ELF NEEDED), transitively, from SYSROOT's
# lib/TRIPLET or usr/lib/TRIPLET into DEST, but for those named in the
# caller's done_libs (which this extends). A library not in SYSROOT fails.
fx_needed_closure() {
	local sys=$1 triplet=$2 dest=$3 todo f lib src d
	shift 3
	todo="$*"
	while [ -n "${todo// /}" ]; do
		# shellcheck disable=SC2086
		set -- $todo
		todo=""
		for f in "$@"; do
			for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
				case " $done_libs " in *" $lib "*) continue ;; esac
				src=""
				for d in lib/$triplet usr/lib/$triplet; do
					[ -e "$sys/$d/$lib" ] || continue
					src=$(fx_sys_path "$sys" "/$d/$lib")
					break
				done
				[ -n "$src" ] || die "$lib (needed by ${f#"$sys"}) is in none of the unpacked packages"
				[ -f "$src" ] || die "$lib: a dangling link in the unpacked packages"
				cp "$src" "$dest/$lib"
				done_libs="$done_libs $lib"
				todo="$todo $src"
			done
		done
	done
}

# fx_elf_closure SYSROOT ROOT FILE...: each FILE (a path inside SYSROOT,
# e.g. /usr/sbin/rpc.mountd) into ROOT at the same path, with the shared
# libraries it needs, transitively, into ROOT/lib/x86_64-linux-gnu (where
# Debian's loader looks without ld.so.cache) and the loader as
# ROOT/lib64/ld-linux-x86-64.so.2. A library not in SYSROOT fails.
fx_elf_closure() {
	local sys=$1 root=$2 f src todo done_libs="" files
	shift 2
	files="$*"
	mkdir -p "$root/lib/x86_64-linux-gnu" "$root/lib64"
	todo=""
	for f in "$@"; do
		src=$(fx_sys_path "$sys" "$f")
		[ -f "$src" ] || die "$f is in none of the unpacked packages"
		mkdir -p "$root$(dirname "$f")"
		cp "$src" "$root$f"
		todo="$todo $src"
	done
	src=$(fx_sys_path "$sys" /lib64/ld-linux-x86-64.so.2)
	[ -f "$src" ] || die "no loader in the unpacked libc6"
	cp "$src" "$root/lib64/ld-linux-x86-64.so.2"
	# shellcheck disable=SC2086
	fx_needed_closure "$sys" x86_64-linux-gnu "$root/lib/x86_64-linux-gnu" $todo
	log "userspace from .debs: $files with${done_libs}"
}
