//! pbrt-v4 scenes (`.pbrt`, reference: docs/scene-format.md, "pbrt-v4"): the directives
//! and plugins warpath's renderer can represent, read into warpath's own [`Scene`] through
//! the shared mesh builder, so every backend renders an imported scene.
//!
//! - [`lexer`]: tokens with their lines; [`params`]: typed parameter lists;
//! - this file and [`directives`]: the directive loop, the graphics state (CTM, attribute stack, named
//!   coordinate systems, `ReverseOrientation`), `Include`/`Import` (relative to the
//!   including file; `.gz` files are decompressed);
//! - [`shapes`]: shapes and object instancing (instances are flattened: warpath has no
//!   instancing yet); [`materials`]: materials, textures and named spectra;
//!   [`lights`]: lights, camera, film, sampler, integrator and media.
//!
//! pbrt's camera space is left-handed (+x is the image's right); warpath's camera (Mitsuba's
//! convention) has +x to the image's left, so the camera's x axis is negated on import.
//! Anything not imported is named in a warning with its file and line, or is an error where
//! rendering without it would mislead (a scene lit only by lights warpath lacks).

use crate::mesh::{SceneBuilder, TriangleMesh, framing_camera};
use crate::scene::UNLIMITED_DEPTH;
use crate::{RenderSettings, Scene, SceneError};
use glam::{Mat4, Vec3};
use lexer::{Lexer, Tok};
use params::{Params, read_params};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use warpath_core::camera::Camera;
use warpath_core::light::Environment;

mod delta;
mod directives;
mod lexer;
mod lights;
mod materials;
mod params;
mod shapes;

/// Deepest `Include`/`Import` nesting (a cycle is reported before this).
const MAX_INCLUDE_DEPTH: usize = 32;

/// Deepest `AttributeBegin` nesting.
const MAX_ATTRIBUTE_DEPTH: usize = 4096;

/// Loads a pbrt-v4 scene file (`.pbrt`, or `.pbrt.gz`).
pub fn load_pbrt(path: &Path) -> Result<Scene, SceneError> {
    let text = read_text(path)?;
    parse_pbrt(&text, path)
}

/// Parses pbrt-v4 text; `path` locates errors, relative file names and includes.
pub fn parse_pbrt(text: &str, path: &Path) -> Result<Scene, SceneError> {
    parse(text, path, false)
}

/// Loads a pbrt-v4 scene whose referenced files may be absent (a scene repository checked
/// out without its large geometry): a missing mesh, image or included file is a warning
/// (the shape, texture or file is skipped) instead of an error, and so is a medium warpath
/// cannot read (`nanovdb`: the medium is dropped). Everything else is checked
/// as [`load_pbrt`] checks it.
pub fn check_pbrt(path: &Path) -> Result<Scene, SceneError> {
    let text = read_text(path)?;
    parse(&text, path, true)
}

fn parse(text: &str, path: &Path, lenient: bool) -> Result<Scene, SceneError> {
    let scene_name = path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut loader = Loader::new(&scene_name, path);
    loader.lenient = lenient;
    loader.file(text, path)?;
    loader.resolve_deferred_materials()?;
    if !loader.stack.is_empty() {
        let (_, _, file, line) = loader.stack.last().unwrap();
        loader.builder.warn(format!("{}:{line}: AttributeBegin without AttributeEnd", file.display()));
    }
    if let Some((name, _)) = &loader.object {
        loader.builder.warn(format!("{}: ObjectBegin \"{name}\" without ObjectEnd", path.display()));
    }
    loader.finish(path)
}

fn read_text(path: &Path) -> Result<String, SceneError> {
    let mut bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            SceneError::NotFound { path: path.to_path_buf(), hint: "scene file not found".into() }
        }
        _ => SceneError::Io { path: path.to_path_buf(), source: e },
    })?;
    if path.to_string_lossy().to_ascii_lowercase().ends_with(".gz") {
        use std::io::Read;
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .take(crate::pbrt::MAX_TEXT_BYTES)
            .read_to_end(&mut out)
            .map_err(|e| SceneError::Invalid { path: path.to_path_buf(), message: format!("gzip: {e}") })?;
        bytes = out;
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(e.as_bytes());
        let line = text[..offset.min(text.len())].matches('\n').count() + 1;
        SceneError::Parse { path: path.to_path_buf(), line, message: "the file is not valid UTF-8".into() }
    })
}

/// Largest decompressed `.pbrt.gz` text read.
const MAX_TEXT_BYTES: u64 = 4 << 30;

/// An area light (`AreaLightSource "diffuse"`) in the graphics state.
#[derive(Clone, Copy, Debug)]
struct AreaLight {
    radiance: Vec3,
    two_sided: bool,
}

/// The attribute state `AttributeBegin` saves and `AttributeEnd` restores.
#[derive(Clone, Debug)]
struct GState {
    ctm: Mat4,
    reverse_orientation: bool,
    /// The current material (a scene material index); `None`: pbrt's default diffuse.
    material: Option<u32>,
    area_light: Option<AreaLight>,
    /// `MediumInterface` names (inside, outside); empty strings are vacuum.
    inside: String,
    outside: String,
}

/// A shape kept for object instancing: its mesh in object space, the transform it was
/// declared under, its material and where it was declared.
#[derive(Clone)]
struct Placed {
    mesh: Arc<TriangleMesh>,
    to_world: Mat4,
    material: u32,
    media: Option<u32>,
    source: PathBuf,
}

/// A named float or spectrum texture, as evaluated where it was declared.
#[derive(Clone, Copy, Debug)]
enum Tex {
    Color(Vec3),
    /// An image texture: its index in the scene and its mean (for parameters that take no
    /// texture in warpath).
    Image(i32, Vec3),
}

impl Tex {
    fn mean(&self) -> Vec3 {
        match *self {
            Tex::Color(c) | Tex::Image(_, c) => c,
        }
    }
}

struct Loader {
    builder: SceneBuilder,
    g: GState,
    /// Saved states: (state, whether only the CTM is restored (`TransformBegin`), file, line).
    stack: Vec<(GState, bool, PathBuf, usize)>,
    named_coordinates: HashMap<String, Mat4>,
    named_materials: HashMap<String, u32>,
    spectrum_textures: HashMap<String, Tex>,
    float_textures: HashMap<String, f32>,
    /// The float textures that are images (by name): their scene texture index (roughness
    /// textures, `displacement` and shapes' `alpha` take them; elsewhere the mean is used).
    float_images: HashMap<String, i32>,
    /// Image files loaded as textures, by path (and scale bits).
    images: HashMap<(PathBuf, u32), i32>,
    /// Normal maps (read raw), by path.
    normal_maps: HashMap<PathBuf, i32>,
    objects: HashMap<String, Vec<Placed>>,
    /// The object being defined (`ObjectBegin`), with its shapes.
    object: Option<(String, Vec<Placed>)>,
    include_stack: Vec<PathBuf>,
    default_material: Option<u32>,
    /// Named materials used (`NamedMaterial`) before any `MakeNamedMaterial` defines them, as
    /// pbrt-v4 allows (it resolves names after parsing): name → (placeholder material index,
    /// where first used). The definition fills the placeholder.
    pending_materials: HashMap<String, (u32, String)>,
    /// Materials waiting for a texture defined later ([`Loader::add_material`]):
    /// (placeholder index, type, name, parameters).
    deferred_materials: Vec<(u32, String, String, Params)>,
    /// Emissive variants of materials, by (material, radiance bits, two-sided).
    emissive: HashMap<(u32, [u32; 3], bool), u32>,
    /// Materials with a shape's `alpha` as their opacity, by (material, opacity bits, texture).
    masked: HashMap<(u32, u32, i32), u32>,
    camera: Option<Camera>,
    camera_line: String,
    settings: RenderSettings,
    environment: Option<(Environment, String)>,
    /// `point`, `spot` and `distant` lights.
    delta_lights: Vec<warpath_core::light::DeltaLight>,
    /// Lights warpath cannot render, where they were declared.
    unsupported_lights: Vec<String>,
    /// Named media (`MakeNamedMedium`) by name: index into the scene's media, if imported.
    media: HashMap<String, Option<u32>>,
    camera_medium: String,
    /// Whether `ActiveTransform EndTime` is on (transforms then change nothing).
    end_time_only: bool,
    shape_count: usize,
    /// Meshes (by index in the scene) whose shape declared a medium interface, packed.
    mesh_media: Vec<(usize, u32)>,
    /// Missing referenced files are warnings ([`check_pbrt`]).
    lenient: bool,
    /// Baked procedural clouds by their parameters' bits (media share them).
    clouds: HashMap<[u32; 3], Arc<warpath_volume::VolumeGrid>>,
}

impl Loader {
    fn new(scene_name: &str, path: &Path) -> Self {
        Loader {
            builder: SceneBuilder::new(scene_name),
            g: GState {
                ctm: Mat4::IDENTITY,
                reverse_orientation: false,
                material: None,
                area_light: None,
                inside: String::new(),
                outside: String::new(),
            },
            stack: Vec::new(),
            named_coordinates: HashMap::new(),
            named_materials: HashMap::new(),
            spectrum_textures: HashMap::new(),
            float_textures: HashMap::new(),
            float_images: HashMap::new(),
            images: HashMap::new(),
            normal_maps: HashMap::new(),
            objects: HashMap::new(),
            object: None,
            include_stack: vec![path.to_path_buf()],
            default_material: None,
            pending_materials: HashMap::new(),
            deferred_materials: Vec::new(),
            emissive: HashMap::new(),
            masked: HashMap::new(),
            camera: None,
            camera_line: String::new(),
            // pbrt-v4's defaults: a 1280 × 720 film, 16 samples per pixel, maxdepth 5.
            settings: RenderSettings { width: 1280, height: 720, spp: 16, max_depth: 5, ..Default::default() },
            environment: None,
            delta_lights: Vec::new(),
            unsupported_lights: Vec::new(),
            media: HashMap::new(),
            camera_medium: String::new(),
            end_time_only: false,
            shape_count: 0,
            mesh_media: Vec::new(),
            lenient: false,
            clouds: HashMap::new(),
        }
    }

    fn warn(&mut self, message: String) {
        self.builder.warn(message);
    }

    /// A missing file: an error, or with [`check_pbrt`] a warning (`Ok(false)`: skip it).
    fn missing(&mut self, p: &Params, line: usize, what: &str, path: &Path) -> Result<bool, SceneError> {
        if self.lenient {
            self.warn(format!("{}: {}: {what} '{}' not found: skipped", p.at_line(line), p.what, path.display()));
            return Ok(false);
        }
        Err(p.error(line, format!("{what} '{}' not found", path.display())))
    }

    fn warnings(&mut self) -> &mut Vec<String> {
        &mut self.builder.scene_mut().warnings
    }

    fn finish(self, path: &Path) -> Result<Scene, SceneError> {
        let Loader {
            builder,
            camera,
            settings,
            environment,
            delta_lights,
            unsupported_lights,
            camera_medium,
            media,
            mesh_media,
            lenient,
            pending_materials,
            ..
        } = self;
        let mut builder = builder;
        let mut undefined: Vec<_> = pending_materials.into_iter().collect();
        undefined.sort_by(|a, b| a.1.1.cmp(&b.1.1));
        for (name, (_, at)) in undefined {
            let message =
                format!("{at}: NamedMaterial: no material named \"{name}\" (no MakeNamedMaterial defines it)");
            if !lenient {
                // `at` is FILE:LINE of the first use.
                let (file, line) = at.rsplit_once(':').unwrap_or((at.as_str(), "0"));
                return Err(SceneError::Parse {
                    path: PathBuf::from(file),
                    line: line.parse().unwrap_or(0),
                    message: format!("NamedMaterial: no material named \"{name}\" (no MakeNamedMaterial defines it)"),
                });
            }
            builder.warn(format!("{message}: rendered as pbrt's default diffuse"));
        }
        let mut scene = builder.finish();
        scene.set_mesh_media(&mesh_media);
        scene.settings = settings;
        scene.environment = environment.map(|(e, _)| e).unwrap_or(Environment::None);
        scene.delta_lights = delta_lights;
        if !camera_medium.is_empty() {
            scene.camera_medium = media.get(&camera_medium).copied().flatten();
        }
        if !scene.has_light() && !unsupported_lights.is_empty() {
            let message = format!(
                "the scene is lit only by lights warpath cannot render ({}): the image would be black; add an area \
                 light or an infinite light",
                unsupported_lights.join("; ")
            );
            if !lenient {
                return Err(SceneError::Invalid { path: path.to_path_buf(), message });
            }
            scene.warnings.push(format!("{}: {message}", path.display()));
        }
        scene.camera = match camera {
            Some(c) => c,
            None => {
                scene
                    .warnings
                    .push(format!("{}: no Camera directive: using a camera that frames the scene", path.display()));
                framing_camera(scene.bounds())
            }
        };
        let warnings = scene.content_warnings(path);
        scene.warnings.extend(warnings);
        Ok(scene)
    }

    /// Reads one file (the scene or an include) directive by directive.
    fn file(&mut self, text: &str, path: &Path) -> Result<(), SceneError> {
        let mut lx = Lexer::new(text, path);
        while let Some(token) = lx.next()? {
            let line = token.line;
            let Tok::Word(directive) = token.tok else {
                return Err(lx.error(line, format!("expected a directive, found {}", token.tok.describe())));
            };
            self.directive(&mut lx, &directive, line)?;
        }
        Ok(())
    }

    /// `n` numbers, bare or in brackets.
    fn numbers(lx: &mut Lexer, n: usize, directive: &str, line: usize) -> Result<Vec<f32>, SceneError> {
        let bracketed = matches!(lx.peek()?, Some(t) if t.tok == Tok::Open);
        if bracketed {
            lx.next()?;
        }
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            match lx.next()? {
                Some(t) => match t.tok {
                    Tok::Num(v) if (v as f32).is_finite() => out.push(v as f32),
                    other => {
                        return Err(lx.error(
                            t.line,
                            format!("{directive} takes {n} numbers; found {} after {}", other.describe(), out.len()),
                        ));
                    }
                },
                None => {
                    return Err(
                        lx.error(line, format!("{directive} takes {n} numbers; the file ends after {}", out.len()))
                    );
                }
            }
        }
        if bracketed {
            match lx.next()? {
                Some(t) if t.tok == Tok::Close => {}
                _ => return Err(lx.error(line, format!("{directive}: expected ']' after {n} numbers"))),
            }
        }
        Ok(out)
    }

    fn string_arg(lx: &mut Lexer, directive: &str, line: usize) -> Result<String, SceneError> {
        match lx.next()? {
            Some(t) => match t.tok {
                Tok::Str(s) => Ok(s),
                other => {
                    Err(lx.error(t.line, format!("{directive} takes a quoted string, found {}", other.describe())))
                }
            },
            None => Err(lx.error(line, format!("{directive} takes a quoted string; the file ends"))),
        }
    }

    /// A plugin directive's type string and parameters.
    fn plugin(
        lx: &mut Lexer,
        directive: &str,
        line: usize,
        warnings: &mut Vec<String>,
    ) -> Result<(String, Params), SceneError> {
        let kind = Self::string_arg(lx, directive, line)?;
        let params = read_params(lx, format!("{directive} \"{kind}\""), line, warnings)?;
        Ok((kind, params))
    }

    fn transform(&mut self, m: Mat4, lx: &Lexer, line: usize, directive: &str) -> Result<(), SceneError> {
        if !m.is_finite() {
            return Err(lx.error(line, format!("{directive}: the transform is not finite")));
        }
        if !self.end_time_only {
            self.g.ctm = m;
        }
        Ok(())
    }

    /// A file name as pbrt-v4 resolves it: relative to the directory of the scene file that
    /// was loaded (pbrt's search directory), in included files too. A name that exists only
    /// relative to the file that names it is read from there, with a warning (pbrt would not
    /// find it).
    fn resolve(&mut self, from: &Path, line: usize, name: &str) -> PathBuf {
        let p = Path::new(name);
        if p.is_absolute() {
            return p.to_path_buf();
        }
        let top = self.include_stack.first().cloned().unwrap_or_else(|| from.to_path_buf());
        let pbrt_path = top.parent().unwrap_or(Path::new(".")).join(p);
        let local = from.parent().unwrap_or(Path::new(".")).join(p);
        if !pbrt_path.exists() && local != pbrt_path && local.exists() {
            self.warn(format!(
                "{}:{line}: '{name}' is read relative to this file ('{}'); pbrt-v4 reads file names relative to the scene file's directory and would look for '{}'",
                from.display(),
                local.display(),
                pbrt_path.display()
            ));
            return local;
        }
        pbrt_path
    }

    fn include(&mut self, name: &str, lx: &Lexer, line: usize) -> Result<(), SceneError> {
        let path = self.resolve(&lx.path, line, name);
        if !path.is_file() {
            if self.lenient {
                self.warn(format!(
                    "{}:{line}: included file '{}' not found: skipped",
                    lx.path.display(),
                    path.display()
                ));
                return Ok(());
            }
            return Err(lx.error(line, format!("included file '{}' not found", path.display())));
        }
        let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
        if self.include_stack.iter().any(|p| p.canonicalize().unwrap_or_else(|_| p.clone()) == canonical) {
            return Err(lx.error(line, format!("'{}' includes itself (an include cycle)", path.display())));
        }
        if self.include_stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(lx.error(line, format!("includes nest deeper than {MAX_INCLUDE_DEPTH} files")));
        }
        let text = read_text(&path)?;
        self.include_stack.push(path.clone());
        let result = self.file(&text, &path);
        self.include_stack.pop();
        result
    }
}

/// pbrt's `LookAt`: the camera-from-world transform of a camera at `eye` looking at `look`.
/// Camera space has +x = normalize(up × dir) (the image's right), +y up, +z along the view.
fn look_at(eye: Vec3, look: Vec3, up: Vec3) -> Result<Mat4, String> {
    let dir = look - eye;
    if !(dir.length_squared() > 0.0) {
        return Err("LookAt: the eye and the look-at point are the same".into());
    }
    let dir = dir.normalize();
    let right = up.normalize_or_zero().cross(dir);
    if !(right.length() > 1e-6) {
        return Err("LookAt: 'up' is parallel to the view direction".into());
    }
    let right = right.normalize();
    let new_up = dir.cross(right);
    let world_from_camera = Mat4::from_cols(right.extend(0.0), new_up.extend(0.0), dir.extend(0.0), eye.extend(1.0));
    Ok(world_from_camera.inverse())
}

/// Every pbrt-v4 directive (and the deprecated ones still read), for "did you mean".
pub const DIRECTIVES: &[&str] = &[
    "Identity",
    "Translate",
    "Scale",
    "Rotate",
    "LookAt",
    "CoordinateSystem",
    "CoordSysTransform",
    "Transform",
    "ConcatTransform",
    "TransformTimes",
    "ActiveTransform",
    "ReverseOrientation",
    "ColorSpace",
    "Option",
    "Camera",
    "Sampler",
    "Film",
    "Integrator",
    "Accelerator",
    "PixelFilter",
    "MakeNamedMedium",
    "MediumInterface",
    "WorldBegin",
    "WorldEnd",
    "AttributeBegin",
    "AttributeEnd",
    "Attribute",
    "TransformBegin",
    "TransformEnd",
    "Shape",
    "ObjectBegin",
    "ObjectEnd",
    "ObjectInstance",
    "LightSource",
    "AreaLightSource",
    "Material",
    "MakeNamedMaterial",
    "NamedMaterial",
    "Texture",
    "Include",
    "Import",
];

/// The render settings' max depth from pbrt's `maxdepth` (both count bounces: pbrt's
/// maxdepth 0 shows only emitters seen directly, as warpath's max_depth 0).
fn max_depth_from_pbrt(d: i64) -> Option<u32> {
    match d {
        -1 => Some(UNLIMITED_DEPTH),
        d if (0..=crate::scene::MAX_DEPTH as i64).contains(&d) => Some(d as u32),
        _ => None,
    }
}
