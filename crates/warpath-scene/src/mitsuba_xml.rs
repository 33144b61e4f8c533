//! Mitsuba 3 XML scenes (`.xml`, reference: docs/scene-format.md, "Mitsuba 3 XML"): the
//! subset of Mitsuba's plugins that warpath's renderer supports, read into warpath's own
//! [`Scene`] through the same builders as the TOML format (the mesh builder, the
//! `rectangle`/`cube`/`sphere` meshes of [`crate::builtin`], the mesh-file loaders and the
//! material constructors), so every backend renders an imported scene. Submodules: `shape`
//! (shapes, their BSDF, emitter and media), `instance` (shapegroups and instances, flattened;
//! the `serialized` shape), [`serialized`] (the file format), `texture` (bitmap, checkerboard),
//! `medium` (media, volumes, phase functions), `bsdf`, `sensor`, `delta` (point lights).
//!
//! The scene graph: `<default>` and `$name` substitution (overridden by
//! [`load_mitsuba_xml`]'s `overrides`, the command line's `-D name=value`), `<include>`
//! (relative to the including file), `id` and `<ref>` for BSDFs, textures, media and
//! shapegroups, and
//! `<transform>` (`matrix`, `translate`, `rotate`, `scale`, `lookat`, each applied after the
//! ones before it, as Mitsuba composes them). Anything the importer does not read is named
//! in a warning with its file and line, or is an error (file:line) where rendering without it
//! would mislead (lights, media and geometry warpath cannot represent).

use crate::builtin;
use crate::image_io::{load_base_color_texture, load_image, load_raw_texture, repair_pixels};
use crate::mesh::{SceneBuilder, TriangleMesh, framing_camera};
use crate::mesh_file::{is_mesh_file, load_mesh_file};
use crate::scene::{MAX_DEPTH, MAX_RESOLUTION, MAX_SPP, UNLIMITED_DEPTH};
use crate::{RenderSettings, Scene, SceneError};
use glam::{Mat3, Mat4, Vec2, Vec3};
use roxmltree::{Document, Node};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use warpath_core::camera::{Camera, FovAxis, look_at_matrix};
use warpath_core::light::{EnvMap, Environment};
use warpath_core::material::{Material, flags};

mod bsdf;
mod delta;
mod instance;
mod medium;
mod sensor;
pub mod serialized;
mod shape;
mod texture;

pub use instance::angle_weighted_normals;
use shape::Placed;

pub use shape::{MITSUBA_CUBE_UVS, disk_mesh, mitsuba_cube_mesh, mitsuba_sphere_mesh};

/// Reflectance of Mitsuba's default BSDF (a one-sided `diffuse`), given to shapes without a
/// `<bsdf>` and to BSDFs warpath does not have.
pub const FALLBACK_REFLECTANCE: f32 = 0.5;

/// Subdivisions of the icosphere that stands in for pbrt's analytic `sphere` (5120
/// triangles, as the TOML format's default).
pub const SPHERE_SUBDIVISIONS: u32 = 4;

/// Columns of the latitude-longitude mesh that stands in for Mitsuba's analytic `sphere`
/// (half as many rows: 16128 triangles; its facets lie within 3·10⁻⁴ of the radius).
pub const SPHERE_SEGMENTS: u32 = 128;

/// Segments of the triangle fan that stands in for Mitsuba's analytic `disk`.
pub const DISK_SEGMENTS: u32 = 64;

/// Deepest `<include>` nesting (a cycle is reported before this).
const MAX_INCLUDE_DEPTH: usize = 32;

/// Loads a Mitsuba 3 XML scene. `overrides` are `(name, value)` pairs that take precedence
/// over the file's `<default name=... value=...>` (the command line's `-D name=value`).
pub fn load_mitsuba_xml(path: &Path, overrides: &[(&str, &str)]) -> Result<Scene, SceneError> {
    let text = read_text(path)?;
    parse_mitsuba_xml(&text, path, overrides)
}

/// Parses Mitsuba 3 XML text; `path` locates errors, relative file names and includes.
pub fn parse_mitsuba_xml(text: &str, path: &Path, overrides: &[(&str, &str)]) -> Result<Scene, SceneError> {
    let scene_name = path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut loader = Loader {
        builder: SceneBuilder::new(&scene_name),
        params: HashMap::new(),
        used_params: HashSet::new(),
        objects: HashMap::new(),
        textures: HashMap::new(),
        grey_textures: HashMap::new(),
        fallback_material: None,
        emitter_fallback_material: None,
        root_dir: path.parent().unwrap_or(Path::new("")).to_path_buf(),
        include_stack: vec![path.to_path_buf()],
        shape_count: 0,
        camera: None,
        settings: RenderSettings { width: 768, height: 576, spp: 4, max_depth: UNLIMITED_DEPTH, ..Default::default() },
        environment: None,
        delta_lights: Vec::new(),
        defaults: HashSet::new(),
        groups: HashMap::new(),
        media_ids: HashMap::new(),
        mesh_media: Vec::new(),
        camera_medium: None,
        integrator_kind: None,
        serialized_files: HashMap::new(),
    };
    for (name, value) in overrides {
        loader.params.insert(name.to_string(), value.to_string());
    }
    loader.file(text, path)?;
    for name in overrides.iter().map(|(k, _)| *k) {
        if !loader.defaults.contains(name) && !loader.used_params.contains(name) {
            loader.builder.warn(format!(
                "{}: parameter '{name}' (given with -D) is not used by the scene (no <default name=\"{name}\"> and no ${name})",
                path.display()
            ));
        }
    }
    if !loader.builder.scene_mut().media.is_empty() {
        let (kind, at) = loader.integrator_kind.clone().unwrap_or(("path".into(), path.display().to_string()));
        if kind != "volpath" {
            loader.warn(format!(
                "{at}: the scene has media, which Mitsuba's '{kind}' integrator ignores (it renders them only with \
                 'volpath'); warpath renders them, with its volumetric path tracer"
            ));
        }
    }
    if let Some((kind, at)) = loader.integrator_kind.clone()
        && kind == "volpath"
    {
        let scene = loader.builder.scene_mut();
        let masked = scene.materials.iter().any(|m| m.is_masked());
        let volumetric = !scene.media.is_empty() || scene.materials.iter().any(|m| m.is_null());
        if masked && !volumetric {
            loader.warn(format!(
                "{at}: 'volpath' with opacity masks but no media or null boundaries: warpath renders the scene with \
                 its path tracer, where a pass-through through a mask counts toward max_depth (Mitsuba's volpath does \
                 not count it): paths that reach max_depth through masks differ"
            ));
        }
    }
    let Loader { builder, camera, settings, environment, delta_lights, mesh_media, camera_medium, .. } = loader;
    let mut scene = builder.finish();
    scene.set_mesh_media(&mesh_media);
    scene.camera_medium = camera_medium;
    scene.settings = settings;
    scene.delta_lights = delta_lights;
    scene.environment = environment.map(|(e, _)| e).unwrap_or(Environment::None);
    scene.camera = match camera {
        Some(c) => c,
        None => {
            scene.warnings.push(format!("{}: no <sensor>: using a camera that frames the scene", path.display()));
            framing_camera(scene.bounds())
        }
    };
    let warnings = scene.content_warnings(path);
    scene.warnings.extend(warnings);
    Ok(scene)
}

fn read_text(path: &Path) -> Result<String, SceneError> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            SceneError::NotFound { path: path.to_path_buf(), hint: "scene file not found".into() }
        }
        _ => SceneError::Io { path: path.to_path_buf(), source: e },
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(e.as_bytes());
        let line = text[..offset.min(text.len())].matches('\n').count() + 1;
        SceneError::Parse { path: path.to_path_buf(), line, message: "the file is not valid UTF-8".into() }
    })
}

/// A BSDF or texture declared with an `id`, as evaluated where it was declared.
#[derive(Clone)]
enum Object {
    Bsdf(Bsdf),
    Texture(Tex),
}

/// An evaluated BSDF: the material, its name, and its index once added to the scene.
#[derive(Clone)]
struct Bsdf {
    material: Material,
    name: String,
    index: Option<u32>,
}

/// An evaluated texture (or color) parameter.
#[derive(Clone, Copy)]
enum Tex {
    Color(Vec3),
    /// Index into the scene's textures.
    Bitmap(i32),
}

/// One open file: its path and parsed document, to locate errors and resolve names.
struct Src<'a, 'i> {
    path: &'a Path,
    doc: &'a Document<'i>,
}

impl Src<'_, '_> {
    fn line(&self, node: Node) -> usize {
        self.doc.text_pos_at(node.range().start).row as usize
    }
    fn error(&self, node: Node, message: impl Into<String>) -> SceneError {
        SceneError::Parse { path: self.path.to_path_buf(), line: self.line(node), message: message.into() }
    }
    fn at(&self, node: Node) -> String {
        format!("{}:{}", self.path.display(), self.line(node))
    }
}

struct Loader {
    builder: SceneBuilder,
    params: HashMap<String, String>,
    used_params: HashSet<String>,
    defaults: HashSet<String>,
    objects: HashMap<String, Object>,
    /// Bitmap textures by file and `raw`, loaded once.
    textures: HashMap<(PathBuf, bool), i32>,
    /// Opacity maps: a texture's grey version (itself when already grey), made once.
    grey_textures: HashMap<i32, i32>,
    fallback_material: Option<u32>,
    emitter_fallback_material: Option<u32>,
    /// The folder of the scene file, against which Mitsuba resolves every relative file
    /// name, in included files too.
    root_dir: PathBuf,
    include_stack: Vec<PathBuf>,
    shape_count: usize,
    camera: Option<Camera>,
    settings: RenderSettings,
    /// The environment and where it was declared.
    environment: Option<(Environment, String)>,
    /// Point, spot and directional emitters.
    delta_lights: Vec<warpath_core::light::DeltaLight>,
    /// Shapegroups by id: their shapes, and where the group was declared.
    groups: HashMap<String, (Vec<Placed>, String)>,
    /// Media declared at the top level, by id: index into the scene's media.
    media_ids: HashMap<String, u32>,
    /// Meshes (by index in the scene) whose shape bounds media, with their packed interface.
    mesh_media: Vec<(usize, u32)>,
    /// The sensor's medium.
    camera_medium: Option<u32>,
    /// The integrator's type and where it was declared (Mitsuba's default is `path`).
    integrator_kind: Option<(String, String)>,
    /// `.serialized` files read so far (a scene may take hundreds of shapes from one file).
    serialized_files: HashMap<PathBuf, std::sync::Arc<Vec<u8>>>,
}

/// A plugin's parameters (its named child elements), each marked when read; those never read
/// are named in a warning by [`Props::finish`].
struct Props<'a, 'i> {
    plugin: String,
    entries: Vec<(String, Node<'a, 'i>, bool)>,
    /// Child objects without a name attribute (nested `<bsdf>`, `<emitter>`, `<film>`, an
    /// unnamed `<ref>`), in document order.
    objects: Vec<Node<'a, 'i>>,
}

const PROPERTY_TAGS: &[&str] =
    &["float", "integer", "boolean", "string", "rgb", "spectrum", "point", "vector", "transform", "texture", "ref"];

impl Loader {
    /// Substitutes `$name` parameters in an attribute's value.
    fn attr(&mut self, src: &Src, node: Node, name: &str) -> Result<Option<String>, SceneError> {
        let Some(raw) = node.attribute(name) else { return Ok(None) };
        if !raw.contains('$') {
            return Ok(Some(raw.to_string()));
        }
        let mut out = String::new();
        let mut rest = raw;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            let key = &after[..len];
            if key.is_empty() {
                out.push('$');
            } else {
                let Some(value) = self.params.get(key) else {
                    return Err(src.error(
                        node,
                        format!(
                            "parameter '${key}' is not defined: add <default name=\"{key}\" value=\"...\"/> to the \
                             scene or give -D {key}=VALUE"
                        ),
                    ));
                };
                out.push_str(value);
                self.used_params.insert(key.to_string());
            }
            rest = &after[len..];
        }
        out.push_str(rest);
        Ok(Some(out))
    }

    fn required(&mut self, src: &Src, node: Node, name: &str) -> Result<String, SceneError> {
        self.attr(src, node, name)?
            .ok_or_else(|| src.error(node, format!("<{}> needs a '{name}' attribute", node.tag_name().name())))
    }

    /// A file name as Mitsuba resolves it: a relative name against the scene file's folder,
    /// in an included file too. A name found only relative to the included file that names
    /// it is taken from there, with a warning (Mitsuba would not find it).
    fn resolve(&mut self, src: &Src, name: &str) -> PathBuf {
        let p = Path::new(name);
        if p.is_absolute() {
            return p.to_path_buf();
        }
        let from_root = self.root_dir.join(p);
        let from_file = src.path.parent().unwrap_or(Path::new("")).join(p);
        if !from_root.exists() && from_file.exists() && from_file != from_root {
            self.warn(format!(
                "{}: '{name}' is read relative to this included file; Mitsuba resolves relative names against the \
                 scene's folder ({}) and would not find it",
                src.path.display(),
                self.root_dir.display()
            ));
            return from_file;
        }
        from_root
    }

    fn warn(&mut self, message: String) {
        self.builder.warn(message);
    }

    /// Reads one file (the scene or an include): its root must be `<scene>`.
    fn file(&mut self, text: &str, path: &Path) -> Result<(), SceneError> {
        let options = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
        let doc = Document::parse_with_options(text, options).map_err(|e| SceneError::Parse {
            path: path.to_path_buf(),
            line: e.pos().row as usize,
            message: format!("malformed XML: {e}; fix the syntax there (Mitsuba 3 scenes are XML files)"),
        })?;
        let src = Src { path, doc: &doc };
        let root = doc.root_element();
        if root.tag_name().name() != "scene" {
            return Err(src.error(
                root,
                format!("the root element is <{}>, expected <scene version=\"3.0.0\">", root.tag_name().name()),
            ));
        }
        match root.attribute("version") {
            None => self
                .warn(format!("{}: <scene> has no 'version' (Mitsuba 3 scenes say version=\"3.0.0\")", src.at(root))),
            Some(v) if !(v.starts_with("2.") || v.starts_with("3.")) => self.warn(format!(
                "{}: scene version {v}: warpath reads Mitsuba 2/3 scenes; older plugin and parameter names are not \
                 translated",
                src.at(root)
            )),
            _ => {}
        }
        for node in root.children().filter(|n| n.is_element()) {
            self.top_level(&src, node)?;
        }
        Ok(())
    }

    fn top_level(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        match node.tag_name().name() {
            "default" => {
                let name = self.required(src, node, "name")?;
                let value = self.required(src, node, "value")?;
                self.defaults.insert(name.clone());
                // The first value given wins: -D on the command line, then the first <default>
                // (an including file's default overrides an included file's).
                self.params.entry(name).or_insert(value);
            }
            "include" => self.include(src, node)?,
            "bsdf" => {
                let mut bsdf = self.bsdf(src, node)?;
                let id = self.attr(src, node, "id")?;
                match id {
                    Some(id) => {
                        // Declared BSDFs join the scene in document order.
                        bsdf.name = id.clone();
                        let index = self.builder.add_material(&id, bsdf.material);
                        bsdf.index = Some(index);
                        self.objects.insert(id, Object::Bsdf(bsdf));
                    }
                    None => self.warn(format!(
                        "{}: a top-level <bsdf> without an 'id' cannot be referenced and is ignored",
                        src.at(node)
                    )),
                }
            }
            "texture" => {
                let tex = self.texture(src, node)?;
                match self.attr(src, node, "id")? {
                    Some(id) => {
                        self.objects.insert(id, Object::Texture(tex));
                    }
                    None => self.warn(format!(
                        "{}: a top-level <texture> without an 'id' cannot be referenced and is ignored",
                        src.at(node)
                    )),
                }
            }
            "shape" => self.shape(src, node)?,
            "emitter" => self.emitter(src, node)?,
            "sensor" => self.sensor(src, node)?,
            "integrator" => self.integrator(src, node)?,
            "medium" => {
                let index = self.medium(src, node, None)?;
                match self.attr(src, node, "id")? {
                    Some(id) => {
                        if self.media_ids.insert(id.clone(), index).is_some() {
                            return Err(src.error(node, format!("medium id '{id}' is declared twice")));
                        }
                    }
                    None => self.warn(format!(
                        "{}: a top-level <medium> without an 'id' cannot be referenced and fills nothing",
                        src.at(node)
                    )),
                }
            }
            other => self.warn(format!(
                "{}: <{other}> is not supported by warpath's Mitsuba importer and is ignored",
                src.at(node)
            )),
        }
        Ok(())
    }

    fn include(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let name = self.required(src, node, "filename")?;
        let path = self.resolve(src, &name);
        if !path.is_file() {
            return Err(src.error(node, format!("included file '{}' not found", path.display())));
        }
        let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
        if self.include_stack.iter().any(|p| p.canonicalize().unwrap_or_else(|_| p.clone()) == canonical) {
            return Err(src.error(node, format!("'{}' includes itself (an include cycle)", path.display())));
        }
        if self.include_stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(src.error(node, format!("includes nest deeper than {MAX_INCLUDE_DEPTH} files")));
        }
        let text = read_text(&path)?;
        self.include_stack.push(path.clone());
        let result = self.file(&text, &path);
        self.include_stack.pop();
        result
    }

    /// Collects a plugin element's children.
    fn props<'a, 'i>(&mut self, src: &Src, node: Node<'a, 'i>) -> Result<Props<'a, 'i>, SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props =
            Props { plugin: format!("{} '{kind}'", node.tag_name().name()), entries: Vec::new(), objects: Vec::new() };
        for child in node.children().filter(|n| n.is_element()) {
            let tag = child.tag_name().name();
            let name = self.attr(src, child, "name")?;
            // A named <ref> to a BSDF is an object (as a nested <bsdf> is); to a texture, a parameter.
            let ref_to_bsdf =
                tag == "ref" && !matches!(node_id(child).and_then(|id| self.objects.get(id)), Some(Object::Texture(_)));
            match name {
                Some(name) if PROPERTY_TAGS.contains(&tag) && !ref_to_bsdf => {
                    if let Some((_, previous, _)) = props.entries.iter().find(|(n, _, _)| *n == name) {
                        return Err(src.error(
                            child,
                            format!("parameter '{name}' is given twice (first at line {})", src.line(*previous)),
                        ));
                    }
                    props.entries.push((name, child, false));
                }
                None if matches!(
                    tag,
                    "float" | "integer" | "boolean" | "string" | "rgb" | "spectrum" | "point" | "vector" | "transform"
                ) =>
                {
                    return Err(src.error(child, format!("<{tag}> needs a 'name' attribute")));
                }
                _ => props.objects.push(child),
            }
        }
        Ok(props)
    }

    fn finish(&mut self, src: &Src, props: Props) {
        for (name, node, used) in &props.entries {
            if !used {
                self.warn(format!(
                    "{}: {}: parameter '{name}' is not supported by warpath and is ignored",
                    src.at(*node),
                    props.plugin
                ));
            }
        }
    }

    fn take<'a, 'i>(&mut self, props: &mut Props<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
        props.entries.iter_mut().find(|(n, _, _)| n == name).map(|e| {
            e.2 = true;
            e.1
        })
    }

    /// The `value` attribute of a property element, substituted.
    fn value(&mut self, src: &Src, node: Node) -> Result<String, SceneError> {
        self.required(src, node, "value")
    }

    fn float(&mut self, src: &Src, props: &mut Props, name: &str) -> Result<Option<f32>, SceneError> {
        let Some(node) = self.take(props, name) else { return Ok(None) };
        let tag = node.tag_name().name();
        if !matches!(tag, "float" | "integer") {
            return Err(src.error(node, format!("'{name}' must be a <float>, not <{tag}>")));
        }
        let text = self.value(src, node)?;
        let v: f32 =
            text.trim().parse().map_err(|_| src.error(node, format!("'{name}' = '{text}' is not a number")))?;
        if !v.is_finite() {
            return Err(src.error(node, format!("'{name}' = {text} must be finite")));
        }
        Ok(Some(v))
    }

    fn integer(&mut self, src: &Src, props: &mut Props, name: &str) -> Result<Option<i64>, SceneError> {
        let Some(node) = self.take(props, name) else { return Ok(None) };
        let tag = node.tag_name().name();
        if tag != "integer" {
            return Err(src.error(node, format!("'{name}' must be an <integer>, not <{tag}>")));
        }
        let text = self.value(src, node)?;
        let v = text.trim().parse().map_err(|_| src.error(node, format!("'{name}' = '{text}' is not an integer")))?;
        Ok(Some(v))
    }

    fn boolean(&mut self, src: &Src, props: &mut Props, name: &str) -> Result<Option<bool>, SceneError> {
        let Some(node) = self.take(props, name) else { return Ok(None) };
        let tag = node.tag_name().name();
        if tag != "boolean" {
            return Err(src.error(node, format!("'{name}' must be a <boolean>, not <{tag}>")));
        }
        let text = self.value(src, node)?;
        match text.trim() {
            "true" | "1" => Ok(Some(true)),
            "false" | "0" => Ok(Some(false)),
            _ => Err(src.error(node, format!("'{name}' = '{text}' is not true or false"))),
        }
    }

    fn string(&mut self, src: &Src, props: &mut Props, name: &str) -> Result<Option<(String, usize)>, SceneError> {
        let Some(node) = self.take(props, name) else { return Ok(None) };
        let tag = node.tag_name().name();
        if tag != "string" {
            return Err(src.error(node, format!("'{name}' must be a <string>, not <{tag}>")));
        }
        Ok(Some((self.value(src, node)?, src.line(node))))
    }

    /// A point or vector: `x`/`y`/`z` attributes or `value="x y z"`.
    fn point(&mut self, src: &Src, props: &mut Props, name: &str) -> Result<Option<Vec3>, SceneError> {
        let Some(node) = self.take(props, name) else { return Ok(None) };
        let tag = node.tag_name().name();
        if !matches!(tag, "point" | "vector") {
            return Err(src.error(node, format!("'{name}' must be a <point> or <vector>, not <{tag}>")));
        }
        Ok(Some(self.xyz(src, node, 0.0)?))
    }

    fn xyz(&mut self, src: &Src, node: Node, default: f32) -> Result<Vec3, SceneError> {
        if let Some(v) = self.attr(src, node, "value")? {
            let n = numbers(src, node, &v)?;
            return match n.len() {
                1 => Ok(Vec3::splat(n[0])),
                3 => Ok(Vec3::new(n[0], n[1], n[2])),
                k => Err(src.error(node, format!("expected 3 numbers, got {k}"))),
            };
        }
        let mut out = Vec3::splat(default);
        for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
            if let Some(v) = self.attr(src, node, axis)? {
                let n = numbers(src, node, &v)?;
                if n.len() != 1 {
                    return Err(src.error(node, format!("'{axis}' must be one number")));
                }
                out[i] = n[0];
            }
        }
        Ok(out)
    }

    /// A color: `<rgb>`, a constant `<spectrum>` or a `<float>`.
    fn color_node(&mut self, src: &Src, node: Node, name: &str) -> Result<Vec3, SceneError> {
        let tag = node.tag_name().name();
        let text = self.value(src, node)?;
        match tag {
            "rgb" | "float" => {
                let n = numbers(src, node, &text)?;
                match n.len() {
                    1 => Ok(Vec3::splat(n[0])),
                    3 => Ok(Vec3::new(n[0], n[1], n[2])),
                    k => Err(src.error(node, format!("'{name}': an <rgb> has 1 or 3 numbers, got {k}"))),
                }
            }
            "spectrum" => {
                if text.contains(':') {
                    // Wavelength:value pairs: their mean, as a gray.
                    let mut values = Vec::new();
                    for pair in text.split(',') {
                        let v = pair.split(':').nth(1).unwrap_or("").trim();
                        values.push(
                            v.parse::<f32>()
                                .map_err(|_| src.error(node, format!("'{name}': '{pair}' is not WAVELENGTH:VALUE")))?,
                        );
                    }
                    let mean = values.iter().sum::<f32>() / values.len().max(1) as f32;
                    self.warn(format!(
                        "{}: '{name}': a sampled spectrum is rendered as the gray {mean} (warpath renders RGB; give an \
                         <rgb> for color)",
                        src.at(node)
                    ));
                    Ok(Vec3::splat(mean))
                } else {
                    let n = numbers(src, node, &text)?;
                    if n.len() != 1 {
                        return Err(src.error(
                            node,
                            format!("'{name}': a <spectrum> value is one number or WAVELENGTH:VALUE pairs"),
                        ));
                    }
                    Ok(Vec3::splat(n[0]))
                }
            }
            _ => Err(src.error(node, format!("'{name}' must be an <rgb>, <spectrum> or <float>, not <{tag}>"))),
        }
    }

    /// A color or texture parameter (an `<rgb>`, a `<texture>`, a `<ref>` to a texture).
    fn tex(&mut self, src: &Src, props: &mut Props, name: &str) -> Result<Option<Tex>, SceneError> {
        let Some(node) = self.take(props, name) else { return Ok(None) };
        match node.tag_name().name() {
            "texture" => Ok(Some(self.texture(src, node)?)),
            "ref" => match self.reference(src, node)? {
                Object::Texture(t) => Ok(Some(t)),
                Object::Bsdf(_) => {
                    Err(src.error(node, format!("'{name}' refers to a BSDF, expected a texture or color")))
                }
            },
            _ => Ok(Some(Tex::Color(self.color_node(src, node, name)?))),
        }
    }

    /// A color parameter where warpath takes no texture: a texture becomes its mean, with a
    /// warning.
    fn color(&mut self, src: &Src, props: &mut Props, name: &str) -> Result<Option<Vec3>, SceneError> {
        let line_node = props.entries.iter().find(|(n, _, _)| n == name).map(|e| e.1);
        Ok(match self.tex(src, props, name)? {
            None => None,
            Some(Tex::Color(c)) => Some(c),
            Some(Tex::Bitmap(i)) => {
                let t = &self.builder.scene_mut().textures[i as usize];
                let mean = t.pixels.iter().copied().sum::<Vec3>() / t.pixels.len().max(1) as f32;
                if let Some(n) = line_node {
                    self.warn(format!(
                        "{}: {}: warpath takes no texture for '{name}': the texture's mean color {mean} is used",
                        src.at(n),
                        props.plugin
                    ));
                }
                Some(mean)
            }
        })
    }

    fn reference(&mut self, src: &Src, node: Node) -> Result<Object, SceneError> {
        let id = self.required(src, node, "id")?;
        self.objects.get(&id).cloned().ok_or_else(|| {
            let mut ids: Vec<&str> = self.objects.keys().map(|s| s.as_str()).collect();
            ids.sort();
            let known =
                if ids.is_empty() { "none is declared".to_string() } else { format!("declared: {}", ids.join(", ")) };
            src.error(node, format!("<ref id=\"{id}\"> names no BSDF or texture declared before it ({known})"))
        })
    }
}

fn node_id<'a>(n: Node<'a, '_>) -> Option<&'a str> {
    n.attribute("id")
}

fn is_bsdf_node(n: Node) -> bool {
    matches!(n.tag_name().name(), "bsdf" | "ref")
}

fn check_reflectance(src: &Src, node: Node, name: &str, c: Vec3) -> Result<Vec3, SceneError> {
    if !c.is_finite() || c.min_element() < 0.0 || c.max_element() > 1.0 {
        return Err(src.error(node, format!("{name} {c} must be in [0, 1]")));
    }
    Ok(c)
}

/// Numbers separated by commas and/or whitespace.
fn numbers(src: &Src, node: Node, text: &str) -> Result<Vec<f32>, SceneError> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| src.error(node, format!("'{s}' is not a finite number")))
        })
        .collect()
}
