#!/usr/bin/env bash
# Builds, with the machine's nvcc for sm_90 (H100/H200), either
#   - the CUB peer of `warpath-bench compaction` (cub_select.cu, an executable), or
#   - libwarpath_cub.so (warpath_cub.cu): CUB's DeviceSelect::Flagged for the isosurface
#     pipeline `cub` (issue 14), opened at run time through --cub-lib or WARPATH_CUB_LIB.
# Usage: build.sh [OUTPUT]            the peer (default: target/cub/cub_select in the repository)
#        build.sh library [OUTPUT]    the library (default: target/cub/libwarpath_cub.so)
# Needs a CUDA toolkit (nvcc and CUB's headers); the GPU machine has one, this repo's CI
# does not, so nothing else depends on either.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mode=peer
if [ "${1:-}" = library ]; then mode=library; shift; fi
if [ $mode = library ]; then
    output="${1:-$here/../../../target/cub/libwarpath_cub.so}"
else
    output="${1:-$here/../../../target/cub/cub_select}"
fi
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
if [ $mode = library ]; then
    "$nvcc_bin" -O3 -arch=sm_90 -std=c++17 -lineinfo "${extra[@]}" -shared -Xcompiler -fPIC \
        -o "$output" "$here/warpath_cub.cu"
else
    "$nvcc_bin" -O3 -arch=sm_90 -std=c++17 -lineinfo "${extra[@]}" -o "$output" "$here/cub_select.cu"
fi
echo "$output"
