//! Typed launches of `traverse.cu`'s kernels over the compressed 8-wide BVH (Ylitie, Karras and
//! Laine, HPG 2017; warpath-cuda's [`DeviceWideBvh`], the tree `--bvh-layout wide8` renders
//! trace; `traversal/wide.cuh`): closest and any hit, one ray per thread or persistent threads
//! with dynamic fetch ([`WideSchedule`]), with [`bench_wide_traversal`] timing them as
//! [`crate::traverse::bench_traversal`] times the binary ones. Rays in, hits out. A tree
//! converted with Woop's triangles (`GpuWideBvh::from_wide_with(.., WideTriangles::Woop)`) is
//! traced by the `traverse_wide_woop_*` twins of each kernel (`traversal/woop.cuh`): the
//! launches below pick them by [`DeviceWideBvh::triangle_layout`].

use crate::catalog::{
    TRAVERSE_WIDE_ANY, TRAVERSE_WIDE_CLOSEST, TRAVERSE_WIDE_PERSISTENT_ANY, TRAVERSE_WIDE_PERSISTENT_CLOSEST,
    TRAVERSE_WIDE_WOOP_ANY, TRAVERSE_WIDE_WOOP_CLOSEST, TRAVERSE_WIDE_WOOP_PERSISTENT_ANY,
    TRAVERSE_WIDE_WOOP_PERSISTENT_CLOSEST,
};
use crate::traverse::{
    DEFAULT_FETCH_THRESHOLD, HitMode, TRAVERSAL_BLOCK_SIZE, check_batch, one_ray_config, persistent_config,
};
use warpath_core::math::Ray;
use warpath_cuda::wide_bvh::WideTriangles;

/// Most stack entries a ray may keep in shared memory: a block's share must fit the 48 KiB of
/// dynamic shared memory a launch gets without opting in (8 bytes an entry, a thread each).
const MAX_SHARED_ENTRIES: u32 = 48 * 1024 / (8 * TRAVERSAL_BLOCK_SIZE);
use warpath_cuda::{CudaDevice, CudaError, CudaResult, DeviceBuffer, DeviceWideBvh, GpuHit, GpuRay};

/// The wide kernels' schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WideSchedule {
    /// One ray per thread (`traverse_wide_closest` / `_any`).
    OneRay,
    /// Persistent warps with dynamic fetch (`traverse_wide_persistent_*`), postponing triangle
    /// groups while at most `postpone_lanes` 32nds of the stepping lanes have triangles (0: never),
    /// the first `shared_entries` of each ray's stack in shared memory (0: all in local memory).
    Persistent { fetch_threshold: u32, postpone_lanes: u32, shared_entries: u32 },
}

impl WideSchedule {
    /// The schedules `bench traversal` times: one ray per thread, persistent without and with
    /// postponing (the paper's threshold, about 20% of the lanes), and with the top 8 entries of
    /// the stack in shared memory (4 and 16 measured no better: docs/benchmarks/traversal.md).
    pub const BENCHMARKED: [WideSchedule; 4] =
        [WideSchedule::OneRay, Self::persistent(0, 0), Self::persistent(6, 0), Self::persistent(0, 8)];

    /// Persistent threads at the default fetch threshold.
    pub const fn persistent(postpone_lanes: u32, shared_entries: u32) -> Self {
        WideSchedule::Persistent { fetch_threshold: DEFAULT_FETCH_THRESHOLD, postpone_lanes, shared_entries }
    }

    /// `while-while`, `persistent`, `persistent-postpone6`, `persistent-shared8`, ...
    pub fn name(&self) -> String {
        match *self {
            WideSchedule::OneRay => "while-while".into(),
            WideSchedule::Persistent { postpone_lanes, shared_entries, .. } => {
                let mut name = String::from("persistent");
                if postpone_lanes > 0 {
                    name += &format!("-postpone{postpone_lanes}");
                }
                if shared_entries > 0 {
                    name += &format!("-shared{shared_entries}");
                }
                name
            }
        }
    }

    /// Dynamic shared memory a block of `block` threads needs.
    pub fn shared_bytes(&self, block: u32) -> u32 {
        match *self {
            WideSchedule::OneRay => 0,
            WideSchedule::Persistent { shared_entries, .. } => shared_entries * 8 * block,
        }
    }
}

/// Launches the wide kernel for `mode` over every ray of `rays`, writing `hits[i]` for ray `i`
/// (`prim` -1 and `t = t_max` for a miss, as the binary kernels write): one ray per thread.
pub fn trace_wide(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &DeviceBuffer<GpuRay>,
    hits: &mut DeviceBuffer<GpuHit>,
    mode: HitMode,
) -> CudaResult<()> {
    let mut no_counter = DeviceBuffer::zeroed(device, 1)?;
    trace_wide_with(device, bvh, rays, hits, &mut no_counter, mode, WideSchedule::OneRay)
}

/// [`trace_wide`] under `schedule`; `ray_counter` (one element, reset here) feeds the
/// persistent kernels.
pub fn trace_wide_with(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &DeviceBuffer<GpuRay>,
    hits: &mut DeviceBuffer<GpuHit>,
    ray_counter: &mut DeviceBuffer<u32>,
    mode: HitMode,
    schedule: WideSchedule,
) -> CudaResult<()> {
    if !check_batch(rays.len(), hits.len())? {
        return Ok(());
    }
    if let WideSchedule::Persistent { fetch_threshold, postpone_lanes, shared_entries } = schedule {
        if !(1..=32).contains(&fetch_threshold)
            || postpone_lanes > 32
            || shared_entries > MAX_SHARED_ENTRIES
            || ray_counter.is_empty()
        {
            return Err(CudaError::InvalidArgument(format!(
                "fetch_threshold {fetch_threshold} (1..=32), postpone_lanes {postpone_lanes} (0..=32), \
                 shared_entries {shared_entries} (0..={MAX_SHARED_ENTRIES}) and a one-element ray counter ({} \
                 elements)",
                ray_counter.len()
            )));
        }
        let (plain, woop) = match mode {
            HitMode::Closest => (TRAVERSE_WIDE_PERSISTENT_CLOSEST, TRAVERSE_WIDE_WOOP_PERSISTENT_CLOSEST),
            HitMode::Any => (TRAVERSE_WIDE_PERSISTENT_ANY, TRAVERSE_WIDE_WOOP_PERSISTENT_ANY),
        };
        let function = match bvh.triangle_layout {
            WideTriangles::Plain => device.entry_function(plain.entry(), &plain.program().source())?,
            WideTriangles::Woop => device.entry_function(woop.entry(), &woop.program().source())?,
        };
        ray_counter.clear(device)?;
        let shared_bytes = schedule.shared_bytes(TRAVERSAL_BLOCK_SIZE);
        let per_sm = device.blocks_per_multiprocessor_with_shared(&function, TRAVERSAL_BLOCK_SIZE, shared_bytes)?;
        let mut config = persistent_config(device, per_sm, rays.len());
        config.shared_mem_bytes = shared_bytes;
        // `hits` holds at least `rays.len()` results (checked above).
        let (count, counter) = (rays.len() as i32, ray_counter.raw_mut().into());
        let (fetch, postpone, shared) = (fetch_threshold as i32, postpone_lanes as i32, shared_entries as i32);
        return match woop_ids(bvh)? {
            None => {
                let args = (
                    bvh.nodes().raw().into(),
                    bvh.triangles().raw().into(),
                    rays.raw().into(),
                    hits.raw_mut().into(),
                    count,
                    counter,
                    fetch,
                    postpone,
                    shared,
                );
                device.launch(plain, config, args)
            }
            Some(ids) => {
                let args = (
                    bvh.nodes().raw().into(),
                    bvh.triangles().raw().into(),
                    ids.raw().into(),
                    rays.raw().into(),
                    hits.raw_mut().into(),
                    count,
                    counter,
                    fetch,
                    postpone,
                    shared,
                );
                device.launch(woop, config, args)
            }
        };
    }
    let config = one_ray_config(rays.len());
    // `hits` holds at least `rays.len()` results (checked above).
    match woop_ids(bvh)? {
        None => {
            let kernel = match mode {
                HitMode::Closest => TRAVERSE_WIDE_CLOSEST,
                HitMode::Any => TRAVERSE_WIDE_ANY,
            };
            let args = (
                bvh.nodes().raw().into(),
                bvh.triangles().raw().into(),
                rays.raw().into(),
                hits.raw_mut().into(),
                rays.len() as i32,
            );
            device.launch(kernel, config, args)
        }
        Some(ids) => {
            let kernel = match mode {
                HitMode::Closest => TRAVERSE_WIDE_WOOP_CLOSEST,
                HitMode::Any => TRAVERSE_WIDE_WOOP_ANY,
            };
            let args = (
                bvh.nodes().raw().into(),
                bvh.triangles().raw().into(),
                ids.raw().into(),
                rays.raw().into(),
                hits.raw_mut().into(),
                rays.len() as i32,
            );
            device.launch(kernel, config, args)
        }
    }
}

/// The Woop layout's triangle ids (None for plain records); an error for a Woop tree without them.
fn woop_ids(bvh: &DeviceWideBvh) -> CudaResult<Option<&DeviceBuffer<u32>>> {
    match (bvh.triangle_layout, bvh.triangle_ids()) {
        (WideTriangles::Plain, _) => Ok(None),
        (WideTriangles::Woop, Some(ids)) => Ok(Some(ids)),
        (WideTriangles::Woop, None) => {
            Err(CudaError::InvalidArgument("a Woop wide BVH without its triangle ids".into()))
        }
    }
}

/// Uploads `rays`, traces them through the wide kernel in `mode` and returns the hits.
pub fn trace_rays_wide(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &[GpuRay],
    mode: HitMode,
) -> CudaResult<Vec<GpuHit>> {
    trace_rays_wide_with(device, bvh, rays, mode, WideSchedule::OneRay)
}

/// [`trace_rays_wide`] under `schedule`.
pub fn trace_rays_wide_with(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &[GpuRay],
    mode: HitMode,
    schedule: WideSchedule,
) -> CudaResult<Vec<GpuHit>> {
    let ray_buffer = DeviceBuffer::from_slice(device, rays)?;
    let mut hits = DeviceBuffer::zeroed(device, rays.len())?;
    let mut counter = DeviceBuffer::zeroed(device, 1)?;
    trace_wide_with(device, bvh, &ray_buffer, &mut hits, &mut counter, mode, schedule)?;
    hits.download(device)
}

/// The timing of the wide kernel on one ray batch.
#[derive(Clone, Debug, PartialEq)]
pub struct WideTiming {
    pub mode: HitMode,
    pub rays: usize,
    /// Each timed run, in milliseconds (CUDA events around the launch).
    pub run_ms: Vec<f32>,
    pub median_ms: f32,
    /// Millions of rays per second at the median time.
    pub mrays_per_second: f64,
    /// Rays that hit something (closest) or are occluded (any), from the last run.
    pub hit_count: usize,
}

/// Times the wide kernel in `mode` under `schedule` on `rays` against the uploaded `bvh`:
/// `warmup_runs` untimed launches, then `timed_runs` launches between CUDA events; the median is
/// reported (the persistent kernels' interval includes their 4-byte counter reset).
pub fn bench_wide_traversal(
    device: &CudaDevice,
    bvh: &DeviceWideBvh,
    rays: &[Ray],
    mode: HitMode,
    schedule: WideSchedule,
    warmup_runs: usize,
    timed_runs: usize,
) -> CudaResult<WideTiming> {
    if timed_runs == 0 {
        return Err(CudaError::InvalidArgument("bench_wide_traversal needs at least one timed run".into()));
    }
    let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
    let ray_buffer = DeviceBuffer::from_slice(device, &gpu_rays)?;
    let mut hits = DeviceBuffer::zeroed(device, gpu_rays.len())?;
    let mut counter = DeviceBuffer::zeroed(device, 1)?;
    let run_ms = device.time_runs(warmup_runs, timed_runs, || {
        trace_wide_with(device, bvh, &ray_buffer, &mut hits, &mut counter, mode, schedule)
    })?;
    let median_ms = warpath_cuda::runtime::median(&run_ms);
    let hit_count = hits.download(device)?.iter().filter(|h| h.is_hit()).count();
    Ok(WideTiming {
        mode,
        rays: rays.len(),
        run_ms,
        median_ms,
        mrays_per_second: if median_ms > 0.0 { rays.len() as f64 / (median_ms as f64 * 1e-3) / 1e6 } else { 0.0 },
        hit_count,
    })
}
