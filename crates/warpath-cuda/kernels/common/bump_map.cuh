// common/bump_map.cuh — bump mapping as Mitsuba 3's `bumpmap` BSDF does it: the port of
// warpath_core::bump_map (read its doc for the conventions), operation for operation
// (warpath-lockstep checks it bit for bit). The height (a texture's red channel, raw) has the
// exact (u, v) gradient of the bilinear lookup; scaled, it replaces the normal components of
// the triangle's dp/du and dp/dv; their cross product, flipped onto the geometric normal's
// side, is the bumped normal, which then goes through the normal map's flip of invalid
// normals and shadowing term (normal_map_perturb_local), as Mitsuba 3.9's bumpmap does.
#pragma once
#include "common/math.cuh"
#include "common/normal_map.cuh"

// bump_map::triangle_dp_dv: zero for degenerate uvs.
__device__ __forceinline__ float3 triangle_dp_dv(float3 p0, float3 p1, float3 p2, float2 uv0, float2 uv1,
                                                 float2 uv2) {
    const float3 dp0 = p1 - p0, dp1 = p2 - p0;
    const float2 duv0 = make_float2(__fsub_rn(uv1.x, uv0.x), __fsub_rn(uv1.y, uv0.y));
    const float2 duv1 = make_float2(__fsub_rn(uv2.x, uv0.x), __fsub_rn(uv2.y, uv0.y));
    const float det = __fsub_rn(__fmul_rn(duv0.x, duv1.y), __fmul_rn(duv0.y, duv1.x));
    if (det == 0.0f) return zero3();
    const float inv_det = __fdiv_rn(1.0f, det);
    return (dp1 * duv0.x - dp0 * duv1.x) * inv_det;
}

// bump_map::height_gradient: the (u, v) gradient of the bilinear lookup between the heights
// h00 (x0, y0), h10 (x0 + 1, y0), h01 (x0, y0 + 1), h11 (x0 + 1, y0 + 1) at fractions fx, fy.
__device__ __forceinline__ float2 bump_height_gradient(float h00, float h10, float h01, float h11, float fx,
                                                       float fy, unsigned int width, unsigned int height) {
    const float d_x = __fadd_rn(__fmul_rn(__fsub_rn(h10, h00), __fsub_rn(1.0f, fy)),
                                __fmul_rn(__fsub_rn(h11, h01), fy));
    const float d_y = __fadd_rn(__fmul_rn(__fsub_rn(h01, h00), __fsub_rn(1.0f, fx)),
                                __fmul_rn(__fsub_rn(h11, h10), fx));
    return make_float2(__fmul_rn(d_x, (float)width), -__fmul_rn(d_y, (float)height));
}

// bump_map::bumped_normal: the bumped normal on ng's side, or n for degenerate inputs.
__device__ __forceinline__ float3 bump_map_normal(float3 n, float3 ng, float3 dp_du, float3 dp_dv, float2 gradient,
                                                  float scale) {
    const float gx = __fmul_rn(gradient.x, scale), gy = __fmul_rn(gradient.y, scale);
    const float3 du = dp_du + n * __fsub_rn(gx, dot(n, dp_du));
    const float3 dv = dp_dv + n * __fsub_rn(gy, dot(n, dp_dv));
    const float3 m = normalize_or_zero(cross(du, dv));
    if (is_zero3(m)) return n;
    return dot(m, ng) < 0.0f ? -m : m;
}

// bump_map::perturb: the bumped normal as a normal map in its tangent frame, seen from wo
// (returned, with its MappedNormal in `out`).
__device__ __forceinline__ float3 bump_map_perturb(float3 n, float3 ng, float3 dp_du, float3 dp_dv, float2 gradient,
                                                   float scale, float3 wo, MappedNormal& out) {
    const float3 m = bump_map_normal(n, ng, dp_du, dp_dv, gradient, scale);
    const float3 local = to_local(normal_map_frame(n, dp_du), m);
    return normal_map_perturb_local(n, dp_du, local, wo, out);
}
