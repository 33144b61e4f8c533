//! Isosurfaces of volumes held in NumPy arrays (or files, or warpath's procedural fields):
//! the `Isosurface` class keeps the lattice, its min-max brick tree and (on the GPU) the
//! uploaded volume between calls, so an isovalue sweep condenses the tree per isovalue and
//! never rebuilds it. It renders through the front door's caster, an owning
//! `warpath_render::IsoCaster` (what `warpath isosurface` renders with): the CPU reference
//! `warpath_isosurface::render`, or the GPU's caster pipeline (which matches the CPU pixel for
//! pixel) with the tree condensed on the device.

use crate::arrays::{GridKind, grid_from_array, image_stack};
use crate::value_error;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};
use warpath_isosurface::render::{IsoView, KeyLight, Shading};
use warpath_isosurface::{BrickBvh, Lattice, fields};
use warpath_render::isosurface::{FrameTimes, IsoCaster, IsoOptions, UpdateWait};

/// The image size when none is given (`resolution=None`).
const DEFAULT_SIZE: (u32, u32) = (512, 512);

/// The isosurfaces of one volume (any level), rendered on the CPU or a CUDA device.
///
/// `volume`: an array indexed `[x, y, z]` (any real dtype, C or Fortran order, at least 2
/// samples per axis, finite), a volume file (`.nii`, `.nii.gz`, `.vol`, `.vdb`), or a
/// procedural field `"marschner-lobb:N"`, `"spheres:N"`, `"turbulence:N"`. `brick`: cells per
/// side of the min-max bricks (16, seed 001's optimum). `backend`: `"auto"`, `"cpu"`,
/// `"cuda"` or `"cuda:N"`.
#[pyclass(name = "Isosurface", module = "warpath", frozen)]
pub struct PyIsosurface {
    lattice: Arc<Lattice>,
    bvh: Arc<BrickBvh>,
    /// The caster (the GPU's state between calls); one frame at a time.
    caster: Mutex<IsoCaster<'static>>,
    backend: &'static str,
    brick: u32,
}

fn lattice_from(volume: &Bound<'_, PyAny>) -> PyResult<Lattice> {
    if let Ok(name) = volume.extract::<std::path::PathBuf>()
        && !volume.hasattr("shape")?
    {
        let text = name.to_string_lossy().into_owned();
        for (prefix, make) in [
            ("marschner-lobb", fields::marschner_lobb as fn([u32; 3]) -> Lattice),
            ("spheres", fields::spheres),
            ("turbulence", fields::turbulence),
        ] {
            if let Some(rest) = text.strip_prefix(prefix) {
                let n = match rest.strip_prefix(':') {
                    None if rest.is_empty() => 128,
                    Some(n) => n.parse::<u32>().ok().filter(|n| (2..=2048).contains(n)).ok_or_else(|| {
                        value_error(format!("'{text}': the samples per axis after ':' must be from 2 to 2048"))
                    })?,
                    None => continue,
                };
                return Ok(make([n; 3]));
            }
        }
        if !name.is_file() {
            return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
                "{text}: not a file, and not a procedural field (marschner-lobb:N, spheres:N, turbulence:N)"
            )));
        }
        let loaded = warpath_volume::load::load_volume(&name, None)
            .map_err(|e| value_error(format!("cannot load the volume {text}: {e}")))?;
        return Lattice::from_grid(&loaded.grid)
            .map_err(|e| value_error(format!("{text} as an isosurface volume: {e}")));
    }
    let grid = grid_from_array(volume, GridKind::Scalar, "volume")?;
    Lattice::from_grid(&grid).map_err(|e| value_error(format!("volume: {e}")))
}

fn shading(key_light: Option<[f64; 3]>, shadows: bool) -> PyResult<Shading> {
    if let Some(d) = key_light
        && (!d.iter().all(|v| v.is_finite()) || d.iter().all(|v| *v == 0.0))
    {
        return Err(value_error(format!("key_light {d:?}: a finite, non-zero direction")));
    }
    let key_light = match (key_light, shadows) {
        (None, false) => None,
        (direction, shadows) => Some(KeyLight { direction: direction.unwrap_or(KeyLight::DEFAULT_DIRECTION), shadows }),
    };
    Ok(Shading { key_light, ..Shading::default() })
}

impl PyIsosurface {
    /// One frame: the tree of `isovalue`, then the image of `view` (timed apart).
    fn frame(
        &self,
        isovalue: f32,
        view: IsoView,
        shading: Shading,
    ) -> warpath_render::Result<(Vec<[f32; 3]>, FrameTimes)> {
        let mut caster = self.caster.lock().unwrap_or_else(|p| p.into_inner());
        caster.set_view(view)?;
        caster.set_shading(shading);
        let (image, times) = caster.frame(isovalue, true, UpdateWait::Apart, None)?;
        Ok((image.map(|image| image.pixels).unwrap_or_default(), times))
    }
}

#[pymethods]
impl PyIsosurface {
    #[new]
    #[pyo3(signature = (volume, brick=16, backend="auto"))]
    fn new(py: Python<'_>, volume: &Bound<'_, PyAny>, brick: u32, backend: &str) -> PyResult<PyIsosurface> {
        if brick == 0 || brick > 256 {
            return Err(value_error(format!("brick = {brick}: cells per brick side must be 1 ..= 256")));
        }
        let choice = warpath_render::BackendChoice::from_name(backend)
            .ok_or_else(|| value_error(format!("unknown backend '{backend}' (expected auto, cpu, cuda or cuda:N)")))?;
        let lattice = Arc::new(lattice_from(volume)?);
        let (bvh, caster) = py.allow_threads(|| -> PyResult<_> {
            let bvh = Arc::new(BrickBvh::build(&lattice, brick));
            let (opened, _fallback) = warpath_render::Backend::open(choice).map_err(|e| crate::render_error(&e))?;
            // A 1x1 view until the first frame sets its own (the caster's film is its size).
            let view = IsoView::orbit(&lattice, 30.0, 20.0, 1, 1);
            let (range_lo, _) = lattice.range();
            let caster = IsoCaster::owning(
                opened,
                lattice.clone(),
                bvh.clone(),
                IsoOptions::default(),
                view,
                Shading::default(),
                range_lo,
            )
            .map_err(|e| crate::render_error(&e))?;
            Ok((bvh, caster))
        })?;
        let backend = caster.backend_name();
        Ok(PyIsosurface { lattice, bvh, caster: Mutex::new(caster), backend, brick })
    }

    /// Where it renders: `"cpu"` or `"cuda"`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend
    }

    /// Samples per axis `(x, y, z)`.
    #[getter]
    fn shape(&self) -> (u32, u32, u32) {
        let [x, y, z] = self.lattice.samples;
        (x, y, z)
    }

    /// The volume's smallest and largest values.
    #[getter]
    fn range(&self) -> (f32, f32) {
        self.lattice.range()
    }

    /// Bricks in the tree.
    #[getter]
    fn bricks(&self) -> usize {
        self.bvh.brick_count()
    }

    /// Renders every isovalue from every view: `views` is a list of `(azimuth, elevation)` in
    /// degrees (default one view, 30°/20°, the CLI's), or an int N for N views around the
    /// volume at 20° elevation. Returns a dict: `images` `(len(isovalues), len(views), H, W,
    /// 3)` float32 (linear; the CLI writes the same values), `isovalues`, `views`, and the
    /// per-frame times in milliseconds `update_ms` (the tree condensed for the isovalue),
    /// `render_ms` and `frame_ms`, each `(len(isovalues), len(views))`. Ctrl-C stops after
    /// the current frame and raises `KeyboardInterrupt`.
    #[pyo3(signature = (isovalues, views=None, resolution=None, key_light=None, shadows=false))]
    fn sweep<'py>(
        &self,
        py: Python<'py>,
        isovalues: &Bound<'py, PyAny>,
        views: Option<&Bound<'py, PyAny>>,
        resolution: Option<(u32, u32)>,
        key_light: Option<[f64; 3]>,
        shadows: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let isovalues: Vec<f32> = match isovalues.extract::<f32>() {
            Ok(v) => vec![v],
            Err(_) => {
                let list = isovalues.call_method0("tolist").unwrap_or_else(|_| isovalues.clone());
                list.extract().map_err(|_| value_error("isovalues: a number or a sequence of numbers"))?
            }
        };
        if isovalues.is_empty() {
            return Err(value_error("isovalues: none given"));
        }
        if let Some(v) = isovalues.iter().find(|v| !v.is_finite()) {
            return Err(value_error(format!("isovalue {v} is not a finite number")));
        }
        let views: Vec<(f64, f64)> = match views {
            None => vec![(30.0, 20.0)],
            Some(v) => match v.extract::<i64>() {
                Ok(n) if (1..=100_000).contains(&n) => {
                    (0..n).map(|k| (30.0 + 360.0 * k as f64 / n as f64, 20.0)).collect()
                }
                Ok(n) => return Err(value_error(format!("views = {n}: at least one view (at most 100000)"))),
                Err(_) => v.extract().map_err(|_| {
                    value_error("views: an int N (N views around the volume) or a list of (azimuth, elevation)")
                })?,
            },
        };
        if views.is_empty() {
            return Err(value_error("views: none given"));
        }
        if views.iter().any(|(a, e)| !(a.is_finite() && e.is_finite())) {
            return Err(value_error("views: azimuth and elevation must be finite"));
        }
        let (width, height) = resolution.unwrap_or(DEFAULT_SIZE);
        warpath_render::check_resolution(width, height).map_err(|e| value_error(e.to_string()))?;
        let shading = shading(key_light, shadows)?;
        let frames = isovalues.len() * views.len();
        let mut pixels: Vec<[f32; 3]> = Vec::with_capacity(frames * width as usize * height as usize);
        let (mut update_ms, mut render_ms, mut frame_ms) = (Vec::new(), Vec::new(), Vec::new());
        for &isovalue in &isovalues {
            for &(azimuth, elevation) in &views {
                let view = IsoView::orbit(&self.lattice, azimuth, elevation, width, height);
                let (frame, times) =
                    py.allow_threads(|| self.frame(isovalue, view, shading)).map_err(|e| crate::render_error(&e))?;
                pixels.extend_from_slice(&frame);
                update_ms.push(times.update_ms);
                render_ms.push(times.render_ms);
                frame_ms.push(times.frame_ms);
                py.check_signals()?;
            }
        }
        let out = PyDict::new(py);
        let shape = [isovalues.len(), views.len(), height as usize, width as usize, 3];
        out.set_item("images", image_stack(py, &shape, pixels)?)?;
        let times = |v: Vec<f64>| PyArray1::from_vec(py, v).reshape([isovalues.len(), views.len()]);
        out.set_item("update_ms", times(update_ms)?)?;
        out.set_item("render_ms", times(render_ms)?)?;
        out.set_item("frame_ms", times(frame_ms)?)?;
        out.set_item("isovalues", isovalues.clone())?;
        out.set_item("views", views)?;
        out.set_item("backend", self.backend)?;
        Ok(out.into_any())
    }

    /// One image `(H, W, 3)` float32 of the isosurface at `isovalue` seen from `azimuth`,
    /// `elevation` (degrees; the CLI's defaults).
    #[pyo3(signature = (isovalue, azimuth=30.0, elevation=20.0, resolution=None, key_light=None, shadows=false))]
    #[allow(clippy::too_many_arguments)]
    fn render<'py>(
        &self,
        py: Python<'py>,
        isovalue: f32,
        azimuth: f64,
        elevation: f64,
        resolution: Option<(u32, u32)>,
        key_light: Option<[f64; 3]>,
        shadows: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let views = vec![(azimuth, elevation)].into_pyobject(py)?.into_any();
        let out =
            self.sweep(py, &isovalue.into_pyobject(py)?.into_any(), Some(&views), resolution, key_light, shadows)?;
        let images = out.get_item("images")?;
        images.get_item((0, 0))
    }

    fn __repr__(&self) -> String {
        let [x, y, z] = self.lattice.samples;
        let (lo, hi) = self.lattice.range();
        format!(
            "<warpath.Isosurface {x}x{y}x{z} samples, values {lo} to {hi}, {} bricks of {}³ cells, {}>",
            self.bvh.brick_count(),
            self.brick,
            self.backend
        )
    }
}

/// An isovalue sweep of a volume: `Isosurface(volume, brick, backend).sweep(isovalues,
/// views, resolution, ...)` in one call (the brick tree built once, condensed per isovalue).
///
/// >>> out = warpath.isosurface(np.load("ct.npy"), [100, 200, 300], views=4, resolution=(256, 256))
/// >>> out["images"].shape   # (3, 4, 256, 256, 3)
#[pyfunction]
#[pyo3(signature = (volume, isovalues, views=None, resolution=None, backend="auto", brick=16, key_light=None, shadows=false))]
#[allow(clippy::too_many_arguments)]
fn isosurface<'py>(
    py: Python<'py>,
    volume: &Bound<'py, PyAny>,
    isovalues: &Bound<'py, PyAny>,
    views: Option<&Bound<'py, PyAny>>,
    resolution: Option<(u32, u32)>,
    backend: &str,
    brick: u32,
    key_light: Option<[f64; 3]>,
    shadows: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let surface = PyIsosurface::new(py, volume, brick, backend)?;
    surface.sweep(py, isovalues, views, resolution, key_light, shadows)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyIsosurface>()?;
    m.add_function(wrap_pyfunction!(isosurface, m)?)?;
    Ok(())
}
