// isosurface.cu — the single-kernel isosurface ray caster (issue 14, seed 001's "single
// kernel" pipeline): one thread per ray, from the lattice box to its first hit through the
// condensed brick tree of the isovalue (isosurface/caster.cuh).
#include "isosurface/caster.cuh"

extern "C" __global__ void __launch_bounds__(256) iso_cast_single(IsoArgs a) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.ray_count) return;
    a.hits[i] = iso_cast(a, a.rays[i]);
}
