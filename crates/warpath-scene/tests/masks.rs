//! Opacity masks from every scene format (docs/scene-format.md, "Opacity masks"): a TOML
//! material's `opacity` / `opacity_texture`, Mitsuba's `mask` BSDF (float, default and bitmap
//! opacities, a colour bitmap read as its luminance), pbrt-v4's shape `alpha` and glTF's
//! `alphaMode` (MASK with `alphaCutoff`, BLEND, OPAQUE) with the base colour's alpha.

use glam::Vec3;
use std::path::Path;
use warpath_core::material::{Material, MaterialKind};
use warpath_scene::{Scene, SceneError};

fn load(dir: &Path, file: &str, text: &str) -> Result<Scene, SceneError> {
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    warpath_scene::load(path.to_str().unwrap())
}

/// The material of the scene's first triangle.
fn first_material(scene: &Scene) -> &Material {
    &scene.materials[scene.triangle_materials[0] as usize]
}

/// A 2×1 PNG, RGBA: grey 128 opaque, and a colour at alpha 100.
fn write_png(dir: &Path, name: &str) {
    let mut image = image::RgbaImage::new(2, 1);
    image.put_pixel(0, 0, image::Rgba([128, 128, 128, 255]));
    image.put_pixel(1, 0, image::Rgba([255, 0, 0, 100]));
    image.save(dir.join(name)).unwrap();
}

#[test]
fn toml_opacity_and_opacity_texture() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "a.png");
    let text = "[[material]]\nname = \"m\"\ntype = \"diffuse\"\nopacity = 0.4\nopacity_texture = \"a.png\"\n\
                [[shape]]\ntype = \"rectangle\"\nmaterial = \"m\"\n";
    let scene = load(dir.path(), "s.toml", text).unwrap();
    let m = first_material(&scene);
    assert_eq!((m.opacity, m.is_masked()), (0.4, true));
    let texture = &scene.textures[m.opacity_texture as usize];
    // sRGB-decoded as a colour image; the first channel is read.
    assert!((texture.pixels[0].x - 0.2158605).abs() < 1e-5, "{:?}", texture.pixels);
    let error = load(dir.path(), "s.toml", &text.replace("0.4", "1.5")).unwrap_err().to_string();
    assert!(error.contains("opacity must be in [0, 1]") && error.contains(":4"), "{error}");
    let error = load(dir.path(), "s.toml", &text.replace("a.png", "gone.png")).unwrap_err().to_string();
    assert!(error.contains("gone.png") && error.contains(":5"), "{error}");
    let null = "[[material]]\nname = \"m\"\ntype = \"null\"\nopacity = 0.5\n[[shape]]\ntype = \"rectangle\"\nmaterial = \"m\"\n";
    let error = load(dir.path(), "n.toml", null).unwrap_err().to_string();
    assert!(error.contains("'opacity' does not apply"), "{error}");
    // Without the keys: opaque.
    let plain = "[[material]]\nname = \"m\"\ntype = \"diffuse\"\n[[shape]]\ntype = \"rectangle\"\nmaterial = \"m\"\n";
    let m = *first_material(&load(dir.path(), "p.toml", plain).unwrap());
    assert_eq!((m.opacity, m.opacity_texture, m.is_masked()), (1.0, -1, false));
}

#[test]
fn mitsuba_mask_wraps_its_bsdf() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "a.png");
    let xml = |bsdf: &str| {
        format!(
            "<scene version=\"3.0.0\">\n<emitter type=\"constant\"/><sensor type=\"perspective\"/>\n\
             <shape type=\"rectangle\">\n{bsdf}\n</shape>\n</scene>"
        )
    };
    let diffuse = r#"<bsdf type="twosided"><bsdf type="diffuse"/></bsdf>"#;
    let scene = load(
        dir.path(),
        "a.xml",
        &xml(&format!(r#"<bsdf type="mask"><float name="opacity" value="0.3"/>{diffuse}</bsdf>"#)),
    )
    .unwrap();
    let m = first_material(&scene);
    assert_eq!((m.kind(), m.opacity, m.opacity_texture, m.one_sided()), (MaterialKind::Diffuse, 0.3, -1, false));
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    // Mitsuba's default opacity is 0.5.
    let scene = load(dir.path(), "b.xml", &xml(&format!(r#"<bsdf type="mask">{diffuse}</bsdf>"#))).unwrap();
    assert_eq!(first_material(&scene).opacity, 0.5);
    // A colour bitmap becomes a grey texture of its (linear) luminance.
    let bitmap = r#"<texture name="opacity" type="bitmap"><string name="filename" value="a.png"/></texture>"#;
    let scene = load(dir.path(), "c.xml", &xml(&format!(r#"<bsdf type="mask">{bitmap}{diffuse}</bsdf>"#))).unwrap();
    let m = first_material(&scene);
    assert_eq!(m.opacity, 1.0);
    let grey = &scene.textures[m.opacity_texture as usize];
    assert!(grey.pixels.iter().all(|p| p.x == p.y && p.y == p.z), "{:?}", grey.pixels);
    assert!(
        (grey.pixels[0].x - 0.2158605).abs() < 1e-5 && (grey.pixels[1].x - 0.212671).abs() < 1e-5,
        "{:?}",
        grey.pixels
    );
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    // A mask in a mask: the opacities multiply.
    let nested = format!(
        r#"<bsdf type="mask"><float name="opacity" value="0.5"/><bsdf type="mask"><float name="opacity" value="0.4"/>{diffuse}</bsdf></bsdf>"#
    );
    assert_eq!(first_material(&load(dir.path(), "d.xml", &xml(&nested)).unwrap()).opacity, 0.2);
    // No nested BSDF: an error at the line.
    let error = load(dir.path(), "e.xml", &xml(r#"<bsdf type="mask"/>"#)).unwrap_err().to_string();
    assert!(error.contains("e.xml:4") && error.contains("exactly one nested <bsdf>"), "{error}");
}

#[test]
fn pbrt_shape_alpha_is_an_opacity_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "a.png");
    let shape = "Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"point2 uv\" [0 0 1 0 0 1] \"integer indices\" [0 1 2]";
    let head =
        "LookAt 0 0 5  0 0 0  0 1 0\nCamera \"perspective\"\nWorldBegin\nLightSource \"infinite\" \"rgb L\" [1 1 1]\n";
    let scene =
        load(dir.path(), "a.pbrt", &format!("{head}Material \"diffuse\"\n{shape} \"float alpha\" 0.25\n")).unwrap();
    let m = first_material(&scene);
    assert_eq!((m.kind(), m.opacity, m.opacity_texture), (MaterialKind::Diffuse, 0.25, -1));
    assert!(scene.warnings.iter().any(|w| w.contains("alpha") && w.contains("a.pbrt:6")), "{:?}", scene.warnings);
    let textured = format!(
        "{head}Texture \"cut\" \"float\" \"imagemap\" \"string filename\" \"a.png\"\n{shape} \"texture alpha\" \"cut\"\n"
    );
    let scene = load(dir.path(), "b.pbrt", &textured).unwrap();
    let m = first_material(&scene);
    assert_eq!(m.opacity, 1.0);
    assert!(m.opacity_texture >= 0);
    // Alpha 1: opaque, no warning.
    let scene = load(dir.path(), "c.pbrt", &format!("{head}{shape} \"float alpha\" 1\n")).unwrap();
    assert!(!first_material(&scene).is_masked());
    assert!(!scene.warnings.iter().any(|w| w.contains("alpha")), "{:?}", scene.warnings);
    let error = load(dir.path(), "d.pbrt", &format!("{head}{shape} \"texture alpha\" \"none\"\n")).unwrap_err();
    assert!(error.to_string().contains("no float texture named"), "{error}");
}

/// A glTF triangle with uvs and four materials over one RGBA texture (alpha 255 and 100).
fn gltf(dir: &Path) -> std::path::PathBuf {
    let mut b = Vec::new();
    for v in [0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::write(dir.join("b.bin"), &b).unwrap();
    write_png(dir, "a.png");
    let material = |name: &str, extra: &str| {
        format!(
            r#"{{ "name": "{name}", "pbrMetallicRoughness": {{ "baseColorFactor": [1, 1, 1, 0.5], "metallicFactor": 0,
                "baseColorTexture": {{ "index": 0 }} }}{extra} }}"#
        )
    };
    let text = format!(
        r#"{{ "asset": {{ "version": "2.0" }}, "scene": 0, "scenes": [{{ "nodes": [0] }}], "nodes": [{{ "mesh": 0 }}],
  "meshes": [{{ "primitives": [
    {{ "attributes": {{ "POSITION": 0, "TEXCOORD_0": 1 }}, "material": 0 }},
    {{ "attributes": {{ "POSITION": 0, "TEXCOORD_0": 1 }}, "material": 1 }},
    {{ "attributes": {{ "POSITION": 0, "TEXCOORD_0": 1 }}, "material": 2 }},
    {{ "attributes": {{ "POSITION": 0, "TEXCOORD_0": 1 }}, "material": 3 }} ] }}],
  "materials": [{}, {}, {}, {{ "name": "plain", "pbrMetallicRoughness": {{ "baseColorFactor": [1, 1, 1, 0.25] }},
    "alphaMode": "BLEND" }}],
  "textures": [{{ "source": 0 }}], "images": [{{ "uri": "a.png" }}],
  "buffers": [{{ "uri": "b.bin", "byteLength": 60 }}],
  "bufferViews": [{{ "buffer": 0, "byteOffset": 0, "byteLength": 36 }}, {{ "buffer": 0, "byteOffset": 36, "byteLength": 24 }}],
  "accessors": [
    {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0] }},
    {{ "bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2" }} ] }}"#,
        material("opaque", ""),
        material("cutout", r#", "alphaMode": "MASK", "alphaCutoff": 0.3"#),
        material("blend", r#", "alphaMode": "BLEND""#),
    );
    let path = dir.join("m.gltf");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn gltf_alpha_modes_make_opacity_masks() {
    let dir = tempfile::tempdir().unwrap();
    let asset = warpath_scene::gltf_loader::load_gltf(&gltf(dir.path())).unwrap();
    let m = |name: &str| asset.materials.iter().find(|m| m.name == name).unwrap();
    // OPAQUE ignores alpha.
    assert!(!m("opaque").material.is_masked() && m("opaque").opacity_texture.is_none());
    // MASK: alpha × factor (0.5 and 100/255 · 0.5 ≈ 0.196) against the cutoff 0.3.
    let cutout = m("cutout").opacity_texture.as_ref().expect("an opacity texture");
    assert_eq!(cutout.pixels, vec![Vec3::ONE, Vec3::ZERO]);
    assert!(asset.warnings.iter().any(|w| w.contains("'cutout'") && w.contains("before")), "{:?}", asset.warnings);
    // BLEND: the alpha itself, linear (not sRGB-decoded).
    let blend = m("blend").opacity_texture.as_ref().expect("an opacity texture");
    assert_eq!(blend.pixels[0], Vec3::splat(0.5));
    assert!((blend.pixels[1].x - 100.0 / 255.0 * 0.5).abs() < 1e-6, "{:?}", blend.pixels);
    // Without a texture, the factor's alpha.
    assert_eq!((m("plain").material.opacity, m("plain").opacity_texture.is_none()), (0.25, true));
    // In a scene: the textures are the scene's, the materials point at them.
    let scene = warpath_scene::load(dir.path().join("m.gltf").to_str().unwrap()).unwrap();
    let masked: Vec<&Material> = scene.materials.iter().filter(|m| m.opacity_texture >= 0).collect();
    assert_eq!(masked.len(), 2, "{:?}", scene.materials.iter().map(|m| m.opacity_texture).collect::<Vec<_>>());
}
