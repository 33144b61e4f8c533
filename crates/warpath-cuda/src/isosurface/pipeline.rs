//! Seed 001's isosurface pipelines on the host side (`kernels/isosurface/pipeline.cuh`): the
//! single kernel over the pipeline's stages, and the multi-kernel pipeline — generation,
//! then rounds of traversal → intersection → shading until no ray is left — with the rays
//! of each stage compacted into the next stage's queue by one of [`IsoCompaction`]'s
//! methods (`cub`: CUB's `DeviceSelect::Flagged` from the nvcc-built library of
//! [`crate::cub_library`], attached to the buffers with [`PipelineBuffers::attach_cub`]). Per round the host reads one count back (the traversal queue's); every launch
//! of the round covers that count, an upper bound of its own queue (queues only shrink
//! within a frame), and each kernel reads its queue's true length from device memory.
//!
//! [`PipelineBuffers`] holds what a frame of one size needs (the per-ray stacks, the queues,
//! their compaction state); [`StageTimes`] the GPU time of each stage when asked for.

use super::{DeviceIsosurface, IsoRenderArgs, RenderTarget};
use crate::buffer::DeviceBuffer;
use crate::compaction::{CompactionState, CompactionWorkspace, out_of_kernel_prefix};
use crate::cub_library::CubLibrary;
use crate::error::{CudaError, CudaResult};
use crate::kernels::ISOSURFACE;
use crate::runtime::CudaDevice;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use std::sync::Arc;
use warpath_isosurface::render::{IsoView, Shading};

pub const PIPELINE_SINGLE: &str = "iso_pipeline_single";
pub const SHADE: &str = "iso_shade";
/// The multi-kernel pipeline's shadow rays, after its last round.
pub const SHADOWS: &str = "iso_shade_shadows";
const BLOCK: u32 = 256;
/// Pixels per side of the tiles rays are made in (`ISO_TILE`; BLOCK = RAY_TILE²).
const RAY_TILE: u32 = 16;

/// How the multi-kernel pipeline compacts the rays between stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IsoCompaction {
    /// InK-Compact (seed 001 §2.3): in the producing kernel, order kept by block sections.
    InkCompact,
    /// InK-Collate (seed 001 §2.4): in the producing kernel, one atomic per block.
    InkCollate,
    /// Single-pass decoupled look-back in the producing kernel, order kept.
    Lookback,
    /// OfK-Compact: the producing kernel writes a flag per ray, a separate kernel
    /// (compaction.cu's look-back from flags) compacts.
    OutOfKernel,
    /// The OfK stage kernels (a flag per ray), compacted by CUB's `DeviceSelect::Flagged`
    /// (the library seed 001 compares against; needs [`PipelineBuffers::attach_cub`]).
    Cub,
}

impl IsoCompaction {
    /// Every method (`Cub` needs the CUB library; the others are warpath's own kernels).
    pub const ALL: [IsoCompaction; 5] = [
        IsoCompaction::InkCompact,
        IsoCompaction::InkCollate,
        IsoCompaction::Lookback,
        IsoCompaction::OutOfKernel,
        IsoCompaction::Cub,
    ];

    pub fn name(self) -> &'static str {
        match self {
            IsoCompaction::InkCompact => "ink-compact",
            IsoCompaction::InkCollate => "ink-collate",
            IsoCompaction::Lookback => "lookback",
            IsoCompaction::OutOfKernel => "ofk",
            IsoCompaction::Cub => "cub",
        }
    }

    /// The stage kernels' suffix.
    fn suffix(self) -> usize {
        match self {
            IsoCompaction::InkCollate => 0,
            IsoCompaction::InkCompact => 1,
            IsoCompaction::Lookback => 2,
            IsoCompaction::OutOfKernel | IsoCompaction::Cub => 3,
        }
    }

    fn writes_flags(self) -> bool {
        matches!(self, IsoCompaction::OutOfKernel | IsoCompaction::Cub)
    }
}

/// A way to make a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IsoPipeline {
    /// `iso_render_single`: the caster of caster.cuh, one thread per pixel (it keeps looking
    /// after the first hit, pruned by its t).
    Caster,
    /// `iso_render_single_f32`: the same caster in f32 (the speed experiment: hits within
    /// f32 precision of the CPU's f64 ones, not equal to them).
    CasterF32,
    /// `iso_render_single_f32_r80` / `_r64`: the f32 caster compiled for at most 80 / 64
    /// registers a thread (3 / 4 blocks of 256 per SM instead of 2): occupancy against
    /// spills, the same arithmetic (its hits are caster-f32's).
    CasterF32R80,
    CasterF32R64,
    /// `iso_pipeline_single`: the pipeline's stages in one kernel, one thread per pixel.
    Single,
    /// One kernel per stage, compaction between them.
    Multi(IsoCompaction),
}

impl IsoPipeline {
    /// Every pipeline (`cub` needs the CUB library: [`IsoPipeline::needs_cub`]).
    pub const ALL: [IsoPipeline; 10] = [
        IsoPipeline::Caster,
        IsoPipeline::CasterF32,
        IsoPipeline::CasterF32R80,
        IsoPipeline::CasterF32R64,
        IsoPipeline::Single,
        IsoPipeline::Multi(IsoCompaction::InkCompact),
        IsoPipeline::Multi(IsoCompaction::InkCollate),
        IsoPipeline::Multi(IsoCompaction::Lookback),
        IsoPipeline::Multi(IsoCompaction::OutOfKernel),
        IsoPipeline::Multi(IsoCompaction::Cub),
    ];

    pub fn name(self) -> &'static str {
        match self {
            IsoPipeline::Caster => "caster",
            IsoPipeline::CasterF32 => "caster-f32",
            IsoPipeline::CasterF32R80 => "caster-f32-r80",
            IsoPipeline::CasterF32R64 => "caster-f32-r64",
            IsoPipeline::Single => "single",
            IsoPipeline::Multi(c) => c.name(),
        }
    }

    /// Whether the pipeline computes in f64 and returns the CPU's hits (every one but the
    /// f32 casters).
    pub fn is_exact(self) -> bool {
        !matches!(self, IsoPipeline::CasterF32 | IsoPipeline::CasterF32R80 | IsoPipeline::CasterF32R64)
    }

    /// Whether the pipeline calls CUB (the library of [`crate::cub_library`]).
    pub fn needs_cub(self) -> bool {
        self == IsoPipeline::Multi(IsoCompaction::Cub)
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl std::fmt::Display for IsoPipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

const GENERATE: [&str; 4] =
    ["iso_generate_collate", "iso_generate_compact", "iso_generate_lookback", "iso_generate_flags"];
const TRAVERSE: [&str; 4] =
    ["iso_traverse_collate", "iso_traverse_compact", "iso_traverse_lookback", "iso_traverse_flags"];
const INTERSECT: [&str; 4] =
    ["iso_intersect_collate", "iso_intersect_compact", "iso_intersect_lookback", "iso_intersect_flags"];

/// Every pipeline kernel's name.
pub fn kernel_names() -> Vec<&'static str> {
    let mut names = vec![PIPELINE_SINGLE, SHADE, SHADOWS];
    for set in [GENERATE, TRAVERSE, INTERSECT] {
        names.extend(set);
    }
    names
}

/// The pipeline's argument, by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoPipelineArgs {
    pub frame: IsoRenderArgs,
    pub stack_node: u64,
    pub stack_entry: u64,
    pub stack_top: u64,
    pub normals: u64,
    pub stack_capacity: u32,
    pub pixel_count: u32,
}

/// Where a stage puts the rays it passes on.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct IsoStageOut {
    pub items: u64,
    pub flags: u64,
    pub intermediate: u64,
    pub state: CompactionState,
}

// SAFETY: `#[repr(C)]` Pods of addresses and scalars whose layouts pipeline.cuh asserts.
unsafe impl cudarc::driver::DeviceRepr for IsoPipelineArgs {}
unsafe impl cudarc::driver::DeviceRepr for IsoStageOut {}

const _: () = assert!(std::mem::size_of::<IsoPipelineArgs>() == 272);
const _: () = assert!(std::mem::size_of::<IsoStageOut>() == 88);

/// GPU milliseconds per stage of the frames timed so far, and the rounds they took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    pub generate_ms: f64,
    pub traverse_ms: f64,
    pub intersect_ms: f64,
    pub shade_ms: f64,
    /// The separate compaction passes (OfK).
    pub compaction_ms: f64,
    pub rounds: u32,
    /// Rays entering traversal, summed over rounds.
    pub traversal_rays: u64,
}

/// One queue of pixel indices and the compaction state that fills it (its count lands in
/// the state's count word).
struct Queue {
    items: DeviceBuffer<u32>,
    workspace: CompactionWorkspace,
    /// InK-Compact's intermediate buffer: whole tiles of the largest launch.
    intermediate: DeviceBuffer<u32>,
    /// OfK: a flag per slot of the producing stage's input.
    flags: DeviceBuffer<u8>,
}

impl Queue {
    fn new(device: &CudaDevice, pixels: u32) -> CudaResult<Queue> {
        let tiles = pixels.div_ceil(BLOCK);
        Ok(Queue {
            items: DeviceBuffer::zeroed(device, pixels as usize)?,
            workspace: CompactionWorkspace::new(device, tiles)?,
            intermediate: DeviceBuffer::zeroed(device, (tiles * BLOCK) as usize)?,
            flags: DeviceBuffer::zeroed(device, (tiles * BLOCK) as usize)?,
        })
    }

    /// The output of a stage of `tiles` blocks, its state zeroed (in-kernel methods).
    fn output(&mut self, device: &CudaDevice, method: IsoCompaction, tiles: u32) -> CudaResult<IsoStageOut> {
        let state =
            if method.writes_flags() { CompactionState::default() } else { self.workspace.prepare(device, tiles)? };
        Ok(IsoStageOut {
            items: self.items.address(device),
            flags: self.flags.address(device),
            intermediate: self.intermediate.address(device),
            state,
        })
    }

    fn count_address(&self, device: &CudaDevice) -> u64 {
        self.workspace.count_address(device)
    }
}

/// CUB's library and its temporary storage (sized for a selection over every ray slot).
struct CubState {
    library: Arc<CubLibrary>,
    temp: DeviceBuffer<u8>,
}

/// The CUB state when `method` is CUB (else OfK's kernel compacts).
fn cub_for(method: IsoCompaction, cub: &Option<CubState>) -> Option<&CubState> {
    if method == IsoCompaction::Cub { cub.as_ref() } else { None }
}

/// OfK and CUB: the kept slots of `source[0..n)` by `target`'s flags, into `target`'s items,
/// the count into `target`'s count word (where the next stage reads it).
fn compact_flags(
    device: &CudaDevice,
    cub: Option<&CubState>,
    source: &DeviceBuffer<u32>,
    target: &mut Queue,
    n: u32,
) -> CudaResult<()> {
    match cub {
        Some(cub) => {
            let count = target.count_address(device);
            cub.library.select_flagged(device, &cub.temp, source, &target.flags, &target.items, count, n)
        }
        None => {
            let Queue { items, workspace, flags, .. } = target;
            out_of_kernel_prefix(device, source, flags, items, workspace, n)
        }
    }
}

/// The buffers of frames of one size.
pub struct PipelineBuffers {
    pixels: u32,
    stack_capacity: u32,
    stack_node: DeviceBuffer<u32>,
    stack_entry: DeviceBuffer<f64>,
    stack_top: DeviceBuffer<u32>,
    normals: DeviceBuffer<f64>,
    /// Ray slots (whole 16×16 tiles of pixels, `iso_slot_pixel`).
    slots: u32,
    /// The pixel of each ray slot: the source of generation's OfK pass.
    identity: DeviceBuffer<u32>,
    /// [traversal A, traversal B, intersection, shading].
    queues: Vec<Queue>,
    /// For the `cub` method ([`PipelineBuffers::attach_cub`]).
    cub: Option<CubState>,
    /// The frame's lit hits whose shadow rays are cast after the last round, and their count.
    shadow_items: DeviceBuffer<u32>,
    shadow_count: DeviceBuffer<u32>,
}

const TRAVERSE_A: usize = 0;
const INTERSECT_Q: usize = 2;
const SHADE_Q: usize = 3;

impl PipelineBuffers {
    /// Buffers for `width × height` pixels and stacks of `stack_capacity` items.
    pub fn new(device: &CudaDevice, width: u32, height: u32, stack_capacity: u32) -> CudaResult<Self> {
        let pixels = width as u64 * height as u64;
        if pixels == 0 || pixels > (u32::MAX / 4) as u64 {
            return Err(CudaError::InvalidArgument(format!("a pipeline of {width}x{height} pixels")));
        }
        let pixels = pixels as u32;
        if width.div_ceil(RAY_TILE) as u64 * height.div_ceil(RAY_TILE) as u64 * (BLOCK as u64) > (u32::MAX / 4) as u64 {
            return Err(CudaError::InvalidArgument(format!("a pipeline of {width}x{height} pixels")));
        }
        let stack = stack_capacity.max(1) as usize * pixels as usize;
        let tile = RAY_TILE;
        let tiles_x = width.div_ceil(tile);
        let slots = tiles_x * height.div_ceil(tile) * tile * tile;
        let identity: Vec<u32> = (0..slots)
            .map(|s| {
                let (t, within) = (s / (tile * tile), s % (tile * tile));
                let (x, y) = ((t % tiles_x) * tile + within % tile, (t / tiles_x) * tile + within / tile);
                if x < width && y < height { y * width + x } else { 0 }
            })
            .collect();
        Ok(PipelineBuffers {
            pixels,
            slots,
            stack_capacity: stack_capacity.max(1),
            stack_node: DeviceBuffer::zeroed(device, stack)?,
            stack_entry: DeviceBuffer::zeroed(device, stack)?,
            stack_top: DeviceBuffer::zeroed(device, pixels as usize)?,
            normals: DeviceBuffer::zeroed(device, 4 * pixels as usize)?,
            identity: DeviceBuffer::from_slice(device, &identity)?,
            queues: (0..4).map(|_| Queue::new(device, slots)).collect::<CudaResult<_>>()?,
            cub: None,
            shadow_items: DeviceBuffer::zeroed(device, pixels as usize)?,
            shadow_count: DeviceBuffer::zeroed(device, 1)?,
        })
    }

    /// Lets the `cub` method run on these buffers: CUB's library and its temporary storage
    /// for a selection over every ray slot.
    pub fn attach_cub(&mut self, device: &CudaDevice, library: Arc<CubLibrary>) -> CudaResult<()> {
        let bytes = library.flagged_temp_bytes(self.slots)?;
        self.cub = None;
        let temp = DeviceBuffer::zeroed(device, bytes.max(16))?;
        self.cub = Some(CubState { library, temp });
        Ok(())
    }

    /// Whether [`PipelineBuffers::attach_cub`] was called.
    pub fn has_cub(&self) -> bool {
        self.cub.is_some()
    }

    pub fn pixels(&self) -> u32 {
        self.pixels
    }

    pub fn stack_capacity(&self) -> u32 {
        self.stack_capacity
    }

    /// Bytes of device memory held.
    pub fn size_bytes(&self) -> usize {
        self.stack_node.size_bytes()
            + self.stack_entry.size_bytes()
            + self.stack_top.size_bytes()
            + self.normals.size_bytes()
            + self.identity.size_bytes()
            + self
                .queues
                .iter()
                .map(|q| q.items.size_bytes() + q.intermediate.size_bytes() + q.flags.size_bytes())
                .sum::<usize>()
            + self.cub.as_ref().map_or(0, |c| c.temp.size_bytes())
    }
}

/// Launches a stage kernel over `tiles` blocks of [`BLOCK`] threads.
fn linear(tiles: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (tiles.max(1), 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// A GPU timer over stage launches, when times are asked for.
struct Stopwatch<'a> {
    timer: Option<crate::runtime::StreamTimer<'a>>,
}

impl Stopwatch<'_> {
    fn start(&self) -> CudaResult<()> {
        if let Some(t) = &self.timer {
            t.start()?;
        }
        Ok(())
    }

    fn add(&self, into: &mut f64) -> CudaResult<()> {
        if let Some(t) = &self.timer {
            *into += t.stop_ms()? as f64;
        }
        Ok(())
    }
}

impl DeviceIsosurface {
    /// The pipeline's argument for `view` into `target` with `buffers`.
    fn pipeline_args(
        &self,
        device: &CudaDevice,
        view: &IsoView,
        shading: &Shading,
        target: &RenderTarget,
        buffers: &PipelineBuffers,
    ) -> CudaResult<IsoPipelineArgs> {
        if (view.width, view.height) != target.size() || view.width as u64 * view.height as u64 != buffers.pixels as u64
        {
            return Err(CudaError::InvalidArgument(format!(
                "a {}x{} view with a {:?} target and buffers of {} pixels",
                view.width,
                view.height,
                target.size(),
                buffers.pixels
            )));
        }
        if self.stack_need() > buffers.stack_capacity {
            return Err(CudaError::InvalidArgument(format!(
                "the tree needs stacks of {} items, the buffers hold {}",
                self.stack_need(),
                buffers.stack_capacity
            )));
        }
        Ok(IsoPipelineArgs {
            frame: self.frame_args(device, view, shading, target),
            stack_node: buffers.stack_node.address(device),
            stack_entry: buffers.stack_entry.address(device),
            stack_top: buffers.stack_top.address(device),
            normals: buffers.normals.address(device),
            stack_capacity: buffers.stack_capacity,
            pixel_count: buffers.pixels,
        })
    }

    /// Stack items the current tree needs per ray (for [`PipelineBuffers::new`]).
    pub fn pipeline_stack_need(&self) -> u32 {
        self.stack_need()
    }

    /// Renders `view` into `target` with `pipeline` (not synchronised for the single
    /// kernels; the multi-kernel pipeline waits for one count per round). With `times`, the
    /// stages are timed (each launch waits for its end).
    pub fn render_pipeline(
        &self,
        device: &CudaDevice,
        pipeline: IsoPipeline,
        view: &IsoView,
        shading: &Shading,
        target: &RenderTarget,
        buffers: &mut PipelineBuffers,
        times: Option<&mut StageTimes>,
    ) -> CudaResult<()> {
        match pipeline {
            IsoPipeline::Caster | IsoPipeline::CasterF32 | IsoPipeline::CasterF32R80 | IsoPipeline::CasterF32R64 => {
                self.render_with_caster(device, pipeline, view, shading, target)
            }
            IsoPipeline::Single => {
                let args = self.pipeline_args(device, view, shading, target, buffers)?;
                let function = device.function(&ISOSURFACE, PIPELINE_SINGLE)?;
                let mut launch = device.stream().launch_builder(&function);
                launch.arg(&args);
                // SAFETY: the argument is the kernel's IsoPipelineArgs over buffers of
                // `pixel_count` pixels (checked against the view and target above).
                let launched = unsafe { launch.launch(linear(buffers.slots / BLOCK)) };
                device.check_launch(PIPELINE_SINGLE, launched)
            }
            IsoPipeline::Multi(method) => {
                let args = self.pipeline_args(device, view, shading, target, buffers)?;
                let timing = times.is_some();
                let stopwatch = Stopwatch { timer: if timing { Some(device.timer()?) } else { None } };
                let mut untimed = StageTimes::default();
                run_multi(device, &args, method, buffers, &stopwatch, times.unwrap_or(&mut untimed))?;
                Ok(())
            }
        }
    }
}

/// The host loop of the multi-kernel pipeline.
fn run_multi(
    device: &CudaDevice,
    args: &IsoPipelineArgs,
    method: IsoCompaction,
    buffers: &mut PipelineBuffers,
    stopwatch: &Stopwatch<'_>,
    times: &mut StageTimes,
) -> CudaResult<()> {
    let n = buffers.slots;
    let suffix = method.suffix();
    if method == IsoCompaction::Cub && buffers.cub.is_none() {
        return Err(CudaError::InvalidArgument(
            "the `cub` pipeline needs CUB's library attached to its buffers (PipelineBuffers::attach_cub)".into(),
        ));
    }
    // Generation over every ray slot into traversal queue A.
    let tiles = n / BLOCK;
    let out = buffers.queues[TRAVERSE_A].output(device, method, tiles)?;
    stopwatch.start()?;
    {
        let function = device.function(&ISOSURFACE, GENERATE[suffix])?;
        let mut launch = device.stream().launch_builder(&function);
        launch.arg(args).arg(&out);
        // SAFETY: IsoPipelineArgs and IsoStageOut as the kernel declares them; the queue's
        // items, flags and intermediate buffer hold a slot per pixel (whole tiles).
        let launched = unsafe { launch.launch(linear(tiles)) };
        device.check_launch(GENERATE[suffix], launched)?;
    }
    stopwatch.add(&mut times.generate_ms)?;
    if method.writes_flags() {
        stopwatch.start()?;
        let PipelineBuffers { identity, queues, cub, .. } = buffers;
        let cub = cub_for(method, cub);
        compact_flags(device, cub, identity, &mut queues[TRAVERSE_A], n)?;
        stopwatch.add(&mut times.compaction_ms)?;
    }
    let shadows = args.frame.light_mode == super::LIGHT_SHADOWS;
    if shadows {
        buffers.shadow_count.clear(device)?;
    }
    let shadow_items = buffers.shadow_items.address(device);
    let shadow_count = buffers.shadow_count.address(device);
    let mut current = TRAVERSE_A;
    loop {
        let bound = buffers.queues[current].workspace.count(device)?;
        if bound == 0 {
            break;
        }
        times.rounds += 1;
        times.traversal_rays += bound as u64;
        let tiles = bound.div_ceil(BLOCK);
        let other = 1 - current;
        // Traversal: queue `current` → the intersection queue.
        let in_items = buffers.queues[current].items.address(device);
        let in_count = buffers.queues[current].count_address(device);
        let out = buffers.queues[INTERSECT_Q].output(device, method, tiles)?;
        stopwatch.start()?;
        {
            let function = device.function(&ISOSURFACE, TRAVERSE[suffix])?;
            let mut launch = device.stream().launch_builder(&function);
            launch.arg(args).arg(&in_items).arg(&in_count).arg(&bound).arg(&out);
            // SAFETY: the input queue holds `*in_count` ≤ bound pixels; the output's buffers
            // hold a slot per pixel.
            let launched = unsafe { launch.launch(linear(tiles)) };
            device.check_launch(TRAVERSE[suffix], launched)?;
        }
        stopwatch.add(&mut times.traverse_ms)?;
        if method.writes_flags() {
            stopwatch.start()?;
            let cub = cub_for(method, &buffers.cub);
            let (source, target) = pair(&mut buffers.queues, current, INTERSECT_Q);
            compact_flags(device, cub, &source.items, target, bound)?;
            stopwatch.add(&mut times.compaction_ms)?;
        }
        // Intersection: the intersection queue → traversal queue `other` and the shading queue.
        let in_items = buffers.queues[INTERSECT_Q].items.address(device);
        let in_count = buffers.queues[INTERSECT_Q].count_address(device);
        let to_traverse = buffers.queues[other].output(device, method, tiles)?;
        let to_shade = buffers.queues[SHADE_Q].output(device, method, tiles)?;
        stopwatch.start()?;
        {
            let function = device.function(&ISOSURFACE, INTERSECT[suffix])?;
            let mut launch = device.stream().launch_builder(&function);
            launch.arg(args).arg(&in_items).arg(&in_count).arg(&bound).arg(&to_traverse).arg(&to_shade);
            // SAFETY: as for traversal; two outputs, each with a slot per pixel.
            let launched = unsafe { launch.launch(linear(tiles)) };
            device.check_launch(INTERSECT[suffix], launched)?;
        }
        stopwatch.add(&mut times.intersect_ms)?;
        if method.writes_flags() {
            stopwatch.start()?;
            let cub = cub_for(method, &buffers.cub);
            let (source, target) = pair(&mut buffers.queues, INTERSECT_Q, other);
            compact_flags(device, cub, &source.items, target, bound)?;
            let (source, target) = pair(&mut buffers.queues, INTERSECT_Q, SHADE_Q);
            compact_flags(device, cub, &source.items, target, bound)?;
            stopwatch.add(&mut times.compaction_ms)?;
        }
        // Shading of this round's hits.
        let shade_items = buffers.queues[SHADE_Q].items.address(device);
        let shade_count = buffers.queues[SHADE_Q].count_address(device);
        stopwatch.start()?;
        {
            let function = device.function(&ISOSURFACE, SHADE)?;
            let mut launch = device.stream().launch_builder(&function);
            launch.arg(args).arg(&shade_items).arg(&shade_count).arg(&shadow_items).arg(&shadow_count);
            // SAFETY: the shading queue holds `*shade_count` ≤ bound pixels with their normals;
            // the shadow queue a slot per pixel (each pixel is shaded once a frame).
            let launched = unsafe { launch.launch(linear(tiles)) };
            device.check_launch(SHADE, launched)?;
        }
        stopwatch.add(&mut times.shade_ms)?;
        current = other;
    }
    // Every shadow ray of the frame in one launch (timed as shading).
    if shadows {
        let count = buffers.shadow_count.download(device)?[0];
        if count > 0 {
            stopwatch.start()?;
            let function = device.function(&ISOSURFACE, SHADOWS)?;
            let mut launch = device.stream().launch_builder(&function);
            launch.arg(args).arg(&shadow_items).arg(&shadow_count);
            // SAFETY: the shadow queue holds `count` pixels whose normals and t are stored.
            let launched = unsafe { launch.launch(linear(count.div_ceil(BLOCK))) };
            device.check_launch(SHADOWS, launched)?;
            stopwatch.add(&mut times.shade_ms)?;
        }
    }
    Ok(())
}

/// Queue `a` shared and queue `b` mutable (a ≠ b).
fn pair(queues: &mut [Queue], a: usize, b: usize) -> (&Queue, &mut Queue) {
    assert_ne!(a, b);
    if a < b {
        let (left, right) = queues.split_at_mut(b);
        (&left[a], &mut right[0])
    } else {
        let (left, right) = queues.split_at_mut(a);
        (&right[0], &mut left[b])
    }
}
