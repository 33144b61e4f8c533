//! The naive megakernel of seed 000 (appendix B.1) — the baseline every other schedule is
//! measured against: one thread per pixel on a 2D grid (8×8 blocks by default, as in the
//! seed), each tracing this pass's samples of its pixel, whole paths from `generate` to
//! termination, through the surface estimator (`kernels/surface/estimator.cuh`:
//! generate, extend → illuminate, bounce; accumulate), then adding its sums to the film's
//! per-pass float buffers (sum, sum of squares, count per pixel), which every pass ends by
//! merging into the render's f64 sums on the GPU ([`crate::film`]).
//!
//! The renderer that owns the scene, film and counters is [`crate::strategy::StrategyRenderer`]
//! (its default strategy is this one); `MegakernelRenderer` is its name here. With
//! instrumentation on, the kernel also counts paths and warps entering `extend` at each
//! bounce, extension rays and shadow rays ([`PathCounters`]), warp-aggregated.

pub use crate::strategy::{PathCounters, StrategyRenderer as MegakernelRenderer};

/// Block size of seed 000 B.1.
pub const DEFAULT_BLOCK: (u32, u32) = (8, 8);
