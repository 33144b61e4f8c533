//! warpath-volume: volume data, a domain of its own beside `warpath-bvh`, read by both
//! backends (docs/architecture.md, the data-flow diagram; formats and loaders in
//! docs/volumes.md).
//!
//! - [`grid`]: dense grids of `f32` (1 channel: density; 3: RGB albedo) on the unit cube,
//!   values at cell centres, trilinear interpolation with clamp-to-edge (the convention of
//!   Mitsuba 3's `gridvolume` and pbrt-v4);
//! - [`majorant`]: the coarse grid of maximum densities that free-flight sampling steps
//!   through (delta and ratio tracking), and the ray walk over its cells;
//! - [`load`]: opening a volume file by its extension (`.vol`, NIfTI, OpenVDB, raw);
//! - [`nifti`]: NIfTI-1 scans (`.nii`, `.nii.gz`) with their voxel spacing; [`raw`]: headerless
//!   scalar files; [`vdb`]: OpenVDB float grids, densified over their active box;
//! - [`limits`]: the size guards every loader applies before it allocates;
//! - [`procedural`]: pbrt-v4's `cloud` density and constant grids, baked into grids;
//! - [`print`]: seed 003's 3D-print albedo volumes (an image printed into the top face);
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
pub mod limits;
pub mod load;
pub mod majorant;
pub mod medium;
pub mod nifti;
pub mod phase;
pub mod print;
pub mod procedural;
pub mod random;
pub mod raw;
pub mod transfer;
pub mod vdb;
pub mod vol;

pub use error::VolumeError;
pub use grid::VolumeGrid;
pub use load::{LoadedVolume, RawLayout, RawSample, load_grid, load_volume};
pub use majorant::MajorantGrid;
pub use medium::{Medium, MediumAlbedo, MediumDensity};
pub use nifti::{NiftiVolume, read_nifti};
pub use print::{PrintImage, print_albedo};
pub use procedural::{CloudParams, cloud_grid, constant_grid};
pub use transfer::{TransferFunction, TransferPoint};
pub use vdb::{VdbVolume, read_vdb};
