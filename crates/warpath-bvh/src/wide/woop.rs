//! Triangles of the wide BVH in Woop's layout: per reference, the three rows of the affine map
//! that takes the triangle to the unit triangle (Woop's unit-triangle test, as Aila and Laine's
//! GPU kernels store it), the specification of `traversal/woop.cuh`.
//!
//! For a triangle `v0, v1, v2` with edges `e1 = v1 - v0`, `e2 = v2 - v0` and normal
//! `n = e1 × e2`, the map `p ↦ (u, v, w)` with `p = v0 + u e1 + v e2 + w n` has the rows
//! `(e2 × n) / |n|²`, `(n × e1) / |n|²`, `n / |n|²` (each with `-row · v0` as its offset). A ray
//! meets the plane `w = 0` at `t = (n'·v0 - n'·o) / (n'·d)` (`n' = n / |n|²`), and hits the
//! triangle when `u = (u-row at o) + t (u-row · d)` and `v` likewise satisfy `u, v >= 0`,
//! `u + v <= 1`: `u` and `v` are the barycentrics of `v1` and `v2`, as Möller–Trumbore's.
//!
//! The rows are computed once in `f64` and rounded to `f32` ([`woop_rows`]); a triangle whose
//! normal vanishes (or whose rows do not fit an `f32`) gets zero rows, which never hit (`t` is
//! `0 / 0`). The test ([`intersect_woop`]) is 17 fused multiply-adds, 3 products, a sum, one
//! division and the comparisons, against Möller–Trumbore's 42 rounded products and sums, a
//! division and 3 more products: the GPU kernel does the same operations in the same order
//! (`__fmaf_rn`), so its hits equal this code's bit for bit. They equal Möller–Trumbore's to
//! round-off only (the two tests round differently), so the Woop traversal is checked against
//! [`woop_brute_force_intersect`] exactly, and against [`crate::brute_force_intersect`] within
//! a tolerance.

use super::WideBvh;
use crate::Hit;
use glam::{DVec3, Vec3};
use std::fmt;
use warpath_core::math::Ray;

/// Which triangle records the wide BVH's traversal tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WideTriangles {
    /// `v0, v1 - v0, v2 - v0` per reference, Möller–Trumbore's test (the renderers' layout).
    #[default]
    Plain,
    /// Woop's three rows per reference ([`WoopTriangles`]), the unit-triangle test.
    Woop,
}

impl WideTriangles {
    pub const ALL: [WideTriangles; 2] = [WideTriangles::Plain, WideTriangles::Woop];

    /// `plain` or `woop`.
    pub fn name(self) -> &'static str {
        match self {
            WideTriangles::Plain => "plain",
            WideTriangles::Woop => "woop",
        }
    }

    /// Parses [`WideTriangles::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for WideTriangles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Woop's rows of one triangle: `[t-row, u-row, v-row]`, each `[x, y, z, w]`; see the module
/// docs. `t = (t.w - t.xyz · o) / (t.xyz · d)`, `u = u.w + u.xyz · o + t (u.xyz · d)`, `v` as `u`.
pub type WoopRows = [[f32; 4]; 3];

/// The rows of `tri` (zero rows for a triangle without a normal or with rows beyond `f32`).
pub fn woop_rows(tri: &[Vec3; 3]) -> WoopRows {
    let [v0, v1, v2] = tri.map(|v| v.as_dvec3());
    let (e1, e2) = (v1 - v0, v2 - v0);
    let n = e1.cross(e2);
    let det = n.dot(n);
    if !(det > 0.0 && det.is_finite()) {
        return [[0.0; 4]; 3];
    }
    let row = |a: DVec3, w: f64| [a.x as f32, a.y as f32, a.z as f32, w as f32];
    let t_axis = n / det;
    let u_axis = e2.cross(n) / det;
    let v_axis = n.cross(e1) / det;
    let rows = [row(t_axis, t_axis.dot(v0)), row(u_axis, -u_axis.dot(v0)), row(v_axis, -v_axis.dot(v0))];
    if rows.iter().flatten().all(|x| x.is_finite()) { rows } else { [[0.0; 4]; 3] }
}

/// `w + a · p` as three fused multiply-adds (z first), the kernel's order.
#[inline(always)]
fn affine(row: &[f32; 4], p: Vec3) -> f32 {
    row[0].mul_add(p.x, row[1].mul_add(p.y, row[2].mul_add(p.z, row[3])))
}

/// `w - a · p` as three fused multiply-adds (z first).
#[inline(always)]
fn affine_negated(row: &[f32; 4], p: Vec3) -> f32 {
    (-row[0]).mul_add(p.x, (-row[1]).mul_add(p.y, (-row[2]).mul_add(p.z, row[3])))
}

/// `a · d`: one product and two fused multiply-adds (z first).
#[inline(always)]
fn linear(row: &[f32; 4], d: Vec3) -> f32 {
    row[0].mul_add(d.x, row[1].mul_add(d.y, row[2] * d.z))
}

/// Woop's test of the ray `o + t d` against a triangle's rows: `(t, u, v)` when `t_min < t <
/// t_max`, `t <= t_best` (the closest hit's bound: a triangle beyond the best hit is rejected
/// before its barycentrics are computed; `t_max` when there is none) and `u, v >= 0`,
/// `u + v <= 1`. Both faces hit; NaN anywhere is a miss.
#[inline(always)]
pub fn intersect_woop(
    rows: &WoopRows,
    o: Vec3,
    d: Vec3,
    t_min: f32,
    t_max: f32,
    t_best: f32,
) -> Option<(f32, f32, f32)> {
    let t = affine_negated(&rows[0], o) / linear(&rows[0], d);
    if !(t > t_min && t < t_max && t <= t_best) {
        return None;
    }
    let u = t.mul_add(linear(&rows[1], d), affine(&rows[1], o));
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let v = t.mul_add(linear(&rows[2], d), affine(&rows[2], o));
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    Some((t, u, v))
}

/// The Woop rows of a wide BVH's references: `rows[i]` is triangle `prim_indices[i]`'s (the
/// order the kernels read them in; SBVH's duplicate references get a copy each).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WoopTriangles {
    pub rows: Vec<WoopRows>,
}

impl WoopTriangles {
    /// The rows of `wide`'s references; `tris` the triangles it was built over.
    pub fn new(wide: &WideBvh, tris: &[[Vec3; 3]]) -> WoopTriangles {
        WoopTriangles { rows: wide.prim_indices.iter().map(|&prim| woop_rows(&tris[prim as usize])).collect() }
    }

    /// Bytes of the rows (48 a reference).
    pub fn memory_bytes(&self) -> usize {
        self.rows.len() * std::mem::size_of::<WoopRows>()
    }
}

/// The closest Woop hit over every triangle (ties in `t` to the lower index): what
/// [`WideBvh::intersect_woop`] returns, but for hits the tree cannot reach (a `t` outside the
/// triangle's box by round-off).
pub fn woop_brute_force_intersect(tris: &[[Vec3; 3]], ray: &Ray) -> Option<Hit> {
    let mut best: Option<Hit> = None;
    for (prim, tri) in tris.iter().enumerate() {
        let t_best = best.map_or(ray.t_max, |b| b.t);
        if let Some((t, u, v)) = intersect_woop(&woop_rows(tri), ray.o, ray.d, ray.t_min, ray.t_max, t_best)
            && best.is_none_or(|b| t < b.t)
        {
            best = Some(Hit { t, u, v, prim: prim as u32 });
        }
    }
    best
}
