//! warpath-bvh: one canonical binary BVH over triangles, its builders (binned SAH and
//! SBVH with spatial splits), and CPU traversal (closest hit and any hit).
//!
//! (API contract; the implementation lands in `build_sah.rs`, `build_sbvh.rs`,
//! `traverse.rs`.)
//!
//! Layout: `nodes[0]` is the root. A node with `count == 0` is interior; its children
//! are `nodes[left_or_first]` and `nodes[left_or_first + 1]`. A node with `count > 0`
//! is a leaf over `prim_indices[left_or_first .. left_or_first + count]`, which are
//! indices into the triangle array the tree was built over. SBVH may reference a
//! triangle from several leaves. Flat `Pod` arrays: the GPU issue uploads them.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct BvhNode {
    pub min: Vec3,
    pub left_or_first: u32,
    pub max: Vec3,
    pub count: u32,
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
