// isosurface.cu — the single-kernel isosurface ray caster (issue 14, seed 001's "single
// kernel" pipeline): one thread per ray, from the lattice box to its first hit through the
// condensed brick tree of the isovalue (isosurface/caster.cuh); iso_render_single also
// makes each pixel's ray and shades its hit (isosurface/render.cuh).
#include "isosurface/render.cuh"

extern "C" __global__ void __launch_bounds__(256) iso_cast_single(IsoArgs a) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.ray_count) return;
    a.hits[i] = iso_cast(a, a.rays[i]).hit;
}

// An image (isosurface/render.cuh): 16×16 pixels a block, one thread per pixel.
extern "C" __global__ void __launch_bounds__(256) iso_render_single(IsoRenderArgs a) {
    const unsigned int x = blockIdx.x * 16u + threadIdx.x % 16u, y = blockIdx.y * 16u + threadIdx.x / 16u;
    if (x >= a.width || y >= a.height) return;
    iso_render_pixel(a, x, y);
}
