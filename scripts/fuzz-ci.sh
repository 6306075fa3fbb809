#!/usr/bin/env bash
# CI fuzzing stage: build the `fuzz` preset (clang 14, libFuzzer, ASan + UBSan, coverage
# counters in the library, WIRESEAL_FUZZING_UNSAFE: every tag verifies), then run every fuzz
# target for WIRESEAL_FUZZ_SECONDS (default 60) seconds, two at a time (the CI machine has two
# cores), each from a copy of its committed corpus (fuzz/corpus/<target>; nothing is written
# back). Fails if any target crashes, leaks, times out, runs out of memory or hits a sanitizer
# report; prints per target the executions, final edge (cov) and feature (ft) counts and the
# corpus size (seeds, after the run, after -merge=1), then a summary table and the stage time.
#
#   WIRESEAL_FUZZ_SECONDS=600 bash scripts/fuzz-ci.sh          # longer runs
#   WIRESEAL_FUZZ_TARGETS="srtp_batch dtls_roundtrip" bash scripts/fuzz-ci.sh
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
seconds="${WIRESEAL_FUZZ_SECONDS:-60}"
jobs_at_once="${WIRESEAL_FUZZ_JOBS:-2}"
fuzz_dir=build/fuzz/fuzz
work=build/fuzz/fuzz-ci

# The target list is fuzz/CMakeLists.txt's WIRESEAL_FUZZ_TARGETS (every target has a corpus).
all_targets() {
  sed -n '/^set(WIRESEAL_FUZZ_TARGETS/,/)/p' fuzz/CMakeLists.txt |
    sed -e 's/set(WIRESEAL_FUZZ_TARGETS//' -e 's/)//' | tr -s ' \n' '\n' | sed '/^$/d'
}
read -r -a targets <<< "$(echo ${WIRESEAL_FUZZ_TARGETS:-$(all_targets)})"

echo "--- building the fuzz preset (-j2)"
cmake --preset fuzz > "${TMPDIR:-/tmp}/wireseal-fuzz-configure.log" ||
  { cat "${TMPDIR:-/tmp}/wireseal-fuzz-configure.log"; exit 1; }
cmake --build --preset fuzz -j 2 --target $(printf 'fuzz_%s ' "${targets[@]}")
built=$(date +%s)
echo "--- build done in $(( built - start )) s; ${#targets[@]} targets x ${seconds} s, ${jobs_at_once} at a time"

rm -rf "$work"
mkdir -p "$work"

# value KEY LOG: the number after "KEY" on the last libFuzzer status line that has it.
value() { grep -o "$1 *[0-9]*" "$2" | tail -n 1 | grep -o '[0-9]*$' || echo "?"; }

# run_target T: fuzz T, merge its corpus, write "T status execs cov ft seeds after merged"
# to $work/T/result and print the same line.
run_target() {
  local t=$1 dir="$work/$1"
  mkdir -p "$dir/corpus" "$dir/merged" "$dir/artifacts"
  cp fuzz/corpus/"$t"/* "$dir/corpus/"
  local seeds status=ok
  seeds=$(find "$dir/corpus" -type f | wc -l)
  # detect_leaks: LeakSanitizer after every input libFuzzer suspects; a slow input (30 s) or
  # 2.5 GB of RSS is a failure too.
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$fuzz_dir/fuzz_$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2560 \
      -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$dir/corpus" > "$dir/log" 2>&1; then
    status=FAILED
  fi
  if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|fuzz property violated' \
      "$dir/log" || [ -n "$(ls -A "$dir/artifacts")" ]; then
    status=FAILED
  fi
  local after merged="-"
  after=$(find "$dir/corpus" -type f | wc -l)
  if [ "$status" = ok ]; then
    "$fuzz_dir/fuzz_$t" -merge=1 "$dir/merged" "$dir/corpus" > "$dir/merge.log" 2>&1 || status=FAILED
    merged=$(find "$dir/merged" -type f | wc -l)
  fi
  local line
  line=$(printf '%-24s %-6s %10s %6s %7s %6s %6s %7s' "$t" "$status" \
    "$(value 'stat::number_of_executed_units:' "$dir/log")" "$(value 'cov:' "$dir/log")" \
    "$(value 'ft:' "$dir/log")" "$seeds" "$after" "$merged")
  echo "$line" > "$dir/result"
  echo "$line"
  if [ "$status" != ok ]; then
    echo "--- $t failed; end of its log ($dir/log):"
    grep -vE '^#[0-9]+ +(NEW|REDUCE|pulse)' "$dir/log" | tail -n 40
    ls -l "$dir/artifacts"
  fi
}

header=$(printf '%-24s %-6s %10s %6s %7s %6s %6s %7s' target status execs cov ft seeds after merged)
echo "$header"
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do
    wait -n || true
  done
  run_target "$t" &
done
wait || true

echo
echo "=== fuzz summary (${seconds} s per target; corpus: seeds / after the run / after -merge=1)"
echo "$header"
failed=0
for t in "${targets[@]}"; do
  if [ -f "$work/$t/result" ]; then
    cat "$work/$t/result"
    grep -q ' ok ' "$work/$t/result" || failed=$((failed + 1))
  else
    printf '%-24s %-6s\n' "$t" "NORUN"
    failed=$((failed + 1))
  fi
done
end=$(date +%s)
echo "=== fuzz stage took $(( end - start )) s (build $(( built - start )) s, fuzzing $(( end - built )) s)"
if [ "$failed" -ne 0 ]; then
  echo "=== $failed fuzz target(s) failed: logs and crashing inputs under $work/<target>/"
  exit 1
fi
