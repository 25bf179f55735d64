#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: installs what devplace needs,
# builds it, and simulates one training step of a built-in model on the
# paper's machine (an 18-core Haswell CPU + 4 K80 GPU dies, preset k80x4)
# under each built-in placement, printing the results.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target devplace

graph=${DEVPLACE_DEMO_GRAPH:-zoo:layered:layers=24,width=4,hidden=2048}
for placement in single-gpu round-robin; do
  echo
  echo "=== devplace simulate --graph $graph --cluster k80x4 --placement $placement"
  ./build/devplace simulate --graph "$graph" --cluster k80x4 --placement "$placement"
done
