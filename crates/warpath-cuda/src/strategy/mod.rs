//! Path scheduling strategies (issue 5; seeds 000 and 003): every way warpath schedules its
//! paths on the GPU, over one shared device estimator (`kernels/surface/estimator.cuh`).
//! A strategy only decides which thread runs which path when; the paths themselves are a
//! pure function of (pixel, sample, bounce, dimension), so every strategy traces the same
//! paths and produces the same per-bounce counts and, up to float round-off in the order
//! the film's sums are added, the same image.
//!
//! [`StrategyRenderer`] uploads a scene once, holds the film and the counters, and runs a
//! progressive pass with the chosen [`Strategy`]:
//!
//! | name | what | kernels |
//! |---|---|---|
//! | `naive` | one thread per pixel traces whole paths (seed 000 B.1) | `megakernel.cu` |
//! | `wavefront*` | one bounce per launch, paths stored between launches, survivors compacted (seed 000 B.2) | `schedules/wavefront.cuh` |
//! | `tiled`, `tiled-shared` | a 64-thread block runs a 64×8 tile of paths to the end, compacting its live-path list (seed 000 B.3) | `schedules/tiled.cuh` |
//! | `regen-thread/warp/block` | persistent threads regenerating paths from a work counter (seed 003) | `schedules/regeneration.cuh` |
//! | `regen-device` | two kernels over a pool: regenerate dead slots, extend live ones (seed 003) | `schedules/regeneration.cuh` |
//! | `streaming-sk`, `sorted-sk` | block compaction plus regeneration in one persistent kernel; sorted: Morton order (seed 003) | `schedules/streaming.cuh` |
//! | `streaming-mk` | device compaction (InK-Collate) plus a regeneration kernel (seed 003) | `schedules/streaming.cuh` |
//! | `multistage` | a kernel per stage (intersect, shade per material, shadow, finish), SoA state and queues | `schedules/multistage.cuh` |
//!
//! Host loops with a launch per bounce or step live in submodules: `wavefront`
//! (whole-frame wavefronts), `pools` (regen-device, streaming-mk) and `multistage`.
//!
//! Kernel arguments: one [`ScheduleArgs`] (Rust owns the layout; `schedule.cuh` asserts it)
//! carries the scene's device pointers, the film, the counters and the wave being run.

mod multistage;
mod pools;
mod wavefront;

pub use multistage::{MULTISTAGE_BYTES_PER_PATH, MultiStageQueues};

use crate::buffer::DeviceBuffer;
use crate::compaction::{CompactPathState, CompactionWorkspace};
use crate::error::{CudaError, CudaResult};
use crate::kernels::{MEGAKERNEL, STRATEGIES};
use crate::layout::{LayoutEntry, layout_list};
use crate::megakernel::{DEFAULT_BLOCK, megakernel_render};
use crate::runtime::CudaDevice;
use crate::scene_upload::DeviceScene;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::{DeviceRepr, LaunchConfig, PushKernelArg};
use glam::Vec3;
use multistage::MultiStageBuffers;
use std::mem::size_of;
use warpath_bvh::{BuildKind, BuildOptions, Bvh};
use warpath_core::film::Film;
use warpath_scene::{RenderSettings, Scene};

/// How the whole-frame wavefront compacts its surviving paths after each bounce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WavefrontCompaction {
    /// No compaction: every launch covers the whole wave, dead slots are skipped.
    None,
    /// InK-Collate at the end of the extend kernel (seed 001 §2.4).
    Collate,
    /// Order-preserving decoupled look-back at the end of the extend kernel.
    Lookback,
    /// A separate out-of-kernel pass (OfK) after the extend kernel.
    Separate,
    /// InK-Collate after a block-level Morton sort of the survivors.
    Sorted,
    /// InK-Compact at the end of the extend kernel: order kept by sections of 32 blocks.
    Sections,
}

/// A path scheduling strategy (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    Naive,
    Wavefront(WavefrontCompaction),
    Tiled,
    TiledShared,
    RegenThread,
    RegenWarp,
    RegenBlock,
    RegenDevice,
    StreamingSk,
    SortedSk,
    StreamingMk,
    MultiStage,
}

impl Strategy {
    /// Every strategy, in the order the benchmark reports them.
    pub const ALL: [Strategy; 17] = [
        Strategy::Naive,
        Strategy::Wavefront(WavefrontCompaction::Collate),
        Strategy::Wavefront(WavefrontCompaction::Lookback),
        Strategy::Wavefront(WavefrontCompaction::Sections),
        Strategy::Wavefront(WavefrontCompaction::Separate),
        Strategy::Wavefront(WavefrontCompaction::None),
        Strategy::Wavefront(WavefrontCompaction::Sorted),
        Strategy::Tiled,
        Strategy::TiledShared,
        Strategy::RegenThread,
        Strategy::RegenWarp,
        Strategy::RegenBlock,
        Strategy::RegenDevice,
        Strategy::StreamingSk,
        Strategy::SortedSk,
        Strategy::StreamingMk,
        Strategy::MultiStage,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Naive => "naive",
            Strategy::Wavefront(WavefrontCompaction::Collate) => "wavefront",
            Strategy::Wavefront(WavefrontCompaction::Lookback) => "wavefront-lookback",
            Strategy::Wavefront(WavefrontCompaction::Sections) => "wavefront-inkcompact",
            Strategy::Wavefront(WavefrontCompaction::Separate) => "wavefront-ofk",
            Strategy::Wavefront(WavefrontCompaction::None) => "wavefront-nocompact",
            Strategy::Wavefront(WavefrontCompaction::Sorted) => "wavefront-sorted",
            Strategy::Tiled => "tiled",
            Strategy::TiledShared => "tiled-shared",
            Strategy::RegenThread => "regen-thread",
            Strategy::RegenWarp => "regen-warp",
            Strategy::RegenBlock => "regen-block",
            Strategy::RegenDevice => "regen-device",
            Strategy::StreamingSk => "streaming-sk",
            Strategy::SortedSk => "sorted-sk",
            Strategy::StreamingMk => "streaming-mk",
            Strategy::MultiStage => "multistage",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// One line for `--help` and the benchmark tables.
    pub fn description(self) -> &'static str {
        match self {
            Strategy::Naive => "megakernel, one thread per pixel traces whole paths (seed 000 B.1)",
            Strategy::Wavefront(WavefrontCompaction::Collate) => {
                "one bounce per launch, survivors compacted in-kernel by InK-Collate (seed 000 B.2, 001)"
            }
            Strategy::Wavefront(WavefrontCompaction::Lookback) => {
                "wavefront, in-kernel order-preserving compaction by decoupled look-back"
            }
            Strategy::Wavefront(WavefrontCompaction::Sections) => {
                "wavefront, in-kernel order-preserving InK-Compact (sections of 32 blocks, seed 001)"
            }
            Strategy::Wavefront(WavefrontCompaction::Separate) => {
                "wavefront, survivors flagged in place and compacted by a separate OfK pass"
            }
            Strategy::Wavefront(WavefrontCompaction::None) => "wavefront without compaction (dead slots skipped)",
            Strategy::Wavefront(WavefrontCompaction::Sorted) => {
                "wavefront, survivors Morton-sorted per block then collated (seed 003 reordering)"
            }
            Strategy::Tiled => "64-thread blocks run 64x8-path tiles to the end, state in global memory (seed 000 B.3)",
            Strategy::TiledShared => "tiled, path state in shared memory (seed 000 B.3)",
            Strategy::RegenThread => "persistent threads, a thread regenerates as soon as its path ends (seed 003)",
            Strategy::RegenWarp => "persistent threads, a warp regenerates when all its paths ended (seed 003)",
            Strategy::RegenBlock => "persistent threads, the block regenerates its idle threads each bounce (seed 003)",
            Strategy::RegenDevice => "two kernels over a pool: regenerate dead slots, extend live ones (seed 003)",
            Strategy::StreamingSk => "one persistent kernel: block compaction plus regeneration (seed 003 streamingSK)",
            Strategy::SortedSk => "streaming-sk storing survivors in Morton order of their origins (seed 003)",
            Strategy::StreamingMk => {
                "device compaction (InK-Collate) plus a regeneration kernel (seed 003 streamingMK)"
            }
            Strategy::MultiStage => {
                "a kernel per stage (intersect, shade per material, shadow rays), SoA paths and queues (Laine et al. 2013)"
            }
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The arguments of every strategy kernel (`ScheduleArgs` in `schedules/schedule.cuh`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ScheduleArgs {
    /// `DeviceScene` (scene.cuh): device pointers in its field order.
    pub scene: [u64; 18],
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
}

// SAFETY: a `#[repr(C)]` Pod struct whose layout `schedule.cuh` asserts field by field;
// it is passed by value as the kernels' first parameter.
unsafe impl DeviceRepr for ScheduleArgs {}

/// A path stored between bounces (`StoredPath` in schedule.cuh): four 16-byte words.
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

const _: () = assert!(size_of::<ScheduleArgs>() == 240);
const _: () = assert!(size_of::<StoredPath>() == 64);
// Wavefront buffers are held as the compaction library's 64-byte path element, so that the
// separate OfK pass (typed on it) can compact them; the bytes inside are a StoredPath.
const _: () = assert!(size_of::<StoredPath>() == size_of::<CompactPathState>());

/// Bytes of path state a stored path occupies (Wald's paths needed 88 + 16).
pub const STORED_PATH_BYTES: usize = size_of::<StoredPath>();

/// Sizes and offsets in the order `strategies_layout_report` writes them.
pub fn layout_entries() -> Vec<LayoutEntry> {
    layout_list! {
        ScheduleArgs {
            scene, film_sum, film_sum_sq, film_count, counters, work, morton_lo, morton_scale, first_sample,
            padded_pixels, tiles_x, width, height, path_base, wave_paths, _pad
        }
        StoredPath {}
        MultiStageQueues {
            origin_pixel, direction_sample, throughput_pdf, radiance_bounce, hits, extend_in, extend_out,
            material_ids, shadow_ids, shadow_origin_tmax, shadow_direction, shadow_contribution, finished_ids,
            counts, capacity, _pad
        }
    }
}

/// The device compiler's view of [`layout_entries`] (GPU test).
pub fn device_layout_report(device: &CudaDevice) -> CudaResult<Vec<u64>> {
    crate::layout::run_layout_report(device, &STRATEGIES, "strategies_layout_report", 64)
}

/// Every kernel of `strategies.cu` the Rust side launches (checked by `kernels_compile`).
pub const KERNEL_NAMES: &[&str] = &[
    "wavefront_extend_none",
    "wavefront_extend_collate",
    "wavefront_extend_lookback",
    "wavefront_extend_separate",
    "wavefront_extend_sorted",
    "wavefront_extend_sections",
    "regen_thread",
    "regen_warp",
    "regen_block",
    "regen_device_fill_kernel",
    "regen_device_extend_kernel",
    "tiled_global",
    "tiled_shared",
    "streaming_sk_scan",
    "streaming_sk_sorted",
    "streaming_mk_regen_kernel",
    "multistage_generate_kernel",
    "multistage_intersect_kernel",
    "multistage_shade_kernel",
    "multistage_shadow_kernel",
    "multistage_finish_kernel",
    "strategies_layout_report",
];

/// Threads per block of the wavefront, regeneration and streaming kernels.
const BLOCK: u32 = 256;
/// Threads per block and paths per tile of the tiled kernels (seed 000: 64 × M, M = 8).
const TILED_THREADS: u32 = 64;
const TILED_PATHS: u32 = 64 * 8;
/// The most paths one wave holds by default: 2^24 (multi-stage: 176 B per path, 2.8 GiB),
/// less where a quarter of the free device memory would not hold them (see
/// [`StrategyRenderer::new`]). Bigger waves fill the GPU better in the last bounces
/// (docs/benchmarks/strategies.md).
pub const DEFAULT_WAVE_PATHS: u32 = 1 << 24;
/// Path pools of regen-device and streaming-mk hold this many times the threads the GPU
/// keeps resident for their extend kernel (1: seed 003's pool of one path per thread).
pub const DEFAULT_POOL_FACTOR: u32 = 8;

/// Counters of the estimator, as the CPU reference's `PathCounters` defines them, plus the
/// SIMT view: warps entering `extend` per bounce and their clock64 cycles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    /// Paths entering `extend` at each bounce (trailing zero bounces trimmed, as on the CPU).
    pub active_per_bounce: Vec<u64>,
    /// Warp executions of `extend` per bounce (a warp counts once per bounce among its lanes).
    pub active_warps_per_bounce: Vec<u64>,
    /// Sum over those warp executions of their cycles (the slowest lane's, per warp).
    pub warp_cycles_per_bounce: Vec<u64>,
    /// Extension rays traced (camera rays included).
    pub extension_rays: u64,
    pub shadow_rays: u64,
}

/// The film on the device: 3 floats of sum and of squared sum, one count, per pixel.
pub(crate) struct DeviceFilm {
    pub(crate) sum: DeviceBuffer<[f32; 3]>,
    pub(crate) sum_sq: DeviceBuffer<[f32; 3]>,
    pub(crate) count: DeviceBuffer<u32>,
}

/// Kernel times of a strategy with per-bounce launches (wavefront): milliseconds per bounce
/// of the extend kernel, and of the separate compaction pass where there is one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchTimes {
    pub extend_ms_per_bounce: Vec<f64>,
    pub compaction_ms_per_bounce: Vec<f64>,
    /// Multi-stage wavefront: total milliseconds per stage kernel, in launch order.
    pub stage_ms: Vec<(&'static str, f64)>,
}

impl LaunchTimes {
    fn add_stage(&mut self, stage: &'static str, ms: f64) {
        match self.stage_ms.iter_mut().find(|(name, _)| *name == stage) {
            Some((_, total)) => *total += ms,
            None => self.stage_ms.push((stage, ms)),
        }
    }
}

/// A scene uploaded for the GPU strategies, with its film, counters and path buffers.
pub struct StrategyRenderer<'d> {
    device: &'d CudaDevice,
    pub scene: DeviceScene,
    film: DeviceFilm,
    /// `[extension, shadow, paths 0..=D, warps 0..=D, cycles 0..=D]` when instrumentation is on.
    counters: Option<DeviceBuffer<u64>>,
    block: (u32, u32),
    strategy: Strategy,
    max_wave_paths: u32,
    pool_factor: u32,
    work: DeviceBuffer<u32>,
    /// Path buffers: two of a wave (or pool) and InK-Compact's intermediate one.
    paths: [Option<DeviceBuffer<CompactPathState>>; 3],
    flags: Option<DeviceBuffer<u8>>,
    compaction: Option<CompactionWorkspace>,
    separate_compaction: Option<CompactionWorkspace>,
    times: Option<LaunchTimes>,
    multistage: Option<MultiStageBuffers>,
}

impl<'d> StrategyRenderer<'d> {
    /// Builds the BVH (`bvh_kind`) over the scene's triangles, converts and uploads it with
    /// the scene and its lights, and allocates a zeroed film of `settings.width × height`.
    /// The strategy starts as [`Strategy::Naive`].
    pub fn new(
        device: &'d CudaDevice,
        scene: &Scene,
        settings: &RenderSettings,
        bvh_kind: BuildKind,
    ) -> CudaResult<Self> {
        let soup = scene.triangle_soup();
        let (bvh, _) = Bvh::build(&soup, &BuildOptions { kind: bvh_kind, ..Default::default() });
        let lights = scene.light_set();
        let scene = DeviceScene::upload(device, scene, &lights, &bvh, settings)?;
        let pixels = settings.width as usize * settings.height as usize;
        let film = DeviceFilm {
            sum: DeviceBuffer::zeroed(device, pixels)?,
            sum_sq: DeviceBuffer::zeroed(device, pixels)?,
            count: DeviceBuffer::zeroed(device, pixels)?,
        };
        Ok(StrategyRenderer {
            device,
            scene,
            film,
            counters: None,
            block: DEFAULT_BLOCK,
            strategy: Strategy::Naive,
            max_wave_paths: default_wave_paths(device),
            pool_factor: DEFAULT_POOL_FACTOR,
            work: DeviceBuffer::zeroed(device, 2)?,
            paths: [None, None, None],
            flags: None,
            compaction: None,
            separate_compaction: None,
            times: None,
            multistage: None,
        })
    }

    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Chooses the strategy of the next passes (the film and counters are kept).
    pub fn set_strategy(&mut self, strategy: Strategy) {
        self.strategy = strategy;
    }

    /// The naive megakernel's threads per block in x and y (at most 1024 in all).
    pub fn set_block_size(&mut self, block: (u32, u32)) -> CudaResult<()> {
        if block.0 == 0 || block.1 == 0 || block.0 as u64 * block.1 as u64 > 1024 {
            return Err(CudaError::InvalidArgument(format!(
                "a {}×{} block: each side must be positive, 1024 threads at most",
                block.0, block.1
            )));
        }
        self.block = block;
        Ok(())
    }

    pub fn block_size(&self) -> (u32, u32) {
        self.block
    }

    /// The most paths one wave holds (path buffers grow to it); at least one 8×8 tile.
    pub fn set_max_wave_paths(&mut self, paths: u32) {
        self.max_wave_paths = paths.max(TILED_PATHS);
    }

    pub fn max_wave_paths(&self) -> u32 {
        self.max_wave_paths
    }

    /// Pool size of regen-device and streaming-mk, in multiples of the extend kernel's
    /// resident threads (at least 1).
    pub fn set_pool_factor(&mut self, factor: u32) {
        self.pool_factor = factor.max(1);
    }

    /// Turns the per-bounce path counters on (zeroed) or off.
    pub fn set_instrumentation(&mut self, enabled: bool) -> CudaResult<()> {
        self.counters = if enabled {
            let slots = 2 + 3 * (self.scene.params.max_depth as usize + 1);
            Some(DeviceBuffer::zeroed(self.device, slots)?)
        } else {
            None
        };
        Ok(())
    }

    /// Turns kernel timing (CUDA events; per bounce for the wavefronts, per stage for
    /// multistage) on or off.
    pub fn set_launch_timing(&mut self, enabled: bool) {
        self.times = enabled.then(LaunchTimes::default);
    }

    /// Kernel times so far (empty unless timing is on and a wavefront or multistage ran).
    pub fn launch_times(&self) -> LaunchTimes {
        self.times.clone().unwrap_or_default()
    }

    /// Zeroes the film, the counters and the launch times.
    pub fn reset(&mut self) -> CudaResult<()> {
        self.film.sum.clear(self.device)?;
        self.film.sum_sq.clear(self.device)?;
        self.film.count.clear(self.device)?;
        if let Some(counters) = &mut self.counters {
            counters.clear(self.device)?;
        }
        if let Some(times) = &mut self.times {
            *times = LaunchTimes::default();
        }
        Ok(())
    }

    /// Adds samples `first_sample .. first_sample + count` of every pixel to the film.
    pub fn render_pass(&mut self, first_sample: u32, count: u32) -> CudaResult<()> {
        if first_sample.checked_add(count).is_none() {
            return Err(CudaError::InvalidArgument(format!(
                "samples {first_sample} + {count} overflow the 32-bit sample index"
            )));
        }
        if count == 0 {
            return Ok(());
        }
        if self.strategy == Strategy::Naive {
            let counters = self.counters.as_mut();
            return megakernel_render(
                self.device,
                &self.scene,
                &mut self.film,
                counters,
                self.block,
                first_sample,
                count,
            );
        }
        let (width, height) = (self.scene.params.width, self.scene.params.height);
        let tiles_x = width.div_ceil(8);
        let padded = tiles_x as u64 * height.div_ceil(8) as u64 * 64;
        if padded > u32::MAX as u64 {
            return Err(CudaError::InvalidArgument(format!("a {width}×{height} film is too large for one pass")));
        }
        let padded = padded as u32;
        // Samples per pass of path indices (which must fit 32 bits), then waves inside it.
        let samples_per_pass = ((u32::MAX as u64 / padded as u64).max(1) as u32).min(count);
        let mut done = 0;
        while done < count {
            let samples = samples_per_pass.min(count - done);
            let pass_paths = padded * samples;
            let mut base = 0u32;
            while base < pass_paths {
                let wave = self.max_wave_paths.min(pass_paths - base);
                let args = self.args(first_sample + done, padded, tiles_x, base, wave);
                self.run_wave(&args)?;
                base += wave;
            }
            done += samples;
        }
        Ok(())
    }

    fn args(&self, first_sample: u32, padded_pixels: u32, tiles_x: u32, path_base: u32, wave: u32) -> ScheduleArgs {
        let device = self.device;
        let (lo, hi) = self.scene.bounds;
        let scale = |k: usize| {
            let extent = hi[k] - lo[k];
            if extent > 0.0 { 1024.0 / extent } else { 0.0 }
        };
        ScheduleArgs {
            scene: self.scene.pointers(device),
            film_sum: self.film.sum.address(device),
            film_sum_sq: self.film.sum_sq.address(device),
            film_count: self.film.count.address(device),
            counters: self.counters.as_ref().map_or(0, |c| c.address(device)),
            work: self.work.address(device),
            morton_lo: lo,
            morton_scale: [scale(0), scale(1), scale(2)],
            first_sample,
            padded_pixels,
            tiles_x,
            width: self.scene.params.width,
            height: self.scene.params.height,
            path_base,
            wave_paths: wave,
            _pad: 0,
        }
    }

    /// Path buffer `index` with room for `len` paths (grown, never shrunk; zeroed, i.e. all
    /// slots dead, only when allocated).
    fn path_buffer(&mut self, index: usize, len: usize) -> CudaResult<u64> {
        let device = self.device;
        let slot = &mut self.paths[index];
        if slot.as_ref().is_none_or(|b| b.len() < len) {
            *slot = None; // free first: the old and the new buffer need not fit together
            *slot = Some(DeviceBuffer::zeroed(device, len)?);
        }
        Ok(slot.as_ref().map(|b| b.address(device)).unwrap_or(0))
    }

    fn resident_grid(&self, kernel: &'static str, block: u32) -> CudaResult<u32> {
        let function = self.device.function(&STRATEGIES, kernel)?;
        let per_sm = self.device.blocks_per_multiprocessor(&function, block)?;
        Ok(per_sm * self.device.info().multiprocessors)
    }

    /// Launches `kernel(ScheduleArgs, pointers..., words...)` on a 1D grid.
    fn launch(
        &self,
        kernel: &'static str,
        grid: u32,
        block: u32,
        args: &ScheduleArgs,
        pointers: &[u64],
        words: &[u32],
    ) -> CudaResult<()> {
        self.launch_kernel(kernel, grid, block, args, None::<&MultiStageQueues>, pointers, words)
    }

    /// Launches `kernel(ScheduleArgs[, queues], pointers..., words...)` on a 1D grid.
    #[allow(clippy::too_many_arguments)]
    fn launch_kernel<Q: DeviceRepr>(
        &self,
        kernel: &'static str,
        grid: u32,
        block: u32,
        args: &ScheduleArgs,
        queues: Option<&Q>,
        pointers: &[u64],
        words: &[u32],
    ) -> CudaResult<()> {
        if grid == 0 {
            return Ok(());
        }
        let function = self.device.function(&STRATEGIES, kernel)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(args);
        if let Some(queues) = queues {
            launch.arg(queues);
        }
        for pointer in pointers {
            launch.arg(pointer);
        }
        for word in words {
            launch.arg(word);
        }
        let config = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: every caller passes the parameters of `kernel`'s signature in strategies.cu
        // (the ScheduleArgs, the multi-stage queues where the kernel takes them, then its
        // pointers, then its 32-bit words); the buffers behind the addresses were sized by
        // the caller for the grid it launches (multi-stage: every queue array holds the
        // wave's paths, material_ids 8×, and each grid covers at most the queue length the
        // kernel bounds-checks against).
        let launched = unsafe { launch.launch(config) };
        self.device.check_launch(kernel, launched)
    }

    fn reset_work(&mut self, next: u32, live: u32) -> CudaResult<()> {
        self.work.upload(self.device, &[next, live])
    }

    fn read_work(&self) -> CudaResult<[u32; 2]> {
        let values = self.work.download(self.device)?;
        Ok([values[0], values[1]])
    }

    fn run_wave(&mut self, args: &ScheduleArgs) -> CudaResult<()> {
        self.reset_work(0, 0)?;
        let wave = args.wave_paths;
        match self.strategy {
            Strategy::Naive => unreachable!("the naive strategy runs the megakernel"),
            Strategy::Wavefront(method) => self.run_wavefront(args, method),
            Strategy::Tiled => {
                let tiles = wave.div_ceil(TILED_PATHS);
                let memory = self.path_buffer(0, tiles as usize * TILED_PATHS as usize)?;
                self.launch("tiled_global", tiles, TILED_THREADS, args, &[memory], &[])
            }
            Strategy::TiledShared => {
                self.launch("tiled_shared", wave.div_ceil(TILED_PATHS), TILED_THREADS, args, &[], &[])
            }
            Strategy::RegenThread | Strategy::RegenWarp | Strategy::RegenBlock => {
                let kernel = match self.strategy {
                    Strategy::RegenThread => "regen_thread",
                    Strategy::RegenWarp => "regen_warp",
                    _ => "regen_block",
                };
                let grid = self.resident_grid(kernel, BLOCK)?;
                self.launch(kernel, grid, BLOCK, args, &[], &[])
            }
            Strategy::RegenDevice => self.run_regen_device(args),
            Strategy::StreamingSk | Strategy::SortedSk => {
                let kernel =
                    if self.strategy == Strategy::SortedSk { "streaming_sk_sorted" } else { "streaming_sk_scan" };
                let grid = self.resident_grid(kernel, BLOCK)?;
                let pool = self.path_buffer(0, grid as usize * BLOCK as usize)?;
                self.launch(kernel, grid, BLOCK, args, &[pool], &[])
            }
            Strategy::StreamingMk => self.run_streaming_mk(args),
            Strategy::MultiStage => self.run_multistage(args),
        }
    }

    /// The film so far.
    pub fn download_film(&self) -> CudaResult<Film> {
        let (width, height) = (self.scene.params.width, self.scene.params.height);
        let mut film = Film::new(width, height);
        film.sum = self.film.sum.download(self.device)?.into_iter().map(Vec3::from_array).collect();
        film.sum_sq = self.film.sum_sq.download(self.device)?.into_iter().map(Vec3::from_array).collect();
        film.count = self.film.count.download(self.device)?;
        Ok(film)
    }

    /// The counters so far (all zero when instrumentation is off).
    pub fn counters(&self) -> CudaResult<PathCounters> {
        let Some(buffer) = &self.counters else { return Ok(PathCounters::default()) };
        let values = buffer.download(self.device)?;
        Ok(parse_counters(&values, self.scene.params.max_depth as usize + 1))
    }

    /// Registers, local memory, static shared memory and resident blocks per SM of the
    /// kernels a strategy launches.
    pub fn kernel_resources(&self, strategy: Strategy) -> CudaResult<Vec<KernelResources>> {
        let names: &[(&'static str, u32)] = match strategy {
            Strategy::Naive => &[("megakernel_render", 64)],
            Strategy::Wavefront(WavefrontCompaction::None) => &[("wavefront_extend_none", BLOCK)],
            Strategy::Wavefront(WavefrontCompaction::Collate) => &[("wavefront_extend_collate", BLOCK)],
            Strategy::Wavefront(WavefrontCompaction::Lookback) => &[("wavefront_extend_lookback", BLOCK)],
            Strategy::Wavefront(WavefrontCompaction::Separate) => &[("wavefront_extend_separate", BLOCK)],
            Strategy::Wavefront(WavefrontCompaction::Sorted) => &[("wavefront_extend_sorted", BLOCK)],
            Strategy::Wavefront(WavefrontCompaction::Sections) => &[("wavefront_extend_sections", BLOCK)],
            Strategy::Tiled => &[("tiled_global", TILED_THREADS)],
            Strategy::TiledShared => &[("tiled_shared", TILED_THREADS)],
            Strategy::RegenThread => &[("regen_thread", BLOCK)],
            Strategy::RegenWarp => &[("regen_warp", BLOCK)],
            Strategy::RegenBlock => &[("regen_block", BLOCK)],
            Strategy::RegenDevice => &[("regen_device_fill_kernel", BLOCK), ("regen_device_extend_kernel", BLOCK)],
            Strategy::StreamingSk => &[("streaming_sk_scan", BLOCK)],
            Strategy::SortedSk => &[("streaming_sk_sorted", BLOCK)],
            Strategy::StreamingMk => &[("streaming_mk_regen_kernel", BLOCK), ("wavefront_extend_collate", BLOCK)],
            Strategy::MultiStage => &[
                ("multistage_generate_kernel", BLOCK),
                ("multistage_intersect_kernel", BLOCK),
                ("multistage_shade_kernel", BLOCK),
                ("multistage_shadow_kernel", BLOCK),
                ("multistage_finish_kernel", BLOCK),
            ],
        };
        names
            .iter()
            .map(|&(name, block)| {
                let source = if strategy == Strategy::Naive { &MEGAKERNEL } else { &STRATEGIES };
                let function = self.device.function(source, name)?;
                let attribute = |attribute| {
                    function.get_attribute(attribute).map_err(|e| CudaError::driver("cuFuncGetAttribute", e))
                };
                use cudarc::driver::sys::CUfunction_attribute as A;
                Ok(KernelResources {
                    kernel: name,
                    block,
                    registers: attribute(A::CU_FUNC_ATTRIBUTE_NUM_REGS)? as u32,
                    local_bytes: attribute(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)? as u32,
                    shared_bytes: attribute(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)? as u32,
                    blocks_per_sm: self.device.blocks_per_multiprocessor(&function, block)?,
                })
            })
            .collect()
    }
}

/// What one kernel uses of an SM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelResources {
    pub kernel: &'static str,
    /// Threads per block it is launched with.
    pub block: u32,
    pub registers: u32,
    /// Local memory per thread (spills and stack).
    pub local_bytes: u32,
    /// Static shared memory per block.
    pub shared_bytes: u32,
    pub blocks_per_sm: u32,
}

impl KernelResources {
    /// Resident warps per SM over the maximum of 64 (Hopper).
    pub fn occupancy(&self) -> f64 {
        (self.blocks_per_sm * self.block.div_ceil(32)) as f64 / 64.0
    }
}

/// [`DEFAULT_WAVE_PATHS`], or fewer so that the largest per-path footprint (multi-stage)
/// of a wave takes at most a quarter of the free device memory.
fn default_wave_paths(device: &CudaDevice) -> u32 {
    let free = device.memory_info().map(|(free, _)| free).unwrap_or(0);
    let fitting = (free / 4 / MULTISTAGE_BYTES_PER_PATH) as u64;
    let paths = fitting.min(DEFAULT_WAVE_PATHS as u64) as u32;
    (paths / TILED_PATHS * TILED_PATHS).max(TILED_PATHS)
}

fn add_at(values: &mut Vec<f64>, index: usize, value: f64) {
    if values.len() <= index {
        values.resize(index + 1, 0.0);
    }
    values[index] += value;
}

/// Splits the counter slots (`[ext, shadow, paths × S, warps × S, cycles × S]`).
fn parse_counters(values: &[u64], slots: usize) -> PathCounters {
    let table = |k: usize| values.get(2 + k * slots..2 + (k + 1) * slots).map(<[u64]>::to_vec).unwrap_or_default();
    let mut active_per_bounce = table(0);
    while active_per_bounce.last() == Some(&0) {
        active_per_bounce.pop();
    }
    let bounces = active_per_bounce.len();
    let mut active_warps_per_bounce = table(1);
    let mut warp_cycles_per_bounce = table(2);
    active_warps_per_bounce.truncate(bounces);
    warp_cycles_per_bounce.truncate(bounces);
    PathCounters {
        active_per_bounce,
        active_warps_per_bounce,
        warp_cycles_per_bounce,
        extension_rays: values.first().copied().unwrap_or(0),
        shadow_rays: values.get(1).copied().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for strategy in Strategy::ALL {
            assert_eq!(Strategy::from_name(strategy.name()), Some(strategy));
            assert!(seen.insert(strategy.name()), "duplicate name {}", strategy.name());
            assert!(!strategy.description().is_empty());
        }
        assert_eq!(Strategy::from_name("no-such-strategy"), None);
    }

    /// schedule.cuh's static_asserts state exactly Rust's sizes and offsets.
    #[test]
    fn header_static_asserts_match_rust_layout() {
        let header = concat!(
            include_str!("../../kernels/schedules/schedule.cuh"),
            include_str!("../../kernels/schedules/multistage.cuh")
        );
        let missing = crate::layout::missing_header_asserts(header, &layout_entries());
        assert!(missing.is_empty(), "schedules/schedule.cuh lacks static_assert for: {missing:?}");
    }

    #[test]
    fn counters_split_into_three_tables() {
        // max_depth 2: S = 3 slots per table.
        let values = [10, 4, 6, 3, 0, 2, 1, 0, 600, 300, 0];
        let counters = parse_counters(&values, 3);
        assert_eq!(counters.extension_rays, 10);
        assert_eq!(counters.shadow_rays, 4);
        assert_eq!(counters.active_per_bounce, vec![6, 3]);
        assert_eq!(counters.active_warps_per_bounce, vec![2, 1]);
        assert_eq!(counters.warp_cycles_per_bounce, vec![600, 300]);
    }
}
