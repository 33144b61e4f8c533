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
//! their compaction state); [`StageTimes`] the GPU time of each stage when asked for (a view
//! of the frame's [`KernelTimes`]).

use super::args::{IsoPipelineArgs, IsoStageOut};
use super::{DeviceIsosurface, RenderTarget};
use crate::buffer::DeviceBuffer;
use crate::catalog::{
    ISO_GENERATE_COLLATE, ISO_GENERATE_COMPACT, ISO_GENERATE_FLAGS, ISO_GENERATE_LOOKBACK, ISO_INTERSECT_COLLATE,
    ISO_INTERSECT_COMPACT, ISO_INTERSECT_FLAGS, ISO_INTERSECT_LOOKBACK, ISO_PIPELINE_SINGLE, ISO_SHADE,
    ISO_SHADE_SHADOWS, ISO_TRAVERSE_COLLATE, ISO_TRAVERSE_COMPACT, ISO_TRAVERSE_FLAGS, ISO_TRAVERSE_LOOKBACK,
    IsoIntersectArgs, IsoTraverseArgs, Kernel,
};
use crate::compaction::{CompactionState, CompactionWorkspace, out_of_kernel_prefix};
use crate::cub_library::CubLibrary;
use crate::error::{CudaError, CudaResult};
use crate::runtime::{CudaDevice, KernelTimes};
use cudarc::driver::LaunchConfig;
use std::sync::Arc;
use warpath_isosurface::render::{IsoView, Shading};

/// The name CUB's selection is timed under (not a kernel of the catalog).
const CUB_SELECT: &str = "cub_select_flagged";
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

/// The stage kernels per compaction suffix ([`IsoCompaction::suffix`]): collate, compact,
/// lookback, flags.
const GENERATE: [Kernel<(IsoPipelineArgs, IsoStageOut)>; 4] =
    [ISO_GENERATE_COLLATE, ISO_GENERATE_COMPACT, ISO_GENERATE_LOOKBACK, ISO_GENERATE_FLAGS];
const TRAVERSE: [Kernel<IsoTraverseArgs>; 4] =
    [ISO_TRAVERSE_COLLATE, ISO_TRAVERSE_COMPACT, ISO_TRAVERSE_LOOKBACK, ISO_TRAVERSE_FLAGS];
const INTERSECT: [Kernel<IsoIntersectArgs>; 4] =
    [ISO_INTERSECT_COLLATE, ISO_INTERSECT_COMPACT, ISO_INTERSECT_LOOKBACK, ISO_INTERSECT_FLAGS];

/// GPU milliseconds per stage of the frames timed so far, and the rounds they took: the
/// frames' [`KernelTimes`] summed by stage.
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

impl StageTimes {
    /// Adds a frame's kernel times: each stage's kernels to it, the rest (the OfK passes'
    /// compaction kernels, CUB's selection) to compaction.
    fn add(&mut self, times: &KernelTimes) {
        let ms = |kernels: &[&str]| kernels.iter().map(|k| times.ms(k)).sum::<f64>();
        let generate = ms(&GENERATE.map(|k| k.name()));
        let traverse = ms(&TRAVERSE.map(|k| k.name()));
        let intersect = ms(&INTERSECT.map(|k| k.name()));
        let shade = ms(&[ISO_SHADE.name(), ISO_SHADE_SHADOWS.name()]);
        self.generate_ms += generate;
        self.traverse_ms += traverse;
        self.intersect_ms += intersect;
        self.shade_ms += shade;
        self.compaction_ms += times.total_ms() - (generate + traverse + intersect + shade);
    }
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
            device.timed(CUB_SELECT, || {
                cub.library.select_flagged(device, &cub.temp, source, &target.flags, &target.items, count, n)
            })
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
                // The buffers hold `pixel_count` pixels (checked against the view and target).
                let args = self.pipeline_args(device, view, shading, target, buffers)?;
                device.launch(ISO_PIPELINE_SINGLE, linear(buffers.slots / BLOCK), (args,))
            }
            IsoPipeline::Multi(method) => {
                let args = self.pipeline_args(device, view, shading, target, buffers)?;
                let mut kernels = times.is_some().then(KernelTimes::default);
                let mut untimed = StageTimes::default();
                let times = times.unwrap_or(&mut untimed);
                device.timing(kernels.as_mut(), || run_multi(device, &args, method, buffers, times))?;
                if let Some(kernels) = &kernels {
                    times.add(kernels);
                }
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
    // The queue's items, flags and intermediate buffer hold a slot per pixel (whole tiles).
    device.launch(GENERATE[suffix], linear(tiles), (*args, out))?;
    if method.writes_flags() {
        let PipelineBuffers { identity, queues, cub, .. } = buffers;
        let cub = cub_for(method, cub);
        compact_flags(device, cub, identity, &mut queues[TRAVERSE_A], n)?;
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
        // The input queue holds `*in_count` ≤ bound pixels; the output's buffers hold a slot
        // per pixel.
        device.launch(TRAVERSE[suffix], linear(tiles), (*args, in_items.into(), in_count.into(), bound, out))?;
        if method.writes_flags() {
            let cub = cub_for(method, &buffers.cub);
            let (source, target) = pair(&mut buffers.queues, current, INTERSECT_Q);
            compact_flags(device, cub, &source.items, target, bound)?;
        }
        // Intersection: the intersection queue → traversal queue `other` and the shading queue.
        let in_items = buffers.queues[INTERSECT_Q].items.address(device);
        let in_count = buffers.queues[INTERSECT_Q].count_address(device);
        let to_traverse = buffers.queues[other].output(device, method, tiles)?;
        let to_shade = buffers.queues[SHADE_Q].output(device, method, tiles)?;
        // As for traversal; two outputs, each with a slot per pixel.
        let intersect_args = (*args, in_items.into(), in_count.into(), bound, to_traverse, to_shade);
        device.launch(INTERSECT[suffix], linear(tiles), intersect_args)?;
        if method.writes_flags() {
            let cub = cub_for(method, &buffers.cub);
            let (source, target) = pair(&mut buffers.queues, INTERSECT_Q, other);
            compact_flags(device, cub, &source.items, target, bound)?;
            let (source, target) = pair(&mut buffers.queues, INTERSECT_Q, SHADE_Q);
            compact_flags(device, cub, &source.items, target, bound)?;
        }
        // Shading of this round's hits.
        let shade_items = buffers.queues[SHADE_Q].items.address(device);
        let shade_count = buffers.queues[SHADE_Q].count_address(device);
        // The shading queue holds `*shade_count` ≤ bound pixels with their normals; the shadow
        // queue a slot per pixel (each pixel is shaded once a frame).
        let shade_args = (*args, shade_items.into(), shade_count.into(), shadow_items.into(), shadow_count.into());
        device.launch(ISO_SHADE, linear(tiles), shade_args)?;
        current = other;
    }
    // Every shadow ray of the frame in one launch (timed as shading).
    if shadows {
        let count = buffers.shadow_count.download(device)?[0];
        if count > 0 {
            // The shadow queue holds `count` pixels whose normals and t are stored.
            let shadow_args = (*args, shadow_items.into(), shadow_count.into());
            device.launch(ISO_SHADE_SHADOWS, linear(count.div_ceil(BLOCK)), shadow_args)?;
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
