//! The ray sets the traversal benchmarks trace (`warpath-bench traversal` and the GPU tests of
//! the wide kernels, `tests/gpu_wide_traversal.rs`), generated from a scene's camera:
//!
//! - **primary**: one ray through the centre of every pixel, in pixel order (coherent);
//! - **ao**: from every primary hit, a cosine-distributed direction around the surface
//!   normal, length 10% of the scene's bounding-box diagonal, any hit (shadow-like);
//! - **diffuse**: the same origins with cosine directions and unbounded length, closest
//!   hit, unsorted (as a path tracer's bounces are).
//!
//! The hit points come from the CPU traversal of the tree the rays will be traced against;
//! the directions from a hash of the pixel, so a set is the same on every run and machine.

use crate::traverse::HitMode;
use glam::{Vec2, Vec3};
use rayon::prelude::*;
use warpath_bvh::Bvh;
use warpath_core::math::{Frame, Ray, offset_ray_origin};
use warpath_core::sampler::{pcg_hash, u32_to_unit};
use warpath_core::warp::square_to_cosine_hemisphere;

/// One ray set: its name (`primary`, `ao`, `diffuse`), how it is traced and its rays.
pub struct RaySet {
    pub name: &'static str,
    pub mode: HitMode,
    pub rays: Vec<Ray>,
}

/// Two uniform numbers in [0, 1) for ray `index` and stream `salt`.
fn random2(index: u32, salt: u32) -> Vec2 {
    let a = pcg_hash(index.wrapping_mul(2).wrapping_add(salt.wrapping_mul(0x9E37_79B9)));
    let b = pcg_hash(a ^ 0x68E3_1DA4);
    Vec2::new(u32_to_unit(a), u32_to_unit(b))
}

/// The primary, ao and diffuse sets of `scene` at `width`×`height` pixels, the secondary rays
/// leaving the primary hits that `bvh` (built over `tris`) finds.
pub fn make_rays(scene: &warpath_scene::Scene, bvh: &Bvh, tris: &[[Vec3; 3]], width: u32, height: u32) -> Vec<RaySet> {
    let primary: Vec<Ray> = (0..width * height)
        .map(|i| {
            let film = Vec2::new((i % width) as f32 + 0.5, (i / width) as f32 + 0.5);
            scene.camera.generate_ray(film, width, height, Vec2::splat(0.5))
        })
        .collect();
    let ao_length = 0.1 * scene.bounds().extent().length();
    let secondary: Vec<(Ray, Ray)> = primary
        .par_iter()
        .enumerate()
        .filter_map(|(i, ray)| {
            let hit = bvh.intersect(tris, ray)?;
            let [a, b, c] = tris[hit.prim as usize];
            let mut n = (b - a).cross(c - a).normalize_or_zero();
            if n == Vec3::ZERO {
                return None;
            }
            if n.dot(ray.d) > 0.0 {
                n = -n;
            }
            let p = ray.at(hit.t);
            let frame = Frame::from_normal(n);
            let ao_dir = frame.to_world(square_to_cosine_hemisphere(random2(i as u32, 1)));
            let diffuse_dir = frame.to_world(square_to_cosine_hemisphere(random2(i as u32, 2)));
            let ao = Ray::segment(offset_ray_origin(p, n, ao_dir), ao_dir, ao_length);
            let diffuse = Ray::new(offset_ray_origin(p, n, diffuse_dir), diffuse_dir);
            Some((ao, diffuse))
        })
        .collect();
    let (ao, diffuse): (Vec<Ray>, Vec<Ray>) = secondary.into_iter().unzip();
    vec![
        RaySet { name: "primary", mode: HitMode::Closest, rays: primary },
        RaySet { name: "ao", mode: HitMode::Any, rays: ao },
        RaySet { name: "diffuse", mode: HitMode::Closest, rays: diffuse },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_bvh::BuildOptions;

    #[test]
    fn every_pixel_has_a_primary_ray_and_every_primary_hit_two_secondary_rays() {
        let scene = warpath_scene::builtin::cornell();
        let tris = scene.triangle_soup();
        let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
        let sets = make_rays(&scene, &bvh, &tris, 24, 16);
        let names: Vec<_> = sets.iter().map(|s| (s.name, s.mode)).collect();
        assert_eq!(names, [("primary", HitMode::Closest), ("ao", HitMode::Any), ("diffuse", HitMode::Closest)]);
        assert_eq!(sets[0].rays.len(), 24 * 16);
        let hits = sets[0].rays.iter().filter(|r| bvh.intersect(&tris, r).is_some()).count();
        assert!(hits > 0);
        assert_eq!(sets[1].rays.len(), hits, "no degenerate triangle: every primary hit leaves two rays");
        assert_eq!(sets[2].rays.len(), hits);
        let ao_length = 0.1 * scene.bounds().extent().length();
        assert!(sets[1].rays.iter().all(|r| (r.t_max - ao_length).abs() <= 1e-4 * ao_length), "ao segments");
        assert!(sets[2].rays.iter().all(|r| r.t_max == f32::INFINITY), "unbounded diffuse rays");
        // The same sets again: deterministic.
        let again = make_rays(&scene, &bvh, &tris, 24, 16);
        assert!(sets.iter().zip(&again).all(|(a, b)| a.rays.iter().zip(&b.rays).all(|(x, y)| x.d == y.d)));
    }
}
