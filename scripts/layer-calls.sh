#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Which files of lib/ call each other in both directions, from the symbols
# of the library's object files in a build directory (nm: what each .o
# defines, what it leaves undefined). Prints every two-way pair of files
# within one lib/ folder, and every two-way pair of lib/ folders, with the
# symbols each side takes from the other.
#
# usage: scripts/layer-calls.sh [-o FOLDER]... BUILDDIR
#   Exits 1 when a two-way pair exists; with -o (repeatable), only pairs
#   of files within FOLDER (lib/FOLDER) and pairs of folders one of which
#   is FOLDER count for the exit status (everything is still printed).
#   Exits 2 on a usage error or when no object of lib/ is found.
set -eu

only=
while getopts o: opt; do
	case $opt in
	o) only="$only ${OPTARG#lib/}" ;;
	*) echo "usage: $0 [-o FOLDER]... BUILDDIR" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-o FOLDER]... BUILDDIR" >&2; exit 2; }

# The library's objects: lib/DIR/FILE.c is compiled to lib_DIR_FILE.c.o.
objs=$(find "$1" -path '*libinodedump*.p/lib_*.c.o' | sort)
[ -n "$objs" ] || { echo "$0: no object of lib/ under $1" >&2; exit 2; }

for o in $objs; do
	f=$(basename "$o" .o)
	f=${f#lib_}
	dir=${f%%_*}
	src="lib/$dir/${f#*_}"
	# "D name" for a defined global, "U name" for an undefined one.
	nm -g "$o" | awk -v src="$src" '
		$1 == "U" { print src, "U", $2; next }
		NF == 3 && $2 ~ /^[A-TV-Z]$/ { print src, "D", $3 }'
done | awk -v only="$only" '
	function folder(s) { split(s, p, "/"); return p[2] }
	function counts(a, b,   n, k, w) {
		if (only == "") return 1
		n = split(only, w, " ")
		for (k = 1; k <= n; k++)
			if (folder(a) == w[k] || folder(b) == w[k]) return 1
		return 0
	}
	$2 == "D" { def[$3] = $1; next }
	{ und[++nu] = $1 SUBSEP $3 }
	END {
		# uses[a, b]: the symbols file a takes from file b
		for (i = 1; i <= nu; i++) {
			split(und[i], u, SUBSEP)
			if (!(u[2] in def) || def[u[2]] == u[1]) continue
			a = u[1]; b = def[u[2]]
			uses[a, b] = uses[a, b] " " u[2]
			fa = folder(a); fb = folder(b)
			if (fa != fb) fuses[fa, fb] = fuses[fa, fb] " " u[2]
		}
		bad = 0
		for (k in uses) {
			split(k, p, SUBSEP)
			a = p[1]; b = p[2]
			if (folder(a) != folder(b) || a >= b || !((b, a) in uses))
				continue
			printf "files %s <-> %s\n  %s takes:%s\n  %s takes:%s\n",
			       a, b, a, uses[a, b], b, uses[b, a]
			if (counts(a, a)) bad = 1
		}
		for (k in fuses) {
			split(k, p, SUBSEP)
			a = p[1]; b = p[2]
			if (a >= b || !((b, a) in fuses))
				continue
			printf "folders lib/%s <-> lib/%s\n  %s takes:%s\n  %s takes:%s\n",
			       a, b, a, fuses[a, b], b, fuses[b, a]
			if (counts("lib/" a "/", "lib/" b "/")) bad = 1
		}
		exit bad
	}'
