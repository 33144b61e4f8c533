//! `warpath.write` and `warpath.read`. The writer is the CLI's `output::write_image`
//! (crates/warpath-cli/src/output.rs) without the render metadata: `.exr` linear float RGB
//! written in one thread (the same image gives the same bytes), `.png` sRGB scaled by
//! 2^exposure and clamped; both through a temporary file beside the target, renamed into
//! place. The CLI's writer lives in a binary crate, so these few lines are a copy; moving
//! it into a library (warpath-render) would let both share it.

use crate::arrays::{image_array, pixels_from_array};
use crate::{scene_error, value_error, warpath_error};
use glam::Vec3;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use warpath_core::color::linear_to_srgb;

fn extension(path: &Path) -> String {
    path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).unwrap_or_default()
}

/// Writes `pixels` (row-major, top row first) to `path` as the CLI does.
pub fn write_image(path: &Path, width: u32, height: u32, pixels: &[Vec3], exposure_stops: f32) -> Result<(), String> {
    let ext = extension(path);
    if ext != "exr" && ext != "png" {
        return Err(format!("{}: unsupported output format '.{ext}' (use .exr or .png)", path.display()));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot write {}: cannot create its folder {}: {e}", path.display(), dir.display()))?;
    }
    let tmp = path.with_extension(format!("tmp.{ext}"));
    if ext == "exr" {
        use exr::prelude::*;
        let w = width as usize;
        let channels = SpecificChannels::rgb(|pos: Vec2<usize>| {
            let p = pixels[pos.y() * w + pos.x()];
            (p.x, p.y, p.z)
        });
        let image = Image::from_channels((w, height as usize), channels);
        image.write().non_parallel().to_file(&tmp).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    } else {
        let scale = 2f32.powf(exposure_stops);
        let mut bytes = Vec::with_capacity(pixels.len() * 3);
        for p in pixels {
            for c in [p.x, p.y, p.z] {
                let v = linear_to_srgb((c * scale).clamp(0.0, 1.0));
                bytes.push((v * 255.0 + 0.5) as u8);
            }
        }
        image::save_buffer(&tmp, &bytes, width, height, image::ColorType::Rgb8)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot move {} to {}: {e}", tmp.display(), path.display()))
}

/// Writes an image array `(H, W, 3)` (linear RGB) to `path`: `.exr` as linear float RGB,
/// `.png` as sRGB scaled by `2**exposure` and clamped — the CLI's writer.
///
/// >>> warpath.write("cornell.exr", warpath.render(warpath.load("cornell"), spp=16))
#[pyfunction]
#[pyo3(signature = (path, image, exposure=0.0))]
fn write(py: Python<'_>, path: PathBuf, image: &Bound<'_, PyAny>, exposure: f32) -> PyResult<()> {
    if !exposure.is_finite() {
        return Err(value_error(format!("exposure {exposure} is not finite")));
    }
    let ext = extension(&path);
    if ext != "exr" && ext != "png" {
        return Err(value_error(format!("{}: unsupported output format (use .exr or .png)", path.display())));
    }
    let (width, height, pixels) = pixels_from_array(image)?;
    py.allow_threads(|| write_image(&path, width, height, &pixels, exposure)).map_err(warpath_error)
}

/// Reads an image (`.exr`, `.hdr`, `.png`, `.jpg`) as a `float32` array `(H, W, 3)`, linear
/// (8-bit images are sRGB-decoded), with warpath's image loader (the one textures use).
#[pyfunction]
fn read<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyAny>> {
    if !path.is_file() {
        return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!("{}: no such file", path.display())));
    }
    let texture = py.allow_threads(|| warpath_scene::image_io::load_image(&path)).map_err(|e| scene_error(&e))?;
    image_array(py, texture.width, texture.height, &texture.pixels)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(write, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    Ok(())
}
