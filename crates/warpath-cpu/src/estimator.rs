//! The estimator interface of the CPU renderers (docs/architecture.md, "Two independent axes:
//! estimators × schedules"): an estimator says what a path is and how it takes one step; a
//! renderer (here the progressive [`crate::render::CpuRenderer`]; on the GPU every schedule
//! kernel) decides which path runs when. The surface path tracer
//! ([`crate::integrator::SceneView`]) implements it; the volumetric path tracer does too, and
//! any later estimator plugs into the same renderer.
//!
//! The stage names are the GPU's (`generate`, `extend`, `accumulate`), so the CPU and CUDA
//! versions of an estimator read side by side.

use crate::integrator::PathCounters;
use glam::Vec3;

/// A Monte Carlo estimator of pixel radiance, one path at a time.
///
/// Random numbers must be a pure function of (pixel, sample, step, dimension), so a path
/// computes the same thing whichever thread or schedule runs it.
pub trait Estimator: Sync {
    /// What one path carries between steps (what a wavefront kernel stores).
    type Path: Clone + Send;

    /// The camera path of (`pixel`, `sample`); `pixel` is a row-major index.
    fn generate(&self, pixel: u32, sample: u32) -> Self::Path;

    /// One step of the path: trace, shade or scatter, next-event estimation, continue or
    /// not. Returns whether the path goes on. Counts what it traces in `counters`.
    fn extend(&self, path: &mut Self::Path, counters: &mut PathCounters) -> bool;

    /// The radiance a finished path carries to its pixel (`accumulate` adds it).
    fn radiance(&self, path: &Self::Path) -> Vec3;

    /// Image size in pixels (width, height): the paths' pixel indices are below width × height.
    fn resolution(&self) -> (u32, u32);
}

/// Traces one whole path of `estimator` (the naive megakernel's loop) and returns its radiance.
pub fn trace_path<E: Estimator>(estimator: &E, pixel: u32, sample: u32, counters: &mut PathCounters) -> Vec3 {
    let mut path = estimator.generate(pixel, sample);
    while estimator.extend(&mut path, counters) {}
    estimator.radiance(&path)
}
