//! Closest hit and any hit of both builders' trees agree with brute force, hit for hit:
//! property tests over random soups and clustered meshes, and fixed edge cases (empty input,
//! all-identical triangles, axis-aligned grids hit by axis-aligned rays).

mod common;

use common::*;
use glam::Vec3;
use proptest::prelude::*;
use warpath_bvh::{BuildKind, BuildOptions, Bvh, brute_force_intersect};
use warpath_core::math::Ray;

const KINDS: [BuildKind; 2] = [BuildKind::Sah, BuildKind::Sbvh];

/// Checks both builders; returns the matched hits. Wild-hit exemptions must stay rare.
fn check_all_builders(tris: &[Tri], rays: &[Ray], options: BuildOptions, label: &str) -> usize {
    let mut hits = 0;
    for kind in KINDS {
        let (bvh, _) = Bvh::build(tris, &BuildOptions { kind, ..options });
        let counts = assert_matches_brute_force(&bvh, tris, rays, &format!("{label} {kind}"));
        assert!(counts.wild_exemptions * 50 <= rays.len(), "{label} {kind}: too many exemptions: {counts:?}");
        hits += counts.hits;
    }
    hits
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_soups_match_brute_force(seed in any::<u64>(), count in 1usize..300, leaf in 1usize..8) {
        let mut rng = rng(seed);
        let tris = random_soup(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 200);
        let options = BuildOptions { max_leaf_size: leaf, ..Default::default() };
        check_all_builders(&tris, &rays, options, "soup");
    }

    #[test]
    fn clustered_meshes_match_brute_force(seed in any::<u64>(), count in 1usize..300) {
        let mut rng = rng(seed);
        let tris = clustered_mesh(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 200);
        check_all_builders(&tris, &rays, BuildOptions::default(), "clustered");
    }

    #[test]
    fn thin_triangles_with_few_bins_match_brute_force(seed in any::<u64>(), count in 1usize..200, bins in 2usize..12) {
        let mut rng = rng(seed);
        let tris = thin_diagonal_triangles(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 150);
        // A large alpha never tries spatial splits; a zero alpha always does.
        for alpha in [0.0, 1e-5, 10.0] {
            let options = BuildOptions { bins, sbvh_alpha: alpha, ..Default::default() };
            check_all_builders(&tris, &rays, options, "thin");
        }
    }
}

#[test]
fn soups_hit_often_enough_to_mean_something() {
    let mut rng = rng(7);
    let tris = random_soup(&mut rng, 200);
    let rays = test_rays(&mut rng, &tris, 600);
    let hits = check_all_builders(&tris, &rays, BuildOptions::default(), "soup");
    // Two builders; a third of the rays are aimed at triangles (some at degenerate ones, some
    // cut short by t_max), and some random rays hit as well.
    assert!(hits > 2 * 150, "only {hits} hits");
}

#[test]
fn empty_input_is_never_hit() {
    for kind in KINDS {
        let (bvh, stats) = Bvh::build(&[], &BuildOptions { kind, ..Default::default() });
        assert_eq!(bvh.nodes.len(), 1);
        assert!(bvh.prim_indices.is_empty());
        assert_eq!((stats.node_count, stats.references, stats.sah_cost), (1, 0, 0.0));
        for d in [Vec3::X, -Vec3::Z, Vec3::new(0.3, -0.2, 0.9), Vec3::ZERO] {
            let ray = Ray::new(Vec3::ZERO, d);
            assert_eq!(bvh.intersect(&[], &ray), None);
            assert!(!bvh.occluded(&[], &ray));
        }
    }
    // A default (node-less) tree is also safe to query.
    let ray = Ray::new(Vec3::ZERO, Vec3::X);
    assert_eq!(Bvh::default().intersect(&[], &ray), None);
    assert!(!Bvh::default().occluded(&[], &ray));
}

#[test]
fn identical_triangles_build_and_tie_break_to_lowest_index() {
    let tri = [Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
    let mut tris = vec![[Vec3::splat(5.0); 3]; 3]; // three point-triangles first
    tris.extend(std::iter::repeat_n(tri, 1000));
    for kind in KINDS {
        let (bvh, stats) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
        assert!(stats.max_depth <= warpath_bvh::MAX_DEPTH);
        let ray = Ray::new(Vec3::new(0.0, 0.0, 2.0), -Vec3::Z);
        let hit = bvh.intersect(&tris, &ray).expect("the stack of triangles is hit");
        assert_eq!(hit.prim, 3, "{kind}: ties go to the lowest index");
        assert_eq!(Some(hit), brute_force_intersect(&tris, &ray));
    }
}

#[test]
fn axis_aligned_grid_with_axis_aligned_rays() {
    // Unit squares on the planes x = i, y = j, z = k of a 4x4x4 grid: rays along axes from
    // grid points lie in box planes, have zero direction components and hit edges exactly.
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
    let hits = check_all_builders(&tris, &rays, BuildOptions::default(), "grid");
    assert!(hits > rays.len(), "only {hits} hits of {} rays (two builders)", rays.len());
}

#[test]
fn non_finite_triangles_are_never_hit_and_do_not_disturb_the_rest() {
    let mut tris = random_soup(&mut rng(31), 150);
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    let inf = Vec3::new(0.0, f32::INFINITY, 0.0);
    tris.extend([[nan, Vec3::X, Vec3::Y], [Vec3::ZERO, inf, Vec3::Z], [nan, nan, nan], [Vec3::NEG_INFINITY; 3]]);
    let rays = test_rays(&mut rng(32), &tris[..150], 400);
    let hits = check_all_builders(&tris, &rays, BuildOptions::default(), "non-finite");
    assert!(hits > 2 * 100, "only {hits} hits");
}
