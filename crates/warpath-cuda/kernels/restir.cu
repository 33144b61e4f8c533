// restir.cu — the ReSTIR DI kernels (issue 15, seed 002) over restir/restir.cuh: one thread per
// pixel each, in launch order initial RIS, visibility, temporal, spatial (per pass; with
// pairwise MIS restir_spatial_pairwise), shade. With RestirArgs.ray_group > 0 the spatial
// pass's shadow rays are traced in a kernel of their own, by `ray_group` lanes a pixel:
// restir_spatial_choose then restir_spatial_z (ray-traced and 1/M modes),
// restir_spatial_pairwise_sees then restir_spatial_pairwise_grouped (pairwise); the temporal
// pass's one ray likewise (restir_temporal_choose then restir_temporal_visibility).
// restir_initial_ris runs in 16×16 blocks, one block per light-pool tile; the others in any
// 1D grid. With one reservoir per colour channel (RESTIR_TARGET_CHANNELS)
// restir_initial_ris_channels fills the three channels' reservoirs from the same candidates,
// visibility and shade handle all three, and the host launches each reuse pass once per
// channel on that channel's reservoirs with RestirArgs.target = RESTIR_TARGET_RED + channel. Every kernel takes the one RestirArgs (src/restir/args.rs).
#include "restir/restir.cuh"

// Initial RIS's BSDF-sampled candidates (RestirArgs.bsdf_candidates): compiled in unless
// RESTIR_BSDF_CANDIDATES is 0 (the programs of renders that take none, src/restir/mod.rs
// program_for; their second traversal costs initial RIS registers).
#ifndef RESTIR_BSDF_CANDIDATES
#define RESTIR_BSDF_CANDIDATES 1
#endif

__device__ __forceinline__ EstimatorContext restir_context(const RestirArgs& a) {
    EstimatorContext ctx;
    ctx.scene = a.scene;
    ctx.sampler.kind = a.scene.params->sampler;
    ctx.sampler.seed = a.scene.params->seed;
    ctx.counters = nullptr;
    return ctx;
}

__device__ __forceinline__ void store3(float v[3], float3 x) {
    v[0] = x.x;
    v[1] = x.y;
    v[2] = x.z;
}

__device__ __forceinline__ unsigned int restir_pixel_count(const RestirArgs& a) {
    return a.scene.params->width * a.scene.params->height;
}

// Reservoir storage (seed 002's first optimisation, issue 15): by default an array of
// Reservoir structs (AoS, 24 B a pixel, 68 with RESTIR_FULL_SAMPLE); compiled with RESTIR_SOA
// (the program `restir_soa`, restir.rs ReservoirLayout::Soa) the same bytes of a buffer hold
// one array of N values per 4-byte field (light, b0, b1, w_sum, m, w, and the full sample's
// eleven): SoA. Every kernel reads and writes reservoirs through these.
__device__ __forceinline__ Reservoir restir_load(const RestirArgs& a, const Reservoir* base, unsigned int i) {
#ifdef RESTIR_SOA
    const size_t n = restir_pixel_count(a);
    const unsigned int* words = reinterpret_cast<const unsigned int*>(base);
    unsigned int v[RESTIR_RESERVOIR_WORDS];
#pragma unroll
    for (unsigned int k = 0; k < RESTIR_RESERVOIR_WORDS; ++k) v[k] = words[k * n + i];
    Reservoir r;
    memcpy(&r, v, sizeof r);
    return r;
#else
    return base[i];
#endif
}

__device__ __forceinline__ float restir_load_m(const RestirArgs& a, const Reservoir* base, unsigned int i) {
#ifdef RESTIR_SOA
    return reinterpret_cast<const float*>(base)[(WARPATH_OFFSETOF(Reservoir, m) / 4u) * (size_t)restir_pixel_count(a) + i];
#else
    return base[i].m;
#endif
}

__device__ __forceinline__ void restir_store(const RestirArgs& a, Reservoir* base, unsigned int i, const Reservoir& r) {
#ifdef RESTIR_SOA
    const size_t n = restir_pixel_count(a);
    unsigned int* words = reinterpret_cast<unsigned int*>(base);
    unsigned int v[RESTIR_RESERVOIR_WORDS];
    memcpy(v, &r, sizeof r);
#pragma unroll
    for (unsigned int k = 0; k < RESTIR_RESERVOIR_WORDS; ++k) words[k * n + i] = v[k];
#else
    base[i] = r;
#endif
}

// The number of reservoirs a pixel keeps (restir.rs TargetFunction::reservoirs): three for
// RESTIR_TARGET_CHANNELS, one per colour channel, at `base + channel · pixels` (each channel's
// reservoirs one array of the buffer, stored AoS or SoA as any other).
__device__ __forceinline__ unsigned int restir_reservoir_count(const RestirArgs& a) {
    return a.target == RESTIR_TARGET_CHANNELS ? 3u : 1u;
}

// The target of reservoir `index` of a pixel (TargetFunction::reservoir_targets).
__device__ __forceinline__ unsigned int restir_reservoir_target(const RestirArgs& a, unsigned int index) {
    return a.target == RESTIR_TARGET_CHANNELS ? RESTIR_TARGET_RED + index : a.target;
}

// Adds a thread's shadow rays to stage `stage`'s count (restir.rs RayCounts), when counting.
__device__ __forceinline__ void restir_count_rays(const RestirArgs& a, unsigned int stage, unsigned int rays) {
    if (a.ray_counts != nullptr && rays > 0u) atomicAdd(a.ray_counts + stage, (unsigned long long)rays);
}

// One candidate of initial RIS with source pdf `source` (> 0) streamed into each of the pixel's
// reservoirs: its contribution evaluated once, each reservoir weighted by its own target
// (Reservoirs = 3: the colour channels), the same selection number `u` for all. Returns the
// reservoirs whose sample it became, as bits.
template <unsigned int Reservoirs>
__device__ __forceinline__ unsigned int restir_stream_candidate(const DeviceScene& scene, const RestirShading& s,
                                                        const RestirLightPoint& point, float source, float u,
                                                        Reservoir (&r)[Reservoirs],
                                                        float (&chosen_target)[Reservoirs]) {
    float3 contribution;
    RestirLightGeometry geometry;
    const bool lit = restir_contribution_at(scene, s, point, contribution, geometry);
    unsigned int chosen = 0u;
#pragma unroll
    for (unsigned int t = 0; t < Reservoirs; ++t) {
        const float target =
            lit ? restir_target_value(Reservoirs == 1u ? s.target : RESTIR_TARGET_RED + t, contribution) : 0.0f;
        if (reservoir_update(r[t], point, __fdiv_rn(target, source), u)) {
            chosen_target[t] = target;
            chosen |= 1u << t;
        }
    }
    return chosen;
}

// initial_RIS: the G-buffer entry, then M candidates resampled into the reservoir
// (restir.rs gbuffer + initial_ris without its visibility step). Reservoirs = 3 (the kernel
// restir_initial_ris_channels): every candidate, its contribution evaluated once, streams into
// the three channels' reservoirs with the same selection number, each weighted by its channel.
template <unsigned int Reservoirs>
__device__ __forceinline__ void restir_initial_ris_pass(const RestirArgs& a) {
    const DeviceScene& scene = a.scene;
    const GpuSceneParams& params = *scene.params;
    // The pool holds reconstructed light points (RestirLightPoint, 56 B each, 14 KiB a block):
    // a candidate drawn from it reads no TriangleLight.
    __shared__ RestirLightPoint pool[RESTIR_POOL_SIZE];
    const unsigned int k = threadIdx.y * RESTIR_POOL_TILE + threadIdx.x;
    const bool has_lights = params.light_count > 0u;
    if (a.light_pool != 0u && has_lights) {
        // Entry k of this tile's pool (light_pool in restir.rs): every thread of the block
        // draws one, inside the image or not.
        const unsigned int tiles_x = (params.width + RESTIR_POOL_TILE - 1u) / RESTIR_POOL_TILE;
        const unsigned int tile = blockIdx.y * tiles_x + blockIdx.x;
        const float u0 = restir_random(a.seed, tile, a.frame, RESTIR_STAGE_POOL, 3u * k);
        const float u1 = restir_random(a.seed, tile, a.frame, RESTIR_STAGE_POOL, 3u * k + 1u);
        const float u2 = restir_random(a.seed, tile, a.frame, RESTIR_STAGE_POOL, 3u * k + 2u);
        const unsigned int light = find_bin(scene.light_cdf, params.selection_count, u0);
        const float2 b = square_to_triangle(make_float2(u1, u2));
        pool[k] = restir_light_point(scene, light, b.x, b.y);
    }
    __syncthreads();
    const unsigned int x = blockIdx.x * RESTIR_POOL_TILE + threadIdx.x;
    const unsigned int y = blockIdx.y * RESTIR_POOL_TILE + threadIdx.y;
    if (x >= params.width || y >= params.height) return;
    const unsigned int pixel = y * params.width + x;

    const EstimatorContext ctx = restir_context(a);
    const PathState path = generate(ctx, pixel, a.frame);
    RestirSurface g;
    store3(g.p, zero3());
    store3(g.ng, zero3());
    store3(g.n, zero3());
    store3(g.base_color, zero3());
    store3(g.wo, zero3());
    store3(g.emitted, zero3());
    g.depth = 0.0f;
    g.material = 0u;
    g.lit = 0u;
    g.roughness = 0.0f;
    g.material_roughness = 0.0f;
    g.metallic = 0.0f;
    g.opacity = 1.0f;
    g._pad[0] = 0u;
    g._pad[1] = 0u;
    g._pad[2] = 0u;
    SurfaceIntersection hit;
    if (scene_intersect_closest(scene, path.ray, hit)) {
        const SurfaceHit surface = surface_hit(ctx, path.ray, hit);
        const int light_index =
            surface.triangle < params.triangle_count ? scene.triangle_to_light[surface.triangle] : -1;
        if (light_index >= 0) store3(g.emitted, triangle_light_radiance(scene.lights[light_index], -path.ray.d));
        const Material material = surface_material(scene, surface);
        if (!is_purely_specular(material)) {
            g.lit = 1u;
            store3(g.p, surface.p);
            store3(g.ng, surface.ng);
            store3(g.n, surface.frame.n);
            store3(g.base_color, surface.base_color);
            store3(g.wo, -path.ray.d);
            g.depth = surface.t;
            g.material = surface.material;
            g.roughness = restir_material_roughness(material);
            g.material_roughness = surface.roughness;
            g.metallic = surface.metallic;
            g.opacity = surface.opacity;
        }
    }
    a.gbuffer[pixel] = g;
    Reservoir r[Reservoirs];
    float chosen_target[Reservoirs];
#pragma unroll
    for (unsigned int t = 0; t < Reservoirs; ++t) {
        r[t] = empty_reservoir();
        chosen_target[t] = 0.0f;
    }
    unsigned int bsdf_rays = 0u;
    unsigned int from_bsdf = 0u;  // bit t: reservoir t's sample is a BSDF candidate (origins)
    if (g.lit != 0u && has_lights) {
        const RestirShading s = restir_shading(g, a.target);
        // With BSDF candidates every candidate's source pdf is the balance heuristic's
        // M_L·p_L + M_B·p_B (restir.rs initial_ris, restir/bsdf_candidates.rs).
        const unsigned int bsdf_candidates = RESTIR_BSDF_CANDIDATES ? a.bsdf_candidates : 0u;
        const bool mis = bsdf_candidates > 0u;
        for (unsigned int c = 0; c < a.candidates; ++c) {
            const float u_select = restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_CANDIDATE, 4u * c);
            RestirLightPoint point;
            if (a.light_pool != 0u) {
                unsigned int entry = (unsigned int)__fmul_rn(u_select, (float)RESTIR_POOL_SIZE);
                entry = entry < RESTIR_POOL_SIZE - 1u ? entry : RESTIR_POOL_SIZE - 1u;
                point = pool[entry];
            } else {
                const unsigned int light = find_bin(scene.light_cdf, params.selection_count, u_select);
                const float2 b = square_to_triangle(
                    make_float2(restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_CANDIDATE, 4u * c + 1u),
                                restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_CANDIDATE, 4u * c + 2u)));
                point = restir_light_point(scene, light, b.x, b.y);
            }
            if (point.source_pdf > 0.0f) {
                const float source =
                    mis ? restir_mis_source(a.candidates, point.source_pdf, bsdf_candidates,
                                            restir_bsdf_area_pdf(scene, s, point))
                        : point.source_pdf;
                restir_stream_candidate<Reservoirs>(
                    scene, s, point, source, restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_CANDIDATE, 4u * c + 3u),
                    r, chosen_target);
            }
        }
#if RESTIR_BSDF_CANDIDATES
        // BSDF-sampled candidates, their random numbers after the light candidates'.
        for (unsigned int b = 0; b < bsdf_candidates; ++b) {
            const unsigned int d = 4u * (a.candidates + b);
            RestirLightPoint point;
            if (!restir_bsdf_candidate(scene, s, restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_CANDIDATE, d),
                                       restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_CANDIDATE, d + 1u),
                                       restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_CANDIDATE, d + 2u),
                                       bsdf_rays, point)) {
                continue;
            }
            const float source = restir_mis_source(a.candidates, point.source_pdf, bsdf_candidates,
                                                   restir_bsdf_area_pdf(scene, s, point));
            if (!(source > 0.0f)) continue;
            from_bsdf |= restir_stream_candidate<Reservoirs>(
                scene, s, point, source, restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_CANDIDATE, d + 3u), r,
                chosen_target);
            // (every light candidate came before: a reservoir's bit, once set, stays true)
        }
#endif
#pragma unroll
        for (unsigned int t = 0; t < Reservoirs; ++t) {
            r[t].m = (float)(a.candidates + bsdf_candidates);
            // (with MIS the weights already hold the 1/M: W = w_sum / p̂)
            restir_finalize(r[t], chosen_target[t], mis ? 1.0f : r[t].m);
        }
    }
    restir_count_rays(a, RESTIR_RAYS_BSDF_CANDIDATES, bsdf_rays);
    const size_t pixels = restir_pixel_count(a);
#pragma unroll
    for (unsigned int t = 0; t < Reservoirs; ++t) restir_store(a, a.output + t * pixels, pixel, r[t]);
    if (a.origins != nullptr) {
        // Light candidates stream first: a reservoir whose sample a BSDF candidate set keeps it.
#pragma unroll
        for (unsigned int t = 0; t < Reservoirs; ++t) {
            a.origins[t * pixels + pixel] = r[t].light == RESTIR_NO_LIGHT ? RESTIR_ORIGIN_NONE
                                            : ((from_bsdf >> t) & 1u) != 0u ? RESTIR_ORIGIN_BSDF
                                                                            : RESTIR_ORIGIN_LIGHT;
        }
    }
}

extern "C" __global__ void __launch_bounds__(256) restir_initial_ris(RestirArgs a) {
    restir_initial_ris_pass<1u>(a);
}

// Initial RIS with one reservoir per colour channel (RESTIR_TARGET_CHANNELS).
extern "C" __global__ void __launch_bounds__(256) restir_initial_ris_channels(RestirArgs a) {
    restir_initial_ris_pass<3u>(a);
}

// visibility_pass: an occluded sample contributes nothing (W = 0), in place on `output`, for
// each of the pixel's reservoirs; one ray per distinct sample (reservoirs of the channels that
// chose the same light point share its answer, as restir.rs initial_ris does).
extern "C" __global__ void restir_visibility(RestirArgs a) {
    const unsigned int pixel = blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel >= restir_pixel_count(a)) return;
    const RestirSurface& g = a.gbuffer[pixel];
    if (g.lit == 0u) return;
    const RestirShading s = restir_shading(g, a.target);
    const size_t pixels = restir_pixel_count(a);
    const unsigned int count = restir_reservoir_count(a);
    // The samples traced so far and their answers.
    unsigned int traced_light[3];
    float traced_b[3][2];
    bool traced_seen[3];
    unsigned int traced = 0u, rays = 0u;
    for (unsigned int t = 0; t < count; ++t) {
        Reservoir* base = a.output + t * pixels;
        Reservoir r = restir_load(a, base, pixel);
        if (r.light == RESTIR_NO_LIGHT) continue;
        int known = -1;
        for (unsigned int k = 0; k < traced; ++k) {
            if (traced_light[k] == r.light && traced_b[k][0] == r.b[0] && traced_b[k][1] == r.b[1]) {
                known = traced_seen[k] ? 1 : 0;
                break;
            }
        }
        const bool seen = known >= 0 ? known != 0 : restir_sees(a.scene, s, restir_sample_point(a.scene, r), rays);
        if (known < 0) {
            traced_light[traced] = r.light;
            traced_b[traced][0] = r.b[0];
            traced_b[traced][1] = r.b[1];
            traced_seen[traced] = seen;
            ++traced;
        }
        if (!seen) {
            r.w = 0.0f;
            restir_store(a, base, pixel, r);
        }
    }
    restir_count_rays(a, RESTIR_RAYS_VISIBILITY, rays);
}

// The end of `combine` for the pixel's chosen sample: the normaliser (M, or Z: the inputs'
// M summed in input order over those whose surface sees y), W, and W = 0 when the pixel does
// not see the sample.
__device__ __forceinline__ void restir_combine_end(const RestirArgs& a, Reservoir& out, float chosen_target, float z,
                                                   bool seen_own, float m) {
    restir_finalize(out, chosen_target, a.bias == RESTIR_BIAS_OFF ? m : z);
    if (!seen_own) out.w = 0.0f;
}

// The reuse passes' start: false when the thread has no pixel, or when the pixel's surface
// takes no resampled light (its reservoir is then passed on unchanged); else its reservoir.
__device__ __forceinline__ bool restir_reuse_begin(const RestirArgs& a, unsigned int pixel, Reservoir& current) {
    if (pixel >= restir_pixel_count(a)) return false;
    current = restir_load(a, a.input, pixel);
    if (a.gbuffer[pixel].lit != 0u) return true;
    restir_store(a, a.output, pixel, current);
    return false;
}

// The end of combine_pairwise (restir.rs): W with normaliser 1, and W = 0 when the pixel does
// not see the chosen sample (`known_seen`: known to see it — the pixel's own sample, or any
// under visibility-aware reuse).
__device__ __forceinline__ void restir_pairwise_end(const RestirArgs& a, const RestirShading& q, Reservoir& out,
                                                    float chosen_target, bool known_seen, unsigned int& rays) {
    restir_finalize(out, chosen_target, 1.0f);
    if (!known_seen && !restir_sees(a.scene, q, restir_sample_point(a.scene, out), rays)) out.w = 0.0f;
}

// reuse_temporally: the pixel's reservoir with the previous frame's at the same pixel (static
// camera) or where the previous camera saw this pixel's point (camera_moved). SplitRay
// (restir_temporal_choose; not with pairwise MIS): the combination only, its one shadow ray
// left to restir_temporal_visibility, which finishes the reservoir.
template <bool SplitRay>
__device__ __forceinline__ void restir_temporal_pass(const RestirArgs& a) {
    const unsigned int pixel = blockIdx.x * blockDim.x + threadIdx.x;
    Reservoir current;
    if (!restir_reuse_begin(a, pixel, current)) return;
    const RestirShading q = restir_shading(a.gbuffer[pixel], a.target);
    bool has_prev = false;
    Reservoir prev;
    RestirShading ps;
    unsigned int prev_pixel = pixel;
    float depth = q.depth;
    bool found = a.has_previous != 0u;
    if (found && a.camera_moved != 0u) found = restir_reproject(a, q.p, prev_pixel, depth);
    if (found && a.prev_gbuffer[prev_pixel].lit != 0u && restir_load_m(a, a.previous, prev_pixel) > 0.0f) {
        ps = restir_shading(a.prev_gbuffer[prev_pixel], a.target);
        if (restir_similar_at(q, ps, depth, a.roughness_threshold)) {
            has_prev = true;
            prev = restir_load(a, a.previous, prev_pixel);
            prev.m = fminf(prev.m, __fmul_rn(a.temporal_cap, fmaxf(current.m, 1.0f)));
        }
    }
    Reservoir out = empty_reservoir();
    float m = 0.0f, chosen_target = 0.0f;
    unsigned int rays = 0u;
    bool chosen_prev = false;  // which input `out`'s sample came from (it sees the sample)
    const bool pairwise = !SplitRay && a.bias == RESTIR_BIAS_PAIRWISE;  // (SplitRay: never pairwise)
    // Visibility-aware reuse (never SplitRay): the history's sample resampled with p̂·V, so the
    // pixel sees whichever sample wins.
    const bool visibility = a.reuse_visibility != 0u;
    if (pairwise) {
        // The reused input first, the pixel's own last (restir.rs combine_pairwise).
        const float own_target =
            current.light != RESTIR_NO_LIGHT ? restir_target(a.scene, q, restir_sample_point(a.scene, current)) : 0.0f;
        float own_share = 0.0f;
        if (has_prev) {
            restir_pairwise_input(a.scene, q, ps, prev, current, own_target, 1.0f,
                                  restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_TEMPORAL, 1u), -1, visibility,
                                  out, m, chosen_target, own_share, rays);
        }
        chosen_prev = !restir_pairwise_own(a.scene, current, own_target, 1.0f, has_prev, own_share,
                                           restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_TEMPORAL, 0u), out, m,
                                           chosen_target);
    } else {
        restir_stream_input(a.scene, q, current, restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_TEMPORAL, 0u),
                            out, m, chosen_target, rays);
        if (has_prev) {
            chosen_prev = restir_stream_input(a.scene, q, prev,
                                              restir_random(a.seed, pixel, a.frame, RESTIR_STAGE_TEMPORAL, 1u), out,
                                              m, chosen_target, rays, visibility);
        }
    }
    out.m = m;
    if (SplitRay && out.light != RESTIR_NO_LIGHT) {
        RestirPendingTemporal pending;
        pending.chosen_target = chosen_target;
        pending.current_m = current.m;
        pending.prev_m = has_prev ? prev.m : 0.0f;
        pending.prev_pixel = prev_pixel;
        pending.has_prev = has_prev ? 1u : 0u;
        pending.chosen_prev = chosen_prev ? 1u : 0u;
        a.pending_temporal[pixel] = pending;
    } else if (out.light != RESTIR_NO_LIGHT && pairwise) {
        restir_pairwise_end(a, q, out, chosen_target, !chosen_prev || visibility, rays);
    } else if (out.light != RESTIR_NO_LIGHT) {
        const RestirLightPoint y = restir_sample_point(a.scene, out);
        const bool seen_own = !chosen_prev || visibility || restir_sees(a.scene, q, y, rays);
        float z = seen_own ? __fadd_rn(0.0f, current.m) : 0.0f;
        if (a.bias != RESTIR_BIAS_OFF && has_prev && (chosen_prev || restir_sees(a.scene, ps, y, rays))) {
            z = __fadd_rn(z, prev.m);
        }
        restir_combine_end(a, out, chosen_target, z, seen_own, m);
    }
    if (a.origins != nullptr && chosen_prev && out.light != RESTIR_NO_LIGHT) a.origins[pixel] = RESTIR_ORIGIN_TEMPORAL;
    restir_store(a, a.output, pixel, out);
    restir_count_rays(a, RESTIR_RAYS_TEMPORAL, rays);
}

extern "C" __global__ void restir_temporal(RestirArgs a) { restir_temporal_pass<false>(a); }
extern "C" __global__ void restir_temporal_choose(RestirArgs a) { restir_temporal_pass<true>(a); }

// The end of restir_temporal_choose's combination: its one shadow ray — from the pixel's surface
// when the history's sample was chosen (whether the pixel sees it), else, in the ray-traced
// mode, from the history's surface (whether it counts in Z) — then Z and W as restir_temporal
// computes them inline, in its order.
extern "C" __global__ void restir_temporal_visibility(RestirArgs a) {
    const unsigned int pixel = blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel >= restir_pixel_count(a) || a.gbuffer[pixel].lit == 0u) return;
    Reservoir out = restir_load(a, a.output, pixel);
    if (out.light == RESTIR_NO_LIGHT) return;
    const RestirPendingTemporal p = a.pending_temporal[pixel];
    const bool trace_own = p.chosen_prev != 0u;
    const bool trace_prev = !trace_own && a.bias != RESTIR_BIAS_OFF && p.has_prev != 0u;
    bool sees = false;
    unsigned int rays = 0u;
    if (trace_own || trace_prev) {
        // (one traversal inlined: the surface chosen first)
        const RestirShading s = restir_shading(trace_own ? a.gbuffer[pixel] : a.prev_gbuffer[p.prev_pixel], a.target);
        sees = restir_sees(a.scene, s, restir_sample_point(a.scene, out), rays);
    }
    const bool seen_own = !trace_own || sees;
    float z = seen_own ? __fadd_rn(0.0f, p.current_m) : 0.0f;
    if (a.bias != RESTIR_BIAS_OFF && p.has_prev != 0u && (trace_own || sees)) z = __fadd_rn(z, p.prev_m);
    restir_combine_end(a, out, p.chosen_target, z, seen_own, out.m);
    restir_store(a, a.output, pixel, out);
    restir_count_rays(a, RESTIR_RAYS_TEMPORAL, rays);
}

// boiling_filter (restir/boiling.rs; RTXDI's boiling filter), in place on `output` after temporal
// reuse: one 8×8 block per pixel group; a reservoir whose W exceeds the group's mean nonzero W
// times RestirArgs.boiling_multiplier is emptied. The group's sum is one thread's, in the CPU's
// order (row by row), so the limit is the CPU's bit for bit.
extern "C" __global__ void __launch_bounds__(64) restir_boiling_filter(RestirArgs a) {
    __shared__ float weights[RESTIR_BOILING_GROUP * RESTIR_BOILING_GROUP];
    __shared__ float limit;
    __shared__ unsigned int count;
    const unsigned int width = a.scene.params->width, height = a.scene.params->height;
    const unsigned int x = blockIdx.x * RESTIR_BOILING_GROUP + threadIdx.x;
    const unsigned int y = blockIdx.y * RESTIR_BOILING_GROUP + threadIdx.y;
    const unsigned int k = threadIdx.y * RESTIR_BOILING_GROUP + threadIdx.x;
    const bool inside = x < width && y < height;
    const float w = inside ? restir_load(a, a.output, y * width + x).w : 0.0f;
    weights[k] = w;  // (0 outside the image: not a nonzero W)
    __syncthreads();
    if (k == 0u) {
        float sum = 0.0f;
        unsigned int n = 0u;
        for (unsigned int i = 0; i < RESTIR_BOILING_GROUP * RESTIR_BOILING_GROUP; ++i) {
            if (weights[i] > 0.0f) {
                sum = __fadd_rn(sum, weights[i]);
                ++n;
            }
        }
        count = n;
        limit = n > 0u ? __fmul_rn(__fdiv_rn(sum, (float)n), a.boiling_multiplier) : 0.0f;
    }
    __syncthreads();
    if (inside && count > 0u && w > limit) restir_store(a, a.output, y * width + x, empty_reservoir());
}

// Neighbour k of pixel (x, y) in spatial pass `pass` (restir.rs reuse_spatially): its index,
// or -1 outside the image, on the pixel itself, unlit or not similar.
__device__ __forceinline__ int restir_neighbour(const RestirArgs& a, unsigned int pixel, const RestirShading& q,
                                                unsigned int k) {
    const GpuSceneParams& params = *a.scene.params;
    const unsigned int stage = RESTIR_STAGE_SPATIAL + a.pass;
    const float angle = __fmul_rn(restir_random(a.seed, pixel, a.frame, stage, 2u * k), 6.2831855f);
    const float radius =
        __fmul_rn(a.radius, __fsqrt_rn(restir_random(a.seed, pixel, a.frame, stage, 2u * k + 1u)));
    float sin_a, cos_a;
    det_sin_cos(angle, sin_a, cos_a);
    const long long x = pixel % params.width, y = pixel / params.width;
    const long long nx = x + (long long)roundf(__fmul_rn(radius, cos_a));
    const long long ny = y + (long long)roundf(__fmul_rn(radius, sin_a));
    if (nx < 0 || ny < 0 || nx >= (long long)params.width || ny >= (long long)params.height || (nx == x && ny == y)) {
        return -1;
    }
    const unsigned int j = (unsigned int)(ny * params.width + nx);
    const RestirSurface& ng = a.gbuffer[j];
    if (ng.lit == 0u || !restir_similar(q, restir_shading(ng, a.target), a.roughness_threshold)) return -1;
    return (int)j;
}

// reuse_spatially: one pass, the pixel with its similar neighbours.
// GroupedZ (restir_spatial_choose; ray-traced and 1/M modes): the choice only, no shadow ray;
// restir_spatial_z traces its rays and finishes the reservoir.
template <bool GroupedZ>
__device__ __forceinline__ void restir_spatial_pass(const RestirArgs& a) {
    const unsigned int pixel = blockIdx.x * blockDim.x + threadIdx.x;
    Reservoir current;
    if (!restir_reuse_begin(a, pixel, current)) return;
    const unsigned int stage = RESTIR_STAGE_SPATIAL + a.pass;
    const RestirShading q = restir_shading(a.gbuffer[pixel], a.target);
    Reservoir out = empty_reservoir();
    float m = 0.0f, chosen_target = 0.0f;
    // The neighbour slot `out`'s sample came from (-1: the pixel's own), whose surface sees it.
    int chosen = -1;
    unsigned int rays = 0u;
    restir_stream_input(a.scene, q, current, restir_random(a.seed, pixel, a.frame, stage, 1000u), out, m,
                        chosen_target, rays);
    unsigned int index = 1u;
    for (unsigned int k = 0; k < a.neighbours; ++k) {
        const int j = restir_neighbour(a, pixel, q, k);
        if (j < 0) continue;
        if (restir_stream_input(a.scene, q, restir_load(a, a.input, j),
                                restir_random(a.seed, pixel, a.frame, stage, 1000u + index), out, m, chosen_target,
                                rays, a.reuse_visibility != 0u)) {
            chosen = (int)k;
        }
        ++index;
    }
    out.m = m;
    if (GroupedZ && out.light != RESTIR_NO_LIGHT) {
        // The shadow rays are traced by restir_spatial_z; it finishes `out`.
        RestirPendingZ pending;
        pending.chosen_target = chosen_target;
        pending.chosen = chosen;
        a.pending_z[pixel] = pending;
    } else if (!GroupedZ && out.light != RESTIR_NO_LIGHT) {
        const RestirLightPoint y = restir_sample_point(a.scene, out);
        // (visibility-aware reuse: a neighbour's sample won only if the pixel sees it)
        const bool seen_own = chosen >= 0 && a.reuse_visibility == 0u ? restir_sees(a.scene, q, y, rays) : true;
        float z = seen_own ? __fadd_rn(0.0f, current.m) : 0.0f;
        if (a.bias != RESTIR_BIAS_OFF) {
            // Z: the neighbours (found again, as the first loop did) whose surfaces see y.
            for (unsigned int k = 0; k < a.neighbours; ++k) {
                const int j = restir_neighbour(a, pixel, q, k);
                if (j < 0) continue;
                if ((int)k == chosen || restir_sees(a.scene, restir_shading(a.gbuffer[j], a.target), y, rays)) {
                    z = __fadd_rn(z, restir_load_m(a, a.input, j));
                }
            }
        }
        restir_combine_end(a, out, chosen_target, z, seen_own, m);
    }
    if (a.origins != nullptr && chosen >= 0) a.origins[pixel] = RESTIR_ORIGIN_SPATIAL;
    restir_store(a, a.output, pixel, out);
    restir_count_rays(a, RESTIR_RAYS_SPATIAL, rays);
}

extern "C" __global__ void restir_spatial(RestirArgs a) { restir_spatial_pass<false>(a); }
extern "C" __global__ void restir_spatial_choose(RestirArgs a) { restir_spatial_pass<true>(a); }

// The lanes of a pixel's ray group (restir_spatial_z, restir_spatial_pairwise_sees):
// `ray_group` = G consecutive lanes of one warp per pixel, 32 / G pixels a warp (the last
// 32 mod G lanes idle). The group's inputs (the pixel's own, then its neighbours) are dealt out
// in rounds of G: in round r lane l takes input r·G + l. G = 1 is one thread per pixel taking
// its inputs one after another.
struct RestirRayLane {
    unsigned int pixel;  // UINT_MAX for an idle lane
    unsigned int lane;   // within the group
    unsigned int base;   // the group's lane 0 within the warp (0 for an idle lane)
};

__device__ __forceinline__ RestirRayLane restir_ray_lane(const RestirArgs& a) {
    const unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int per_warp = 32u / a.ray_group;
    const unsigned int group = (thread & 31u) / a.ray_group;
    RestirRayLane l;
    l.lane = (thread & 31u) - group * a.ray_group;
    l.base = group < per_warp ? group * a.ray_group : 0u;
    l.pixel = group < per_warp ? (thread >> 5) * per_warp + group : 0xFFFFFFFFu;
    return l;
}

// The bits of a ballot that belong to lanes base .. base + count - 1, as bits 0 .. count - 1.
__device__ __forceinline__ unsigned int restir_group_bits(unsigned int ballot, unsigned int base, unsigned int count) {
    return count >= 32u ? ballot : (ballot >> base) & ((1u << count) - 1u);
}

// reuse_spatially, the end of restir_spatial_choose's choice. Ray-traced mode: the normaliser
// Z, whose shadow rays to the chosen sample y — from the pixel's own surface (when y came from
// a neighbour) and from every other neighbour's — are dealt out to the group's lanes
// (RestirRayLane); 1/M (one lane a pixel): only the pixel's own ray. Each round's answers are
// gathered by ballot and shuffles, and Z is summed in input order (the CPU's order of
// additions, so the images stay the CPU's value for value); lane 0 finishes the reservoir as
// restir_spatial does inline.
extern "C" __global__ void restir_spatial_z(RestirArgs a) {
    const RestirRayLane l = restir_ray_lane(a);
    bool active = l.pixel < restir_pixel_count(a) && a.gbuffer[l.pixel].lit != 0u;
    if (active) active = restir_load(a, a.output, l.pixel).light != RESTIR_NO_LIGHT;
    RestirPendingZ pending;
    pending.chosen_target = 0.0f;
    pending.chosen = -1;
    if (active) pending = a.pending_z[l.pixel];
    // (the pixel's surface, reservoir and y are read again for each input and at the end, not
    // held across the rounds: held, they cost the kernel 114 registers instead of ~60)
    // 1/M: no Z, only whether the pixel sees a neighbour's sample (input 0).
    const unsigned int inputs = a.bias == RESTIR_BIAS_OFF ? 1u : a.neighbours + 1u;
    float z = 0.0f;
    bool seen_own = false;
    unsigned int rays = 0u;
#pragma unroll 1
    for (unsigned int first = 0; first < inputs; first += a.ray_group) {
        const unsigned int i = first + l.lane;
        bool sees = false;  // input i counts in Z
        float input_m = 0.0f;
        if (active && i < inputs) {
            // The surface whose ray input i needs (none: its answer is known).
            unsigned int surface = l.pixel;
            bool trace = false;
            if (i == 0u) {
                trace = pending.chosen >= 0;
                sees = !trace;
                input_m = restir_load_m(a, a.input, l.pixel);
            } else {
                const int j = restir_neighbour(a, l.pixel, restir_shading(a.gbuffer[l.pixel], a.target), i - 1u);
                if (j >= 0) {
                    trace = (int)(i - 1u) != pending.chosen;
                    sees = !trace;
                    surface = (unsigned int)j;
                    input_m = restir_load_m(a, a.input, (unsigned int)j);
                }
            }
            if (trace) {
                sees = restir_sees(a.scene, restir_shading(a.gbuffer[surface], a.target),
                                   restir_sample_point(a.scene, restir_load(a, a.output, l.pixel)), rays);
            }
        }
        const unsigned int seen = restir_group_bits(__ballot_sync(WARPATH_FULL_WARP, sees), l.base, a.ray_group);
        if (first == 0u) seen_own = seen & 1u;
        for (unsigned int s = 0; s < a.ray_group && first + s < inputs; ++s) {
            const float m_s = __shfl_sync(WARPATH_FULL_WARP, input_m, l.base + s);
            if ((seen >> s) & 1u) z = __fadd_rn(z, m_s);
        }
    }
    if (active && l.lane == 0u) {
        Reservoir out = restir_load(a, a.output, l.pixel);
        restir_combine_end(a, out, pending.chosen_target, z, seen_own, out.m);
        restir_store(a, a.output, l.pixel, out);
    }
    restir_count_rays(a, RESTIR_RAYS_SPATIAL, rays);
}

// Pairwise MIS, before restir_spatial_pairwise_grouped: whether each neighbour's surface sees
// the pixel's own sample y_own (the shadow ray of d = k·M_r·p̂_ns(y_own)), neighbour k dealt to
// lane k mod G in round k / G (RestirRayLane), as bit k of `neighbour_sees` (neighbours ≤ 32).
// The ray is traced wherever d can be > 0 (the neighbour's reservoir has M > 0; its p̂ is
// tested inside restir_sees).
extern "C" __global__ void restir_spatial_pairwise_sees(RestirArgs a) {
    const RestirRayLane l = restir_ray_lane(a);
    bool active = l.pixel < restir_pixel_count(a) && a.gbuffer[l.pixel].lit != 0u;
    Reservoir own = empty_reservoir();
    if (active) {
        own = restir_load(a, a.input, l.pixel);
        active = own.light != RESTIR_NO_LIGHT;
    }
    unsigned int mask = 0u, rays = 0u;
    for (unsigned int first = 0; first < a.neighbours; first += a.ray_group) {
        const unsigned int k = first + l.lane;
        bool sees = false;
        if (active && k < a.neighbours) {
            const RestirShading q = restir_shading(a.gbuffer[l.pixel], a.target);
            const int j = restir_neighbour(a, l.pixel, q, k);
            if (j >= 0 && restir_load_m(a, a.input, (unsigned int)j) > 0.0f) {
                sees = restir_sees(a.scene, restir_shading(a.gbuffer[j], a.target), restir_sample_point(a.scene, own),
                                   rays);
            }
        }
        // (first < neighbours ≤ 32: the shift is in range; bits of k ≥ neighbours are 0)
        mask |= restir_group_bits(__ballot_sync(WARPATH_FULL_WARP, sees), l.base, a.ray_group) << first;
    }
    if (l.pixel < restir_pixel_count(a) && l.lane == 0u) a.neighbour_sees[l.pixel] = mask;
    restir_count_rays(a, RESTIR_RAYS_SPATIAL, rays);
}

// reuse_spatially with pairwise MIS (restir.rs combine_pairwise): a kernel of its own, so that
// the other modes' spatial kernel keeps its registers (in one kernel both slowed to 8.2 ms).
// GroupedSees (restir_spatial_pairwise_grouped): the neighbours' rays to the pixel's own
// sample were traced by restir_spatial_pairwise_sees.
template <bool GroupedSees>
__device__ __forceinline__ void restir_spatial_pairwise_pass(const RestirArgs& a) {
    const unsigned int pixel = blockIdx.x * blockDim.x + threadIdx.x;
    Reservoir current;
    if (!restir_reuse_begin(a, pixel, current)) return;
    const unsigned int stage = RESTIR_STAGE_SPATIAL + a.pass;
    const RestirShading q = restir_shading(a.gbuffer[pixel], a.target);
    Reservoir out = empty_reservoir();
    float m = 0.0f, chosen_target = 0.0f;
    // k first (the neighbours found once to count them), then the neighbours, then the
    // pixel's own input (restir.rs combine_pairwise).
    unsigned int found = 0u;
    for (unsigned int k = 0; k < a.neighbours; ++k) found += restir_neighbour(a, pixel, q, k) >= 0 ? 1u : 0u;
    const float kf = (float)found;
    const float own_target =
        current.light != RESTIR_NO_LIGHT ? restir_target(a.scene, q, restir_sample_point(a.scene, current)) : 0.0f;
    float own_share = 0.0f;
    unsigned int index = 1u, rays = 0u;
    for (unsigned int k = 0; k < a.neighbours; ++k) {
        const int j = restir_neighbour(a, pixel, q, k);
        if (j < 0) continue;
        // Whether neighbour k sees y_own: traced by restir_spatial_pairwise_sees (grouped rays) or here.
        const int sees_own = GroupedSees ? (int)((a.neighbour_sees[pixel] >> k) & 1u) : -1;
        restir_pairwise_input(a.scene, q, restir_shading(a.gbuffer[j], a.target), restir_load(a, a.input, j), current,
                              own_target, kf, restir_random(a.seed, pixel, a.frame, stage, 1000u + index), sees_own,
                              a.reuse_visibility != 0u, out, m, chosen_target, own_share, rays);
        ++index;
    }
    const bool chosen_own = restir_pairwise_own(a.scene, current, own_target, kf, found > 0u, own_share,
                                                restir_random(a.seed, pixel, a.frame, stage, 1000u), out, m,
                                                chosen_target);
    out.m = m;
    if (out.light != RESTIR_NO_LIGHT) {
        restir_pairwise_end(a, q, out, chosen_target, chosen_own || a.reuse_visibility != 0u, rays);
        if (a.origins != nullptr && !chosen_own) a.origins[pixel] = RESTIR_ORIGIN_SPATIAL;
    }
    restir_store(a, a.output, pixel, out);
    restir_count_rays(a, RESTIR_RAYS_SPATIAL, rays);
}

extern "C" __global__ void restir_spatial_pairwise(RestirArgs a) { restir_spatial_pairwise_pass<false>(a); }
extern "C" __global__ void restir_spatial_pairwise_grouped(RestirArgs a) { restir_spatial_pairwise_pass<true>(a); }

// shade_pixels: emission seen + f·Le·G·V·W of each reservoir (a channel's reservoir adds its
// own channel only), this frame's film pass (one sample per pixel). V = 1 wherever W > 0
// (restir.rs sees_chosen), so no shadow ray.
extern "C" __global__ void restir_shade(RestirArgs a) {
    const unsigned int pixel = blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel >= restir_pixel_count(a)) return;
    const RestirSurface& g = a.gbuffer[pixel];
    float l[3] = {g.emitted[0], g.emitted[1], g.emitted[2]};
    const size_t pixels = restir_pixel_count(a);
    const unsigned int count = restir_reservoir_count(a);
    for (unsigned int t = 0; t < count; ++t) {
        const Reservoir r = restir_load(a, a.input + t * pixels, pixel);
        bool adds = false;  // (origins: a reservoir that adds nothing has none)
        if (g.lit != 0u && r.light != RESTIR_NO_LIGHT && r.w > 0.0f) {
            const RestirShading s = restir_shading(g, a.target);
            float3 c;
            RestirLightGeometry geometry;
            adds = restir_contribution_at(a.scene, s, restir_sample_point(a.scene, r), c, geometry);
            if (adds) {
                const float cs[3] = {c.x, c.y, c.z};
                if (count == 1u) {
                    for (int k = 0; k < 3; ++k) l[k] = __fadd_rn(l[k], __fmul_rn(cs[k], r.w));
                } else {
                    l[t] = __fadd_rn(l[t], __fmul_rn(cs[t], r.w));
                }
            }
        }
        if (a.origins != nullptr && !adds) a.origins[t * pixels + pixel] = RESTIR_ORIGIN_NONE;
    }
    const float3 radiance = make_float3(l[0], l[1], l[2]);
    store3(a.film_sum + 3 * (size_t)pixel, radiance);
    store3(a.film_sum_sq + 3 * (size_t)pixel, radiance * radiance);
    a.film_count[pixel] = 1u;
}
