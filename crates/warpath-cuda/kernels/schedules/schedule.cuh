// schedules/schedule.cuh — what every path scheduling strategy shares (issue 5; seeds 000
// and 003), over any estimator: the launch arguments, the map from a path index to its
// (pixel, sample), the atomic film update of a finished path, and the block-level Morton sort
// of the sorted variants.
//
// Estimators × schedules (docs/architecture.md): every schedule is a template over an estimator type E
// and only decides which thread runs which path when. E provides (see surface/estimator.cuh's
// SurfaceEstimator, the first one):
//   E::Scene     what the host passes for the scene, by value inside ScheduleArgs<E>
//                (#[repr(C)], owned by Rust);
//   E::Context   what a thread builds once from the scene (E::context(scene, counters));
//   E::Path      a path in registers; E::Stored its form in memory between steps (16-byte
//                words; a zeroed slot reads as dead);
//   E::generate(ctx, pixel, sample) -> Path      the camera path;
//   E::extend(ctx, path) -> bool                 one step; false when the path has ended;
//   E::store / load / pack, slot_is_live, mark_slot_dead   the stored form;
//   E::radiance(path), E::pixel(path)            what the film receives;
//   E::sort_position(path)                        the point whose Morton key sorts the path;
//   E::Deferred   the estimator sortingSK runs: E itself, or E with its fetches moved past
//                 the reordering (VolumeEstimatorDeferred: the same paths, counts, image).
//
// Path indices: a render pass of S samples is P = padded_pixels × S paths; index i is
// sample first_sample + i / padded_pixels of the pixel at position i % padded_pixels in
// 8×8-tile order (tiles row-major, pixels row-major inside a tile), so 32 consecutive
// indices are an 8×4 pixel block, the footprint of a warp of the naive megakernel's 8×8
// blocks. Indices in a partial tile outside the image are born dead. A pass is split into
// waves of at most wave_paths indices from path_base; every strategy traces each index of a
// wave once, through the same estimator, so paths, counts and radiance are the same.
#pragma once
#include "common/math.cuh"
#include "compaction/compaction.cuh"

// Kernel arguments of every schedule kernel (ScheduleArgs<S> in
// crates/warpath-cuda/src/strategy/args.rs): the schedule's own fields, then the estimator's
// scene last, so the schedule's offsets do not depend on the estimator.
template <class E>
struct ScheduleArgs {
    float* film_sum;                // 3 per pixel
    float* film_sum_sq;             // 3 per pixel
    unsigned int* film_count;       // 1 per pixel
    unsigned long long* counters;   // the estimator's counters; null: instrumentation off
    unsigned int* work;             // [0] next wave index to start (regeneration), [1] live paths
    float morton_lo[3];             // the scene's bounds, for Morton keys of sort positions
    float morton_scale[3];          // 1024 / extent per axis (0 for a flat axis)
    unsigned int first_sample;
    unsigned int padded_pixels;     // 64 × tiles
    unsigned int tiles_x;
    unsigned int width;
    unsigned int height;
    unsigned int path_base;         // first index of this wave
    unsigned int wave_paths;        // indices in this wave
    unsigned int _pad;
    typename E::Scene scene;
};

#define SCHEDULE_WORK_NEXT 0
#define SCHEDULE_WORK_LIVE 1

template <class E>
__device__ __forceinline__ typename E::Context schedule_context(const ScheduleArgs<E>& a) {
    return E::context(a.scene, a.counters);
}

// The (pixel, sample) of wave index `i`; false past the wave or outside the image.
template <class E>
__device__ __forceinline__ bool wave_pixel_sample(const ScheduleArgs<E>& a, unsigned int i, unsigned int& pixel,
                                                  unsigned int& sample) {
    if (i >= a.wave_paths) return false;
    const unsigned int index = a.path_base + i;
    const unsigned int local = index % a.padded_pixels;
    sample = a.first_sample + index / a.padded_pixels;
    const unsigned int tile = local >> 6, within = local & 63u;
    const unsigned int x = (tile % a.tiles_x) * 8u + (within & 7u);
    const unsigned int y = (tile / a.tiles_x) * 8u + (within >> 3);
    if (x >= a.width || y >= a.height) return false;
    pixel = y * a.width + x;
    return true;
}

// The camera path of wave index `i` (false: nothing to trace there).
template <class E>
__device__ __forceinline__ bool generate_wave_path(const typename E::Context& ctx, const ScheduleArgs<E>& a,
                                                   unsigned int i, typename E::Path& path) {
    unsigned int pixel, sample;
    if (!wave_pixel_sample(a, i, pixel, sample)) return false;
    path = E::generate(ctx, pixel, sample);
    return true;
}

// Adds a finished path's radiance to its pixel (Film::add_sample; non-finite: a zero sample).
template <class E>
__device__ __forceinline__ void film_add_path(const ScheduleArgs<E>& a, const typename E::Path& path) {
    const float3 radiance = E::radiance(path);
    const float3 l = is_finite3(radiance) ? radiance : zero3();
    const unsigned int pixel = E::pixel(path);
    const size_t i = 3 * (size_t)pixel;
    atomicAdd(a.film_sum + i, l.x);
    atomicAdd(a.film_sum + i + 1, l.y);
    atomicAdd(a.film_sum + i + 2, l.z);
    atomicAdd(a.film_sum_sq + i, l.x * l.x);
    atomicAdd(a.film_sum_sq + i + 1, l.y * l.y);
    atomicAdd(a.film_sum_sq + i + 2, l.z * l.z);
    atomicAdd(a.film_count + pixel, 1u);
}

// ---- Morton keys and the block sort of the sorted variants (seed 003 "Reordering") -------

#define SCHEDULE_SORT_BITS 12  // the top 12 bits of a 30-bit Morton code (4 levels per axis)

__device__ __forceinline__ unsigned int spread_bits_10(unsigned int v) {
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

// The Morton (z-order) key of a point in the scene's bounds: SCHEDULE_SORT_BITS bits.
template <class E>
__device__ __forceinline__ unsigned int morton_key(const ScheduleArgs<E>& a, float3 p) {
    const float q[3] = {(p.x - a.morton_lo[0]) * a.morton_scale[0], (p.y - a.morton_lo[1]) * a.morton_scale[1],
                        (p.z - a.morton_lo[2]) * a.morton_scale[2]};
    unsigned int c[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) c[k] = (unsigned int)fminf(fmaxf(q[k], 0.0f), 1023.0f);
    const unsigned int code = (spread_bits_10(c[0]) << 2) | (spread_bits_10(c[1]) << 1) | spread_bits_10(c[2]);
    return code >> (30 - SCHEDULE_SORT_BITS);
}

struct BlockSortStorage {
    BlockScanStorage<1> scan;
    unsigned int keys[1024];
    unsigned short owners[1024];
};

// The position of this thread's element when the block's elements are sorted, kept ones
// first in ascending `key` order, stably (LSD radix sort, one bit per pass: each pass is a
// split by the block compaction ranks of compaction.cuh, then an exchange through shared
// memory). Returns the position; `kept_total` receives the number of kept elements.
__device__ __forceinline__ unsigned int block_sort_position(BlockSortStorage& s, unsigned int key, bool keep,
                                                            unsigned int& kept_total) {
    const unsigned int tid = threadIdx.x;
    unsigned int my_key = key;
    unsigned int owner = tid;
    bool my_keep = keep;
    kept_total = 0;
    for (int bit = 0; bit <= SCHEDULE_SORT_BITS; ++bit) {
        // The last pass splits on "kept", the most significant digit.
        const bool zero = bit < SCHEDULE_SORT_BITS ? ((my_key >> bit) & 1u) == 0 : my_keep;
        const bool zeros[1] = {zero};
        unsigned int rank[1];
        const unsigned int zero_total = block_compaction_ranks<1>(s.scan, zeros, rank);
        if (bit == SCHEDULE_SORT_BITS) kept_total = zero_total;
        const unsigned int position = zero ? rank[0] : zero_total + (tid - rank[0]);
        s.keys[position] = (my_key & 0x7fffffffu) | (my_keep ? 0x80000000u : 0u);
        s.owners[position] = (unsigned short)owner;
        __syncthreads();
        my_key = s.keys[tid] & 0x7fffffffu;
        my_keep = (s.keys[tid] >> 31) != 0;
        owner = s.owners[tid];
        __syncthreads();
    }
    // Thread tid now holds the element of `owner`: tell the owner where it went.
    s.keys[owner] = tid;
    __syncthreads();
    const unsigned int position = s.keys[tid];
    __syncthreads();
    return position;
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_SCHEDULES_SCHEDULE
#include "generated/layout_checks.cuh"
