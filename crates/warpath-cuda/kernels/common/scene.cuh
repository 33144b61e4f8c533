// common/scene.cuh — the scene as the estimator reads it on the device: the Pod structs
// that crates/warpath-cuda/src/scene_upload.rs owns (GpuCamera, GpuTexture,
// GpuSceneParams; sizes and offsets checked against Rust's by the generated layout checks
// at the end of this file), and DeviceScene,
// the bundle of device pointers a kernel builds from its arguments.
#pragma once
#include "common/layout.cuh"
#include "traversal/traversal.cuh"
#include "common/math.cuh"

// The thin-lens camera: to_world column-major (left, up, forward, position), tan of the
// half field of view along x and y for this film (computed on the host, as
// Camera::tan_half_fov does), lens radius and focus distance.
struct GpuCamera {
    float to_world[16];
    float tan_half_fov[2];
    float aperture_radius;
    float focus_distance;
};

// One texture inside the flattened texel array (RGB float triples from `offset`).
struct GpuTexture {
    unsigned int width;
    unsigned int height;
    unsigned int offset;
    unsigned int _pad;
};

#define ENV_NONE 0u
#define ENV_CONSTANT 1u
#define ENV_MAP 2u

struct GpuIsoShape;  // isosurface/shapes.cuh (read only by the "-iso" programs)

// Everything scalar a render needs (one per renderer, in device memory).
struct GpuSceneParams {
    GpuCamera camera;
    float env_to_world[9];  // Mat3 columns
    float env_to_local[9];  // its transpose, columns
    float env_constant[3];
    float env_scale;
    unsigned int env_kind;  // ENV_NONE / ENV_CONSTANT / ENV_MAP
    unsigned int env_width;   // texels across
    unsigned int env_height;  // texel rows, at least 2
    unsigned int env_is_black;  // the map's distribution total is 0: uniform sampling
    unsigned int width;
    unsigned int height;
    unsigned int max_depth;
    unsigned int seed;
    unsigned int sampler;  // SamplerKind
    float rr_threshold;
    unsigned int triangle_count;
    unsigned int material_count;
    unsigned int light_count;      // triangle lights
    unsigned int selection_count;  // bins of the light selection (+1 with an environment, + delta lights)
    unsigned int has_normals;
    unsigned int has_uvs;
    unsigned int texture_count;
    unsigned int iso_shape_count;     // isosurface shapes (hit ids triangle_count + k)
    unsigned int delta_light_count;   // point, spot and directional lights (the last selection bins)
    unsigned int _pad_delta;
    const GpuIsoShape* iso_shapes;    // iso_shape_count records, or null
};

// Device pointers of one uploaded scene (scene_upload.rs's DeviceScene). Arrays of
// 3-vectors are plain float triples; empty arrays are valid 16-byte allocations.
struct DeviceScene {
    const GpuSceneParams* __restrict__ params;
    TraversalScene bvh;
    const float* __restrict__ positions;              // 3 per vertex
    const float* __restrict__ normals;                // 3 per vertex, or empty
    const float* __restrict__ uvs;                    // 2 per vertex, or empty
    const unsigned int* __restrict__ triangles;       // 3 vertex indices per triangle
    const unsigned int* __restrict__ triangle_materials;
    const Material* __restrict__ materials;
    const int* __restrict__ triangle_to_light;        // per triangle: light index or -1
    const TriangleLight* __restrict__ lights;         // light_count, then the delta lights (below)
    const float* __restrict__ light_cdf;              // selection_count + 1 values
    const float* __restrict__ env_pixels;             // 4 per texel (RGB, sampling weight), row-major, top row first
    const float* __restrict__ env_conditional_cdf;    // (env_height − 1) × (env_width + 1), over the patches
    const float* __restrict__ env_marginal_cdf;       // env_height (env_height − 1 rows of patches, + 1)
    const float* __restrict__ texels;                 // 3 per texel, every texture
    const GpuTexture* __restrict__ textures;
};

// The delta lights: delta_light_count 64-byte DeltaLight records stored after the
// light_count triangle lights in `lights` (scene_upload.rs's light_records).
__device__ __forceinline__ const DeltaLight* delta_lights(const DeviceScene& scene) {
    return reinterpret_cast<const DeltaLight*>(scene.lights + scene.params->light_count);
}

// Rust's DeviceSceneArgs (scene_upload.rs) is this struct (its layout: the generated checks).
using DeviceSceneArgs = DeviceScene;
using TraversalSceneArgs = TraversalScene;

// Mat3 (three columns) times v, as glam's mul_vec3: (c0·x + c1·y) + c2·z.
__device__ __forceinline__ float3 mat3_mul(const float* m, float3 v) {
    const float3 c0 = make_float3(m[0], m[1], m[2]);
    const float3 c1 = make_float3(m[3], m[4], m[5]);
    const float3 c2 = make_float3(m[6], m[7], m[8]);
    return c0 * v.x + c1 * v.y + c2 * v.z;
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_COMMON_SCENE
#include "generated/layout_checks.cuh"
