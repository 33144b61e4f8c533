//! The tracking estimators against closed forms: a homogeneous medium's transmittance is
//! exp(−σ_t d) and its free-flight distances are exponential; a constant grid behaves as the
//! homogeneous medium it equals; a spectral σ_t is weighted correctly per channel; the
//! majorant grid changes how many lookups a flight takes, not what it estimates.

use glam::{Mat4, Vec3};
use std::sync::Arc;
use warpath_volume::medium::{FreeFlight, MediumAlbedo, TrackingCounts};
use warpath_volume::random::{STREAM_EXTEND, STREAM_SHADOW, TrackingRng};
use warpath_volume::{Medium, VolumeGrid};

/// Mean and standard error of `n` draws of `f(i)`.
fn mean_and_error(n: u32, mut f: impl FnMut(u32) -> f64) -> (f64, f64) {
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    for i in 0..n {
        let v = f(i);
        sum += v;
        sum_sq += v * v;
    }
    let mean = sum / n as f64;
    let var = (sum_sq / n as f64 - mean * mean).max(0.0);
    (mean, (var / n as f64).sqrt())
}

fn assert_close(label: &str, (mean, error): (f64, f64), expected: f64) {
    let z = (mean - expected) / error.max(1e-12);
    assert!(z.abs() < 4.5, "{label}: {mean} ± {error} vs {expected} (z = {z:.2})");
}

/// A unit cube of constant density 1 scaled by `scale`, placed at [-1, 1]³ (side 2).
fn constant_grid(scale: f32, voxels_per_cell: u32) -> Medium {
    let density = Arc::new(VolumeGrid::constant([8, 8, 8], 1, 1.0));
    let to_world = Mat4::from_translation(Vec3::splat(-1.0)) * Mat4::from_scale(Vec3::splat(2.0));
    Medium::grid("cube", density, scale, MediumAlbedo::Constant(Vec3::splat(0.8)), 0.0, to_world, voxels_per_cell)
        .unwrap()
}

#[test]
fn homogeneous_transmittance_is_exponential() {
    let medium = Medium::homogeneous("slab", Vec3::splat(1.5), Vec3::ONE, 0.0).unwrap();
    for distance in [0.1f32, 0.7, 2.0] {
        let estimate = mean_and_error(40_000, |i| {
            let mut rng = TrackingRng::new(1, i, 0, 0, STREAM_SHADOW);
            medium.transmittance(Vec3::ZERO, Vec3::X, distance, &mut rng, &mut TrackingCounts::default()).x as f64
        });
        assert_close(&format!("T({distance})"), estimate, (-1.5 * distance as f64).exp());
    }
}

#[test]
fn free_flights_are_exponentially_distributed() {
    let medium = Medium::homogeneous("slab", Vec3::splat(2.0), Vec3::splat(0.6), 0.0).unwrap();
    // P(collision before d) = 1 − exp(−σ d); the scatter weight is 1, the albedo is fetched apart.
    let d = 0.4f32;
    let estimate = mean_and_error(50_000, |i| {
        let mut rng = TrackingRng::new(2, i, 0, 0, STREAM_EXTEND);
        match medium.sample_free_flight(Vec3::ZERO, Vec3::Y, d, &mut rng, &mut TrackingCounts::default()) {
            FreeFlight::Scatter { t, weight } => {
                assert!(t < d && t >= 0.0);
                assert_eq!(weight, Vec3::ONE);
                assert_eq!(
                    medium.albedo_along(Vec3::ZERO, Vec3::Y, t, &mut TrackingCounts::default()),
                    Vec3::splat(0.6)
                );
                1.0
            }
            FreeFlight::Pass { weight } => {
                assert_eq!(weight, Vec3::ONE);
                0.0
            }
        }
    });
    assert_close("P(scatter)", estimate, 1.0 - (-2.0f64 * d as f64).exp());
}

#[test]
fn a_constant_grid_equals_the_homogeneous_medium_inside_its_box() {
    // Along the x axis through the cube [-1, 1]³: 2 units of σ_t = 3 inside, none outside.
    for cells in [0u32, 2, 16] {
        let medium = constant_grid(3.0, cells);
        let estimate = mean_and_error(40_000, |i| {
            let mut rng = TrackingRng::new(3, i, 0, 0, STREAM_SHADOW);
            let o = Vec3::new(-5.0, 0.1, -0.2);
            medium.transmittance(o, Vec3::X, 20.0, &mut rng, &mut TrackingCounts::default()).x as f64
        });
        assert_close(&format!("grid T, {cells} voxels a cell"), estimate, (-6.0f64).exp());
    }
}

#[test]
fn spectral_extinction_is_weighted_per_channel() {
    // σ_t = (0.5, 1, 2): each channel's transmittance and its scatter probability.
    let sigma = Vec3::new(0.5, 1.0, 2.0);
    let medium = Medium::homogeneous("tinted", sigma, Vec3::ONE, 0.0).unwrap();
    assert!(!medium.gray);
    let d = 0.8f32;
    for channel in 0..3 {
        let t = mean_and_error(60_000, |i| {
            let mut rng = TrackingRng::new(4, i, 0, 0, STREAM_SHADOW);
            medium.transmittance(Vec3::ZERO, Vec3::Z, d, &mut rng, &mut TrackingCounts::default())[channel] as f64
        });
        assert_close(&format!("T channel {channel}"), t, (-(sigma[channel] as f64) * d as f64).exp());
        // E[weight · 1(pass)] = transmittance as well (the free-flight estimator's pass weight).
        let pass = mean_and_error(60_000, |i| {
            let mut rng = TrackingRng::new(5, i, 0, 0, STREAM_EXTEND);
            match medium.sample_free_flight(Vec3::ZERO, Vec3::Z, d, &mut rng, &mut TrackingCounts::default()) {
                FreeFlight::Pass { weight } => weight[channel] as f64,
                FreeFlight::Scatter { .. } => 0.0,
            }
        });
        assert_close(&format!("pass weight channel {channel}"), pass, (-(sigma[channel] as f64) * d as f64).exp());
    }
}

#[test]
fn majorant_grid_cuts_lookups_and_keeps_the_estimate() {
    // A density that is 1 in a small corner region and 0.01 elsewhere: the global majorant
    // makes the flight test the whole grid at σ̄ = max, the grid of cells only near the corner.
    let n = 64;
    let density = Arc::new(VolumeGrid::from_fn([n, n, n], |i, j, k| if i < 8 && j < 8 && k < 8 { 1.0 } else { 0.01 }));
    let make = |cells| {
        Medium::grid("corner", density.clone(), 20.0, MediumAlbedo::Constant(Vec3::ONE), 0.0, Mat4::IDENTITY, cells)
            .unwrap()
    };
    let (global, gridded) = (make(0), make(8));
    let mut lookups = [0u64; 2];
    let mut estimates = [(0.0, 0.0); 2];
    for (k, medium) in [&global, &gridded].into_iter().enumerate() {
        let mut counts = TrackingCounts::default();
        estimates[k] = mean_and_error(20_000, |i| {
            let mut rng = TrackingRng::new(6, i, 0, 0, STREAM_SHADOW);
            let o = Vec3::new(-1.0, 0.5, 0.5);
            medium.transmittance(o, Vec3::X, 10.0, &mut rng, &mut counts).x as f64
        });
        lookups[k] = counts.density_lookups;
    }
    // Along y = z = 0.5 the density is 0.01 everywhere: T = exp(−20 · 0.01 · 1).
    let expected = (-0.2f64).exp();
    assert_close("global majorant", estimates[0], expected);
    assert_close("majorant grid", estimates[1], expected);
    assert!(lookups[0] > 10 * lookups[1], "lookups: global {} vs grid {}", lookups[0], lookups[1]);
}
