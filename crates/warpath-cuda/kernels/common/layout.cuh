// common/layout.cuh — device mirrors of the GPU-shared structs that Rust owns
// (crates/warpath-cuda/src/layout.rs, warpath-core's Material and TriangleLight).
// Rust is the single source of truth: every size and field offset is pinned here with
// static_assert, and the GPU test `layout_matches` compares the device compiler's
// sizeof/offsetof (kernels/layout_check.cu) with Rust's size_of/offset_of!.
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
static_assert(sizeof(AilaLaineNode) == 64, "AilaLaineNode size");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, child0_xy) == 0, "AilaLaineNode.child0_xy");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, child1_xy) == 16, "AilaLaineNode.child1_xy");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, children_z) == 32, "AilaLaineNode.children_z");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, child_index) == 48, "AilaLaineNode.child_index");
static_assert(WARPATH_OFFSETOF(AilaLaineNode, _pad) == 56, "AilaLaineNode._pad");

// One triangle in Möller–Trumbore form: v0, edge1 = v1 - v0, edge2 = v2 - v0 (w = 0).
// The float4 after a leaf's last triangle has w bits == WARPATH_END_OF_LEAF.
struct alignas(16) GpuTriangle {
    float4 v0;
    float4 edge1;
    float4 edge2;
};
static_assert(sizeof(GpuTriangle) == 48, "GpuTriangle size");
static_assert(WARPATH_OFFSETOF(GpuTriangle, v0) == 0, "GpuTriangle.v0");
static_assert(WARPATH_OFFSETOF(GpuTriangle, edge1) == 16, "GpuTriangle.edge1");
static_assert(WARPATH_OFFSETOF(GpuTriangle, edge2) == 32, "GpuTriangle.edge2");

#define WARPATH_END_OF_LEAF 0x80000000u

// A ray as two float4: (origin, t_min), (direction, t_max); hits count for t_min < t < t_max.
struct alignas(16) GpuRay {
    float3 origin;
    float t_min;
    float3 direction;
    float t_max;
};
static_assert(sizeof(GpuRay) == 32, "GpuRay size");
static_assert(WARPATH_OFFSETOF(GpuRay, origin) == 0, "GpuRay.origin");
static_assert(WARPATH_OFFSETOF(GpuRay, t_min) == 12, "GpuRay.t_min");
static_assert(WARPATH_OFFSETOF(GpuRay, direction) == 16, "GpuRay.direction");
static_assert(WARPATH_OFFSETOF(GpuRay, t_max) == 28, "GpuRay.t_max");

// A traversal result; prim == -1 for a miss (t is then the ray's t_max).
struct alignas(16) GpuHit {
    float t;
    float u;
    float v;
    int prim;
};
static_assert(sizeof(GpuHit) == 16, "GpuHit size");
static_assert(WARPATH_OFFSETOF(GpuHit, t) == 0, "GpuHit.t");
static_assert(WARPATH_OFFSETOF(GpuHit, u) == 4, "GpuHit.u");
static_assert(WARPATH_OFFSETOF(GpuHit, v) == 8, "GpuHit.v");
static_assert(WARPATH_OFFSETOF(GpuHit, prim) == 12, "GpuHit.prim");

// warpath_core::material::Material (64 B); `kind` is a MaterialKind value.
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
    unsigned int _pad;
};
static_assert(sizeof(Material) == 64, "Material size");
static_assert(WARPATH_OFFSETOF(Material, kind) == 0, "Material.kind");
static_assert(WARPATH_OFFSETOF(Material, base_color_texture) == 4, "Material.base_color_texture");
static_assert(WARPATH_OFFSETOF(Material, roughness) == 8, "Material.roughness");
static_assert(WARPATH_OFFSETOF(Material, ior) == 12, "Material.ior");
static_assert(WARPATH_OFFSETOF(Material, base_color) == 16, "Material.base_color");
static_assert(WARPATH_OFFSETOF(Material, exponent) == 28, "Material.exponent");
static_assert(WARPATH_OFFSETOF(Material, specular) == 32, "Material.specular");
static_assert(WARPATH_OFFSETOF(Material, flags) == 44, "Material.flags");
static_assert(WARPATH_OFFSETOF(Material, emission) == 48, "Material.emission");
static_assert(WARPATH_OFFSETOF(Material, _pad) == 60, "Material._pad");

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
static_assert(sizeof(TriangleLight) == 64, "TriangleLight size");
static_assert(WARPATH_OFFSETOF(TriangleLight, p0) == 0, "TriangleLight.p0");
static_assert(WARPATH_OFFSETOF(TriangleLight, area) == 12, "TriangleLight.area");
static_assert(WARPATH_OFFSETOF(TriangleLight, e1) == 16, "TriangleLight.e1");
static_assert(WARPATH_OFFSETOF(TriangleLight, two_sided) == 28, "TriangleLight.two_sided");
static_assert(WARPATH_OFFSETOF(TriangleLight, e2) == 32, "TriangleLight.e2");
static_assert(WARPATH_OFFSETOF(TriangleLight, triangle) == 44, "TriangleLight.triangle");
static_assert(WARPATH_OFFSETOF(TriangleLight, emission) == 48, "TriangleLight.emission");
static_assert(WARPATH_OFFSETOF(TriangleLight, _pad) == 60, "TriangleLight._pad");
