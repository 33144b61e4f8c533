//! Tests of `export-mitsuba`: the scene dictionary, BSDFs, media, lights and the files written.

use super::*;

const SCENE: &str = r#"
[render]
width = 40
height = 30
spp = 7
max_depth = 5

[camera]
look_at = { origin = [0, 1, 6], target = [0, 0, 0] }
fov = 30
medium = "air"

[[material]]
name = "boundary"
type = "null"

[[material]]
name = "floor"
type = "diffuse"
base_color = [0.7, 0.6, 0.5]

[[material]]
name = "glass"
type = "glass"
ior = 1.33

[[material]]
name = "light"
type = "black"
emission = [12, 10, 8]

[[medium]]
name = "cloud"
type = "grid"
density = { constant = 2.0, resolution = [3, 4, 5] }
scale = 1.5
albedo = [0.9, 0.8, 0.7]
bounds = [[-1, -1, -1], [1, 2, 3]]

[[medium]]
name = "ink"
type = "homogeneous"
sigma_t = [1.5, 2.5, 4.0]
albedo = [0.9, 0.8, 0.6]
g = -0.3

[[medium]]
name = "air"
type = "homogeneous"
sigma_t = 0.01
albedo = 1
g = 0.7

[[shape]]
type = "cube"
material = "boundary"
interior = "cloud"
exterior = "air"

[[shape]]
type = "sphere"
material = "glass"
interior = "ink"
exterior = "air"
translate = [2, 0, 0]
scale = 0.5

[[shape]]
type = "rectangle"
material = "floor"
translate = [0, -1, 0]
rotate = { axis = [1, 0, 0], angle = -90 }
scale = 4

[[shape]]
type = "rectangle"
material = "light"
translate = [0, 3, 0]
rotate = { axis = [1, 0, 0], angle = 90 }
scale = 0.5

[environment]
type = "constant"
radiance = [0.3, 0.35, 0.45]
"#;

pub(super) fn scene() -> Scene {
    warpath_scene::toml_scene::parse_toml_scene(SCENE, Path::new("export-test.toml")).expect("the test scene")
}

#[test]
fn scene_json_holds_what_mitsuba_needs() {
    let scene = scene();
    let dir = tempfile::tempdir().unwrap();
    let files = export(&scene, dir.path()).unwrap();
    let text = std::fs::read_to_string(dir.path().join("scene.json")).unwrap();
    let dict: Value = serde_json::from_str(&text).unwrap();

    assert_eq!(dict["type"], "scene");
    assert_eq!(dict["integrator"], json!({"type": "volpath", "max_depth": 6, "rr_depth": 6}));
    let sensor = &dict["sensor"];
    assert_eq!(sensor["type"], "perspective");
    assert_eq!(sensor["fov"], 30.0);
    assert_eq!(sensor["fov_axis"], "smaller");
    assert_eq!(sensor["film"]["width"], 40);
    assert_eq!(sensor["film"]["height"], 30);
    assert_eq!(sensor["film"]["rfilter"]["type"], "box");
    assert_eq!(sensor["sampler"]["sample_count"], 7);
    assert_eq!(sensor["medium"], json!({"type": "ref", "id": "medium-2"}));
    // The camera matrix, row by row: the last column is the camera's position.
    let rows = sensor["to_world"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0][3], 0.0);
    assert_eq!(rows[1][3], 1.0);
    assert_eq!(rows[2][3], 6.0);
    assert_eq!(rows[3], json!([0.0, 0.0, 0.0, 1.0]));

    // The grid medium: a .vol, placed by bounds, scale kept apart, isotropic.
    let cloud = &dict["medium-0"];
    assert_eq!(cloud["type"], "heterogeneous");
    assert_eq!(cloud["scale"], 1.5);
    assert_eq!(cloud["sigma_t"]["type"], "gridvolume");
    assert_eq!(cloud["sigma_t"]["filename"], "medium-0-density.vol");
    assert_eq!(
        cloud["sigma_t"]["to_world"],
        json!([[2.0, 0.0, 0.0, -1.0], [0.0, 3.0, 0.0, -1.0], [0.0, 0.0, 4.0, -1.0], [0.0, 0.0, 0.0, 1.0]])
    );
    assert_eq!(cloud["albedo"], json!({"type": "rgb", "value": [0.9, 0.8, 0.7]}));
    assert_eq!(cloud["phase"], json!({"type": "isotropic"}));
    // Homogeneous, spectral, HG of either sign.
    let ink = &dict["medium-1"];
    assert_eq!(ink["type"], "homogeneous");
    // Mitsuba's RGB must lie in [0, 1]: σ_t / its largest channel, times `scale`.
    assert_eq!(ink["sigma_t"]["value"], json!([0.375, 0.625, 1.0]));
    assert_eq!(ink["scale"], 4.0);
    assert_eq!(dict["medium-2"]["sigma_t"], 0.01);
    assert_eq!(dict["medium-2"]["scale"], 1.0);
    assert_eq!(ink["albedo"]["value"], json!([0.9, 0.8, 0.6]));
    assert_eq!(ink["phase"], json!({"type": "hg", "g": -0.3}));
    assert_eq!(dict["medium-2"]["phase"], json!({"type": "hg", "g": 0.7}));

    assert_eq!(
        dict["environment"],
        json!({"type": "constant", "radiance": {"type": "rgb", "value": [0.3, 0.35, 0.45]}})
    );

    // Shapes: one per (material, interface), in material order.
    let shapes: Vec<(&String, &Value)> =
        dict.as_object().unwrap().iter().filter(|(k, _)| k.starts_with("shape-")).collect();
    assert_eq!(shapes.len(), 4);
    let by_bsdf = |kind: &str| {
        shapes
            .iter()
            .map(|(_, s)| *s)
            .find(|s| s["bsdf"]["type"] == kind || s["bsdf"]["bsdf"]["type"] == kind)
            .unwrap_or_else(|| panic!("a shape with a {kind} BSDF"))
    };
    let boundary = by_bsdf("null");
    assert_eq!(boundary["type"], "ply");
    assert_eq!(boundary["interior"], json!({"type": "ref", "id": "medium-0"}));
    assert_eq!(boundary["exterior"], json!({"type": "ref", "id": "medium-2"}));
    let glass = by_bsdf("dielectric");
    assert_eq!(glass["bsdf"], json!({"type": "dielectric", "int_ior": 1.33, "ext_ior": 1.0}));
    assert_eq!(glass["interior"], json!({"type": "ref", "id": "medium-1"}));
    // The sphere has smooth normals, so the meshes carry them.
    assert_eq!(glass["face_normals"], false);
    let floor = &shapes.iter().find(|(k, _)| k.ends_with("-floor")).unwrap().1;
    assert_eq!(floor["bsdf"]["type"], "twosided");
    assert_eq!(floor["bsdf"]["bsdf"]["reflectance"]["value"], json!([0.7, 0.6, 0.5]));
    assert!(floor.get("interior").is_none() && floor.get("emitter").is_none());
    let light = &shapes.iter().find(|(k, _)| k.ends_with("-light")).unwrap().1;
    assert_eq!(light["emitter"], json!({"type": "area", "radiance": {"type": "rgb", "value": [12.0, 10.0, 8.0]}}));
    assert_eq!(light["bsdf"]["reflectance"]["value"], json!([0.0, 0.0, 0.0]));

    // Every file scene.json names was written.
    for f in ["mesh-000.ply", "mesh-001.ply", "mesh-002.ply", "mesh-003.ply", "medium-0-density.vol", "scene.json"] {
        assert!(files.iter().any(|n| n == f), "{f} in {files:?}");
        assert!(dir.path().join(f).is_file(), "{f} written");
    }
}

#[test]
fn delta_lights_keep_their_units() {
    use warpath_core::light::DeltaLight;
    let mut s = scene();
    s.delta_lights = vec![
        DeltaLight::point(Vec3::new(0.0, 1.0, 0.0), Vec3::splat(3.0)),
        DeltaLight::spot(Vec3::ZERO, Vec3::NEG_Y, Vec3::ONE, 30.0, 20.0),
        DeltaLight::directional(Vec3::NEG_Y, Vec3::splat(2.0)),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let dict = scene_dict(&s, dir.path(), &mut files).unwrap();
    assert_eq!(
        dict["light-0"],
        json!({"type": "point", "position": [0.0, 1.0, 0.0], "intensity": {"type": "rgb", "value": [3.0, 3.0, 3.0]}})
    );
    let spot = &dict["light-1"];
    assert!((spot["cutoff_angle"].as_f64().unwrap() - 30.0).abs() < 1e-4);
    assert!((spot["beam_width"].as_f64().unwrap() - 20.0).abs() < 1e-3);
    assert_eq!(dict["light-2"]["type"], json!("directional"));
    assert_eq!(dict["light-2"]["direction"], json!([0.0, -1.0, 0.0]));
}

#[test]
fn grids_round_trip_through_vol_files() {
    let mut scene = scene();
    // A lumpy density and an RGB albedo grid, as a generated grid or a transfer function
    // leaves them.
    let density = std::sync::Arc::new(VolumeGrid::from_fn([5, 4, 3], |i, j, k| (i * 7 + j * 3 + k) as f32 * 0.37));
    let albedo: Vec<f32> = (0..2 * 3 * 4 * 3).map(|v| (v % 10) as f32 / 10.0).collect();
    let albedo = std::sync::Arc::new(VolumeGrid::new([2, 3, 4], 3, albedo).unwrap());
    let to_world = scene.media[0].to_world;
    scene.media[0] =
        Medium::grid("cloud", density.clone(), 2.5, MediumAlbedo::Grid(albedo.clone()), 0.5, to_world, 4).unwrap();
    let dir = tempfile::tempdir().unwrap();
    export(&scene, dir.path()).unwrap();
    let dict: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("scene.json")).unwrap()).unwrap();
    let cloud = &dict["medium-0"];
    assert_eq!(cloud["albedo"]["type"], "gridvolume");
    assert_eq!(cloud["albedo"]["to_world"], cloud["sigma_t"]["to_world"]);
    assert_eq!(cloud["phase"], json!({"type": "hg", "g": 0.5}));
    let read = |key: &str| {
        let name = cloud[key]["filename"].as_str().unwrap();
        warpath_volume::vol::read_vol(&dir.path().join(name)).unwrap().grid
    };
    assert_eq!(read("sigma_t"), *density);
    assert_eq!(read("albedo"), *albedo);
}

#[test]
fn meshes_round_trip_through_ply_files() {
    let scene = scene();
    let dir = tempfile::tempdir().unwrap();
    export(&scene, dir.path()).unwrap();
    let dict: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("scene.json")).unwrap()).unwrap();
    let mut triangles = 0;
    for (_, shape) in dict.as_object().unwrap().iter().filter(|(k, _)| k.starts_with("shape-")) {
        let path = dir.path().join(shape["filename"].as_str().unwrap());
        let asset = warpath_scene::ply::load_ply(&path).unwrap();
        for mesh in &asset.meshes {
            assert_eq!(mesh.normals.len(), mesh.positions.len());
            for t in &mesh.triangles {
                // Each exported triangle is one of the scene's, vertex for vertex.
                let p = t.map(|v| mesh.positions[v as usize]);
                assert!(
                    (0..scene.triangle_count()).any(|s| scene.triangle_vertices(s) == p),
                    "triangle {p:?} is the scene's"
                );
            }
            triangles += mesh.triangles.len();
        }
    }
    assert_eq!(triangles, scene.triangle_count());
}

#[test]
fn what_mitsuba_cannot_express_is_an_error() {
    let export_with = |material: &str| {
        let text = SCENE.replace("type = \"glass\"\nior = 1.33", material);
        let scene = warpath_scene::toml_scene::parse_toml_scene(&text, Path::new("t.toml")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        export(&scene, dir.path()).map(|_| ()).map_err(|e| format!("{e:#}"))
    };
    let err = export_with("type = \"blinn\"").unwrap_err();
    assert!(err.contains("material 'glass'") && err.contains("Blinn"), "{err}");
    let err = export_with("type = \"mirror\"\nspecular = 0.9").unwrap_err();
    assert!(err.contains("Schlick"), "{err}");
    assert!(export_with("type = \"mirror\"").is_ok());
    let err = export_with("type = \"glass\"\nemission = 1\ntwo_sided_emission = true").unwrap_err();
    assert!(err.contains("two-sided emission"), "{err}");
}

#[test]
fn depth_and_materials_translate() {
    assert_eq!(integrator(0), json!({"type": "volpath", "max_depth": 1, "rr_depth": 1}));
    assert_eq!(integrator(UNLIMITED_DEPTH), json!({"type": "volpath", "max_depth": -1}));
    let one_sided = Material::diffuse(Vec3::splat(0.5)).with_one_sided();
    assert_eq!(bsdf(&one_sided).unwrap()["type"], "diffuse");
    let rough = Material::rough_dielectric(1.5, 0.5);
    let b = bsdf(&rough).unwrap();
    assert_eq!(b["alpha"], 0.25);
    assert_eq!(b["distribution"], "ggx");
    let tinted = Material { specular: Vec3::new(0.9, 0.8, 0.7), ..Material::glass(1.5) };
    assert_eq!(bsdf(&tinted).unwrap()["specular_transmittance"]["value"], json!([0.9, 0.8, 0.7]));
    // An opaque two-sided principled is wrapped in twosided; a transmitting one is not.
    let opaque = Material::principled(Vec3::splat(0.5), 0.25, 1.5);
    assert_eq!(bsdf(&opaque).unwrap()["bsdf"]["type"], "principled");
    let b = bsdf(&Material { spec_trans: 0.5, ..opaque }).unwrap();
    assert_eq!((&b["type"], &b["spec_trans"], &b["roughness"]), (&json!("principled"), &json!(0.5), &json!(0.25)));
    assert_eq!(bsdf(&Material::thin_dielectric(1.5)).unwrap()["type"], "thindielectric");
    // Conductors with eta + ik and Beckmann roughness are Mitsuba's own.
    let gold = Material::conductor(Vec3::new(0.14, 0.37, 1.44), Vec3::new(3.98, 2.39, 1.6), Vec3::splat(0.5));
    let b = &bsdf(&gold.with_one_sided()).unwrap();
    assert_eq!((&b["type"], &b["eta"]["value"]), (&json!("conductor"), &json!([0.14, 0.37, 1.44])));
    assert_eq!(
        (&b["k"]["value"], &b["specular_reflectance"]["value"]),
        (&json!([3.98, 2.39, 1.6]), &json!([0.5, 0.5, 0.5]))
    );
    let rough = Material::rough_conductor_eta_k(Vec3::ZERO, Vec3::ONE, Vec3::ONE, 0.5).with_beckmann();
    let b = &bsdf(&rough).unwrap()["bsdf"];
    assert_eq!(
        (&b["type"], &b["distribution"], &b["alpha"]),
        (&json!("roughconductor"), &json!("beckmann"), &json!(0.25))
    );
    let b = bsdf(&Material::rough_dielectric(1.5, 0.5).with_beckmann()).unwrap();
    assert_eq!(b["distribution"], "beckmann");
    // A Beckmann rough plastic's coat (a GGX one is checked above).
    let plastic = Material::plastic(Vec3::splat(0.5), Vec3::ONE, 1.5, 0.5, false).with_beckmann();
    let b = bsdf(&plastic).unwrap();
    let b = if b["type"] == "twosided" { &b["bsdf"] } else { &b };
    assert_eq!((&b["type"], &b["distribution"]), (&json!("roughplastic"), &json!("beckmann")));
}
