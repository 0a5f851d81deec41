#!/usr/bin/env bash
# Behaviour unchanged? Run one vmcore-inode binary over every fixture dump
# and address the tests use and keep its outputs, so that two builds (before
# and after a refactoring) can be compared byte for byte:
#
#   scripts/compare-outputs.sh run  BINARY OUTDIR    # record one build
#   scripts/compare-outputs.sh diff OUTDIR1 OUTDIR2  # compare two records
#
# The dumps: tests/vmcores/committed, tests/vmcores/small/* (no vmlinux:
# an empty --debug-root instead of -k) and every set of tests/vmcores/out.
# Per dump: every truth address in text and JSON (one run each, and one
# run with all of them plus --holders), the report mode in text and JSON,
# --log, --info, --sweep in text and --jsonl; and the same addresses with
# no vmlinux (types from the dump's BTF, symbols from its kallsyms), once
# with an empty cache and once with the cache that run wrote (the cache
# lives in one fixed folder, so that both records name the same path: run
# one record at a time; so does the -k runs' per-kernel cache, emptied at
# the start of a record). The folders are under ${TMPDIR:-/tmp}: two
# records made with the same TMPDIR compare; records under different
# TMPDIRs may run at the same time (then compare only with their own). stdout, stderr and the exit code are recorded. Lines that name the binary's own build (none today)
# would have to be filtered here; nothing else is.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
run)
	bin=$(realpath "$2")
	out=$3
	mkdir -p "$out"
	# The per-kernel cache of the -k runs: one fixed folder too, emptied
	# first, so that a record does not depend on what the user's cache
	# holds (or on another version's files there): in every record the
	# first -k run on a kernel is cold, the later ones warm.
	export XDG_CACHE_HOME=${TMPDIR:-/tmp}/inodedump-compare-kcache
	rm -rf "$XDG_CACHE_HOME"
	mkdir -p "$XDG_CACHE_HOME"
	one() { # name args...
		local name=$1
		shift
		set +e
		"$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
		echo "$?" >"$out/$name.rc"
		set -e
	}
	# the --debug-root of a dump committed without vmlinux: one fixed
	# folder, so that two records name the same path
	empty=${TMPDIR:-/tmp}/inodedump-compare-empty
	rm -rf "$empty"; mkdir -p "$empty"
	for setdir in tests/vmcores/committed tests/vmcores/small/* tests/vmcores/out/*; do
		[ -d "$setdir" ] || continue
		set=$(basename "$setdir")
		[ -f "$setdir/truth.txt" ] || continue
		mapfile -t addrs < <(sed -n 's/^addr=\([0-9a-f]*\) .*/\1/p' \
			"$setdir/truth.txt" | sort -u)
		for dump in "$setdir"/*.vmcore "$setdir"/*.flat; do
			[ -f "$dump" ] || continue
			d=$set-$(basename "$dump")
			# the small dumps (tests/vmcores/small) have no vmlinux: the
			# dump's own types, nothing found on this machine
			kv=(-k "$setdir/vmlinux")
			[ -f "$setdir/vmlinux" ] || kv=(--debug-root "$empty")
			k=("${kv[@]}" "$dump")
			one "$d.reports" "${k[@]}"
			one "$d.reports.json" "${k[@]}" --json
			one "$d.all.json" "${k[@]}" --json --holders "${addrs[@]}"
			one "$d.log" "${kv[@]}" --log "$dump"
			one "$d.info" "${kv[@]}" --info "$dump"
			one "$d.sweep" "${kv[@]}" --sweep "$dump"
			one "$d.sweep.jsonl" "${kv[@]}" --sweep --jsonl \
				"$dump"
			cache=${TMPDIR:-/tmp}/inodedump-compare-cache
			rm -rf "$cache"
			XDG_CACHE_HOME=$cache one "$d.btf-cold.json" "$dump" --json \
				"${addrs[@]}"
			XDG_CACHE_HOME=$cache one "$d.btf-warm.json" "$dump" --json \
				"${addrs[@]}"
			rm -rf "$cache"
			for a in "${addrs[@]}"; do
				one "$d.$a" "${k[@]}" "$a"
				one "$d.$a.json" "${k[@]}" --json "$a"
			done
		done
	done
	rmdir "$empty"
	echo "compare-outputs: $(ls "$out" | wc -l) files in $out"
	;;
diff)
	if diff -r "$2" "$3" >/dev/null; then
		echo "compare-outputs: identical ($(ls "$2" | wc -l) files)"
	else
		diff -r "$2" "$3" | head -100
		echo "compare-outputs: DIFFERENT" >&2
		exit 1
	fi
	;;
*)
	echo "usage: $0 run BINARY OUTDIR | diff OUTDIR1 OUTDIR2" >&2
	exit 2
	;;
esac
