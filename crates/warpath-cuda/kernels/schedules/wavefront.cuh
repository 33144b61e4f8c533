// schedules/wavefront.cuh — whole-frame wavefront compaction (seed 000 §3.4, appendix B.2):
// one bounce of every live path per launch, path state (typename E::Stored, 64 B) in device memory
// between launches, and the survivors compacted after each bounce so that the next launch
// runs only live paths. The first launch generates the camera paths itself. How the
// survivors are compacted is the template argument, so the benchmark can swap it:
//   WAVEFRONT_NONE      no compaction: every slot stays where it is, dead slots are marked
//                       and skipped (every launch covers the whole wave: "compaction off");
//   WAVEFRONT_COLLATE   InK-Collate at the end of the extend kernel (seed 001 §2.4);
//   WAVEFRONT_LOOKBACK  order-preserving single-pass look-back at the end of the kernel;
//   WAVEFRONT_SEPARATE  the extend kernel writes in place plus a flag per slot, and a
//                       separate out-of-kernel pass (OfK, compaction.cu) compacts them
//                       (seed 001's comparison: in-kernel vs a pass of its own);
//   WAVEFRONT_SORTED    InK-Collate after a block-level Morton sort of the survivors by ray
//                       origin (seed 003 "Reordering" applied to the wavefront);
//   WAVEFRONT_SECTIONS  InK-Compact, order kept by sections of 32 blocks through an
//                       intermediate buffer (seed 001 §2.3).
// The survivors' count goes to state.count, which the host reads back to size the next launch.
#pragma once
#include "schedules/schedule.cuh"

#define WAVEFRONT_BLOCK 256
#define WAVEFRONT_NONE 0
#define WAVEFRONT_COLLATE 1
#define WAVEFRONT_LOOKBACK 2
#define WAVEFRONT_SEPARATE 3
#define WAVEFRONT_SORTED 4
#define WAVEFRONT_SECTIONS 5

// The buffers of one extend launch (WavefrontBuffers in crates/warpath-cuda/src/strategy/
// args.rs): the live paths in, the survivors out (== in for the in-place methods), the
// separate pass's flag per slot, InK-Compact's intermediate buffer, and the compaction state.
// Paths are E::Stored; the pointers are untyped so the struct is one for every estimator.
struct WavefrontBuffers {
    const void* input;
    void* output;
    unsigned char* flags;
    void* intermediate;
    CompactionState state;
};

// One bounce of the paths in `in[0 .. in_count)` (first: of the wave's camera paths, with
// in_count = wave_paths), survivors to `out` as METHOD says.
template <class E, int METHOD>
__device__ __forceinline__ void wavefront_extend(const ScheduleArgs<E>& a, const typename E::Stored* in,
                                                 typename E::Stored* out, unsigned char* __restrict__ flags,
                                                 typename E::Stored* __restrict__ intermediate, const CompactionState& state,
                                                 unsigned int in_count, bool first) {
    __shared__ BlockScanStorage<1> scratch;
    const typename E::Context ctx = schedule_context(a);
    unsigned int tile = blockIdx.x;
    if constexpr (METHOD == WAVEFRONT_LOOKBACK || METHOD == WAVEFRONT_SECTIONS)
        tile = compaction_ticket(scratch, state.ticket);
    const unsigned int i = tile * blockDim.x + threadIdx.x;

    typename E::Path path;
    bool active = false;
    if (first) {
        active = generate_wave_path(ctx, a, i, path);
    } else if (i < in_count) {
        active = E::slot_is_live(in + i);  // dead: padding, or a finished path left in place
        if (active) path = E::load(in + i);
    }
    bool keep = false;
    if (active) {
        keep = E::extend(ctx, path);
        if (!keep) film_add_path(a, path);
    }

    if constexpr (METHOD == WAVEFRONT_NONE || METHOD == WAVEFRONT_SEPARATE) {
        // In place (out may equal in): the slot keeps its path or is marked dead.
        if (i < in_count) {
            if (keep) {
                E::store(out + i, path);
            } else if (active || first) {
                E::mark_slot_dead(out + i);
            }
            if constexpr (METHOD == WAVEFRONT_SEPARATE) flags[i] = keep ? 1 : 0;
        }
        const unsigned int survivors = __syncthreads_count(keep);
        if (threadIdx.x == 0 && survivors) atomicAdd(state.count, survivors);
    } else if constexpr (METHOD == WAVEFRONT_COLLATE) {
        const typename E::Stored elems[1] = {keep ? E::pack(path) : typename E::Stored{}};
        const bool keeps[1] = {keep};
        ink_collate_store<typename E::Stored, 1>(scratch, out, state.count, elems, keeps);
    } else if constexpr (METHOD == WAVEFRONT_LOOKBACK) {
        const typename E::Stored elems[1] = {keep ? E::pack(path) : typename E::Stored{}};
        const bool keeps[1] = {keep};
        ink_lookback_store<typename E::Stored, 1>(scratch, out, state, tile, elems, keeps);
    } else if constexpr (METHOD == WAVEFRONT_SECTIONS) {
        const typename E::Stored elems[1] = {keep ? E::pack(path) : typename E::Stored{}};
        const bool keeps[1] = {keep};
        ink_compact_store<typename E::Stored, 1>(scratch, out, intermediate, state, tile, elems, keeps);
    } else {
        static_assert(METHOD == WAVEFRONT_SORTED, "unknown wavefront method");
        __shared__ BlockSortStorage sort;
        __shared__ unsigned int base;
        unsigned int total;
        const unsigned int key = keep ? morton_key(a, E::sort_position(path)) : 0u;
        const unsigned int position = block_sort_position(sort, key, keep, total);
        if (threadIdx.x == 0) base = total ? atomicAdd(state.count, total) : 0u;
        __syncthreads();
        if (keep) E::store(out + base + position, path);
    }
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_SCHEDULES_WAVEFRONT
#include "generated/layout_checks.cuh"
