// megakernel.cu — the naive megakernel of seed 000 (appendix B.1): one thread per pixel on
// a 2D grid (8×8 blocks by default, configurable from Rust), each thread tracing this
// launch's samples first_sample .. first_sample + sample_count of its pixel, every path
// from generate to termination (surface/estimator.cuh: generate, extend — illuminate,
// bounce — accumulate), then adding its sums to the film. No path state leaves registers
// and no compaction happens: threads whose paths end early idle until the warp's longest
// path is done, the baseline the compaction strategies are measured against.
//
// Also megakernel_layout_report: sizeof/offsetof of the estimator's Pod structs as the
// device compiler sees them, for the GPU layout test.
#include "surface/estimator.cuh"

extern "C" __global__ void megakernel_render(
    const GpuSceneParams* __restrict__ params, const float4* __restrict__ bvh_nodes,
    const float4* __restrict__ bvh_triangles, const int* __restrict__ bvh_triangle_ids,
    const float* __restrict__ positions, const float* __restrict__ normals, const float* __restrict__ uvs,
    const unsigned int* __restrict__ triangles, const unsigned int* __restrict__ triangle_materials,
    const Material* __restrict__ materials, const int* __restrict__ triangle_to_light,
    const TriangleLight* __restrict__ lights, const float* __restrict__ light_cdf,
    const float* __restrict__ env_pixels, const float* __restrict__ env_conditional_cdf,
    const float* __restrict__ env_marginal_cdf, const float* __restrict__ texels,
    const GpuTexture* __restrict__ textures, float* __restrict__ film_sum, float* __restrict__ film_sum_sq,
    unsigned int* __restrict__ film_count, unsigned long long* __restrict__ counters, unsigned int first_sample,
    unsigned int sample_count) {
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned int width = params->width;
    if (x >= width || y >= params->height) return;

    EstimatorContext ctx;
    ctx.scene.params = params;
    ctx.scene.bvh = TraversalScene{bvh_nodes, bvh_triangles, bvh_triangle_ids};
    ctx.scene.positions = positions;
    ctx.scene.normals = normals;
    ctx.scene.uvs = uvs;
    ctx.scene.triangles = triangles;
    ctx.scene.triangle_materials = triangle_materials;
    ctx.scene.materials = materials;
    ctx.scene.triangle_to_light = triangle_to_light;
    ctx.scene.lights = lights;
    ctx.scene.light_cdf = light_cdf;
    ctx.scene.env_pixels = env_pixels;
    ctx.scene.env_conditional_cdf = env_conditional_cdf;
    ctx.scene.env_marginal_cdf = env_marginal_cdf;
    ctx.scene.texels = texels;
    ctx.scene.textures = textures;
    ctx.sampler.kind = params->sampler;
    ctx.sampler.seed = params->seed;
    ctx.counters = counters;

    const unsigned int pixel = y * width + x;
    PixelAccumulator acc = empty_accumulator();
    for (unsigned int sample = first_sample; sample < first_sample + sample_count; ++sample) {
        const PathState path = trace_path(ctx, pixel, sample);
        accumulate(acc, path);
    }
    store_film(film_sum, film_sum_sq, film_count, pixel, acc);
}

#define WARPATH_REPORT(value)                               \
    do {                                                    \
        if (n < capacity) values[n] = (unsigned long long)(value); \
        ++n;                                                \
    } while (0)

// Sizes and field offsets, in the order of warpath_cuda::scene_upload::layout_entries.
extern "C" __global__ void megakernel_layout_report(unsigned long long* values, unsigned int capacity,
                                                    unsigned int* written) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    unsigned int n = 0;
    WARPATH_REPORT(sizeof(GpuCamera));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuCamera, to_world));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuCamera, tan_half_fov));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuCamera, aperture_radius));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuCamera, focus_distance));
    WARPATH_REPORT(sizeof(GpuTexture));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuTexture, width));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuTexture, height));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuTexture, offset));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuTexture, _pad));
    WARPATH_REPORT(sizeof(GpuSceneParams));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, camera));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, env_to_world));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, env_to_local));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, env_constant));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, env_scale));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, env_kind));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, env_width));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, env_height));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, env_is_black));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, width));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, height));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, max_depth));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, seed));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, sampler));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, rr_threshold));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, triangle_count));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, material_count));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, light_count));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, selection_count));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, has_normals));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, has_uvs));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, texture_count));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, _pad));
    *written = n;
}
