//! Seed 001's per-isovalue BVH update on the device (`iso_update_level`, `iso_update_tree`,
//! `kernels/isosurface/update.cuh`): the full brick tree of a [`BrickBvh`] uploaded once per
//! volume with its nodes listed level by level; per isovalue it is condensed bottom-up — the
//! wide bottom levels (more than [`WIDE_LEVEL_NODES`] nodes) by a launch each over the whole
//! GPU, the rest by one block — into the condensed tree that `BrickBvh::condense` builds on the
//! host, at the full tree's node indices, its root left in device memory for the casters.

use super::{IsoNode, NO_NODE};
use crate::buffer::DeviceBuffer;
use crate::error::CudaResult;
use crate::kernels::ISOSURFACE;
use crate::runtime::CudaDevice;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use warpath_isosurface::bricks::BrickBvh;

pub const UPDATE_TREE: &str = "iso_update_tree";
pub const UPDATE_LEVEL: &str = "iso_update_level";
const UPDATE_BLOCK: u32 = 1024;
const LEVEL_BLOCK: u32 = 256;
/// Levels wider than this many nodes (and all below the first such) get a launch each: one
/// block of 1024 threads does them in two passes at most.
pub const WIDE_LEVEL_NODES: u32 = 2048;

/// A node of the full tree: its cells `lo..hi`, children (`u32::MAX` for a brick), and the
/// min and max of the samples its cells read.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoTreeNode {
    pub lo: [u32; 3],
    pub hi: [u32; 3],
    pub left: u32,
    pub right: u32,
    pub min: f32,
    pub max: f32,
}

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

const _: () = assert!(std::mem::size_of::<IsoTreeNode>() == 40);
const _: () = assert!(std::mem::size_of::<IsoUpdateArgs>() == 48);

/// The full tree in device form and its nodes level by level from the root's:
/// (nodes, level_nodes, level_offsets).
pub fn full_tree(bvh: &BrickBvh) -> (Vec<IsoTreeNode>, Vec<u32>, Vec<u32>) {
    let nodes = bvh
        .nodes
        .iter()
        .map(|n| {
            let (lo, hi) = bvh.cell_range(n.lo, n.hi);
            let [left, right] = n.children.unwrap_or([NO_NODE, NO_NODE]);
            IsoTreeNode { lo, hi, left, right, min: n.min, max: n.max }
        })
        .collect();
    let (mut level_nodes, mut level_offsets) = (Vec::with_capacity(bvh.nodes.len()), vec![0u32]);
    let mut level = vec![0u32];
    while !level.is_empty() {
        level_nodes.extend_from_slice(&level);
        level_offsets.push(level_nodes.len() as u32);
        level = level.iter().filter_map(|&n| bvh.nodes[n as usize].children).flatten().collect();
    }
    (nodes, level_nodes, level_offsets)
}

/// The full tree on the device and the condensed tree the update writes.
pub(crate) struct DeviceBrickTree {
    tree: DeviceBuffer<IsoTreeNode>,
    level_nodes: DeviceBuffer<u32>,
    level_offsets: DeviceBuffer<u32>,
    /// Host copy of `level_offsets` (the launches' sizes).
    offsets: Vec<u32>,
    nodes: DeviceBuffer<IsoNode>,
    refs: DeviceBuffer<u32>,
}

impl DeviceBrickTree {
    pub(crate) fn upload(device: &CudaDevice, bvh: &BrickBvh) -> CudaResult<Self> {
        let (tree, level_nodes, level_offsets) = full_tree(bvh);
        Ok(DeviceBrickTree {
            nodes: DeviceBuffer::zeroed(device, tree.len())?,
            refs: DeviceBuffer::zeroed(device, tree.len())?,
            tree: DeviceBuffer::from_slice(device, &tree)?,
            level_nodes: DeviceBuffer::from_slice(device, &level_nodes)?,
            level_offsets: DeviceBuffer::from_slice(device, &level_offsets)?,
            offsets: level_offsets,
        })
    }

    pub(crate) fn levels(&self) -> u32 {
        self.offsets.len() as u32 - 1
    }

    /// The levels of more than `wide_level_nodes` nodes, and every one below the first, by a
    /// launch each (deepest first), then the levels above by one block; not synchronised.
    pub(crate) fn update(&mut self, device: &CudaDevice, isovalue: f32, wide_level_nodes: u32) -> CudaResult<()> {
        let levels = self.levels() as usize;
        let width = |l: usize| self.offsets[l + 1] - self.offsets[l];
        let block_levels = (0..levels).find(|&l| width(l) > wide_level_nodes).unwrap_or(levels);
        let mut args = IsoUpdateArgs {
            tree: self.tree.address(device),
            level_nodes: self.level_nodes.address(device),
            level_offsets: self.level_offsets.address(device),
            nodes: self.nodes.address(device),
            refs: self.refs.address(device),
            levels: levels as u32,
            isovalue,
        };
        if block_levels < levels {
            let level_function = device.function(&ISOSURFACE, UPDATE_LEVEL)?;
            for level in (block_levels..levels).rev() {
                let config = LaunchConfig {
                    grid_dim: (width(level).div_ceil(LEVEL_BLOCK).max(1), 1, 1),
                    block_dim: (LEVEL_BLOCK, 1, 1),
                    shared_mem_bytes: 0,
                };
                let level = level as u32;
                let mut launch = device.stream().launch_builder(&level_function);
                launch.arg(&args);
                launch.arg(&level);
                // SAFETY: the arguments are the kernel's (IsoUpdateArgs, level); the grid
                // covers the level's nodes, `nodes` and `refs` hold one entry per tree node.
                let launched = unsafe { launch.launch(config) };
                device.check_launch(UPDATE_LEVEL, launched)?;
            }
        }
        args.levels = block_levels as u32;
        let function = device.function(&ISOSURFACE, UPDATE_TREE)?;
        let config = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (UPDATE_BLOCK, 1, 1), shared_mem_bytes: 0 };
        let mut launch = device.stream().launch_builder(&function);
        launch.arg(&args);
        // SAFETY: the argument is the kernel's IsoUpdateArgs; `nodes` and `refs` hold one
        // entry per node of `tree`, and the level lists name every node once.
        let launched = unsafe { launch.launch(config) };
        device.check_launch(UPDATE_TREE, launched)
    }

    pub(crate) fn nodes_address(&self, device: &CudaDevice) -> u64 {
        self.nodes.address(device)
    }

    /// The root's slot: refs[0], what replaces the full tree's root.
    pub(crate) fn root_slot(&self, device: &CudaDevice) -> u64 {
        self.refs.address(device)
    }

    pub(crate) fn download(&self, device: &CudaDevice) -> CudaResult<(Vec<IsoNode>, u32)> {
        let nodes = self.nodes.download(device)?;
        let refs = self.refs.download(device)?;
        Ok((nodes, refs[0]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_isosurface::fields;

    /// The level lists name every node once, children one level below their parent.
    #[test]
    fn levels_hold_every_node_once_below_its_parent() {
        let lattice = fields::marschner_lobb([37, 29, 21]);
        for brick in [4, 7, 64] {
            let bvh = BrickBvh::build(&lattice, brick);
            let (nodes, level_nodes, offsets) = full_tree(&bvh);
            assert_eq!(nodes.len(), bvh.nodes.len());
            let mut seen = level_nodes.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..nodes.len() as u32).collect::<Vec<_>>());
            let mut level_of = vec![0usize; nodes.len()];
            for l in 0..offsets.len() - 1 {
                for &n in &level_nodes[offsets[l] as usize..offsets[l + 1] as usize] {
                    level_of[n as usize] = l;
                }
            }
            for (i, n) in nodes.iter().enumerate() {
                if n.left != NO_NODE {
                    assert_eq!(level_of[n.left as usize], level_of[i] + 1);
                    assert_eq!(level_of[n.right as usize], level_of[i] + 1);
                }
            }
        }
    }
}
