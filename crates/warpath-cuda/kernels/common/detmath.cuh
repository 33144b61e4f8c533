// common/detmath.cuh — warpath_core::detmath on the device: deterministic sin/cos, atan2,
// acos, exp, exp2, ln and pow in float, built only from IEEE-exact operations (+ − × ÷ sqrt,
// floor, comparisons, bit casts, integer arithmetic). Every floating-point operation is an
// explicitly rounded intrinsic (__fadd_rn, __fmul_rn, ...), so NVRTC's --fmad=true cannot
// fuse a multiply and an add, and each function returns, for the same input, the same bits
// as the Rust function of the same name on the CPU. CUDA's own sinf/atan2f/powf differ from
// glibc's by an ulp here and there, and the estimator takes decisions on these values.
//
// This file mirrors crates/warpath-core/src/detmath.rs statement for statement, with the same
// decimal literals (each with an f suffix); keep the two in step. Accuracy and special values
// are documented there (a few ulp; det_pow of a negative base is NaN). Self-contained: it
// includes nothing, so a host harness can compile it with stand-ins for the intrinsics.
#pragma once

// ---- constants (the Rust file's, literal for literal) ---------------------------------------

// π/2 in four parts for Cody–Waite reduction (exact for |x| up to about 6400).
#define DET_PIO2_1 1.5703125f
#define DET_PIO2_2 4.837512969970703e-4f
#define DET_PIO2_3 7.549533620476723e-8f
#define DET_PIO2_4 2.5633440682570896e-12f
#define DET_TWO_OVER_PI 0.636619772367581343f
// π/2, π and π/4 as float plus their remainders.
#define DET_PIO2_HI 1.57079637050628662f
#define DET_PIO2_LO -4.37113900018624283e-8f
#define DET_PI_HI 3.14159274101257324f
#define DET_PI_LO -8.74227800037248566e-8f
#define DET_PIO4_HI 0.785398185253143311f
#define DET_PIO4_LO -2.18556950009312141e-8f
// ln 2 in two parts.
#define DET_LN2_HI 0.693359375f
#define DET_LN2_LO -2.12194440e-4f
#define DET_LN2 0.693147180559945309f
#define DET_LOG2_E 1.44269504088896341f
#define DET_SQRT2 1.41421356237309505f
#define DET_TAN_PI_8 0.414213562373095049f
// Veltkamp's splitter for float: 2^12 + 1.
#define DET_SPLITTER 4097.0f
#define DET_EXP_MAX 88.7228394f
#define DET_EXP_MIN -103.972084f
#define DET_INFINITY_BITS 0x7f800000u
#define DET_NAN __uint_as_float(0x7fc00000u)
#define DET_INFINITY __uint_as_float(DET_INFINITY_BITS)

__device__ __forceinline__ bool det_is_nan(float x) { return (__float_as_uint(x) & 0x7fffffffu) > DET_INFINITY_BITS; }

__device__ __forceinline__ bool det_is_finite(float x) {
    return (__float_as_uint(x) & 0x7fffffffu) < DET_INFINITY_BITS;
}

__device__ __forceinline__ float det_abs(float x) { return __uint_as_float(__float_as_uint(x) & 0x7fffffffu); }

// 2^n for an integer n in [-126, 127], from its bits.
__device__ __forceinline__ float det_pow2i(int n) { return __uint_as_float(((unsigned int)(n + 127)) << 23); }

// ---- sin and cos ------------------------------------------------------------------------------

// sin(r) for |r| ≤ π/4 (Cephes sinf's polynomial).
__device__ __forceinline__ float det_sin_poly(float r, float z) {
    float p = __fmul_rn(-1.9515295891e-4f, z);
    p = __fadd_rn(p, 8.3321608736e-3f);
    p = __fmul_rn(p, z);
    p = __fsub_rn(p, 1.6666654611e-1f);
    p = __fmul_rn(p, z);
    p = __fmul_rn(p, r);
    return __fadd_rn(p, r);
}

// cos(r) for |r| ≤ π/4 (Cephes cosf's polynomial).
__device__ __forceinline__ float det_cos_poly(float z) {
    float p = __fmul_rn(2.443315711809948e-5f, z);
    p = __fsub_rn(p, 1.388731625493765e-3f);
    p = __fmul_rn(p, z);
    p = __fadd_rn(p, 4.166664568298827e-2f);
    p = __fmul_rn(p, z);
    p = __fmul_rn(p, z);
    const float half_z = __fmul_rn(0.5f, z);
    p = __fsub_rn(p, half_z);
    return __fadd_rn(p, 1.0f);
}

// (sin x, cos x) into s and c.
__device__ __forceinline__ void det_sin_cos(float x, float& s, float& c) {
    if (!det_is_finite(x)) {
        s = DET_NAN;
        c = DET_NAN;
        return;
    }
    const float t = __fmul_rn(x, DET_TWO_OVER_PI);
    const float k = floorf(__fadd_rn(t, 0.5f));
    float r = __fsub_rn(x, __fmul_rn(k, DET_PIO2_1));
    r = __fsub_rn(r, __fmul_rn(k, DET_PIO2_2));
    r = __fsub_rn(r, __fmul_rn(k, DET_PIO2_3));
    r = __fsub_rn(r, __fmul_rn(k, DET_PIO2_4));
    const float z = __fmul_rn(r, r);
    const float sr = det_sin_poly(r, z);
    const float cr = det_cos_poly(z);
    // The quadrant k mod 4, from the float k (exact below 2^24).
    const float quarter = floorf(__fmul_rn(k, 0.25f));
    const int quadrant = (int)__fsub_rn(k, __fmul_rn(quarter, 4.0f));
    switch (quadrant) {
        case 0: s = sr; c = cr; break;
        case 1: s = cr; c = -sr; break;
        case 2: s = -sr; c = -cr; break;
        default: s = -cr; c = sr; break;
    }
}

// ---- atan2 and acos ---------------------------------------------------------------------------

// atan(a) − a for |a| ≤ tan(π/8), as a³·P(a²) (Cephes atanf's polynomial).
__device__ __forceinline__ float det_atan_tail(float a) {
    const float z = __fmul_rn(a, a);
    float p = __fmul_rn(8.05374449538e-2f, z);
    p = __fsub_rn(p, 1.38776856032e-1f);
    p = __fmul_rn(p, z);
    p = __fadd_rn(p, 1.99777106478e-1f);
    p = __fmul_rn(p, z);
    p = __fsub_rn(p, 3.33329491539e-1f);
    p = __fmul_rn(p, z);
    return __fmul_rn(p, a);
}

// The angle of (x, y) in [−π, π]; atan2(±0, −0) = ±0.
__device__ __forceinline__ float det_atan2(float y, float x) {
    if (det_is_nan(x) || det_is_nan(y)) return DET_NAN;
    const float ax = det_abs(x);
    const float ay = det_abs(y);
    const bool swap = ay > ax;
    const float big = swap ? ay : ax;
    const float small = swap ? ax : ay;
    // a = small / big in [0, 1]; 0/0 is the origin and ∞/∞ the diagonal.
    float a;
    if (big == 0.0f) {
        a = 0.0f;
    } else if (!det_is_finite(big)) {
        a = det_is_finite(small) ? 0.0f : 1.0f;
    } else {
        a = __fdiv_rn(small, big);
    }
    // atan(a): a + tail, or π/4 + atan((a − 1)/(a + 1)) above tan(π/8).
    float angle;
    if (a > DET_TAN_PI_8) {
        const float num = __fsub_rn(a, 1.0f);
        const float den = __fadd_rn(a, 1.0f);
        const float w = __fdiv_rn(num, den);
        const float tail = det_atan_tail(w);
        angle = __fadd_rn(tail, DET_PIO4_LO);
        angle = __fadd_rn(angle, w);
        angle = __fadd_rn(angle, DET_PIO4_HI);
    } else {
        const float tail = det_atan_tail(a);
        angle = __fadd_rn(tail, a);
    }
    // Back to the octant of (x, y).
    if (swap) {
        const float d = __fsub_rn(DET_PIO2_LO, angle);
        angle = __fadd_rn(d, DET_PIO2_HI);
    }
    if (x < 0.0f) {
        const float d = __fsub_rn(DET_PI_LO, angle);
        angle = __fadd_rn(d, DET_PI_HI);
    }
    return (__float_as_uint(y) >> 31) != 0u ? -angle : angle;
}

// asin(s) − s for 0 ≤ s ≤ 1/2, as s·z·P(z) with z = s² (Cephes asinf's polynomial).
__device__ __forceinline__ float det_asin_tail(float s, float z) {
    float p = __fmul_rn(4.2163199048e-2f, z);
    p = __fadd_rn(p, 2.4181311049e-2f);
    p = __fmul_rn(p, z);
    p = __fadd_rn(p, 4.5470025998e-2f);
    p = __fmul_rn(p, z);
    p = __fadd_rn(p, 7.4953002686e-2f);
    p = __fmul_rn(p, z);
    p = __fadd_rn(p, 1.6666752422e-1f);
    p = __fmul_rn(p, z);
    return __fmul_rn(p, s);
}

// acos(x) in [0, π] for x in [−1, 1]; NaN outside.
__device__ __forceinline__ float det_acos(float x) {
    if (!(det_abs(x) <= 1.0f)) return DET_NAN;
    if (x > 0.5f) {
        // acos x = 2 asin √((1 − x)/2).
        const float z = __fmul_rn(__fsub_rn(1.0f, x), 0.5f);
        const float s = __fsqrt_rn(z);
        const float a = __fadd_rn(det_asin_tail(s, z), s);
        return __fmul_rn(a, 2.0f);
    } else if (x < -0.5f) {
        // acos x = π − 2 asin √((1 + x)/2).
        const float z = __fmul_rn(__fadd_rn(1.0f, x), 0.5f);
        const float s = __fsqrt_rn(z);
        const float a = __fadd_rn(det_asin_tail(s, z), s);
        const float twice = __fmul_rn(a, 2.0f);
        const float d = __fsub_rn(DET_PI_LO, twice);
        return __fadd_rn(d, DET_PI_HI);
    } else {
        // acos x = π/2 − asin x.
        const float z = __fmul_rn(x, x);
        const float a = det_asin_tail(x, z);
        const float d = __fsub_rn(DET_PIO2_LO, a);
        const float e = __fsub_rn(d, x);
        return __fadd_rn(e, DET_PIO2_HI);
    }
}

// ---- exp and exp2 -------------------------------------------------------------------------------

// e^r for |r| ≤ ln2/2 (Cephes expf's polynomial): 1 + r + r²P(r).
__device__ __forceinline__ float det_exp_poly(float r) {
    const float z = __fmul_rn(r, r);
    float p = __fmul_rn(1.9875691500e-4f, r);
    p = __fadd_rn(p, 1.3981999507e-3f);
    p = __fmul_rn(p, r);
    p = __fadd_rn(p, 8.3334519073e-3f);
    p = __fmul_rn(p, r);
    p = __fadd_rn(p, 4.1665795894e-2f);
    p = __fmul_rn(p, r);
    p = __fadd_rn(p, 1.6666665459e-1f);
    p = __fmul_rn(p, r);
    p = __fadd_rn(p, 5.0000001201e-1f);
    p = __fmul_rn(p, z);
    p = __fadd_rn(p, r);
    return __fadd_rn(p, 1.0f);
}

// p·2^k for p in [0.7, 1.5] and an integer k in [−150, 128], rounded once.
__device__ __forceinline__ float det_scale_by_pow2(float p, float k) {
    const float k1 = floorf(__fmul_rn(k, 0.5f));
    const float k2 = __fsub_rn(k, k1);
    const float scaled = __fmul_rn(p, det_pow2i((int)k1));
    return __fmul_rn(scaled, det_pow2i((int)k2));
}

// e^(hi + lo) for a double-float argument; det_exp passes lo = 0.
__device__ __forceinline__ float det_exp_double_float(float hi, float lo) {
    if (det_is_nan(hi)) return DET_NAN;
    if (hi > DET_EXP_MAX) return DET_INFINITY;
    if (hi < DET_EXP_MIN) return 0.0f;
    const float t = __fmul_rn(hi, DET_LOG2_E);
    const float k = floorf(__fadd_rn(t, 0.5f));
    float r = __fsub_rn(hi, __fmul_rn(k, DET_LN2_HI));
    r = __fsub_rn(r, __fmul_rn(k, DET_LN2_LO));
    r = __fadd_rn(r, lo);
    return det_scale_by_pow2(det_exp_poly(r), k);
}

// e^x.
__device__ __forceinline__ float det_exp(float x) { return det_exp_double_float(x, 0.0f); }

// 2^x.
__device__ __forceinline__ float det_exp2(float x) {
    if (det_is_nan(x)) return DET_NAN;
    if (x >= 128.0f) return DET_INFINITY;
    if (x < -150.0f) return 0.0f;
    const float k = floorf(__fadd_rn(x, 0.5f));
    const float f = __fsub_rn(x, k);
    const float r = __fmul_rn(f, DET_LN2);
    return det_scale_by_pow2(det_exp_poly(r), k);
}

// ---- ln and pow ---------------------------------------------------------------------------------

// Knuth's two-sum: s + e = a + b exactly.
__device__ __forceinline__ void det_two_sum(float a, float b, float& s, float& e) {
    s = __fadd_rn(a, b);
    const float bb = __fsub_rn(s, a);
    const float aa = __fsub_rn(s, bb);
    const float da = __fsub_rn(a, aa);
    const float db = __fsub_rn(b, bb);
    e = __fadd_rn(da, db);
}

// Veltkamp's split: hi + lo = a with 12 significant bits in hi.
__device__ __forceinline__ void det_split(float a, float& hi, float& lo) {
    const float t = __fmul_rn(DET_SPLITTER, a);
    const float d = __fsub_rn(t, a);
    hi = __fsub_rn(t, d);
    lo = __fsub_rn(a, hi);
}

// Dekker's two-product without FMA: p + e = a·b exactly.
__device__ __forceinline__ void det_two_product(float a, float b, float& p, float& e) {
    p = __fmul_rn(a, b);
    float ah, al, bh, bl;
    det_split(a, ah, al);
    det_split(b, bh, bl);
    e = __fmul_rn(ah, bh);
    e = __fsub_rn(e, p);
    e = __fadd_rn(e, __fmul_rn(ah, bl));
    e = __fadd_rn(e, __fmul_rn(al, bh));
    e = __fadd_rn(e, __fmul_rn(al, bl));
}

// atanh(s) − s for |s| ≤ 3 − 2√2, as s³·Q(s²): the series s³/3 + ... + s¹³/13.
__device__ __forceinline__ float det_atanh_tail(float s) {
    const float z = __fmul_rn(s, s);
    float q = __fmul_rn(7.6923076923e-2f, z);
    q = __fadd_rn(q, 9.0909090909e-2f);
    q = __fmul_rn(q, z);
    q = __fadd_rn(q, 1.1111111111e-1f);
    q = __fmul_rn(q, z);
    q = __fadd_rn(q, 1.4285714286e-1f);
    q = __fmul_rn(q, z);
    q = __fadd_rn(q, 2.0e-1f);
    q = __fmul_rn(q, z);
    q = __fadd_rn(q, 3.3333333333e-1f);
    q = __fmul_rn(q, z);
    return __fmul_rn(q, s);
}

// ln x as a double-float hi + lo for a finite x > 0.
__device__ __forceinline__ void det_ln_double_float(float x, float& hi, float& lo) {
    // x = m·2^e with m in (√½, √2].
    float v = x;
    int e = 0;
    if (__float_as_uint(v) < 0x00800000u) {
        v = __fmul_rn(v, 8388608.0f);  // 2^23: subnormals become normal
        e = -23;
    }
    const unsigned int bits = __float_as_uint(v);
    e = e + ((int)(bits >> 23) - 127);
    float m = __uint_as_float((bits & 0x007fffffu) | 0x3f800000u);
    if (m > DET_SQRT2) {
        m = __fmul_rn(m, 0.5f);
        e = e + 1;
    }
    const float ef = (float)e;
    // ln m = 2 atanh(s) with s = f/(2 + f), f = m − 1 (exact); s as a double-float.
    const float f = __fsub_rn(m, 1.0f);
    float d_hi, d_lo;
    det_two_sum(2.0f, f, d_hi, d_lo);
    const float s_hi = __fdiv_rn(f, d_hi);
    float p, p_err;
    det_two_product(s_hi, d_hi, p, p_err);
    float residual = __fsub_rn(f, p);
    residual = __fsub_rn(residual, p_err);
    residual = __fsub_rn(residual, __fmul_rn(s_hi, d_lo));
    const float s_lo = __fdiv_rn(residual, d_hi);
    // ln x = e·LN2_HI + 2 s_hi + (2 s_lo + 2 atanh_tail(s) + e·LN2_LO).
    float low = __fadd_rn(det_atanh_tail(s_hi), s_lo);
    low = __fmul_rn(low, 2.0f);
    low = __fadd_rn(low, __fmul_rn(ef, DET_LN2_LO));
    const float a = __fmul_rn(ef, DET_LN2_HI);
    float sum, sum_err;
    det_two_sum(a, __fmul_rn(s_hi, 2.0f), sum, sum_err);
    low = __fadd_rn(low, sum_err);
    hi = __fadd_rn(sum, low);
    const float back = __fsub_rn(hi, sum);
    lo = __fsub_rn(low, back);
}

// ln x; ln(±0) = −∞, ln(+∞) = +∞, negative or NaN: NaN.
__device__ __forceinline__ float det_ln(float x) {
    if (det_is_nan(x) || x < 0.0f) return DET_NAN;
    if (x == 0.0f) return -DET_INFINITY;
    if (!det_is_finite(x)) return DET_INFINITY;
    float hi, lo;
    det_ln_double_float(x, hi, lo);
    return hi;
}

// x^y for x ≥ 0 (a negative base gives NaN).
__device__ __forceinline__ float det_pow(float x, float y) {
    if (y == 0.0f || x == 1.0f) return 1.0f;
    if (det_is_nan(x) || det_is_nan(y) || x < 0.0f) return DET_NAN;
    if (x == 0.0f) return y > 0.0f ? 0.0f : DET_INFINITY;
    if (!det_is_finite(x)) return y > 0.0f ? DET_INFINITY : 0.0f;
    float l_hi, l_lo;
    det_ln_double_float(x, l_hi, l_lo);
    // Outside the range of exp the result is known; this also keeps the split finite.
    const float rough = __fmul_rn(y, l_hi);
    if (!(rough <= 89.0f)) return DET_INFINITY;
    if (!(rough >= -104.5f)) return 0.0f;
    float p_hi, p_lo;
    det_two_product(y, l_hi, p_hi, p_lo);
    const float lo = __fadd_rn(p_lo, __fmul_rn(y, l_lo));
    const float hi = __fadd_rn(p_hi, lo);
    const float back = __fsub_rn(hi, p_hi);
    return det_exp_double_float(hi, __fsub_rn(lo, back));
}
