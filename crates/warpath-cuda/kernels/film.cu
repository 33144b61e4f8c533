// film.cu — film_merge_pass: one thread per pixel adds the pass buffers the schedules wrote
// into the render's double-precision sums and zeroes them (common/film.cuh). Launched by
// crates/warpath-cuda/src/film.rs after every pass, on the same stream, so it is ordered
// after the pass's kernels and before the next pass.
#include "common/film.cuh"

extern "C" __global__ void film_merge_pass(float* pass_sum, float* pass_sum_sq, unsigned int* pass_count, double* sum,
                                           double* sum_sq, unsigned int* count, unsigned int pixels) {
    const unsigned int pixel = blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel >= pixels) return;
    film_merge_pixel(pixel, pass_sum, pass_sum_sq, pass_count, sum, sum_sq, count);
}
