#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: installs what devplace needs,
# builds it, and simulates one training step of the paper's NMT (2-layer
# LSTM encoder-decoder with attention) on the paper's machine (an 18-core
# Haswell CPU + 4 K80 GPU dies, preset k80x4) under every placement method,
# printing the comparison table, then writes the local-search placement.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target devplace

graph=${DEVPLACE_DEMO_GRAPH:-zoo:nmt}
echo
echo "=== devplace compare --graph $graph --cluster k80x4"
./build/devplace compare --graph "$graph" --cluster k80x4
echo
echo "=== devplace place --graph $graph --cluster k80x4 --method local-search --out placement.json"
./build/devplace place --graph "$graph" --cluster k80x4 --method local-search --out placement.json
