//! `warpath export-mitsuba SCENE --out DIR`: the scene exactly as warpath loaded it, written
//! as a Mitsuba 3 scene, so that the peer renderer (docs/mitsuba.md) renders the same
//! triangles, materials, media and grids — generated grids and transfer functions included.
//!
//! `DIR/scene.json` is a Mitsuba 3 scene dictionary as plain JSON (what `mi.load_dict` takes
//! once `scripts/mitsuba-render.py` has turned the nested-list matrices into transforms and
//! the file names, relative to DIR, into paths). Beside it:
//! - `mesh-NNN.ply`: binary PLY meshes in world space, one per (material, medium interface)
//!   group of triangles (a material carries its emission), with the scene's shading normals
//!   when it has them (else Mitsuba's face normals, as warpath shades) and its texture
//!   coordinates (v turned to Mitsuba's: 1 − v);
//! - `normal-texture-N.exr`: normal maps, read raw by a `bitmap` in a `normalmap` BSDF
//!   wrapped around the material's (outside its `twosided`);
//! - `medium-N-density.vol`, `medium-N-albedo.vol`: the grids of grid media
//!   (`warpath_volume::vol::write_vol`; the medium's `to_world` becomes the `gridvolume`'s,
//!   its `scale` Mitsuba's `scale`);
//! - `environment.exr`: an environment map as warpath holds it (negative texels clamped).
//!
//! The translation (Mitsuba's names): media → `heterogeneous` (grid) or `homogeneous`, phase
//! `isotropic` when g = 0 else `hg` (both put g > 0 forward); `null` → `null`; diffuse →
//! `diffuse` inside `twosided` unless `one_sided` (warpath's opaque BSDFs are two-sided by
//! default); black → a `diffuse` of reflectance 0; glass → `dielectric`, rough dielectric →
//! `roughdielectric` (GGX, α = warpath's `ggx_alpha(roughness)`), `int_ior` = ior, `ext_ior`
//! = 1, the tint as `specular_transmittance`; a mirror of reflectance 1 → `conductor` and a
//! rough conductor of reflectance 1 → `roughconductor`, both `material = "none"` (Mitsuba has
//! no Schlick Fresnel, so other reflectances are errors); one-sided emission → `area`;
//! `constant` and `envmap` environments; the camera → `perspective`/`thinlens` with its
//! medium; the integrator → `volpath` with `max_depth` = warpath's + 1 (−1 when unlimited)
//! and `rr_depth` = `max_depth`, so that Mitsuba's roulette never fires (warpath's is on the
//! path weight; both are unbiased). Normal maps → `normalmap`, bump maps → `bumpmap` (around
//! the `twosided` adapter), roughness and metallic textures → the BSDF's `alpha`
//! (α per texel), `roughness` and `metallic` as raw EXR bitmaps. Whatever Mitsuba cannot express (base-color textures, Blinn, car
//! paint, two-sided emission, Schlick reflectances) is an error that names the material.

mod normal_maps;

use anyhow::{Context, Result, bail};
use glam::{Mat4, Vec3};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use warpath_core::bsdf::ggx_alpha;
use warpath_core::camera::FovAxis;
use warpath_core::light::Environment;
use warpath_core::material::{Material, MaterialKind};
use warpath_scene::{Scene, UNLIMITED_DEPTH};
use warpath_volume::medium::interface;
use warpath_volume::{Medium, MediumAlbedo, MediumDensity, VolumeGrid};

#[derive(clap::Args, Clone, Debug)]
pub struct ExportMitsubaArgs {
    /// A built-in scene name or a path to a .toml scene or a mesh.
    pub scene: String,
    /// Folder to write scene.json and its meshes, grids and maps into (created if needed).
    #[arg(long)]
    pub out: PathBuf,
    /// Samples per pixel for the sensor's sampler [default: the scene's].
    #[arg(long)]
    pub spp: Option<u32>,
    /// Maximum number of bounces, warpath's count (Mitsuba's max_depth = this + 1)
    /// [default: the scene's].
    #[arg(long)]
    pub max_depth: Option<u32>,
    /// Image size as WIDTHxHEIGHT [default: the scene's].
    #[arg(long, value_parser = crate::parse_resolution)]
    pub resolution: Option<(u32, u32)>,
}

/// The command: load, export, report.
pub fn run(args: &ExportMitsubaArgs) -> Result<()> {
    let mut scene = warpath_scene::load(&args.scene).map_err(anyhow::Error::new)?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(spp) = args.spp {
        scene.settings.spp = spp;
    }
    if let Some(d) = args.max_depth {
        scene.settings.max_depth = d;
    }
    if let Some((w, h)) = args.resolution {
        scene.settings.width = w;
        scene.settings.height = h;
    }
    let files = export(&scene, &args.out)?;
    eprintln!(
        "exported '{}' to {} ({} files: {})",
        scene.name,
        args.out.join("scene.json").display(),
        files.len(),
        files.join(", ")
    );
    Ok(())
}

/// Writes `scene` into `dir` (scene.json and the files it names) and returns the names of
/// the files written, scene.json last.
pub fn export(scene: &Scene, dir: &Path) -> Result<Vec<String>> {
    if let Some(iso) = scene.isosurfaces.first() {
        bail!(
            "isosurface '{}': Mitsuba 3 has no isosurface shape (extract a mesh of the level set to compare)",
            iso.name
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create folder {}", dir.display()))?;
    let mut files = Vec::new();
    let dict = scene_dict(scene, dir, &mut files)?;
    let text = serde_json::to_string_pretty(&dict)?;
    let path = dir.join("scene.json");
    std::fs::write(&path, text + "\n").with_context(|| format!("cannot write {}", path.display()))?;
    files.push("scene.json".to_string());
    Ok(files)
}

/// A JSON number for an `f32`, through its shortest decimal form (so 0.3 is written 0.3, and
/// reads back as the same `f32`).
fn num(x: f32) -> Result<Value> {
    if !x.is_finite() {
        bail!("cannot export the non-finite value {x}");
    }
    Ok(json!(format!("{x}").parse::<f64>()?))
}

fn rgb(c: Vec3) -> Result<Value> {
    Ok(json!({"type": "rgb", "value": [num(c.x)?, num(c.y)?, num(c.z)?]}))
}

/// A 4×4 matrix as four rows (Mitsuba's `ScalarTransform4f(list)` reads rows).
fn matrix(m: &Mat4) -> Result<Value> {
    let rows = m.transpose().to_cols_array_2d();
    rows.iter().map(|r| r.iter().map(|&v| num(v)).collect::<Result<Vec<_>>>().map(Value::from)).collect()
}

fn medium_id(index: u32) -> String {
    format!("medium-{index}")
}

fn medium_ref(index: u32) -> Value {
    json!({"type": "ref", "id": medium_id(index)})
}

/// Letters, digits, '-' and '_' of a name (for dictionary keys and ids).
fn sanitized(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

fn scene_dict(scene: &Scene, dir: &Path, files: &mut Vec<String>) -> Result<Value> {
    let mut dict = Map::new();
    dict.insert("type".into(), json!("scene"));
    dict.insert("integrator".into(), integrator(scene.settings.max_depth));
    dict.insert("sensor".into(), sensor(scene)?);
    for (i, medium) in scene.media.iter().enumerate() {
        let value = medium_dict(medium, i as u32, dir, files)
            .with_context(|| format!("medium '{}' cannot be exported to Mitsuba", medium.name))?;
        dict.insert(medium_id(i as u32), value);
    }
    if let Some(env) = environment(scene, dir, files)? {
        dict.insert("environment".into(), env);
    }
    for (i, light) in scene.delta_lights.iter().enumerate() {
        dict.insert(format!("light-{i}"), delta_light(light)?);
    }
    for (key, shape) in shapes(scene, dir, files)? {
        dict.insert(key, shape);
    }
    Ok(Value::Object(dict))
}

/// `volpath`: Mitsuba counts path vertices (max_depth = bounces + 1); its roulette starts
/// after `rr_depth` vertices, so `rr_depth = max_depth` turns it off. Without a depth limit
/// Mitsuba keeps its default roulette (from depth 5), or lossless paths would never end.
fn integrator(max_depth: u32) -> Value {
    if max_depth == UNLIMITED_DEPTH || max_depth >= warpath_cpu::volpath::MAX_VOLUME_DEPTH {
        json!({"type": "volpath", "max_depth": -1})
    } else {
        let depth = max_depth as i64 + 1;
        json!({"type": "volpath", "max_depth": depth, "rr_depth": depth})
    }
}

fn sensor(scene: &Scene) -> Result<Value> {
    let camera = &scene.camera;
    let s = &scene.settings;
    let fov_axis = match camera.fov_axis {
        FovAxis::X => "x",
        FovAxis::Y => "y",
        FovAxis::Smaller => "smaller",
        FovAxis::Larger => "larger",
    };
    // Mitsuba starts camera rays near_clip in front of the camera (default 0.01), which would
    // skip that much of a medium around the camera, and ends them at far_clip (default
    // 10^4): make the one negligible and the other far beyond the scene.
    let bounds = scene.bounds();
    let mut extent = (camera.position() - bounds.center()).length() + bounds.extent().length();
    if !extent.is_finite() {
        extent = 1.0;
    }
    let extent = extent.max(1.0);
    let mut sensor = Map::new();
    sensor.insert("type".into(), json!(if camera.aperture_radius > 0.0 { "thinlens" } else { "perspective" }));
    sensor.insert("fov".into(), num(camera.fov_degrees)?);
    sensor.insert("fov_axis".into(), json!(fov_axis));
    sensor.insert("near_clip".into(), num(1e-6 * extent)?);
    sensor.insert("far_clip".into(), num(1e4 * extent)?);
    sensor.insert("to_world".into(), matrix(&camera.to_world)?);
    if camera.aperture_radius > 0.0 {
        sensor.insert("aperture_radius".into(), num(camera.aperture_radius)?);
        sensor.insert("focus_distance".into(), num(camera.focus_distance)?);
    }
    sensor.insert(
        "film".into(),
        json!({
            "type": "hdrfilm", "width": s.width, "height": s.height, "rfilter": {"type": "box"},
            "pixel_format": "rgb", "component_format": "float32",
        }),
    );
    sensor.insert("sampler".into(), json!({"type": "independent", "sample_count": s.spp}));
    if let Some(m) = scene.camera_medium {
        sensor.insert("medium".into(), medium_ref(m));
    }
    Ok(Value::Object(sensor))
}

fn phase(g: f32) -> Result<Value> {
    Ok(if g == 0.0 { json!({"type": "isotropic"}) } else { json!({"type": "hg", "g": num(g)?}) })
}

fn write_grid(grid: &VolumeGrid, name: String, dir: &Path, files: &mut Vec<String>) -> Result<String> {
    warpath_volume::vol::write_vol(&dir.join(&name), grid)?;
    files.push(name.clone());
    Ok(name)
}

fn medium_dict(medium: &Medium, index: u32, dir: &Path, files: &mut Vec<String>) -> Result<Value> {
    let albedo = |files: &mut Vec<String>| -> Result<Value> {
        match &medium.albedo {
            MediumAlbedo::Constant(a) => rgb(*a),
            MediumAlbedo::Grid(grid) => {
                let name = write_grid(grid, format!("medium-{index}-albedo.vol"), dir, files)?;
                Ok(json!({"type": "gridvolume", "filename": name, "to_world": matrix(&medium.to_world)?}))
            }
        }
    };
    Ok(match &medium.density {
        MediumDensity::Homogeneous { sigma_t } => {
            if matches!(medium.albedo, MediumAlbedo::Grid(_)) {
                bail!("a homogeneous medium with an albedo grid has no Mitsuba `homogeneous` counterpart");
            }
            // Mitsuba reads a constant `sigma_t` as a reflectance-like RGB, which must lie in
            // [0, 1]: a gray σ_t goes in as a number, a coloured one divided by its largest
            // channel, which becomes `scale`.
            let (sigma_t, scale) = if sigma_t.x == sigma_t.y && sigma_t.y == sigma_t.z {
                (num(sigma_t.x)?, 1.0)
            } else {
                let largest = sigma_t.max_element();
                let scale = if largest > 1.0 { largest } else { 1.0 };
                (rgb(*sigma_t / scale)?, scale)
            };
            json!({
                "type": "homogeneous",
                "sigma_t": sigma_t,
                "scale": num(scale)?,
                "albedo": albedo(files)?,
                "phase": phase(medium.g)?,
            })
        }
        MediumDensity::Grid { density, scale } => {
            let name = write_grid(density, format!("medium-{index}-density.vol"), dir, files)?;
            json!({
                "type": "heterogeneous",
                "sigma_t": {"type": "gridvolume", "filename": name, "to_world": matrix(&medium.to_world)?},
                "scale": num(*scale)?,
                "albedo": albedo(files)?,
                "phase": phase(medium.g)?,
            })
        }
    })
}

fn environment(scene: &Scene, dir: &Path, files: &mut Vec<String>) -> Result<Option<Value>> {
    Ok(match &scene.environment {
        Environment::None => None,
        Environment::Constant(c) => Some(json!({"type": "constant", "radiance": rgb(*c)?})),
        Environment::Map(map) => {
            let name = "environment.exr".to_string();
            crate::output::write_image(&dir.join(&name), map.width, map.height, &map.pixels, 0.0, None)?;
            files.push(name.clone());
            Some(json!({
                "type": "envmap",
                "filename": name,
                "scale": num(map.scale)?,
                "to_world": matrix(&Mat4::from_mat3(map.to_world))?,
            }))
        }
    })
}

/// Mitsuba's `point`, `spot` or `directional` emitter for a delta light (the same units).
fn delta_light(l: &warpath_core::light::DeltaLight) -> Result<Value> {
    use warpath_core::light::delta_kind;
    let xyz = |v: Vec3| -> Result<Value> { Ok(json!([num(v.x)?, num(v.y)?, num(v.z)?])) };
    Ok(match l.kind {
        delta_kind::POINT => json!({"type": "point", "position": xyz(l.position)?, "intensity": rgb(l.intensity)?}),
        delta_kind::SPOT => {
            // A right-handed frame whose +z is the axis, at the light's position.
            let z = l.direction;
            let x = if z.x.abs() < 0.9 { Vec3::X } else { Vec3::Y }.cross(z).normalize();
            let y = z.cross(x);
            let to_world = Mat4::from_cols(x.extend(0.0), y.extend(0.0), z.extend(0.0), l.position.extend(1.0));
            json!({
                "type": "spot",
                "to_world": matrix(&to_world)?,
                "intensity": rgb(l.intensity)?,
                "cutoff_angle": num(l.cutoff.to_degrees())?,
                "beam_width": num(l.cos_beam.clamp(-1.0, 1.0).acos().to_degrees())?,
            })
        }
        _ => json!({"type": "directional", "direction": xyz(l.direction)?, "irradiance": rgb(l.intensity)?}),
    })
}

/// The Mitsuba `distribution` of a rough material.
fn distribution(m: &Material) -> &'static str {
    if m.beckmann() { "beckmann" } else { "ggx" }
}

/// Mitsuba's BSDF for a warpath material, or why there is none.
pub fn bsdf(m: &Material) -> Result<Value> {
    if m.base_color_texture >= 0 {
        bail!("textures are not exported");
    }
    let opaque = |inner: Value| if m.one_sided() { inner } else { json!({"type": "twosided", "bsdf": inner}) };
    let transmittance = |b: &mut Value| -> Result<()> {
        if m.specular != Vec3::ONE {
            b["specular_transmittance"] = rgb(m.specular)?;
        }
        Ok(())
    };
    Ok(match m.kind() {
        MaterialKind::Null => json!({"type": "null"}),
        MaterialKind::Diffuse => opaque(json!({"type": "diffuse", "reflectance": rgb(m.base_color)?})),
        MaterialKind::Black => json!({"type": "diffuse", "reflectance": rgb(Vec3::ZERO)?}),
        MaterialKind::Plastic => {
            let mut b = json!({
                "type": "plastic", "diffuse_reflectance": rgb(m.base_color)?,
                "specular_reflectance": rgb(m.specular)?, "int_ior": num(m.ior)?, "ext_ior": 1.0,
                "nonlinear": m.flags & warpath_core::material::flags::NONLINEAR != 0,
            });
            if m.roughness > 0.0 {
                b["type"] = json!("roughplastic");
                b["distribution"] = json!(distribution(m));
                b["alpha"] = num(ggx_alpha(m.roughness))?;
            }
            opaque(b)
        }
        MaterialKind::Principled => {
            let b = json!({
                "type": "principled", "base_color": rgb(m.base_color)?, "roughness": num(m.roughness)?,
                "metallic": num(m.metallic)?, "eta": num(m.ior)?, "spec_tint": num(m.spec_tint)?,
                "sheen": num(m.sheen)?, "sheen_tint": num(m.sheen_tint)?, "clearcoat": num(m.clearcoat)?,
                "clearcoat_gloss": num(m.clearcoat_gloss)?, "spec_trans": num(m.spec_trans)?,
                "flatness": num(m.flatness)?,
            });
            // Mitsuba's twosided adapter is for opaque BSDFs only.
            if warpath_core::bsdf::is_transmissive(m) { b } else { opaque(b) }
        }
        MaterialKind::Glass => {
            let mut b = json!({"type": "dielectric", "int_ior": num(m.ior)?, "ext_ior": 1.0});
            transmittance(&mut b)?;
            b
        }
        MaterialKind::RoughDielectric => {
            let mut b = json!({
                "type": "roughdielectric", "distribution": distribution(m), "alpha": num(ggx_alpha(m.roughness))?,
                "int_ior": num(m.ior)?, "ext_ior": 1.0,
            });
            transmittance(&mut b)?;
            b
        }
        MaterialKind::ThinDielectric => {
            let mut b = json!({"type": "thindielectric", "int_ior": num(m.ior)?, "ext_ior": 1.0});
            transmittance(&mut b)?;
            b
        }
        MaterialKind::Mirror if m.has_conductor_eta_k() => opaque(json!({
            "type": "conductor", "eta": rgb(m.conductor_eta())?, "k": rgb(m.conductor_k())?,
            "specular_reflectance": rgb(m.base_color)?,
        })),
        MaterialKind::RoughConductor if m.has_conductor_eta_k() => opaque(json!({
            "type": "roughconductor", "eta": rgb(m.conductor_eta())?, "k": rgb(m.conductor_k())?,
            "specular_reflectance": rgb(m.base_color)?, "distribution": distribution(m),
            "alpha": num(ggx_alpha(m.roughness))?,
        })),
        MaterialKind::Mirror => {
            if m.specular != Vec3::ONE {
                bail!(
                    "a mirror of reflectance {} (Schlick Fresnel) has no Mitsuba counterpart: only reflectance 1 \
                     (Mitsuba's conductor with material = \"none\") is exported",
                    m.specular
                );
            }
            opaque(json!({"type": "conductor", "material": "none"}))
        }
        MaterialKind::RoughConductor => {
            if m.base_color != Vec3::ONE {
                bail!(
                    "a rough conductor of reflectance {} (Schlick Fresnel) has no Mitsuba counterpart: only \
                     reflectance 1 (Mitsuba's roughconductor with material = \"none\") is exported",
                    m.base_color
                );
            }
            opaque(json!({
                "type": "roughconductor", "material": "none", "distribution": distribution(m),
                "alpha": num(ggx_alpha(m.roughness))?,
            }))
        }
        MaterialKind::Blinn | MaterialKind::CarPaint => {
            bail!("the {:?} BSDF has no Mitsuba counterpart", m.kind())
        }
    })
}

/// The scene's triangles grouped by (material, medium interface), one PLY shape each.
fn shapes(scene: &Scene, dir: &Path, files: &mut Vec<String>) -> Result<Vec<(String, Value)>> {
    let mut groups: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
    for (t, &m) in scene.triangle_materials.iter().enumerate() {
        groups.entry((m, scene.triangle_medium_interface(t))).or_default().push(t);
    }
    let mut out = Vec::new();
    for (g, ((material_index, packed), triangles)) in groups.into_iter().enumerate() {
        let material = &scene.materials[material_index as usize];
        let material_name = scene.material_names.get(material_index as usize).map_or("", |s| s.as_str());
        let context = || format!("material '{material_name}' cannot be exported to Mitsuba");
        let mut shape = Map::new();
        shape.insert("type".into(), json!("ply"));
        let name = format!("mesh-{g:03}.ply");
        write_ply(scene, &triangles, &dir.join(&name))?;
        files.push(name.clone());
        shape.insert("filename".into(), json!(name));
        shape.insert("face_normals".into(), json!(scene.normals.is_empty()));
        let mut material_bsdf = bsdf(material).with_context(context)?;
        material_bsdf = normal_maps::data_textures(scene, material, material_bsdf, dir, files)?;
        if material.normal_texture >= 0 {
            material_bsdf = normal_maps::normal_map(scene, material.normal_texture, material_bsdf, dir, files)?;
        } else if material.bump_texture >= 0 {
            material_bsdf = normal_maps::bump_map(scene, material, material_bsdf, dir, files)?;
        }
        if material.is_masked() && !material.is_null() {
            material_bsdf = normal_maps::mask(scene, material, material_bsdf, dir, files)?;
        }
        shape.insert("bsdf".into(), material_bsdf);
        if material.is_emissive() {
            if material.two_sided_emission() {
                return Err(anyhow::anyhow!("two-sided emission: Mitsuba's area emitter is one-sided"))
                    .with_context(context);
            }
            shape.insert("emitter".into(), json!({"type": "area", "radiance": rgb(material.emission)?}));
        }
        if interface::is_transition(packed) {
            let (interior, exterior) = interface::unpack(packed);
            if let Some(m) = interior {
                shape.insert("interior".into(), medium_ref(m));
            }
            if let Some(m) = exterior {
                shape.insert("exterior".into(), medium_ref(m));
            }
        }
        out.push((format!("shape-{g:03}-{}", sanitized(material_name)), Value::Object(shape)));
    }
    Ok(out)
}

/// Writes the given triangles of `scene` as a binary little-endian PLY (world space, the
/// vertices they use, with normals and texture coordinates when the scene has them).
pub fn write_ply(scene: &Scene, triangles: &[usize], path: &Path) -> Result<()> {
    let mut index: HashMap<u32, u32> = HashMap::new();
    let mut vertices: Vec<u32> = Vec::new();
    let mut faces: Vec<[u32; 3]> = Vec::with_capacity(triangles.len());
    for &t in triangles {
        faces.push(scene.triangles[t].map(|v| {
            *index.entry(v).or_insert_with(|| {
                vertices.push(v);
                vertices.len() as u32 - 1
            })
        }));
    }
    let normals = !scene.normals.is_empty();
    let mut header = format!(
        "ply\nformat binary_little_endian 1.0\ncomment warpath export-mitsuba\nelement vertex {}\n\
         property float x\nproperty float y\nproperty float z\n",
        vertices.len()
    );
    if normals {
        header += "property float nx\nproperty float ny\nproperty float nz\n";
    }
    // Mitsuba's uv has v = 0 at an image's top row, warpath's v = 1.
    let uvs = !scene.uvs.is_empty();
    if uvs {
        header += "property float u\nproperty float v\n";
    }
    header += &format!("element face {}\nproperty list uchar int vertex_indices\nend_header\n", faces.len());
    let mut bytes = header.into_bytes();
    for &v in &vertices {
        let mut values = scene.positions[v as usize].to_array().to_vec();
        if normals {
            values.extend_from_slice(&scene.normals[v as usize].to_array());
        }
        if uvs {
            let uv = scene.uvs[v as usize];
            values.extend_from_slice(&[uv.x, 1.0 - uv.y]);
        }
        for x in values {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    for f in &faces {
        bytes.push(3);
        for &i in f {
            bytes.extend_from_slice(&(i as i32).to_le_bytes());
        }
    }
    let mut file = std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(&bytes).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests;
