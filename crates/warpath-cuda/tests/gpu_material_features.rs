//! The basic-materials programs (`WARPATH_MATERIAL_FEATURES 0`: no principled, plastic, maps,
//! textures, masks, eta/k or Beckmann code) against the default programs (every feature) on
//! scenes that need none of the features: the code the basic programs drop is code such a
//! scene never runs, or runs with a constant result (an opacity of 1, a normal-map factor of
//! 1), and every float operation of the estimator is a rounded intrinsic (`__fmul_rn`, …) that
//! ptxas never fuses, so the two builds compute the same bits whatever they inline:
//!
//! - the naive megakernel (one thread per pixel, no atomics racing on a pixel) and ReSTIR DI
//!   (one thread per pixel in every kernel): films equal bit for bit;
//! - the multi-stage and wavefront schedules: per-bounce path counts and ray counts equal, and
//!   the films equal bit for bit or, where a pass's samples meet a pixel through atomics in
//!   another order, within 1e-5 relative for every value;
//!
//! and scenes with principled materials (or any feature) pick the default programs and refuse
//! the basic ones.
//!
//! `#[ignore]`d (they need a GPU): `cargo test -- --include-ignored`; without a device they skip
//! with a notice, or fail with `WARPATH_REQUIRE_GPU=1`.

use glam::Vec3;
use warpath_bvh::BuildKind;
use warpath_core::film::Film;
use warpath_core::material::Material;
use warpath_core::restir::RestirOptions;
use warpath_core::sampler::SamplerKind;
use warpath_cuda::restir::RestirRenderer;
use warpath_cuda::runtime::CudaDevice;
use warpath_cuda::strategy::PathCounters;
use warpath_cuda::wide_bvh::BvhLayout;
use warpath_cuda::{MaterialFeatures, Strategy, StrategyRenderer, WavefrontCompaction};
use warpath_scene::{RenderSettings, Scene};

mod common;
use common::{device, principled_scene, settings, volume_scene};

/// Renders `scene` with `strategy`, its programs compiled for `materials` (None: the scene's
/// choice, asserted to be the basic one).
fn render(
    device: &CudaDevice,
    scene: &Scene,
    s: &RenderSettings,
    strategy: Strategy,
    materials: Option<MaterialFeatures>,
) -> (Film, PathCounters) {
    let mut renderer = StrategyRenderer::new(device, scene, s, BuildKind::Sbvh).expect("upload");
    assert_eq!(renderer.material_features_needed(), MaterialFeatures::NONE, "{}: a basic scene", scene.name);
    match materials {
        None => assert_eq!(renderer.kernel_variant().materials, MaterialFeatures::NONE, "the scene's choice"),
        Some(m) => renderer.set_material_features(m).expect("features"),
    }
    renderer.set_strategy(strategy);
    renderer.set_instrumentation(true).expect("counters");
    let first = s.spp / 2;
    renderer.render_pass(0, first).expect("pass 1");
    renderer.render_pass(first, s.spp - first).expect("pass 2");
    (renderer.download_film().expect("film"), renderer.counters().expect("counters"))
}

fn bits(film: &Film) -> Vec<u64> {
    film.sum.iter().chain(&film.sum_sq).flat_map(|v| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()]).collect()
}

/// Equal bit for bit, or (`exact` false) within 1e-5 relative for every value.
fn compare_films(label: &str, basic: &Film, full: &Film, exact: bool) {
    assert_eq!(basic.count, full.count, "{label}: sample counts");
    let scale: f64 = full.sum.iter().map(|p| (p.x + p.y + p.z) / 3.0).sum::<f64>() / full.sum.len().max(1) as f64;
    assert!(scale > 0.0, "{label}: a black image tests nothing");
    let (a, b) = (bits(basic), bits(full));
    let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    eprintln!("{label}: {differing} of {} f64 sums differ in any bit", a.len());
    if exact {
        assert_eq!(differing, 0, "{label}: the basic and full programs must give the same bits");
        return;
    }
    let mut worst = 0.0f64;
    for (x, y) in basic.sum.iter().zip(&full.sum) {
        for (x, y) in [(x.x, y.x), (x.y, y.y), (x.z, y.z)] {
            let r = (x - y).abs() / x.abs().max(y.abs()).max(1e-6 * scale);
            worst = worst.max(if r.is_nan() { f64::INFINITY } else { r });
        }
    }
    eprintln!("{label}: worst relative difference {worst:.2e}");
    assert!(worst <= 1e-5, "{label}: worst relative difference {worst:.2e}");
}

fn compare(device: &CudaDevice, label: &str, scene: &Scene, s: &RenderSettings, strategy: Strategy, exact: bool) {
    let (basic_film, basic) = render(device, scene, s, strategy, None);
    let (full_film, full) = render(device, scene, s, strategy, Some(MaterialFeatures::ALL));
    eprintln!("{label}: active per bounce {:?}", basic.active_per_bounce);
    assert!(basic.active_per_bounce.len() > 2, "{label}: paths must bounce");
    assert_eq!(basic.active_per_bounce, full.active_per_bounce, "{label}: paths per bounce");
    assert_eq!(basic.extension_rays, full.extension_rays, "{label}: extension rays");
    assert_eq!(basic.shadow_rays, full.shadow_rays, "{label}: shadow rays");
    assert_eq!(basic.tracking.steps, full.tracking.steps, "{label}: tracking steps");
    compare_films(label, &basic_film, &full_film, exact);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn cornell_basic_programs_equal_the_full_ones() {
    let Some(device) = device() else { return };
    let scene = warpath_scene::load("cornell").expect("built-in");
    for sampler in [SamplerKind::PaddedHalton, SamplerKind::Pcg] {
        let s = settings(96, 96, 16, 7, sampler);
        compare(&device, &format!("cornell naive {sampler:?}"), &scene, &s, Strategy::Naive, true);
    }
    let s = settings(96, 96, 16, 3, SamplerKind::Pcg);
    compare(&device, "cornell multistage", &scene, &s, Strategy::MultiStage, false);
    let wavefront = Strategy::Wavefront(WavefrontCompaction::Lookback);
    compare(&device, "cornell wavefront", &scene, &s, wavefront, false);
    compare(&device, "cornell regen-warp", &scene, &s, Strategy::RegenWarp, false);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn volume_scene_basic_programs_equal_the_full_ones() {
    let Some(device) = device() else { return };
    let s = settings(48, 48, 8, 9, SamplerKind::Pcg);
    let scene = volume_scene();
    compare(&device, "volume naive", &scene, &s, Strategy::Naive, true);
    compare(&device, "volume multistage", &scene, &s, Strategy::MultiStage, false);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn a_principled_scene_renders_with_every_feature() {
    let Some(device) = device() else { return };
    let scene = principled_scene();
    let s = settings(32, 32, 2, 1, SamplerKind::Pcg);
    let mut renderer = StrategyRenderer::new(&device, &scene, &s, BuildKind::Sbvh).expect("upload");
    assert!(renderer.material_features_needed().contains(MaterialFeatures::PRINCIPLED));
    assert_eq!(renderer.kernel_variant().materials, MaterialFeatures::ALL);
    assert!(!renderer.kernel_variant().label().contains("basic"), "{}", renderer.kernel_variant().label());
    let error = renderer.set_material_features(MaterialFeatures::NONE).expect_err("the basic programs lack principled");
    assert!(error.to_string().contains("principled"), "{error}");
    // The refused change left the full programs in place: a pass renders.
    assert_eq!(renderer.kernel_variant().materials, MaterialFeatures::ALL);
    renderer.render_pass(0, 2).expect("a pass");
    let film = renderer.download_film().expect("film");
    assert!(film.sum.iter().any(|p| p.x + p.y + p.z > 0.0), "a lit image");
    // ReSTIR likewise (on the Cornell box with a principled material: ReSTIR refuses the
    // delta lights of the scene above).
    let mut scene = warpath_scene::load("cornell").expect("built-in");
    scene.materials.push(Material::principled(Vec3::ONE, 0.4, 1.5));
    scene.material_names.push("principled".into());
    let options = RestirOptions::default();
    let mut restir =
        RestirRenderer::with_layout(&device, &scene, &s, BuildKind::Sbvh, BvhLayout::Wide8, &options).expect("upload");
    assert_eq!(restir.program_name(), "restir_wide8_nobsdf");
    assert!(restir.set_program_features(MaterialFeatures::NONE, false).is_err());
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn restir_cornell_basic_program_equals_the_full_one() {
    let Some(device) = device() else { return };
    let scene = warpath_scene::load("cornell").expect("built-in");
    let s = settings(64, 64, 1, 11, SamplerKind::Pcg);
    let options = RestirOptions { seed: 11, ..Default::default() };
    let render = |features: Option<(MaterialFeatures, bool)>| {
        let mut renderer =
            RestirRenderer::with_layout(&device, &scene, &s, BuildKind::Sbvh, BvhLayout::Wide8, &options)
                .expect("upload");
        match features {
            None => assert_eq!(renderer.program_name(), "restir_wide8_nobsdf_basic"),
            Some((m, b)) => renderer.set_program_features(m, b).expect("features"),
        }
        renderer.prepare().expect("kernels");
        for _ in 0..4 {
            renderer.render_frame().expect("frame");
        }
        renderer.download_film().expect("film")
    };
    let basic = render(None);
    // The full program without the candidates' code, and the one with it (given none).
    compare_films("restir basic vs full", &basic, &render(Some((MaterialFeatures::ALL, false))), true);
    compare_films("restir basic vs full with candidates", &basic, &render(Some((MaterialFeatures::ALL, true))), true);
}
