//! `warpath.write` and `warpath.read`. The writer is the CLI's (`warpath_render::image_file`)
//! without the render metadata: `.exr` linear float RGB written in one thread (the same image
//! gives the same bytes), `.png` sRGB scaled by 2^exposure and clamped; both through a
//! temporary file beside the target, renamed into place.

use crate::arrays::{image_array, pixels_from_array};
use crate::{scene_error, value_error, warpath_error};
use glam::Vec3;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use warpath_render::image_file::extension;

/// The CLI's image writer (`warpath_render::image_file`), without the CLI's render metadata.
pub fn write_image(path: &Path, width: u32, height: u32, pixels: &[Vec3], exposure_stops: f32) -> Result<(), String> {
    warpath_render::image_file::write_image(path, width, height, pixels, exposure_stops, Vec::new())
        .map_err(|e| e.to_string())
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
