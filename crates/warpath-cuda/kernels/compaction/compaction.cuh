// compaction/compaction.cuh — in-kernel stream compaction, after seed 001 (In-Kernel stream
// compaction: §2.1 thread offset by a masked ballot + popc, §2.2 warp offsets by
// bit-decomposed ballots, eq. 3–4, block total by __syncthreads_count, §2.3 InK-Compact
// with block sections, §2.4 InK-Collate) and Merrill & Garland 2016 (single-pass scan with
// decoupled look-back).
//
// Every routine here is called by *all* threads of a block at the end of a producing
// kernel: each thread has ITEMS candidate elements (`elem[i]`, `keep[i]`) and the block's
// tile is ITEMS rounds of blockDim.x elements, round-major (element i of thread t sits at
// tile position i * blockDim.x + t). blockDim.x must be a multiple of 32, at most 1024.
//
//   ink_collate_store    one atomicAdd per block for its base; order kept inside a block
//                        only (seed 001 §2.4).
//   ink_compact_store    order-preserving InK-Compact (seed 001 §2.3): a block writes its
//                        compacted tile to an intermediate buffer at tile * TILE, bumps its
//                        section counter; the last block of a section (the controller) scans
//                        the section's block counts, waits for the previous section's flag,
//                        publishes its own offset and flag, and moves the section's data.
//   ink_lookback_store   order-preserving single pass with decoupled look-back: each tile
//                        publishes its aggregate, then its inclusive prefix, in one 64-bit
//                        status word (flag in the high half, value in the low half).
//
// The wavefront path tracer (schedules/wavefront.cuh) calls the three stores with one
// element per thread; compaction.cu instantiates them for its tiled kernels too.
//
// Forward progress: blocks of a launch need not be co-resident nor started in blockIdx
// order, so the order-preserving methods number tiles by an atomic ticket taken when the
// block starts (`compaction_ticket`), and the producer must compute the elements of the
// tile the ticket names, not of blockIdx.x. A block only ever waits for tiles with a
// lower ticket, which are already running, so every wait ends.
//
// Per-launch state (`CompactionState`, laid out by Rust in src/compaction/workspace.rs) is
// zeroed by the host before each launch.
#pragma once

#if defined(__CUDACC_RTC__)
#define WARPATH_OFFSETOF(type, field) ((unsigned long long)__INTADDR__(&(((type*)0)->field)))
#else
#define WARPATH_OFFSETOF(type, field) __builtin_offsetof(type, field)
#endif

#define COMPACTION_FULL_WARP 0xffffffffu
#ifndef COMPACTION_LOOKBACK_BACKOFF_NS
#define COMPACTION_LOOKBACK_BACKOFF_NS 100  // sleep between polls of an unpublished tile
#endif
#define COMPACTION_SECTION_BLOCKS 32

// ---- element types (mirrors of crates/warpath-cuda/src/compaction/elements.rs) -----------

// A 16-byte element: a key and three payload words.
struct alignas(16) CompactElem16 {
    unsigned int key;
    unsigned int payload[3];
};

// A 64-byte path-state-like element (what a wavefront path tracer compacts per path).
struct alignas(16) CompactPathState {
    unsigned int key;  // the value the benchmark predicate hashes (e.g. a path index)
    unsigned int pixel;
    unsigned int depth;
    unsigned int rng;
    float origin[3];
    float pdf;
    float direction[3];
    float t_max;
    float throughput[3];
    unsigned int flags;
};

__device__ __forceinline__ unsigned int compaction_key(unsigned int value) { return value; }
__device__ __forceinline__ unsigned int compaction_key(const CompactElem16& value) { return value.key; }
__device__ __forceinline__ unsigned int compaction_key(const CompactPathState& value) { return value.key; }

// ---- predicate ---------------------------------------------------------------------------

// A 32-bit integer hash (lowbias32, C. Wellons); mirrored by `compaction_hash` in Rust.
__device__ __forceinline__ unsigned int compaction_hash(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Keeps an element when hash(key) < threshold; threshold = selectivity * 2^32, so 0 keeps
// nothing and 2^32 keeps everything.
struct KeepHashBelow {
    unsigned long long threshold;
    template <typename T>
    __device__ __forceinline__ bool operator()(const T& value) const {
        return (unsigned long long)compaction_hash(compaction_key(value)) < threshold;
    }
};

// ---- per-launch state --------------------------------------------------------------------

// Device pointers to the state one order-preserving launch needs; all zeroed before it.
struct CompactionState {
    unsigned int* ticket;                 // [1] next tile ticket
    unsigned int* count;                  // [1] elements written (the host reads it back)
    unsigned long long* tile_status;      // [tiles] look-back status words
    unsigned int* block_counts;           // [tiles] InK-Compact: kept elements per tile
    unsigned int* section_counters;       // [sections] InK-Compact: tiles finished
    unsigned int* section_flags;          // [sections] InK-Compact: offset published
    unsigned int* section_offsets;        // [sections] InK-Compact: inclusive offset
    unsigned int tiles;                   // tiles of this launch
};

// ---- relaxed 64-bit status words ---------------------------------------------------------

__device__ __forceinline__ unsigned long long compaction_load_relaxed(const unsigned long long* address) {
    unsigned long long value;
    asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(value) : "l"(address) : "memory");
    return value;
}

__device__ __forceinline__ void compaction_store_relaxed(unsigned long long* address, unsigned long long value) {
    asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(address), "l"(value) : "memory");
}

__device__ __forceinline__ unsigned int compaction_lanemask_lt() {
    unsigned int mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}

// ---- block-level offsets (seed 001 §2.1–2.2) --------------------------------------------

// Shared scratch of the block scan: per (round, warp) counts, then their exclusive offsets.
template <int ITEMS>
struct BlockScanStorage {
    unsigned int counts[ITEMS * 32];
    unsigned int total;
    unsigned int base;  // the tile's global base, broadcast to the block
    unsigned int ticket;
};

// Exclusive scan, by warp 0, of `values[0..n)` in place by bit-decomposed ballots (seed 001
// eq. 3–4): lane l holds value v_l < 2^BITS; its offset is sum_j popc(ballot(bit j of v) &
// lanemask_lt) << j. Chunks of 32 carry their totals. Returns the total (in every lane).
template <int BITS>
__device__ __forceinline__ unsigned int warp_bitwise_exclusive_scan(unsigned int* values, unsigned int n) {
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int lower = compaction_lanemask_lt();
    unsigned int carry = 0;
    for (unsigned int base = 0; base < n; base += 32) {
        const unsigned int index = base + lane;
        const unsigned int value = index < n ? values[index] : 0u;
        unsigned int offset = 0, total = 0;
#pragma unroll
        for (int bit = 0; bit < BITS; ++bit) {
            const unsigned int ballot = __ballot_sync(COMPACTION_FULL_WARP, (value >> bit) & 1u);
            offset += (unsigned int)__popc(ballot & lower) << bit;
            total += (unsigned int)__popc(ballot) << bit;
        }
        if (index < n) values[index] = carry + offset;
        carry += total;
    }
    return carry;
}

// The second half of the one-barrier block ranking: after the barrier that follows the
// (round, warp) counts, every warp computes round_offset (lane r < ROUNDS: kept elements of
// the block before this warp's part of round r) and the tile's total (the return value).
// Lane r sums round r over all warps and over the warps before its own; a shuffle scan of
// the round totals gives each round's start.
template <int ROUNDS>
__device__ __forceinline__ unsigned int block_round_offsets(const unsigned int* counts, unsigned int& round_offset) {
    static_assert(ROUNDS <= 32, "one lane per round");
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    unsigned int round_total = 0, before_me = 0;
    if (lane < (unsigned int)ROUNDS) {
        for (unsigned int w = 0; w < warps; ++w) {
            const unsigned int count = counts[lane * warps + w];
            round_total += count;
            before_me += w < warp ? count : 0u;
        }
    }
    unsigned int inclusive = round_total;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        const unsigned int other = __shfl_up_sync(COMPACTION_FULL_WARP, inclusive, offset);
        if (lane >= (unsigned int)offset) inclusive += other;
    }
    round_offset = inclusive - round_total + before_me;
    return __shfl_sync(COMPACTION_FULL_WARP, inclusive, ROUNDS - 1);
}

// The block-level compaction of one tile: rank[i] is the number of kept elements before
// element i of this thread in tile order (valid where keep[i]); returns the tile's total.
//
// ITEMS = 1 (seed 001 §2.2 as written): the block total comes with __syncthreads_count and
// warp 0 scans the per-warp counts by bit-decomposed ballots; two barriers, after which the
// scratch may be reused at once.
// ITEMS > 1: one barrier. Every warp reads the (round, warp) counts itself: lane j < ITEMS
// sums round j over all warps (the round total) and over the warps before its own, then a
// shuffle scan of the round totals gives each round's offset. No warp waits while warp 0
// scans (an ncu profile of look-back showed half of all stalls at the two barriers). The
// caller must pass a barrier before calling again on the same scratch (every caller does).
template <int ITEMS>
__device__ __forceinline__ unsigned int block_compaction_ranks(BlockScanStorage<ITEMS>& scratch,
                                                              const bool (&keep)[ITEMS],
                                                              unsigned int (&rank)[ITEMS]) {
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    const unsigned int lower = compaction_lanemask_lt();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        // §2.1: thread offset t(u) = popc(ballot(p) & t(m)), eq. 1–2.
        const unsigned int ballot = __ballot_sync(COMPACTION_FULL_WARP, keep[i]);
        rank[i] = __popc(ballot & lower);
        if (lane == 0) scratch.counts[i * warps + warp] = __popc(ballot);
    }
    if constexpr (ITEMS == 1) {
        const unsigned int total = __syncthreads_count(keep[0]);  // §2.2: the block total with the barrier
        if (warp == 0) {
            // §2.2: warp offsets w(u) by bit-decomposed ballots; a count is at most 32 (6 bits).
            warp_bitwise_exclusive_scan<6>(scratch.counts, warps);
        }
        __syncthreads();
        rank[0] += scratch.counts[warp];
        return total;
    } else {
        __syncthreads();
        unsigned int round_offset;
        const unsigned int total = block_round_offsets<ITEMS>(scratch.counts, round_offset);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) rank[i] += __shfl_sync(COMPACTION_FULL_WARP, round_offset, i);
        return total;
    }
}

// The block-level compaction of a tile laid out in vectors (`vec4` layout: the deep look-back
// of compaction.cu on u32):
// element c of vector r of thread t sits at tile position r * 4 * blockDim.x + 4 * t + c, so a
// thread loads each vector of 4 consecutive elements with one 16-byte load. elem/keep/rank
// index r * 4 + c. Per vector the thread's kept count (0..4, 3 bits) is scanned across the
// warp by three bit-decomposed ballots (seed 001 eq. 3–4) instead of four single-bit
// ballots; the (vector, warp) counts then go through the same one-barrier block scan as
// block_compaction_ranks. Returns the tile's total.
template <int ITEMS>
__device__ __forceinline__ unsigned int block_compaction_ranks_vec4(BlockScanStorage<ITEMS / 4>& scratch,
                                                                   const bool (&keep)[ITEMS],
                                                                   unsigned int (&rank)[ITEMS]) {
    constexpr int VECTORS = ITEMS / 4;
    static_assert(ITEMS % 4 == 0 && VECTORS > 1, "whole vectors");
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    const unsigned int lower = compaction_lanemask_lt();
    unsigned int thread_offset[VECTORS];
#pragma unroll
    for (int r = 0; r < VECTORS; ++r) {
        const unsigned int k0 = keep[r * 4], k1 = keep[r * 4 + 1], k2 = keep[r * 4 + 2], k3 = keep[r * 4 + 3];
        rank[r * 4] = 0;
        rank[r * 4 + 1] = k0;
        rank[r * 4 + 2] = k0 + k1;
        rank[r * 4 + 3] = k0 + k1 + k2;
        const unsigned int count = k0 + k1 + k2 + k3;
        unsigned int offset = 0, total = 0;
#pragma unroll
        for (int bit = 0; bit < 3; ++bit) {
            const unsigned int ballot = __ballot_sync(COMPACTION_FULL_WARP, (count >> bit) & 1u);
            offset += (unsigned int)__popc(ballot & lower) << bit;
            total += (unsigned int)__popc(ballot) << bit;
        }
        thread_offset[r] = offset;
        if (lane == 0) scratch.counts[r * warps + warp] = total;
    }
    __syncthreads();
    unsigned int round_offset;
    const unsigned int total = block_round_offsets<VECTORS>(scratch.counts, round_offset);
#pragma unroll
    for (int r = 0; r < VECTORS; ++r) {
        const unsigned int base = __shfl_sync(COMPACTION_FULL_WARP, round_offset, r) + thread_offset[r];
#pragma unroll
        for (int c = 0; c < 4; ++c) rank[r * 4 + c] += base;
    }
    return total;
}

// The tile's logical index in start order (all threads call it; one atomicAdd per block).
template <typename Scratch>
__device__ __forceinline__ unsigned int compaction_ticket(Scratch& scratch, unsigned int* ticket) {
    if (threadIdx.x == 0) scratch.ticket = atomicAdd(ticket, 1u);
    __syncthreads();
    return scratch.ticket;
}

// Writes the kept elements at base + rank.
template <typename T, int ITEMS>
__device__ __forceinline__ void scatter_kept(T* __restrict__ out, unsigned int base, const T (&elem)[ITEMS],
                                             const bool (&keep)[ITEMS], const unsigned int (&rank)[ITEMS]) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if (keep[i]) out[base + rank[i]] = elem[i];
}

// ---- InK-Collate (seed 001 §2.4) ---------------------------------------------------------

// Appends this block's kept elements at an atomically reserved base: the output holds every
// kept element once, in tile order within a block, blocks in any order. `counter` ends as
// the total. No ticket needed.
// The InK-Collate store of a ranked tile (`total` kept, `rank` from any block ranking whose
// barrier every thread has passed): reserves the base, then scatters.
template <typename T, int ITEMS, typename Scratch>
__device__ __forceinline__ void ink_collate_store_ranked(Scratch& scratch, T* __restrict__ out, unsigned int* counter,
                                                         unsigned int total, const T (&elem)[ITEMS],
                                                         const bool (&keep)[ITEMS],
                                                         const unsigned int (&rank)[ITEMS]) {
    if (threadIdx.x == 0) scratch.base = total ? atomicAdd(counter, total) : 0u;
    __syncthreads();
    scatter_kept<T, ITEMS>(out, scratch.base, elem, keep, rank);
}

template <typename T, int ITEMS>
__device__ __forceinline__ void ink_collate_store(BlockScanStorage<ITEMS>& scratch, T* __restrict__ out,
                                                  unsigned int* counter, const T (&elem)[ITEMS],
                                                  const bool (&keep)[ITEMS]) {
    unsigned int rank[ITEMS];
    const unsigned int total = block_compaction_ranks<ITEMS>(scratch, keep, rank);
    ink_collate_store_ranked<T, ITEMS>(scratch, out, counter, total, elem, keep, rank);
}

// ---- decoupled look-back (Merrill & Garland 2016) -----------------------------------------

#define COMPACTION_STATUS_AGGREGATE (1ull << 32)
#define COMPACTION_STATUS_INCLUSIVE (2ull << 32)

// The number of kept elements in every tile before `tile`, by warp 0: publishes the tile's
// aggregate, looks back over up to 32 predecessors at a time (waiting only for tiles with
// lower tickets to publish anything), sums aggregates back to the nearest inclusive prefix,
// then publishes its own inclusive prefix. Returns the exclusive prefix to lane 0 of warp 0.
// Publishes the tile's aggregate (tile 0: its inclusive prefix, which is final).
__device__ __forceinline__ void lookback_publish_aggregate(unsigned long long* tile_status, unsigned int tile,
                                                           unsigned int total) {
    const unsigned long long flag = tile == 0 ? COMPACTION_STATUS_INCLUSIVE : COMPACTION_STATUS_AGGREGATE;
    compaction_store_relaxed(&tile_status[tile], flag | total);
}

__device__ __forceinline__ unsigned int lookback_exclusive_prefix(unsigned long long* tile_status,
                                                                  unsigned int tile, unsigned int total,
                                                                  bool aggregate_published = false) {
    const unsigned int lane = threadIdx.x & 31u;
    if (tile == 0) {
        if (lane == 0 && !aggregate_published)
            compaction_store_relaxed(&tile_status[0], COMPACTION_STATUS_INCLUSIVE | total);
        return 0;
    }
    if (lane == 0 && !aggregate_published)
        compaction_store_relaxed(&tile_status[tile], COMPACTION_STATUS_AGGREGATE | total);
    unsigned int exclusive = 0;
    int window_end = (int)tile - 1;  // lane 0 looks at window_end, lane l at window_end - l
    while (true) {
        const int predecessor = window_end - (int)lane;
        unsigned long long status = COMPACTION_STATUS_INCLUSIVE;  // before tile 0: prefix 0
        if (predecessor >= 0) {
            status = compaction_load_relaxed(&tile_status[predecessor]);
            // Back off while the predecessor has published nothing: fewer L2 requests on the
            // status words from spinning lanes (CUB's look-back does the same).
            while ((status >> 32) == 0) {
                __nanosleep(COMPACTION_LOOKBACK_BACKOFF_NS);
                status = compaction_load_relaxed(&tile_status[predecessor]);
            }
        }
        const unsigned int inclusive = __ballot_sync(COMPACTION_FULL_WARP, (status >> 32) == 2);
        // Lanes up to and including the nearest inclusive prefix contribute.
        const unsigned int stop = inclusive ? (unsigned int)(__ffs(inclusive) - 1) : 31u;
        const unsigned int value = lane <= stop ? (unsigned int)status : 0u;
        exclusive += __reduce_add_sync(COMPACTION_FULL_WARP, value);
        if (inclusive) break;
        window_end -= 32;
    }
    if (lane == 0) compaction_store_relaxed(&tile_status[tile], COMPACTION_STATUS_INCLUSIVE | (exclusive + total));
    return exclusive;
}

// Order-preserving single-pass compaction of the tile with ticket `tile` (from
// compaction_ticket): the output is exactly the kept elements in tile order. The last tile
// writes the total to state.count.
template <typename T, int ITEMS>
__device__ __forceinline__ void ink_lookback_store(BlockScanStorage<ITEMS>& scratch, T* __restrict__ out,
                                                   const CompactionState& state, unsigned int tile,
                                                   const T (&elem)[ITEMS], const bool (&keep)[ITEMS]) {
    unsigned int rank[ITEMS];
    const unsigned int total = block_compaction_ranks<ITEMS>(scratch, keep, rank);
    if (threadIdx.x < 32) {
        const unsigned int exclusive = lookback_exclusive_prefix(state.tile_status, tile, total);
        if (threadIdx.x == 0) {
            scratch.base = exclusive;
            if (tile == state.tiles - 1) *state.count = exclusive + total;
        }
    }
    __syncthreads();
    scatter_kept<T, ITEMS>(out, scratch.base, elem, keep, rank);
}

// ---- InK-Compact with block sections (seed 001 §2.3) -------------------------------------

// Reads an element written by another block of this launch: through L2 (ld.global.cg),
// never a possibly stale L1 line.
template <typename T>
__device__ __forceinline__ T load_through_l2(const T* source) {
    static_assert(sizeof(T) % 4 == 0, "elements are whole 32-bit words");
    T value;
    if constexpr (sizeof(T) % 16 == 0 && alignof(T) >= 16) {
        uint4* words = reinterpret_cast<uint4*>(&value);
#pragma unroll
        for (unsigned int w = 0; w < sizeof(T) / 16; ++w) words[w] = __ldcg(reinterpret_cast<const uint4*>(source) + w);
    } else {
        unsigned int* words = reinterpret_cast<unsigned int*>(&value);
#pragma unroll
        for (unsigned int w = 0; w < sizeof(T) / 4; ++w)
            words[w] = __ldcg(reinterpret_cast<const unsigned int*>(source) + w);
    }
    return value;
}

// Order-preserving compaction of the tile with ticket `tile`: `intermediate` holds
// tiles * ITEMS * blockDim.x elements. Stage 1: the block compacts its tile into
// intermediate[tile * TILE ...] and counts it. Stage 2: it bumps its section's counter; the
// block that completes the section is its controller, every other block returns. The
// controller scans the section's block counts (bit-decomposed ballots), stage 3: waits for
// the previous section's flag, stage 4: publishes its section's offset and flag, then moves
// the section's blocks from the intermediate buffer to `out`.
template <typename T, int ITEMS>
__device__ __forceinline__ void ink_compact_store(BlockScanStorage<ITEMS>& scratch, T* __restrict__ out,
                                                  T* __restrict__ intermediate, const CompactionState& state,
                                                  unsigned int tile, const T (&elem)[ITEMS],
                                                  const bool (&keep)[ITEMS]) {
    __shared__ unsigned int section_offsets[COMPACTION_SECTION_BLOCKS];
    __shared__ unsigned int section_counts[COMPACTION_SECTION_BLOCKS];
    __shared__ bool is_controller;
    const unsigned int tile_size = ITEMS * blockDim.x;
    unsigned int rank[ITEMS];
    // Stage 1: local compaction into the intermediate buffer at the tile's own place.
    const unsigned int total = block_compaction_ranks<ITEMS>(scratch, keep, rank);
    scatter_kept<T, ITEMS>(intermediate, tile * tile_size, elem, keep, rank);
    const unsigned int section = tile / COMPACTION_SECTION_BLOCKS;
    const unsigned int first_tile = section * COMPACTION_SECTION_BLOCKS;
    const unsigned int section_tiles = min((unsigned int)COMPACTION_SECTION_BLOCKS, state.tiles - first_tile);
    // Stage 2: every thread's stores are made visible before the block counts itself done.
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        state.block_counts[tile] = total;
        __threadfence();
        const unsigned int finished = atomicAdd(&state.section_counters[section], 1u);
        is_controller = finished == section_tiles - 1;
    }
    __syncthreads();
    if (!is_controller) return;
    __threadfence();  // acquire: the other blocks' counts and intermediate data
    if (threadIdx.x < 32) {
        const unsigned int lane = threadIdx.x;
        if (lane < COMPACTION_SECTION_BLOCKS)
            section_counts[lane] =
                lane < section_tiles ? *(volatile unsigned int*)&state.block_counts[first_tile + lane] : 0u;
        section_offsets[lane] = section_counts[lane];
        __syncwarp();
        // A block count is at most the tile size (< 2^16 elements for any tile here).
        const unsigned int section_total = warp_bitwise_exclusive_scan<17>(section_offsets, COMPACTION_SECTION_BLOCKS);
        if (lane == 0) {
            // Stage 3: wait for the previous section (its controller has a lower ticket).
            unsigned int previous = 0;
            if (section > 0) {
                while (*(volatile unsigned int*)&state.section_flags[section - 1] == 0) {
                }
                __threadfence();
                previous = *(volatile unsigned int*)&state.section_offsets[section - 1];
            }
            // Stage 4: publish this section's inclusive offset, then its flag.
            state.section_offsets[section] = previous + section_total;
            __threadfence();
            *(volatile unsigned int*)&state.section_flags[section] = 1u;
            if (first_tile + section_tiles == state.tiles) *state.count = previous + section_total;
            scratch.base = previous;
        }
    }
    __syncthreads();
    // Stage 4: move the section's compacted blocks to their final place.
    const unsigned int base = scratch.base;
    for (unsigned int b = 0; b < section_tiles; ++b) {
        const unsigned int count = section_counts[b];
        const T* source = intermediate + (first_tile + b) * tile_size;
        T* target = out + base + section_offsets[b];
        for (unsigned int k = threadIdx.x; k < count; k += blockDim.x) target[k] = load_through_l2(source + k);
    }
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_COMPACTION_COMPACTION
#include "generated/layout_checks.cuh"
