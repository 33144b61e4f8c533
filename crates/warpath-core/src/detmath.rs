//! Deterministic transcendental functions: sin/cos, atan2, acos, exp, exp2, ln and pow in
//! f32, built only from IEEE-exact operations (`+ − × ÷ sqrt`, `floor`, comparisons, bit
//! casts and integer arithmetic), so that the same inputs give bit-identical outputs on
//! every machine that rounds f32 to nearest.
//!
//! Why: libm's `sinf`, `atan2f`, `powf` … are not correctly rounded, and CUDA's differ from
//! glibc's by an ulp here and there. A path tracer takes decisions on such values (is a
//! sampled direction above the horizon? does roulette kill the path?), so one ulp can send
//! a CPU path and its GPU twin different ways. These functions are written operation for
//! operation alike in `crates/warpath-cuda/kernels/common/detmath.cuh`, where every
//! operation is an explicitly rounded intrinsic (`__fadd_rn`, `__fmul_rn`, …) so that
//! NVRTC's `--fmad=true` cannot fuse a multiply and an add; Rust never fuses on its own.
//! Keep the two files in step: change one statement here, change the same one there.
//!
//! Accuracy (measured against f64 by `tests/detmath.rs` on millions of inputs): a few ulp
//! over the ranges the renderers use; see each function. The algorithms are the classic
//! ones (Cody–Waite argument reduction, short polynomials from Cephes' single-precision
//! library, double-float arithmetic with Dekker/Knuth error-free transforms for `pow`).
//!
//! Special values follow libm where it is cheap; the differences are documented (for
//! instance `det_pow` of a negative base is NaN, integer exponents included).

// ---- constants (each an f32; the CUDA file spells the same decimal literals) ----------------

/// π/2 in four parts for Cody–Waite reduction: the first three have at most 12 significant
/// bits, so `k · PIO2_n` is exact and the reduction loses nothing for |k| < 2^12, i.e.
/// |x| up to about 6400; the parts sum to π/2 within 1e-19.
const PIO2_1: f32 = 1.5703125;
const PIO2_2: f32 = 4.837512969970703e-4;
const PIO2_3: f32 = 7.549533620476723e-8;
const PIO2_4: f32 = 2.5633440682570896e-12;
const TWO_OVER_PI: f32 = 0.636619772367581343;
/// π/2 and π as f32 plus their remainders (for acos and atan2).
const PIO2_HI: f32 = 1.57079637050628662;
const PIO2_LO: f32 = -4.37113900018624283e-8;
const PI_HI: f32 = 3.14159274101257324;
const PI_LO: f32 = -8.74227800037248566e-8;
const PIO4_HI: f32 = 0.785398185253143311;
const PIO4_LO: f32 = -2.18556950009312141e-8;
/// ln 2 in two parts: `k · LN2_HI` is exact for |k| < 2^15.
const LN2_HI: f32 = 0.693359375;
const LN2_LO: f32 = -2.12194440e-4;
const LN2: f32 = 0.693147180559945309;
const LOG2_E: f32 = 1.44269504088896341;
const SQRT2: f32 = 1.41421356237309505;
const TAN_PI_8: f32 = 0.414213562373095049;
/// Veltkamp's splitter for f32: 2^12 + 1.
const SPLITTER: f32 = 4097.0;
/// exp overflows above this and rounds to zero below `EXP_MIN`.
const EXP_MAX: f32 = 88.7228394;
const EXP_MIN: f32 = -103.972084;
const F32_INFINITY_BITS: u32 = 0x7f80_0000;

#[inline(always)]
fn is_nan(x: f32) -> bool {
    x.to_bits() & 0x7fff_ffff > F32_INFINITY_BITS
}

#[inline(always)]
fn is_finite(x: f32) -> bool {
    x.to_bits() & 0x7fff_ffff < F32_INFINITY_BITS
}

#[inline(always)]
fn abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0x7fff_ffff)
}

/// 2^n for an integer n in [-126, 127], from its bits.
#[inline(always)]
fn pow2i(n: i32) -> f32 {
    f32::from_bits(((n + 127) as u32) << 23)
}

// ---- sin and cos ------------------------------------------------------------------------------

/// sin(r) for |r| ≤ π/4 (Cephes sinf's polynomial).
#[inline(always)]
fn sin_poly(r: f32, z: f32) -> f32 {
    let mut p = -1.9515295891e-4 * z;
    p = p + 8.3321608736e-3;
    p = p * z;
    p = p - 1.6666654611e-1;
    p = p * z;
    p = p * r;
    p + r
}

/// cos(r) for |r| ≤ π/4 (Cephes cosf's polynomial).
#[inline(always)]
fn cos_poly(z: f32) -> f32 {
    let mut p = 2.443315711809948e-5 * z;
    p = p - 1.388731625493765e-3;
    p = p * z;
    p = p + 4.166664568298827e-2;
    p = p * z;
    p = p * z;
    let half_z = 0.5 * z;
    p = p - half_z;
    p + 1.0
}

/// (sin x, cos x). Within 1.5 ulp on [−4π, 4π] and 2.5 ulp for |x| ≤ 6400, the range of
/// an exact reduction (zeros included: the reduced argument keeps its relative accuracy);
/// larger |x| are reduced inexactly. NaN and ±∞ give NaN.
pub fn det_sin_cos(x: f32) -> (f32, f32) {
    if !is_finite(x) {
        return (f32::NAN, f32::NAN);
    }
    let t = x * TWO_OVER_PI;
    let k = (t + 0.5).floor();
    let mut r = x - k * PIO2_1;
    r = r - k * PIO2_2;
    r = r - k * PIO2_3;
    r = r - k * PIO2_4;
    let z = r * r;
    let s = sin_poly(r, z);
    let c = cos_poly(z);
    // The quadrant k mod 4, from the float k (exact below 2^24).
    let quarter = (k * 0.25).floor();
    let quadrant = (k - quarter * 4.0) as i32;
    match quadrant {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

// ---- atan2 and acos ---------------------------------------------------------------------------

/// atan(a) − a for |a| ≤ tan(π/8), as `a³ · P(a²)` (Cephes atanf's polynomial).
#[inline(always)]
fn atan_tail(a: f32) -> f32 {
    let z = a * a;
    let mut p = 8.05374449538e-2 * z;
    p = p - 1.38776856032e-1;
    p = p * z;
    p = p + 1.99777106478e-1;
    p = p * z;
    p = p - 3.33329491539e-1;
    p = p * z;
    p * a
}

/// The angle of (x, y) in [−π, π]. Within 2.5 ulp. Conventions: atan2(±0, x ≥ +0) = ±0 and
/// atan2(±0, x < 0) = ±π as in libm, but atan2(±0, −0) = ±0 (libm: ±π); two infinities
/// give ±π/4 or ±3π/4; NaN in, NaN out.
pub fn det_atan2(y: f32, x: f32) -> f32 {
    if is_nan(x) || is_nan(y) {
        return f32::NAN;
    }
    let ax = abs(x);
    let ay = abs(y);
    let swap = ay > ax;
    let big = if swap { ay } else { ax };
    let small = if swap { ax } else { ay };
    // a = small / big in [0, 1]; 0/0 is the origin and ∞/∞ the diagonal.
    let a = if big == 0.0 {
        0.0
    } else if !is_finite(big) {
        if is_finite(small) { 0.0 } else { 1.0 }
    } else {
        small / big
    };
    // atan(a) as hi + lo: a + tail, or π/4 + atan((a − 1)/(a + 1)) above tan(π/8).
    let mut angle;
    if a > TAN_PI_8 {
        let num = a - 1.0;
        let den = a + 1.0;
        let w = num / den;
        let tail = atan_tail(w);
        angle = tail + PIO4_LO;
        angle = angle + w;
        angle = angle + PIO4_HI;
    } else {
        let tail = atan_tail(a);
        angle = tail + a;
    }
    // Back to the octant of (x, y).
    if swap {
        let d = PIO2_LO - angle;
        angle = d + PIO2_HI;
    }
    if x < 0.0 {
        let d = PI_LO - angle;
        angle = d + PI_HI;
    }
    if y.to_bits() >> 31 != 0 { -angle } else { angle }
}

/// asin(s) − s for 0 ≤ s ≤ 1/2, as `s · z · P(z)` with z = s² (Cephes asinf's polynomial).
#[inline(always)]
fn asin_tail(s: f32, z: f32) -> f32 {
    let mut p = 4.2163199048e-2 * z;
    p = p + 2.4181311049e-2;
    p = p * z;
    p = p + 4.5470025998e-2;
    p = p * z;
    p = p + 7.4953002686e-2;
    p = p * z;
    p = p + 1.6666752422e-1;
    p = p * z;
    p * s
}

/// acos(x) in [0, π] for x in [−1, 1]. Within 1.5 ulp. Outside [−1, 1] and for NaN: NaN.
pub fn det_acos(x: f32) -> f32 {
    if !(abs(x) <= 1.0) {
        return f32::NAN;
    }
    if x > 0.5 {
        // acos x = 2 asin √((1 − x)/2).
        let z = (1.0 - x) * 0.5;
        let s = z.sqrt();
        let a = asin_tail(s, z) + s;
        a * 2.0
    } else if x < -0.5 {
        // acos x = π − 2 asin √((1 + x)/2).
        let z = (1.0 + x) * 0.5;
        let s = z.sqrt();
        let a = asin_tail(s, z) + s;
        let twice = a * 2.0;
        let d = PI_LO - twice;
        d + PI_HI
    } else {
        // acos x = π/2 − asin x.
        let z = x * x;
        let a = asin_tail(x, z);
        let d = PIO2_LO - a;
        let e = d - x;
        e + PIO2_HI
    }
}

// ---- exp and exp2 -------------------------------------------------------------------------------

/// e^r for |r| ≤ ln2/2 (Cephes expf's polynomial): 1 + r + r² P(r).
#[inline(always)]
fn exp_poly(r: f32) -> f32 {
    let z = r * r;
    let mut p = 1.9875691500e-4 * r;
    p = p + 1.3981999507e-3;
    p = p * r;
    p = p + 8.3334519073e-3;
    p = p * r;
    p = p + 4.1665795894e-2;
    p = p * r;
    p = p + 1.6666665459e-1;
    p = p * r;
    p = p + 5.0000001201e-1;
    p = p * z;
    p = p + r;
    p + 1.0
}

/// p · 2^k for p in [0.7, 1.5] and an integer k in [−150, 128], rounded once (to a
/// subnormal or to infinity where the result lies there).
#[inline(always)]
fn scale_by_pow2(p: f32, k: f32) -> f32 {
    let k1 = (k * 0.5).floor();
    let k2 = k - k1;
    let scaled = p * pow2i(k1 as i32);
    scaled * pow2i(k2 as i32)
}

/// e^(hi + lo) for a double-float argument (|lo| ≤ ulp(hi)); `det_exp` passes lo = 0.
#[inline(always)]
fn exp_double_float(hi: f32, lo: f32) -> f32 {
    if is_nan(hi) {
        return f32::NAN;
    }
    if hi > EXP_MAX {
        return f32::INFINITY;
    }
    if hi < EXP_MIN {
        return 0.0;
    }
    let t = hi * LOG2_E;
    let k = (t + 0.5).floor();
    let mut r = hi - k * LN2_HI;
    r = r - k * LN2_LO;
    r = r + lo;
    scale_by_pow2(exp_poly(r), k)
}

/// e^x. Within 1 ulp (subnormal results: within their absolute rounding). Overflows to +∞
/// above 88.72, is 0 below −103.97; NaN in, NaN out.
pub fn det_exp(x: f32) -> f32 {
    exp_double_float(x, 0.0)
}

/// 2^x. Within 1 ulp, same conventions as [`det_exp`] (overflow above 128, 0 below −150).
pub fn det_exp2(x: f32) -> f32 {
    if is_nan(x) {
        return f32::NAN;
    }
    if x >= 128.0 {
        return f32::INFINITY;
    }
    if x < -150.0 {
        return 0.0;
    }
    let k = (x + 0.5).floor();
    let f = x - k;
    let r = f * LN2;
    scale_by_pow2(exp_poly(r), k)
}

// ---- ln and pow ---------------------------------------------------------------------------------

/// Knuth's two-sum: s + e = a + b exactly.
#[inline(always)]
fn two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let bb = s - a;
    let aa = s - bb;
    let da = a - aa;
    let db = b - bb;
    (s, da + db)
}

/// Veltkamp's split: hi + lo = a with 12 significant bits in hi (|a| < 2^115).
#[inline(always)]
fn split(a: f32) -> (f32, f32) {
    let t = SPLITTER * a;
    let d = t - a;
    let hi = t - d;
    (hi, a - hi)
}

/// Dekker's two-product without FMA: p + e = a · b exactly (barring under/overflow).
#[inline(always)]
fn two_product(a: f32, b: f32) -> (f32, f32) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let mut e = ah * bh;
    e = e - p;
    e = e + ah * bl;
    e = e + al * bh;
    e = e + al * bl;
    (p, e)
}

/// atanh(s) − s for |s| ≤ 3 − 2√2 (0.1716), as `s³ · Q(s²)`: the series
/// s³/3 + s⁵/5 + … + s¹³/13, whose first omitted term is below 4e-13.
#[inline(always)]
fn atanh_tail(s: f32) -> f32 {
    let z = s * s;
    let mut q = 7.6923076923e-2 * z;
    q = q + 9.0909090909e-2;
    q = q * z;
    q = q + 1.1111111111e-1;
    q = q * z;
    q = q + 1.4285714286e-1;
    q = q * z;
    q = q + 2.0e-1;
    q = q * z;
    q = q + 3.3333333333e-1;
    q = q * z;
    q * s
}

/// ln x as a double-float hi + lo (about 2^-31 relative: the tail's own f32 rounding) for
/// a finite x > 0.
#[inline(always)]
fn ln_double_float(x: f32) -> (f32, f32) {
    // x = m · 2^e with m in (√½, √2].
    let mut v = x;
    let mut e = 0i32;
    if v.to_bits() < 0x0080_0000 {
        v = v * 8388608.0; // 2^23: subnormals become normal
        e = -23;
    }
    let bits = v.to_bits();
    e = e + ((bits >> 23) as i32 - 127);
    let mut m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    if m > SQRT2 {
        m = m * 0.5;
        e = e + 1;
    }
    let ef = e as f32;
    // ln m = 2 atanh(s) with s = f / (2 + f), f = m − 1 (exact); s as a double-float.
    let f = m - 1.0;
    let (d_hi, d_lo) = two_sum(2.0, f);
    let s_hi = f / d_hi;
    let (p, p_err) = two_product(s_hi, d_hi);
    let mut residual = f - p;
    residual = residual - p_err;
    residual = residual - s_hi * d_lo;
    let s_lo = residual / d_hi;
    // ln x = e·LN2_HI + 2 s_hi + (2 s_lo + 2 atanh_tail(s) + e·LN2_LO).
    let mut lo = atanh_tail(s_hi) + s_lo;
    lo = lo * 2.0;
    lo = lo + ef * LN2_LO;
    let a = ef * LN2_HI;
    let (sum, sum_err) = two_sum(a, s_hi * 2.0);
    lo = lo + sum_err;
    let hi = sum + lo;
    let back = hi - sum;
    (hi, lo - back)
}

/// ln x. Within 0.6 ulp. ln(±0) = −∞, ln(+∞) = +∞, negative or NaN: NaN.
pub fn det_ln(x: f32) -> f32 {
    if is_nan(x) || x < 0.0 {
        return f32::NAN;
    }
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if !is_finite(x) {
        return f32::INFINITY;
    }
    ln_double_float(x).0
}

/// x^y for x ≥ 0, as e^(y · ln x) with ln x and the product in double-float arithmetic.
/// Within 2 ulp where |y ln x| ≤ 20 and 6 ulp up to the overflow and underflow limits
/// (normal results; the error of ln x, about 2^-31 relative, is multiplied by |y ln x|).
/// x^0 = 1 (NaN x included), 1^y = 1; 0^y is 0 for y > 0 and +∞ for y < 0; ∞^y is +∞
/// for y > 0 and 0 for y < 0; a negative x gives NaN (libm: ±|x|^y for integer y).
pub fn det_pow(x: f32, y: f32) -> f32 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if is_nan(x) || is_nan(y) || x < 0.0 {
        return f32::NAN;
    }
    if x == 0.0 {
        return if y > 0.0 { 0.0 } else { f32::INFINITY };
    }
    if !is_finite(x) {
        return if y > 0.0 { f32::INFINITY } else { 0.0 };
    }
    let (l_hi, l_lo) = ln_double_float(x);
    // Outside the range of exp the result is known; this also keeps the split finite.
    let rough = y * l_hi;
    if !(rough <= 89.0) {
        return f32::INFINITY;
    }
    if !(rough >= -104.5) {
        return 0.0;
    }
    let (p_hi, p_lo) = two_product(y, l_hi);
    let lo = p_lo + y * l_lo;
    let hi = p_hi + lo;
    let back = hi - p_hi;
    exp_double_float(hi, lo - back)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values() {
        assert_eq!(det_sin_cos(0.0), (0.0, 1.0));
        assert_eq!(det_exp(0.0), 1.0);
        assert_eq!(det_exp2(3.0), 8.0);
        assert_eq!(det_exp2(-149.0), f32::from_bits(1));
        assert_eq!(det_ln(1.0), 0.0);
        assert_eq!(det_pow(0.25, 0.5), 0.5);
        assert_eq!(det_pow(2.0, 10.0), 1024.0);
        assert_eq!(det_acos(1.0), 0.0);
        assert_eq!(det_atan2(0.0, 1.0), 0.0);
        assert_eq!(det_atan2(1.0, 0.0), PIO2_HI);
        assert_eq!(det_atan2(0.0, -1.0), PI_HI);
        assert_eq!(det_atan2(-0.0, -1.0), -PI_HI);
        assert_eq!(det_acos(-1.0), PI_HI);
    }

    #[test]
    fn special_values() {
        assert!(det_sin_cos(f32::INFINITY).0.is_nan() && det_sin_cos(f32::NAN).1.is_nan());
        assert_eq!(det_exp(100.0), f32::INFINITY);
        assert_eq!(det_exp(-110.0), 0.0);
        assert!(det_exp(f32::NAN).is_nan());
        assert_eq!(det_ln(0.0), f32::NEG_INFINITY);
        assert_eq!(det_ln(f32::INFINITY), f32::INFINITY);
        assert!(det_ln(-1.0).is_nan());
        assert_eq!(det_pow(0.0, 2.0), 0.0);
        assert_eq!(det_pow(0.0, -2.0), f32::INFINITY);
        assert_eq!(det_pow(f32::NAN, 0.0), 1.0);
        assert!(det_pow(-2.0, 2.0).is_nan());
        assert_eq!(det_pow(0.5, 200.0), 0.0);
        assert_eq!(det_pow(2.0, 200.0), f32::INFINITY);
        assert!(det_acos(1.5).is_nan() && det_acos(f32::NAN).is_nan());
        assert!(det_atan2(f32::NAN, 1.0).is_nan());
        assert_eq!(det_atan2(f32::INFINITY, f32::INFINITY), PIO4_HI);
    }
}
