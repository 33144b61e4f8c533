// common/bsdf.cuh — warpath_core::bsdf on the device: eval / pdf / sample of every
// MaterialKind in the local shading frame, with the CPU's conventions (wo toward the
// viewer, +z the shading normal; opaque kinds two-sided with wo.z >= 0 arranged by the
// integrator unless one-sided (then black from behind), transmissive kinds seeing the true side; eval returns f·|cos θi| of the
// non-delta lobes, pdf their solid-angle density, delta lobes only from sample; radiance
// scaled by (η_o/η_i)² on refraction). Same function names and the same operation order
// as bsdf.rs, and the same transcendentals (detmath.cuh).
#pragma once
#include "common/features.cuh"
#include "common/layout.cuh"
#include "common/warp.cuh"
#include "common/rough_plastic_table.cuh"

// warpath_core::material::MaterialKind
#define MATERIAL_DIFFUSE 0u
#define MATERIAL_BLINN 1u
#define MATERIAL_GLASS 2u
#define MATERIAL_MIRROR 3u
#define MATERIAL_CAR_PAINT 4u
#define MATERIAL_ROUGH_CONDUCTOR 5u
#define MATERIAL_ROUGH_DIELECTRIC 6u
#define MATERIAL_BLACK 7u
#define MATERIAL_NULL 8u  // an index-matched boundary: only the volumetric estimator crosses it
#define MATERIAL_PLASTIC 9u  // Mitsuba's plastic (roughness 0) and roughplastic
#define MATERIAL_PRINCIPLED 10u  // Mitsuba's principled (common/principled.cuh)
#define MATERIAL_THIN_DIELECTRIC 11u  // Mitsuba's thindielectric: no refraction

#define WARPATH_MIN_GGX_ALPHA 1e-3f

// Material::kind(): unknown values read as Black.
__device__ __forceinline__ unsigned int material_kind(const Material& m) {
    return m.kind <= MATERIAL_THIN_DIELECTRIC ? m.kind : MATERIAL_BLACK;
}

struct BsdfSample {
    float3 wi;
    float3 weight;  // f·|cos θi| / pdf
    float pdf;      // solid angle; for delta lobes the lobe's probability
    bool delta;
};

__device__ __forceinline__ BsdfSample make_bsdf_sample(float3 wi, float3 weight, float pdf, bool delta) {
    BsdfSample s;
    s.wi = wi;
    s.weight = weight;
    s.pdf = pdf;
    s.delta = delta;
    return s;
}

__device__ __forceinline__ bool is_transmissive(const Material& m) {
    const unsigned int k = material_kind(m);
    // A principled material transmits where (1 − metallic) spec_trans > 0.
    return k == MATERIAL_GLASS || k == MATERIAL_ROUGH_DIELECTRIC || k == MATERIAL_THIN_DIELECTRIC ||
           (WARPATH_HAS_FEATURE(PRINCIPLED) && k == MATERIAL_PRINCIPLED &&
            __fmul_rn(__fsub_rn(1.0f, m.metallic), m.spec_trans) > 0.0f);
}

// Material::one_sided: flags::ONE_SIDED, an opaque BSDF black from behind.
#define MATERIAL_FLAG_ONE_SIDED 2u
__device__ __forceinline__ bool is_one_sided(const Material& m) { return (m.flags & MATERIAL_FLAG_ONE_SIDED) != 0u; }

__device__ __forceinline__ bool is_purely_specular(const Material& m) {
    const unsigned int k = material_kind(m);
    return k == MATERIAL_GLASS || k == MATERIAL_MIRROR || k == MATERIAL_THIN_DIELECTRIC;
}

// ---- Fresnel ----------------------------------------------------------------------------

struct FresnelDielectric {
    float reflectance;
    float cos_theta_t;
    float eta_it;
    float eta_ti;
};

__device__ __forceinline__ FresnelDielectric fresnel_dielectric(float cos_theta_i, float eta) {
    const bool outside = cos_theta_i >= 0.0f;
    FresnelDielectric r;
    r.eta_it = outside ? eta : __fdiv_rn(1.0f, eta);
    r.eta_ti = __fdiv_rn(1.0f, r.eta_it);
    const float cos_i = fminf(fabsf(cos_theta_i), 1.0f);
    const float cos_t_sqr =
        __fsub_rn(1.0f, __fmul_rn(__fmul_rn(r.eta_ti, r.eta_ti), __fsub_rn(1.0f, __fmul_rn(cos_i, cos_i))));
    if (cos_t_sqr <= 0.0f) {
        r.reflectance = 1.0f;
        r.cos_theta_t = 0.0f;
        return r;
    }
    const float cos_t = __fsqrt_rn(cos_t_sqr);
    const float a_s = __fdiv_rn(__fsub_rn(cos_i, __fmul_rn(r.eta_it, cos_t)), __fadd_rn(cos_i, __fmul_rn(r.eta_it, cos_t)));
    const float a_p = __fdiv_rn(__fsub_rn(__fmul_rn(r.eta_it, cos_i), cos_t), __fadd_rn(__fmul_rn(r.eta_it, cos_i), cos_t));
    r.reflectance = clampf(__fmul_rn(0.5f, __fadd_rn(__fmul_rn(a_s, a_s), __fmul_rn(a_p, a_p))), 0.0f, 1.0f);
    r.cos_theta_t = outside ? -cos_t : cos_t;
    return r;
}

// Schlick: F0 + (1 − F0)(1 − cos)⁵.
__device__ __forceinline__ float3 schlick_fresnel(float3 f0, float cos_theta) {
    const float m = clampf(__fsub_rn(1.0f, fabsf(cos_theta)), 0.0f, 1.0f);
    const float m2 = __fmul_rn(m, m);
    return f0 + (splat3(1.0f) - f0) * __fmul_rn(__fmul_rn(m2, m2), m);
}

#include "common/conductor.cuh"

__device__ __forceinline__ float3 reflect_z(float3 w) { return make_float3(-w.x, -w.y, w.z); }

// 2 (w·h) h − w.
__device__ __forceinline__ float3 reflect(float3 w, float3 h) { return __fmul_rn(2.0f, dot(w, h)) * h - w; }

__device__ __forceinline__ float3 refract(float3 w, float3 h, float cos_theta_t, float eta_ti) {
    return h * __fadd_rn(__fmul_rn(dot(w, h), eta_ti), cos_theta_t) - w * eta_ti;
}

// ---- normalized Blinn–Phong ------------------------------------------------------------

__device__ __forceinline__ float blinn_normalization(float exponent) {
    const float n = fmaxf(exponent, 0.0f);
    return __fdiv_rn(__fmul_rn(__fadd_rn(n, 2.0f), __fadd_rn(n, 4.0f)),
                     __fmul_rn(8.0f * WARPATH_PI, __fadd_rn(det_exp2(__fmul_rn(-0.5f, n)), n)));
}

__device__ __forceinline__ float blinn_specular_probability(float3 diffuse, float3 specular) {
    const float wd = fmaxf(max_element(diffuse), 0.0f);
    const float ws = fmaxf(max_element(specular), 0.0f);
    return __fadd_rn(wd, ws) > 0.0f ? __fdiv_rn(ws, __fadd_rn(wd, ws)) : 0.0f;
}

__device__ __forceinline__ float3 blinn_eval(float3 diffuse, float3 specular, float exponent, float3 wo, float3 wi) {
    if (wo.z <= 0.0f || wi.z <= 0.0f) return zero3();
    const float3 h = normalize(wo + wi);
    const float lobe = __fmul_rn(blinn_normalization(exponent), det_pow(fmaxf(h.z, 0.0f), fmaxf(exponent, 0.0f)));
    return (diffuse * WARPATH_FRAC_1_PI + specular * lobe) * wi.z;
}

__device__ __forceinline__ float blinn_pdf(float3 diffuse, float3 specular, float exponent, float3 wo, float3 wi) {
    if (wo.z <= 0.0f || wi.z <= 0.0f || (max_element(diffuse) <= 0.0f && max_element(specular) <= 0.0f)) return 0.0f;
    const float p_spec = blinn_specular_probability(diffuse, specular);
    const float3 h = normalize(wo + wi);
    const float wo_dot_h = dot(wo, h);
    const float pdf_spec =
        wo_dot_h > 0.0f ? __fdiv_rn(blinn_lobe_pdf(h, fmaxf(exponent, 0.0f)), __fmul_rn(4.0f, wo_dot_h)) : 0.0f;
    return __fadd_rn(__fmul_rn(__fsub_rn(1.0f, p_spec), cosine_hemisphere_pdf(wi)), __fmul_rn(p_spec, pdf_spec));
}

// Picks the cosine or the Blinn lobe; false when wi falls below the horizon.
__device__ __forceinline__ bool blinn_sample_direction(float3 diffuse, float3 specular, float exponent, float3 wo,
                                                       float u_lobe, float2 u, float3& wi) {
    if (wo.z <= 0.0f || (max_element(diffuse) <= 0.0f && max_element(specular) <= 0.0f)) return false;
    if (u_lobe < blinn_specular_probability(diffuse, specular)) {
        wi = reflect(wo, square_to_blinn_lobe(u, fmaxf(exponent, 0.0f)));
    } else {
        wi = square_to_cosine_hemisphere(u);
    }
    return wi.z > 0.0f;
}

// ---- GGX --------------------------------------------------------------------------------

__device__ __forceinline__ float ggx_alpha(float roughness) {
    return fmaxf(__fmul_rn(roughness, roughness), WARPATH_MIN_GGX_ALPHA);
}

__device__ __forceinline__ float ggx_d(float3 h, float alpha) {
    if (h.z <= 0.0f) return 0.0f;
    const float a2 = __fmul_rn(alpha, alpha);
    const float t = __fadd_rn(__fadd_rn(__fmul_rn(h.x, h.x), __fmul_rn(h.y, h.y)), __fmul_rn(__fmul_rn(a2, h.z), h.z));
    return __fdiv_rn(a2, __fmul_rn(__fmul_rn(WARPATH_PI, t), t));
}

__device__ __forceinline__ float ggx_lambda(float3 v, float alpha) {
    const float z2 = __fmul_rn(v.z, v.z);
    if (z2 <= 0.0f) return WARPATH_INF;
    const float tan2 = __fdiv_rn(__fadd_rn(__fmul_rn(v.x, v.x), __fmul_rn(v.y, v.y)), z2);
    return __fmul_rn(0.5f, __fsub_rn(__fsqrt_rn(__fadd_rn(1.0f, __fmul_rn(__fmul_rn(alpha, alpha), tan2))), 1.0f));
}

__device__ __forceinline__ float smith_g1(float3 v, float alpha) {
    return __fdiv_rn(1.0f, __fadd_rn(1.0f, ggx_lambda(v, alpha)));
}

__device__ __forceinline__ float smith_g2(float3 wo, float3 wi, float alpha) {
    return __fdiv_rn(1.0f, __fadd_rn(__fadd_rn(1.0f, ggx_lambda(wo, alpha)), ggx_lambda(wi, alpha)));
}

// Heitz 2018: a microfacet normal from the normals visible from wo (wo.z > 0).
__device__ __forceinline__ float3 sample_ggx_vndf(float3 wo, float alpha, float2 u) {
    const float3 vh = normalize(make_float3(__fmul_rn(alpha, wo.x), __fmul_rn(alpha, wo.y), wo.z));
    const float len_sq = __fadd_rn(__fmul_rn(vh.x, vh.x), __fmul_rn(vh.y, vh.y));
    const float3 t1 = len_sq > 0.0f ? make_float3(-vh.y, vh.x, 0.0f) / __fsqrt_rn(len_sq) : make_float3(1.0f, 0.0f, 0.0f);
    const float3 t2 = cross(vh, t1);
    const float r = __fsqrt_rn(u.x);
    const float phi = __fmul_rn(2.0f * WARPATH_PI, u.y);
    float sin_phi, cos_phi;
    det_sin_cos(phi, sin_phi, cos_phi);
    const float p1 = __fmul_rn(r, cos_phi);
    float p2 = __fmul_rn(r, sin_phi);
    const float s = __fmul_rn(0.5f, __fadd_rn(1.0f, vh.z));
    p2 = __fadd_rn(__fmul_rn(__fsub_rn(1.0f, s), __fsqrt_rn(fmaxf(__fsub_rn(1.0f, __fmul_rn(p1, p1)), 0.0f))),
                   __fmul_rn(s, p2));
    const float3 nh =
        t1 * p1 + t2 * p2 +
        vh * __fsqrt_rn(fmaxf(__fsub_rn(__fsub_rn(1.0f, __fmul_rn(p1, p1)), __fmul_rn(p2, p2)), 0.0f));
    return normalize(make_float3(__fmul_rn(alpha, nh.x), __fmul_rn(alpha, nh.y), fmaxf(nh.z, 1e-7f)));
}

__device__ __forceinline__ float ggx_vndf_pdf(float3 wo, float3 h, float alpha) {
    const float cos_o = fabsf(wo.z);
    if (cos_o <= 0.0f) return 0.0f;
    return __fdiv_rn(__fmul_rn(__fmul_rn(smith_g1(wo, alpha), fabsf(dot(wo, h))), ggx_d(h, alpha)), cos_o);
}

#include "common/beckmann.cuh"

// ---- rough dielectric (Walter et al. 2007) ------------------------------------------------

// The generalized half vector facing +z and η_wi/η_wo; false for configurations without energy.
__device__ __forceinline__ bool dielectric_half_vector(float ior, float3 wo, float3 wi, float3& h, float& eta_rel) {
    if (wo.z == 0.0f || wi.z == 0.0f) return false;
    const bool is_reflection = __fmul_rn(wo.z, wi.z) > 0.0f;
    eta_rel = is_reflection ? 1.0f : (wo.z > 0.0f ? ior : __fdiv_rn(1.0f, ior));
    const float3 h_raw = wo + wi * eta_rel;
    if (length_squared(h_raw) <= 1e-20f) return false;
    h = normalize(h_raw);
    if (h.z < 0.0f) h = -h;
    if (__fmul_rn(dot(h, wo), wo.z) <= 0.0f || __fmul_rn(dot(h, wi), wi.z) <= 0.0f) return false;
    return true;
}

__device__ __forceinline__ float3 rough_dielectric_eval(float ior, float alpha, bool beckmann, float3 tint, float3 wo,
                                                       float3 wi) {
    float3 h;
    float eta_rel;
    if (!dielectric_half_vector(ior, wo, wi, h, eta_rel)) return zero3();
    const float wo_h = dot(wo, h);
    const float wi_h = dot(wi, h);
    const float fresnel = fresnel_dielectric(wo_h, ior).reflectance;
    const float dg = beckmann ? __fmul_rn(beckmann_d(h, alpha), beckmann_g(wo, wi, alpha))
                              : __fmul_rn(ggx_d(h, alpha), smith_g2(wo, wi, alpha));
    if (__fmul_rn(wo.z, wi.z) > 0.0f) {
        return splat3(__fdiv_rn(__fmul_rn(fresnel, dg), __fmul_rn(4.0f, fabsf(wo.z))));
    }
    const float denom = __fadd_rn(__fmul_rn(eta_rel, wi_h), wo_h);
    return tint * __fdiv_rn(__fmul_rn(__fmul_rn(__fsub_rn(1.0f, fresnel), dg), fabsf(__fmul_rn(wi_h, wo_h))),
                            __fmul_rn(__fmul_rn(fabsf(wo.z), denom), denom));
}

__device__ __forceinline__ float rough_dielectric_pdf(float ior, float alpha, bool beckmann, float3 wo, float3 wi) {
    float3 h;
    float eta_rel;
    if (!dielectric_half_vector(ior, wo, wi, h, eta_rel)) return 0.0f;
    const float wo_h = dot(wo, h);
    const float wi_h = dot(wi, h);
    const float fresnel = fresnel_dielectric(wo_h, ior).reflectance;
    const float pdf_h = beckmann ? beckmann_pdf(h, alpha) : ggx_vndf_pdf(wo, h, alpha);
    if (__fmul_rn(wo.z, wi.z) > 0.0f) {
        return __fdiv_rn(__fmul_rn(fresnel, pdf_h), __fmul_rn(4.0f, fabsf(wo_h)));
    }
    const float denom = __fadd_rn(__fmul_rn(eta_rel, wi_h), wo_h);
    return __fdiv_rn(
        __fmul_rn(__fmul_rn(__fmul_rn(__fmul_rn(__fsub_rn(1.0f, fresnel), pdf_h), eta_rel), eta_rel), fabsf(wi_h)),
        __fmul_rn(denom, denom));
}

// The sampled rough dielectric's weight share of wi (bsdf.rs's g_ratio): GGX's VNDF G2 / G1,
// Beckmann's D·cos sampling G |wo·h| / (|cosθo| cosθh).
__device__ __forceinline__ float rough_dielectric_g_ratio(bool beckmann, float3 wo, float3 wi, float3 h, float wo_h,
                                                          float g1, float alpha) {
    if (beckmann) return __fdiv_rn(__fmul_rn(beckmann_g(wo, wi, alpha), fabsf(wo_h)), __fmul_rn(fabsf(wo.z), h.z));
    return __fdiv_rn(smith_g2(wo, wi, alpha), g1);
}

// ---- car paint ----------------------------------------------------------------------------

__device__ __forceinline__ float car_paint_coat_probability(float coat_fresnel, float3 base, float3 flakes) {
    const float lower = fminf(__fadd_rn(fmaxf(max_element(base), 0.0f), fmaxf(max_element(flakes), 0.0f)), 1.0f);
    const float total = __fadd_rn(coat_fresnel, __fmul_rn(__fsub_rn(1.0f, coat_fresnel), lower));
    return total > 0.0f ? __fdiv_rn(coat_fresnel, total) : 1.0f;
}

// ---- plastic (Mitsuba's plastic and roughplastic; warpath_core::bsdf) ---------------------

#define MATERIAL_FLAG_NONLINEAR 4u
// flags::ROUGHNESS_TEXTURE_ALPHA: the roughness texture holds GGX α (roughness · √t).
#define MATERIAL_FLAG_ROUGHNESS_TEXTURE_ALPHA 256u

// bsdf::fresnel_diffuse_reflectance: Mitsuba's fits of the diffuse Fresnel reflectance.
__device__ __forceinline__ float fresnel_diffuse_reflectance(float eta) {
    const float inv = __fdiv_rn(1.0f, eta);
    if (eta < 1.0f) {
        return __fadd_rn(__fmul_rn(0.0636f, inv),
                         __fadd_rn(__fmul_rn(eta, __fadd_rn(__fmul_rn(eta, -1.4399f), 0.7099f)), 0.6681f));
    }
    float p = __fadd_rn(4.98554f, __fmul_rn(inv, -1.36881f));
    p = __fadd_rn(-7.80989f, __fmul_rn(inv, p));
    p = __fadd_rn(6.75335f, __fmul_rn(inv, p));
    p = __fadd_rn(-3.4793f, __fmul_rn(inv, p));
    return __fadd_rn(0.919317f, __fmul_rn(inv, p));
}

// ---- the rough coat's tables (bsdf::rough_plastic; data in common/rough_plastic_table.cuh) --

// rough_plastic::CoatCell: the first of the four p and x nodes the splines read, their weights
// (r_x: the internal reflectance's finer x nodes).
struct RoughPlasticCell {
    unsigned int p_node, x_node, r_x_node;
    float p_weights[4], x_weights[4], r_x_weights[4];
};

// rough_plastic::catmull_rom_weights.
__device__ __forceinline__ void catmull_rom_weights(float f, float w[4]) {
    const float f2 = __fmul_rn(f, f);
    const float f3 = __fmul_rn(f2, f);
    w[0] = __fmul_rn(0.5f, __fsub_rn(__fsub_rn(__fmul_rn(2.0f, f2), f3), f));
    w[1] = __fadd_rn(__fmul_rn(0.5f, __fsub_rn(__fmul_rn(3.0f, f3), __fmul_rn(5.0f, f2))), 1.0f);
    w[2] = __fmul_rn(0.5f, __fsub_rn(__fadd_rn(__fmul_rn(4.0f, f2), f), __fmul_rn(3.0f, f3)));
    w[3] = __fmul_rn(0.5f, __fsub_rn(f3, f2));
}

// rough_plastic::axis_cell.
__device__ __forceinline__ unsigned int rough_plastic_axis_cell(float u, unsigned int nodes, float w[4]) {
    const float last = (float)(nodes - 1u);
    u = fminf(fmaxf(u, 0.0f), last);
    unsigned int i = (unsigned int)u;
    if (i > nodes - 2u) i = nodes - 2u;
    catmull_rom_weights(__fsub_rn(u, (float)i), w);
    return i;
}

// rough_plastic::coat_cell: false where η is outside the tables; a Beckmann coat's p nodes are
// its GGX ones moved by one block (the tables hold GGX's block, then Beckmann's).
__device__ __forceinline__ bool rough_plastic_coat_cell(float roughness, float eta, bool beckmann, RoughPlasticCell& cell) {
    if (!(eta >= ROUGH_PLASTIC_ETA_MIN && eta <= ROUGH_PLASTIC_ETA_MAX)) return false;
    const float p = __fsqrt_rn(fminf(fmaxf(roughness, 0.01f), 1.0f));
    const float u = __fmul_rn(__fdiv_rn(__fsub_rn(p, ROUGH_PLASTIC_P_MIN), __fsub_rn(ROUGH_PLASTIC_P_MAX, ROUGH_PLASTIC_P_MIN)),
                              (float)(ROUGH_PLASTIC_P_NODES - 1u));
    const float x_lo = __fdiv_rn(1.0f, ROUGH_PLASTIC_ETA_MAX);
    const float x = __fdiv_rn(__fsub_rn(__fdiv_rn(1.0f, eta), x_lo), __fsub_rn(__fdiv_rn(1.0f, ROUGH_PLASTIC_ETA_MIN), x_lo));
    cell.p_node = rough_plastic_axis_cell(u, ROUGH_PLASTIC_P_NODES, cell.p_weights);
    if (beckmann) cell.p_node += ROUGH_PLASTIC_P_NODES + 2u;
    cell.x_node = rough_plastic_axis_cell(__fmul_rn(x, (float)(ROUGH_PLASTIC_X_NODES - 1u)), ROUGH_PLASTIC_X_NODES, cell.x_weights);
    cell.r_x_node =
        rough_plastic_axis_cell(__fmul_rn(x, (float)(ROUGH_PLASTIC_XR_NODES - 1u)), ROUGH_PLASTIC_XR_NODES, cell.r_x_weights);
    return true;
}

// rough_plastic::spline: 4 × 4 nodes from (cell.p_node, x_node) of a table with x_nodes x nodes
// and stride entries a node, entry k of each. The loops stay rolled: unrolled, the compiler
// hoisted the 80 table loads of a plastic_eval (two cosines' transmittances, two splines each,
// and the internal reflectance) together, and every kernel that can evaluate a BSDF paid for
// them in registers whether or not its scene has a rough plastic (ReSTIR's initial RIS 198
// registers instead of 128, the naive path tracer 168 instead of 150; ptxas, sm_90). The sums
// are the same either way: the additions keep their order.
__device__ __forceinline__ float rough_plastic_spline(const RoughPlasticCell& cell, unsigned int x_node, const float x_weights[4],
                                                      unsigned int x_nodes, const float* table, unsigned int stride,
                                                      unsigned int k) {
    float sum = 0.0f;
#pragma unroll 1
    for (unsigned int a = 0; a < 4u; ++a) {
        const unsigned int row = ((cell.p_node + a) * (x_nodes + 2u) + x_node) * stride + k;
        float across = 0.0f;
#pragma unroll 1
        for (unsigned int b = 0; b < 4u; ++b) across = __fadd_rn(across, __fmul_rn(x_weights[b], table[row + b * stride]));
        sum = __fadd_rn(sum, __fmul_rn(cell.p_weights[a], across));
    }
    return sum;
}

// rough_plastic::coat_transmittance: Mitsuba's linear interpolation between its 64 cosines.
__device__ __forceinline__ float rough_plastic_coat_transmittance(const RoughPlasticCell& cell, float cos_theta) {
    const float x = __fmul_rn(cos_theta, (float)(ROUGH_PLASTIC_COSINES - 1u));
    unsigned int k = (unsigned int)x;
    if (k > ROUGH_PLASTIC_COSINES - 2u) k = ROUGH_PLASTIC_COSINES - 2u;
    const float w = __fsub_rn(x, (float)k);
    const float v0 = rough_plastic_spline(cell, cell.x_node, cell.x_weights, ROUGH_PLASTIC_X_NODES,
                                          ROUGH_PLASTIC_TRANSMITTANCE, ROUGH_PLASTIC_COSINES, k);
    const float v1 = rough_plastic_spline(cell, cell.x_node, cell.x_weights, ROUGH_PLASTIC_X_NODES,
                                          ROUGH_PLASTIC_TRANSMITTANCE, ROUGH_PLASTIC_COSINES, k + 1u);
    return __fadd_rn(__fmul_rn(__fsub_rn(1.0f, w), v0), __fmul_rn(w, v1));
}

// rough_plastic::coat_internal_reflectance.
__device__ __forceinline__ float rough_plastic_coat_internal_reflectance(const RoughPlasticCell& cell) {
    return rough_plastic_spline(cell, cell.r_x_node, cell.r_x_weights, ROUGH_PLASTIC_XR_NODES,
                                ROUGH_PLASTIC_INTERNAL_REFLECTANCE, 1u, 0u);
}

// bsdf::plastic_base: ρ / (1 − R), or ρ / (1 − ρ R) when nonlinear (R the internal reflectance).
__device__ __forceinline__ float3 plastic_base(const Material& m, float3 base_color, float internal_reflectance) {
    const float3 internal =
        (m.flags & MATERIAL_FLAG_NONLINEAR) != 0u ? base_color * internal_reflectance : splat3(internal_reflectance);
    return make_float3(__fdiv_rn(base_color.x, __fsub_rn(1.0f, internal.x)),
                       __fdiv_rn(base_color.y, __fsub_rn(1.0f, internal.y)),
                       __fdiv_rn(base_color.z, __fsub_rn(1.0f, internal.z)));
}

// bsdf::plastic_coat_probability: Mitsuba's specular sampling weight steers the lobe choice.
__device__ __forceinline__ float plastic_coat_probability(const Material& m, float coat_reflectance) {
    const float s_mean = __fdiv_rn(__fadd_rn(__fadd_rn(m.specular.x, m.specular.y), m.specular.z), 3.0f);
    const float d_mean = __fdiv_rn(__fadd_rn(__fadd_rn(m.base_color.x, m.base_color.y), m.base_color.z), 3.0f);
    const float total_mean = __fadd_rn(d_mean, s_mean);
    const float weight = total_mean > 0.0f ? __fdiv_rn(s_mean, total_mean) : 0.5f;
    const float p_coat = __fmul_rn(coat_reflectance, weight);
    const float p_base = __fmul_rn(__fsub_rn(1.0f, coat_reflectance), __fsub_rn(1.0f, weight));
    const float total = __fadd_rn(p_coat, p_base);
    return total > 0.0f ? __fdiv_rn(p_coat, total) : 0.0f;
}

__device__ __forceinline__ bool plastic_is_smooth(const Material& m) { return !(m.roughness > 0.0f); }

// bsdf::plastic_coat_cell: false for the smooth coat and an η outside the tables.
__device__ __forceinline__ bool plastic_coat_cell(const Material& m, RoughPlasticCell& cell) {
    return !plastic_is_smooth(m) && rough_plastic_coat_cell(m.roughness, m.ior, is_beckmann(m), cell);
}

// bsdf::plastic_coat_transmittance: 1 − F(θ), or the rough interface's (the table).
__device__ __forceinline__ float plastic_coat_transmittance(const Material& m, bool rough, const RoughPlasticCell& cell,
                                                            float cos_theta) {
    if (rough) return rough_plastic_coat_transmittance(cell, cos_theta);
    return __fsub_rn(1.0f, fresnel_dielectric(cos_theta, m.ior).reflectance);
}

// bsdf::plastic_coat_reflectance: F(θ), or 1 − T(θ) of the rough interface.
__device__ __forceinline__ float plastic_coat_reflectance(const Material& m, bool rough, const RoughPlasticCell& cell,
                                                          float cos_theta) {
    if (rough) return __fsub_rn(1.0f, rough_plastic_coat_transmittance(cell, cos_theta));
    return fresnel_dielectric(cos_theta, m.ior).reflectance;
}

// bsdf::plastic_internal_reflectance: Mitsuba's fit (smooth) or the rough interface's (table).
__device__ __forceinline__ float plastic_internal_reflectance(const Material& m, bool rough, const RoughPlasticCell& cell) {
    if (rough) return rough_plastic_coat_internal_reflectance(cell);
    return fresnel_diffuse_reflectance(__fdiv_rn(1.0f, m.ior));
}

// ---- the rough coat's lobe: GGX, or Beckmann with flags::BECKMANN (bsdf::plastic_eval,
// plastic_pdf, plastic_sample) ----

// F D G1(wo) G1(wi) / (4 cos θo) of the rough coat (Mitsuba's separable shadowing-masking).
__device__ __forceinline__ float plastic_coat_lobe(const Material& m, float3 wo, float3 wi) {
    const float alpha = ggx_alpha(m.roughness);
    const float3 h = normalize(wo + wi);
    const float fresnel = fresnel_dielectric(dot(wo, h), m.ior).reflectance;
    float d, g;
    if (is_beckmann(m)) {
        d = beckmann_d(h, alpha);
        g = beckmann_g(wo, wi, alpha);
    } else {
        d = ggx_d(h, alpha);
        g = __fmul_rn(smith_g1(wo, alpha), smith_g1(wi, alpha));
    }
    return __fdiv_rn(__fmul_rn(__fmul_rn(fresnel, d), g), __fmul_rn(4.0f, wo.z));
}

// The rough coat lobe's density of wi: GGX's visible normals, or Beckmann's D(h) cos θh, times
// the reflection Jacobian.
__device__ __forceinline__ float plastic_coat_lobe_pdf(const Material& m, float3 wo, float3 wi) {
    const float alpha = ggx_alpha(m.roughness);
    const float3 h = normalize(wo + wi);
    if (is_beckmann(m)) {
        const float wo_h = dot(wo, h);
        return wo_h > 0.0f ? __fdiv_rn(beckmann_pdf(h, alpha), __fmul_rn(4.0f, wo_h)) : 0.0f;
    }
    return __fdiv_rn(__fmul_rn(smith_g1(wo, alpha), ggx_d(h, alpha)), __fmul_rn(4.0f, wo.z));
}

// A direction reflected off a normal of the rough coat's distribution; false where Beckmann's
// D·cos sampling drew a normal facing away from wo.
__device__ __forceinline__ bool plastic_coat_lobe_sample(const Material& m, float3 wo, float2 u, float3& wi) {
    const float alpha = ggx_alpha(m.roughness);
    if (is_beckmann(m)) {
        const float3 h = sample_beckmann(alpha, u);
        if (dot(wo, h) <= 0.0f) return false;
        wi = reflect(wo, h);
        return true;
    }
    wi = reflect(wo, sample_ggx_vndf(wo, alpha, u));
    return true;
}

// ---- end of the rough coat's lobe ----

__device__ __forceinline__ float3 plastic_eval(const Material& m, float3 base_color, float3 wo, float3 wi) {
    if (wo.z <= 0.0f || wi.z <= 0.0f) return zero3();
    RoughPlasticCell cell;
    const bool rough = plastic_coat_cell(m, cell);
    const float t_o = plastic_coat_transmittance(m, rough, cell, wo.z);
    const float t_i = plastic_coat_transmittance(m, rough, cell, wi.z);
    const float inv_eta_2 = __fdiv_rn(1.0f, __fmul_rn(m.ior, m.ior));
    const float3 base = plastic_base(m, base_color, plastic_internal_reflectance(m, rough, cell)) *
                        __fmul_rn(__fmul_rn(__fmul_rn(cosine_hemisphere_pdf(wi), inv_eta_2), t_o), t_i);
    if (plastic_is_smooth(m)) return base;
    return m.specular * plastic_coat_lobe(m, wo, wi) + base;
}

// bsdf::plastic_coat_probability of the coat's reflectance toward wo.
__device__ __forceinline__ float plastic_coat_probability_at(const Material& m, float cos_o) {
    RoughPlasticCell cell;
    const bool rough = plastic_coat_cell(m, cell);
    return plastic_coat_probability(m, plastic_coat_reflectance(m, rough, cell, cos_o));
}

__device__ __forceinline__ float plastic_pdf(const Material& m, float3 wo, float3 wi) {
    if (wo.z <= 0.0f || wi.z <= 0.0f) return 0.0f;
    const float p_coat = plastic_coat_probability_at(m, wo.z);
    const float base = __fmul_rn(__fsub_rn(1.0f, p_coat), cosine_hemisphere_pdf(wi));
    if (plastic_is_smooth(m)) return base;
    return __fadd_rn(__fmul_rn(p_coat, plastic_coat_lobe_pdf(m, wo, wi)), base);
}

#include "common/principled.cuh"

// ---- the interface ------------------------------------------------------------------------

// f(wo, wi)·|cos θi| of the non-delta lobes.
__device__ __forceinline__ float3 bsdf_eval(const Material& m, float3 base_color, float3 wo, float3 wi) {
    switch (material_kind(m)) {
        case MATERIAL_DIFFUSE:
            if (wo.z > 0.0f && wi.z > 0.0f) return base_color * __fmul_rn(WARPATH_FRAC_1_PI, wi.z);
            return zero3();
        case MATERIAL_BLINN: return blinn_eval(base_color, m.specular, m.exponent, wo, wi);
        case MATERIAL_CAR_PAINT: {
            const float f_o = fresnel_dielectric(wo.z, m.ior).reflectance;
            const float f_i = fresnel_dielectric(wi.z, m.ior).reflectance;
            return blinn_eval(base_color, m.specular, m.exponent, wo, wi) *
                   __fmul_rn(__fsub_rn(1.0f, f_o), __fsub_rn(1.0f, f_i));
        }
        case MATERIAL_ROUGH_CONDUCTOR: {
            if (wo.z <= 0.0f || wi.z <= 0.0f) return zero3();
            const float alpha = ggx_alpha(m.roughness);
            const float3 h = normalize(wo + wi);
            const float dg = is_beckmann(m) ? __fmul_rn(beckmann_d(h, alpha), beckmann_g(wo, wi, alpha))
                                            : __fmul_rn(ggx_d(h, alpha), smith_g2(wo, wi, alpha));
            return conductor_fresnel(m, base_color, dot(wo, h)) * __fdiv_rn(dg, __fmul_rn(4.0f, wo.z));
        }
        case MATERIAL_ROUGH_DIELECTRIC:
            return rough_dielectric_eval(m.ior, ggx_alpha(m.roughness), is_beckmann(m), m.specular, wo, wi);
#if WARPATH_HAS_FEATURE(PLASTIC)
        case MATERIAL_PLASTIC: return plastic_eval(m, base_color, wo, wi);
#endif
#if WARPATH_HAS_FEATURE(PRINCIPLED)
        case MATERIAL_PRINCIPLED: return principled_eval(m, base_color, wo, wi);
#endif
        default: return zero3();
    }
}

// Solid-angle pdf of bsdf_sample producing wi through the non-delta lobes.
__device__ __forceinline__ float bsdf_pdf(const Material& m, float3 base_color, float3 wo, float3 wi) {
    switch (material_kind(m)) {
        case MATERIAL_DIFFUSE: return wo.z > 0.0f ? cosine_hemisphere_pdf(wi) : 0.0f;
        case MATERIAL_BLINN: return blinn_pdf(base_color, m.specular, m.exponent, wo, wi);
        case MATERIAL_CAR_PAINT: {
            const float f_o = fresnel_dielectric(wo.z, m.ior).reflectance;
            const float p_coat = car_paint_coat_probability(f_o, base_color, m.specular);
            return __fmul_rn(__fsub_rn(1.0f, p_coat), blinn_pdf(base_color, m.specular, m.exponent, wo, wi));
        }
        case MATERIAL_ROUGH_CONDUCTOR: {
            if (wo.z <= 0.0f || wi.z <= 0.0f) return 0.0f;
            const float alpha = ggx_alpha(m.roughness);
            const float3 h = normalize(wo + wi);
            if (is_beckmann(m)) {
                const float wo_h = dot(wo, h);
                return wo_h > 0.0f ? __fdiv_rn(beckmann_pdf(h, alpha), __fmul_rn(4.0f, wo_h)) : 0.0f;
            }
            return __fdiv_rn(__fmul_rn(smith_g1(wo, alpha), ggx_d(h, alpha)), __fmul_rn(4.0f, wo.z));
        }
        case MATERIAL_ROUGH_DIELECTRIC:
            return rough_dielectric_pdf(m.ior, ggx_alpha(m.roughness), is_beckmann(m), wo, wi);
#if WARPATH_HAS_FEATURE(PLASTIC)
        case MATERIAL_PLASTIC: return plastic_pdf(m, wo, wi);
#endif
#if WARPATH_HAS_FEATURE(PRINCIPLED)
        case MATERIAL_PRINCIPLED: return principled_pdf(m, wo, wi);
#endif
        default: return 0.0f;
    }
}

// Samples wi given wo: u_lobe picks a lobe, u places the direction. false: no sample.
__device__ __forceinline__ bool bsdf_sample(const Material& m, float3 base_color, float3 wo, float u_lobe, float2 u,
                                            BsdfSample& out) {
    switch (material_kind(m)) {
        case MATERIAL_DIFFUSE: {
            if (wo.z <= 0.0f) return false;
            const float3 wi = square_to_cosine_hemisphere(u);
            const float pdf = cosine_hemisphere_pdf(wi);
            out = make_bsdf_sample(wi, base_color, pdf, false);
            return pdf > 0.0f;
        }
        case MATERIAL_BLINN: {
            float3 wi;
            if (!blinn_sample_direction(base_color, m.specular, m.exponent, wo, u_lobe, u, wi)) return false;
            const float pdf = blinn_pdf(base_color, m.specular, m.exponent, wo, wi);
            const float3 f = blinn_eval(base_color, m.specular, m.exponent, wo, wi);
            out = make_bsdf_sample(wi, f / pdf, pdf, false);
            return pdf > 0.0f;
        }
        case MATERIAL_GLASS: {
            const FresnelDielectric fr = fresnel_dielectric(wo.z, m.ior);
            if (u_lobe < fr.reflectance) {
                out = make_bsdf_sample(reflect_z(wo), splat3(1.0f), fr.reflectance, true);
            } else {
                const float3 wi =
                    make_float3(__fmul_rn(-fr.eta_ti, wo.x), __fmul_rn(-fr.eta_ti, wo.y), fr.cos_theta_t);
                out = make_bsdf_sample(wi, m.specular * __fmul_rn(fr.eta_ti, fr.eta_ti), __fsub_rn(1.0f, fr.reflectance),
                                       true);
            }
            return true;
        }
        case MATERIAL_THIN_DIELECTRIC: {
            float r = fresnel_dielectric(fabsf(wo.z), m.ior).reflectance;
            r = __fdiv_rn(__fmul_rn(r, 2.0f), __fadd_rn(1.0f, r));
            if (u_lobe < r) {
                out = make_bsdf_sample(reflect_z(wo), splat3(1.0f), r, true);
            } else {
                out = make_bsdf_sample(-wo, m.specular, __fsub_rn(1.0f, r), true);
            }
            return true;
        }
        case MATERIAL_MIRROR:
            if (wo.z <= 0.0f) return false;
            // Schlick of F0 specular, or base_color times the exact Fresnel of eta + ik.
            out = make_bsdf_sample(reflect_z(wo),
                                   conductor_fresnel(m, has_conductor_eta_k(m) ? base_color : m.specular, wo.z), 1.0f,
                                   true);
            return true;
        case MATERIAL_CAR_PAINT: {
            if (wo.z <= 0.0f) return false;
            const float f_o = fresnel_dielectric(wo.z, m.ior).reflectance;
            const float p_coat = car_paint_coat_probability(f_o, base_color, m.specular);
            if (u_lobe < p_coat) {
                out = make_bsdf_sample(reflect_z(wo), splat3(__fdiv_rn(f_o, p_coat)), p_coat, true);
                return true;
            }
            const float u_lower =
                fminf(__fdiv_rn(__fsub_rn(u_lobe, p_coat), __fsub_rn(1.0f, p_coat)), WARPATH_ONE_MINUS_EPSILON);
            float3 wi;
            if (!blinn_sample_direction(base_color, m.specular, m.exponent, wo, u_lower, u, wi)) return false;
            const float pdf = __fmul_rn(__fsub_rn(1.0f, p_coat), blinn_pdf(base_color, m.specular, m.exponent, wo, wi));
            const float f_i = fresnel_dielectric(wi.z, m.ior).reflectance;
            const float3 f = blinn_eval(base_color, m.specular, m.exponent, wo, wi) *
                             __fmul_rn(__fsub_rn(1.0f, f_o), __fsub_rn(1.0f, f_i));
            out = make_bsdf_sample(wi, f / pdf, pdf, false);
            return pdf > 0.0f;
        }
        case MATERIAL_ROUGH_CONDUCTOR: {
            if (wo.z <= 0.0f) return false;
            const float alpha = ggx_alpha(m.roughness);
            if (is_beckmann(m)) {
                const float3 h = sample_beckmann(alpha, u);
                const float wo_h = dot(wo, h);
                const float3 wi = reflect(wo, h);
                if (wo_h <= 0.0f || wi.z <= 0.0f) return false;
                const float pdf = __fdiv_rn(beckmann_pdf(h, alpha), __fmul_rn(4.0f, wo_h));
                // F D G / (4 cosθo) over D cosθh / (4 wo·h).
                const float3 weight = conductor_fresnel(m, base_color, wo_h) *
                                      __fdiv_rn(__fmul_rn(beckmann_g(wo, wi, alpha), wo_h), __fmul_rn(wo.z, h.z));
                out = make_bsdf_sample(wi, weight, pdf, false);
                return pdf > 0.0f && is_finite3(weight);
            }
            const float3 h = sample_ggx_vndf(wo, alpha, u);
            const float3 wi = reflect(wo, h);
            if (wi.z <= 0.0f) return false;
            const float g1 = smith_g1(wo, alpha);
            const float pdf = __fdiv_rn(__fmul_rn(g1, ggx_d(h, alpha)), __fmul_rn(4.0f, wo.z));
            const float3 weight = conductor_fresnel(m, base_color, dot(wo, h)) * __fdiv_rn(smith_g2(wo, wi, alpha), g1);
            out = make_bsdf_sample(wi, weight, pdf, false);
            return pdf > 0.0f;
        }
        case MATERIAL_ROUGH_DIELECTRIC: {
            if (wo.z == 0.0f) return false;
            const float alpha = ggx_alpha(m.roughness);
            const bool beckmann = is_beckmann(m);
            const float side = wo.z > 0.0f ? 1.0f : -1.0f;
            // h faces +z; it is visible from wo's side (Beckmann's D·cos sampling: when it is).
            const float3 h = beckmann ? sample_beckmann(alpha, u) : sample_ggx_vndf(wo * side, alpha, u);
            const float wo_h = dot(wo, h);
            if (beckmann && __fmul_rn(wo_h, wo.z) <= 0.0f) return false;
            const FresnelDielectric fr = fresnel_dielectric(wo_h, m.ior);
            const float g1 = smith_g1(wo, alpha);
            float3 wi, weight;
            if (u_lobe < fr.reflectance) {
                wi = reflect(wo, h);
                if (__fmul_rn(wi.z, wo.z) <= 0.0f) return false;
                weight = splat3(rough_dielectric_g_ratio(beckmann, wo, wi, h, wo_h, g1, alpha));
            } else {
                wi = normalize(refract(wo, h, fr.cos_theta_t, fr.eta_ti));
                if (__fmul_rn(wi.z, wo.z) >= 0.0f || __fmul_rn(dot(wi, h), wi.z) <= 0.0f) return false;
                weight = m.specular * __fmul_rn(
                                          __fmul_rn(rough_dielectric_g_ratio(beckmann, wo, wi, h, wo_h, g1, alpha),
                                                    fr.eta_ti),
                                          fr.eta_ti);
            }
            const float pdf = rough_dielectric_pdf(m.ior, alpha, beckmann, wo, wi);
            out = make_bsdf_sample(wi, weight, pdf, false);
            return pdf > 0.0f && is_finite3(weight);
        }
#if WARPATH_HAS_FEATURE(PLASTIC)
        case MATERIAL_PLASTIC: {
            if (wo.z <= 0.0f) return false;
            RoughPlasticCell cell;
            const bool rough = plastic_coat_cell(m, cell);
            const float r_o = plastic_coat_reflectance(m, rough, cell, wo.z);
            const float p_coat = plastic_coat_probability(m, r_o);
            float3 wi;
            if (u_lobe < p_coat) {
                if (plastic_is_smooth(m)) {
                    out = make_bsdf_sample(reflect_z(wo), m.specular * __fdiv_rn(r_o, p_coat), p_coat, true);
                    return true;
                }
                if (!plastic_coat_lobe_sample(m, wo, u, wi)) return false;
            } else {
                wi = square_to_cosine_hemisphere(u);
            }
            if (wi.z <= 0.0f) return false;
            const float pdf = plastic_pdf(m, wo, wi);
            const float3 weight = plastic_eval(m, base_color, wo, wi) / pdf;
            out = make_bsdf_sample(wi, weight, pdf, false);
            return pdf > 0.0f && is_finite3(weight);
        }
#endif
#if WARPATH_HAS_FEATURE(PRINCIPLED)
        case MATERIAL_PRINCIPLED: return principled_sample(m, base_color, wo, u_lobe, u, out);
#endif
        default: return false;
    }
}
