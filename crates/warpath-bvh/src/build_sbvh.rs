//! SBVH builder (Stich, Friedrich, Dietrich 2009, "Spatial Splits in Bounding Volume
//! Hierarchies"). Each node first finds the best binned object split; when its two
//! children overlap by more than `sbvh_alpha` times the root's area, it also tries spatial
//! splits: the node's box is cut into equal bins along each axis, every reference that spans
//! several bins is clipped (its triangle, clipped to the reference's box, is cut at each bin
//! plane, so the pieces' boxes bound the triangle, not its old box), and the plane with the
//! lowest SAH cost is a candidate. A chosen spatial split sends straddling references to
//! both sides, except where "unsplitting" (moving the whole reference to one side) is
//! cheaper. Duplicated references are paid for from a budget (at most
//! `SBVH_MAX_REFERENCE_FACTOR` references per triangle) that is shared between children in
//! proportion to their size, so the result does not depend on thread timing. Subtrees above
//! a size threshold are built in parallel with `rayon::join`.

use crate::build_common::{
    BuildContext, BuildNode, LeafPrims, ObjectSplit, PARALLEL_THRESHOLD, PrimRef, area, bins_for,
    bounds_and_centroid_bounds, find_object_split, flatten, initial_refs, partition_median, partition_object,
    triangle_bounds, union,
};
use crate::clip::{Polygon, piece_bounds};
use crate::{BuildOptions, Bvh, SBVH_MAX_REFERENCE_FACTOR};
use glam::Vec3;
use rayon::prelude::*;
use warpath_core::math::Aabb;

struct SbvhContext<'a> {
    base: BuildContext,
    tris: &'a [[Vec3; 3]],
    /// Spatial splits are tried when the object split's children overlap by more than this.
    min_overlap_area: f32,
}

pub(crate) fn build(tris: &[[Vec3; 3]], options: &BuildOptions) -> Bvh {
    let refs = initial_refs(tris);
    let (root_bounds, _) = bounds_and_centroid_bounds(&refs);
    let context = SbvhContext {
        base: BuildContext::new(options),
        tris,
        min_overlap_area: options.sbvh_alpha * root_bounds.area(),
    };
    let budget = ((SBVH_MAX_REFERENCE_FACTOR - 1.0).max(0.0) as f64 * tris.len() as f64) as usize;
    let root = build_node(refs, budget, 0, &context);
    flatten(&root, &[])
}

/// A spatial split candidate: references left of `position` on `axis` go left, right of it
/// go right, straddling ones are clipped to both sides (or unsplit).
#[derive(Clone, Copy, Debug)]
struct SpatialSplit {
    axis: usize,
    position: f32,
    children_area_count: f32,
}

/// Builds the subtree over `refs`, which may duplicate at most `budget` more references.
fn build_node(refs: Vec<PrimRef>, budget: usize, depth: u32, context: &SbvhContext) -> BuildNode {
    let base = &context.base;
    let count = refs.len();
    let (bounds, centroid_bounds) = bounds_and_centroid_bounds(&refs);
    let leaf =
        |refs: &[PrimRef]| BuildNode::Leaf { bounds, prims: LeafPrims::List(refs.iter().map(|r| r.prim).collect()) };
    if count <= base.max_leaf_size {
        return leaf(&refs);
    }

    let (left, right) = if base.must_split_median(depth, count) {
        split_median(refs, &centroid_bounds)
    } else {
        let object = find_object_split(&refs, &centroid_bounds, base.bins);
        let try_spatial = budget > 0
            && match &object {
                Some(split) => split.left_bounds.intersection(split.right_bounds).area() > context.min_overlap_area,
                None => true,
            };
        let spatial = if try_spatial { find_spatial_split(&refs, &bounds, budget, context) } else { None };
        let area = bounds.area();
        let cheaper_than_leaf = |cost: f32| base.split_cost(area, cost) < base.leaf_cost(area, count);
        let spatial_wins = match (&object, &spatial) {
            (Some(o), Some(s)) => s.children_area_count < o.children_area_count,
            (None, Some(_)) => true,
            _ => false,
        };
        // Only split spatially where the SAH asks for a split; a forced split (too many
        // references for a leaf) uses the object split, which never duplicates.
        let spatial_children = match spatial {
            Some(s) if spatial_wins && cheaper_than_leaf(s.children_area_count) => {
                perform_spatial_split(&refs, &s, budget, context.tris)
            }
            _ => None,
        };
        match (spatial_children, object) {
            (Some(children), _) => children,
            (None, Some(split)) if cheaper_than_leaf(split.children_area_count) || count > base.hard_max_leaf_size => {
                split_object(refs, &split, &centroid_bounds)
            }
            (None, None) if count > base.hard_max_leaf_size => split_median(refs, &centroid_bounds),
            (None, _) => return leaf(&refs),
        }
    };

    // Share what is left of the budget in proportion to the children's sizes.
    let duplicates = (left.len() + right.len()).saturating_sub(count);
    let remaining = budget.saturating_sub(duplicates);
    let left_budget = (remaining as u128 * left.len() as u128 / (left.len() + right.len()) as u128) as usize;
    let right_budget = remaining - left_budget;
    let (left_node, right_node) = if count >= PARALLEL_THRESHOLD {
        rayon::join(
            || build_node(left, left_budget, depth + 1, context),
            || build_node(right, right_budget, depth + 1, context),
        )
    } else {
        (build_node(left, left_budget, depth + 1, context), build_node(right, right_budget, depth + 1, context))
    };
    // Clipping may leave the children tighter than this node's references were.
    let bounds = union(left_node.bounds(), right_node.bounds());
    BuildNode::Interior { bounds, children: Box::new([left_node, right_node]) }
}

fn split_median(mut refs: Vec<PrimRef>, centroid_bounds: &Aabb) -> (Vec<PrimRef>, Vec<PrimRef>) {
    let mid = partition_median(&mut refs, centroid_bounds);
    let right = refs.split_off(mid);
    (refs, right)
}

fn split_object(mut refs: Vec<PrimRef>, split: &ObjectSplit, centroid_bounds: &Aabb) -> (Vec<PrimRef>, Vec<PrimRef>) {
    let mid = partition_object(&mut refs, split);
    if mid == 0 || mid == refs.len() {
        return split_median(refs, centroid_bounds);
    }
    let right = refs.split_off(mid);
    (refs, right)
}

/// `bounds` limited to the side of the plane `p[axis] == position` below it (`below`:
/// `<= position`) or above it.
fn clamp_to_side(bounds: &Aabb, axis: usize, position: f32, below: bool) -> Aabb {
    let mut side = *bounds;
    if below {
        side.max[axis] = side.max[axis].min(position);
    } else {
        side.min[axis] = side.min[axis].max(position);
    }
    side
}

/// Buffers for clipping one reference's triangle.
struct ClipBuffers {
    triangle: Polygon,
    rest: Polygon,
    below: Polygon,
    above: Polygon,
}

impl ClipBuffers {
    fn new() -> Self {
        ClipBuffers { triangle: Polygon::new(), rest: Polygon::new(), below: Polygon::new(), above: Polygon::new() }
    }
    /// Puts the part of `tri` inside `r`'s box into `rest`; false on overflow.
    /// Non-finite triangles are never clipped (the caller cuts their boxes instead).
    fn load_reference(&mut self, r: &PrimRef, tri: &[Vec3; 3]) -> bool {
        if !tri.iter().all(|v| v.is_finite()) {
            return false;
        }
        self.rest.set_triangle(tri);
        if r.bounds == triangle_bounds(tri) {
            return true; // never clipped yet: the whole triangle
        }
        self.triangle.set_triangle(tri);
        self.triangle.clip_to_box_into(&r.bounds, &mut self.rest, &mut self.below)
    }
    /// Cuts `rest` at the plane into `below` and `above`; false on overflow.
    fn cut_rest(&mut self, axis: usize, position: f32) -> bool {
        self.rest.split_into(axis, position, Some(&mut self.below), Some(&mut self.above))
    }
}

/// Boxes of the parts of reference `r` (triangle `tri`) below and above the plane; either may
/// be empty when the clipped triangle lies on one side only.
fn split_reference(
    r: &PrimRef,
    tri: &[Vec3; 3],
    axis: usize,
    position: f32,
    buffers: &mut ClipBuffers,
) -> (Aabb, Aabb) {
    let below_box = clamp_to_side(&r.bounds, axis, position, true);
    let above_box = clamp_to_side(&r.bounds, axis, position, false);
    if buffers.load_reference(r, tri) && buffers.cut_rest(axis, position) {
        (piece_bounds(&buffers.below, axis, &below_box), piece_bounds(&buffers.above, axis, &above_box))
    } else {
        // Vertex overflow (never seen in practice): fall back to cutting the box.
        (below_box, above_box)
    }
}

#[derive(Clone, Copy)]
struct SpatialBin {
    bounds: Aabb,
    entries: u32,
    exits: u32,
}

/// Best spatial split over all three axes whose estimated duplicates fit in `budget`.
fn find_spatial_split(refs: &[PrimRef], bounds: &Aabb, budget: usize, context: &SbvhContext) -> Option<SpatialSplit> {
    let per_axis = |axis: usize| spatial_split_on_axis(refs, bounds, axis, budget, context);
    let candidates: Vec<Option<SpatialSplit>> = if refs.len() >= PARALLEL_THRESHOLD {
        (0..3).into_par_iter().map(per_axis).collect()
    } else {
        (0..3).map(per_axis).collect()
    };
    candidates.into_iter().flatten().reduce(|a, b| if b.children_area_count < a.children_area_count { b } else { a })
}

fn spatial_split_on_axis(
    refs: &[PrimRef],
    bounds: &Aabb,
    axis: usize,
    budget: usize,
    context: &SbvhContext,
) -> Option<SpatialSplit> {
    let bins = bins_for(context.base.bins, refs.len());
    let low = bounds.min[axis];
    let extent = bounds.max[axis] - low;
    let bin_width = extent / bins as f32;
    let binnable = extent > 0.0 && extent.is_finite() && bin_width > 0.0;
    if !binnable {
        return None;
    }
    let plane = |i: usize| low + bin_width * i as f32;
    let bin_of = |x: f32| (((x - low) / bin_width) as usize).min(bins - 1);
    let mut table = vec![SpatialBin { bounds: Aabb::EMPTY, entries: 0, exits: 0 }; bins];
    let mut buffers = ClipBuffers::new();
    for r in refs {
        let first = bin_of(r.bounds.min[axis]);
        let last = bin_of(r.bounds.max[axis]).max(first);
        table[first].entries += 1;
        table[last].exits += 1;
        if first == last {
            table[first].bounds = union(table[first].bounds, r.bounds);
            continue;
        }
        // Chop the clipped triangle bin by bin.
        let mut clipped = buffers.load_reference(r, &context.tris[r.prim as usize]);
        let mut rest_box = r.bounds;
        #[allow(clippy::needless_range_loop)] // `bin` also picks the plane
        for bin in first..last {
            let position = plane(bin + 1);
            let below_box = clamp_to_side(&rest_box, axis, position, true);
            clipped = clipped && buffers.cut_rest(axis, position);
            let piece = if clipped {
                std::mem::swap(&mut buffers.rest, &mut buffers.above);
                piece_bounds(&buffers.below, axis, &below_box)
            } else {
                below_box
            };
            table[bin].bounds = union(table[bin].bounds, piece);
            rest_box = clamp_to_side(&rest_box, axis, position, false);
        }
        let last_piece = if clipped { piece_bounds(&buffers.rest, axis, &rest_box) } else { rest_box };
        table[last].bounds = union(table[last].bounds, last_piece);
    }

    // Sweep: right side suffixes, then left side prefixes.
    let mut right = vec![(0.0f32, 0usize); bins];
    let mut right_bounds = Aabb::EMPTY;
    let mut right_count = 0usize;
    for i in (1..bins).rev() {
        right_bounds = union(right_bounds, table[i].bounds);
        right_count += table[i].exits as usize;
        right[i] = (area(&right_bounds), right_count);
    }
    let count = refs.len();
    let mut best: Option<SpatialSplit> = None;
    let mut left_bounds = Aabb::EMPTY;
    let mut left_count = 0usize;
    for i in 1..bins {
        left_bounds = union(left_bounds, table[i - 1].bounds);
        left_count += table[i - 1].entries as usize;
        let (right_area, right_count) = right[i];
        if left_count == 0 || right_count == 0 || left_count + right_count > count + budget {
            continue;
        }
        let cost = area(&left_bounds) * left_count as f32 + right_area * right_count as f32;
        if best.as_ref().is_none_or(|b| cost < b.children_area_count) {
            best = Some(SpatialSplit { axis, position: plane(i), children_area_count: cost });
        }
    }
    best
}

/// Partitions `refs` by the plane, clipping straddling references or unsplitting them where
/// that is cheaper (Stich et al. section 4.3). `None` when a side would be empty or the
/// duplicates exceed `budget`. Both sides may keep every reference (all of them straddle):
/// the boxes still halve, and the budget bounds how often that can happen.
fn perform_spatial_split(
    refs: &[PrimRef],
    split: &SpatialSplit,
    budget: usize,
    tris: &[[Vec3; 3]],
) -> Option<(Vec<PrimRef>, Vec<PrimRef>)> {
    let (axis, position) = (split.axis, split.position);
    let mut left = Vec::with_capacity(refs.len());
    let mut right = Vec::with_capacity(refs.len());
    let mut straddling = Vec::new();
    let mut buffers = ClipBuffers::new();
    for r in refs {
        if r.bounds.max[axis] <= position {
            left.push(*r);
        } else if r.bounds.min[axis] >= position {
            right.push(*r);
        } else {
            let (below, above) = split_reference(r, &tris[r.prim as usize], axis, position, &mut buffers);
            straddling.push((*r, below, above));
        }
    }
    // Child boxes and counts as if every straddling reference were split.
    let mut left_bounds = left.iter().fold(Aabb::EMPTY, |b, r| b.union(r.bounds));
    let mut right_bounds = right.iter().fold(Aabb::EMPTY, |b, r| b.union(r.bounds));
    let mut left_count = left.len();
    let mut right_count = right.len();
    for (_, below, above) in &straddling {
        if !below.is_empty() {
            left_bounds = left_bounds.union(*below);
            left_count += 1;
        }
        if !above.is_empty() {
            right_bounds = right_bounds.union(*above);
            right_count += 1;
        }
    }
    for (r, below, above) in straddling {
        match (below.is_empty(), above.is_empty()) {
            (false, true) => left.push(PrimRef { bounds: below, prim: r.prim }),
            (true, false) => right.push(PrimRef { bounds: above, prim: r.prim }),
            // Nothing left of a (non-finite) triangle after clipping: keep it whole on one side.
            (true, true) => {
                left.push(r);
                left_count += 1;
            }
            (false, false) => {
                let (nl, nr) = (left_count as f32, right_count as f32);
                let split_cost = left_bounds.area() * nl + right_bounds.area() * nr;
                let all_left = left_bounds.union(r.bounds).area() * nl + right_bounds.area() * (nr - 1.0);
                let all_right = left_bounds.area() * (nl - 1.0) + right_bounds.union(r.bounds).area() * nr;
                if all_left < split_cost && all_left <= all_right {
                    left_bounds = left_bounds.union(r.bounds);
                    right_count -= 1;
                    left.push(r);
                } else if all_right < split_cost {
                    right_bounds = right_bounds.union(r.bounds);
                    left_count -= 1;
                    right.push(r);
                } else {
                    left.push(PrimRef { bounds: below, prim: r.prim });
                    right.push(PrimRef { bounds: above, prim: r.prim });
                }
            }
        }
    }
    let duplicates = (left.len() + right.len()).saturating_sub(refs.len());
    (!left.is_empty() && !right.is_empty() && duplicates <= budget).then_some((left, right))
}
