// common/opacity.cuh — opacity masks (Mitsuba 3's `mask` BSDF): the port of
// warpath_core::opacity (read its doc for the conventions), operation for operation
// (warpath-lockstep checks it bit for bit). α = clamp(opacity × texel, 0, 1); a BSDF sample
// takes the null lobe (straight on, weight 1, pdf 1 − α) when u_lobe ≥ α, else the material
// with u_lobe / α; eval and pdf are the material's times α.
#pragma once
#include "common/features.cuh"
#include "common/layout.cuh"
#include "common/math.cuh"

// opacity::opacity: NaN and −0 read as +0 (comparisons, not fminf/fmaxf and their signed zeros).
// 1 in programs compiled without masks (common/features.cuh): what every unmasked material gives.
__device__ __forceinline__ float material_opacity(const Material& m, float texel) {
    if (!WARPATH_HAS_FEATURE(OPACITY)) return 1.0f;
    const float a = __fmul_rn(m.opacity, texel);
    return a > 0.0f ? (a < 1.0f ? a : 1.0f) : 0.0f;
}

// Material::is_masked (false in programs compiled without masks: common/features.cuh).
__device__ __forceinline__ bool material_is_masked(const Material& m) {
    return WARPATH_HAS_FEATURE(OPACITY) && (m.opacity < 1.0f || m.opacity_texture >= 0);
}

// opacity::choose: false for the null lobe; true with the material's lobe number in u_nested.
__device__ __forceinline__ bool mask_choose(float alpha, float u_lobe, float& u_nested) {
    if (!(u_lobe < alpha)) return false;
    u_nested = fminf(__fdiv_rn(u_lobe, alpha), WARPATH_ONE_MINUS_EPSILON);
    return true;
}
