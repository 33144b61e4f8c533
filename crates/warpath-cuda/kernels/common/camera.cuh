// common/camera.cuh — warpath_core::camera::Camera::generate_ray on the device: a thin
// lens with Mitsuba's conventions (camera space looks down +z, +x to the left, +y up,
// image origin top-left). The camera arrives as GpuCamera (scene.cuh), with
// tan_half_fov already evaluated on the host for this film size.
#pragma once
#include "common/scene.cuh"
#include "common/warp.cuh"

// glam's Mat4::transform_point3 / transform_vector3 (column-major, x then y, z, w).
__device__ __forceinline__ float3 camera_column(const GpuCamera& c, int column) {
    return make_float3(c.to_world[4 * column], c.to_world[4 * column + 1], c.to_world[4 * column + 2]);
}
__device__ __forceinline__ float3 transform_vector3(const GpuCamera& c, float3 v) {
    float3 res = camera_column(c, 0) * v.x;
    res = camera_column(c, 1) * v.y + res;
    res = camera_column(c, 2) * v.z + res;
    return res;
}
__device__ __forceinline__ float3 transform_point3(const GpuCamera& c, float3 v) {
    return camera_column(c, 3) + transform_vector3(c, v);
}

// Primary ray through film position `film` (pixels, top-left origin) with lens sample `lens`.
__device__ __forceinline__ Ray generate_ray(const GpuCamera& c, float2 film, unsigned int width, unsigned int height,
                                            float2 lens) {
    const float sx = __fdiv_rn(film.x, (float)width);
    const float sy = __fdiv_rn(film.y, (float)height);
    float3 dir_local = make_float3(__fmul_rn(__fsub_rn(1.0f, __fmul_rn(2.0f, sx)), c.tan_half_fov[0]),
                                   __fmul_rn(__fsub_rn(1.0f, __fmul_rn(2.0f, sy)), c.tan_half_fov[1]), 1.0f);
    float3 origin_local = zero3();
    if (c.aperture_radius > 0.0f) {
        const float2 disk = square_to_disk_concentric(lens);
        const float2 l = make_float2(__fmul_rn(c.aperture_radius, disk.x), __fmul_rn(c.aperture_radius, disk.y));
        const float3 focus = dir_local * c.focus_distance;
        origin_local = make_float3(l.x, l.y, 0.0f);
        dir_local = focus - origin_local;
    }
    const float3 o = transform_point3(c, origin_local);
    const float3 d = normalize(transform_vector3(c, dir_local));
    return make_ray(o, d);
}
