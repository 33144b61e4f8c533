//! Opacity masks (Mitsuba's `mask`, `warpath_core::opacity`) against closed forms, on the
//! surface and the volumetric path tracers. Squares of the plane z = 0 (and z = −1) fill the
//! image in a uniform environment of radiance 1:
//!
//! - a black square of opacity α: a camera sample is 1 (the null lobe, then the sky) with
//!   probability 1 − α, else 0: the image mean is 1 − α (a z-test of the pass-through
//!   probability); α = 0 makes the square invisible to every sample (exactly 1);
//! - a diffuse square of albedo ρ: (1 − α) + α ρ;
//! - two black squares one behind the other at max_depth 1: the surface path tracer counts the
//!   pass-through as a bounce (Mitsuba's `path`), so no sample reaches the sky past the second
//!   square (exactly 0); the volumetric one does not (Mitsuba's `volpath`): (1 − α)²;
//! - opacity 1 (from an all-ones opacity texture) renders the material's image bit for bit.

use glam::{Mat4, Vec2, Vec3};
use std::sync::atomic::AtomicBool;
use warpath_bvh::BuildKind;
use warpath_core::camera::Camera;
use warpath_core::film::Film;
use warpath_core::light::Environment;
use warpath_core::material::Material;
use warpath_core::sampler::SamplerKind;
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_scene::{RenderSettings, Scene, Texture};

/// Squares [-20, 20]² at the given depths (z), material `material[k]`, seen from z = 5; with
/// `volume`, a tiny null triangle far behind the camera makes the scene the volumetric
/// estimator's.
fn squares(materials: &[Material], depths: &[f32], max_depth: u32, volume: bool) -> Scene {
    let square = warpath_scene::builtin::rectangle_mesh();
    let mut scene = Scene {
        name: "masked squares".into(),
        materials: materials.to_vec(),
        material_names: (0..materials.len()).map(|k| format!("m{k}")).collect(),
        environment: Environment::Constant(Vec3::ONE),
        camera: Camera::look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y, 30.0),
        settings: RenderSettings {
            width: 8,
            height: 8,
            spp: 256,
            max_depth,
            seed: 5,
            sampler: SamplerKind::Pcg,
            rr_threshold: 0.05,
        },
        ..Default::default()
    };
    for (k, &z) in depths.iter().enumerate() {
        let to_world = Mat4::from_translation(Vec3::new(0.0, 0.0, z)) * Mat4::from_scale(Vec3::new(20.0, 20.0, 1.0));
        let base = scene.positions.len() as u32;
        scene.positions.extend(square.positions.iter().map(|&p| to_world.transform_point3(p)));
        scene.uvs.extend(&square.uvs);
        scene.triangles.extend(square.triangles.iter().map(|t| t.map(|i| i + base)));
        scene.triangle_materials.extend(std::iter::repeat_n(k.min(materials.len() - 1) as u32, square.triangles.len()));
    }
    if volume {
        scene.materials.push(Material::null());
        scene.material_names.push("null".into());
        let base = scene.positions.len() as u32;
        scene.positions.extend([Vec3::new(0.0, 0.0, 50.0), Vec3::new(0.01, 0.0, 50.0), Vec3::new(0.0, 0.01, 50.0)]);
        scene.uvs.extend([Vec2::ZERO; 3]);
        scene.triangles.push([base, base + 1, base + 2]);
        scene.triangle_materials.push(scene.materials.len() as u32 - 1);
    }
    scene
}

fn render(scene: &Scene, expected_estimator: &str) -> Film {
    let renderer = CpuRenderer::new(scene, BuildKind::Sah);
    assert_eq!(renderer.estimator_name(), expected_estimator);
    renderer.render(&RenderOptions::from_scene(scene), &AtomicBool::new(false), |_| {}).0
}

/// The image mean and its standard error (channel 0; every channel is alike here).
fn mean(film: &Film) -> (f64, f64) {
    let (mean, variance) = (film.mean(), film.variance_of_mean());
    let n = mean.len() as f64;
    let m = mean.iter().map(|c| c.x as f64).sum::<f64>() / n;
    let v = variance.iter().map(|c| c.x as f64).sum::<f64>() / (n * n);
    (m, v.sqrt())
}

const SURFACE: &str = "path tracer";
const VOLUME: &str = "volumetric path tracer";

fn assert_mean(scene: &Scene, estimator: &str, expected: f64, what: &str) {
    let (m, e) = mean(&render(scene, estimator));
    eprintln!("{what} ({estimator}): {m} ± {e}, expected {expected}");
    assert!((m - expected).abs() <= 4.0 * e + 1e-6, "{what} ({estimator}): {m} ± {e}, expected {expected}");
    assert!(e > 0.0 || m == expected, "{what}: no noise but {m} ≠ {expected}");
}

#[test]
fn the_null_lobe_is_taken_with_probability_one_minus_opacity() {
    for (estimator, volume) in [(SURFACE, false), (VOLUME, true)] {
        for alpha in [0.3f32, 0.75] {
            let black = Material::black().with_opacity(alpha, -1);
            assert_mean(&squares(&[black], &[0.0], 4, volume), estimator, 1.0 - alpha as f64, "black square");
            let rho = 0.6f32;
            let diffuse = Material::diffuse(Vec3::splat(rho)).with_opacity(alpha, -1);
            let expected = (1.0 - alpha as f64) + alpha as f64 * rho as f64;
            assert_mean(&squares(&[diffuse], &[0.0], 4, volume), estimator, expected, "diffuse square");
        }
    }
}

#[test]
fn opacity_zero_is_invisible_to_every_sample() {
    for (estimator, volume) in [(SURFACE, false), (VOLUME, true)] {
        let square = Material::diffuse(Vec3::splat(0.6)).with_opacity(0.0, -1);
        let film = render(&squares(&[square], &[0.0], 4, volume), estimator);
        let means = film.mean();
        assert!(means.iter().all(|p| *p == Vec3::ONE), "{estimator}: an opacity-0 square is seen: {:?}", means[0]);
    }
}

#[test]
fn a_pass_through_is_a_bounce_of_the_path_tracer_and_no_vertex_of_the_volumetric_one() {
    let alpha = 0.5f32;
    let black = Material::black().with_opacity(alpha, -1);
    // max_depth 1: the surface estimator's pass-through at the first square is its one bounce.
    let (m, _) = mean(&render(&squares(&[black], &[0.0, -1.0], 1, false), SURFACE));
    assert_eq!(m, 0.0, "path tracer: the sky past two masks at max_depth 1");
    let behind_both = (1.0 - alpha as f64).powi(2);
    assert_mean(&squares(&[black], &[0.0, -1.0], 2, false), SURFACE, behind_both, "two squares, max_depth 2");
    assert_mean(&squares(&[black], &[0.0, -1.0], 1, true), VOLUME, behind_both, "two squares, max_depth 1");
}

#[test]
fn opacity_one_renders_the_material_bit_for_bit() {
    for (estimator, volume) in [(SURFACE, false), (VOLUME, true)] {
        let material = Material::diffuse(Vec3::new(0.6, 0.5, 0.4));
        let opaque = squares(&[material], &[0.0], 4, volume);
        let mut masked = opaque.clone();
        masked.textures.push(Texture { name: "ones".into(), width: 2, height: 2, pixels: vec![Vec3::ONE; 4] });
        masked.materials[0] = material.with_opacity(1.0, 0);
        assert!(masked.materials[0].is_masked());
        let (a, b) = (render(&opaque, estimator), render(&masked, estimator));
        assert!(a.sum == b.sum, "{estimator}: opacity 1 changed the image");
    }
}
