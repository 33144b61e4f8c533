//! The layout reports: kernels that write the device compiler's sizes and field offsets of
//! the structs shared with the GPU, in the order of the Rust side's `layout_entries` lists
//! (the GPU tests compare the two; without a GPU the headers' `static_assert`s are compared
//! with the same lists).

use crate::buffer::DeviceBuffer;
use crate::catalog::{
    Kernel, LAYOUT_REPORT, LayoutReportArgs, MEGAKERNEL_LAYOUT_REPORT, STRATEGIES_LAYOUT_REPORT, VOLUME_LAYOUT_REPORT,
};
use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use cudarc::driver::LaunchConfig;

/// `layout_report` (kernels/layout_check.cu): every GPU-shared struct of
/// [`crate::layout::layout_entries`].
pub fn device_layout_report(device: &CudaDevice) -> CudaResult<Vec<u64>> {
    run_layout_report(device, LAYOUT_REPORT, 256)
}

/// `megakernel_layout_report` (surface_megakernel.cu): the surface estimator's structs of
/// [`crate::scene_upload::layout_entries`].
pub fn megakernel_layout_report(device: &CudaDevice) -> CudaResult<Vec<u64>> {
    run_layout_report(device, MEGAKERNEL_LAYOUT_REPORT, 128)
}

/// `volume_layout_report` (volume_megakernel.cu): the volumetric estimator's structs of
/// [`crate::volume_upload::layout_entries`].
pub fn volume_layout_report(device: &CudaDevice) -> CudaResult<Vec<u64>> {
    run_layout_report(device, VOLUME_LAYOUT_REPORT, 64)
}

/// `strategies_layout_report` (surface_stages.cu): the schedules' structs of
/// [`crate::strategy::layout_entries`].
pub fn strategies_layout_report(device: &CudaDevice) -> CudaResult<Vec<u64>> {
    run_layout_report(device, STRATEGIES_LAYOUT_REPORT, 96)
}

/// Launches a layout-report kernel `(unsigned long long* values, unsigned int capacity,
/// unsigned int* written)` and returns the values it wrote.
fn run_layout_report(device: &CudaDevice, kernel: Kernel<LayoutReportArgs>, capacity: u32) -> CudaResult<Vec<u64>> {
    let name = kernel.name();
    let mut values = DeviceBuffer::<u64>::zeroed(device, capacity as usize)?;
    let mut written = DeviceBuffer::<u32>::zeroed(device, 1)?;
    // `values` holds `capacity` entries and the kernel writes no more.
    let config = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
    device.launch(kernel, config, (values.raw_mut().into(), capacity, written.raw_mut().into()))?;
    let count = written.download(device)?[0];
    if count > capacity {
        return Err(CudaError::InvalidArgument(format!("{name} wrote {count} entries, more than {capacity}")));
    }
    let mut report = values.download(device)?;
    report.truncate(count as usize);
    Ok(report)
}
