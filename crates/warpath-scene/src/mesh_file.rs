//! Mesh files by extension: [`load_mesh_file`] dispatches `.obj`, `.ply`, `.ply.gz`,
//! `.gltf` and `.glb` to their loaders, and [`load_mesh_scene`] opens a bare mesh file as a
//! scene (its own materials and camera, a constant white environment).

use crate::mesh::{MeshAsset, SceneBuilder, framing_camera};
use crate::scene::MAX_RESOLUTION;
use crate::{Scene, SceneError};
use glam::{Mat4, Vec3};
use std::path::Path;
use warpath_core::light::Environment;

/// Mesh file kinds [`load_mesh_file`] reads, by extension.
pub const MESH_EXTENSIONS: &[&str] = &[".obj", ".ply", ".ply.gz", ".gltf", ".glb"];

pub(crate) fn lower_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default()
}

/// Whether `path` names a mesh file [`load_mesh_file`] can read.
pub fn is_mesh_file(path: &Path) -> bool {
    let name = lower_name(path);
    MESH_EXTENSIONS.iter().any(|e| name.ends_with(e))
}

/// Loads an `.obj`, `.ply`, `.ply.gz`, `.gltf` or `.glb` file.
pub fn load_mesh_file(path: &Path) -> Result<MeshAsset, SceneError> {
    let name = lower_name(path);
    if !path.is_file() {
        return Err(SceneError::NotFound { path: path.to_path_buf(), hint: "mesh file not found".into() });
    }
    let mut asset = if name.ends_with(".obj") {
        crate::obj::load_obj(path)
    } else if name.ends_with(".ply") || name.ends_with(".ply.gz") {
        crate::ply::load_ply(path)
    } else if name.ends_with(".gltf") || name.ends_with(".glb") {
        crate::gltf_loader::load_gltf(path)
    } else {
        Err(SceneError::Unsupported { path: path.to_path_buf(), expected: MESH_EXTENSIONS.join(", ") })
    }?;
    if asset.triangle_count() == 0 {
        asset.warnings.push(format!("{}: the file holds no triangles: nothing of it will be rendered", path.display()));
    }
    Ok(asset)
}

/// Opens a bare mesh file as a scene: the mesh with its own materials (the default diffuse
/// gray where it has none), its own camera or one framing its bounds, and a constant white
/// environment.
pub fn load_mesh_scene(path: &Path) -> Result<Scene, SceneError> {
    if !is_mesh_file(path) {
        return Err(SceneError::Unsupported {
            path: path.to_path_buf(),
            expected: format!(".toml, {}", MESH_EXTENSIONS.join(", ")),
        });
    }
    let asset = load_mesh_file(path)?;
    let scene_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut builder = SceneBuilder::new(&scene_name);
    for w in &asset.warnings {
        builder.warn(w.clone());
    }
    let material_ids = builder.add_asset_materials(&asset, "");
    for mesh in &asset.meshes {
        let material = match mesh.material {
            Some(i) => material_ids[i],
            None => builder.default_material(),
        };
        builder.add_mesh(mesh, Mat4::IDENTITY, material, path)?;
    }
    let mut scene = builder.finish();
    scene.environment = Environment::Constant(Vec3::ONE);
    match asset.camera {
        Some((camera, aspect)) => {
            scene.camera = camera;
            if let Some(aspect) = aspect.filter(|a| a.is_finite() && *a > 0.0) {
                let width = (scene.settings.height as f32 * aspect).round().clamp(1.0, MAX_RESOLUTION as f32);
                scene.settings.width = width as u32;
            }
        }
        None => scene.camera = framing_camera(scene.bounds()),
    }
    let warnings = scene.content_warnings(path);
    scene.warnings.extend(warnings);
    Ok(scene)
}
