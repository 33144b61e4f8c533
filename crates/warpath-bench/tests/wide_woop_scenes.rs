//! On the CPU, on real scenes: the wide BVH's Woop traversal (`WideBvh::intersect_woop` /
//! `occluded_woop`, the specification of the `traverse_wide_woop_*` kernels) against its plain
//! traversal (`WideBvh::intersect` / `occluded`, which returns brute force's hit), ray for ray, on
//! `warpath-bench traversal`'s three ray sets (`warpath_bench::rays::make_rays`: primary, ao,
//! diffuse) at 192x192 over the SAH tree collapsed optimally: the Cornell box, and the bunny and
//! the dragon where their assets are present (`scripts/fetch-assets`; absent: skipped with a notice).
//!
//! A ray agrees when both miss, or both hit at `t` within 1e-4 relative (on another triangle
//! only at a shared edge or vertex: counted), or (any hit) both say occluded or not. The two
//! tests round differently, so edge and vertex hits may fall to different sides; the rays that
//! disagree must stay under 0.5% of each set (the counts are printed: docs/benchmarks/traversal.md
//! quotes them). The Cornell box comes nearest: its walls stop 1e-7 short of the ceiling along
//! the corner edges, which lie on the image's diagonals, so about 70 of its 36864 primary rays
//! graze an edge there (Möller–Trumbore hits, Woop slips through the gap, or the reverse).

use rayon::prelude::*;
use std::path::PathBuf;
use warpath_bench::rays::make_rays;
use warpath_bench::traverse::HitMode;
use warpath_bvh::wide::{Collapse, WideBvh, WoopTriangles};
use warpath_bvh::{BuildOptions, Bvh};

const RESOLUTION: u32 = 192;

fn check_scene(name: &str, scene: &warpath_scene::Scene) {
    let tris = scene.triangle_soup();
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
    let woop = WoopTriangles::new(&wide, &tris);
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * a.abs().max(b.abs());
    let mut failures = Vec::new();
    for set in make_rays(scene, &bvh, &tris, RESOLUTION, RESOLUTION) {
        // (disagrees, other triangle at the same t, Woop hits nearer than the plain hit)
        let verdicts: Vec<(bool, bool, bool)> = set
            .rays
            .par_iter()
            .map(|ray| match set.mode {
                HitMode::Any => (wide.occluded(&tris, ray) != wide.occluded_woop(&woop, ray), false, false),
                HitMode::Closest => match (wide.intersect(&tris, ray), wide.intersect_woop(&woop, ray)) {
                    (None, None) => (false, false, false),
                    (Some(p), Some(w)) if close(p.t, w.t) => (false, p.prim != w.prim, false),
                    (p, w) => (true, false, w.is_some_and(|w| p.is_none_or(|p| w.t < p.t))),
                },
            })
            .collect();
        let disagree = verdicts.iter().filter(|v| v.0).count();
        let other = verdicts.iter().filter(|v| v.1).count();
        let nearer = verdicts.iter().filter(|v| v.2).count();
        eprintln!(
            "{name} {}: {} rays, {disagree} disagree ({nearer} with the Woop hit nearer), {other} on another \
             triangle at the same t",
            set.name,
            set.rays.len()
        );
        if disagree * 200 > set.rays.len() {
            failures.push(format!("{name} {}: {disagree} of {} rays disagree", set.name, set.rays.len()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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
fn woop_agrees_with_plain_on_cornell() {
    check_scene("cornell", &warpath_scene::builtin::cornell());
}

#[test]
fn woop_agrees_with_plain_on_bunny() {
    if let Some(scene) = asset_scene("bunny") {
        check_scene("bunny", &scene);
    }
}

#[test]
fn woop_agrees_with_plain_on_dragon() {
    if let Some(scene) = asset_scene("dragon") {
        check_scene("dragon", &scene);
    }
}

/// The comparison can fail: rows shifted by one reference name other triangles.
#[test]
fn shifted_rows_are_caught() {
    let scene = warpath_scene::builtin::cornell();
    let tris = scene.triangle_soup();
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    let (wide, _) = WideBvh::from_binary(&bvh, &tris, Collapse::Optimal);
    let mut woop = WoopTriangles::new(&wide, &tris);
    woop.rows.rotate_left(1);
    let sets = make_rays(&scene, &bvh, &tris, 64, 64);
    let primary = &sets[0].rays;
    let differing = primary
        .iter()
        .filter(|ray| wide.intersect(&tris, ray).map(|h| h.prim) != wide.intersect_woop(&woop, ray).map(|h| h.prim))
        .count();
    assert!(differing * 10 > primary.len(), "{differing} of {}", primary.len());
}
