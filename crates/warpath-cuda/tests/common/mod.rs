//! Scenes and settings shared by the GPU render tests.
#![allow(dead_code)]

use glam::{Mat3, Vec2, Vec3};
use warpath_core::camera::Camera;
use warpath_core::light::{DeltaLight, EnvMap, Environment};
use warpath_core::material::Material;
use warpath_core::sampler::SamplerKind;
use warpath_cuda::runtime::{CudaDevice, test_device};
use warpath_scene::{RenderSettings, Scene, Texture};
use warpath_testkit::scene_text;

pub fn device() -> Option<CudaDevice> {
    test_device().unwrap_or_else(|error| panic!("WARPATH_REQUIRE_GPU=1 or a broken device: {error}"))
}

pub fn settings(width: u32, height: u32, spp: u32, seed: u32, sampler: SamplerKind) -> RenderSettings {
    RenderSettings { width, height, spp, max_depth: 8, seed, sampler, rr_threshold: 0.05 }
}

/// Adds a mesh to `scene` with per-vertex normals and uvs.
pub fn add_mesh(
    scene: &mut Scene,
    positions: &[Vec3],
    normals: &[Vec3],
    uvs: &[Vec2],
    tris: &[[u32; 3]],
    material: u32,
) {
    let base = scene.positions.len() as u32;
    scene.positions.extend_from_slice(positions);
    scene.normals.extend_from_slice(normals);
    scene.uvs.extend_from_slice(uvs);
    for t in tris {
        scene.triangles.push([t[0] + base, t[1] + base, t[2] + base]);
        scene.triangle_materials.push(material);
    }
}

pub fn add_sphere(scene: &mut Scene, center: Vec3, radius: f32, material: u32) {
    let sphere = warpath_scene::builtin::sphere_mesh(2);
    let (unit, tris) = (sphere.positions, sphere.triangles);
    let positions: Vec<Vec3> = unit.iter().map(|&p| center + p * radius).collect();
    let uvs: Vec<Vec2> = unit.iter().map(|p| Vec2::new(0.5 + 0.5 * p.x, 0.5 + 0.5 * p.y)).collect();
    add_mesh(scene, &positions, &unit, &uvs, &tris, material);
}

pub fn add_quad(scene: &mut Scene, corners: [Vec3; 4], uv_scale: f32, material: u32) {
    let normal = (corners[1] - corners[0]).cross(corners[2] - corners[0]).normalize();
    let uvs = [Vec2::ZERO, Vec2::new(uv_scale, 0.0), Vec2::splat(uv_scale), Vec2::new(0.0, uv_scale)];
    add_mesh(scene, &corners, &[normal; 4], &uvs, &[[0, 1, 2], [0, 2, 3]], material);
}

/// A synthetic HDR sky: a gradient, a bright sun and a coloured band, rotated about y.
pub fn environment_map() -> EnvMap {
    let (w, h) = (32u32, 16u32);
    let mut pixels = Vec::with_capacity((w * h) as usize);
    for row in 0..h {
        for column in 0..w {
            let v = (row as f32 + 0.5) / h as f32;
            let mut p = Vec3::new(0.3, 0.4, 0.6) * (1.2 - v) + Vec3::splat(0.05);
            if (row, column) == (4, 9) || (row, column) == (4, 10) {
                p = Vec3::new(60.0, 50.0, 35.0);
            }
            if row == 9 && column % 4 == 0 {
                p = Vec3::new(2.0, 0.3, 0.2);
            }
            pixels.push(p);
        }
    }
    EnvMap::new(w, h, pixels, Mat3::from_rotation_y(0.7), 1.3)
}

/// Every material kind under an environment map and a small area light, with a textured
/// floor, shading normals, a one-sided card seen from behind and a thin-lens camera.
/// A point light, a spot whose cone's rim crosses the scene and a directional light, for
/// `scene` (whose geometry sits around the origin within a few units).
pub fn delta_lights() -> Vec<DeltaLight> {
    vec![
        DeltaLight::point(Vec3::new(1.0, 2.5, 1.5), Vec3::new(6.0, 5.0, 4.0)),
        DeltaLight::spot(
            Vec3::new(-1.5, 3.0, 1.0),
            Vec3::new(0.5, -1.0, -0.3),
            Vec3::new(10.0, 12.0, 14.0),
            35.0,
            15.0,
        ),
        DeltaLight::directional(Vec3::new(-0.4, -1.0, -0.3), Vec3::new(1.2, 1.0, 0.8)),
    ]
}

/// [`material_scene`] lit by [`delta_lights`] too.
pub fn delta_light_scene() -> Scene {
    let mut scene = material_scene();
    scene.name = "gpu-megakernel-delta-lights".into();
    scene.delta_lights = delta_lights();
    scene
}

/// [`delta_light_scene`] with three more spheres in front: a smooth plastic (textured base),
/// a rough nonlinear plastic and a rough plastic with a tinted coat.
pub fn plastic_scene() -> Scene {
    let mut scene = delta_light_scene();
    scene.name = "gpu-megakernel-plastics".into();
    let first = scene.materials.len() as u32;
    scene.materials.extend([
        Material { base_color_texture: 0, ..Material::plastic(Vec3::ONE, Vec3::ONE, 1.49, 0.0, false) },
        Material::plastic(Vec3::new(0.6, 0.2, 0.1), Vec3::ONE, 1.6, 0.35, true),
        Material::plastic(Vec3::new(0.1, 0.3, 0.6), Vec3::new(0.9, 0.8, 0.5), 1.5, 0.15, false),
    ]);
    scene.material_names.extend(["plastic", "rough-plastic", "tinted-plastic"].map(String::from));
    for (k, x) in [-1.6f32, 0.0, 1.6].into_iter().enumerate() {
        add_sphere(&mut scene, Vec3::new(x, -0.65, 2.4), 0.35, first + k as u32);
    }
    scene
}

/// [`delta_light_scene`] with four principled spheres in front: a textured base with clear
/// coat, sheen and flatness; a metal; a transmitting one (rough glass tinted by its base); and
/// a mix of transmission, metal and diffuse; and a tinted thin dielectric sphere above them.
pub fn principled_scene() -> Scene {
    let mut scene = delta_light_scene();
    scene.name = "gpu-megakernel-principled".into();
    let first = scene.materials.len() as u32;
    let mut coated = Material { base_color_texture: 0, ..Material::principled(Vec3::ONE, 0.4, 1.5) };
    (coated.clearcoat, coated.clearcoat_gloss, coated.sheen, coated.sheen_tint) = (0.8, 0.6, 0.7, 0.5);
    (coated.spec_tint, coated.flatness) = (0.4, 0.3);
    let mut metal = Material::principled(Vec3::new(0.9, 0.6, 0.3), 0.3, 1.5);
    metal.metallic = 1.0;
    let mut glass = Material::principled(Vec3::new(0.9, 0.8, 0.6), 0.2, 1.5);
    glass.spec_trans = 1.0;
    let mut mixed = Material::principled(Vec3::new(0.2, 0.5, 0.7), 0.5, 1.33);
    (mixed.spec_trans, mixed.metallic, mixed.clearcoat) = (0.5, 0.3, 0.5);
    let thin = Material { specular: Vec3::new(0.6, 0.9, 0.8), ..Material::thin_dielectric(1.5) };
    scene.materials.extend([coated, metal, glass, mixed, thin]);
    scene.material_names.extend(["coated", "metal", "glass", "mixed", "thin"].map(String::from));
    for (k, x) in [-1.8f32, -0.6, 0.6, 1.8].into_iter().enumerate() {
        add_sphere(&mut scene, Vec3::new(x, -0.65, 2.4), 0.35, first + k as u32);
    }
    add_sphere(&mut scene, Vec3::new(0.0, 0.1, 2.4), 0.3, first + 4);
    scene
}

pub fn material_scene() -> Scene {
    let mut scene = Scene { name: "gpu-megakernel-materials".into(), ..Default::default() };
    let materials = [
        Material { base_color_texture: 0, ..Material::diffuse(Vec3::splat(0.8)) },
        Material::glass(1.5),
        Material::rough_dielectric(1.4, 0.3),
        Material::rough_conductor(Vec3::new(0.9, 0.6, 0.3), 0.35),
        Material::chrome(),
        Material::blinn(Vec3::new(0.4, 0.2, 0.1), Vec3::splat(0.4), 40.0),
        Material::car_paint(Vec3::new(0.1, 0.2, 0.5), Vec3::splat(0.3), 60.0, 1.5),
        Material::emitter(Vec3::new(8.0, 7.0, 6.0)),
        Material::diffuse(Vec3::new(0.7, 0.5, 0.3)).with_one_sided(),
    ];
    scene.materials = materials.to_vec();
    scene.material_names = (0..materials.len()).map(|i| format!("m{i}")).collect();
    let mut checker = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            checker.push(if (x + y) % 2 == 0 { Vec3::new(0.9, 0.9, 0.8) } else { Vec3::new(0.2, 0.3, 0.25) });
        }
    }
    scene.textures = vec![Texture { name: "checker".into(), width: 4, height: 4, pixels: checker }];
    add_quad(
        &mut scene,
        [
            Vec3::new(-4.0, -1.0, 4.0),
            Vec3::new(4.0, -1.0, 4.0),
            Vec3::new(4.0, -1.0, -4.0),
            Vec3::new(-4.0, -1.0, -4.0),
        ],
        3.0,
        0,
    );
    let spheres = [(-2.4, 1), (-1.2, 2), (0.0, 3), (1.2, 4), (2.4, 5)];
    for (x, material) in spheres {
        add_sphere(&mut scene, Vec3::new(x, -0.45, 0.0), 0.55, material);
    }
    add_sphere(&mut scene, Vec3::new(0.6, -0.6, 1.3), 0.4, 6);
    // A one-sided light facing down.
    add_quad(
        &mut scene,
        [Vec3::new(-0.5, 2.5, -0.5), Vec3::new(-0.5, 2.5, 0.5), Vec3::new(0.5, 2.5, 0.5), Vec3::new(0.5, 2.5, -0.5)],
        1.0,
        7,
    );
    // A one-sided card facing away from the camera: black from the camera's side, lit on the
    // far side (paths reach both faces).
    add_quad(
        &mut scene,
        [
            Vec3::new(-3.5, -1.0, -1.5),
            Vec3::new(-3.5, 0.5, -1.5),
            Vec3::new(-1.8, 0.5, -1.5),
            Vec3::new(-1.8, -1.0, -1.5),
        ],
        1.0,
        8,
    );
    scene.environment = Environment::Map(environment_map());
    let mut camera = Camera::look_at(Vec3::new(0.0, 1.2, 6.0), Vec3::new(0.0, -0.4, 0.0), Vec3::Y, 45.0);
    camera.aperture_radius = 0.05;
    scene.camera = camera;
    scene
}

/// A procedural tangent-space normal map (RGB = (n + 1) / 2): ridges across u, a lean along
/// v, leans of up to ~55°, so that grazing light meets flipped normals and the shadowing term.
pub fn wave_normal_map() -> Texture {
    let n = 16u32;
    let mut pixels = Vec::new();
    for row in 0..n {
        for column in 0..n {
            let (u, v) = ((column as f32 + 0.5) / n as f32, 1.0 - (row as f32 + 0.5) / n as f32);
            let normal = Vec3::new(1.4 * (std::f32::consts::TAU * 2.0 * u).sin(), 0.8 * v - 0.3, 1.0).normalize();
            pixels.push((normal + Vec3::ONE) * 0.5);
        }
    }
    Texture { name: "waves".into(), width: n, height: n, pixels }
}

/// `scene` with [`wave_normal_map`] on every material that scatters (the scene must have
/// texture coordinates).
pub fn with_normal_maps(mut scene: Scene) -> Scene {
    assert!(!scene.uvs.is_empty(), "{}: normal maps need texture coordinates", scene.name);
    scene.name = format!("{}-normal-mapped", scene.name);
    scene.textures.push(wave_normal_map());
    let texture = scene.textures.len() as i32 - 1;
    for m in &mut scene.materials {
        if !m.is_null() && !m.is_emissive() && m.kind != warpath_core::material::MaterialKind::Black as u32 {
            m.normal_texture = texture;
        }
    }
    scene
}

/// A 16 × 16 height map (gray): bumps of a sine product over u and v.
pub fn bump_height_map() -> Texture {
    let n = 16u32;
    let mut pixels = Vec::new();
    for row in 0..n {
        for column in 0..n {
            let (u, v) = ((column as f32 + 0.5) / n as f32, 1.0 - (row as f32 + 0.5) / n as f32);
            let h = 0.5 + 0.4 * (std::f32::consts::TAU * 2.0 * u).sin() * (std::f32::consts::TAU * v).cos();
            pixels.push(Vec3::splat(h));
        }
    }
    Texture { name: "bumps".into(), width: n, height: n, pixels }
}

/// `scene` with [`bump_height_map`] (scale 0.3) on every material that scatters, and a
/// roughness and a metallic texture (a ramp along u, stripes along v) on every material
/// (the kinds that read neither ignore them). The scene must have texture coordinates.
pub fn with_bump_and_data_textures(mut scene: Scene) -> Scene {
    assert!(!scene.uvs.is_empty(), "{}: bump maps need texture coordinates", scene.name);
    scene.name = format!("{}-bump-mapped", scene.name);
    scene.textures.push(bump_height_map());
    let bumps = scene.textures.len() as i32 - 1;
    let n = 8u32;
    let ramp = (0..n * n).map(|i| Vec3::splat(0.2 + 0.8 * ((i % n) as f32 + 0.5) / n as f32)).collect();
    scene.textures.push(Texture { name: "ramp".into(), width: n, height: n, pixels: ramp });
    let stripes = (0..n * n).map(|i| Vec3::splat(if (i / n / 2) % 2 == 0 { 0.1 } else { 0.9 })).collect();
    scene.textures.push(Texture { name: "stripes".into(), width: n, height: n, pixels: stripes });
    let (ramp, stripes) = (bumps + 1, bumps + 2);
    for m in &mut scene.materials {
        if !m.is_null() && !m.is_emissive() && m.kind != warpath_core::material::MaterialKind::Black as u32 {
            m.normal_texture = -1;
            *m = m.with_bump_texture(bumps, 0.3);
            m.roughness_texture = ramp;
            m.metallic_texture = stripes;
        }
    }
    scene
}

/// A 12×12 grey opacity map: an opaque disc with a soft rim in transparent corners, and a
/// few holes (R = G = B).
pub fn leaf_opacity_map() -> Texture {
    let n = 12u32;
    let mut pixels = Vec::new();
    for row in 0..n {
        for column in 0..n {
            let (x, y) = ((column as f32 + 0.5) / n as f32 - 0.5, (row as f32 + 0.5) / n as f32 - 0.5);
            let hole = (row + column) % 5 == 0;
            let a = if hole { 0.0 } else { ((0.45 - (x * x + y * y).sqrt()) / 0.1).clamp(0.0, 1.0) };
            pixels.push(Vec3::splat(a));
        }
    }
    Texture { name: "leaf".into(), width: n, height: n, pixels }
}

/// `scene` with opacity masks on every material that scatters: the first, third, … at a
/// constant opacity 0.5, the others cut out by [`leaf_opacity_map`] at opacity 0.9.
pub fn with_masks(mut scene: Scene) -> Scene {
    scene.name = format!("{}-masked", scene.name);
    scene.textures.push(leaf_opacity_map());
    let texture = scene.textures.len() as i32 - 1;
    let mut k = 0;
    for m in &mut scene.materials {
        if !m.is_null() && !m.is_emissive() && m.kind != warpath_core::material::MaterialKind::Black as u32 {
            *m = if k % 2 == 0 { m.with_opacity(0.5, -1) } else { m.with_opacity(0.9, texture) };
            k += 1;
        }
    }
    scene
}

/// Isosurfaces as shapes (issue 14) for the surface estimator's GPU tests: a floor, a
/// one-sided area light and an HDR environment map around four isosurfaces — the
/// Marschner–Lobb signal (41³, isovalue 0.5) in glass, a ball (minus the distance from the
/// centre, 33³) in car paint turned and stretched, the turbulence field (40³, isovalue 0.3) in
/// diffuse, and one whose isovalue is outside its volume's range (an empty tree).
pub fn isosurface_scene() -> Scene {
    use glam::Mat4;
    use std::sync::Arc;
    use warpath_isosurface::{Lattice, PlacedIsosurface, fields};
    use warpath_scene::SceneIsosurface;
    let mut scene = Scene { name: "gpu-isosurfaces".into(), ..Default::default() };
    scene.materials = vec![
        Material::diffuse(Vec3::new(0.6, 0.6, 0.55)),
        Material::glass(1.5),
        Material::car_paint(Vec3::new(0.5, 0.08, 0.05), Vec3::splat(0.3), 60.0, 1.5),
        Material::diffuse(Vec3::new(0.3, 0.5, 0.7)),
        Material::emitter(Vec3::new(8.0, 7.0, 6.0)),
    ];
    scene.material_names = (0..scene.materials.len()).map(|i| format!("m{i}")).collect();
    add_quad(
        &mut scene,
        [
            Vec3::new(-4.0, -1.0, 4.0),
            Vec3::new(4.0, -1.0, 4.0),
            Vec3::new(4.0, -1.0, -4.0),
            Vec3::new(-4.0, -1.0, -4.0),
        ],
        1.0,
        0,
    );
    add_quad(
        &mut scene,
        [Vec3::new(-0.5, 2.5, -0.5), Vec3::new(-0.5, 2.5, 0.5), Vec3::new(0.5, 2.5, 0.5), Vec3::new(0.5, 2.5, -0.5)],
        1.0,
        4,
    );
    let ball = {
        let c = 16.0f32;
        Lattice::from_fn([33, 33, 33], |i, j, k| {
            -((i as f32 - c).powi(2) + (j as f32 - c).powi(2) + (k as f32 - c).powi(2)).sqrt()
        })
        .unwrap()
    };
    let place = |x: f32| Mat4::from_translation(Vec3::new(x - 0.55, -1.0, -0.55)) * Mat4::from_scale(Vec3::splat(1.1));
    let shapes = [
        ("marschner-lobb", fields::marschner_lobb([41, 41, 41]), 0.5, 1, place(-1.3)),
        (
            "ball",
            ball.clone(),
            -13.0,
            2,
            Mat4::from_translation(Vec3::new(0.0, -0.45, 0.2))
                * Mat4::from_axis_angle(Vec3::new(0.3, 1.0, 0.2).normalize(), 0.6)
                * Mat4::from_scale(Vec3::new(1.3, 0.9, 1.1))
                * Mat4::from_translation(Vec3::splat(-0.5)),
        ),
        ("turbulence", fields::turbulence([40, 40, 40]), 0.3, 3, place(1.3)),
        ("empty", ball, 5.0, 3, place(0.0)),
    ];
    for (name, lattice, isovalue, material, to_world) in shapes {
        let surface = PlacedIsosurface::new(lattice, isovalue, to_world, 4);
        scene.isosurfaces.push(SceneIsosurface { name: name.into(), material, surface: Arc::new(surface) });
    }
    scene.environment = Environment::Map(environment_map());
    scene.camera = Camera::look_at(Vec3::new(0.0, 1.0, 5.0), Vec3::new(0.0, -0.4, 0.0), Vec3::Y, 45.0);
    scene
}

/// A heterogeneous volume scene for the volumetric estimator's GPU tests: a smooth, lumpy
/// density grid (HG g 0.5, an RGB albedo grid) behind a null cube, a glass sphere holding a
/// homogeneous tinted medium (media changed by BSDF transmission), a diffuse floor, an area
/// light and a constant sky; one tentative-collision-heavy and one light-transport-heavy part.
pub fn volume_scene() -> Scene {
    use std::sync::Arc;
    use warpath_volume::{Medium, MediumAlbedo, VolumeGrid};
    let text = scene_text("gpu-volume.toml");
    let mut scene = warpath_scene::toml_scene::parse_toml_scene(&text, std::path::Path::new("gpu-volume.toml"))
        .expect("the volume test scene parses");
    scene.name = "gpu-volume".into();
    // Replace the constant grid by a lumpy one with an RGB albedo grid.
    let density = Arc::new(VolumeGrid::from_fn([24, 20, 18], |i, j, k| {
        let (x, y, z) = (i as f32 / 23.0, j as f32 / 19.0, k as f32 / 17.0);
        let blob = (-((x - 0.4).powi(2) + (y - 0.5).powi(2) + (z - 0.5).powi(2)) * 9.0).exp();
        let ripple = 0.5 + 0.5 * (12.0 * x + 7.0 * y).sin() * (9.0 * z).cos();
        (3.0 * blob * ripple).max(0.0)
    }));
    let albedo_data: Vec<f32> = (0..8 * 8 * 8)
        .flat_map(|v| {
            let t = v as f32 / 511.0;
            [0.95 - 0.4 * t, 0.7 + 0.25 * t, 0.85]
        })
        .collect();
    let albedo = Arc::new(VolumeGrid::new([8, 8, 8], 3, albedo_data).expect("an 8³ RGB grid"));
    let old = &scene.media[0];
    scene.media[0] =
        Medium::grid("cloud", density, 2.5, MediumAlbedo::Grid(albedo), 0.5, old.to_world, 4).expect("a valid medium");
    scene
}

/// Seed 003's 3D-print setting at test size: a constant density of 100 (albedo 0.9) behind
/// a rough dielectric boundary (GGX α 0.1, interior 1.05 over exterior 1.01), a constant sky
/// of radiance 1, no other light, no Russian roulette.
pub fn dense_volume_scene() -> Scene {
    let text = scene_text("gpu-dense-volume.toml");
    let mut scene = warpath_scene::toml_scene::parse_toml_scene(&text, std::path::Path::new("gpu-dense.toml"))
        .expect("the dense volume test scene parses");
    scene.name = "gpu-dense-volume".into();
    scene
}
