//! pbrt-v4 shapes as warpath meshes: `trianglemesh`, `bilinearmesh` (two triangles per
//! patch), `plymesh` (`.ply` and `.ply.gz` through warpath's PLY reader), `sphere` (an
//! icosphere) and `disk` (a triangle fan); `loopsubdiv` is its control mesh, unsubdivided.
//! The rest (`cylinder`, `curve`, ...) are warnings. `ObjectBegin`/`ObjectInstance`
//! instances are flattened into the triangle list (warpath has no instancing yet).

use super::*;
use crate::builtin;
use crate::mesh_file::load_mesh_file;
use crate::mitsuba_xml::{DISK_SEGMENTS, SPHERE_SUBDIVISIONS, disk_mesh};
use glam::Vec2;
use warpath_core::material::{Material, flags};

/// Reflectance of pbrt's default material (a `diffuse` of reflectance 0.5).
pub const DEFAULT_REFLECTANCE: f32 = 0.5;

impl Loader {
    pub(super) fn shape(&mut self, kind: &str, mut p: Params) -> Result<(), SceneError> {
        let line = p.line;
        let at = p.at();
        let p_path = p.path.clone();
        let index = self.shape_count;
        self.shape_count += 1;
        let name = format!("{kind}#{index}");
        let mut source = p.path.clone();
        let mut mesh = match kind {
            "trianglemesh" => Some(triangle_mesh(&mut p)?),
            "bilinearmesh" => Some(bilinear_mesh(&mut p)?),
            "loopsubdiv" => {
                let (indices, iline) = p
                    .indices("indices")?
                    .ok_or_else(|| p.error(line, "a 'loopsubdiv' shape needs \"integer indices\""))?;
                let positions = points(&mut p, "P", "point3")?.unwrap_or_default();
                self.warn(format!(
                    "{at}: Shape \"loopsubdiv\": rendered as its control mesh (warpath does not subdivide); levels ignored"
                ));
                p.take("levels");
                Some(mesh_from(&p, positions, Vec::new(), Vec::new(), &indices, 3, iline)?)
            }
            "plymesh" => {
                let Some((file, fline)) = p.string("filename")? else {
                    return Err(p.error(line, "a 'plymesh' needs \"string filename\""));
                };
                let path = self.resolve(&p.path, fline, &file);
                if !path.is_file() {
                    self.missing(&p, fline, "mesh file", &path)?;
                    p.ignore_all();
                    p.finish(self.warnings());
                    return Ok(());
                }
                let asset = load_mesh_file(&path)?;
                for w in &asset.warnings {
                    self.warn(w.clone());
                }
                for key in ["displacement", "edgelength"] {
                    if let Some(q) = p.take(key) {
                        self.warn(format!(
                            "{}: Shape \"plymesh\": '{key}' is not supported (warpath does not displace meshes)",
                            p.at_line(q.line)
                        ));
                    }
                }
                source = path;
                let mut merged = TriangleMesh::default();
                for m in asset.meshes {
                    let base = merged.positions.len() as u32;
                    merged.positions.extend(&m.positions);
                    merged.normals.extend(&m.normals);
                    merged.uvs.extend(&m.uvs);
                    merged.triangles.extend(m.triangles.iter().map(|t| t.map(|i| i + base)));
                }
                if merged.normals.len() != merged.positions.len() {
                    merged.normals.clear();
                }
                if merged.uvs.len() != merged.positions.len() {
                    merged.uvs.clear();
                }
                Some(merged)
            }
            "sphere" => {
                let radius = p.float_or("radius", 1.0)?;
                if !(radius > 0.0) {
                    return Err(p.error(line, format!("sphere radius {radius} must be positive")));
                }
                let (zmin, zmax, phimax) = (p.float("zmin")?, p.float("zmax")?, p.float_or("phimax", 360.0)?);
                if zmin.is_some_and(|z| z > -radius) || zmax.is_some_and(|z| z < radius) || phimax < 360.0 {
                    self.warn(format!(
                        "{at}: Shape \"sphere\": partial spheres (zmin, zmax, phimax) are rendered whole"
                    ));
                }
                let mut m = builtin::sphere_mesh(SPHERE_SUBDIVISIONS);
                for v in m.positions.iter_mut() {
                    *v *= radius;
                }
                Some(m)
            }
            "disk" => {
                let radius = p.float_or("radius", 1.0)?;
                let height = p.float_or("height", 0.0)?;
                if !(radius > 0.0) {
                    return Err(p.error(line, format!("disk radius {radius} must be positive")));
                }
                if p.float_or("innerradius", 0.0)? > 0.0 || p.float_or("phimax", 360.0)? < 360.0 {
                    self.warn(format!(
                        "{at}: Shape \"disk\": innerradius and phimax are not supported (a full disk is rendered)"
                    ));
                }
                let mut m = disk_mesh(DISK_SEGMENTS);
                for v in m.positions.iter_mut() {
                    *v = Vec3::new(v.x * radius, v.y * radius, height);
                }
                Some(m)
            }
            other => {
                p.ignore_all();
                let what =
                    if SHAPES.contains(&other) { "is not supported by warpath" } else { "is not a pbrt-v4 shape" };
                self.warn(format!("{at}: Shape \"{other}\" {what}; it is not rendered"));
                None
            }
        };
        // pbrt's `alpha`: an opacity mask on the shape's material (warpath_core::opacity). pbrt
        // cuts out in the intersection routine (a stochastic alpha test that every ray, shadow
        // rays too, makes, no bounce); warpath's mask is Mitsuba's: the same mean, but the
        // surface path tracer counts a pass-through as a bounce and stops shadow rays at it.
        let mut mask: Option<(f32, i32)> = None;
        if let Some(q) = p.take("alpha") {
            let bad = |m: String| p.error(q.line, m);
            mask = match (&q.values, q.ty.as_str()) {
                (params::Values::Num(v), "float") if v.len() == 1 => Some(((v[0] as f32).clamp(0.0, 1.0), -1)),
                (params::Values::Str(s), "texture") if s.len() == 1 => match self.float_images.get(&s[0]) {
                    Some(&i) => Some((1.0, i)),
                    None => match self.float_textures.get(&s[0]) {
                        Some(&f) => Some((f.clamp(0.0, 1.0), -1)),
                        None => return Err(bad(format!("'alpha': no float texture named \"{}\"", s[0]))),
                    },
                },
                _ => return Err(bad("'alpha' must be one float or a float texture".into())),
            };
            if mask.is_some_and(|(a, t)| a < 1.0 || t >= 0) {
                self.warn(format!(
                    "{}: {}: 'alpha' is rendered as Mitsuba's mask (same mean image; with the surface path tracer a \
                     pass-through counts toward maxdepth and shadow rays stop at the shape, where pbrt's alpha test \
                     skips the hit for every ray)",
                    p.at_line(q.line),
                    p.what
                ));
            } else {
                mask = None;
            }
        }
        for key in ["emissionfilename", "emission"] {
            if let Some(q) = p.take(key) {
                self.warn(format!("{}: {}: '{key}' is not supported and is ignored", p.at_line(q.line), p.what));
            }
        }
        p.finish(self.warnings());
        let Some(mut mesh) = mesh.take() else { return Ok(()) };
        mesh.name = name;
        orient_by_normals(&mut mesh);
        if self.g.reverse_orientation {
            for t in mesh.triangles.iter_mut() {
                t.swap(1, 2);
            }
            for n in mesh.normals.iter_mut() {
                *n = -*n;
            }
        }
        let material = self.current_material();
        let material = match mask {
            Some((opacity, texture)) => self.masked_material(material, opacity, texture),
            None => material,
        };
        let material = match self.g.area_light {
            Some(light) => self.emissive_material(material, light, &at),
            None => material,
        };
        let media = self.shape_media();
        let placed = Placed { mesh: Arc::new(mesh), to_world: self.g.ctm, material, media, source };
        if let Some((_, shapes)) = &mut self.object {
            shapes.push(placed);
            return Ok(());
        }
        let file = PathBuf::from(&p_path);
        self.add_placed(&placed, Mat4::IDENTITY, &file, line)
    }

    /// Adds a shape to the scene under `outer` (an instance's transform).
    fn add_placed(&mut self, placed: &Placed, outer: Mat4, file: &Path, line: usize) -> Result<(), SceneError> {
        let mesh_index = self.builder.mesh_count();
        let scene = self.builder.scene_mut();
        let (triangles, vertices) = (scene.triangles.len(), scene.positions.len());
        let limit = |e: warpath_core::limits::LimitError| SceneError::Parse {
            path: file.to_path_buf(),
            line,
            message: e.to_string(),
        };
        warpath_core::limits::check_count(
            "the scene's triangles",
            (triangles + placed.mesh.triangles.len()) as u64,
            BYTES_PER_TRIANGLE,
        )
        .map_err(limit)?;
        warpath_core::limits::check_count(
            "the scene's vertices",
            (vertices + placed.mesh.positions.len()) as u64,
            BYTES_PER_VERTEX,
        )
        .map_err(limit)?;
        self.builder.add_mesh(&placed.mesh, outer * placed.to_world, placed.material, &placed.source).map_err(|e| {
            match e {
                SceneError::Invalid { message, .. } => SceneError::Parse { path: file.to_path_buf(), line, message },
                other => other,
            }
        })?;
        if let Some(packed) = placed.media {
            self.mesh_media.push((mesh_index, packed));
        }
        Ok(())
    }

    pub(super) fn instance(&mut self, name: &str, lx: &Lexer, line: usize) -> Result<(), SceneError> {
        if self.object.is_some() {
            return Err(lx.error(line, "ObjectInstance inside ObjectBegin (pbrt does not nest instances)"));
        }
        let Some(shapes) = self.objects.get(name).cloned() else {
            return Err(lx.error(line, format!("ObjectInstance: no object named \"{name}\" (ObjectBegin it first)")));
        };
        let triangles: usize = shapes.iter().map(|s| s.mesh.triangles.len()).sum();
        if self.builder.scene_mut().triangles.len() + triangles > MAX_TRIANGLES {
            return Err(lx.error(
                line,
                format!("ObjectInstance \"{name}\": flattening instances exceeds {MAX_TRIANGLES} triangles (warpath has no instancing yet)"),
            ));
        }
        for s in &shapes {
            self.add_placed(s, self.g.ctm, &lx.path, line)?;
        }
        Ok(())
    }

    /// The current material, or pbrt's default (a two-sided diffuse of 0.5).
    pub(super) fn current_material(&mut self) -> u32 {
        if let Some(m) = self.g.material {
            return m;
        }
        if let Some(m) = self.default_material {
            return m;
        }
        let m = self.builder.add_material("pbrt-default", Material::diffuse(Vec3::splat(DEFAULT_REFLECTANCE)));
        self.default_material = Some(m);
        m
    }

    /// A `MakeNamedMaterial` that defines a name used before: its material (`defined`) is
    /// copied into the placeholder, and the emissive variants made from the placeholder are
    /// made again from it.
    pub(super) fn fill_placeholder(&mut self, placeholder: u32, defined: u32, at: &str) {
        let scene = self.builder.scene_mut();
        scene.materials[placeholder as usize] = scene.materials[defined as usize];
        let mut variants: Vec<_> =
            self.emissive.iter().filter(|(k, _)| k.0 == placeholder).map(|(k, &m)| (*k, m)).collect();
        variants.sort_by_key(|v| v.1);
        for ((_, radiance, two_sided), m) in variants {
            let light = AreaLight { radiance: Vec3::from_array(radiance.map(f32::from_bits)), two_sided };
            let base = self.emissive_base(placeholder, light, at);
            self.builder.scene_mut().materials[m as usize] = base;
        }
    }

    /// The emissive variant of `material` for `light`.
    fn emissive_base(&mut self, material: u32, light: AreaLight, at: &str) -> Material {
        let scene = self.builder.scene_mut();
        let mut base = scene.materials[material as usize];
        if base.is_null() {
            // warpath's null boundary cannot emit: an emitter that absorbs what reaches it.
            base = Material::black();
            let name = scene.material_names[material as usize].clone();
            self.warn(format!(
                "{at}: an area light on the interface material '{name}' is rendered as an emitter that absorbs light (warpath's \
                 null boundary cannot emit)"
            ));
        }
        let mut base = base.with_emission(light.radiance);
        if light.two_sided {
            base.flags |= flags::TWO_SIDED_EMISSION;
        }
        base
    }

    /// `material` with a shape's alpha as its opacity, made once per (material, alpha).
    fn masked_material(&mut self, material: u32, opacity: f32, texture: i32) -> u32 {
        let key = (material, opacity.to_bits(), texture);
        if let Some(&m) = self.masked.get(&key) {
            return m;
        }
        let scene = self.builder.scene_mut();
        let masked = scene.materials[material as usize].with_opacity(opacity, texture);
        let name = format!("{}+alpha", scene.material_names[material as usize]);
        let m = self.builder.add_material(&name, masked);
        self.masked.insert(key, m);
        m
    }

    fn emissive_material(&mut self, material: u32, light: AreaLight, at: &str) -> u32 {
        let key = (material, light.radiance.to_array().map(f32::to_bits), light.two_sided);
        if let Some(&m) = self.emissive.get(&key) {
            return m;
        }
        let base = self.emissive_base(material, light, at);
        let name = format!("{}+emission", self.builder.scene_mut().material_names[material as usize]);
        let m = self.builder.add_material(&name, base);
        self.emissive.insert(key, m);
        m
    }
}

/// What a triangle and a vertex cost in the scene (for the memory guard): indices and
/// material; position, normal and uv.
const BYTES_PER_TRIANGLE: u64 = 16;
const BYTES_PER_VERTEX: u64 = 32;

/// Most triangles flattened instancing may produce.
const MAX_TRIANGLES: usize = 1 << 28;

/// pbrt-v4's shapes, for telling an unsupported one from a misspelt one.
const SHAPES: &[&str] = &[
    "trianglemesh",
    "plymesh",
    "sphere",
    "disk",
    "bilinearmesh",
    "loopsubdiv",
    "cylinder",
    "curve",
    "cone",
    "paraboloid",
    "hyperboloid",
    "nurbs",
    "heightfield",
];

/// Where a mesh has normals, pbrt's surface normal follows them (not the winding): each
/// triangle is wound so that its geometric normal agrees with its vertices' normals, which
/// decides the emitting side of an area light and the outside of a dielectric in warpath.
fn orient_by_normals(mesh: &mut TriangleMesh) {
    if mesh.normals.len() != mesh.positions.len() {
        return;
    }
    let (p, n) = (&mesh.positions, &mesh.normals);
    for t in mesh.triangles.iter_mut() {
        let [a, b, c] = t.map(|i| i as usize);
        if a.max(b).max(c) >= p.len() {
            continue;
        }
        let face = (p[b] - p[a]).cross(p[c] - p[a]);
        if face.dot(n[a] + n[b] + n[c]) < 0.0 {
            t.swap(1, 2);
        }
    }
}

/// Triples of a `point3`/`normal3` parameter.
fn points(p: &mut Params, name: &str, ty: &str) -> Result<Option<Vec<Vec3>>, SceneError> {
    let Some((v, line)) = p.numbers(name, &[ty])? else { return Ok(None) };
    if v.len() % 3 != 0 {
        return Err(p.error(line, format!("'{name}' holds {} numbers, not a multiple of 3", v.len())));
    }
    Ok(Some(v.chunks_exact(3).map(|c| Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32)).collect()))
}

fn uvs(p: &mut Params) -> Result<Vec<Vec2>, SceneError> {
    let key = if p.has("uv") { "uv" } else { "st" };
    let Some((v, line)) = p.numbers(key, &["point2", "float"])? else { return Ok(Vec::new()) };
    if v.len() % 2 != 0 {
        return Err(p.error(line, format!("'{key}' holds {} numbers, not a multiple of 2", v.len())));
    }
    Ok(v.chunks_exact(2).map(|c| Vec2::new(c[0] as f32, c[1] as f32)).collect())
}

/// A mesh from flat indices, `corners` per face (3: triangles; 4: bilinear patches).
fn mesh_from(
    p: &Params,
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    indices: &[u32],
    corners: usize,
    line: usize,
) -> Result<TriangleMesh, SceneError> {
    if indices.len() % corners != 0 {
        return Err(p.error(line, format!("'indices' holds {} values, not a multiple of {corners}", indices.len())));
    }
    if let Some(&bad) = indices.iter().find(|&&i| i as usize >= positions.len()) {
        return Err(p.error(line, format!("index {bad} is out of range ({} vertices)", positions.len())));
    }
    for (what, n) in [("N", normals.len()), ("uv", uvs.len())] {
        if n != 0 && n != positions.len() {
            return Err(p.error(p.line, format!("'{what}' has {n} entries for {} vertices", positions.len())));
        }
    }
    let triangles = if corners == 3 {
        indices.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
    } else {
        // Patch corners p00, p10, p01, p11: triangles (p00, p10, p11) and (p00, p11, p01)
        // keep the patch's orientation (∂p/∂u × ∂p/∂v).
        indices.chunks_exact(4).flat_map(|c| [[c[0], c[1], c[3]], [c[0], c[3], c[2]]]).collect()
    };
    Ok(TriangleMesh { name: String::new(), positions, normals, uvs, triangles, material: None })
}

fn triangle_mesh(p: &mut Params) -> Result<TriangleMesh, SceneError> {
    let line = p.line;
    let positions = points(p, "P", "point3")?.ok_or_else(|| p.error(line, "a 'trianglemesh' needs \"point3 P\""))?;
    let (indices, iline) = match p.indices("indices")? {
        Some(i) => i,
        None if positions.len() == 3 => (vec![0, 1, 2], line),
        None => {
            return Err(p.error(line, "a 'trianglemesh' needs \"integer indices\" (unless it has exactly 3 points)"));
        }
    };
    let normals = points(p, "N", "normal3")?.unwrap_or_default();
    let uvs = uvs(p)?;
    for key in ["S", "faceIndices"] {
        p.take(key);
    }
    mesh_from(p, positions, normals, uvs, &indices, 3, iline)
}

fn bilinear_mesh(p: &mut Params) -> Result<TriangleMesh, SceneError> {
    let line = p.line;
    let positions = points(p, "P", "point3")?.ok_or_else(|| p.error(line, "a 'bilinearmesh' needs \"point3 P\""))?;
    let (indices, iline) = match p.indices("indices")? {
        Some(i) => i,
        None if positions.len() == 4 => (vec![0, 1, 2, 3], line),
        None => {
            return Err(p.error(line, "a 'bilinearmesh' needs \"integer indices\" (unless it has exactly 4 points)"));
        }
    };
    let normals = points(p, "N", "normal3")?.unwrap_or_default();
    let uvs = uvs(p)?;
    p.take("faceIndices");
    mesh_from(p, positions, normals, uvs, &indices, 4, iline)
}
