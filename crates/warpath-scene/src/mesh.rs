//! The mesh builder every loader shares: [`TriangleMesh`] / [`MeshAsset`] (what a mesh
//! file loads into, in its own object space) and [`SceneBuilder`], which places meshes in
//! the world with validation: non-finite vertices and out-of-range indices are errors,
//! degenerate triangles are dropped with a warning, normals go through the inverse
//! transpose, mirrored transforms flip the winding.
//!
//! The mesh loaders (`obj`, `ply`, `gltf_loader`), the built-in scenes and the TOML reader
//! all build on this module; it depends on none of them.

use crate::{MeshInfo, Scene, SceneError, Texture};
use glam::{Mat3, Mat4, Vec2, Vec3};
use std::path::Path;
use warpath_core::camera::Camera;
use warpath_core::material::Material;
use warpath_core::math::Aabb;

/// Albedo of the material given to geometry that names none.
pub const DEFAULT_ALBEDO: f32 = 0.8;

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
    /// A tangent-space normal map (raw texels).
    pub normal_texture: Option<Texture>,
    /// One-channel textures (gray, raw) multiplying the roughness and the metallic weight.
    pub roughness_texture: Option<Texture>,
    pub metallic_texture: Option<Texture>,
    /// An opacity map (its first channel; glTF's base colour alpha).
    pub opacity_texture: Option<Texture>,
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
    /// One-channel textures derived from others ([`SceneBuilder::add_channel_texture`]):
    /// (source, channel, what the map is) to the derived texture's index.
    derived: std::collections::HashMap<(i32, Option<usize>, &'static str), i32>,
}

impl SceneBuilder {
    pub fn new(name: &str) -> Self {
        SceneBuilder {
            scene: Scene { name: name.to_string(), ..Scene::default() },
            mesh_has_normals: Vec::new(),
            mesh_has_uvs: Vec::new(),
            default_material: None,
            derived: Default::default(),
        }
    }

    pub fn scene_mut(&mut self) -> &mut Scene {
        &mut self.scene
    }

    /// Meshes added so far (the index the next [`SceneBuilder::add_mesh`] gets).
    pub fn mesh_count(&self) -> usize {
        self.scene.meshes.len()
    }

    pub fn warn(&mut self, message: String) {
        self.scene.warnings.push(message);
    }

    pub fn add_texture(&mut self, texture: Texture) -> i32 {
        self.scene.textures.push(texture);
        (self.scene.textures.len() - 1) as i32
    }

    /// A one-channel texture (gray, the renderers read its red channel) made from texture
    /// `source`: its `channel` (0 red, 1 green, 2 blue) or, for `None`, its luminance
    /// ([`Texture::single_channel`]), each value through `map`, which `map_name` names (the
    /// same source, channel and map give the same texture once).
    pub fn add_channel_texture(
        &mut self,
        source: i32,
        channel: Option<usize>,
        map_name: &'static str,
        map: impl Fn(f32) -> f32,
    ) -> i32 {
        if let Some(&i) = self.derived.get(&(source, channel, map_name)) {
            return i;
        }
        let original = &self.scene.textures[source as usize];
        let suffix = match channel {
            Some(c) => ["r", "g", "b", "mean"][c.min(3)],
            None => "luminance",
        };
        let name = format!(
            "{} ({suffix}{})",
            original.name,
            if map_name.is_empty() { String::new() } else { format!(", {map_name}") }
        );
        let texture = original.single_channel(&name, channel, map);
        let i = self.add_texture(texture);
        self.derived.insert((source, channel, map_name), i);
        i
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
                if let Some(t) = &am.normal_texture {
                    material.normal_texture = self.add_texture(t.clone());
                }
                if let Some(t) = &am.roughness_texture {
                    material.roughness_texture = self.add_texture(t.clone());
                }
                if let Some(t) = &am.metallic_texture {
                    material.metallic_texture = self.add_texture(t.clone());
                }
                if let Some(t) = &am.opacity_texture {
                    material.opacity_texture = self.add_texture(t.clone());
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
