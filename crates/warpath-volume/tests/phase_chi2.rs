//! χ² goodness-of-fit of Henyey–Greenstein sampling against its pdf, isotropic to strongly
//! forward and backward, through warpath-testkit's χ² harness (as every BSDF is tested).

use glam::Vec3;
use warpath_testkit::chi2::{Chi2Config, chi2_test};
use warpath_volume::phase::{hg_eval, hg_sample};

const G_VALUES: [f32; 6] = [0.0, 0.3, -0.5, 0.877, -0.9, 0.95];

#[test]
fn henyey_greenstein_samples_follow_its_pdf() {
    for g in G_VALUES {
        let config = Chi2Config { test_count: G_VALUES.len(), sample_count: 400_000, ..Chi2Config::default() };
        let mut mismatched_pdfs = 0;
        let result = chi2_test(
            &config,
            |rng| {
                let (wi, pdf) = hg_sample(g, Vec3::Z, rng.next_vec2());
                if (pdf - hg_eval(g, wi.z)).abs() > 1e-3 * pdf {
                    mismatched_pdfs += 1;
                }
                Some((wi, pdf))
            },
            |wi| hg_eval(g, wi.z),
        );
        assert!(result.passed, "g = {g}: {}", result.summary());
        assert_eq!(mismatched_pdfs, 0, "g = {g}: the returned pdf differs from hg_eval of the direction");
    }
}

#[test]
fn sampling_follows_any_incoming_direction() {
    // The sampled mean direction is g times the incoming direction.
    let g = 0.6;
    let d = Vec3::new(0.3, -0.8, 0.52).normalize();
    let n = 200_000;
    let mut sum = Vec3::ZERO;
    let mut rng = warpath_testkit::chi2::Rng::new(9);
    for _ in 0..n {
        sum += hg_sample(g, d, rng.next_vec2()).0;
    }
    let mean = sum / n as f32;
    assert!((mean - d * g).length() < 0.01, "mean direction {mean} vs {}", d * g);
}
