// surface/stages.cuh — the surface estimator's stage list, run by the multi-stage wavefront (Laine, Karras & Aila 2013; pbrt-v4
// and Cycles do the same): a kernel per stage instead of one extend kernel, path state as
// structure-of-arrays (four float4 arrays indexed by path slot, so a stage reads only the
// words it needs), and queues of path ids between the stages. Per bounce:
//   multistage_intersect  closest hit of every queued path; a miss is shaded (environment)
//                         and goes to the film at once; a hit is stored and its id queued
//                         by its material's kind;
//   multistage_shade      launched once per material kind with its queue, so every warp
//                         runs one BSDF: emission, then below max_depth the light sample
//                         (a shadow-ray queue entry) and the BSDF sample with roulette; the
//                         path's id goes to the next bounce's queue or to the finished queue;
//   multistage_shadow     traces the queued shadow rays; unoccluded ones add their
//                         contribution to their path's radiance;
//   multistage_finish     adds the paths that ended this bounce to the film (shared by every
//                         estimator's stage list: schedules/multistage.cuh).
// multistage_generate fills the first queue with the wave's camera paths. The stages call
// the estimator's own pieces (generate, shade_miss, surface_hit, add_emission,
// prepare_illumination, bounce), so the paths are those of every other strategy: the
// radiance is summed in the same order (emission, then the shadow contribution).
#pragma once
#include "schedules/multistage.cuh"
#include "surface/estimator.cuh"

// The schedule arguments of the surface estimator (ScheduleArgs<DeviceSceneArgs> in Rust,
// crates/warpath-cuda/src/strategy/args.rs); Rust's layout (checked by
// the generated layout checks).
using SurfaceScheduleArgs = ScheduleArgs<SurfaceEstimator>;

__device__ __forceinline__ PathState load_path_soa(const MultiStageQueues& q, unsigned int id) {
    StoredPath s;
    s.origin_pixel = q.origin_pixel[id];
    s.direction_sample = q.direction_sample[id];
    s.throughput_pdf = q.throughput_pdf[id];
    s.radiance_bounce = q.radiance_bounce[id];
    return unpack_path(s);
}

__device__ __forceinline__ void store_path_soa(const MultiStageQueues& q, unsigned int id, const PathState& path) {
    const StoredPath s = pack_path(path);
    q.origin_pixel[id] = s.origin_pixel;
    q.direction_sample[id] = s.direction_sample;
    q.throughput_pdf[id] = s.throughput_pdf;
    q.radiance_bounce[id] = s.radiance_bounce;
}

// The wave's camera paths into their slots; their ids to extend_out.
__device__ __forceinline__ void multistage_generate(const SurfaceScheduleArgs& a, const MultiStageQueues& q) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const EstimatorContext ctx = schedule_context(a);
    PathState path;
    if (!generate_wave_path(ctx, a, i, path)) return;
    store_path_soa(q, i, path);
    queue_push(q.extend_out, q.counts + MULTISTAGE_COUNT_NEXT, i);
}

__device__ __forceinline__ void multistage_intersect(const SurfaceScheduleArgs& a, const MultiStageQueues& q,
                                                     unsigned int count) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const EstimatorContext ctx = schedule_context(a);
    const unsigned int id = q.extend_in[i];
    const float4 o = q.origin_pixel[id], d = q.direction_sample[id];
    const unsigned int bounce = __float_as_uint(q.radiance_bounce[id].w) & 0x7fffffffu;
    const ExtendProbe probe = extend_probe_begin(ctx, bounce);
    const Ray ray = make_ray(make_float3(o.x, o.y, o.z), make_float3(d.x, d.y, d.z));
    SurfaceIntersection hit;
    if (scene_intersect_closest(ctx.scene, ray, hit)) {
        q.hits[id] = make_float4(hit.t, hit.u, hit.v, __uint_as_float(hit.prim));
        const Material& material = ctx.scene.materials[hit_material(ctx.scene, hit.prim)];
        // A null boundary (never in a surface scene: those render with the volumetric
        // estimator) shades as Black.
        const unsigned int kind = material_kind(material) < MULTISTAGE_KINDS ? material_kind(material) : MATERIAL_BLACK;
        queue_push(q.material_ids + (size_t)kind * q.capacity, q.counts + MULTISTAGE_COUNT_KIND + kind, id);
    } else {
        PathState path = load_path_soa(q, id);
        shade_miss(ctx, path);
        film_add_path(a, path);
    }
    extend_probe_end(ctx, probe, bounce);
}

// Shades the hits of material kind `kind` (its queue holds `count` ids).
__device__ __forceinline__ void multistage_shade(const SurfaceScheduleArgs& a, const MultiStageQueues& q,
                                                 unsigned int kind, unsigned int count) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const EstimatorContext ctx = schedule_context(a);
    const unsigned int id = q.material_ids[(size_t)kind * q.capacity + i];
    PathState path = load_path_soa(q, id);
    const float4 h = q.hits[id];
    SurfaceIntersection hit;
    hit.t = h.x;
    hit.u = h.y;
    hit.v = h.z;
    hit.prim = __float_as_uint(h.w);
    const SurfaceHit surface = surface_hit(ctx, path.ray, hit);
    add_emission(ctx, path, surface);
    bool goes_on = false;
    if (path.bounce < ctx.scene.params->max_depth) {
        PendingShadow shadow;
        if (prepare_illumination(ctx, path, surface, shadow)) {
            const unsigned int slot = queue_push(q.shadow_ids, q.counts + MULTISTAGE_COUNT_SHADOW, id);
            q.shadow_origin_tmax[slot] = make_float4(shadow.ray.o.x, shadow.ray.o.y, shadow.ray.o.z, shadow.ray.t_max);
            q.shadow_direction[slot] = make_float4(shadow.ray.d.x, shadow.ray.d.y, shadow.ray.d.z, 0.0f);
            q.shadow_contribution[slot] =
                make_float4(shadow.contribution.x, shadow.contribution.y, shadow.contribution.z, 0.0f);
        }
        goes_on = bounce(ctx, path, surface);
    }
    store_path_soa(q, id, path);
    if (goes_on) {
        queue_push(q.extend_out, q.counts + MULTISTAGE_COUNT_NEXT, id);
    } else {
        queue_push(q.finished_ids, q.counts + MULTISTAGE_COUNT_FINISHED, id);
    }
}

__device__ __forceinline__ void multistage_shadow(const SurfaceScheduleArgs& a, const MultiStageQueues& q,
                                                  unsigned int count) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float4 o = q.shadow_origin_tmax[i], d = q.shadow_direction[i];
    Ray ray = make_segment(make_float3(o.x, o.y, o.z), make_float3(d.x, d.y, d.z), o.w);
    if (scene_occluded(a.scene, ray)) return;
    const unsigned int id = q.shadow_ids[i];
    const float4 c = q.shadow_contribution[i];
    float4 r = q.radiance_bounce[id];
    const float3 sum = make_float3(r.x, r.y, r.z) + make_float3(c.x, c.y, c.z);
    r.x = sum.x;
    r.y = sum.y;
    r.z = sum.z;
    q.radiance_bounce[id] = r;
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
