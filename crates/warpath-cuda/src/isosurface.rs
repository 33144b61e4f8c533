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

use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::kernels::ISOSURFACE;
use crate::layout::{LayoutEntry, layout_list};
use crate::runtime::CudaDevice;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use warpath_isosurface::bricks::{BrickBvh, CondensedNode, CondensedTree};
use warpath_isosurface::render::{IsoView, Shading};
use warpath_isosurface::{IsoHit as CpuHit, Lattice};

/// The kernels' names.
pub const CAST_SINGLE: &str = "iso_cast_single";
pub const RENDER_SINGLE: &str = "iso_render_single";
/// Pixels per block side of the render kernel.
const RENDER_TILE: u32 = 16;
const NO_NODE: u32 = u32::MAX;
const BLOCK: u32 = 256;

/// A node of the condensed tree: lattice cells `lo..hi`; `left == u32::MAX` for a brick.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct IsoNode {
    pub lo: [u32; 3],
    pub hi: [u32; 3],
    pub left: u32,
    pub right: u32,
}

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
}

// SAFETY: `#[repr(C)]` Pod of addresses and scalars whose layout caster.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for IsoArgs {}

/// The render kernel's argument, by value: the tree, the outputs, the camera
/// ([`IsoView`]'s fields) and the shading ([`Shading`]).
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
    pub _pad: u32,
}

// SAFETY: `#[repr(C)]` Pod of addresses and scalars whose layout render.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for IsoRenderArgs {}

const _: () = assert!(std::mem::size_of::<IsoNode>() == 32);
const _: () = assert!(std::mem::size_of::<IsoRay>() == 48);
const _: () = assert!(std::mem::size_of::<IsoHit>() == 24);
const _: () = assert!(std::mem::size_of::<IsoArgs>() == 56);
const _: () = assert!(std::mem::size_of::<IsoRenderArgs>() == 200);

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

/// A lattice on the device, with the tree of its current isovalue.
pub struct DeviceIsosurface {
    samples: [u32; 3],
    values: DeviceBuffer<f32>,
    nodes: Option<DeviceBuffer<IsoNode>>,
    root: u32,
    isovalue: f32,
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
        Ok(())
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
        let args = IsoArgs {
            values: self.values.address(device),
            nodes: self.nodes.as_ref().map_or(0, |n| n.address(device)),
            rays: ray_buffer.address(device),
            hits: hits.address(device),
            samples: self.samples,
            root: if self.nodes.is_some() { self.root } else { NO_NODE },
            ray_count: rays.len() as u32,
            isovalue: self.isovalue,
        };
        let function = device.function(&ISOSURFACE, CAST_SINGLE)?;
        let config = LaunchConfig {
            grid_dim: ((rays.len() as u32).div_ceil(BLOCK), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = device.stream().launch_builder(&function);
        launch.arg(&args);
        // SAFETY: the argument is the kernel's IsoArgs; every buffer it names holds what the
        // kernel reads (ray_count rays, hits) and the tree's nodes.
        let launched = unsafe { launch.launch(config) };
        device.check_launch(CAST_SINGLE, launched)?;
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
        if (view.width, view.height) != (target.width, target.height) {
            return Err(CudaError::InvalidArgument(format!(
                "a {}x{} view into a {}x{} target",
                view.width, view.height, target.width, target.height
            )));
        }
        let args = IsoRenderArgs {
            values: self.values.address(device),
            nodes: self.nodes.as_ref().map_or(0, |n| n.address(device)),
            pixels: target.pixels.address(device),
            hits: target.hits.as_ref().map_or(0, |h| h.address(device)),
            eye: view.eye,
            corner: view.corner,
            right: view.right,
            down: view.down,
            samples: self.samples,
            root: if self.nodes.is_some() { self.root } else { NO_NODE },
            width: view.width,
            height: view.height,
            isovalue: self.isovalue,
            color: shading.color,
            ambient: shading.ambient,
            diffuse: shading.diffuse,
            specular: shading.specular,
            shininess: shading.shininess,
            background: shading.background,
            _pad: 0,
        };
        let function = device.function(&ISOSURFACE, RENDER_SINGLE)?;
        let config = LaunchConfig {
            grid_dim: (view.width.div_ceil(RENDER_TILE), view.height.div_ceil(RENDER_TILE), 1),
            block_dim: (RENDER_TILE * RENDER_TILE, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = device.stream().launch_builder(&function);
        launch.arg(&args);
        // SAFETY: the argument is the kernel's IsoRenderArgs; `pixels` holds 3 floats and
        // `hits` (when non-null) one IsoHit per pixel of the view, the tree's nodes and
        // the lattice's samples are uploaded.
        let launched = unsafe { launch.launch(config) };
        device.check_launch(RENDER_SINGLE, launched)
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

/// Sizes and offsets, for the header check.
pub fn layout_entries() -> Vec<LayoutEntry> {
    layout_list! {
        IsoNode { lo, hi, left, right }
        IsoRay { origin, direction }
        IsoHit { t, cell, hit }
        IsoArgs { values, nodes, rays, hits, samples, root, ray_count, isovalue }
        IsoRenderArgs {
            values, nodes, pixels, hits, eye, corner, right, down, samples, root, width, height, isovalue,
            color, ambient, diffuse, specular, shininess, background, _pad
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_isosurface::fields;

    #[test]
    fn header_static_asserts_match_rust_layout() {
        let missing = crate::layout::missing_header_asserts(
            concat!(include_str!("../kernels/isosurface/caster.cuh"), include_str!("../kernels/isosurface/render.cuh")),
            &layout_entries(),
        );
        assert!(missing.is_empty(), "caster.cuh lacks static_assert for: {missing:?}");
    }

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
