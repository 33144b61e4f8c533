//! warpath-cuda: the CUDA backend of warpath.
//!
//! * [`runtime`]: opening a device ([`CudaDevice::open`] is an error, never a crash, without
//!   a driver or GPU), device facts, lazily compiled modules, and the one kernel launch
//!   ([`CudaDevice::launch`]), checked and, when asked, timed per kernel ([`timing`]).
//! * [`kernels`]: the embedded CUDA sources and their [`kernels::Program`]s; [`catalog`]: every
//!   kernel as a typed constant (program, entry point, argument types: [`kernel::Kernel`]),
//!   checked against the sources' signatures by a test that needs no GPU; [`programs`]: what
//!   `precompile` compiles.
//! * [`compiler`]: NVRTC compilation of the embedded kernel sources for the device's own
//!   architecture, with an on-disk cache; usable without a device (CI's kernel check).
//! * [`buffer`]: typed device buffers of `Pod` values.
//! * [`layout`]: the traversal records shared with the GPU (`kernels/common/layout.cuh`);
//!   [`layout_registry`]: every struct shared with the GPU, whose sizes and offsets become
//!   the generated `kernels/generated/layout_checks.cuh` (Rust owns each layout).
//! * [`bvh_layout`]: the canonical BVH converted to the Aila–Laine layout (seed 004).
//! * [`scene_upload`]: a `warpath_scene::Scene` (lights, environment, textures, BVH) as the
//!   device buffers the estimator kernels (`kernels/common/ and kernels/surface/`) read.
//! * [`film`]: the film on the device: per-pass f32 buffers merged into f64 sums on the GPU.
//! * [`megakernel`]: the naive megakernel (seed 000 B.1), one thread per pixel tracing whole
//!   paths through the shared device estimator.
//! * [`strategy`]: the path scheduling strategies (issue 5: wavefront, tiled, regeneration,
//!   streaming, sorted) over the same estimator, with their instrumentation.
//! * [`compaction`]: stream compaction (seed 001 InK-Collate/InK-Compact, decoupled look-back,
//!   OfK and three-pass baselines) over u32, 16-byte and 64-byte elements: the method table,
//!   the workspace, typed launches and a timing helper (the benchmark is `warpath-bench
//!   compaction`, in warpath-bench).
//! * [`cub_library`]: CUB's `DeviceSelect::Flagged` from an nvcc-built library opened at run
//!   time (the isosurface pipeline's `cub` method; optional, never needed by CI).
//! * [`volume_upload`]: a scene's media (grids, majorants, interfaces) as the volumetric
//!   estimator's device buffers (`kernels/volume/`).
//! * [`isosurface`]: the isosurface ray caster (issue 14): a lattice and the condensed brick
//!   tree of `warpath_isosurface` uploaded, one thread per ray (`kernels/isosurface/`).
//! * [`wide_bvh`]: the compressed 8-wide BVH's layout and upload (`--bvh-layout wide8`).
//!
//! Data flows one way: a `warpath_bvh::Bvh` and its triangles become a [`GpuBvh`] (or a
//! [`GpuWideBvh`]), are uploaded as a [`DeviceBvh`], and the estimators trace it through
//! `kernels/traversal/`. The stand-alone traversal kernels (rays in, hits out: while-while,
//! speculative, persistent, postponed, wide) are benchmarks and live in warpath-bench, which
//! declares them as [`kernels::ExternalProgram`]s over this crate's headers.

pub mod buffer;
pub mod bvh_layout;
pub mod catalog;
pub mod compaction;
pub mod compiler;
pub mod cub_library;
pub mod error;
pub mod film;
pub mod isosurface;
pub mod kernel;
pub mod kernels;
pub mod layout;
pub mod layout_registry;
pub mod megakernel;
pub mod programs;
pub mod restir;
pub mod runtime;
pub mod scene_upload;
pub mod strategy;
pub mod timing;
pub mod volume_upload;
pub mod wide_bvh;

pub use buffer::DeviceBuffer;
pub use bvh_layout::{DeviceBvh, GpuBvh};
pub use compiler::{CompileTarget, KernelCompiler, KernelSource};
pub use error::{CudaError, CudaResult};
pub use layout::{AilaLaineNode, GpuHit, GpuRay, GpuTriangle};
pub use megakernel::MegakernelRenderer;
pub use runtime::{CudaDevice, DeviceInfo};
pub use strategy::{MaterialFeatures, Strategy, StrategyRenderer, WavefrontCompaction};
pub use timing::KernelTimes;
pub use wide_bvh::{DeviceWideBvh, GpuWideBvh};
