//! The formats the fuzz harness mutates: one line each — a name (used in reports and in
//! regression file names), the extension its regression files carry, its seed files (in
//! `tests/fuzz/seeds/`), words to splice in, and the function that loads bytes of it.
//!
//! To fuzz a new format, add its seed files and one line to [`FORMATS`]. The volume
//! formats (warpath-volume's loaders) go one step further than loading: each grid that
//! loads becomes a medium, as a scene would make it ([`as_medium`]).

use glam::{Mat4, Vec3};
use std::path::Path;
use std::sync::Arc;
use warpath_scene::image_io::{ImageKind, decode_image_bytes};
use warpath_scene::{gltf_loader, mitsuba_xml, obj, pbrt, ply, toml_scene};
use warpath_volume::load::{RawLayout, RawSample};
use warpath_volume::{Medium, MediumAlbedo, TransferFunction, VolumeError, VolumeGrid};

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

/// What a scene does with a volume file's grid ([[medium]] in `toml_scene`): a scalar grid
/// becomes a grid medium's density, as it is and through seed 003's transfer function over
/// its value range; an RGB grid becomes a medium's albedo. An error at any step (a NaN
/// density, an albedo outside [0, 1]) is an outcome like a load error.
fn as_medium(grid: Result<VolumeGrid, VolumeError>) -> Outcome {
    let grid = grid.map_err(|e| e.to_string())?;
    let medium = |density: VolumeGrid, albedo: MediumAlbedo| {
        Medium::grid("fuzz", Arc::new(density), 2.0, albedo, 0.3, Mat4::from_scale(Vec3::splat(2.0)), 2)
    };
    if grid.channels == 3 {
        return done(medium(VolumeGrid::constant([1, 1, 1], 1, 1.0), MediumAlbedo::Grid(Arc::new(grid))));
    }
    let (low, high) = grid.range();
    if let Ok(transfer) = TransferFunction::gray_red_blue(low, high, 10.0) {
        // The scene checks the transfer function's grids (1 + 3 values a voxel) first.
        warpath_volume::limits::check_grid("the transfer function's grids", grid.resolution, 4)?;
        let (density, albedo) = transfer.apply(&grid);
        medium(density, MediumAlbedo::Grid(Arc::new(albedo)))?;
    }
    done(medium(grid, MediumAlbedo::Constant(Vec3::splat(0.8))))
}

/// Loads a `.vdb` from `bytes`: OpenVDB-rs opens files by path, so the bytes go to a file
/// of this process's own under the temporary folder first.
fn vdb(bytes: &[u8], path: &Path) -> Outcome {
    let dir = std::env::temp_dir().join(format!("warpath-fuzz-vdb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join(path.file_name().unwrap_or("case.vdb".as_ref()));
    std::fs::write(&file, bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    let outcome = as_medium(warpath_volume::read_vdb(&file).map(|v| v.grid));
    let _ = std::fs::remove_file(&file);
    outcome
}

fn raw(sample: RawSample, big_endian: bool) -> RawLayout {
    RawLayout { resolution: crate::seeds::RAW_RESOLUTION, sample, big_endian }
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
const XML_WORDS: &[&str] = &[
    "<shape type=\"cube\">",
    "</shape>",
    "<include filename=\"scene.xml\"/>",
    "<ref id=\"plain\"/>",
    "$spp",
    "$missing",
    "<transform name=\"to_world\">",
    "<rotate x=\"1\" angle=\"1e30\"/>",
    "<scale value=\"0\"/>",
    "<emitter type=\"point\"/>",
    "<bsdf type=\"plastic\"/>",
    "<![CDATA[",
    "&amp;",
    "name=",
    "value=\"nan\"",
    "-1",
    "<shape type=\"instance\"><ref id=\"pair\"/></shape>",
    "<shape type=\"shapegroup\" id=\"pair\">",
    "<medium type=\"heterogeneous\">",
    "<ref name=\"interior\" id=\"fog\"/>",
    "<integer name=\"shape_index\" value=\"2\"/>",
    "<phase type=\"hg\"/>",
];
const SERIALIZED_WORDS: &[&str] = &["\u{1c}\u{4}\u{4}\0", "\u{1c}\u{4}\u{3}\0", "\0\0\0\0\0\0\0\0"];
const PBRT_WORDS: &[&str] = &[
    "AttributeBegin",
    "AttributeEnd",
    "ObjectInstance \"pyr\"",
    "Include \"scene.pbrt\"",
    "Shape \"trianglemesh\"",
    "\"integer indices\"",
    "\"point3 P\"",
    "\"float radius\"",
    "Translate",
    "Rotate 1e30 1 0 0",
    "Scale 0 0 0",
    "LookAt",
    "ReverseOrientation",
    "LightSource \"point\"",
    "MediumInterface \"fog\"",
    "\"uniformgrid\"",
    "\"integer nx\" 100000",
    "[",
    "]",
    "\"",
    "#",
    "-1",
    "1e40",
    "nan",
];

const TOML_WORDS: &[&str] = &[
    "[[shape]]",
    "[[medium]]",
    "interior",
    "exterior",
    "\"null\"",
    "\"grid\"",
    "\"homogeneous\"",
    "density",
    "resolution",
    "[4096, 4096, 4096]",
    "{ constant = 1, resolution = [4096, 4096, 8] }",
    "procedural",
    "transfer",
    "majorant_cell",
    "physical_proportions = true",
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
const VOL_WORDS: &[&str] = &["VOL\u{3}", "\u{1}\0\0\0", "\u{3}\0\0\0"];
const NII_WORDS: &[&str] = &["n+1\0", "ni1\0", "\u{1}\0\0\0", "\0\0\u{1}\\"];
const VDB_WORDS: &[&str] = &[
    " BDV",
    "Tree_float_5_4_3",
    "Tree_vec3s_5_4_3",
    "Tree_float_5_4_3_HalfFloat",
    "UniformScaleMap",
    "UniformScaleTranslateMap",
    "AffineMap",
    "class",
    "file_bbox_min",
    "file_bbox_max",
    "file_compression",
    "is_saved_as_half_float",
    "value_type",
    "float",
    "string",
    "vec3i",
    "bool",
    "int64",
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
    Format::new("toml", "toml", &["scene.toml", "media.toml"], TOML_WORDS, |b, p| {
        done(toml_scene::parse_toml_scene(&text(b), p))
    }),
    Format::new("mitsuba-xml", "xml", &["scene.xml"], XML_WORDS, |b, p| {
        done(mitsuba_xml::parse_mitsuba_xml(&text(b), p, &[]))
    }),
    Format::new("serialized", "serialized", &["mesh.serialized"], SERIALIZED_WORDS, |b, _| {
        let second = mitsuba_xml::serialized::parse_serialized(b, 1).map(|m| m.mesh.triangles.len());
        done(mitsuba_xml::serialized::parse_serialized(b, 0).and(second))
    }),
    Format::new("pbrt", "pbrt", &["scene.pbrt"], PBRT_WORDS, |b, p| done(pbrt::parse_pbrt(&text(b), p))),
    Format::new("exr", "exr", &["sky_zip_half.exr", "sky_piz_float.exr", "luma_rle.exr"], EXR_WORDS, |b, p| {
        done(decode_image_bytes(b, ImageKind::Exr, p))
    }),
    Format::new("png", "png", &["checker.png", "gray16_alpha.png"], PNG_WORDS, |b, p| {
        done(decode_image_bytes(b, ImageKind::Png, p))
    }),
    Format::new("hdr", "hdr", &["sky_rle.hdr", "sky_flat.hdr"], HDR_WORDS, |b, p| {
        done(decode_image_bytes(b, ImageKind::Hdr, p))
    }),
    Format::new("vol", "vol", &["density.vol", "albedo.vol"], VOL_WORDS, |b, p| {
        as_medium(warpath_volume::vol::parse_vol(b, p).map(|f| f.grid))
    }),
    Format::new("nii", "nii", &["scan_i16_be.nii", "scan_f32_ext.nii"], NII_WORDS, |b, p| {
        as_medium(warpath_volume::nifti::parse_nifti(b, p).map(|n| n.grid))
    }),
    Format::new("nii-gz", "nii.gz", &["scan_u16.nii.gz"], &[], |b, p| {
        as_medium(warpath_volume::nifti::parse_nifti(b, p).map(|n| n.grid))
    }),
    Format::new("nii-gz-inner", "nii.gz", &["scan_i16_be.nii", "scan_f32_ext.nii"], NII_WORDS, |b, p| {
        as_medium(warpath_volume::nifti::parse_nifti(&gzip(b), &p.with_extension("nii.gz")).map(|n| n.grid))
    }),
    Format::new("raw-u16", "u16.raw", &["density_u16be.raw"], &[], |b, p| {
        as_medium(warpath_volume::raw::parse_raw(b, &raw(RawSample::U16, true), p))
    }),
    Format::new("raw-f32", "f32.raw", &["density_f32.raw"], &[], |b, p| {
        as_medium(warpath_volume::raw::parse_raw(b, &raw(RawSample::F32, false), p))
    }),
    Format::new("vdb", "vdb", &["tiles.vdb", "blob_half.vdb"], VDB_WORDS, vdb),
];
