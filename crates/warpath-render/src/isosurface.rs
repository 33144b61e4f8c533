//! The isosurface caster (seed 001) behind the [`Renderer`] API: frames of a volume's
//! isosurface through its min-max brick BVH, on the CPU (the reference renderer of
//! `warpath_isosurface::render`) or a CUDA device (`warpath_cuda::isosurface`, whose pipelines
//! match the CPU pixel for pixel). Frame `f` renders isovalue `f` of the sweep (cyclically);
//! each frame adds one sample per pixel to the film, so a caller that wants one image per
//! isovalue clears the film between frames, as `warpath isosurface --sweep` does.
//!
//! The camera is the core [`Camera`] (a pinhole: the caster has no lens), converted once per
//! change to the caster's f64 view ([`view_from_camera`]); [`IsoCaster::set_view`] takes an
//! [`IsoView`] directly (the CLI's orbit around the volume).
//!
//! [`IsoCaster::frame`] is the timed form the benchmarks use: the tree update and the render
//! timed apart or back to back, optionally without downloading the image.
//!
//! [`IsoCaster::new`] borrows the volume, its tree and the backend from its caller (the CLI
//! loads them once for many casters); [`IsoCaster::owning`] takes them, for a caster that
//! outlives its caller's frame (the Python package's `warpath.Isosurface`).

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::renderer::Renderer;
use glam::Vec3;
use std::ops::{Deref, Range};
use std::sync::Arc;
use std::time::Instant;
use warpath_core::camera::Camera;
use warpath_core::film::Film;
use warpath_cuda::CudaDevice;
use warpath_cuda::cub_library::CubLibrary;
use warpath_cuda::isosurface::{
    DeviceIsosurface, IsoPipeline, PipelineBuffers, RenderTarget, StageTimes, WIDE_LEVEL_NODES,
};
use warpath_isosurface::render::{IsoView, Shading, render};
use warpath_isosurface::{BrickBvh, Lattice};

/// Where and how the tree of each isovalue is condensed on the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreeUpdate {
    /// On the device in one launch, from the valid bricks up; no read-back.
    #[default]
    Gpu,
    /// On the device level by level, as seed 001 does (a launch per wide level).
    GpuLevels,
    /// `BrickBvh::condense` on the CPU, then an upload.
    Cpu,
}

impl TreeUpdate {
    pub const ALL: [TreeUpdate; 3] = [TreeUpdate::Gpu, TreeUpdate::GpuLevels, TreeUpdate::Cpu];

    pub fn name(self) -> &'static str {
        match self {
            TreeUpdate::Gpu => "gpu",
            TreeUpdate::GpuLevels => "gpu-levels",
            TreeUpdate::Cpu => "cpu",
        }
    }

    pub fn from_name(name: &str) -> Option<TreeUpdate> {
        Self::ALL.into_iter().find(|u| u.name() == name)
    }
}

/// How a frame's tree update is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateWait {
    /// The host waits for the update before launching the render (update_ms is the update's).
    Apart,
    /// The update and the render are launched back to back, one wait at the end: what an
    /// isovalue sweep costs a frame (frame_ms; update_ms is only the launch's host time).
    BackToBack,
}

/// Timings of one frame, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameTimes {
    /// The tree update for the isovalue (GPU: the kernel, or the CPU condensation and its
    /// upload; synchronised).
    pub update_ms: f64,
    /// The render (GPU: the pipeline, synchronised; CPU: every pixel on all cores).
    pub render_ms: f64,
    /// The whole frame, update and render (see [`UpdateWait`]).
    pub frame_ms: f64,
}

/// A frame's image: linear RGB per pixel, row-major, and how many pixels met the surface.
pub struct FrameImage {
    pub pixels: Vec<[f32; 3]>,
    pub hits: usize,
}

/// The caster's choices.
#[derive(Clone, Debug)]
pub struct IsoOptions {
    /// The GPU pipeline (seed 001's; the CPU has one renderer).
    pub pipeline: IsoPipeline,
    pub tree_update: TreeUpdate,
    /// The `cub` pipelines: CUB's library (`crates/warpath-cuda/cub/build.sh library`)
    /// [default: the WARPATH_CUB_LIB environment variable].
    pub cub_lib: Option<std::path::PathBuf>,
}

impl Default for IsoOptions {
    fn default() -> Self {
        IsoOptions { pipeline: IsoPipeline::Caster, tree_update: TreeUpdate::Gpu, cub_lib: None }
    }
}

/// A value the caster borrows from its caller ([`IsoCaster::new`]) or holds itself
/// ([`IsoCaster::owning`]).
enum Held<'a, T> {
    Borrowed(&'a T),
    Owned(Arc<T>),
}

impl<T> Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Held::Borrowed(value) => value,
            Held::Owned(value) => value,
        }
    }
}

/// The device side of a GPU caster.
struct GpuCaster<'a> {
    device: Held<'a, CudaDevice>,
    surface: Box<DeviceIsosurface>,
    target: Option<RenderTarget>,
    buffers: Option<PipelineBuffers>,
    cub: Option<Arc<CubLibrary>>,
}

/// A volume prepared for casting on one backend.
pub struct IsoCaster<'a> {
    lattice: Held<'a, Lattice>,
    bvh: Held<'a, BrickBvh>,
    gpu: Option<GpuCaster<'a>>,
    options: IsoOptions,
    view: IsoView,
    shading: Shading,
    isovalues: Vec<f32>,
    film: Film,
    last: FrameTimes,
}

/// The caster's f64 view of a pinhole `camera` for a `width`×`height` image: pixel (x, y)
/// looks along the core camera's primary ray through (x + ½, y + ½).
pub fn view_from_camera(camera: &Camera, width: u32, height: u32) -> Result<IsoView> {
    if camera.aperture_radius > 0.0 {
        return Err(Error::invalid("the isosurface caster renders pinhole cameras (aperture_radius 0)"));
    }
    let tan = camera.tan_half_fov(width, height);
    let column = |i: usize| camera.to_world.col(i).truncate().as_dvec3();
    let (left, up, forward, eye) = (column(0), column(1), column(2), column(3));
    let (tx, ty) = (tan.x as f64, tan.y as f64);
    let corner = forward + left * tx + up * ty;
    let right = left * (-2.0 * tx / width.max(1) as f64);
    let down = up * (-2.0 * ty / height.max(1) as f64);
    Ok(IsoView {
        width,
        height,
        eye: eye.to_array(),
        corner: corner.to_array(),
        right: right.to_array(),
        down: down.to_array(),
    })
}

impl<'a> IsoCaster<'a> {
    /// The caster of `lattice` (its brick tree `bvh`) on `backend`, rendering `view` with
    /// `shading`; the sweep is the one isovalue `isovalue` until [`IsoCaster::set_isovalues`].
    pub fn new(
        backend: &'a Backend,
        lattice: &'a Lattice,
        bvh: &'a BrickBvh,
        options: IsoOptions,
        view: IsoView,
        shading: Shading,
        isovalue: f32,
    ) -> Result<IsoCaster<'a>> {
        let device = match backend {
            Backend::Cpu => None,
            Backend::Cuda(device) => Some(Held::Borrowed(device)),
        };
        Self::with(device, Held::Borrowed(lattice), Held::Borrowed(bvh), options, view, shading, isovalue)
    }

    /// [`IsoCaster::new`] owning its backend, volume and tree (shared with the caller through
    /// the `Arc`s): a caster with no borrow to outlive.
    pub fn owning(
        backend: Backend,
        lattice: Arc<Lattice>,
        bvh: Arc<BrickBvh>,
        options: IsoOptions,
        view: IsoView,
        shading: Shading,
        isovalue: f32,
    ) -> Result<IsoCaster<'static>> {
        let device = match backend {
            Backend::Cpu => None,
            Backend::Cuda(device) => Some(Held::Owned(Arc::new(device))),
        };
        IsoCaster::with(device, Held::Owned(lattice), Held::Owned(bvh), options, view, shading, isovalue)
    }

    /// The caster of the volume and tree on `device` (None: the CPU).
    fn with(
        device: Option<Held<'a, CudaDevice>>,
        lattice: Held<'a, Lattice>,
        bvh: Held<'a, BrickBvh>,
        options: IsoOptions,
        view: IsoView,
        shading: Shading,
        isovalue: f32,
    ) -> Result<IsoCaster<'a>> {
        let gpu = match device {
            None => None,
            Some(device) => {
                let mut surface = DeviceIsosurface::upload(&device, &lattice)?;
                if options.tree_update != TreeUpdate::Cpu {
                    surface.upload_bvh(&device, &bvh)?;
                }
                Some(GpuCaster { device, surface: Box::new(surface), target: None, buffers: None, cub: None })
            }
        };
        let film = Film::try_new(view.width, view.height)?;
        let pipeline = options.pipeline;
        let mut caster = IsoCaster {
            lattice,
            bvh,
            gpu,
            options,
            view,
            shading,
            isovalues: vec![isovalue],
            film,
            last: FrameTimes::default(),
        };
        caster.set_pipeline(pipeline)?;
        Ok(caster)
    }

    /// The GPU pipeline of the next frames; a `cub` one opens CUB's library here (an error
    /// that says how to build it when it cannot be). The CPU has one renderer and ignores it.
    pub fn set_pipeline(&mut self, pipeline: IsoPipeline) -> Result<()> {
        if let Some(gpu) = self.gpu.as_mut()
            && pipeline.needs_cub()
            && gpu.cub.is_none()
        {
            gpu.cub = Some(Arc::new(CubLibrary::open_given(self.options.cub_lib.as_deref())?));
        }
        self.options.pipeline = pipeline;
        Ok(())
    }

    /// `cpu` or `cuda`.
    pub fn backend_name(&self) -> &'static str {
        if self.gpu.is_some() { "cuda" } else { "cpu" }
    }

    /// The device of a GPU caster.
    pub fn device(&self) -> Option<&CudaDevice> {
        self.gpu.as_ref().map(|g| &*g.device)
    }

    /// The isovalues frames render, frame `f` the `f`-th (cyclically); at least one.
    pub fn set_isovalues(&mut self, isovalues: Vec<f32>) -> Result<()> {
        if isovalues.is_empty() || isovalues.iter().any(|v| !v.is_finite()) {
            return Err(Error::invalid("the isosurface sweep needs at least one finite isovalue"));
        }
        self.isovalues = isovalues;
        Ok(())
    }

    /// The view of the next frames (a new size empties the film).
    pub fn set_view(&mut self, view: IsoView) -> Result<()> {
        if (view.width, view.height) != (self.view.width, self.view.height) {
            self.film = Film::try_new(view.width, view.height)?;
        }
        self.view = view;
        Ok(())
    }

    pub fn view(&self) -> &IsoView {
        &self.view
    }

    pub fn set_shading(&mut self, shading: Shading) {
        self.shading = shading;
    }

    /// The timings of the last frame [`Renderer::render_pass`] rendered.
    pub fn last_frame(&self) -> FrameTimes {
        self.last
    }

    /// One frame: the tree of `isovalue`, then the image of the current view; with `keep`,
    /// the image (downloaded from the GPU); with `stages`, the GPU time of each pipeline stage
    /// added in.
    pub fn frame(
        &mut self,
        isovalue: f32,
        keep: bool,
        wait: UpdateWait,
        stages: Option<&mut StageTimes>,
    ) -> Result<(Option<FrameImage>, FrameTimes)> {
        let frame_start = Instant::now();
        let (view, shading, pipeline) = (&self.view, &self.shading, self.options.pipeline);
        let Some(gpu) = self.gpu.as_mut() else {
            let tree = self.bvh.condense(isovalue);
            let update_ms = frame_start.elapsed().as_secs_f64() * 1e3;
            let start = Instant::now();
            let image = render(&self.lattice, &self.bvh, &tree, isovalue, view, shading);
            let render_ms = start.elapsed().as_secs_f64() * 1e3;
            let hits = image.hit_count();
            let times = FrameTimes { update_ms, render_ms, frame_ms: frame_start.elapsed().as_secs_f64() * 1e3 };
            return Ok((keep.then_some(FrameImage { pixels: image.pixels, hits }), times));
        };
        let device = &*gpu.device;
        match self.options.tree_update {
            TreeUpdate::Gpu => gpu.surface.update_tree(device, isovalue)?,
            TreeUpdate::GpuLevels => gpu.surface.update_tree_split(device, isovalue, WIDE_LEVEL_NODES)?,
            TreeUpdate::Cpu => gpu.surface.set_tree(device, &self.bvh, &self.bvh.condense(isovalue), isovalue)?,
        }
        if wait == UpdateWait::Apart {
            device.synchronize()?;
        }
        let update_ms = frame_start.elapsed().as_secs_f64() * 1e3;
        if gpu.target.as_ref().is_none_or(|t| t.size() != (view.width, view.height)) {
            gpu.target = Some(RenderTarget::new(device, view.width, view.height, false)?);
        }
        let need = gpu.surface.pipeline_stack_need();
        let pixels = view.width as u64 * view.height as u64;
        if matches!(pipeline, IsoPipeline::Single | IsoPipeline::Multi(_))
            && gpu.buffers.as_ref().is_none_or(|b| b.pixels() as u64 != pixels || b.stack_capacity() < need)
        {
            gpu.buffers = None;
            gpu.buffers = Some(PipelineBuffers::new(device, view.width, view.height, need)?);
        }
        if let (true, Some(b)) = (pipeline.needs_cub(), gpu.buffers.as_mut())
            && !b.has_cub()
        {
            let library = gpu.cub.clone().ok_or_else(|| Error::invalid("the cub pipeline without CUB's library"))?;
            b.attach_cub(device, library)?;
        }
        let target = gpu.target.as_ref().expect("made above");
        let start = Instant::now();
        match (pipeline, gpu.buffers.as_mut()) {
            (IsoPipeline::Single | IsoPipeline::Multi(_), Some(b)) => {
                gpu.surface.render_pipeline(device, pipeline, view, shading, target, b, stages)?
            }
            _ => gpu.surface.render_with_caster(device, pipeline, view, shading, target)?,
        }
        device.synchronize()?;
        let render_ms = start.elapsed().as_secs_f64() * 1e3;
        let times = FrameTimes { update_ms, render_ms, frame_ms: frame_start.elapsed().as_secs_f64() * 1e3 };
        if !keep {
            return Ok((None, times));
        }
        let image = target.download(device)?;
        let background = shading.background;
        let hits = image.pixels.iter().filter(|p| **p != background).count();
        Ok((Some(FrameImage { pixels: image.pixels, hits }), times))
    }
}

impl Renderer for IsoCaster<'_> {
    fn describe(&self) -> String {
        match &self.gpu {
            None => "isosurface caster on the CPU (the reference renderer)".to_string(),
            Some(_) => format!(
                "isosurface caster on the GPU, pipeline {}, tree update {}",
                self.options.pipeline.name(),
                self.options.tree_update.name()
            ),
        }
    }

    fn pass_size(&self) -> u32 {
        1
    }

    fn render_pass(&mut self, frames: Range<u32>) -> Result<()> {
        for frame in frames {
            let isovalue = self.isovalues[frame as usize % self.isovalues.len()];
            let (image, times) = self.frame(isovalue, true, UpdateWait::BackToBack, None)?;
            let image = image.expect("kept");
            for (i, p) in image.pixels.iter().enumerate() {
                self.film.add_sample(i, Vec3::from_array(*p));
            }
            self.last = times;
        }
        Ok(())
    }

    fn film(&self) -> Result<Film> {
        Ok(self.film.clone())
    }

    fn clear_film(&mut self) -> Result<()> {
        self.film = Film::try_new(self.view.width, self.view.height)?;
        Ok(())
    }

    fn rays(&self) -> Result<Option<u64>> {
        Ok(None)
    }

    fn set_camera(&mut self, camera: &Camera) -> Result<()> {
        let view = view_from_camera(camera, self.view.width, self.view.height)?;
        self.set_view(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;
    use std::sync::atomic::AtomicBool;
    use warpath_isosurface::render::KeyLight;

    #[test]
    fn the_view_of_a_camera_casts_the_cameras_primary_rays() {
        let camera = Camera::look_at(Vec3::new(3.0, -4.0, 2.5), Vec3::new(0.5, 0.2, 0.1), Vec3::Z, 35.0);
        for (w, h) in [(64, 48), (40, 90)] {
            let view = view_from_camera(&camera, w, h).unwrap();
            for (x, y) in [(0, 0), (w - 1, 0), (w / 2, h / 3), (0, h - 1), (w - 1, h - 1)] {
                let (o, d) = view.ray(x, y);
                let r = camera.generate_ray(Vec2::new(x as f32 + 0.5, y as f32 + 0.5), w, h, Vec2::splat(0.5));
                assert!((Vec3::new(o[0] as f32, o[1] as f32, o[2] as f32) - r.o).length() < 1e-5);
                let d = Vec3::new(d[0] as f32, d[1] as f32, d[2] as f32);
                assert!((d - r.d).length() < 1e-5, "pixel ({x}, {y}) of {w}x{h}: {d} vs {}", r.d);
            }
        }
        let mut lens = camera;
        lens.aperture_radius = 0.1;
        assert!(view_from_camera(&lens, 8, 8).unwrap_err().to_string().contains("pinhole"));
    }

    #[test]
    fn frames_of_a_sweep_are_the_reference_renders_of_their_isovalues() {
        let lattice = warpath_isosurface::fields::spheres([24, 20, 22]);
        let bvh = BrickBvh::build(&lattice, 8);
        let view = IsoView::orbit(&lattice, 30.0, 20.0, 32, 24);
        let shading = Shading {
            key_light: Some(KeyLight { direction: KeyLight::DEFAULT_DIRECTION, shadows: true }),
            ..Shading::default()
        };
        let backend = Backend::Cpu;
        let mut caster = IsoCaster::new(&backend, &lattice, &bvh, IsoOptions::default(), view, shading, 0.5).unwrap();
        caster.set_isovalues(vec![0.3, 0.6]).unwrap();
        let stop = AtomicBool::new(false);
        for (frame, isovalue) in [(0u32, 0.3f32), (1, 0.6), (2, 0.3)] {
            caster.clear_film().unwrap();
            let film = crate::render(&mut caster, frame..frame + 1, &stop, |_| {}).unwrap().film;
            let tree = bvh.condense(isovalue);
            let expected = render(&lattice, &bvh, &tree, isovalue, &view, &shading);
            let mean = film.mean();
            assert_eq!(mean.len(), expected.pixels.len());
            for (got, want) in mean.iter().zip(&expected.pixels) {
                assert_eq!(got.to_array(), *want, "frame {frame}");
            }
        }
        assert!(caster.set_isovalues(vec![]).is_err());
        // Two frames without clearing: the film holds both (one sample per pixel each).
        caster.clear_film().unwrap();
        caster.render_pass(0..2).unwrap();
        assert_eq!(caster.film().unwrap().total_samples(), 2 * 32 * 24);
    }

    #[test]
    fn an_owning_caster_renders_what_a_borrowing_one_renders() {
        let lattice = Arc::new(warpath_isosurface::fields::marschner_lobb([20, 18, 16]));
        let bvh = Arc::new(BrickBvh::build(&lattice, 4));
        let view = IsoView::orbit(&lattice, 60.0, 10.0, 24, 20);
        let backend = Backend::Cpu;
        let options = IsoOptions::default();
        let mut borrowed =
            IsoCaster::new(&backend, &lattice, &bvh, options.clone(), view, Shading::default(), 0.5).unwrap();
        let mut owned =
            IsoCaster::owning(Backend::Cpu, lattice.clone(), bvh.clone(), options, view, Shading::default(), 0.5)
                .unwrap();
        // The Python package keeps an owning caster behind a mutex that any thread may take.
        fn sendable<T: Send + 'static>(_: &T) {}
        sendable(&owned);
        for isovalue in [0.3, 0.5] {
            let (a, _) = borrowed.frame(isovalue, true, UpdateWait::Apart, None).unwrap();
            let (b, _) = owned.frame(isovalue, true, UpdateWait::Apart, None).unwrap();
            let (a, b) = (a.unwrap(), b.unwrap());
            assert!(a.hits > 0 && a.hits < 24 * 20, "{} hits", a.hits);
            assert_eq!((a.pixels, a.hits), (b.pixels, b.hits));
        }
        assert_eq!(owned.backend_name(), "cpu");
        assert!(owned.device().is_none());
    }
}
