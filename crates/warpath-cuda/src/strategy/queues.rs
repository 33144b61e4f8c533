//! The multi-stage wavefront's device arrays (kernels: `kernels/schedules/multistage.cuh`):
//! the paths as structure-of-arrays, the queues of path ids between the stages and their
//! lengths, for a wave of paths. The host loops that run the stages over them are
//! `multistage.rs`.

pub use super::args::MultiStageQueues;
use crate::buffer::DeviceBuffer;
use crate::error::CudaResult;
use crate::runtime::CudaDevice;

/// Queues of the middle stage (`MULTISTAGE_KINDS`): the surface estimator's shade queues, one
/// per material kind; the volumetric estimator's scatter queue is the first.
pub(super) const MULTISTAGE_KINDS: usize = 8;

/// The multi-stage wavefront's device arrays for a wave of `capacity` paths.
pub(crate) struct MultiStageBuffers {
    path_words: [DeviceBuffer<[f32; 4]>; 4],
    hits: DeviceBuffer<[f32; 4]>,
    extend: [DeviceBuffer<u32>; 2],
    material_ids: DeviceBuffer<u32>,
    shadow_ids: DeviceBuffer<u32>,
    shadow_words: [DeviceBuffer<[f32; 4]>; 3],
    finished_ids: DeviceBuffer<u32>,
    pub(super) counts: DeviceBuffer<u32>,
    pub(super) capacity: u32,
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
    pub(super) fn queues(&self, device: &CudaDevice, current: usize) -> MultiStageQueues {
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
