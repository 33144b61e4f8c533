//! The Henyey–Greenstein phase function, with Mitsuba 3's convention for `g` (g > 0 scatters
//! forward, g = 0 is isotropic). Directions are both propagation directions: `cos_theta` is
//! the cosine between the incoming ray's direction and the scattered one, so forward
//! scattering is `cos_theta = 1`:
//!
//!   p(cos θ) = (1 − g²) / (4π (1 + g² − 2g cos θ)^{3/2}).
//!
//! Sampling inverts its CDF in cos θ; the azimuth is uniform. Written operation for operation
//! like `hg_eval`/`hg_sample` in `crates/warpath-cuda/kernels/volume/medium.cuh`, with
//! warpath's deterministic sine and cosine.

use glam::{Vec2, Vec3};
use warpath_core::detmath::det_sin_cos;
use warpath_core::math::Frame;

const INV_FOUR_PI: f32 = 1.0 / (4.0 * std::f32::consts::PI);
/// Below this |g| the function is sampled as isotropic (the inversion divides by g).
pub const ISOTROPIC_G: f32 = 1e-3;

/// p(cos θ) of Henyey–Greenstein with anisotropy `g` ∈ (−1, 1).
#[inline]
pub fn hg_eval(g: f32, cos_theta: f32) -> f32 {
    let denom = 1.0 + g * g - 2.0 * g * cos_theta;
    (1.0 - g * g) * INV_FOUR_PI / (denom * denom.sqrt())
}

/// The cosine of a sampled scattering angle for uniform `u`.
#[inline]
pub fn hg_sample_cos(g: f32, u: f32) -> f32 {
    let cos_theta = if g.abs() < ISOTROPIC_G {
        1.0 - 2.0 * u
    } else {
        let s = (1.0 - g * g) / (1.0 - g + 2.0 * g * u);
        (1.0 + g * g - s * s) / (2.0 * g)
    };
    cos_theta.clamp(-1.0, 1.0)
}

/// A scattered direction for a ray travelling along `direction` (unit), and its pdf (which
/// equals the phase function: sampling is exact). `u` are two uniform numbers.
#[inline]
pub fn hg_sample(g: f32, direction: Vec3, u: Vec2) -> (Vec3, f32) {
    let cos_theta = hg_sample_cos(g, u.x);
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    let (sin_phi, cos_phi) = det_sin_cos(2.0 * std::f32::consts::PI * u.y);
    let local = Vec3::new(sin_theta * cos_phi, sin_theta * sin_phi, cos_theta);
    let frame = Frame::from_normal(direction);
    (frame.to_world(local).normalize(), hg_eval(g, cos_theta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_over_the_sphere() {
        for g in [-0.9f32, -0.3, 0.0, 0.5, 0.877, 0.95] {
            // ∫ p dω = 2π ∫_{-1}^{1} p(μ) dμ, midpoint rule in f64 on a fine grid.
            let n = 200_000;
            let sum: f64 = (0..n)
                .map(|i| {
                    let mu = -1.0 + (i as f64 + 0.5) * 2.0 / n as f64;
                    hg_eval(g, mu as f32) as f64
                })
                .sum();
            let integral = 2.0 * std::f64::consts::PI * sum * 2.0 / n as f64;
            assert!((integral - 1.0).abs() < 2e-3, "g {g}: ∫p = {integral}");
        }
    }

    #[test]
    fn mean_cosine_is_g() {
        // E[cos θ] = g for Henyey–Greenstein: the sampled mean over stratified u.
        for g in [-0.5f32, 0.0, 0.3, 0.877] {
            let n = 100_000;
            let mean: f64 =
                (0..n).map(|i| hg_sample_cos(g, (i as f32 + 0.5) / n as f32) as f64).sum::<f64>() / n as f64;
            assert!((mean - g as f64).abs() < 2e-3, "g {g}: mean cosine {mean}");
        }
    }
}
