//! warpath-cpu: the CPU reference path tracer (rayon), the spec every GPU kernel is
//! checked against and the default backend where no GPU is found.
//!
//! - [`integrator`]: the estimator, one function per stage of seed 000 §3.2 / appendix A
//!   (`generate`, `extend`, `illuminate`, `bounce`, `accumulate`), the names the GPU
//!   kernels keep;
//! - [`render`]: progressive passes over the film, cancellation, statistics.

pub mod integrator;
pub mod render;

pub use integrator::{PathState, SceneView};
pub use render::{CpuRenderer, RenderOptions, RenderStats};
