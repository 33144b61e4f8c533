//! A CPU-only layout derived from the canonical binary [`Bvh`]: a 4-wide tree (each node holds
//! its up to four children's boxes in SoA `Vec4`s, so one visit tests four boxes with SSE) whose
//! leaves hold triangles in packets of four (`v0`, `e1 = v1 - v0`, `e2 = v2 - v0`, SoA), tested
//! four at a time. It is built once per render (`CpuRenderer::new`); the GPU never sees it.
//!
//! Results are exactly those of [`Bvh::intersect`] / [`Bvh::occluded`] (and so of
//! [`crate::brute_force_intersect`]): the packet test performs, lane by lane, the same IEEE
//! operations in the same order as `warpath_core::math::intersect_triangle` (the edges are
//! the same subtractions, done once; no fused multiply-adds), hits are kept by the same
//! `(t, prim)` order, and the box test is the same robust slab test (entry and exit planes by
//! the direction's sign, NaN slabs dropped, exit widened by `1 + 2γ₃`, nodes culled only more
//! than a small relative slack beyond the best hit). The 4-wide nodes are made by collapsing the
//! binary tree: each node takes its two children, then repeatedly opens the interior child with
//! the largest surface area until it has four; every leaf of the binary tree stays a leaf.

use crate::{Bvh, BvhNode, Hit};
use glam::{BVec4A, Vec3, Vec4};
use std::mem::MaybeUninit;
use warpath_core::math::Ray;

/// `1 + 2γ₃` with `γₙ = nε / (1 - nε)`, `ε = 2⁻²⁴` (as in `traverse.rs`).
const EXIT_WIDENING: f32 = 1.0 + 2.0 * (3.0 * f32::EPSILON * 0.5) / (1.0 - 3.0 * f32::EPSILON * 0.5);
/// Nodes that start within this relative distance beyond the best hit are still visited.
const CULL_SLACK: f32 = 1e-5;
/// A child reference with this bit set is a leaf: `LEAF_BIT | first packet << 3 | (packets - 1)`
/// for up to 8 packets starting below 2^27, else `LEAF_BIT | BIG_LEAF_BIT | index` into
/// `CpuBvh::big_leaves`.
const LEAF_BIT: u32 = 1 << 31;
const BIG_LEAF_BIT: u32 = 1 << 30;
/// An unused child slot (its box is empty, so no ray enters it).
const EMPTY_CHILD: u32 = u32::MAX;
/// The binary tree's depth is below `crate::MAX_DEPTH` (60); each 4-wide level consumes at least
/// one binary level and pushes at most three entries.
const STACK_SIZE: usize = 3 * 64;

/// Up to four children: their boxes (lanes = children) and references.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
struct Node4 {
    /// `min.x, min.y, min.z, max.x, max.y, max.z`, one lane per child.
    bounds: [Vec4; 6],
    /// Interior node index, a leaf reference (see `LEAF_BIT`), or `EMPTY_CHILD`.
    children: [u32; 4],
}

/// Four triangles, SoA; unused lanes hold NaN vertices (never hit).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug)]
struct TriPacket {
    v0: [Vec4; 3],
    e1: [Vec4; 3],
    e2: [Vec4; 3],
    prim: [u32; 4],
}

/// The CPU traversal layout of a [`Bvh`] over a triangle array (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct CpuBvh {
    nodes: Vec<Node4>,
    /// `[first packet, packet count]` of leaves too large to encode in their reference.
    big_leaves: Vec<[u32; 2]>,
    leaf_count: usize,
    packets: Vec<TriPacket>,
}

impl CpuBvh {
    /// Derives the layout from `bvh`, built over `tris`.
    pub fn new(bvh: &Bvh, tris: &[[Vec3; 3]]) -> CpuBvh {
        let mut out = CpuBvh::default();
        if bvh.is_empty() || bvh.nodes.is_empty() {
            return out;
        }
        let root = &bvh.nodes[0];
        if root.is_leaf() {
            let leaf = out.add_leaf(bvh, tris, root);
            let mut node = empty_node();
            set_child(&mut node, 0, root, leaf);
            out.nodes.push(node);
        } else {
            out.add_interior(bvh, tris, 0);
        }
        out
    }

    /// Number of 4-wide nodes, leaves and triangle packets.
    pub fn sizes(&self) -> (usize, usize, usize) {
        (self.nodes.len(), self.leaf_count, self.packets.len())
    }

    fn add_leaf(&mut self, bvh: &Bvh, tris: &[[Vec3; 3]], node: &BvhNode) -> u32 {
        let first = node.left_or_first as usize;
        let prims = &bvh.prim_indices[first..first + node.count as usize];
        let first_packet = self.packets.len() as u32;
        for chunk in prims.chunks(4) {
            let nan = Vec4::splat(f32::NAN);
            let mut p = TriPacket { v0: [nan; 3], e1: [nan; 3], e2: [nan; 3], prim: [u32::MAX; 4] };
            for (lane, &prim) in chunk.iter().enumerate() {
                let [a, b, c] = tris[prim as usize];
                let (e1, e2) = (b - a, c - a);
                for axis in 0..3 {
                    p.v0[axis][lane] = a[axis];
                    p.e1[axis][lane] = e1[axis];
                    p.e2[axis][lane] = e2[axis];
                }
                p.prim[lane] = prim;
            }
            self.packets.push(p);
        }
        let count = self.packets.len() as u32 - first_packet;
        self.leaf_count += 1;
        if (1..=8).contains(&count) && first_packet < 1 << 27 {
            LEAF_BIT | first_packet << 3 | (count - 1)
        } else {
            self.big_leaves.push([first_packet, count]);
            LEAF_BIT | BIG_LEAF_BIT | (self.big_leaves.len() as u32 - 1)
        }
    }

    /// The packets of leaf reference `r`.
    #[inline(always)]
    fn leaf_packets(&self, r: u32) -> &[TriPacket] {
        let (first, count) = if r & BIG_LEAF_BIT == 0 {
            (((r & !LEAF_BIT) >> 3) as usize, ((r & 7) + 1) as usize)
        } else {
            let [first, count] = self.big_leaves[(r & !(LEAF_BIT | BIG_LEAF_BIT)) as usize];
            (first as usize, count as usize)
        };
        // SAFETY: `add_leaf` made the reference from a range of `self.packets`.
        unsafe { self.packets.get_unchecked(first..first + count) }
    }

    /// Adds the 4-wide node for binary interior node `index` (and its subtree); returns its index.
    fn add_interior(&mut self, bvh: &Bvh, tris: &[[Vec3; 3]], index: usize) -> u32 {
        let left = bvh.nodes[index].left_or_first as usize;
        let mut kids = vec![left, left + 1];
        while kids.len() < 4 {
            let widest = kids
                .iter()
                .enumerate()
                .filter(|&(_, &k)| !bvh.nodes[k].is_leaf())
                .max_by(|a, b| bvh.nodes[*a.1].bounds().area().total_cmp(&bvh.nodes[*b.1].bounds().area()))
                .map(|(i, _)| i);
            let Some(i) = widest else { break };
            let k = kids.swap_remove(i);
            let first = bvh.nodes[k].left_or_first as usize;
            kids.push(first);
            kids.push(first + 1);
        }
        let slot = self.nodes.len();
        self.nodes.push(empty_node());
        for (lane, &k) in kids.iter().enumerate() {
            let child = &bvh.nodes[k];
            let reference =
                if child.is_leaf() { self.add_leaf(bvh, tris, child) } else { self.add_interior(bvh, tris, k) };
            set_child(&mut self.nodes[slot], lane, child, reference);
        }
        slot as u32
    }

    /// Closest hit with `t` in `(ray.t_min, ray.t_max)`: exactly [`Bvh::intersect`]'s answer.
    pub fn intersect(&self, ray: &Ray) -> Option<Hit> {
        if self.nodes.is_empty() {
            return None;
        }
        let r = Ray4::new(ray);
        let mut best = Hit { t: ray.t_max, u: 0.0, v: 0.0, prim: u32::MAX };
        let mut found = false;
        let mut cull = cull_distance(ray.t_max);

        let mut stack: [MaybeUninit<(u32, f32)>; STACK_SIZE] = [MaybeUninit::uninit(); STACK_SIZE];
        let mut stack_len = 0usize;
        let mut current = 0u32;
        loop {
            if current & LEAF_BIT == 0 {
                // SAFETY: interior references are indices of `self.nodes` (made by `add_interior`).
                let node = unsafe { self.nodes.get_unchecked(current as usize) };
                let (mask, near) = r.enter(node, cull);
                if mask != 0 {
                    let near = near.to_array();
                    if mask & (mask - 1) == 0 {
                        current = node.children[mask.trailing_zeros() as usize];
                        continue;
                    }
                    let lane0 = mask.trailing_zeros() as usize;
                    let rest = mask & (mask - 1);
                    if rest & (rest - 1) == 0 {
                        // Two: go to the nearer, push the other.
                        let lane1 = rest.trailing_zeros() as usize;
                        let (near_lane, far_lane) =
                            if near[lane0] <= near[lane1] { (lane0, lane1) } else { (lane1, lane0) };
                        // SAFETY: at most 3 pushes per level, fewer than 64 levels (see STACK_SIZE).
                        unsafe { stack.get_unchecked_mut(stack_len).write((node.children[far_lane], near[far_lane])) };
                        stack_len += 1;
                        current = node.children[near_lane];
                        continue;
                    }
                    // Three or four: push all but the nearest, farthest first.
                    let mut hits = [(0u32, 0.0f32); 4];
                    let mut n = 0;
                    let mut bits = mask;
                    while bits != 0 {
                        let lane = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let entry = (node.children[lane], near[lane]);
                        // Insertion sort, descending by entry distance.
                        let mut j = n;
                        while j > 0 && hits[j - 1].1 < entry.1 {
                            hits[j] = hits[j - 1];
                            j -= 1;
                        }
                        hits[j] = entry;
                        n += 1;
                    }
                    for &entry in &hits[..n - 1] {
                        // SAFETY: at most 3 pushes per level, fewer than 64 levels (see STACK_SIZE).
                        unsafe { stack.get_unchecked_mut(stack_len).write(entry) };
                        stack_len += 1;
                    }
                    current = hits[n - 1].0;
                    continue;
                }
            } else {
                for p in self.leaf_packets(current) {
                    let (mut mask, t, u, v) = r.hit_packet(p);
                    if mask == 0 {
                        continue;
                    }
                    let (t, u, v) = (t.to_array(), u.to_array(), v.to_array());
                    while mask != 0 {
                        let lane = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        let prim = p.prim[lane];
                        if closer(t[lane], prim, &best) {
                            best = Hit { t: t[lane], u: u[lane], v: v[lane], prim };
                            found = true;
                            cull = cull_distance(t[lane]);
                        }
                    }
                }
            }
            // Pop the next node that may still hold a closer hit.
            loop {
                if stack_len == 0 {
                    return found.then_some(best);
                }
                stack_len -= 1;
                // SAFETY: entries below `stack_len` were written.
                let (next, t_enter) = unsafe { stack.get_unchecked(stack_len).assume_init() };
                if t_enter <= cull {
                    current = next;
                    break;
                }
            }
        }
    }

    /// Whether any triangle is hit with `t` in `(ray.t_min, ray.t_max)`: [`Bvh::occluded`]'s answer.
    pub fn occluded(&self, ray: &Ray) -> bool {
        if self.nodes.is_empty() {
            return false;
        }
        let r = Ray4::new(ray);
        let limit = cull_distance(ray.t_max);
        let mut stack: [MaybeUninit<u32>; STACK_SIZE] = [MaybeUninit::uninit(); STACK_SIZE];
        let mut stack_len = 0usize;
        let mut current = 0u32;
        loop {
            if current & LEAF_BIT == 0 {
                // SAFETY: as in `intersect`.
                let node = unsafe { self.nodes.get_unchecked(current as usize) };
                let (mut mask, _) = r.enter(node, limit);
                if mask != 0 {
                    current = node.children[mask.trailing_zeros() as usize];
                    mask &= mask - 1;
                    while mask != 0 {
                        let lane = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        // SAFETY: as in `intersect`.
                        unsafe { stack.get_unchecked_mut(stack_len).write(node.children[lane]) };
                        stack_len += 1;
                    }
                    continue;
                }
            } else {
                for p in self.leaf_packets(current) {
                    if r.hit_packet(p).0 != 0 {
                        return true;
                    }
                }
            }
            if stack_len == 0 {
                return false;
            }
            stack_len -= 1;
            // SAFETY: entries below `stack_len` were written.
            current = unsafe { stack.get_unchecked(stack_len).assume_init() };
        }
    }
}

fn empty_node() -> Node4 {
    let (lo, hi) = (Vec4::splat(f32::INFINITY), Vec4::splat(f32::NEG_INFINITY));
    Node4 { bounds: [lo, lo, lo, hi, hi, hi], children: [EMPTY_CHILD; 4] }
}

fn set_child(node: &mut Node4, lane: usize, child: &BvhNode, reference: u32) {
    for axis in 0..3 {
        node.bounds[axis][lane] = child.min[axis];
        node.bounds[axis + 3][lane] = child.max[axis];
    }
    node.children[lane] = reference;
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

/// Per sign mask of the direction (bit per axis, set when negative): each axis's entry and exit
/// plane indices into `Node4::bounds`.
const PLANES: [([usize; 3], [usize; 3]); 8] = {
    let mut table = [([0; 3], [0; 3]); 8];
    let mut signs = 0;
    while signs < 8 {
        let mut axis = 0;
        while axis < 3 {
            let negative = signs >> axis & 1 == 1;
            table[signs].0[axis] = if negative { axis + 3 } else { axis };
            table[signs].1[axis] = if negative { axis } else { axis + 3 };
            axis += 1;
        }
        signs += 1;
    }
    table
};

/// A ray splatted over four lanes, with its inverse direction and per-axis plane choice.
struct Ray4 {
    o: [Vec4; 3],
    d: [Vec4; 3],
    inv_d: [Vec4; 3],
    /// Index into `Node4::bounds` of each axis's entry and exit planes.
    near: [usize; 3],
    far: [usize; 3],
    t_min: Vec4,
    t_max: Vec4,
}

impl Ray4 {
    #[inline(always)]
    fn new(ray: &Ray) -> Ray4 {
        let inv = Vec3::ONE / ray.d;
        let signs = (inv.x < 0.0) as usize | ((inv.y < 0.0) as usize) << 1 | ((inv.z < 0.0) as usize) << 2;
        let (near, far) = PLANES[signs];
        Ray4 {
            o: [Vec4::splat(ray.o.x), Vec4::splat(ray.o.y), Vec4::splat(ray.o.z)],
            d: [Vec4::splat(ray.d.x), Vec4::splat(ray.d.y), Vec4::splat(ray.d.z)],
            inv_d: [Vec4::splat(inv.x), Vec4::splat(inv.y), Vec4::splat(inv.z)],
            near,
            far,
            t_min: Vec4::splat(ray.t_min),
            t_max: Vec4::splat(ray.t_max),
        }
    }

    /// Which of `node`'s four boxes the ray overlaps within `[t_min, t_limit]` (bit per lane),
    /// and the entry distances.
    #[inline(always)]
    fn enter(&self, node: &Node4, t_limit: f32) -> (u32, Vec4) {
        // SAFETY: `near` and `far` hold indices below 6.
        let plane = |i: usize| unsafe { *node.bounds.get_unchecked(i) };
        let w = Vec4::splat(EXIT_WIDENING);
        let slab = |axis: usize| {
            let near = (plane(self.near[axis]) - self.o[axis]) * self.inv_d[axis];
            let far = (plane(self.far[axis]) - self.o[axis]) * self.inv_d[axis];
            (near, far * w)
        };
        let (nx, fx) = slab(0);
        let (ny, fy) = slab(1);
        let (nz, fz) = slab(2);
        // `_mm_max_ps(a, b)` / `_mm_min_ps(a, b)` return `b` when either is NaN: the NaN-free
        // accumulator goes second, so a NaN slab (origin on a plane, zero direction) is dropped.
        let near = nx.max(ny.max(nz.max(self.t_min)));
        let far = fx.min(fy.min(fz.min(Vec4::splat(t_limit))));
        (near.cmple(far).bitmask(), near)
    }

    /// Möller–Trumbore on four triangles: the lanes that hit with `t` in `(t_min, t_max)`, and
    /// `t`, `u`, `v`; each lane's arithmetic is `intersect_triangle`'s.
    #[inline(always)]
    fn hit_packet(&self, p: &TriPacket) -> (u32, Vec4, Vec4, Vec4) {
        let [dx, dy, dz] = self.d;
        let [e1x, e1y, e1z] = p.e1;
        let [e2x, e2y, e2z] = p.e2;
        // pvec = d × e2 (glam: x = a.y*b.z - b.y*a.z, ...).
        let px = dy * e2z - e2y * dz;
        let py = dz * e2x - e2z * dx;
        let pz = dx * e2y - e2x * dy;
        let det = e1x * px + e1y * py + e1z * pz;
        let det_ok: BVec4A = det.cmpne(Vec4::ZERO) & det.abs().cmplt(Vec4::INFINITY);
        let inv_det = Vec4::ONE / det;
        let tx = self.o[0] - p.v0[0];
        let ty = self.o[1] - p.v0[1];
        let tz = self.o[2] - p.v0[2];
        let u = (tx * px + ty * py + tz * pz) * inv_det;
        // qvec = tvec × e1.
        let qx = ty * e1z - e1y * tz;
        let qy = tz * e1x - e1z * tx;
        let qz = tx * e1y - e1x * ty;
        let v = (dx * qx + dy * qy + dz * qz) * inv_det;
        let t = (e2x * qx + e2y * qy + e2z * qz) * inv_det;
        let u_ok = u.cmpge(Vec4::ZERO) & u.cmple(Vec4::ONE);
        // Rejected when `v < 0 || u + v > 1` (a NaN passes both, as in the scalar code).
        let v_bad = v.cmplt(Vec4::ZERO) | (u + v).cmpgt(Vec4::ONE);
        let t_ok = t.cmpgt(self.t_min) & t.cmplt(self.t_max);
        let mask = (det_ok & u_ok & t_ok).bitmask() & !v_bad.bitmask();
        (mask, t, u, v)
    }
}
