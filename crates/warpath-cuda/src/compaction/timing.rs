//! GPU time of a compaction method, and of a device-to-device copy of the same input, for
//! `warpath-bench compaction` (crates/warpath-bench): CUDA events around each run
//! after untimed warm-up runs, launches not waited for on the host in between.

use super::buffers::CompactionBuffers;
use super::elements::CompactionElement;
use super::methods::CompactionMethod;
use crate::error::CudaResult;
use crate::runtime::CudaDevice;

/// Milliseconds of each of `timed_runs` runs of `method` on `buffers` after `warmup_runs`
/// untimed ones. A run includes the memset that zeroes the method's state, as CUB's timed
/// call includes its tile-state initialisation; OfK uses the flags as they are.
pub fn time_method<T: CompactionElement>(
    device: &CudaDevice,
    buffers: &mut CompactionBuffers<T>,
    method: CompactionMethod,
    threshold: u64,
    warmup_runs: usize,
    timed_runs: usize,
) -> CudaResult<Vec<f32>> {
    device.time_runs(warmup_runs, timed_runs, || buffers.run(device, method, threshold))
}

/// Milliseconds of each of `timed_runs` device-to-device copies (`cuMemcpyDtoDAsync`) of the
/// input into the output, after `warmup_runs` untimed ones: the memory bandwidth a
/// compaction is compared with.
pub fn time_input_copy<T: CompactionElement>(
    device: &CudaDevice,
    buffers: &mut CompactionBuffers<T>,
    warmup_runs: usize,
    timed_runs: usize,
) -> CudaResult<Vec<f32>> {
    let CompactionBuffers { input, output, .. } = buffers;
    device.time_runs(warmup_runs, timed_runs, || {
        device
            .stream()
            .memcpy_dtod(input.raw(), output.raw_mut())
            .map_err(|e| device.fault("copying device to device", e))
    })
}

/// The median of run times in milliseconds (the mean of the middle two for an even count).
pub fn median_ms(run_ms: &[f32]) -> f32 {
    crate::runtime::median(run_ms)
}
