//! BSDF evaluation and sampling for every [`MaterialKind`], in the local shading frame.
//!
//! Conventions (shared with the GPU port, which keeps these function names):
//! - All directions are unit vectors in the local frame: +z is the shading normal, `wo`
//!   points from the surface toward where the light goes (the viewer), `wi` toward where
//!   it comes from.
//! - Opaque kinds are two-sided: the integrator flips the frame so that `wo.z >= 0`
//!   before calling. Transmissive kinds ([`is_transmissive`]) see the true side:
//!   `wo.z < 0` means the path arrives from inside the object.
//! - [`eval`] returns `f(wo, wi) · |cos θi|` of the non-delta lobes only; [`pdf`] is the
//!   solid-angle density with which [`sample`] produces `wi` through those lobes (the
//!   lobe-selection probability included). Delta lobes (smooth glass, mirror, the car
//!   paint's clear coat) appear only in [`sample`], with `delta = true`.
//! - `base_color` is the material's base color after texture lookup.

use crate::material::{Material, MaterialKind};
use crate::warp;
use glam::{Vec2, Vec3};
use std::f32::consts::FRAC_1_PI;

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
    matches!(m.kind(), MaterialKind::Glass | MaterialKind::RoughDielectric)
}

/// Whether every lobe is a delta lobe (light sampling can then be skipped).
pub fn is_purely_specular(m: &Material) -> bool {
    matches!(m.kind(), MaterialKind::Glass | MaterialKind::Mirror)
}

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
        _ => Vec3::ZERO,
    }
}

/// Solid-angle pdf of [`sample`] producing `wi` through the non-delta lobes.
pub fn pdf(m: &Material, base_color: Vec3, wo: Vec3, wi: Vec3) -> f32 {
    let _ = base_color;
    match m.kind() {
        MaterialKind::Diffuse => {
            if wo.z > 0.0 {
                warp::cosine_hemisphere_pdf(wi)
            } else {
                0.0
            }
        }
        _ => 0.0,
    }
}

/// Samples `wi` given `wo`. `u_lobe` picks a lobe, `u` places the direction.
pub fn sample(m: &Material, base_color: Vec3, wo: Vec3, u_lobe: f32, u: Vec2) -> Option<BsdfSample> {
    let _ = u_lobe;
    match m.kind() {
        MaterialKind::Diffuse => {
            if wo.z <= 0.0 {
                return None;
            }
            let wi = warp::square_to_cosine_hemisphere(u);
            let pdf = warp::cosine_hemisphere_pdf(wi);
            (pdf > 0.0).then_some(BsdfSample { wi, weight: base_color, pdf, delta: false })
        }
        _ => None,
    }
}
