// schedules/multistage.cuh — what the multi-stage wavefront (Laine, Karras & Aila 2013) shares
// over every estimator's stage list (surface/stages.cuh, volume/stages.cuh): the queues
// between the stages, the warp-aggregated queue push, and the last stage, which adds the
// paths that ended to the film. Path state lives as structure-of-arrays: the four 16-byte
// words of the estimator's stored form (StoredPath), each an array indexed by path slot.
// Host side: crates/warpath-cuda/src/strategy/multistage.rs.
#pragma once
#include "schedules/schedule.cuh"

#define MULTISTAGE_BLOCK 256
// Queues of the middle stage: the surface estimator's shade queues, one per material kind
// (MATERIAL_DIFFUSE .. MATERIAL_BLACK); the volumetric estimator uses the first for its
// pending medium vertices.
#define MULTISTAGE_KINDS 8

#define MULTISTAGE_COUNT_NEXT 0
#define MULTISTAGE_COUNT_FINISHED 1
#define MULTISTAGE_COUNT_SHADOW 2
#define MULTISTAGE_COUNT_KIND 3  // + kind

// Device pointers of the multi-stage wavefront's arrays (MultiStageQueues in src/strategy/args.rs).
struct MultiStageQueues {
    float4* origin_pixel;           // path SoA, by slot: StoredPath's four words
    float4* direction_sample;
    float4* throughput_pdf;
    float4* radiance_bounce;
    float4* hits;                   // t, u, v, triangle bits, by slot
    unsigned int* extend_in;        // ids to intersect this bounce
    unsigned int* extend_out;       // ids to intersect next bounce
    unsigned int* material_ids;     // MULTISTAGE_KINDS queues of `capacity` ids
    unsigned int* shadow_ids;
    float4* shadow_origin_tmax;
    float4* shadow_direction;
    float4* shadow_contribution;
    unsigned int* finished_ids;
    unsigned int* counts;           // MULTISTAGE_COUNT_* slots
    unsigned int capacity;
    unsigned int _pad;
};

// Appends `value` to the queue whose length is `*counter`, warp-aggregated over the lanes
// that call with the same counter (one atomicAdd per group); returns its slot. The stage
// kernels' blocks are one-dimensional, so a thread's lane is threadIdx.x mod 32.
__device__ __forceinline__ unsigned int queue_push(unsigned int* queue, unsigned int* counter, unsigned int value) {
    const unsigned int peers = __match_any_sync(__activemask(), (unsigned long long)counter);
    const int leader = __ffs(peers) - 1;
    unsigned int base = 0;
    if ((int)(threadIdx.x & 31u) == leader) base = atomicAdd(counter, (unsigned int)__popc(peers));
    base = __shfl_sync(peers, base, leader);
    const unsigned int slot = base + __popc(peers & compaction_lanemask_lt());
    queue[slot] = value;
    return slot;
}

// Adds the paths that ended this bounce to the film: the radiance and pixel words of their
// stored form (the same two words in every estimator's form).
template <class E>
__device__ __forceinline__ void multistage_finish(const ScheduleArgs<E>& a, const MultiStageQueues& q,
                                                  unsigned int count) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const unsigned int id = q.finished_ids[i];
    typename E::Path path;
    const float4 r = q.radiance_bounce[id];
    path.radiance = make_float3(r.x, r.y, r.z);
    path.pixel = ~__float_as_uint(q.origin_pixel[id].w);
    film_add_path<E>(a, path);
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_SCHEDULES_MULTISTAGE
#include "generated/layout_checks.cuh"
