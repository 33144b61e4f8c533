// common/scene.cuh — the scene as the estimator reads it on the device: the Pod structs
// that crates/warpath-cuda/src/scene_upload.rs owns (GpuCamera, GpuTexture,
// GpuSceneParams; sizes and offsets pinned here with static_assert, compared with Rust's
// by the GPU test gpu_megakernel.rs through megakernel_layout_report), and DeviceScene,
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
static_assert(sizeof(GpuCamera) == 80, "GpuCamera size");
static_assert(WARPATH_OFFSETOF(GpuCamera, to_world) == 0, "GpuCamera.to_world");
static_assert(WARPATH_OFFSETOF(GpuCamera, tan_half_fov) == 64, "GpuCamera.tan_half_fov");
static_assert(WARPATH_OFFSETOF(GpuCamera, aperture_radius) == 72, "GpuCamera.aperture_radius");
static_assert(WARPATH_OFFSETOF(GpuCamera, focus_distance) == 76, "GpuCamera.focus_distance");

// One texture inside the flattened texel array (RGB float triples from `offset`).
struct GpuTexture {
    unsigned int width;
    unsigned int height;
    unsigned int offset;
    unsigned int _pad;
};
static_assert(sizeof(GpuTexture) == 16, "GpuTexture size");
static_assert(WARPATH_OFFSETOF(GpuTexture, width) == 0, "GpuTexture.width");
static_assert(WARPATH_OFFSETOF(GpuTexture, height) == 4, "GpuTexture.height");
static_assert(WARPATH_OFFSETOF(GpuTexture, offset) == 8, "GpuTexture.offset");
static_assert(WARPATH_OFFSETOF(GpuTexture, _pad) == 12, "GpuTexture._pad");

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
    unsigned int selection_count;  // bins of the light selection (+1 with an environment)
    unsigned int has_normals;
    unsigned int has_uvs;
    unsigned int texture_count;
    unsigned int iso_shape_count;     // isosurface shapes (hit ids triangle_count + k)
    const GpuIsoShape* iso_shapes;    // iso_shape_count records, or null
};
static_assert(sizeof(GpuSceneParams) == 248, "GpuSceneParams size");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, camera) == 0, "GpuSceneParams.camera");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_to_world) == 80, "GpuSceneParams.env_to_world");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_to_local) == 116, "GpuSceneParams.env_to_local");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_constant) == 152, "GpuSceneParams.env_constant");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_scale) == 164, "GpuSceneParams.env_scale");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_kind) == 168, "GpuSceneParams.env_kind");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_width) == 172, "GpuSceneParams.env_width");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_height) == 176, "GpuSceneParams.env_height");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, env_is_black) == 180, "GpuSceneParams.env_is_black");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, width) == 184, "GpuSceneParams.width");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, height) == 188, "GpuSceneParams.height");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, max_depth) == 192, "GpuSceneParams.max_depth");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, seed) == 196, "GpuSceneParams.seed");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, sampler) == 200, "GpuSceneParams.sampler");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, rr_threshold) == 204, "GpuSceneParams.rr_threshold");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, triangle_count) == 208, "GpuSceneParams.triangle_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, material_count) == 212, "GpuSceneParams.material_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, light_count) == 216, "GpuSceneParams.light_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, selection_count) == 220, "GpuSceneParams.selection_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, has_normals) == 224, "GpuSceneParams.has_normals");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, has_uvs) == 228, "GpuSceneParams.has_uvs");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, texture_count) == 232, "GpuSceneParams.texture_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, iso_shape_count) == 236, "GpuSceneParams.iso_shape_count");
static_assert(WARPATH_OFFSETOF(GpuSceneParams, iso_shapes) == 240, "GpuSceneParams.iso_shapes");

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
    const TriangleLight* __restrict__ lights;
    const float* __restrict__ light_cdf;              // selection_count + 1 values
    const float* __restrict__ env_pixels;             // 4 per texel (RGB, sampling weight), row-major, top row first
    const float* __restrict__ env_conditional_cdf;    // (env_height − 1) × (env_width + 1), over the patches
    const float* __restrict__ env_marginal_cdf;       // env_height (env_height − 1 rows of patches, + 1)
    const float* __restrict__ texels;                 // 3 per texel, every texture
    const GpuTexture* __restrict__ textures;
};

// Rust's DeviceSceneArgs (scene_upload.rs) is this struct; its layout, pinned here.
using DeviceSceneArgs = DeviceScene;
using TraversalSceneArgs = TraversalScene;
static_assert(sizeof(DeviceSceneArgs) == 144, "DeviceSceneArgs size");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, params) == 0, "DeviceSceneArgs.params");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, bvh) == 8, "DeviceSceneArgs.bvh");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, positions) == 32, "DeviceSceneArgs.positions");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, normals) == 40, "DeviceSceneArgs.normals");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, uvs) == 48, "DeviceSceneArgs.uvs");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, triangles) == 56, "DeviceSceneArgs.triangles");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, triangle_materials) == 64, "DeviceSceneArgs.triangle_materials");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, materials) == 72, "DeviceSceneArgs.materials");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, triangle_to_light) == 80, "DeviceSceneArgs.triangle_to_light");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, lights) == 88, "DeviceSceneArgs.lights");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, light_cdf) == 96, "DeviceSceneArgs.light_cdf");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, env_pixels) == 104, "DeviceSceneArgs.env_pixels");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, env_conditional_cdf) == 112, "DeviceSceneArgs.env_conditional_cdf");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, env_marginal_cdf) == 120, "DeviceSceneArgs.env_marginal_cdf");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, texels) == 128, "DeviceSceneArgs.texels");
static_assert(WARPATH_OFFSETOF(DeviceSceneArgs, textures) == 136, "DeviceSceneArgs.textures");
static_assert(sizeof(TraversalSceneArgs) == 24, "TraversalSceneArgs size");
static_assert(WARPATH_OFFSETOF(TraversalSceneArgs, nodes) == 0, "TraversalSceneArgs.nodes");
static_assert(WARPATH_OFFSETOF(TraversalSceneArgs, triangles) == 8, "TraversalSceneArgs.triangles");
static_assert(WARPATH_OFFSETOF(TraversalSceneArgs, triangle_ids) == 16, "TraversalSceneArgs.triangle_ids");

// Mat3 (three columns) times v, as glam's mul_vec3: (c0·x + c1·y) + c2·z.
__device__ __forceinline__ float3 mat3_mul(const float* m, float3 v) {
    const float3 c0 = make_float3(m[0], m[1], m[2]);
    const float3 c1 = make_float3(m[3], m[4], m[5]);
    const float3 c2 = make_float3(m[6], m[7], m[8]);
    return c0 * v.x + c1 * v.y + c2 * v.z;
}
