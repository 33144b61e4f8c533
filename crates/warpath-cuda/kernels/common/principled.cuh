// common/principled.cuh — warpath_core::bsdf::principled on the device: Mitsuba 3's
// `principled` BSDF (Burley's Disney model as Mitsuba implements it; the formulas are in the
// Rust module's docs). Included by common/bsdf.cuh after its GGX and Fresnel helpers; the
// same function names and operation order as the Rust code, for bit-equal results.
#pragma once

// principled::luminance: Rec. 709 weights.
__device__ __forceinline__ float principled_luminance(float3 c) {
    return __fadd_rn(__fadd_rn(__fmul_rn(c.x, 0.212671f), __fmul_rn(c.y, 0.715160f)), __fmul_rn(c.z, 0.072169f));
}

// (1 − cos)⁵ with the cosine clamped.
__device__ __forceinline__ float principled_schlick_weight(float cos) {
    const float m = clampf(__fsub_rn(1.0f, cos), 0.0f, 1.0f);
    const float m2 = __fmul_rn(m, m);
    return __fmul_rn(__fmul_rn(m2, m2), m);
}

// The Schlick weight at cos_i where η_t/η_i > 1, at the refracted cosine otherwise.
__device__ __forceinline__ float principled_fresnel_weight(float cos_i, float eta) {
    const bool outside = cos_i >= 0.0f;
    const float eta_it = outside ? eta : __fdiv_rn(1.0f, eta);
    const float eta_ti = outside ? __fdiv_rn(1.0f, eta) : eta;
    if (eta_it > 1.0f) return principled_schlick_weight(fabsf(cos_i));
    const float cos_t_sqr =
        __fsub_rn(1.0f, __fmul_rn(__fsub_rn(1.0f, __fmul_rn(cos_i, cos_i)), __fmul_rn(eta_ti, eta_ti)));
    return principled_schlick_weight(__fsqrt_rn(fmaxf(cos_t_sqr, 0.0f)));
}

__device__ __forceinline__ float3 principled_schlick3(float3 r0, float w) { return r0 + (splat3(1.0f) - r0) * w; }

__device__ __forceinline__ float principled_ggx_d(float3 h, float alpha) {
    const float d = ggx_d(h, alpha);
    return __fmul_rn(d, h.z) > 1e-20f ? d : 0.0f;
}

__device__ __forceinline__ float principled_g1(float3 v, float3 h, float alpha) {
    if (__fmul_rn(dot(v, h), v.z) <= 0.0f) return 0.0f;
    return v.z == 1.0f ? 1.0f : smith_g1(v, alpha);
}

__device__ __forceinline__ float principled_gtr1_d(float3 h, float alpha) {
    const float a2 = __fmul_rn(alpha, alpha);
    const float d = __fdiv_rn(__fsub_rn(a2, 1.0f),
                              __fmul_rn(__fmul_rn(WARPATH_PI, det_ln(a2)),
                                        __fadd_rn(1.0f, __fmul_rn(__fsub_rn(a2, 1.0f), __fmul_rn(h.z, h.z)))));
    return __fmul_rn(d, h.z) > 1e-20f ? d : 0.0f;
}

__device__ __forceinline__ float3 principled_gtr1_sample(float2 u, float alpha) {
    float sin_phi, cos_phi;
    det_sin_cos(__fmul_rn(2.0f * WARPATH_PI, u.x), sin_phi, cos_phi);
    const float a2 = __fmul_rn(alpha, alpha);
    const float cos2 = __fdiv_rn(__fsub_rn(1.0f, det_pow(a2, __fsub_rn(1.0f, u.y))), __fsub_rn(1.0f, a2));
    const float sin_t = __fsqrt_rn(fmaxf(__fsub_rn(1.0f, cos2), 0.0f));
    const float cos_t = __fsqrt_rn(fmaxf(cos2, 0.0f));
    return make_float3(__fmul_rn(cos_phi, sin_t), __fmul_rn(sin_phi, sin_t), cos_t);
}

__device__ __forceinline__ float principled_clearcoat_alpha(const Material& m) {
    return __fadd_rn(0.1f, __fmul_rn(__fsub_rn(0.001f, 0.1f), m.clearcoat_gloss));
}

__device__ __forceinline__ float principled_spec_alpha(const Material& m) {
    return fmaxf(__fmul_rn(m.roughness, m.roughness), 0.001f);
}

__device__ __forceinline__ float principled_transmission_weight(const Material& m) {
    return __fmul_rn(__fsub_rn(1.0f, m.metallic), m.spec_trans);
}

__device__ __forceinline__ bool principled_is_transmissive(const Material& m) {
    return principled_transmission_weight(m) > 0.0f;
}

struct PrincipledConfig {
    float3 h;
    bool reflect;
    bool refract;
    float eta_path;
    float fresnel;
    bool compat_reflect;
    bool compat_refract;
};

__device__ __forceinline__ PrincipledConfig principled_config(const Material& m, float3 wo, float3 wi) {
    PrincipledConfig c;
    const bool front = wo.z > 0.0f;
    const float prod = __fmul_rn(wo.z, wi.z);
    c.reflect = prod > 0.0f;
    c.refract = prod < 0.0f;
    c.eta_path = front ? m.ior : __fdiv_rn(1.0f, m.ior);
    float3 h = normalize(wo + wi * (c.reflect ? 1.0f : c.eta_path));
    if (h.z < 0.0f) h = -h;
    c.h = h;
    c.fresnel = fresnel_dielectric(dot(wo, h), m.ior).reflectance;
    const float3 hs = front ? h : -h;
    const float o_h = dot(wo, hs);
    const float i_h = dot(wi, hs);
    c.compat_reflect = o_h > 0.0f && i_h > 0.0f;
    c.compat_refract = o_h > 0.0f && i_h < 0.0f;
    return c;
}

// (diffuse, clear coat, transmission, reflection) probabilities, normalized.
__device__ __forceinline__ float4 principled_lobe_probabilities(const Material& m, bool front, float fresnel) {
    const float btdf = principled_transmission_weight(m);
    const float brdf = __fmul_rn(__fsub_rn(1.0f, m.metallic), __fsub_rn(1.0f, m.spec_trans));
    float p_d, p_cc, p_t, p_r;
    if (front) {
        p_d = brdf;
        p_cc = __fmul_rn(0.25f, m.clearcoat);
        p_t = __fmul_rn(btdf, __fsub_rn(1.0f, fresnel));
        p_r = __fsub_rn(1.0f, __fmul_rn(btdf, __fsub_rn(1.0f, fresnel)));
    } else {
        p_d = 0.0f;
        p_cc = 0.0f;
        p_t = btdf > 0.0f ? __fsub_rn(1.0f, fresnel) : 0.0f;
        p_r = fresnel;
    }
    const float inv = __fdiv_rn(1.0f, __fadd_rn(__fadd_rn(__fadd_rn(p_r, p_t), p_cc), p_d));
    return make_float4(__fmul_rn(p_d, inv), __fmul_rn(p_cc, inv), __fmul_rn(p_t, inv), __fmul_rn(p_r, inv));
}

__device__ __forceinline__ float3 principled_tint(float3 base_color) {
    const float lum = principled_luminance(base_color);
    return lum > 0.0f ? base_color / lum : splat3(1.0f);
}

__device__ __forceinline__ float3 principled_eval(const Material& m, float3 base_color, float3 wo, float3 wi) {
    const float btdf = principled_transmission_weight(m);
    if (wo.z == 0.0f || (wo.z < 0.0f && !(btdf > 0.0f))) return zero3();
    const PrincipledConfig c = principled_config(m, wo, wi);
    const bool front = wo.z > 0.0f;
    const float brdf = __fmul_rn(__fsub_rn(1.0f, m.metallic), __fsub_rn(1.0f, m.spec_trans));
    const float alpha = principled_spec_alpha(m);
    const float3 h = c.h;
    const float d = principled_ggx_d(h, alpha);
    const float g = __fmul_rn(principled_g1(wo, h, alpha), principled_g1(wi, h, alpha));
    const float wo_h = dot(wo, h);
    const float wi_h = dot(wi, h);
    float3 value = zero3();
    if (c.reflect && c.compat_reflect && c.fresnel > 0.0f) {
        float3 f;
        if (front) {
            const float eta_it = wo_h >= 0.0f ? m.ior : __fdiv_rn(1.0f, m.ior);
            const float w = principled_fresnel_weight(wo_h, m.ior);
            const float3 tint = principled_tint(base_color);
            const float r0 = __fdiv_rn(__fsub_rn(eta_it, 1.0f), __fadd_rn(eta_it, 1.0f));
            const float3 schlick =
                principled_schlick3(base_color, w) * m.metallic +
                principled_schlick3(tint * __fmul_rn(r0, r0), w) * __fmul_rn(__fsub_rn(1.0f, m.metallic), m.spec_tint);
            f = splat3(__fmul_rn(__fmul_rn(__fsub_rn(1.0f, m.metallic), __fsub_rn(1.0f, m.spec_tint)), c.fresnel)) +
                schlick;
        } else {
            f = splat3(__fmul_rn(btdf, c.fresnel));
        }
        value += f * __fdiv_rn(__fmul_rn(d, g), __fmul_rn(4.0f, fabsf(wo.z)));
    }
    if (btdf > 0.0f && c.refract && c.compat_refract && c.fresnel < 1.0f) {
        const float denom = __fadd_rn(wo_h, __fmul_rn(c.eta_path, wi_h));
        const float t = fabsf(__fdiv_rn(__fmul_rn(__fmul_rn(__fmul_rn(__fsub_rn(1.0f, c.fresnel), d), g), __fmul_rn(wo_h, wi_h)),
                                        __fmul_rn(wo.z, __fmul_rn(denom, denom))));
        const float3 root = make_float3(__fsqrt_rn(fmaxf(base_color.x, 0.0f)), __fsqrt_rn(fmaxf(base_color.y, 0.0f)),
                                        __fsqrt_rn(fmaxf(base_color.z, 0.0f)));
        value += root * __fmul_rn(btdf, t);
    }
    const float cos_i = fabsf(wi.z);
    if (m.clearcoat > 0.0f && c.reflect && c.compat_reflect && front) {
        const float fcc = __fadd_rn(0.04f, __fmul_rn(__fsub_rn(1.0f, 0.04f), principled_fresnel_weight(wo_h, m.ior)));
        const float dcc = principled_gtr1_d(h, principled_clearcoat_alpha(m));
        const float gcc = __fmul_rn(principled_g1(wo, h, 0.25f), principled_g1(wi, h, 0.25f));
        value += splat3(
            __fmul_rn(__fmul_rn(__fmul_rn(__fmul_rn(__fmul_rn(m.clearcoat, 0.25f), fcc), dcc), gcc), cos_i));
    }
    if (brdf > 0.0f && c.reflect && front) {
        const float f_o = principled_schlick_weight(cos_i);
        const float f_i = principled_schlick_weight(fabsf(wo.z));
        const float f_diff = __fmul_rn(__fsub_rn(1.0f, __fmul_rn(0.5f, f_i)), __fsub_rn(1.0f, __fmul_rn(0.5f, f_o)));
        const float cos_d = wi_h;
        const float rr = __fmul_rn(__fmul_rn(2.0f, m.roughness), __fmul_rn(cos_d, cos_d));
        const float f_retro =
            __fmul_rn(rr, __fadd_rn(__fadd_rn(f_o, f_i), __fmul_rn(__fmul_rn(f_o, f_i), __fsub_rn(rr, 1.0f))));
        float lobe = __fadd_rn(f_diff, f_retro);
        if (m.flatness > 0.0f) {
            const float fss90 = __fmul_rn(0.5f, rr);
            const float fss = __fmul_rn(__fadd_rn(1.0f, __fmul_rn(__fsub_rn(fss90, 1.0f), f_o)),
                                        __fadd_rn(1.0f, __fmul_rn(__fsub_rn(fss90, 1.0f), f_i)));
            const float f_ss = __fmul_rn(
                1.25f, __fadd_rn(__fmul_rn(fss, __fsub_rn(__fdiv_rn(1.0f, __fadd_rn(cos_i, fabsf(wo.z))), 0.5f)), 0.5f));
            lobe = __fadd_rn(lobe, __fmul_rn(__fsub_rn(f_ss, lobe), m.flatness));
        }
        value += base_color * __fmul_rn(__fmul_rn(__fmul_rn(brdf, cos_i), WARPATH_FRAC_1_PI), lobe);
        if (m.sheen > 0.0f && __fsub_rn(1.0f, m.metallic) > 0.0f) {
            const float fd = principled_schlick_weight(fabsf(cos_d));
            const float3 tint = principled_tint(base_color);
            const float3 c_sheen = splat3(1.0f) + (tint - splat3(1.0f)) * m.sheen_tint;
            value += c_sheen * __fmul_rn(__fmul_rn(__fmul_rn(m.sheen, __fsub_rn(1.0f, m.metallic)), fd), cos_i);
        }
    }
    return value;
}

__device__ __forceinline__ float principled_pdf(const Material& m, float3 wo, float3 wi) {
    const float btdf = principled_transmission_weight(m);
    if (wo.z == 0.0f || (wo.z < 0.0f && !(btdf > 0.0f))) return 0.0f;
    const PrincipledConfig c = principled_config(m, wo, wi);
    const bool front = wo.z > 0.0f;
    const float4 p = principled_lobe_probabilities(m, front, c.fresnel);
    const float3 h = c.h;
    const float wo_h = dot(wo, h);
    const float wi_h = dot(wi, h);
    float jacobian;
    if (c.reflect) {
        jacobian = fabsf(__fdiv_rn(1.0f, __fmul_rn(4.0f, wi_h)));
    } else {
        const float denom = __fadd_rn(wo_h, __fmul_rn(c.eta_path, wi_h));
        jacobian = fabsf(__fdiv_rn(__fmul_rn(__fmul_rn(c.eta_path, c.eta_path), wi_h), __fmul_rn(denom, denom)));
    }
    const float alpha = principled_spec_alpha(m);
    const float3 wo_up = front ? wo : -wo;
    const float vndf = __fdiv_rn(
        __fmul_rn(__fmul_rn(principled_ggx_d(h, alpha), principled_g1(wo_up, h, alpha)), fabsf(dot(wo_up, h))), wo_up.z);
    float pdf = 0.0f;
    if (c.reflect && c.compat_reflect) pdf = __fadd_rn(pdf, __fmul_rn(__fmul_rn(p.w, vndf), jacobian));
    if (c.reflect) pdf = __fadd_rn(pdf, __fmul_rn(p.x, cosine_hemisphere_pdf(wi)));
    if (btdf > 0.0f && c.refract && c.compat_refract) pdf = __fadd_rn(pdf, __fmul_rn(__fmul_rn(p.z, vndf), jacobian));
    if (m.clearcoat > 0.0f && c.reflect && c.compat_reflect) {
        const float gtr1_pdf = h.z < 0.0f ? 0.0f : __fmul_rn(h.z, principled_gtr1_d(h, principled_clearcoat_alpha(m)));
        pdf = __fadd_rn(pdf, __fmul_rn(__fmul_rn(p.y, gtr1_pdf), jacobian));
    }
    return pdf;
}

__device__ __forceinline__ bool principled_sample(const Material& m, float3 base_color, float3 wo, float u_lobe, float2 u,
                                                  BsdfSample& out) {
    const float btdf = principled_transmission_weight(m);
    if (wo.z == 0.0f || (wo.z < 0.0f && !(btdf > 0.0f))) return false;
    const bool front = wo.z > 0.0f;
    const float3 wo_up = front ? wo : -wo;
    const float3 h_spec = sample_ggx_vndf(wo_up, principled_spec_alpha(m), u);
    const FresnelDielectric fr = fresnel_dielectric(dot(wo, h_spec), m.ior);
    const float4 p = principled_lobe_probabilities(m, front, fr.reflectance);
    float3 wi, h;
    bool reflection = true;
    if (u_lobe < p.x) {
        wi = square_to_cosine_hemisphere(u);
        h = make_float3(0.0f, 0.0f, 1.0f);
    } else if (u_lobe < __fadd_rn(p.x, p.y)) {
        h = principled_gtr1_sample(u, principled_clearcoat_alpha(m));
        wi = reflect(wo, h);
    } else if (u_lobe < __fadd_rn(__fadd_rn(p.x, p.y), p.z)) {
        h = h_spec;
        wi = refract(wo, h_spec, fr.cos_theta_t, fr.eta_ti);
        reflection = false;
    } else {
        h = h_spec;
        wi = reflect(wo, h_spec);
    }
    const float3 hs = front ? h : -h;
    const bool ok = reflection
                        ? (__fmul_rn(wo.z, wi.z) > 0.0f && dot(wo, hs) > 0.0f && dot(wi, hs) > 0.0f)
                        : (__fmul_rn(wo.z, wi.z) < 0.0f && dot(wo, hs) > 0.0f && dot(wi, hs) < 0.0f);
    if (!ok) return false;
    const float pdf = principled_pdf(m, wo, wi);
    const float3 weight = principled_eval(m, base_color, wo, wi) / pdf;
    out = make_bsdf_sample(wi, weight, pdf, false);
    return pdf > 0.0f && is_finite3(weight);
}
