//! `warpath-bench traversal`: Mrays/s of every GPU traversal kernel (seed 004; this crate's
//! `kernels/traverse.cu`) on both trees, for three ray distributions generated from the
//! scene's camera (primary, ao, diffuse: `warpath_bench::rays`, which the GPU tests trace too).
//!
//! Rays are made on the CPU (the hit points by the CPU BVH), then each kernel is timed with
//! CUDA events after warm-up runs; the median is reported. Every kernel's hits are also
//! checked against the CPU traversal (`Bvh::intersect` / `occluded`): the same triangle
//! with `t` within 1e-4 relative, or a different triangle at the same `t` (a shared edge);
//! the table's last columns count those and the mismatches.
//!
//! `--bvh-layout binary|wide8|both` picks the trees: the binary Aila–Laine kernels above, and/or
//! the compressed 8-wide BVH (Ylitie et al. 2017, `warpath_bvh::wide`, collapsed from the same
//! binary tree by `--collapse optimal|greedy|both`) traced by `traverse_wide_*`, checked against
//! `WideBvh::intersect` / `occluded` the same way, under three schedules (`WideSchedule::
//! BENCHMARKED`: one ray per thread, persistent with dynamic fetch, and persistent postponing
//! triangle groups). With both, a second table puts the Grays/s of each ray set side by side:
//! the fastest binary kernel and the fastest schedule of each wide collapse, with the ratio.
//!
//! `--wide-triangles plain|woop|both` picks the wide layout's triangles: the plain records
//! (Möller–Trumbore, the renderers' layout) and/or Woop's rows (`traversal/woop.cuh`, layout
//! `wide8-<collapse>-woop`, checked against `WideBvh::intersect_woop` / `occluded_woop`), timed
//! in the same run over the same tree and rays.

use anyhow::{Context, Result};
use glam::Vec3;
use rayon::prelude::*;
use serde::Serialize;
use std::path::PathBuf;
use warpath_bench::rays::{RaySet, make_rays};
use warpath_bench::traverse::{BenchOptions, HitMode, TraversalKernel, bench_traversal, trace_rays};
use warpath_bench::wide_traverse::{WideSchedule, bench_wide_traversal, trace_rays_wide_with};
use warpath_bvh::wide::{Collapse, WideBvh, WideTriangles, WoopTriangles};
use warpath_bvh::{BuildKind, BuildOptions, Bvh};
use warpath_cli::commands::load_scene;
use warpath_core::math::Ray;
use warpath_cuda::wide_bvh::{DeviceWideBvh, GpuWideBvh};
use warpath_cuda::{CudaDevice, DeviceBvh, GpuBvh, GpuHit, GpuRay};

/// Which trees `bench traversal` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BvhLayoutArg {
    /// The binary Aila–Laine layout (every `--kernels` schedule).
    Binary,
    /// The compressed 8-wide BVH.
    Wide8,
    /// Both, with a side-by-side table.
    Both,
}

/// Which collapses of the binary tree the wide8 layout runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CollapseArg {
    Optimal,
    Greedy,
    Both,
}

/// Which triangle layouts the wide8 layout runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WideTrianglesArg {
    /// Möller–Trumbore records (the renderers' layout).
    Plain,
    /// Woop's unit-triangle rows.
    Woop,
    /// Both, timed in the same run.
    Both,
}

#[derive(clap::Args)]
pub struct TraversalArgs {
    /// Scenes (built-in names or paths).
    #[arg(required = true)]
    pub scenes: Vec<String>,
    /// Primary-ray image size WIDTHxHEIGHT (one ray per pixel).
    #[arg(long, value_parser = warpath_cli::parse_resolution, default_value = "1024x1024")]
    pub resolution: (u32, u32),
    /// Timed runs per kernel (median reported).
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    /// Kernels to run (default: all): while-while, speculative, persistent, postponed.
    #[arg(long, value_delimiter = ',')]
    pub kernels: Vec<String>,
    /// BVH layouts to run: binary, wide8 (compressed 8-wide) or both (side by side).
    #[arg(long, value_enum, default_value = "binary")]
    pub bvh_layout: BvhLayoutArg,
    /// The wide8 layout's collapse of the binary tree: optimal (SAH dynamic programme), greedy or both.
    #[arg(long, value_enum, default_value = "optimal")]
    pub collapse: CollapseArg,
    /// The wide8 layout's triangles: plain (Möller–Trumbore records), woop (unit-triangle rows) or both.
    #[arg(long, value_enum, default_value = "plain")]
    pub wide_triangles: WideTrianglesArg,
    /// Also write the results as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Serialize)]
struct Row {
    scene: String,
    triangles: usize,
    tree: String,
    /// `binary` or `wide8-optimal` / `wide8-greedy`, with `-woop` for Woop's triangles.
    layout: String,
    rays_kind: String,
    kernel: String,
    rays: usize,
    hits: usize,
    median_ms: f32,
    mrays_per_second: f64,
    /// Rays whose GPU result equals the CPU's (same triangle, t within 1e-4 relative).
    identical: usize,
    /// Rays hitting a different triangle at the same t (shared edges).
    equal_t_ties: usize,
    mismatches: usize,
}

/// The CPU traversal a GPU layout is checked against.
#[derive(Clone, Copy)]
enum CpuTree<'a> {
    Binary(&'a Bvh),
    Wide(&'a WideBvh),
    WideWoop(&'a WideBvh, &'a WoopTriangles),
}

impl CpuTree<'_> {
    fn occluded(&self, tris: &[[Vec3; 3]], ray: &Ray) -> bool {
        match self {
            CpuTree::Binary(bvh) => bvh.occluded(tris, ray),
            CpuTree::Wide(wide) => wide.occluded(tris, ray),
            CpuTree::WideWoop(wide, woop) => wide.occluded_woop(woop, ray),
        }
    }
    fn intersect(&self, tris: &[[Vec3; 3]], ray: &Ray) -> Option<warpath_bvh::Hit> {
        match self {
            CpuTree::Binary(bvh) => bvh.intersect(tris, ray),
            CpuTree::Wide(wide) => wide.intersect(tris, ray),
            CpuTree::WideWoop(wide, woop) => wide.intersect_woop(woop, ray),
        }
    }
}

/// Compares GPU hits with the CPU traversal: (identical, equal-t ties, mismatches).
fn verify(tree: CpuTree, tris: &[[Vec3; 3]], rays: &[Ray], mode: HitMode, gpu: &[GpuHit]) -> (usize, usize, usize) {
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1e-6);
    let verdicts: Vec<u8> = rays
        .par_iter()
        .zip(gpu)
        .map(|(ray, g)| match mode {
            HitMode::Any => u8::from(tree.occluded(tris, ray) != g.is_hit()) * 2,
            HitMode::Closest => match tree.intersect(tris, ray) {
                None if !g.is_hit() => 0,
                Some(h) if g.is_hit() && h.prim as i32 == g.prim && close(h.t, g.t) => 0,
                Some(h) if g.is_hit() && close(h.t, g.t) => 1,
                _ => 2,
            },
        })
        .collect();
    let count = |v: u8| verdicts.iter().filter(|&&x| x == v).count();
    (count(0), count(1), count(2))
}

pub fn run(args: TraversalArgs) -> Result<()> {
    let device = CudaDevice::open(0).context("`warpath-bench traversal` needs a CUDA device")?;
    println!("{}", crate::gpu_line(&device));
    let kernels: Vec<TraversalKernel> = if args.kernels.is_empty() {
        TraversalKernel::ALL.to_vec()
    } else {
        args.kernels
            .iter()
            .map(|k| TraversalKernel::from_name(k).with_context(|| format!("unknown traversal kernel '{k}'")))
            .collect::<Result<_>>()?
    };
    let (width, height) = args.resolution;
    let run_binary = matches!(args.bvh_layout, BvhLayoutArg::Binary | BvhLayoutArg::Both);
    let run_wide = matches!(args.bvh_layout, BvhLayoutArg::Wide8 | BvhLayoutArg::Both);
    let triangle_layouts: &[WideTriangles] = match args.wide_triangles {
        WideTrianglesArg::Plain => &[WideTriangles::Plain],
        WideTrianglesArg::Woop => &[WideTriangles::Woop],
        WideTrianglesArg::Both => &[WideTriangles::Plain, WideTriangles::Woop],
    };
    let collapses: &[Collapse] = match args.collapse {
        CollapseArg::Optimal => &[Collapse::Optimal],
        CollapseArg::Greedy => &[Collapse::Greedy],
        CollapseArg::Both => &[Collapse::Optimal, Collapse::Greedy],
    };
    let mut rows = Vec::new();
    for name in &args.scenes {
        let scene = load_scene(name)?;
        let tris = scene.triangle_soup();
        for kind in [BuildKind::Sah, BuildKind::Sbvh] {
            let (bvh, stats) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
            eprintln!("{}: {stats}", scene.name);
            let sets = make_rays(&scene, &bvh, &tris, width, height);
            let row =
                |layout: String, set: &RaySet, kernel: &str, t: (f32, f64, usize), check: (usize, usize, usize)| Row {
                    scene: scene.name.clone(),
                    triangles: tris.len(),
                    tree: format!("{kind:?}").to_uppercase(),
                    layout,
                    rays_kind: set.name.into(),
                    kernel: kernel.into(),
                    rays: set.rays.len(),
                    hits: t.2,
                    median_ms: t.0,
                    mrays_per_second: t.1,
                    identical: check.0,
                    equal_t_ties: check.1,
                    mismatches: check.2,
                };
            if run_binary {
                let device_bvh = DeviceBvh::upload(&device, &GpuBvh::from_bvh(&bvh, &tris)?)?;
                for set in &sets {
                    let gpu_rays: Vec<GpuRay> = set.rays.iter().map(GpuRay::from).collect();
                    for &kernel in &kernels {
                        let hits = trace_rays(&device, &device_bvh, &gpu_rays, kernel, set.mode)?;
                        let check = verify(CpuTree::Binary(&bvh), &tris, &set.rays, set.mode, &hits);
                        let options =
                            BenchOptions { mode: set.mode, timed_runs: args.runs.max(1), ..Default::default() };
                        let t = bench_traversal(&device, &bvh, &tris, &set.rays, kernel, &options)
                            .with_context(|| format!("{} {kind:?} {} {}", scene.name, set.name, kernel.name()))?;
                        eprintln!("  {kind:?} {} {}: {:.0} Mrays/s", set.name, kernel.name(), t.mrays_per_second);
                        let timing = (t.median_ms, t.mrays_per_second, t.hit_count);
                        rows.push(row("binary".into(), set, kernel.name(), timing, check));
                    }
                }
            }
            if run_wide {
                for (&collapse, &triangles) in
                    collapses.iter().flat_map(|c| triangle_layouts.iter().map(move |t| (c, t)))
                {
                    let (wide, wide_stats) = WideBvh::from_binary(&bvh, &tris, collapse);
                    eprintln!("{} wide8 {collapse}: {wide_stats}", scene.name);
                    let woop = match triangles {
                        WideTriangles::Plain => WoopTriangles::default(),
                        WideTriangles::Woop => WoopTriangles::new(&wide, &tris),
                    };
                    let cpu_tree = match triangles {
                        WideTriangles::Plain => CpuTree::Wide(&wide),
                        WideTriangles::Woop => CpuTree::WideWoop(&wide, &woop),
                    };
                    let converted = GpuWideBvh::from_wide_with(&wide, &tris, triangles)?;
                    let device_wide = DeviceWideBvh::upload(&device, &converted)?;
                    let layout = match triangles {
                        WideTriangles::Plain => format!("wide8-{collapse}"),
                        WideTriangles::Woop => format!("wide8-{collapse}-woop"),
                    };
                    for set in &sets {
                        let gpu_rays: Vec<GpuRay> = set.rays.iter().map(GpuRay::from).collect();
                        for schedule in WideSchedule::BENCHMARKED {
                            let name = schedule.name();
                            let hits = trace_rays_wide_with(&device, &device_wide, &gpu_rays, set.mode, schedule)?;
                            let check = verify(cpu_tree, &tris, &set.rays, set.mode, &hits);
                            let runs = args.runs.max(1);
                            let t = bench_wide_traversal(&device, &device_wide, &set.rays, set.mode, schedule, 3, runs)
                                .with_context(|| format!("{} {kind:?} {} {layout} {name}", scene.name, set.name))?;
                            eprintln!("  {kind:?} {} {layout} {name}: {:.0} Mrays/s", set.name, t.mrays_per_second);
                            let timing = (t.median_ms, t.mrays_per_second, t.hit_count);
                            rows.push(row(layout.clone(), set, &name, timing, check));
                        }
                    }
                }
            }
        }
    }
    println!(
        "| scene | triangles | tree | layout | rays | kernel | rays (M) | hit | median ms | Mrays/s | = CPU | ties | mismatches |"
    );
    println!("|---|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} | {:.1}% | {:.3} | {:.0} | {} | {} | {} |",
            r.scene,
            r.triangles,
            r.tree,
            r.layout,
            r.rays_kind,
            r.kernel,
            r.rays as f64 / 1e6,
            100.0 * r.hits as f64 / r.rays.max(1) as f64,
            r.median_ms,
            r.mrays_per_second,
            r.identical,
            r.equal_t_ties,
            r.mismatches
        );
    }
    if run_binary && run_wide {
        println!("\n{}", side_by_side(&rows));
    }
    let mismatches: usize = rows.iter().map(|r| r.mismatches).sum();
    if let Some(p) = &args.json {
        std::fs::write(p, serde_json::to_string_pretty(&rows)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    if mismatches > 0 {
        anyhow::bail!("{mismatches} GPU results differ from the CPU traversal");
    }
    Ok(())
}

/// Per scene, tree and ray set: the fastest binary kernel's Grays/s beside each wide8 layout's,
/// and the ratio.
fn side_by_side(rows: &[Row]) -> String {
    let mut wide_layouts: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| r.layout != "binary") {
        if !wide_layouts.contains(&r.layout.as_str()) {
            wide_layouts.push(&r.layout);
        }
    }
    let mut header = String::from("| scene | tree | rays | binary Grays/s (kernel) |");
    let mut rule = String::from("|---|---|---|---:|");
    for layout in &wide_layouts {
        header.push_str(&format!(" {layout} Grays/s (kernel) | ×binary |"));
        rule.push_str("---:|---:|");
    }
    let mut out = format!("{header}\n{rule}\n");
    let mut keys: Vec<(&str, &str, &str)> = Vec::new();
    for r in rows {
        let key = (r.scene.as_str(), r.tree.as_str(), r.rays_kind.as_str());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    for (scene, tree, rays_kind) in keys {
        let of = |layout: &str| {
            rows.iter()
                .filter(|r| r.scene == scene && r.tree == tree && r.rays_kind == rays_kind && r.layout == layout)
                .max_by(|a, b| a.mrays_per_second.total_cmp(&b.mrays_per_second))
        };
        let Some(binary) = of("binary") else { continue };
        let mut line =
            format!("| {scene} | {tree} | {rays_kind} | {:.2} ({}) |", binary.mrays_per_second / 1e3, binary.kernel);
        for layout in &wide_layouts {
            match of(layout) {
                Some(wide) => line.push_str(&format!(
                    " {:.2} ({}) | {:.2} |",
                    wide.mrays_per_second / 1e3,
                    wide.kernel,
                    wide.mrays_per_second / binary.mrays_per_second.max(1e-9)
                )),
                None => line.push_str(" – | – |"),
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(tree: &str, layout: &str, rays_kind: &str, kernel: &str, mrays_per_second: f64) -> Row {
        Row {
            scene: "cornell".into(),
            triangles: 36,
            tree: tree.into(),
            layout: layout.into(),
            rays_kind: rays_kind.into(),
            kernel: kernel.into(),
            rays: 100,
            hits: 50,
            median_ms: 1.0,
            mrays_per_second,
            identical: 100,
            equal_t_ties: 0,
            mismatches: 0,
        }
    }

    #[test]
    fn side_by_side_pairs_the_fastest_binary_kernel_with_each_wide_layout() {
        let mut rows = Vec::new();
        for tree in ["SAH", "SBVH"] {
            for rays in ["primary", "diffuse"] {
                rows.push(row(tree, "binary", rays, "while-while", 1000.0));
                rows.push(row(tree, "binary", rays, "persistent", 2000.0));
            }
            for layout in ["wide8-optimal", "wide8-greedy"] {
                for rays in ["primary", "diffuse"] {
                    rows.push(row(tree, layout, rays, "while-while", 3000.0));
                }
            }
        }
        let table = side_by_side(&rows);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 2 + 4, "{table}");
        assert!(lines[0].contains("wide8-optimal Grays/s") && lines[0].contains("wide8-greedy Grays/s"), "{table}");
        assert_eq!(
            lines[2],
            "| cornell | SAH | primary | 2.00 (persistent) | 3.00 (while-while) | 1.50 | 3.00 (while-while) | 1.50 |"
        );
        assert!(lines[5].starts_with("| cornell | SBVH | diffuse |"), "{table}");
    }
}
