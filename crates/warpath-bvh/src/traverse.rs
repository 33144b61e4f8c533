//! CPU traversal: closest hit (ordered, near child first, culling popped nodes against the
//! best hit so far) and any hit, both with a fixed 64-entry stack and no allocation, plus
//! the brute-force reference they are tested against.
//!
//! The slab test picks each axis's entry and exit planes by the sign of the direction, so a
//! zero direction component gives `±inf` distances, and `0 * inf = NaN` (origin exactly on a
//! box plane) is dropped by `f32::max`/`f32::min`, which return the other operand: the ray
//! then counts as inside that slab, as it is. The exit distance is widened by `1 + 2γ₃`
//! (pbrt's robust bound test) and a node is culled only when it starts beyond the best hit by
//! more than a small relative slack, so ties and round-off never lose a hit that the brute
//! force finds: both call the same `intersect_triangle` and keep the lowest `(t, prim)`.

use crate::{Bvh, BvhNode, Hit};
use glam::Vec3;
use warpath_core::math::{Ray, intersect_triangle};

/// Entries in the traversal stacks; the builders keep depth below `crate::MAX_DEPTH`.
const STACK_SIZE: usize = 64;
/// `1 + 2γ₃` with `γₙ = nε / (1 - nε)`, `ε = 2⁻²⁴`.
const EXIT_WIDENING: f32 = 1.0 + 2.0 * (3.0 * f32::EPSILON * 0.5) / (1.0 - 3.0 * f32::EPSILON * 0.5);
/// Nodes that start within this relative distance beyond the best hit are still visited.
const CULL_SLACK: f32 = 1e-5;

/// A ray with its per-axis inverse direction and direction signs.
struct PreparedRay {
    origin: Vec3,
    direction: Vec3,
    inv_direction: Vec3,
    negative: [bool; 3],
    t_min: f32,
    t_max: f32,
}

impl PreparedRay {
    #[inline(always)]
    fn new(ray: &Ray) -> Self {
        let inv_direction = Vec3::ONE / ray.d;
        PreparedRay {
            origin: ray.o,
            direction: ray.d,
            inv_direction,
            negative: [inv_direction.x < 0.0, inv_direction.y < 0.0, inv_direction.z < 0.0],
            t_min: ray.t_min,
            t_max: ray.t_max,
        }
    }

    /// Entry distance into `node`'s box if the ray overlaps it within `[t_min, t_limit]`.
    #[inline(always)]
    fn enter(&self, node: &BvhNode, t_limit: f32) -> Option<f32> {
        let slab = |axis: usize| {
            let (near_plane, far_plane) =
                if self.negative[axis] { (node.max[axis], node.min[axis]) } else { (node.min[axis], node.max[axis]) };
            let near = (near_plane - self.origin[axis]) * self.inv_direction[axis];
            let far = (far_plane - self.origin[axis]) * self.inv_direction[axis];
            (near, far)
        };
        let (near_x, far_x) = slab(0);
        let (near_y, far_y) = slab(1);
        let (near_z, far_z) = slab(2);
        let near = near_x.max(near_y).max(near_z).max(self.t_min);
        let far = (far_x.min(far_y).min(far_z) * EXIT_WIDENING).min(t_limit);
        (near <= far).then_some(near)
    }

    #[inline(always)]
    fn hit_triangle(&self, tri: &[Vec3; 3]) -> Option<(f32, f32, f32)> {
        intersect_triangle(self.origin, self.direction, tri[0], tri[1], tri[2], self.t_min, self.t_max)
    }
}

#[inline(always)]
fn cull_distance(t: f32) -> f32 {
    t + t.abs() * CULL_SLACK
}

/// True when `(t, prim)` is closer than `best` (ties in `t` go to the lower index).
#[inline(always)]
fn closer(t: f32, prim: u32, best: &Hit) -> bool {
    t < best.t || (t == best.t && prim < best.prim)
}

impl Bvh {
    /// Closest hit with `t` in `(ray.t_min, ray.t_max)` (exactly what [`brute_force_intersect`]
    /// returns). `tris` must be the triangles the tree was built over.
    pub fn intersect(&self, tris: &[[Vec3; 3]], ray: &Ray) -> Option<Hit> {
        let root = self.nodes.first()?;
        let ray = PreparedRay::new(ray);
        let mut best = Hit { t: ray.t_max, u: 0.0, v: 0.0, prim: u32::MAX };
        let mut found = false;
        let mut cull = cull_distance(ray.t_max);
        ray.enter(root, cull)?;

        let mut stack = [(0u32, 0.0f32); STACK_SIZE];
        let mut stack_len = 0usize;
        let mut index = 0usize;
        loop {
            let node = &self.nodes[index];
            if node.count > 0 {
                let first = node.left_or_first as usize;
                for &prim in &self.prim_indices[first..first + node.count as usize] {
                    if let Some((t, u, v)) = ray.hit_triangle(&tris[prim as usize])
                        && closer(t, prim, &best)
                    {
                        best = Hit { t, u, v, prim };
                        found = true;
                        cull = cull_distance(t);
                    }
                }
            } else {
                let left = node.left_or_first as usize;
                let right = left + 1;
                let enter_left = ray.enter(&self.nodes[left], cull);
                let enter_right = ray.enter(&self.nodes[right], cull);
                match (enter_left, enter_right) {
                    (Some(t_left), Some(t_right)) => {
                        let (near, far, t_far) =
                            if t_left <= t_right { (left, right, t_right) } else { (right, left, t_left) };
                        stack[stack_len] = (far as u32, t_far);
                        stack_len += 1;
                        index = near;
                        continue;
                    }
                    (Some(_), None) => {
                        index = left;
                        continue;
                    }
                    (None, Some(_)) => {
                        index = right;
                        continue;
                    }
                    (None, None) => {}
                }
            }
            // Pop the next node that may still hold a closer hit.
            loop {
                if stack_len == 0 {
                    return found.then_some(best);
                }
                stack_len -= 1;
                let (next, t_enter) = stack[stack_len];
                if t_enter <= cull {
                    index = next as usize;
                    break;
                }
            }
        }
    }

    /// Whether any triangle is hit with `t` in `(ray.t_min, ray.t_max)` (shadow rays).
    pub fn occluded(&self, tris: &[[Vec3; 3]], ray: &Ray) -> bool {
        let Some(root) = self.nodes.first() else { return false };
        let ray = PreparedRay::new(ray);
        let limit = cull_distance(ray.t_max);
        if ray.enter(root, limit).is_none() {
            return false;
        }
        let mut stack = [0u32; STACK_SIZE];
        let mut stack_len = 0usize;
        let mut index = 0usize;
        loop {
            let node = &self.nodes[index];
            if node.count > 0 {
                let first = node.left_or_first as usize;
                for &prim in &self.prim_indices[first..first + node.count as usize] {
                    if ray.hit_triangle(&tris[prim as usize]).is_some() {
                        return true;
                    }
                }
            } else {
                let left = node.left_or_first as usize;
                let enter_left = ray.enter(&self.nodes[left], limit).is_some();
                let enter_right = ray.enter(&self.nodes[left + 1], limit).is_some();
                if enter_left && enter_right {
                    stack[stack_len] = (left + 1) as u32;
                    stack_len += 1;
                }
                if enter_left || enter_right {
                    index = if enter_left { left } else { left + 1 };
                    continue;
                }
            }
            if stack_len == 0 {
                return false;
            }
            stack_len -= 1;
            index = stack[stack_len] as usize;
        }
    }
}

/// Closest hit by testing every triangle: the reference the BVH traversals (CPU and GPU) are
/// checked against. Same arithmetic and tie-break as [`Bvh::intersect`].
pub fn brute_force_intersect(tris: &[[Vec3; 3]], ray: &Ray) -> Option<Hit> {
    let mut best = Hit { t: ray.t_max, u: 0.0, v: 0.0, prim: u32::MAX };
    let mut found = false;
    for (prim, tri) in tris.iter().enumerate() {
        let prim = prim as u32;
        if let Some((t, u, v)) = intersect_triangle(ray.o, ray.d, tri[0], tri[1], tri[2], ray.t_min, ray.t_max)
            && closer(t, prim, &best)
        {
            best = Hit { t, u, v, prim };
            found = true;
        }
    }
    found.then_some(best)
}
