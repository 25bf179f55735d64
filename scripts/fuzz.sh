#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan; in build-asan, shared with scripts/test.sh) and runs each for
# FUZZ_SECONDS (default 20) from the seed corpus under fuzz/corpus/, then
# prints how many inputs each ran without a crash. Exits non-zero on a crash.
# FUZZ_SEED (default 1) fixes the mutation sequence, so a CI run repeats;
# inputs that crash a library devplace cannot fix are kept in fuzz/known_crashes/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}

# The sanitizer build of scripts/test.sh: after it, nothing is left to compile.
source scripts/sanitizer_build.sh
configure_sanitizer_build
build=build-asan
targets=$(cd $build && ninja -t targets all | sed -n 's|^\(fuzz/fuzz_[a-z_]*\): .*|\1|p' | sort -u)
ninja -C $build $(for t in $targets; do printf '%s ' "$t"; done) >/dev/null

status=0
for t in $targets; do
  name=${t#fuzz/fuzz_}
  work=$(mktemp -d)
  cp -r "fuzz/corpus/$name/." "$work/" 2>/dev/null || true
  log="$build/$name.log"
  if "$build/$t" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$build/crash-$name-" "$work" >"$log" 2>&1; then
    # The last count is the fuzzer's own (children of the ONNX shape-inference guard may print theirs).
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "fuzz $name: $runs inputs in ${seconds}s, no crash"
  else
    echo "fuzz $name: CRASH (see $log and $build/crash-$name-*)"
    tail -20 "$log"
    status=1
  fi
  rm -rf "$work"
done
exit $status
