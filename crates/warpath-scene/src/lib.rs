//! warpath-scene: everything between files on disk and a [`Scene`] in memory.
//!
//! - [`scene`]: the in-memory scene (flattened world-space triangles, materials,
//!   textures, environment, camera, render settings) that every backend consumes;
//! - [`error`]: [`SceneError`], which always says what went wrong and where (file:line);
//! - [`toml_scene`]: the native TOML scene format (`docs/scene-format.md`);
//! - [`mitsuba_xml`]: Mitsuba 3 XML scenes (`.xml`), the subset warpath renders;
//! - [`pbrt`]: pbrt-v4 scenes (`.pbrt`), the subset warpath renders;
//! - [`mesh`]: the mesh builder every loader shares ([`mesh::SceneBuilder`]);
//! - [`mesh_file`]: mesh files by extension, and a bare mesh file opened as a scene;
//! - [`obj`], [`ply`], [`gltf_loader`]: mesh loaders;
//! - [`image_io`]: HDR/LDR image loading (`.hdr`, `.exr` incl. DWAB, `.png`, `.jpg`)
//!   for textures and environment maps;
//! - [`builtin`]: scenes reachable by name (`cornell`, `furnace`, ...).

pub mod builtin;
pub mod conductors;
pub mod error;
pub mod gltf_loader;
pub mod image_io;
pub mod mesh;
pub mod mesh_file;
pub mod mitsuba_xml;
pub mod obj;
pub mod pbrt;
pub mod ply;
pub mod scene;
pub mod toml_scene;

pub use error::SceneError;
pub use scene::{MeshInfo, RenderSettings, Scene, SceneIsosurface, Texture, UNLIMITED_DEPTH};

use std::path::Path;

/// Resolves a scene argument: a built-in name (see [`builtin::NAMES`]) or a path to a
/// `.toml` scene, a Mitsuba 3 `.xml` scene, a pbrt-v4 `.pbrt` scene or a bare mesh (`.obj`, `.ply`, `.ply.gz`, `.gltf`, `.glb`).
///
/// Errors carry help where it applies: the closest valid name for a mistyped scene, field or
/// type name, and the `scripts/fetch-assets` command for a missing asset.
pub fn load(name_or_path: &str) -> Result<Scene, SceneError> {
    if let Some(scene) = builtin::by_name(name_or_path) {
        return Ok(scene);
    }
    let path = Path::new(name_or_path);
    if !path.exists() {
        let guess = error::closest(name_or_path, builtin::NAMES.iter().copied())
            .map(|name| format!("did you mean '{name}'? "))
            .unwrap_or_default();
        return Err(SceneError::NotFound {
            path: path.to_path_buf(),
            hint: format!("not a file, and not a built-in scene; {guess}(built-in: {})", builtin::FORMS.join(", ")),
        });
    }
    toml_scene::load_any(path).map_err(SceneError::with_help)
}
