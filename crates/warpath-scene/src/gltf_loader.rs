//! glTF 2.0 (`.gltf` with external or embedded buffers, `.glb`) through the `gltf` crate.
//!
//! Walks the default scene's node hierarchy (or every root node when the file has no
//! scene), placing each TRIANGLES primitive (indexed or not) with its node's world
//! transform; other primitive modes are skipped with a warning. Reads normals and
//! texture coordinates 0 (v is flipped: glTF's uv origin is the image's top-left, ours
//! the bottom-left).
//!
//! Materials (also in `docs/scene-format.md`): Mitsuba's principled BSDF with the base
//! color, roughness and metallic factors, `KHR_materials_transmission` as `spec_trans` and
//! `KHR_materials_ior` as its index (default 1.5). Emission = emissive factor × `KHR_materials_emissive_strength`,
//! two-sided for double-sided materials. A base color texture (external file, data URI
//! or buffer view) is decoded and multiplied by the base color factor. Primitives without
//! a material get the default diffuse gray. The first camera met in the hierarchy
//! becomes the scene camera. `alphaMode` MASK and BLEND make an opacity mask of the base
//! colour's alpha (`gltf_opacity`).
//!
//! Values out of range are clamped or dropped as the TOML format would refuse them, and
//! each change is reported as a warning naming the file and the material: base color
//! factors and texture values to [0, 1], roughness, metallic and transmission to [0, 1], an invalid ior (1.5 is
//! used), a negative or non-finite emission (dropped), a field of view outside (0°, 179°].

use crate::image_io::{
    ImageKind, decode_image_bytes, decode_image_bytes_raw, load_image, load_image_raw, repair_normal_texels,
    repair_pixels,
};
use crate::mesh::{AssetMaterial, MeshAsset, TriangleMesh};
use crate::{SceneError, Texture};
use glam::{Mat4, Vec2, Vec3, Vec4};
use std::path::{Path, PathBuf};
use warpath_core::camera::{Camera, FovAxis};
use warpath_core::material::{Material, flags};

/// Deepest node hierarchy followed (guards against cyclic files).
const MAX_NODE_DEPTH: usize = 256;

/// Loads a `.gltf` or `.glb` file.
pub fn load_gltf(path: &Path) -> Result<MeshAsset, SceneError> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            SceneError::NotFound { path: path.to_path_buf(), hint: "glTF file not found".into() }
        }
        _ => SceneError::Io { path: path.to_path_buf(), source: e },
    })?;
    parse_gltf(&bytes, path)
}

fn invalid(path: &Path, message: String) -> SceneError {
    SceneError::Invalid { path: path.to_path_buf(), message }
}

/// Parses glTF/GLB bytes; `path` names the file and locates external buffers and images.
pub fn parse_gltf(bytes: &[u8], path: &Path) -> Result<MeshAsset, SceneError> {
    // Last line of defence: the gltf crate may panic on malformed files we did not
    // anticipate; a user gets an error naming the file instead of a crash.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_gltf_unguarded(bytes, path)))
        .unwrap_or_else(|_| Err(invalid(path, "malformed glTF (the glTF reader failed on it)".into())))
}

/// gltf-json's validation indexes `accessors` by a primitive's POSITION without a bounds
/// check (it panics on such files); find that case first.
fn position_accessor_out_of_range(bytes: &[u8], is_glb: bool) -> Option<String> {
    let json = if is_glb { gltf::binary::Glb::from_slice(bytes).ok()?.json.into_owned() } else { bytes.to_vec() };
    let root: gltf::json::Root = gltf::json::deserialize::from_slice(&json).ok()?;
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            for (semantic, accessor) in &primitive.attributes {
                if accessor.value() >= root.accessors.len() {
                    return Some(format!(
                        "meshes[{m}].primitives[{p}].attributes: {} refers to accessor {}, but there are {}",
                        semantic.to_string(),
                        accessor.value(),
                        root.accessors.len()
                    ));
                }
            }
        }
    }
    None
}

/// A `.glb` must start with the magic `glTF`, a `.gltf` (JSON) with `{`: say so, rather
/// than let the JSON parser report "expected value at line 1 column 1".
fn check_signature(bytes: &[u8], path: &Path, is_glb: bool) -> Result<(), SceneError> {
    if is_glb {
        // The gltf crate subtracts the header size from this length unchecked.
        if let Some(length) = bytes.get(8..12).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            && length < 12
        {
            return Err(invalid(
                path,
                format!("corrupt GLB: its length field says {length} bytes, less than its header"),
            ));
        }
        return Ok(());
    }
    let says_glb = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if says_glb {
        let found: String = bytes.iter().take(4).map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
        return Err(invalid(path, format!("not a GLB file: it must start with 'glTF', found '{found}'")));
    }
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(()),
        None => Err(invalid(path, "the file is empty (a glTF file is a JSON object)".into())),
        Some(_) => Err(invalid(
            path,
            "not a glTF file: a .gltf file is a JSON object starting with '{', and a .glb starts with 'glTF'".into(),
        )),
    }
}

fn parse_gltf_unguarded(bytes: &[u8], path: &Path) -> Result<MeshAsset, SceneError> {
    let is_glb = bytes.starts_with(b"glTF");
    check_signature(bytes, path, is_glb)?;
    if let Some(message) = position_accessor_out_of_range(bytes, is_glb) {
        return Err(invalid(path, format!("invalid glTF: {message}")));
    }
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| match e {
        gltf::Error::Deserialize(json) if !is_glb && json.line() > 0 => {
            SceneError::Parse { path: path.to_path_buf(), line: json.line(), message: format!("glTF JSON: {json}") }
        }
        gltf::Error::Validation(errors) => {
            let list: Vec<String> = errors.iter().take(5).map(|(p, e)| format!("{}: {e}", p.as_str())).collect();
            invalid(path, format!("invalid glTF: {}", list.join("; ")))
        }
        other => invalid(path, format!("invalid glTF: {other}")),
    })?;
    let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let document = gltf.document;
    for buffer in document.buffers() {
        if let gltf::buffer::Source::Uri(uri) = buffer.source()
            && !uri.starts_with("data:")
        {
            let file = folder.join(percent_decode(uri));
            if !file.is_file() {
                return Err(SceneError::NotFound {
                    path: file,
                    hint: format!("buffer {} of {} not found", buffer.index(), path.display()),
                });
            }
        }
    }
    let buffers = gltf::import_buffers(&document, Some(&folder), gltf.blob)
        .map_err(|e| invalid(path, format!("cannot read buffers: {e}")))?;

    let mut asset = MeshAsset::default();
    for material in document.materials() {
        let converted = convert_material(&document, &material, &buffers, &folder, path, &mut asset.warnings)?;
        asset.materials.push(converted);
    }

    // Root nodes: the scene's, or every node that is nobody's child.
    let roots: Vec<gltf::Node> = match document.default_scene().or_else(|| document.scenes().next()) {
        Some(scene) => scene.nodes().collect(),
        None => {
            let mut is_child = vec![false; document.nodes().len()];
            for node in document.nodes() {
                for child in node.children() {
                    is_child[child.index()] = true;
                }
            }
            document.nodes().filter(|n| !is_child[n.index()]).collect()
        }
    };
    let mut stack: Vec<(gltf::Node, Mat4, usize)> = roots.into_iter().rev().map(|n| (n, Mat4::IDENTITY, 0)).collect();
    let mut skipped_modes = 0usize;
    while let Some((node, parent, depth)) = stack.pop() {
        if depth > MAX_NODE_DEPTH {
            return Err(invalid(path, format!("the node hierarchy is deeper than {MAX_NODE_DEPTH} (a cycle?)")));
        }
        let local = Mat4::from_cols_array_2d(&node.transform().matrix());
        let world = parent * local;
        if asset.camera.is_none()
            && let Some(camera) = node.camera()
        {
            match camera.projection() {
                gltf::camera::Projection::Perspective(p) => {
                    let camera = gltf_camera(world, p.yfov());
                    if camera.fov_degrees != p.yfov().to_degrees() {
                        asset.warnings.push(format!(
                            "{}: camera {}: yfov {} rad is outside (0°, 179°]; clamped to {}°",
                            path.display(),
                            node.camera().map(|c| c.index()).unwrap_or(0),
                            p.yfov(),
                            camera.fov_degrees
                        ));
                    }
                    asset.camera = Some((camera, p.aspect_ratio()));
                }
                gltf::camera::Projection::Orthographic(_) => {
                    asset.warnings.push(format!("{}: orthographic camera ignored", path.display()));
                }
            }
        }
        if let Some(mesh) = node.mesh() {
            for primitive in mesh.primitives() {
                if primitive.mode() != gltf::mesh::Mode::Triangles {
                    skipped_modes += 1;
                    continue;
                }
                let name = match mesh.name() {
                    Some(n) => format!("{n}#{}", primitive.index()),
                    None => format!("mesh{}#{}", mesh.index(), primitive.index()),
                };
                let mut triangle_mesh = read_primitive(&primitive, &buffers, path, &name, &mut asset.warnings)?;
                bake_transform(&mut triangle_mesh, world);
                asset.meshes.push(triangle_mesh);
            }
        }
        for child in node.children() {
            stack.push((child, world, depth + 1));
        }
    }
    if skipped_modes > 0 {
        asset.warnings.push(format!(
            "{}: skipped {skipped_modes} primitive(s) that are not TRIANGLES (points, lines, strips, fans)",
            path.display()
        ));
    }
    Ok(asset)
}

/// Our camera looks down +z with +x to the left; glTF's looks down -z with +x right: the
/// same frame turned half a turn about y. Scale is removed from the node transform.
fn gltf_camera(world: Mat4, yfov_radians: f32) -> Camera {
    let x = world.x_axis.truncate().normalize_or_zero();
    let y = world.y_axis.truncate().normalize_or_zero();
    let z = world.z_axis.truncate().normalize_or_zero();
    let to_world = Mat4::from_cols((-x).extend(0.0), y.extend(0.0), (-z).extend(0.0), world.w_axis);
    Camera {
        to_world,
        fov_degrees: if yfov_radians.is_finite() { yfov_radians.to_degrees().clamp(1e-3, 179.0) } else { 40.0 },
        fov_axis: FovAxis::Y,
        aperture_radius: 0.0,
        focus_distance: 1.0,
    }
}

/// glTF positions are placed in world space at load time (a mesh file has no transform of
/// its own in our scenes); normals follow the inverse transpose, winding flips for mirrors.
fn bake_transform(mesh: &mut TriangleMesh, world: Mat4) {
    if world == Mat4::IDENTITY {
        return;
    }
    let linear = glam::Mat3::from_mat4(world);
    let det = linear.determinant();
    for p in &mut mesh.positions {
        *p = world.transform_point3(*p);
    }
    if det != 0.0 && det.is_finite() {
        let normal_matrix = linear.inverse().transpose();
        for n in &mut mesh.normals {
            *n = (normal_matrix * *n).normalize_or_zero();
        }
    }
    if det < 0.0 {
        for t in &mut mesh.triangles {
            t.swap(1, 2);
        }
    }
}

fn read_primitive(
    primitive: &gltf::Primitive,
    buffers: &[gltf::buffer::Data],
    path: &Path,
    name: &str,
    warnings: &mut Vec<String>,
) -> Result<TriangleMesh, SceneError> {
    use gltf::accessor::{DataType, Dimensions};
    // The gltf crate's readers assume valid component types (they hit `unreachable!`
    // otherwise), so check each accessor first.
    let accessor_is = |accessor: Option<gltf::Accessor>, types: &[DataType], dimensions: Dimensions| {
        accessor.is_none_or(|a| types.contains(&a.data_type()) && a.dimensions() == dimensions)
    };
    let float_vec3 = |semantic| accessor_is(primitive.get(&semantic), &[DataType::F32], Dimensions::Vec3);
    if !float_vec3(gltf::Semantic::Positions) {
        return Err(invalid(path, format!("primitive '{name}': POSITION must be float VEC3")));
    }
    if !accessor_is(primitive.indices(), &[DataType::U8, DataType::U16, DataType::U32], Dimensions::Scalar) {
        return Err(invalid(path, format!("primitive '{name}': indices must be unsigned byte/short/int SCALAR")));
    }
    let normals_ok = float_vec3(gltf::Semantic::Normals);
    let uvs_ok = accessor_is(
        primitive.get(&gltf::Semantic::TexCoords(0)),
        &[DataType::F32, DataType::U8, DataType::U16],
        Dimensions::Vec2,
    );
    // The gltf crate's readers assume accessors that fit their buffer views (they panic on
    // a zero count or a short view), so check every accessor read.
    let accessors = [
        ("POSITION", primitive.get(&gltf::Semantic::Positions)),
        ("NORMAL", primitive.get(&gltf::Semantic::Normals).filter(|_| normals_ok)),
        ("TEXCOORD_0", primitive.get(&gltf::Semantic::TexCoords(0)).filter(|_| uvs_ok)),
        ("indices", primitive.indices()),
    ];
    for (what, accessor) in accessors {
        if let Some(accessor) = accessor {
            check_accessor(&accessor, buffers).map_err(|m| {
                invalid(path, format!("primitive '{name}': {what} (accessor {}): {m}", accessor.index()))
            })?;
        }
    }
    let reader = primitive.reader(|b| buffers.get(b.index()).map(|d| d.0.as_slice()));
    let position_accessor = primitive
        .get(&gltf::Semantic::Positions)
        .ok_or_else(|| invalid(path, format!("primitive '{name}' has no POSITION")))?;
    let positions: Vec<Vec3> = reader
        .read_positions()
        .ok_or_else(|| invalid(path, format!("primitive '{name}': POSITION data cannot be read")))?
        .map(Vec3::from_array)
        .collect();
    if positions.len() != position_accessor.count() {
        return Err(invalid(
            path,
            format!(
                "primitive '{name}': POSITION has {} of {} vertices (buffer too short)",
                positions.len(),
                position_accessor.count()
            ),
        ));
    }
    if let Some(i) = positions.iter().position(|p| !p.is_finite()) {
        return Err(invalid(path, format!("primitive '{name}': vertex {i} is not finite ({})", positions[i])));
    }
    // Read only what was checked: the readers panic on other component types.
    let normals: Vec<Vec3> = match normals_ok {
        true => reader.read_normals().map(|it| it.map(Vec3::from_array).collect()).unwrap_or_default(),
        false => Vec::new(),
    };
    let uvs: Vec<Vec2> = match uvs_ok {
        true => reader
            .read_tex_coords(0)
            .map(|it| it.into_f32().map(|[u, v]| Vec2::new(u, 1.0 - v)).collect())
            .unwrap_or_default(),
        false => Vec::new(),
    };
    let indices: Vec<u32> = match reader.read_indices() {
        Some(it) => it.into_u32().collect(),
        None => (0..positions.len() as u32).collect(),
    };
    if let Some(accessor) = primitive.indices()
        && indices.len() != accessor.count()
    {
        return Err(invalid(path, format!("primitive '{name}': indices buffer too short")));
    }
    if let Some(&bad) = indices.iter().find(|&&i| i as usize >= positions.len()) {
        return Err(invalid(
            path,
            format!("primitive '{name}': index {bad} is out of range ({} vertices)", positions.len()),
        ));
    }
    let triangles = indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    let mut drop_attribute = |what: &str, present: bool, usable: bool, count: usize| {
        let why = match (present, usable, count == positions.len()) {
            (false, _, _) | (true, true, true) => return false,
            (true, false, _) => "an unsupported component type".to_string(),
            (true, true, false) => format!("{count} values for {} vertices", positions.len()),
        };
        warnings.push(format!("{}: primitive '{name}': {what} ignored ({why})", path.display()));
        true
    };
    let has = |semantic| primitive.get(&semantic).is_some();
    let normals = match drop_attribute("NORMAL", has(gltf::Semantic::Normals), normals_ok, normals.len()) {
        true => Vec::new(),
        false => normals,
    };
    let uvs = match drop_attribute("TEXCOORD_0", has(gltf::Semantic::TexCoords(0)), uvs_ok, uvs.len()) {
        true => Vec::new(),
        false => uvs,
    };
    let material = primitive.material().index();
    Ok(TriangleMesh { name: name.to_string(), normals, uvs, positions, triangles, material })
}

/// Checks that `accessor` lies inside its buffer view and the view inside its buffer: what
/// the gltf crate's readers take for granted.
fn check_accessor(accessor: &gltf::Accessor, buffers: &[gltf::buffer::Data]) -> Result<(), String> {
    if accessor.sparse().is_some() {
        return Err("sparse accessors are not supported".into());
    }
    let count = accessor.count();
    if count == 0 {
        return Err("count is 0".into());
    }
    warpath_core::limits::check_count("the accessor", count as u64, accessor.size() as u64)
        .map_err(|e| e.to_string())?;
    let Some(view) = accessor.view() else {
        return Err("it has no bufferView".into());
    };
    let element = accessor.size();
    let stride = view.stride().unwrap_or(element);
    if stride < element {
        return Err(format!("byteStride {stride} is smaller than an element ({element} bytes)"));
    }
    let end = (count - 1)
        .checked_mul(stride)
        .and_then(|n| n.checked_add(element))
        .and_then(|n| n.checked_add(accessor.offset()));
    match end {
        Some(end) if end <= view.length() => {}
        _ => {
            return Err(format!(
                "{count} elements of {element} bytes (stride {stride}) from byteOffset {} do not fit in bufferView {} \
                 ({} bytes)",
                accessor.offset(),
                view.index(),
                view.length()
            ));
        }
    }
    let buffer_length = buffers.get(view.buffer().index()).map(|d| d.0.len()).unwrap_or(0);
    match view.offset().checked_add(view.length()) {
        Some(end) if end <= buffer_length => Ok(()),
        _ => Err(format!(
            "bufferView {} (byteOffset {}, byteLength {}) does not fit in buffer {} ({buffer_length} bytes)",
            view.index(),
            view.offset(),
            view.length(),
            view.buffer().index()
        )),
    }
}

fn convert_material(
    document: &gltf::Document,
    material: &gltf::Material,
    buffers: &[gltf::buffer::Data],
    folder: &Path,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<AssetMaterial, SceneError> {
    let name =
        material.name().map(str::to_string).unwrap_or_else(|| format!("material{}", material.index().unwrap_or(0)));
    let mut warn = |what: String| warnings.push(format!("{}: material '{name}': {what}", path.display()));
    let pbr = material.pbr_metallic_roughness();
    let factor = Vec4::from_array(pbr.base_color_factor());
    let factor_rgb = if factor.truncate().is_finite() { factor.truncate() } else { Vec3::ONE };
    let base_color = factor_rgb.clamp(Vec3::ZERO, Vec3::ONE);
    if base_color != factor.truncate() {
        warn(format!("baseColorFactor {} is outside [0, 1]; clamped to {base_color}", factor.truncate()));
    }
    let roughness_factor = pbr.roughness_factor();
    let roughness = if roughness_factor.is_finite() { roughness_factor.clamp(0.0, 1.0) } else { 1.0 };
    if roughness != roughness_factor {
        warn(format!("roughnessFactor {roughness_factor} is outside [0, 1]; clamped to {roughness}"));
    }
    let transmission = material.transmission().map(|t| t.transmission_factor()).unwrap_or(0.0);
    let ior = match material.ior() {
        Some(i) if i.is_finite() && i > 0.0 => i,
        Some(i) => {
            warn(format!("ior {i} is not a positive number; 1.5 used"));
            1.5
        }
        None => 1.5,
    };
    let metallic_factor = pbr.metallic_factor();
    let metallic = if metallic_factor.is_finite() { metallic_factor.clamp(0.0, 1.0) } else { 1.0 };
    if metallic != metallic_factor {
        warn(format!("metallicFactor {metallic_factor} is outside [0, 1]; clamped to {metallic}"));
    }
    let spec_trans = if transmission.is_finite() { transmission.clamp(0.0, 1.0) } else { 0.0 };
    if spec_trans != transmission {
        warn(format!("transmissionFactor {transmission} is outside [0, 1]; clamped to {spec_trans}"));
    }
    // glTF's metallic-roughness model is a blend of a dielectric (Fresnel of `ior`, GGX of
    // α = roughness²) over the base color and a metal of F0 = base color: Mitsuba's principled
    // with those weights (its diffuse is Burley's rather than Lambert's).
    let mut converted = Material {
        metallic,
        spec_trans,
        ..Material::principled(base_color, roughness, if spec_trans > 0.0 && ior == 1.0 { 1.001 } else { ior })
    };
    let strength = material.emissive_strength().unwrap_or(1.0);
    let emission = Vec3::from_array(material.emissive_factor()) * strength;
    if emission.is_finite() && emission.min_element() >= 0.0 {
        converted.emission = emission;
    } else {
        warn(format!("emission {emission} (emissiveFactor × emissive_strength) is negative or not finite; dropped"));
    }
    if material.double_sided() {
        converted.flags |= flags::TWO_SIDED_EMISSION;
    }
    let texture = match pbr.base_color_texture() {
        Some(info) => {
            let label = format!("base color texture of material '{name}'");
            let mut texture = read_image(document, &info.texture().source(), buffers, folder, path, &label, false)?;
            if factor.truncate() != Vec3::ONE {
                for p in &mut texture.pixels {
                    *p *= base_color;
                }
            }
            let repairs = repair_pixels(&mut texture.pixels, Some(1.0));
            if let Some(w) = repairs.warning(path, &format!("base color texture of material '{name}'"), Some(1.0)) {
                warnings.push(w);
            }
            Some(texture)
        }
        None => None,
    };
    // The normal map, read raw; its `scale` (glTF: n = normalize((2c − 1)·(s, s, 1))) is
    // baked into the texels, which stay an affine map of the normal (bilinear filtering
    // commutes with it).
    let normal_texture = match material.normal_texture() {
        Some(info) => {
            let label = format!("normal texture of material '{name}'");
            let mut texture = read_image(document, &info.texture().source(), buffers, folder, path, &label, true)?;
            if let Some(w) = repair_normal_texels(&mut texture, path) {
                warnings.push(w);
            }
            let scale = info.scale();
            if !scale.is_finite() {
                return Err(invalid(path, format!("{label}: scale {scale} is not a finite number")));
            }
            if scale != 1.0 {
                for p in &mut texture.pixels {
                    p.x = (2.0 * p.x - 1.0) * scale * 0.5 + 0.5;
                    p.y = (2.0 * p.y - 1.0) * scale * 0.5 + 0.5;
                }
            }
            Some(texture)
        }
        None => None,
    };
    // metallicRoughnessTexture (raw): green is the roughness, blue the metallic weight, each
    // multiplied by its factor (the material's scalar); split into two one-channel textures.
    let (mut roughness_texture, mut metallic_texture) = (None, None);
    if let Some(info) = pbr.metallic_roughness_texture() {
        let label = format!("metallic-roughness texture of material '{name}'");
        let mut texture = read_image(document, &info.texture().source(), buffers, folder, path, &label, true)?;
        let repairs = repair_pixels(&mut texture.pixels, Some(1.0));
        if let Some(w) = repairs.warning(path, &label, Some(1.0)) {
            warnings.push(w);
        }
        roughness_texture = Some(texture.single_channel(&format!("{} (g)", texture.name), Some(1), |v| v));
        metallic_texture = Some(texture.single_channel(&format!("{} (b)", texture.name), Some(2), |v| v));
    }
    let opacity_texture = gltf_opacity(material, buffers, folder, path, &name, &mut converted, warnings)?;
    Ok(AssetMaterial {
        name,
        material: converted,
        base_color_texture: texture,
        normal_texture,
        roughness_texture,
        metallic_texture,
        opacity_texture,
    })
}

/// glTF's `alphaMode` as an opacity mask (`warpath_core::opacity`): OPAQUE ignores alpha;
/// BLEND makes the opacity the base colour's alpha (baseColorFactor's alpha times the texture's
/// alpha channel): a stochastic cut-out whose mean is the blend; MASK makes it 1 where that
/// alpha is at least `alphaCutoff` (default 0.5) and 0 elsewhere. The texture's alpha becomes a
/// grey texture of its own; a MASK's step is taken per texel, before the bilinear lookup (glTF
/// cuts after it: edges are soft over one texel).
#[allow(clippy::too_many_arguments)]
fn gltf_opacity(
    material: &gltf::Material,
    buffers: &[gltf::buffer::Data],
    folder: &Path,
    path: &Path,
    name: &str,
    converted: &mut Material,
    warnings: &mut Vec<String>,
) -> Result<Option<Texture>, SceneError> {
    use gltf::material::AlphaMode;
    let mode = material.alpha_mode();
    if mode == AlphaMode::Opaque {
        return Ok(None);
    }
    let pbr = material.pbr_metallic_roughness();
    let factor = pbr.base_color_factor()[3];
    let factor = if factor.is_finite() { factor.clamp(0.0, 1.0) } else { 1.0 };
    let cutoff = material.alpha_cutoff().unwrap_or(0.5);
    if !cutoff.is_finite() {
        return Err(invalid(path, format!("material '{name}': alphaCutoff {cutoff} is not a finite number")));
    }
    let of = |alpha: f32| match mode {
        AlphaMode::Mask => {
            if alpha >= cutoff {
                1.0
            } else {
                0.0
            }
        }
        _ => alpha,
    };
    let texture = match pbr.base_color_texture() {
        Some(info) => {
            let label = format!("base color texture of material '{name}'");
            let mut alpha = read_alpha(&info.texture().source(), buffers, folder, path, &label)?;
            if alpha.pixels.iter().all(|p| p.x >= 1.0) && factor == 1.0 {
                None
            } else {
                for p in &mut alpha.pixels {
                    *p = Vec3::splat(of(p.x * factor));
                }
                alpha.name = format!("{} (alpha)", alpha.name);
                if mode == AlphaMode::Mask {
                    warnings.push(format!(
                        "{}: material '{name}': alphaMode MASK: the cutoff {cutoff} is applied to each texel, before \
                         bilinear filtering (glTF cuts after filtering): cut-out edges are soft over one texel",
                        path.display()
                    ));
                }
                Some(alpha)
            }
        }
        None => None,
    };
    if texture.is_none() {
        converted.opacity = of(factor);
    }
    if converted.is_masked() && converted.spec_trans > 0.0 {
        warnings.push(format!(
            "{}: material '{name}': alphaMode {mode:?} on a transmitting material: rendered as a cut-out of it \
             (glTF blends the transmission with what lies behind)",
            path.display()
        ));
    }
    Ok(texture)
}

/// The alpha channel of a glTF image as a grey texture ([`read_image`]'s sources).
fn read_alpha(
    image: &gltf::Image,
    buffers: &[gltf::buffer::Data],
    folder: &Path,
    path: &Path,
    label: &str,
) -> Result<Texture, SceneError> {
    // read_image has checked the image's source (it read the colour first).
    let bytes_of = |bytes: &[u8]| -> Result<Texture, SceneError> {
        let Some(kind) = ImageKind::from_magic(bytes) else {
            return Err(invalid(path, format!("{label}: not a PNG, JPEG, EXR or HDR image")));
        };
        crate::image_io::decode_alpha_bytes(bytes, kind, path)
    };
    match image.source() {
        gltf::image::Source::View { view, .. } => {
            let data = buffers.get(view.buffer().index()).map(|d| d.0.as_slice()).unwrap_or(&[]);
            let bytes = data
                .get(view.offset()..view.offset().saturating_add(view.length()))
                .ok_or_else(|| invalid(path, format!("{label}: buffer view out of range")))?;
            bytes_of(bytes)
        }
        gltf::image::Source::Uri { uri, .. } => {
            if let Some(rest) = uri.strip_prefix("data:") {
                let encoded = rest.split_once(',').map(|(_, d)| d).unwrap_or("");
                let bytes = decode_base64(encoded).ok_or_else(|| invalid(path, format!("{label}: bad base64 data")))?;
                return bytes_of(&bytes);
            }
            crate::image_io::load_alpha(&folder.join(percent_decode(uri)))
        }
    }
}

fn read_image(
    document: &gltf::Document,
    image: &gltf::Image,
    buffers: &[gltf::buffer::Data],
    folder: &Path,
    path: &Path,
    label: &str,
    raw: bool,
) -> Result<Texture, SceneError> {
    // `Image::source` panics on an image in a bufferView without a mimeType, and on one with
    // neither a bufferView nor a uri.
    if let Some(json) = document.as_json().images.get(image.index()) {
        let problem = match (&json.buffer_view, &json.uri, &json.mime_type) {
            (Some(_), _, None) => Some("is in a bufferView but has no mimeType"),
            (None, None, _) => Some("has neither a uri nor a bufferView"),
            _ => None,
        };
        if let Some(problem) = problem {
            return Err(invalid(path, format!("{label}: images[{}] {problem}", image.index())));
        }
    }
    match image.source() {
        gltf::image::Source::View { view, .. } => {
            let data = buffers.get(view.buffer().index()).map(|d| d.0.as_slice()).unwrap_or(&[]);
            let bytes = data
                .get(view.offset()..view.offset().saturating_add(view.length()))
                .ok_or_else(|| invalid(path, format!("{label}: buffer view out of range")))?;
            decode_embedded_image(bytes, path, label, raw)
        }
        gltf::image::Source::Uri { uri, .. } => {
            if let Some(rest) = uri.strip_prefix("data:") {
                let encoded = rest.split_once(',').map(|(_, d)| d).unwrap_or("");
                let bytes = decode_base64(encoded).ok_or_else(|| invalid(path, format!("{label}: bad base64 data")))?;
                return decode_embedded_image(&bytes, path, label, raw);
            }
            let file: PathBuf = folder.join(percent_decode(uri));
            if !file.is_file() {
                return Err(SceneError::NotFound {
                    path: file,
                    hint: format!("{label} in {} not found", path.display()),
                });
            }
            if raw { load_image_raw(&file) } else { load_image(&file) }
        }
    }
}

/// Decodes an image embedded in the glTF (a buffer view or a data URI) through
/// [`crate::image_io`], by its signature; errors name the glTF file and the texture.
fn decode_embedded_image(bytes: &[u8], path: &Path, label: &str, raw: bool) -> Result<Texture, SceneError> {
    let Some(kind) = ImageKind::from_magic(bytes) else {
        return Err(invalid(path, format!("{label}: not a PNG, JPEG, EXR or HDR image")));
    };
    let decoded = if raw { decode_image_bytes_raw(bytes, kind, path) } else { decode_image_bytes(bytes, kind, path) };
    decoded.map_err(|e| match e {
        SceneError::Invalid { message, .. } => invalid(path, format!("{label}: {message}")),
        other => other,
    })
}

/// Standard or URL-safe base64, padding and whitespace ignored; `None` on bad input.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut accumulator = 0u32;
    let mut bits = 0u32;
    for c in text.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        accumulator = (accumulator << 6) | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((accumulator >> bits) as u8);
            accumulator &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Decodes `%XX` escapes in a URI path.
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(v) = u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
