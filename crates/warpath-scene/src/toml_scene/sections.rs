//! The TOML scene file as serde reads it — one struct per table (`[render]`, `[camera]`,
//! `[[material]]`, `[[shape]]`, `[environment]`; `[[medium]]` is in `medium_section`), every
//! value `Spanned` so that errors can name its line. What every table's reader shares (the
//! value types, [`SourceText`], the color and transform checks) is `values.rs`, re-exported
//! here.

use super::medium_section;
pub(super) use super::values::{
    Matrix4, Rotate, SourceText, Triple, check_color, check_transform, matrix_from_rows, toml_error,
};
use serde::Deserialize;
use toml::Spanned;
use warpath_core::camera::FovAxis;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SceneFile {
    pub(super) render: Option<Spanned<RenderSection>>,
    pub(super) camera: Option<Spanned<CameraSection>>,
    #[serde(default)]
    pub(super) material: Vec<Spanned<MaterialSection>>,
    #[serde(default)]
    pub(super) shape: Vec<Spanned<ShapeSection>>,
    #[serde(default)]
    pub(super) medium: Vec<Spanned<medium_section::MediumSection>>,
    pub(super) environment: Option<Spanned<EnvironmentSection>>,
    #[serde(default)]
    pub(super) light: Vec<Spanned<super::light_section::LightSection>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RenderSection {
    pub(super) width: Option<Spanned<i64>>,
    pub(super) height: Option<Spanned<i64>>,
    pub(super) spp: Option<Spanned<i64>>,
    pub(super) max_depth: Option<Spanned<i64>>,
    pub(super) seed: Option<Spanned<i64>>,
    pub(super) sampler: Option<Spanned<String>>,
    pub(super) rr_threshold: Option<Spanned<f32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LookAt {
    pub(super) origin: [f32; 3],
    pub(super) target: [f32; 3],
    pub(super) up: Option<[f32; 3]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CameraSection {
    pub(super) look_at: Option<Spanned<LookAt>>,
    pub(super) to_world: Option<Spanned<Matrix4>>,
    pub(super) fov: Option<Spanned<f32>>,
    pub(super) fov_axis: Option<FovAxis>,
    pub(super) aperture_radius: Option<Spanned<f32>>,
    pub(super) focus_distance: Option<Spanned<f32>>,
    /// The medium the camera sits in.
    pub(super) medium: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MaterialSection {
    pub(super) name: Spanned<String>,
    #[serde(rename = "type")]
    pub(super) kind: Spanned<String>,
    pub(super) base_color: Option<Spanned<Triple>>,
    pub(super) specular: Option<Spanned<Triple>>,
    pub(super) exponent: Option<Spanned<f32>>,
    pub(super) ior: Option<Spanned<f32>>,
    /// Index of refraction outside a dielectric (default 1): the interface's relative index
    /// is ior / exterior_ior (Mitsuba's int_ior / ext_ior).
    pub(super) exterior_ior: Option<Spanned<f32>>,
    pub(super) roughness: Option<Spanned<f32>>,
    /// Plastic: Mitsuba's `nonlinear`.
    pub(super) nonlinear: Option<Spanned<bool>>,
    /// Mirror and rough conductor: a complex index eta + ik per channel (the exact conductor
    /// Fresnel; Mitsuba's defaults eta 0, k 1 fill in the one not given).
    pub(super) eta: Option<Spanned<Triple>>,
    pub(super) k: Option<Spanned<Triple>>,
    /// Rough conductor, rough dielectric and (rough) plastic: "ggx" (default) or "beckmann".
    pub(super) distribution: Option<Spanned<String>>,
    pub(super) emission: Option<Spanned<Triple>>,
    pub(super) two_sided_emission: Option<bool>,
    pub(super) one_sided: Option<Spanned<bool>>,
    pub(super) base_color_texture: Option<Spanned<String>>,
    /// A tangent-space normal map (read raw), any scattering kind.
    pub(super) normal_texture: Option<Spanned<String>>,
    /// A height map (raw, its luminance) for bump mapping and its gradient multiplier.
    pub(super) bump_texture: Option<Spanned<String>>,
    pub(super) bump_scale: Option<Spanned<f32>>,
    /// Raw images whose luminance multiplies `roughness` / `metallic`.
    pub(super) roughness_texture: Option<Spanned<String>>,
    pub(super) metallic_texture: Option<Spanned<String>>,
    /// An opacity mask (Mitsuba's `mask`): opacity in [0, 1] (default 1) and an image whose
    /// first channel multiplies it.
    pub(super) opacity: Option<Spanned<f32>>,
    pub(super) opacity_texture: Option<Spanned<String>>,
    /// Principled: Mitsuba's `principled` weights, each in [0, 1] (default 0).
    pub(super) metallic: Option<Spanned<f32>>,
    pub(super) spec_tint: Option<Spanned<f32>>,
    pub(super) sheen: Option<Spanned<f32>>,
    pub(super) sheen_tint: Option<Spanned<f32>>,
    pub(super) clearcoat: Option<Spanned<f32>>,
    pub(super) clearcoat_gloss: Option<Spanned<f32>>,
    pub(super) spec_trans: Option<Spanned<f32>>,
    pub(super) flatness: Option<Spanned<f32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ShapeSection {
    #[serde(rename = "type")]
    pub(super) kind: Spanned<String>,
    pub(super) name: Option<String>,
    pub(super) file: Option<Spanned<String>>,
    pub(super) material: Option<Spanned<String>>,
    pub(super) emission: Option<Spanned<Triple>>,
    pub(super) two_sided_emission: Option<bool>,
    pub(super) subdivisions: Option<Spanned<i64>>,
    pub(super) to_world: Option<Spanned<Matrix4>>,
    pub(super) translate: Option<Spanned<[f32; 3]>>,
    pub(super) rotate: Option<Spanned<Rotate>>,
    pub(super) scale: Option<Spanned<Triple>>,
    /// The medium inside the shape (the side its normals point away from).
    pub(super) interior: Option<Spanned<String>>,
    /// The medium outside the shape (default: vacuum).
    pub(super) exterior: Option<Spanned<String>>,
    /// Isosurfaces: the scalar volume (a grid as media take it), the isovalue and the
    /// brick size of its min-max tree (default 16 cells).
    pub(super) volume: Option<Spanned<medium_section::GridSpec>>,
    pub(super) isovalue: Option<Spanned<f32>>,
    pub(super) brick_cells: Option<Spanned<i64>>,
    /// Light fields: how many emissive triangles, in how many hues, from which seed, with
    /// edges between light_size[0] and light_size[1], at which saturation (1: pure hues, 0: white).
    pub(super) count: Option<Spanned<i64>>,
    pub(super) hues: Option<Spanned<i64>>,
    pub(super) seed: Option<Spanned<i64>>,
    pub(super) light_size: Option<Spanned<[f32; 2]>>,
    pub(super) saturation: Option<Spanned<f32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EnvironmentSection {
    #[serde(rename = "type")]
    pub(super) kind: Spanned<String>,
    pub(super) radiance: Option<Spanned<Triple>>,
    pub(super) file: Option<Spanned<String>>,
    pub(super) scale: Option<Spanned<f32>>,
    pub(super) rotate_y: Option<Spanned<f32>>,
}
