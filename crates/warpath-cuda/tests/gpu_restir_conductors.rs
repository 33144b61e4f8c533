//! ReSTIR DI with conductors of a complex index (the exact conductor Fresnel,
//! `flags::CONDUCTOR_ETA_K`) and the Beckmann distribution (`flags::BECKMANN`) on the GPU
//! against the CPU reference. ReSTIR's G-buffer keeps a pixel's material index, and its
//! kernels read the material from the scene (`restir_material`), so eta, k and the flags
//! reach every target function and BSDF-sampled candidate without a wider G-buffer: the
//! many-light scene's rough metal (half of its floor and two spheres) is made gold (Mitsuba's
//! `Au`) with Beckmann roughness, and the GPU's image must be the CPU's as in
//! gpu_restir.rs (relative difference ≤ 1e-3 for ≥ 99% of the values, image means within
//! 0.5%), with light candidates only and with a BSDF candidate.
//!
//! The GPU test is `#[ignore]`d; without a GPU it skips with a notice, or fails with
//! WARPATH_REQUIRE_GPU=1. `gold_beckmann_metal_changes_the_cpu_image` runs without one.

use glam::Vec3;
use std::sync::atomic::AtomicBool;
use warpath_bvh::BuildKind;
use warpath_core::film::Film;
use warpath_core::material::{Material, MaterialKind};
use warpath_core::restir::{BiasCorrection, RestirOptions, TargetFunction};
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_cuda::restir::RestirRenderer;
use warpath_scene::{RenderSettings, Scene};

mod common;
use common::device;

const FRAMES: u32 = 8;

/// The many-light scene seen from above with half its floor made of the rough metal; `gold`
/// turns that metal into Beckmann gold of the same roughness.
fn scene(gold: bool) -> Scene {
    let mut scene = warpath_scene::builtin::many_lights(512);
    (scene.settings.width, scene.settings.height, scene.settings.max_depth) = (96, 64, 1);
    scene.camera = warpath_core::camera::Camera::look_at(Vec3::new(0.0, 1.2, 4.5), Vec3::ZERO, Vec3::Y, 40.0);
    let index = |scene: &Scene, name: &str| scene.material_names.iter().position(|n| n == name).expect(name);
    let (floor, metal) = (index(&scene, "floor") as u32, index(&scene, "metal"));
    let second = scene.triangle_materials.iter().enumerate().filter(|(_, m)| **m == floor).nth(1).expect("floor").0;
    scene.triangle_materials[second] = metal as u32;
    if gold {
        let m = &mut scene.materials[metal];
        assert_eq!(m.kind(), MaterialKind::RoughConductor);
        let (eta, k) = warpath_scene::conductors::named("Au").expect("Au");
        *m = Material { flags: m.flags, ..Material::rough_conductor_eta_k(eta, k, Vec3::ONE, m.roughness) }
            .with_beckmann();
    }
    scene
}

fn base_options() -> RestirOptions {
    RestirOptions {
        radius: 8.0,
        target: TargetFunction::Luminance,
        bias: BiasCorrection::RayTraced,
        ..Default::default()
    }
}

fn cpu_restir(scene: &Scene, options: &RestirOptions) -> Film {
    let renderer = CpuRenderer::new(scene, BuildKind::Sah);
    let opts = RenderOptions { seed: 7, ..RenderOptions::from_scene(scene) };
    let mut film = Film::new(scene.settings.width, scene.settings.height);
    let options = RestirOptions { seed: 7, ..*options };
    renderer.render_restir(&opts, &options, &mut film, FRAMES, &AtomicBool::new(false), |_| {}).expect("renders");
    film
}

fn image_mean(film: &Film) -> f64 {
    film.mean().iter().map(|p| (p.x + p.y + p.z) as f64).sum::<f64>() / film.mean().len() as f64
}

/// The gold metal changes the CPU image (so the GPU check below compares its shading).
#[test]
fn gold_beckmann_metal_changes_the_cpu_image() {
    let (plain, gold) = (cpu_restir(&scene(false), &base_options()), cpu_restir(&scene(true), &base_options()));
    let changed = plain.sum.iter().zip(&gold.sum).filter(|(a, b)| a != b).count();
    assert!(changed * 10 > plain.sum.len(), "only {changed} of {} pixels change", plain.sum.len());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_restir_with_gold_beckmann_metal_is_the_cpu_reference() {
    let Some(device) = device() else { return };
    let scene = scene(true);
    let base = base_options();
    for (name, options) in
        [("light candidates", base), ("1 BSDF candidate", RestirOptions { bsdf_candidates: 1, ..base })]
    {
        let options = RestirOptions { seed: 7, ..options };
        let settings = RenderSettings { seed: 7, ..scene.settings };
        let mut renderer = RestirRenderer::new(&device, &scene, &settings, BuildKind::Sah, &options).expect("uploads");
        for _ in 0..FRAMES {
            renderer.render_frame().expect("renders a frame");
        }
        let gpu = renderer.download_film().expect("downloads");
        let cpu = cpu_restir(&scene, &options);
        assert_eq!(gpu.count, cpu.count, "{name}: samples per pixel");
        let (g, c) = (gpu.mean(), cpu.mean());
        let scale = image_mean(&cpu).max(1e-6) as f32;
        let (mut close, mut values) = (0usize, 0usize);
        for (a, b) in g.iter().zip(&c) {
            for k in 0..3 {
                assert!(a[k].is_finite(), "{name}: GPU value {}", a[k]);
                let rel = (a[k] - b[k]).abs() / a[k].abs().max(b[k].abs()).max(1e-4 * scale);
                close += (rel <= 1e-3) as usize;
                values += 1;
            }
        }
        let (gm, cm) = (image_mean(&gpu), image_mean(&cpu));
        println!("{name}: {close}/{values} values within 1e-3; image mean GPU {gm:.6} CPU {cm:.6}");
        assert!(close as f64 >= 0.99 * values as f64, "{name}: only {close} of {values} values agree");
        assert!((gm / cm - 1.0).abs() < 5e-3, "{name}: image means {gm} vs {cm}");
    }
}
