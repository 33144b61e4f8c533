//! The knobs of ReSTIR DI (issue 15): shared by the CPU reference (`warpath_cpu::restir`) and
//! the GPU kernels (`warpath_cuda::restir`), so both read one set of defaults.

/// How reused reservoirs are weighted (RTXDI's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BiasCorrection {
    /// 1/M: cheap, biased where the pixels' domains differ.
    Off,
    /// Z counts the inputs whose surface sees the sample, visibility traced: unbiased.
    RayTraced,
    /// Pairwise MIS (Bitterli 2022; RTXDI): the pixel's own reservoir paired with each reused
    /// one by a balance heuristic on their targets (with visibility: one shadow ray per reused
    /// input, for the pixel's own sample) and M, so a reused sample's weight is bounded where
    /// the two targets differ (glossy surfaces under a moving camera). Unbiased.
    Pairwise,
}

impl BiasCorrection {
    pub fn name(self) -> &'static str {
        match self {
            BiasCorrection::Off => "off",
            BiasCorrection::RayTraced => "ray-traced",
            BiasCorrection::Pairwise => "pairwise",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [BiasCorrection::Off, BiasCorrection::RayTraced, BiasCorrection::Pairwise]
            .into_iter()
            .find(|b| b.name() == name)
    }
}

/// The target function p̂ = t(c) of a sample whose unshadowed contribution is the colour c
/// (issue 29: with coloured lights a luminance cannot prefer the emitter whose colour matches
/// the surface). Every function here is written in the order of operations restir.cuh's
/// `restir_target_value` rounds, so the CPU and the GPU resample alike bit for bit.
///
/// [`TargetFunction::Channels`] is not one function but three reservoirs a pixel, one per colour
/// channel, resampled from the same candidates, each with its own channel as its target
/// ([`TargetFunction::Red`], `Green`, `Blue`: [`TargetFunction::reservoir_targets`]), reused
/// channel by channel and shaded each into its own channel. Each channel's estimate is then
/// exactly importance-sampled where one light dominates it, whatever the lights' hues.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TargetFunction {
    /// Rec.709 luminance (the original target).
    Luminance,
    /// The Euclidean norm √(r² + g² + b²).
    L2,
    /// r + g + b.
    Sum,
    /// max(r, g, b).
    Max,
    /// One reservoir per colour channel sharing the candidates (three times the reservoirs;
    /// the default).
    #[default]
    Channels,
    /// The red channel: the target of the first reservoir of [`TargetFunction::Channels`]
    /// (alone it would be biased: it is 0 where only green or blue light arrives).
    Red,
    /// The green channel (the second reservoir of `Channels`).
    Green,
    /// The blue channel (the third reservoir of `Channels`).
    Blue,
}

impl TargetFunction {
    /// The targets a user chooses among (`--restir-target`).
    pub const ALL: [TargetFunction; 5] = [
        TargetFunction::Luminance,
        TargetFunction::L2,
        TargetFunction::Sum,
        TargetFunction::Max,
        TargetFunction::Channels,
    ];

    /// Every function a single reservoir resamples with (what [`TargetFunction::of`] evaluates;
    /// the lockstep crate checks each against restir/target.cuh).
    pub const EVALUATED: [TargetFunction; 7] = [
        TargetFunction::Luminance,
        TargetFunction::L2,
        TargetFunction::Sum,
        TargetFunction::Max,
        TargetFunction::Red,
        TargetFunction::Green,
        TargetFunction::Blue,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TargetFunction::Luminance => "luminance",
            TargetFunction::L2 => "l2",
            TargetFunction::Sum => "sum",
            TargetFunction::Max => "max",
            TargetFunction::Channels => "channels",
            TargetFunction::Red => "red",
            TargetFunction::Green => "green",
            TargetFunction::Blue => "blue",
        }
    }

    /// The user-facing target of `name` (one of [`TargetFunction::ALL`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The code the GPU kernels read (`RestirArgs.target`, restir/target.cuh `RESTIR_TARGET_*`).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The target of each reservoir a pixel keeps, in the order the reservoir buffers hold
    /// them: three channels for [`TargetFunction::Channels`], else the function itself.
    pub fn reservoir_targets(self) -> &'static [TargetFunction] {
        match self {
            TargetFunction::Luminance => &[TargetFunction::Luminance],
            TargetFunction::L2 => &[TargetFunction::L2],
            TargetFunction::Sum => &[TargetFunction::Sum],
            TargetFunction::Max => &[TargetFunction::Max],
            TargetFunction::Channels => &[TargetFunction::Red, TargetFunction::Green, TargetFunction::Blue],
            TargetFunction::Red => &[TargetFunction::Red],
            TargetFunction::Green => &[TargetFunction::Green],
            TargetFunction::Blue => &[TargetFunction::Blue],
        }
    }

    /// Reservoirs a pixel keeps (1, or 3 for [`TargetFunction::Channels`]).
    pub fn reservoirs(self) -> usize {
        self.reservoir_targets().len()
    }

    /// The colour channel a reservoir of this target shades (None: all three).
    pub fn channel(self) -> Option<usize> {
        match self {
            TargetFunction::Red => Some(0),
            TargetFunction::Green => Some(1),
            TargetFunction::Blue => Some(2),
            _ => None,
        }
    }

    /// p̂ of contribution `c` (each channel ≥ 0 and finite where it is called). `Channels`
    /// resamples with its three [`TargetFunction::reservoir_targets`]; its value here is the
    /// channel sum, which no resampling uses.
    pub fn of(self, c: glam::Vec3) -> f32 {
        match self {
            TargetFunction::Luminance => crate::color::luminance(c),
            TargetFunction::L2 => ((c.x * c.x + c.y * c.y) + c.z * c.z).sqrt(),
            TargetFunction::Sum | TargetFunction::Channels => (c.x + c.y) + c.z,
            TargetFunction::Max => c.x.max(c.y).max(c.z),
            TargetFunction::Red => c.x,
            TargetFunction::Green => c.y,
            TargetFunction::Blue => c.z,
        }
    }
}

/// Where a pixel's final reservoir sample came from (the error maps by origin of
/// `warpath-bench restir`): the last stage that moved it into the pixel. A sample chosen from
/// this frame's initial candidates is a light or a BSDF candidate; one that temporal reuse took
/// from the previous frame is `Temporal` (also when a later spatial pass keeps it as the
/// pixel's own); one a spatial pass took from a neighbour is `Spatial`. `None`: no sample
/// contributes (no reservoir sample, W = 0, or no lit surface). The code is what the GPU
/// kernels write (restir.cuh RESTIR_ORIGIN_*).
#[repr(u8)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SampleOrigin {
    #[default]
    None = 0,
    LightCandidate = 1,
    BsdfCandidate = 2,
    Temporal = 3,
    Spatial = 4,
}

impl SampleOrigin {
    pub const ALL: [SampleOrigin; 5] = [
        SampleOrigin::None,
        SampleOrigin::LightCandidate,
        SampleOrigin::BsdfCandidate,
        SampleOrigin::Temporal,
        SampleOrigin::Spatial,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SampleOrigin::None => "none",
            SampleOrigin::LightCandidate => "light candidate",
            SampleOrigin::BsdfCandidate => "BSDF candidate",
            SampleOrigin::Temporal => "temporal",
            SampleOrigin::Spatial => "spatial",
        }
    }

    /// The origin of a GPU code (None for an unknown code).
    pub fn from_code(code: u32) -> Option<SampleOrigin> {
        Self::ALL.into_iter().find(|o| *o as u32 == code)
    }
}

/// The knobs of a ReSTIR DI frame, and their defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestirOptions {
    /// Candidates per pixel in initial RIS.
    pub candidates: u32,
    /// Draw candidates from the tile's light pool (else from the power distribution).
    pub light_pool: bool,
    pub temporal: bool,
    /// The previous reservoir's M is capped at this × the current M.
    pub temporal_cap: f32,
    /// Spatial reuse passes (0: none) of `neighbours` within `radius` pixels.
    pub spatial_passes: u32,
    pub neighbours: u32,
    pub radius: f32,
    pub bias: BiasCorrection,
    /// The temporal pass's bias correction, where it differs from `bias` (None: `bias`).
    /// Pairwise MIS here with ray-traced spatial reuse bounds what a fresh sample gets when
    /// the history's surface does not see it: 1/Z then divides the history's weight (M up to
    /// `temporal_cap` × the candidates) by the candidates' M alone (docs/benchmarks/restir.md,
    /// the CPU study of the fixtures' tail). Unbiased with either spatial weighting: each pass
    /// hands on an unbiased contribution weight.
    pub temporal_bias: Option<BiasCorrection>,
    /// The target function p̂ of resampling.
    pub target: TargetFunction,
    /// Visibility-aware reuse: the reuse passes resample a reused input's sample with
    /// p̂_q(y)·V_q(y), its visibility from the pixel traced before resampling (one shadow ray
    /// per reused input with weight > 0), so a neighbour's pick the pixel cannot see never wins
    /// and then blackens the pixel (W = 0). The chosen sample is then known visible at the
    /// pixel: no ray after the choice. Unbiased with ray-traced or pairwise weights.
    pub reuse_visibility: bool,
    /// BSDF-sampled candidates per pixel in initial RIS, combined with the light candidates
    /// by the balance heuristic over their source pdfs (0: none).
    pub bsdf_candidates: u32,
    /// RTXDI's boiling filter after temporal reuse (0: off; RTXDI's default strength 0.2): a
    /// reservoir whose W exceeds (10/strength − 9) × the mean nonzero W of its 8×8 pixel
    /// group is emptied. Biased (it removes rare bright samples).
    pub boiling_filter: f32,
    /// Temporal and spatial reuse reject a neighbour whose material roughness
    /// ([`material_roughness`]) differs from the pixel's by more than this (RTXDI's material
    /// similarity test, beside the normal and depth tests); 1 or more: no roughness test.
    pub roughness_threshold: f32,
    pub seed: u32,
}

impl Default for RestirOptions {
    fn default() -> Self {
        RestirOptions {
            candidates: 32,
            light_pool: true,
            temporal: true,
            temporal_cap: 20.0,
            spatial_passes: 1,
            neighbours: 5,
            radius: 30.0,
            // Pairwise MIS with one reservoir per colour channel: the best on the CPU's
            // yardstick at equal time (docs/restir.md).
            bias: BiasCorrection::Pairwise,
            temporal_bias: None,
            target: TargetFunction::Channels,
            reuse_visibility: false,
            bsdf_candidates: 0,
            boiling_filter: 0.0,
            roughness_threshold: DEFAULT_ROUGHNESS_THRESHOLD,
            seed: 0,
        }
    }
}

/// RTXDI's boiling filter's multiplier at `strength` (RestirOptions::boiling_filter): a
/// reservoir whose W exceeds 10/strength − 9 (strength clamped to 1) times its group's mean
/// nonzero W is emptied; None at strength 0 (off). The CPU reference and the GPU kernel's
/// argument (`RestirArgs.boiling_multiplier`) both come from here.
pub fn boiling_multiplier(strength: f32) -> Option<f32> {
    (strength > 0.0).then(|| 10.0 / strength.min(1.0) - 9.0)
}

/// The default [`RestirOptions::roughness_threshold`].
pub const DEFAULT_ROUGHNESS_THRESHOLD: f32 = 1.0;

/// The roughness reuse compares (RestirOptions::roughness_threshold), in [0, 1] for the
/// materials a scene file makes: GGX kinds their perceptual roughness, Blinn lobes (Blinn, car
/// paint's flakes) the perceptual roughness of the GGX lobe of about the same width,
/// (2 / (n + 2))^¼ (α² = 2/(n + 2)), diffuse and non-scattering kinds 1, purely specular ones 0.
/// restir/similarity.cuh `restir_material_roughness` rounds the same operations (lockstep case
/// `restir_material_roughness`).
pub fn material_roughness(m: &crate::material::Material) -> f32 {
    use crate::material::MaterialKind;
    match m.kind() {
        MaterialKind::RoughConductor
        | MaterialKind::RoughDielectric
        | MaterialKind::Plastic
        | MaterialKind::Principled => m.roughness,
        MaterialKind::Blinn | MaterialKind::CarPaint => (2.0 / (m.exponent.max(0.0) + 2.0)).sqrt().sqrt(),
        MaterialKind::Glass | MaterialKind::Mirror | MaterialKind::ThinDielectric => 0.0,
        MaterialKind::Diffuse | MaterialKind::Black | MaterialKind::Null => 1.0,
    }
}

/// Whether two surfaces' roughnesses ([`material_roughness`]) are close enough for reuse:
/// |a − b| ≤ `threshold` (restir/similarity.cuh `restir_roughness_similar`).
pub fn roughness_similar(a: f32, b: f32, threshold: f32) -> bool {
    (a - b).abs() <= threshold
}

/// A BSDF-sampled candidate's source pdf in area measure (restir BSDF candidates): the
/// BSDF's solid-angle pdf times |cos θ_y| / d² (restir/similarity.cuh `restir_area_pdf`).
pub fn bsdf_area_pdf(solid_angle_pdf: f32, cos_y: f32, d2: f32) -> f32 {
    solid_angle_pdf * cos_y / d2
}

/// The balance heuristic's denominator over light and BSDF candidates: M_L·p_L + M_B·p_B
/// (restir/similarity.cuh `restir_mis_source`).
pub fn mis_source_pdf(light_candidates: u32, light_pdf: f32, bsdf_candidates: u32, bsdf_pdf: f32) -> f32 {
    light_candidates as f32 * light_pdf + bsdf_candidates as f32 * bsdf_pdf
}

/// Shadow rays a ReSTIR render traced, by stage (the CPU reference counts them; rays whose
/// answer is known — the chosen input's, shading's — are not traced and not counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RayCounts {
    /// The visibility pass after initial RIS (one per distinct chosen sample of a pixel).
    pub visibility: u64,
    /// Temporal reuse (Z's or pairwise MIS's rays, the pixel's own, visibility-aware reuse's).
    pub temporal: u64,
    /// Spatial reuse, every pass.
    pub spatial: u64,
    /// Shading (0: its visibility is known).
    pub shade: u64,
    /// The closest-hit rays of BSDF-sampled candidates (`RestirOptions::bsdf_candidates`).
    pub bsdf_candidates: u64,
}

impl RayCounts {
    pub fn add(&mut self, o: &RayCounts) {
        self.visibility += o.visibility;
        self.temporal += o.temporal;
        self.spatial += o.spatial;
        self.shade += o.shade;
        self.bsdf_candidates += o.bsdf_candidates;
    }

    pub fn total(&self) -> u64 {
        self.visibility + self.temporal + self.spatial + self.shade + self.bsdf_candidates
    }

    /// Shadow rays per pixel per frame of each stage (visibility, temporal, spatial, shade)
    /// and in all (with the BSDF candidates' rays), for `pixels` × `frames`.
    pub fn per_pixel_frame(&self, pixels: u64, frames: u64) -> [f64; 5] {
        let n = (pixels * frames).max(1) as f64;
        [self.visibility, self.temporal, self.spatial, self.shade, self.total()].map(|r| r as f64 / n)
    }
}

/// Temporal reuse under a moving camera: where the previous frame's camera saw a world point.
/// Made on the host from the previous camera ([`Reprojection::of`]) and read by the CPU
/// reference and the GPU kernels alike (`RestirArgs.prev_to_camera` ...), in one order of
/// f32 operations so that both find the same pixel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reprojection {
    /// Rows 0..3 of the previous camera's world-to-camera matrix, row-major (3 × 4).
    pub to_camera: [f32; 12],
    /// The previous camera's position.
    pub position: [f32; 3],
    /// The previous camera's `tan_half_fov(width, height)`.
    pub tan_half_fov: [f32; 2],
}

impl Reprojection {
    /// The reprojection into `camera`'s image of `width × height` pixels.
    pub fn of(camera: &crate::camera::Camera, width: u32, height: u32) -> Reprojection {
        let m = camera.to_world.inverse().transpose().to_cols_array();
        let tan = camera.tan_half_fov(width, height);
        let p = camera.position();
        Reprojection {
            to_camera: m[..12].try_into().expect("12 of 16"),
            position: p.to_array(),
            tan_half_fov: tan.to_array(),
        }
    }

    /// The pixel (index `y·width + x`) whose film area contains the projection of `p` through
    /// the lens centre, and `p`'s distance from the camera; None behind the camera or outside
    /// the image.
    pub fn pixel(&self, p: glam::Vec3, width: u32, height: u32) -> Option<(u32, f32)> {
        let m = &self.to_camera;
        let row = |r: usize| ((m[4 * r] * p.x + m[4 * r + 1] * p.y) + m[4 * r + 2] * p.z) + m[4 * r + 3];
        let (x, y, z) = (row(0), row(1), row(2));
        if !(z > 0.0) {
            return None;
        }
        // generate_ray's film position inverted: x/z = (1 − 2·sx)·tan.x.
        let fx = (1.0 - x / (z * self.tan_half_fov[0])) * 0.5 * width as f32;
        let fy = (1.0 - y / (z * self.tan_half_fov[1])) * 0.5 * height as f32;
        if !(fx >= 0.0 && fx < width as f32 && fy >= 0.0 && fy < height as f32) {
            return None;
        }
        let (px, py) = ((fx as u32).min(width - 1), (fy as u32).min(height - 1));
        let d = [p.x - self.position[0], p.y - self.position[1], p.z - self.position[2]];
        let distance = ((d[0] * d[0] + d[1] * d[1]) + d[2] * d[2]).sqrt();
        Some((py * width + px, distance))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera::Camera;
    use glam::{Vec2, Vec3};

    /// Each target is its formula, names round-trip, and grey light gives each the same
    /// ordering of samples (all proportional to the grey level).
    #[test]
    fn target_functions() {
        let c = Vec3::new(3.0, 4.0, 12.0);
        assert_eq!(TargetFunction::L2.of(c), 13.0);
        assert_eq!(TargetFunction::Sum.of(c), 19.0);
        assert_eq!(TargetFunction::Max.of(c), 12.0);
        assert_eq!(TargetFunction::Luminance.of(c), crate::color::luminance(c));
        assert_eq!(
            (TargetFunction::Red.of(c), TargetFunction::Green.of(c), TargetFunction::Blue.of(c)),
            (3.0, 4.0, 12.0)
        );
        for t in TargetFunction::ALL {
            assert_eq!(TargetFunction::from_name(t.name()), Some(t));
            assert_eq!(TargetFunction::ALL[t.code() as usize], t);
        }
        for t in TargetFunction::EVALUATED {
            assert!(t.of(Vec3::splat(2.0)) > t.of(Vec3::splat(1.0)) && t.of(Vec3::ZERO) == 0.0);
            assert_eq!(t.reservoir_targets(), [t], "{t:?} is one reservoir");
        }
        // Channels: three reservoirs, each shading its own channel, with the codes after the
        // user-facing ones (restir/target.cuh RESTIR_TARGET_RED + channel).
        let channels = TargetFunction::Channels.reservoir_targets();
        assert_eq!(TargetFunction::Channels.reservoirs(), 3);
        for (k, t) in channels.iter().enumerate() {
            assert_eq!(t.channel(), Some(k));
            assert_eq!(t.code(), TargetFunction::Red.code() + k as u32);
            assert_eq!(TargetFunction::from_name(t.name()), None, "{t:?} is not chosen alone");
        }
        assert_eq!(TargetFunction::Luminance.channel(), None);
        assert_eq!(TargetFunction::from_name("hue"), None);
    }

    /// A point on a camera ray through pixel (x + a, y + b) projects back into pixel (x, y),
    /// at the ray's distance; behind the camera or off the image it projects nowhere.
    #[test]
    fn reprojection_inverts_the_camera_ray() {
        let camera = Camera::look_at(Vec3::new(1.0, 2.0, 5.0), Vec3::new(0.0, 0.5, 0.0), Vec3::Y, 40.0);
        let (w, h) = (64, 48);
        let r = Reprojection::of(&camera, w, h);
        let mut hits = 0;
        for (x, y, a, b) in [(0, 0, 0.3, 0.7), (63, 47, 0.5, 0.5), (10, 30, 0.9, 0.1), (32, 24, 0.01, 0.99)] {
            let ray = camera.generate_ray(Vec2::new(x as f32 + a, y as f32 + b), w, h, Vec2::splat(0.5));
            for t in [0.5f32, 3.0, 40.0] {
                let p = ray.o + ray.d * t;
                let (pixel, distance) = r.pixel(p, w, h).expect("in view");
                assert_eq!(pixel, y * w + x, "pixel ({x}, {y}) at t {t}");
                assert!((distance - t).abs() <= 1e-4 * t, "{distance} vs {t}");
                hits += 1;
            }
            assert_eq!(r.pixel(ray.o - ray.d * 2.0, w, h), None, "behind");
        }
        assert_eq!(hits, 12);
        let side = camera.position() + camera.to_world.x_axis.truncate() * 10.0 + camera.to_world.z_axis.truncate();
        assert_eq!(r.pixel(side, w, h), None, "off the image");
    }
}
