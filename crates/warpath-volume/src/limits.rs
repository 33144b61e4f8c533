//! The size guards every volume loader applies before it allocates: a header's claimed grid
//! is checked against these limits (and against the file's length) first, so an inflated
//! or bit-flipped header is a clear error, never an allocation of its claimed size.
//!
//! One module on purpose: when `warpath_core::limits` lands (the `harden` branch), these
//! constants and [`check_grid_values`] become thin wrappers over it.

use crate::error::VolumeError;
use crate::grid::VolumeGrid;
use std::path::Path;

/// The most voxels·channels one grid may hold: 2^31 values, 8 GiB of `f32`.
pub const MAX_VALUES: u64 = 1 << 31;

/// The most bytes a compressed volume (`.nii.gz`) may decompress to: the largest grid of
/// 8-byte samples plus a NIfTI header and its extensions.
pub const MAX_DECOMPRESSED_BYTES: u64 = MAX_VALUES * 8 + (1 << 20);

/// The number of values a `resolution` × `channels` grid holds, or an error naming `path`
/// when a dimension is zero or the grid is larger than [`MAX_VALUES`].
pub fn check_grid_values(path: &Path, resolution: [u32; 3], channels: u32) -> Result<u64, VolumeError> {
    let [nx, ny, nz] = resolution;
    if resolution.contains(&0) {
        return Err(VolumeError::format(path, format!("resolution {nx}×{ny}×{nz} has no voxels")));
    }
    let count = VolumeGrid::value_count(resolution, channels).unwrap_or(u64::MAX);
    if count > MAX_VALUES {
        return Err(VolumeError::invalid(
            path,
            format!(
                "a {nx}×{ny}×{nz}×{channels} grid ({count} values) is larger than the limit of {MAX_VALUES} values"
            ),
        ));
    }
    Ok(count)
}
