//! warpath-testkit: support code for warpath's tests, kept out of the product crates.
//! Only `[dev-dependencies]` name it; nothing that ships depends on it.
//!
//! - [`chi2`]: the χ² goodness-of-fit harness for direction samplers (BSDFs, lights,
//!   environment maps, phase functions) and the small PCG32 generator [`chi2::Rng`] the
//!   sampling tests draw from.
//! - [`scenes`]: the TOML test scenes several test files share, one file each under this
//!   crate's `scenes/` folder, found by name ([`scene_path`], [`scene_text`]).

pub mod chi2;
pub mod scenes;

pub use scenes::{scene_path, scene_text, scenes_dir};
