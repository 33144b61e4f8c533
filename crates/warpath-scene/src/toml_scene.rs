//! The native TOML scene format (reference: `docs/scene-format.md`), and [`load_any`],
//! which opens a `.toml` scene or a bare mesh file. Meshes are placed by
//! [`crate::mesh::SceneBuilder`]; mesh files are read through [`crate::mesh_file`].
//!
//! Every error names the file and, for TOML, the line: syntax errors from toml's byte
//! spans, semantic errors (unknown names and types, missing files, absurd values) from
//! the span of the offending key or table.
//!
//! This module reads the file and walks its tables in order (materials, media, shapes, then
//! environment, lights and camera); its submodules hold the tables' types (`sections`) and
//! readers (`material_section`, `medium_section`, `shape_section`, `light_section`,
//! `render_camera_environment`).

use crate::builtin;
use crate::image_io::{load_base_color_texture, load_normal_texture};
use crate::mesh::{MeshAsset, SceneBuilder, framing_camera};
use crate::mesh_file::{MESH_EXTENSIONS, is_mesh_file, load_mesh_file, load_mesh_scene, lower_name};
use crate::{RenderSettings, Scene, SceneError, SceneIsosurface};
use material_section::material_from_section;
use material_textures::add_material_textures;
use render_camera_environment::{camera_from_section, environment_from_section, render_settings};
use sections::{SceneFile, SourceText, check_color, toml_error};
use shape_section::{isosurface_shape, light_field_shape, shape_transform};
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use toml::Spanned;
use warpath_core::light::Environment;
use warpath_core::material::{MaterialKind, flags};
use warpath_volume::medium::interface;

mod light_section;
mod material_section;
mod material_textures;
mod medium_section;
mod render_camera_environment;
mod sections;
mod shape_section;
mod values;

pub use crate::scene::UNLIMITED_DEPTH;

/// Opens a `.toml` scene, a Mitsuba 3 `.xml` scene ([`crate::mitsuba_xml`]), or a bare mesh
/// file as a scene (see
/// [`crate::mesh_file::load_mesh_scene`]).
pub fn load_any(path: &Path) -> Result<Scene, SceneError> {
    if lower_name(path).ends_with(".toml") {
        return load_toml_scene(path);
    }
    if lower_name(path).ends_with(".xml") {
        return crate::mitsuba_xml::load_mitsuba_xml(path, &[]);
    }
    if lower_name(path).ends_with(".pbrt") || lower_name(path).ends_with(".pbrt.gz") {
        return crate::pbrt::load_pbrt(path);
    }
    load_mesh_scene(path)
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
        if let Some(file) = &m.normal_texture {
            if matches!(material.kind(), MaterialKind::Null | MaterialKind::Black) {
                return Err(source.error_at(
                    file.span(),
                    format!("material '{name}': 'normal_texture' does not apply to a material that does not scatter"),
                ));
            }
            let texture_path = source.resolve(file.get_ref());
            if !texture_path.is_file() {
                return Err(source.error_at(
                    file.span(),
                    format!("material '{name}': normal texture '{}' not found", texture_path.display()),
                ));
            }
            let (texture, warning) = load_normal_texture(&texture_path)?;
            if let Some(w) = warning {
                builder.warn(w);
            }
            material.normal_texture = builder.add_texture(texture);
        }
        add_material_textures(&source, &mut builder, m, &name, &mut material)?;
        if let Some(file) = &m.opacity_texture {
            if material.is_null() {
                return Err(source.error_at(
                    file.span(),
                    format!("material '{name}': 'opacity_texture' does not apply to a null boundary"),
                ));
            }
            let texture_path = source.resolve(file.get_ref());
            if !texture_path.is_file() {
                return Err(source.error_at(
                    file.span(),
                    format!("material '{name}': opacity texture '{}' not found", texture_path.display()),
                ));
            }
            // Decoded as a colour image (8-bit sRGB to linear, as Mitsuba's bitmap); the first
            // channel is the opacity.
            let (texture, warning) = load_base_color_texture(&texture_path)?;
            if let Some(w) = warning {
                builder.warn(w);
            }
            material.opacity_texture = builder.add_texture(texture);
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
                shape.saturation.as_ref().map(|v| ("saturation", v.span())),
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
    let delta_lights =
        file.light.iter().map(|l| light_section::light_from_section(&source, l)).collect::<Result<Vec<_>, _>>()?;
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
    scene.delta_lights = delta_lights;
    scene.camera = match camera {
        Some(c) => c,
        None => file_camera.map(|(c, _)| c).unwrap_or_else(|| framing_camera(scene.bounds())),
    };
    let warnings = scene.content_warnings(path);
    scene.warnings.extend(warnings);
    Ok(scene)
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
