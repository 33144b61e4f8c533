//! A `warpath_scene::Scene` turned into the device buffers the estimator kernels read
//! (`kernels/common/scene.cuh`): materials, triangle lights and their selection CDF,
//! the environment (a constant, or an equirectangular map: RGB and sampling weight per
//! texel, and the flattened 2D distribution over its bilinear patches), per-triangle vertex indices and material ids, vertex positions, normals
//! and uvs, textures flattened into one texel array with per-texture offsets, the BVH in
//! the Aila–Laine layout ([`DeviceBvh`]), and one [`GpuSceneParams`] with every scalar.
//!
//! Rust owns the layouts: [`GpuCamera`], [`GpuTexture`] and [`GpuSceneParams`] are
//! `#[repr(C)]` Pod structs mirrored in `scene.cuh`; every size and field offset is checked
//! at compile time by the generated layout checks ([`crate::layout_registry`]).
//!
//! Data flows one way: Scene + LightSet + Bvh → [`GpuSceneParams::new`] (host, validates)
//! → [`DeviceScene::upload`] (device).

use crate::buffer::DeviceBuffer;
use crate::bvh_layout::{DeviceBvh, GpuBvh};
use crate::error::{CudaError, CudaResult};
use crate::isosurface::shapes::DeviceIsoShapes;
use crate::runtime::CudaDevice;
use crate::wide_bvh::{BvhLayout, DeviceWideBvh};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::mem::size_of;
use warpath_bvh::Bvh;
use warpath_bvh::wide::Collapse;
use warpath_core::light::{DeltaLight, EnvMap, Environment, LightSet, TriangleLight};
use warpath_core::material::Material;
use warpath_scene::{RenderSettings, Scene};

/// The thin-lens camera as the device reads it (`GpuCamera` in scene.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuCamera {
    /// `Camera::to_world`, column-major (left, up, forward, position).
    pub to_world: [f32; 16],
    /// `Camera::tan_half_fov(width, height)`, evaluated on the host.
    pub tan_half_fov: [f32; 2],
    pub aperture_radius: f32,
    pub focus_distance: f32,
}

impl GpuCamera {
    /// `camera` for an image of `width × height` pixels.
    pub fn new(camera: &warpath_core::camera::Camera, width: u32, height: u32) -> GpuCamera {
        let tan = camera.tan_half_fov(width, height);
        GpuCamera {
            to_world: camera.to_world.to_cols_array(),
            tan_half_fov: [tan.x, tan.y],
            aperture_radius: camera.aperture_radius,
            focus_distance: camera.focus_distance,
        }
    }
}

/// One texture inside the flattened texel array.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuTexture {
    pub width: u32,
    pub height: u32,
    /// Index of the texture's first texel in the texel array.
    pub offset: u32,
    pub _pad: u32,
}

/// `GpuSceneParams::env_kind` values.
pub mod env_kind {
    pub const NONE: u32 = 0;
    pub const CONSTANT: u32 = 1;
    pub const MAP: u32 = 2;
}

/// Every scalar of a render (`GpuSceneParams` in scene.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuSceneParams {
    pub camera: GpuCamera,
    /// The map's `to_world` (Mat3 columns).
    pub env_to_world: [f32; 9],
    /// Its transpose (the CPU's `to_world.transpose()`), columns.
    pub env_to_local: [f32; 9],
    pub env_constant: [f32; 3],
    pub env_scale: f32,
    /// An [`env_kind`] value.
    pub env_kind: u32,
    pub env_width: u32,
    pub env_height: u32,
    /// 1 when the map's distribution is all zero (uniform sampling).
    pub env_is_black: u32,
    pub width: u32,
    pub height: u32,
    pub max_depth: u32,
    pub seed: u32,
    /// A `SamplerKind` as u32.
    pub sampler: u32,
    pub rr_threshold: f32,
    pub triangle_count: u32,
    pub material_count: u32,
    /// Triangle lights.
    pub light_count: u32,
    /// Bins of the light selection (triangle lights, one for an environment, delta lights).
    pub selection_count: u32,
    pub has_normals: u32,
    pub has_uvs: u32,
    pub texture_count: u32,
    /// Isosurface shapes (their hits are numbered after the triangles).
    pub iso_shape_count: u32,
    /// Point, spot and directional lights (selection bins from `selection_count −
    /// delta_light_count`).
    pub delta_light_count: u32,
    pub _pad_delta: u32,
    /// Device address of the `GpuIsoShape` records (`crate::isosurface::shapes`), or 0.
    pub iso_shapes: u64,
}

const _: () = assert!(size_of::<GpuCamera>() == 80);
const _: () = assert!(size_of::<GpuTexture>() == 16);
const _: () = assert!(size_of::<GpuSceneParams>() == 256);

fn mat3_columns(m: &glam::Mat3) -> [f32; 9] {
    m.to_cols_array()
}

fn to_u32(value: usize, what: &str) -> CudaResult<u32> {
    u32::try_from(value).map_err(|_| CudaError::InvalidArgument(format!("{what} = {value} exceeds 32 bits")))
}

impl GpuSceneParams {
    /// The parameters of rendering `scene` with `settings`; checks what the kernels index
    /// with (material and texture indices, triangle vertex indices, array lengths).
    pub fn new(scene: &Scene, lights: &LightSet, settings: &RenderSettings) -> CudaResult<Self> {
        if settings.width == 0 || settings.height == 0 {
            return Err(CudaError::InvalidArgument(format!(
                "a {}×{} film has no pixels",
                settings.width, settings.height
            )));
        }
        (settings.width as u64 * settings.height as u64 <= u32::MAX as u64)
            .then_some(())
            .ok_or_else(|| CudaError::InvalidArgument("the film has more than 2^32 pixels".into()))?;
        validate_scene(scene, lights)?;
        let mut params = GpuSceneParams {
            camera: GpuCamera::new(&scene.camera, settings.width, settings.height),
            width: settings.width,
            height: settings.height,
            max_depth: settings.max_depth,
            seed: settings.seed,
            sampler: settings.sampler as u32,
            rr_threshold: settings.rr_threshold,
            triangle_count: to_u32(scene.triangles.len(), "triangle count")?,
            material_count: to_u32(scene.materials.len(), "material count")?,
            light_count: to_u32(lights.triangles.len(), "triangle light count")?,
            selection_count: to_u32(lights.selection.count(), "light selection bins")?,
            has_normals: (!scene.normals.is_empty()) as u32,
            has_uvs: (!scene.uvs.is_empty()) as u32,
            texture_count: to_u32(scene.textures.len(), "texture count")?,
            iso_shape_count: to_u32(scene.isosurfaces.len(), "isosurface count")?,
            delta_light_count: to_u32(lights.deltas.len(), "delta light count")?,
            ..Default::default()
        };
        match &lights.environment {
            Environment::None => params.env_kind = env_kind::NONE,
            Environment::Constant(c) => {
                params.env_kind = env_kind::CONSTANT;
                params.env_constant = c.to_array();
            }
            Environment::Map(map) => {
                params.env_kind = env_kind::MAP;
                params.env_to_world = mat3_columns(&map.to_world);
                params.env_to_local = mat3_columns(&map.to_world.transpose());
                params.env_scale = map.scale;
                params.env_width = map.width;
                params.env_height = map.height;
                params.env_is_black = (map.distribution.total() <= 0.0) as u32;
            }
        }
        Ok(params)
    }
}

/// The `lights` array the kernels read: the `light_count` triangle lights, then the
/// `delta_light_count` delta lights, each a 64-byte [`DeltaLight`] stored in a
/// [`TriangleLight`]'s slot (lights.cuh reads them as `DeltaLight`s from `lights +
/// light_count`), so the scene's device addresses keep their layout.
pub fn light_records(lights: &LightSet) -> Vec<TriangleLight> {
    let mut records = lights.triangles.clone();
    records.extend(lights.deltas.iter().map(|d| bytemuck::cast::<DeltaLight, TriangleLight>(*d)));
    records
}

const _: () = assert!(size_of::<DeltaLight>() == size_of::<TriangleLight>());
const _: () = assert!(align_of::<DeltaLight>() == align_of::<TriangleLight>());

/// Checks every index the kernels follow, so that a malformed scene is an error here and
/// never an out-of-bounds read on the device.
fn validate_scene(scene: &Scene, lights: &LightSet) -> CudaResult<()> {
    let invalid = |message: String| Err(CudaError::InvalidArgument(format!("scene `{}`: {message}", scene.name)));
    let vertices = scene.positions.len();
    if scene.triangle_materials.len() != scene.triangles.len() {
        return invalid(format!(
            "{} triangles but {} triangle materials",
            scene.triangles.len(),
            scene.triangle_materials.len()
        ));
    }
    if !scene.normals.is_empty() && scene.normals.len() != vertices {
        return invalid(format!("{} normals for {vertices} vertices", scene.normals.len()));
    }
    if !scene.uvs.is_empty() && scene.uvs.len() != vertices {
        return invalid(format!("{} uvs for {vertices} vertices", scene.uvs.len()));
    }
    if let Some((i, t)) = scene.triangles.iter().enumerate().find(|(_, t)| t.iter().any(|&v| v as usize >= vertices)) {
        return invalid(format!("triangle {i} has vertex indices {t:?}, but there are {vertices} vertices"));
    }
    if let Some((i, &m)) =
        scene.triangle_materials.iter().enumerate().find(|(_, m)| **m as usize >= scene.materials.len())
    {
        return invalid(format!("triangle {i} uses material {m} of {}", scene.materials.len()));
    }
    for (i, m) in scene.materials.iter().enumerate() {
        for texture in [m.base_color_texture, m.normal_texture] {
            if texture >= 0 && texture as usize >= scene.textures.len() {
                return invalid(format!("material {i} uses texture {texture} of {}", scene.textures.len()));
            }
        }
    }
    for (i, t) in scene.textures.iter().enumerate() {
        if t.pixels.len() != t.width as usize * t.height as usize {
            return invalid(format!("texture {i} is {}×{} but has {} pixels", t.width, t.height, t.pixels.len()));
        }
    }
    if lights.triangle_to_light.len() != scene.triangles.len() {
        return invalid(format!(
            "the light set maps {} triangles, the scene has {}",
            lights.triangle_to_light.len(),
            scene.triangles.len()
        ));
    }
    if let Some(l) = lights.triangles.iter().find(|l| l.triangle as usize >= scene.triangles.len()) {
        return invalid(format!("a triangle light names triangle {}", l.triangle));
    }
    let has_env = !matches!(lights.environment, Environment::None);
    let expected_bins = lights.triangles.len() + has_env as usize + lights.deltas.len();
    if lights.selection.count() != expected_bins || lights.selection.cdf.len() != expected_bins + 1 {
        return invalid(format!(
            "the light selection has {} bins (cdf of {}), expected {expected_bins}",
            lights.selection.count(),
            lights.selection.cdf.len()
        ));
    }
    if let Environment::Map(map) = &lights.environment {
        let (w, h) = (map.width as usize, map.height as usize);
        let d = &map.distribution;
        if w == 0
            || h < 2
            || map.pixels.len() != w * h
            || map.weights.len() != w * h
            || d.width != w
            || d.height != h - 1
            || d.conditional_cdf.len() != (h - 1) * (w + 1)
            || d.marginal.cdf.len() != h
        {
            return invalid(format!("the environment map ({w}×{h}) and its distribution do not match"));
        }
    }
    Ok(())
}

/// Flattens `scene.textures` into one texel array and per-texture records (public for the
/// host-side lockstep tests, which lay scenes out as [`DeviceScene::upload`] does).
pub fn flatten_textures(scene: &Scene) -> CudaResult<(Vec<[f32; 3]>, Vec<GpuTexture>)> {
    let mut texels = Vec::new();
    let mut records = Vec::with_capacity(scene.textures.len());
    for t in &scene.textures {
        records.push(GpuTexture {
            width: t.width,
            height: t.height,
            offset: to_u32(texels.len(), "texel offset")?,
            _pad: 0,
        });
        texels.extend(t.pixels.iter().map(|p| p.to_array()));
    }
    Ok((texels, records))
}

/// The environment's texels as the device reads them: RGB and the sampling weight, 16 bytes
/// (public for the host-side lockstep tests).
pub fn env_texels(map: &EnvMap) -> Vec<[f32; 4]> {
    map.pixels.iter().zip(&map.weights).map(|(p, &w)| [p.x, p.y, p.z, w]).collect()
}

fn vec3s(values: &[Vec3]) -> Vec<[f32; 3]> {
    values.iter().map(|v| v.to_array()).collect()
}

/// The BVH's device addresses (`TraversalScene` of traversal/traversal.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct TraversalSceneArgs {
    pub nodes: u64,
    pub triangles: u64,
    pub triangle_ids: u64,
}

/// A scene's device addresses as the surface estimator reads them (`DeviceScene` of
/// common/scene.cuh, asserted there as `DeviceSceneArgs`): passed by value inside
/// `ScheduleArgs`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DeviceSceneArgs {
    pub params: u64,
    pub bvh: TraversalSceneArgs,
    pub positions: u64,
    pub normals: u64,
    pub uvs: u64,
    pub triangles: u64,
    pub triangle_materials: u64,
    pub materials: u64,
    pub triangle_to_light: u64,
    pub lights: u64,
    pub light_cdf: u64,
    pub env_pixels: u64,
    pub env_conditional_cdf: u64,
    pub env_marginal_cdf: u64,
    pub texels: u64,
    pub textures: u64,
}

// SAFETY: a `#[repr(C)]` Pod struct of device addresses whose layout common/scene.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for DeviceSceneArgs {}

/// One scene in device memory, as `DeviceScene` of scene.cuh points at it.
#[derive(Debug)]
pub struct DeviceScene {
    /// The host copy of the parameters.
    pub params: GpuSceneParams,
    /// The scene's bounds (the BVH root's; zero for an empty scene), for Morton keys.
    pub bounds: ([f32; 3], [f32; 3]),
    pub(crate) params_buffer: DeviceBuffer<GpuSceneParams>,
    /// The tree in the layout the scene was uploaded with (the programs that trace it must be
    /// compiled for that layout: `KernelVariant::wide_bvh`).
    pub bvh: SceneBvh,
    pub(crate) positions: DeviceBuffer<[f32; 3]>,
    pub(crate) normals: DeviceBuffer<[f32; 3]>,
    pub(crate) uvs: DeviceBuffer<[f32; 2]>,
    pub(crate) triangles: DeviceBuffer<[u32; 3]>,
    pub(crate) triangle_materials: DeviceBuffer<u32>,
    pub(crate) materials: DeviceBuffer<Material>,
    pub(crate) triangle_to_light: DeviceBuffer<i32>,
    /// The triangle lights, then the delta lights ([`light_records`]).
    pub(crate) lights: DeviceBuffer<TriangleLight>,
    pub(crate) light_cdf: DeviceBuffer<f32>,
    /// Per texel: linear RGB and the sampling weight (`EnvMap::weights`).
    pub(crate) env_pixels: DeviceBuffer<[f32; 4]>,
    pub(crate) env_conditional_cdf: DeviceBuffer<f32>,
    pub(crate) env_marginal_cdf: DeviceBuffer<f32>,
    pub(crate) texels: DeviceBuffer<[f32; 3]>,
    pub(crate) textures: DeviceBuffer<GpuTexture>,
    /// The isosurface shapes' records, lattices and trees (none without isosurfaces).
    pub(crate) iso_shapes: Option<DeviceIsoShapes>,
}

/// A scene's tree on the device, in one of the two layouts. `DeviceScene`'s `TraversalScene`
/// points at either: the binary layout's nodes, triangle slots and ids, or the wide layout's
/// nodes and triangle records (ids null); traversal/trace.cuh reads them as the program's
/// `WARPATH_WIDE_BVH` says.
#[derive(Debug)]
pub enum SceneBvh {
    Binary(DeviceBvh),
    Wide8(DeviceWideBvh),
}

impl SceneBvh {
    pub fn layout(&self) -> BvhLayout {
        match self {
            SceneBvh::Binary(_) => BvhLayout::Binary,
            SceneBvh::Wide8(_) => BvhLayout::Wide8,
        }
    }

    fn args(&self, device: &CudaDevice) -> TraversalSceneArgs {
        match self {
            SceneBvh::Binary(bvh) => TraversalSceneArgs {
                nodes: bvh.nodes.address(device),
                triangles: bvh.triangles.address(device),
                triangle_ids: bvh.triangle_ids.address(device),
            },
            SceneBvh::Wide8(wide) => {
                let args = wide.args(device);
                TraversalSceneArgs { nodes: args.nodes, triangles: args.triangles, triangle_ids: 0 }
            }
        }
    }
}

impl DeviceScene {
    /// Uploads `scene` with its `lights` (`scene.light_set()`) and `bvh` (built over
    /// `scene.triangle_soup()`) for rendering with `settings`, in the binary layout.
    pub fn upload(
        device: &CudaDevice,
        scene: &Scene,
        lights: &LightSet,
        bvh: &Bvh,
        settings: &RenderSettings,
    ) -> CudaResult<DeviceScene> {
        Self::upload_with_layout(device, scene, lights, bvh, settings, BvhLayout::Binary)
    }

    /// [`DeviceScene::upload`] with the tree in `layout` (the wide one collapsed from `bvh`).
    pub fn upload_with_layout(
        device: &CudaDevice,
        scene: &Scene,
        lights: &LightSet,
        bvh: &Bvh,
        settings: &RenderSettings,
        layout: BvhLayout,
    ) -> CudaResult<DeviceScene> {
        let mut params = GpuSceneParams::new(scene, lights, settings)?;
        let iso_shapes =
            if scene.isosurfaces.is_empty() { None } else { Some(DeviceIsoShapes::upload(device, scene)?) };
        params.iso_shapes = iso_shapes.as_ref().map_or(0, |s| s.address(device));
        let soup = scene.triangle_soup();
        let bounds = bvh.nodes.first().map(|root| (root.min.to_array(), root.max.to_array())).unwrap_or_default();
        let bvh = match layout {
            BvhLayout::Binary => SceneBvh::Binary(DeviceBvh::upload(device, &GpuBvh::from_bvh(bvh, &soup)?)?),
            BvhLayout::Wide8 => SceneBvh::Wide8(DeviceWideBvh::from_bvh(device, bvh, &soup, Collapse::Optimal)?.0),
        };
        let (texels, textures) = flatten_textures(scene)?;
        let (env_pixels, env_conditional_cdf, env_marginal_cdf) = match &lights.environment {
            Environment::Map(map) => {
                (env_texels(map), map.distribution.conditional_cdf.clone(), map.distribution.marginal.cdf.clone())
            }
            _ => (Vec::new(), Vec::new(), Vec::new()),
        };
        let uvs: Vec<[f32; 2]> = scene.uvs.iter().map(|v| v.to_array()).collect();
        Ok(DeviceScene {
            params,
            bounds,
            params_buffer: DeviceBuffer::from_slice(device, &[params])?,
            bvh,
            positions: DeviceBuffer::from_slice(device, &vec3s(&scene.positions))?,
            normals: DeviceBuffer::from_slice(device, &vec3s(&scene.normals))?,
            uvs: DeviceBuffer::from_slice(device, &uvs)?,
            triangles: DeviceBuffer::from_slice(device, &scene.triangles)?,
            triangle_materials: DeviceBuffer::from_slice(device, &scene.triangle_materials)?,
            materials: DeviceBuffer::from_slice(device, &scene.materials)?,
            triangle_to_light: DeviceBuffer::from_slice(device, &lights.triangle_to_light)?,
            lights: DeviceBuffer::from_slice(device, &light_records(lights))?,
            light_cdf: DeviceBuffer::from_slice(device, &lights.selection.cdf)?,
            env_pixels: DeviceBuffer::from_slice(device, &env_pixels)?,
            env_conditional_cdf: DeviceBuffer::from_slice(device, &env_conditional_cdf)?,
            env_marginal_cdf: DeviceBuffer::from_slice(device, &env_marginal_cdf)?,
            texels: DeviceBuffer::from_slice(device, &texels)?,
            textures: DeviceBuffer::from_slice(device, &textures)?,
            iso_shapes,
        })
    }

    /// The kernels' view of this scene: its device addresses as `DeviceScene` of scene.cuh
    /// (what a schedule kernel receives inside its `ScheduleArgs`).
    pub fn args(&self, device: &CudaDevice) -> DeviceSceneArgs {
        DeviceSceneArgs {
            params: self.params_buffer.address(device),
            bvh: self.bvh.args(device),
            positions: self.positions.address(device),
            normals: self.normals.address(device),
            uvs: self.uvs.address(device),
            triangles: self.triangles.address(device),
            triangle_materials: self.triangle_materials.address(device),
            materials: self.materials.address(device),
            triangle_to_light: self.triangle_to_light.address(device),
            lights: self.lights.address(device),
            light_cdf: self.light_cdf.address(device),
            env_pixels: self.env_pixels.address(device),
            env_conditional_cdf: self.env_conditional_cdf.address(device),
            env_marginal_cdf: self.env_marginal_cdf.address(device),
            texels: self.texels.address(device),
            textures: self.textures.address(device),
        }
    }

    /// Bytes of device memory the scene occupies (BVH excluded).
    pub fn size_bytes(&self) -> usize {
        self.params_buffer.size_bytes()
            + self.positions.size_bytes()
            + self.normals.size_bytes()
            + self.uvs.size_bytes()
            + self.triangles.size_bytes()
            + self.triangle_materials.size_bytes()
            + self.materials.size_bytes()
            + self.triangle_to_light.size_bytes()
            + self.lights.size_bytes()
            + self.light_cdf.size_bytes()
            + self.env_pixels.size_bytes()
            + self.env_conditional_cdf.size_bytes()
            + self.env_marginal_cdf.size_bytes()
            + self.texels.size_bytes()
            + self.textures.size_bytes()
            + self.iso_shapes.as_ref().map_or(0, |s| s.size_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cornell_params_are_valid() {
        let scene = warpath_scene::load("cornell").unwrap();
        let lights = scene.light_set();
        let params = GpuSceneParams::new(&scene, &lights, &scene.settings).unwrap();
        assert_eq!(params.triangle_count as usize, scene.triangles.len());
        assert!(params.light_count > 0);
        assert_eq!(
            params.selection_count,
            params.light_count + (params.env_kind != env_kind::NONE) as u32 + params.delta_light_count
        );
        let tan = scene.camera.tan_half_fov(scene.settings.width, scene.settings.height);
        assert_eq!(params.camera.tan_half_fov, [tan.x, tan.y]);
    }

    #[test]
    fn malformed_scenes_are_errors() {
        let mut scene = warpath_scene::load("cornell").unwrap();
        let lights = scene.light_set();
        scene.materials[0].base_color_texture = 7;
        let error = GpuSceneParams::new(&scene, &lights, &scene.settings).unwrap_err();
        assert!(error.to_string().contains("texture 7"), "{error}");
        let mut scene = warpath_scene::load("cornell").unwrap();
        scene.materials[1].normal_texture = 3;
        let error = GpuSceneParams::new(&scene, &lights, &scene.settings).unwrap_err();
        assert!(error.to_string().contains("material 1 uses texture 3"), "{error}");
        let mut scene = warpath_scene::load("cornell").unwrap();
        scene.triangles[3][1] = 1_000_000;
        let error = GpuSceneParams::new(&scene, &lights, &scene.settings).unwrap_err();
        assert!(error.to_string().contains("triangle 3"), "{error}");
        let scene = warpath_scene::load("cornell").unwrap();
        let settings = RenderSettings { width: 0, ..scene.settings.clone() };
        assert!(GpuSceneParams::new(&scene, &lights, &settings).is_err());
    }
}
