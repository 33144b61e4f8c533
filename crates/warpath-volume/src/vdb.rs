//! OpenVDB (`.vdb`) files: recognised, and refused with the reason.
//!
//! The one Rust reader, `vdb-rs` 0.6.0, reads the float grids that Debian's OpenVDB 10.0.1
//! (`python3-openvdb`) writes (Blosc-compressed, active-mask) correctly, but it cannot be
//! given a file a user can get wrong: on truncated or bit-flipped copies of such a file it
//! panics (`assert_eq!`, index out of bounds, `todo!`) and allocates sizes read from the
//! file unchecked, which aborts the process ("memory allocation of 9187342140324184278
//! bytes failed"); it also panics on grids saved as half floats. docs/volumes.md has the
//! measurements. Until a reader that returns errors exists, `.vdb` is an error that says
//! so, and `scripts/vdb-to-vol.py` converts a float grid to Mitsuba's `.vol` with
//! OpenVDB's own Python module.

use crate::error::VolumeError;
use crate::grid::VolumeGrid;
use std::io::Read;
use std::path::Path;

/// The first eight bytes of every OpenVDB file: the magic number 0x56444220 (" BDV"), little
/// endian, in a 64-bit field.
const MAGIC: [u8; 8] = [0x20, 0x42, 0x44, 0x56, 0, 0, 0, 0];

/// Why `.vdb` files are refused (the reason the error gives).
pub const UNSUPPORTED: &str = "OpenVDB files are not supported: the only Rust reader (vdb-rs 0.6.0) panics or aborts \
     the process on damaged files and on half-float grids; convert the float grid to .vol with \
     scripts/vdb-to-vol.py (needs Debian's python3-openvdb), see docs/volumes.md";

/// Checks that `path` is an OpenVDB file and returns the error that says it is not supported.
pub fn read_vdb(path: &Path) -> Result<VolumeGrid, VolumeError> {
    let mut head = [0u8; 8];
    let mut file = std::fs::File::open(path).map_err(|e| VolumeError::io(path, e))?;
    let n = file.read(&mut head).map_err(|e| VolumeError::io(path, e))?;
    if n < 8 || head != MAGIC {
        return Err(VolumeError::format(path, "not an OpenVDB file (no ' BDV' magic number)"));
    }
    Err(VolumeError::format(path, UNSUPPORTED))
}
