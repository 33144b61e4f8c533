//! χ² goodness-of-fit harness for direction samplers (BSDFs, lights, environment maps),
//! in the style of Mitsuba 3's `chi2` module.
//!
//! A sampler draws `sample_count` directions on the unit sphere; they are binned on an
//! equal-area grid in (cos θ, φ). The expected count of each bin is `sample_count` times
//! the integral of the claimed pdf over the bin, computed by adaptive midpoint
//! quadrature. Bins whose expected count is below [`Chi2Config::min_expected`] are
//! pooled, Pearson's χ² statistic is formed, and its p-value (regularized upper
//! incomplete gamma function) is compared with the significance level after a Šidák
//! correction for the number of tests run in the suite.
//!
//! Samplers may fail (return `None`), e.g. when a reflected direction falls below the
//! horizon or a delta lobe was chosen: the pdf then integrates to less than one, and the
//! failures form one more cell of the test, with expected count
//! `sample_count · (1 − ∫pdf)`.
//!
//! The harness also checks, for every sample, that the pdf the sampler reports equals
//! the pdf function at the sampled direction, and that the direction is a unit vector.
//!
//! ```ignore
//! let config = Chi2Config { test_count: 12, ..Chi2Config::default() };
//! let result = chi2_test(&config, |rng| Some((square_to_uniform_sphere(rng.next_vec2()), 0.25 / PI)),
//!                        |_dir| 0.25 / PI);
//! assert!(result.passed, "{}", result.summary());
//! ```

use glam::{Vec2, Vec3};
use std::f64::consts::PI;

/// A small PCG32 generator (O'Neill 2014) for reproducible tests.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    increment: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng { state: 0, increment: (seed << 1) | 1 };
        rng.next_u32();
        rng.state = rng.state.wrapping_add(0x853c_49e6_748f_ea9b ^ seed);
        rng.next_u32();
        rng
    }
    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(self.increment);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xorshifted.rotate_right(rot)
    }
    /// Uniform in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }
    pub fn next_vec2(&mut self) -> Vec2 {
        Vec2::new(self.next_f32(), self.next_f32())
    }
}

/// Parameters of one χ² test.
#[derive(Clone, Debug)]
pub struct Chi2Config {
    /// Bins in cos θ over [−1, 1].
    pub cos_theta_bins: usize,
    /// Bins in φ over [0, 2π).
    pub phi_bins: usize,
    pub sample_count: usize,
    /// Bins with an expected count below this are pooled.
    pub min_expected: f64,
    /// Significance level of the whole suite (before the Šidák correction).
    pub significance: f64,
    /// Number of tests in the suite, for the Šidák correction.
    pub test_count: usize,
    /// Relative tolerance of the adaptive pdf integration per cell.
    pub integration_tolerance: f64,
    /// Absolute tolerance of the adaptive pdf integration per cell, in expected samples.
    pub integration_absolute_tolerance: f64,
    /// Whether sampler failures form a cell of the test (see the module docs).
    pub include_failures: bool,
    /// Relative tolerance for `sampled pdf == pdf(direction)`.
    pub pdf_tolerance: f32,
    pub seed: u64,
}

impl Default for Chi2Config {
    fn default() -> Self {
        Chi2Config {
            cos_theta_bins: 32,
            phi_bins: 64,
            sample_count: 500_000,
            min_expected: 5.0,
            significance: 0.01,
            test_count: 1,
            integration_tolerance: 1e-4,
            integration_absolute_tolerance: 0.02,
            include_failures: true,
            pdf_tolerance: 1e-3,
            seed: 7,
        }
    }
}

/// The outcome of [`chi2_test`].
#[derive(Clone, Debug)]
pub struct Chi2Result {
    pub statistic: f64,
    pub degrees_of_freedom: usize,
    pub p_value: f64,
    /// The per-test significance threshold after the Šidák correction.
    pub threshold: f64,
    /// χ² accepted and no consistency error.
    pub passed: bool,
    /// Observed counts per bin (row-major: cos θ rows, φ columns).
    pub observed: Vec<f64>,
    /// Expected counts per bin.
    pub expected: Vec<f64>,
    pub failures: usize,
    /// `∫ pdf` over the sphere.
    pub pdf_integral: f64,
    /// Samples whose reported pdf differs from the pdf function.
    pub pdf_mismatches: usize,
    pub max_pdf_relative_error: f32,
    /// Samples that were not unit vectors or had a non-positive or non-finite pdf.
    pub invalid_samples: usize,
    /// Samples in a bin whose expected count is zero.
    pub samples_where_pdf_is_zero: usize,
    /// Problems found, in words.
    pub messages: Vec<String>,
}

impl Chi2Result {
    /// One paragraph for assertion messages.
    pub fn summary(&self) -> String {
        format!(
            "chi2 = {:.2}, dof = {}, p = {:.3e} (threshold {:.3e}), failures = {}, pdf integral = {:.6}, \
             pdf mismatches = {} (max rel err {:.2e}), invalid = {}, in zero-pdf bins = {}{}",
            self.statistic,
            self.degrees_of_freedom,
            self.p_value,
            self.threshold,
            self.failures,
            self.pdf_integral,
            self.pdf_mismatches,
            self.max_pdf_relative_error,
            self.invalid_samples,
            self.samples_where_pdf_is_zero,
            if self.messages.is_empty() { String::new() } else { format!("; {}", self.messages.join("; ")) }
        )
    }
}

/// Runs the test. `sample` draws one direction and its solid-angle pdf from the random
/// numbers of `rng` (or `None`); `pdf` is the density the sampler claims.
pub fn chi2_test(
    config: &Chi2Config,
    mut sample: impl FnMut(&mut Rng) -> Option<(Vec3, f32)>,
    pdf: impl Fn(Vec3) -> f32,
) -> Chi2Result {
    let (rows, cols) = (config.cos_theta_bins, config.phi_bins);
    let mut observed = vec![0.0f64; rows * cols];
    let mut rng = Rng::new(config.seed);
    let mut failures = 0usize;
    let mut pdf_mismatches = 0usize;
    let mut max_pdf_relative_error = 0.0f32;
    let mut invalid_samples = 0usize;
    for _ in 0..config.sample_count {
        let Some((dir, sampled_pdf)) = sample(&mut rng) else {
            failures += 1;
            continue;
        };
        if !dir.is_finite() || (dir.length() - 1.0).abs() > 1e-3 || !sampled_pdf.is_finite() || sampled_pdf <= 0.0 {
            invalid_samples += 1;
            continue;
        }
        let evaluated = pdf(dir);
        let relative_error = (sampled_pdf - evaluated).abs() / sampled_pdf.max(evaluated);
        if relative_error.is_nan() || relative_error > config.pdf_tolerance {
            pdf_mismatches += 1;
        }
        if relative_error.is_finite() {
            max_pdf_relative_error = max_pdf_relative_error.max(relative_error);
        } else {
            max_pdf_relative_error = f32::INFINITY;
        }
        observed[bin_index(dir, rows, cols)] += 1.0;
    }

    // The quadrature runs over (θ, φ) with the Jacobian sin θ rather than over (cos θ, φ):
    // a lobe of angular width w at a pole spans only ~w²/2 in cos θ, too thin to be seen.
    let pdf_times_jacobian = |theta: f64, phi: f64| -> f64 {
        let (sin_theta, cos_theta) = theta.sin_cos();
        let dir = Vec3::new((sin_theta * phi.cos()) as f32, (sin_theta * phi.sin()) as f32, cos_theta as f32);
        pdf(dir) as f64 * sin_theta
    };
    // Relative tolerance per cell, and an absolute one worth a fraction of a sample, so
    // that cells cut by a discontinuity of the pdf stop refining once it cannot matter.
    let tolerance = (config.integration_tolerance, config.integration_absolute_tolerance / config.sample_count as f64);
    let mut expected = vec![0.0f64; rows * cols];
    let mut pdf_integral = 0.0;
    for r in 0..rows {
        let cos_theta_low = -1.0 + 2.0 * r as f64 / rows as f64;
        let cos_theta_high = -1.0 + 2.0 * (r + 1) as f64 / rows as f64;
        let theta_range = [cos_theta_high.min(1.0).acos(), cos_theta_low.max(-1.0).acos()];
        for c in 0..cols {
            let p0 = 2.0 * PI * c as f64 / cols as f64;
            let p1 = 2.0 * PI * (c + 1) as f64 / cols as f64;
            let integral = integrate_cell(&pdf_times_jacobian, theta_range, [p0, p1], tolerance, 0);
            pdf_integral += integral;
            expected[r * cols + c] = integral * config.sample_count as f64;
        }
    }

    let mut messages = Vec::new();
    // Samples where the pdf claims there can be none.
    let zero_threshold = 1e-9 * config.sample_count as f64;
    let samples_where_pdf_is_zero: usize =
        observed.iter().zip(&expected).filter(|(_, e)| **e <= zero_threshold).map(|(o, _)| *o as usize).sum();
    if samples_where_pdf_is_zero > 0 {
        messages.push(format!("{samples_where_pdf_is_zero} samples fell into bins where the pdf integrates to zero"));
    }
    if pdf_integral > 1.0 + 1e-3 {
        messages.push(format!("pdf integrates to {pdf_integral:.6} > 1"));
    }
    if pdf_mismatches > 0 {
        messages.push(format!("{pdf_mismatches} samples report a pdf that differs from pdf(dir)"));
    }
    if invalid_samples > 0 {
        messages.push(format!("{invalid_samples} samples were not unit vectors or had an invalid pdf"));
    }

    // Cells: (observed, expected); the failure cell first if asked for.
    let mut cells: Vec<(f64, f64)> = observed.iter().copied().zip(expected.iter().copied()).collect();
    if config.include_failures {
        let expected_failures = (1.0 - pdf_integral).max(0.0) * config.sample_count as f64;
        cells.push(((failures + invalid_samples) as f64, expected_failures));
    }
    let (statistic, cell_count) = pooled_chi2(&mut cells, config.min_expected);
    let degrees_of_freedom = cell_count.saturating_sub(1);
    let p_value = if degrees_of_freedom == 0 { 1.0 } else { chi2_survival(statistic, degrees_of_freedom as f64) };
    let threshold = sidak_threshold(config.significance, config.test_count);
    let passed = p_value >= threshold && messages.is_empty();
    Chi2Result {
        statistic,
        degrees_of_freedom,
        p_value,
        threshold,
        passed,
        observed,
        expected,
        failures,
        pdf_integral,
        pdf_mismatches,
        max_pdf_relative_error,
        invalid_samples,
        samples_where_pdf_is_zero,
        messages,
    }
}

/// The bin of a unit direction on the (cos θ, φ) grid.
pub fn bin_index(dir: Vec3, rows: usize, cols: usize) -> usize {
    let cos_theta = dir.z.clamp(-1.0, 1.0) as f64;
    let mut phi = (dir.y as f64).atan2(dir.x as f64);
    if phi < 0.0 {
        phi += 2.0 * PI;
    }
    let r = (((cos_theta + 1.0) * 0.5 * rows as f64) as usize).min(rows - 1);
    let c = ((phi / (2.0 * PI) * cols as f64) as usize).min(cols - 1);
    r * cols + c
}

/// Deepest subdivision of a bin by [`integrate_cell`] (cells 1/1024 of the bin's side).
const MAX_INTEGRATION_DEPTH: u32 = 10;

/// Adaptive midpoint quadrature of `f(θ, φ)` over a cell: compares a 4×4 rule with
/// the 8×8 rule made of its four quadrants and recurses into the quadrants until they
/// agree within `tolerance` = (relative, absolute). Test-side code only (the recursion
/// never runs on the GPU).
fn integrate_cell(f: &impl Fn(f64, f64) -> f64, c: [f64; 2], p: [f64; 2], tolerance: (f64, f64), depth: u32) -> f64 {
    let midpoint = |c0: f64, c1: f64, p0: f64, p1: f64| -> f64 {
        const N: usize = 4;
        let (dc, dp) = ((c1 - c0) / N as f64, (p1 - p0) / N as f64);
        let mut sum = 0.0;
        for i in 0..N {
            for j in 0..N {
                sum += f(c0 + (i as f64 + 0.5) * dc, p0 + (j as f64 + 0.5) * dp);
            }
        }
        sum * dc * dp
    };
    let (cm, pm) = (0.5 * (c[0] + c[1]), 0.5 * (p[0] + p[1]));
    let coarse = midpoint(c[0], c[1], p[0], p[1]);
    let quadrants =
        [([c[0], cm], [p[0], pm]), ([c[0], cm], [pm, p[1]]), ([cm, c[1]], [p[0], pm]), ([cm, c[1]], [pm, p[1]])];
    let fine: f64 = quadrants.iter().map(|(qc, qp)| midpoint(qc[0], qc[1], qp[0], qp[1])).sum();
    // A minimum depth keeps narrow peaks between the coarse nodes from going unseen.
    let converged = depth >= 1 && (fine - coarse).abs() <= tolerance.0 * fine.abs() + tolerance.1;
    if converged || depth >= MAX_INTEGRATION_DEPTH {
        // Richardson extrapolation: the midpoint rule's error falls as h².
        return fine + (fine - coarse) / 3.0;
    }
    quadrants.iter().map(|(qc, qp)| integrate_cell(f, *qc, *qp, tolerance, depth + 1)).sum()
}

/// Pools cells with small expected counts (Mitsuba's scheme): cells are sorted by
/// expected count, those below `min_expected` are merged into one pool, and a pool that
/// is still too small is merged into the smallest regular cell. Cells with nothing
/// expected and nothing observed are skipped. Returns (χ², number of cells).
pub fn pooled_chi2(cells: &mut [(f64, f64)], min_expected: f64) -> (f64, usize) {
    cells.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (mut pool_observed, mut pool_expected) = (0.0, 0.0);
    let mut statistic = 0.0;
    let mut cell_count = 0;
    let mut first_regular: Option<(f64, f64)> = None;
    for &(o, e) in cells.iter() {
        if e <= 0.0 && o <= 0.0 {
            continue;
        }
        if e < min_expected {
            pool_observed += o;
            pool_expected += e;
        } else if first_regular.is_none() {
            // Held back in case the pool needs a partner.
            first_regular = Some((o, e));
        } else {
            statistic += (o - e) * (o - e) / e;
            cell_count += 1;
        }
    }
    let mut add = |o: f64, e: f64| {
        if e > 0.0 {
            statistic += (o - e) * (o - e) / e;
            cell_count += 1;
        } else if o > 0.0 {
            statistic = f64::INFINITY;
            cell_count += 1;
        }
    };
    match first_regular {
        Some((o, e)) if pool_expected < min_expected => add(o + pool_observed, e + pool_expected),
        Some((o, e)) => {
            add(o, e);
            add(pool_observed, pool_expected);
        }
        None => {
            if pool_expected > 0.0 || pool_observed > 0.0 {
                add(pool_observed, pool_expected)
            }
        }
    }
    (statistic, cell_count)
}

/// The per-test significance level so that a suite of `test_count` independent tests
/// rejects a correct sampler with probability `significance` (Šidák).
pub fn sidak_threshold(significance: f64, test_count: usize) -> f64 {
    1.0 - (1.0 - significance).powf(1.0 / test_count.max(1) as f64)
}

/// P(X ≥ x) for X ~ χ²(dof): the regularized upper incomplete gamma Q(dof/2, x/2).
pub fn chi2_survival(x: f64, dof: f64) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    if x <= 0.0 {
        return 1.0;
    }
    if x.is_infinite() {
        return 0.0;
    }
    regularized_gamma_q(0.5 * dof, 0.5 * x)
}

/// ln Γ(x) for x > 0 (Lanczos approximation, g = 7, n = 9; ~15 digits).
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection formula.
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEFFICIENTS[0];
    for (i, c) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// Regularized upper incomplete gamma Q(a, x) = Γ(a, x) / Γ(a): the power series of
/// P for x < a + 1, Lentz's continued fraction for Q otherwise.
pub fn regularized_gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let log_prefactor = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let (mut term, mut sum, mut n) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            n += 1.0;
            term *= x / n;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * log_prefactor.exp()).clamp(0.0, 1.0)
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (log_prefactor.exp() * h).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_core::warp;

    #[test]
    fn gamma_and_chi2_match_known_values() {
        // Γ(5) = 24, Γ(0.5) = √π.
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - PI.sqrt().ln()).abs() < 1e-12);
        // χ²(1): P(X ≥ 3.841459) = 0.05; χ²(10): P(X ≥ 23.209251) = 0.01;
        // χ²(2): survival is exp(−x/2).
        assert!((chi2_survival(3.841_459, 1.0) - 0.05).abs() < 1e-6);
        assert!((chi2_survival(23.209_251, 10.0) - 0.01).abs() < 1e-6);
        assert!((chi2_survival(7.0, 2.0) - (-3.5f64).exp()).abs() < 1e-12);
        // Large dof: the median of χ²(1000) is near 999.33.
        assert!((chi2_survival(999.333, 1000.0) - 0.5).abs() < 1e-3);
    }

    #[test]
    fn sidak_matches_closed_form() {
        assert!((sidak_threshold(0.01, 1) - 0.01).abs() < 1e-15);
        let t = sidak_threshold(0.01, 20);
        assert!(((1.0 - t).powi(20) - 0.99).abs() < 1e-12);
    }

    #[test]
    fn accepts_correct_uniform_and_cosine_samplers() {
        let config = Chi2Config { sample_count: 200_000, test_count: 2, ..Chi2Config::default() };
        let uniform = chi2_test(
            &config,
            |rng| Some((warp::square_to_uniform_sphere(rng.next_vec2()), warp::UNIFORM_SPHERE_PDF)),
            |_| warp::UNIFORM_SPHERE_PDF,
        );
        assert!(uniform.passed, "{}", uniform.summary());
        assert!((uniform.pdf_integral - 1.0).abs() < 1e-4, "{}", uniform.summary());
        let cosine = chi2_test(
            &config,
            |rng| {
                let d = warp::square_to_cosine_hemisphere(rng.next_vec2());
                Some((d, warp::cosine_hemisphere_pdf(d)))
            },
            warp::cosine_hemisphere_pdf,
        );
        assert!(cosine.passed, "{}", cosine.summary());
    }

    #[test]
    fn rejects_a_sampler_whose_pdf_is_wrong() {
        let config = Chi2Config { sample_count: 200_000, ..Chi2Config::default() };
        // Uniform hemisphere samples (by mirroring the sphere) claimed to be cosine-distributed.
        let wrong = chi2_test(
            &config,
            |rng| {
                let mut d = warp::square_to_uniform_sphere(rng.next_vec2());
                d.z = d.z.abs();
                Some((d, warp::cosine_hemisphere_pdf(d)))
            },
            warp::cosine_hemisphere_pdf,
        );
        assert!(!wrong.passed && wrong.p_value < 1e-6, "{}", wrong.summary());
    }

    #[test]
    fn rejects_a_sampler_that_fails_too_often() {
        // Correct shape, but 2% of the samples are lost while the pdf still claims all.
        let config = Chi2Config { sample_count: 200_000, ..Chi2Config::default() };
        let lossy = chi2_test(
            &config,
            |rng| {
                if rng.next_f32() < 0.02 {
                    return None;
                }
                Some((warp::square_to_uniform_sphere(rng.next_vec2()), warp::UNIFORM_SPHERE_PDF))
            },
            |_| warp::UNIFORM_SPHERE_PDF,
        );
        assert!(!lossy.passed, "{}", lossy.summary());
    }

    #[test]
    fn flags_pdf_mismatch() {
        let config = Chi2Config { sample_count: 10_000, ..Chi2Config::default() };
        let result = chi2_test(
            &config,
            |rng| Some((warp::square_to_uniform_sphere(rng.next_vec2()), warp::UNIFORM_SPHERE_PDF * 1.01)),
            |_| warp::UNIFORM_SPHERE_PDF,
        );
        assert_eq!(result.pdf_mismatches, 10_000);
        assert!(!result.passed);
    }
}
