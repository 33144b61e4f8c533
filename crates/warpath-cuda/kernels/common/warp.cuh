// common/warp.cuh — warpath_core::warp on the device: warps of the unit square to the
// disk, the cosine hemisphere, the sphere, triangles and the Blinn lobe, with their pdfs.
// Same operation order as the CPU; vector and product terms rounded one by one; the
// transcendentals are detmath.cuh's, bit for bit those of warpath_core::detmath.
#pragma once
#include "common/detmath.cuh"
#include "common/math.cuh"

#define WARPATH_UNIFORM_SPHERE_PDF (1.0f / (4.0f * WARPATH_PI))

// Concentric mapping of the unit square to the unit disk (Shirley–Chiu).
__device__ __forceinline__ float2 square_to_disk_concentric(float2 u) {
    const float ox = __fsub_rn(__fmul_rn(2.0f, u.x), 1.0f);
    const float oy = __fsub_rn(__fmul_rn(2.0f, u.y), 1.0f);
    if (ox == 0.0f && oy == 0.0f) return make_float2(0.0f, 0.0f);
    float r, theta;
    if (fabsf(ox) > fabsf(oy)) {
        r = ox;
        theta = __fmul_rn(WARPATH_FRAC_PI_4, __fdiv_rn(oy, ox));
    } else {
        r = oy;
        theta = __fsub_rn(WARPATH_FRAC_PI_2, __fmul_rn(WARPATH_FRAC_PI_4, __fdiv_rn(ox, oy)));
    }
    float sin_theta, cos_theta;
    det_sin_cos(theta, sin_theta, cos_theta);
    return make_float2(__fmul_rn(r, cos_theta), __fmul_rn(r, sin_theta));
}

// Cosine-weighted hemisphere around +z; pdf = cos θ / π.
__device__ __forceinline__ float3 square_to_cosine_hemisphere(float2 u) {
    const float2 d = square_to_disk_concentric(u);
    const float len2 = __fadd_rn(__fmul_rn(d.x, d.x), __fmul_rn(d.y, d.y));
    const float z = __fsqrt_rn(fmaxf(__fsub_rn(1.0f, len2), 0.0f));
    return make_float3(d.x, d.y, z);
}

__device__ __forceinline__ float cosine_hemisphere_pdf(float3 v) {
    return v.z > 0.0f ? __fmul_rn(v.z, WARPATH_FRAC_1_PI) : 0.0f;
}

// Uniform direction on the unit sphere; pdf = 1 / 4π.
__device__ __forceinline__ float3 square_to_uniform_sphere(float2 u) {
    const float z = __fsub_rn(1.0f, __fmul_rn(2.0f, u.x));
    const float r = __fsqrt_rn(fmaxf(__fsub_rn(1.0f, __fmul_rn(z, z)), 0.0f));
    const float phi = __fmul_rn(2.0f * WARPATH_PI, u.y);
    float sin_phi, cos_phi;
    det_sin_cos(phi, sin_phi, cos_phi);
    return make_float3(__fmul_rn(r, cos_phi), __fmul_rn(r, sin_phi), z);
}

// Uniform barycentrics (b1, b2) on a triangle.
__device__ __forceinline__ float2 square_to_triangle(float2 u) {
    const float su = __fsqrt_rn(u.x);
    return make_float2(__fsub_rn(1.0f, su), __fmul_rn(u.y, su));
}

// cos θ Blinn-distributed around +z: pdf(h) = (n+1)/(2π) cosⁿθ.
__device__ __forceinline__ float3 square_to_blinn_lobe(float2 u, float exponent) {
    const float cos_t = det_pow(u.x, __fdiv_rn(1.0f, __fadd_rn(exponent, 1.0f)));
    const float sin_t = __fsqrt_rn(fmaxf(__fsub_rn(1.0f, __fmul_rn(cos_t, cos_t)), 0.0f));
    const float phi = __fmul_rn(2.0f * WARPATH_PI, u.y);
    float sin_phi, cos_phi;
    det_sin_cos(phi, sin_phi, cos_phi);
    return make_float3(__fmul_rn(sin_t, cos_phi), __fmul_rn(sin_t, sin_phi), cos_t);
}

__device__ __forceinline__ float blinn_lobe_pdf(float3 v, float exponent) {
    return v.z > 0.0f ? __fmul_rn(__fmul_rn(__fadd_rn(exponent, 1.0f), 0.5f * WARPATH_FRAC_1_PI), det_pow(v.z, exponent))
                      : 0.0f;
}
