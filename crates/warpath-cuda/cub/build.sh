#!/usr/bin/env bash
# Builds, with the machine's nvcc for sm_90 (H100/H200), libwarpath_cub.so (warpath_cub.cu):
# CUB's DeviceSelect::Flagged for the isosurface pipeline `cub` (`warpath isosurface
# --pipeline cub`), opened at run time through --cub-lib or WARPATH_CUB_LIB.
# Usage: build.sh library [OUTPUT]    (default: target/cub/libwarpath_cub.so in the repository)
# The CUB peer of `warpath-bench compaction` is crates/warpath-bench/cub/build.sh.
# Needs a CUDA toolkit (nvcc and CUB's headers); the GPU machine has one, this repo's CI
# does not, so nothing else depends on it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ "${1:-}" != library ]; then
    echo "usage: build.sh library [OUTPUT]  (the compaction benchmark's CUB peer: crates/warpath-bench/cub/build.sh)" >&2
    exit 2
fi
shift
output="${1:-$here/../../../target/cub/libwarpath_cub.so}"
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
"$nvcc_bin" -O3 -arch=sm_90 -std=c++17 -lineinfo "${extra[@]}" -shared -Xcompiler -fPIC \
    -o "$output" "$here/warpath_cub.cu"
echo "$output"
