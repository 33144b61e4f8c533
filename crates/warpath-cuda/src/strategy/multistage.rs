//! The multi-stage wavefront's device arrays and host loop (Laine, Karras & Aila 2013): per
//! bounce intersect, shade once per material kind, trace shadow rays, finish ended paths,
//! with queue lengths read back between stages (kernels: `kernels/surface/stages.cuh`).

pub use super::args::MultiStageQueues;
use super::args::SurfaceScheduleArgs;
use super::launch::SurfaceStage;
use super::renderer::{BLOCK, StrategyRenderer};
use crate::buffer::DeviceBuffer;
use crate::error::CudaResult;
use crate::runtime::CudaDevice;

/// Material kinds, each with its own shade queue (`MULTISTAGE_KINDS`).
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

impl StrategyRenderer<'_> {
    /// The multi-stage wavefront: generate, then per bounce intersect, shade per material
    /// kind, trace shadow rays, finish ended paths; queue lengths read back between stages.
    pub(super) fn run_multistage(&mut self, args: &SurfaceScheduleArgs) -> CudaResult<()> {
        let device = self.device;
        let wave = args.wave_paths;
        if self.multistage.as_ref().is_none_or(|m| m.capacity < wave) {
            self.multistage = None;
            self.multistage = Some(MultiStageBuffers::new(device, wave)?);
        }
        let buffers = self.multistage.as_mut().expect("allocated above");
        buffers.counts.clear(device)?;
        // generate writes extend_out of view 1, i.e. extend[0]: the first input.
        let mut current = 0usize;
        let queues = buffers.queues(device, 1);
        let counts = |buffers: &MultiStageBuffers| -> CudaResult<Vec<u32>> { buffers.counts.download(device) };
        self.launch_stage(SurfaceStage::Generate, args, &queues, 0, wave)?;
        let buffers = self.multistage.as_ref().expect("allocated above");
        let mut count = counts(buffers)?[0];
        while count > 0 {
            let buffers = self.multistage.as_mut().expect("allocated above");
            buffers.counts.clear(device)?;
            let queues = buffers.queues(device, current);
            self.launch_stage(SurfaceStage::Intersect, args, &queues, 0, count)?;
            let after_intersect = counts(self.multistage.as_ref().expect("allocated above"))?;
            for kind in 0..MULTISTAGE_KINDS {
                let n = after_intersect[3 + kind];
                if n > 0 {
                    self.launch_stage(SurfaceStage::Shade, args, &queues, kind as u32, n)?;
                }
            }
            let after_shade = counts(self.multistage.as_ref().expect("allocated above"))?;
            let (next, finished, shadows) = (after_shade[0], after_shade[1], after_shade[2]);
            self.launch_stage(SurfaceStage::Shadow, args, &queues, 0, shadows)?;
            self.launch_stage(SurfaceStage::Finish, args, &queues, 0, finished)?;
            count = next;
            current = 1 - current;
        }
        Ok(())
    }

    /// Launches `stage` over `count` queue entries (the wave for Generate).
    fn launch_stage(
        &mut self,
        stage: SurfaceStage,
        args: &SurfaceScheduleArgs,
        queues: &MultiStageQueues,
        kind: u32,
        count: u32,
    ) -> CudaResult<()> {
        if count == 0 {
            return Ok(());
        }
        self.launcher(args).surface_stage(stage, BLOCK, queues, kind, count)
    }
}
