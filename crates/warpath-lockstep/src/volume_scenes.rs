//! The scenes of the `volume_` cases: one scene that only holds media (every kind the
//! device record distinguishes: homogeneous gray and spectral, with a zero channel, empty;
//! grids with constant, gray-grid and RGB-grid albedos, identity, rotated and sheared
//! placements, one global majorant or cells of 1, 2 or 3 voxels, empty cells), and three
//! small scenes for the volumetric path tracer, written as TOML and parsed by
//! `warpath_scene::toml_scene::parse_toml_scene` as a user's scene would be: a lumpy cloud
//! behind a null cube next to a glass sphere of ink (media changed by refraction), a dense
//! medium behind a rough dielectric without Russian roulette, and a camera inside a spectral
//! fog around a null sphere of rotated smoke, under an environment map.

use crate::words::Rng;
use glam::{Mat3, Mat4, Vec3};
use std::path::Path;
use std::sync::Arc;
use warpath_core::light::{EnvMap, Environment};
use warpath_scene::{RenderSettings, Scene};
use warpath_volume::{Medium, MediumAlbedo, VolumeGrid};

/// A smooth, lumpy density: a few random Gaussian blobs, and a share of exactly empty voxels
/// (so that whole majorant cells can be 0).
pub fn lumpy_grid(rng: &mut Rng, resolution: [u32; 3], empty_share: f32) -> VolumeGrid {
    let blobs: Vec<(Vec3, f32, f32)> =
        (0..3).map(|_| (rng.point(0.5) + Vec3::splat(0.5), rng.range(4.0, 20.0), rng.range(0.5, 3.0))).collect();
    let empty = (0..resolution.iter().product::<u32>()).map(|_| rng.chance(empty_share)).collect::<Vec<_>>();
    let mut index = 0;
    VolumeGrid::from_fn(resolution, |i, j, k| {
        let p = Vec3::new(i as f32, j as f32, k as f32) / Vec3::from_array(resolution.map(|n| n as f32));
        let value: f32 =
            blobs.iter().map(|&(c, sharpness, height)| height * (-(p - c).length_squared() * sharpness).exp()).sum();
        index += 1;
        if empty[index - 1] { 0.0 } else { value }
    })
}

/// An albedo grid of `channels` (1 or 3) values in [0.2, 1].
pub fn albedo_grid(rng: &mut Rng, resolution: [u32; 3], channels: u32) -> VolumeGrid {
    let count = (resolution.iter().product::<u32>() * channels) as usize;
    let data = (0..count).map(|_| rng.range(0.2, 1.0)).collect();
    VolumeGrid::new(resolution, channels, data).expect("an albedo grid of whole voxels")
}

/// The scene of the medium-level cases: media only (see the module doc).
pub fn media_scene(seed: u64) -> Scene {
    let mut rng = Rng::new(seed);
    let homogeneous = |name: &str, sigma_t: Vec3, albedo: Vec3, g: f32| {
        Medium::homogeneous(name, sigma_t, albedo, g).expect("a valid homogeneous medium")
    };
    let mut media = vec![
        homogeneous("gray", Vec3::splat(1.7), Vec3::new(0.8, 0.7, 0.6), 0.3),
        homogeneous("spectral", Vec3::new(0.4, 1.3, 3.1), Vec3::new(0.9, 0.5, 0.2), -0.6),
        Medium::from_coefficients("zero-channel", Vec3::new(0.0, 0.5, 1.0), Vec3::new(0.0, 1.0, 0.5), 0.0)
            .expect("a valid medium"),
        homogeneous("empty", Vec3::ZERO, Vec3::splat(0.5), 0.9),
    ];
    let rotation = Mat4::from_axis_angle(rng.direction(), rng.range(0.3, 2.5));
    let grids = [
        // (resolution, empty voxels, albedo, placement, voxels per majorant cell, scale)
        ([9, 7, 6], 0.0, MediumAlbedo::Constant(Vec3::new(0.9, 0.8, 0.7)), Mat4::IDENTITY, 2, 3.0),
        (
            [5, 6, 4],
            0.1,
            MediumAlbedo::Grid(Arc::new(albedo_grid(&mut rng, [3, 3, 3], 1))),
            Mat4::from_translation(Vec3::new(0.3, -0.2, 0.1)) * rotation * Mat4::from_scale(Vec3::new(1.5, 0.8, 1.1)),
            0,
            4.0,
        ),
        (
            [6, 5, 7],
            0.0,
            MediumAlbedo::Grid(Arc::new(albedo_grid(&mut rng, [4, 3, 5], 3))),
            Mat4::from_cols_array(&[1.2, 0.1, 0.0, 0.0, 0.3, 0.9, 0.2, 0.0, 0.0, -0.2, 1.4, 0.0, -0.5, 0.2, 0.3, 1.0]),
            1,
            2.0,
        ),
        ([8, 8, 8], 0.5, MediumAlbedo::Constant(Vec3::splat(0.95)), Mat4::from_scale(Vec3::splat(2.0)), 3, 5.0),
    ];
    for (n, (resolution, empty, albedo, to_world, cells, scale)) in grids.into_iter().enumerate() {
        let density = Arc::new(lumpy_grid(&mut rng, resolution, empty));
        let g = rng.range(-0.8, 0.8);
        media.push(
            Medium::grid(&format!("grid-{n}"), density, scale, albedo, g, to_world, cells).expect("a valid grid"),
        );
    }
    Scene {
        name: "media".into(),
        media,
        settings: RenderSettings { width: 8, height: 8, ..Default::default() },
        ..Scene::default()
    }
}

fn parse(text: &str, name: &str) -> Scene {
    let mut scene = warpath_scene::toml_scene::parse_toml_scene(text, Path::new(name))
        .unwrap_or_else(|e| panic!("the lockstep scene {name} parses: {e}"));
    scene.name = name.trim_end_matches(".toml").to_string();
    scene
}

/// Replaces medium `index` (a grid placed by the TOML) by a lumpy grid with `albedo`.
fn lumpy_medium(
    scene: &mut Scene,
    rng: &mut Rng,
    index: usize,
    resolution: [u32; 3],
    albedo: MediumAlbedo,
    cells: u32,
) {
    let old = &scene.media[index];
    let density = Arc::new(lumpy_grid(rng, resolution, 0.05));
    scene.media[index] = Medium::grid(&old.name.clone(), density, 2.0, albedo, old.g, old.to_world, cells)
        .expect("a valid lumpy medium");
}

/// A lumpy cloud with an RGB albedo grid behind a null cube, a glass sphere of spectral ink,
/// a floor, an area light and a constant sky.
pub fn cloud_scene(seed: u64) -> Scene {
    let text = r#"
[render]
width = 24
height = 20
max_depth = 12

[camera]
look_at = { origin = [0.2, 1.2, 5.0], target = [0, 0, 0] }
fov = 45

[[material]]
name = "boundary"
type = "null"

[[material]]
name = "glass"
type = "glass"
ior = 1.4

[[material]]
name = "floor"
type = "diffuse"
base_color = [0.6, 0.6, 0.5]

[[material]]
name = "lamp"
type = "black"
emission = [10, 9, 7]

[[medium]]
name = "cloud"
type = "grid"
density = { constant = 1.0, resolution = [2, 2, 2] }
g = 0.4
bounds = [[-1.7, -0.8, -0.8], [0.1, 1.0, 0.8]]

[[medium]]
name = "ink"
type = "homogeneous"
sigma_t = [1.2, 2.0, 3.5]
albedo = [0.9, 0.7, 0.5]
g = -0.3

[[shape]]
type = "cube"
material = "boundary"
interior = "cloud"
translate = [-0.8, 0.1, 0]
scale = [0.9, 0.9, 0.8]

[[shape]]
type = "sphere"
subdivisions = 2
material = "glass"
interior = "ink"
translate = [1.0, -0.2, 0.3]
scale = 0.6

[[shape]]
type = "rectangle"
material = "floor"
translate = [0, -0.8, 0]
rotate = { axis = [1, 0, 0], angle = -90 }
scale = 4

[[shape]]
type = "rectangle"
material = "lamp"
translate = [0.4, 2.6, 0.4]
rotate = { axis = [1, 0, 0], angle = 90 }
scale = 0.5

[environment]
type = "constant"
radiance = [0.3, 0.35, 0.45]
"#;
    let mut scene = parse(text, "volume-cloud.toml");
    let mut rng = Rng::new(seed);
    let albedo = MediumAlbedo::Grid(Arc::new(albedo_grid(&mut rng, [4, 4, 4], 3)));
    lumpy_medium(&mut scene, &mut rng, 0, [10, 8, 7], albedo, 3);
    scene.settings.seed = rng.u32();
    scene
}

/// A dense medium (density 60, albedo 0.9) behind a rough dielectric cube, a constant sky,
/// no Russian roulette: long walks inside, many tentative collisions per step.
pub fn dense_scene(seed: u64) -> Scene {
    let text = r#"
[render]
width = 16
height = 16
max_depth = 16
rr_threshold = 0

[camera]
look_at = { origin = [2.0, 1.5, 2.8], target = [0, 0, 0] }
fov = 35

[[material]]
name = "coating"
type = "rough-dielectric"
ior = 1.05
roughness = 0.3

[[medium]]
name = "print"
type = "grid"
density = { constant = 60.0, resolution = [6, 6, 6] }
albedo = 0.9
majorant_cell = 2
bounds = [[-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]]

[[shape]]
type = "cube"
material = "coating"
interior = "print"
scale = 0.5

[environment]
type = "constant"
radiance = 1
"#;
    let mut scene = parse(text, "volume-dense.toml");
    scene.settings.seed = Rng::new(seed).u32();
    scene
}

/// The camera inside an unbounded spectral fog; a null sphere holds smoke (a lumpy grid with
/// a gray albedo grid, rotated, one global majorant) and opens onto the fog; a floor, a
/// one-sided card, a glossy sphere, a two-sided lamp and an environment map.
pub fn fog_scene(seed: u64) -> Scene {
    let text = r#"
[render]
width = 20
height = 16
max_depth = 10

[camera]
look_at = { origin = [0, 0.8, 4.5], target = [0, 0.2, 0] }
fov = 50
medium = "fog"

[[material]]
name = "boundary"
type = "null"

[[material]]
name = "ground"
type = "diffuse"
base_color = [0.5, 0.55, 0.5]

[[material]]
name = "card"
type = "diffuse"
base_color = [0.8, 0.3, 0.2]
one_sided = true

[[material]]
name = "shiny"
type = "blinn"
base_color = [0.2, 0.3, 0.6]
specular = 0.4
exponent = 60

[[material]]
name = "lamp"
type = "black"
emission = [6, 6, 8]
two_sided_emission = true

[[medium]]
name = "fog"
type = "homogeneous"
sigma_t = [0.05, 0.08, 0.12]
albedo = [0.9, 0.9, 0.8]
g = 0.5

[[medium]]
name = "smoke"
type = "grid"
density = { constant = 1.0, resolution = [2, 2, 2] }
g = -0.2
majorant_cell = 0
translate = [-0.9, -0.3, -0.6]
rotate = { axis = [0.3, 1, 0.2], angle = 35 }
size = [1.5, 1.3, 1.4]

[[shape]]
type = "sphere"
subdivisions = 2
material = "boundary"
interior = "smoke"
exterior = "fog"
translate = [-0.2, 0.3, 0]
scale = 0.8

[[shape]]
type = "rectangle"
material = "ground"
translate = [0, -0.6, 0]
rotate = { axis = [1, 0, 0], angle = -90 }
scale = 5

[[shape]]
type = "rectangle"
material = "card"
translate = [1.4, 0.2, -0.5]
rotate = { axis = [0, 1, 0], angle = 200 }
scale = 0.5

[[shape]]
type = "sphere"
subdivisions = 2
material = "shiny"
translate = [1.1, -0.25, 0.8]
scale = 0.35

[[shape]]
type = "rectangle"
material = "lamp"
translate = [-0.5, 2.2, 0.5]
rotate = { axis = [1, 0, 0], angle = 80 }
scale = 0.4
"#;
    let mut scene = parse(text, "volume-fog.toml");
    let mut rng = Rng::new(seed);
    let albedo = MediumAlbedo::Grid(Arc::new(albedo_grid(&mut rng, [3, 4, 3], 1)));
    lumpy_medium(&mut scene, &mut rng, 1, [7, 6, 8], albedo, 0);
    let (width, height) = (12, 6);
    let pixels =
        (0..width * height).map(|_| Vec3::new(rng.unit(), rng.unit(), rng.unit()) * rng.range(0.0, 2.0)).collect();
    let rotation = Mat3::from_axis_angle(rng.direction(), rng.range(0.0, std::f32::consts::TAU));
    scene.environment = Environment::Map(EnvMap::new(width, height, pixels, rotation, 0.8));
    scene.settings.seed = rng.u32();
    scene
}
