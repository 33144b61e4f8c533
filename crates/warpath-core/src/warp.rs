//! Warping functions from the unit square to the domains the estimator samples, each
//! with its pdf. Their χ² tests live with the BSDFs that use them. Transcendentals come
//! from [`crate::detmath`], so the GPU port (`common/warp.cuh`) computes the same bits.

use crate::detmath::{det_pow, det_sin_cos};
use glam::{Vec2, Vec3};
use std::f32::consts::{FRAC_1_PI, FRAC_PI_2, FRAC_PI_4, PI};

/// Concentric mapping of the unit square to the unit disk (Shirley–Chiu).
pub fn square_to_disk_concentric(u: Vec2) -> Vec2 {
    let o = 2.0 * u - Vec2::ONE;
    if o.x == 0.0 && o.y == 0.0 {
        return Vec2::ZERO;
    }
    let (r, theta) =
        if o.x.abs() > o.y.abs() { (o.x, FRAC_PI_4 * (o.y / o.x)) } else { (o.y, FRAC_PI_2 - FRAC_PI_4 * (o.x / o.y)) };
    let (sin_theta, cos_theta) = det_sin_cos(theta);
    r * Vec2::new(cos_theta, sin_theta)
}

/// Cosine-weighted hemisphere around +z; pdf = cos θ / π.
pub fn square_to_cosine_hemisphere(u: Vec2) -> Vec3 {
    let d = square_to_disk_concentric(u);
    let z = (1.0 - d.length_squared()).max(0.0).sqrt();
    Vec3::new(d.x, d.y, z)
}

pub fn cosine_hemisphere_pdf(v: Vec3) -> f32 {
    if v.z > 0.0 { v.z * FRAC_1_PI } else { 0.0 }
}

/// Uniform direction on the unit sphere; pdf = 1 / 4π.
pub fn square_to_uniform_sphere(u: Vec2) -> Vec3 {
    let z = 1.0 - 2.0 * u.x;
    let r = (1.0 - z * z).max(0.0).sqrt();
    let phi = 2.0 * PI * u.y;
    let (sin_phi, cos_phi) = det_sin_cos(phi);
    Vec3::new(r * cos_phi, r * sin_phi, z)
}

pub const UNIFORM_SPHERE_PDF: f32 = 1.0 / (4.0 * PI);

/// Uniform barycentrics (b1, b2) on a triangle (square-root parameterization).
pub fn square_to_triangle(u: Vec2) -> Vec2 {
    let su = u.x.sqrt();
    Vec2::new(1.0 - su, u.y * su)
}

/// Directions where `cos θ` is Blinn-distributed around +z: pdf(h) = (n+1)/(2π) cosⁿθ.
pub fn square_to_blinn_lobe(u: Vec2, exponent: f32) -> Vec3 {
    let cos_t = det_pow(u.x, 1.0 / (exponent + 1.0));
    let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
    let phi = 2.0 * PI * u.y;
    let (sin_phi, cos_phi) = det_sin_cos(phi);
    Vec3::new(sin_t * cos_phi, sin_t * sin_phi, cos_t)
}

pub fn blinn_lobe_pdf(v: Vec3, exponent: f32) -> f32 {
    if v.z > 0.0 { (exponent + 1.0) * (0.5 * FRAC_1_PI) * det_pow(v.z, exponent) } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn disk_points_inside() {
        for i in 0..32 {
            for j in 0..32 {
                let p = square_to_disk_concentric(Vec2::new(i as f32 / 31.0, j as f32 / 31.0));
                assert!(p.length() <= 1.0 + 1e-6);
            }
        }
    }
    #[test]
    fn hemisphere_unit_and_up() {
        for i in 0..16 {
            for j in 0..16 {
                let v = square_to_cosine_hemisphere(Vec2::new((i as f32 + 0.5) / 16.0, (j as f32 + 0.5) / 16.0));
                assert!((v.length() - 1.0).abs() < 1e-5 && v.z >= 0.0);
            }
        }
    }
}
