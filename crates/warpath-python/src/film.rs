//! Partial renders from Python (issue 32): `render_film` renders a range of sample indices
//! into a `Film` — the per-pixel sums, squared sums and counts with the range and the
//! fingerprint of the scene and settings, warpath-render's [`FilmPart`] — and `merge`
//! combines films of disjoint ranges into the film of their union ([`warpath_render::merge`],
//! the merge `warpath merge` runs). A `Film` is written to and read from `.wfilm` files (the
//! CLI's `--film` format) and pickles as those bytes, so films travel between processes
//! (`warpath.ray` sends them from its tasks).

use crate::arrays::image_array;
use crate::render::{overrides, parse_backend, render_range};
use crate::scene::PyScene;
use crate::{render_error, value_error, warpath_error};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::path::PathBuf;
use warpath_render::{FilmPart, Settings};

/// A film: per-pixel sums, squared sums and sample counts of the sample indices `samples`
/// of one scene and settings (`fingerprint`).
#[pyclass(name = "Film", module = "warpath", frozen)]
pub struct PyFilm {
    part: FilmPart,
}

impl PyFilm {
    fn shape(&self, channels: bool) -> Vec<usize> {
        let (w, h) = (self.part.film.width as usize, self.part.film.height as usize);
        if channels { vec![h, w, 3] } else { vec![h, w] }
    }

    fn doubles<'py>(&self, py: Python<'py>, values: &[glam::DVec3]) -> PyResult<Bound<'py, PyAny>> {
        let flat: Vec<f64> = values.iter().flat_map(|v| v.to_array()).collect();
        Ok(PyArray1::from_vec(py, flat).reshape(self.shape(true))?.into_any())
    }
}

#[pymethods]
impl PyFilm {
    #[getter]
    fn width(&self) -> u32 {
        self.part.film.width
    }

    #[getter]
    fn height(&self) -> u32 {
        self.part.film.height
    }

    /// The sample indices the film holds, `(start, end)`.
    #[getter]
    fn samples(&self) -> (u32, u32) {
        (self.part.samples.start, self.part.samples.end)
    }

    /// A hash of the scene and the image-defining settings; films merge only when equal.
    #[getter]
    fn fingerprint(&self) -> u64 {
        self.part.fingerprint
    }

    /// Where the film was rendered (backend, renderer), in words.
    #[getter]
    fn provenance(&self) -> &str {
        &self.part.provenance
    }

    /// The image: each pixel's mean, `float32` `(H, W, 3)` (what `render` returns).
    fn image<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        image_array(py, self.part.film.width, self.part.film.height, &self.part.film.mean())
    }

    /// Each pixel's variance of the mean, `float32` `(H, W, 3)`.
    fn variance<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        image_array(py, self.part.film.width, self.part.film.height, &self.part.film.variance_of_mean())
    }

    /// Samples per pixel, `uint32` `(H, W)`.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyArray1::from_vec(py, self.part.film.count.clone()).reshape(self.shape(false))?.into_any())
    }

    /// The per-pixel sums of the samples, `float64` `(H, W, 3)`.
    #[getter]
    fn sum<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.doubles(py, &self.part.film.sum)
    }

    /// The per-pixel sums of the samples' squares, `float64` `(H, W, 3)`.
    #[getter]
    fn sum_sq<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.doubles(py, &self.part.film.sum_sq)
    }

    /// Writes the film to a `.wfilm` file (`warpath merge` reads it).
    fn write(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.allow_threads(|| self.part.write(&path)).map_err(|e| render_error(&e))
    }

    /// Reads a `.wfilm` file (`warpath render --film`); a damaged or truncated file is a
    /// `ValueError` naming it.
    #[staticmethod]
    fn read(path: PathBuf) -> PyResult<PyFilm> {
        if !path.is_file() {
            return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!("{}: no such file", path.display())));
        }
        FilmPart::read(&path).map(|part| PyFilm { part }).map_err(|e| render_error(&e))
    }

    /// The film as the bytes of a `.wfilm` file.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.part.to_bytes())
    }

    /// A film from the bytes of a `.wfilm` file (checked as `read` checks a file).
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<PyFilm> {
        FilmPart::from_bytes(data, "film bytes").map(|part| PyFilm { part }).map_err(|e| render_error(&e))
    }

    /// Pickles as the `.wfilm` bytes.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let from_bytes = py.get_type::<PyFilm>().getattr("from_bytes")?;
        let args = PyTuple::new(py, [self.to_bytes(py)])?;
        PyTuple::new(py, [from_bytes, args.into_any()])
    }

    fn __repr__(&self) -> String {
        format!(
            "Film({}x{}, samples {}..{}, fingerprint {:016x})",
            self.part.film.width,
            self.part.film.height,
            self.part.samples.start,
            self.part.samples.end,
            self.part.fingerprint
        )
    }
}

/// Renders the sample indices `samples = (start, end)` of every pixel with the path tracer
/// and returns the `Film`; films of disjoint ranges `merge` into the render of their union
/// (on the CPU, a pixel's samples are a function of (pixel, sample index), whatever range
/// or process renders them). `samples=None`: `(0, spp)`. The other arguments are
/// `render`'s; `pass_size` samples per pass (the CPU's default 1, the GPU's 16).
#[pyfunction]
#[pyo3(signature = (scene, samples=None, spp=None, resolution=None, backend="auto", strategy=None, seed=None, max_depth=None, pass_size=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn render_film(
    py: Python<'_>,
    scene: &Bound<'_, PyScene>,
    samples: Option<(i64, i64)>,
    spp: Option<i64>,
    resolution: Option<&Bound<'_, PyAny>>,
    backend: &str,
    strategy: Option<&str>,
    seed: Option<i64>,
    max_depth: Option<i64>,
    pass_size: Option<i64>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyFilm> {
    let range = match (samples, spp) {
        (Some(_), Some(_)) => {
            return Err(value_error("samples=(a, b) renders b - a samples per pixel: give it without spp"));
        }
        (Some((a, b)), None) => {
            if a < 0 || b <= a || b > u32::MAX as i64 {
                return Err(value_error(format!("samples ({a}, {b}): expected 0 <= a < b")));
            }
            Some(a as u32..b as u32)
        }
        (None, _) => None,
    };
    let scene = scene.get().scene.clone();
    let choice = parse_backend(backend)?;
    let count = range.as_ref().map(|r| r.len() as i64).or(spp);
    let overrides = overrides(count, None, resolution, "path", strategy, seed, max_depth, pass_size, false)?;
    let settings = Settings::resolve(&scene, &overrides).map_err(|e| render_error(&e))?;
    let range = range.unwrap_or(0..settings.count);
    let fingerprint = warpath_render::fingerprint(&scene, &settings);
    let rendered = render_range(py, scene, &settings, choice, range.clone(), progress)?;
    if rendered.done != range.len() as u32 {
        return Err(warpath_error(format!(
            "the render of samples {}..{} stopped after {} samples",
            range.start, range.end, rendered.done
        )));
    }
    let provenance = format!("{}, {}", rendered.backend, rendered.description.lines().next().unwrap_or_default());
    Ok(PyFilm { part: FilmPart { film: rendered.film, samples: range, fingerprint, provenance } })
}

/// Merges films of one scene and settings holding disjoint, adjoining sample ranges into the
/// film of their union (added in ascending order of their ranges, whatever order they come
/// in). Films of another scene or settings, overlapping ranges, or ranges that leave a gap
/// are a `ValueError` naming the film (`film 2`: its place in `films`, from 0) and its range.
#[pyfunction]
fn merge(py: Python<'_>, films: Vec<Bound<'_, PyFilm>>) -> PyResult<PyFilm> {
    let parts: Vec<(PathBuf, FilmPart)> = films
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let part = f.get().part.clone();
            (PathBuf::from(format!("film {i}")), part)
        })
        .collect();
    let fingerprint = parts.first().map(|(_, p)| p.fingerprint).unwrap_or(0);
    // Each distinct origin once, also over merges of merged films.
    let mut provenance: Vec<String> = Vec::new();
    for (_, part) in &parts {
        for origin in part.provenance.trim_start_matches("merged: ").split("; ") {
            if !provenance.iter().any(|p| p == origin) {
                provenance.push(origin.to_string());
            }
        }
    }
    let (film, ranges) = py.allow_threads(|| warpath_render::merge(parts)).map_err(|e| render_error(&e))?;
    if let Some(gap) = ranges.windows(2).find(|w| w[0].end != w[1].start) {
        return Err(value_error(format!(
            "the films leave a gap: samples {}..{} are in none (a film holds one range)",
            gap[0].end, gap[1].start
        )));
    }
    let samples = ranges[0].start..ranges[ranges.len() - 1].end;
    Ok(PyFilm {
        part: FilmPart { film, samples, fingerprint, provenance: format!("merged: {}", provenance.join("; ")) },
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFilm>()?;
    m.add_function(wrap_pyfunction!(render_film, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    Ok(())
}
