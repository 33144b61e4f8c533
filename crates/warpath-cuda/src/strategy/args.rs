//! The arguments of the schedule kernels, whose layout Rust owns (docs/architecture.md): the
//! [`ScheduleArgs`] every schedule kernel takes by value (the schedule's fields, then the
//! estimator's scene), the [`StoredPath`] the surface estimator keeps between bounces, the
//! [`WavefrontBuffers`] of an extend launch and the multi-stage wavefront's
//! [`MultiStageQueues`]. Their CUDA mirrors' sizes and offsets are checked at compile time by
//! the generated layout checks ([`crate::layout_registry`]).

use crate::scene_upload::DeviceSceneArgs;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::DeviceRepr;
use std::mem::size_of;

/// The arguments of every schedule kernel (`ScheduleArgs<E>` in `schedules/schedule.cuh`):
/// the film, the counters, the wave being run, then the estimator's scene `S` last, so the
/// schedule's own offsets are the same for every estimator.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScheduleArgs<S> {
    pub film_sum: u64,
    pub film_sum_sq: u64,
    pub film_count: u64,
    /// The estimator's counters, or 0 (instrumentation off).
    pub counters: u64,
    /// Two words: the next wave index to start, the live-path count.
    pub work: u64,
    pub morton_lo: [f32; 3],
    pub morton_scale: [f32; 3],
    pub first_sample: u32,
    pub padded_pixels: u32,
    pub tiles_x: u32,
    pub width: u32,
    pub height: u32,
    pub path_base: u32,
    pub wave_paths: u32,
    pub _pad: u32,
    pub scene: S,
}

// SAFETY: `#[repr(C)]` of device addresses and scalars followed by a DeviceRepr scene;
// its layout is asserted by the estimator's header (surface/stages.cuh for the surface
// estimator) and passed by value as each schedule kernel's first parameter.
unsafe impl<S: DeviceRepr> DeviceRepr for ScheduleArgs<S> {}

/// The surface estimator's schedule arguments (`SurfaceScheduleArgs` in surface/stages.cuh).
pub type SurfaceScheduleArgs = ScheduleArgs<DeviceSceneArgs>;

/// A path stored between bounces by the surface estimator (`StoredPath` in
/// surface/estimator.cuh): four 16-byte words.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct StoredPath {
    /// Origin, then the pixel index complemented (0: an empty slot).
    pub origin_pixel: [f32; 4],
    /// Direction, then the sample index.
    pub direction_sample: [f32; 4],
    /// Throughput, then the last BSDF pdf.
    pub throughput_pdf: [f32; 4],
    /// Radiance so far, then `bounce | last_delta << 31`.
    pub radiance_bounce: [f32; 4],
}

/// The compaction state of an in-kernel compacting launch: the compaction library's.
pub use crate::compaction::workspace::CompactionState;

/// The buffers of one wavefront extend launch (`WavefrontBuffers` in schedules/wavefront.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct WavefrontBuffers {
    /// The live paths of this bounce (the estimator's stored form).
    pub input: u64,
    /// Where the survivors go (== `input` for the in-place methods).
    pub output: u64,
    /// One byte per slot for the separate (OfK) pass, or 0.
    pub flags: u64,
    /// InK-Compact's intermediate buffer, or 0.
    pub intermediate: u64,
    pub state: CompactionState,
}

// SAFETY: `#[repr(C)]` Pod, layout asserted by schedules/wavefront.cuh; passed by value.
unsafe impl DeviceRepr for WavefrontBuffers {}

const _: () = assert!(size_of::<SurfaceScheduleArgs>() == 240);
const _: () = assert!(size_of::<StoredPath>() == 64);
const _: () = assert!(size_of::<WavefrontBuffers>() == 96);
// Wavefront buffers are held as the compaction library's 64-byte path element, so that the
// separate OfK pass (typed on it) can compact them; the bytes inside are a StoredPath.
const _: () = assert!(size_of::<StoredPath>() == size_of::<crate::compaction::elements::CompactPathState>());

/// Bytes of path state a stored path occupies (Wald's paths needed 88 + 16).
pub const STORED_PATH_BYTES: usize = size_of::<StoredPath>();

/// Device pointers of the multi-stage wavefront's arrays (`MultiStageQueues` in
/// schedules/multistage.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MultiStageQueues {
    pub origin_pixel: u64,
    pub direction_sample: u64,
    pub throughput_pdf: u64,
    pub radiance_bounce: u64,
    pub hits: u64,
    pub extend_in: u64,
    pub extend_out: u64,
    pub material_ids: u64,
    pub shadow_ids: u64,
    pub shadow_origin_tmax: u64,
    pub shadow_direction: u64,
    pub shadow_contribution: u64,
    pub finished_ids: u64,
    pub counts: u64,
    pub capacity: u32,
    pub _pad: u32,
}

// SAFETY: `#[repr(C)]` Pod, layout checked by kernels/generated/layout_checks.cuh; passed by value.
unsafe impl DeviceRepr for MultiStageQueues {}
const _: () = assert!(size_of::<MultiStageQueues>() == 120);
