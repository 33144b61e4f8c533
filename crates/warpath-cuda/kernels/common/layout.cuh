// common/layout.cuh — device mirrors of the GPU-shared structs that Rust owns
// (crates/warpath-cuda/src/layout.rs, warpath-core's Material and TriangleLight).
// Rust is the single source of truth: every size and field offset is checked at compile
// time by generated/layout_checks.cuh (rendered from src/layout_registry.rs), included at
// the end of this file and of every header that declares a struct shared with Rust.
#pragma once

// offsetof usable in static_assert: NVRTC has no <cstddef> and no __builtin_offsetof, but
// its EDG front end folds __INTADDR__ of a member address to a constant.
#if defined(__CUDACC_RTC__)
#define WARPATH_OFFSETOF(type, field) ((unsigned long long)__INTADDR__(&(((type*)0)->field)))
#else
#define WARPATH_OFFSETOF(type, field) __builtin_offsetof(type, field)
#endif

// Aila–Laine BVH node (seed 004, "Data structures"): two child boxes, two child indices.
// child_index >= 0: another node; child_index < 0: ~(first float4 slot of a leaf).
struct alignas(16) AilaLaineNode {
    float4 child0_xy;   // c0.lo.x, c0.hi.x, c0.lo.y, c0.hi.y
    float4 child1_xy;   // c1.lo.x, c1.hi.x, c1.lo.y, c1.hi.y
    float4 children_z;  // c0.lo.z, c0.hi.z, c1.lo.z, c1.hi.z
    int child_index[2];
    int _pad[2];
};

// One triangle in Möller–Trumbore form: v0, edge1 = v1 - v0, edge2 = v2 - v0 (w = 0).
// The float4 after a leaf's last triangle has w bits == WARPATH_END_OF_LEAF.
struct alignas(16) GpuTriangle {
    float4 v0;
    float4 edge1;
    float4 edge2;
};

#define WARPATH_END_OF_LEAF 0x80000000u

// A ray as two float4: (origin, t_min), (direction, t_max); hits count for t_min < t < t_max.
struct alignas(16) GpuRay {
    float3 origin;
    float t_min;
    float3 direction;
    float t_max;
};

// A traversal result; prim == -1 for a miss (t is then the ray's t_max).
struct alignas(16) GpuHit {
    float t;
    float u;
    float v;
    int prim;
};

// warpath_core::material::Material (128 B); `kind` is a MaterialKind value.
struct Material {
    unsigned int kind;
    int base_color_texture;
    float roughness;
    float ior;
    float3 base_color;
    float exponent;
    float3 specular;
    unsigned int flags;
    float3 emission;
    int normal_texture;  // tangent-space normal map (raw RGB), or -1
    // MaterialKind::Principled's parameters; a conductor with flags::CONDUCTOR_ETA_K keeps its
    // eta in spec_tint, sheen, sheen_tint and its k in clearcoat, clearcoat_gloss, spec_trans
    // (common/conductor.cuh).
    float metallic;
    float spec_tint;
    float sheen;
    float sheen_tint;
    float clearcoat;
    float clearcoat_gloss;
    float spec_trans;
    float flatness;
    int bump_texture;       // height map (red channel, raw) for bump mapping, or -1
    float bump_scale;       // the bump map's gradient multiplier
    int roughness_texture;  // red channel multiplies `roughness`, or -1
    int metallic_texture;   // red channel multiplies `metallic`, or -1
    float opacity;          // Mitsuba's mask: 1 opaque (see common/opacity.cuh)
    int opacity_texture;    // its first channel multiplies opacity, or -1
    unsigned int _pad_tail[2];
};

// warpath_core::light::TriangleLight (64 B): p0 + edges, area, emission.
struct TriangleLight {
    float3 p0;
    float area;
    float3 e1;
    unsigned int two_sided;
    float3 e2;
    unsigned int triangle;
    float3 emission;
    float _pad;
};

// warpath_core::light::DeltaLight (64 B): a point, spot or directional light.
#define DELTA_POINT 0u
#define DELTA_SPOT 1u
#define DELTA_DIRECTIONAL 2u
struct DeltaLight {
    float3 position;       // point, spot
    unsigned int kind;     // DELTA_POINT / DELTA_SPOT / DELTA_DIRECTIONAL
    float3 direction;      // unit: the spot's axis, or the way directional light travels
    float cos_cutoff;      // spot
    float3 intensity;      // W/sr (point, spot) or irradiance W/m² (directional), RGB
    float cos_beam;        // spot
    float cutoff;          // spot, radians
    float inv_transition;  // spot: 1 / (cutoff − beam width), or 0
    float _pad[2];
};

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_COMMON_LAYOUT
#include "generated/layout_checks.cuh"
