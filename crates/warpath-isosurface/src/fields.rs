//! Procedural scalar volumes for tests and benchmarks (issue 14's "two procedural fields"):
//! the Marschner–Lobb test signal, the standard probe of reconstruction filters, with thin
//! concentric ridges; a field of spheres of different radii (solid surfaces, empty gaps);
//! and turbulence (thin sheets and many empty gaps, like seed 001's Bonsai and Aneurysm).

use crate::lattice::Lattice;

/// Marschner & Lobb (1994): ρ(x, y, z) = (1 − sin(πz/2) + α(1 + cos(2π f_M cos(π r/2)))) /
/// (2(1 + α)), r = √(x² + y²), f_M = 6, α = 1/4, sampled on [−1, 1]³ with `samples` points per
/// axis; values in [0, 1], the classic isovalue 0.5.
pub fn marschner_lobb(samples: [u32; 3]) -> Lattice {
    let (f_m, alpha) = (6.0f64, 0.25f64);
    let coordinate = |i: u32, n: u32| -1.0 + 2.0 * i as f64 / (n - 1) as f64;
    Lattice::from_fn(samples, |i, j, k| {
        let (x, y, z) = (coordinate(i, samples[0]), coordinate(j, samples[1]), coordinate(k, samples[2]));
        let r = (x * x + y * y).sqrt();
        let rho_r = (2.0 * std::f64::consts::PI * f_m * (std::f64::consts::PI * r / 2.0).cos()).cos();
        ((1.0 - (std::f64::consts::PI * z / 2.0).sin() + alpha * (1.0 + rho_r)) / (2.0 * (1.0 + alpha))) as f32
    })
    .expect("at least 2 samples per axis")
}

/// The distance to the nearest of a few spheres (negative inside), in lattice units: the
/// isosurface of value v is the spheres grown by v.
pub fn spheres(samples: [u32; 3]) -> Lattice {
    let n = samples.map(|s| (s - 1) as f64);
    let centres = [([0.3, 0.35, 0.4], 0.22), ([0.7, 0.6, 0.55], 0.18), ([0.45, 0.75, 0.2], 0.1)];
    Lattice::from_fn(samples, |i, j, k| {
        let p = [i as f64 / n[0], j as f64 / n[1], k as f64 / n[2]];
        let scale = n[0].max(n[1]).max(n[2]);
        centres
            .iter()
            .map(|(c, r)| {
                let d = ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)).sqrt();
                (d - r) * scale
            })
            .fold(f64::INFINITY, f64::min) as f32
    })
    .expect("at least 2 samples per axis")
}

/// Turbulence: Σ over five octaves of |Perlin noise(2^o · p)| / 2^o, p spanning four noise
/// periods across the lattice's largest side (values in [0, ~1]); low isovalues (0.05–0.15)
/// give thin, branching sheets around the noise's zero sets, with wide empty gaps.
pub fn turbulence(samples: [u32; 3]) -> Lattice {
    let scale = 4.0 / (samples.iter().cloned().max().unwrap_or(2) - 1) as f32;
    Lattice::from_fn(samples, |i, j, k| {
        let p = glam::Vec3::new(i as f32, j as f32, k as f32) * scale + glam::Vec3::splat(0.37);
        (0..5)
            .map(|o| {
                let f = (1u32 << o) as f32;
                warpath_volume::procedural::perlin_noise(p * f).abs() / f
            })
            .sum()
    })
    .expect("at least 2 samples per axis")
}
