#!/usr/bin/env bash
# Check that the series applies, in order, with "patch -p1" to a pristine
# Debian linux-source-6.12 tree. Exit status 0 when every patch applies
# without fuzz or rejects.
#
# usage: check-apply.sh [--quick] [--keep] [TARBALL]
#   --quick   unpack only the files the series touches (same check, faster)
#   --keep    keep the patched tree and print its path
#   TARBALL   default /usr/src/linux-source-6.12.tar.xz
set -Eeuo pipefail

quick=0
keep=0
while (($#)); do
	case $1 in
	--quick) quick=1 ;;
	--keep) keep=1 ;;
	-h | --help)
		sed -n '2,9p' "$0"
		exit 0
		;;
	-*)
		echo "check-apply.sh: unknown option $1" >&2
		exit 2
		;;
	*) break ;;
	esac
	shift
done

tarball=${1:-/usr/src/linux-source-6.12.tar.xz}
top=linux-source-6.12
series_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mapfile -t series < <(find "$series_dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
	! -name '0000-*' | sort)

if [[ ! -r $tarball ]]; then
	echo "check-apply.sh: $tarball not readable (apt-get install linux-source-6.12)" >&2
	exit 1
fi
if ((${#series[@]} == 0)); then
	echo "check-apply.sh: no patches in $series_dir" >&2
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/inodedump-check-apply.XXXXXX")
((keep)) || trap 'rm -rf "$work"' EXIT

members=()
if ((quick)); then
	# Files the series modifies; files it creates are not in the tarball.
	mapfile -t members < <(sed -n 's|^--- a/\(.*\)$|'"$top"'/\1|p' "${series[@]}" | sort -u)
fi
tar -xf "$tarball" -C "$work" "${members[@]}"

for p in "${series[@]}"; do
	if ! out=$(patch -d "$work/$top" -p1 --forward --batch --fuzz=0 <"$p" 2>&1); then
		printf '%s\n' "$out" >&2
		echo "check-apply.sh: FAILED: $(basename "$p") does not apply" >&2
		exit 1
	fi
	echo "applied $(basename "$p")"
done
echo "check-apply.sh: all ${#series[@]} patches apply to $(basename "$tarball")"
((keep)) && echo "$work/$top"
exit 0
