// traversal/trace.cuh — one ray, one thread: closest hit and any hit (shadow rays) by
// while-while traversal (seed 004) of the Aila–Laine BVH: traversal.cuh's
// trace_while_while_one, on a ray held in registers. The hit matches warpath_bvh::Bvh::intersect
// (same Möller–Trumbore arithmetic, ties to the lower triangle id).
//
// Programs compiled with WARPATH_WIDE_BVH (KernelVariant::wide_bvh, a scene uploaded with
// BvhLayout::Wide8) trace the compressed 8-wide BVH instead (traversal/wide.cuh's wide_trace,
// equal to warpath_bvh::wide::WideBvh::intersect). The scene's TraversalScene then holds the
// wide layout's nodes and triangle records in `nodes` and `triangles` (ids null). A define per
// program, not a flag in the scene: each program carries one traversal's code and registers,
// so the binary programs stay exactly what they were.
#pragma once
#include "traversal/traversal.cuh"
#include "common/math.cuh"
#if defined(WARPATH_WIDE_BVH)
#include "traversal/wide.cuh"
#endif

// A PreparedRay from registers (traversal.cuh's prepare_ray reads a GpuRay buffer).
__device__ __forceinline__ PreparedRay prepare_estimator_ray(const Ray& r) {
    PreparedRay ray;
    ray.origin = r.o;
    ray.direction = r.d;
    ray.inv_direction = make_float3(__fdiv_rn(1.0f, r.d.x), __fdiv_rn(1.0f, r.d.y), __fdiv_rn(1.0f, r.d.z));
    ray.t_min = r.t_min;
    ray.t_max = r.t_max;
    ray.negative_x = ray.inv_direction.x < 0.0f;
    ray.negative_y = ray.inv_direction.y < 0.0f;
    ray.negative_z = ray.inv_direction.z < 0.0f;
    return ray;
}

// What the estimator needs of a hit (warpath_bvh::Hit).
struct SurfaceIntersection {
    float t;
    float u;
    float v;
    unsigned int prim;
};

// Closest hit of `ray`; false on a miss.
__device__ __forceinline__ bool intersect_closest(const TraversalScene& scene, const Ray& ray,
                                                  SurfaceIntersection& hit) {
#if defined(WARPATH_WIDE_BVH)
    const WideTraversalScene wide = {scene.nodes, scene.triangles};
    const WideHit found = wide_trace<false>(wide, prepare_estimator_ray(ray));
    if (found.prim < 0) return false;
    hit.t = found.t;
    hit.u = found.u;
    hit.v = found.v;
    hit.prim = (unsigned int)found.prim;
    return true;
#else
    const HitRecord best = trace_while_while_one<false>(scene, prepare_estimator_ray(ray));
    if (best.slot < 0) return false;
    hit.t = best.t;
    hit.u = best.u;
    hit.v = best.v;
    hit.prim = (unsigned int)__ldg(scene.triangle_ids + best.slot);
    return true;
#endif
}

// Whether anything blocks `ray` within (t_min, t_max).
__device__ __forceinline__ bool occluded(const TraversalScene& scene, const Ray& ray) {
#if defined(WARPATH_WIDE_BVH)
    const WideTraversalScene wide = {scene.nodes, scene.triangles};
    return wide_trace<true>(wide, prepare_estimator_ray(ray)).prim >= 0;
#else
    return trace_while_while_one<true>(scene, prepare_estimator_ray(ray)).slot >= 0;
#endif
}
