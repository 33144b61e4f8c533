// common/sampler.cuh — random numbers as a pure function of (pixel, sample, bounce,
// dimension): a port of warpath_core::sampler, bit for bit. Padded replication sampling
// (seed 000 §3.2): Halton in bases (2, 3) per 2D sample and 2 per single dimension, over
// a sample index permuted per (pixel, bounce, group of dimensions) by a nested uniform
// scramble (Laine–Karras hash on the reversed bits), rotated per (pixel, bounce,
// dimension); every key from an LCG seeded by the pixel and advanced with O(log n)
// jump-ahead (lcg_skip). Or a PCG hash of all four coordinates.
#pragma once
#include "common/math.cuh"

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

// warpath_core::sampler::HALTON_BASES: (2, 3) for 2D samples, 2 for single dimensions.
__device__ __forceinline__ unsigned int halton_base(unsigned int d) {
    return (d == DIM_PIXEL_Y || d == DIM_LENS_V || d == DIM_LIGHT_V || d == DIM_BSDF_V) ? 3u : 2u;
}

// warpath_core::sampler::DIM_GROUPS: dimensions of one group share an index permutation.
__device__ __forceinline__ unsigned int dim_group(unsigned int d) {
    switch (d) {
        case 0: case 1: return 0u;
        case 2: case 3: return 1u;
        case 4: return 2u;
        case 5: case 6: return 3u;
        case 7: return 4u;
        case 8: case 9: return 5u;
        default: return 6u;
    }
}

#define WARPATH_LCG_STEPS_PER_BOUNCE 32u

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
// (bounce + 1)·32 times.
__device__ __forceinline__ unsigned int lcg_state(unsigned int seed, unsigned int pixel, unsigned int bounce) {
    const unsigned int s0 = pcg_hash(pixel ^ pcg_hash(seed));
    return lcg_skip(s0, (bounce + 1u) * WARPATH_LCG_STEPS_PER_BOUNCE);
}

// warpath_core::sampler::laine_karras_permutation.
__device__ __forceinline__ unsigned int laine_karras_permutation(unsigned int x, unsigned int seed) {
    x += seed;
    x ^= x * 0x6c50b47cu;
    x ^= x * 0xb82f1e52u;
    x ^= x * 0xc7afe638u;
    x ^= x * 0x8d22f6e6u;
    return x;
}

// warpath_core::sampler::shuffle_index: nested uniform scramble of the sample index.
__device__ __forceinline__ unsigned int shuffle_index(unsigned int index, unsigned int seed) {
    return __brev(laine_karras_permutation(__brev(index), seed));
}

__device__ __forceinline__ float padded_halton(unsigned int seed, unsigned int pixel, unsigned int sample,
                                               unsigned int bounce, unsigned int dim) {
    const unsigned int d = dim % DIM_COUNT;
    const unsigned int bounce_state = lcg_state(seed, pixel, bounce);
    const float offset = u32_to_unit(lcg_skip(bounce_state, d + 1u));
    const unsigned int key = pcg_hash(lcg_skip(bounce_state, DIM_COUNT + 1u + dim_group(d)));
    float x = __fadd_rn(radical_inverse(halton_base(d), shuffle_index(sample, key)), offset);
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
