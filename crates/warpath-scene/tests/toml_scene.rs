//! The native TOML format: the documented example loads (and is the same text as in
//! docs/scene-format.md), transforms and materials come out right, and every kind of
//! mistake is an error at the right line.

use glam::Vec3;
use std::path::{Path, PathBuf};
use warpath_core::camera::FovAxis;
use warpath_core::light::Environment;
use warpath_core::material::MaterialKind;
use warpath_core::sampler::SamplerKind;
use warpath_scene::toml_scene::{load_any, parse_toml_scene};
use warpath_scene::{Scene, SceneError};
use warpath_testkit::scene_text;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn parse(text: &str) -> Result<Scene, SceneError> {
    parse_toml_scene(text, &data("inline.toml"))
}

/// Asserts a Parse error at `line` whose message contains `needle`.
fn assert_error_at(text: &str, line: usize, needle: &str) {
    match parse(text) {
        Err(SceneError::Parse { line: got, message, path }) => {
            assert_eq!(got, line, "wrong line for '{message}'");
            assert!(message.contains(needle), "message '{message}' lacks '{needle}'");
            assert!(path.ends_with("inline.toml"));
        }
        Err(other) => panic!("expected a Parse error at line {line}, got {other}"),
        Ok(_) => panic!("expected a Parse error at line {line}, got a scene"),
    }
}

fn mesh<'a>(scene: &'a Scene, name: &str) -> &'a warpath_scene::MeshInfo {
    scene.meshes.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no mesh {name}: {:?}", scene.meshes))
}

fn material_of<'a>(scene: &'a Scene, mesh_name: &str) -> &'a warpath_core::material::Material {
    let info = mesh(scene, mesh_name);
    &scene.materials[scene.triangle_materials[info.first_triangle as usize] as usize]
}

#[test]
fn example_scene_loads() {
    let scene = load_any(&data("example.toml")).unwrap();
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    assert_eq!((scene.settings.width, scene.settings.height, scene.settings.spp), (640, 480, 64));
    assert_eq!(scene.settings.seed, 7);
    assert_eq!(scene.settings.sampler, SamplerKind::PaddedHalton);
    assert_eq!(scene.camera.fov_axis, FovAxis::Smaller);
    assert_eq!(scene.camera.position(), Vec3::new(0.0, 2.0, 7.0));
    assert_eq!(scene.camera.aperture_radius, 0.02);
    assert_eq!(scene.meshes.len(), 5);
    // The pyramid: 3 triangles of sides + 2 of the quad base, moved by translate.
    let pyramid = mesh(&scene, "mesh#1");
    assert_eq!(pyramid.triangle_count, 6);
    assert_eq!(material_of(&scene, "mesh#1").kind(), MaterialKind::RoughConductor);
    assert_eq!(material_of(&scene, "light").emission, Vec3::new(12.0, 11.0, 9.0));
    assert!(matches!(scene.environment, Environment::Constant(c) if c == Vec3::new(0.05, 0.07, 0.12)));
    // Floor: rotated -90° about x, scaled by 10 → normal +y, spans [-10,10] in x and z.
    let floor = mesh(&scene, "floor");
    let [a, b, c] = scene.triangle_vertices(floor.first_triangle as usize);
    assert!(((b - a).cross(c - a).normalize() - Vec3::Y).length() < 1e-5);
    assert!(a.y.abs() < 1e-5 && (a.x.abs() - 10.0).abs() < 1e-4);
    // The light faces down.
    let light = mesh(&scene, "light");
    let [a, b, c] = scene.triangle_vertices(light.first_triangle as usize);
    assert!(((b - a).cross(c - a).normalize() + Vec3::Y).length() < 1e-5);
    assert!((a.y - 5.0).abs() < 1e-5);
    // Glass cube by to_world: [0,0.8] in y, centered at z = 1.8.
    let cube = mesh(&scene, "cube#3");
    let ys: Vec<f32> = (0..cube.triangle_count)
        .flat_map(|t| scene.triangle_vertices((cube.first_triangle + t) as usize))
        .map(|p| p.y)
        .collect();
    assert!((ys.iter().cloned().fold(f32::MAX, f32::min) - 0.0).abs() < 1e-5);
    assert!((ys.iter().cloned().fold(f32::MIN, f32::max) - 0.8).abs() < 1e-5);
}

#[test]
fn docs_contain_the_example_verbatim() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scene-format.md");
    let docs = std::fs::read_to_string(docs).unwrap();
    let after = docs.split("## Complete example").nth(1).expect("docs have a '## Complete example' section");
    let block = after.split("```toml\n").nth(1).unwrap().split("```").next().unwrap();
    let file = std::fs::read_to_string(data("example.toml")).unwrap();
    assert_eq!(block, file, "docs/scene-format.md and tests/data/example.toml differ");
}

#[test]
fn mirrored_transforms_keep_normals_consistent() {
    let scene = parse(&scene_text("mirrored-shapes.toml")).unwrap();
    for t in 0..scene.triangle_count() {
        let [a, b, c] = scene.triangle_vertices(t);
        let geometric = (b - a).cross(c - a).normalize();
        let n = scene.normals[scene.triangles[t][0] as usize];
        assert!(geometric.dot(n) > 0.5, "triangle {t}: {geometric} vs {n}");
        // Still outward: the objects are centered at the origin.
        assert!(geometric.dot(a + b + c) > 0.0, "triangle {t} faces inward");
    }
}

#[test]
fn rotate_translate_scale_compose_as_trs() {
    let scene = parse(&scene_text("trs-rectangle.toml")).unwrap();
    // Corner (1,1,0) → S (2,1,0) → R(z,90°) (-1,2,0) → T (4,2,0).
    assert!(scene.positions.iter().any(|p| (*p - Vec3::new(4.0, 2.0, 0.0)).length() < 1e-5), "{:?}", scene.positions);
    // No material given: the default diffuse gray.
    assert_eq!(scene.material_names, vec!["default"]);
    assert_eq!(scene.materials[0].base_color, Vec3::splat(0.8));
}

#[test]
fn shape_emission_and_every_material_type() {
    let scene = parse(&scene_text("every-material-type.toml")).unwrap();
    let m = material_of(&scene, "s");
    assert_eq!(m.kind(), MaterialKind::CarPaint);
    assert_eq!(m.emission, Vec3::splat(2.0));
    assert!(m.two_sided_emission());
    assert_eq!(m.ior, 1.6);
    let b = &scene.materials[scene.material_names.iter().position(|n| n == "b").unwrap()];
    assert_eq!((b.kind(), b.ior, b.roughness), (MaterialKind::RoughDielectric, 1.33, 0.1));
    // The shared material "a" itself does not emit.
    let a = &scene.materials[scene.material_names.iter().position(|n| n == "a").unwrap()];
    assert!(!a.is_emissive());
}

#[test]
fn syntax_errors_have_the_line() {
    assert_error_at("[render]\nwidth = 64\nheight = = 3\n", 3, "");
    assert_error_at("[render]\nwidth = 64\n\n[camera\n", 4, "");
    assert_error_at("[render]\nwidht = 64\n", 2, "widht");
    assert_error_at("[render]\nwidth = \"big\"\n", 2, "");
}

#[test]
fn absurd_values_are_errors_at_their_line() {
    assert_error_at("[render]\nwidth = 0\n", 2, "width");
    assert_error_at("[render]\nwidth = 64\nheight = 20000\n", 3, "height");
    assert_error_at("[render]\nspp = 0\n", 2, "spp");
    assert_error_at("[render]\nsampler = \"sobol\"\n", 2, "sobol");
    let material = |body: &str| format!("[[material]]\nname = \"m\"\n{body}\n");
    assert_error_at(&material("type = \"glass\"\nior = -1.5"), 4, "ior");
    assert_error_at(&material("type = \"rough-conductor\"\nroughness = 1.5"), 4, "roughness");
    assert_error_at(&material("type = \"diffuse\"\nbase_color = [0.5, -0.1, 0.5]"), 4, "base_color");
    assert_error_at(&material("type = \"diffuse\"\nior = 1.5"), 4, "does not apply");
    assert_error_at(&material("type = \"plastique\""), 3, "unknown material type");
    assert_error_at("[camera]\nlook_at = { origin = [0,0,1], target = [0,0,0] }\nfov = 0\n", 3, "fov");
    assert_error_at("[camera]\nfov = 30\n", 1, "look_at");
    assert_error_at("[[shape]]\ntype = \"cube\"\nscale = [1, 0, 1]\n", 3, "singular");
    assert_error_at("[[shape]]\ntype = \"sphere\"\nsubdivisions = 12\n", 3, "subdivisions");
    assert_error_at("\n[environment]\ntype = \"constant\"\nradiance = [1, 1, inf]\n", 4, "radiance");
}

#[test]
fn semantic_errors_point_at_the_offending_key() {
    let text =
        "[[material]]\nname = \"white\"\ntype = \"diffuse\"\n\n[[shape]]\ntype = \"cube\"\nmaterial = \"whte\"\n";
    assert_error_at(text, 7, "unknown material 'whte'");
    assert_error_at("[[shape]]\ntype = \"torus\"\n", 2, "unknown shape type");
    assert_error_at("# c\n[[shape]]\ntype = \"mesh\"\nfile = \"no-such.obj\"\n", 4, "not found");
    assert_error_at("[[shape]]\ntype = \"mesh\"\n", 2, "needs a 'file'");
    assert_error_at("[environment]\ntype = \"map\"\nfile = \"missing.exr\"\n", 3, "not found");
    assert_error_at("[environment]\ntype = \"sunny\"\n", 2, "unknown environment type");
    let dup = "[[material]]\nname = \"a\"\ntype = \"black\"\n[[material]]\nname = \"a\"\ntype = \"black\"\n";
    assert_error_at(dup, 5, "defined twice");
    let tex = "[[material]]\nname = \"t\"\ntype = \"diffuse\"\nbase_color_texture = \"nope.png\"\n";
    assert_error_at(tex, 4, "texture");
}

#[test]
fn load_any_dispatches_and_reports_missing_files() {
    assert!(matches!(load_any(&data("nope.toml")), Err(SceneError::NotFound { .. })));
    assert!(matches!(load_any(Path::new("scene.fbx")), Err(SceneError::Unsupported { .. })));
    // A bare mesh becomes a scene: default material, white environment, framing camera.
    let scene = load_any(&data("pyramid.ply")).unwrap();
    assert_eq!(scene.triangle_count(), 6);
    assert_eq!(scene.material_names, vec!["default"]);
    assert!(matches!(scene.environment, Environment::Constant(c) if c == Vec3::ONE));
    let to_center = (scene.bounds().center() - scene.camera.position()).normalize();
    let forward = scene.camera.to_world.z_axis.truncate();
    assert!(forward.dot(to_center) > 0.999);
    // Through the crate's entry point too, by name and by path.
    assert!(warpath_scene::load("cornell").is_ok());
    assert!(matches!(warpath_scene::load("/no/such/scene.toml"), Err(SceneError::NotFound { .. })));
}

#[test]
fn non_utf8_scene_is_a_parse_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, b"[render]\nwidth = 4\n\xff\xfe = 1\n").unwrap();
    assert!(matches!(load_any(&path), Err(SceneError::Parse { line: 3, .. })));
}

/// A `light-field` (issue 15's many-light scenes): `count` emissive triangles in `hues`
/// emitter materials (emission × the hue's colour), centres inside the transformed box
/// [-1,1]³, edges within light_size, colours mixed with white by `saturation`; the same triangles as the built-in's generator; and its
/// mistakes are errors at their keys.
#[test]
fn light_fields_make_their_emitters_and_refuse_bad_keys() {
    let text = "[[shape]]\ntype = \"light-field\"\nname = \"f\"\ncount = 1000\nhues = 5\nlight_size = [0.1, 0.2]\n\
                emission = 3.0\ntranslate = [0, 2, 0]\nscale = [4, 0.5, 4]\n";
    let scene = parse(text).unwrap();
    assert_eq!(scene.triangles.len(), 1000);
    let names: Vec<&String> = scene.meshes.iter().map(|m| &m.name).collect();
    assert_eq!(names, ["f-lights-0", "f-lights-1", "f-lights-2", "f-lights-3", "f-lights-4"]);
    for (h, mesh) in scene.meshes.iter().enumerate() {
        assert_eq!(mesh.triangle_count, 200, "hue {h}");
        let m = material_of(&scene, &mesh.name);
        assert!(m.is_emissive() && m.emission.max_element() == 3.0 && m.emission.min_element() >= 0.0, "{m:?}");
        assert_eq!(
            scene.material_names[scene.triangle_materials[mesh.first_triangle as usize] as usize],
            format!("f-hue-{h}")
        );
    }
    for t in &scene.triangles {
        let p = t.map(|i| scene.positions[i as usize]);
        let centre = (p[0] + p[1] + p[2]) / 3.0;
        // Centres in [-4,4]×[1.5,2.5]×[-4,4] (up to the triangle's own extent).
        assert!(centre.x.abs() <= 4.2 && (1.3..=2.7).contains(&centre.y) && centre.z.abs() <= 4.2, "{centre}");
        let edge = (p[1] - p[0]).length() / 3f32.sqrt();
        assert!((0.099..=0.201).contains(&edge), "edge scale {edge}");
        // Facing down: the winding normal's y is negative (tilted at most ~15°).
        let n = (p[1] - p[0]).cross(p[2] - p[0]).normalize();
        assert!(n.y < -0.95, "{n}");
    }
    // The same generator as the built-in many-lights: same seed and sizes, same triangles up
    // to the placement.
    let field = warpath_scene::builtin::LightField {
        count: 1000,
        hues: 5,
        seed: 4242,
        light_size: [0.1, 0.2],
        saturation: 1.0,
    };
    let meshes = field.meshes(|u| {
        glam::Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0))
            .mul_mat4(&glam::Mat4::from_scale(Vec3::new(4.0, 0.5, 4.0)))
            .transform_point3(u * 2.0 - Vec3::ONE)
    });
    let direct: usize = meshes.iter().map(|(m, _)| m.triangles.len()).sum();
    assert_eq!(direct, 1000);
    let first = meshes[0].0.positions[0];
    assert!((first - scene.positions[0]).length() < 1e-5, "{first} vs {}", scene.positions[0]);

    // saturation mixes every hue with white (the brightest channel kept): 0.2 is near-white.
    let pale = parse(&text.replace("count = 1000", "count = 1000\nsaturation = 0.2")).unwrap();
    for mesh in &pale.meshes {
        let m = material_of(&pale, &mesh.name);
        assert!(m.emission.max_element() == 3.0 && m.emission.min_element() >= 0.8 * 3.0 - 1e-5, "{m:?}");
    }
    let white = parse(&text.replace("count = 1000", "count = 1000\nsaturation = 0")).unwrap();
    assert!(white.meshes.iter().all(|mesh| material_of(&white, &mesh.name).emission == Vec3::splat(3.0)));
    let field = |extra: &str| format!("[[shape]]\ntype = \"light-field\"\n{extra}\n");
    assert_error_at(&field("count = 10"), 1, "needs 'emission'");
    assert_error_at(&field("emission = 1"), 1, "needs 'count'");
    assert_error_at(&field("emission = 1\ncount = 0"), 4, "'count' must be");
    assert_error_at(&field("emission = 1\ncount = 10\nhues = 0"), 5, "'hues' must be");
    assert_error_at(&field("emission = 1\ncount = 10\nlight_size = [0.2, 0.1]"), 5, "light_size");
    assert_error_at(&field("emission = 1\ncount = 10\nsaturation = 1.5"), 5, "'saturation' must be");
    let with_material = "[[material]]\nname = \"m\"\ntype = \"black\"\n[[shape]]\ntype = \"light-field\"\n\
                         material = \"m\"\nemission = 1\ncount = 10\n";
    assert_error_at(with_material, 6, "makes its own emitters");
    assert_error_at("[[shape]]\ntype = \"sphere\"\ncount = 10\n", 3, "applies to light fields");
}

const CUBE: &str = "[[shape]]\ntype = \"cube\"\nname = \"c\"\nmaterial = \"m\"\n";

#[test]
fn light_tables_make_point_spot_and_directional_lights() {
    use warpath_core::light::delta_kind;
    let s = parse(&format!(
        "[[material]]\nname = \"m\"\ntype = \"diffuse\"\n{CUBE}\n\
         [[light]]\ntype = \"point\"\nposition = [0, 3, 0]\nintensity = [1, 2, 3]\nscale = 2\n\n\
         [[light]]\ntype = \"spot\"\nposition = [0, 4, 0]\ntarget = [0, 0, 0]\nintensity = 5\ncutoff_angle = 30\n\n\
         [[light]]\ntype = \"directional\"\ndirection = [0, -2, 0]\nirradiance = 3\n"
    ))
    .unwrap();
    assert_eq!(s.delta_lights.len(), 3);
    let [point, spot, sun] = [s.delta_lights[0], s.delta_lights[1], s.delta_lights[2]];
    assert_eq!(
        (point.kind, point.position, point.intensity),
        (delta_kind::POINT, Vec3::new(0.0, 3.0, 0.0), Vec3::new(2.0, 4.0, 6.0))
    );
    assert_eq!((spot.kind, spot.direction, spot.intensity), (delta_kind::SPOT, Vec3::NEG_Y, Vec3::splat(5.0)));
    assert!((spot.cos_beam - 22.5f32.to_radians().cos()).abs() < 1e-6, "beam width defaults to 3/4 of the cutoff");
    assert_eq!((sun.kind, sun.direction, sun.intensity), (delta_kind::DIRECTIONAL, Vec3::NEG_Y, Vec3::splat(3.0)));
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let light = |body: &str| format!("[[material]]\nname = \"m\"\ntype = \"diffuse\"\n{CUBE}\n[[light]]\n{body}");
    assert_error_at(&light("type = \"point\"\nintensity = 1"), 9, "needs a 'position'");
    assert_error_at(&light("type = \"spot\"\nposition = [0, 1, 0]\ntarget = [0, 1, 0]"), 12, "target is its position");
    assert_error_at(
        &light("type = \"spot\"\nposition = [0, 1, 0]\ndirection = [0, -1, 0]\ncutoff_angle = 20\nbeam_width = 30"),
        14,
        "beam_width",
    );
    assert_error_at(&light("type = \"directional\"\ndirection = [0, -1, 0]\nintensity = 2"), 12, "irradiance");
    assert_error_at(&light("type = \"area\""), 10, "unknown light type");
}

#[test]
fn plastic_materials_take_mitsubas_parameters() {
    use warpath_core::material::flags;
    let s = parse(&format!(
        "[[material]]\nname = \"m\"\ntype = \"plastic\"\nbase_color = [0.5, 0.2, 0.1]\nroughness = 0.3\nnonlinear = true\n\
         exterior_ior = 1.2\nior = 1.8\n{CUBE}"
    ))
    .unwrap();
    let m = material_of(&s, "c");
    assert_eq!(m.kind(), MaterialKind::Plastic);
    assert_eq!((m.base_color, m.specular, m.roughness), (Vec3::new(0.5, 0.2, 0.1), Vec3::ONE, 0.3));
    assert!((m.ior - 1.5).abs() < 1e-6 && m.flags & flags::NONLINEAR != 0);
    let s = parse(&format!("[[material]]\nname = \"m\"\ntype = \"plastic\"\n{CUBE}")).unwrap();
    let m = material_of(&s, "c");
    assert_eq!((m.roughness, m.ior), (0.0, 1.49), "smooth polypropylene by default");
    assert_error_at(
        &format!("[[material]]\nname = \"m\"\ntype = \"diffuse\"\nnonlinear = true\n{CUBE}"),
        4,
        "'nonlinear' does not apply",
    );
    assert_error_at(&format!("[[material]]\nname = \"m\"\ntype = \"plastic\"\nior = 1\n{CUBE}"), 4, "needs ior");
}

#[test]
fn conductors_take_eta_k_and_rough_materials_a_distribution() {
    let s = parse(&format!(
        "[[material]]\nname = \"m\"\ntype = \"rough-conductor\"\neta = [0.2, 0.9, 1.1]\nk = [3.9, 2.5, 2.1]\n\
         roughness = 0.4\ndistribution = \"beckmann\"\n{CUBE}"
    ))
    .unwrap();
    let m = material_of(&s, "c");
    assert_eq!((m.kind(), m.base_color, m.roughness), (MaterialKind::RoughConductor, Vec3::ONE, 0.4));
    assert!(m.has_conductor_eta_k() && m.beckmann());
    assert_eq!((m.conductor_eta(), m.conductor_k()), (Vec3::new(0.2, 0.9, 1.1), Vec3::new(3.9, 2.5, 2.1)));
    // A mirror's `specular` multiplies the exact Fresnel; Mitsuba's default eta 0 fills in.
    let s = parse(&format!("[[material]]\nname = \"m\"\ntype = \"mirror\"\nk = 2\nspecular = 0.5\n{CUBE}")).unwrap();
    let m = material_of(&s, "c");
    assert_eq!((m.kind(), m.base_color), (MaterialKind::Mirror, Vec3::splat(0.5)));
    assert_eq!((m.conductor_eta(), m.conductor_k()), (Vec3::ZERO, Vec3::splat(2.0)));
    let material = |body: &str| format!("[[material]]\nname = \"m\"\n{body}\n{CUBE}");
    assert_error_at(&material("type = \"diffuse\"\neta = 1.5"), 4, "'eta'/'k' do not apply");
    assert_error_at(&material("type = \"rough-conductor\"\nk = -1"), 4, "k must be finite and non-negative");
    assert_error_at(&material("type = \"rough-dielectric\"\ndistribution = \"phong\""), 4, "must be \"ggx\" or");
    assert_error_at(&material("type = \"diffuse\"\ndistribution = \"ggx\""), 4, "'distribution' does not apply");
    // A rough plastic's coat takes a distribution too.
    let s = parse(&material("type = \"plastic\"\nroughness = 0.3\ndistribution = \"beckmann\"")).unwrap();
    let m = material_of(&s, "c");
    assert!(m.kind() == MaterialKind::Plastic && m.beckmann());
}

#[test]
fn principled_materials_take_mitsubas_parameters() {
    let s = parse(&format!(
        "[[material]]\nname = \"m\"\ntype = \"principled\"\nbase_color = [0.5, 0.2, 0.1]\nroughness = 0.3\n\
         metallic = 0.1\nspec_tint = 0.2\nsheen = 0.3\nsheen_tint = 0.4\nclearcoat = 0.5\nclearcoat_gloss = 0.6\n\
         spec_trans = 0.7\nflatness = 0.8\nior = 1.33\n{CUBE}"
    ))
    .unwrap();
    let m = material_of(&s, "c");
    assert_eq!(m.kind(), MaterialKind::Principled);
    assert_eq!((m.base_color, m.roughness, m.ior), (Vec3::new(0.5, 0.2, 0.1), 0.3, 1.33));
    let weights =
        [m.metallic, m.spec_tint, m.sheen, m.sheen_tint, m.clearcoat, m.clearcoat_gloss, m.spec_trans, m.flatness];
    assert_eq!(weights, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]);
    let s = parse(&format!("[[material]]\nname = \"m\"\ntype = \"principled\"\n{CUBE}")).unwrap();
    let m = material_of(&s, "c");
    assert_eq!((m.base_color, m.roughness, m.ior, m.metallic), (Vec3::splat(0.5), 0.5, 1.5, 0.0), "Mitsuba's defaults");
    assert_error_at(
        &format!("[[material]]\nname = \"m\"\ntype = \"diffuse\"\nsheen = 0.5\n{CUBE}"),
        4,
        "'sheen' does not apply",
    );
    assert_error_at(
        &format!("[[material]]\nname = \"m\"\ntype = \"principled\"\nmetallic = 1.5\n{CUBE}"),
        4,
        "metallic must be in [0, 1]",
    );
}
