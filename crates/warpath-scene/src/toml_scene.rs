//! The native TOML scene format (reference: `docs/scene-format.md`) and the pieces every
//! loader shares: [`TriangleMesh`] / [`MeshAsset`] (what a mesh file loads into),
//! [`SceneBuilder`] (places meshes in the world with validation: non-finite vertices and
//! out-of-range indices are errors, degenerate triangles are dropped with a warning,
//! normals go through the inverse transpose, mirrored transforms flip the winding) and
//! [`load_any`], which opens a `.toml` scene or a bare mesh file.
//!
//! Every error names the file and, for TOML, the line: syntax errors from toml's byte
//! spans, semantic errors (unknown names and types, missing files, absurd values) from
//! the span of the offending key or table.

use crate::builtin;
use crate::{MeshInfo, RenderSettings, Scene, SceneError, Texture};
use glam::{Mat3, Mat4, Vec2, Vec3};
use serde::Deserialize;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use toml::Spanned;
use warpath_core::camera::{Camera, FovAxis};
use warpath_core::light::{EnvMap, Environment};
use warpath_core::material::{Material, flags};
use warpath_core::math::Aabb;
use warpath_core::sampler::SamplerKind;
use warpath_volume::medium::interface;

mod medium_section;

/// Largest finite `max_depth` a scene may ask for (`-1` asks for no limit).
pub const MAX_DEPTH: u32 = 100_000;
pub use crate::scene::UNLIMITED_DEPTH;
/// Largest image side a scene may ask for.
pub const MAX_RESOLUTION: u32 = 16384;
/// Albedo of the material given to geometry that names none.
pub const DEFAULT_ALBEDO: f32 = 0.8;

// ---------------------------------------------------------------------------------------
// Shared mesh types and the scene builder
// ---------------------------------------------------------------------------------------

/// One triangle mesh in its file's (object) space, with one material.
#[derive(Clone, Debug, Default)]
pub struct TriangleMesh {
    pub name: String,
    pub positions: Vec<Vec3>,
    /// Per-vertex normals (same length as `positions`) or empty.
    pub normals: Vec<Vec3>,
    /// Per-vertex texture coordinates, (0,0) = bottom-left of the image, or empty.
    pub uvs: Vec<Vec2>,
    pub triangles: Vec<[u32; 3]>,
    /// Index into the owning [`MeshAsset::materials`], or `None` for the default.
    pub material: Option<usize>,
}

/// A material a mesh file defines, with its decoded base color texture.
#[derive(Clone, Debug)]
pub struct AssetMaterial {
    pub name: String,
    pub material: Material,
    pub base_color_texture: Option<Texture>,
}

/// Everything a mesh file loads into, before it is placed in a scene.
#[derive(Clone, Debug, Default)]
pub struct MeshAsset {
    pub meshes: Vec<TriangleMesh>,
    pub materials: Vec<AssetMaterial>,
    /// A camera the file defines (glTF), with the aspect ratio it asks for, if any.
    pub camera: Option<(Camera, Option<f32>)>,
    pub warnings: Vec<String>,
}

impl MeshAsset {
    pub fn triangle_count(&self) -> usize {
        self.meshes.iter().map(|m| m.triangles.len()).sum()
    }
}

/// Assembles a [`Scene`] from meshes placed by transforms.
pub struct SceneBuilder {
    scene: Scene,
    /// Whether each entry of `scene.meshes` came with its own normals / uvs.
    mesh_has_normals: Vec<bool>,
    mesh_has_uvs: Vec<bool>,
    default_material: Option<u32>,
}

impl SceneBuilder {
    pub fn new(name: &str) -> Self {
        SceneBuilder {
            scene: Scene { name: name.to_string(), ..Scene::default() },
            mesh_has_normals: Vec::new(),
            mesh_has_uvs: Vec::new(),
            default_material: None,
        }
    }

    pub fn scene_mut(&mut self) -> &mut Scene {
        &mut self.scene
    }

    pub fn warn(&mut self, message: String) {
        self.scene.warnings.push(message);
    }

    pub fn add_texture(&mut self, texture: Texture) -> i32 {
        self.scene.textures.push(texture);
        (self.scene.textures.len() - 1) as i32
    }

    pub fn add_material(&mut self, name: &str, material: Material) -> u32 {
        self.scene.materials.push(material);
        self.scene.material_names.push(name.to_string());
        (self.scene.materials.len() - 1) as u32
    }

    /// The diffuse gray ([`DEFAULT_ALBEDO`]) material named `default`, added on first use.
    pub fn default_material(&mut self) -> u32 {
        if let Some(m) = self.default_material {
            return m;
        }
        let m = self.add_material("default", Material::diffuse(Vec3::splat(DEFAULT_ALBEDO)));
        self.default_material = Some(m);
        m
    }

    /// Adds an asset's materials (and their textures); returns their scene indices.
    pub fn add_asset_materials(&mut self, asset: &MeshAsset, prefix: &str) -> Vec<u32> {
        asset
            .materials
            .iter()
            .map(|am| {
                let mut material = am.material;
                if let Some(t) = &am.base_color_texture {
                    material.base_color_texture = self.add_texture(t.clone());
                }
                self.add_material(&format!("{prefix}{}", am.name), material)
            })
            .collect()
    }

    /// Places `mesh` in the world with `to_world` and material `material`.
    ///
    /// Errors for non-finite vertices and out-of-range indices (naming `source` and the
    /// vertex or triangle index); drops degenerate triangles with a warning.
    pub fn add_mesh(
        &mut self,
        mesh: &TriangleMesh,
        to_world: Mat4,
        material: u32,
        source: &Path,
    ) -> Result<(), SceneError> {
        let invalid = |message: String| SceneError::Invalid { path: source.to_path_buf(), message };
        let linear = Mat3::from_mat4(to_world);
        let det = linear.determinant();
        if !det.is_finite() || det == 0.0 || !to_world.is_finite() {
            return Err(invalid(format!("mesh '{}': the transform is singular or not finite", mesh.name)));
        }
        if material as usize >= self.scene.materials.len() {
            return Err(invalid(format!("mesh '{}': material index {material} does not exist", mesh.name)));
        }
        let vertex_count = mesh.positions.len();
        if let Some(i) = mesh.positions.iter().position(|p| !p.is_finite()) {
            return Err(invalid(format!("mesh '{}': vertex {i} is not finite ({})", mesh.name, mesh.positions[i])));
        }
        let normal_matrix = linear.inverse().transpose();
        let mut has_normals = !mesh.normals.is_empty();
        if has_normals && mesh.normals.len() != vertex_count {
            return Err(invalid(format!(
                "mesh '{}': {} normals for {vertex_count} vertices",
                mesh.name,
                mesh.normals.len()
            )));
        }
        let mut world_normals = Vec::new();
        if has_normals {
            world_normals = mesh.normals.iter().map(|&n| (normal_matrix * n).normalize_or_zero()).collect();
            if let Some(i) = world_normals.iter().position(|n| *n == Vec3::ZERO || !n.is_finite()) {
                self.warn(format!(
                    "{}: mesh '{}': normal of vertex {i} is zero or not finite; using geometric normals",
                    source.display(),
                    mesh.name
                ));
                has_normals = false;
            }
        }
        let mut has_uvs = !mesh.uvs.is_empty();
        if has_uvs && mesh.uvs.len() != vertex_count {
            return Err(invalid(format!(
                "mesh '{}': {} texture coordinates for {vertex_count} vertices",
                mesh.name,
                mesh.uvs.len()
            )));
        }
        if has_uvs && mesh.uvs.iter().any(|uv| !uv.is_finite()) {
            self.warn(format!("{}: mesh '{}': non-finite texture coordinates ignored", source.display(), mesh.name));
            has_uvs = false;
        }

        let base = self.scene.positions.len() as u64;
        if base + vertex_count as u64 > u32::MAX as u64 {
            return Err(invalid("the scene has more than 2^32 vertices".into()));
        }
        let base = base as u32;
        let first_triangle = self.scene.triangles.len() as u32;
        let flip = det < 0.0;
        let mut dropped = 0usize;
        self.scene.positions.extend(mesh.positions.iter().map(|&p| to_world.transform_point3(p)));
        for (t, tri) in mesh.triangles.iter().enumerate() {
            if let Some(&bad) = tri.iter().find(|&&i| i as usize >= vertex_count) {
                self.scene.positions.truncate(base as usize);
                self.scene.triangles.truncate(first_triangle as usize);
                self.scene.triangle_materials.truncate(first_triangle as usize);
                return Err(invalid(format!(
                    "mesh '{}': triangle {t} uses vertex {bad}, but there are only {vertex_count} vertices",
                    mesh.name
                )));
            }
            let [a, b, c] = tri.map(|i| self.scene.positions[(base + i) as usize]);
            if is_degenerate(a, b, c) {
                dropped += 1;
                continue;
            }
            let [i0, i1, i2] = tri.map(|i| base + i);
            self.scene.triangles.push(if flip { [i0, i2, i1] } else { [i0, i1, i2] });
            self.scene.triangle_materials.push(material);
        }
        if dropped > 0 {
            self.warn(format!(
                "{}: mesh '{}': dropped {dropped} degenerate (zero-area) triangle{}",
                source.display(),
                mesh.name,
                if dropped == 1 { "" } else { "s" }
            ));
        }
        // Normals and uvs are stored for every vertex; meshes without them are fixed up in
        // `finish`.
        if has_normals {
            self.scene.normals.resize(base as usize, Vec3::ZERO);
            self.scene.normals.extend(world_normals);
        }
        if has_uvs {
            self.scene.uvs.resize(base as usize, Vec2::ZERO);
            self.scene.uvs.extend_from_slice(&mesh.uvs);
        }
        self.scene.meshes.push(MeshInfo {
            name: mesh.name.clone(),
            first_triangle,
            triangle_count: self.scene.triangles.len() as u32 - first_triangle,
        });
        self.mesh_has_normals.push(has_normals);
        self.mesh_has_uvs.push(has_uvs);
        Ok(())
    }

    /// Finishes the scene: where some meshes carry normals and others do not, the latter
    /// get flat normals (their vertices are split per triangle); missing uvs become 0.
    pub fn finish(mut self) -> Scene {
        let scene = &mut self.scene;
        let vertex_count = scene.positions.len();
        let any_normals = self.mesh_has_normals.iter().any(|&h| h);
        if any_normals {
            scene.normals.resize(vertex_count, Vec3::ZERO);
            if self.mesh_has_uvs.iter().any(|&h| h) {
                scene.uvs.resize(vertex_count, Vec2::ZERO);
            }
            for (mesh, &has) in scene.meshes.iter().zip(&self.mesh_has_normals) {
                if has {
                    continue;
                }
                let range = mesh.first_triangle as usize..(mesh.first_triangle + mesh.triangle_count) as usize;
                for t in range {
                    let tri = scene.triangles[t];
                    let [a, b, c] = tri.map(|i| scene.positions[i as usize]);
                    let n = (b - a).cross(c - a).normalize_or_zero();
                    let mut new_tri = [0u32; 3];
                    for (k, &i) in tri.iter().enumerate() {
                        new_tri[k] = scene.positions.len() as u32;
                        scene.positions.push(scene.positions[i as usize]);
                        scene.normals.push(n);
                        if !scene.uvs.is_empty() {
                            scene.uvs.push(scene.uvs[i as usize]);
                        }
                    }
                    scene.triangles[t] = new_tri;
                }
            }
        }
        let vertex_count = scene.positions.len();
        if !any_normals {
            scene.normals.clear();
        }
        if self.mesh_has_uvs.iter().any(|&h| h) {
            scene.uvs.resize(vertex_count, Vec2::ZERO);
        } else {
            scene.uvs.clear();
        }
        self.scene
    }
}

/// A triangle is degenerate when its area is zero up to float round-off of its edges.
pub fn is_degenerate(a: Vec3, b: Vec3, c: Vec3) -> bool {
    let (e1, e2) = (b - a, c - a);
    let cross = e1.cross(e2).length();
    let scale = e1.length_squared().max(e2.length_squared()).max((c - b).length_squared());
    !(cross > 1e-6 * scale) || scale == 0.0
}

/// A camera looking at `bounds` from the front (+z) and a little above, framing it whole.
pub fn framing_camera(bounds: Aabb) -> Camera {
    if bounds.is_empty() {
        return Camera::default();
    }
    let center = bounds.center();
    let radius = (0.5 * bounds.extent().length()).max(1e-3);
    let fov = 40.0f32;
    let distance = 1.1 * radius / (0.5 * fov).to_radians().sin();
    let direction = Vec3::new(0.0, 0.3, 1.0).normalize();
    Camera::look_at(center + direction * distance, center, Vec3::Y, fov)
}

/// Mesh file kinds [`load_mesh_file`] reads, by extension.
pub const MESH_EXTENSIONS: &[&str] = &[".obj", ".ply", ".ply.gz", ".gltf", ".glb"];

fn lower_name(path: &Path) -> String {
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
    if name.ends_with(".obj") {
        crate::obj::load_obj(path)
    } else if name.ends_with(".ply") || name.ends_with(".ply.gz") {
        crate::ply::load_ply(path)
    } else if name.ends_with(".gltf") || name.ends_with(".glb") {
        crate::gltf_loader::load_gltf(path)
    } else {
        Err(SceneError::Unsupported { path: path.to_path_buf(), expected: MESH_EXTENSIONS.join(", ") })
    }
}

/// Loads an image file as a texture (linear RGB; 8-bit formats are sRGB-decoded).
pub fn load_texture(path: &Path) -> Result<Texture, SceneError> {
    crate::image_io::load_image(path)
}

/// Opens a `.toml` scene, or a bare mesh file as a scene: the mesh with its own materials
/// (the default diffuse gray where it has none), its own camera or one framing its
/// bounds, and a constant white environment.
pub fn load_any(path: &Path) -> Result<Scene, SceneError> {
    let name = lower_name(path);
    if name.ends_with(".toml") {
        return load_toml_scene(path);
    }
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
    Ok(scene)
}

// ---------------------------------------------------------------------------------------
// The TOML format
// ---------------------------------------------------------------------------------------

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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvironmentSection {
    #[serde(rename = "type")]
    kind: Spanned<String>,
    radiance: Option<Spanned<Triple>>,
    file: Option<Spanned<String>>,
    scale: Option<Spanned<f32>>,
    rotate_y: Option<f32>,
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
            let texture = load_texture(&texture_path)?;
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
    let mut file_camera = None;
    for (shape_index, section) in file.shape.iter().enumerate() {
        let shape = section.get_ref();
        let kind = shape.kind.get_ref().as_str();
        let to_world = shape_transform(&source, shape, section.span())?;
        if shape.interior.is_some() || shape.exterior.is_some() {
            let interior = shape.interior.as_ref().map(&medium_id).transpose()?;
            let exterior = shape.exterior.as_ref().map(&medium_id).transpose()?;
            shape_interfaces.push((builder.scene.meshes.len(), interface::pack(interior, exterior)));
        } else {
            shape_interfaces.push((builder.scene.meshes.len(), 0));
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
                    let mut m = builder.scene.materials[material as usize].with_emission(e);
                    if shape.two_sided_emission == Some(true) {
                        m.flags |= flags::TWO_SIDED_EMISSION;
                    }
                    let name = format!("{}+emission@{shape_name}", builder.scene.material_names[material as usize]);
                    builder.add_material(&name, m)
                }
                None => material,
            }
        };
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
                    format!("unknown shape type '{other}' (expected mesh, rectangle, cube or sphere)"),
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
        Some(env) => environment_from_section(&source, env)?,
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
    scene.settings = settings;
    scene.environment = environment;
    scene.camera = match camera {
        Some(c) => c,
        None => file_camera.map(|(c, _)| c).unwrap_or_else(|| framing_camera(scene.bounds())),
    };
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

fn render_settings(source: &SourceText, render: &RenderSection) -> Result<RenderSettings, SceneError> {
    let mut s = RenderSettings::default();
    let ranged = |value: &Option<Spanned<i64>>, name: &str, min: i64, max: i64, default: u32| match value {
        None => Ok(default),
        Some(v) if (min..=max).contains(v.get_ref()) => Ok(*v.get_ref() as u32),
        Some(v) => Err(source.error_at(v.span(), format!("{name} = {} is out of range [{min}, {max}]", v.get_ref()))),
    };
    s.width = ranged(&render.width, "width", 1, MAX_RESOLUTION as i64, s.width)?;
    s.height = ranged(&render.height, "height", 1, MAX_RESOLUTION as i64, s.height)?;
    s.spp = ranged(&render.spp, "spp", 1, 1 << 24, s.spp)?;
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
            let texture = load_texture(&image_path)?;
            let rotation = Mat3::from_rotation_y(e.rotate_y.unwrap_or(0.0).to_radians());
            Ok(Environment::Map(EnvMap::new(texture.width, texture.height, texture.pixels, rotation, scale)))
        }
        other => Err(source
            .error_at(e.kind.span(), format!("unknown environment type '{other}' (expected none, constant or map)"))),
    }
}
