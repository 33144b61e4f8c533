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
source "$here/nvcc.sh"
nvcc_cub -shared -Xcompiler -fPIC -o "$output" "$here/warpath_cub.cu"
echo "$output"
