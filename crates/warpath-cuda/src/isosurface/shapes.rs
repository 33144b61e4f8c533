//! Isosurface shapes of the surface path tracer on the device (issue 14 item 5): per
//! `warpath_scene::SceneIsosurface`, its lattice and its tree condensed on the host (the
//! shape's isovalue is fixed), and one [`GpuIsoShape`] record with the f64 world → lattice
//! map, read by `kernels/isosurface/shapes.cuh` through `GpuSceneParams::iso_shapes`. The
//! programs that read them are the surface estimator's "-iso" variant
//! (`crate::strategy::KernelVariant::isosurface_shapes`).

use super::args::{IsoNode, NO_NODE, flatten_tree};
use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use bytemuck::{Pod, Zeroable};
use warpath_scene::Scene;

/// One isosurface shape as the device reads it (`GpuIsoShape` in isosurface/shapes.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuIsoShape {
    /// Rows of the 3×4 map lattice = A·world + b (`PlacedIsosurface::world_to_lattice`).
    pub world_to_lattice: [f64; 12],
    /// Aᵀ row-major (`PlacedIsosurface::gradient_to_world`).
    pub gradient_to_world: [f64; 9],
    /// Device addresses of the samples and of the condensed tree's nodes.
    pub values: u64,
    pub nodes: u64,
    pub samples: [u32; 3],
    /// The tree's root, or `NO_NODE` (an isovalue outside the volume's range).
    pub root: u32,
    pub isovalue: f32,
    pub material: u32,
}

const _: () = assert!(std::mem::size_of::<GpuIsoShape>() == 208);

/// The records of a scene's isosurfaces (in scene order) and the buffers they point at.
#[derive(Debug)]
pub struct DeviceIsoShapes {
    records: DeviceBuffer<GpuIsoShape>,
    values: Vec<DeviceBuffer<f32>>,
    nodes: Vec<DeviceBuffer<IsoNode>>,
}

impl DeviceIsoShapes {
    /// Uploads every isosurface of `scene`; checks the material indices the kernels follow.
    pub fn upload(device: &CudaDevice, scene: &Scene) -> CudaResult<Self> {
        let (mut values, mut nodes, mut records) = (Vec::new(), Vec::new(), Vec::new());
        for (k, iso) in scene.isosurfaces.iter().enumerate() {
            if iso.material as usize >= scene.materials.len() {
                return Err(CudaError::InvalidArgument(format!(
                    "scene `{}`: isosurface {k} ('{}') uses material {} of {}",
                    scene.name,
                    iso.name,
                    iso.material,
                    scene.materials.len()
                )));
            }
            let s = &iso.surface;
            let mut flat = flatten_tree(&s.bvh, &s.tree);
            let value_buffer = DeviceBuffer::from_slice(device, &s.lattice.values)?;
            // An empty tree still gets a valid (one-node) allocation; its root says "nothing".
            if flat.is_empty() {
                flat.push(IsoNode::zeroed());
            }
            let node_buffer = DeviceBuffer::from_slice(device, &flat)?;
            records.push(GpuIsoShape {
                world_to_lattice: std::array::from_fn(|i| s.world_to_lattice[i / 4][i % 4]),
                gradient_to_world: std::array::from_fn(|i| s.gradient_to_world[i / 3][i % 3]),
                values: value_buffer.address(device),
                nodes: node_buffer.address(device),
                samples: s.lattice.samples,
                root: s.tree.root.unwrap_or(NO_NODE),
                isovalue: s.isovalue,
                material: iso.material,
            });
            values.push(value_buffer);
            nodes.push(node_buffer);
        }
        Ok(DeviceIsoShapes { records: DeviceBuffer::from_slice(device, &records)?, values, nodes })
    }

    /// The records' device address (`GpuSceneParams::iso_shapes`).
    pub(crate) fn address(&self, device: &CudaDevice) -> u64 {
        self.records.address(device)
    }

    /// Bytes of device memory: records, samples and trees.
    pub fn size_bytes(&self) -> usize {
        self.records.size_bytes()
            + self.values.iter().map(|b| b.size_bytes()).sum::<usize>()
            + self.nodes.iter().map(|b| b.size_bytes()).sum::<usize>()
    }
}
