//! NumPy arrays in and out: a volume array (any real dtype, C or Fortran order, indexed
//! `[x, y, z]` or `[x, y, z, channel]`) as a [`VolumeGrid`] (x fastest, channels innermost,
//! the `.vol` layout), checked value by value; images as `float32` arrays `(H, W, 3)`.

use crate::value_error;
use glam::Vec3;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::IntoPyDict;
use warpath_volume::VolumeGrid;

/// What a grid holds, for its checks and messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridKind {
    /// Densities: finite, not negative, one channel.
    Density,
    /// Albedos: in [0, 1], one (gray) or three channels.
    Albedo,
    /// Scalar values (a scan for a transfer function, an isosurface's volume): finite.
    Scalar,
}

impl GridKind {
    fn name(self) -> &'static str {
        match self {
            GridKind::Density => "density",
            GridKind::Albedo => "albedo",
            GridKind::Scalar => "volume",
        }
    }
}

/// `numpy.asarray(obj)`, refused unless its dtype is real numbers (bool, integers, floats).
fn as_numeric_array<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    let np = obj.py().import("numpy")?;
    let array = np
        .call_method1("asarray", (obj,))
        .map_err(|e| value_error(format!("{what}: not an array of numbers ({e})")))?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "b" | "i" | "u" | "f") {
        let dtype = array.getattr("dtype")?.str()?.to_string();
        return Err(value_error(format!("{what}: dtype {dtype} is not a real number type (use integers or floats)")));
    }
    Ok(array)
}

/// The array's values as `float32`, axes `order` first (numpy's transpose), C order.
fn float32_values(array: &Bound<'_, PyAny>, order: Vec<usize>) -> PyResult<Vec<f32>> {
    let np = array.py().import("numpy")?;
    let transposed = array.call_method1("transpose", (order,))?;
    let float32 = np.getattr("float32")?;
    let contiguous =
        np.call_method("ascontiguousarray", (transposed,), Some(&[("dtype", float32)].into_py_dict(array.py())?))?;
    let values: PyReadonlyArrayDyn<f32> = contiguous.extract()?;
    Ok(values.as_slice().map_err(|e| value_error(e.to_string()))?.to_vec())
}

/// `(x, y, z)` of voxel `index` of a grid of `resolution` (x fastest).
fn voxel_xyz(index: usize, resolution: [u32; 3]) -> (usize, usize, usize) {
    let (nx, ny) = (resolution[0] as usize, resolution[1] as usize);
    (index % nx, (index / nx) % ny, index / (nx * ny))
}

/// A volume array as a grid: `kind` says what it holds (and so its rank, channels and the
/// values allowed); `what` names it in messages (e.g. "medium 'smoke': density").
pub fn grid_from_array(obj: &Bound<'_, PyAny>, kind: GridKind, what: &str) -> PyResult<VolumeGrid> {
    let array = as_numeric_array(obj, what)?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let rank_ok = match kind {
        GridKind::Density | GridKind::Scalar => shape.len() == 3,
        GridKind::Albedo => shape.len() == 3 || (shape.len() == 4 && matches!(shape[3], 1 | 3)),
    };
    if !rank_ok {
        let expected = match kind {
            GridKind::Albedo => "3 axes [x, y, z] (gray) or 4 axes [x, y, z, 3] (RGB)",
            _ => "3 axes [x, y, z]",
        };
        return Err(value_error(format!(
            "{what}: an array of shape {shape:?} has the wrong rank (expected {expected})"
        )));
    }
    if shape.contains(&0) {
        return Err(value_error(format!("{what}: the array of shape {shape:?} is empty")));
    }
    let too_large = || value_error(format!("{what}: an array of shape {shape:?} is too large for a grid"));
    let resolution: [u32; 3] = [0, 1, 2].map(|a| u32::try_from(shape[a]).unwrap_or(u32::MAX));
    if resolution.contains(&u32::MAX) {
        return Err(too_large());
    }
    let channels = if shape.len() == 4 { shape[3] as u32 } else { 1 };
    warpath_volume::limits::check_grid(what, resolution, channels).map_err(value_error)?;
    // x fastest, channels innermost: the grid's (and the .vol file's) layout.
    let order = if shape.len() == 4 { vec![2, 1, 0, 3] } else { vec![2, 1, 0] };
    let data = float32_values(&array, order)?;
    let name = kind.name();
    for (i, &v) in data.iter().enumerate() {
        let bad = match kind {
            GridKind::Scalar => !v.is_finite(),
            GridKind::Density => !v.is_finite() || v < 0.0,
            GridKind::Albedo => !(v.is_finite() && (0.0..=1.0).contains(&v)),
        };
        if bad {
            let (x, y, z) = voxel_xyz(i / channels as usize, resolution);
            let problem = if v.is_nan() {
                format!("NaN {name}")
            } else if !v.is_finite() {
                format!("infinite {name} {v} (or beyond float32)")
            } else if kind == GridKind::Density {
                format!("negative density {v}")
            } else {
                format!("albedo {v} outside [0, 1]")
            };
            return Err(value_error(format!("{what}: {problem} at [{x}, {y}, {z}]")));
        }
    }
    VolumeGrid::new(resolution, channels, data).map_err(|m| value_error(format!("{what}: {m}")))
}

/// `pixels` (row-major, top row first) as a `float32` array `(height, width, 3)`.
pub fn image_array<'py>(py: Python<'py>, width: u32, height: u32, pixels: &[Vec3]) -> PyResult<Bound<'py, PyAny>> {
    let flat: Vec<f32> = pixels.iter().flat_map(|p| [p.x, p.y, p.z]).collect();
    Ok(PyArray1::from_vec(py, flat).reshape([height as usize, width as usize, 3])?.into_any())
}

/// A stack of images `(count, height, width, 3)` as one `float32` array.
pub fn image_stack<'py>(
    py: Python<'py>,
    shape: &[usize],
    pixels: impl IntoIterator<Item = [f32; 3]>,
) -> PyResult<Bound<'py, PyAny>> {
    let flat: Vec<f32> = pixels.into_iter().flatten().collect();
    Ok(PyArray1::from_vec(py, flat).reshape(shape.to_vec())?.into_any())
}

/// An image array `(H, W, 3)` (any real dtype) as width, height and row-major pixels.
pub fn pixels_from_array(obj: &Bound<'_, PyAny>) -> PyResult<(u32, u32, Vec<Vec3>)> {
    let array = as_numeric_array(obj, "image")?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    if shape.len() != 3 || shape[2] != 3 {
        return Err(value_error(format!("image: shape {shape:?} is not (height, width, 3)")));
    }
    if shape[0] == 0 || shape[1] == 0 {
        return Err(value_error(format!("image: the array of shape {shape:?} is empty")));
    }
    let (height, width) = (shape[0], shape[1]);
    let (Ok(w), Ok(h)) = (u32::try_from(width), u32::try_from(height)) else {
        return Err(value_error(format!("image: shape {shape:?} is too large")));
    };
    let data = float32_values(&array, vec![0, 1, 2])?;
    let pixels = data.chunks_exact(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
    Ok((w, h, pixels))
}
