//! Built-in scenes: the Cornell box matches Mitsuba 3's definition shape by shape (and
//! Mitsuba 3.9's own dump of it, `mitsuba.cornell_box()` printed with `scalar_rgb`, kept in
//! warpath-testkit's data/ folder), normals face the viewer side, the
//! furnace and terrain scenes have the promised content.

use glam::{Mat4, Vec3};
use warpath_core::light::Environment;
use warpath_core::material::MaterialKind;
use warpath_scene::Scene;
use warpath_scene::builtin::{self, CORNELL_SHAPES};

const JSON_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../warpath-testkit/data/mitsuba3_cornell_box.json");

fn mesh<'a>(scene: &'a Scene, name: &str) -> &'a warpath_scene::MeshInfo {
    scene.meshes.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no mesh '{name}'"))
}

/// Distinct world-space vertices used by a mesh's triangles.
fn mesh_corners(scene: &Scene, name: &str) -> Vec<Vec3> {
    let info = mesh(scene, name);
    let mut corners: Vec<Vec3> = Vec::new();
    for t in info.first_triangle..info.first_triangle + info.triangle_count {
        for p in scene.triangle_vertices(t as usize) {
            if !corners.iter().any(|c| (*c - p).length() < 1e-6) {
                corners.push(p);
            }
        }
    }
    corners
}

fn canonical_corners(kind: &str) -> Vec<Vec3> {
    let mut out = Vec::new();
    if kind == "cube" {
        for x in [-1.0, 1.0] {
            for y in [-1.0, 1.0] {
                for z in [-1.0, 1.0] {
                    out.push(Vec3::new(x, y, z));
                }
            }
        }
    } else {
        for (x, y) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            out.push(Vec3::new(x, y, 0.0));
        }
    }
    out
}

fn check_corners(scene: &Scene, name: &str, kind: &str, rows: [[f32; 4]; 4]) {
    let to_world = Mat4::from_cols_array_2d(&rows).transpose();
    let expected: Vec<Vec3> = canonical_corners(kind).iter().map(|&p| to_world.transform_point3(p)).collect();
    let actual = mesh_corners(scene, name);
    assert_eq!(actual.len(), expected.len(), "{name}: corner count");
    for e in &expected {
        assert!(actual.iter().any(|a| (*a - *e).length() < 1e-5), "{name}: corner {e} missing in {actual:?}");
    }
}

#[test]
fn cornell_matches_mitsuba_constants() {
    let scene = builtin::by_name("cornell").unwrap();
    assert_eq!(scene.meshes.len(), 8);
    assert_eq!(scene.triangle_count(), 6 * 2 + 2 * 12);
    for &(name, kind, rows) in CORNELL_SHAPES {
        check_corners(&scene, name, kind, rows);
    }
    assert_eq!((scene.settings.width, scene.settings.height, scene.settings.max_depth), (256, 256, 8));
    assert!(matches!(scene.environment, Environment::None));
    assert!((scene.camera.fov_degrees - 39.3077).abs() < 1e-6);
    assert_eq!(scene.camera.position(), Vec3::new(0.0, 0.0, 3.9000001));
    // Exactly one emitter: the light, white diffuse, one-sided, Mitsuba's radiance.
    let light = mesh(&scene, "light");
    let m = scene.materials[scene.triangle_materials[light.first_triangle as usize] as usize];
    assert_eq!(m.kind(), MaterialKind::Diffuse);
    assert_eq!(m.emission, Vec3::new(18.387, 13.9873, 6.75357));
    assert_eq!(m.base_color, Vec3::new(0.885809, 0.698859, 0.666422));
    assert!(!m.two_sided_emission());
    let emitters = scene.triangle_materials.iter().filter(|&&i| scene.materials[i as usize].is_emissive()).count();
    assert_eq!(emitters, 2);
}

/// Geometric normals (from winding) agree with shading normals, walls face the box
/// interior, and the light faces down.
#[test]
fn cornell_normals_face_inward() {
    let scene = builtin::cornell();
    let center = Vec3::new(0.0, 0.0, 0.0);
    for t in 0..scene.triangle_count() {
        let [a, b, c] = scene.triangle_vertices(t);
        let geometric = (b - a).cross(c - a).normalize();
        let [i, _, _] = scene.triangles[t];
        assert!(geometric.dot(scene.normals[i as usize]) > 0.999, "triangle {t}");
    }
    for name in ["floor", "ceiling", "back", "green-wall", "red-wall"] {
        let info = mesh(&scene, name);
        let [a, b, c] = scene.triangle_vertices(info.first_triangle as usize);
        let n = (b - a).cross(c - a);
        assert!(n.dot(center - a) > 0.0, "{name} faces away from the box interior");
    }
    let info = mesh(&scene, "light");
    let [a, b, c] = scene.triangle_vertices(info.first_triangle as usize);
    assert!((b - a).cross(c - a).normalize().dot(-Vec3::Y) > 0.999);
    // Cubes: normals point away from the cube's center.
    for name in ["small-box", "large-box"] {
        let info = mesh(&scene, name);
        let corners = mesh_corners(&scene, name);
        let box_center = corners.iter().copied().sum::<Vec3>() / corners.len() as f32;
        for t in info.first_triangle..info.first_triangle + info.triangle_count {
            let [a, b, c] = scene.triangle_vertices(t as usize);
            assert!((b - a).cross(c - a).dot(a - box_center) > 0.0, "{name} triangle {t} faces inward");
        }
    }
}

fn json_matrix(value: &serde_json::Value) -> [[f32; 4]; 4] {
    let mut m = [[0.0; 4]; 4];
    for (r, row) in value.as_array().unwrap().iter().enumerate() {
        for (c, v) in row.as_array().unwrap().iter().enumerate() {
            m[r][c] = v.as_f64().unwrap() as f32;
        }
    }
    m
}

fn json_rgb(value: &serde_json::Value) -> Vec3 {
    let v = value["value"].as_array().unwrap();
    Vec3::new(v[0].as_f64().unwrap() as f32, v[1].as_f64().unwrap() as f32, v[2].as_f64().unwrap() as f32)
}

#[test]
fn cornell_matches_the_mitsuba_json_dump() {
    let text = std::fs::read_to_string(JSON_PATH).unwrap_or_else(|e| panic!("{JSON_PATH}: {e}"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let scene = builtin::cornell();
    let mut shapes = 0;
    for (name, value) in json.as_object().unwrap() {
        let kind = value.get("type").and_then(|t| t.as_str()).unwrap_or("");
        if kind != "rectangle" && kind != "cube" {
            continue;
        }
        shapes += 1;
        check_corners(&scene, name, kind, json_matrix(&value["to_world"]));
        // Material: the referenced bsdf's reflectance.
        let bsdf_id = value["bsdf"]["id"].as_str().unwrap();
        let reflectance = json_rgb(&json[bsdf_id]["reflectance"]);
        let info = mesh(&scene, name);
        let m = scene.materials[scene.triangle_materials[info.first_triangle as usize] as usize];
        assert_eq!(m.base_color, reflectance, "{name}");
        match value.get("emitter") {
            Some(e) => assert_eq!(m.emission, json_rgb(&e["radiance"]), "{name}"),
            None => assert!(!m.is_emissive(), "{name}"),
        }
    }
    assert_eq!(shapes, scene.meshes.len());
    let sensor = &json["sensor"];
    let camera = Mat4::from_cols_array_2d(&json_matrix(&sensor["to_world"])).transpose();
    assert_eq!(scene.camera.to_world, camera);
    assert_eq!(scene.camera.fov_degrees, sensor["fov"].as_f64().unwrap() as f32);
    assert_eq!(scene.settings.width as u64, sensor["film"]["width"].as_u64().unwrap());
    assert_eq!(scene.settings.height as u64, sensor["film"]["height"].as_u64().unwrap());
}

#[test]
fn furnace_is_a_closed_diffuse_sphere_in_a_white_environment() {
    let scene = builtin::by_name("furnace").unwrap();
    assert!(matches!(scene.environment, Environment::Constant(c) if c == Vec3::ONE));
    assert_eq!(scene.materials.len(), 1);
    assert_eq!(scene.materials[0].base_color, Vec3::splat(0.8));
    // Closed: every edge is shared by exactly two triangles.
    let mut edges = std::collections::HashMap::new();
    for t in &scene.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    assert!(edges.values().all(|&n| n == 2));
    // Outward winding, vertices on the unit sphere.
    for i in 0..scene.triangle_count() {
        let [a, b, c] = scene.triangle_vertices(i);
        assert!((b - a).cross(c - a).dot(a) > 0.0);
        assert!((a.length() - 1.0).abs() < 1e-5);
    }
    let half = builtin::by_name("furnace:0.5").unwrap();
    assert_eq!(half.materials[0].base_color, Vec3::splat(0.5));
    assert!(builtin::by_name("furnace:2").is_none());
    assert!(builtin::by_name("no-such-scene").is_none());
}

#[test]
fn every_named_scene_loads() {
    for name in builtin::NAMES {
        if *name == "terrain" {
            continue; // checked below at full size
        }
        let scene = builtin::by_name(name).unwrap();
        assert!(scene.triangle_count() > 0, "{name}");
        assert_eq!(scene.triangle_materials.len(), scene.triangle_count());
        assert!(scene.warnings.is_empty(), "{name}: {:?}", scene.warnings);
    }
}

#[test]
fn terrain_has_about_a_million_triangles_and_several_materials() {
    let start = std::time::Instant::now();
    let scene = builtin::by_name("terrain").unwrap();
    eprintln!("terrain: {} triangles in {:?}", scene.triangle_count(), start.elapsed());
    assert!(scene.triangle_count() > 900_000 && scene.triangle_count() < 1_200_000);
    let used: std::collections::HashSet<u32> = scene.triangle_materials.iter().copied().collect();
    assert!(used.len() >= 5, "materials used: {used:?}");
    assert!(scene.materials.iter().any(|m| m.is_emissive()));
    assert!(matches!(scene.environment, Environment::Constant(_)));
    // Deterministic.
    let small_a = builtin::terrain(40);
    let small_b = builtin::terrain(40);
    assert_eq!(small_a.positions, small_b.positions);
    assert_eq!(small_a.triangles, small_b.triangles);
}
