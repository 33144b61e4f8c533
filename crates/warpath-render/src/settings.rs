//! One settings type for every renderer: the scene file's `[settings]` first, then whatever
//! the caller overrides (the CLI's flags, a Python keyword argument), checked once against
//! the scene format's limits. Every front end fills [`Overrides`] and calls
//! [`Settings::resolve`]; nothing else merges flags into scene settings.

use crate::error::{Error, Result};
use warpath_bvh::BuildKind;
use warpath_core::restir::RestirOptions;
use warpath_core::sampler::SamplerKind;
use warpath_cuda::Strategy;
use warpath_cuda::restir::{LightSampleFormat, RayLanes, ReservoirLayout};
use warpath_cuda::wide_bvh::BvhLayout;
use warpath_scene::scene::{MAX_DEPTH, MAX_RESOLUTION, MAX_SPP};
use warpath_scene::{RenderSettings, Scene, UNLIMITED_DEPTH};

/// Which estimator renders the image.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Integrator {
    /// The path tracer (the volumetric one for scenes with media); renders samples per pixel.
    #[default]
    Path,
    /// ReSTIR direct lighting from emissive triangles; renders frames of a static camera,
    /// one sample per pixel each, accumulated.
    RestirDi,
}

impl Integrator {
    /// What one unit of [`Settings::count`] is: samples per pixel or frames.
    pub fn unit(self) -> &'static str {
        match self {
            Integrator::Path => "spp",
            Integrator::RestirDi => "frames",
        }
    }

    /// Whether the renderer's passes are frames that must follow one another (temporal reuse),
    /// rather than independent ranges of sample indices.
    pub fn is_frame_based(self) -> bool {
        self == Integrator::RestirDi
    }
}

/// How the GPU stores and schedules ReSTIR's work; the image is the same for every choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestirGpu {
    pub layout: ReservoirLayout,
    pub light_sample: LightSampleFormat,
    /// `None`: the renderer's default (one lane per ray).
    pub ray_lanes: Option<u32>,
    /// Time every kernel (the kernels then wait for each other).
    pub kernel_times: bool,
}

impl Default for RestirGpu {
    fn default() -> Self {
        RestirGpu {
            layout: ReservoirLayout::Aos,
            light_sample: LightSampleFormat::Compact,
            ray_lanes: None,
            kernel_times: false,
        }
    }
}

/// What the caller sets; `None` keeps the scene's value (or the renderer's default).
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// Samples per pixel (the path tracer).
    pub spp: Option<u32>,
    /// Frames (ReSTIR DI).
    pub frames: Option<u32>,
    pub max_depth: Option<u32>,
    pub resolution: Option<(u32, u32)>,
    pub seed: Option<u32>,
    pub sampler: Option<SamplerKind>,
    /// Samples (or frames) per progressive pass.
    pub pass_size: Option<u32>,
    pub bvh: Option<BuildKind>,
    /// The GPU renderers' BVH layout (`--bvh-layout`); the CPU keeps its own traversal.
    pub bvh_layout: Option<BvhLayout>,
    pub integrator: Integrator,
    /// The GPU schedule of the path tracer.
    pub strategy: Option<Strategy>,
    /// Count the GPU's rays (about 10% slower there; the CPU always counts).
    pub count_rays: bool,
    /// ReSTIR's knobs; its seed is the render's seed.
    pub restir: RestirOptions,
    /// ReSTIR knobs to choose from the scene instead of taking `restir`'s.
    pub restir_by_scene: RestirByScene,
    pub restir_gpu: RestirGpu,
}

/// Which of ReSTIR's knobs [`Settings::resolve`] chooses rather than taking them from
/// [`Overrides::restir`]: what the command line does for the flags a user did not give. The
/// target and the bias correction come from the scene's emitters ([`crate::restir_choice`]);
/// the spatial passes from the mode ([`crate::restir_choice::spatial_passes`]: none with temporal
/// reuse, one without); the temporal cap from the temporal pass's bias correction
/// ([`crate::restir_choice::temporal_cap`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RestirByScene {
    pub target: bool,
    pub bias: bool,
    pub spatial: bool,
    pub temporal_cap: bool,
}

impl RestirByScene {
    /// Every knob chosen (what the command line does when none of them is given).
    pub const ALL: RestirByScene = RestirByScene { target: true, bias: true, spatial: true, temporal_cap: true };
}

/// Everything a renderer needs to know, resolved: the scene's settings with the overrides
/// applied and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Image size, seed, sampler, depth and Russian roulette, as the scene format has them;
    /// `scene.spp` is [`Settings::count`].
    pub scene: RenderSettings,
    /// Samples per pixel (path tracer) or frames (ReSTIR) to render.
    pub count: u32,
    /// Samples (or frames) per progressive pass; `None`: the renderer's default (1 on the
    /// CPU, 16 on the GPU).
    pub pass_size: Option<u32>,
    pub bvh: BuildKind,
    /// The layout the GPU renderers (path tracer, volumes, ReSTIR DI) trace the tree in:
    /// binary or the compressed 8-wide BVH; by default [`default_bvh_layout`]. The CPU renderer
    /// keeps its own traversal.
    pub bvh_layout: BvhLayout,
    pub integrator: Integrator,
    /// `None`: the scene's default schedule ([`default_strategy`]).
    pub strategy: Option<Strategy>,
    pub count_rays: bool,
    pub restir: RestirOptions,
    pub restir_gpu: RestirGpu,
}

/// Checks that a width and a height are in the scene format's range.
pub fn check_resolution(width: u32, height: u32) -> Result<()> {
    if width == 0 || height == 0 || width > MAX_RESOLUTION || height > MAX_RESOLUTION {
        return Err(Error::invalid(format!(
            "resolution {width}x{height} is out of range: each side must be 1..={MAX_RESOLUTION}"
        )));
    }
    Ok(())
}

/// The BVH layout a GPU renderer traces when none is asked for: the faster one measured for
/// the integrator (docs/benchmarks/traversal.md, H200): ReSTIR DI's frame is about 10% faster
/// on the compressed 8-wide BVH (its shadow rays are any-hit rays, where the wide kernels gain
/// most), the path tracers' renders are not (as fast on the Cornell box, slower on the dragon).
pub fn default_bvh_layout(integrator: Integrator) -> BvhLayout {
    match integrator {
        Integrator::RestirDi => BvhLayout::Wide8,
        Integrator::Path => BvhLayout::Binary,
    }
}

/// The GPU schedule a scene renders with when none is asked for: the multi-stage wavefront
/// for surfaces; for the volumetric path tracer the Morton-sorted single kernel `sorting-sk`,
/// the fastest measured on the volume scenes (docs/benchmarks/volume-schedules.md; the
/// volumetric estimator's stage list for the multi-stage wavefront is newer than that study).
pub fn default_strategy(scene: &Scene) -> Strategy {
    if scene.needs_volume_estimator() { Strategy::SortingSk } else { Strategy::MultiStage }
}

impl Settings {
    /// The scene's settings with `overrides` applied, checked against the scene format's limits.
    pub fn resolve(scene: &Scene, overrides: &Overrides) -> Result<Settings> {
        let mut s = scene.settings.clone();
        let frame_based = overrides.integrator.is_frame_based();
        match (frame_based, overrides.spp, overrides.frames) {
            (true, Some(_), _) => {
                return Err(Error::invalid(
                    "ReSTIR DI renders frames, not samples per pixel: give the frame count with --frames (frames=)",
                ));
            }
            (false, _, Some(_)) => {
                return Err(Error::invalid(
                    "--frames (frames=) counts the frames of ReSTIR DI: add --integrator restir-di, or give --spp",
                ));
            }
            _ => {}
        }
        let count = overrides.spp.or(overrides.frames).unwrap_or(s.spp);
        if !(1..=MAX_SPP).contains(&count) {
            return Err(Error::invalid(format!(
                "{count} {} is out of range: 1..={MAX_SPP}",
                overrides.integrator.unit()
            )));
        }
        s.spp = count;
        if let Some(d) = overrides.max_depth {
            if d > MAX_DEPTH && d != UNLIMITED_DEPTH {
                return Err(Error::invalid(format!("max depth {d} is out of range: 0..={MAX_DEPTH}, or no limit")));
            }
            s.max_depth = d;
        }
        if let Some((w, h)) = overrides.resolution {
            s.width = w;
            s.height = h;
        }
        check_resolution(s.width, s.height)?;
        if let Some(seed) = overrides.seed {
            s.seed = seed;
        }
        if let Some(sampler) = overrides.sampler {
            s.sampler = sampler;
        }
        if let Some(p) = overrides.pass_size
            && !(1..=MAX_SPP).contains(&p)
        {
            return Err(Error::invalid(format!(
                "a pass of {p} {} is out of range: 1..={MAX_SPP}",
                overrides.integrator.unit()
            )));
        }
        if let Some(lanes) = overrides.restir_gpu.ray_lanes {
            RayLanes::from_count(lanes)?;
        }
        let mut restir = RestirOptions { seed: s.seed, ..overrides.restir };
        if overrides.integrator == Integrator::RestirDi && overrides.restir_by_scene != RestirByScene::default() {
            let (target, bias) = crate::restir_choice::restir_choice(scene);
            if overrides.restir_by_scene.target {
                restir.target = target;
            }
            if overrides.restir_by_scene.bias {
                restir.bias = bias;
            }
            if overrides.restir_by_scene.spatial {
                restir.spatial_passes = crate::restir_choice::spatial_passes(restir.temporal);
            }
            if overrides.restir_by_scene.temporal_cap {
                restir.temporal_cap = crate::restir_choice::temporal_cap(restir.temporal_bias.unwrap_or(restir.bias));
            }
        }
        Ok(Settings {
            count,
            scene: s,
            pass_size: overrides.pass_size,
            bvh: overrides.bvh.unwrap_or(BuildKind::Sbvh),
            bvh_layout: overrides.bvh_layout.unwrap_or(default_bvh_layout(overrides.integrator)),
            integrator: overrides.integrator,
            strategy: overrides.strategy,
            count_rays: overrides.count_rays,
            restir,
            restir_gpu: overrides.restir_gpu,
        })
    }

    pub fn width(&self) -> u32 {
        self.scene.width
    }

    pub fn height(&self) -> u32 {
        self.scene.height
    }

    pub fn pixels(&self) -> u64 {
        self.scene.width as u64 * self.scene.height as u64
    }

    /// The CPU renderer's options for these settings (`pass` samples per pixel a pass).
    pub fn cpu_options(&self, pass: u32) -> warpath_cpu::RenderOptions {
        warpath_cpu::RenderOptions { spp_per_pass: pass, ..warpath_cpu::RenderOptions::from_settings(&self.scene) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cornell() -> Scene {
        warpath_scene::load("cornell").expect("built-in")
    }

    #[test]
    fn overrides_replace_scene_settings_and_the_rest_is_kept() {
        let scene = cornell();
        let o = Overrides { spp: Some(3), resolution: Some((32, 16)), seed: Some(9), ..Default::default() };
        let s = Settings::resolve(&scene, &o).unwrap();
        assert_eq!((s.count, s.scene.spp, s.width(), s.height(), s.scene.seed), (3, 3, 32, 16, 9));
        assert_eq!(s.scene.max_depth, scene.settings.max_depth);
        assert_eq!(s.scene.sampler, scene.settings.sampler);
        assert_eq!(s.restir.seed, 9, "ReSTIR resamples with the render's seed");
        let plain = Settings::resolve(&scene, &Overrides::default()).unwrap();
        assert_eq!(plain.scene, scene.settings);
    }

    #[test]
    fn bvh_layout_defaults_per_integrator_and_takes_an_override() {
        let scene = cornell();
        assert_eq!(Settings::resolve(&scene, &Overrides::default()).unwrap().bvh_layout, BvhLayout::Binary);
        let o = Overrides { bvh_layout: Some(BvhLayout::Wide8), ..Default::default() };
        assert_eq!(Settings::resolve(&scene, &o).unwrap().bvh_layout, BvhLayout::Wide8);
        let restir = Overrides { integrator: Integrator::RestirDi, ..Default::default() };
        assert_eq!(Settings::resolve(&scene, &restir).unwrap().bvh_layout, BvhLayout::Wide8);
        let o = Overrides { bvh_layout: Some(BvhLayout::Binary), ..restir };
        assert_eq!(Settings::resolve(&scene, &o).unwrap().bvh_layout, BvhLayout::Binary);
    }

    #[test]
    fn restir_knobs_the_caller_leaves_open_come_from_the_scene() {
        let scene = cornell(); // one white light: luminance, ray-traced
        let restir = Overrides { integrator: Integrator::RestirDi, ..Default::default() };
        let given = Settings::resolve(&scene, &restir).unwrap().restir;
        assert_eq!((given.target, given.bias), (RestirOptions::default().target, RestirOptions::default().bias));
        let both = Overrides {
            restir_by_scene: RestirByScene { target: true, bias: true, ..RestirByScene::default() },
            ..restir.clone()
        };
        let chosen = Settings::resolve(&scene, &both).unwrap().restir;
        assert_eq!((chosen.target, chosen.bias), crate::restir_choice(&scene));
        let mut only_bias =
            Overrides { restir_by_scene: RestirByScene { bias: true, ..RestirByScene::default() }, ..restir.clone() };
        only_bias.restir.target = warpath_core::restir::TargetFunction::Max;
        let mixed = Settings::resolve(&scene, &only_bias).unwrap().restir;
        assert_eq!(
            (mixed.target, mixed.bias),
            (warpath_core::restir::TargetFunction::Max, crate::restir_choice(&scene).1)
        );
        // The spatial passes follow the mode: none under temporal reuse, one without; a given
        // count stays.
        let spatial = RestirByScene { spatial: true, ..RestirByScene::default() };
        let mut sequence = Overrides { restir_by_scene: spatial, ..restir.clone() };
        sequence.restir.temporal = true;
        assert_eq!(Settings::resolve(&scene, &sequence).unwrap().restir.spatial_passes, 0);
        sequence.restir.temporal = false;
        assert_eq!(Settings::resolve(&scene, &sequence).unwrap().restir.spatial_passes, 1);
        let mut given = Overrides { ..restir };
        given.restir.temporal = true;
        given.restir.spatial_passes = 2;
        assert_eq!(Settings::resolve(&scene, &given).unwrap().restir.spatial_passes, 2);
        // The temporal cap follows the temporal pass's bias correction (its own, else the
        // spatial one's); a given cap stays.
        let cap = RestirByScene { temporal_cap: true, ..RestirByScene::default() };
        let mut capped = Overrides { restir_by_scene: cap, ..restir.clone() };
        capped.restir.bias = warpath_core::restir::BiasCorrection::RayTraced;
        assert_eq!(Settings::resolve(&scene, &capped).unwrap().restir.temporal_cap, 5.0);
        capped.restir.bias = warpath_core::restir::BiasCorrection::Pairwise;
        assert_eq!(Settings::resolve(&scene, &capped).unwrap().restir.temporal_cap, 20.0);
        capped.restir.temporal_bias = Some(warpath_core::restir::BiasCorrection::RayTraced);
        assert_eq!(Settings::resolve(&scene, &capped).unwrap().restir.temporal_cap, 5.0);
        let mut all = Overrides { restir_by_scene: RestirByScene::ALL, ..restir.clone() };
        all.restir.temporal_cap = 7.0;
        let chosen = Settings::resolve(&scene, &all).unwrap().restir;
        assert_eq!((chosen.bias, chosen.temporal_cap), (warpath_core::restir::BiasCorrection::RayTraced, 5.0));
        let mut kept = Overrides { ..restir };
        kept.restir.temporal_cap = 7.0;
        assert_eq!(Settings::resolve(&scene, &kept).unwrap().restir.temporal_cap, 7.0);
    }

    #[test]
    fn samples_and_frames_belong_to_their_integrators() {
        let scene = cornell();
        let frames = Overrides { frames: Some(4), ..Default::default() };
        assert!(Settings::resolve(&scene, &frames).unwrap_err().to_string().contains("--frames"));
        let spp = Overrides { spp: Some(4), integrator: Integrator::RestirDi, ..Default::default() };
        assert!(Settings::resolve(&scene, &spp).unwrap_err().to_string().contains("--frames"));
        let restir = Overrides { frames: Some(4), integrator: Integrator::RestirDi, ..Default::default() };
        assert_eq!(Settings::resolve(&scene, &restir).unwrap().count, 4);
    }

    #[test]
    fn surfaces_get_the_multistage_wavefront_and_media_the_sorted_single_kernel() {
        assert_eq!(default_strategy(&cornell()), Strategy::MultiStage);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenes/compare-volume-hg.toml");
        let media = warpath_scene::load(path).expect("scenes/compare-volume-hg.toml");
        assert!(media.needs_volume_estimator());
        assert_eq!(default_strategy(&media), Strategy::SortingSk);
    }

    #[test]
    fn out_of_range_values_are_errors() {
        let scene = cornell();
        for o in [
            Overrides { spp: Some(0), ..Default::default() },
            Overrides { resolution: Some((0, 4)), ..Default::default() },
            Overrides { max_depth: Some(MAX_DEPTH + 1), ..Default::default() },
            Overrides { pass_size: Some(0), ..Default::default() },
            Overrides { restir_gpu: RestirGpu { ray_lanes: Some(33), ..Default::default() }, ..Default::default() },
        ] {
            assert!(Settings::resolve(&scene, &o).is_err(), "{o:?}");
        }
        let unlimited = Overrides { max_depth: Some(UNLIMITED_DEPTH), ..Default::default() };
        assert_eq!(Settings::resolve(&scene, &unlimited).unwrap().scene.max_depth, UNLIMITED_DEPTH);
    }
}
