//! Where each pixel's final sample came from (`SampleOrigin`; the bench's error maps by
//! origin): read off the final reservoirs, with `shade`'s test of whether a reservoir adds
//! light, so a reservoir that adds nothing is `SampleOrigin::None`, as restir.cu's
//! `restir_shade` writes it on the GPU.

use super::{GBufferPixel, Reservoir, SampleOrigin, contribution};
use crate::integrator::SceneView;

/// The origin of every pixel's final reservoir of each reservoir target: `[target][pixel]`.
pub(super) fn final_origins(
    view: &SceneView,
    gbuffer: &[GBufferPixel],
    reservoirs: &[Vec<Reservoir>],
) -> Vec<Vec<SampleOrigin>> {
    reservoirs
        .iter()
        .map(|reservoirs| {
            gbuffer
                .iter()
                .zip(reservoirs)
                .map(|(g, r)| match (&g.surface, r.y) {
                    (Some(s), Some(y)) if r.w > 0.0 && contribution(view, s, y).is_some() => r.origin,
                    _ => SampleOrigin::None,
                })
                .collect()
        })
        .collect()
}
