//! The fuzz harness's seed files (`tests/fuzz/seeds/`): small valid files of every format,
//! each using the features its loader reads (OBJ with MTL, texture and every face form; PLY
//! ASCII, both binary byte orders and gzip, with normals, uvs, quads and extra elements;
//! glTF and GLB with embedded buffers, a texture, a camera and material extensions; a TOML
//! scene using meshes, a texture and an environment map, and one using every kind of
//! `[[medium]]`; EXR with several compressions and sample types; PNG 8- and 16-bit; HDR flat
//! and run-length encoded; volumes: Mitsuba `.vol` with 1 and 3 channels from
//! warpath-volume's own writer, NIfTI-1 `.nii` (big-endian i16 with scaling; f32 with an
//! extension and a 4th dimension of 1) and `.nii.gz` written here from the standard's field
//! offsets, raw u16/f32 grids, a Mitsuba `.serialized` mesh file of two meshes, and two small `.vdb` files written by OpenVDB 10.0.1, copied
//! from warpath-volume's test data). They are written by
//! `cargo test -p warpath-scene --test fuzz -- --ignored write_seed_files` and committed.
//! The scene seeds of the importers (`scene.xml`, Mitsuba 3; `scene.pbrt`, pbrt-v4) are
//! written by hand and committed as they are.

use std::io::Write;
use std::path::{Path, PathBuf};

pub fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/seeds")
}

const CUBE_OBJ: &str = "\
# a textured quad and a pyramid, every face form
mtllib cube.mtl
o quad
v -1 -1 0
v 1 -1 0 1.0
v 1 1 0 0.5 0.5 0.5
v -1 1 0
v 0 0 1.5
vt 0 0
vt 1 0
vt 1 1
vt 0 1 0
vn 0 0 1
vn 0 0.7071 0.7071
g front
s 1
usemtl textured
f 1/1/1 2/2/1 3/3/1 4/4/1
o pyramid
usemtl shiny
f 1//2 2//2 5//2
usemtl glass
f 2/2 3/3 5/1
usemtl lamp
f -4 -3 -1
usemtl mirror
f 4 1 5
s off
l 1 2
";

const CUBE_MTL: &str = "\
newmtl textured
Kd 0.5 0.5 0.5
map_Kd -bm 1 checker.png
newmtl shiny
Ka 0.1 0.1 0.1
Kd 0.4 0.1 0.1
Ks 0.3 0.3 0.3
Ns 120
newmtl glass
illum 7
Ni 1.45
Tr 0.9
newmtl lamp
Kd 0 0 0
Ke 5 4 3
newmtl mirror
illum 5
Ks 0.9 0.9 0.9
d 1
";

/// The pyramid: position, normal and uv per vertex.
const VERTICES: [[f32; 8]; 5] = [
    [-1.0, 0.0, -1.0, 0.0, -1.0, 0.0, 0.0, 0.0],
    [1.0, 0.0, -1.0, 0.0, -1.0, 0.0, 1.0, 0.0],
    [1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 1.0],
    [-1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 1.0],
    [0.0, 1.5, 0.0, 0.0, 1.0, 0.0, 0.5, 0.5],
];
const FACES: [&[u32]; 5] = [&[0, 1, 2, 3], &[3, 2, 4], &[2, 1, 4], &[1, 0, 4], &[0, 3, 4]];

fn ply_header(format: &str, binary: bool) -> String {
    let (position, index) = if binary { ("double", "ushort uint") } else { ("float", "uchar int") };
    format!(
        "ply\nformat {format} 1.0\ncomment a square pyramid with normals and uvs\nobj_info fuzz seed\n\
         element vertex 5\nproperty {position} x\nproperty {position} y\nproperty {position} z\n\
         property float nx\nproperty float ny\nproperty float nz\nproperty float u\nproperty float v\n\
         property uchar red\nelement face 5\nproperty list {index} vertex_indices\nproperty int flags\n\
         element material 1\nproperty float shininess\nproperty list uchar uchar name\nend_header\n"
    )
}

fn ply_ascii() -> Vec<u8> {
    let mut text = ply_header("ascii", false);
    for v in VERTICES {
        let values: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        text += &format!("{} 200\n", values.join(" "));
    }
    for f in FACES {
        let indices: Vec<String> = f.iter().map(|i| i.to_string()).collect();
        text += &format!("{} {} 0\n", f.len(), indices.join(" "));
    }
    text += "0.5 3 97 98 99\n";
    text.into_bytes()
}

fn ply_binary(little_endian: bool) -> Vec<u8> {
    let format = if little_endian { "binary_little_endian" } else { "binary_big_endian" };
    let mut out = ply_header(format, true).into_bytes();
    let put = |out: &mut Vec<u8>, le: Vec<u8>| {
        let mut bytes = le;
        if !little_endian {
            bytes.reverse();
        }
        out.extend_from_slice(&bytes);
    };
    for v in VERTICES {
        for x in &v[..3] {
            put(&mut out, (*x as f64).to_le_bytes().to_vec());
        }
        for x in &v[3..] {
            put(&mut out, x.to_le_bytes().to_vec());
        }
        out.push(200);
    }
    for f in FACES {
        put(&mut out, (f.len() as u16).to_le_bytes().to_vec());
        for i in f {
            put(&mut out, i.to_le_bytes().to_vec());
        }
        put(&mut out, 7i32.to_le_bytes().to_vec());
    }
    put(&mut out, 0.5f32.to_le_bytes().to_vec());
    out.extend_from_slice(&[3, b'a', b'b', b'c']);
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn png_rgb8() -> Vec<u8> {
    let mut image = image::RgbImage::new(4, 4);
    for (x, y, p) in image.enumerate_pixels_mut() {
        *p = image::Rgb([(x * 60) as u8, (y * 60) as u8, if (x + y) % 2 == 0 { 255 } else { 0 }]);
    }
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn png_gray16_alpha() -> Vec<u8> {
    let image = image::ImageBuffer::<image::LumaA<u16>, Vec<u16>>::from_fn(5, 3, |x, y| {
        image::LumaA([(x * 10000 + y * 3000) as u16, 60000])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageLumaA16(image).write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn hdr(width: u32, height: u32) -> Vec<u8> {
    let pixels: Vec<image::Rgb<f32>> = (0..width * height)
        .map(|i| image::Rgb([(i % 7) as f32 * 0.5, (i % 5) as f32 * 2.0, 0.25 + (i % 3) as f32]))
        .collect();
    let mut out = Vec::new();
    image::codecs::hdr::HdrEncoder::new(&mut out).encode(&pixels, width as usize, height as usize).unwrap();
    out
}

fn exr(path: &Path, compression: exr::prelude::Compression, half: bool, luminance: bool) {
    use exr::prelude::*;
    let (width, height) = (6usize, 4usize);
    let value = |x: usize, y: usize, c: usize| (x * 3 + y * 5 + c * 7) as f32 * 0.125;
    let plane = |c: usize| -> FlatSamples {
        let values = (0..width * height).map(|i| value(i % width, i / width, c));
        if half { FlatSamples::F16(values.map(f16::from_f32).collect()) } else { FlatSamples::F32(values.collect()) }
    };
    let names: &[&str] = if luminance { &["Y"] } else { &["B", "G", "R", "A"] };
    let list: SmallVec<[AnyChannel<FlatSamples>; 4]> =
        names.iter().enumerate().map(|(c, name)| AnyChannel::new(*name, plane(c))).collect();
    let encoding = Encoding { compression, ..Encoding::default() };
    let layer = Layer::new((width, height), LayerAttributes::named("sky"), encoding, AnyChannels::sort(list));
    Image::from_layer(layer).write().to_file(path).unwrap();
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// The glTF seed's binary buffer: positions, normals, uvs (floats), u16 indices.
fn gltf_buffer() -> Vec<u8> {
    let mut out = Vec::new();
    for v in VERTICES {
        for x in &v[..3] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    for v in VERTICES {
        for x in &v[3..6] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    for v in VERTICES {
        for x in &v[6..] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2, 0, 2, 3, 3, 2, 4, 2, 1, 4] {
        out.extend_from_slice(&i.to_le_bytes());
    }
    out
}

/// A glTF document over `buffer` (a data URI, or the GLB's BIN chunk when `None`) with
/// the texture `image` as a buffer view (GLB) or a data URI (glTF).
fn gltf_json(buffer_uri: Option<String>, buffer_length: usize, image: &str) -> String {
    let uri = buffer_uri.map(|u| format!(r#", "uri": "{u}""#)).unwrap_or_default();
    format!(
        r#"{{"asset": {{"version": "2.0", "generator": "warpath fuzz seeds"}},
"scene": 0, "scenes": [{{"nodes": [0, 2]}}],
"nodes": [{{"children": [1], "translation": [0, 0, 1], "rotation": [0, 0.3826834, 0, 0.9238795], "scale": [1, 2, 1]}},
          {{"mesh": 0, "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0.5,0,0,1]}},
          {{"camera": 0, "translation": [0, 1, 5]}}],
"cameras": [{{"type": "perspective", "perspective": {{"yfov": 0.7, "aspectRatio": 1.5, "znear": 0.01}}}}],
"meshes": [{{"name": "pyramid", "primitives": [{{"attributes": {{"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}},
             "indices": 3, "material": 0}}, {{"attributes": {{"POSITION": 0}}, "material": 1}}]}}],
"materials": [{{"name": "textured", "doubleSided": true, "emissiveFactor": [0.1, 0.1, 0.1],
                "pbrMetallicRoughness": {{"baseColorFactor": [0.8, 0.6, 0.4, 1], "baseColorTexture": {{"index": 0}},
                                         "metallicFactor": 0, "roughnessFactor": 0.5}}}},
              {{"name": "glass", "pbrMetallicRoughness": {{"metallicFactor": 0, "roughnessFactor": 0.2}},
                "extensions": {{"KHR_materials_transmission": {{"transmissionFactor": 1}},
                               "KHR_materials_ior": {{"ior": 1.4}},
                               "KHR_materials_emissive_strength": {{"emissiveStrength": 2}}}}}}],
"extensionsUsed": ["KHR_materials_transmission", "KHR_materials_ior", "KHR_materials_emissive_strength"],
"textures": [{{"source": 0}}],
"images": [{image}],
"accessors": [{{"bufferView": 0, "componentType": 5126, "count": 5, "type": "VEC3", "min": [-1, 0, -1], "max": [1, 1.5, 1]}},
              {{"bufferView": 0, "byteOffset": 60, "componentType": 5126, "count": 5, "type": "VEC3"}},
              {{"bufferView": 0, "byteOffset": 120, "componentType": 5126, "count": 5, "type": "VEC2"}},
              {{"bufferView": 1, "componentType": 5123, "count": 12, "type": "SCALAR"}}],
"bufferViews": [{{"buffer": 0, "byteLength": 160}}, {{"buffer": 0, "byteOffset": 160, "byteLength": 24}}{extra_view}],
"buffers": [{{"byteLength": {buffer_length}{uri}}}]}}
"#,
        extra_view = if image.contains("bufferView") {
            ", {\"buffer\": 0, \"byteOffset\": 184, \"byteLength\": 9999}"
        } else {
            ""
        }
    )
}

fn gltf() -> Vec<u8> {
    let buffer = gltf_buffer();
    let uri = format!("data:application/octet-stream;base64,{}", base64(&buffer));
    let image = format!(r#"{{"uri": "data:image/png;base64,{}"}}"#, base64(&png_rgb8()));
    gltf_json(Some(uri), buffer.len(), &image).into_bytes()
}

fn glb() -> Vec<u8> {
    let mut bin = gltf_buffer();
    let png = png_rgb8();
    bin.extend_from_slice(&png);
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let json = gltf_json(None, bin.len(), r#"{"bufferView": 2, "mimeType": "image/png"}"#)
        .replace("\"byteLength\": 9999", &format!("\"byteLength\": {}", png.len()));
    let mut json = json.into_bytes();
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

// ---------------------------------------------------------------------------------------
// Volumes
// ---------------------------------------------------------------------------------------

/// The resolution of the raw seeds (`formats.rs` reads them with this layout).
pub const RAW_RESOLUTION: [u32; 3] = [6, 5, 4];

/// A lumpy scalar field over `resolution`: zero at the corners, up to about 3 inside.
fn lump(i: u32, j: u32, k: u32, resolution: [u32; 3]) -> f32 {
    let [nx, ny, nz] = resolution.map(|n| n as f32);
    let (x, y, z) = ((i as f32 + 0.5) / nx, (j as f32 + 0.5) / ny, (k as f32 + 0.5) / nz);
    let r2 = (x - 0.5).powi(2) + (y - 0.45).powi(2) + (z - 0.55).powi(2);
    (3.0 * (1.0 - 4.0 * r2)).max(0.0)
}

/// A Mitsuba `.serialized` file of two meshes: a quad with normals and uvs, a tetrahedron
/// without either.
fn serialized() -> Vec<u8> {
    use glam::{Vec2, Vec3};
    use warpath_scene::mesh::TriangleMesh;
    let quad = TriangleMesh {
        name: "quad".into(),
        positions: vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ],
        normals: vec![Vec3::Z; 4],
        uvs: vec![Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(1.0, 1.0), Vec2::new(0.0, 1.0)],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        material: None,
    };
    let tetrahedron = TriangleMesh {
        name: "tetrahedron".into(),
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
        triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        ..TriangleMesh::default()
    };
    warpath_scene::mitsuba_xml::serialized::serialized_bytes(&[quad, tetrahedron])
}

fn density_vol() -> Vec<u8> {
    let resolution = [6, 5, 4];
    let grid = warpath_volume::VolumeGrid::from_fn(resolution, |i, j, k| lump(i, j, k, resolution));
    warpath_volume::vol::vol_bytes(&grid)
}

fn albedo_vol() -> Vec<u8> {
    let resolution = [4u32, 3, 2];
    let mut data = Vec::new();
    for k in 0..2u32 {
        for j in 0..3u32 {
            for i in 0..4u32 {
                data.extend([0.2 + 0.2 * i as f32, 0.3 + 0.2 * j as f32, 0.5 + 0.25 * k as f32]);
            }
        }
    }
    warpath_volume::vol::vol_bytes(&warpath_volume::VolumeGrid::new(resolution, 3, data).unwrap())
}

/// A NIfTI-1 header's fields, written from the standard's byte offsets (sizeof_hdr 0,
/// dim 40, datatype 70, bitpix 72, pixdim 76, vox_offset 108, scl_slope 112, scl_inter 116,
/// xyzt_units 123, magic 344), then the extension (if any) and the voxels.
struct Nifti<'a> {
    dim: [i16; 8],
    datatype: i16,
    bitpix: i16,
    pixdim: [f32; 4],
    scl: (f32, f32),
    big_endian: bool,
    extension: Option<&'a [u8]>,
    voxels: Vec<u8>,
}

impl Nifti<'_> {
    fn bytes(&self) -> Vec<u8> {
        let be = self.big_endian;
        let i16b = |v: i16| if be { v.to_be_bytes() } else { v.to_le_bytes() };
        let i32b = |v: i32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
        let f32b = |v: f32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
        let mut h = vec![0u8; 348];
        h[0..4].copy_from_slice(&i32b(348));
        for (a, d) in self.dim.iter().enumerate() {
            h[40 + 2 * a..42 + 2 * a].copy_from_slice(&i16b(*d));
        }
        h[70..72].copy_from_slice(&i16b(self.datatype));
        h[72..74].copy_from_slice(&i16b(self.bitpix));
        for (a, p) in self.pixdim.iter().enumerate() {
            h[76 + 4 * a..80 + 4 * a].copy_from_slice(&f32b(*p));
        }
        // The extension block: esize (a multiple of 16), ecode, data.
        let extension: Vec<u8> = match self.extension {
            Some(data) => {
                let esize = (8 + data.len()).div_ceil(16) * 16;
                let mut e = [&i32b(esize as i32)[..], &i32b(6)[..], data].concat();
                e.resize(esize, 0);
                e
            }
            None => Vec::new(),
        };
        h[108..112].copy_from_slice(&f32b((352 + extension.len()) as f32));
        h[112..116].copy_from_slice(&f32b(self.scl.0));
        h[116..120].copy_from_slice(&f32b(self.scl.1));
        h[123] = 2; // millimetres
        h[344..348].copy_from_slice(b"n+1\0");
        let flag = if extension.is_empty() { [0u8; 4] } else { [1, 0, 0, 0] };
        [h, flag.to_vec(), extension, self.voxels.clone()].concat()
    }
}

/// Values of `lump` over `resolution` scaled by `scale`, x fastest.
fn lump_values(resolution: [u32; 3], scale: f32) -> Vec<f32> {
    let mut v = Vec::new();
    for k in 0..resolution[2] {
        for j in 0..resolution[1] {
            for i in 0..resolution[0] {
                v.push(scale * lump(i, j, k, resolution));
            }
        }
    }
    v
}

/// Big-endian i16 scaled by scl_slope 0.5, scl_inter 2, anisotropic voxels.
fn nifti_i16_be() -> Vec<u8> {
    let voxels = lump_values([6, 5, 4], 300.0).iter().flat_map(|&v| (v as i16 + 10).to_be_bytes()).collect();
    Nifti {
        dim: [3, 6, 5, 4, 1, 1, 1, 1],
        datatype: 4,
        bitpix: 16,
        pixdim: [1.0, 0.9, 1.1, 2.5],
        scl: (0.5, 2.0),
        big_endian: true,
        extension: None,
        voxels,
    }
    .bytes()
}

/// Little-endian f32 with an extension, stored as a 4D volume of one frame.
fn nifti_f32_extension() -> Vec<u8> {
    let voxels = lump_values([5, 4, 3], 1.5).iter().flat_map(|v| v.to_le_bytes()).collect();
    Nifti {
        dim: [4, 5, 4, 3, 1, 1, 1, 1],
        datatype: 16,
        bitpix: 32,
        pixdim: [1.0, 1.0, 1.0, 1.0],
        scl: (0.0, 0.0),
        big_endian: false,
        extension: Some(b"warpath fuzz seed"),
        voxels,
    }
    .bytes()
}

/// Little-endian u16, no scaling (compressed as `scan_u16.nii.gz`).
fn nifti_u16() -> Vec<u8> {
    let voxels = lump_values([6, 5, 4], 1000.0).iter().flat_map(|&v| (v as u16).to_le_bytes()).collect();
    Nifti {
        dim: [3, 6, 5, 4, 1, 1, 1, 1],
        datatype: 512,
        bitpix: 16,
        pixdim: [1.0, 0.5, 0.5, 0.5],
        scl: (0.0, 0.0),
        big_endian: false,
        extension: None,
        voxels,
    }
    .bytes()
}

fn raw_u16_be() -> Vec<u8> {
    lump_values(RAW_RESOLUTION, 1000.0).iter().flat_map(|&v| (v as u16).to_be_bytes()).collect()
}

fn raw_f32() -> Vec<u8> {
    lump_values(RAW_RESOLUTION, 2.0).iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The `.vdb` seeds: files OpenVDB 10.0.1 wrote for warpath-volume's tests
/// (`crates/warpath-volume/tests/data/make_vdb.py`): active tiles and a second, non-float
/// grid; half floats.
const VDB_SEEDS: &[&str] = &["tiles.vdb", "blob_half.vdb"];

const SCENE_TOML: &str = r#"# every section of the format, with meshes, a texture and an environment map
[render]
width = 64
height = 48
spp = 4
max_depth = 6
seed = 3
sampler = "pcg"
rr_threshold = 0.1

[camera]
look_at = { origin = [0, 2, 7], target = [0, 0.5, 0], up = [0, 1, 0] }
fov = 40
fov_axis = "smaller"
aperture_radius = 0.02
focus_distance = 7.0

[[material]]
name = "floor"
type = "diffuse"
base_color = [0.7, 0.7, 0.65]
base_color_texture = "checker.png"

[[material]]
name = "gold"
type = "rough-conductor"
base_color = [1.0, 0.78, 0.34]
roughness = 0.25

[[material]]
name = "paint"
type = "car-paint"
base_color = 0.3
specular = [0.2, 0.2, 0.2]
exponent = 50
ior = 1.5

[[material]]
name = "lamp"
type = "black"
emission = [10, 9, 8]
two_sided_emission = true

[[shape]]
type = "rectangle"
material = "floor"
to_world = [[5, 0, 0, 0], [0, 0, 5, 0], [0, -5, 0, 0], [0, 0, 0, 1]]

[[shape]]
type = "sphere"
subdivisions = 2
material = "gold"
translate = [1, 0.5, 0]
scale = 0.5

[[shape]]
type = "cube"
material = "paint"
rotate = { axis = [0, 1, 0], angle = 30 }
scale = [0.3, 0.6, 0.3]

[[shape]]
type = "mesh"
file = "cube.obj"
name = "obj"
translate = [-1, 0, 0]

[[shape]]
type = "mesh"
file = "pyramid_ascii.ply"
material = "gold"
emission = 0.5
translate = [0, 0, -1]

[[shape]]
type = "rectangle"
material = "lamp"
translate = [0, 3, 0]
rotate = { axis = [1, 0, 0], angle = 90 }

[environment]
type = "map"
file = "sky_flat.hdr"
scale = 0.5
rotate_y = 90
"#;

const MEDIA_TOML: &str = r#"# every kind of [[medium]]: homogeneous (sigma_t + albedo, sigma_a + sigma_s), grids from
# .vol, NIfTI, raw and .vdb files, constant, procedural and printed grids, transfer
# functions, each placement; null and dielectric boundaries, a camera medium
[render]
width = 32
height = 24
spp = 2
max_depth = -1
rr_threshold = 0.5

[camera]
look_at = { origin = [0, 1, 6], target = [0, 0.5, 0], up = [0, 1, 0] }
fov = 45
medium = "haze"

[[material]]
name = "boundary"
type = "null"

[[material]]
name = "water"
type = "rough-dielectric"
ior = 1.33
exterior_ior = 1.01
roughness = 0.3

[[material]]
name = "lamp"
type = "black"
emission = [8, 8, 8]

[[medium]]
name = "haze"
type = "homogeneous"
sigma_t = [0.02, 0.03, 0.04]
albedo = 0.9
g = 0.3

[[medium]]
name = "ink"
type = "homogeneous"
sigma_a = [0.5, 0.2, 0.1]
sigma_s = 1.0
scale = 2

[[medium]]
name = "smoke"
type = "grid"
density = "density.vol"
albedo = "albedo.vol"
scale = 4
g = -0.2
majorant_cell = 2
bounds = [[-1, 0, -1], [1, 2, 1]]
rotate = { axis = [0, 1, 0], angle = 15 }

[[medium]]
name = "scan"
type = "grid"
density = "scan_i16_be.nii"
transfer = { preset = "gray-red-blue", max_density = 20 }
physical_proportions = true
translate = [1, 0, 0]
rotate = { axis = [0, 1, 0], angle = 30 }
size = [1, 1, 1]

[[medium]]
name = "raw"
type = "grid"
density = { file = "density_u16be.raw", format = "u16", big_endian = true, resolution = [6, 5, 4] }
scale = 0.01
albedo = { constant = 0.5, resolution = [2, 2, 2] }
majorant_cell = 0
to_world = [[1, 0, 0, -2], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]

[[medium]]
name = "cloud"
type = "grid"
density = { procedural = "cloud", resolution = [8, 8, 8], wispiness = 1.5, frequency = 4, rounded = true }
albedo = { image = "checker.png", resolution = [8, 8, 4], depth = 2, white = 0.9 }
translate = [0, 2, 0]

[[medium]]
name = "vdb"
type = "grid"
density = "tiles.vdb"
transfer = { points = [[0, 0, 1, 1, 1], [0.5, 2, 0.9, 0.8, 0.7], [2, 5, 0.5, 0.6, 0.7]] }
bounds = [[-3, 0, -1], [-2, 1, 0]]

[[medium]]
name = "gz"
type = "grid"
density = "scan_u16.nii.gz"
transfer = "gray-red-blue"
translate = [2, 0, 0]

[[shape]]
type = "cube"
material = "boundary"
interior = "smoke"
exterior = "haze"
translate = [0, 1, 0]

[[shape]]
type = "sphere"
subdivisions = 1
material = "water"
interior = "ink"
exterior = "haze"
translate = [1.5, 0.5, 0]
scale = 0.5

[[shape]]
type = "cube"
material = "boundary"
interior = "scan"
translate = [1.5, 0.5, 0]
scale = 0.5

[[shape]]
type = "cube"
material = "boundary"
interior = "raw"
translate = [-1.5, 0.5, 0.5]
scale = 0.5

[[shape]]
type = "cube"
material = "boundary"
interior = "cloud"
translate = [0.5, 2.5, 0.5]
scale = 0.5

[[shape]]
type = "cube"
material = "boundary"
interior = "vdb"
translate = [-2.5, 0.5, -0.5]
scale = 0.5

[[shape]]
type = "cube"
material = "boundary"
interior = "gz"
exterior = "haze"
translate = [2.5, 0.5, 0.5]
scale = 0.5

[[shape]]
type = "rectangle"
material = "lamp"
translate = [0, 4, 0]
rotate = { axis = [1, 0, 0], angle = 90 }

[environment]
type = "constant"
radiance = [0.1, 0.12, 0.15]
"#;

#[test]
#[ignore = "writes tests/fuzz/seeds/ when WARPATH_WRITE_SEEDS=1; run it after changing a seed, and commit the files"]
fn write_seed_files() {
    use exr::prelude::Compression;
    // Only on request: `--include-ignored` (the GPU machine's test run) must not rewrite the
    // seeds while the fuzz test of the same binary reads them.
    if std::env::var("WARPATH_WRITE_SEEDS").as_deref() != Ok("1") {
        eprintln!("notice: write_seed_files writes only with WARPATH_WRITE_SEEDS=1");
        return;
    }
    let dir = folder();
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
    write("cube.obj", CUBE_OBJ.as_bytes());
    write("cube.mtl", CUBE_MTL.as_bytes());
    write("checker.png", &png_rgb8());
    write("gray16_alpha.png", &png_gray16_alpha());
    write("pyramid_ascii.ply", &ply_ascii());
    write("pyramid_le.ply", &ply_binary(true));
    write("pyramid_be.ply", &ply_binary(false));
    write("pyramid.ply.gz", &gzip(&ply_binary(true)));
    write("pyramid.gltf", &gltf());
    write("pyramid.glb", &glb());
    write("scene.toml", SCENE_TOML.as_bytes());
    write("sky_rle.hdr", &hdr(16, 4));
    write("sky_flat.hdr", &hdr(4, 2));
    exr(&dir.join("sky_zip_half.exr"), Compression::ZIP16, true, false);
    exr(&dir.join("sky_piz_float.exr"), Compression::PIZ, false, false);
    exr(&dir.join("luma_rle.exr"), Compression::RLE, true, true);
    write("media.toml", MEDIA_TOML.as_bytes());
    write("density.vol", &density_vol());
    write("albedo.vol", &albedo_vol());
    write("scan_i16_be.nii", &nifti_i16_be());
    write("scan_f32_ext.nii", &nifti_f32_extension());
    write("scan_u16.nii.gz", &gzip(&nifti_u16()));
    write("density_u16be.raw", &raw_u16_be());
    write("density_f32.raw", &raw_f32());
    write("mesh.serialized", &serialized());
    let volume_data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../warpath-volume/tests/data");
    for name in VDB_SEEDS {
        std::fs::copy(volume_data.join(name), dir.join(name)).unwrap();
    }
}
