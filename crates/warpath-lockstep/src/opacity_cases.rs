//! The opacity mask's cases (`math_opacity`, `math_mask_choose`): warpath_core::opacity
//! against common/opacity.cuh, bit for bit: α = clamp(opacity × texel) for edge and
//! out-of-range values (negative, above 1, NaN), and the null/material lobe choice with its
//! remapped lobe number (u equal to α, u near 1, α 0 and 1). The whole-path cases reach the
//! same code through the random scenes' masks.

use crate::host_scene::HostScene;
use crate::words::{Output, Reader, Rng, Words};
use warpath_core::material::Material;
use warpath_core::opacity;
use warpath_core::sampler::ONE_MINUS_EPSILON;

pub fn alpha(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let m = Material { opacity: r.f(), ..Material::diffuse(glam::Vec3::ONE) };
    o.f(opacity::opacity(&m, r.f()))
}

pub fn choose(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (alpha, u) = (r.f(), r.f());
    match opacity::choose(alpha, u) {
        Some(u_nested) => {
            o.u(1);
            o.f(u_nested)
        }
        None => {
            o.u(0);
            o.f(0.0)
        }
    }
}

fn value(rng: &mut Rng) -> f32 {
    if rng.chance(0.3) {
        rng.pick(&[0.0, 1.0, 0.5, -0.25, 1.5, f32::NAN, ONE_MINUS_EPSILON])
    } else {
        rng.range(-0.2, 1.2)
    }
}

/// An opacity and a texel, each an edge value now and then.
pub fn alpha_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.f(value(rng));
    w.f(value(rng));
}

/// An α in [0, 1] and a lobe number in [0, 1): now and then equal to α, 0, or just below 1.
pub fn choose_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let alpha = if rng.chance(0.3) { rng.pick(&[0.0, 1.0, 0.5, 1e-30, ONE_MINUS_EPSILON]) } else { rng.unit() };
    let u = match rng.below(5) {
        0 => alpha.min(ONE_MINUS_EPSILON),
        1 => rng.pick(&[0.0, ONE_MINUS_EPSILON]),
        _ => rng.unit(),
    };
    w.f(alpha);
    w.f(u);
}
