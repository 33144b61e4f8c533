// isosurface/render.cuh — images of an isosurface on the device (issue 14, seed 001's
// generation and shading stages fused with the single-kernel caster): one thread per pixel
// makes the pixel's ray as warpath_isosurface::render::IsoView::ray does (every f64
// operation rounded on its own, so the ray is the CPU's bit for bit), casts it through the
// condensed tree (isosurface/caster.cuh) and shades the hit as render::shade (Blinn–Phong,
// head light, two-sided). IsoRenderArgs's layout is owned by Rust
// (crates/warpath-cuda/src/isosurface.rs) and pinned here.
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
    unsigned int _pad;
    const unsigned int* root_slot;  // non-null: the root is *root_slot (the GPU tree update's)
};
static_assert(sizeof(IsoRenderArgs) == 208, "IsoRenderArgs size");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, values) == 0, "IsoRenderArgs.values");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, nodes) == 8, "IsoRenderArgs.nodes");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, pixels) == 16, "IsoRenderArgs.pixels");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, hits) == 24, "IsoRenderArgs.hits");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, eye) == 32, "IsoRenderArgs.eye");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, corner) == 56, "IsoRenderArgs.corner");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, right) == 80, "IsoRenderArgs.right");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, down) == 104, "IsoRenderArgs.down");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, samples) == 128, "IsoRenderArgs.samples");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, root) == 140, "IsoRenderArgs.root");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, width) == 144, "IsoRenderArgs.width");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, height) == 148, "IsoRenderArgs.height");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, isovalue) == 152, "IsoRenderArgs.isovalue");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, color) == 156, "IsoRenderArgs.color");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, ambient) == 168, "IsoRenderArgs.ambient");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, diffuse) == 172, "IsoRenderArgs.diffuse");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, specular) == 176, "IsoRenderArgs.specular");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, shininess) == 180, "IsoRenderArgs.shininess");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, background) == 184, "IsoRenderArgs.background");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, _pad) == 196, "IsoRenderArgs._pad");
static_assert(WARPATH_OFFSETOF(IsoRenderArgs, root_slot) == 200, "IsoRenderArgs.root_slot");

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

// The pixel's colour: the background, or the shaded hit.
__device__ __forceinline__ void iso_write_pixel(const IsoRenderArgs& a, size_t pixel, bool hit, const double* normal,
                                                const double* direction) {
    float3 colour = make_float3(a.background[0], a.background[1], a.background[2]);
    if (hit) colour = iso_shade(a, normal, direction);
    a.pixels[3 * pixel] = colour.x;
    a.pixels[3 * pixel + 1] = colour.y;
    a.pixels[3 * pixel + 2] = colour.z;
}

// One pixel, the caster's arithmetic in R (double: the CPU's hits; float: caster-f32).
template <typename R>
__device__ __forceinline__ void iso_render_pixel(const IsoRenderArgs& a, unsigned int x, unsigned int y) {
    const IsoArgs g = iso_frame_caster(a);
    const IsoRay ray = iso_pixel_ray(a, x, y);
    const IsoCastResult r = iso_cast_within<R>(g, ray, 0.0, ISO_INF);
    const size_t pixel = (size_t)y * a.width + x;
    iso_write_pixel(a, pixel, r.hit.hit != 0u, r.normal, ray.direction);
    if (a.hits != nullptr) a.hits[pixel] = r.hit;
}
