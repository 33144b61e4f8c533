//! warpath-bvh: one canonical binary BVH over triangles, its builders (binned SAH in
//! `build_sah.rs`, SBVH with spatial splits in `build_sbvh.rs`), and CPU traversal
//! (closest hit and any hit, `traverse.rs`).
//!
//! Layout: `nodes[0]` is the root. A node with `count == 0` is interior; its children
//! are `nodes[left_or_first]` and `nodes[left_or_first + 1]`. A node with `count > 0`
//! is a leaf over `prim_indices[left_or_first .. left_or_first + count]`, which are
//! indices into the triangle array the tree was built over. SBVH may reference a
//! triangle from several leaves (each leaf's box then bounds only the part of the
//! triangle that lies in it). Flat `Pod` arrays: the GPU issue uploads them.
//!
//! Traversal returns exactly what [`brute_force_intersect`] returns (same
//! `intersect_triangle`, same tie-break), with one exception no hierarchy can avoid: on a
//! nearly degenerate triangle Möller–Trumbore can report a "hit" whose point lies far outside
//! the triangle (and its box); the tree may miss such a hit.
//!
//! The tree over no triangles is a single node with an empty box (`min > max`,
//! `count == 0`) and no prim indices: a traversal that tests the root's box first never
//! enters it. Every builder keeps the depth below [`MAX_DEPTH`], so a traversal stack of
//! 64 entries always suffices.

mod bench;
mod build_common;
mod build_sah;
mod build_sbvh;
mod clip;
pub mod cpu_layout;
mod traverse;
pub mod wide;

pub use bench::{BuildReport, build_benchmark, markdown_table};
pub use traverse::brute_force_intersect;

use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::fmt;
use std::time::Instant;
use warpath_core::math::Aabb;

/// Maximum depth (root = 0) of any tree the builders make; traversal stacks of 64 entries suffice.
pub const MAX_DEPTH: u32 = 60;

/// Leaves never hold more references than `max(options.max_leaf_size, MAX_LEAF_SIZE_HARD)`
/// (except when all remaining references are one point and the depth limit forces a leaf, which
/// cannot happen below `MAX_DEPTH` for fewer than 2^32 triangles).
pub const MAX_LEAF_SIZE_HARD: usize = 16;

/// SBVH never makes more than this many references per input triangle.
pub const SBVH_MAX_REFERENCE_FACTOR: f32 = 3.0;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct BvhNode {
    pub min: Vec3,
    pub left_or_first: u32,
    pub max: Vec3,
    pub count: u32,
}

impl BvhNode {
    pub fn is_leaf(&self) -> bool {
        self.count > 0
    }
    pub fn bounds(&self) -> Aabb {
        Aabb { min: self.min, max: self.max }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Bvh {
    pub nodes: Vec<BvhNode>,
    pub prim_indices: Vec<u32>,
}

/// A closest hit: distance, barycentrics of vertices 1 and 2, triangle index.
/// Ties in `t` are broken toward the lower triangle index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub t: f32,
    pub u: f32,
    pub v: f32,
    pub prim: u32,
}

/// Which builder makes the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuildKind {
    /// Binned SAH over centroids (one reference per triangle).
    Sah,
    /// Spatial-split BVH (Stich, Friedrich, Dietrich 2009): object splits plus spatial splits
    /// that clip triangles into several leaves.
    Sbvh,
}

impl fmt::Display for BuildKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BuildKind::Sah => "SAH",
            BuildKind::Sbvh => "SBVH",
        })
    }
}

/// Builder settings. Out-of-range values are clamped: `max_leaf_size` to at least 1, `bins` to
/// `2..=256`, negative costs and `sbvh_alpha` to 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuildOptions {
    pub kind: BuildKind,
    /// Nodes with at most this many references always become leaves.
    pub max_leaf_size: usize,
    /// Bins per axis, for object splits (centroids) and SBVH spatial splits alike.
    pub bins: usize,
    /// SAH cost of visiting an interior node.
    pub traversal_cost: f32,
    /// SAH cost of one ray/triangle test.
    pub intersection_cost: f32,
    /// SBVH tries spatial splits only where the object split's children overlap by more
    /// than `sbvh_alpha` times the root's surface area.
    pub sbvh_alpha: f32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            kind: BuildKind::Sah,
            max_leaf_size: 4,
            bins: 32,
            traversal_cost: 1.0,
            intersection_cost: 1.0,
            sbvh_alpha: 1e-5,
        }
    }
}

impl BuildOptions {
    pub fn sbvh() -> Self {
        BuildOptions { kind: BuildKind::Sbvh, ..Default::default() }
    }
    fn sanitized(&self) -> BuildOptions {
        let nonneg = |x: f32| if x.is_finite() && x > 0.0 { x } else { 0.0 };
        BuildOptions {
            kind: self.kind,
            max_leaf_size: self.max_leaf_size.max(1),
            bins: self.bins.clamp(2, 256),
            traversal_cost: nonneg(self.traversal_cost),
            intersection_cost: nonneg(self.intersection_cost),
            sbvh_alpha: nonneg(self.sbvh_alpha),
        }
    }
}

/// What a build made and how long it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuildStats {
    pub kind: BuildKind,
    pub triangles: usize,
    pub build_seconds: f64,
    pub node_count: usize,
    pub leaf_count: usize,
    /// Length of `prim_indices` (SBVH may reference a triangle several times).
    pub references: usize,
    /// [`Bvh::sah_cost`] with the build's traversal and intersection costs.
    pub sah_cost: f32,
    /// Depth of the deepest leaf (root = 0).
    pub max_depth: u32,
}

impl BuildStats {
    /// Millions of triangles built per second.
    pub fn mtris_per_second(&self) -> f64 {
        if self.build_seconds > 0.0 { self.triangles as f64 / self.build_seconds / 1e6 } else { f64::INFINITY }
    }
}

impl fmt::Display for BuildStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let growth = if self.triangles > 0 { self.references as f64 / self.triangles as f64 } else { 0.0 };
        write!(
            f,
            "{} BVH: {} triangles in {:.3} ms ({:.2} Mtris/s), {} nodes, {} leaves, {} references ({:.2}x), \
             SAH cost {:.2}, depth {}",
            self.kind,
            self.triangles,
            self.build_seconds * 1e3,
            self.mtris_per_second(),
            self.node_count,
            self.leaf_count,
            self.references,
            growth,
            self.sah_cost,
            self.max_depth
        )
    }
}

impl Bvh {
    /// Builds a tree over `tris` with the builder `options.kind` (multi-threaded with rayon).
    /// Degenerate and non-finite triangles are kept (they are simply never hit).
    pub fn build(tris: &[[Vec3; 3]], options: &BuildOptions) -> (Bvh, BuildStats) {
        let options = options.sanitized();
        let start = Instant::now();
        let bvh = if tris.is_empty() {
            Bvh::empty()
        } else {
            match options.kind {
                BuildKind::Sah => build_sah::build(tris, &options),
                BuildKind::Sbvh => build_sbvh::build(tris, &options),
            }
        };
        let build_seconds = start.elapsed().as_secs_f64();
        let stats = BuildStats {
            kind: options.kind,
            triangles: tris.len(),
            build_seconds,
            node_count: bvh.nodes.len(),
            leaf_count: bvh.nodes.iter().filter(|n| n.is_leaf()).count(),
            references: bvh.prim_indices.len(),
            sah_cost: bvh.sah_cost(options.traversal_cost, options.intersection_cost),
            max_depth: bvh.max_depth(),
        };
        (bvh, stats)
    }

    /// The tree over no triangles: one node with an empty box that no ray enters.
    pub fn empty() -> Bvh {
        let empty = Aabb::EMPTY;
        Bvh {
            nodes: vec![BvhNode { min: empty.min, left_or_first: 0, max: empty.max, count: 0 }],
            prim_indices: vec![],
        }
    }

    /// True for the tree over no triangles.
    pub fn is_empty(&self) -> bool {
        self.prim_indices.is_empty()
    }

    /// Surface area heuristic cost: the sum over interior nodes of
    /// `area(node) / area(root) * traversal_cost` plus over leaves of
    /// `area(leaf) / area(root) * count * intersection_cost`. A root of zero area counts
    /// every node with ratio 1.
    pub fn sah_cost(&self, traversal_cost: f32, intersection_cost: f32) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        let root_area = self.nodes[0].bounds().area() as f64;
        let mut total = 0.0f64;
        for node in &self.nodes {
            let ratio = if root_area > 0.0 { node.bounds().area() as f64 / root_area } else { 1.0 };
            let cost =
                if node.is_leaf() { node.count as f64 * intersection_cost as f64 } else { traversal_cost as f64 };
            total += ratio * cost;
        }
        total as f32
    }

    /// Depth of the deepest leaf (root = 0).
    pub fn max_depth(&self) -> u32 {
        if self.is_empty() {
            return 0;
        }
        let mut deepest = 0;
        let mut stack = vec![(0u32, 0u32)];
        while let Some((index, depth)) = stack.pop() {
            let node = self.nodes[index as usize];
            deepest = deepest.max(depth);
            if !node.is_leaf() {
                stack.push((node.left_or_first, depth + 1));
                stack.push((node.left_or_first + 1, depth + 1));
            }
        }
        deepest
    }
}
