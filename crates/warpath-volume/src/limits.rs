//! The size guards every volume loader applies before it allocates: a header's claimed grid
//! is checked against these limits (and against the file's length) first, so an inflated
//! or bit-flipped header is a clear error, never an allocation of its claimed size.
//!
//! A thin layer over [`warpath_core::limits`], the guard every other loader of warpath
//! calls: a grid must hold at most [`MAX_VALUES`] values (this crate's own limit, stricter
//! than `warpath_core::limits::MAX_GRID_VOXELS`), and its `f32` values must fit in the
//! memory the process can get (available memory, cgroup, `ulimit -v`, a cap set with
//! `warpath_core::limits::set_memory_cap`). Generated grids (constant, procedural, printed)
//! go through the same check as files.

use crate::error::VolumeError;
use crate::grid::VolumeGrid;
use std::path::Path;
use warpath_core::limits as core_limits;

/// The most voxels·channels one grid may hold: 2^31 values, 8 GiB of `f32`.
pub const MAX_VALUES: u64 = 1 << 31;

/// The most bytes a compressed volume (`.nii.gz`) may decompress to: the largest grid of
/// 8-byte samples plus a NIfTI header and its extensions.
pub const MAX_DECOMPRESSED_BYTES: u64 = MAX_VALUES * 8 + (1 << 20);

/// Bytes of memory one value of a grid takes (the grid's `f32`).
const BYTES_PER_VALUE: u64 = 4;

/// Checks a grid of `resolution` × `channels` that `what` ("the .vol header", "a procedural
/// grid", ...) claims, before anything of its size is allocated: it must have voxels, hold
/// at most [`MAX_VALUES`] values, and fit in the memory the process can get
/// ([`warpath_core::limits::check_grid`]). Returns its number of values.
pub fn check_grid(what: &str, resolution: [u32; 3], channels: u32) -> Result<u64, String> {
    let [nx, ny, nz] = resolution;
    if resolution.contains(&0) {
        return Err(format!("{what}: resolution {nx}×{ny}×{nz} has no voxels"));
    }
    let count = VolumeGrid::value_count(resolution, channels).unwrap_or(u64::MAX);
    if count > MAX_VALUES {
        return Err(format!(
            "{what}: a {nx}×{ny}×{nz}×{channels} grid ({count} values) is larger than the limit of {MAX_VALUES} values (docs/robustness.md)"
        ));
    }
    core_limits::check_grid(what, resolution.map(u64::from), BYTES_PER_VALUE * channels as u64)
        .map_err(|e| e.to_string())?;
    Ok(count)
}

/// [`check_grid`] for a grid a file claims: the error names the file.
pub fn check_grid_values(path: &Path, what: &str, resolution: [u32; 3], channels: u32) -> Result<u64, VolumeError> {
    check_grid(what, resolution, channels).map_err(|message| VolumeError::invalid(path, message))
}

/// A vector of `count` copies of `value`, allocated after [`warpath_core::limits::check_bytes`]
/// and with a fallible reservation: a refused allocation is an error naming `path`.
pub fn filled_vec(path: &Path, what: &str, count: u64, value: f32) -> Result<Vec<f32>, VolumeError> {
    let mut v = reserved_vec(path, what, count)?;
    v.resize(count as usize, value);
    Ok(v)
}

/// An empty vector with room for `count` values, reserved as [`filled_vec`] does.
pub fn reserved_vec(path: &Path, what: &str, count: u64) -> Result<Vec<f32>, VolumeError> {
    let bytes = count.saturating_mul(BYTES_PER_VALUE);
    core_limits::check_bytes(what, bytes).map_err(|e| VolumeError::invalid(path, e.to_string()))?;
    let mut v = Vec::new();
    v.try_reserve_exact(count as usize).map_err(|_| {
        VolumeError::invalid(
            path,
            format!("{what}: the allocator refused {} for {count} values", core_limits::format_bytes(bytes)),
        )
    })?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_past_the_value_limit_or_without_voxels_are_refused_before_memory_is_asked() {
        let e = check_grid("the .vol header", [100_000, 100_000, 100_000], 1).unwrap_err();
        assert!(e.starts_with("the .vol header: a 100000×100000×100000×1 grid"), "{e}");
        assert!(e.contains("larger than the limit of 2147483648 values"), "{e}");
        // u32::MAX³ overflows u64: still the value limit, not a wrap-around to a small count.
        let e = check_grid("x", [u32::MAX; 3], 3).unwrap_err();
        assert!(e.contains("larger than the limit"), "{e}");
        assert!(check_grid("x", [4, 0, 4], 1).unwrap_err().contains("has no voxels"));
        assert_eq!(check_grid("x", [4, 5, 6], 3), Ok(360));
        // Exactly at the limit passes the value check (memory decides the rest).
        let at_limit = check_grid("x", [1 << 11, 1 << 10, 1 << 10], 1);
        assert!(at_limit.as_ref().map_or_else(|e| !e.contains("larger than the limit"), |&n| n == MAX_VALUES));
    }

    #[test]
    fn file_errors_name_the_file() {
        let e = check_grid_values(Path::new("big.vol"), "the .vol header", [70_000, 70_000, 1], 1).unwrap_err();
        let message = e.to_string();
        assert!(message.starts_with("big.vol: the .vol header: a 70000×70000×1×1 grid"), "{message}");
        assert!(matches!(e, VolumeError::Invalid { .. }));
        let v = filled_vec(Path::new("f"), "a grid", 10, 2.5).unwrap();
        assert_eq!(v, vec![2.5; 10]);
    }
}
