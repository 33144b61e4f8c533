//! Mitsuba's `blendbsdf` and the BSDF inputs warpath renders approximately: a blend is one
//! material exactly where it can be (a weight of 0 or 1, or two components that differ only in
//! colors their BSDF is linear in: the colors blended), else its heavier component with a
//! warning naming the line; `principledthin` and textured conductor indices warn, naming the
//! line, and render something reasonable; malformed blends are errors.

use glam::Vec3;
use std::path::{Path, PathBuf};
use warpath_core::material::{Material, MaterialKind, flags};
use warpath_scene::mitsuba_xml::parse_mitsuba_xml;
use warpath_scene::{Scene, SceneError};

/// The oracle's folder: its assets (textures) resolve against it.
fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mitsuba-oracle")
}

fn parse(body: &str) -> Result<Scene, SceneError> {
    let text = format!("<scene version=\"3.0.0\">\n{body}\n<emitter type=\"constant\"/>\n</scene>");
    parse_mitsuba_xml(&text, &oracle_dir().join("inline.xml"), &[])
}

/// `body` parsed; its warnings less the one for the missing sensor.
fn scene(body: &str) -> Scene {
    let mut s = parse(body).unwrap_or_else(|e| panic!("{e}"));
    s.warnings.retain(|w| !w.contains("no <sensor>"));
    s
}

fn material_of<'a>(scene: &'a Scene, mesh_name: &str) -> &'a Material {
    let mesh = scene.meshes.iter().find(|m| m.name == mesh_name).unwrap_or_else(|| panic!("no mesh {mesh_name}"));
    &scene.materials[scene.triangle_materials[mesh.first_triangle as usize] as usize]
}

fn blend(id: &str, weight: &str, a: &str, b: &str) -> String {
    format!(r#"<shape type="cube" id="{id}"><bsdf type="blendbsdf">{weight}{a}{b}</bsdf></shape>"#)
}

const RED: &str = r#"<bsdf type="diffuse"><rgb name="reflectance" value="0.8, 0.2, 0.1"/></bsdf>"#;
const BLUE: &str = r#"<bsdf type="diffuse"><rgb name="reflectance" value="0.1, 0.2, 0.6"/></bsdf>"#;

#[test]
fn blends_that_are_one_material_are_exact() {
    let w = |v: f32| format!(r#"<float name="weight" value="{v}"/>"#);
    let plastic = |diffuse: &str, specular: &str| {
        format!(
            r#"<bsdf type="roughplastic"><float name="alpha" value="0.2"/><rgb name="diffuse_reflectance" value="{diffuse}"/>
<rgb name="specular_reflectance" value="{specular}"/></bsdf>"#
        )
    };
    let gold = |tint: &str| {
        format!(
            r#"<bsdf type="roughconductor"><string name="material" value="Au"/><rgb name="specular_reflectance" value="{tint}"/></bsdf>"#
        )
    };
    let s = scene(
        &[
            blend("diffuse", &w(0.25), RED, BLUE),
            blend("first", &w(0.0), RED, &gold("1")),
            blend("second", &w(1.5), RED, &gold("1")),
            blend("plastic", &w(0.6), &plastic("0.9, 0.1, 0.1", "1"), &plastic("0.1, 0.2, 0.8", "0.5")),
            blend("gold", &w(0.5), &gold("1, 0.5, 0.5"), &gold("0.5")),
        ]
        .join("\n"),
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let d = material_of(&s, "diffuse");
    assert_eq!(d.kind(), MaterialKind::Diffuse);
    assert!(
        (d.base_color - (Vec3::new(0.8, 0.2, 0.1) * 0.75 + Vec3::new(0.1, 0.2, 0.6) * 0.25)).abs().max_element() < 1e-6
    );
    assert_eq!(material_of(&s, "first").kind(), MaterialKind::Diffuse);
    // A weight above 1 is clipped, as Mitsuba clips it: the second component alone.
    assert_eq!(material_of(&s, "second").kind(), MaterialKind::RoughConductor);
    let p = material_of(&s, "plastic");
    assert_eq!(p.kind(), MaterialKind::Plastic);
    assert!(p.beckmann(), "the components' Beckmann coat");
    assert!((p.base_color - Vec3::new(0.42, 0.16, 0.52)).abs().max_element() < 1e-6, "{}", p.base_color);
    assert!((p.specular - Vec3::splat(0.7)).abs().max_element() < 1e-6, "{}", p.specular);
    let g = material_of(&s, "gold");
    assert!(g.has_conductor_eta_k() && g.beckmann());
    assert!((g.base_color - Vec3::new(0.75, 0.5, 0.5)).abs().max_element() < 1e-6, "{}", g.base_color);
}

#[test]
fn other_blends_render_their_heavier_component_with_a_warning() {
    let nonlinear = r#"<bsdf type="plastic"><boolean name="nonlinear" value="true"/></bsdf>"#;
    let nonlinear_blue = r#"<bsdf type="plastic"><boolean name="nonlinear" value="true"/>
<rgb name="diffuse_reflectance" value="0.1, 0.2, 0.6"/></bsdf>"#;
    let s = scene(
        &[
            blend("kinds", r#"<float name="weight" value="0.7"/>"#, RED, r#"<bsdf type="conductor"/>"#),
            blend("nonlinear", r#"<float name="weight" value="0.4"/>"#, nonlinear, nonlinear_blue),
        ]
        .join("\n"),
    );
    assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
    assert!(s.warnings[0].contains("inline.xml:2:") && s.warnings[0].contains("blendbsdf"), "{:?}", s.warnings);
    assert!(s.warnings[0].contains("second"), "{:?}", s.warnings);
    assert!(s.warnings[1].contains("inline.xml:3:") && s.warnings[1].contains("first"), "{:?}", s.warnings);
    assert_eq!(material_of(&s, "kinds").kind(), MaterialKind::Mirror);
    let n = material_of(&s, "nonlinear");
    assert!(n.flags & flags::NONLINEAR != 0 && n.base_color == Vec3::splat(0.5));
}

#[test]
fn a_textured_weight_is_its_mean_with_a_warning() {
    let weight =
        r#"<texture name="weight" type="bitmap"><string name="filename" value="assets/roughness.png"/></texture>"#;
    let s = scene(&blend("t", weight, RED, BLUE));
    assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    assert!(s.warnings[0].contains("inline.xml:2:") && s.warnings[0].contains("textured 'weight'"), "{:?}", s.warnings);
    assert_eq!(material_of(&s, "t").kind(), MaterialKind::Diffuse);
}

#[test]
fn malformed_blends_are_errors_at_their_line() {
    for (body, needle) in [
        (blend("a", r#"<float name="weight" value="0.5"/>"#, RED, ""), "exactly two nested"),
        (blend("b", "", RED, BLUE), "needs a 'weight'"),
    ] {
        match parse(&body) {
            Err(SceneError::Parse { line, message, .. }) => {
                assert_eq!(line, 2, "{message}");
                assert!(message.contains(needle), "'{message}' lacks '{needle}'");
            }
            Err(other) => panic!("expected a Parse error, got {other}"),
            Ok(_) => panic!("{body}: accepted"),
        }
    }
}

/// What warpath does not render exactly warns, naming the line: `principledthin` (a gray
/// diffuse), a conductor's eta or k given as a bitmap (the texture's mean color).
#[test]
fn principledthin_and_textured_conductor_indices_warn_at_their_line() {
    let s = scene(
        r#"<shape type="cube" id="thin"><bsdf type="principledthin"/></shape>
<shape type="cube" id="metal"><bsdf type="conductor">
<texture name="eta" type="bitmap"><string name="filename" value="assets/tiles.png"/></texture></bsdf></shape>"#,
    );
    assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
    assert!(s.warnings[0].contains("inline.xml:2:") && s.warnings[0].contains("principledthin"), "{:?}", s.warnings);
    assert!(s.warnings[1].contains("inline.xml:4:") && s.warnings[1].contains("'eta'"), "{:?}", s.warnings);
    assert_eq!(material_of(&s, "thin").kind(), MaterialKind::Diffuse);
    assert!(material_of(&s, "metal").has_conductor_eta_k());
}
