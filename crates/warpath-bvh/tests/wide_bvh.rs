//! The compressed 8-wide BVH (`warpath_bvh::wide`): its traversal returns brute force's closest
//! hit and any-hit answer (and so the binary traversal's) for random and structured rays over
//! random soups, clustered meshes, thin slivers, a sphere, the Cornell box and a 50k-triangle
//! mesh, for both collapses over both builders; and its structure: every reference once, leaf
//! ranges tiling the index array, children blocks contiguous, meta bytes well formed, stats
//! consistent, the optimal collapse's SAH cost never above the greedy one's.

mod common;

use common::*;
use glam::{Mat4, Vec3};
use proptest::prelude::*;
use warpath_bvh::wide::{Collapse, WIDTH, WideBvh, WideChild, WideStats};
use warpath_bvh::{BuildKind, BuildOptions, Bvh, brute_force_intersect};
use warpath_core::math::{Ray, intersect_triangle};

const KINDS: [BuildKind; 2] = [BuildKind::Sah, BuildKind::Sbvh];
const COLLAPSES: [Collapse; 2] = [Collapse::Optimal, Collapse::Greedy];

/// Rays where the wide tree matched brute force with a hit, exemptions, and binary differences.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    hits: usize,
    /// Rays where the wide tree differed from brute force only by missing unreachable hits.
    exemptions: usize,
    /// Rays where the binary traversal's answer differs from brute force's (and the wide tree's).
    binary_differs: usize,
}

/// Whether the ray, in `f64`, misses the triangle's box (or only touches it): a Möller–Trumbore
/// "hit" on an edge then lies outside the box by round-off, and no box hierarchy promises to find
/// it (the binary tree neither; see the crate docs).
fn misses_box_exactly(tri: &Tri, ray: &Ray) -> bool {
    let (mut near, mut far) = (ray.t_min as f64, ray.t_max as f64);
    for axis in 0..3 {
        let lo = tri.iter().map(|v| v[axis]).fold(f32::INFINITY, f32::min) as f64;
        let hi = tri.iter().map(|v| v[axis]).fold(f32::NEG_INFINITY, f32::max) as f64;
        let (o, d) = (ray.o[axis] as f64, ray.d[axis] as f64);
        if d == 0.0 {
            if o < lo || o > hi {
                return true;
            }
            continue;
        }
        let (a, b) = ((lo - o) / d, (hi - o) / d);
        near = near.max(a.min(b));
        far = far.min(a.max(b));
    }
    near >= far
}

/// A hit no hierarchy is bound to find: wild (`common::is_wild_hit`) or outside the box.
fn unreachable_hit(tri: &Tri, ray: &Ray, t: f32) -> bool {
    is_wild_hit(tri, ray, t) || misses_box_exactly(tri, ray)
}

/// The wide tree's closest hit and any hit must equal brute force's (prim, t, u, v), except that
/// it may miss unreachable hits (numerically meaningless ones on nearly degenerate triangles, or
/// edge hits outside the triangle's box by round-off); then it must still return a hit no farther
/// than the closest reachable one. The binary traversal's differences are counted.
fn assert_wide_matches(wide: &WideBvh, bvh: &Bvh, tris: &[Tri], rays: &[Ray], label: &str) -> Counts {
    let mut counts = Counts::default();
    for ray in rays {
        let expected = brute_force_intersect(tris, ray);
        let got = wide.intersect(tris, ray);
        let occluded = wide.occluded(tris, ray);
        counts.binary_differs += (bvh.intersect(tris, ray) != expected) as usize;
        if expected == got && occluded == expected.is_some() {
            counts.hits += expected.is_some() as usize;
            continue;
        }
        let expected_unreachable = expected.is_some_and(|e| unreachable_hit(&tris[e.prim as usize], ray, e.t));
        assert!(
            expected_unreachable,
            "{label}: wide tree and brute force differ on a sane hit for {ray:?}: brute {expected:?}, wide {got:?}, \
             occluded {occluded}"
        );
        let hits: Vec<(f32, u32, bool)> = tris
            .iter()
            .enumerate()
            .filter_map(|(prim, tri)| {
                let (t, _, _) = intersect_triangle(ray.o, ray.d, tri[0], tri[1], tri[2], ray.t_min, ray.t_max)?;
                Some((t, prim as u32, unreachable_hit(tri, ray, t)))
            })
            .collect();
        let closest_sane = hits.iter().filter(|h| !h.2).min_by(|a, b| (a.0, a.1).partial_cmp(&(b.0, b.1)).unwrap());
        if let Some(&(t, prim, _)) = closest_sane {
            let g = got.unwrap_or_else(|| panic!("{label}: wide tree missed the sane hit {prim} at {t} for {ray:?}"));
            assert!(hits.iter().any(|h| h.0 == g.t && h.1 == g.prim), "{label}: unknown hit {g:?}");
            assert!((g.t, g.prim) <= (t, prim), "{label}: wide hit {g:?} beyond the sane hit {prim} at {t}");
            assert!(occluded, "{label}: any-hit missed the sane hit {prim} at {t} for {ray:?}");
        }
        counts.exemptions += 1;
    }
    counts
}

/// Structural checks of a wide tree made from `bvh`; returns nothing, panics on a violation.
fn assert_structure(wide: &WideBvh, stats: &WideStats, bvh: &Bvh, label: &str) {
    // Every reference of the binary tree exactly once (as a multiset).
    let mut a = wide.prim_indices.clone();
    let mut b = bvh.prim_indices.clone();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "{label}: references differ from the binary tree's");

    let mut leaf_ranges = Vec::new();
    let mut parents = vec![0usize; wide.nodes.len()];
    let mut leaves = 0;
    let mut occupied = 0;
    for (index, node) in wide.nodes.iter().enumerate() {
        let mut internal = 0u32;
        let mut tri_end = node.tri_base;
        for slot in 0..WIDTH {
            let meta = node.meta[slot];
            let is_internal = node.imask & (1 << slot) != 0;
            occupied += (meta != 0) as usize;
            if meta == 0 {
                assert!(!is_internal, "{label}: empty slot in imask");
                continue;
            }
            // The paper's test for an internal child: bit index (low 5 bits) >= 24.
            assert_eq!((meta & 0x1f) >= 24, is_internal, "{label}: meta {meta:#010b} vs imask");
            match node.child(slot) {
                WideChild::Node(child) => {
                    assert_eq!(meta, 0b001_00000 | (24 + slot as u8), "{label}: internal meta");
                    assert_eq!(child, node.child_base + internal, "{label}: children not contiguous");
                    internal += 1;
                    assert!(child as usize > index, "{label}: child before parent");
                    parents[child as usize] += 1;
                }
                WideChild::Leaf { first, count } => {
                    assert!([0b001, 0b011, 0b111].contains(&(meta >> 5)), "{label}: unary count {meta:#b}");
                    // Leaves follow each other in slot order from tri_base.
                    assert_eq!(first, tri_end, "{label}: leaf triangles not contiguous in slot order");
                    tri_end = first + count;
                    assert!(first + count - node.tri_base <= 24, "{label}: triangle group beyond 24");
                    leaf_ranges.push((first, count));
                    leaves += 1;
                }
                WideChild::Empty => unreachable!(),
            }
        }
        assert_eq!(internal, node.imask.count_ones(), "{label}");
    }
    assert_eq!(parents[0], 0, "{label}: the root has a parent");
    assert!(parents[1..].iter().all(|&p| p == 1), "{label}: a node is not referenced exactly once");
    leaf_ranges.sort_unstable();
    let mut next = 0;
    for (first, count) in leaf_ranges {
        assert_eq!(first, next, "{label}: leaf ranges do not tile prim_indices");
        next = first + count;
    }
    assert_eq!(next as usize, wide.prim_indices.len(), "{label}");

    assert_eq!(stats.node_count, wide.nodes.len(), "{label}");
    assert_eq!(stats.leaf_count, leaves, "{label}");
    assert_eq!(stats.references, wide.prim_indices.len(), "{label}");
    assert_eq!(stats.memory_bytes, 80 * wide.nodes.len() + 4 * wide.prim_indices.len(), "{label}");
    assert_eq!(stats.binary_memory_bytes, 32 * bvh.nodes.len() + 4 * bvh.prim_indices.len(), "{label}");
    assert!((stats.mean_children - occupied as f64 / wide.nodes.len() as f64).abs() < 1e-12, "{label}");
    assert_eq!(stats.max_depth, wide.max_depth(), "{label}");
    assert_eq!(stats.quantized_sah_cost, wide.sah_cost(1.0, 0.3), "{label}");
    if !bvh.is_empty() {
        // Quantization only grows boxes (slightly).
        assert!(stats.quantized_sah_cost >= stats.sah_cost * 0.999, "{label}: {stats}");
        assert!(stats.quantized_sah_cost <= stats.sah_cost * 1.5, "{label}: {stats}");
    }
}

/// Builds both wide trees over both binary trees; checks structure and hits. Returns matched hits.
fn check_all(tris: &[Tri], rays: &[Ray], options: BuildOptions, label: &str) -> usize {
    let mut hits = 0;
    for kind in KINDS {
        let (bvh, _) = Bvh::build(tris, &BuildOptions { kind, ..options });
        let mut costs = Vec::new();
        for collapse in COLLAPSES {
            let label = format!("{label} {kind} {collapse}");
            let (wide, stats) = WideBvh::from_binary(&bvh, tris, collapse);
            assert_structure(&wide, &stats, &bvh, &label);
            let counts = assert_wide_matches(&wide, &bvh, tris, rays, &label);
            assert!(counts.exemptions * 50 <= rays.len(), "{label}: too many exemptions: {counts:?}");
            assert!(counts.binary_differs * 20 <= rays.len().max(20), "{label}: binary differs often: {counts:?}");
            if counts.binary_differs + counts.exemptions > 0 {
                println!("{label}: {counts:?}");
            }
            hits += counts.hits;
            costs.push(stats.sah_cost);
        }
        assert!(costs[0] <= costs[1] * 1.000001, "{label} {kind}: optimal {} above greedy {}", costs[0], costs[1]);
    }
    hits
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_soups_match_brute_force(seed in any::<u64>(), count in 1usize..300, leaf in 1usize..8) {
        let mut rng = rng(seed);
        let tris = random_soup(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 200);
        check_all(&tris, &rays, BuildOptions { max_leaf_size: leaf, ..Default::default() }, "soup");
    }

    #[test]
    fn clustered_meshes_match_brute_force(seed in any::<u64>(), count in 1usize..300) {
        let mut rng = rng(seed);
        let tris = clustered_mesh(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 200);
        check_all(&tris, &rays, BuildOptions::default(), "clustered");
    }

    #[test]
    fn thin_triangles_match_brute_force(seed in any::<u64>(), count in 1usize..200) {
        let mut rng = rng(seed);
        let tris = thin_diagonal_triangles(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 150);
        check_all(&tris, &rays, BuildOptions { sbvh_alpha: 0.0, ..Default::default() }, "thin");
    }
}

/// Mitsuba 3's Cornell box (the geometry of `warpath_scene::builtin::cornell()`: its rectangles
/// and cubes placed by the same `to_world` matrices; warpath-scene is not a dependency here).
fn cornell_box() -> Vec<Tri> {
    const SHAPES: &[(bool, [[f32; 4]; 4])] = &[
        (false, [[0.23, 0.0, 0.0, 0.0], [0.0, -0.0, -0.19, 0.99], [0.0, 0.19, -0.0, 0.01], [0.0, 0.0, 0.0, 1.0]]),
        (false, [[0.9999999, 0.0, 0.0, 0.0], [0.0, -0.0, 1.0, -1.0], [0.0, -1.0, -0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]),
        (false, [[0.9999999, 0.0, 0.0, 0.0], [0.0, -0.0, -1.0, 1.0], [0.0, 1.0, -0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]),
        (false, [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0], [0.0, 0.0, 0.0, 1.0]]),
        (false, [[-0.0, 0.0, -1.0, 1.0], [0.0, 0.9999999, 0.0, 0.0], [1.0, 0.0, -0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]),
        (false, [[-0.0, 0.0, 1.0, -1.0], [0.0, 0.9999999, 0.0, 0.0], [-1.0, 0.0, -0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]),
        (
            true,
            [
                [0.2868915, 0.0, -0.0877115, 0.335],
                [0.0, 0.3, 0.0, -0.7],
                [0.0877115, 0.0, 0.2868915, 0.38],
                [0.0, 0.0, 0.0, 1.0],
            ],
        ),
        (
            true,
            [
                [0.2849098, 0.0, 0.0939491, -0.33],
                [0.0, 0.61, 0.0, -0.4],
                [-0.0939491, 0.0, 0.2849098, -0.28],
                [0.0, 0.0, 0.0, 1.0],
            ],
        ),
    ];
    let square = |m: &Mat4, normal: Vec3, u: Vec3, v: Vec3, out: &mut Vec<Tri>| {
        let p = |a: f32, b: f32| m.transform_point3(normal + u * a + v * b);
        out.push([p(-1.0, -1.0), p(1.0, -1.0), p(1.0, 1.0)]);
        out.push([p(1.0, 1.0), p(-1.0, 1.0), p(-1.0, -1.0)]);
    };
    let mut tris = Vec::new();
    for &(cube, rows) in SHAPES {
        let m = Mat4::from_cols_array_2d(&rows).transpose();
        if cube {
            for axis in 0..3 {
                for sign in [-1.0f32, 1.0] {
                    let mut n = Vec3::ZERO;
                    n[axis] = sign;
                    let mut u = Vec3::ZERO;
                    u[(axis + 1) % 3] = 1.0;
                    let mut v = Vec3::ZERO;
                    v[(axis + 2) % 3] = 1.0;
                    square(&m, n, u, v, &mut tris);
                }
            }
        } else {
            square(&m, Vec3::ZERO, Vec3::X, Vec3::Y, &mut tris);
        }
    }
    tris
}

/// Pinhole-camera rays through a `n x n` grid (coherent primary rays), from `eye` toward `target`.
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

/// Rays leaving the surface at hit points in random directions (diffuse bounces, incoherent),
/// and shadow segments toward a point (finite `t_max`).
fn secondary_rays(tris: &[Tri], primary: &[Ray], light: Vec3, seed: u64) -> Vec<Ray> {
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
fn cornell_box_matches_brute_force() {
    let tris = cornell_box();
    assert_eq!(tris.len(), 36);
    let primary = camera_rays(Vec3::new(0.0, 0.0, 3.9), Vec3::ZERO, 39.3, 48);
    let secondary = secondary_rays(&tris, &primary, Vec3::new(0.0, 0.99, 0.0), 3);
    let mut rays = primary.clone();
    rays.extend(secondary);
    rays.extend(test_rays(&mut rng(9), &tris, 2000));
    let hits = check_all(&tris, &rays, BuildOptions::default(), "cornell");
    // Every primary ray from inside the open box's front hits a wall.
    assert!(hits > 4 * primary.len(), "only {hits} hits");
}

#[test]
fn sphere_matches_brute_force_with_structured_rays() {
    let tris = uv_sphere(Vec3::new(0.2, -0.1, 0.3), 1.0, 40, 64);
    let mut rays = camera_rays(Vec3::new(0.5, 1.0, 4.0), Vec3::ZERO, 40.0, 40);
    // From inside: every ray hits exactly one triangle's interior (or an edge: ties pick the lower id).
    rays.extend(camera_rays(Vec3::new(0.2, -0.1, 0.3), Vec3::new(1.0, 0.3, 0.0), 120.0, 30));
    let inside = rays.len();
    rays.extend(test_rays(&mut rng(21), &tris, 1500));
    let hits = check_all(&tris, &rays, BuildOptions::default(), "sphere");
    assert!(hits > 4 * 900, "only {hits} hits of {inside} structured rays");
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
            let (x, y) = (i as f32 * 0.5, j as f32 * 0.5);
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
    let hits = check_all(&tris, &rays, BuildOptions::default(), "grid");
    assert!(hits > 2 * rays.len(), "only {hits} hits of {} rays", rays.len());
}

/// A ray with a zero direction component visits about the nodes its neighbours do: a row of
/// small quads spread along x, rays in the plane x = 0 (d.x = 0, as a camera ray through the
/// image's centre column has) against the same rays tilted by 1e-6 in x. Before the node test
/// clamped 1/d, the zero component's axis never culled, and these rays visited every node
/// overlapping them in y and z: about all of them.
#[test]
fn zero_direction_components_cull_like_their_neighbours() {
    let mut tris = Vec::new();
    for i in -40i32..=40 {
        for j in 0..20 {
            let p = Vec3::new(i as f32 * 0.5 + 0.21, j as f32 * 0.25, -5.0 - (i.abs() % 3) as f32);
            tris.push([p, p + Vec3::new(0.2, 0.0, 0.0), p + Vec3::new(0.2, 0.2, 0.0)]);
            tris.push([p, p + Vec3::new(0.2, 0.2, 0.0), p + Vec3::new(0.0, 0.2, 0.0)]);
        }
    }
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
    let (mut zero, mut tilted) = (0u64, 0u64);
    for j in 0..50 {
        for (sign, dx) in [(1.0f32, 0.0f32), (-1.0, -0.0)] {
            let d = Vec3::new(dx, (j as f32 - 25.0) * 0.02, -1.0 * sign).normalize();
            let o = Vec3::new(0.0, 2.5, 0.0);
            for (ray, total) in
                [(Ray::new(o, d), &mut zero), (Ray::new(o, (d + Vec3::new(1e-6, 0.0, 0.0)).normalize()), &mut tilted)]
            {
                let (hit, counts) = wide.intersect_counted(&tris, &ray);
                assert_eq!(hit.map(|h| (h.prim, h.t)), brute_force_intersect(&tris, &ray).map(|h| (h.prim, h.t)));
                *total += counts.nodes as u64;
            }
        }
    }
    assert!(zero <= tilted * 2 + 100, "rays with d.x = 0 visited {zero} nodes, their tilted neighbours {tilted}");
}

#[test]
fn empty_and_tiny_inputs() {
    let (bvh, _) = Bvh::build(&[], &BuildOptions::default());
    for collapse in COLLAPSES {
        let (wide, stats) = WideBvh::from_binary(&bvh, &[], collapse);
        assert_eq!(wide.nodes.len(), 1);
        assert!(wide.prim_indices.is_empty());
        assert_eq!((stats.node_count, stats.references, stats.sah_cost), (1, 0, 0.0));
        for d in [Vec3::X, -Vec3::Z, Vec3::ZERO] {
            assert_eq!(wide.intersect(&[], &Ray::new(Vec3::ZERO, d)), None);
            assert!(!wide.occluded(&[], &Ray::new(Vec3::ZERO, d)));
        }
        assert_eq!(WideBvh::default().intersect(&[], &Ray::new(Vec3::ZERO, Vec3::X)), None);
    }
    // One to five triangles: a root leaf of the binary tree, split into leaves of at most 3.
    let tri = [Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
    for n in 1..=5 {
        let tris: Vec<Tri> = (0..n).map(|i| tri.map(|v| v + Vec3::new(0.0, 0.0, i as f32 * 0.1))).collect();
        let (bvh, _) = Bvh::build(&tris, &BuildOptions { max_leaf_size: 8, ..Default::default() });
        for collapse in COLLAPSES {
            let (wide, stats) = WideBvh::from_binary(&bvh, &tris, collapse);
            assert_structure(&wide, &stats, &bvh, "tiny");
            let ray = Ray::new(Vec3::new(0.0, 0.0, 5.0), -Vec3::Z);
            assert_eq!(wide.intersect(&tris, &ray).map(|h| h.prim), Some(n - 1), "{collapse} {n}");
            assert!(wide.occluded(&tris, &ray));
        }
    }
}

#[test]
fn identical_triangles_tie_break_to_lowest_index() {
    let tri = [Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
    let mut tris = vec![[Vec3::splat(5.0); 3]; 3];
    tris.extend(std::iter::repeat_n(tri, 1000));
    for kind in KINDS {
        let (bvh, _) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
        for collapse in COLLAPSES {
            let (wide, stats) = WideBvh::from_binary(&bvh, &tris, collapse);
            assert_structure(&wide, &stats, &bvh, "identical");
            let ray = Ray::new(Vec3::new(0.0, 0.0, 2.0), -Vec3::Z);
            let hit = wide.intersect(&tris, &ray).expect("hit");
            assert_eq!(hit.prim, 3, "{kind} {collapse}");
            assert_eq!(Some(hit), brute_force_intersect(&tris, &ray));
        }
    }
}

#[test]
fn non_finite_triangles_are_never_hit_and_do_not_disturb_the_rest() {
    let mut tris = random_soup(&mut rng(31), 150);
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    let inf = Vec3::new(0.0, f32::INFINITY, 0.0);
    tris.extend([[nan, Vec3::X, Vec3::Y], [Vec3::ZERO, inf, Vec3::Z], [nan, nan, nan], [Vec3::NEG_INFINITY; 3]]);
    let rays = test_rays(&mut rng(32), &tris[..150], 400);
    let hits = check_all(&tris, &rays, BuildOptions::default(), "non-finite");
    assert!(hits > 4 * 100, "only {hits} hits");
}

#[test]
fn large_leaves_are_split() {
    // The binary tree's leaves may hold up to `max_leaf_size` references; the wide tree's at most 3.
    let tris = random_soup(&mut rng(77), 600);
    let rays = test_rays(&mut rng(78), &tris, 400);
    for leaf in [16, 64, 600] {
        check_all(&tris, &rays, BuildOptions { max_leaf_size: leaf, ..Default::default() }, &format!("leaf {leaf}"));
    }
}

/// About 50k triangles (as in `quality_and_large_mesh.rs`): two spheres and crossing slivers.
fn large_mesh() -> Vec<Tri> {
    let mut tris = uv_sphere(Vec3::ZERO, 2.0, 100, 160);
    tris.extend(uv_sphere(Vec3::new(0.3, 0.1, -0.2), 0.7, 60, 100));
    let mut slivers = thin_diagonal_triangles(&mut rng(5), 5000);
    for tri in &mut slivers {
        for v in tri.iter_mut() {
            *v *= 1.5;
        }
    }
    tris.extend(slivers);
    tris
}

#[test]
fn large_mesh_matches_brute_force_and_reports() {
    let tris = large_mesh();
    let rays = test_rays(&mut rng(1234), &tris, 400);
    for kind in KINDS {
        let (bvh, build) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
        println!("{build}");
        let mut costs = Vec::new();
        for collapse in COLLAPSES {
            let label = format!("large {kind} {collapse}");
            let (wide, stats) = WideBvh::from_binary(&bvh, &tris, collapse);
            println!("  {stats}");
            assert_structure(&wide, &stats, &bvh, &label);
            let counts = assert_wide_matches(&wide, &bvh, &tris, &rays, &label);
            assert!(counts.hits > rays.len() / 4, "{label}: {counts:?}");
            // The paper's 35-60% of the binary tree's memory, roughly: well below it in any case.
            assert!(stats.memory_bytes * 10 < stats.binary_memory_bytes * 8, "{label}: {stats}");
            assert!(stats.mean_children > 4.0, "{label}: {stats}");
            costs.push(stats.sah_cost);
        }
        assert!(costs[0] <= costs[1], "{kind}: optimal {} above greedy {}", costs[0], costs[1]);
    }
}

#[test]
fn cornell_box_many_random_rays() {
    // Random rays meet the walls' edges and planes: edge hits outside the boxes by round-off.
    let tris = cornell_box();
    let rays = test_rays(&mut rng(1), &tris, 100_000);
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    for collapse in COLLAPSES {
        let (wide, _) = WideBvh::from_binary(&bvh, &tris, collapse);
        let counts = assert_wide_matches(&wide, &bvh, &tris, &rays, &format!("cornell 100k {collapse}"));
        println!("cornell 100k {collapse}: {counts:?}");
        assert!(counts.exemptions <= 10, "{counts:?}");
    }
}

/// Builds the wide trees of a 500k-triangle sphere repeatedly (for profiling the collapse).
#[test]
#[ignore]
fn build_time() {
    let tris = uv_sphere(Vec3::ZERO, 1.0, 500, 500);
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    for _ in 0..3 {
        for collapse in COLLAPSES {
            let (_, stats) = WideBvh::from_binary(&bvh, &tris, collapse);
            println!("{stats}");
        }
    }
}

/// Prints the statistics and a CPU timing of both traversals (`--ignored --nocapture`).
#[test]
#[ignore]
fn report() {
    use std::time::Instant;
    let meshes: Vec<(&str, Vec<Tri>)> = vec![
        ("cornell", cornell_box()),
        ("sphere 20k", uv_sphere(Vec3::ZERO, 1.0, 100, 100)),
        ("soup 100k", random_soup(&mut rng(3), 100_000)),
        ("large 50k", large_mesh()),
        ("sphere 500k", uv_sphere(Vec3::ZERO, 1.0, 500, 500)),
    ];
    for (name, tris) in &meshes {
        let rays = test_rays(&mut rng(1), tris, 100_000);
        for kind in KINDS {
            let (bvh, build) = Bvh::build(tris, &BuildOptions { kind, ..Default::default() });
            println!("{name}: {build}");
            let start = Instant::now();
            let binary_hits = rays.iter().filter(|r| bvh.intersect(tris, r).is_some()).count();
            let binary_time = start.elapsed().as_secs_f64();
            println!("  binary traversal {:.1} Mrays/s ({binary_hits} hits)", rays.len() as f64 / binary_time / 1e6);
            for collapse in COLLAPSES {
                let (wide, stats) = WideBvh::from_binary(&bvh, tris, collapse);
                let start = Instant::now();
                let hits = rays.iter().filter(|r| wide.intersect(tris, r).is_some()).count();
                let time = start.elapsed().as_secs_f64();
                let (mut nodes, mut triangles) = (0u64, 0u64);
                for ray in &rays {
                    let (_, counts) = wide.intersect_counted(tris, ray);
                    nodes += counts.nodes as u64;
                    triangles += counts.triangles as u64;
                }
                let n = rays.len() as f64;
                println!(
                    "  {stats}; wide traversal {:.1} Mrays/s ({hits} hits), {:.1} nodes and {:.1} triangles a ray",
                    n / time / 1e6,
                    nodes as f64 / n,
                    triangles as f64 / n
                );
            }
        }
    }
}
