//! warpath's Python package (issue 31): a PyO3 extension, built by maturin from
//! `python/pyproject.toml` as the module `warpath._warpath` that `python/warpath/__init__.py`
//! re-exports. Python calls the same Rust API the CLI calls — `warpath_render`'s
//! `Settings::resolve`, `open_backend`, `prepare`, `render` — and gets NumPy arrays back:
//!
//! - [`scene`]: `load`, `loads`, `scene_from_dict` and the `Scene` class; media whose grids
//!   are NumPy arrays ([`arrays`]);
//! - [`render`]: `render` (an image, optionally with its variance and sample counts) and
//!   `render_frames` (ReSTIR DI frames of a static or orbiting camera), with the GIL
//!   released and Ctrl-C honoured;
//! - [`film`]: `render_film` (a range of sample indices into a `Film` of sums, squared sums
//!   and counts, `.wfilm` files and pickling) and `merge` (films of disjoint ranges into the
//!   film of their union), what `warpath.ray` distributes;
//! - [`iso`]: the `Isosurface` class and `isosurface` (an isovalue sweep over views, the
//!   brick tree built once);
//! - [`images`]: `write` (EXR/PNG as the CLI writes them) and `read`.
//!
//! Errors: a missing scene or file is `FileNotFoundError`, a bad argument or scene content
//! `ValueError`, the rest (the GPU, I/O, an internal failure) `warpath.Error`; messages are
//! the Rust errors' text. Nothing panics across the FFI: a panic in a render thread becomes
//! `warpath.Error`, and PyO3 turns any other into `PanicException`.

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use warpath_scene::SceneError;

pub mod arrays;
pub mod film;
pub mod images;
pub mod iso;
pub mod render;
pub mod scene;

pyo3::create_exception!(
    warpath,
    Error,
    pyo3::exceptions::PyException,
    "A failure in warpath that is not a bad argument: the GPU, its driver or a kernel, reading or writing a file, an internal error."
);

/// `ValueError(message)`.
pub(crate) fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// `warpath.Error(message)`.
pub(crate) fn warpath_error(message: impl Into<String>) -> PyErr {
    Error::new_err(message.into())
}

/// A scene error as the Python exception that fits: a missing file or scene name is
/// `FileNotFoundError`, everything else the scene's content (`ValueError`).
pub(crate) fn scene_error(e: &SceneError) -> PyErr {
    match e {
        SceneError::NotFound { .. } => PyFileNotFoundError::new_err(e.to_string()),
        SceneError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        SceneError::Io { .. } => warpath_error(e.to_string()),
        _ => value_error(e.to_string()),
    }
}

/// A front-door error as the Python exception that fits.
pub(crate) fn render_error(e: &warpath_render::Error) -> PyErr {
    match e {
        warpath_render::Error::Scene(s) => scene_error(s),
        warpath_render::Error::Invalid(_) | warpath_render::Error::Limit(_) => value_error(e.to_string()),
        warpath_render::Error::Cuda(_) => warpath_error(e.to_string()),
    }
}

/// The CUDA devices this machine has: one dict per device (`ordinal`, `name`,
/// `compute_capability`, `multiprocessors`, `memory_bytes`, `free_memory_bytes`,
/// `driver_version`); an empty list without a driver or a GPU.
#[pyfunction]
fn devices(py: Python<'_>) -> PyResult<Vec<Py<PyDict>>> {
    let infos = py.allow_threads(|| {
        let count = warpath_cuda::CudaDevice::count().unwrap_or(0);
        (0..count).map(|ordinal| warpath_cuda::CudaDevice::open(ordinal).map(|d| d.info().clone())).collect::<Vec<_>>()
    });
    let mut out = Vec::new();
    for info in infos {
        let info = info.map_err(|e| warpath_error(e.to_string()))?;
        let d = PyDict::new(py);
        d.set_item("ordinal", info.ordinal)?;
        d.set_item("name", &info.name)?;
        d.set_item("compute_capability", info.compute_capability)?;
        d.set_item("sm", info.sm_name())?;
        d.set_item("multiprocessors", info.multiprocessors)?;
        d.set_item("memory_bytes", info.total_memory_bytes)?;
        d.set_item("free_memory_bytes", info.free_memory_bytes)?;
        d.set_item("driver_version", info.driver_version_string())?;
        out.push(d.unbind());
    }
    Ok(out)
}

/// The folder compiled CUDA kernels are cached in (`$WARPATH_KERNEL_CACHE`, else
/// `$XDG_CACHE_HOME/warpath/kernels`, else `~/.cache/warpath/kernels`), or `None` when the
/// cache is off.
#[pyfunction]
fn kernel_cache_path() -> Option<String> {
    warpath_cuda::compiler::default_cache_dir().map(|p| p.to_string_lossy().into_owned())
}

#[pymodule]
#[pyo3(name = "_warpath")]
fn warpath_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_function(wrap_pyfunction!(devices, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_cache_path, m)?)?;
    scene::register(m)?;
    render::register(m)?;
    film::register(m)?;
    images::register(m)?;
    iso::register(m)?;
    Ok(())
}
