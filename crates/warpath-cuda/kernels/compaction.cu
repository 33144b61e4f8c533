// compaction.cu — benchmark and test kernels over compaction.cuh (seed 001; Merrill &
// Garland 2016), for three element types (u32, the 16-byte CompactElem16, the 64-byte
// CompactPathState):
//
//   compaction_fill_*        random keys on the device (benchmark input)
//   compaction_collate_*     InK-Collate: a producer (reads its tile, applies the predicate)
//                            that compacts in-kernel with one atomicAdd per block
//   compaction_sections_*    InK-Compact: the same producer, order kept by block sections
//   compaction_lookback_*    the same producer, order kept by decoupled look-back
//   compaction_lookback384_* the look-back producer in 384-thread blocks
//   compaction_lookback_pipelined_*  persistent blocks; the next tile's loads overlap the
//                            current tile's look-back
//   compaction_lookback_staged_*  look-back with the kept elements staged in shared memory
//                            during the look-back and stored coalesced
//   compaction_lookback_deep_u32  one tile deeper: tile t is finished after t + 1 is published
//   compaction_lookback_deep_vec4_u32  the same in the vec4 layout (16-byte loads)
//   compaction_lookback_deep_ahead_u32  vec4, tickets taken a tile early: the fastest
//                            order-preserving u32 kernel (docs/benchmarks/compaction.md)
//   compaction_collate_vec4_u32  InK-Collate in the vec4 layout
//   compaction_collate_bulk_*  InK-Collate fed by Hopper bulk copies into a ring of
//                            shared-memory tiles (co-resident blocks, tiles by round)
//   compaction_round_scan_*  order-preserving over the same ring: a tile's offset from its
//                            round's published counts, read DEFER rounds later
//   compaction_flags_*       a producer that only writes a flag array (input of OfK)
//   compaction_ofk_*         OfK: compaction in its own kernel from flags + data (look-back)
//   compaction_count_*,      three-pass scan-then-scatter: per-block counts, a one-block
//   compaction_scan_counts,  exclusive scan of them, then a scatter that re-reads the data
//   compaction_scatter_*
//   *_x1_u32                 the one-element-per-thread in-kernel API (ITEMS = 1)
//
// A tile is COMPACTION_BLOCK threads × ITEMS rounds; element i of thread t of tile k is
// input[k * TILE + i * COMPACTION_BLOCK + t]. The order-preserving producers take their
// tile from a ticket (compaction_ticket), never from blockIdx.x; the bulk-copy kernels alone
// number tiles by round and block, their blocks made co-resident by a cooperative launch.
#include "compaction/bulk_copy.cuh"
#include "compaction/compaction.cuh"

#define COMPACTION_BLOCK 256
#define COMPACTION_WIDE_BLOCK 384  // the lookback384 kernels (CUB's sm90 block for 4-byte select)
#define COMPACTION_ITEMS_U32 16
#define COMPACTION_ITEMS_ELEM16 8
#define COMPACTION_ITEMS_PATH 2

__device__ __forceinline__ void fill_element(unsigned int& out, unsigned int index, unsigned int key) {
    (void)index;
    out = key;
}
__device__ __forceinline__ void fill_element(CompactElem16& out, unsigned int index, unsigned int key) {
    out.key = key;
    out.payload[0] = index;
    out.payload[1] = ~index;
    out.payload[2] = key ^ 0x5bd1e995u;
}
__device__ __forceinline__ void fill_element(CompactPathState& out, unsigned int index, unsigned int key) {
    out.key = key;
    out.pixel = index;
    out.depth = index & 7u;
    out.rng = compaction_hash(key);
    for (int c = 0; c < 3; ++c) {
        out.origin[c] = (float)(index + c);
        out.direction[c] = (float)c - 1.0f;
        out.throughput[c] = 0.5f;
    }
    out.pdf = 1.0f;
    out.t_max = 1e30f;
    out.flags = ~index;
}

template <typename T>
__device__ __forceinline__ void fill(T* __restrict__ out, unsigned int n, unsigned int seed) {
    const unsigned int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= n) return;
    T value;
    fill_element(value, index, compaction_hash(index ^ compaction_hash(seed)));
    out[index] = value;
}

// Loads tile `tile` and evaluates the predicate; lanes past n keep nothing.
template <typename T, int ITEMS>
__device__ __forceinline__ void load_tile(const T* __restrict__ in, unsigned int n, unsigned int tile,
                                          KeepHashBelow predicate, T (&elem)[ITEMS], bool (&keep)[ITEMS]) {
    const unsigned int first = tile * (ITEMS * blockDim.x) + threadIdx.x;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned int index = first + i * blockDim.x;
        if (index < n) elem[i] = in[index];
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) keep[i] = first + i * blockDim.x < n && predicate(elem[i]);
}

// load_tile in the vec4 layout (u32): vector r of thread t is elements
// tile * TILE + r * 4 * blockDim.x + 4 * t + (0..3), one 16-byte load when whole.
template <int ITEMS>
__device__ __forceinline__ void load_tile_vec4(const unsigned int* __restrict__ in, unsigned int n, unsigned int tile,
                                               KeepHashBelow predicate, unsigned int (&elem)[ITEMS],
                                               bool (&keep)[ITEMS]) {
#pragma unroll
    for (int r = 0; r < ITEMS / 4; ++r) {
        const unsigned int first = tile * (ITEMS * blockDim.x) + r * 4 * blockDim.x + 4 * threadIdx.x;
        if (first + 4 <= n) {
            const uint4 v = *reinterpret_cast<const uint4*>(in + first);
            elem[r * 4] = v.x;
            elem[r * 4 + 1] = v.y;
            elem[r * 4 + 2] = v.z;
            elem[r * 4 + 3] = v.w;
        } else {
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (first + c < n) elem[r * 4 + c] = in[first + c];
        }
#pragma unroll
        for (int c = 0; c < 4; ++c) keep[r * 4 + c] = first + c < n && predicate(elem[r * 4 + c]);
    }
}

// The tile layouts the u32 kernels come in: Striped (element i of thread t at i * block + t)
// or Vec4 (load_tile_vec4 / block_compaction_ranks_vec4).
enum class TileLayout { Striped, Vec4 };

template <typename T, int ITEMS, TileLayout LAYOUT>
struct TileOps {
    using Scratch = BlockScanStorage<ITEMS>;
    __device__ __forceinline__ static void load(const T* in, unsigned int n, unsigned int tile, KeepHashBelow p,
                                                T (&elem)[ITEMS], bool (&keep)[ITEMS]) {
        load_tile<T, ITEMS>(in, n, tile, p, elem, keep);
    }
    __device__ __forceinline__ static unsigned int ranks(Scratch& scratch, const bool (&keep)[ITEMS],
                                                         unsigned int (&rank)[ITEMS]) {
        return block_compaction_ranks<ITEMS>(scratch, keep, rank);
    }
};

template <int ITEMS>
struct TileOps<unsigned int, ITEMS, TileLayout::Vec4> {
    using Scratch = BlockScanStorage<ITEMS / 4>;
    __device__ __forceinline__ static void load(const unsigned int* in, unsigned int n, unsigned int tile,
                                                KeepHashBelow p, unsigned int (&elem)[ITEMS], bool (&keep)[ITEMS]) {
        load_tile_vec4<ITEMS>(in, n, tile, p, elem, keep);
    }
    __device__ __forceinline__ static unsigned int ranks(Scratch& scratch, const bool (&keep)[ITEMS],
                                                         unsigned int (&rank)[ITEMS]) {
        return block_compaction_ranks_vec4<ITEMS>(scratch, keep, rank);
    }
};

template <typename T, int ITEMS>
__device__ __forceinline__ void load_tile_flags(const T* __restrict__ in, const unsigned char* __restrict__ flags,
                                                unsigned int n, unsigned int tile, T (&elem)[ITEMS],
                                                bool (&keep)[ITEMS]) {
    const unsigned int first = tile * (ITEMS * blockDim.x) + threadIdx.x;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned int index = first + i * blockDim.x;
        keep[i] = index < n && flags[index] != 0;
        if (keep[i]) elem[i] = in[index];  // OfK reads only the elements it keeps
    }
}

template <typename T, int ITEMS, TileLayout LAYOUT = TileLayout::Striped>
__device__ __forceinline__ void collate(const T* __restrict__ in, T* __restrict__ out, unsigned int* counter,
                                        unsigned int n, unsigned long long threshold) {
    using Ops = TileOps<T, ITEMS, LAYOUT>;
    __shared__ typename Ops::Scratch scratch;
    T elem[ITEMS];
    bool keep[ITEMS];
    Ops::load(in, n, blockIdx.x, KeepHashBelow{threshold}, elem, keep);
    unsigned int rank[ITEMS];
    const unsigned int total = Ops::ranks(scratch, keep, rank);
    ink_collate_store_ranked<T, ITEMS>(scratch, out, counter, total, elem, keep, rank);
}

#define COMPACTION_STATE_PARAMS                                                                           \
    unsigned int *ticket, unsigned int *count, unsigned long long *tile_status, unsigned int *block_counts, \
        unsigned int *section_counters, unsigned int *section_flags, unsigned int *section_offsets,         \
        unsigned int tiles
#define COMPACTION_STATE_VALUE \
    CompactionState { ticket, count, tile_status, block_counts, section_counters, section_flags, section_offsets, tiles }

template <typename T, int ITEMS>
__device__ __forceinline__ void lookback(const T* __restrict__ in, T* __restrict__ out, const CompactionState& state,
                                         unsigned int n, unsigned long long threshold) {
    __shared__ BlockScanStorage<ITEMS> scratch;
    const unsigned int tile = compaction_ticket(scratch, state.ticket);
    T elem[ITEMS];
    bool keep[ITEMS];
    load_tile<T, ITEMS>(in, n, tile, KeepHashBelow{threshold}, elem, keep);
    ink_lookback_store<T, ITEMS>(scratch, out, state, tile, elem, keep);
}

template <typename T, int ITEMS>
__device__ __forceinline__ void lookback_staged(const T* __restrict__ in, T* __restrict__ out,
                                                const CompactionState& state, unsigned int n,
                                                unsigned long long threshold) {
    __shared__ BlockScanStorage<ITEMS> scratch;
    __shared__ T staging[ITEMS * COMPACTION_BLOCK];
    const unsigned int tile = compaction_ticket(scratch, state.ticket);
    T elem[ITEMS];
    bool keep[ITEMS];
    load_tile<T, ITEMS>(in, n, tile, KeepHashBelow{threshold}, elem, keep);
    ink_lookback_staged_store<T, ITEMS>(scratch, staging, out, state, tile, elem, keep);
}

// Look-back in a persistent loop, software-pipelined: a block ranks its tile, stages the kept
// elements in shared memory, publishes the tile's aggregate and takes its next ticket, then
// issues the loads of that next tile *before* warp 0 looks back for the current one, so the
// look-back wait overlaps the next tile's memory traffic; the staged run is stored coalesced.
// A block holds at most one unfinished tile, whose aggregate is already published, and only
// waits for lower tickets: every wait ends (see the header's forward-progress note).
template <typename T, int ITEMS>
__device__ __forceinline__ void lookback_pipelined(const T* __restrict__ in, T* __restrict__ out,
                                                   const CompactionState& state, unsigned int n,
                                                   unsigned long long threshold) {
    __shared__ BlockScanStorage<ITEMS> scratch;
    __shared__ T staging[ITEMS * COMPACTION_BLOCK];
    __shared__ unsigned int next_ticket;
    unsigned int tile = compaction_ticket(scratch, state.ticket);
    T elem[ITEMS];
    bool keep[ITEMS];
    if (tile < state.tiles) load_tile<T, ITEMS>(in, n, tile, KeepHashBelow{threshold}, elem, keep);
    while (tile < state.tiles) {
        unsigned int rank[ITEMS];
        const unsigned int total = block_compaction_ranks<ITEMS>(scratch, keep, rank);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if (keep[i]) staging[rank[i]] = elem[i];
        if (threadIdx.x == 0) {
            lookback_publish_aggregate(state.tile_status, tile, total);
            next_ticket = atomicAdd(state.ticket, 1u);
        }
        __syncthreads();
        const unsigned int next = next_ticket;
        if (next < state.tiles) load_tile<T, ITEMS>(in, n, next, KeepHashBelow{threshold}, elem, keep);
        if (threadIdx.x < 32) {
            const unsigned int exclusive = lookback_exclusive_prefix(state.tile_status, tile, total, true);
            if (threadIdx.x == 0) {
                scratch.base = exclusive;
                if (tile == state.tiles - 1) *state.count = exclusive + total;
            }
        }
        __syncthreads();
        T* target = out + scratch.base;
        for (unsigned int k = threadIdx.x; k < total; k += blockDim.x) target[k] = staging[k];
        tile = next;
        // The next ranking's barrier orders these staging reads before its staging writes.
    }
}

// Look-back pipelined one tile deeper: a block finishes tile t (look-back, store) only after
// it has ranked, staged and published tile t + 1, so t's predecessors have had a whole tile
// of time to publish and warp 0's look-back rarely waits. Two staging buffers (u32 only: two
// tiles of wider elements exceed the 48 KB of static shared memory).
// TICKET_AHEAD: thread 0 takes each ticket one tile early and keeps it in a register, so
// the barrier before the next tile's loads never waits for an atomic's round trip. The
// block then holds one ticket it has not loaded yet; it is higher than the block's other
// tickets, so the lowest unfinished ticket still always belongs to a block that can finish it.
template <typename T, int ITEMS, TileLayout LAYOUT = TileLayout::Striped, bool TICKET_AHEAD = false>
__device__ __forceinline__ void lookback_deep(const T* __restrict__ in, T* __restrict__ out,
                                              const CompactionState& state, unsigned int n,
                                              unsigned long long threshold) {
    using Ops = TileOps<T, ITEMS, LAYOUT>;
    __shared__ typename Ops::Scratch scratch;
    __shared__ T staging[2][ITEMS * COMPACTION_BLOCK];
    __shared__ unsigned int next_ticket;
    const unsigned int none = 0xffffffffu;
    unsigned int tile = compaction_ticket(scratch, state.ticket);
    // Thread 0, TICKET_AHEAD: the ticket of the tile after next.
    unsigned int pending = TICKET_AHEAD && threadIdx.x == 0 ? atomicAdd(state.ticket, 1u) : 0u;
    T elem[ITEMS];
    bool keep[ITEMS];
    if (tile < state.tiles) Ops::load(in, n, tile, KeepHashBelow{threshold}, elem, keep);
    unsigned int previous = none, previous_total = 0;  // block-uniform
    unsigned int buffer = 0;
    while (tile < state.tiles || previous != none) {
        unsigned int total = 0;
        if (tile < state.tiles) {
            unsigned int rank[ITEMS];
            total = Ops::ranks(scratch, keep, rank);
#pragma unroll
            for (int i = 0; i < ITEMS; ++i)
                if (keep[i]) staging[buffer][rank[i]] = elem[i];
            if (threadIdx.x == 0) {
                lookback_publish_aggregate(state.tile_status, tile, total);
                if (TICKET_AHEAD) {
                    next_ticket = pending;
                    pending = atomicAdd(state.ticket, 1u);
                } else {
                    next_ticket = atomicAdd(state.ticket, 1u);
                }
            }
        }
        __syncthreads();
        const unsigned int next = tile < state.tiles ? next_ticket : state.tiles;
        if (next < state.tiles) Ops::load(in, n, next, KeepHashBelow{threshold}, elem, keep);
        if (previous != none) {
            if (threadIdx.x < 32) {
                const unsigned int exclusive =
                    lookback_exclusive_prefix(state.tile_status, previous, previous_total, true);
                if (threadIdx.x == 0) {
                    scratch.base = exclusive;
                    if (previous == state.tiles - 1) *state.count = exclusive + previous_total;
                }
            }
            __syncthreads();
            T* target = out + scratch.base;
            const T* source = staging[buffer ^ 1u];
            for (unsigned int k = threadIdx.x; k < previous_total; k += blockDim.x) target[k] = source[k];
        }
        previous = tile < state.tiles ? tile : none;
        previous_total = total;
        buffer ^= 1u;
        tile = next;
    }
}

// ---- bulk-copy methods (Hopper): a ring of shared-memory tiles --------------------------
//
// A block keeps several tiles of reads in flight at all times: shared memory holds a ring of
// STAGES tiles (dynamic shared memory, STAGES * tile bytes, asked for by the host), each
// filled by one bulk copy (bulk_copy.cuh) that thread 0 issues as soon as the stage is free,
// so loads never wait for the block's ranking, offsets or stores. Tiles go to blocks in
// rounds: block b's k-th tile is k * gridDim.x + b. A tail tile that is not whole, or a
// device without bulk copies, is read from global memory by the consumers instead.
//
// Why rounds and not tickets (measured, docs/benchmarks/compaction.md): a ticket taken a ring
// ahead sits behind the block's earlier tiles, and a look-back successor in another block
// then waits for that whole ring of work (2.5× slower than lookback-deep).
template <typename T, int ITEMS, int STAGES>
struct BulkRing {
    static constexpr unsigned int TILE = ITEMS * COMPACTION_BLOCK;
    static constexpr unsigned int TILE_BYTES = TILE * sizeof(T);
    static_assert(TILE_BYTES % 16 == 0, "bulk copies move multiples of 16 bytes");
    T* tiles;                  // STAGES * TILE elements of dynamic shared memory
    unsigned long long* full;  // STAGES transaction barriers in shared memory
    const T* in;
    unsigned int n, tile_count;

    // Whether `tile` arrives by one bulk copy (whole, in range, on a device that has them).
    __device__ __forceinline__ bool by_copy(unsigned int tile) const {
        return WARPATH_HAS_BULK_COPY && tile < tile_count && (unsigned long long)(tile + 1) * TILE <= n;
    }
    __device__ __forceinline__ T* stage(unsigned int s) const { return tiles + s * TILE; }
    // Thread 0 only, once, before a block barrier.
    __device__ __forceinline__ void init() {
#if WARPATH_HAS_BULK_COPY
        for (int s = 0; s < STAGES; ++s) bulk_barrier_init(&full[s], 1);
        bulk_barrier_init_fence();
#endif
    }
    // Thread 0 only: starts the copy of `tile` into stage s, or completes the stage's phase at
    // once when there is nothing to copy. Every reader of the stage has passed a block
    // barrier since its last read.
    __device__ __forceinline__ void issue(unsigned int s, unsigned int tile) {
#if WARPATH_HAS_BULK_COPY
        bulk_fence_shared_before_async();
        if (by_copy(tile)) {
            bulk_arrive_expect_bytes(&full[s], TILE_BYTES);
            bulk_copy_to_shared(stage(s), in + (unsigned long long)tile * TILE, TILE_BYTES, &full[s]);
        } else {
            bulk_arrive(&full[s]);
        }
#else
        (void)s;
        (void)tile;
#endif
    }
    // Every thread: waits for the `use`-th fill of stage s (use = 0, 1, ...), then reads its
    // ITEMS elements of `tile` (striped: conflict-free) and evaluates the predicate.
    __device__ __forceinline__ void read(unsigned int s, unsigned int use, unsigned int tile, KeepHashBelow predicate,
                                         T (&elem)[ITEMS], bool (&keep)[ITEMS]) {
#if WARPATH_HAS_BULK_COPY
        bulk_wait(&full[s], use & 1u);
#endif
        (void)use;
        if (by_copy(tile)) {
            const T* source = stage(s);
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                elem[i] = source[i * COMPACTION_BLOCK + threadIdx.x];
                keep[i] = predicate(elem[i]);
            }
        } else {
            load_tile<T, ITEMS>(in, n, tile, predicate, elem, keep);
        }
    }
};

// Declares `ring` over the block's dynamic shared memory and STAGES barriers.
#define COMPACTION_BULK_RING(T, ITEMS, STAGES, IN, N, TILE_COUNT)                                   \
    extern __shared__ __align__(128) unsigned char compaction_ring_bytes[];                         \
    __shared__ __align__(8) unsigned long long compaction_ring_full[STAGES];                        \
    BulkRing<T, ITEMS, STAGES> ring{reinterpret_cast<T*>(compaction_ring_bytes), compaction_ring_full, \
                                    IN, N, TILE_COUNT};

// InK-Collate fed by the ring: one atomicAdd per tile for its base (order kept within a
// tile only), stores from registers; stage s is refilled right after the ranking barrier.
template <typename T, int ITEMS, int STAGES>
__device__ __forceinline__ void collate_bulk(const T* __restrict__ in, T* __restrict__ out, const CompactionState& state,
                                             unsigned int n, unsigned long long threshold) {
    COMPACTION_BULK_RING(T, ITEMS, STAGES, in, n, state.tiles)
    __shared__ BlockScanStorage<ITEMS> scratch;
    const KeepHashBelow predicate{threshold};
    const unsigned int blocks = gridDim.x;
    if (threadIdx.x == 0) {
        ring.init();
        for (unsigned int s = 0; s < STAGES; ++s) ring.issue(s, s * blocks + blockIdx.x);
    }
    __syncthreads();
    for (unsigned int round = 0; round * blocks + blockIdx.x < state.tiles; ++round) {
        const unsigned int tile = round * blocks + blockIdx.x, s = round % STAGES;
        T elem[ITEMS];
        bool keep[ITEMS];
        ring.read(s, round / STAGES, tile, predicate, elem, keep);
        unsigned int rank[ITEMS];
        const unsigned int total = block_compaction_ranks<ITEMS>(scratch, keep, rank);
        if (threadIdx.x == 0) ring.issue(s, (round + STAGES) * blocks + blockIdx.x);  // past the barrier: free
        ink_collate_store_ranked<T, ITEMS>(scratch, out, state.count, total, elem, keep, rank);
    }
}

// Order-preserving, by rounds: every block publishes its tile's count (an aggregate status
// word), compacts the tile in place in its stage, and stores it DEFER rounds later, when the
// counts of that round have long been published: the tile's offset is the sum of the counts
// of the blocks before it in its round plus a running total of all earlier rounds, which
// every block keeps itself. No look-back walk, no inclusive prefixes: no tile's offset waits
// on another tile's offset, only on counts published DEFER rounds before. Blocks wait on
// every block of a round, so all must be resident: the host launches cooperatively.
//
// The round's counts are read by all threads, up to COMPACTION_ROUND_SCAN_LOADS per thread
// (gridDim.x <= 256 * that), one iteration before they are needed, so the loads' latency is
// off the critical path (a first version read them by warp 0 at the store, two L2 round trips
// per round on every block's critical path: 1.69 TB/s at best). The kept run is stored
// coalesced from shared memory.
//
// Ring use: round k lives in stage k % STAGES from its copy until its store (iteration
// k + DEFER); the stage is refilled, with round k + STAGES, after the next barrier. So
// STAGES - DEFER - 1 rounds of copies are in flight ahead of the one being ranked.
#ifndef COMPACTION_ROUND_SCAN_LOADS
#define COMPACTION_ROUND_SCAN_LOADS 4
#endif

template <int ITEMS>
struct RoundScanStorage {
    BlockScanStorage<ITEMS> scan;
    unsigned int before[COMPACTION_BLOCK / 32];  // per warp: counts of blocks before this one
    unsigned int all[COMPACTION_BLOCK / 32];     // per warp: counts of the whole round
};

template <typename T, int ITEMS, int STAGES, int DEFER>
__device__ __forceinline__ void round_scan_bulk(const T* __restrict__ in, T* __restrict__ out,
                                                const CompactionState& state, unsigned int n,
                                                unsigned long long threshold) {
    static_assert(DEFER >= 1 && STAGES >= DEFER + 2, "a stage to rank, DEFER held, one refilling");
    constexpr int LOADS = COMPACTION_ROUND_SCAN_LOADS;
    constexpr unsigned int WARPS = COMPACTION_BLOCK / 32;
    COMPACTION_BULK_RING(T, ITEMS, STAGES, in, n, state.tiles)
    __shared__ RoundScanStorage<ITEMS> scratch;
    const KeepHashBelow predicate{threshold};
    const unsigned int blocks = gridDim.x, lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (blocks > LOADS * COMPACTION_BLOCK) __trap();  // the host caps the grid (ROUND_SCAN_MAX_BLOCKS)
    if (threadIdx.x == 0) {
        ring.init();
        for (unsigned int s = 0; s < STAGES; ++s) ring.issue(s, s * blocks + blockIdx.x);
    }
    __syncthreads();
    // held_total[d]: kept count of round k - d (block-uniform); [DEFER] is the one stored now.
    unsigned int held_total[DEFER + 1];
    unsigned long long running = 0;  // kept elements of all rounds already stored (every thread)
    // status[j]: the count of block j * COMPACTION_BLOCK + threadIdx.x in the next round to
    // store, loaded an iteration early.
    unsigned long long status[LOADS];
    // Loads the counts of `round` (nothing past this block's rounds).
    auto load_counts = [&](unsigned int round) {
#pragma unroll
        for (int j = 0; j < LOADS; ++j) {
            const unsigned int b = j * COMPACTION_BLOCK + threadIdx.x;
            const unsigned long long tile = (unsigned long long)round * blocks + b;
            status[j] = b < blocks && tile < state.tiles ? compaction_load_relaxed(&state.tile_status[tile])
                                                         : COMPACTION_STATUS_AGGREGATE;  // counts 0
        }
    };
    // This block's rounds, then DEFER more iterations that only store.
    const unsigned int my_rounds = blockIdx.x < state.tiles ? (state.tiles - 1 - blockIdx.x) / blocks + 1 : 0;
    for (unsigned int k = 0; k < my_rounds + DEFER; ++k) {
        // 0. The counts of the round stored now (loaded last iteration); those of the round
        // stored next iteration go in flight.
        unsigned long long counts_now[LOADS];
#pragma unroll
        for (int j = 0; j < LOADS; ++j) counts_now[j] = status[j];
        if (k + 1 >= DEFER && k + 1 - DEFER < my_rounds) load_counts(k + 1 - DEFER);
        // 1. Rank round k's tile, publish its count, compact it in place in its stage.
        if (k < my_rounds) {
            const unsigned int tile = k * blocks + blockIdx.x, s = k % STAGES;
            T elem[ITEMS];
            bool keep[ITEMS];
            ring.read(s, k / STAGES, tile, predicate, elem, keep);
            unsigned int rank[ITEMS];
            const unsigned int total = block_compaction_ranks<ITEMS>(scratch.scan, keep, rank);
            if (threadIdx.x == 0) compaction_store_relaxed(&state.tile_status[tile], COMPACTION_STATUS_AGGREGATE | total);
            // Every thread read its elements before the ranking's barrier: writing the kept
            // ones at their ranks (never past their own position) clobbers nothing unread.
            T* stage = ring.stage(s);
#pragma unroll
            for (int i = 0; i < ITEMS; ++i)
                if (keep[i]) stage[rank[i]] = elem[i];
#pragma unroll
            for (int d = DEFER; d > 0; --d) held_total[d] = held_total[d - 1];
            held_total[0] = total;
        } else {
#pragma unroll
            for (int d = DEFER; d > 0; --d) held_total[d] = held_total[d - 1];
            held_total[0] = 0;
            __syncthreads();  // the barrier the ranking would have passed
        }
        // Past that barrier, the stage stored in the previous iteration is free: refill it.
        if (threadIdx.x == 0 && k >= DEFER + 1) {
            const unsigned int done = k - DEFER - 1;
            ring.issue(done % STAGES, (done + STAGES) * blocks + blockIdx.x);
        }
        // 2. Store round k - DEFER.
        if (k >= DEFER) {
            const unsigned int round = k - DEFER;
            unsigned int before = 0, all = 0;
#pragma unroll
            for (int j = 0; j < LOADS; ++j) {
                const unsigned int b = j * COMPACTION_BLOCK + threadIdx.x;
                const unsigned long long tile = (unsigned long long)round * blocks + b;
                while ((counts_now[j] >> 32) == 0) {  // not yet published (rare: DEFER rounds ago)
                    __nanosleep(COMPACTION_LOOKBACK_BACKOFF_NS);
                    counts_now[j] = compaction_load_relaxed(&state.tile_status[tile]);
                }
                all += (unsigned int)counts_now[j];
                before += b < blockIdx.x ? (unsigned int)counts_now[j] : 0u;
            }
            before = __reduce_add_sync(COMPACTION_FULL_WARP, before);
            all = __reduce_add_sync(COMPACTION_FULL_WARP, all);
            if (lane == 0) {
                scratch.before[warp] = before;
                scratch.all[warp] = all;
            }
            __syncthreads();
            before = 0;
            all = 0;
#pragma unroll
            for (unsigned int w = 0; w < WARPS; ++w) {
                before += scratch.before[w];
                all += scratch.all[w];
            }
            const unsigned int base = (unsigned int)(running + before), total = held_total[DEFER];
            running += all;
            if (threadIdx.x == 0 && round * blocks + blockIdx.x == state.tiles - 1) *state.count = base + total;
            const T* stage = ring.stage(round % STAGES);
            for (unsigned int e = threadIdx.x; e < total; e += COMPACTION_BLOCK) out[base + e] = stage[e];
        }
        // The next iteration's first barrier orders these reads of scratch and of the stage
        // before they are rewritten.
    }
}

template <typename T, int ITEMS>
__device__ __forceinline__ void sections(const T* __restrict__ in, T* __restrict__ out, T* __restrict__ intermediate,
                                         const CompactionState& state, unsigned int n,
                                         unsigned long long threshold) {
    __shared__ BlockScanStorage<ITEMS> scratch;
    const unsigned int tile = compaction_ticket(scratch, state.ticket);
    T elem[ITEMS];
    bool keep[ITEMS];
    load_tile<T, ITEMS>(in, n, tile, KeepHashBelow{threshold}, elem, keep);
    ink_compact_store<T, ITEMS>(scratch, out, intermediate, state, tile, elem, keep);
}

template <typename T>
__device__ __forceinline__ void write_flags(const T* __restrict__ in, unsigned char* __restrict__ flags,
                                            unsigned int n, unsigned long long threshold) {
    const unsigned int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < n) flags[index] = KeepHashBelow{threshold}(in[index]) ? 1 : 0;
}

template <typename T, int ITEMS>
__device__ __forceinline__ void out_of_kernel(const T* __restrict__ in, const unsigned char* __restrict__ flags,
                                              T* __restrict__ out, const CompactionState& state, unsigned int n) {
    __shared__ BlockScanStorage<ITEMS> scratch;
    const unsigned int tile = compaction_ticket(scratch, state.ticket);
    T elem[ITEMS];
    bool keep[ITEMS];
    load_tile_flags<T, ITEMS>(in, flags, n, tile, elem, keep);
    ink_lookback_store<T, ITEMS>(scratch, out, state, tile, elem, keep);
}

// Three-pass, pass 1: kept elements per tile.
template <typename T, int ITEMS>
__device__ __forceinline__ void count_tiles(const T* __restrict__ in, unsigned int* __restrict__ block_counts,
                                            unsigned int n, unsigned long long threshold) {
    __shared__ BlockScanStorage<ITEMS> scratch;
    T elem[ITEMS];
    bool keep[ITEMS];
    load_tile<T, ITEMS>(in, n, blockIdx.x, KeepHashBelow{threshold}, elem, keep);
    unsigned int kept = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) kept += keep[i] ? 1u : 0u;
    const unsigned int warp_total = __reduce_add_sync(COMPACTION_FULL_WARP, kept);
    if ((threadIdx.x & 31u) == 0) scratch.counts[threadIdx.x >> 5] = warp_total;
    __syncthreads();
    if (threadIdx.x < 32) {
        const unsigned int warps = blockDim.x >> 5;
        const unsigned int value = threadIdx.x < warps ? scratch.counts[threadIdx.x] : 0u;
        const unsigned int block_total = __reduce_add_sync(COMPACTION_FULL_WARP, value);
        if (threadIdx.x == 0) block_counts[blockIdx.x] = block_total;
    }
}

// Three-pass, pass 3: re-reads its tile, ranks it, writes at the scanned offset.
template <typename T, int ITEMS>
__device__ __forceinline__ void scatter_tiles(const T* __restrict__ in, T* __restrict__ out,
                                              const unsigned int* __restrict__ block_offsets, unsigned int n,
                                              unsigned long long threshold) {
    __shared__ BlockScanStorage<ITEMS> scratch;
    T elem[ITEMS];
    bool keep[ITEMS];
    load_tile<T, ITEMS>(in, n, blockIdx.x, KeepHashBelow{threshold}, elem, keep);
    unsigned int rank[ITEMS];
    block_compaction_ranks<ITEMS>(scratch, keep, rank);
    scatter_kept<T, ITEMS>(out, block_offsets[blockIdx.x], elem, keep, rank);
}

// Three-pass, pass 2: one block of 1024 threads scans `counts[0..tiles)` in place to
// exclusive offsets and writes the total to *count.
extern "C" __global__ void __launch_bounds__(1024) compaction_scan_counts(unsigned int* counts, unsigned int tiles,
                                                                          unsigned int* count) {
    __shared__ unsigned int warp_sums[32];
    __shared__ unsigned int carry;
    const unsigned int lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    for (unsigned int base = 0; base < tiles; base += blockDim.x) {
        const unsigned int index = base + threadIdx.x;
        const unsigned int value = index < tiles ? counts[index] : 0u;
        unsigned int inclusive = value;
#pragma unroll
        for (int offset = 1; offset < 32; offset <<= 1) {
            const unsigned int other = __shfl_up_sync(COMPACTION_FULL_WARP, inclusive, offset);
            if (lane >= (unsigned int)offset) inclusive += other;
        }
        if (lane == 31) warp_sums[warp] = inclusive;
        __syncthreads();
        if (warp == 0) {
            const unsigned int sum = lane < (blockDim.x >> 5) ? warp_sums[lane] : 0u;
            unsigned int scanned = sum;
#pragma unroll
            for (int offset = 1; offset < 32; offset <<= 1) {
                const unsigned int other = __shfl_up_sync(COMPACTION_FULL_WARP, scanned, offset);
                if (lane >= (unsigned int)offset) scanned += other;
            }
            warp_sums[lane] = scanned - sum;  // exclusive over warps
        }
        __syncthreads();
        const unsigned int chunk_carry = carry;
        if (index < tiles) counts[index] = chunk_carry + warp_sums[warp] + inclusive - value;
        __syncthreads();
        if (threadIdx.x == blockDim.x - 1) carry = chunk_carry + warp_sums[warp] + inclusive;
        __syncthreads();
    }
    if (threadIdx.x == 0) *count = carry;
}

// Resident blocks per SM the look-back kernels ask the compiler for: at the default 3
// (80 registers) half of the stall cycles were warps waiting at the barrier while warp 0
// looked back (ncu, H100, 2^28 u32); 4 caps registers at 64 so more tiles are in flight.
#ifndef COMPACTION_LOOKBACK_MIN_BLOCKS
#define COMPACTION_LOOKBACK_MIN_BLOCKS 4
#endif

// Resident blocks per SM of the pipelined look-back (it holds the next tile in registers
// while the current one waits in shared memory).
#ifndef COMPACTION_PIPELINED_MIN_BLOCKS
#define COMPACTION_PIPELINED_MIN_BLOCKS 4
#endif

#define COMPACTION_KERNELS(SUFFIX, T, ITEMS)                                                                        \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK)                                                  \
        compaction_collate_##SUFFIX(const T* in, T* out, unsigned int* counter, unsigned int n,                     \
                                    unsigned long long threshold) {                                                 \
        collate<T, ITEMS>(in, out, counter, n, threshold);                                                          \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_LOOKBACK_MIN_BLOCKS)                  \
        compaction_lookback_##SUFFIX(                                                                               \
        const T* in, T* out, COMPACTION_STATE_PARAMS, unsigned int n, unsigned long long threshold) {               \
        lookback<T, ITEMS>(in, out, COMPACTION_STATE_VALUE, n, threshold);                                          \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_PIPELINED_MIN_BLOCKS)                 \
        compaction_lookback_pipelined_##SUFFIX(                                                                     \
        const T* in, T* out, COMPACTION_STATE_PARAMS, unsigned int n, unsigned long long threshold) {               \
        lookback_pipelined<T, ITEMS>(in, out, COMPACTION_STATE_VALUE, n, threshold);                                \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(COMPACTION_WIDE_BLOCK, 2)                                         \
        compaction_lookback384_##SUFFIX(                                                                            \
        const T* in, T* out, COMPACTION_STATE_PARAMS, unsigned int n, unsigned long long threshold) {               \
        lookback<T, ITEMS>(in, out, COMPACTION_STATE_VALUE, n, threshold);                                          \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_LOOKBACK_MIN_BLOCKS)                  \
        compaction_lookback_staged_##SUFFIX(                                                                        \
        const T* in, T* out, COMPACTION_STATE_PARAMS, unsigned int n, unsigned long long threshold) {               \
        lookback_staged<T, ITEMS>(in, out, COMPACTION_STATE_VALUE, n, threshold);                                   \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK) compaction_sections_##SUFFIX(                    \
        const T* in, T* out, T* intermediate, COMPACTION_STATE_PARAMS, unsigned int n, unsigned long long threshold) { \
        sections<T, ITEMS>(in, out, intermediate, COMPACTION_STATE_VALUE, n, threshold);                           \
    }

#define COMPACTION_BASELINE_KERNELS(SUFFIX, T, ITEMS)                                                             \
    extern "C" __global__ void compaction_fill_##SUFFIX(T* out, unsigned int n, unsigned int seed) {              \
        fill<T>(out, n, seed);                                                                                    \
    }                                                                                                             \
    extern "C" __global__ void compaction_flags_##SUFFIX(const T* in, unsigned char* flags, unsigned int n,      \
                                                         unsigned long long threshold) {                          \
        write_flags<T>(in, flags, n, threshold);                                                                  \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK) compaction_ofk_##SUFFIX(                       \
        const T* in, const unsigned char* flags, T* out, COMPACTION_STATE_PARAMS, unsigned int n) {               \
        out_of_kernel<T, ITEMS>(in, flags, out, COMPACTION_STATE_VALUE, n);                                       \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK) compaction_count_##SUFFIX(                     \
        const T* in, unsigned int* block_counts, unsigned int n, unsigned long long threshold) {                  \
        count_tiles<T, ITEMS>(in, block_counts, n, threshold);                                                    \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK) compaction_scatter_##SUFFIX(                   \
        const T* in, T* out, const unsigned int* block_offsets, unsigned int n, unsigned long long threshold) {   \
        scatter_tiles<T, ITEMS>(in, out, block_offsets, n, threshold);                                            \
    }

COMPACTION_KERNELS(u32, unsigned int, COMPACTION_ITEMS_U32)
COMPACTION_KERNELS(elem16, CompactElem16, COMPACTION_ITEMS_ELEM16)
COMPACTION_KERNELS(path64, CompactPathState, COMPACTION_ITEMS_PATH)
COMPACTION_KERNELS(x1_u32, unsigned int, 1)
COMPACTION_BASELINE_KERNELS(u32, unsigned int, COMPACTION_ITEMS_U32)
COMPACTION_BASELINE_KERNELS(elem16, CompactElem16, COMPACTION_ITEMS_ELEM16)
COMPACTION_BASELINE_KERNELS(path64, CompactPathState, COMPACTION_ITEMS_PATH)

extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_PIPELINED_MIN_BLOCKS)
    compaction_lookback_deep_u32(const unsigned int* in, unsigned int* out, COMPACTION_STATE_PARAMS, unsigned int n,
                                 unsigned long long threshold) {
    lookback_deep<unsigned int, COMPACTION_ITEMS_U32>(in, out, COMPACTION_STATE_VALUE, n, threshold);
}

// The vec4 layout (16-byte loads, three ballots per 4 elements) on u32: the experiment of
// docs/benchmarks/compaction.md.
extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_PIPELINED_MIN_BLOCKS)
    compaction_lookback_deep_vec4_u32(const unsigned int* in, unsigned int* out, COMPACTION_STATE_PARAMS,
                                      unsigned int n, unsigned long long threshold) {
    lookback_deep<unsigned int, COMPACTION_ITEMS_U32, TileLayout::Vec4>(in, out, COMPACTION_STATE_VALUE, n, threshold);
}
extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_PIPELINED_MIN_BLOCKS)
    compaction_lookback_deep_ahead_u32(const unsigned int* in, unsigned int* out, COMPACTION_STATE_PARAMS,
                                       unsigned int n, unsigned long long threshold) {
    lookback_deep<unsigned int, COMPACTION_ITEMS_U32, TileLayout::Vec4, true>(in, out, COMPACTION_STATE_VALUE, n,
                                                                            threshold);
}
extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK)
    compaction_collate_vec4_u32(const unsigned int* in, unsigned int* out, unsigned int* counter, unsigned int n,
                                unsigned long long threshold) {
    collate<unsigned int, COMPACTION_ITEMS_U32, TileLayout::Vec4>(in, out, counter, n, threshold);
}

// The bulk-copy methods' ring: tiles of shared memory per block (collate), and for
// round-scan per element type the ring and the rounds a tile is held (compacted) before its
// store. The host mirrors these (BULK_STAGES, round_scan_stages).
#ifndef COMPACTION_BULK_STAGES
#define COMPACTION_BULK_STAGES 4
#endif
#define COMPACTION_ROUND_SCAN_STAGES_U32 6  // 16 KB tiles: 96 KB, 2 blocks per SM
#define COMPACTION_ROUND_SCAN_DEFER_U32 3
#define COMPACTION_ROUND_SCAN_STAGES_WIDE 4  // elem16, path64: 32 KB tiles, 1 block per SM
#define COMPACTION_ROUND_SCAN_DEFER_WIDE 1
#ifndef COMPACTION_BULK_MIN_BLOCKS
#define COMPACTION_BULK_MIN_BLOCKS 2
#endif
#define COMPACTION_BULK_KERNELS(SUFFIX, T, ITEMS, STAGES, DEFER)                                                \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_BULK_MIN_BLOCKS)                \
        compaction_collate_bulk_##SUFFIX(                                                                     \
        const T* in, T* out, COMPACTION_STATE_PARAMS, unsigned int n, unsigned long long threshold) {         \
        collate_bulk<T, ITEMS, COMPACTION_BULK_STAGES>(in, out, COMPACTION_STATE_VALUE, n, threshold);        \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_BULK_MIN_BLOCKS)                \
        compaction_round_scan_##SUFFIX(                                                                       \
        const T* in, T* out, COMPACTION_STATE_PARAMS, unsigned int n, unsigned long long threshold) {         \
        round_scan_bulk<T, ITEMS, STAGES, DEFER>(in, out, COMPACTION_STATE_VALUE, n, threshold);              \
    }
COMPACTION_BULK_KERNELS(u32, unsigned int, COMPACTION_ITEMS_U32, COMPACTION_ROUND_SCAN_STAGES_U32,
                        COMPACTION_ROUND_SCAN_DEFER_U32)
COMPACTION_BULK_KERNELS(elem16, CompactElem16, COMPACTION_ITEMS_ELEM16, COMPACTION_ROUND_SCAN_STAGES_WIDE,
                        COMPACTION_ROUND_SCAN_DEFER_WIDE)
COMPACTION_BULK_KERNELS(path64, CompactPathState, COMPACTION_ITEMS_PATH, COMPACTION_ROUND_SCAN_STAGES_WIDE,
                        COMPACTION_ROUND_SCAN_DEFER_WIDE)
// Experiments (docs/benchmarks/compaction.md): round-scan on u32 with other ring shapes.
#define COMPACTION_ROUND_SCAN_VARIANT(NAME, ITEMS, STAGES, DEFER)                                              \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_BULK_MIN_BLOCKS) NAME(          \
        const unsigned int* in, unsigned int* out, COMPACTION_STATE_PARAMS, unsigned int n,                  \
        unsigned long long threshold) {                                                                      \
        round_scan_bulk<unsigned int, ITEMS, STAGES, DEFER>(in, out, COMPACTION_STATE_VALUE, n, threshold);   \
    }
COMPACTION_ROUND_SCAN_VARIANT(compaction_round_scan_i16s4d1_u32, 16, 4, 1)
COMPACTION_ROUND_SCAN_VARIANT(compaction_round_scan_i16s5d2_u32, 16, 5, 2)
COMPACTION_ROUND_SCAN_VARIANT(compaction_round_scan_i16s5d3_u32, 16, 5, 3)
COMPACTION_ROUND_SCAN_VARIANT(compaction_round_scan_i8s12d6_u32, 8, 12, 6)

// The one-element-per-thread form, as a producing kernel would call it at its end.
extern "C" __global__ void compaction_collate_api_u32(const unsigned int* in, unsigned int* out,
                                                      unsigned int* counter, unsigned int n,
                                                      unsigned long long threshold) {
    const unsigned int index = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int value = index < n ? in[index] : 0u;
    const bool keep = index < n && KeepHashBelow{threshold}(value);
    ink_collate_store(out, counter, value, keep);
}

// Device sizes, offsets and tile shapes, for the layout test:
// [sizeof Elem16, sizeof PathState, offsets of PathState origin, pdf, direction, t_max,
//  throughput, flags, block, items u32, items elem16, items path64, bulk ring stages,
//  round-scan ring stages u32 and wide, round-scan's most blocks].
extern "C" __global__ void compaction_layout_report(unsigned int* out) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    out[0] = sizeof(CompactElem16);
    out[1] = sizeof(CompactPathState);
    out[2] = (unsigned int)WARPATH_OFFSETOF(CompactPathState, origin);
    out[3] = (unsigned int)WARPATH_OFFSETOF(CompactPathState, pdf);
    out[4] = (unsigned int)WARPATH_OFFSETOF(CompactPathState, direction);
    out[5] = (unsigned int)WARPATH_OFFSETOF(CompactPathState, t_max);
    out[6] = (unsigned int)WARPATH_OFFSETOF(CompactPathState, throughput);
    out[7] = (unsigned int)WARPATH_OFFSETOF(CompactPathState, flags);
    out[8] = COMPACTION_BLOCK;
    out[9] = COMPACTION_ITEMS_U32;
    out[10] = COMPACTION_ITEMS_ELEM16;
    out[11] = COMPACTION_ITEMS_PATH;
    out[12] = COMPACTION_BULK_STAGES;
    out[13] = COMPACTION_ROUND_SCAN_STAGES_U32;
    out[14] = COMPACTION_ROUND_SCAN_STAGES_WIDE;
    out[15] = COMPACTION_ROUND_SCAN_LOADS * COMPACTION_BLOCK;
}
