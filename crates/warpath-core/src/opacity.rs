//! Opacity masks: Mitsuba 3's `mask` BSDF on any material (`Material::opacity`, times the
//! first channel of `Material::opacity_texture` where there is one, clamped to [0, 1]).
//!
//! The masked material is a mixture: with probability 1 − α a *null* lobe lets the ray go on
//! straight through (a delta lobe of weight 1 and pdf 1 − α, no change of direction or
//! medium side), otherwise the material itself, scaled by α. So `eval` and `pdf` are the
//! material's times α, and a BSDF sample picks the null lobe when `u_lobe ≥ α` and the
//! material with `u_lobe / α` otherwise (Mitsuba's `mask.cpp` order). α = 1 changes nothing,
//! bit for bit: the material's values are multiplied by 1 and `u_lobe / 1 = u_lobe`.
//!
//! What each estimator does with the null lobe (docs/scene-format.md, "Opacity masks"):
//! - the surface path tracer (Mitsuba's `path`): a pass-through is a bounce (it counts toward
//!   `max_depth`), a delta one (an emitter hit next gets no MIS weight), and shadow rays stop
//!   at masked surfaces as at any other (Mitsuba's `ray_test`): light behind a mask is
//!   reached by BSDF sampling through it alone;
//! - the volumetric path tracer (Mitsuba's `volpath`): a pass-through is no vertex (it does not
//!   count toward `max_depth`; MIS at the next emitter refers to the last real vertex) and
//!   crosses the surface's medium interface as a `null` boundary does; shadow rays go through
//!   a masked surface with transmittance 1 − α.
//! Emission does not depend on the mask (Mitsuba's emitters are not BSDFs): a masked emitter
//! emits in full.

use crate::material::Material;
use crate::sampler::ONE_MINUS_EPSILON;

/// The opacity α at a surface point: `opacity` times `texel` (the opacity texture's first
/// channel there, 1 without a texture), clamped to [0, 1] (NaN and −0 read as +0: written
/// with comparisons, so that no port's min/max treats signed zeros its own way).
#[inline]
pub fn opacity(material: &Material, texel: f32) -> f32 {
    let a = material.opacity * texel;
    if a > 0.0 { if a < 1.0 { a } else { 1.0 } } else { 0.0 }
}

/// The mask's lobe choice for `u_lobe` at opacity `alpha`: `None` for the null lobe (go on
/// straight through), else the material's own lobe number `u_lobe / α` (below 1).
#[inline]
pub fn choose(alpha: f32, u_lobe: f32) -> Option<f32> {
    if u_lobe < alpha { Some((u_lobe / alpha).min(ONE_MINUS_EPSILON)) } else { None }
}
