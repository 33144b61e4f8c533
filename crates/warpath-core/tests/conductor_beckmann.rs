//! The exact conductor Fresnel and the Beckmann distribution (`bsdf::conductor`,
//! `bsdf::beckmann`): the Fresnel term against closed forms (a perfect mirror, the dielectric
//! limit κ = 0, normal and grazing incidence); warpath's conductors and Beckmann BSDFs against
//! Mitsuba 3's, point by point (`tests/data/conductor-mitsuba.txt`, written by
//! `scripts/mitsuba-conductor-reference.py` with Mitsuba 3.9.1 `scalar_rgb`: the smooth
//! conductor's sample weight, the rough ones' eval); χ² of Beckmann sampling against its pdf
//! (with `weight == eval / pdf` sample by sample); and the furnace bound (albedo ≤ 1, nearly 1
//! for a smooth white conductor).

use glam::{Vec2, Vec3};
use warpath_core::bsdf::{self, conductor::fresnel_conductor, fresnel_dielectric};
use warpath_core::material::Material;
use warpath_testkit::chi2::{Chi2Config, Rng, chi2_test};

/// χ² tests in this file (3 × 5 conductor + 3 × 4 × 2 dielectric), for the Šidák correction.
const CHI2_TEST_COUNT: usize = 39;

fn direction(theta_degrees: f32) -> Vec3 {
    let (theta, phi) = (theta_degrees.to_radians(), 30f32.to_radians());
    Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos())
}

#[test]
fn fresnel_conductor_matches_closed_forms() {
    for i in 0..=100 {
        let cos = i as f32 / 100.0;
        // Mitsuba's default conductor (eta 0, k 1) reflects everything, exactly.
        assert_eq!(fresnel_conductor(cos, 0.0, 1.0), 1.0, "cos {cos}");
        // κ = 0 is a dielectric interface seen from outside.
        for eta in [1.2f32, 1.5, 2.4] {
            let (ours, dielectric) = (fresnel_conductor(cos, eta, 0.0), fresnel_dielectric(cos, eta).reflectance);
            assert!((ours - dielectric).abs() < 2e-6, "cos {cos}, eta {eta}: {ours} vs {dielectric}");
        }
        // Reflectance lies in [0, 1] for metals.
        for (eta, k) in [(0.143f32, 3.983f32), (1.657, 9.224), (4.37, 5.21), (0.2, 0.5)] {
            let f = fresnel_conductor(cos, eta, k);
            assert!((0.0..=1.0 + 1e-6).contains(&f), "cos {cos}, eta {eta}, k {k}: {f}");
        }
    }
    // Normal incidence: ((η − 1)² + κ²) / ((η + 1)² + κ²); grazing: 1.
    for (eta, k) in [(0.143f32, 3.983f32), (1.657, 9.224), (4.37, 5.21), (0.2, 0.5), (1.5, 0.0)] {
        let f0 = ((eta - 1.0).powi(2) + k * k) / ((eta + 1.0).powi(2) + k * k);
        let f = fresnel_conductor(1.0, eta, k);
        assert!((f - f0).abs() <= 1e-6 * f0.max(1e-3), "eta {eta}, k {k}: {f} vs {f0}");
        assert!((fresnel_conductor(0.0, eta, k) - 1.0).abs() < 1e-6, "eta {eta}, k {k} at grazing");
        assert_eq!(bsdf::conductor::conductor_f0(Vec3::splat(eta), Vec3::splat(k)).x, f0);
    }
    // Gold's normal-incidence reflectance from Mitsuba's RGB eta and k.
    let gold = (0..3).map(|c| {
        let (eta, k) = ([0.14303598f32, 0.37530708, 1.4420453][c], [3.982997f32, 2.3855565, 1.6033592][c]);
        fresnel_conductor(1.0, eta, k)
    });
    for (ours, expected) in gold.zip([0.9667, 0.8020, 0.3241]) {
        assert!((ours - expected).abs() < 1e-3, "gold: {ours} vs {expected}");
    }
}

/// A parameter set of the reference file and its points (wo, wi, Mitsuba's value).
type Set = (Material, u32, Vec<(Vec3, Vec3, Vec3)>);

fn load() -> Vec<Set> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/conductor-mitsuba.txt");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut sets: Vec<Set> = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let n: Vec<f32> = fields[1..].iter().map(|f| f.parse::<f64>().expect("a number") as f32).collect();
        let v = |i: usize| Vec3::new(n[i], n[i + 1], n[i + 2]);
        match fields[0] {
            "C" => {
                let (kind, eta, k, s, alpha, ior) = (n[0] as u32, v(1), v(4), v(7), n[10], n[11]);
                let m = match kind {
                    0 => Material::conductor(eta, k, s),
                    1 => Material::rough_conductor_eta_k(eta, k, s, alpha.sqrt()).with_beckmann(),
                    _ => Material::rough_dielectric(ior, alpha.sqrt()).with_beckmann(),
                };
                sets.push((m, kind, Vec::new()));
            }
            "D" => sets.last_mut().expect("a C line first").2.push((v(0), v(3), v(6))),
            other => panic!("{path}: unexpected line kind '{other}'"),
        }
    }
    sets
}

#[test]
fn conductors_and_beckmann_match_mitsuba_point_by_point() {
    let sets = load();
    assert_eq!(sets.len(), 14);
    let (mut worst, mut nonzero, mut failures) = (0f32, 0, Vec::new());
    for (index, (m, kind, points)) in sets.iter().enumerate() {
        assert_eq!(points.len(), 40);
        for &(wo, wi, theirs) in points {
            let (ours, tolerance) = if *kind == 0 {
                let s = bsdf::sample(m, m.base_color, wo, 0.5, Vec2::splat(0.5)).expect("a mirror reflects");
                assert!((s.wi - wi).length() < 1e-5, "set {index}: mirror direction {:?} vs {wi:?}", s.wi);
                (s.weight, 2e-5)
            } else {
                // Mitsuba's float arithmetic and libm exp against warpath's detmath (measured:
                // 3.6e-6 at worst).
                (bsdf::eval(m, m.base_color, wo, wi), 1e-4)
            };
            let d = (0..3).map(|c| (ours[c] - theirs[c]).abs() / theirs[c].abs().max(1e-3)).fold(0.0, f32::max);
            worst = worst.max(d);
            nonzero += usize::from(theirs.max_element() > 0.0);
            if d > tolerance {
                failures.push(format!("set {index}: wo {wo:?} wi {wi:?}: ours {ours:?}, Mitsuba {theirs:?}"));
            }
        }
    }
    println!("{nonzero} nonzero of 560 reference values; worst relative difference {worst}");
    assert!(nonzero > 400, "only {nonzero} nonzero reference values");
    assert!(failures.is_empty(), "{} of 560 differ (worst {worst}):\n{}", failures.len(), failures.join("\n"));
}

fn check_lobes(label: &str, m: &Material, wo: Vec3) {
    let config = Chi2Config { test_count: CHI2_TEST_COUNT, sample_count: 300_000, ..Chi2Config::default() };
    let mut mismatches = 0usize;
    let mut worst = String::new();
    let result = chi2_test(
        &config,
        |rng| {
            let s = bsdf::sample(m, m.base_color, wo, rng.next_f32(), rng.next_vec2())?;
            let expected = bsdf::eval(m, m.base_color, wo, s.wi) / bsdf::pdf(m, m.base_color, wo, s.wi);
            let error = (s.weight - expected).abs().max_element();
            if error.is_nan() || error > 1e-3 * s.weight.abs().max_element().max(expected.abs().max_element()) + 1e-7 {
                mismatches += 1;
                worst = format!("wi {:?}: weight {:?} vs eval/pdf {expected:?}", s.wi, s.weight);
            }
            Some((s.wi, s.pdf))
        },
        |wi| bsdf::pdf(m, m.base_color, wo, wi),
    );
    assert!(result.passed, "{label}, wo = {wo:?}: {}", result.summary());
    assert_eq!(mismatches, 0, "{label}, wo = {wo:?}: weight != eval/pdf, e.g. {worst}");
}

#[test]
fn chi2_beckmann_rough_conductor() {
    for roughness in [0.1f32, 0.5, 1.0] {
        let m = Material::rough_conductor_eta_k(
            Vec3::new(0.143, 0.375, 1.442),
            Vec3::new(3.98, 2.39, 1.60),
            Vec3::new(1.0, 0.9, 0.8),
            roughness,
        )
        .with_beckmann();
        for theta in [0.0, 30.0, 60.0, 80.0, 89.0] {
            check_lobes(&format!("Beckmann conductor r={roughness}"), &m, direction(theta));
        }
    }
}

#[test]
fn chi2_beckmann_rough_dielectric() {
    for roughness in [0.1f32, 0.4, 0.9] {
        let m = Material::rough_dielectric(1.5, roughness).with_beckmann();
        for theta in [0.0, 40.0, 75.0, 89.0] {
            check_lobes(&format!("Beckmann dielectric r={roughness}, outside"), &m, direction(theta));
            check_lobes(&format!("Beckmann dielectric r={roughness}, inside"), &m, -direction(theta));
        }
    }
}

/// Mean and standard error of the energy weight (largest channel; radiance scaling divided
/// out) of `n` samples.
fn albedo(m: &Material, wo: Vec3, n: usize) -> (f64, f64) {
    let mut rng = Rng::new(23);
    let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
    for _ in 0..n {
        if let Some(s) = bsdf::sample(m, m.base_color, wo, rng.next_f32(), rng.next_vec2()) {
            let scale = if bsdf::is_transmissive(m) && wo.z * s.wi.z < 0.0 {
                let r = if wo.z > 0.0 { 1.0 / m.ior } else { m.ior };
                r * r
            } else {
                1.0
            };
            let w = (s.weight.max_element() / scale) as f64;
            sum += w;
            sum_sq += w * w;
        }
    }
    let mean = sum / n as f64;
    (mean, ((sum_sq / n as f64 - mean * mean).max(0.0) / n as f64).sqrt())
}

#[test]
fn beckmann_never_gains_energy_and_a_smooth_white_conductor_is_nearly_lossless() {
    for roughness in [0.0f32, 0.1, 0.3, 0.6, 1.0] {
        let conductor = Material::rough_conductor_eta_k(Vec3::ZERO, Vec3::ONE, Vec3::ONE, roughness).with_beckmann();
        let dielectric = Material::rough_dielectric(1.5, roughness).with_beckmann();
        for theta in [0.0f32, 20.0, 45.0, 70.0, 85.0, 89.5] {
            for (label, m, wo) in [
                ("conductor", &conductor, direction(theta)),
                ("dielectric outside", &dielectric, direction(theta)),
                ("dielectric inside", &dielectric, -direction(theta)),
            ] {
                let (a, stderr) = albedo(m, wo, 200_000);
                assert!(a <= 1.0 + 5.0 * stderr + 1e-4, "{label} r={roughness} θ {theta}: albedo {a} ± {stderr}");
                if roughness <= 0.1 && theta <= 70.0 {
                    assert!(a > 0.97, "{label} r={roughness} θ {theta}: albedo {a}");
                }
            }
        }
    }
}

#[test]
fn conductor_with_eta_k_is_finite_and_non_negative_at_extremes() {
    let grazing = Vec3::new((1.0f32 - 1e-12).sqrt(), 0.0, 1e-6);
    let mut rng = Rng::new(5);
    for roughness in [0.0f32, 1e-4, 0.5, 1.0] {
        for m in [
            Material::conductor(Vec3::ZERO, Vec3::ONE, Vec3::ONE),
            Material::conductor(Vec3::new(8.0, 0.0, 1.0), Vec3::new(0.0, 12.0, 1.0), Vec3::splat(0.5)),
            Material::rough_conductor_eta_k(Vec3::splat(0.2), Vec3::splat(4.0), Vec3::ONE, roughness).with_beckmann(),
            Material::rough_dielectric(1.5, roughness).with_beckmann(),
        ] {
            let sides: &[f32] = if bsdf::is_transmissive(&m) { &[1.0, -1.0] } else { &[1.0] };
            for &side in sides {
                for wo in [Vec3::Z, grazing, direction(45.0)] {
                    let wo = wo * side;
                    for _ in 0..5_000 {
                        if let Some(s) = bsdf::sample(&m, m.base_color, wo, rng.next_f32(), rng.next_vec2()) {
                            assert!(
                                s.weight.is_finite() && s.weight.min_element() >= 0.0 && s.pdf > 0.0,
                                "{:?} r={roughness} wo {wo:?}: {s:?}",
                                m.kind()
                            );
                        }
                    }
                }
            }
        }
    }
}
