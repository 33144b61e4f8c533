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
mod renderer;
mod settings;

pub use backend::{Backend, BackendChoice};
pub use cpu::{CpuPath, CpuRestir};
pub use cuda::{CudaPath, CudaRestir};
pub use error::{Error, Result};
pub use renderer::{Outcome, Renderer, render};
pub use settings::{Integrator, Overrides, RestirGpu, Settings, check_resolution, default_strategy};
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

/// Opens the backend `choice` names for rendering `scene` with `settings`, with the notes a
/// caller should show: why `auto` fell back to the CPU (no GPU, or a scene the GPU's ReSTIR
/// cannot render yet), and which settings the chosen backend ignores. Asking for CUDA by name
/// for what it cannot render is an error.
pub fn open_backend(choice: BackendChoice, scene: &Scene, settings: &Settings) -> Result<(Backend, Vec<String>)> {
    let (mut backend, fallback) = Backend::open(choice)?;
    let mut notes: Vec<String> = fallback.into_iter().collect();
    let restir = settings.integrator == Integrator::RestirDi;
    if restir
        && backend.is_gpu()
        && let Some(why) = warpath_cuda::restir::unsupported(scene)
    {
        if let BackendChoice::Cuda(_) = choice {
            return Err(Error::invalid(format!("--backend cuda: scene '{}': {why}", scene.name)));
        }
        notes.push(format!("{why}; ReSTIR DI runs on the CPU"));
        backend = Backend::Cpu;
    }
    if !backend.is_gpu() {
        let gpu = &settings.restir_gpu;
        if restir && gpu.kernel_times {
            notes.push("--restir-kernel-times times the GPU kernels; the CPU reference has none to time".into());
        }
        if restir
            && (gpu.layout != RestirGpu::default().layout || gpu.light_sample != RestirGpu::default().light_sample)
        {
            notes.push(
                "--restir-soa and --restir-light-sample format the GPU's reservoirs; the CPU reference ignores them"
                    .into(),
            );
        }
        if restir && gpu.ray_lanes.is_some() {
            notes.push("--restir-ray-lanes schedules the GPU's shadow rays; the CPU reference ignores it".into());
        }
        if !restir && let Some(strategy) = settings.strategy {
            notes.push(format!("--strategy {strategy} schedules GPU paths; the CPU renderer ignores it"));
        }
    }
    Ok((backend, notes))
}

/// ReSTIR DI's settings in words (for progress notes).
pub fn restir_summary(settings: &Settings) -> String {
    let r = &settings.restir;
    format!(
        "{} candidates{}, temporal {}, {} spatial pass(es) of {} within {} px, bias correction {}",
        r.candidates,
        if r.light_pool { " from 16x16 light pools" } else { "" },
        if r.temporal { "on" } else { "off" },
        r.spatial_passes,
        r.neighbours,
        r.radius,
        r.bias.name()
    )
}

/// The estimator that renders `scene` with the path tracer (the same rule on both backends).
pub fn estimator_name(scene: &Scene) -> &'static str {
    if scene.needs_volume_estimator() { "volumetric path tracer" } else { "path tracer" }
}
