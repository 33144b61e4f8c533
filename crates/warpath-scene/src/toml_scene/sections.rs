//! The TOML scene file as serde reads it — one struct per table (`[render]`, `[camera]`,
//! `[[material]]`, `[[shape]]`, `[environment]`; `[[medium]]` is in `medium_section`), every
//! value `Spanned` so that errors can name its line — and what every table's reader shares:
//! [`SourceText`] (byte offsets to lines, located errors, relative file names), the color and
//! transform checks.

use super::medium_section;
use crate::SceneError;
use glam::{Mat3, Mat4, Vec3};
use serde::Deserialize;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;
use warpath_core::camera::FovAxis;

/// A number (gray) or an `[r, g, b]` / `[x, y, z]` triple.
#[derive(Clone, Copy, Debug)]
pub(super) struct Triple(pub(super) Vec3);

impl<'de> Deserialize<'de> for Triple {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TripleVisitor;
        impl<'de> serde::de::Visitor<'de> for TripleVisitor {
            type Value = Triple;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or an array of three numbers")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Triple, E> {
                Ok(Triple(Vec3::splat(v as f32)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Triple, E> {
                Ok(Triple(Vec3::splat(v as f32)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Triple, E> {
                Ok(Triple(Vec3::splat(v as f32)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Triple, A::Error> {
                let mut values = Vec::new();
                while let Some(v) = seq.next_element::<f64>()? {
                    values.push(v as f32);
                }
                if values.len() != 3 {
                    return Err(serde::de::Error::invalid_length(values.len(), &self));
                }
                Ok(Triple(Vec3::new(values[0], values[1], values[2])))
            }
        }
        deserializer.deserialize_any(TripleVisitor)
    }
}

pub(super) type Matrix4 = [[f32; 4]; 4];

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
    pub(super) emission: Option<Spanned<Triple>>,
    pub(super) two_sided_emission: Option<bool>,
    pub(super) one_sided: Option<Spanned<bool>>,
    pub(super) base_color_texture: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Rotate {
    pub(super) axis: [f32; 3],
    pub(super) angle: f32,
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

/// Maps byte offsets of the scene text to 1-based lines and builds located errors.
pub(super) struct SourceText<'a> {
    pub(super) path: &'a Path,
    pub(super) text: &'a str,
}

impl SourceText<'_> {
    pub(super) fn line_of(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
    }
    pub(super) fn error_at(&self, span: Range<usize>, message: impl Into<String>) -> SceneError {
        SceneError::Parse { path: self.path.to_path_buf(), line: self.line_of(span.start), message: message.into() }
    }
    pub(super) fn resolve(&self, file: &str) -> PathBuf {
        let p = Path::new(file);
        if p.is_absolute() { p.to_path_buf() } else { self.path.parent().unwrap_or(Path::new("")).join(p) }
    }
}

/// A syntax or type error from toml, at the line of its byte span.
pub(super) fn toml_error(path: &Path, text: &str, error: toml::de::Error) -> SceneError {
    let source = SourceText { path, text };
    let line = error.span().map(|s| source.line_of(s.start)).unwrap_or(1);
    SceneError::Parse { path: path.to_path_buf(), line, message: error.message().trim().to_string() }
}

/// A finite, non-negative color (and ≤ `max` per channel where given).
pub(super) fn check_color(
    source: &SourceText,
    value: &Spanned<Triple>,
    key: &str,
    max: Option<f32>,
) -> Result<Vec3, SceneError> {
    let c = value.get_ref().0;
    if !c.is_finite() || c.min_element() < 0.0 {
        return Err(source.error_at(value.span(), format!("{key} must be finite and non-negative, got {c}")));
    }
    if let Some(max) = max
        && c.max_element() > max
    {
        return Err(source.error_at(value.span(), format!("{key} must be at most {max} per channel, got {c}")));
    }
    Ok(c)
}

/// A 4×4 transform written as rows (as in the file) into glam's column-major matrix.
pub(super) fn matrix_from_rows(rows: &Matrix4) -> Mat4 {
    Mat4::from_cols_array_2d(rows).transpose()
}

/// An error at `span` unless `matrix` is a finite, invertible affine transform.
pub(super) fn check_transform(source: &SourceText, span: Range<usize>, matrix: Mat4) -> Result<(), SceneError> {
    let det = Mat3::from_mat4(matrix).determinant();
    if !matrix.is_finite() || !det.is_finite() || det.abs() < 1e-12 {
        return Err(source.error_at(span, "the transform is singular or not finite"));
    }
    let last_row = matrix.row(3);
    if last_row != glam::Vec4::new(0.0, 0.0, 0.0, 1.0) {
        return Err(source.error_at(span, "the last row of a 4x4 transform must be [0, 0, 0, 1]"));
    }
    Ok(())
}
