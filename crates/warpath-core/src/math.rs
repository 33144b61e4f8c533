//! Rays, bounding boxes, orthonormal frames and small geometric helpers.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// A ray `o + t d` for `t` in `[t_min, t_max)`. `d` need not be normalized for BVH
/// traversal, but every ray the integrator makes has a unit direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    pub o: Vec3,
    pub d: Vec3,
    pub t_min: f32,
    pub t_max: f32,
}

impl Ray {
    pub fn new(o: Vec3, d: Vec3) -> Self {
        Ray { o, d, t_min: 0.0, t_max: f32::INFINITY }
    }
    pub fn segment(o: Vec3, d: Vec3, t_max: f32) -> Self {
        Ray { o, d, t_min: 0.0, t_max }
    }
    pub fn at(&self, t: f32) -> Vec3 {
        self.o + self.d * t
    }
}

/// Axis-aligned bounding box. An empty box has `min > max`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb { min: Vec3::splat(f32::INFINITY), max: Vec3::splat(f32::NEG_INFINITY) };

    #[inline]
    pub fn from_points(points: &[Vec3]) -> Self {
        points.iter().fold(Self::EMPTY, |b, &p| b.grow(p))
    }
    #[inline]
    pub fn grow(self, p: Vec3) -> Self {
        Aabb { min: self.min.min(p), max: self.max.max(p) }
    }
    #[inline]
    pub fn union(self, o: Aabb) -> Self {
        Aabb { min: self.min.min(o.min), max: self.max.max(o.max) }
    }
    #[inline]
    pub fn intersection(self, o: Aabb) -> Self {
        Aabb { min: self.min.max(o.min), max: self.max.min(o.max) }
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x || self.min.y > self.max.y || self.min.z > self.max.z
    }
    #[inline]
    pub fn extent(&self) -> Vec3 {
        if self.is_empty() { Vec3::ZERO } else { self.max - self.min }
    }
    #[inline]
    pub fn center(&self) -> Vec3 {
        0.5 * (self.min + self.max)
    }
    /// Surface area; 0 for an empty box.
    #[inline]
    pub fn area(&self) -> f32 {
        let e = self.extent();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }
    /// Slab test; returns the entry distance if the ray overlaps `[t_min, t_max)`.
    /// Entry and exit planes are chosen by the sign of the direction, and NaN from
    /// `0 × inf` (origin on a plane, direction parallel to it) is dropped by `max`/`min`,
    /// so such a ray counts as inside that slab; an empty box is never hit.
    #[inline]
    pub fn hit(&self, o: Vec3, inv_d: Vec3, t_min: f32, t_max: f32) -> Option<f32> {
        if self.is_empty() {
            return None;
        }
        let mut near = t_min;
        let mut far = t_max;
        for axis in 0..3 {
            let (lo, hi) =
                if inv_d[axis] < 0.0 { (self.max[axis], self.min[axis]) } else { (self.min[axis], self.max[axis]) };
            near = near.max((lo - o[axis]) * inv_d[axis]);
            far = far.min((hi - o[axis]) * inv_d[axis]);
        }
        (near <= far).then_some(near)
    }
}

/// An orthonormal basis whose `n` is the local +z axis (shading frame).
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub s: Vec3,
    pub t: Vec3,
    pub n: Vec3,
}

impl Frame {
    /// Builds a frame around the unit vector `n` (Duff et al. 2017, branchless).
    pub fn from_normal(n: Vec3) -> Self {
        let sign = 1.0f32.copysign(n.z);
        let a = -1.0 / (sign + n.z);
        let b = n.x * n.y * a;
        let s = Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
        let t = Vec3::new(b, sign + n.y * n.y * a, -n.y);
        Frame { s, t, n }
    }
    pub fn to_local(&self, v: Vec3) -> Vec3 {
        Vec3::new(v.dot(self.s), v.dot(self.t), v.dot(self.n))
    }
    pub fn to_world(&self, v: Vec3) -> Vec3 {
        self.s * v.x + self.t * v.y + self.n * v.z
    }
}

/// Offsets a ray origin along the geometric normal so that the new ray does not hit
/// the surface it leaves (scale-aware epsilon, as in Ray Tracing Gems ch. 6 in spirit).
pub fn offset_ray_origin(p: Vec3, ng: Vec3, dir: Vec3) -> Vec3 {
    let scale = 1e-4 * (1.0 + p.abs().max_element());
    let n = if ng.dot(dir) < 0.0 { -ng } else { ng };
    p + n * scale
}

/// Ray/triangle intersection (Möller–Trumbore). Returns `(t, u, v)` with barycentrics
/// of `v1` and `v2`. Both faces hit. The GPU kernels use the same arithmetic.
#[inline]
pub fn intersect_triangle(
    o: Vec3,
    d: Vec3,
    v0: Vec3,
    v1: Vec3,
    v2: Vec3,
    t_min: f32,
    t_max: f32,
) -> Option<(f32, f32, f32)> {
    let e1 = v1 - v0;
    let e2 = v2 - v0;
    let pvec = d.cross(e2);
    let det = e1.dot(pvec);
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv_det = 1.0 / det;
    let tvec = o - v0;
    let u = tvec.dot(pvec) * inv_det;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let qvec = tvec.cross(e1);
    let v = d.dot(qvec) * inv_det;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(qvec) * inv_det;
    (t > t_min && t < t_max).then_some((t, u, v))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn frame_is_orthonormal() {
        for n in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::Z, Vec3::new(0.3, -0.5, 0.8).normalize()] {
            let f = Frame::from_normal(n);
            assert!((f.s.dot(f.t)).abs() < 1e-6 && (f.s.dot(f.n)).abs() < 1e-6 && (f.t.dot(f.n)).abs() < 1e-6);
            assert!((f.s.length() - 1.0).abs() < 1e-6 && (f.t.length() - 1.0).abs() < 1e-6);
            let v = Vec3::new(0.1, 0.2, 0.3);
            assert!((f.to_world(f.to_local(v)) - v).length() < 1e-6);
        }
    }
    #[test]
    fn aabb_hit_is_robust() {
        let b = Aabb { min: Vec3::ZERO, max: Vec3::ONE };
        let inv = |d: Vec3| Vec3::ONE / d;
        // Origin on the x = 0 plane, direction parallel to it: 0 × inf is NaN; still a hit.
        assert!(b.hit(Vec3::new(0.0, 0.5, -1.0), inv(Vec3::Z), 0.0, f32::INFINITY).is_some());
        // Outside the slab of a zero direction component: a miss.
        assert!(b.hit(Vec3::new(2.0, 0.5, -1.0), inv(Vec3::Z), 0.0, f32::INFINITY).is_none());
        // The empty box is never hit.
        assert!(Aabb::EMPTY.hit(Vec3::splat(0.5), inv(Vec3::ONE), 0.0, f32::INFINITY).is_none());
        // Entry distance along a negative direction.
        let t = b.hit(Vec3::new(0.5, 0.5, 3.0), inv(-Vec3::Z), 0.0, f32::INFINITY).unwrap();
        assert!((t - 2.0).abs() < 1e-6);
    }

    #[test]
    fn triangle_hit_and_miss() {
        let (a, b, c) = (Vec3::ZERO, Vec3::X, Vec3::Y);
        let h = intersect_triangle(Vec3::new(0.25, 0.25, 1.0), -Vec3::Z, a, b, c, 0.0, f32::INFINITY).unwrap();
        assert!((h.0 - 1.0).abs() < 1e-6 && (h.1 - 0.25).abs() < 1e-6 && (h.2 - 0.25).abs() < 1e-6);
        assert!(intersect_triangle(Vec3::new(0.75, 0.75, 1.0), -Vec3::Z, a, b, c, 0.0, f32::INFINITY).is_none());
    }
}
