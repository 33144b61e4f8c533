//! Image loading for textures and environment maps: every format becomes a [`Texture`]
//! of linear RGB `Vec3` pixels, top row first.
//!
//! - `.hdr` (Radiance RGBE) and 32-bit float images: stored values are linear already;
//! - `.exr`: the first layer with R, G, B channels (any common prefix, e.g. `diffuse.R`),
//!   or else the first with a luminance `Y` channel, is read at its largest resolution
//!   level. f16, f32 and u32 samples, scanline or tiled, and every compression the `exr`
//!   crate decodes (none, RLE, ZIP, ZIPS, PIZ, PXR24, B44, B44A, DWAA, DWAB) work;
//!   the pixels are those of the data window (the display window is ignored);
//! - `.png`, `.jpg`, `.jpeg`: 8- and 16-bit values are sRGB-decoded to linear, unless read
//!   raw ([`load_image_raw`], [`load_normal_texture`]: data, such as a normal map, whose
//!   stored values are used as they are, mapped to [0, 1]).
//!
//! Alpha is dropped, except by [`decode_alpha_bytes`] / [`load_alpha`], which return the alpha
//! channel alone (linear, as glTF's; opaque for images without one, EXR and HDR included),
//! as a grey texture (R = G = B = α). The size a header claims is checked with [`warpath_core::limits`]
//! before any pixel is allocated. Bad input (missing, truncated or corrupt files, unknown
//! formats, missing color channels, zero-sized or oversized images) is reported as a
//! [`SceneError`], never a panic. Pixel values are returned as stored;
//! [`repair_pixels`] clamps them for a use (a base color, an environment) and counts what
//! it changed, for a warning.

use crate::{SceneError, Texture};
use glam::Vec3;
use std::io::{BufRead, Cursor, Seek, SeekFrom};
use std::path::Path;
use warpath_core::color::srgb_to_linear;
use warpath_core::limits;

/// The image formats [`load_image`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    Exr,
    Hdr,
    Png,
    Jpeg,
}

impl ImageKind {
    /// The kind a file name's extension says, or `None`.
    pub fn from_path(path: &Path) -> Option<ImageKind> {
        let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase)?;
        Some(match extension.as_str() {
            "exr" => ImageKind::Exr,
            "hdr" => ImageKind::Hdr,
            "png" => ImageKind::Png,
            "jpg" | "jpeg" => ImageKind::Jpeg,
            _ => return None,
        })
    }

    /// The kind the first bytes of an image say (PNG, JPEG, EXR and Radiance signatures).
    pub fn from_magic(bytes: &[u8]) -> Option<ImageKind> {
        if bytes.starts_with(b"\x89PNG") {
            Some(ImageKind::Png)
        } else if bytes.starts_with(&[0xff, 0xd8]) {
            Some(ImageKind::Jpeg)
        } else if bytes.starts_with(&[0x76, 0x2f, 0x31, 0x01]) {
            Some(ImageKind::Exr)
        } else if bytes.starts_with(b"#?") {
            Some(ImageKind::Hdr)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            ImageKind::Exr => "EXR",
            ImageKind::Hdr => "HDR",
            ImageKind::Png => "PNG",
            ImageKind::Jpeg => "JPEG",
        }
    }
}

/// Bytes per pixel the loaders hold besides the decoder's own buffer: an RGB f32 copy and
/// the output `Vec3`s.
const OUTPUT_BYTES_PER_PIXEL: u64 = 24;

/// Loads an image file as linear RGB; the format is chosen by the file extension.
pub fn load_image(path: &Path) -> Result<Texture, SceneError> {
    load_image_as(path, false)
}

/// [`load_image`] without the sRGB decoding of 8- and 16-bit images (Mitsuba's `raw`
/// bitmaps, pbrt's linear encoding): their stored values mapped to [0, 1].
pub fn load_image_raw(path: &Path) -> Result<Texture, SceneError> {
    load_image_as(path, true)
}

/// The alpha channel of an image file as a grey texture (see the module doc).
pub fn load_alpha(path: &Path) -> Result<Texture, SceneError> {
    let Some(kind) = ImageKind::from_path(path) else {
        return Err(SceneError::Unsupported {
            path: path.to_path_buf(),
            expected: "an image: .exr, .hdr, .png, .jpg or .jpeg".into(),
        });
    };
    let file = std::fs::File::open(path).map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
    decode_image_mode(std::io::BufReader::new(file), kind, path, Decode::Alpha)
}

/// The alpha channel of an image held in memory as a grey texture (see the module doc).
pub fn decode_alpha_bytes(bytes: &[u8], kind: ImageKind, path: &Path) -> Result<Texture, SceneError> {
    decode_image_mode(Cursor::new(bytes), kind, path, Decode::Alpha)
}

/// What a decode returns: the colour (sRGB-decoded or raw) or the alpha channel.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Decode {
    Color,
    Raw,
    Alpha,
}

fn load_image_as(path: &Path, raw: bool) -> Result<Texture, SceneError> {
    let Some(kind) = ImageKind::from_path(path) else {
        return Err(SceneError::Unsupported {
            path: path.to_path_buf(),
            expected: "an image: .exr, .hdr, .png, .jpg or .jpeg".into(),
        });
    };
    // Open first so a missing or unreadable file is an I/O error with the OS's reason.
    let file = std::fs::File::open(path).map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
    decode_image(std::io::BufReader::new(file), kind, path, raw)
}

/// Decodes an image held in memory (`path` names it in errors and gives the texture name).
pub fn decode_image_bytes(bytes: &[u8], kind: ImageKind, path: &Path) -> Result<Texture, SceneError> {
    decode_image(Cursor::new(bytes), kind, path, false)
}

/// [`decode_image_bytes`] read raw (see [`load_image_raw`]).
pub fn decode_image_bytes_raw(bytes: &[u8], kind: ImageKind, path: &Path) -> Result<Texture, SceneError> {
    decode_image(Cursor::new(bytes), kind, path, true)
}

fn decode_image(reader: impl BufRead + Seek, kind: ImageKind, path: &Path, raw: bool) -> Result<Texture, SceneError> {
    decode_image_mode(reader, kind, path, if raw { Decode::Raw } else { Decode::Color })
}

fn decode_image_mode(
    reader: impl BufRead + Seek,
    kind: ImageKind,
    path: &Path,
    mode: Decode,
) -> Result<Texture, SceneError> {
    let (width, height, pixels) = match kind {
        ImageKind::Exr => {
            let (w, h, mut pixels) = load_exr(path, reader)?;
            if mode == Decode::Alpha {
                pixels.fill(Vec3::ONE);
            }
            (w, h, pixels)
        }
        _ => load_with_image_crate(path, reader, kind, mode)?,
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

fn limit_error(path: &Path, error: limits::LimitError) -> SceneError {
    invalid(path, error.to_string())
}

/// What [`repair_pixels`] changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PixelRepairs {
    /// Pixels with a NaN or infinite channel, set to black.
    pub nonfinite: usize,
    /// Pixels with a negative channel, clamped to 0.
    pub negative: usize,
    /// Pixels with a channel above the maximum, clamped to it.
    pub above_max: usize,
}

impl PixelRepairs {
    /// A warning naming `path` and what was changed (`role`: "environment map", ...), or
    /// `None` when nothing was.
    pub fn warning(&self, path: &Path, role: &str, max: Option<f32>) -> Option<String> {
        let mut parts = Vec::new();
        if self.nonfinite > 0 {
            parts.push(format!("{} pixel(s) with NaN or infinite values set to 0", self.nonfinite));
        }
        if self.negative > 0 {
            parts.push(format!("{} pixel(s) with negative values clamped to 0", self.negative));
        }
        if self.above_max > 0 {
            parts.push(format!("{} pixel(s) with values above {} clamped", self.above_max, max.unwrap_or(f32::MAX)));
        }
        (!parts.is_empty()).then(|| format!("{}: {role}: {}", path.display(), parts.join(", ")))
    }
}

/// Makes every pixel finite and in `[0, max]` (`[0, ∞)` without a max), counting the
/// pixels it changed.
pub fn repair_pixels(pixels: &mut [Vec3], max: Option<f32>) -> PixelRepairs {
    let mut repairs = PixelRepairs::default();
    for p in pixels {
        if !p.is_finite() {
            *p = Vec3::ZERO;
            repairs.nonfinite += 1;
            continue;
        }
        if p.min_element() < 0.0 {
            *p = p.max(Vec3::ZERO);
            repairs.negative += 1;
        }
        if let Some(max) = max
            && p.max_element() > max
        {
            *p = p.min(Vec3::splat(max));
            repairs.above_max += 1;
        }
    }
    repairs
}

/// Loads a texture for a material's base color (a reflectance: values in [0, 1]); returns
/// it with a warning when values had to be clamped.
pub fn load_base_color_texture(path: &Path) -> Result<(Texture, Option<String>), SceneError> {
    let mut texture = load_image(path)?;
    let repairs = repair_pixels(&mut texture.pixels, Some(1.0));
    Ok((texture, repairs.warning(path, "base color texture", Some(1.0))))
}

/// Loads a texture raw (see [`load_image_raw`]) for a value in [0, 1] (a base color, a
/// normal map's encoded normal); returns it with a warning when values had to be clamped.
pub fn load_raw_texture(path: &Path) -> Result<(Texture, Option<String>), SceneError> {
    let mut texture = load_image_raw(path)?;
    let repairs = repair_pixels(&mut texture.pixels, Some(1.0));
    Ok((texture, repairs.warning(path, "raw texture", Some(1.0))))
}

/// Loads a tangent-space normal map (raw: the stored values, not sRGB-decoded; each
/// texel's normal is `2c − 1`); returns it with a warning when non-finite values had to be
/// replaced by the flat normal's (0.5, 0.5, 1).
pub fn load_normal_texture(path: &Path) -> Result<(Texture, Option<String>), SceneError> {
    let mut texture = load_image_raw(path)?;
    let warning = repair_normal_texels(&mut texture, path);
    Ok((texture, warning))
}

/// Replaces a normal map's non-finite texels by the flat normal's; a warning when any were.
pub fn repair_normal_texels(texture: &mut Texture, path: &Path) -> Option<String> {
    let mut repaired = 0usize;
    for p in &mut texture.pixels {
        if !p.is_finite() {
            *p = Vec3::new(0.5, 0.5, 1.0);
            repaired += 1;
        }
    }
    (repaired > 0).then(|| {
        format!("{}: normal map: {repaired} non-finite pixels set to the flat normal (0.5, 0.5, 1)", path.display())
    })
}

/// Reads `.hdr`, `.png` and `.jpg` through the `image` crate, after checking the size its
/// header claims; 8- and 16-bit values are sRGB-decoded unless `raw`.
fn load_with_image_crate(
    path: &Path,
    reader: impl BufRead + Seek,
    kind: ImageKind,
    mode: Decode,
) -> Result<(u32, u32, Vec<Vec3>), SceneError> {
    use image::ImageDecoder;
    let format = match kind {
        ImageKind::Hdr => image::ImageFormat::Hdr,
        ImageKind::Png => image::ImageFormat::Png,
        _ => image::ImageFormat::Jpeg,
    };
    let mut reader = image::ImageReader::with_format(reader, format);
    // The size the header claims is checked here, against warpath's limits, not the
    // decoder's default 512 MiB.
    reader.no_limits();
    let decoder = reader.into_decoder().map_err(|e| image_error(path, kind, e))?;
    let (width, height) = decoder.dimensions();
    let bytes_per_pixel = decoder.color_type().bytes_per_pixel() as u64 + OUTPUT_BYTES_PER_PIXEL;
    limits::check_image(&format!("{} header", kind.name()), width as u64, height as u64, bytes_per_pixel)
        .map_err(|e| limit_error(path, e))?;
    let decoded = image::DynamicImage::from_decoder(decoder).map_err(|e| image_error(path, kind, e))?;
    if mode == Decode::Alpha {
        // `into_rgba32f` gives 1 where the image has no alpha; alpha is linear.
        let pixels = decoded.into_rgba32f().pixels().map(|p| Vec3::splat(p.0[3])).collect();
        return Ok((width, height, pixels));
    }
    let raw = mode == Decode::Raw;
    let is_float = matches!(decoded, image::DynamicImage::ImageRgb32F(_) | image::DynamicImage::ImageRgba32F(_));
    // `into_rgb32f` maps 8- and 16-bit integers to [0, 1] and leaves floats as they are.
    let rgb = decoded.into_rgb32f();
    let pixels = rgb
        .pixels()
        .map(|p| {
            let c = Vec3::new(p.0[0], p.0[1], p.0[2]);
            if is_float || raw { c } else { Vec3::new(srgb_to_linear(c.x), srgb_to_linear(c.y), srgb_to_linear(c.z)) }
        })
        .collect();
    Ok((width, height, pixels))
}

fn image_error(path: &Path, kind: ImageKind, error: image::ImageError) -> SceneError {
    let kind = kind.name();
    match error {
        image::ImageError::IoError(source) if source.kind() == std::io::ErrorKind::UnexpectedEof => {
            invalid(path, format!("{kind} file is truncated ({source})"))
        }
        image::ImageError::IoError(source) => SceneError::Io { path: path.to_path_buf(), source },
        image::ImageError::Unsupported(e) => {
            invalid(path, format!("unsupported {kind} variant: {}", tidy(&e.to_string())))
        }
        other => invalid(path, format!("not a valid {kind} file: {}", tidy(&other.to_string()))),
    }
}

/// Decoder messages with a Rust debug dump of a PNG chunk type (`ChunkType { type: IHDR,
/// critical: true, ... }`) read as the chunk's name (`IHDR`).
fn tidy(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find("ChunkType {") {
        out.push_str(&rest[..start]);
        let dump = &rest[start..];
        let end = dump.find('}').map(|e| e + 1).unwrap_or(dump.len());
        let name = dump[..end]
            .split_once("type:")
            .map(|(_, after)| after.split(',').next().unwrap_or("").trim().trim_end_matches('}').trim())
            .unwrap_or("?");
        out.push_str(&format!("chunk {name}"));
        rest = &dump[end..];
    }
    out.push_str(rest);
    out.replace("chunk chunk", "chunk").replace("chunk chunk", "chunk")
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

/// Checks the sizes an EXR header claims before the pixels are read: every layer's data
/// window against the image limits, and all their samples together (plus our RGB output)
/// against the memory the process can get. Returns whether the image is large enough to
/// decode on several threads.
fn check_exr_header(path: &Path, reader: &mut (impl BufRead + Seek)) -> Result<bool, SceneError> {
    let meta = exr::meta::MetaData::read_from_buffered(&mut *reader, false).map_err(|e| exr_error(path, e))?;
    reader.seek(SeekFrom::Start(0)).map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
    let mut total_bytes = 0u64;
    let mut largest_layer = 0u64;
    for (index, header) in meta.headers.iter().enumerate() {
        let (width, height) = (header.layer_size.width() as u64, header.layer_size.height() as u64);
        let sample_bytes: u64 = header.channels.list.iter().map(|c| c.sample_type.bytes_per_sample() as u64).sum();
        let what = if meta.headers.len() == 1 {
            "EXR data window".to_string()
        } else {
            format!("EXR layer {index}'s data window")
        };
        limits::check_image(&what, width, height, sample_bytes + OUTPUT_BYTES_PER_PIXEL)
            .map_err(|e| limit_error(path, e))?;
        // The decoder holds a block (a tile, or a group of scanlines) compressed and not.
        let block = header.max_block_pixel_size();
        limits::check_image("EXR block (tile) size", block.width() as u64, block.height() as u64, 2 * sample_bytes)
            .map_err(|e| limit_error(path, e))?;
        total_bytes = total_bytes.saturating_add(width * height * sample_bytes);
        largest_layer = largest_layer.max(width * height);
    }
    let output_bytes = largest_layer * OUTPUT_BYTES_PER_PIXEL;
    limits::check_bytes("the EXR file's pixels", total_bytes.saturating_add(output_bytes))
        .map_err(|e| limit_error(path, e))?;
    if meta.headers.iter().any(|h| matches!(h.blocks, exr::meta::BlockDescription::Tiles(_))) {
        check_exr_tile_levels(path, reader)?;
    }
    Ok(largest_layer >= 1 << 20)
}

/// A tile of a tiled EXR names its resolution level; the exr crate trusts that level (it
/// asserts on one its header does not have), so every tile's level is checked first. This
/// reads the compressed tiles once, without decoding them.
fn check_exr_tile_levels(path: &Path, reader: &mut (impl BufRead + Seek)) -> Result<(), SceneError> {
    use exr::block::chunk::CompressedBlock;
    use exr::meta::BlockDescription;
    use exr::meta::attribute::LevelMode;
    let blocks = exr::block::read(&mut *reader, false).map_err(|e| exr_error(path, e))?;
    let headers = blocks.headers().to_vec();
    for chunk in blocks.all_chunks(false).map_err(|e| exr_error(path, e))? {
        let chunk = chunk.map_err(|e| exr_error(path, e))?;
        let CompressedBlock::Tile(tile) = &chunk.compressed_block else { continue };
        let Some(header) = headers.get(chunk.layer_index) else { continue };
        let BlockDescription::Tiles(tiles) = header.blocks else { continue };
        let (level, size) = (tile.coordinates.level_index, header.layer_size);
        let levels = |full: usize| exr::meta::compute_level_count(tiles.rounding_mode, full);
        let valid = match tiles.level_mode {
            LevelMode::Singular => level.x() == 0 && level.y() == 0,
            LevelMode::MipMap => level.x() == level.y() && level.x() < levels(size.width().max(size.height())),
            LevelMode::RipMap => level.x() < levels(size.width()) && level.y() < levels(size.height()),
        };
        if !valid {
            return Err(invalid(
                path,
                format!(
                    "corrupt EXR file: a tile names resolution level ({}, {}), which its header does not have",
                    level.x(),
                    level.y()
                ),
            ));
        }
    }
    reader.seek(SeekFrom::Start(0)).map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
    Ok(())
}

/// Reads the first RGB (or else luminance) layer of an EXR file.
fn load_exr(path: &Path, mut reader: impl BufRead + Seek) -> Result<(u32, u32, Vec<Vec3>), SceneError> {
    use exr::prelude::*;
    let parallel = check_exr_header(path, &mut reader)?;
    let read = read().no_deep_data().largest_resolution_level().all_channels().all_layers().all_attributes();
    // Small images decode faster on this thread than by starting a thread pool.
    let read = if parallel { read } else { read.non_parallel() };
    let image = read.from_buffered(reader).map_err(|e| exr_error(path, e))?;

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
