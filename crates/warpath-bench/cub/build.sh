#!/usr/bin/env bash
# Builds the CUB peer of `warpath-bench compaction` (cub_select.cu, an executable that times
# CUB's DeviceSelect::If and ::Flagged on the benchmark's data) with the machine's nvcc for
# sm_90 (H100/H200). An experiment's tool, not part of the product; the CUB library the
# isosurface pipeline `cub` opens is crates/warpath-cuda/cub/ (`build.sh library`).
# Usage: build.sh [OUTPUT]   (default: target/cub/cub_select in the repository)
# Needs a CUDA toolkit (nvcc and CUB's headers); the GPU machine has one, this repo's CI
# does not, so nothing else depends on it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
output="${1:-$here/../../../target/cub/cub_select}"
mkdir -p "$(dirname "$output")"
nvcc_bin="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
if [ ! -x "$nvcc_bin" ]; then
    echo "build.sh: nvcc not found (PATH or /usr/local/cuda/bin)" >&2
    exit 1
fi
"$nvcc_bin" --version | tail -1 >&2
# CUB ships with the toolkit (CCCL); some layouts keep it under include/cccl.
extra=()
cuda_root="$(cd "$(dirname "$nvcc_bin")/.." && pwd)"
if [ -d "$cuda_root/include/cccl" ]; then extra+=("-I$cuda_root/include/cccl"); fi
"$nvcc_bin" -O3 -arch=sm_90 -std=c++17 -lineinfo "${extra[@]}" -o "$output" "$here/cub_select.cu"
echo "$output"
