//! Times both builders, and single-threaded closest-hit and any-hit traversal, on a
//! tessellated sphere: `cargo run --release -p warpath-bvh --example build_timing [triangles] [sah|sbvh]`.

use glam::Vec3;
use std::time::Instant;
use warpath_bvh::{BuildKind, BuildOptions, Bvh, build_benchmark, markdown_table};
use warpath_core::math::Ray;

fn main() {
    let target: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let segments = ((target / 2) as f32).sqrt().max(3.0) as usize;
    let point = |ring: usize, segment: usize| {
        let theta = std::f32::consts::PI * ring as f32 / segments as f32;
        let phi = 2.0 * std::f32::consts::PI * segment as f32 / segments as f32;
        Vec3::new(theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin())
    };
    let mut tris = Vec::new();
    for ring in 0..segments {
        for segment in 0..segments {
            let (a, b, c, d) = (
                point(ring, segment),
                point(ring, segment + 1),
                point(ring + 1, segment),
                point(ring + 1, segment + 1),
            );
            tris.push([a, c, d]);
            tris.push([a, d, b]);
        }
    }
    let kinds = match std::env::args().nth(2).as_deref() {
        Some("sah") => vec![BuildKind::Sah; 2],
        Some("sbvh") => vec![BuildKind::Sbvh; 2],
        _ => vec![BuildKind::Sah, BuildKind::Sbvh, BuildKind::Sah, BuildKind::Sbvh],
    };
    let reports = build_benchmark(&tris, &kinds);
    print!("{}", markdown_table(&reports));

    // Closest-hit throughput, single thread: rays from a ring of origins toward the sphere.
    let rays: Vec<Ray> = (0..200_000)
        .map(|i| {
            let a = i as f32 * 0.618_034;
            let o = Vec3::new(3.0 * a.cos(), (i % 97) as f32 / 48.0 - 1.0, 3.0 * a.sin());
            let target = Vec3::new((a * 7.3).sin(), (a * 3.1).cos(), (a * 5.7).sin()) * 0.9;
            Ray::new(o, target - o)
        })
        .collect();
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let (bvh, _) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
        let start = Instant::now();
        let hits = rays.iter().filter(|r| bvh.intersect(&tris, r).is_some()).count();
        let seconds = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let occluded = rays.iter().filter(|r| bvh.occluded(&tris, r)).count();
        let occluded_seconds = start.elapsed().as_secs_f64();
        println!(
            "{kind}: closest hit {:.2} Mrays/s ({hits} hits), any hit {:.2} Mrays/s ({occluded}), one thread",
            rays.len() as f64 / seconds / 1e6,
            rays.len() as f64 / occluded_seconds / 1e6
        );
    }
}
