//! Mitsuba 3's `principled` BSDF ([`MaterialKind::Principled`](crate::material::MaterialKind)):
//! Burley's Disney model with the lobes, Fresnel blends and sampling weights Mitsuba gives it,
//! in warpath's frame (`wo` toward the viewer, `wi` toward the light; Mitsuba calls them
//! `si.wi` and `wo`).
//!
//! With weights `brdf = (1 − metallic)(1 − spec_trans)` and `btdf = (1 − metallic) spec_trans`
//! and the generalized half vector `h` of (wo, wi) (facing +z):
//! - specular reflection: `F_p D G / (4 |cos θo|)`, GGX D with α = max(roughness², 0.001) and
//!   the separable Smith `G = G1(wo, h) G1(wi, h)` (both with the microfacet seen from its own
//!   side). On the front `F_p = (1 − m)(1 − t) F + m S(base) + (1 − m) t S(tint · R0(η))`: the
//!   exact dielectric Fresnel F of `ior` at `wo·h` blended with Schlick terms S whose angle is
//!   `wo·h` where the relative index exceeds 1 and the refracted cosine otherwise; `tint` is
//!   base / luminance(base), `m` metallic, `t` spec_tint. From behind `F_p = btdf · F`.
//! - transmission: `√base · btdf · (1 − F) D G |wo·h wi·h| / (|cos θo| (wo·h + η' wi·h)²)`,
//!   η' the index on `wi`'s side over the one on `wo`'s (radiance transport).
//! - clear coat (front only): `clearcoat/4 · S(0.04) · GTR1(h; lerp(0.1, 0.001, gloss)) ·
//!   G1(wo) G1(wi) (α = 0.25) · |cos θi|` (no 1/(4 cos cos): Mitsuba's form).
//! - diffuse (front only): `brdf · base/π · |cos θi| · ((1 − Fi/2)(1 − Fo/2) + R(Fo + Fi +
//!   Fo Fi (R − 1)))`, R = 2 roughness (h·wi)², F· the Schlick weights (1 − cos)⁵ of the two
//!   directions; `flatness` blends it toward Hanrahan–Krueger's fake subsurface lobe.
//! - sheen (front, and only where the diffuse lobe is on): `sheen (1 − m) (1 − h·wi)⁵
//!   lerp(1, tint, sheen_tint) |cos θi|`.
//!
//! Sampling picks diffuse, clear coat or the specular pair with probabilities proportional to
//! `brdf`, `clearcoat/4` and 1 (front; only the specular pair from behind), and within the pair
//! reflection or transmission by the dielectric Fresnel of the sampled visible GGX normal.
//! Anisotropy is not modelled (the importers warn). Same operation order as the CUDA port.

use super::{BsdfSample, fresnel_dielectric, reflect, refract, sample_ggx_vndf, smith_g1};
use crate::detmath::{det_ln, det_pow, det_sin_cos};
use crate::material::Material;
use crate::warp;
use glam::{Vec2, Vec3};
use std::f32::consts::{FRAC_1_PI, PI};

/// Rec. 709 luminance, the weights Mitsuba's `luminance` uses for RGB.
pub fn luminance(c: Vec3) -> f32 {
    c.x * 0.212671 + c.y * 0.715160 + c.z * 0.072169
}

/// Schlick's weight `(1 − cos)⁵`, the cosine clamped to [0, 1].
fn schlick_weight(cos: f32) -> f32 {
    let m = (1.0 - cos).clamp(0.0, 1.0);
    let m2 = m * m;
    m2 * m2 * m
}

/// Schlick's Fresnel `R0 + (1 − R0) w` with the angle Mitsuba's principled uses: `cos_i`'s
/// where the relative index η_t/η_i exceeds 1, the refracted direction's otherwise.
fn principled_schlick_weight(cos_i: f32, eta: f32) -> f32 {
    let outside = cos_i >= 0.0;
    let eta_it = if outside { eta } else { 1.0 / eta };
    let eta_ti = if outside { 1.0 / eta } else { eta };
    if eta_it > 1.0 {
        schlick_weight(cos_i.abs())
    } else {
        let cos_t_sqr = 1.0 - (1.0 - cos_i * cos_i) * (eta_ti * eta_ti);
        schlick_weight(cos_t_sqr.max(0.0).sqrt())
    }
}

fn schlick3(r0: Vec3, w: f32) -> Vec3 {
    r0 + (Vec3::ONE - r0) * w
}

/// GGX D(h) with Mitsuba's cut-off (zero where D cos θh ≤ 1e-20).
fn ggx_d_cut(h: Vec3, alpha: f32) -> f32 {
    let d = super::ggx_d(h, alpha);
    if d * h.z > 1e-20 { d } else { 0.0 }
}

/// Smith G1 of GGX for `v` over the microfacet `h`: zero where `h` is seen from behind.
fn g1_oriented(v: Vec3, h: Vec3, alpha: f32) -> f32 {
    if v.dot(h) * v.z <= 0.0 {
        return 0.0;
    }
    if v.z == 1.0 { 1.0 } else { smith_g1(v, alpha) }
}

/// GTR1 (Berry) distribution of the clear coat: `(α² − 1) / (π ln α² (1 + (α² − 1) cos²θ))`.
fn gtr1_d(h: Vec3, alpha: f32) -> f32 {
    let a2 = alpha * alpha;
    let d = (a2 - 1.0) / (PI * det_ln(a2) * (1.0 + (a2 - 1.0) * (h.z * h.z)));
    if d * h.z > 1e-20 { d } else { 0.0 }
}

/// A GTR1 normal with density `D(h) cos θh`.
fn gtr1_sample(u: Vec2, alpha: f32) -> Vec3 {
    let (sin_phi, cos_phi) = det_sin_cos(2.0 * PI * u.x);
    let a2 = alpha * alpha;
    let cos2 = (1.0 - det_pow(a2, 1.0 - u.y)) / (1.0 - a2);
    let sin_t = (1.0 - cos2).max(0.0).sqrt();
    let cos_t = cos2.max(0.0).sqrt();
    Vec3::new(cos_phi * sin_t, sin_phi * sin_t, cos_t)
}

fn clearcoat_alpha(m: &Material) -> f32 {
    0.1 + (0.001 - 0.1) * m.clearcoat_gloss
}

/// The specular GGX α (isotropic).
fn spec_alpha(m: &Material) -> f32 {
    (m.roughness * m.roughness).max(0.001)
}

/// `btdf` weight `(1 − metallic) spec_trans`.
pub fn transmission_weight(m: &Material) -> f32 {
    (1.0 - m.metallic) * m.spec_trans
}

/// Whether the principled material transmits (and so sees the true side).
pub fn is_transmissive(m: &Material) -> bool {
    transmission_weight(m) > 0.0
}

/// The geometry shared by eval and pdf: the half vector facing +z and the side tests.
struct Config {
    h: Vec3,
    reflect: bool,
    refract: bool,
    /// η on `wi`'s side over η on `wo`'s.
    eta_path: f32,
    /// The dielectric Fresnel reflectance at `wo·h`.
    fresnel: f32,
    /// The microfacet `h` is seen from the proper side by both directions (reflection).
    compat_reflect: bool,
    /// Likewise for transmission.
    compat_refract: bool,
}

fn config(m: &Material, wo: Vec3, wi: Vec3) -> Config {
    let front = wo.z > 0.0;
    let prod = wo.z * wi.z;
    let reflect = prod > 0.0;
    let refract = prod < 0.0;
    let eta_path = if front { m.ior } else { 1.0 / m.ior };
    let h = (wo + wi * if reflect { 1.0 } else { eta_path }).normalize();
    let h = if h.z < 0.0 { -h } else { h };
    let fresnel = fresnel_dielectric(wo.dot(h), m.ior).reflectance;
    let hs = if front { h } else { -h };
    let o_h = wo.dot(hs);
    let i_h = wi.dot(hs);
    Config {
        h,
        reflect,
        refract,
        eta_path,
        fresnel,
        compat_reflect: o_h > 0.0 && i_h > 0.0,
        compat_refract: o_h > 0.0 && i_h < 0.0,
    }
}

/// Lobe-selection probabilities (diffuse, clear coat, transmission, reflection), summing to 1.
fn lobe_probabilities(m: &Material, front: bool, fresnel: f32) -> [f32; 4] {
    let btdf = transmission_weight(m);
    let brdf = (1.0 - m.metallic) * (1.0 - m.spec_trans);
    let (p_d, p_cc, p_t, p_r) = if front {
        (brdf, 0.25 * m.clearcoat, btdf * (1.0 - fresnel), 1.0 - btdf * (1.0 - fresnel))
    } else {
        (0.0, 0.0, if btdf > 0.0 { 1.0 - fresnel } else { 0.0 }, fresnel)
    };
    let inv = 1.0 / (((p_r + p_t) + p_cc) + p_d);
    [p_d * inv, p_cc * inv, p_t * inv, p_r * inv]
}

/// `f(wo, wi) · |cos θi|`.
pub fn eval(m: &Material, base_color: Vec3, wo: Vec3, wi: Vec3) -> Vec3 {
    let btdf = transmission_weight(m);
    if wo.z == 0.0 || (wo.z < 0.0 && !(btdf > 0.0)) {
        return Vec3::ZERO;
    }
    let c = config(m, wo, wi);
    let front = wo.z > 0.0;
    let brdf = (1.0 - m.metallic) * (1.0 - m.spec_trans);
    let alpha = spec_alpha(m);
    let h = c.h;
    let d = ggx_d_cut(h, alpha);
    let g = g1_oriented(wo, h, alpha) * g1_oriented(wi, h, alpha);
    let wo_h = wo.dot(h);
    let wi_h = wi.dot(h);
    let mut value = Vec3::ZERO;
    if c.reflect && c.compat_reflect && c.fresnel > 0.0 {
        let f = if front {
            let eta_it = if wo_h >= 0.0 { m.ior } else { 1.0 / m.ior };
            let w = principled_schlick_weight(wo_h, m.ior);
            let lum = luminance(base_color);
            let tint = if lum > 0.0 { base_color / lum } else { Vec3::ONE };
            let r0 = (eta_it - 1.0) / (eta_it + 1.0);
            let schlick = schlick3(base_color, w) * m.metallic
                + schlick3(tint * (r0 * r0), w) * ((1.0 - m.metallic) * m.spec_tint);
            Vec3::splat((1.0 - m.metallic) * (1.0 - m.spec_tint) * c.fresnel) + schlick
        } else {
            Vec3::splat(btdf * c.fresnel)
        };
        value += f * (d * g / (4.0 * wo.z.abs()));
    }
    if btdf > 0.0 && c.refract && c.compat_refract && c.fresnel < 1.0 {
        let denom = wo_h + c.eta_path * wi_h;
        let t = ((1.0 - c.fresnel) * d * g * (wo_h * wi_h) / (wo.z * (denom * denom))).abs();
        let root = Vec3::new(base_color.x.max(0.0).sqrt(), base_color.y.max(0.0).sqrt(), base_color.z.max(0.0).sqrt());
        value += root * (btdf * t);
    }
    let cos_i = wi.z.abs();
    if m.clearcoat > 0.0 && c.reflect && c.compat_reflect && front {
        let fcc = 0.04 + (1.0 - 0.04) * principled_schlick_weight(wo_h, m.ior);
        let dcc = gtr1_d(h, clearcoat_alpha(m));
        let gcc = g1_oriented(wo, h, 0.25) * g1_oriented(wi, h, 0.25);
        value += Vec3::splat(m.clearcoat * 0.25 * fcc * dcc * gcc * cos_i);
    }
    if brdf > 0.0 && c.reflect && front {
        let f_o = schlick_weight(cos_i);
        let f_i = schlick_weight(wo.z.abs());
        let f_diff = (1.0 - 0.5 * f_i) * (1.0 - 0.5 * f_o);
        let cos_d = wi_h;
        let rr = 2.0 * m.roughness * (cos_d * cos_d);
        let f_retro = rr * (f_o + f_i + f_o * f_i * (rr - 1.0));
        let mut lobe = f_diff + f_retro;
        if m.flatness > 0.0 {
            let fss90 = 0.5 * rr;
            let fss = (1.0 + (fss90 - 1.0) * f_o) * (1.0 + (fss90 - 1.0) * f_i);
            let f_ss = 1.25 * (fss * (1.0 / (cos_i + wo.z.abs()) - 0.5) + 0.5);
            lobe += (f_ss - lobe) * m.flatness;
        }
        value += base_color * (brdf * cos_i * FRAC_1_PI * lobe);
        if m.sheen > 0.0 && 1.0 - m.metallic > 0.0 {
            let fd = schlick_weight(cos_d.abs());
            let lum = luminance(base_color);
            let tint = if lum > 0.0 { base_color / lum } else { Vec3::ONE };
            let c_sheen = Vec3::ONE + (tint - Vec3::ONE) * m.sheen_tint;
            value += c_sheen * (m.sheen * (1.0 - m.metallic) * fd * cos_i);
        }
    }
    value
}

/// Solid-angle pdf of [`sample`].
pub fn pdf(m: &Material, wo: Vec3, wi: Vec3) -> f32 {
    let btdf = transmission_weight(m);
    if wo.z == 0.0 || (wo.z < 0.0 && !(btdf > 0.0)) {
        return 0.0;
    }
    let c = config(m, wo, wi);
    let front = wo.z > 0.0;
    let [p_d, p_cc, p_t, p_r] = lobe_probabilities(m, front, c.fresnel);
    let h = c.h;
    let wo_h = wo.dot(h);
    let wi_h = wi.dot(h);
    let jacobian = if c.reflect {
        (1.0 / (4.0 * wi_h)).abs()
    } else {
        let denom = wo_h + c.eta_path * wi_h;
        (c.eta_path * c.eta_path * wi_h / (denom * denom)).abs()
    };
    let alpha = spec_alpha(m);
    let wo_up = if front { wo } else { -wo };
    let mut pdf = 0.0;
    let spec = |p: f32| {
        let vndf = ggx_d_cut(h, alpha) * g1_oriented(wo_up, h, alpha) * wo_up.dot(h).abs() / wo_up.z;
        p * vndf * jacobian
    };
    if c.reflect && c.compat_reflect {
        pdf += spec(p_r);
    }
    if c.reflect {
        pdf += p_d * warp::cosine_hemisphere_pdf(wi);
    }
    if btdf > 0.0 && c.refract && c.compat_refract {
        pdf += spec(p_t);
    }
    if m.clearcoat > 0.0 && c.reflect && c.compat_reflect {
        let gtr1_pdf = if h.z < 0.0 { 0.0 } else { h.z * gtr1_d(h, clearcoat_alpha(m)) };
        pdf += p_cc * gtr1_pdf * jacobian;
    }
    pdf
}

/// Samples `wi`: `u_lobe` picks the lobe, `u` places the direction.
pub fn sample(m: &Material, base_color: Vec3, wo: Vec3, u_lobe: f32, u: Vec2) -> Option<BsdfSample> {
    let btdf = transmission_weight(m);
    if wo.z == 0.0 || (wo.z < 0.0 && !(btdf > 0.0)) {
        return None;
    }
    let front = wo.z > 0.0;
    let wo_up = if front { wo } else { -wo };
    let h_spec = sample_ggx_vndf(wo_up, spec_alpha(m), u);
    let fr = fresnel_dielectric(wo.dot(h_spec), m.ior);
    let [p_d, p_cc, p_t, _] = lobe_probabilities(m, front, fr.reflectance);
    let (wi, h, reflection) = if u_lobe < p_d {
        (warp::square_to_cosine_hemisphere(u), Vec3::Z, true)
    } else if u_lobe < p_d + p_cc {
        let h = gtr1_sample(u, clearcoat_alpha(m));
        (reflect(wo, h), h, true)
    } else if u_lobe < (p_d + p_cc) + p_t {
        (refract(wo, h_spec, fr.cos_theta_t, fr.eta_ti), h_spec, false)
    } else {
        (reflect(wo, h_spec), h_spec, true)
    };
    // The directions must leave on the proper side of the surface and of their microfacet.
    let hs = if front { h } else { -h };
    let ok = if reflection {
        wo.z * wi.z > 0.0 && wo.dot(hs) > 0.0 && wi.dot(hs) > 0.0
    } else {
        wo.z * wi.z < 0.0 && wo.dot(hs) > 0.0 && wi.dot(hs) < 0.0
    };
    if !ok {
        return None;
    }
    let pdf = pdf(m, wo, wi);
    let weight = eval(m, base_color, wo, wi) / pdf;
    (pdf > 0.0 && weight.is_finite()).then_some(BsdfSample { wi, weight, pdf, delta: false })
}
