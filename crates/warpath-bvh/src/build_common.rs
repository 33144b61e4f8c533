//! Pieces shared by the builders: primitive references, the temporary pointer tree that
//! the (parallel) recursions return, its flattening into the canonical layout, binned
//! centroid (object) splits, and the median-split fallback.

use crate::{BuildOptions, Bvh, BvhNode, MAX_DEPTH, MAX_LEAF_SIZE_HARD};
use glam::Vec3;
use rayon::prelude::*;
use warpath_core::math::Aabb;

/// Subtrees with at least this many references are built with `rayon::join`.
pub(crate) const PARALLEL_THRESHOLD: usize = 4096;
/// Binning and bounds passes over at least this many references run in parallel chunks.
const PARALLEL_PASS_THRESHOLD: usize = 65536;
const PASS_CHUNK: usize = 16384;

/// A reference to (part of) a triangle: the box of the part, and the triangle's index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PrimRef {
    pub bounds: Aabb,
    pub prim: u32,
}

impl PrimRef {
    #[inline]
    pub fn centroid(&self) -> Vec3 {
        0.5 * (self.bounds.min + self.bounds.max)
    }
}

/// Box of a triangle. A triangle with a non-finite coordinate (never hit: its determinant is
/// not finite) gets the box of its finite vertices, or a point at the origin, so no NaN or
/// infinity reaches the tree's boxes.
pub(crate) fn triangle_bounds(tri: &[Vec3; 3]) -> Aabb {
    if tri.iter().all(|v| v.is_finite()) {
        return Aabb::from_points(tri);
    }
    let finite = tri.iter().filter(|v| v.is_finite()).fold(Aabb::EMPTY, |b, &v| b.grow(v));
    if finite.is_empty() { Aabb { min: Vec3::ZERO, max: Vec3::ZERO } } else { finite }
}

pub(crate) fn initial_refs(tris: &[[Vec3; 3]]) -> Vec<PrimRef> {
    tris.par_iter().enumerate().map(|(i, tri)| PrimRef { bounds: triangle_bounds(tri), prim: i as u32 }).collect()
}

/// The prims of a leaf: a range of the SAH builder's reference array, or an owned list (SBVH).
pub(crate) enum LeafPrims {
    Range { first: usize, count: usize },
    List(Vec<u32>),
}

/// Temporary tree the builders return; [`flatten`] turns it into the canonical layout.
pub(crate) enum BuildNode {
    Leaf { bounds: Aabb, prims: LeafPrims },
    Interior { bounds: Aabb, children: Box<[BuildNode; 2]> },
}

impl BuildNode {
    pub fn bounds(&self) -> Aabb {
        match self {
            BuildNode::Leaf { bounds, .. } | BuildNode::Interior { bounds, .. } => *bounds,
        }
    }
}

/// Settings the recursions share, with the clamps applied.
pub(crate) struct BuildContext {
    pub max_leaf_size: usize,
    pub hard_max_leaf_size: usize,
    pub bins: usize,
    pub traversal_cost: f32,
    pub intersection_cost: f32,
}

impl BuildContext {
    pub fn new(options: &BuildOptions) -> Self {
        BuildContext {
            max_leaf_size: options.max_leaf_size,
            hard_max_leaf_size: options.max_leaf_size.max(MAX_LEAF_SIZE_HARD),
            bins: options.bins,
            traversal_cost: options.traversal_cost,
            intersection_cost: options.intersection_cost,
        }
    }
    /// Whether the depth limit forces median splits from here on: with median splits a node of
    /// `n` references needs at most `ceil(log2 n)` more levels, so the depth stays `<= MAX_DEPTH`.
    pub fn must_split_median(&self, depth: u32, count: usize) -> bool {
        depth + ceil_log2(count) >= MAX_DEPTH
    }
    /// Unnormalized SAH cost of a leaf (`area` is the node's surface area).
    pub fn leaf_cost(&self, area: f32, count: usize) -> f32 {
        self.intersection_cost * count as f32 * area
    }
    /// Unnormalized SAH cost of splitting, given `sum(area(child) * count(child))`.
    pub fn split_cost(&self, area: f32, children_area_count: f32) -> f32 {
        self.traversal_cost * area + self.intersection_cost * children_area_count
    }
}

/// Bins for a node of `count` references: the configured number, but no more than the node
/// has references (at least 4), since per-node sweeps over many empty bins dominate small nodes.
pub(crate) fn bins_for(configured: usize, count: usize) -> usize {
    configured.min(count.max(4))
}

/// Union of two boxes (inlined here: the core crate's methods are not inlined across crates).
#[inline(always)]
pub(crate) fn union(a: Aabb, b: Aabb) -> Aabb {
    Aabb { min: a.min.min(b.min), max: a.max.max(b.max) }
}

/// Surface area, 0 for an empty box (inlined copy of `Aabb::area`).
#[inline(always)]
pub(crate) fn area(b: &Aabb) -> f32 {
    let e = (b.max - b.min).max(Vec3::ZERO);
    if b.min.x > b.max.x || b.min.y > b.max.y || b.min.z > b.max.z {
        return 0.0;
    }
    2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
}

pub(crate) fn ceil_log2(n: usize) -> u32 {
    if n <= 1 { 0 } else { usize::BITS - (n - 1).leading_zeros() }
}

/// Box of the references and box of their centroids.
pub(crate) fn bounds_and_centroid_bounds(refs: &[PrimRef]) -> (Aabb, Aabb) {
    let pass = |chunk: &[PrimRef]| {
        chunk.iter().fold((Aabb::EMPTY, Aabb::EMPTY), |(b, c), r| {
            let centroid = r.centroid();
            (union(b, r.bounds), Aabb { min: c.min.min(centroid), max: c.max.max(centroid) })
        })
    };
    if refs.len() >= PARALLEL_PASS_THRESHOLD {
        refs.par_chunks(PASS_CHUNK)
            .map(pass)
            .reduce(|| (Aabb::EMPTY, Aabb::EMPTY), |(b0, c0), (b1, c1)| (union(b0, b1), union(c0, c1)))
    } else {
        pass(refs)
    }
}

/// Maps centroids to bins along each axis; axes with no (finite, positive) extent are not binned.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CentroidBinning {
    min: Vec3,
    scale: Vec3,
    bins: usize,
    axis_usable: [bool; 3],
}

impl CentroidBinning {
    pub fn new(centroid_bounds: &Aabb, bins: usize) -> Self {
        let extent = centroid_bounds.extent();
        let mut scale = Vec3::ZERO;
        let mut axis_usable = [false; 3];
        for axis in 0..3 {
            let s = bins as f32 / extent[axis];
            if extent[axis] > 0.0 && s.is_finite() && centroid_bounds.min[axis].is_finite() {
                scale[axis] = s;
                axis_usable[axis] = true;
            }
        }
        CentroidBinning { min: centroid_bounds.min, scale, bins, axis_usable }
    }
    #[inline]
    pub fn bin(&self, centroid: Vec3, axis: usize) -> usize {
        // `as usize` saturates (and maps NaN to 0), so every input lands in a bin.
        (((centroid[axis] - self.min[axis]) * self.scale[axis]) as usize).min(self.bins - 1)
    }
}

/// A partition of references by centroid bin: bins `< boundary` on `axis` go left.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ObjectSplit {
    pub axis: usize,
    pub boundary: usize,
    pub binning: CentroidBinning,
    /// `area(left) * count(left) + area(right) * count(right)`.
    pub children_area_count: f32,
    pub left_bounds: Aabb,
    pub right_bounds: Aabb,
}

#[derive(Clone, Copy)]
struct Bin {
    bounds: Aabb,
    count: u32,
}

const EMPTY_BIN: Bin = Bin { bounds: Aabb::EMPTY, count: 0 };

/// Best binned SAH object split over all three axes, or `None` when no axis separates the
/// centroids (all identical, or non-finite).
pub(crate) fn find_object_split(refs: &[PrimRef], centroid_bounds: &Aabb, bins: usize) -> Option<ObjectSplit> {
    let bins = bins_for(bins, refs.len());
    let binning = CentroidBinning::new(centroid_bounds, bins);
    if !binning.axis_usable.iter().any(|&u| u) {
        return None;
    }
    let fill = |chunk: &[PrimRef]| {
        let mut table = vec![EMPTY_BIN; 3 * bins];
        for r in chunk {
            let c = r.centroid();
            for axis in 0..3 {
                if binning.axis_usable[axis] {
                    let bin = &mut table[axis * bins + binning.bin(c, axis)];
                    bin.bounds = union(bin.bounds, r.bounds);
                    bin.count += 1;
                }
            }
        }
        table
    };
    let table = if refs.len() >= PARALLEL_PASS_THRESHOLD {
        refs.par_chunks(PASS_CHUNK).map(fill).reduce(
            || vec![EMPTY_BIN; 3 * bins],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    x.bounds = union(x.bounds, y.bounds);
                    x.count += y.count;
                }
                a
            },
        )
    } else {
        fill(refs)
    };

    let mut best: Option<ObjectSplit> = None;
    let mut right_area_count = vec![(0.0f32, Aabb::EMPTY); bins];
    for axis in 0..3 {
        if !binning.axis_usable[axis] {
            continue;
        }
        let axis_bins = &table[axis * bins..(axis + 1) * bins];
        // right_area_count[i] = (area * count, bounds) of bins i..bins.
        let mut acc = Aabb::EMPTY;
        let mut count = 0u32;
        for i in (1..bins).rev() {
            acc = union(acc, axis_bins[i].bounds);
            count += axis_bins[i].count;
            right_area_count[i] = (area(&acc) * count as f32, acc);
        }
        let mut left = Aabb::EMPTY;
        let mut left_count = 0u32;
        let total = refs.len() as u32;
        for boundary in 1..bins {
            left = union(left, axis_bins[boundary - 1].bounds);
            left_count += axis_bins[boundary - 1].count;
            if left_count == 0 || left_count == total {
                continue;
            }
            let (right_cost, right_bounds) = right_area_count[boundary];
            let cost = area(&left) * left_count as f32 + right_cost;
            if best.as_ref().is_none_or(|b| cost < b.children_area_count) {
                best = Some(ObjectSplit {
                    axis,
                    boundary,
                    binning,
                    children_area_count: cost,
                    left_bounds: left,
                    right_bounds,
                });
            }
        }
    }
    best
}

/// Reorders `refs` so that the split's left side comes first; returns the left count.
pub(crate) fn partition_object(refs: &mut [PrimRef], split: &ObjectSplit) -> usize {
    let goes_left = |r: &PrimRef| split.binning.bin(r.centroid(), split.axis) < split.boundary;
    let mut left_end = 0;
    let mut right_start = refs.len();
    while left_end < right_start {
        if goes_left(&refs[left_end]) {
            left_end += 1;
        } else {
            right_start -= 1;
            refs.swap(left_end, right_start);
        }
    }
    left_end
}

/// Splits at the median centroid along the widest centroid axis; returns the left count
/// (`len / 2`, at least 1 for two or more references).
pub(crate) fn partition_median(refs: &mut [PrimRef], centroid_bounds: &Aabb) -> usize {
    let mid = refs.len() / 2;
    let extent = centroid_bounds.extent();
    let axis = if extent.x >= extent.y && extent.x >= extent.z {
        0
    } else if extent.y >= extent.z {
        1
    } else {
        2
    };
    if mid > 0 {
        refs.select_nth_unstable_by(mid, |a, b| a.centroid()[axis].total_cmp(&b.centroid()[axis]));
    }
    mid
}

/// Turns the temporary tree into the canonical layout (children adjacent, depth first).
/// `range_refs` is the reference array that `LeafPrims::Range` leaves index.
pub(crate) fn flatten(root: &BuildNode, range_refs: &[PrimRef]) -> Bvh {
    let mut bvh = Bvh { nodes: vec![BvhNode::zeroed_placeholder()], prim_indices: Vec::new() };
    flatten_into(root, 0, range_refs, &mut bvh);
    bvh
}

fn flatten_into(node: &BuildNode, slot: usize, range_refs: &[PrimRef], bvh: &mut Bvh) {
    match node {
        BuildNode::Leaf { bounds, prims } => {
            let first = bvh.prim_indices.len();
            match prims {
                LeafPrims::Range { first, count } => {
                    bvh.prim_indices.extend(range_refs[*first..*first + *count].iter().map(|r| r.prim))
                }
                LeafPrims::List(list) => bvh.prim_indices.extend_from_slice(list),
            }
            let count = bvh.prim_indices.len() - first;
            bvh.nodes[slot] =
                BvhNode { min: bounds.min, left_or_first: first as u32, max: bounds.max, count: count as u32 };
        }
        BuildNode::Interior { bounds, children } => {
            let base = bvh.nodes.len();
            bvh.nodes.push(BvhNode::zeroed_placeholder());
            bvh.nodes.push(BvhNode::zeroed_placeholder());
            bvh.nodes[slot] = BvhNode { min: bounds.min, left_or_first: base as u32, max: bounds.max, count: 0 };
            flatten_into(&children[0], base, range_refs, bvh);
            flatten_into(&children[1], base + 1, range_refs, bvh);
        }
    }
}

impl BvhNode {
    fn zeroed_placeholder() -> BvhNode {
        bytemuck::Zeroable::zeroed()
    }
}
