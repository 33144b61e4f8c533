//! `warpath-bench restir`: the yardstick of issue 29 — one steady ReSTIR DI frame against the
//! path tracer at equal time, on one backend in one run.
//!
//! - ReSTIR renders `--frames` frames (default 64, static camera or `--orbit DEG` over all of
//!   them); frames after `--history` (default 20) are scored one by one (frames 21..64), each
//!   frame's image on its own, and the scores averaged: a steady frame with history, not a
//!   cold start.
//! - The path tracer (max depth 1: the same direct lighting) gets the spp of equal time: its
//!   time per spp is measured on the same backend in the same run, spp = round(ReSTIR's time
//!   per frame / that), lowered while a pass of that many spp takes over 1.1 × a ReSTIR frame.
//!   Each scored frame gets its own independent path-traced image.
//! - The reference is the path tracer at `--reference-spp` (default 4096), cached in
//!   `--cache` under a key of scene, size, spp, camera and backend.
//! - Scores over the pixels whose primary hit is a non-emitting, non-specular surface
//!   (at eight jittered camera rays, and no emitter seen by a neighbour: edges excluded) and
//!   over all pixels: RMSE, RMSE without the
//!   worst 0.1% of pixels, median and 99.9th percentile of the per-pixel error (RGB root mean
//!   square), each relative to the reference's mean over the same pixels.
//! - `--png`: reference / last scored ReSTIR frame / path tracer, below them the ReSTIR frame's
//!   origin map (`origins::colour`) and the two error maps, and the per-frame RMSE over all
//!   frames (ReSTIR's curve in orange, the path tracer's mean in blue).
//! - The scored frames' error over surfaces by where each pixel's final sample came from and
//!   by the material it sees (`origins`: shares of pixels, squared error, the worst 0.1%).
//! - `--accumulate N,…`: accumulated stills instead of steady frames (`stills`); `--time-ratio`
//!   fixes the path tracer's spp per ReSTIR frame instead of timing both.
//!
//! Prints markdown (the table last); `--json` writes the scores.

use anyhow::{Context, Result, bail};
use glam::Vec3;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;
use warpath_cli::commands::load_scene;
use warpath_core::camera::Camera;
use warpath_core::restir::{BiasCorrection, RestirOptions, TargetFunction};
use warpath_render::{Backend, BackendChoice, Integrator, Overrides, Renderer, RestirByScene, Settings, prepare};
use warpath_scene::Scene;

mod origins;
mod reference;
mod stills;

use reference::reference_image;

#[derive(clap::Args)]
pub struct RestirArgs {
    /// Scene (built-in name such as many-lights:2048, or a path).
    pub scene: String,
    /// cpu, cuda or auto (the GPU when one opens).
    #[arg(long, default_value = "auto")]
    pub backend: String,
    /// Image size WIDTHxHEIGHT [default: the scene's].
    #[arg(long, value_parser = warpath_cli::parse_resolution)]
    pub resolution: Option<(u32, u32)>,
    /// Frames of history before the first scored frame.
    #[arg(long, default_value_t = 20)]
    pub history: u32,
    /// Frames in all; frames history+1 ..= frames are scored.
    #[arg(long, default_value_t = 64)]
    pub frames: u32,
    /// Turn the camera DEGREES in all (DEGREES/frames a frame) about its focus, as `warpath
    /// render --sequence --orbit` does.
    #[arg(long, allow_negative_numbers = true)]
    pub orbit: Option<f32>,
    /// Under --orbit, score this many of the scored frames (evenly spaced; each needs its own
    /// reference and path tracer).
    #[arg(long, default_value_t = 8)]
    pub orbit_views: u32,
    /// Samples per pixel of the reference (the path tracer, max depth 1).
    #[arg(long, default_value_t = 4096)]
    pub reference_spp: u32,
    /// Folder of cached references.
    #[arg(long, default_value = "target/restir-bench")]
    pub cache: PathBuf,
    /// Write the error maps and the per-frame plot as this PNG.
    #[arg(long)]
    pub png: Option<PathBuf>,
    #[arg(long)]
    pub json: Option<PathBuf>,
    #[arg(long, default_value_t = 0)]
    pub seed: u32,
    /// ReSTIR: candidates per pixel.
    #[arg(long)]
    pub candidates: Option<u32>,
    /// ReSTIR: bias correction (ray-traced, pairwise, off).
    #[arg(long)]
    pub bias: Option<String>,
    /// ReSTIR: candidates from the power distribution, not the 16x16 tile's light pool.
    #[arg(long)]
    pub no_pool: bool,
    /// ReSTIR: no temporal reuse.
    #[arg(long)]
    pub no_temporal: bool,
    /// ReSTIR: spatial passes.
    #[arg(long)]
    pub spatial_passes: Option<u32>,
    /// ReSTIR: neighbours per spatial pass.
    #[arg(long)]
    pub neighbours: Option<u32>,
    /// ReSTIR: the temporal pass's bias correction (ray-traced, pairwise, off) [default: --bias].
    #[arg(long)]
    pub temporal_bias: Option<String>,
    /// ReSTIR: the previous frame's M is capped at this × the current M [default: as `warpath
    /// render` chooses, by the temporal bias correction: 5 ray-traced, 20 otherwise].
    #[arg(long)]
    pub temporal_cap: Option<f32>,
    /// ReSTIR: RTXDI's boiling filter after temporal reuse at this strength (0: off; RTXDI's
    /// default 0.2).
    #[arg(long)]
    pub boiling_filter: Option<f32>,
    /// ReSTIR: reject reuse neighbours whose material roughness differs from the pixel's by
    /// more than this (1: no roughness test).
    #[arg(long)]
    pub roughness_threshold: Option<f32>,
    /// ReSTIR: the target function (luminance, l2, sum, max, channels: one reservoir per colour channel).
    #[arg(long)]
    pub target: Option<String>,
    /// ReSTIR: visibility-aware reuse (a reused sample weighed by its visibility from the pixel).
    #[arg(long)]
    pub reuse_visibility: bool,
    /// ReSTIR: BSDF-sampled candidates per pixel (MIS with the light candidates).
    #[arg(long)]
    pub bsdf_candidates: Option<u32>,
    /// ReSTIR: spatial radius in pixels [default: 30 at 1920 pixels wide, scaled with the
    /// width (at least 2), so that a small CPU image reuses over the same part of the scene].
    #[arg(long)]
    pub radius: Option<f32>,
    /// Score accumulated stills instead of steady frames: ReSTIR as `warpath render` renders a
    /// still (temporal reuse off) accumulated over each of these frame counts, against the path
    /// tracer at equal time (e.g. 1,4,16,64,256).
    #[arg(long, value_delimiter = ',')]
    pub accumulate: Option<Vec<u32>>,
    /// With --accumulate: keep temporal reuse on in the stills (frames then correlate).
    #[arg(long)]
    pub still_temporal: bool,
    /// Give the path tracer round(RATIO) spp a ReSTIR frame (N × RATIO at N frames with
    /// --accumulate) instead of measuring the time ratio (a loaded machine's times are noise).
    #[arg(long)]
    pub time_ratio: Option<f64>,
}

/// Error statistics of one image against the reference over a set of pixels, each relative
/// to the reference's mean there (channel mean).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Scores {
    pub rmse: f64,
    /// RMSE without the worst 0.1% of the pixels.
    pub rmse_trimmed: f64,
    pub median: f64,
    pub p999: f64,
}

impl Scores {
    fn add(&mut self, o: &Scores, weight: f64) {
        self.rmse += o.rmse * weight;
        self.rmse_trimmed += o.rmse_trimmed * weight;
        self.median += o.median * weight;
        self.p999 += o.p999 * weight;
    }
}

/// Per-pixel error: the root mean square of the RGB difference.
pub fn pixel_error(a: Vec3, b: Vec3) -> f64 {
    let d = (a - b).as_dvec3();
    (d.length_squared() / 3.0).sqrt()
}

/// [`Scores`] of `image` against `reference` over the pixels where `mask` holds.
pub fn score(image: &[Vec3], reference: &[Vec3], mask: &[bool]) -> Scores {
    let mut errors = Vec::new();
    let mut mean = 0.0f64;
    for ((a, r), m) in image.iter().zip(reference).zip(mask) {
        if *m {
            errors.push(pixel_error(*a, *r));
            mean += (r.x as f64 + r.y as f64 + r.z as f64) / 3.0;
        }
    }
    let n = errors.len();
    if n == 0 || !(mean > 0.0) {
        return Scores::default();
    }
    let norm = mean / n as f64;
    errors.sort_by(f64::total_cmp);
    let rms = |e: &[f64]| (e.iter().map(|x| x * x).sum::<f64>() / e.len().max(1) as f64).sqrt();
    let drop = n.div_ceil(1000).min(n - 1);
    Scores {
        rmse: rms(&errors) / norm,
        rmse_trimmed: rms(&errors[..n - drop]) / norm,
        median: errors[n / 2] / norm,
        p999: errors[((n - 1) as f64 * 0.999) as usize] / norm,
    }
}

/// One method's result.
#[derive(Serialize)]
struct Row {
    method: String,
    /// Samples per pixel an image (ReSTIR: 1 frame).
    spp: u32,
    /// Milliseconds an image.
    ms: f64,
    surfaces: Scores,
    all: Scores,
}

#[derive(Serialize)]
struct Report {
    scene: String,
    backend: String,
    width: u32,
    height: u32,
    orbit: Option<f32>,
    scored_frames: Vec<u32>,
    surface_pixels: usize,
    restir_ms_per_frame: f64,
    /// The ReSTIR renderer's report (CPU: shadow rays per pixel per frame by stage).
    restir_note: Option<String>,
    path_ms_per_spp: f64,
    time_ratio: f64,
    rows: Vec<Row>,
    /// ReSTIR's RMSE over surfaces, frame by frame (all frames).
    restir_rmse_by_frame: Vec<f64>,
    /// ReSTIR's error over surfaces in the scored frames by where each pixel's final sample
    /// came from (the first reservoir target's, with one reservoir per colour channel the red
    /// channel's), and by the material the pixel sees.
    by_origin: Vec<origins::Share>,
    by_material: Vec<origins::Share>,
    /// The worst surface pixels of the scored frames.
    worst_pixels: Vec<origins::Worst>,
}

pub fn run(args: RestirArgs) -> Result<()> {
    if args.history >= args.frames {
        bail!("--history {} leaves no frame of --frames {} to score", args.history, args.frames);
    }
    let choice = BackendChoice::from_name(&args.backend).context("--backend: cpu, cuda or auto")?;
    let scene = load_scene(&args.scene)?;
    let mut restir = RestirOptions::default();
    if let Some(c) = args.candidates {
        restir.candidates = c;
    }
    if let Some(b) = &args.bias {
        restir.bias = BiasCorrection::from_name(b).context("--bias: ray-traced, pairwise or off")?;
    }
    if let Some(t) = &args.target {
        restir.target = TargetFunction::from_name(t).context("--target: luminance, l2, sum, max or channels")?;
    }
    restir.temporal &= !args.no_temporal;
    restir.reuse_visibility |= args.reuse_visibility;
    if let Some(b) = args.bsdf_candidates {
        restir.bsdf_candidates = b;
    }
    restir.light_pool &= !args.no_pool;
    if let Some(t) = args.roughness_threshold {
        restir.roughness_threshold = t;
    }
    if let Some(b) = args.boiling_filter {
        restir.boiling_filter = b;
    }
    if let Some(p) = args.spatial_passes {
        restir.spatial_passes = p;
    }
    if let Some(k) = args.neighbours {
        restir.neighbours = k;
    }
    if let Some(b) = &args.temporal_bias {
        restir.temporal_bias =
            Some(BiasCorrection::from_name(b).context("--temporal-bias: ray-traced, pairwise or off")?);
    }
    if let Some(c) = args.temporal_cap {
        restir.temporal_cap = c;
    }
    if let Some(r) = args.radius {
        restir.radius = r;
    }
    let restir_settings = Settings::resolve(
        &scene,
        &Overrides {
            frames: Some(args.frames),
            resolution: args.resolution,
            seed: Some(args.seed),
            pass_size: Some(1),
            integrator: Integrator::RestirDi,
            restir,
            // What `warpath render --sequence` chooses for the knobs not given here.
            restir_by_scene: RestirByScene {
                target: args.target.is_none(),
                bias: args.bias.is_none(),
                spatial: args.spatial_passes.is_none(),
                temporal_cap: args.temporal_cap.is_none(),
            },
            ..Default::default()
        },
    )?;
    let path_settings = |spp: u32, seed: u32| {
        Settings::resolve(
            &scene,
            &Overrides {
                spp: Some(spp),
                max_depth: Some(1),
                resolution: args.resolution,
                seed: Some(seed),
                pass_size: Some(spp),
                ..Default::default()
            },
        )
    };
    let (backend, warnings) = warpath_render::open_backend(choice, &scene, &restir_settings)?;
    for w in warnings {
        eprintln!("note: {w}");
    }
    let (w, h) = (restir_settings.width(), restir_settings.height());
    let mut restir_settings = restir_settings;
    if args.radius.is_none() {
        restir_settings.restir.radius = (30.0 * w as f32 / 1920.0).max(2.0);
    }
    let restir_settings = restir_settings;
    let step = args.orbit.unwrap_or(0.0) / args.frames as f32;
    let camera_of = |frame: u32| scene.camera.orbited(step * frame as f32);
    let scored: Vec<u32> = if args.orbit.is_some() {
        let n = args.frames - args.history;
        let views = args.orbit_views.clamp(1, n);
        (0..views).map(|k| args.history + (k * n) / views).collect()
    } else {
        (args.history..args.frames).collect()
    };
    println!(
        "- scene: {} at {w}x{h}, backend {}; {} frames, scored {} of frames {}..={}{}",
        scene.name,
        backend.describe(),
        args.frames,
        scored.len(),
        args.history + 1,
        args.frames,
        args.orbit.map(|d| format!(", orbit {d}° in all")).unwrap_or_default()
    );
    println!("- ReSTIR: {}", warpath_render::restir_summary(&restir_settings));

    // References and masks, one per scored camera (one for a static camera).
    let views: Vec<u32> = if args.orbit.is_some() { scored.clone() } else { vec![0] };
    let mut references = Vec::new();
    for &f in &views {
        let view_scene = Scene { camera: camera_of(f), ..scene.clone() };
        let reference = reference_image(&view_scene, &path_settings(args.reference_spp, 7777)?, &backend, &args)?;
        let (mask, materials) = surface_mask(&view_scene, &restir_settings);
        references.push((reference, mask, materials));
    }
    let reference_index = |frame: u32| views.iter().position(|&v| v == frame).unwrap_or(0);
    if let Some(counts) = &args.accumulate {
        if args.orbit.is_some() {
            bail!("--accumulate scores stills of the scene's camera: leave out --orbit");
        }
        let (reference, mask, _) = &references[0];
        let still = stills::Still { scene: &scene, backend: &backend, reference, mask, args: &args };
        return still.run(counts, &restir_settings, &path_settings);
    }

    // ReSTIR, frame by frame, each frame's image scored on its own.
    let mut renderer = prepare(&scene, &restir_settings, &backend)?;
    // (a word a pixel written by the last kernel touching its sample: within the timing noise)
    renderer.set_record_origins(true)?;
    let mut tally = origins::Tally::new(scene.materials.len(), w);
    let mut restir_scores = (Scores::default(), Scores::default());
    let mut by_frame = Vec::new();
    let mut frame_seconds = 0.0;
    let mut last_restir = Vec::new();
    let mut last_origins = Vec::new();
    for f in 0..args.frames {
        if args.orbit.is_some() {
            renderer.set_camera(&camera_of(f))?;
        }
        renderer.clear_film()?;
        let start = Instant::now();
        renderer.render_pass(f..f + 1)?;
        if f > 0 {
            frame_seconds += start.elapsed().as_secs_f64();
        }
        let image = renderer.film()?.mean();
        let (reference, mask, materials) = &references[reference_index(f)];
        let surfaces = score(&image, reference, mask);
        by_frame.push(surfaces.rmse);
        if scored.contains(&f) {
            let weight = 1.0 / scored.len() as f64;
            restir_scores.0.add(&surfaces, weight);
            restir_scores.1.add(&score(&image, reference, &vec![true; image.len()]), weight);
            let origins =
                renderer.origins()?.and_then(|o| o.into_iter().next()).context("the frame's sample origins")?;
            tally.add(&image, reference, mask, &origins, materials);
            last_restir = image;
            last_origins = origins;
        }
    }
    let restir_ms = 1e3 * frame_seconds / (args.frames - 1).max(1) as f64;
    // What the renderer says after its frames (the CPU: shadow rays per pixel per frame by
    // stage; the GPU: kernel times when asked for).
    let restir_note = renderer.report();
    if let Some(note) = &restir_note {
        println!("- {note}");
    }
    drop(renderer);

    // The path tracer's time per spp, then its equal-time images.
    let path_ms = path_ms_per_spp(&scene, &backend, &path_settings)?;
    let ratio = args.time_ratio.unwrap_or(restir_ms / path_ms);
    let spp = match args.time_ratio {
        Some(r) => (r.round() as u32).max(1),
        None => equal_time_spp(&scene, &backend, &path_settings, (ratio.round() as u32).max(1), restir_ms)?,
    };
    let mut path_scores = (Scores::default(), Scores::default());
    let mut path_seconds = 0.0;
    let mut last_path = Vec::new();
    let settings = path_settings(spp, args.seed)?;
    let mut static_renderer = if args.orbit.is_none() { Some(prepare(&scene, &settings, &backend)?) } else { None };
    for (k, &f) in scored.iter().enumerate() {
        let view_scene;
        let mut own;
        let renderer: &mut dyn Renderer = match static_renderer.as_mut() {
            Some(r) => r.as_mut(),
            None => {
                view_scene = Scene { camera: camera_of(f), ..scene.clone() };
                own = prepare(&view_scene, &settings, &backend)?;
                own.as_mut()
            }
        };
        renderer.clear_film()?;
        let start = Instant::now();
        // Independent sample indices per scored frame.
        renderer.render_pass(k as u32 * spp..(k as u32 + 1) * spp)?;
        path_seconds += start.elapsed().as_secs_f64();
        let image = renderer.film()?.mean();
        let (reference, mask, _) = &references[reference_index(f)];
        let weight = 1.0 / scored.len() as f64;
        path_scores.0.add(&score(&image, reference, mask), weight);
        path_scores.1.add(&score(&image, reference, &vec![true; image.len()]), weight);
        last_path = image;
    }
    let rows = vec![
        Row {
            method: "ReSTIR DI, one frame".into(),
            spp: 1,
            ms: restir_ms,
            surfaces: restir_scores.0,
            all: restir_scores.1,
        },
        Row {
            method: "path tracer (max depth 1), equal time".into(),
            spp,
            ms: 1e3 * path_seconds / scored.len() as f64,
            surfaces: path_scores.0,
            all: path_scores.1,
        },
    ];
    let (reference, mask, _) = &references[reference_index(*scored.last().expect("scored frames"))];
    let report = Report {
        scene: scene.name.clone(),
        backend: backend.describe(),
        width: w,
        height: h,
        orbit: args.orbit,
        scored_frames: scored.iter().map(|f| f + 1).collect(),
        surface_pixels: mask.iter().filter(|m| **m).count(),
        restir_ms_per_frame: restir_ms,
        restir_note,
        path_ms_per_spp: path_ms,
        time_ratio: ratio,
        rows,
        restir_rmse_by_frame: by_frame,
        by_origin: tally.by_origin(),
        by_material: tally.by_material(&scene.material_names),
        worst_pixels: tally.worst().to_vec(),
    };
    if let Some(png) = &args.png {
        let panels = Panels {
            reference,
            restir: &last_restir,
            path: &last_path,
            mask,
            origins: &last_origins,
            width: w,
            height: h,
        };
        panels.write(png, &report)?;
        eprintln!("wrote {}", png.display());
    }
    print_table(&report);
    crate::write_json(args.json.as_deref(), &report)
}

fn print_table(r: &Report) {
    println!(
        "- time: ReSTIR {:.3} ms a frame, path tracer {:.3} ms a spp (ratio {:.2}: {} spp at equal time); {} surface pixels of {}",
        r.restir_ms_per_frame,
        r.path_ms_per_spp,
        r.time_ratio,
        r.rows[1].spp,
        r.surface_pixels,
        r.width as usize * r.height as usize
    );
    println!();
    println!(
        "| method | spp | ms | surfaces: RMSE | RMSE w/o worst 0.1% | median | 99.9th pct | all pixels: RMSE | RMSE w/o worst 0.1% | median | 99.9th pct |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let pct = |s: &Scores| {
        format!(
            "{:.1}% | {:.1}% | {:.1}% | {:.1}%",
            100.0 * s.rmse,
            100.0 * s.rmse_trimmed,
            100.0 * s.median,
            100.0 * s.p999
        )
    };
    for row in &r.rows {
        println!("| {} | {} | {:.3} | {} | {} |", row.method, row.spp, row.ms, pct(&row.surfaces), pct(&row.all));
    }
    let (a, b) = (&r.rows[0], &r.rows[1]);
    let q = |x: f64, y: f64| if y > 0.0 { format!("{:.2}×", x / y) } else { "—".into() };
    println!(
        "| ReSTIR / path tracer | | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        q(a.ms, b.ms),
        q(a.surfaces.rmse, b.surfaces.rmse),
        q(a.surfaces.rmse_trimmed, b.surfaces.rmse_trimmed),
        q(a.surfaces.median, b.surfaces.median),
        q(a.surfaces.p999, b.surfaces.p999),
        q(a.all.rmse, b.all.rmse),
        q(a.all.rmse_trimmed, b.all.rmse_trimmed),
        q(a.all.median, b.all.median),
        q(a.all.p999, b.all.p999)
    );
    origins::print("the final sample's origin", &r.by_origin);
    origins::print("material", &r.by_material);
}

/// Milliseconds per spp of the path tracer (max depth 1) on `backend`: after a warm-up, a
/// render long enough to time (at least 0.25 s or 1024 spp).
fn path_ms_per_spp(
    scene: &Scene,
    backend: &Backend,
    settings: &dyn Fn(u32, u32) -> warpath_render::Result<Settings>,
) -> Result<f64> {
    let mut spp = 2;
    loop {
        let mut renderer = prepare(scene, &settings(spp, 99)?, backend)?;
        renderer.render_pass(0..1)?;
        renderer.clear_film()?;
        let start = Instant::now();
        renderer.render_pass(1..1 + spp)?;
        let seconds = start.elapsed().as_secs_f64();
        if seconds >= 0.25 || spp >= 1024 {
            return Ok(1e3 * seconds / spp as f64);
        }
        spp *= 4;
    }
}

/// The spp of equal time in the shape the scored images are rendered (one pass of `spp`):
/// starting from the ratio's `spp`, one fewer while three such passes take over 1.1 × ReSTIR's
/// frame on average (a pass of a few spp can cost more per spp than the long calibration
/// render, on the GPU above all).
fn equal_time_spp(
    scene: &Scene,
    backend: &Backend,
    settings: &dyn Fn(u32, u32) -> warpath_render::Result<Settings>,
    mut spp: u32,
    restir_ms: f64,
) -> Result<u32> {
    while spp > 1 {
        let mut renderer = prepare(scene, &settings(spp, 98)?, backend)?;
        renderer.render_pass(0..spp)?;
        let start = Instant::now();
        for k in 1..4 {
            renderer.render_pass(k * spp..(k + 1) * spp)?;
        }
        let pass_ms = 1e3 * start.elapsed().as_secs_f64() / 3.0;
        if pass_ms <= 1.1 * restir_ms {
            break;
        }
        eprintln!("path tracer: {spp} spp take {pass_ms:.3} ms a pass, over ReSTIR's {restir_ms:.3} ms: one fewer");
        spp -= 1;
    }
    Ok(spp)
}

/// Pixels whose primary hit is a lit (non-specular), non-emitting surface at eight jittered
/// camera rays of the CPU's G-buffer (so silhouettes are left out) and none of whose eight
/// neighbours sees an emitter at any of them: a pixel beside a tiny bright emitter can catch
/// it with one jittered ray, a sample of antialiasing noise (emission seen, not resampled
/// light) that both methods share and the path tracer averages over its spp.
/// Also the material each pixel's first jittered ray sees (u32::MAX: no lit surface), for the
/// error by material.
fn surface_mask(scene: &Scene, settings: &Settings) -> (Vec<bool>, Vec<u32>) {
    let cpu = warpath_cpu::CpuRenderer::new(scene, settings.bvh);
    let view = cpu.view(&settings.cpu_options(1));
    let camera: Camera = scene.camera;
    let n = settings.pixels() as usize;
    let (mut lit, mut emitter, mut materials) = (vec![true; n], vec![false; n], vec![u32::MAX; n]);
    for frame in 0..8 {
        for (i, g) in warpath_cpu::restir::gbuffer(&view, &camera, frame).into_iter().enumerate() {
            lit[i] &= g.surface.is_some() && g.emitted == Vec3::ZERO;
            emitter[i] |= g.emitted != Vec3::ZERO;
            if frame == 0
                && let Some(s) = g.surface
            {
                materials[i] = s.material;
            }
        }
    }
    let (w, h) = (settings.width() as i64, settings.height() as i64);
    let mask = (0..n)
        .map(|i| {
            let (x, y) = (i as i64 % w, i as i64 / w);
            let near_emitter = (-1..=1).any(|dy| {
                (-1..=1).any(|dx| {
                    let (nx, ny) = (x + dx, y + dy);
                    nx >= 0 && ny >= 0 && nx < w && ny < h && emitter[(ny * w + nx) as usize]
                })
            });
            lit[i] && !near_emitter
        })
        .collect();
    (mask, materials)
}

/// The PNG: three images (reference, ReSTIR, path tracer) over the origin map of ReSTIR's
/// last scored frame (`origins::colour`, dimmed outside the scored surface pixels) and the
/// two error maps, and a plot.
struct Panels<'a> {
    reference: &'a [Vec3],
    restir: &'a [Vec3],
    path: &'a [Vec3],
    mask: &'a [bool],
    origins: &'a [warpath_core::restir::SampleOrigin],
    width: u32,
    height: u32,
}

impl Panels<'_> {
    fn write(&self, path: &Path, report: &Report) -> Result<()> {
        let (w, h) = (self.width as usize, self.height as usize);
        let (cw, ch) = (3 * w, 3 * h);
        let mut canvas = vec![Vec3::ZERO; cw * ch];
        let masked: Vec<f32> =
            self.reference.iter().zip(self.mask).filter(|(_, m)| **m).map(|(r, _)| (r.x + r.y + r.z) / 3.0).collect();
        let mean = (masked.iter().sum::<f32>() / masked.len().max(1) as f32).max(1e-6);
        let exposure = 0.18 / mean;
        let heat = |e: f64| {
            // Error relative to the mean, 0 → black, 1 → red, 2 and over → yellow-white.
            let t = (e / mean as f64 / 2.0).clamp(0.0, 1.0) as f32;
            let c = Vec3::new((2.0 * t).min(1.0), (2.0 * t - 1.0).max(0.0), (4.0 * t - 3.0).max(0.0));
            c.map(warpath_core::color::srgb_to_linear)
        };
        for (col, image) in [self.reference, self.restir, self.path].into_iter().enumerate() {
            for y in 0..h {
                for x in 0..w {
                    let i = y * w + x;
                    canvas[y * cw + col * w + x] = image[i] * exposure;
                    let e = if col == 0 {
                        let o = self.origins.get(i).map_or(Vec3::ZERO, |o| origins::colour(*o));
                        if self.mask[i] { o } else { o * 0.25 }
                    } else {
                        heat(pixel_error(image[i], self.reference[i]))
                    };
                    canvas[(h + y) * cw + col * w + x] = e;
                }
            }
        }
        // The plot: ReSTIR's per-frame RMSE over surfaces (orange), the path tracer's mean at
        // equal time (blue), the scored range shaded; y from 0 to the largest value.
        let series = &report.restir_rmse_by_frame;
        let pt = report.rows[1].surfaces.rmse;
        let top = series.iter().copied().fold(pt, f64::max).max(1e-6) * 1.05;
        let (px0, py0, pw, ph) = (4usize, 2 * h + 4, cw - 8, h - 8);
        let first = report.scored_frames.first().copied().unwrap_or(1) as usize - 1;
        let n = series.len().max(2);
        let x_of = |f: usize| px0 + f * (pw - 1) / (n - 1);
        let y_of = |v: f64| py0 + ph - 1 - ((v / top).clamp(0.0, 1.0) * (ph - 1) as f64) as usize;
        for y in py0..py0 + ph {
            for x in px0..px0 + pw {
                canvas[y * cw + x] = if x >= x_of(first) { Vec3::splat(0.02) } else { Vec3::splat(0.005) };
            }
        }
        let mut dot = |x: usize, y: usize, c: Vec3| {
            if x < cw && y < ch {
                canvas[y * cw + x] = c;
            }
        };
        for x in px0..px0 + pw {
            dot(x, y_of(pt), Vec3::new(0.1, 0.3, 1.0));
        }
        for f in 1..series.len() {
            let (x0, x1) = (x_of(f - 1), x_of(f));
            let (y0, y1) = (y_of(series[f - 1]) as f64, y_of(series[f]) as f64);
            let steps = (x1 - x0).max((y1 - y0).abs() as usize).max(1);
            for s in 0..=steps {
                let t = s as f64 / steps as f64;
                dot(x0 + ((x1 - x0) as f64 * t) as usize, (y0 + (y1 - y0) * t) as usize, Vec3::new(1.0, 0.45, 0.0));
            }
        }
        warpath_render::image_file::write_image(path, cw as u32, ch as u32, &canvas, 0.0, Vec::new())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_of_a_known_error() {
        // Reference 1 everywhere; 999 pixels off by 0.1 in every channel, one by 10.
        let n = 1000;
        let reference = vec![Vec3::ONE; n];
        let mut image = vec![Vec3::splat(1.1); n];
        image[17] = Vec3::splat(11.0);
        let s = score(&image, &reference, &vec![true; n]);
        let expected = ((999.0 * 0.01 + 100.0) / 1000.0f64).sqrt();
        assert!((s.rmse - expected).abs() < 1e-5, "{s:?}");
        assert!((s.rmse_trimmed - 0.1).abs() < 1e-5, "the worst 0.1% (one pixel) is left out: {s:?}");
        assert!((s.median - 0.1).abs() < 1e-5 && (s.p999 - 0.1).abs() < 1e-5, "{s:?}");
        // The mask selects pixels; errors are relative to the reference's mean there.
        let mut mask = vec![false; n];
        mask[17] = true;
        mask[3] = true;
        let masked = score(&image, &reference.iter().map(|r| *r * 2.0).collect::<Vec<_>>(), &mask);
        assert!((masked.median - 9.0 / 2.0).abs() < 1e-5, "{masked:?}");
        assert_eq!(score(&image, &reference, &vec![false; n]), Scores::default());
    }
}
