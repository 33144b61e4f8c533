//! The reuse passes' neighbour test (temporal and spatial reuse): a neighbour's reservoir is
//! reused only where its surface is like the pixel's — normals within 25°, depths within 10%
//! and, as RTXDI's material similarity test, roughnesses within a threshold
//! (`RestirOptions::roughness_threshold`), so that a glossy pixel does not take the samples of
//! a diffuse neighbour (or the other way round) whose targets differ most. The GPU's twin is
//! restir.cuh `restir_similar_at`.

use super::Surface;
use warpath_core::restir::roughness_similar;

/// Whether neighbour surface `n` is similar enough to `s` to reuse its reservoir.
pub(super) fn similar(s: &Surface, n: &Surface, roughness_threshold: f32) -> bool {
    similar_at(s, n, s.depth, roughness_threshold)
}

/// [`similar`] with `s` at `depth` from the camera `n` was seen by (normals within 25°,
/// depths within 10%, roughnesses within `roughness_threshold`).
pub(super) fn similar_at(s: &Surface, n: &Surface, depth: f32, roughness_threshold: f32) -> bool {
    s.frame.n.dot(n.frame.n) >= 0.906
        && (n.depth - depth).abs() <= 0.1 * depth
        && roughness_similar(s.roughness, n.roughness, roughness_threshold)
}
