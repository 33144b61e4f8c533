//! The multi-stage wavefront's host loops (Laine, Karras & Aila 2013), one per estimator's
//! stage list (its device arrays: `queues.rs`), with queue lengths read back between stages. The surface
//! estimator, per bounce: intersect, shade once per material kind, trace shadow rays, finish
//! ended paths (`kernels/surface/stages.cuh`). The volumetric estimator, per bounce: track to
//! the next vertex, scatter at the pending medium vertices, finish (`kernels/volume/stages.cuh`).

use super::args::{ScheduleArgs, SurfaceScheduleArgs};
use super::launch::{SurfaceStage, VolumeStage};
use super::queues::{MULTISTAGE_KINDS, MultiStageBuffers};
use super::renderer::{BLOCK, StrategyRenderer};
use crate::error::CudaResult;
use crate::volume_upload::DeviceVolumeSceneArgs;

const COUNT_NEXT: usize = 0;
const COUNT_FINISHED: usize = 1;
const COUNT_SHADOW: usize = 2;
const COUNT_KIND: usize = 3;

impl StrategyRenderer<'_> {
    /// The buffers for a wave of `wave` paths (grown, never shrunk), counts cleared.
    fn multistage_buffers(&mut self, wave: u32) -> CudaResult<&mut MultiStageBuffers> {
        let device = self.device;
        if self.multistage.as_ref().is_none_or(|m| m.capacity < wave) {
            self.multistage = None;
            self.multistage = Some(MultiStageBuffers::new(device, wave)?);
        }
        let buffers = self.multistage.as_mut().expect("allocated above");
        buffers.counts.clear(device)?;
        Ok(buffers)
    }

    /// The queue lengths the last stage left.
    fn multistage_counts(&self) -> CudaResult<Vec<u32>> {
        self.multistage.as_ref().expect("allocated by multistage_buffers").counts.download(self.device)
    }

    /// The surface estimator's stage list: generate, then per bounce intersect, shade per
    /// material kind, trace shadow rays, finish ended paths.
    pub(super) fn run_surface_stages(&mut self, args: &SurfaceScheduleArgs) -> CudaResult<()> {
        let device = self.device;
        // generate writes extend_out of view 1, i.e. extend[0]: the first input.
        let queues = self.multistage_buffers(args.wave_paths)?.queues(device, 1);
        self.launcher(args).surface_stage(SurfaceStage::Generate, BLOCK, &queues, 0, 0)?;
        let mut current = 0usize;
        let mut count = self.multistage_counts()?[COUNT_NEXT];
        while count > 0 {
            let queues = self.multistage_buffers(args.wave_paths)?.queues(device, current);
            let launch = self.launcher(args);
            launch.surface_stage(SurfaceStage::Intersect, BLOCK, &queues, 0, count)?;
            let after_intersect = self.multistage_counts()?;
            for kind in 0..MULTISTAGE_KINDS {
                launch.surface_stage(
                    SurfaceStage::Shade,
                    BLOCK,
                    &queues,
                    kind as u32,
                    after_intersect[COUNT_KIND + kind],
                )?;
            }
            let after_shade = self.multistage_counts()?;
            launch.surface_stage(SurfaceStage::Shadow, BLOCK, &queues, 0, after_shade[COUNT_SHADOW])?;
            launch.surface_stage(SurfaceStage::Finish, BLOCK, &queues, 0, after_shade[COUNT_FINISHED])?;
            count = after_shade[COUNT_NEXT];
            current = 1 - current;
        }
        Ok(())
    }

    /// The volumetric estimator's stage list: generate, then per bounce track every path to
    /// its next vertex, scatter at the pending medium vertices, finish ended paths.
    pub(super) fn run_volume_stages(&mut self, args: &ScheduleArgs<DeviceVolumeSceneArgs>) -> CudaResult<()> {
        let device = self.device;
        let queues = self.multistage_buffers(args.wave_paths)?.queues(device, 1);
        self.launcher(args).volume_stage(VolumeStage::Generate, BLOCK, &queues, 0)?;
        let mut current = 0usize;
        let mut count = self.multistage_counts()?[COUNT_NEXT];
        while count > 0 {
            let queues = self.multistage_buffers(args.wave_paths)?.queues(device, current);
            let launch = self.launcher(args);
            launch.volume_stage(VolumeStage::Track, BLOCK, &queues, count)?;
            let after_track = self.multistage_counts()?;
            launch.volume_stage(VolumeStage::Scatter, BLOCK, &queues, after_track[COUNT_KIND])?;
            let after_scatter = self.multistage_counts()?;
            launch.volume_stage(VolumeStage::Finish, BLOCK, &queues, after_scatter[COUNT_FINISHED])?;
            count = after_scatter[COUNT_NEXT];
            current = 1 - current;
        }
        Ok(())
    }
}
