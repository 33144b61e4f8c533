//! Test meshes and rays shared by the BVH tests: random triangle soups with degenerate,
//! duplicated and coplanar triangles, clustered meshes, a tessellated sphere, long thin
//! diagonal triangles, and ray sets that mix random, aimed, axis-aligned and bounded rays.
#![allow(dead_code)]

use glam::Vec3;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use warpath_bvh::{Bvh, brute_force_intersect};
use warpath_core::math::{Aabb, Ray, intersect_triangle};

pub type Tri = [Vec3; 3];

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

fn random_point(rng: &mut StdRng, center: Vec3, radius: f32) -> Vec3 {
    center + Vec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)) * radius
}

/// A soup of `count` triangles in [-1, 1]^3 of mixed sizes, with degenerate (zero-area,
/// collinear, point), duplicated (same or rotated vertex order), coplanar-overlapping and
/// axis-aligned triangles sprinkled in.
pub fn random_soup(rng: &mut StdRng, count: usize) -> Vec<Tri> {
    let mut tris: Vec<Tri> = Vec::with_capacity(count);
    while tris.len() < count {
        let kind = rng.random_range(0..10);
        let a = random_point(rng, Vec3::ZERO, 1.0);
        let size = if rng.random_bool(0.5) { 0.1 } else { 0.8 };
        let tri = match kind {
            // Two equal vertices.
            0 => [a, a, random_point(rng, a, size)],
            // Collinear.
            1 => {
                let b = random_point(rng, a, size);
                [a, b, a + (b - a) * 0.5]
            }
            // A point.
            2 if rng.random_bool(0.3) => [a, a, a],
            // A duplicate of an earlier triangle, possibly with rotated vertex order.
            3 if !tris.is_empty() => {
                let t = tris[rng.random_range(0..tris.len())];
                if rng.random_bool(0.5) { t } else { [t[1], t[2], t[0]] }
            }
            // Coplanar with an earlier triangle, overlapping it.
            4 if !tris.is_empty() => {
                let t = tris[rng.random_range(0..tris.len())];
                let w = |rng: &mut StdRng| {
                    let (x, y) = (rng.random_range(-0.5..1.0f32), rng.random_range(-0.5..1.0f32));
                    t[0] + (t[1] - t[0]) * x + (t[2] - t[0]) * y
                };
                [w(rng), w(rng), w(rng)]
            }
            // Axis-aligned (in a plane z = const, on a coarse grid).
            5 => {
                let snap = |v: f32| (v * 4.0).round() / 4.0;
                let z = snap(a.z);
                let p = |rng: &mut StdRng| {
                    Vec3::new(snap(rng.random_range(-1.0..1.0)), snap(rng.random_range(-1.0..1.0)), z)
                };
                [p(rng), p(rng), p(rng)]
            }
            _ => [a, random_point(rng, a, size), random_point(rng, a, size)],
        };
        tris.push(tri);
    }
    tris
}

/// Small triangles in a few tight clusters far apart (many empty regions, very uneven density).
pub fn clustered_mesh(rng: &mut StdRng, count: usize) -> Vec<Tri> {
    let clusters: Vec<(Vec3, f32)> = (0..rng.random_range(1..6))
        .map(|_| (random_point(rng, Vec3::ZERO, 10.0), 10f32.powf(rng.random_range(-3.0..0.0))))
        .collect();
    (0..count)
        .map(|_| {
            let (center, radius) = clusters[rng.random_range(0..clusters.len())];
            let a = random_point(rng, center, radius);
            [a, random_point(rng, a, radius * 0.3), random_point(rng, a, radius * 0.3)]
        })
        .collect()
}

/// A UV sphere of radius `radius` with `2 * rings * segments` triangles (minus the pole caps'
/// degenerate halves, which are kept: they have zero area).
pub fn uv_sphere(center: Vec3, radius: f32, rings: usize, segments: usize) -> Vec<Tri> {
    let point = |ring: usize, segment: usize| {
        let theta = std::f32::consts::PI * ring as f32 / rings as f32;
        let phi = 2.0 * std::f32::consts::PI * segment as f32 / segments as f32;
        center + radius * Vec3::new(theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin())
    };
    let mut tris = Vec::with_capacity(2 * rings * segments);
    for ring in 0..rings {
        for segment in 0..segments {
            let (a, b) = (point(ring, segment), point(ring, segment + 1));
            let (c, d) = (point(ring + 1, segment), point(ring + 1, segment + 1));
            tris.push([a, c, d]);
            tris.push([a, d, b]);
        }
    }
    tris
}

/// Long, thin triangles along the diagonal of a cube (each from near one corner to near the
/// opposite one): their boxes all overlap, which object splits cannot fix but spatial splits can.
pub fn thin_diagonal_triangles(rng: &mut StdRng, count: usize) -> Vec<Tri> {
    (0..count)
        .map(|_| {
            let offset = random_point(rng, Vec3::ZERO, 0.3);
            let start = Vec3::splat(-1.0) + offset;
            let end = Vec3::splat(1.0) + offset;
            let width = random_point(rng, Vec3::ZERO, 0.01);
            [start, end, end + width]
        })
        .collect()
}

fn mesh_bounds(tris: &[Tri]) -> Aabb {
    tris.iter().fold(Aabb::EMPTY, |b, t| b.union(Aabb::from_points(t)))
}

/// Rays against `tris`: random origins around the mesh with random directions, rays aimed at
/// triangle interiors, vertices and edges (so most hit), axis-aligned rays (zero direction
/// components) from grid points, and rays with finite `t_max` or positive `t_min`.
pub fn test_rays(rng: &mut StdRng, tris: &[Tri], count: usize) -> Vec<Ray> {
    let bounds = mesh_bounds(tris);
    let (center, radius) = if bounds.is_empty() || !bounds.area().is_finite() {
        (Vec3::ZERO, 1.0)
    } else {
        (bounds.center(), bounds.extent().max_element().max(1e-3))
    };
    let finite_tris: Vec<&Tri> = tris.iter().filter(|t| t.iter().all(|v| v.is_finite())).collect();
    (0..count)
        .map(|i| {
            let origin = random_point(rng, center, 1.5 * radius);
            let kind = i % 6;
            let mut ray = match kind {
                1 | 2 if !finite_tris.is_empty() => {
                    let t = finite_tris[rng.random_range(0..finite_tris.len())];
                    let target = match rng.random_range(0..4) {
                        0 => t[rng.random_range(0..3)],
                        1 => t[0] + (t[1] - t[0]) * rng.random_range(0.0..1.0f32),
                        _ => {
                            let (x, y) = (rng.random_range(0.0..1.0f32), rng.random_range(0.0..1.0f32));
                            let (x, y) = if x + y > 1.0 { (1.0 - x, 1.0 - y) } else { (x, y) };
                            t[0] + (t[1] - t[0]) * x + (t[2] - t[0]) * y
                        }
                    };
                    Ray::new(origin, target - origin)
                }
                3 => {
                    // Axis-aligned from a point snapped to a coarse grid (on box planes now and then).
                    let snap = |v: f32| (v * 4.0).round() / 4.0;
                    let o = Vec3::new(snap(origin.x), snap(origin.y), snap(origin.z));
                    let axis = rng.random_range(0..3);
                    let mut d = Vec3::ZERO;
                    d[axis] = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                    if rng.random_bool(0.5) {
                        // Negative zeros in the other components (their inverses are -inf).
                        for other in (0..3).filter(|&a| a != axis) {
                            d[other] = -0.0;
                        }
                    }
                    Ray::new(o, d)
                }
                _ => Ray::new(origin, random_point(rng, Vec3::ZERO, 1.0)),
            };
            if rng.random_bool(0.2) {
                ray.t_max = rng.random_range(0.0..2.0);
            }
            if rng.random_bool(0.1) {
                ray.t_min = rng.random_range(0.0..0.5);
            }
            ray
        })
        .collect()
}

/// Whether a Möller–Trumbore hit at `t` is numerically meaningless: its point lies outside the
/// triangle's box (beyond round-off). That happens on nearly degenerate (e.g. collinear)
/// triangles, whose tiny determinant turns noise into a "hit" anywhere along the ray; no
/// hierarchy can find those without testing every triangle, so the hit-for-hit checks exempt
/// them (and count them).
pub fn is_wild_hit(tri: &Tri, ray: &Ray, t: f32) -> bool {
    let bounds = Aabb::from_points(tri);
    let point = ray.at(t);
    let tolerance = 1e-5 * (bounds.extent().max_element() + bounds.min.abs().max(bounds.max.abs()).max_element());
    (point - bounds.min).min_element() < -tolerance || (bounds.max - point).min_element() < -tolerance
}

/// Every Möller–Trumbore hit of the ray: `(t, prim, wild)`.
fn all_hits(tris: &[Tri], ray: &Ray) -> Vec<(f32, u32, bool)> {
    tris.iter()
        .enumerate()
        .filter_map(|(prim, tri)| {
            let (t, _, _) = intersect_triangle(ray.o, ray.d, tri[0], tri[1], tri[2], ray.t_min, ray.t_max)?;
            Some((t, prim as u32, is_wild_hit(tri, ray, t)))
        })
        .collect()
}

/// Outcome of [`assert_matches_brute_force`].
#[derive(Clone, Copy, Debug, Default)]
pub struct MatchCounts {
    /// Rays whose closest hit matched brute force and was a hit.
    pub hits: usize,
    /// Rays where the tree differed from brute force only by missing wild hits.
    pub wild_exemptions: usize,
}

/// Checks the tree's closest hit and any hit against brute force for every ray: they must be
/// identical (prim, t, u, v), except that the tree may miss wild hits ([`is_wild_hit`]); then
/// it must still return a hit no farther than the closest sane one, and any-hit must agree
/// unless every hit is wild.
pub fn assert_matches_brute_force(bvh: &Bvh, tris: &[Tri], rays: &[Ray], label: &str) -> MatchCounts {
    let mut counts = MatchCounts::default();
    for ray in rays {
        let expected = brute_force_intersect(tris, ray);
        let got = bvh.intersect(tris, ray);
        let occluded = bvh.occluded(tris, ray);
        if expected == got && occluded == expected.is_some() {
            counts.hits += expected.is_some() as usize;
            continue;
        }
        // A difference is allowed only where brute force found a wild hit first.
        let hits = all_hits(tris, ray);
        let closest_sane = hits.iter().filter(|h| !h.2).min_by(|a, b| (a.0, a.1).partial_cmp(&(b.0, b.1)).unwrap());
        let expected_is_wild = expected.is_some_and(|e| is_wild_hit(&tris[e.prim as usize], ray, e.t));
        assert!(
            expected_is_wild,
            "{label}: tree and brute force differ on a sane hit for {ray:?}: brute {expected:?}, tree {got:?}, \
             occluded {occluded}"
        );
        if let Some(&(t, prim, _)) = closest_sane {
            let g = got.unwrap_or_else(|| panic!("{label}: tree missed the sane hit {prim} at {t} for {ray:?}"));
            assert!(
                hits.iter().any(|h| h.0 == g.t && h.1 == g.prim),
                "{label}: tree returned a hit brute force never saw: {g:?}"
            );
            assert!((g.t, g.prim) <= (t, prim), "{label}: tree's hit {g:?} is beyond the sane hit {prim} at {t}");
            assert!(occluded, "{label}: any-hit missed the sane hit {prim} at {t} for {ray:?}");
        }
        counts.wild_exemptions += 1;
    }
    counts
}
