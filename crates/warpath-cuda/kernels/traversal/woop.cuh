// traversal/woop.cuh — the compressed 8-wide BVH's triangles in Woop's layout: per reference,
// the three rows of the affine map taking the triangle to the unit triangle (Woop's
// unit-triangle test, stored as Aila and Laine's GPU kernels store it), tested by this header's
// wide_intersect_reference, which traversal/wide.cuh's wide_trace / wide_step call when handed a
// WideWoopScene. It ports warpath_bvh::wide::intersect_woop
// (crates/warpath-bvh/src/wide/woop.rs, the specification, which also computes the rows) operation
// for operation: every dot product is a chain of fused multiply-adds (__fmaf_rn, z first), the
// division is IEEE (__fdiv_rn), so a hit here equals WideBvh::intersect_woop's bit for bit (the
// lockstep crate checks it on the host).
//
// Rows of reference i, float4 3i .. 3i + 2 (48 bytes, as the plain record):
//   t-row (n', n'·v0) with n' = n / |n|²:  t = (w - n'·o) / (n'·d)
//   u-row (a, -a·v0) with a = (e2 × n) / |n|²:  u = (w + a·o) + t (a·d)
//   v-row (b, -b·v0) with b = (n × e1) / |n|²:  v likewise
// u and v are the barycentrics of v1 and v2, as Möller–Trumbore's. The triangle id is not in the
// rows (all 12 floats are used): it is read from triangle_ids (WideBvh::prim_indices) only for a
// hit. The rows are read lazily: the u-row once t passes, the v-row once u does.
#pragma once
#include "traversal/wide.cuh"

// (w - a·p) for the row (a, w): three fused multiply-adds, z first.
__device__ __forceinline__ float woop_affine_negated(float4 row, float3 p) {
    return __fmaf_rn(-row.x, p.x, __fmaf_rn(-row.y, p.y, __fmaf_rn(-row.z, p.z, row.w)));
}

// (w + a·p) for the row (a, w).
__device__ __forceinline__ float woop_affine(float4 row, float3 p) {
    return __fmaf_rn(row.x, p.x, __fmaf_rn(row.y, p.y, __fmaf_rn(row.z, p.z, row.w)));
}

// a·d for the row (a, w): a product and two fused multiply-adds, z first.
__device__ __forceinline__ float woop_linear(float4 row, float3 d) {
    return __fmaf_rn(row.x, d.x, __fmaf_rn(row.y, d.y, __fmul_rn(row.z, d.z)));
}

// The wide scene with Woop triangles (warpath_cuda::wide_bvh::DeviceWideBvh of
// WideTriangles::Woop): the same nodes, the rows, the ids.
struct WideWoopScene {
    const float4* __restrict__ nodes;               // WideNode, 5 float4 each; node 0 is the root
    const float4* __restrict__ rows;                // 3 float4 per reference: t-row, u-row, v-row
    const unsigned int* __restrict__ triangle_ids;  // per reference: the original triangle id
};

// Woop's test of the scene's reference `reference` (wide_intersect_reference's overload for
// WideWoopScene): true with (t, u, v) and the triangle id for a hit with t_min < t < t_max,
// t <= t_best (the best hit's t, t_max before any: a triangle beyond it is rejected before its
// barycentrics), u, v >= 0, u + v <= 1. NaN is a miss (a degenerate triangle's zero rows give
// t = 0 / 0).
__device__ __forceinline__ bool wide_intersect_reference(const WideWoopScene& scene, const PreparedRay& ray,
                                                         unsigned int reference, float t_best, float& t_out,
                                                         float& u_out, float& v_out, int& prim) {
    const float4* row = scene.rows + (size_t)reference * 3u;
    const float4 t_row = __ldg(row + 0);
    const float t = __fdiv_rn(woop_affine_negated(t_row, ray.origin), woop_linear(t_row, ray.direction));
    if (!(t > ray.t_min && t < ray.t_max && t <= t_best)) return false;
    const float4 u_row = __ldg(row + 1);
    const float u = __fmaf_rn(t, woop_linear(u_row, ray.direction), woop_affine(u_row, ray.origin));
    if (!(u >= 0.0f && u <= 1.0f)) return false;
    const float4 v_row = __ldg(row + 2);
    const float v = __fmaf_rn(t, woop_linear(v_row, ray.direction), woop_affine(v_row, ray.origin));
    if (v < 0.0f || __fadd_rn(u, v) > 1.0f) return false;
    t_out = t;
    u_out = u;
    v_out = v;
    prim = (int)__ldg(scene.triangle_ids + reference);
    return true;
}
