//! BSDF evaluation and sampling for every [`MaterialKind`], in the local shading frame.
//!
//! Conventions (shared with the GPU port, which keeps these function names):
//! - All directions are unit vectors in the local frame: +z is the shading normal, `wo`
//!   points from the surface toward where the light goes (the viewer), `wi` toward where
//!   it comes from.
//! - Opaque kinds are two-sided by default: the integrator flips the frame so that
//!   `wo.z >= 0` before calling. A one-sided material (`Material::one_sided`) keeps the
//!   frame of its front face, so from behind `wo.z < 0` and every opaque kind returns zero
//!   (`eval`, `pdf`) or no sample: black, as Mitsuba's opaque BSDFs. Transmissive kinds
//!   ([`is_transmissive`]) see the true side: `wo.z < 0` means the path arrives from
//!   inside the object.
//! - [`eval`] returns `f(wo, wi) · |cos θi|` of the non-delta lobes only; [`pdf`] is the
//!   solid-angle density with which [`sample`] produces `wi` through those lobes (the
//!   lobe-selection probability included). Delta lobes (smooth glass, mirror, the car
//!   paint's clear coat) appear only in [`sample`], with `delta = true`.
//! - `base_color` is the material's base color after texture lookup.
//! - Radiance transport: refraction scales radiance by `(η_o / η_i)²`, where `η_o` is
//!   the index on `wo`'s side and `η_i` the index on `wi`'s side (Veach 1997 §5.2; the
//!   same convention as Mitsuba's and pbrt's radiance mode). Smooth and rough
//!   dielectrics apply it alike, so a path that enters and leaves a closed object gets
//!   the two factors `1/η²` and `η²`, which cancel.
//!
//! The kinds (formulas at their helpers below):
//! - Diffuse: Lambert.
//! - Blinn: Lambert + normalized Blinn–Phong, with the exact normal-incidence
//!   normalization (see [`blinn_normalization`]); a one-sample mixture of a cosine lobe
//!   and a half-vector Blinn lobe.
//! - Glass: smooth dielectric, exact unpolarized Fresnel, reflect/refract chosen with
//!   probability F.
//! - Mirror: smooth conductor, Schlick Fresnel with F0 = `specular`, or with
//!   `flags::CONDUCTOR_ETA_K` the exact conductor Fresnel of eta + ik times `base_color`
//!   (Mitsuba's `conductor`; see [`conductor`]).
//! - CarPaint: a smooth dielectric clear coat (delta lobe, Fresnel F(wo)) over the Blinn
//!   model of flakes and base, attenuated by `(1 − F(wo))(1 − F(wi))`.
//! - RoughConductor: GGX, height-correlated Smith G2, Schlick Fresnel (or the exact one, as
//!   Mirror), VNDF sampling (Heitz 2018); with `flags::BECKMANN`, Mitsuba's Beckmann D and
//!   separable G, D·cos sampling ([`beckmann`]).
//! - RoughDielectric: GGX reflection and transmission (Walter et al. 2007), VNDF
//!   sampling, reflect/refract chosen with the Fresnel term of the sampled microfacet;
//!   Beckmann as the rough conductor's.
//! - Plastic: Mitsuba 3's `plastic` (roughness 0: a delta coat lobe) and `roughplastic`
//!   (a GGX coat lobe with Mitsuba's separable Smith G1·G1, VNDF sampling; with
//!   `flags::BECKMANN` the Beckmann lobe, D·cos sampling, as the rough conductor's) over a diffuse
//!   base seen through the coat: T(wo) T(wi) ρ / (π η² (1 − R)) cos θi, the lobe chosen
//!   with Mitsuba's specular sampling weight. The smooth coat's T is 1 − F(θ) and R Mitsuba's
//!   fit of the diffuse Fresnel reflectance; the rough coat's are the rough interface's
//!   transmittance and internal diffuse reflectance, integrated as Mitsuba integrates them
//!   (tables over the distribution, roughness, η and cos θ: see [`rough_plastic`]).
//!
//! - Principled: Mitsuba 3's `principled` (see [`principled`]).
//! - ThinDielectric: Mitsuba's `thindielectric`, a delta reflection of 2R / (1 + R) (every
//!   internal bounce of a thin slab summed) and straight transmission of the rest.
//!
//! The code avoids allocation, recursion and dynamic dispatch so that it ports 1:1 to
//! CUDA C++; its transcendentals are [`crate::detmath`]'s, which the port shares bit for bit.

use crate::detmath::{det_exp2, det_pow, det_sin_cos};
use crate::material::{Material, MaterialKind};
use crate::warp;
use beckmann::{beckmann_d, beckmann_g, beckmann_pdf, sample_beckmann};
use conductor::conductor_fresnel;
use glam::{Vec2, Vec3};
use std::f32::consts::{FRAC_1_PI, PI};

pub mod beckmann;
pub mod conductor;
pub mod principled;
pub mod rough_plastic;
#[doc(hidden)]
pub mod rough_plastic_table;

/// A sampled direction with its throughput weight `f · |cos θi| / pdf`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BsdfSample {
    pub wi: Vec3,
    pub weight: Vec3,
    /// Solid-angle pdf (for delta lobes: the discrete probability of the lobe).
    pub pdf: f32,
    /// Whether `wi` came from a delta lobe (no MIS with light sampling).
    pub delta: bool,
}

/// Whether the kind transmits light (and so must see which side `wo` is on).
pub fn is_transmissive(m: &Material) -> bool {
    match m.kind() {
        MaterialKind::Glass | MaterialKind::RoughDielectric | MaterialKind::ThinDielectric => true,
        MaterialKind::Principled => principled::is_transmissive(m),
        _ => false,
    }
}

/// Whether every lobe is a delta lobe (light sampling can then be skipped).
pub fn is_purely_specular(m: &Material) -> bool {
    matches!(m.kind(), MaterialKind::Glass | MaterialKind::Mirror | MaterialKind::ThinDielectric)
}

/// Smallest GGX α: below it the lobe is numerically a delta and f32 loses the peak.
pub const MIN_GGX_ALPHA: f32 = 1e-3;

// ---------------------------------------------------------------------------------
// Fresnel
// ---------------------------------------------------------------------------------

/// The result of [`fresnel_dielectric`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FresnelDielectric {
    /// Unpolarized reflectance F in [0, 1] (1 under total internal reflection).
    pub reflectance: f32,
    /// Cosine of the refracted direction, with the sign opposite to `cos_theta_i`
    /// (0 under total internal reflection).
    pub cos_theta_t: f32,
    /// Relative index η_t / η_i (transmitted side over incident side).
    pub eta_it: f32,
    /// Its inverse η_i / η_t.
    pub eta_ti: f32,
}

/// Exact unpolarized Fresnel reflectance of a dielectric interface with relative index
/// `eta` = η_inside / η_outside, for a direction with cosine `cos_theta_i` to the normal
/// (positive: outside, negative: inside, where the relative index flips).
pub fn fresnel_dielectric(cos_theta_i: f32, eta: f32) -> FresnelDielectric {
    let outside = cos_theta_i >= 0.0;
    let eta_it = if outside { eta } else { 1.0 / eta };
    let eta_ti = 1.0 / eta_it;
    let cos_i = cos_theta_i.abs().min(1.0);
    let cos_t_sqr = 1.0 - eta_ti * eta_ti * (1.0 - cos_i * cos_i);
    if cos_t_sqr <= 0.0 {
        return FresnelDielectric { reflectance: 1.0, cos_theta_t: 0.0, eta_it, eta_ti };
    }
    let cos_t = cos_t_sqr.sqrt();
    let a_s = (cos_i - eta_it * cos_t) / (cos_i + eta_it * cos_t);
    let a_p = (eta_it * cos_i - cos_t) / (eta_it * cos_i + cos_t);
    let reflectance = (0.5 * (a_s * a_s + a_p * a_p)).clamp(0.0, 1.0);
    FresnelDielectric { reflectance, cos_theta_t: if outside { -cos_t } else { cos_t }, eta_it, eta_ti }
}

/// Schlick's approximation `F0 + (1 − F0)(1 − cos)⁵`.
pub fn schlick_fresnel(f0: Vec3, cos_theta: f32) -> Vec3 {
    let m = (1.0 - cos_theta.abs()).clamp(0.0, 1.0);
    let m2 = m * m;
    f0 + (Vec3::ONE - f0) * (m2 * m2 * m)
}

/// Mirror reflection about +z.
#[inline]
pub fn reflect_z(w: Vec3) -> Vec3 {
    Vec3::new(-w.x, -w.y, w.z)
}

/// Mirror reflection of `w` about the unit normal `h`.
#[inline]
pub fn reflect(w: Vec3, h: Vec3) -> Vec3 {
    2.0 * w.dot(h) * h - w
}

/// Refraction of `w` through the unit normal `h`, given `cos_theta_t` and `eta_ti` from
/// [`fresnel_dielectric`] evaluated with `w·h`.
#[inline]
pub fn refract(w: Vec3, h: Vec3, cos_theta_t: f32, eta_ti: f32) -> Vec3 {
    h * (w.dot(h) * eta_ti + cos_theta_t) - w * eta_ti
}

// ---------------------------------------------------------------------------------
// Normalized Blinn–Phong (Blinn, car-paint flakes)
// ---------------------------------------------------------------------------------

/// Normalization of the Blinn–Phong lobe `N(n) · cosⁿθh`.
///
/// We use the exact value that makes the directional albedo
/// `∫ N cosⁿθh cos θi dωi` equal to 1 at normal incidence (Sloan & Hoffman; see Giesen,
/// "The Blinn-Phong normalization zoo"): `N = (n+2)(n+4) / (8π (2^(−n/2) + n))`.
/// Normal incidence is where that albedo peaks (it falls toward grazing), so the lobe
/// never creates energy, and `base + specular ≤ 1` makes the whole Blinn material energy
/// conserving. The popular approximation `(n+8)/(8π)` is larger than this for every
/// n > 0 and reflects up to 7.5% more than it receives (n ≈ 10) at normal incidence.
pub fn blinn_normalization(exponent: f32) -> f32 {
    let n = exponent.max(0.0);
    (n + 2.0) * (n + 4.0) / (8.0 * PI * (det_exp2(-0.5 * n) + n))
}

/// Probability that the Blinn mixture samples the specular (half-vector) lobe rather
/// than the cosine lobe: proportional to the largest component of each color.
fn blinn_specular_probability(diffuse: Vec3, specular: Vec3) -> f32 {
    let wd = diffuse.max_element().max(0.0);
    let ws = specular.max_element().max(0.0);
    if wd + ws > 0.0 { ws / (wd + ws) } else { 0.0 }
}

/// `f · cos θi` of Lambert(`diffuse`) + normalized Blinn(`specular`, `exponent`), upper
/// hemisphere only.
fn blinn_eval(diffuse: Vec3, specular: Vec3, exponent: f32, wo: Vec3, wi: Vec3) -> Vec3 {
    if wo.z <= 0.0 || wi.z <= 0.0 {
        return Vec3::ZERO;
    }
    let h = (wo + wi).normalize();
    let lobe = blinn_normalization(exponent) * det_pow(h.z.max(0.0), exponent.max(0.0));
    (diffuse * FRAC_1_PI + specular * lobe) * wi.z
}

/// Solid-angle pdf of [`blinn_sample_direction`].
fn blinn_pdf(diffuse: Vec3, specular: Vec3, exponent: f32, wo: Vec3, wi: Vec3) -> f32 {
    if wo.z <= 0.0 || wi.z <= 0.0 || (diffuse.max_element() <= 0.0 && specular.max_element() <= 0.0) {
        return 0.0;
    }
    let p_spec = blinn_specular_probability(diffuse, specular);
    let h = (wo + wi).normalize();
    let wo_dot_h = wo.dot(h);
    let pdf_spec = if wo_dot_h > 0.0 { warp::blinn_lobe_pdf(h, exponent.max(0.0)) / (4.0 * wo_dot_h) } else { 0.0 };
    (1.0 - p_spec) * warp::cosine_hemisphere_pdf(wi) + p_spec * pdf_spec
}

/// Picks the cosine or the Blinn lobe with `u_lobe` and places `wi` with `u`. Returns
/// `None` when the reflected direction falls below the horizon.
fn blinn_sample_direction(
    diffuse: Vec3,
    specular: Vec3,
    exponent: f32,
    wo: Vec3,
    u_lobe: f32,
    u: Vec2,
) -> Option<Vec3> {
    if wo.z <= 0.0 || (diffuse.max_element() <= 0.0 && specular.max_element() <= 0.0) {
        return None;
    }
    let wi = if u_lobe < blinn_specular_probability(diffuse, specular) {
        reflect(wo, warp::square_to_blinn_lobe(u, exponent.max(0.0)))
    } else {
        warp::square_to_cosine_hemisphere(u)
    };
    (wi.z > 0.0).then_some(wi)
}

// ---------------------------------------------------------------------------------
// GGX microfacet distribution (isotropic)
// ---------------------------------------------------------------------------------

/// GGX α from perceptual roughness: `roughness²`, clamped to [`MIN_GGX_ALPHA`].
pub fn ggx_alpha(roughness: f32) -> f32 {
    (roughness * roughness).max(MIN_GGX_ALPHA)
}

/// GGX normal distribution D(h) for a unit `h` (zero below the surface).
pub fn ggx_d(h: Vec3, alpha: f32) -> f32 {
    if h.z <= 0.0 {
        return 0.0;
    }
    let a2 = alpha * alpha;
    // sin²θ + α² cos²θ: the stable form of cos²θ (α² − 1) + 1.
    let t = h.x * h.x + h.y * h.y + a2 * h.z * h.z;
    a2 / (PI * t * t)
}

/// Smith Λ(v) for GGX (symmetric in the sign of `v.z`).
pub fn ggx_lambda(v: Vec3, alpha: f32) -> f32 {
    let z2 = v.z * v.z;
    if z2 <= 0.0 {
        return f32::INFINITY;
    }
    let tan2 = (v.x * v.x + v.y * v.y) / z2;
    0.5 * ((1.0 + alpha * alpha * tan2).sqrt() - 1.0)
}

/// Smith masking G1(v).
pub fn smith_g1(v: Vec3, alpha: f32) -> f32 {
    1.0 / (1.0 + ggx_lambda(v, alpha))
}

/// Height-correlated Smith masking-shadowing G2(wo, wi) (Heitz 2014).
pub fn smith_g2(wo: Vec3, wi: Vec3, alpha: f32) -> f32 {
    1.0 / (1.0 + ggx_lambda(wo, alpha) + ggx_lambda(wi, alpha))
}

/// Samples a microfacet normal from the distribution of normals visible from `wo`
/// (`wo.z > 0`), Heitz 2018, "Sampling the GGX distribution of visible normals".
pub fn sample_ggx_vndf(wo: Vec3, alpha: f32, u: Vec2) -> Vec3 {
    // Stretch to the hemisphere configuration (α = 1).
    let vh = Vec3::new(alpha * wo.x, alpha * wo.y, wo.z).normalize();
    let len_sq = vh.x * vh.x + vh.y * vh.y;
    let t1 = if len_sq > 0.0 { Vec3::new(-vh.y, vh.x, 0.0) / len_sq.sqrt() } else { Vec3::X };
    let t2 = vh.cross(t1);
    // Uniform disk point, warped onto the projected visible half-disk.
    let r = u.x.sqrt();
    let phi = 2.0 * PI * u.y;
    let (sin_phi, cos_phi) = det_sin_cos(phi);
    let p1 = r * cos_phi;
    let mut p2 = r * sin_phi;
    let s = 0.5 * (1.0 + vh.z);
    p2 = (1.0 - s) * (1.0 - p1 * p1).max(0.0).sqrt() + s * p2;
    let nh = t1 * p1 + t2 * p2 + vh * (1.0 - p1 * p1 - p2 * p2).max(0.0).sqrt();
    // Unstretch.
    Vec3::new(alpha * nh.x, alpha * nh.y, nh.z.max(1e-7)).normalize()
}

/// Density of [`sample_ggx_vndf`] over microfacet normals: `G1(wo) |wo·h| D(h) / |wo.z|`
/// (for `h` visible from `wo`, i.e. `wo·h` with the sign of `wo.z`).
pub fn ggx_vndf_pdf(wo: Vec3, h: Vec3, alpha: f32) -> f32 {
    let cos_o = wo.z.abs();
    if cos_o <= 0.0 {
        return 0.0;
    }
    smith_g1(wo, alpha) * wo.dot(h).abs() * ggx_d(h, alpha) / cos_o
}

// ---------------------------------------------------------------------------------
// Rough dielectric (Walter et al. 2007)
// ---------------------------------------------------------------------------------

/// The generalized half vector of (wo, wi) for a dielectric of index `ior`, facing +z,
/// with the relative index `η_wi / η_wo` (1 for reflection). `None` for degenerate or
/// back-facing configurations, which carry no energy.
fn dielectric_half_vector(ior: f32, wo: Vec3, wi: Vec3) -> Option<(Vec3, f32)> {
    if wo.z == 0.0 || wi.z == 0.0 {
        return None;
    }
    let is_reflection = wo.z * wi.z > 0.0;
    let eta_rel = if is_reflection {
        1.0
    } else if wo.z > 0.0 {
        ior
    } else {
        1.0 / ior
    };
    let h_raw = wo + wi * eta_rel;
    if h_raw.length_squared() <= 1e-20 {
        return None;
    }
    let h = h_raw.normalize();
    let h = if h.z < 0.0 { -h } else { h };
    // Microfacets must face each direction from its own side.
    if h.dot(wo) * wo.z <= 0.0 || h.dot(wi) * wi.z <= 0.0 {
        return None;
    }
    Some((h, eta_rel))
}

fn rough_dielectric_eval(ior: f32, alpha: f32, beckmann: bool, tint: Vec3, wo: Vec3, wi: Vec3) -> Vec3 {
    let Some((h, eta_rel)) = dielectric_half_vector(ior, wo, wi) else { return Vec3::ZERO };
    let wo_h = wo.dot(h);
    let wi_h = wi.dot(h);
    let fresnel = fresnel_dielectric(wo_h, ior).reflectance;
    let dg = if beckmann {
        beckmann_d(h, alpha) * beckmann_g(wo, wi, alpha)
    } else {
        ggx_d(h, alpha) * smith_g2(wo, wi, alpha)
    };
    if wo.z * wi.z > 0.0 {
        Vec3::splat(fresnel * dg / (4.0 * wo.z.abs()))
    } else {
        // Radiance BTDF: η_o² (1−F) D G |wi·h||wo·h| / (|cos_o||cos_i| (η_i wi·h + η_o wo·h)²),
        // here divided through by η_o² and multiplied by |cos_i|.
        let denom = eta_rel * wi_h + wo_h;
        tint * ((1.0 - fresnel) * dg * (wi_h * wo_h).abs() / (wo.z.abs() * denom * denom))
    }
}

fn rough_dielectric_pdf(ior: f32, alpha: f32, beckmann: bool, wo: Vec3, wi: Vec3) -> f32 {
    let Some((h, eta_rel)) = dielectric_half_vector(ior, wo, wi) else { return 0.0 };
    let wo_h = wo.dot(h);
    let wi_h = wi.dot(h);
    let fresnel = fresnel_dielectric(wo_h, ior).reflectance;
    let pdf_h = if beckmann { beckmann_pdf(h, alpha) } else { ggx_vndf_pdf(wo, h, alpha) };
    if wo.z * wi.z > 0.0 {
        fresnel * pdf_h / (4.0 * wo_h.abs())
    } else {
        let denom = eta_rel * wi_h + wo_h;
        (1.0 - fresnel) * pdf_h * eta_rel * eta_rel * wi_h.abs() / (denom * denom)
    }
}

// ---------------------------------------------------------------------------------
// Car paint
// ---------------------------------------------------------------------------------

/// Probability that car paint samples its clear coat: the coat's reflectance against a
/// rough estimate of the albedo of the layers below, `max(base) + max(flakes)`.
fn car_paint_coat_probability(coat_fresnel: f32, base: Vec3, flakes: Vec3) -> f32 {
    let lower = (base.max_element().max(0.0) + flakes.max_element().max(0.0)).min(1.0);
    let total = coat_fresnel + (1.0 - coat_fresnel) * lower;
    if total > 0.0 { coat_fresnel / total } else { 1.0 }
}

// ---------------------------------------------------------------------------------
// Plastic (Mitsuba's `plastic` and `roughplastic`)
// ---------------------------------------------------------------------------------

/// Diffuse Fresnel reflectance of an interface of relative index `eta`, the fits Mitsuba 3
/// uses: d'Eon and Irving's for η < 1, Egan and Hilgeman's polynomial in 1/η otherwise.
pub fn fresnel_diffuse_reflectance(eta: f32) -> f32 {
    let inv_eta = 1.0 / eta;
    if eta < 1.0 {
        0.0636 * inv_eta + (eta * (eta * -1.4399 + 0.7099) + 0.6681)
    } else {
        0.919317
            + inv_eta
                * (-3.4793 + inv_eta * (6.75335 + inv_eta * (-7.80989 + inv_eta * (4.98554 + inv_eta * -1.36881))))
    }
}

/// The plastic's base as seen through its coat, before the coat's transmittances:
/// ρ / (1 − R) (or ρ / (1 − ρ R) with [`crate::material::flags::NONLINEAR`]), R the coat's
/// internal diffuse reflectance ([`plastic_internal_reflectance`]).
fn plastic_base(m: &Material, base_color: Vec3, internal_reflectance: f32) -> Vec3 {
    let internal = if m.flags & crate::material::flags::NONLINEAR != 0 {
        base_color * internal_reflectance
    } else {
        Vec3::splat(internal_reflectance)
    };
    base_color / (Vec3::ONE - internal)
}

/// Probability of sampling the coat lobe: `R(wo) w / (R(wo) w + (1 − R(wo))(1 − w))` with
/// R(wo) the coat's reflectance toward `wo` ([`plastic_coat_reflectance`]) and
/// w = mean(specular) / (mean(base) + mean(specular)) (Mitsuba's specular sampling weight;
/// the base is the material's color, its texture not included).
fn plastic_coat_probability(m: &Material, coat_reflectance: f32) -> f32 {
    let s_mean = (m.specular.x + m.specular.y + m.specular.z) / 3.0;
    let d_mean = (m.base_color.x + m.base_color.y + m.base_color.z) / 3.0;
    let total_mean = d_mean + s_mean;
    let weight = if total_mean > 0.0 { s_mean / total_mean } else { 0.5 };
    let p_coat = coat_reflectance * weight;
    let p_base = (1.0 - coat_reflectance) * (1.0 - weight);
    let total = p_coat + p_base;
    if total > 0.0 { p_coat / total } else { 0.0 }
}

/// Whether the plastic's coat is smooth (a delta lobe): `roughness` 0.
fn plastic_is_smooth(m: &Material) -> bool {
    !(m.roughness > 0.0)
}

/// The rough coat's place in the tables of [`rough_plastic`], or `None` for the smooth coat
/// and for an η the tables do not cover (then the smooth interface's values stand in).
fn plastic_coat_cell(m: &Material) -> Option<rough_plastic::CoatCell> {
    if plastic_is_smooth(m) { None } else { rough_plastic::coat_cell(m.roughness, m.ior, m.beckmann()) }
}

/// The fraction of light the coat lets through at `cos_theta`, going in or out: the smooth
/// interface's 1 − F(θ), or the rough interface's (Mitsuba's table).
fn plastic_coat_transmittance(m: &Material, cell: Option<rough_plastic::CoatCell>, cos_theta: f32) -> f32 {
    match cell {
        Some(cell) => rough_plastic::coat_transmittance(&cell, cos_theta),
        None => 1.0 - fresnel_dielectric(cos_theta, m.ior).reflectance,
    }
}

/// The coat's reflectance at `cos_theta` for the lobe choice: F(θ), or 1 − T(θ) of the rough
/// interface (Mitsuba's).
fn plastic_coat_reflectance(m: &Material, cell: Option<rough_plastic::CoatCell>, cos_theta: f32) -> f32 {
    match cell {
        Some(cell) => 1.0 - rough_plastic::coat_transmittance(&cell, cos_theta),
        None => fresnel_dielectric(cos_theta, m.ior).reflectance,
    }
}

/// The coat's internal diffuse reflectance: Mitsuba's fit `fresnel_diffuse_reflectance(1/η)`
/// for the smooth coat, the rough interface's integral (Mitsuba's, tabulated) for the rough.
fn plastic_internal_reflectance(m: &Material, cell: Option<rough_plastic::CoatCell>) -> f32 {
    match cell {
        Some(cell) => rough_plastic::coat_internal_reflectance(&cell),
        None => fresnel_diffuse_reflectance(1.0 / m.ior),
    }
}

/// `f · cos θi` of the plastic's non-delta lobes: the base (both kinds) and the rough coat.
fn plastic_eval(m: &Material, base_color: Vec3, wo: Vec3, wi: Vec3) -> Vec3 {
    if wo.z <= 0.0 || wi.z <= 0.0 {
        return Vec3::ZERO;
    }
    let cell = plastic_coat_cell(m);
    let t_o = plastic_coat_transmittance(m, cell, wo.z);
    let t_i = plastic_coat_transmittance(m, cell, wi.z);
    let inv_eta_2 = 1.0 / (m.ior * m.ior);
    let base = plastic_base(m, base_color, plastic_internal_reflectance(m, cell))
        * (warp::cosine_hemisphere_pdf(wi) * inv_eta_2 * t_o * t_i);
    if plastic_is_smooth(m) {
        return base;
    }
    let alpha = ggx_alpha(m.roughness);
    let h = (wo + wi).normalize();
    let fresnel = fresnel_dielectric(wo.dot(h), m.ior).reflectance;
    // Mitsuba's separable shadowing-masking G1(wo) G1(wi), of the coat's distribution.
    let (d, g) = if m.beckmann() {
        (beckmann_d(h, alpha), beckmann_g(wo, wi, alpha))
    } else {
        (ggx_d(h, alpha), smith_g1(wo, alpha) * smith_g1(wi, alpha))
    };
    m.specular * (fresnel * d * g / (4.0 * wo.z)) + base
}

fn plastic_pdf(m: &Material, wo: Vec3, wi: Vec3) -> f32 {
    if wo.z <= 0.0 || wi.z <= 0.0 {
        return 0.0;
    }
    let p_coat = plastic_coat_probability(m, plastic_coat_reflectance(m, plastic_coat_cell(m), wo.z));
    let base = (1.0 - p_coat) * warp::cosine_hemisphere_pdf(wi);
    if plastic_is_smooth(m) {
        return base;
    }
    let alpha = ggx_alpha(m.roughness);
    let h = (wo + wi).normalize();
    if m.beckmann() {
        // D(h) cosθh sampling times the reflection Jacobian 1 / (4 wo·h).
        let wo_h = wo.dot(h);
        let coat = if wo_h > 0.0 { beckmann_pdf(h, alpha) / (4.0 * wo_h) } else { 0.0 };
        return p_coat * coat + base;
    }
    p_coat * (smith_g1(wo, alpha) * ggx_d(h, alpha) / (4.0 * wo.z)) + base
}

fn plastic_sample(m: &Material, base_color: Vec3, wo: Vec3, u_lobe: f32, u: Vec2) -> Option<BsdfSample> {
    if wo.z <= 0.0 {
        return None;
    }
    let r_o = plastic_coat_reflectance(m, plastic_coat_cell(m), wo.z);
    let p_coat = plastic_coat_probability(m, r_o);
    let wi = if u_lobe < p_coat {
        if plastic_is_smooth(m) {
            return Some(BsdfSample {
                wi: reflect_z(wo),
                weight: m.specular * (r_o / p_coat),
                pdf: p_coat,
                delta: true,
            });
        }
        if m.beckmann() {
            // D·cos sampling can draw a normal facing away from wo: no sample (its pdf counts
            // only the normals wo sees).
            let h = sample_beckmann(ggx_alpha(m.roughness), u);
            if wo.dot(h) <= 0.0 {
                return None;
            }
            reflect(wo, h)
        } else {
            reflect(wo, sample_ggx_vndf(wo, ggx_alpha(m.roughness), u))
        }
    } else {
        warp::square_to_cosine_hemisphere(u)
    };
    if wi.z <= 0.0 {
        return None;
    }
    let pdf = plastic_pdf(m, wo, wi);
    let weight = plastic_eval(m, base_color, wo, wi) / pdf;
    (pdf > 0.0 && weight.is_finite()).then_some(BsdfSample { wi, weight, pdf, delta: false })
}

// ---------------------------------------------------------------------------------
// The public interface
// ---------------------------------------------------------------------------------

/// `f(wo, wi) · |cos θi|` of the non-delta lobes.
pub fn eval(m: &Material, base_color: Vec3, wo: Vec3, wi: Vec3) -> Vec3 {
    match m.kind() {
        MaterialKind::Diffuse => {
            if wo.z > 0.0 && wi.z > 0.0 {
                base_color * (FRAC_1_PI * wi.z)
            } else {
                Vec3::ZERO
            }
        }
        MaterialKind::Blinn => blinn_eval(base_color, m.specular, m.exponent, wo, wi),
        MaterialKind::CarPaint => {
            // Under the coat, directions are taken unrefracted; the lower layers see the
            // light the coat transmits on the way in and on the way out.
            let f_o = fresnel_dielectric(wo.z, m.ior).reflectance;
            let f_i = fresnel_dielectric(wi.z, m.ior).reflectance;
            blinn_eval(base_color, m.specular, m.exponent, wo, wi) * ((1.0 - f_o) * (1.0 - f_i))
        }
        MaterialKind::RoughConductor => {
            if wo.z <= 0.0 || wi.z <= 0.0 {
                return Vec3::ZERO;
            }
            let alpha = ggx_alpha(m.roughness);
            let h = (wo + wi).normalize();
            let dg = if m.beckmann() {
                beckmann_d(h, alpha) * beckmann_g(wo, wi, alpha)
            } else {
                ggx_d(h, alpha) * smith_g2(wo, wi, alpha)
            };
            conductor_fresnel(m, base_color, wo.dot(h)) * (dg / (4.0 * wo.z))
        }
        MaterialKind::RoughDielectric => {
            rough_dielectric_eval(m.ior, ggx_alpha(m.roughness), m.beckmann(), m.specular, wo, wi)
        }
        MaterialKind::Plastic => plastic_eval(m, base_color, wo, wi),
        MaterialKind::Principled => principled::eval(m, base_color, wo, wi),
        MaterialKind::Glass
        | MaterialKind::Mirror
        | MaterialKind::ThinDielectric
        | MaterialKind::Black
        | MaterialKind::Null => Vec3::ZERO,
    }
}

/// Solid-angle pdf of [`sample`] producing `wi` through the non-delta lobes.
pub fn pdf(m: &Material, base_color: Vec3, wo: Vec3, wi: Vec3) -> f32 {
    match m.kind() {
        MaterialKind::Diffuse => {
            if wo.z > 0.0 {
                warp::cosine_hemisphere_pdf(wi)
            } else {
                0.0
            }
        }
        MaterialKind::Blinn => blinn_pdf(base_color, m.specular, m.exponent, wo, wi),
        MaterialKind::CarPaint => {
            let f_o = fresnel_dielectric(wo.z, m.ior).reflectance;
            let p_coat = car_paint_coat_probability(f_o, base_color, m.specular);
            (1.0 - p_coat) * blinn_pdf(base_color, m.specular, m.exponent, wo, wi)
        }
        MaterialKind::RoughConductor => {
            if wo.z <= 0.0 || wi.z <= 0.0 {
                return 0.0;
            }
            let alpha = ggx_alpha(m.roughness);
            let h = (wo + wi).normalize();
            if m.beckmann() {
                // D(h) cosθh times the reflection Jacobian 1 / (4 wo·h).
                let wo_h = wo.dot(h);
                return if wo_h > 0.0 { beckmann_pdf(h, alpha) / (4.0 * wo_h) } else { 0.0 };
            }
            // VNDF pdf G1(wo) D(h) (wo·h) / wo.z times the reflection Jacobian 1 / (4 wo·h).
            smith_g1(wo, alpha) * ggx_d(h, alpha) / (4.0 * wo.z)
        }
        MaterialKind::RoughDielectric => rough_dielectric_pdf(m.ior, ggx_alpha(m.roughness), m.beckmann(), wo, wi),
        MaterialKind::Plastic => plastic_pdf(m, wo, wi),
        MaterialKind::Principled => principled::pdf(m, wo, wi),
        MaterialKind::Glass
        | MaterialKind::Mirror
        | MaterialKind::ThinDielectric
        | MaterialKind::Black
        | MaterialKind::Null => 0.0,
    }
}

/// Samples `wi` given `wo`. `u_lobe` picks a lobe, `u` places the direction.
pub fn sample(m: &Material, base_color: Vec3, wo: Vec3, u_lobe: f32, u: Vec2) -> Option<BsdfSample> {
    match m.kind() {
        MaterialKind::Diffuse => {
            if wo.z <= 0.0 {
                return None;
            }
            let wi = warp::square_to_cosine_hemisphere(u);
            let pdf = warp::cosine_hemisphere_pdf(wi);
            (pdf > 0.0).then_some(BsdfSample { wi, weight: base_color, pdf, delta: false })
        }
        MaterialKind::Blinn => {
            let wi = blinn_sample_direction(base_color, m.specular, m.exponent, wo, u_lobe, u)?;
            let pdf = blinn_pdf(base_color, m.specular, m.exponent, wo, wi);
            let f = blinn_eval(base_color, m.specular, m.exponent, wo, wi);
            (pdf > 0.0).then_some(BsdfSample { wi, weight: f / pdf, pdf, delta: false })
        }
        MaterialKind::Glass => {
            let fr = fresnel_dielectric(wo.z, m.ior);
            if u_lobe < fr.reflectance {
                Some(BsdfSample { wi: reflect_z(wo), weight: Vec3::ONE, pdf: fr.reflectance, delta: true })
            } else {
                let wi = Vec3::new(-fr.eta_ti * wo.x, -fr.eta_ti * wo.y, fr.cos_theta_t);
                // Radiance scaling (η_o / η_i)² = eta_ti².
                let weight = m.specular * (fr.eta_ti * fr.eta_ti);
                Some(BsdfSample { wi, weight, pdf: 1.0 - fr.reflectance, delta: true })
            }
        }
        MaterialKind::ThinDielectric => {
            // Every internal reflection summed: R' = R + T²R / (1 − R²) = 2R / (1 + R).
            let r = fresnel_dielectric(wo.z.abs(), m.ior).reflectance;
            let r = r * 2.0 / (1.0 + r);
            if u_lobe < r {
                Some(BsdfSample { wi: reflect_z(wo), weight: Vec3::ONE, pdf: r, delta: true })
            } else {
                Some(BsdfSample { wi: -wo, weight: m.specular, pdf: 1.0 - r, delta: true })
            }
        }
        MaterialKind::Mirror => {
            if wo.z <= 0.0 {
                return None;
            }
            // Schlick of F0 `specular`, or `base_color` times the exact Fresnel of eta + ik.
            let color = if m.has_conductor_eta_k() { base_color } else { m.specular };
            Some(BsdfSample { wi: reflect_z(wo), weight: conductor_fresnel(m, color, wo.z), pdf: 1.0, delta: true })
        }
        MaterialKind::CarPaint => {
            if wo.z <= 0.0 {
                return None;
            }
            let f_o = fresnel_dielectric(wo.z, m.ior).reflectance;
            let p_coat = car_paint_coat_probability(f_o, base_color, m.specular);
            if u_lobe < p_coat {
                return Some(BsdfSample {
                    wi: reflect_z(wo),
                    weight: Vec3::splat(f_o / p_coat),
                    pdf: p_coat,
                    delta: true,
                });
            }
            // Reuse the remainder of u_lobe to choose between base and flakes.
            let u_lower = ((u_lobe - p_coat) / (1.0 - p_coat)).min(crate::sampler::ONE_MINUS_EPSILON);
            let wi = blinn_sample_direction(base_color, m.specular, m.exponent, wo, u_lower, u)?;
            let pdf = (1.0 - p_coat) * blinn_pdf(base_color, m.specular, m.exponent, wo, wi);
            let f_i = fresnel_dielectric(wi.z, m.ior).reflectance;
            let f = blinn_eval(base_color, m.specular, m.exponent, wo, wi) * ((1.0 - f_o) * (1.0 - f_i));
            (pdf > 0.0).then_some(BsdfSample { wi, weight: f / pdf, pdf, delta: false })
        }
        MaterialKind::RoughConductor => {
            if wo.z <= 0.0 {
                return None;
            }
            let alpha = ggx_alpha(m.roughness);
            if m.beckmann() {
                let h = sample_beckmann(alpha, u);
                let wo_h = wo.dot(h);
                let wi = reflect(wo, h);
                if wo_h <= 0.0 || wi.z <= 0.0 {
                    return None;
                }
                let pdf = beckmann_pdf(h, alpha) / (4.0 * wo_h);
                // F D G / (4 cosθo) over D cosθh / (4 wo·h).
                let weight = conductor_fresnel(m, base_color, wo_h) * (beckmann_g(wo, wi, alpha) * wo_h / (wo.z * h.z));
                return (pdf > 0.0 && weight.is_finite()).then_some(BsdfSample { wi, weight, pdf, delta: false });
            }
            let h = sample_ggx_vndf(wo, alpha, u);
            let wi = reflect(wo, h);
            if wi.z <= 0.0 {
                return None;
            }
            let g1 = smith_g1(wo, alpha);
            let pdf = g1 * ggx_d(h, alpha) / (4.0 * wo.z);
            let weight = conductor_fresnel(m, base_color, wo.dot(h)) * (smith_g2(wo, wi, alpha) / g1);
            (pdf > 0.0).then_some(BsdfSample { wi, weight, pdf, delta: false })
        }
        MaterialKind::RoughDielectric => {
            if wo.z == 0.0 {
                return None;
            }
            let alpha = ggx_alpha(m.roughness);
            let beckmann = m.beckmann();
            let side = if wo.z > 0.0 { 1.0 } else { -1.0 };
            // h faces +z; it is visible from wo's side (Beckmann's D·cos sampling: when it is).
            let h = if beckmann { sample_beckmann(alpha, u) } else { sample_ggx_vndf(wo * side, alpha, u) };
            let wo_h = wo.dot(h);
            if beckmann && wo_h * wo.z <= 0.0 {
                return None;
            }
            let fr = fresnel_dielectric(wo_h, m.ior);
            let g1 = smith_g1(wo, alpha);
            // G2 / G1 (GGX's VNDF), or G |wo·h| / (|cosθo| cosθh) (Beckmann's D·cos), of wi.
            let g_ratio = |wi: Vec3| {
                if beckmann {
                    beckmann_g(wo, wi, alpha) * wo_h.abs() / (wo.z.abs() * h.z)
                } else {
                    smith_g2(wo, wi, alpha) / g1
                }
            };
            let (wi, weight) = if u_lobe < fr.reflectance {
                let wi = reflect(wo, h);
                if wi.z * wo.z <= 0.0 {
                    return None;
                }
                (wi, Vec3::splat(g_ratio(wi)))
            } else {
                let wi = refract(wo, h, fr.cos_theta_t, fr.eta_ti).normalize();
                if wi.z * wo.z >= 0.0 || wi.dot(h) * wi.z <= 0.0 {
                    return None;
                }
                // Radiance scaling (η_o / η_i)² = eta_ti².
                (wi, m.specular * (g_ratio(wi) * fr.eta_ti * fr.eta_ti))
            };
            let pdf = rough_dielectric_pdf(m.ior, alpha, beckmann, wo, wi);
            (pdf > 0.0 && weight.is_finite()).then_some(BsdfSample { wi, weight, pdf, delta: false })
        }
        MaterialKind::Plastic => plastic_sample(m, base_color, wo, u_lobe, u),
        MaterialKind::Principled => principled::sample(m, base_color, wo, u_lobe, u),
        MaterialKind::Black | MaterialKind::Null => None,
    }
}
