//! Mitsuba shapes (`obj`, `ply`, `serialized`, `rectangle`, `cube`, `sphere`, `disk`) placed
//! by their `to_world` transforms, with their BSDF, area emitter (an emitter without a BSDF
//! gets Mitsuba's black diffuse) and media. The cube carries Mitsuba's per-face uv layout.

use super::instance::angle_weighted_normals;
use super::*;
use std::sync::Arc;
use warpath_volume::medium::interface;

/// A shape's meshes ready to place: in object space (uvs in warpath's convention, normals
/// flipped where asked), with the shape's transform, material and media. Shapes of a
/// `shapegroup` are kept so until an `instance` places them.
#[derive(Clone)]
pub(super) struct Placed {
    pub mesh: Arc<TriangleMesh>,
    pub to_world: Mat4,
    pub material: u32,
    /// The packed medium interface (`warpath_volume::medium::interface`), if the shape
    /// declares media.
    pub media: Option<u32>,
    /// The file the geometry came from (for the mesh builder's messages).
    pub source: PathBuf,
    /// Where the shape was declared (file, line), for errors while placing it.
    pub at: (PathBuf, usize),
}

/// What a triangle and a vertex cost in the scene (for the memory guard): indices and
/// material; position, normal and uv.
const BYTES_PER_TRIANGLE: u64 = 16;
const BYTES_PER_VERTEX: u64 = 32;

impl Loader {
    pub(super) fn shape(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        match kind.as_str() {
            "shapegroup" => return self.shapegroup(src, node),
            "instance" => return self.instance(src, node),
            _ => {}
        }
        let placed = self.shape_meshes(src, node, None)?;
        for p in &placed {
            self.add_placed(p, Mat4::IDENTITY, None)?;
        }
        Ok(())
    }

    /// Adds a placed shape to the scene under `outer` (an instance's transform), within the
    /// memory guard; `instance` names the mesh `INSTANCE/SHAPE`.
    pub(super) fn add_placed(
        &mut self,
        placed: &Placed,
        outer: Mat4,
        instance: Option<&str>,
    ) -> Result<(), SceneError> {
        let (file, line) = &placed.at;
        let at = |message: String| SceneError::Parse { path: file.clone(), line: *line, message };
        let mesh_index = self.builder.mesh_count();
        let scene = self.builder.scene_mut();
        let (triangles, vertices) = (scene.triangles.len(), scene.positions.len());
        warpath_core::limits::check_count(
            "the scene's triangles",
            (triangles + placed.mesh.triangles.len()) as u64,
            BYTES_PER_TRIANGLE,
        )
        .map_err(|e| at(e.to_string()))?;
        warpath_core::limits::check_count(
            "the scene's vertices",
            (vertices + placed.mesh.positions.len()) as u64,
            BYTES_PER_VERTEX,
        )
        .map_err(|e| at(e.to_string()))?;
        self.builder.add_mesh(&placed.mesh, outer * placed.to_world, placed.material, &placed.source).map_err(|e| {
            match e {
                SceneError::Invalid { message, .. } => at(message),
                other => other,
            }
        })?;
        if let Some(instance) = instance {
            let m = &mut self.builder.scene_mut().meshes[mesh_index];
            m.name = format!("{instance}/{}", m.name);
        }
        if let Some(packed) = placed.media {
            self.mesh_media.push((mesh_index, packed));
        }
        Ok(())
    }

    /// Reads a shape into its meshes (not yet in the scene). `group` names the shapegroup
    /// being read, in which emitters are errors (as in Mitsuba).
    pub(super) fn shape_meshes(
        &mut self,
        src: &Src,
        node: Node,
        group: Option<&str>,
    ) -> Result<Vec<Placed>, SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let index = self.shape_count;
        self.shape_count += 1;
        let name = self.attr(src, node, "id")?.unwrap_or_else(|| format!("{kind}#{index}"));
        let mut to_world = match self.take(&mut props, "to_world") {
            Some(t) => self.transform(src, t)?,
            None => Mat4::IDENTITY,
        };
        let flip_normals = self.boolean(src, &mut props, "flip_normals")?.unwrap_or(false);
        // Meshes in object space; `flip_uv` turns Mitsuba's uv (v = 0 at the image's top) into
        // warpath's (v = 0 at the bottom).
        let (meshes, mesh_source, flip_uv) = match kind.as_str() {
            "rectangle" => (vec![builtin::rectangle_mesh()], src.path.to_path_buf(), true),
            "cube" => (vec![mitsuba_cube_mesh()], src.path.to_path_buf(), true),
            "disk" => (vec![disk_mesh(DISK_SEGMENTS)], src.path.to_path_buf(), true),
            "sphere" => {
                let center = self.point(src, &mut props, "center")?.unwrap_or(Vec3::ZERO);
                let radius = self.float(src, &mut props, "radius")?.unwrap_or(1.0);
                if !(radius > 0.0) {
                    return Err(src.error(node, format!("sphere '{name}': radius = {radius} must be positive")));
                }
                to_world = to_world * Mat4::from_translation(center) * Mat4::from_scale(Vec3::splat(radius));
                (vec![mitsuba_sphere_mesh(SPHERE_SEGMENTS)], src.path.to_path_buf(), true)
            }
            "obj" | "ply" => {
                let Some((file, line)) = self.string(src, &mut props, "filename")? else {
                    return Err(
                        src.error(node, format!("shape '{name}': a '{kind}' shape needs <string name=\"filename\">"))
                    );
                };
                let err = |message: String| SceneError::Parse { path: src.path.to_path_buf(), line, message };
                let path = self.resolve(src, &file);
                if !path.is_file() {
                    return Err(err(format!("mesh file '{}' not found", path.display())));
                }
                if !is_mesh_file(&path) {
                    return Err(err(format!("'{file}' is not an .obj or .ply mesh")));
                }
                let asset = load_mesh_file(&path)?;
                for w in &asset.warnings {
                    self.warn(w.clone());
                }
                let face_normals = self.boolean(src, &mut props, "face_normals")?.unwrap_or(false);
                let flip_tex = self.boolean(src, &mut props, "flip_tex_coords")?;
                if kind == "ply" && flip_tex.is_some() {
                    self.warn(format!("{}: 'flip_tex_coords' applies to obj shapes, not ply", src.at(node)));
                }
                let mut meshes = asset.meshes;
                for m in meshes.iter_mut() {
                    if face_normals {
                        m.normals.clear();
                    } else if m.normals.is_empty() {
                        // Mitsuba gives a mesh without normals smooth ones.
                        m.normals = angle_weighted_normals(m);
                    }
                }
                // warpath's OBJ loader keeps OBJ's uv (v = 0 at the bottom), which is what
                // Mitsuba's flip_tex_coords = true (its default) means.
                let flip_uv = if kind == "obj" { !flip_tex.unwrap_or(true) } else { true };
                (meshes, path, flip_uv)
            }
            "serialized" => {
                let (mesh, path) = self.serialized(src, node, &mut props, &name)?;
                (vec![mesh], path, true)
            }
            other => {
                return Err(src.error(
                    node,
                    format!(
                        "shape type '{other}' is not supported (warpath reads obj, ply, serialized, rectangle, cube, \
                         sphere, disk, shapegroup and instance): convert it to .ply or .obj"
                    ),
                ));
            }
        };
        // The BSDF, the area emitter and the media.
        let mut bsdf: Option<Bsdf> = None;
        let mut emission: Option<Vec3> = None;
        let (mut interior, mut exterior): (Option<(u32, Node)>, Option<(u32, Node)>) = (None, None);
        for child in props.objects.clone() {
            let slot = child.attribute("name");
            if matches!(slot, Some("interior" | "exterior")) && matches!(child.tag_name().name(), "medium" | "ref") {
                let medium = self.medium_or_ref(src, child, &format!("{name}/{}", slot.unwrap_or_default()))?;
                let side = if slot == Some("interior") { &mut interior } else { &mut exterior };
                if let Some((_, first)) = side {
                    return Err(src.error(
                        child,
                        format!(
                            "shape '{name}' has a second '{}' medium (first at line {})",
                            slot.unwrap(),
                            src.line(*first)
                        ),
                    ));
                }
                *side = Some((medium, child));
                continue;
            }
            match child.tag_name().name() {
                "bsdf" | "ref" => {
                    if bsdf.is_some() {
                        return Err(src.error(child, format!("shape '{name}' has a second BSDF")));
                    }
                    let b = self.bsdf_or_ref(src, child)?;
                    bsdf = Some(b);
                }
                "emitter" => {
                    if let Some(group) = group {
                        return Err(src.error(
                            child,
                            format!(
                                "shape '{name}' in shapegroup '{group}' has an emitter: Mitsuba does not instance \
                                 emitters; move the emitting shape out of the shapegroup"
                            ),
                        ));
                    }
                    let ekind = self.attr(src, child, "type")?.unwrap_or_default();
                    if ekind != "area" {
                        return Err(
                            src.error(child, format!("an emitter inside a shape must be 'area', not '{ekind}'"))
                        );
                    }
                    if emission.is_some() {
                        return Err(src.error(child, format!("shape '{name}' has a second area emitter")));
                    }
                    let mut ep = self.props(src, child)?;
                    let radiance = self.color(src, &mut ep, "radiance")?.unwrap_or(Vec3::ONE);
                    if !radiance.is_finite() || radiance.min_element() < 0.0 {
                        return Err(src.error(child, format!("radiance {radiance} must be finite and non-negative")));
                    }
                    for o in ep.objects.clone() {
                        self.warn(format!("{}: <{}> inside an emitter is ignored", src.at(o), o.tag_name().name()));
                    }
                    self.finish(src, ep);
                    emission = Some(radiance);
                }
                "medium" => {
                    return Err(src.error(
                        child,
                        format!("shape '{name}': a <medium> needs name=\"interior\" or name=\"exterior\""),
                    ));
                }
                other => self
                    .warn(format!("{}: shape '{name}': <{other}> is not supported here and is ignored", src.at(child))),
            }
        }
        let media = (interior.is_some() || exterior.is_some())
            .then(|| interface::pack(interior.map(|m| m.0), exterior.map(|m| m.0)));
        let material = match &mut bsdf {
            // A declared BSDF keeps its index (it was added when declared).
            Some(b) => self.material_index(b),
            // Mitsuba gives an emitter without a BSDF a black diffuse one: it only emits.
            None if emission.is_some() => self.emitter_fallback_material(),
            None => self.fallback_material(),
        };
        let material = match emission {
            Some(e) => {
                let base = self.builder.scene_mut().materials[material as usize];
                if base.is_null() {
                    return Err(src.error(node, format!("shape '{name}': a 'null' BSDF cannot emit")));
                }
                let base_name = self.builder.scene_mut().material_names[material as usize].clone();
                self.builder.add_material(&format!("{base_name}+emission@{name}"), base.with_emission(e))
            }
            None => material,
        };
        let many = meshes.len() > 1;
        let mut placed = Vec::with_capacity(meshes.len());
        for mut mesh in meshes {
            mesh.name = if many { format!("{name}/{}", mesh.name) } else { name.clone() };
            if flip_uv {
                for uv in mesh.uvs.iter_mut() {
                    uv.y = 1.0 - uv.y;
                }
            }
            if flip_normals {
                for t in mesh.triangles.iter_mut() {
                    t.swap(1, 2);
                }
                for n in mesh.normals.iter_mut() {
                    *n = -*n;
                }
            }
            placed.push(Placed {
                mesh: Arc::new(mesh),
                to_world,
                material,
                media,
                source: mesh_source.clone(),
                at: (src.path.to_path_buf(), src.line(node)),
            });
        }
        props.objects.clear();
        self.finish(src, props);
        Ok(placed)
    }

    pub(super) fn fallback_material(&mut self) -> u32 {
        if let Some(m) = self.fallback_material {
            return m;
        }
        let m = self
            .builder
            .add_material("mitsuba-default", Material::diffuse(Vec3::splat(FALLBACK_REFLECTANCE)).with_one_sided());
        self.fallback_material = Some(m);
        m
    }

    /// The BSDF of an area emitter given none: Mitsuba's `diffuse` of reflectance 0.
    pub(super) fn emitter_fallback_material(&mut self) -> u32 {
        if let Some(m) = self.emitter_fallback_material {
            return m;
        }
        let m = self.builder.add_material("mitsuba-default-emitter", Material::diffuse(Vec3::ZERO).with_one_sided());
        self.emitter_fallback_material = Some(m);
        m
    }

    /// A `<transform>`: its operations applied in document order (each after the ones
    /// before it: the result is `Tn · … · T1`).
    pub(super) fn transform(&mut self, src: &Src, node: Node) -> Result<Mat4, SceneError> {
        if node.tag_name().name() != "transform" {
            return Err(src.error(node, format!("expected a <transform>, not <{}>", node.tag_name().name())));
        }
        let mut m = Mat4::IDENTITY;
        for op in node.children().filter(|n| n.is_element()) {
            let step = match op.tag_name().name() {
                "translate" => Mat4::from_translation(self.xyz(src, op, 0.0)?),
                "scale" => Mat4::from_scale(self.xyz(src, op, 1.0)?),
                "rotate" => {
                    let axis = self.xyz(src, op, 0.0)?;
                    let angle = self.required(src, op, "angle")?;
                    let angle: f32 =
                        angle.trim().parse().map_err(|_| src.error(op, format!("angle '{angle}' is not a number")))?;
                    if axis.length_squared() == 0.0 || !axis.is_finite() || !angle.is_finite() {
                        return Err(src.error(op, "rotate needs a non-zero finite axis (x, y, z) and a finite angle"));
                    }
                    Mat4::from_axis_angle(axis.normalize(), angle.to_radians())
                }
                "matrix" => {
                    let text = self.value(src, op)?;
                    let n = numbers(src, op, &text)?;
                    match n.len() {
                        16 => Mat4::from_cols_array(&n.try_into().unwrap()).transpose(),
                        9 => Mat4::from_mat3(Mat3::from_cols_array(&n.try_into().unwrap()).transpose()),
                        k => {
                            return Err(src.error(op, format!("a <matrix> has 16 (or 9) numbers, row by row; got {k}")));
                        }
                    }
                }
                "lookat" => {
                    let mut get = |key: &str| -> Result<Option<Vec3>, SceneError> {
                        match self.attr(src, op, key)? {
                            None => Ok(None),
                            Some(v) => {
                                let n = numbers(src, op, &v)?;
                                if n.len() != 3 {
                                    return Err(src.error(op, format!("lookat '{key}' needs 3 numbers")));
                                }
                                Ok(Some(Vec3::new(n[0], n[1], n[2])))
                            }
                        }
                    };
                    let (Some(origin), Some(target)) = (get("origin")?, get("target")?) else {
                        return Err(src.error(op, "<lookat> needs 'origin' and 'target'"));
                    };
                    let up = get("up")?.unwrap_or(Vec3::Y);
                    let dir = target - origin;
                    if dir.length_squared() == 0.0 {
                        return Err(src.error(op, "lookat origin and target are the same point"));
                    }
                    if dir.normalize().cross(up).length() < 1e-6 {
                        return Err(src.error(op, "lookat 'up' is parallel to the view direction"));
                    }
                    look_at_matrix(origin, target, up)
                }
                other => {
                    return Err(src.error(
                        op,
                        format!("<{other}> is not a transform operation (translate, rotate, scale, matrix, lookat)"),
                    ));
                }
            };
            m = step * m;
        }
        if !m.is_finite() {
            return Err(src.error(node, "the transform is not finite"));
        }
        Ok(m)
    }
}

/// Mitsuba's `sphere` (the unit sphere) as a latitude-longitude mesh of `segments` columns
/// and `segments / 2` rows with Mitsuba's parametrization: u = φ/2π with φ = atan2(y, x) in
/// [0, 2π), v = θ/π with θ measured from +z (still Mitsuba's v, flipped by the caller). The
/// seam at φ = 0 and the poles have vertices of their own (a pole's u is its column's
/// middle), so every triangle interpolates its uv without wrapping around.
pub fn mitsuba_sphere_mesh(segments: u32) -> TriangleMesh {
    let (n_phi, n_theta) = (segments.max(4), (segments / 2).max(2));
    let mut mesh = TriangleMesh { name: "sphere".into(), ..TriangleMesh::default() };
    let tau = 2.0 * std::f32::consts::PI;
    let at = |u: f32, v: f32| {
        let (phi, theta) = (tau * u, std::f32::consts::PI * v);
        Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos())
    };
    // Rows 1 ..= n_theta - 1 of n_phi + 1 vertices (the seam column twice).
    for j in 1..n_theta {
        let v = j as f32 / n_theta as f32;
        for i in 0..=n_phi {
            let u = i as f32 / n_phi as f32;
            let p = at(u, v);
            mesh.positions.push(p);
            mesh.normals.push(p);
            mesh.uvs.push(Vec2::new(u, v));
        }
    }
    let row = |j: u32, i: u32| (j - 1) * (n_phi + 1) + i;
    for j in 1..n_theta - 1 {
        for i in 0..n_phi {
            let (a, b, c, d) = (row(j, i), row(j, i + 1), row(j + 1, i + 1), row(j + 1, i));
            // Counter-clockwise seen from outside.
            mesh.triangles.push([a, d, c]);
            mesh.triangles.push([a, c, b]);
        }
    }
    for (pole_v, ring) in [(0.0f32, 1), (1.0, n_theta - 1)] {
        for i in 0..n_phi {
            let u = (i as f32 + 0.5) / n_phi as f32;
            let p = at(u, pole_v);
            let k = mesh.positions.len() as u32;
            mesh.positions.push(p);
            mesh.normals.push(p);
            mesh.uvs.push(Vec2::new(u, pole_v));
            let (a, b) = (row(ring, i), row(ring, i + 1));
            mesh.triangles.push(if pole_v == 0.0 { [k, a, b] } else { [k, b, a] });
        }
    }
    mesh
}

/// Mitsuba's `disk`: the unit disk in the xy-plane, normal +z, as a fan of `segments`
/// triangles with Mitsuba's polar uv (r, φ/2π), φ = atan2(y, x) in [0, 2π). Each triangle
/// has a centre vertex of its own at its middle angle, so v stays close to φ/2π along the
/// radii instead of running to 0 at the centre (within half a segment near the centre, exact
/// on the rim).
pub fn disk_mesh(segments: u32) -> TriangleMesh {
    let mut mesh = TriangleMesh { name: "disk".into(), ..TriangleMesh::default() };
    for i in 0..=segments {
        let phi = 2.0 * std::f32::consts::PI * i as f32 / segments as f32;
        mesh.positions.push(Vec3::new(phi.cos(), phi.sin(), 0.0));
        mesh.normals.push(Vec3::Z);
        mesh.uvs.push(Vec2::new(1.0, i as f32 / segments as f32));
    }
    for i in 0..segments {
        let centre = mesh.positions.len() as u32;
        mesh.positions.push(Vec3::ZERO);
        mesh.normals.push(Vec3::Z);
        mesh.uvs.push(Vec2::new(0.0, (i as f32 + 0.5) / segments as f32));
        mesh.triangles.push([centre, i, i + 1]);
    }
    mesh
}

/// Mitsuba's `cube` ([-1, 1]³): warpath's cube mesh (the same vertices, triangles and
/// normals as the TOML `cube`) with Mitsuba's texture coordinates, which lay each face out
/// its own way: every vertex takes the uv of Mitsuba's vertex with the same normal and
/// position ([`MITSUBA_CUBE_UVS`]; still Mitsuba's v, flipped by the caller).
pub fn mitsuba_cube_mesh() -> TriangleMesh {
    let mut mesh = builtin::cube_mesh();
    for i in 0..mesh.positions.len() {
        let (p, n) = (mesh.positions[i], mesh.normals[i]);
        if let Some(&(_, _, uv)) = MITSUBA_CUBE_UVS
            .iter()
            .find(|(q, m, _)| Vec3::from_array(*q).distance(p) < 1e-6 && Vec3::from_array(*m).distance(n) < 1e-6)
        {
            mesh.uvs[i] = Vec2::from_array(uv);
        }
    }
    mesh
}

/// Mitsuba 3's cube (`src/shapes/cube.cpp`): each vertex's position, normal and uv.
pub const MITSUBA_CUBE_UVS: [([f32; 3], [f32; 3], [f32; 2]); 24] = [
    ([1.0, -1.0, -1.0], [0.0, -1.0, 0.0], [0.0, 1.0]),
    ([1.0, -1.0, 1.0], [0.0, -1.0, 0.0], [1.0, 1.0]),
    ([-1.0, -1.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0]),
    ([-1.0, -1.0, -1.0], [0.0, -1.0, 0.0], [0.0, 0.0]),
    ([1.0, 1.0, -1.0], [0.0, 1.0, 0.0], [0.0, 1.0]),
    ([-1.0, 1.0, -1.0], [0.0, 1.0, 0.0], [1.0, 1.0]),
    ([-1.0, 1.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0]),
    ([1.0, 1.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0]),
    ([1.0, -1.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0]),
    ([1.0, 1.0, -1.0], [1.0, 0.0, 0.0], [1.0, 1.0]),
    ([1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0]),
    ([1.0, -1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0]),
    ([1.0, -1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 1.0]),
    ([1.0, 1.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0]),
    ([-1.0, 1.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0]),
    ([-1.0, -1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0]),
    ([-1.0, -1.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 1.0]),
    ([-1.0, 1.0, 1.0], [-1.0, 0.0, 0.0], [1.0, 1.0]),
    ([-1.0, 1.0, -1.0], [-1.0, 0.0, 0.0], [1.0, 0.0]),
    ([-1.0, -1.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 0.0]),
    ([1.0, 1.0, -1.0], [0.0, 0.0, -1.0], [0.0, 1.0]),
    ([1.0, -1.0, -1.0], [0.0, 0.0, -1.0], [1.0, 1.0]),
    ([-1.0, -1.0, -1.0], [0.0, 0.0, -1.0], [1.0, 0.0]),
    ([-1.0, 1.0, -1.0], [0.0, 0.0, -1.0], [0.0, 0.0]),
];
