//! PLY: ASCII, binary little/big endian and gzip give the same mesh; other elements and
//! properties are skipped; bad files give located errors.

use glam::{Vec2, Vec3};
use std::io::Write;
use std::path::{Path, PathBuf};
use warpath_scene::SceneError;
use warpath_scene::mesh::MeshAsset;
use warpath_scene::ply::{load_ply, parse_ply};

/// A quad (one 4-gon face, split into 2 triangles) and a triangle, with normals, uvs,
/// an extra per-vertex `red` byte, a per-face `flags` int, and an `edge` element between.
fn header(format: &str, index_type: &str) -> String {
    format!(
        "ply\nformat {format} 1.0\ncomment test\nelement vertex 5\nproperty double x\nproperty float y\n\
         property float z\nproperty uchar red\nproperty float nx\nproperty float ny\nproperty float nz\n\
         property float u\nproperty float v\nelement edge 1\nproperty int a\nproperty list uchar int chain\n\
         element face 2\nproperty list uchar {index_type} vertex_indices\nproperty int flags\nend_header\n"
    )
}

const VERTICES: [[f64; 3]; 5] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 1.0]];
const FACES: [&[u32]; 2] = [&[0, 1, 2, 3], &[0, 1, 4]];

fn ascii_ply() -> Vec<u8> {
    let mut s = header("ascii", "int");
    for (i, v) in VERTICES.iter().enumerate() {
        s += &format!("{} {} {} 200 0 0 1 {} {}\n", v[0], v[1], v[2], v[0], i as f32 * 0.1);
    }
    s += "7 3 1 2 3\n";
    for f in FACES {
        s += &format!("{} {} 0\n", f.len(), f.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(" "));
    }
    s.into_bytes()
}

fn binary_ply(big_endian: bool) -> Vec<u8> {
    let mut out = header(if big_endian { "binary_big_endian" } else { "binary_little_endian" }, "uint").into_bytes();
    macro_rules! put {
        ($v:expr) => {
            if big_endian { out.extend_from_slice(&$v.to_be_bytes()) } else { out.extend_from_slice(&$v.to_le_bytes()) }
        };
    }
    for (i, v) in VERTICES.iter().enumerate() {
        put!(v[0]);
        put!(v[1] as f32);
        put!(v[2] as f32);
        out.push(200u8);
        for n in [0f32, 0.0, 1.0, v[0] as f32, i as f32 * 0.1] {
            put!(n);
        }
    }
    put!(7i32);
    out.push(3u8);
    for c in [1i32, 2, 3] {
        put!(c);
    }
    for f in FACES {
        out.push(f.len() as u8);
        for &i in f {
            put!(i);
        }
        put!(0i32);
    }
    out
}

fn check_mesh(asset: &MeshAsset) {
    assert_eq!(asset.meshes.len(), 1);
    let mesh = &asset.meshes[0];
    assert_eq!(mesh.positions.len(), 5);
    assert_eq!(mesh.positions[4], Vec3::new(0.5, 0.5, 1.0));
    assert_eq!(mesh.triangles, vec![[0, 1, 2], [0, 2, 3], [0, 1, 4]]);
    assert_eq!(mesh.normals, vec![Vec3::Z; 5]);
    assert!((mesh.uvs[3] - Vec2::new(0.0, 0.3)).length() < 1e-6);
}

fn temp_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn all_encodings_give_the_same_mesh() {
    let dir = tempfile::tempdir().unwrap();
    check_mesh(&load_ply(&temp_file(dir.path(), "a.ply", &ascii_ply())).unwrap());
    check_mesh(&load_ply(&temp_file(dir.path(), "le.ply", &binary_ply(false))).unwrap());
    check_mesh(&load_ply(&temp_file(dir.path(), "be.ply", &binary_ply(true))).unwrap());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&binary_ply(false)).unwrap();
    let path = temp_file(dir.path(), "le.ply.gz", &gz.finish().unwrap());
    check_mesh(&load_ply(&path).unwrap());
    // And through load_any, as a scene.
    let scene = warpath_scene::toml_scene::load_any(&path).unwrap();
    assert_eq!(scene.triangle_count(), 3);
}

fn parse_err(bytes: &[u8]) -> SceneError {
    match parse_ply(bytes, Path::new("bad.ply")) {
        Err(e) => e,
        Ok(a) => panic!("expected an error, got {} triangles", a.triangle_count()),
    }
}

fn assert_line(e: SceneError, expected: usize, needle: &str) {
    match e {
        SceneError::Parse { line, message, .. } => {
            assert_eq!(line, expected, "{message}");
            assert!(message.contains(needle), "'{message}' lacks '{needle}'");
        }
        other => panic!("expected Parse at line {expected}, got {other}"),
    }
}

fn assert_invalid(e: SceneError, needles: &[&str]) {
    match e {
        SceneError::Invalid { message, .. } => {
            for n in needles {
                assert!(message.contains(n), "'{message}' lacks '{n}'");
            }
        }
        other => panic!("expected Invalid, got {other}"),
    }
}

#[test]
fn header_errors_have_the_header_line() {
    assert_line(parse_err(b"plx\n"), 1, "not a PLY");
    assert_line(
        parse_err(b"ply\nformat ascii 1.0\nelement vertex 3\nproperty float128 x\nend_header\n"),
        4,
        "float128",
    );
    assert_line(parse_err(b"ply\nformat ascii 1.0\nproperty float x\nend_header\n"), 3, "before any element");
    assert_line(parse_err(b"ply\nformat ascii 1.0\nelement vertex -3\nend_header\n"), 3, "count");
    assert_line(parse_err(b"ply\nformat ascii 1.0\nelemnt vertex 3\nend_header\n"), 3, "elemnt");
    assert_line(parse_err(b"ply\nformat ascii 1.0\nelement vertex 0\n"), 3, "end_header");
    assert_line(parse_err(b"ply\nformat utf16 1.0\nend_header\n"), 2, "format");
}

#[test]
fn ascii_body_errors_have_the_line() {
    let text = String::from_utf8(ascii_ply()).unwrap();
    let header_lines = text.lines().position(|l| l == "end_header").unwrap() + 1;
    // Vertex 2 (third body line) gets a NaN.
    let bad = text.replacen("1 1 0 200", "1 nan 0 200", 1);
    assert_line(parse_err(bad.as_bytes()), header_lines + 3, "not finite");
    let bad = text.replacen("1 1 0 200", "1 one 0 200", 1);
    assert_line(parse_err(bad.as_bytes()), header_lines + 3, "not a number");
    // Face index out of range (last line).
    let bad = text.replacen("3 0 1 4 0", "3 0 1 5 0", 1);
    assert_line(parse_err(bad.as_bytes()), header_lines + 8, "out of range");
    // An extra value on a vertex line.
    let bad = text.replacen("0 0 0 200 0 0 1 0 0", "0 0 0 200 0 0 1 0 0 9", 1);
    assert_line(parse_err(bad.as_bytes()), header_lines + 1, "more values");
    // Truncated.
    let cut = &text[..text.len() - 6];
    assert!(matches!(parse_err(cut.as_bytes()), SceneError::Parse { .. }));
}

#[test]
fn binary_errors_name_element_and_offset() {
    let good = binary_ply(false);
    let body = String::from_utf8_lossy(&good).find("end_header\n").unwrap() + "end_header\n".len();
    // Truncated in the middle of the faces.
    assert_invalid(parse_err(&good[..good.len() - 3]), &["element 'face' 1", "byte offset", "ends early"]);
    // NaN in vertex 1's x (vertex size: 8 + 4 + 4 + 1 + 5·4 = 37 bytes).
    let mut nan = good.clone();
    nan[body + 37..body + 45].copy_from_slice(&f64::NAN.to_le_bytes());
    assert_invalid(parse_err(&nan), &["element 'vertex' 1", "not finite"]);
    // Index out of range in face 0.
    let mut out_of_range = good.clone();
    let faces = good.len() - (1 + 4 * 4 + 4) - (1 + 3 * 4 + 4);
    out_of_range[faces + 1..faces + 5].copy_from_slice(&99u32.to_le_bytes());
    assert_invalid(parse_err(&out_of_range), &["element 'face' 0", "out of range"]);
    // A huge element count with no data is an error, not an allocation.
    let huge = b"ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n";
    assert_invalid(parse_err(huge), &["element 'vertex' claims 4000000000 items", "the body has only 0 bytes"]);
    // A missing file / not gzip.
    assert!(matches!(load_ply(Path::new("/no/such.ply")), Err(SceneError::NotFound { .. })));
    let dir = tempfile::tempdir().unwrap();
    assert_invalid(load_ply(&temp_file(dir.path(), "x.ply.gz", b"not gzip")).unwrap_err(), &["gzip"]);
}

#[test]
fn short_faces_are_dropped_with_a_warning() {
    let text = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
                element face 2\nproperty list uchar int vertex_index\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n2 0 1\n";
    let asset = parse_ply(text.as_bytes(), Path::new("s.ply")).unwrap();
    assert_eq!(asset.triangle_count(), 1);
    assert!(asset.warnings.iter().any(|w| w.contains("fewer than 3")));
}
