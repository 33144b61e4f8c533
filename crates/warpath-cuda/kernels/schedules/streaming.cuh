// schedules/streaming.cuh — compaction plus regeneration (seed 003 "Compaction"):
//   streaming_sk  tiled block compaction in one persistent kernel (algorithm streamingSK):
//                 each block owns blockDim path slots in global memory; every iteration it
//                 loads its live paths (the first total_active slots), regenerates the rest
//                 from the work counter with one atomicAdd, extends, and stores the
//                 survivors compacted to the front of its slots. SORTED (streamingSK with
//                 sorting): the survivors are stored in Morton order of their ray origins
//                 (block radix sort, kept ones first) instead of scan order. sortingSK is
//                 SORTED over E::Deferred (streaming_sk_sorting_<e>): for volumes, medium
//                 vertices are completed (albedo fetch, shadow ray) after the sort, next to
//                 the other paths that scatter nearby.
//   streaming_mk  device compaction, two kernels: wavefront_extend<WAVEFRONT_COLLATE> over the
//                 pool, then streaming_mk_regen appends new camera paths after the survivors.
#pragma once
#include "schedules/schedule.cuh"

#define STREAMING_BLOCK 256

template <class E, bool SORTED>
__device__ __forceinline__ void streaming_sk(const ScheduleArgs<E>& a, typename E::Stored* __restrict__ pool) {
    __shared__ BlockScanStorage<1> scratch;
    __shared__ unsigned int base;
    const typename E::Context ctx = schedule_context(a);
    typename E::Stored* mine = pool + (size_t)blockIdx.x * blockDim.x;
    const unsigned int tid = threadIdx.x;
    unsigned int total_active = 0;  // block-uniform
    bool exhausted = false;         // block-uniform
    do {
        typename E::Path path;
        bool alive = false;
        if (tid < total_active) {
            path = E::load(mine + tid);
            alive = true;
        }
        if (!exhausted) {
            const unsigned int need = blockDim.x - total_active;
            if (tid == 0) base = atomicAdd(a.work + SCHEDULE_WORK_NEXT, need);
            __syncthreads();
            const unsigned int first = base;
            if (tid >= total_active) alive = generate_wave_path(ctx, a, first + (tid - total_active), path);
            exhausted = first + need >= a.wave_paths;
        }
        bool keep = false;
        if (alive) {
            keep = E::extend(ctx, path);
            if (!keep) film_add_path(a, path);
        }
        unsigned int position, total;
        if constexpr (SORTED) {
            __shared__ BlockSortStorage sort;
            position = block_sort_position(sort, keep ? morton_key(a, E::sort_position(path)) : 0u, keep, total);
        } else {
            const bool keeps[1] = {keep};
            unsigned int rank[1];
            total = block_compaction_ranks<1>(scratch, keeps, rank);
            position = rank[0];
        }
        // Every load of `mine` happened before the ranks' barriers: the slots are free.
        if (keep) E::store(mine + position, path);
        __syncthreads();  // the stores are visible to the block's next loads
        total_active = total;
    } while (total_active > 0 || !exhausted);
}

// New camera paths for wave indices next .. next + count, stored at out[live ..].
template <class E>
__device__ __forceinline__ void streaming_mk_regen(const ScheduleArgs<E>& a, typename E::Stored* __restrict__ out,
                                                   unsigned int live, unsigned int next, unsigned int count) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const typename E::Context ctx = schedule_context(a);
    typename E::Path path;
    if (generate_wave_path(ctx, a, next + i, path)) {
        E::store(out + live + i, path);
    } else {
        E::mark_slot_dead(out + live + i);
    }
}
