//! The exact Fresnel reflectance of a conductor (a complex index of refraction η + iκ), per
//! RGB channel, as Mitsuba 3's `conductor` and `roughconductor` evaluate it; used by the
//! conductor kinds with [`flags::CONDUCTOR_ETA_K`]. The formula (Moeller, "Optics", 1988) in
//! terms of a² + b² where a + ib = √(η̃² − sin²θ), η̃ = η + iκ:
//!
//! ```text
//! t = η² − κ² − sin²θ,   a² + b² = √(t² + 4 η² κ²),   a = √((a² + b² + t) / 2)
//! R_s = (a² + b² + cos²θ − 2a cosθ) / (a² + b² + cos²θ + 2a cosθ)
//! R_p = R_s · ((a² + b²) cos²θ + sin⁴θ − 2a cosθ sin²θ) / ((a² + b²) cos²θ + sin⁴θ + 2a cosθ sin²θ)
//! F   = (R_s + R_p) / 2
//! ```
//!
//! η 0, κ 1 (Mitsuba's default conductor, `material = "none"`) gives F = 1 exactly at every
//! angle. common/conductor.cuh is the CUDA twin (same operation order).

use crate::material::{Material, flags};
use glam::Vec3;

/// √max(x, 0).
fn safe_sqrt(x: f32) -> f32 {
    x.max(0.0).sqrt()
}

/// Unpolarized Fresnel reflectance of a conductor of complex index `eta` + i`k` (relative to
/// the outside) for a direction at `cos_theta_i` to the normal (its magnitude is used).
pub fn fresnel_conductor(cos_theta_i: f32, eta: f32, k: f32) -> f32 {
    let cos_i = cos_theta_i.abs().min(1.0);
    let cos_i_2 = cos_i * cos_i;
    let sin_i_2 = 1.0 - cos_i_2;
    let sin_i_4 = sin_i_2 * sin_i_2;
    let temp_1 = eta * eta - k * k - sin_i_2;
    let a_2_pb_2 = safe_sqrt(temp_1 * temp_1 + 4.0 * k * k * eta * eta);
    let a = safe_sqrt(0.5 * (a_2_pb_2 + temp_1));
    let term_1 = a_2_pb_2 + cos_i_2;
    let term_2 = 2.0 * cos_i * a;
    let r_s = (term_1 - term_2) / (term_1 + term_2);
    let term_3 = a_2_pb_2 * cos_i_2 + sin_i_4;
    let term_4 = term_2 * sin_i_2;
    let r_p = r_s * (term_3 - term_4) / (term_3 + term_4);
    0.5 * (r_s + r_p)
}

/// [`fresnel_conductor`] per RGB channel.
pub fn fresnel_conductor_rgb(cos_theta_i: f32, eta: Vec3, k: Vec3) -> Vec3 {
    Vec3::new(
        fresnel_conductor(cos_theta_i, eta.x, k.x),
        fresnel_conductor(cos_theta_i, eta.y, k.y),
        fresnel_conductor(cos_theta_i, eta.z, k.z),
    )
}

/// A conductor's Fresnel term at `cos_theta`: with [`flags::CONDUCTOR_ETA_K`], `color` (Mitsuba's
/// `specular_reflectance`) times the exact Fresnel of the material's eta + ik; otherwise
/// Schlick's approximation with normal-incidence reflectance `color`.
pub fn conductor_fresnel(m: &Material, color: Vec3, cos_theta: f32) -> Vec3 {
    if m.flags & flags::CONDUCTOR_ETA_K != 0 {
        color * fresnel_conductor_rgb(cos_theta, m.conductor_eta(), m.conductor_k())
    } else {
        super::schlick_fresnel(color, cos_theta)
    }
}

/// Normal-incidence reflectance ((η − 1)² + κ²) / ((η + 1)² + κ²) of a conductor, per channel
/// (where warpath needs an F0, e.g. car paint's flakes from pbrt's `coatedconductor`).
pub fn conductor_f0(eta: Vec3, k: Vec3) -> Vec3 {
    let one = Vec3::ONE;
    ((eta - one) * (eta - one) + k * k) / ((eta + one) * (eta + one) + k * k)
}
