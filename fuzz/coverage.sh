#!/usr/bin/env bash
# Line coverage of lib/ by the fuzzers' corpora: builds the targets with
# clang source-based coverage in build-fuzz-cov/, replays each target's
# working corpus (build-fuzz/corpus/<target>, else fuzz/corpus/<target>)
# once, and prints llvm-cov's per-file report of lib/.
#
#   fuzz/coverage.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(report_parse printk flattened json decode btf)
dir=build-fuzz-cov
if [ ! -d "$dir" ]; then
  CC=clang-14 meson setup "$dir" -Dfuzz=true \
    -Dc_args='-fprofile-instr-generate -fcoverage-mapping' \
    -Dc_link_args='-fprofile-instr-generate' >/dev/null
fi
ninja -C "$dir" $(printf 'fuzz/fuzz_%s ' "${targets[@]}") >/dev/null
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
rm -rf "$dir/profiles"
mkdir -p "$dir/profiles"
# The files each target is about (its line coverage is shown).
declare -A focus=([report_parse]="lib/log/reports.c" [printk]="lib/log/ring.c lib/log/reports.c"
  [flattened]="lib/target/target.c lib/target/vmcoreinfo.c lib/target/flattened.c lib/target/kdumpfile.c"
  [dumpfile]="lib/target/diskdump.c lib/target/elf.c lib/target/pagecache.c"
  [json]="lib/output/report.c lib/decode/decode.c"
  [decode]="lib/decode/decode.c lib/decode/rows.c lib/decode/layout.c lib/decode/facts.c lib/decode/memo.c lib/decode/inode.c lib/core/notes.c lib/decode/paths.c lib/decode/holders.c lib/types/modules.c lib/checks/checks.c lib/output/report.c"
  [btf]="lib/types/btf.c")
bins=()
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  [ -d "$corpus" ] || corpus=fuzz/corpus/$t
  # Inputs known to hang or crash are left out of the replay.
  LLVM_PROFILE_FILE="$PWD/$dir/profiles/$t.profraw" \
    "$dir/fuzz/fuzz_$t" -runs=0 -timeout=25 -rss_limit_mb=2560 \
    -artifact_prefix="$dir/profiles/" "$corpus" >"$dir/profiles/$t.log" 2>&1 || true
  bins+=("$dir/fuzz/fuzz_$t")
  llvm-profdata-14 merge -o "$dir/profiles/$t.profdata" "$dir/profiles/$t.profraw"
  echo "== $t (lines: total, missed, cover)"
  grep -m1 -E '^SUMMARY|ERROR: libFuzzer' "$dir/profiles/$t.log" >&2 || true
  llvm-cov-14 report "$dir/fuzz/fuzz_$t" -instr-profile="$dir/profiles/$t.profdata" \
    | awk -v want=" ${focus[$t]} " 'index(want, " " $1 " ") {
        printf "   %-18s %5s %5s %8s\n", $1, $8, $9, $10}' 
done
llvm-profdata-14 merge -o "$dir/profiles/all.profdata" "$dir"/profiles/*.profraw
echo "all targets, per file:"
others=()
for b in "${bins[@]:1}"; do others+=(-object "$b"); done
llvm-cov-14 report "${bins[0]}" "${others[@]}" \
  -instr-profile="$dir/profiles/all.profdata" | grep -E '^(Filename|lib/|TOTAL)' 
