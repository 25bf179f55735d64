#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: installs what devplace needs,
# builds it, and simulates one training step of the paper's NMT (2-layer
# LSTM encoder-decoder with attention) on the paper's machine (an 18-core
# Haswell CPU + 4 K80 GPU dies, preset k80x4) under the CPU-only, single-GPU
# and expert placements, printing the results.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target devplace

graph=${DEVPLACE_DEMO_GRAPH:-zoo:nmt}
for placement in cpu single-gpu expert; do
  echo
  echo "=== devplace simulate --graph $graph --cluster k80x4 --placement $placement"
  ./build/devplace simulate --graph "$graph" --cluster k80x4 --placement "$placement"
done
