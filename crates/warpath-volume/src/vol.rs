//! Mitsuba 3's binary volume files (`.vol`, the format of its `gridvolume` plugin), read and
//! written, so that one file renders in warpath and in Mitsuba.
//!
//! Layout (little endian): `VOL`, version byte 3; an `i32` encoding (1 = dense `f32`, the
//! only one Mitsuba 3 reads); `i32` x, y, z resolution; `i32` channels; six `f32` of a
//! bounding box (min xyz, max xyz); then x·y·z·channels `f32` values, x fastest, channels
//! interleaved — [`VolumeGrid`]'s order. The box is kept for information: as in Mitsuba 3
//! (without `use_grid_bbox`), the grid covers the unit cube that the medium's `to_world`
//! places.

use crate::error::VolumeError;
use crate::grid::VolumeGrid;
use std::io::Write;
use std::path::Path;

const HEADER_BYTES: usize = 48;
/// The most voxels·channels a `.vol` file may hold (the loaders' common limit).
pub use crate::limits::MAX_VALUES;

/// A `.vol` file's grid and the bounding box its header records.
#[derive(Clone, Debug, PartialEq)]
pub struct VolFile {
    pub grid: VolumeGrid,
    pub bbox_min: [f32; 3],
    pub bbox_max: [f32; 3],
}

/// Reads a `.vol` file. Every inconsistency is an error naming the file: bad magic, an
/// encoding other than dense float32, a resolution or channel count that is not positive,
/// a body shorter or longer than the header says.
pub fn read_vol(path: &Path) -> Result<VolFile, VolumeError> {
    let bytes = std::fs::read(path).map_err(|e| VolumeError::io(path, e))?;
    parse_vol(&bytes, path)
}

/// Parses the bytes of a `.vol` file (`path` names it in errors).
pub fn parse_vol(bytes: &[u8], path: &Path) -> Result<VolFile, VolumeError> {
    let format = |m: String| VolumeError::format(path, m);
    if bytes.len() < HEADER_BYTES {
        return Err(format(format!(
            "not a Mitsuba volume: {} bytes, shorter than the {HEADER_BYTES}-byte header",
            bytes.len()
        )));
    }
    if &bytes[0..3] != b"VOL" {
        return Err(format("not a Mitsuba volume: the file does not start with 'VOL'".into()));
    }
    if bytes[3] != 3 {
        return Err(format(format!("unsupported .vol version {} (Mitsuba 3 writes version 3)", bytes[3])));
    }
    let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let f32_at = |o: usize| f32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let encoding = i32_at(4);
    if encoding != 1 {
        return Err(format(format!(
            "unsupported .vol encoding {encoding} (only 1, dense float32, is supported, as in Mitsuba 3)"
        )));
    }
    let dims = [i32_at(8), i32_at(12), i32_at(16)];
    let channels = i32_at(20);
    if dims.iter().any(|&d| d <= 0) {
        return Err(format(format!("resolution {}×{}×{} is not positive", dims[0], dims[1], dims[2])));
    }
    if channels != 1 && channels != 3 {
        return Err(format(format!("{channels} channels per voxel (warpath reads 1 or 3)")));
    }
    let resolution = dims.map(|d| d as u32);
    let count = crate::limits::check_grid_values(path, "the .vol header", resolution, channels as u32)?;
    let body = bytes.len() - HEADER_BYTES;
    let expected = count as usize * 4;
    if body != expected {
        return Err(format(format!(
            "the header says {}×{}×{}×{channels} float32 values ({expected} bytes) but the file holds {body} bytes after the header{}",
            dims[0],
            dims[1],
            dims[2],
            if body < expected { " (truncated?)" } else { "" }
        )));
    }
    let data: Vec<f32> =
        bytes[HEADER_BYTES..].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let grid = VolumeGrid::new(resolution, channels as u32, data).map_err(format)?;
    Ok(VolFile { grid, bbox_min: [f32_at(24), f32_at(28), f32_at(32)], bbox_max: [f32_at(36), f32_at(40), f32_at(44)] })
}

/// The bytes of a `.vol` file of `grid` with the unit-cube bounding box.
pub fn vol_bytes(grid: &VolumeGrid) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + grid.data.len() * 4);
    out.extend_from_slice(b"VOL");
    out.push(3);
    out.extend_from_slice(&1i32.to_le_bytes());
    for n in grid.resolution {
        out.extend_from_slice(&(n as i32).to_le_bytes());
    }
    out.extend_from_slice(&(grid.channels as i32).to_le_bytes());
    for v in [0.0f32, 0.0, 0.0, 1.0, 1.0, 1.0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in &grid.data {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Writes `grid` as a `.vol` file (unit-cube bounding box).
pub fn write_vol(path: &Path, grid: &VolumeGrid) -> Result<(), VolumeError> {
    let mut file = std::fs::File::create(path).map_err(|e| VolumeError::io(path, e))?;
    file.write_all(&vol_bytes(grid)).map_err(|e| VolumeError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_grid(channels: u32) -> VolumeGrid {
        let data = (0..3 * 4 * 5 * channels).map(|v| v as f32 * 0.25).collect();
        VolumeGrid::new([3, 4, 5], channels, data).unwrap()
    }

    #[test]
    fn round_trips_one_and_three_channels() {
        for channels in [1, 3] {
            let grid = sample_grid(channels);
            let file = parse_vol(&vol_bytes(&grid), Path::new("t.vol")).unwrap();
            assert_eq!(file.grid, grid);
            assert_eq!(file.bbox_max, [1.0; 3]);
        }
    }

    #[test]
    fn inconsistent_files_are_clear_errors() {
        let good = vol_bytes(&sample_grid(1));
        let path = Path::new("smoke.vol");
        let err = |bytes: &[u8]| parse_vol(bytes, path).unwrap_err().to_string();
        assert!(err(&good[..20]).contains("shorter than the 48-byte header"));
        assert!(err(&good[..good.len() - 4]).contains("truncated"));
        let mut extra = good.clone();
        extra.extend_from_slice(&[0; 4]);
        assert!(err(&extra).contains("holds 244 bytes"));
        let mut magic = good.clone();
        magic[0] = b'X';
        assert!(err(&magic).starts_with("smoke.vol: not a Mitsuba volume"));
        let mut encoding = good.clone();
        encoding[4] = 2;
        assert!(err(&encoding).contains("encoding 2"));
        let mut channels = good.clone();
        channels[20] = 2;
        assert!(err(&channels).contains("2 channels"));
        let mut negative = good.clone();
        negative[8..12].copy_from_slice(&(-3i32).to_le_bytes());
        assert!(err(&negative).contains("not positive"));
        let mut huge = good.clone();
        for o in [8, 12, 16] {
            huge[o..o + 4].copy_from_slice(&100_000i32.to_le_bytes());
        }
        assert!(err(&huge).contains("larger than the limit"));
    }
}
