// schedules/naive.cuh — the naive megakernel of seed 000 (appendix B.1) as a schedule over any
// estimator E (schedules/schedule.cuh): one thread per pixel on a 2D grid (8×8 blocks by
// default, set from Rust), each thread tracing this launch's samples first_sample ..
// first_sample + sample_count of its pixel, every path from E::generate until E::extend says
// it ended, then adding its sums to the film. No path state leaves registers and no
// compaction happens: threads whose paths end early idle until the warp's longest path is
// done — the baseline the compaction strategies are measured against.
#pragma once
#include "schedules/schedule.cuh"

// A pixel's running sums over the samples one thread traces (Film::add_sample).
struct PixelAccumulator {
    float3 sum;
    float3 sum_sq;
    unsigned int count;
};

__device__ __forceinline__ PixelAccumulator empty_accumulator() {
    PixelAccumulator acc;
    acc.sum = zero3();
    acc.sum_sq = zero3();
    acc.count = 0u;
    return acc;
}

// Adds a finished path's radiance (non-finite: a zero sample, still counted).
__device__ __forceinline__ void accumulate(PixelAccumulator& acc, float3 radiance) {
    const float3 l = is_finite3(radiance) ? radiance : zero3();
    acc.sum += l;
    acc.sum_sq += l * l;
    acc.count += 1u;
}

// Adds a pixel's sums to the film (3 floats per pixel for sum and sum_sq).
__device__ __forceinline__ void store_film(float* __restrict__ film_sum, float* __restrict__ film_sum_sq,
                                           unsigned int* __restrict__ film_count, unsigned int pixel,
                                           const PixelAccumulator& acc) {
    const size_t i = 3 * (size_t)pixel;
    film_sum[i] = __fadd_rn(film_sum[i], acc.sum.x);
    film_sum[i + 1] = __fadd_rn(film_sum[i + 1], acc.sum.y);
    film_sum[i + 2] = __fadd_rn(film_sum[i + 2], acc.sum.z);
    film_sum_sq[i] = __fadd_rn(film_sum_sq[i], acc.sum_sq.x);
    film_sum_sq[i + 1] = __fadd_rn(film_sum_sq[i + 1], acc.sum_sq.y);
    film_sum_sq[i + 2] = __fadd_rn(film_sum_sq[i + 2], acc.sum_sq.z);
    film_count[pixel] += acc.count;
}

// Traces one whole path and returns it finished.
template <class E>
__device__ __forceinline__ typename E::Path trace_path(const typename E::Context& ctx, unsigned int pixel,
                                                       unsigned int sample) {
    typename E::Path path = E::generate(ctx, pixel, sample);
    while (E::extend(ctx, path)) {
    }
    return path;
}

// The thread of pixel (x, y) = (blockIdx × blockDim + threadIdx).xy traces `sample_count`
// samples from a.first_sample.
template <class E>
__device__ __forceinline__ void naive_render(const ScheduleArgs<E>& a, unsigned int sample_count) {
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    const typename E::Context ctx = schedule_context(a);
    const unsigned int pixel = y * a.width + x;
    PixelAccumulator acc = empty_accumulator();
    for (unsigned int sample = a.first_sample; sample < a.first_sample + sample_count; ++sample) {
        const typename E::Path path = trace_path<E>(ctx, pixel, sample);
        accumulate(acc, E::radiance(path));
    }
    store_film(a.film_sum, a.film_sum_sq, a.film_count, pixel, acc);
}

// ---- naiveMK (seed 003 Table 4.1): the naive schedule split into two kernels -------------
// Kernel 1 generates the camera path of every wave index and takes its first step (the
// first hit, or the first free flight inside a medium); survivors go to memory, one slot per
// index. Kernel 2 loads each surviving path and traces it to the end, as the megakernel
// does. The split costs a store and a load of every path and a second launch; what it could
// buy is a smaller kernel for each part.

template <class E>
__device__ __forceinline__ void naive_mk_first(const ScheduleArgs<E>& a, typename E::Stored* __restrict__ paths) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.wave_paths) return;
    const typename E::Context ctx = schedule_context(a);
    typename E::Path path;
    if (generate_wave_path(ctx, a, i, path)) {
        if (E::extend(ctx, path)) {
            E::store(paths + i, path);
            return;
        }
        film_add_path(a, path);
    }
    E::mark_slot_dead(paths + i);
}

template <class E>
__device__ __forceinline__ void naive_mk_rest(const ScheduleArgs<E>& a, typename E::Stored* __restrict__ paths) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.wave_paths || !E::slot_is_live(paths + i)) return;
    const typename E::Context ctx = schedule_context(a);
    typename E::Path path = E::load(paths + i);
    while (E::extend(ctx, path)) {
    }
    film_add_path(a, path);
}

// naiveSK over a wave (the image tiles of seed 003 Table 4.2): one thread per wave index
// traces its path from generation to the end.
template <class E>
__device__ __forceinline__ void naive_wave(const ScheduleArgs<E>& a) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const typename E::Context ctx = schedule_context(a);
    typename E::Path path;
    if (!generate_wave_path(ctx, a, i, path)) return;
    while (E::extend(ctx, path)) {
    }
    film_add_path(a, path);
}
