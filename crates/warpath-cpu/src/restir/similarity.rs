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

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;
    use warpath_core::material::Material;
    use warpath_core::math::Frame;
    use warpath_core::restir::material_roughness;

    fn surface(material: &Material, depth: f32) -> Surface {
        Surface {
            p: Vec3::ZERO,
            ng: Vec3::Y,
            frame: Frame::from_normal(Vec3::Y),
            material: 0,
            base_color: Vec3::splat(0.5),
            wo: Vec3::Y,
            depth,
            roughness: material_roughness(material),
            material_roughness: material.roughness,
            metallic: material.metallic,
            opacity: 1.0,
        }
    }

    /// The roughness test rejects a neighbour of another roughness only beyond the threshold
    /// (a diffuse floor beside rough metal: |1 − 0.2| = 0.8), keeps equal ones at threshold 0,
    /// and 1 turns it off; the normal and depth tests still apply.
    #[test]
    fn neighbours_of_another_roughness_are_rejected_beyond_the_threshold() {
        let diffuse = surface(&Material::diffuse(Vec3::splat(0.5)), 2.0);
        let metal = surface(&Material::rough_conductor(Vec3::splat(0.9), 0.2), 2.05);
        assert_eq!(metal.roughness, 0.2);
        assert_eq!(diffuse.roughness, 1.0);
        for (threshold, expected) in [(0.0, false), (0.5, false), (0.79, false), (0.81, true), (1.0, true)] {
            assert_eq!(similar(&diffuse, &metal, threshold), expected, "threshold {threshold}");
            assert_eq!(similar(&metal, &diffuse, threshold), expected, "threshold {threshold}, reversed");
        }
        assert!(similar(&metal, &metal, 0.0), "equal roughness at threshold 0");
        let far = Surface { depth: 3.0, ..metal };
        assert!(!similar(&metal, &far, 1.0), "the depth test still applies");
        // A Blinn lobe's roughness: (2 / (n + 2))^¼, 0.2853 for the varnished floor's n = 300.
        let varnish = material_roughness(&Material::blinn(Vec3::splat(0.5), Vec3::splat(0.35), 300.0));
        assert!((varnish - (2.0f32 / 302.0).powf(0.25)).abs() < 1e-6, "{varnish}");
        assert_eq!(material_roughness(&Material::chrome()), 0.0);
    }
}
