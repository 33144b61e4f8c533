//! What every table's reader of the TOML scene shares: the value types serde reads (a gray
//! or RGB [`Triple`], a row-major [`Matrix4`], an axis-angle [`Rotate`]), [`SourceText`] (byte
//! offsets to lines, located errors, relative file names), and the color and transform checks.

use crate::SceneError;
use glam::{Mat3, Mat4, Vec3};
use serde::Deserialize;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

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
pub(super) struct Rotate {
    pub(super) axis: [f32; 3],
    pub(super) angle: f32,
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
