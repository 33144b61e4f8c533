//! The exact conductor Fresnel and the Beckmann distribution (`bsdf_fresnel_conductor`,
//! `bsdf_beckmann`, `bsdf_sample_beckmann`): warpath_core::bsdf::conductor and ::beckmann
//! against common/conductor.cuh and common/beckmann.cuh, bit for bit. Indices span the named
//! metals' (η from 0 to 8, κ from 0 to 12) with Mitsuba's perfect mirror (η 0, κ 1) and
//! dielectric-like κ 0 now and then; cosines of both signs with 0 and 1; directions grazing
//! and axis-aligned; uniform numbers with 0 and 1 − ε. The whole-BSDF cases (`bsdf_eval`,
//! `bsdf_pdf`, `bsdf_sample`) reach the same functions through materials with the
//! CONDUCTOR_ETA_K and BECKMANN flags.

use crate::cases::draw;
use crate::host_scene::HostScene;
use crate::words::{Output, Reader, Rng, Words};
use warpath_core::bsdf::{beckmann, conductor};

pub fn fresnel_conductor(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (cos_theta, eta, k) = (r.f(), r.f(), r.f());
    o.f(conductor::fresnel_conductor(cos_theta, eta, k))
}

pub fn beckmann_functions(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (h, v, alpha) = (r.vec3(), r.vec3(), r.f());
    o.f(beckmann::beckmann_d(h, alpha));
    o.f(beckmann::beckmann_g1(v, alpha));
    o.f(beckmann::beckmann_g(h, v, alpha));
    o.f(beckmann::beckmann_pdf(h, alpha));
}

pub fn sample_beckmann(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (alpha, u) = (r.f(), r.vec2());
    o.vec3(beckmann::sample_beckmann(alpha, u))
}

/// A conductor's real index: a named metal's range, 0 now and then.
pub fn conductor_eta(rng: &mut Rng) -> f32 {
    if rng.chance(0.15) { rng.pick(&[0.0, 1.0, 0.2, 4.0]) } else { rng.range(0.0, 8.0) }
}
/// A conductor's extinction coefficient: up to aluminium's, 0 and 1 now and then.
pub fn conductor_k(rng: &mut Rng) -> f32 {
    if rng.chance(0.15) { rng.pick(&[0.0, 1.0, 3.0]) } else { rng.range(0.0, 12.0) }
}

pub fn fresnel_conductor_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.f(if rng.chance(0.125) { rng.pick(&[0.0, 1.0, -1.0, 1e-7, -1e-7, 1.5]) } else { rng.range(-1.0, 1.0) });
    if rng.chance(0.1) {
        // Mitsuba's default conductor, a perfect mirror.
        w.f(0.0);
        w.f(1.0);
    } else {
        w.f(conductor_eta(rng));
        w.f(conductor_k(rng));
    }
}

pub fn beckmann_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec3(draw::direction(rng));
    w.vec3(draw::direction(rng));
    w.f(draw::alpha(rng));
}

pub fn sample_beckmann_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.f(draw::alpha(rng));
    w.vec2(draw::u2(rng));
}
