//! An isosurface placed in a scene, as a shape of the path tracer (issue 14 item 5): the
//! lattice, its brick tree condensed once for the shape's isovalue, and the affine map from
//! world space to lattice space.
//!
//! Placement follows warpath's media (and Mitsuba 3's `gridvolume`): the volume fills the unit
//! cube of object space, which the shape's `to_world` places in the scene; lattice point x
//! sits at object point (x + ½)/n along each axis (crate::lattice). A world ray
//! `o + t·d` maps to the lattice ray `A·o + b + t·(A·d)` with the same t (the direction is
//! not renormalised), so a hit's t is a world distance along the world ray, and the caster
//! ([`crate::caster::cast_bvh_within`]) clips to the ray's own `[t_min, t_max]`.
//!
//! Orientation: the surface's outside is where the field is below the isovalue (air around a
//! CT scan's tissue; the inside of a glass isosurface is where the values are higher), so the
//! outward normal is the world-space gradient negated: `−normalize(Aᵀ·∇f)`.
//!
//! The GPU twin (`kernels/isosurface/shapes.cuh`) reads the same f64 map (GpuIsoShape).

use crate::bricks::{BrickBvh, CondensedTree};
use crate::caster::cast_bvh_within;
use crate::lattice::Lattice;
use glam::{DMat4, DVec3, DVec4, Mat4, Vec3};

/// A ray's hit on a placed isosurface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHit {
    /// World distance along the ray (in units of the ray's direction).
    pub t: f32,
    /// Unit outward normal in world space (toward lower values); the ray's reverse where
    /// the gradient vanishes.
    pub normal: Vec3,
}

/// An isosurface of a volume placed in the world.
pub struct PlacedIsosurface {
    pub lattice: Lattice,
    pub bvh: BrickBvh,
    /// The tree of `isovalue` (empty when the isovalue is outside the volume's range).
    pub tree: CondensedTree,
    pub isovalue: f32,
    /// Rows of the 3×4 world → lattice map: lattice = A·world + b (columns 0..3: A, 3: b).
    pub world_to_lattice: [[f64; 4]; 3],
    /// Aᵀ, row-major: a lattice gradient times this is the world gradient.
    pub gradient_to_world: [[f64; 3]; 3],
    /// World box of the lattice box (the eight corners mapped).
    pub world_bounds: (Vec3, Vec3),
}

impl std::fmt::Debug for PlacedIsosurface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlacedIsosurface")
            .field("samples", &self.lattice.samples)
            .field("isovalue", &self.isovalue)
            .field("brick_cells", &self.bvh.brick_cells)
            .field("world_bounds", &self.world_bounds)
            .finish()
    }
}

impl PlacedIsosurface {
    /// Builds the brick tree (`brick_cells`³ cells per brick), condenses it at `isovalue` and
    /// places the unit cube with `to_world` (an invertible affine map).
    pub fn new(lattice: Lattice, isovalue: f32, to_world: Mat4, brick_cells: u32) -> Self {
        let bvh = BrickBvh::build(&lattice, brick_cells);
        let tree = bvh.condense(isovalue);
        let n = lattice.samples.map(|s| s as f64);
        // lattice → object: u = (x + ½)/n; object → world: to_world.
        let lattice_to_object = DMat4::from_cols(
            DVec4::new(1.0 / n[0], 0.0, 0.0, 0.0),
            DVec4::new(0.0, 1.0 / n[1], 0.0, 0.0),
            DVec4::new(0.0, 0.0, 1.0 / n[2], 0.0),
            DVec4::new(0.5 / n[0], 0.5 / n[1], 0.5 / n[2], 1.0),
        );
        let lattice_to_world = to_world.as_dmat4() * lattice_to_object;
        let inverse = lattice_to_world.inverse();
        let world_to_lattice = std::array::from_fn(|r| inverse.row(r).to_array());
        let gradient_to_world = std::array::from_fn(|r| std::array::from_fn(|c| inverse.col(r)[c]));
        let upper = lattice.upper();
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for corner in 0..8 {
            let p = DVec3::new(
                if corner & 1 == 0 { 0.0 } else { upper[0] },
                if corner & 2 == 0 { 0.0 } else { upper[1] },
                if corner & 4 == 0 { 0.0 } else { upper[2] },
            );
            let w = lattice_to_world.transform_point3(p).as_vec3();
            lo = lo.min(w);
            hi = hi.max(w);
        }
        PlacedIsosurface { lattice, bvh, tree, isovalue, world_to_lattice, gradient_to_world, world_bounds: (lo, hi) }
    }

    /// The ray in lattice space: `(A·o + b, A·d)`, each row summed left to right.
    pub fn lattice_ray(&self, origin: Vec3, direction: Vec3) -> ([f64; 3], [f64; 3]) {
        let (o, d) = (origin.as_dvec3(), direction.as_dvec3());
        let m = &self.world_to_lattice;
        let lo = std::array::from_fn(|r| m[r][0] * o.x + m[r][1] * o.y + m[r][2] * o.z + m[r][3]);
        let ld = std::array::from_fn(|r| m[r][0] * d.x + m[r][1] * d.y + m[r][2] * d.z);
        (lo, ld)
    }

    /// The first hit of `origin + t·direction` with t in `(t_min, t_max)`.
    pub fn intersect(&self, origin: Vec3, direction: Vec3, t_min: f32, t_max: f32) -> Option<ShapeHit> {
        if !(t_min < t_max) {
            return None;
        }
        let (lo, ld) = self.lattice_ray(origin, direction);
        let hit =
            cast_bvh_within(&self.lattice, &self.bvh, &self.tree, lo, ld, self.isovalue, (t_min as f64, t_max as f64))?;
        let t = hit.t as f32;
        if !(t > t_min && t < t_max) {
            return None;
        }
        let g = self.gradient_to_world;
        let n = hit.normal;
        let world: [f64; 3] = std::array::from_fn(|r| g[r][0] * n[0] + g[r][1] * n[1] + g[r][2] * n[2]);
        let length = (world[0] * world[0] + world[1] * world[1] + world[2] * world[2]).sqrt();
        let normal = if length > 0.0 && length.is_finite() {
            -Vec3::new((world[0] / length) as f32, (world[1] / length) as f32, (world[2] / length) as f32)
        } else {
            -direction.normalize_or_zero()
        };
        Some(ShapeHit { t, normal })
    }
}

/// A unit vector as two numbers in [−1, 1] (the octahedral map): how a hit's normal travels
/// in the two barycentric slots of the path tracer's hit record.
pub fn octahedral_encode(n: Vec3) -> (f32, f32) {
    let l1 = n.x.abs() + n.y.abs() + n.z.abs();
    if !(l1 > 0.0) {
        return (0.0, 0.0);
    }
    let (x, y, z) = (n.x / l1, n.y / l1, n.z / l1);
    if z >= 0.0 {
        (x, y)
    } else {
        let sx = if x >= 0.0 { 1.0 } else { -1.0 };
        let sy = if y >= 0.0 { 1.0 } else { -1.0 };
        ((1.0 - y.abs()) * sx, (1.0 - x.abs()) * sy)
    }
}

/// The unit vector of [`octahedral_encode`].
pub fn octahedral_decode(u: f32, v: f32) -> Vec3 {
    let z = 1.0 - u.abs() - v.abs();
    let (x, y) = if z >= 0.0 {
        (u, v)
    } else {
        let sx = if u >= 0.0 { 1.0 } else { -1.0 };
        let sy = if v >= 0.0 { 1.0 } else { -1.0 };
        ((1.0 - v.abs()) * sx, (1.0 - u.abs()) * sy)
    };
    Vec3::new(x, y, z).normalize_or_zero()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caster::cast_reference;
    use crate::fields;

    fn sphere_lattice(n: u32) -> Lattice {
        // Minus the distance from the lattice centre (higher inside, like a scan's tissue): the
        // isosurface −r is a sphere of radius r (to interpolation error).
        let c = (n - 1) as f32 / 2.0;
        Lattice::from_fn([n, n, n], |i, j, k| {
            -((i as f32 - c).powi(2) + (j as f32 - c).powi(2) + (k as f32 - c).powi(2)).sqrt()
        })
        .unwrap()
    }

    #[test]
    fn a_placed_sphere_is_hit_where_the_world_says_and_faces_outward() {
        // 33 samples: lattice 0..32 ↔ object (x+½)/33; the world is the cube scaled by 2 and
        // moved by (−1, −1, −1): the lattice centre 16 maps to world (0, 0, 0).
        let n = 33;
        let lattice = sphere_lattice(n);
        let to_world = Mat4::from_translation(Vec3::splat(-1.0)) * Mat4::from_scale(Vec3::splat(2.0));
        let radius_cells = 10.0;
        let shape = PlacedIsosurface::new(lattice, -radius_cells, to_world, 4);
        let cell = 2.0 / n as f32; // world size of a lattice unit
        let origin = Vec3::new(0.0, 0.0, -5.0);
        let hit = shape.intersect(origin, Vec3::Z, 0.0, f32::INFINITY).expect("hits the sphere");
        let expected = 5.0 - radius_cells * cell;
        assert!((hit.t - expected).abs() < 0.02 * cell, "t {} vs {expected}", hit.t);
        // Outward, to the trilinear interpolant's one-sided gradient on a cell face.
        assert!((hit.normal - Vec3::NEG_Z).length() < 0.1, "normal {:?}", hit.normal);
        // An unnormalised direction keeps t a parameter of the world ray.
        let half = shape.intersect(origin, Vec3::Z * 2.0, 0.0, f32::INFINITY).unwrap();
        assert!((half.t * 2.0 - hit.t).abs() < 1e-5);
        // The range is respected: up to just before the hit nothing, from just after it the far side.
        assert!(shape.intersect(origin, Vec3::Z, 0.0, hit.t * 0.999).is_none());
        let far = shape.intersect(origin, Vec3::Z, hit.t + 0.01, f32::INFINITY).unwrap();
        assert!((far.t - (5.0 + radius_cells * cell)).abs() < 0.02 * cell, "far t {}", far.t);
        assert!((far.normal - Vec3::Z).length() < 0.1, "far normal {:?}", far.normal);
        // The world box holds the lattice box: (½)/33·2 − 1 .. (32½)/33·2 − 1.
        let (lo, hi) = shape.world_bounds;
        assert!((lo - Vec3::splat(1.0 / 33.0 - 1.0)).abs().max_element() < 1e-5, "{lo:?}");
        assert!((hi - Vec3::splat(65.0 / 33.0 - 1.0)).abs().max_element() < 1e-5, "{hi:?}");
    }

    #[test]
    fn hits_are_the_reference_casters_in_lattice_space_under_a_rotation() {
        let lattice = fields::marschner_lobb([21, 17, 19]);
        let to_world = Mat4::from_translation(Vec3::new(0.3, -0.2, 1.0))
            * Mat4::from_axis_angle(Vec3::new(1.0, 2.0, 0.5).normalize(), 0.7)
            * Mat4::from_scale(Vec3::new(1.5, 0.8, 1.1));
        let shape = PlacedIsosurface::new(lattice.clone(), 0.5, to_world, 4);
        let mut rng = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 40) as f32 / (1u64 << 24) as f32
        };
        let (mut hits, mut checked) = (0, 0);
        for _ in 0..400 {
            let origin = Vec3::new(next() * 6.0 - 3.0, next() * 6.0 - 3.0, next() * 6.0 - 3.0);
            let target = shape.world_bounds.0
                + (shape.world_bounds.1 - shape.world_bounds.0) * Vec3::new(next(), next(), next());
            let direction = (target - origin).normalize();
            let (lo, ld) = shape.lattice_ray(origin, direction);
            let reference = cast_reference(&lattice, lo, ld, 0.5);
            let ours = shape.intersect(origin, direction, 0.0, f32::INFINITY);
            checked += 1;
            match (reference, ours) {
                (Some(r), Some(h)) => {
                    hits += 1;
                    assert!(((r.t as f32) - h.t).abs() <= 1e-6 * h.t.max(1.0), "t {} vs {}", r.t, h.t);
                    // The outward normal opposes the lattice gradient mapped to the world.
                    let g = shape.gradient_to_world;
                    let w = Vec3::from_array(std::array::from_fn(|a| {
                        (g[a][0] * r.normal[0] + g[a][1] * r.normal[1] + g[a][2] * r.normal[2]) as f32
                    }));
                    assert!(w.dot(h.normal) < 0.0 || w == Vec3::ZERO);
                }
                (None, None) => {}
                (r, h) => panic!("reference {r:?} vs shape {h:?}"),
            }
        }
        assert!(hits > 50, "{hits} of {checked} rays hit: the test needs hits");
    }

    #[test]
    fn octahedral_normals_round_trip() {
        for (i, n) in [Vec3::X, Vec3::NEG_Y, Vec3::new(0.3, -0.5, -0.8), Vec3::new(-0.1, 0.2, 0.97), Vec3::NEG_Z]
            .into_iter()
            .enumerate()
        {
            let n = n.normalize();
            let (u, v) = octahedral_encode(n);
            assert!((octahedral_decode(u, v) - n).length() < 1e-6, "case {i}: {n:?}");
        }
    }

    #[test]
    fn an_isovalue_outside_the_range_hits_nothing() {
        let shape = PlacedIsosurface::new(sphere_lattice(9), 100.0, Mat4::IDENTITY, 4);
        assert!(shape.tree.root.is_none());
        assert!(shape.intersect(Vec3::new(0.5, 0.5, -1.0), Vec3::Z, 0.0, f32::INFINITY).is_none());
    }
}
