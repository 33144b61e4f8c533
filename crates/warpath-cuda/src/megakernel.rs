//! The naive megakernel of seed 000 (appendix B.1) — the baseline every other schedule is
//! measured against: one thread per pixel on a 2D grid (8×8 blocks by default, as in the
//! seed), each tracing this pass's samples of its pixel, whole paths from `generate` to
//! termination, through the shared device estimator (`kernels/surface/estimator.cuh`:
//! generate, extend → illuminate, bounce; accumulate), then adding its sums to a float
//! film (sum, sum of squares, count per pixel, as `warpath_core::film::Film`).
//!
//! The renderer that owns the scene, film and counters is [`crate::strategy::StrategyRenderer`]
//! (its default strategy is this one); `MegakernelRenderer` is its name here. With
//! instrumentation on, the kernel also counts paths and warps entering `extend` at each
//! bounce, extension rays and shadow rays ([`PathCounters`]), warp-aggregated.

use crate::buffer::DeviceBuffer;
use crate::error::{CudaError, CudaResult};
use crate::kernels::MEGAKERNEL;
use crate::runtime::CudaDevice;
use crate::scene_upload::DeviceScene;
use crate::strategy::DeviceFilm;
use cudarc::driver::{LaunchConfig, PushKernelArg};

pub use crate::strategy::{PathCounters, StrategyRenderer as MegakernelRenderer};

/// Block size of seed 000 B.1.
pub const DEFAULT_BLOCK: (u32, u32) = (8, 8);

/// Launches `megakernel_render` over the film's pixels.
pub(crate) fn megakernel_render(
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
    // film holds width × height pixels (checked above) and the counters 2 + 3 (max_depth + 1)
    // slots (set_instrumentation), the most the kernel indexes.
    let launched = unsafe { launch.launch(config) };
    device.check_launch(NAME, launched)
}
