//! Progressive rendering on the CPU: passes of a few samples per pixel over the whole
//! film, rows spread over threads with rayon. Each pass adds to the film, so a render
//! can be stopped between passes (Ctrl-C) and still yields the image so far.

use crate::estimator::{Estimator, trace_path};
use crate::integrator::{PathCounters, SceneView};
use crate::volpath::VolumeView;
use glam::{DVec3, Vec3};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use warpath_bvh::cpu_layout::CpuBvh;
use warpath_bvh::{BuildKind, BuildOptions, BuildStats, Bvh};
use warpath_core::film::{Film, sample_terms};
use warpath_core::light::LightSet;
use warpath_core::sampler::{Sampler, SamplerKind};
use warpath_scene::{RenderSettings, Scene};

/// `BuildOptions::max_leaf_size` of the tree the CPU renderer builds (see `CpuRenderer::new`).
pub const CPU_MAX_LEAF_SIZE: usize = 2;

/// What to render; the CLI fills it from the scene's settings and its flags.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    pub width: u32,
    pub height: u32,
    pub spp: u32,
    pub max_depth: u32,
    pub seed: u32,
    pub sampler: SamplerKind,
    pub rr_threshold: f32,
    /// Samples per pixel in one progressive pass.
    pub spp_per_pass: u32,
}

impl RenderOptions {
    pub fn from_scene(scene: &Scene) -> Self {
        Self::from_settings(&scene.settings)
    }

    /// The options of `settings`, one sample per pixel per pass.
    pub fn from_settings(s: &RenderSettings) -> Self {
        RenderOptions {
            width: s.width,
            height: s.height,
            spp: s.spp,
            max_depth: s.max_depth,
            seed: s.seed,
            sampler: s.sampler,
            rr_threshold: s.rr_threshold,
            spp_per_pass: 1,
        }
    }

    /// The scene-level settings these options render with (the GPU renderers take these).
    pub fn settings(&self) -> RenderSettings {
        RenderSettings {
            width: self.width,
            height: self.height,
            spp: self.spp,
            max_depth: self.max_depth,
            seed: self.seed,
            sampler: self.sampler,
            rr_threshold: self.rr_threshold,
        }
    }
}

/// Totals of a render.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderStats {
    pub counters: PathCounters,
    pub samples: u64,
    pub seconds: f64,
}

impl RenderStats {
    pub fn rays(&self) -> u64 {
        self.counters.extension_rays + self.counters.shadow_rays
    }
}

/// A scene prepared for CPU rendering: its BVH, triangle soup and lights.
pub struct CpuRenderer<'a> {
    pub scene: &'a Scene,
    pub bvh: Bvh,
    pub bvh_stats: BuildStats,
    /// `bvh` in the CPU traversal layout (4-wide nodes, triangle packets): what renders trace.
    pub cpu_bvh: CpuBvh,
    pub triangles: Vec<[Vec3; 3]>,
    pub lights: LightSet,
}

impl<'a> CpuRenderer<'a> {
    /// The options of the tree [`CpuRenderer::new`] builds with `bvh_kind` (what `warpath info`
    /// and `warpath-bench bvh` report).
    pub fn bvh_options(bvh_kind: BuildKind) -> BuildOptions {
        // Leaves of at most 2 references (the SAH may still make larger ones): the CPU layout
        // tests 4 boxes per node visit, so finer leaves cull more triangles (Cornell box: 6% fewer
        // instructions per sample than 4; the dragon renders as fast, its build takes ~10% longer).
        BuildOptions { kind: bvh_kind, max_leaf_size: CPU_MAX_LEAF_SIZE, ..Default::default() }
    }

    pub fn new(scene: &'a Scene, bvh_kind: BuildKind) -> Self {
        let triangles = scene.triangle_soup();
        let (bvh, bvh_stats) = Bvh::build(&triangles, &Self::bvh_options(bvh_kind));
        let cpu_bvh = CpuBvh::new(&bvh, &triangles);
        let lights = scene.light_set();
        CpuRenderer { scene, bvh, bvh_stats, cpu_bvh, triangles, lights }
    }

    /// The estimator's view of the scene with `opts` (its sampler, depth and image size).
    pub fn view(&self, opts: &RenderOptions) -> SceneView<'_> {
        SceneView {
            scene: self.scene,
            bvh: &self.bvh,
            cpu_bvh: &self.cpu_bvh,
            triangles: &self.triangles,
            lights: &self.lights,
            sampler: Sampler::new(opts.sampler, opts.seed),
            max_depth: opts.max_depth,
            rr_threshold: opts.rr_threshold,
            width: opts.width,
            height: opts.height,
        }
    }

    /// Adds samples `first_sample .. first_sample + count` of every pixel to `film`, with
    /// the surface path tracer, or the volumetric one where the scene has media or
    /// index-matched boundaries.
    pub fn render_pass(&self, opts: &RenderOptions, film: &mut Film, first_sample: u32, count: u32) -> PathCounters {
        let view = self.view(opts);
        if self.scene.needs_volume_estimator() {
            render_pass_with(&VolumeView { surface: view }, film, first_sample, count)
        } else {
            render_pass_with(&view, film, first_sample, count)
        }
    }

    /// Renders `frames` ReSTIR DI frames (issue 15, [`crate::restir`]) of the static camera into
    /// `film`, one sample per pixel each; stops after the current frame when `cancel` is set.
    /// The error says why the scene cannot be rendered so (an environment light).
    pub fn render_restir(
        &self,
        opts: &RenderOptions,
        restir: &crate::restir::RestirOptions,
        film: &mut Film,
        frames: u32,
        cancel: &AtomicBool,
        progress: impl FnMut(u32),
    ) -> Result<(), String> {
        crate::restir::render(&self.view(opts), restir, film, frames, cancel, progress)
    }

    /// The name of the estimator [`render_pass`](Self::render_pass) uses for this scene.
    pub fn estimator_name(&self) -> &'static str {
        if self.scene.needs_volume_estimator() { "volumetric path tracer" } else { "path tracer" }
    }

    /// Renders `opts.spp` samples per pixel in passes. `progress(samples_done_per_pixel)`
    /// is called after each pass; if `cancel` becomes true the render stops after the
    /// current pass and returns what it has.
    pub fn render(&self, opts: &RenderOptions, cancel: &AtomicBool, progress: impl FnMut(u32)) -> (Film, RenderStats) {
        let mut film = Film::new(opts.width, opts.height);
        let stats = self.render_into(opts, &mut film, cancel, progress);
        (film, stats)
    }

    /// [`render`](Self::render) into a film the caller allocated (e.g. with
    /// [`Film::try_new`], which fails cleanly where memory is short).
    pub fn render_into(
        &self,
        opts: &RenderOptions,
        film: &mut Film,
        cancel: &AtomicBool,
        mut progress: impl FnMut(u32),
    ) -> RenderStats {
        let mut stats = RenderStats::default();
        let start = Instant::now();
        let per_pass = opts.spp_per_pass.max(1);
        let mut done = 0;
        while done < opts.spp && !cancel.load(Ordering::Relaxed) {
            let n = per_pass.min(opts.spp - done);
            let counters = self.render_pass(opts, film, done, n);
            stats.counters.merge(&counters);
            done += n;
            progress(done);
        }
        stats.samples = film.total_samples();
        stats.seconds = start.elapsed().as_secs_f64();
        stats
    }
}

/// Adds samples `first_sample .. first_sample + count` of every pixel of `film` (the
/// estimator's resolution) with `estimator`: rows in parallel, each written straight into the
/// film; per pixel the pass's samples are summed first (in f64, each sample's terms as
/// [`sample_terms`] makes them), then added.
pub fn render_pass_with<E: Estimator>(estimator: &E, film: &mut Film, first_sample: u32, count: u32) -> PathCounters {
    let (width, _) = estimator.resolution();
    let width = width as usize;
    if width == 0 {
        return PathCounters::default();
    }
    let rows =
        film.sum.par_chunks_mut(width).zip(film.sum_sq.par_chunks_mut(width)).zip(film.count.par_chunks_mut(width));
    rows.enumerate()
        .map(|(y, ((sums, sums_sq), counts))| {
            let mut counters = PathCounters::default();
            for x in 0..width {
                let pixel = (y * width + x) as u32;
                let (mut sum, mut sum_sq) = (DVec3::ZERO, DVec3::ZERO);
                for s in first_sample..first_sample + count {
                    let (value, square) = sample_terms(trace_path(estimator, pixel, s, &mut counters));
                    sum += value;
                    sum_sq += square;
                }
                sums[x] += sum;
                sums_sq[x] += sum_sq;
                counts[x] += count;
            }
            counters
        })
        .reduce(PathCounters::default, |mut a, b| {
            a.merge(&b);
            a
        })
}
