// restir/similarity.cuh — the small pieces of arithmetic ReSTIR shares with the CPU reference
// beyond its target functions, each in the CPU's order of rounded operations (the Rust twins
// in warpath_core::restir; warpath-lockstep compiles this header as host C++ and compares):
//   restir_material_roughness  material_roughness: the roughness reuse's similarity test
//                              compares (RestirArgs.roughness_threshold; RTXDI's material test)
//   restir_roughness_similar   roughness_similar: |a − b| ≤ threshold
//   restir_area_pdf            bsdf_area_pdf: a BSDF-sampled candidate's pdf in area measure
//   restir_mis_source          mis_source_pdf: the balance heuristic's M_L·p_L + M_B·p_B
#pragma once
#include "common/bsdf.cuh"

// material_roughness: GGX kinds their perceptual roughness, Blinn lobes (2/(n + 2))^¼, diffuse
// and non-scattering kinds 1, purely specular kinds 0.
__device__ __forceinline__ float restir_material_roughness(const Material& m) {
    switch (material_kind(m)) {
        case MATERIAL_ROUGH_CONDUCTOR:
        case MATERIAL_ROUGH_DIELECTRIC:
        case MATERIAL_PLASTIC:
        case MATERIAL_PRINCIPLED:
            return m.roughness;
        case MATERIAL_BLINN:
        case MATERIAL_CAR_PAINT:
            return __fsqrt_rn(__fsqrt_rn(__fdiv_rn(2.0f, __fadd_rn(fmaxf(m.exponent, 0.0f), 2.0f))));
        case MATERIAL_GLASS:
        case MATERIAL_MIRROR:
        case MATERIAL_THIN_DIELECTRIC:
            return 0.0f;
        default:
            return 1.0f;
    }
}

__device__ __forceinline__ bool restir_roughness_similar(float a, float b, float threshold) {
    return fabsf(__fsub_rn(a, b)) <= threshold;
}

__device__ __forceinline__ float restir_area_pdf(float solid_angle_pdf, float cos_y, float d2) {
    return __fdiv_rn(__fmul_rn(solid_angle_pdf, cos_y), d2);
}

__device__ __forceinline__ float restir_mis_source(unsigned int light_candidates, float light_pdf,
                                                   unsigned int bsdf_candidates, float bsdf_pdf) {
    return __fadd_rn(__fmul_rn((float)light_candidates, light_pdf), __fmul_rn((float)bsdf_candidates, bsdf_pdf));
}
