// isosurface.cu — the isosurface ray casters (issue 14, seed 001): the single-kernel caster
// of rays (iso_cast_single, for the hit-for-hit test) and of images (iso_render_single:
// isosurface/render.cuh; iso_render_single_f32 the same in f32), the per-isovalue tree
// update (isosurface/update.cuh: in one launch, or the seed's level by level), and the
// pipelines of isosurface/pipeline.cuh: the single kernel over the pipeline's stages and,
// per compaction method, the multi-kernel stages.
#include "isosurface/pipeline.cuh"
#include "isosurface/update.cuh"

extern "C" __global__ void __launch_bounds__(256) iso_cast_single(IsoArgs a) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.ray_count) return;
    if (a.root_slot != nullptr) a.root = *a.root_slot;
    a.hits[i] = iso_cast(a, a.rays[i]).hit;
}

// The pixel of this thread in a 16×16-pixel block whose warps cover 8×4 pixels each (more
// nearly square than rows of 16×2: a warp's rays cross more of the same bricks and cells).
__device__ __forceinline__ void iso_block_pixel(unsigned int& x, unsigned int& y) {
    const unsigned int warp = threadIdx.x / 32u, lane = threadIdx.x % 32u;
    x = blockIdx.x * 16u + (warp % 2u) * 8u + lane % 8u;
    y = blockIdx.y * 16u + (warp / 2u) * 4u + lane / 8u;
}

// An image (isosurface/render.cuh): 16×16 pixels a block, one thread per pixel.
extern "C" __global__ void __launch_bounds__(256) iso_render_single(IsoRenderArgs a) {
    unsigned int x, y;
    iso_block_pixel(x, y);
    if (x >= a.width || y >= a.height) return;
    iso_render_pixel<double>(a, x, y);
}

// The same in f32 (the `caster-f32` pipeline): the speed experiment; hits within a tolerance.
// The same code under register caps (`caster-f32-r80`, `caster-f32-r64`: at least 3 or 4
// blocks of 256 threads per SM, so at most 80 or 64 registers a thread): occupancy traded
// for spills, the same arithmetic (hits equal to caster-f32's).
#define ISO_RENDER_F32(NAME, MIN_BLOCKS)                                                                     \
    extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) NAME(IsoRenderArgs a) {                  \
        unsigned int x, y;                                                                                 \
        iso_block_pixel(x, y);                                                                             \
        if (x >= a.width || y >= a.height) return;                                                         \
        iso_render_pixel<float>(a, x, y);                                                                  \
    }
ISO_RENDER_F32(iso_render_single_f32, 1)
ISO_RENDER_F32(iso_render_single_f32_r80, 3)
ISO_RENDER_F32(iso_render_single_f32_r64, 4)

// The tree of an isovalue, by one block (isosurface/update.cuh).
extern "C" __global__ void __launch_bounds__(1024) iso_update_tree(IsoUpdateArgs a) { iso_update_levels(a); }

// The tree of an isovalue in one launch, a thread per brick (isosurface/update.cuh).
extern "C" __global__ void __launch_bounds__(256) iso_update_climb(IsoClimbArgs a) { iso_climb_from_brick(a); }

// One wide level of the tree by the whole grid (before iso_update_tree takes the rest).
extern "C" __global__ void __launch_bounds__(256) iso_update_level(IsoUpdateArgs a, unsigned int level) {
    iso_update_one_level(a, level);
}

// The single-kernel pipeline: one thread per ray slot (16×16-pixel tiles) through every stage.
extern "C" __global__ void __launch_bounds__(256) iso_pipeline_single(IsoPipelineArgs a) {
    const unsigned int slot = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int pixel;
    if (slot < iso_ray_slots(a.frame) && iso_slot_pixel(a.frame, slot, pixel)) iso_pipeline_pixel(a, pixel);
}

extern "C" __global__ void __launch_bounds__(256) iso_shade(IsoPipelineArgs a, const unsigned int* in,
                                                            const unsigned int* in_count, unsigned int* shadow_items,
                                                            unsigned int* shadow_count) {
    iso_shade_queue(a, in, in_count, shadow_items, shadow_count);
}

extern "C" __global__ void __launch_bounds__(256) iso_shade_shadows(IsoPipelineArgs a, const unsigned int* in,
                                                                    const unsigned int* in_count) {
    iso_shadow_queue(a, in, in_count);
}

#define ISO_STAGES(SUFFIX, METHOD)                                                                            \
    extern "C" __global__ void __launch_bounds__(256) iso_generate_##SUFFIX(IsoPipelineArgs a, IsoStageOut out) { \
        iso_generate<METHOD>(a, out);                                                                         \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(256)                                                         \
        iso_traverse_##SUFFIX(IsoPipelineArgs a, const unsigned int* in, const unsigned int* in_count,        \
                              unsigned int bound, IsoStageOut out) {                                          \
        iso_traverse<METHOD>(a, in, in_count, bound, out);                                                    \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(256)                                                         \
        iso_intersect_##SUFFIX(IsoPipelineArgs a, const unsigned int* in, const unsigned int* in_count,       \
                               unsigned int bound, IsoStageOut to_traverse, IsoStageOut to_shade) {           \
        iso_intersect<METHOD>(a, in, in_count, bound, to_traverse, to_shade);                                 \
    }

ISO_STAGES(collate, ISO_COLLATE)
ISO_STAGES(compact, ISO_COMPACT)
ISO_STAGES(lookback, ISO_LOOKBACK)
ISO_STAGES(flags, ISO_FLAGS)
