// schedules/schedule.cuh — what every path scheduling strategy shares (issue 5; seeds 000
// and 003): the launch arguments, the map from a path index to its (pixel, sample), the
// 64-byte form of a path stored between bounces, the atomic film update of a finished path,
// and the block-level Morton sort of the sorted variants.
//
// Path indices: a render pass of S samples is P = padded_pixels × S paths; index i is
// sample first_sample + i / padded_pixels of the pixel at position i % padded_pixels in
// 8×8-tile order (tiles row-major, pixels row-major inside a tile), so 32 consecutive
// indices are an 8×4 pixel block, the footprint of a warp of the naive megakernel's 8×8
// blocks. Indices in a partial tile outside the image are born dead. A pass is split into
// waves of at most wave_paths indices from path_base; every strategy traces each index of a
// wave once, through the same estimator, so paths, counts and radiance are the same.
#pragma once
#include "compaction/compaction.cuh"
#include "surface/estimator.cuh"

// Kernel arguments of every strategy kernel (ScheduleArgs in crates/warpath-cuda/src/strategy.rs).
struct ScheduleArgs {
    DeviceScene scene;
    float* film_sum;                // 3 per pixel
    float* film_sum_sq;             // 3 per pixel
    unsigned int* film_count;       // 1 per pixel
    unsigned long long* counters;   // the estimator's counters; null: instrumentation off
    unsigned int* work;             // [0] next wave index to start (regeneration), [1] live paths
    float morton_lo[3];             // the scene's bounds, for Morton keys of ray origins
    float morton_scale[3];          // 1024 / extent per axis (0 for a flat axis)
    unsigned int first_sample;
    unsigned int padded_pixels;     // 64 × tiles
    unsigned int tiles_x;
    unsigned int width;
    unsigned int height;
    unsigned int path_base;         // first index of this wave
    unsigned int wave_paths;        // indices in this wave
    unsigned int _pad;
};
static_assert(sizeof(DeviceScene) == 144, "DeviceScene size");
static_assert(sizeof(ScheduleArgs) == 240, "ScheduleArgs size");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, scene) == 0, "ScheduleArgs.scene");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, film_sum) == 144, "ScheduleArgs.film_sum");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, film_sum_sq) == 152, "ScheduleArgs.film_sum_sq");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, film_count) == 160, "ScheduleArgs.film_count");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, counters) == 168, "ScheduleArgs.counters");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, work) == 176, "ScheduleArgs.work");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, morton_lo) == 184, "ScheduleArgs.morton_lo");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, morton_scale) == 196, "ScheduleArgs.morton_scale");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, first_sample) == 208, "ScheduleArgs.first_sample");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, padded_pixels) == 212, "ScheduleArgs.padded_pixels");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, tiles_x) == 216, "ScheduleArgs.tiles_x");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, width) == 220, "ScheduleArgs.width");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, height) == 224, "ScheduleArgs.height");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, path_base) == 228, "ScheduleArgs.path_base");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, wave_paths) == 232, "ScheduleArgs.wave_paths");
static_assert(WARPATH_OFFSETOF(ScheduleArgs, _pad) == 236, "ScheduleArgs._pad");

#define SCHEDULE_WORK_NEXT 0
#define SCHEDULE_WORK_LIVE 1

__device__ __forceinline__ EstimatorContext schedule_context(const ScheduleArgs& a) {
    EstimatorContext ctx;
    ctx.scene = a.scene;
    ctx.sampler.kind = a.scene.params->sampler;
    ctx.sampler.seed = a.scene.params->seed;
    ctx.counters = a.counters;
    return ctx;
}

// The (pixel, sample) of wave index `i`; false past the wave or outside the image.
__device__ __forceinline__ bool wave_pixel_sample(const ScheduleArgs& a, unsigned int i, unsigned int& pixel,
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
__device__ __forceinline__ bool generate_wave_path(const EstimatorContext& ctx, const ScheduleArgs& a,
                                                   unsigned int i, PathState& path) {
    unsigned int pixel, sample;
    if (!wave_pixel_sample(a, i, pixel, sample)) return false;
    path = generate(ctx, pixel, sample);
    return true;
}

// Adds a finished path's radiance to its pixel (Film::add_sample; non-finite: a zero sample).
__device__ __forceinline__ void film_add_path(const ScheduleArgs& a, const PathState& path) {
    const float3 l = is_finite3(path.radiance) ? path.radiance : zero3();
    const size_t i = 3 * (size_t)path.pixel;
    atomicAdd(a.film_sum + i, l.x);
    atomicAdd(a.film_sum + i + 1, l.y);
    atomicAdd(a.film_sum + i + 2, l.z);
    atomicAdd(a.film_sum_sq + i, l.x * l.x);
    atomicAdd(a.film_sum_sq + i + 1, l.y * l.y);
    atomicAdd(a.film_sum_sq + i + 2, l.z * l.z);
    atomicAdd(a.film_count + path.pixel, 1u);
}

// ---- a path between bounces: 64 bytes, four 16-byte words ---------------------------------
// (origin, ~pixel) (direction, sample) (throughput, last_bsdf_pdf) (radiance, bounce | delta << 31).
// The pixel is stored complemented so that a zeroed slot (word 0) reads as dead. The ray's t
// range is always [0, inf) here (generate and bounce make full rays).
struct alignas(16) StoredPath {
    float4 origin_pixel;
    float4 direction_sample;
    float4 throughput_pdf;
    float4 radiance_bounce;
};
static_assert(sizeof(StoredPath) == 64, "StoredPath size");

#define STORED_PATH_DEAD 0u  // the (complemented) pixel word of an empty slot

__device__ __forceinline__ StoredPath pack_path(const PathState& p) {
    StoredPath s;
    s.origin_pixel = make_float4(p.ray.o.x, p.ray.o.y, p.ray.o.z, __uint_as_float(~p.pixel));
    s.direction_sample = make_float4(p.ray.d.x, p.ray.d.y, p.ray.d.z, __uint_as_float(p.sample));
    s.throughput_pdf = make_float4(p.throughput.x, p.throughput.y, p.throughput.z, p.last_bsdf_pdf);
    s.radiance_bounce = make_float4(p.radiance.x, p.radiance.y, p.radiance.z,
                                    __uint_as_float(p.bounce | (p.last_delta ? 0x80000000u : 0u)));
    return s;
}

__device__ __forceinline__ PathState unpack_path(const StoredPath& s) {
    PathState p;
    p.ray = make_ray(make_float3(s.origin_pixel.x, s.origin_pixel.y, s.origin_pixel.z),
                     make_float3(s.direction_sample.x, s.direction_sample.y, s.direction_sample.z));
    p.pixel = ~__float_as_uint(s.origin_pixel.w);
    p.sample = __float_as_uint(s.direction_sample.w);
    p.throughput = make_float3(s.throughput_pdf.x, s.throughput_pdf.y, s.throughput_pdf.z);
    p.last_bsdf_pdf = s.throughput_pdf.w;
    p.radiance = make_float3(s.radiance_bounce.x, s.radiance_bounce.y, s.radiance_bounce.z);
    const unsigned int word = __float_as_uint(s.radiance_bounce.w);
    p.bounce = word & 0x7fffffffu;
    p.last_delta = (word >> 31) != 0;
    return p;
}

__device__ __forceinline__ void store_path(StoredPath* slot, const PathState& p) {
    const StoredPath s = pack_path(p);
    float4* words = reinterpret_cast<float4*>(slot);
    words[0] = s.origin_pixel;
    words[1] = s.direction_sample;
    words[2] = s.throughput_pdf;
    words[3] = s.radiance_bounce;
}

__device__ __forceinline__ PathState load_path(const StoredPath* slot) {
    const float4* words = reinterpret_cast<const float4*>(slot);
    StoredPath s;
    s.origin_pixel = words[0];
    s.direction_sample = words[1];
    s.throughput_pdf = words[2];
    s.radiance_bounce = words[3];
    return unpack_path(s);
}

__device__ __forceinline__ bool slot_is_live(const StoredPath* slot) {
    return __float_as_uint(reinterpret_cast<const float*>(slot)[3]) != STORED_PATH_DEAD;
}

__device__ __forceinline__ void mark_slot_dead(StoredPath* slot) {
    reinterpret_cast<float*>(slot)[3] = __uint_as_float(STORED_PATH_DEAD);
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

// The Morton (z-order) key of a ray origin in the scene's bounds: SCHEDULE_SORT_BITS bits.
__device__ __forceinline__ unsigned int morton_key(const ScheduleArgs& a, float3 p) {
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
