//! The whole-frame wavefront's host loop (seed 000 §3.4): one extend launch per bounce over
//! the live paths, their count read back to size the next launch, with the compaction
//! method of [`WavefrontCompaction`] (kernels: `kernels/schedules/wavefront.cuh`).

use super::args::{CompactionState, ScheduleArgs, WavefrontBuffers};
use super::catalog::WavefrontCompaction;
use super::renderer::{BLOCK, EstimatorScene, StrategyRenderer};
use crate::buffer::DeviceBuffer;
use crate::compaction::{CompactionWorkspace, out_of_kernel_prefix};
use crate::error::CudaResult;

impl StrategyRenderer<'_> {
    /// Whole-frame wavefront: one launch per bounce until no path is left. With launch
    /// timing on, each bounce's launches are timed as that step ([`KernelTimes`]'s per-step
    /// times: the per-bounce times of [`super::LaunchTimes`]).
    ///
    /// [`KernelTimes`]: crate::runtime::KernelTimes
    pub(super) fn run_wavefront<S: EstimatorScene>(
        &mut self,
        args: &ScheduleArgs<S>,
        method: WavefrontCompaction,
    ) -> CudaResult<()> {
        let result = self.run_wavefront_bounces(args, method);
        self.device.set_timing_step(0);
        result
    }

    fn run_wavefront_bounces<S: EstimatorScene>(
        &mut self,
        args: &ScheduleArgs<S>,
        method: WavefrontCompaction,
    ) -> CudaResult<()> {
        let device = self.device;
        let wave = args.wave_paths;
        let paths = [self.path_buffer(0, wave as usize)?, self.path_buffer(1, wave as usize)?];
        // InK-Compact's intermediate buffer: whole tiles of the largest launch.
        let intermediate = if method == WavefrontCompaction::Sections {
            self.path_buffer(2, wave.next_multiple_of(BLOCK) as usize)?
        } else {
            0
        };
        let max_tiles = wave.div_ceil(BLOCK);
        if self.compaction.is_none() {
            self.compaction = Some(CompactionWorkspace::new(device, max_tiles)?);
        }
        if method == WavefrontCompaction::Separate {
            if self.flags.as_ref().is_none_or(|f| f.len() < wave as usize) {
                self.flags = None;
                self.flags = Some(DeviceBuffer::zeroed(device, wave as usize)?);
            }
            if self.separate_compaction.is_none() {
                self.separate_compaction = Some(CompactionWorkspace::for_elements(device, wave as usize)?);
            }
        }
        let flags = self.flags.as_ref().map_or(0, |f| f.address(device));

        let mut current = 0usize;
        let mut in_count = wave;
        let mut first = true;
        let mut bounce = 0usize;
        loop {
            let in_place = matches!(method, WavefrontCompaction::None | WavefrontCompaction::Separate);
            let (input, output) = (paths[current], if in_place { paths[current] } else { paths[1 - current] });
            let grid = in_count.div_ceil(BLOCK);
            let workspace = self.compaction.as_mut().expect("allocated above");
            workspace.ensure(device, grid.max(1))?;
            workspace.reset(device, grid.max(1))?;
            let state = workspace.pointers(device, grid.max(1));
            let buffers =
                WavefrontBuffers { input, output, flags, intermediate, state: CompactionState::new(state, grid) };
            device.set_timing_step(bounce);
            self.launcher(args).wavefront_extend(method, grid, BLOCK, &buffers, in_count, first)?;
            let mut survivors = self.compaction.as_ref().expect("allocated above").count(device)?;
            if method == WavefrontCompaction::Separate && survivors > 0 {
                let [a, b, _] = &mut self.paths;
                let (source, target) = if current == 0 { (a, b) } else { (b, a) };
                let (source, target) = (source.as_ref().expect("allocated"), target.as_mut().expect("allocated"));
                let flag_buffer = self.flags.as_ref().expect("allocated above");
                let workspace = self.separate_compaction.as_mut().expect("allocated above");
                out_of_kernel_prefix(device, source, flag_buffer, target, workspace, in_count)?;
                survivors = workspace.count(device)?;
            }
            bounce += 1;
            if survivors == 0 {
                return Ok(());
            }
            if method != WavefrontCompaction::None {
                current = 1 - current;
                in_count = survivors;
            }
            first = false;
        }
    }
}
