//! warpath-core: the math every backend shares.
//!
//! Vectors and rays (`math`), colors, the sampler that makes random numbers a pure
//! function of (pixel, sample, bounce, dimension) (`sampler`), warping functions
//! (`warp`), discrete and 2D distributions (`distribution`), the thin-lens camera
//! (`camera`), materials and their BSDFs (`material`, `bsdf`, `opacity`), lights (`light`), the
//! accumulation film (`film`), what the path tracers count (`counters`) and the size guards every loader calls before it allocates
//! what a file claims (`limits`). Everything the GPU will read is `#[repr(C)]` + `Pod`.
//! `detmath` holds the transcendental functions the estimators call, written so that the
//! CPU and the GPU compute them bit for bit alike.

pub mod bsdf;
pub mod bump_map;
pub mod camera;
pub mod color;
pub mod counters;
pub mod detmath;
pub mod distribution;
pub mod film;
pub mod light;
pub mod limits;
pub mod material;
pub mod math;
pub mod normal_map;
pub mod opacity;
pub mod restir;
pub mod sampler;
pub mod warp;

pub use glam::{Mat3, Mat4, UVec2, Vec2, Vec3, Vec4};
