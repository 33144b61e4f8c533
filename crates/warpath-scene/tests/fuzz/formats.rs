//! The formats the fuzz harness mutates: one line each — a name (used in reports and in
//! regression file names), the extension its regression files carry, its seed files (in
//! `tests/fuzz/seeds/`), words to splice in, and the function that loads bytes of it.
//!
//! To fuzz a new format, add its seed files and one line to [`FORMATS`]: e.g. for the
//! volume loaders of a `warpath-volume` crate (a dev-dependency here),
//! `Format::new("vol", "vol", &["grid.vol"], &["VOL"], |b, p| done(warpath_volume::parse_vol(b, p)))`,
//! and the same for NIfTI (`.nii`, `.nii.gz`) and raw grids.

use std::path::Path;
use warpath_scene::image_io::{ImageKind, decode_image_bytes};
use warpath_scene::{gltf_loader, obj, ply, toml_scene};

/// What a load did: `Ok` or the error's message (either is fine; a panic, an abort or a
/// hang is not).
pub type Outcome = Result<(), String>;

pub struct Format {
    pub name: &'static str,
    pub extension: &'static str,
    pub seeds: &'static [&'static str],
    pub dictionary: &'static [&'static str],
    /// Loads `bytes` as if read from `path` (in the seed folder, so that the files a seed
    /// refers to — MTL, textures, meshes — are found).
    pub load: fn(&[u8], &Path) -> Outcome,
}

impl Format {
    const fn new(
        name: &'static str,
        extension: &'static str,
        seeds: &'static [&'static str],
        dictionary: &'static [&'static str],
        load: fn(&[u8], &Path) -> Outcome,
    ) -> Format {
        Format { name, extension, seeds, dictionary, load }
    }
}

/// Any loader result as an [`Outcome`].
fn done<T, E: std::fmt::Display>(result: Result<T, E>) -> Outcome {
    result.map(drop).map_err(|e| e.to_string())
}

fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("gzip into memory");
    encoder.finish().expect("gzip into memory")
}

const OBJ_WORDS: &[&str] = &["v", "vt", "vn", "f", "o", "g", "s", "usemtl", "mtllib", "l", "0", "-1", "/", "//"];
const MTL_WORDS: &[&str] = &["newmtl", "Kd", "Ks", "Ke", "Ns", "Ni", "d", "Tr", "illum", "map_Kd", "-bm", "nan"];
const PLY_WORDS: &[&str] = &[
    "element",
    "property",
    "list",
    "uchar",
    "int",
    "float",
    "double",
    "vertex",
    "face",
    "vertex_indices",
    "end_header",
    "format",
    "binary_big_endian",
    "comment",
    "x",
    "nx",
    "u",
];
const GLTF_WORDS: &[&str] = &[
    "\"accessors\"",
    "\"bufferView\"",
    "\"byteOffset\"",
    "\"byteStride\"",
    "\"count\"",
    "\"componentType\"",
    "5121",
    "5123",
    "5125",
    "5126",
    "\"mode\"",
    "\"indices\"",
    "\"children\"",
    "\"matrix\"",
    "null",
    "[]",
    "{}",
    "\"uri\"",
    "\"data:,\"",
    "\"sparse\"",
];
const TOML_WORDS: &[&str] = &[
    "[[shape]]",
    "[[material]]",
    "[render]",
    "[camera]",
    "[environment]",
    "type",
    "=",
    "\"mesh\"",
    "\"map\"",
    "file",
    "nan",
    "inf",
    "-1",
    "1e30",
    "subdivisions",
    "to_world",
    "[[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,1]]",
];
const EXR_WORDS: &[&str] = &["dataWindow", "box2i", "channels", "chlist", "compression", "tiles", "tiledesc"];
const PNG_WORDS: &[&str] = &["IHDR", "IDAT", "IEND", "PLTE", "tRNS", "iCCP", "zTXt"];
const HDR_WORDS: &[&str] = &["#?RADIANCE", "FORMAT=32-bit_rle_rgbe", "-Y", "+X", "\n\n", "EXPOSURE="];

pub const FORMATS: &[Format] = &[
    Format::new("obj", "obj", &["cube.obj"], OBJ_WORDS, |b, p| done(obj::parse_obj(&text(b), p))),
    Format::new("mtl", "mtl", &["cube.mtl"], MTL_WORDS, |b, p| done(obj::parse_mtl(&text(b), p))),
    Format::new("ply-ascii", "ply", &["pyramid_ascii.ply"], PLY_WORDS, |b, p| done(ply::parse_ply(b, p))),
    Format::new("ply-binary", "ply", &["pyramid_le.ply", "pyramid_be.ply"], PLY_WORDS, |b, p| {
        done(ply::parse_ply(b, p))
    }),
    Format::new("ply-gz", "gz", &["pyramid.ply.gz"], &[], |b, p| done(ply::decode_ply(b, p))),
    Format::new("ply-gz-inner", "gz", &["pyramid_le.ply"], PLY_WORDS, |b, p| {
        done(ply::decode_ply(&gzip(b), &p.with_extension("ply.gz")))
    }),
    Format::new("gltf", "gltf", &["pyramid.gltf"], GLTF_WORDS, |b, p| done(gltf_loader::parse_gltf(b, p))),
    Format::new("glb", "glb", &["pyramid.glb"], GLTF_WORDS, |b, p| done(gltf_loader::parse_gltf(b, p))),
    Format::new("toml", "toml", &["scene.toml"], TOML_WORDS, |b, p| done(toml_scene::parse_toml_scene(&text(b), p))),
    Format::new("exr", "exr", &["sky_zip_half.exr", "sky_piz_float.exr", "luma_rle.exr"], EXR_WORDS, |b, p| {
        done(decode_image_bytes(b, ImageKind::Exr, p))
    }),
    Format::new("png", "png", &["checker.png", "gray16_alpha.png"], PNG_WORDS, |b, p| {
        done(decode_image_bytes(b, ImageKind::Png, p))
    }),
    Format::new("hdr", "hdr", &["sky_rle.hdr", "sky_flat.hdr"], HDR_WORDS, |b, p| {
        done(decode_image_bytes(b, ImageKind::Hdr, p))
    }),
];
