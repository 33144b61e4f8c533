//! [`CompactionBuffers`]: the device buffers one compaction of `n` elements needs for every
//! method (input, output, InK-Compact's intermediate buffer, OfK's flags, the workspace), and
//! running any [`CompactionMethod`] on them: what the GPU tests and the benchmark use.

use super::elements::CompactionElement;
use super::launch::{SectionsKernel, collate, intermediate_len, lookback, out_of_kernel, sections, three_pass};
use super::methods::{CompactionMethod, MethodKernels};
use super::workspace::CompactionWorkspace;
use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;

/// The buffers one compaction of `n` elements of `T` needs, for every method.
pub struct CompactionBuffers<T: CompactionElement> {
    pub input: DeviceBuffer<T>,
    pub output: DeviceBuffer<T>,
    /// InK-Compact's intermediate buffer (whole tiles of the tiled and the x1 kernels).
    pub intermediate: DeviceBuffer<T>,
    /// OfK's flag array (written by [`super::write_flags`]).
    pub flags: DeviceBuffer<u8>,
    pub workspace: CompactionWorkspace,
}

impl<T: CompactionElement> CompactionBuffers<T> {
    /// Allocates for `input` (already on the device).
    pub fn new(device: &CudaDevice, input: DeviceBuffer<T>) -> CudaResult<Self> {
        let n = input.len();
        let intermediate = [SectionsKernel::Tiled, SectionsKernel::X1]
            .into_iter()
            .map(|kernel| intermediate_len(kernel, T::KIND, n))
            .max()
            .unwrap_or(0);
        Ok(CompactionBuffers {
            output: DeviceBuffer::zeroed(device, n)?,
            intermediate: DeviceBuffer::zeroed(device, intermediate)?,
            flags: DeviceBuffer::zeroed(device, n)?,
            workspace: CompactionWorkspace::for_elements(device, n)?,
            input,
        })
    }

    /// Runs `method` (OfK uses the flags as they are: call [`super::write_flags`] first); the
    /// count lands in the workspace.
    pub fn run(&mut self, device: &CudaDevice, method: CompactionMethod, threshold: u64) -> CudaResult<()> {
        let CompactionBuffers { input, output, intermediate, flags, workspace } = self;
        match method.kernels() {
            MethodKernels::Collate(kernel) => collate(device, kernel, input, output, workspace, threshold),
            MethodKernels::Sections(kernel) => {
                sections(device, kernel, input, output, intermediate, workspace, threshold)
            }
            MethodKernels::Lookback(kernel) => lookback(device, kernel, input, output, workspace, threshold),
            MethodKernels::OutOfKernel => out_of_kernel(device, input, flags, output, workspace),
            MethodKernels::ThreePass => three_pass(device, input, output, workspace, threshold),
        }
    }

    /// The kept count and the first `count` output elements (waits for the stream).
    pub fn result(&self, device: &CudaDevice) -> CudaResult<Vec<T>> {
        let count = self.workspace.count(device)? as usize;
        let mut all = self.output.download(device)?;
        if count > all.len() {
            return Err(CudaError::InvalidArgument(format!(
                "the kernel reported {count} kept elements of {}",
                all.len()
            )));
        }
        all.truncate(count);
        Ok(all)
    }
}
