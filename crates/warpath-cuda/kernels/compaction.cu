// compaction.cu — the stream compaction kernels the benchmark and the tests launch, over
// compaction/compaction.cuh (seed 001; Merrill & Garland 2016), for three element types (u32,
// the 16-byte CompactElem16, the 64-byte CompactPathState). Kept here: the methods a renderer
// uses (in-kernel collate, look-back and sections; the OfK pass) and those the benchmark
// table compares them with; the disproved experiments live in docs/benchmarks/compaction.md
// with the commit that holds their code.
//
//   compaction_fill_*        random keys on the device (benchmark input)
//   compaction_collate_*     InK-Collate: a producer (reads its tile, applies the predicate)
//                            that compacts in-kernel with one atomicAdd per block
//   compaction_sections_*    InK-Compact: the same producer, order kept by block sections
//   compaction_lookback_*    the same producer, order kept by decoupled look-back
//   compaction_lookback_deep_ahead_u32  persistent, one tile deep, 16-byte loads, tickets a
//                            tile early: the fastest order-preserving u32 kernel
//   compaction_flags_*       a producer that only writes a flag array (input of OfK)
//   compaction_ofk_*         OfK: compaction in its own kernel from flags + data (look-back)
//   compaction_count_*,      three-pass scan-then-scatter: per-block counts, a one-block
//   compaction_scan_counts,  exclusive scan of them, then a scatter that re-reads the data
//   compaction_scatter_*
//   *_x1_u32                 collate, sections and look-back with one element per thread:
//                            the form the wavefront path tracer calls (ITEMS = 1)
//
// A tile is COMPACTION_BLOCK threads × ITEMS rounds; element i of thread t of tile k is
// input[k * TILE + i * COMPACTION_BLOCK + t] (the deep look-back: vectors of 4, below). The
// order-preserving producers take their tile from a ticket (compaction_ticket), never from
// blockIdx.x. The per-launch state comes by value (`CompactionState`, laid out by Rust:
// crates/warpath-cuda/src/compaction/workspace.rs).
#include "compaction/compaction.cuh"

#define COMPACTION_BLOCK 256
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

template <typename T, int ITEMS>
__device__ __forceinline__ void collate(const T* __restrict__ in, T* __restrict__ out, unsigned int* counter,
                                        unsigned int n, unsigned long long threshold) {
    __shared__ BlockScanStorage<ITEMS> scratch;
    T elem[ITEMS];
    bool keep[ITEMS];
    load_tile<T, ITEMS>(in, n, blockIdx.x, KeepHashBelow{threshold}, elem, keep);
    unsigned int rank[ITEMS];
    const unsigned int total = block_compaction_ranks<ITEMS>(scratch, keep, rank);
    ink_collate_store_ranked<T, ITEMS>(scratch, out, counter, total, elem, keep, rank);
}

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

// The deep look-back with tickets ahead (u32): persistent blocks take tiles by ticket in a
// loop. A block finishes tile t (look-back, coalesced store from shared memory) only after
// it has ranked, staged and published tile t + 1 and issued the loads of t + 2, so t's
// predecessors have had a whole tile of time to publish and warp 0's look-back rarely waits
// (two staging buffers: two u32 tiles fit the 48 KB of static shared memory, wider ones do
// not). Tiles are in the vec4 layout: vector r of thread t is elements
// tile * TILE + r * 4 * blockDim.x + 4 * t + (0..3), one 16-byte load each, ranked by
// block_compaction_ranks_vec4. Thread 0 takes each ticket one tile early and keeps it in a
// register, so the barrier before the next tile's loads never waits for an atomic's round
// trip. The block then holds one ticket it has not loaded yet; it is higher than the
// block's other tickets, so the lowest unfinished ticket always belongs to a block that can
// finish it, and every wait ends.
template <int ITEMS>
__device__ __forceinline__ void lookback_deep_ahead(const unsigned int* __restrict__ in, unsigned int* __restrict__ out,
                                                    const CompactionState& state, unsigned int n,
                                                    unsigned long long threshold) {
    __shared__ BlockScanStorage<ITEMS / 4> scratch;
    __shared__ unsigned int staging[2][ITEMS * COMPACTION_BLOCK];
    __shared__ unsigned int next_ticket;
    const unsigned int none = 0xffffffffu;
    unsigned int tile = compaction_ticket(scratch, state.ticket);
    // Thread 0: the ticket of the tile after next.
    unsigned int pending = threadIdx.x == 0 ? atomicAdd(state.ticket, 1u) : 0u;
    unsigned int elem[ITEMS];
    bool keep[ITEMS];
    if (tile < state.tiles) load_tile_vec4<ITEMS>(in, n, tile, KeepHashBelow{threshold}, elem, keep);
    unsigned int previous = none, previous_total = 0;  // block-uniform
    unsigned int buffer = 0;
    while (tile < state.tiles || previous != none) {
        unsigned int total = 0;
        if (tile < state.tiles) {
            unsigned int rank[ITEMS];
            total = block_compaction_ranks_vec4<ITEMS>(scratch, keep, rank);
#pragma unroll
            for (int i = 0; i < ITEMS; ++i)
                if (keep[i]) staging[buffer][rank[i]] = elem[i];
            if (threadIdx.x == 0) {
                lookback_publish_aggregate(state.tile_status, tile, total);
                next_ticket = pending;
                pending = atomicAdd(state.ticket, 1u);
            }
        }
        __syncthreads();
        const unsigned int next = tile < state.tiles ? next_ticket : state.tiles;
        if (next < state.tiles) load_tile_vec4<ITEMS>(in, n, next, KeepHashBelow{threshold}, elem, keep);
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
            unsigned int* target = out + scratch.base;
            const unsigned int* source = staging[buffer ^ 1u];
            for (unsigned int k = threadIdx.x; k < previous_total; k += blockDim.x) target[k] = source[k];
        }
        previous = tile < state.tiles ? tile : none;
        previous_total = total;
        buffer ^= 1u;
        tile = next;
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

// Resident blocks per SM the look-back kernels ask the compiler for: at 3 (80 registers)
// half of the stall cycles were warps waiting at the barrier while warp 0 looked back (ncu,
// H100, 2^28 u32); 4 caps registers at 64 so more tiles are in flight
// (docs/benchmarks/compaction.md). The deep look-back holds the next tile in registers while
// the current one waits in shared memory; 4 is its best count too.
#define COMPACTION_LOOKBACK_MIN_BLOCKS 4
#define COMPACTION_DEEP_MIN_BLOCKS 4

#define COMPACTION_KERNELS(SUFFIX, T, ITEMS)                                                                       \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK)                                                 \
        compaction_collate_##SUFFIX(const T* in, T* out, unsigned int* counter, unsigned int n,                    \
                                    unsigned long long threshold) {                                                \
        collate<T, ITEMS>(in, out, counter, n, threshold);                                                         \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_LOOKBACK_MIN_BLOCKS)                 \
        compaction_lookback_##SUFFIX(const T* in, T* out, CompactionState state, unsigned int n,                   \
                                     unsigned long long threshold) {                                               \
        lookback<T, ITEMS>(in, out, state, n, threshold);                                                          \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK) compaction_sections_##SUFFIX(                   \
        const T* in, T* out, T* intermediate, CompactionState state, unsigned int n, unsigned long long threshold) { \
        sections<T, ITEMS>(in, out, intermediate, state, n, threshold);                                            \
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
        const T* in, const unsigned char* flags, T* out, CompactionState state, unsigned int n) {                 \
        out_of_kernel<T, ITEMS>(in, flags, out, state, n);                                                        \
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

extern "C" __global__ void __launch_bounds__(COMPACTION_BLOCK, COMPACTION_DEEP_MIN_BLOCKS)
    compaction_lookback_deep_ahead_u32(const unsigned int* in, unsigned int* out, CompactionState state,
                                       unsigned int n, unsigned long long threshold) {
    lookback_deep_ahead<COMPACTION_ITEMS_U32>(in, out, state, n, threshold);
}

// Device sizes, offsets and tile shapes, for the layout test (the order of
// `compaction::host_layout` in Rust): [sizeof Elem16, sizeof PathState, offsets of PathState
// origin, pdf, direction, t_max, throughput, flags, block, items u32, items elem16, items
// path64, blocks per section, sizeof CompactionState, offset of CompactionState.tiles].
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
    out[12] = COMPACTION_SECTION_BLOCKS;
    out[13] = sizeof(CompactionState);
    out[14] = (unsigned int)WARPATH_OFFSETOF(CompactionState, tiles);
}
