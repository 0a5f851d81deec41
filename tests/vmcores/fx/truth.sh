# shellcheck shell=bash
# Fixture library, truth: truth.txt from the kernel's own inodedump-truth
# lines (a trigger module printed them), or from drgn reading a dump (the
# host's drgn, or drgn 0.3.0 in the sid chroot), checked against the
# guest's own stat(1) lines.

# fx_truth_serial N|=N: truth.txt from serial.log; at least N lines, or
# exactly N
fx_truth_serial() {
	local n
	step "truth.txt from the kernel's inodedump-truth lines"
	grep 'inodedump-truth: ' "$OUT/serial.log" | sed 's/.*inodedump-truth: //' | tr -d '\r' > "$OUT/truth.txt"
	n=$(wc -l < "$OUT/truth.txt")
	case $1 in
	=*) [ "$n" -eq "${1#=}" ] || die "expected ${1#=} truth lines in serial.log, got $n" ;;
	*) [ "$n" -ge "$1" ] || die "expected >= $1 truth lines in serial.log, got $n" ;;
	esac
}

fx_trigger_done() {   # N: the 6.12 trigger module said it fired N reports
	grep -q "inodedump-trigger: done reports=$1" "$OUT/serial.log" || die "trigger did not report 'done reports=$1'"
}

# fx_truth_drgn DIR DUMP N [CHROOT]: DIR/truth.txt from drgn reading
# DIR/DUMP with DIR/vmlinux (drgn_truth.py --stock, the host's drgn; with
# CHROOT drgn_truth73.py --stock, the chroot's), exactly N lines
fx_truth_drgn() {
	local d=$1 dump=$2 want=$3 chroot=${4:-} n
	if [ -n "$chroot" ]; then
		step "truth.txt from drgn $(cat "$chroot/drgn-version") (sid chroot) reading $dump"
		in_sid "$chroot" "$d" "$HERE/.." /usr/bin/python3 /src/vmcores/drgn_truth73.py \
			/fx/vmlinux "/fx/$dump" --stock > "$d/truth.txt" || die "drgn_truth73.py in the sid chroot"
	else
		step "truth.txt from drgn reading $dump"
		$PY "$HERE/drgn_truth.py" "$d/vmlinux" "$d/$dump" --stock > "$d/truth.txt" ||
			die "drgn_truth.py"
	fi
	n=$(wc -l < "$d/truth.txt")
	[ "$n" -eq "$want" ] || die "expected $want truth lines, got $n"
}

fx_truth_vs_stat() {   # DIR: truth.txt agrees with the guest's stat(1) lines
	step "truth.txt agrees with the guest's own stat(1) lines"
	$PY "$HERE/stat_vs_truth.py" "$1/serial.log" "$1/truth.txt" >&2 || die "stat_vs_truth.py"
}

# fx_truth_roles TRUTH: "role=path" for each truth line with a path (the
# arguments drgn_truth73.py takes)
fx_truth_roles() {
	awk '{ r = ""; p = ""
		for (i = 1; i <= NF; i++) { if ($i ~ /^role=/) r = substr($i, 6); if ($i ~ /^path=/) p = substr($i, 6) }
		if (p != "-") print r "=" p }' "$1"
}

# fx_reports_serial N: reports.txt, the dump_inode() report lines as the
# console printed them (timestamps stripped), exactly N. A console line cut
# off by the panic is printed again after "** replaying previous printk
# message **" (timing decides): the cut copy is not a report of its own.
fx_reports_serial() {
	local n
	step "reports.txt: the report lines as the console printed them"
	tr -d '\r' < "$OUT/serial.log" | awk '
		/^\*\* replaying previous printk message \*\*$/ { if (last) n--; last = 0; next }
		{ line = $0; sub(/^\[ *[0-9.]*\] /, "", line); last = 0 }
		line ~ /: inode:[0-9a-f]* fs:|: unreadable inode:[0-9a-f]*$/ { out[++n] = line; last = 1 }
		END { for (i = 1; i <= n; i++) print out[i] }' > "$OUT/reports.txt"
	n=$(wc -l < "$OUT/reports.txt")
	[ "$n" -eq "$1" ] || die "expected $1 report lines on the console, got $n"
}
