//! `warpath render`, `warpath info` and `warpath compare`.
//!
//! `render` checks everything a user can get wrong before it spends time rendering: the
//! output paths (writable, right extensions), the numbers (the scene format's limits), and
//! whether the film fits in memory. It reports progress as a bar on a terminal and as a line
//! every few seconds in a log, and hands the film to [`crate::output`], which never loses a
//! finished render.

use crate::output::{OutputPaths, RenderMetadata, check_outputs, save_render};
use crate::{Backend, BvhKind, RenderArgs};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use warpath_bvh::{BuildKind, BuildOptions, Bvh};
use warpath_core::film::Film;
use warpath_core::limits;
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_cuda::{CudaDevice, StrategyRenderer};
use warpath_scene::Scene;
use warpath_scene::scene::MAX_RESOLUTION;

pub fn check_resolution(w: u32, h: u32) -> Result<()> {
    if w == 0 || h == 0 || w > MAX_RESOLUTION || h > MAX_RESOLUTION {
        bail!("resolution {w}x{h} is out of range: each side must be 1..={MAX_RESOLUTION}");
    }
    Ok(())
}

/// `render --quiet`: progress notes off (warnings, errors and the closing summary stay).
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints a progress note to stderr unless `--quiet` asked for silence.
macro_rules! note {
    ($($arg:tt)*) => {
        if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!($($arg)*);
        }
    };
}

pub fn load_scene(name: &str) -> Result<Scene> {
    let t = Instant::now();
    let scene = warpath_scene::load(name).map_err(anyhow::Error::new)?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    let isosurfaces = match scene.isosurfaces.len() {
        0 => String::new(),
        1 => ", 1 isosurface".to_string(),
        n => format!(", {n} isosurfaces"),
    };
    note!(
        "scene '{}': {} triangles{isosurfaces}, {} materials, loaded in {:.2} s",
        scene.name,
        scene.triangle_count(),
        scene.materials.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(scene)
}

/// The render options from the scene's settings overridden by the flags (which their
/// parsers hold to the scene format's limits).
pub fn render_options(scene: &Scene, args: &RenderArgs) -> Result<RenderOptions> {
    let mut opts = RenderOptions::from_scene(scene);
    if let Some(spp) = args.spp {
        opts.spp = spp;
    }
    if let Some(d) = args.max_depth {
        opts.max_depth = d;
    }
    if let Some((w, h)) = args.resolution {
        opts.width = w;
        opts.height = h;
    }
    if let Some(s) = args.seed {
        opts.seed = s;
    }
    if let Some(s) = args.sampler {
        opts.sampler = s;
    }
    opts.spp_per_pass = args.spp_per_pass.unwrap_or(1).max(1);
    if opts.spp == 0 {
        bail!("--spp must be at least 1");
    }
    check_resolution(opts.width, opts.height)?;
    Ok(opts)
}

/// Host memory a render of one pixel needs beyond the film: the mean and the variance
/// images (`Vec3` each) and the PNG bytes.
const OUTPUT_BYTES_PER_PIXEL: u64 = 12 + 12 + 3;

/// Checks, before the scene is prepared, that the film and the output images of a
/// `width × height` render fit in the memory this process can get.
fn check_film_memory(width: u32, height: u32) -> Result<()> {
    let bytes_per_pixel = Film::bytes_per_pixel() + OUTPUT_BYTES_PER_PIXEL;
    limits::check_image("the render", width as u64, height as u64, bytes_per_pixel)
        .with_context(|| format!("cannot render {width}x{height}"))
}

/// Which renderer this run uses: `--backend auto` takes CUDA when a device opens.
pub(crate) fn choose_backend(backend: Backend) -> Result<Option<CudaDevice>> {
    match backend {
        Backend::Cpu => Ok(None),
        Backend::Cuda => CudaDevice::open(0).map(Some).context("--backend cuda"),
        Backend::Auto => match CudaDevice::open(0) {
            Ok(device) => Ok(Some(device)),
            Err(e) => {
                eprintln!("{e}; using the CPU");
                Ok(None)
            }
        },
    }
}

/// Progress of a render: a bar on a terminal, a line every `interval` in a log (stderr not a
/// terminal), nothing under `--quiet`.
enum Progress {
    Bar(ProgressBar),
    Lines { interval: Duration, last: Instant },
    Silent,
}

impl Progress {
    fn new(args: &RenderArgs, spp: u32) -> Progress {
        if args.quiet {
            return Progress::Silent;
        }
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(spp as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:40.cyan/blue} {pos}/{len} spp  {msg}  elapsed {elapsed}  eta {eta}")
                    .expect("valid progress template"),
            );
            return Progress::Bar(bar);
        }
        Progress::Lines { interval: Duration::from_secs_f64(args.progress_interval), last: Instant::now() }
    }

    /// `done` of `total` samples per pixel after `elapsed`, at `samples_per_second`.
    fn update(&mut self, done: u32, total: u32, elapsed: Duration, samples_per_second: f64) {
        match self {
            Progress::Bar(bar) => {
                bar.set_position(done as u64);
                bar.set_message(format!("{:.2} Msamples/s", samples_per_second / 1e6));
            }
            Progress::Lines { interval, last } => {
                if last.elapsed() < *interval || done >= total {
                    return;
                }
                *last = Instant::now();
                let seconds = elapsed.as_secs_f64();
                let left = seconds / done.max(1) as f64 * (total - done) as f64;
                eprintln!(
                    "progress: {done}/{total} spp ({:.1}%), {:.2} Msamples/s, elapsed {seconds:.1} s, about {left:.1} s left",
                    100.0 * done as f64 / total as f64,
                    samples_per_second / 1e6
                );
            }
            Progress::Silent => {}
        }
    }

    fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// What a render produced, whichever backend made it.
struct RenderResult {
    film: Film,
    samples: u64,
    /// Rays traced, when counted (the GPU counts them only with --count-rays).
    rays: Option<u64>,
    seconds: f64,
}

pub fn render(args: &RenderArgs) -> Result<()> {
    QUIET.store(args.quiet, std::sync::atomic::Ordering::Relaxed);
    // Fail on an unwritable output before spending minutes rendering.
    let outputs: OutputPaths = check_outputs(&args.output, args.variance_output.as_deref())?;
    let scene = load_scene(&args.scene)?;
    let mut opts = render_options(&scene, args)?;
    check_film_memory(opts.width, opts.height)?;
    let restir = args.integrator == crate::Integrator::RestirDi;
    let device = match choose_backend(args.backend)? {
        // What the GPU ReSTIR kernels cannot render yet goes to the CPU reference, or is an
        // error when the GPU was asked for by name.
        Some(device) if restir => match warpath_cuda::restir::unsupported(&scene) {
            Some(why) if args.backend == crate::Backend::Cuda => {
                bail!("--backend cuda: scene '{}': {why}", args.scene)
            }
            Some(why) => {
                eprintln!("note: {why}; ReSTIR DI runs on the CPU");
                None
            }
            None => Some(device),
        },
        device => device,
    };
    if restir {
        note!(
            "backend: {}, ReSTIR DI ({} candidates{}, temporal {}, {} spatial pass(es) of {} within {} px, bias correction {}); {} frames",
            match &device {
                Some(d) => format!("cuda ({})", d.info().name),
                None => format!("cpu ({} threads)", rayon::current_num_threads()),
            },
            args.restir_candidates,
            if args.restir_no_pool { "" } else { " from 16x16 light pools" },
            if args.restir_no_temporal { "off" } else { "on" },
            args.restir_spatial_passes,
            args.restir_neighbours,
            args.restir_radius,
            args.restir_bias.name(),
            args.frames.unwrap_or(opts.spp)
        );
    }
    if restir && device.is_none() && args.restir_kernel_times {
        eprintln!("note: --restir-kernel-times times the GPU kernels; the CPU reference has none to time");
    }
    if restir && device.is_none() && (args.restir_soa || args.restir_light_sample != crate::LightSampleArg::Compact) {
        eprintln!(
            "note: --restir-soa and --restir-light-sample format the GPU's reservoirs; the CPU reference ignores them"
        );
    }
    if restir && device.is_none() && args.restir_ray_lanes.is_some() {
        eprintln!("note: --restir-ray-lanes schedules the GPU's shadow rays; the CPU reference ignores it");
    }
    if let Some(frames) = args.frames {
        if !restir {
            bail!("--frames renders a ReSTIR image sequence: add --integrator restir-di");
        }
        return render_restir_sequence(device.as_ref(), &scene, &opts, args, frames);
    }
    match &device {
        Some(_) if restir => {}
        Some(d) => {
            let info = d.info();
            note!(
                "backend: cuda ({}, {} SMs, driver CUDA {}), {}, strategy {}",
                info.name,
                info.multiprocessors,
                info.driver_version_string(),
                estimator_name(&scene),
                args.strategy.unwrap_or(crate::default_strategy(&scene))
            )
        }
        None if restir => {}
        None => {
            note!("backend: cpu ({} threads), {}", rayon::current_num_threads(), estimator_name(&scene));
            if let Some(strategy) = args.strategy {
                eprintln!("note: --strategy {strategy} schedules GPU paths; the CPU renderer ignores it");
            }
        }
    }
    // A GPU pass of one sample per pixel is too short to keep the device busy.
    if args.spp_per_pass.is_none() && device.is_some() && !restir {
        opts.spp_per_pass = 16;
    }

    let cancel = interrupt_flag("finishing the current pass and saving the image so far")?;

    let pixels = opts.width as u64 * opts.height as u64;
    let mut progress_report = Progress::new(args, opts.spp);
    let start = Instant::now();
    let progress = |done: u32| {
        let elapsed = start.elapsed();
        let rate = done as f64 * pixels as f64 / elapsed.as_secs_f64().max(1e-9);
        progress_report.update(done, opts.spp, elapsed, rate);
    };
    let result = match &device {
        None if restir => render_restir(&scene, &opts, args, &cancel, progress)?,
        None => render_cpu(&scene, &opts, args, &cancel, progress)?,
        Some(device) if restir => render_restir_cuda(device, &scene, &opts, args, &cancel, progress)?,
        Some(device) => render_cuda(device, &scene, &opts, args, &cancel, progress)?,
    };
    progress_report.finish();

    let film = result.film;
    let done_spp = film.count.first().copied().unwrap_or(0);
    if done_spp == 0 {
        bail!("interrupted before the first pass finished: no image written");
    }
    let interrupted = cancel.load(Ordering::SeqCst);
    let metadata = RenderMetadata {
        spp_done: done_spp,
        spp_requested: opts.spp,
        interrupted: interrupted || done_spp < opts.spp,
        seed: opts.seed,
        max_depth: opts.max_depth,
        sampler: opts.sampler.to_string(),
        backend: if device.is_some() { "cuda".into() } else { "cpu".into() },
        scene: args.scene.clone(),
    };
    let report = save_render(&outputs, &film, args.exposure, &metadata)?;
    let secs = result.seconds.max(1e-9);
    let rays = match result.rays {
        Some(rays) => format!("{:.2} Mrays/s ({rays} rays)", rays as f64 / secs / 1e6),
        None => "rays not counted (--count-rays)".to_string(),
    };
    eprintln!(
        "rendered {}x{} at {} spp{} in {:.2} s: {:.3} Msamples/s, {}",
        opts.width,
        opts.height,
        done_spp,
        if done_spp < opts.spp { format!(" (interrupted; {} asked)", opts.spp) } else { String::new() },
        result.seconds,
        result.samples as f64 / secs / 1e6,
        rays
    );
    for path in &report.written {
        note!("wrote {}", path.display());
    }
    for (path, reason, rescue) in &report.rescued {
        eprintln!("error: {reason}; the render was saved to {} instead of {}", rescue.display(), path.display());
    }
    if interrupted {
        std::process::exit(130);
    }
    if !report.rescued.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}

/// The render's film, or an error naming the size it could not allocate.
fn new_film(opts: &RenderOptions) -> Result<Film> {
    Film::try_new(opts.width, opts.height).with_context(|| format!("cannot render {}x{}", opts.width, opts.height))
}

fn render_cpu(
    scene: &Scene,
    opts: &RenderOptions,
    args: &RenderArgs,
    cancel: &AtomicBool,
    progress: impl FnMut(u32),
) -> Result<RenderResult> {
    let mut film = new_film(opts)?;
    let t = Instant::now();
    let renderer = CpuRenderer::new(scene, args.bvh.build_kind());
    note!("bvh: {} ({:.2} s)", renderer.bvh_stats, t.elapsed().as_secs_f64());
    let stats = renderer.render_into(opts, &mut film, cancel, progress);
    Ok(RenderResult { samples: stats.samples, rays: Some(stats.rays()), seconds: stats.seconds, film })
}

/// ReSTIR DI on the CPU: `opts.spp` frames of a static camera, one sample per pixel each.
fn render_restir(
    scene: &Scene,
    opts: &RenderOptions,
    args: &RenderArgs,
    cancel: &AtomicBool,
    progress: impl FnMut(u32),
) -> Result<RenderResult> {
    let mut film = new_film(opts)?;
    let renderer = CpuRenderer::new(scene, args.bvh.build_kind());
    let options = restir_options(args, opts);
    let start = Instant::now();
    renderer
        .render_restir(opts, &options, &mut film, opts.spp, cancel, progress)
        .map_err(|e| anyhow::anyhow!("scene '{}': {e}", scene.name))?;
    let seconds = start.elapsed().as_secs_f64();
    let samples = film.count.iter().map(|&c| c as u64).sum();
    Ok(RenderResult { samples, rays: None, seconds, film })
}

/// `--restir-soa` and `--restir-light-sample`: the GPU's reservoir format.
fn reservoir_format(
    args: &RenderArgs,
) -> (warpath_cuda::restir::ReservoirLayout, warpath_cuda::restir::LightSampleFormat) {
    use warpath_cuda::restir::{LightSampleFormat, ReservoirLayout};
    let layout = if args.restir_soa { ReservoirLayout::Soa } else { ReservoirLayout::Aos };
    let sample = match args.restir_light_sample {
        crate::LightSampleArg::Compact => LightSampleFormat::Compact,
        crate::LightSampleArg::Full => LightSampleFormat::Full,
    };
    (layout, sample)
}

/// The ReSTIR knobs of the command line (one set for both backends).
fn restir_options(args: &RenderArgs, opts: &RenderOptions) -> warpath_core::restir::RestirOptions {
    warpath_core::restir::RestirOptions {
        candidates: args.restir_candidates,
        light_pool: !args.restir_no_pool,
        temporal: !args.restir_no_temporal,
        spatial_passes: args.restir_spatial_passes,
        neighbours: args.restir_neighbours,
        radius: args.restir_radius,
        bias: args.restir_bias,
        seed: opts.seed,
        ..Default::default()
    }
}

/// A Ctrl-C flag: the first Ctrl-C sets it (and says `what` the render does now), a second
/// exits at once.
fn interrupt_flag(what: &'static str) -> Result<Arc<AtomicBool>> {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: {what} (Ctrl-C again to quit)");
    })
    .context("cannot install the Ctrl-C handler")?;
    Ok(cancel)
}

/// The GPU ReSTIR renderer the command line asks for: uploaded, its reservoir layout set, its
/// kernels compiled (or loaded from the cache), its kernel timer on with `--restir-kernel-times`.
fn restir_renderer<'d>(
    device: &'d CudaDevice,
    scene: &Scene,
    opts: &RenderOptions,
    args: &RenderArgs,
) -> Result<warpath_cuda::restir::RestirRenderer<'d>> {
    let options = restir_options(args, opts);
    let mut renderer =
        warpath_cuda::restir::RestirRenderer::new(device, scene, &opts.settings(), args.bvh.build_kind(), &options)
            .with_context(|| format!("scene '{}'", args.scene))?;
    let (layout, sample) = reservoir_format(args);
    renderer.set_reservoir_format(layout, sample)?;
    if let Some(lanes) = args.restir_ray_lanes {
        renderer.set_ray_lanes(warpath_cuda::restir::RayLanes::from_count(lanes)?);
    }
    renderer.prepare()?;
    renderer.set_kernel_timing(args.restir_kernel_times);
    Ok(renderer)
}

/// `--restir-kernel-times`: each kernel's mean milliseconds per frame.
fn print_kernel_times(renderer: &warpath_cuda::restir::RestirRenderer<'_>) {
    if let Some(times) = renderer.kernel_times() {
        let per_frame: Vec<String> = times.per_frame().iter().map(|(kernel, ms)| format!("{kernel} {ms:.3}")).collect();
        eprintln!(
            "restir kernel times (ms per frame, mean of {} frames, each kernel timed alone): {}; sum {:.3}",
            times.frames,
            per_frame.join(", "),
            times.total() / times.frames.max(1) as f64
        );
    }
}

/// ReSTIR DI on the GPU (`restir.cu`): `opts.spp` frames of a static camera; with
/// `--restir-kernel-times`, each kernel's mean time per frame afterwards.
fn render_restir_cuda(
    device: &CudaDevice,
    scene: &Scene,
    opts: &RenderOptions,
    args: &RenderArgs,
    cancel: &AtomicBool,
    mut progress: impl FnMut(u32),
) -> Result<RenderResult> {
    let t = Instant::now();
    let mut renderer = restir_renderer(device, scene, opts, args)?;
    note!("scene uploaded and kernels ready in {:.2} s", t.elapsed().as_secs_f64());
    let start = Instant::now();
    let mut done = 0;
    while done < opts.spp && !cancel.load(Ordering::Relaxed) {
        renderer.render_frame()?;
        done += 1;
        // Waiting after every frame would leave the GPU idle between frames.
        if done % 16 == 0 || done == opts.spp {
            device.synchronize()?;
            progress(done);
        }
    }
    device.synchronize()?;
    let seconds = start.elapsed().as_secs_f64();
    print_kernel_times(&renderer);
    let film = renderer.download_film()?;
    Ok(RenderResult { samples: film.total_samples(), rays: None, seconds, film })
}

/// `--frames N [--orbit DEGREES]`: N ReSTIR frames, each written as its own image (one sample
/// per pixel), the camera turned DEGREES/N a frame; on the GPU when `device` is one, else the
/// CPU reference. Ctrl-C stops after the current frame (the frames written stay).
fn render_restir_sequence(
    device: Option<&CudaDevice>,
    scene: &Scene,
    opts: &RenderOptions,
    args: &RenderArgs,
    frames: u32,
) -> Result<()> {
    let step = args.orbit.unwrap_or(0.0) / frames as f32;
    let (width, height) = (opts.width, opts.height);
    let path_of = |k: u32| crate::isosurface::suffixed(&args.output, &format!("{k:04}"));
    // An unwritable output fails before the first frame.
    check_outputs(&path_of(0), None)?;
    let cancel = interrupt_flag("finishing the current frame")?;
    let options = restir_options(args, opts);
    note!(
        "{frames} frames of {width}x{height}, camera turned {step} degrees a frame; images {} ...",
        path_of(0).display()
    );
    let write = |k: u32, pixels: &[glam::Vec3]| -> Result<()> {
        crate::output::write_image(&path_of(k), width, height, pixels, args.exposure, None)
    };
    let mut frame_ms: Vec<f64> = Vec::new();
    match device {
        Some(device) => {
            let mut renderer = restir_renderer(device, scene, opts, args)?;
            for k in 0..frames {
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
                renderer.set_camera(&scene.camera.orbited(step * k as f32))?;
                renderer.clear_film()?;
                let start = Instant::now();
                renderer.render_frame()?;
                device.synchronize()?;
                frame_ms.push(start.elapsed().as_secs_f64() * 1e3);
                let film = renderer.download_film()?;
                write(k, &film.mean())?;
            }
            print_kernel_times(&renderer);
        }
        None => {
            let renderer = CpuRenderer::new(scene, args.bvh.build_kind());
            let view = renderer.view(opts);
            let mut sequence = warpath_cpu::restir::RestirFrames::new(&view, &options)
                .map_err(|e| anyhow::anyhow!("scene '{}': {e}", scene.name))?;
            for k in 0..frames {
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
                let start = Instant::now();
                let pixels = sequence.render(&scene.camera.orbited(step * k as f32));
                frame_ms.push(start.elapsed().as_secs_f64() * 1e3);
                write(k, &pixels)?;
            }
        }
    }
    let done = frame_ms.len();
    let mean = frame_ms.iter().sum::<f64>() / done.max(1) as f64;
    eprintln!(
        "rendered {done} of {frames} frames of {width}x{height} ({}): {mean:.2} ms a frame (mean, images not counted); wrote {} to {}",
        if device.is_some() { "cuda" } else { "cpu" },
        path_of(0).display(),
        path_of(done.saturating_sub(1) as u32).display()
    );
    if cancel.load(Ordering::SeqCst) {
        std::process::exit(130);
    }
    Ok(())
}

/// The GPU with `--strategy` (default: the naive megakernel, seed 000 B.1), one
/// `render_pass` per progressive pass.
fn render_cuda(
    device: &CudaDevice,
    scene: &Scene,
    opts: &RenderOptions,
    args: &RenderArgs,
    cancel: &AtomicBool,
    mut progress: impl FnMut(u32),
) -> Result<RenderResult> {
    let t = Instant::now();
    let settings = opts.settings();
    let mut renderer = StrategyRenderer::new(device, scene, &settings, args.bvh.build_kind())?;
    renderer.set_strategy(args.strategy.unwrap_or(crate::default_strategy(scene)));
    // The counters cost about 10% on the GPU (atomics and clock reads per extension).
    renderer.set_instrumentation(args.count_rays)?;
    note!("scene uploaded in {:.2} s", t.elapsed().as_secs_f64());
    // The first launch compiles (or loads from the cache) the kernel: keep it out of the
    // time, and start again from an empty film.
    renderer.render_pass(0, 1)?;
    device.synchronize()?;
    renderer.reset()?;
    let start = Instant::now();
    let mut done = 0;
    let per_pass = opts.spp_per_pass.max(1);
    while done < opts.spp && !cancel.load(Ordering::Relaxed) {
        let n = per_pass.min(opts.spp - done);
        renderer.render_pass(done, n)?;
        device.synchronize()?;
        done += n;
        progress(done);
    }
    let seconds = start.elapsed().as_secs_f64();
    let film = renderer.download_film()?;
    let counters = renderer.counters()?;
    Ok(RenderResult {
        samples: film.total_samples(),
        rays: args.count_rays.then_some(counters.extension_rays + counters.shadow_rays),
        seconds,
        film,
    })
}

/// The tree `render` builds: `BuildOptions` of the CPU renderer or the CUDA renderer.
pub fn render_bvh_options(kind: BuildKind, gpu: bool) -> BuildOptions {
    if gpu { StrategyRenderer::bvh_options(kind) } else { CpuRenderer::bvh_options(kind) }
}

/// Which estimator renders `scene` (the same rule on both backends).
fn estimator_name(scene: &Scene) -> &'static str {
    if scene.needs_volume_estimator() { "volumetric path tracer" } else { "path tracer" }
}

/// `warpath info`'s lines about the media of `scene`.
fn print_media(scene: &Scene) {
    use warpath_volume::{MediumAlbedo, MediumDensity};
    if scene.media.is_empty() {
        return;
    }
    println!("  media: {} (rendered by the volumetric path tracer)", scene.media.len());
    for m in &scene.media {
        let density = match &m.density {
            MediumDensity::Homogeneous { sigma_t } => format!("homogeneous, sigma_t {sigma_t}"),
            MediumDensity::Grid { density, scale } => {
                let [x, y, z] = density.resolution;
                let (lo, hi) = density.range();
                format!("density grid {x}x{y}x{z} (values {lo} .. {hi}) x scale {scale}")
            }
        };
        let albedo = match &m.albedo {
            MediumAlbedo::Constant(a) => format!("albedo {a}"),
            MediumAlbedo::Grid(a) => {
                let [x, y, z] = a.resolution;
                format!("albedo grid {x}x{y}x{z}x{}", a.channels)
            }
        };
        let [mx, my, mz] = m.majorant.resolution;
        println!(
            "    {}: {density}; {albedo}; g {}; majorant grid {mx}x{my}x{mz} (max {}); {:.1} MiB",
            m.name,
            m.g,
            m.majorant.max(),
            m.memory_bytes() as f64 / (1 << 20) as f64
        );
    }
    if let Some(c) = scene.camera_medium {
        println!("    the camera is inside '{}'", scene.media[c as usize].name);
    }
}

pub fn info(scene: Option<&str>, list: bool, bvh: Option<BvhKind>) -> Result<()> {
    if list || scene.is_none() {
        println!("built-in scenes: {}", warpath_scene::builtin::NAMES.join(", "));
        return Ok(());
    }
    let scene = load_scene(scene.unwrap_or_default())?;
    let s = &scene.settings;
    println!("scene: {}", scene.name);
    println!("  triangles: {}", scene.triangle_count());
    println!(
        "  vertices: {} (normals: {}, uvs: {})",
        scene.positions.len(),
        !scene.normals.is_empty(),
        !scene.uvs.is_empty()
    );
    println!("  meshes: {}", scene.meshes.len());
    for m in scene.meshes.iter().take(20) {
        println!("    {} ({} triangles)", m.name, m.triangle_count);
    }
    println!("  isosurfaces: {}", scene.isosurfaces.len());
    for iso in &scene.isosurfaces {
        let s = &iso.surface;
        let [x, y, z] = s.lattice.samples;
        let (lo, hi) = s.lattice.range();
        println!(
            "    {} ({x}x{y}x{z} samples in [{lo}, {hi}], isovalue {}, material {}, {} valid of {} bricks of {}^3 cells)",
            iso.name,
            s.isovalue,
            scene.material_names[iso.material as usize],
            s.tree.leaves().len(),
            s.bvh.brick_count(),
            s.bvh.brick_cells
        );
    }
    println!("  materials: {}", scene.materials.len());
    print_media(&scene);
    let lights = scene.light_set();
    println!("  emissive triangles: {}", lights.triangles.len());
    println!(
        "  environment: {}",
        match &scene.environment {
            warpath_core::light::Environment::None => "none".to_string(),
            warpath_core::light::Environment::Constant(c) => format!("constant {c}"),
            warpath_core::light::Environment::Map(m) => format!("map {}x{}", m.width, m.height),
        }
    );
    println!(
        "  settings: {}x{}, {} spp, max depth {}, seed {}, sampler {}",
        s.width, s.height, s.spp, s.max_depth, s.seed, s.sampler
    );
    let b = scene.bounds();
    println!("  bounds: {} .. {}", b.min, b.max);
    println!("  scene memory: {:.1} MiB", scene.memory_bytes() as f64 / (1 << 20) as f64);
    let tris = scene.triangle_soup();
    let kinds = match bvh {
        Some(kind) => vec![kind],
        None => vec![BvhKind::Sbvh, BvhKind::Sah],
    };
    for kind in kinds {
        for (gpu, renderer) in [(false, "cpu"), (true, "cuda")] {
            let options = render_bvh_options(kind.build_kind(), gpu);
            let (bvh, stats) = Bvh::build(&tris, &options);
            let bytes = bvh.nodes.len() * std::mem::size_of::<warpath_bvh::BvhNode>() + bvh.prim_indices.len() * 4;
            println!(
                "  bvh as `render --bvh {} --backend {renderer}` builds it (leaves of up to {}): {stats}; memory {:.1} MiB",
                kind.build_kind().to_string().to_lowercase(),
                options.max_leaf_size,
                bytes as f64 / (1 << 20) as f64
            );
        }
    }
    Ok(())
}

#[derive(clap::Args, Clone, Debug)]
pub struct CompareArgs {
    /// First image (linear EXR).
    pub a: std::path::PathBuf,
    /// Its per-pixel variance of the mean (`--variance-output`).
    pub a_variance: std::path::PathBuf,
    /// Second image.
    pub b: std::path::PathBuf,
    pub b_variance: std::path::PathBuf,
    /// Fail when the mean of z² exceeds this.
    #[arg(long, default_value_t = 1.5)]
    pub max_mean_z2: f64,
    /// Fail when more than this fraction of pixel channels has |z| > 4.
    #[arg(long, default_value_t = 0.01)]
    pub max_outliers: f64,
}

/// Reads a linear EXR for `compare`, size-checked like every image warpath reads.
fn read_linear_exr(path: &std::path::Path) -> Result<warpath_scene::Texture> {
    use warpath_scene::image_io::{ImageKind, load_image};
    if ImageKind::from_path(path) != Some(ImageKind::Exr) {
        bail!("{}: compare reads linear .exr images (`render -o x.exr --variance-output x_var.exr`)", path.display());
    }
    Ok(load_image(path)?)
}

/// Values `compare` cannot use: non-finite ones, and negative variances. Returns how many
/// channels hold one, and a description of the first.
fn unusable_values(image: &warpath_scene::Texture, is_variance: bool) -> Option<(usize, String)> {
    let mut count = 0;
    let mut first = None;
    for (i, p) in image.pixels.iter().enumerate() {
        for (c, name) in ["R", "G", "B"].into_iter().enumerate() {
            let v = p[c];
            if v.is_finite() && !(is_variance && v < 0.0) {
                continue;
            }
            count += 1;
            if first.is_none() {
                let (x, y) = (i % image.width as usize, i / image.width as usize);
                first = Some(format!("pixel ({x}, {y}) channel {name} = {v}"));
            }
        }
    }
    first.map(|f| (count, f))
}

/// Per pixel and channel, z = (a − b) / sqrt(var_a + var_b): if both renders estimate the
/// same image, z is close to standard normal (E[z²] = 1, |z| > 4 in 0.006%). Channels with
/// zero variance on both sides must be equal (up to 1e-6 relative) and are not counted. A
/// NaN or infinite value in any of the four images (or a negative variance) is a
/// disagreement, reported with where it is.
pub fn compare(args: &CompareArgs) -> Result<()> {
    let images = [
        (&args.a, read_linear_exr(&args.a)?, false),
        (&args.a_variance, read_linear_exr(&args.a_variance)?, true),
        (&args.b, read_linear_exr(&args.b)?, false),
        (&args.b_variance, read_linear_exr(&args.b_variance)?, true),
    ];
    let [(_, a_image, _), (_, va_image, _), (_, b_image, _), (_, vb_image, _)] = &images;
    let (aw, ah, bw, bh) = (a_image.width, a_image.height, b_image.width, b_image.height);
    if (aw, ah) != (bw, bh)
        || (va_image.width, va_image.height) != (aw, ah)
        || (vb_image.width, vb_image.height) != (bw, bh)
    {
        bail!("image sizes differ: {aw}x{ah} and {bw}x{bh} (or a variance image does not match its image)");
    }
    let mut unusable = Vec::new();
    for (path, image, is_variance) in &images {
        if let Some((count, first)) = unusable_values(image, *is_variance) {
            let what = if *is_variance { "NaN, infinite or negative" } else { "NaN or infinite" };
            println!("{}: {count} channel value(s) are {what} (the first: {first})", path.display());
            unusable.push(path.display().to_string());
        }
    }
    if !unusable.is_empty() {
        bail!("the renders disagree: {} hold(s) values that are not finite", unusable.join(", "));
    }
    let (a, va, b, vb) = (&a_image.pixels, &va_image.pixels, &b_image.pixels, &vb_image.pixels);
    let (mut sum_z2, mut n, mut outliers, mut max_z, mut exact, mut zero_var_mismatch) =
        (0.0f64, 0u64, 0u64, 0.0f64, 0u64, 0u64);
    for i in 0..a.len() {
        for c in 0..3 {
            let (x, y) = (a[i][c] as f64, b[i][c] as f64);
            let v = va[i][c] as f64 + vb[i][c] as f64;
            if x == y {
                exact += 1;
            }
            if v <= 0.0 {
                if (x - y).abs() > 1e-6 * x.abs().max(y.abs()).max(1e-12) {
                    zero_var_mismatch += 1;
                }
                continue;
            }
            let z = (x - y) / v.sqrt();
            sum_z2 += z * z;
            n += 1;
            outliers += (z.abs() > 4.0) as u64;
            max_z = max_z.max(z.abs());
        }
    }
    let mean = |img: &[glam::Vec3]| img.iter().map(|p| (p.x + p.y + p.z) as f64 / 3.0).sum::<f64>() / img.len() as f64;
    let mean_z2 = sum_z2 / n.max(1) as f64;
    let outlier_fraction = outliers as f64 / n.max(1) as f64;
    println!(
        "channels compared: {n} (exactly equal: {exact}); mean z² {mean_z2:.4}; |z| > 4: {outliers} ({:.4}%); max |z| {max_z:.2}; zero-variance mismatches: {zero_var_mismatch}",
        100.0 * outlier_fraction
    );
    println!("image means: a {:.6}, b {:.6} (b/a − 1 = {:+.4}%)", mean(a), mean(b), 100.0 * (mean(b) / mean(a) - 1.0));
    // The error of b when a is a converged reference (equal-time comparisons).
    let squares: f64 =
        a.iter().zip(b.iter()).map(|(p, q)| (0..3).map(|c| ((q[c] - p[c]) as f64).powi(2)).sum::<f64>()).sum();
    let rmse = (squares / (3 * a.len()).max(1) as f64).sqrt();
    println!("RMSE of b against a: {rmse:.6e} ({:.3}% of a's mean)", 100.0 * rmse / mean(a));
    // Written so that a NaN statistic fails.
    let agree = mean_z2 <= args.max_mean_z2 && outlier_fraction <= args.max_outliers && zero_var_mismatch == 0;
    if !agree {
        bail!("the renders disagree beyond Monte Carlo noise");
    }
    println!("agree within Monte Carlo noise");
    Ok(())
}
