//! Tree quality and scale: SBVH beats the SAH builder's cost where spatial splits help (long
//! thin diagonal triangles), and both builders match brute force on a 50k-triangle mesh.

mod common;

use common::*;
use glam::Vec3;
use warpath_bvh::{BuildKind, BuildOptions, Bvh};

#[test]
fn sbvh_cost_is_lower_on_thin_diagonal_triangles() {
    let tris = thin_diagonal_triangles(&mut rng(11), 2000);
    let (_, sah) = Bvh::build(&tris, &BuildOptions::default());
    let (_, sbvh) = Bvh::build(&tris, &BuildOptions::sbvh());
    println!("{sah}\n{sbvh}");
    assert!(sbvh.sah_cost < sah.sah_cost, "SBVH {} not below SAH {}", sbvh.sah_cost, sah.sah_cost);
    // Spatial splits should help a lot here, not by a hair.
    assert!(sbvh.sah_cost < 0.8 * sah.sah_cost, "SBVH {} vs SAH {}", sbvh.sah_cost, sah.sah_cost);
}

#[test]
fn sbvh_is_not_worse_on_a_well_shaped_mesh() {
    let tris = uv_sphere(Vec3::ZERO, 1.0, 60, 90);
    let (_, sah) = Bvh::build(&tris, &BuildOptions::default());
    let (_, sbvh) = Bvh::build(&tris, &BuildOptions::sbvh());
    println!("{sah}\n{sbvh}");
    assert!(sbvh.sah_cost <= 1.02 * sah.sah_cost, "SBVH {} vs SAH {}", sbvh.sah_cost, sah.sah_cost);
}

/// About 50k triangles: a sphere with a smaller sphere inside and a field of thin slivers
/// crossing both, so closest hits depend on ordering and SBVH splits something.
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
fn large_mesh_matches_brute_force() {
    let tris = large_mesh();
    assert!(tris.len() >= 49_000, "{}", tris.len());
    let mut rng = rng(1234);
    let rays = test_rays(&mut rng, &tris, 400);
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let (bvh, stats) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
        println!("{stats}");
        let counts = assert_matches_brute_force(&bvh, &tris, &rays, &format!("large {kind}"));
        // A third of the rays are aimed at triangles; most random ones from outside miss.
        assert!(counts.hits > rays.len() / 4, "{kind}: only {counts:?}");
        assert!(counts.wild_exemptions <= rays.len() / 50, "{kind}: {counts:?}");
    }
}
