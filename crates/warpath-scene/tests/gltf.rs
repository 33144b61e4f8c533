//! glTF 2.0: a hand-built file (.gltf with a base64 buffer, and .glb) with a node
//! hierarchy, indexed and non-indexed primitives, a points primitive, materials of every
//! mapping, an embedded texture and a camera; and the errors.

use glam::{Vec2, Vec3};
use std::path::Path;
use warpath_core::camera::FovAxis;
use warpath_core::material::MaterialKind;
use warpath_scene::SceneError;
use warpath_scene::gltf_loader::{load_gltf, parse_gltf};
use warpath_scene::toml_scene::load_any;

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// 2×2 PNG: top row red, bottom row blue.
fn png() -> Vec<u8> {
    let mut image = image::RgbImage::new(2, 2);
    for x in 0..2 {
        image.put_pixel(x, 0, image::Rgb([255, 0, 0]));
        image.put_pixel(x, 1, image::Rgb([0, 0, 255]));
    }
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).unwrap();
    bytes.into_inner()
}

/// The binary buffer: quad positions, normals, uvs (glTF: v = 0 at the image top), u16
/// indices; `bad_index` puts an out-of-range index in.
fn buffer(bad_index: bool) -> Vec<u8> {
    let mut b = Vec::new();
    for p in [[0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]] {
        p.iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    }
    for _ in 0..4 {
        [0f32, 0.0, 1.0].iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    }
    for uv in [[0f32, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]] {
        uv.iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    }
    let last = if bad_index { 9u16 } else { 0 };
    for i in [0u16, 1, 2, 2, 3, last] {
        b.extend_from_slice(&i.to_le_bytes());
    }
    b
}

fn document(buffer_uri: Option<&str>, buffer_len: usize, image_uri: &str) -> String {
    let uri = buffer_uri.map(|u| format!(r#""uri": "{u}", "#)).unwrap_or_default();
    format!(
        r#"{{
  "asset": {{ "version": "2.0" }},
  "extensionsUsed": ["KHR_materials_emissive_strength", "KHR_materials_transmission", "KHR_materials_ior"],
  "scene": 0,
  "scenes": [{{ "nodes": [0, 2] }}],
  "nodes": [
    {{ "translation": [0, 0, -2], "children": [1] }},
    {{ "mesh": 0, "scale": [2, 2, 2] }},
    {{ "camera": 0, "translation": [0, 0, 5] }}
  ],
  "cameras": [{{ "type": "perspective", "perspective": {{ "yfov": 0.5, "aspectRatio": 2.0, "znear": 0.1 }} }}],
  "meshes": [{{ "name": "quad", "primitives": [
    {{ "attributes": {{ "POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2 }}, "indices": 3, "material": 0 }},
    {{ "attributes": {{ "POSITION": 4 }}, "material": 1 }},
    {{ "attributes": {{ "POSITION": 0 }}, "mode": 0 }}
  ] }}],
  "materials": [
    {{ "name": "textured", "pbrMetallicRoughness": {{ "baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0,
       "baseColorTexture": {{ "index": 0 }} }}, "emissiveFactor": [1, 0.5, 0.25],
       "extensions": {{ "KHR_materials_emissive_strength": {{ "emissiveStrength": 4 }} }} }},
    {{ "name": "metal", "pbrMetallicRoughness": {{ "baseColorFactor": [0.9, 0.8, 0.7, 1], "metallicFactor": 1,
       "roughnessFactor": 0.4, "metallicRoughnessTexture": {{ "index": 0 }} }},
       "normalTexture": {{ "index": 0, "scale": 0.5 }} }},
    {{ "name": "glass", "pbrMetallicRoughness": {{ "metallicFactor": 0, "roughnessFactor": 0 }},
       "extensions": {{ "KHR_materials_transmission": {{ "transmissionFactor": 1 }},
                       "KHR_materials_ior": {{ "ior": 1.33 }} }} }},
    {{ "name": "frosted", "pbrMetallicRoughness": {{ "metallicFactor": 0, "roughnessFactor": 0.5 }},
       "extensions": {{ "KHR_materials_transmission": {{ "transmissionFactor": 1 }} }} }},
    {{ "name": "plain", "pbrMetallicRoughness": {{ "baseColorFactor": [0.2, 0.4, 0.6, 1], "metallicFactor": 0 }} }}
  ],
  "textures": [{{ "source": 0 }}],
  "images": [{{ "uri": "{image_uri}" }}],
  "buffers": [{{ {uri}"byteLength": {buffer_len} }}],
  "bufferViews": [
    {{ "buffer": 0, "byteOffset": 0, "byteLength": 48 }},
    {{ "buffer": 0, "byteOffset": 48, "byteLength": 48 }},
    {{ "buffer": 0, "byteOffset": 96, "byteLength": 32 }},
    {{ "buffer": 0, "byteOffset": 128, "byteLength": 12 }}
  ],
  "accessors": [
    {{ "bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0] }},
    {{ "bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3" }},
    {{ "bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC2" }},
    {{ "bufferView": 3, "componentType": 5123, "count": 6, "type": "SCALAR" }},
    {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0] }}
  ]
}}"#
    )
}

fn png_data_uri() -> String {
    format!("data:image/png;base64,{}", base64(&png()))
}

fn gltf_text(bad_index: bool) -> String {
    let b = buffer(bad_index);
    document(Some(&format!("data:application/octet-stream;base64,{}", base64(&b))), b.len(), &png_data_uri())
}

fn glb() -> Vec<u8> {
    let bin = buffer(false);
    let mut json = document(None, bin.len(), &png_data_uri()).into_bytes();
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    let mut bin_padded = bin.clone();
    while bin_padded.len() % 4 != 0 {
        bin_padded.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin_padded.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin_padded.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin_padded);
    out
}

fn check(path: &Path) {
    let asset = load_gltf(path).unwrap();
    assert!(asset.warnings.iter().any(|w| w.contains("not TRIANGLES")), "{:?}", asset.warnings);
    let m = |name: &str| asset.materials.iter().find(|m| m.name == name).unwrap();
    let textured = m("textured");
    // Every metallic-roughness material is a principled one.
    assert!(asset.materials.iter().all(|m| m.material.kind() == MaterialKind::Principled));
    assert_eq!((textured.material.metallic, textured.material.spec_trans), (0.0, 0.0));
    assert_eq!(textured.material.emission, Vec3::new(4.0, 2.0, 1.0));
    assert_eq!((m("metal").material.metallic, m("metal").material.roughness), (1.0, 0.4));
    assert!((m("metal").material.base_color - Vec3::new(0.9, 0.8, 0.7)).length() < 1e-6);
    let glass = m("glass").material;
    assert_eq!((glass.ior, glass.spec_trans, glass.metallic, glass.roughness), (1.33, 1.0, 0.0, 0.0));
    assert_eq!((m("frosted").material.ior, m("frosted").material.spec_trans), (1.5, 1.0));
    // glTF's default roughness is 1.
    assert_eq!((m("plain").material.metallic, m("plain").material.roughness), (0.0, 1.0));
    // The normal texture: read raw (no sRGB decoding), its scale 0.5 applied to the
    // normal's x and y: the red top row (1, 0, 0) encodes (1, -1, -1) → (0.5, -0.5, -1).
    assert!(textured.normal_texture.is_none());
    let normals = m("metal").normal_texture.as_ref().expect("the metal's normal texture");
    assert_eq!(normals.pixels[0], Vec3::new(0.75, 0.25, 0.0));
    assert_eq!(normals.pixels[3], Vec3::new(0.25, 0.25, 1.0));
    // metallicRoughnessTexture: green (0 everywhere) the roughness, blue (the bottom row)
    // the metallic weight, each its own gray texture, the factors kept as the scalars.
    assert!(textured.roughness_texture.is_none() && textured.metallic_texture.is_none());
    let roughness = m("metal").roughness_texture.as_ref().expect("the metal's roughness texture");
    let metallic = m("metal").metallic_texture.as_ref().expect("the metal's metallic texture");
    assert_eq!(roughness.pixels, vec![Vec3::ZERO; 4]);
    assert_eq!(metallic.pixels, [0.0, 0.0, 1.0, 1.0].map(Vec3::splat).to_vec());

    let scene = load_any(path).unwrap();
    // Indexed quad (2 triangles) + non-indexed triangle.
    assert_eq!(scene.triangle_count(), 3);
    // Node transforms: scale 2 then translate z -2.
    assert!(scene.positions.iter().any(|p| *p == Vec3::new(2.0, 2.0, -2.0)), "{:?}", scene.positions);
    // Texture: glTF uv (0, 0) is the image top (red); after the flip our uv of vertex 3
    // (glTF uv (0,0)) must sample red.
    // The base color texture, the metal's normal texture (the same image, read twice) and its
    // roughness and metallic textures.
    assert_eq!(scene.textures.len(), 4);
    let texture = &scene.textures[0];
    let top_left = scene.positions.iter().position(|p| *p == Vec3::new(0.0, 2.0, -2.0)).unwrap();
    let uv = scene.uvs[top_left];
    assert!((uv - Vec2::new(0.0, 1.0)).length() < 1e-6);
    let red = texture.sample(uv * 0.999 + Vec2::splat(0.0005) + Vec2::new(0.25, -0.25));
    assert!(red.x > 0.9 && red.z < 0.1, "{red}");
    // Camera: at (0, 0, 5) looking down -z, fov along y, width from the aspect ratio.
    assert_eq!(scene.camera.position(), Vec3::new(0.0, 0.0, 5.0));
    assert!((scene.camera.to_world.z_axis.truncate() - -Vec3::Z).length() < 1e-6);
    assert!((scene.camera.to_world.x_axis.truncate() - -Vec3::X).length() < 1e-6, "+x is left");
    assert_eq!(scene.camera.fov_axis, FovAxis::Y);
    assert!((scene.camera.fov_degrees - 0.5f32.to_degrees()).abs() < 1e-4);
    assert_eq!(scene.settings.width, 2 * scene.settings.height);
}

#[test]
fn gltf_and_glb_load_alike() {
    let dir = tempfile::tempdir().unwrap();
    let gltf_path = dir.path().join("scene.gltf");
    std::fs::write(&gltf_path, gltf_text(false)).unwrap();
    check(&gltf_path);
    let glb_path = dir.path().join("scene.glb");
    std::fs::write(&glb_path, glb()).unwrap();
    check(&glb_path);
}

#[test]
fn external_buffer_and_image_files() {
    let dir = tempfile::tempdir().unwrap();
    let b = buffer(false);
    std::fs::write(dir.path().join("data file.bin"), &b).unwrap();
    std::fs::write(dir.path().join("tex.png"), png()).unwrap();
    let path = dir.path().join("ext.gltf");
    std::fs::write(&path, document(Some("data%20file.bin"), b.len(), "tex.png")).unwrap();
    let scene = load_any(&path).unwrap();
    assert_eq!(scene.triangle_count(), 3);
    // The base color texture, the metal's normal texture (an external file read raw) and its
    // roughness and metallic textures.
    assert_eq!(scene.textures.len(), 4);
    assert_eq!(scene.textures[1].pixels[0], Vec3::new(0.75, 0.25, 0.0));
    // Missing buffer and missing texture files.
    std::fs::write(&path, document(Some("gone.bin"), b.len(), "tex.png")).unwrap();
    assert!(matches!(load_gltf(&path), Err(SceneError::NotFound { path, .. }) if path.ends_with("gone.bin")));
    std::fs::write(&path, document(Some("data%20file.bin"), b.len(), "gone.png")).unwrap();
    match load_gltf(&path) {
        Err(e @ SceneError::NotFound { .. }) => assert!(e.to_string().contains("textured"), "{e}"),
        other => panic!("expected NotFound, got {:?}", other.map(|a| a.triangle_count())),
    }
}

#[test]
fn bad_gltf_files_give_errors() {
    let p = Path::new("bad.gltf");
    let json = "{\n  \"asset\": { \"version\": \"2.0\" },\n  \"nodes\": [ oops ]\n}\n";
    assert!(matches!(parse_gltf(json.as_bytes(), p), Err(SceneError::Parse { line: 3, .. })));
    assert!(matches!(parse_gltf(b"", p), Err(SceneError::Invalid { message, .. }) if message.contains("empty")));
    assert!(matches!(parse_gltf(b"glTF\x02\0\0\0\xff\0\0\0", p), Err(SceneError::Invalid { .. })));
    // A reference to a mesh that does not exist.
    let json = r#"{"asset": {"version": "2.0"}, "nodes": [{"mesh": 3}]}"#;
    assert!(matches!(parse_gltf(json.as_bytes(), p), Err(SceneError::Invalid { .. })));
    // An index beyond the vertex count.
    match parse_gltf(gltf_text(true).as_bytes(), p) {
        Err(SceneError::Invalid { message, .. }) => assert!(message.contains("out of range"), "{message}"),
        other => panic!("expected Invalid, got {:?}", other.map(|a| a.triangle_count())),
    }
}
