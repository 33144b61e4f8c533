//! Typed launches of the traversal kernels of `kernels/traverse.cu` (seed 004, Aila & Laine
//! 2009/2012): one Rust function per kernel, each taking the uploaded BVH (warpath-cuda's
//! [`DeviceBvh`], the tree the estimators trace), a ray buffer and the hit buffer it fills.
//! Rays in, hits out; nothing else runs between. Benchmark kernels: the product traces rays
//! inside its estimators (`traversal/trace.cuh`), never through these.
//!
//! | [`TraversalKernel`]        | schedule                                                        |
//! |----------------------------|-----------------------------------------------------------------|
//! | `WhileWhile`               | one ray per thread; inner-node loop, then leaf loop              |
//! | `SpeculativeWhileWhile`    | one ray per thread; leaves postponed until the warp has one each |
//! | `PersistentDynamicFetch`   | persistent warps fetch rays from a global counter when fewer than `fetch_threshold` lanes are busy |
//! | `PostponedLeaves`          | persistent + dynamic fetch + postponed leaf testing (the 2012 kernel) |
//!
//! Each runs as closest hit ([`HitMode::Closest`]: the nearest `(t, triangle id)`) or any
//! hit ([`HitMode::Any`]: shadow rays, stop at the first hit). [`bench_traversal`] times one
//! kernel with CUDA events (warm-up, then the median of several runs) in Mrays/s.

use crate::catalog::{
    PersistentTraversalArgs, TRAVERSE_PERSISTENT_ANY, TRAVERSE_PERSISTENT_CLOSEST, TRAVERSE_POSTPONED_ANY,
    TRAVERSE_POSTPONED_CLOSEST, TRAVERSE_SPECULATIVE_ANY, TRAVERSE_SPECULATIVE_CLOSEST, TRAVERSE_WHILE_WHILE_ANY,
    TRAVERSE_WHILE_WHILE_CLOSEST, TraversalArgs,
};
use glam::Vec3;
use std::fmt;
use warpath_bvh::Bvh;
use warpath_core::math::Ray;
use warpath_cuda::kernel::Kernel;
use warpath_cuda::runtime::LaunchConfig;
use warpath_cuda::{CudaDevice, CudaError, CudaResult, DeviceBuffer, DeviceBvh, GpuBvh, GpuHit, GpuRay};

/// Threads per block of every traversal kernel (`WARPATH_TRAVERSAL_BLOCK`).
pub const TRAVERSAL_BLOCK_SIZE: u32 = 128;
/// Aila & Laine's dynamic-fetch threshold for 32-wide warps (2012 Kepler kernel).
pub const DEFAULT_FETCH_THRESHOLD: u32 = 20;

/// The traversal schedules (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraversalKernel {
    WhileWhile,
    SpeculativeWhileWhile,
    PersistentDynamicFetch,
    PostponedLeaves,
}

impl TraversalKernel {
    pub const ALL: [TraversalKernel; 4] = [
        TraversalKernel::WhileWhile,
        TraversalKernel::SpeculativeWhileWhile,
        TraversalKernel::PersistentDynamicFetch,
        TraversalKernel::PostponedLeaves,
    ];

    /// Short name for tables and the CLI (`while-while`, `speculative`, `persistent`, `postponed`).
    pub fn name(&self) -> &'static str {
        match self {
            TraversalKernel::WhileWhile => "while-while",
            TraversalKernel::SpeculativeWhileWhile => "speculative",
            TraversalKernel::PersistentDynamicFetch => "persistent",
            TraversalKernel::PostponedLeaves => "postponed",
        }
    }

    /// Parses [`TraversalKernel::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the kernel runs a persistent grid fed from a global ray counter.
    pub fn is_persistent(&self) -> bool {
        matches!(self, TraversalKernel::PersistentDynamicFetch | TraversalKernel::PostponedLeaves)
    }

    /// The one-ray-per-thread kernel for `mode` (None for the persistent schedules).
    fn one_ray_kernel(&self, mode: HitMode) -> Option<Kernel<TraversalArgs>> {
        use HitMode::*;
        use TraversalKernel::*;
        match (self, mode) {
            (WhileWhile, Closest) => Some(TRAVERSE_WHILE_WHILE_CLOSEST),
            (WhileWhile, Any) => Some(TRAVERSE_WHILE_WHILE_ANY),
            (SpeculativeWhileWhile, Closest) => Some(TRAVERSE_SPECULATIVE_CLOSEST),
            (SpeculativeWhileWhile, Any) => Some(TRAVERSE_SPECULATIVE_ANY),
            (PersistentDynamicFetch | PostponedLeaves, _) => None,
        }
    }

    /// The persistent kernel for `mode` (None for the one-ray-per-thread schedules).
    fn persistent_kernel(&self, mode: HitMode) -> Option<Kernel<PersistentTraversalArgs>> {
        use HitMode::*;
        use TraversalKernel::*;
        match (self, mode) {
            (PersistentDynamicFetch, Closest) => Some(TRAVERSE_PERSISTENT_CLOSEST),
            (PersistentDynamicFetch, Any) => Some(TRAVERSE_PERSISTENT_ANY),
            (PostponedLeaves, Closest) => Some(TRAVERSE_POSTPONED_CLOSEST),
            (PostponedLeaves, Any) => Some(TRAVERSE_POSTPONED_ANY),
            (WhileWhile | SpeculativeWhileWhile, _) => None,
        }
    }

    /// The `extern "C"` name of the kernel for `mode`.
    pub fn function_name(&self, mode: HitMode) -> &'static str {
        match (self.one_ray_kernel(mode), self.persistent_kernel(mode)) {
            (Some(kernel), _) => kernel.name(),
            (None, Some(kernel)) => kernel.name(),
            (None, None) => unreachable!("every schedule has a kernel per mode"),
        }
    }
}

impl fmt::Display for TraversalKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Closest hit or any hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HitMode {
    /// The nearest hit, ties in `t` to the lower triangle id.
    Closest,
    /// Some hit with `t` in `(t_min, t_max)` (shadow rays): stops at the first one found.
    Any,
}

impl fmt::Display for HitMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HitMode::Closest => "closest",
            HitMode::Any => "any",
        })
    }
}

/// Settings of the persistent kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PersistentSettings {
    /// A warp fetches new rays once fewer than this many of its lanes are busy (1..=32;
    /// 1 fetches only when the whole warp is idle).
    pub fetch_threshold: u32,
    /// Resident blocks per SM to launch (`None`: as many as the occupancy API allows).
    pub blocks_per_multiprocessor: Option<u32>,
}

impl Default for PersistentSettings {
    fn default() -> Self {
        PersistentSettings { fetch_threshold: DEFAULT_FETCH_THRESHOLD, blocks_per_multiprocessor: None }
    }
}

/// A ray batch and its result buffer on the device, plus the persistent kernels' counter.
pub struct TraversalBuffers {
    pub rays: DeviceBuffer<GpuRay>,
    pub hits: DeviceBuffer<GpuHit>,
    ray_counter: DeviceBuffer<u32>,
}

impl TraversalBuffers {
    /// Uploads `rays` and allocates as many hits.
    pub fn new(device: &CudaDevice, rays: &[GpuRay]) -> CudaResult<Self> {
        Ok(TraversalBuffers {
            rays: DeviceBuffer::from_slice(device, rays)?,
            hits: DeviceBuffer::zeroed(device, rays.len())?,
            ray_counter: DeviceBuffer::zeroed(device, 1)?,
        })
    }
}

/// Launches `kernel` in `mode` over every ray of `rays`, writing `hits[i]` for ray `i`.
/// `ray_counter` is only used (and reset) by the persistent kernels.
/// Checks a batch of `rays` rays against room for `hits` results and one launch's `int` count;
/// `Ok(false)` for an empty batch (nothing to launch).
pub(crate) fn check_batch(rays: usize, hits: usize) -> CudaResult<bool> {
    if hits < rays {
        return Err(CudaError::InvalidArgument(format!("{rays} rays but room for only {hits} hits")));
    }
    if rays > i32::MAX as usize {
        return Err(CudaError::InvalidArgument(format!("{rays} rays exceed one launch's 2^31 - 1")));
    }
    Ok(rays > 0)
}

/// One thread per ray, in blocks of [`TRAVERSAL_BLOCK_SIZE`].
pub(crate) fn one_ray_config(rays: usize) -> LaunchConfig {
    let blocks = (rays as u64).div_ceil(TRAVERSAL_BLOCK_SIZE as u64) as u32;
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (TRAVERSAL_BLOCK_SIZE, 1, 1), shared_mem_bytes: 0 }
}

/// Persistent threads: `per_sm` resident blocks on every SM, no more blocks than `rays` need.
pub(crate) fn persistent_config(device: &CudaDevice, per_sm: u32, rays: usize) -> LaunchConfig {
    let needed_blocks = (rays as u64).div_ceil(TRAVERSAL_BLOCK_SIZE as u64);
    let blocks = (device.info().multiprocessors as u64 * per_sm as u64).min(needed_blocks).max(1) as u32;
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (TRAVERSAL_BLOCK_SIZE, 1, 1), shared_mem_bytes: 0 }
}

#[allow(clippy::too_many_arguments)]
pub fn trace(
    device: &CudaDevice,
    bvh: &DeviceBvh,
    rays: &DeviceBuffer<GpuRay>,
    hits: &mut DeviceBuffer<GpuHit>,
    ray_counter: &mut DeviceBuffer<u32>,
    kernel: TraversalKernel,
    mode: HitMode,
    settings: &PersistentSettings,
) -> CudaResult<()> {
    if !check_batch(rays.len(), hits.len())? {
        return Ok(());
    }
    let ray_count = rays.len() as i32;
    if let Some(persistent) = kernel.persistent_kernel(mode) {
        if ray_counter.is_empty() {
            return Err(CudaError::InvalidArgument("the persistent kernels need a one-element ray counter".into()));
        }
        if !(1..=32).contains(&settings.fetch_threshold) {
            return Err(CudaError::InvalidArgument(format!(
                "fetch_threshold {} is outside 1..=32 (lanes of a warp)",
                settings.fetch_threshold
            )));
        }
        let function = device.entry_function(persistent.entry(), &persistent.program().source())?;
        ray_counter.clear(device)?;
        let per_sm = match settings.blocks_per_multiprocessor {
            Some(blocks) => blocks.max(1),
            None => device.blocks_per_multiprocessor(&function, TRAVERSAL_BLOCK_SIZE)?,
        };
        let config = persistent_config(device, per_sm, rays.len());
        let fetch_threshold = settings.fetch_threshold as i32;
        // Every buffer holds at least what the kernel reads or writes (checked above).
        let args = (
            bvh.nodes().raw().into(),
            bvh.triangles().raw().into(),
            bvh.triangle_ids().raw().into(),
            rays.raw().into(),
            hits.raw_mut().into(),
            ray_count,
            ray_counter.raw_mut().into(),
            fetch_threshold,
        );
        device.launch(persistent, config, args)
    } else {
        let one_ray = kernel.one_ray_kernel(mode).expect("a schedule is persistent or one ray per thread");
        let config = one_ray_config(rays.len());
        // `hits` holds at least `ray_count` results (checked above).
        let args = (
            bvh.nodes().raw().into(),
            bvh.triangles().raw().into(),
            bvh.triangle_ids().raw().into(),
            rays.raw().into(),
            hits.raw_mut().into(),
            ray_count,
        );
        device.launch(one_ray, config, args)
    }
}

macro_rules! typed_launch {
    ($(#[$doc:meta])* $name:ident, $kernel:expr, $mode:expr) => {
        $(#[$doc])*
        pub fn $name(device: &CudaDevice, bvh: &DeviceBvh, buffers: &mut TraversalBuffers) -> CudaResult<()> {
            let TraversalBuffers { rays, hits, ray_counter } = buffers;
            trace(device, bvh, rays, hits, ray_counter, $kernel, $mode, &PersistentSettings::default())
        }
    };
}

typed_launch!(
    /// `traverse_while_while_closest`: while-while traversal, closest hit.
    closest_while_while, TraversalKernel::WhileWhile, HitMode::Closest
);
typed_launch!(
    /// `traverse_while_while_any`: while-while traversal, any hit.
    any_while_while, TraversalKernel::WhileWhile, HitMode::Any
);
typed_launch!(
    /// `traverse_speculative_closest`: speculative while-while, closest hit.
    closest_speculative_while_while, TraversalKernel::SpeculativeWhileWhile, HitMode::Closest
);
typed_launch!(
    /// `traverse_speculative_any`: speculative while-while, any hit.
    any_speculative_while_while, TraversalKernel::SpeculativeWhileWhile, HitMode::Any
);
typed_launch!(
    /// `traverse_persistent_closest`: persistent threads with dynamic fetch, closest hit.
    closest_persistent_dynamic_fetch, TraversalKernel::PersistentDynamicFetch, HitMode::Closest
);
typed_launch!(
    /// `traverse_persistent_any`: persistent threads with dynamic fetch, any hit.
    any_persistent_dynamic_fetch, TraversalKernel::PersistentDynamicFetch, HitMode::Any
);
typed_launch!(
    /// `traverse_postponed_closest`: persistent + dynamic fetch + postponed leaves, closest hit.
    closest_postponed_leaves, TraversalKernel::PostponedLeaves, HitMode::Closest
);
typed_launch!(
    /// `traverse_postponed_any`: persistent + dynamic fetch + postponed leaves, any hit.
    any_postponed_leaves, TraversalKernel::PostponedLeaves, HitMode::Any
);

/// Uploads `rays`, traces them with `kernel` in `mode` and returns the hits (a convenience
/// for tests and one-off queries; batch work should keep [`TraversalBuffers`]).
pub fn trace_rays(
    device: &CudaDevice,
    bvh: &DeviceBvh,
    rays: &[GpuRay],
    kernel: TraversalKernel,
    mode: HitMode,
) -> CudaResult<Vec<GpuHit>> {
    let mut buffers = TraversalBuffers::new(device, rays)?;
    let TraversalBuffers { rays, hits, ray_counter } = &mut buffers;
    trace(device, bvh, rays, hits, ray_counter, kernel, mode, &PersistentSettings::default())?;
    buffers.hits.download(device)
}

/// How [`bench_traversal`] runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchOptions {
    pub mode: HitMode,
    /// Untimed launches first (module load, caches, clocks).
    pub warmup_runs: usize,
    /// Timed launches; the median is reported.
    pub timed_runs: usize,
    pub persistent: PersistentSettings,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            mode: HitMode::Closest,
            warmup_runs: 3,
            timed_runs: 10,
            persistent: PersistentSettings::default(),
        }
    }
}

/// The timing of one kernel on one ray batch.
#[derive(Clone, Debug, PartialEq)]
pub struct TraversalTiming {
    pub kernel: TraversalKernel,
    pub mode: HitMode,
    pub rays: usize,
    /// Each timed run, in milliseconds (CUDA events around the launch).
    pub run_ms: Vec<f32>,
    pub median_ms: f32,
    /// Millions of rays per second at the median time.
    pub mrays_per_second: f64,
    /// Rays that hit something (closest) or are occluded (any), from the last run.
    pub hit_count: usize,
    pub device: String,
}

/// Times `kernel` on `rays` against `bvh` (built over `tris`): converts and uploads the
/// tree and the rays, runs `warmup_runs` untimed launches, then `timed_runs` launches each
/// between two CUDA events, and reports the median. The persistent kernels' timed interval
/// includes the 4-byte reset of their ray counter (a memset of a few microseconds).
pub fn bench_traversal(
    device: &CudaDevice,
    bvh: &Bvh,
    tris: &[[Vec3; 3]],
    rays: &[Ray],
    kernel: TraversalKernel,
    options: &BenchOptions,
) -> CudaResult<TraversalTiming> {
    if options.timed_runs == 0 {
        return Err(CudaError::InvalidArgument("bench_traversal needs at least one timed run".into()));
    }
    let device_bvh = DeviceBvh::upload(device, &GpuBvh::from_bvh(bvh, tris)?)?;
    let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
    let mut buffers = TraversalBuffers::new(device, &gpu_rays)?;
    let TraversalBuffers { rays: ray_buffer, hits, ray_counter } = &mut buffers;
    let mut run = |device: &CudaDevice| {
        trace(device, &device_bvh, ray_buffer, hits, ray_counter, kernel, options.mode, &options.persistent)
    };
    // Warm-up with the configured launch checks; timed runs do not wait on the host between
    // the launch and the end event (a fault still shows when the event is read).
    let run_ms = device.time_runs(options.warmup_runs, options.timed_runs, || run(device))?;
    let median_ms = warpath_cuda::runtime::median(&run_ms);
    let hit_count = buffers.hits.download(device)?.iter().filter(|h| h.is_hit()).count();
    Ok(TraversalTiming {
        kernel,
        mode: options.mode,
        rays: rays.len(),
        run_ms,
        median_ms,
        mrays_per_second: if median_ms > 0.0 { rays.len() as f64 / (median_ms as f64 * 1e-3) / 1e6 } else { 0.0 },
        hit_count,
        device: device.info().name.clone(),
    })
}
