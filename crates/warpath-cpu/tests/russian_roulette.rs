//! Russian roulette against a closed form: a camera inside a closed sphere whose inner
//! surface is Lambertian with albedo a and emits radiance Le toward the inside. Every point
//! of the sphere then sees only the sphere, so the radiance L everywhere satisfies
//! L = Le + a·L, i.e. L = Le / (1 − a) per colour channel, whatever the sphere's
//! tessellation. The estimator must reach it with roulette firing at every bounce
//! (rr_threshold 1: a path survives with probability max(throughput)) and a max_depth so
//! large that the truncated tail (a^1000) is nothing; the test is a z test of the image
//! mean against Le / (1 − a), from the film's own variance.

use glam::Vec3;
use std::sync::atomic::AtomicBool;
use warpath_bvh::BuildKind;
use warpath_core::camera::Camera;
use warpath_core::film::Film;
use warpath_core::material::{Material, flags};
use warpath_core::sampler::SamplerKind;
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_scene::{RenderSettings, Scene};

mod common;
use common::image_mean;

const EMISSION: Vec3 = Vec3::new(1.0, 2.0, 0.5);
const ALBEDO: Vec3 = Vec3::new(0.3, 0.5, 0.1);

fn glowing_sphere_scene(rr_threshold: f32, max_depth: u32) -> Scene {
    let sphere = warpath_scene::builtin::sphere_mesh(2);
    let n = sphere.triangles.len();
    let mut material = Material::diffuse(ALBEDO).with_emission(EMISSION);
    // The sphere's triangles face outward; its inside must emit too.
    material.flags |= flags::TWO_SIDED_EMISSION;
    Scene {
        name: "glowing-sphere".into(),
        positions: sphere.positions.iter().map(|&p| p * 2.0).collect(),
        triangles: sphere.triangles,
        triangle_materials: vec![0; n],
        materials: vec![material],
        material_names: vec!["glow".into()],
        camera: Camera::look_at(Vec3::new(0.3, -0.2, 0.1), Vec3::new(1.0, 0.5, -2.0), Vec3::Y, 70.0),
        settings: RenderSettings {
            width: 32,
            height: 32,
            spp: 64,
            max_depth,
            seed: 5,
            sampler: SamplerKind::PaddedHalton,
            rr_threshold,
        },
        ..Default::default()
    }
}

fn render(scene: &Scene) -> (Film, warpath_cpu::RenderStats) {
    let renderer = CpuRenderer::new(scene, BuildKind::Sah);
    renderer.render(&RenderOptions::from_scene(scene), &AtomicBool::new(false), |_| {})
}

#[test]
fn roulette_at_every_bounce_gives_le_over_one_minus_albedo() {
    let scene = glowing_sphere_scene(1.0, 1000);
    let (film, stats) = render(&scene);
    let (mean, std_error) = image_mean(&film);
    let exact = EMISSION / (Vec3::ONE - ALBEDO);
    let z = (mean - exact) / std_error;
    eprintln!("mean {mean} ± {std_error}, exact {exact}, z {z}");
    eprintln!("paths per bounce: {:?}", &stats.counters.active_per_bounce[..8]);
    assert!(z.abs().max_element() < 4.0, "mean {mean} ± {std_error} vs Le/(1 − a) = {exact}: z = {z}");
    // The test resolves a 1% error in every channel.
    assert!((std_error / exact).max_element() < 0.0025, "standard error {std_error} too large to see 1%");
    // Roulette really fired: with survival probability max(a) = 0.5 after every bounce, the
    // paths at bounce k are a 2^-k fraction of the camera paths (within noise), and no path
    // got near the depth limit.
    let active = &stats.counters.active_per_bounce;
    let camera_paths = active[0] as f64;
    for (k, &paths) in active.iter().enumerate().take(6).skip(1) {
        let expected = camera_paths * 0.5f64.powi(k as i32);
        assert!(
            (paths as f64 - expected).abs() < 5.0 * expected.sqrt() + 0.01 * expected,
            "bounce {k}: {paths} paths, expected {expected}"
        );
    }
    assert!(active.len() < 100, "a path reached bounce {}", active.len() - 1);
}

#[test]
fn without_roulette_the_depth_limit_truncates_the_series() {
    // The same sphere without roulette and at most 2 bounces: L = Le (1 + a + a²), clearly
    // below Le / (1 − a), so the closed form above is a sharp test.
    let scene = glowing_sphere_scene(0.0, 2);
    let (film, _) = render(&scene);
    let (mean, std_error) = image_mean(&film);
    let truncated = EMISSION * (Vec3::ONE + ALBEDO + ALBEDO * ALBEDO);
    let z = (mean - truncated) / std_error;
    assert!(z.abs().max_element() < 4.0, "mean {mean} ± {std_error} vs Le (1 + a + a²) = {truncated}: z = {z}");
    let full = EMISSION / (Vec3::ONE - ALBEDO);
    assert!(((full - mean) / std_error).min_element() > 4.0, "the truncated render should fall short of {full}");
}
