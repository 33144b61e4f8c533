//! Host loops of the two pool strategies of seed 003 with a kernel per step: regen-device
//! (regenerate dead slots, extend live ones) and streaming-mk (extend with device-wide
//! InK-Collate, then append new camera paths after the survivors).

use super::args::{CompactionState, ScheduleArgs, WavefrontBuffers};
use super::catalog::WavefrontCompaction;
use super::launch::RegenDeviceKernel;
use super::renderer::{BLOCK, EstimatorScene, StrategyRenderer};
use crate::compaction::CompactionWorkspace;
use crate::error::CudaResult;

impl StrategyRenderer<'_> {
    /// Device regeneration: fill dead pool slots, extend live ones, until the wave is done.
    pub(super) fn run_regen_device<S: EstimatorScene>(&mut self, args: &ScheduleArgs<S>) -> CudaResult<()> {
        let grid = self.resident_grid(S::SCHEDULES.regen_device_extend.entry(), BLOCK)? * self.pool_factor;
        let pool_size = grid * BLOCK;
        // Every slot starts dead (zero): another strategy may have left paths in the buffer.
        let pool = self.path_buffer(0, pool_size as usize)?;
        if let Some(buffer) = &mut self.paths[0] {
            buffer.clear(self.device)?;
        }
        loop {
            let launcher = self.launcher(args);
            launcher.regen_device(RegenDeviceKernel::Fill, grid, BLOCK, pool, pool_size)?;
            launcher.regen_device(RegenDeviceKernel::Extend, grid, BLOCK, pool, pool_size)?;
            let [next, live] = self.read_work()?;
            if next >= args.wave_paths && live == 0 {
                return Ok(());
            }
            self.reset_work(next, 0)?;
        }
    }

    /// Device compaction plus regeneration: regenerate after the survivors, extend, collate.
    pub(super) fn run_streaming_mk<S: EstimatorScene>(&mut self, args: &ScheduleArgs<S>) -> CudaResult<()> {
        let device = self.device;
        let capacity = self.resident_grid(S::SCHEDULES.wavefront_collate.entry(), BLOCK)? * BLOCK * self.pool_factor;
        let buffers = [self.path_buffer(0, capacity as usize)?, self.path_buffer(1, capacity as usize)?];
        if self.compaction.is_none() {
            self.compaction = Some(CompactionWorkspace::new(device, capacity.div_ceil(BLOCK))?);
        }
        let (mut current, mut live, mut next) = (0usize, 0u32, 0u32);
        loop {
            let new = (capacity - live).min(args.wave_paths - next);
            if new > 0 {
                self.launcher(args).streaming_mk_regen(BLOCK, buffers[current], live, next, new)?;
            }
            next += new;
            let in_count = live + new;
            if in_count == 0 {
                return Ok(());
            }
            let grid = in_count.div_ceil(BLOCK);
            let workspace = self.compaction.as_mut().expect("allocated above");
            workspace.ensure(device, grid)?;
            workspace.reset(device, grid)?;
            let state = workspace.pointers(device, grid);
            let (input, output) = (buffers[current], buffers[1 - current]);
            let wave_buffers =
                WavefrontBuffers { input, output, flags: 0, intermediate: 0, state: CompactionState::new(state, grid) };
            self.launcher(args).wavefront_extend(
                WavefrontCompaction::Collate,
                grid,
                BLOCK,
                &wave_buffers,
                in_count,
                false,
            )?;
            live = self.compaction.as_ref().expect("allocated above").count(device)?;
            current = 1 - current;
        }
    }
}
