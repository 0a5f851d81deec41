#!/bin/bash
# Build (or reuse) the inodedump vmcore fixture sets. See README.md and CONTRACT.md.
#
#   tests/vmcores/make-fixtures.sh [patched|stock|all]     (default: all)
#
# Every set lives in ${INODEDUMP_CACHE:-$HOME/.cache/inodedump}/fixtures-<set>-<hash>
# (hash of every input), with `.complete` written last; a complete set is
# reused. tests/vmcores/out/<set> is a symlink to it. Progress on stderr; the
# last stdout line of a successful run is the last set's directory.
#
# Environment: INODEDUMP_CACHE (cache root), FX_BOOT_TIMEOUT (seconds to wait
# for the guest's ready marker, default 600), FX_KEEP_WORK=1 (keep .work/).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${INODEDUMP_CACHE:-$HOME/.cache/inodedump}
BOOT_TIMEOUT=${FX_BOOT_TIMEOUT:-600}
PY=/usr/bin/python3          # Debian's python3 (has drgn); PATH's python3 may not
SET=-
STEP=start
QEMU_PID=

log() { printf 'make-fixtures: [%s] %s\n' "$SET" "$*" >&2; }
step() { STEP=$1; log "== $STEP"; }
die() { printf 'make-fixtures: [%s] FAILED in step "%s": %s\n' "$SET" "$STEP" "$*" >&2; exit 1; }
on_err() {
	local rc=$?
	printf 'make-fixtures: [%s] FAILED in step "%s" (exit %s, line %s)\n' "$SET" "$STEP" "$rc" "${BASH_LINENO[0]}" >&2
	exit "$rc"
}
trap on_err ERR
cleanup() {
	if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill "$QEMU_PID" 2>/dev/null || true
	fi
}
trap cleanup EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------- packages
# Debian packages the recipe uses (binary they provide, for the check).
PACKAGES="qemu-system-x86:qemu-system-x86_64 busybox-static:busybox makedumpfile:makedumpfile
python3-drgn: e2fsprogs:mkfs.ext4 cpio:cpio xz-utils:xz gzip:gzip kmod:modinfo
binutils:objcopy dpkg:dpkg-deb apt:apt-get coreutils:sha256sum"

check_packages() {
	step "check Debian packages"
	local missing="" p
	for entry in $PACKAGES; do
		p=${entry%%:*}
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		if [ "$(id -u)" = 0 ]; then
			log "installing:$missing"
			apt-get install -y --no-install-recommends $missing >&2 || die "apt-get install$missing"
		else
			die "missing Debian packages:$missing (apt-get install$missing)"
		fi
	fi
	[ -x /usr/bin/python3 ] && $PY -c 'import drgn' || die "/usr/bin/python3 cannot import drgn"
}

pkg_versions() {
	local entry
	for entry in $PACKAGES; do
		dpkg-query -W -f='${Package}=${Version}\n' "${entry%%:*}"
	done
}

hash16() { sha256sum | cut -c1-16; }

# ---------------------------------------------------------------- stock kernel
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

# Modules the stock initramfs loads (dependencies are added first).
STOCK_MODULES="qemu_fw_cfg crc32c_generic ext4 loop"

# prepare_stock_kernel -> sets KDIR (vmlinuz, vmlinux, modules/*.ko, release, modules.list)
prepare_stock_kernel() {
	step "find newest stock Debian 6.12 kernel"
	local rv rel ver debs img dbg h tmp
	rv=$(find_stock_kernel) || die "no linux-image-6.12.*+deb12-amd64-unsigned with a matching -dbg in apt-cache (apt-get update?)"
	rel=${rv% *}; ver=${rv#* }
	log "kernel $rel version $ver"
	h=$(printf '%s\n' "unsigned=$ver dbg=$ver rel=$rel modules=$STOCK_MODULES v2" | hash16)
	KDIR=$CACHE/stock-kernel-$h
	KERNEL_ID="linux-image-$rel-unsigned=$ver linux-image-$rel-dbg=$ver"
	if [ -f "$KDIR/.complete" ]; then
		log "reusing $KDIR"
		return 0
	fi
	debs=$CACHE/debs
	mkdir -p "$debs"
	img=$(ls "$debs"/linux-image-"$rel"-unsigned_*_amd64.deb 2>/dev/null | grep -F "_${ver}_" | head -1 || true)
	dbg=$(ls "$debs"/linux-image-"$rel"-dbg_*_amd64.deb 2>/dev/null | grep -F "_${ver}_" | head -1 || true)
	if [ -z "$img" ] || [ -z "$dbg" ]; then
		step "download linux-image-$rel-unsigned and -dbg ($ver, ~1.1 GB)"
		(cd "$debs" && apt-get download "linux-image-$rel-unsigned=$ver" "linux-image-$rel-dbg=$ver") >&2 ||
			die "apt-get download"
		img=$(ls "$debs"/linux-image-"$rel"-unsigned_*_amd64.deb | grep -F "_${ver}_" | head -1)
		dbg=$(ls "$debs"/linux-image-"$rel"-dbg_*_amd64.deb | grep -F "_${ver}_" | head -1)
	fi
	tmp=$KDIR.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp/x" "$tmp/modules"
	step "extract vmlinux-$rel from the -dbg package (only that member; ~90 s)"
	dpkg-deb --fsys-tarfile "$dbg" | tar -x -C "$tmp/x" "./usr/lib/debug/boot/vmlinux-$rel" ||
		die "extract vmlinux from $dbg"
	mv "$tmp/x/usr/lib/debug/boot/vmlinux-$rel" "$tmp/vmlinux"
	step "extract kernel and modules from the unsigned image package"
	dpkg-deb -x "$img" "$tmp/x" || die "dpkg-deb -x $img"
	cp "$tmp/x/boot/vmlinuz-$rel" "$tmp/vmlinuz"
	local mdir=$tmp/x/lib/modules/$rel/kernel order="" m
	add_module() {   # depth-first: dependencies before the module
		local name=$1 file deps d
		case " $order " in *" $name "*) return 0 ;; esac
		file=$(find "$mdir" -name "$name.ko.xz" -o -name "$name.ko" | head -1)
		[ -n "$file" ] || die "module $name not in $img"
		deps=$(modinfo -F depends "$file" | tr ',' ' ')
		for d in $deps; do add_module "$d"; done
		case "$file" in
		*.xz) xz -dc "$file" > "$tmp/modules/$name.ko" ;;
		*) cp "$file" "$tmp/modules/$name.ko" ;;
		esac
		order="$order $name"
	}
	for m in $STOCK_MODULES; do add_module "$m"; done
	echo "$order" | sed 's/^ //' > "$tmp/modules.list"
	echo "$rel" > "$tmp/release"
	echo "$KERNEL_ID" > "$tmp/packages"
	rm -rf "$tmp/x"
	touch "$tmp/.complete"
	rm -rf "$KDIR"; mv "$tmp" "$KDIR"
	log "kernel cached in $KDIR (modules: $(cat "$KDIR/modules.list"))"
}

# ---------------------------------------------------------------- patched kernel
prepare_patched_kernel() {
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
	log "kernel $(cat "$KDIR/release") in $KDIR"
}

# ---------------------------------------------------------------- guest
build_initramfs() {   # $1 = set, $2 = staging dir, $3 = output cpio.gz
	local set=$1 root=$2 out=$3
	step "build busybox initramfs"
	rm -rf "$root"; mkdir -p "$root/bin" "$root/etc" "$root/modules"
	cp /bin/busybox "$root/bin/busybox"
	install -m 755 "$HERE/init.sh" "$root/init"
	case $set in
	stock)
		local mods m
		mods=$(cat "$KDIR/modules.list")
		for m in $mods; do cp "$KDIR/modules/$m.ko" "$root/modules/"; done
		printf 'FX_SET=stock\nFX_MODULES="%s"\nFX_EXT4=1\nFX_TRIGGER=0\n' "$mods" > "$root/etc/fixture.conf"
		step "make the (empty) ext4 image the guest fills"
		truncate -s 16M "$root/ext4.img"
		mkfs.ext4 -q -F -L inodedump -U 00000000-0000-4000-8000-00000000e4e4 \
			-E root_owner=0:0 "$root/ext4.img" >&2 || die "mkfs.ext4"
		;;
	patched)
		cp "$KDIR/vfsdbg_trigger.ko" "$root/modules/"
		printf 'FX_SET=patched\nFX_MODULES=""\nFX_EXT4=0\nFX_TRIGGER=1\n' > "$root/etc/fixture.conf"
		;;
	esac
	step "pack initramfs"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$out" || die "cpio"
}

wait_serial() {   # $1 = log, $2 = regex, $3 = timeout s, $4 = what
	local t0=$SECONDS
	while ! grep -qE "$2" "$1" 2>/dev/null; do
		if ! kill -0 "$QEMU_PID" 2>/dev/null; then
			tail -30 "$1" >&2 || true
			die "QEMU exited while waiting for $4"
		fi
		if [ $((SECONDS - t0)) -ge "$3" ]; then
			tail -30 "$1" >&2 || true
			die "timeout (${3}s) waiting for $4"
		fi
		sleep 0.2
	done
}

qmp() { python3 "$HERE/qmp.py" "$W/qmp.sock" "$@"; }

run_guest() {   # $1 = set; writes the dumps into $OUT
	local set=$1 mem kernel t0 t
	case $set in
	stock) mem=512; kernel=$KDIR/vmlinuz ;;
	patched) mem=256; kernel=$KDIR/bzImage ;;
	esac
	step "boot QEMU (TCG, ${mem} MiB)"
	rm -f "$W/qmp.sock" "$W/ctl.sock" "$OUT/serial.log"
	t0=$(now)
	qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
		-smp 2,sockets=2,cores=1,threads=1 -m "$mem" \
		-nographic -no-reboot -device vmcoreinfo \
		-kernel "$kernel" -initrd "$W/initramfs.cpio.gz" \
		-append "console=ttyS0 qemu_fw_cfg.ioport=12@0x510:0:1:4" \
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

	step "QMP dump elf-nopaging.vmcore"
	t=$(qmp dump "$OUT/elf-nopaging.vmcore") || die "qmp dump elf-nopaging"
	TIMINGS="${TIMINGS}dump_elf_nopaging_s=$t\n"
	step "QMP dump elf-paging.vmcore"
	t=$(qmp dump "$OUT/elf-paging.vmcore" --paging) || die "qmp dump elf-paging"
	TIMINGS="${TIMINGS}dump_elf_paging_s=$t\n"
	step "QMP dump qemu-kdump-zlib.flat"
	t=$(qmp dump "$OUT/qemu-kdump-zlib.flat" --format kdump-zlib) || die "qmp dump kdump-zlib"
	TIMINGS="${TIMINGS}dump_qemu_kdump_zlib_s=$t\n"

	step "panic the guest (sysrq-c) and dump panic.vmcore"
	python3 - "$W/ctl.sock" <<-'EOF' || die "send panic command on ttyS1"
		import socket, sys
		s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"panic\n")
		import time; time.sleep(0.5); s.close()
	EOF
	wait_serial "$OUT/serial.log" 'end Kernel panic' 120 "the panic"
	sleep 1
	t=$(qmp dump "$OUT/panic.vmcore") || die "qmp dump panic"
	TIMINGS="${TIMINGS}dump_panic_s=$t\n"
	step "quit QEMU"
	qmp quit || true
	for _ in $(seq 1 100); do kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 0.1; done
	kill "$QEMU_PID" 2>/dev/null || true
	wait "$QEMU_PID" 2>/dev/null || true
	QEMU_PID=
	TIMINGS="${TIMINGS}qemu_total_s=$(elapsed "$t0")\n"
	chmod 0644 "$OUT"/*.vmcore "$OUT"/*.flat
}

derive_dumps() {
	local t0
	step "rewrite ELF program headers for makedumpfile (pitfall 4)"
	$PY "$HERE/elf_fixphdr.py" "$OUT/elf-nopaging.vmcore" "$W/fixed.elf" || die "elf_fixphdr.py"
	for spec in "d17-zlib:-d 17 -c" "d17-lzo:-d 17 -l" "d31-zlib:-d 31 -c"; do
		local name=${spec%%:*} args=${spec#*:}
		step "makedumpfile $args -> $name.vmcore"
		t0=$(now)
		# shellcheck disable=SC2086
		makedumpfile $args "$W/fixed.elf" "$OUT/$name.vmcore" >"$W/makedumpfile-$name.log" 2>&1 || {
			cat "$W/makedumpfile-$name.log" >&2; die "makedumpfile $args"; }
		TIMINGS="${TIMINGS}makedumpfile_${name}_s=$(elapsed "$t0")\n"
	done
	rm -f "$W/fixed.elf"
	chmod 0644 "$OUT"/*.vmcore
}

write_truth() {   # $1 = set
	local set=$1 n
	case $set in
	patched)
		step "truth.txt from the kernel's inodedump-truth lines"
		grep 'inodedump-truth: ' "$OUT/serial.log" | sed 's/.*inodedump-truth: //' | tr -d '\r' > "$OUT/truth.txt"
		n=$(wc -l < "$OUT/truth.txt")
		[ "$n" -ge 11 ] || die "expected >= 11 truth lines in serial.log, got $n"
		grep -q 'inodedump-trigger: done reports=2' "$OUT/serial.log" || die "trigger did not report 'done reports=2'"
		;;
	stock)
		step "truth.txt from drgn reading d17-zlib.vmcore"
		$PY "$HERE/drgn_truth.py" "$OUT/vmlinux" "$OUT/d17-zlib.vmcore" --stock > "$OUT/truth.txt" ||
			die "drgn_truth.py"
		n=$(wc -l < "$OUT/truth.txt")
		[ "$n" -eq 18 ] || die "expected 18 truth lines, got $n"
		;;
	esac
}

build_set() {   # $1 = set
	local set=$1 t_all h inputs
	SET=$set
	t_all=$(now)
	case $set in
	stock) prepare_stock_kernel ;;
	patched) prepare_patched_kernel ;;
	*) die "unknown set '$set' (patched|stock|all)" ;;
	esac
	step "hash inputs"
	inputs=$(
		echo "set=$set"
		echo "$KERNEL_ID"
		pkg_versions
		(cd "$HERE" && sha256sum make-fixtures.sh qmp.py elf_fixphdr.py init.sh drgn_truth.py)
	)
	h=$(printf '%s\n' "$inputs" | hash16)
	OUT=$CACHE/fixtures-$set-$h
	mkdir -p "$HERE/out"
	if [ -f "$OUT/.complete" ]; then
		log "reusing complete set $OUT"
		ln -sfn "$OUT" "$HERE/out/$set"
		echo "$OUT"
		return 0
	fi
	log "building $OUT"
	rm -rf "$OUT"; mkdir -p "$OUT"
	W=$OUT/.work; mkdir -p "$W"
	printf '%s\n' "$inputs" > "$OUT/inputs.txt"
	TIMINGS=""

	step "link vmlinux"
	ln -f "$KDIR/vmlinux" "$OUT/vmlinux" 2>/dev/null || cp "$KDIR/vmlinux" "$OUT/vmlinux"

	build_initramfs "$set" "$W/root" "$W/initramfs.cpio.gz"
	run_guest "$set"
	derive_dumps
	write_truth "$set"

	step "write info.txt"
	{
		echo "set=$set"
		echo "release=$(cat "$KDIR/release")"
		echo "kernel=$KERNEL_ID"
		echo "hash=$h"
		printf '%b' "$TIMINGS"
		echo "total_build_s=$(elapsed "$t_all")"
		for f in "$OUT"/*.vmcore "$OUT"/*.flat "$OUT/vmlinux"; do
			echo "size_$(basename "$f")=$(stat -c %s "$f")"
		done
	} > "$OUT/info.txt"
	[ "${FX_KEEP_WORK:-0}" = 1 ] || rm -rf "$W"
	touch "$OUT/.complete"
	ln -sfn "$OUT" "$HERE/out/$set"
	log "done in $(elapsed "$t_all") s: $OUT"
	echo "$OUT"
}

main() {
	local what=${1:-all}
	check_packages
	case $what in
	stock | patched) build_set "$what" ;;
	all) build_set stock; build_set patched ;;
	*) die "usage: make-fixtures.sh [patched|stock|all]" ;;
	esac
}

main "$@"
