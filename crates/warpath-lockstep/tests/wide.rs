//! The CUDA traversal of the compressed 8-wide BVH (`traversal/wide.cuh`, compiled as host C++
//! by this crate) against its specification, `warpath_bvh::wide::WideBvh::intersect` and
//! `occluded`, ray for ray: the same triangle, and `t`, `u`, `v` equal bit for bit (a miss:
//! `prim` -1 and `t` the ray's `t_max`); any hit exactly when the CPU says occluded, naming a
//! triangle the ray really hits. Trees: SAH and SBVH, optimal and greedy collapse. Meshes: the
//! Cornell box, a sphere, a random soup with degenerate, duplicate and coplanar triangles, an
//! axis-aligned grid hit by axis-aligned rays (NaN slabs), 300 identical triangles (ties to the
//! lowest id), one triangle, none. Rays: random origins inside and outside the bounds, random
//! and axis-aligned directions (with ±0 components), bounded segments, `t_min > 0`, rays aimed
//! at triangles, and diffuse bounces and shadow segments from the Cornell box's camera hits.
//! Each ray is traced twice more with the postponing path forced (every triangle group pushed
//! on the stack and tested when popped, as the persistent kernels may): the same hits. And all of
//! it again with the triangles in Woop's layout (`traversal/woop.cuh` against
//! `WideBvh::intersect_woop` / `occluded_woop`).

use glam::Vec3;
use std::f32::consts::PI;
use warpath_bvh::wide::{Collapse, WideBvh, WideTriangles, WoopTriangles, intersect_woop, woop_rows};
use warpath_bvh::{BuildKind, BuildOptions, Bvh};
use warpath_core::math::{Ray, intersect_triangle};
use warpath_cuda::wide_bvh::GpuWideBvh;
use warpath_cuda::{GpuHit, GpuRay};
use warpath_lockstep::wide::HostWideBvh;

/// SplitMix64.
struct Random(u64);

impl Random {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn float(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn index(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn in_box(&mut self, min: Vec3, max: Vec3) -> Vec3 {
        min + (max - min) * Vec3::new(self.float(), self.float(), self.float())
    }
    fn direction(&mut self) -> Vec3 {
        let z = 1.0 - 2.0 * self.float();
        let r = (1.0 - z * z).max(0.0).sqrt();
        let phi = 2.0 * PI * self.float();
        Vec3::new(r * phi.cos(), r * phi.sin(), z)
    }
}

fn bounds(tris: &[[Vec3; 3]]) -> (Vec3, Vec3) {
    if tris.is_empty() {
        return (Vec3::splat(-1.0), Vec3::splat(1.0));
    }
    tris.iter()
        .flatten()
        .fold((Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)), |(lo, hi), &p| (lo.min(p), hi.max(p)))
}

/// Rays of every kind the module docs list.
fn test_rays(tris: &[[Vec3; 3]], count: usize, seed: u64) -> Vec<Ray> {
    let mut random = Random(seed);
    let (lo, hi) = bounds(tris);
    let margin = (hi - lo).max(Vec3::splat(1e-3)) * 0.5;
    let axes = [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z];
    (0..count)
        .map(|i| {
            let origin = random.in_box(lo - margin, hi + margin);
            let mut ray = match i % 6 {
                // Aimed at a point of a triangle.
                0 | 1 if !tris.is_empty() => {
                    let [a, b, c] = tris[random.index(tris.len())];
                    let (u, v) = (random.float(), random.float());
                    let (u, v) = if u + v > 1.0 { (1.0 - u, 1.0 - v) } else { (u, v) };
                    let target = a + (b - a) * u + (c - a) * v;
                    Ray::new(origin, (target - origin).normalize_or(Vec3::X))
                }
                // Axis-aligned, some with -0 components.
                2 => {
                    let mut d = axes[random.index(6)];
                    if random.float() < 0.5 {
                        d = Vec3::new(d.x + -0.0, d.y * 1.0, d.z + -0.0)
                            * if random.float() < 0.5 { -1.0 } else { 1.0 };
                    }
                    Ray::new(origin, d)
                }
                _ => Ray::new(origin, random.direction()),
            };
            match i % 5 {
                0 => ray.t_max = (hi - lo).length() * random.float() * 0.5,
                1 => ray.t_min = (hi - lo).length() * random.float() * 0.1,
                _ => {}
            }
            ray
        })
        .collect()
}

/// Diffuse bounces and shadow segments from the hits of camera-like rays through the middle.
fn bounce_rays(tris: &[[Vec3; 3]], wide: &WideBvh, count: usize, seed: u64) -> Vec<Ray> {
    let mut random = Random(seed);
    let (lo, hi) = bounds(tris);
    let eye = (lo + hi) * 0.5 + Vec3::new(0.0, 0.0, (hi - lo).z * 1.5);
    let mut rays = Vec::new();
    while rays.len() < count {
        let target = random.in_box(lo, hi);
        let Some(hit) = wide.intersect(tris, &Ray::new(eye, (target - eye).normalize())) else {
            rays.push(Ray::new(eye, random.direction()));
            continue;
        };
        let p = eye + (target - eye).normalize() * hit.t;
        let [a, b, c] = tris[hit.prim as usize];
        let n = (b - a).cross(c - a).normalize_or(Vec3::Z);
        let d = (random.direction() + n).normalize_or(n);
        rays.push(Ray::new(p + n * 1e-4, d));
        let light = random.in_box(lo, hi);
        rays.push(Ray { o: p + n * 1e-4, d: light - p, t_min: 0.0, t_max: 0.999 });
    }
    rays
}

fn compare(label: &str, tris: &[[Vec3; 3]], wide: &WideBvh, rays: &[Ray]) {
    let host = HostWideBvh::new(&GpuWideBvh::from_wide(wide, tris).expect("conversion"));
    let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
    let closest = host.trace(&gpu_rays, false);
    let any = host.trace(&gpu_rays, true);
    // The postponing path (triangle groups pushed, tested when popped) finds the same hits.
    let postponed = host.trace_postponing(&gpu_rays, false, true);
    let postponed_any = host.trace_postponing(&gpu_rays, true, true);
    let mut hits = 0usize;
    for (i, ray) in rays.iter().enumerate() {
        let expected = match wide.intersect(tris, ray) {
            Some(hit) => {
                hits += 1;
                (hit.prim as i32, hit.t.to_bits(), hit.u.to_bits(), hit.v.to_bits())
            }
            None => (-1, ray.t_max.to_bits(), 0, 0),
        };
        let got: &GpuHit = &closest[i];
        let got_words = (got.prim, got.t.to_bits(), got.u.to_bits(), got.v.to_bits());
        assert_eq!(got_words, expected, "{label}: closest hit of ray {i} {ray:?}");
        let p = &postponed[i];
        assert_eq!((p.prim, p.t.to_bits(), p.u.to_bits(), p.v.to_bits()), expected, "{label}: postponed, ray {i}");
        assert_eq!(postponed_any[i].prim >= 0, any[i].prim >= 0, "{label}: postponed any hit of ray {i}");
        let occluded = wide.occluded(tris, ray);
        assert_eq!(any[i].prim >= 0, occluded, "{label}: any hit of ray {i} {ray:?}");
        if any[i].prim >= 0 {
            let [a, b, c] = tris[any[i].prim as usize];
            let real = intersect_triangle(ray.o, ray.d, a, b, c, ray.t_min, ray.t_max);
            assert_eq!(real.map(|(t, _, _)| t.to_bits()), Some(any[i].t.to_bits()), "{label}: occluder of ray {i}");
        }
    }
    eprintln!("{label}: {} rays, {hits} closest hits, all equal", rays.len());
    compare_woop(label, tris, wide, rays);
}

/// [`compare`] with the triangles in Woop's layout.
fn compare_woop(label: &str, tris: &[[Vec3; 3]], wide: &WideBvh, rays: &[Ray]) {
    let woop = WoopTriangles::new(wide, tris);
    let host = HostWideBvh::new(&GpuWideBvh::from_wide_with(wide, tris, WideTriangles::Woop).expect("conversion"));
    let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
    let closest = host.trace(&gpu_rays, false);
    let any = host.trace(&gpu_rays, true);
    let postponed = host.trace_postponing(&gpu_rays, false, true);
    let postponed_any = host.trace_postponing(&gpu_rays, true, true);
    let mut hits = 0usize;
    for (i, ray) in rays.iter().enumerate() {
        let expected = match wide.intersect_woop(&woop, ray) {
            Some(hit) => {
                hits += 1;
                (hit.prim as i32, hit.t.to_bits(), hit.u.to_bits(), hit.v.to_bits())
            }
            None => (-1, ray.t_max.to_bits(), 0, 0),
        };
        let got = &closest[i];
        assert_eq!((got.prim, got.t.to_bits(), got.u.to_bits(), got.v.to_bits()), expected, "{label} woop: ray {i}");
        let p = &postponed[i];
        assert_eq!((p.prim, p.t.to_bits(), p.u.to_bits(), p.v.to_bits()), expected, "{label} woop: postponed {i}");
        assert_eq!(postponed_any[i].prim >= 0, any[i].prim >= 0, "{label} woop: postponed any hit of ray {i}");
        assert_eq!(any[i].prim >= 0, wide.occluded_woop(&woop, ray), "{label} woop: any hit of ray {i} {ray:?}");
        if any[i].prim >= 0 {
            let rows = woop_rows(&tris[any[i].prim as usize]);
            let real = intersect_woop(&rows, ray.o, ray.d, ray.t_min, ray.t_max, ray.t_max);
            assert_eq!(real.map(|(t, _, _)| t.to_bits()), Some(any[i].t.to_bits()), "{label} woop: occluder {i}");
        }
    }
    eprintln!("{label} woop: {} rays, {hits} closest hits, all equal", rays.len());
}

fn check_mesh(name: &str, tris: &[[Vec3; 3]], rays: usize, seed: u64) {
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let (bvh, _) = Bvh::build(tris, &BuildOptions { kind, ..Default::default() });
        for collapse in [Collapse::Optimal, Collapse::Greedy] {
            let (wide, _) = WideBvh::from_binary(&bvh, tris, collapse);
            let mut all = test_rays(tris, rays, seed);
            if !tris.is_empty() {
                all.extend(bounce_rays(tris, &wide, rays / 2, seed ^ 0x55));
            }
            compare(&format!("{name} {kind:?} {collapse}"), tris, &wide, &all);
        }
    }
}

fn soup(count: usize, seed: u64) -> Vec<[Vec3; 3]> {
    let mut random = Random(seed);
    let mut tris: Vec<[Vec3; 3]> = (0..count)
        .map(|i| {
            let c = random.in_box(Vec3::splat(-10.0), Vec3::splat(10.0));
            let size = 0.02 + 1.5 * random.float().powi(3);
            match i % 11 {
                0 => [c, c, c + Vec3::X * size],                                        // degenerate
                1 => [c, c + Vec3::X * size, c + Vec3::X * 2.0 * size],                 // collinear
                2 => [c, c + Vec3::new(size, 0.0, 0.0), c + Vec3::new(0.0, size, 0.0)], // axis plane
                _ => [c + random.direction() * size, c + random.direction() * size, c + random.direction() * size],
            }
        })
        .collect();
    let copies: Vec<[Vec3; 3]> = tris.iter().step_by(17).copied().collect();
    tris.extend(copies);
    tris
}

#[test]
fn cornell_box() {
    let scene = warpath_scene::builtin::cornell();
    check_mesh("cornell", &scene.triangle_soup(), 20_000, 1);
}

#[test]
fn sphere() {
    let mesh = warpath_scene::builtin::sphere_mesh(5);
    let tris: Vec<[Vec3; 3]> = mesh.triangles.iter().map(|f| f.map(|i| mesh.positions[i as usize])).collect();
    assert!(tris.len() > 5_000);
    check_mesh("sphere", &tris, 20_000, 2);
}

#[test]
fn random_soup() {
    check_mesh("soup", &soup(20_000, 3), 30_000, 3);
}

#[test]
fn axis_aligned_grid_and_rays() {
    let mut tris = Vec::new();
    for i in 0..20 {
        for j in 0..20 {
            let p = Vec3::new(i as f32, j as f32, 0.0);
            tris.push([p, p + Vec3::X, p + Vec3::Y]);
            tris.push([p + Vec3::X, p + Vec3::X + Vec3::Y, p + Vec3::Y]);
            tris.push([p, p + Vec3::Z, p + Vec3::X]); // walls in the xz planes
        }
    }
    let mut rays = Vec::new();
    for i in 0..40 {
        for j in 0..40 {
            let (x, y) = (i as f32 * 0.5, j as f32 * 0.5); // on grid lines and planes half the time
            rays.push(Ray::new(Vec3::new(x, y, 5.0), -Vec3::Z));
            rays.push(Ray::new(Vec3::new(x, -1.0, 0.0), Vec3::Y));
            rays.push(Ray::new(Vec3::new(-1.0, y, 0.5), Vec3::X));
            rays.push(Ray::new(Vec3::new(x, y, -3.0), Vec3::new(0.0, -0.0, 1.0)));
        }
    }
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let (bvh, _) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
        for collapse in [Collapse::Optimal, Collapse::Greedy] {
            let (wide, _) = WideBvh::from_binary(&bvh, &tris, collapse);
            compare(&format!("grid {kind:?} {collapse}"), &tris, &wide, &rays);
        }
    }
}

#[test]
fn identical_triangles_tie_to_the_lowest_id() {
    let tri = [Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
    let tris = vec![tri; 300];
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
    let rays: Vec<Ray> = (0..100).map(|i| Ray::new(Vec3::new(0.001 * i as f32, -0.2, 2.0), -Vec3::Z)).collect();
    compare("identical", &tris, &wide, &rays);
    let host = HostWideBvh::new(&GpuWideBvh::from_wide(&wide, &tris).unwrap());
    let hits = host.trace(&rays.iter().map(GpuRay::from).collect::<Vec<_>>(), false);
    assert!(hits.iter().all(|h| h.prim == 0), "ties go to triangle 0");
    let woop = HostWideBvh::new(&GpuWideBvh::from_wide_with(&wide, &tris, WideTriangles::Woop).unwrap());
    let hits = woop.trace(&rays.iter().map(GpuRay::from).collect::<Vec<_>>(), false);
    assert!(hits.iter().all(|h| h.prim == 0), "Woop: ties go to triangle 0");
}

#[test]
fn tiny_and_empty_meshes() {
    let one = vec![[Vec3::ZERO, Vec3::X, Vec3::Y]];
    check_mesh("one triangle", &one, 2_000, 4);
    check_mesh("five triangles", &soup(5, 5), 2_000, 5);
    check_mesh("no triangles", &[], 500, 6);
}

/// The harness's own check: a tree whose boxes are damaged (the root's maximum planes pulled
/// down to its minimum) must give hits that differ from the specification's.
#[test]
fn damaged_boxes_are_caught() {
    let tris = warpath_scene::builtin::cornell().triangle_soup();
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
    let mut layout = GpuWideBvh::from_wide(&wide, &tris).unwrap();
    layout.nodes[0].q_hi = layout.nodes[0].q_lo;
    let rays = test_rays(&tris, 2_000, 7);
    let hits = HostWideBvh::new(&layout).trace(&rays.iter().map(GpuRay::from).collect::<Vec<_>>(), false);
    let differing = rays
        .iter()
        .zip(&hits)
        .filter(|(ray, hit)| wide.intersect(&tris, ray).map_or(-1, |h| h.prim as i32) != hit.prim)
        .count();
    assert!(differing > 100, "only {differing} of {} rays changed", rays.len());
}

/// The same for the Woop layout: damaged boxes, and rows of the wrong triangle, are caught.
#[test]
fn damaged_woop_trees_are_caught() {
    let tris = warpath_scene::builtin::cornell().triangle_soup();
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
    let woop = WoopTriangles::new(&wide, &tris);
    let rays = test_rays(&tris, 2_000, 8);
    let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
    let differing = |layout: &GpuWideBvh| {
        let hits = HostWideBvh::new(layout).trace(&gpu_rays, false);
        rays.iter()
            .zip(&hits)
            .filter(|(ray, hit)| wide.intersect_woop(&woop, ray).map_or(-1, |h| h.prim as i32) != hit.prim)
            .count()
    };
    let layout = GpuWideBvh::from_wide_with(&wide, &tris, WideTriangles::Woop).unwrap();
    assert_eq!(differing(&layout), 0);
    let mut boxes = layout.clone();
    boxes.nodes[0].q_hi = boxes.nodes[0].q_lo;
    assert!(differing(&boxes) > 100, "damaged boxes");
    let mut rows = layout.clone();
    rows.triangles.rotate_left(3);
    assert!(differing(&rows) > 100, "rows shifted by one reference");
}
