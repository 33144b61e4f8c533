//! The in-memory scene every backend renders: world-space triangles flattened from all
//! meshes, one material per triangle, textures, the environment, the camera and the
//! render settings.

use glam::{Vec2, Vec3};
use std::path::Path;
use std::sync::Arc;
use warpath_core::camera::Camera;
use warpath_core::light::{DeltaLight, Environment, LightSet, TriangleLight};
use warpath_core::material::Material;
use warpath_core::math::Aabb;
use warpath_core::sampler::SamplerKind;
use warpath_isosurface::PlacedIsosurface;
use warpath_volume::Medium;

/// `max_depth` of a render with no depth limit (a scene's `max_depth = -1`).
pub const UNLIMITED_DEPTH: u32 = u32::MAX;

/// Largest image side a scene (or the command line) may ask for.
pub const MAX_RESOLUTION: u32 = 16384;
/// Most samples per pixel a scene (or the command line) may ask for.
pub const MAX_SPP: u32 = 1 << 24;
/// Largest finite `max_depth` a scene (or the command line) may ask for; a scene's `-1`
/// asks for no limit ([`UNLIMITED_DEPTH`]).
pub const MAX_DEPTH: u32 = 100_000;

/// Render settings a scene file may set; the command line overrides them.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderSettings {
    pub width: u32,
    pub height: u32,
    /// Samples per pixel.
    pub spp: u32,
    /// Maximum number of bounces (8 = Mitsuba's `max_depth` 9). Bounce 0 is the first
    /// surface hit after the camera ray; emitted light seen directly needs 0 bounces.
    /// The volumetric path tracer counts medium and surface vertices alike.
    /// [`UNLIMITED_DEPTH`] (`u32::MAX`) sets no limit.
    pub max_depth: u32,
    pub seed: u32,
    pub sampler: SamplerKind,
    /// Russian roulette threshold on the path weight (seed 000 §3.2: 5%).
    pub rr_threshold: f32,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            width: 512,
            height: 512,
            spp: 64,
            max_depth: 8,
            seed: 0,
            sampler: SamplerKind::PaddedHalton,
            rr_threshold: 0.05,
        }
    }
}

/// An RGB texture in linear color, row-major with the top row first.
/// Largest side of a texture baked from a procedural one (a checkerboard).
pub const BAKED_TEXTURE_MAX_SIDE: u32 = 2048;

#[derive(Clone, Debug)]
pub struct Texture {
    pub name: String,
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<Vec3>,
}

impl Texture {
    /// Bakes a procedural texture (a checkerboard, ...) into a `width × height` image: each
    /// pixel holds `color` at its centre, in warpath's uv ((0, 0) the bottom-left). Sizes
    /// beyond warpath's image limits are errors naming `name`.
    pub fn bake(name: &str, width: u32, height: u32, color: impl Fn(Vec2) -> Vec3) -> Result<Texture, String> {
        warpath_core::limits::check_image(&format!("the baked texture '{name}'"), width as u64, height as u64, 12)
            .map_err(|e| e.to_string())?;
        let mut pixels = Vec::with_capacity((width as usize) * (height as usize));
        for y in 0..height {
            // Rows are stored top first.
            let v = 1.0 - (y as f32 + 0.5) / height as f32;
            for x in 0..width {
                pixels.push(color(Vec2::new((x as f32 + 0.5) / width as f32, v)));
            }
        }
        Ok(Texture { name: name.to_string(), width, height, pixels })
    }

    /// Bilinear lookup with repeat wrapping; `uv` (0,0) is the bottom-left of the image
    /// (OBJ/glTF convention differences are resolved by the loaders).
    pub fn sample(&self, uv: Vec2) -> Vec3 {
        let (w, h) = (self.width as i64, self.height as i64);
        if w == 0 || h == 0 {
            return Vec3::ZERO;
        }
        let x = uv.x.rem_euclid(1.0) * w as f32 - 0.5;
        let y = (1.0 - uv.y.rem_euclid(1.0)) * h as f32 - 0.5;
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let at = |xi: i64, yi: i64| self.pixels[(yi.rem_euclid(h) * w + xi.rem_euclid(w)) as usize];
        let (xi, yi) = (x0 as i64, y0 as i64);
        let top = at(xi, yi).lerp(at(xi + 1, yi), fx);
        let bottom = at(xi, yi + 1).lerp(at(xi + 1, yi + 1), fx);
        top.lerp(bottom, fy)
    }

    /// The (u, v) gradient of [`Texture::sample`]'s red channel (a bump map's height):
    /// `warpath_core::bump_map::height_gradient` of the four texels the lookup blends.
    pub fn height_gradient(&self, uv: Vec2) -> Vec2 {
        let (w, h) = (self.width as i64, self.height as i64);
        if w == 0 || h == 0 {
            return Vec2::ZERO;
        }
        let x = uv.x.rem_euclid(1.0) * w as f32 - 0.5;
        let y = (1.0 - uv.y.rem_euclid(1.0)) * h as f32 - 0.5;
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let at = |xi: i64, yi: i64| self.pixels[(yi.rem_euclid(h) * w + xi.rem_euclid(w)) as usize].x;
        let (xi, yi) = (x0 as i64, y0 as i64);
        let texels = [at(xi, yi), at(xi + 1, yi), at(xi, yi + 1), at(xi + 1, yi + 1)];
        warpath_core::bump_map::height_gradient(texels, fx, fy, self.width, self.height)
    }

    /// This texture as one channel: every texel's `channel` (0 red, 1 green, 2 blue, 3 the
    /// mean of the three, as pbrt-v4 reads an RGB image as a float texture) or, for `None`, its luminance (Rec. 709, as Mitsuba's `eval_1` reads an RGB bitmap), copied to
    /// all three (the renderers read the red one). `map` transforms each value.
    pub fn single_channel(&self, name: &str, channel: Option<usize>, map: impl Fn(f32) -> f32) -> Texture {
        let pixels = self
            .pixels
            .iter()
            .map(|c| {
                let v = match channel {
                    Some(3) => (c.x + c.y + c.z) / 3.0,
                    Some(i) => c[i],
                    None => 0.212671 * c.x + 0.715160 * c.y + 0.072169 * c.z,
                };
                Vec3::splat(map(v))
            })
            .collect();
        Texture { name: name.to_string(), width: self.width, height: self.height, pixels }
    }
}

/// A named range of triangles, for `warpath info` and error messages.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshInfo {
    pub name: String,
    pub first_triangle: u32,
    pub triangle_count: u32,
}

/// An isosurface shape (`[[shape]] type = "isosurface"`, issue 14): a volume's level set
/// placed in the world with one material. The path tracers number its hits after the
/// triangles: hit id `triangle_count() + k` is isosurface `k`.
#[derive(Clone, Debug)]
pub struct SceneIsosurface {
    pub name: String,
    pub material: u32,
    /// The lattice, its brick tree condensed at the isovalue and the world ↔ lattice map
    /// (shared: a 512³ volume is half a gigabyte).
    pub surface: Arc<PlacedIsosurface>,
}

#[derive(Clone, Debug, Default)]
pub struct Scene {
    pub name: String,
    /// World-space vertex positions.
    pub positions: Vec<Vec3>,
    /// Per-vertex shading normals (same length as `positions`), or empty. When some
    /// meshes have normals and others not, the loader gives the others flat normals (by
    /// splitting their vertices), so this is always empty or complete.
    pub normals: Vec<Vec3>,
    /// Per-vertex texture coordinates (same length as `positions`), or empty.
    pub uvs: Vec<Vec2>,
    /// Vertex indices of every triangle. Loaders drop degenerate triangles (and say so
    /// in `warnings`) and reject non-finite vertices with an error.
    pub triangles: Vec<[u32; 3]>,
    /// Material index of every triangle.
    pub triangle_materials: Vec<u32>,
    pub materials: Vec<Material>,
    pub material_names: Vec<String>,
    pub textures: Vec<Texture>,
    pub meshes: Vec<MeshInfo>,
    pub environment: Environment,
    /// Point, spot and directional lights (only next-event estimation sees them).
    pub delta_lights: Vec<DeltaLight>,
    pub camera: Camera,
    pub settings: RenderSettings,
    /// Participating media, each the interior (or exterior) of shapes that name it.
    pub media: Vec<Medium>,
    /// Per triangle, the media its shape separates (`warpath_volume::medium::interface`
    /// packing; 0: the shape declares none), or empty when no shape declares media.
    pub triangle_media: Vec<u32>,
    /// The medium the camera sits in (index into `media`), if any.
    pub camera_medium: Option<u32>,
    /// Isosurface shapes (surface path tracer only: a scene with media cannot have them).
    pub isosurfaces: Vec<SceneIsosurface>,
    /// Things a user should know that did not stop loading (dropped triangles, ...).
    pub warnings: Vec<String>,
}

impl Scene {
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    pub fn triangle_vertices(&self, i: usize) -> [Vec3; 3] {
        let [a, b, c] = self.triangles[i];
        [self.positions[a as usize], self.positions[b as usize], self.positions[c as usize]]
    }

    /// Every triangle's three world-space vertices, the layout the BVH builds over.
    pub fn triangle_soup(&self) -> Vec<[Vec3; 3]> {
        (0..self.triangles.len()).map(|i| self.triangle_vertices(i)).collect()
    }

    /// The box of the triangles and the isosurfaces' volumes.
    pub fn bounds(&self) -> Aabb {
        self.isosurfaces.iter().fold(Aabb::from_points(&self.positions), |b, iso| {
            b.grow(iso.surface.world_bounds.0).grow(iso.surface.world_bounds.1)
        })
    }

    /// The hit id of isosurface `k` (after every triangle id).
    pub fn isosurface_hit_id(&self, k: usize) -> u32 {
        (self.triangles.len() + k) as u32
    }

    /// The isosurface a hit id names, if it names one.
    pub fn isosurface_of_hit(&self, id: u32) -> Option<&SceneIsosurface> {
        (id as usize).checked_sub(self.triangles.len()).and_then(|k| self.isosurfaces.get(k))
    }

    /// The lights: every triangle whose material emits, the environment, and the delta lights.
    pub fn light_set(&self) -> LightSet {
        let mut lights = Vec::new();
        for (i, &m) in self.triangle_materials.iter().enumerate() {
            let mat = &self.materials[m as usize];
            if mat.is_emissive() {
                let [a, b, c] = self.triangle_vertices(i);
                let light = TriangleLight::new(a, b, c, mat.emission, mat.two_sided_emission(), i as u32);
                if light.area > 0.0 {
                    lights.push(light);
                }
            }
        }
        let b = self.bounds();
        let radius = if b.is_empty() { 1.0 } else { 0.5 * b.extent().length() };
        LightSet::with_delta_lights(
            lights,
            self.triangles.len(),
            self.environment.clone(),
            self.delta_lights.clone(),
            radius,
        )
    }

    /// Whether anything in the scene emits light: an emissive triangle, an environment
    /// that is not black, or a point, spot or directional light.
    pub fn has_light(&self) -> bool {
        let emissive_triangle = self.triangle_materials.iter().any(|&m| self.materials[m as usize].is_emissive());
        let environment = match &self.environment {
            Environment::None => false,
            Environment::Constant(c) => c.max_element() > 0.0,
            Environment::Map(m) => m.scale > 0.0 && m.pixels.iter().any(|p| p.max_element() > 0.0),
        };
        let delta = self.delta_lights.iter().any(|l| l.intensity.max_element() > 0.0);
        emissive_triangle || environment || delta
    }

    /// Warnings for a scene loaded from `source` whose image will be black or empty: no
    /// geometry, or no light. Loaders add them to [`Scene::warnings`]. A medium counts as
    /// content (a camera in fog under a sky shows the fog without a single triangle).
    pub fn content_warnings(&self, source: &Path) -> Vec<String> {
        let file = source.display();
        let lit = self.has_light();
        match (self.triangles.is_empty() && self.media.is_empty() && self.isosurfaces.is_empty(), lit) {
            (true, false) => {
                vec![format!("{file}: the scene has no geometry and no light: the image will be black")]
            }
            (true, true) => vec![format!(
                "{file}: the scene has no geometry (no shape with triangles): the image will show only the environment"
            )],
            (false, false) => vec![format!(
                "{file}: the scene has no light (no emissive material, no environment): the image will be black"
            )],
            (false, true) => Vec::new(),
        }
    }

    /// Gives every triangle of mesh `mesh` the packed medium interface `packed`, for each
    /// `(mesh, packed)` of `mesh_media` (the importers' shapes with interior/exterior media);
    /// the other triangles get 0 (no media). Nothing changes when `mesh_media` is empty.
    pub(crate) fn set_mesh_media(&mut self, mesh_media: &[(usize, u32)]) {
        if mesh_media.is_empty() {
            return;
        }
        self.triangle_media = vec![0; self.triangles.len()];
        for &(mesh, packed) in mesh_media {
            let m = &self.meshes[mesh];
            let range = m.first_triangle as usize..(m.first_triangle + m.triangle_count) as usize;
            self.triangle_media[range].fill(packed);
        }
    }

    /// Whether the scene needs the volumetric path tracer: it has media, or index-matched
    /// (`null`) boundaries, which only that estimator crosses.
    pub fn needs_volume_estimator(&self) -> bool {
        !self.media.is_empty() || self.materials.iter().any(|m| m.is_null())
    }

    /// The packed medium interface of triangle `i` (0 where none is declared).
    pub fn triangle_medium_interface(&self, i: usize) -> u32 {
        self.triangle_media.get(i).copied().unwrap_or(0)
    }

    /// Bytes the scene's geometry and textures occupy in memory.
    pub fn memory_bytes(&self) -> usize {
        self.positions.len() * 12
            + self.normals.len() * 12
            + self.uvs.len() * 8
            + self.triangles.len() * 16
            + self.materials.len() * std::mem::size_of::<Material>()
            + self.textures.iter().map(|t| t.pixels.len() * 12).sum::<usize>()
            + self.triangle_media.len() * 4
            + self.media.iter().map(|m| m.memory_bytes() as usize).sum::<usize>()
            + self.isosurfaces.iter().map(|i| i.surface.lattice.values.len() * 4).sum::<usize>()
    }
}
