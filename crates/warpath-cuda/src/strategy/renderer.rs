//! [`StrategyRenderer`]: a scene uploaded once, its film and counters, and the progressive
//! passes that run the chosen [`Strategy`] over the scene's estimator — the surface path
//! tracer, or the volumetric one for scenes with media or index-matched boundaries (the same
//! schedules, instantiated per estimator: [`EstimatorKernels`]). A pass is split into
//! waves (`ScheduleArgs` of each wave, [`super::args`]); each wave runs through the typed
//! launches of [`super::launch`]; the host loops of the strategies with a launch per bounce or
//! step live in `wavefront.rs`, `pools.rs` and `multistage.rs`.

use super::args::ScheduleArgs;
use super::catalog::Strategy;
use super::catalog::WavefrontCompaction;
use super::features::MaterialFeatures;
use super::launch::{PersistentKernel, PoolKernel, ScheduleLaunch, SurfaceStage, VolumeStage, wavefront_kernel};
use super::queues::{MULTISTAGE_BYTES_PER_PATH, MultiStageBuffers};
use super::variant::{EstimatorKernels, KernelVariant, SURFACE, VOLUME};
use crate::buffer::DeviceBuffer;
use crate::catalog::{
    COMPACTION_OFK_PATH64, KernelEntry, SURFACE_SCHEDULES, ScheduleKernels, ScheduleScene, VOLUME_SCHEDULES,
};
use crate::compaction::{CompactPathState, CompactionWorkspace};
use crate::error::{CudaError, CudaResult};
use crate::film::DeviceFilm;
use crate::kernels::Estimator;
use crate::megakernel::DEFAULT_BLOCK;
use crate::runtime::{CudaDevice, KernelTimes};
use crate::scene_upload::{DeviceScene, DeviceSceneArgs};
use crate::volume_upload::{DeviceMedia, DeviceVolumeSceneArgs, counter_slots};
use crate::wide_bvh::BvhLayout;
use warpath_bvh::{BuildKind, BuildOptions, Bvh};
use warpath_core::film::Film;
use warpath_scene::{RenderSettings, Scene};

/// The deepest max_depth the surface estimator's counters cover (one slot per bounce).
pub const MAX_COUNTED_SURFACE_DEPTH: u32 = 4096;
/// Threads per block of the wavefront, regeneration and streaming kernels.
pub(super) const BLOCK: u32 = 256;
/// Threads per block and paths per tile of the tiled kernels (seed 000: 64 × M, M = 8).
pub(super) const TILED_THREADS: u32 = 64;
pub(super) const TILED_PATHS: u32 = 64 * 8;
/// The most paths one wave holds by default: 2^24 (multi-stage: 176 B per path, 2.8 GiB),
/// less where a quarter of the free device memory would not hold them (see
/// [`StrategyRenderer::new`]). Bigger waves fill the GPU better in the last bounces
/// (docs/benchmarks/strategies.md).
pub const DEFAULT_WAVE_PATHS: u32 = 1 << 24;
/// Path pools of regen-device and streaming-mk hold this many times the threads the GPU
/// keeps resident for their extend kernel (1: seed 003's pool of one path per thread).
pub const DEFAULT_POOL_FACTOR: u32 = 8;

/// Counters of the estimator (the CPU reference's fields, plus the SIMT view: warps entering
/// `extend` per bounce and their clock64 cycles).
pub use warpath_core::counters::PathCounters;
use warpath_core::counters::TrackingCounts;

/// The scene arguments of an estimator's schedule kernels (`E::Scene`): the surface
/// estimator's [`DeviceSceneArgs`] or the volumetric one's [`DeviceVolumeSceneArgs`]. Every
/// schedule is generic over it but the multi-stage wavefront, which runs the estimator's own
/// stage list.
pub(crate) trait EstimatorScene: ScheduleScene {
    /// One wave through the estimator's stage list (the multi-stage wavefront).
    fn run_stages(renderer: &mut StrategyRenderer<'_>, args: &ScheduleArgs<Self>) -> CudaResult<()>;
    /// The stage kernels in launch order, for [`StrategyRenderer::kernel_resources`] and the
    /// per-stage times: (kernel, name in timings).
    fn stage_kernels() -> Vec<(KernelEntry, &'static str)>;
}

impl EstimatorScene for DeviceSceneArgs {
    fn run_stages(renderer: &mut StrategyRenderer<'_>, args: &ScheduleArgs<Self>) -> CudaResult<()> {
        renderer.run_surface_stages(args)
    }
    fn stage_kernels() -> Vec<(KernelEntry, &'static str)> {
        SurfaceStage::ALL.map(|stage| (stage.entry(), stage.name())).to_vec()
    }
}

impl EstimatorScene for DeviceVolumeSceneArgs {
    fn run_stages(renderer: &mut StrategyRenderer<'_>, args: &ScheduleArgs<Self>) -> CudaResult<()> {
        renderer.run_volume_stages(args)
    }
    fn stage_kernels() -> Vec<(KernelEntry, &'static str)> {
        VolumeStage::ALL.map(|stage| (stage.entry(), stage.name())).to_vec()
    }
}

/// An error for a scene no estimator renders: isosurface shapes (the surface path tracer's)
/// together with media or `null` materials (the volumetric one's). Checked before the BVH is
/// built.
fn check_estimator(scene: &Scene) -> CudaResult<()> {
    if !scene.isosurfaces.is_empty() && scene.needs_volume_estimator() {
        return Err(CudaError::InvalidArgument(format!(
            "scene `{}`: isosurface shapes render with the surface path tracer, and the scene needs the \
             volumetric one (media or 'null' materials)",
            scene.name
        )));
    }
    Ok(())
}

/// The stage kernels of `estimator`'s stage list, in launch order, with their names in timings.
fn stage_kernels(estimator: Estimator) -> Vec<(KernelEntry, &'static str)> {
    match estimator {
        Estimator::Surface => DeviceSceneArgs::stage_kernels(),
        Estimator::Volume => DeviceVolumeSceneArgs::stage_kernels(),
    }
}

/// Kernel times of a strategy with per-bounce launches (wavefront): milliseconds per bounce
/// of the extend kernel, and of the separate compaction pass where there is one; of the
/// multi-stage wavefront: milliseconds per stage. A view of the renderer's [`KernelTimes`]
/// ([`StrategyRenderer::launch_times`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchTimes {
    pub extend_ms_per_bounce: Vec<f64>,
    pub compaction_ms_per_bounce: Vec<f64>,
    /// Multi-stage wavefront: total milliseconds per stage kernel, in launch order.
    pub stage_ms: Vec<(&'static str, f64)>,
}

impl LaunchTimes {
    /// The view of `times` (kernels timed with the wavefront's bounces as steps) for `strategy`.
    fn of(times: &KernelTimes, strategy: Strategy, estimator: Estimator) -> LaunchTimes {
        let mut view = LaunchTimes::default();
        if let Strategy::Wavefront(method) = strategy {
            let extend = match estimator {
                Estimator::Surface => wavefront_kernel(&SURFACE_SCHEDULES, method).name(),
                Estimator::Volume => wavefront_kernel(&VOLUME_SCHEDULES, method).name(),
            };
            view.extend_ms_per_bounce = times.get(extend).map(|k| k.ms_per_step.clone()).unwrap_or_default();
            if method == WavefrontCompaction::Separate {
                view.compaction_ms_per_bounce =
                    times.get(COMPACTION_OFK_PATH64.name()).map(|k| k.ms_per_step.clone()).unwrap_or_default();
            }
        }
        if strategy == Strategy::MultiStage {
            let stages = stage_kernels(estimator);
            for kernel in times.iter() {
                if let Some(&(_, name)) = stages.iter().find(|(entry, _)| entry.name == kernel.kernel) {
                    view.stage_ms.push((name, kernel.ms));
                }
            }
        }
        view
    }
}

/// A scene uploaded for the GPU strategies, with its film, counters and path buffers.
pub struct StrategyRenderer<'d> {
    pub(super) device: &'d CudaDevice,
    pub scene: DeviceScene,
    /// The scene's media (the volumetric estimator runs when this is set).
    pub media: Option<DeviceMedia>,
    /// The kernels of the estimator the scene needs, compiled as `variant`.
    pub(super) estimator: &'static EstimatorKernels,
    pub(super) variant: KernelVariant,
    /// The material features the scene needs (`variant.materials` contains them).
    pub(super) materials_needed: MaterialFeatures,
    pub(super) film: DeviceFilm,
    /// `[extension, shadow, paths 0..=D, warps 0..=D, cycles 0..=D]` when instrumentation is on.
    pub(super) counters: Option<DeviceBuffer<u64>>,
    pub(super) block: (u32, u32),
    pub(super) strategy: Strategy,
    pub(super) max_wave_paths: u32,
    pub(super) pool_factor: u32,
    pub(super) work: DeviceBuffer<u32>,
    /// Path buffers: two of a wave (or pool) and InK-Compact's intermediate one.
    pub(super) paths: [Option<DeviceBuffer<CompactPathState>>; 3],
    pub(super) flags: Option<DeviceBuffer<u8>>,
    pub(super) compaction: Option<CompactionWorkspace>,
    pub(super) separate_compaction: Option<CompactionWorkspace>,
    /// Every launch's GPU time, while launch timing is on.
    pub(super) times: Option<KernelTimes>,
    pub(super) multistage: Option<MultiStageBuffers>,
    /// Naive in waves of `max_wave_paths`, one thread per path (`naive_wave`), instead of
    /// one launch over the image: seed 003's image tiles.
    pub(super) naive_waves: bool,
}

impl<'d> StrategyRenderer<'d> {
    /// The options of the tree [`StrategyRenderer::new`] builds with `bvh_kind` (what
    /// `warpath info` and `bench bvh` report): the builder's defaults, leaves of up to 4.
    pub fn bvh_options(bvh_kind: BuildKind) -> BuildOptions {
        BuildOptions { kind: bvh_kind, ..Default::default() }
    }

    /// Builds the BVH (`bvh_kind`) over the scene's triangles, converts and uploads it with
    /// the scene, its lights and its media, and allocates a zeroed film of
    /// `settings.width × height`. Scenes with media or index-matched boundaries render with
    /// the volumetric estimator, the others with the surface path tracer. The strategy
    /// starts as [`Strategy::Naive`].
    pub fn new(
        device: &'d CudaDevice,
        scene: &Scene,
        settings: &RenderSettings,
        bvh_kind: BuildKind,
    ) -> CudaResult<Self> {
        check_estimator(scene)?;
        let soup = scene.triangle_soup();
        let (bvh, _) = Bvh::build(&soup, &Self::bvh_options(bvh_kind));
        Self::with_bvh(device, scene, settings, &bvh)
    }

    /// [`StrategyRenderer::new`] over a tree built already (with [`StrategyRenderer::bvh_options`]):
    /// several devices rendering one scene build it once.
    pub fn with_bvh(device: &'d CudaDevice, scene: &Scene, settings: &RenderSettings, bvh: &Bvh) -> CudaResult<Self> {
        Self::with_bvh_layout(device, scene, settings, bvh, BvhLayout::Binary)
    }

    /// [`StrategyRenderer::with_bvh`] with the tree uploaded in `layout`: [`BvhLayout::Wide8`]
    /// collapses `bvh` to the compressed 8-wide BVH and compiles the estimator's programs with
    /// `WARPATH_WIDE_BVH` (`KernelVariant::wide_bvh`), so every strategy traces it.
    pub fn with_bvh_layout(
        device: &'d CudaDevice,
        scene: &Scene,
        settings: &RenderSettings,
        bvh: &Bvh,
        layout: BvhLayout,
    ) -> CudaResult<Self> {
        check_estimator(scene)?;
        let lights = scene.light_set();
        let media = if scene.needs_volume_estimator() { Some(DeviceMedia::upload(device, scene)?) } else { None };
        let wide_bvh = layout == BvhLayout::Wide8;
        // The basic programs when the materials need none of the optional features.
        let materials_needed = MaterialFeatures::of_scene(scene);
        let materials = MaterialFeatures::compiled_for(materials_needed);
        let variant = match scene.isosurfaces.is_empty() {
            true => KernelVariant { wide_bvh, materials, ..Default::default() },
            false => KernelVariant { wide_bvh, materials, ..KernelVariant::ISOSURFACE_SHAPES },
        };
        let estimator = if media.is_some() { VOLUME.variant(variant) } else { SURFACE.variant(variant) };
        let scene = DeviceScene::upload_with_layout(device, scene, &lights, bvh, settings, layout)?;
        let film = DeviceFilm::new(device, settings.width, settings.height)?;
        Ok(StrategyRenderer {
            device,
            scene,
            media,
            estimator,
            variant,
            materials_needed,
            film,
            counters: None,
            block: DEFAULT_BLOCK,
            strategy: Strategy::Naive,
            max_wave_paths: default_wave_paths(device),
            pool_factor: DEFAULT_POOL_FACTOR,
            work: DeviceBuffer::zeroed(device, 2)?,
            paths: [None, None, None],
            flags: None,
            compaction: None,
            separate_compaction: None,
            times: None,
            multistage: None,
            naive_waves: false,
        })
    }

    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The BVH layout the scene was uploaded with (and its programs trace).
    pub fn bvh_layout(&self) -> BvhLayout {
        self.scene.bvh.layout()
    }

    /// The estimator the scene renders with (`surface` or `volume`).
    pub fn estimator_name(&self) -> &'static str {
        self.estimator.name
    }

    /// The variant the estimator's programs are compiled as (its label: `warpath info`, the
    /// render's progress note).
    pub fn kernel_variant(&self) -> KernelVariant {
        self.variant
    }

    /// The material features the scene's materials need ([`MaterialFeatures::of_scene`]).
    pub fn material_features_needed(&self) -> MaterialFeatures {
        self.materials_needed
    }

    /// Compiles the estimator's programs with the material features `materials` for the next
    /// passes (the scene's choice is [`MaterialFeatures::compiled_for`] its needs; every
    /// feature, [`MaterialFeatures::ALL`], is the default programs). An error when `materials`
    /// lacks a feature the scene needs.
    pub fn set_material_features(&mut self, materials: MaterialFeatures) -> CudaResult<()> {
        let missing = self.materials_needed.missing_from(materials);
        if !missing.is_empty() {
            return Err(CudaError::InvalidArgument(format!(
                "programs compiled for {materials} cannot render this scene: its materials need {}",
                missing.names()
            )));
        }
        self.variant = KernelVariant { materials, ..self.variant };
        self.estimator = match self.media {
            Some(_) => VOLUME.variant(self.variant),
            None => SURFACE.variant(self.variant),
        };
        Ok(())
    }

    /// Compiles the volumetric estimator's kernels as `variant` for the next passes (grids
    /// read from 3D textures, a register cap: [`KernelVariant`]); the grids of `scene` (the
    /// scene this renderer was made from) are uploaded again when the fetch changes. Only
    /// the volumetric estimator has variants: a surface scene accepts only the default. The
    /// material features stay the renderer's unless `variant` names a set other than the
    /// default (all), which must then contain the scene's needs (as
    /// [`StrategyRenderer::set_material_features`]).
    pub fn set_kernel_variant(&mut self, scene: &Scene, variant: KernelVariant) -> CudaResult<()> {
        // The wide-BVH define follows the layout the scene was uploaded with.
        let wide_scene = self.scene.bvh.layout() == BvhLayout::Wide8;
        if variant.wide_bvh && !wide_scene {
            return Err(CudaError::InvalidArgument(
                "the wide-BVH variant is chosen with the scene's BVH layout (upload it with BvhLayout::Wide8)".into(),
            ));
        }
        let materials = match variant.materials {
            MaterialFeatures::ALL => self.variant.materials,
            chosen => chosen,
        };
        let missing = self.materials_needed.missing_from(materials);
        if !missing.is_empty() {
            return Err(CudaError::InvalidArgument(format!(
                "kernel variant '{}': scene `{}` needs the material features {}",
                variant.label(),
                scene.name,
                missing.names()
            )));
        }
        let variant = KernelVariant { wide_bvh: wide_scene, materials, ..variant };
        if variant.isosurface_shapes {
            return Err(CudaError::InvalidArgument(
                "the isosurface-shape variant is chosen with the scene (scenes with isosurfaces render with it)".into(),
            ));
        }
        let Some(media) = &self.media else {
            if (KernelVariant { wide_bvh: false, materials: MaterialFeatures::ALL, ..variant }).is_default() {
                return self.set_material_features(materials);
            }
            return Err(CudaError::InvalidArgument(format!(
                "kernel variant '{}': variants apply to the volumetric estimator; scene `{}` has no media",
                variant.label(),
                scene.name
            )));
        };
        if media.grid_fetch() != variant.grid_fetch {
            // On an error the old upload stays, and with it the old variant.
            self.media = Some(DeviceMedia::upload_with(self.device, scene, variant.grid_fetch)?);
        }
        self.estimator = VOLUME.variant(variant);
        self.variant = variant;
        Ok(())
    }

    /// Chooses the strategy of the next passes (the film and counters are kept).
    pub fn set_strategy(&mut self, strategy: Strategy) {
        self.strategy = strategy;
    }

    /// The naive megakernel's threads per block in x and y (at most 1024 in all).
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

    /// Runs `naive` in waves of [`StrategyRenderer::max_wave_paths`] paths, one thread per
    /// path (seed 003's image tiles: a launch per tile), instead of one launch over the image
    /// with a thread per pixel. The paths, counts and image stay the same.
    pub fn set_naive_waves(&mut self, enabled: bool) {
        self.naive_waves = enabled;
    }

    /// The most paths one wave holds (path buffers grow to it); at least one 8×8 tile.
    pub fn set_max_wave_paths(&mut self, paths: u32) {
        self.max_wave_paths = paths.max(TILED_PATHS);
    }

    pub fn max_wave_paths(&self) -> u32 {
        self.max_wave_paths
    }

    /// Pool size of regen-device and streaming-mk, in multiples of the extend kernel's
    /// resident threads (at least 1).
    pub fn set_pool_factor(&mut self, factor: u32) {
        self.pool_factor = factor.max(1);
    }

    /// Slots per counter table: the surface estimator keeps one per bounce up to max_depth,
    /// the volumetric one at most 1024 (its max_depth may be unlimited).
    fn counter_table_slots(&self) -> usize {
        let max_depth = self.scene.params.max_depth;
        if self.media.is_some() { counter_slots(max_depth) as usize } else { max_depth as usize + 1 }
    }

    /// Turns the per-bounce path counters on (zeroed) or off.
    pub fn set_instrumentation(&mut self, enabled: bool) -> CudaResult<()> {
        if enabled && self.media.is_none() && self.scene.params.max_depth > MAX_COUNTED_SURFACE_DEPTH {
            return Err(CudaError::InvalidArgument(format!(
                "counting rays needs max_depth ≤ {MAX_COUNTED_SURFACE_DEPTH} with the surface path tracer (it keeps a \
                 counter per bounce); this render has {}",
                self.scene.params.max_depth
            )));
        }
        self.counters = if enabled {
            // [extension, shadow, paths × S, warps × S, cycles × S] (+ three tracking totals).
            let slots = 2 + 3 * self.counter_table_slots() + if self.media.is_some() { 3 } else { 0 };
            Some(DeviceBuffer::zeroed(self.device, slots)?)
        } else {
            None
        };
        Ok(())
    }

    /// Turns kernel timing (CUDA events around every launch of a pass; the wavefront's per
    /// bounce) on or off.
    pub fn set_launch_timing(&mut self, enabled: bool) {
        self.times = enabled.then(KernelTimes::default);
    }

    /// Every kernel's time so far (None unless timing is on).
    pub fn kernel_times(&self) -> Option<&KernelTimes> {
        self.times.as_ref()
    }

    /// The per-bounce (wavefront) and per-stage (multistage) view of the kernel times so far,
    /// for the current strategy (empty unless timing is on and a wavefront or multistage ran).
    pub fn launch_times(&self) -> LaunchTimes {
        match &self.times {
            Some(times) => LaunchTimes::of(times, self.strategy, self.estimator.estimator),
            None => LaunchTimes::default(),
        }
    }

    /// Zeroes the film, the counters and the launch times.
    pub fn reset(&mut self) -> CudaResult<()> {
        self.film.clear(self.device)?;
        if let Some(counters) = &mut self.counters {
            counters.clear(self.device)?;
        }
        if let Some(times) = &mut self.times {
            times.clear();
        }
        Ok(())
    }

    /// Adds samples `first_sample .. first_sample + count` of every pixel to the film: the
    /// strategy's kernels write the film's per-pass f32 sums, then the pass is merged into its
    /// f64 accumulation on the GPU ([`DeviceFilm::merge_pass`]).
    pub fn render_pass(&mut self, first_sample: u32, count: u32) -> CudaResult<()> {
        let device = self.device;
        let mut times = self.times.take();
        let rendered = device.timing(times.as_mut(), || self.render_pass_unmerged(first_sample, count));
        self.times = times;
        rendered?;
        self.film.merge_pass(self.device)
    }

    fn render_pass_unmerged(&mut self, first_sample: u32, count: u32) -> CudaResult<()> {
        if first_sample.checked_add(count).is_none() {
            return Err(CudaError::InvalidArgument(format!(
                "samples {first_sample} + {count} overflow the 32-bit sample index"
            )));
        }
        if count == 0 {
            return Ok(());
        }
        match &self.media {
            None => self.render_pass_with(self.scene.args(self.device), first_sample, count),
            Some(media) => {
                let args = media.args(self.device, self.scene.args(self.device), self.scene.params.max_depth);
                self.render_pass_with(args, first_sample, count)
            }
        }
    }

    /// A pass with the estimator whose scene arguments are `scene`.
    fn render_pass_with<S: EstimatorScene>(&mut self, scene: S, first_sample: u32, count: u32) -> CudaResult<()> {
        let (width, height) = (self.scene.params.width, self.scene.params.height);
        if self.strategy == Strategy::Naive && !self.naive_waves {
            // One launch over the image: the whole pass in each thread, no waves.
            let args = self.args(scene, first_sample, 0, width.div_ceil(8), 0, 0);
            return self.launcher(&args).naive(self.block, count);
        }
        let tiles_x = width.div_ceil(8);
        let padded = tiles_x as u64 * height.div_ceil(8) as u64 * 64;
        if padded > u32::MAX as u64 {
            return Err(CudaError::InvalidArgument(format!("a {width}×{height} film is too large for one pass")));
        }
        let padded = padded as u32;
        // Samples per pass of path indices (which must fit 32 bits), then waves inside it.
        let samples_per_pass = ((u32::MAX as u64 / padded as u64).max(1) as u32).min(count);
        let mut done = 0;
        while done < count {
            let samples = samples_per_pass.min(count - done);
            let pass_paths = padded * samples;
            let mut base = 0u32;
            while base < pass_paths {
                let wave = self.max_wave_paths.min(pass_paths - base);
                let args = self.args(scene, first_sample + done, padded, tiles_x, base, wave);
                self.run_wave(&args)?;
                base += wave;
            }
            done += samples;
        }
        Ok(())
    }

    fn args<S: EstimatorScene>(
        &self,
        scene: S,
        first_sample: u32,
        padded_pixels: u32,
        tiles_x: u32,
        path_base: u32,
        wave: u32,
    ) -> ScheduleArgs<S> {
        let device = self.device;
        let (lo, hi) = self.scene.bounds;
        let scale = |k: usize| {
            let extent = hi[k] - lo[k];
            if extent > 0.0 { 1024.0 / extent } else { 0.0 }
        };
        ScheduleArgs {
            film_sum: self.film.pass_sum.address(device),
            film_sum_sq: self.film.pass_sum_sq.address(device),
            film_count: self.film.pass_count.address(device),
            counters: self.counters.as_ref().map_or(0, |c| c.address(device)),
            work: self.work.address(device),
            morton_lo: lo,
            morton_scale: [scale(0), scale(1), scale(2)],
            first_sample,
            padded_pixels,
            tiles_x,
            width: self.scene.params.width,
            height: self.scene.params.height,
            path_base,
            wave_paths: wave,
            _pad: 0,
            scene,
        }
    }

    /// The typed launches of the scene's estimator's schedules with `args`.
    pub(super) fn launcher<'a, S: EstimatorScene>(&'a self, args: &'a ScheduleArgs<S>) -> ScheduleLaunch<'a, S> {
        ScheduleLaunch { device: self.device, estimator: self.estimator, args }
    }

    /// Path buffer `index` with room for `len` paths (grown, never shrunk; zeroed, i.e. all
    /// slots dead, only when allocated).
    pub(super) fn path_buffer(&mut self, index: usize, len: usize) -> CudaResult<u64> {
        let device = self.device;
        let slot = &mut self.paths[index];
        if slot.as_ref().is_none_or(|b| b.len() < len) {
            *slot = None; // free first: the old and the new buffer need not fit together
            *slot = Some(DeviceBuffer::zeroed(device, len)?);
        }
        Ok(slot.as_ref().map(|b| b.address(device)).unwrap_or(0))
    }

    pub(super) fn resident_grid(&self, kernel: KernelEntry, block: u32) -> CudaResult<u32> {
        let function = self.device.entry_function(kernel, self.estimator.source(kernel.program)?)?;
        let per_sm = self.device.blocks_per_multiprocessor(&function, block)?;
        Ok(per_sm * self.device.info().multiprocessors)
    }

    pub(super) fn reset_work(&mut self, next: u32, live: u32) -> CudaResult<()> {
        self.work.upload(self.device, &[next, live])
    }

    pub(super) fn read_work(&self) -> CudaResult<[u32; 2]> {
        let values = self.work.download(self.device)?;
        Ok([values[0], values[1]])
    }

    fn run_wave<S: EstimatorScene>(&mut self, args: &ScheduleArgs<S>) -> CudaResult<()> {
        self.reset_work(0, 0)?;
        let wave = args.wave_paths;
        let kernels = &S::SCHEDULES;
        match self.strategy {
            Strategy::Naive => self.launcher(args).naive_wave(BLOCK),
            Strategy::NaiveMk => {
                let paths = self.path_buffer(0, wave as usize)?;
                let launcher = self.launcher(args);
                launcher.naive_mk(false, BLOCK, paths)?;
                launcher.naive_mk(true, BLOCK, paths)
            }
            Strategy::Wavefront(method) => self.run_wavefront(args, method),
            Strategy::Tiled => {
                let tiles = wave.div_ceil(TILED_PATHS);
                let memory = self.path_buffer(0, tiles as usize * TILED_PATHS as usize)?;
                self.launcher(args).with_pool(PoolKernel::TiledGlobal, tiles, TILED_THREADS, memory)
            }
            Strategy::TiledShared => {
                self.launcher(args).persistent(PersistentKernel::TiledShared, wave.div_ceil(TILED_PATHS), TILED_THREADS)
            }
            Strategy::RegenThread | Strategy::RegenWarp | Strategy::RegenBlock => {
                let kernel = match self.strategy {
                    Strategy::RegenThread => PersistentKernel::RegenThread,
                    Strategy::RegenWarp => PersistentKernel::RegenWarp,
                    _ => PersistentKernel::RegenBlock,
                };
                let grid = self.resident_grid(kernel.kernel(kernels).entry(), BLOCK)?;
                self.launcher(args).persistent(kernel, grid, BLOCK)
            }
            Strategy::RegenDevice => self.run_regen_device(args),
            Strategy::StreamingSk | Strategy::SortedSk | Strategy::SortingSk => {
                let kernel = match self.strategy {
                    Strategy::SortedSk => PoolKernel::StreamingSkSorted,
                    Strategy::SortingSk => PoolKernel::StreamingSkSorting,
                    _ => PoolKernel::StreamingSkScan,
                };
                let grid = self.resident_grid(kernel.kernel(kernels).entry(), BLOCK)?;
                let pool = self.path_buffer(0, grid as usize * BLOCK as usize)?;
                self.launcher(args).with_pool(kernel, grid, BLOCK, pool)
            }
            Strategy::StreamingMk => self.run_streaming_mk(args),
            Strategy::MultiStage => S::run_stages(self, args),
        }
    }

    /// The film so far (every pass merged, in f64).
    pub fn download_film(&self) -> CudaResult<Film> {
        self.film.download(self.device)
    }

    /// The counters so far (all zero when instrumentation is off).
    pub fn counters(&self) -> CudaResult<PathCounters> {
        let Some(buffer) = &self.counters else { return Ok(PathCounters::default()) };
        let values = buffer.download(self.device)?;
        Ok(parse_counters(&values, self.counter_table_slots()))
    }

    /// Registers, local memory, static shared memory and resident blocks per SM of the
    /// kernels a strategy launches.
    pub fn kernel_resources(&self, strategy: Strategy) -> CudaResult<Vec<KernelResources>> {
        let kernels = match self.estimator.estimator {
            Estimator::Surface => strategy_kernels(&SURFACE_SCHEDULES, strategy, self.naive_waves),
            Estimator::Volume => strategy_kernels(&VOLUME_SCHEDULES, strategy, self.naive_waves),
        };
        let kernels: Vec<(KernelEntry, u32)> = match strategy {
            Strategy::MultiStage => {
                stage_kernels(self.estimator.estimator).into_iter().map(|(entry, _)| (entry, BLOCK)).collect()
            }
            _ => kernels,
        };
        kernels
            .iter()
            .map(|&(entry, block)| {
                let function = self.device.entry_function(entry, self.estimator.source(entry.program)?)?;
                let attribute = |attribute| {
                    function.get_attribute(attribute).map_err(|e| CudaError::driver("cuFuncGetAttribute", e))
                };
                use cudarc::driver::sys::CUfunction_attribute as A;
                Ok(KernelResources {
                    kernel: entry.name,
                    block,
                    registers: attribute(A::CU_FUNC_ATTRIBUTE_NUM_REGS)? as u32,
                    local_bytes: attribute(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)? as u32,
                    shared_bytes: attribute(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)? as u32,
                    blocks_per_sm: self.device.blocks_per_multiprocessor(&function, block)?,
                })
            })
            .collect()
    }
}

/// The schedule kernels `strategy` launches (and their threads per block); the multi-stage
/// wavefront's are the stages, none here.
fn strategy_kernels<S: ScheduleScene>(
    k: &ScheduleKernels<S>,
    strategy: Strategy,
    naive_waves: bool,
) -> Vec<(KernelEntry, u32)> {
    match strategy {
        Strategy::Naive if naive_waves => vec![(k.naive_wave.entry(), BLOCK)],
        Strategy::Naive => vec![(k.naive.entry(), 64)],
        Strategy::NaiveMk => vec![(k.naive_mk_first.entry(), BLOCK), (k.naive_mk_rest.entry(), BLOCK)],
        Strategy::Wavefront(method) => vec![(wavefront_kernel(k, method).entry(), BLOCK)],
        Strategy::Tiled => vec![(k.tiled_global.entry(), TILED_THREADS)],
        Strategy::TiledShared => vec![(k.tiled_shared.entry(), TILED_THREADS)],
        Strategy::RegenThread => vec![(k.regen_thread.entry(), BLOCK)],
        Strategy::RegenWarp => vec![(k.regen_warp.entry(), BLOCK)],
        Strategy::RegenBlock => vec![(k.regen_block.entry(), BLOCK)],
        Strategy::RegenDevice => vec![(k.regen_device_fill.entry(), BLOCK), (k.regen_device_extend.entry(), BLOCK)],
        Strategy::StreamingSk => vec![(k.streaming_sk_scan.entry(), BLOCK)],
        Strategy::SortedSk => vec![(k.streaming_sk_sorted.entry(), BLOCK)],
        Strategy::SortingSk => vec![(k.streaming_sk_sorting.entry(), BLOCK)],
        Strategy::StreamingMk => vec![(k.streaming_mk_regen.entry(), BLOCK), (k.wavefront_collate.entry(), BLOCK)],
        Strategy::MultiStage => vec![],
    }
}

/// What one kernel uses of an SM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelResources {
    pub kernel: &'static str,
    /// Threads per block it is launched with.
    pub block: u32,
    pub registers: u32,
    /// Local memory per thread (spills and stack).
    pub local_bytes: u32,
    /// Static shared memory per block.
    pub shared_bytes: u32,
    pub blocks_per_sm: u32,
}

impl KernelResources {
    /// Resident warps per SM over the maximum of 64 (Hopper).
    pub fn occupancy(&self) -> f64 {
        (self.blocks_per_sm * self.block.div_ceil(32)) as f64 / 64.0
    }
}

/// [`DEFAULT_WAVE_PATHS`], or fewer so that the largest per-path footprint (multi-stage)
/// of a wave takes at most a quarter of the free device memory.
fn default_wave_paths(device: &CudaDevice) -> u32 {
    let free = device.memory_info().map(|(free, _)| free).unwrap_or(0);
    let fitting = (free / 4 / MULTISTAGE_BYTES_PER_PATH) as u64;
    let paths = fitting.min(DEFAULT_WAVE_PATHS as u64) as u32;
    (paths / TILED_PATHS * TILED_PATHS).max(TILED_PATHS)
}

/// Splits the counter slots (`[ext, shadow, paths × S, warps × S, cycles × S]`).
pub(super) fn parse_counters(values: &[u64], slots: usize) -> PathCounters {
    let table = |k: usize| values.get(2 + k * slots..2 + (k + 1) * slots).map(<[u64]>::to_vec).unwrap_or_default();
    let mut active_per_bounce = table(0);
    while active_per_bounce.last() == Some(&0) {
        active_per_bounce.pop();
    }
    let bounces = active_per_bounce.len();
    let mut active_warps_per_bounce = table(1);
    let mut warp_cycles_per_bounce = table(2);
    active_warps_per_bounce.truncate(bounces);
    warp_cycles_per_bounce.truncate(bounces);
    // The volumetric estimator's three tracking totals follow the tables.
    let extra = |k: usize| values.get(2 + 3 * slots + k).copied().unwrap_or(0);
    PathCounters {
        active_per_bounce,
        active_warps_per_bounce,
        warp_cycles_per_bounce,
        extension_rays: values.first().copied().unwrap_or(0),
        shadow_rays: values.get(1).copied().unwrap_or(0),
        tracking: TrackingCounts { steps: extra(0), density_lookups: extra(1), albedo_lookups: extra(2) },
    }
}
