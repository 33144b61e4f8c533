//! No input makes a parser panic: random bytes, and random mutations and truncations of
//! valid files, fed to the PLY, OBJ, glTF and TOML parsers, give a scene or an error.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use warpath_scene::{gltf_loader, obj, ply, toml_scene};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap()
}

fn binary_ply() -> Vec<u8> {
    let mut out = b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
        .to_vec();
    for v in [0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.push(3);
    for i in [0i32, 1, 2] {
        out.extend_from_slice(&i.to_le_bytes());
    }
    out
}

const OBJ: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvn 0 0 1\nf 1/1/1 2/1/1 3/1/1 4/1/1\nf -1 -2 -3\n";

/// Applies byte overwrites and an optional truncation.
fn mutate(mut bytes: Vec<u8>, edits: &[(usize, u8)], cut: Option<usize>) -> Vec<u8> {
    if bytes.is_empty() {
        return bytes;
    }
    for &(at, value) in edits {
        let i = at % bytes.len();
        bytes[i] = value;
    }
    if let Some(cut) = cut {
        bytes.truncate(cut % (bytes.len() + 1));
    }
    bytes
}

/// Mutations biased toward bytes that matter to text formats.
fn edit() -> impl Strategy<Value = (usize, u8)> {
    (any::<usize>(), prop_oneof![any::<u8>(), prop::sample::select(b"0123456789-.e \n[]{}\",=:/#".to_vec())])
}

fn run_all(bytes: &[u8]) {
    let _ = ply::parse_ply(bytes, Path::new("fuzz.ply"));
    let _ = gltf_loader::parse_gltf(bytes, &data("fuzz.gltf"));
    let text = String::from_utf8_lossy(bytes);
    let _ = obj::parse_obj(&text, &data("fuzz.obj"));
    let _ = toml_scene::parse_toml_scene(&text, &data("fuzz.toml"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        run_all(&bytes);
        let mut with_magic = b"ply\nformat binary_little_endian 1.0\n".to_vec();
        with_magic.extend_from_slice(&bytes);
        let _ = ply::parse_ply(&with_magic, Path::new("fuzz.ply"));
        let mut glb = b"glTF\x02\0\0\0".to_vec();
        glb.extend_from_slice(&bytes);
        let _ = gltf_loader::parse_gltf(&glb, Path::new("fuzz.glb"));
    }

    #[test]
    fn mutated_ply_never_panics(edits in prop::collection::vec(edit(), 1..6), cut in prop::option::of(any::<usize>())) {
        let _ = ply::parse_ply(&mutate(read("pyramid.ply"), &edits, cut), Path::new("m.ply"));
        let _ = ply::parse_ply(&mutate(binary_ply(), &edits, cut), Path::new("m.ply"));
    }

    #[test]
    fn mutated_obj_never_panics(edits in prop::collection::vec(edit(), 1..6), cut in prop::option::of(any::<usize>())) {
        let bytes = mutate(OBJ.as_bytes().to_vec(), &edits, cut);
        let _ = obj::parse_obj(&String::from_utf8_lossy(&bytes), &data("m.obj"));
    }

    #[test]
    fn mutated_gltf_never_panics(edits in prop::collection::vec(edit(), 1..6), cut in prop::option::of(any::<usize>())) {
        let bytes = mutate(read("triangle.gltf"), &edits, cut);
        // parse_gltf turns a panic inside the gltf crate into an error; the inputs here
        // must not even get that far.
        if let Err(e) = gltf_loader::parse_gltf(&bytes, &data("m.gltf")) {
            prop_assert!(!e.to_string().contains("reader failed"), "{}", e);
        }
    }

    #[test]
    fn mutated_toml_never_panics(edits in prop::collection::vec(edit(), 1..6), cut in prop::option::of(any::<usize>())) {
        let bytes = mutate(read("example.toml"), &edits, cut);
        let _ = toml_scene::parse_toml_scene(&String::from_utf8_lossy(&bytes), &data("m.toml"));
    }
}

#[test]
fn the_unmutated_inputs_are_valid() {
    assert_eq!(ply::parse_ply(&binary_ply(), Path::new("b.ply")).unwrap().triangle_count(), 1);
    assert_eq!(obj::parse_obj(OBJ, &data("o.obj")).unwrap().triangle_count(), 3);
    let asset = gltf_loader::load_gltf(&data("triangle.gltf")).unwrap();
    assert_eq!(asset.triangle_count(), 1);
    assert_eq!(asset.meshes[0].positions[1], glam::Vec3::new(1.0, 0.0, 1.0));
}
