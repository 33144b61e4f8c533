//! Accuracy of `warpath_core::detmath` against f64 libm on millions of inputs: the largest
//! error of each function in ulps of the correctly rounded result, over the ranges the
//! renderers use and over the whole domain, plus identities that tie the functions together.
//! Each test prints what it measured (`cargo test -- --nocapture`).

use warpath_core::detmath::{det_acos, det_atan2, det_exp, det_exp2, det_ln, det_pow, det_sin_cos};

/// A deterministic stream of uniform numbers in [0, 1) (a 64-bit LCG's top bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The spacing of f32 values at `exact` (that of the subnormals below the normal range).
fn ulp(exact: f64) -> f64 {
    let a = exact.abs().max(f32::MIN_POSITIVE as f64);
    let exponent = a.log2().floor();
    2f64.powf(exponent - 23.0)
}

/// Error of `got` in ulps of `exact`.
fn ulps(got: f32, exact: f64) -> f64 {
    if got as f64 == exact {
        return 0.0;
    }
    // Beyond f32's range the correctly rounded result is ±∞.
    if exact.abs() > f32::MAX as f64 && got.is_infinite() && got.signum() as f64 == exact.signum() {
        return 0.0;
    }
    if !got.is_finite() || !exact.is_finite() {
        return f64::INFINITY;
    }
    (got as f64 - exact).abs() / ulp(exact)
}

/// Largest error over `inputs`, and the input where it occurs.
struct Worst {
    ulps: f64,
    at: String,
}

impl Worst {
    fn new() -> Self {
        Worst { ulps: 0.0, at: String::new() }
    }
    fn add(&mut self, ulps: f64, at: impl FnOnce() -> String) {
        if ulps > self.ulps || ulps.is_nan() {
            self.ulps = ulps;
            self.at = at();
        }
    }
}

#[test]
fn sin_cos_within_one_and_a_half_ulp_on_the_renderers_range() {
    let mut rng = Lcg(1);
    let (mut worst_sin, mut worst_cos) = (Worst::new(), Worst::new());
    let mut check = |x: f32| {
        let (s, c) = det_sin_cos(x);
        let (es, ec) = (x as f64).sin_cos();
        worst_sin.add(ulps(s, es), || format!("sin({x:e}) = {s:e}, exact {es:e}"));
        worst_cos.add(ulps(c, ec), || format!("cos({x:e}) = {c:e}, exact {ec:e}"));
    };
    // [−4π, 4π]: the sphere and the disk warps use [0, 2π], the environment map [0, π].
    for _ in 0..2_000_000 {
        check(((rng.next() * 2.0 - 1.0) * 4.0 * std::f64::consts::PI) as f32);
    }
    // Every f32 of 2π·u for u on a fine grid, and the points around each multiple of π/4.
    for i in 0..=1_000_000u32 {
        check((2.0 * std::f32::consts::PI) * (i as f32 / 1_000_000.0));
    }
    for k in -16..=16 {
        let centre = (k as f32) * std::f32::consts::FRAC_PI_4;
        let mut x = centre;
        for _ in 0..64 {
            check(x);
            x = f32::from_bits(x.to_bits() + 1);
        }
    }
    println!("sin: {:.3} ulp at {}", worst_sin.ulps, worst_sin.at);
    println!("cos: {:.3} ulp at {}", worst_cos.ulps, worst_cos.at);
    assert!(worst_sin.ulps <= 1.5 && worst_cos.ulps <= 1.5);
}

#[test]
fn sin_cos_up_to_the_exact_reduction_limit() {
    let mut rng = Lcg(2);
    let mut worst = Worst::new();
    for _ in 0..1_000_000 {
        let x = ((rng.next() * 2.0 - 1.0) * 6400.0) as f32;
        let (s, c) = det_sin_cos(x);
        let (es, ec) = (x as f64).sin_cos();
        worst.add(ulps(s, es).max(ulps(c, ec)), || format!("sin_cos({x:e}) = ({s:e}, {c:e}), exact ({es:e}, {ec:e})"));
    }
    println!("sin/cos on [-6400, 6400]: {:.3} ulp at {}", worst.ulps, worst.at);
    assert!(worst.ulps <= 2.5);
}

#[test]
fn atan2_within_two_and_a_half_ulp() {
    let mut rng = Lcg(3);
    let mut worst = Worst::new();
    let mut check = |y: f32, x: f32| {
        let got = det_atan2(y, x);
        let exact = (y as f64).atan2(x as f64);
        worst.add(ulps(got, exact), || format!("atan2({y:e}, {x:e}) = {got:e}, exact {exact:e}"));
    };
    // Unit directions (the environment map's use) and points over many magnitudes.
    for _ in 0..2_000_000 {
        let phi = (rng.next() * 2.0 - 1.0) * std::f64::consts::PI;
        check(phi.sin() as f32, phi.cos() as f32);
    }
    for _ in 0..1_000_000 {
        let y = ((rng.next() * 2.0 - 1.0) * 10f64.powf(rng.next() * 20.0 - 10.0)) as f32;
        let x = ((rng.next() * 2.0 - 1.0) * 10f64.powf(rng.next() * 20.0 - 10.0)) as f32;
        check(y, x);
    }
    // Around the octant borders, where the reduction switches.
    for (y0, x0) in [(0.41421357f32, 1.0f32), (1.0, 1.0), (1.0, 0.41421357), (1.0, -1.0), (-1.0, -0.41421357)] {
        let mut y = y0;
        for _ in 0..200 {
            check(y, x0);
            y = f32::from_bits(y.to_bits() + 1);
        }
    }
    println!("atan2: {:.3} ulp at {}", worst.ulps, worst.at);
    assert!(worst.ulps <= 2.5);
    assert_eq!(det_atan2(0.0, -0.0), 0.0, "documented: atan2(0, -0) = 0");
}

#[test]
fn acos_within_one_and_a_half_ulp() {
    let mut rng = Lcg(4);
    let mut worst = Worst::new();
    let mut check = |x: f32| {
        let got = det_acos(x);
        let exact = (x as f64).acos();
        worst.add(ulps(got, exact), || format!("acos({x:e}) = {got:e}, exact {exact:e}"));
    };
    for _ in 0..2_000_000 {
        check((rng.next() * 2.0 - 1.0) as f32);
    }
    // Near ±1 and ±1/2, where the branches meet, and tiny arguments.
    for start in [1.0f32, 0.5] {
        let mut x = start;
        for _ in 0..100_000 {
            check(x);
            check(-x);
            x = f32::from_bits(x.to_bits() - 1);
        }
    }
    let mut x = 0.0f32;
    for _ in 0..100_000 {
        check(x);
        check(-x);
        x = f32::from_bits(x.to_bits() + 1);
    }
    println!("acos: {:.3} ulp at {}", worst.ulps, worst.at);
    assert!(worst.ulps <= 1.5);
}

#[test]
fn exp_and_exp2_within_one_ulp() {
    let mut rng = Lcg(5);
    let (mut worst_exp, mut worst_exp2) = (Worst::new(), Worst::new());
    for _ in 0..3_000_000 {
        let x = ((rng.next() * 2.0 - 1.0) * 104.0) as f32;
        let got = det_exp(x);
        let exact = (x as f64).exp();
        worst_exp.add(ulps(got, exact), || format!("exp({x:e}) = {got:e}, exact {exact:e}"));
        let x2 = ((rng.next() * 2.0 - 1.0) * 150.0) as f32;
        let got2 = det_exp2(x2);
        let exact2 = (x2 as f64).exp2();
        worst_exp2.add(ulps(got2, exact2), || format!("exp2({x2:e}) = {got2:e}, exact {exact2:e}"));
    }
    // Small arguments (the volume renderer's transmittances) on a fine grid.
    for i in 0..1_000_000 {
        let x = -(i as f32) * 1e-5;
        let got = det_exp(x);
        let exact = (x as f64).exp();
        worst_exp.add(ulps(got, exact), || format!("exp({x:e}) = {got:e}, exact {exact:e}"));
    }
    println!("exp: {:.3} ulp at {}", worst_exp.ulps, worst_exp.at);
    println!("exp2: {:.3} ulp at {}", worst_exp2.ulps, worst_exp2.at);
    assert!(worst_exp.ulps <= 1.0 && worst_exp2.ulps <= 1.0);
}

#[test]
fn ln_within_0_6_ulp() {
    let mut rng = Lcg(6);
    let mut worst = Worst::new();
    let mut check = |x: f32| {
        let got = det_ln(x);
        let exact = (x as f64).ln();
        worst.add(ulps(got, exact), || format!("ln({x:e}) = {got:e}, exact {exact:e}"));
    };
    // Over every binade (subnormals included), and densely around 1.
    for _ in 0..3_000_000 {
        check(f32::from_bits((rng.next() * 0x7f80_0000 as f64) as u32).max(f32::from_bits(1)));
    }
    for _ in 0..1_000_000 {
        check((rng.next() * 2.0) as f32);
    }
    let mut x = 1.0f32;
    for _ in 0..100_000 {
        check(x);
        check(2.0 - x);
        x = f32::from_bits(x.to_bits() - 1);
    }
    println!("ln: {:.3} ulp at {}", worst.ulps, worst.at);
    assert!(worst.ulps <= 0.6);
}

#[test]
fn pow_within_a_few_ulp() {
    let mut rng = Lcg(7);
    let (mut moderate, mut extreme) = (Worst::new(), Worst::new());
    let mut check = |x: f32, y: f32| {
        let got = det_pow(x, y);
        let exact = (x as f64).powf(y as f64);
        // Only results in the normal range: subnormals have fewer digits to be measured in.
        if !(exact >= f32::MIN_POSITIVE as f64 && exact <= f32::MAX as f64) {
            return;
        }
        let e = ulps(got, exact);
        let worst = if ((y as f64) * (x as f64).ln()).abs() <= 20.0 { &mut moderate } else { &mut extreme };
        worst.add(e, || format!("pow({x:e}, {y:e}) = {got:e}, exact {exact:e}"));
    };
    // The renderers' uses: cos^n with n up to 10^4 (Blinn lobes) and u^(1/(n+1)).
    for _ in 0..2_000_000 {
        let x = rng.next() as f32;
        let n = (10f64.powf(rng.next() * 4.0)) as f32;
        check(x, n);
        check(x, 1.0 / (n + 1.0));
    }
    // General positive bases and exponents of both signs.
    for _ in 0..2_000_000 {
        let x = 10f64.powf(rng.next() * 20.0 - 10.0) as f32;
        let y = ((rng.next() * 2.0 - 1.0) * 10f64.powf(rng.next() * 3.0 - 1.0)) as f32;
        check(x, y);
    }
    println!("pow, |y ln x| <= 20: {:.3} ulp at {}", moderate.ulps, moderate.at);
    println!("pow, |y ln x| > 20: {:.3} ulp at {}", extreme.ulps, extreme.at);
    assert!(moderate.ulps <= 2.0 && extreme.ulps <= 6.0);
}

/// The functions agree with each other where exact identities hold.
#[test]
fn identities() {
    let mut rng = Lcg(8);
    for _ in 0..100_000 {
        let x = rng.next() as f32 * 2.0 - 1.0;
        // acos(cos θ) ≈ θ and atan2(sin θ, cos θ) ≈ θ on [0, π].
        let theta = (rng.next() * std::f64::consts::PI) as f32;
        let (s, c) = det_sin_cos(theta);
        assert!((det_atan2(s, c) - theta).abs() <= 4e-7 * theta.max(1.0), "atan2 at {theta}");
        assert!((det_acos(c) - theta).abs() <= 2e-3 * theta.max(1.0), "acos at {theta}");
        let r2 = s * s + c * c;
        assert!((r2 - 1.0).abs() <= 4e-7, "sin² + cos² at {theta}: {r2}");
        // ln(exp x) ≈ x, exp2 = pow(2, ·), pow(x, 1) = x.
        let y = x * 80.0;
        assert!((det_ln(det_exp(y)) - y).abs() <= 1e-5 * y.abs().max(1.0), "ln exp {y}");
        assert_eq!(det_pow(2.0, (y * 0.5).round()), det_exp2((y * 0.5).round()), "exp2 at {y}");
        let base = rng.next() as f32 * 100.0 + 1e-3;
        assert!(ulps(det_pow(base, 1.0), base as f64) <= 1.0, "pow({base}, 1)");
    }
}
