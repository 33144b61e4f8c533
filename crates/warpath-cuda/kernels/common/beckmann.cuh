// common/beckmann.cuh — warpath_core::bsdf::beckmann on the device: Mitsuba 3's Beckmann
// distribution (D with its far-tail cut, Smith G1 through Mitsuba's rational approximation,
// the separable G1·G1) and the classic D·cosθ sampling of microfacet normals with its exact
// density, for the rough conductor and rough dielectric with flags::BECKMANN. Included by
// common/bsdf.cuh; the same operation order and detmath transcendentals as the Rust code.
#pragma once

// beckmann::beckmann_d.
__device__ __forceinline__ float beckmann_d(float3 h, float alpha) {
    if (h.z <= 0.0f) return 0.0f;
    const float cos_2 = __fmul_rn(h.z, h.z);
    const float a2 = __fmul_rn(alpha, alpha);
    const float tan_term = __fdiv_rn(-__fdiv_rn(__fadd_rn(__fmul_rn(h.x, h.x), __fmul_rn(h.y, h.y)), a2), cos_2);
    const float result =
        __fdiv_rn(det_exp(tan_term), __fmul_rn(__fmul_rn(WARPATH_PI, a2), __fmul_rn(cos_2, cos_2)));
    return __fmul_rn(result, h.z) > 1e-20f ? result : 0.0f;
}

// beckmann::beckmann_g1: Mitsuba's rational approximation of Smith's masking.
__device__ __forceinline__ float beckmann_g1(float3 v, float alpha) {
    const float xy_alpha_2 = __fmul_rn(__fmul_rn(alpha, alpha), __fadd_rn(__fmul_rn(v.x, v.x), __fmul_rn(v.y, v.y)));
    if (xy_alpha_2 == 0.0f) return 1.0f;
    const float z2 = __fmul_rn(v.z, v.z);
    if (z2 <= 0.0f) return 0.0f;
    const float a = __fdiv_rn(1.0f, __fsqrt_rn(__fdiv_rn(xy_alpha_2, z2)));
    if (a >= 1.6f) return 1.0f;
    const float a_2 = __fmul_rn(a, a);
    return __fdiv_rn(__fadd_rn(__fmul_rn(3.535f, a), __fmul_rn(2.181f, a_2)),
                     __fadd_rn(__fadd_rn(1.0f, __fmul_rn(2.276f, a)), __fmul_rn(2.577f, a_2)));
}

__device__ __forceinline__ float beckmann_g(float3 wo, float3 wi, float alpha) {
    return __fmul_rn(beckmann_g1(wo, alpha), beckmann_g1(wi, alpha));
}

// beckmann::sample_beckmann: density D(h) cosθh.
__device__ __forceinline__ float3 sample_beckmann(float alpha, float2 u) {
    const float cos_theta =
        __fdiv_rn(1.0f, __fsqrt_rn(__fsub_rn(1.0f, __fmul_rn(__fmul_rn(alpha, alpha), det_ln(__fsub_rn(1.0f, u.x))))));
    const float sin_theta = __fsqrt_rn(fmaxf(__fsub_rn(1.0f, __fmul_rn(cos_theta, cos_theta)), 0.0f));
    float sin_phi, cos_phi;
    det_sin_cos(__fmul_rn(2.0f * WARPATH_PI, u.y), sin_phi, cos_phi);
    return make_float3(__fmul_rn(cos_phi, sin_theta), __fmul_rn(sin_phi, sin_theta), cos_theta);
}

__device__ __forceinline__ float beckmann_pdf(float3 h, float alpha) {
    return h.z <= 0.0f ? 0.0f : __fmul_rn(beckmann_d(h, alpha), h.z);
}
