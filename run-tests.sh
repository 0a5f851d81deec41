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
meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" || status=$?

/usr/bin/python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["result"] == "OK":
        passed += 1
    else:
        failed += 1
        print("failed:", r["name"], r["result"])
print(f"{passed} passed, {failed} failed")
PY
exit $status
