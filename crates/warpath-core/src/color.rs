//! Linear RGB color helpers. Colors are `Vec3` in linear Rec.709 primaries.

use glam::Vec3;

/// Relative luminance of a linear Rec.709 color.
pub fn luminance(c: Vec3) -> f32 {
    0.212671 * c.x + 0.715160 * c.y + 0.072169 * c.z
}

/// sRGB transfer function (linear -> display), for PNG output.
pub fn linear_to_srgb(x: f32) -> f32 {
    if x <= 0.0031308 { 12.92 * x.max(0.0) } else { 1.055 * x.powf(1.0 / 2.4) - 0.055 }
}

/// Inverse of [`linear_to_srgb`], for 8-bit textures.
pub fn srgb_to_linear(x: f32) -> f32 {
    if x <= 0.04045 { x / 12.92 } else { ((x + 0.055) / 1.055).powf(2.4) }
}
