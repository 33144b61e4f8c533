//! The principled BSDF's own properties (its values are Mitsuba's: `principled_mitsuba.rs`):
//! sampling matches `pdf` (χ², and `sample().weight == eval / pdf` sample by sample) for
//! every lobe mix, from outside and, when it transmits, from inside; the metallic and the
//! transmitting limits never gain energy (Burley's diffuse, the sheen and the clear coat are
//! added without compensation in Mitsuba's model, so a white principled may reflect slightly
//! more than it receives: no bound is claimed there); reflection is reciprocal and
//! transmission obeys the generalized reciprocity of radiance; opaque ones are black from
//! behind.

use glam::Vec3;
use warpath_core::bsdf;
use warpath_core::material::{Material, MaterialKind};
use warpath_testkit::chi2::{Chi2Config, Rng, chi2_test};

/// Number of χ² tests in this file, for the Šidák correction.
const CHI2_TEST_COUNT: usize = 36;

fn direction(theta_degrees: f32) -> Vec3 {
    let theta = theta_degrees.to_radians();
    let phi = 30f32.to_radians();
    Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos())
}

#[allow(clippy::too_many_arguments)]
fn principled(
    base: Vec3,
    roughness: f32,
    metallic: f32,
    spec_trans: f32,
    clearcoat: f32,
    sheen: f32,
    flatness: f32,
    ior: f32,
) -> Material {
    let mut m = Material::principled(base, roughness, ior);
    m.metallic = metallic;
    m.spec_trans = spec_trans;
    m.clearcoat = clearcoat;
    m.clearcoat_gloss = 0.5;
    m.sheen = sheen;
    m.sheen_tint = 0.5;
    m.spec_tint = 0.3;
    m.flatness = flatness;
    m
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
            if s.delta || error.is_nan() || error > 1e-3 * expected.abs().max_element() + 1e-7 {
                mismatches += 1;
                worst = format!("wi {:?}: weight {:?} vs eval/pdf {:?}", s.wi, s.weight, expected);
            }
            Some((s.wi, s.pdf))
        },
        |wi| bsdf::pdf(m, m.base_color, wo, wi),
    );
    assert!(result.passed, "{label}, wo = {wo:?}: {}", result.summary());
    assert_eq!(mismatches, 0, "{label}, wo = {wo:?}: e.g. {worst}");
}

#[test]
fn chi2_principled() {
    let base = Vec3::new(0.8, 0.5, 0.3);
    let opaque = [
        ("plain", principled(base, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5)),
        ("metal", principled(base, 0.3, 1.0, 0.0, 0.0, 0.0, 0.0, 1.5)),
        ("clear coat + sheen", principled(base, 0.6, 0.2, 0.0, 1.0, 1.0, 0.5, 1.5)),
        ("glossy", principled(base, 0.1, 0.5, 0.0, 0.5, 0.0, 0.0, 1.8)),
    ];
    let mut tests = 0;
    for (label, m) in &opaque {
        for theta in [0.0, 45.0, 80.0, 89.0] {
            check_lobes(label, m, direction(theta));
            tests += 1;
        }
    }
    let transmissive = [
        ("glass-like", principled(Vec3::ONE, 0.3, 0.0, 1.0, 0.0, 0.0, 0.0, 1.5)),
        ("half transmitting", principled(base, 0.5, 0.2, 0.5, 0.5, 0.3, 0.0, 1.33)),
    ];
    for (label, m) in &transmissive {
        for theta in [10.0, 60.0, 85.0] {
            check_lobes(label, m, direction(theta));
            check_lobes(&format!("{label}, inside"), m, -direction(theta));
            tests += 2;
        }
    }
    // Every χ² test counted in the Šidák correction ran.
    assert_eq!(tests, CHI2_TEST_COUNT - 8);
}

#[test]
fn chi2_principled_lobe_corners() {
    // Only the clear coat's weight steers the choice apart from the diffuse, and a rough
    // transmitter far past the critical angle: the corners of the lobe selection.
    let m = principled(Vec3::splat(0.5), 0.2, 0.0, 0.0, 1.0, 0.0, 0.0, 1.5);
    let rough = principled(Vec3::splat(0.9), 0.9, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0);
    let mut tests = 0;
    for theta in [20.0, 70.0] {
        check_lobes("clear coat", &m, direction(theta));
        check_lobes("rough transmitter", &rough, direction(theta));
        check_lobes("rough transmitter, inside", &rough, -direction(theta));
        tests += 3;
    }
    check_lobes("clear coat, grazing", &m, direction(88.0));
    check_lobes("rough transmitter, inside grazing", &rough, -direction(88.0));
    assert_eq!(tests + 2, 8);
}

/// Mean and standard error of the flux weight (largest channel; refraction's radiance scale
/// (η_o/η_i)² divided out).
fn albedo(m: &Material, wo: Vec3, n: usize) -> (f64, f64) {
    let mut rng = Rng::new(17);
    let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
    for _ in 0..n {
        if let Some(s) = bsdf::sample(m, m.base_color, wo, rng.next_f32(), rng.next_vec2()) {
            let scale = if wo.z * s.wi.z < 0.0 {
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
fn metallic_and_transmitting_limits_never_gain_energy() {
    for roughness in [0.05, 0.3, 0.7, 1.0] {
        let metal = principled(Vec3::ONE, roughness, 1.0, 0.0, 0.0, 0.0, 0.0, 1.5);
        // Without the Schlick tint (which can exceed the exact Fresnel at grazing angles).
        let glass = Material { spec_tint: 0.0, ..principled(Vec3::ONE, roughness, 0.0, 1.0, 0.0, 0.0, 0.0, 1.5) };
        for theta in [0.0, 30.0, 60.0, 85.0] {
            for (label, m, wo) in [
                ("metal", &metal, direction(theta)),
                ("glass", &glass, direction(theta)),
                ("glass, inside", &glass, -direction(theta)),
            ] {
                let (mean, stderr) = albedo(m, wo, 100_000);
                assert!(mean <= 1.0 + 5.0 * stderr + 1e-4, "{label} r={roughness} θ={theta}: albedo {mean} ± {stderr}");
                // The separable Smith G loses energy at high roughness, never much when smooth.
                if roughness == 0.05 && theta < 70.0 && label == "metal" {
                    assert!(mean > 0.97, "{label} r={roughness} θ={theta}: albedo {mean}");
                }
            }
        }
    }
}

#[test]
fn reflection_is_reciprocal_and_transmission_generalized_reciprocal() {
    let m = principled(Vec3::new(0.7, 0.4, 0.2), 0.4, 0.3, 0.0, 0.8, 0.6, 0.4, 1.5);
    let t = principled(Vec3::new(0.7, 0.9, 0.5), 0.5, 0.1, 0.8, 0.0, 0.0, 0.0, 1.5);
    let mut rng = Rng::new(3);
    let (mut nonzero_reflect, mut nonzero_transmit) = (0, 0);
    for _ in 0..20_000 {
        let mut wo = warpath_core::warp::square_to_uniform_sphere(rng.next_vec2());
        let mut wi = warpath_core::warp::square_to_uniform_sphere(rng.next_vec2());
        wo.z = wo.z.abs();
        wi.z = wi.z.abs();
        let forward = bsdf::eval(&m, m.base_color, wo, wi) / wi.z;
        let backward = bsdf::eval(&m, m.base_color, wi, wo) / wo.z;
        let tolerance = 1e-3 * forward.max_element().max(backward.max_element()) + 1e-9;
        assert!((forward - backward).abs().max_element() <= tolerance, "{wo:?} {wi:?}: {forward:?} vs {backward:?}");
        nonzero_reflect += usize::from(forward.max_element() > 0.0);
        // Transmission: f(wo → wi) / η_o² = f(wi → wo) / η_i² (radiance), away from the
        // critical angle where 1 − F cancels in f32.
        let wi_t = -wi;
        let forward = bsdf::eval(&t, t.base_color, wo, wi_t) / wi_t.z.abs();
        let backward = bsdf::eval(&t, t.base_color, wi_t, wo) / wo.z.abs() / (1.5 * 1.5);
        let h = (wo + wi_t * 1.5).normalize();
        if wo.dot(h).abs() > 0.02 {
            let tolerance = 1e-3 * forward.max_element().max(backward.max_element()) + 1e-9;
            assert!(
                (forward - backward).abs().max_element() <= tolerance,
                "{wo:?} {wi_t:?}: {forward:?} vs {backward:?}"
            );
        }
        nonzero_transmit += usize::from(forward.max_element() > 0.0);
    }
    assert!(nonzero_reflect > 15_000 && nonzero_transmit > 2_000, "{nonzero_reflect} {nonzero_transmit}");
}

#[test]
fn opaque_principled_is_black_from_behind_and_transmitting_one_sees_both_sides() {
    let opaque = principled(Vec3::splat(0.5), 0.5, 0.0, 0.0, 1.0, 1.0, 0.0, 1.5);
    assert_eq!(opaque.kind(), MaterialKind::Principled);
    assert!(!bsdf::is_transmissive(&opaque));
    let below = -direction(40.0);
    let mut rng = Rng::new(8);
    for _ in 0..1000 {
        let wi = warpath_core::warp::square_to_uniform_sphere(rng.next_vec2());
        assert_eq!(bsdf::eval(&opaque, opaque.base_color, below, wi), Vec3::ZERO);
        assert_eq!(bsdf::pdf(&opaque, opaque.base_color, below, wi), 0.0);
        assert!(bsdf::sample(&opaque, opaque.base_color, below, rng.next_f32(), rng.next_vec2()).is_none());
    }
    // A fully metallic surface does not transmit, whatever spec_trans says.
    assert!(!bsdf::is_transmissive(&principled(Vec3::ONE, 0.5, 1.0, 1.0, 0.0, 0.0, 0.0, 1.5)));
    assert!(bsdf::is_transmissive(&principled(Vec3::ONE, 0.5, 0.5, 0.1, 0.0, 0.0, 0.0, 1.5)));
}
