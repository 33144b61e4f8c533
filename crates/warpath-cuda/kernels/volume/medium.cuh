// volume/medium.cuh — participating media on the device: warpath_volume's grids (grid.rs:
// cell-centred trilinear lookups, clamp to edge), majorant grids and their ray walk
// (majorant.rs), the tracking random numbers (random.rs), the Henyey–Greenstein phase
// function (phase.rs) and the two tracking estimators (medium.rs: delta tracking for free
// flights, ratio tracking for transmittance). Every function is written operation for
// operation like its Rust twin (each float operation rounded on its own, the logarithm and
// sine/cosine from common/detmath.cuh), so the GPU takes the decisions the CPU reference
// takes for the same random numbers. GpuMedium's layout is owned by Rust
// (crates/warpath-cuda/src/volume_upload.rs) and checked against
// Rust by the generated layout checks (end of file).
#pragma once
#include "common/detmath.cuh"
#include "common/layout.cuh"
#include "common/math.cuh"
#include "common/sampler.cuh"

#define MEDIUM_HOMOGENEOUS 0u
#define MEDIUM_GRID 1u
#define ALBEDO_CONSTANT 0u
#define ALBEDO_GRID 1u

// How density and albedo grids are read (a compile-time choice, warpath_cuda::GridFetch; the
// benchmark compares them: docs/benchmarks/volumes.md, "Grids: buffers or 3D textures"):
//   GRID_FETCH_BUFFER          the scene's float array through the read-only cache (__ldg);
//   GRID_FETCH_TEXTURE         3D textures (CUDA arrays, point sampled): the same eight
//                              voxels and the same trilinear arithmetic, so the same image;
//   GRID_FETCH_TEXTURE_LINEAR  3D textures filtered by the hardware (one fetch, weights with
//                              8 fractional bits: not the CPU's values).
#define GRID_FETCH_BUFFER 0
#define GRID_FETCH_TEXTURE 1
#define GRID_FETCH_TEXTURE_LINEAR 2
#ifndef WARPATH_GRID_FETCH
#define WARPATH_GRID_FETCH GRID_FETCH_BUFFER
#endif

// One medium (warpath_volume::Medium): 160 bytes. Grid values live in the scene's one float
// array at the given offsets (x fastest, channels interleaved); with texture fetches the
// density and albedo grids are also 3D textures (albedo: four channels, the fourth unused).
struct GpuMedium {
    unsigned int kind;             // MEDIUM_HOMOGENEOUS / MEDIUM_GRID
    unsigned int gray;             // σ_t equal in every channel
    unsigned int albedo_kind;      // ALBEDO_CONSTANT / ALBEDO_GRID
    unsigned int albedo_channels;  // 1 or 3
    float sigma_t[3];              // homogeneous σ_t
    float scale;                   // grid: σ_t = scale · density
    float albedo[3];               // constant albedo
    float g;                       // Henyey–Greenstein anisotropy
    float world_to_local[12];      // three rows of four
    unsigned int density_resolution[3];
    unsigned int density_offset;
    unsigned int albedo_resolution[3];
    unsigned int albedo_offset;
    unsigned int majorant_resolution[3];
    unsigned int majorant_offset;
    // cudaTextureObject_t handles as (low, high) words, 0 unless textures were made: two
    // words, not a 64-bit field, keep the record 4-byte aligned; with 8-byte alignment ptxas
    // gives the schedule kernels 64 registers instead of 128 (and three times the spills).
    unsigned int density_texture[2];
    unsigned int albedo_texture[2];
};

// What the tracking loops did (warpath_volume::medium::TrackingCounts), per path step.
struct TrackingCounts {
    unsigned int steps;
    unsigned int density_lookups;
    unsigned int albedo_lookups;
};

// ---- grids (grid.rs) -------------------------------------------------------------------------

// The two voxels and the upper one's weight along an axis of n voxels (axis_corners).
__device__ __forceinline__ void axis_corners(float x, unsigned int n, unsigned int& lower, unsigned int& upper,
                                             float& fraction) {
    const float position = __fsub_rn(__fmul_rn(x, (float)n), 0.5f);
    const float f = floorf(position);
    fraction = __fsub_rn(position, f);
    const long long last = (long long)n - 1;
    const long long i = (long long)f;
    lower = (unsigned int)(i < 0 ? 0 : (i > last ? last : i));
    const long long j = i + 1;
    upper = (unsigned int)(j < 0 ? 0 : (j > last ? last : j));
}

// a + (b − a)·t (grid.rs lerp).
__device__ __forceinline__ float grid_lerp(float a, float b, float t) { return __fadd_rn(a, __fmul_rn(__fsub_rn(b, a), t)); }

// The trilinear blend of eight corner values, grid.rs's order of operations
// (x, then y, then z).
__device__ __forceinline__ float trilinear8(float v000, float v100, float v010, float v110, float v001, float v101,
                                            float v011, float v111, float fx, float fy, float fz) {
    const float c00 = grid_lerp(v000, v100, fx);
    const float c10 = grid_lerp(v010, v110, fx);
    const float c01 = grid_lerp(v001, v101, fx);
    const float c11 = grid_lerp(v011, v111, fx);
    return grid_lerp(grid_lerp(c00, c10, fy), grid_lerp(c01, c11, fy), fz);
}

// Channel `channel` of a grid of `channels` at local point p (VolumeGrid::lookup_channel).
__device__ __forceinline__ float grid_lookup(const float* __restrict__ data, const unsigned int* resolution,
                                             unsigned int channels, float3 p, unsigned int channel) {
    unsigned int x0, x1, y0, y1, z0, z1;
    float fx, fy, fz;
    axis_corners(p.x, resolution[0], x0, x1, fx);
    axis_corners(p.y, resolution[1], y0, y1, fy);
    axis_corners(p.z, resolution[2], z0, z1, fz);
    const size_t nx = resolution[0], ny = resolution[1];
    auto v = [&](unsigned int i, unsigned int j, unsigned int k) {
        return __ldg(data + ((k * ny + j) * nx + i) * channels + channel);
    };
    return trilinear8(v(x0, y0, z0), v(x1, y0, z0), v(x0, y1, z0), v(x1, y1, z0), v(x0, y0, z1), v(x1, y0, z1),
                      v(x0, y1, z1), v(x1, y1, z1), fx, fy, fz);
}

// ---- the tracking random numbers (random.rs) ----------------------------------------------------

#define TRACKING_STREAM_EXTEND 0u
#define TRACKING_STREAM_SHADOW 1u

struct TrackingRng {
    unsigned int key;
    unsigned int counter;

    __device__ __forceinline__ float next() {
        const unsigned int bits = pcg_hash(key ^ pcg_hash(counter));
        counter += 1u;
        return u32_to_unit(bits);
    }
};

__device__ __forceinline__ TrackingRng tracking_rng(unsigned int seed, unsigned int pixel, unsigned int sample,
                                                    unsigned int bounce, unsigned int stream) {
    unsigned int key = pcg_hash(seed ^ 0x5bd1e995u);
    key = pcg_hash(key ^ pixel);
    key = pcg_hash(key ^ sample);
    key = pcg_hash(key ^ (bounce * 2u + stream));
    TrackingRng rng;
    rng.key = key;
    rng.counter = 0u;
    return rng;
}

// ---- Henyey–Greenstein (phase.rs) ---------------------------------------------------------------

#define HG_ISOTROPIC_G 1e-3f
#define HG_INV_FOUR_PI (1.0f / (4.0f * WARPATH_PI))

__device__ __forceinline__ float hg_eval(float g, float cos_theta) {
    const float gg = __fmul_rn(g, g);
    const float denom = __fsub_rn(__fadd_rn(1.0f, gg), __fmul_rn(__fmul_rn(2.0f, g), cos_theta));
    return __fdiv_rn(__fmul_rn(__fsub_rn(1.0f, gg), HG_INV_FOUR_PI), __fmul_rn(denom, __fsqrt_rn(denom)));
}

__device__ __forceinline__ float hg_sample_cos(float g, float u) {
    float cos_theta;
    if (fabsf(g) < HG_ISOTROPIC_G) {
        cos_theta = __fsub_rn(1.0f, __fmul_rn(2.0f, u));
    } else {
        const float gg = __fmul_rn(g, g);
        const float s = __fdiv_rn(__fsub_rn(1.0f, gg), __fadd_rn(__fsub_rn(1.0f, g), __fmul_rn(__fmul_rn(2.0f, g), u)));
        cos_theta = __fdiv_rn(__fsub_rn(__fadd_rn(1.0f, gg), __fmul_rn(s, s)), __fmul_rn(2.0f, g));
    }
    return clampf(cos_theta, -1.0f, 1.0f);
}

// A scattered direction for a ray along unit `direction`; its pdf in `pdf`.
__device__ __forceinline__ float3 hg_sample(float g, float3 direction, float2 u, float& pdf) {
    const float cos_theta = hg_sample_cos(g, u.x);
    const float sin_theta = __fsqrt_rn(fmaxf(__fsub_rn(1.0f, __fmul_rn(cos_theta, cos_theta)), 0.0f));
    float sin_phi, cos_phi;
    det_sin_cos(__fmul_rn(2.0f * WARPATH_PI, u.y), sin_phi, cos_phi);
    const float3 local = make_float3(__fmul_rn(sin_theta, cos_phi), __fmul_rn(sin_theta, sin_phi), cos_theta);
    pdf = hg_eval(g, cos_theta);
    return normalize(to_world(frame_from_normal(direction), local));
}

// ---- majorant grids and their walk (majorant.rs) --------------------------------------------

// AffineRows::point / vector: ((m0·x + m1·y) + m2·z) + m3.
__device__ __forceinline__ float3 affine_point(const float* m, float3 p) {
    return make_float3(
        __fadd_rn(__fadd_rn(__fadd_rn(__fmul_rn(m[0], p.x), __fmul_rn(m[1], p.y)), __fmul_rn(m[2], p.z)), m[3]),
        __fadd_rn(__fadd_rn(__fadd_rn(__fmul_rn(m[4], p.x), __fmul_rn(m[5], p.y)), __fmul_rn(m[6], p.z)), m[7]),
        __fadd_rn(__fadd_rn(__fadd_rn(__fmul_rn(m[8], p.x), __fmul_rn(m[9], p.y)), __fmul_rn(m[10], p.z)), m[11]));
}
__device__ __forceinline__ float3 affine_vector(const float* m, float3 v) {
    return make_float3(__fadd_rn(__fadd_rn(__fmul_rn(m[0], v.x), __fmul_rn(m[1], v.y)), __fmul_rn(m[2], v.z)),
                       __fadd_rn(__fadd_rn(__fmul_rn(m[4], v.x), __fmul_rn(m[5], v.y)), __fmul_rn(m[6], v.z)),
                       __fadd_rn(__fadd_rn(__fmul_rn(m[8], v.x), __fmul_rn(m[9], v.y)), __fmul_rn(m[10], v.z)));
}

__device__ __forceinline__ float axis_of(float3 v, int axis) { return axis == 0 ? v.x : (axis == 1 ? v.y : v.z); }

// clip_to_unit_cube: the t range of o + t·d inside [0,1]³, clipped to [0, t_max].
__device__ __forceinline__ bool clip_to_unit_cube(float3 o, float3 d, float t_max, float& t0, float& t1) {
    t0 = 0.0f;
    t1 = t_max;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
        const float oa = axis_of(o, axis), da = axis_of(d, axis);
        if (da == 0.0f) {
            if (!(oa >= 0.0f && oa <= 1.0f)) return false;
            continue;
        }
        const float ta = __fdiv_rn(__fsub_rn(0.0f, oa), da);
        const float tb = __fdiv_rn(__fsub_rn(1.0f, oa), da);
        const float near_t = ta < tb ? ta : tb;
        const float far_t = ta < tb ? tb : ta;
        t0 = near_t > t0 ? near_t : t0;
        t1 = far_t < t1 ? far_t : t1;
    }
    return t0 < t1;
}

// face_t: where one axis of the ray reaches the far face of cell c of n in direction step.
__device__ __forceinline__ float face_t(float o, float d, int c, int step, float n) {
    if (step == 0) return WARPATH_INF;
    const float face = step > 0 ? __fdiv_rn((float)(c + 1), n) : __fdiv_rn((float)c, n);
    return __fdiv_rn(__fsub_rn(face, o), d);
}

// MajorantWalk: the cells a ray segment crosses, in order.
struct MajorantWalk {
    float3 origin;
    float3 direction;
    int cell[3];
    int step[3];
    float next_t[3];
    float t_end;

    __device__ __forceinline__ void init(float3 o, float3 d, float t0, float t1, const unsigned int* resolution) {
        origin = o;
        direction = d;
        t_end = t1;
#pragma unroll
        for (int axis = 0; axis < 3; ++axis) {
            const float n = (float)resolution[axis];
            const float oa = axis_of(o, axis), da = axis_of(d, axis);
            const float p = __fadd_rn(oa, __fmul_rn(da, t0));
            int c = (int)floorf(__fmul_rn(p, n));
            const int last = (int)resolution[axis] - 1;
            c = c < 0 ? 0 : (c > last ? last : c);
            cell[axis] = c;
            step[axis] = da > 0.0f ? 1 : (da < 0.0f ? -1 : 0);
            next_t[axis] = face_t(oa, da, c, step[axis], n);
        }
    }

    __device__ __forceinline__ float cell_end() const {
        float t = next_t[0] < next_t[1] ? next_t[0] : next_t[1];
        t = next_t[2] < t ? next_t[2] : t;
        return t < t_end ? t : t_end;
    }

    __device__ __forceinline__ bool advance(const unsigned int* resolution) {
        if (cell_end() >= t_end) return false;
        const int axis = (next_t[0] <= next_t[1] && next_t[0] <= next_t[2]) ? 0 : (next_t[1] <= next_t[2] ? 1 : 2);
        const int c = cell[axis] + step[axis];
        if (c < 0 || c >= (int)resolution[axis]) return false;
        cell[axis] = c;
        next_t[axis] = face_t(axis_of(origin, axis), axis_of(direction, axis), c, step[axis], (float)resolution[axis]);
        return true;
    }
};

// ---- the tracker and the two estimators (medium.rs) -----------------------------------------

// One ray segment through a medium's majorant cells, stopping at tentative collisions.
struct Tracker {
    float3 origin;     // local coordinates (world for homogeneous media)
    float3 direction;
    float t;
    float t_end;
    bool has_walk;
    MajorantWalk walk;
};

// Tracker::new; false when the segment is empty.
__device__ __forceinline__ bool tracker_init(const GpuMedium& m, float3 o, float3 d, float t_max, Tracker& tr) {
    if (m.kind == MEDIUM_HOMOGENEOUS) {
        tr.origin = o;
        tr.direction = d;
        tr.t = 0.0f;
        tr.t_end = t_max;
        tr.has_walk = false;
        return t_max > 0.0f;
    }
    tr.origin = affine_point(m.world_to_local, o);
    tr.direction = affine_vector(m.world_to_local, d);
    float t0, t1;
    if (!clip_to_unit_cube(tr.origin, tr.direction, t_max, t0, t1)) return false;
    tr.t = t0;
    tr.t_end = t1;
    tr.has_walk = true;
    tr.walk.init(tr.origin, tr.direction, t0, t1, m.majorant_resolution);
    return true;
}

// origin + direction · t, one rounding per operation (medium.rs local_point_along).
__device__ __forceinline__ float3 local_point_along(float3 origin, float3 direction, float t) {
    return make_float3(__fadd_rn(origin.x, __fmul_rn(direction.x, t)), __fadd_rn(origin.y, __fmul_rn(direction.y, t)),
                       __fadd_rn(origin.z, __fmul_rn(direction.z, t)));
}

__device__ __forceinline__ float3 tracker_position(const Tracker& tr) {
    return local_point_along(tr.origin, tr.direction, tr.t);
}

// Tracker::next_collision: moves `tau` optical depth ahead; the majorant there, or a
// negative value when the segment ends first.
__device__ __forceinline__ float tracker_next_collision(Tracker& tr, const GpuMedium& m,
                                                         const float* __restrict__ grid_data, float& tau) {
    const float* majorants = grid_data + m.majorant_offset;
    while (true) {
        float cell_end, sigma_bar;
        if (tr.has_walk) {
            cell_end = tr.walk.cell_end();
            const unsigned int nx = m.majorant_resolution[0], ny = m.majorant_resolution[1];
            sigma_bar = __ldg(majorants + ((unsigned int)tr.walk.cell[2] * ny + (unsigned int)tr.walk.cell[1]) * nx +
                              (unsigned int)tr.walk.cell[0]);
        } else {
            cell_end = tr.t_end;
            sigma_bar = __ldg(majorants);
        }
        if (sigma_bar > 0.0f) {
            const float t = __fadd_rn(tr.t, __fdiv_rn(tau, sigma_bar));
            if (t < cell_end) {
                tr.t = t;
                return sigma_bar;
            }
            tau = __fsub_rn(tau, __fmul_rn(__fsub_rn(cell_end, tr.t), sigma_bar));
            if (tau < 0.0f) tau = 0.0f;
        }
        tr.t = cell_end;
        if (!tr.has_walk || !tr.walk.advance(m.majorant_resolution)) return -1.0f;
    }
}

// ---- texture fetches (WARPATH_GRID_FETCH != GRID_FETCH_BUFFER) ----------------------------------
// Compiled only in the texture variants (the host-compiled lockstep tests have no CUDA types).
#if WARPATH_GRID_FETCH != GRID_FETCH_BUFFER

__device__ __forceinline__ cudaTextureObject_t texture_handle(const unsigned int* words) {
    return (cudaTextureObject_t)(((unsigned long long)words[1] << 32) | words[0]);
}

// Voxel (i, j, k) of a point-sampled texture (unnormalised coordinates: the voxel's centre).
__device__ __forceinline__ float4 texel4(cudaTextureObject_t texture, unsigned int i, unsigned int j, unsigned int k) {
    return tex3D<float4>(texture, (float)i + 0.5f, (float)j + 0.5f, (float)k + 0.5f);
}
__device__ __forceinline__ float texel1(cudaTextureObject_t texture, unsigned int i, unsigned int j, unsigned int k) {
    return tex3D<float>(texture, (float)i + 0.5f, (float)j + 0.5f, (float)k + 0.5f);
}

// grid_lookup over a point-sampled texture of one channel: the same voxels, the same
// arithmetic.
__device__ __forceinline__ float texture_lookup1(cudaTextureObject_t texture, const unsigned int* resolution, float3 p) {
    unsigned int x0, x1, y0, y1, z0, z1;
    float fx, fy, fz;
    axis_corners(p.x, resolution[0], x0, x1, fx);
    axis_corners(p.y, resolution[1], y0, y1, fy);
    axis_corners(p.z, resolution[2], z0, z1, fz);
    return trilinear8(texel1(texture, x0, y0, z0), texel1(texture, x1, y0, z0), texel1(texture, x0, y1, z0),
                      texel1(texture, x1, y1, z0), texel1(texture, x0, y0, z1), texel1(texture, x1, y0, z1),
                      texel1(texture, x0, y1, z1), texel1(texture, x1, y1, z1), fx, fy, fz);
}

// The same over a four-channel texture: eight fetches serve the three albedo channels, each
// blended on its own as grid_lookup blends it.
__device__ __forceinline__ float3 texture_lookup3(cudaTextureObject_t texture, const unsigned int* resolution, float3 p) {
    unsigned int x0, x1, y0, y1, z0, z1;
    float fx, fy, fz;
    axis_corners(p.x, resolution[0], x0, x1, fx);
    axis_corners(p.y, resolution[1], y0, y1, fy);
    axis_corners(p.z, resolution[2], z0, z1, fz);
    // Each x pair is blended as soon as it is fetched (the order of operations per channel is
    // grid_lookup's), so that at most two float4 corners are live at once.
    auto lerp_x = [&](unsigned int j, unsigned int k) {
        const float4 a = texel4(texture, x0, j, k), b = texel4(texture, x1, j, k);
        return make_float3(grid_lerp(a.x, b.x, fx), grid_lerp(a.y, b.y, fx), grid_lerp(a.z, b.z, fx));
    };
    const float3 c00 = lerp_x(y0, z0), c10 = lerp_x(y1, z0), c01 = lerp_x(y0, z1), c11 = lerp_x(y1, z1);
    return make_float3(grid_lerp(grid_lerp(c00.x, c10.x, fy), grid_lerp(c01.x, c11.x, fy), fz),
                       grid_lerp(grid_lerp(c00.y, c10.y, fy), grid_lerp(c01.y, c11.y, fy), fz),
                       grid_lerp(grid_lerp(c00.z, c10.z, fy), grid_lerp(c01.z, c11.z, fy), fz));
}
#endif

// The density at local point p.
__device__ __forceinline__ float density_at(const GpuMedium& m, const float* __restrict__ grid_data, float3 p) {
#if WARPATH_GRID_FETCH == GRID_FETCH_TEXTURE
    (void)grid_data;
    return texture_lookup1(texture_handle(m.density_texture), m.density_resolution, p);
#elif WARPATH_GRID_FETCH == GRID_FETCH_TEXTURE_LINEAR
    (void)grid_data;
    return tex3D<float>(texture_handle(m.density_texture), p.x, p.y, p.z);
#else
    return grid_lookup(grid_data + m.density_offset, m.density_resolution, 1u, p, 0u);
#endif
}

// The albedo grid's value at local point p (1 or 3 channels).
__device__ __forceinline__ float3 albedo_grid_at(const GpuMedium& m, const float* __restrict__ grid_data, float3 p) {
#if WARPATH_GRID_FETCH == GRID_FETCH_TEXTURE
    (void)grid_data;
    if (m.albedo_channels == 1u) return splat3(texture_lookup1(texture_handle(m.albedo_texture), m.albedo_resolution, p));
    return texture_lookup3(texture_handle(m.albedo_texture), m.albedo_resolution, p);
#elif WARPATH_GRID_FETCH == GRID_FETCH_TEXTURE_LINEAR
    (void)grid_data;
    if (m.albedo_channels == 1u) return splat3(tex3D<float>(texture_handle(m.albedo_texture), p.x, p.y, p.z));
    const float4 a = tex3D<float4>(texture_handle(m.albedo_texture), p.x, p.y, p.z);
    return make_float3(a.x, a.y, a.z);
#else
    const float* data = grid_data + m.albedo_offset;
    if (m.albedo_channels == 1u) return splat3(grid_lookup(data, m.albedo_resolution, 1u, p, 0u));
    return make_float3(grid_lookup(data, m.albedo_resolution, 3u, p, 0u), grid_lookup(data, m.albedo_resolution, 3u, p, 1u),
                       grid_lookup(data, m.albedo_resolution, 3u, p, 2u));
#endif
}

// σ_t at local point p (Medium::sigma_t_local).
__device__ __forceinline__ float3 medium_sigma_t(const GpuMedium& m, const float* __restrict__ grid_data, float3 p,
                                                 TrackingCounts& counts) {
    if (m.kind == MEDIUM_HOMOGENEOUS) return make_float3(m.sigma_t[0], m.sigma_t[1], m.sigma_t[2]);
    counts.density_lookups += 1u;
    return splat3(__fmul_rn(m.scale, density_at(m, grid_data, p)));
}

// The albedo at local point p (Medium::albedo_local).
__device__ __forceinline__ float3 medium_albedo(const GpuMedium& m, const float* __restrict__ grid_data, float3 p,
                                                TrackingCounts& counts) {
    if (m.albedo_kind == ALBEDO_CONSTANT) return make_float3(m.albedo[0], m.albedo[1], m.albedo[2]);
    counts.albedo_lookups += 1u;
    return albedo_grid_at(m, grid_data, p);
}

__device__ __forceinline__ float3 div3(float3 a, float s) { return a / s; }
__device__ __forceinline__ float3 min3(float3 a, float3 b) {
    return make_float3(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z));
}

// Medium::albedo_along: the albedo at distance t along the world ray (o, d), at the local
// point the free flight's tracker reached there (grid albedos come with grid densities).
__device__ __forceinline__ float3 medium_albedo_along(const GpuMedium& m, const float* __restrict__ grid_data, float3 o,
                                                      float3 d, float t, TrackingCounts& counts) {
    if (m.albedo_kind == ALBEDO_CONSTANT) return make_float3(m.albedo[0], m.albedo[1], m.albedo[2]);
    const float3 p = local_point_along(affine_point(m.world_to_local, o), affine_vector(m.world_to_local, d), t);
    return medium_albedo(m, grid_data, p, counts);
}

// Medium::sample_free_flight: true with the collision distance in `t` (a real collision,
// the path scatters there); `weight` multiplies the path's throughput either way. The
// albedo at a collision is not in `weight`: the scattering vertex multiplies by it. With
// `albedo` non-null it is fetched here, at the tracker's point (the immediate estimator);
// else the vertex fetches it later by medium_albedo_along, at the same point (sortingSK,
// after the paths are reordered).
__device__ __forceinline__ bool sample_free_flight(const GpuMedium& m, const float* __restrict__ grid_data, float3 o,
                                                   float3 d, float t_max, TrackingRng& rng, TrackingCounts& counts,
                                                   float& t, float3& weight, float3* albedo = nullptr) {
    weight = splat3(1.0f);
    Tracker tr;
    if (!tracker_init(m, o, d, t_max, tr)) return false;
    float tau = -det_ln(__fsub_rn(1.0f, rng.next()));
    while (true) {
        const float sigma_bar = tracker_next_collision(tr, m, grid_data, tau);
        if (sigma_bar < 0.0f) return false;
        counts.steps += 1u;
        const float3 p = tracker_position(tr);
        const float3 ratio = div3(medium_sigma_t(m, grid_data, p, counts), sigma_bar);
        const float p_real = m.gray ? ratio.x : __fdiv_rn(__fadd_rn(__fadd_rn(ratio.x, ratio.y), ratio.z), 3.0f);
        if (rng.next() < p_real) {
            if (albedo != nullptr) *albedo = medium_albedo(m, grid_data, p, counts);
            if (!m.gray) weight = weight * div3(ratio, p_real);
            t = tr.t;
            return true;
        }
        if (!m.gray) weight = weight * div3(splat3(1.0f) - ratio, __fsub_rn(1.0f, p_real));
        tau = -det_ln(__fsub_rn(1.0f, rng.next()));
    }
}

// Medium::transmittance: ratio tracking with Russian roulette below 0.05.
__device__ __forceinline__ float3 medium_transmittance(const GpuMedium& m, const float* __restrict__ grid_data,
                                                       float3 o, float3 d, float t_max, TrackingRng& rng,
                                                       TrackingCounts& counts) {
    float3 transmittance = splat3(1.0f);
    Tracker tr;
    if (!tracker_init(m, o, d, t_max, tr)) return transmittance;
    float tau = -det_ln(__fsub_rn(1.0f, rng.next()));
    while (true) {
        const float sigma_bar = tracker_next_collision(tr, m, grid_data, tau);
        if (sigma_bar < 0.0f) return transmittance;
        counts.steps += 1u;
        const float3 ratio = div3(medium_sigma_t(m, grid_data, tracker_position(tr), counts), sigma_bar);
        transmittance = transmittance * (splat3(1.0f) - min3(ratio, splat3(1.0f)));
        const float largest = max_element(transmittance);
        if (largest <= 0.0f) return zero3();
        if (largest < 0.05f) {
            if (rng.next() < 0.75f) return zero3();
            transmittance = transmittance / 0.25f;
        }
        tau = -det_ln(__fsub_rn(1.0f, rng.next()));
    }
}

// The sizes and field offsets of this header's structs are Rust's (src/layout_registry.rs),
// checked by the generated header once the headers each struct needs are complete.
#define WARPATH_LAYOUT_VOLUME_MEDIUM
#include "generated/layout_checks.cuh"
