//! Materials as one flat `#[repr(C)]` record that the CPU and the GPU read alike.
//! `kind` selects the BSDF (see [`MaterialKind`]); each kind documents which fields it
//! reads. Emission is independent of the kind: any material may emit.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// The BSDF a material evaluates. Values are stable: the GPU switches on them.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaterialKind {
    /// Lambertian: `base_color` (or its texture) is the albedo.
    Diffuse = 0,
    /// Normalized Blinn–Phong: Lambertian `base_color` plus a specular lobe of color
    /// `specular` and exponent `exponent`, normalized so its albedo is exactly 1 at
    /// normal incidence (Sloan–Hoffman; see `bsdf::blinn_normalization`); energy
    /// conserving when base + specular ≤ 1.
    Blinn = 1,
    /// Smooth dielectric (glass): Fresnel reflection and refraction with index `ior`,
    /// transmission tinted by `specular`.
    Glass = 2,
    /// Smooth conductor (mirror, chrome): Schlick Fresnel with normal-incidence
    /// reflectance `specular`; with [`flags::CONDUCTOR_ETA_K`], the exact conductor Fresnel of
    /// [`Material::conductor_eta`] + i[`Material::conductor_k`] times `base_color` (or its
    /// texture), Mitsuba's `specular_reflectance`.
    Mirror = 3,
    /// Car paint: a smooth clear coat of index `ior` (sampled as a delta lobe) over a
    /// layer of glossy flakes (Blinn lobe of color `specular`, exponent `exponent`) over
    /// a diffuse base of color `base_color`.
    CarPaint = 4,
    /// Rough conductor: normal-incidence reflectance `base_color`(Schlick), or with
    /// [`flags::CONDUCTOR_ETA_K`] the exact Fresnel of eta + ik times `base_color` (as
    /// [`MaterialKind::Mirror`]); GGX `roughness` (α = roughness²), or Beckmann of the same α
    /// with [`flags::BECKMANN`].
    RoughConductor = 5,
    /// Rough dielectric: index `ior`, GGX `roughness` (α = roughness²; Beckmann with
    /// [`flags::BECKMANN`]), transmission tinted by `specular`.
    RoughDielectric = 6,
    /// No scattering (pure emitters and absorbers).
    Black = 7,
    /// An index-matched boundary (Mitsuba's `null` BSDF): light passes straight through.
    /// Only the volumetric path tracer reads it, to bound a medium; a scene that has one is
    /// rendered with that estimator.
    Null = 8,
    /// Mitsuba's `plastic` (`roughness` 0) and `roughplastic`: a dielectric coat of index
    /// `ior` (interior over exterior) over a diffuse base of albedo `base_color`, the coat's
    /// reflection tinted by `specular`. Smooth: a delta coat lobe of Fresnel F(wo) and the
    /// base seen through the coat with internal reflections, (1 − F(wo))(1 − F(wi)) ρ /
    /// (π η² (1 − F_dr)) cos θi (F_dr: the coat's diffuse internal reflectance; ρ F_dr with
    /// [`flags::NONLINEAR`]). Rough: a GGX coat lobe (α = roughness²; Beckmann with
    /// [`flags::BECKMANN`]) and the same base, seen through the rough coat's transmittance.
    Plastic = 9,
    /// Mitsuba 3's `principled` (Burley's Disney BSDF as Mitsuba implements it): a
    /// retro-reflective diffuse lobe of `base_color` (flattened toward a fake subsurface by
    /// `flatness`), a sheen, a GGX specular lobe (α = max(roughness², 0.001), separable Smith
    /// G) whose Fresnel blends the dielectric of index `ior` with Schlick terms tinted by
    /// `base_color` (`metallic`, `spec_tint`), a GTR1 clear coat (`clearcoat`,
    /// `clearcoat_gloss`) and GGX transmission (`spec_trans`, tinted by √base_color). Reads the
    /// principled fields after `normal_texture`. Opaque (black from behind when one-sided) unless
    /// `(1 − metallic) · spec_trans > 0`, when it transmits and sees the true side.
    Principled = 10,
    /// Mitsuba's (and pbrt's) `thindielectric`: a thin slab of index `ior` with no
    /// refraction. It reflects R' = R + T²R / (1 − R²) = 2R / (1 + R) (R the Fresnel
    /// reflectance at the incident angle, T = 1 − R: every internal bounce summed) as a mirror
    /// and passes 1 − R' straight through, tinted by `specular`. Both lobes are delta lobes.
    ThinDielectric = 11,
}

impl MaterialKind {
    pub fn from_u32(v: u32) -> Option<Self> {
        use MaterialKind::*;
        Some(match v {
            0 => Diffuse,
            1 => Blinn,
            2 => Glass,
            3 => Mirror,
            4 => CarPaint,
            5 => RoughConductor,
            6 => RoughDielectric,
            7 => Black,
            8 => Null,
            9 => Plastic,
            10 => Principled,
            11 => ThinDielectric,
            _ => return None,
        })
    }
}

/// Material flags (`Material::flags`).
pub mod flags {
    /// Emit on both faces (default: only where the geometric normal faces the viewer).
    pub const TWO_SIDED_EMISSION: u32 = 1;
    /// An opaque BSDF that scatters only on the front face (where the geometric normal
    /// `cross(v1 − v0, v2 − v0)` points), black from behind, as Mitsuba's opaque BSDFs are.
    /// Default (unset): two-sided, the back face scatters as the front does (what Mitsuba's
    /// `twosided` adapter makes). Transmissive kinds ignore it: they always see the true side.
    pub const ONE_SIDED: u32 = 2;
    /// Plastic: Mitsuba's `nonlinear` (the internal reflections shift the base's color: the
    /// denominator 1 − ρ F_dr instead of 1 − F_dr).
    pub const NONLINEAR: u32 = 4;
    /// The roughness texture holds GGX α (Mitsuba's `alpha` as a texture): the roughness is
    /// `roughness · √t` of the bilinearly filtered texel `t`, so that α is filtered as Mitsuba
    /// filters it.
    pub const ROUGHNESS_TEXTURE_ALPHA: u32 = 256;
    /// Mirror and rough conductor: the exact Fresnel of a conductor of complex index
    /// eta + ik per RGB channel (Mitsuba's `conductor`), times `base_color` (Mitsuba's
    /// `specular_reflectance`), instead of Schlick's of an F0. Eta and k live in fields the
    /// conductors never read otherwise: eta in (`spec_tint`, `sheen`, `sheen_tint`), k in
    /// (`clearcoat`, `clearcoat_gloss`, `spec_trans`); read them with
    /// [`super::Material::conductor_eta`] and [`super::Material::conductor_k`].
    pub const CONDUCTOR_ETA_K: u32 = 512;
    /// Rough conductor, rough dielectric and rough plastic: the Beckmann distribution of
    /// α = roughness² (Mitsuba's default `distribution`) with Mitsuba's separable Smith
    /// shadowing, instead of GGX. See [`crate::bsdf::beckmann`].
    pub const BECKMANN: u32 = 1024;
}

/// One material, 128 bytes. See [`MaterialKind`] for the fields each kind reads.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Material {
    /// A [`MaterialKind`] as u32.
    pub kind: u32,
    /// Index into the scene's textures for `base_color`, or -1.
    pub base_color_texture: i32,
    /// GGX perceptual roughness in [0, 1] (rough kinds).
    pub roughness: f32,
    /// Index of refraction (glass, rough dielectric, car paint coat).
    pub ior: f32,
    /// Diffuse albedo / conductor reflectance.
    pub base_color: Vec3,
    /// Blinn exponent (Blinn, car-paint flakes).
    pub exponent: f32,
    /// Specular color (Blinn, mirror, glass tint, flakes).
    pub specular: Vec3,
    /// [`flags`] bits.
    pub flags: u32,
    /// Emitted radiance (linear RGB).
    pub emission: Vec3,
    /// Index into the scene's textures of a tangent-space normal map (raw RGB, the normal
    /// 2·c − 1; see [`crate::normal_map`]), or -1.
    pub normal_texture: i32,
    /// Principled: metallic weight in [0, 1].
    pub metallic: f32,
    /// Principled: how much the dielectric specular is tinted toward `base_color`.
    /// Conductors with [`flags::CONDUCTOR_ETA_K`]: eta's red channel.
    pub spec_tint: f32,
    /// Principled: sheen weight. Conductors with [`flags::CONDUCTOR_ETA_K`]: eta's green.
    pub sheen: f32,
    /// Principled: how much the sheen is tinted toward `base_color`. Conductors with
    /// [`flags::CONDUCTOR_ETA_K`]: eta's blue.
    pub sheen_tint: f32,
    /// Principled: clear coat weight. Conductors with [`flags::CONDUCTOR_ETA_K`]: k's red.
    pub clearcoat: f32,
    /// Principled: clear coat gloss (GTR1 α = lerp(0.1, 0.001, gloss)). Conductors with
    /// [`flags::CONDUCTOR_ETA_K`]: k's green.
    pub clearcoat_gloss: f32,
    /// Principled: specular transmission weight. Conductors with
    /// [`flags::CONDUCTOR_ETA_K`]: k's blue.
    pub spec_trans: f32,
    /// Principled: blend of the diffuse lobe toward the fake subsurface lobe.
    pub flatness: f32,
    /// Index into the scene's textures of a height map for bump mapping (its red channel,
    /// raw; see [`crate::bump_map`]), or -1. A material has a normal map or a bump map, not both.
    pub bump_texture: i32,
    /// The bump map's gradient multiplier (Mitsuba's `bumpmap` `scale`).
    pub bump_scale: f32,
    /// Index into the scene's textures whose red channel multiplies `roughness` (raw), or -1.
    pub roughness_texture: i32,
    /// Index into the scene's textures whose red channel multiplies `metallic` (raw), or -1.
    pub metallic_texture: i32,
    /// Opacity in [0, 1] (Mitsuba's `mask`): 1 opaque (the default), 0 invisible to
    /// BSDF-sampled rays. See [`crate::opacity`].
    pub opacity: f32,
    /// Index into the scene's textures of an opacity map (its first channel multiplies
    /// `opacity`), or -1.
    pub opacity_texture: i32,
    /// Padding to 128 bytes (zero).
    pub _pad_tail: [u32; 2],
}

const _: () = assert!(std::mem::size_of::<Material>() == 128);

impl Material {
    fn base(kind: MaterialKind) -> Self {
        Material {
            kind: kind as u32,
            base_color_texture: -1,
            roughness: 0.5,
            ior: 1.5,
            base_color: Vec3::ZERO,
            exponent: 0.0,
            specular: Vec3::ZERO,
            flags: 0,
            emission: Vec3::ZERO,
            normal_texture: -1,
            metallic: 0.0,
            spec_tint: 0.0,
            sheen: 0.0,
            sheen_tint: 0.0,
            clearcoat: 0.0,
            clearcoat_gloss: 0.0,
            spec_trans: 0.0,
            flatness: 0.0,
            bump_texture: -1,
            bump_scale: 1.0,
            roughness_texture: -1,
            metallic_texture: -1,
            opacity: 1.0,
            opacity_texture: -1,
            _pad_tail: [0; 2],
        }
    }
    pub fn kind(&self) -> MaterialKind {
        MaterialKind::from_u32(self.kind).unwrap_or(MaterialKind::Black)
    }
    pub fn diffuse(albedo: Vec3) -> Self {
        Material { base_color: albedo, ..Self::base(MaterialKind::Diffuse) }
    }
    pub fn blinn(diffuse: Vec3, specular: Vec3, exponent: f32) -> Self {
        Material { base_color: diffuse, specular, exponent, ..Self::base(MaterialKind::Blinn) }
    }
    pub fn glass(ior: f32) -> Self {
        Material { ior, specular: Vec3::ONE, ..Self::base(MaterialKind::Glass) }
    }
    pub fn mirror(reflectance: Vec3) -> Self {
        Material { specular: reflectance, ..Self::base(MaterialKind::Mirror) }
    }
    /// Chrome: a mirror with chromium's normal-incidence reflectance.
    pub fn chrome() -> Self {
        Self::mirror(Vec3::new(0.549, 0.556, 0.554))
    }
    pub fn car_paint(base: Vec3, flakes: Vec3, flake_exponent: f32, coat_ior: f32) -> Self {
        Material {
            base_color: base,
            specular: flakes,
            exponent: flake_exponent,
            ior: coat_ior,
            ..Self::base(MaterialKind::CarPaint)
        }
    }
    pub fn rough_conductor(f0: Vec3, roughness: f32) -> Self {
        Material { base_color: f0, roughness, ..Self::base(MaterialKind::RoughConductor) }
    }
    pub fn rough_dielectric(ior: f32, roughness: f32) -> Self {
        Material { ior, roughness, specular: Vec3::ONE, ..Self::base(MaterialKind::RoughDielectric) }
    }
    /// Mitsuba's `plastic` (`roughness` = 0) or `roughplastic` (α = roughness²): `diffuse`
    /// under a coat of relative index `ior` whose reflection `specular` tints.
    pub fn plastic(diffuse: Vec3, specular: Vec3, ior: f32, roughness: f32, nonlinear: bool) -> Self {
        Material {
            base_color: diffuse,
            specular,
            ior,
            roughness,
            flags: if nonlinear { flags::NONLINEAR } else { 0 },
            ..Self::base(MaterialKind::Plastic)
        }
    }
    /// Mitsuba's `principled` with its defaults (base color 0.5, roughness 0.5, η 1.5, every
    /// weight 0); set the public fields for the rest.
    pub fn principled(base_color: Vec3, roughness: f32, ior: f32) -> Self {
        Material { base_color, roughness, ior, ..Self::base(MaterialKind::Principled) }
    }
    /// A thin dielectric sheet (see [`MaterialKind::ThinDielectric`]).
    pub fn thin_dielectric(ior: f32) -> Self {
        Material { ior, specular: Vec3::ONE, ..Self::base(MaterialKind::ThinDielectric) }
    }
    pub fn black() -> Self {
        Self::base(MaterialKind::Black)
    }
    /// An index-matched medium boundary (see [`MaterialKind::Null`]).
    pub fn null() -> Self {
        Self::base(MaterialKind::Null)
    }
    pub fn is_null(&self) -> bool {
        self.kind == MaterialKind::Null as u32
    }
    pub fn emitter(radiance: Vec3) -> Self {
        Material { emission: radiance, ..Self::base(MaterialKind::Black) }
    }
    /// This material with the normal map `texture` (an index into the scene's textures).
    pub fn with_normal_texture(mut self, texture: i32) -> Self {
        self.normal_texture = texture;
        self
    }
    /// This material with the bump map `texture` (a height map) and gradient multiplier `scale`.
    pub fn with_bump_texture(mut self, texture: i32, scale: f32) -> Self {
        self.bump_texture = texture;
        self.bump_scale = scale;
        self
    }
    /// This material behind an opacity mask (Mitsuba's `mask`): `opacity` in [0, 1] times the
    /// first channel of `texture` (an index into the scene's textures, or -1).
    pub fn with_opacity(mut self, opacity: f32, texture: i32) -> Self {
        self.opacity = opacity;
        self.opacity_texture = texture;
        self
    }
    /// Whether the material has an opacity mask (opacity below 1, or an opacity texture).
    pub fn is_masked(&self) -> bool {
        self.opacity < 1.0 || self.opacity_texture >= 0
    }
    pub fn with_emission(mut self, radiance: Vec3) -> Self {
        self.emission = radiance;
        self
    }
    pub fn is_emissive(&self) -> bool {
        self.emission.max_element() > 0.0
    }
    pub fn two_sided_emission(&self) -> bool {
        self.flags & flags::TWO_SIDED_EMISSION != 0
    }
    /// A conductor of complex index `eta` + i`k` per RGB channel whose Fresnel term is
    /// multiplied by `reflectance` (Mitsuba's `specular_reflectance`, in `base_color`): a
    /// [`MaterialKind::Mirror`] with [`flags::CONDUCTOR_ETA_K`]. Mitsuba's default conductor,
    /// a perfect mirror, is eta 0, k 1.
    pub fn conductor(eta: Vec3, k: Vec3, reflectance: Vec3) -> Self {
        Material { base_color: reflectance, ..Self::base(MaterialKind::Mirror) }.with_conductor_eta_k(eta, k)
    }
    /// [`Material::conductor`] made rough: a [`MaterialKind::RoughConductor`] (α = roughness²).
    pub fn rough_conductor_eta_k(eta: Vec3, k: Vec3, reflectance: Vec3, roughness: f32) -> Self {
        Material::rough_conductor(reflectance, roughness).with_conductor_eta_k(eta, k)
    }
    /// This material with the exact conductor Fresnel of `eta` + i`k` ([`flags::CONDUCTOR_ETA_K`]),
    /// stored in `spec_tint`, `sheen`, `sheen_tint` (eta) and `clearcoat`, `clearcoat_gloss`,
    /// `spec_trans` (k). Only the conductor kinds read them so.
    pub fn with_conductor_eta_k(mut self, eta: Vec3, k: Vec3) -> Self {
        (self.spec_tint, self.sheen, self.sheen_tint) = (eta.x, eta.y, eta.z);
        (self.clearcoat, self.clearcoat_gloss, self.spec_trans) = (k.x, k.y, k.z);
        self.flags |= flags::CONDUCTOR_ETA_K;
        self
    }
    /// Whether a conductor uses the exact Fresnel of eta + ik ([`flags::CONDUCTOR_ETA_K`]).
    pub fn has_conductor_eta_k(&self) -> bool {
        self.flags & flags::CONDUCTOR_ETA_K != 0
    }
    /// The conductor's real index per channel (meaningful with [`flags::CONDUCTOR_ETA_K`]).
    pub fn conductor_eta(&self) -> Vec3 {
        Vec3::new(self.spec_tint, self.sheen, self.sheen_tint)
    }
    /// The conductor's extinction coefficient per channel (with [`flags::CONDUCTOR_ETA_K`]).
    pub fn conductor_k(&self) -> Vec3 {
        Vec3::new(self.clearcoat, self.clearcoat_gloss, self.spec_trans)
    }
    /// This rough material with the Beckmann distribution ([`flags::BECKMANN`]).
    pub fn with_beckmann(mut self) -> Self {
        self.flags |= flags::BECKMANN;
        self
    }
    /// Whether a rough conductor, dielectric or plastic uses Beckmann ([`flags::BECKMANN`]).
    pub fn beckmann(&self) -> bool {
        self.flags & flags::BECKMANN != 0
    }
    /// Whether the BSDF is one-sided ([`flags::ONE_SIDED`]).
    pub fn one_sided(&self) -> bool {
        self.flags & flags::ONE_SIDED != 0
    }
    /// This material with a one-sided BSDF ([`flags::ONE_SIDED`]).
    pub fn with_one_sided(mut self) -> Self {
        self.flags |= flags::ONE_SIDED;
        self
    }
}
