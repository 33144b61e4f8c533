//! pbrt-v4 import (issue 33, docs/scene-format.md "pbrt-v4"): the pbrt Cornell box is the
//! Mitsuba XML one, the graphics state composes as pbrt's does, the camera keeps pbrt's
//! left-handed view and its shorter-axis field of view, every shape, material, texture,
//! light and medium maps as documented, unsupported things are warnings with file:line,
//! and malformed input is an error with file:line. `WARPATH_PBRT_SCENES=DIR` runs the
//! importer over every `.pbrt` file under DIR (a checkout of mmp/pbrt-v4-scenes).

use glam::{Vec2, Vec3};
use std::path::{Path, PathBuf};
use warpath_core::light::Environment;
use warpath_core::material::{Material, MaterialKind, flags};
use warpath_scene::mitsuba_xml::load_mitsuba_xml;
use warpath_scene::pbrt::{check_pbrt, load_pbrt, parse_pbrt};
use warpath_scene::{Scene, SceneError, UNLIMITED_DEPTH};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pbrt").join(name)
}

fn parse(text: &str) -> Result<Scene, SceneError> {
    parse_pbrt(text, &data("inline.pbrt"))
}

/// A scene from `body` after a light, so that no "no light" warning appears.
fn scene(body: &str) -> Scene {
    parse(&format!("LightSource \"infinite\" \"rgb L\" [1 1 1]\n{body}")).unwrap_or_else(|e| panic!("{e}"))
}

/// Asserts a Parse error at `line` whose message contains `needle`.
fn assert_error_at(text: &str, line: usize, needle: &str) {
    match parse(text) {
        Err(SceneError::Parse { line: got, message, path }) => {
            assert_eq!(got, line, "wrong line for '{message}'");
            assert!(message.contains(needle), "message '{message}' lacks '{needle}'");
            assert!(path.ends_with("inline.pbrt"), "{}", path.display());
        }
        Err(other) => panic!("expected a Parse error at line {line}, got {other}"),
        Ok(_) => panic!("expected a Parse error at line {line} ('{needle}'), got a scene"),
    }
}

fn warned(scene: &Scene, needle: &str) -> bool {
    scene.warnings.iter().any(|w| w.contains(needle))
}

fn material(scene: &Scene, triangle: usize) -> &Material {
    &scene.materials[scene.triangle_materials[triangle] as usize]
}

const TRIANGLE: &str = "Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"integer indices\" [0 1 2]";

#[test]
fn the_pbrt_cornell_box_is_the_mitsuba_one() {
    let pbrt = load_pbrt(&data("cornell-box.pbrt")).unwrap_or_else(|e| panic!("{e}"));
    let xml_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mitsuba/cornell-box.xml");
    let xml = load_mitsuba_xml(&xml_path, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(pbrt.warnings.is_empty(), "{:?}", pbrt.warnings);
    // The same triangles: the same vertices (the same matrices place the same meshes),
    // normals, uvs and meshes of the same sizes.
    assert_eq!(pbrt.triangles, xml.triangles);
    assert_eq!(pbrt.positions.len(), xml.positions.len());
    for (a, b) in pbrt.positions.iter().zip(&xml.positions) {
        assert!((*a - *b).abs().max_element() <= 1e-6, "{a} vs {b}");
    }
    for (a, b) in pbrt.normals.iter().zip(&xml.normals) {
        assert!((*a - *b).abs().max_element() <= 1e-6, "{a} vs {b}");
    }
    assert_eq!(pbrt.uvs, xml.uvs);
    let sizes = |s: &Scene| s.meshes.iter().map(|m| (m.first_triangle, m.triangle_count)).collect::<Vec<_>>();
    assert_eq!(sizes(&pbrt), sizes(&xml));
    // The same material on every triangle (pbrt's diffuse is two-sided, as the XML's
    // twosided diffuse), the light's emission one-sided in both.
    for t in 0..pbrt.triangle_count() {
        assert_eq!(material(&pbrt, t), material(&xml, t), "triangle {t}");
    }
    assert_eq!(pbrt.light_set().triangles.len(), 2);
    // The camera within float tolerance (pbrt's LookAt under Scale -1 1 1 against the XML's
    // matrix), and the same render settings.
    let (a, b) = (pbrt.camera, xml.camera);
    for (x, y) in a.to_world.to_cols_array().iter().zip(b.to_world.to_cols_array()) {
        assert!((x - y).abs() <= 1e-6, "{} vs {}", a.to_world, b.to_world);
    }
    assert_eq!((a.fov_degrees, a.fov_axis, a.aperture_radius), (b.fov_degrees, b.fov_axis, b.aperture_radius));
    assert_eq!(pbrt.settings, xml.settings);
    assert!(matches!(pbrt.environment, Environment::None));
}

#[test]
fn pbrt_files_load_through_the_scene_dispatch() {
    let scene = warpath_scene::load(data("cornell-box.pbrt").to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.triangle_count(), 36);
}

#[test]
fn the_camera_is_left_handed_and_its_fov_spans_the_shorter_axis() {
    // An asymmetric scene: a triangle on the +x side only. pbrt's LookAt from +z toward the
    // origin with +y up puts world +x on the image's *left* (camera +x = up × view = -x).
    let body = "Film \"rgb\" \"integer xresolution\" 200 \"integer yresolution\" 100\n\
                LookAt 0 0 5  0 0 0  0 1 0\nCamera \"perspective\" \"float fov\" 30\nWorldBegin\n\
                Shape \"trianglemesh\" \"point3 P\" [1 -0.2 0  1.5 -0.2 0  1.2 0.3 0]";
    let s = scene(body);
    let (w, h) = (s.settings.width, s.settings.height);
    assert_eq!((w, h), (200, 100));
    let right = s.camera.generate_ray(Vec2::new(w as f32, 0.5 * h as f32), w, h, Vec2::splat(0.5));
    assert!(right.d.x < 0.0, "the image's right edge looks toward world -x: {}", right.d);
    let centre = s.camera.generate_ray(Vec2::new(0.5 * w as f32, 0.5 * h as f32), w, h, Vec2::splat(0.5));
    assert!((centre.d - Vec3::NEG_Z).length() < 1e-5);
    // The triangle (world x ≈ 1.2) projects into the image's left half.
    let px = |p: Vec3| {
        let d = (p - right.o).normalize();
        (0..w).min_by(|&a, &b| {
            let ray = |x: u32| s.camera.generate_ray(Vec2::new(x as f32 + 0.5, 50.0), w, h, Vec2::splat(0.5)).d;
            (ray(a) - d).length().partial_cmp(&(ray(b) - d).length()).unwrap()
        })
    };
    assert!(px(Vec3::new(1.2, 0.0, 0.0)).unwrap() < w / 2);
    // The vertical axis is the shorter: its half angle is 15°.
    let top = s.camera.generate_ray(Vec2::new(0.5 * w as f32, 0.0), w, h, Vec2::splat(0.5));
    assert!((top.d.y.atan2(-top.d.z).to_degrees() - 15.0).abs() < 1e-3, "{}", top.d);
    // Portrait: the horizontal axis is the shorter.
    let s = scene(
        "Film \"rgb\" \"integer xresolution\" 100 \"integer yresolution\" 200\nCamera \"perspective\" \"float fov\" 30",
    );
    let edge = s.camera.generate_ray(Vec2::new(0.0, 100.0), 100, 200, Vec2::splat(0.5));
    assert!((edge.d.x.abs().atan2(edge.d.z.abs()).to_degrees() - 15.0).abs() < 1e-3, "{}", edge.d);
    // Scale -1 1 1 (the idiom of scenes converted from right-handed tools) mirrors the view.
    let s = scene("Scale -1 1 1\nLookAt 0 0 5  0 0 0  0 1 0\nCamera \"perspective\"");
    let r = s.camera.generate_ray(Vec2::new(1280.0, 360.0), 1280, 720, Vec2::splat(0.5));
    assert!(r.d.x > 0.0);
    assert_eq!(s.camera.fov_degrees, 90.0, "pbrt's default fov");
    // Lens.
    let s = scene("Camera \"perspective\" \"float lensradius\" 0.1 \"float focaldistance\" 3");
    assert_eq!((s.camera.aperture_radius, s.camera.focus_distance), (0.1, 3.0));
}

#[test]
fn transforms_compose_as_pbrts_graphics_state() {
    let first = |s: &Scene| s.triangle_vertices(0);
    let near = |a: [Vec3; 3], b: [Vec3; 3]| a.iter().zip(&b).all(|(x, y)| (*x - *y).length() < 1e-5);
    // Each directive post-multiplies the CTM: Translate then Scale scales first.
    let s = scene(&format!("Translate 1 0 0\nScale 2 2 2\n{TRIANGLE}"));
    assert!(near(first(&s), [Vec3::new(1.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), Vec3::new(1.0, 2.0, 0.0)]));
    // Rotate: degrees about an axis, right-handed.
    let s = scene(&format!("Rotate 90 0 0 1\n{TRIANGLE}"));
    assert!(near(first(&s), [Vec3::ZERO, Vec3::Y, Vec3::NEG_X]));
    // Transform lists the matrix by columns (translation last) and replaces the CTM;
    // ConcatTransform multiplies it; Identity resets it.
    let s = scene(&format!("Scale 5 5 5\nTransform [1 0 0 0 0 1 0 0 0 0 1 0 0 0 7 1]\n{TRIANGLE}"));
    assert!(near(first(&s), [Vec3::new(0.0, 0.0, 7.0), Vec3::new(1.0, 0.0, 7.0), Vec3::new(0.0, 1.0, 7.0)]));
    let s = scene(&format!("Translate 0 0 1\nConcatTransform [2 0 0 0 0 2 0 0 0 0 2 0 0 0 0 1]\n{TRIANGLE}"));
    assert!(near(first(&s), [Vec3::Z, Vec3::new(2.0, 0.0, 1.0), Vec3::new(0.0, 2.0, 1.0)]));
    let s = scene(&format!("Translate 9 9 9\nIdentity\n{TRIANGLE}"));
    assert!(near(first(&s), [Vec3::ZERO, Vec3::X, Vec3::Y]));
    // AttributeBegin/End and TransformBegin/End restore; CoordinateSystem names a CTM.
    let s = scene(&format!(
        "AttributeBegin\nTranslate 0 5 0\nCoordinateSystem \"up\"\nAttributeEnd\nTransformBegin\nTranslate 3 0 0\n\
         TransformEnd\n{TRIANGLE}\nCoordSysTransform \"up\"\n{TRIANGLE}"
    ));
    assert!(near(s.triangle_vertices(0), [Vec3::ZERO, Vec3::X, Vec3::Y]));
    assert!(near(
        s.triangle_vertices(1),
        [Vec3::new(0.0, 5.0, 0.0), Vec3::new(1.0, 5.0, 0.0), Vec3::new(0.0, 6.0, 0.0)]
    ));
    assert!(warned(&s, "TransformBegin is deprecated"));
    // WorldBegin resets the CTM; "camera" names the camera's frame.
    let s = scene(&format!(
        "Translate 0 0 -4\nCamera \"perspective\"\nWorldBegin\n{TRIANGLE}\nCoordSysTransform \"camera\"\n{TRIANGLE}"
    ));
    assert!(near(s.triangle_vertices(0), [Vec3::ZERO, Vec3::X, Vec3::Y]));
    assert!(near(
        s.triangle_vertices(1),
        [Vec3::new(0.0, 0.0, 4.0), Vec3::new(1.0, 0.0, 4.0), Vec3::new(0.0, 1.0, 4.0)]
    ));
    // ReverseOrientation flips the winding (the emitting side), scoped by AttributeBegin.
    let s = scene(&format!("AttributeBegin\nReverseOrientation\n{TRIANGLE}\nAttributeEnd\n{TRIANGLE}"));
    assert_eq!(s.triangles[0], [0, 2, 1]);
    assert_eq!(s.triangles[1], [3, 4, 5]);
}

#[test]
fn instances_are_flattened_under_their_transforms() {
    let s = scene(&format!(
        "ObjectBegin \"tri\"\nTranslate 0 0 1\n{TRIANGLE}\nObjectEnd\n{TRIANGLE}\nTranslate 10 0 0\nObjectInstance \"tri\"\n\
         Translate 10 0 0\nObjectInstance \"tri\""
    ));
    // The definition itself renders nothing; each instance is its shapes under the CTM.
    assert_eq!(s.triangle_count(), 3);
    assert_eq!(s.triangle_vertices(1)[0], Vec3::new(10.0, 0.0, 1.0));
    assert_eq!(s.triangle_vertices(2)[0], Vec3::new(20.0, 0.0, 1.0));
    assert_error_at("ObjectInstance \"nothing\"", 1, "no object named");
    assert_error_at("ObjectEnd", 1, "without ObjectBegin");
}

#[test]
fn shapes_become_triangles() {
    // A 3-point trianglemesh needs no indices; uv and N are per vertex.
    let s = scene(
        "Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"point2 uv\" [0 0 1 0 0 1] \"normal N\" [0 0 1 0 0 1 0 0 1]",
    );
    assert_eq!(s.triangle_count(), 1);
    assert_eq!(s.uvs[2], Vec2::new(0.0, 1.0));
    assert_eq!(s.normals[0], Vec3::Z);
    // bilinearmesh: two triangles per patch, oriented as ∂p/∂u × ∂p/∂v (+z here).
    let s = scene(
        "Shape \"bilinearmesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 1 1 1 1] \"integer indices\" [0 1 2 3 4 5 6 7]",
    );
    assert_eq!(s.triangle_count(), 4);
    let [a, b, c] = s.triangle_vertices(0);
    assert!((b - a).cross(c - a).z > 0.0);
    let area: f32 = (0..2)
        .map(|t| {
            let [a, b, c] = s.triangle_vertices(t);
            0.5 * (b - a).cross(c - a).length()
        })
        .sum();
    assert!((area - 1.0).abs() < 1e-6);
    // sphere: an icosphere of the radius; disk: a fan of the radius at the height.
    let s = scene("Shape \"sphere\" \"float radius\" 2");
    let b = s.bounds();
    assert!(
        (b.max - Vec3::splat(2.0)).abs().max_element() < 0.05 && (b.min + Vec3::splat(2.0)).abs().max_element() < 0.05
    );
    let s = scene("Shape \"disk\" \"float radius\" 3 \"float height\" 0.5");
    assert!(s.positions.iter().all(|p| p.z == 0.5 && p.truncate().length() <= 3.0 + 1e-5));
    assert!((s.bounds().max.x - 3.0).abs() < 1e-5);
    let s = scene("Shape \"sphere\" \"float zmin\" 0");
    assert!(warned(&s, "partial spheres"));
    // plymesh, plain and gzipped, relative to the scene file.
    let dir = tempfile::tempdir().unwrap();
    let ply = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pyramid.ply")).unwrap();
    std::fs::create_dir(dir.path().join("geometry")).unwrap();
    std::fs::write(dir.path().join("geometry/p.ply"), &ply).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &ply).unwrap();
    std::fs::write(dir.path().join("geometry/p.ply.gz"), gz.finish().unwrap()).unwrap();
    let text = "LightSource \"infinite\"\nShape \"plymesh\" \"string filename\" \"geometry/p.ply\"\n\
                Shape \"plymesh\" \"string filename\" \"geometry/p.ply.gz\"\n";
    let s = parse_pbrt(text, &dir.path().join("s.pbrt")).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.triangle_count() > 0 && s.triangle_count() % 2 == 0);
    assert_eq!(s.meshes[0].triangle_count, s.meshes[1].triangle_count);
    // Unsupported shapes are warnings with their line; loopsubdiv is its control mesh.
    let s = scene(
        "\nShape \"cylinder\"\nShape \"loopsubdiv\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"integer indices\" [0 1 2]",
    );
    assert!(warned(&s, "inline.pbrt:3: Shape \"cylinder\" is not supported"), "{:?}", s.warnings);
    assert!(warned(&s, "control mesh"));
    assert_eq!(s.triangle_count(), 1);
}

#[test]
fn materials_map_to_warpaths() {
    let one = |m: &str| {
        let s = scene(&format!("Material {m}\n{TRIANGLE}"));
        (*material(&s, 0), s.warnings.clone())
    };
    let (m, _) = one("\"diffuse\" \"rgb reflectance\" [0.2 0.4 0.6]");
    assert_eq!(m, Material::diffuse(Vec3::new(0.2, 0.4, 0.6)));
    assert!(!m.one_sided(), "pbrt's BSDFs are two-sided");
    let (m, _) = one("\"diffuse\"");
    assert_eq!(m.base_color, Vec3::splat(0.5));
    // Conductors: named spectra → the exact Fresnel of Mitsuba's RGB eta and k for the same
    // metal; roughness (remapped: α = √r) → GGX.
    let (m, _) = one("\"conductor\" \"spectrum eta\" \"metal-Au-eta\" \"spectrum k\" \"metal-Au-k\"");
    assert_eq!((m.kind(), m.base_color), (MaterialKind::Mirror, Vec3::ONE));
    let gold = warpath_scene::conductors::named("Au").unwrap();
    assert!(m.has_conductor_eta_k() && (m.conductor_eta(), m.conductor_k()) == gold, "gold: {m:?}");
    let (m, _) = one("\"conductor\" \"float roughness\" 0.0625");
    assert_eq!(m.kind(), MaterialKind::RoughConductor);
    assert!((m.roughness - 0.5).abs() < 1e-6, "α = √0.0625 = 0.25 = 0.5²: {}", m.roughness);
    let copper = warpath_scene::conductors::named("Cu").unwrap();
    assert!(m.has_conductor_eta_k() && !m.beckmann(), "{m:?}");
    assert_eq!((m.conductor_eta(), m.conductor_k()), copper, "copper by default");
    let (m, _) = one("\"conductor\" \"spectrum eta\" \"metal-CuZn-eta\" \"rgb k\" [3 2 1]");
    assert_eq!((m.conductor_eta(), m.conductor_k()), (Vec3::new(0.444, 0.527, 1.094), Vec3::new(3.0, 2.0, 1.0)));
    let (m, _) =
        one("\"conductor\" \"float roughness\" 0.25 \"bool remaproughness\" false \"rgb reflectance\" [0.9 0.9 0.9]");
    assert!((m.roughness - 0.5).abs() < 1e-6);
    assert_eq!(m.base_color, Vec3::splat(0.9));
    // Dielectrics.
    let (m, _) = one("\"dielectric\" \"float eta\" 1.33");
    assert_eq!(m, Material::glass(1.33));
    let (m, _) = one("\"dielectric\" \"spectrum eta\" \"glass-BK7\" \"float roughness\" 0.01");
    assert_eq!(m.kind(), MaterialKind::RoughDielectric);
    assert!((m.ior - 1.5168).abs() < 1e-4);
    let (m, w) = one("\"thindielectric\"");
    assert_eq!(m, Material::thin_dielectric(1.5));
    assert!(!w.iter().any(|w| w.contains("thindielectric")), "{w:?}");
    // Coated diffuse: Mitsuba's plastic, smooth or rough.
    let (m, _) = one("\"coateddiffuse\" \"rgb reflectance\" [0.5 0.1 0.1]");
    assert_eq!(m, Material::plastic(Vec3::new(0.5, 0.1, 0.1), Vec3::ONE, 1.5, 0.0, false));
    let (m, w) = one("\"coateddiffuse\" \"float roughness\" 0.1 \"float thickness\" 0.02");
    assert_eq!(m.kind(), MaterialKind::Plastic);
    assert!(m.roughness > 0.0);
    assert!(w.iter().any(|w| w.contains("'thickness'")));
    let (m, _) = one(
        "\"coatedconductor\" \"float interface.eta\" 1.4 \"spectrum conductor.eta\" \"metal-Ag-eta\" \"spectrum conductor.k\" \"metal-Ag-k\"",
    );
    assert_eq!(m.kind(), MaterialKind::CarPaint);
    assert_eq!((m.ior, m.base_color), (1.4, Vec3::ZERO));
    assert!(m.specular.min_element() > 0.9, "silver flakes: {}", m.specular);
    let (m, _) = one("\"interface\"");
    assert!(m.is_null());
    // Named materials, and unknown ones as warnings with the line.
    let s = scene(&format!(
        "MakeNamedMaterial \"red\" \"string type\" \"diffuse\" \"rgb reflectance\" [1 0 0]\nNamedMaterial \"red\"\n{TRIANGLE}\n\
         Material \"hair\"\n{TRIANGLE}\nMaterial \"diffuse\" \"float sparkle\" 1\n{TRIANGLE}"
    ));
    assert_eq!(material(&s, 0).base_color, Vec3::X);
    assert!(s.material_names.contains(&"red".to_string()));
    assert!(warned(&s, "inline.pbrt:5: Material \"hair\" is not supported"), "{:?}", s.warnings);
    assert!(
        warned(&s, "inline.pbrt:7: Material \"diffuse\": parameter \"float sparkle\" is not supported"),
        "{:?}",
        s.warnings
    );
    assert_error_at("NamedMaterial \"nope\"", 1, "no material named");
}

#[test]
fn textures_feed_the_diffuse_reflectance() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/seeds");
    let text = format!(
        "LightSource \"infinite\"\nTexture \"img\" \"spectrum\" \"imagemap\" \"string filename\" \"{}\"\n\
         Texture \"dim\" \"spectrum\" \"scale\" \"texture tex\" \"img\" \"float scale\" 0.5\n\
         Texture \"checks\" \"spectrum\" \"checkerboard\" \"float uscale\" 2 \"float vscale\" 2 \"rgb tex1\" [1 0 0] \"rgb tex2\" [0 0 1]\n\
         Material \"diffuse\" \"texture reflectance\" \"img\"\n{TRIANGLE}\nMaterial \"diffuse\" \"texture reflectance\" \"dim\"\n{TRIANGLE}\n\
         Material \"diffuse\" \"texture reflectance\" \"checks\"\n{TRIANGLE}\n\
         Material \"conductor\" \"texture reflectance\" \"checks\"\n{TRIANGLE}",
        seeds.join("checker.png").display()
    );
    let s = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let tex = |t: usize| &s.textures[material(&s, t).base_color_texture as usize];
    let (img, dim, checks) = (tex(0), tex(1), tex(2));
    assert_eq!((img.width, img.height), (dim.width, dim.height));
    for (a, b) in img.pixels.iter().zip(&dim.pixels) {
        assert!((*a * 0.5 - *b).abs().max_element() < 1e-6);
    }
    // The checkerboard: 2 × 2 cells per unit of uv, tex1 where ⌊u⌋ + ⌊v⌋ is even.
    assert_eq!(checks.sample(Vec2::new(0.1, 0.1)), Vec3::X);
    assert_eq!(checks.sample(Vec2::new(0.6, 0.1)), Vec3::Z);
    assert_eq!(checks.sample(Vec2::new(0.6, 0.6)), Vec3::X);
    assert_eq!(checks.sample(Vec2::new(0.1, 0.6)), Vec3::Z);
    // A conductor takes no texture: the mean, with a warning.
    assert_eq!(material(&s, 3).specular, Vec3::new(0.5, 0.0, 0.5));
    assert!(warned(&s, "warpath takes no texture for 'reflectance'"));
}

#[test]
fn lights_area_infinite_and_the_unsupported_ones() {
    let s = scene(&format!(
        "AttributeBegin\nAreaLightSource \"diffuse\" \"rgb L\" [1 2 3] \"float scale\" 2 \"bool twosided\" true\n{TRIANGLE}\n\
         AttributeEnd\n{TRIANGLE}"
    ));
    assert_eq!(material(&s, 0).emission, Vec3::new(2.0, 4.0, 6.0));
    assert!(material(&s, 0).flags & flags::TWO_SIDED_EMISSION != 0);
    assert!(!material(&s, 1).is_emissive(), "AttributeEnd ends the area light");
    // A blackbody is normalized to luminance 1: 6500 K is nearly white.
    let s = scene(&format!("AreaLightSource \"diffuse\" \"blackbody L\" 6500\n{TRIANGLE}"));
    let e = material(&s, 0).emission;
    let y = 0.2126 * e.x + 0.7152 * e.y + 0.0722 * e.z;
    assert!((y - 1.0).abs() < 0.05 && (e.x - e.z).abs() < 0.15, "{e}");
    let s = scene(&format!("AreaLightSource \"diffuse\" \"blackbody L\" 2700\n{TRIANGLE}"));
    assert!(material(&s, 0).emission.x > 1.5 * material(&s, 0).emission.z, "warm");
    // infinite: constant (L × scale) ...
    let s = parse("LightSource \"infinite\" \"rgb L\" [1 2 3] \"float scale\" 0.5").unwrap();
    assert!(matches!(s.environment, Environment::Constant(c) if c == Vec3::new(0.5, 1.0, 1.5)));
    // ... or an equal-area image, bright at its centre (+z) and dark at its corners (-z).
    let dir = tempfile::tempdir().unwrap();
    let n = 32u32;
    let img = image::Rgb32FImage::from_fn(n, n, |x, y| {
        let (u, v) = ((x as f32 + 0.5) / n as f32 - 0.5, (y as f32 + 0.5) / n as f32 - 0.5);
        let c = if u.abs() + v.abs() < 0.3 { 4.0 } else { 0.0 };
        image::Rgb([c, c, c])
    });
    img.save(dir.path().join("sky.exr")).unwrap();
    let s = parse_pbrt("LightSource \"infinite\" \"string filename\" \"sky.exr\"", &dir.path().join("s.pbrt")).unwrap();
    let Environment::Map(map) = &s.environment else { panic!("expected a map") };
    assert!(map.radiance(Vec3::Z).x > 3.0, "{}", map.radiance(Vec3::Z));
    assert!(map.radiance(Vec3::NEG_Z).x < 0.5);
    // Rotated by its CTM: +z of the light is world +y.
    let s = parse_pbrt(
        "Rotate -90 1 0 0\nLightSource \"infinite\" \"string filename\" \"sky.exr\"",
        &dir.path().join("s.pbrt"),
    )
    .unwrap();
    let Environment::Map(map) = &s.environment else { panic!("expected a map") };
    assert!(map.radiance(Vec3::Y).x > 3.0 && map.radiance(Vec3::Z).x < 0.5);
    // Goniometric and projection lights: a warning with the line when something else lights
    // the scene, an error when nothing does.
    let s = scene(&format!("\nLightSource \"goniometric\" \"rgb I\" [1 1 1]\n{TRIANGLE}"));
    assert!(warned(&s, "inline.pbrt:3: LightSource \"goniometric\" is not supported"), "{:?}", s.warnings);
    match parse(&format!("LightSource \"projection\"\nLightSource \"goniometric\"\n{TRIANGLE}")) {
        Err(SceneError::Invalid { message, .. }) => {
            assert!(
                message.contains("lit only by")
                    && message.contains("inline.pbrt:1")
                    && message.contains("inline.pbrt:2"),
                "{message}"
            );
        }
        other => panic!("expected an error, got {:?}", other.map(|s| s.warnings)),
    }
    assert_error_at("LightSource \"infinite\"\nLightSource \"infinite\"", 2, "second infinite light");
}

#[test]
fn render_settings_and_media() {
    let s = scene(
        "Film \"rgb\" \"integer xresolution\" 320 \"integer yresolution\" 240 \"string filename\" \"x.exr\"\n\
         Sampler \"zsobol\" \"integer pixelsamples\" 128\nIntegrator \"volpath\" \"integer maxdepth\" 7",
    );
    assert_eq!((s.settings.width, s.settings.height, s.settings.spp, s.settings.max_depth), (320, 240, 128, 7));
    let s = scene("Integrator \"path\" \"integer maxdepth\" -1");
    assert_eq!(s.settings.max_depth, UNLIMITED_DEPTH);
    // pbrt's defaults: 1280 × 720, 16 spp, maxdepth 5.
    let s = scene("");
    assert_eq!((s.settings.width, s.settings.height, s.settings.spp, s.settings.max_depth), (1280, 720, 16, 5));
    let s = scene("Integrator \"bdpt\"\nPixelFilter \"gaussian\"");
    assert!(warned(&s, "Integrator \"bdpt\" is rendered with warpath's path tracer"));
    assert!(warned(&s, "PixelFilter \"gaussian\" is ignored"));
    // Media: homogeneous inside a shape, the camera's medium, a baked cloud, a grid.
    let s = scene(&format!(
        "MakeNamedMedium \"fog\" \"string type\" \"homogeneous\" \"rgb sigma_a\" [1 1 1] \"rgb sigma_s\" [3 3 3] \"float scale\" 0.5\n\
         MediumInterface \"\" \"fog\"\nCamera \"perspective\"\nWorldBegin\n\
         MakeNamedMedium \"c\" \"string type\" \"cloud\" \"float density\" 2\n\
         MakeNamedMedium \"g\" \"string type\" \"uniformgrid\" \"integer nx\" 2 \"integer ny\" 1 \"integer nz\" 1 \"float density\" [1 2]\n\
         AttributeBegin\nMediumInterface \"c\" \"fog\"\nMaterial \"interface\"\n{TRIANGLE}\nAttributeEnd\n{TRIANGLE}"
    ));
    assert_eq!(s.media.len(), 3);
    assert_eq!(s.camera_medium, Some(0));
    // Each shape takes the MediumInterface current where it is declared (the second: vacuum
    // inside, fog outside, from the top level).
    assert_ne!(s.triangle_media[0], 0);
    assert_ne!(s.triangle_media[1], s.triangle_media[0]);
    assert!(s.needs_volume_estimator());
    assert_error_at("MakeNamedMedium \"v\" \"string type\" \"nanovdb\" \"string filename\" \"x.nvdb\"", 1, "NanoVDB");
    assert_error_at("MediumInterface \"nothing\" \"\"", 1, "no medium named");
}

#[test]
fn unsupported_directives_and_parameters_are_warnings_with_their_line() {
    let s = scene(
        "\nAttribute \"shape\" \"float radius\" 2\nOption \"bool disablepixeljitter\" true\nColorSpace \"aces2065-1\"\n\
                   Camera \"perspective\" \"float screenwindow\" [-1 1 -1 1]\nFilm \"rgb\" \"float iso\" 200",
    );
    for needle in [
        "inline.pbrt:3: Attribute \"shape\"",
        "inline.pbrt:4: Option disablepixeljitter",
        "inline.pbrt:5: ColorSpace",
        "inline.pbrt:6: Camera: 'screenwindow'",
        "inline.pbrt:7: Film \"rgb\": parameter \"float iso\"",
    ] {
        assert!(warned(&s, needle), "no warning '{needle}' in {:?}", s.warnings);
    }
}

#[test]
fn malformed_input_is_an_error_with_file_and_line() {
    assert_error_at("Shape \"sphere\"\n\"float radius\" \"oops", 2, "unterminated string");
    assert_error_at("\n\nWorldBegn", 3, "did you mean 'WorldBegin'");
    assert_error_at("Translate 1 2", 1, "takes 3 numbers");
    assert_error_at("Translate 1 2 x3", 1, "takes 3 numbers");
    assert_error_at("Scale 1 2 3e999", 1, "not a finite number");
    assert_error_at("Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0\n", 1, "never closed");
    assert_error_at(
        "Shape \"trianglemesh\"\n  \"point3 P\" [0 0 0 1 0 0 0 1 0] \"integer indices\" [0 1 5]",
        2,
        "out of range",
    );
    assert_error_at("Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0]", 1, "multiple of 3");
    assert_error_at("Shape \"sphere\" \"float radius\" [1 2]", 1, "one number");
    assert_error_at("Shape \"sphere\" \"floatradius\" 1", 1, "not a parameter declaration");
    assert_error_at("Shape \"sphere\" \"quaternion q\" 1", 1, "unknown type");
    assert_error_at("AttributeEnd", 1, "without a matching begin");
    assert_error_at("LookAt 0 0 0 0 0 0 0 1 0", 1, "same");
    assert_error_at("[ 1 2 ]", 1, "expected a directive");
    assert_error_at("Include \"missing.pbrt\"", 1, "not found");
    assert_error_at("Texture \"t\" \"spectrum\" \"imagemap\"", 1, "needs \"string filename\"");
    assert_error_at("Camera \"perspective\" \"float fov\" 200", 1, "fov");
    assert_error_at("Material \"diffuse\" \"texture reflectance\" \"none\"", 1, "no texture named");
    assert_error_at("Film \"rgb\" \"integer xresolution\" 0", 1, "out of range");
    // Never a panic or a hang: every prefix of a valid scene loads or fails cleanly.
    let text = std::fs::read_to_string(data("cornell-box.pbrt")).unwrap();
    for cut in (0..text.len()).step_by(97) {
        let _ = parse(&text[..cut]);
    }
}

#[test]
fn includes_are_read_in_place_and_cycles_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(
        dir.path().join("main.pbrt"),
        "LightSource \"infinite\"\nInclude \"sub/a.pbrt\"\nImport \"sub/b.pbrt.gz\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("sub/a.pbrt"), format!("Include \"c.pbrt\"\n{TRIANGLE}\n")).unwrap();
    std::fs::write(dir.path().join("sub/c.pbrt"), "Translate 0 0 1\n").unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, TRIANGLE.as_bytes()).unwrap();
    std::fs::write(dir.path().join("sub/b.pbrt.gz"), gz.finish().unwrap()).unwrap();
    let s = load_pbrt(&dir.path().join("main.pbrt")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.triangle_count(), 2);
    // pbrt-v4 would look for c.pbrt beside main.pbrt; found beside a.pbrt, it is read with a warning.
    assert!(warned(&s, "a.pbrt:1: 'c.pbrt' is read relative to this file"), "{:?}", s.warnings);
    // An include is textual: the included file's Translate applies to what follows.
    assert_eq!(s.triangle_vertices(0)[0], Vec3::Z);
    // Errors in an included file name that file and its line.
    std::fs::write(dir.path().join("sub/c.pbrt"), "\nTranslate 0 0\n").unwrap();
    match load_pbrt(&dir.path().join("main.pbrt")) {
        Err(SceneError::Parse { path, line, .. }) => {
            assert!(path.ends_with("sub/c.pbrt") && line == 2, "{}:{line}", path.display())
        }
        other => panic!("expected an error in c.pbrt, got {:?}", other.map(|s| s.warnings)),
    }
    // A cycle is an error, not a hang.
    std::fs::write(dir.path().join("sub/c.pbrt"), "Include \"a.pbrt\"\n").unwrap();
    let e = load_pbrt(&dir.path().join("main.pbrt")).unwrap_err().to_string();
    assert!(e.contains("include cycle"), "{e}");
    // check_pbrt: missing files are warnings (a scene repository without its geometry).
    std::fs::write(
        dir.path().join("lean.pbrt"),
        "LightSource \"infinite\"\nShape \"plymesh\" \"string filename\" \"gone.ply\"\nInclude \"gone.pbrt\"\n",
    )
    .unwrap();
    assert!(load_pbrt(&dir.path().join("lean.pbrt")).is_err());
    let s = check_pbrt(&dir.path().join("lean.pbrt")).unwrap_or_else(|e| panic!("{e}"));
    assert!(warned(&s, "lean.pbrt:2") && warned(&s, "lean.pbrt:3"), "{:?}", s.warnings);
}

/// `WARPATH_PBRT_SCENES=DIR cargo test --release -p warpath-scene --test pbrt -- --nocapture
/// pbrt_v4_scenes`: [`check_pbrt`] over every `.pbrt` file under DIR (mmp/pbrt-v4-scenes,
/// its large geometry absent); prints what failed, and fails if any file did.
#[test]
fn pbrt_v4_scenes() {
    let Ok(dir) = std::env::var("WARPATH_PBRT_SCENES") else {
        eprintln!("notice: WARPATH_PBRT_SCENES is not set: the pbrt-v4-scenes check is skipped");
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "pbrt") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut failed = Vec::new();
    for f in &files {
        match check_pbrt(f) {
            Ok(s) => {
                eprintln!("ok   {} ({} triangles, {} warnings)", f.display(), s.triangle_count(), s.warnings.len());
                for w in &s.warnings {
                    eprintln!("       {w}");
                }
            }
            Err(e) => {
                eprintln!("FAIL {e}");
                failed.push(e.to_string());
            }
        }
    }
    eprintln!("{} files, {} parsed, {} failed", files.len(), files.len() - failed.len(), failed.len());
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn normals_decide_the_emitting_side() {
    // Wound clockwise seen from +z, but its normals say +z: pbrt emits toward +z, so the
    // triangle is rewound to face +z; ReverseOrientation then flips it.
    let light = "AreaLightSource \"diffuse\" \"rgb L\" [1 1 1]\n\
                 Shape \"trianglemesh\" \"point3 P\" [0 0 0 0 1 0 1 0 0] \"normal N\" [0 0 1 0 0 1 0 0 1]";
    let facing = |s: &Scene| {
        let [a, b, c] = s.triangle_vertices(0);
        (b - a).cross(c - a).z.signum()
    };
    assert_eq!(facing(&scene(light)), 1.0);
    assert_eq!(facing(&scene(&format!("ReverseOrientation\n{light}"))), -1.0);
    // Without normals the winding decides.
    assert_eq!(facing(&scene("Shape \"trianglemesh\" \"point3 P\" [0 0 0 0 1 0 1 0 0]")), -1.0);
}

#[test]
fn motion_and_renderer_directives_are_warned_about() {
    // Motion blur: the start transform is used; EndTime changes are ignored.
    let s = scene(&format!(
        "TransformTimes 0 1\nActiveTransform EndTime\nTranslate 5 0 0\nActiveTransform All\n{TRIANGLE}\n\
         Accelerator \"kdtree\"\nWorldEnd"
    ));
    assert_eq!(s.triangle_vertices(0)[0], Vec3::ZERO);
    assert!(warned(&s, "inline.pbrt:2: TransformTimes is ignored"), "{:?}", s.warnings);
    assert!(warned(&s, "inline.pbrt:3: ActiveTransform EndTime"));
    assert!(warned(&s, "inline.pbrt:7: Accelerator \"kdtree\" is ignored"));
    assert_error_at("ActiveTransform Sometimes", 1, "StartTime, EndTime or All");
    // check_pbrt reports a scene lit only by unsupported lights instead of failing.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sun.pbrt"), format!("LightSource \"goniometric\"\n{TRIANGLE}\n")).unwrap();
    assert!(load_pbrt(&dir.path().join("sun.pbrt")).is_err());
    let s = check_pbrt(&dir.path().join("sun.pbrt")).unwrap();
    assert!(warned(&s, "lit only by lights warpath cannot render"));
}

#[test]
fn an_area_light_on_an_interface_absorbs_and_says_so() {
    let s = scene(&format!("Material \"interface\"\nAreaLightSource \"diffuse\" \"rgb L\" [2 2 2]\n{TRIANGLE}"));
    assert_eq!(material(&s, 0).kind(), MaterialKind::Black);
    assert_eq!(material(&s, 0).emission, Vec3::splat(2.0));
    assert!(warned(&s, "inline.pbrt:4: an area light on the interface material"), "{:?}", s.warnings);
}

#[test]
fn named_materials_may_be_used_before_they_are_defined() {
    // pbrt-v4 resolves material names after parsing (contemporary-bathroom uses "light"
    // before including the file that defines it): the definition fills the placeholder,
    // the emissive variant included.
    let s = scene(&format!(
        "AttributeBegin\nNamedMaterial \"later\"\nAreaLightSource \"diffuse\" \"rgb L\" [2 3 4]\n{TRIANGLE}\nAttributeEnd\n\
         NamedMaterial \"later\"\n{TRIANGLE}\n\
         MakeNamedMaterial \"later\" \"string type\" \"diffuse\" \"rgb reflectance\" [0.1 0.2 0.3]"
    ));
    assert!(!warned(&s, "NamedMaterial"), "{:?}", s.warnings);
    let lit = material(&s, 0);
    assert_eq!(
        (lit.kind(), lit.base_color, lit.emission),
        (MaterialKind::Diffuse, Vec3::new(0.1, 0.2, 0.3), Vec3::new(2.0, 3.0, 4.0))
    );
    let plain = material(&s, 1);
    assert_eq!(
        (plain.kind(), plain.base_color, plain.emission),
        (MaterialKind::Diffuse, Vec3::new(0.1, 0.2, 0.3), Vec3::ZERO)
    );
    // Never defined: an error at its first use; check_pbrt (files missing) warns instead.
    assert_error_at(
        &format!("LightSource \"infinite\"\n{TRIANGLE}\nNamedMaterial \"nope\"\n{TRIANGLE}"),
        3,
        "no material named",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.pbrt"),
        format!("LightSource \"infinite\"\nNamedMaterial \"nope\"\n{TRIANGLE}\n"),
    )
    .unwrap();
    let s = check_pbrt(&dir.path().join("a.pbrt")).unwrap_or_else(|e| panic!("{e}"));
    assert!(warned(&s, "a.pbrt:2: NamedMaterial: no material named \"nope\""), "{:?}", s.warnings);
}

#[test]
fn point_spot_and_distant_lights_map_to_delta_lights() {
    use std::f32::consts::PI;
    use warpath_core::light::delta_kind;
    let s = scene(&format!(
        "LightSource \"point\" \"rgb I\" [1 2 3] \"float scale\" 2 \"point3 from\" [0 1 0]\n\
         LightSource \"point\" \"float power\" 100\n\
         AttributeBegin\nTranslate 0 0 5\n\
         LightSource \"spot\" \"point3 from\" [0 0 0] \"point3 to\" [0 -1 0] \"float coneangle\" 40 \"float conedeltaangle\" 10\n\
         AttributeEnd\n\
         LightSource \"distant\" \"rgb L\" [2 2 2] \"point3 from\" [0 1 0] \"point3 to\" [0 0 0] \"float illuminance\" 3\n\
         {TRIANGLE}"
    ));
    assert_eq!(s.delta_lights.len(), 4, "{:?}", s.warnings);
    let [point, powered, spot, sun] = [s.delta_lights[0], s.delta_lights[1], s.delta_lights[2], s.delta_lights[3]];
    assert_eq!(point.kind, delta_kind::POINT);
    assert_eq!(point.position, Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(point.intensity, Vec3::new(2.0, 4.0, 6.0));
    assert!((powered.intensity.x - 100.0 / (4.0 * PI)).abs() < 1e-4);
    assert_eq!(spot.kind, delta_kind::SPOT);
    assert!((spot.position - Vec3::new(0.0, 0.0, 5.0)).length() < 1e-6);
    assert!((spot.direction - Vec3::NEG_Y).length() < 1e-6);
    assert!((spot.cos_cutoff - 40f32.to_radians().cos()).abs() < 1e-6);
    assert!((spot.cos_beam - 30f32.to_radians().cos()).abs() < 1e-6);
    assert_eq!(sun.kind, delta_kind::DIRECTIONAL);
    assert!((sun.direction - Vec3::NEG_Y).length() < 1e-6);
    assert_eq!(sun.intensity, Vec3::splat(6.0));
    assert_error_at("LightSource \"spot\" \"point3 from\" [1 1 1] \"point3 to\" [1 1 1]", 1, "coincide");
}

#[test]
fn a_parameter_given_twice_keeps_its_first_value_with_a_warning() {
    // pbrt-v4 reads the first of two same-named parameters and ignores the second.
    let s = scene(&format!(
        "Camera \"perspective\" \"float fov\" 30\n  \"float fov\" 60 \"float lensradius\" 0\n{TRIANGLE}"
    ));
    assert_eq!(s.camera.fov_degrees, 30.0, "the first fov");
    let w: Vec<&String> = s.warnings.iter().filter(|w| w.contains("given twice")).collect();
    assert_eq!(w.len(), 1, "{:?}", s.warnings);
    assert!(w[0].contains("inline.pbrt:3:") && w[0].contains("'fov'") && w[0].contains("line 2"), "{}", w[0]);
}

#[test]
fn file_names_resolve_against_the_scene_files_directory() {
    // pbrt-v4 resolves every relative name (Include, meshes, images), in included files too,
    // against the directory of the scene file it was given, as San Miguel's
    // geometry/*.pbrt files expect.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("geometry/geometry")).unwrap();
    std::fs::write(dir.path().join("main.pbrt"), "LightSource \"infinite\"\nInclude \"geometry/g.pbrt\"\n").unwrap();
    std::fs::write(dir.path().join("geometry/g.pbrt"), "Include \"geometry/m.pbrt\"\n").unwrap();
    std::fs::write(dir.path().join("geometry/m.pbrt"), TRIANGLE).unwrap();
    // The same name relative to g.pbrt: not what pbrt reads.
    std::fs::write(dir.path().join("geometry/geometry/m.pbrt"), format!("Translate 0 0 7\n{TRIANGLE}")).unwrap();
    let s = load_pbrt(&dir.path().join("main.pbrt")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.triangle_count(), 1);
    assert_eq!(s.triangle_vertices(0)[0], Vec3::ZERO, "read geometry/m.pbrt, not geometry/geometry/m.pbrt");
    assert!(!warned(&s, "relative to this file"), "{:?}", s.warnings);
    // Only the file-relative one exists: read, with a warning naming where pbrt looks.
    std::fs::remove_file(dir.path().join("geometry/m.pbrt")).unwrap();
    let s = load_pbrt(&dir.path().join("main.pbrt")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.triangle_vertices(0)[0], Vec3::new(0.0, 0.0, 7.0));
    assert!(warned(&s, "g.pbrt:1: 'geometry/m.pbrt' is read relative to this file"), "{:?}", s.warnings);
    // Neither: an error naming pbrt's path.
    std::fs::remove_file(dir.path().join("geometry/geometry/m.pbrt")).unwrap();
    let e = load_pbrt(&dir.path().join("main.pbrt")).unwrap_err().to_string();
    let expected = dir.path().join("geometry/m.pbrt");
    assert!(e.contains(&format!("'{}' not found", expected.display())), "{e}");
}

#[test]
fn a_coated_diffuse_of_eta_1_is_its_diffuse_base() {
    // pbrt-v4 accepts eta 1 (the sports car's materials use it): an index-matched coat lets
    // light straight through to the diffuse base.
    let s = scene(&format!(
        "Material \"coateddiffuse\" \"rgb reflectance\" [0.2 0.3 0.4] \"float eta\" 1 \"float roughness\" 0.075\n{TRIANGLE}"
    ));
    assert_eq!(*material(&s, 0), Material::diffuse(Vec3::new(0.2, 0.3, 0.4)), "{:?}", s.warnings);
    let s = scene(&format!("Material \"coateddiffuse\" \"float eta\" 1.0001\n{TRIANGLE}"));
    assert_eq!(material(&s, 0).kind(), MaterialKind::Plastic);
}

#[test]
fn a_texture_from_an_absent_file_is_a_warning_under_check_pbrt() {
    // A materials file whose textures are defined in another file (zero-day's
    // textures.pbrt): load_pbrt refuses the unknown name as pbrt does; check_pbrt, whose
    // copy may lack that file, warns and ignores the parameter.
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "LightSource \"infinite\"\nInclude \"textures.pbrt\"\n\
         Material \"coateddiffuse\" \"texture reflectance\" \"c\" \"texture roughness\" \"r\"\n{TRIANGLE}\n"
    );
    std::fs::write(dir.path().join("m.pbrt"), text).unwrap();
    let e = load_pbrt(&dir.path().join("m.pbrt")).unwrap_err().to_string();
    assert!(e.contains("textures.pbrt") && e.contains("not found"), "{e}");
    let s = check_pbrt(&dir.path().join("m.pbrt")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        warned(&s, "m.pbrt:3: Material \"coateddiffuse\": 'reflectance': no texture named \"c\""),
        "{:?}",
        s.warnings
    );
    assert!(warned(&s, "'roughness': no texture named \"r\""), "{:?}", s.warnings);
    assert_eq!(material(&s, 0).kind(), MaterialKind::Plastic, "pbrt's default coated diffuse");
    // With the file present, load_pbrt still refuses the unknown name (check_pbrt also reads
    // a fragment of a scene, such as a materials file, on its own, so it warns whatever the
    // cause).
    std::fs::write(dir.path().join("textures.pbrt"), "").unwrap();
    let e = load_pbrt(&dir.path().join("m.pbrt")).unwrap_err().to_string();
    assert!(e.contains("no texture named \"c\""), "{e}");
}

#[test]
fn a_coated_conductor_takes_its_color_from_reflectance() {
    // pbrt-v4's coatedconductor reads an unprefixed `reflectance` (kroken's rusty teapot).
    let s = scene(&format!("Material \"coatedconductor\" \"rgb reflectance\" [0.2 0.4 0.6]\n{TRIANGLE}"));
    assert_eq!(material(&s, 0).specular, Vec3::new(0.2, 0.4, 0.6), "{:?}", s.warnings);
    assert!(!warned(&s, "reflectance"), "{:?}", s.warnings);
}
