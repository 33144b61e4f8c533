//! warpath-cpu: the CPU reference path tracer (rayon), the spec every GPU kernel is
//! checked against and the default backend where no GPU is found.
//!
//! - [`estimator`]: the [`Estimator`] trait every CPU estimator implements and the
//!   renderer is generic over;
//! - [`integrator`]: the estimator, one function per stage of seed 000 §3.2 / appendix A
//!   (`generate`, `extend`, `illuminate`, `bounce`, `accumulate`), the names the GPU
//!   kernels keep;
//! - [`volpath`]: the volumetric path tracer (seed 003, issue 11), the same stages through
//!   participating media and index-matched boundaries;
//! - [`render`]: progressive passes over the film, cancellation, statistics;
//! - [`restir`]: ReSTIR direct lighting (issue 15, seed 002): reservoirs, light pools,
//!   temporal and spatial reuse, the CPU reference of the GPU's ReSTIR kernels.

pub mod estimator;
pub mod integrator;
pub mod render;
pub mod restir;
pub mod volpath;

pub use estimator::Estimator;
pub use integrator::{PathState, SceneView};
pub use render::render_pass_with;
pub use render::{CpuRenderer, RenderOptions, RenderStats};
pub use volpath::{VolumePath, VolumeView};
