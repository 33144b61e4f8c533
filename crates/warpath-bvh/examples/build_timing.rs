//! Times both builders on a tessellated sphere: `cargo run --release -p warpath-bvh --example build_timing [triangles] [sah|sbvh]`.

use glam::Vec3;
use warpath_bvh::{BuildKind, build_benchmark, markdown_table};

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
}
