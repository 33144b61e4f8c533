//! Mitsuba 3 XML plugins beyond the basic shapes and BSDFs (docs/scene-format.md, "Mitsuba 3
//! XML"): `shapegroup`/`instance` flattened under the instance's transform, the `serialized`
//! mesh format (written here byte by byte), the `checkerboard` texture baked with Mitsuba's
//! cell convention (checked against values Mitsuba 3.9 returned), and media (`homogeneous`,
//! `heterogeneous` over a `.vol` grid) bound to shapes and the sensor. Malformed input is
//! an error naming the file and line.

use glam::{Mat4, Vec2, Vec3};
use std::io::Write;
use std::path::{Path, PathBuf};
use warpath_scene::mesh::TriangleMesh;
use warpath_scene::mitsuba_xml::serialized::{parse_serialized, serialized_bytes};
use warpath_scene::mitsuba_xml::{angle_weighted_normals, parse_mitsuba_xml};
use warpath_scene::{Scene, SceneError};
use warpath_volume::medium::interface;
use warpath_volume::{MediumAlbedo, MediumDensity, VolumeGrid};

/// A scene file `scene.xml` in `dir` holding `body`, parsed.
fn parse_in(dir: &Path, body: &str) -> Result<Scene, SceneError> {
    let text = format!("<scene version=\"3.0.0\">\n{body}\n</scene>");
    parse_mitsuba_xml(&text, &dir.join("scene.xml"), &[])
}

/// `body` parsed with a constant environment after it; its warnings, less the one for the
/// missing sensor.
fn scene_in(dir: &Path, body: &str) -> Scene {
    let mut s = parse_in(dir, &format!("{body}\n<emitter type=\"constant\"/>")).unwrap_or_else(|e| panic!("{e}"));
    s.warnings.retain(|w| !w.contains("no <sensor>"));
    s
}

/// Asserts a Parse error at `line` (counting the `<scene>` line as 1) containing `needle`.
fn assert_error_at(dir: &Path, body: &str, line: usize, needle: &str) {
    match parse_in(dir, body) {
        Err(SceneError::Parse { line: got, message, path }) => {
            assert_eq!(got, line, "wrong line for '{message}'");
            assert!(message.contains(needle), "message '{message}' lacks '{needle}'");
            assert!(path.ends_with("scene.xml"), "{}", path.display());
        }
        Err(other) => panic!("expected a Parse error at line {line}, got {other}"),
        Ok(_) => panic!("expected a Parse error at line {line}, got a scene"),
    }
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn positions_of(scene: &Scene, mesh: &str) -> Vec<Vec3> {
    let m = scene.meshes.iter().find(|m| m.name == mesh).unwrap_or_else(|| panic!("no mesh {mesh}"));
    let range = m.first_triangle as usize..(m.first_triangle + m.triangle_count) as usize;
    scene.triangles[range].iter().flat_map(|t| t.map(|i| scene.positions[i as usize])).collect()
}

const GROUP: &str = r#"<shape type="shapegroup" id="pair">
  <shape type="rectangle" id="a"><bsdf type="diffuse"><rgb name="reflectance" value="0.1 0.2 0.3"/></bsdf>
    <transform name="to_world"><rotate x="1" angle="-90"/><translate y="1"/></transform></shape>
  <shape type="cube" id="b"><transform name="to_world"><scale value="0.5"/></transform></shape>
</shape>"#;

#[test]
fn instances_flatten_shapegroups_under_their_transform() {
    let dir = tmp();
    let s = scene_in(
        dir.path(),
        &format!(
            r#"{GROUP}
<shape type="instance" id="left"><ref id="pair"/><transform name="to_world"><translate x="-2"/></transform></shape>
<shape type="instance" id="right"><ref id="pair"/>
  <transform name="to_world"><rotate y="1" angle="30"/><scale value="2"/><translate x="3" z="1"/></transform></shape>"#
        ),
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    // The group alone adds nothing; each instance adds its 2 + 12 triangles.
    let names: Vec<&str> = s.meshes.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["left/a", "left/b", "right/a", "right/b"]);
    assert_eq!(s.triangle_count(), 2 * (2 + 12));
    // Each instance's triangles are the group's under instance to_world × shape to_world.
    let single = |outer: &str| {
        scene_in(
            dir.path(),
            &format!(
                r#"<shape type="rectangle" id="a"><transform name="to_world"><rotate x="1" angle="-90"/><translate y="1"/>{outer}</transform></shape>
<shape type="cube" id="b"><transform name="to_world"><scale value="0.5"/>{outer}</transform></shape>"#
            ),
        )
    };
    for (instance, outer) in [
        ("left", r#"<translate x="-2"/>"#),
        ("right", r#"<rotate y="1" angle="30"/><scale value="2"/><translate x="3" z="1"/>"#),
    ] {
        let reference = single(outer);
        for shape in ["a", "b"] {
            let got = positions_of(&s, &format!("{instance}/{shape}"));
            let want = positions_of(&reference, shape);
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                assert!(g.distance(*w) < 1e-5, "{instance}/{shape}: {g} vs {w}");
            }
        }
    }
    // The group's BSDF goes with it.
    let a = &s.meshes[0];
    let m = &s.materials[s.triangle_materials[a.first_triangle as usize] as usize];
    assert_eq!(m.base_color, Vec3::new(0.1, 0.2, 0.3));
}

#[test]
fn malformed_instancing_is_an_error_at_its_line() {
    let dir = tmp();
    let d = dir.path();
    // Lines count from the <scene> line (1).
    assert_error_at(d, "<shape type=\"instance\">\n<ref id=\"nope\"/></shape>", 3, "names no shapegroup");
    assert_error_at(d, "<shape type=\"instance\"/>", 2, "needs a <ref id");
    assert_error_at(d, "<shape type=\"shapegroup\"><shape type=\"cube\"/></shape>", 2, "needs an 'id'");
    assert_error_at(
        d,
        "<shape type=\"shapegroup\" id=\"g\">\n<shape type=\"rectangle\">\n<emitter type=\"area\"/></shape></shape>",
        4,
        "does not instance emitters",
    );
    assert_error_at(
        d,
        "<shape type=\"shapegroup\" id=\"g\">\n<shape type=\"shapegroup\" id=\"h\"/></shape>",
        3,
        "does not nest",
    );
    assert_error_at(
        d,
        "<shape type=\"shapegroup\" id=\"g\">\n<shape type=\"instance\"><ref id=\"g\"/></shape></shape>",
        3,
        "does not nest",
    );
    assert_error_at(
        d,
        "<shape type=\"shapegroup\" id=\"g\"><shape type=\"cube\"/></shape>\n<shape type=\"shapegroup\" id=\"g\"/>",
        3,
        "declared twice",
    );
    // A shapegroup's shape that fails to place (a singular instance) names the instance's line.
    assert_error_at(
        d,
        "<shape type=\"shapegroup\" id=\"g\"><shape type=\"cube\"/></shape>\n\n<shape type=\"instance\"><ref id=\"g\"/><transform name=\"to_world\"><scale value=\"0\"/></transform></shape>",
        4,
        "singular",
    );
}

fn quad(name: &str) -> TriangleMesh {
    TriangleMesh {
        name: name.into(),
        positions: vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ],
        normals: vec![Vec3::Z; 4],
        uvs: vec![Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(1.0, 0.25), Vec2::new(0.0, 0.25)],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        material: None,
    }
}

/// A bent strip without normals or uvs: two triangles sharing an edge at a right angle.
fn bent() -> TriangleMesh {
    TriangleMesh {
        name: "bent".into(),
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.0, 1.0)],
        triangles: vec![[0, 1, 2], [0, 3, 1]],
        ..TriangleMesh::default()
    }
}

#[test]
fn serialized_meshes_read_back_by_index() {
    let bytes = serialized_bytes(&[quad("first"), bent()]);
    let first = parse_serialized(&bytes, 0).unwrap();
    assert_eq!(first.mesh.name, "first");
    assert_eq!(first.mesh.positions, quad("").positions);
    assert_eq!(first.mesh.normals, quad("").normals);
    assert_eq!(first.mesh.uvs, quad("").uvs);
    assert_eq!(first.mesh.triangles, quad("").triangles);
    let second = parse_serialized(&bytes, 1).unwrap();
    assert_eq!(second.mesh.name, "bent");
    assert_eq!(second.mesh.positions, bent().positions);
    assert!(second.mesh.normals.is_empty() && second.mesh.uvs.is_empty());
    assert!(parse_serialized(&bytes, 2).unwrap_err().contains("out of range"));

    // Every truncation is an error, never a panic or a short mesh.
    for cut in 1..bytes.len() {
        let r = parse_serialized(&bytes[..cut], 0);
        assert!(r.is_err(), "truncated at {cut} of {}: read a mesh", bytes.len());
    }
    let mut bad = bytes.clone();
    bad[0] = 0x1D;
    assert!(parse_serialized(&bad, 0).unwrap_err().contains("0x041C"));
}

#[test]
fn version_3_files_with_double_precision_read() {
    // Hand-written: version 3 (no name), flags = double precision | face normals, one
    // triangle; the dictionary's offsets are u32.
    let mut body = Vec::new();
    body.extend_from_slice(&(0x2000u32 | 0x0010).to_le_bytes());
    body.extend_from_slice(&3u64.to_le_bytes());
    body.extend_from_slice(&1u64.to_le_bytes());
    for v in [0.0f64, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.5, 0.0] {
        body.extend_from_slice(&v.to_le_bytes());
    }
    for i in [0u32, 1, 2] {
        body.extend_from_slice(&i.to_le_bytes());
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&body).unwrap();
    let stream = z.finish().unwrap();
    let mut file = vec![0x1C, 0x04, 3, 0];
    file.extend_from_slice(&stream);
    let second = file.len() as u32;
    file.extend_from_slice(&[0x1C, 0x04, 3, 0]);
    file.extend_from_slice(&stream);
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend_from_slice(&second.to_le_bytes());
    file.extend_from_slice(&2u32.to_le_bytes());
    for index in [0, 1] {
        let m = parse_serialized(&file, index).unwrap();
        assert!(m.face_normals);
        assert_eq!(m.mesh.positions[1], Vec3::new(2.0, 0.0, 0.0));
        assert_eq!(m.mesh.positions[2], Vec3::new(0.0, 0.5, 0.0));
        assert_eq!(m.mesh.triangles, vec![[0, 1, 2]]);
    }
}

#[test]
fn serialized_shapes_place_flip_uv_and_get_smooth_normals() {
    let dir = tmp();
    std::fs::write(dir.path().join("m.serialized"), serialized_bytes(&[quad("q"), bent()])).unwrap();
    let s = scene_in(
        dir.path(),
        r#"<shape type="serialized" id="q"><string name="filename" value="m.serialized"/>
  <transform name="to_world"><translate z="5"/></transform></shape>
<shape type="serialized" id="bent"><string name="filename" value="m.serialized"/><integer name="shape_index" value="1"/></shape>"#,
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.triangle_count(), 4);
    assert_eq!(positions_of(&s, "q")[1], Vec3::new(1.0, 0.0, 5.0));
    // Mitsuba's uv (v down) becomes warpath's: v = 1 - v.
    assert_eq!(s.uvs[2], Vec2::new(1.0, 0.75));
    // The bent strip has no normals: Mitsuba's angle-weighted ones (the shared edge's
    // vertices lean half-way between the faces).
    let n = angle_weighted_normals(&bent());
    let half = Vec3::new(0.0, 1.0, 1.0).normalize();
    assert!(n[0].distance(half) < 1e-6 && n[1].distance(half) < 1e-6, "{n:?}");
    assert_eq!(n[2], Vec3::Z);
    assert_eq!(n[3], Vec3::Y);
    // face_normals drops them.
    let s = scene_in(
        dir.path(),
        r#"<shape type="serialized"><string name="filename" value="m.serialized"/><boolean name="face_normals" value="true"/></shape>"#,
    );
    assert!(s.normals.is_empty(), "face normals are the geometric ones");

    // Truncated files and bad indices are errors at the filename's line.
    let bytes = serialized_bytes(&[quad("q")]);
    std::fs::write(dir.path().join("cut.serialized"), &bytes[..bytes.len() / 2]).unwrap();
    assert_error_at(
        dir.path(),
        "<shape type=\"serialized\">\n<string name=\"filename\" value=\"cut.serialized\"/></shape>",
        3,
        "cut.serialized",
    );
    assert_error_at(
        dir.path(),
        "<shape type=\"serialized\"><string name=\"filename\" value=\"m.serialized\"/>\n<integer name=\"shape_index\" value=\"-1\"/></shape>",
        3,
        "must not be negative",
    );
    assert_error_at(
        dir.path(),
        "<shape type=\"serialized\">\n<string name=\"filename\" value=\"m.serialized\"/><integer name=\"shape_index\" value=\"7\"/></shape>",
        3,
        "out of range",
    );
}

#[test]
fn mesh_files_without_normals_get_mitsubas_smooth_normals() {
    let dir = tmp();
    let ply = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n\
element face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n3 0 3 1\n";
    std::fs::write(dir.path().join("bent.ply"), ply).unwrap();
    let s = scene_in(dir.path(), r#"<shape type="ply"><string name="filename" value="bent.ply"/></shape>"#);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let want = angle_weighted_normals(&bent());
    assert_eq!(s.normals.len(), 4);
    for (got, want) in s.normals.iter().zip(&want) {
        assert!(got.distance(*want) < 1e-6, "{got} vs {want}");
    }
    let s = scene_in(
        dir.path(),
        r#"<shape type="ply"><string name="filename" value="bent.ply"/><boolean name="face_normals" value="true"/></shape>"#,
    );
    assert!(s.normals.is_empty());
    // A face out of range is an error naming the file and line, not a panic.
    std::fs::write(dir.path().join("bad.ply"), ply.replace("3 0 3 1", "3 0 9 1")).unwrap();
    let message = parse_in(dir.path(), r#"<shape type="ply"><string name="filename" value="bad.ply"/></shape>"#)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(message.contains("bad.ply:15") && message.contains("vertex index 9"), "{message}");
}

#[test]
fn the_checkerboard_bakes_mitsubas_cells() {
    let dir = tmp();
    let s = scene_in(
        dir.path(),
        r#"<shape type="rectangle"><bsdf type="diffuse"><texture type="checkerboard" name="reflectance">
  <rgb name="color0" value="1 0 0"/><rgb name="color1" value="0 0 1"/>
  <transform name="to_uv"><scale x="2" y="3"/><translate x="0.25"/></transform>
</texture></bsdf></shape>"#,
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.textures.len(), 1);
    let t = &s.textures[0];
    // What Mitsuba 3.9 (scalar_rgb) returned for this texture at these (Mitsuba) uvs.
    let (red, blue) = (Vec3::X, Vec3::Z);
    for (uv, want) in [((0.1, 0.1), red), ((0.3, 0.1), blue), ((0.1, 0.3), blue), ((0.6, 0.6), blue), ((0.9, 0.1), red)]
    {
        // warpath's v is Mitsuba's flipped.
        let got = t.sample(Vec2::new(uv.0, 1.0 - uv.1));
        assert!(got.distance(want) < 1e-6, "Mitsuba uv {uv:?}: {got} vs {want}");
    }
    // A whole pattern fits per unit of uv: 4 × 6 cells of 512 / 6 = 85 pixels.
    assert_eq!((t.width, t.height), (4 * 85, 6 * 85));

    // Defaults (0.4 / 0.2, to_uv identity): color0 at the origin's cell; a fractional scale warns.
    let s = scene_in(
        dir.path(),
        r#"<texture type="checkerboard" id="c"><transform name="to_uv"><scale value="2.5"/></transform></texture>
<shape type="rectangle"><bsdf type="diffuse"><ref name="reflectance" id="c"/></bsdf></shape>"#,
    );
    assert!(s.warnings.iter().any(|w| w.contains("not a whole number")), "{:?}", s.warnings);
    let s = scene_in(
        dir.path(),
        r#"<shape type="rectangle"><bsdf type="diffuse"><texture type="checkerboard" name="reflectance"/></bsdf></shape>"#,
    );
    let t = &s.textures[0];
    assert!(t.sample(Vec2::new(0.2, 1.0 - 0.2)).distance(Vec3::splat(0.4)) < 1e-6);
    assert!(t.sample(Vec2::new(0.7, 1.0 - 0.2)).distance(Vec3::splat(0.2)) < 1e-6);
    assert!(t.sample(Vec2::new(0.7, 1.0 - 0.7)).distance(Vec3::splat(0.4)) < 1e-6);
}

/// A 1-channel `.vol` of `res` whose voxel (i, j, k) holds i + 10 j + 100 k.
fn write_vol(path: &Path, res: [u32; 3], channels: u32) -> VolumeGrid {
    let grid = VolumeGrid::new(
        res,
        channels,
        (0..res[0] * res[1] * res[2] * channels).map(|v| (v % 7) as f32 * 0.1).collect(),
    )
    .unwrap();
    warpath_volume::vol::write_vol(path, &grid).unwrap();
    grid
}

#[test]
fn media_bind_to_shapes_and_the_sensor() {
    let dir = tmp();
    let grid = write_vol(&dir.path().join("d.vol"), [4, 3, 2], 1);
    let s = scene_in(
        dir.path(),
        r#"<medium type="homogeneous" id="fog">
  <rgb name="sigma_t" value="1 2 3"/><rgb name="albedo" value="0.9 0.8 0.7"/><float name="scale" value="0.5"/>
  <phase type="hg"><float name="g" value="0.3"/></phase>
</medium>
<sensor type="perspective"><ref id="fog"/></sensor>
<shape type="cube" id="box"><bsdf type="null"/><ref name="interior" id="fog"/></shape>
<shape type="sphere" id="ball"><bsdf type="null"/>
  <medium type="heterogeneous" name="interior">
    <volume type="gridvolume" name="sigma_t"><string name="filename" value="d.vol"/>
      <transform name="to_world"><scale value="2"/><translate x="-1"/></transform></volume>
    <float name="scale" value="4"/>
    <phase type="isotropic"/>
  </medium>
  <ref name="exterior" id="fog"/>
</shape>
<shape type="rectangle" id="plain"/>"#,
    );
    assert!(s.warnings.iter().all(|w| !w.contains("ignored")), "{:?}", s.warnings);
    // The near_clip warning below, and: no volpath integrator (Mitsuba's default `path`
    // ignores media).
    assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
    assert!(s.warnings.iter().any(|w| w.contains("Mitsuba's 'path' integrator ignores")), "{:?}", s.warnings);
    assert_eq!(s.media.len(), 2);
    let fog = &s.media[0];
    assert_eq!(fog.density, MediumDensity::Homogeneous { sigma_t: Vec3::new(0.5, 1.0, 1.5) });
    assert_eq!(fog.albedo, MediumAlbedo::Constant(Vec3::new(0.9, 0.8, 0.7)));
    assert_eq!(fog.g, 0.3);
    let cloud = &s.media[1];
    assert_eq!(cloud.name, "ball/interior");
    match &cloud.density {
        MediumDensity::Grid { density, scale } => {
            assert_eq!(**density, grid);
            assert_eq!(*scale, 4.0);
        }
        other => panic!("{other:?}"),
    }
    // Mitsuba's heterogeneous default albedo.
    assert_eq!(cloud.albedo, MediumAlbedo::Constant(Vec3::splat(0.75)));
    assert_eq!(cloud.g, 0.0);
    let want = Mat4::from_translation(Vec3::new(-1.0, 0.0, 0.0)) * Mat4::from_scale(Vec3::splat(2.0));
    assert!(cloud.to_world.abs_diff_eq(want, 1e-6), "{}", cloud.to_world);
    assert_eq!(s.camera_medium, Some(0));
    let media_of = |mesh: &str| {
        let m = s.meshes.iter().find(|m| m.name == mesh).unwrap();
        s.triangle_media[m.first_triangle as usize]
    };
    assert_eq!(media_of("box"), interface::pack(Some(0), None));
    assert_eq!(media_of("ball"), interface::pack(Some(1), Some(0)));
    assert_eq!(media_of("plain"), 0);
    // The sensor sits in fog (σ_t up to 1.5) with Mitsuba's default near_clip 0.01: Mitsuba
    // skips 1.5% of the fog's extinction there.
    assert!(s.warnings.iter().any(|w| w.contains("near_clip = 0.01") && w.contains("1.49%")), "{:?}", s.warnings);
    // Mitsuba's defaults: sigma_t 1, albedo 0.75, isotropic; hg's g 0.8.
    let s = scene_in(
        dir.path(),
        r#"<shape type="cube"><medium type="homogeneous" name="interior"><phase type="hg"/></medium></shape>"#,
    );
    assert_eq!(s.media[0].density, MediumDensity::Homogeneous { sigma_t: Vec3::ONE });
    assert_eq!(s.media[0].albedo, MediumAlbedo::Constant(Vec3::splat(0.75)));
    assert_eq!(s.media[0].g, 0.8);
}

#[test]
fn what_warpaths_media_cannot_express_is_an_error_at_its_line() {
    let dir = tmp();
    let d = dir.path();
    write_vol(&d.join("rgb.vol"), [2, 2, 2], 3);
    write_vol(&d.join("a.vol"), [2, 2, 2], 1);
    let vol = |name: &str, file: &str, extra: &str| {
        format!(r#"<volume type="gridvolume" name="{name}"><string name="filename" value="{file}"/>{extra}</volume>"#)
    };
    assert_error_at(
        d,
        &format!("<medium type=\"heterogeneous\" id=\"m\">\n{}</medium>", vol("sigma_t", "rgb.vol", "")),
        2,
        "RGB sigma_t grid",
    );
    assert_error_at(
        d,
        &format!(
            "<medium type=\"heterogeneous\" id=\"m\">\n{}{}</medium>",
            vol("sigma_t", "a.vol", ""),
            vol("albedo", "a.vol", "<transform name=\"to_world\"><scale value=\"2\"/></transform>")
        ),
        2,
        "placed apart",
    );
    assert_error_at(d, "<medium type=\"homogeneous\" id=\"m\">\n<phase type=\"rayleigh\"/></medium>", 3, "'rayleigh'");
    assert_error_at(
        d,
        "<medium type=\"homogeneous\" id=\"m\">\n<phase type=\"hg\"><float name=\"g\" value=\"1\"/></phase></medium>",
        3,
        "strictly between",
    );
    assert_error_at(d, "<shape type=\"cube\">\n<ref name=\"interior\" id=\"nothing\"/></shape>", 3, "names no medium");
    assert_error_at(d, "<shape type=\"cube\">\n<medium type=\"homogeneous\"/></shape>", 3, "needs name=\"interior\"");
    assert_error_at(d, "<medium type=\"homogeneous\">\n<rgb name=\"albedo\" value=\"2\"/></medium>", 2, "albedo");
    assert_error_at(
        d,
        &format!("<medium type=\"homogeneous\" id=\"m\">\n{}</medium>", vol("sigma_t", "a.vol", "")),
        2,
        "use 'heterogeneous'",
    );
    // A truncated .vol: the filename's line, and the file.
    let bytes = std::fs::read(d.join("a.vol")).unwrap();
    std::fs::write(d.join("cut.vol"), &bytes[..bytes.len() - 5]).unwrap();
    assert_error_at(
        d,
        "<medium type=\"heterogeneous\" id=\"m\"><volume type=\"gridvolume\" name=\"sigma_t\">\n<string name=\"filename\" value=\"cut.vol\"/></volume></medium>",
        3,
        "cut.vol",
    );
}

#[test]
fn the_fuzz_seed_scene_uses_the_new_plugins() {
    // tests/fuzz/seeds/scene.xml reaches the instancing, serialized, checkerboard and media
    // code, so the loader fuzz harness mutates them.
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/seeds");
    let s =
        warpath_scene::mitsuba_xml::load_mitsuba_xml(&seeds.join("scene.xml"), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.meshes.iter().any(|m| m.name.contains('/')), "no instance");
    assert!(!s.media.is_empty() && !s.textures.is_empty());
    assert!(s.meshes.iter().any(|m| m.name == "serialized"));
}

#[test]
fn mitsuba_reads_the_seed_serialized_file_as_warpath_does() {
    // What Mitsuba 3.9 (scalar_rgb) loaded from tests/fuzz/seeds/mesh.serialized
    // (`mi.load_dict({'type': 'serialized', 'filename': ..., 'shape_index': 1})`): the
    // tetrahedron's faces and the vertex normals it computed, the file holding none.
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/seeds");
    let bytes = std::fs::read(seeds.join("mesh.serialized")).unwrap();
    let quad = parse_serialized(&bytes, 0).unwrap().mesh;
    assert_eq!(quad.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    assert_eq!(quad.uvs, vec![Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y]);
    let tet = parse_serialized(&bytes, 1).unwrap().mesh;
    assert_eq!(tet.triangles, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]);
    let (a, b, c) = (-0.577_350_26, 0.921_024_44, -0.275_421_47);
    let mitsuba = [Vec3::splat(a), Vec3::new(b, c, c), Vec3::new(c, b, c), Vec3::new(c, c, b)];
    for (got, want) in angle_weighted_normals(&tet).iter().zip(mitsuba) {
        assert!(got.distance(want) < 1e-6, "{got} vs Mitsuba's {want}");
    }
}

#[test]
fn use_grid_bbox_places_the_grid_by_the_files_box() {
    // The .vol's box (1, 0, -1) .. (2, 1, 2) inside to_world = T(0, 5, 0) · S(2): Mitsuba 3.9
    // reported the volume's bounds as (2, 5, -2) .. (4, 7, 4) for this file and transform.
    let dir = tmp();
    let grid = VolumeGrid::new([2, 3, 4], 1, (0..24).map(|v| v as f32).collect()).unwrap();
    let mut bytes = warpath_volume::vol::vol_bytes(&grid);
    for (k, v) in [1.0f32, 0.0, -1.0, 2.0, 1.0, 2.0].iter().enumerate() {
        bytes[24 + 4 * k..28 + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    std::fs::write(dir.path().join("box.vol"), bytes).unwrap();
    let s = scene_in(
        dir.path(),
        r#"<medium type="heterogeneous" id="m"><volume type="gridvolume" name="sigma_t">
  <string name="filename" value="box.vol"/><boolean name="use_grid_bbox" value="true"/>
  <transform name="to_world"><scale value="2"/><translate y="5"/></transform></volume></medium>"#,
    );
    let m = &s.media[0];
    let (lo, hi) = (m.to_world.transform_point3(Vec3::ZERO), m.to_world.transform_point3(Vec3::ONE));
    assert!(lo.distance(Vec3::new(2.0, 5.0, -2.0)) < 1e-5 && hi.distance(Vec3::new(4.0, 7.0, 4.0)) < 1e-5, "{lo} {hi}");
}

#[test]
fn instanced_shapes_keep_their_media() {
    let dir = tmp();
    let s = scene_in(
        dir.path(),
        r#"<integrator type="volpath"/>
<medium type="homogeneous" id="fog"><float name="sigma_t" value="0.5"/></medium>
<shape type="shapegroup" id="g">
  <shape type="cube" id="box"><bsdf type="null"/><ref name="interior" id="fog"/></shape>
  <shape type="rectangle" id="card"/>
</shape>
<shape type="instance" id="one"><ref id="g"/></shape>
<shape type="instance" id="two"><ref id="g"/><transform name="to_world"><translate x="3"/></transform></shape>"#,
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.media.len(), 1, "one medium, shared by the instances");
    for mesh in &s.meshes {
        let want = if mesh.name.ends_with("/box") { interface::pack(Some(0), None) } else { 0 };
        let range = mesh.first_triangle as usize..(mesh.first_triangle + mesh.triangle_count) as usize;
        assert!(s.triangle_media[range].iter().all(|&m| m == want), "{}", mesh.name);
    }
    assert_eq!(s.meshes.len(), 4);
}
