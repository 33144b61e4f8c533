//! `[[shape]] type = "isosurface"` (issue 14): a volume's level set as a shape. It loads with
//! its lattice, tree and placement (the unit cube, as a medium's grid), and every misuse is an
//! error at its line (or a warning where the scene still renders).

use glam::Vec3;
use std::path::{Path, PathBuf};
use warpath_scene::toml_scene::parse_toml_scene;
use warpath_scene::{Scene, SceneError};
use warpath_testkit::scene_text;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn parse(text: &str) -> Result<Scene, SceneError> {
    parse_toml_scene(text, &data("inline.toml"))
}

fn assert_error_at(text: &str, line: usize, needle: &str) {
    match parse(text) {
        Err(SceneError::Parse { line: got, message, .. }) => {
            assert_eq!(got, line, "wrong line for '{message}'");
            assert!(message.contains(needle), "message '{message}' lacks '{needle}'");
        }
        Err(other) => panic!("expected a Parse error at line {line}, got {other}"),
        Ok(_) => panic!("expected a Parse error at line {line}, got a scene"),
    }
}

/// A glass isosurface of a procedural cloud (the shared test scene; its lines are asserted).
fn cloud() -> String {
    scene_text("isosurface-cloud.toml")
}

#[test]
fn an_isosurface_loads_placed_in_the_unit_cube() {
    let scene = parse(&cloud()).expect("loads");
    assert_eq!(scene.isosurfaces.len(), 1);
    let iso = &scene.isosurfaces[0];
    assert_eq!(iso.name, "puff");
    assert_eq!(scene.material_names[iso.material as usize], "glass");
    let s = &iso.surface;
    assert_eq!(s.lattice.samples, [24, 20, 16]);
    assert_eq!(s.bvh.brick_cells, 4);
    assert_eq!(s.isovalue, 0.3);
    assert!(s.tree.root.is_some(), "0.3 is inside a cloud's range");
    // Lattice 0..n−1 ↔ object (x + ½)/n, then scaled by 2 and moved by (−1, 0, −1).
    let (lo, hi) = s.world_bounds;
    let expect_lo = Vec3::new(1.0 / 24.0 - 1.0, 1.0 / 20.0, 1.0 / 16.0 - 1.0);
    let expect_hi = Vec3::new(47.0 / 24.0 - 1.0, 39.0 / 20.0, 31.0 / 16.0 - 1.0);
    assert!((lo - expect_lo).abs().max_element() < 1e-5, "{lo:?}");
    assert!((hi - expect_hi).abs().max_element() < 1e-5, "{hi:?}");
    // The scene's bounds and hit ids account for it.
    assert_eq!(scene.bounds().min, lo);
    assert_eq!(scene.isosurface_hit_id(0), scene.triangle_count() as u32);
    assert!(scene.isosurface_of_hit(scene.triangle_count() as u32).is_some());
    assert!(scene.isosurface_of_hit(scene.triangle_count() as u32 + 1).is_none());
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

#[test]
fn an_isovalue_outside_the_range_warns_and_leaves_an_empty_shape() {
    let scene = parse(&cloud().replace("isovalue = 0.3", "isovalue = 7")).expect("loads");
    assert!(scene.isosurfaces[0].surface.tree.root.is_none());
    assert!(scene.warnings.iter().any(|w| w.contains("outside the volume's range")), "{:?}", scene.warnings);
}

#[test]
fn misuse_is_an_error_at_its_line() {
    // Lines: the [[shape]] table starts at line 7 of the scene; `type` is line 8, `volume` 10,
    // `isovalue` 11.
    assert_error_at(&cloud().replace("isovalue = 0.3\n", ""), 8, "needs an 'isovalue'");
    assert_error_at(
        &cloud().replace("volume = { procedural = \"cloud\", resolution = [24, 20, 16] }\n", ""),
        8,
        "needs a 'volume'",
    );
    assert_error_at(&cloud().replace("isovalue = 0.3", "isovalue = nan"), 11, "must be finite");
    assert_error_at(&cloud().replace("brick_cells = 4", "brick_cells = 0"), 13, "brick_cells must be between");
    assert_error_at(&cloud().replace("brick_cells = 4", "emission = 3"), 13, "does not apply to isosurfaces");
    assert_error_at(&cloud().replace("resolution = [24, 20, 16]", "resolution = [1, 20, 16]"), 10, "no cell");
    assert_error_at(&cloud().replace("type = \"isosurface\"", "type = \"cube\""), 10, "applies to isosurfaces");
    assert_error_at(&cloud().replace("type = \"glass\"\nior = 1.5", "type = \"diffuse\"\nemission = 2"), 8, "emits");
    assert_error_at(
        &cloud().replace("volume = { procedural", "volume = { file = \"missing.nii\", procedural"),
        10,
        "exactly one of",
    );
    let with_medium = format!("{}\n[[medium]]\nname = \"fog\"\ntype = \"homogeneous\"\nsigma_t = 1\n", cloud());
    assert_error_at(&with_medium, 7, "surface path tracer");
}
