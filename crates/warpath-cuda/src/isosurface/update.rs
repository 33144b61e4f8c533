//! Seed 001's per-isovalue BVH update on the device (`kernels/isosurface/update.cuh`): the
//! full brick tree of a [`BrickBvh`] uploaded once per volume; per isovalue it is condensed
//! into the tree that `BrickBvh::condense` builds on the host, at the full tree's node
//! indices, its root left in device memory for the casters. Two ways ([`TreeUpdateMethod`]):
//! in one launch, a thread per brick climbing from the valid bricks to the root
//! (`iso_update_climb`, the default), or as the seed does it, bottom-up level by level — the
//! wide levels (more than [`WIDE_LEVEL_NODES`] nodes) by a launch each over the whole GPU, the
//! rest by one block (`iso_update_level`, `iso_update_tree`).

use super::args::{IsoClimbArgs, IsoUpdateArgs};
use super::args::{IsoNode, NO_NODE};
use crate::buffer::DeviceBuffer;
use crate::catalog::{ISO_UPDATE_CLIMB, ISO_UPDATE_LEVEL, ISO_UPDATE_TREE};
use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::LaunchConfig;
use warpath_isosurface::bricks::BrickBvh;

const CLIMB_BLOCK: u32 = 256;
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

/// How the device condenses the brick tree for an isovalue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeUpdateMethod {
    /// One launch, a thread per brick: valid bricks climb to the root, each parent finished
    /// by the second child's thread to arrive (needs [`ranges_chain`], true of every
    /// [`BrickBvh`] of finite samples).
    Climb,
    /// Seed 001's: bottom-up level by level, levels wider than `wide_level_nodes` (and every
    /// one below the first such) by a launch each, the rest by one block.
    Levels { wide_level_nodes: u32 },
}

/// Whether the two children of every inner node have overlapping min–max ranges. Then a
/// subtree whose range holds an isovalue holds a valid brick (by induction: the union of two
/// overlapping intervals has no gap), which the one-launch update relies on. Bricks share
/// their apron samples, so for finite samples this always holds.
pub fn ranges_chain(bvh: &BrickBvh) -> bool {
    bvh.nodes.iter().all(|n| match n.children {
        None => true,
        Some([l, r]) => {
            let (l, r) = (&bvh.nodes[l as usize], &bvh.nodes[r as usize]);
            l.min <= r.max && r.min <= l.max
        }
    })
}

const _: () = assert!(std::mem::size_of::<IsoTreeNode>() == 40);

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
    /// For the one-launch update: per node its parent, the bricks' nodes and (min, max),
    /// per node the threads arrived (zeroed once; each update adds two or none).
    parents: DeviceBuffer<u32>,
    leaves: DeviceBuffer<u32>,
    leaf_ranges: DeviceBuffer<f32>,
    arrivals: DeviceBuffer<u32>,
    /// [`ranges_chain`] of the tree: whether the one-launch update may run.
    climbable: bool,
}

impl DeviceBrickTree {
    pub(crate) fn upload(device: &CudaDevice, bvh: &BrickBvh) -> CudaResult<Self> {
        let (tree, level_nodes, level_offsets) = full_tree(bvh);
        let mut parents = vec![NO_NODE; tree.len()];
        let (mut leaves, mut leaf_ranges) = (Vec::new(), Vec::new());
        for (i, n) in bvh.nodes.iter().enumerate() {
            match n.children {
                Some([l, r]) => {
                    parents[l as usize] = i as u32;
                    parents[r as usize] = i as u32;
                }
                None => {
                    leaves.push(i as u32);
                    leaf_ranges.extend_from_slice(&[n.min, n.max]);
                }
            }
        }
        Ok(DeviceBrickTree {
            parents: DeviceBuffer::from_slice(device, &parents)?,
            leaves: DeviceBuffer::from_slice(device, &leaves)?,
            leaf_ranges: DeviceBuffer::from_slice(device, &leaf_ranges)?,
            arrivals: DeviceBuffer::zeroed(device, tree.len())?,
            climbable: ranges_chain(bvh),
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

    /// Whether the one-launch update may run on this tree ([`ranges_chain`]).
    pub(crate) fn climbable(&self) -> bool {
        self.climbable
    }

    /// The tree of `isovalue` by `method`; not synchronised.
    pub(crate) fn update(&mut self, device: &CudaDevice, isovalue: f32, method: TreeUpdateMethod) -> CudaResult<()> {
        match method {
            TreeUpdateMethod::Climb => self.climb(device, isovalue),
            TreeUpdateMethod::Levels { wide_level_nodes } => self.by_levels(device, isovalue, wide_level_nodes),
        }
    }

    /// One launch, a thread per brick (update.cuh iso_climb_from_brick).
    fn climb(&mut self, device: &CudaDevice, isovalue: f32) -> CudaResult<()> {
        if !self.climbable {
            return Err(CudaError::InvalidArgument(
                "the one-launch tree update needs overlapping sibling ranges (non-finite samples?)".into(),
            ));
        }
        let leaf_count = self.leaves.len() as u32;
        let args = IsoClimbArgs {
            tree: self.tree.address(device),
            parents: self.parents.address(device),
            leaves: self.leaves.address(device),
            leaf_ranges: self.leaf_ranges.address(device),
            arrivals: self.arrivals.address(device),
            nodes: self.nodes.address(device),
            refs: self.refs.address(device),
            leaf_count,
            isovalue,
        };
        let config = LaunchConfig {
            grid_dim: (leaf_count.div_ceil(CLIMB_BLOCK).max(1), 1, 1),
            block_dim: (CLIMB_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // The grid covers the bricks; `parents`, `arrivals`, `nodes` and `refs` hold one entry
        // per tree node, `leaves` one per brick and `leaf_ranges` two.
        device.launch(ISO_UPDATE_CLIMB, config, (args,))
    }

    /// The levels of more than `wide_level_nodes` nodes, and every one below the first, by a
    /// launch each (deepest first), then the levels above by one block; not synchronised.
    fn by_levels(&mut self, device: &CudaDevice, isovalue: f32, wide_level_nodes: u32) -> CudaResult<()> {
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
            for level in (block_levels..levels).rev() {
                let config = LaunchConfig {
                    grid_dim: (width(level).div_ceil(LEVEL_BLOCK).max(1), 1, 1),
                    block_dim: (LEVEL_BLOCK, 1, 1),
                    shared_mem_bytes: 0,
                };
                // The grid covers the level's nodes, `nodes` and `refs` hold one entry per
                // tree node.
                device.launch(ISO_UPDATE_LEVEL, config, (args, level as u32))?;
            }
        }
        args.levels = block_levels as u32;
        let config = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (UPDATE_BLOCK, 1, 1), shared_mem_bytes: 0 };
        // `nodes` and `refs` hold one entry per node of `tree`, and the level lists name every
        // node once.
        device.launch(ISO_UPDATE_TREE, config, (args,))
    }

    /// Fills the condensed tree and the references with a value no update writes, so that a
    /// test sees every slot the next update should write (and does not).
    pub(crate) fn poison(&mut self, device: &CudaDevice) -> CudaResult<()> {
        let poison = 0x7f7f_7f7f;
        let node = IsoNode { lo: [poison; 3], hi: [poison; 3], left: poison, right: poison };
        self.nodes.upload(device, &vec![node; self.nodes.len()])?;
        self.refs.upload(device, &vec![poison; self.refs.len()])
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

    /// Sibling ranges overlap in the trees of every field and brick size (the apron), so the
    /// one-launch update may run; a tree whose ranges were pulled apart is refused.
    #[test]
    fn sibling_ranges_overlap_and_the_check_sees_a_gap() {
        for lattice in
            [fields::marschner_lobb([37, 29, 21]), fields::turbulence([40, 33, 17]), fields::spheres([30, 30, 30])]
        {
            for brick in [1, 4, 7, 64] {
                assert!(ranges_chain(&BrickBvh::build(&lattice, brick)), "brick {brick}");
            }
        }
        let mut bvh = BrickBvh::build(&fields::spheres([30, 30, 30]), 4);
        let [l, r] = bvh.nodes[0].children.expect("an inner root");
        let (left, right) = (bvh.nodes[l as usize].clone(), bvh.nodes[r as usize].clone());
        bvh.nodes[r as usize].min = left.max.max(right.max) + 1.0;
        bvh.nodes[r as usize].max = bvh.nodes[r as usize].min + 1.0;
        assert!(!ranges_chain(&bvh));
    }

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
