//! The CPU-only 4-wide layout (`cpu_layout::CpuBvh`) returns exactly what the canonical
//! traversal `Bvh::intersect` / `Bvh::occluded` return (same prim, t, u, v, bit for bit) on
//! random rays over both builders' trees, every leaf size, and the edge cases (empty input, a
//! root that is a leaf, axis-aligned rays with zero and negative-zero direction components).
//! The only exemption is a "wild" Möller–Trumbore hit outside its triangle's box (see
//! `common::is_wild_hit`): the 4-wide tree skips some of the binary tree's boxes, so it may find
//! such a hit where the binary tree does not.

mod common;

use common::*;
use glam::Vec3;
use proptest::prelude::*;
use warpath_bvh::cpu_layout::CpuBvh;
use warpath_bvh::{BuildKind, BuildOptions, Bvh, Hit};
use warpath_core::math::Ray;

fn wild(tris: &[Tri], ray: &Ray, hit: Option<Hit>) -> bool {
    hit.is_some_and(|h| is_wild_hit(&tris[h.prim as usize], ray, h.t))
}

/// Checks every ray; returns (hits, exemptions).
fn check(tris: &[Tri], rays: &[Ray], options: BuildOptions, label: &str) -> (usize, usize) {
    let (mut hits, mut exempt) = (0, 0);
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let (bvh, _) = Bvh::build(tris, &BuildOptions { kind, ..options });
        let cpu = CpuBvh::new(&bvh, tris);
        for (i, ray) in rays.iter().enumerate() {
            let expected = bvh.intersect(tris, ray);
            let got = cpu.intersect(ray);
            let same = match (expected, got) {
                (Some(a), Some(b)) => {
                    a.prim == b.prim
                        && a.t.to_bits() == b.t.to_bits()
                        && a.u.to_bits() == b.u.to_bits()
                        && a.v.to_bits() == b.v.to_bits()
                }
                (None, None) => true,
                _ => false,
            };
            let any_wild = || {
                tris.iter().any(|t| {
                    warpath_core::math::intersect_triangle(ray.o, ray.d, t[0], t[1], t[2], ray.t_min, ray.t_max)
                        .is_some_and(|(t_hit, _, _)| is_wild_hit(t, ray, t_hit))
                })
            };
            if !same {
                assert!(
                    wild(tris, ray, expected) || wild(tris, ray, got) || any_wild(),
                    "{label} {kind} ray {i} {ray:?}: Bvh {expected:?}, CpuBvh {got:?}"
                );
                exempt += 1;
            }
            hits += got.is_some() as usize;
            let occluded = bvh.occluded(tris, ray);
            if occluded != cpu.occluded(ray) {
                assert!(any_wild(), "{label} {kind} ray {i} {ray:?}: occluded {occluded} differs");
                exempt += 1;
            }
        }
    }
    assert!(exempt * 50 <= rays.len().max(1) * 2, "{label}: too many exemptions ({exempt})");
    (hits, exempt)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_soups_match_bvh(seed in any::<u64>(), count in 1usize..300, leaf in 1usize..17) {
        let mut rng = rng(seed);
        let tris = random_soup(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 200);
        check(&tris, &rays, BuildOptions { max_leaf_size: leaf, ..Default::default() }, "soup");
    }

    #[test]
    fn clustered_meshes_match_bvh(seed in any::<u64>(), count in 1usize..300) {
        let mut rng = rng(seed);
        let tris = clustered_mesh(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 200);
        check(&tris, &rays, BuildOptions::default(), "clustered");
    }

    #[test]
    fn thin_triangles_match_bvh(seed in any::<u64>(), count in 1usize..200) {
        let mut rng = rng(seed);
        let tris = thin_diagonal_triangles(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 150);
        check(&tris, &rays, BuildOptions { sbvh_alpha: 0.0, ..Default::default() }, "thin");
    }
}

#[test]
fn sphere_and_soup_hit_often() {
    let tris = uv_sphere(Vec3::new(0.2, -0.1, 0.3), 1.0, 24, 48);
    let mut rng = rng(3);
    let rays = test_rays(&mut rng, &tris, 2000);
    let (hits, exempt) = check(&tris, &rays, BuildOptions::default(), "sphere");
    assert!(hits > 2 * 600, "only {hits} hits");
    assert_eq!(exempt, 0);

    let tris = random_soup(&mut rng, 500);
    let rays = test_rays(&mut rng, &tris, 2000);
    let (hits, _) = check(&tris, &rays, BuildOptions::default(), "soup");
    assert!(hits > 2 * 500, "only {hits} hits");
}

#[test]
fn empty_and_single_triangle() {
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let (bvh, _) = Bvh::build(&[], &BuildOptions { kind, ..Default::default() });
        let cpu = CpuBvh::new(&bvh, &[]);
        for d in [Vec3::X, -Vec3::Z, Vec3::ZERO] {
            let ray = Ray::new(Vec3::ZERO, d);
            assert_eq!(cpu.intersect(&ray), None);
            assert!(!cpu.occluded(&ray));
        }
        let tri = [Vec3::new(-1.0, -1.0, 2.0), Vec3::new(1.0, -1.0, 2.0), Vec3::new(0.0, 1.0, 2.0)];
        let (bvh, _) = Bvh::build(&[tri], &BuildOptions { kind, ..Default::default() });
        assert!(bvh.nodes[0].is_leaf());
        let cpu = CpuBvh::new(&bvh, &[tri]);
        let ray = Ray::new(Vec3::ZERO, Vec3::Z);
        assert_eq!(cpu.intersect(&ray), bvh.intersect(&[tri], &ray));
        assert!(cpu.intersect(&ray).is_some());
        assert!(cpu.occluded(&ray));
        assert!(!cpu.occluded(&Ray::segment(Vec3::ZERO, Vec3::Z, 1.5)));
        assert!(cpu.intersect(&Ray::new(Vec3::ZERO, -Vec3::Z)).is_none());
    }
}

#[test]
fn large_leaves_match_bvh() {
    // Leaves of up to 64 references (16 packets): more than a leaf reference can encode.
    let mut rng = rng(11);
    for count in [40, 64, 300] {
        let tris = random_soup(&mut rng, count);
        let rays = test_rays(&mut rng, &tris, 400);
        check(&tris, &rays, BuildOptions { max_leaf_size: 64, intersection_cost: 0.01, ..Default::default() }, "large");
    }
}
