//! A scene prepared for both ports at once: the Rust structs the CPU estimator reads
//! (Scene, LightSet, Bvh, CpuBvh) and, from them, the flat arrays the CUDA estimator reads
//! through scene.cuh's `DeviceScene`, in host memory. The arrays are flattened as
//! `warpath_cuda::scene_upload::DeviceScene::upload` flattens them, by the same functions
//! where there is a layout to get right (`GpuSceneParams::new`, `GpuBvh::from_bvh`,
//! `flatten_textures`, `env_texels`: RGB and sampling weight per texel), kept 16-byte
//! aligned and at least 16 bytes long as device allocations are.
//!
//! Also the scenes the tests run against: the empty scene (for pure functions), the
//! built-in Cornell boxes and furnace, and random scenes with every material kind (Null and
//! one-sided BSDFs included), one- and two-sided emitters, point, spot and directional lights,
//! textures, shading normals,
//! thin-lens cameras and environment maps (rotated, scaled, with black rows, all black, 1×1),
//! constants or none.

use crate::cases::draw;
use crate::volume_scenes;
use crate::words::Rng;
use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Vec2, Vec3};
use warpath_bvh::cpu_layout::CpuBvh;
use warpath_bvh::{BuildOptions, Bvh};
use warpath_core::camera::{Camera, FovAxis};
use warpath_core::light::{DeltaLight, EnvMap, Environment, LightSet};
use warpath_core::material::{Material, MaterialKind, flags};
use warpath_core::math::Aabb;
use warpath_core::sampler::{Sampler, SamplerKind};
use warpath_cpu::integrator::SceneView;
use warpath_cpu::volpath::VolumeView;
use warpath_cuda::bvh_layout::GpuBvh;
use warpath_cuda::scene_upload::{
    DeviceSceneArgs, GpuSceneParams, TraversalSceneArgs, env_texels, flatten_textures, light_records,
};
use warpath_cuda::volume_upload::{DeviceVolumeSceneArgs, MediaTables, counter_slots};
use warpath_scene::{RenderSettings, Scene, Texture, builtin};

/// 16 bytes, 16-byte aligned: the unit of [`DeviceArray`].
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct Block([u32; 4]);

/// The bytes of a Pod slice as a device allocation would hold them: 16-byte aligned and
/// at least 16 bytes long (an empty array is a zeroed block).
#[derive(Debug)]
struct DeviceArray(Vec<Block>);

impl DeviceArray {
    fn of<T: Pod>(values: &[T]) -> Self {
        let bytes: &[u8] = bytemuck::cast_slice(values);
        let mut blocks = vec![Block::default(); bytes.len().div_ceil(16).max(1)];
        bytemuck::cast_slice_mut::<Block, u8>(&mut blocks)[..bytes.len()].copy_from_slice(bytes);
        DeviceArray(blocks)
    }
    fn address(&self) -> u64 {
        self.0.as_ptr() as u64
    }
}

/// The flattened arrays of one scene (the fields of scene.cuh's DeviceScene).
#[derive(Debug)]
struct DeviceArrays {
    params: DeviceArray,
    nodes: DeviceArray,
    bvh_triangles: DeviceArray,
    triangle_ids: DeviceArray,
    positions: DeviceArray,
    normals: DeviceArray,
    uvs: DeviceArray,
    triangles: DeviceArray,
    triangle_materials: DeviceArray,
    materials: DeviceArray,
    triangle_to_light: DeviceArray,
    lights: DeviceArray,
    light_cdf: DeviceArray,
    env_pixels: DeviceArray,
    env_conditional_cdf: DeviceArray,
    env_marginal_cdf: DeviceArray,
    texels: DeviceArray,
    textures: DeviceArray,
    /// volume/estimator.cuh's DeviceVolumeScene: MediaTables' records and grid values and
    /// the per-triangle interfaces (absent, a null pointer, when no shape declares media).
    media: DeviceArray,
    grid_data: DeviceArray,
    triangle_media: Option<DeviceArray>,
}

/// One scene, as both ports read it.
pub struct HostScene {
    pub scene: Scene,
    pub lights: LightSet,
    pub params: GpuSceneParams,
    /// World-space vertices per triangle (what the BVH is built over).
    pub triangles: Vec<[Vec3; 3]>,
    pub bvh: Bvh,
    pub cpu_bvh: CpuBvh,
    /// The media as the device reads them (`MediaTables::new`, as `DeviceMedia::upload`).
    pub media: MediaTables,
    arrays: DeviceArrays,
}

fn vec3s(values: &[Vec3]) -> Vec<[f32; 3]> {
    values.iter().map(|v| v.to_array()).collect()
}

impl HostScene {
    /// Prepares `scene` (rendered with `scene.settings`) for both ports.
    pub fn new(scene: Scene) -> Self {
        let lights = scene.light_set();
        let params = GpuSceneParams::new(&scene, &lights, &scene.settings)
            .unwrap_or_else(|e| panic!("scene `{}`: {e}", scene.name));
        let triangles = scene.triangle_soup();
        let bvh = if triangles.is_empty() { Bvh::empty() } else { Bvh::build(&triangles, &BuildOptions::default()).0 };
        let cpu_bvh = CpuBvh::new(&bvh, &triangles);
        let gpu_bvh = GpuBvh::from_bvh(&bvh, &triangles).unwrap_or_else(|e| panic!("scene `{}`: {e}", scene.name));
        let (texels, textures) = flatten_textures(&scene).unwrap_or_else(|e| panic!("scene `{}`: {e}", scene.name));
        let (env_pixels, env_conditional_cdf, env_marginal_cdf) = match &lights.environment {
            Environment::Map(map) => {
                (env_texels(map), map.distribution.conditional_cdf.clone(), map.distribution.marginal.cdf.clone())
            }
            _ => (Vec::new(), Vec::new(), Vec::new()),
        };
        let uvs: Vec<[f32; 2]> = scene.uvs.iter().map(|v| v.to_array()).collect();
        let media = MediaTables::new(&scene.media).unwrap_or_else(|e| panic!("scene `{}`: {e}", scene.name));
        let arrays = DeviceArrays {
            params: DeviceArray::of(&[params]),
            nodes: DeviceArray::of(&gpu_bvh.nodes),
            bvh_triangles: DeviceArray::of(&gpu_bvh.triangles),
            triangle_ids: DeviceArray::of(&gpu_bvh.triangle_ids),
            positions: DeviceArray::of(&vec3s(&scene.positions)),
            normals: DeviceArray::of(&vec3s(&scene.normals)),
            uvs: DeviceArray::of(&uvs),
            triangles: DeviceArray::of(&scene.triangles),
            triangle_materials: DeviceArray::of(&scene.triangle_materials),
            materials: DeviceArray::of(&scene.materials),
            triangle_to_light: DeviceArray::of(&lights.triangle_to_light),
            lights: DeviceArray::of(&light_records(&lights)),
            light_cdf: DeviceArray::of(&lights.selection.cdf),
            env_pixels: DeviceArray::of(&env_pixels),
            env_conditional_cdf: DeviceArray::of(&env_conditional_cdf),
            env_marginal_cdf: DeviceArray::of(&env_marginal_cdf),
            texels: DeviceArray::of(&texels),
            textures: DeviceArray::of(&textures),
            media: DeviceArray::of(&media.media),
            grid_data: DeviceArray::of(&media.grid_data),
            triangle_media: (!scene.triangle_media.is_empty()).then(|| DeviceArray::of(&scene.triangle_media)),
        };
        HostScene { scene, lights, params, triangles, bvh, cpu_bvh, media, arrays }
    }

    pub fn name(&self) -> &str {
        &self.scene.name
    }

    /// The scene without anything: the context of pure functions.
    pub fn is_empty(&self) -> bool {
        self.scene.triangles.is_empty()
            && matches!(self.lights.environment, Environment::None)
            && self.lights.deltas.is_empty()
            && self.scene.media.is_empty()
    }

    /// The host addresses of the arrays, as volume/estimator.cuh's `DeviceVolumeScene` (whose
    /// first member is scene.cuh's `DeviceScene`), filled in as `DeviceMedia::args` fills it.
    pub fn device_args(&self) -> DeviceVolumeSceneArgs {
        let a = &self.arrays;
        let surface = DeviceSceneArgs {
            params: a.params.address(),
            bvh: TraversalSceneArgs {
                nodes: a.nodes.address(),
                triangles: a.bvh_triangles.address(),
                triangle_ids: a.triangle_ids.address(),
            },
            positions: a.positions.address(),
            normals: a.normals.address(),
            uvs: a.uvs.address(),
            triangles: a.triangles.address(),
            triangle_materials: a.triangle_materials.address(),
            materials: a.materials.address(),
            triangle_to_light: a.triangle_to_light.address(),
            lights: a.lights.address(),
            light_cdf: a.light_cdf.address(),
            env_pixels: a.env_pixels.address(),
            env_conditional_cdf: a.env_conditional_cdf.address(),
            env_marginal_cdf: a.env_marginal_cdf.address(),
            texels: a.texels.address(),
            textures: a.textures.address(),
        };
        DeviceVolumeSceneArgs {
            surface,
            media: a.media.address(),
            grid_data: a.grid_data.address(),
            triangle_media: a.triangle_media.as_ref().map_or(0, DeviceArray::address),
            medium_count: self.media.media.len() as u32,
            camera_medium: self.scene.camera_medium.map_or(0, |m| m + 1),
            counter_slots: counter_slots(self.scene.settings.max_depth),
            _pad: 0,
        }
    }

    /// The volumetric estimator's view (the surface view; the media are the scene's).
    pub fn volume_view(&self) -> VolumeView<'_> {
        VolumeView { surface: self.scene_view() }
    }

    /// The CPU estimator's view, with the settings the GPU parameters were made from.
    pub fn scene_view(&self) -> SceneView<'_> {
        let settings = &self.scene.settings;
        SceneView {
            scene: &self.scene,
            bvh: &self.bvh,
            cpu_bvh: &self.cpu_bvh,
            triangles: &self.triangles,
            lights: &self.lights,
            sampler: Sampler::new(settings.sampler, settings.seed),
            max_depth: settings.max_depth,
            rr_threshold: settings.rr_threshold,
            width: settings.width,
            height: settings.height,
        }
    }

    /// The environment map; panics for scenes without one (cases with
    /// `Needs::EnvironmentMap` run only where there is one).
    pub fn environment_map(&self) -> &EnvMap {
        match &self.lights.environment {
            Environment::Map(map) => map,
            _ => panic!("scene `{}` has no environment map", self.name()),
        }
    }

    /// The scene's bounds, or the unit cube around the origin for a scene without geometry.
    pub fn bounds(&self) -> Aabb {
        let bounds = self.scene.bounds();
        if bounds.is_empty() { Aabb { min: Vec3::splat(-1.0), max: Vec3::ONE } } else { bounds }
    }
}

/// Film sizes, depths and seeds small enough that thousands of paths run in a moment.
fn small_settings(rng: &mut Rng, width: u32, height: u32) -> RenderSettings {
    RenderSettings {
        width,
        height,
        spp: 1,
        max_depth: rng.pick(&[8, 8, 3, 12, 0, 1]),
        seed: rng.u32(),
        sampler: rng.pick(&[SamplerKind::PaddedHalton, SamplerKind::Pcg]),
        rr_threshold: rng.pick(&[0.05, 0.05, 0.0, 0.5]),
    }
}

/// The environments of the random scenes, by number.
#[derive(Clone, Copy, Debug)]
pub enum RandomEnvironment {
    /// A random map, rotated and scaled, some rows black.
    Map,
    /// A map that is black everywhere (uniform sampling).
    BlackMap,
    /// A single pixel.
    OnePixelMap,
    Constant,
    None,
}

fn random_environment(rng: &mut Rng, kind: RandomEnvironment) -> Environment {
    let rotation = Mat3::from_axis_angle(rng.direction(), rng.range(0.0, std::f32::consts::TAU));
    let map = |width: u32, height: u32, pixels: Vec<Vec3>, rng: &mut Rng| {
        Environment::Map(EnvMap::new(width, height, pixels, rotation, rng.pick(&[1.0, 0.5, 3.0])))
    };
    match kind {
        RandomEnvironment::Map => {
            let (width, height) = (1 + rng.below(24), 1 + rng.below(12));
            let black_row = rng.below(height);
            let pixels = (0..width * height)
                .map(|i| if i / width == black_row { Vec3::ZERO } else { draw::color(rng) * rng.range(0.0, 4.0) })
                .collect();
            map(width, height, pixels, rng)
        }
        RandomEnvironment::BlackMap => map(8, 4, vec![Vec3::ZERO; 32], rng),
        RandomEnvironment::OnePixelMap => map(1, 1, vec![Vec3::new(0.7, 0.5, 0.2)], rng),
        RandomEnvironment::Constant => Environment::Constant(draw::color(rng)),
        RandomEnvironment::None => Environment::None,
    }
}

fn random_texture(rng: &mut Rng, name: &str) -> Texture {
    let (width, height) = (2 + rng.below(6), 1 + rng.below(6));
    let pixels = (0..width * height).map(|_| draw::color(rng)).collect();
    Texture { name: name.to_string(), width, height, pixels }
}

/// A random scene: a floor, a wall and `loose` random triangles in the unit cube, every
/// material kind (textured ones among them) and emitters on both or one side, normals
/// or not, a random thin-lens camera, the given environment.
pub fn random_scene(seed: u64, environment: RandomEnvironment) -> Scene {
    let mut rng = Rng::new(seed);
    let mut scene = Scene { name: format!("random-{seed}-{environment:?}"), ..Scene::default() };
    scene.textures = vec![random_texture(&mut rng, "a"), random_texture(&mut rng, "b")];
    for kind in 0..=MaterialKind::ThinDielectric as u32 {
        let mut material = draw::material(&mut rng);
        material.kind = kind;
        if rng.chance(0.5) {
            material.base_color_texture = rng.below(2) as i32;
        }
        scene.materials.push(material);
    }
    // A normal map on about half the materials, from a stream of its own (the rest of the
    // scene does not change with it): mostly a normal map's bluish colours, some any colour.
    let mut normal_rng = Rng::new(seed ^ 0x4e04);
    let (width, height) = (2 + normal_rng.below(6), 1 + normal_rng.below(6));
    let pixels = (0..width * height)
        .map(|_| {
            if normal_rng.chance(0.2) {
                draw::color(&mut normal_rng)
            } else {
                Vec3::new(normal_rng.unit(), normal_rng.unit(), normal_rng.range(0.5, 1.0))
            }
        })
        .collect();
    scene.textures.push(Texture { name: "normals".into(), width, height, pixels });
    for material in &mut scene.materials {
        if normal_rng.chance(0.5) {
            material.normal_texture = 2;
        }
    }
    // A bump map on about half the materials without a normal map, and roughness and metallic
    // textures on about half, from a stream of their own: heights in [0, 1], scales of
    // either sign.
    let mut bump_rng = Rng::new(seed ^ 0xb0a9);
    let (width, height) = (1 + bump_rng.below(6), 1 + bump_rng.below(6));
    let pixels = (0..width * height).map(|_| Vec3::splat(bump_rng.unit())).collect();
    scene.textures.push(Texture { name: "heights".into(), width, height, pixels });
    for material in &mut scene.materials {
        if material.normal_texture < 0 && bump_rng.chance(0.5) {
            material.bump_texture = 3;
            material.bump_scale = bump_rng.range(-2.0, 2.0);
        }
        if bump_rng.chance(0.5) {
            material.roughness_texture = bump_rng.below(4) as i32;
            if bump_rng.chance(0.5) {
                material.flags |= warpath_core::material::flags::ROUGHNESS_TEXTURE_ALPHA;
            }
        }
        if bump_rng.chance(0.5) {
            material.metallic_texture = bump_rng.below(4) as i32;
        }
    }
    // Opacity masks on about half the materials, from a stream of their own too: a constant
    // (an edge value or any), an opacity texture (texture 4: any colour, its red channel read),
    // or both.
    let mut mask_rng = Rng::new(seed ^ 0x6a5c);
    let (width, height) = (2 + mask_rng.below(6), 1 + mask_rng.below(6));
    let pixels = (0..width * height).map(|_| draw::color(&mut mask_rng)).collect();
    scene.textures.push(Texture { name: "opacity".into(), width, height, pixels });
    for material in &mut scene.materials {
        if mask_rng.chance(0.5) {
            material.opacity = if mask_rng.chance(0.3) { mask_rng.pick(&[0.0, 0.5, 1.0]) } else { mask_rng.unit() };
            if mask_rng.chance(0.4) {
                material.opacity_texture = 4;
            }
        }
    }
    let emitter = Material::emitter(Vec3::new(4.0, 3.0, 2.0));
    scene.materials.push(emitter);
    scene.materials.push(Material { flags: flags::TWO_SIDED_EMISSION, ..emitter });
    scene.materials.push(Material::diffuse(Vec3::splat(0.5)).with_emission(Vec3::new(0.5, 1.0, 2.0)));
    let with_normals = rng.chance(0.5);
    let with_uvs = rng.chance(0.7);
    let add_triangle = |scene: &mut Scene, rng: &mut Rng, vertices: [Vec3; 3], material: u32| {
        let first = scene.positions.len() as u32;
        let geometric = (vertices[1] - vertices[0]).cross(vertices[2] - vertices[0]).normalize_or(Vec3::Y);
        for v in vertices {
            scene.positions.push(v);
            if with_normals {
                scene.normals.push((geometric + rng.point(0.4)).normalize_or(geometric));
            }
            if with_uvs {
                scene.uvs.push(Vec2::new(rng.range(-1.0, 2.0), rng.range(-1.0, 2.0)));
            }
        }
        scene.triangles.push([first, first + 1, first + 2]);
        scene.triangle_materials.push(material);
    };
    let material_count = scene.materials.len() as u32;
    let (a, b, c, d) = (
        Vec3::new(-3.0, -1.0, -3.0),
        Vec3::new(3.0, -1.0, -3.0),
        Vec3::new(3.0, -1.0, 3.0),
        Vec3::new(-3.0, -1.0, 3.0),
    );
    add_triangle(&mut scene, &mut rng, [a, c, b], 0);
    add_triangle(&mut scene, &mut rng, [a, d, c], 0);
    let (e, f) = (Vec3::new(-3.0, 3.0, -3.0), Vec3::new(3.0, 3.0, -3.0));
    for wall in [[a, b, f], [a, f, e]] {
        let material = rng.below(material_count);
        add_triangle(&mut scene, &mut rng, wall, material);
    }
    for _ in 0..40 {
        let center = rng.point(1.0);
        let size = rng.range(0.1, 0.8);
        let vertices = [center + rng.point(size), center + rng.point(size), center + rng.point(size)];
        let material = rng.below(material_count);
        add_triangle(&mut scene, &mut rng, vertices, material);
    }
    scene.environment = random_environment(&mut rng, environment);
    scene.delta_lights = random_delta_lights(seed);
    let origin = rng.direction() * rng.range(3.0, 5.0) + Vec3::new(0.0, 1.0, 0.0);
    let mut camera = Camera::look_at(origin, rng.point(0.3), Vec3::Y, rng.range(20.0, 70.0));
    camera.fov_axis = rng.pick(&[FovAxis::X, FovAxis::Y, FovAxis::Smaller, FovAxis::Larger]);
    if rng.chance(0.5) {
        camera.aperture_radius = rng.range(0.01, 0.2);
        camera.focus_distance = rng.range(1.0, 6.0);
    }
    scene.camera = camera;
    let (width, height) = (16 + rng.below(48), 16 + rng.below(48));
    scene.settings = small_settings(&mut rng, width, height);
    scene
}

/// A point, a spot (some shading points in its ramp, some outside its cone) and a directional
/// light, from their own random stream (so the rest of a random scene does not change with
/// them); none for a third of the seeds.
pub fn random_delta_lights(seed: u64) -> Vec<DeltaLight> {
    let mut rng = Rng::new(seed ^ 0xde17a);
    if seed % 3 == 2 {
        return Vec::new();
    }
    let spot_position = Vec3::new(0.0, 2.5, 0.0) + rng.point(0.5);
    vec![
        DeltaLight::point(Vec3::new(0.0, 2.0, 1.0) + rng.point(0.5), draw::color(&mut rng) * 3.0),
        DeltaLight::spot(
            spot_position,
            rng.point(0.5) - spot_position,
            draw::color(&mut rng) * 5.0,
            rng.range(20.0, 50.0),
            rng.range(0.0, 20.0),
        ),
        DeltaLight::directional(Vec3::new(0.3, -1.0, 0.2) + rng.point(0.3), draw::color(&mut rng)),
    ]
}

/// A built-in scene with a small film and the given seed.
fn builtin_scene(mut scene: Scene, seed: u64) -> Scene {
    let mut rng = Rng::new(seed);
    scene.settings = RenderSettings { max_depth: 8, ..small_settings(&mut rng, 48, 40) };
    scene
}

/// Every scene of the tests: the empty one first.
pub fn test_scenes() -> Vec<HostScene> {
    let empty = Scene {
        name: "empty".into(),
        settings: RenderSettings { width: 8, height: 8, ..Default::default() },
        ..Scene::default()
    };
    let mut scenes = vec![
        empty,
        builtin_scene(builtin::cornell(), 1),
        builtin_scene(builtin::cornell_glass(), 2),
        builtin_scene(builtin::furnace(0.8), 3),
    ];
    let environments = [
        RandomEnvironment::Map,
        RandomEnvironment::Map,
        RandomEnvironment::BlackMap,
        RandomEnvironment::OnePixelMap,
        RandomEnvironment::Constant,
        RandomEnvironment::None,
    ];
    for (seed, &environment) in environments.iter().enumerate() {
        scenes.push(random_scene(100 + seed as u64, environment));
    }
    scenes.push(volume_scenes::media_scene(200));
    scenes.push(volume_scenes::cloud_scene(201));
    scenes.push(volume_scenes::dense_scene(202));
    scenes.push(volume_scenes::fog_scene(203));
    // The fog lit by point, spot and directional lights too (the volumetric estimator's
    // next-event estimation of delta lights, through the medium).
    let mut lit_fog = volume_scenes::fog_scene(204);
    lit_fog.name = format!("{}-delta-lights", lit_fog.name);
    lit_fog.delta_lights = random_delta_lights(204);
    scenes.push(lit_fog);
    // The cloud with opacity masks: the glass sphere around the ink (a pass-through enters the
    // ink as a null boundary would) and the floor under a random opacity texture.
    let mut masked = volume_scenes::cloud_scene(205);
    masked.name = format!("{}-masked", masked.name);
    let mut mask_rng = Rng::new(205);
    let pixels = (0..12).map(|_| draw::color(&mut mask_rng)).collect();
    masked.textures.push(Texture { name: "opacity".into(), width: 4, height: 3, pixels });
    let opacity_texture = masked.textures.len() as i32 - 1;
    for m in &mut masked.materials {
        match m.kind() {
            MaterialKind::Glass => m.opacity = 0.6,
            MaterialKind::Diffuse => (m.opacity, m.opacity_texture) = (0.9, opacity_texture),
            _ => {}
        }
    }
    scenes.push(masked);
    // Two imported Mitsuba 3 scenes of the oracle's set: named metals by complex index of
    // refraction (one tinted by a bitmap) and Beckmann rough conductors and glass, under an
    // environment map and an area light, as the importer lays them out.
    for name in ["bsdf-conductor-named", "bsdf-beckmann"] {
        let path = format!("{}/../warpath-scene/tests/data/mitsuba-oracle/{name}.xml", env!("CARGO_MANIFEST_DIR"));
        let scene = warpath_scene::load(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        scenes.push(builtin_scene(scene, 300));
    }
    scenes.into_iter().map(HostScene::new).collect()
}
