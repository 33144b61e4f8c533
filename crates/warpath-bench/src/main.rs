//! `warpath-bench`: benchmarks that print a markdown table (last) and optionally write
//! JSON. Every table is headed by the machine, commit, command and date, so it can be
//! pasted into docs/benchmarks/ as it is. The experiments live here, apart from the
//! `warpath` binary (issue 28); what they share with it (loading a scene, the BVH each
//! renderer builds, the isosurface caster) is warpath-cli's library.
//!
//! - `warpath-bench bvh`: build time (Mtris/s), nodes, references and SAH cost, SAH vs SBVH,
//!   of the trees `warpath render` builds for the CPU and the CUDA renderer;
//! - `warpath-bench cpu`: CPU render throughput (Msamples/s, Mrays/s);
//! - `warpath-bench traversal`: GPU traversal kernels (`traversal.rs`);
//! - `warpath-bench compaction`: stream compaction (`compaction.rs`);
//! - `warpath-bench strategies`: path scheduling strategies (`strategies.rs`);
//! - `warpath-bench volumes`: the volumetric path tracer (`volumes.rs`);
//! - `warpath-bench isosurface`: isosurface images, fps over views (`isosurface.rs`);
//! - `warpath-bench restir`: ReSTIR DI against the path tracer at equal time (`restir.rs`);
//! - `warpath-bench precompile`: this crate's CUDA programs (and with `--variants` the
//!   volumetric benchmark variants) into the kernel cache, as `warpath precompile` does for
//!   the product's (`warpath_bench::programs`).
//!
//! The GPU code the commands share with this crate's tests (the traversal kernels' catalog and
//! launches, the ray sets, the benchmark variants) is the library, src/lib.rs.

mod compaction;
mod isosurface;
mod restir;
mod strategies;
mod traversal;
mod volumes;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use warpath_bvh::Bvh;
use warpath_cli::BvhKind;
use warpath_cli::commands::{load_scene, render_bvh_options};
use warpath_cpu::CpuRenderer;
use warpath_render::{Overrides, Settings};

#[derive(Parser)]
#[command(
    name = "warpath-bench",
    version,
    about = "warpath's benchmarks: each prints a markdown table (docs/benchmarks/) and can write JSON"
)]
struct Cli {
    #[command(subcommand)]
    command: BenchCommand,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli.command) {
        eprintln!("error: {}", warpath_cli::error_chain(&e));
        std::process::exit(1);
    }
}

#[derive(Subcommand)]
pub enum BenchCommand {
    /// BVH build speed and quality: SAH vs SBVH.
    Bvh {
        /// Scenes (built-in names or paths).
        #[arg(required = true)]
        scenes: Vec<String>,
        /// Builds per builder; the median time is reported.
        #[arg(long, default_value_t = 3)]
        repeat: u32,
        /// Also write the results as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// CPU render throughput.
    Cpu {
        /// Scenes (built-in names or paths).
        #[arg(required = true)]
        scenes: Vec<String>,
        #[arg(long, default_value_t = 16)]
        spp: u32,
        /// Image size WIDTHxHEIGHT [default: each scene's].
        #[arg(long, value_parser = warpath_cli::parse_resolution)]
        resolution: Option<(u32, u32)>,
        #[arg(long)]
        max_depth: Option<u32>,
        #[arg(long, value_enum, default_value_t = BvhKind::Sbvh)]
        bvh: BvhKind,
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// GPU traversal kernels: Mrays/s for primary, AO and diffuse rays on SAH and SBVH trees.
    Traversal(traversal::TraversalArgs),
    /// Stream compaction: effective GB/s of InK-Collate, InK-Compact, look-back, OfK and
    /// three-pass beside memcpy (and CUB with `--cub`).
    Compaction(compaction::CompactionArgs),
    /// Path scheduling strategies: Msamples/s against naive, active paths and warps per
    /// bounce, time per warp, regeneration and sorting, kernel resources (seeds 000, 003).
    Strategies(strategies::StrategiesArgs),
    /// The volumetric path tracer: time, Msamples/s, vertices/s, tracking steps and grid
    /// lookups per path, with the majorant grid and one global majorant.
    Volumes(volumes::VolumesArgs),
    /// Isosurface images (seed 001): fps per volume and isovalue over views around it, the
    /// per-isovalue tree update timed apart.
    Isosurface(isosurface::BenchIsosurfaceArgs),
    /// ReSTIR DI's yardstick: steady frames (after history) against the path
    /// tracer at equal time on one backend; RMSE, trimmed RMSE, median, 99.9th percentile
    /// over surfaces and all pixels; a table and a PNG of error maps.
    Restir(restir::RestirArgs),
    /// Compiles the benchmarks' CUDA programs (the traversal kernels; with --variants the
    /// volumetric benchmark variants) into the kernel cache, as `warpath precompile` does for
    /// the renderers'.
    Precompile(warpath_cli::precompile::PrecompileArgs),
}

#[derive(Serialize)]
struct BvhRow {
    scene: String,
    builder: String,
    /// The renderer whose tree this is (`cpu`, `cuda`) and its leaf size.
    renderer: String,
    max_leaf_size: usize,
    triangles: usize,
    build_seconds: f64,
    mtris_per_second: f64,
    nodes: usize,
    references: usize,
    sah_cost: f32,
}

#[derive(Serialize)]
struct CpuRow {
    scene: String,
    width: u32,
    height: u32,
    spp: u32,
    max_depth: u32,
    seconds: f64,
    msamples_per_second: f64,
    mrays_per_second: f64,
    rays: u64,
}

pub fn run(cmd: BenchCommand) -> Result<()> {
    if !matches!(cmd, BenchCommand::Precompile(_)) {
        // Not for precompile, which is no benchmark.
        println!("{}", header());
    }
    match cmd {
        BenchCommand::Bvh { scenes, repeat, json } => {
            let mut rows = Vec::new();
            for name in &scenes {
                let scene = load_scene(name)?;
                let tris = scene.triangle_soup();
                let trees = [BvhKind::Sah, BvhKind::Sbvh].into_iter().flat_map(|k| [(k, "cpu"), (k, "cuda")]);
                for (kind, renderer) in trees {
                    let options = render_bvh_options(kind.build_kind(), renderer == "cuda");
                    let mut times = Vec::new();
                    let mut last = None;
                    for _ in 0..repeat.max(1) {
                        let (bvh, stats) = Bvh::build(&tris, &options);
                        times.push(stats.build_seconds);
                        last = Some((bvh, stats));
                    }
                    times.sort_by(f64::total_cmp);
                    let t = times[times.len() / 2];
                    let (bvh, stats) = last.expect("at least one build");
                    rows.push(BvhRow {
                        scene: scene.name.clone(),
                        builder: kind.build_kind().to_string(),
                        renderer: renderer.to_string(),
                        max_leaf_size: options.max_leaf_size,
                        triangles: tris.len(),
                        build_seconds: t,
                        mtris_per_second: tris.len() as f64 / t.max(1e-9) / 1e6,
                        nodes: bvh.nodes.len(),
                        references: bvh.prim_indices.len(),
                        sah_cost: stats.sah_cost,
                    });
                    eprintln!("{}: {renderer} tree: {stats}", scene.name);
                }
            }
            println!(
                "| scene | builder | tree of (leaves ≤) | triangles | build (s) | Mtris/s | nodes | references | SAH cost |"
            );
            println!("|---|---|---|---:|---:|---:|---:|---:|---:|");
            for r in &rows {
                println!(
                    "| {} | {} | {} ({}) | {} | {:.3} | {:.2} | {} | {} | {:.2} |",
                    r.scene,
                    r.builder,
                    r.renderer,
                    r.max_leaf_size,
                    r.triangles,
                    r.build_seconds,
                    r.mtris_per_second,
                    r.nodes,
                    r.references,
                    r.sah_cost
                );
            }
            write_json(json.as_deref(), &rows)
        }
        BenchCommand::Cpu { scenes, spp, resolution, max_depth, bvh, json } => {
            let mut rows = Vec::new();
            for name in &scenes {
                let scene = load_scene(name)?;
                let overrides = Overrides { spp: Some(spp.max(1)), resolution, max_depth, ..Default::default() };
                let opts = Settings::resolve(&scene, &overrides)?.cpu_options(1);
                let renderer = CpuRenderer::new(&scene, bvh.build_kind());
                // Warm-up pass (page faults, caches), not timed.
                let mut warm = opts.clone();
                warm.spp = 1;
                renderer.render(&warm, &AtomicBool::new(false), |_| {});
                let (_, stats) = renderer.render(&opts, &AtomicBool::new(false), |_| {});
                let row = CpuRow {
                    scene: scene.name.clone(),
                    width: opts.width,
                    height: opts.height,
                    spp: opts.spp,
                    max_depth: opts.max_depth,
                    seconds: stats.seconds,
                    msamples_per_second: stats.samples as f64 / stats.seconds / 1e6,
                    mrays_per_second: stats.rays() as f64 / stats.seconds / 1e6,
                    rays: stats.rays(),
                };
                eprintln!("{}: {:.3} Msamples/s", row.scene, row.msamples_per_second);
                rows.push(row);
            }
            println!("| scene | resolution | spp | max depth | time (s) | Msamples/s | Mrays/s |");
            println!("|---|---|---:|---:|---:|---:|---:|");
            for r in &rows {
                println!(
                    "| {} | {}x{} | {} | {} | {:.2} | {:.3} | {:.2} |",
                    r.scene,
                    r.width,
                    r.height,
                    r.spp,
                    r.max_depth,
                    r.seconds,
                    r.msamples_per_second,
                    r.mrays_per_second
                );
            }
            write_json(json.as_deref(), &rows)
        }
        BenchCommand::Traversal(args) => traversal::run(args),
        BenchCommand::Compaction(args) => compaction::run(args),
        BenchCommand::Strategies(args) => strategies::run(args),
        BenchCommand::Volumes(args) => volumes::run(args),
        BenchCommand::Isosurface(args) => isosurface::bench(&args),
        BenchCommand::Restir(args) => restir::run(args),
        BenchCommand::Precompile(args) => {
            let mut programs = warpath_bench::programs::programs();
            if args.variants {
                programs.extend(warpath_bench::programs::variant_programs());
            }
            warpath_cli::precompile::compile(&args, programs)
        }
    }
}

/// Writes `rows` as pretty JSON to `path` when one is given (every benchmark's `--json`).
fn write_json<T: Serialize>(path: Option<&std::path::Path>, rows: &T) -> Result<()> {
    if let Some(p) = path {
        std::fs::write(&p, serde_json::to_string_pretty(rows)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// Renders `spp` samples per pixel in passes of `per_pass` and waits for the GPU (what the
/// GPU benchmarks time).
fn render_all(
    device: &warpath_cuda::CudaDevice,
    renderer: &mut warpath_cuda::StrategyRenderer,
    spp: u32,
    per_pass: u32,
) -> Result<()> {
    let mut done = 0;
    while done < spp {
        let n = per_pass.max(1).min(spp - done);
        renderer.render_pass(done, n)?;
        done += n;
    }
    device.synchronize()?;
    Ok(())
}

/// The GPU a benchmark ran on, as a markdown line (the header names only the host).
fn gpu_line(device: &warpath_cuda::CudaDevice) -> String {
    let info = device.info();
    format!("- GPU: {}, {} SMs, driver CUDA {}", info.name, info.multiprocessors, info.driver_version_string())
}

/// Machine, commit, command and date, as markdown lines.
fn header() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    // A copy of the tree without .git (the GPU machine) names its commit in WARPATH_COMMIT.
    let commit = std::env::var("WARPATH_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| {
            std::process::Command::new("git")
                .args(["rev-parse", "--short", "HEAD"])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let command: Vec<String> = std::env::args().collect();
    format!(
        "- device: {cpu}, {} threads\n- commit: {commit}\n- command: `{}`\n- date: {}\n",
        rayon::current_num_threads(),
        command.join(" "),
        utc_date()
    )
}

/// Today's UTC date as YYYY-MM-DD (civil-from-days, Howard Hinnant's algorithm).
fn utc_date() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let z = (secs / 86400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!("{y:04}-{m:02}-{d:02}")
}
