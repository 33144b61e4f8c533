//! Scenes: `warpath.load` (a built-in name or any file the CLI reads), `warpath.loads` (TOML
//! text), `warpath.scene_from_dict` (a dict with the TOML schema, whose media may hold NumPy
//! arrays) and the `Scene` class; `Scene.with_medium` replaces a medium's grids by arrays.

use crate::arrays::{GridKind, grid_from_array};
use crate::{scene_error, value_error};
use glam::{Mat4, Vec3};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::PathBuf;
use std::sync::Arc;
use warpath_scene::SceneError;
use warpath_volume::majorant::DEFAULT_VOXELS_PER_CELL;
use warpath_volume::{Medium, MediumAlbedo, MediumDensity, TransferFunction, TransferPoint, VolumeGrid};

/// A scene loaded into memory (geometry, materials, media, camera and `[render]` settings).
/// Immutable: [`PyScene::with_medium`] returns a new scene.
#[pyclass(name = "Scene", module = "warpath", frozen)]
pub struct PyScene {
    pub scene: Arc<warpath_scene::Scene>,
}

impl PyScene {
    pub fn new(scene: warpath_scene::Scene) -> PyScene {
        PyScene { scene: Arc::new(scene) }
    }
}

#[pymethods]
impl PyScene {
    /// The scene's name (a built-in's, or the file's stem).
    #[getter]
    fn name(&self) -> &str {
        &self.scene.name
    }

    /// Number of triangles.
    #[getter]
    fn triangles(&self) -> usize {
        self.scene.triangle_count()
    }

    /// The image size `(width, height)` of the scene's `[render]` settings.
    #[getter]
    fn resolution(&self) -> (u32, u32) {
        (self.scene.settings.width, self.scene.settings.height)
    }

    /// Samples per pixel of the scene's `[render]` settings.
    #[getter]
    fn spp(&self) -> u32 {
        self.scene.settings.spp
    }

    /// The seed of the scene's `[render]` settings.
    #[getter]
    fn seed(&self) -> u32 {
        self.scene.settings.seed
    }

    /// Material names, in order.
    #[getter]
    fn materials(&self) -> Vec<String> {
        self.scene.material_names.clone()
    }

    /// Medium names, in order.
    #[getter]
    fn media(&self) -> Vec<String> {
        self.scene.media.iter().map(|m| m.name.clone()).collect()
    }

    /// Isosurface shape names.
    #[getter]
    fn isosurfaces(&self) -> Vec<String> {
        self.scene.isosurfaces.iter().map(|i| i.name.clone()).collect()
    }

    /// What loading noted without failing (dropped triangles, ...).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.scene.warnings.clone()
    }

    /// The estimator the path tracer renders this scene with.
    #[getter]
    fn estimator(&self) -> &'static str {
        warpath_render::estimator_name(&self.scene)
    }

    /// A copy of the scene whose grid medium `name` takes its density (and albedo) from
    /// arrays indexed `[x, y, z]` (albedo `[x, y, z, 3]` or gray `[x, y, z]`), any real
    /// dtype, C or Fortran order; `transfer` turns a scalar scan into density and albedo
    /// (`"gray-red-blue"`, `{"preset": ..., "range": [lo, hi], "max_density": d}` or
    /// `{"points": [[value, density, r, g, b], ...]}`). The medium keeps its placement,
    /// `g`, `scale` and majorant cells unless given; `spacing` (voxel size per axis) with
    /// `physical_proportions=True` fits the grid to the scan's proportions as a file's would.
    #[pyo3(signature = (name, density, *, albedo=None, transfer=None, scale=None, g=None, spacing=None, physical_proportions=false, majorant_cell=None))]
    #[allow(clippy::too_many_arguments)]
    fn with_medium(
        &self,
        name: &str,
        density: &Bound<'_, PyAny>,
        albedo: Option<&Bound<'_, PyAny>>,
        transfer: Option<&Bound<'_, PyAny>>,
        scale: Option<f32>,
        g: Option<f32>,
        spacing: Option<[f32; 3]>,
        physical_proportions: bool,
        majorant_cell: Option<u32>,
    ) -> PyResult<PyScene> {
        let mut scene = (*self.scene).clone();
        let arrays = MediumArrays {
            density: density.clone(),
            albedo: albedo.cloned(),
            transfer: transfer.cloned(),
            spacing,
            physical_proportions,
        };
        replace_medium(&mut scene, name, &arrays, scale, g, majorant_cell)?;
        Ok(PyScene::new(scene))
    }

    fn __repr__(&self) -> String {
        let s = &self.scene;
        let mut extra = String::new();
        if !s.media.is_empty() {
            extra += &format!(", {} media", s.media.len());
        }
        if !s.isosurfaces.is_empty() {
            extra += &format!(", {} isosurfaces", s.isosurfaces.len());
        }
        format!(
            "<warpath.Scene '{}': {} triangles, {} materials{extra}, {}x{} at {} spp>",
            s.name,
            s.triangle_count(),
            s.materials.len(),
            s.settings.width,
            s.settings.height,
            s.settings.spp
        )
    }
}

/// Loads a scene: a built-in name (`cornell`, `cornell-glass`, `furnace`, `terrain`,
/// `many-lights`, and their `NAME:PARAM` forms) or a path to a `.toml` scene or a mesh
/// (`.obj`, `.ply`, `.ply.gz`, `.gltf`, `.glb`). A missing file or unknown name raises
/// `FileNotFoundError`; an error in the file `ValueError` naming the file and line.
///
/// >>> scene = warpath.load("cornell")
#[pyfunction]
fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyScene> {
    let name = path.to_string_lossy().into_owned();
    let scene = py.allow_threads(|| warpath_scene::load(&name)).map_err(|e| scene_error(&e))?;
    Ok(PyScene::new(scene))
}

/// The scene file's path for text given in memory: relative file names resolve in
/// `base_dir` (default: the working directory); `name` names the scene and its errors.
fn text_path(name: &str, base_dir: Option<PathBuf>) -> PathBuf {
    base_dir.unwrap_or_else(|| PathBuf::from(".")).join(format!("{name}.toml"))
}

/// A scene from TOML text (the scene format of docs/scene-format.md); relative file names
/// resolve in `base_dir` (default: the working directory).
#[pyfunction]
#[pyo3(signature = (text, *, name="scene", base_dir=None))]
fn loads(py: Python<'_>, text: &str, name: &str, base_dir: Option<PathBuf>) -> PyResult<PyScene> {
    let path = text_path(name, base_dir);
    let scene = py
        .allow_threads(|| warpath_scene::toml_scene::parse_toml_scene(text, &path).map_err(SceneError::with_help))
        .map_err(|e| scene_error(&e))?;
    Ok(PyScene::new(scene))
}

/// The arrays a medium's grids come from.
struct MediumArrays<'py> {
    density: Bound<'py, PyAny>,
    albedo: Option<Bound<'py, PyAny>>,
    transfer: Option<Bound<'py, PyAny>>,
    spacing: Option<[f32; 3]>,
    physical_proportions: bool,
}

/// A scene from a dict with the TOML schema (`{"camera": {...}, "material": [...],
/// "shape": [...], "medium": [...], "render": {...}}`). A `"medium"` entry's `density` and
/// `albedo` may be NumPy arrays (`[x, y, z]`; albedo also `[x, y, z, 3]`), with the extra
/// keys `spacing = [sx, sy, sz]` (voxel size, for `physical_proportions`) and a `transfer`
/// applied to the array. Relative file names resolve in `base_dir`.
#[pyfunction]
#[pyo3(signature = (scene, *, name="scene", base_dir=None))]
fn scene_from_dict<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyDict>,
    name: &str,
    base_dir: Option<PathBuf>,
) -> PyResult<PyScene> {
    let mut table = toml::map::Map::new();
    let mut arrays: Vec<(String, MediumArrays<'py>, Option<u32>)> = Vec::new();
    for (key, value) in scene.iter() {
        let key: String = key.extract().map_err(|_| value_error("scene dict: keys must be strings"))?;
        if key == "medium" {
            let list = value
                .downcast::<PyList>()
                .map(|l| l.iter().collect::<Vec<_>>())
                .or_else(|_| value.downcast::<PyTuple>().map(|t| t.iter().collect::<Vec<_>>()))
                .map_err(|_| value_error("scene dict: 'medium' must be a list of dicts"))?;
            let mut media = Vec::new();
            for (i, entry) in list.iter().enumerate() {
                let entry = entry.downcast::<PyDict>().map_err(|_| value_error(format!("medium[{i}]: not a dict")))?;
                let (section, medium_arrays) = medium_section(entry, i)?;
                if let Some((medium_name, a, cells)) = medium_arrays {
                    arrays.push((medium_name, a, cells));
                }
                media.push(toml::Value::Table(section));
            }
            table.insert(key, toml::Value::Array(media));
        } else {
            table.insert(key.clone(), to_toml(&value, &key)?);
        }
    }
    let text = toml::to_string(&toml::Value::Table(table))
        .map_err(|e| value_error(format!("scene dict: cannot write it as TOML: {e}")))?;
    let path = text_path(name, base_dir);
    let mut parsed = py
        .allow_threads(|| warpath_scene::toml_scene::parse_toml_scene(&text, &path).map_err(SceneError::with_help))
        .map_err(|e| scene_error(&e))?;
    for (medium_name, a, cells) in &arrays {
        replace_medium(&mut parsed, medium_name, a, None, None, *cells)?;
    }
    Ok(PyScene::new(parsed))
}

/// One `"medium"` dict as a TOML table: array grids are replaced by one-voxel placeholders
/// (the arrays are returned, to replace the parsed medium's grids), `spacing` and
/// `physical_proportions` taken out for arrays.
#[allow(clippy::type_complexity)]
fn medium_section<'py>(
    entry: &Bound<'py, PyDict>,
    index: usize,
) -> PyResult<(toml::map::Map<String, toml::Value>, Option<(String, MediumArrays<'py>, Option<u32>)>)> {
    let is_array = |v: &Bound<'py, PyAny>| !(v.is_instance_of::<PyString>() || v.is_instance_of::<PyDict>());
    let density = entry.get_item("density")?.filter(|d| is_array(d));
    let albedo = entry.get_item("albedo")?.filter(|a| is_array(a) && !is_color(a));
    let mut section = toml::map::Map::new();
    let medium_name: String = match entry.get_item("name")? {
        Some(n) => n.extract().map_err(|_| value_error(format!("medium[{index}]: 'name' must be a string")))?,
        None => return Err(value_error(format!("medium[{index}]: needs a 'name'"))),
    };
    let what = format!("medium '{medium_name}'");
    if density.is_none() {
        for key in ["spacing"] {
            if entry.contains(key)? {
                return Err(value_error(format!("{what}: '{key}' goes with a density array")));
            }
        }
        if let Some(a) = &albedo {
            let _ = a;
            return Err(value_error(format!(
                "{what}: an albedo array needs a density array (give both as arrays, or both as files)"
            )));
        }
    }
    let placeholder = |value: f64| {
        let mut t = toml::map::Map::new();
        t.insert("constant".into(), toml::Value::Float(value));
        t.insert("resolution".into(), toml::Value::Array(vec![toml::Value::Integer(1); 3]));
        toml::Value::Table(t)
    };
    let mut spacing = None;
    let mut physical_proportions = false;
    let mut transfer = None;
    let mut cells = None;
    for (key, value) in entry.iter() {
        let key: String = key.extract().map_err(|_| value_error(format!("{what}: keys must be strings")))?;
        let arrays = density.is_some();
        match key.as_str() {
            "density" if arrays => {
                section.insert(key, placeholder(0.0));
            }
            "albedo" if albedo.is_some() => {
                section.insert(key, placeholder(1.0));
            }
            "transfer" if arrays => transfer = Some(value),
            "spacing" => {
                spacing = Some(value.extract::<[f32; 3]>().map_err(|_| {
                    value_error(format!("{what}: spacing must be three numbers (voxel size along x, y, z)"))
                })?)
            }
            "physical_proportions" if arrays => {
                physical_proportions = value
                    .extract::<bool>()
                    .map_err(|_| value_error(format!("{what}: physical_proportions must be True or False")))?
            }
            _ => {
                if key == "majorant_cell" {
                    cells = value.extract::<u32>().ok();
                }
                section.insert(key.clone(), to_toml(&value, &format!("{what}: {key}"))?);
            }
        }
    }
    let arrays = density.map(|density| MediumArrays { density, albedo, transfer, spacing, physical_proportions });
    Ok((section, arrays.map(|a| (medium_name, a, cells))))
}

/// Whether `v` is a color (three numbers), not a grid.
fn is_color(v: &Bound<'_, PyAny>) -> bool {
    v.extract::<[f64; 3]>().is_ok() && v.getattr("ndim").map(|n| n.extract::<usize>().ok() == Some(1)).unwrap_or(true)
}

/// A Python value as TOML: bool, int, float, str, lists and tuples (and 1-D/2-D arrays
/// through `tolist()`), dicts; `what` names it in messages.
fn to_toml(value: &Bound<'_, PyAny>, what: &str) -> PyResult<toml::Value> {
    if value.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        let v: i64 = value.extract().map_err(|_| value_error(format!("{what}: integer out of range")))?;
        return Ok(toml::Value::Integer(v));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(value.extract()?));
    }
    if let Ok(s) = value.downcast::<PyString>() {
        return Ok(toml::Value::String(s.to_string()));
    }
    if let Ok(d) = value.downcast::<PyDict>() {
        let mut t = toml::map::Map::new();
        for (k, v) in d.iter() {
            let k: String = k.extract().map_err(|_| value_error(format!("{what}: keys must be strings")))?;
            let inner = format!("{what}.{k}");
            t.insert(k, to_toml(&v, &inner)?);
        }
        return Ok(toml::Value::Table(t));
    }
    if let Ok(l) = value.downcast::<PyList>() {
        return l.iter().map(|v| to_toml(&v, what)).collect::<PyResult<Vec<_>>>().map(toml::Value::Array);
    }
    if let Ok(t) = value.downcast::<PyTuple>() {
        return t.iter().map(|v| to_toml(&v, what)).collect::<PyResult<Vec<_>>>().map(toml::Value::Array);
    }
    if let Ok(path) = value.extract::<PathBuf>() {
        return Ok(toml::Value::String(path.to_string_lossy().into_owned()));
    }
    // NumPy scalars and arrays.
    if value.hasattr("tolist")? {
        let plain = value.call_method0("tolist")?;
        if !plain.is(value) {
            return to_toml(&plain, what);
        }
    }
    let type_name = value.get_type().name()?.to_string();
    Err(value_error(format!("{what}: a {type_name} has no TOML form (use numbers, strings, lists or dicts)")))
}

/// A transfer function as the scene format takes it: a preset name, `{"preset": ...,
/// "range": [lo, hi], "max_density": d}` or `{"points": [[value, density, r, g, b], ...]}`.
fn transfer_function(spec: &Bound<'_, PyAny>, scan: &VolumeGrid, what: &str) -> PyResult<TransferFunction> {
    let (low, high) = scan.range();
    let preset = |name: &str, range: Option<[f32; 2]>, max_density: Option<f32>| match name {
        "gray-red-blue" => {
            let [lo, hi] = range.unwrap_or([low, high]);
            TransferFunction::gray_red_blue(lo, hi, max_density.unwrap_or(100.0))
        }
        other => Err(format!("unknown transfer preset '{other}' (expected gray-red-blue)")),
    };
    let bad = |m: String| value_error(format!("{what}: transfer: {m}"));
    if let Ok(name) = spec.extract::<String>() {
        return preset(&name, None, None).map_err(bad);
    }
    let Ok(table) = spec.downcast::<PyDict>() else {
        return Err(bad("expected a preset name or a dict with 'preset' or 'points'".into()));
    };
    for key in table.keys() {
        let key: String = key.extract()?;
        if !matches!(key.as_str(), "preset" | "range" | "max_density" | "points") {
            return Err(bad(format!("unknown key '{key}' (expected preset, range, max_density or points)")));
        }
    }
    let range = match table.get_item("range")? {
        Some(r) => Some(r.extract::<[f32; 2]>().map_err(|_| bad("range must be [low, high]".into()))?),
        None => None,
    };
    let max_density = match table.get_item("max_density")? {
        Some(d) => Some(d.extract::<f32>().map_err(|_| bad("max_density must be a number".into()))?),
        None => None,
    };
    match (table.get_item("preset")?, table.get_item("points")?) {
        (Some(name), None) => {
            let name: String = name.extract().map_err(|_| bad("preset must be a string".into()))?;
            preset(&name, range, max_density).map_err(bad)
        }
        (None, Some(points)) => {
            if range.is_some() || max_density.is_some() {
                return Err(bad("'range' and 'max_density' apply to a preset, not to 'points'".into()));
            }
            let points = points.call_method0("tolist").unwrap_or(points);
            let points: Vec<[f32; 5]> =
                points.extract().map_err(|_| bad("points must be rows [value, density, r, g, b]".into()))?;
            TransferFunction::new(
                points
                    .iter()
                    .map(|p| TransferPoint { value: p[0], density: p[1], albedo: Vec3::new(p[2], p[3], p[4]) })
                    .collect(),
            )
            .map_err(bad)
        }
        _ => Err(bad("a transfer table needs either 'preset' or 'points'".into())),
    }
}

/// Replaces the grids of `scene`'s grid medium `name` by `arrays`, keeping its placement,
/// `g`, `scale` and majorant cells unless given.
fn replace_medium(
    scene: &mut warpath_scene::Scene,
    name: &str,
    arrays: &MediumArrays<'_>,
    scale: Option<f32>,
    g: Option<f32>,
    majorant_cell: Option<u32>,
) -> PyResult<()> {
    let what = format!("medium '{name}'");
    let Some(index) = scene.media.iter().position(|m| m.name == name) else {
        let names: Vec<&str> = scene.media.iter().map(|m| m.name.as_str()).collect();
        return Err(value_error(format!(
            "the scene has no medium '{name}' (media: {})",
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        )));
    };
    let old = &scene.media[index];
    let MediumDensity::Grid { scale: old_scale, .. } = &old.density else {
        return Err(value_error(format!("{what} is homogeneous: only a grid medium takes arrays")));
    };
    if arrays.transfer.is_some() && arrays.albedo.is_some() {
        return Err(value_error(format!("{what}: the transfer function gives the albedo; remove 'albedo'")));
    }
    let (density, albedo) = match &arrays.transfer {
        Some(spec) => {
            let scan = grid_from_array(&arrays.density, GridKind::Scalar, &format!("{what}: density"))?;
            let function = transfer_function(spec, &scan, &what)?;
            warpath_volume::limits::check_grid("the transfer function's grids", scan.resolution, 4)
                .map_err(value_error)?;
            let (density, albedo) = function.apply(&scan);
            (density, MediumAlbedo::Grid(Arc::new(albedo)))
        }
        None => {
            let density = grid_from_array(&arrays.density, GridKind::Density, &format!("{what}: density"))?;
            let albedo = match &arrays.albedo {
                Some(a) if is_color(a) => {
                    let c: [f32; 3] = a.extract()?;
                    MediumAlbedo::Constant(Vec3::from_array(c))
                }
                Some(a) => {
                    MediumAlbedo::Grid(Arc::new(grid_from_array(a, GridKind::Albedo, &format!("{what}: albedo"))?))
                }
                None => old.albedo.clone(),
            };
            (density, albedo)
        }
    };
    if let Some(s) = arrays.spacing
        && !s.iter().all(|v| v.is_finite() && *v > 0.0)
    {
        return Err(value_error(format!("{what}: spacing {s:?} must be three positive numbers")));
    }
    let mut to_world = old.to_world;
    if arrays.physical_proportions {
        let spacing = arrays.spacing.unwrap_or([1.0; 3]);
        let extent = Vec3::from_array(std::array::from_fn(|a| density.resolution[a] as f32 * spacing[a]));
        let centre = Vec3::splat(0.5);
        to_world = to_world
            * Mat4::from_translation(centre)
            * Mat4::from_scale(extent / extent.max_element())
            * Mat4::from_translation(-centre);
    }
    if let Some(c) = majorant_cell
        && c > 4096
    {
        return Err(value_error(format!("{what}: majorant_cell must be between 0 (one global majorant) and 4096")));
    }
    let medium = Medium::grid(
        name,
        Arc::new(density),
        scale.unwrap_or(*old_scale),
        albedo,
        g.unwrap_or(old.g),
        to_world,
        majorant_cell.unwrap_or(DEFAULT_VOXELS_PER_CELL),
    )
    .map_err(|m| value_error(format!("{what}: {m}")))?;
    scene.media[index] = medium;
    Ok(())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyScene>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(scene_from_dict, m)?)?;
    Ok(())
}
