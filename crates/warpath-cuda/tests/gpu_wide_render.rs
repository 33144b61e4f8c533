//! Renders with the scene uploaded in the compressed 8-wide BVH layout (`BvhLayout::Wide8`:
//! programs built with `WARPATH_WIDE_BVH`) against the same renders in the binary layout, same
//! scene, seed and spp. The two traversals return the same closest hits (both equal brute force
//! on these scenes; warpath-bench's gpu_wide_traversal.rs and the lockstep crate check that ray
//! for ray), so the renders trace the same paths:
//!
//! - per-bounce active path counts, extension and shadow rays exactly equal;
//! - per pixel and channel the means agree within 1e-4 relative for at least 99.9% of the values
//!   (what remains is the order in which a pass's samples are added with atomics);
//!
//! for the Cornell box under the naive megakernel and the multi-stage wavefront, the material
//! scene (environment map, textures, every BSDF), the volumetric path tracer's test scene, and
//! ReSTIR DI's frames on the Cornell box (film only: ReSTIR has no path counters).
//!
//! `#[ignore]`d (they need a GPU): `cargo test -- --include-ignored`; without a device they skip
//! with a notice, or fail with `WARPATH_REQUIRE_GPU=1`.

use warpath_bvh::{BuildKind, Bvh};
use warpath_core::film::Film;
use warpath_core::restir::RestirOptions;
use warpath_core::sampler::SamplerKind;
use warpath_cuda::restir::RestirRenderer;
use warpath_cuda::runtime::CudaDevice;
use warpath_cuda::strategy::PathCounters;
use warpath_cuda::wide_bvh::BvhLayout;
use warpath_cuda::{Strategy, StrategyRenderer};
use warpath_scene::{RenderSettings, Scene};

mod common;
use common::{device, material_scene, settings, volume_scene};

fn render(
    device: &CudaDevice,
    scene: &Scene,
    s: &RenderSettings,
    strategy: Option<Strategy>,
    layout: BvhLayout,
) -> (Film, PathCounters) {
    let (bvh, _) = Bvh::build(&scene.triangle_soup(), &StrategyRenderer::bvh_options(BuildKind::Sbvh));
    let mut renderer = StrategyRenderer::with_bvh_layout(device, scene, s, &bvh, layout).expect("upload");
    assert_eq!(renderer.bvh_layout(), layout);
    if let Some(strategy) = strategy {
        renderer.set_strategy(strategy);
    }
    renderer.set_instrumentation(true).expect("counters");
    let first = s.spp / 2;
    renderer.render_pass(0, first).expect("pass 1");
    renderer.render_pass(first, s.spp - first).expect("pass 2");
    (renderer.download_film().expect("film"), renderer.counters().expect("counters"))
}

/// Means within 1e-4 relative (floor: 1e-4 of the image's mean) for at least 99.9% of values.
fn compare_films(label: &str, a: &Film, b: &Film) {
    assert_eq!(a.count, b.count, "{label}: sample counts");
    let (ma, mb) = (a.mean(), b.mean());
    let scale: f64 =
        ma.iter().map(|p| (p[0] as f64 + p[1] as f64 + p[2] as f64) / 3.0).sum::<f64>() / ma.len().max(1) as f64;
    assert!(scale > 0.0, "{label}: a black image tests nothing");
    let floor = 1e-4 * scale;
    let mut within = 0usize;
    let mut worst = 0.0f64;
    for (pa, pb) in ma.iter().zip(&mb) {
        for c in 0..3 {
            let (x, y) = (pa[c] as f64, pb[c] as f64);
            let r = (x - y).abs() / x.abs().max(y.abs()).max(floor);
            if r <= 1e-4 {
                within += 1;
            }
            worst = worst.max(if r.is_nan() { f64::INFINITY } else { r });
        }
    }
    let values = 3 * ma.len();
    eprintln!("{label}: {within} of {values} values within 1e-4 relative; max {worst:.2e}");
    assert!(within as f64 >= 0.999 * values as f64, "{label}: only {within} of {values} values agree");
}

fn compare_layouts(device: &CudaDevice, label: &str, scene: &Scene, s: &RenderSettings, strategy: Option<Strategy>) {
    let (binary_film, binary) = render(device, scene, s, strategy, BvhLayout::Binary);
    let (wide_film, wide) = render(device, scene, s, strategy, BvhLayout::Wide8);
    eprintln!("{label}: binary active per bounce {:?}", binary.active_per_bounce);
    eprintln!("{label}: wide8  active per bounce {:?}", wide.active_per_bounce);
    assert!(binary.active_per_bounce.len() > 2, "{label}: paths must bounce");
    assert_eq!(binary.active_per_bounce, wide.active_per_bounce, "{label}: paths per bounce");
    assert_eq!(binary.extension_rays, wide.extension_rays, "{label}: extension rays");
    assert_eq!(binary.shadow_rays, wide.shadow_rays, "{label}: shadow rays");
    assert_eq!(binary.tracking.steps, wide.tracking.steps, "{label}: tracking steps");
    compare_films(label, &binary_film, &wide_film);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn cornell_megakernel_binary_vs_wide8() {
    let Some(device) = device() else { return };
    let scene = warpath_scene::load("cornell").expect("built-in");
    for sampler in [SamplerKind::PaddedHalton, SamplerKind::Pcg] {
        let s = settings(96, 96, 16, 7, sampler);
        compare_layouts(&device, &format!("cornell megakernel {sampler:?}"), &scene, &s, Some(Strategy::Naive));
    }
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn cornell_multistage_binary_vs_wide8() {
    let Some(device) = device() else { return };
    let scene = warpath_scene::load("cornell").expect("built-in");
    let s = settings(96, 96, 16, 3, SamplerKind::Pcg);
    compare_layouts(&device, "cornell multistage", &scene, &s, Some(Strategy::MultiStage));
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn material_scene_binary_vs_wide8() {
    let Some(device) = device() else { return };
    let s = settings(64, 48, 8, 5, SamplerKind::Pcg);
    compare_layouts(&device, "materials megakernel", &material_scene(), &s, Some(Strategy::Naive));
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn volume_scene_binary_vs_wide8() {
    let Some(device) = device() else { return };
    let s = settings(48, 48, 8, 9, SamplerKind::Pcg);
    compare_layouts(&device, "volume default strategy", &volume_scene(), &s, None);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn restir_cornell_binary_vs_wide8() {
    let Some(device) = device() else { return };
    let scene = warpath_scene::load("cornell").expect("built-in");
    let s = settings(64, 64, 1, 11, SamplerKind::Pcg);
    let options = RestirOptions { seed: 11, ..Default::default() };
    let films: Vec<Film> = [BvhLayout::Binary, BvhLayout::Wide8]
        .into_iter()
        .map(|layout| {
            let mut renderer =
                RestirRenderer::with_layout(&device, &scene, &s, BuildKind::Sbvh, layout, &options).expect("upload");
            renderer.prepare().expect("kernels");
            for _ in 0..4 {
                renderer.render_frame().expect("frame");
            }
            renderer.download_film().expect("film")
        })
        .collect();
    compare_films("restir cornell", &films[0], &films[1]);
}
