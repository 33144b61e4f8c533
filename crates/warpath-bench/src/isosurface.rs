//! `warpath-bench isosurface` (issue 14, seed 001): fps of the isosurface caster per volume
//! and isovalue over views around it, each GPU pipeline beside the others, the per-isovalue
//! tree update timed apart, with seed 001's tables. The caster is `warpath_render::IsoCaster`
//! (its timed `frame`); the volumes and image options are `warpath isosurface`'s, from
//! warpath-cli's library.

use anyhow::{Result, bail};
use serde::Serialize;
use std::path::PathBuf;
use warpath_cli::isosurface::{ImageOptions, TreeUpdate, caster, load_lattice, parse_pipeline};
use warpath_cuda::isosurface::{IsoPipeline, StageTimes};
use warpath_isosurface::BrickBvh;
use warpath_isosurface::render::IsoView;
use warpath_render::isosurface::{IsoCaster, UpdateWait};

#[derive(clap::Args, Clone, Debug)]
pub struct BenchIsosurfaceArgs {
    /// Volumes (as `warpath isosurface` takes them).
    #[arg(required = true)]
    pub volumes: Vec<String>,
    /// Isovalues as fractions of each volume's range (comma separated).
    #[arg(long, value_delimiter = ',', default_value = "0.2,0.35,0.5")]
    pub fractions: Vec<f32>,
    /// Views around each volume (azimuths 360/N apart, elevation 20°).
    #[arg(long, default_value_t = 8)]
    pub views: u32,
    /// Timed frames per view (after one untimed frame).
    #[arg(long, default_value_t = 5)]
    pub frames: u32,
    /// GPU pipelines to compare (comma separated; the CPU backend has one; `cub` needs
    /// --cub-lib).
    #[arg(long, value_delimiter = ',', value_parser = parse_pipeline,
          default_value = "caster,single,ink-compact,ink-collate,lookback,ofk")]
    pub pipelines: Vec<IsoPipeline>,
    /// Also time each stage of the multi-kernel pipelines (one more frame per view, each
    /// launch waited for: the stage times, not the frame time).
    #[arg(long)]
    pub stages: bool,
    #[command(flatten)]
    pub image: ImageOptions,
    /// Also write the rows as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Per-stage GPU milliseconds of one frame (means over the views).
#[derive(Clone, Copy, Debug, Default, Serialize)]
struct StageRow {
    generate_ms: f64,
    traverse_ms: f64,
    intersect_ms: f64,
    shade_ms: f64,
    compaction_ms: f64,
    rounds: f64,
    traversal_rays: f64,
}

#[derive(Serialize)]
struct BenchRow {
    volume: String,
    samples: [u32; 3],
    brick: u32,
    backend: String,
    pipeline: String,
    tree_update: TreeUpdate,
    isovalue: f32,
    fraction: f32,
    valid_bricks: usize,
    bricks: usize,
    hit_fraction: f64,
    update_ms: f64,
    render_ms_mean: f64,
    render_ms_sd: f64,
    fps_mean: f64,
    fps_sd: f64,
    fps_with_update: f64,
    /// The frame with the update and render launched back to back, one wait at the end (mean
    /// over the views), and its rate.
    frame_ms_mean: f64,
    fps_frame: f64,
    render_ms_per_view: Vec<f64>,
    stages: Option<StageRow>,
}

fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

pub fn bench(args: &BenchIsosurfaceArgs) -> Result<()> {
    let (width, height) = args.image.resolution;
    warpath_render::check_resolution(width, height)?;
    if args.views == 0 || args.frames == 0 {
        bail!("--views and --frames must be at least 1");
    }
    if args.pipelines.is_empty() {
        bail!("--pipelines names none");
    }
    let source = &args.image.source;
    if source.brick == 0 {
        bail!("--brick must be at least 1");
    }
    let mut rows = Vec::new();
    let mut gpu = None;
    let backend = warpath_cli::commands::open_backend(args.image.backend)?;
    for name in &args.volumes {
        let lattice = load_lattice(name, source)?;
        let bvh = BrickBvh::build(&lattice, source.brick);
        let first_view = IsoView::orbit(&lattice, 0.0, 20.0, width, height);
        let (lo, hi) = lattice.range();
        let mut renderer = caster(&args.image, &backend, &lattice, &bvh, args.pipelines[0], first_view, lo)?;
        if let Some(device) = renderer.device() {
            gpu.get_or_insert_with(|| crate::gpu_line(device));
        }
        let on_cpu = renderer.backend_name() == "cpu";
        let pipelines = if on_cpu { vec![IsoPipeline::Caster] } else { args.pipelines.clone() };
        for &fraction in &args.fractions {
            let isovalue = lo + fraction * (hi - lo);
            let valid_bricks = bvh.condense(isovalue).leaves().len();
            for &pipeline in &pipelines {
                renderer.set_pipeline(pipeline)?;
                let (mut per_view, mut fps, mut updates, mut hit_pixels) = (Vec::new(), Vec::new(), Vec::new(), 0usize);
                let mut frame_per_view = Vec::new();
                let mut stage_sum = StageTimes::default();
                let timed_stages = args.stages && matches!(pipeline, IsoPipeline::Multi(_));
                for k in 0..args.views {
                    renderer.set_view(IsoView::orbit(
                        &lattice,
                        360.0 * k as f64 / args.views as f64,
                        20.0,
                        width,
                        height,
                    ))?;
                    // One frame of this view, isovalue and pipeline (kept: its image and hits).
                    let frame = |renderer: &mut IsoCaster, keep: bool, wait: UpdateWait| {
                        renderer.frame(isovalue, keep, wait, None)
                    };
                    // The untimed first frame keeps its image: the hit count of the last view is reported.
                    let (image, _) = frame(&mut renderer, true, UpdateWait::Apart)?;
                    hit_pixels = image.map_or(0, |image| image.hits);
                    let (mut times, mut whole) = (Vec::new(), Vec::new());
                    for _ in 0..args.frames {
                        let (_, t) = frame(&mut renderer, false, UpdateWait::Apart)?;
                        times.push(t.render_ms);
                        updates.push(t.update_ms);
                        whole.push(t.frame_ms);
                    }
                    // On the GPU the same frames again with the update and render launched back
                    // to back and one wait at the end: what an interactive sweep costs a frame
                    // (the CPU's frames are sequential anyway: update + render above).
                    if !on_cpu {
                        whole.clear();
                        for _ in 0..args.frames {
                            whole.push(frame(&mut renderer, false, UpdateWait::BackToBack)?.1.frame_ms);
                        }
                    }
                    frame_per_view.push(mean_sd(&whole).0);
                    if timed_stages {
                        renderer.frame(isovalue, false, UpdateWait::Apart, Some(&mut stage_sum))?;
                    }
                    let (view_ms, _) = mean_sd(&times);
                    per_view.push(view_ms);
                    fps.push(1e3 / view_ms.max(1e-9));
                }
                let (render_mean, render_sd) = mean_sd(&per_view);
                let (fps_mean, fps_sd) = mean_sd(&fps);
                let (update_ms, _) = mean_sd(&updates);
                let (frame_ms_mean, _) = mean_sd(&frame_per_view);
                let v = args.views as f64;
                let stages = timed_stages.then_some(StageRow {
                    generate_ms: stage_sum.generate_ms / v,
                    traverse_ms: stage_sum.traverse_ms / v,
                    intersect_ms: stage_sum.intersect_ms / v,
                    shade_ms: stage_sum.shade_ms / v,
                    compaction_ms: stage_sum.compaction_ms / v,
                    rounds: stage_sum.rounds as f64 / v,
                    traversal_rays: stage_sum.traversal_rays as f64 / v,
                });
                let row = BenchRow {
                    volume: name.clone(),
                    samples: lattice.samples,
                    brick: source.brick,
                    backend: renderer.backend_name().to_string(),
                    pipeline: if on_cpu { "cpu".into() } else { pipeline.name().into() },
                    tree_update: if on_cpu { TreeUpdate::Cpu } else { args.image.tree_update },
                    isovalue,
                    fraction,
                    valid_bricks,
                    bricks: bvh.brick_count(),
                    hit_fraction: hit_pixels as f64 / (width as f64 * height as f64),
                    update_ms,
                    render_ms_mean: render_mean,
                    render_ms_sd: render_sd,
                    fps_mean,
                    fps_sd,
                    fps_with_update: 1e3 / (render_mean + update_ms).max(1e-9),
                    frame_ms_mean,
                    fps_frame: 1e3 / frame_ms_mean.max(1e-9),
                    render_ms_per_view: per_view,
                    stages,
                };
                eprintln!(
                    "{name} isovalue {isovalue} {}: {:.3} ± {:.3} ms, {:.0} ± {:.0} fps ({:.0} with the tree update of {:.3} ms; {:.0} with update and render back to back)",
                    row.pipeline,
                    row.render_ms_mean,
                    row.render_ms_sd,
                    row.fps_mean,
                    row.fps_sd,
                    row.fps_with_update,
                    row.update_ms,
                    row.fps_frame
                );
                rows.push(row);
            }
        }
    }
    print_tables(args, gpu.as_deref(), &rows);
    crate::write_json(args.json.as_deref(), &rows)
}

/// The benchmark's tables: every row; seed 001's Table 1 (fps per volume and pipeline over
/// all views and isovalues, and the ratio to the single kernel); Figure 6 (fps against the
/// isovalue); the stage times.
fn print_tables(args: &BenchIsosurfaceArgs, gpu: Option<&str>, rows: &[BenchRow]) {
    let (width, height) = args.image.resolution;
    // (crate::run printed the header: host, commit, command, date.)
    println!("{}\n", gpu.unwrap_or("- GPU: none (the CPU renderer)"));
    println!(
        "- settings: {width}x{height}, {} views around each volume (elevation 20°), {} timed frames a view; tree update on the {} (timed apart, then again launched back to back with the render, one wait a frame); {}\n",
        args.views,
        args.frames,
        match rows.first().map_or(args.image.tree_update, |r| r.tree_update) {
            TreeUpdate::Gpu => "GPU (one launch, from the valid bricks up)",
            TreeUpdate::GpuLevels => "GPU (seed 001's level by level)",
            TreeUpdate::Cpu => "CPU (condensation + upload)",
        },
        args.image.lighting()
    );
    println!(
        "| volume | samples | brick | pipeline | isovalue | valid bricks | hit pixels | tree update ms | render ms (mean ± sd over views) | fps (mean ± sd) | fps with update | fps, update + render back to back |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        println!(
            "| {} | {}×{}×{} | {} | {} | {:.4} | {} of {} | {:.1}% | {:.3} | {:.3} ± {:.3} | {:.0} ± {:.0} | {:.0} | {:.0} |",
            r.volume,
            r.samples[0],
            r.samples[1],
            r.samples[2],
            r.brick,
            r.pipeline,
            r.isovalue,
            r.valid_bricks,
            r.bricks,
            100.0 * r.hit_fraction,
            r.update_ms,
            r.render_ms_mean,
            r.render_ms_sd,
            r.fps_mean,
            r.fps_sd,
            r.fps_with_update,
            r.fps_frame
        );
    }
    // Table 1: per volume and pipeline, fps over every (view, isovalue).
    let mut volumes: Vec<&str> = Vec::new();
    let mut pipelines: Vec<&str> = Vec::new();
    for r in rows {
        if !volumes.contains(&r.volume.as_str()) {
            volumes.push(&r.volume);
        }
        if !pipelines.contains(&r.pipeline.as_str()) {
            pipelines.push(&r.pipeline);
        }
    }
    let view_fps = |volume: &str, pipeline: &str| -> Vec<f64> {
        rows.iter()
            .filter(|r| r.volume == volume && r.pipeline == pipeline)
            .flat_map(|r| r.render_ms_per_view.iter().map(|ms| 1e3 / ms.max(1e-9)))
            .collect()
    };
    let mean_ms = |volume: &str, pipeline: &str| -> f64 {
        let all: Vec<f64> = rows
            .iter()
            .filter(|r| r.volume == volume && r.pipeline == pipeline)
            .flat_map(|r| r.render_ms_per_view.iter().copied())
            .collect();
        mean_sd(&all).0
    };
    println!("\n#### Table 1: fps (mean ± sd over views and isovalues; render only)\n");
    println!("| volume | {} |", pipelines.join(" | "));
    println!("|---|{}", "---|".repeat(pipelines.len()));
    for v in &volumes {
        let cells: Vec<String> = pipelines
            .iter()
            .map(|p| {
                let (m, sd) = mean_sd(&view_fps(v, p));
                format!("{m:.0} ± {sd:.0}")
            })
            .collect();
        println!("| {v} | {} |", cells.join(" | "));
    }
    if pipelines.contains(&"single") {
        println!("\n#### Speed-up over the single kernel (its mean frame time ÷ the pipeline's)\n");
        println!("| volume | {} |", pipelines.join(" | "));
        println!("|---|{}", "---|".repeat(pipelines.len()));
        for v in &volumes {
            let single = mean_ms(v, "single");
            let cells: Vec<String> =
                pipelines.iter().map(|p| format!("{:.2}×", single / mean_ms(v, p).max(1e-12))).collect();
            println!("| {v} | {} |", cells.join(" | "));
        }
    }
    // Figure 6: fps against the isovalue.
    println!("\n#### Figure 6: fps (mean over views) against the isovalue\n");
    println!("| volume | fraction | isovalue | hit pixels | {} |", pipelines.join(" | "));
    println!("|---|---|---|---|{}", "---|".repeat(pipelines.len()));
    for v in &volumes {
        for &fraction in &args.fractions {
            let at: Vec<&BenchRow> = rows.iter().filter(|r| r.volume == *v && r.fraction == fraction).collect();
            let Some(first) = at.first() else { continue };
            let cells: Vec<String> = pipelines
                .iter()
                .map(|p| at.iter().find(|r| r.pipeline == *p).map_or("–".into(), |r| format!("{:.0}", r.fps_mean)))
                .collect();
            println!(
                "| {v} | {fraction} | {:.4} | {:.1}% | {} |",
                first.isovalue,
                100.0 * first.hit_fraction,
                cells.join(" | ")
            );
        }
    }
    if rows.iter().any(|r| r.stages.is_some()) {
        println!(
            "\n#### Stage times of the multi-kernel pipelines (GPU ms per frame, mean over views; each launch waited for)\n"
        );
        println!(
            "| volume | isovalue | pipeline | generate | traverse | intersect | shade | compaction (OfK) | rounds | rays into traversal |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for r in rows {
            if let Some(s) = &r.stages {
                println!(
                    "| {} | {:.4} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} | {:.0} |",
                    r.volume,
                    r.isovalue,
                    r.pipeline,
                    s.generate_ms,
                    s.traverse_ms,
                    s.intersect_ms,
                    s.shade_ms,
                    s.compaction_ms,
                    s.rounds,
                    s.traversal_rays
                );
            }
        }
    }
}
