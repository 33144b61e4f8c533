//! A scene's participating media turned into the device buffers the volumetric estimator
//! reads (`kernels/volume/medium.cuh`, `kernels/volume/estimator.cuh`): one [`GpuMedium`]
//! record per medium, every grid (density, albedo, majorants) in one float array at the
//! records' offsets, and the per-triangle medium interfaces. [`DeviceVolumeSceneArgs`] is the
//! volumetric estimator's scene: the surface scene's addresses plus these.
//!
//! Rust owns the layouts ([`GpuMedium`], [`DeviceVolumeSceneArgs`], `#[repr(C)]` Pod,
//! checked at compile time by the generated layout checks of [`crate::layout_registry`]).
//!
//! Grids go to plain device buffers read through the read-only cache (`__ldg`). For the
//! comparison of docs/benchmarks/volumes.md ("Grids: buffers or 3D textures") the density and
//! albedo grids can also be made 3D textures ([`DeviceMedia::upload_with`], [`GridTexture`]),
//! read by the kernel variants of [`crate::strategy::GridFetch`].

use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use crate::scene_upload::DeviceSceneArgs;
use crate::strategy::variant::GridFetch;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::sys;
use std::sync::Arc;
use warpath_scene::Scene;
use warpath_volume::{Medium, MediumAlbedo, MediumDensity, VolumeGrid};

/// `GpuMedium::kind` values.
pub mod medium_kind {
    pub const HOMOGENEOUS: u32 = 0;
    pub const GRID: u32 = 1;
}

/// `GpuMedium::albedo_kind` values.
pub mod albedo_kind {
    pub const CONSTANT: u32 = 0;
    pub const GRID: u32 = 1;
}

/// The most media a GPU render holds (11 bits of a stored path's word carry the medium).
pub const MAX_GPU_MEDIA: usize = (1 << 11) - 2;

/// One medium as the device reads it (`GpuMedium` in volume/medium.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMedium {
    pub kind: u32,
    pub gray: u32,
    pub albedo_kind: u32,
    pub albedo_channels: u32,
    pub sigma_t: [f32; 3],
    pub scale: f32,
    pub albedo: [f32; 3],
    pub g: f32,
    /// World to the grids' unit cube: three rows of four.
    pub world_to_local: [f32; 12],
    pub density_resolution: [u32; 3],
    /// Index of the first density value in the grid array.
    pub density_offset: u32,
    pub albedo_resolution: [u32; 3],
    pub albedo_offset: u32,
    pub majorant_resolution: [u32; 3],
    pub majorant_offset: u32,
    /// The density grid's texture object (`cudaTextureObject_t`) as (low, high) words, 0
    /// without textures. Two words keep the record 4-byte aligned: with a 64-bit field
    /// ptxas gives the schedule kernels half the registers (docs/benchmarks/volumes.md).
    pub density_texture: [u32; 2],
    /// The albedo grid's texture object (four channels when the grid has three), or 0.
    pub albedo_texture: [u32; 2],
}

/// The volumetric estimator's scene (`DeviceVolumeScene` of volume/estimator.cuh): passed by
/// value inside its `ScheduleArgs`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DeviceVolumeSceneArgs {
    pub surface: DeviceSceneArgs,
    pub media: u64,
    pub grid_data: u64,
    /// Per-triangle interfaces, or 0 when no shape declares media.
    pub triangle_media: u64,
    pub medium_count: u32,
    /// The camera's medium: index + 1, 0 for vacuum.
    pub camera_medium: u32,
    /// Slots per counter table (bounces beyond the last count in it).
    pub counter_slots: u32,
    pub _pad: u32,
}

// SAFETY: a `#[repr(C)]` Pod struct of device addresses and scalars whose layout
// volume/estimator.cuh asserts; passed by value.
unsafe impl cudarc::driver::DeviceRepr for DeviceVolumeSceneArgs {}

/// Slots per counter table of the volumetric estimator: bounces 0 … 1023, deeper ones in the
/// last slot (max_depth may be unlimited).
pub const VOLUME_COUNTER_BOUNCES: u32 = 1024;

/// Counter slots of the volumetric estimator for `max_depth`: min(max_depth, 1023) + 1.
pub fn counter_slots(max_depth: u32) -> u32 {
    max_depth.min(VOLUME_COUNTER_BOUNCES - 1) + 1
}

/// The host side of the upload: records and one float array.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MediaTables {
    pub media: Vec<GpuMedium>,
    pub grid_data: Vec<f32>,
}

impl MediaTables {
    /// Flattens `media`; errors name the medium (too many, grids beyond 2^32 floats).
    pub fn new(media: &[Medium]) -> CudaResult<Self> {
        if media.len() > MAX_GPU_MEDIA {
            return Err(CudaError::InvalidArgument(format!(
                "{} media: the GPU renderer holds at most {MAX_GPU_MEDIA}",
                media.len()
            )));
        }
        let mut tables = MediaTables::default();
        for medium in media {
            let record = tables.add(medium)?;
            tables.media.push(record);
        }
        Ok(tables)
    }

    /// Appends `grid`'s values; returns their offset.
    fn push_grid(&mut self, medium: &Medium, values: &[f32]) -> CudaResult<u32> {
        let offset = self.grid_data.len();
        if offset as u64 + values.len() as u64 > u32::MAX as u64 {
            return Err(CudaError::InvalidArgument(format!(
                "medium '{}': the scene's grids hold more than 2^32 values (16 GiB), more than one GPU render takes",
                medium.name
            )));
        }
        self.grid_data.extend_from_slice(values);
        Ok(offset as u32)
    }

    fn add(&mut self, medium: &Medium) -> CudaResult<GpuMedium> {
        let mut record = GpuMedium {
            gray: medium.gray as u32,
            g: medium.g,
            world_to_local: medium.world_to_local.0,
            albedo_channels: 1,
            ..Default::default()
        };
        match &medium.density {
            MediumDensity::Homogeneous { sigma_t } => {
                record.kind = medium_kind::HOMOGENEOUS;
                record.sigma_t = sigma_t.to_array();
            }
            MediumDensity::Grid { density, scale } => {
                record.kind = medium_kind::GRID;
                record.scale = *scale;
                record.density_resolution = density.resolution;
                record.density_offset = self.push_grid(medium, &density.data)?;
            }
        }
        match &medium.albedo {
            MediumAlbedo::Constant(a) => {
                record.albedo_kind = albedo_kind::CONSTANT;
                record.albedo = a.to_array();
            }
            MediumAlbedo::Grid(grid) => {
                record.albedo_kind = albedo_kind::GRID;
                record.albedo_channels = grid.channels;
                record.albedo_resolution = grid.resolution;
                record.albedo_offset = self.push_grid(medium, &grid.data)?;
            }
        }
        record.majorant_resolution = medium.majorant.resolution;
        record.majorant_offset = self.push_grid(medium, &medium.majorant.values)?;
        Ok(record)
    }
}

/// Bytes the media of `scene` take on the device.
pub fn media_bytes(scene: &Scene) -> u64 {
    let grid = |g: &VolumeGrid| g.memory_bytes();
    scene
        .media
        .iter()
        .map(|m| {
            let density = match &m.density {
                MediumDensity::Grid { density, .. } => grid(density),
                _ => 0,
            };
            let albedo = match &m.albedo {
                MediumAlbedo::Grid(a) => grid(a),
                _ => 0,
            };
            density + albedo + m.majorant.values.len() as u64 * 4 + size_of_record()
        })
        .sum::<u64>()
        + scene.triangle_media.len() as u64 * 4
}

fn size_of_record() -> u64 {
    std::mem::size_of::<GpuMedium>() as u64
}

/// A scene's media in device memory.
#[derive(Debug)]
pub struct DeviceMedia {
    pub tables_len: usize,
    media: DeviceBuffer<GpuMedium>,
    grid_data: DeviceBuffer<f32>,
    triangle_media: Option<DeviceBuffer<u32>>,
    camera_medium: u32,
    grid_fetch: GridFetch,
    /// The 3D textures the records name (empty with buffer fetches).
    textures: Vec<GridTexture>,
}

impl DeviceMedia {
    /// Uploads `scene`'s media and interfaces. A scene whose grids do not fit in device
    /// memory is an error naming the size (before anything is allocated).
    pub fn upload(device: &CudaDevice, scene: &Scene) -> CudaResult<Self> {
        Self::upload_with(device, scene, GridFetch::Buffer)
    }

    /// [`DeviceMedia::upload`], with the density and albedo grids also as 3D textures when
    /// `grid_fetch` reads them so (the float array keeps every grid: the majorants stay there).
    pub fn upload_with(device: &CudaDevice, scene: &Scene, grid_fetch: GridFetch) -> CudaResult<Self> {
        let mut tables = MediaTables::new(&scene.media)?;
        let bytes = tables.grid_data.len() as u64 * 4;
        if let Ok((free, _)) = device.memory_info()
            && bytes > free as u64
        {
            return Err(CudaError::InvalidArgument(format!(
                "scene `{}`: its volume grids take {:.2} GiB, more than the {:.2} GiB free on the GPU",
                scene.name,
                bytes as f64 / (1u64 << 30) as f64,
                free as f64 / (1u64 << 30) as f64
            )));
        }
        if !scene.triangle_media.is_empty() && scene.triangle_media.len() != scene.triangles.len() {
            return Err(CudaError::InvalidArgument(format!(
                "scene `{}`: {} medium interfaces for {} triangles",
                scene.name,
                scene.triangle_media.len(),
                scene.triangles.len()
            )));
        }
        let media_count = scene.media.len() as u32;
        let interfaces_valid = scene.triangle_media.iter().all(|&packed| {
            let (interior, exterior) = warpath_volume::medium::interface::unpack(packed);
            interior.is_none_or(|m| m < media_count) && exterior.is_none_or(|m| m < media_count)
        });
        if !interfaces_valid || scene.camera_medium.is_some_and(|m| m >= media_count) {
            return Err(CudaError::InvalidArgument(format!("scene `{}`: a medium index is out of range", scene.name)));
        }
        let mut textures = Vec::new();
        if grid_fetch != GridFetch::Buffer {
            let filter = grid_fetch == GridFetch::TextureLinear;
            for (medium, record) in scene.media.iter().zip(&mut tables.media) {
                if let MediumDensity::Grid { density, .. } = &medium.density {
                    let texture = GridTexture::new(device, density, filter)
                        .map_err(|e| texture_error(&medium.name, "density", e))?;
                    record.density_texture = split_handle(texture.object);
                    textures.push(texture);
                }
                if let MediumAlbedo::Grid(albedo) = &medium.albedo {
                    let texture = GridTexture::new(device, albedo, filter)
                        .map_err(|e| texture_error(&medium.name, "albedo", e))?;
                    record.albedo_texture = split_handle(texture.object);
                    textures.push(texture);
                }
            }
        }
        Ok(DeviceMedia {
            grid_fetch,
            textures,
            tables_len: tables.media.len(),
            media: DeviceBuffer::from_slice(device, &tables.media)?,
            grid_data: DeviceBuffer::from_slice(device, &tables.grid_data)?,
            triangle_media: if scene.triangle_media.is_empty() {
                None
            } else {
                Some(DeviceBuffer::from_slice(device, &scene.triangle_media)?)
            },
            camera_medium: scene.camera_medium.map_or(0, |m| m + 1),
        })
    }

    /// The volumetric estimator's scene arguments over `surface`.
    pub fn args(&self, device: &CudaDevice, surface: DeviceSceneArgs, max_depth: u32) -> DeviceVolumeSceneArgs {
        DeviceVolumeSceneArgs {
            surface,
            media: self.media.address(device),
            grid_data: self.grid_data.address(device),
            triangle_media: self.triangle_media.as_ref().map_or(0, |b| b.address(device)),
            medium_count: self.tables_len as u32,
            camera_medium: self.camera_medium,
            counter_slots: counter_slots(max_depth),
            _pad: 0,
        }
    }

    pub fn size_bytes(&self) -> usize {
        self.media.size_bytes()
            + self.grid_data.size_bytes()
            + self.triangle_media.as_ref().map_or(0, |b| b.size_bytes())
            + self.textures.iter().map(|t| t.bytes).sum::<usize>()
    }

    /// How the uploaded grids are meant to be read.
    pub fn grid_fetch(&self) -> GridFetch {
        self.grid_fetch
    }
}

/// A 64-bit handle as (low, high) 32-bit words.
fn split_handle(handle: u64) -> [u32; 2] {
    [handle as u32, (handle >> 32) as u32]
}

fn texture_error(medium: &str, grid: &str, error: CudaError) -> CudaError {
    match error {
        CudaError::Driver { context, message } => CudaError::Driver {
            context: format!("medium '{medium}': the {grid} grid's 3D texture ({context})"),
            message,
        },
        other => other,
    }
}

/// A grid as a CUDA 3D array and a texture object over it (clamped to the edge, like
/// [`VolumeGrid`]'s lookups; point sampled with unnormalised coordinates, or filtered by the
/// hardware with normalised ones, whose texel centres are the grid's cell centres). Three
/// channels become four (CUDA arrays have 1, 2 or 4). Destroyed on drop.
#[derive(Debug)]
pub struct GridTexture {
    context: Arc<cudarc::driver::CudaContext>,
    array: sys::CUarray,
    object: sys::CUtexObject,
    bytes: usize,
}

// SAFETY: the handles are plain driver handles, used only with their context bound.
unsafe impl Send for GridTexture {}
unsafe impl Sync for GridTexture {}

fn driver(context: &str, result: sys::CUresult) -> CudaResult<()> {
    result.result().map_err(|e| CudaError::driver(context, e))
}

impl GridTexture {
    pub fn new(device: &CudaDevice, grid: &VolumeGrid, filter: bool) -> CudaResult<Self> {
        let context = device.context().clone();
        context.bind_to_thread().map_err(|e| CudaError::driver("cuCtxSetCurrent", e))?;
        let channels = if grid.channels == 1 { 1usize } else { 4 };
        let [nx, ny, nz] = grid.resolution.map(|n| n as usize);
        let texels: std::borrow::Cow<[f32]> = if grid.channels == 1 {
            std::borrow::Cow::Borrowed(&grid.data)
        } else {
            let c = grid.channels as usize;
            let mut padded = vec![0.0f32; nx * ny * nz * 4];
            for (texel, value) in padded.chunks_exact_mut(4).zip(grid.data.chunks_exact(c)) {
                texel[..c.min(4)].copy_from_slice(&value[..c.min(4)]);
            }
            std::borrow::Cow::Owned(padded)
        };
        let descriptor = sys::CUDA_ARRAY3D_DESCRIPTOR {
            Width: nx,
            Height: ny,
            Depth: nz,
            Format: sys::CUarray_format::CU_AD_FORMAT_FLOAT,
            NumChannels: channels as u32,
            Flags: 0,
        };
        let mut array: sys::CUarray = std::ptr::null_mut();
        // SAFETY: a valid descriptor; the context is current.
        driver(&format!("cuArray3DCreate {nx}×{ny}×{nz}×{channels}"), unsafe {
            sys::cuArray3DCreate_v2(&mut array, &descriptor)
        })?;
        let mut texture = GridTexture { context, array, object: 0, bytes: texels.len() * 4 };
        let row_bytes = nx * channels * 4;
        let copy = host_to_array_copy(texels.as_ptr().cast(), array, row_bytes, ny, nz);
        // SAFETY: the copy describes the host texels (row_bytes × ny × nz) and the array just
        // created; the host data outlives the synchronous copy.
        driver("cuMemcpy3D", unsafe { sys::cuMemcpy3D_v2(&copy) })?;
        let resource = array_resource(array);
        let description = texture_description(filter);
        // SAFETY: valid descriptions of a live array.
        driver("cuTexObjectCreate", unsafe {
            sys::cuTexObjectCreate(&mut texture.object, &resource, &description, std::ptr::null())
        })?;
        Ok(texture)
    }

    /// The texture object (`cudaTextureObject_t`).
    pub fn object(&self) -> u64 {
        self.object
    }
}

/// A synchronous copy of `depth` slices of `height` rows of `row_bytes` from host memory into
/// a 3D array. (Every field is spelled out: the memory-type enums have no zero value.)
fn host_to_array_copy(
    host: *const std::ffi::c_void,
    array: sys::CUarray,
    row_bytes: usize,
    height: usize,
    depth: usize,
) -> sys::CUDA_MEMCPY3D {
    sys::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_HOST,
        srcHost: host,
        srcDevice: 0,
        srcArray: std::ptr::null_mut(),
        reserved0: std::ptr::null_mut(),
        srcPitch: row_bytes,
        srcHeight: height,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_ARRAY,
        dstHost: std::ptr::null_mut(),
        dstDevice: 0,
        dstArray: array,
        reserved1: std::ptr::null_mut(),
        dstPitch: 0,
        dstHeight: 0,
        WidthInBytes: row_bytes,
        Height: height,
        Depth: depth,
    }
}

/// A texture's resource: the whole array.
fn array_resource(array: sys::CUarray) -> sys::CUDA_RESOURCE_DESC {
    sys::CUDA_RESOURCE_DESC {
        resType: sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY,
        res: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1 {
            array: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: array },
        },
        flags: 0,
    }
}

/// Clamped at the edges; point sampled at unnormalised coordinates, or filtered by the
/// hardware at normalised ones.
fn texture_description(filter: bool) -> sys::CUDA_TEXTURE_DESC {
    sys::CUDA_TEXTURE_DESC {
        addressMode: [sys::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP; 3],
        filterMode: if filter {
            sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR
        } else {
            sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT
        },
        flags: if filter { sys::CU_TRSF_NORMALIZED_COORDINATES } else { 0 },
        maxAnisotropy: 0,
        mipmapFilterMode: sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        mipmapLevelBias: 0.0,
        minMipmapLevelClamp: 0.0,
        maxMipmapLevelClamp: 0.0,
        borderColor: [0.0; 4],
        reserved: [0; 12],
    }
}

impl Drop for GridTexture {
    fn drop(&mut self) {
        if self.context.bind_to_thread().is_err() {
            return;
        }
        // SAFETY: handles created by `new`, destroyed once, the object before its array.
        unsafe {
            if self.object != 0 {
                sys::cuTexObjectDestroy(self.object);
            }
            if !self.array.is_null() {
                sys::cuArrayDestroy(self.array);
            }
        }
    }
}

const _: () = assert!(std::mem::size_of::<GpuMedium>() == 160);
const _: () = assert!(std::mem::size_of::<DeviceVolumeSceneArgs>() == 184);

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Vec3};
    use std::sync::Arc;

    /// The driver structs of a grid texture are built field by field (no zeroed enums): a
    /// mistake there is a panic before any driver call, so it is caught here without a GPU.
    #[test]
    fn texture_descriptions_are_well_formed() {
        let copy = host_to_array_copy(std::ptr::null(), std::ptr::null_mut(), 40, 3, 2);
        assert_eq!((copy.WidthInBytes, copy.Height, copy.Depth, copy.srcPitch), (40, 3, 2, 40));
        assert_eq!(copy.srcMemoryType, sys::CUmemorytype::CU_MEMORYTYPE_HOST);
        assert_eq!(copy.dstMemoryType, sys::CUmemorytype::CU_MEMORYTYPE_ARRAY);
        assert_eq!(split_handle(0x1234_5678_9abc_def0), [0x9abc_def0, 0x1234_5678]);
        let resource = array_resource(std::ptr::null_mut());
        assert_eq!(resource.resType, sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY);
        let point = texture_description(false);
        let linear = texture_description(true);
        assert_eq!(point.filterMode, sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT);
        assert_eq!(point.flags, 0, "point sampling reads voxel centres at unnormalised coordinates");
        assert_eq!(linear.filterMode, sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR);
        assert_eq!(linear.flags, sys::CU_TRSF_NORMALIZED_COORDINATES);
        assert_eq!(linear.addressMode, [sys::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP; 3]);
    }

    #[test]
    fn tables_flatten_grids_at_their_offsets() {
        let density = Arc::new(VolumeGrid::from_fn([3, 2, 2], |i, j, k| (i + 3 * j + 6 * k) as f32));
        let albedo = Arc::new(VolumeGrid::constant([2, 2, 2], 3, 0.5));
        let grid = Medium::grid("g", density.clone(), 2.0, MediumAlbedo::Grid(albedo), 0.3, Mat4::IDENTITY, 2).unwrap();
        let homogeneous = Medium::homogeneous("h", Vec3::new(1.0, 2.0, 3.0), Vec3::splat(0.5), 0.0).unwrap();
        let tables = MediaTables::new(&[homogeneous, grid.clone()]).unwrap();
        let [h, g] = [tables.media[0], tables.media[1]];
        assert_eq!((h.kind, h.gray, h.sigma_t), (medium_kind::HOMOGENEOUS, 0, [1.0, 2.0, 3.0]));
        assert_eq!(tables.grid_data[h.majorant_offset as usize], 3.0);
        assert_eq!((g.kind, g.scale, g.albedo_kind, g.albedo_channels), (medium_kind::GRID, 2.0, albedo_kind::GRID, 3));
        let d = g.density_offset as usize;
        assert_eq!(&tables.grid_data[d..d + 12], density.data.as_slice());
        let m = g.majorant_offset as usize;
        assert_eq!(&tables.grid_data[m..m + grid.majorant.values.len()], grid.majorant.values.as_slice());
        assert_eq!(counter_slots(8), 9);
        assert_eq!(counter_slots(u32::MAX), VOLUME_COUNTER_BOUNCES);
    }
}
