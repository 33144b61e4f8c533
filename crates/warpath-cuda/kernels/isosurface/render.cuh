// isosurface/render.cuh — images of an isosurface on the device (issue 14, seed 001's
// generation and shading stages fused with the single-kernel caster): one thread per pixel
// makes the pixel's ray as warpath_isosurface::render::IsoView::ray does (every f64
// operation rounded on its own, so the ray is the CPU's bit for bit), casts it through the
// condensed tree (isosurface/caster.cuh) and shades the hit as render::shade (Blinn–Phong,
// head light, two-sided; or render::shade_key under a key light, with render::shadow_blocked's
// shadow ray when light_mode is ISO_LIGHT_SHADOWS, its outcome bit 1 of the pixel's
// IsoHit::hit). IsoRenderArgs's layout is owned by Rust (crates/warpath-cuda/src/isosurface)
// and checked against Rust
// by the generated layout checks (end of file).
#pragma once
#include "isosurface/caster.cuh"

struct IsoRenderArgs {
    const float* values;    // the lattice's samples, x fastest
    const IsoNode* nodes;   // the condensed tree of the isovalue
    float* pixels;          // 3 per pixel, row-major from the top left
    IsoHit* hits;           // one per pixel, or null
    double eye[3];
    double corner[3];       // direction through the image's top-left corner
    double right[3];        // one pixel to the right
    double down[3];         // one pixel down
    unsigned int samples[3];
    unsigned int root;      // ISO_NO_NODE: an empty tree
    unsigned int width;
    unsigned int height;
    float isovalue;
    float color[3];
    float ambient;
    float diffuse;
    float specular;
    float shininess;
    float background[3];
    unsigned int light_mode;        // ISO_LIGHT_*
    const unsigned int* root_slot;  // non-null: the root is *root_slot (the GPU tree update's)
    double light[3];                // the key light: unit, toward the light (IsoView::world_direction)
};

#define ISO_LIGHT_HEAD 0u     // the head light (seed 001)
#define ISO_LIGHT_KEY 1u      // a key light, no shadow rays
#define ISO_LIGHT_SHADOWS 2u  // a key light with shadow rays
#define ISO_SHADOWED 2u       // IsoHit::hit's bit: the shadow ray met the isosurface
#define ISO_SHADOW_OFFSET 1e-3  // render::SHADOW_OFFSET

// The root of the frame's tree: the host's (a CPU condensation) or the device's slot.
__device__ __forceinline__ unsigned int iso_frame_root(const IsoRenderArgs& a) {
    return a.root_slot != nullptr ? *a.root_slot : a.root;
}

// IsoView::ray: normalize(corner + (x + ½)·right + (y + ½)·down), no fused operations.
__device__ __forceinline__ IsoRay iso_pixel_ray(const IsoRenderArgs& a, unsigned int x, unsigned int y) {
    const double u = __dadd_rn((double)x, 0.5), v = __dadd_rn((double)y, 0.5);
    double d[3];
    for (int k = 0; k < 3; ++k) d[k] = __dadd_rn(__dadd_rn(a.corner[k], __dmul_rn(u, a.right[k])), __dmul_rn(v, a.down[k]));
    const double length = __dsqrt_rn(__dadd_rn(__dadd_rn(__dmul_rn(d[0], d[0]), __dmul_rn(d[1], d[1])), __dmul_rn(d[2], d[2])));
    IsoRay ray;
    for (int k = 0; k < 3; ++k) {
        ray.origin[k] = a.eye[k];
        ray.direction[k] = __ddiv_rn(d[k], length);
    }
    return ray;
}

// render::shade: under a head light L = V = −direction, the half vector is V.
__device__ __forceinline__ float3 iso_shade(const IsoRenderArgs& a, const double* normal, const double* direction) {
    double cosine = __dadd_rn(__dadd_rn(__dmul_rn(normal[0], -direction[0]), __dmul_rn(normal[1], -direction[1])),
                              __dmul_rn(normal[2], -direction[2]));
    if (cosine < 0.0) cosine = -cosine;
    const float c = fminf((float)cosine, 1.0f);
    const float lambert = __fadd_rn(a.ambient, __fmul_rn(a.diffuse, c));
    const float highlight = __fmul_rn(a.specular, powf(c, a.shininess));
    return make_float3(__fadd_rn(__fmul_rn(a.color[0], lambert), highlight),
                       __fadd_rn(__fmul_rn(a.color[1], lambert), highlight),
                       __fadd_rn(__fmul_rn(a.color[2], lambert), highlight));
}

// The caster's arguments for a frame.
__device__ __forceinline__ IsoArgs iso_frame_caster(const IsoRenderArgs& a) {
    return iso_caster_args(a.values, a.nodes, a.samples, iso_frame_root(a), a.isovalue);
}

__device__ __forceinline__ double iso_dot(const double* a, const double* b) {
    return __dadd_rn(__dadd_rn(__dmul_rn(a[0], b[0]), __dmul_rn(a[1], b[1])), __dmul_rn(a[2], b[2]));
}

// render::facing: `normal` turned toward the viewer of `ray` (isosurfaces are two-sided).
__device__ __forceinline__ void iso_facing(const IsoRay& ray, const double* normal, double n[3]) {
    const double view[3] = {-ray.direction[0], -ray.direction[1], -ray.direction[2]};
    for (int k = 0; k < 3; ++k) n[k] = normal[k];
    if (iso_dot(n, view) < 0.0) n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
}

// Whether the key light faces the surface of facing normal n (its shadow ray is then cast).
__device__ __forceinline__ bool iso_key_light_faces(const IsoRenderArgs& a, const double* n) {
    return iso_dot(n, a.light) > 0.0;
}

// render::shadow_blocked, in R: the ray from the hit t of `ray` moved ISO_SHADOW_OFFSET along
// the facing normal n toward the key light meets the isosurface.
template <typename R>
__device__ __forceinline__ bool iso_shadow_blocked(const IsoRenderArgs& a, const IsoArgs& g, const IsoRay& ray,
                                                   double t, const double* n) {
    IsoRay shadow;
    for (int k = 0; k < 3; ++k) {
        shadow.origin[k] = __dadd_rn(__dadd_rn(ray.origin[k], __dmul_rn(t, ray.direction[k])),
                                     __dmul_rn(ISO_SHADOW_OFFSET, n[k]));
        shadow.direction[k] = a.light[k];
    }
    return iso_cast_within<R>(g, shadow, 0.0, ISO_INF).hit.hit != 0u;
}

// render::shade_key: Blinn–Phong under the key light at facing normal n; `blocked` (its
// shadow ray met the isosurface) or a light behind the surface leaves the ambient term.
__device__ __forceinline__ float3 iso_shade_key(const IsoRenderArgs& a, const IsoRay& ray, const double* n,
                                                bool blocked) {
    const double view[3] = {-ray.direction[0], -ray.direction[1], -ray.direction[2]};
    const double cos_light = iso_dot(n, a.light);
    if (!(cos_light > 0.0) || blocked) {
        return make_float3(__fmul_rn(a.color[0], a.ambient), __fmul_rn(a.color[1], a.ambient),
                           __fmul_rn(a.color[2], a.ambient));
    }
    double half[3];
    for (int k = 0; k < 3; ++k) half[k] = __dadd_rn(a.light[k], view[k]);
    const double length = __dsqrt_rn(iso_dot(half, half));
    for (int k = 0; k < 3; ++k) half[k] = length > 0.0 ? __ddiv_rn(half[k], length) : half[k];
    const float cos_half = (float)fmin(fmax(iso_dot(n, half), 0.0), 1.0);
    const float lambert = __fadd_rn(a.ambient, __fmul_rn(a.diffuse, (float)fmin(cos_light, 1.0)));
    const float highlight = __fmul_rn(a.specular, powf(cos_half, a.shininess));
    return make_float3(__fadd_rn(__fmul_rn(a.color[0], lambert), highlight),
                       __fadd_rn(__fmul_rn(a.color[1], lambert), highlight),
                       __fadd_rn(__fmul_rn(a.color[2], lambert), highlight));
}

__device__ __forceinline__ void iso_store_colour(const IsoRenderArgs& a, size_t pixel, float3 colour) {
    a.pixels[3 * pixel] = colour.x;
    a.pixels[3 * pixel + 1] = colour.y;
    a.pixels[3 * pixel + 2] = colour.z;
}

// The pixel's colour: the background, or the shaded hit (t, normal) of `ray` with its shadow
// ray cast here; returns whether it met the isosurface (ISO_SHADOWED for the pixel's IsoHit).
template <typename R>
__device__ __forceinline__ bool iso_write_pixel(const IsoRenderArgs& a, const IsoArgs& g, size_t pixel, bool hit,
                                                const IsoRay& ray, double t, const double* normal) {
    float3 colour = make_float3(a.background[0], a.background[1], a.background[2]);
    bool blocked = false;
    if (hit && a.light_mode == ISO_LIGHT_HEAD) {
        colour = iso_shade(a, normal, ray.direction);
    } else if (hit) {
        double n[3];
        iso_facing(ray, normal, n);
        blocked = a.light_mode == ISO_LIGHT_SHADOWS && iso_key_light_faces(a, n) && iso_shadow_blocked<R>(a, g, ray, t, n);
        colour = iso_shade_key(a, ray, n, blocked);
    }
    iso_store_colour(a, pixel, colour);
    return blocked;
}

// The background (a pixel whose ray misses).
__device__ __forceinline__ void iso_write_background(const IsoRenderArgs& a, size_t pixel) {
    iso_store_colour(a, pixel, make_float3(a.background[0], a.background[1], a.background[2]));
}

// One pixel, the caster's arithmetic in R (double: the CPU's hits; float: caster-f32).
template <typename R>
__device__ __forceinline__ void iso_render_pixel(const IsoRenderArgs& a, unsigned int x, unsigned int y) {
    const IsoArgs g = iso_frame_caster(a);
    const IsoRay ray = iso_pixel_ray(a, x, y);
    const IsoCastResult r = iso_cast_within<R>(g, ray, 0.0, ISO_INF);
    const size_t pixel = (size_t)y * a.width + x;
    IsoHit hit = r.hit;
    if (iso_write_pixel<R>(a, g, pixel, hit.hit != 0u, ray, hit.t, r.normal)) hit.hit |= ISO_SHADOWED;
    if (a.hits != nullptr) a.hits[pixel] = hit;
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_ISOSURFACE_RENDER
#include "generated/layout_checks.cuh"
