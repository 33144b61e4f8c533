//! The native TOML scene format (reference: `docs/scene-format.md`), and [`load_any`],
//! which opens a `.toml` scene or a bare mesh file. Meshes are placed by
//! [`crate::mesh::SceneBuilder`]; mesh files are read through [`crate::mesh_file`].
//!
//! Every error names the file and, for TOML, the line: syntax errors from toml's byte
//! spans, semantic errors (unknown names and types, missing files, absurd values) from
//! the span of the offending key or table.

use crate::builtin;
use crate::image_io::{load_base_color_texture, load_image, repair_pixels};
use crate::mesh::{DEFAULT_ALBEDO, MeshAsset, SceneBuilder, framing_camera};
use crate::mesh_file::{MESH_EXTENSIONS, is_mesh_file, load_mesh_file, load_mesh_scene, lower_name};
use crate::scene::{MAX_DEPTH, MAX_RESOLUTION, MAX_SPP};
use crate::{RenderSettings, Scene, SceneError, SceneIsosurface};
use glam::{Mat3, Mat4, Vec3};
use serde::Deserialize;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use toml::Spanned;
use warpath_core::camera::{Camera, FovAxis};
use warpath_core::light::{EnvMap, Environment};
use warpath_core::material::{Material, flags};
use warpath_core::sampler::SamplerKind;
use warpath_volume::medium::interface;

mod medium_section;

pub use crate::scene::UNLIMITED_DEPTH;

/// Opens a `.toml` scene, or a bare mesh file as a scene (see
/// [`crate::mesh_file::load_mesh_scene`]).
pub fn load_any(path: &Path) -> Result<Scene, SceneError> {
    if lower_name(path).ends_with(".toml") {
        return load_toml_scene(path);
    }
    load_mesh_scene(path)
}

/// A number (gray) or an `[r, g, b]` / `[x, y, z]` triple.
#[derive(Clone, Copy, Debug)]
struct Triple(Vec3);

impl<'de> Deserialize<'de> for Triple {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TripleVisitor;
        impl<'de> serde::de::Visitor<'de> for TripleVisitor {
            type Value = Triple;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or an array of three numbers")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Triple, E> {
                Ok(Triple(Vec3::splat(v as f32)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Triple, E> {
                Ok(Triple(Vec3::splat(v as f32)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Triple, E> {
                Ok(Triple(Vec3::splat(v as f32)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Triple, A::Error> {
                let mut values = Vec::new();
                while let Some(v) = seq.next_element::<f64>()? {
                    values.push(v as f32);
                }
                if values.len() != 3 {
                    return Err(serde::de::Error::invalid_length(values.len(), &self));
                }
                Ok(Triple(Vec3::new(values[0], values[1], values[2])))
            }
        }
        deserializer.deserialize_any(TripleVisitor)
    }
}

type Matrix4 = [[f32; 4]; 4];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneFile {
    render: Option<Spanned<RenderSection>>,
    camera: Option<Spanned<CameraSection>>,
    #[serde(default)]
    material: Vec<Spanned<MaterialSection>>,
    #[serde(default)]
    shape: Vec<Spanned<ShapeSection>>,
    #[serde(default)]
    medium: Vec<Spanned<medium_section::MediumSection>>,
    environment: Option<Spanned<EnvironmentSection>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RenderSection {
    width: Option<Spanned<i64>>,
    height: Option<Spanned<i64>>,
    spp: Option<Spanned<i64>>,
    max_depth: Option<Spanned<i64>>,
    seed: Option<Spanned<i64>>,
    sampler: Option<Spanned<String>>,
    rr_threshold: Option<Spanned<f32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LookAt {
    origin: [f32; 3],
    target: [f32; 3],
    up: Option<[f32; 3]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CameraSection {
    look_at: Option<Spanned<LookAt>>,
    to_world: Option<Spanned<Matrix4>>,
    fov: Option<Spanned<f32>>,
    fov_axis: Option<FovAxis>,
    aperture_radius: Option<Spanned<f32>>,
    focus_distance: Option<Spanned<f32>>,
    /// The medium the camera sits in.
    medium: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialSection {
    name: Spanned<String>,
    #[serde(rename = "type")]
    kind: Spanned<String>,
    base_color: Option<Spanned<Triple>>,
    specular: Option<Spanned<Triple>>,
    exponent: Option<Spanned<f32>>,
    ior: Option<Spanned<f32>>,
    /// Index of refraction outside a dielectric (default 1): the interface's relative index
    /// is ior / exterior_ior (Mitsuba's int_ior / ext_ior).
    exterior_ior: Option<Spanned<f32>>,
    roughness: Option<Spanned<f32>>,
    emission: Option<Spanned<Triple>>,
    two_sided_emission: Option<bool>,
    one_sided: Option<Spanned<bool>>,
    base_color_texture: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Rotate {
    axis: [f32; 3],
    angle: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShapeSection {
    #[serde(rename = "type")]
    kind: Spanned<String>,
    name: Option<String>,
    file: Option<Spanned<String>>,
    material: Option<Spanned<String>>,
    emission: Option<Spanned<Triple>>,
    two_sided_emission: Option<bool>,
    subdivisions: Option<Spanned<i64>>,
    to_world: Option<Spanned<Matrix4>>,
    translate: Option<Spanned<[f32; 3]>>,
    rotate: Option<Spanned<Rotate>>,
    scale: Option<Spanned<Triple>>,
    /// The medium inside the shape (the side its normals point away from).
    interior: Option<Spanned<String>>,
    /// The medium outside the shape (default: vacuum).
    exterior: Option<Spanned<String>>,
    /// Isosurfaces: the scalar volume (a grid as media take it), the isovalue and the
    /// brick size of its min-max tree (default 16 cells).
    volume: Option<Spanned<medium_section::GridSpec>>,
    isovalue: Option<Spanned<f32>>,
    brick_cells: Option<Spanned<i64>>,
    /// Light fields: how many emissive triangles, in how many hues, from which seed, with
    /// edges between light_size[0] and light_size[1].
    count: Option<Spanned<i64>>,
    hues: Option<Spanned<i64>>,
    seed: Option<Spanned<i64>>,
    light_size: Option<Spanned<[f32; 2]>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvironmentSection {
    #[serde(rename = "type")]
    kind: Spanned<String>,
    radiance: Option<Spanned<Triple>>,
    file: Option<Spanned<String>>,
    scale: Option<Spanned<f32>>,
    rotate_y: Option<Spanned<f32>>,
}

/// Maps byte offsets of the scene text to 1-based lines and builds located errors.
struct SourceText<'a> {
    path: &'a Path,
    text: &'a str,
}

impl SourceText<'_> {
    fn line_of(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
    }
    fn error_at(&self, span: Range<usize>, message: impl Into<String>) -> SceneError {
        SceneError::Parse { path: self.path.to_path_buf(), line: self.line_of(span.start), message: message.into() }
    }
    fn resolve(&self, file: &str) -> PathBuf {
        let p = Path::new(file);
        if p.is_absolute() { p.to_path_buf() } else { self.path.parent().unwrap_or(Path::new("")).join(p) }
    }
}

fn toml_error(path: &Path, text: &str, error: toml::de::Error) -> SceneError {
    let source = SourceText { path, text };
    let line = error.span().map(|s| source.line_of(s.start)).unwrap_or(1);
    SceneError::Parse { path: path.to_path_buf(), line, message: error.message().trim().to_string() }
}

/// Loads a native TOML scene file.
pub fn load_toml_scene(path: &Path) -> Result<Scene, SceneError> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            SceneError::NotFound { path: path.to_path_buf(), hint: "scene file not found".into() }
        }
        _ => SceneError::Io { path: path.to_path_buf(), source: e },
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(e.as_bytes());
        let line = text[..offset.min(text.len())].matches('\n').count() + 1;
        SceneError::Parse { path: path.to_path_buf(), line, message: "the file is not valid UTF-8".into() }
    })?;
    parse_toml_scene(&text, path)
}

/// Parses TOML scene text; `path` locates errors and relative file names.
pub fn parse_toml_scene(text: &str, path: &Path) -> Result<Scene, SceneError> {
    let file: SceneFile = toml::from_str(text).map_err(|e| toml_error(path, text, e))?;
    let source = SourceText { path, text };
    let scene_name = path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut builder = SceneBuilder::new(&scene_name);

    let settings = match &file.render {
        Some(render) => render_settings(&source, render.get_ref())?,
        None => RenderSettings::default(),
    };

    // Materials, by name.
    let mut material_ids: HashMap<String, u32> = HashMap::new();
    for section in &file.material {
        let m = section.get_ref();
        let name = m.name.get_ref().clone();
        if name.is_empty() {
            return Err(source.error_at(m.name.span(), "material name is empty"));
        }
        if material_ids.contains_key(&name) {
            return Err(source.error_at(m.name.span(), format!("material '{name}' is defined twice")));
        }
        let mut material = material_from_section(&source, m)?;
        if let Some(file) = &m.base_color_texture {
            let texture_path = source.resolve(file.get_ref());
            if !texture_path.is_file() {
                return Err(source.error_at(
                    file.span(),
                    format!("material '{name}': texture '{}' not found", texture_path.display()),
                ));
            }
            let (texture, warning) = load_base_color_texture(&texture_path)?;
            if let Some(w) = warning {
                builder.warn(w);
            }
            material.base_color_texture = builder.add_texture(texture);
        }
        let id = builder.add_material(&name, material);
        material_ids.insert(name, id);
    }

    // Media, by name.
    let mut medium_ids: HashMap<String, u32> = HashMap::new();
    let mut media = Vec::new();
    for section in &file.medium {
        let name = section.get_ref().name.get_ref().clone();
        let span = section.get_ref().name.span();
        if name.is_empty() {
            return Err(source.error_at(span, "medium name is empty"));
        }
        if medium_ids.contains_key(&name) {
            return Err(source.error_at(span, format!("medium '{name}' is defined twice")));
        }
        if media.len() >= interface::MAX_MEDIA {
            return Err(source.error_at(span, format!("more than {} media", interface::MAX_MEDIA)));
        }
        media.push(medium_section::medium_from_section(&source, section)?);
        medium_ids.insert(name, media.len() as u32 - 1);
    }
    let medium_id = |name: &Spanned<String>| -> Result<u32, SceneError> {
        medium_ids.get(name.get_ref()).copied().ok_or_else(|| {
            let defined = if medium_ids.is_empty() {
                " (no [[medium]] is defined)".to_string()
            } else {
                let mut names: Vec<&str> = medium_ids.keys().map(|s| s.as_str()).collect();
                names.sort();
                format!(" (defined: {})", names.join(", "))
            };
            source.error_at(name.span(), format!("unknown medium '{}'{defined}", name.get_ref()))
        })
    };
    // Per shape, its first mesh and the media its boundary separates.
    let mut shape_interfaces: Vec<(usize, u32)> = Vec::new();

    // Shapes.
    let mut asset_cache: HashMap<PathBuf, (Rc<MeshAsset>, Vec<u32>)> = HashMap::new();
    let mut isosurfaces: Vec<(Range<usize>, SceneIsosurface)> = Vec::new();
    let mut file_camera = None;
    for (shape_index, section) in file.shape.iter().enumerate() {
        let shape = section.get_ref();
        let kind = shape.kind.get_ref().as_str();
        let to_world = shape_transform(&source, shape, section.span())?;
        if shape.interior.is_some() || shape.exterior.is_some() {
            let interior = shape.interior.as_ref().map(&medium_id).transpose()?;
            let exterior = shape.exterior.as_ref().map(&medium_id).transpose()?;
            shape_interfaces.push((builder.mesh_count(), interface::pack(interior, exterior)));
        } else {
            shape_interfaces.push((builder.mesh_count(), 0));
        }
        let shape_name = shape.name.clone().unwrap_or_else(|| format!("{kind}#{shape_index}"));
        let material_override = match &shape.material {
            Some(name) => Some(*material_ids.get(name.get_ref()).ok_or_else(|| {
                source.error_at(name.span(), format!("unknown material '{}'{}", name.get_ref(), known(&material_ids)))
            })?),
            None => None,
        };
        let emission = match &shape.emission {
            Some(e) => Some(check_color(&source, e, "emission", None)?),
            None => None,
        };
        if kind != "sphere" && shape.subdivisions.is_some() {
            return Err(source.error_at(shape.kind.span(), format!("'subdivisions' applies to spheres, not '{kind}'")));
        }
        if kind != "mesh" && shape.file.is_some() {
            return Err(source.error_at(shape.kind.span(), format!("'file' applies to meshes, not '{kind}'")));
        }
        let with_emission = |builder: &mut SceneBuilder, material: u32| -> u32 {
            match emission {
                Some(e) => {
                    let mut m = builder.scene_mut().materials[material as usize].with_emission(e);
                    if shape.two_sided_emission == Some(true) {
                        m.flags |= flags::TWO_SIDED_EMISSION;
                    }
                    let name =
                        format!("{}+emission@{shape_name}", builder.scene_mut().material_names[material as usize]);
                    builder.add_material(&name, m)
                }
                None => material,
            }
        };
        if kind != "isosurface" {
            let stray = [
                shape.volume.as_ref().map(|v| ("volume", v.span())),
                shape.isovalue.as_ref().map(|v| ("isovalue", v.span())),
                shape.brick_cells.as_ref().map(|v| ("brick_cells", v.span())),
            ];
            if let Some((key, span)) = stray.into_iter().flatten().next() {
                return Err(source.error_at(span, format!("'{key}' applies to isosurfaces, not '{kind}'")));
            }
        }
        if kind != "light-field" {
            let stray = [
                shape.count.as_ref().map(|v| ("count", v.span())),
                shape.hues.as_ref().map(|v| ("hues", v.span())),
                shape.seed.as_ref().map(|v| ("seed", v.span())),
                shape.light_size.as_ref().map(|v| ("light_size", v.span())),
            ];
            if let Some((key, span)) = stray.into_iter().flatten().next() {
                return Err(source.error_at(span, format!("'{key}' applies to light fields, not '{kind}'")));
            }
        }
        if kind == "light-field" {
            light_field_shape(&source, shape, section.span(), &shape_name, emission, to_world, &mut builder, path)?;
            continue;
        }
        if kind == "isosurface" {
            let material = match material_override {
                Some(m) => m,
                None => builder.default_material(),
            };
            let iso = isosurface_shape(&source, shape, shape_name, material, to_world, &mut builder)?;
            isosurfaces.push((section.span(), iso));
            continue;
        }
        let primitive = match kind {
            "rectangle" => Some(builtin::rectangle_mesh()),
            "cube" => Some(builtin::cube_mesh()),
            "sphere" => {
                let subdivisions = match &shape.subdivisions {
                    Some(s) if !(0..=8).contains(s.get_ref()) => {
                        return Err(source.error_at(s.span(), "sphere subdivisions must be between 0 and 8"));
                    }
                    Some(s) => *s.get_ref() as u32,
                    None => 4,
                };
                Some(builtin::sphere_mesh(subdivisions))
            }
            "mesh" => None,
            other => {
                return Err(source.error_at(
                    shape.kind.span(),
                    format!(
                        "unknown shape type '{other}' (expected mesh, rectangle, cube, sphere, isosurface or light-field)"
                    ),
                ));
            }
        };
        if let Some(mut mesh) = primitive {
            mesh.name = shape_name.clone();
            let material = match material_override {
                Some(m) => m,
                None => builder.default_material(),
            };
            let material = with_emission(&mut builder, material);
            builder.add_mesh(&mesh, to_world, material, path)?;
            continue;
        }
        let Some(file_key) = &shape.file else {
            return Err(source.error_at(shape.kind.span(), "a 'mesh' shape needs a 'file'"));
        };
        let mesh_path = source.resolve(file_key.get_ref());
        if !mesh_path.is_file() {
            return Err(source.error_at(file_key.span(), format!("mesh file '{}' not found", mesh_path.display())));
        }
        if !is_mesh_file(&mesh_path) {
            return Err(source.error_at(
                file_key.span(),
                format!("'{}' is not a mesh file (expected {})", file_key.get_ref(), MESH_EXTENSIONS.join(", ")),
            ));
        }
        let (asset, asset_materials) = match asset_cache.get(&mesh_path) {
            Some(entry) => entry.clone(),
            None => {
                let asset = Rc::new(load_mesh_file(&mesh_path)?);
                for w in &asset.warnings {
                    builder.warn(w.clone());
                }
                let ids = if material_override.is_none() {
                    builder.add_asset_materials(&asset, &format!("{}:", file_key.get_ref()))
                } else {
                    Vec::new()
                };
                asset_cache.insert(mesh_path.clone(), (asset.clone(), ids.clone()));
                (asset, ids)
            }
        };
        let asset_materials = if material_override.is_none() && asset_materials.len() != asset.materials.len() {
            // The first use had an override; add the file's materials now.
            let ids = builder.add_asset_materials(&asset, &format!("{}:", file_key.get_ref()));
            asset_cache.insert(mesh_path.clone(), (asset.clone(), ids.clone()));
            ids
        } else {
            asset_materials
        };
        if file_camera.is_none() {
            file_camera = asset.camera;
        }
        let mut emissive_copies: HashMap<u32, u32> = HashMap::new();
        for mesh in &asset.meshes {
            let material = match (material_override, mesh.material) {
                (Some(m), _) => m,
                (None, Some(i)) => asset_materials[i],
                (None, None) => builder.default_material(),
            };
            let material = match emissive_copies.get(&material) {
                Some(&m) => m,
                None => {
                    let m = with_emission(&mut builder, material);
                    emissive_copies.insert(material, m);
                    m
                }
            };
            let mut placed = mesh.clone();
            placed.name =
                if asset.meshes.len() == 1 { shape_name.clone() } else { format!("{shape_name}/{}", mesh.name) };
            builder.add_mesh(&placed, to_world, material, &mesh_path)?;
        }
    }

    let environment = match &file.environment {
        Some(env) => environment_from_section(&source, env, &mut builder)?,
        None => Environment::None,
    };
    let camera = match &file.camera {
        Some(c) => Some(camera_from_section(&source, c)?),
        None => None,
    };
    let camera_medium = match &file.camera {
        Some(c) => c.get_ref().medium.as_ref().map(&medium_id).transpose()?,
        None => None,
    };
    let mut scene = builder.finish();
    if shape_interfaces.iter().any(|&(_, packed)| packed != 0) {
        // Each shape's meshes run from its first mesh to the next shape's first mesh.
        scene.triangle_media = vec![0; scene.triangles.len()];
        for (k, &(first_mesh, packed)) in shape_interfaces.iter().enumerate() {
            let end_mesh = shape_interfaces.get(k + 1).map_or(scene.meshes.len(), |&(m, _)| m);
            for mesh in &scene.meshes[first_mesh..end_mesh] {
                let range = mesh.first_triangle as usize..(mesh.first_triangle + mesh.triangle_count) as usize;
                scene.triangle_media[range].fill(packed);
            }
        }
    }
    for (name, &id) in &medium_ids {
        let used = camera_medium == Some(id)
            || shape_interfaces.iter().any(|&(_, packed)| {
                let (interior, exterior) = interface::unpack(packed);
                interior == Some(id) || exterior == Some(id)
            });
        if !used {
            builder_warning(
                &mut scene,
                format!(
                    "{}: medium '{name}' is not the interior or exterior of any shape, nor the camera's",
                    path.display()
                ),
            );
        }
    }
    scene.media = media;
    scene.camera_medium = camera_medium;
    if let Some((span, _)) = isosurfaces.first()
        && scene.needs_volume_estimator()
    {
        return Err(source.error_at(
            span.clone(),
            "isosurface shapes render with the surface path tracer, and this scene needs the volumetric one \
             (it has media or a 'null' material): remove one or the other",
        ));
    }
    scene.isosurfaces = isosurfaces.into_iter().map(|(_, iso)| iso).collect();
    scene.settings = settings;
    scene.environment = environment;
    scene.camera = match camera {
        Some(c) => c,
        None => file_camera.map(|(c, _)| c).unwrap_or_else(|| framing_camera(scene.bounds())),
    };
    let warnings = scene.content_warnings(path);
    scene.warnings.extend(warnings);
    Ok(scene)
}

/// The most cells per brick side an isosurface's min-max tree may ask for.
const MAX_BRICK_CELLS: i64 = 256;

/// An `isosurface` shape: its volume loaded as a lattice, the tree built and condensed at the
/// isovalue, placed with `to_world` (the volume fills the unit cube, as a medium's grid does).
fn isosurface_shape(
    source: &SourceText,
    shape: &ShapeSection,
    name: String,
    material: u32,
    to_world: Mat4,
    builder: &mut SceneBuilder,
) -> Result<SceneIsosurface, SceneError> {
    let here = |message: String| source.error_at(shape.kind.span(), message);
    let not_here = [
        shape.emission.as_ref().map(|v| ("emission", v.span())),
        shape.interior.as_ref().map(|v| ("interior", v.span())),
        shape.exterior.as_ref().map(|v| ("exterior", v.span())),
    ];
    if let Some((key, span)) = not_here.into_iter().flatten().next() {
        return Err(
            source.error_at(span, format!("'{key}' does not apply to isosurfaces (they neither emit nor bound media)"))
        );
    }
    let Some(volume) = &shape.volume else {
        return Err(here(format!("isosurface '{name}' needs a 'volume' (a grid, as a medium's 'density')")));
    };
    let Some(isovalue) = &shape.isovalue else {
        return Err(here(format!("isosurface '{name}' needs an 'isovalue'")));
    };
    let iso = *isovalue.get_ref();
    if !iso.is_finite() {
        return Err(source.error_at(isovalue.span(), format!("isovalue = {iso} must be finite")));
    }
    let brick_cells = match &shape.brick_cells {
        Some(b) if !(1..=MAX_BRICK_CELLS).contains(b.get_ref()) => {
            return Err(source.error_at(b.span(), format!("brick_cells must be between 1 and {MAX_BRICK_CELLS}")));
        }
        Some(b) => *b.get_ref() as u32,
        None => warpath_isosurface::DEFAULT_BRICK_CELLS,
    };
    let m = builder.scene_mut().materials[material as usize].clone();
    let material_name = builder.scene_mut().material_names[material as usize].clone();
    if m.is_emissive() || m.is_null() {
        return Err(here(format!(
            "isosurface '{name}': material '{material_name}' {}: isosurfaces take opaque or dielectric materials",
            if m.is_null() { "is 'null'" } else { "emits" }
        )));
    }
    if m.base_color_texture >= 0 {
        builder.warn(format!(
            "{}: isosurface '{name}' has no texture coordinates: material '{material_name}''s texture is not applied",
            source.path.display()
        ));
    }
    let at = |span: Range<usize>, message: String| source.error_at(span, message);
    let (grid, _spacing) = medium_section::load_spec(source, volume, &at, 1)?;
    let lattice = warpath_isosurface::Lattice::from_grid(&grid)
        .map_err(|e| source.error_at(volume.span(), format!("isosurface '{name}': {e}")))?;
    let (lo, hi) = lattice.range();
    if !(lo <= iso && iso <= hi) {
        builder.warn(format!(
            "{}: isosurface '{name}': isovalue {iso} is outside the volume's range [{lo}, {hi}]: the shape is empty",
            source.path.display()
        ));
    }
    let surface = warpath_isosurface::PlacedIsosurface::new(lattice, iso, to_world, brick_cells);
    Ok(SceneIsosurface { name, material, surface: std::sync::Arc::new(surface) })
}

/// A `light-field` shape: [`builtin::LightField`]'s triangles with their centres in the box
/// [-1,1]³ placed by the shape's transform (sizes and facing stay in world units), one
/// emitter material per hue (`NAME-hue-H`: black, emitting `emission` × the hue's colour).
#[allow(clippy::too_many_arguments)]
fn light_field_shape(
    source: &SourceText,
    shape: &ShapeSection,
    table_span: Range<usize>,
    shape_name: &str,
    emission: Option<Vec3>,
    to_world: Mat4,
    builder: &mut SceneBuilder,
    path: &Path,
) -> Result<(), SceneError> {
    if let Some(m) = &shape.material {
        return Err(source.error_at(m.span(), "a light-field makes its own emitters: give 'emission', not 'material'"));
    }
    let Some(emission) = emission else {
        return Err(source
            .error_at(table_span, "a light-field needs 'emission' (the radiance of each hue's brightest channel)"));
    };
    let whole = |v: &Option<Spanned<i64>>, key: &str, default: i64, range: std::ops::RangeInclusive<i64>| match v {
        Some(v) if !range.contains(v.get_ref()) => Err(source
            .error_at(v.span(), format!("'{key}' must be a whole number from {} to {}", range.start(), range.end()))),
        Some(v) => Ok(*v.get_ref()),
        None => Ok(default),
    };
    let Some(count) = &shape.count else {
        return Err(source.error_at(table_span, "a light-field needs 'count' (how many emissive triangles)"));
    };
    let count = whole(&Some(count.clone()), "count", 0, 1..=4_000_000)? as u32;
    let hues = whole(&shape.hues, "hues", 32, 1..=1024)? as u32;
    let seed = whole(&shape.seed, "seed", 4242, 0..=u32::MAX as i64)? as u32;
    let light_size = match &shape.light_size {
        Some(s) => {
            let [a, b] = *s.get_ref();
            if !(a.is_finite() && b.is_finite() && a > 0.0 && b >= a) {
                return Err(source.error_at(s.span(), "'light_size' must be [MIN, MAX] with 0 < MIN <= MAX"));
            }
            [a, b]
        }
        None => [0.04, 0.08],
    };
    let field = builtin::LightField { count, hues, seed, light_size };
    for (mut mesh, colour) in field.meshes(|u| to_world.transform_point3(u * 2.0 - Vec3::ONE)) {
        let hue = mesh.name.trim_start_matches("lights-").to_string();
        mesh.name = format!("{shape_name}-{}", mesh.name);
        let material = builder.add_material(&format!("{shape_name}-hue-{hue}"), Material::emitter(colour * emission));
        builder.add_mesh(&mesh, Mat4::IDENTITY, material, path)?;
    }
    Ok(())
}

fn builder_warning(scene: &mut Scene, message: String) {
    scene.warnings.push(message);
}

fn known(ids: &HashMap<String, u32>) -> String {
    if ids.is_empty() {
        return " (no [[material]] is defined)".into();
    }
    let mut names: Vec<&str> = ids.keys().map(|s| s.as_str()).collect();
    names.sort();
    format!(" (defined: {})", names.join(", "))
}

fn render_settings(source: &SourceText, render: &RenderSection) -> Result<RenderSettings, SceneError> {
    let mut s = RenderSettings::default();
    let ranged = |value: &Option<Spanned<i64>>, name: &str, min: i64, max: i64, default: u32| match value {
        None => Ok(default),
        Some(v) if (min..=max).contains(v.get_ref()) => Ok(*v.get_ref() as u32),
        Some(v) => Err(source.error_at(v.span(), format!("{name} = {} is out of range [{min}, {max}]", v.get_ref()))),
    };
    s.width = ranged(&render.width, "width", 1, MAX_RESOLUTION as i64, s.width)?;
    s.height = ranged(&render.height, "height", 1, MAX_RESOLUTION as i64, s.height)?;
    s.spp = ranged(&render.spp, "spp", 1, MAX_SPP as i64, s.spp)?;
    s.max_depth = match &render.max_depth {
        // Mitsuba's convention: -1 is no limit (paths end by Russian roulette or escape).
        Some(v) if *v.get_ref() == -1 => UNLIMITED_DEPTH,
        _ => ranged(&render.max_depth, "max_depth", 0, MAX_DEPTH as i64, s.max_depth)?,
    };
    s.seed = ranged(&render.seed, "seed", 0, u32::MAX as i64, s.seed)?;
    if let Some(sampler) = &render.sampler {
        s.sampler =
            sampler.get_ref().parse::<SamplerKind>().map_err(|message| source.error_at(sampler.span(), message))?;
    }
    if let Some(rr) = &render.rr_threshold {
        if !(0.0..=1.0).contains(rr.get_ref()) {
            return Err(source.error_at(rr.span(), "rr_threshold must be in [0, 1]"));
        }
        s.rr_threshold = *rr.get_ref();
    }
    Ok(s)
}

/// A finite, non-negative color (and ≤ `max` per channel where given).
fn check_color(source: &SourceText, value: &Spanned<Triple>, key: &str, max: Option<f32>) -> Result<Vec3, SceneError> {
    let c = value.get_ref().0;
    if !c.is_finite() || c.min_element() < 0.0 {
        return Err(source.error_at(value.span(), format!("{key} must be finite and non-negative, got {c}")));
    }
    if let Some(max) = max
        && c.max_element() > max
    {
        return Err(source.error_at(value.span(), format!("{key} must be at most {max} per channel, got {c}")));
    }
    Ok(c)
}

fn material_from_section(source: &SourceText, m: &MaterialSection) -> Result<Material, SceneError> {
    let kind = m.kind.get_ref().as_str();
    let allowed: &[&str] = match kind {
        "diffuse" => &["base_color"],
        "blinn" => &["base_color", "specular", "exponent"],
        "glass" => &["ior", "specular"],
        "mirror" => &["specular"],
        "chrome" | "black" => &[],
        "car-paint" => &["base_color", "specular", "exponent", "ior"],
        "rough-conductor" => &["base_color", "roughness"],
        "rough-dielectric" => &["ior", "roughness", "specular"],
        "null" => &[],
        other => {
            return Err(source.error_at(
                m.kind.span(),
                format!(
                    "unknown material type '{other}' (expected diffuse, blinn, glass, mirror, chrome, car-paint, \
                     rough-conductor, rough-dielectric, null or black)"
                ),
            ));
        }
    };
    let present: [(&str, Option<Range<usize>>); 5] = [
        ("base_color", m.base_color.as_ref().map(|v| v.span())),
        ("specular", m.specular.as_ref().map(|v| v.span())),
        ("exponent", m.exponent.as_ref().map(|v| v.span())),
        ("ior", m.ior.as_ref().map(|v| v.span())),
        ("roughness", m.roughness.as_ref().map(|v| v.span())),
    ];
    for (key, span) in present {
        if let Some(span) = span
            && !allowed.contains(&key)
        {
            return Err(source.error_at(span, format!("'{key}' does not apply to material type '{kind}'")));
        }
    }
    if m.base_color_texture.is_some() && !allowed.contains(&"base_color") {
        let span = m.base_color_texture.as_ref().map(|v| v.span()).unwrap_or_default();
        return Err(source.error_at(span, format!("'base_color_texture' does not apply to material type '{kind}'")));
    }
    let color = |v: &Option<Spanned<Triple>>, key: &str, default: Vec3| match v {
        Some(v) => check_color(source, v, key, Some(1.0)),
        None => Ok(default),
    };
    let base_color = color(&m.base_color, "base_color", Vec3::splat(DEFAULT_ALBEDO))?;
    let specular_default = match kind {
        "blinn" => Vec3::splat(0.2),
        "car-paint" => Vec3::splat(0.2),
        _ => Vec3::ONE,
    };
    let specular = color(&m.specular, "specular", specular_default)?;
    let exponent = match &m.exponent {
        Some(e) if !(e.get_ref().is_finite() && *e.get_ref() >= 0.0) => {
            return Err(source.error_at(e.span(), "exponent must be finite and non-negative"));
        }
        Some(e) => *e.get_ref(),
        None => 100.0,
    };
    let ior = match &m.ior {
        Some(i) if !(i.get_ref().is_finite() && *i.get_ref() > 0.0) => {
            return Err(source.error_at(i.span(), format!("ior must be positive, got {}", i.get_ref())));
        }
        Some(i) => *i.get_ref(),
        None => 1.5,
    };
    let ior = match &m.exterior_ior {
        Some(e) if !matches!(kind, "glass" | "rough-dielectric") => {
            return Err(source.error_at(e.span(), format!("'exterior_ior' does not apply to material type '{kind}'")));
        }
        Some(e) if !(e.get_ref().is_finite() && *e.get_ref() > 0.0) => {
            return Err(source.error_at(e.span(), format!("exterior_ior must be positive, got {}", e.get_ref())));
        }
        Some(e) => ior / *e.get_ref(),
        None => ior,
    };
    let roughness = match &m.roughness {
        Some(r) if !(0.0..=1.0).contains(r.get_ref()) => {
            return Err(source.error_at(r.span(), format!("roughness must be in [0, 1], got {}", r.get_ref())));
        }
        Some(r) => *r.get_ref(),
        None => 0.3,
    };
    if base_color.max_element() + specular.max_element() > 1.0 && kind == "blinn" {
        // Allowed, but the material then reflects more light than it receives.
    }
    let mut material = match kind {
        "diffuse" => Material::diffuse(base_color),
        "blinn" => Material::blinn(base_color, specular, exponent),
        "glass" => Material { specular, ..Material::glass(ior) },
        "mirror" => Material::mirror(specular),
        "chrome" => Material::chrome(),
        "car-paint" => Material::car_paint(base_color, specular, exponent, ior),
        "rough-conductor" => Material::rough_conductor(base_color, roughness),
        "rough-dielectric" => Material { specular, ..Material::rough_dielectric(ior, roughness) },
        "null" => Material::null(),
        _ => Material::black(),
    };
    if kind == "null"
        && let Some(e) = &m.emission
    {
        return Err(source.error_at(e.span(), "a null (index-matched) boundary cannot emit"));
    }
    if let Some(e) = &m.emission {
        material.emission = check_color(source, e, "emission", None)?;
    }
    if m.two_sided_emission == Some(true) {
        material.flags |= flags::TWO_SIDED_EMISSION;
    }
    if let Some(one_sided) = &m.one_sided {
        if matches!(kind, "glass" | "rough-dielectric" | "black") {
            let why = if kind == "black" { "it does not scatter" } else { "it transmits and sees both sides" };
            return Err(source
                .error_at(one_sided.span(), format!("'one_sided' does not apply to material type '{kind}' ({why})")));
        }
        if *one_sided.get_ref() {
            material.flags |= flags::ONE_SIDED;
        }
    }
    Ok(material)
}

fn matrix_from_rows(rows: &Matrix4) -> Mat4 {
    Mat4::from_cols_array_2d(rows).transpose()
}

fn shape_transform(source: &SourceText, shape: &ShapeSection, table_span: Range<usize>) -> Result<Mat4, SceneError> {
    if let Some(m) = &shape.to_world {
        if shape.translate.is_some() || shape.rotate.is_some() || shape.scale.is_some() {
            return Err(source.error_at(m.span(), "give either 'to_world' or 'translate'/'rotate'/'scale', not both"));
        }
        let matrix = matrix_from_rows(m.get_ref());
        check_transform(source, m.span(), matrix)?;
        return Ok(matrix);
    }
    let translate = shape.translate.as_ref().map(|t| Vec3::from_array(*t.get_ref())).unwrap_or(Vec3::ZERO);
    let rotation = match &shape.rotate {
        Some(r) => {
            let axis = Vec3::from_array(r.get_ref().axis);
            let angle = r.get_ref().angle;
            if !axis.is_finite() || axis.length_squared() == 0.0 || !angle.is_finite() {
                return Err(source.error_at(r.span(), "rotate needs a non-zero finite axis and a finite angle"));
            }
            Mat4::from_axis_angle(axis.normalize(), angle.to_radians())
        }
        None => Mat4::IDENTITY,
    };
    let scale = shape.scale.as_ref().map(|s| s.get_ref().0).unwrap_or(Vec3::ONE);
    let matrix = Mat4::from_translation(translate) * rotation * Mat4::from_scale(scale);
    let span =
        shape.scale.as_ref().map(|s| s.span()).or(shape.translate.as_ref().map(|t| t.span())).unwrap_or(table_span);
    check_transform(source, span, matrix)?;
    Ok(matrix)
}

fn check_transform(source: &SourceText, span: Range<usize>, matrix: Mat4) -> Result<(), SceneError> {
    let det = Mat3::from_mat4(matrix).determinant();
    if !matrix.is_finite() || !det.is_finite() || det.abs() < 1e-12 {
        return Err(source.error_at(span, "the transform is singular or not finite"));
    }
    let last_row = matrix.row(3);
    if last_row != glam::Vec4::new(0.0, 0.0, 0.0, 1.0) {
        return Err(source.error_at(span, "the last row of a 4x4 transform must be [0, 0, 0, 1]"));
    }
    Ok(())
}

fn camera_from_section(source: &SourceText, section: &Spanned<CameraSection>) -> Result<Camera, SceneError> {
    let c = section.get_ref();
    let fov = match &c.fov {
        Some(f) if !(*f.get_ref() > 0.0 && *f.get_ref() < 180.0) => {
            return Err(source.error_at(f.span(), "fov must be between 0 and 180 degrees"));
        }
        Some(f) => *f.get_ref(),
        None => 40.0,
    };
    let mut camera = match (&c.look_at, &c.to_world) {
        (Some(_), Some(m)) => return Err(source.error_at(m.span(), "give either 'look_at' or 'to_world', not both")),
        (None, None) => return Err(source.error_at(section.span(), "[camera] needs 'look_at' or 'to_world'")),
        (Some(l), None) => {
            let look = l.get_ref();
            let (origin, target) = (Vec3::from_array(look.origin), Vec3::from_array(look.target));
            let up = Vec3::from_array(look.up.unwrap_or([0.0, 1.0, 0.0]));
            let dir = target - origin;
            if !(origin.is_finite() && target.is_finite() && up.is_finite()) || dir.length_squared() == 0.0 {
                return Err(source.error_at(l.span(), "look_at needs finite, distinct origin and target"));
            }
            if dir.normalize().cross(up).length() < 1e-6 {
                return Err(source.error_at(l.span(), "look_at 'up' is parallel to the view direction"));
            }
            Camera::look_at(origin, target, up, fov)
        }
        (None, Some(m)) => {
            let matrix = matrix_from_rows(m.get_ref());
            check_transform(source, m.span(), matrix)?;
            Camera { to_world: matrix, fov_degrees: fov, focus_distance: 1.0, ..Camera::default() }
        }
    };
    camera.fov_degrees = fov;
    camera.fov_axis = c.fov_axis.unwrap_or_default();
    if let Some(a) = &c.aperture_radius {
        if !(a.get_ref().is_finite() && *a.get_ref() >= 0.0) {
            return Err(source.error_at(a.span(), "aperture_radius must be finite and non-negative"));
        }
        camera.aperture_radius = *a.get_ref();
    }
    if let Some(f) = &c.focus_distance {
        if !(f.get_ref().is_finite() && *f.get_ref() > 0.0) {
            return Err(source.error_at(f.span(), "focus_distance must be positive"));
        }
        camera.focus_distance = *f.get_ref();
    }
    Ok(camera)
}

fn environment_from_section(
    source: &SourceText,
    section: &Spanned<EnvironmentSection>,
    builder: &mut SceneBuilder,
) -> Result<Environment, SceneError> {
    let e = section.get_ref();
    let scale = match &e.scale {
        Some(s) if !(s.get_ref().is_finite() && *s.get_ref() >= 0.0) => {
            return Err(source.error_at(s.span(), "scale must be finite and non-negative"));
        }
        Some(s) => *s.get_ref(),
        None => 1.0,
    };
    match e.kind.get_ref().as_str() {
        "none" => Ok(Environment::None),
        "constant" => {
            let radiance = match &e.radiance {
                Some(r) => check_color(source, r, "radiance", None)?,
                None => Vec3::ONE,
            };
            Ok(Environment::Constant(radiance * scale))
        }
        "map" => {
            let Some(file) = &e.file else {
                return Err(source.error_at(e.kind.span(), "an environment of type 'map' needs a 'file'"));
            };
            let image_path = source.resolve(file.get_ref());
            if !image_path.is_file() {
                return Err(
                    source.error_at(file.span(), format!("environment map '{}' not found", image_path.display()))
                );
            }
            let rotate_y = match &e.rotate_y {
                Some(r) if !r.get_ref().is_finite() => {
                    return Err(source.error_at(r.span(), format!("rotate_y must be finite, got {}", r.get_ref())));
                }
                Some(r) => *r.get_ref(),
                None => 0.0,
            };
            let mut texture = load_image(&image_path)?;
            let repairs = repair_pixels(&mut texture.pixels, None);
            if let Some(w) = repairs.warning(&image_path, "environment map", None) {
                builder.warn(w);
            }
            let rotation = Mat3::from_rotation_y(rotate_y.to_radians());
            Ok(Environment::Map(EnvMap::new(texture.width, texture.height, texture.pixels, rotation, scale)))
        }
        other => Err(source
            .error_at(e.kind.span(), format!("unknown environment type '{other}' (expected none, constant or map)"))),
    }
}
