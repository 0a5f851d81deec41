#!/usr/bin/env bash
# The whole test suite, in two tiers (tests/README.md):
#
#   ./run-tests.sh            the quick tier (unit tests and the real
#                             dumps committed in tests/vmcores/: no fixture
#                             cache, no network) while the fixture sets
#                             build (or are reused, cached under
#                             ~/.cache/inodedump, keyed by their inputs),
#                             then every test that reads them (suite
#                             'matrix'); a missing set fails its tests
#   ./run-tests.sh --quick    the quick tier alone (`meson test` runs the
#                             same in a plain build)
#   ./run-tests.sh ARGS...    meson test --setup full ARGS (e.g. --suite
#                             arm64), the sets it needs already built
#                             (tests/vmcores/make-fixtures.sh SET)
#
# Everything runs in a build with AddressSanitizer and UBSan; the last line
# is "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")"
quick=0
if [ "${1:-}" = --quick ]; then
  quick=1
  shift
fi

# The whole matrix: the fixture sets build from the start, beside the two
# builds and the quick tier, which need none of them (from an empty cache
# that brings the longest path, the sets, ~2 minutes forward: CI's 90;
# tests/vmcores/README.md). In a session of its own, so that a failed build
# below stops it and every guest and compiler it started.
fx_pid=
# shellcheck disable=SC2317  # run by the traps below
stop_fixtures() {
  if [ -n "$fx_pid" ]; then
    kill -- -"$fx_pid" 2>/dev/null || true
    fx_pid=
  fi
}
if [ $quick -eq 0 ] && [ $# -eq 0 ]; then
  setsid tests/vmcores/make-fixtures.sh all &
  fx_pid=$!
  trap stop_fixtures EXIT
  trap 'stop_fixtures; exit 130' INT TERM
fi

# A plain build must compile warning-free too.
[ -d build ] || meson setup build >/dev/null
# (quiet; on a failure ninja runs again to show the compiler's error)
ninja -C build >/dev/null || ninja -C build

dir=build-sanitize
if [ ! -d "$dir" ]; then
  meson setup "$dir" -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
ninja -C "$dir" >/dev/null || ninja -C "$dir"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
status=0
rm -f "$dir"/meson-logs/*.json
if [ $quick -eq 1 ] || [ $# -eq 0 ]; then
  # The quick tier: nothing to build or fetch first.
  meson test -C "$dir" --print-errorlogs --num-processes 2 || status=$?
fi
if [ -n "$fx_pid" ]; then
  # The fixture sets (started above), then everything that reads them; one
  # more log.
  wait "$fx_pid" || status=$?
  fx_pid=
  meson test -C "$dir" --print-errorlogs --num-processes 2 --setup full \
    --suite matrix --logbase rest || status=$?
elif [ $quick -eq 0 ]; then
  meson test -C "$dir" --print-errorlogs --num-processes 2 --setup full "$@" \
    || status=$?
fi

# meson names a log by its --logbase and --setup (testlog.json, rest-full.json)
/usr/bin/python3 - "$dir"/meson-logs <<'PY'
import glob, json, os, sys
passed = failed = 0
lines = []
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    if os.path.exists(p):
        lines += open(p).readlines()
for line in lines:
    r = json.loads(line)
    if r["result"] == "OK":
        passed += 1
    else:
        failed += 1
        print("failed:", r["name"], r["result"])
print(f"{passed} passed, {failed} failed")
PY
exit $status
