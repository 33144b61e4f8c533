// traversal/ray_triangle.cuh — the two geometric tests of BVH traversal: ray/box (slab test) and
// ray/triangle (Möller–Trumbore), written to compute bit for bit what the CPU reference
// computes (warpath-bvh's traverse.rs and warpath_core::math::intersect_triangle):
// the same operations in the same order, each rounded on its own (__fmul_rn/__fadd_rn
// keep NVRTC from fusing them into FMAs), IEEE division (--prec-div=true). So a GPU hit
// and a CPU hit on the same triangle have the same t, u, v, and the two traversals pick
// the same primitive whenever the closest hit is unambiguous.
#pragma once
#include "common/layout.cuh"

// 1 + 2γ₃ with γₙ = nε/(1-nε), ε = 2⁻²⁴: widening of a box's exit distance (pbrt's robust
// bound test), the CPU traversal's EXIT_WIDENING.
#define WARPATH_EXIT_WIDENING \
    (1.0f + 2.0f * (3.0f * 5.9604644775390625e-8f) / (1.0f - 3.0f * 5.9604644775390625e-8f))
// Nodes starting within this relative distance beyond the best hit are still visited
// (the CPU traversal's CULL_SLACK), so round-off never loses a tie.
#define WARPATH_CULL_SLACK 1e-5f

// A ray with what the slab test needs precomputed.
struct PreparedRay {
    float3 origin;
    float3 direction;
    float3 inv_direction;  // 1 / direction, ±inf for a zero component
    float t_min;
    float t_max;
    bool negative_x, negative_y, negative_z;  // inv_direction < 0: the box's max plane is entered first
};

// Reads ray `index` with two read-only 16-byte loads.
__device__ __forceinline__ PreparedRay prepare_ray(const GpuRay* __restrict__ rays, int index) {
    const float4* words = reinterpret_cast<const float4*>(rays + index);
    const float4 origin_tmin = __ldg(words + 0);
    const float4 direction_tmax = __ldg(words + 1);
    PreparedRay ray;
    ray.origin = make_float3(origin_tmin.x, origin_tmin.y, origin_tmin.z);
    ray.direction = make_float3(direction_tmax.x, direction_tmax.y, direction_tmax.z);
    ray.inv_direction = make_float3(1.0f / direction_tmax.x, 1.0f / direction_tmax.y, 1.0f / direction_tmax.z);
    ray.t_min = origin_tmin.w;
    ray.t_max = direction_tmax.w;
    ray.negative_x = ray.inv_direction.x < 0.0f;
    ray.negative_y = ray.inv_direction.y < 0.0f;
    ray.negative_z = ray.inv_direction.z < 0.0f;
    return ray;
}

// Culling distance for boxes given the best hit so far: t + |t|·slack.
__device__ __forceinline__ float cull_distance(float t) {
    return __fadd_rn(t, __fmul_rn(fabsf(t), WARPATH_CULL_SLACK));
}

// Slab test of the box [lo, hi]: true when the ray overlaps it within [t_min, t_limit];
// `t_enter` is the entry distance. Each axis's entry plane is picked by the direction's
// sign; 0·inf = NaN (origin on a plane, direction parallel to it) is dropped by
// fmaxf/fminf, which return the other operand, so the ray counts as inside that slab.
__device__ __forceinline__ bool enter_box(const PreparedRay& ray, float lo_x, float hi_x, float lo_y, float hi_y,
                                          float lo_z, float hi_z, float t_limit, float& t_enter) {
    const float near_x = __fmul_rn(__fsub_rn(ray.negative_x ? hi_x : lo_x, ray.origin.x), ray.inv_direction.x);
    const float far_x = __fmul_rn(__fsub_rn(ray.negative_x ? lo_x : hi_x, ray.origin.x), ray.inv_direction.x);
    const float near_y = __fmul_rn(__fsub_rn(ray.negative_y ? hi_y : lo_y, ray.origin.y), ray.inv_direction.y);
    const float far_y = __fmul_rn(__fsub_rn(ray.negative_y ? lo_y : hi_y, ray.origin.y), ray.inv_direction.y);
    const float near_z = __fmul_rn(__fsub_rn(ray.negative_z ? hi_z : lo_z, ray.origin.z), ray.inv_direction.z);
    const float far_z = __fmul_rn(__fsub_rn(ray.negative_z ? lo_z : hi_z, ray.origin.z), ray.inv_direction.z);
    const float near = fmaxf(fmaxf(fmaxf(near_x, near_y), near_z), ray.t_min);
    const float far = fminf(__fmul_rn(fminf(fminf(far_x, far_y), far_z), WARPATH_EXIT_WIDENING), t_limit);
    t_enter = near;
    return near <= far;
}

// (a.x·b.x + a.y·b.y) + a.z·b.z, rounded after each operation (glam's Vec3::dot).
__device__ __forceinline__ float dot_rn(float3 a, float3 b) {
    return __fadd_rn(__fadd_rn(__fmul_rn(a.x, b.x), __fmul_rn(a.y, b.y)), __fmul_rn(a.z, b.z));
}

// a × b, rounded after each operation (glam's Vec3::cross).
__device__ __forceinline__ float3 cross_rn(float3 a, float3 b) {
    return make_float3(__fsub_rn(__fmul_rn(a.y, b.z), __fmul_rn(b.y, a.z)),
                       __fsub_rn(__fmul_rn(a.z, b.x), __fmul_rn(b.z, a.x)),
                       __fsub_rn(__fmul_rn(a.x, b.y), __fmul_rn(b.x, a.y)));
}

// Möller–Trumbore, both faces, t in (t_min, t_max): warpath_core::math::intersect_triangle
// with edge1 = v1 - v0 and edge2 = v2 - v0 precomputed on the host.
__device__ __forceinline__ bool intersect_triangle(const PreparedRay& ray, float4 v0_word, float4 edge1_word,
                                                   float4 edge2_word, float& t_out, float& u_out, float& v_out) {
    const float3 v0 = make_float3(v0_word.x, v0_word.y, v0_word.z);
    const float3 edge1 = make_float3(edge1_word.x, edge1_word.y, edge1_word.z);
    const float3 edge2 = make_float3(edge2_word.x, edge2_word.y, edge2_word.z);
    const float3 pvec = cross_rn(ray.direction, edge2);
    const float det = dot_rn(edge1, pvec);
    if (det == 0.0f || !isfinite(det)) return false;
    const float inv_det = 1.0f / det;
    const float3 tvec = make_float3(__fsub_rn(ray.origin.x, v0.x), __fsub_rn(ray.origin.y, v0.y),
                                    __fsub_rn(ray.origin.z, v0.z));
    const float u = __fmul_rn(dot_rn(tvec, pvec), inv_det);
    if (!(u >= 0.0f && u <= 1.0f)) return false;
    const float3 qvec = cross_rn(tvec, edge1);
    const float v = __fmul_rn(dot_rn(ray.direction, qvec), inv_det);
    if (v < 0.0f || __fadd_rn(u, v) > 1.0f) return false;
    const float t = __fmul_rn(dot_rn(edge2, qvec), inv_det);
    if (!(t > ray.t_min && t < ray.t_max)) return false;
    t_out = t;
    u_out = u;
    v_out = v;
    return true;
}
