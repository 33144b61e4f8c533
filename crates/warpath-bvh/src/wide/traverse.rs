//! The reference traversal of the compressed 8-wide BVH: the specification of the GPU kernel.
//!
//! After Ylitie, Karras and Laine's algorithm 1. The state is two *groups*, each a pair of 32-bit
//! words `(base, bits)`:
//! - a node group: `base` is a node's `child_base`, `bits` has bit `24 + (s ^ oct_inv)` set for
//!   each hit, not yet visited internal child in slot `s`, and that node's `imask` in bits 0..8;
//! - a triangle group: `base` is a node's `tri_base`, bit `i < 24` set for each triangle
//!   `prim_indices[base + i]` still to test.
//!
//! `oct_inv = 7 - oct`, `oct` the ray's octant (bit `a` set when the direction's component `a` is
//! negative: `1 / d[a] < 0`, so `-0.0` counts as negative). Children are assigned to slots so that
//! slot `s` lies toward `+` on axis `a` when bit `a` of `s` is set; visiting the highest set bit
//! first visits `s ^ oct = 0, 1, ..., 7` in turn: near children (in the ray's direction) first.
//!
//! A loop iteration: if the node group has children left, take the highest one, remove it,
//! push the group if children remain, fetch the child node and intersect its 8 quantized boxes;
//! the hit internal children become the new node group, the hit leaves' triangles the triangle
//! group. (Otherwise the node group is a triangle group taken from the stack.) Then test the
//! triangle group's triangles (lowest bit first), and if the node group has no children left,
//! pop the stack (or stop). The start is the node group `(0, 0x8000_0000)`: a pretend parent
//! whose only hit child, slot `oct` at bit 31 with `imask = 0`, is node 0.
//!
//! The box test is the paper's: per node and axis the ray is expressed in the node's quantized
//! grid ([`AxisRay`]), so each plane costs one fused multiply-add (`q * 2^e / d + (p - o) / d`);
//! entry and exit planes by the direction's sign, the offsets moved outward by a bound on their
//! rounding, NaN slabs dropped by `max`/`min` taking the other operand, exit widened by
//! `1 + 2γ₃`, and a box entered when `max(entries, t_min) <= min(min(exits) * widening, cull)`,
//! where `cull` is the best hit's `t` plus a relative `1e-5` slack (`t_max` plus slack before any
//! hit). Triangles are `intersect_triangle`'s Möller–Trumbore (the plain layout) or Woop's
//! unit-triangle test (`woop.rs`, [`WideBvh::intersect_woop`]), and the closest hit keeps the
//! least `(t, prim)`, so the result is brute force's (with that test).

use super::woop::{WoopTriangles, intersect_woop};
use super::{WIDTH, WideBvh, WideNode};
use crate::Hit;
use glam::Vec3;
use warpath_core::math::{Ray, intersect_triangle};

/// Stack entries the traversal needs: at most one per level (the node group of the siblings
/// still to visit), and the builders keep the depth far below this.
pub const WIDE_STACK_SIZE: usize = 128;

/// `1 + 2γ₃` with `γₙ = nε / (1 - nε)`, `ε = 2⁻²⁴` (as in `traverse.rs`).
const EXIT_WIDENING: f32 = 1.0 + 2.0 * (3.0 * f32::EPSILON * 0.5) / (1.0 - 3.0 * f32::EPSILON * 0.5);
/// Boxes that start within this relative distance beyond the best hit are still entered.
const CULL_SLACK: f32 = 1e-5;
/// Node-group bits (hit internal children).
const NODE_BITS: u32 = 0xff00_0000;
/// Triangle-group bits.
const TRI_BITS: u32 = 0x00ff_ffff;

/// Work of one traversal: nodes fetched (their 8 boxes tested) and triangles tested.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraversalCounts {
    pub nodes: u32,
    pub triangles: u32,
}

struct WideRay {
    origin: Vec3,
    direction: Vec3,
    inv_direction: Vec3,
    negative: [bool; 3],
    oct_inv: u32,
    t_min: f32,
    t_max: f32,
}

impl WideRay {
    #[inline(always)]
    fn new(ray: &Ray) -> Self {
        let inv_direction = Vec3::ONE / ray.d;
        let negative = [inv_direction.x < 0.0, inv_direction.y < 0.0, inv_direction.z < 0.0];
        let oct = negative[0] as u32 | (negative[1] as u32) << 1 | (negative[2] as u32) << 2;
        WideRay {
            origin: ray.o,
            direction: ray.d,
            inv_direction,
            negative,
            oct_inv: 7 - oct,
            t_min: ray.t_min,
            t_max: ray.t_max,
        }
    }

    /// The hit mask of `node`'s children within `[t_min, cull]`: internal children at bit
    /// `24 + (s ^ oct_inv)`, leaf triangles at bits `offset .. offset + count`.
    #[inline(always)]
    fn intersect_node(&self, node: &WideNode, cull: f32) -> u32 {
        let axes: [AxisRay; 3] = std::array::from_fn(|axis| {
            AxisRay::new(node.origin[axis], node.scale(axis), self.origin[axis], self.inv_direction[axis])
        });
        let mut hits = 0u32;
        for slot in 0..WIDTH {
            let meta = node.meta[slot] as u32;
            // An empty slot has no bits (`meta >> 5 == 0`); the GPU may test it anyway.
            if meta == 0 {
                continue;
            }
            let mut near = self.t_min;
            let mut far = f32::INFINITY;
            for (axis, ray) in axes.iter().enumerate() {
                let (q_near, q_far) = if self.negative[axis] {
                    (node.q_hi[axis][slot], node.q_lo[axis][slot])
                } else {
                    (node.q_lo[axis][slot], node.q_hi[axis][slot])
                };
                let t_near = ray.plane(q_near, ray.near_offset);
                let t_far = ray.plane(q_far, ray.far_offset);
                // `f32::max`/`min` return the non-NaN operand: a NaN slab is dropped.
                near = t_near.max(near);
                far = t_far.min(far);
            }
            // Widening the least exit equals the least widened exit (rounding a product by a
            // positive constant is monotonic; NaN stays NaN and is dropped by `min`).
            let far = (far * EXIT_WIDENING).min(cull);
            if near <= far {
                let child_bits = meta >> 5;
                let mut bit_index = meta & 0x1f;
                // Internal children (bit index 24 + slot) are reordered by the ray's octant.
                if bit_index >= 24 {
                    bit_index ^= self.oct_inv;
                }
                hits |= child_bits << bit_index;
            }
        }
        hits
    }
}

/// The triangle test of one reference (`prim_indices[reference]`): its hit within
/// `(t_min, t_max)` as `(t, u, v, prim)`. `t_best` is the best hit's `t` (`t_max` before any):
/// a test may reject a hit beyond it early (Woop's does; a hit beyond it is never kept anyway).
trait ReferenceTest {
    fn test(&self, wide: &WideBvh, ray: &WideRay, reference: u32, t_best: f32) -> Option<(f32, f32, f32, u32)>;
}

/// Möller–Trumbore on the triangles themselves (the plain layout's records hold the same numbers).
struct PlainTriangles<'a>(&'a [[Vec3; 3]]);

impl ReferenceTest for PlainTriangles<'_> {
    #[inline(always)]
    fn test(&self, wide: &WideBvh, ray: &WideRay, reference: u32, _t_best: f32) -> Option<(f32, f32, f32, u32)> {
        let prim = wide.prim_indices[reference as usize];
        let tri = &self.0[prim as usize];
        let (t, u, v) = intersect_triangle(ray.origin, ray.direction, tri[0], tri[1], tri[2], ray.t_min, ray.t_max)?;
        Some((t, u, v, prim))
    }
}

impl ReferenceTest for WoopTriangles {
    #[inline(always)]
    fn test(&self, wide: &WideBvh, ray: &WideRay, reference: u32, t_best: f32) -> Option<(f32, f32, f32, u32)> {
        let rows = &self.rows[reference as usize];
        let (t, u, v) = intersect_woop(rows, ray.origin, ray.direction, ray.t_min, ray.t_max, t_best)?;
        Some((t, u, v, wide.prim_indices[reference as usize]))
    }
}

/// One axis of the ray relative to a node (the paper's transformed ray): a plane `q` is at
/// `t = q * 2^e / d + (p - o) / d`, computed with one fused multiply-add as
/// `(1 + q * 2^-15) * scaled_inv + (offset - scaled_inv)` where `scaled_inv = 2^15 * 2^e / d`
/// (exact; the GPU builds `1 + q * 2^-15` from the byte with one byte permute). The offsets are
/// rounded and the box is the exact `p + q * 2^e` (the builder bounded the rounded decode), so the
/// entry offset moves down and the exit offset up by
/// `2^-21 * (|(p - o) / d| + |1 / d| * (|p| + 2^16 * 2^e))`, at least twice a bound on those
/// errors; the fused multiply-add's own rounding is covered by the exit widening.
///
/// `1 / d` is first clamped to `±2^64` ([`INV_DIRECTION_LIMIT`]): an infinite one (a zero
/// direction component, as a camera ray through the image's centre column has) made every
/// offset NaN, so that axis never culled a child, and such a ray visited every node whose box
/// it overlapped in the other two axes (thousands on a row of instanced meshes, where its
/// neighbours visit tens). With the clamp, the axis culls children farther than the slack from
/// the ray's origin, and keeps the others: the ray is treated as moving by at most `2^-64 t`
/// along the axis, far below the slack of `2^-21` of the node's reach.
struct AxisRay {
    scaled_inv: f32,
    near_offset: f32,
    far_offset: f32,
}

impl AxisRay {
    #[inline(always)]
    fn new(node_origin: f32, scale: f32, ray_origin: f32, inv_direction: f32) -> Self {
        let inv_direction = inv_direction.clamp(-INV_DIRECTION_LIMIT, INV_DIRECTION_LIMIT);
        let scaled_inv = scale * 32768.0 * inv_direction;
        let offset = (node_origin - ray_origin) * inv_direction;
        let reach = 65536.0f32.mul_add(scale, node_origin.abs());
        let slack = inv_direction.abs().mul_add(reach, offset.abs()) * SLACK_FACTOR;
        AxisRay { scaled_inv, near_offset: (offset - slack) - scaled_inv, far_offset: (offset + slack) - scaled_inv }
    }

    /// The distance of plane `q`.
    #[inline(always)]
    fn plane(&self, q: u8, offset: f32) -> f32 {
        f32::from_bits(0x3f80_0000 | (q as u32) << 8).mul_add(self.scaled_inv, offset)
    }
}

/// `2^64`: the largest `|1 / d|` [`AxisRay`] works with (traversal/wide.cuh's
/// `WARPATH_WIDE_INV_LIMIT`). With node scales below `2^40` no product overflows.
pub const INV_DIRECTION_LIMIT: f32 = 18_446_744_073_709_551_616.0;

/// `2^-21`: the relative slack of [`AxisRay`]'s offsets.
const SLACK_FACTOR: f32 = 4.768_371_6e-7;

#[inline(always)]
fn cull_distance(t: f32) -> f32 {
    t + t.abs() * CULL_SLACK
}

impl WideBvh {
    /// The node a node group's highest child bit names; clears that bit.
    #[inline(always)]
    fn take_child(&self, group: &mut (u32, u32), oct_inv: u32) -> usize {
        let bit = 31 - group.1.leading_zeros();
        group.1 &= !(1 << bit);
        let slot = (bit - 24) ^ oct_inv;
        let imask = group.1 & 0xff;
        (group.0 + (imask & ((1 << slot) - 1)).count_ones()) as usize
    }

    /// Closest hit with `t` in `(ray.t_min, ray.t_max)`: exactly what
    /// [`crate::brute_force_intersect`] returns (the same exception for wild hits on nearly
    /// degenerate triangles as [`crate::Bvh::intersect`]). `tris` must be the triangles the
    /// binary tree was built over.
    pub fn intersect(&self, tris: &[[Vec3; 3]], ray: &Ray) -> Option<Hit> {
        self.closest::<false>(tris, ray, &mut TraversalCounts::default())
    }

    /// The closest hit with the triangles in Woop's layout (`woop`: this tree's
    /// [`WoopTriangles::new`]): exactly what [`super::woop_brute_force_intersect`] returns but for
    /// hits whose `t` lies outside the triangle's box by round-off; Möller–Trumbore's hit to
    /// round-off.
    pub fn intersect_woop(&self, woop: &WoopTriangles, ray: &Ray) -> Option<Hit> {
        self.closest_with::<_, false>(woop, ray, &mut TraversalCounts::default())
    }

    /// [`WideBvh::intersect_woop`], counting the nodes fetched and triangles tested.
    pub fn intersect_woop_counted(&self, woop: &WoopTriangles, ray: &Ray) -> (Option<Hit>, TraversalCounts) {
        let mut counts = TraversalCounts::default();
        let hit = self.closest_with::<_, false>(woop, ray, &mut counts);
        (hit, counts)
    }

    /// Whether any triangle is hit in Woop's layout (see [`WideBvh::intersect_woop`]).
    pub fn occluded_woop(&self, woop: &WoopTriangles, ray: &Ray) -> bool {
        self.occluded_with(woop, ray)
    }

    /// [`WideBvh::intersect`], counting the nodes fetched and triangles tested (to compare a GPU
    /// kernel's work per ray with the reference's).
    pub fn intersect_counted(&self, tris: &[[Vec3; 3]], ray: &Ray) -> (Option<Hit>, TraversalCounts) {
        let mut counts = TraversalCounts::default();
        let hit = self.closest::<false>(tris, ray, &mut counts);
        (hit, counts)
    }

    /// The closest-hit traversal; `REVERSED` visits children in the opposite octant order (for
    /// the test that the octant order saves work).
    #[inline(always)]
    pub(crate) fn closest<const REVERSED: bool>(
        &self,
        tris: &[[Vec3; 3]],
        ray: &Ray,
        counts: &mut TraversalCounts,
    ) -> Option<Hit> {
        self.closest_with::<_, REVERSED>(&PlainTriangles(tris), ray, counts)
    }

    #[inline(always)]
    fn closest_with<T: ReferenceTest, const REVERSED: bool>(
        &self,
        triangles: &T,
        ray: &Ray,
        counts: &mut TraversalCounts,
    ) -> Option<Hit> {
        if self.is_empty() {
            return None;
        }
        let mut ray = WideRay::new(ray);
        if REVERSED {
            ray.oct_inv ^= 7;
        }
        let mut best = Hit { t: ray.t_max, u: 0.0, v: 0.0, prim: u32::MAX };
        let mut found = false;
        let mut cull = cull_distance(ray.t_max);

        let mut stack = [(0u32, 0u32); WIDE_STACK_SIZE];
        let mut stack_len = 0usize;
        let mut node_group = (0u32, 0x8000_0000u32);
        loop {
            let mut tri_group = (0u32, 0u32);
            if node_group.1 & NODE_BITS != 0 {
                let child = self.take_child(&mut node_group, ray.oct_inv);
                if node_group.1 & NODE_BITS != 0 {
                    stack[stack_len] = node_group;
                    stack_len += 1;
                }
                let node = &self.nodes[child];
                counts.nodes += 1;
                let hits = ray.intersect_node(node, cull);
                node_group = (node.child_base, (hits & NODE_BITS) | node.imask as u32);
                tri_group = (node.tri_base, hits & TRI_BITS);
            } else {
                // A triangle group from the stack (the GPU kernel postpones some this way).
                std::mem::swap(&mut tri_group, &mut node_group);
            }
            while tri_group.1 != 0 {
                let bit = tri_group.1.trailing_zeros();
                tri_group.1 &= tri_group.1 - 1;
                counts.triangles += 1;
                if let Some((t, u, v, prim)) = triangles.test(self, &ray, tri_group.0 + bit, best.t)
                    && (t < best.t || (t == best.t && prim < best.prim))
                {
                    best = Hit { t, u, v, prim };
                    found = true;
                    cull = cull_distance(t);
                }
            }
            if node_group.1 & NODE_BITS == 0 {
                if stack_len == 0 {
                    return found.then_some(best);
                }
                stack_len -= 1;
                node_group = stack[stack_len];
            }
        }
    }

    /// Whether any triangle is hit with `t` in `(ray.t_min, ray.t_max)` (shadow rays): the same
    /// traversal, returning at the first hit.
    pub fn occluded(&self, tris: &[[Vec3; 3]], ray: &Ray) -> bool {
        self.occluded_with(&PlainTriangles(tris), ray)
    }

    #[inline(always)]
    fn occluded_with<T: ReferenceTest>(&self, triangles: &T, ray: &Ray) -> bool {
        if self.is_empty() {
            return false;
        }
        let ray = WideRay::new(ray);
        let cull = cull_distance(ray.t_max);
        let mut stack = [(0u32, 0u32); WIDE_STACK_SIZE];
        let mut stack_len = 0usize;
        let mut node_group = (0u32, 0x8000_0000u32);
        loop {
            let mut tri_group = (0u32, 0u32);
            if node_group.1 & NODE_BITS != 0 {
                let child = self.take_child(&mut node_group, ray.oct_inv);
                if node_group.1 & NODE_BITS != 0 {
                    stack[stack_len] = node_group;
                    stack_len += 1;
                }
                let node = &self.nodes[child];
                let hits = ray.intersect_node(node, cull);
                node_group = (node.child_base, (hits & NODE_BITS) | node.imask as u32);
                tri_group = (node.tri_base, hits & TRI_BITS);
            } else {
                std::mem::swap(&mut tri_group, &mut node_group);
            }
            while tri_group.1 != 0 {
                let bit = tri_group.1.trailing_zeros();
                tri_group.1 &= tri_group.1 - 1;
                if triangles.test(self, &ray, tri_group.0 + bit, ray.t_max).is_some() {
                    return true;
                }
            }
            if node_group.1 & NODE_BITS == 0 {
                if stack_len == 0 {
                    return false;
                }
                stack_len -= 1;
                node_group = stack[stack_len];
            }
        }
    }
}
