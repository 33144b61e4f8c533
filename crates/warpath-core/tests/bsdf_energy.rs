//! BSDF-level furnace tests: the directional albedo `∫ f |cos θi| dωi`, estimated as the
//! mean sample weight, is 1 for lossless materials and at most 1 for every other one;
//! BSDFs are reciprocal; and no input direction or parameter produces NaN or negative
//! weights.

use glam::{Vec2, Vec3};
use warpath_core::bsdf::{self, fresnel_dielectric};
use warpath_core::material::Material;
use warpath_core::sampler::ONE_MINUS_EPSILON;
use warpath_testkit::chi2::Rng;

/// A unit direction at polar angle `theta_degrees` (φ = 30°).
fn direction(theta_degrees: f32) -> Vec3 {
    let theta = theta_degrees.to_radians();
    let phi = 30f32.to_radians();
    Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos())
}

const WO_ANGLES: [f32; 6] = [0.0, 20.0, 45.0, 70.0, 85.0, 89.5];

/// The radiance scaling `(η_o/η_i)²` that a transmissive sample from `wo` to `wi`
/// carries; dividing it out turns the radiance weight into an energy (flux) weight.
fn radiance_scale(m: &Material, wo: Vec3, wi: Vec3) -> f32 {
    if !bsdf::is_transmissive(m) || wo.z * wi.z >= 0.0 {
        return 1.0;
    }
    let eta_o_over_i = if wo.z > 0.0 { 1.0 / m.ior } else { m.ior };
    eta_o_over_i * eta_o_over_i
}

/// Mean and standard error of the energy weight (largest channel) of `n` samples.
fn albedo(m: &Material, wo: Vec3, n: usize, seed: u64) -> (f64, f64) {
    let mut rng = Rng::new(seed);
    let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
    for _ in 0..n {
        if let Some(s) = bsdf::sample(m, m.base_color, wo, rng.next_f32(), rng.next_vec2()) {
            let w = (s.weight.max_element() / radiance_scale(m, wo, s.wi)) as f64;
            sum += w;
            sum_sq += w * w;
        }
    }
    let mean = sum / n as f64;
    let variance = (sum_sq / n as f64 - mean * mean).max(0.0);
    (mean, (variance / n as f64).sqrt())
}

/// Asserts albedo ≤ 1 within Monte Carlo error, and returns it.
fn assert_conserves_energy(label: &str, m: &Material, wo: Vec3) -> f64 {
    let (mean, stderr) = albedo(m, wo, 200_000, 17);
    assert!(mean <= 1.0 + 5.0 * stderr + 1e-4, "{label}, wo = {wo:?}: albedo {mean} ± {stderr} exceeds 1");
    mean
}

#[test]
fn white_diffuse_albedo_is_one() {
    let m = Material::diffuse(Vec3::ONE);
    for theta in WO_ANGLES {
        let (mean, _) = albedo(&m, direction(theta), 20_000, 1);
        assert!((mean - 1.0).abs() < 1e-6, "theta {theta}: {mean}");
    }
}

#[test]
fn mirror_with_unit_reflectance_is_lossless() {
    let m = Material::mirror(Vec3::ONE);
    for theta in WO_ANGLES {
        let (mean, _) = albedo(&m, direction(theta), 1_000, 1);
        assert!((mean - 1.0).abs() < 1e-6, "theta {theta}: {mean}");
    }
    // Chrome loses energy, and less toward grazing (Schlick).
    let chrome = Material::chrome();
    let normal = albedo(&chrome, direction(0.0), 1_000, 1).0;
    let grazing = albedo(&chrome, direction(85.0), 1_000, 1).0;
    assert!(normal < 0.6 && grazing > normal && grazing < 1.0);
}

#[test]
fn glass_is_lossless_and_refraction_scalings_cancel_in_pairs() {
    let m = Material::glass(1.5);
    for theta in WO_ANGLES {
        for wo in [direction(theta), -direction(theta)] {
            // Energy weight: reflection F/F and transmission (1−F)/(1−F), exactly 1.
            let (mean, _) = albedo(&m, wo, 20_000, 5);
            assert!((mean - 1.0).abs() < 1e-5, "wo {wo:?}: {mean}");
        }
    }
    // Radiance weights: entering scales by 1/η², leaving by η²; the reversed path
    // refracts back onto the original direction.
    for theta in [0.0, 30.0, 60.0, 85.0] {
        let wo = direction(theta);
        let enter = bsdf::sample(&m, m.base_color, wo, ONE_MINUS_EPSILON, Vec2::splat(0.5)).unwrap();
        assert!(enter.wi.z < 0.0, "u_lobe near 1 refracts");
        assert!((enter.weight.x - 1.0 / (1.5 * 1.5)).abs() < 1e-5);
        let leave = bsdf::sample(&m, m.base_color, enter.wi, ONE_MINUS_EPSILON, Vec2::splat(0.5)).unwrap();
        assert!((leave.wi - wo).length() < 1e-4, "{:?} vs {wo:?}", leave.wi);
        assert!(((enter.weight * leave.weight) - Vec3::ONE).abs().max_element() < 1e-5);
        // Both sides see the same Fresnel reflectance.
        let f_out = fresnel_dielectric(wo.z, 1.5).reflectance;
        let f_in = fresnel_dielectric(enter.wi.z, 1.5).reflectance;
        assert!((f_out - f_in).abs() < 1e-5);
    }
}

#[test]
fn blinn_is_normalized_at_normal_incidence_and_never_gains_energy() {
    for exponent in [0.0, 1.0, 5.0, 10.0, 50.0, 300.0, 2000.0] {
        let specular_only = Material::blinn(Vec3::ZERO, Vec3::ONE, exponent);
        // The normalization makes the specular lobe's albedo exactly 1 at normal incidence.
        let (mean, stderr) = albedo(&specular_only, Vec3::Z, 200_000, 3);
        assert!((mean - 1.0).abs() < 5.0 * stderr + 2e-3, "n = {exponent}: albedo {mean} ± {stderr}");
        for (diffuse, specular) in [(0.0, 1.0), (0.5, 0.5), (0.8, 0.2), (1.0, 0.0)] {
            let m = Material::blinn(Vec3::splat(diffuse), Vec3::splat(specular), exponent);
            let mut previous = f64::INFINITY;
            for theta in WO_ANGLES {
                let a = assert_conserves_energy(&format!("blinn n={exponent} d={diffuse}"), &m, direction(theta));
                if diffuse == 0.0 && exponent >= 1.0 {
                    // The lobe only loses energy below the horizon as wo tilts.
                    assert!(a <= previous + 0.01, "n={exponent} theta={theta}: {a} > {previous}");
                    previous = a;
                }
            }
        }
    }
}

#[test]
fn car_paint_never_gains_energy() {
    for (base, flakes, exponent) in [(1.0, 0.0, 10.0), (0.7, 0.3, 30.0), (0.0, 1.0, 5.0), (0.2, 0.8, 200.0)] {
        let m = Material::car_paint(Vec3::splat(base), Vec3::splat(flakes), exponent, 1.5);
        for theta in WO_ANGLES {
            let wo = direction(theta);
            let a = assert_conserves_energy("car paint", &m, wo);
            // At least the coat's reflection comes back.
            let coat = fresnel_dielectric(wo.z, 1.5).reflectance as f64;
            assert!(a >= coat - 1e-3, "theta {theta}: albedo {a} below the coat's {coat}");
        }
    }
}

#[test]
fn rough_conductor_never_gains_energy_and_is_nearly_lossless_when_smooth() {
    for roughness in [0.0, 0.1, 0.3, 0.6, 1.0] {
        let m = Material::rough_conductor(Vec3::ONE, roughness);
        for theta in WO_ANGLES {
            let a = assert_conserves_energy(&format!("rough conductor r={roughness}"), &m, direction(theta));
            // Single scattering loses little for smooth surfaces away from grazing.
            if roughness <= 0.1 && theta <= 70.0 {
                assert!(a > 0.97, "r={roughness}, theta {theta}: albedo {a}");
            }
        }
    }
}

#[test]
fn rough_dielectric_never_gains_energy_and_approaches_glass_when_smooth() {
    for roughness in [0.0, 0.1, 0.3, 0.6, 1.0] {
        let m = Material::rough_dielectric(1.5, roughness);
        for theta in WO_ANGLES {
            for wo in [direction(theta), -direction(theta)] {
                let a = assert_conserves_energy(&format!("rough dielectric r={roughness}"), &m, wo);
                if roughness <= 0.1 && theta <= 70.0 {
                    assert!(a > 0.97, "r={roughness}, wo {wo:?}: albedo {a}");
                }
            }
        }
    }
}

/// Random direction on the sphere.
fn random_direction(rng: &mut Rng) -> Vec3 {
    warpath_core::warp::square_to_uniform_sphere(rng.next_vec2())
}

fn close(a: Vec3, b: Vec3, relative: f32) -> bool {
    (a - b).abs().max_element() <= relative * a.abs().max_element().max(b.abs().max_element()) + 1e-12
}

#[test]
fn reflection_is_reciprocal() {
    let materials = [
        Material::diffuse(Vec3::new(0.8, 0.4, 0.2)),
        Material::blinn(Vec3::splat(0.3), Vec3::new(0.5, 0.6, 0.7), 40.0),
        Material::car_paint(Vec3::new(0.6, 0.1, 0.1), Vec3::splat(0.3), 20.0, 1.5),
        Material::rough_conductor(Vec3::new(0.95, 0.64, 0.54), 0.3),
        Material::rough_conductor(Vec3::new(0.9, 0.9, 0.2), 0.8),
        Material::rough_dielectric(1.5, 0.3),
        Material::rough_dielectric(1.5, 0.7),
        Material::plastic(Vec3::new(0.7, 0.4, 0.2), Vec3::ONE, 1.49, 0.0, false),
        Material::plastic(Vec3::new(0.7, 0.4, 0.2), Vec3::splat(0.8), 1.6, 0.3, true),
        Material::plastic(Vec3::new(0.7, 0.4, 0.2), Vec3::splat(0.8), 1.6, 0.5, false).with_beckmann(),
    ];
    let mut rng = Rng::new(99);
    for m in &materials {
        let mut nonzero = 0;
        for _ in 0..20_000 {
            let mut wo = random_direction(&mut rng);
            let mut wi = random_direction(&mut rng);
            if !bsdf::is_transmissive(m) {
                wo.z = wo.z.abs();
            }
            wi.z = wi.z.abs() * wo.z.signum();
            // f(wo, wi) = eval / |cos θi| must equal f(wi, wo).
            let forward = bsdf::eval(m, m.base_color, wo, wi) * wo.z.abs();
            let backward = bsdf::eval(m, m.base_color, wi, wo) * wi.z.abs();
            assert!(close(forward, backward, 1e-3), "{:?}: {wo:?}, {wi:?}: {forward:?} vs {backward:?}", m.kind());
            nonzero += (forward.max_element() > 0.0) as usize;
        }
        assert!(nonzero > 10_000, "{:?}: only {nonzero} non-zero pairs", m.kind());
    }
}

#[test]
fn rough_transmission_obeys_generalized_reciprocity() {
    // For radiance, f(wo → wi) / η_o² = f(wi → wo) / η_i² (Veach 1997, eq. 5.14).
    let m = Material::rough_dielectric(1.5, 0.5);
    let mut rng = Rng::new(5);
    let mut nonzero = 0;
    for _ in 0..20_000 {
        let wo = random_direction(&mut rng);
        let mut wi = random_direction(&mut rng);
        wi.z = -wi.z.abs() * wo.z.signum();
        let (eta_o, eta_i) = if wo.z > 0.0 { (1.0, 1.5) } else { (1.5, 1.0) };
        let forward = bsdf::eval(&m, m.base_color, wo, wi) / wi.z.abs() / (eta_o * eta_o);
        let backward = bsdf::eval(&m, m.base_color, wi, wo) / wo.z.abs() / (eta_i * eta_i);
        // Near the critical angle (the outside direction grazing its microfacet), 1 − F
        // is computed from the inside through 1 − η²(1 − cos²), which cancels in f32:
        // there only a loose agreement is expected.
        let h = (wo * eta_o + wi * eta_i).normalize();
        let outside = if wo.z > 0.0 { wo } else { wi };
        let (relative, absolute) = if outside.dot(h).abs() < 0.02 { (0.25, 1e-6) } else { (1e-3, 1e-9) };
        let tolerance = relative * forward.max_element().max(backward.max_element()) + absolute;
        assert!((forward - backward).abs().max_element() <= tolerance, "{wo:?}, {wi:?}: {forward:?} vs {backward:?}");
        nonzero += (forward.max_element() > 0.0) as usize;
    }
    // Only pairs whose generalized half vector faces both directions transmit (~20%).
    assert!(nonzero > 3_000, "only {nonzero} non-zero pairs");
}

#[test]
fn no_nan_or_negative_weights_at_extreme_inputs() {
    let mut materials = vec![
        Material::diffuse(Vec3::ONE),
        Material::blinn(Vec3::splat(0.5), Vec3::splat(0.5), 0.0),
        Material::blinn(Vec3::ZERO, Vec3::ONE, 1e4),
        Material::blinn(Vec3::ZERO, Vec3::ZERO, 10.0),
        Material::glass(1.5),
        Material::mirror(Vec3::ONE),
        Material::chrome(),
        Material::car_paint(Vec3::splat(0.5), Vec3::splat(0.5), 100.0, 1.5),
        Material::car_paint(Vec3::ZERO, Vec3::ZERO, 100.0, 1.5),
        Material::black(),
        Material::thin_dielectric(1.5),
    ];
    for roughness in [0.0, 1e-4, 0.5, 1.0] {
        materials.push(Material::rough_conductor(Vec3::splat(0.9), roughness));
        materials.push(Material::rough_dielectric(1.5, roughness));
        // Principled: every lobe on, and the transmitting, metallic and black-base corners.
        let mut all = Material::principled(Vec3::new(0.8, 0.5, 0.2), roughness, 1.5);
        (all.metallic, all.spec_tint, all.sheen, all.sheen_tint) = (0.3, 0.5, 1.0, 1.0);
        (all.clearcoat, all.clearcoat_gloss, all.spec_trans, all.flatness) = (1.0, 1.0, 0.5, 1.0);
        let glass = Material { spec_trans: 1.0, ..Material::principled(Vec3::ONE, roughness, 1.5) };
        let metal = Material { metallic: 1.0, ..Material::principled(Vec3::ZERO, roughness, 1.5) };
        materials.extend([all, glass, metal]);
    }
    let grazing = Vec3::new((1.0f32 - 1e-12).sqrt(), 0.0, 1e-6);
    let mut directions = vec![Vec3::Z, grazing, direction(45.0)];
    let mut rng = Rng::new(4);
    let edges = [0.0, 0.5, ONE_MINUS_EPSILON];
    for m in &materials {
        if bsdf::is_transmissive(m) {
            directions.extend([-Vec3::Z, -grazing, -direction(45.0)]);
        }
        for &wo in &directions {
            let check = |u_lobe: f32, u: Vec2| {
                if let Some(s) = bsdf::sample(m, m.base_color, wo, u_lobe, u) {
                    let ok = s.weight.is_finite()
                        && s.weight.min_element() >= 0.0
                        && s.pdf.is_finite()
                        && s.pdf > 0.0
                        && s.wi.is_finite()
                        && (s.wi.length() - 1.0).abs() < 1e-3;
                    assert!(ok, "{:?} wo {wo:?} u {u_lobe} {u:?}: {s:?}", m.kind());
                }
                let wi = random_direction(&mut Rng::new(u.x.to_bits() as u64 ^ u_lobe.to_bits() as u64));
                for wi in [wi, Vec3::Z, -Vec3::Z, grazing, reflect_z(wo)] {
                    let f = bsdf::eval(m, m.base_color, wo, wi);
                    let p = bsdf::pdf(m, m.base_color, wo, wi);
                    assert!(f.is_finite() && f.min_element() >= 0.0, "{:?} eval {wo:?} {wi:?}: {f:?}", m.kind());
                    assert!(p.is_finite() && p >= 0.0, "{:?} pdf {wo:?} {wi:?}: {p}", m.kind());
                }
            };
            for &a in &edges {
                for &b in &edges {
                    for &c in &edges {
                        check(a, Vec2::new(b, c));
                    }
                }
            }
            for _ in 0..2_000 {
                check(rng.next_f32(), rng.next_vec2());
            }
        }
    }
}

fn reflect_z(w: Vec3) -> Vec3 {
    Vec3::new(-w.x, -w.y, w.z)
}

/// Mitsuba's plastic: the base seen through the coat, ρ (1 − F(wo))(1 − F(wi)) / (π η² (1 −
/// F_dr)), integrates over wi to (1 − F(wo)) ρ (the coat transmits 1 − F_dr,ext = η² (1 −
/// F_dr,int) of diffuse light), so a white plastic under a white coat has albedo
/// F(wo) + (1 − F(wo)) = 1, up to the fits of F_dr (well under 1%); darker ones lose energy.
#[test]
fn white_smooth_plastic_is_nearly_lossless_and_plastics_never_gain_energy() {
    for nonlinear in [false, true] {
        let white = Material::plastic(Vec3::ONE, Vec3::ONE, 1.49, 0.0, nonlinear);
        for theta in [0.0, 30.0, 60.0, 85.0] {
            let (mean, stderr) = albedo(&white, direction(theta), 200_000, 3);
            assert!(
                (mean - 1.0).abs() < 0.01 + 5.0 * stderr,
                "nonlinear {nonlinear}, θ {theta}: albedo {mean} ± {stderr}"
            );
        }
    }
    for roughness in [0.0, 0.2, 0.6] {
        for base in [0.2, 0.8] {
            let m = Material::plastic(Vec3::splat(base), Vec3::ONE, 1.5, roughness, false);
            for theta in WO_ANGLES {
                assert_conserves_energy(&format!("plastic r={roughness} base {base}"), &m, direction(theta));
                let b = m.with_beckmann();
                assert_conserves_energy(&format!("beckmann plastic r={roughness} base {base}"), &b, direction(theta));
            }
        }
    }
}
