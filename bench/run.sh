#!/bin/bash
# inodedump benchmark: vmcore-inode against drgn (and crash) on the fixture
# vmcores. One command; prints a Markdown report on stdout, progress on stderr.
#
#   bench/run.sh [--runs N] [--no-profile] [--no-crash] [--no-sid]
#                [--vmcore-inode PATH] [--baseline PATH]
#                [--sweep-scale]   (the big sets' sweep rows: bench/sweep_bench.py)
#                [--follow]        (--live --follow's latency in the follow73
#                                   guest: bench/follow_bench.py)
#   bench/run.sh --follow-only [--runs N]     (that section alone)
#   bench/run.sh --live-sweep-only [--runs N] (issue 43: --live --sweep in the
#                             follow73 guest against its dump's sweep and drgn's
#                             s_inodes walk: bench/kcore_bench.py)
#   bench/run.sh --kernels-only [--runs N] [--only SET,..]  (issue 40 item 3:
#                             one inode on each kernel, warm and cold, beside drgn)
#   bench/run.sh --sweep-only [--set big|big73] [--stages ..] [--formats ..]
#                             (that section alone)
#
# The one entry point: bench.py, which imports sweep_bench.py,
# follow_bench.py and kcore_bench.py; what they use is in common.py.
#
# Needs the fixture sets (tests/vmcores/make-fixtures.sh): tests/vmcores/out/stock
# and, when it has been built, tests/vmcores/out/patched. See bench/README.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
PY=/usr/bin/python3      # Debian's python3: the one with python3-drgn

# Tools: package:binary. Installed when missing and we are root; the
# profile's and crash's tools only when those parts run.
need=""
tools="time:/usr/bin/time python3-drgn: binutils:readelf"
case " $* " in *" --no-profile "*) ;; *) tools="$tools valgrind:valgrind linux-perf:perf gdb:gdb" ;; esac
case " $* " in *" --no-crash "*) ;; *) tools="$tools crash:crash" ;; esac
for entry in $tools; do
	pkg=${entry%%:*} bin=${entry#*:}
	if [ -n "$bin" ]; then
		command -v "$bin" >/dev/null 2>&1 || need="$need $pkg"
	else
		"$PY" -c 'import drgn' 2>/dev/null || need="$need $pkg"
	fi
done
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "bench: installing:$need" >&2
		apt-get install -y --no-install-recommends $need >&2
	else
		echo "bench: missing packages:$need (apt-get install$need)" >&2
		exit 1
	fi
fi

# Build vmcore-inode in a build directory of its own (meson's default
# buildtype here is debugoptimized, -O2 -g, as in build/), so that a rebuild of
# build/ by someone else cannot pull the binary away in the middle of a run.
# --vmcore-inode PATH measures that binary instead.
case " $* " in
*" --vmcore-inode "*) ;;
*)
	if [ ! -f "$ROOT/build-bench/build.ninja" ]; then
		meson setup "$ROOT/build-bench" "$ROOT" >&2
	fi
	ninja -C "$ROOT/build-bench" vmcore-inode floor_ours >&2
	set -- --vmcore-inode "$ROOT/build-bench/vmcore-inode" "$@"
	;;
esac

exec "$PY" "$HERE/bench.py" "$@"
