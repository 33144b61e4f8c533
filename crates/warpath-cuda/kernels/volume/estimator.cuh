// volume/estimator.cuh — the volumetric path tracer of crates/warpath-cpu/src/volpath.rs as
// device functions, stage for stage with the CPU's names (seed 003; issue 11):
//   generate            the camera path (the surface estimator's ray), in the camera's medium;
//   extend              one step, from the last vertex to the next: trace to the next
//                       surface; in a medium, a free flight toward it (delta tracking,
//                       volume/medium.cuh). A real collision is a medium vertex
//                       (scatter_in_medium: the albedo fetch, next-event estimation, then a
//                       Henyey–Greenstein direction); otherwise a null boundary is crossed (no vertex, the
//                       medium changes, the step goes on) and any other surface adds its
//                       emission and is a surface vertex (scatter_at_surface: next-event
//                       estimation, a BSDF direction, a medium change on transmission);
//   shadow_transmittance  ratio tracking through media and null boundaries, 1 − α through
//                       an opacity mask; any other surface blocks.
// An opacity mask (common/opacity.cuh) is the material scaled by α and a null lobe of
// probability 1 − α, drawn from the extend stream after the surface's next-event estimation:
// the null lobe crosses as a null boundary does, no vertex (Mitsuba's volpath).
// VolumeEstimator makes it an estimator of every schedule (schedules/schedule.cuh).
// VolumeEstimatorDeferred (seed 003's sortingSK) is the same estimator with each medium
// vertex split in two: extend stops at the real collision and returns the path with its
// scattering pending (the collision distance kept, nothing fetched); the next extend first
// completes the vertex (scatter_in_medium: albedo, next-event estimation, direction) and then
// goes on. A schedule that reorders paths between extends (streaming_sk SORTED) thus fetches
// the albedo and traces the shadow ray after the paths are sorted by their collision points.
// Every operation is the same, in the same order: the same image and the same counts.
//
// Instrumentation (counters non-null), with S = counter_slots per table (bounces beyond the
// last slot count in it):
//   [0] extension rays (closest-hit queries)  [1] shadow rays (next-event estimations)
//   [2 + b] paths entering extend at bounce b [2 + S + b] warps  [2 + 2S + b] warp cycles
//   [2 + 3S] tracking steps  [3 + 3S] density lookups  [4 + 3S] albedo lookups.
#pragma once
#include "surface/estimator.cuh"
#include "volume/medium.cuh"

// Index-matched boundaries one ray may cross (volpath.rs MAX_CROSSINGS).
#define VOLUME_MAX_CROSSINGS 256u
// The deepest vertex the stored form holds (19 bits of bounce): "no limit" is this many
// (volpath.rs MAX_VOLUME_DEPTH).
#define VOLUME_MAX_DEPTH ((1u << 19) - 2u)

// The scene of the volumetric estimator: the surface scene and the media (Rust's
// DeviceVolumeSceneArgs in crates/warpath-cuda/src/volume_upload.rs).
struct DeviceVolumeScene {
    DeviceScene surface;
    const GpuMedium* __restrict__ media;
    const float* __restrict__ grid_data;            // every medium's density, albedo and majorants
    const unsigned int* __restrict__ triangle_media;  // per triangle (interface packing), or null
    unsigned int medium_count;
    unsigned int camera_medium;                      // index + 1, 0: vacuum
    unsigned int counter_slots;                      // S of the counter tables
    unsigned int _pad;
};
using DeviceVolumeSceneArgs = DeviceVolumeScene;

// The state one path carries between vertices (volpath.rs VolumePath).
struct VolumePath {
    Ray ray;
    float3 throughput;
    float3 radiance;
    unsigned int pixel;
    unsigned int sample;
    unsigned int bounce;
    float last_pdf;
    bool last_delta;
    unsigned int medium;  // index + 1, 0: vacuum
    // VolumeEstimatorDeferred only: a medium vertex at distance scatter_t along `ray` awaits
    // scatter_in_medium (last_pdf and last_delta are meaningless until it runs).
    bool scatter_pending;
    float scatter_t;
};

struct VolumeContext {
    EstimatorContext surface;  // scene, sampler (its counters stay null: this estimator counts)
    DeviceVolumeScene volume;
    unsigned long long* __restrict__ counters;
    unsigned int max_depth;    // min(params.max_depth, VOLUME_MAX_DEPTH)
};

// Counts of one extend, added to the counters at its end.
struct VolumeStepCounts {
    unsigned int extension_rays;
    unsigned int shadow_rays;
    TrackingCounts tracking;
};

// ---- the medium interfaces of triangles (warpath_volume::medium::interface) ------------------
#define INTERFACE_DECLARED 0x80000000u
#define INTERFACE_MASK 0x7fffu

// The geometric normal as the triangle's winding defines it (volpath.rs winding_normal).
__device__ __forceinline__ float3 winding_normal(const DeviceScene& scene, unsigned int tri) {
    const unsigned int i0 = scene.triangles[3 * (size_t)tri];
    const unsigned int i1 = scene.triangles[3 * (size_t)tri + 1];
    const unsigned int i2 = scene.triangles[3 * (size_t)tri + 2];
    const float3 a = load3(scene.positions, i0), b = load3(scene.positions, i1), c = load3(scene.positions, i2);
    return normalize_or_zero(cross(b - a, c - a));
}

// The medium on the far side of triangle `tri` for direction d (volpath.rs medium_across).
__device__ __forceinline__ unsigned int medium_across(const VolumeContext& ctx, unsigned int tri, float3 d,
                                                      unsigned int current) {
    if (ctx.volume.triangle_media == nullptr) return current;
    const unsigned int packed = ctx.volume.triangle_media[tri];
    if ((packed & INTERFACE_DECLARED) == 0u) return current;
    const float c = dot(d, winding_normal(ctx.volume.surface, tri));
    return c < 0.0f ? (packed & INTERFACE_MASK) : ((packed >> 15) & INTERFACE_MASK);
}

__device__ __forceinline__ bool is_null_material(const DeviceScene& scene, unsigned int tri) {
    return material_kind(scene.materials[scene.triangle_materials[tri]]) == MATERIAL_NULL;
}

// ---- stages ------------------------------------------------------------------------------------

__device__ __forceinline__ VolumePath volume_generate(const VolumeContext& ctx, unsigned int pixel,
                                                      unsigned int sample) {
    const PathState camera = generate(ctx.surface, pixel, sample);
    VolumePath path;
    path.ray = camera.ray;
    path.throughput = splat3(1.0f);
    path.radiance = zero3();
    path.pixel = pixel;
    path.sample = sample;
    path.bounce = 0u;
    path.last_pdf = 0.0f;
    path.last_delta = true;
    path.medium = ctx.volume.camera_medium;
    path.scatter_pending = false;
    path.scatter_t = 0.0f;
    return path;
}

// volpath.rs shadow_transmittance: a finite ray is aimed again at its fixed end point after
// every crossing (volpath.rs says why).
__device__ __forceinline__ float3 shadow_transmittance(const VolumeContext& ctx, float3 origin, float3 d, float t_max,
                                                       unsigned int medium, TrackingRng& rng, TrackingCounts& counts) {
    const DeviceScene& scene = ctx.volume.surface;
    float3 transmittance = splat3(1.0f);
    float3 o = origin;
    float remaining = t_max;
    const float3 end = origin + d * t_max;
    for (unsigned int crossing = 0u; crossing < VOLUME_MAX_CROSSINGS; ++crossing) {
        const Ray ray = isfinite(remaining) ? make_segment(o, d, remaining) : make_ray(o, d);
        SurfaceIntersection hit;
        const bool found = intersect_closest(scene.bvh, ray, hit);
        const float t = found ? hit.t : remaining;
        if (medium != 0u) {
            transmittance *=
                medium_transmittance(ctx.volume.media[medium - 1u], ctx.volume.grid_data, o, d, t, rng, counts);
            if (is_zero3(transmittance)) return zero3();
        }
        if (!found) return transmittance;
        if (!is_null_material(scene, hit.prim)) {
            // An opacity mask lets 1 − α through (Mitsuba's eval_null_transmission).
            const Material& material = scene.materials[scene.triangle_materials[hit.prim]];
            const float alpha = material_is_masked(material) ? triangle_opacity(scene, hit) : 1.0f;
            if (alpha >= 1.0f) return zero3();
            transmittance = transmittance * __fsub_rn(1.0f, alpha);
            if (is_zero3(transmittance)) return zero3();
        }
        const float3 p = ray_at(ray, hit.t);
        medium = medium_across(ctx, hit.prim, d, medium);
        o = offset_ray_origin(p, winding_normal(scene, hit.prim), d);
        if (isfinite(remaining)) {
            const float3 to = end - o;
            const float len = length(to);
            if (!(len > 0.0f) || dot(to, d) <= 0.0f) return transmittance;  // the offset reached the end
            d = to / len;
            remaining = len;
        }
    }
    return zero3();
}

// volpath.rs add_light_sample: a light sample seen from vertex_p, its shadow ray from origin
// (vertex_p, or offset off a surface) through media; f and scattering_pdf for MIS.
__device__ __forceinline__ void add_light_sample(const VolumeContext& ctx, VolumePath& path, float3 vertex_p,
                                                 float3 origin, const LightSample& ls, float3 f, float scattering_pdf,
                                                 unsigned int shadow_medium, VolumeStepCounts& counts) {
    counts.shadow_rays += 1u;
    float3 direction = ls.wi;
    float t_max = WARPATH_INF;
    if (isfinite(ls.distance)) {
        const float3 target = vertex_p + ls.wi * ls.distance;
        const float3 to = target - origin;
        const float d = length(to);
        direction = to / d;
        t_max = __fmul_rn(d, 1.0f - 1e-4f);
    }
    TrackingRng rng = tracking_rng(ctx.surface.sampler.seed, path.pixel, path.sample, path.bounce, TRACKING_STREAM_SHADOW);
    const float3 transmittance =
        shadow_transmittance(ctx, origin, direction, t_max, shadow_medium, rng, counts.tracking);
    if (is_zero3(transmittance)) return;
    // A delta light cannot be reached by scattering: no MIS weight.
    const float weight = ls.delta ? 1.0f : power_heuristic(ls.pdf, scattering_pdf);
    const float3 scaled = path.throughput * f * ls.radiance * transmittance;
    path.radiance += scaled * __fdiv_rn(weight, ls.pdf);
}

// volpath.rs next_vertex: count the vertex, then Russian roulette.
__device__ __forceinline__ bool next_vertex(const VolumeContext& ctx, VolumePath& path, unsigned int vertex_bounce) {
    path.bounce += 1u;
    const float threshold = ctx.volume.surface.params->rr_threshold;
    const float weight = max_element(path.throughput);
    if (weight < threshold) {
        const float survive = __fdiv_rn(weight, threshold);
        if (ctx.surface.sampler.get(path.pixel, path.sample, vertex_bounce, DIM_ROULETTE) >= survive) return false;
        path.throughput = path.throughput / survive;
    }
    return true;
}

// volpath.rs scatter_in_medium: the vertex at distance t along the path's ray in `medium`,
// of the given albedo there.
__device__ __forceinline__ bool scatter_in_medium(const VolumeContext& ctx, VolumePath& path, const GpuMedium& medium,
                                                  float t, float3 albedo, VolumeStepCounts& counts) {
    const DeviceScene& scene = ctx.volume.surface;
    path.throughput *= albedo;
    const float3 p = ray_at(path.ray, t);
    const float g = medium.g;
    const Sampler& s = ctx.surface.sampler;
    const unsigned int px = path.pixel, si = path.sample, b = path.bounce;
    if (!lights_is_empty(*scene.params)) {
        const float u_select = s.get(px, si, b, DIM_LIGHT_SELECT);
        const float2 u = make_float2(s.get(px, si, b, DIM_LIGHT_U), s.get(px, si, b, DIM_LIGHT_V));
        LightSample ls;
        if (sample_light(scene, p, u_select, u, ls) && ls.pdf > 0.0f && isfinite(ls.pdf)) {
            const float phase = hg_eval(g, dot(path.ray.d, ls.wi));
            add_light_sample(ctx, path, p, p, ls, splat3(phase), phase, path.medium, counts);
        }
    }
    const float2 u = make_float2(s.get(px, si, b, DIM_BSDF_U), s.get(px, si, b, DIM_BSDF_V));
    float pdf;
    const float3 direction = hg_sample(g, path.ray.d, u, pdf);
    path.ray = make_ray(p, direction);
    path.last_pdf = pdf;
    path.last_delta = false;
    return next_vertex(ctx, path, b);
}

// volpath.rs light_at_surface: the material scaled by the mask's α (pdf too).
__device__ __forceinline__ void light_at_surface(const VolumeContext& ctx, VolumePath& path,
                                                 const SurfaceHit& surface, VolumeStepCounts& counts) {
    const DeviceScene& scene = ctx.volume.surface;
    const Material material = surface_material(scene, surface);
    const Sampler& s = ctx.surface.sampler;
    const unsigned int px = path.pixel, si = path.sample, b = path.bounce;
    const float3 wo = to_local(surface.frame, -path.ray.d);
    if (!is_purely_specular(material) && !lights_is_empty(*scene.params)) {
        const float u_select = s.get(px, si, b, DIM_LIGHT_SELECT);
        const float2 u = make_float2(s.get(px, si, b, DIM_LIGHT_U), s.get(px, si, b, DIM_LIGHT_V));
        LightSample ls;
        if (sample_light(scene, surface.p, u_select, u, ls) && ls.pdf > 0.0f && isfinite(ls.pdf)) {
            const float3 wi = to_local(surface.frame, ls.wi);
            const float3 f = bsdf_eval(material, surface.base_color, wo, wi) *
                             surface_normal_map_factor(surface, ls.wi) * surface.opacity;
            if (!is_zero3(f)) {
                const float3 origin = offset_ray_origin(surface.p, surface.ng, ls.wi);
                const unsigned int medium = medium_across(ctx, surface.triangle, ls.wi, path.medium);
                const float pdf = __fmul_rn(bsdf_pdf(material, surface.base_color, wo, wi), surface.opacity);
                add_light_sample(ctx, path, surface.p, origin, ls, f, pdf, medium, counts);
            }
        }
    }
}

// volpath.rs scatter_at_surface: the material's own lobe (the mask's null lobe not chosen).
__device__ __forceinline__ bool scatter_at_surface(const VolumeContext& ctx, VolumePath& path,
                                                   const SurfaceHit& surface) {
    const DeviceScene& scene = ctx.volume.surface;
    const Material material = surface_material(scene, surface);
    const Sampler& s = ctx.surface.sampler;
    const unsigned int px = path.pixel, si = path.sample, b = path.bounce;
    const float3 wo = to_local(surface.frame, -path.ray.d);
    const float u_lobe = s.get(px, si, b, DIM_BSDF_LOBE);
    const float2 u = make_float2(s.get(px, si, b, DIM_BSDF_U), s.get(px, si, b, DIM_BSDF_V));
    BsdfSample bs;
    if (!bsdf_sample(material, surface.base_color, wo, u_lobe, u, bs)) return false;
    const float3 direction = normalize(to_world(surface.frame, bs.wi));
    const float3 bsdf_weight = bs.weight * surface_normal_map_factor(surface, direction);
    if (!(is_finite3(bsdf_weight) && max_element(bsdf_weight) > 0.0f)) return false;
    path.throughput *= bsdf_weight;
    path.medium = medium_across(ctx, surface.triangle, direction, path.medium);
    path.ray = make_ray(offset_ray_origin(surface.p, surface.ng, direction), direction);
    path.last_pdf = __fmul_rn(bs.pdf, surface.opacity);
    path.last_delta = bs.delta;
    return next_vertex(ctx, path, b);
}

// volpath.rs extend_tracked: one step; whether the path goes on. DEFER: a medium vertex is
// left pending (VolumeEstimatorDeferred), the path goes on to complete it.
template <bool DEFER>
__device__ __forceinline__ bool volume_extend_uncounted(const VolumeContext& ctx, VolumePath& path,
                                                        VolumeStepCounts& counts) {
    const DeviceScene& scene = ctx.volume.surface;
    TrackingRng rng = tracking_rng(ctx.surface.sampler.seed, path.pixel, path.sample, path.bounce, TRACKING_STREAM_EXTEND);
    float travelled = 0.0f;
    for (unsigned int crossing = 0u; crossing < VOLUME_MAX_CROSSINGS; ++crossing) {
        counts.extension_rays += 1u;
        SurfaceIntersection hit;
        const bool found = intersect_closest(scene.bvh, path.ray, hit);
        if (path.medium != 0u) {
            const GpuMedium& medium = ctx.volume.media[path.medium - 1u];
            float t;
            float3 weight, albedo;
            const bool scatters = sample_free_flight(medium, ctx.volume.grid_data, path.ray.o, path.ray.d,
                                                     found ? hit.t : WARPATH_INF, rng, counts.tracking, t, weight,
                                                     DEFER || path.bounce >= ctx.max_depth ? nullptr : &albedo);
            path.throughput *= weight;
            if (scatters) {
                if (path.bounce >= ctx.max_depth) return false;
                if constexpr (DEFER) {
                    path.scatter_pending = true;
                    path.scatter_t = t;
                    return true;
                }
                return scatter_in_medium(ctx, path, medium, t, albedo, counts);
            }
        }
        if (!found) {
            const float3 le = environment_radiance(scene, path.ray.d);
            if (!is_zero3(le)) {
                const float weight =
                    path.last_delta ? 1.0f : power_heuristic(path.last_pdf, pdf_environment(scene, path.ray.d));
                path.radiance += path.throughput * le * weight;
            }
            return false;
        }
        if (is_null_material(scene, hit.prim)) {
            const float3 p = ray_at(path.ray, hit.t);
            const float3 ng = winding_normal(scene, hit.prim);
            path.medium = medium_across(ctx, hit.prim, path.ray.d, path.medium);
            travelled = __fadd_rn(travelled, hit.t);
            path.ray = make_ray(offset_ray_origin(p, ng, path.ray.d), path.ray.d);
            continue;
        }
        const SurfaceHit surface = surface_hit(ctx.surface, path.ray, hit);
        const int light_index = surface.triangle < scene.params->triangle_count ? scene.triangle_to_light[surface.triangle] : -1;
        if (light_index >= 0) {
            const float3 le = triangle_light_radiance(scene.lights[light_index], -path.ray.d);
            if (!is_zero3(le)) {
                const float weight =
                    path.last_delta
                        ? 1.0f
                        : power_heuristic(path.last_pdf,
                                          pdf_triangle(scene, light_index, path.ray.d, __fadd_rn(travelled, surface.t)));
                path.radiance += path.throughput * le * weight;
            }
        }
        const bool last = path.bounce >= ctx.max_depth;
        if (!last) light_at_surface(ctx, path, surface, counts);
        // An opacity mask's null lobe: no vertex, the medium changes as at a null boundary.
        float u_nested;
        if (surface.opacity < 1.0f && !mask_choose(surface.opacity, rng.next(), u_nested)) {
            const float3 ng = winding_normal(scene, hit.prim);
            path.medium = medium_across(ctx, hit.prim, path.ray.d, path.medium);
            travelled = __fadd_rn(travelled, hit.t);
            path.ray = make_ray(offset_ray_origin(surface.p, ng, path.ray.d), path.ray.d);
            continue;
        }
        if (last) return false;
        return scatter_at_surface(ctx, path, surface);
    }
    return false;
}

// ---- instrumentation --------------------------------------------------------------------------

__device__ __forceinline__ unsigned int volume_counter_slot(const VolumeContext& ctx, unsigned int bounce) {
    const unsigned int last = ctx.volume.counter_slots - 1u;
    return bounce < last ? bounce : last;
}

// Adds `value` of every converged lane to counters[slot] with one atomic per warp.
__device__ __forceinline__ void add_warp_total(unsigned long long* counters, unsigned int slot, unsigned int value) {
    const unsigned int active = __activemask();
    const unsigned int total = __reduce_add_sync(active, value);
    if (lane_id() == (unsigned int)(__ffs(active) - 1)) atomicAdd(counters + slot, (unsigned long long)total);
}

// A step's counts into the counters, one atomic per warp and counter.
__device__ __forceinline__ void add_step_counts(const VolumeContext& ctx, const VolumeStepCounts& counts) {
    const unsigned int base = COUNTER_ACTIVE_BASE + 3u * ctx.volume.counter_slots;
    add_warp_total(ctx.counters, COUNTER_EXTENSION_RAYS, counts.extension_rays);
    add_warp_total(ctx.counters, COUNTER_SHADOW_RAYS, counts.shadow_rays);
    add_warp_total(ctx.counters, base, counts.tracking.steps);
    add_warp_total(ctx.counters, base + 1u, counts.tracking.density_lookups);
    add_warp_total(ctx.counters, base + 2u, counts.tracking.albedo_lookups);
}

// The pending medium vertex of a deferred path: whether the path goes on.
__device__ __forceinline__ bool volume_complete_scatter(const VolumeContext& ctx, VolumePath& path,
                                                        VolumeStepCounts& counts) {
    path.scatter_pending = false;
    const GpuMedium& medium = ctx.volume.media[path.medium - 1u];
    const float3 albedo =
        medium_albedo_along(medium, ctx.volume.grid_data, path.ray.o, path.ray.d, path.scatter_t, counts.tracking);
    return scatter_in_medium(ctx, path, medium, path.scatter_t, albedo, counts);
}

// A deferred path's extend: the pending vertex, then the step from it. Counted as the
// immediate estimator counts: a path enters the step's bounce slot after its vertex is
// complete (one that roulette ends there entered no step), the warp's cycles include both.
__device__ __forceinline__ bool volume_extend_deferred(const VolumeContext& ctx, VolumePath& path) {
    VolumeStepCounts counts = {0u, 0u, {0u, 0u, 0u}};
    if (!ctx.counters) {
        if (path.scatter_pending && !volume_complete_scatter(ctx, path, counts)) return false;
        return volume_extend_uncounted<true>(ctx, path, counts);
    }
    const unsigned int entered = __activemask();
    const long long start = clock64();
    bool goes_on = true;
    if (path.scatter_pending) goes_on = volume_complete_scatter(ctx, path, counts);
    const unsigned int stepping = __ballot_sync(entered, goes_on);
    if (goes_on) {
        const unsigned int slots = ctx.volume.counter_slots;
        const unsigned int slot = volume_counter_slot(ctx, path.bounce);
        const unsigned int peers = __match_any_sync(stepping, slot);
        const bool leader = lane_id() == (unsigned int)(__ffs(peers) - 1);
        if (leader) {
            atomicAdd(ctx.counters + COUNTER_ACTIVE_BASE + slot, (unsigned long long)__popc(peers));
            atomicAdd(ctx.counters + COUNTER_ACTIVE_BASE + slots + slot, 1ull);
        }
        goes_on = volume_extend_uncounted<true>(ctx, path, counts);
        const long long elapsed = clock64() - start;
        const unsigned int cycles = (unsigned int)min(max(elapsed, 0ll), 0xffffffffll);
        const unsigned int warp_cycles = __reduce_max_sync(peers, cycles);
        if (leader) atomicAdd(ctx.counters + COUNTER_ACTIVE_BASE + 2u * slots + slot, (unsigned long long)warp_cycles);
    }
    __syncwarp(entered);
    add_step_counts(ctx, counts);
    return goes_on;
}

__device__ __forceinline__ bool volume_extend(const VolumeContext& ctx, VolumePath& path) {
    VolumeStepCounts counts = {0u, 0u, {0u, 0u, 0u}};
    if (!ctx.counters) return volume_extend_uncounted<false>(ctx, path, counts);
    const unsigned int slots = ctx.volume.counter_slots;
    const unsigned int slot = volume_counter_slot(ctx, path.bounce);
    const unsigned int peers = __match_any_sync(__activemask(), slot);
    const bool leader = lane_id() == (unsigned int)(__ffs(peers) - 1);
    if (leader) {
        atomicAdd(ctx.counters + COUNTER_ACTIVE_BASE + slot, (unsigned long long)__popc(peers));
        atomicAdd(ctx.counters + COUNTER_ACTIVE_BASE + slots + slot, 1ull);
    }
    const long long start = clock64();
    const bool goes_on = volume_extend_uncounted<false>(ctx, path, counts);
    const long long elapsed = clock64() - start;
    const unsigned int cycles = (unsigned int)min(max(elapsed, 0ll), 0xffffffffll);
    const unsigned int warp_cycles = __reduce_max_sync(peers, cycles);
    if (leader) atomicAdd(ctx.counters + COUNTER_ACTIVE_BASE + 2u * slots + slot, (unsigned long long)warp_cycles);
    __syncwarp(__activemask());
    add_step_counts(ctx, counts);
    return goes_on;
}

// ---- the stored form: four 16-byte words, as the surface estimator's -------------------------
// (origin, ~pixel) (direction, sample) (throughput, last_pdf, or scatter_t while a vertex is pending)
// (radiance, bounce | medium << 19 | scatter_pending << 30 | last_delta << 31): bounce < 2^19,
// medium < 2^11.
#define VOLUME_BOUNCE_BITS 19u
#define VOLUME_BOUNCE_MASK ((1u << VOLUME_BOUNCE_BITS) - 1u)
#define VOLUME_MEDIUM_MASK 0x7ffu
#define VOLUME_PENDING_BIT 0x40000000u

// DEFER: the deferred estimator's form, which keeps a pending vertex; the immediate
// estimator's never has one (and carries no pending state through its kernels).
template <bool DEFER>
__device__ __forceinline__ StoredPath pack_volume_path(const VolumePath& p) {
    const bool pending = DEFER && p.scatter_pending;
    StoredPath s;
    s.origin_pixel = make_float4(p.ray.o.x, p.ray.o.y, p.ray.o.z, __uint_as_float(~p.pixel));
    s.direction_sample = make_float4(p.ray.d.x, p.ray.d.y, p.ray.d.z, __uint_as_float(p.sample));
    s.throughput_pdf =
        make_float4(p.throughput.x, p.throughput.y, p.throughput.z, pending ? p.scatter_t : p.last_pdf);
    const unsigned int word = (p.bounce & VOLUME_BOUNCE_MASK) | ((p.medium & VOLUME_MEDIUM_MASK) << VOLUME_BOUNCE_BITS) |
                              (pending ? VOLUME_PENDING_BIT : 0u) | (p.last_delta ? 0x80000000u : 0u);
    s.radiance_bounce = make_float4(p.radiance.x, p.radiance.y, p.radiance.z, __uint_as_float(word));
    return s;
}

template <bool DEFER>
__device__ __forceinline__ VolumePath unpack_volume_path(const StoredPath& s) {
    VolumePath p;
    p.ray = make_ray(make_float3(s.origin_pixel.x, s.origin_pixel.y, s.origin_pixel.z),
                     make_float3(s.direction_sample.x, s.direction_sample.y, s.direction_sample.z));
    p.pixel = ~__float_as_uint(s.origin_pixel.w);
    p.sample = __float_as_uint(s.direction_sample.w);
    p.throughput = make_float3(s.throughput_pdf.x, s.throughput_pdf.y, s.throughput_pdf.z);
    p.last_pdf = s.throughput_pdf.w;
    p.radiance = make_float3(s.radiance_bounce.x, s.radiance_bounce.y, s.radiance_bounce.z);
    const unsigned int word = __float_as_uint(s.radiance_bounce.w);
    p.bounce = word & VOLUME_BOUNCE_MASK;
    p.medium = (word >> VOLUME_BOUNCE_BITS) & VOLUME_MEDIUM_MASK;
    p.last_delta = (word >> 31) != 0;
    p.scatter_pending = DEFER && (word & VOLUME_PENDING_BIT) != 0u;
    p.scatter_t = DEFER ? s.throughput_pdf.w : 0.0f;
    return p;
}

// ---- the volumetric path tracer as an estimator of the schedules ------------------------------
// DEFER: VolumeEstimatorDeferred (medium vertices completed at the next extend; see the top).
template <bool DEFER>
struct VolumeEstimatorT {
    using Scene = DeviceVolumeScene;
    using Context = VolumeContext;
    using Path = VolumePath;
    using Stored = StoredPath;
    using Deferred = VolumeEstimatorT<true>;  // sortingSK's estimator

    static __device__ __forceinline__ Context context(const Scene& scene, unsigned long long* counters) {
        VolumeContext ctx;
        ctx.surface.scene = scene.surface;
        ctx.surface.sampler.kind = scene.surface.params->sampler;
        ctx.surface.sampler.seed = scene.surface.params->seed;
        ctx.surface.counters = nullptr;
        ctx.volume = scene;
        ctx.counters = counters;
        const unsigned int depth = scene.surface.params->max_depth;
        ctx.max_depth = depth < VOLUME_MAX_DEPTH ? depth : VOLUME_MAX_DEPTH;
        return ctx;
    }
    static __device__ __forceinline__ Path generate(const Context& ctx, unsigned int pixel, unsigned int sample) {
        return volume_generate(ctx, pixel, sample);
    }
    static __device__ __forceinline__ bool extend(const Context& ctx, Path& path) {
        if constexpr (DEFER) return volume_extend_deferred(ctx, path);
        return volume_extend(ctx, path);
    }
    static __device__ __forceinline__ float3 radiance(const Path& path) { return path.radiance; }
    static __device__ __forceinline__ unsigned int pixel(const Path& path) { return path.pixel; }
    // Where the path's next work happens: its pending vertex, else its ray's origin.
    static __device__ __forceinline__ float3 sort_position(const Path& path) {
        if constexpr (DEFER) {
            if (path.scatter_pending) return ray_at(path.ray, path.scatter_t);
        }
        return path.ray.o;
    }
    static __device__ __forceinline__ Stored pack(const Path& path) { return pack_volume_path<DEFER>(path); }
    static __device__ __forceinline__ void store(Stored* slot, const Path& path) {
        const StoredPath s = pack_volume_path<DEFER>(path);
        float4* words = reinterpret_cast<float4*>(slot);
        words[0] = s.origin_pixel;
        words[1] = s.direction_sample;
        words[2] = s.throughput_pdf;
        words[3] = s.radiance_bounce;
    }
    static __device__ __forceinline__ Path load(const Stored* slot) {
        const float4* words = reinterpret_cast<const float4*>(slot);
        StoredPath s;
        s.origin_pixel = words[0];
        s.direction_sample = words[1];
        s.throughput_pdf = words[2];
        s.radiance_bounce = words[3];
        return unpack_volume_path<DEFER>(s);
    }
    static __device__ __forceinline__ bool slot_is_live(const Stored* slot) { return ::slot_is_live(slot); }
    static __device__ __forceinline__ void mark_slot_dead(Stored* slot) { ::mark_slot_dead(slot); }
};

using VolumeEstimator = VolumeEstimatorT<false>;
using VolumeEstimatorDeferred = VolumeEstimatorT<true>;

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_VOLUME_ESTIMATOR
#include "generated/layout_checks.cuh"
