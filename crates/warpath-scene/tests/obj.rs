//! OBJ + MTL: geometry, every MTL mapping, textures, and errors with lines.

use glam::Vec3;
use std::path::Path;
use warpath_core::material::MaterialKind;
use warpath_scene::SceneError;
use warpath_scene::obj::load_obj;
use warpath_scene::toml_scene::load_any;

const CUBE_OBJ: &str = "\
# two objects with materials
mtllib materials.mtl
v -1 -1 0
v 1 -1 0
v 1 1 0
v -1 1 0
v 0 0 1
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vn 0 0 1
o quad
usemtl textured
f 1/1/1 2/2/1 3/3/1 4/4/1
o pyramid
usemtl shiny
f 1 2 5
usemtl glass
f 2 3 5
usemtl lamp
f 3 4 5
usemtl mirror
f 4 1 5
usemtl glassy
f -5 -3 -1
";

const MTL: &str = "\
newmtl textured
Kd 0.5 0.5 0.5
map_Kd checker.png
newmtl shiny
Kd 0.4 0.1 0.1
Ks 0.3 0.3 0.3
Ns 120
newmtl glass
illum 7
Ni 1.45
newmtl lamp
Kd 0 0 0
Ke 5 4 3
newmtl mirror
illum 5
Ks 0.9 0.9 0.9
newmtl glassy
Ni 1.33
d 0.2
";

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn write_checker(path: &Path) {
    // 2×1: left pixel sRGB 255 (linear 1), right pixel sRGB 128 (linear ≈ 0.2158).
    let mut image = image::RgbImage::new(2, 1);
    image.put_pixel(0, 0, image::Rgb([255, 255, 255]));
    image.put_pixel(1, 0, image::Rgb([128, 128, 128]));
    image.save(path).unwrap();
}

#[test]
fn obj_with_mtl_maps_every_material() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "model.obj", CUBE_OBJ);
    write(dir.path(), "materials.mtl", MTL);
    write_checker(&dir.path().join("checker.png"));
    let asset = load_obj(&dir.path().join("model.obj")).unwrap();
    assert!(asset.warnings.is_empty(), "{:?}", asset.warnings);
    let kind_of = |name: &str| asset.materials.iter().find(|m| m.name == name).unwrap().material;
    assert_eq!(kind_of("textured").kind(), MaterialKind::Diffuse);
    let shiny = kind_of("shiny");
    assert_eq!((shiny.kind(), shiny.exponent, shiny.specular), (MaterialKind::Blinn, 120.0, Vec3::splat(0.3)));
    let glass = kind_of("glass");
    assert_eq!((glass.kind(), glass.ior), (MaterialKind::Glass, 1.45));
    assert_eq!(kind_of("lamp").emission, Vec3::new(5.0, 4.0, 3.0));
    assert_eq!(kind_of("mirror").kind(), MaterialKind::Mirror);
    assert_eq!((kind_of("glassy").kind(), kind_of("glassy").ior), (MaterialKind::Glass, 1.33));
    let textured = asset.materials.iter().find(|m| m.name == "textured").unwrap();
    let texture = textured.base_color_texture.as_ref().expect("map_Kd loaded");
    assert_eq!((texture.width, texture.height), (2, 1));
    assert!((texture.pixels[0].x - 1.0).abs() < 1e-4);
    assert!((texture.pixels[1].x - 0.2158).abs() < 1e-3, "sRGB decoded: {}", texture.pixels[1]);
    // Quad (2 triangles) + 5 single triangles, each with its material.
    assert_eq!(asset.triangle_count(), 7);

    let scene = load_any(&dir.path().join("model.obj")).unwrap();
    assert_eq!(scene.triangle_count(), 7);
    assert_eq!(scene.textures.len(), 1);
    let quad = &scene.meshes[0];
    let quad_material = scene.materials[scene.triangle_materials[quad.first_triangle as usize] as usize];
    assert_eq!(quad_material.base_color_texture, 0);
    assert_eq!(scene.uvs.len(), scene.positions.len());
    assert!(scene.light_set().triangles.len() == 1);
}

fn parse_error_line(text: &str) -> (usize, String) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.obj", text);
    match load_obj(&dir.path().join("bad.obj")) {
        Err(SceneError::Parse { line, message, path }) => {
            assert!(path.ends_with("bad.obj"));
            (line, message)
        }
        other => panic!("expected a Parse error, got {:?}", other.map(|a| a.triangle_count())),
    }
}

#[test]
fn malformed_obj_lines_are_located() {
    let base = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    assert_eq!(parse_error_line(&format!("{base}v 1 two 3\nf 1 2 3\n")).0, 4);
    assert_eq!(parse_error_line(&format!("{base}\n\nf 1 2 9\n")).0, 6);
    assert_eq!(parse_error_line(&format!("{base}f 1 2\n")).0, 4);
    assert_eq!(parse_error_line(&format!("{base}f 1/x 2 3\n")).0, 4);
    assert_eq!(parse_error_line(&format!("{base}f 1 2 -4\n")).0, 4);
    assert_eq!(parse_error_line(&format!("{base}f 1/1 2/1 3/1\n")).0, 4); // no vt defined
    let (line, message) = parse_error_line(&format!("# comment\n{base}v nan 0 0\nf 1 2 3\n"));
    assert_eq!(line, 5);
    assert!(message.contains("not finite"), "{message}");
    assert_eq!(parse_error_line("v 0 0 inf\n").0, 1);
}

#[test]
fn missing_mtl_is_a_warning_and_missing_texture_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.obj", "mtllib nowhere.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl x\nf 1 2 3\n");
    let scene = load_any(&dir.path().join("a.obj")).unwrap();
    assert_eq!(scene.triangle_count(), 1);
    assert!(scene.warnings.iter().any(|w| w.contains("nowhere.mtl")), "{:?}", scene.warnings);
    assert_eq!(scene.material_names, vec!["default"]);

    write(dir.path(), "b.obj", "mtllib b.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl wood\nf 1 2 3\n");
    write(dir.path(), "b.mtl", "newmtl wood\nKd 1 1 1\nmap_Kd wood.jpg\n");
    match load_obj(&dir.path().join("b.obj")) {
        Err(e @ SceneError::NotFound { .. }) => {
            let text = e.to_string();
            assert!(text.contains("wood.jpg") && text.contains("'wood'"), "{text}");
        }
        other => panic!("expected NotFound, got {:?}", other.map(|a| a.triangle_count())),
    }
}

#[test]
fn degenerate_triangles_are_dropped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // Triangle 2 repeats a vertex, triangle 3 is collinear.
    write(dir.path(), "d.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nf 1 2 3\nf 1 1 2\nf 1 2 4\n");
    let scene = load_any(&dir.path().join("d.obj")).unwrap();
    assert_eq!(scene.triangle_count(), 1);
    assert!(scene.warnings.iter().any(|w| w.contains("dropped 2 degenerate")), "{:?}", scene.warnings);
}
