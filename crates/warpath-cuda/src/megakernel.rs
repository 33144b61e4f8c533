//! The naive megakernel of seed 000 (appendix B.1) — the baseline every other schedule is
//! measured against: one thread per pixel on a 2D grid (8×8 blocks by default, as in the
//! seed), each tracing this pass's samples of its pixel, whole paths from `generate` to
//! termination, through the shared device estimator (`kernels/estimator/integrator.cuh`:
//! generate, extend → illuminate, bounce; accumulate), then adding its sums to a float
//! film (sum, sum of squares, count per pixel, as `warpath_core::film::Film`).
//!
//! [`MegakernelRenderer`] uploads a scene once ([`DeviceScene`]); [`MegakernelRenderer::render_pass`]
//! adds samples `first_sample .. first_sample + count` to the device film;
//! [`MegakernelRenderer::download_film`] returns it as a `Film`. With instrumentation on,
//! the kernel also counts paths entering `extend` at each bounce, extension rays and
//! shadow rays ([`PathCounters`], the CPU reference's definition), warp-aggregated.

use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::kernels::MEGAKERNEL;
use crate::runtime::CudaDevice;
use crate::scene_upload::DeviceScene;
use cudarc::driver::{LaunchConfig, PushKernelArg};
use glam::Vec3;
use warpath_bvh::{BuildKind, BuildOptions, Bvh};
use warpath_core::film::Film;
use warpath_scene::{RenderSettings, Scene};

/// Block size of seed 000 B.1.
pub const DEFAULT_BLOCK: (u32, u32) = (8, 8);

/// Counters of the estimator, as the CPU reference's `PathCounters` defines them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    /// Paths entering `extend` at each bounce (trailing zero bounces trimmed, as on the CPU).
    pub active_per_bounce: Vec<u64>,
    /// Extension rays traced (camera rays included).
    pub extension_rays: u64,
    pub shadow_rays: u64,
}

/// The film on the device: 3 floats of sum and of squared sum, one count, per pixel.
struct DeviceFilm {
    sum: DeviceBuffer<[f32; 3]>,
    sum_sq: DeviceBuffer<[f32; 3]>,
    count: DeviceBuffer<u32>,
}

/// A scene uploaded for the naive megakernel, with its film and optional counters.
pub struct MegakernelRenderer<'d> {
    device: &'d CudaDevice,
    pub scene: DeviceScene,
    film: DeviceFilm,
    /// `[extension, shadow, active at bounce 0..=max_depth]`, when instrumentation is on.
    counters: Option<DeviceBuffer<u64>>,
    block: (u32, u32),
}

impl<'d> MegakernelRenderer<'d> {
    /// Builds the BVH (`bvh_kind`) over the scene's triangles, converts and uploads it with
    /// the scene and its lights, and allocates a zeroed film of `settings.width × height`.
    pub fn new(
        device: &'d CudaDevice,
        scene: &Scene,
        settings: &RenderSettings,
        bvh_kind: BuildKind,
    ) -> CudaResult<Self> {
        let soup = scene.triangle_soup();
        let (bvh, _) = Bvh::build(&soup, &BuildOptions { kind: bvh_kind, ..Default::default() });
        let lights = scene.light_set();
        let scene = DeviceScene::upload(device, scene, &lights, &bvh, settings)?;
        let pixels = settings.width as usize * settings.height as usize;
        let film = DeviceFilm {
            sum: DeviceBuffer::zeroed(device, pixels)?,
            sum_sq: DeviceBuffer::zeroed(device, pixels)?,
            count: DeviceBuffer::zeroed(device, pixels)?,
        };
        Ok(MegakernelRenderer { device, scene, film, counters: None, block: DEFAULT_BLOCK })
    }

    /// Threads per block in x and y (at most 1024 in all).
    pub fn set_block_size(&mut self, block: (u32, u32)) -> CudaResult<()> {
        if block.0 == 0 || block.1 == 0 || block.0 as u64 * block.1 as u64 > 1024 {
            return Err(CudaError::InvalidArgument(format!(
                "a {}×{} block: each side must be positive, 1024 threads at most",
                block.0, block.1
            )));
        }
        self.block = block;
        Ok(())
    }

    pub fn block_size(&self) -> (u32, u32) {
        self.block
    }

    /// Turns the per-bounce path counters on (zeroed) or off.
    pub fn set_instrumentation(&mut self, enabled: bool) -> CudaResult<()> {
        self.counters = if enabled {
            let slots = 2 + self.scene.params.max_depth as usize + 1;
            Some(DeviceBuffer::zeroed(self.device, slots)?)
        } else {
            None
        };
        Ok(())
    }

    /// Zeroes the film and the counters.
    pub fn reset(&mut self) -> CudaResult<()> {
        self.film.sum.clear(self.device)?;
        self.film.sum_sq.clear(self.device)?;
        self.film.count.clear(self.device)?;
        if let Some(counters) = &mut self.counters {
            counters.clear(self.device)?;
        }
        Ok(())
    }

    /// Adds samples `first_sample .. first_sample + count` of every pixel to the film.
    pub fn render_pass(&mut self, first_sample: u32, count: u32) -> CudaResult<()> {
        if first_sample.checked_add(count).is_none() {
            return Err(CudaError::InvalidArgument(format!(
                "samples {first_sample} + {count} overflow the 32-bit sample index"
            )));
        }
        if count == 0 {
            return Ok(());
        }
        megakernel_render(
            self.device,
            &self.scene,
            &mut self.film,
            self.counters.as_mut(),
            self.block,
            first_sample,
            count,
        )
    }

    /// The film so far.
    pub fn download_film(&self) -> CudaResult<Film> {
        let (width, height) = (self.scene.params.width, self.scene.params.height);
        let mut film = Film::new(width, height);
        film.sum = self.film.sum.download(self.device)?.into_iter().map(Vec3::from_array).collect();
        film.sum_sq = self.film.sum_sq.download(self.device)?.into_iter().map(Vec3::from_array).collect();
        film.count = self.film.count.download(self.device)?;
        Ok(film)
    }

    /// The counters so far (all zero when instrumentation is off).
    pub fn counters(&self) -> CudaResult<PathCounters> {
        let Some(buffer) = &self.counters else { return Ok(PathCounters::default()) };
        let values = buffer.download(self.device)?;
        let mut active_per_bounce = values.get(2..).map(<[u64]>::to_vec).unwrap_or_default();
        while active_per_bounce.last() == Some(&0) {
            active_per_bounce.pop();
        }
        Ok(PathCounters {
            active_per_bounce,
            extension_rays: values.first().copied().unwrap_or(0),
            shadow_rays: values.get(1).copied().unwrap_or(0),
        })
    }
}

/// Launches `megakernel_render` over the film's pixels.
fn megakernel_render(
    device: &CudaDevice,
    scene: &DeviceScene,
    film: &mut DeviceFilm,
    counters: Option<&mut DeviceBuffer<u64>>,
    block: (u32, u32),
    first_sample: u32,
    sample_count: u32,
) -> CudaResult<()> {
    const NAME: &str = "megakernel_render";
    let (width, height) = (scene.params.width, scene.params.height);
    if film.count.len() < width as usize * height as usize {
        return Err(CudaError::InvalidArgument(format!("the film is smaller than {width}×{height}")));
    }
    let function = device.function(&MEGAKERNEL, NAME)?;
    let config = LaunchConfig {
        grid_dim: (width.div_ceil(block.0), height.div_ceil(block.1), 1),
        block_dim: (block.0, block.1, 1),
        shared_mem_bytes: 0,
    };
    let null_counters: u64 = 0;
    let mut launch = device.stream().launch_builder(&function);
    launch
        .arg(scene.params_buffer.raw())
        .arg(scene.bvh.nodes.raw())
        .arg(scene.bvh.triangles.raw())
        .arg(scene.bvh.triangle_ids.raw())
        .arg(scene.positions.raw())
        .arg(scene.normals.raw())
        .arg(scene.uvs.raw())
        .arg(scene.triangles.raw())
        .arg(scene.triangle_materials.raw())
        .arg(scene.materials.raw())
        .arg(scene.triangle_to_light.raw())
        .arg(scene.lights.raw())
        .arg(scene.light_cdf.raw())
        .arg(scene.env_pixels.raw())
        .arg(scene.env_conditional_cdf.raw())
        .arg(scene.env_marginal_cdf.raw())
        .arg(scene.texels.raw())
        .arg(scene.textures.raw())
        .arg(film.sum.raw_mut())
        .arg(film.sum_sq.raw_mut())
        .arg(film.count.raw_mut());
    match counters {
        Some(buffer) => launch.arg(buffer.raw_mut()),
        // A null `unsigned long long*`: instrumentation off.
        None => launch.arg(&null_counters),
    };
    launch.arg(&first_sample).arg(&sample_count);
    // SAFETY: the arguments match megakernel_render's signature one for one; every buffer
    // was uploaded by DeviceScene::upload, which checked every index the kernel follows; the
    // film holds width × height pixels (checked above) and the counters 2 + max_depth + 1
    // slots (set_instrumentation), the most the kernel indexes.
    let launched = unsafe { launch.launch(config) };
    device.check_launch(NAME, launched)
}
