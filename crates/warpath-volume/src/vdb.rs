//! OpenVDB (`.vdb`) float grids, read through the `OpenVDB-rs` crate (a pure-Rust port of
//! OpenVDB's file I/O: versions 220–225, zip and Blosc/LZ4, half floats) and densified.
//!
//! What is read: the first grid of type `Tree_float_5_4_3` in file order (any name), or
//! the grid named by [`read_vdb_grid`]. Its active voxels — leaf voxels and active tiles —
//! are written into a dense grid over the **active voxels' bounding box in index space**,
//! [min, max] inclusive; every other voxel of that box holds the grid's background value.
//! Dense voxel (x, y, z) is VDB index voxel min + (x, y, z), so the grid's unit cube spans
//! index-space [min, max + 1) and a scene gives it its real size with the voxel size
//! ([`VdbVolume::voxel_size`]). The VDB's own transform (translation, rotation) is not
//! applied; a scene places the cube with `to_world`.
//!
//! Checks: the file's length against [`MAX_FILE_BYTES`] before it is opened, the chain of
//! instanced grids against loops, and the dense box against [`crate::limits::check_grid`]
//! (the value limit and the memory the process can get) before the dense grid is allocated. `OpenVDB-rs` grows its buffers as data arrives and
//! returns errors on corrupt data (tests/mutation.rs keeps it honest); the crate `vdb-rs`,
//! tried first, panicked on the same files (docs/volumes.md).

use crate::error::VolumeError;
use crate::grid::VolumeGrid;
use crate::limits::{check_grid_values, filled_vec};
use openvdb_rs::grid::AnyGrid;
use std::path::Path;

/// The largest `.vdb` file read: 16 GiB.
pub const MAX_FILE_BYTES: u64 = 16 << 30;

/// The tree type of float grids.
const FLOAT_TREE: &str = "Tree_float_5_4_3";

/// A densified OpenVDB float grid.
#[derive(Clone, Debug, PartialEq)]
pub struct VdbVolume {
    /// The active bounding box's values, x fastest, 1 channel.
    pub grid: VolumeGrid,
    /// The grid's name in the file.
    pub name: String,
    /// Index of dense voxel (0, 0, 0) in the VDB's index space.
    pub index_min: [i32; 3],
    /// World size of a voxel along x, y, z (the transform's scale).
    pub voxel_size: [f64; 3],
    /// Active voxels (tiles counted voxel by voxel) and the background value.
    pub active_voxels: u64,
    pub background: f32,
}

/// The largest Blosc block accepted beyond a frame's own size (see [`check_blosc_block_sizes`]).
const BLOSC_BLOCK_LIMIT: u32 = 1 << 20;

/// Refuses a file holding a Blosc frame whose block size exceeds both its data size and
/// [`BLOSC_BLOCK_LIMIT`], before `OpenVDB-rs` sees it: that crate allocates a scratch block
/// of the header's block size (up to 4 GiB) before comparing it with the data, which aborts
/// the process where memory or address space is limited (found by the fuzzer:
/// warpath-scene/tests/regressions/fuzz-vdb-s24-159802.vdb). Writers never make a block
/// larger than the frame's data (c-blosc clamps it), so valid files pass.
///
/// OpenVDB stores each compressed buffer as an `i64` byte count followed by the frame, whose
/// 16-byte header is: version, compressor version, flags, type size (u8 each), data bytes,
/// block size, frame bytes (u32 little endian each). The file is scanned for that pattern
/// (count in 16..=bytes left, version 1 or 2, type size 1/2/4/8, frame bytes between 16 and
/// the count); a random match that also claims an oversized block is not a plausible
/// float-grid buffer either. One sequential read, about a second per GB.
fn check_blosc_block_sizes(path: &Path) -> Result<(), VolumeError> {
    use std::io::Read;
    const HEADER: usize = 8 + 16;
    let mut file = std::fs::File::open(path).map_err(|e| VolumeError::io(path, e))?;
    let total = file.metadata().map_err(|e| VolumeError::io(path, e))?.len();
    let mut window: Vec<u8> = Vec::with_capacity((1 << 20) + HEADER);
    let mut chunk = vec![0u8; 1 << 20];
    let mut window_start: u64 = 0; // file offset of window[0]
    loop {
        let read = file.read(&mut chunk).map_err(|e| VolumeError::io(path, e))?;
        window.extend_from_slice(&chunk[..read]);
        let last = read == 0;
        let scan_end = if last { window.len().saturating_sub(HEADER - 1) } else { window.len().saturating_sub(HEADER) };
        for p in 0..scan_end {
            let w = &window[p..p + HEADER];
            let count = i64::from_le_bytes(w[0..8].try_into().expect("8 bytes"));
            let left = total.saturating_sub(window_start + p as u64 + 8);
            if count < 16 || count as u64 > left {
                continue;
            }
            let h = &w[8..];
            let u32_at = |at: usize| u32::from_le_bytes(h[at..at + 4].try_into().expect("4 bytes"));
            let (data, block, frame) = (u32_at(4), u32_at(8), u32_at(12));
            if matches!(h[0], 1 | 2)
                && matches!(h[3], 1 | 2 | 4 | 8)
                && (16..=count as u64).contains(&(frame as u64))
                && block > data
                && block > BLOSC_BLOCK_LIMIT
            {
                return Err(VolumeError::format(
                    path,
                    format!(
                        "a Blosc frame at byte {} claims blocks of {block} bytes for {data} bytes of data (the file is damaged)",
                        window_start + p as u64 + 8
                    ),
                ));
            }
        }
        if last {
            return Ok(());
        }
        window.drain(..scan_end);
        window_start += scan_end as u64;
    }
}

/// Reads the first float grid of a `.vdb` file.
pub fn read_vdb(path: &Path) -> Result<VdbVolume, VolumeError> {
    read_vdb_grid(path, None)
}

/// Reads the float grid named `name` (or the first float grid) of a `.vdb` file.
pub fn read_vdb_grid(path: &Path, name: Option<&str>) -> Result<VdbVolume, VolumeError> {
    let format = |m: String| VolumeError::format(path, m);
    let bytes = std::fs::metadata(path).map_err(|e| VolumeError::io(path, e))?.len();
    if bytes > MAX_FILE_BYTES {
        return Err(VolumeError::invalid(
            path,
            format!("{bytes} bytes is larger than the limit of {MAX_FILE_BYTES} bytes for .vdb files"),
        ));
    }
    check_blosc_block_sizes(path)?;
    let file = openvdb_rs::io::File::open(path).map_err(|e| format(format!("OpenVDB: {e}")))?;
    let descriptors = file.descriptors();
    let index = descriptors
        .iter()
        .position(|d| d.grid_type == FLOAT_TREE && name.is_none_or(|n| d.grid_name == n || d.unique_name == n))
        .ok_or_else(|| {
            let list: Vec<String> =
                descriptors.iter().map(|d| format!("{} ({})", d.display_name(), d.grid_type)).collect();
            format(format!(
                "no float grid{} (grids: {})",
                name.map(|n| format!(" named '{n}'")).unwrap_or_default(),
                if list.is_empty() { "none".to_string() } else { list.join(", ") }
            ))
        })?;
    // An instanced grid reads its parent's tree: refuse chains that loop.
    let mut at = index;
    for _ in 0..=descriptors.len() {
        let parent = &descriptors[at].instance_parent;
        if parent.is_empty() {
            break;
        }
        at = descriptors.iter().position(|d| &d.unique_name == parent).ok_or_else(|| {
            format(format!("grid '{}' instances a missing grid '{parent}'", descriptors[at].display_name()))
        })?;
        if at == index {
            return Err(format(format!(
                "grid '{}' instances itself through a loop",
                descriptors[index].display_name()
            )));
        }
    }
    let descriptor = &descriptors[index];
    let unique = descriptor.unique_name.clone();
    let grid = match file.read_grid(&unique).map_err(|e| format(format!("OpenVDB: {e}")))? {
        AnyGrid::Float(grid) => grid,
        _ => return Err(format(format!("grid '{}' did not read as a float grid", descriptor.display_name()))),
    };
    let background = *grid.background();
    let bbox = grid.eval_active_voxel_bbox();
    if bbox.is_empty() {
        return Err(format(format!("grid '{}' has no active voxels", descriptor.display_name())));
    }
    let (min, max) = (bbox.min.0, bbox.max.0);
    let size = [0, 1, 2].map(|a| max[a] as i64 - min[a] as i64 + 1);
    if size.iter().any(|&n| n > u32::MAX as i64) {
        return Err(VolumeError::invalid(path, format!("active bounding box {min:?}…{max:?} is too large")));
    }
    let resolution = size.map(|n| n as u32);
    let count = check_grid_values(path, "the active voxels' bounding box", resolution, 1)?;
    let mut data = filled_vec(path, "the densified grid", count, background)?;
    let [nx, ny, _] = resolution.map(|n| n as usize);
    let offset = |c: [i32; 3]| {
        let [x, y, z] = [0, 1, 2].map(|a| (c[a] as i64 - min[a] as i64) as usize);
        (z * ny + y) * nx + x
    };
    let mut active_voxels = 0u64;
    grid.tree().visit_tiles(&mut |tile, value, on, _level| {
        if !on {
            return;
        }
        // Tiles inside the active box (the box includes them); clip for safety.
        let lo = [0, 1, 2].map(|a| tile.min.0[a].max(min[a]));
        let hi = [0, 1, 2].map(|a| tile.max.0[a].min(max[a]));
        if (0..3).any(|a| lo[a] > hi[a]) {
            return;
        }
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                let row = offset([lo[0], y, z]);
                let len = (hi[0] - lo[0]) as usize + 1;
                data[row..row + len].fill(*value);
                active_voxels += len as u64;
            }
        }
    });
    for (coord, value) in grid.tree().active_voxels() {
        let c = coord.0;
        if (0..3).all(|a| (min[a]..=max[a]).contains(&c[a])) {
            data[offset(c)] = value;
            active_voxels += 1;
        }
    }
    let voxel_size = grid.voxel_size().0;
    let grid = VolumeGrid::new(resolution, 1, data).map_err(format)?;
    Ok(VdbVolume { grid, name: descriptor.grid_name.clone(), index_min: min, voxel_size, active_voxels, background })
}
