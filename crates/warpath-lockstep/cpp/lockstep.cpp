// lockstep.cpp — the CUDA estimator headers (crates/warpath-cuda/kernels/common/,
// traversal/, surface/estimator.cuh, volume/medium.cuh, volume/estimator.cuh) compiled as
// host C++ through cuda_host_shim.h, and one "case" per device function under test: a
// function that reads its arguments from a list of 32-bit words and writes its results as
// words. src/cases.rs (with src/det_cases.rs and src/volume_cases.rs) holds the Rust twin of
// every case (same name, same word order), and the tests compare the two outputs word for
// word. Floats travel as their bit patterns, so nothing is rounded on the way.
//
// Every case receives the scene as volume/estimator.cuh's DeviceVolumeScene (the surface
// scene, the media records and grid values, the per-triangle interfaces); the cases of the
// surface scene alone take its DeviceScene through `surface<...>` in the table.
//
// Adding a function: write a case below (read the arguments with `in`, write the results
// with `out`), add it to CASES, and add its twin to src/cases.rs.
//
// build.rs compiles this file three times: WARPATH_LOCKSTEP_VARIANT=reference with the headers
// as they are, WARPATH_LOCKSTEP_VARIANT=mutable with copies of the headers in which every
// rounded operation (__fmul_rn, __fadd_rn, ...) goes through lockstep_mutable_*, which
// moves the result of one chosen operation up by one ulp: the test of the harness itself;
// and WARPATH_LOCKSTEP_VARIANT=basic with WARPATH_MATERIAL_FEATURES=0 (the basic programs).
#include <type_traits>

#include "cuda_host_shim.h"

#if defined(WARPATH_LOCKSTEP_MUTABLE)
// The operation site whose result is moved one ulp up (-1: none). Set through
// warpath_lockstep_mutable_set_mutation; the Rust side holds a lock around its use.
static int lockstep_mutated_site = -1;
static inline float lockstep_mutate(int site, float value) {
    return site == lockstep_mutated_site ? nextafterf(value, INFINITY) : value;
}
static inline float lockstep_mutable_fadd_rn(int site, float a, float b) { return lockstep_mutate(site, a + b); }
static inline float lockstep_mutable_fsub_rn(int site, float a, float b) { return lockstep_mutate(site, a - b); }
static inline float lockstep_mutable_fmul_rn(int site, float a, float b) { return lockstep_mutate(site, a * b); }
static inline float lockstep_mutable_fdiv_rn(int site, float a, float b) { return lockstep_mutate(site, a / b); }
static inline float lockstep_mutable_fsqrt_rn(int site, float a) { return lockstep_mutate(site, sqrtf(a)); }
#endif

#include "common/film.cuh"
#include "restir/target.cuh"
#include "restir/similarity.cuh"
#include "volume/estimator.cuh"

namespace {

// The arguments of one call, as words; reading past the end is recorded, not undefined.
class In {
  public:
    In(const uint32_t* words, size_t count) : words_(words), count_(count) {}
    uint32_t u() {
        if (next_ >= count_) {
            overrun_ = true;
            return 0u;
        }
        return words_[next_++];
    }
    int i() { return (int)u(); }
    float f() { return __uint_as_float(u()); }
    // A double as two words, low then high.
    double d() {
        const uint64_t low = u();
        const uint64_t bits = low | ((uint64_t)u() << 32);
        double value;
        memcpy(&value, &bits, sizeof value);
        return value;
    }
    float2 f2() {
        const float x = f();
        return make_float2(x, f());
    }
    float3 f3() {
        const float x = f(), y = f();
        return make_float3(x, y, f());
    }
    // A #[repr(C)] Pod struct of Rust, word by word.
    template <typename T>
    T pod() {
        static_assert(sizeof(T) % 4 == 0, "whole words");
        uint32_t words[sizeof(T) / 4];
        for (uint32_t& w : words) w = u();
        T value;
        memcpy(&value, words, sizeof(T));
        return value;
    }
    bool read_exactly() const { return !overrun_ && next_ == count_; }

  private:
    const uint32_t* words_;
    size_t count_;
    size_t next_ = 0;
    bool overrun_ = false;
};

// The results of one call, as words.
class Out {
  public:
    Out(uint32_t* words, size_t capacity) : words_(words), capacity_(capacity) {}
    void u(uint32_t value) {
        if (count_ < capacity_) words_[count_] = value;
        count_++;
    }
    void flag(bool value) { u(value ? 1u : 0u); }
    void f(float value) { u(__float_as_uint(value)); }
    void d(double value) {
        uint64_t bits;
        memcpy(&bits, &value, sizeof bits);
        u((uint32_t)bits);
        u((uint32_t)(bits >> 32));
    }
    void f2(float2 v) {
        f(v.x);
        f(v.y);
    }
    void f3(float3 v) {
        f(v.x);
        f(v.y);
        f(v.z);
    }
    size_t count() const { return count_; }

  private:
    uint32_t* words_;
    size_t capacity_;
    size_t count_ = 0;
};

// ---- sampler.cuh ----------------------------------------------------------------------------

void sampler_get(const DeviceScene&, In& in, Out& out) {
    Sampler sampler;
    sampler.kind = in.u();
    sampler.seed = in.u();
    const unsigned int pixel = in.u(), sample = in.u(), bounce = in.u(), dim = in.u();
    out.f(sampler.get(pixel, sample, bounce, dim));
}

// ---- warp.cuh -------------------------------------------------------------------------------

void warp_disk_concentric(const DeviceScene&, In& in, Out& out) { out.f2(square_to_disk_concentric(in.f2())); }
void warp_cosine_hemisphere(const DeviceScene&, In& in, Out& out) { out.f3(square_to_cosine_hemisphere(in.f2())); }
void warp_cosine_hemisphere_pdf(const DeviceScene&, In& in, Out& out) { out.f(cosine_hemisphere_pdf(in.f3())); }
void warp_uniform_sphere(const DeviceScene&, In& in, Out& out) { out.f3(square_to_uniform_sphere(in.f2())); }
void warp_triangle(const DeviceScene&, In& in, Out& out) { out.f2(square_to_triangle(in.f2())); }
void warp_blinn_lobe(const DeviceScene&, In& in, Out& out) {
    const float2 u = in.f2();
    out.f3(square_to_blinn_lobe(u, in.f()));
}
void warp_blinn_lobe_pdf(const DeviceScene&, In& in, Out& out) {
    const float3 v = in.f3();
    out.f(blinn_lobe_pdf(v, in.f()));
}

// ---- math.cuh, ray_triangle.cuh ---------------------------------------------------------------

void math_frame(const DeviceScene&, In& in, Out& out) {
    const float3 n = in.f3(), v = in.f3();
    const Frame frame = frame_from_normal(n);
    out.f3(frame.s);
    out.f3(frame.t);
    out.f3(frame.n);
    out.f3(to_local(frame, v));
    out.f3(to_world(frame, v));
}
void math_offset_ray_origin(const DeviceScene&, In& in, Out& out) {
    const float3 p = in.f3(), ng = in.f3(), dir = in.f3();
    out.f3(offset_ray_origin(p, ng, dir));
}
// The normal map's frame code (common/normal_map.cuh).
void math_normal_map_dp_du(const DeviceScene&, In& in, Out& out) {
    const float3 p0 = in.f3(), p1 = in.f3(), p2 = in.f3();
    const float2 uv0 = in.f2(), uv1 = in.f2(), uv2 = in.f2();
    out.f3(triangle_dp_du(p0, p1, p2, uv0, uv1, uv2));
}
void math_normal_map_perturb(const DeviceScene&, In& in, Out& out) {
    const float3 n = in.f3(), dp_du = in.f3(), texel = in.f3(), wo = in.f3(), wi = in.f3();
    MappedNormal mapped;
    const float3 perturbed = normal_map_perturb(n, dp_du, texel, wo, mapped);
    out.f3(perturbed);
    out.f3(mapped.shading);
    out.f(mapped.alpha2);
    out.f(normal_map_factor(mapped, perturbed, wi));
}
// The bump map's frame code (common/bump_map.cuh).
void math_bump_map_dp_dv(const DeviceScene&, In& in, Out& out) {
    const float3 p0 = in.f3(), p1 = in.f3(), p2 = in.f3();
    const float2 uv0 = in.f2(), uv1 = in.f2(), uv2 = in.f2();
    out.f3(triangle_dp_dv(p0, p1, p2, uv0, uv1, uv2));
}
void math_bump_map_gradient(const DeviceScene&, In& in, Out& out) {
    const float h00 = in.f(), h10 = in.f(), h01 = in.f(), h11 = in.f();
    const float fx = in.f(), fy = in.f();
    const unsigned int w = in.u(), h = in.u();
    out.f2(bump_height_gradient(h00, h10, h01, h11, fx, fy, w, h));
}
void math_bump_map_perturb(const DeviceScene&, In& in, Out& out) {
    const float3 n = in.f3(), ng = in.f3(), dp_du = in.f3(), dp_dv = in.f3();
    const float2 gradient = in.f2();
    const float scale = in.f();
    const float3 wo = in.f3(), wi = in.f3();
    out.f3(bump_map_normal(n, ng, dp_du, dp_dv, gradient, scale));
    MappedNormal mapped;
    const float3 perturbed = bump_map_perturb(n, ng, dp_du, dp_dv, gradient, scale, wo, mapped);
    out.f3(perturbed);
    out.f3(mapped.shading);
    out.f(mapped.alpha2);
    out.f(normal_map_factor(mapped, perturbed, wi));
}
// The opacity mask (common/opacity.cuh).
void math_opacity(const DeviceScene&, In& in, Out& out) {
    Material m{};
    m.opacity = in.f();
    out.f(material_opacity(m, in.f()));
}
void math_mask_choose(const DeviceScene&, In& in, Out& out) {
    const float alpha = in.f(), u = in.f();
    float u_nested = 0.0f;
    const bool nested = mask_choose(alpha, u, u_nested);
    out.u(nested ? 1u : 0u);
    out.f(nested ? u_nested : 0.0f);
}
// The estimator's ray/triangle test, with the edges the host computes for the BVH layout.
void math_intersect_triangle(const DeviceScene&, In& in, Out& out) {
    const float3 o = in.f3(), d = in.f3(), v0 = in.f3(), v1 = in.f3(), v2 = in.f3();
    const float t_min = in.f(), t_max = in.f();
    Ray ray = make_segment(o, d, t_max);
    ray.t_min = t_min;
    const float3 e1 = v1 - v0, e2 = v2 - v0;
    float t = 0.0f, u = 0.0f, v = 0.0f;
    const bool hit = intersect_triangle(prepare_estimator_ray(ray), make_float4(v0.x, v0.y, v0.z, 0.0f),
                                        make_float4(e1.x, e1.y, e1.z, 0.0f), make_float4(e2.x, e2.y, e2.z, 0.0f), t,
                                        u, v);
    out.flag(hit);
    if (!hit) return;
    out.f(t);
    out.f(u);
    out.f(v);
}

// ---- bsdf.cuh -------------------------------------------------------------------------------

void bsdf_fresnel_dielectric(const DeviceScene&, In& in, Out& out) {
    const float cos_theta_i = in.f();
    const FresnelDielectric fr = fresnel_dielectric(cos_theta_i, in.f());
    out.f(fr.reflectance);
    out.f(fr.cos_theta_t);
    out.f(fr.eta_it);
    out.f(fr.eta_ti);
}
void bsdf_rough_plastic_coat(const DeviceScene&, In& in, Out& out) {
    const float roughness = in.f(), eta = in.f(), cos_theta = in.f();
    const bool beckmann = in.u() != 0u;
    RoughPlasticCell cell;
    const bool inside = rough_plastic_coat_cell(roughness, eta, beckmann, cell);
    out.flag(inside);
    if (inside) {
        out.u(cell.p_node);
        out.u(cell.x_node);
        out.u(cell.r_x_node);
        out.f(rough_plastic_coat_transmittance(cell, cos_theta));
        out.f(rough_plastic_coat_internal_reflectance(cell));
    }
}
void bsdf_fresnel_conductor(const DeviceScene&, In& in, Out& out) {
    const float cos_theta = in.f(), eta = in.f(), k = in.f();
    out.f(fresnel_conductor(cos_theta, eta, k));
}
void bsdf_beckmann(const DeviceScene&, In& in, Out& out) {
    const float3 h = in.f3(), v = in.f3();
    const float alpha = in.f();
    out.f(beckmann_d(h, alpha));
    out.f(beckmann_g1(v, alpha));
    out.f(beckmann_g(h, v, alpha));
    out.f(beckmann_pdf(h, alpha));
}
void bsdf_sample_beckmann(const DeviceScene&, In& in, Out& out) {
    const float alpha = in.f();
    out.f3(sample_beckmann(alpha, in.f2()));
}
void bsdf_schlick_fresnel(const DeviceScene&, In& in, Out& out) {
    const float3 f0 = in.f3();
    out.f3(schlick_fresnel(f0, in.f()));
}
void bsdf_blinn_normalization(const DeviceScene&, In& in, Out& out) { out.f(blinn_normalization(in.f())); }
void bsdf_ggx_d(const DeviceScene&, In& in, Out& out) {
    const float3 h = in.f3();
    out.f(ggx_d(h, in.f()));
}
void bsdf_smith(const DeviceScene&, In& in, Out& out) {
    const float3 wo = in.f3(), wi = in.f3();
    const float alpha = in.f();
    out.f(ggx_lambda(wo, alpha));
    out.f(smith_g1(wo, alpha));
    out.f(smith_g2(wo, wi, alpha));
}
void bsdf_sample_ggx_vndf(const DeviceScene&, In& in, Out& out) {
    const float3 wo = in.f3();
    const float alpha = in.f();
    out.f3(sample_ggx_vndf(wo, alpha, in.f2()));
}
void bsdf_ggx_vndf_pdf(const DeviceScene&, In& in, Out& out) {
    const float3 wo = in.f3(), h = in.f3();
    out.f(ggx_vndf_pdf(wo, h, in.f()));
}
void bsdf_reflect_refract(const DeviceScene&, In& in, Out& out) {
    const float3 w = in.f3(), h = in.f3();
    const float cos_theta_t = in.f(), eta_ti = in.f();
    out.f3(reflect_z(w));
    out.f3(reflect(w, h));
    out.f3(refract(w, h, cos_theta_t, eta_ti));
}
void bsdf_material_class(const DeviceScene&, In& in, Out& out) {
    const Material m = in.pod<Material>();
    out.u(material_kind(m));
    out.flag(is_transmissive(m));
    out.flag(is_purely_specular(m));
}
void bsdf_eval_case(const DeviceScene&, In& in, Out& out) {
    const Material m = in.pod<Material>();
    const float3 base_color = in.f3(), wo = in.f3(), wi = in.f3();
    out.f3(bsdf_eval(m, base_color, wo, wi));
}
void bsdf_pdf_case(const DeviceScene&, In& in, Out& out) {
    const Material m = in.pod<Material>();
    const float3 base_color = in.f3(), wo = in.f3(), wi = in.f3();
    out.f(bsdf_pdf(m, base_color, wo, wi));
}
void bsdf_sample_case(const DeviceScene&, In& in, Out& out) {
    const Material m = in.pod<Material>();
    const float3 base_color = in.f3(), wo = in.f3();
    const float u_lobe = in.f();
    const float2 u = in.f2();
    BsdfSample s;
    const bool ok = bsdf_sample(m, base_color, wo, u_lobe, u, s);
    out.flag(ok);
    if (!ok) return;
    out.f3(s.wi);
    out.f3(s.weight);
    out.f(s.pdf);
    out.flag(s.delta);
}

// ---- lights.cuh (against the scene's lights) ----------------------------------------------------

void light_selection(const DeviceScene& scene, In& in, Out& out) {
    const float u = in.f();
    const unsigned int count = scene.params->selection_count;
    const unsigned int bin = find_bin(scene.light_cdf, count, u);
    out.u(bin);
    out.f(discrete_pdf(scene.light_cdf, count, bin));
}
void light_sample(const DeviceScene& scene, In& in, Out& out) {
    const float3 p = in.f3();
    const float u_select = in.f();
    const float2 u = in.f2();
    LightSample ls;
    const bool ok = sample_light(scene, p, u_select, u, ls);
    out.flag(ok);
    if (!ok) return;
    out.f3(ls.wi);
    out.f(ls.distance);
    out.f3(ls.radiance);
    out.f(ls.pdf);
    out.flag(ls.delta);
}
void delta_light_case(const DeviceScene&, In& in, Out& out) {
    const DeltaLight light = in.pod<DeltaLight>();
    const float3 p = in.f3();
    const float3 w = in.f3();
    out.f(delta_light_falloff(light, w));
    float3 wi, radiance;
    float distance;
    const bool lit = delta_light_illuminate(light, p, wi, distance, radiance);
    out.flag(lit);
    if (!lit) return;
    out.f3(wi);
    out.f(distance);
    out.f3(radiance);
}
void light_pdf_triangle(const DeviceScene& scene, In& in, Out& out) {
    const int light = in.i();
    const float3 wi = in.f3();
    out.f(pdf_triangle(scene, light, wi, in.f()));
}
void light_pdf_environment(const DeviceScene& scene, In& in, Out& out) { out.f(pdf_environment(scene, in.f3())); }
void light_environment_radiance(const DeviceScene& scene, In& in, Out& out) {
    out.f3(environment_radiance(scene, in.f3()));
}
void env_direction_to_uv(const DeviceScene& scene, In& in, Out& out) {
    out.f2(direction_to_uv(*scene.params, in.f3()));
}
void env_patch_case(const DeviceScene& scene, In& in, Out& out) {
    const EnvPatch p = env_patch(*scene.params, in.f2());
    out.u(p.column);
    out.u(p.next_column);
    out.u(p.row);
    out.f(p.fx);
    out.f(p.fy);
}
// One texel as the device reads it from the uploaded array (RGB and the sampling weight).
void env_texel_case(const DeviceScene& scene, In& in, Out& out) {
    const unsigned int column = in.u(), row = in.u();
    const float4 t = env_texel(scene, column, row);
    out.f(t.x);
    out.f(t.y);
    out.f(t.z);
    out.f(t.w);
}
void env_sample_cell_case(const DeviceScene& scene, In& in, Out& out) {
    unsigned int column, row;
    float2 remapped;
    float cell_pdf;
    env_sample_cell(scene, in.f2(), column, row, remapped, cell_pdf);
    out.u(column);
    out.u(row);
    out.f2(remapped);
    out.f(cell_pdf);
}
void env_cell_pdf_case(const DeviceScene& scene, In& in, Out& out) {
    const unsigned int column = in.u();
    out.f(env_cell_pdf(scene, column, in.u()));
}
void env_sample_linear(const DeviceScene&, In& in, Out& out) {
    const float u = in.f(), a = in.f();
    out.f(sample_linear(u, a, in.f()));
}
void env_sample(const DeviceScene& scene, In& in, Out& out) {
    float3 wi;
    float pdf;
    const bool ok = env_map_sample(scene, in.f2(), wi, pdf);
    out.flag(ok);
    if (!ok) return;
    out.f3(wi);
    out.f(pdf);
}
void env_pdf(const DeviceScene& scene, In& in, Out& out) { out.f(env_map_pdf(scene, in.f3())); }
void env_radiance(const DeviceScene& scene, In& in, Out& out) { out.f3(env_map_radiance(scene, in.f3())); }
void texture_lookup(const DeviceScene& scene, In& in, Out& out) {
    const unsigned int texture = in.u();
    out.f3(texture_sample(scene, texture, in.f2()));
}

// ---- camera.cuh -------------------------------------------------------------------------------

void camera_generate_ray(const DeviceScene& scene, In& in, Out& out) {
    const GpuSceneParams& params = *scene.params;
    const float2 film = in.f2(), lens = in.f2();
    const Ray ray = generate_ray(params.camera, film, params.width, params.height, lens);
    out.f3(ray.o);
    out.f3(ray.d);
    out.f(ray.t_min);
    out.f(ray.t_max);
}

// ---- film.cuh ---------------------------------------------------------------------------------

// One pixel's pass buffers merged into the render's double sums (Film::add_pass on the CPU).
void film_merge(const DeviceScene&, In& in, Out& out) {
    double sum[3], sum_sq[3];
    float pass_sum[3], pass_sum_sq[3];
    for (double& v : sum) v = in.d();
    for (double& v : sum_sq) v = in.d();
    for (float& v : pass_sum) v = in.f();
    for (float& v : pass_sum_sq) v = in.f();
    unsigned int count = in.u(), pass_count = in.u();
    film_merge_pixel(0u, pass_sum, pass_sum_sq, &pass_count, sum, sum_sq, &count);
    for (double v : sum) out.d(v);
    for (double v : sum_sq) out.d(v);
    out.u(count);
    // The pass buffers are zeroed for the next pass.
    for (float v : pass_sum) out.f(v);
    for (float v : pass_sum_sq) out.f(v);
    out.u(pass_count);
}

// ---- restir/target.cuh ----------------------------------------------------------------------

void restir_target_case(const DeviceScene&, In& in, Out& out) {
    const unsigned int kind = in.u();
    out.f(restir_target_value(kind, in.f3()));
}

// ---- restir/similarity.cuh ------------------------------------------------------------------

void restir_material_roughness_case(const DeviceScene&, In& in, Out& out) {
    out.f(restir_material_roughness(in.pod<Material>()));
}

void restir_similarity_math_case(const DeviceScene&, In& in, Out& out) {
    const float a = in.f(), b = in.f(), threshold = in.f();
    out.flag(restir_roughness_similar(a, b, threshold));
    const float pdf = in.f(), cos_y = in.f(), d2 = in.f();
    out.f(restir_area_pdf(pdf, cos_y, d2));
    const unsigned int light_candidates = in.u();
    const float light_pdf = in.f();
    const unsigned int bsdf_candidates = in.u();
    out.f(restir_mis_source(light_candidates, light_pdf, bsdf_candidates, in.f()));
}

// ---- detmath.cuh ----------------------------------------------------------------------------

void det_sin_cos_case(const DeviceScene&, In& in, Out& out) {
    float s, c;
    det_sin_cos(in.f(), s, c);
    out.f(s);
    out.f(c);
}
void det_atan2_case(const DeviceScene&, In& in, Out& out) {
    const float y = in.f();
    out.f(det_atan2(y, in.f()));
}
void det_acos_case(const DeviceScene&, In& in, Out& out) { out.f(det_acos(in.f())); }
void det_exp_case(const DeviceScene&, In& in, Out& out) { out.f(det_exp(in.f())); }
void det_exp2_case(const DeviceScene&, In& in, Out& out) { out.f(det_exp2(in.f())); }
void det_ln_case(const DeviceScene&, In& in, Out& out) { out.f(det_ln(in.f())); }
void det_pow_case(const DeviceScene&, In& in, Out& out) {
    const float x = in.f();
    out.f(det_pow(x, in.f()));
}

// ---- volume/medium.cuh ---------------------------------------------------------------------------

// A grid given in the arguments (resolution, channels, values), one channel read at a point,
// with the corners and weights of each axis.
void volume_grid_lookup(const DeviceScene&, In& in, Out& out) {
    unsigned int resolution[3];
    for (unsigned int& n : resolution) n = in.u();
    const unsigned int channels = in.u();
    const size_t count = (size_t)resolution[0] * resolution[1] * resolution[2] * channels;
    float data[4096];
    if (count > sizeof data / sizeof data[0]) return;  // the drawer keeps grids smaller
    for (size_t i = 0; i < count; ++i) data[i] = in.f();
    const float3 p = in.f3();
    const unsigned int channel = in.u();
    const float coordinates[3] = {p.x, p.y, p.z};
    for (int axis = 0; axis < 3; ++axis) {
        unsigned int lower, upper;
        float fraction;
        axis_corners(coordinates[axis], resolution[axis], lower, upper, fraction);
        out.u(lower);
        out.u(upper);
        out.f(fraction);
    }
    out.f(grid_lookup(data, resolution, channels, p, channel));
}
void volume_hg_eval(const DeviceScene&, In& in, Out& out) {
    const float g = in.f();
    out.f(hg_eval(g, in.f()));
}
void volume_hg_sample(const DeviceScene&, In& in, Out& out) {
    const float g = in.f();
    const float3 direction = in.f3();
    const float2 u = in.f2();
    out.f(hg_sample_cos(g, u.x));
    float pdf;
    out.f3(hg_sample(g, direction, u, pdf));
    out.f(pdf);
}
// TrackingRng: the first `count` numbers of a stream and the counter after them.
void volume_tracking_rng(const DeviceScene&, In& in, Out& out) {
    const unsigned int seed = in.u(), pixel = in.u(), sample = in.u(), bounce = in.u(), stream = in.u();
    const unsigned int count = in.u();
    TrackingRng rng = tracking_rng(seed, pixel, sample, bounce, stream);
    for (unsigned int i = 0; i < count; ++i) out.f(rng.next());
    out.u(rng.counter);
}
void volume_affine(const DeviceScene&, In& in, Out& out) {
    float m[12];
    for (float& v : m) v = in.f();
    const float3 p = in.f3();
    out.f3(affine_point(m, p));
    out.f3(affine_vector(m, in.f3()));
}
void volume_clip(const DeviceScene&, In& in, Out& out) {
    const float3 o = in.f3(), d = in.f3();
    float t0, t1;
    const bool inside = clip_to_unit_cube(o, d, in.f(), t0, t1);
    out.flag(inside);
    if (!inside) return;
    out.f(t0);
    out.f(t1);
}
// A whole MajorantWalk: the first cell and its end, then per advance the flag, the cell and
// its end (at most 256 advances, as the Rust twin).
void volume_majorant_walk(const DeviceScene&, In& in, Out& out) {
    const float3 o = in.f3(), d = in.f3();
    const float t0 = in.f(), t1 = in.f();
    unsigned int resolution[3];
    for (unsigned int& n : resolution) n = in.u();
    MajorantWalk walk;
    walk.init(o, d, t0, t1, resolution);
    auto write_cell = [&] {
        for (int c : walk.cell) out.u((uint32_t)c);
        out.f(walk.cell_end());
    };
    out.f(walk.t_end);
    write_cell();
    for (int i = 0; i < 256; ++i) {
        const bool moved = walk.advance(resolution);
        out.flag(moved);
        if (!moved) break;
        write_cell();
    }
}
void write_tracking(Out& out, const TrackingRng& rng, const TrackingCounts& counts) {
    out.u(rng.counter);
    out.u(counts.steps);
    out.u(counts.density_lookups);
    out.u(counts.albedo_lookups);
}
// A free flight through medium `index` of the scene (sample_free_flight).
void volume_free_flight(const DeviceVolumeScene& scene, In& in, Out& out) {
    const unsigned int index = in.u();
    const float3 o = in.f3(), d = in.f3();
    const float t_max = in.f();
    const unsigned int seed = in.u(), pixel = in.u(), sample = in.u(), bounce = in.u(), stream = in.u();
    if (index >= scene.medium_count) return;
    TrackingRng rng = tracking_rng(seed, pixel, sample, bounce, stream);
    TrackingCounts counts = {0u, 0u, 0u};
    float t = 0.0f;
    float3 weight;
    const bool scatters = sample_free_flight(scene.media[index], scene.grid_data, o, d, t_max, rng, counts, t, weight);
    out.flag(scatters);
    if (scatters) out.f(t);
    out.f3(weight);
    if (scatters) out.f3(medium_albedo_along(scene.media[index], scene.grid_data, o, d, t, counts));
    write_tracking(out, rng, counts);
}
// The transmittance of medium `index` along a segment (ratio tracking).
void volume_transmittance(const DeviceVolumeScene& scene, In& in, Out& out) {
    const unsigned int index = in.u();
    const float3 o = in.f3(), d = in.f3();
    const float t_max = in.f();
    const unsigned int seed = in.u(), pixel = in.u(), sample = in.u(), bounce = in.u(), stream = in.u();
    if (index >= scene.medium_count) return;
    TrackingRng rng = tracking_rng(seed, pixel, sample, bounce, stream);
    TrackingCounts counts = {0u, 0u, 0u};
    out.f3(medium_transmittance(scene.media[index], scene.grid_data, o, d, t_max, rng, counts));
    write_tracking(out, rng, counts);
}

// ---- volume/estimator.cuh ------------------------------------------------------------------------

// A shadow ray through the scene's media and null boundaries (shadow_transmittance).
void volume_shadow_transmittance(const DeviceVolumeScene& scene, In& in, Out& out) {
    const float3 origin = in.f3(), d = in.f3();
    const float t_max = in.f();
    const unsigned int medium = in.u();
    const unsigned int seed = in.u(), pixel = in.u(), sample = in.u(), bounce = in.u(), stream = in.u();
    const VolumeContext ctx = VolumeEstimator::context(scene, nullptr);
    TrackingRng rng = tracking_rng(seed, pixel, sample, bounce, stream);
    TrackingCounts counts = {0u, 0u, 0u};
    out.f3(shadow_transmittance(ctx, origin, d, t_max, medium, rng, counts));
    write_tracking(out, rng, counts);
}

// One volumetric path of (pixel, sample) through volume_generate and volume_extend, kept in
// the stored form between steps as the wavefront schedules keep it: after generate and after
// every extend the path state and the running counters (extension rays, shadow rays,
// tracking steps, density and albedo lookups); then the paths entering extend per bounce.
// E = VolumeEstimatorDeferred (volume_path_deferred): its extends end half a step from the
// immediate estimator's (at a collision, not after the vertex), so only the final state and
// the counters are written, which must be the immediate estimator's.
template <class E>
void volume_path_of(const DeviceVolumeScene& scene, In& in, Out& out) {
    const unsigned int pixel = in.u(), sample = in.u();
    const unsigned int slots = scene.counter_slots;
    if (slots == 0u || slots > 1024u) return;
    unsigned long long counters[2 + 3 * 1024 + 3] = {};
    const VolumeContext ctx = E::context(scene, counters);
    const unsigned int tracking = COUNTER_ACTIVE_BASE + 3u * slots;
    VolumePath path = E::generate(ctx, pixel, sample);
    auto write_state = [&](bool goes_on) {
        out.flag(goes_on);
        out.f3(path.ray.o);
        out.f3(path.ray.d);
        out.f3(path.throughput);
        out.f3(path.radiance);
        out.u(path.bounce);
        out.f(path.last_pdf);
        out.flag(path.last_delta);
        out.u(path.medium);
        out.u((uint32_t)counters[COUNTER_EXTENSION_RAYS]);
        out.u((uint32_t)counters[COUNTER_SHADOW_RAYS]);
        for (unsigned int i = 0; i < 3u; ++i) out.u((uint32_t)counters[tracking + i]);
    };
    constexpr bool every_step = std::is_same<E, VolumeEstimator>::value;
    if (every_step) write_state(true);
    bool goes_on = true;
    while (goes_on) {
        StoredPath slot;
        E::store(&slot, path);
        path = E::load(&slot);
        goes_on = E::extend(ctx, path);
        if (every_step || !goes_on) write_state(goes_on);
    }
    for (unsigned int b = 0; b < slots; ++b) out.u((uint32_t)counters[COUNTER_ACTIVE_BASE + b]);
}
void volume_path(const DeviceVolumeScene& scene, In& in, Out& out) { volume_path_of<VolumeEstimator>(scene, in, out); }
void volume_path_deferred(const DeviceVolumeScene& scene, In& in, Out& out) {
    volume_path_of<VolumeEstimatorDeferred>(scene, in, out);
}

// ---- surface/estimator.cuh: whole paths -----------------------------------------------------

// One path of (pixel, sample) through generate and extend, as a schedule runs it: the path
// state after generate and after every extend, then the counters of the instrumented
// extend (extension rays, shadow rays, paths per bounce 0..=max_depth).
void surface_path(const DeviceScene& scene, In& in, Out& out) {
    const unsigned int pixel = in.u(), sample = in.u();
    const unsigned int max_depth = scene.params->max_depth;
    unsigned long long counters[2 + 3 * 64] = {};
    if (max_depth >= 64) return;  // the Rust side refuses such scenes
    const EstimatorContext ctx = SurfaceEstimator::context(scene, counters);
    PathState path = SurfaceEstimator::generate(ctx, pixel, sample);
    auto write_state = [&](bool goes_on) {
        out.flag(goes_on);
        out.f3(path.ray.o);
        out.f3(path.ray.d);
        out.f3(path.throughput);
        out.f3(path.radiance);
        out.u(path.bounce);
        out.f(path.last_bsdf_pdf);
        out.flag(path.last_delta);
    };
    write_state(true);
    bool goes_on = true;
    while (goes_on) {
        // Through the stored form between bounces, as the wavefront schedules keep paths.
        StoredPath slot;
        SurfaceEstimator::store(&slot, path);
        path = SurfaceEstimator::load(&slot);
        goes_on = SurfaceEstimator::extend(ctx, path);
        write_state(goes_on);
    }
    out.u((uint32_t)counters[COUNTER_EXTENSION_RAYS]);
    out.u((uint32_t)counters[COUNTER_SHADOW_RAYS]);
    for (unsigned int b = 0; b <= max_depth; ++b) out.u((uint32_t)counters[COUNTER_ACTIVE_BASE + b]);
}

using CaseFunction = void (*)(const DeviceVolumeScene& scene, In& in, Out& out);
struct Case {
    const char* name;
    CaseFunction run;
};

// A case of the surface scene alone (every case but the media's).
template <void (*F)(const DeviceScene&, In&, Out&)>
void surface(const DeviceVolumeScene& scene, In& in, Out& out) {
    F(scene.surface, in, out);
}

// Every case, by the name its Rust twin has in src/cases.rs.
const Case CASES[] = {
    {"sampler_get", surface<sampler_get>},
    {"warp_disk_concentric", surface<warp_disk_concentric>},
    {"warp_cosine_hemisphere", surface<warp_cosine_hemisphere>},
    {"warp_cosine_hemisphere_pdf", surface<warp_cosine_hemisphere_pdf>},
    {"warp_uniform_sphere", surface<warp_uniform_sphere>},
    {"warp_triangle", surface<warp_triangle>},
    {"warp_blinn_lobe", surface<warp_blinn_lobe>},
    {"warp_blinn_lobe_pdf", surface<warp_blinn_lobe_pdf>},
    {"math_frame", surface<math_frame>},
    {"math_offset_ray_origin", surface<math_offset_ray_origin>},
    {"math_intersect_triangle", surface<math_intersect_triangle>},
    {"math_normal_map_dp_du", surface<math_normal_map_dp_du>},
    {"math_normal_map_perturb", surface<math_normal_map_perturb>},
    {"math_bump_map_dp_dv", surface<math_bump_map_dp_dv>},
    {"math_bump_map_gradient", surface<math_bump_map_gradient>},
    {"math_bump_map_perturb", surface<math_bump_map_perturb>},
    {"math_opacity", surface<math_opacity>},
    {"math_mask_choose", surface<math_mask_choose>},
    {"bsdf_fresnel_dielectric", surface<bsdf_fresnel_dielectric>},
    {"bsdf_rough_plastic_coat", surface<bsdf_rough_plastic_coat>},
    {"bsdf_fresnel_conductor", surface<bsdf_fresnel_conductor>},
    {"bsdf_beckmann", surface<bsdf_beckmann>},
    {"bsdf_sample_beckmann", surface<bsdf_sample_beckmann>},
    {"bsdf_schlick_fresnel", surface<bsdf_schlick_fresnel>},
    {"bsdf_blinn_normalization", surface<bsdf_blinn_normalization>},
    {"bsdf_ggx_d", surface<bsdf_ggx_d>},
    {"bsdf_smith", surface<bsdf_smith>},
    {"bsdf_sample_ggx_vndf", surface<bsdf_sample_ggx_vndf>},
    {"bsdf_ggx_vndf_pdf", surface<bsdf_ggx_vndf_pdf>},
    {"bsdf_reflect_refract", surface<bsdf_reflect_refract>},
    {"bsdf_material_class", surface<bsdf_material_class>},
    {"bsdf_eval", surface<bsdf_eval_case>},
    {"bsdf_pdf", surface<bsdf_pdf_case>},
    {"bsdf_sample", surface<bsdf_sample_case>},
    {"light_delta", surface<delta_light_case>},
    {"light_selection", surface<light_selection>},
    {"light_sample", surface<light_sample>},
    {"light_pdf_triangle", surface<light_pdf_triangle>},
    {"light_pdf_environment", surface<light_pdf_environment>},
    {"light_environment_radiance", surface<light_environment_radiance>},
    {"env_direction_to_uv", surface<env_direction_to_uv>},
    {"env_patch", surface<env_patch_case>},
    {"env_texel", surface<env_texel_case>},
    {"env_sample_cell", surface<env_sample_cell_case>},
    {"env_cell_pdf", surface<env_cell_pdf_case>},
    {"env_sample_linear", surface<env_sample_linear>},
    {"env_sample", surface<env_sample>},
    {"env_pdf", surface<env_pdf>},
    {"env_radiance", surface<env_radiance>},
    {"texture_sample", surface<texture_lookup>},
    {"camera_generate_ray", surface<camera_generate_ray>},
    {"film_merge", surface<film_merge>},
    {"restir_target", surface<restir_target_case>},
    {"restir_material_roughness", surface<restir_material_roughness_case>},
    {"restir_similarity_math", surface<restir_similarity_math_case>},
    {"det_sin_cos", surface<det_sin_cos_case>},
    {"det_atan2", surface<det_atan2_case>},
    {"det_acos", surface<det_acos_case>},
    {"det_exp", surface<det_exp_case>},
    {"det_exp2", surface<det_exp2_case>},
    {"det_ln", surface<det_ln_case>},
    {"det_pow", surface<det_pow_case>},
    {"surface_path", surface<surface_path>},
    {"volume_grid_lookup", surface<volume_grid_lookup>},
    {"volume_hg_eval", surface<volume_hg_eval>},
    {"volume_hg_sample", surface<volume_hg_sample>},
    {"volume_tracking_rng", surface<volume_tracking_rng>},
    {"volume_affine", surface<volume_affine>},
    {"volume_clip", surface<volume_clip>},
    {"volume_majorant_walk", surface<volume_majorant_walk>},
    {"volume_free_flight", volume_free_flight},
    {"volume_transmittance", volume_transmittance},
    {"volume_shadow_transmittance", volume_shadow_transmittance},
    {"volume_path", volume_path},
    {"volume_path_deferred", volume_path_deferred},
};
constexpr size_t CASE_COUNT = sizeof(CASES) / sizeof(CASES[0]);

}  // namespace

// warpath_lockstep_<variant>_<name>: both variants link into one Rust library.
#define LOCKSTEP_PASTE3(a, b, c) a##b##c
#define LOCKSTEP_EXPAND3(a, b, c) LOCKSTEP_PASTE3(a, b, c)
#define LOCKSTEP_EXPORT(name) LOCKSTEP_EXPAND3(warpath_lockstep_, WARPATH_LOCKSTEP_VARIANT, _##name)

extern "C" {

size_t LOCKSTEP_EXPORT(case_count)() { return CASE_COUNT; }

const char* LOCKSTEP_EXPORT(case_name)(size_t index) { return index < CASE_COUNT ? CASES[index].name : nullptr; }

// Runs case `index` once: returns the number of words written (at most `out_capacity` are
// stored), -1 for an unknown case, -2 when the case did not read exactly `in_count` words.
long long LOCKSTEP_EXPORT(run)(size_t index, const DeviceVolumeScene* scene, const uint32_t* in_words, size_t in_count,
                               uint32_t* out_words, size_t out_capacity) {
    if (index >= CASE_COUNT) return -1;
    In in(in_words, in_count);
    Out out(out_words, out_capacity);
    CASES[index].run(*scene, in, out);
    if (!in.read_exactly()) return -2;
    return (long long)out.count();
}

#if defined(WARPATH_LOCKSTEP_MUTABLE)
void LOCKSTEP_EXPORT(set_mutation)(int site) { lockstep_mutated_site = site; }
#endif
}
