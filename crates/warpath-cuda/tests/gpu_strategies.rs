//! Every path scheduling strategy (issue 5) against the naive megakernel, same scene, seed
//! and samples: the paths are a pure function of (pixel, sample, bounce, dimension), so
//!
//! - the per-bounce active-path counts, extension rays and shadow rays are exactly equal;
//! - every pixel's sample count is equal and its mean agrees to a relative 1e-5 (observed 2.3e-7; the film's
//!   sums are added in another order: atomics instead of one thread per pixel);
//! - the compacting wavefronts run no more warps per bounce than a dense packing of that
//!   bounce's paths needs (plus one partial warp per wave and block boundary), and never
//!   more than naive;
//!
//! on the built-in Cornell box at an odd size (partial 8×8 tiles: born-dead paths) and on an
//! open scene lit by an HDR environment map (most paths escape), in two passes and with
//! waves smaller than a pass, so pass and wave boundaries are crossed. Also: the device
//! compiler's layout of `ScheduleArgs`/`StoredPath` equals Rust's.
//!
//! `WARPATH_STRATEGY_SMALL=1` shrinks the renders (for compute-sanitizer). The GPU tests are
//! `#[ignore]`d: `cargo test -- --include-ignored` runs them; without a device they skip with a
//! notice, or fail with `WARPATH_REQUIRE_GPU=1`.

mod common;

use common::{device, material_scene, settings, with_masks};
use warpath_bvh::BuildKind;
use warpath_core::film::Film;
use warpath_core::sampler::SamplerKind;
use warpath_cuda::strategy::{PathCounters, Strategy, StrategyRenderer, WavefrontCompaction};
use warpath_scene::{RenderSettings, Scene};

fn small() -> bool {
    std::env::var("WARPATH_STRATEGY_SMALL").as_deref() == Ok("1")
}

fn render(renderer: &mut StrategyRenderer, strategy: Strategy, spp: u32) -> (Film, PathCounters) {
    renderer.reset().expect("reset");
    renderer.set_strategy(strategy);
    let first = spp / 2;
    renderer.render_pass(0, first).unwrap_or_else(|e| panic!("{strategy}: pass 1: {e}"));
    renderer.render_pass(first, spp - first).unwrap_or_else(|e| panic!("{strategy}: pass 2: {e}"));
    (renderer.download_film().expect("film"), renderer.counters().expect("counters"))
}

fn compare_films(label: &str, naive: &Film, other: &Film) {
    assert_eq!(naive.count, other.count, "{label}: sample counts");
    let (a, b) = (naive.mean(), other.mean());
    let mut worst = (0.0f32, 0usize);
    for i in 0..a.len() {
        for c in 0..3 {
            let (x, y) = (a[i][c], b[i][c]);
            let relative = (x - y).abs() / x.abs().max(y.abs()).max(1e-6);
            assert!(relative.is_finite(), "{label}: pixel {i}: {x} vs {y}");
            if relative > worst.0 {
                worst = (relative, i);
            }
        }
    }
    eprintln!("{label}: max relative difference {:.2e} at pixel {}", worst.0, worst.1);
    assert!(worst.0 <= 1e-5, "{label}: pixel {}: {:?} vs {:?}", worst.1, a[worst.1], b[worst.1]);
}

/// Every strategy against naive on `scene`; naive's paths must reach past bounce
/// `min_bounces - 1` (so that the comparison covers bounces beyond the camera rays).
fn check_scene(scene: &Scene, s: &RenderSettings, wave_paths: u32, min_bounces: usize) {
    let Some(device) = device() else { return };
    let mut renderer = StrategyRenderer::new(&device, scene, s, BuildKind::Sah).expect("upload");
    renderer.set_instrumentation(true).expect("counters");
    renderer.set_max_wave_paths(wave_paths);
    let (naive_film, naive) = render(&mut renderer, Strategy::Naive, s.spp);
    eprintln!("{}: naive paths per bounce {:?}", scene.name, naive.active_per_bounce);
    eprintln!("{}: naive warps per bounce {:?}", scene.name, naive.active_warps_per_bounce);
    assert!(
        naive.active_per_bounce.len() >= min_bounces,
        "{}: the scene must have paths at {min_bounces} bounces: {:?}",
        scene.name,
        naive.active_per_bounce
    );
    for strategy in Strategy::ALL.into_iter().filter(|&s| s != Strategy::Naive) {
        let label = format!("{}/{strategy}", scene.name);
        let (film, counters) = render(&mut renderer, strategy, s.spp);
        eprintln!("{label}: warps per bounce {:?}", counters.active_warps_per_bounce);
        assert_eq!(counters.active_per_bounce, naive.active_per_bounce, "{label}: paths per bounce");
        assert_eq!(counters.extension_rays, naive.extension_rays, "{label}: extension rays");
        assert_eq!(counters.shadow_rays, naive.shadow_rays, "{label}: shadow rays");
        compare_films(&label, &naive_film, &film);
        if let Strategy::Wavefront(method) = strategy {
            // Launches of one bounce: one per wave, waves of at most wave_paths (padded)
            // indices, two passes; padding makes the index space at most ~2× the paths.
            let launches = 2 * (2 * naive.active_per_bounce[0] / wave_paths as u64 + 2);
            let bounces = counters.active_per_bounce.iter().zip(&counters.active_warps_per_bounce);
            for (b, (&paths, &warps)) in bounces.enumerate() {
                // Without compaction the survivors keep their slots in the waves' index space,
                // whose layout is not naive's: a few sparse survivors may touch one warp more
                // than under naive's tiles, but never more than the index space holds.
                let index_space = naive.active_per_bounce[0].div_ceil(32) + launches;
                assert!(warps <= index_space, "{label}: bounce {b}: {warps} warps, index space {index_space}");
                if method != WavefrontCompaction::None {
                    assert!(warps <= naive.active_warps_per_bounce[b], "{label}: bounce {b}: more warps than naive");
                }
                if b > 0 && method != WavefrontCompaction::None {
                    // The survivors are dense: only each launch's last warp may be partial.
                    let bound = paths.div_ceil(32) + launches;
                    assert!(warps <= bound, "{label}: bounce {b}: {warps} warps for {paths} paths (bound {bound})");
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn every_strategy_matches_naive_on_the_cornell_box() {
    let scene = warpath_scene::load("cornell").expect("built-in");
    let s = if small() {
        settings(21, 13, 2, 5, SamplerKind::PaddedHalton)
    } else {
        settings(61, 47, 8, 5, SamplerKind::PaddedHalton)
    };
    check_scene(&scene, &s, 4096, 3);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn every_strategy_matches_naive_under_an_environment_map() {
    let scene = material_scene();
    let s = if small() {
        settings(24, 16, 2, 9, SamplerKind::PaddedHalton)
    } else {
        settings(64, 48, 8, 9, SamplerKind::PaddedHalton)
    };
    check_scene(&scene, &s, 5000, 3);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn every_strategy_matches_naive_with_isosurfaces() {
    // The "-iso" programs of every family (issue 14's isosurface shapes).
    let scene = common::isosurface_scene();
    let s = if small() {
        settings(24, 16, 2, 11, SamplerKind::PaddedHalton)
    } else {
        settings(64, 48, 4, 11, SamplerKind::PaddedHalton)
    };
    check_scene(&scene, &s, 5000, 3);
}

/// The scenes of the Mitsuba oracle set and the pbrt-v4 Cornell box, imported (their
/// principled, plastic and thin-dielectric materials, normal maps, instances, serialized meshes,
/// baked checkerboards, delta lights): every strategy against naive on each surface scene (the
/// media scenes render with the volumetric estimator, whose strategies gpu_volume checks).
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn every_strategy_matches_naive_on_imported_scenes() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../warpath-scene/tests/data");
    let mut files: Vec<_> = std::fs::read_dir(data.join("mitsuba-oracle"))
        .expect("the oracle scenes")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    files.push(data.join("pbrt/cornell-box.pbrt"));
    let s = if small() {
        settings(16, 12, 2, 13, SamplerKind::PaddedHalton)
    } else {
        settings(40, 30, 4, 13, SamplerKind::PaddedHalton)
    };
    let mut checked = 0;
    for file in &files {
        let scene = warpath_scene::load(file.to_str().expect("a UTF-8 path")).expect("the scene imports");
        if scene.needs_volume_estimator() {
            continue;
        }
        eprintln!("=== {}", file.display());
        check_scene(&scene, &s, 700, 2);
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} imported surface scenes");
}

/// Opacity masks (constant and textured) on the material scene: every strategy traces the
/// same pass-throughs as naive.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn every_strategy_matches_naive_on_masked_materials() {
    let scene = with_masks(material_scene());
    let s = if small() {
        settings(21, 13, 2, 9, SamplerKind::PaddedHalton)
    } else {
        settings(61, 47, 8, 9, SamplerKind::PaddedHalton)
    };
    check_scene(&scene, &s, 4096, 3);
}
