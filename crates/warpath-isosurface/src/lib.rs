//! warpath-isosurface: isosurfaces of scalar volumes (issue 14, seed 001), the parts that do
//! not depend on a backend.
//!
//! * [`lattice`]: the volume as a lattice of samples and its cells, the space every routine
//!   here works in;
//! * [`cell`]: the exact intersection of a ray with the trilinear interpolant inside one
//!   cell (a cubic in t, split at its extrema, each monotonic piece refined), and the
//!   interpolant's gradient (the shading normal);
//! * [`bricks`]: the min-max sub-volume (bricks of B³ cells with the min and max of the
//!   samples they read) and its BVH (balanced, the largest dimension split), updated per
//!   isovalue by seed 001's condensation (a node with one valid child becomes that child);
//! * [`caster`]: the CPU ray casters: the reference (a 3D DDA through every cell, no BVH),
//!   the spec every accelerated caster is checked against hit for hit, and the BVH caster
//!   (near child first, the DDA inside valid bricks only);
//! * [`render`]: images: an orbiting pinhole camera, the first hit per pixel, Blinn–Phong
//!   shading under a head light (the CPU reference of the GPU's render kernel);
//! * [`fields`]: procedural test volumes (Marschner–Lobb, spheres);
//! * [`shape`]: an isosurface placed in a scene (world ↔ lattice map, outward normals), the
//!   shape the path tracer intersects.
//!
//! Data flows one way: a `warpath_volume::VolumeGrid` becomes a [`lattice::Lattice`], its
//! [`bricks::BrickBvh`] is built once, [`bricks::BrickBvh::condense`] makes the tree of one
//! isovalue, and the casters turn rays into [`caster::IsoHit`]s.

pub mod bricks;
pub mod caster;
pub mod cell;
pub mod fields;
pub mod lattice;
pub mod render;
pub mod shape;

pub use bricks::{BrickBvh, CondensedTree, DEFAULT_BRICK_CELLS};
pub use caster::{IsoHit, cast_bvh, cast_reference};
pub use lattice::{Lattice, LatticeError};
pub use shape::{PlacedIsosurface, ShapeHit};
