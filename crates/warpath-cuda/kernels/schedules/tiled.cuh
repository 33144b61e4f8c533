// schedules/tiled.cuh — tiled compaction (seed 000 §3.5, appendix B.3): a block of 64
// threads owns a tile of 64 × TILED_M paths and runs all their bounces in one launch. After
// each bounce it compacts the list of its live path ids in shared memory (order kept), so
// that its two warps only ever run live paths; each thread runs up to TILED_M paths per
// bounce. The paths themselves stay in their slots: in global memory (tiled) or in shared
// memory (tiled-shared, 32 KB per block at M = 8, which costs occupancy — seed 000 §4.1).
#pragma once
#include "schedules/schedule.cuh"

#define TILED_THREADS 64
#define TILED_M 8
#define TILED_PATHS (TILED_THREADS * TILED_M)

// The ids whose keep flag is set, in order, to active_ids; returns how many.
__device__ __forceinline__ unsigned int tiled_compact_ids(BlockScanStorage<TILED_M>& scratch,
                                                          unsigned short* active_ids, const bool (&keep)[TILED_M],
                                                          const unsigned int (&id)[TILED_M]) {
    unsigned int rank[TILED_M];
    const unsigned int total = block_compaction_ranks<TILED_M>(scratch, keep, rank);
#pragma unroll
    for (int r = 0; r < TILED_M; ++r)
        if (keep[r]) active_ids[rank[r]] = (unsigned short)id[r];
    __syncthreads();
    return total;
}

// `tile_paths`: the tile's TILED_PATHS slots (global or shared memory).
template <class E>
__device__ __forceinline__ void tiled_render(const ScheduleArgs<E>& a, typename E::Stored* tile_paths) {
    __shared__ BlockScanStorage<TILED_M> scratch;
    __shared__ unsigned short active_ids[TILED_PATHS];
    const typename E::Context ctx = schedule_context(a);
    const unsigned int first = blockIdx.x * TILED_PATHS;
    bool keep[TILED_M];
    unsigned int id[TILED_M];
#pragma unroll
    for (int r = 0; r < TILED_M; ++r) {
        id[r] = r * TILED_THREADS + threadIdx.x;
        typename E::Path path;
        keep[r] = generate_wave_path(ctx, a, first + id[r], path);
        if (keep[r]) E::store(tile_paths + id[r], path);
    }
    unsigned int live = tiled_compact_ids(scratch, active_ids, keep, id);
    while (live > 0) {
#pragma unroll 1
        for (int r = 0; r < TILED_M; ++r) {
            const unsigned int j = r * TILED_THREADS + threadIdx.x;
            keep[r] = false;
            if (j < live) {
                id[r] = active_ids[j];
                typename E::Path path = E::load(tile_paths + id[r]);
                keep[r] = E::extend(ctx, path);
                if (keep[r]) {
                    E::store(tile_paths + id[r], path);
                } else {
                    film_add_path(a, path);
                }
            }
        }
        live = tiled_compact_ids(scratch, active_ids, keep, id);
    }
}
