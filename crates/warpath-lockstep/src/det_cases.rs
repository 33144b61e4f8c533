//! The `det_` cases: warpath_core::detmath's deterministic transcendentals against
//! common/detmath.cuh, bit for bit, on arguments drawn across each function's whole range
//! (log-uniform magnitudes, random bit patterns, subnormals) and piled up where the
//! functions branch or lose accuracy: near multiples of π/2 for sine and cosine, near the
//! octant and tan(π/8) switches of atan2, near ±½ and ±1 for acos, near the overflow and
//! underflow limits and the reduction's half-steps for exp and exp2, near 1 and the √2
//! mantissa switch for ln, and where y · ln x meets pow's cut-offs; plus 0, −0, ±∞ and NaN.

use crate::host_scene::HostScene;
use crate::words::{Output, Reader, Rng, Words};
use std::f64::consts::{FRAC_PI_2, LN_2};
use warpath_core::detmath::{det_acos, det_atan2, det_exp, det_exp2, det_ln, det_pow, det_sin_cos};

// ---- the Rust twins ---------------------------------------------------------------------------

pub fn sin_cos(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (s, c) = det_sin_cos(r.f());
    o.f(s);
    o.f(c);
}
pub fn atan2(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let y = r.f();
    o.f(det_atan2(y, r.f()));
}
pub fn acos(_: &HostScene, r: &mut Reader, o: &mut Output) {
    o.f(det_acos(r.f()));
}
pub fn exp(_: &HostScene, r: &mut Reader, o: &mut Output) {
    o.f(det_exp(r.f()));
}
pub fn exp2(_: &HostScene, r: &mut Reader, o: &mut Output) {
    o.f(det_exp2(r.f()));
}
pub fn ln(_: &HostScene, r: &mut Reader, o: &mut Output) {
    o.f(det_ln(r.f()));
}
pub fn pow(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let x = r.f();
    o.f(det_pow(x, r.f()));
}

// ---- argument drawers -------------------------------------------------------------------------

/// The values every function is tried on now and then.
const SPECIAL: &[f32] = &[
    0.0,
    -0.0,
    f32::from_bits(1),
    -f32::from_bits(1),
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    f32::MAX,
    -f32::MAX,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

/// `x` moved `steps` ulps along the float line (through zero and subnormals; ±∞ and NaN
/// stay).
pub fn step_ulps(x: f32, steps: i32) -> f32 {
    let mut x = x;
    for _ in 0..steps.unsigned_abs() {
        x = if steps > 0 { x.next_up() } else { x.next_down() };
    }
    x
}

/// `x` moved up to `spread` ulps either way.
fn jitter(rng: &mut Rng, x: f32, spread: u32) -> f32 {
    step_ulps(x, rng.below(2 * spread + 1) as i32 - spread as i32)
}

/// Any float bit pattern: NaNs, infinities and subnormals included.
fn any_bits(rng: &mut Rng) -> f32 {
    f32::from_bits(rng.u32())
}

/// |x| log-uniform over 2^lo .. 2^hi, either sign when `signed`.
fn log_uniform(rng: &mut Rng, lo: i32, hi: i32, signed: bool) -> f32 {
    let exponent = lo + rng.below((hi - lo) as u32) as i32;
    let x = (1.0 + rng.unit() as f64) * 2f64.powi(exponent);
    let x = x as f32;
    if signed && rng.chance(0.5) { -x } else { x }
}

/// A float of the given f64 value, rounded to f32, then moved a few ulps.
fn near(rng: &mut Rng, value: f64, spread: u32) -> f32 {
    jitter(rng, value as f32, spread)
}

pub fn sin_cos_arg(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let x = match rng.below(16) {
        0..=4 => rng.range(-4.0 * std::f32::consts::PI, 4.0 * std::f32::consts::PI),
        5..=7 => {
            // Near k·π/2, where the quadrant switches and the reduced argument nears 0.
            let k = match rng.below(4) {
                0 => rng.below(4097) as i64 - 2048,
                1 => rng.below(200_001) as i64 - 100_000,
                _ => rng.below(17) as i64 - 8,
            };
            near(rng, k as f64 * FRAC_PI_2, 3)
        }
        8 => {
            let k = 2 * rng.below(16) as i64 + 1;
            near(rng, k as f64 * std::f64::consts::FRAC_PI_4, 3)
        }
        9 | 10 => rng.range(-6500.0, 6500.0),
        11 | 12 => log_uniform(rng, -149, 128, true),
        13 => any_bits(rng),
        14 => {
            let x = rng.pick(&[6433.0, 6434.0, 1e8, 2.0f32.powi(24), 2.0f32.powi(26)]);
            jitter(rng, x, 2)
        }
        _ => rng.pick(SPECIAL),
    };
    w.f(x);
}

pub fn atan2_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let any = |rng: &mut Rng| match rng.below(8) {
        0..=3 => rng.range(-4.0, 4.0),
        4 | 5 => log_uniform(rng, -149, 128, true),
        6 => any_bits(rng),
        _ => rng.pick(SPECIAL),
    };
    let signed = |rng: &mut Rng, v: f32| if rng.chance(0.5) { -v } else { v };
    let (y, x) = match rng.below(8) {
        0..=2 => (any(rng), any(rng)),
        3 => {
            // |y| ≈ |x|: the octant swap.
            let x = log_uniform(rng, -20, 20, true);
            let y = jitter(rng, x.abs(), 2);
            (signed(rng, y), x)
        }
        4 | 5 => {
            // small / big ≈ tan(π/8): the switch to the π/4-centred series.
            let big = log_uniform(rng, -20, 20, false);
            let small = jitter(rng, (big as f64 * 0.414_213_562_373_095_05) as f32, 3);
            if rng.chance(0.5) {
                (signed(rng, small), signed(rng, big))
            } else {
                (signed(rng, big), signed(rng, small))
            }
        }
        6 => (rng.pick(&[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY]), any(rng)),
        _ => (any(rng), rng.pick(&[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY])),
    };
    w.f(y);
    w.f(x);
}

pub fn acos_arg(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let x = match rng.below(10) {
        0..=4 => rng.range(-1.0, 1.0),
        5 => {
            let x = rng.pick(&[0.5, -0.5]);
            jitter(rng, x, 4)
        }
        6 => {
            let x = rng.pick(&[1.0, -1.0]);
            jitter(rng, x, 6)
        }
        7 => log_uniform(rng, -149, 1, true),
        8 => any_bits(rng),
        _ => rng.pick(SPECIAL),
    };
    w.f(x);
}

pub fn exp_arg(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let x = match rng.below(10) {
        0..=3 => rng.range(-110.0, 95.0),
        // Where the result overflows, underflows to 0, or goes subnormal.
        4 => {
            let x = rng.pick(&[88.722_84, -103.972_08, -87.336_55, 88.0, -104.0]);
            jitter(rng, x, 4)
        }
        // Half-steps of the reduction: x ≈ (k + ½) ln 2.
        5 => {
            let k = rng.below(300) as f64 - 150.0;
            near(rng, (k + 0.5) * LN_2, 2)
        }
        6 => log_uniform(rng, -149, 8, true),
        7 => any_bits(rng),
        8 => rng.range(-1.0, 1.0),
        _ => rng.pick(SPECIAL),
    };
    w.f(x);
}

pub fn exp2_arg(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let x = match rng.below(10) {
        0..=3 => rng.range(-155.0, 130.0),
        4 => {
            let x = rng.pick(&[128.0, -150.0, -149.0, -126.0, 127.0]);
            jitter(rng, x, 4)
        }
        // Integers and half-integers: the reduction's steps.
        5 => {
            let k = rng.below(600) as f64 - 300.0;
            near(rng, k * 0.5, 2)
        }
        6 => log_uniform(rng, -149, 8, true),
        7 => any_bits(rng),
        8 => rng.range(-1.0, 1.0),
        _ => rng.pick(SPECIAL),
    };
    w.f(x);
}

/// A positive float for ln and pow's base: any magnitude, subnormals included, near 1 and
/// near the mantissa's √2 switch.
fn ln_base(rng: &mut Rng) -> f32 {
    match rng.below(10) {
        0..=2 => log_uniform(rng, -149, 128, false),
        3 | 4 => {
            // Within a few thousand ulps of 1, either side.
            let steps = rng.below(4001) as i32 - 2000;
            step_ulps(1.0, if rng.chance(0.5) { steps } else { steps / 100 })
        }
        5 => {
            let e = rng.below(60) as i32 - 30;
            near(rng, std::f64::consts::SQRT_2 * 2f64.powi(e), 3)
        }
        6 => rng.range(0.0, 4.0),
        7 => f32::from_bits(rng.below(0x0080_0000)),
        8 => any_bits(rng),
        _ => rng.pick(SPECIAL),
    }
}

pub fn ln_arg(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.f(ln_base(rng));
}

pub fn pow_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let x = ln_base(rng);
    let y = match rng.below(10) {
        0..=2 => rng.range(-10.0, 10.0),
        3 => (rng.below(41) as f32 - 20.0) * rng.pick(&[1.0, 0.5]),
        4 => log_uniform(rng, -30, 40, true),
        5 | 6 => {
            // y · ln x near the cut-offs of the result (overflow, underflow, subnormals).
            let ln_x = (x as f64).ln();
            if ln_x.is_finite() && ln_x != 0.0 {
                let target = rng.pick(&[88.72, 89.0, -103.97, -104.5, -87.3, 20.0, -20.0]);
                jitter(rng, (target / ln_x) as f32, 3)
            } else {
                rng.range(-4.0, 4.0)
            }
        }
        7 => any_bits(rng),
        _ => rng.pick(SPECIAL),
    };
    w.f(x);
    w.f(y);
}
