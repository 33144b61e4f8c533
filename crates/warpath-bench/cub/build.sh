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
source "$here/../../warpath-cuda/cub/nvcc.sh"
nvcc_cub -o "$output" "$here/cub_select.cu"
echo "$output"
