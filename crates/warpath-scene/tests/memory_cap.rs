//! Loaders under a memory cap (`warpath_core::limits::set_memory_cap`; its own test binary,
//! since the cap is process-wide): a claim within warpath's limits but beyond the memory the
//! process can get is an error naming the file, the size and the bound — for image headers
//! for a `.ply.gz` that decompresses to more than the cap, for a medium's generated grid and
//! for Mitsuba instances flattened into the triangle list
//! — and the same files load once the memory is there.

use flate2::Compression;
use flate2::write::GzEncoder;
use std::io::Write;
use std::path::Path;
use warpath_core::limits;
use warpath_scene::image_io::{ImageKind, decode_image_bytes};
use warpath_scene::ply;

/// An ASCII PLY of one triangle followed by `padding` bytes of comment-free whitespace.
fn padded_ply(padding: usize) -> Vec<u8> {
    let mut text = b"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"
        .to_vec();
    text.resize(text.len() + padding, b'\n');
    text
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// A PNG header (and a token IDAT) claiming `width × height` 8-bit RGB pixels.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        [&(data.len() as u32).to_be_bytes()[..], kind, data, &crc.sum().to_be_bytes()].concat()
    };
    let ihdr = [&width.to_be_bytes()[..], &height.to_be_bytes(), &[8, 2, 0, 0, 0]].concat();
    let mut idat = flate2::write::ZlibEncoder::new(Vec::new(), Compression::fast());
    idat.write_all(&[0; 64]).unwrap();
    let idat = idat.finish().unwrap();
    [&b"\x89PNG\r\n\x1a\n"[..], &chunk(b"IHDR", &ihdr), &chunk(b"IDAT", &idat), &chunk(b"IEND", b"")].concat()
}

#[test]
fn claims_beyond_the_memory_cap_are_errors_and_load_without_it() {
    let zip_bomb = gzip(&padded_ply(64 << 20));
    assert!(zip_bomb.len() < 1 << 20, "{} bytes", zip_bomb.len());
    let png = png_header(8000, 8000);

    limits::set_memory_cap(Some(16 << 20));
    let message = ply::decode_ply(&zip_bomb, Path::new("bomb.ply.gz")).unwrap_err().to_string();
    for needle in ["bomb.ply.gz", "the decompressed data", "16.0 MiB (memory cap)", "decompresses to more than"] {
        assert!(message.contains(needle), "'{needle}' missing from: {message}");
    }
    let message = decode_image_bytes(&png, ImageKind::Png, Path::new("big.png")).unwrap_err().to_string();
    for needle in ["big.png", "PNG header claims 8000×8000 pixels, which need 1.6 GiB", "16.0 MiB (memory cap)"] {
        assert!(message.contains(needle), "'{needle}' missing from: {message}");
    }

    // A [[medium]]'s generated grid: a constant 256³ grid is 64 MiB of f32.
    let toml =
        "[[medium]]\nname = \"fog\"\ntype = \"grid\"\ndensity = { constant = 1.0, resolution = [256, 256, 256] }\n";
    let message = warpath_scene::toml_scene::parse_toml_scene(toml, Path::new("fog.toml")).unwrap_err().to_string();
    for needle in
        ["fog.toml:4", "medium 'fog'", "the constant grid claims a grid of 256×256×256 voxels", "(memory cap)"]
    {
        assert!(message.contains(needle), "'{needle}' missing from: {message}");
    }

    // Mitsuba instances flattened into the triangle list: 64 instances of a 16128-triangle
    // sphere need 16 MiB of triangles alone; the instance that crosses the cap is named.
    let instances: String = (0..64)
        .map(|i| format!("<shape type=\"instance\"><ref id=\"g\"/><transform name=\"to_world\"><translate x=\"{i}\"/></transform></shape>\n"))
        .collect();
    let xml = format!(
        "<scene version=\"3.0.0\">\n<shape type=\"shapegroup\" id=\"g\"><shape type=\"sphere\"/></shape>\n{instances}</scene>"
    );
    let message =
        warpath_scene::mitsuba_xml::parse_mitsuba_xml(&xml, Path::new("many.xml"), &[]).unwrap_err().to_string();
    for needle in ["many.xml:", "the scene's", "(memory cap)"] {
        assert!(message.contains(needle), "'{needle}' missing from: {message}");
    }

    limits::set_memory_cap(None);
    let scene = warpath_scene::mitsuba_xml::parse_mitsuba_xml(&xml, Path::new("many.xml"), &[]).unwrap();
    assert_eq!(scene.triangle_count(), 64 * 16128);
    let asset = ply::decode_ply(&zip_bomb, Path::new("bomb.ply.gz")).unwrap();
    assert_eq!(asset.triangle_count(), 1);
    // The PNG passes the guard and fails only for its missing pixel data.
    let message = decode_image_bytes(&png, ImageKind::Png, Path::new("big.png")).unwrap_err().to_string();
    assert!(!message.contains("memory"), "{message}");
}
