//! pbrt-v4 creates materials after every texture of the scene: a material may name a
//! texture that a later `Texture` defines (watercolor's materials.pbrt does). The importer
//! builds such a material at the end of parsing, into the index shapes already use.

use glam::Vec3;
use std::path::Path;
use warpath_core::material::{Material, MaterialKind};
use warpath_scene::pbrt::{load_pbrt, parse_pbrt};
use warpath_scene::{Scene, SceneError};

const TRIANGLE: &str = "Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"integer indices\" [0 1 2]";

fn parse(text: &str) -> Result<Scene, SceneError> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pbrt/inline.pbrt");
    parse_pbrt(&format!("LightSource \"infinite\" \"rgb L\" [1 1 1]\n{text}"), &path)
}

fn material(scene: &Scene, triangle: usize) -> &Material {
    &scene.materials[scene.triangle_materials[triangle] as usize]
}

#[test]
fn a_material_may_name_a_texture_defined_later() {
    // A named material, an anonymous one, and a mix of the waiting named one.
    let s = parse(&format!(
        "MakeNamedMaterial \"m\" \"string type\" \"diffuse\" \"texture reflectance\" \"later\"\n\
         NamedMaterial \"m\"\n{TRIANGLE}\n\
         Material \"coateddiffuse\" \"texture reflectance\" \"later\" \"float roughness\" 0\n{TRIANGLE}\n\
         MakeNamedMaterial \"other\" \"string type\" \"diffuse\" \"rgb reflectance\" [0.9 0.9 0.9]\n\
         MakeNamedMaterial \"mixed\" \"string type\" \"mix\" \"string materials\" [\"other\" \"m\"] \"float amount\" 1\n\
         NamedMaterial \"mixed\"\n{TRIANGLE}\n\
         Texture \"later\" \"spectrum\" \"constant\" \"rgb value\" [0.2 0.4 0.6]\n"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(*material(&s, 0), Material::diffuse(Vec3::new(0.2, 0.4, 0.6)), "{:?}", s.warnings);
    assert_eq!(material(&s, 1).kind(), MaterialKind::Plastic);
    assert_eq!(material(&s, 1).base_color, Vec3::new(0.2, 0.4, 0.6));
    assert_eq!(*material(&s, 2), Material::diffuse(Vec3::new(0.2, 0.4, 0.6)), "the mix picks the waiting \"m\"");
}

#[test]
fn a_material_waiting_fills_a_named_material_used_before_it() {
    // NamedMaterial before MakeNamedMaterial (placeholder), whose texture comes later still.
    let s = parse(&format!(
        "NamedMaterial \"m\"\n{TRIANGLE}\n\
         MakeNamedMaterial \"m\" \"string type\" \"diffuse\" \"texture reflectance\" \"t\"\n\
         Texture \"t\" \"spectrum\" \"constant\" \"rgb value\" [0.1 0.2 0.3]\n"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(*material(&s, 0), Material::diffuse(Vec3::new(0.1, 0.2, 0.3)), "{:?}", s.warnings);
}

#[test]
fn a_texture_no_texture_defines_is_still_an_error_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "LightSource \"infinite\"\nMaterial \"diffuse\"\n    \"texture reflectance\" \"nowhere\"\n{TRIANGLE}\n"
    );
    std::fs::write(dir.path().join("m.pbrt"), text).unwrap();
    match load_pbrt(&dir.path().join("m.pbrt")) {
        Err(SceneError::Parse { line, message, .. }) => {
            assert_eq!(line, 3, "{message}");
            assert!(message.contains("no texture named \"nowhere\""), "{message}");
        }
        other => panic!("expected a parse error, got {:?}", other.map(|s| s.warnings)),
    }
}
