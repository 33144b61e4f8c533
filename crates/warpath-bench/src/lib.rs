//! warpath-bench's library: the experiments fenced off from the product, which the
//! `warpath-bench` binary (src/main.rs) and this crate's GPU tests share.
//!
//! - [`catalog`]: its CUDA program, `kernels/traverse.cu` (the stand-alone traversal kernels:
//!   while-while, speculative, persistent threads with dynamic fetch, postponed leaves, and the
//!   compressed 8-wide BVH's), declared in warpath-cuda's typed catalog as an
//!   `ExternalProgram` over its headers (`kernels/traversal/*.cuh`, which the product's
//!   estimators include too);
//! - [`traverse`], [`wide_traverse`]: one typed launch per kernel and their timing;
//! - [`rays`]: the primary, ao and diffuse ray sets the traversal benchmark and tests trace;
//! - [`programs`]: what `warpath-bench precompile` and CI's NVRTC check compile: this crate's
//!   program and the volumetric estimator's benchmark variants (3D-texture grids, register caps).
//!
//! The product (`warpath`, warpath-render, warpath-cuda) depends on none of it.

pub mod catalog;
pub mod programs;
pub mod rays;
pub mod traverse;
pub mod wide_traverse;
