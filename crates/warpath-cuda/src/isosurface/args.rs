//! The isosurface kernels' arguments, passed by value (`kernels/isosurface/*.cuh` assert
//! their layouts): the caster's ([`IsoArgs`]), the renderer's ([`IsoRenderArgs`]), the tree
//! updates' ([`IsoUpdateArgs`], [`IsoClimbArgs`]) and the multi-kernel pipeline's
//! ([`IsoPipelineArgs`], [`IsoStageOut`]); and the condensed tree's device nodes
//! ([`IsoNode`], [`flatten_tree`]), which the scenes' isosurface shapes use too.

use crate::compaction::workspace::CompactionState;
use bytemuck::{Pod, Zeroable};
use warpath_isosurface::bricks::{BrickBvh, CondensedNode, CondensedTree};

/// No child (`IsoNode::left` of a brick).
pub(crate) const NO_NODE: u32 = u32::MAX;

/// A node of the condensed tree: lattice cells `lo..hi`; `left == u32::MAX` for a brick.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct IsoNode {
    pub lo: [u32; 3],
    pub hi: [u32; 3],
    pub left: u32,
    pub right: u32,
}

/// The condensed tree as device nodes (the same indices), each with its lattice box.
pub fn flatten_tree(bvh: &BrickBvh, tree: &CondensedTree) -> Vec<IsoNode> {
    tree.nodes
        .iter()
        .map(|node| match node {
            CondensedNode::Leaf { brick } => {
                let (lo, hi) = bvh.cell_range(*brick, brick.map(|v| v + 1));
                IsoNode { lo, hi, left: NO_NODE, right: NO_NODE }
            }
            CondensedNode::Inner { lo, hi, children } => {
                let (lo, hi) = bvh.cell_range(*lo, *hi);
                IsoNode { lo, hi, left: children[0], right: children[1] }
            }
        })
        .collect()
}

/// The kernel's argument, by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoArgs {
    pub values: u64,
    pub nodes: u64,
    pub rays: u64,
    pub hits: u64,
    pub samples: [u32; 3],
    pub root: u32,
    pub ray_count: u32,
    pub isovalue: f32,
    /// Non-zero: the address of the root's index (a tree updated on the device).
    pub root_slot: u64,
}

// SAFETY: `#[repr(C)]` Pod of addresses and scalars whose layout caster.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for IsoArgs {}

/// The render kernel's argument, by value: the tree, the outputs, the camera
/// (`IsoView`'s fields) and the shading (`Shading`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoRenderArgs {
    pub values: u64,
    pub nodes: u64,
    pub pixels: u64,
    pub hits: u64,
    pub eye: [f64; 3],
    pub corner: [f64; 3],
    pub right: [f64; 3],
    pub down: [f64; 3],
    pub samples: [u32; 3],
    pub root: u32,
    pub width: u32,
    pub height: u32,
    pub isovalue: f32,
    pub color: [f32; 3],
    pub ambient: f32,
    pub diffuse: f32,
    pub specular: f32,
    pub shininess: f32,
    pub background: [f32; 3],
    /// [`LIGHT_HEAD`](super::LIGHT_HEAD), [`LIGHT_KEY`](super::LIGHT_KEY) or [`LIGHT_SHADOWS`](super::LIGHT_SHADOWS).
    pub light_mode: u32,
    /// Non-zero: the address of the root's index (a tree updated on the device).
    pub root_slot: u64,
    /// The key light's unit direction in lattice space (`IsoView::world_direction`).
    pub light: [f64; 3],
}

// SAFETY: `#[repr(C)]` Pod of addresses and scalars whose layout render.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for IsoRenderArgs {}

/// The update kernel's argument, by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoUpdateArgs {
    pub tree: u64,
    pub level_nodes: u64,
    pub level_offsets: u64,
    pub nodes: u64,
    pub refs: u64,
    pub levels: u32,
    pub isovalue: f32,
}

// SAFETY: `#[repr(C)]` Pod of addresses and scalars whose layout update.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for IsoUpdateArgs {}

/// The one-launch update's argument, by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoClimbArgs {
    pub tree: u64,
    pub parents: u64,
    pub leaves: u64,
    pub leaf_ranges: u64,
    pub arrivals: u64,
    pub nodes: u64,
    pub refs: u64,
    pub leaf_count: u32,
    pub isovalue: f32,
}

// SAFETY: `#[repr(C)]` Pod of addresses and scalars whose layout update.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for IsoClimbArgs {}

/// The pipeline's argument, by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoPipelineArgs {
    pub frame: IsoRenderArgs,
    pub stack_node: u64,
    pub stack_entry: u64,
    pub stack_top: u64,
    pub normals: u64,
    pub stack_capacity: u32,
    pub pixel_count: u32,
}

/// Where a stage puts the rays it passes on.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoStageOut {
    pub items: u64,
    pub flags: u64,
    pub intermediate: u64,
    pub state: CompactionState,
}

// SAFETY: `#[repr(C)]` Pods of addresses and scalars whose layouts pipeline.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for IsoPipelineArgs {}
unsafe impl cudarc::driver::DeviceRepr for IsoStageOut {}

const _: () = assert!(std::mem::size_of::<IsoPipelineArgs>() == 272);
const _: () = assert!(std::mem::size_of::<IsoStageOut>() == 88);

const _: () = assert!(std::mem::size_of::<IsoNode>() == 32);
const _: () = assert!(std::mem::size_of::<IsoArgs>() == 64);
const _: () = assert!(std::mem::size_of::<IsoRenderArgs>() == 232);
const _: () = assert!(std::mem::size_of::<IsoUpdateArgs>() == 48);
const _: () = assert!(std::mem::size_of::<IsoClimbArgs>() == 64);
