//! warpath-render: the front door every caller shares — the CLI, the Python package, a
//! multi-GPU or cluster driver. Three steps:
//!
//! 1. [`Settings::resolve`]: the scene's `[settings]`, then the caller's [`Overrides`], checked
//!    once;
//! 2. [`Backend::open`] + [`prepare`]: a [`Renderer`] for the scene on the CPU or a CUDA device
//!    (the BVH built, the scene uploaded, the kernels compiled);
//! 3. [`render`]: passes over a range of sample indices (or frames) into a [`Film`], with
//!    progress and cancellation.
//!
//! Films of disjoint sample ranges merge into the film of their union:
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use warpath_render::{Backend, BackendChoice, Overrides, Settings, prepare, render};
//! let scene = warpath_scene::load("cornell")?;
//! let settings = Settings::resolve(&scene, &Overrides { spp: Some(2048), ..Default::default() })?;
//! let (gpu0, gpu1) = (Backend::open(BackendChoice::Cuda(0))?.0, Backend::open(BackendChoice::Cuda(1))?.0);
//! let (mut a, mut b) = (prepare(&scene, &settings, &gpu0)?, prepare(&scene, &settings, &gpu1)?);
//! let stop = AtomicBool::new(false);
//! let mut film = render(a.as_mut(), 0..1024, &stop, |_| {})?.film;
//! film.merge(&render(b.as_mut(), 1024..2048, &stop, |_| {})?.film);
//! let image = film.mean(); // linear RGB, row-major
//! # Ok::<(), warpath_render::Error>(())
//! ```

mod backend;
mod cpu;
mod cuda;
mod error;
pub mod film_file;
pub mod image_file;
pub mod iso_devices;
pub mod isosurface;
pub mod multi;
mod renderer;
pub mod restir_choice;
mod settings;

pub use backend::{Backend, BackendChoice};
pub use cpu::{CpuPath, CpuRestir};
pub use cuda::{CudaPath, CudaRestir};
pub use error::{Error, Result};
pub use film_file::{FilmPart, fingerprint, merge};
pub use isosurface::{IsoCaster, IsoOptions};
pub use multi::{DeviceReport, MultiOutcome, render_on_devices};
pub use renderer::{Outcome, Renderer, render};
pub use restir_choice::restir_choice;
pub use settings::{Integrator, Overrides, RestirByScene, RestirGpu, Settings, check_resolution, default_strategy};
pub use warpath_core::film::Film;

use warpath_scene::Scene;

/// Prepares `scene` for `backend` with `settings`: the renderer of the settings' integrator
/// (the path tracer, volumetric where the scene needs it, or ReSTIR DI) on that backend.
pub fn prepare<'a>(scene: &'a Scene, settings: &Settings, backend: &'a Backend) -> Result<Box<dyn Renderer + 'a>> {
    Ok(match (backend, settings.integrator) {
        (Backend::Cpu, Integrator::Path) => Box::new(CpuPath::new(scene, settings)?),
        (Backend::Cpu, Integrator::RestirDi) => Box::new(CpuRestir::new(scene, settings)?),
        (Backend::Cuda(device), Integrator::Path) => Box::new(CudaPath::new(device, scene, settings)?),
        (Backend::Cuda(device), Integrator::RestirDi) => Box::new(CudaRestir::new(device, scene, settings)?),
    })
}

/// ReSTIR DI resamples emissive triangles: a scene with point, spot or directional lights is
/// refused (its light selection would pick lights ReSTIR cannot sample).
pub(crate) fn refuse_delta_lights_for_restir(scene: &Scene) -> Result<()> {
    if scene.delta_lights.is_empty() {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "scene '{}': restir-di resamples emissive triangles; its {} point/spot/directional light(s) are not ReSTIR \
         lights yet (render it with the path tracer, or replace them with emissive shapes)",
        scene.name,
        scene.delta_lights.len()
    )))
}

/// Fits an opened `backend` (what `choice` asked for) to rendering `scene` with `settings`:
/// `auto` moves ReSTIR DI to the CPU where the GPU's kernels cannot render the scene yet (an
/// error when CUDA was asked for by name). Returns the backend and the warnings a caller
/// should show: that move, and the settings the chosen backend ignores.
pub fn fit_backend(
    backend: Backend,
    choice: BackendChoice,
    scene: &Scene,
    settings: &Settings,
) -> Result<(Backend, Vec<String>)> {
    let mut backend = backend;
    let mut warnings = Vec::new();
    let restir = settings.integrator == Integrator::RestirDi;
    if restir
        && backend.is_gpu()
        && let Some(why) = warpath_cuda::restir::unsupported(scene)
    {
        if let BackendChoice::Cuda(_) = choice {
            return Err(Error::invalid(format!("--backend cuda: scene '{}': {why}", scene.name)));
        }
        warnings.push(format!("{why}; ReSTIR DI runs on the CPU"));
        backend = Backend::Cpu;
    }
    if !backend.is_gpu() {
        let gpu = &settings.restir_gpu;
        if restir && gpu.kernel_times {
            warnings.push("--restir-kernel-times times the GPU kernels; the CPU reference has none to time".into());
        }
        if restir
            && (gpu.layout != RestirGpu::default().layout || gpu.light_sample != RestirGpu::default().light_sample)
        {
            warnings.push(
                "--restir-soa and --restir-light-sample format the GPU's reservoirs; the CPU reference ignores them"
                    .into(),
            );
        }
        if restir && gpu.ray_lanes.is_some() {
            warnings.push("--restir-ray-lanes schedules the GPU's shadow rays; the CPU reference ignores it".into());
        }
        if !restir && let Some(strategy) = settings.strategy {
            warnings.push(format!("--strategy {strategy} schedules GPU paths; the CPU renderer ignores it"));
        }
    }
    Ok((backend, warnings))
}

/// [`Backend::open`] and [`fit_backend`] in one: the backend and every note and warning.
pub fn open_backend(choice: BackendChoice, scene: &Scene, settings: &Settings) -> Result<(Backend, Vec<String>)> {
    let (backend, fallback) = Backend::open(choice)?;
    let (backend, warnings) = fit_backend(backend, choice, scene, settings)?;
    Ok((backend, fallback.into_iter().chain(warnings).collect()))
}

/// ReSTIR DI's settings in words (for progress notes).
pub fn restir_summary(settings: &Settings) -> String {
    let r = &settings.restir;
    format!(
        "{} candidates{}{}, target {}, temporal {}{}, {} spatial pass(es) of {} within {} px, bias correction {}{}{}{}{}",
        r.candidates,
        if r.light_pool { " from 16x16 light pools" } else { "" },
        if r.bsdf_candidates > 0 { format!(" + {} BSDF-sampled", r.bsdf_candidates) } else { String::new() },
        r.target.name(),
        if r.temporal { "on" } else { "off" },
        if r.temporal { format!(" (history capped at {}×)", r.temporal_cap) } else { String::new() },
        r.spatial_passes,
        r.neighbours,
        r.radius,
        r.bias.name(),
        match r.temporal_bias {
            Some(b) if b != r.bias && r.temporal => format!(" (temporal {})", b.name()),
            _ => String::new(),
        },
        if r.reuse_visibility { ", visibility-aware reuse" } else { "" },
        if r.roughness_threshold < 1.0 {
            format!(", roughness threshold {}", r.roughness_threshold)
        } else {
            String::new()
        },
        if r.boiling_filter > 0.0 { format!(", boiling filter {}", r.boiling_filter) } else { String::new() }
    )
}

/// The estimator that renders `scene` with the path tracer (the same rule on both backends).
pub fn estimator_name(scene: &Scene) -> &'static str {
    if scene.needs_volume_estimator() { "volumetric path tracer" } else { "path tracer" }
}
