// common/math.cuh — the vector arithmetic of warpath_core::math and glam's Vec2/Vec3, on
// the device. Every float3 operator rounds each operation on its own (__fadd_rn,
// __fmul_rn, ...), so NVRTC's --fmad=true cannot fuse them into FMAs and a vector
// expression computes what glam computes on the CPU, operation for operation (dot is
// (x·x' + y·y') + z·z', cross and normalize as glam writes them). Transcendentals are
// never CUDA's (sinf, powf, ... differ from the CPU's libm by an ulp here and there): the
// estimator calls detmath.cuh's, which match warpath_core::detmath bit for bit.
// Also: Frame (Duff et al. 2017), offset_ray_origin, power_heuristic.
#pragma once

#define WARPATH_PI 3.14159265358979323846f
#define WARPATH_FRAC_1_PI 0.318309886183790671538f
#define WARPATH_FRAC_PI_2 1.57079632679489661923f
#define WARPATH_FRAC_PI_4 0.785398163397448309616f
#define WARPATH_INF __int_as_float(0x7f800000)
// Largest f32 below 1 (warpath_core::sampler::ONE_MINUS_EPSILON).
#define WARPATH_ONE_MINUS_EPSILON 0.99999994f

__device__ __forceinline__ float3 operator+(float3 a, float3 b) {
    return make_float3(__fadd_rn(a.x, b.x), __fadd_rn(a.y, b.y), __fadd_rn(a.z, b.z));
}
__device__ __forceinline__ float3 operator-(float3 a, float3 b) {
    return make_float3(__fsub_rn(a.x, b.x), __fsub_rn(a.y, b.y), __fsub_rn(a.z, b.z));
}
__device__ __forceinline__ float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
__device__ __forceinline__ float3 operator*(float3 a, float3 b) {
    return make_float3(__fmul_rn(a.x, b.x), __fmul_rn(a.y, b.y), __fmul_rn(a.z, b.z));
}
__device__ __forceinline__ float3 operator*(float3 a, float s) {
    return make_float3(__fmul_rn(a.x, s), __fmul_rn(a.y, s), __fmul_rn(a.z, s));
}
__device__ __forceinline__ float3 operator*(float s, float3 a) {
    return make_float3(__fmul_rn(s, a.x), __fmul_rn(s, a.y), __fmul_rn(s, a.z));
}
__device__ __forceinline__ float3 operator/(float3 a, float s) {
    return make_float3(__fdiv_rn(a.x, s), __fdiv_rn(a.y, s), __fdiv_rn(a.z, s));
}
__device__ __forceinline__ float3& operator+=(float3& a, float3 b) {
    a = a + b;
    return a;
}
__device__ __forceinline__ float3& operator*=(float3& a, float3 b) {
    a = a * b;
    return a;
}
__device__ __forceinline__ float2 operator+(float2 a, float2 b) {
    return make_float2(__fadd_rn(a.x, b.x), __fadd_rn(a.y, b.y));
}
__device__ __forceinline__ float2 operator*(float2 a, float s) {
    return make_float2(__fmul_rn(a.x, s), __fmul_rn(a.y, s));
}

__device__ __forceinline__ float3 splat3(float s) { return make_float3(s, s, s); }
__device__ __forceinline__ float3 zero3() { return make_float3(0.0f, 0.0f, 0.0f); }

// glam's Vec3::dot: (x·x' + y·y') + z·z'.
__device__ __forceinline__ float dot(float3 a, float3 b) {
    return __fadd_rn(__fadd_rn(__fmul_rn(a.x, b.x), __fmul_rn(a.y, b.y)), __fmul_rn(a.z, b.z));
}
__device__ __forceinline__ float3 cross(float3 a, float3 b) {
    return make_float3(__fsub_rn(__fmul_rn(a.y, b.z), __fmul_rn(b.y, a.z)),
                       __fsub_rn(__fmul_rn(a.z, b.x), __fmul_rn(b.z, a.x)),
                       __fsub_rn(__fmul_rn(a.x, b.y), __fmul_rn(b.x, a.y)));
}
__device__ __forceinline__ float length_squared(float3 v) { return dot(v, v); }
__device__ __forceinline__ float length(float3 v) { return __fsqrt_rn(dot(v, v)); }
// glam: v * (1 / |v|).
__device__ __forceinline__ float3 normalize(float3 v) { return v * __fdiv_rn(1.0f, length(v)); }
__device__ __forceinline__ float3 normalize_or_zero(float3 v) {
    const float rcp = __fdiv_rn(1.0f, length(v));
    return (isfinite(rcp) && rcp > 0.0f) ? v * rcp : zero3();
}
// glam's max_element: max(x, max(y, z)) with `a > b ? a : b`.
__device__ __forceinline__ float max_element(float3 v) {
    const float yz = v.y > v.z ? v.y : v.z;
    return v.x > yz ? v.x : yz;
}
__device__ __forceinline__ float3 abs3(float3 v) { return make_float3(fabsf(v.x), fabsf(v.y), fabsf(v.z)); }
__device__ __forceinline__ bool is_finite3(float3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
__device__ __forceinline__ bool is_zero3(float3 v) { return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f; }
// Rust's f32::clamp (NaN stays NaN).
__device__ __forceinline__ float clampf(float x, float lo, float hi) {
    if (x < lo) x = lo;
    if (x > hi) x = hi;
    return x;
}
__device__ __forceinline__ float3 load3(const float* __restrict__ values, unsigned int index) {
    return make_float3(values[3 * (size_t)index], values[3 * (size_t)index + 1], values[3 * (size_t)index + 2]);
}
__device__ __forceinline__ float2 load2(const float* __restrict__ values, unsigned int index) {
    return make_float2(values[2 * (size_t)index], values[2 * (size_t)index + 1]);
}

// warpath_core::math::Frame: +z is the shading normal.
struct Frame {
    float3 s;
    float3 t;
    float3 n;
};

// Frame::from_normal (Duff et al. 2017, branchless).
__device__ __forceinline__ Frame frame_from_normal(float3 n) {
    const float sign = copysignf(1.0f, n.z);
    const float a = __fdiv_rn(-1.0f, __fadd_rn(sign, n.z));
    const float b = __fmul_rn(__fmul_rn(n.x, n.y), a);
    Frame f;
    f.s = make_float3(__fadd_rn(1.0f, __fmul_rn(__fmul_rn(__fmul_rn(sign, n.x), n.x), a)), __fmul_rn(sign, b),
                      -__fmul_rn(sign, n.x));
    f.t = make_float3(b, __fadd_rn(sign, __fmul_rn(__fmul_rn(n.y, n.y), a)), -n.y);
    f.n = n;
    return f;
}
__device__ __forceinline__ float3 to_local(const Frame& f, float3 v) {
    return make_float3(dot(v, f.s), dot(v, f.t), dot(v, f.n));
}
__device__ __forceinline__ float3 to_world(const Frame& f, float3 v) { return f.s * v.x + f.t * v.y + f.n * v.z; }

// warpath_core::math::offset_ray_origin: along the geometric normal, to dir's side.
__device__ __forceinline__ float3 offset_ray_origin(float3 p, float3 ng, float3 dir) {
    const float scale = __fmul_rn(1e-4f, __fadd_rn(1.0f, max_element(abs3(p))));
    const float3 n = dot(ng, dir) < 0.0f ? -ng : ng;
    return p + n * scale;
}

// The power heuristic (β = 2) of the CPU integrator.
__device__ __forceinline__ float power_heuristic(float a, float b) {
    const float a2 = __fmul_rn(a, a);
    const float b2 = __fmul_rn(b, b);
    return __fadd_rn(a2, b2) > 0.0f ? __fdiv_rn(a2, __fadd_rn(a2, b2)) : 0.0f;
}

// A ray o + t·d for t in [t_min, t_max) (warpath_core::math::Ray).
struct Ray {
    float3 o;
    float3 d;
    float t_min;
    float t_max;
};
__device__ __forceinline__ Ray make_ray(float3 o, float3 d) {
    Ray r;
    r.o = o;
    r.d = d;
    r.t_min = 0.0f;
    r.t_max = WARPATH_INF;
    return r;
}
__device__ __forceinline__ Ray make_segment(float3 o, float3 d, float t_max) {
    Ray r = make_ray(o, d);
    r.t_max = t_max;
    return r;
}
__device__ __forceinline__ float3 ray_at(const Ray& r, float t) { return r.o + r.d * t; }
