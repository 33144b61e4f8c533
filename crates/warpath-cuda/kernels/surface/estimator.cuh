// surface/estimator.cuh — the path tracing estimator of crates/warpath-cpu/src/
// integrator.rs as device functions, stage by stage with the CPU's names (seed 000 §3.2,
// appendix A):
//   generate    a camera path for (pixel, sample): box-filtered jitter in the pixel, thin lens;
//   extend      trace the path's ray; on a miss add the environment (MIS against light
//               sampling), on a hit add emission (MIS), then, below max_depth, illuminate and
//               bounce; returns whether the path goes on;
//   illuminate  next-event estimation: one light sample, one shadow ray, power heuristic
//               (prepare_illumination stops before the shadow ray, for the multi-stage
//               wavefront; shade_miss and add_emission are extend's other two pieces);
//   bounce      BSDF sample for the next ray, then Russian roulette below rr_threshold
//               (survive with weight / threshold on the ROULETTE dimension);
//   accumulate  add a finished path's radiance to its pixel's running sums
//               (Film::add_sample: non-finite radiance counts as a zero sample).
// Every strategy (megakernel, wavefront, ...) calls these; a strategy only decides which
// thread runs which path when. Random numbers: Sampler::get(pixel, sample, bounce, dim).
//
// Instrumentation: a counters pointer (null: off, one uniform branch) receives,
// warp-aggregated (__match_any_sync groups lanes at the same bounce, one atomicAdd per
// group), with S = max_depth + 1 slots per table:
//   [0]          extension rays;            [1] shadow rays;
//   [2 + b]      paths entering extend at bounce b (the CPU's definition);
//   [2 + S + b]  warps entering extend at bounce b (a warp counts once per bounce value
//                among its lanes: the extend executions, in warps, that SIMT pays for);
//   [2 + 2S + b] clock64 cycles of those warp executions (per group: the slowest lane's
//                time through extend), for the time per active warp per bounce.
#pragma once
#include "common/bsdf.cuh"
#include "common/camera.cuh"
#include "common/lights.cuh"
#include "common/normal_map.cuh"
#include "common/bump_map.cuh"
#include "common/opacity.cuh"
#include "common/sampler.cuh"
#include "traversal/trace.cuh"
// Isosurface shapes (issue 14): only in the programs compiled with them (the "-iso" variant
// of the surface estimator, for scenes that have some); the others trace triangles alone.
#ifndef WARPATH_ISOSURFACE_SHAPES
#define WARPATH_ISOSURFACE_SHAPES 0
#endif
#if WARPATH_ISOSURFACE_SHAPES
#include "isosurface/shapes.cuh"
#endif

#define COUNTER_EXTENSION_RAYS 0u
#define COUNTER_SHADOW_RAYS 1u
#define COUNTER_ACTIVE_BASE 2u

// The counter slots of the warp and cycle tables for `max_depth`.
__device__ __forceinline__ unsigned int counter_warps_slot(unsigned int max_depth, unsigned int bounce) {
    return COUNTER_ACTIVE_BASE + (max_depth + 1u) + bounce;
}
__device__ __forceinline__ unsigned int counter_cycles_slot(unsigned int max_depth, unsigned int bounce) {
    return COUNTER_ACTIVE_BASE + 2u * (max_depth + 1u) + bounce;
}

// The state one path carries between bounces (what a wavefront kernel stores).
struct PathState {
    Ray ray;
    float3 throughput;     // product of BSDF weights (and roulette compensation)
    float3 radiance;       // radiance gathered so far
    unsigned int pixel;    // row-major index
    unsigned int sample;
    unsigned int bounce;   // index of the next surface hit (0 for the camera ray)
    float last_bsdf_pdf;   // solid-angle pdf of the BSDF sample that made `ray`
    bool last_delta;       // `ray` came from the camera or a delta lobe (no MIS)
};

// The estimator's view of a render: the scene, its sampler and the counters (may be null).
struct EstimatorContext {
    DeviceScene scene;
    Sampler sampler;
    unsigned long long* __restrict__ counters;
};

__device__ __forceinline__ unsigned int lane_id() {
#if defined(__CUDACC__)
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
#else
    return 0u;  // the host build of the lockstep tests (crates/warpath-lockstep) runs one lane
#endif
}

// counters[slot] += 1 for every calling lane, one atomicAdd per group of lanes with
// equal `slot` among those converged here.
__device__ __forceinline__ void count_aggregated(unsigned long long* counters, unsigned int slot) {
    const unsigned int active = __activemask();
    const unsigned int peers = __match_any_sync(active, slot);
    if (lane_id() == (unsigned int)(__ffs(peers) - 1)) {
        atomicAdd(counters + slot, (unsigned long long)__popc(peers));
    }
}

// power_heuristic lives in math.cuh.

// A camera path for `sample` of `pixel`.
__device__ __forceinline__ PathState generate(const EstimatorContext& ctx, unsigned int pixel, unsigned int sample) {
    const GpuSceneParams& params = *ctx.scene.params;
    const Sampler& s = ctx.sampler;
    const unsigned int x = pixel % params.width, y = pixel / params.width;
    const float2 film = make_float2(__fadd_rn((float)x, s.get(pixel, sample, 0u, DIM_PIXEL_X)),
                                    __fadd_rn((float)y, s.get(pixel, sample, 0u, DIM_PIXEL_Y)));
    const float2 lens = make_float2(s.get(pixel, sample, 0u, DIM_LENS_U), s.get(pixel, sample, 0u, DIM_LENS_V));
    PathState path;
    path.ray = generate_ray(params.camera, film, params.width, params.height, lens);
    path.throughput = splat3(1.0f);
    path.radiance = zero3();
    path.pixel = pixel;
    path.sample = sample;
    path.bounce = 0u;
    path.last_bsdf_pdf = 0.0f;
    path.last_delta = true;
    return path;
}

// The surface a ray hit, its shading frame oriented for the BSDF.
struct SurfaceHit {
    float3 p;
    float3 ng;  // geometric normal, flipped toward wo for two-sided opaque materials
    Frame frame;
    unsigned int material;
    float3 base_color;
    unsigned int triangle;
    float t;
    // A normal-mapped surface (integrator.rs SurfaceHit::normal_map): its unperturbed normal
    // and terminator term (frame.n is the perturbed normal).
    bool normal_mapped;
    MappedNormal normal_map;
    // The material's roughness and metallic here, their textures applied (SurfaceHit::roughness).
    float roughness;
    float metallic;
    float opacity;  // the opacity mask's α here (1: opaque; common/opacity.cuh)
};

// What a material reads at a hit, each false in programs compiled without its feature
// (common/features.cuh): base colour, roughness or metallic textures; a normal or bump map; an
// opacity texture.
__device__ __forceinline__ bool material_reads_textures(const Material& m) {
    return WARPATH_HAS_FEATURE(TEXTURES) &&
           (m.base_color_texture >= 0 || m.roughness_texture >= 0 || m.metallic_texture >= 0);
}
__device__ __forceinline__ bool material_has_surface_map(const Material& m) {
    return WARPATH_HAS_FEATURE(SURFACE_MAPS) && (m.normal_texture >= 0 || m.bump_texture >= 0);
}
__device__ __forceinline__ bool material_reads_opacity_texture(const Material& m) {
    return WARPATH_HAS_FEATURE(OPACITY) && m.opacity_texture >= 0;
}

// SurfaceHit::shading_material: the hit's material with its textured roughness and metallic.
__device__ __forceinline__ Material surface_material(const DeviceScene& scene, const SurfaceHit& surface) {
    Material m = scene.materials[surface.material];
    m.roughness = surface.roughness;
    m.metallic = surface.metallic;
    return m;
}

// SurfaceHit::normal_map_factor: the normal map's factor on the BSDF toward wi (world space).
__device__ __forceinline__ float surface_normal_map_factor(const SurfaceHit& surface, float3 wi) {
    const bool mapped = WARPATH_HAS_FEATURE(SURFACE_MAPS) && surface.normal_mapped;
    return mapped ? normal_map_factor(surface.normal_map, surface.frame.n, wi) : 1.0f;
}

// The closest hit of the scene's geometry (SceneView::intersect): the triangles, then the
// isosurfaces in programs compiled with them.
__device__ __forceinline__ bool scene_intersect_closest(const DeviceScene& scene, const Ray& ray,
                                                        SurfaceIntersection& hit) {
    bool found = intersect_closest(scene.bvh, ray, hit);
#if WARPATH_ISOSURFACE_SHAPES
    found = iso_shapes_closest(scene, ray, found, hit);
#endif
    return found;
}

// Whether anything blocks `ray` within its range (SceneView::occluded).
__device__ __forceinline__ bool scene_occluded(const DeviceScene& scene, const Ray& ray) {
    if (occluded(scene.bvh, ray)) return true;
#if WARPATH_ISOSURFACE_SHAPES
    if (iso_shapes_occlude(scene, ray)) return true;
#endif
    return false;
}

// The material of hit id `prim` (a triangle's, or an isosurface's).
__device__ __forceinline__ unsigned int hit_material(const DeviceScene& scene, unsigned int prim) {
#if WARPATH_ISOSURFACE_SHAPES
    const GpuSceneParams& params = *scene.params;
    if (prim >= params.triangle_count) return params.iso_shapes[prim - params.triangle_count].material;
#endif
    return scene.triangle_materials[prim];
}

#if WARPATH_ISOSURFACE_SHAPES
// integrator.rs isosurface_hit: the decoded outward normal is both normals; no uv, so the
// material's base colour alone.
__device__ __forceinline__ SurfaceHit isosurface_hit(const EstimatorContext& ctx, const Ray& ray,
                                                     const SurfaceIntersection& hit) {
    const unsigned int material_index = hit_material(ctx.scene, hit.prim);
    const Material& material = ctx.scene.materials[material_index];
    float3 n = iso_octahedral_decode(hit.u, hit.v);
    if (!is_transmissive(material) && !is_one_sided(material) && dot(n, -ray.d) < 0.0f) n = -n;
    SurfaceHit surface;
    surface.p = ray_at(ray, hit.t);
    surface.ng = n;
    surface.frame = frame_from_normal(n);
    surface.material = material_index;
    surface.base_color = material.base_color;
    surface.triangle = hit.prim;
    surface.t = hit.t;
    surface.normal_mapped = false;
    surface.normal_map.shading = n;
    surface.normal_map.alpha2 = 0.0f;
    surface.roughness = material.roughness;
    surface.metallic = material.metallic;
    surface.opacity = material_opacity(material, 1.0f);
    return surface;
}
#endif

__device__ __forceinline__ SurfaceHit surface_hit(const EstimatorContext& ctx, const Ray& ray,
                                                  const SurfaceIntersection& hit) {
    const DeviceScene& scene = ctx.scene;
    const GpuSceneParams& params = *scene.params;
#if WARPATH_ISOSURFACE_SHAPES
    if (hit.prim >= params.triangle_count) return isosurface_hit(ctx, ray, hit);
#endif
    const unsigned int tri = hit.prim;
    const unsigned int i0 = scene.triangles[3 * (size_t)tri];
    const unsigned int i1 = scene.triangles[3 * (size_t)tri + 1];
    const unsigned int i2 = scene.triangles[3 * (size_t)tri + 2];
    const float3 a = load3(scene.positions, i0), b = load3(scene.positions, i1), c = load3(scene.positions, i2);
    const float u = hit.u, v = hit.v;
    const float w = __fsub_rn(__fsub_rn(1.0f, u), v);
    const float3 p = ray_at(ray, hit.t);
    float3 ng = normalize_or_zero(cross(b - a, c - a));
    float3 ns = ng;
    if (params.has_normals) {
        const float3 n = normalize_or_zero(load3(scene.normals, i0) * w + load3(scene.normals, i1) * u +
                                           load3(scene.normals, i2) * v);
        ns = is_zero3(n) ? ng : n;
    }
    const unsigned int material_index = scene.triangle_materials[tri];
    const Material& material = scene.materials[material_index];
    // Keep the shading normal on the geometric normal's side.
    if (dot(ns, ng) < 0.0f) ns = -ns;
    const float3 wo = -ray.d;
    float2 uv = make_float2(0.0f, 0.0f);
    if (params.has_uvs && (material_reads_textures(material) || material_has_surface_map(material) ||
                           material_reads_opacity_texture(material))) {
        uv = load2(scene.uvs, i0) * w + load2(scene.uvs, i1) * u + load2(scene.uvs, i2) * v;
    }
    // The normal map (or else the bump map) perturbs the front face's shading normal (the
    // back face below takes it negated, with the frame).
    SurfaceHit surface;
    surface.normal_mapped = material_has_surface_map(material) && params.has_uvs;
    surface.normal_map.shading = ns;
    surface.normal_map.alpha2 = 0.0f;
    float3 perturbed = ns;
    if (surface.normal_mapped) {
        const float2 uv0 = load2(scene.uvs, i0), uv1 = load2(scene.uvs, i1), uv2 = load2(scene.uvs, i2);
        const float3 dp_du = triangle_dp_du(a, b, c, uv0, uv1, uv2);
        if (material.normal_texture >= 0) {
            const float3 texel = texture_sample(scene, (unsigned int)material.normal_texture, uv);
            perturbed = normal_map_perturb(ns, dp_du, texel, wo, surface.normal_map);
        } else {
            const float2 gradient = texture_height_gradient(scene, (unsigned int)material.bump_texture, uv);
            const float3 dp_dv = triangle_dp_dv(a, b, c, uv0, uv1, uv2);
            perturbed =
                bump_map_perturb(ns, ng, dp_du, dp_dv, gradient, material.bump_scale, wo, surface.normal_map);
        }
    }
    // Opaque two-sided BSDFs see the side the ray came from; one-sided ones and transmissive
    // kinds keep the front face's frame (a one-sided BSDF is then black from behind).
    if (!is_transmissive(material) && !is_one_sided(material) && dot(ng, wo) < 0.0f) {
        ng = -ng;
        ns = -ns;
        perturbed = -perturbed;
        surface.normal_map.shading = ns;
    }
    float3 base_color = material.base_color;
    float roughness = material.roughness, metallic = material.metallic;
    if (WARPATH_HAS_FEATURE(TEXTURES) && params.has_uvs) {
        if (material.base_color_texture >= 0) {
            base_color *= texture_sample(scene, (unsigned int)material.base_color_texture, uv);
        }
        if (material.roughness_texture >= 0) {
            const float t = texture_sample(scene, (unsigned int)material.roughness_texture, uv).x;
            const bool alpha = (material.flags & MATERIAL_FLAG_ROUGHNESS_TEXTURE_ALPHA) != 0u;
            roughness = __fmul_rn(roughness, alpha ? __fsqrt_rn(fmaxf(t, 0.0f)) : t);
        }
        if (material.metallic_texture >= 0) {
            metallic = __fmul_rn(metallic, texture_sample(scene, (unsigned int)material.metallic_texture, uv).x);
        }
    }
    surface.roughness = roughness;
    surface.metallic = metallic;
    float texel = 1.0f;
    if (material_reads_opacity_texture(material) && params.has_uvs) {
        texel = texture_sample(scene, (unsigned int)material.opacity_texture, uv).x;
    }
    surface.opacity = material_opacity(material, texel);
    surface.p = p;
    surface.ng = ng;
    surface.frame = frame_from_normal(perturbed);
    surface.material = material_index;
    surface.base_color = base_color;
    surface.triangle = tri;
    surface.t = hit.t;
    return surface;
}

// integrator.rs triangle_opacity: the mask's α at a triangle hit (surface_hit's value).
__device__ __forceinline__ float triangle_opacity(const DeviceScene& scene, const SurfaceIntersection& hit) {
    const unsigned int tri = hit.prim;
    const Material& material = scene.materials[scene.triangle_materials[tri]];
    float texel = 1.0f;
    if (material_reads_opacity_texture(material) && scene.params->has_uvs) {
        const unsigned int i0 = scene.triangles[3 * (size_t)tri];
        const unsigned int i1 = scene.triangles[3 * (size_t)tri + 1];
        const unsigned int i2 = scene.triangles[3 * (size_t)tri + 2];
        const float w = __fsub_rn(__fsub_rn(1.0f, hit.u), hit.v);
        const float2 uv = load2(scene.uvs, i0) * w + load2(scene.uvs, i1) * hit.u + load2(scene.uvs, i2) * hit.v;
        texel = texture_sample(scene, (unsigned int)material.opacity_texture, uv).x;
    }
    return material_opacity(material, texel);
}

// A shadow ray of next-event estimation and what it adds to the path's radiance when
// nothing blocks it (the multi-stage wavefront traces it in a kernel of its own).
struct PendingShadow {
    Ray ray;
    float3 contribution;
};

// Next-event estimation at `surface`, up to the shadow ray: one light sample, the BSDF,
// the power heuristic. False when there is nothing to trace (a delta BSDF, no lights, a
// zero sample). Counts the shadow ray.
__device__ __forceinline__ bool prepare_illumination(const EstimatorContext& ctx, const PathState& path,
                                                     const SurfaceHit& surface, PendingShadow& shadow) {
    const DeviceScene& scene = ctx.scene;
    const Material material = surface_material(scene, surface);
    if (is_purely_specular(material) || lights_is_empty(*scene.params)) return false;
    const Sampler& s = ctx.sampler;
    const unsigned int px = path.pixel, si = path.sample, b = path.bounce;
    const float u_select = s.get(px, si, b, DIM_LIGHT_SELECT);
    const float2 u = make_float2(s.get(px, si, b, DIM_LIGHT_U), s.get(px, si, b, DIM_LIGHT_V));
    LightSample ls;
    if (!sample_light(scene, surface.p, u_select, u, ls)) return false;
    if (ls.pdf <= 0.0f || !isfinite(ls.pdf)) return false;
    const float3 wo = to_local(surface.frame, -path.ray.d);
    const float3 wi = to_local(surface.frame, ls.wi);
    const float normal_map = surface_normal_map_factor(surface, ls.wi);
    // The mask scales the material by α; shadow rays stop at masked surfaces (Mitsuba's path).
    const float3 f = bsdf_eval(material, surface.base_color, wo, wi) * normal_map * surface.opacity;
    if (is_zero3(f)) return false;
    const float3 origin = offset_ray_origin(surface.p, surface.ng, ls.wi);
    if (isfinite(ls.distance)) {
        const float3 target = surface.p + ls.wi * ls.distance;
        const float3 to = target - origin;
        const float d = length(to);
        shadow.ray = make_segment(origin, to / d, __fmul_rn(d, 1.0f - 1e-4f));
    } else {
        shadow.ray = make_ray(origin, ls.wi);
    }
    if (ctx.counters) count_aggregated(ctx.counters, COUNTER_SHADOW_RAYS);
    const float bsdf_pdf_value = __fmul_rn(bsdf_pdf(material, surface.base_color, wo, wi), surface.opacity);
    // A delta light cannot be hit by a BSDF sample: no MIS weight.
    const float weight = ls.delta ? 1.0f : power_heuristic(ls.pdf, bsdf_pdf_value);
    // Rounded multiplies: the value must not depend on where the add happens (no FMA).
    const float3 scaled = path.throughput * f * ls.radiance;
    const float scale = __fdiv_rn(weight, ls.pdf);
    shadow.contribution = make_float3(__fmul_rn(scaled.x, scale), __fmul_rn(scaled.y, scale),
                                      __fmul_rn(scaled.z, scale));
    return true;
}

// Next-event estimation at `surface`: one light sample, one shadow ray.
__device__ __forceinline__ void illuminate(const EstimatorContext& ctx, PathState& path, const SurfaceHit& surface) {
    PendingShadow shadow;
    if (!prepare_illumination(ctx, path, surface, shadow)) return;
    if (scene_occluded(ctx.scene, shadow.ray)) return;
    path.radiance += shadow.contribution;
}

// Samples the BSDF for the path's next ray, then Russian roulette. Returns whether the
// path goes on.
__device__ __forceinline__ bool bounce(const EstimatorContext& ctx, PathState& path, const SurfaceHit& surface) {
    const Material material = surface_material(ctx.scene, surface);
    const Sampler& s = ctx.sampler;
    const unsigned int px = path.pixel, si = path.sample, b = path.bounce;
    float u_lobe = 0.0f;
    if (!mask_choose(surface.opacity, s.get(px, si, b, DIM_BSDF_LOBE), u_lobe)) {
        // The mask's null lobe: straight on, weight 1, a delta bounce (Mitsuba's path counts
        // it toward max_depth).
        const float3 dir = path.ray.d;
        path.ray = make_ray(offset_ray_origin(surface.p, surface.ng, dir), dir);
        path.last_bsdf_pdf = __fsub_rn(1.0f, surface.opacity);
        path.last_delta = true;
        path.bounce += 1u;
    } else {
        const float2 u = make_float2(s.get(px, si, b, DIM_BSDF_U), s.get(px, si, b, DIM_BSDF_V));
        const float3 wo = to_local(surface.frame, -path.ray.d);
        BsdfSample bs;
        if (!bsdf_sample(material, surface.base_color, wo, u_lobe, u, bs)) return false;
        const float3 dir = normalize(to_world(surface.frame, bs.wi));
        const float3 bsdf_weight = bs.weight * surface_normal_map_factor(surface, dir);
        if (!(is_finite3(bsdf_weight) && max_element(bsdf_weight) > 0.0f)) return false;
        path.throughput *= bsdf_weight;
        path.ray = make_ray(offset_ray_origin(surface.p, surface.ng, dir), dir);
        // The material's lobe was chosen with probability α.
        path.last_bsdf_pdf = __fmul_rn(bs.pdf, surface.opacity);
        path.last_delta = bs.delta;
        path.bounce += 1u;
    }

    // Russian roulette (seed 000 §3.2): below the threshold, survive with weight/threshold.
    const float rr_threshold = ctx.scene.params->rr_threshold;
    const float weight = max_element(path.throughput);
    if (weight < rr_threshold) {
        const float survive = __fdiv_rn(weight, rr_threshold);
        if (s.get(px, si, b, DIM_ROULETTE) >= survive) return false;
        path.throughput = path.throughput / survive;
    }
    return true;
}

// An escaped ray: the environment, weighted against having sampled it by light sampling.
__device__ __forceinline__ void shade_miss(const EstimatorContext& ctx, PathState& path) {
    const DeviceScene& scene = ctx.scene;
    const float3 le = environment_radiance(scene, path.ray.d);
    if (!is_zero3(le)) {
        const float weight =
            path.last_delta ? 1.0f : power_heuristic(path.last_bsdf_pdf, pdf_environment(scene, path.ray.d));
        path.radiance += path.throughput * le * weight;
    }
}

// Emission seen by the path's ray at `surface` (MIS against light sampling).
__device__ __forceinline__ void add_emission(const EstimatorContext& ctx, PathState& path, const SurfaceHit& surface) {
    const DeviceScene& scene = ctx.scene;
    const int light_index =
        surface.triangle < scene.params->triangle_count ? scene.triangle_to_light[surface.triangle] : -1;
    if (light_index < 0) return;
    const TriangleLight light = scene.lights[light_index];
    const float3 le = triangle_light_radiance(light, -path.ray.d);
    if (is_zero3(le)) return;
    const float weight = path.last_delta ? 1.0f
                                         : power_heuristic(path.last_bsdf_pdf,
                                                           pdf_triangle(scene, light_index, path.ray.d, surface.t));
    path.radiance += path.throughput * le * weight;
}

// Traces the path's ray and shades what it finds. Returns whether the path goes on.
__device__ __forceinline__ bool extend_uncounted(const EstimatorContext& ctx, PathState& path) {
    const DeviceScene& scene = ctx.scene;
    SurfaceIntersection hit;
    if (!scene_intersect_closest(scene, path.ray, hit)) {
        shade_miss(ctx, path);
        return false;
    }
    const SurfaceHit surface = surface_hit(ctx, path.ray, hit);
    add_emission(ctx, path, surface);
    if (path.bounce >= scene.params->max_depth) return false;
    illuminate(ctx, path, surface);
    return bounce(ctx, path, surface);
}

// The instrumentation around one extension (see the header): begin counts the path, its
// warp and starts the clock; end adds the warp's cycles. Both are no-ops with counters off.
struct ExtendProbe {
    unsigned int peers;
    bool leader;
    long long start;
};

__device__ __forceinline__ ExtendProbe extend_probe_begin(const EstimatorContext& ctx, unsigned int bounce) {
    ExtendProbe probe{0u, false, 0};
    if (!ctx.counters) return probe;
    probe.peers = __match_any_sync(__activemask(), bounce);
    probe.leader = lane_id() == (unsigned int)(__ffs(probe.peers) - 1);
    if (probe.leader) {
        const unsigned long long paths = (unsigned long long)__popc(probe.peers);
        atomicAdd(ctx.counters + COUNTER_EXTENSION_RAYS, paths);
        atomicAdd(ctx.counters + COUNTER_ACTIVE_BASE + bounce, paths);
        atomicAdd(ctx.counters + counter_warps_slot(ctx.scene.params->max_depth, bounce), 1ull);
    }
    probe.start = clock64();
    return probe;
}

__device__ __forceinline__ void extend_probe_end(const EstimatorContext& ctx, const ExtendProbe& probe,
                                                 unsigned int bounce) {
    if (!ctx.counters) return;
    const long long elapsed = clock64() - probe.start;
    const unsigned int cycles = (unsigned int)min(max(elapsed, 0ll), 0xffffffffll);
    const unsigned int warp_cycles = __reduce_max_sync(probe.peers, cycles);
    if (probe.leader)
        atomicAdd(ctx.counters + counter_cycles_slot(ctx.scene.params->max_depth, bounce),
                  (unsigned long long)warp_cycles);
}

// extend, with the instrumentation of the header when ctx.counters is set (one inlined copy
// of the estimator either way: the counting brackets the single call).
__device__ __forceinline__ bool extend(const EstimatorContext& ctx, PathState& path) {
    const unsigned int bounce = path.bounce;
    const ExtendProbe probe = extend_probe_begin(ctx, bounce);
    const bool goes_on = extend_uncounted(ctx, path);
    extend_probe_end(ctx, probe, bounce);
    return goes_on;
}

// ---- a path between bounces: 64 bytes, four 16-byte words ---------------------------------
// (origin, ~pixel) (direction, sample) (throughput, last_bsdf_pdf) (radiance, bounce | delta << 31).
// The pixel is stored complemented so that a zeroed slot (word 0) reads as dead. The ray's t
// range is always [0, inf) here (generate and bounce make full rays).
struct alignas(16) StoredPath {
    float4 origin_pixel;
    float4 direction_sample;
    float4 throughput_pdf;
    float4 radiance_bounce;
};

#define STORED_PATH_DEAD 0u  // the (complemented) pixel word of an empty slot

__device__ __forceinline__ StoredPath pack_path(const PathState& p) {
    StoredPath s;
    s.origin_pixel = make_float4(p.ray.o.x, p.ray.o.y, p.ray.o.z, __uint_as_float(~p.pixel));
    s.direction_sample = make_float4(p.ray.d.x, p.ray.d.y, p.ray.d.z, __uint_as_float(p.sample));
    s.throughput_pdf = make_float4(p.throughput.x, p.throughput.y, p.throughput.z, p.last_bsdf_pdf);
    s.radiance_bounce = make_float4(p.radiance.x, p.radiance.y, p.radiance.z,
                                    __uint_as_float(p.bounce | (p.last_delta ? 0x80000000u : 0u)));
    return s;
}

__device__ __forceinline__ PathState unpack_path(const StoredPath& s) {
    PathState p;
    p.ray = make_ray(make_float3(s.origin_pixel.x, s.origin_pixel.y, s.origin_pixel.z),
                     make_float3(s.direction_sample.x, s.direction_sample.y, s.direction_sample.z));
    p.pixel = ~__float_as_uint(s.origin_pixel.w);
    p.sample = __float_as_uint(s.direction_sample.w);
    p.throughput = make_float3(s.throughput_pdf.x, s.throughput_pdf.y, s.throughput_pdf.z);
    p.last_bsdf_pdf = s.throughput_pdf.w;
    p.radiance = make_float3(s.radiance_bounce.x, s.radiance_bounce.y, s.radiance_bounce.z);
    const unsigned int word = __float_as_uint(s.radiance_bounce.w);
    p.bounce = word & 0x7fffffffu;
    p.last_delta = (word >> 31) != 0;
    return p;
}

__device__ __forceinline__ void store_path(StoredPath* slot, const PathState& p) {
    const StoredPath s = pack_path(p);
    float4* words = reinterpret_cast<float4*>(slot);
    words[0] = s.origin_pixel;
    words[1] = s.direction_sample;
    words[2] = s.throughput_pdf;
    words[3] = s.radiance_bounce;
}

__device__ __forceinline__ PathState load_path(const StoredPath* slot) {
    const float4* words = reinterpret_cast<const float4*>(slot);
    StoredPath s;
    s.origin_pixel = words[0];
    s.direction_sample = words[1];
    s.throughput_pdf = words[2];
    s.radiance_bounce = words[3];
    return unpack_path(s);
}

__device__ __forceinline__ bool slot_is_live(const StoredPath* slot) {
    return __float_as_uint(reinterpret_cast<const float*>(slot)[3]) != STORED_PATH_DEAD;
}

__device__ __forceinline__ void mark_slot_dead(StoredPath* slot) {
    reinterpret_cast<float*>(slot)[3] = __uint_as_float(STORED_PATH_DEAD);
}

// ---- the surface path tracer as an estimator of the schedules (schedules/schedule.cuh) ----
struct SurfaceEstimator {
    using Scene = DeviceScene;
    using Context = EstimatorContext;
    using Path = PathState;
    // sortingSK's estimator: a surface vertex has no fetch to defer past a reordering (its
    // material is read where it is hit), so sorting-sk is sorted-sk for surfaces.
    using Deferred = SurfaceEstimator;
    using Stored = StoredPath;

    static __device__ __forceinline__ Context context(const Scene& scene, unsigned long long* counters) {
        EstimatorContext ctx;
        ctx.scene = scene;
        ctx.sampler.kind = scene.params->sampler;
        ctx.sampler.seed = scene.params->seed;
        ctx.counters = counters;
        return ctx;
    }
    static __device__ __forceinline__ Path generate(const Context& ctx, unsigned int pixel, unsigned int sample) {
        return ::generate(ctx, pixel, sample);
    }
    static __device__ __forceinline__ bool extend(const Context& ctx, Path& path) { return ::extend(ctx, path); }
    static __device__ __forceinline__ float3 radiance(const Path& path) { return path.radiance; }
    static __device__ __forceinline__ unsigned int pixel(const Path& path) { return path.pixel; }
    static __device__ __forceinline__ float3 sort_position(const Path& path) { return path.ray.o; }
    static __device__ __forceinline__ Stored pack(const Path& path) { return pack_path(path); }
    static __device__ __forceinline__ void store(Stored* slot, const Path& path) { store_path(slot, path); }
    static __device__ __forceinline__ Path load(const Stored* slot) { return load_path(slot); }
    static __device__ __forceinline__ bool slot_is_live(const Stored* slot) { return ::slot_is_live(slot); }
    static __device__ __forceinline__ void mark_slot_dead(Stored* slot) { ::mark_slot_dead(slot); }
};

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_SURFACE_ESTIMATOR
#include "generated/layout_checks.cuh"
