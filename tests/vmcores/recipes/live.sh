# shellcheck shell=bash disable=SC2034  # the library reads these variables
# live: the patched kernel with its log wrapped as in the wrapped set, and
# vmcore-inode (LIVE_BIN: make-fixtures.sh live [BINARY]), its shared
# libraries and a debug-only vmlinux in the initramfs; the guest runs
# `vmcore-inode --live` and writes the results to ttyS2 (live.txt). No
# dumps. The key holds the binary's and every library's contents, so an
# unchanged build reuses the set. README.md, "The live set".
. "$RECIPES/wrapped.sh"
FX_KEY="$FX_KEY sums:elf_pack_debug.py,../lsan.supp call:live_key"
BOOT_APPEND="$STD_APPEND printk.devkmsg=on"
MAKEDUMPFILE=""

# The shared objects BINARY loads, as ldd resolves them: "NAME PATH" lines
# (NAME = the soname asked for; the dynamic loader as "LOADER PATH"), plus
# libkdumpfile, which libinodedump loads with dlopen(3) (lib/kdl.c), and
# what it needs.
KDL_SONAME=libkdumpfile.so.10
lib_closure() {
	local out kdl
	kdl=$(ldconfig -p | awk -v so="$KDL_SONAME" '$1 == so && /x86-64/ { print $NF; exit }')
	[ -n "$kdl" ] || die "ldconfig does not know $KDL_SONAME"
	out=$(ldd "$1" && ldd "$kdl" && echo "	$KDL_SONAME => $kdl (0)") || die "ldd $1 / $kdl"
	if printf '%s\n' "$out" | grep -q 'not found'; then
		printf '%s\n' "$out" >&2
		die "ldd $1: a library is not found"
	fi
	printf '%s\n' "$out" | awk '
		$2 == "=>" && $3 ~ /^\// { print $1, $3; next }
		$1 ~ /^\// { print "LOADER", $1 }' | sort -u
}

recipe_prepare() {
	prepare_patched_kernel
	fx_kmsg_fill
	[ -f "$LIVE_BIN" ] && [ -x "$LIVE_BIN" ] || die "no vmcore-inode binary at '$LIVE_BIN'"
	LIVE_BIN=$(readlink -f "$LIVE_BIN")
	LIVE_LIBS=$(lib_closure "$LIVE_BIN")
}
live_key() {   # contents only: the same build in another folder hashes the same
	echo "binary $(sha256sum < "$LIVE_BIN" | cut -d' ' -f1)"
	printf '%s\n' "$LIVE_LIBS" | while read -r name path; do
		echo "lib $name $(sha256sum < "$path" | cut -d' ' -f1)"
	done
}

recipe_content() {
	local name path
	printf '%s\n' "$LIVE_LIBS" > "$OUT/live-libs.txt"
	fx_init "$HERE/init.sh"
	cp "$KDIR/vfsdbg_trigger.ko" "$ROOT/modules/"
	fx_static_tool guest/fxtool.c "$ROOT/bin/fxtool"
	# the live kernel's log wrapped too, positioned as in the wrapped set
	fx_conf 'FX_SET=live\nFX_MODULES=""\nFX_EXT4=0\nFX_TRIGGER=1\nFX_FILL=%s\nFX_POSITION="%s"\nFX_LIVE=1\n' \
		"$KMSG_FILL" "$KMSG_POSITION"
	step "copy vmcore-inode and its ldd closure into the initramfs"
	mkdir -p "$ROOT/live/lib"
	cp "$LIVE_BIN" "$ROOT/live/vmcore-inode"
	chmod 0755 "$ROOT/live/vmcore-inode"
	while read -r name path; do
		if [ "$name" = LOADER ]; then   # the PT_INTERP path, exactly
			mkdir -p "$ROOT$(dirname "$path")"
			cp -L "$path" "$ROOT$path"
			chmod 0755 "$ROOT$path"
		else
			cp -L "$path" "$ROOT/live/lib/$name"
			chmod 0644 "$ROOT/live/lib/$name"
		fi
	done < "$OUT/live-libs.txt"
	{
		echo "export LD_LIBRARY_PATH=/live/lib"
		if grep -q '^libasan' "$OUT/live-libs.txt"; then
			# the sanitizer build, as run-tests.sh runs it
			cp "$HERE/../lsan.supp" "$ROOT/live/lsan.supp"
			echo "export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1"
			echo "export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
			echo "export LSAN_OPTIONS=suppressions=/live/lsan.supp:print_suppressions=0"
		fi
	} > "$ROOT/live/env"
	step "debug-only compressed vmlinux for the guest (as make-committed.sh)"
	fx_debug_vmlinux "$KDIR/vmlinux" "$OUT/vmlinux.guest"
	cp "$OUT/vmlinux.guest" "$ROOT/live/vmlinux"
	chmod 0644 "$ROOT/live/vmlinux"
}

recipe_run() {
	step "boot QEMU (TCG, 1024 MiB)"
	fx_boot "$KDIR/bzImage" 1024 "$BOOT_APPEND" "$OUT/serial.log" max "$OUT/live.txt"
	fx_wait_ready "$OUT/serial.log" $((BOOT_TIMEOUT * 3))
	wait_serial "$OUT/live.txt" '^inodedump-live: done' 60 "the end of the live runs on ttyS2"
	quit_guest "$T_BOOT"
}

recipe_truth() {
	fx_truth_serial 11
	fx_trigger_done 2
	grep -q '^inodedump-live: done' "$OUT/live.txt" || die "live.txt has no done marker"
}
