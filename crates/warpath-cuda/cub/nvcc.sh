# nvcc.sh — sourced by the CUB build scripts (crates/warpath-cuda/cub/build.sh, the product's
# CUB library; crates/warpath-bench/cub/build.sh, the compaction benchmark's CUB peer): finds
# nvcc and CUB's headers and defines `nvcc_cub ARGS...`, nvcc with the flags both builds share.
nvcc_bin="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
if [ ! -x "$nvcc_bin" ]; then
    echo "build.sh: nvcc not found (PATH or /usr/local/cuda/bin)" >&2
    exit 1
fi
"$nvcc_bin" --version | tail -1 >&2
# CUB ships with the toolkit (CCCL); some layouts keep it under include/cccl.
nvcc_extra=()
cuda_root="$(cd "$(dirname "$nvcc_bin")/.." && pwd)"
if [ -d "$cuda_root/include/cccl" ]; then nvcc_extra+=("-I$cuda_root/include/cccl"); fi
nvcc_cub() { "$nvcc_bin" -O3 -arch=sm_90 -std=c++17 -lineinfo "${nvcc_extra[@]}" "$@"; }
