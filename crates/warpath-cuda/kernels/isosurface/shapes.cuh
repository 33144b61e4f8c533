// isosurface/shapes.cuh — isosurfaces as shapes of the surface path tracer (issue 14 item 5),
// the device twin of warpath_isosurface::shape and of warpath-cpu's SceneView::intersect /
// occluded: each shape is a lattice, its brick tree condensed at the isovalue on the host,
// and the f64 affine map world → lattice (GpuIsoShape, owned by Rust:
// crates/warpath-cuda/src/isosurface/shapes.rs). A world ray maps to the lattice with the same
// t and goes through caster.cuh's iso_cast_within clipped to the ray's own range. Hits are
// numbered after the triangles (prim = triangle_count + k) and carry the outward normal (the
// world gradient negated: the outside is below the isovalue) octahedrally encoded in (u, v).
// Only the programs compiled with WARPATH_ISOSURFACE_SHAPES include this (the surface
// estimator's "-iso" variant), so the triangle-only kernels keep their registers.
#pragma once
#include "common/layout.cuh"
#include "common/math.cuh"
#include "common/scene.cuh"
#include "isosurface/caster.cuh"
#include "traversal/trace.cuh"

struct GpuIsoShape {
    double world_to_lattice[12];  // rows of the 3×4 map: lattice = A·world + b
    double gradient_to_world[9];  // Aᵀ, row-major
    const float* values;          // the lattice's samples, x fastest
    const IsoNode* nodes;         // the condensed tree of the isovalue
    unsigned int samples[3];
    unsigned int root;            // ISO_NO_NODE: nothing to hit
    float isovalue;
    unsigned int material;
};

// shape.rs octahedral_encode / octahedral_decode.
__device__ __forceinline__ float2 iso_octahedral_encode(float3 n) {
    const float l1 = fabsf(n.x) + fabsf(n.y) + fabsf(n.z);
    if (!(l1 > 0.0f)) return make_float2(0.0f, 0.0f);
    const float x = n.x / l1, y = n.y / l1, z = n.z / l1;
    if (z >= 0.0f) return make_float2(x, y);
    return make_float2((1.0f - fabsf(y)) * (x >= 0.0f ? 1.0f : -1.0f), (1.0f - fabsf(x)) * (y >= 0.0f ? 1.0f : -1.0f));
}

__device__ __forceinline__ float3 iso_octahedral_decode(float u, float v) {
    const float z = 1.0f - fabsf(u) - fabsf(v);
    float x = u, y = v;
    if (z < 0.0f) {
        x = (1.0f - fabsf(v)) * (u >= 0.0f ? 1.0f : -1.0f);
        y = (1.0f - fabsf(u)) * (v >= 0.0f ? 1.0f : -1.0f);
    }
    return normalize_or_zero(make_float3(x, y, z));
}

// PlacedIsosurface::intersect: the first hit with t in (ray.t_min, t_max), its outward normal.
__device__ __forceinline__ bool iso_shape_intersect(const GpuIsoShape& s, const Ray& ray, float t_max, float& t,
                                                    float3& normal) {
    if (s.root == ISO_NO_NODE || !(ray.t_min < t_max)) return false;
    const IsoArgs g = iso_caster_args(s.values, s.nodes, s.samples, s.root, s.isovalue);
    const double o[3] = {(double)ray.o.x, (double)ray.o.y, (double)ray.o.z};
    const double d[3] = {(double)ray.d.x, (double)ray.d.y, (double)ray.d.z};
    const double* m = s.world_to_lattice;
    IsoRay lattice_ray;
    for (int r = 0; r < 3; ++r) {
        lattice_ray.origin[r] = m[4 * r] * o[0] + m[4 * r + 1] * o[1] + m[4 * r + 2] * o[2] + m[4 * r + 3];
        lattice_ray.direction[r] = m[4 * r] * d[0] + m[4 * r + 1] * d[1] + m[4 * r + 2] * d[2];
    }
    const IsoCastResult c = iso_cast_within<double>(g, lattice_ray, (double)ray.t_min, (double)t_max);
    if (!c.hit.hit) return false;
    const float tf = (float)c.hit.t;
    if (!(tf > ray.t_min && tf < t_max)) return false;
    const double* gw = s.gradient_to_world;
    double w[3];
    for (int r = 0; r < 3; ++r) w[r] = gw[3 * r] * c.normal[0] + gw[3 * r + 1] * c.normal[1] + gw[3 * r + 2] * c.normal[2];
    const double length = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    if (length > 0.0 && isfinite(length)) {
        normal = make_float3(-(float)(w[0] / length), -(float)(w[1] / length), -(float)(w[2] / length));
    } else {
        normal = -normalize_or_zero(ray.d);
    }
    t = tf;
    return true;
}

// SceneView::intersect's isosurface part: `found`/`hit` hold the triangles' closest hit; an
// isosurface hit nearer than it replaces it. Returns whether anything is hit.
__device__ __forceinline__ bool iso_shapes_closest(const DeviceScene& scene, const Ray& ray, bool found,
                                                   SurfaceIntersection& hit) {
    const GpuSceneParams& params = *scene.params;
    for (unsigned int k = 0; k < params.iso_shape_count; ++k) {
        float t;
        float3 normal;
        if (iso_shape_intersect(params.iso_shapes[k], ray, found ? hit.t : ray.t_max, t, normal)) {
            const float2 uv = iso_octahedral_encode(normal);
            hit.t = t;
            hit.u = uv.x;
            hit.v = uv.y;
            hit.prim = params.triangle_count + k;
            found = true;
        }
    }
    return found;
}

// SceneView::occluded's isosurface part.
__device__ __forceinline__ bool iso_shapes_occlude(const DeviceScene& scene, const Ray& ray) {
    const GpuSceneParams& params = *scene.params;
    for (unsigned int k = 0; k < params.iso_shape_count; ++k) {
        float t;
        float3 normal;
        if (iso_shape_intersect(params.iso_shapes[k], ray, ray.t_max, t, normal)) return true;
    }
    return false;
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_ISOSURFACE_SHAPES
#include "generated/layout_checks.cuh"
