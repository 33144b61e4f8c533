//! The thin dielectric (Mitsuba's `thindielectric`): a delta reflection chosen with
//! probability R' = R + T²R / (1 − R²) (R the Fresnel reflectance at the incident angle, the
//! same from either side), the rest passed straight through; lossless with a white tint.

use glam::{Vec2, Vec3};
use warpath_core::bsdf::{self, fresnel_dielectric};
use warpath_core::material::{Material, MaterialKind};
use warpath_testkit::chi2::Rng;

fn direction(theta_degrees: f32) -> Vec3 {
    let theta = theta_degrees.to_radians();
    let phi = 30f32.to_radians();
    Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos())
}

#[test]
fn reflects_with_the_summed_internal_bounces_and_transmits_straight() {
    let mut m = Material::thin_dielectric(1.5);
    m.specular = Vec3::new(0.9, 0.8, 0.7);
    assert_eq!(m.kind(), MaterialKind::ThinDielectric);
    assert!(bsdf::is_transmissive(&m) && bsdf::is_purely_specular(&m));
    let mut rng = Rng::new(4);
    for theta in [0.0, 30.0, 60.0, 80.0, 89.0] {
        for wo in [direction(theta), -direction(theta)] {
            let r = fresnel_dielectric(wo.z.abs(), 1.5).reflectance as f64;
            let expected = r + (1.0 - r) * (1.0 - r) * r / (1.0 - r * r);
            assert_eq!(bsdf::eval(&m, m.base_color, wo, -wo), Vec3::ZERO);
            assert_eq!(bsdf::pdf(&m, m.base_color, wo, -wo), 0.0);
            let n = 100_000;
            let mut reflected = 0usize;
            for _ in 0..n {
                let s = bsdf::sample(&m, m.base_color, wo, rng.next_f32(), Vec2::splat(0.5)).expect("always samples");
                assert!(s.delta);
                if s.wi == Vec3::new(-wo.x, -wo.y, wo.z) {
                    reflected += 1;
                    assert_eq!(s.weight, Vec3::ONE);
                    assert!((s.pdf as f64 - expected).abs() < 1e-6, "{} vs {expected}", s.pdf);
                } else {
                    assert_eq!(s.wi, -wo, "transmission goes straight through");
                    assert_eq!(s.weight, m.specular);
                    assert!((s.pdf as f64 - (1.0 - expected)).abs() < 1e-6);
                }
            }
            let p = reflected as f64 / n as f64;
            let sigma = (expected * (1.0 - expected) / n as f64).sqrt().max(1e-9);
            assert!((p - expected).abs() <= 5.0 * sigma + 1e-9, "θ {theta}: reflected {p}, expected {expected}");
        }
    }
    // Thin glass reflects more than one face (8% rather than 4% at normal incidence).
    let r0 = fresnel_dielectric(1.0, 1.5).reflectance;
    let thin = bsdf::sample(&m, m.base_color, Vec3::Z, 0.0, Vec2::ZERO).unwrap().pdf;
    assert!((thin - 2.0 * r0 / (1.0 + r0)).abs() < 1e-7 && thin > 0.076 && thin < 0.078, "{thin}");
}
