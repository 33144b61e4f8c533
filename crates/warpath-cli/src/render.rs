//! `warpath render`: the command line over the `Renderer` API (warpath-render). It checks
//! everything a user can get wrong before it spends time (outputs, numbers, memory), loads the
//! scene and prepares the renderer with a spinner for slow stages, renders with a progress
//! bar in one progressive loop whatever the backend and integrator, and hands the film to
//! [`crate::output`], which never loses a finished render. `--sequence` writes ReSTIR frames as
//! images of their own.

use crate::output::{OutputPaths, RenderMetadata, check_outputs, save_render};
use crate::progress::{Progress, note, stage};
use crate::{BvhLayoutArg, LightSampleArg, RenderArgs};
use anyhow::{Context, Result, bail};
use std::ops::Range;
use std::path::PathBuf;
use std::time::Instant;
use warpath_core::film::Film;
use warpath_core::limits;
use warpath_cuda::restir::{LightSampleFormat, ReservoirLayout};
use warpath_render::{Backend, FilmPart, Integrator, Overrides, RestirByScene, RestirGpu, Settings};
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
        bvh_layout: args.bvh_layout.map(BvhLayoutArg::layout),
        integrator: match args.integrator {
            crate::Integrator::Path => Integrator::Path,
            crate::Integrator::RestirDi => Integrator::RestirDi,
        },
        strategy: args.strategy,
        count_rays: args.count_rays,
        restir: warpath_core::restir::RestirOptions {
            candidates: args.restir_candidates,
            light_pool: !args.restir_no_pool,
            temporal: !args.restir_no_temporal && (args.sequence || args.restir_temporal),
            spatial_passes: args.restir_spatial_passes.unwrap_or(1),
            neighbours: args.restir_neighbours,
            radius: args.restir_radius,
            bias: args.restir_bias.unwrap_or(warpath_core::restir::RestirOptions::default().bias),
            temporal_bias: args.restir_temporal_bias,
            temporal_cap: args
                .restir_temporal_cap
                .unwrap_or(warpath_core::restir::RestirOptions::default().temporal_cap),
            target: args.restir_target.unwrap_or_default(),
            reuse_visibility: args.restir_reuse_visibility,
            bsdf_candidates: args.restir_bsdf_candidates,
            roughness_threshold: args.restir_roughness_threshold,
            boiling_filter: args.restir_boiling_filter,
            ..Default::default()
        },
        restir_by_scene: RestirByScene {
            target: args.restir_target.is_none(),
            bias: args.restir_bias.is_none(),
            spatial: args.restir_spatial_passes.is_none(),
            temporal_cap: args.restir_temporal_cap.is_none(),
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

/// The image `render` writes: `-o`, else `warpath.exr` — or none when only a `--film` is asked for.
fn image_path(args: &RenderArgs) -> Option<PathBuf> {
    match (&args.output, &args.film) {
        (Some(path), _) => Some(path.clone()),
        (None, Some(_)) => None,
        (None, None) => Some(PathBuf::from("warpath.exr")),
    }
}

/// The images of a `--sequence`: OUTPUT-0000.EXT, OUTPUT-0001.EXT, ...
fn sequence_path(args: &RenderArgs, frame: u32) -> PathBuf {
    let output = args.output.clone().unwrap_or_else(|| PathBuf::from("warpath.exr"));
    crate::isosurface::suffixed(&output, &format!("{frame:04}"))
}

/// The backends `--backend` and `--devices` ask for (`commands::open_backends`).
fn open_backends(args: &RenderArgs) -> Result<(Vec<Backend>, Option<String>)> {
    warpath_cli::commands::open_backends(args.backend, args.devices.as_ref())
}

pub fn render(args: &RenderArgs) -> Result<()> {
    crate::progress::set_quiet(args.quiet);
    crate::progress::install_interrupt_handler()?;
    // Everything a user can get wrong on the command line fails before the scene loads.
    if args.sequence && args.integrator != crate::Integrator::RestirDi {
        bail!("--sequence writes ReSTIR frames as images: add --integrator restir-di");
    }
    if args.sequence && (args.film.is_some() || args.samples.is_some()) {
        bail!("--sequence writes one image a frame; --film and --samples make one partial render");
    }
    if args.samples.is_some() && (args.spp.is_some() || args.frames.is_some()) {
        bail!("--samples A..B renders B - A samples per pixel: give it without --spp or --frames");
    }
    if let Some(samples) = &args.samples
        && samples.start > 0
        && args.integrator == crate::Integrator::RestirDi
    {
        bail!("--samples: ReSTIR's frames follow each other from frame 0 (temporal reuse): give 0..N");
    }
    let outputs: Option<OutputPaths> = match image_path(args) {
        _ if args.sequence => {
            check_outputs(&sequence_path(args, 0), None)?;
            None
        }
        Some(image) => Some(check_outputs(&image, args.variance_output.as_deref())?),
        None => None,
    };
    if let Some(film) = &args.film {
        check_film_output(film)?;
    }
    let mut overrides = overrides(args);
    if let Some(samples) = &args.samples {
        let count = samples.end - samples.start;
        match args.integrator {
            crate::Integrator::Path => overrides.spp = Some(count),
            crate::Integrator::RestirDi => overrides.frames = Some(count),
        }
    }
    if let Some((w, h)) = args.resolution {
        check_film_memory(w, h)?;
    }
    let (backends, fallback) = open_backends(args)?;
    if let Some(why) = fallback {
        note!("note: {why}");
    }

    let scene = stage(&format!("loading scene '{}'", args.scene), || {
        crate::commands::load_scene_with(&args.scene, &args.defines)
    })?;
    let settings = Settings::resolve(&scene, &overrides).with_context(|| format!("scene '{}'", args.scene))?;
    if settings.integrator == Integrator::RestirDi && overrides.restir_by_scene != RestirByScene::default() {
        let by_scene = overrides.restir_by_scene;
        let mut chosen = Vec::new();
        if by_scene.target {
            chosen.push(format!("target {}", settings.restir.target.name()));
        }
        if by_scene.bias {
            chosen.push(format!("bias correction {}", settings.restir.bias.name()));
        }
        note!("ReSTIR: {} (chosen by the colours of the scene's emitters)", chosen.join(", "));
    }
    check_film_memory(settings.width(), settings.height())?;
    let samples = args.samples.clone().unwrap_or(0..settings.count);
    let mut backends = backends;
    if backends.len() > 1 && (settings.integrator.is_frame_based() || args.sequence) {
        note!("note: ReSTIR DI renders on one device (CUDA device 0): each frame reuses the whole previous frame");
        backends.truncate(1);
    }
    if backends.len() > 1 {
        return render_multi(args, &scene, &settings, &backends, samples, outputs);
    }
    let backend = backends.pop().expect("one backend");
    let (backend, warnings) = warpath_render::fit_backend(backend, args.backend.choice(), &scene, &settings)?;
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

    let cancel = crate::progress::rendering("finishing the current pass and saving the image so far");
    let unit = settings.integrator.unit();
    let total = samples.len() as u32;
    let mut progress = Progress::new(total, unit, args.progress_interval);
    let started = Instant::now();
    let pixels = settings.pixels() as f64;
    let outcome = warpath_render::render(renderer.as_mut(), samples.clone(), cancel, |done| {
        let rate = done as f64 * pixels / started.elapsed().as_secs_f64().max(1e-9);
        progress.update(done, total, unit, rate);
    });
    progress.finish();
    let outcome = outcome.with_context(|| format!("scene '{}'", args.scene))?;
    if let Some(report) = renderer.report() {
        eprintln!("{report}");
    }
    let finished = Finished {
        film: outcome.film,
        samples: samples.start..samples.start + outcome.done,
        asked: samples,
        seconds: outcome.seconds,
        rays: outcome.rays,
        backend: backend.name().to_string(),
        provenance: format!("{}, {}", backend.describe(), description.lines().next().unwrap_or_default()),
        failed: outcome.failed.map(|e| e.to_string()),
        exact: true,
    };
    save(args, &scene, &settings, outputs, finished)
}

/// A render's result, whichever way it was made.
struct Finished {
    film: Film,
    /// The sample indices the film holds.
    samples: Range<u32>,
    asked: Range<u32>,
    seconds: f64,
    rays: Option<u64>,
    backend: String,
    provenance: String,
    failed: Option<String>,
    /// Whether the film holds exactly `samples` (several devices stopped by Ctrl-C leave gaps).
    exact: bool,
}

/// Checks that a `--film` path is a `.wfilm` file that can be created.
fn check_film_output(path: &std::path::Path) -> Result<()> {
    if path.extension().and_then(|e| e.to_str()) != Some("wfilm") {
        bail!("{}: --film writes a .wfilm file", path.display());
    }
    // The image checks create and remove a temporary file beside the target: reuse them.
    check_outputs(&path.with_extension("exr"), None).map(|_| ()).with_context(|| format!("--film {}", path.display()))
}

/// Writes the film (`--film`) and the image, and prints the closing summary; the exit status
/// says whether the render was interrupted (130) or failed after some passes (1).
fn save(
    args: &RenderArgs,
    scene: &Scene,
    settings: &Settings,
    outputs: Option<OutputPaths>,
    r: Finished,
) -> Result<()> {
    let unit = settings.integrator.unit();
    let done = r.samples.len() as u32;
    if done == 0 {
        bail!("interrupted before the first pass finished: no image written");
    }
    let asked = r.asked.len() as u32;
    if let Some(path) = args.film.as_ref().filter(|_| !r.exact) {
        eprintln!("note: {} not written: the interrupted devices left gaps in the sample range", path.display());
    }
    if let Some(path) = args.film.as_ref().filter(|_| r.exact) {
        let part = FilmPart {
            film: r.film.clone(),
            samples: r.samples.clone(),
            fingerprint: warpath_render::fingerprint(scene, settings),
            provenance: r.provenance.clone(),
        };
        part.write(path)?;
        note!("wrote {} (samples {}..{})", path.display(), r.samples.start, r.samples.end);
    }
    let mut rescued = false;
    if let Some(outputs) = &outputs {
        let metadata = RenderMetadata {
            spp_done: done,
            spp_requested: asked,
            interrupted: done < asked,
            seed: settings.scene.seed,
            max_depth: settings.scene.max_depth,
            sampler: settings.scene.sampler.to_string(),
            backend: r.backend.clone(),
            scene: args.scene.clone(),
        };
        let report = save_render(outputs, &r.film, args.exposure, &metadata)?;
        for path in &report.written {
            note!("wrote {}", path.display());
        }
        for (path, reason, rescue) in &report.rescued {
            eprintln!("error: {reason}; the render was saved to {} instead of {}", rescue.display(), path.display());
        }
        rescued = !report.rescued.is_empty();
    }
    let secs = r.seconds.max(1e-9);
    let rays = match r.rays {
        Some(rays) => format!("{:.2} Mrays/s ({rays} rays)", rays as f64 / secs / 1e6),
        None if settings.integrator == Integrator::Path => "rays not counted (--count-rays)".to_string(),
        None => "rays not counted".to_string(),
    };
    eprintln!(
        "rendered {}x{} at {done} {unit}{} in {:.2} s: {:.3} Msamples/s, {rays}",
        settings.width(),
        settings.height(),
        if done < asked { format!(" (interrupted; {asked} asked)") } else { String::new() },
        r.seconds,
        r.film.total_samples() as f64 / secs / 1e6,
    );
    if let Some(error) = r.failed {
        eprintln!("error: the render stopped after {done} {unit}: {error}");
        std::process::exit(1);
    }
    if done < asked {
        std::process::exit(130);
    }
    if rescued {
        std::process::exit(1);
    }
    Ok(())
}

/// The path tracer on several CUDA devices: batches of samples handed out as devices finish,
/// one film merged on the host; a line per device after the render.
fn render_multi(
    args: &RenderArgs,
    scene: &Scene,
    settings: &Settings,
    backends: &[Backend],
    samples: Range<u32>,
    outputs: Option<OutputPaths>,
) -> Result<()> {
    let names: Vec<String> = backends.iter().map(|b| b.describe()).collect();
    note!("backend: {} devices ({}), {}", backends.len(), names.join("; "), warpath_render::estimator_name(scene));
    let cancel = crate::progress::rendering("finishing the current batches and saving the image so far");
    let unit = settings.integrator.unit();
    let total = samples.len() as u32;
    let progress = std::sync::Mutex::new(Progress::new(total, unit, args.progress_interval));
    let started = Instant::now();
    let pixels = settings.pixels() as f64;
    // A batch: enough passes to keep a device busy, and enough batches to balance the devices.
    let batch = settings.pass_size.unwrap_or(16).max(total / (8 * backends.len() as u32)).max(1);
    let outcome = stage("building the BVH, uploading the scene, compiling kernels on every device", || {
        warpath_render::render_on_devices(scene, settings, backends, samples.clone(), batch, cancel, |done| {
            let rate = done as f64 * pixels / started.elapsed().as_secs_f64().max(1e-9);
            progress.lock().unwrap_or_else(|e| e.into_inner()).update(done, total, unit, rate);
        })
    });
    progress.into_inner().unwrap_or_else(|e| e.into_inner()).finish();
    let outcome = outcome.with_context(|| format!("scene '{}'", args.scene))?;
    note!("prepared in {:.2} s (one BVH for every device)", outcome.prepare_seconds);
    for d in &outcome.devices {
        let state = match &d.error {
            Some(e) => format!("failed ({e}); its batches went to the others"),
            None => "ok".into(),
        };
        note!(
            "  {}: {} {unit} in {} batches, {:.2} s (prepared in {:.2} s), {state}",
            d.device,
            d.samples,
            d.batches,
            d.seconds,
            d.prepare_seconds
        );
    }
    let finished = Finished {
        film: outcome.film,
        samples: samples.start..samples.start + outcome.done,
        asked: samples,
        seconds: outcome.seconds,
        rays: None,
        backend: "cuda".into(),
        provenance: format!("{} devices: {}", backends.len(), names.join("; ")),
        failed: None,
        exact: outcome.done == total,
    };
    save(args, scene, settings, outputs, finished)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An accumulated still renders ReSTIR without temporal reuse unless --restir-temporal asks
    /// for it (issue 29); a --sequence keeps it unless --restir-no-temporal.
    #[test]
    fn stills_accumulate_without_temporal_reuse_by_default() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            render: RenderArgs,
        }
        let temporal = |args: &[&str]| {
            let cli = Cli::try_parse_from([&["warpath", "many-lights", "--integrator", "restir-di"], args].concat());
            cli.map(|c| overrides(&c.render).restir.temporal)
        };
        assert_eq!(temporal(&[]).unwrap(), false);
        assert_eq!(temporal(&["--restir-temporal"]).unwrap(), true);
        assert_eq!(temporal(&["--sequence"]).unwrap(), true);
        assert_eq!(temporal(&["--sequence", "--restir-no-temporal"]).unwrap(), false);
        assert!(temporal(&["--restir-temporal", "--restir-no-temporal"]).is_err());
    }
}
