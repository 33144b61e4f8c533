//! Typed launches of the schedule kernels (docs/architecture.md): one Rust function per kernel
//! signature of `schedules/kernels.cuh` and the estimators' stage lists (`*/stages.cuh`), each taking the kernel's
//! arguments as typed values (`ScheduleArgs<S>` and `#[repr(C)]` structs by value, device
//! addresses, counts) and launching the catalog's kernel ([`crate::catalog::ScheduleKernels`]
//! of the estimator whose scene is `S`) from the estimator's programs as the render compiles
//! them ([`EstimatorKernels`]: a variant build, or the default). Enums pick the schedule
//! variant.

use super::args::{MultiStageQueues, ScheduleArgs, WavefrontBuffers};
use super::catalog::WavefrontCompaction;
use super::variant::EstimatorKernels;
use crate::catalog::{
    Kernel, KernelArgs, MULTISTAGE_FINISH_SURFACE, MULTISTAGE_FINISH_VOLUME, MULTISTAGE_GENERATE_SURFACE,
    MULTISTAGE_GENERATE_VOLUME, MULTISTAGE_INTERSECT_SURFACE, MULTISTAGE_SCATTER_VOLUME, MULTISTAGE_SHADE_SURFACE,
    MULTISTAGE_SHADOW_SURFACE, MULTISTAGE_TRACK_VOLUME, ScheduleKernels, ScheduleScene, StageArgs, VolumeStageArgs,
};
use crate::error::CudaResult;
use crate::runtime::CudaDevice;
use crate::scene_upload::DeviceSceneArgs;
use crate::volume_upload::DeviceVolumeSceneArgs;
use cudarc::driver::LaunchConfig;

/// The wavefront's extend kernel of `method`.
pub(crate) fn wavefront_kernel<S: ScheduleScene>(
    kernels: &ScheduleKernels<S>,
    method: WavefrontCompaction,
) -> Kernel<(ScheduleArgs<S>, WavefrontBuffers, u32, u32)> {
    match method {
        WavefrontCompaction::None => kernels.wavefront_none,
        WavefrontCompaction::Collate => kernels.wavefront_collate,
        WavefrontCompaction::Lookback => kernels.wavefront_lookback,
        WavefrontCompaction::Separate => kernels.wavefront_separate,
        WavefrontCompaction::Sorted => kernels.wavefront_sorted,
        WavefrontCompaction::Sections => kernels.wavefront_sections,
    }
}

/// The kernels that take only the schedule arguments (`kernel(ScheduleArgs<E>)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PersistentKernel {
    RegenThread,
    RegenWarp,
    RegenBlock,
    TiledShared,
}

/// The kernels that take one path buffer (`kernel(ScheduleArgs<E>, E::Stored*)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolKernel {
    /// The tiles' paths in global memory, `TILED_PATHS` slots per block.
    TiledGlobal,
    StreamingSkScan,
    StreamingSkSorted,
    StreamingSkSorting,
}

/// The two kernels of device regeneration (`kernel(ScheduleArgs<E>, E::Stored*, pool_size)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegenDeviceKernel {
    Fill,
    Extend,
}

/// The surface estimator's stages, run by the multi-stage wavefront (surface/stages.cuh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceStage {
    Generate,
    Intersect,
    Shade,
    Shadow,
    Finish,
}

/// The volumetric estimator's stages, run by the multi-stage wavefront (volume/stages.cuh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VolumeStage {
    Generate,
    Track,
    Scatter,
    Finish,
}

impl PersistentKernel {
    pub(crate) fn kernel<S: ScheduleScene>(self, kernels: &ScheduleKernels<S>) -> Kernel<(ScheduleArgs<S>,)> {
        match self {
            PersistentKernel::RegenThread => kernels.regen_thread,
            PersistentKernel::RegenWarp => kernels.regen_warp,
            PersistentKernel::RegenBlock => kernels.regen_block,
            PersistentKernel::TiledShared => kernels.tiled_shared,
        }
    }
}

impl PoolKernel {
    pub(crate) fn kernel<S: ScheduleScene>(
        self,
        kernels: &ScheduleKernels<S>,
    ) -> Kernel<(ScheduleArgs<S>, crate::catalog::MutPtr)> {
        match self {
            PoolKernel::TiledGlobal => kernels.tiled_global,
            PoolKernel::StreamingSkScan => kernels.streaming_sk_scan,
            PoolKernel::StreamingSkSorted => kernels.streaming_sk_sorted,
            PoolKernel::StreamingSkSorting => kernels.streaming_sk_sorting,
        }
    }
}

impl SurfaceStage {
    /// The stages in launch order.
    pub const ALL: [SurfaceStage; 5] = [
        SurfaceStage::Generate,
        SurfaceStage::Intersect,
        SurfaceStage::Shade,
        SurfaceStage::Shadow,
        SurfaceStage::Finish,
    ];

    /// The stage's `extern "C"` name.
    pub const fn kernel(self) -> &'static str {
        match self {
            SurfaceStage::Generate => MULTISTAGE_GENERATE_SURFACE.name(),
            SurfaceStage::Intersect => MULTISTAGE_INTERSECT_SURFACE.name(),
            SurfaceStage::Shade => MULTISTAGE_SHADE_SURFACE.name(),
            SurfaceStage::Shadow => MULTISTAGE_SHADOW_SURFACE.name(),
            SurfaceStage::Finish => MULTISTAGE_FINISH_SURFACE.name(),
        }
    }

    /// The stage's kernel, program and name.
    pub const fn entry(self) -> crate::catalog::KernelEntry {
        match self {
            SurfaceStage::Generate => MULTISTAGE_GENERATE_SURFACE.entry(),
            SurfaceStage::Intersect => MULTISTAGE_INTERSECT_SURFACE.entry(),
            SurfaceStage::Shade => MULTISTAGE_SHADE_SURFACE.entry(),
            SurfaceStage::Shadow => MULTISTAGE_SHADOW_SURFACE.entry(),
            SurfaceStage::Finish => MULTISTAGE_FINISH_SURFACE.entry(),
        }
    }

    /// The stage's name in launch timings.
    pub const fn name(self) -> &'static str {
        match self {
            SurfaceStage::Generate => "generate",
            SurfaceStage::Intersect => "intersect",
            SurfaceStage::Shade => "shade",
            SurfaceStage::Shadow => "shadow",
            SurfaceStage::Finish => "finish",
        }
    }
}

/// The launches of one estimator's schedules with one set of schedule arguments.
pub(crate) struct ScheduleLaunch<'a, S: ScheduleScene> {
    pub device: &'a CudaDevice,
    pub estimator: &'a EstimatorKernels,
    pub args: &'a ScheduleArgs<S>,
}

impl<S: ScheduleScene> ScheduleLaunch<'_, S> {
    /// Launches `kernel` of the estimator's programs as the render compiles them. The buffers
    /// behind the addresses were sized by the strategy for the grid it launches (each kernel
    /// bounds-checks its thread index against the counts it is given).
    fn launch<A: KernelArgs>(&self, kernel: Kernel<A>, config: LaunchConfig, args: A::Values<'_>) -> CudaResult<()> {
        let program = self.estimator.source(kernel.program())?;
        self.device.launch_in(kernel, program, config, args)
    }

    fn linear(grid: u32, block: u32) -> LaunchConfig {
        LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }
    }

    /// `naive_<e>(ScheduleArgs, sample_count)` on a 2D grid of `block`-sized blocks over the image.
    pub fn naive(&self, block: (u32, u32), sample_count: u32) -> CudaResult<()> {
        let config = LaunchConfig {
            grid_dim: (self.args.width.div_ceil(block.0), self.args.height.div_ceil(block.1), 1),
            block_dim: (block.0, block.1, 1),
            shared_mem_bytes: 0,
        };
        if config.grid_dim.0 == 0 || config.grid_dim.1 == 0 {
            return Ok(());
        }
        self.launch(S::SCHEDULES.naive, config, (*self.args, sample_count))
    }

    /// `naive_wave_<e>(ScheduleArgs)`: one thread per index of the wave.
    pub fn naive_wave(&self, block: u32) -> CudaResult<()> {
        let grid = self.args.wave_paths.div_ceil(block);
        if grid == 0 {
            return Ok(());
        }
        self.launch(S::SCHEDULES.naive_wave, Self::linear(grid, block), (*self.args,))
    }

    /// `naive_mk_first/rest_<e>(ScheduleArgs, E::Stored* paths)`: one thread per index of the
    /// wave, `paths` one slot per index.
    pub fn naive_mk(&self, rest: bool, block: u32, paths: u64) -> CudaResult<()> {
        let grid = self.args.wave_paths.div_ceil(block);
        if grid == 0 {
            return Ok(());
        }
        let k = &S::SCHEDULES;
        let kernel = if rest { k.naive_mk_rest } else { k.naive_mk_first };
        self.launch(kernel, Self::linear(grid, block), (*self.args, paths.into()))
    }

    /// `wavefront_extend_<method>_<e>(ScheduleArgs, WavefrontBuffers, in_count, first)`.
    pub fn wavefront_extend(
        &self,
        method: WavefrontCompaction,
        grid: u32,
        block: u32,
        buffers: &WavefrontBuffers,
        in_count: u32,
        first: bool,
    ) -> CudaResult<()> {
        if grid == 0 {
            return Ok(());
        }
        let kernel = wavefront_kernel(&S::SCHEDULES, method);
        self.launch(kernel, Self::linear(grid, block), (*self.args, *buffers, in_count, first as u32))
    }

    /// `regen_thread/warp/block_<e>(ScheduleArgs)`, `tiled_shared_<e>(ScheduleArgs)`.
    pub fn persistent(&self, kernel: PersistentKernel, grid: u32, block: u32) -> CudaResult<()> {
        if grid == 0 {
            return Ok(());
        }
        self.launch(kernel.kernel(&S::SCHEDULES), Self::linear(grid, block), (*self.args,))
    }

    /// `tiled_global_<e>` and `streaming_sk_*_<e>(ScheduleArgs, E::Stored* paths)`.
    pub fn with_pool(&self, kernel: PoolKernel, grid: u32, block: u32, paths: u64) -> CudaResult<()> {
        if grid == 0 {
            return Ok(());
        }
        self.launch(kernel.kernel(&S::SCHEDULES), Self::linear(grid, block), (*self.args, paths.into()))
    }

    /// `regen_device_fill/extend_<e>(ScheduleArgs, E::Stored* pool, pool_size)`.
    pub fn regen_device(
        &self,
        kernel: RegenDeviceKernel,
        grid: u32,
        block: u32,
        pool: u64,
        pool_size: u32,
    ) -> CudaResult<()> {
        if grid == 0 {
            return Ok(());
        }
        let kernel = match kernel {
            RegenDeviceKernel::Fill => S::SCHEDULES.regen_device_fill,
            RegenDeviceKernel::Extend => S::SCHEDULES.regen_device_extend,
        };
        self.launch(kernel, Self::linear(grid, block), (*self.args, pool.into(), pool_size))
    }

    /// `streaming_mk_regen_<e>(ScheduleArgs, E::Stored* out, live, next, count)`: camera paths
    /// for wave indices `next ..` into `out[live ..]`.
    pub fn streaming_mk_regen(&self, block: u32, out: u64, live: u32, next: u32, count: u32) -> CudaResult<()> {
        if count == 0 {
            return Ok(());
        }
        let config = Self::linear(count.div_ceil(block), block);
        self.launch(S::SCHEDULES.streaming_mk_regen, config, (*self.args, out.into(), live, next, count))
    }
}

impl ScheduleLaunch<'_, DeviceSceneArgs> {
    /// A stage of the surface estimator: `multistage_<stage>_surface(ScheduleArgs,
    /// MultiStageQueues[, kind][, count])`. `count` is the queue length the stage reads
    /// (ignored by `Generate`, which covers the wave); `kind` is the material kind of `Shade`.
    pub fn surface_stage(
        &self,
        stage: SurfaceStage,
        block: u32,
        queues: &MultiStageQueues,
        kind: u32,
        count: u32,
    ) -> CudaResult<()> {
        let items = if stage == SurfaceStage::Generate { self.args.wave_paths } else { count };
        if items == 0 {
            return Ok(());
        }
        let config = Self::linear(items.div_ceil(block), block);
        let (args, queues) = (*self.args, *queues);
        let counted = |kernel: Kernel<StageArgs>| self.launch(kernel, config, (args, queues, count));
        match stage {
            SurfaceStage::Generate => self.launch(MULTISTAGE_GENERATE_SURFACE, config, (args, queues)),
            SurfaceStage::Intersect => counted(MULTISTAGE_INTERSECT_SURFACE),
            SurfaceStage::Shade => self.launch(MULTISTAGE_SHADE_SURFACE, config, (args, queues, kind, count)),
            SurfaceStage::Shadow => counted(MULTISTAGE_SHADOW_SURFACE),
            SurfaceStage::Finish => counted(MULTISTAGE_FINISH_SURFACE),
        }
    }
}

impl VolumeStage {
    /// The stages in launch order.
    pub const ALL: [VolumeStage; 4] =
        [VolumeStage::Generate, VolumeStage::Track, VolumeStage::Scatter, VolumeStage::Finish];

    /// The stage's kernel, program and name.
    pub const fn entry(self) -> crate::catalog::KernelEntry {
        match self {
            VolumeStage::Generate => MULTISTAGE_GENERATE_VOLUME.entry(),
            VolumeStage::Track => MULTISTAGE_TRACK_VOLUME.entry(),
            VolumeStage::Scatter => MULTISTAGE_SCATTER_VOLUME.entry(),
            VolumeStage::Finish => MULTISTAGE_FINISH_VOLUME.entry(),
        }
    }

    /// The stage's name in launch timings.
    pub const fn name(self) -> &'static str {
        match self {
            VolumeStage::Generate => "generate",
            VolumeStage::Track => "track",
            VolumeStage::Scatter => "scatter",
            VolumeStage::Finish => "finish",
        }
    }
}

impl ScheduleLaunch<'_, DeviceVolumeSceneArgs> {
    /// A stage of the volumetric estimator: `multistage_<stage>_volume(ScheduleArgs,
    /// MultiStageQueues[, count])`. `count` is the queue length the stage reads (ignored by
    /// `Generate`, which covers the wave).
    pub fn volume_stage(
        &self,
        stage: VolumeStage,
        block: u32,
        queues: &MultiStageQueues,
        count: u32,
    ) -> CudaResult<()> {
        let items = if stage == VolumeStage::Generate { self.args.wave_paths } else { count };
        if items == 0 {
            return Ok(());
        }
        let config = Self::linear(items.div_ceil(block), block);
        let (args, queues) = (*self.args, *queues);
        let counted = |kernel: Kernel<VolumeStageArgs>| self.launch(kernel, config, (args, queues, count));
        match stage {
            VolumeStage::Generate => self.launch(MULTISTAGE_GENERATE_VOLUME, config, (args, queues)),
            VolumeStage::Track => counted(MULTISTAGE_TRACK_VOLUME),
            VolumeStage::Scatter => counted(MULTISTAGE_SCATTER_VOLUME),
            VolumeStage::Finish => counted(MULTISTAGE_FINISH_VOLUME),
        }
    }
}
