//! Writing images: linear float EXR, or tone-mapped sRGB PNG. Files are written to a
//! temporary name beside the target and renamed, so an interrupted write never leaves
//! a truncated image where a good one was.

use anyhow::{Context, Result, bail};
use glam::Vec3;
use std::path::Path;
use warpath_core::color::linear_to_srgb;

pub fn write_image(path: &Path, width: u32, height: u32, pixels: &[Vec3], exposure_stops: f32) -> Result<()> {
    let ext = path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).unwrap_or_default();
    let tmp = path.with_extension(format!("tmp.{ext}"));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create folder {}", dir.display()))?;
    }
    match ext.as_str() {
        "exr" => {
            use exr::prelude::*;
            let w = width as usize;
            let channels = SpecificChannels::rgb(|pos: Vec2<usize>| {
                let p = pixels[pos.y() * w + pos.x()];
                (p.x, p.y, p.z)
            });
            // Written in one thread so the same image always gives the same bytes.
            Image::from_channels((w, height as usize), channels)
                .write()
                .non_parallel()
                .to_file(&tmp)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        "png" => {
            let scale = 2f32.powf(exposure_stops);
            let mut bytes = Vec::with_capacity(pixels.len() * 3);
            for p in pixels {
                for c in [p.x, p.y, p.z] {
                    let v = linear_to_srgb((c * scale).clamp(0.0, 1.0));
                    bytes.push((v * 255.0 + 0.5) as u8);
                }
            }
            image::save_buffer(&tmp, &bytes, width, height, image::ColorType::Rgb8)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        _ => bail!("{}: unsupported output format '.{ext}' (use .exr or .png)", path.display()),
    }
    std::fs::rename(&tmp, path).with_context(|| format!("cannot move {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// Reads a linear RGB EXR (for tests and comparisons).
#[allow(dead_code)]
pub fn read_exr(path: &Path) -> Result<(u32, u32, Vec<Vec3>)> {
    use exr::prelude::*;
    let image = read_first_rgba_layer_from_file(
        path,
        |res, _| (res.width(), vec![Vec3::ZERO; res.width() * res.height()]),
        |(w, px), pos, (r, g, b, _a): (f32, f32, f32, f32)| px[pos.y() * *w + pos.x()] = Vec3::new(r, g, b),
    )
    .with_context(|| format!("cannot read {}", path.display()))?;
    let size = image.layer_data.size;
    Ok((size.width() as u32, size.height() as u32, image.layer_data.channel_data.pixels.1))
}
