//! The Beckmann microfacet distribution as Mitsuba 3 evaluates it (its rough BSDFs' default
//! `distribution`), for the rough conductor and rough dielectric with [`flags::BECKMANN`]:
//!
//! - D(h) = exp(−tan²θ / α²) / (π α² cos⁴θ) (0 below the surface, and where D·cosθ ≤ 10⁻²⁰,
//!   as Mitsuba cuts it);
//! - Smith's G1(v) through Mitsuba's rational approximation of the Beckmann masking function
//!   (under 0.35% relative error): with a = 1 / (α tanθ),
//!   G1 = (3.535a + 2.181a²) / (1 + 2.276a + 2.577a²) for a < 1.6, else 1 (1 at normal
//!   incidence); Mitsuba's shadowing-masking is separable: G(wo, wi) = G1(wo) G1(wi);
//! - sampling: the classic D(h)·cosθh sampling, cosθ = 1 / √(1 − α² ln(1 − u₁)),
//!   φ = 2π u₂, whose density over microfacet normals is exactly D(h) cosθh
//!   ([`sample_beckmann`], [`beckmann_pdf`]). (Mitsuba samples the visible normals; the
//!   estimate is the same, the noise a little higher at grazing angles.)
//!
//! α is warpath's roughness² (clamped to [`super::MIN_GGX_ALPHA`] as GGX's is).
//! common/beckmann.cuh is the CUDA twin (same operation order, detmath's exp, ln, sin/cos).
//!
//! [`flags::BECKMANN`]: crate::material::flags::BECKMANN

use crate::detmath::{det_exp, det_ln, det_sin_cos};
use glam::{Vec2, Vec3};
use std::f32::consts::PI;

/// Beckmann D(h) for a unit `h`.
pub fn beckmann_d(h: Vec3, alpha: f32) -> f32 {
    if h.z <= 0.0 {
        return 0.0;
    }
    let cos_2 = h.z * h.z;
    let a2 = alpha * alpha;
    let result = det_exp(-((h.x * h.x + h.y * h.y) / a2) / cos_2) / (PI * a2 * (cos_2 * cos_2));
    // Mitsuba's guard against numerical trouble in the far tail.
    if result * h.z > 1e-20 { result } else { 0.0 }
}

/// Smith's masking G1(v) for Beckmann, Mitsuba's rational approximation (symmetric in the
/// sign of `v.z`; 1 at normal incidence, 0 for grazing `v`).
pub fn beckmann_g1(v: Vec3, alpha: f32) -> f32 {
    let xy_alpha_2 = alpha * alpha * (v.x * v.x + v.y * v.y);
    if xy_alpha_2 == 0.0 {
        return 1.0;
    }
    let z2 = v.z * v.z;
    if z2 <= 0.0 {
        return 0.0;
    }
    let a = 1.0 / (xy_alpha_2 / z2).sqrt();
    if a >= 1.6 {
        return 1.0;
    }
    let a_2 = a * a;
    (3.535 * a + 2.181 * a_2) / (1.0 + 2.276 * a + 2.577 * a_2)
}

/// Mitsuba's separable shadowing-masking G1(wo) G1(wi).
pub fn beckmann_g(wo: Vec3, wi: Vec3, alpha: f32) -> f32 {
    beckmann_g1(wo, alpha) * beckmann_g1(wi, alpha)
}

/// A microfacet normal drawn with density D(h)·cosθh ([`beckmann_pdf`]); `h.z > 0`.
pub fn sample_beckmann(alpha: f32, u: Vec2) -> Vec3 {
    // 1 − u₁ in (0, 1]: ln ≤ 0, cosθ in (0, 1].
    let cos_theta = 1.0 / (1.0 - alpha * alpha * det_ln(1.0 - u.x)).sqrt();
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    let (sin_phi, cos_phi) = det_sin_cos(2.0 * PI * u.y);
    Vec3::new(cos_phi * sin_theta, sin_phi * sin_theta, cos_theta)
}

/// The density of [`sample_beckmann`] over microfacet normals: D(h)·cosθh.
pub fn beckmann_pdf(h: Vec3, alpha: f32) -> f32 {
    if h.z <= 0.0 { 0.0 } else { beckmann_d(h, alpha) * h.z }
}
