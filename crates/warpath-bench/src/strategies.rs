//! `warpath-bench strategies`: every path scheduling strategy (issue 5) on the same scenes,
//! in one run, with the tables of seed 000 (Table 1: Msamples/s and speedup over naive;
//! Table 2: active paths and warps per bounce, naive vs wavefront; Table 3: time per active
//! warp per bounce with compaction on and off) and seed 003 (regeneration and sorting), the
//! kernels' registers, spills and occupancy, and the realized speedup against the saving in
//! warp executions. Timed runs have instrumentation off; one extra instrumented run per
//! strategy gives the counts. Prints markdown (tables last per scene), optionally JSON.

use crate::render_all;
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;
use warpath_cli::commands::load_scene;
use warpath_cli::{BvhKind, BvhLayoutArg};
use warpath_cuda::strategy::{KernelResources, LaunchTimes, PathCounters, STORED_PATH_BYTES};
use warpath_cuda::{CudaDevice, Strategy, StrategyRenderer, WavefrontCompaction};
use warpath_scene::RenderSettings;

#[derive(clap::Args)]
pub struct StrategiesArgs {
    /// Scenes (built-in names or paths); the set is cornell, scenes/bunny.toml and
    /// scenes/dragon.toml (the dragon and the bunny are lit by HDR environments).
    #[arg(required = true)]
    pub scenes: Vec<String>,
    /// Image size WIDTHxHEIGHT.
    #[arg(long, value_parser = warpath_cli::parse_resolution, default_value = "1280x768")]
    pub resolution: (u32, u32),
    /// Samples per pixel of each timed render.
    #[arg(long, default_value_t = 16)]
    pub spp: u32,
    /// Samples per pass (one wave of the wavefront strategies holds a pass when it fits).
    #[arg(long, default_value_t = 16)]
    pub spp_per_pass: u32,
    /// Maximum bounces to run, one table set each.
    #[arg(long, value_delimiter = ',', default_value = "2,8")]
    pub depths: Vec<u32>,
    /// Strategies (default: all).
    #[arg(long, value_delimiter = ',', value_parser = warpath_cli::parse_strategy)]
    pub strategies: Vec<Strategy>,
    /// The most paths one wave holds (a pass larger than this is split) [default: 2^24,
    /// fewer when a quarter of the free device memory cannot hold them].
    #[arg(long)]
    pub wave_paths: Option<u32>,
    /// Pools of regen-device and streaming-mk, in multiples of the GPU's resident threads.
    #[arg(long, default_value_t = warpath_cuda::strategy::DEFAULT_POOL_FACTOR)]
    pub pool_factor: u32,
    /// Timed renders per strategy (median reported).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    #[arg(long, value_enum, default_value_t = BvhKind::Sbvh)]
    pub bvh: BvhKind,
    /// BVH layout the renders trace: binary or wide8 (the compressed 8-wide BVH).
    #[arg(long, value_enum, default_value_t = BvhLayoutArg::Binary)]
    pub bvh_layout: BvhLayoutArg,
    /// Also write the results as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Serialize, Clone)]
struct Row {
    scene: String,
    max_depth: u32,
    strategy: String,
    median_seconds: f64,
    msamples_per_second: f64,
    speedup_over_naive: f64,
    extend_warps: u64,
    warp_saving_over_naive: f64,
    paths_per_bounce: Vec<u64>,
    warps_per_bounce: Vec<u64>,
    warp_cycles_per_bounce: Vec<u64>,
    extend_ms_per_bounce: Vec<f64>,
    compaction_ms_per_bounce: Vec<f64>,
    stage_ms: Vec<(String, f64)>,
    run_seconds: Vec<f64>,
}

struct Measured {
    row: Row,
    counters: PathCounters,
    times: LaunchTimes,
}

pub fn run(args: StrategiesArgs) -> Result<()> {
    let device = CudaDevice::open(0).context("warpath-bench strategies needs a CUDA device")?;
    println!("{}\n", crate::gpu_line(&device));
    let strategies = if args.strategies.is_empty() { Strategy::ALL.to_vec() } else { args.strategies.clone() };
    let (width, height) = args.resolution;
    warpath_render::check_resolution(width, height)?;
    let mut all_rows = Vec::new();
    let mut resources_printed = false;
    for name in &args.scenes {
        let scene = load_scene(name)?;
        for &max_depth in &args.depths {
            let settings = RenderSettings {
                width,
                height,
                spp: args.spp,
                max_depth,
                seed: 1,
                sampler: warpath_core::sampler::SamplerKind::PaddedHalton,
                rr_threshold: scene.settings.rr_threshold,
            };
            let t = Instant::now();
            let soup = scene.triangle_soup();
            let (bvh, _) = warpath_bvh::Bvh::build(&soup, &StrategyRenderer::bvh_options(args.bvh.build_kind()));
            let mut renderer =
                StrategyRenderer::with_bvh_layout(&device, &scene, &settings, &bvh, args.bvh_layout.layout())?;
            if let Some(paths) = args.wave_paths {
                renderer.set_max_wave_paths(paths);
            }
            let wave_paths = renderer.max_wave_paths();
            renderer.set_pool_factor(args.pool_factor);
            eprintln!("{}: uploaded in {:.2} s", scene.name, t.elapsed().as_secs_f64());
            let mut measured = Vec::new();
            for &strategy in &strategies {
                let m = measure(&device, &mut renderer, strategy, &args, &scene.name, max_depth)?;
                eprintln!(
                    "{} depth {max_depth}: {:<20} {:8.1} Msamples/s",
                    scene.name, m.row.strategy, m.row.msamples_per_second
                );
                measured.push(m);
            }
            finish_rows(&mut measured);
            print_tables(&scene.name, max_depth, &args, wave_paths, &measured);
            if !resources_printed {
                print_resources(&renderer, &strategies)?;
                resources_printed = true;
            }
            all_rows.extend(measured.into_iter().map(|m| m.row));
        }
    }
    crate::write_json(args.json.as_deref(), &all_rows)
}

fn measure(
    device: &CudaDevice,
    renderer: &mut StrategyRenderer,
    strategy: Strategy,
    args: &StrategiesArgs,
    scene: &str,
    max_depth: u32,
) -> Result<Measured> {
    renderer.set_strategy(strategy);
    renderer.set_instrumentation(false)?;
    renderer.set_launch_timing(false);
    // Warm-up: compiles or loads the kernels, allocates the path buffers.
    renderer.reset()?;
    render_all(device, renderer, args.spp_per_pass.min(args.spp), args.spp_per_pass)?;
    let mut run_seconds = Vec::new();
    for _ in 0..args.runs.max(1) {
        renderer.reset()?;
        device.synchronize()?;
        let start = Instant::now();
        render_all(device, renderer, args.spp, args.spp_per_pass)?;
        run_seconds.push(start.elapsed().as_secs_f64());
    }
    let mut sorted = run_seconds.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    // One instrumented run for the counts and per-bounce kernel times. Naive runs it one
    // sample per launch: with several, a thread whose path ended starts its next sample
    // while its warp's other lanes still trace (independent thread scheduling), so warps
    // split into groups at different bounces; one sample per launch gives seed 000's naive
    // (a warp's lanes all trace the same bounce, a warp active while any lane is).
    renderer.set_instrumentation(true)?;
    renderer.set_launch_timing(true);
    renderer.reset()?;
    let per_pass = if strategy == Strategy::Naive { 1 } else { args.spp_per_pass };
    render_all(device, renderer, args.spp, per_pass)?;
    let counters = renderer.counters()?;
    let times = renderer.launch_times();
    renderer.set_instrumentation(false)?;
    renderer.set_launch_timing(false);
    let samples = args.resolution.0 as f64 * args.resolution.1 as f64 * args.spp as f64;
    let row = Row {
        scene: scene.to_string(),
        max_depth,
        strategy: strategy.name().to_string(),
        median_seconds: median,
        msamples_per_second: samples / median / 1e6,
        speedup_over_naive: 0.0,
        extend_warps: counters.active_warps_per_bounce.iter().sum(),
        warp_saving_over_naive: 0.0,
        paths_per_bounce: counters.active_per_bounce.clone(),
        warps_per_bounce: counters.active_warps_per_bounce.clone(),
        warp_cycles_per_bounce: counters.warp_cycles_per_bounce.clone(),
        extend_ms_per_bounce: times.extend_ms_per_bounce.clone(),
        compaction_ms_per_bounce: times.compaction_ms_per_bounce.clone(),
        stage_ms: times.stage_ms.iter().map(|(name, ms)| (name.to_string(), *ms)).collect(),
        run_seconds,
    };
    Ok(Measured { row, counters, times })
}

fn finish_rows(measured: &mut [Measured]) {
    let naive = measured.iter().find(|m| m.row.strategy == "naive").map(|m| (m.row.median_seconds, m.row.extend_warps));
    if let Some((seconds, warps)) = naive {
        for m in measured.iter_mut() {
            m.row.speedup_over_naive = seconds / m.row.median_seconds;
            m.row.warp_saving_over_naive = warps as f64 / m.row.extend_warps.max(1) as f64;
        }
    }
}

fn find(measured: &[Measured], strategy: Strategy) -> Option<&Measured> {
    measured.iter().find(|m| m.row.strategy == strategy.name())
}

fn print_tables(scene: &str, max_depth: u32, args: &StrategiesArgs, wave_paths: u32, measured: &[Measured]) {
    let (w, h) = args.resolution;
    println!(
        "\n### {scene}, max depth {max_depth}, {w}×{h}, {} spp ({} per pass, waves of at most {} paths)\n",
        args.spp, args.spp_per_pass, wave_paths
    );
    println!("Table 1 — throughput (median of {} renders, instrumentation off)\n", args.runs.max(1));
    println!(
        "| strategy | Msamples/s | speedup over naive | extend warp executions | warp saving over naive | speedup / saving |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for m in measured {
        let r = &m.row;
        println!(
            "| {} | {:.1} | {:.2}× | {} | {:.2}× | {:.0}% |",
            r.strategy,
            r.msamples_per_second,
            r.speedup_over_naive,
            r.extend_warps,
            r.warp_saving_over_naive,
            100.0 * r.speedup_over_naive / r.warp_saving_over_naive.max(1e-9)
        );
    }

    let naive = find(measured, Strategy::Naive);
    let wavefront = find(measured, Strategy::Wavefront(WavefrontCompaction::Collate));
    if let (Some(naive), Some(wavefront)) = (naive, wavefront) {
        println!("\nTable 2 — active paths and warps per bounce (naive vs wavefront)\n");
        println!(
            "| bounce | active paths | naive warps | paths/warp | wavefront warps | paths/warp | cumulative saving |"
        );
        println!("|---:|---:|---:|---:|---:|---:|---:|");
        let (mut naive_sum, mut wave_sum) = (0u64, 0u64);
        for (b, &paths) in naive.counters.active_per_bounce.iter().enumerate() {
            let nw = naive.counters.active_warps_per_bounce.get(b).copied().unwrap_or(0);
            let ww = wavefront.counters.active_warps_per_bounce.get(b).copied().unwrap_or(0);
            naive_sum += nw;
            wave_sum += ww;
            println!(
                "| {b} | {paths} | {nw} | {:.1} | {ww} | {:.1} | {:.2}× |",
                paths as f64 / nw.max(1) as f64,
                paths as f64 / ww.max(1) as f64,
                naive_sum as f64 / wave_sum.max(1) as f64
            );
        }
    }

    let off = find(measured, Strategy::Wavefront(WavefrontCompaction::None));
    if let (Some(on), Some(off), Some(naive)) = (wavefront, off, naive) {
        println!(
            "\nTable 3 — time per active warp per bounce: extend-kernel time (CUDA events) / warps that ran \
             extend, and the mean clock64 cycles of a warp's extend (naive: no per-bounce launch, cycles only)\n"
        );
        println!(
            "| bounce | compaction on: µs/kwarp | cycles/warp | compaction off: µs/kwarp | cycles/warp | naive cycles/warp |"
        );
        println!("|---:|---:|---:|---:|---:|---:|");
        for b in 0..on.counters.active_per_bounce.len() {
            let per_kwarp = |m: &Measured| {
                let ms = m.times.extend_ms_per_bounce.get(b).copied().unwrap_or(0.0);
                let warps = m.counters.active_warps_per_bounce.get(b).copied().unwrap_or(0);
                if warps == 0 { 0.0 } else { ms * 1e3 / (warps as f64 / 1e3) }
            };
            let cycles = |m: &Measured| {
                let c = m.counters.warp_cycles_per_bounce.get(b).copied().unwrap_or(0);
                let warps = m.counters.active_warps_per_bounce.get(b).copied().unwrap_or(0);
                c as f64 / warps.max(1) as f64
            };
            println!(
                "| {b} | {:.2} | {:.0} | {:.2} | {:.0} | {:.0} |",
                per_kwarp(on),
                cycles(on),
                per_kwarp(off),
                cycles(off),
                cycles(naive)
            );
        }
    }

    if let Some(multistage) = find(measured, Strategy::MultiStage) {
        let total: f64 = multistage.times.stage_ms.iter().map(|(_, ms)| ms).sum();
        let parts: Vec<String> = multistage
            .times
            .stage_ms
            .iter()
            .map(|(name, ms)| {
                let stage = name.trim_start_matches("multistage_").trim_end_matches("_kernel");
                format!("{stage} {ms:.2} ms ({:.0}%)", 100.0 * ms / total.max(1e-9))
            })
            .collect();
        let warps: u64 = multistage.counters.active_warps_per_bounce.iter().sum();
        println!(
            "\nmultistage kernel time by stage (instrumented render): {}; intersect warps {warps}",
            parts.join(", ")
        );
    }
    if let Some(separate) = find(measured, Strategy::Wavefront(WavefrontCompaction::Separate)) {
        let extend: f64 = separate.times.extend_ms_per_bounce.iter().sum();
        let compaction: f64 = separate.times.compaction_ms_per_bounce.iter().sum();
        println!(
            "\nwavefront-ofk (separate compaction pass): extend kernels {extend:.2} ms, OfK passes {compaction:.2} ms \
             ({:.1}% of the two) in the instrumented render",
            100.0 * compaction / (extend + compaction).max(1e-9)
        );
    }
    if let Some(n) = naive {
        let loaded: u64 = n.counters.active_per_bounce.iter().skip(1).sum();
        let gb = loaded as f64 * STORED_PATH_BYTES as f64 / 1e9;
        println!(
            "\nPath state: {STORED_PATH_BYTES} B per stored path (Wald 2011: 88 + 16). A compacting wavefront loads \
             and stores about {gb:.2} GB each of path state per {} spp here (paths alive after bounce 0 × {STORED_PATH_BYTES} B).",
            args.spp
        );
    }
}

fn print_resources(renderer: &StrategyRenderer, strategies: &[Strategy]) -> Result<()> {
    println!("\nKernel resources (registers, local memory per thread, static shared memory per block, occupancy)\n");
    println!("| strategy | kernel | block | registers | local B | shared B | blocks/SM | occupancy |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for &strategy in strategies {
        let resources: Vec<KernelResources> = renderer.kernel_resources(strategy)?;
        for r in resources {
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {:.0}% |",
                strategy,
                r.kernel,
                r.block,
                r.registers,
                r.local_bytes,
                r.shared_bytes,
                r.blocks_per_sm,
                100.0 * r.occupancy()
            );
        }
    }
    Ok(())
}
