// common/normal_map.cuh — normal mapping as Mitsuba 3's `normalmap` BSDF does it: the port
// of warpath_core::normal_map (read its doc for the conventions), operation for operation
// (warpath-lockstep checks it bit for bit). The tangent is the mesh's dp/du made orthogonal
// to the shading normal, t = n × s; the texel's raw RGB c gives the normal 2c − 1 in that
// frame, its tangential part negated when the viewer lies on different sides of it and of n;
// normal_map_factor is the wrapper's side test and shadow-terminator term on every BSDF value
// and sample.
#pragma once
#include "common/math.cuh"

// normal_map::MappedNormal: the unperturbed shading normal and the terminator term's α².
struct MappedNormal {
    float3 shading;
    float alpha2;
};

// normal_map::triangle_dp_du: zero for degenerate uvs.
__device__ __forceinline__ float3 triangle_dp_du(float3 p0, float3 p1, float3 p2, float2 uv0, float2 uv1,
                                                 float2 uv2) {
    const float3 dp0 = p1 - p0, dp1 = p2 - p0;
    const float2 duv0 = make_float2(__fsub_rn(uv1.x, uv0.x), __fsub_rn(uv1.y, uv0.y));
    const float2 duv1 = make_float2(__fsub_rn(uv2.x, uv0.x), __fsub_rn(uv2.y, uv0.y));
    const float det = __fsub_rn(__fmul_rn(duv0.x, duv1.y), __fmul_rn(duv0.y, duv1.x));
    if (det == 0.0f) return zero3();
    const float inv_det = __fdiv_rn(1.0f, det);
    return (dp0 * duv1.y - dp1 * duv0.y) * inv_det;
}

// normal_map::tangent: dp_du orthogonal to n, or frame_from_normal(n).s.
__device__ __forceinline__ float3 normal_map_tangent(float3 n, float3 dp_du) {
    const float3 s = normalize_or_zero(dp_du - n * dot(n, dp_du));
    return is_zero3(s) ? frame_from_normal(n).s : s;
}

// Mitsuba's tan²θ: max(1 − cos², 0) / cos².
__device__ __forceinline__ float normal_map_tan_theta_2(float cos_theta) {
    const float c2 = __fmul_rn(cos_theta, cos_theta);
    return __fdiv_rn(fmaxf(__fsub_rn(1.0f, c2), 0.0f), c2);
}

// MappedNormal::factor: 0 when wi is on different sides of the two normals, else the
// shadow-terminator term 2 / (1 + √(1 + α² tan²θi)).
__device__ __forceinline__ float normal_map_factor(const MappedNormal& m, float3 perturbed, float3 wi) {
    const float cos_shading = dot(wi, m.shading);
    const float cos_perturbed = dot(wi, perturbed);
    if (!(__fmul_rn(cos_shading, cos_perturbed) > 0.0f)) return 0.0f;
    if (m.alpha2 == 0.0f) return 1.0f;  // a flat normal (also where tan²θ would overflow)
    const float root = __fsqrt_rn(__fadd_rn(1.0f, __fmul_rn(m.alpha2, normal_map_tan_theta_2(cos_shading))));
    return __fdiv_rn(2.0f, __fadd_rn(1.0f, root));
}

// normal_map::tangent_frame: s the tangent, t = n × s.
__device__ __forceinline__ Frame normal_map_frame(float3 n, float3 dp_du) {
    Frame frame;
    frame.s = normal_map_tangent(n, dp_du);
    frame.t = cross(n, frame.s);
    frame.n = n;
    return frame;
}

// normal_map::perturb_local: the mapped normal `local` given in the tangent frame.
__device__ __forceinline__ float3 normal_map_perturb_local(float3 n, float3 dp_du, float3 local, float3 wo,
                                                           MappedNormal& out) {
    const Frame frame = normal_map_frame(n, dp_du);
    const float3 wo_local = to_local(frame, wo);
    if (__fmul_rn(wo_local.z, dot(wo_local, local)) <= 0.0f) local = make_float3(-local.x, -local.y, local.z);
    local = normalize_or_zero(local);
    if (is_zero3(local)) local = make_float3(0.0f, 0.0f, 1.0f);
    float3 world = normalize_or_zero(to_world(frame, local));
    if (is_zero3(world)) world = n;
    out.shading = n;
    out.alpha2 = fminf(__fmul_rn(0.125f, normal_map_tan_theta_2(local.z)), 1.0f);
    return world;
}

// normal_map::perturb: the perturbed shading normal (returned) and its MappedNormal (`out`).
__device__ __forceinline__ float3 normal_map_perturb(float3 n, float3 dp_du, float3 texel, float3 wo,
                                                     MappedNormal& out) {
    return normal_map_perturb_local(n, dp_du, texel * 2.0f - splat3(1.0f), wo, out);
}
