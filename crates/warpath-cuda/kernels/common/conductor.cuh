// common/conductor.cuh — warpath_core::bsdf::conductor on the device: the exact Fresnel
// reflectance of a conductor of complex index eta + ik per RGB channel (Mitsuba 3's
// `conductor`), for the Mirror and RoughConductor kinds with flags::CONDUCTOR_ETA_K (eta in
// spec_tint, sheen, sheen_tint; k in clearcoat, clearcoat_gloss, spec_trans), and the Schlick
// fallback otherwise. Included by common/bsdf.cuh after schlick_fresnel; the same operation
// order as the Rust code, for bit-equal results.
#pragma once

// flags::CONDUCTOR_ETA_K and flags::BECKMANN.
#define MATERIAL_FLAG_CONDUCTOR_ETA_K 512u
#define MATERIAL_FLAG_BECKMANN 1024u

// Each false in programs compiled without its feature (common/features.cuh).
__device__ __forceinline__ bool has_conductor_eta_k(const Material& m) {
    return WARPATH_HAS_FEATURE(CONDUCTOR_ETA_K) && (m.flags & MATERIAL_FLAG_CONDUCTOR_ETA_K) != 0u;
}
__device__ __forceinline__ bool is_beckmann(const Material& m) {
    return WARPATH_HAS_FEATURE(BECKMANN) && (m.flags & MATERIAL_FLAG_BECKMANN) != 0u;
}

// conductor::safe_sqrt: √max(x, 0).
__device__ __forceinline__ float conductor_safe_sqrt(float x) { return __fsqrt_rn(fmaxf(x, 0.0f)); }

// conductor::fresnel_conductor (Moeller's form through a² + b²).
__device__ __forceinline__ float fresnel_conductor(float cos_theta_i, float eta, float k) {
    const float cos_i = fminf(fabsf(cos_theta_i), 1.0f);
    const float cos_i_2 = __fmul_rn(cos_i, cos_i);
    const float sin_i_2 = __fsub_rn(1.0f, cos_i_2);
    const float sin_i_4 = __fmul_rn(sin_i_2, sin_i_2);
    const float temp_1 = __fsub_rn(__fsub_rn(__fmul_rn(eta, eta), __fmul_rn(k, k)), sin_i_2);
    const float a_2_pb_2 = conductor_safe_sqrt(
        __fadd_rn(__fmul_rn(temp_1, temp_1), __fmul_rn(__fmul_rn(__fmul_rn(__fmul_rn(4.0f, k), k), eta), eta)));
    const float a = conductor_safe_sqrt(__fmul_rn(0.5f, __fadd_rn(a_2_pb_2, temp_1)));
    const float term_1 = __fadd_rn(a_2_pb_2, cos_i_2);
    const float term_2 = __fmul_rn(__fmul_rn(2.0f, cos_i), a);
    const float r_s = __fdiv_rn(__fsub_rn(term_1, term_2), __fadd_rn(term_1, term_2));
    const float term_3 = __fadd_rn(__fmul_rn(a_2_pb_2, cos_i_2), sin_i_4);
    const float term_4 = __fmul_rn(term_2, sin_i_2);
    const float r_p = __fdiv_rn(__fmul_rn(r_s, __fsub_rn(term_3, term_4)), __fadd_rn(term_3, term_4));
    return __fmul_rn(0.5f, __fadd_rn(r_s, r_p));
}

__device__ __forceinline__ float3 fresnel_conductor_rgb(float cos_theta_i, float3 eta, float3 k) {
    return make_float3(fresnel_conductor(cos_theta_i, eta.x, k.x), fresnel_conductor(cos_theta_i, eta.y, k.y),
                       fresnel_conductor(cos_theta_i, eta.z, k.z));
}

// Material::conductor_eta / conductor_k.
__device__ __forceinline__ float3 conductor_eta(const Material& m) { return make_float3(m.spec_tint, m.sheen, m.sheen_tint); }
__device__ __forceinline__ float3 conductor_k(const Material& m) {
    return make_float3(m.clearcoat, m.clearcoat_gloss, m.spec_trans);
}

// conductor::conductor_fresnel: color × the exact Fresnel with CONDUCTOR_ETA_K, else Schlick of F0 color.
__device__ __forceinline__ float3 conductor_fresnel(const Material& m, float3 color, float cos_theta) {
    if (has_conductor_eta_k(m)) return color * fresnel_conductor_rgb(cos_theta, conductor_eta(m), conductor_k(m));
    return schlick_fresnel(color, cos_theta);
}
