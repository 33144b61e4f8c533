// schedules/regeneration.cuh — persistent threads with path regeneration (seed 003
// "Persistent Thread", algorithm regenerate): a grid that fills the GPU once, each thread
// holding one path in registers and taking new wave indices from the global work counter
// (work[SCHEDULE_WORK_NEXT]) when its path ends. Three granularities:
//   REGEN_THREAD  a thread regenerates as soon as its path ends (one atomic per path);
//   REGEN_WARP    a warp regenerates when all 32 of its paths have ended: one atomicAdd of
//                 32 by lane 0, the base broadcast by a shuffle;
//   REGEN_BLOCK   after every extension, while the queue is not empty, the block
//                 synchronizes and regenerates all its idle threads with one atomicAdd
//                 (ranks from the block compaction scan of compaction.cuh).
// The device-wide variant (two kernels, regenerate then extend over a pool of slots) is
// regen_device_fill / regen_device_extend.
#pragma once
#include "schedules/schedule.cuh"

#define REGEN_BLOCK_SIZE 256
#define REGEN_THREAD 0
#define REGEN_WARP 1
#define REGEN_BLOCK 2

template <class E, int MODE>
__device__ __forceinline__ void regen_persistent(const ScheduleArgs<E>& a) {
    const typename E::Context ctx = schedule_context(a);
    unsigned int* next = a.work + SCHEDULE_WORK_NEXT;
    typename E::Path path;
    bool alive = false;
    if constexpr (MODE == REGEN_THREAD) {
        while (true) {
            while (!alive) {
                const unsigned int i = atomicAdd(next, 1u);
                if (i >= a.wave_paths) return;
                alive = generate_wave_path(ctx, a, i, path);
            }
            if (!E::extend(ctx, path)) {
                film_add_path(a, path);
                alive = false;
            }
        }
    } else if constexpr (MODE == REGEN_WARP) {
        const unsigned int lane = threadIdx.x & 31u;
        while (true) {
            if (__ballot_sync(COMPACTION_FULL_WARP, alive) == 0) {
                unsigned int base = 0;
                if (lane == 0) base = atomicAdd(next, 32u);
                base = __shfl_sync(COMPACTION_FULL_WARP, base, 0);
                if (base >= a.wave_paths) return;  // warp-uniform
                alive = generate_wave_path(ctx, a, base + lane, path);
                continue;
            }
            if (alive && !E::extend(ctx, path)) {
                film_add_path(a, path);
                alive = false;
            }
        }
    } else {
        static_assert(MODE == REGEN_BLOCK, "unknown regeneration mode");
        __shared__ BlockScanStorage<1> scratch;
        __shared__ unsigned int base;
        bool queue_empty = false;  // block-uniform
        while (true) {
            if (!queue_empty) {
                const bool idle[1] = {!alive};
                unsigned int rank[1];
                const unsigned int needed = block_compaction_ranks<1>(scratch, idle, rank);
                if (threadIdx.x == 0) base = needed ? atomicAdd(next, needed) : 0u;
                __syncthreads();
                const unsigned int first = base;
                if (!alive) alive = generate_wave_path(ctx, a, first + rank[0], path);
                queue_empty = first + needed >= a.wave_paths;
            }
            if (__syncthreads_or(alive) == 0) return;
            if (alive && !E::extend(ctx, path)) {
                film_add_path(a, path);
                alive = false;
            }
        }
    }
}

// Device regeneration, kernel 1 of 2: every dead slot of the pool takes a new wave index
// (one atomicAdd per warp, ranks by ballot) and its camera path.
template <class E>
__device__ __forceinline__ void regen_device_fill(const ScheduleArgs<E>& a, typename E::Stored* __restrict__ pool,
                                                  unsigned int pool_size) {
    const typename E::Context ctx = schedule_context(a);
    const unsigned int slot = blockIdx.x * blockDim.x + threadIdx.x;
    const bool dead = slot < pool_size && !E::slot_is_live(pool + slot);
    const unsigned int ballot = __ballot_sync(COMPACTION_FULL_WARP, dead);
    if (!ballot) return;
    const unsigned int lane = threadIdx.x & 31u;
    unsigned int base = 0;
    if (lane == (unsigned int)(__ffs(ballot) - 1)) base = atomicAdd(a.work + SCHEDULE_WORK_NEXT, __popc(ballot));
    base = __shfl_sync(COMPACTION_FULL_WARP, base, __ffs(ballot) - 1);
    if (!dead) return;
    typename E::Path path;
    if (generate_wave_path(ctx, a, base + __popc(ballot & compaction_lanemask_lt()), path)) E::store(pool + slot, path);
}

// Device regeneration, kernel 2 of 2: one bounce of every live slot; finished paths go to
// the film and leave their slot dead; live paths are counted in work[SCHEDULE_WORK_LIVE].
template <class E>
__device__ __forceinline__ void regen_device_extend(const ScheduleArgs<E>& a, typename E::Stored* __restrict__ pool,
                                                    unsigned int pool_size) {
    const typename E::Context ctx = schedule_context(a);
    const unsigned int slot = blockIdx.x * blockDim.x + threadIdx.x;
    bool keep = false;
    if (slot < pool_size && E::slot_is_live(pool + slot)) {
        typename E::Path path = E::load(pool + slot);
        keep = E::extend(ctx, path);
        if (keep) {
            E::store(pool + slot, path);
        } else {
            film_add_path(a, path);
            E::mark_slot_dead(pool + slot);
        }
    }
    const unsigned int survivors = __syncthreads_count(keep);
    if (threadIdx.x == 0 && survivors) atomicAdd(a.work + SCHEDULE_WORK_LIVE, survivors);
}
