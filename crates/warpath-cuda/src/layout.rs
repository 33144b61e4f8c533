//! The traversal records the GPU reads and writes, defined here (`#[repr(C)]`, `Pod`) and
//! mirrored in `kernels/common/layout.cuh`: the Aila–Laine node, the triangle record,
//! [`GpuRay`], [`GpuHit`]. That header also mirrors warpath-core's `Material` and
//! `TriangleLight`, which the megakernel reads as they are. Every size and field offset is
//! checked against Rust's by the generated `kernels/generated/layout_checks.cuh`
//! ([`crate::layout_registry`]).

use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::mem::size_of;
use warpath_core::light::TriangleLight;
use warpath_core::material::Material;
use warpath_core::math::Ray;

/// One node of the Aila–Laine BVH layout (seed 004, "Data structures"): the boxes of its
/// two children and their indices, in four float4 (64 bytes), fetched with `__ldg`.
///
/// A child index `i >= 0` is another node; a negative index `~a` is a leaf whose triangles
/// start at float4 slot `a` of the triangle array.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct AilaLaineNode {
    /// `(c0.lo.x, c0.hi.x, c0.lo.y, c0.hi.y)`.
    pub child0_xy: [f32; 4],
    /// `(c1.lo.x, c1.hi.x, c1.lo.y, c1.hi.y)`.
    pub child1_xy: [f32; 4],
    /// `(c0.lo.z, c0.hi.z, c1.lo.z, c1.hi.z)`.
    pub children_z: [f32; 4],
    /// Child 0 and child 1 (node index, or `!slot` for a leaf).
    pub child_index: [i32; 2],
    pub _pad: [i32; 2],
}

/// One triangle as the traversal kernels read it: three float4 (48 bytes), in the form
/// Möller–Trumbore needs, so that the GPU computes exactly what
/// `warpath_core::math::intersect_triangle` computes: `v0`, `edge1 = v1 - v0`,
/// `edge2 = v2 - v0` (rounded once, on the host, as the CPU does). `v0.w` is 0 for a
/// triangle; a float4 whose `w` has the bits [`END_OF_LEAF`] ends a leaf.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuTriangle {
    pub v0: [f32; 4],
    pub edge1: [f32; 4],
    pub edge2: [f32; 4],
}

/// Bits of the `w` word of the float4 that follows a leaf's last triangle (negative zero,
/// the marker of seed 004; kept in `w`, which is otherwise 0, so no vertex value collides).
pub const END_OF_LEAF: u32 = 0x8000_0000;

/// A ray as two float4: `(origin, t_min)`, `(direction, t_max)`. Hits count for
/// `t_min < t < t_max`.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuRay {
    pub origin: Vec3,
    pub t_min: f32,
    pub direction: Vec3,
    pub t_max: f32,
}

impl From<&Ray> for GpuRay {
    fn from(ray: &Ray) -> Self {
        GpuRay { origin: ray.o, t_min: ray.t_min, direction: ray.d, t_max: ray.t_max }
    }
}

impl From<Ray> for GpuRay {
    fn from(ray: Ray) -> Self {
        GpuRay::from(&ray)
    }
}

impl GpuRay {
    pub fn to_ray(&self) -> Ray {
        Ray { o: self.origin, d: self.direction, t_min: self.t_min, t_max: self.t_max }
    }
}

/// A traversal result: distance, barycentrics of vertices 1 and 2, and the original
/// triangle index, or `prim == -1` (then `t` is the ray's `t_max`) for a miss.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuHit {
    pub t: f32,
    pub u: f32,
    pub v: f32,
    pub prim: i32,
}

impl GpuHit {
    pub fn is_hit(&self) -> bool {
        self.prim >= 0
    }
}

const _: () = assert!(size_of::<AilaLaineNode>() == 64);
const _: () = assert!(size_of::<GpuTriangle>() == 48);
const _: () = assert!(size_of::<GpuRay>() == 32);
const _: () = assert!(size_of::<GpuHit>() == 16);
const _: () = assert!(size_of::<Material>() == 128);
const _: () = assert!(size_of::<TriangleLight>() == 64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_conversion_round_trips() {
        let ray = Ray { o: Vec3::new(1.0, 2.0, 3.0), d: Vec3::new(0.0, -1.0, 0.5), t_min: 0.25, t_max: 9.0 };
        let gpu = GpuRay::from(&ray);
        let words: [f32; 8] = bytemuck::cast(gpu);
        assert_eq!(words, [1.0, 2.0, 3.0, 0.25, 0.0, -1.0, 0.5, 9.0]);
        let back = gpu.to_ray();
        assert_eq!((back.o, back.d, back.t_min, back.t_max), (ray.o, ray.d, ray.t_min, ray.t_max));
    }
}
