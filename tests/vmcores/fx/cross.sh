# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, this tree's vmcore-inode for another architecture's
# guest (the arm64-live and s390x-live sets run `--live` inside it):
# cross-built with Debian 12's gcc-TRIPLET against a sysroot of bookworm's
# -dev packages of that architecture (unpacked from a private apt state,
# nothing installed), copied into the initramfs with its libraries.

# What the cross build needs of the architecture.
FX_CROSS_DEV_DEBS="libc6-dev libkdumpfile-dev libdw-dev libelf-dev zlib1g-dev libdeflate-dev liblzo2-dev
libzstd-dev libbpf-dev libdebuginfod-dev"
# what the build reads: the library, the command, the build files
FX_CROSS_VI_SOURCES="meson.build meson_options.txt include lib tools"

# fx_cross_sysroot ARCH APT PREFIX -> CROSS_SYSROOT ($CACHE/PREFIX-HASH:
# FX_CROSS_DEV_DEBS as APT resolves them, unpacked), CROSS_SYSROOT_ID
fx_cross_sysroot() {
	local arch=$1 apt=$2 prefix=$3 dir d
	step "$arch sysroot of bookworm's -dev packages (cross build)"
	# shellcheck disable=SC2086
	CROSS_SYSROOT_ID=$($apt apt-get -s -q install --no-install-recommends $FX_CROSS_DEV_DEBS 2>/dev/null |
		awk '/^Inst / { v = $3; gsub(/[()]/, "", v); print $2 "=" v }' | sort | tr '\n' ' ')
	[ -n "$CROSS_SYSROOT_ID" ] || die "apt cannot resolve $FX_CROSS_DEV_DEBS for $arch"
	dir=$CACHE/$prefix-$(printf '%s\n' "$CROSS_SYSROOT_ID" | hash16)
	CROSS_SYSROOT=$dir
	! fx_cached "$dir" || return 0
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp/debs/partial"
	# shellcheck disable=SC2086
	$apt apt-get -q -y install --download-only --no-install-recommends \
		-o Dir::Cache::archives="$dir.tmp/debs" $FX_CROSS_DEV_DEBS >&2 || die "download the $arch -dev packages"
	for d in "$dir.tmp/debs"/*.deb; do dpkg-deb -x "$d" "$dir.tmp" || die "dpkg-deb -x $d"; done
	rm -rf "$dir.tmp/debs"
	printf '%s\n' "$CROSS_SYSROOT_ID" > "$dir.tmp/packages"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
}

# fx_cross_vi_sums: the sources' digests (FX_CROSS_VI_SOURCES, from the tree)
fx_cross_vi_sums() {
	# shellcheck disable=SC2086
	(cd "$HERE/../.." && find $FX_CROSS_VI_SOURCES -type f | LC_ALL=C sort | xargs sha256sum)
}

# fx_cross_vmcore_inode PREFIX TRIPLET CPU-FAMILY ENDIAN (after
# fx_cross_sysroot) -> CROSS_VI (the build directory: vmcore-inode,
# libinodedump.so.0), CROSS_VI_ID: gcc-TRIPLET's version, the sysroot's
# packages and the sources' digests, in $CACHE/PREFIX-HASH
fx_cross_vmcore_inode() {
	local prefix=$1 triplet=$2 family=$3 endian=$4 dir src=$HERE/../.. gcc
	step "vmcore-inode for $family (cross build of this tree)"
	gcc=gcc-${triplet//_/-}
	command -v "$triplet-gcc" >/dev/null || die "no $triplet-gcc (apt-get install $gcc)"
	CROSS_VI_ID="gcc=$(dpkg-query -W -f='${Version}' "$gcc") sysroot=$CROSS_SYSROOT_ID sources=$(fx_cross_vi_sums | hash16)"
	dir=$CACHE/$prefix-$(printf '%s\n' "$CROSS_VI_ID" | hash16)
	CROSS_VI=$dir/build
	! fx_cached "$dir" || return 0
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
	cat > "$dir.tmp/cross.txt" <<-CROSS
		[binaries]
		c = '$triplet-gcc'
		ar = '$triplet-ar'
		strip = '$triplet-strip'
		pkgconfig = 'pkg-config'
		[built-in options]
		c_args = ['--sysroot=$CROSS_SYSROOT']
		c_link_args = ['--sysroot=$CROSS_SYSROOT']
		[properties]
		sys_root = '$CROSS_SYSROOT'
		pkg_config_libdir = '$CROSS_SYSROOT/usr/lib/$triplet/pkgconfig:$CROSS_SYSROOT/usr/share/pkgconfig'
		[host_machine]
		system = 'linux'
		cpu_family = '$family'
		cpu = '$family'
		endian = '$endian'
	CROSS
	meson setup "$dir.tmp/build" "$src" --cross-file "$dir.tmp/cross.txt" -Dstatic_cli=disabled \
		-Dpython_module=disabled -Dcrash_extension=disabled > "$dir.tmp/setup.log" 2>&1 ||
		{ tail -20 "$dir.tmp/setup.log" >&2; die "meson setup (cross, $family)"; }
	ninja -C "$dir.tmp/build" -j2 vmcore-inode > "$dir.tmp/build.log" 2>&1 ||
		{ tail -30 "$dir.tmp/build.log" >&2; die "ninja vmcore-inode (cross, $family)"; }
	printf '%s\n' "$CROSS_VI_ID" > "$dir.tmp/inputs.txt"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
	CROSS_VI=$dir/build
}

# fx_cross_live_files ROOT SYSROOT VI TRIPLET LOADER: VI's vmcore-inode in
# ROOT/live/, its libraries (NEEDED, closed over, and what it dlopen()s:
# libkdumpfile, libbpf) from SYSROOT in ROOT/live/lib, the loader at its
# PT_INTERP path LOADER (/lib/ld-linux-aarch64.so.1, /lib/ld64.so.1)
fx_cross_live_files() {
	local root=$1 sys=$2 vi=$3 triplet=$4 loader=$5 todo lib src done_libs=""
	mkdir -p "$root/live/lib" "$root/$(dirname "$loader")"
	cp "$vi/vmcore-inode" "$root/live/vmcore-inode"
	cp -L "$vi/libinodedump.so.0" "$root/live/lib/libinodedump.so.0"
	cp -L "$(fx_sys_path "$sys" "$loader")" "$root$loader"
	todo="$root/live/vmcore-inode $root/live/lib/libinodedump.so.0"
	for lib in libkdumpfile.so.10 libbpf.so.1; do
		src=$(fx_sys_path "$sys" "/usr/lib/$triplet/$lib")
		[ -f "$src" ] || die "$lib not in the $triplet sysroot"
		cp "$src" "$root/live/lib/$lib"
		done_libs="$done_libs $lib"
		todo="$todo $src"
	done
	done_libs="$done_libs libinodedump.so.0 ${loader##*/}"
	# shellcheck disable=SC2086
	fx_needed_closure "$sys" "$triplet" "$root/live/lib" $todo
	log "$triplet vmcore-inode with${done_libs}"
}

# fx_cross_live_init ROOT TTY SETUP RUN...: ROOT/init of a guest that runs
# the live vmcore-inode (fx_cross_live_files): ROOT/init (the stock
# guest's init.sh, which fx_stock_content put there) becomes ROOT/init.sh,
# started in the background with a FIFO as its /dev/ttyS1 after SETUP's
# shell lines; the new /init reads the host's commands on /dev/TTY:
# "live ADDR..." runs each RUN ("NAME OPTIONS...": /live/vmcore-inode
# OPTIONS, $args the addresses), its stdout, stderr and exit code framed
# on the console (inodedump-live-begin name=NAME, ...-stderr, ...-end
# name=NAME rc=N; tests/test_arm64_live.py reads them), then
# "inodedump-live: done"; "panic" goes on to init.sh. Its files go to /
# (the initramfs), never to a filesystem whose inodes are counted. /dev
# stays mounted (init.sh mounts the same devtmpfs again): a job in the
# background opens /dev/null.
fx_cross_live_init() {
	local root=$1 tty=$2 setup=$3 run
	shift 3
	mv "$root/init" "$root/init.sh"
	{
		echo '#!/bin/busybox sh'
		echo '/bin/busybox mkdir -p /dev && /bin/busybox mount -t devtmpfs devtmpfs /dev &&'
		echo '	/bin/busybox mkfifo /dev/ttyS1'
		[ -z "$setup" ] || printf '%s\n' "$setup"
		echo "TTY=/dev/$tty"
		cat <<-'INIT'
			/bin/busybox sh /init.sh &
			export PATH=/bin:/sbin HOME=/ LD_LIBRARY_PATH=/live/lib INODEDUMP_NO_CACHE=1
			while [ ! -e /proc/self ] || [ ! -e /bin/stty ] || [ ! -e "$TTY" ]; do /bin/busybox sleep 0.2; done
			live_run() {
				name=$1; shift
				"$@" > /live.out 2> /live.err
				rc=$?
				echo "inodedump-live-begin name=$name"
				cat /live.out; echo
				echo "inodedump-live-stderr name=$name"
				cat /live.err; echo
				echo "inodedump-live-end name=$name rc=$rc"
			}
			while :; do
				stty -F "$TTY" -echo 2>/dev/null
				read -r cmd args < "$TTY" || { sleep 1; continue; }
				case $cmd in
				live)
		INIT
		for run in "$@"; do
			printf '\t\tlive_run %s /live/vmcore-inode %s\n' "${run%% *}" "${run#* }"
		done
		cat <<-'INIT'
					echo "inodedump-live: done" ;;
				panic) echo panic > /dev/ttyS1 ;;
				esac
			done
		INIT
	} > "$root/init"
	chmod 755 "$root/init"
}

# fx_cross_live_runs TIMEOUT (the guest ready, truth.txt written): the
# truth's addresses sent to the guest's /init (fx_cross_live_init), its
# runs waited for (TIMEOUT s), the guest quit
fx_cross_live_runs() {
	local t addrs
	addrs=$(sed -n 's/^addr=\([0-9a-f]*\) .*/\1/p' "$OUT/truth.txt" | tr '\n' ' ')
	step "vmcore-inode --live in the guest"
	t=$(now)
	fx_ctl "live $addrs"
	wait_serial "$OUT/serial.log" 'inodedump-live: done' "$1" "the guest's live runs"
	TIMINGS="${TIMINGS}live_runs_s=$(elapsed "$t")\n"
	quit_guest "$T_BOOT"
	chmod 0644 "$OUT"/*.vmcore
}
