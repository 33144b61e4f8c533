//! Mitsuba 3 XML scenes (`.xml`, reference: docs/scene-format.md, "Mitsuba 3 XML"): the
//! subset of Mitsuba's plugins that warpath's renderer supports, read into warpath's own
//! [`Scene`] through the same builders as the TOML format (the mesh builder, the
//! `rectangle`/`cube`/`sphere` meshes of [`crate::builtin`], the mesh-file loaders and the
//! material constructors), so every backend renders an imported scene.
//!
//! The scene graph: `<default>` and `$name` substitution (overridden by
//! [`load_mitsuba_xml`]'s `overrides`, the command line's `-D name=value`), `<include>`
//! (relative to the including file), `id` and `<ref>` for BSDFs and textures, and
//! `<transform>` (`matrix`, `translate`, `rotate`, `scale`, `lookat`, each applied after the
//! ones before it, as Mitsuba composes them). Anything the importer does not read is named
//! in a warning with its file and line, or is an error (file:line) where rendering without it
//! would mislead (lights, media and geometry warpath cannot represent).

use crate::builtin;
use crate::image_io::{load_base_color_texture, load_image, repair_pixels};
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

/// Reflectance of Mitsuba's default BSDF (a one-sided `diffuse`), given to shapes without a
/// `<bsdf>` and to BSDFs warpath does not have.
pub const FALLBACK_REFLECTANCE: f32 = 0.5;

/// Subdivisions of the icosphere that stands in for Mitsuba's analytic `sphere` (5120
/// triangles, as the TOML format's default).
pub const SPHERE_SUBDIVISIONS: u32 = 4;

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
        fallback_material: None,
        include_stack: vec![path.to_path_buf()],
        shape_count: 0,
        camera: None,
        settings: RenderSettings { width: 768, height: 576, spp: 4, max_depth: UNLIMITED_DEPTH, ..Default::default() },
        environment: None,
        defaults: HashSet::new(),
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
    let Loader { builder, camera, settings, environment, .. } = loader;
    let mut scene = builder.finish();
    scene.settings = settings;
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
    fn resolve(&self, name: &str) -> PathBuf {
        let p = Path::new(name);
        if p.is_absolute() { p.to_path_buf() } else { self.path.parent().unwrap_or(Path::new(".")).join(p) }
    }
}

struct Loader {
    builder: SceneBuilder,
    params: HashMap<String, String>,
    used_params: HashSet<String>,
    defaults: HashSet<String>,
    objects: HashMap<String, Object>,
    /// Bitmap textures by file, loaded once.
    textures: HashMap<PathBuf, i32>,
    fallback_material: Option<u32>,
    include_stack: Vec<PathBuf>,
    shape_count: usize,
    camera: Option<Camera>,
    settings: RenderSettings,
    /// The environment and where it was declared.
    environment: Option<(Environment, String)>,
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
                return Err(src.error(
                    node,
                    "media (<medium>) are not imported from Mitsuba scenes yet: describe the medium in a warpath \
                     TOML scene ([[medium]], docs/scene-format.md)",
                ));
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
        let path = src.resolve(&name);
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

    fn texture(&mut self, src: &Src, node: Node) -> Result<Tex, SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let tex = match kind.as_str() {
            "bitmap" => {
                let Some((file, _)) = self.string(src, &mut props, "filename")? else {
                    return Err(src.error(node, "a 'bitmap' texture needs a <string name=\"filename\">"));
                };
                let path = src.resolve(&file);
                if !path.is_file() {
                    return Err(src.error(node, format!("texture '{}' not found", path.display())));
                }
                let index = match self.textures.get(&path) {
                    Some(&i) => i,
                    None => {
                        let (texture, warning) = load_base_color_texture(&path)?;
                        if let Some(w) = warning {
                            self.warn(w);
                        }
                        let i = self.builder.add_texture(texture);
                        self.textures.insert(path, i);
                        i
                    }
                };
                // Filtering and wrapping: warpath's textures are bilinear and repeat.
                for known in ["filter_type", "wrap_mode"] {
                    if let Some((value, _)) = self.string(src, &mut props, known)?
                        && !matches!(value.as_str(), "bilinear" | "repeat")
                    {
                        self.warn(format!(
                            "{}: bitmap '{file}': {known} = '{value}' is not supported (warpath's textures are bilinear \
                             and repeat)",
                            src.at(node)
                        ));
                    }
                }
                self.take(&mut props, "raw");
                Tex::Bitmap(index)
            }
            "checkerboard" => {
                let a = self.color(src, &mut props, "color0")?.unwrap_or(Vec3::splat(0.4));
                let b = self.color(src, &mut props, "color1")?.unwrap_or(Vec3::splat(0.2));
                self.take(&mut props, "to_uv");
                self.warn(format!(
                    "{}: checkerboard textures are not supported yet: the mean of its two colors is used",
                    src.at(node)
                ));
                Tex::Color(0.5 * (a + b))
            }
            other => {
                self.warn(format!(
                    "{}: texture type '{other}' is not supported (warpath reads 'bitmap'): a gray of {FALLBACK_REFLECTANCE} \
                     is used",
                    src.at(node)
                ));
                for e in props.entries.iter_mut() {
                    e.2 = true;
                }
                Tex::Color(Vec3::splat(FALLBACK_REFLECTANCE))
            }
        };
        self.finish(src, props);
        Ok(tex)
    }

    /// A `<bsdf>` element as a material.
    fn bsdf(&mut self, src: &Src, node: Node) -> Result<Bsdf, SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let plugin = props.plugin.clone();
        let name = self.attr(src, node, "id")?.unwrap_or_else(|| kind.clone());
        let material = match kind.as_str() {
            "diffuse" => {
                let m = match self.tex(src, &mut props, "reflectance")? {
                    None => Material::diffuse(Vec3::splat(FALLBACK_REFLECTANCE)),
                    Some(Tex::Color(c)) => Material::diffuse(check_reflectance(src, node, "reflectance", c)?),
                    Some(Tex::Bitmap(i)) => Material { base_color_texture: i, ..Material::diffuse(Vec3::ONE) },
                };
                m.with_one_sided()
            }
            "twosided" => {
                let inner: Vec<Node> = props.objects.iter().copied().filter(|n| is_bsdf_node(*n)).collect();
                props.objects.retain(|n| !is_bsdf_node(*n));
                let Some(&first) = inner.first() else {
                    return Err(src.error(node, "a 'twosided' BSDF needs a nested <bsdf> (or <ref>)"));
                };
                if inner.len() > 1 {
                    self.warn(format!(
                        "{}: 'twosided' with a different back-face BSDF is not supported: both faces use the first",
                        src.at(inner[1])
                    ));
                }
                let mut m = self.bsdf_or_ref(src, first)?.material;
                m.flags &= !flags::ONE_SIDED;
                m
            }
            "conductor" | "roughconductor" => {
                let f0 = self.conductor_f0(src, &mut props, node)?;
                let reflectance = self.color(src, &mut props, "specular_reflectance")?.unwrap_or(Vec3::ONE);
                let f0 = check_reflectance(src, node, "specular_reflectance", f0 * reflectance)?;
                let m = if kind == "conductor" {
                    Material::mirror(f0)
                } else {
                    let roughness = self.roughness(src, &mut props, node)?;
                    Material::rough_conductor(f0, roughness)
                };
                m.with_one_sided()
            }
            "dielectric" | "roughdielectric" => {
                let int_ior = self.ior(src, &mut props, "int_ior", 1.5046)?;
                let ext_ior = self.ior(src, &mut props, "ext_ior", 1.000277)?;
                let ior = int_ior / ext_ior;
                let transmittance = self.color(src, &mut props, "specular_transmittance")?.unwrap_or(Vec3::ONE);
                let transmittance = check_reflectance(src, node, "specular_transmittance", transmittance)?;
                if let Some(r) = self.color(src, &mut props, "specular_reflectance")?
                    && r != Vec3::ONE
                {
                    self.warn(format!(
                        "{}: {plugin}: specular_reflectance {r} is not supported (warpath's dielectrics reflect by \
                         Fresnel alone)",
                        src.at(node)
                    ));
                }
                let m = if kind == "dielectric" {
                    Material::glass(ior)
                } else {
                    let roughness = self.roughness(src, &mut props, node)?;
                    Material::rough_dielectric(ior, roughness)
                };
                Material { specular: transmittance, ..m }
            }
            "null" => Material::null(),
            other => {
                self.warn(format!(
                    "{}: BSDF '{other}' is not supported by warpath yet: rendered as a gray diffuse of reflectance \
                     {FALLBACK_REFLECTANCE}",
                    src.at(node)
                ));
                for e in props.entries.iter_mut() {
                    e.2 = true;
                }
                props.objects.clear();
                Material::diffuse(Vec3::splat(FALLBACK_REFLECTANCE)).with_one_sided()
            }
        };
        for extra in props.objects.clone() {
            self.warn(format!(
                "{}: {plugin}: <{}> is not supported here and is ignored",
                src.at(extra),
                extra.tag_name().name()
            ));
        }
        props.objects.clear();
        self.finish(src, props);
        Ok(Bsdf { material, name, index: None })
    }

    fn bsdf_or_ref(&mut self, src: &Src, node: Node) -> Result<Bsdf, SceneError> {
        if node.tag_name().name() == "ref" {
            match self.reference(src, node)? {
                Object::Bsdf(b) => Ok(b),
                Object::Texture(_) => Err(src.error(node, "this <ref> names a texture, expected a BSDF")),
            }
        } else {
            self.bsdf(src, node)
        }
    }

    /// A rough BSDF's GGX roughness (warpath's α = roughness²) from Mitsuba's `alpha`.
    fn roughness(&mut self, src: &Src, props: &mut Props, node: Node) -> Result<f32, SceneError> {
        if let Some((d, line)) = self.string(src, props, "distribution")?
            && d != "ggx"
        {
            self.warn(format!(
                "{}:{line}: {}: distribution '{d}' is rendered as GGX (warpath's only microfacet distribution)",
                src.path.display(),
                props.plugin
            ));
        }
        let alpha = match self.float(src, props, "alpha")? {
            Some(a) => a,
            None => match (self.float(src, props, "alpha_u")?, self.float(src, props, "alpha_v")?) {
                (Some(u), Some(v)) => {
                    if u != v {
                        self.warn(format!(
                            "{}: {}: anisotropic roughness (alpha_u {u}, alpha_v {v}) is rendered isotropic with \
                             alpha = {}",
                            src.at(node),
                            props.plugin,
                            (u * v).sqrt()
                        ));
                    }
                    (u * v).sqrt()
                }
                (None, None) => 0.1,
                _ => return Err(src.error(node, "give both alpha_u and alpha_v, or alpha")),
            },
        };
        if !(0.0..=1.0).contains(&alpha) {
            return Err(src.error(node, format!("alpha = {alpha} must be in [0, 1]")));
        }
        self.take(props, "sample_visible");
        Ok(alpha.sqrt())
    }

    /// A conductor's normal-incidence reflectance: `material = "none"` (Mitsuba's default)
    /// reflects everything; a named metal or `eta`/`k` becomes its Schlick F0.
    fn conductor_f0(&mut self, src: &Src, props: &mut Props, node: Node) -> Result<Vec3, SceneError> {
        let eta = self.color(src, props, "eta")?;
        let k = self.color(src, props, "k")?;
        let material = self.string(src, props, "material")?;
        if let (Some(eta), k) = (eta, k) {
            if material.is_some() {
                return Err(src.error(node, "give either 'material' or 'eta'/'k', not both"));
            }
            let k = k.unwrap_or(Vec3::ZERO);
            let f0 = ((eta - Vec3::ONE) * (eta - Vec3::ONE) + k * k) / ((eta + Vec3::ONE) * (eta + Vec3::ONE) + k * k);
            self.warn(format!(
                "{}: {}: eta/k are rendered with Schlick's Fresnel of normal-incidence reflectance {f0}",
                src.at(node),
                props.plugin
            ));
            return Ok(f0);
        }
        if k.is_some() {
            return Err(src.error(node, "'k' needs 'eta'"));
        }
        let Some((name, line)) = material else { return Ok(Vec3::ONE) };
        if name == "none" {
            return Ok(Vec3::ONE);
        }
        let Some(&(_, f0)) = CONDUCTOR_F0.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = CONDUCTOR_F0.iter().map(|(n, _)| *n).collect();
            return Err(SceneError::Parse {
                path: src.path.to_path_buf(),
                line,
                message: format!(
                    "conductor material '{name}' is not known to warpath (known: none, {}); give eta and k as <rgb>",
                    names.join(", ")
                ),
            });
        };
        let f0 = Vec3::from_array(f0);
        self.warn(format!(
            "{}:{line}: {}: material '{name}' is rendered with Schlick's Fresnel of normal-incidence reflectance {f0}",
            src.path.display(),
            props.plugin
        ));
        Ok(f0)
    }

    fn ior(&mut self, src: &Src, props: &mut Props, name: &str, default: f32) -> Result<f32, SceneError> {
        let Some(node) = props.entries.iter().find(|(n, _, _)| n == name).map(|e| e.1) else { return Ok(default) };
        let ior = if node.tag_name().name() == "string" {
            let (value, _) = self.string(src, props, name)?.unwrap_or_default();
            match IOR_TABLE.iter().find(|(n, _)| *n == value) {
                Some(&(_, v)) => v,
                None => {
                    let names: Vec<&str> = IOR_TABLE.iter().map(|(n, _)| *n).collect();
                    return Err(src.error(
                        node,
                        format!(
                            "unknown index of refraction '{value}' (known: {}); or give a <float>",
                            names.join(", ")
                        ),
                    ));
                }
            }
        } else {
            self.float(src, props, name)?.unwrap_or(default)
        };
        if !(ior > 0.0) {
            return Err(src.error(node, format!("{name} = {ior} must be positive")));
        }
        Ok(ior)
    }

    fn material_index(&mut self, bsdf: &mut Bsdf) -> u32 {
        match bsdf.index {
            Some(i) => i,
            None => {
                let i = self.builder.add_material(&bsdf.name, bsdf.material);
                bsdf.index = Some(i);
                i
            }
        }
    }

    fn shape(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
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
        for medium in ["interior", "exterior"] {
            if let Some(n) = self.take(&mut props, medium) {
                return Err(src
                    .error(n, format!("shape '{name}': media ('{medium}') are not imported from Mitsuba scenes yet")));
            }
        }
        // Meshes in object space; `flip_uv` turns Mitsuba's uv (v = 0 at the image's top) into
        // warpath's (v = 0 at the bottom).
        let (meshes, mesh_source, flip_uv) = match kind.as_str() {
            "rectangle" => (vec![builtin::rectangle_mesh()], src.path.to_path_buf(), true),
            "cube" => (vec![builtin::cube_mesh()], src.path.to_path_buf(), true),
            "disk" => (vec![disk_mesh(DISK_SEGMENTS)], src.path.to_path_buf(), true),
            "sphere" => {
                let center = self.point(src, &mut props, "center")?.unwrap_or(Vec3::ZERO);
                let radius = self.float(src, &mut props, "radius")?.unwrap_or(1.0);
                if !(radius > 0.0) {
                    return Err(src.error(node, format!("sphere '{name}': radius = {radius} must be positive")));
                }
                to_world = to_world * Mat4::from_translation(center) * Mat4::from_scale(Vec3::splat(radius));
                (vec![builtin::sphere_mesh(SPHERE_SUBDIVISIONS)], src.path.to_path_buf(), true)
            }
            "obj" | "ply" => {
                let Some((file, line)) = self.string(src, &mut props, "filename")? else {
                    return Err(
                        src.error(node, format!("shape '{name}': a '{kind}' shape needs <string name=\"filename\">"))
                    );
                };
                let err = |message: String| SceneError::Parse { path: src.path.to_path_buf(), line, message };
                let path = src.resolve(&file);
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
                if face_normals {
                    for m in meshes.iter_mut() {
                        m.normals.clear();
                    }
                }
                // warpath's OBJ loader keeps OBJ's uv (v = 0 at the bottom), which is what
                // Mitsuba's flip_tex_coords = true (its default) means.
                let flip_uv = if kind == "obj" { !flip_tex.unwrap_or(true) } else { true };
                (meshes, path, flip_uv)
            }
            "serialized" | "shapegroup" | "instance" => {
                return Err(src.error(
                    node,
                    format!("shape '{kind}' is not supported yet: convert the geometry to .ply or .obj"),
                ));
            }
            other => {
                return Err(src.error(
                    node,
                    format!(
                        "shape type '{other}' is not supported (warpath reads obj, ply, rectangle, cube, sphere and \
                         disk): convert it to .ply or .obj"
                    ),
                ));
            }
        };
        // The BSDF and the area emitter.
        let mut bsdf: Option<Bsdf> = None;
        let mut emission: Option<Vec3> = None;
        for child in props.objects.clone() {
            match child.tag_name().name() {
                "bsdf" | "ref" => {
                    if bsdf.is_some() {
                        return Err(src.error(child, format!("shape '{name}' has a second BSDF")));
                    }
                    let b = self.bsdf_or_ref(src, child)?;
                    bsdf = Some(b);
                }
                "emitter" => {
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
                other => self
                    .warn(format!("{}: shape '{name}': <{other}> is not supported here and is ignored", src.at(child))),
            }
        }
        let material = match &mut bsdf {
            Some(b) => {
                let i = self.material_index(b);
                // A declared BSDF keeps its index (it was added when declared).
                i
            }
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
            self.builder.add_mesh(&mesh, to_world, material, &mesh_source).map_err(|e| match e {
                SceneError::Invalid { message, .. } => src.error(node, message),
                other => other,
            })?;
        }
        props.objects.clear();
        self.finish(src, props);
        Ok(())
    }

    fn fallback_material(&mut self) -> u32 {
        if let Some(m) = self.fallback_material {
            return m;
        }
        let m = self
            .builder
            .add_material("mitsuba-default", Material::diffuse(Vec3::splat(FALLBACK_REFLECTANCE)).with_one_sided());
        self.fallback_material = Some(m);
        m
    }

    /// A `<transform>`: its operations applied in document order (each after the ones
    /// before it: the result is `Tn · … · T1`).
    fn transform(&mut self, src: &Src, node: Node) -> Result<Mat4, SceneError> {
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

    fn emitter(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let env = match kind.as_str() {
            "constant" => {
                let radiance = self.color(src, &mut props, "radiance")?.unwrap_or(Vec3::ONE);
                if !radiance.is_finite() || radiance.min_element() < 0.0 {
                    return Err(src.error(node, format!("radiance {radiance} must be finite and non-negative")));
                }
                Environment::Constant(radiance)
            }
            "envmap" => {
                let Some((file, line)) = self.string(src, &mut props, "filename")? else {
                    return Err(src.error(node, "an 'envmap' emitter needs <string name=\"filename\">"));
                };
                let path = src.resolve(&file);
                if !path.is_file() {
                    return Err(SceneError::Parse {
                        path: src.path.to_path_buf(),
                        line,
                        message: format!("environment map '{}' not found", path.display()),
                    });
                }
                let scale = self.float(src, &mut props, "scale")?.unwrap_or(1.0);
                if scale < 0.0 {
                    return Err(src.error(node, "scale must be non-negative"));
                }
                let rotation = match self.take(&mut props, "to_world") {
                    None => Mat3::IDENTITY,
                    Some(t) => {
                        let m = Mat3::from_mat4(self.transform(src, t)?);
                        let ortho = (m.transpose() * m - Mat3::IDENTITY).to_cols_array().iter().all(|x| x.abs() < 1e-4);
                        if !ortho || m.determinant() < 0.0 {
                            return Err(src.error(
                                t,
                                "an envmap's to_world must be a rotation: warpath's environment maps cannot be scaled, \
                                 sheared or mirrored",
                            ));
                        }
                        m
                    }
                };
                let mut texture = load_image(&path)?;
                let repairs = repair_pixels(&mut texture.pixels, None);
                if let Some(w) = repairs.warning(&path, "environment map", None) {
                    self.warn(w);
                }
                Environment::Map(EnvMap::new(texture.width, texture.height, texture.pixels, rotation, scale))
            }
            "area" => {
                return Err(src.error(node, "an 'area' emitter belongs inside the <shape> that emits"));
            }
            "point" | "spot" | "directional" | "sunsky" | "sky" | "sun" | "projector" | "directionalarea" => {
                let what = match kind.as_str() {
                    "point" => "point lights are",
                    "spot" => "spot lights are",
                    "directional" => "directional lights are",
                    _ => "this emitter is",
                };
                return Err(src.error(
                    node,
                    format!(
                        "emitter '{kind}': {what} not supported yet (warpath has area, constant and envmap emitters): \
                         replace it with a small emissive shape, or remove it"
                    ),
                ));
            }
            other => {
                return Err(src.error(
                    node,
                    format!("emitter type '{other}' is not supported (warpath reads area, constant and envmap)"),
                ));
            }
        };
        if let Some((_, at)) = &self.environment {
            return Err(src.error(
                node,
                format!("a second environment emitter (the first is at {at}): warpath's scenes have one environment"),
            ));
        }
        self.environment = Some((env, src.at(node)));
        self.finish(src, props);
        Ok(())
    }

    fn sensor(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        if self.camera.is_some() {
            self.warn(format!("{}: a second <sensor> is ignored (warpath renders the first)", src.at(node)));
            return Ok(());
        }
        if !matches!(kind.as_str(), "perspective" | "thinlens") {
            return Err(src.error(
                node,
                format!("sensor '{kind}' is not supported (warpath's camera is 'perspective' or 'thinlens')"),
            ));
        }
        let mut props = self.props(src, node)?;
        let to_world = match self.take(&mut props, "to_world") {
            Some(t) => self.transform(src, t)?,
            None => Mat4::IDENTITY,
        };
        let fov_node = props.entries.iter().find(|(n, _, _)| n == "fov").map(|e| e.1);
        let fov = self.float(src, &mut props, "fov")?;
        let focal = self.string(src, &mut props, "focal_length")?;
        let axis = self.string(src, &mut props, "fov_axis")?;
        let (mut fov, mut diagonal) = match (fov, focal) {
            (Some(_), Some((_, line))) => {
                return Err(SceneError::Parse {
                    path: src.path.to_path_buf(),
                    line,
                    message: "give either 'fov' or 'focal_length', not both".into(),
                });
            }
            (Some(f), None) => (f, false),
            (None, Some((f, line))) => {
                let mm: f32 = f.trim().trim_end_matches("mm").trim().parse().map_err(|_| SceneError::Parse {
                    path: src.path.to_path_buf(),
                    line,
                    message: format!("focal_length '{f}' is not a length like \"50mm\""),
                })?;
                // Mitsuba: the diagonal field of view of a 36 × 24 mm film.
                ((2.0 * ((36.0f32 * 36.0 + 24.0 * 24.0).sqrt() / (2.0 * mm)).atan()).to_degrees(), true)
            }
            // Mitsuba's default: focal_length = "50mm".
            (None, None) => ((2.0 * ((36.0f32 * 36.0 + 24.0 * 24.0).sqrt() / 100.0).atan()).to_degrees(), true),
        };
        if !(fov > 0.0 && fov < 180.0) {
            let n = fov_node.unwrap_or(node);
            return Err(src.error(n, format!("fov = {fov} must be between 0 and 180 degrees")));
        }
        let mut fov_axis = FovAxis::X;
        if let Some((a, line)) = axis {
            fov_axis = match a.as_str() {
                "x" => FovAxis::X,
                "y" => FovAxis::Y,
                "smaller" => FovAxis::Smaller,
                "larger" => FovAxis::Larger,
                "diagonal" => {
                    diagonal = true;
                    FovAxis::X
                }
                other => {
                    return Err(SceneError::Parse {
                        path: src.path.to_path_buf(),
                        line,
                        message: format!("fov_axis '{other}' is not x, y, smaller, larger or diagonal"),
                    });
                }
            };
        } else if diagonal {
            fov_axis = FovAxis::X;
        }
        let mut camera = Camera { to_world, fov_degrees: fov, fov_axis, aperture_radius: 0.0, focus_distance: 1.0 };
        if let Some(d) = self.float(src, &mut props, "focus_distance")? {
            if !(d > 0.0) {
                return Err(src.error(node, "focus_distance must be positive"));
            }
            camera.focus_distance = d;
        }
        if kind == "thinlens" {
            let r = self.float(src, &mut props, "aperture_radius")?.unwrap_or(0.03);
            if !(r >= 0.0) {
                return Err(src.error(node, "aperture_radius must be non-negative"));
            }
            camera.aperture_radius = r;
        }
        // Clip planes have no counterpart: warpath's camera rays start at the lens and end at
        // the scene (docs/scene-format.md).
        self.take(&mut props, "near_clip");
        self.take(&mut props, "far_clip");
        for child in props.objects.clone() {
            match child.tag_name().name() {
                "film" => self.film(src, child)?,
                "sampler" => self.sampler(src, child)?,
                other => {
                    self.warn(format!("{}: <{other}> inside the sensor is not supported and is ignored", src.at(child)))
                }
            }
        }
        if diagonal {
            // The horizontal field of view with the same diagonal.
            let (w, h) = (self.settings.width as f32, self.settings.height as f32);
            let t = (0.5 * fov.to_radians()).tan() * w / (w * w + h * h).sqrt();
            fov = (2.0 * t.atan()).to_degrees();
            camera.fov_degrees = fov;
        }
        props.objects.clear();
        self.finish(src, props);
        self.camera = Some(camera);
        Ok(())
    }

    fn film(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        if !matches!(kind.as_str(), "hdrfilm" | "specfilm") {
            self.warn(format!("{}: film '{kind}' is read as an 'hdrfilm' (its size only)", src.at(node)));
        }
        let mut props = self.props(src, node)?;
        for (key, default) in [("width", 768), ("height", 576)] {
            let v = self.integer(src, &mut props, key)?.unwrap_or(default);
            if !(1..=MAX_RESOLUTION as i64).contains(&v) {
                return Err(src.error(node, format!("film {key} = {v} is out of range [1, {MAX_RESOLUTION}]")));
            }
            if key == "width" {
                self.settings.width = v as u32;
            } else {
                self.settings.height = v as u32;
            }
        }
        // The output's pixel and file format are the command line's (-o FILE).
        for key in ["pixel_format", "component_format", "file_format"] {
            self.take(&mut props, key);
        }
        for child in props.objects.clone() {
            let tag = child.tag_name().name();
            let ftype = self.attr(src, child, "type")?.unwrap_or_default();
            if tag == "rfilter" && ftype == "box" {
                continue;
            }
            self.warn(format!(
                "{}: <{tag} type=\"{ftype}\"> is ignored: warpath's film reconstructs with a box filter",
                src.at(child)
            ));
        }
        props.objects.clear();
        self.finish(src, props);
        Ok(())
    }

    fn sampler(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let mut props = self.props(src, node)?;
        // The sampler's type: warpath uses its own sequence (`sampler` in the TOML [render]
        // table, --sampler on the command line).
        let spp = self.integer(src, &mut props, "sample_count")?.unwrap_or(4);
        if !(1..=MAX_SPP as i64).contains(&spp) {
            return Err(src.error(node, format!("sample_count = {spp} is out of range [1, {MAX_SPP}]")));
        }
        self.settings.spp = spp as u32;
        if let Some(seed) = self.integer(src, &mut props, "seed")? {
            if !(0..=u32::MAX as i64).contains(&seed) {
                return Err(src.error(node, format!("seed = {seed} is out of range")));
            }
            self.settings.seed = seed as u32;
        }
        self.finish(src, props);
        Ok(())
    }

    fn integrator(&mut self, src: &Src, node: Node) -> Result<(), SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        if !matches!(kind.as_str(), "path" | "volpath") {
            self.warn(format!(
                "{}: integrator '{kind}' is rendered with warpath's path tracer (its max_depth is read)",
                src.at(node)
            ));
        }
        let mut props = self.props(src, node)?;
        if let Some(d) = self.integer(src, &mut props, "max_depth")? {
            // Mitsuba counts path vertices, warpath bounces: warpath = Mitsuba − 1.
            self.settings.max_depth = match d {
                -1 => UNLIMITED_DEPTH,
                d if (1..=MAX_DEPTH as i64 + 1).contains(&d) => (d - 1) as u32,
                0 => {
                    return Err(
                        src.error(node, "max_depth = 0 renders nothing (Mitsuba counts path vertices); use 1 or more")
                    );
                }
                d => {
                    return Err(
                        src.error(node, format!("max_depth = {d} is out of range (-1, or 1 ..= {})", MAX_DEPTH + 1))
                    );
                }
            };
        }
        if let Some(n) = self.take(&mut props, "rr_depth") {
            self.warn(format!(
                "{}: rr_depth is ignored: warpath's Russian roulette acts on the path weight (rr_threshold), not from a \
                 depth; both are unbiased",
                src.at(n)
            ));
        }
        if kind != "path" && kind != "volpath" {
            for e in props.entries.iter_mut() {
                e.2 = true;
            }
        }
        for child in props.objects.clone() {
            self.warn(format!("{}: <{}> inside the integrator is ignored", src.at(child), child.tag_name().name()));
        }
        props.objects.clear();
        self.finish(src, props);
        Ok(())
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

/// Mitsuba's `disk`: the unit disk in the xy-plane, normal +z, as a fan of `segments`
/// triangles (uv: Mitsuba's polar (r, φ/2π)).
pub fn disk_mesh(segments: u32) -> TriangleMesh {
    let mut mesh = TriangleMesh { name: "disk".into(), ..TriangleMesh::default() };
    mesh.positions.push(Vec3::ZERO);
    mesh.normals.push(Vec3::Z);
    mesh.uvs.push(Vec2::ZERO);
    for i in 0..=segments {
        let phi = 2.0 * std::f32::consts::PI * i as f32 / segments as f32;
        mesh.positions.push(Vec3::new(phi.cos(), phi.sin(), 0.0));
        mesh.normals.push(Vec3::Z);
        mesh.uvs.push(Vec2::new(1.0, i as f32 / segments as f32));
    }
    for i in 0..segments {
        mesh.triangles.push([0, i + 1, i + 2]);
    }
    mesh
}

/// Mitsuba's named indices of refraction.
const IOR_TABLE: &[(&str, f32)] = &[
    ("vacuum", 1.0),
    ("helium", 1.000036),
    ("hydrogen", 1.000132),
    ("air", 1.000277),
    ("carbon dioxide", 1.00045),
    ("water", 1.333),
    ("acetone", 1.36),
    ("ethanol", 1.361),
    ("carbon tetrachloride", 1.461),
    ("glycerol", 1.4729),
    ("benzene", 1.501),
    ("silicone oil", 1.52045),
    ("bromine", 1.661),
    ("water ice", 1.31),
    ("fused quartz", 1.458),
    ("pyrex", 1.47),
    ("acrylic glass", 1.49),
    ("polypropylene", 1.49),
    ("bk7", 1.5046),
    ("sodium chloride", 1.544),
    ("amber", 1.55),
    ("pet", 1.575),
    ("diamond", 2.419),
];

/// Normal-incidence reflectance (linear RGB) of the common conductor presets, for Schlick's
/// Fresnel (Mitsuba evaluates the full spectral Fresnel of their eta/k).
const CONDUCTOR_F0: &[(&str, [f32; 3])] = &[
    ("Cr", [0.549, 0.556, 0.554]),
    ("Au", [1.0, 0.782, 0.344]),
    ("Ag", [0.972, 0.960, 0.915]),
    ("Al", [0.913, 0.922, 0.924]),
    ("Cu", [0.955, 0.638, 0.538]),
];
