// surface_stages.cu — the surface estimator's stage list for the multi-stage wavefront
// (surface/stages.cuh), and the layout report of the structs every schedule takes. The
// naive megakernel is surface_megakernel.cu, the other schedules surface_<family>.cu. Host
// side: crates/warpath-cuda/src/strategy/.
#include "schedules/kernels.cuh"
#include "surface/stages.cuh"

// sizeof/offsetof of SurfaceScheduleArgs, StoredPath, WavefrontBuffers and MultiStageQueues as the device compiler sees them, in the
// order of warpath_cuda::strategy::args::layout_entries.
extern "C" __global__ void strategies_layout_report(unsigned long long* values, unsigned int capacity,
                                                    unsigned int* written) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const unsigned long long report[] = {
        sizeof(SurfaceScheduleArgs),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, film_sum),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, film_sum_sq),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, film_count),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, counters),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, work),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, morton_lo),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, morton_scale),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, first_sample),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, padded_pixels),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, tiles_x),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, width),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, height),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, path_base),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, wave_paths),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, _pad),
        WARPATH_OFFSETOF(SurfaceScheduleArgs, scene),
        sizeof(DeviceSceneArgs),
        WARPATH_OFFSETOF(DeviceSceneArgs, params),
        WARPATH_OFFSETOF(DeviceSceneArgs, bvh),
        WARPATH_OFFSETOF(DeviceSceneArgs, positions),
        WARPATH_OFFSETOF(DeviceSceneArgs, normals),
        WARPATH_OFFSETOF(DeviceSceneArgs, uvs),
        WARPATH_OFFSETOF(DeviceSceneArgs, triangles),
        WARPATH_OFFSETOF(DeviceSceneArgs, triangle_materials),
        WARPATH_OFFSETOF(DeviceSceneArgs, materials),
        WARPATH_OFFSETOF(DeviceSceneArgs, triangle_to_light),
        WARPATH_OFFSETOF(DeviceSceneArgs, lights),
        WARPATH_OFFSETOF(DeviceSceneArgs, light_cdf),
        WARPATH_OFFSETOF(DeviceSceneArgs, env_pixels),
        WARPATH_OFFSETOF(DeviceSceneArgs, env_conditional_cdf),
        WARPATH_OFFSETOF(DeviceSceneArgs, env_marginal_cdf),
        WARPATH_OFFSETOF(DeviceSceneArgs, texels),
        WARPATH_OFFSETOF(DeviceSceneArgs, textures),
        sizeof(TraversalSceneArgs),
        WARPATH_OFFSETOF(TraversalSceneArgs, nodes),
        WARPATH_OFFSETOF(TraversalSceneArgs, triangles),
        WARPATH_OFFSETOF(TraversalSceneArgs, triangle_ids),
        sizeof(StoredPath),
        sizeof(WavefrontBuffers),
        WARPATH_OFFSETOF(WavefrontBuffers, input),
        WARPATH_OFFSETOF(WavefrontBuffers, output),
        WARPATH_OFFSETOF(WavefrontBuffers, flags),
        WARPATH_OFFSETOF(WavefrontBuffers, intermediate),
        WARPATH_OFFSETOF(WavefrontBuffers, state),
        sizeof(CompactionState),
        WARPATH_OFFSETOF(CompactionState, ticket),
        WARPATH_OFFSETOF(CompactionState, count),
        WARPATH_OFFSETOF(CompactionState, tile_status),
        WARPATH_OFFSETOF(CompactionState, block_counts),
        WARPATH_OFFSETOF(CompactionState, section_counters),
        WARPATH_OFFSETOF(CompactionState, section_flags),
        WARPATH_OFFSETOF(CompactionState, section_offsets),
        WARPATH_OFFSETOF(CompactionState, tiles),
        sizeof(MultiStageQueues),
        WARPATH_OFFSETOF(MultiStageQueues, origin_pixel),
        WARPATH_OFFSETOF(MultiStageQueues, direction_sample),
        WARPATH_OFFSETOF(MultiStageQueues, throughput_pdf),
        WARPATH_OFFSETOF(MultiStageQueues, radiance_bounce),
        WARPATH_OFFSETOF(MultiStageQueues, hits),
        WARPATH_OFFSETOF(MultiStageQueues, extend_in),
        WARPATH_OFFSETOF(MultiStageQueues, extend_out),
        WARPATH_OFFSETOF(MultiStageQueues, material_ids),
        WARPATH_OFFSETOF(MultiStageQueues, shadow_ids),
        WARPATH_OFFSETOF(MultiStageQueues, shadow_origin_tmax),
        WARPATH_OFFSETOF(MultiStageQueues, shadow_direction),
        WARPATH_OFFSETOF(MultiStageQueues, shadow_contribution),
        WARPATH_OFFSETOF(MultiStageQueues, finished_ids),
        WARPATH_OFFSETOF(MultiStageQueues, counts),
        WARPATH_OFFSETOF(MultiStageQueues, capacity),
        WARPATH_OFFSETOF(MultiStageQueues, _pad),
    };
    const unsigned int n = sizeof(report) / sizeof(report[0]);
    for (unsigned int i = 0; i < n && i < capacity; ++i) values[i] = report[i];
    *written = n;
}

// ---- the multi-stage wavefront: the surface estimator's stages (surface/stages.cuh) --------------------------------
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_generate_surface(SurfaceScheduleArgs a, MultiStageQueues q) {
    multistage_generate(a, q);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_intersect_surface(SurfaceScheduleArgs a, MultiStageQueues q, unsigned int count) {
    multistage_intersect(a, q, count);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_shade_surface(SurfaceScheduleArgs a, MultiStageQueues q, unsigned int kind, unsigned int count) {
    multistage_shade(a, q, kind, count);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_shadow_surface(SurfaceScheduleArgs a, MultiStageQueues q, unsigned int count) {
    multistage_shadow(a, q, count);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_finish_surface(SurfaceScheduleArgs a, MultiStageQueues q, unsigned int count) {
    multistage_finish(a, q, count);
}
