//! The compressed 8-wide BVH's kernels (`traverse_wide_closest`, `traverse_wide_any`) on the
//! GPU, ray for ray, against
//! - their specification, `warpath_bvh::wide::WideBvh::intersect` / `occluded` on the CPU: the
//!   same triangle and `t`, `u`, `v` bit for bit (the kernel rounds every operation as the CPU
//!   does; the lockstep crate checks the same header on the host), any hit exactly when occluded;
//! - the binary Aila–Laine kernel (`traverse_while_while_*`) over the binary tree the wide one was
//!   collapsed from: the same triangle with `t` equal to round-off (1e-6 relative), and identical
//!   any-hit answers.
//!
//! Where the wide and the binary kernel name different triangles (or one misses), the two
//! trees disagree about a hit no hierarchy has to find: both traversals equal brute force except
//! for Möller–Trumbore "hits" outside the triangle's box (wild hits on nearly degenerate
//! triangles, edge hits a few ulps outside the box; docs/wide-bvh.md), and a shared edge hit at
//! the same `t` goes to the lower id in both. Such rays are counted and must be under 0.1%; for
//! each, the binary kernel must agree with `Bvh::intersect` and the wide one with
//! `WideBvh::intersect` (so each is its tree's exact answer).
//!
//! Every schedule of `WideSchedule::BENCHMARKED` (one ray per thread, persistent with dynamic
//! fetch, persistent postponing triangle groups) is checked so.
//!
//! The `woop_*` tests do the same with the triangles in Woop's layout (the `traverse_wide_woop_*`
//! kernels, `traversal/woop.cuh`): bit for bit against `WideBvh::intersect_woop` /
//! `occluded_woop`, and against the binary kernel with `t` within 1e-4 relative (the two
//! triangle tests round differently; edge hits that fall to different sides are tree
//! differences, under 0.2% of the rays as `tests/wide_woop_scenes.rs` measures on the CPU).
//!
//! Rays: `warpath-bench traversal`'s three sets (`warpath_bench::rays::make_rays`: camera rays through every pixel; from every
//! primary hit an "ao" any-hit segment of 10% of the scene diagonal and an unbounded cosine
//! "diffuse" ray), at 512x512, on the Cornell box and, where their assets are present
//! (`scripts/fetch-assets`), the bunny and the dragon (absent: skipped with a notice); SAH and
//! SBVH trees, optimal and greedy collapses.
//!
//! `#[ignore]`d (they need a GPU): `cargo test -- --include-ignored`; without a device they skip
//! with a notice, or fail with `WARPATH_REQUIRE_GPU=1`.

use glam::Vec3;
use rayon::prelude::*;
use std::path::PathBuf;
use warpath_bench::rays::make_rays;
use warpath_bench::traverse::{HitMode, TraversalKernel, trace_rays};
use warpath_bench::wide_traverse::{WideSchedule, trace_rays_wide, trace_rays_wide_with};
use warpath_bvh::wide::{Collapse, WideBvh, WideTriangles, WoopTriangles};
use warpath_bvh::{BuildKind, BuildOptions, Bvh};
use warpath_core::math::Ray;
use warpath_cuda::runtime::{CudaDevice, test_device};
use warpath_cuda::wide_bvh::{DeviceWideBvh, GpuWideBvh};
use warpath_cuda::{DeviceBvh, GpuBvh, GpuHit, GpuRay};

const RESOLUTION: u32 = 512;

fn device() -> Option<CudaDevice> {
    test_device().unwrap_or_else(|error| panic!("WARPATH_REQUIRE_GPU=1 or a broken device: {error}"))
}

/// Checks one tree pair on one ray set; returns failure lines.
#[allow(clippy::too_many_arguments)]
fn check_set(
    label: &str,
    tris: &[[Vec3; 3]],
    bvh: &Bvh,
    wide: &WideBvh,
    woop: Option<&WoopTriangles>,
    mode: HitMode,
    rays: &[Ray],
    binary_gpu: &[GpuHit],
    wide_gpu: &[GpuHit],
) -> Vec<String> {
    let mut failures = Vec::new();
    // 0: equal; 1: a tree disagreement (each kernel its tree's exact answer); 2: a wide kernel error.
    let verdicts: Vec<(u8, String)> = rays
        .par_iter()
        .zip(binary_gpu.par_iter().zip(wide_gpu))
        .enumerate()
        .map(|(i, (ray, (b, w)))| match mode {
            HitMode::Any => {
                let spec = woop.map_or_else(|| wide.occluded(tris, ray), |woop| wide.occluded_woop(woop, ray));
                if w.is_hit() != spec {
                    (2, format!("ray {i}: wide any hit {} but WideBvh::occluded {spec}", w.is_hit()))
                } else if w.is_hit() != b.is_hit() {
                    let binary_spec = bvh.occluded(tris, ray);
                    if b.is_hit() == binary_spec {
                        (1, String::new())
                    } else {
                        (2, format!("ray {i}: binary any hit {} but Bvh::occluded {binary_spec}", b.is_hit()))
                    }
                } else {
                    (0, String::new())
                }
            }
            HitMode::Closest => {
                let spec = woop.map_or_else(|| wide.intersect(tris, ray), |woop| wide.intersect_woop(woop, ray));
                let spec_words = spec.map_or((-1, ray.t_max.to_bits(), 0, 0), |h| {
                    (h.prim as i32, h.t.to_bits(), h.u.to_bits(), h.v.to_bits())
                });
                let wide_words = (w.prim, w.t.to_bits(), w.u.to_bits(), w.v.to_bits());
                if wide_words != spec_words {
                    return (2, format!("ray {i} {ray:?}: wide kernel {w:?}, WideBvh::intersect {spec:?}"));
                }
                let tolerance = if woop.is_some() { 1e-4 } else { 1e-6 };
                let close = (w.t - b.t).abs() <= tolerance * w.t.abs().max(b.t.abs());
                if w.prim == b.prim && (close || !w.is_hit()) {
                    return (0, String::new());
                }
                let binary_spec = bvh.intersect(tris, ray).map_or(-1, |h| h.prim as i32);
                if binary_spec == b.prim {
                    (1, String::new())
                } else {
                    (2, format!("ray {i}: binary kernel {b:?} but Bvh::intersect names {binary_spec}"))
                }
            }
        })
        .collect();
    let equal = verdicts.iter().filter(|(v, _)| *v == 0).count();
    let tree_differences = verdicts.iter().filter(|(v, _)| *v == 1).count();
    let errors: Vec<&String> = verdicts.iter().filter(|(v, _)| *v == 2).map(|(_, m)| m).collect();
    let hits = wide_gpu.iter().filter(|h| h.is_hit()).count();
    eprintln!(
        "{label}: {} rays, {hits} hit, {equal} equal, {tree_differences} tree differences, {} errors",
        rays.len(),
        errors.len()
    );
    if !errors.is_empty() {
        failures.push(format!("{label}: {} errors (first: {})", errors.len(), errors[0]));
    }
    let allowed = if woop.is_some() { 500 } else { 1000 };
    if tree_differences * allowed > rays.len() {
        failures.push(format!("{label}: {tree_differences} of {} rays differ between the trees", rays.len()));
    }
    failures
}

fn check_scene(device: &CudaDevice, name: &str, scene: &warpath_scene::Scene, triangles: WideTriangles) {
    let tris = scene.triangle_soup();
    let mut failures = Vec::new();
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let (bvh, stats) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
        eprintln!("{name}: {stats}");
        let binary = DeviceBvh::upload(device, &GpuBvh::from_bvh(&bvh, &tris).expect("conversion")).expect("upload");
        let sets = make_rays(scene, &bvh, &tris, RESOLUTION, RESOLUTION);
        for collapse in [Collapse::Optimal, Collapse::Greedy] {
            let (wide, wide_stats) = WideBvh::from_binary(&bvh, &tris, collapse);
            eprintln!("{name} {kind:?} {collapse}: {wide_stats}");
            let woop = (triangles == WideTriangles::Woop).then(|| WoopTriangles::new(&wide, &tris));
            let converted = GpuWideBvh::from_wide_with(&wide, &tris, triangles).expect("conversion");
            let wide_device = DeviceWideBvh::upload(device, &converted).expect("upload");
            assert_eq!(wide_device.triangle_layout, triangles);
            for set in &sets {
                let (mode, rays) = (set.mode, &set.rays);
                let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
                let binary_hits =
                    trace_rays(device, &binary, &gpu_rays, TraversalKernel::WhileWhile, mode).expect("binary kernel");
                for schedule in WideSchedule::BENCHMARKED {
                    let wide_hits =
                        trace_rays_wide_with(device, &wide_device, &gpu_rays, mode, schedule).expect("wide kernel");
                    let label =
                        format!("{name} {kind:?} {collapse} {triangles} {}/{mode} {}", set.name, schedule.name());
                    let woop = woop.as_ref();
                    failures.extend(check_set(&label, &tris, &bvh, &wide, woop, mode, rays, &binary_hits, &wide_hits));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// `scenes/<name>.toml` of the repository, or None (with a notice) when its assets are absent.
fn asset_scene(name: &str) -> Option<warpath_scene::Scene> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes").join(format!("{name}.toml"));
    match warpath_scene::load(path.to_str().expect("a UTF-8 path")) {
        Ok(scene) => Some(scene),
        Err(error) => {
            eprintln!("notice: skipping {name} ({error}); `scripts/fetch-assets {name}` fetches its assets");
            None
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn wide_matches_binary_on_cornell() {
    let Some(device) = device() else { return };
    check_scene(&device, "cornell", &warpath_scene::builtin::cornell(), WideTriangles::Plain);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn wide_matches_binary_on_bunny() {
    let Some(device) = device() else { return };
    if let Some(scene) = asset_scene("bunny") {
        check_scene(&device, "bunny", &scene, WideTriangles::Plain);
    }
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn wide_matches_binary_on_dragon() {
    let Some(device) = device() else { return };
    if let Some(scene) = asset_scene("dragon") {
        check_scene(&device, "dragon", &scene, WideTriangles::Plain);
    }
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn woop_matches_its_specification_on_cornell() {
    let Some(device) = device() else { return };
    check_scene(&device, "cornell", &warpath_scene::builtin::cornell(), WideTriangles::Woop);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn woop_matches_its_specification_on_bunny() {
    let Some(device) = device() else { return };
    if let Some(scene) = asset_scene("bunny") {
        check_scene(&device, "bunny", &scene, WideTriangles::Woop);
    }
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn woop_matches_its_specification_on_dragon() {
    let Some(device) = device() else { return };
    if let Some(scene) = asset_scene("dragon") {
        check_scene(&device, "dragon", &scene, WideTriangles::Woop);
    }
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn wide_kernels_handle_empty_trees_and_no_rays() {
    let Some(device) = device() else { return };
    let (bvh, _) = Bvh::build(&[], &BuildOptions::default());
    let (wide, _) = WideBvh::from_binary(&bvh, &[], Collapse::Optimal);
    let rays = [GpuRay::from(Ray::new(Vec3::ZERO, Vec3::X)), GpuRay::from(Ray::segment(Vec3::ONE, -Vec3::Z, 3.0))];
    for triangles in WideTriangles::ALL {
        let converted = GpuWideBvh::from_wide_with(&wide, &[], triangles).unwrap();
        let uploaded = DeviceWideBvh::upload(&device, &converted).unwrap();
        for mode in [HitMode::Closest, HitMode::Any] {
            let hits = trace_rays_wide(&device, &uploaded, &rays, mode).unwrap();
            assert!(hits.iter().all(|h| !h.is_hit()), "{triangles} {mode}: {hits:?}");
            assert_eq!(hits[1].t, 3.0, "a miss reports t_max");
            for schedule in WideSchedule::BENCHMARKED {
                assert!(trace_rays_wide_with(&device, &uploaded, &[], mode, schedule).unwrap().is_empty());
                assert_eq!(trace_rays_wide_with(&device, &uploaded, &rays, mode, schedule).unwrap(), hits);
            }
        }
    }
}
