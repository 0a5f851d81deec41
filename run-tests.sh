#!/usr/bin/env bash
# The whole test suite: build the fixture sets (cached under
# ~/.cache/inodedump, keyed by their inputs), build inodedump with
# AddressSanitizer and UBSan, run every test, and end with
# "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")"

tests/vmcores/make-fixtures.sh all

# A plain build must compile warning-free too.
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null

dir=build-sanitize
if [ ! -d "$dir" ]; then
  meson setup "$dir" -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
ninja -C "$dir" >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
status=0
rm -f "$dir"/meson-logs/testlog.json "$dir"/meson-logs/rest.json
if [ $# -eq 0 ]; then
  # The fast unit tests first (no fixture), then everything else; one log.
  meson test -C "$dir" --print-errorlogs --suite unit || status=$?
  meson test -C "$dir" --print-errorlogs --num-processes 2 --no-suite unit \
    --logbase rest || status=$?
else
  meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" || status=$?
fi

/usr/bin/python3 - "$dir"/meson-logs/testlog.json "$dir"/meson-logs/rest.json <<'PY'
import json, os, sys
passed = failed = 0
lines = []
for p in sys.argv[1:]:
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
