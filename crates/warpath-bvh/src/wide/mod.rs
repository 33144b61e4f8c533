//! The compressed 8-wide BVH of Ylitie, Karras and Laine ("Efficient Incoherent Ray Traversal on
//! GPUs Through Compressed Wide BVHs", HPG 2017), built on the CPU from the canonical binary
//! [`Bvh`], with a CPU reference traversal that is the specification of the GPU kernel.
//!
//! - `collapse.rs`: the binary tree collapsed to at most 8 children a node, by the paper's
//!   SAH-optimal dynamic programme ([`Collapse::Optimal`]) or greedily ([`Collapse::Greedy`]);
//!   leaves hold at most 3 triangles.
//! - `compress.rs`: children assigned to slots by octant, boxes quantized to 8 bits a plane
//!   relative to the node's origin and per-axis power-of-two scale, the 80-byte [`WideNode`].
//! - `traverse.rs`: closest hit and any hit over the compressed nodes, after the paper's
//!   algorithm (node-group / triangle-group stack entries with hit masks, octant-ordered visits).
//! - `woop.rs`: the triangles in Woop's layout (three rows of the map to the unit triangle per
//!   reference) and their test, the option the closest- and any-hit traversals take beside the
//!   plain records.
//!
//! `docs/wide-bvh.md` describes the layout byte by byte.

mod collapse;
mod compress;
mod traverse;
mod woop;

use crate::Bvh;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::fmt;
use std::time::Instant;
use warpath_core::math::Aabb;

pub use traverse::{INV_DIRECTION_LIMIT, TraversalCounts, WIDE_STACK_SIZE};
pub use woop::{WideTriangles, WoopRows, WoopTriangles, intersect_woop, woop_brute_force_intersect, woop_rows};

/// Children a node has at most.
pub const WIDTH: usize = 8;
/// Triangles a leaf (one child slot) holds at most.
pub const MAX_LEAF_TRIS: usize = 3;

/// How the binary tree is collapsed to 8-wide nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collapse {
    /// The paper's SAH-optimal dynamic programme over the binary tree.
    Optimal,
    /// Repeatedly open the interior child of largest surface area until a node has 8 children.
    Greedy,
}

impl fmt::Display for Collapse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Collapse::Optimal => "optimal",
            Collapse::Greedy => "greedy",
        })
    }
}

/// Collapse settings: which collapse, and the SAH costs of the paper's cost model (a wide node
/// visit, one ray/triangle test). Non-finite or negative costs are clamped to 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WideOptions {
    pub collapse: Collapse,
    pub node_cost: f32,
    pub prim_cost: f32,
}

impl Default for WideOptions {
    fn default() -> Self {
        WideOptions { collapse: Collapse::Optimal, node_cost: 1.0, prim_cost: 0.3 }
    }
}

/// One compressed 8-wide node, 80 bytes (see `docs/wide-bvh.md`).
///
/// Child slot `s`'s box on axis `a` is `[origin[a] + q_lo[a][s] * 2^exponents[a],
/// origin[a] + q_hi[a][s] * 2^exponents[a]]` (computed in `f32`; the product is exact), and it
/// contains the child's exact box. `meta[s]` is `0` for an empty slot, `0b001_00000 | (24 + s)`
/// for an internal child (node `child_base + popcount(imask & ((1 << s) - 1))`), and
/// `unary(count) << 5 | offset` for a leaf of `count` (1 to 3, unary `0b001`, `0b011`, `0b111`)
/// triangles `prim_indices[tri_base + offset ..][..count]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct WideNode {
    /// `p`: the quantization origin (the minimum corner of the node's box), bits of 3 `f32`.
    pub origin: [f32; 3],
    /// `e`: per-axis scale `2^e` (`f32` bits `(e + 127) << 23`), `-126 <= e <= 127`.
    pub exponents: [i8; 3],
    /// Bit `s` set when slot `s` holds an internal child.
    pub imask: u8,
    /// Index of the first internal child; the others follow in slot order.
    pub child_base: u32,
    /// Index into `WideBvh::prim_indices` of the first triangle of the node's leaves.
    pub tri_base: u32,
    /// Per slot: empty, internal with its slot, or leaf with triangle count and offset.
    pub meta: [u8; 8],
    /// Quantized minimum planes, `[axis][slot]`.
    pub q_lo: [[u8; 8]; 3],
    /// Quantized maximum planes, `[axis][slot]`.
    pub q_hi: [[u8; 8]; 3],
}

const _: () = assert!(std::mem::size_of::<WideNode>() == 80);
const _: () = assert!(std::mem::align_of::<WideNode>() == 4);

impl WideNode {
    /// `f32` bits of the scale `2^exponents[axis]`.
    pub fn scale(&self, axis: usize) -> f32 {
        compress::scale_of(self.exponents[axis])
    }

    /// The decoded (quantized) box of slot `slot`, exactly as the traversal computes it.
    pub fn child_bounds(&self, slot: usize) -> Aabb {
        let mut min = Vec3::ZERO;
        let mut max = Vec3::ZERO;
        for axis in 0..3 {
            let scale = self.scale(axis);
            min[axis] = compress::decode(self.origin[axis], self.q_lo[axis][slot], scale);
            max[axis] = compress::decode(self.origin[axis], self.q_hi[axis][slot], scale);
        }
        Aabb { min, max }
    }

    /// What slot `slot` holds.
    pub fn child(&self, slot: usize) -> WideChild {
        let meta = self.meta[slot];
        if meta == 0 {
            WideChild::Empty
        } else if self.imask & (1 << slot) != 0 {
            WideChild::Node(self.child_base + (self.imask & ((1u32 << slot) - 1) as u8).count_ones())
        } else {
            WideChild::Leaf { first: self.tri_base + (meta & 0x1f) as u32, count: (meta >> 5).count_ones() }
        }
    }
}

/// A decoded child slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideChild {
    Empty,
    /// Index into `WideBvh::nodes`.
    Node(u32),
    /// `WideBvh::prim_indices[first .. first + count]`.
    Leaf {
        first: u32,
        count: u32,
    },
}

/// The compressed 8-wide BVH: `nodes[0]` is the root (never a leaf; the tree over no triangles
/// is one node with no children), `prim_indices` indices into the triangle array, each leaf's
/// contiguous.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WideBvh {
    pub nodes: Vec<WideNode>,
    pub prim_indices: Vec<u32>,
}

/// What a collapse and compression made, and how long it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WideStats {
    pub collapse: Collapse,
    /// Collapse and compression (the binary build not included).
    pub build_seconds: f64,
    pub node_count: usize,
    /// Leaf child slots.
    pub leaf_count: usize,
    /// Length of `prim_indices` (that of the binary tree's).
    pub references: usize,
    /// Mean occupied slots per node.
    pub mean_children: f64,
    /// SAH cost with `node_cost` a node and `prim_cost` a triangle, over the exact child boxes,
    /// normalized by the root's area.
    pub sah_cost: f32,
    /// The same over the quantized boxes (root: the union of its decoded children).
    pub quantized_sah_cost: f32,
    /// The binary tree's SAH cost with the same costs (`Bvh::sah_cost(node_cost, prim_cost)`).
    pub binary_sah_cost: f32,
    /// Depth of the deepest node (root = 0); traversal stacks need this many entries.
    pub max_depth: u32,
    /// `80 * nodes + 4 * prim_indices`.
    pub memory_bytes: usize,
    /// The binary tree's `32 * nodes + 4 * prim_indices`.
    pub binary_memory_bytes: usize,
    pub binary_node_count: usize,
}

impl fmt::Display for WideStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "wide8 ({}): {} nodes ({:.2} children each), {} leaves, {} references in {:.3} ms; SAH cost {:.3} \
             (quantized {:.3}; binary {:.3} over {} nodes); {:.1} KiB ({:.0}% of binary {:.1} KiB); depth {}",
            self.collapse,
            self.node_count,
            self.mean_children,
            self.leaf_count,
            self.references,
            self.build_seconds * 1e3,
            self.sah_cost,
            self.quantized_sah_cost,
            self.binary_sah_cost,
            self.binary_node_count,
            self.memory_bytes as f64 / 1024.0,
            100.0 * self.memory_bytes as f64 / self.binary_memory_bytes.max(1) as f64,
            self.binary_memory_bytes as f64 / 1024.0,
            self.max_depth
        )
    }
}

impl WideBvh {
    /// Collapses and compresses `bvh` (built over `tris`) with the default costs.
    pub fn from_binary(bvh: &Bvh, tris: &[[Vec3; 3]], collapse: Collapse) -> (WideBvh, WideStats) {
        WideBvh::from_binary_with(bvh, tris, &WideOptions { collapse, ..Default::default() })
    }

    /// Collapses and compresses `bvh` (built over `tris`).
    pub fn from_binary_with(bvh: &Bvh, tris: &[[Vec3; 3]], options: &WideOptions) -> (WideBvh, WideStats) {
        let nonneg = |x: f32| if x.is_finite() && x > 0.0 { x } else { 0.0 };
        let (node_cost, prim_cost) = (nonneg(options.node_cost), nonneg(options.prim_cost));
        let start = Instant::now();
        let (wide, exact_cost) = if bvh.is_empty() || bvh.nodes.is_empty() {
            (WideBvh { nodes: vec![Zeroable::zeroed()], prim_indices: Vec::new() }, 0.0)
        } else {
            let collapsed = collapse::collapse(bvh, tris, options.collapse, node_cost, prim_cost);
            let cost = collapsed_sah_cost(&collapsed, node_cost as f64, prim_cost as f64);
            let compressed = compress::compress(&collapsed);
            (WideBvh { nodes: compressed.nodes, prim_indices: compressed.prim_indices }, cost)
        };
        let build_seconds = start.elapsed().as_secs_f64();
        let leaf_count = wide
            .nodes
            .iter()
            .map(|n| (0..WIDTH).filter(|&s| matches!(n.child(s), WideChild::Leaf { .. })).count())
            .sum();
        let occupied: usize = wide.nodes.iter().map(|n| n.meta.iter().filter(|&&m| m != 0).count()).sum();
        let max_depth = wide.max_depth();
        assert!((max_depth as usize) < WIDE_STACK_SIZE, "wide tree depth {max_depth} exceeds the traversal stack");
        let stats = WideStats {
            collapse: options.collapse,
            build_seconds,
            node_count: wide.nodes.len(),
            leaf_count,
            references: wide.prim_indices.len(),
            mean_children: occupied as f64 / wide.nodes.len() as f64,
            sah_cost: exact_cost as f32,
            quantized_sah_cost: wide.sah_cost(node_cost, prim_cost),
            binary_sah_cost: bvh.sah_cost(node_cost, prim_cost),
            max_depth,
            memory_bytes: wide.memory_bytes(),
            binary_memory_bytes: bvh.nodes.len() * std::mem::size_of::<crate::BvhNode>() + 4 * bvh.prim_indices.len(),
            binary_node_count: bvh.nodes.len(),
        };
        (wide, stats)
    }

    /// True for the tree over no triangles.
    pub fn is_empty(&self) -> bool {
        self.prim_indices.is_empty()
    }

    /// Bytes of the node and index arrays.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<WideNode>() + 4 * self.prim_indices.len()
    }

    /// SAH cost over the quantized boxes: `node_cost` times the area of every node (a node's box is
    /// the union of its decoded children's; the root's is the normalization) plus `prim_cost` times
    /// each leaf's triangle count and area.
    pub fn sah_cost(&self, node_cost: f32, prim_cost: f32) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        let node_box =
            |n: &WideNode| (0..WIDTH).filter(|&s| n.meta[s] != 0).fold(Aabb::EMPTY, |b, s| b.union(n.child_bounds(s)));
        let root_area = node_box(&self.nodes[0]).area() as f64;
        let ratio = |a: f32| if root_area > 0.0 { a as f64 / root_area } else { 1.0 };
        let mut total = ratio(node_box(&self.nodes[0]).area()) * node_cost as f64;
        for n in &self.nodes {
            for s in 0..WIDTH {
                let a = n.child_bounds(s).area();
                match n.child(s) {
                    WideChild::Empty => {}
                    WideChild::Node(_) => total += ratio(a) * node_cost as f64,
                    WideChild::Leaf { count, .. } => total += ratio(a) * count as f64 * prim_cost as f64,
                }
            }
        }
        total as f32
    }

    /// Depth of the deepest node (root = 0).
    pub fn max_depth(&self) -> u32 {
        if self.nodes.is_empty() {
            return 0;
        }
        let mut deepest = 0;
        let mut stack = vec![(0u32, 0u32)];
        while let Some((index, depth)) = stack.pop() {
            deepest = deepest.max(depth);
            let node = &self.nodes[index as usize];
            for s in 0..WIDTH {
                if let WideChild::Node(child) = node.child(s) {
                    stack.push((child, depth + 1));
                }
            }
        }
        deepest
    }
}

/// SAH cost of the collapsed tree over the exact boxes, normalized by the root's area.
fn collapsed_sah_cost(collapsed: &collapse::Collapsed, c_node: f64, c_prim: f64) -> f64 {
    let root_area = collapse_area(&collapsed.nodes[0].bounds);
    let ratio = |b: &Aabb| if root_area > 0.0 { collapse_area(b) / root_area } else { 1.0 };
    let mut total = 0.0;
    for node in &collapsed.nodes {
        total += ratio(&node.bounds) * c_node;
        for child in &node.children {
            if let collapse::CKind::Leaf { count, .. } = child.kind {
                total += ratio(&child.bounds) * count as f64 * c_prim;
            }
        }
    }
    total
}

fn collapse_area(b: &Aabb) -> f64 {
    crate::build_common::area(b) as f64
}

#[cfg(test)]
mod tests;
