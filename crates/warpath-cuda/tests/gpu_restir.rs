//! ReSTIR DI on the GPU (`restir.cu`, issue 15) against the CPU reference
//! (`warpath_cpu::restir`) and against the path tracer limited to direct lighting:
//!
//! - same seed, same scene, same options: the GPU repeats the CPU's arithmetic with the same
//!   random numbers, so the accumulated images agree pixel by pixel (relative difference
//!   ≤ 1e-3 for ≥ 99% of the values; what differs is where a float comparison flips the
//!   other way, e.g. a reservoir's choice at a tie, and then the pixel takes another sample)
//!   and the image means within 0.5% — for the default pipeline, without the light pool,
//!   with the biased 1/M mode and with two spatial passes;
//! - unbiasedness on the GPU alone: 256 independent runs of 8 frames (default pipeline, RIS
//!   only, temporal only, spatial only; ray-traced bias correction) against the GPU path
//!   tracer at `max_depth` 1 with 8192 spp: each image mean within 4 standard errors (the
//!   runs' own spread and the reference's); the 1/M mode's bias is printed, and it must be
//!   measurably darker (it is the biased one);
//! - a scene without emitters renders black; zero-power emitters render black and finite.
//!
//! `#[ignore]`d (they need a GPU); without one they skip with a notice, or fail with
//! WARPATH_REQUIRE_GPU=1.

use glam::Vec3;
use std::sync::atomic::AtomicBool;
use warpath_bvh::BuildKind;
use warpath_core::film::Film;
use warpath_core::restir::{BiasCorrection, RestirOptions};
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_cuda::restir::RestirRenderer;
use warpath_cuda::runtime::CudaDevice;
use warpath_cuda::strategy::StrategyRenderer;
use warpath_scene::{RenderSettings, Scene};

mod common;
use common::device;

const FRAMES: u32 = 8;

/// The CPU test's view of the many-light scene: the floor and spheres from above, no emitter
/// seen directly.
fn scene(lights: u32, width: u32, height: u32) -> Scene {
    let mut scene = warpath_scene::builtin::many_lights(lights);
    scene.settings.width = width;
    scene.settings.height = height;
    scene.settings.max_depth = 1;
    scene.camera = warpath_core::camera::Camera::look_at(Vec3::new(0.0, 1.2, 4.5), Vec3::ZERO, Vec3::Y, 40.0);
    scene
}

fn settings(scene: &Scene, seed: u32) -> RenderSettings {
    RenderSettings { seed, ..scene.settings }
}

fn gpu_restir(device: &CudaDevice, scene: &Scene, options: &RestirOptions, seed: u32, frames: u32) -> Film {
    let options = RestirOptions { seed, ..*options };
    let mut renderer =
        RestirRenderer::new(device, scene, &settings(scene, seed), BuildKind::Sah, &options).expect("uploads");
    for _ in 0..frames {
        renderer.render_frame().expect("renders a frame");
    }
    renderer.download_film().expect("downloads")
}

fn cpu_restir(scene: &Scene, options: &RestirOptions, seed: u32, frames: u32) -> Film {
    let renderer = CpuRenderer::new(scene, BuildKind::Sah);
    let opts = RenderOptions { seed, ..RenderOptions::from_scene(scene) };
    let options = RestirOptions { seed, ..*options };
    let mut film = Film::new(scene.settings.width, scene.settings.height);
    renderer.render_restir(&opts, &options, &mut film, frames, &AtomicBool::new(false), |_| {}).expect("renders");
    film
}

fn image_mean(film: &Film) -> f64 {
    film.mean().iter().map(|p| (p.x + p.y + p.z) as f64).sum::<f64>() / film.mean().len() as f64
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_restir_is_the_cpu_reference() {
    let Some(device) = device() else { return };
    let scene = scene(512, 96, 64);
    let base = RestirOptions { radius: 8.0, ..RestirOptions::default() };
    let configurations = [
        ("default (pool, temporal, 1 spatial pass, ray-traced)", base),
        ("no light pool", RestirOptions { light_pool: false, ..base }),
        ("bias correction off (1/M)", RestirOptions { bias: BiasCorrection::Off, ..base }),
        ("two spatial passes, no temporal", RestirOptions { spatial_passes: 2, temporal: false, ..base }),
    ];
    for (name, options) in configurations {
        let gpu = gpu_restir(&device, &scene, &options, 7, FRAMES);
        let cpu = cpu_restir(&scene, &options, 7, FRAMES);
        assert_eq!(gpu.count, cpu.count, "{name}: samples per pixel");
        let (g, c) = (gpu.mean(), cpu.mean());
        let scale = image_mean(&cpu).max(1e-6) as f32;
        let mut close = 0usize;
        let mut values = 0usize;
        let mut max_rel = 0.0f32;
        for (a, b) in g.iter().zip(&c) {
            for k in 0..3 {
                let (a, b) = (a[k], b[k]);
                assert!(a.is_finite(), "{name}: GPU value {a}");
                let rel = (a - b).abs() / a.abs().max(b.abs()).max(1e-4 * scale);
                max_rel = max_rel.max(rel);
                close += (rel <= 1e-3) as usize;
                values += 1;
            }
        }
        let (gm, cm) = (image_mean(&gpu), image_mean(&cpu));
        println!(
            "{name}: {close}/{values} values within 1e-3 (max rel {max_rel:.2e}); image mean GPU {gm:.6} CPU {cm:.6} \
             ({:+.3}%)",
            100.0 * (gm / cm - 1.0)
        );
        assert!(close as f64 >= 0.99 * values as f64, "{name}: only {close} of {values} values agree");
        assert!((gm / cm - 1.0).abs() < 5e-3, "{name}: image means {gm} vs {cm}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_restir_converges_to_direct_lighting() {
    let Some(device) = device() else { return };
    let scene = scene(10_240, 160, 90);
    // The reference: the GPU path tracer with max_depth 1 (light sampling + BSDF sampling,
    // MIS), and the standard error of its image mean (its pixels are independent).
    let (reference, reference_error) = {
        let s = RenderSettings { spp: 8192, ..settings(&scene, 99) };
        let mut renderer = StrategyRenderer::new(&device, &scene, &s, BuildKind::Sah).expect("uploads");
        for pass in 0..128 {
            renderer.render_pass(pass * 64, 64).expect("renders");
        }
        let film = renderer.download_film().expect("downloads");
        let n = film.mean().len() as f64;
        // var(r + g + b) ≤ (σr + σg + σb)²: the channels of one sample are correlated.
        let var: f64 = film
            .variance_of_mean()
            .iter()
            .map(|v| ((v.x.sqrt() + v.y.sqrt() + v.z.sqrt()) as f64).powi(2))
            .sum::<f64>()
            / (n * n);
        (image_mean(&film), var.sqrt())
    };
    let runs = 256u32;
    let measure = |options: RestirOptions| -> (f64, f64) {
        let mut renderer =
            RestirRenderer::new(&device, &scene, &settings(&scene, 0), BuildKind::Sah, &options).expect("uploads");
        let means: Vec<f64> = (0..runs)
            .map(|run| {
                renderer.restart(5000 + run).expect("restarts");
                for _ in 0..FRAMES {
                    renderer.render_frame().expect("renders a frame");
                }
                image_mean(&renderer.download_film().expect("downloads"))
            })
            .collect();
        let m = means.iter().sum::<f64>() / runs as f64;
        let v = means.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (runs - 1) as f64;
        (m, (v / runs as f64).sqrt())
    };
    let z_of = |m: f64, se: f64| (m - reference) / (se * se + reference_error * reference_error).sqrt();
    println!("path tracer (max depth 1, 8192 spp): image mean {reference:.6} ± {reference_error:.2e}");
    let unbiased = RestirOptions { radius: 15.0, ..RestirOptions::default() };
    let mut failures = Vec::new();
    for (name, options) in [
        ("default pipeline", unbiased),
        ("RIS only", RestirOptions { temporal: false, spatial_passes: 0, ..unbiased }),
        ("temporal only", RestirOptions { spatial_passes: 0, ..unbiased }),
        ("spatial only", RestirOptions { temporal: false, ..unbiased }),
    ] {
        let (m, se) = measure(options);
        let z = z_of(m, se);
        println!(
            "{name}: image mean {m:.6} ± {se:.2e}: {:+.3}%, z {z:+.2} ({runs} runs of {FRAMES} frames)",
            100.0 * (m / reference - 1.0)
        );
        if z.abs() >= 4.0 {
            failures.push(format!("{name}: z {z:+.2}"));
        }
    }
    let (mb, seb) = measure(RestirOptions { bias: BiasCorrection::Off, ..unbiased });
    let zb = z_of(mb, seb);
    println!(
        "bias correction off (1/M): image mean {mb:.6} ± {seb:.2e}: {:+.3}%, z {zb:+.2}",
        100.0 * (mb / reference - 1.0)
    );
    assert!(failures.is_empty(), "ReSTIR (ray-traced) against direct lighting: {failures:?}");
    assert!(zb < -4.0, "the 1/M mode should be measurably darker here: z {zb}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_restir_without_light_is_black() {
    let Some(device) = device() else { return };
    // No emitters at all.
    let mut dark = scene(64, 32, 24);
    for m in dark.materials.iter_mut() {
        m.emission = Vec3::ZERO;
    }
    let film = gpu_restir(&device, &dark, &RestirOptions::default(), 1, 4);
    assert!(film.mean().iter().all(|p| *p == Vec3::ZERO), "no emitters: black");
    assert!(film.count.iter().all(|&c| c == 4));
}
