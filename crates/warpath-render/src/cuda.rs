//! The CUDA renderers behind the [`Renderer`] API: the path tracer under any scheduling
//! strategy, and ReSTIR DI's frames. Both compile (or load from the kernel cache) their
//! kernels while being prepared, so that no pass waits for NVRTC.

use crate::error::Result;
use crate::renderer::Renderer;
use crate::settings::{Settings, default_strategy};
use std::ops::Range;
use warpath_bvh::Bvh;
use warpath_core::camera::Camera;
use warpath_core::film::Film;
use warpath_cuda::restir::{RayLanes, RestirRenderer};
use warpath_cuda::{CudaDevice, StrategyRenderer};
use warpath_scene::Scene;

/// The tree the GPU path tracer traverses for `scene` with `settings`' builder.
pub fn build_bvh(scene: &Scene, settings: &Settings) -> Bvh {
    Bvh::build(&scene.triangle_soup(), &StrategyRenderer::bvh_options(settings.bvh)).0
}

/// The path tracer (surface or volumetric) under a GPU scheduling strategy.
pub struct CudaPath<'d> {
    renderer: StrategyRenderer<'d>,
    device: &'d CudaDevice,
    settings: Settings,
}

impl<'d> CudaPath<'d> {
    /// Builds the BVH, uploads the scene, picks the strategy (the settings', else the scene's
    /// default) and compiles its kernels with one sample of warm-up, then empties the film.
    pub fn new(device: &'d CudaDevice, scene: &Scene, settings: &Settings) -> Result<Self> {
        let bvh = build_bvh(scene, settings);
        Self::with_bvh(device, scene, settings, &bvh)
    }

    /// [`CudaPath::new`] over a tree [`build_bvh`] made already (several devices share one).
    pub fn with_bvh(device: &'d CudaDevice, scene: &Scene, settings: &Settings, bvh: &Bvh) -> Result<Self> {
        let mut renderer = StrategyRenderer::with_bvh_layout(device, scene, &settings.scene, bvh, settings.bvh_layout)?;
        renderer.set_strategy(settings.strategy.unwrap_or_else(|| default_strategy(scene)));
        // The counters cost about 10% on the GPU (atomics and clock reads per extension).
        renderer.set_instrumentation(settings.count_rays)?;
        // The first launch compiles (or loads from the cache) the kernels: keep it out of the
        // render's time, and start again from an empty film.
        renderer.render_pass(0, 1)?;
        device.synchronize()?;
        renderer.reset()?;
        Ok(CudaPath { renderer, device, settings: settings.clone() })
    }

    /// The strategy renderer, for callers that set its knobs (block size, kernel variants).
    pub fn inner(&mut self) -> &mut StrategyRenderer<'d> {
        &mut self.renderer
    }
}

impl Renderer for CudaPath<'_> {
    fn describe(&self) -> String {
        let estimator =
            if self.renderer.estimator_name() == "volume" { "volumetric path tracer" } else { "path tracer" };
        // The programs' material features: "basic materials" or "all material features".
        format!("{estimator}, strategy {}, {}", self.renderer.strategy(), self.renderer.kernel_variant().materials)
    }

    fn pass_size(&self) -> u32 {
        // A pass of one sample per pixel is too short to keep the device busy.
        self.settings.pass_size.unwrap_or(16)
    }

    fn render_pass(&mut self, samples: Range<u32>) -> Result<()> {
        self.renderer.render_pass(samples.start, samples.len() as u32)?;
        self.device.synchronize()?;
        Ok(())
    }

    fn film(&self) -> Result<Film> {
        Ok(self.renderer.download_film()?)
    }

    fn clear_film(&mut self) -> Result<()> {
        Ok(self.renderer.reset()?)
    }

    fn rays(&self) -> Result<Option<u64>> {
        if !self.settings.count_rays {
            return Ok(None);
        }
        let counters = self.renderer.counters()?;
        Ok(Some(counters.extension_rays + counters.shadow_rays))
    }
}

/// ReSTIR DI on the GPU (`restir.cu`): frames of one sample per pixel, accumulated.
pub struct CudaRestir<'d> {
    renderer: RestirRenderer<'d>,
    device: &'d CudaDevice,
    settings: Settings,
}

impl<'d> CudaRestir<'d> {
    /// Uploads the scene, sets the reservoir format and ray lanes of the settings, compiles
    /// the kernels and turns the kernel timer on when asked.
    pub fn new(device: &'d CudaDevice, scene: &Scene, settings: &Settings) -> Result<Self> {
        crate::refuse_delta_lights_for_restir(scene)?;
        let mut renderer = RestirRenderer::with_layout(
            device,
            scene,
            &settings.scene,
            settings.bvh,
            settings.bvh_layout,
            &settings.restir,
        )?;
        let gpu = &settings.restir_gpu;
        renderer.set_reservoir_format(gpu.layout, gpu.light_sample)?;
        if let Some(lanes) = gpu.ray_lanes {
            renderer.set_ray_lanes(RayLanes::from_count(lanes)?);
        }
        renderer.prepare()?;
        renderer.set_kernel_timing(gpu.kernel_times);
        renderer.set_ray_counting(settings.count_rays)?;
        Ok(CudaRestir { renderer, device, settings: settings.clone() })
    }
}

impl Renderer for CudaRestir<'_> {
    fn describe(&self) -> String {
        format!("ReSTIR DI ({}), program {}", crate::restir_summary(&self.settings), self.renderer.program_name())
    }

    fn pass_size(&self) -> u32 {
        // Waiting after every frame would leave the GPU idle between frames.
        self.settings.pass_size.unwrap_or(16)
    }

    fn render_pass(&mut self, frames: Range<u32>) -> Result<()> {
        crate::renderer::check_next_frame(&frames, self.renderer.frames())?;
        for _ in frames {
            self.renderer.render_frame()?;
        }
        self.device.synchronize()?;
        Ok(())
    }

    fn film(&self) -> Result<Film> {
        Ok(self.renderer.download_film()?)
    }

    fn clear_film(&mut self) -> Result<()> {
        Ok(self.renderer.clear_film()?)
    }

    /// With `count_rays`: camera rays (one a pixel a frame) and shadow rays.
    fn rays(&self) -> Result<Option<u64>> {
        let pixels = self.settings.width() as u64 * self.settings.height() as u64;
        Ok(self.renderer.ray_counts()?.map(|r| pixels * self.renderer.frames() as u64 + r.total()))
    }

    fn set_camera(&mut self, camera: &Camera) -> Result<()> {
        Ok(self.renderer.set_camera(camera)?)
    }

    fn set_record_origins(&mut self, on: bool) -> Result<()> {
        Ok(self.renderer.set_record_origins(on)?)
    }

    fn origins(&self) -> Result<Option<Vec<Vec<warpath_core::restir::SampleOrigin>>>> {
        Ok(self.renderer.origins()?)
    }

    fn report(&self) -> Option<String> {
        let mut lines = Vec::new();
        if let Some(times) = self.renderer.kernel_times() {
            let per_frame: Vec<String> =
                times.per_frame().iter().map(|(kernel, ms)| format!("{kernel} {ms:.3}")).collect();
            lines.push(format!(
                "restir kernel times (ms per frame, mean of {} frames, each kernel timed alone): {}; sum {:.3}",
                times.frames,
                per_frame.join(", "),
                times.total() / times.frames.max(1) as f64
            ));
        }
        if let Ok(Some(rays)) = self.renderer.ray_counts() {
            let pixels = self.settings.width() as u64 * self.settings.height() as u64;
            let [visibility, temporal, spatial, shade, total] =
                rays.per_pixel_frame(pixels, self.renderer.frames() as u64);
            let bsdf = rays.bsdf_candidates as f64 / (pixels * self.renderer.frames() as u64).max(1) as f64;
            lines.push(format!(
                "restir shadow rays per pixel per frame: visibility {visibility:.3}, temporal {temporal:.3}, \
                 spatial {spatial:.3}, shade {shade:.3}, BSDF candidates {bsdf:.3}; total {total:.3} (and 1 camera ray)"
            ));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}
