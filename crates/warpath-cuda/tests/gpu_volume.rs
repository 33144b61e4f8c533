//! The volumetric estimator on the GPU (issue 11): the naive megakernel against the CPU
//! reference (crates/warpath-cpu/src/volpath.rs), and every schedule against the naive
//! megakernel, on a heterogeneous scene (a lumpy grid with an RGB albedo grid behind a null
//! boundary, a tinted homogeneous medium inside glass, surfaces, an area light, a sky) and on
//! seed 003's dense constant-density print behind a rough dielectric.
//!
//! The GPU repeats the CPU's arithmetic operation for operation with the same random numbers
//! (the tracking streams included), so:
//! - per-bounce active paths, extension rays, shadow rays, tracking steps and grid lookups are
//!   exactly equal, CPU vs GPU and strategy vs naive;
//! - CPU vs GPU: at least 99.9% of the pixel values within 1e-4 relative; strategy vs naive:
//!   every value within 1e-5 (only the film's summation order differs);
//! - the device compiler's layout of `GpuMedium` and `DeviceVolumeSceneArgs` equals Rust's.
//!
//! `WARPATH_STRATEGY_SMALL=1` shrinks the renders (for compute-sanitizer). `#[ignore]`d
//! without a GPU: `cargo test -- --include-ignored`.

mod common;

use common::{
    delta_lights, dense_volume_scene, device, volume_scene, with_bump_and_data_textures, with_masks, with_normal_maps,
};
use warpath_bvh::BuildKind;
use warpath_core::film::Film;
use warpath_core::sampler::SamplerKind;
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_cuda::strategy::{GridFetch, KernelVariant, PathCounters, Strategy, StrategyRenderer};
use warpath_scene::{RenderSettings, Scene};

fn small() -> bool {
    std::env::var("WARPATH_STRATEGY_SMALL").as_deref() == Ok("1")
}

fn settings(scene: &Scene, width: u32, height: u32, spp: u32, max_depth: u32) -> RenderSettings {
    RenderSettings {
        width,
        height,
        spp,
        max_depth,
        seed: 17,
        sampler: SamplerKind::PaddedHalton,
        ..scene.settings.clone()
    }
}

fn render_gpu(renderer: &mut StrategyRenderer, strategy: Strategy, spp: u32) -> (Film, PathCounters) {
    renderer.reset().expect("reset");
    renderer.set_strategy(strategy);
    let first = spp / 2;
    renderer.render_pass(0, first).unwrap_or_else(|e| panic!("{strategy}: pass 1: {e}"));
    renderer.render_pass(first, spp - first).unwrap_or_else(|e| panic!("{strategy}: pass 2: {e}"));
    (renderer.download_film().expect("film"), renderer.counters().expect("counters"))
}

/// Relative differences per pixel and channel: (values within `bound`, total, largest, at).
fn relative_differences(a: &Film, b: &Film, bound: f64) -> (usize, usize, f64, usize) {
    assert_eq!(a.count, b.count, "sample counts");
    let (ma, mb) = (a.mean(), b.mean());
    let scale = ma.iter().map(|p| (p[0] + p[1] + p[2]) as f64 / 3.0).sum::<f64>() / ma.len().max(1) as f64;
    let floor = 1e-4 * scale.max(1e-12);
    let (mut within, mut worst, mut at) = (0, 0.0f64, 0);
    for i in 0..ma.len() {
        for c in 0..3 {
            let (x, y) = (ma[i][c] as f64, mb[i][c] as f64);
            let r = (x - y).abs() / x.abs().max(y.abs()).max(floor);
            let r = if r.is_nan() { f64::INFINITY } else { r };
            within += (r <= bound) as usize;
            if r > worst {
                (worst, at) = (r, i);
            }
        }
    }
    (within, 3 * ma.len(), worst, at)
}

fn check_cpu_vs_gpu(scene: &Scene, s: &RenderSettings) {
    let Some(device) = device() else { return };
    let cpu = CpuRenderer::new(scene, BuildKind::Sah);
    let mut cpu_film = Film::new(s.width, s.height);
    let options = RenderOptions { spp_per_pass: s.spp, ..RenderOptions::from_settings(s) };
    let cpu_counters = cpu.render_pass(&options, &mut cpu_film, 0, s.spp);
    let mut renderer = StrategyRenderer::new(&device, scene, s, BuildKind::Sah).expect("upload");
    assert_eq!(renderer.estimator_name(), "volume");
    renderer.set_instrumentation(true).expect("counters");
    let (gpu_film, gpu) = render_gpu(&mut renderer, Strategy::Naive, s.spp);
    let label = &scene.name;
    eprintln!("{label}: CPU active per bounce {:?}", cpu_counters.active_per_bounce);
    eprintln!("{label}: GPU active per bounce {:?}", gpu.active_per_bounce);
    let t = &cpu_counters.tracking;
    eprintln!(
        "{label}: extension rays CPU {} GPU {}; shadow rays CPU {} GPU {}; tracking steps CPU {} GPU {}; \
         density lookups CPU {} GPU {}; albedo lookups CPU {} GPU {}",
        cpu_counters.extension_rays,
        gpu.extension_rays,
        cpu_counters.shadow_rays,
        gpu.shadow_rays,
        t.steps,
        gpu.tracking.steps,
        t.density_lookups,
        gpu.tracking.density_lookups,
        t.albedo_lookups,
        gpu.tracking.albedo_lookups
    );
    let slots = gpu.active_per_bounce.len();
    let mut cpu_bounces = cpu_counters.active_per_bounce.clone();
    // The GPU's last counter slot holds every deeper bounce.
    if cpu_bounces.len() > slots && slots > 0 {
        let deeper: u64 = cpu_bounces[slots..].iter().sum();
        cpu_bounces.truncate(slots);
        cpu_bounces[slots - 1] += deeper;
    }
    assert_eq!(cpu_bounces, gpu.active_per_bounce, "{label}: paths per bounce");
    assert_eq!(cpu_counters.extension_rays, gpu.extension_rays, "{label}: extension rays");
    assert_eq!(cpu_counters.shadow_rays, gpu.shadow_rays, "{label}: shadow rays");
    assert_eq!(t.steps, gpu.tracking.steps, "{label}: tracking steps");
    assert_eq!(t.density_lookups, gpu.tracking.density_lookups, "{label}: density lookups");
    assert_eq!(t.albedo_lookups, gpu.tracking.albedo_lookups, "{label}: albedo lookups");
    let (within, values, worst, at) = relative_differences(&cpu_film, &gpu_film, 1e-4);
    eprintln!("{label}: {within} of {values} values within 1e-4 relative; max {worst:.2e} at pixel {at}");
    assert!(within as f64 >= 0.999 * values as f64, "{label}: only {within} of {values} within 1e-4");
}

fn check_strategies(scene: &Scene, s: &RenderSettings, wave_paths: u32) {
    let Some(device) = device() else { return };
    let mut renderer = StrategyRenderer::new(&device, scene, s, BuildKind::Sah).expect("upload");
    renderer.set_instrumentation(true).expect("counters");
    renderer.set_max_wave_paths(wave_paths);
    let (naive_film, naive) = render_gpu(&mut renderer, Strategy::Naive, s.spp);
    eprintln!("{}: naive paths per bounce {:?}", scene.name, naive.active_per_bounce);
    assert!(naive.active_per_bounce.len() > 2, "the scene must have paths past bounce 1");
    for strategy in Strategy::ALL.into_iter().filter(|&s| s != Strategy::Naive) {
        let label = format!("{}/{strategy}", scene.name);
        let (film, counters) = render_gpu(&mut renderer, strategy, s.spp);
        assert_same_render(&label, (&naive_film, &naive), (&film, &counters));
    }
    // Naive in waves, one thread per path (the image tiles of bench volumes --tilings).
    renderer.set_naive_waves(true);
    let (film, counters) = render_gpu(&mut renderer, Strategy::Naive, s.spp);
    assert_same_render(&format!("{}/naive in waves", scene.name), (&naive_film, &naive), (&film, &counters));
}

/// The same paths (every count) and the same image up to the order of the film's sums.
fn assert_same_render(label: &str, reference: (&Film, &PathCounters), render: (&Film, &PathCounters)) {
    let ((naive_film, naive), (film, counters)) = (reference, render);
    assert_eq!(counters.active_per_bounce, naive.active_per_bounce, "{label}: paths per bounce");
    assert_eq!(counters.extension_rays, naive.extension_rays, "{label}: extension rays");
    assert_eq!(counters.shadow_rays, naive.shadow_rays, "{label}: shadow rays");
    assert_eq!(counters.tracking.steps, naive.tracking.steps, "{label}: tracking steps");
    assert_eq!(counters.tracking.density_lookups, naive.tracking.density_lookups, "{label}: density lookups");
    assert_eq!(counters.tracking.albedo_lookups, naive.tracking.albedo_lookups, "{label}: albedo lookups");
    let (within, values, worst, at) = relative_differences(naive_film, film, 1e-5);
    eprintln!("{label}: max relative difference {worst:.2e} at pixel {at}");
    assert_eq!(within, values, "{label}: {} values beyond 1e-5", values - within);
}

/// The kernel variants of the benchmarks: grids read from point-sampled 3D textures and
/// register caps trace the same paths as the default kernels (every count equal, the same
/// image); hardware-filtered textures give an image of the same brightness within 2%.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn kernel_variants_trace_the_same_paths() {
    let Some(device) = device() else { return };
    let scene = volume_scene();
    let s = if small() { settings(&scene, 21, 13, 2, 16) } else { settings(&scene, 61, 47, 6, 16) };
    let mut renderer = StrategyRenderer::new(&device, &scene, &s, BuildKind::Sah).expect("upload");
    renderer.set_instrumentation(true).expect("counters");
    renderer.set_max_wave_paths(3000);
    let (naive_film, naive) = render_gpu(&mut renderer, Strategy::Naive, s.spp);
    assert!(naive.tracking.albedo_lookups > 0 && naive.tracking.density_lookups > 0, "the scene reads both grids");
    let exact = [
        KernelVariant { grid_fetch: GridFetch::Texture, max_registers: None, ..Default::default() },
        KernelVariant { grid_fetch: GridFetch::Buffer, max_registers: Some(64), ..Default::default() },
    ];
    for variant in exact {
        renderer.set_kernel_variant(&scene, variant).expect("variant");
        for strategy in [Strategy::Naive, Strategy::StreamingSk] {
            let (film, counters) = render_gpu(&mut renderer, strategy, s.spp);
            let label = format!("{}/{strategy} ({})", scene.name, variant.label());
            assert_same_render(&label, (&naive_film, &naive), (&film, &counters));
        }
    }
    let linear = KernelVariant { grid_fetch: GridFetch::TextureLinear, max_registers: None, ..Default::default() };
    renderer.set_kernel_variant(&scene, linear).expect("variant");
    let (film, counters) = render_gpu(&mut renderer, Strategy::Naive, s.spp);
    let mean = |f: &Film| f.mean().iter().map(|p| (p[0] + p[1] + p[2]) as f64).sum::<f64>();
    let ratio = mean(&film) / mean(&naive_film);
    let steps = counters.tracking.steps as f64 / naive.tracking.steps as f64;
    eprintln!("{}: hardware-filtered textures: image mean ×{ratio:.4}, tracking steps ×{steps:.4}", scene.name);
    assert!((ratio - 1.0).abs() < 0.02, "hardware filtering changed the image's mean by ×{ratio}");
    assert!(counters.tracking.density_lookups > 0);
    // Back to the default: the buffers again, the same render as at first.
    renderer.set_kernel_variant(&scene, KernelVariant::default()).expect("default");
    let (film, counters) = render_gpu(&mut renderer, Strategy::Naive, s.spp);
    assert_same_render("back to buffers", (&naive_film, &naive), (&film, &counters));
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn heterogeneous_volume_matches_the_cpu_reference() {
    let scene = volume_scene();
    let s = if small() { settings(&scene, 20, 14, 2, 16) } else { settings(&scene, 64, 48, 8, 16) };
    check_cpu_vs_gpu(&scene, &s);
}

/// The heterogeneous volume lit by point, spot and directional lights too: next-event
/// estimation of delta lights through the media.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn delta_lights_in_a_volume_match_the_cpu_reference() {
    let mut scene = volume_scene();
    scene.delta_lights = delta_lights();
    let s = if small() { settings(&scene, 20, 14, 2, 16) } else { settings(&scene, 64, 48, 8, 16) };
    check_cpu_vs_gpu(&scene, &s);
}

/// The heterogeneous volume's surfaces normal-mapped (the volumetric estimator's surface
/// vertices in the perturbed frame, with the map's side test and shadowing term).
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn normal_maps_in_a_volume_match_the_cpu_reference() {
    let scene = with_normal_maps(volume_scene());
    let s = if small() { settings(&scene, 20, 14, 2, 16) } else { settings(&scene, 64, 48, 8, 16) };
    check_cpu_vs_gpu(&scene, &s);
}

/// The heterogeneous volume's surfaces bump-mapped, with roughness and metallic textures.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn bump_maps_in_a_volume_match_the_cpu_reference() {
    let scene = with_bump_and_data_textures(volume_scene());
    let s = if small() { settings(&scene, 20, 14, 2, 16) } else { settings(&scene, 64, 48, 8, 16) };
    check_cpu_vs_gpu(&scene, &s);
}

/// The heterogeneous volume's surfaces behind opacity masks (volpath's pass-through: no
/// vertex, the medium interface crossed; shadow rays through masks at 1 − α), on the naive
/// schedule against the CPU and on every schedule against naive.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn masks_in_a_volume_match_the_cpu_reference() {
    let scene = with_masks(volume_scene());
    let s = if small() { settings(&scene, 20, 14, 2, 16) } else { settings(&scene, 64, 48, 8, 16) };
    check_cpu_vs_gpu(&scene, &s);
    let s = if small() { settings(&scene, 21, 13, 2, 16) } else { settings(&scene, 61, 47, 6, 16) };
    check_strategies(&scene, &s, 3000);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn dense_print_matches_the_cpu_reference() {
    let scene = dense_volume_scene();
    let s = if small() { settings(&scene, 16, 12, 2, 64) } else { settings(&scene, 48, 36, 4, 256) };
    check_cpu_vs_gpu(&scene, &s);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn every_strategy_matches_naive_on_the_heterogeneous_volume() {
    let scene = volume_scene();
    let s = if small() { settings(&scene, 21, 13, 2, 16) } else { settings(&scene, 61, 47, 6, 16) };
    check_strategies(&scene, &s, 3000);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn every_strategy_matches_naive_on_the_dense_print() {
    let scene = dense_volume_scene();
    let s = if small() { settings(&scene, 16, 12, 2, 64) } else { settings(&scene, 40, 30, 4, 256) };
    check_strategies(&scene, &s, 2500);
}

/// The test scenes themselves, on the CPU (no GPU needed): they load, need the volumetric
/// estimator, and render a finite, lit image whose paths scatter in the media.
#[test]
fn volume_test_scenes_render_on_the_cpu() {
    for scene in [volume_scene(), dense_volume_scene()] {
        let s = settings(&scene, 12, 9, 2, 16);
        let cpu = CpuRenderer::new(&scene, BuildKind::Sah);
        assert_eq!(cpu.estimator_name(), "volumetric path tracer");
        let mut film = Film::new(s.width, s.height);
        let options = RenderOptions { spp_per_pass: s.spp, ..RenderOptions::from_settings(&s) };
        let counters = cpu.render_pass(&options, &mut film, 0, s.spp);
        let mean = film.mean();
        assert!(mean.iter().all(|p| p.is_finite()), "{}: non-finite pixels", scene.name);
        assert!(mean.iter().any(|p| p.max_element() > 0.0), "{}: black image", scene.name);
        assert!(counters.tracking.steps > 0 && counters.active_per_bounce.len() > 2, "{}: {counters:?}", scene.name);
    }
}
