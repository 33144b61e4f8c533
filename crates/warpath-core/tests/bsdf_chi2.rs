//! χ² goodness-of-fit of every non-delta BSDF lobe against its `pdf`, plus the discrete
//! probabilities and exact directions of the delta lobes (glass, mirror, car-paint coat).
//!
//! Each χ² case also checks, sample by sample, that `sample().pdf == pdf(wi)` and
//! `sample().weight == eval(wi) / pdf(wi)`.

use glam::{Vec2, Vec3};
use warpath_core::bsdf::{self, fresnel_dielectric, schlick_fresnel};
use warpath_core::material::Material;
use warpath_testkit::chi2::{Chi2Config, Rng, chi2_test};

/// Number of χ² tests in this file (3 + 16 + 8 + 15 + 32 + 4 + 8 + 12), for the Šidák
/// correction.
const CHI2_TEST_COUNT: usize = 98;

/// A unit direction at polar angle `theta_degrees` (φ = 30°, away from the grid's seams).
fn direction(theta_degrees: f32) -> Vec3 {
    let theta = theta_degrees.to_radians();
    let phi = 30f32.to_radians();
    Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos())
}

/// Outgoing directions: normal incidence, moderate, steep and near-grazing.
const WO_ANGLES: [f32; 5] = [0.0, 30.0, 60.0, 80.0, 89.0];

/// Runs χ² on the non-delta part of `m` seen from `wo`, and the weight consistency check.
fn check_lobes(label: &str, m: &Material, base_color: Vec3, wo: Vec3) -> usize {
    let config = Chi2Config { test_count: CHI2_TEST_COUNT, sample_count: 300_000, ..Chi2Config::default() };
    let mut weight_mismatches = 0usize;
    let mut worst = String::new();
    let result = chi2_test(
        &config,
        |rng| {
            let s = bsdf::sample(m, base_color, wo, rng.next_f32(), rng.next_vec2())?;
            if s.delta {
                return None;
            }
            let f = bsdf::eval(m, base_color, wo, s.wi);
            let p = bsdf::pdf(m, base_color, wo, s.wi);
            let expected = f / p;
            let error = (s.weight - expected).abs().max_element();
            let tolerance = 1e-3 * s.weight.abs().max_element().max(expected.abs().max_element()) + 1e-7;
            if error.is_nan() || error > tolerance {
                weight_mismatches += 1;
                worst = format!("wi {:?}: weight {:?} vs eval/pdf {:?}", s.wi, s.weight, expected);
            }
            Some((s.wi, s.pdf))
        },
        |wi| bsdf::pdf(m, base_color, wo, wi),
    );
    assert!(result.passed, "{label}, wo = {wo:?}: {}", result.summary());
    assert_eq!(weight_mismatches, 0, "{label}, wo = {wo:?}: weight != eval/pdf, e.g. {worst}");
    1
}

#[test]
fn chi2_diffuse() {
    let m = Material::diffuse(Vec3::new(0.8, 0.5, 0.2));
    let mut tests = 0;
    for theta in [0.0, 60.0, 89.0] {
        tests += check_lobes("diffuse", &m, m.base_color, direction(theta));
    }
    assert_eq!(tests, 3);
}

#[test]
fn chi2_blinn() {
    let materials = [
        ("blinn n=1 specular only", Material::blinn(Vec3::ZERO, Vec3::splat(0.9), 1.0)),
        ("blinn n=10 mix", Material::blinn(Vec3::new(0.5, 0.3, 0.2), Vec3::splat(0.4), 10.0)),
        ("blinn n=100 mix", Material::blinn(Vec3::new(0.2, 0.3, 0.5), Vec3::new(0.3, 0.5, 0.4), 100.0)),
        ("blinn n=1000 specular only", Material::blinn(Vec3::ZERO, Vec3::ONE, 1000.0)),
    ];
    for (label, m) in &materials {
        for theta in [0.0, 30.0, 60.0, 89.0] {
            check_lobes(label, m, m.base_color, direction(theta));
        }
    }
}

#[test]
fn chi2_car_paint() {
    let materials = [
        ("car paint red", Material::car_paint(Vec3::new(0.6, 0.05, 0.05), Vec3::splat(0.3), 50.0, 1.5)),
        ("car paint dark flakes", Material::car_paint(Vec3::new(0.05, 0.05, 0.1), Vec3::new(0.6, 0.6, 0.4), 8.0, 1.6)),
    ];
    for (label, m) in &materials {
        for theta in [0.0, 45.0, 80.0, 89.0] {
            check_lobes(label, m, m.base_color, direction(theta));
        }
    }
}

#[test]
fn chi2_rough_conductor() {
    for roughness in [0.1, 0.5, 0.9] {
        let m = Material::rough_conductor(Vec3::new(0.95, 0.64, 0.54), roughness);
        for theta in WO_ANGLES {
            check_lobes(&format!("rough conductor r={roughness}"), &m, m.base_color, direction(theta));
        }
    }
}

#[test]
fn chi2_rough_dielectric() {
    for roughness in [0.1, 0.3, 0.6, 0.9] {
        let m = Material::rough_dielectric(1.5, roughness);
        for theta in [0.0, 40.0, 75.0, 89.0] {
            let wo = direction(theta);
            check_lobes(&format!("rough dielectric r={roughness}, outside"), &m, m.base_color, wo);
            // From inside: beyond the critical angle (41.8°) only reflection remains.
            check_lobes(&format!("rough dielectric r={roughness}, inside"), &m, m.base_color, -wo);
        }
    }
}

#[test]
fn chi2_rough_dielectric_tinted_low_index() {
    let mut m = Material::rough_dielectric(1.33, 0.4);
    m.specular = Vec3::new(0.9, 0.7, 0.4);
    for theta in [20.0, 70.0] {
        check_lobes("rough water", &m, m.base_color, direction(theta));
        check_lobes("rough water, inside", &m, m.base_color, -direction(theta));
    }
}

#[test]
fn chi2_plastic() {
    // Smooth: the base lobe (the delta coat is checked below); rough: coat and base.
    let smooth = [
        ("plastic", Material::plastic(Vec3::new(0.6, 0.3, 0.1), Vec3::ONE, 1.49, 0.0, false)),
        (
            "plastic nonlinear tinted",
            Material::plastic(Vec3::new(0.1, 0.5, 0.8), Vec3::new(0.5, 0.4, 0.3), 1.9, 0.0, true),
        ),
    ];
    for (label, m) in &smooth {
        for theta in [0.0, 45.0, 80.0, 89.0] {
            check_lobes(label, m, m.base_color, direction(theta));
        }
    }
    for roughness in [0.1, 0.4, 0.8] {
        let m = Material::plastic(Vec3::new(0.5, 0.4, 0.3), Vec3::ONE, 1.49, roughness, false);
        for theta in [0.0, 45.0, 80.0, 89.0] {
            check_lobes(&format!("roughplastic r={roughness}"), &m, m.base_color, direction(theta));
            // The Beckmann coat: its D·cos sampling against its pdf.
            let b = m.with_beckmann();
            check_lobes(&format!("roughplastic beckmann r={roughness}"), &b, b.base_color, direction(theta));
        }
    }
}

#[test]
fn smooth_plastic_coat_is_chosen_with_its_probability_and_reflects_exactly() {
    let m = Material::plastic(Vec3::new(0.6, 0.3, 0.1), Vec3::new(0.9, 0.8, 0.7), 1.49, 0.0, false);
    let n = 100_000;
    for theta in [0.0, 60.0, 85.0] {
        let wo = direction(theta);
        let f_o = fresnel_dielectric(wo.z, m.ior).reflectance as f64;
        // Mitsuba's specular sampling weight: mean(specular) / (mean(diffuse) + mean(specular)).
        let w = 0.8 / (0.8 + 1.0 / 3.0);
        let p_coat = f_o * w / (f_o * w + (1.0 - f_o) * (1.0 - w));
        let mut rng = Rng::new(7 + theta as u64);
        let mut coat = 0usize;
        for _ in 0..n {
            let Some(s) = bsdf::sample(&m, m.base_color, wo, rng.next_f32(), rng.next_vec2()) else { continue };
            if s.delta {
                coat += 1;
                assert!((s.wi - Vec3::new(-wo.x, -wo.y, wo.z)).length() < 1e-6);
                assert!((s.pdf as f64 - p_coat).abs() < 1e-5);
                // Weight: specular · F(wo) / p_coat.
                let expected = m.specular * (f_o / p_coat) as f32;
                assert!((s.weight - expected).abs().max_element() < 1e-4 * expected.max_element());
            }
        }
        let frequency = coat as f64 / n as f64;
        assert!((frequency - p_coat).abs() < binomial_tolerance(p_coat, n), "θ {theta}: {frequency} vs {p_coat}");
    }
}

/// A 5σ binomial bound on the deviation of a frequency from `p` over `n` trials.
fn binomial_tolerance(p: f64, n: usize) -> f64 {
    5.0 * (p * (1.0 - p) / n as f64).sqrt() + 1e-9
}

#[test]
fn glass_reflects_with_fresnel_probability_and_exact_directions() {
    let ior = 1.5;
    let m = Material::glass(ior);
    let n = 100_000;
    for theta in [0.0, 30.0, 60.0, 80.0, 89.0] {
        for inside in [false, true] {
            let wo = if inside { -direction(theta) } else { direction(theta) };
            let fresnel = fresnel_dielectric(wo.z, ior);
            let mut rng = Rng::new(theta as u64 * 2 + inside as u64);
            let mut reflections = 0usize;
            for _ in 0..n {
                let s =
                    bsdf::sample(&m, m.base_color, wo, rng.next_f32(), rng.next_vec2()).expect("glass always scatters");
                assert!(s.delta);
                assert!((s.wi.length() - 1.0).abs() < 1e-5);
                if s.wi.z * wo.z > 0.0 {
                    reflections += 1;
                    assert!((s.wi - Vec3::new(-wo.x, -wo.y, wo.z)).length() < 1e-6);
                    assert!((s.pdf - fresnel.reflectance).abs() < 1e-6);
                } else {
                    // Snell: η_o sin θo = η_i sin θi, in the plane of incidence, opposite side.
                    let (eta_o, eta_i) = if inside { (ior, 1.0) } else { (1.0, ior) };
                    let sin_o = Vec2::new(wo.x, wo.y).length();
                    let sin_i = Vec2::new(s.wi.x, s.wi.y).length();
                    assert!((eta_o * sin_o - eta_i * sin_i).abs() < 1e-5, "Snell violated: {wo:?} -> {:?}", s.wi);
                    if sin_o > 1e-4 {
                        assert!(Vec2::new(wo.x, wo.y).normalize().dot(Vec2::new(s.wi.x, s.wi.y).normalize()) < -0.9999);
                    }
                    assert!((s.pdf - (1.0 - fresnel.reflectance)).abs() < 1e-6);
                    // Radiance scaling (η_o/η_i)².
                    let scale = (eta_o / eta_i) * (eta_o / eta_i);
                    assert!((s.weight - Vec3::splat(scale)).abs().max_element() < 1e-5, "{:?}", s.weight);
                }
            }
            let p = fresnel.reflectance as f64;
            let frequency = reflections as f64 / n as f64;
            assert!(
                (frequency - p).abs() <= binomial_tolerance(p, n),
                "theta {theta} inside {inside}: reflected {frequency}, Fresnel {p}"
            );
            if inside && theta >= 45.0 {
                assert_eq!(reflections, n, "total internal reflection beyond the critical angle");
            }
        }
    }
}

#[test]
fn fresnel_matches_known_values() {
    // Normal incidence: ((η−1)/(η+1))² = 0.04 for η = 1.5, from either side.
    assert!((fresnel_dielectric(1.0, 1.5).reflectance - 0.04).abs() < 1e-6);
    assert!((fresnel_dielectric(-1.0, 1.5).reflectance - 0.04).abs() < 1e-6);
    // Brewster's angle: p-polarized reflectance vanishes, so F = Rs/2.
    let brewster = 1.5f32.atan();
    let f = fresnel_dielectric(brewster.cos(), 1.5);
    let cos_t = (1.0 - (brewster.sin() / 1.5).powi(2)).sqrt();
    let rs = ((brewster.cos() - 1.5 * cos_t) / (brewster.cos() + 1.5 * cos_t)).powi(2);
    assert!((f.reflectance - 0.5 * rs).abs() < 1e-5);
    // Grazing: F → 1; beyond the critical angle from inside: F = 1.
    assert!(fresnel_dielectric(1e-4, 1.5).reflectance > 0.999);
    assert_eq!(fresnel_dielectric(-0.5, 1.5).reflectance, 1.0);
    // Reciprocity across the interface: F(θ outside) = F(θt inside).
    let outside = fresnel_dielectric(0.7, 1.5);
    let inside = fresnel_dielectric(outside.cos_theta_t, 1.5);
    assert!((outside.reflectance - inside.reflectance).abs() < 1e-5);
}

#[test]
fn mirror_reflects_exactly_with_schlick_weight() {
    let m = Material::mirror(Vec3::new(0.9, 0.5, 0.2));
    let mut rng = Rng::new(3);
    for theta in [0.0, 45.0, 85.0, 89.9] {
        let wo = direction(theta);
        let s = bsdf::sample(&m, m.base_color, wo, rng.next_f32(), rng.next_vec2()).unwrap();
        assert!(s.delta && s.pdf == 1.0);
        assert!((s.wi - Vec3::new(-wo.x, -wo.y, wo.z)).length() < 1e-7);
        assert!((s.weight - schlick_fresnel(m.specular, wo.z)).abs().max_element() < 1e-7);
        assert_eq!(bsdf::eval(&m, m.base_color, wo, s.wi), Vec3::ZERO);
        assert_eq!(bsdf::pdf(&m, m.base_color, wo, s.wi), 0.0);
    }
    // Schlick at normal incidence is F0, at grazing 1.
    assert!((schlick_fresnel(m.specular, 1.0) - m.specular).abs().max_element() < 1e-7);
    assert!((schlick_fresnel(m.specular, 0.0) - Vec3::ONE).abs().max_element() < 1e-7);
}

#[test]
fn car_paint_coat_reflects_fresnel_energy_along_the_mirror_direction() {
    let m = Material::car_paint(Vec3::new(0.5, 0.1, 0.1), Vec3::splat(0.3), 30.0, 1.5);
    let n = 200_000;
    for theta in [0.0, 50.0, 85.0] {
        let wo = direction(theta);
        let fresnel = fresnel_dielectric(wo.z, 1.5).reflectance as f64;
        let mut rng = Rng::new(11 + theta as u64);
        let (mut delta_count, mut delta_energy) = (0usize, 0.0f64);
        let mut delta_probability = 0.0f32;
        for _ in 0..n {
            let Some(s) = bsdf::sample(&m, m.base_color, wo, rng.next_f32(), rng.next_vec2()) else { continue };
            if s.delta {
                assert!((s.wi - Vec3::new(-wo.x, -wo.y, wo.z)).length() < 1e-7);
                assert!(s.weight.x == s.weight.y && s.weight.y == s.weight.z, "the coat is colorless");
                delta_count += 1;
                delta_energy += s.weight.x as f64;
                delta_probability = s.pdf;
            }
        }
        // The lobe is chosen with its reported probability ...
        let p = delta_probability as f64;
        let frequency = delta_count as f64 / n as f64;
        assert!((frequency - p).abs() <= binomial_tolerance(p, n), "theta {theta}: {frequency} vs {p}");
        // ... and carries the coat's Fresnel reflectance on average.
        let estimate = delta_energy / n as f64;
        let sigma = (fresnel / p) * binomial_tolerance(p, n);
        assert!((estimate - fresnel).abs() <= sigma, "theta {theta}: coat energy {estimate} vs F {fresnel}");
    }
}

#[test]
fn black_never_scatters() {
    let m = Material::black();
    let wo = direction(30.0);
    assert!(bsdf::sample(&m, Vec3::ONE, wo, 0.5, Vec2::splat(0.5)).is_none());
    assert_eq!(bsdf::eval(&m, Vec3::ONE, wo, direction(10.0)), Vec3::ZERO);
    assert_eq!(bsdf::pdf(&m, Vec3::ONE, wo, direction(10.0)), 0.0);
}
