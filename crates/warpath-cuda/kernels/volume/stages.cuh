// volume/stages.cuh — the volumetric estimator's stage list, run by the multi-stage wavefront
// (schedules/multistage.cuh has the queues and the finish stage). The split is seed 003's
// sortingSK split of VolumeEstimatorDeferred (volume/estimator.cuh), one kernel per half:
//   multistage_track    one step of every queued path: the closest hit, the free flight
//                       through the path's medium toward it (delta tracking), null
//                       boundaries crossed; a surface vertex is scattered at once (its
//                       emission, next-event estimation, BSDF direction). A real collision
//                       in a medium stops the step with the vertex pending: the path's id
//                       goes to the scatter queue. Paths that go on from a surface go to the
//                       next bounce's queue, ended ones to the finished queue;
//   multistage_scatter  completes the pending medium vertices: the albedo fetch, next-event
//                       estimation with a ratio-tracked shadow ray, the Henyey–Greenstein
//                       direction and roulette; then the next bounce's queue or the finished one.
// So the divergent medium work (grid fetches, ratio tracking) runs in a kernel of its own
// over only the paths that scatter in a medium, as the surface stage list shades one material
// kind per launch. Every operation is the deferred estimator's, in its order: the paths, the
// radiance and the counts are those of every other strategy.
#pragma once
#include "schedules/multistage.cuh"
#include "volume/estimator.cuh"

// The queue of pending medium vertices: the first of the middle stage's queues.
#define MULTISTAGE_SCATTER_QUEUE 0u

__device__ __forceinline__ VolumePath load_volume_soa(const MultiStageQueues& q, unsigned int id) {
    StoredPath s;
    s.origin_pixel = q.origin_pixel[id];
    s.direction_sample = q.direction_sample[id];
    s.throughput_pdf = q.throughput_pdf[id];
    s.radiance_bounce = q.radiance_bounce[id];
    return unpack_volume_path<true>(s);
}

__device__ __forceinline__ void store_volume_soa(const MultiStageQueues& q, unsigned int id, const VolumePath& path) {
    const StoredPath s = pack_volume_path<true>(path);
    q.origin_pixel[id] = s.origin_pixel;
    q.direction_sample[id] = s.direction_sample;
    q.throughput_pdf[id] = s.throughput_pdf;
    q.radiance_bounce[id] = s.radiance_bounce;
}

// A path after a stage: its state stored, its id to the queue of what it does next.
__device__ __forceinline__ void volume_stage_route(const MultiStageQueues& q, unsigned int id, const VolumePath& path,
                                                   bool goes_on) {
    store_volume_soa(q, id, path);
    if (!goes_on) {
        queue_push(q.finished_ids, q.counts + MULTISTAGE_COUNT_FINISHED, id);
    } else if (path.scatter_pending) {
        queue_push(q.material_ids + (size_t)MULTISTAGE_SCATTER_QUEUE * q.capacity,
                   q.counts + MULTISTAGE_COUNT_KIND + MULTISTAGE_SCATTER_QUEUE, id);
    } else {
        queue_push(q.extend_out, q.counts + MULTISTAGE_COUNT_NEXT, id);
    }
}

// The wave's camera paths into their slots; their ids to extend_out.
__device__ __forceinline__ void multistage_generate_volume_paths(const ScheduleArgs<VolumeEstimator>& a,
                                                                 const MultiStageQueues& q) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const VolumeContext ctx = schedule_context(a);
    VolumePath path;
    if (!generate_wave_path(ctx, a, i, path)) return;
    store_volume_soa(q, i, path);
    queue_push(q.extend_out, q.counts + MULTISTAGE_COUNT_NEXT, i);
}

// One step of each queued path (none has a pending vertex: the scatter stage completed them),
// counted as the deferred estimator counts a step.
__device__ __forceinline__ void multistage_track(const ScheduleArgs<VolumeEstimator>& a, const MultiStageQueues& q,
                                                 unsigned int count) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const VolumeContext ctx = schedule_context(a);
    const unsigned int id = q.extend_in[i];
    VolumePath path = load_volume_soa(q, id);
    const bool goes_on = volume_extend_deferred(ctx, path);
    volume_stage_route(q, id, path, goes_on);
}

// Completes each queued pending medium vertex; its tracking and shadow-ray counts are added as
// the deferred estimator adds them (the path enters the next step's bounce in the track stage).
__device__ __forceinline__ void multistage_scatter(const ScheduleArgs<VolumeEstimator>& a, const MultiStageQueues& q,
                                                   unsigned int count) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const VolumeContext ctx = schedule_context(a);
    const unsigned int id = q.material_ids[(size_t)MULTISTAGE_SCATTER_QUEUE * q.capacity + i];
    VolumePath path = load_volume_soa(q, id);
    VolumeStepCounts counts = {0u, 0u, {0u, 0u, 0u}};
    const bool goes_on = volume_complete_scatter(ctx, path, counts);
    if (ctx.counters) add_step_counts(ctx, counts);
    volume_stage_route(q, id, path, goes_on);
}
