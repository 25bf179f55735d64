#!/usr/bin/env bash
# Installs every Debian 12 package devplace needs to build, test and benchmark.
# Idempotent; run as root on a fresh machine. Packages already present are left alone.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # toolchain: GCC 12, CMake 3.25, Ninja
  nlohmann-json3-dev                             # JSON reader/writer (header-only)
  libsimdjson-dev                                # fast path of the graph JSON reader
  libgtest-dev libgmock-dev googletest           # GoogleTest through CTest
  libbenchmark-dev                               # Google Benchmark (devplace_bench)
  libonnx-dev libprotobuf-dev protobuf-compiler  # ONNX importer (libonnx + shape inference)
  python3-torch python3-torchvision python3-onnx # tools/export_torch.py, ONNX fixtures (/usr/bin/python3)
  python3-protobuf                               # tools/make_tf_fixtures.py (TensorFlow GraphDef fixtures)
  libopenblas0-pthread                           # fast BLAS for torch (the reference BLAS is ~7x slower)
  clang libclang-rt-14-dev                       # libFuzzer targets for the importers
  libscotch-dev libmetis-dev                     # graph partitioners behind the scotch, mincut and metis placers
  libtorch-dev                                   # LibTorch (CPU) for the rl placer; only src/rl/ includes its headers
  libopenmpi-dev openmpi-bin                     # distributed RL training (mpirun ... --distributed)
  chromium                                       # the HTML report's headless-browser test (tests/report)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup.sh: missing packages (${missing[*]}); run as root to install them" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup.sh: all ${#packages[@]} packages present"
