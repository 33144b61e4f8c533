//! The TOML `one_sided` material key: it sets `Material::one_sided` on the opaque types,
//! defaults to two-sided, and is an error (at its line) where it means nothing.

use std::path::Path;
use warpath_scene::toml_scene::parse_toml_scene;
use warpath_scene::{Scene, SceneError};
use warpath_testkit::scene_text;

fn parse(text: &str) -> Result<Scene, SceneError> {
    parse_toml_scene(text, Path::new("inline.toml"))
}

fn material(scene: &Scene, name: &str) -> warpath_core::material::Material {
    scene.materials[scene.material_names.iter().position(|n| n == name).expect("material")]
}

#[test]
fn one_sided_key_sets_the_flag() {
    let scene = parse(&scene_text("one-sided-materials.toml")).expect("valid scene");
    assert!(material(&scene, "front_only").one_sided());
    assert!(!material(&scene, "explicitly_two_sided").one_sided());
    assert!(!material(&scene, "default").one_sided());
}

#[test]
fn one_sided_on_glass_or_black_is_an_error_at_its_line() {
    for (kind, why) in [("glass", "transmits"), ("rough-dielectric", "transmits"), ("black", "does not scatter")] {
        let text = format!("[[material]]\nname = \"m\"\ntype = \"{kind}\"\none_sided = true\n");
        match parse(&text) {
            Err(SceneError::Parse { line, message, .. }) => {
                assert_eq!(line, 4, "{message}");
                assert!(message.contains("'one_sided' does not apply") && message.contains(why), "{message}");
            }
            other => panic!("{kind}: expected a parse error, got {other:?}"),
        }
    }
    let Err(SceneError::Parse { line, .. }) = parse("[[material]]\nname = \"m\"\ntype = \"diffuse\"\none_sided = 1\n")
    else {
        panic!("a non-boolean one_sided must be an error");
    };
    assert_eq!(line, 4);
}
