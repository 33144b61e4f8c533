//! warpath-volume: volume data, a domain of its own beside `warpath-bvh`, read by both
//! backends (DESIGN.md "Volumes").
//!
//! - [`grid`]: dense grids of `f32` (1 channel: density; 3: RGB albedo) on the unit cube,
//!   values at cell centres, trilinear interpolation with clamp-to-edge (the convention of
//!   Mitsuba 3's `gridvolume` and pbrt-v4);
//! - [`majorant`]: the coarse grid of maximum densities that free-flight sampling steps
//!   through (delta and ratio tracking), and the ray walk over its cells;
//! - [`load`]: opening a volume file by its extension (`.vol`, NIfTI, OpenVDB, raw);
//! - [`transfer`]: piecewise-linear transfer functions from a scan's values to density and
//!   albedo (seed 003's gray → red → blue);
//! - [`vol`]: Mitsuba 3's binary `.vol` files (read and write), so that the same data
//!   renders in both renderers;
//! - [`medium`]: a participating medium as a scene holds it: homogeneous or grid density,
//!   albedo, Henyey–Greenstein anisotropy, placement (`to_world`);
//! - [`phase`]: the Henyey–Greenstein phase function, evaluated and sampled;
//! - [`random`]: the counter-based random numbers of the tracking loops, a pure function of
//!   (pixel, sample, bounce, stream, counter) like the rest of warpath's sampling.

pub mod error;
pub mod grid;
pub mod load;
pub mod majorant;
pub mod medium;
pub mod phase;
pub mod random;
pub mod transfer;
pub mod vol;

pub use error::VolumeError;
pub use grid::VolumeGrid;
pub use load::{RawLayout, RawSample, load_grid};
pub use majorant::MajorantGrid;
pub use medium::{Medium, MediumAlbedo, MediumDensity};
pub use transfer::{TransferFunction, TransferPoint};
