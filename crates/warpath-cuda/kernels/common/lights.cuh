// common/lights.cuh — warpath_core::light::LightSet and warpath_core::distribution on
// the device: light selection by the uploaded CDF over [triangle lights..., environment],
// uniform points on the chosen triangle, and the environment (a constant, or an
// equirectangular map importance-sampled with its flattened Distribution2D:
// env_conditional_cdf holds height rows of width + 1 values, env_marginal_cdf the
// height + 1 values of the marginal over rows). Every pdf includes the selection
// probability, as on the CPU. Also Texture::sample (bilinear, repeat) of warpath_scene.
#pragma once
#include "common/scene.cuh"
#include "common/warp.cuh"

// ---- Distribution1D / Distribution2D ---------------------------------------------------------

// First bin i of cdf (count + 1 values) with cdf[i] <= u < cdf[i+1], skipping empty bins
// (distribution.rs's find_bin: partition_point of `c <= u`, minus one, clamped).
__device__ __forceinline__ unsigned int find_bin(const float* __restrict__ cdf, unsigned int count, float u) {
    // partition_point over count + 1 sorted values: first index whose value is > u.
    unsigned int lo = 0u, hi = count + 1u;
    while (lo < hi) {
        const unsigned int mid = lo + (hi - lo) / 2u;
        if (cdf[mid] <= u) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    const unsigned int bin = lo > 0u ? lo - 1u : 0u;
    const unsigned int last = count > 0u ? count - 1u : 0u;
    return bin < last ? bin : last;
}

__device__ __forceinline__ float discrete_pdf(const float* __restrict__ cdf, unsigned int count, unsigned int i) {
    if (i >= count) return 0.0f;
    return __fsub_rn(cdf[i + 1], cdf[i]);
}

// Distribution1D::sample_continuous: x in [0, 1) with density func/mean; returns x.
__device__ __forceinline__ float sample_continuous_1d(const float* __restrict__ cdf, unsigned int count, float u,
                                                      float& pdf, unsigned int& bin) {
    const unsigned int i = find_bin(cdf, count, u);
    const float p = discrete_pdf(cdf, count, i);
    const float du = p > 0.0f ? clampf(__fdiv_rn(__fsub_rn(u, cdf[i]), p), 0.0f, 1.0f) : 0.5f;
    const float x = fminf(__fdiv_rn(__fadd_rn((float)i, du), (float)count), WARPATH_ONE_MINUS_EPSILON);
    pdf = __fmul_rn(p, (float)count);
    bin = i;
    return x;
}

// Distribution2D::cell: the (column, row) of uv, clamped into the grid.
__device__ __forceinline__ void env_cell(const GpuSceneParams& params, float2 uv, unsigned int& column,
                                         unsigned int& row) {
    const float fx = fmaxf(__fmul_rn(uv.x, (float)params.env_width), 0.0f);
    const float fy = fmaxf(__fmul_rn(uv.y, (float)params.env_height), 0.0f);
    column = min((unsigned int)fx, params.env_width - 1u);
    row = min((unsigned int)fy, params.env_height - 1u);
}

// Distribution2D::sample_continuous: a point of [0,1)² and its density.
__device__ __forceinline__ float2 env_distribution_sample(const DeviceScene& scene, float2 u, float& pdf) {
    const GpuSceneParams& params = *scene.params;
    float pdf_v;
    unsigned int row;
    const float v = sample_continuous_1d(scene.env_marginal_cdf, params.env_height, u.y, pdf_v, row);
    const float* cdf = scene.env_conditional_cdf + (size_t)row * (params.env_width + 1u);
    const unsigned int column = find_bin(cdf, params.env_width, u.x);
    const float p = __fsub_rn(cdf[column + 1], cdf[column]);
    const float du = p > 0.0f ? clampf(__fdiv_rn(__fsub_rn(u.x, cdf[column]), p), 0.0f, 1.0f) : 0.5f;
    const float x =
        fminf(__fdiv_rn(__fadd_rn((float)column, du), (float)params.env_width), WARPATH_ONE_MINUS_EPSILON);
    pdf = __fmul_rn(__fmul_rn(pdf_v, p), (float)params.env_width);
    return make_float2(x, v);
}

// Distribution2D::pdf.
__device__ __forceinline__ float env_distribution_pdf(const DeviceScene& scene, float2 uv) {
    const GpuSceneParams& params = *scene.params;
    if (!(uv.x >= 0.0f && uv.x < 1.0f) || !(uv.y >= 0.0f && uv.y < 1.0f)) return 0.0f;
    unsigned int column, row;
    env_cell(params, uv, column, row);
    const float* cdf = scene.env_conditional_cdf + (size_t)row * (params.env_width + 1u);
    return __fmul_rn(__fmul_rn(__fmul_rn(discrete_pdf(scene.env_marginal_cdf, params.env_height, row),
                                         (float)params.env_height),
                               __fsub_rn(cdf[column + 1], cdf[column])),
                     (float)params.env_width);
}

// ---- environment map ------------------------------------------------------------------------

// EnvMap::direction_to_uv (Mitsuba's convention).
__device__ __forceinline__ float2 direction_to_uv(const GpuSceneParams& params, float3 wi) {
    const float3 d = normalize_or_zero(mat3_mul(params.env_to_local, wi));
    float u = __fmul_rn(det_atan2(d.x, -d.z), 0.5f / WARPATH_PI);
    u = __fsub_rn(u, floorf(u));
    const float v = __fdiv_rn(det_acos(clampf(d.y, -1.0f, 1.0f)), WARPATH_PI);
    return make_float2(u < 1.0f ? u : 0.0f, v);
}

// EnvMap::uv_to_direction.
__device__ __forceinline__ float3 uv_to_direction(const GpuSceneParams& params, float2 uv) {
    const float phi = __fmul_rn(2.0f * WARPATH_PI, uv.x);
    const float theta = __fmul_rn(WARPATH_PI, uv.y);
    float sin_phi, cos_phi, sin_theta, cos_theta;
    det_sin_cos(phi, sin_phi, cos_phi);
    det_sin_cos(theta, sin_theta, cos_theta);
    return mat3_mul(params.env_to_world,
                    make_float3(__fmul_rn(sin_theta, sin_phi), cos_theta, -__fmul_rn(sin_theta, cos_phi)));
}

__device__ __forceinline__ float3 env_map_radiance(const DeviceScene& scene, float3 wi) {
    const GpuSceneParams& params = *scene.params;
    unsigned int column, row;
    env_cell(params, direction_to_uv(params, wi), column, row);
    return params.env_scale * load3(scene.env_pixels, row * params.env_width + column);
}

__device__ __forceinline__ bool env_map_sample(const DeviceScene& scene, float2 u, float3& wi, float& pdf) {
    const GpuSceneParams& params = *scene.params;
    if (params.env_is_black) {
        wi = square_to_uniform_sphere(u);
        pdf = WARPATH_UNIFORM_SPHERE_PDF;
        return true;
    }
    float pdf_uv;
    const float2 uv = env_distribution_sample(scene, u, pdf_uv);
    float sin_theta, cos_theta;
    det_sin_cos(__fmul_rn(WARPATH_PI, uv.y), sin_theta, cos_theta);
    if (pdf_uv <= 0.0f || sin_theta <= 0.0f) return false;
    wi = uv_to_direction(params, uv);
    pdf = __fdiv_rn(pdf_uv, __fmul_rn(2.0f * WARPATH_PI * WARPATH_PI, sin_theta));
    return true;
}

__device__ __forceinline__ float env_map_pdf(const DeviceScene& scene, float3 wi) {
    const GpuSceneParams& params = *scene.params;
    if (params.env_is_black) return WARPATH_UNIFORM_SPHERE_PDF;
    const float3 d = normalize_or_zero(mat3_mul(params.env_to_local, wi));
    const float sin_theta = __fsqrt_rn(__fadd_rn(__fmul_rn(d.x, d.x), __fmul_rn(d.z, d.z)));
    if (sin_theta <= 0.0f) return 0.0f;
    return __fdiv_rn(env_distribution_pdf(scene, direction_to_uv(params, wi)),
                     __fmul_rn(2.0f * WARPATH_PI * WARPATH_PI, sin_theta));
}

// ---- LightSet -------------------------------------------------------------------------------

struct LightSample {
    float3 wi;        // unit direction toward the light
    float distance;   // WARPATH_INF for the environment
    float3 radiance;  // arriving along -wi
    float pdf;        // solid angle, selection included
};

__device__ __forceinline__ float3 triangle_light_normal(const TriangleLight& l) {
    return normalize_or_zero(cross(l.e1, l.e2));
}

// TriangleLight::radiance toward w (pointing away from the light).
__device__ __forceinline__ float3 triangle_light_radiance(const TriangleLight& l, float3 w) {
    return (l.two_sided != 0u || dot(triangle_light_normal(l), w) > 0.0f) ? l.emission : zero3();
}

// LightSet::environment_radiance.
__device__ __forceinline__ float3 environment_radiance(const DeviceScene& scene, float3 wi) {
    const GpuSceneParams& params = *scene.params;
    switch (params.env_kind) {
        case ENV_CONSTANT: return make_float3(params.env_constant[0], params.env_constant[1], params.env_constant[2]);
        case ENV_MAP: return env_map_radiance(scene, wi);
        default: return zero3();
    }
}

__device__ __forceinline__ bool lights_is_empty(const GpuSceneParams& params) {
    return params.light_count == 0u && params.env_kind == ENV_NONE;
}

// LightSet::sample: one light sample seen from p.
__device__ __forceinline__ bool sample_light(const DeviceScene& scene, float3 p, float u_select, float2 u,
                                             LightSample& ls) {
    const GpuSceneParams& params = *scene.params;
    if (params.selection_count == 0u) return false;
    const unsigned int index = find_bin(scene.light_cdf, params.selection_count, u_select);
    const float select_pdf = discrete_pdf(scene.light_cdf, params.selection_count, index);
    if (index < params.light_count) {
        const TriangleLight light = scene.lights[index];
        const float2 b = square_to_triangle(u);
        const float3 q = light.p0 + light.e1 * b.x + light.e2 * b.y;
        const float3 to = q - p;
        const float dist2 = length_squared(to);
        if (dist2 <= 0.0f || light.area <= 0.0f) return false;
        const float dist = __fsqrt_rn(dist2);
        const float3 wi = to / dist;
        const float cos_l = fabsf(dot(triangle_light_normal(light), -wi));
        const float3 radiance = triangle_light_radiance(light, -wi);
        if (cos_l <= 0.0f || is_zero3(radiance)) return false;
        ls.wi = wi;
        ls.distance = dist;
        ls.radiance = radiance;
        ls.pdf = __fdiv_rn(__fmul_rn(select_pdf, dist2), __fmul_rn(cos_l, light.area));
        return true;
    }
    float3 wi;
    float pdf_dir;
    if (params.env_kind == ENV_CONSTANT) {
        wi = square_to_uniform_sphere(u);
        pdf_dir = WARPATH_UNIFORM_SPHERE_PDF;
    } else if (params.env_kind == ENV_MAP) {
        if (!env_map_sample(scene, u, wi, pdf_dir)) return false;
    } else {
        return false;
    }
    ls.wi = wi;
    ls.distance = WARPATH_INF;
    ls.radiance = environment_radiance(scene, wi);
    ls.pdf = __fmul_rn(select_pdf, pdf_dir);
    return true;
}

// LightSet::pdf_triangle: the pdf of picking light `light` at p + wi·distance.
__device__ __forceinline__ float pdf_triangle(const DeviceScene& scene, int light, float3 wi, float distance) {
    const GpuSceneParams& params = *scene.params;
    if (light < 0 || (unsigned int)light >= params.light_count) return 0.0f;
    const TriangleLight l = scene.lights[light];
    const float cos_l = fabsf(dot(triangle_light_normal(l), wi));
    if (cos_l <= 0.0f || l.area <= 0.0f || is_zero3(triangle_light_radiance(l, -wi))) return 0.0f;
    return __fdiv_rn(
        __fmul_rn(__fmul_rn(discrete_pdf(scene.light_cdf, params.selection_count, (unsigned int)light), distance),
                  distance),
        __fmul_rn(cos_l, l.area));
}

// LightSet::pdf_environment.
__device__ __forceinline__ float pdf_environment(const DeviceScene& scene, float3 wi) {
    const GpuSceneParams& params = *scene.params;
    if (params.env_kind == ENV_NONE) return 0.0f;
    const float select = discrete_pdf(scene.light_cdf, params.selection_count, params.light_count);
    const float dir = params.env_kind == ENV_CONSTANT ? WARPATH_UNIFORM_SPHERE_PDF : env_map_pdf(scene, wi);
    return __fmul_rn(select, dir);
}

// ---- textures -------------------------------------------------------------------------------

__device__ __forceinline__ float rem_euclid_one(float x) {
    const float r = fmodf(x, 1.0f);
    return r < 0.0f ? __fadd_rn(r, 1.0f) : r;
}
__device__ __forceinline__ long long rem_euclid_int(long long a, long long n) {
    const long long r = a % n;
    return r < 0 ? r + n : r;
}
// glam's lerp: a·(1 − s) + b·s.
__device__ __forceinline__ float3 lerp3(float3 a, float3 b, float s) { return a * __fsub_rn(1.0f, s) + b * s; }

// warpath_scene::Texture::sample: bilinear, repeat; uv (0,0) is the image's bottom-left.
__device__ __forceinline__ float3 texture_sample(const DeviceScene& scene, unsigned int texture, float2 uv) {
    const GpuTexture tex = scene.textures[texture];
    const long long w = tex.width, h = tex.height;
    if (w == 0 || h == 0) return zero3();
    const float x = __fsub_rn(__fmul_rn(rem_euclid_one(uv.x), (float)w), 0.5f);
    const float y = __fsub_rn(__fmul_rn(__fsub_rn(1.0f, rem_euclid_one(uv.y)), (float)h), 0.5f);
    const float x0 = floorf(x), y0 = floorf(y);
    const float fx = __fsub_rn(x, x0), fy = __fsub_rn(y, y0);
    const long long xi = (long long)x0, yi = (long long)y0;
    const float* texels = scene.texels + 3 * (size_t)tex.offset;
    auto at = [&](long long px, long long py) {
        return load3(texels, (unsigned int)(rem_euclid_int(py, h) * w + rem_euclid_int(px, w)));
    };
    const float3 top = lerp3(at(xi, yi), at(xi + 1, yi), fx);
    const float3 bottom = lerp3(at(xi, yi + 1), at(xi + 1, yi + 1), fx);
    return lerp3(top, bottom, fy);
}
