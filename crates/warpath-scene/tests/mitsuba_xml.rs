//! Mitsuba 3 XML import (issue 33, docs/scene-format.md "Mitsuba 3 XML"): the XML Cornell
//! box is the built-in one, the scene graph (defaults, `$name`, include, ref, transforms)
//! resolves as Mitsuba's does, the BSDF and emitter mapping follows the exporter's, and
//! every error names the file and line. The Mitsuba conventions that rendering against
//! Mitsuba itself found (scripts/mitsuba-oracle) are pinned here: a bare emitter's black
//! BSDF, the cube's uv layout, file names relative to the scene's folder, conductors' complex
//! indices and Beckmann (exact, no warning, a rough plastic's coat included).

use glam::{Mat3, Mat4, Vec2, Vec3};
use std::path::{Path, PathBuf};
use warpath_core::camera::{Camera, FovAxis};
use warpath_core::light::Environment;
use warpath_core::material::{Material, MaterialKind, flags};
use warpath_scene::mitsuba_xml::{
    DISK_SEGMENTS, FALLBACK_REFLECTANCE, MITSUBA_CUBE_UVS, SPHERE_SEGMENTS, disk_mesh, load_mitsuba_xml,
    mitsuba_cube_mesh, mitsuba_sphere_mesh, parse_mitsuba_xml,
};
use warpath_scene::{Scene, SceneError, UNLIMITED_DEPTH, builtin};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mitsuba").join(name)
}

fn parse(text: &str) -> Result<Scene, SceneError> {
    parse_mitsuba_xml(text, &data("inline.xml"), &[])
}

fn scene(body: &str) -> Scene {
    parse(&format!("<scene version=\"3.0.0\">\n{body}\n</scene>")).unwrap_or_else(|e| panic!("{e}"))
}

/// Asserts a Parse error at `line` whose message contains `needle`.
fn assert_error_at(text: &str, line: usize, needle: &str) {
    match parse(text) {
        Err(SceneError::Parse { line: got, message, path }) => {
            assert_eq!(got, line, "wrong line for '{message}'");
            assert!(message.contains(needle), "message '{message}' lacks '{needle}'");
            assert!(path.ends_with("inline.xml"), "{}", path.display());
        }
        Err(other) => panic!("expected a Parse error at line {line}, got {other}"),
        Ok(_) => panic!("expected a Parse error at line {line}, got a scene"),
    }
}

fn material_of<'a>(scene: &'a Scene, mesh_name: &str) -> &'a Material {
    let mesh = scene.meshes.iter().find(|m| m.name == mesh_name).unwrap_or_else(|| panic!("no mesh {mesh_name}"));
    &scene.materials[scene.triangle_materials[mesh.first_triangle as usize] as usize]
}

const LIGHT: &str =
    r#"<shape type="rectangle"><emitter type="area"><rgb name="radiance" value="1"/></emitter></shape>"#;

#[test]
fn the_xml_cornell_box_is_the_built_in_one() {
    let xml = load_mitsuba_xml(&data("cornell-box.xml"), &[]).unwrap_or_else(|e| panic!("{e}"));
    let reference = builtin::cornell();
    assert!(xml.warnings.is_empty(), "{:?}", xml.warnings);

    // Geometry: the same vertices (bit for bit: the same matrices place the same meshes),
    // triangles, normals and mesh ranges.
    assert_eq!(xml.positions.len(), reference.positions.len());
    for (a, b) in xml.positions.iter().zip(&reference.positions) {
        assert!((*a - *b).abs().max_element() <= 1e-5, "{a} vs {b}");
    }
    assert_eq!(xml.positions, reference.positions);
    assert_eq!(xml.normals, reference.normals);
    assert_eq!(xml.triangles, reference.triangles);
    assert_eq!(xml.meshes, reference.meshes);
    // Mitsuba's uv has v = 0 at the image's top, warpath's at the bottom; the rectangles
    // keep warpath's layout, the boxes (24 vertices, 12 triangles each) take Mitsuba's cube's.
    let flip = |uv: &Vec2| Vec2::new(uv.x, 1.0 - uv.y);
    let cube_uvs: Vec<Vec2> = mitsuba_cube_mesh().uvs.iter().map(flip).collect();
    let mut expected = Vec::new();
    for mesh in &reference.meshes {
        let first = expected.len();
        match mesh.triangle_count {
            2 => expected.extend(reference.uvs[first..first + 4].iter().map(flip)),
            12 => expected.extend_from_slice(&cube_uvs),
            n => panic!("mesh {} has {n} triangles: neither a rectangle nor a cube", mesh.name),
        }
    }
    assert_eq!(xml.uvs, expected);

    // Materials and emission: the same parameters, in the same order, on the same triangles.
    assert_eq!(xml.materials, reference.materials);
    assert_eq!(xml.triangle_materials, reference.triangle_materials);
    let emissive = |s: &Scene| s.triangle_materials.iter().filter(|&&m| s.materials[m as usize].is_emissive()).count();
    assert_eq!(emissive(&xml), 2);
    assert_eq!(material_of(&xml, "light").emission, builtin::CORNELL_LIGHT_RADIANCE);

    // Camera, settings and the rest of what a renderer reads.
    assert_eq!(xml.camera, reference.camera);
    assert_eq!(xml.settings, reference.settings);
    assert!(matches!(xml.environment, Environment::None));
    assert!(xml.media.is_empty() && xml.triangle_media.is_empty() && xml.camera_medium.is_none());
    assert!(xml.textures.is_empty() && xml.isosurfaces.is_empty());
    // Light sampling sees the same lights.
    let (a, b) = (xml.light_set(), reference.light_set());
    assert_eq!(a.triangles.len(), b.triangles.len());
}

#[test]
fn xml_files_load_through_the_scene_dispatch() {
    let path = data("cornell-box.xml");
    let scene = warpath_scene::load(path.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.triangle_count(), builtin::cornell().triangle_count());
}

#[test]
fn defaults_are_overridden_from_the_command_line() {
    let path = data("cornell-box.xml");
    let scene = load_mitsuba_xml(&path, &[]).unwrap();
    assert_eq!((scene.settings.width, scene.settings.spp), (256, 64));
    let scene = load_mitsuba_xml(&path, &[("spp", "16"), ("resx", "128")]).unwrap();
    assert_eq!((scene.settings.width, scene.settings.height, scene.settings.spp), (128, 256, 16));
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    // An override the scene never reads is named.
    let scene = load_mitsuba_xml(&path, &[("sppp", "16")]).unwrap();
    assert!(scene.warnings.iter().any(|w| w.contains("'sppp'") && w.contains("not used")), "{:?}", scene.warnings);
}

#[test]
fn parameters_substitute_and_undefined_ones_are_errors() {
    let s = scene(
        r#"<default name="r" value="0.5"/>
<default name="r" value="0.9"/>
<default name="kind" value="diffuse"/>
<bsdf type="$kind" id="b"><rgb name="reflectance" value="$r, 0.25, $r"/></bsdf>
<shape type="cube" id="c"><ref id="b"/></shape>"#,
    );
    // The first default wins.
    assert_eq!(material_of(&s, "c").base_color, Vec3::new(0.5, 0.25, 0.5));
    assert_error_at(
        "<scene version=\"3.0.0\">\n<shape type=\"sphere\">\n<float name=\"radius\" value=\"$size\"/>\n</shape>\n</scene>",
        3,
        "'$size' is not defined",
    );
}

#[test]
fn includes_and_refs_resolve_relative_to_the_file() {
    let s = scene(&format!(
        r#"<default name="albedo" value="0.75"/>
<include filename="materials.xml"/>
<shape type="rectangle" id="a"><ref id="grey"/></shape>
<shape type="rectangle" id="b"><ref id="mirror"/></shape>
{LIGHT}"#
    ));
    // The including file's default overrides the included file's.
    let grey = material_of(&s, "a");
    assert_eq!((grey.kind(), grey.base_color), (MaterialKind::Diffuse, Vec3::splat(0.75)));
    assert!(grey.one_sided(), "a bare Mitsuba diffuse is one-sided");
    let mirror = material_of(&s, "b");
    assert_eq!((mirror.kind(), mirror.base_color), (MaterialKind::Mirror, Vec3::ONE));
    assert_eq!((mirror.conductor_eta(), mirror.conductor_k()), (Vec3::ZERO, Vec3::ONE), "a perfect mirror");
    assert_eq!(s.material_names[s.triangle_materials[0] as usize], "grey");

    assert_error_at(
        "<scene version=\"3.0.0\">\n\n<shape type=\"cube\"><ref id=\"nothing\"/></shape>\n</scene>",
        3,
        "names no BSDF",
    );
    assert_error_at("<scene version=\"3.0.0\">\n<include filename=\"missing.xml\"/>\n</scene>", 2, "not found");
    match load_mitsuba_xml(&data("include-cycle.xml"), &[]) {
        Err(SceneError::Parse { line: 4, message, .. }) => assert!(message.contains("cycle"), "{message}"),
        other => panic!("expected an include cycle error at line 4, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn transforms_compose_in_document_order() {
    // translate then rotate: to_world = R · T, as Mitsuba composes.
    let s = scene(&format!(
        r#"<shape type="rectangle" id="r"><transform name="to_world">
    <translate x="1"/>
    <rotate y="1" angle="90"/>
</transform></shape>{LIGHT}"#
    ));
    let expected = Mat4::from_rotation_y(90f32.to_radians()) * Mat4::from_translation(Vec3::X);
    let corner = expected.transform_point3(Vec3::new(1.0, 1.0, 0.0));
    assert!((corner - Vec3::new(0.0, 1.0, -2.0)).length() < 1e-5, "{corner}");
    let first = s.triangles[0][0] as usize;
    let placed: Vec<Vec3> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|&(x, y)| expected.transform_point3(Vec3::new(x, y, 0.0)))
        .collect();
    for (k, p) in placed.iter().enumerate() {
        assert!((s.positions[first + k] - *p).length() < 1e-5, "vertex {k}: {} vs {p}", s.positions[first + k]);
    }
    // scale, then a row-major matrix, then a lookat.
    let s = scene(&format!(
        r#"<shape type="cube" id="c"><transform name="to_world">
    <scale value="2"/>
    <matrix value="1 0 0 5  0 1 0 0  0 0 1 0  0 0 0 1"/>
</transform></shape>
<sensor type="perspective"><float name="fov" value="45"/><transform name="to_world">
    <lookat origin="0, 1, 5" target="0 1 0" up="0 1 0"/>
</transform></sensor>{LIGHT}"#
    ));
    let mesh = &s.meshes[0];
    let xs: Vec<f32> = (mesh.first_triangle..mesh.first_triangle + mesh.triangle_count)
        .flat_map(|t| s.triangle_vertices(t as usize))
        .map(|p| p.x)
        .collect();
    assert_eq!(xs.iter().cloned().fold(f32::MAX, f32::min), 3.0);
    assert_eq!(xs.iter().cloned().fold(f32::MIN, f32::max), 7.0);
    let look = Camera::look_at(Vec3::new(0.0, 1.0, 5.0), Vec3::new(0.0, 1.0, 0.0), Vec3::Y, 45.0);
    assert_eq!(s.camera.to_world, look.to_world);
    assert_eq!((s.camera.fov_degrees, s.camera.fov_axis), (45.0, FovAxis::X));
}

#[test]
fn bsdfs_map_to_warpaths_materials() {
    let s = scene(&format!(
        r#"<shape type="cube" id="glass"><bsdf type="dielectric"><float name="int_ior" value="1.33"/><float name="ext_ior" value="1"/></bsdf></shape>
<shape type="cube" id="water"><bsdf type="roughdielectric"><string name="int_ior" value="water"/><float name="alpha" value="0.04"/></bsdf></shape>
<shape type="cube" id="metal"><bsdf type="roughconductor"><float name="alpha" value="0.09"/></bsdf></shape>
<shape type="cube" id="gold"><bsdf type="conductor"><string name="material" value="Au"/></bsdf></shape>
<shape type="cube" id="two"><bsdf type="twosided"><bsdf type="diffuse"/></bsdf></shape>
<shape type="cube" id="null"><bsdf type="null"/></shape>
<shape type="cube" id="none"/>
{LIGHT}"#
    ));
    let glass = material_of(&s, "glass");
    assert_eq!((glass.kind(), glass.ior), (MaterialKind::Glass, 1.33));
    let water = material_of(&s, "water");
    assert_eq!(water.kind(), MaterialKind::RoughDielectric);
    assert!((water.ior - 1.333 / 1.000277).abs() < 1e-6 && (water.roughness - 0.2).abs() < 1e-6);
    let metal = material_of(&s, "metal");
    assert_eq!((metal.kind(), metal.base_color), (MaterialKind::RoughConductor, Vec3::ONE));
    assert!((metal.roughness - 0.3).abs() < 1e-6 && metal.one_sided());
    // Mitsuba's defaults: a perfect mirror (eta 0, k 1) and the Beckmann distribution.
    assert!(metal.has_conductor_eta_k() && metal.beckmann());
    assert_eq!((metal.conductor_eta(), metal.conductor_k()), (Vec3::ZERO, Vec3::ONE));
    let gold = material_of(&s, "gold");
    assert_eq!((gold.kind(), gold.base_color), (MaterialKind::Mirror, Vec3::ONE));
    // Mitsuba 3.9's RGB eta and k of Au (scalar_rgb).
    assert!(gold.has_conductor_eta_k());
    assert_eq!(gold.conductor_eta(), Vec3::new(0.14303598, 0.37530708, 1.4420453));
    assert_eq!(gold.conductor_k(), Vec3::new(3.982997, 2.3855565, 1.6033592));
    assert!(water.beckmann(), "no distribution: Mitsuba's default, Beckmann");
    assert!(s.warnings.iter().all(|w| w.contains("no <sensor>")), "{:?}", s.warnings);
    let two = material_of(&s, "two");
    assert_eq!(
        (two.kind(), two.base_color, two.flags & flags::ONE_SIDED),
        (MaterialKind::Diffuse, Vec3::splat(0.5), 0)
    );
    assert!(material_of(&s, "null").is_null());
    let none = material_of(&s, "none");
    assert_eq!((none.kind(), none.base_color), (MaterialKind::Diffuse, Vec3::splat(0.5)));
    assert!(none.one_sided(), "Mitsuba's default BSDF is a one-sided diffuse 0.5");
}

#[test]
fn unknown_bsdfs_and_parameters_are_warnings_with_their_line() {
    let s = scene(&format!(
        "<shape type=\"cube\" id=\"p\">\n<bsdf type=\"principledthin\">\n<rgb name=\"base_color\" value=\"0.1\"/>\n</bsdf>\n</shape>\n\
         <shape type=\"cube\" id=\"d\">\n<bsdf type=\"diffuse\">\n<float name=\"sheen\" value=\"1\"/>\n</bsdf>\n</shape>\n{LIGHT}"
    ));
    let p = material_of(&s, "p");
    assert_eq!((p.kind(), p.base_color), (MaterialKind::Diffuse, Vec3::splat(0.5)));
    assert!(
        s.warnings.iter().any(|w| w.contains("inline.xml:3:") && w.contains("'principledthin'")),
        "{:?}",
        s.warnings
    );
    assert!(s.warnings.iter().any(|w| w.contains("inline.xml:9:") && w.contains("'sheen'")), "{:?}", s.warnings);
}

#[test]
fn principled_reads_every_parameter_and_checks_them() {
    let s = scene(&format!(
        r#"<shape type="cube" id="p"><bsdf type="principled">
<rgb name="base_color" value="0.8, 0.4, 0.2"/><float name="roughness" value="0.3"/>
<float name="metallic" value="0.1"/><float name="spec_tint" value="0.2"/><float name="sheen" value="0.3"/>
<float name="sheen_tint" value="0.4"/><float name="clearcoat" value="0.5"/><float name="clearcoat_gloss" value="0.6"/>
<float name="spec_trans" value="0.7"/><float name="flatness" value="0.8"/><float name="anisotropic" value="0.5"/>
<float name="eta" value="1.33"/></bsdf></shape>
<shape type="cube" id="d"><bsdf type="principled"/></shape>{LIGHT}"#
    ));
    let p = material_of(&s, "p");
    assert_eq!(p.kind(), MaterialKind::Principled);
    assert_eq!((p.base_color, p.roughness, p.ior), (Vec3::new(0.8, 0.4, 0.2), 0.3, 1.33));
    let weights =
        [p.metallic, p.spec_tint, p.sheen, p.sheen_tint, p.clearcoat, p.clearcoat_gloss, p.spec_trans, p.flatness];
    assert_eq!(weights, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]);
    assert!(p.one_sided());
    assert!(s.warnings.iter().any(|w| w.contains("anisotropic 0.5 is rendered isotropic")), "{:?}", s.warnings);
    // Mitsuba's defaults: base color 0.5, roughness 0.5, specular 0.5 (η = 1.5).
    let d = material_of(&s, "d");
    assert_eq!((d.base_color, d.roughness, d.metallic), (Vec3::splat(0.5), 0.5, 0.0));
    assert!((d.ior - 1.5).abs() < 1e-5, "{}", d.ior);
    for (bad, message) in [
        (r#"<float name="eta" value="1.5"/><float name="specular" value="0.5"/>"#, "either 'eta' or 'specular'"),
        (r#"<float name="metallic" value="1.5"/>"#, "metallic = 1.5 must be in [0, 1]"),
        (r#"<float name="eta" value="-1"/>"#, "eta = -1 must be positive"),
    ] {
        let xml = format!(
            "<scene version=\"3.0.0\">\n<shape type=\"cube\">\n<bsdf type=\"principled\">{bad}</bsdf></shape></scene>"
        );
        assert_error_at(&xml, 3, message);
    }
}

#[test]
fn thindielectric_is_a_thin_dielectric_of_the_relative_index() {
    let s = scene(&format!(
        r#"<shape type="cube" id="t"><bsdf type="thindielectric"><string name="int_ior" value="water"/>
<float name="ext_ior" value="1"/><rgb name="specular_transmittance" value="0.5, 0.6, 0.7"/></bsdf></shape>{LIGHT}"#
    ));
    let t = material_of(&s, "t");
    assert_eq!((t.kind(), t.ior, t.specular), (MaterialKind::ThinDielectric, 1.333, Vec3::new(0.5, 0.6, 0.7)));
    assert!(!s.warnings.iter().any(|w| w.contains("thindielectric")), "{:?}", s.warnings);
}

#[test]
fn emitters_environment_sensor_and_integrator() {
    let s = scene(
        r#"<emitter type="envmap"><string name="filename" value="../dwab_half.exr"/><float name="scale" value="2"/>
    <transform name="to_world"><rotate y="1" angle="30"/></transform></emitter>
<shape type="sphere"><point name="center" x="1" y="2" z="3"/><float name="radius" value="0.5"/></shape>
<sensor type="thinlens"><float name="fov" value="30"/><string name="fov_axis" value="y"/>
    <float name="aperture_radius" value="0.1"/><float name="focus_distance" value="4"/>
    <film type="hdrfilm"><integer name="width" value="64"/><integer name="height" value="32"/><rfilter type="gaussian"/></film>
    <sampler type="independent"><integer name="sample_count" value="8"/><integer name="seed" value="3"/></sampler></sensor>
<integrator type="path"><integer name="max_depth" value="1"/><integer name="rr_depth" value="5"/></integrator>"#,
    );
    let Environment::Map(map) = &s.environment else { panic!("expected an environment map") };
    assert_eq!(map.scale, 2.0);
    assert!((map.to_world.col(0) - Mat3::from_rotation_y(30f32.to_radians()).col(0)).length() < 1e-6);
    let b = s.bounds();
    assert!((b.center() - Vec3::new(1.0, 2.0, 3.0)).length() < 1e-3 && (b.extent().x - 1.0).abs() < 1e-3);
    assert_eq!((s.camera.fov_degrees, s.camera.fov_axis, s.camera.aperture_radius), (30.0, FovAxis::Y, 0.1));
    assert_eq!(s.camera.focus_distance, 4.0);
    assert_eq!((s.settings.width, s.settings.height, s.settings.spp, s.settings.seed), (64, 32, 8, 3));
    // Mitsuba's max_depth counts vertices: warpath's = Mitsuba's − 1.
    assert_eq!(s.settings.max_depth, 0);
    assert!(s.warnings.iter().any(|w| w.contains("rr_depth")), "{:?}", s.warnings);
    assert!(s.warnings.iter().any(|w| w.contains("gaussian")), "{:?}", s.warnings);

    let s = scene(&format!("<integrator type=\"path\"><integer name=\"max_depth\" value=\"-1\"/></integrator>{LIGHT}"));
    assert_eq!(s.settings.max_depth, UNLIMITED_DEPTH);
    let s =
        scene(&format!("<emitter type=\"constant\"><rgb name=\"radiance\" value=\"0.5 0.25 1\"/></emitter>{LIGHT}"));
    assert!(matches!(s.environment, Environment::Constant(c) if c == Vec3::new(0.5, 0.25, 1.0)));
}

#[test]
fn mesh_files_flip_normals_and_face_normals() {
    let s = scene(&format!(
        r#"<shape type="ply" id="a"><string name="filename" value="../pyramid.ply"/></shape>
<shape type="ply" id="b"><string name="filename" value="../pyramid.ply"/><boolean name="flip_normals" value="true"/>
    <boolean name="face_normals" value="true"/></shape>{LIGHT}"#
    ));
    let a = s.meshes.iter().find(|m| m.name == "a").unwrap();
    let b = s.meshes.iter().find(|m| m.name == "b").unwrap();
    assert_eq!(a.triangle_count, b.triangle_count);
    let normal = |t: usize| {
        let [p, q, r] = s.triangle_vertices(t);
        (q - p).cross(r - p).normalize()
    };
    for k in 0..a.triangle_count as usize {
        let (na, nb) = (normal(a.first_triangle as usize + k), normal(b.first_triangle as usize + k));
        assert!((na + nb).length() < 1e-5, "triangle {k}: {na} and {nb} should be opposite");
    }
}

#[test]
fn errors_name_the_file_and_line() {
    match load_mitsuba_xml(&data("no-such-scene.xml"), &[]) {
        Err(SceneError::NotFound { path, .. }) => assert!(path.ends_with("no-such-scene.xml")),
        other => panic!("expected NotFound, got {:?}", other.map(|_| ())),
    }
    assert_error_at("<scene version=\"3.0.0\">\n<shape type=\"cube\">\n</shap>\n</scene>", 3, "malformed XML");
    assert_error_at(
        "<scene version=\"3.0.0\">\n\n<emitter type=\"point\">\n<point name=\"position\" value=\"0 1 0\"/>\n<transform name=\"to_world\"><translate value=\"1 2 3\"/></transform>\n</emitter>\n</scene>",
        5,
        "not both",
    );
    assert_error_at(
        "<scene version=\"3.0.0\">\n<emitter type=\"spot\"><float name=\"cutoff_angle\" value=\"-3\"/></emitter>\n</scene>",
        2,
        "cutoff_angle",
    );
    assert_error_at(
        "<scene version=\"3.0.0\">\n<emitter type=\"directional\"><vector name=\"direction\" value=\"0 0 0\"/></emitter>\n</scene>",
        2,
        "direction is zero",
    );
    assert_error_at("<scene version=\"3.0.0\">\n<emitter type=\"sunsky\"/>\n</scene>", 2, "not supported yet");
    assert_error_at("<scene version=\"3.0.0\">\n<shape type=\"serialized\"/>\n</scene>", 2, "needs <string name");
    assert_error_at("<scene version=\"3.0.0\">\n<medium type=\"cloudy\"/>\n</scene>", 2, "medium type 'cloudy'");
    assert_error_at(
        "<scene version=\"3.0.0\">\n<emitter type=\"envmap\"><string name=\"filename\" value=\"../dwab_half.exr\"/>\n<transform name=\"to_world\"><scale value=\"2\"/></transform></emitter>\n</scene>",
        3,
        "must be a rotation",
    );
    assert_error_at(
        "<scene version=\"3.0.0\">\n<shape type=\"ply\">\n<string name=\"filename\" value=\"gone.ply\"/></shape>\n</scene>",
        3,
        "not found",
    );
    assert_error_at(
        "<scene version=\"3.0.0\">\n<shape type=\"cube\"><transform name=\"to_world\">\n<rotate angle=\"3\"/></transform></shape>\n</scene>",
        3,
        "axis",
    );
    assert_error_at(
        "<scene version=\"3.0.0\">\n<integrator type=\"path\"><integer name=\"max_depth\" value=\"0\"/></integrator>\n</scene>",
        2,
        "max_depth = 0",
    );
    assert_error_at("<toml/>", 1, "expected <scene");
}

#[test]
fn bitmap_reflectance_becomes_a_texture_with_warpaths_uv() {
    let s = scene(&format!(
        r#"<texture type="bitmap" id="checker"><string name="filename" value="../../fuzz/seeds/checker.png"/></texture>
<shape type="rectangle" id="r"><bsdf type="diffuse"><ref name="reflectance" id="checker"/></bsdf></shape>
<shape type="rectangle" id="s"><bsdf type="diffuse"><ref name="reflectance" id="checker"/></bsdf></shape>{LIGHT}"#
    ));
    assert_eq!(s.textures.len(), 1, "one file, one texture");
    let m = material_of(&s, "r");
    assert_eq!((m.base_color_texture, m.base_color), (0, Vec3::ONE));
    // The rectangle's corner (-1, -1) has Mitsuba uv (0, 0): the image's top-left, warpath's (0, 1).
    let mesh = &s.meshes[0];
    let corner = s.triangles[mesh.first_triangle as usize][0] as usize;
    assert_eq!(s.positions[corner], Vec3::new(-1.0, -1.0, 0.0));
    assert_eq!(s.uvs[corner], Vec2::new(0.0, 1.0));
}

#[test]
fn focal_length_is_mitsubas_diagonal_field_of_view() {
    // 50 mm on a 36 × 24 mm film, rendered at the film's 3:2: the x field of view is
    // 2·atan(18/50).
    let s = scene(&format!(
        r#"<sensor type="perspective"><string name="focal_length" value="50mm"/>
    <film type="hdrfilm"><integer name="width" value="360"/><integer name="height" value="240"/></film></sensor>{LIGHT}"#
    ));
    assert_eq!(s.camera.fov_axis, FovAxis::X);
    let expected = 2.0 * (18.0f32 / 50.0).atan().to_degrees();
    assert!((s.camera.fov_degrees - expected).abs() < 1e-3, "{} vs {expected}", s.camera.fov_degrees);
}

#[test]
fn an_emitter_without_a_bsdf_is_black_as_in_mitsuba() {
    let s = scene(
        r#"<shape type="rectangle" id="light"><emitter type="area"><rgb name="radiance" value="2"/></emitter></shape>
<shape type="cube" id="plain"/>"#,
    );
    let light = material_of(&s, "light");
    assert_eq!((light.kind(), light.base_color, light.emission), (MaterialKind::Diffuse, Vec3::ZERO, Vec3::splat(2.0)));
    assert!(light.one_sided());
    let plain = material_of(&s, "plain");
    assert_eq!((plain.base_color, plain.emission), (Vec3::splat(FALLBACK_REFLECTANCE), Vec3::ZERO));
}

#[test]
fn the_cube_has_mitsubas_uv_layout() {
    let mesh = mitsuba_cube_mesh();
    let plain = builtin::cube_mesh();
    assert_eq!((&mesh.positions, &mesh.normals, &mesh.triangles), (&plain.positions, &plain.normals, &plain.triangles));
    for (i, (p, n)) in mesh.positions.iter().zip(&mesh.normals).enumerate() {
        let corners: Vec<_> = MITSUBA_CUBE_UVS
            .iter()
            .filter(|(q, m, _)| Vec3::from_array(*q) == *p && Vec3::from_array(*m) == *n)
            .collect();
        assert_eq!(corners.len(), 1, "vertex {i} ({p}, normal {n}) is not one corner of Mitsuba's cube");
        assert_eq!(mesh.uvs[i], Vec2::from_array(corners[0].2), "vertex {i}");
    }
    // The layout differs from the TOML cube's on some face (what rendering a textured cube
    // against Mitsuba found), and a scene's cube carries it with v flipped.
    assert_ne!(mesh.uvs, plain.uvs);
    let s = scene(&format!(r#"<shape type="cube" id="c"/>{LIGHT}"#));
    let flipped: Vec<Vec2> = mesh.uvs.iter().map(|uv| Vec2::new(uv.x, 1.0 - uv.y)).collect();
    assert_eq!(s.uvs[..24], flipped[..]);
}

#[test]
fn file_names_in_included_files_resolve_against_the_scenes_folder() {
    let dir = tempfile::tempdir().unwrap();
    let png = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mitsuba-oracle/assets/tiles.png");
    std::fs::create_dir(dir.path().join("parts")).unwrap();
    std::fs::copy(&png, dir.path().join("tiles.png")).unwrap();
    std::fs::copy(&png, dir.path().join("parts/only-here.png")).unwrap();
    let texture = |file: &str| {
        format!(
            r#"<scene version="3.0.0"><texture type="bitmap" id="t"><string name="filename" value="{file}"/></texture></scene>"#
        )
    };
    let main = format!(
        r#"<scene version="3.0.0"><include filename="parts/m.xml"/>
<shape type="rectangle" id="r"><bsdf type="diffuse"><ref name="reflectance" id="t"/></bsdf></shape>{LIGHT}</scene>"#
    );
    std::fs::write(dir.path().join("scene.xml"), &main).unwrap();

    // Mitsuba's way: "tiles.png" in parts/m.xml is the scene folder's tiles.png.
    std::fs::write(dir.path().join("parts/m.xml"), texture("tiles.png")).unwrap();
    let s = load_mitsuba_xml(&dir.path().join("scene.xml"), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.textures.len(), 1);
    assert!(!s.warnings.iter().any(|w| w.contains("tiles.png")), "{:?}", s.warnings);

    // A name found only next to the included file is read from there, with a warning.
    std::fs::write(dir.path().join("parts/m.xml"), texture("only-here.png")).unwrap();
    let s = load_mitsuba_xml(&dir.path().join("scene.xml"), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.textures.len(), 1);
    assert!(
        s.warnings.iter().any(|w| w.contains("m.xml") && w.contains("'only-here.png'") && w.contains("would not find")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn conductors_and_distributions_are_mitsubas_without_warnings() {
    let s = scene(&format!(
        r#"<shape type="cube" id="a"><bsdf type="roughconductor"><float name="alpha" value="0.1"/></bsdf></shape>
<shape type="cube" id="b"><bsdf type="roughdielectric"><string name="distribution" value="ggx"/></bsdf></shape>
<shape type="cube" id="c"><bsdf type="conductor"><rgb name="specular_reflectance" value="0.5"/></bsdf></shape>
<shape type="cube" id="d"><bsdf type="conductor"><float name="k" value="2"/></bsdf></shape>
<shape type="cube" id="e"><bsdf type="roughplastic"/></shape>
<shape type="cube" id="h"><bsdf type="roughplastic"><string name="distribution" value="ggx"/></bsdf></shape>
<shape type="cube" id="f"><bsdf type="roughconductor"><string name="distribution" value="Beckmann"/>
<string name="material" value="Cu_palik"/></bsdf></shape>
<shape type="cube" id="g"><bsdf type="conductor"><rgb name="eta" value="0.2, 1.1, 2.5"/></bsdf></shape>
{LIGHT}"#
    ));
    // Every distribution is rendered as Mitsuba's, the rough plastic's coat included.
    let warnings: Vec<_> = s.warnings.iter().filter(|w| !w.contains("no <sensor>")).collect();
    assert!(warnings.is_empty(), "{warnings:?}");
    let (a, b, f) = (material_of(&s, "a"), material_of(&s, "b"), material_of(&s, "f"));
    assert!(a.beckmann() && !b.beckmann() && f.beckmann());
    assert!(material_of(&s, "e").beckmann(), "a rough plastic's default coat is Beckmann");
    assert!(!material_of(&s, "h").beckmann(), "a GGX rough plastic");
    // A tint multiplies the exact Fresnel (here a perfect mirror's 1) at every angle.
    let c = material_of(&s, "c");
    assert_eq!((c.base_color, c.conductor_eta(), c.conductor_k()), (Vec3::splat(0.5), Vec3::ZERO, Vec3::ONE));
    // Mitsuba's defaults fill in: eta 0 beside k, k 1 beside eta.
    let d = material_of(&s, "d");
    assert_eq!((d.conductor_eta(), d.conductor_k()), (Vec3::ZERO, Vec3::splat(2.0)));
    let g = material_of(&s, "g");
    assert_eq!((g.conductor_eta(), g.conductor_k()), (Vec3::new(0.2, 1.1, 2.5), Vec3::ONE));
    // Every name Mitsuba knows, here one of Palik's.
    assert_eq!(f.conductor_eta(), Vec3::new(0.21322851, 0.9197154, 1.1024108));
    assert!(f.has_conductor_eta_k() && a.has_conductor_eta_k() && d.has_conductor_eta_k());
    for (bad, message) in [
        (r#"<string name="distribution" value="phong"/>"#, "distribution 'phong' must be 'beckmann' or 'ggx'"),
        (
            r#"<string name="material" value="Unobtainium"/>"#,
            "conductor material 'Unobtainium' is not one Mitsuba 3 knows",
        ),
    ] {
        let xml = format!(
            "<scene version=\"3.0.0\">\n<shape type=\"cube\">\n<bsdf type=\"roughconductor\">\n{bad}</bsdf></shape></scene>"
        );
        assert_error_at(&xml, 4, message);
    }
    let both = "<scene version=\"3.0.0\">\n<shape type=\"cube\">\n<bsdf type=\"conductor\"><string name=\"material\" value=\"Au\"/>\n<float name=\"eta\" value=\"2\"/></bsdf></shape></scene>";
    assert_error_at(both, 3, "give either 'material' (Au) or 'eta'/'k', not both");
}

#[test]
fn the_sphere_has_mitsubas_parametrization() {
    let mesh = mitsuba_sphere_mesh(SPHERE_SEGMENTS);
    let tau = std::f32::consts::TAU;
    for (i, (p, uv)) in mesh.positions.iter().zip(&mesh.uvs).enumerate() {
        assert!((p.length() - 1.0).abs() < 1e-5 && mesh.normals[i] == *p, "vertex {i}");
        // Mitsuba: u = atan2(y, x) / 2π in [0, 1) (1 on the seam's second copy), v = θ/π from +z.
        assert!((uv.y - p.z.clamp(-1.0, 1.0).acos() / std::f32::consts::PI).abs() < 1e-5, "vertex {i}: {uv}");
        if p.x.hypot(p.y) > 1e-4 {
            let u = p.y.atan2(p.x).rem_euclid(tau) / tau;
            let du = (uv.x - u).abs();
            assert!(du < 1e-5 || (du - 1.0).abs() < 1e-5, "vertex {i} at {p}: u {} vs {u}", uv.x);
        }
    }
    // Closed, wound outward, and close to the sphere's area.
    let mut area = 0.0f64;
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|k| mesh.positions[k as usize]);
        let n = (b - a).cross(c - a);
        assert!(n.dot(a + b + c) > 0.0, "triangle {t:?} faces inward");
        area += 0.5 * n.length() as f64;
    }
    assert_eq!(mesh.triangles.len() as u32, 2 * SPHERE_SEGMENTS * (SPHERE_SEGMENTS / 2 - 1));
    assert!((area / (4.0 * std::f64::consts::PI) - 1.0).abs() < 1e-3, "area {area}");
    // A scene's sphere: placed by center and radius, v flipped to warpath's convention.
    let s = scene(&format!(
        r#"<shape type="sphere" id="s"><point name="center" x="1" y="2" z="3"/><float name="radius" value="2"/></shape>{LIGHT}"#
    ));
    let n = mesh.positions.len();
    for k in 0..n {
        assert!((s.positions[k] - (Vec3::new(1.0, 2.0, 3.0) + 2.0 * mesh.positions[k])).length() < 1e-5);
        assert_eq!(s.uvs[k], Vec2::new(mesh.uvs[k].x, 1.0 - mesh.uvs[k].y));
    }
}

#[test]
fn the_disk_has_mitsubas_polar_uv() {
    let mesh = disk_mesh(DISK_SEGMENTS);
    assert_eq!(mesh.triangles.len() as u32, DISK_SEGMENTS);
    let tau = std::f32::consts::TAU;
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|k| mesh.positions[k as usize]);
        assert!((b - a).cross(c - a).z > 0.0, "triangle {t:?} faces -z");
        // Mitsuba: uv = (r, phi / 2 pi). At the triangle's centroid the interpolated uv is
        // within half a segment of it.
        let [ua, ub, uc] = t.map(|k| mesh.uvs[k as usize]);
        let (p, uv) = ((a + b + c) / 3.0, (ua + ub + uc) / 3.0);
        let phi = p.y.atan2(p.x).rem_euclid(tau) / tau;
        assert!((uv.x - p.truncate().length()).abs() < 0.01, "{t:?}: u {} vs r {}", uv.x, p.truncate().length());
        let dv = (uv.y - phi).abs().min((uv.y - phi - 1.0).abs());
        assert!(dv < 0.5 / DISK_SEGMENTS as f32, "{t:?}: v {} vs {phi}", uv.y);
    }
}

#[test]
fn point_spot_and_directional_emitters_keep_mitsubas_units() {
    use warpath_core::light::delta_kind;
    let s = scene(
        r#"<shape type="rectangle"/>
<emitter type="point"><point name="position" value="0 2 0"/><rgb name="intensity" value="1 2 3"/></emitter>
<emitter type="spot">
  <transform name="to_world"><lookat origin="0 4 0" target="0 0 0" up="0 0 1"/></transform>
  <float name="cutoff_angle" value="30"/><float name="beam_width" value="10"/><float name="intensity" value="5"/>
</emitter>
<emitter type="spot"><float name="cutoff_angle" value="40"/></emitter>
<emitter type="directional"><vector name="direction" value="0 -2 0"/><float name="irradiance" value="4"/></emitter>"#,
    );
    assert_eq!(s.delta_lights.len(), 4);
    let [point, spot, default_spot, sun] = [s.delta_lights[0], s.delta_lights[1], s.delta_lights[2], s.delta_lights[3]];
    assert_eq!(point.kind, delta_kind::POINT);
    assert_eq!(point.position, Vec3::new(0.0, 2.0, 0.0));
    assert_eq!(point.intensity, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(spot.kind, delta_kind::SPOT);
    assert!((spot.position - Vec3::new(0.0, 4.0, 0.0)).length() < 1e-5);
    assert!((spot.direction - Vec3::NEG_Y).length() < 1e-5, "{}", spot.direction);
    assert!((spot.cos_cutoff - 30f32.to_radians().cos()).abs() < 1e-6);
    assert!((spot.cos_beam - 10f32.to_radians().cos()).abs() < 1e-6);
    assert_eq!(spot.intensity, Vec3::splat(5.0));
    // Mitsuba's defaults: at the origin along +z, beam width 3/4 of the cutoff, intensity 1.
    assert_eq!(default_spot.position, Vec3::ZERO);
    assert_eq!(default_spot.direction, Vec3::Z);
    assert!((default_spot.cos_beam - 30f32.to_radians().cos()).abs() < 1e-6);
    assert_eq!(default_spot.intensity, Vec3::ONE);
    assert_eq!(sun.kind, delta_kind::DIRECTIONAL);
    assert_eq!(sun.direction, Vec3::NEG_Y);
    assert_eq!(sun.intensity, Vec3::splat(4.0));
    assert!(s.warnings.iter().all(|w| !w.contains("no light")), "{:?}", s.warnings);
}

#[test]
fn the_oracle_scenes_load_without_warnings() {
    // The oracle's scenes and those waiting in pending/ (scripts/mitsuba-oracle renders the
    // former against Mitsuba).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mitsuba-oracle");
    let mut files: Vec<PathBuf> = [dir.clone(), dir.join("pending")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "{files:?}");
    for file in files {
        let s = load_mitsuba_xml(&file, &[]).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.warnings.is_empty(), "{}: {:?}", file.display(), s.warnings);
        let name = file.file_stem().unwrap().to_string_lossy();
        if name.starts_with("light-") {
            assert_eq!(s.delta_lights.len(), 1, "{name}");
        }
    }
}

#[test]
fn plastic_and_roughplastic_keep_mitsubas_parameters() {
    let s = scene(&format!(
        r#"<shape type="cube" id="smooth"><bsdf type="plastic">
  <rgb name="diffuse_reflectance" value="0.5, 0.2, 0.1"/><float name="int_ior" value="1.6"/>
  <boolean name="nonlinear" value="true"/></bsdf></shape>
<shape type="cube" id="rough"><bsdf type="roughplastic">
  <string name="distribution" value="ggx"/><float name="alpha" value="0.09"/>
  <rgb name="specular_reflectance" value="0.8"/><string name="int_ior" value="bk7"/></bsdf></shape>
<shape type="cube" id="default"><bsdf type="plastic"/></shape>
{LIGHT}"#
    ));
    let smooth = material_of(&s, "smooth");
    assert_eq!(smooth.kind(), MaterialKind::Plastic);
    assert_eq!(smooth.base_color, Vec3::new(0.5, 0.2, 0.1));
    assert!((smooth.ior - 1.6 / 1.000277).abs() < 1e-6);
    assert_eq!((smooth.roughness, smooth.specular), (0.0, Vec3::ONE));
    assert!(smooth.flags & flags::NONLINEAR != 0 && smooth.one_sided());
    let rough = material_of(&s, "rough");
    assert!((rough.roughness - 0.3).abs() < 1e-6, "alpha 0.09 is roughness 0.3: {}", rough.roughness);
    assert_eq!(rough.specular, Vec3::splat(0.8));
    assert!((rough.ior - 1.5046 / 1.000277).abs() < 1e-4);
    // Mitsuba's defaults: polypropylene (1.49) in air, diffuse 0.5.
    let default = material_of(&s, "default");
    assert!((default.ior - 1.49 / 1.000277).abs() < 1e-6);
    assert_eq!(default.base_color, Vec3::splat(0.5));
    assert!(s.warnings.iter().all(|w| w.contains("no <sensor>")), "{:?}", s.warnings);
}

#[test]
fn a_film_without_a_filter_warns_that_mitsuba_would_filter_it_with_a_gaussian() {
    let film = |inner: &str| {
        format!(
            r#"<sensor type="perspective"><film type="hdrfilm"><integer name="width" value="8"/>{inner}</film></sensor>{LIGHT}"#
        )
    };
    let s = scene(&film(""));
    assert!(
        s.warnings.iter().any(|w| w.contains("no <rfilter>") && w.contains("Gaussian") && w.contains("inline.xml")),
        "{:?}",
        s.warnings
    );
    let s = scene(&film(r#"<rfilter type="box"/>"#));
    assert!(!s.warnings.iter().any(|w| w.contains("rfilter")), "{:?}", s.warnings);
    let s = scene(&film(r#"<rfilter type="gaussian"/>"#));
    assert!(s.warnings.iter().any(|w| w.contains("<rfilter type=\"gaussian\"> is ignored")), "{:?}", s.warnings);
}
