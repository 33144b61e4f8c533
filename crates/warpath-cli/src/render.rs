//! `warpath render`: the command line over the `Renderer` API (warpath-render). It checks
//! everything a user can get wrong before it spends time (outputs, numbers, memory), loads the
//! scene and prepares the renderer with a spinner for slow stages, renders with a progress
//! bar in one progressive loop whatever the backend and integrator, and hands the film to
//! [`crate::output`], which never loses a finished render. `--sequence` writes ReSTIR frames as
//! images of their own.

use crate::output::{OutputPaths, RenderMetadata, check_outputs, save_render};
use crate::progress::{Progress, note, stage};
use crate::{LightSampleArg, RenderArgs};
use anyhow::{Context, Result, bail};
use std::time::Instant;
use warpath_core::film::Film;
use warpath_core::limits;
use warpath_cuda::restir::{LightSampleFormat, ReservoirLayout};
use warpath_render::{Backend, Integrator, Overrides, RestirGpu, Settings};
use warpath_scene::Scene;

/// The command line's settings for the renderer: its flags as [`Overrides`].
pub fn overrides(args: &RenderArgs) -> Overrides {
    Overrides {
        spp: args.spp,
        frames: args.frames,
        max_depth: args.max_depth,
        resolution: args.resolution,
        seed: args.seed,
        sampler: args.sampler,
        pass_size: args.spp_per_pass,
        bvh: Some(args.bvh.build_kind()),
        integrator: match args.integrator {
            crate::Integrator::Path => Integrator::Path,
            crate::Integrator::RestirDi => Integrator::RestirDi,
        },
        strategy: args.strategy,
        count_rays: args.count_rays,
        restir: warpath_core::restir::RestirOptions {
            candidates: args.restir_candidates,
            light_pool: !args.restir_no_pool,
            temporal: !args.restir_no_temporal,
            spatial_passes: args.restir_spatial_passes,
            neighbours: args.restir_neighbours,
            radius: args.restir_radius,
            bias: args.restir_bias,
            ..Default::default()
        },
        restir_gpu: RestirGpu {
            layout: if args.restir_soa { ReservoirLayout::Soa } else { ReservoirLayout::Aos },
            light_sample: match args.restir_light_sample {
                LightSampleArg::Compact => LightSampleFormat::Compact,
                LightSampleArg::Full => LightSampleFormat::Full,
            },
            ray_lanes: args.restir_ray_lanes,
            kernel_times: args.restir_kernel_times,
        },
    }
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

/// The images of a `--sequence`: OUTPUT-0000.EXT, OUTPUT-0001.EXT, ...
fn sequence_path(args: &RenderArgs, frame: u32) -> std::path::PathBuf {
    crate::isosurface::suffixed(&args.output, &format!("{frame:04}"))
}

pub fn render(args: &RenderArgs) -> Result<()> {
    crate::progress::set_quiet(args.quiet);
    crate::progress::install_interrupt_handler()?;
    // Everything a user can get wrong on the command line fails before the scene loads.
    if args.sequence && args.integrator != crate::Integrator::RestirDi {
        bail!("--sequence writes ReSTIR frames as images: add --integrator restir-di");
    }
    let outputs: Option<OutputPaths> = if args.sequence {
        check_outputs(&sequence_path(args, 0), None)?;
        None
    } else {
        Some(check_outputs(&args.output, args.variance_output.as_deref())?)
    };
    let overrides = overrides(args);
    if let Some((w, h)) = args.resolution {
        check_film_memory(w, h)?;
    }
    let choice = args.backend.choice();
    let (backend, fallback) = Backend::open(choice).with_context(|| format!("--backend {}", args.backend.name()))?;
    if let Some(why) = fallback {
        note!("note: {why}");
    }

    let scene = stage(&format!("loading scene '{}'", args.scene), || crate::commands::load_scene(&args.scene))?;
    let settings = Settings::resolve(&scene, &overrides).with_context(|| format!("scene '{}'", args.scene))?;
    check_film_memory(settings.width(), settings.height())?;
    let (backend, warnings) = warpath_render::fit_backend(backend, choice, &scene, &settings)?;
    for w in warnings {
        eprintln!("note: {w}");
    }

    let start = Instant::now();
    let what =
        if backend.is_gpu() { "building the BVH, uploading the scene, compiling kernels" } else { "building the BVH" };
    let mut renderer = stage(what, || warpath_render::prepare(&scene, &settings, &backend))
        .with_context(|| format!("scene '{}'", args.scene))?;
    let description = renderer.describe();
    let mut lines = description.lines();
    note!("backend: {}, {}", backend.describe(), lines.next().unwrap_or_default());
    for line in lines {
        note!("{line}");
    }
    note!("prepared in {:.2} s", start.elapsed().as_secs_f64());
    if args.sequence {
        return render_sequence(args, &scene, &settings, &backend, renderer.as_mut());
    }
    let outputs = outputs.expect("checked above");

    let cancel = crate::progress::rendering("finishing the current pass and saving the image so far");
    let unit = settings.integrator.unit();
    let mut progress = Progress::new(settings.count, unit, args.progress_interval);
    let started = Instant::now();
    let pixels = settings.pixels() as f64;
    let outcome = warpath_render::render(renderer.as_mut(), 0..settings.count, cancel, |done| {
        let rate = done as f64 * pixels / started.elapsed().as_secs_f64().max(1e-9);
        progress.update(done, settings.count, unit, rate);
    });
    progress.finish();
    let outcome = outcome.with_context(|| format!("scene '{}'", args.scene))?;
    if let Some(report) = renderer.report() {
        eprintln!("{report}");
    }

    let done = outcome.done;
    if done == 0 {
        bail!("interrupted before the first pass finished: no image written");
    }
    let metadata = RenderMetadata {
        spp_done: done,
        spp_requested: settings.count,
        interrupted: done < settings.count,
        seed: settings.scene.seed,
        max_depth: settings.scene.max_depth,
        sampler: settings.scene.sampler.to_string(),
        backend: backend.name().into(),
        scene: args.scene.clone(),
    };
    let report = save_render(&outputs, &outcome.film, args.exposure, &metadata)?;
    let secs = outcome.seconds.max(1e-9);
    let rays = match outcome.rays {
        Some(rays) => format!("{:.2} Mrays/s ({rays} rays)", rays as f64 / secs / 1e6),
        None if settings.integrator == Integrator::Path => "rays not counted (--count-rays)".to_string(),
        None => "rays not counted".to_string(),
    };
    eprintln!(
        "rendered {}x{} at {done} {unit}{} in {:.2} s: {:.3} Msamples/s, {rays}",
        settings.width(),
        settings.height(),
        if done < settings.count { format!(" (interrupted; {} asked)", settings.count) } else { String::new() },
        outcome.seconds,
        outcome.samples() as f64 / secs / 1e6,
    );
    for path in &report.written {
        note!("wrote {}", path.display());
    }
    for (path, reason, rescue) in &report.rescued {
        eprintln!("error: {reason}; the render was saved to {} instead of {}", rescue.display(), path.display());
    }
    if let Some(error) = outcome.failed {
        eprintln!("error: the render stopped after {done} {unit}: {error}");
        std::process::exit(1);
    }
    if outcome.cancelled {
        std::process::exit(130);
    }
    if !report.rescued.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}

/// `--sequence`: ReSTIR frames each written as its own image (one sample per pixel), the
/// camera turned `--orbit` DEGREES/N a frame; Ctrl-C stops after the current frame (the
/// frames written stay).
fn render_sequence(
    args: &RenderArgs,
    scene: &Scene,
    settings: &Settings,
    backend: &Backend,
    renderer: &mut dyn warpath_render::Renderer,
) -> Result<()> {
    let frames = settings.count;
    let step = args.orbit.unwrap_or(0.0) / frames as f32;
    let (width, height) = (settings.width(), settings.height());
    let cancel = crate::progress::rendering("finishing the current frame");
    note!(
        "{frames} frames of {width}x{height}, camera turned {step} degrees a frame; images {} ...",
        sequence_path(args, 0).display()
    );
    let mut frame_ms: Vec<f64> = Vec::new();
    for k in 0..frames {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        renderer.set_camera(&scene.camera.orbited(step * k as f32))?;
        renderer.clear_film()?;
        let start = Instant::now();
        renderer.render_pass(k..k + 1)?;
        frame_ms.push(start.elapsed().as_secs_f64() * 1e3);
        let film = renderer.film()?;
        crate::output::write_image(&sequence_path(args, k), width, height, &film.mean(), args.exposure, None)?;
    }
    if let Some(report) = renderer.report() {
        eprintln!("{report}");
    }
    let done = frame_ms.len();
    let mean = frame_ms.iter().sum::<f64>() / done.max(1) as f64;
    eprintln!(
        "rendered {done} of {frames} frames of {width}x{height} ({}): {mean:.2} ms a frame (mean, images not counted); wrote {} to {}",
        backend.name(),
        sequence_path(args, 0).display(),
        sequence_path(args, done.saturating_sub(1) as u32).display()
    );
    if crate::progress::interrupted() {
        std::process::exit(130);
    }
    Ok(())
}
