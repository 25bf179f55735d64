#!/usr/bin/env bash
# Installs what devplace needs, builds it, and runs every test twice: in the
# release build (GCC), and in an AddressSanitizer + UndefinedBehaviorSanitizer
# build (clang, scripts/sanitizer_build.sh; it skips the benchmarks and
# builds the fuzzers too). Prints how long each
# phase took.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
phase() {
  echo "test.sh: $1 took $((SECONDS - start)) s"
  start=$SECONDS
}

bash scripts/setup.sh
phase setup

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
phase "release build"
ctest --test-dir build --output-on-failure -j "$(nproc)"
phase "release tests"

source scripts/sanitizer_build.sh
configure_sanitizer_build
cmake --build build-asan
phase "sanitizer build"
# Run once, in the release build above: the two statistical tests of learning
# quality (3 minutes under the sanitizers, for the same code paths that the
# shorter rl tests exercise there), the budget test of every trainer (69 s
# under the sanitizers; each trainer's loop runs there in the rl and
# checkpoint tests), the Python and Chromium tools' tests (their devplace
# commands are the CLI tests'), and the mpirun test (64 s under the
# sanitizers; its processes' faults are what it checks). The first three are
# also in tests/CMakeLists.txt's devplace_release_only_tests, the filter of
# the LibTorch test binaries, which run as one process each there.
once='Learning\.FromScratchTheMeanSampleImprovesAndBeatsRandomSampling|Rl\.NearTheExhaustiveOptimumOnTinyGraphs|Learned\.EveryTrainerHonoursTheEvaluationBudget|export_torch_test|measure_torch_test|report_browser_test|mpi_test'
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -E "$once"
phase "sanitizer tests"
