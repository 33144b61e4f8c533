//! Binned SAH builder (Wald 2007, "On fast construction of SAH-based bounding volume
//! hierarchies"): at each node the reference centroids are binned along all three axes, the
//! plane between bins with the lowest surface-area cost wins, and the references are
//! partitioned in place. A node becomes a leaf when it is small enough or when the SAH
//! says a leaf is cheaper (up to the hard leaf-size limit). Nodes whose centroids all
//! coincide, and nodes deep enough that the depth limit is near, split at the median.
//! Subtrees above a size threshold are built in parallel with `rayon::join`.

use crate::build_common::{
    BuildContext, BuildNode, LeafPrims, PARALLEL_THRESHOLD, PrimRef, bounds_and_centroid_bounds, find_object_split,
    flatten, initial_refs, partition_median, partition_object,
};
use crate::{BuildOptions, Bvh};
use glam::Vec3;

pub(crate) fn build(tris: &[[Vec3; 3]], options: &BuildOptions) -> Bvh {
    let context = BuildContext::new(options);
    let mut refs = initial_refs(tris);
    let root = build_node(&mut refs, 0, 0, &context);
    flatten(&root, &refs)
}

/// Builds the subtree over `refs`, which start at `first` in the whole reference array.
fn build_node(refs: &mut [PrimRef], first: usize, depth: u32, context: &BuildContext) -> BuildNode {
    let count = refs.len();
    let (bounds, centroid_bounds) = bounds_and_centroid_bounds(refs);
    let leaf = || BuildNode::Leaf { bounds, prims: LeafPrims::Range { first, count } };
    if count <= context.max_leaf_size {
        return leaf();
    }
    let left_count = if context.must_split_median(depth, count) {
        partition_median(refs, &centroid_bounds)
    } else {
        match find_object_split(refs, &centroid_bounds, context.bins) {
            Some(split) => {
                let area = bounds.area();
                let split_cost = context.split_cost(area, split.children_area_count);
                let leaf_cost = context.leaf_cost(area, count);
                let split_pays = split_cost < leaf_cost; // false for NaN costs too
                if !split_pays && count <= context.hard_max_leaf_size {
                    return leaf();
                }
                let left_count = partition_object(refs, &split);
                if left_count == 0 || left_count == count {
                    partition_median(refs, &centroid_bounds)
                } else {
                    left_count
                }
            }
            None if count <= context.hard_max_leaf_size => return leaf(),
            None => partition_median(refs, &centroid_bounds),
        }
    };
    let (left_refs, right_refs) = refs.split_at_mut(left_count);
    let right_first = first + left_count;
    let (left, right) = if count >= PARALLEL_THRESHOLD {
        rayon::join(
            || build_node(left_refs, first, depth + 1, context),
            || build_node(right_refs, right_first, depth + 1, context),
        )
    } else {
        (build_node(left_refs, first, depth + 1, context), build_node(right_refs, right_first, depth + 1, context))
    };
    BuildNode::Interior { bounds, children: Box::new([left, right]) }
}
