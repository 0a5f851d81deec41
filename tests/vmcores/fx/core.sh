# shellcheck shell=bash disable=SC2034  # the recipes and the library share these
# Fixture library, core: logging and failure, timing, the host's packages,
# a set's cache key (its inputs, with the stamps of fx/stamps.txt), claiming
# a set's directory and finishing it, and the recipe runner (fx_build).
# Sourced by make-fixtures.sh after HERE is set; see README.md, "Recipes".

CACHE=${INODEDUMP_CACHE:-$HOME/.cache/inodedump}
BOOT_TIMEOUT=${FX_BOOT_TIMEOUT:-600}
PY=/usr/bin/python3          # Debian's python3 (has drgn); PATH's python3 may not
FX=$HERE/fx
RECIPES=$HERE/recipes
SET=-
STEP=start
QEMU_PID=

log() { printf 'make-fixtures: %(%T)T [%s] %s\n' -1 "$SET" "$*" >&2; }
step() { STEP=$1; log "== $STEP"; }
die() { printf 'make-fixtures: [%s] FAILED in step "%s": %s\n' "$SET" "$STEP" "$*" >&2; exit 1; }
on_err() {
	local rc=$?
	printf 'make-fixtures: [%s] FAILED in step "%s" (exit %s, line %s)\n' "$SET" "$STEP" "$rc" "${BASH_LINENO[0]}" >&2
	exit "$rc"
}
cleanup() {
	if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill "$QEMU_PID" 2>/dev/null || true
	fi
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

hash16() { sha256sum | cut -c1-16; }

# ---------------------------------------------------------------- packages
# Debian packages the recipes use (binary they provide, for the check).
PACKAGES="qemu-system-x86:qemu-system-x86_64 busybox-static:busybox makedumpfile:makedumpfile
python3-drgn: e2fsprogs:mkfs.ext4 cpio:cpio xz-utils:xz gzip:gzip kmod:modinfo
binutils:objcopy dpkg:dpkg-deb apt:apt-get coreutils:sha256sum"
# Checked (and installed) like PACKAGES, but not in the host-tools key item:
# the recipes that use them key their versions themselves (debs:P,Q), so
# adding one here rebuilds no other set. xfsprogs, btrfs-progs: the fs sets'
# disks; dwarves: their NFS truth's offsets (pahole on nfs.ko's BTF).
# qemu-system-arm, qemu-user-static, gcc-aarch64-linux-gnu: the arm64
# sets' guest, makedumpfile and vmcore-inode (keyed by those recipes); the
# arm64-64k kernel's cross compiler (its version is in that kernel's key);
# qemu-system-ppc: the ppc64le set's guest. dwz, elfutils: the rhel612
# set's Red Hat-shaped debuginfo (dwz -m, eu-strip). qemu-system-misc: the
# s390x sets' guest (qemu-system-s390x); gcc-s390x-linux-gnu: the
# s390x-live set's vmcore-inode (keyed by that recipe).
PACKAGES_UNKEYED="xfsprogs:mkfs.xfs btrfs-progs:mkfs.btrfs dwarves:pahole
qemu-system-arm:qemu-system-aarch64 qemu-user-static:qemu-aarch64-static
gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc qemu-system-ppc:qemu-system-ppc64
dwz:dwz elfutils:eu-strip qemu-system-misc:qemu-system-s390x
gcc-s390x-linux-gnu:s390x-linux-gnu-gcc"

check_packages() {
	step "check Debian packages"
	local missing="" p
	for entry in $PACKAGES $PACKAGES_UNKEYED; do
		p=${entry%%:*}
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		if [ "$(id -u)" = 0 ] && [ -z "${FX_KEY_ONLY:-}" ]; then
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

# ---------------------------------------------------------------- the key
# A set's key is the hash of its inputs' text: what its recipe lists in
# FX_KEY, item by item, in that order:
#   set             set=NAME
#   kernel          $KERNEL_ID (what the recipe's kernel step found)
#   host-tools      NAME=VERSION of every package in PACKAGES
#   sid             the sid chroot's identity (prepare_sid_chroot's SID_ID)
#   debs:P,Q        NAME=VERSION of these host packages
#   sums:F,G        "SHA256  F" of these files (relative to tests/vmcores),
#                   or F's stamp from fx/stamps.txt when it has one
#   call:FUNC       the lines FUNC prints
# Stamps stand for the text of the code that builds a set (the library and
# the recipes): see fx/stamps.txt and `make-fixtures.sh stamps`.

# fx_stamp NAME: the key digest fx/stamps.txt gives NAME, or nothing.
fx_stamp() { awk -v n="$1" '$1 == n { print $2; exit }' "$FX/stamps.txt"; }

# fx_sums FILE...: sha256sum's lines for these files, stamps standing in.
fx_sums() {
	local f s
	for f in "$@"; do
		s=$(fx_stamp "$f")
		if [ -n "$s" ]; then
			printf '%s  %s\n' "$s" "$f"
		else
			(cd "$HERE" && sha256sum "$f")
		fi
	done
}

fx_key_inputs() {
	local item
	for item in $FX_KEY; do
		case $item in
		set) echo "set=$FX_SET" ;;
		kernel) echo "$KERNEL_ID" ;;
		host-tools) pkg_versions ;;
		sid) echo "sid-chroot $SID_ID" ;;
		debs:*) # shellcheck disable=SC2046
			dpkg-query -W -f='${Package}=${Version}\n' $(printf '%s\n' "${item#debs:}" | tr ',' ' ') ;;
		sums:*) # shellcheck disable=SC2046
			fx_sums $(printf '%s\n' "${item#sums:}" | tr ',' ' ') ;;
		call:*) "${item#call:}" ;;
		*) die "FX_KEY: unknown item '$item'" ;;
		esac
	done
}

# fx_stamps_status: each stamp, its key digest, and whether the code it
# stands for has changed since (code digest = sha256 over the named files'
# "SHA256  NAME" lines). Prints "NAME KEY unchanged|CHANGED CODE-DIGEST".
fx_code_digest() { (cd "$HERE" && sha256sum "$@") | sha256sum | cut -d' ' -f1; }
fx_stamps_status() {
	local name key code files now
	while read -r name key code files; do
		case $name in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2086
		now=$(fx_code_digest $files)
		if [ "$now" = "$code" ]; then echo "$name $key unchanged $now"
		else echo "$name $key CHANGED $now"; fi
	done < "$FX/stamps.txt"
}

# fx_stamps_warn: one line a stamp whose code changed since it was set (a
# change that alters what a set holds must bump the stamp: see stamps.txt).
fx_stamps_warn() {
	local name key what code
	while read -r name key what code; do
		[ "$what" = CHANGED ] || continue
		log "note: code under stamp '$name' changed since fx/stamps.txt was written" \
			"(make-fixtures.sh stamps: accept or bump it)"
	done < <(fx_stamps_status)
}

# ---------------------------------------------------------------- claim, finish
# claim_set SET INPUTS: the set's directory OUT=$CACHE/fixtures-SET-H, H the
# hash of INPUTS (in SET_HASH), locked on fd 8 so one builder per set works
# at a time (parallel test runs share the cache). Returns 0 when a complete
# set is there (linked as out/SET, lock released); else empties OUT, makes
# W=OUT/.work and OUT/inputs.txt and returns 1: the caller builds, holding
# the lock, and writes OUT/.complete last (fx_finish).
claim_set() {
	local set=$1 inputs=$2
	SET_HASH=$(printf '%s\n' "$inputs" | hash16)
	OUT=$CACHE/fixtures-$set-$SET_HASH
	mkdir -p "$HERE/out" "$CACHE"
	exec 8>"$CACHE/.fixtures-$set.lock"
	flock 8
	if [ -f "$OUT/.complete" ]; then
		log "reusing complete set $OUT"
		ln -sfn "$OUT" "$HERE/out/$set"
		exec 8>&-
		return 0
	fi
	log "building $OUT"
	rm -rf "$OUT"; mkdir -p "$OUT"
	W=$OUT/.work; mkdir -p "$W"
	printf '%s\n' "$inputs" > "$OUT/inputs.txt"
	return 1
}

# fx_shared STEP...: the preparation steps shared between sets (the private
# apt state, the downloaded .debs, the stock kernels, the sid chroot), one
# preparer at a time under the cache's .stock73-prepare.lock.
fx_shared() {
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.stock73-prepare.lock"
	flock 9
	local s
	for s in "$@"; do "$s"; done
	exec 9>&-
}

# fx_cached DIR [NOTE]: true when there is nothing to make: key mode (the
# caller has set what the key needs), or DIR complete (logged as reused)
fx_cached() {
	[ -z "${FX_KEY_ONLY:-}" ] || return 0
	[ -f "$1/.complete" ] || return 1
	log "reusing $1${2:+ ($2)}"
}

fx_link_vmlinux() {   # DIR: KDIR's vmlinux there (a hard link when it can)
	ln -f "$KDIR/vmlinux" "$1/vmlinux" 2>/dev/null || cp "$KDIR/vmlinux" "$1/vmlinux"
}

# fx_info: OUT/info.txt: set, release, kernel, hash, what recipe_info
# prints (when the recipe has one), the timings, the total and the sizes of
# the files FX_INFO_SIZES names (globs under OUT).
FX_INFO_SIZES="*.vmcore *.flat vmlinux vmlinux.guest"
fx_info() {
	step "write info.txt"
	local f g
	{
		echo "set=$FX_SET"
		echo "release=$(cat "$KDIR/release")"
		echo "kernel=$KERNEL_ID"
		echo "hash=$SET_HASH"
		! declare -F recipe_info >/dev/null || recipe_info
		printf '%b' "$TIMINGS"
		echo "total_build_s=$(elapsed "$T_ALL")"
		for g in $FX_INFO_SIZES; do
			for f in "$OUT"/$g; do
				[ -f "$f" ] || continue
				echo "size_$(basename "$f")=$(stat -c %s "$f")"
			done
		done
	} > "$OUT/info.txt"
}

# fx_sparse DIR: every dump under DIR made sparse in place (fallocate
# --dig-holes: the bytes read are the same, the zero blocks take no disk).
# A guest's ELF dump is mostly zero pages: a 512 MiB guest's 540 MB ELF
# keeps 95 MB of disk. Where the filesystem cannot, the files stay as they
# are.
fx_sparse() {
	find "$1" -type f \( -name '*.vmcore' -o -name '*.flat' -o -name '*.elf' \
		-o -name '*.img' -o -name '*.raw' \) \
		-exec fallocate --dig-holes {} \; 2>/dev/null || true
}

fx_finish() {   # .complete last, out/SET linked, the set's lock released
	[ "${FX_KEEP_WORK:-0}" = 1 ] || rm -rf "$W"
	fx_sparse "$OUT"
	touch "$OUT/.complete"
	ln -sfn "$OUT" "$HERE/out/$FX_SET"
	exec 8>&-
	log "done in $(elapsed "$T_ALL") s: $OUT"
	echo "$OUT"
}

# ---------------------------------------------------------------- recipes
# fx_build SET: the set's recipe (recipes/SET.sh, or FX_RECIPE) in a
# subshell of its own, so that one recipe's variables and functions do not
# reach the next. The recipe's steps, in this order:
#   recipe_prepare    the kernel (KDIR, KERNEL_ID) and what else the key needs
#   (key: FX_KEY)     claim_set; a complete set ends the build here
#   recipe_build      everything after the claim, when the recipe has it;
#                     otherwise the steps below
#   recipe_content    the guest's files in $ROOT (fx_initramfs packs them)
#   recipe_run        boot, dumps (default fx_run: see fx/guest.sh)
#   MAKEDUMPFILE      the makedumpfile dumps of elf-nopaging.vmcore
#   recipe_truth      truth.txt and its checks
#   fx_info           info.txt (recipe_info adds lines)
# FX_KEY_ONLY=1 (make-fixtures.sh key/inputs): up to the key, then print it.
fx_build() {
	local set=$1 recipe=${FX_RECIPE:-$RECIPES/$1.sh}
	[ -f "$recipe" ] || die "no recipe for set '$set' ($recipe)"
	SET=$set STEP="recipe $set"   # what a failure below is reported as, out here too
	(
		trap on_err ERR
		trap cleanup EXIT
		FX_SET=$set SET=$set T_ALL=$(now) TIMINGS=""
		# shellcheck source=/dev/null
		. "$recipe"
		recipe_prepare
		[ -z "${FX_PREPARE_ONLY:-}" ] || exit 0   # the kernel lane
		step "hash inputs"
		local inputs
		inputs=$(fx_key_inputs)
		if [ -n "${FX_KEY_ONLY:-}" ]; then
			fx_print_key "$set" "$inputs"
			exit 0
		fi
		if claim_set "$set" "$inputs"; then echo "$OUT"; exit 0; fi
		if declare -F recipe_build >/dev/null; then
			recipe_build
		else
			fx_link_vmlinux "$OUT"
			fx_initramfs "$W/root" "$W/initramfs.cpio.gz" recipe_content
			if declare -F recipe_run >/dev/null; then recipe_run; else fx_run; fi
			[ -z "${MAKEDUMPFILE:-}" ] || fx_derive_dumps
			recipe_truth
			fx_info
		fi
		fx_finish
	)
}

# key mode: "SET HASH complete|absent DIR" (FX_KEY_ONLY=inputs: the inputs)
fx_print_key() {
	local h dir state=absent
	h=$(printf '%s\n' "$2" | hash16)
	dir=$CACHE/fixtures-$1-$h
	[ ! -f "$dir/.complete" ] || state=complete
	if [ "$FX_KEY_ONLY" = inputs ]; then printf '%s\n' "$2"
	else echo "$1 $h $state $dir"; fi
}
