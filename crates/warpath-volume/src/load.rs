//! Opening a volume file by its extension: Mitsuba's `.vol`, NIfTI-1 (`.nii`, `.nii.gz`),
//! OpenVDB (`.vdb`, the first float grid, densified), or raw scalar data whose layout
//! the scene gives. Every loader checks the size its header claims against the file and
//! the limits ([`crate::limits`]) before it allocates, and returns a [`VolumeError`] naming
//! the file.

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

/// The file extensions [`load_grid`] opens (lower case).
pub const EXTENSIONS: &[&str] = &[".vol", ".nii", ".nii.gz", ".vdb"];

/// A loaded grid and the size of its voxels.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedVolume {
    pub grid: VolumeGrid,
    /// Voxel size along x, y, z: NIfTI's `pixdim` (in its spatial unit, usually mm); for
    /// `.vol` files the bounding box divided by the resolution; OpenVDB's voxel size; 1 for
    /// raw files.
    pub spacing: [f32; 3],
}

/// Loads a scalar or RGB grid from `path`; `raw` describes files without a header.
pub fn load_grid(path: &Path, raw: Option<&RawLayout>) -> Result<VolumeGrid, VolumeError> {
    Ok(load_volume(path, raw)?.grid)
}

/// Loads a grid and its voxel spacing from `path` (see [`load_grid`]).
pub fn load_volume(path: &Path, raw: Option<&RawLayout>) -> Result<LoadedVolume, VolumeError> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    if let Some(layout) = raw {
        return Ok(LoadedVolume { grid: crate::raw::read_raw(path, layout)?, spacing: [1.0; 3] });
    }
    if name.ends_with(".vol") {
        let file = crate::vol::read_vol(path)?;
        let r = file.grid.resolution;
        let spacing = [0, 1, 2].map(|a| {
            let s = (file.bbox_max[a] - file.bbox_min[a]) / r[a] as f32;
            if s.is_finite() && s > 0.0 { s } else { 1.0 }
        });
        return Ok(LoadedVolume { grid: file.grid, spacing });
    }
    if name.ends_with(".nii") || name.ends_with(".nii.gz") {
        let scan = crate::nifti::read_nifti(path)?;
        return Ok(LoadedVolume { grid: scan.grid, spacing: scan.spacing });
    }
    if name.ends_with(".vdb") {
        let vdb = crate::vdb::read_vdb(path)?;
        return Ok(LoadedVolume { grid: vdb.grid, spacing: vdb.voxel_size.map(|s| s as f32) });
    }
    Err(VolumeError::format(
        path,
        format!("unknown volume format (expected {}, or a raw file with its layout given)", EXTENSIONS.join(", ")),
    ))
}
