// restir/restir.cuh — ReSTIR direct lighting on the device (issue 15, seed 002; Bitterli et
// al. 2020): the CPU reference warpath_cpu::restir, function for function, with the same
// random numbers and the same rounding of every operation, so one seed gives the same
// reservoirs on both (gpu_restir: the images equal value for value on the H100).
//
// Per pixel and frame (kernels in restir.cu, launched by src/restir/mod.rs):
//   restir_initial_ris   camera ray → G-buffer (RestirSurface); M candidates resampled into a
//                        Reservoir, drawn from the block's shared-memory light pool (one
//                        16×16 block = one pool tile of 256 light points drawn by power) or
//                        straight from the power distribution (`light_cdf`); with
//                        RestirArgs.bsdf_candidates, BSDF-sampled candidates too (a traced ray
//                        each; restir_bsdf_candidate), MIS over both source pdfs.
//   restir_visibility    one shadow ray to the reservoir's sample; occluded → W = 0.
//   restir_temporal      with the previous frame's reservoir (static camera), M capped;
//                        then restir_boiling_filter when on (8×8 groups, in place).
//   restir_spatial       with k similar neighbours within a radius (one pass per launch).
// Unless the rays are inline (restir.rs RayLanes::Inline), the reuse passes' shadow rays run in
// kernels of their own: restir_temporal_choose → restir_temporal_visibility (ray-traced, 1/M),
// restir_spatial_choose → restir_spatial_z (ray-traced, 1/M), restir_spatial_pairwise_sees →
// restir_spatial_pairwise_grouped (pairwise).
//   restir_shade         f·Le·G·V·W plus emission seen, written as this frame's film pass.
// A shadow ray whose answer is known is not traced (restir.rs sees_chosen): a reservoir has
// W > 0 only if its own surface sees its sample, so the input a combination takes its sample
// from sees it, and shading needs no ray at all.
// Bias correction: RESTIR_BIAS_OFF (1/M), RESTIR_BIAS_RAY_TRACED (1/Z, visibility traced) or
// RESTIR_BIAS_PAIRWISE (pairwise MIS, restir.rs combine_pairwise).
//
// Layouts are Rust's (src/restir/args.rs; docs/architecture.md); the sizes and offsets are
// checked by the generated layout checks (end of file).
#pragma once
#include "surface/estimator.cuh"
#include "restir/target.cuh"
#include "restir/similarity.cuh"

#define RESTIR_STREAMS_PER_FRAME 32u
#define RESTIR_STAGE_POOL 0u
#define RESTIR_STAGE_CANDIDATE 1u
#define RESTIR_STAGE_TEMPORAL 2u
#define RESTIR_STAGE_SPATIAL 3u
#define RESTIR_POOL_TILE 16u
#define RESTIR_POOL_SIZE 256u
#define RESTIR_NO_LIGHT 0xFFFFFFFFu
#define RESTIR_BIAS_OFF 0u
#define RESTIR_BIAS_RAY_TRACED 1u
#define RESTIR_BIAS_PAIRWISE 2u

// What the camera sees at a pixel this frame (restir.rs GBufferPixel; `lit` = 0 for a miss
// or a purely specular surface). The shading frame is rebuilt from `n` (frame_from_normal).
struct RestirSurface {
    float p[3];
    float ng[3];
    float n[3];
    float base_color[3];
    float wo[3];
    float emitted[3];
    float depth;
    unsigned int material;
    unsigned int lit;
    float roughness;  // restir_material_roughness of the material (the similarity test's)
    float material_roughness;  // the material's roughness and metallic here (textures applied)
    float metallic;
    float opacity;  // the opacity mask's α (restir.rs Surface::opacity)
    unsigned int _pad[3];
};

// A reservoir. Its light sample is by default the compact one (seed 002's second
// optimisation: emissive triangle + barycentrics of e1, e2, 12 B; the point, normal and
// radiance reconstructed from the TriangleLight wherever they are needed). Compiled with
// RESTIR_FULL_SAMPLE (the program `restir_full`, restir.rs LightSampleFormat::Full) it also
// holds the reconstructed point (RestirLightPoint's fields: 56 B of sample, seed 002's full
// LightSample), so reuse reads no TriangleLight. Both compute the same numbers.
struct Reservoir {
    unsigned int light;  // RESTIR_NO_LIGHT: empty
    float b[2];
    float w_sum;
    float m;
    float w;
#ifdef RESTIR_FULL_SAMPLE
    float q[3];
    float n[3];
    float emission[3];
    unsigned int two_sided;
    float source_pdf;
#endif
};
#define RESTIR_RESERVOIR_WORDS (sizeof(Reservoir) / 4u)

// A spatial combination whose normaliser Z is still to be traced (ray-traced mode, grouped
// rays): p̂ at the pixel of the sample chosen, and the neighbour slot it came from (-1: the
// pixel's own input). restir.rs GpuPendingZ.
struct RestirPendingZ {
    float chosen_target;
    int chosen;
};

// A temporal combination whose shadow ray is still to be traced (restir_temporal_choose →
// restir_temporal_visibility): p̂ of the chosen sample, the two inputs' M (the history's
// capped), the history's pixel, and whether there was a history and whether it was chosen.
// restir.rs GpuPendingTemporal.
struct RestirPendingTemporal {
    float chosen_target;
    float current_m;
    float prev_m;
    unsigned int prev_pixel;
    unsigned int has_prev;
    unsigned int chosen_prev;
};

// Every kernel's one argument (src/restir/args.rs RestirArgs).
struct RestirArgs {
    DeviceScene scene;
    RestirSurface* gbuffer;             // this frame's
    const RestirSurface* prev_gbuffer;  // the previous frame's (temporal)
    const Reservoir* input;             // what temporal / spatial reuse read
    Reservoir* output;                  // what a kernel writes (visibility: in place)
    const Reservoir* previous;          // the previous frame's final reservoirs
    float* film_sum;                    // the film's pass buffers (3, 3, 1 per pixel)
    float* film_sum_sq;
    unsigned int* film_count;
    unsigned int frame;
    unsigned int seed;
    unsigned int candidates;
    unsigned int light_pool;
    unsigned int bias;
    unsigned int neighbours;
    unsigned int pass;
    unsigned int has_previous;
    float radius;
    float temporal_cap;
    // restir.rs Reprojection: the previous frame's camera, read when camera_moved != 0 (else
    // temporal reuse reads the same pixel).
    float prev_to_camera[12];
    float prev_position[3];
    float prev_tan_half_fov[2];
    unsigned int camera_moved;
    // The spatial pass's shadow rays in kernels of their own (restir.cu restir_spatial_z and
    // restir_spatial_pairwise_sees): `ray_group` lanes per pixel (1 to 32; 0: every ray traced
    // inline by its pixel's thread in the spatial kernel).
    RestirPendingZ* pending_z;           // ray-traced and 1/M: what the Z kernel needs of the choice
    unsigned int* neighbour_sees;        // pairwise: bit k — neighbour k sees the pixel's sample
    unsigned int ray_group;
    unsigned int target;  // the target function p̂ (restir/target.cuh RESTIR_TARGET_*)
    // The temporal pass's ray in a kernel of its own (restir_temporal_choose, then
    // restir_temporal_visibility; ray-traced and 1/M modes, unless the rays are inline).
    RestirPendingTemporal* pending_temporal;
    // Visibility-aware reuse (restir.rs reused_target): a reused input's sample is resampled
    // with p̂·V at the pixel, V traced before resampling; the rays are then inline (ray_group 0).
    unsigned int reuse_visibility;
    unsigned int _pad;
    // Shadow rays traced, by stage (RESTIR_RAYS_*; restir.rs RayCounts), when not null.
    unsigned long long* ray_counts;
    // BSDF-sampled candidates per pixel in initial RIS (0: none; restir.rs bsdf_candidates).
    unsigned int bsdf_candidates;
    // The boiling filter's multiplier 10/strength − 9 (warpath_core::restir::boiling_multiplier;
    // read by restir_boiling_filter, launched only when the filter is on).
    float boiling_multiplier;
    // Reuse rejects a neighbour whose roughness differs from the pixel's by more than this.
    float roughness_threshold;
    unsigned int _pad2;
    // Where each pixel's final sample came from (RESTIR_ORIGIN_*; restir.rs SampleOrigin), one
    // word a pixel (reuse passes: of the target they run for), or null: nothing recorded.
    unsigned int* origins;
};

// restir.rs SampleOrigin's codes.
#define RESTIR_ORIGIN_NONE 0u
#define RESTIR_ORIGIN_LIGHT 1u
#define RESTIR_ORIGIN_BSDF 2u
#define RESTIR_ORIGIN_TEMPORAL 3u
#define RESTIR_ORIGIN_SPATIAL 4u

#define RESTIR_RAYS_VISIBILITY 0u
#define RESTIR_RAYS_TEMPORAL 1u
#define RESTIR_RAYS_SPATIAL 2u
#define RESTIR_RAYS_BSDF_CANDIDATES 4u  // (3: shading, which traces none)
#define RESTIR_BOILING_GROUP 8u

// restir.rs restir_random: stage `stage` of `frame` has its own pcg_sample prefix.
__device__ __forceinline__ float restir_random(unsigned int seed, unsigned int index, unsigned int frame,
                                               unsigned int stage, unsigned int dim) {
    return pcg_sample(seed, index, frame * RESTIR_STREAMS_PER_FRAME + stage, 0u, dim);
}

// The shading surface of a G-buffer entry (restir.rs Surface).
struct RestirShading {
    float3 p;
    float3 ng;
    Frame frame;
    unsigned int material;
    float3 base_color;
    float3 wo;
    float depth;
    float roughness;
    float material_roughness;  // the textured roughness and metallic the BSDF evaluates
    float metallic;
    float opacity;
    unsigned int target;  // the target function p̂ resampling uses here (RESTIR_TARGET_*)
};

__device__ __forceinline__ float3 f3(const float v[3]) { return make_float3(v[0], v[1], v[2]); }

// A G-buffer entry as a surface to resample at with target function `target` (RestirArgs.target).
__device__ __forceinline__ RestirShading restir_shading(const RestirSurface& g, unsigned int target) {
    RestirShading s;
    s.target = target;
    s.p = f3(g.p);
    s.ng = f3(g.ng);
    s.frame = frame_from_normal(f3(g.n));
    s.material = g.material;
    s.base_color = f3(g.base_color);
    s.wo = f3(g.wo);
    s.depth = g.depth;
    s.roughness = g.roughness;
    s.material_roughness = g.material_roughness;
    s.metallic = g.metallic;
    // 1 (every unmasked material's α) in programs compiled without masks (common/features.cuh).
    s.opacity = WARPATH_HAS_FEATURE(OPACITY) ? g.opacity : 1.0f;
    return s;
}

// restir.rs Surface::shading_material: the material with the pixel's textured roughness and metallic.
__device__ __forceinline__ Material restir_material(const DeviceScene& scene, const RestirShading& s) {
    Material m = scene.materials[s.material];
    // Without textures compiled in, the pixel's values are the material's own.
    if (WARPATH_HAS_FEATURE(TEXTURES)) {
        m.roughness = s.material_roughness;
        m.metallic = s.metallic;
    }
    return m;
}

// A light point with everything a candidate's evaluation reads (restir.rs light_geometry's
// inputs, reconstructed once): what the shared-memory pool holds, so that the candidates drawn
// from it gather nothing but the pixel's material; with RESTIR_FULL_SAMPLE, what a reservoir
// holds too.
struct RestirLightPoint {
    float3 q;            // p0 + e1·b0 + e2·b1
    float3 n;            // the triangle's unit normal (TriangleLight::normal)
    float3 emission;
    unsigned int two_sided;
    float source_pdf;    // LightSampler::pdf, area measure
    unsigned int light;
    float b0;
    float b1;
};

// LightSampler::pdf: the area-measure pdf of drawing a point of `light`.
__device__ __forceinline__ float restir_source_pdf(const DeviceScene& scene, unsigned int light, float area) {
    return area <= 0.0f ? 0.0f
                        : __fdiv_rn(discrete_pdf(scene.light_cdf, scene.params->selection_count, light), area);
}

__device__ __forceinline__ RestirLightPoint restir_light_point(const DeviceScene& scene, unsigned int light, float b0,
                                                              float b1) {
    const TriangleLight l = scene.lights[light];
    RestirLightPoint point;
    point.q = l.p0 + l.e1 * b0 + l.e2 * b1;
    point.n = triangle_light_normal(l);
    point.emission = l.emission;
    point.two_sided = l.two_sided;
    point.source_pdf = restir_source_pdf(scene, light, l.area);
    point.light = light;
    point.b0 = b0;
    point.b1 = b1;
    return point;
}

__device__ __forceinline__ Reservoir empty_reservoir() {
    Reservoir r;
    r.light = RESTIR_NO_LIGHT;
    r.b[0] = 0.0f;
    r.b[1] = 0.0f;
    r.w_sum = 0.0f;
    r.m = 0.0f;
    r.w = 0.0f;
#ifdef RESTIR_FULL_SAMPLE
    for (int c = 0; c < 3; ++c) r.q[c] = r.n[c] = r.emission[c] = 0.0f;
    r.two_sided = 0u;
    r.source_pdf = 0.0f;
#endif
    return r;
}

// The reservoir's sample as a light point: reconstructed from its triangle (compact sample) or
// read from the reservoir (RESTIR_FULL_SAMPLE). Only for a reservoir that holds a sample.
__device__ __forceinline__ RestirLightPoint restir_sample_point(const DeviceScene& scene, const Reservoir& r) {
#ifdef RESTIR_FULL_SAMPLE
    (void)scene;
    RestirLightPoint point;
    point.q = make_float3(r.q[0], r.q[1], r.q[2]);
    point.n = make_float3(r.n[0], r.n[1], r.n[2]);
    point.emission = make_float3(r.emission[0], r.emission[1], r.emission[2]);
    point.two_sided = r.two_sided;
    point.source_pdf = r.source_pdf;
    point.light = r.light;
    point.b0 = r.b[0];
    point.b1 = r.b[1];
    return point;
#else
    return restir_light_point(scene, r.light, r.b[0], r.b[1]);
#endif
}

// Reservoir::update with candidate `y`.
__device__ __forceinline__ bool reservoir_update(Reservoir& r, const RestirLightPoint& y, float weight, float u) {
    if (!(weight > 0.0f && isfinite(weight))) return false;
    r.w_sum = __fadd_rn(r.w_sum, weight);
    if (__fmul_rn(u, r.w_sum) < weight) {
        r.light = y.light;
        r.b[0] = y.b0;
        r.b[1] = y.b1;
#ifdef RESTIR_FULL_SAMPLE
        r.q[0] = y.q.x, r.q[1] = y.q.y, r.q[2] = y.q.z;
        r.n[0] = y.n.x, r.n[1] = y.n.y, r.n[2] = y.n.z;
        r.emission[0] = y.emission.x, r.emission[1] = y.emission.y, r.emission[2] = y.emission.z;
        r.two_sided = y.two_sided;
        r.source_pdf = y.source_pdf;
#endif
        return true;
    }
    return false;
}

// light_geometry: Le(y → x)·|cos_y|/d², the direction and distance to the light point.
struct RestirLightGeometry {
    float3 wi;
    float distance;
    float3 le_g;
};

__device__ __forceinline__ bool restir_point_geometry(const RestirLightPoint& point, float3 x,
                                                      RestirLightGeometry& g) {
    const float3 to = point.q - x;
    const float d2 = length_squared(to);
    if (!(d2 > 0.0f)) return false;
    const float distance = __fsqrt_rn(d2);
    const float3 wi = to / distance;
    const float cos_y = fabsf(dot(point.n, -wi));
    // TriangleLight::radiance toward −wi.
    const float3 le = (point.two_sided != 0u || dot(point.n, -wi) > 0.0f) ? point.emission : zero3();
    if (cos_y <= 0.0f || is_zero3(le)) return false;
    g.wi = wi;
    g.distance = distance;
    g.le_g = le * __fdiv_rn(cos_y, d2);
    return true;
}

// contribution: the unshadowed f·cos·Le·G of the light point at s.
__device__ __forceinline__ bool restir_contribution_at(const DeviceScene& scene, const RestirShading& s,
                                                       const RestirLightPoint& point, float3& c,
                                                       RestirLightGeometry& g) {
    if (!restir_point_geometry(point, s.p, g)) return false;
    const Material material = restir_material(scene, s);
    const float3 f =
        bsdf_eval(material, s.base_color, to_local(s.frame, s.wo), to_local(s.frame, g.wi)) * s.opacity;
    c = f * g.le_g;
    return max_element(c) > 0.0f && is_finite3(c);
}

// target: p̂ at s (its target function of the unshadowed contribution).
__device__ __forceinline__ float restir_target(const DeviceScene& scene, const RestirShading& s,
                                               const RestirLightPoint& y) {
    float3 c;
    RestirLightGeometry g;
    return restir_contribution_at(scene, s, y, c, g) ? restir_target_value(s.target, c) : 0.0f;
}

// visible: nothing between s and the light point.
__device__ __forceinline__ bool restir_visible(const DeviceScene& scene, const RestirShading& s,
                                               const RestirLightGeometry& g) {
    const float3 origin = offset_ray_origin(s.p, s.ng, g.wi);
    const float3 target = s.p + g.wi * g.distance;
    const float3 to = target - origin;
    const float d = length(to);
    return !scene_occluded(scene, make_segment(origin, to / d, __fmul_rn(d, __fsub_rn(1.0f, 1e-4f))));
}

// sees: p̂ > 0 and unoccluded; a shadow ray (counted in `rays`) only where p̂ > 0.
__device__ __forceinline__ bool restir_sees(const DeviceScene& scene, const RestirShading& s,
                                            const RestirLightPoint& y, unsigned int& rays) {
    float3 c;
    RestirLightGeometry g;
    if (!restir_contribution_at(scene, s, y, c, g)) return false;
    ++rays;
    return restir_visible(scene, s, g);
}

// finalize: W = w_sum / (normaliser · p̂(y)), with `p` = p̂(y) of the chosen sample at the
// pixel (known from its resampling, so not evaluated again).
__device__ __forceinline__ void restir_finalize(Reservoir& r, float p, float normaliser) {
    r.w = (r.light != RESTIR_NO_LIGHT && p > 0.0f && normaliser > 0.0f)
              ? __fdiv_rn(r.w_sum, __fmul_rn(normaliser, p))
              : 0.0f;
}

// similar: normals within 25°, depths within 10%, roughnesses within `roughness_threshold`.
// restir/similarity.rs similar_at: `s` at `depth` from the camera that saw `n`.
__device__ __forceinline__ bool restir_similar_at(const RestirShading& s, const RestirShading& n, float depth,
                                                  float roughness_threshold) {
    return dot(s.frame.n, n.frame.n) >= 0.906f && fabsf(__fsub_rn(n.depth, depth)) <= __fmul_rn(0.1f, depth) &&
           restir_roughness_similar(s.roughness, n.roughness, roughness_threshold);
}

__device__ __forceinline__ bool restir_similar(const RestirShading& s, const RestirShading& n,
                                               float roughness_threshold) {
    return restir_similar_at(s, n, s.depth, roughness_threshold);
}

// restir/bsdf_candidates.rs area_pdf: the BSDF's pdf at `s` of reaching light point `y`, in
// area measure (0 where the BSDF cannot sample the direction).
__device__ __forceinline__ float restir_bsdf_area_pdf(const DeviceScene& scene, const RestirShading& s,
                                                      const RestirLightPoint& y) {
    const float3 to = y.q - s.p;
    const float d2 = length_squared(to);
    if (!(d2 > 0.0f)) return 0.0f;
    const float3 wi = to / __fsqrt_rn(d2);
    const float cos_y = fabsf(dot(y.n, -wi));
    const Material material = restir_material(scene, s);
    const float pdf = bsdf_pdf(material, s.base_color, to_local(s.frame, s.wo), to_local(s.frame, wi));
    return pdf > 0.0f && isfinite(pdf) ? restir_area_pdf(pdf, cos_y, d2) : 0.0f;
}

// restir/bsdf_candidates.rs sample: a direction drawn from the BSDF at `s` with the random
// numbers (lobe, direction), traced to the closest surface (one ray, counted in `rays`); true
// with `y` the hit's light point where that surface is an emissive triangle.
__device__ __forceinline__ bool restir_bsdf_candidate(const DeviceScene& scene, const RestirShading& s, float u_lobe,
                                                      float u1, float u2, unsigned int& rays, RestirLightPoint& y) {
    const Material material = restir_material(scene, s);
    BsdfSample sample;
    if (!bsdf_sample(material, s.base_color, to_local(s.frame, s.wo), u_lobe, make_float2(u1, u2), sample)) {
        return false;
    }
    if (sample.delta || !(sample.pdf > 0.0f)) return false;
    const float3 wi = to_world(s.frame, sample.wi);
    ++rays;
    SurfaceIntersection hit;
    if (!scene_intersect_closest(scene, make_ray(offset_ray_origin(s.p, s.ng, wi), wi), hit)) return false;
    if (hit.prim >= scene.params->triangle_count) return false;
    const int light = scene.triangle_to_light[hit.prim];
    if (light < 0) return false;
    // The hit's barycentrics are those of the light's edges e1 = v1 − v0, e2 = v2 − v0.
    y = restir_light_point(scene, (unsigned int)light, hit.u, hit.v);
    return true;
}

// Reprojection::pixel (warpath-core restir.rs), operation for operation: the pixel of the
// previous camera's image that saw `p`, and p's distance from that camera; false behind the
// camera or outside the image.
__device__ __forceinline__ bool restir_reproject(const RestirArgs& a, float3 p, unsigned int& pixel,
                                                 float& distance) {
    const float* m = a.prev_to_camera;
    float c[3];
#pragma unroll
    for (int r = 0; r < 3; ++r) {
        c[r] = __fadd_rn(
            __fadd_rn(__fadd_rn(__fmul_rn(m[4 * r], p.x), __fmul_rn(m[4 * r + 1], p.y)), __fmul_rn(m[4 * r + 2], p.z)),
            m[4 * r + 3]);
    }
    if (!(c[2] > 0.0f)) return false;
    const unsigned int w = a.scene.params->width, h = a.scene.params->height;
    const float fw = (float)w, fh = (float)h;
    const float fx =
        __fmul_rn(__fmul_rn(__fsub_rn(1.0f, __fdiv_rn(c[0], __fmul_rn(c[2], a.prev_tan_half_fov[0]))), 0.5f), fw);
    const float fy =
        __fmul_rn(__fmul_rn(__fsub_rn(1.0f, __fdiv_rn(c[1], __fmul_rn(c[2], a.prev_tan_half_fov[1]))), 0.5f), fh);
    if (!(fx >= 0.0f && fx < fw && fy >= 0.0f && fy < fh)) return false;
    const unsigned int px = min((unsigned int)fx, w - 1u), py = min((unsigned int)fy, h - 1u);
    const float dx = __fsub_rn(p.x, a.prev_position[0]), dy = __fsub_rn(p.y, a.prev_position[1]),
                dz = __fsub_rn(p.z, a.prev_position[2]);
    distance = __fsqrt_rn(__fadd_rn(__fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)), __fmul_rn(dz, dz)));
    pixel = py * w + px;
    return true;
}

// The combining half of `combine` shared by the temporal and spatial passes: stream reservoir
// `r` (weight p̂_q(y)·W·M, selection number `u`) into `out`; `chosen_target` keeps p̂_q of
// the sample `out` holds. Returns whether `out` now holds r's sample: the input chosen so far,
// whose surface is known to see it (restir.rs sees_chosen: no shadow ray is traced for it).
// restir.rs reused_target: p̂_q(y), times V_q(y) when `visibility` (a reused input under
// visibility-aware reuse): a shadow ray wherever the resampling weight would be > 0.
__device__ __forceinline__ float restir_reused_target(const DeviceScene& scene, const RestirShading& q,
                                                      const Reservoir& r, const RestirLightPoint& y,
                                                      bool visibility, unsigned int& rays) {
    float3 c;
    RestirLightGeometry g;
    if (!restir_contribution_at(scene, q, y, c, g)) return 0.0f;
    const float p = restir_target_value(q.target, c);
    if (visibility && p > 0.0f && r.w > 0.0f) {
        ++rays;
        if (!restir_visible(scene, q, g)) return 0.0f;
    }
    return p;
}

// `visibility`: the input is a reused one under visibility-aware reuse (restir_reused_target).
__device__ __forceinline__ bool restir_stream_input(const DeviceScene& scene, const RestirShading& q,
                                                    const Reservoir& r, float u, Reservoir& out, float& m,
                                                    float& chosen_target, unsigned int& rays,
                                                    bool visibility = false) {
    m = __fadd_rn(m, r.m);
    if (r.light != RESTIR_NO_LIGHT) {
        const RestirLightPoint y = restir_sample_point(scene, r);
        const float p = restir_reused_target(scene, q, r, y, visibility, rays);
        if (reservoir_update(out, y, __fmul_rn(__fmul_rn(p, r.w), r.m), u)) {
            chosen_target = p;
            return true;
        }
    }
    return false;
}

// restir.rs combine_pairwise, a reused input: stream `r` (made at surface `ns`; one of k reused
// inputs) into `out` with its pairwise MIS weight m = a/(a + b)/k, a = k·M_r·p̂_ns(y),
// b = M_own·p̂_q(y), and add the pixel's own sample's share c/(c + d) against it to `own_share`
// (c = M_own·p̂_q(y_own), d = k·M_r·p̂_ns(y_own), 0 when ns does not see y_own: one shadow
// ray, or `ns_sees_own` when that is known already: 1 sees, 0 does not, -1 unknown);
// `visibility`: p̂_q(y)·V_q(y) under visibility-aware reuse. The operations are the CPU's, in its
// order.
__device__ __forceinline__ void restir_pairwise_input(const DeviceScene& scene, const RestirShading& q,
                                                      const RestirShading& ns, const Reservoir& r,
                                                      const Reservoir& own, float own_target, float k, float u,
                                                      int ns_sees_own, bool visibility, Reservoir& out,
                                                      float& m, float& chosen_target, float& own_share,
                                                      unsigned int& rays) {
    m = __fadd_rn(m, r.m);
    if (r.light != RESTIR_NO_LIGHT) {
        const RestirLightPoint y = restir_sample_point(scene, r);
        const float p = restir_reused_target(scene, q, r, y, visibility, rays);
        const float a = __fmul_rn(__fmul_rn(k, r.m), restir_target(scene, ns, y));
        const float b = __fmul_rn(own.m, p);
        const float sum = __fadd_rn(a, b);
        const float mis = sum > 0.0f ? __fdiv_rn(__fdiv_rn(a, sum), k) : 0.0f;
        if (reservoir_update(out, y, __fmul_rn(__fmul_rn(mis, p), r.w), u)) chosen_target = p;
    }
    if (own.light != RESTIR_NO_LIGHT) {
        const RestirLightPoint y_own = restir_sample_point(scene, own);
        const float c = __fmul_rn(own.m, own_target);
        float d = __fmul_rn(__fmul_rn(k, r.m), restir_target(scene, ns, y_own));
        // The reused input's technique cannot produce a sample its surface does not see.
        if (d > 0.0f && !(ns_sees_own < 0 ? restir_sees(scene, ns, y_own, rays) : ns_sees_own != 0)) d = 0.0f;
        const float sum = __fadd_rn(c, d);
        own_share = __fadd_rn(own_share, sum > 0.0f ? __fdiv_rn(c, sum) : 0.0f);
    }
}

// restir.rs combine_pairwise, the pixel's own input (streamed last): weight own_share/k, or 1
// when nothing was reused. Returns whether `out` now holds the pixel's own sample.
__device__ __forceinline__ bool restir_pairwise_own(const DeviceScene& scene, const Reservoir& own, float own_target,
                                                    float k, bool reused, float own_share, float u, Reservoir& out,
                                                    float& m, float& chosen_target) {
    m = __fadd_rn(m, own.m);
    if (own.light != RESTIR_NO_LIGHT) {
        const float mis = reused ? __fdiv_rn(own_share, k) : 1.0f;
        if (reservoir_update(out, restir_sample_point(scene, own), __fmul_rn(__fmul_rn(mis, own_target), own.w), u)) {
            chosen_target = own_target;
            return true;
        }
    }
    return false;
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_RESTIR_RESTIR
#include "generated/layout_checks.cuh"
