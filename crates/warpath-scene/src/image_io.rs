//! Image loading for textures and environment maps: every format becomes a [`Texture`]
//! of linear RGB `Vec3` pixels, top row first.
//!
//! - `.hdr` (Radiance RGBE) and 32-bit float images: stored values are linear already;
//! - `.exr`: the first layer with R, G, B channels (any common prefix, e.g. `diffuse.R`),
//!   or else the first with a luminance `Y` channel, is read at its largest resolution
//!   level. f16, f32 and u32 samples, scanline or tiled, and every compression the `exr`
//!   crate decodes (none, RLE, ZIP, ZIPS, PIZ, PXR24, B44, B44A, DWAA, DWAB) work;
//!   the pixels are those of the data window (the display window is ignored);
//! - `.png`, `.jpg`, `.jpeg`: 8- and 16-bit values are sRGB-decoded to linear.
//!
//! Alpha is dropped. Bad input (missing, truncated or corrupt files, unknown formats,
//! missing color channels, zero-sized images) is reported as a [`SceneError`], never a
//! panic.

use crate::{SceneError, Texture};
use glam::Vec3;
use std::path::Path;
use warpath_core::color::srgb_to_linear;

/// Loads an image file as linear RGB; the format is chosen by the file extension.
pub fn load_image(path: &Path) -> Result<Texture, SceneError> {
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    let format = match extension.as_str() {
        "exr" => None,
        "hdr" => Some(image::ImageFormat::Hdr),
        "png" => Some(image::ImageFormat::Png),
        "jpg" | "jpeg" => Some(image::ImageFormat::Jpeg),
        _ => {
            return Err(SceneError::Unsupported {
                path: path.to_path_buf(),
                expected: "an image: .exr, .hdr, .png, .jpg or .jpeg".into(),
            });
        }
    };
    // Open first so a missing or unreadable file is an I/O error with the OS's reason.
    let file = std::fs::File::open(path).map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
    let (width, height, pixels) = match format {
        None => load_exr(path, file)?,
        Some(format) => load_with_image_crate(path, file, format)?,
    };
    if width == 0 || height == 0 {
        return Err(invalid(path, format!("image has zero size ({width}×{height})")));
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(Texture { name, width, height, pixels })
}

fn invalid(path: &Path, message: impl Into<String>) -> SceneError {
    SceneError::Invalid { path: path.to_path_buf(), message: message.into() }
}

/// Reads `.hdr`, `.png` and `.jpg` through the `image` crate.
fn load_with_image_crate(
    path: &Path,
    file: std::fs::File,
    format: image::ImageFormat,
) -> Result<(u32, u32, Vec<Vec3>), SceneError> {
    let reader = image::ImageReader::with_format(std::io::BufReader::new(file), format);
    let decoded = reader.decode().map_err(|e| image_error(path, format, e))?;
    let (width, height) = (decoded.width(), decoded.height());
    let is_float = matches!(decoded, image::DynamicImage::ImageRgb32F(_) | image::DynamicImage::ImageRgba32F(_));
    // `into_rgb32f` maps 8- and 16-bit integers to [0, 1] and leaves floats as they are.
    let rgb = decoded.into_rgb32f();
    let pixels = rgb
        .pixels()
        .map(|p| {
            let c = Vec3::new(p.0[0], p.0[1], p.0[2]);
            if is_float { c } else { Vec3::new(srgb_to_linear(c.x), srgb_to_linear(c.y), srgb_to_linear(c.z)) }
        })
        .collect();
    Ok((width, height, pixels))
}

fn image_error(path: &Path, format: image::ImageFormat, error: image::ImageError) -> SceneError {
    let kind = format!("{format:?}").to_ascii_uppercase();
    match error {
        image::ImageError::IoError(source) if source.kind() == std::io::ErrorKind::UnexpectedEof => {
            invalid(path, format!("{kind} file is truncated ({source})"))
        }
        image::ImageError::IoError(source) => SceneError::Io { path: path.to_path_buf(), source },
        image::ImageError::Unsupported(e) => invalid(path, format!("unsupported {kind} variant: {e}")),
        other => invalid(path, format!("not a valid {kind} file: {other}")),
    }
}

fn exr_error(path: &Path, error: exr::error::Error) -> SceneError {
    match error {
        exr::error::Error::Io(source) if source.kind() == std::io::ErrorKind::UnexpectedEof => {
            invalid(path, format!("EXR file is truncated ({source})"))
        }
        exr::error::Error::Io(source) => SceneError::Io { path: path.to_path_buf(), source },
        exr::error::Error::NotSupported(what) => invalid(path, format!("unsupported EXR feature: {what}")),
        exr::error::Error::Invalid(what) => invalid(path, format!("corrupt or invalid EXR file: {what}")),
        exr::error::Error::Aborted => invalid(path, "EXR decoding was aborted"),
    }
}

/// The part of an EXR channel name after its last '.', the layer prefix before it.
fn split_channel_name(name: &str) -> (&str, &str) {
    match name.rfind('.') {
        Some(dot) => (&name[..dot], &name[dot + 1..]),
        None => ("", name),
    }
}

/// Reads the first RGB (or else luminance) layer of an EXR file.
fn load_exr(path: &Path, file: std::fs::File) -> Result<(u32, u32, Vec<Vec3>), SceneError> {
    use exr::prelude::*;
    let image = read()
        .no_deep_data()
        .largest_resolution_level()
        .all_channels()
        .all_layers()
        .all_attributes()
        .from_buffered(std::io::BufReader::new(file))
        .map_err(|e| exr_error(path, e))?;

    let mut found_channels = Vec::new();
    // Pass 1: a layer with R, G, B sharing a prefix; pass 2: a layer with Y.
    for want_rgb in [true, false] {
        for layer in &image.layer_data {
            let channels = &layer.channel_data.list;
            let find = |prefix: &str, suffixes: &[&str]| {
                channels.iter().position(|c| {
                    let name = c.name.to_string();
                    let (p, s) = split_channel_name(&name);
                    p == prefix && suffixes.iter().any(|w| s.eq_ignore_ascii_case(w))
                })
            };
            let mut prefixes: Vec<String> =
                channels.iter().map(|c| split_channel_name(&c.name.to_string()).0.to_string()).collect();
            prefixes.dedup();
            for prefix in &prefixes {
                let indices = if want_rgb {
                    match (find(prefix, &["R", "red"]), find(prefix, &["G", "green"]), find(prefix, &["B", "blue"])) {
                        (Some(r), Some(g), Some(b)) => [r, g, b],
                        _ => continue,
                    }
                } else {
                    match find(prefix, &["Y"]) {
                        Some(y) => [y, y, y],
                        None => continue,
                    }
                };
                let (width, height) = (layer.size.width(), layer.size.height());
                let count = width * height;
                let mut planes = Vec::with_capacity(3);
                for &i in &indices {
                    let channel = &channels[i];
                    if channel.sampling != Vec2(1, 1) || channel.sample_data.len() != count {
                        return Err(invalid(
                            path,
                            format!("EXR channel {} is subsampled, which is not supported", channel.name),
                        ));
                    }
                    planes.push(&channel.sample_data);
                }
                let pixels = (0..count)
                    .map(|i| {
                        Vec3::new(
                            planes[0].value_by_flat_index(i).to_f32(),
                            planes[1].value_by_flat_index(i).to_f32(),
                            planes[2].value_by_flat_index(i).to_f32(),
                        )
                    })
                    .collect();
                let (width, height) = (
                    u32::try_from(width).map_err(|_| invalid(path, "EXR image too wide"))?,
                    u32::try_from(height).map_err(|_| invalid(path, "EXR image too tall"))?,
                );
                return Ok((width, height, pixels));
            }
        }
        if want_rgb {
            found_channels =
                image.layer_data.iter().flat_map(|l| l.channel_data.list.iter().map(|c| c.name.to_string())).collect();
        }
    }
    Err(invalid(
        path,
        format!("EXR file has no layer with R, G, B or Y channels (channels: {})", found_channels.join(", ")),
    ))
}
