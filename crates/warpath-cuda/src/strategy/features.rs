//! The material features a program is compiled for ([`MaterialFeatures`],
//! `WARPATH_MATERIAL_FEATURES` in kernels/common/features.cuh): code only some scenes need —
//! the principled BSDF, plastic's coat tables, the exact conductor Fresnel, Beckmann
//! microfacets, normal and bump maps, textures, opacity masks — is compiled only into the
//! programs of scenes that use it, so a scene of diffuse, glass and metal materials (the
//! Cornell box) renders with kernels of fewer registers. A render compiles one of two coarse
//! sets ([`MaterialFeatures::compiled_for`]): none of them (the "basic" programs) or all (the
//! default programs), so a user waits for at most one more build per program.

use warpath_core::material::{Material, MaterialKind};
use warpath_scene::Scene;

/// A set of material features (the bits of `WARPATH_MATERIAL_FEATURES`). The default is
/// [`MaterialFeatures::ALL`]: the default programs compile every feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaterialFeatures(u32);

impl MaterialFeatures {
    /// `MaterialKind::Principled`.
    pub const PRINCIPLED: Self = Self(1);
    /// `MaterialKind::Plastic` (the smooth and the rough coat).
    pub const PLASTIC: Self = Self(2);
    /// `flags::CONDUCTOR_ETA_K`: the exact Fresnel of a complex index.
    pub const CONDUCTOR_ETA_K: Self = Self(4);
    /// `flags::BECKMANN`.
    pub const BECKMANN: Self = Self(8);
    /// Normal maps and bump maps.
    pub const SURFACE_MAPS: Self = Self(16);
    /// Base colour, roughness and metallic textures.
    pub const TEXTURES: Self = Self(32);
    /// Opacity masks (`Material::is_masked`).
    pub const OPACITY: Self = Self(64);
    /// None of them: diffuse, Blinn, car paint, glass, thin glass, mirror, GGX conductors and
    /// dielectrics, black, null, emitters, untextured.
    pub const NONE: Self = Self(0);
    pub const ALL: Self = Self(127);
    /// Every feature with its name (as `warpath info` and the variant label print them).
    pub const NAMED: [(MaterialFeatures, &'static str); 7] = [
        (Self::PRINCIPLED, "principled"),
        (Self::PLASTIC, "plastic"),
        (Self::CONDUCTOR_ETA_K, "conductor eta/k"),
        (Self::BECKMANN, "beckmann"),
        (Self::SURFACE_MAPS, "normal/bump maps"),
        (Self::TEXTURES, "textures"),
        (Self::OPACITY, "opacity masks"),
    ];

    /// The `WARPATH_MATERIAL_FEATURES` value.
    pub const fn bits(self) -> u32 {
        self.0
    }

    pub const fn contains(self, other: MaterialFeatures) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn union(self, other: MaterialFeatures) -> MaterialFeatures {
        MaterialFeatures(self.0 | other.0)
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The features of `self` that `compiled` lacks.
    pub const fn missing_from(self, compiled: MaterialFeatures) -> MaterialFeatures {
        MaterialFeatures(self.0 & !compiled.0)
    }

    /// The features' names, comma separated ("none" for the empty set).
    pub fn names(self) -> String {
        let names: Vec<&str> = Self::NAMED.iter().filter(|(f, _)| self.contains(*f)).map(|(_, n)| *n).collect();
        if names.is_empty() { "none".to_string() } else { names.join(", ") }
    }

    /// What the device code of one material reads beyond the basic set. Conservative: a flag
    /// counts whatever the kind (the device tests the flags alone), and an opacity that is not
    /// at least 1 (NaN included) counts as a mask.
    pub fn of_material(m: &Material) -> MaterialFeatures {
        let mut f = MaterialFeatures::NONE;
        let mut add = |yes: bool, feature: MaterialFeatures| {
            if yes {
                f = f.union(feature);
            }
        };
        add(MaterialKind::from_u32(m.kind) == Some(MaterialKind::Principled), Self::PRINCIPLED);
        add(MaterialKind::from_u32(m.kind) == Some(MaterialKind::Plastic), Self::PLASTIC);
        add(m.has_conductor_eta_k(), Self::CONDUCTOR_ETA_K);
        add(m.beckmann(), Self::BECKMANN);
        add(m.normal_texture >= 0 || m.bump_texture >= 0, Self::SURFACE_MAPS);
        add(m.base_color_texture >= 0 || m.roughness_texture >= 0 || m.metallic_texture >= 0, Self::TEXTURES);
        add(!(m.opacity >= 1.0) || m.opacity_texture >= 0, Self::OPACITY);
        f
    }

    /// The features the scene's materials need (every material uploaded, used by a triangle
    /// or an isosurface or not).
    pub fn of_scene(scene: &Scene) -> MaterialFeatures {
        scene.materials.iter().fold(MaterialFeatures::NONE, |f, m| f.union(Self::of_material(m)))
    }

    /// The set the programs of a scene needing `needed` are compiled for: [`NONE`](Self::NONE)
    /// (the basic programs) when it needs none, else [`ALL`](Self::ALL) (the default ones).
    /// Two builds per program at most, never one without a feature the scene needs.
    pub fn compiled_for(needed: MaterialFeatures) -> MaterialFeatures {
        if needed.is_empty() { MaterialFeatures::NONE } else { MaterialFeatures::ALL }
    }

    /// [`compiled_for`](Self::compiled_for) the scene's needs.
    pub fn for_scene(scene: &Scene) -> MaterialFeatures {
        Self::compiled_for(Self::of_scene(scene))
    }

    /// The `#define` of these features.
    pub fn define(self) -> String {
        format!("#define WARPATH_MATERIAL_FEATURES 0x{:x}u\n", self.0)
    }

    /// The program-name suffix: "" for all, "basic" for none, else "m" and the bits in hex.
    pub fn suffix(self) -> String {
        match self {
            Self::ALL => String::new(),
            Self::NONE => "basic".to_string(),
            _ => format!("m{:x}", self.0),
        }
    }
}

impl Default for MaterialFeatures {
    fn default() -> Self {
        MaterialFeatures::ALL
    }
}

impl std::fmt::Display for MaterialFeatures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::ALL => f.write_str("all material features"),
            Self::NONE => f.write_str("basic materials"),
            other => write!(f, "material features: {}", other.names()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn scene_of(materials: Vec<Material>) -> Scene {
        let mut scene = warpath_scene::load("cornell").expect("the built-in cornell box");
        scene.materials.extend(materials);
        scene
    }

    #[test]
    fn the_cornell_box_needs_no_feature_and_gets_the_basic_programs() {
        let scene = warpath_scene::load("cornell").expect("cornell");
        assert_eq!(MaterialFeatures::of_scene(&scene), MaterialFeatures::NONE);
        assert_eq!(MaterialFeatures::for_scene(&scene), MaterialFeatures::NONE);
    }

    #[test]
    fn basic_kinds_need_nothing() {
        let basic = [
            Material::diffuse(Vec3::splat(0.5)),
            Material::blinn(Vec3::splat(0.3), Vec3::splat(0.2), 20.0),
            Material::glass(1.5),
            Material::thin_dielectric(1.5),
            Material::mirror(Vec3::ONE),
            Material::chrome(),
            Material::car_paint(Vec3::X, Vec3::Y, 30.0, 1.5),
            Material::rough_conductor(Vec3::splat(0.9), 0.3),
            Material::rough_dielectric(1.5, 0.2),
            Material::black(),
            Material::null(),
            Material::emitter(Vec3::splat(4.0)),
            Material::diffuse(Vec3::ONE).with_opacity(1.0, -1),
        ];
        for m in basic {
            assert_eq!(MaterialFeatures::of_material(&m), MaterialFeatures::NONE, "{:?}", m.kind());
        }
    }

    #[test]
    fn each_feature_is_found() {
        let eta = Vec3::new(0.2, 0.9, 1.1);
        let k = Vec3::new(3.9, 2.4, 2.2);
        let mut textured = Material::diffuse(Vec3::ONE);
        textured.base_color_texture = 0;
        let mut rough_textured = Material::rough_conductor(Vec3::ONE, 0.3);
        rough_textured.roughness_texture = 1;
        let mut metal_textured = Material::principled(Vec3::ONE, 0.3, 1.5);
        metal_textured.metallic_texture = 0;
        let mut nan_opacity = Material::diffuse(Vec3::ONE);
        nan_opacity.opacity = f32::NAN;
        use MaterialFeatures as F;
        let cases = [
            (Material::principled(Vec3::ONE, 0.4, 1.5), F::PRINCIPLED),
            (Material::plastic(Vec3::ONE, Vec3::ONE, 1.5, 0.0, false), F::PLASTIC),
            (Material::plastic(Vec3::ONE, Vec3::ONE, 1.5, 0.3, true), F::PLASTIC),
            (Material::conductor(eta, k, Vec3::ONE), F::CONDUCTOR_ETA_K),
            (Material::rough_conductor_eta_k(eta, k, Vec3::ONE, 0.2), F::CONDUCTOR_ETA_K),
            (Material::rough_conductor(Vec3::ONE, 0.3).with_beckmann(), F::BECKMANN),
            (Material::rough_dielectric(1.5, 0.3).with_beckmann(), F::BECKMANN),
            (Material::diffuse(Vec3::ONE).with_normal_texture(0), F::SURFACE_MAPS),
            (Material::diffuse(Vec3::ONE).with_bump_texture(0, 1.0), F::SURFACE_MAPS),
            (textured, F::TEXTURES),
            (rough_textured, F::TEXTURES),
            (metal_textured, F::PRINCIPLED.union(F::TEXTURES)),
            (Material::diffuse(Vec3::ONE).with_opacity(0.5, -1), F::OPACITY),
            (Material::diffuse(Vec3::ONE).with_opacity(1.0, 0), F::OPACITY),
            (nan_opacity, F::OPACITY),
        ];
        for (m, expected) in cases {
            assert_eq!(MaterialFeatures::of_material(&m), expected, "{:?} {}", m.kind(), expected.names());
            // A scene with it needs it, and compiles every feature.
            let scene = scene_of(vec![m]);
            assert_eq!(MaterialFeatures::of_scene(&scene), expected);
            assert_eq!(MaterialFeatures::for_scene(&scene), MaterialFeatures::ALL);
        }
    }

    #[test]
    fn a_scene_never_compiles_without_a_feature_it_needs() {
        // Every subset of the features: the compiled set contains it.
        for bits in 0..=MaterialFeatures::ALL.bits() {
            let needed = MaterialFeatures(bits);
            let compiled = MaterialFeatures::compiled_for(needed);
            assert!(compiled.contains(needed), "{bits:#x}");
            assert!(needed.missing_from(compiled).is_empty());
            assert!(compiled == MaterialFeatures::NONE || compiled == MaterialFeatures::ALL);
        }
        assert_eq!(MaterialFeatures::PLASTIC.missing_from(MaterialFeatures::NONE), MaterialFeatures::PLASTIC);
    }

    #[test]
    fn the_bits_are_the_headers() {
        let header = include_str!("../../kernels/common/features.cuh");
        use MaterialFeatures as F;
        let constants = [
            (F::PRINCIPLED, "PRINCIPLED"),
            (F::PLASTIC, "PLASTIC"),
            (F::CONDUCTOR_ETA_K, "CONDUCTOR_ETA_K"),
            (F::BECKMANN, "BECKMANN"),
            (F::SURFACE_MAPS, "SURFACE_MAPS"),
            (F::TEXTURES, "TEXTURES"),
            (F::OPACITY, "OPACITY"),
        ];
        for (feature, constant) in constants {
            let line = format!("#define WARPATH_FEATURE_{constant} {}u", feature.bits());
            assert!(header.contains(&line), "features.cuh lacks `{line}`");
        }
        let named = F::NAMED.iter().fold(F::NONE, |f, (g, _)| f.union(*g));
        let defined = constants.iter().fold(F::NONE, |f, (g, _)| f.union(*g));
        assert_eq!((named, defined), (F::ALL, F::ALL));
    }

    #[test]
    fn suffixes_and_defines() {
        assert_eq!(MaterialFeatures::ALL.suffix(), "");
        assert_eq!(MaterialFeatures::NONE.suffix(), "basic");
        assert_eq!(MaterialFeatures::NONE.define(), "#define WARPATH_MATERIAL_FEATURES 0x0u\n");
        assert_eq!(MaterialFeatures::PLASTIC.union(MaterialFeatures::OPACITY).suffix(), "m42");
        assert_eq!(MaterialFeatures::default(), MaterialFeatures::ALL);
    }
}
