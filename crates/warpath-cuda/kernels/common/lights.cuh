// common/lights.cuh — warpath_core::light::LightSet and warpath_core::distribution on
// the device: light selection by the uploaded CDF over [triangle lights..., environment,
// delta lights...], uniform points on the chosen triangle, point/spot/directional lights
// (DeltaLight::illuminate), and the environment (a constant, or an
// equirectangular map with Mitsuba's bilinear lookup, importance-sampled by patches between
// texel centres with its flattened Distribution2D over the env_width × (env_height − 1)
// patches: env_conditional_cdf holds env_height − 1 rows of env_width + 1 values,
// env_marginal_cdf the env_height values of the marginal over rows). Every pdf includes the
// selection probability, as on the CPU. Also Texture::sample (bilinear, repeat) of
// warpath_scene.
#pragma once
#include "common/bump_map.cuh"
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

// Distribution2D::cell_pdf: the density of cell (column, row) of the environment's patch
// distribution (env_width columns, env_height − 1 rows).
__device__ __forceinline__ float env_cell_pdf(const DeviceScene& scene, unsigned int column, unsigned int row) {
    const GpuSceneParams& params = *scene.params;
    const unsigned int rows = params.env_height - 1u;
    const float* cdf = scene.env_conditional_cdf + (size_t)row * (params.env_width + 1u);
    return __fmul_rn(__fmul_rn(__fmul_rn(discrete_pdf(scene.env_marginal_cdf, rows, row), (float)rows),
                               __fsub_rn(cdf[column + 1], cdf[column])),
                     (float)params.env_width);
}

// Distribution2D::sample_cell: a cell by its weight, u remapped inside its CDF intervals.
__device__ __forceinline__ void env_sample_cell(const DeviceScene& scene, float2 u, unsigned int& column,
                                                unsigned int& row, float2& remapped, float& cell_pdf) {
    const GpuSceneParams& params = *scene.params;
    const unsigned int rows = params.env_height - 1u;
    row = find_bin(scene.env_marginal_cdf, rows, u.y);
    const float p_row = discrete_pdf(scene.env_marginal_cdf, rows, row);
    const float u_row =
        p_row > 0.0f ? clampf(__fdiv_rn(__fsub_rn(u.y, scene.env_marginal_cdf[row]), p_row), 0.0f, 1.0f) : 0.5f;
    const float* cdf = scene.env_conditional_cdf + (size_t)row * (params.env_width + 1u);
    column = find_bin(cdf, params.env_width, u.x);
    const float p_column = __fsub_rn(cdf[column + 1], cdf[column]);
    const float u_column =
        p_column > 0.0f ? clampf(__fdiv_rn(__fsub_rn(u.x, cdf[column]), p_column), 0.0f, 1.0f) : 0.5f;
    remapped = make_float2(u_column, u_row);
    cell_pdf = env_cell_pdf(scene, column, row);
}

// ---- environment map ------------------------------------------------------------------------
// Texels (env_pixels: 4 floats each, linear RGB and the sampling weight luminance × sin θ of
// the row) sit at u = (c + 1/2)/env_width and v = r/(env_height − 1) (Mitsuba 3's envmap);
// the radiance is bilinear between them and the sampling density the bilinear interpolant of
// the weights (warpath_core::light, EnvMap).

// glam's lerp: a·(1 − s) + b·s.
__device__ __forceinline__ float3 lerp3(float3 a, float3 b, float s) { return a * __fsub_rn(1.0f, s) + b * s; }
__device__ __forceinline__ float lerpf(float a, float b, float s) {
    return __fadd_rn(__fmul_rn(a, __fsub_rn(1.0f, s)), __fmul_rn(b, s));
}

// EnvMap::direction_to_uv (Mitsuba's convention).
__device__ __forceinline__ float2 direction_to_uv(const GpuSceneParams& params, float3 wi) {
    const float3 d = normalize_or_zero(mat3_mul(params.env_to_local, wi));
    float u = __fmul_rn(det_atan2(d.x, -d.z), 0.5f / WARPATH_PI);
    u = __fsub_rn(u, floorf(u));
    const float v = __fdiv_rn(det_acos(clampf(d.y, -1.0f, 1.0f)), WARPATH_PI);
    return make_float2(u < 1.0f ? u : 0.0f, v);
}

// EnvMap::patch: the four texel centres around uv and the bilinear weights inside them.
struct EnvPatch {
    unsigned int column;       // left corners
    unsigned int next_column;  // right corners (column + 1, wrapping to 0)
    unsigned int row;          // upper corners; the lower ones are row + 1
    float fx;
    float fy;
};

__device__ __forceinline__ unsigned int env_next_column(const GpuSceneParams& params, unsigned int column) {
    return column + 1u == params.env_width ? 0u : column + 1u;
}

__device__ __forceinline__ EnvPatch env_patch(const GpuSceneParams& params, float2 uv) {
    const float columns = (float)params.env_width;
    const float rows = (float)(params.env_height - 1u);
    const float x = __fsub_rn(__fmul_rn(uv.x, columns), 0.5f);
    const float y = __fmul_rn(uv.y, rows);
    const float x0 = fminf(fmaxf(floorf(x), -1.0f), __fsub_rn(columns, 1.0f));
    const float y0 = fminf(fmaxf(floorf(y), 0.0f), __fsub_rn(rows, 1.0f));
    EnvPatch p;
    p.fx = clampf(__fsub_rn(x, x0), 0.0f, 1.0f);
    p.fy = clampf(__fsub_rn(y, y0), 0.0f, 1.0f);
    p.column = x0 < 0.0f ? params.env_width - 1u : (unsigned int)x0;
    p.next_column = env_next_column(params, p.column);
    p.row = (unsigned int)y0;
    return p;
}

__device__ __forceinline__ float4 env_texel(const DeviceScene& scene, unsigned int column, unsigned int row) {
    return reinterpret_cast<const float4*>(scene.env_pixels)[(size_t)row * scene.params->env_width + column];
}

__device__ __forceinline__ float3 texel_rgb(float4 t) { return make_float3(t.x, t.y, t.z); }

// EnvMap::radiance: the bilinear interpolation of the four texels around wi, times the scale.
__device__ __forceinline__ float3 env_map_radiance(const DeviceScene& scene, float3 wi) {
    const GpuSceneParams& params = *scene.params;
    const EnvPatch p = env_patch(params, direction_to_uv(params, wi));
    const float3 upper = lerp3(texel_rgb(env_texel(scene, p.column, p.row)),
                               texel_rgb(env_texel(scene, p.next_column, p.row)), p.fx);
    const float3 lower = lerp3(texel_rgb(env_texel(scene, p.column, p.row + 1u)),
                               texel_rgb(env_texel(scene, p.next_column, p.row + 1u)), p.fx);
    return params.env_scale * lerp3(upper, lower, p.fy);
}

// EnvMap::corner_weights: (upper left, upper right, lower left, lower right).
__device__ __forceinline__ float4 env_corner_weights(const DeviceScene& scene, const EnvPatch& p) {
    return make_float4(env_texel(scene, p.column, p.row).w, env_texel(scene, p.next_column, p.row).w,
                       env_texel(scene, p.column, p.row + 1u).w, env_texel(scene, p.next_column, p.row + 1u).w);
}

// EnvMap::patch_pdf_uv: the patch's probability times the bilinear weight over its mean weight.
__device__ __forceinline__ float env_patch_pdf_uv(const DeviceScene& scene, const EnvPatch& p, float cell_pdf) {
    const float4 w = env_corner_weights(scene, p);
    const float sum = __fadd_rn(__fadd_rn(__fadd_rn(w.x, w.y), w.z), w.w);
    if (!(sum > 0.0f)) return 0.0f;
    const float value = lerpf(lerpf(w.x, w.y, p.fx), lerpf(w.z, w.w, p.fx), p.fy);
    return __fmul_rn(cell_pdf, __fdiv_rn(__fmul_rn(value, 4.0f), sum));
}

// warpath_core::light::sample_linear: x in [0, 1] with density ∝ (1 − x) a + x b.
__device__ __forceinline__ float sample_linear(float u, float a, float b) {
    const float total = __fadd_rn(a, b);
    if (!(total > 0.0f)) return u;
    const float an = __fdiv_rn(a, total);
    const float bn = __fdiv_rn(b, total);
    const float mix = __fadd_rn(__fmul_rn(__fmul_rn(an, an), __fsub_rn(1.0f, u)), __fmul_rn(__fmul_rn(bn, bn), u));
    const float denominator = __fadd_rn(an, __fsqrt_rn(mix));
    return denominator > 0.0f ? fminf(__fdiv_rn(u, denominator), 1.0f) : 0.0f;
}

// EnvMap::sample: a patch by its integral, then v and u inside it from the bilinear density.
__device__ __forceinline__ bool env_map_sample(const DeviceScene& scene, float2 u, float3& wi, float& pdf) {
    const GpuSceneParams& params = *scene.params;
    if (params.env_is_black) {
        wi = square_to_uniform_sphere(u);
        pdf = WARPATH_UNIFORM_SPHERE_PDF;
        return true;
    }
    EnvPatch p;
    float2 remapped;
    float cell_pdf;
    env_sample_cell(scene, u, p.column, p.row, remapped, cell_pdf);
    p.next_column = env_next_column(params, p.column);
    const float4 w = env_corner_weights(scene, p);
    p.fy = sample_linear(remapped.y, __fadd_rn(w.x, w.y), __fadd_rn(w.z, w.w));
    p.fx = sample_linear(remapped.x, lerpf(w.x, w.z, p.fy), lerpf(w.y, w.w, p.fy));
    const float pdf_uv = env_patch_pdf_uv(scene, p, cell_pdf);
    float map_u = __fdiv_rn(__fadd_rn(__fadd_rn((float)p.column, p.fx), 0.5f), (float)params.env_width);
    if (map_u >= 1.0f) map_u = __fsub_rn(map_u, 1.0f);
    const float map_v = __fdiv_rn(__fadd_rn((float)p.row, p.fy), (float)(params.env_height - 1u));
    float sin_theta, cos_theta;
    det_sin_cos(__fmul_rn(WARPATH_PI, map_v), sin_theta, cos_theta);
    if (pdf_uv <= 0.0f || sin_theta <= 0.0f) return false;
    float sin_phi, cos_phi;
    det_sin_cos(__fmul_rn(2.0f * WARPATH_PI, map_u), sin_phi, cos_phi);
    const float3 local = make_float3(__fmul_rn(sin_theta, sin_phi), cos_theta, -__fmul_rn(sin_theta, cos_phi));
    wi = mat3_mul(params.env_to_world, local);
    pdf = __fdiv_rn(pdf_uv, __fmul_rn(2.0f * WARPATH_PI * WARPATH_PI, sin_theta));
    return true;
}

// EnvMap::pdf.
__device__ __forceinline__ float env_map_pdf(const DeviceScene& scene, float3 wi) {
    const GpuSceneParams& params = *scene.params;
    if (params.env_is_black) return WARPATH_UNIFORM_SPHERE_PDF;
    const float3 d = normalize_or_zero(mat3_mul(params.env_to_local, wi));
    const float sin_theta = __fsqrt_rn(__fadd_rn(__fmul_rn(d.x, d.x), __fmul_rn(d.z, d.z)));
    if (sin_theta <= 0.0f) return 0.0f;
    const EnvPatch p = env_patch(params, direction_to_uv(params, wi));
    const float pdf_uv = env_patch_pdf_uv(scene, p, env_cell_pdf(scene, p.column, p.row));
    return __fdiv_rn(pdf_uv, __fmul_rn(2.0f * WARPATH_PI * WARPATH_PI, sin_theta));
}

// ---- LightSet -------------------------------------------------------------------------------

struct LightSample {
    float3 wi;        // unit direction toward the light
    float distance;   // WARPATH_INF for the environment
    float3 radiance;  // arriving along -wi
    float pdf;        // solid angle, selection included (a delta light: the selection alone)
    bool delta;       // a point, spot or directional light (no MIS weight)
};

// DeltaLight::falloff: the spot's linear ramp in angle (1 for the other kinds).
__device__ __forceinline__ float delta_light_falloff(const DeltaLight& l, float3 w) {
    if (l.kind != DELTA_SPOT) return 1.0f;
    const float cos_theta = dot(l.direction, w);
    if (!(cos_theta > l.cos_cutoff)) return 0.0f;
    if (cos_theta >= l.cos_beam) return 1.0f;
    return clampf(__fmul_rn(__fsub_rn(l.cutoff, det_acos(clampf(cos_theta, -1.0f, 1.0f))), l.inv_transition), 0.0f,
                  1.0f);
}

// DeltaLight::illuminate: direction, distance and I·falloff/d² (or E) seen from p.
__device__ __forceinline__ bool delta_light_illuminate(const DeltaLight& l, float3 p, float3& wi, float& distance,
                                                       float3& radiance) {
    if (l.kind == DELTA_DIRECTIONAL) {
        wi = -l.direction;
        if (is_zero3(wi) || is_zero3(l.intensity)) return false;
        distance = WARPATH_INF;
        radiance = l.intensity;
        return true;
    }
    const float3 to = l.position - p;
    const float dist2 = length_squared(to);
    if (!(dist2 > 0.0f)) return false;
    distance = __fsqrt_rn(dist2);
    wi = to / distance;
    const float falloff = delta_light_falloff(l, -wi);
    radiance = (l.intensity * falloff) / dist2;
    return !is_zero3(radiance);
}

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
    return params.light_count == 0u && params.env_kind == ENV_NONE && params.delta_light_count == 0u;
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
        ls.delta = false;
        return true;
    }
    const unsigned int delta_offset = params.light_count + (params.env_kind != ENV_NONE ? 1u : 0u);
    if (index >= delta_offset) {
        if (index - delta_offset >= params.delta_light_count) return false;
        if (!delta_light_illuminate(delta_lights(scene)[index - delta_offset], p, ls.wi, ls.distance, ls.radiance)) {
            return false;
        }
        ls.pdf = select_pdf;
        ls.delta = true;
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
    ls.delta = false;
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

// warpath_scene::Texture::height_gradient: the (u, v) gradient of the bilinear lookup of the
// red channel (bump_map::height_gradient of the four texels texture_sample blends).
__device__ __forceinline__ float2 texture_height_gradient(const DeviceScene& scene, unsigned int texture, float2 uv) {
    const GpuTexture tex = scene.textures[texture];
    const long long w = tex.width, h = tex.height;
    if (w == 0 || h == 0) return make_float2(0.0f, 0.0f);
    const float x = __fsub_rn(__fmul_rn(rem_euclid_one(uv.x), (float)w), 0.5f);
    const float y = __fsub_rn(__fmul_rn(__fsub_rn(1.0f, rem_euclid_one(uv.y)), (float)h), 0.5f);
    const float x0 = floorf(x), y0 = floorf(y);
    const float fx = __fsub_rn(x, x0), fy = __fsub_rn(y, y0);
    const long long xi = (long long)x0, yi = (long long)y0;
    const float* texels = scene.texels + 3 * (size_t)tex.offset;
    auto at = [&](long long px, long long py) {
        return texels[3 * (size_t)(rem_euclid_int(py, h) * w + rem_euclid_int(px, w))];
    };
    return bump_height_gradient(at(xi, yi), at(xi + 1, yi), at(xi, yi + 1), at(xi + 1, yi + 1), fx, fy,
                                (unsigned int)w, (unsigned int)h);
}
