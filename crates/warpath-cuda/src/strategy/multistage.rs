//! The multi-stage wavefront's device arrays and host loops (Laine, Karras & Aila 2013), one
//! per estimator's stage list, with queue lengths read back between stages. The surface
//! estimator, per bounce: intersect, shade once per material kind, trace shadow rays, finish
//! ended paths (`kernels/surface/stages.cuh`). The volumetric estimator, per bounce: track to
//! the next vertex, scatter at the pending medium vertices, finish (`kernels/volume/stages.cuh`).

pub use super::args::MultiStageQueues;
use super::args::{ScheduleArgs, SurfaceScheduleArgs};
use super::launch::{SurfaceStage, VolumeStage};
use super::renderer::{BLOCK, StrategyRenderer};
use crate::buffer::DeviceBuffer;
use crate::error::CudaResult;
use crate::runtime::CudaDevice;
use crate::volume_upload::DeviceVolumeSceneArgs;

/// Queues of the middle stage (`MULTISTAGE_KINDS`): the surface estimator's shade queues, one
/// per material kind; the volumetric estimator's scatter queue is the first.
const MULTISTAGE_KINDS: usize = 8;

/// The multi-stage wavefront's device arrays for a wave of `capacity` paths.
pub(crate) struct MultiStageBuffers {
    path_words: [DeviceBuffer<[f32; 4]>; 4],
    hits: DeviceBuffer<[f32; 4]>,
    extend: [DeviceBuffer<u32>; 2],
    material_ids: DeviceBuffer<u32>,
    shadow_ids: DeviceBuffer<u32>,
    shadow_words: [DeviceBuffer<[f32; 4]>; 3],
    finished_ids: DeviceBuffer<u32>,
    counts: DeviceBuffer<u32>,
    capacity: u32,
}

impl MultiStageBuffers {
    pub(super) fn new(device: &CudaDevice, capacity: u32) -> CudaResult<Self> {
        let n = capacity as usize;
        let words = || DeviceBuffer::<[f32; 4]>::zeroed(device, n);
        let ids = || DeviceBuffer::<u32>::zeroed(device, n);
        Ok(MultiStageBuffers {
            path_words: [words()?, words()?, words()?, words()?],
            hits: words()?,
            extend: [ids()?, ids()?],
            material_ids: DeviceBuffer::zeroed(device, n * MULTISTAGE_KINDS)?,
            shadow_ids: ids()?,
            shadow_words: [words()?, words()?, words()?],
            finished_ids: ids()?,
            counts: DeviceBuffer::zeroed(device, 3 + MULTISTAGE_KINDS)?,
            capacity,
        })
    }

    /// The kernels' view, with extend queue `current` as the input.
    fn queues(&self, device: &CudaDevice, current: usize) -> MultiStageQueues {
        MultiStageQueues {
            origin_pixel: self.path_words[0].address(device),
            direction_sample: self.path_words[1].address(device),
            throughput_pdf: self.path_words[2].address(device),
            radiance_bounce: self.path_words[3].address(device),
            hits: self.hits.address(device),
            extend_in: self.extend[current].address(device),
            extend_out: self.extend[1 - current].address(device),
            material_ids: self.material_ids.address(device),
            shadow_ids: self.shadow_ids.address(device),
            shadow_origin_tmax: self.shadow_words[0].address(device),
            shadow_direction: self.shadow_words[1].address(device),
            shadow_contribution: self.shadow_words[2].address(device),
            finished_ids: self.finished_ids.address(device),
            counts: self.counts.address(device),
            capacity: self.capacity,
            _pad: 0,
        }
    }

    /// Bytes per path slot: four path words, a hit, two extend ids, a material-queue id
    /// per kind, a shadow entry (id + three words) and a finished id.
    const BYTES_PER_PATH: usize = 4 * 16 + 16 + 2 * 4 + MULTISTAGE_KINDS * 4 + 4 + 3 * 16 + 4;
}

/// Bytes of device memory per path of the multi-stage wavefront (SoA state and queues).
pub const MULTISTAGE_BYTES_PER_PATH: usize = MultiStageBuffers::BYTES_PER_PATH;

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
