// common/film.cuh — the film on the device (crates/warpath-cuda/src/film.rs). The schedules
// add a pass's samples to per-pass float buffers (sum, sum of squares: 3 floats per pixel;
// count: 1 per pixel); at the end of every pass film_merge_pixel adds them, widened to
// double, into the render's accumulation buffers and zeroes them, so a long render's sums
// keep f64 precision (warpath_core::film::Film sums in f64 too). Adding a float to a double
// is exact in its widening and rounds once in the add, as Film::add_pass does on the host.
#pragma once

__device__ __forceinline__ void film_merge_pixel(unsigned int pixel, float* __restrict__ pass_sum,
                                                 float* __restrict__ pass_sum_sq,
                                                 unsigned int* __restrict__ pass_count,
                                                 double* __restrict__ sum, double* __restrict__ sum_sq,
                                                 unsigned int* __restrict__ count) {
    for (unsigned int c = 0; c < 3u; ++c) {
        const size_t i = 3 * (size_t)pixel + c;
        sum[i] = __dadd_rn(sum[i], (double)pass_sum[i]);
        sum_sq[i] = __dadd_rn(sum_sq[i], (double)pass_sum_sq[i]);
        pass_sum[i] = 0.0f;
        pass_sum_sq[i] = 0.0f;
    }
    count[pixel] += pass_count[pixel];
    pass_count[pixel] = 0u;
}
