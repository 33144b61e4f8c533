//! The isosurface ray caster on the GPU (issue 14, seed 001; `kernels/isosurface/`): a
//! [`Lattice`]'s samples and the [`CondensedTree`] of one isovalue uploaded
//! ([`DeviceIsosurface`]), rays in, first hits out, one thread per ray
//! (`iso_cast_single`, the seed's single-kernel pipeline). The device code is
//! `warpath_isosurface::caster::cast_bvh` written line for line in f64, so the GPU test can
//! ask for the CPU's hits: the same rays hit, in the same cells, at the same t.
//!
//! [`DeviceIsosurface::render`] makes images (`iso_render_single`, `kernels/isosurface/
//! render.cuh`): each pixel's ray made as `warpath_isosurface::render::IsoView::ray` makes
//! it, bit for bit, cast, and shaded as `render::shade`.
//!
//! Rust owns the layouts ([`IsoNode`], [`IsoRay`], [`IsoHit`], [`IsoArgs`],
//! [`IsoRenderArgs`]), pinned by `static_assert`s in `kernels/isosurface/`.

pub mod args;
mod pipeline;
pub mod shapes;
mod update;

use args::NO_NODE;
pub use args::{
    IsoArgs, IsoClimbArgs, IsoNode, IsoPipelineArgs, IsoRenderArgs, IsoStageOut, IsoUpdateArgs, flatten_tree,
};
pub use pipeline::{IsoCompaction, IsoPipeline, PipelineBuffers, StageTimes};
pub use shapes::{DeviceIsoShapes, GpuIsoShape};
pub use update::{IsoTreeNode, TreeUpdateMethod, WIDE_LEVEL_NODES, full_tree, ranges_chain};

use crate::buffer::DeviceBuffer;
use crate::catalog::{
    ISO_CAST_SINGLE, ISO_RENDER_SINGLE, ISO_RENDER_SINGLE_F32, ISO_RENDER_SINGLE_F32_R64, ISO_RENDER_SINGLE_F32_R80,
    Kernel,
};
use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::LaunchConfig;
use warpath_isosurface::bricks::{BrickBvh, CondensedNode, CondensedTree};
use warpath_isosurface::render::{IsoView, Shading};
use warpath_isosurface::{IsoHit as CpuHit, Lattice};

/// Pixels per block side of the render kernel.
const RENDER_TILE: u32 = 16;
const BLOCK: u32 = 256;

/// A ray in lattice space.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoRay {
    pub origin: [f64; 3],
    pub direction: [f64; 3],
}

/// A ray's first hit (`hit` 0: none).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoHit {
    pub t: f64,
    pub cell: [u32; 3],
    pub hit: u32,
}

impl IsoHit {
    pub fn to_cpu(self) -> Option<(f64, [u32; 3])> {
        (self.hit != 0).then_some((self.t, self.cell))
    }

    /// A frame's hit whose shadow ray met the isosurface (bit 1 of `hit`; shadows on).
    pub fn shadowed(self) -> bool {
        self.hit & 2 != 0
    }
}

/// [`IsoRenderArgs::light_mode`]: the head light (seed 001's).
pub const LIGHT_HEAD: u32 = 0;
/// A key light without shadow rays.
pub const LIGHT_KEY: u32 = 1;
/// A key light with shadow rays (their outcome: [`IsoHit::shadowed`]).
pub const LIGHT_SHADOWS: u32 = 2;

/// The light mode and direction of `shading` seen from `view`.
pub fn light_args(view: &IsoView, shading: &Shading) -> (u32, [f64; 3]) {
    match shading.key_light {
        None => (LIGHT_HEAD, [0.0; 3]),
        Some(k) => (if k.shadows { LIGHT_SHADOWS } else { LIGHT_KEY }, view.world_direction(k.direction)),
    }
}

const _: () = assert!(std::mem::size_of::<IsoRay>() == 48);
const _: () = assert!(std::mem::size_of::<IsoHit>() == 24);

/// The stack items a near-first walk of `tree` can hold at once: its depth + 1.
fn condensed_stack_need(tree: &CondensedTree) -> u32 {
    fn depth(nodes: &[CondensedNode], index: u32) -> u32 {
        match &nodes[index as usize] {
            CondensedNode::Leaf { .. } => 0,
            CondensedNode::Inner { children, .. } => 1 + depth(nodes, children[0]).max(depth(nodes, children[1])),
        }
    }
    tree.root.map_or(1, |root| depth(&tree.nodes, root) + 1)
}

/// A lattice on the device, with the tree of its current isovalue: condensed on the host
/// ([`DeviceIsosurface::set_tree`]) or on the device ([`DeviceIsosurface::update_tree`],
/// after [`DeviceIsosurface::upload_bvh`]).
pub struct DeviceIsosurface {
    samples: [u32; 3],
    values: DeviceBuffer<f32>,
    /// The host-condensed tree (its own indices) and its root.
    nodes: Option<DeviceBuffer<IsoNode>>,
    root: u32,
    isovalue: f32,
    /// The full tree for the device update, when uploaded.
    bvh: Option<update::DeviceBrickTree>,
    /// Whether the current tree is the device update's (else the host's).
    tree_on_device: bool,
    /// Stack items a ray through the current tree may need.
    stack_need: u32,
}

/// The current tree as the kernels take it: nodes, root, root slot.
#[derive(Clone, Copy)]
pub(crate) struct TreeArgs {
    pub nodes: u64,
    pub root: u32,
    pub root_slot: u64,
}

impl DeviceIsosurface {
    /// Uploads the lattice's samples.
    pub fn upload(device: &CudaDevice, lattice: &Lattice) -> CudaResult<Self> {
        Ok(DeviceIsosurface {
            samples: lattice.samples,
            values: DeviceBuffer::from_slice(device, &lattice.values)?,
            nodes: None,
            root: NO_NODE,
            isovalue: 0.0,
            bvh: None,
            tree_on_device: false,
            stack_need: 1,
        })
    }

    /// Uploads the condensed tree of `isovalue` (built on the CPU by `bvh.condense`).
    pub fn set_tree(
        &mut self,
        device: &CudaDevice,
        bvh: &BrickBvh,
        tree: &CondensedTree,
        isovalue: f32,
    ) -> CudaResult<()> {
        let nodes = flatten_tree(bvh, tree);
        self.nodes = if nodes.is_empty() { None } else { Some(DeviceBuffer::from_slice(device, &nodes)?) };
        self.root = tree.root.unwrap_or(NO_NODE);
        self.isovalue = isovalue;
        self.tree_on_device = false;
        self.stack_need = condensed_stack_need(tree);
        Ok(())
    }

    /// Uploads the full brick tree of `bvh` (once per volume) for [`Self::update_tree`].
    pub fn upload_bvh(&mut self, device: &CudaDevice, bvh: &BrickBvh) -> CudaResult<()> {
        if bvh.cells.iter().zip(&self.samples).any(|(c, s)| c + 1 != *s) {
            return Err(CudaError::InvalidArgument(format!(
                "a brick tree of {:?} cells for a lattice of {:?} samples",
                bvh.cells, self.samples
            )));
        }
        self.bvh = Some(update::DeviceBrickTree::upload(device, bvh)?);
        Ok(())
    }

    /// Condenses the uploaded brick tree for `isovalue` on the device (seed 001's per-frame
    /// update; nothing is read back: the kernels find the root in device memory): in one
    /// launch ([`TreeUpdateMethod::Climb`]) where the tree allows it, which every tree of
    /// finite samples does, else level by level.
    pub fn update_tree(&mut self, device: &CudaDevice, isovalue: f32) -> CudaResult<()> {
        let climbable = self.bvh.as_ref().is_some_and(|t| t.climbable());
        let method = if climbable {
            TreeUpdateMethod::Climb
        } else {
            TreeUpdateMethod::Levels { wide_level_nodes: update::WIDE_LEVEL_NODES }
        };
        self.update_tree_with(device, isovalue, method)
    }

    /// Seed 001's level-by-level update with levels of more than `wide_level_nodes` nodes
    /// (and every level below the first such) by a launch each over the whole GPU, the rest by
    /// one block (0: every level a launch; `u32::MAX`: one block for all; for tests).
    pub fn update_tree_split(&mut self, device: &CudaDevice, isovalue: f32, wide_level_nodes: u32) -> CudaResult<()> {
        self.update_tree_with(device, isovalue, TreeUpdateMethod::Levels { wide_level_nodes })
    }

    /// [`Self::update_tree`] by `method` (an error for [`TreeUpdateMethod::Climb`] on a tree
    /// whose sibling ranges do not overlap).
    pub fn update_tree_with(&mut self, device: &CudaDevice, isovalue: f32, method: TreeUpdateMethod) -> CudaResult<()> {
        let Some(tree) = self.bvh.as_mut() else {
            return Err(CudaError::InvalidArgument("update_tree before upload_bvh".into()));
        };
        tree.update(device, isovalue, method)?;
        self.isovalue = isovalue;
        self.tree_on_device = true;
        self.stack_need = tree.levels() + 1;
        Ok(())
    }

    /// Overwrites the device update's tree with a value no update writes (for tests: the next
    /// update must write every slot its tree reaches).
    pub fn poison_device_tree(&mut self, device: &CudaDevice) -> CudaResult<()> {
        match self.bvh.as_mut() {
            Some(tree) => tree.poison(device),
            None => Err(CudaError::InvalidArgument("poison_device_tree before upload_bvh".into())),
        }
    }

    /// The current tree of the device update in host form (nodes at the full tree's indices,
    /// root), for tests.
    pub fn download_device_tree(&self, device: &CudaDevice) -> CudaResult<Option<(Vec<IsoNode>, u32)>> {
        match (&self.bvh, self.tree_on_device) {
            (Some(tree), true) => Ok(Some(tree.download(device)?)),
            _ => Ok(None),
        }
    }

    pub(crate) fn tree_args(&self, device: &CudaDevice) -> TreeArgs {
        match (&self.bvh, self.tree_on_device) {
            (Some(tree), true) => {
                TreeArgs { nodes: tree.nodes_address(device), root: NO_NODE, root_slot: tree.root_slot(device) }
            }
            _ => TreeArgs {
                nodes: self.nodes.as_ref().map_or(0, |n| n.address(device)),
                root: if self.nodes.is_some() { self.root } else { NO_NODE },
                root_slot: 0,
            },
        }
    }

    pub(crate) fn stack_need(&self) -> u32 {
        self.stack_need
    }

    /// The first hit of every ray (single kernel, one thread per ray).
    pub fn cast(&self, device: &CudaDevice, rays: &[IsoRay]) -> CudaResult<Vec<IsoHit>> {
        if rays.len() > u32::MAX as usize / 2 {
            return Err(CudaError::InvalidArgument(format!("{} rays exceed one launch", rays.len())));
        }
        if rays.is_empty() {
            return Ok(Vec::new());
        }
        let ray_buffer = DeviceBuffer::from_slice(device, rays)?;
        let hits = DeviceBuffer::<IsoHit>::zeroed(device, rays.len())?;
        let tree = self.tree_args(device);
        let args = IsoArgs {
            values: self.values.address(device),
            nodes: tree.nodes,
            rays: ray_buffer.address(device),
            hits: hits.address(device),
            samples: self.samples,
            root: tree.root,
            ray_count: rays.len() as u32,
            isovalue: self.isovalue,
            root_slot: tree.root_slot,
        };
        let config = LaunchConfig {
            grid_dim: ((rays.len() as u32).div_ceil(BLOCK), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // Every buffer the arguments name holds what the kernel reads (ray_count rays, hits)
        // and the tree's nodes.
        device.launch(ISO_CAST_SINGLE, config, (args,))?;
        hits.download(device)
    }
}

/// An image rendered on the device: linear RGB per pixel and, when asked for, each pixel's
/// hit.
pub struct DeviceImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[f32; 3]>,
    pub hits: Option<Vec<IsoHit>>,
}

/// Output buffers of one image size, kept across frames (a sweep or a benchmark renders
/// many images of one size).
pub struct RenderTarget {
    width: u32,
    height: u32,
    pixels: DeviceBuffer<f32>,
    hits: Option<DeviceBuffer<IsoHit>>,
}

impl RenderTarget {
    pub fn new(device: &CudaDevice, width: u32, height: u32, with_hits: bool) -> CudaResult<Self> {
        let count = width as usize * height as usize;
        if width == 0 || height == 0 || count > u32::MAX as usize / 4 {
            return Err(CudaError::InvalidArgument(format!("an image of {width}x{height} pixels")));
        }
        Ok(RenderTarget {
            width,
            height,
            pixels: DeviceBuffer::zeroed(device, 3 * count)?,
            hits: if with_hits { Some(DeviceBuffer::zeroed(device, count)?) } else { None },
        })
    }

    /// Width and height.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The last image rendered into this target.
    pub fn download(&self, device: &CudaDevice) -> CudaResult<DeviceImage> {
        let flat = self.pixels.download(device)?;
        let pixels = flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        let hits = match &self.hits {
            Some(h) => Some(h.download(device)?),
            None => None,
        };
        Ok(DeviceImage { width: self.width, height: self.height, pixels, hits })
    }
}

impl DeviceIsosurface {
    /// Renders `view` into `target` (sizes must agree): one launch, not synchronised.
    pub fn render_into(
        &self,
        device: &CudaDevice,
        view: &IsoView,
        shading: &Shading,
        target: &RenderTarget,
    ) -> CudaResult<()> {
        self.render_caster(device, view, shading, target, ISO_RENDER_SINGLE)
    }

    /// The image of `view` by a caster pipeline — `caster`, `caster-f32` or one of its
    /// register-capped builds — which needs no pipeline buffers; any other pipeline is an error
    /// ([`Self::render_pipeline`] takes them all).
    pub fn render_with_caster(
        &self,
        device: &CudaDevice,
        pipeline: IsoPipeline,
        view: &IsoView,
        shading: &Shading,
        target: &RenderTarget,
    ) -> CudaResult<()> {
        let kernel = match pipeline {
            IsoPipeline::Caster => ISO_RENDER_SINGLE,
            IsoPipeline::CasterF32 => ISO_RENDER_SINGLE_F32,
            IsoPipeline::CasterF32R80 => ISO_RENDER_SINGLE_F32_R80,
            IsoPipeline::CasterF32R64 => ISO_RENDER_SINGLE_F32_R64,
            other => return Err(CudaError::InvalidArgument(format!("{other} is not a caster"))),
        };
        self.render_caster(device, view, shading, target, kernel)
    }

    /// [`Self::render_into`] with caster kernel `kernel` (f64 or f32).
    pub(crate) fn render_caster(
        &self,
        device: &CudaDevice,
        view: &IsoView,
        shading: &Shading,
        target: &RenderTarget,
        kernel: Kernel<(IsoRenderArgs,)>,
    ) -> CudaResult<()> {
        if (view.width, view.height) != (target.width, target.height) {
            return Err(CudaError::InvalidArgument(format!(
                "a {}x{} view into a {}x{} target",
                view.width, view.height, target.width, target.height
            )));
        }
        let args = self.frame_args(device, view, shading, target);
        let config = LaunchConfig {
            grid_dim: (view.width.div_ceil(RENDER_TILE), view.height.div_ceil(RENDER_TILE), 1),
            block_dim: (RENDER_TILE * RENDER_TILE, 1, 1),
            shared_mem_bytes: 0,
        };
        // `pixels` holds 3 floats and `hits` (when non-null) one IsoHit per pixel of the view,
        // the tree's nodes and the lattice's samples are uploaded.
        device.launch(kernel, config, (args,))
    }

    /// The frame's arguments (the view must have the target's size).
    pub(crate) fn frame_args(
        &self,
        device: &CudaDevice,
        view: &IsoView,
        shading: &Shading,
        target: &RenderTarget,
    ) -> IsoRenderArgs {
        let tree = self.tree_args(device);
        let (light_mode, light) = light_args(view, shading);
        IsoRenderArgs {
            values: self.values.address(device),
            nodes: tree.nodes,
            pixels: target.pixels.address(device),
            hits: target.hits.as_ref().map_or(0, |h| h.address(device)),
            eye: view.eye,
            corner: view.corner,
            right: view.right,
            down: view.down,
            samples: self.samples,
            root: tree.root,
            width: view.width,
            height: view.height,
            isovalue: self.isovalue,
            color: shading.color,
            ambient: shading.ambient,
            diffuse: shading.diffuse,
            specular: shading.specular,
            shininess: shading.shininess,
            background: shading.background,
            light_mode,
            root_slot: tree.root_slot,
            light,
        }
    }

    /// Renders `view` and downloads the image (and each pixel's hit when `with_hits`).
    pub fn render(
        &self,
        device: &CudaDevice,
        view: &IsoView,
        shading: &Shading,
        with_hits: bool,
    ) -> CudaResult<DeviceImage> {
        let target = RenderTarget::new(device, view.width, view.height, with_hits)?;
        self.render_into(device, view, shading, &target)?;
        target.download(device)
    }
}

/// A CPU hit in the device's form, for comparisons.
pub fn from_cpu(hit: Option<CpuHit>) -> Option<(f64, [u32; 3])> {
    hit.map(|h| (h.t, h.cell))
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_isosurface::fields;

    #[test]
    fn flattened_nodes_keep_indices_and_boxes() {
        let lattice = fields::marschner_lobb([21, 21, 21]);
        let bvh = BrickBvh::build(&lattice, 4);
        let tree = bvh.condense(0.5);
        let nodes = flatten_tree(&bvh, &tree);
        assert_eq!(nodes.len(), tree.nodes.len());
        for (node, original) in nodes.iter().zip(&tree.nodes) {
            match original {
                CondensedNode::Leaf { brick } => {
                    assert_eq!(node.left, NO_NODE);
                    assert_eq!(node.lo, brick.map(|v| v * 4));
                    assert!(node.hi.iter().zip(&node.lo).all(|(h, l)| h > l && h - l <= 4));
                }
                CondensedNode::Inner { children, .. } => assert_eq!([node.left, node.right], *children),
            }
        }
    }
}
