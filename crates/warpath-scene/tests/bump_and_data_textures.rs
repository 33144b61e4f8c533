//! Bump maps and roughness and metallic textures from every scene format
//! (docs/scene-format.md): a TOML material's `bump_texture`/`bump_scale`/`roughness_texture`/
//! `metallic_texture`, Mitsuba's `bumpmap` BSDF and `alpha`/`roughness`/`metallic` textures,
//! pbrt-v4's `displacement` and roughness textures. Each becomes a one-channel texture (gray)
//! of the image's luminance (Mitsuba, TOML) or channel mean (pbrt), read raw.

use glam::Vec3;
use std::path::Path;
use warpath_core::material::{Material, MaterialKind};
use warpath_scene::{Scene, SceneError};

/// A 2×1 PNG whose channels differ.
const TEXELS: [[u8; 3]; 2] = [[200, 40, 90], [10, 250, 128]];

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

fn luminance(t: [u8; 3]) -> f32 {
    let c = raw(t);
    0.212671 * c.x + 0.715160 * c.y + 0.072169 * c.z
}

fn load(dir: &Path, file: &str, text: &str) -> Result<Scene, SceneError> {
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    warpath_scene::load(path.to_str().unwrap())
}

fn material_of_shape(scene: &Scene, k: usize) -> &Material {
    // Shapes are added in order: the first triangle of the k-th mesh.
    let first = scene.meshes[k].first_triangle as usize;
    &scene.materials[scene.triangle_materials[first] as usize]
}

/// Texture `index` is gray with the values `expected` (to 1e-6).
fn assert_gray(scene: &Scene, index: i32, expected: [f32; 2]) {
    assert!(index >= 0, "no texture");
    let t = &scene.textures[index as usize];
    for (p, e) in t.pixels.iter().zip(expected) {
        assert!((p.x - e).abs() < 1e-6 && p.x == p.y && p.y == p.z, "{p} vs {e}");
    }
}

#[test]
fn toml_bump_roughness_and_metallic_textures_are_raw_luminance() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "t.png");
    let text = "[[material]]\nname = \"m\"\ntype = \"principled\"\nroughness = 0.8\nmetallic = 0.5\n\
                bump_texture = \"t.png\"\nbump_scale = -2.5\nroughness_texture = \"t.png\"\nmetallic_texture = \"t.png\"\n\
                [[shape]]\ntype = \"rectangle\"\nmaterial = \"m\"\n";
    let scene = load(dir.path(), "s.toml", text).unwrap();
    let m = material_of_shape(&scene, 0);
    let lum = TEXELS.map(luminance);
    assert_gray(&scene, m.bump_texture, lum);
    assert_gray(&scene, m.roughness_texture, lum);
    assert_gray(&scene, m.metallic_texture, lum);
    assert_eq!((m.bump_scale, m.roughness, m.metallic), (-2.5, 0.8, 0.5));

    let both = text.replace("bump_scale = -2.5\n", "normal_texture = \"t.png\"\n");
    let error = load(dir.path(), "s.toml", &both).unwrap_err().to_string();
    assert!(error.contains("not both"), "{error}");
    let diffuse = text.replace("\"principled\"", "\"diffuse\"").replace("roughness = 0.8\nmetallic = 0.5\n", "");
    let error = load(dir.path(), "s.toml", &diffuse).unwrap_err().to_string();
    assert!(error.contains("'roughness_texture' applies"), "{error}");
    let scale_alone = "[[material]]\nname = \"m\"\ntype = \"diffuse\"\nbump_scale = 2\n";
    let error = load(dir.path(), "s.toml", scale_alone).unwrap_err().to_string();
    assert!(error.contains("'bump_scale' needs 'bump_texture'"), "{error}");
}

#[test]
fn mitsuba_bumpmap_and_texture_parameters() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "t.png");
    let xml = r#"<scene version="3.0.0">
<emitter type="constant"/><sensor type="perspective"/>
<texture type="bitmap" id="t"><string name="filename" value="t.png"/><boolean name="raw" value="true"/></texture>
<shape type="rectangle">
  <bsdf type="bumpmap"><float name="scale" value="0.25"/><ref id="t"/>
    <bsdf type="roughconductor"><string name="distribution" value="ggx"/><ref name="alpha" id="t"/></bsdf>
  </bsdf>
</shape>
<shape type="rectangle">
  <bsdf type="bumpmap">
    <texture type="bitmap" name="whatever"><string name="filename" value="t.png"/><boolean name="raw" value="true"/></texture>
    <bsdf type="principled"><ref name="roughness" id="t"/><ref name="metallic" id="t"/></bsdf>
  </bsdf>
</shape>
<shape type="rectangle">
  <bsdf type="roughplastic"><string name="distribution" value="ggx"/><float name="alpha" value="0.09"/></bsdf>
</shape>
</scene>"#;
    let scene = load(dir.path(), "s.xml", xml).unwrap();
    let lum = TEXELS.map(luminance);
    let conductor = material_of_shape(&scene, 0);
    assert_eq!(conductor.kind(), MaterialKind::RoughConductor);
    assert_eq!((conductor.bump_scale, conductor.roughness), (0.25, 1.0));
    assert_gray(&scene, conductor.bump_texture, lum);
    // alpha is a texture: it holds α, the roughness √α of the filtered texel.
    assert_gray(&scene, conductor.roughness_texture, lum);
    assert_ne!(conductor.flags & warpath_core::material::flags::ROUGHNESS_TEXTURE_ALPHA, 0);
    let principled = material_of_shape(&scene, 1);
    assert_eq!((principled.bump_scale, principled.roughness, principled.metallic), (1.0, 1.0, 1.0));
    assert_gray(&scene, principled.bump_texture, lum);
    assert_gray(&scene, principled.roughness_texture, lum);
    assert_gray(&scene, principled.metallic_texture, lum);
    let plastic = material_of_shape(&scene, 2);
    assert_eq!((plastic.roughness, plastic.roughness_texture, plastic.bump_texture), (0.3, -1, -1));

    let textured_plastic = xml.replace(r#"<float name="alpha" value="0.09"/>"#, r#"<ref name="alpha" id="t"/>"#);
    let error = load(dir.path(), "s.xml", &textured_plastic).unwrap_err().to_string();
    assert!(error.contains("roughplastic: 'alpha' must be a <float>"), "{error}");
    let twice = xml.replacen(r#"<ref id="t"/>"#, r#"<ref id="t"/><ref name="h" id="t"/>"#, 1);
    let error = load(dir.path(), "s.xml", &twice).unwrap_err().to_string();
    assert!(error.contains("exactly one nested <texture>"), "{error}");
}

#[test]
fn pbrt_displacement_and_roughness_textures() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path(), "t.png");
    let text = "LookAt 0 0 5  0 0 0  0 1 0\nCamera \"perspective\"\nWorldBegin\n\
                LightSource \"infinite\" \"rgb L\" [1 1 1]\n\
                Texture \"h\" \"float\" \"imagemap\" \"string filename\" \"t.png\"\n\
                Material \"conductor\" \"texture displacement\" \"h\" \"texture roughness\" \"h\"\n\
                Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"point2 uv\" [0 0 1 0 0 1] \"integer indices\" [0 1 2]\n";
    let scene = load(dir.path(), "s.pbrt", text).unwrap();
    assert!(scene.warnings.iter().any(|w| w.contains("displacement")), "{:?}", scene.warnings);
    let m = &scene.materials[scene.triangle_materials[0] as usize];
    // The image as the pbrt importer decodes it (8-bit: sRGB), its channels' mean.
    let image = scene.textures.iter().find(|t| t.name == "t.png").expect("the image texture");
    let mean = [0, 1].map(|i| {
        let c = image.pixels[i];
        (c.x + c.y + c.z) / 3.0
    });
    assert_eq!(m.kind(), MaterialKind::RoughConductor);
    assert_eq!((m.bump_scale, m.roughness), (1.0, 1.0));
    assert_gray(&scene, m.bump_texture, mean);
    // remaproughness (default true): α = √r, warpath's roughness √α.
    assert_gray(&scene, m.roughness_texture, mean.map(|r| r.sqrt().sqrt()));
}
