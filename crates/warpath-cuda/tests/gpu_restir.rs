//! ReSTIR DI on the GPU (`restir.cu`, issue 15) against the CPU reference
//! (`warpath_cpu::restir`) and against the path tracer limited to direct lighting:
//!
//! - same seed, same scene, same options: the GPU repeats the CPU's arithmetic with the same
//!   random numbers, so the accumulated images agree pixel by pixel (relative difference
//!   ≤ 1e-3 for ≥ 99% of the values; what differs is where a float comparison flips the
//!   other way, e.g. a reservoir's choice at a tie, and then the pixel takes another sample)
//!   and the image means within 0.5% — for the default pipeline, without the light pool,
//!   with the biased 1/M mode, with pairwise MIS in the temporal pass only, with two spatial
//!   passes, and with 32 and 40 neighbours
//!   (ray-traced: its rays dealt out over several rounds of lanes), with BSDF-sampled
//!   candidates, the boiling filter and roughness-aware neighbour rejection (each shown to
//!   change the CPU's image, so that the check tests something); the reservoir formats
//!   and every schedule of the spatial pass's shadow rays (inline, 1 to 32 lanes a pixel)
//!   give the default's film bit for bit;
//! - unbiasedness on the GPU alone: 256 independent runs of 8 frames (default pipeline, RIS
//!   only, temporal only, spatial only with ray-traced bias correction; the default pipeline
//!   with pairwise MIS; with BSDF candidates and roughness rejection) against the GPU path
//!   tracer at `max_depth` 1 with 8192 spp: each image mean within 4 standard errors (the
//!   runs' own spread and the reference's); the 1/M mode's bias is printed, and it must be
//!   measurably darker (it is the biased one);
//! - a scene without emitters renders black; zero-power emitters render black and finite;
//! - the origin maps (`set_record_origins`: where each pixel's final sample came from) are the
//!   CPU's, and recording them changes no bit of the film.
//!
//! `#[ignore]`d (they need a GPU); without one they skip with a notice, or fail with
//! WARPATH_REQUIRE_GPU=1.

use glam::Vec3;
use std::sync::atomic::AtomicBool;
use warpath_bvh::BuildKind;
use warpath_core::film::Film;
use warpath_core::restir::{BiasCorrection, RestirOptions, TargetFunction};
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_cuda::restir::{LightSampleFormat, RayLanes, ReservoirLayout, RestirRenderer};
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

/// `scene` with the floor's second triangle made of the rough metal: two coplanar surfaces of
/// different roughness meet along the floor's diagonal, where only the roughness test (not the
/// normal or depth test) tells reuse apart.
fn split_floor(mut scene: Scene) -> Scene {
    let index = |name: &str| scene.material_names.iter().position(|n| n == name).expect(name) as u32;
    let (floor, metal) = (index("floor"), index("metal"));
    let second = scene.triangle_materials.iter().enumerate().filter(|(_, m)| **m == floor).nth(1).expect("floor").0;
    scene.triangle_materials[second] = metal;
    scene
}

fn settings(scene: &Scene, seed: u32) -> RenderSettings {
    RenderSettings { seed, ..scene.settings }
}

fn gpu_restir(device: &CudaDevice, scene: &Scene, options: &RestirOptions, seed: u32, frames: u32) -> Film {
    gpu_restir_in(Schedule::default(), device, scene, options, seed, frames)
}

/// How the GPU stores reservoirs and traces the reuse passes' shadow rays: formats and
/// schedules, none of which may change the image.
#[derive(Clone, Copy, Debug)]
struct Schedule {
    layout: ReservoirLayout,
    sample: LightSampleFormat,
    lanes: RayLanes,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule { layout: ReservoirLayout::Aos, sample: LightSampleFormat::Compact, lanes: RayLanes::DEFAULT }
    }
}

/// [`gpu_restir`] with reservoirs and rays as `schedule` says.
fn gpu_restir_in(
    schedule: Schedule,
    device: &CudaDevice,
    scene: &Scene,
    options: &RestirOptions,
    seed: u32,
    frames: u32,
) -> Film {
    let options = RestirOptions { seed, ..*options };
    let mut renderer =
        RestirRenderer::new(device, scene, &settings(scene, seed), BuildKind::Sah, &options).expect("uploads");
    renderer.set_reservoir_format(schedule.layout, schedule.sample).expect("reservoir format");
    renderer.set_ray_lanes(schedule.lanes);
    for _ in 0..frames {
        renderer.render_frame().expect("renders a frame");
    }
    renderer.download_film().expect("downloads")
}

/// Whether two films hold the same sums and counts, bit for bit.
fn same_film(a: &Film, b: &Film) -> bool {
    a.sum == b.sum && a.sum_sq == b.sum_sq && a.count == b.count
}

fn cpu_restir(scene: &Scene, options: &RestirOptions, seed: u32, frames: u32) -> Film {
    let renderer = CpuRenderer::new(scene, BuildKind::Sah);
    let opts = RenderOptions { seed, ..RenderOptions::from_scene(scene) };
    let options = RestirOptions { seed, ..*options };
    let mut film = Film::new(scene.settings.width, scene.settings.height);
    renderer.render_restir(&opts, &options, &mut film, frames, &AtomicBool::new(false), |_| {}).expect("renders");
    film
}

/// The GPU path tracer's image mean at `scene`'s max depth (1: light + BSDF sampling, MIS)
/// with `passes` × 64 spp, and its standard error (its pixels are independent;
/// var(r + g + b) ≤ (σr + σg + σb)², the channels of one sample being correlated).
fn path_traced_mean(device: &CudaDevice, scene: &Scene, passes: u32) -> (f64, f64) {
    let s = RenderSettings { spp: passes * 64, ..settings(scene, 99) };
    let mut renderer = StrategyRenderer::new(device, scene, &s, BuildKind::Sah).expect("uploads");
    for pass in 0..passes {
        renderer.render_pass(pass * 64, 64).expect("renders");
    }
    let film = renderer.download_film().expect("downloads");
    let n = film.mean().len() as f64;
    let var: f64 =
        film.variance_of_mean().iter().map(|v| ((v.x.sqrt() + v.y.sqrt() + v.z.sqrt()) as f64).powi(2)).sum::<f64>()
            / (n * n);
    (image_mean(&film), var.sqrt())
}

/// The bias correction and target of `options`, for messages.
fn mode(options: &RestirOptions) -> String {
    format!("{}, target {}", options.bias.name(), options.target.name())
}

fn image_mean(film: &Film) -> f64 {
    film.mean().iter().map(|p| (p.x + p.y + p.z) as f64).sum::<f64>() / film.mean().len() as f64
}

/// The options whose GPU = CPU checks gpu_restir_is_the_cpu_reference runs must change its
/// scene's CPU image (else those checks compare nothing new). Runs without a GPU.
#[test]
fn restir_options_change_the_cpu_image() {
    let scene = split_floor(scene(512, 96, 64));
    let base = RestirOptions {
        radius: 8.0,
        target: TargetFunction::Luminance,
        bias: BiasCorrection::RayTraced,
        ..RestirOptions::default()
    };
    let base_image = cpu_restir(&scene, &base, 7, FRAMES).sum;
    for (name, options) in [
        ("1 BSDF candidate", RestirOptions { bsdf_candidates: 1, ..base }),
        ("boiling filter 1", RestirOptions { boiling_filter: 1.0, ..base }),
        ("roughness threshold 0", RestirOptions { roughness_threshold: 0.0, ..base }),
    ] {
        assert!(cpu_restir(&scene, &options, 7, FRAMES).sum != base_image, "{name} leaves the CPU image as it was");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_restir_is_the_cpu_reference() {
    let Some(device) = device() else { return };
    // The split floor gives the roughness test neighbours to reject.
    let scene = split_floor(scene(512, 96, 64));
    // The labels name what differs from the luminance target with ray-traced weights.
    let base = RestirOptions {
        radius: 8.0,
        target: TargetFunction::Luminance,
        bias: BiasCorrection::RayTraced,
        ..RestirOptions::default()
    };
    let configurations = [
        ("pool, temporal, 1 spatial pass, ray-traced, luminance", base),
        ("the default options", RestirOptions { radius: 8.0, ..RestirOptions::default() }),
        ("no light pool", RestirOptions { light_pool: false, ..base }),
        ("bias correction off (1/M)", RestirOptions { bias: BiasCorrection::Off, ..base }),
        ("pairwise MIS", RestirOptions { bias: BiasCorrection::Pairwise, ..base }),
        // Pairwise MIS in the temporal pass only (its inline kernel), ray-traced spatial reuse
        // (split rays), a temporal cap of 5.
        (
            "pairwise temporal, ray-traced spatial, cap 5",
            RestirOptions { temporal_bias: Some(BiasCorrection::Pairwise), temporal_cap: 5.0, ..base },
        ),
        ("two spatial passes, no temporal", RestirOptions { spatial_passes: 2, temporal: false, ..base }),
        // The target functions of issue 29 (restir/target.cuh), each through every pass.
        ("target l2", RestirOptions { target: TargetFunction::L2, ..base }),
        (
            "target sum, pairwise MIS",
            RestirOptions { target: TargetFunction::Sum, bias: BiasCorrection::Pairwise, ..base },
        ),
        ("target max, 1/M", RestirOptions { target: TargetFunction::Max, bias: BiasCorrection::Off, ..base }),
        // One reservoir per colour channel: the channels kernel of initial RIS, each reuse pass
        // once per channel, an odd and an even number of reuse passes.
        ("per-channel reservoirs", RestirOptions { target: TargetFunction::Channels, ..base }),
        (
            "per-channel reservoirs, pairwise MIS",
            RestirOptions { target: TargetFunction::Channels, bias: BiasCorrection::Pairwise, ..base },
        ),
        (
            "per-channel reservoirs, 1/M, two spatial passes, no temporal",
            RestirOptions {
                target: TargetFunction::Channels,
                bias: BiasCorrection::Off,
                spatial_passes: 2,
                temporal: false,
                ..base
            },
        ),
        // Visibility-aware reuse (rays inline) under each bias correction.
        ("visibility-aware reuse", RestirOptions { reuse_visibility: true, ..base }),
        (
            "visibility-aware reuse, pairwise MIS, per-channel reservoirs",
            RestirOptions {
                reuse_visibility: true,
                bias: BiasCorrection::Pairwise,
                target: TargetFunction::Channels,
                ..base
            },
        ),
        (
            "visibility-aware reuse, 1/M, two spatial passes",
            RestirOptions { reuse_visibility: true, bias: BiasCorrection::Off, spatial_passes: 2, ..base },
        ),
        (
            "per-channel reservoirs, RIS only",
            RestirOptions { target: TargetFunction::Channels, spatial_passes: 0, temporal: false, ..base },
        ),
        // More neighbours than a warp has lanes (ray-traced: dealt out over rounds; pairwise:
        // the full 32-bit mask, then inline beyond it).
        ("ray-traced, 40 neighbours", RestirOptions { neighbours: 40, ..base }),
        ("pairwise MIS, 32 neighbours", RestirOptions { bias: BiasCorrection::Pairwise, neighbours: 32, ..base }),
        (
            "pairwise MIS, 40 neighbours (rays inline)",
            RestirOptions { bias: BiasCorrection::Pairwise, neighbours: 40, ..base },
        ),
        // BSDF-sampled candidates (a traced ray each in initial RIS, MIS over both source pdfs).
        ("1 BSDF candidate", RestirOptions { bsdf_candidates: 1, ..base }),
        ("2 BSDF candidates, no light pool", RestirOptions { bsdf_candidates: 2, light_pool: false, ..base }),
        (
            "1 BSDF candidate, per-channel reservoirs, pairwise MIS",
            RestirOptions {
                bsdf_candidates: 1,
                target: TargetFunction::Channels,
                bias: BiasCorrection::Pairwise,
                ..base
            },
        ),
        (
            "1 BSDF candidate, RIS only",
            RestirOptions { bsdf_candidates: 1, temporal: false, spatial_passes: 0, ..base },
        ),
        // RTXDI's boiling filter after temporal reuse (restir_boiling_filter): RTXDI's strength
        // and the strongest (every W above its group's mean emptied).
        ("boiling filter 0.2", RestirOptions { boiling_filter: 0.2, ..base }),
        (
            "boiling filter 1, per-channel reservoirs",
            RestirOptions { boiling_filter: 1.0, target: TargetFunction::Channels, ..base },
        ),
        // Roughness-aware neighbour rejection at its strictest.
        ("roughness threshold 0", RestirOptions { roughness_threshold: 0.0, ..base }),
        (
            "roughness threshold 0, pairwise MIS, 1 BSDF candidate",
            RestirOptions { roughness_threshold: 0.0, bias: BiasCorrection::Pairwise, bsdf_candidates: 1, ..base },
        ),
    ];
    // restir_options_change_the_cpu_image checks (without a GPU) that the newer options change
    // this scene's CPU image, so that their GPU = CPU checks below test something.
    // Reservoir bytes a pixel keeps (this frame's, scratch, previous): 3 × 24 B, three times
    // that with one reservoir per colour channel.
    for (target, bytes) in [(TargetFunction::Luminance, 72), (TargetFunction::Channels, 216)] {
        let options = RestirOptions { target, ..base };
        let renderer =
            RestirRenderer::new(&device, &scene, &settings(&scene, 7), BuildKind::Sah, &options).expect("uploads");
        println!("target {}: {} reservoir bytes a pixel", target.name(), renderer.reservoir_bytes_per_pixel());
        assert_eq!(renderer.reservoir_bytes_per_pixel(), bytes, "target {}", target.name());
    }
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
        let equal = g.iter().zip(&c).filter(|(a, b)| a == b).count();
        println!(
            "{name}: {close}/{values} values within 1e-3 (max rel {max_rel:.2e}), {equal}/{} pixels bit for bit; \
             image mean GPU {gm:.6} CPU {cm:.6} ({:+.3}%)",
            g.len(),
            100.0 * (gm / cm - 1.0)
        );
        assert!(close as f64 >= 0.99 * values as f64, "{name}: only {close} of {values} values agree");
        assert!((gm / cm - 1.0).abs() < 5e-3, "{name}: image means {gm} vs {cm}");
    }
    // SoA reservoirs and full light samples (the programs restir_soa, restir_full,
    // restir_soa_full): formats, not estimators — the same film bit for bit, with ray-traced,
    // pairwise and 1/M weights.
    let bias_modes = [
        base,
        RestirOptions { bias: BiasCorrection::Pairwise, ..base },
        RestirOptions { bias: BiasCorrection::Off, ..base },
        RestirOptions { target: TargetFunction::Channels, ..base },
        RestirOptions { bsdf_candidates: 1, boiling_filter: 0.5, ..base },
    ];
    for options in bias_modes {
        let film = |schedule| gpu_restir_in(schedule, &device, &scene, &options, 7, FRAMES);
        let default = film(Schedule::default());
        for (layout, sample) in [
            (ReservoirLayout::Soa, LightSampleFormat::Compact),
            (ReservoirLayout::Aos, LightSampleFormat::Full),
            (ReservoirLayout::Soa, LightSampleFormat::Full),
        ] {
            let equal = same_film(&default, &film(Schedule { layout, sample, ..Schedule::default() }));
            println!(
                "{:?} reservoirs, {}: film {} the AoS compact one",
                (layout, sample),
                mode(&options),
                if equal { "equals" } else { "differs from" }
            );
            assert!(equal, "{:?} reservoirs change the image ({})", (layout, sample), mode(&options));
        }
        // The reuse passes' shadow rays traced inline or by 2 to 32 lanes a pixel (one round,
        // several, idle lanes at a warp's end): schedules, the same film bit for bit.
        let lanes = [
            RayLanes::Inline,
            RayLanes::Lanes(2),
            RayLanes::Lanes(3),
            RayLanes::Lanes(6),
            RayLanes::Lanes(8),
            RayLanes::Lanes(32),
        ];
        for lanes in lanes {
            let equal = same_film(&default, &film(Schedule { lanes, ..Schedule::default() }));
            println!(
                "shadow rays {lanes:?}, {}: film {} the default's ({:?})",
                mode(&options),
                if equal { "equals" } else { "differs from" },
                RayLanes::DEFAULT
            );
            assert!(equal, "shadow rays {lanes:?} change the image ({})", mode(&options));
        }
    }
    // The same with 40 neighbours (ray-traced: rounds of lanes; a group of 32 takes two).
    let many = RestirOptions { neighbours: 40, ..base };
    let film = |lanes| gpu_restir_in(Schedule { lanes, ..Schedule::default() }, &device, &scene, &many, 7, FRAMES);
    let inline = film(RayLanes::Inline);
    for lanes in [RayLanes::Lanes(1), RayLanes::Lanes(6), RayLanes::Lanes(32)] {
        let equal = same_film(&inline, &film(lanes));
        println!(
            "40 neighbours, shadow rays {lanes:?}: film {} the inline one",
            if equal { "equals" } else { "differs from" }
        );
        assert!(equal, "40 neighbours: shadow rays {lanes:?} change the image");
    }
}

/// The GPU counts the shadow rays of each stage (`RestirRenderer::set_ray_counting`) as the CPU
/// reference does (`RestirFrames::rays`): the same frames trace the same rays, so the counts are
/// equal, whichever kernels trace them (inline, lane groups) — printed as rays per pixel per
/// frame.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_restir_counts_the_cpu_rays() {
    let Some(device) = device() else { return };
    let scene = scene(512, 96, 64);
    let frames = 4u32;
    let pixels = 96 * 64u64;
    let base = RestirOptions {
        radius: 8.0,
        seed: 7,
        target: TargetFunction::Luminance,
        bias: BiasCorrection::RayTraced,
        ..RestirOptions::default()
    };
    let cpu = CpuRenderer::new(&scene, BuildKind::Sah);
    let view = cpu.view(&RenderOptions { seed: 7, ..RenderOptions::from_scene(&scene) });
    let mut failures = Vec::new();
    for (name, options) in [
        ("ray-traced", base),
        ("pairwise MIS", RestirOptions { bias: BiasCorrection::Pairwise, ..base }),
        (
            "pairwise temporal, ray-traced spatial",
            RestirOptions { temporal_bias: Some(BiasCorrection::Pairwise), ..base },
        ),
        ("1/M", RestirOptions { bias: BiasCorrection::Off, ..base }),
        ("visibility-aware", RestirOptions { reuse_visibility: true, ..base }),
        ("the defaults", RestirOptions { radius: 8.0, seed: 7, ..RestirOptions::default() }),
        // BSDF candidates' closest-hit rays, a stage of their own.
        ("2 BSDF candidates", RestirOptions { bsdf_candidates: 2, ..base }),
        (
            "1 BSDF candidate, per-channel, pairwise",
            RestirOptions {
                bsdf_candidates: 1,
                target: TargetFunction::Channels,
                bias: BiasCorrection::Pairwise,
                ..base
            },
        ),
    ] {
        let mut sequence = warpath_cpu::restir::RestirFrames::new(&view, &options).expect("renders");
        for _ in 0..frames {
            sequence.render(&view, &scene.camera);
        }
        let expected = sequence.rays();
        for lanes in [RayLanes::DEFAULT, RayLanes::Inline] {
            let mut renderer =
                RestirRenderer::new(&device, &scene, &settings(&scene, 7), BuildKind::Sah, &options).expect("uploads");
            renderer.set_ray_lanes(lanes);
            renderer.set_ray_counting(true).expect("counts");
            for _ in 0..frames {
                renderer.render_frame().expect("renders a frame");
            }
            let got = renderer.ray_counts().expect("downloads").expect("counting");
            println!(
                "{name}, {lanes:?}: rays per pixel per frame GPU {:?}, CPU {:?}{}",
                got.per_pixel_frame(pixels, frames as u64),
                expected.per_pixel_frame(pixels, frames as u64),
                if got == expected { " (equal)" } else { "" }
            );
            // Equal, unless a rare pixel's answer differs in round-off (then within 0.1%).
            let close = |a: u64, b: u64| a.abs_diff(b) as f64 <= 1e-3 * a.max(b) as f64;
            let stages = [
                (got.visibility, expected.visibility),
                (got.temporal, expected.temporal),
                (got.spatial, expected.spatial),
                (got.shade, expected.shade),
                (got.bsdf_candidates, expected.bsdf_candidates),
            ];
            if !stages.iter().all(|&(a, b)| close(a, b)) {
                failures.push(format!("{name}, {lanes:?}: GPU {got:?}, CPU {expected:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "ray counts differ: {failures:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_restir_converges_to_direct_lighting() {
    let Some(device) = device() else { return };
    let scene = scene(10_240, 160, 90);
    // The reference: the GPU path tracer with max_depth 1 (light sampling + BSDF sampling,
    // MIS), and the standard error of its image mean (its pixels are independent).
    let (reference, reference_error) = path_traced_mean(&device, &scene, 128);
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
    let unbiased = RestirOptions {
        radius: 15.0,
        target: TargetFunction::Luminance,
        bias: BiasCorrection::RayTraced,
        ..RestirOptions::default()
    };
    let mut failures = Vec::new();
    for (name, options) in [
        ("pool, temporal, spatial, ray-traced, luminance", unbiased),
        ("the default options", RestirOptions { radius: 15.0, ..RestirOptions::default() }),
        ("RIS only", RestirOptions { temporal: false, spatial_passes: 0, ..unbiased }),
        ("temporal only", RestirOptions { spatial_passes: 0, ..unbiased }),
        ("spatial only", RestirOptions { temporal: false, ..unbiased }),
        ("pairwise MIS", RestirOptions { bias: BiasCorrection::Pairwise, ..unbiased }),
        (
            "pairwise temporal, ray-traced spatial, cap 5",
            RestirOptions { temporal_bias: Some(BiasCorrection::Pairwise), temporal_cap: 5.0, ..unbiased },
        ),
        ("default, target l2", RestirOptions { target: TargetFunction::L2, ..unbiased }),
        ("default, per-channel reservoirs", RestirOptions { target: TargetFunction::Channels, ..unbiased }),
        (
            "pairwise MIS, per-channel reservoirs",
            RestirOptions { target: TargetFunction::Channels, bias: BiasCorrection::Pairwise, ..unbiased },
        ),
        ("default, visibility-aware reuse", RestirOptions { reuse_visibility: true, ..unbiased }),
        (
            "pairwise MIS, visibility-aware reuse, per-channel reservoirs",
            RestirOptions {
                reuse_visibility: true,
                bias: BiasCorrection::Pairwise,
                target: TargetFunction::Channels,
                ..unbiased
            },
        ),
        ("default, 1 BSDF candidate", RestirOptions { bsdf_candidates: 1, ..unbiased }),
        (
            "pairwise MIS, per-channel reservoirs, 1 BSDF candidate, roughness threshold 0",
            RestirOptions {
                bsdf_candidates: 1,
                roughness_threshold: 0.0,
                bias: BiasCorrection::Pairwise,
                target: TargetFunction::Channels,
                ..unbiased
            },
        ),
        ("default, roughness threshold 0", RestirOptions { roughness_threshold: 0.0, ..unbiased }),
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
    assert!(failures.is_empty(), "ReSTIR (ray-traced, pairwise) against direct lighting: {failures:?}");
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

/// A moving camera (`set_camera` every frame, temporal reuse through the reprojection of
/// `warpath_core::restir::Reprojection`):
/// - the GPU's last frame of a 6-frame orbit is the CPU reference's (`RestirFrames`), value
///   for value as in the static test;
/// - temporal reuse still pays on diffuse surfaces: over 64 runs, the per-pixel variance of
///   the last frame's luminance with temporal reuse is below 0.9× that without it (a broken
///   reprojection finds no history; grey emitters, so that the luminance target is the
///   image's measure). With the scene's glossy materials the ratio is printed, not asserted:
///   under motion the view-dependent target of a reprojected reservoir differs from the
///   reusing pixel's, and the 1/Z (ray-traced) weights let that ratio through as fireflies
///   (measured: 1.64× the variance without temporal reuse, against 0.42× for a static camera;
///   balance-heuristic or pairwise MIS weights bound it — docs/benchmarks/restir.md);
/// - and stays unbiased: the runs' mean image of that frame against the path tracer at the
///   last frame's camera, within 4 standard errors.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_restir_follows_a_moving_camera() {
    let Some(device) = device() else { return };
    let frames = 6u32;
    let step = 4.0f32;
    // GPU = CPU.
    let scene_small = scene(512, 96, 64);
    let options = RestirOptions { radius: 8.0, seed: 11, ..RestirOptions::default() };
    let gpu_last = {
        let mut renderer =
            RestirRenderer::new(&device, &scene_small, &settings(&scene_small, 11), BuildKind::Sah, &options)
                .expect("uploads");
        for k in 0..frames {
            renderer.set_camera(&scene_small.camera.orbited(step * k as f32)).expect("camera");
            renderer.clear_film().expect("clears");
            renderer.render_frame().expect("renders a frame");
        }
        renderer.download_film().expect("downloads").mean()
    };
    let cpu_last = {
        let renderer = CpuRenderer::new(&scene_small, BuildKind::Sah);
        let opts = RenderOptions { seed: 11, ..RenderOptions::from_scene(&scene_small) };
        let view = renderer.view(&opts);
        let mut sequence = warpath_cpu::restir::RestirFrames::new(&view, &options).expect("renders");
        let mut last = Vec::new();
        for k in 0..frames {
            last = sequence.render(&view, &scene_small.camera.orbited(step * k as f32));
        }
        last
    };
    let (mut close, mut values) = (0usize, 0usize);
    for (a, b) in gpu_last.iter().zip(&cpu_last) {
        for k in 0..3 {
            let rel = (a[k] - b[k]).abs() / a[k].abs().max(b[k].abs()).max(1e-4);
            close += (rel <= 1e-3) as usize;
            values += 1;
        }
    }
    println!("moving camera, frame {}: GPU = CPU for {close}/{values} values within 1e-3", frames - 1);
    assert!(close as f64 >= 0.99 * values as f64, "moving camera: only {close} of {values} values agree");

    // Variance with and without temporal reuse, and the bias, over runs: grey emitters of the
    // same luminance (the target's measure is then the image's), first with the scene's
    // glossy materials (measured, printed), then with every surface diffuse (asserted).
    let mut glossy = scene(10_240, 160, 90);
    for m in glossy.materials.iter_mut().filter(|m| m.emission != Vec3::ZERO) {
        m.emission = Vec3::splat(0.2126 * m.emission.x + 0.7152 * m.emission.y + 0.0722 * m.emission.z);
    }
    let mut scene = glossy.clone();
    for m in scene.materials.iter_mut().filter(|m| m.emission == Vec3::ZERO) {
        *m = warpath_core::material::Material::diffuse(m.base_color);
    }
    let runs = 64u32;
    let last_frames_of = |scene: &Scene, options: RestirOptions, step: f32| -> Vec<Vec<Vec3>> {
        let mut renderer =
            RestirRenderer::new(&device, scene, &settings(scene, 0), BuildKind::Sah, &options).expect("uploads");
        (0..runs)
            .map(|run| {
                renderer.restart(9000 + run).expect("restarts");
                renderer.set_camera(&scene.camera).expect("camera");
                for k in 0..frames {
                    renderer.set_camera(&scene.camera.orbited(step * k as f32)).expect("camera");
                    renderer.clear_film().expect("clears");
                    renderer.render_frame().expect("renders a frame");
                }
                renderer.download_film().expect("downloads").mean()
            })
            .collect()
    };
    // The per-pixel variance of the luminance over the runs, averaged over the pixels.
    let spread = |images: &[Vec<Vec3>]| -> f64 {
        let n = images.len() as f64;
        let pixels = images[0].len();
        let mut variance = 0.0;
        for p in 0..pixels {
            let values: Vec<f64> =
                images.iter().map(|im| (0.2126 * im[p].x + 0.7152 * im[p].y + 0.0722 * im[p].z) as f64).collect();
            let m = values.iter().sum::<f64>() / n;
            variance += values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0);
        }
        variance / pixels as f64
    };
    let unbiased = RestirOptions {
        radius: 15.0,
        spatial_passes: 0,
        target: TargetFunction::Luminance,
        bias: BiasCorrection::RayTraced,
        ..RestirOptions::default()
    };
    let pairwise = RestirOptions { bias: BiasCorrection::Pairwise, ..unbiased };
    let mut glossy_moving = [0.0f64; 2];
    // The diffuse orbit's last frames (ray-traced), kept for the bias check below.
    let mut diffuse_moving: Vec<Vec<Vec3>> = Vec::new();
    for (name, scene, options) in [
        ("glossy", &glossy, unbiased),
        ("diffuse", &scene, unbiased),
        ("glossy, pairwise MIS", &glossy, pairwise),
        ("diffuse, pairwise MIS", &scene, pairwise),
    ] {
        let without = spread(&last_frames_of(scene, RestirOptions { temporal: false, ..options }, step));
        let moving_images = last_frames_of(scene, options, step);
        let moving = spread(&moving_images);
        let still = spread(&last_frames_of(scene, options, 0.0));
        println!(
            "{name} surfaces, frame {}: per-pixel luminance variance with temporal reuse ÷ without: static camera \
             {:.2}×, moving camera ({step}° a frame) {:.2}× ({without:.4e} without)",
            frames - 1,
            still / without,
            moving / without
        );
        match name {
            "diffuse" => {
                assert!(moving < 0.9 * without, "temporal reuse under a moving camera: {moving} vs {without}");
                diffuse_moving = moving_images;
            }
            "glossy" => glossy_moving[0] = moving,
            "glossy, pairwise MIS" => glossy_moving[1] = moving,
            _ => {}
        }
    }
    // Pairwise MIS bounds what a reprojected glossy reservoir can contribute.
    assert!(
        glossy_moving[1] < glossy_moving[0],
        "pairwise MIS under motion on glossy surfaces: {} vs ray-traced {}",
        glossy_moving[1],
        glossy_moving[0]
    );
    let images = diffuse_moving;
    // The reference at the last frame's camera.
    let mut last_scene = scene.clone();
    last_scene.camera = scene.camera.orbited(step * (frames - 1) as f32);
    let (reference, reference_error) = path_traced_mean(&device, &last_scene, 64);
    // Each run's image mean, for the standard error of the runs' mean.
    let run_means: Vec<f64> =
        images.iter().map(|im| im.iter().map(|p| (p.x + p.y + p.z) as f64).sum::<f64>() / im.len() as f64).collect();
    let m = run_means.iter().sum::<f64>() / runs as f64;
    let se = (run_means.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (runs - 1) as f64 / runs as f64).sqrt();
    let z = (m - reference) / (se * se + reference_error * reference_error).sqrt();
    println!(
        "moving camera, frame {}: image mean {m:.6} ± {se:.2e} against the path tracer's {reference:.6}: {:+.3}%, z {z:+.2}",
        frames - 1,
        100.0 * (m / reference - 1.0)
    );
    assert!(z.abs() < 4.0, "moving camera: z {z}");
}

/// The GPU records where each pixel's final sample came from (`set_record_origins`, restir.cu's
/// RESTIR_ORIGIN_* writes) as the CPU reference does (`RestirFrames::origins`): every frame's
/// origin map of every reservoir target equal for ≥ 99% of the pixels (a float comparison that
/// flips changes the sample, as the films' check allows), with the kernels' rays inline and in
/// lane groups; and recording changes no bit of the film.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_restir_records_the_cpu_origins() {
    let Some(device) = device() else { return };
    let scene = scene(512, 96, 64);
    let frames = 4u32;
    let base = RestirOptions {
        radius: 8.0,
        seed: 13,
        target: TargetFunction::Luminance,
        bias: BiasCorrection::RayTraced,
        ..RestirOptions::default()
    };
    let cpu = CpuRenderer::new(&scene, BuildKind::Sah);
    let view = cpu.view(&RenderOptions { seed: 13, ..RenderOptions::from_scene(&scene) });
    let mut failures = Vec::new();
    for (name, options) in [
        ("ray-traced", base),
        ("pairwise MIS, 2 spatial passes", RestirOptions { bias: BiasCorrection::Pairwise, spatial_passes: 2, ..base }),
        ("1/M", RestirOptions { bias: BiasCorrection::Off, ..base }),
        ("2 BSDF candidates, no pool", RestirOptions { bsdf_candidates: 2, light_pool: false, ..base }),
        ("boiling filter 0.5", RestirOptions { boiling_filter: 0.5, ..base }),
        ("the defaults (per-channel, pairwise)", RestirOptions { radius: 8.0, seed: 13, ..RestirOptions::default() }),
    ] {
        let mut sequence = warpath_cpu::restir::RestirFrames::new(&view, &options).expect("renders");
        sequence.set_record_origins(true);
        let expected: Vec<_> = (0..frames)
            .map(|_| {
                sequence.render(&view, &scene.camera);
                sequence.origins().expect("recording").to_vec()
            })
            .collect();
        for lanes in [RayLanes::DEFAULT, RayLanes::Inline] {
            let mut renderer =
                RestirRenderer::new(&device, &scene, &settings(&scene, 13), BuildKind::Sah, &options).expect("uploads");
            renderer.set_ray_lanes(lanes);
            renderer.set_record_origins(true).expect("records");
            let mut counts = [0usize; 5];
            for (frame, expected) in expected.iter().enumerate() {
                renderer.render_frame().expect("renders a frame");
                let got = renderer.origins().expect("downloads").expect("recording");
                assert_eq!(got.len(), expected.len(), "{name}: one map per reservoir target");
                let (mut equal, mut pixels) = (0usize, 0usize);
                for (g, e) in got.iter().zip(expected) {
                    for (a, b) in g.iter().zip(e) {
                        equal += (a == b) as usize;
                        pixels += 1;
                        counts[*a as usize] += 1;
                    }
                }
                if (equal as f64) < 0.99 * pixels as f64 {
                    failures.push(format!("{name}, {lanes:?}, frame {frame}: {equal} of {pixels} origins equal"));
                }
            }
            println!(
                "{name}, {lanes:?}: GPU origins over {frames} frames {counts:?} (none, light, BSDF, temporal, spatial)"
            );
            let plain = gpu_restir_in(Schedule { lanes, ..Schedule::default() }, &device, &scene, &options, 13, frames);
            if !same_film(&renderer.download_film().expect("downloads"), &plain) {
                failures.push(format!("{name}, {lanes:?}: recording origins changed the film"));
            }
        }
    }
    assert!(failures.is_empty(), "GPU origins differ from the CPU's: {failures:?}");
}
