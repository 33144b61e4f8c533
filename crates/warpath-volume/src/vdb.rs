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
