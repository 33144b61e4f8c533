// strategies.cu — the path scheduling strategies of issue 5 over the shared estimator
// (surface/estimator.cuh), one extern "C" kernel per strategy and variant; each family
// lives in a header of schedules/ (schedule.cuh has what they share). The naive megakernel
// is megakernel.cu. Host side: crates/warpath-cuda/src/strategy.rs.
#include "schedules/multistage.cuh"
#include "schedules/regeneration.cuh"
#include "schedules/streaming.cuh"
#include "schedules/tiled.cuh"
#include "schedules/wavefront.cuh"

#define WAVEFRONT_KERNEL(NAME, METHOD)                                                                      \
    extern "C" __global__ void __launch_bounds__(WAVEFRONT_BLOCK) NAME(                                     \
        ScheduleArgs a, const StoredPath* in, StoredPath* out, unsigned char* flags, StoredPath* intermediate, \
        unsigned int* ticket, unsigned int* count, unsigned long long* tile_status, unsigned int* block_counts, \
        unsigned int* section_counters, unsigned int* section_flags, unsigned int* section_offsets,           \
        unsigned int tiles, unsigned int in_count, unsigned int first) {                                    \
        CompactionState state{ticket,           count,         tile_status,     block_counts,              \
                              section_counters, section_flags, section_offsets, tiles};                     \
        wavefront_extend<METHOD>(a, in, out, flags, intermediate, state, in_count, first != 0);             \
    }

WAVEFRONT_KERNEL(wavefront_extend_none, WAVEFRONT_NONE)
WAVEFRONT_KERNEL(wavefront_extend_collate, WAVEFRONT_COLLATE)
WAVEFRONT_KERNEL(wavefront_extend_lookback, WAVEFRONT_LOOKBACK)
WAVEFRONT_KERNEL(wavefront_extend_separate, WAVEFRONT_SEPARATE)
WAVEFRONT_KERNEL(wavefront_extend_sorted, WAVEFRONT_SORTED)
WAVEFRONT_KERNEL(wavefront_extend_sections, WAVEFRONT_SECTIONS)

extern "C" __global__ void __launch_bounds__(REGEN_BLOCK_SIZE) regen_thread(ScheduleArgs a) {
    regen_persistent<REGEN_THREAD>(a);
}
extern "C" __global__ void __launch_bounds__(REGEN_BLOCK_SIZE) regen_warp(ScheduleArgs a) {
    regen_persistent<REGEN_WARP>(a);
}
extern "C" __global__ void __launch_bounds__(REGEN_BLOCK_SIZE) regen_block(ScheduleArgs a) {
    regen_persistent<REGEN_BLOCK>(a);
}
extern "C" __global__ void __launch_bounds__(REGEN_BLOCK_SIZE)
    regen_device_fill_kernel(ScheduleArgs a, StoredPath* pool, unsigned int pool_size) {
    regen_device_fill(a, pool, pool_size);
}
extern "C" __global__ void __launch_bounds__(REGEN_BLOCK_SIZE)
    regen_device_extend_kernel(ScheduleArgs a, StoredPath* pool, unsigned int pool_size) {
    regen_device_extend(a, pool, pool_size);
}

extern "C" __global__ void __launch_bounds__(TILED_THREADS) tiled_global(ScheduleArgs a, StoredPath* path_mem) {
    tiled_render(a, path_mem + (size_t)blockIdx.x * TILED_PATHS);
}
extern "C" __global__ void __launch_bounds__(TILED_THREADS) tiled_shared(ScheduleArgs a) {
    __shared__ StoredPath tile_paths[TILED_PATHS];
    tiled_render(a, tile_paths);
}

extern "C" __global__ void __launch_bounds__(STREAMING_BLOCK) streaming_sk_scan(ScheduleArgs a, StoredPath* pool) {
    streaming_sk<false>(a, pool);
}
extern "C" __global__ void __launch_bounds__(STREAMING_BLOCK) streaming_sk_sorted(ScheduleArgs a, StoredPath* pool) {
    streaming_sk<true>(a, pool);
}
extern "C" __global__ void streaming_mk_regen_kernel(ScheduleArgs a, StoredPath* out, unsigned int live,
                                                     unsigned int next, unsigned int count) {
    streaming_mk_regen(a, out, live, next, count);
}

// sizeof/offsetof of ScheduleArgs, StoredPath and MultiStageQueues as the device compiler sees them, in the
// order of warpath_cuda::strategy::layout_entries.
extern "C" __global__ void strategies_layout_report(unsigned long long* values, unsigned int capacity,
                                                    unsigned int* written) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const unsigned long long report[] = {
        sizeof(ScheduleArgs),
        WARPATH_OFFSETOF(ScheduleArgs, scene),
        WARPATH_OFFSETOF(ScheduleArgs, film_sum),
        WARPATH_OFFSETOF(ScheduleArgs, film_sum_sq),
        WARPATH_OFFSETOF(ScheduleArgs, film_count),
        WARPATH_OFFSETOF(ScheduleArgs, counters),
        WARPATH_OFFSETOF(ScheduleArgs, work),
        WARPATH_OFFSETOF(ScheduleArgs, morton_lo),
        WARPATH_OFFSETOF(ScheduleArgs, morton_scale),
        WARPATH_OFFSETOF(ScheduleArgs, first_sample),
        WARPATH_OFFSETOF(ScheduleArgs, padded_pixels),
        WARPATH_OFFSETOF(ScheduleArgs, tiles_x),
        WARPATH_OFFSETOF(ScheduleArgs, width),
        WARPATH_OFFSETOF(ScheduleArgs, height),
        WARPATH_OFFSETOF(ScheduleArgs, path_base),
        WARPATH_OFFSETOF(ScheduleArgs, wave_paths),
        WARPATH_OFFSETOF(ScheduleArgs, _pad),
        sizeof(StoredPath),
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

// ---- the multi-stage wavefront (schedules/multistage.cuh) --------------------------------
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_generate_kernel(ScheduleArgs a, MultiStageQueues q) {
    multistage_generate(a, q);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_intersect_kernel(ScheduleArgs a, MultiStageQueues q, unsigned int count) {
    multistage_intersect(a, q, count);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_shade_kernel(ScheduleArgs a, MultiStageQueues q, unsigned int kind, unsigned int count) {
    multistage_shade(a, q, kind, count);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_shadow_kernel(ScheduleArgs a, MultiStageQueues q, unsigned int count) {
    multistage_shadow(a, q, count);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_finish_kernel(ScheduleArgs a, MultiStageQueues q, unsigned int count) {
    multistage_finish(a, q, count);
}
