#!/usr/bin/env bash
# Build the libFuzzer targets with clang-14 in build-fuzz/ and run each for
# SECONDS (default 600) from its committed seed corpus fuzz/corpus/<target>/.
#
#   fuzz/run.sh [SECONDS] [TARGET...]      TARGET: report_parse printk
#                                          flattened json decode btf dumpfile
#                                          kallsyms
#   JOBS=2 fuzz/run.sh 600                 two targets at a time
#
# The committed corpus is only read: each run works on a copy in
# build-fuzz/corpus/<target>/ (kept between runs, so coverage accumulates).
# Logs: build-fuzz/logs/<target>.log; crashes, leaks, timeouts and
# out-of-memory inputs: build-fuzz/artifacts/<target>/. Prints per target the
# executions (libFuzzer's "#N DONE" line), coverage and any crash file; exits
# 1 if any target left one.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(report_parse printk flattened json decode btf dumpfile kallsyms btf_ondemand)
jobs=${JOBS:-1}
dir=build-fuzz

if ! command -v clang-14 >/dev/null; then
  echo "clang-14 missing: apt-get install -y clang-14 libclang-rt-14-dev" >&2
  exit 2
fi
if [ ! -d "$dir" ]; then
  CC=clang-14 meson setup "$dir" -Dfuzz=true >/dev/null
fi
ninja -C "$dir" $(printf 'fuzz/fuzz_%s ' "${targets[@]}") >/dev/null

# Library-internal allocations kept on purpose (libkdumpfile after a failed
# open, libdw/libelf caches) are not findings.
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

# Largest input each target may grow to.
declare -A max_len=([report_parse]=1024 [printk]=65536 [flattened]=131072
                    [json]=16384 [decode]=16384 [btf]=8192 [dumpfile]=65536
                    [kallsyms]=16384 [btf_ondemand]=32768)

# One target for secs seconds. libFuzzer stops at its first finding; the
# run is then restarted (same working corpus) for the time left, at most 30
# times, and the executions of every round are added up.
run_one() {
  local t=$1 work=$dir/corpus/$1 art=$dir/artifacts/$1/ log=$dir/logs/$1.log
  local extra=() start now left round=0
  mkdir -p "$work" "$art" "$dir/logs"
  : >"$log"
  [ -f "fuzz/dict/$t.dict" ] && extra+=("-dict=fuzz/dict/$t.dict")
  start=$(date +%s)
  while :; do
    now=$(date +%s)
    left=$((secs - (now - start)))
    [ "$left" -gt 0 ] && [ "$round" -lt 30 ] || break
    round=$((round + 1))
    echo "=== round $round: $left s left" >>"$log"
    # -timeout: an input taking longer is a finding (a hang), not noise.
    "$dir/fuzz/fuzz_$t" -max_total_time="$left" -print_final_stats=1 \
      -max_len="${max_len[$t]}" -timeout=25 -rss_limit_mb=2560 \
      -artifact_prefix="$art" "${extra[@]}" "$work" "fuzz/corpus/$t" \
      >>"$log" 2>&1 && break
  done
}

summary() {
  local t=$1 log=$dir/logs/$1.log done crashes execs rounds
  done=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  # One count per round (libFuzzer repeats its stats after an exit-time
  # leak report).
  execs=$(awk '/^=== round/ {seen = 0}
    /stat::number_of_executed_units/ && !seen {n += $2; seen = 1}
    END {print n + 0}' "$log")
  rounds=$(grep -c '^=== round' "$log" || true)
  printf '%-13s executions %s in %s round(s)\n' "$t" "$execs" "$rounds"
  printf '              %s\n' "${done:-no DONE line (last round ended on a finding)}"
  grep -E '^#[0-9]+' "$log" | tail -1 | sed 's/^/              last: /' || true
  grep -E 'stat::peak_rss_mb' "$log" | tail -1 | sed 's/^/              /' || true
  crashes=$(find "$dir/artifacts/$t/" -maxdepth 1 -type f -printf '%f\n' \
            2>/dev/null | sort || true)
  # A slow unit (over libFuzzer's 10 s) on a loaded machine may be the
  # load: replayed alone, one that runs in under 10 s is said and moved
  # to artifacts/<target>/replayed-fast/, not counted as a finding.
  local c t0 t1 kept=
  for c in $crashes; do
    case $c in
    slow-unit-*)
      t0=$(date +%s%N)
      "$dir/fuzz/fuzz_$t" -runs=1 "$dir/artifacts/$t/$c" >/dev/null 2>&1 || true
      t1=$(date +%s%N)
      if [ $(((t1 - t0) / 1000000)) -lt 10000 ]; then
        printf '              slow unit %s replayed in %d ms: the load, not a finding\n' \
          "$c" $(((t1 - t0) / 1000000))
        mkdir -p "$dir/artifacts/$t/replayed-fast"
        mv "$dir/artifacts/$t/$c" "$dir/artifacts/$t/replayed-fast/"
        continue
      fi ;;
    esac
    kept="$kept $c"
  done
  crashes=${kept# }
  if [ -n "$crashes" ]; then
    for c in $crashes; do
      printf '              FINDING %s\n' "$dir/artifacts/$t/$c"
    done
    grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|^SUMMARY' \
      "$log" | sort | uniq -c | sed 's/^/             /' || true
    return 1
  fi
}

pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
done
wait

status=0
for t in "${targets[@]}"; do
  summary "$t" || status=1
done
exit $status
