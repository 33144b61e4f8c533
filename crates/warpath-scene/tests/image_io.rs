//! Image loading tests: round trips of small EXR (f16/f32, several compressions, layer
//! prefixes, luminance-only), HDR and PNG/JPEG files written here; DWAA/DWAB files
//! written by the reference OpenEXR library against its own decode (tests/data); errors,
//! not panics, for missing, truncated, corrupt and unsupported files. Set
//! `WARPATH_DWA_REFERENCE_DIR` to a folder of `name.exr` + `name.f32` pairs (made by
//! `tests/data/dwa_reference.py`) to compare the Blender studio-light maps too.

use exr::prelude::*;
use glam::Vec3;
use std::path::{Path, PathBuf};
use warpath_core::color::srgb_to_linear;
use warpath_scene::SceneError;
use warpath_scene::image_io::load_image;

fn test_pattern(width: usize, height: usize) -> Vec<Vec3> {
    let mut pixels = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            pixels.push(Vec3::new(x as f32 * 0.25, y as f32 * 1.5 + 0.125, ((x * 7 + y * 3) % 11) as f32 * 37.0));
        }
    }
    pixels
}

fn write_exr(path: &Path, width: usize, height: usize, channels: Vec<(&str, FlatSamples)>, compression: Compression) {
    let list: SmallVec<[AnyChannel<FlatSamples>; 4]> =
        channels.into_iter().map(|(name, samples)| AnyChannel::new(name, samples)).collect();
    let encoding = Encoding { compression, ..Encoding::default() };
    let layer = Layer::new((width, height), LayerAttributes::named(""), encoding, AnyChannels::sort(list));
    Image::from_layer(layer).write().to_file(path).expect("write test EXR");
}

fn plane(pixels: &[Vec3], channel: usize) -> Vec<f32> {
    pixels.iter().map(|p| p[channel]).collect()
}

#[test]
fn exr_round_trips_f32_and_f16_with_several_compressions() {
    let dir = tempfile::tempdir().unwrap();
    let (width, height) = (13, 9);
    let pixels = test_pattern(width, height);
    for compression in [Compression::Uncompressed, Compression::RLE, Compression::ZIP16, Compression::PIZ] {
        let path = dir.path().join("f32.exr");
        let channels = vec![
            ("R", FlatSamples::F32(plane(&pixels, 0))),
            ("G", FlatSamples::F32(plane(&pixels, 1))),
            ("B", FlatSamples::F32(plane(&pixels, 2))),
        ];
        write_exr(&path, width, height, channels, compression);
        let texture = load_image(&path).unwrap();
        assert_eq!((texture.width, texture.height), (width as u32, height as u32));
        assert_eq!(texture.pixels, pixels, "{compression:?}");
        assert_eq!(texture.name, "f32.exr");

        // f16 with alpha: values above are exactly representable in f16.
        let path = dir.path().join("f16.exr");
        let half_plane = |c: usize| FlatSamples::F16(pixels.iter().map(|p| f16::from_f32(p[c])).collect());
        let alpha = FlatSamples::F16(vec![f16::from_f32(0.5); width * height]);
        write_exr(
            &path,
            width,
            height,
            vec![("R", half_plane(0)), ("G", half_plane(1)), ("B", half_plane(2)), ("A", alpha)],
            compression,
        );
        assert_eq!(load_image(&path).unwrap().pixels, pixels, "{compression:?} f16");
    }
}

#[test]
fn exr_picks_prefixed_rgb_layers_and_luminance() {
    let dir = tempfile::tempdir().unwrap();
    let (width, height) = (5, 4);
    let pixels = test_pattern(width, height);
    let path = dir.path().join("prefixed.exr");
    let channels = vec![
        ("depth.Z", FlatSamples::F32(vec![9.0; width * height])),
        ("diffuse.R", FlatSamples::F32(plane(&pixels, 0))),
        ("diffuse.G", FlatSamples::F32(plane(&pixels, 1))),
        ("diffuse.B", FlatSamples::F32(plane(&pixels, 2))),
    ];
    write_exr(&path, width, height, channels, Compression::ZIP1);
    assert_eq!(load_image(&path).unwrap().pixels, pixels);

    let path = dir.path().join("gray.exr");
    write_exr(&path, width, height, vec![("Y", FlatSamples::F32(plane(&pixels, 1)))], Compression::ZIP1);
    let gray = load_image(&path).unwrap();
    assert!(gray.pixels.iter().zip(&pixels).all(|(g, p)| *g == Vec3::splat(p.y)));

    let path = dir.path().join("depth_only.exr");
    write_exr(&path, width, height, vec![("Z", FlatSamples::F32(vec![1.0; width * height]))], Compression::ZIP1);
    match load_image(&path) {
        Err(SceneError::Invalid { message, .. }) => assert!(message.contains("no layer with R, G, B"), "{message}"),
        other => panic!("expected an error for an EXR without color, got {other:?}"),
    }
}

/// Reads a raw little-endian f32 RGB file.
fn read_f32(path: &Path) -> Vec<Vec3> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let floats: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    floats.chunks_exact(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect()
}

/// Largest difference from the reference decode, relative to max(1, |reference|).
fn max_relative_difference(decoded: &[Vec3], reference: &[Vec3]) -> f32 {
    decoded
        .iter()
        .zip(reference)
        .map(|(d, r)| ((*d - *r).abs() / r.abs().max(Vec3::ONE)).max_element())
        .fold(0.0, f32::max)
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

#[test]
fn dwaa_and_dwab_match_the_reference_decoder() {
    // Files written by OpenEXR 3.5 (Python bindings) with DWAA/DWAB; 37×21 so blocks are
    // partial at the right and bottom edges; half and float RGB, and RGB + alpha.
    for name in ["dwab_half", "dwaa_half_alpha", "dwab_float"] {
        let texture = load_image(&data_dir().join(format!("{name}.exr"))).unwrap();
        assert_eq!((texture.width, texture.height), (37, 21), "{name}");
        let reference = read_f32(&data_dir().join(format!("{name}.reference.f32")));
        assert_eq!(reference.len(), texture.pixels.len());
        let difference = max_relative_difference(&texture.pixels, &reference);
        // Both decoders invert the same lossy DCT; only float rounding may differ (≤ 1 half ulp).
        assert!(difference <= 1e-3, "{name}: decoded pixels differ from OpenEXR's by {difference}");
        // The highlight survived (the image is HDR, not clamped).
        assert!(texture.pixels[6 * 37 + 11].z > 100.0, "{name}");
    }
}

#[test]
fn blender_studio_lights_match_reference_decodes() {
    let Ok(dir) = std::env::var("WARPATH_DWA_REFERENCE_DIR") else {
        eprintln!("skipped: set WARPATH_DWA_REFERENCE_DIR to compare real DWAB files with reference decodes");
        return;
    };
    let mut compared = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "exr") {
            let texture = load_image(&path).unwrap_or_else(|e| panic!("{e}"));
            let reference = read_f32(&path.with_extension("f32"));
            assert_eq!(reference.len(), texture.pixels.len(), "{}", path.display());
            let difference = max_relative_difference(&texture.pixels, &reference);
            let mean = texture.pixels.iter().copied().sum::<Vec3>() / texture.pixels.len() as f32;
            let nonfinite = texture.pixels.iter().filter(|p| !p.is_finite()).count();
            eprintln!(
                "{}: {}×{} mean {mean:.4} non-finite {nonfinite} max relative difference {difference:.2e}",
                path.file_name().unwrap().to_string_lossy(),
                texture.width,
                texture.height
            );
            assert!(nonfinite == 0 && difference <= 1e-3, "{}", path.display());
            compared += 1;
        }
    }
    assert!(compared > 0, "no .exr files in {dir}");
}

#[test]
fn hdr_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let (width, height) = (7u32, 5u32);
    let pixels: Vec<Vec3> =
        test_pattern(width as usize, height as usize).iter().map(|p| *p + Vec3::splat(0.01)).collect();
    let path = dir.path().join("sky.hdr");
    let rgb: Vec<image::Rgb<f32>> = pixels.iter().map(|p| image::Rgb([p.x, p.y, p.z])).collect();
    let file = std::fs::File::create(&path).unwrap();
    image::codecs::hdr::HdrEncoder::new(file).encode(&rgb, width as usize, height as usize).unwrap();
    let texture = load_image(&path).unwrap();
    assert_eq!((texture.width, texture.height), (width, height));
    for (decoded, original) in texture.pixels.iter().zip(&pixels) {
        // RGBE keeps 8 mantissa bits relative to the largest component.
        let tolerance = original.max_element() / 128.0;
        assert!((*decoded - *original).abs().max_element() <= tolerance, "{decoded} vs {original}");
    }
}

#[test]
fn png_and_jpeg_are_srgb_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let (width, height) = (6u32, 3u32);
    let rgb8 = image::RgbImage::from_fn(width, height, |x, y| image::Rgb([(x * 40) as u8, (y * 100) as u8, 200]));
    let path = dir.path().join("texture.png");
    rgb8.save(&path).unwrap();
    let texture = load_image(&path).unwrap();
    for (i, decoded) in texture.pixels.iter().enumerate() {
        let p = rgb8.get_pixel(i as u32 % width, i as u32 / width);
        let expected = Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32).map(|c| srgb_to_linear(c / 255.0));
        assert!((*decoded - expected).abs().max_element() < 1e-6, "{decoded} vs {expected}");
    }
    assert!((texture.pixels[0].z - 0.577_58).abs() < 1e-4); // sRGB 200 ≈ 0.5776 linear

    // 16-bit RGBA PNG: alpha dropped, 16-bit precision kept.
    let rgba16 = image::ImageBuffer::<image::Rgba<u16>, Vec<u16>>::from_fn(width, height, |x, _| {
        image::Rgba([x as u16 * 10_000, 32_768, 65_535, 1])
    });
    let path = dir.path().join("deep.png");
    rgba16.save(&path).unwrap();
    let texture = load_image(&path).unwrap();
    let expected = Vec3::new(srgb_to_linear(30_000.0 / 65_535.0), srgb_to_linear(32_768.0 / 65_535.0), 1.0);
    assert!((texture.pixels[3] - expected).abs().max_element() < 1e-6);

    // JPEG is lossy: a flat color comes back close.
    let flat = image::RgbImage::from_pixel(16, 16, image::Rgb([128, 64, 32]));
    let path = dir.path().join("photo.JPG");
    flat.save_with_format(&path, image::ImageFormat::Jpeg).unwrap();
    let texture = load_image(&path).unwrap();
    let expected = Vec3::new(srgb_to_linear(128.0 / 255.0), srgb_to_linear(64.0 / 255.0), srgb_to_linear(32.0 / 255.0));
    assert!((texture.pixels[100] - expected).abs().max_element() < 0.02, "{}", texture.pixels[100]);
}

#[test]
fn bad_files_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    // Missing file: an I/O error naming the path.
    let missing = dir.path().join("nope.exr");
    match load_image(&missing) {
        Err(SceneError::Io { path, source }) => {
            assert_eq!(path, missing);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected an I/O error, got {other:?}"),
    }
    // Unsupported extension.
    let bmp = dir.path().join("image.bmp");
    std::fs::write(&bmp, b"BM").unwrap();
    assert!(matches!(load_image(&bmp), Err(SceneError::Unsupported { .. })));
    assert!(matches!(load_image(Path::new("no_extension")), Err(SceneError::Unsupported { .. })));

    // Truncated EXR, HDR and PNG, and garbage with the right extension.
    let pixels = test_pattern(64, 32);
    let exr_path = dir.path().join("full.exr");
    let channels = vec![
        ("R", FlatSamples::F32(plane(&pixels, 0))),
        ("G", FlatSamples::F32(plane(&pixels, 1))),
        ("B", FlatSamples::F32(plane(&pixels, 2))),
    ];
    write_exr(&exr_path, 64, 32, channels, Compression::ZIP16);
    let png_path = dir.path().join("full.png");
    image::RgbImage::from_fn(64, 32, |x, y| image::Rgb([x as u8, y as u8, 7])).save(&png_path).unwrap();
    let hdr_path = dir.path().join("full.hdr");
    let rgb: Vec<image::Rgb<f32>> = pixels.iter().map(|p| image::Rgb([p.x, p.y, p.z])).collect();
    image::codecs::hdr::HdrEncoder::new(std::fs::File::create(&hdr_path).unwrap()).encode(&rgb, 64, 32).unwrap();
    for full in [&exr_path, &png_path, &hdr_path] {
        let bytes = std::fs::read(full).unwrap();
        let extension = full.extension().unwrap().to_str().unwrap();
        for (label, contents) in [
            ("truncated", bytes[..bytes.len() / 2].to_vec()),
            ("header only", bytes[..bytes.len().min(20)].to_vec()),
            ("empty", Vec::new()),
            ("garbage", (0..500u32).map(|i| (i * 37 % 251) as u8).collect()),
        ] {
            let path = dir.path().join(format!("bad.{extension}"));
            std::fs::write(&path, &contents).unwrap();
            match load_image(&path) {
                Err(SceneError::Invalid { message, .. }) => assert!(!message.is_empty()),
                other => panic!("{label} .{extension}: expected an Invalid error, got {other:?}"),
            }
        }
    }
}
