//! Writing an image, the one way every front end does it (the CLI's render, merge and sequence
//! outputs, Python's `warpath.write`): `.exr` as linear float RGB (written in one thread, so the
//! same image always gives the same bytes) with optional header attributes, `.png` as sRGB
//! scaled by 2^exposure and clamped. The file is written to a temporary name beside the target
//! and renamed, so an interrupted write never leaves a truncated image where a good one was.

use crate::error::{Error, Result};
use glam::Vec3;
use std::path::{Path, PathBuf};
use warpath_core::color::linear_to_srgb;

/// An EXR header attribute: `(name, value)`.
pub type ExrAttribute = (exr::meta::attribute::Text, exr::meta::attribute::AttributeValue);

/// The lower-case extension of `path` ("" when it has none).
pub fn extension(path: &Path) -> String {
    path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).unwrap_or_default()
}

/// The temporary name an image is written to before it is renamed into place.
pub fn temporary_path(path: &Path) -> PathBuf {
    path.with_extension(format!("tmp.{}", extension(path)))
}

/// Writes `pixels` (row-major, top row first, linear RGB) as `path`: `.exr` with `attributes`
/// in its header, or `.png` scaled by 2^`exposure_stops`. The folder is created when missing.
pub fn write_image(
    path: &Path,
    width: u32,
    height: u32,
    pixels: &[Vec3],
    exposure_stops: f32,
    attributes: Vec<ExrAttribute>,
) -> Result<()> {
    let failed = |what: String| Error::invalid(format!("cannot write {}: {what}", path.display()));
    if pixels.len() != width as usize * height as usize {
        return Err(failed(format!("{} pixels for a {width}x{height} image", pixels.len())));
    }
    let ext = extension(path);
    if ext != "exr" && ext != "png" {
        return Err(Error::invalid(format!(
            "{}: unsupported output format '.{ext}' (use .exr or .png)",
            path.display()
        )));
    }
    let tmp = temporary_path(path);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| failed(format!("cannot create its folder {}: {e}", dir.display())))?;
    }
    if ext == "exr" {
        use exr::prelude::*;
        let w = width as usize;
        let channels = SpecificChannels::rgb(|pos: Vec2<usize>| {
            let p = pixels[pos.y() * w + pos.x()];
            (p.x, p.y, p.z)
        });
        let mut image = Image::from_channels((w, height as usize), channels);
        image.attributes.other.extend(attributes);
        image.write().non_parallel().to_file(&tmp).map_err(|e| failed(e.to_string()))?;
    } else {
        let scale = 2f32.powf(exposure_stops);
        let mut bytes = Vec::with_capacity(pixels.len() * 3);
        for p in pixels {
            for c in [p.x, p.y, p.z] {
                let v = linear_to_srgb((c * scale).clamp(0.0, 1.0));
                bytes.push((v * 255.0 + 0.5) as u8);
            }
        }
        image::save_buffer(&tmp, &bytes, width, height, image::ColorType::Rgb8).map_err(|e| failed(e.to_string()))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| failed(format!("cannot move {} into place: {e}", tmp.display())))
}
