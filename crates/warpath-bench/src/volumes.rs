//! `warpath-bench volumes`: the volumetric path tracer on the GPU (issue 11), scene by scene,
//! in one run: the time of a render at the scene's settings (or the ones given), Msamples/s
//! and millions of path vertices per second (seed 003's unit: path extensions), and per path
//! the tracking steps and density lookups — for each schedule asked for and each majorant
//! cell size (the scene's majorant grid, one global majorant, ...), with a per-pixel z test
//! that every image agrees with the first (same estimator, different tentative collisions),
//! and optionally the CPU reference on the same scene. `--grid-fetch` and `--max-registers`
//! add kernel variants (grids read from 3D textures; seed 003's register-bound variants) to
//! every schedule, with the registers and local memory each kernel got.
//! Timed runs have instrumentation off; one extra instrumented run (at most `--count-spp`
//! samples per pixel) gives the counts. Prints markdown (the table last), optionally JSON.

use crate::render_all;
use anyhow::{Context, Result, bail};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use warpath_cli::BvhKind;
use warpath_cli::commands::load_scene;
use warpath_core::film::Film;
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_cuda::strategy::{GridFetch, KernelVariant, REGISTER_CAP_RANGE};
use warpath_cuda::{CudaDevice, Strategy, StrategyRenderer};
use warpath_render::{Overrides, Settings};
use warpath_scene::{RenderSettings, Scene};

#[derive(clap::Args)]
pub struct VolumesArgs {
    /// Volume scenes (paths), e.g. scenes/cloud.toml scenes/cgg-logo.toml scenes/ad.toml
    /// scenes/mri.toml.
    #[arg(required = true)]
    pub scenes: Vec<String>,
    /// Image size WIDTHxHEIGHT [default: each scene's].
    #[arg(long, value_parser = warpath_cli::parse_resolution)]
    pub resolution: Option<(u32, u32)>,
    /// Samples per pixel [default: each scene's].
    #[arg(long)]
    pub spp: Option<u32>,
    /// Maximum scattering vertices [default: each scene's].
    #[arg(long)]
    pub max_depth: Option<u32>,
    /// Russian roulette threshold (0: none, as seed 003 measures) [default: each scene's].
    #[arg(long)]
    pub rr_threshold: Option<f32>,
    /// Samples per pixel of one GPU pass.
    #[arg(long, default_value_t = 16)]
    pub spp_per_pass: u32,
    /// The GPU schedules to time, each with every majorant.
    #[arg(long, value_delimiter = ',', value_parser = warpath_cli::parse_strategy, default_value = "naive")]
    pub strategies: Vec<Strategy>,
    /// Majorant cells to compare, in voxels per cell along each axis ("scene": the scene's
    /// `majorant_cell`; 0: one global majorant). The first is the reference of the z test.
    #[arg(long, value_delimiter = ',', default_value = "scene,0")]
    pub majorant_cells: Vec<String>,
    /// How the kernels read density and albedo grids: buffer (global memory through the
    /// read-only cache), texture (3D textures, point sampled, the CPU's trilinear arithmetic:
    /// the same image), texture-linear (hardware trilinear filtering). Each is timed.
    #[arg(long, value_delimiter = ',', value_parser = parse_grid_fetch, default_value = "buffer")]
    pub grid_fetch: Vec<GridFetch>,
    /// Register caps per thread to time ("default": ptxas's choice; a number 16..=255 makes
    /// each kernel of B threads per block declare __launch_bounds__(B, 65536 / (N·B)), the
    /// naive megakernel __maxnreg__(N)), each with every --grid-fetch.
    #[arg(long, value_delimiter = ',', value_parser = parse_register_cap, default_value = "default")]
    pub max_registers: Vec<RegisterCap>,
    /// Seed 003's image tiles (Table 4.2): for each N, the pass's paths are split into N×N
    /// launches ("tiles") of equal path counts (waves of consecutive path indices: pixels in
    /// 8×8-block order, sample after sample), each rendered to the end before the next; the
    /// naive schedule then runs one thread per path. One pass holds every sample.
    #[arg(long, value_delimiter = ',')]
    pub tilings: Vec<u32>,
    /// Timed renders per configuration (median reported).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Samples per pixel of the instrumented run that counts steps and lookups.
    #[arg(long, default_value_t = 16)]
    pub count_spp: u32,
    /// Also time the CPU reference on the same scene, at this many samples per pixel.
    #[arg(long)]
    pub cpu_spp: Option<u32>,
    #[arg(long, value_enum, default_value_t = BvhKind::Sbvh)]
    pub bvh: BvhKind,
    /// Also write the results as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// A `--max-registers` value: None is ptxas's default.
#[derive(Clone, Copy, Debug)]
pub struct RegisterCap(Option<u32>);

fn parse_register_cap(text: &str) -> std::result::Result<RegisterCap, String> {
    if text == "default" {
        return Ok(RegisterCap(None));
    }
    match text.parse::<u32>() {
        Ok(n) if REGISTER_CAP_RANGE.contains(&n) => Ok(RegisterCap(Some(n))),
        _ => Err(format!(
            "'{text}' is not 'default' or a register count {}..={}",
            REGISTER_CAP_RANGE.start(),
            REGISTER_CAP_RANGE.end()
        )),
    }
}

fn parse_grid_fetch(text: &str) -> std::result::Result<GridFetch, String> {
    GridFetch::from_name(text).ok_or_else(|| {
        let names: Vec<_> = GridFetch::ALL.iter().map(|f| f.name()).collect();
        format!("unknown grid fetch '{text}'; one of {}", names.join(", "))
    })
}

#[derive(Serialize, Clone)]
struct Row {
    scene: String,
    majorant: String,
    width: u32,
    height: u32,
    spp: u32,
    max_depth: u32,
    strategy: String,
    /// `--tilings`: N of the N×N tiles and the paths per tile (launch).
    tiling: Option<u32>,
    paths_per_tile: Option<u64>,
    /// The kernel variant: grid fetch and register cap.
    variant: String,
    /// Registers per thread and local memory per thread (spills, stack) of the schedule's
    /// kernels, as the loaded module reports them (`kernel: registers/local bytes`).
    kernel_resources: String,
    median_seconds: f64,
    run_seconds: Vec<f64>,
    msamples_per_second: f64,
    /// Path vertices (paths entering extend) per second, millions.
    mextensions_per_second: f64,
    extensions_per_path: f64,
    tracking_steps_per_path: f64,
    density_lookups_per_path: f64,
    albedo_lookups_per_path: f64,
    /// Paths per warp execution of a step (32: every lane busy), over the instrumented run.
    paths_per_warp: f64,
    /// Mean clock cycles of a warp's step (its slowest lane), thousands.
    kcycles_per_warp_step: f64,
    /// Milliseconds to download the whole film once (the most double buffering of tiles
    /// could hide per image).
    film_download_ms: f64,
    /// Paths entering a step, step by step (the instrumented run).
    active_per_step: Vec<u64>,
    /// Against the majorant-grid image: mean z² and the fraction of |z| > 4 channels.
    mean_z2_vs_grid: Option<f64>,
    outliers_vs_grid: Option<f64>,
    /// Against the first image: the largest relative difference of a pixel channel (0: the
    /// same image bit for bit, as with the same estimator and tentative collisions).
    max_relative_difference: Option<f64>,
}

pub fn run(args: VolumesArgs) -> Result<()> {
    let device = CudaDevice::open(0).context("warpath-bench volumes needs a CUDA device")?;
    println!("{}\n", crate::gpu_line(&device));
    let mut cells_list = Vec::new();
    for c in &args.majorant_cells {
        cells_list.push(match c.as_str() {
            "scene" => None,
            n => {
                Some(n.parse::<u32>().ok().filter(|&n| n <= 4096).with_context(|| {
                    format!("--majorant-cells: '{n}' is not 'scene' or a number of voxels 0 ..= 4096")
                })?)
            }
        });
    }
    let variants: Vec<KernelVariant> = args
        .max_registers
        .iter()
        .flat_map(|cap| {
            args.grid_fetch.iter().map(|&grid_fetch| KernelVariant {
                grid_fetch,
                max_registers: cap.0,
                ..Default::default()
            })
        })
        .collect();
    let tilings: Vec<Option<u32>> =
        if args.tilings.is_empty() { vec![None] } else { args.tilings.iter().map(|&n| Some(n)).collect() };
    if args.tilings.iter().any(|&n| n == 0 || n > 1024) {
        bail!("--tilings: each N must lie in 1 ..= 1024");
    }
    let mut configurations = Vec::new();
    for &strategy in &args.strategies {
        for &tiling in &tilings {
            for &cells in &cells_list {
                for &variant in &variants {
                    configurations.push((strategy, tiling, cells, variant));
                }
            }
        }
    }
    let mut rows = Vec::new();
    let mut cpu_lines = Vec::new();
    for name in &args.scenes {
        let scene = load_scene(name)?;
        if !scene.needs_volume_estimator() {
            bail!("{name}: the scene has no media");
        }
        let settings = settings(&scene, &args)?;
        let mut reference_film = None;
        for &(strategy, tiling, cells, variant) in &configurations {
            let mut scene = scene.clone();
            let label = match cells {
                None => "scene".to_string(),
                Some(0) => "global".to_string(),
                Some(n) => format!("{n} voxels"),
            };
            if let Some(cells) = cells {
                scene.media = scene.media.into_iter().map(|m| m.with_majorant_cells(cells)).collect();
            }
            let (mut row, film) = measure(&device, &scene, &settings, &args, strategy, variant, tiling, &label)?;
            match &reference_film {
                Some(reference) => {
                    let (z2, outliers) = z_test(reference, &film);
                    row.mean_z2_vs_grid = Some(z2);
                    row.outliers_vs_grid = Some(outliers);
                    row.max_relative_difference = Some(max_relative_difference(reference, &film));
                }
                None => reference_film = Some(film),
            }
            eprintln!(
                "{}: {strategy} ({}), {label} majorant: {:.2} s, {:.2} Msamples/s, {:.1} lookups/path, {}",
                scene.name,
                variant.label(),
                row.median_seconds,
                row.msamples_per_second,
                row.density_lookups_per_path,
                row.kernel_resources
            );
            rows.push(row);
        }
        if let Some(spp) = args.cpu_spp {
            let s = RenderSettings { spp, ..settings.clone() };
            let renderer = CpuRenderer::new(&scene, args.bvh.build_kind());
            let start = Instant::now();
            renderer.render(
                &RenderOptions { spp_per_pass: 1, ..RenderOptions::from_settings(&s) },
                &AtomicBool::new(false),
                |_| {},
            );
            let seconds = start.elapsed().as_secs_f64();
            let msps = s.width as f64 * s.height as f64 * spp as f64 / seconds / 1e6;
            cpu_lines.push(format!(
                "| {} | CPU ({} threads) | {spp} | {seconds:.2} | {msps:.4} |",
                scene.name,
                rayon::current_num_threads()
            ));
        }
    }
    println!("## Volumetric path tracer on the GPU\n");
    println!(
        "| scene | schedule | tiles (paths each) | variant | registers/local B | majorant | size | spp | max depth | time (s) | Msamples/s | M vertices/s | vertices/path | tracking steps/path | density lookups/path | albedo lookups/path | paths/warp | kcycles/warp step | film download ms | mean z² vs first (\\|z\\|>4) | max rel. diff vs first |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let z = match (r.mean_z2_vs_grid, r.outliers_vs_grid) {
            (Some(z2), Some(o)) => format!("{z2:.3} ({:.3}%)", 100.0 * o),
            _ => "—".into(),
        };
        let diff = r.max_relative_difference.map_or("—".into(), |d| format!("{d:.2e}"));
        let tiles = match (r.tiling, r.paths_per_tile) {
            (Some(n), Some(p)) => format!("{n}×{n} ({p})"),
            _ => "—".into(),
        };
        println!(
            "| {} | {} | {tiles} | {} | {} | {} | {}x{} | {} | {} | {:.3} | {:.2} | {:.1} | {:.2} | {:.1} | {:.1} | {:.2} | {:.1} | {:.1} | {:.2} | {z} | {diff} |",
            r.scene,
            r.strategy,
            r.variant,
            r.kernel_resources,
            r.majorant,
            r.width,
            r.height,
            r.spp,
            r.max_depth,
            r.median_seconds,
            r.msamples_per_second,
            r.mextensions_per_second,
            r.extensions_per_path,
            r.tracking_steps_per_path,
            r.density_lookups_per_path,
            r.albedo_lookups_per_path,
            r.paths_per_warp,
            r.kcycles_per_warp_step,
            r.film_download_ms
        );
    }
    if !cpu_lines.is_empty() {
        println!("\n| scene | backend | spp | time (s) | Msamples/s |\n|---|---|---|---|---|");
        for line in cpu_lines {
            println!("{line}");
        }
    }
    crate::write_json(args.json.as_deref(), &rows)
}

/// The scene's settings with the flags applied ([`Settings::resolve`], then the Russian
/// roulette threshold, which only this benchmark sets).
fn settings(scene: &Scene, args: &VolumesArgs) -> Result<RenderSettings> {
    let overrides = Overrides {
        spp: args.spp.map(|spp| spp.max(1)),
        max_depth: args.max_depth,
        resolution: args.resolution,
        ..Default::default()
    };
    let mut s = Settings::resolve(scene, &overrides)?.scene;
    if let Some(rr) = args.rr_threshold {
        if !(0.0..=1.0).contains(&rr) {
            bail!("--rr-threshold {rr} must lie in [0, 1]");
        }
        s.rr_threshold = rr;
    }
    Ok(s)
}

fn measure(
    device: &CudaDevice,
    scene: &Scene,
    s: &RenderSettings,
    args: &VolumesArgs,
    strategy: Strategy,
    variant: KernelVariant,
    tiling: Option<u32>,
    majorant: &str,
) -> Result<(Row, Film)> {
    let mut renderer = StrategyRenderer::new(device, scene, s, args.bvh.build_kind())?;
    renderer.set_kernel_variant(scene, variant)?;
    renderer.set_strategy(strategy);
    let mut per_pass = args.spp_per_pass;
    let mut paths_per_tile = None;
    if let Some(n) = tiling {
        // One pass of every sample, cut into n² waves of equal path counts.
        per_pass = s.spp;
        let paths = s.width.div_ceil(8) as u64 * s.height.div_ceil(8) as u64 * 64 * s.spp as u64;
        let tile = paths.div_ceil(n as u64 * n as u64).min(u32::MAX as u64) as u32;
        renderer.set_max_wave_paths(tile);
        renderer.set_naive_waves(true);
        paths_per_tile = Some(renderer.max_wave_paths() as u64);
    }
    // Warm-up: compiles or loads the kernels, allocates the path buffers.
    render_all(device, &mut renderer, 1, 1)?;
    let mut run_seconds = Vec::new();
    for _ in 0..args.runs.max(1) {
        renderer.reset()?;
        device.synchronize()?;
        let start = Instant::now();
        render_all(device, &mut renderer, s.spp, per_pass)?;
        run_seconds.push(start.elapsed().as_secs_f64());
    }
    let download = Instant::now();
    let film = renderer.download_film()?;
    let film_download_ms = download.elapsed().as_secs_f64() * 1e3;
    let kernel_resources = renderer
        .kernel_resources(strategy)?
        .iter()
        .map(|k| format!("{}: {}/{}", k.kernel, k.registers, k.local_bytes))
        .collect::<Vec<_>>()
        .join(", ");
    let mut sorted = run_seconds.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    // Counts (deterministic per path) from a shorter instrumented run.
    let count_spp = args.count_spp.clamp(1, s.spp);
    renderer.set_instrumentation(true)?;
    renderer.reset()?;
    render_all(device, &mut renderer, count_spp, per_pass.min(count_spp))?;
    let c = renderer.counters()?;
    let warps: u64 = c.active_warps_per_bounce.iter().sum();
    let cycles: u64 = c.warp_cycles_per_bounce.iter().sum();
    let paths = s.width as f64 * s.height as f64 * count_spp as f64;
    let extensions: u64 = c.active_per_bounce.iter().sum();
    let per_path = |v: u64| v as f64 / paths;
    let samples = s.width as f64 * s.height as f64 * s.spp as f64;
    let row = Row {
        scene: scene.name.clone(),
        majorant: majorant.to_string(),
        width: s.width,
        height: s.height,
        spp: s.spp,
        max_depth: s.max_depth,
        strategy: strategy.name().to_string(),
        tiling,
        paths_per_tile,
        variant: variant.label(),
        kernel_resources,
        median_seconds: median,
        run_seconds,
        msamples_per_second: samples / median / 1e6,
        mextensions_per_second: per_path(extensions) * samples / median / 1e6,
        extensions_per_path: per_path(extensions),
        tracking_steps_per_path: per_path(c.tracking.steps),
        density_lookups_per_path: per_path(c.tracking.density_lookups),
        albedo_lookups_per_path: per_path(c.tracking.albedo_lookups),
        paths_per_warp: extensions as f64 / warps.max(1) as f64,
        kcycles_per_warp_step: cycles as f64 / warps.max(1) as f64 / 1e3,
        film_download_ms,
        active_per_step: c.active_per_bounce.clone(),
        mean_z2_vs_grid: None,
        outliers_vs_grid: None,
        max_relative_difference: None,
    };
    Ok((row, film))
}

/// The largest |a − b| / max(|a|, |b|) over every pixel channel (0 where both are 0).
fn max_relative_difference(a: &Film, b: &Film) -> f64 {
    let (ma, mb) = (a.mean(), b.mean());
    let mut largest = 0.0f64;
    for (pa, pb) in ma.iter().zip(&mb) {
        for c in 0..3 {
            let (x, y) = (pa[c] as f64, pb[c] as f64);
            let scale = x.abs().max(y.abs());
            if scale > 0.0 {
                largest = largest.max((x - y).abs() / scale);
            }
        }
    }
    largest
}

/// Mean z² and the fraction of |z| > 4 over every pixel channel with variance.
fn z_test(a: &Film, b: &Film) -> (f64, f64) {
    let (ma, mb) = (a.mean(), b.mean());
    let (va, vb) = (a.variance_of_mean(), b.variance_of_mean());
    let (mut sum, mut n, mut outliers) = (0.0f64, 0u64, 0u64);
    for i in 0..ma.len() {
        for c in 0..3 {
            let v = va[i][c] as f64 + vb[i][c] as f64;
            if v > 0.0 {
                let z = (ma[i][c] as f64 - mb[i][c] as f64) / v.sqrt();
                sum += z * z;
                n += 1;
                outliers += (z.abs() > 4.0) as u64;
            }
        }
    }
    (sum / n.max(1) as f64, outliers as f64 / n.max(1) as f64)
}
