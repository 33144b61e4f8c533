//! Normal maps from every scene format (docs/scene-format.md): a TOML material's
//! `normal_texture`, Mitsuba's `normalmap` BSDF (with a `raw` bitmap, and the `twosided`
//! orders), pbrt-v4's `normalmap` parameter and glTF's `normalTexture` (in tests/gltf.rs).
//! Normal maps are read raw: an 8-bit texel v is v / 255, never sRGB-decoded.

use glam::Vec3;
use std::path::Path;
use warpath_core::material::{Material, MaterialKind};
use warpath_scene::{Scene, SceneError};

/// A 2×1 PNG: two normal-map texels of known 8-bit values.
const TEXELS: [[u8; 3]; 2] = [[128, 64, 255], [200, 100, 220]];

fn write_png(dir: &Path, name: &str) {
    let mut image = image::RgbImage::new(2, 1);
    for (x, t) in TEXELS.iter().enumerate() {
        image.put_pixel(x as u32, 0, image::Rgb(*t));
    }
    image.save(dir.join(name)).unwrap();
}

fn raw(t: [u8; 3]) -> Vec3 {
    Vec3::new(t[0] as f32, t[1] as f32, t[2] as f32) / 255.0
}

fn load(dir: &Path, file: &str, text: &str) -> Result<Scene, SceneError> {
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    warpath_scene::load(path.to_str().unwrap())
}

/// The material of the scene's first triangle.
fn first_material(scene: &Scene) -> &Material {
    &scene.materials[scene.triangle_materials[0] as usize]
}

fn assert_raw_normal_texture(scene: &Scene, m: &Material) {
    assert!(m.normal_texture >= 0, "no normal texture");
    let texture = &scene.textures[m.normal_texture as usize];
    assert_eq!(texture.pixels, TEXELS.map(raw).to_vec());
}

#[test]
fn toml_normal_texture_is_read_raw_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "n.png");
    let text = "[[material]]\nname = \"m\"\ntype = \"rough-conductor\"\nnormal_texture = \"n.png\"\n\
                [[shape]]\ntype = \"rectangle\"\nmaterial = \"m\"\n";
    let scene = load(dir.path(), "s.toml", text).unwrap();
    let m = first_material(&scene);
    assert_eq!(m.kind(), MaterialKind::RoughConductor);
    assert_raw_normal_texture(&scene, m);
    assert!(!scene.uvs.is_empty(), "the quad has texture coordinates");

    let missing = text.replace("n.png", "gone.png");
    let error = load(dir.path(), "s.toml", &missing).unwrap_err().to_string();
    assert!(error.contains("gone.png") && error.contains(":4"), "{error}");
    let black = text.replace("rough-conductor", "black");
    let error = load(dir.path(), "s.toml", &black).unwrap_err().to_string();
    assert!(error.contains("'normal_texture' does not apply"), "{error}");
}

#[test]
fn mitsuba_normalmap_wraps_its_bsdf_with_a_raw_bitmap() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "n.png");
    let xml = |inner: &str, raw: bool| {
        format!(
            r#"<scene version="3.0.0">
<emitter type="constant"/><sensor type="perspective"/>
<shape type="rectangle">
{inner}
</shape>
</scene>"#,
        )
        .replace(
            "NORMALMAP",
            &format!(
                r#"<texture name="normalmap" type="bitmap"><string name="filename" value="n.png"/>{}</texture>"#,
                if raw { r#"<boolean name="raw" value="true"/>"# } else { "" }
            ),
        )
    };
    // normalmap around a one-sided diffuse.
    let scene = load(
        dir.path(),
        "a.xml",
        &xml(r#"<bsdf type="normalmap">NORMALMAP<bsdf type="diffuse"><rgb name="reflectance" value="0.5"/></bsdf></bsdf>"#, true),
    )
    .unwrap();
    let m = first_material(&scene);
    assert_eq!((m.kind(), m.one_sided(), m.base_color), (MaterialKind::Diffuse, true, Vec3::splat(0.5)));
    assert_raw_normal_texture(&scene, m);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);

    // normalmap around twosided: exact, two-sided.
    let inner = r#"<bsdf type="normalmap">NORMALMAP<bsdf type="twosided"><bsdf type="conductor"/></bsdf></bsdf>"#;
    let scene = load(dir.path(), "b.xml", &xml(inner, true)).unwrap();
    let m = first_material(&scene);
    assert_eq!((m.kind(), m.one_sided()), (MaterialKind::Mirror, false));
    assert_raw_normal_texture(&scene, m);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);

    // twosided around normalmap: the back face differs from Mitsuba's, a warning.
    let inner = r#"<bsdf type="twosided"><bsdf type="normalmap">NORMALMAP<bsdf type="diffuse"/></bsdf></bsdf>"#;
    let scene = load(dir.path(), "c.xml", &xml(inner, true)).unwrap();
    assert!(!first_material(&scene).one_sided());
    assert!(scene.warnings.iter().any(|w| w.contains("back face")), "{:?}", scene.warnings);

    // Without raw the bitmap is sRGB-decoded, as Mitsuba decodes it.
    let inner = r#"<bsdf type="normalmap">NORMALMAP<bsdf type="diffuse"/></bsdf>"#;
    let scene = load(dir.path(), "d.xml", &xml(inner, false)).unwrap();
    let m = first_material(&scene);
    let decoded = scene.textures[m.normal_texture as usize].pixels[0];
    assert!((decoded.x - 0.2158605).abs() < 1e-5, "{decoded}");

    // No nested BSDF, no texture: errors naming the line.
    let error = load(dir.path(), "e.xml", &xml(r#"<bsdf type="normalmap">NORMALMAP</bsdf>"#, true)).unwrap_err();
    assert!(error.to_string().contains("exactly one nested <bsdf>"), "{error}");
    let error = load(dir.path(), "f.xml", &xml(r#"<bsdf type="normalmap"><bsdf type="diffuse"/></bsdf>"#, true))
        .unwrap_err()
        .to_string();
    assert!(error.contains("f.xml:4") && error.contains("needs a <texture"), "{error}");
}

#[test]
fn pbrt_normalmap_is_a_raw_normal_texture_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "n.png");
    let text = "LookAt 0 0 5  0 0 0  0 1 0\nCamera \"perspective\"\nWorldBegin\n\
                LightSource \"infinite\" \"rgb L\" [1 1 1]\n\
                Material \"conductor\" \"string normalmap\" \"n.png\"\n\
                Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"point2 uv\" [0 0 1 0 0 1] \"integer indices\" [0 1 2]\n";
    let scene = load(dir.path(), "s.pbrt", text).unwrap();
    assert_raw_normal_texture(&scene, first_material(&scene));
    assert!(scene.warnings.iter().any(|w| w.contains("normalmap") && w.contains("s.pbrt:5")), "{:?}", scene.warnings);
}
