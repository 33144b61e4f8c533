//! The wide BVH's triangles in Woop's layout (`warpath_bvh::wide::WoopTriangles`,
//! `WideBvh::intersect_woop` / `occluded_woop`):
//! - the rows map the triangle to the unit triangle (`v0, v1, v2` to `(0,0,0), (1,0,0), (0,1,0)`,
//!   the normal to `w`), a degenerate triangle gets zero rows and is never hit;
//! - the Woop traversal returns exactly what Woop brute force returns (`woop_brute_force_intersect`:
//!   the same prim and `t`, `u`, `v` bits), except hits whose `t` lies outside the triangle's box
//!   by round-off (no box hierarchy promises those; counted, and then the tree's hit must be no
//!   farther than the closest reachable one);
//! - and Möller–Trumbore's closest hit (`brute_force_intersect`, which the plain traversal
//!   returns) within round-off: both miss, or both hit at `t` within 1e-4 relative (a shared edge
//!   or a duplicate may name another triangle at that `t`); the rays where the two tests disagree
//!   (edge and vertex hits rounded to opposite sides, nearly degenerate triangles) are counted and
//!   bounded per scene.
//!
//! Meshes: random soups (degenerate, duplicate and coplanar triangles), clustered meshes, thin
//! slivers, a sphere (camera rays from outside and inside), the Cornell box with camera and
//! bounce rays, an axis-aligned grid with axis-aligned rays, a 50k-triangle mesh.

mod common;

use common::*;
use glam::Vec3;
use proptest::prelude::*;
use warpath_bvh::wide::{Collapse, WideBvh, WoopTriangles, intersect_woop, woop_brute_force_intersect, woop_rows};
use warpath_bvh::{BuildKind, BuildOptions, Bvh, brute_force_intersect};
use warpath_core::math::Ray;

/// The ray's interval through the triangle's box in `f64` (clamped to the ray's), or None.
fn box_interval(tri: &Tri, ray: &Ray) -> Option<(f64, f64)> {
    let (mut near, mut far) = (ray.t_min as f64, ray.t_max as f64);
    for axis in 0..3 {
        let lo = tri.iter().map(|v| v[axis]).fold(f32::INFINITY, f32::min) as f64;
        let hi = tri.iter().map(|v| v[axis]).fold(f32::NEG_INFINITY, f32::max) as f64;
        let (o, d) = (ray.o[axis] as f64, ray.d[axis] as f64);
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - o) / d, (hi - o) / d);
        near = near.max(a.min(b));
        far = far.min(a.max(b));
    }
    (near <= far).then_some((near, far))
}

/// A Woop hit the tree need not find: its `t` is outside the ray's interval in the triangle's box.
fn unreachable(tri: &Tri, ray: &Ray, t: f32) -> bool {
    box_interval(tri, ray).is_none_or(|(near, far)| (t as f64) < near || (t as f64) > far)
}

/// Whether the ray meets the triangle's plane (in `f64`) outside it or within the two tests'
/// round-off of an edge (in barycentrics), within their round-off of `t_min` or `t_max` (an
/// origin on the plane: `t` about 0), or nearly parallel to it: where two tests that round
/// differently may disagree. Möller–Trumbore's barycentrics err by about
/// `ε |o - v0| |d| (|e1| + |e2|) / |det|`, Woop's by about `ε (|o| + |v0|) (|e1| + |e2|) / |n|`
/// (rows of size `|e| / |n|` applied to coordinates); the bound is 1e-4 plus 256 times both
/// (`t`: [`t_slack`]).
fn on_edge_or_wild(tri: &Tri, ray: &Ray) -> bool {
    let [v0, v1, v2] = tri.map(|v| v.as_dvec3());
    let (o, d) = (ray.o.as_dvec3(), ray.d.as_dvec3());
    let (e1, e2) = (v1 - v0, v2 - v0);
    let n = e1.cross(e2).length();
    let p = d.cross(e2);
    let det = e1.dot(p);
    let grazing = det.abs() <= 1e-3 * n * d.length();
    let u = (o - v0).dot(p) / det;
    let q = (o - v0).cross(e1);
    let v = d.dot(q) / det;
    let t = e2.dot(q) / det;
    let edges = e1.length() + e2.length();
    let moller = (o - v0).length() * d.length() * edges / det.abs();
    let woop = (o.abs().max_element() + v0.abs().max_element()) * edges / n;
    let tolerance = 1e-4 + 2f64.powi(-16) * (moller + woop);
    let slack = t_slack(tri, ray) + 1e-4 * t.abs();
    let at_bound = (t - ray.t_min as f64).abs() <= slack || (t - ray.t_max as f64).abs() <= slack;
    grazing || at_bound || !(u.min(v).min(1.0 - u - v) >= tolerance)
}

/// 256 ε times the two tests' error scales of `t`: Woop's `t` is the difference of two dot
/// products of the size of the coordinates, so its error is about `ε (|o| + |v0|) / |d · n̂|`
/// (absolute in the coordinates, growing as the ray grazes the plane: short rays leaving a
/// nearby surface show it); Möller–Trumbore's about `ε |o - v0| |e1| |e2| / |det|` (slivers).
fn t_slack(tri: &Tri, ray: &Ray) -> f64 {
    let [v0, v1, v2] = tri.map(|v| v.as_dvec3());
    let (o, d) = (ray.o.as_dvec3(), ray.d.as_dvec3());
    let (e1, e2) = (v1 - v0, v2 - v0);
    let normal = e1.cross(e2).normalize();
    let woop = 2.0 * o.abs().max_element().max(v0.abs().max_element()) / d.dot(normal).abs();
    let moller = (o - v0).length() * e1.length() * e2.length() / e1.dot(d.cross(e2)).abs();
    2f64.powi(-16) * (woop + moller)
}

/// What the checks of one mesh found.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    rays: usize,
    hits: usize,
    /// Woop traversal != Woop brute force, allowed because brute force's hit is unreachable.
    exemptions: usize,
    /// Woop traversal and Möller–Trumbore brute force disagree beyond round-off (on an edge, or a
    /// nearly degenerate triangle).
    moller_differs: usize,
    /// The same `t` (within 1e-4) on another triangle (shared edges, duplicates).
    other_prim: usize,
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1e-3)
}

/// Whether two hits on `tri` agree to the round-off of the two tests: `t` within 1e-4 relative
/// or within [`t_slack`].
fn close_on(tri: &Tri, ray: &Ray, a: f32, b: f32) -> bool {
    close(a, b) || ((a - b).abs() as f64) <= t_slack(tri, ray)
}

fn check_rays(wide: &WideBvh, tris: &[Tri], rays: &[Ray], label: &str) -> Counts {
    let woop = WoopTriangles::new(wide, tris);
    assert_eq!(woop.rows.len(), wide.prim_indices.len());
    assert_eq!(woop.memory_bytes(), 48 * wide.prim_indices.len());
    let mut counts = Counts { rays: rays.len(), ..Counts::default() };
    for ray in rays {
        let got = wide.intersect_woop(&woop, ray);
        let (counted, work) = wide.intersect_woop_counted(&woop, ray);
        assert_eq!(got, counted, "{label}: counted traversal differs");
        assert!(work.nodes >= 1 || wide.is_empty(), "{label}: no node visited");
        let occluded = wide.occluded_woop(&woop, ray);
        let expected = woop_brute_force_intersect(tris, ray);
        if got == expected && occluded == expected.is_some() {
            counts.hits += got.is_some() as usize;
        } else {
            let e = expected.unwrap_or_else(|| panic!("{label}: tree found {got:?} where brute force has none"));
            assert!(
                unreachable(&tris[e.prim as usize], ray, e.t),
                "{label}: Woop tree {got:?} (occluded {occluded}) and Woop brute force {expected:?} differ on a \
                 reachable hit for {ray:?}"
            );
            // Then the tree's hit is a real Woop hit no farther than every reachable one.
            let reachable = tris
                .iter()
                .enumerate()
                .filter_map(|(prim, tri)| {
                    let (t, _, _) = intersect_woop(&woop_rows(tri), ray.o, ray.d, ray.t_min, ray.t_max, ray.t_max)?;
                    (!unreachable(tri, ray, t)).then_some((t, prim as u32))
                })
                .min_by(|a, b| a.partial_cmp(b).unwrap());
            if let Some((t, prim)) = reachable {
                let g = got.unwrap_or_else(|| panic!("{label}: tree missed the reachable hit {prim} at {t}"));
                assert!((g.t, g.prim) <= (t, prim), "{label}: tree hit {g:?} beyond the reachable {prim} at {t}");
                let rows = woop_rows(&tris[g.prim as usize]);
                let direct = intersect_woop(&rows, ray.o, ray.d, ray.t_min, ray.t_max, ray.t_max);
                assert_eq!(direct, Some((g.t, g.u, g.v)), "{label}: the tree's hit is not its triangle's");
                assert!(occluded, "{label}: any hit missed the reachable hit {prim} at {t}");
            }
            counts.exemptions += 1;
        }
        let moller = brute_force_intersect(tris, ray);
        match (got, moller) {
            (None, None) => {}
            (Some(w), Some(m)) if close_on(&tris[m.prim as usize], ray, w.t, m.t) => {
                counts.other_prim += (w.prim != m.prim) as usize
            }
            _ => {
                // The nearer answer is a triangle the other test rejected: an edge or vertex hit
                // rounded to the other side, or a meaningless hit on a nearly degenerate triangle.
                let nearer = [got, moller].into_iter().flatten().min_by(|a, b| a.t.total_cmp(&b.t)).unwrap();
                assert!(
                    on_edge_or_wild(&tris[nearer.prim as usize], ray),
                    "{label}: Woop {got:?} and Möller–Trumbore {moller:?} differ on an interior hit of {ray:?}"
                );
                counts.moller_differs += 1;
            }
        }
    }
    counts
}

/// Both builders, both collapses; the exemptions under 2% of the rays, the Möller–Trumbore
/// differences under `1 / max_fraction`.
fn check_all(tris: &[Tri], rays: &[Ray], options: BuildOptions, label: &str, max_fraction: usize) -> Counts {
    let mut total = Counts::default();
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let (bvh, _) = Bvh::build(tris, &BuildOptions { kind, ..options });
        for collapse in [Collapse::Optimal, Collapse::Greedy] {
            let (wide, _) = WideBvh::from_binary(&bvh, tris, collapse);
            let label = format!("{label} {kind} {collapse}");
            let counts = check_rays(&wide, tris, rays, &label);
            if counts.exemptions + counts.moller_differs + counts.other_prim > 0 {
                println!("{label}: {counts:?}");
            }
            assert!(counts.exemptions * 50 <= rays.len(), "{label}: {counts:?}");
            assert!(counts.moller_differs * max_fraction <= rays.len(), "{label}: {counts:?}");
            total.rays += counts.rays;
            total.hits += counts.hits;
            total.exemptions += counts.exemptions;
            total.moller_differs += counts.moller_differs;
            total.other_prim += counts.other_prim;
        }
    }
    total
}

#[test]
fn rows_map_the_triangle_to_the_unit_triangle() {
    let tris = [
        [Vec3::new(0.3, -1.2, 2.0), Vec3::new(1.7, 0.4, 2.5), Vec3::new(-0.2, 0.9, 1.1)],
        [Vec3::new(100.0, 200.0, -50.0), Vec3::new(100.5, 200.0, -50.0), Vec3::new(100.0, 200.25, -49.0)],
        [Vec3::ZERO, Vec3::X, Vec3::Y],
    ];
    for tri in &tris {
        let rows = woop_rows(tri);
        let apply = |row: &[f32; 4], p: Vec3| {
            row.map(f64::from)[..3].iter().zip(p.as_dvec3().to_array()).map(|(a, b)| a * b).sum::<f64>() + row[3] as f64
        };
        let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
        let scale = tri.iter().map(|v| v.abs().max_element()).fold(1.0f32, f32::max) as f64;
        let tolerance = 1e-6 * scale / (tri[1] - tri[0]).length().min((tri[2] - tri[0]).length()) as f64;
        for (p, expected) in [(tri[0], [0.0, 0.0]), (tri[1], [1.0, 0.0]), (tri[2], [0.0, 1.0])] {
            assert!((apply(&rows[1], p) - expected[0]).abs() < tolerance, "{tri:?}: u of {p}");
            assert!((apply(&rows[2], p) - expected[1]).abs() < tolerance, "{tri:?}: v of {p}");
            // The t-row gives `w - a·p`: zero on the plane.
            let w = rows[0][3] as f64 - (apply(&rows[0], p) - rows[0][3] as f64);
            assert!(w.abs() < tolerance, "{tri:?}: plane offset {w} at {p}");
        }
        // One unit of w along the normal.
        let q = tri[0] + n;
        let w = rows[0][3] as f64 - (apply(&rows[0], q) - rows[0][3] as f64);
        assert!((w + 1.0).abs() < tolerance, "{tri:?}: w {w} one normal off the plane");
        // A ray through the centroid hits at u = v = 1/3 where Möller–Trumbore hits.
        let centroid = (tri[0] + tri[1] + tri[2]) / 3.0;
        let ray = Ray::new(centroid + n.normalize() * 2.0 + (tri[1] - tri[0]) * 0.1, -n.normalize());
        let (t, u, v) = intersect_woop(&rows, ray.o, ray.d, 0.0, f32::INFINITY, f32::INFINITY).expect("a hit");
        let (tm, um, vm) = warpath_core::math::intersect_triangle(ray.o, ray.d, tri[0], tri[1], tri[2], 0.0, 10.0)
            .expect("Möller–Trumbore's hit");
        assert!(
            close(t, tm) && (u - um).abs() < 1e-5 && (v - vm).abs() < 1e-5,
            "{tri:?}: {t} {u} {v} vs {tm} {um} {vm}"
        );
        // Bounds: t_min, t_max and the best hit's t reject; the far side of an edge misses.
        assert_eq!(intersect_woop(&rows, ray.o, ray.d, t, f32::INFINITY, f32::INFINITY), None);
        assert_eq!(intersect_woop(&rows, ray.o, ray.d, 0.0, t, f32::INFINITY), None);
        assert_eq!(intersect_woop(&rows, ray.o, ray.d, 0.0, f32::INFINITY, t * 0.999), None);
        assert!(intersect_woop(&rows, ray.o, ray.d, 0.0, f32::INFINITY, t).is_some(), "a tie is kept");
        let outside = ray.o + (tri[1] - tri[0]) * 2.0;
        assert_eq!(intersect_woop(&rows, outside, ray.d, 0.0, f32::INFINITY, f32::INFINITY), None);
    }
}

#[test]
fn degenerate_and_non_finite_triangles_get_zero_rows_and_are_never_hit() {
    let a = Vec3::new(0.5, 0.2, -0.1);
    for tri in [
        [a, a, a],
        [a, a, a + Vec3::X],
        [a, a + Vec3::Y, a + Vec3::Y * 2.0],
        [Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X, Vec3::Y],
        [Vec3::ZERO, Vec3::new(0.0, f32::INFINITY, 0.0), Vec3::Z],
        [Vec3::ZERO, Vec3::X * 1e-25, Vec3::Y * 1e-25],
    ] {
        assert_eq!(woop_rows(&tri), [[0.0; 4]; 3], "{tri:?}");
        for d in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(0.3, -0.4, 0.5)] {
            assert_eq!(intersect_woop(&woop_rows(&tri), a - d, d, 0.0, f32::INFINITY, f32::INFINITY), None);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    // A sixth of `test_rays` aim at edges and vertices, where the two tests may differ.
    fn random_soups_match_woop_brute_force(seed in any::<u64>(), count in 1usize..300, leaf in 1usize..8) {
        let mut rng = rng(seed);
        let tris = random_soup(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 200);
        check_all(&tris, &rays, BuildOptions { max_leaf_size: leaf, ..Default::default() }, "soup", 6);
    }

    #[test]
    fn clustered_meshes_match_woop_brute_force(seed in any::<u64>(), count in 1usize..300) {
        let mut rng = rng(seed);
        let tris = clustered_mesh(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 200);
        check_all(&tris, &rays, BuildOptions::default(), "clustered", 6);
    }

    #[test]
    fn thin_triangles_match_woop_brute_force(seed in any::<u64>(), count in 1usize..200) {
        let mut rng = rng(seed);
        let tris = thin_diagonal_triangles(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 150);
        check_all(&tris, &rays, BuildOptions { sbvh_alpha: 0.0, ..Default::default() }, "thin", 6);
    }
}

/// Pinhole-camera rays through a `n x n` grid from `eye` toward `target`.
fn camera_rays(eye: Vec3, target: Vec3, fov: f32, n: usize) -> Vec<Ray> {
    let forward = (target - eye).normalize();
    let right = forward.cross(Vec3::Y).normalize();
    let up = right.cross(forward);
    let h = (fov.to_radians() * 0.5).tan();
    let mut rays = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            let x = (2.0 * (i as f32 + 0.5) / n as f32 - 1.0) * h;
            let y = (2.0 * (j as f32 + 0.5) / n as f32 - 1.0) * h;
            rays.push(Ray::new(eye, forward + right * x + up * y));
        }
    }
    rays
}

/// Diffuse bounces and shadow segments from the primary rays' hits (Möller–Trumbore's).
fn bounce_rays(tris: &[Tri], primary: &[Ray], light: Vec3, seed: u64) -> Vec<Ray> {
    use rand::RngExt;
    let mut rng = rng(seed);
    let mut rays = Vec::new();
    for ray in primary {
        if let Some(hit) = brute_force_intersect(tris, ray) {
            let p = ray.at(hit.t);
            let d = Vec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
            rays.push(Ray { o: p, d, t_min: 1e-4, t_max: f32::INFINITY });
            rays.push(Ray { o: p, d: light - p, t_min: 1e-4, t_max: 1.0 - 1e-4 });
        }
    }
    rays
}

#[test]
fn sphere_camera_and_bounce_rays_agree_with_moller_trumbore() {
    let tris = uv_sphere(Vec3::new(0.2, -0.1, 0.3), 1.0, 40, 64);
    let mut rays = camera_rays(Vec3::new(0.5, 1.0, 4.0), Vec3::ZERO, 40.0, 48);
    rays.extend(camera_rays(Vec3::new(0.2, -0.1, 0.3), Vec3::new(1.0, 0.3, 0.0), 120.0, 40));
    let primary = rays.clone();
    rays.extend(bounce_rays(&tris, &primary, Vec3::new(0.0, 3.0, 0.0), 5));
    // A closed sphere: camera rays from inside and bounces meet edges only by chance.
    let counts = check_all(&tris, &rays, BuildOptions::default(), "sphere", 200);
    println!("sphere: {counts:?}");
    assert!(counts.hits * 2 > counts.rays, "{counts:?}");
}

#[test]
fn axis_aligned_grid_with_axis_aligned_rays() {
    let mut tris = Vec::new();
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..4 {
                let p = Vec3::new(i as f32, j as f32, k as f32);
                for (a, b) in [(Vec3::X, Vec3::Y), (Vec3::Y, Vec3::Z), (Vec3::Z, Vec3::X)] {
                    tris.push([p, p + a, p + a + b]);
                    tris.push([p, p + a + b, p + b]);
                }
            }
        }
    }
    let mut rays = Vec::new();
    for i in -1..6 {
        for j in -1..6 {
            // Off the grid lines: every ray meets triangle interiors.
            let (x, y) = (i as f32 * 0.5 + 0.13, j as f32 * 0.5 + 0.29);
            for (o, d) in [
                (Vec3::new(x, y, -1.0), Vec3::Z),
                (Vec3::new(x, y, 6.0), -Vec3::Z),
                (Vec3::new(-1.0, x, y), Vec3::X),
                (Vec3::new(x, 6.0, y), -Vec3::Y),
                (Vec3::new(x, -1.0, y), Vec3::new(-0.0, 1.0, 0.0)),
            ] {
                rays.push(Ray::new(o, d));
            }
        }
    }
    let counts = check_all(&tris, &rays, BuildOptions::default(), "grid", 1_000_000);
    assert!(counts.hits > 4 * 100, "{counts:?}");
}

#[test]
fn large_mesh_agrees_with_the_plain_traversal() {
    let mut tris = uv_sphere(Vec3::ZERO, 2.0, 100, 160);
    tris.extend(uv_sphere(Vec3::new(0.3, 0.1, -0.2), 0.7, 60, 100));
    tris.extend(thin_diagonal_triangles(&mut rng(5), 5000).iter().map(|t| t.map(|v| v * 1.5)));
    let rays = test_rays(&mut rng(1234), &tris, 400);
    let counts = check_all(&tris, &rays, BuildOptions::default(), "large", 20);
    assert!(counts.hits > counts.rays / 4, "{counts:?}");
    // The plain traversal's hits to round-off, ray for ray, on the same tree.
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
    let woop = WoopTriangles::new(&wide, &tris);
    let agreeing = rays
        .iter()
        .filter(|ray| match (wide.intersect(&tris, ray), wide.intersect_woop(&woop, ray)) {
            (None, None) => true,
            (Some(p), Some(w)) => close(p.t, w.t),
            _ => false,
        })
        .count();
    assert!(agreeing * 50 >= rays.len() * 49, "{agreeing} of {} rays agree", rays.len());
}
