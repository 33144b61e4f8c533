// surface_megakernel.cu — the naive megakernel of seed 000 (appendix B.1) over the surface
// estimator: schedules/naive.cuh instantiated for SurfaceEstimator (naive_surface). One thread
// per pixel traces this launch's samples of its pixel, whole paths from generate to
// termination (surface/estimator.cuh: generate, extend — illuminate, bounce), then adds its
// sums to the film. Its own program, so `--strategy naive` compiles only this.
//
// Also megakernel_layout_report: sizeof/offsetof of the estimator's Pod structs as the
// device compiler sees them, for the GPU layout test.
#include "schedules/kernels.cuh"
#include "surface/stages.cuh"

WARPATH_NAIVE_KERNEL(SurfaceEstimator, surface)

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
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, iso_shape_count));
    WARPATH_REPORT(WARPATH_OFFSETOF(GpuSceneParams, iso_shapes));
    *written = n;
}
