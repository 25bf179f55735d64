#!/usr/bin/env bash
# Configures build-asan: clang, AddressSanitizer + UndefinedBehaviorSanitizer
# and libFuzzer's coverage instrumentation, tests included. One build serves
# scripts/test.sh's sanitized tests and scripts/fuzz.sh's fuzzers (CI used
# to compile the importers a third time for the fuzzers). Sourced by both.
configure_sanitizer_build() {
  CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDEVPLACE_SANITIZE=ON -DDEVPLACE_FUZZ=ON >/dev/null
}
