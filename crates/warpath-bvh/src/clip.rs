//! Convex polygon clipping for SBVH spatial splits: a triangle is clipped to its reference's
//! box and then cut by axis-aligned planes (Sutherland–Hodgman), so a split reference's box
//! bounds the part of the triangle on each side, not the part of its old box.

use glam::Vec3;
use warpath_core::math::Aabb;

/// A triangle clipped to a box has at most 9 vertices and one more cut adds at most one; the
/// spare room absorbs round-off. An overflow makes the caller fall back to box clipping.
const MAX_VERTICES: usize = 16;

/// A convex polygon in a fixed array (no allocation); callers reuse buffers, since the SBVH
/// binning clips millions of them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Polygon {
    vertices: [Vec3; MAX_VERTICES],
    len: usize,
}

impl Polygon {
    pub fn new() -> Polygon {
        Polygon { vertices: [Vec3::ZERO; MAX_VERTICES], len: 0 }
    }

    #[cfg(test)]
    pub fn triangle(tri: &[Vec3; 3]) -> Polygon {
        let mut polygon = Polygon::new();
        polygon.set_triangle(tri);
        polygon
    }

    pub fn set_triangle(&mut self, tri: &[Vec3; 3]) {
        self.vertices[..3].copy_from_slice(tri);
        self.len = 3;
    }

    #[inline(always)]
    fn push(&mut self, p: Vec3) -> bool {
        if self.len == MAX_VERTICES {
            return false;
        }
        self.vertices[self.len] = p;
        self.len += 1;
        true
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg(test)]
    pub fn bounds(&self) -> Aabb {
        Aabb::from_points(&self.vertices[..self.len])
    }

    /// Cuts the polygon by the plane `p[axis] == position` into the parts with
    /// `p[axis] <= position` (`below`) and `p[axis] >= position` (`above`); either may be
    /// `None` to skip that side. Points made on the plane get exactly `position` on `axis`.
    /// Returns false when a part would overflow the vertex array.
    pub fn split_into(
        &self,
        axis: usize,
        position: f32,
        mut below: Option<&mut Polygon>,
        mut above: Option<&mut Polygon>,
    ) -> bool {
        if let Some(b) = below.as_deref_mut() {
            b.len = 0;
        }
        if let Some(a) = above.as_deref_mut() {
            a.len = 0;
        }
        let mut ok = true;
        for i in 0..self.len {
            let a = self.vertices[i];
            let b = self.vertices[if i + 1 == self.len { 0 } else { i + 1 }];
            let da = a[axis] - position;
            let db = b[axis] - position;
            if da <= 0.0
                && let Some(p) = below.as_deref_mut()
            {
                ok &= p.push(a);
            }
            if da >= 0.0
                && let Some(p) = above.as_deref_mut()
            {
                ok &= p.push(a);
            }
            if (da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0) {
                let mut crossing = a + (b - a) * (da / (da - db));
                crossing[axis] = position;
                if let Some(p) = below.as_deref_mut() {
                    ok &= p.push(crossing);
                }
                if let Some(p) = above.as_deref_mut() {
                    ok &= p.push(crossing);
                }
            }
        }
        ok
    }

    /// Writes the part of the polygon inside `bounds` to `out` (`scratch` is a work buffer).
    /// Returns false on vertex overflow.
    pub fn clip_to_box_into(&self, bounds: &Aabb, out: &mut Polygon, scratch: &mut Polygon) -> bool {
        *out = *self;
        let mut ok = true;
        for axis in 0..3 {
            ok &= out.split_into(axis, bounds.min[axis], None, Some(scratch));
            ok &= scratch.split_into(axis, bounds.max[axis], Some(out), None);
        }
        ok
    }
}

/// Box of a clipped piece, made conservative against round-off in the clip points: padded by
/// a few ulps on the axes other than `axis`, then clamped to `within` (the reference's box,
/// already on the right side of the plane).
#[inline]
pub(crate) fn piece_bounds(piece: &Polygon, axis: usize, within: &Aabb) -> Aabb {
    if piece.is_empty() {
        return Aabb::EMPTY;
    }
    let (mut min, mut max) = (piece.vertices[0], piece.vertices[0]);
    for v in &piece.vertices[1..piece.len] {
        min = min.min(*v);
        max = max.max(*v);
    }
    let mut pad = min.abs().max(max.abs()) * 1e-6 + Vec3::splat(f32::MIN_POSITIVE);
    pad[axis] = 0.0;
    Aabb { min: (min - pad).max(within.min), max: (max + pad).min(within.max) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_area_on_both_sides() {
        let tri = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)];
        let (mut below, mut above) = (Polygon::new(), Polygon::new());
        assert!(Polygon::triangle(&tri).split_into(0, 1.0, Some(&mut below), Some(&mut above)));
        let (b, a) = (below.bounds(), above.bounds());
        assert_eq!(b.max.x, 1.0);
        assert_eq!(a.min.x, 1.0);
        assert_eq!(b.max.y, 2.0);
        assert_eq!(a.max.y, 1.0);
        assert_eq!((below.len, above.len), (4, 3));
    }

    #[test]
    fn clip_to_box_bounds_the_inside_part() {
        let tri = [Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), Vec3::new(0.0, 4.0, 0.0)];
        let clip_box = Aabb { min: Vec3::new(2.0, 1.0, -1.0), max: Vec3::new(5.0, 5.0, 1.0) };
        let (mut clipped, mut scratch) = (Polygon::new(), Polygon::new());
        assert!(Polygon::triangle(&tri).clip_to_box_into(&clip_box, &mut clipped, &mut scratch));
        let bounds = clipped.bounds();
        // x >= 2 and y >= 1 leaves the triangle (2,1) (3,1) (2,2).
        assert!((bounds.min - Vec3::new(2.0, 1.0, 0.0)).abs().max_element() < 1e-6);
        assert!((bounds.max - Vec3::new(3.0, 2.0, 0.0)).abs().max_element() < 1e-6);
    }

    #[test]
    fn missing_triangle_clips_to_nothing() {
        let tri = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let far_box = Aabb { min: Vec3::splat(5.0), max: Vec3::splat(6.0) };
        let (mut clipped, mut scratch) = (Polygon::new(), Polygon::new());
        assert!(Polygon::triangle(&tri).clip_to_box_into(&far_box, &mut clipped, &mut scratch));
        assert!(clipped.is_empty());
    }
}
