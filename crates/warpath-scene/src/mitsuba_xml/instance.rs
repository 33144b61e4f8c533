//! Mitsuba's `shapegroup` and `instance` shapes, and the `serialized` shape's file.
//!
//! warpath has no instancing: a shapegroup's shapes are read once and kept in object space;
//! each `instance` adds them to the triangle list under the instance's `to_world` × the
//! shape's own, within the scene's memory guard (pbrt's `ObjectInstance` is flattened the
//! same way). As in Mitsuba, a shapegroup holds no emitters, no nested shapegroups and no
//! instances, and it is not rendered by itself.

use super::serialized::parse_serialized;
use super::*;

impl Loader {
    /// `<shape type="shapegroup" id="...">`: its shapes, kept for instances.
    pub(super) fn shapegroup(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let Some(id) = self.attr(src, node, "id")? else {
            return Err(src.error(node, "a shapegroup needs an 'id' (instances refer to it with <ref id=\"...\"/>)"));
        };
        if let Some(previous) = self.groups.get(&id).map(|g| g.1.clone()) {
            return Err(src.error(node, format!("shapegroup id '{id}' is declared twice (first at {previous})")));
        }
        let mut shapes = Vec::new();
        for child in node.children().filter(|n| n.is_element()) {
            match child.tag_name().name() {
                "shape" => {
                    let kind = self.attr(src, child, "type")?.unwrap_or_default();
                    if matches!(kind.as_str(), "shapegroup" | "instance") {
                        return Err(src.error(
                            child,
                            format!("shapegroup '{id}' holds a '{kind}': Mitsuba does not nest instancing"),
                        ));
                    }
                    shapes.extend(self.shape_meshes(src, child, Some(&id))?);
                }
                "emitter" | "sensor" => {
                    return Err(src.error(
                        child,
                        format!(
                            "shapegroup '{id}' holds an <{}>: Mitsuba instances only shapes",
                            child.tag_name().name()
                        ),
                    ));
                }
                other => {
                    self.warn(format!("{}: shapegroup '{id}': <{other}> is not a shape and is ignored", src.at(child)))
                }
            }
        }
        if shapes.is_empty() {
            self.warn(format!("{}: shapegroup '{id}' holds no shapes", src.at(node)));
        }
        self.groups.insert(id, (shapes, src.at(node)));
        Ok(())
    }

    /// `<shape type="instance">`: a `<ref id>` to a shapegroup placed by `to_world`.
    pub(super) fn instance(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let mut props = self.props(src, node)?;
        let index = self.shape_count;
        self.shape_count += 1;
        let name = self.attr(src, node, "id")?.unwrap_or_else(|| format!("instance#{index}"));
        let to_world = match self.take(&mut props, "to_world") {
            Some(t) => self.transform(src, t)?,
            None => Mat4::IDENTITY,
        };
        let mut group: Option<(String, Node)> = None;
        for child in props.objects.clone() {
            match child.tag_name().name() {
                "ref" => {
                    let id = self.required(src, child, "id")?;
                    if let Some((_, first)) = &group {
                        return Err(src.error(
                            child,
                            format!(
                                "instance '{name}' refers to a second shapegroup (first at line {})",
                                src.line(*first)
                            ),
                        ));
                    }
                    if !self.groups.contains_key(&id) {
                        let mut ids: Vec<&str> = self.groups.keys().map(|s| s.as_str()).collect();
                        ids.sort();
                        let known = if ids.is_empty() {
                            "none is declared".to_string()
                        } else {
                            format!("declared: {}", ids.join(", "))
                        };
                        return Err(src.error(
                            child,
                            format!(
                                "instance '{name}': <ref id=\"{id}\"> names no shapegroup declared before it ({known})"
                            ),
                        ));
                    }
                    group = Some((id, child));
                }
                "shape" => {
                    return Err(src.error(
                        child,
                        format!(
                            "instance '{name}' holds a <shape>: declare it in a shapegroup and refer to that with \
                             <ref id=\"...\"/>"
                        ),
                    ));
                }
                other => self.warn(format!(
                    "{}: instance '{name}': <{other}> is ignored (an instance takes its shapes' own BSDFs)",
                    src.at(child)
                )),
            }
        }
        let Some((id, _)) = group else {
            return Err(src.error(node, format!("instance '{name}' needs a <ref id=\"...\"/> to a shapegroup")));
        };
        props.objects.clear();
        self.finish(src, props);
        // Cheap to clone: the meshes are shared.
        let shapes = self.groups[&id].0.clone();
        let triangles: u64 = shapes.iter().map(|s| s.mesh.triangles.len() as u64).sum();
        let total = self.builder.scene_mut().triangles.len() as u64 + triangles;
        warpath_core::limits::check_count("the scene's triangles (instances are flattened)", total, 16)
            .map_err(|e| src.error(node, format!("instance '{name}' of shapegroup '{id}': {e}")))?;
        for s in &shapes {
            // Errors while placing name the instance's line, not the group's.
            let placed = Placed { at: (src.path.to_path_buf(), src.line(node)), ..s.clone() };
            self.add_placed(&placed, to_world, Some(&name))?;
        }
        Ok(())
    }

    /// A `serialized` shape's mesh (`filename`, `shape_index`, `face_normals`) and its file.
    pub(super) fn serialized(
        &mut self,
        src: &Src,
        node: Node,
        props: &mut Props,
        name: &str,
    ) -> Result<(TriangleMesh, PathBuf), SceneError> {
        let Some((file, line)) = self.string(src, props, "filename")? else {
            return Err(
                src.error(node, format!("shape '{name}': a 'serialized' shape needs <string name=\"filename\">"))
            );
        };
        let err = |message: String| SceneError::Parse { path: src.path.to_path_buf(), line, message };
        let index_node = props.entries.iter().find(|e| e.0 == "shape_index").map(|e| e.1);
        let shape_index = self.integer(src, props, "shape_index")?.unwrap_or(0);
        let Ok(shape_index) = u32::try_from(shape_index) else {
            return Err(
                src.error(index_node.unwrap_or(node), format!("shape_index {shape_index} must not be negative"))
            );
        };
        let path = self.resolve(src, &file);
        if !path.is_file() {
            return Err(err(format!("serialized mesh file '{}' not found", path.display())));
        }
        let bytes = match self.serialized_files.get(&path) {
            Some(bytes) => bytes.clone(),
            None => {
                let bytes = std::fs::read(&path).map_err(|e| SceneError::Io { path: path.clone(), source: e })?;
                let bytes = std::sync::Arc::new(bytes);
                self.serialized_files.insert(path.clone(), bytes.clone());
                bytes
            }
        };
        let read = parse_serialized(&bytes, shape_index).map_err(|m| err(format!("'{}': {m}", path.display())))?;
        let mut mesh = read.mesh;
        let face_normals = self.boolean(src, props, "face_normals")?.unwrap_or(false);
        if read.face_normals || face_normals {
            mesh.normals.clear();
        } else if mesh.normals.is_empty() {
            // Mitsuba gives a mesh without normals smooth ones.
            mesh.normals = angle_weighted_normals(&mesh);
        }
        Ok((mesh, path))
    }
}

/// Vertex normals as Mitsuba computes them for a mesh that has none: the sum of the normals
/// of the triangles around the vertex, each weighted by its angle there (Thürmer and
/// Wüthrich's scheme).
pub fn angle_weighted_normals(mesh: &TriangleMesh) -> Vec<Vec3> {
    let mut normals = vec![Vec3::ZERO; mesh.positions.len()];
    for tri in &mesh.triangles {
        // A triangle out of range is reported when the mesh is placed (`SceneBuilder::add_mesh`).
        if tri.iter().any(|&i| i as usize >= mesh.positions.len()) {
            continue;
        }
        let p = tri.map(|i| mesh.positions[i as usize]);
        let n = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
        if n == Vec3::ZERO {
            continue;
        }
        for k in 0..3 {
            let (a, b) = ((p[(k + 1) % 3] - p[k]).normalize_or_zero(), (p[(k + 2) % 3] - p[k]).normalize_or_zero());
            let angle = a.dot(b).clamp(-1.0, 1.0).acos();
            normals[tri[k] as usize] += n * angle;
        }
    }
    // A vertex no triangle uses keeps +z (any unit vector: it is never shaded).
    normals.into_iter().map(|n| if n == Vec3::ZERO { Vec3::Z } else { n.normalize() }).collect()
}
