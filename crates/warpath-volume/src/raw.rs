//! Raw scalar volumes: a file of `u8`, `u16` or `f32` samples and nothing else, x fastest,
//! then y, then z, whose resolution, sample type and byte order the scene gives
//! ([`RawLayout`]). The file's length must be exactly resolution × sample size (a shorter
//! or longer file is an error: the layout is wrong); samples become `f32` unchanged (a `u8`
//! 200 reads as 200.0: scaling is the scene's `scale` or transfer function).

use crate::error::VolumeError;
use crate::grid::VolumeGrid;
use crate::limits::check_grid_values;
use crate::load::{RawLayout, RawSample};
use std::path::Path;

impl RawSample {
    /// Bytes per sample.
    pub fn size(self) -> usize {
        match self {
            RawSample::U8 => 1,
            RawSample::U16 => 2,
            RawSample::F32 => 4,
        }
    }

    /// The sample type named `name` (`u8`, `u16`, `f32`), for scene files.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "u8" | "uint8" => Some(RawSample::U8),
            "u16" | "uint16" => Some(RawSample::U16),
            "f32" | "float32" => Some(RawSample::F32),
            _ => None,
        }
    }
}

/// The bytes a file of `layout` must hold, after checking the grid against the limits.
fn expected_bytes(layout: &RawLayout, path: &Path) -> Result<u64, VolumeError> {
    let count = check_grid_values(path, "the raw layout", layout.resolution, 1)?;
    Ok(count * layout.sample.size() as u64)
}

fn size_error(layout: &RawLayout, expected: u64, actual: u64, path: &Path) -> VolumeError {
    let [nx, ny, nz] = layout.resolution;
    VolumeError::format(
        path,
        format!(
            "a raw {nx}×{ny}×{nz} volume of {:?} samples needs exactly {expected} bytes, the file holds {actual}{}",
            layout.sample,
            if actual < expected {
                " (truncated, or the resolution is wrong?)"
            } else {
                " (is the resolution or the sample type wrong?)"
            }
        ),
    )
}

/// Reads a raw volume of `layout`: the file's length is checked before it is read.
pub fn read_raw(path: &Path, layout: &RawLayout) -> Result<VolumeGrid, VolumeError> {
    let expected = expected_bytes(layout, path)?;
    let actual = std::fs::metadata(path).map_err(|e| VolumeError::io(path, e))?.len();
    if actual != expected {
        return Err(size_error(layout, expected, actual, path));
    }
    let bytes = std::fs::read(path).map_err(|e| VolumeError::io(path, e))?;
    parse_raw(&bytes, layout, path)
}

/// Converts the bytes of a raw volume of `layout` (`path` names it in errors).
pub fn parse_raw(bytes: &[u8], layout: &RawLayout, path: &Path) -> Result<VolumeGrid, VolumeError> {
    let expected = expected_bytes(layout, path)?;
    if bytes.len() as u64 != expected {
        return Err(size_error(layout, expected, bytes.len() as u64, path));
    }
    let be = layout.big_endian;
    let data: Vec<f32> = match layout.sample {
        RawSample::U8 => bytes.iter().map(|&b| b as f32).collect(),
        RawSample::U16 => bytes
            .chunks_exact(2)
            .map(|c| if be { u16::from_be_bytes([c[0], c[1]]) } else { u16::from_le_bytes([c[0], c[1]]) } as f32)
            .collect(),
        RawSample::F32 => bytes
            .chunks_exact(4)
            .map(|c| {
                let a = [c[0], c[1], c[2], c[3]];
                if be { f32::from_be_bytes(a) } else { f32::from_le_bytes(a) }
            })
            .collect(),
    };
    VolumeGrid::new(layout.resolution, 1, data).map_err(|m| VolumeError::format(path, m))
}
