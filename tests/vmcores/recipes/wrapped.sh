# shellcheck shell=bash disable=SC2034  # the library reads these variables
# wrapped: the patched kernel with its printk ring wrapped (fxtool fills
# /dev/kmsg, then positions the ring's head so that the first report's
# record wraps the data ring; booted again, up to 3 times, when it does
# not); no panic. README.md, "The wrapped set".
. "$RECIPES/patched.sh"
FX_KEY="$FX_KEY call:kmsg_key debs:gcc,libc6-dev sums:guest/fxtool.c,printk_ring.py"
# /dev/kmsg writes are rate limited (10 per 5 s) unless devkmsg=on
BOOT_APPEND="$STD_APPEND printk.devkmsg=on" BOOT_PORT=guest-kmsg.txt
PANIC=none   # no panic: its records would push more out
MAKEDUMPFILE="d17-zlib:-d_17_-c d17-lzo:-d_17_-l"

recipe_prepare() { prepare_patched_kernel; fx_kmsg_fill; }
recipe_content() {
	fx_init "$HERE/init.sh"
	cp "$KDIR/vfsdbg_trigger.ko" "$ROOT/modules/"
	fx_static_tool guest/fxtool.c "$ROOT/bin/fxtool"
	fx_conf 'FX_SET=wrapped\nFX_MODULES=""\nFX_EXT4=0\nFX_TRIGGER=1\nFX_FILL=%s\nFX_POSITION="%s"\nFX_KMSG_DUMP=1\n' \
		"$KMSG_FILL" "$KMSG_POSITION"
}
recipe_ready() { wait_serial "$OUT/guest-kmsg.txt" '^inodedump-kmsg-end ' 60 "the end of the guest's kmsg dump on ttyS2"; }
recipe_run() {
	local attempt=1
	while :; do
		fx_run
		# The test needs the first report's record to wrap the data ring
		# (kmsg-position aims at that; a message from elsewhere in between
		# would spoil it): boot again if it does not.
		step "ring geometry and the records that wrap the data ring (printk_ring.py)"
		if $PY "$HERE/printk_ring.py" "$OUT/vmlinux" "$OUT/elf-paging.vmcore" --need-report-wrap > "$OUT/ring.txt"; then
			cat "$OUT/ring.txt" >&2
			break
		fi
		cat "$OUT/ring.txt" >&2
		cp "$OUT/ring.txt" "$OUT/ring-attempt$attempt.txt"
		cp "$OUT/serial.log" "$OUT/serial-attempt$attempt.log"
		[ "$attempt" -lt 3 ] || die "the first report's record did not wrap the data ring in $attempt boots"
		attempt=$((attempt + 1))
		log "the first report's record does not wrap the data ring: booting again (attempt $attempt)"
		rm -f "$OUT"/*.vmcore "$OUT"/*.flat "$OUT/guest-kmsg.txt"
		TIMINGS=""
	done
}
recipe_truth() {
	fx_truth_serial 11
	fx_trigger_done 2
	step "check the wrap: early boot records gone from the guest's own log view"
	grep -q '^inodedump-kmsg-end records=[0-9]* lost=0$' "$OUT/guest-kmsg.txt" ||
		die "guest-kmsg.txt: no clean end marker: $(tail -1 "$OUT/guest-kmsg.txt")"
	grep -q 'Linux version' "$OUT/serial.log" || die "serial.log has no 'Linux version' line"
	! grep -q 'Linux version' "$OUT/guest-kmsg.txt" || die "the ring did not wrap: 'Linux version' still in the guest's log"
	[ "$(grep -c 'encountered for inode' "$OUT/guest-kmsg.txt")" -eq 2 ] ||
		die "the guest's log view does not hold both reports"
}
