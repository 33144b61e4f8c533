//! The loader cases of issue 12, each as input → the clear error or warning expected:
//! headers that claim absurd sizes (EXR, PNG, HDR, PLY) are errors naming the file and the
//! claimed size, before anything is allocated; files that render nothing (an empty TOML, an
//! empty OBJ, a PLY with no faces, a scene without light) load with a warning that says
//! so; every clamp, drop or zeroing a loader does is a warning naming the file; misleading
//! messages say what is wrong in the user's terms. Inputs that once crashed or hung live in
//! `tests/regressions/`.

use glam::Vec3;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use warpath_scene::image_io::load_image;
use warpath_scene::toml_scene::{load_any, parse_toml_scene};
use warpath_scene::{SceneError, gltf_loader, obj, ply};

fn regression(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions").join(name)
}

fn error_text<T>(result: Result<T, SceneError>) -> String {
    match result {
        Err(e) => e.to_string(),
        Ok(_) => panic!("expected an error"),
    }
}

fn assert_contains(text: &str, needles: &[&str]) {
    for n in needles {
        assert!(text.contains(n), "'{n}' missing from: {text}");
    }
}

/// Writes a small float RGB EXR.
fn write_exr(path: &Path, width: usize, height: usize, pixels: &[Vec3]) {
    use exr::prelude::*;
    let channels = SpecificChannels::rgb(|p: Vec2<usize>| {
        let c = pixels[p.y() * width + p.x()];
        (c.x, c.y, c.z)
    });
    Image::from_channels((width, height), channels).write().to_file(path).unwrap();
}

#[test]
fn an_exr_claiming_a_million_squared_pixels_is_an_error_not_an_abort() {
    let path = regression("exr-data-window-1e6.exr");
    assert!(std::fs::metadata(&path).unwrap().len() < 1000, "a few hundred bytes");
    let message = error_text(load_image(&path));
    assert_contains(&message, &["exr-data-window-1e6.exr", "EXR data window", "1000000×1000000 pixels", "limit"]);

    // The same file as an environment map and as a texture: the error names the image.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&path, dir.path().join("huge.exr")).unwrap();
    let scene = dir.path().join("s.toml");
    std::fs::write(&scene, "[environment]\ntype = \"map\"\nfile = \"huge.exr\"\n").unwrap();
    assert_contains(&error_text(load_any(&scene)), &["huge.exr", "1000000×1000000"]);
    std::fs::write(
        &scene,
        "[[material]]\nname = \"m\"\ntype = \"diffuse\"\nbase_color_texture = \"huge.exr\"\n[[shape]]\ntype = \"cube\"\n",
    )
    .unwrap();
    assert_contains(&error_text(load_any(&scene)), &["huge.exr", "1000000×1000000"]);
}

#[test]
fn png_and_hdr_headers_claiming_100000_squared_name_the_size() {
    for (name, kind) in [("png-header-100000-square.png", "PNG"), ("hdr-header-100000-square.hdr", "HDR")] {
        let message = error_text(load_image(&regression(name)));
        assert_contains(&message, &[name, &format!("{kind} header"), "100000×100000 pixels", "268435456 pixels"]);
        assert!(!message.contains("Memory limit exceeded"), "{message}");
    }
}

#[test]
fn a_corrupt_png_names_the_chunk_without_a_debug_dump() {
    let message = error_text(load_image(&regression("png-ihdr-crc-mismatch.png")));
    assert_contains(&message, &["png-ihdr-crc-mismatch.png", "not a valid PNG file", "IHDR"]);
    assert!(!message.contains("ChunkType") && !message.contains("critical:"), "{message}");
}

#[test]
fn a_ply_element_of_1e14_empty_items_is_an_error_at_once() {
    let path = regression("ply-junk-element-1e14.ply");
    let start = Instant::now();
    let message = error_text(ply::load_ply(&path));
    assert!(start.elapsed() < Duration::from_secs(1), "took {:?}", start.elapsed());
    assert_contains(&message, &["ply-junk-element-1e14.ply", "element 'junk' claims 100000000000000 items", "limit"]);
    // Within the limit, items without properties cost nothing: the mesh loads.
    let bytes = std::fs::read(&path).unwrap();
    let claim = b"junk 100000000000000";
    let at = bytes.windows(claim.len()).position(|w| w == claim).unwrap();
    let bytes = [&bytes[..at], b"junk 4000000000", &bytes[at + claim.len()..]].concat();
    let asset = ply::parse_ply(&bytes, Path::new("junk.ply")).unwrap();
    assert_eq!(asset.triangle_count(), 1);
}

#[test]
fn a_ply_count_larger_than_the_body_is_an_error() {
    let text = "ply\nformat binary_little_endian 1.0\nelement vertex 100000000\nproperty float x\n\
                property float y\nproperty float z\nend_header\n\0\0\0\0";
    let message = error_text(ply::parse_ply(text.as_bytes(), Path::new("big.ply")));
    assert_contains(&message, &["big.ply", "element 'vertex' claims 100000000 items of at least 12 bytes", "4 bytes"]);
}

#[test]
fn an_empty_toml_scene_loads_with_a_warning_that_the_image_is_black() {
    let scene = parse_toml_scene("", Path::new("empty.toml")).unwrap();
    assert_eq!(scene.triangle_count(), 0);
    assert_eq!(scene.warnings.len(), 1, "{:?}", scene.warnings);
    assert_contains(&scene.warnings[0], &["empty.toml", "no geometry and no light", "black"]);
}

#[test]
fn geometry_without_light_and_light_without_geometry_are_warned_about() {
    let unlit = parse_toml_scene("[[shape]]\ntype = \"cube\"\n", Path::new("unlit.toml")).unwrap();
    assert_eq!(unlit.warnings.len(), 1, "{:?}", unlit.warnings);
    assert_contains(&unlit.warnings[0], &["unlit.toml", "no light", "black"]);
    let sky = parse_toml_scene("[environment]\ntype = \"constant\"\n", Path::new("sky.toml")).unwrap();
    assert_contains(&sky.warnings.join("\n"), &["sky.toml", "no geometry", "only the environment"]);
    let lit = "[environment]\ntype = \"constant\"\n[[shape]]\ntype = \"cube\"\n";
    assert!(parse_toml_scene(lit, Path::new("lit.toml")).unwrap().warnings.is_empty());
    // A black environment is no light.
    let black = "[environment]\ntype = \"constant\"\nradiance = 0\n[[shape]]\ntype = \"cube\"\n";
    assert_contains(&parse_toml_scene(black, Path::new("b.toml")).unwrap().warnings.join("\n"), &["no light"]);
}

#[test]
fn an_empty_obj_warns_and_a_binary_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.obj");
    std::fs::write(&empty, "").unwrap();
    let scene = load_any(&empty).unwrap();
    let warnings = scene.warnings.join("\n");
    assert_contains(&warnings, &["empty.obj: the file holds no triangles", "no geometry"]);

    let garbage = dir.path().join("garbage.obj");
    let bytes: Vec<u8> = (0..400u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    assert!(bytes.contains(&0));
    std::fs::write(&garbage, &bytes).unwrap();
    assert_contains(&error_text(load_any(&garbage)), &["garbage.obj", "not a text file", "NUL byte at offset"]);

    // Text that is not OBJ: each unknown statement is counted.
    let asset = obj::parse_obj("hello world\nv 0 0 0\nthis is not obj\n", Path::new("prose.obj")).unwrap();
    assert_contains(&asset.warnings.join("\n"), &["prose.obj", "skipped 2 line(s)", "line 1: 'hello world'"]);
}

#[test]
fn a_ply_without_faces_warns_that_nothing_renders() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("points.ply");
    let text = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
                end_header\n0 0 0\n1 0 0\n0 1 0\n";
    std::fs::write(&path, text).unwrap();
    let scene = load_any(&path).unwrap();
    assert_eq!(scene.triangle_count(), 0);
    assert_contains(&scene.warnings.join("\n"), &["points.ply: the file holds no triangles", "no geometry"]);
}

#[test]
fn non_finite_and_negative_environment_pixels_are_counted_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut pixels = vec![Vec3::splat(0.5); 8 * 4];
    pixels[0] = Vec3::new(f32::NAN, 0.0, 0.0);
    pixels[1] = Vec3::splat(f32::INFINITY);
    pixels[2] = Vec3::new(-1.0, 0.5, 0.5);
    pixels[3] = Vec3::new(0.5, -0.25, 0.5);
    pixels[4] = Vec3::new(0.5, 0.5, f32::NEG_INFINITY);
    write_exr(&dir.path().join("sky.exr"), 8, 4, &pixels);
    let path = dir.path().join("s.toml");
    std::fs::write(&path, "[environment]\ntype = \"map\"\nfile = \"sky.exr\"\n[[shape]]\ntype = \"cube\"\n").unwrap();
    let scene = load_any(&path).unwrap();
    let warnings = scene.warnings.join("\n");
    assert_contains(
        &warnings,
        &["sky.exr: environment map", "3 pixel(s) with NaN or infinite values set to 0", "2 pixel(s) with negative"],
    );
    match &scene.environment {
        warpath_core::light::Environment::Map(m) => {
            assert!(m.pixels.iter().all(|p| p.is_finite() && p.min_element() >= 0.0));
        }
        _ => panic!("expected a map"),
    }
}

#[test]
fn rotate_y_nan_is_an_error_at_its_line() {
    let text = "[[shape]]\ntype = \"cube\"\n[environment]\ntype = \"map\"\nfile = \"x.exr\"\nrotate_y = nan\n";
    // The map file is checked after rotate_y: write one so only rotate_y can fail.
    let dir = tempfile::tempdir().unwrap();
    write_exr(&dir.path().join("x.exr"), 2, 1, &[Vec3::ONE; 2]);
    match parse_toml_scene(text, &dir.path().join("r.toml")) {
        Err(SceneError::Parse { line, message, .. }) => {
            assert_eq!(line, 6, "{message}");
            assert_contains(&message, &["rotate_y must be finite", "NaN"]);
        }
        other => panic!("expected a Parse error, got {:?}", other.map(|s| s.name)),
    }
}

#[test]
fn mtl_values_out_of_range_are_clamped_with_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let mtl = "newmtl hot\nKd 1.5 -0.5 0.5\nKs 2 2 2\nNs -3\nKe -1 0 0\nnewmtl odd\nNi -2\nd 0.5\nnewmtl fine\nKd 0.5 0.5 0.5\n";
    std::fs::write(dir.path().join("m.mtl"), mtl).unwrap();
    let obj_text = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl hot\nf 1 2 3\n";
    std::fs::write(dir.path().join("m.obj"), obj_text).unwrap();
    let asset = obj::load_obj(&dir.path().join("m.obj")).unwrap();
    let warnings = asset.warnings.join("\n");
    assert_contains(
        &warnings,
        &[
            "m.mtl: material 'hot': Kd [1.5, -0.5, 0.5] is outside [0, 1]; clamped to [1, 0, 0.5]",
            "material 'hot': Ks [2, 2, 2] is outside [0, 1]",
            "material 'hot': Ns -3",
            "material 'hot': Ke [-1, 0, 0] is negative or not finite; dropped",
            "material 'odd': Ni -2 is not a positive number",
        ],
    );
    assert!(!warnings.contains("'fine'"), "{warnings}");
    assert_eq!(asset.materials[0].material.base_color, Vec3::new(1.0, 0.0, 0.5));
    // parse_mtl gives the same warnings for MTL text alone.
    let (materials, warnings) = obj::parse_mtl(mtl, &dir.path().join("m.mtl")).unwrap();
    assert_eq!(materials.len(), 3);
    assert_eq!(warnings.len(), 5, "{warnings:?}");
}

/// A glTF with one triangle and the material `material` (JSON object text).
fn gltf_with_material(material: &str) -> String {
    let mut buffer = Vec::new();
    for v in [0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        buffer.extend_from_slice(&v.to_le_bytes());
    }
    let base64 = base64_encode(&buffer);
    format!(
        r#"{{"asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"nodes": [0]}}], "nodes": [{{"mesh": 0}}],
        "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0}}, "material": 0}}]}}],
        "materials": [{material}],
        "accessors": [{{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 0]}}],
        "bufferViews": [{{"buffer": 0, "byteLength": 36}}],
        "buffers": [{{"byteLength": 36, "uri": "data:application/octet-stream;base64,{base64}"}}]}}"#
    )
}

fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn gltf_values_out_of_range_are_clamped_with_warnings() {
    let material = r#"{"name": "hot", "pbrMetallicRoughness": {"baseColorFactor": [2, 0.5, -1, 1],
        "roughnessFactor": 3}, "emissiveFactor": [1, 1, 1],
        "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": -5}}}"#;
    let text = gltf_with_material(material);
    let asset = gltf_loader::parse_gltf(text.as_bytes(), Path::new("hot.gltf")).unwrap();
    let warnings = asset.warnings.join("\n");
    assert_contains(
        &warnings,
        &[
            "hot.gltf: material 'hot': baseColorFactor [2, 0.5, -1] is outside [0, 1]; clamped to [1, 0.5, 0]",
            "material 'hot': roughnessFactor 3 is outside [0, 1]; clamped to 1",
            "material 'hot': emission [-5, -5, -5]",
        ],
    );
    assert_eq!(asset.materials[0].material.base_color, Vec3::new(1.0, 0.5, 0.0));
    assert_eq!(asset.materials[0].material.emission, Vec3::ZERO);
    let fine = gltf_with_material(r#"{"name": "fine"}"#);
    assert!(gltf_loader::parse_gltf(fine.as_bytes(), Path::new("fine.gltf")).unwrap().warnings.is_empty());
}

#[test]
fn obj_index_zero_says_indices_start_at_one() {
    let message = error_text(obj::parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 0 1 2\n", Path::new("z.obj")));
    assert_contains(&message, &["z.obj:5", "vertex 0", "OBJ indices start at 1"]);
    assert!(!message.contains("only 4 are defined"), "{message}");
}

#[test]
fn gltf_messages_speak_gltf_not_rust() {
    // A .glb whose magic is wrong.
    let message = error_text(gltf_loader::parse_gltf(b"glTX\x02\0\0\0\x20\0\0\0", Path::new("bad.glb")));
    assert_contains(&message, &["bad.glb", "not a GLB file", "'glTF'", "'glTX'"]);
    assert!(!message.contains("line 1 column 1"), "{message}");
    // A .gltf that is not JSON.
    let message = error_text(gltf_loader::parse_gltf(b"solid cube\n", Path::new("cube.gltf")));
    assert_contains(&message, &["cube.gltf", "not a glTF file"]);
    // An attribute naming an accessor that does not exist: the glTF name, no Debug text.
    let text = gltf_with_material(r#"{"name": "m"}"#).replace(r#""POSITION": 0"#, r#""POSITION": 7"#);
    let message = error_text(gltf_loader::parse_gltf(text.as_bytes(), Path::new("a.gltf")));
    assert_contains(&message, &["a.gltf", "POSITION refers to accessor 7"]);
    assert!(!message.contains("Valid("), "{message}");
}

#[test]
fn short_mtl_colors_are_gray_or_an_error_at_their_line_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mtl = dir.path().join("m.mtl");
    // One value is a gray (the MTL format's rule); tobj panicked on it before.
    let (materials, warnings) = obj::parse_mtl("newmtl gray\nKd 0.4\n", &mtl).unwrap();
    assert_eq!(materials[0].material.base_color, Vec3::splat(0.4));
    assert!(warnings.is_empty(), "{warnings:?}");
    for (text, line, needle) in [
        ("newmtl a\nKa\n", 2, "'Ka' needs r g b"),
        ("newmtl a\n\nKs 0.3 0.0\n", 3, "'Ks' needs r g b"),
        ("newmtl a\nKd spectral file.spd\n", 2, "'Kd spectral' colors are not supported"),
        ("newmtl a\nNs\n", 2, "'Ns' needs a number"),
        ("newmtl\n", 1, "'newmtl' needs a material name"),
    ] {
        match obj::parse_mtl(text, &mtl) {
            Err(SceneError::Parse { line: got, message, path }) => {
                assert_eq!((got, path.as_path()), (line, mtl.as_path()), "{message}");
                assert!(message.contains(needle), "'{needle}' missing from: {message}");
            }
            other => panic!("expected a Parse error for {text:?}, got {:?}", other.map(|m| m.0.len())),
        }
    }
    // Through an OBJ: the error names the MTL file and line.
    std::fs::write(&mtl, "newmtl a\nKd 0.3 0.0\n").unwrap();
    std::fs::write(dir.path().join("o.obj"), "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    assert_contains(&error_text(obj::load_obj(&dir.path().join("o.obj"))), &["m.mtl:2", "'Kd' needs r g b"]);
}

#[test]
fn obj_vertex_colors_on_some_vertices_are_ignored_with_a_warning() {
    let text = "v 0 0 0 1 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    let asset = obj::parse_obj(text, Path::new("colors.obj")).unwrap();
    assert_eq!(asset.triangle_count(), 1);
    assert_contains(&asset.warnings.join("\n"), &["colors.obj", "vertex colors", "1 of 3 vertices"]);
    let message = error_text(obj::parse_obj("v 0 0 0 0\n", Path::new("w.obj")));
    assert_contains(&message, &["w.obj:1", "weight w is 0"]);
}

#[test]
fn gltf_accessors_outside_their_buffers_are_errors_not_panics() {
    let base = gltf_with_material(r#"{"name": "m"}"#);
    for (from, to, needle) in [
        (r#""count": 3, "type": "VEC3""#, r#""count": 0, "type": "VEC3""#, "count is 0"),
        (r#""count": 3, "type": "VEC3""#, r#""count": 4, "type": "VEC3""#, "do not fit in bufferView 0"),
        (
            r#""bufferViews": [{"buffer": 0, "byteLength": 36}]"#,
            r#""bufferViews": [{"buffer": 0, "byteLength": 36, "byteStride": 8}]"#,
            "byteStride 8",
        ),
    ] {
        let text = base.replace(from, to);
        assert_ne!(text, base, "{from}");
        let message = error_text(gltf_loader::parse_gltf(text.as_bytes(), Path::new("a.gltf")));
        assert_contains(&message, &["a.gltf", "POSITION (accessor 0)", needle]);
        assert!(!message.contains("reader failed"), "{message}");
    }
    // A texture image with neither a uri nor a bufferView.
    let material = r#"{"name": "t", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}"#;
    let text = gltf_with_material(material)
        .replace(r#""accessors""#, r#""textures": [{"source": 0}], "images": [{"name": "nothing"}], "accessors""#);
    let message = error_text(gltf_loader::parse_gltf(text.as_bytes(), Path::new("i.gltf")));
    assert_contains(&message, &["i.gltf", "images[0] has neither a uri nor a bufferView"]);
}

#[test]
fn attributes_a_loader_cannot_use_are_dropped_with_a_warning() {
    let text =
        gltf_with_material(r#"{"name": "m"}"#).replace(r#""POSITION": 0"#, r#""POSITION": 0, "NORMAL": 1"#).replace(
            r#""max": [1, 1, 0]}]"#,
            r#""max": [1, 1, 0]}, {"bufferView": 0, "componentType": 5121, "count": 3, "type": "VEC3"}]"#,
        );
    let asset = gltf_loader::parse_gltf(text.as_bytes(), Path::new("n.gltf")).unwrap();
    assert!(asset.meshes[0].normals.is_empty());
    assert_contains(
        &asset.warnings.join("\n"),
        &["n.gltf: primitive", "NORMAL ignored (an unsupported component type)"],
    );
    // OBJ normals on some faces only.
    let obj_text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\nf 2 4 3\n";
    let asset = obj::parse_obj(obj_text, Path::new("n.obj")).unwrap();
    assert_eq!(asset.triangle_count(), 2);
    assert!(asset.meshes[0].normals.is_empty());
    assert_contains(&asset.warnings.join("\n"), &["n.obj: object", "normals ignored (3 for 6 vertices"]);
}
