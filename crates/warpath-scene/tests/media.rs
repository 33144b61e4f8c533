//! The `[[medium]]` section and media on shapes and the camera: what loads (interfaces per
//! triangle, the camera's medium, transfer functions, placement), and bad input as clear
//! errors naming the file and line — a missing, truncated or inconsistent volume file,
//! negative or non-finite densities, out-of-range parameters, unknown names — before any
//! rendering starts.

use glam::Vec3;
use std::path::Path;
use warpath_scene::Scene;
use warpath_scene::toml_scene::parse_toml_scene;
use warpath_testkit::scene_text;
use warpath_volume::medium::interface;
use warpath_volume::{MediumAlbedo, MediumDensity, VolumeGrid};

fn parse_in(dir: &Path, text: &str) -> Result<Scene, String> {
    parse_toml_scene(text, &dir.join("scene.toml")).map_err(|e| e.to_string())
}

fn parse(text: &str) -> Result<Scene, String> {
    parse_in(Path::new("/nonexistent"), text)
}

/// A null cube whose interior is "fog" (the shared test scene; its lines are asserted).
fn bounded() -> String {
    scene_text("null-cube-of-fog.toml")
}

fn with_medium(medium: &str) -> String {
    format!("{medium}\n{}", bounded())
}

#[test]
fn interfaces_camera_medium_and_unused_media() {
    let scene = parse(&scene_text("media-interfaces.toml")).unwrap();
    assert!(scene.needs_volume_estimator());
    assert_eq!(scene.camera_medium, Some(1));
    // The rectangle's 2 triangles declare nothing; the cube's 12 separate fog | air.
    assert_eq!(&scene.triangle_media[..2], &[0, 0]);
    assert!(scene.triangle_media[2..].iter().all(|&p| interface::unpack(p) == (Some(0), Some(1))));
    assert_eq!(interface::target(scene.triangle_media[2], -1.0), 1);
    assert_eq!(interface::target(scene.triangle_media[2], 1.0), 2);
    let fog = &scene.media[0];
    assert!(matches!(fog.density, MediumDensity::Homogeneous { sigma_t } if sigma_t == Vec3::new(1.1, 1.2, 1.3)));
    assert!(
        scene.warnings.iter().any(|w| w.contains("'spare' is not the interior or exterior")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn grid_media_load_from_vol_files_with_transfer_functions_and_placement() {
    let dir = tempfile::tempdir().unwrap();
    let scan = VolumeGrid::from_fn([4, 3, 2], |i, j, k| (i + 4 * j + 12 * k) as f32);
    warpath_volume::vol::write_vol(&dir.path().join("scan.vol"), &scan).unwrap();
    let scene = parse_in(dir.path(), &with_medium(&scene_text("grid-medium-from-vol.toml"))).unwrap();
    let m = &scene.media[0];
    let MediumDensity::Grid { density, scale } = &m.density else { panic!("a grid medium") };
    assert_eq!((density.resolution, *scale, m.g), ([4, 3, 2], 2.0, -0.4));
    assert_eq!(density.voxel(3, 2, 1, 0), 46.0);
    let MediumAlbedo::Grid(albedo) = &m.albedo else { panic!("an albedo grid") };
    assert_eq!(albedo.channels, 3);
    assert_eq!(m.majorant.resolution, [2, 2, 1]);
    // bounds [-1, 1]³: world (0, 0, 0) is the cube's centre.
    assert_eq!(m.world_to_local.point(Vec3::ZERO), Vec3::splat(0.5));
}

#[test]
fn bad_volume_files_are_errors_with_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = warpath_volume::vol::vol_bytes(&VolumeGrid::constant([3, 3, 3], 1, 1.0));
    std::fs::write(dir.path().join("truncated.vol"), &good[..good.len() - 8]).unwrap();
    let negative =
        warpath_volume::vol::vol_bytes(&VolumeGrid::from_fn([2, 2, 2], |i, _, _| if i == 1 { -3.0 } else { 1.0 }));
    std::fs::write(dir.path().join("negative.vol"), negative).unwrap();
    let nan =
        warpath_volume::vol::vol_bytes(&VolumeGrid::from_fn([2, 2, 2], |_, j, _| if j == 1 { f32::NAN } else { 1.0 }));
    std::fs::write(dir.path().join("nan.vol"), nan).unwrap();
    std::fs::write(dir.path().join("garbage.nii"), b"not a nifti file at all").unwrap();
    let medium =
        |density: &str| with_medium(&format!("[[medium]]\nname = \"fog\"\ntype = \"grid\"\n\ndensity = {density}\n"));
    let cases = [
        ("\"truncated.vol\"", "truncated.vol", "truncated"),
        ("\"negative.vol\"", "medium 'fog'", "density -3"),
        ("\"nan.vol\"", "medium 'fog'", "density NaN"),
        ("\"garbage.nii\"", "garbage.nii", ""),
        ("\"missing.vol\"", "missing.vol", "not found"),
        ("{ file = \"truncated.vol\", format = \"f32\", resolution = [3, 3, 3] }", "truncated.vol", ""),
        ("{ file = \"truncated.vol\", format = \"f64\", resolution = [3, 3, 3] }", "raw format 'f64'", ""),
        ("{ constant = -1, resolution = [2, 2, 2] }", "constant = -1", ""),
        ("{ constant = 1, resolution = [0, 2, 2] }", "resolution", ""),
        ("{ procedural = \"smoke\", resolution = [2, 2, 2] }", "unknown procedural grid 'smoke'", ""),
    ];
    for (density, must_name, must_say) in cases {
        let error = parse_in(dir.path(), &medium(density)).expect_err(density);
        assert!(error.contains("scene.toml:5:"), "{density}: no line in '{error}'");
        assert!(error.contains(must_name) && error.contains(must_say), "{density}: '{error}'");
    }
}

#[test]
fn bad_parameters_and_names_are_errors_at_their_line() {
    let cases = [
        ("[[medium]]\nname = \"fog\"\ntype = \"homogeneous\"\nsigma_t = 1\ng = 1.0\n", "g = 1"),
        ("[[medium]]\nname = \"fog\"\ntype = \"homogeneous\"\nsigma_t = -1\n", "sigma_t"),
        ("[[medium]]\nname = \"fog\"\ntype = \"homogeneous\"\nsigma_t = 1\nalbedo = 1.5\n", "albedo"),
        ("[[medium]]\nname = \"fog\"\ntype = \"homogeneous\"\n", "needs 'sigma_t'"),
        ("[[medium]]\nname = \"fog\"\ntype = \"smoke\"\n", "unknown medium type 'smoke'"),
        ("[[medium]]\nname = \"fog\"\ntype = \"grid\"\n", "needs a 'density'"),
        (
            "[[medium]]\nname = \"fog\"\ntype = \"homogeneous\"\nsigma_t = 1\nbounds = [[0, 0, 0], [1, 1, 1]]\n",
            "'bounds' does not apply",
        ),
        (
            "[[medium]]\nname = \"fog\"\ntype = \"grid\"\ndensity = { constant = 1, resolution = [2, 2, 2] }\nbounds = [[0, 0, 0], [0, 1, 1]]\n",
            "each max must exceed its min",
        ),
    ];
    for (medium, message) in cases {
        let error = parse(&with_medium(medium)).expect_err(medium);
        assert!(error.contains("scene.toml:") && error.contains(message), "{medium}: '{error}'");
    }
    let twice = "[[medium]]\nname = \"fog\"\ntype = \"homogeneous\"\nsigma_t = 1\n";
    assert!(parse(&with_medium(&format!("{twice}{twice}"))).unwrap_err().contains("defined twice"));
    let unknown = parse(&bounded().replace("interior = \"fog\"", "interior = \"smog\"")).unwrap_err();
    assert!(unknown.contains("unknown medium 'smog'") && unknown.contains(":9:"), "{unknown}");
    let emitting = "[[material]]\nname = \"b\"\ntype = \"null\"\nemission = 1\n";
    assert!(parse(emitting).unwrap_err().contains("null (index-matched) boundary cannot emit"));
}

#[test]
fn unlimited_depth() {
    let scene = parse("[render]\nmax_depth = -1\n").unwrap();
    assert_eq!(scene.settings.max_depth, warpath_scene::UNLIMITED_DEPTH);
    assert!(parse("[render]\nmax_depth = -2\n").unwrap_err().contains("max_depth"));
}
