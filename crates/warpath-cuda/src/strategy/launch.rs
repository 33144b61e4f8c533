//! Typed launches of the schedule kernels (DESIGN.md rule 4): one Rust function per kernel
//! signature of `schedules/kernels.cuh` and `surface/stages.cuh`, each taking the kernel's
//! arguments as typed values (`ScheduleArgs<S>` and `#[repr(C)]` structs by value, device
//! addresses, counts). Which instantiation runs is a typed choice too: an
//! [`EstimatorKernels`] names an estimator's programs and its kernels
//! (`<schedule>_<estimator>`), and enums pick the schedule variant. This module is the only
//! place the strategies call `launch_builder`.

use super::args::{ScheduleArgs, WavefrontBuffers};
use super::catalog::WavefrontCompaction;
use super::multistage::MultiStageQueues;
use crate::compiler::KernelSource;
use crate::error::CudaResult;
use crate::kernels::{
    SURFACE_MEGAKERNEL, SURFACE_NAIVE_WAVES, SURFACE_REGENERATION, SURFACE_STAGES, SURFACE_STREAMING, SURFACE_TILED,
    SURFACE_WAVEFRONT, VOLUME_MEGAKERNEL, VOLUME_NAIVE_WAVES, VOLUME_REGENERATION, VOLUME_STREAMING, VOLUME_TILED,
    VOLUME_WAVEFRONT,
};
use crate::runtime::CudaDevice;
use cudarc::driver::{DeviceRepr, LaunchArgs, LaunchConfig, PushKernelArg};

/// The kernel names of one estimator's instantiation of every schedule.
#[derive(Clone, Copy, Debug)]
pub struct ScheduleKernelNames {
    pub naive: &'static str,
    /// The naive schedule over a wave, one thread per path (image tiles).
    pub naive_wave: &'static str,
    /// naiveMK: generate and take the first step; trace the rest.
    pub naive_mk_first: &'static str,
    pub naive_mk_rest: &'static str,
    pub wavefront_none: &'static str,
    pub wavefront_collate: &'static str,
    pub wavefront_lookback: &'static str,
    pub wavefront_separate: &'static str,
    pub wavefront_sorted: &'static str,
    pub wavefront_sections: &'static str,
    pub regen_thread: &'static str,
    pub regen_warp: &'static str,
    pub regen_block: &'static str,
    pub regen_device_fill: &'static str,
    pub regen_device_extend: &'static str,
    pub tiled_global: &'static str,
    pub tiled_shared: &'static str,
    pub streaming_sk_scan: &'static str,
    pub streaming_sk_sorted: &'static str,
    /// sortingSK: streaming_sk SORTED over the estimator's Deferred form.
    pub streaming_sk_sorting: &'static str,
    pub streaming_mk_regen: &'static str,
}

/// The names that `WARPATH_NAIVE_KERNEL(E, suffix)` and the four family macros of
/// `schedules/kernels.cuh` (`WARPATH_WAVEFRONT_KERNELS`, …) define.
macro_rules! schedule_kernel_names {
    ($suffix:literal) => {
        ScheduleKernelNames {
            naive: concat!("naive_", $suffix),
            naive_wave: concat!("naive_wave_", $suffix),
            naive_mk_first: concat!("naive_mk_first_", $suffix),
            naive_mk_rest: concat!("naive_mk_rest_", $suffix),
            wavefront_none: concat!("wavefront_extend_none_", $suffix),
            wavefront_collate: concat!("wavefront_extend_collate_", $suffix),
            wavefront_lookback: concat!("wavefront_extend_lookback_", $suffix),
            wavefront_separate: concat!("wavefront_extend_separate_", $suffix),
            wavefront_sorted: concat!("wavefront_extend_sorted_", $suffix),
            wavefront_sections: concat!("wavefront_extend_sections_", $suffix),
            regen_thread: concat!("regen_thread_", $suffix),
            regen_warp: concat!("regen_warp_", $suffix),
            regen_block: concat!("regen_block_", $suffix),
            regen_device_fill: concat!("regen_device_fill_", $suffix),
            regen_device_extend: concat!("regen_device_extend_", $suffix),
            tiled_global: concat!("tiled_global_", $suffix),
            tiled_shared: concat!("tiled_shared_", $suffix),
            streaming_sk_scan: concat!("streaming_sk_scan_", $suffix),
            streaming_sk_sorted: concat!("streaming_sk_sorted_", $suffix),
            streaming_sk_sorting: concat!("streaming_sk_sorting_", $suffix),
            streaming_mk_regen: concat!("streaming_mk_regen_", $suffix),
        }
    };
}

impl ScheduleKernelNames {
    /// Every name, for the compile check.
    pub const fn all(&self) -> [&'static str; 21] {
        [
            self.naive,
            self.naive_wave,
            self.naive_mk_first,
            self.naive_mk_rest,
            self.wavefront_none,
            self.wavefront_collate,
            self.wavefront_lookback,
            self.wavefront_separate,
            self.wavefront_sorted,
            self.wavefront_sections,
            self.regen_thread,
            self.regen_warp,
            self.regen_block,
            self.regen_device_fill,
            self.regen_device_extend,
            self.tiled_global,
            self.tiled_shared,
            self.streaming_sk_scan,
            self.streaming_sk_sorted,
            self.streaming_sk_sorting,
            self.streaming_mk_regen,
        ]
    }

    pub(crate) fn wavefront(&self, method: WavefrontCompaction) -> &'static str {
        match method {
            WavefrontCompaction::None => self.wavefront_none,
            WavefrontCompaction::Collate => self.wavefront_collate,
            WavefrontCompaction::Lookback => self.wavefront_lookback,
            WavefrontCompaction::Separate => self.wavefront_separate,
            WavefrontCompaction::Sorted => self.wavefront_sorted,
            WavefrontCompaction::Sections => self.wavefront_sections,
        }
    }

    pub(crate) fn persistent(&self, kernel: PersistentKernel) -> &'static str {
        match kernel {
            PersistentKernel::RegenThread => self.regen_thread,
            PersistentKernel::RegenWarp => self.regen_warp,
            PersistentKernel::RegenBlock => self.regen_block,
            PersistentKernel::TiledShared => self.tiled_shared,
        }
    }

    pub(crate) fn with_pool(&self, kernel: PoolKernel) -> &'static str {
        match kernel {
            PoolKernel::TiledGlobal => self.tiled_global,
            PoolKernel::StreamingSkScan => self.streaming_sk_scan,
            PoolKernel::StreamingSkSorted => self.streaming_sk_sorted,
            PoolKernel::StreamingSkSorting => self.streaming_sk_sorting,
        }
    }
}

/// An estimator's kernels on the GPU: its programs — the naive megakernel, one per schedule
/// family (so a render compiles only the family its strategy uses), its own stage list —
/// and the instantiations' names. Kernel names say their family (`wavefront_…`, `regen_…`,
/// `tiled_…`, `streaming_…`, `multistage_…`), which [`EstimatorKernels::program_for`] maps
/// to its program.
#[derive(Clone, Copy, Debug)]
pub struct EstimatorKernels {
    /// The estimator's name, the suffix of its kernels (`surface`).
    pub name: &'static str,
    pub megakernel: KernelSource,
    /// The naive schedule's wave forms: naive_wave, naiveMK.
    pub naive_waves: KernelSource,
    pub wavefront: KernelSource,
    pub regeneration: KernelSource,
    pub tiled: KernelSource,
    pub streaming: KernelSource,
    /// The program of the estimator's stage list (multi-stage wavefront) and of the schedule
    /// structs' layout report, if it has one.
    pub stages_program: Option<KernelSource>,
    pub kernels: ScheduleKernelNames,
    /// The estimator's own stage kernels (multi-stage wavefront), in `stages_program`.
    pub stages: &'static [&'static str],
}

impl EstimatorKernels {
    /// The program that defines `kernel` (one of this estimator's names).
    pub fn program_for(&self, kernel: &str) -> &KernelSource {
        if kernel.starts_with("naive_wave_") || kernel.starts_with("naive_mk_") {
            return &self.naive_waves;
        }
        let family = kernel.split('_').next().unwrap_or("");
        match family {
            "wavefront" => &self.wavefront,
            "regen" => &self.regeneration,
            "tiled" => &self.tiled,
            "streaming" => &self.streaming,
            "multistage" | "strategies" => self.stages_program.as_ref().unwrap_or(&self.megakernel),
            _ => &self.megakernel,
        }
    }

    /// Every schedule program but the megakernel and the stages, with its kernels.
    pub fn family_programs(&self) -> Vec<(KernelSource, Vec<&'static str>)> {
        let mut programs: Vec<(KernelSource, Vec<&'static str>)> = Vec::new();
        for name in self.kernels.all().into_iter().filter(|&n| n != self.kernels.naive) {
            let program = *self.program_for(name);
            match programs.iter_mut().find(|(p, _)| p.name == program.name) {
                Some((_, names)) => names.push(name),
                None => programs.push((program, vec![name])),
            }
        }
        programs
    }
}

/// The surface path tracer's kernels (`surface_megakernel.cu`, `surface_<family>.cu`,
/// `surface_stages.cu`).
pub const SURFACE: EstimatorKernels = EstimatorKernels {
    name: "surface",
    megakernel: SURFACE_MEGAKERNEL,
    naive_waves: SURFACE_NAIVE_WAVES,
    wavefront: SURFACE_WAVEFRONT,
    regeneration: SURFACE_REGENERATION,
    tiled: SURFACE_TILED,
    streaming: SURFACE_STREAMING,
    stages_program: Some(SURFACE_STAGES),
    kernels: schedule_kernel_names!("surface"),
    stages: &[
        SurfaceStage::Generate.kernel(),
        SurfaceStage::Intersect.kernel(),
        SurfaceStage::Shade.kernel(),
        SurfaceStage::Shadow.kernel(),
        SurfaceStage::Finish.kernel(),
    ],
};

/// The volumetric path tracer's kernels (`volume_megakernel.cu`, `volume_<family>.cu`): every
/// schedule but the multi-stage wavefront, whose stages are the surface estimator's.
pub const VOLUME: EstimatorKernels = EstimatorKernels {
    name: "volume",
    megakernel: VOLUME_MEGAKERNEL,
    naive_waves: VOLUME_NAIVE_WAVES,
    wavefront: VOLUME_WAVEFRONT,
    regeneration: VOLUME_REGENERATION,
    tiled: VOLUME_TILED,
    streaming: VOLUME_STREAMING,
    stages_program: None,
    kernels: schedule_kernel_names!("volume"),
    stages: &[],
};

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

impl SurfaceStage {
    pub const fn kernel(self) -> &'static str {
        match self {
            SurfaceStage::Generate => "multistage_generate_surface",
            SurfaceStage::Intersect => "multistage_intersect_surface",
            SurfaceStage::Shade => "multistage_shade_surface",
            SurfaceStage::Shadow => "multistage_shadow_surface",
            SurfaceStage::Finish => "multistage_finish_surface",
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
pub(crate) struct ScheduleLaunch<'a, S> {
    pub device: &'a CudaDevice,
    pub estimator: &'a EstimatorKernels,
    pub args: &'a ScheduleArgs<S>,
}

impl<S: DeviceRepr> ScheduleLaunch<'_, S> {
    /// Launches a builder that holds the schedule arguments and then the kernel's own.
    fn finish(&self, name: &'static str, mut launch: LaunchArgs<'_>, config: LaunchConfig) -> CudaResult<()> {
        // SAFETY: every caller below pushed exactly the parameters of `name`'s signature in
        // schedules/kernels.cuh or surface/stages.cuh (the ScheduleArgs first); the buffers
        // behind the addresses were sized by the strategy for the grid it launches (each
        // kernel bounds-checks its thread index against the counts it is given).
        let launched = unsafe { launch.launch(config) };
        self.device.check_launch(name, launched)
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
        let name = self.estimator.kernels.naive;
        let function = self.device.function(&self.estimator.megakernel, name)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(self.args).arg(&sample_count);
        self.finish(name, launch, config)
    }

    /// `naive_wave_<e>(ScheduleArgs)`: one thread per index of the wave.
    pub fn naive_wave(&self, block: u32) -> CudaResult<()> {
        let grid = self.args.wave_paths.div_ceil(block);
        if grid == 0 {
            return Ok(());
        }
        let name = self.estimator.kernels.naive_wave;
        let function = self.device.function(self.estimator.program_for(name), name)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(self.args);
        self.finish(name, launch, Self::linear(grid, block))
    }

    /// `naive_mk_first/rest_<e>(ScheduleArgs, E::Stored* paths)`: one thread per index of the
    /// wave, `paths` one slot per index.
    pub fn naive_mk(&self, rest: bool, block: u32, paths: u64) -> CudaResult<()> {
        let grid = self.args.wave_paths.div_ceil(block);
        if grid == 0 {
            return Ok(());
        }
        let k = &self.estimator.kernels;
        let name = if rest { k.naive_mk_rest } else { k.naive_mk_first };
        let function = self.device.function(self.estimator.program_for(name), name)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(self.args).arg(&paths);
        self.finish(name, launch, Self::linear(grid, block))
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
        let name = self.estimator.kernels.wavefront(method);
        let first = first as u32;
        let function = self.device.function(self.estimator.program_for(name), name)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(self.args).arg(buffers).arg(&in_count).arg(&first);
        self.finish(name, launch, Self::linear(grid, block))
    }

    /// `regen_thread/warp/block_<e>(ScheduleArgs)`, `tiled_shared_<e>(ScheduleArgs)`.
    pub fn persistent(&self, kernel: PersistentKernel, grid: u32, block: u32) -> CudaResult<()> {
        if grid == 0 {
            return Ok(());
        }
        let name = self.estimator.kernels.persistent(kernel);
        let function = self.device.function(self.estimator.program_for(name), name)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(self.args);
        self.finish(name, launch, Self::linear(grid, block))
    }

    /// `tiled_global_<e>` and `streaming_sk_*_<e>(ScheduleArgs, E::Stored* paths)`.
    pub fn with_pool(&self, kernel: PoolKernel, grid: u32, block: u32, paths: u64) -> CudaResult<()> {
        if grid == 0 {
            return Ok(());
        }
        let name = self.estimator.kernels.with_pool(kernel);
        let function = self.device.function(self.estimator.program_for(name), name)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(self.args).arg(&paths);
        self.finish(name, launch, Self::linear(grid, block))
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
        let name = match kernel {
            RegenDeviceKernel::Fill => self.estimator.kernels.regen_device_fill,
            RegenDeviceKernel::Extend => self.estimator.kernels.regen_device_extend,
        };
        let function = self.device.function(self.estimator.program_for(name), name)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(self.args).arg(&pool).arg(&pool_size);
        self.finish(name, launch, Self::linear(grid, block))
    }

    /// `streaming_mk_regen_<e>(ScheduleArgs, E::Stored* out, live, next, count)`: camera paths
    /// for wave indices `next ..` into `out[live ..]`.
    pub fn streaming_mk_regen(&self, block: u32, out: u64, live: u32, next: u32, count: u32) -> CudaResult<()> {
        if count == 0 {
            return Ok(());
        }
        let name = self.estimator.kernels.streaming_mk_regen;
        let function = self.device.function(self.estimator.program_for(name), name)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(self.args).arg(&out).arg(&live).arg(&next).arg(&count);
        self.finish(name, launch, Self::linear(count.div_ceil(block), block))
    }

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
        let name = stage.kernel();
        let function = self.device.function(self.estimator.program_for(name), name)?;
        let mut launch = self.device.stream().launch_builder(&function);
        launch.arg(self.args).arg(queues);
        match stage {
            SurfaceStage::Generate => {}
            SurfaceStage::Shade => {
                launch.arg(&kind).arg(&count);
            }
            _ => {
                launch.arg(&count);
            }
        }
        self.finish(name, launch, Self::linear(items.div_ceil(block), block))
    }
}
