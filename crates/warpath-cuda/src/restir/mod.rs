//! ReSTIR DI on the GPU (issue 15, seed 002): the kernels of `kernels/restir.cu` launched
//! frame by frame with a static camera, accumulating one sample per pixel per frame into a
//! [`DeviceFilm`], as `warpath_cpu::restir::render` does on the CPU with the same random
//! numbers (the GPU test compares the two pixel by pixel).
//!
//! A frame: `restir_initial_ris` (G-buffer + M candidates from the 16×16 block's
//! shared-memory light pool, or from the power distribution) → `restir_visibility` →
//! `restir_temporal` (with the previous frame's final reservoirs and G-buffer; then
//! `restir_boiling_filter` when `RestirOptions::boiling_filter` is on) →
//! `restir_spatial` × passes → `restir_shade` (the film's pass buffers) → the film merge;
//! unless [`RayLanes::Inline`], the reuse passes' shadow rays run in kernels of their own
//! (`restir_temporal_choose` + `restir_temporal_visibility`, `restir_spatial_choose` +
//! `restir_spatial_z`, pairwise `restir_spatial_pairwise_sees` +
//! `restir_spatial_pairwise_grouped`);
//! then the frame's G-buffer and reservoirs become the previous ones (seed 002's `set_prev`,
//! a swap of buffers here). With [`RestirRenderer::set_kernel_timing`] every kernel is timed
//! between CUDA events ([`KernelTimes`]; [`RestirTimes`] is the per-frame view of them).
//!
//! Scope as the CPU reference: emissive triangles only (an environment is refused), no media;
//! isosurface shapes are not compiled into these kernels yet (refused with a message).

pub mod args;
mod programs;
mod times;

pub use programs::{compiled_features, program, program_for, variant_programs};
pub use times::RestirTimes;

use crate::buffer::DeviceBuffer;
use crate::catalog::{
    Kernel, RESTIR_BOILING_FILTER, RESTIR_INITIAL_RIS, RESTIR_INITIAL_RIS_CHANNELS, RESTIR_SHADE, RESTIR_SPATIAL,
    RESTIR_SPATIAL_CHOOSE, RESTIR_SPATIAL_PAIRWISE, RESTIR_SPATIAL_PAIRWISE_GROUPED, RESTIR_SPATIAL_PAIRWISE_SEES,
    RESTIR_SPATIAL_Z, RESTIR_TEMPORAL, RESTIR_TEMPORAL_CHOOSE, RESTIR_TEMPORAL_VISIBILITY, RESTIR_VISIBILITY,
    RestirKernelArgs,
};
use crate::compiler::KernelSource;
use crate::error::{CudaError, CudaResult};
use crate::film::DeviceFilm;
use crate::runtime::CudaDevice;
use crate::scene_upload::{DeviceScene, GpuCamera};
use crate::strategy::{MaterialFeatures, StrategyRenderer};
use crate::wide_bvh::BvhLayout;
use args::RestirArgs;
use bytemuck::{Pod, Zeroable};
use cudarc::driver::LaunchConfig;
use warpath_bvh::{BuildKind, Bvh};
use warpath_core::camera::Camera;
use warpath_core::film::Film;
use warpath_core::light::Environment;
use warpath_core::restir::{BiasCorrection, RayCounts, Reprojection, RestirOptions, SampleOrigin, boiling_multiplier};
use warpath_scene::{RenderSettings, Scene};

// The kernels, in launch order: `restir_initial_ris`, `restir_visibility`, the temporal pass
// (`restir_temporal`, or with its one shadow ray apart — ray-traced and 1/M modes, unless the
// rays are [`RayLanes::Inline`] — `restir_temporal_choose` (the combination), then
// `restir_temporal_visibility` (the ray, Z and W)), the spatial passes (`restir_spatial`;
// with pairwise MIS `restir_spatial_pairwise`, a kernel of its own: sharing one cost the other
// modes 70% of their spatial time, 4.8 → 8.2 ms, measured; with the rays apart
// `restir_spatial_choose` (the combination, no shadow ray), then `restir_spatial_z`: the
// normaliser Z's shadow rays (1/M: the pixel's own only), dealt out to [`RayLanes`] lanes a
// pixel, which finishes the reservoirs; pairwise MIS with its neighbours' rays apart:
// `restir_spatial_pairwise_sees` (whether each neighbour sees the pixel's own sample, dealt out
// likewise), then `restir_spatial_pairwise_grouped`), and `restir_shade`. Each is a catalog
// constant (`crate::catalog::RESTIR_*`) taking the one [`RestirArgs`].

/// Who traces a spatial pass's shadow rays to one light point from several surfaces (the
/// pixel's own and its neighbours'): the spatial kernel's thread, one ray after another
/// (`Inline`, the first schedule), or a kernel of their own in which `Lanes(g)` consecutive
/// lanes of a warp share a pixel's rays, 32 / g pixels a warp, input i to lane i mod g (g = 1:
/// one thread a pixel, its rays one after another, in a kernel of 71 registers instead of 89);
/// `Auto`: one lane per input, g = neighbours + 1 (at most 32), the fastest measured
/// (docs/benchmarks/restir.md, optimisation 5b: 6 lanes for 5 neighbours, spatial reuse −31%).
/// Any schedule but `Inline` also traces the temporal pass's one shadow ray in a kernel of its
/// own (`restir_temporal_visibility`; ray-traced and 1/M modes), and the 1/M mode's one spatial
/// ray (whether the pixel sees a neighbour's sample) by `restir_spatial_z` at one lane a pixel.
/// The image is the same whichever traces them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RayLanes {
    Inline,
    Lanes(u32),
    Auto,
}

impl RayLanes {
    /// The default schedule.
    pub const DEFAULT: RayLanes = RayLanes::Auto;

    /// From the command line's count: 0 inline, 1 to 32 lanes a pixel.
    pub fn from_count(lanes: u32) -> CudaResult<Self> {
        match lanes {
            0 => Ok(RayLanes::Inline),
            1..=32 => Ok(RayLanes::Lanes(lanes)),
            _ => Err(CudaError::InvalidArgument(format!(
                "restir-di: {lanes} ray lanes a pixel (0: inline, or 1 to 32, the lanes of a warp)"
            ))),
        }
    }

    /// The lanes a pixel the kernels get for `pixels` pixels with `bias` and `neighbours`
    /// (RestirArgs.ray_group; 0: inline): pairwise MIS keeps one bit per neighbour (at most
    /// 32), and the kernels number their threads in 32 bits.
    fn ray_group(self, bias: BiasCorrection, neighbours: u32, pixels: u32) -> u32 {
        let lanes = match (self, bias) {
            (RayLanes::Inline, _) => return 0,
            // 1/M traces only the pixel's own ray: one lane a pixel.
            (_, BiasCorrection::Off) => 1,
            (RayLanes::Lanes(lanes), _) => lanes,
            (RayLanes::Auto, _) => (neighbours + 1).min(32),
        };
        if bias == BiasCorrection::Pairwise && neighbours > 32 {
            return 0;
        }
        let warps = pixels.div_ceil(32 / lanes) as u64;
        if warps * 32 < (u32::MAX - BLOCK) as u64 { lanes } else { 0 }
    }
}

/// How the kernels store reservoirs (seed 002's first optimisation): an array of structs, or
/// the same bytes as one array per 4-byte field (`restir.cu` restir_load/store).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReservoirLayout {
    #[default]
    Aos,
    Soa,
}

/// What a reservoir's light sample holds (seed 002's second optimisation): the compact sample
/// (triangle light + barycentrics, [`GpuReservoir`], 24 B a reservoir; the point, normal and
/// radiance reconstructed from the triangle wherever they are read), or the full one (the
/// reconstructed point too: 56 B of sample, [`GpuFullReservoir`], 68 B a reservoir). The
/// same numbers either way: only the bytes moved and the arithmetic repeated differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LightSampleFormat {
    #[default]
    Compact,
    Full,
}

impl LightSampleFormat {
    /// Bytes of one reservoir.
    pub fn reservoir_bytes(self) -> usize {
        match self {
            LightSampleFormat::Compact => std::mem::size_of::<GpuReservoir>(),
            LightSampleFormat::Full => std::mem::size_of::<GpuFullReservoir>(),
        }
    }
}

/// Side of initial RIS's blocks = the light pool's tile (restir.cuh RESTIR_POOL_TILE).
pub const POOL_TILE: u32 = 16;
/// Side of the boiling filter's pixel groups = its blocks (restir.cuh RESTIR_BOILING_GROUP).
pub const BOILING_GROUP: u32 = 8;
const BLOCK: u32 = 256;
/// Most neighbours a spatial pass takes (the CLI's limit; the kernel itself has none).
pub const MAX_NEIGHBOURS: u32 = 64;
/// Most BSDF-sampled candidates a pixel takes (the CLI's limit).
pub const MAX_BSDF_CANDIDATES: u32 = 64;
/// Spatial passes a frame may run (their random streams: restir.cuh RESTIR_STREAMS_PER_FRAME).
pub const MAX_SPATIAL_PASSES: u32 = 16;

/// restir.cuh `RestirSurface`: a pixel's G-buffer entry.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GpuRestirSurface {
    pub p: [f32; 3],
    pub ng: [f32; 3],
    pub n: [f32; 3],
    pub base_color: [f32; 3],
    pub wo: [f32; 3],
    pub emitted: [f32; 3],
    pub depth: f32,
    pub material: u32,
    pub lit: u32,
    /// `warpath_core::restir::material_roughness` of the material (the similarity test's).
    pub roughness: f32,
    /// The material's roughness and metallic at the pixel (their textures applied).
    pub material_roughness: f32,
    pub metallic: f32,
    /// The opacity mask's α at the surface (`warpath_cpu::restir::Surface::opacity`).
    pub opacity: f32,
    /// Padding to a multiple of 16 bytes (zero).
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<GpuRestirSurface>() == 112);

/// restir.cuh `Reservoir` (the compact light sample: triangle light + barycentrics).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuReservoir {
    /// `NO_LIGHT` when empty.
    pub light: u32,
    pub b: [f32; 2],
    pub w_sum: f32,
    pub m: f32,
    pub w: f32,
}
const _: () = assert!(std::mem::size_of::<GpuReservoir>() == 24);

/// restir.cuh `Reservoir` compiled with RESTIR_FULL_SAMPLE: the compact reservoir's fields,
/// then the rest of seed 002's full light sample (the reconstructed light point).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuFullReservoir {
    pub compact: GpuReservoir,
    /// The point on the triangle, its unit normal, its emission.
    pub q: [f32; 3],
    pub n: [f32; 3],
    pub emission: [f32; 3],
    pub two_sided: u32,
    /// The area-measure pdf the point was drawn with.
    pub source_pdf: f32,
}
const _: () = assert!(std::mem::size_of::<GpuFullReservoir>() == 68);
const _: () = assert!(std::mem::offset_of!(GpuFullReservoir, q) == 24);
const _: () = assert!(std::mem::offset_of!(GpuFullReservoir, source_pdf) == 64);

/// The ray counters' stages (restir.cuh RESTIR_RAYS_*; `RayCounts`' fields).
const RAY_STAGES: usize = 5;

/// An empty reservoir's `light`.
pub const NO_LIGHT: u32 = u32::MAX;

/// restir.cuh `RestirPendingZ`: what `restir_spatial_z` needs of `restir_spatial`'s choice.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GpuPendingZ {
    pub chosen_target: f32,
    /// The neighbour slot the chosen sample came from (-1: the pixel's own input).
    pub chosen: i32,
}
const _: () = assert!(std::mem::size_of::<GpuPendingZ>() == 8);

/// restir.cuh `RestirPendingTemporal`: what `restir_temporal_visibility` needs of
/// `restir_temporal_choose`'s combination.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GpuPendingTemporal {
    pub chosen_target: f32,
    pub current_m: f32,
    /// The history's M, capped.
    pub prev_m: f32,
    pub prev_pixel: u32,
    pub has_prev: u32,
    pub chosen_prev: u32,
}
const _: () = assert!(std::mem::size_of::<GpuPendingTemporal>() == 24);

/// Every kernel of a frame, in launch order.
const FRAME_KERNELS: [Kernel<RestirKernelArgs>; 14] = [
    RESTIR_INITIAL_RIS,
    RESTIR_INITIAL_RIS_CHANNELS,
    RESTIR_VISIBILITY,
    RESTIR_TEMPORAL,
    RESTIR_TEMPORAL_CHOOSE,
    RESTIR_TEMPORAL_VISIBILITY,
    RESTIR_BOILING_FILTER,
    RESTIR_SPATIAL,
    RESTIR_SPATIAL_CHOOSE,
    RESTIR_SPATIAL_Z,
    RESTIR_SPATIAL_PAIRWISE,
    RESTIR_SPATIAL_PAIRWISE_SEES,
    RESTIR_SPATIAL_PAIRWISE_GROUPED,
    RESTIR_SHADE,
];

/// Why `scene` cannot be rendered by the GPU ReSTIR (None: it can).
pub fn unsupported(scene: &Scene) -> Option<String> {
    if scene.needs_volume_estimator() {
        return Some(
            "restir-di lights surfaces; this scene has participating media or 'null' boundaries \
             (render it with the path tracer)"
                .into(),
        );
    }
    if !scene.isosurfaces.is_empty() {
        return Some(
            "the GPU restir-di kernels are not compiled with isosurface shapes yet (use --backend cpu)".into(),
        );
    }
    None
}

/// The options the kernels accept (what `RestirArgs` carries).
fn check_options(options: &RestirOptions) -> CudaResult<()> {
    let bad = |what: String| Err(CudaError::InvalidArgument(format!("restir-di: {what}")));
    if options.spatial_passes > MAX_SPATIAL_PASSES {
        return bad(format!("{} spatial passes (at most {MAX_SPATIAL_PASSES})", options.spatial_passes));
    }
    if options.neighbours > MAX_NEIGHBOURS {
        return bad(format!("{} neighbours (at most {MAX_NEIGHBOURS})", options.neighbours));
    }
    if !(options.radius.is_finite() && options.radius >= 0.0) {
        return bad(format!("radius {} (a finite number of pixels ≥ 0)", options.radius));
    }
    if !(options.temporal_cap.is_finite() && options.temporal_cap >= 0.0) {
        return bad(format!("temporal cap {}", options.temporal_cap));
    }
    if options.bsdf_candidates > MAX_BSDF_CANDIDATES {
        return bad(format!("{} BSDF candidates (at most {MAX_BSDF_CANDIDATES})", options.bsdf_candidates));
    }
    if !(options.boiling_filter.is_finite() && options.boiling_filter >= 0.0) {
        return bad(format!("boiling filter strength {} (0: off, up to 1)", options.boiling_filter));
    }
    if options.roughness_threshold.is_nan() {
        return bad("roughness threshold NaN (0 to 1; 1: no roughness test)".into());
    }
    Ok(())
}

/// A ReSTIR DI render on the device: the scene, the film and the frame buffers.
pub struct RestirRenderer<'d> {
    device: &'d CudaDevice,
    scene: DeviceScene,
    film: DeviceFilm,
    options: RestirOptions,
    /// This frame's G-buffer and the previous frame's.
    gbuffer: DeviceBuffer<GpuRestirSurface>,
    prev_gbuffer: DeviceBuffer<GpuRestirSurface>,
    /// This frame's reservoirs, a scratch buffer for the reuse passes, the previous frame's:
    /// 4-byte words, [`LightSampleFormat::reservoir_bytes`] / 4 per pixel and reservoir target
    /// (`TargetFunction::reservoirs`: 3 for one reservoir per colour channel, each channel's
    /// reservoirs one array of `pixels` after the other).
    current: DeviceBuffer<u32>,
    scratch: DeviceBuffer<u32>,
    previous: DeviceBuffer<u32>,
    /// A spatial pass's hand-over to its ray kernel (one entry a pixel).
    pending_z: DeviceBuffer<GpuPendingZ>,
    neighbour_sees: DeviceBuffer<u32>,
    pending_temporal: DeviceBuffer<GpuPendingTemporal>,
    /// Who traces the spatial pass's shadow rays.
    ray_lanes: RayLanes,
    has_previous: bool,
    /// The camera of the next frame, and the previous frame's when it differs (a moving camera).
    camera: Camera,
    moved_from: Option<Reprojection>,
    /// The program of the reservoir layout and light sample ([`RestirRenderer::set_reservoir_format`]).
    program: KernelSource,
    /// The material features the programs are compiled for and whether initial RIS has the
    /// BSDF candidates' code ([`compiled_features`]); the features the scene needs.
    features: (MaterialFeatures, bool),
    materials_needed: MaterialFeatures,
    reservoir_format: (ReservoirLayout, LightSampleFormat),
    next_frame: u32,
    /// The kernel times of the frames timed so far, while timing is on.
    times: Option<RestirTimes>,
    /// Rays by stage (restir.cuh RESTIR_RAYS_*: visibility, temporal, spatial, shade, BSDF
    /// candidates), while counting is on.
    ray_counts: Option<DeviceBuffer<u64>>,
    /// Each pixel's final sample's origin (restir.cuh RESTIR_ORIGIN_*), one word a pixel and
    /// reservoir target, while recording.
    origins: Option<DeviceBuffer<u32>>,
}

impl<'d> RestirRenderer<'d> {
    /// Uploads `scene` (BVH `bvh_kind`) for ReSTIR frames of `settings.width × height`;
    /// `options.seed` seeds the resampling, `settings.seed` the camera jitter (as on the CPU).
    pub fn new(
        device: &'d CudaDevice,
        scene: &Scene,
        settings: &RenderSettings,
        bvh_kind: BuildKind,
        options: &RestirOptions,
    ) -> CudaResult<Self> {
        Self::with_layout(device, scene, settings, bvh_kind, BvhLayout::Binary, options)
    }

    /// [`RestirRenderer::new`] with the tree uploaded in `bvh_layout` (the wide one traced by
    /// programs built with `WARPATH_WIDE_BVH`: [`program_for`]).
    pub fn with_layout(
        device: &'d CudaDevice,
        scene: &Scene,
        settings: &RenderSettings,
        bvh_kind: BuildKind,
        bvh_layout: BvhLayout,
        options: &RestirOptions,
    ) -> CudaResult<Self> {
        if let Some(why) = unsupported(scene) {
            return Err(CudaError::InvalidArgument(format!("scene `{}`: {why}", scene.name)));
        }
        check_options(options)?;
        let lights = scene.light_set();
        if !matches!(lights.environment, Environment::None) {
            return Err(CudaError::InvalidArgument(format!(
                "scene `{}`: restir-di resamples emissive triangles; the environment is not a ReSTIR light yet \
                 (remove the [environment], or render with the path tracer)",
                scene.name
            )));
        }
        let soup = scene.triangle_soup();
        let (bvh, _) = Bvh::build(&soup, &StrategyRenderer::bvh_options(bvh_kind));
        let device_scene = DeviceScene::upload_with_layout(device, scene, &lights, &bvh, settings, bvh_layout)?;
        let pixels = settings.width as usize * settings.height as usize;
        let reservoirs = pixels * options.target.reservoirs();
        let features = compiled_features(scene, options);
        Ok(RestirRenderer {
            device,
            scene: device_scene,
            film: DeviceFilm::new(device, settings.width, settings.height)?,
            options: *options,
            gbuffer: DeviceBuffer::zeroed(device, pixels)?,
            prev_gbuffer: DeviceBuffer::zeroed(device, pixels)?,
            current: Self::reservoirs(device, reservoirs, LightSampleFormat::Compact)?,
            scratch: Self::reservoirs(device, reservoirs, LightSampleFormat::Compact)?,
            previous: Self::reservoirs(device, reservoirs, LightSampleFormat::Compact)?,
            pending_z: DeviceBuffer::zeroed(device, pixels)?,
            neighbour_sees: DeviceBuffer::zeroed(device, pixels)?,
            pending_temporal: DeviceBuffer::zeroed(device, pixels)?,
            ray_lanes: RayLanes::DEFAULT,
            has_previous: false,
            camera: scene.camera,
            moved_from: None,
            program: program_for(ReservoirLayout::Aos, LightSampleFormat::Compact, bvh_layout, features),
            features,
            materials_needed: MaterialFeatures::of_scene(scene),
            reservoir_format: (ReservoirLayout::Aos, LightSampleFormat::Compact),
            next_frame: 0,
            times: None,
            ray_counts: None,
            origins: None,
        })
    }

    /// The program the frames run (its name tells the reservoir format, layout and materials).
    pub fn program_name(&self) -> &'static str {
        self.program.name
    }

    /// Compiles the programs for the material features `materials` and with or without the
    /// BSDF candidates' code from the next frame on (the scene's choice: [`compiled_features`]);
    /// an error when they lack a feature the scene needs, or the candidates' code while the
    /// options take some.
    pub fn set_program_features(&mut self, materials: MaterialFeatures, bsdf_candidates: bool) -> CudaResult<()> {
        let missing = self.materials_needed.missing_from(materials);
        if !missing.is_empty() || (!bsdf_candidates && self.options.bsdf_candidates > 0) {
            return Err(CudaError::InvalidArgument(format!(
                "restir-di: programs for {materials}{} cannot render this scene with these options (missing: {}{})",
                if bsdf_candidates { "" } else { " without BSDF candidates" },
                missing.names(),
                if bsdf_candidates || self.options.bsdf_candidates == 0 { "" } else { ", BSDF candidates" }
            )));
        }
        self.features = (materials, bsdf_candidates);
        self.program =
            program_for(self.reservoir_format.0, self.reservoir_format.1, self.scene.bvh.layout(), self.features);
        Ok(())
    }

    /// Compiles (or loads from the cache) the ReSTIR kernels now rather than in the first frame.
    pub fn prepare(&self) -> CudaResult<()> {
        for kernel in FRAME_KERNELS {
            self.device.entry_function(kernel.entry(), &self.program)?;
        }
        Ok(())
    }

    /// A zeroed buffer of `count` reservoirs of light sample `sample`.
    fn reservoirs(device: &CudaDevice, count: usize, sample: LightSampleFormat) -> CudaResult<DeviceBuffer<u32>> {
        DeviceBuffer::zeroed(device, count * sample.reservoir_bytes() / 4)
    }

    /// Bytes of reservoirs a pixel keeps for one frame (this frame's, the scratch and the
    /// previous frame's buffers together): 3 × the reservoir's bytes × the reservoir targets.
    pub fn reservoir_bytes_per_pixel(&self) -> usize {
        3 * self.current.len() * 4 / self.film.pixels() as usize
    }

    /// Stores reservoirs as `layout` with light samples `sample` from the next frame on; call
    /// before the first frame or after [`RestirRenderer::restart`] (the reservoirs already
    /// made are in the old format).
    pub fn set_reservoir_format(&mut self, layout: ReservoirLayout, sample: LightSampleFormat) -> CudaResult<()> {
        if self.next_frame > 0 {
            return Err(CudaError::InvalidArgument(
                "restir-di: the reservoir format changes only before the first frame (or after a restart)".into(),
            ));
        }
        let count = self.film.pixels() as usize * self.options.target.reservoirs();
        if self.current.len() != count * sample.reservoir_bytes() / 4 {
            self.current = Self::reservoirs(self.device, count, sample)?;
            self.scratch = Self::reservoirs(self.device, count, sample)?;
            self.previous = Self::reservoirs(self.device, count, sample)?;
        }
        self.program = program_for(layout, sample, self.scene.bvh.layout(), self.features);
        self.reservoir_format = (layout, sample);
        Ok(())
    }

    /// Who traces the reuse passes' shadow rays from the next frame on ([`RayLanes`]; `Inline`
    /// also keeps the temporal pass's ray in its combining kernel; the image is the same).
    pub fn set_ray_lanes(&mut self, lanes: RayLanes) {
        self.ray_lanes = lanes;
    }

    /// Times every kernel between CUDA events from now on (each kernel then waits for its
    /// end: the frame as a whole runs a little slower), or stops timing.
    pub fn set_kernel_timing(&mut self, on: bool) {
        self.times = on.then(RestirTimes::default);
    }

    /// Counts the shadow rays of every frame from now on, by stage (from zero), or stops
    /// counting (each traced ray adds to a global counter: a little slower).
    pub fn set_ray_counting(&mut self, on: bool) -> CudaResult<()> {
        self.ray_counts = if on { Some(DeviceBuffer::zeroed(self.device, RAY_STAGES)?) } else { None };
        Ok(())
    }

    /// The shadow rays counted so far (None when counting is off; waits for the stream): the
    /// CPU reference's `RestirFrames::rays` for the same frames.
    pub fn ray_counts(&self) -> CudaResult<Option<RayCounts>> {
        let Some(buffer) = &self.ray_counts else { return Ok(None) };
        let c = buffer.download(self.device)?;
        Ok(Some(RayCounts { visibility: c[0], temporal: c[1], spatial: c[2], shade: c[3], bsdf_candidates: c[4] }))
    }

    /// Records where each pixel's final sample came from in every frame from now on, or stops
    /// recording (the kernels write the origins only while on).
    pub fn set_record_origins(&mut self, on: bool) -> CudaResult<()> {
        let words = self.film.pixels() as usize * self.options.target.reservoirs();
        self.origins = if on { Some(DeviceBuffer::zeroed(self.device, words)?) } else { None };
        Ok(())
    }

    /// The last frame's origins, `[reservoir target][pixel]` (None when not recording; waits for
    /// the stream): the CPU reference's `RestirFrames::origins` for the same frames.
    pub fn origins(&self) -> CudaResult<Option<Vec<Vec<SampleOrigin>>>> {
        let Some(buffer) = &self.origins else { return Ok(None) };
        let codes = buffer.download(self.device)?;
        let pixels = self.film.pixels() as usize;
        let origins = codes
            .chunks(pixels)
            .map(|c| c.iter().map(|&o| SampleOrigin::from_code(o).unwrap_or(SampleOrigin::None)).collect())
            .collect();
        Ok(Some(origins))
    }

    /// The kernel times so far (None when timing is off).
    pub fn kernel_times(&self) -> Option<RestirTimes> {
        self.times.clone()
    }

    /// Starts again from an empty film and no history, with `seed` for both the camera's
    /// jitter (the scene parameters' seed) and the resampling: an independent run on the same
    /// upload (the tests' many runs).
    pub fn restart(&mut self, seed: u32) -> CudaResult<()> {
        self.scene.params.seed = seed;
        self.scene.params_buffer.upload(self.device, &[self.scene.params])?;
        self.options.seed = seed;
        self.film.clear(self.device)?;
        self.has_previous = false;
        self.moved_from = None;
        self.next_frame = 0;
        if let Some(counts) = self.ray_counts.as_mut() {
            counts.upload(self.device, &[0; RAY_STAGES])?;
        }
        if let Some(times) = self.times.as_mut() {
            *times = RestirTimes::default();
        }
        Ok(())
    }

    /// Frames rendered so far.
    pub fn frames(&self) -> u32 {
        self.next_frame
    }

    /// The camera of the next frames (a moving camera): temporal reuse then finds each pixel's
    /// history where the previous frame's camera saw its surface point.
    pub fn set_camera(&mut self, camera: &Camera) -> CudaResult<()> {
        if *camera == self.camera {
            return Ok(());
        }
        let (w, h) = (self.scene.params.width, self.scene.params.height);
        if self.moved_from.is_none() {
            self.moved_from = Some(Reprojection::of(&self.camera, w, h));
        }
        self.camera = *camera;
        self.scene.params.camera = GpuCamera::new(camera, w, h);
        self.scene.params_buffer.upload(self.device, &[self.scene.params])
    }

    /// Empties the film (the history stays): the next frames accumulate afresh, e.g. one
    /// frame per image of a moving camera.
    pub fn clear_film(&mut self) -> CudaResult<()> {
        self.film.clear(self.device)
    }

    fn args(&self, frame: u32) -> RestirArgs {
        let d = self.device;
        RestirArgs {
            scene: self.scene.args(d),
            gbuffer: self.gbuffer.address(d),
            prev_gbuffer: self.prev_gbuffer.address(d),
            input: self.current.address(d),
            output: self.current.address(d),
            previous: self.previous.address(d),
            film_sum: self.film.pass_sum.address(d),
            film_sum_sq: self.film.pass_sum_sq.address(d),
            film_count: self.film.pass_count.address(d),
            frame,
            seed: self.options.seed,
            candidates: self.options.candidates,
            light_pool: self.options.light_pool as u32,
            bias: bias_code(self.options.bias),
            neighbours: self.options.neighbours,
            pass: 0,
            has_previous: self.has_previous as u32,
            radius: self.options.radius,
            temporal_cap: self.options.temporal_cap,
            prev_to_camera: self.moved_from.map_or([0.0; 12], |r| r.to_camera),
            prev_position: self.moved_from.map_or([0.0; 3], |r| r.position),
            prev_tan_half_fov: self.moved_from.map_or([0.0; 2], |r| r.tan_half_fov),
            camera_moved: self.moved_from.is_some() as u32,
            pending_z: self.pending_z.address(d),
            neighbour_sees: self.neighbour_sees.address(d),
            // Visibility-aware reuse traces its rays before resampling, in the combining
            // kernels: inline.
            ray_group: if self.options.reuse_visibility {
                0
            } else {
                self.ray_lanes.ray_group(self.options.bias, self.options.neighbours, self.film.pixels())
            },
            target: self.options.target.code(),
            pending_temporal: self.pending_temporal.address(d),
            reuse_visibility: self.options.reuse_visibility as u32,
            _pad: 0,
            ray_counts: self.ray_counts.as_ref().map_or(0, |b| b.address(d)),
            bsdf_candidates: {
                // Programs without the candidates' code are made only for options without them.
                debug_assert!(self.features.1 || self.options.bsdf_candidates == 0);
                self.options.bsdf_candidates
            },
            boiling_multiplier: boiling_multiplier(self.options.boiling_filter).unwrap_or(0.0),
            roughness_threshold: self.options.roughness_threshold,
            _pad2: 0,
            origins: self.origins.as_ref().map_or(0, |b| b.address(d)),
        }
    }

    /// Launches `kernel` of the renderer's program (its reservoir format) with `args`: the
    /// buffers of width × height entries (G-buffers, reservoirs, the film's pass buffers) that
    /// the kernels index by pixel, bounded by the scene's width × height.
    fn launch(&self, kernel: Kernel<RestirKernelArgs>, args: &RestirArgs, config: LaunchConfig) -> CudaResult<()> {
        self.device.launch_in(kernel, &self.program, config, (*args,))
    }

    fn linear_config(&self) -> LaunchConfig {
        let pixels = self.film.pixels();
        LaunchConfig { grid_dim: (pixels.div_ceil(BLOCK), 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    }

    /// One ReSTIR frame, accumulated into the film.
    pub fn render_frame(&mut self) -> CudaResult<()> {
        let device = self.device;
        let mut times = self.times.take();
        let launched = device.timing(times.as_mut().map(|t| &mut t.kernels), || self.launch_frame());
        if let Some(times) = times.as_mut()
            && launched.is_ok()
        {
            times.frames += 1;
        }
        self.times = times;
        launched?;
        self.film.merge_pass(self.device)?;
        // set_prev: this frame's G-buffer and reservoirs are the next frame's previous ones.
        std::mem::swap(&mut self.gbuffer, &mut self.prev_gbuffer);
        std::mem::swap(&mut self.current, &mut self.previous);
        self.has_previous = true;
        self.moved_from = None;
        self.next_frame += 1;
        Ok(())
    }

    /// The kernels of a frame, up to the film's pass buffers.
    fn launch_frame(&mut self) -> CudaResult<()> {
        let frame = self.next_frame;
        let (w, h) = (self.scene.params.width, self.scene.params.height);
        let ris_config = LaunchConfig {
            grid_dim: (w.div_ceil(POOL_TILE), h.div_ceil(POOL_TILE), 1),
            block_dim: (POOL_TILE, POOL_TILE, 1),
            shared_mem_bytes: 0,
        };
        let linear = self.linear_config();
        let boiling_config = LaunchConfig {
            grid_dim: (w.div_ceil(BOILING_GROUP), h.div_ceil(BOILING_GROUP), 1),
            block_dim: (BOILING_GROUP, BOILING_GROUP, 1),
            shared_mem_bytes: 0,
        };
        let mut args = self.args(frame);
        // The ray kernels: `ray_group` lanes a pixel, 32 / ray_group pixels a warp.
        let grouped = (args.ray_group > 0).then(|| LaunchConfig {
            grid_dim: ((self.film.pixels().div_ceil(32 / args.ray_group) * 32).div_ceil(BLOCK), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        });
        let targets = self.options.target.reservoir_targets();
        let initial = if targets.len() > 1 { RESTIR_INITIAL_RIS_CHANNELS } else { RESTIR_INITIAL_RIS };
        self.launch(initial, &args, ris_config)?;
        self.launch(RESTIR_VISIBILITY, &args, linear)?;
        // The reuse passes run once per reservoir target (each colour channel's reservoirs on
        // their own, with that channel's target): the reservoirs of target t are the t-th array
        // of `pixels` reservoirs in each buffer.
        let target_bytes = self.current.len() as u64 * 4 / targets.len() as u64;
        let at = |buffer: &DeviceBuffer<u32>, t: usize| buffer.address(self.device) + t as u64 * target_bytes;
        let origins = args.origins;
        for (t, target) in targets.iter().enumerate() {
            args.target = target.code();
            args.previous = at(&self.previous, t);
            // (each target's origins one array of `pixels` words)
            if origins != 0 {
                args.origins = origins + 4 * t as u64 * self.film.pixels() as u64;
            }
            if self.options.temporal {
                args.input = at(&self.current, t);
                args.output = at(&self.scratch, t);
                let bias = self.options.temporal_bias.unwrap_or(self.options.bias);
                args.bias = bias_code(bias);
                // Its shadow ray in a kernel of its own unless the rays are inline (pairwise MIS
                // keeps its two rays inline, and so does visibility-aware reuse).
                let split = self.ray_lanes != RayLanes::Inline
                    && bias != BiasCorrection::Pairwise
                    && !self.options.reuse_visibility;
                let launches: &[Kernel<RestirKernelArgs>] =
                    if split { &[RESTIR_TEMPORAL_CHOOSE, RESTIR_TEMPORAL_VISIBILITY] } else { &[RESTIR_TEMPORAL] };
                for &kernel in launches {
                    self.launch(kernel, &args, linear)?;
                }
                if boiling_multiplier(self.options.boiling_filter).is_some() {
                    // RTXDI's boiling filter, in place on the temporal pass's output.
                    self.launch(RESTIR_BOILING_FILTER, &args, boiling_config)?;
                }
                args.bias = bias_code(self.options.bias);
            }
            // Each pass reads what the one before it (or temporal reuse) wrote: target t's
            // passes ping-pong between `current` and `scratch`.
            let mut from_scratch = self.options.temporal;
            for pass in 0..self.options.spatial_passes {
                args.pass = pass;
                let (input, output) =
                    if from_scratch { (&self.scratch, &self.current) } else { (&self.current, &self.scratch) };
                args.input = at(input, t);
                args.output = at(output, t);
                // (kernel, its launch) in order: the grouped rays' kernel before or after the pass.
                let launches: &[(Kernel<RestirKernelArgs>, LaunchConfig)] = match (self.options.bias, grouped) {
                    (BiasCorrection::RayTraced | BiasCorrection::Off, Some(group)) => {
                        &[(RESTIR_SPATIAL_CHOOSE, linear), (RESTIR_SPATIAL_Z, group)]
                    }
                    (BiasCorrection::Pairwise, Some(group)) => {
                        &[(RESTIR_SPATIAL_PAIRWISE_SEES, group), (RESTIR_SPATIAL_PAIRWISE_GROUPED, linear)]
                    }
                    (BiasCorrection::Pairwise, None) => &[(RESTIR_SPATIAL_PAIRWISE, linear)],
                    (BiasCorrection::RayTraced | BiasCorrection::Off, _) => &[(RESTIR_SPATIAL, linear)],
                };
                for &(kernel, config) in launches {
                    self.launch(kernel, &args, config)?;
                }
                from_scratch = !from_scratch;
            }
        }
        // Every target's final reservoirs are in the same buffer (the same number of passes
        // each): `scratch` after an odd number of reuse passes.
        if self.options.temporal ^ (self.options.spatial_passes % 2 == 1) {
            std::mem::swap(&mut self.current, &mut self.scratch);
        }
        args.target = self.options.target.code();
        args.input = self.current.address(self.device);
        args.origins = origins;
        self.launch(RESTIR_SHADE, &args, linear)
    }

    /// The accumulated film (waits for the stream).
    pub fn download_film(&self) -> CudaResult<Film> {
        self.film.download(self.device)
    }
}

/// restir.cuh RESTIR_BIAS_* of `bias` (RestirArgs.bias).
fn bias_code(bias: BiasCorrection) -> u32 {
    match bias {
        BiasCorrection::Off => 0,
        BiasCorrection::RayTraced => 1,
        BiasCorrection::Pairwise => 2,
    }
}

#[cfg(test)]
mod tests;
