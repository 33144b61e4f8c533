//! The film on the device: per-pass f32 buffers that the schedule kernels add a pass's
//! samples to (sum and sum of squares, 3 floats per pixel, and a count), and the render's
//! f64 accumulation, into which `film_merge_pass` (`kernels/film.cu`) adds every pass on the
//! GPU and zeroes the pass buffers. So no f32 sum ever holds more than one pass, a long
//! render keeps the precision of `warpath_core::film::Film` (f64 on the host), and the merge
//! costs a few microseconds on the stream instead of a download per pass.
//!
//! At one sample per pixel per pass the pass buffers hold the samples themselves, so the
//! film's sums (and so its mean) equal, bit for bit, what `Film::add_sample` makes of the
//! same samples on the CPU; the sums of squares differ by the f32 rounding of the squares.

use crate::buffer::DeviceBuffer;
use crate::catalog::FILM_MERGE_PASS;
use crate::error::CudaResult;
use crate::runtime::CudaDevice;
use cudarc::driver::LaunchConfig;
use glam::DVec3;
use warpath_core::film::Film;

const MERGE_BLOCK: u32 = 256;

/// A film of `width × height` pixels in device memory.
pub struct DeviceFilm {
    width: u32,
    height: u32,
    /// This pass's sums, written by the schedules (`ScheduleArgs::film_sum` ...).
    pub(crate) pass_sum: DeviceBuffer<[f32; 3]>,
    pub(crate) pass_sum_sq: DeviceBuffer<[f32; 3]>,
    pub(crate) pass_count: DeviceBuffer<u32>,
    /// Every merged pass.
    sum: DeviceBuffer<[f64; 3]>,
    sum_sq: DeviceBuffer<[f64; 3]>,
    count: DeviceBuffer<u32>,
}

impl DeviceFilm {
    /// A zeroed film.
    pub fn new(device: &CudaDevice, width: u32, height: u32) -> CudaResult<Self> {
        let pixels = width as usize * height as usize;
        Ok(DeviceFilm {
            width,
            height,
            pass_sum: DeviceBuffer::zeroed(device, pixels)?,
            pass_sum_sq: DeviceBuffer::zeroed(device, pixels)?,
            pass_count: DeviceBuffer::zeroed(device, pixels)?,
            sum: DeviceBuffer::zeroed(device, pixels)?,
            sum_sq: DeviceBuffer::zeroed(device, pixels)?,
            count: DeviceBuffer::zeroed(device, pixels)?,
        })
    }

    pub fn pixels(&self) -> u32 {
        self.width * self.height
    }

    /// Zeroes the pass buffers and the accumulation.
    pub fn clear(&mut self, device: &CudaDevice) -> CudaResult<()> {
        self.pass_sum.clear(device)?;
        self.pass_sum_sq.clear(device)?;
        self.pass_count.clear(device)?;
        self.sum.clear(device)?;
        self.sum_sq.clear(device)?;
        self.count.clear(device)
    }

    /// Adds the pass buffers into the accumulation and zeroes them (`film_merge_pass`,
    /// asynchronous on the device's stream).
    pub fn merge_pass(&mut self, device: &CudaDevice) -> CudaResult<()> {
        let pixels = self.pixels();
        if pixels == 0 {
            return Ok(());
        }
        let config = LaunchConfig {
            grid_dim: (pixels.div_ceil(MERGE_BLOCK), 1, 1),
            block_dim: (MERGE_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // The six buffers of `pixels` pixels each (3 values per pixel for the sums), in the
        // kernel's order; it bounds its thread index by `pixels`.
        let args = (
            self.pass_sum.raw_mut().into(),
            self.pass_sum_sq.raw_mut().into(),
            self.pass_count.raw_mut().into(),
            self.sum.raw_mut().into(),
            self.sum_sq.raw_mut().into(),
            self.count.raw_mut().into(),
            pixels,
        );
        device.launch(FILM_MERGE_PASS, config, args)
    }

    /// The merged passes as a host film (waits for the stream).
    pub fn download(&self, device: &CudaDevice) -> CudaResult<Film> {
        let mut film = Film::new(self.width, self.height);
        film.sum = self.sum.download(device)?.into_iter().map(DVec3::from_array).collect();
        film.sum_sq = self.sum_sq.download(device)?.into_iter().map(DVec3::from_array).collect();
        film.count = self.count.download(device)?;
        Ok(film)
    }
}
