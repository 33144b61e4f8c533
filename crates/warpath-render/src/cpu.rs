//! The CPU renderers behind the [`Renderer`] API: the reference path tracer (surface or
//! volumetric, rows in parallel with rayon) and ReSTIR DI's reference frames.

use crate::error::{Error, Result};
use crate::renderer::Renderer;
use crate::settings::Settings;
use std::ops::Range;
use warpath_core::camera::Camera;
use warpath_core::film::Film;
use warpath_cpu::CpuRenderer;
use warpath_cpu::integrator::PathCounters;
use warpath_cpu::restir::RestirFrames;
use warpath_scene::Scene;

/// A film of the settings' size, or an error naming the size it could not allocate.
pub(crate) fn new_film(settings: &Settings) -> Result<Film> {
    Ok(Film::try_new(settings.width(), settings.height())?)
}

/// The CPU reference path tracer.
pub struct CpuPath<'a> {
    cpu: CpuRenderer<'a>,
    settings: Settings,
    film: Film,
    counters: PathCounters,
}

impl<'a> CpuPath<'a> {
    pub fn new(scene: &'a Scene, settings: &Settings) -> Result<Self> {
        let film = new_film(settings)?;
        let cpu = CpuRenderer::new(scene, settings.bvh);
        Ok(CpuPath { cpu, settings: settings.clone(), film, counters: PathCounters::default() })
    }
}

impl Renderer for CpuPath<'_> {
    fn describe(&self) -> String {
        format!("{}\nbvh: {}", self.cpu.estimator_name(), self.cpu.bvh_stats)
    }

    fn pass_size(&self) -> u32 {
        self.settings.pass_size.unwrap_or(1)
    }

    fn render_pass(&mut self, samples: Range<u32>) -> Result<()> {
        let options = self.settings.cpu_options(samples.len() as u32);
        let counters = self.cpu.render_pass(&options, &mut self.film, samples.start, samples.len() as u32);
        self.counters.merge(&counters);
        Ok(())
    }

    fn film(&self) -> Result<Film> {
        Ok(self.film.clone())
    }

    fn clear_film(&mut self) -> Result<()> {
        self.film = new_film(&self.settings)?;
        self.counters = PathCounters::default();
        Ok(())
    }

    fn rays(&self) -> Result<Option<u64>> {
        Ok(Some(self.counters.extension_rays + self.counters.shadow_rays))
    }
}

/// ReSTIR DI's CPU reference: one frame a pass (each one sample per pixel), the reservoirs
/// carried from frame to frame.
pub struct CpuRestir<'a> {
    cpu: CpuRenderer<'a>,
    settings: Settings,
    frames: RestirFrames,
    camera: Camera,
    film: Film,
}

impl<'a> CpuRestir<'a> {
    pub fn new(scene: &'a Scene, settings: &Settings) -> Result<Self> {
        crate::refuse_delta_lights_for_restir(scene)?;
        let film = new_film(settings)?;
        let cpu = CpuRenderer::new(scene, settings.bvh);
        let view = cpu.view(&settings.cpu_options(1));
        let frames = RestirFrames::new(&view, &settings.restir)
            .map_err(|e| Error::invalid(format!("scene '{}': {e}", scene.name)))?;
        Ok(CpuRestir { cpu, settings: settings.clone(), frames, camera: scene.camera, film })
    }
}

impl Renderer for CpuRestir<'_> {
    fn describe(&self) -> String {
        format!("ReSTIR DI ({})", crate::restir_summary(&self.settings))
    }

    fn pass_size(&self) -> u32 {
        self.settings.pass_size.unwrap_or(1)
    }

    fn render_pass(&mut self, frames: Range<u32>) -> Result<()> {
        crate::renderer::check_next_frame(&frames, self.frames.frames())?;
        let view = self.cpu.view(&self.settings.cpu_options(1));
        for _ in frames {
            for (i, radiance) in self.frames.render(&view, &self.camera).into_iter().enumerate() {
                self.film.add_sample(i, radiance);
            }
        }
        Ok(())
    }

    fn film(&self) -> Result<Film> {
        Ok(self.film.clone())
    }

    fn clear_film(&mut self) -> Result<()> {
        self.film = new_film(&self.settings)?;
        Ok(())
    }

    /// Camera rays (one a pixel a frame) and shadow rays.
    fn rays(&self) -> Result<Option<u64>> {
        let pixels = self.settings.width() as u64 * self.settings.height() as u64;
        Ok(Some(pixels * self.frames.frames() as u64 + self.frames.rays().total()))
    }

    fn set_camera(&mut self, camera: &Camera) -> Result<()> {
        self.camera = *camera;
        Ok(())
    }

    fn set_record_origins(&mut self, on: bool) -> Result<()> {
        self.frames.set_record_origins(on);
        Ok(())
    }

    fn origins(&self) -> Result<Option<Vec<Vec<warpath_core::restir::SampleOrigin>>>> {
        Ok(self.frames.origins().map(|o| o.to_vec()))
    }

    fn report(&self) -> Option<String> {
        let pixels = self.settings.width() as u64 * self.settings.height() as u64;
        let [visibility, temporal, spatial, shade, total] =
            self.frames.rays().per_pixel_frame(pixels, self.frames.frames() as u64);
        let bsdf = self.frames.rays().bsdf_candidates as f64 / (pixels * self.frames.frames() as u64).max(1) as f64;
        Some(format!(
            "restir shadow rays per pixel per frame: visibility {visibility:.3}, temporal {temporal:.3}, \
             spatial {spatial:.3}, shade {shade:.3}, BSDF candidates {bsdf:.3}; total {total:.3} (and 1 camera ray)"
        ))
    }
}
