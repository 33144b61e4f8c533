// estimator/sampler.cuh — random numbers as a pure function of (pixel, sample, bounce,
// dimension): a port of warpath_core::sampler, bit for bit. Padded replication sampling
// (seed 000 §3.2): Halton over the sample index (radical_inverse in f64, as the CPU does),
// rotated per (pixel, bounce, dimension) by an offset from an LCG seeded by the pixel and
// advanced with O(log n) jump-ahead (lcg_skip); or a PCG hash of all four coordinates.
#pragma once
#include "estimator/math.cuh"

// warpath_core::sampler::dims
#define DIM_PIXEL_X 0u
#define DIM_PIXEL_Y 1u
#define DIM_LENS_U 2u
#define DIM_LENS_V 3u
#define DIM_LIGHT_SELECT 4u
#define DIM_LIGHT_U 5u
#define DIM_LIGHT_V 6u
#define DIM_BSDF_LOBE 7u
#define DIM_BSDF_U 8u
#define DIM_BSDF_V 9u
#define DIM_ROULETTE 10u
#define DIM_COUNT 11u

// warpath_core::sampler::SamplerKind
#define SAMPLER_PADDED_HALTON 0u
#define SAMPLER_PCG 1u

#define WARPATH_LCG_A 1664525u
#define WARPATH_LCG_C 1013904223u

__device__ __forceinline__ unsigned int halton_prime(unsigned int d) {
    switch (d) {
        case 0: return 2u;
        case 1: return 3u;
        case 2: return 5u;
        case 3: return 7u;
        case 4: return 11u;
        case 5: return 13u;
        case 6: return 17u;
        case 7: return 19u;
        case 8: return 23u;
        case 9: return 29u;
        default: return 31u;
    }
}

// Bijective integer hash (PCG output permutation of an LCG step).
__device__ __forceinline__ unsigned int pcg_hash(unsigned int v) {
    const unsigned int state = v * 747796405u + 2891336453u;
    const unsigned int word = ((state >> ((state >> 28) + 4u)) ^ state) * 277803737u;
    return (word >> 22) ^ word;
}

// The top 24 bits as a float in [0, 1) (exact).
__device__ __forceinline__ float u32_to_unit(unsigned int x) {
    return __fmul_rn((float)(x >> 8), 1.0f / 16777216.0f);
}

// Advances the LCG `state` by `n` steps in O(log n) (Brown 1994).
__device__ __forceinline__ unsigned int lcg_skip(unsigned int state, unsigned int n) {
    unsigned int acc_mult = 1u, acc_plus = 0u;
    unsigned int cur_mult = WARPATH_LCG_A, cur_plus = WARPATH_LCG_C;
    while (n > 0u) {
        if (n & 1u) {
            acc_mult = acc_mult * cur_mult;
            acc_plus = acc_plus * cur_mult + cur_plus;
        }
        cur_plus = (cur_mult + 1u) * cur_plus;
        cur_mult = cur_mult * cur_mult;
        n >>= 1;
    }
    return acc_mult * state + acc_plus;
}

// Radical inverse of `i` in base `b`, computed in f64 and rounded once to f32.
__device__ __forceinline__ float radical_inverse(unsigned int b, unsigned int i) {
    if (b == 2u) return (float)__dmul_rn((double)__brev(i), 1.0 / 4294967296.0);
    const double inv_b = __ddiv_rn(1.0, (double)b);
    unsigned long long rev = 0ull;
    double inv_bn = 1.0;
    while (i > 0u) {
        const unsigned int next = i / b;
        rev = rev * (unsigned long long)b + (unsigned long long)(i - next * b);
        inv_bn = __dmul_rn(inv_bn, inv_b);
        i = next;
    }
    return fminf((float)__dmul_rn((double)rev, inv_bn), WARPATH_ONE_MINUS_EPSILON);
}

// The LCG state scrambling `bounce` of `pixel`: seeded from the pixel, advanced
// (bounce + 1)·(COUNT + 1) times.
__device__ __forceinline__ unsigned int lcg_state(unsigned int seed, unsigned int pixel, unsigned int bounce) {
    const unsigned int s0 = pcg_hash(pixel ^ pcg_hash(seed));
    return lcg_skip(s0, (bounce + 1u) * (DIM_COUNT + 1u));
}

__device__ __forceinline__ float padded_halton(unsigned int seed, unsigned int pixel, unsigned int sample,
                                               unsigned int bounce, unsigned int dim) {
    const unsigned int d = dim % DIM_COUNT;
    const unsigned int state = lcg_skip(lcg_state(seed, pixel, bounce), d + 1u);
    const float offset = u32_to_unit(state);
    float x = __fadd_rn(radical_inverse(halton_prime(d), sample), offset);
    if (x >= 1.0f) x = __fsub_rn(x, 1.0f);
    return fminf(x, WARPATH_ONE_MINUS_EPSILON);
}

__device__ __forceinline__ float pcg_sample(unsigned int seed, unsigned int pixel, unsigned int sample,
                                            unsigned int bounce, unsigned int dim) {
    unsigned int h = pcg_hash(seed ^ 0x9E3779B9u);
    h = pcg_hash(h ^ pixel);
    h = pcg_hash(h ^ sample);
    h = pcg_hash(h ^ (bounce * DIM_COUNT + dim));
    return u32_to_unit(h);
}

// warpath_core::sampler::Sampler.
struct Sampler {
    unsigned int kind;
    unsigned int seed;

    // A uniform number in [0, 1) for (pixel, sample, bounce, dimension).
    __device__ __forceinline__ float get(unsigned int pixel, unsigned int sample, unsigned int bounce,
                                         unsigned int dim) const {
        return kind == SAMPLER_PCG ? pcg_sample(seed, pixel, sample, bounce, dim)
                                   : padded_halton(seed, pixel, sample, bounce, dim);
    }
};
