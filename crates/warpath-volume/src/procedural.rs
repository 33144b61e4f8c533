//! Procedural volumes baked into grids: pbrt-v4's `cloud` medium density and constant grids.
//!
//! **Cloud** (pbrt-v4 `CloudMedium`, density only): at a point p of the unit cube, with
//! y up, the lookup point q = `frequency`·p is first pushed around by the gradient of noise
//! ("wispiness": two steps q += ω·∇N(λq), ω = 0.05·wispiness then halved, λ = 10 then ×1.99),
//! then five octaves of fractional Brownian motion d = Σ ωᵢ N(λᵢ q) with ω = ½, ¼, … and
//! λ = 1, 1.99, 1.99², …; the density falls with height: d ← clamp((1 − p.y)·4.5·density·d,
//! 0, 1) + 2·max(0, ½ − p.y), clamped to [0, 1] (so the lower half fills up toward the
//! floor). N is Perlin's improved gradient noise (2002): the 256-entry reference
//! permutation, twelve edge gradients picked by the hash's low four bits, and the quintic
//! fade 6t⁵ − 15t⁴ + 10t³; ∇N is a forward difference with step 0.01. pbrt's defaults:
//! density 1, wispiness 1, frequency 5. The grid stores the value at each cell centre;
//! everything is `f32` and in a fixed order, so a bake is the same on every machine.
//!
//! **Constant** grids: seed 003's 3D-print scenes use a density of 100 everywhere.

use crate::grid::VolumeGrid;
use glam::Vec3;
use rayon::prelude::*;

/// Ken Perlin's reference permutation of 0..=255 (from "Improving Noise", 2002).
const PERMUTATION: [u8; 256] = [
    151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225, 140, 36, 103, 30, 69, 142, 8, 99, 37, 240,
    21, 10, 23, 190, 6, 148, 247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32, 57, 177, 33, 88,
    237, 149, 56, 87, 174, 20, 125, 136, 171, 168, 68, 175, 74, 165, 71, 134, 139, 48, 27, 166, 77, 146, 158, 231, 83,
    111, 229, 122, 60, 211, 133, 230, 220, 105, 92, 41, 55, 46, 245, 40, 244, 102, 143, 54, 65, 25, 63, 161, 1, 216,
    80, 73, 209, 76, 132, 187, 208, 89, 18, 169, 200, 196, 135, 130, 116, 188, 159, 86, 164, 100, 109, 198, 173, 186,
    3, 64, 52, 217, 226, 250, 124, 123, 5, 202, 38, 147, 118, 126, 255, 82, 85, 212, 207, 206, 59, 227, 47, 16, 58, 17,
    182, 189, 28, 42, 223, 183, 170, 213, 119, 248, 152, 2, 44, 154, 163, 70, 221, 153, 101, 155, 167, 43, 172, 9, 129,
    22, 39, 253, 19, 98, 108, 110, 79, 113, 224, 232, 178, 185, 112, 104, 218, 246, 97, 228, 251, 34, 242, 193, 238,
    210, 144, 12, 191, 179, 162, 241, 81, 51, 145, 235, 249, 14, 239, 107, 49, 192, 214, 31, 181, 199, 106, 157, 184,
    84, 204, 176, 115, 121, 50, 45, 127, 4, 150, 254, 138, 236, 205, 93, 222, 114, 67, 29, 24, 72, 243, 141, 128, 195,
    78, 66, 215, 61, 156, 180,
];

/// The permutation applied to a lattice coordinate (wrapping at 256).
#[inline]
fn perm(i: i32) -> i32 {
    PERMUTATION[(i & 255) as usize] as i32
}

/// The dot product of the lattice corner's gradient with the offset (dx, dy, dz): the
/// gradient is one of the cube's twelve edge directions (with four repeated), chosen by
/// the low four bits of the corner's hash.
#[inline]
fn gradient_dot(hash: i32, dx: f32, dy: f32, dz: f32) -> f32 {
    let h = hash & 15;
    let u = if h < 8 || h == 12 || h == 13 { dx } else { dy };
    let v = if h < 4 || h == 12 || h == 13 { dy } else { dz };
    (if h & 1 == 0 { u } else { -u }) + (if h & 2 == 0 { v } else { -v })
}

/// Perlin's quintic fade curve 6t⁵ − 15t⁴ + 10t³.
#[inline]
fn fade(t: f32) -> f32 {
    let t3 = t * t * t;
    t3 * (t * (t * 6.0 - 15.0) + 10.0)
}

#[inline]
fn mix(t: f32, a: f32, b: f32) -> f32 {
    a + (b - a) * t
}

/// Perlin's improved gradient noise at `p`: 0 at every lattice point, within about ±1,
/// periodic with period 256 along each axis.
pub fn perlin_noise(p: Vec3) -> f32 {
    // Keep the lattice coordinate within i32 for any input.
    let wrap = |x: f32| if x.is_finite() { x % (1u32 << 30) as f32 } else { 0.0 };
    let (x, y, z) = (wrap(p.x), wrap(p.y), wrap(p.z));
    let (fx, fy, fz) = (x.floor(), y.floor(), z.floor());
    let (dx, dy, dz) = (x - fx, y - fy, z - fz);
    let (ix, iy, iz) = (fx as i32, fy as i32, fz as i32);
    // Hash of corner (ix + a, iy + b, iz + c).
    let hash = |a: i32, b: i32, c: i32| perm(perm(perm(ix + a) + iy + b) + iz + c);
    let corner = |a: i32, b: i32, c: i32| gradient_dot(hash(a, b, c), dx - a as f32, dy - b as f32, dz - c as f32);
    let (wx, wy, wz) = (fade(dx), fade(dy), fade(dz));
    let x00 = mix(wx, corner(0, 0, 0), corner(1, 0, 0));
    let x10 = mix(wx, corner(0, 1, 0), corner(1, 1, 0));
    let x01 = mix(wx, corner(0, 0, 1), corner(1, 0, 1));
    let x11 = mix(wx, corner(0, 1, 1), corner(1, 1, 1));
    mix(wz, mix(wy, x00, x10), mix(wy, x01, x11))
}

/// The gradient of [`perlin_noise`] by forward differences of step 0.01.
pub fn perlin_gradient(p: Vec3) -> Vec3 {
    const STEP: f32 = 0.01;
    let n = perlin_noise(p);
    Vec3::new(
        perlin_noise(p + Vec3::new(STEP, 0.0, 0.0)) - n,
        perlin_noise(p + Vec3::new(0.0, STEP, 0.0)) - n,
        perlin_noise(p + Vec3::new(0.0, 0.0, STEP)) - n,
    ) / STEP
}

/// The parameters of pbrt-v4's `cloud` medium that shape its density.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CloudParams {
    /// Scales the noise before the clamp (pbrt's `density`, default 1).
    pub density: f32,
    /// Strength of the domain distortion (default 1; 0 turns it off).
    pub wispiness: f32,
    /// Noise frequency over the unit cube (default 5).
    pub frequency: f32,
    /// Fade the density out toward an ellipsoid inscribed in the cube (a single cumulus
    /// instead of pbrt's cloud layer, whose sides would show the cube; default off).
    pub rounded: bool,
}

impl Default for CloudParams {
    fn default() -> Self {
        CloudParams { density: 1.0, wispiness: 1.0, frequency: 5.0, rounded: false }
    }
}

impl CloudParams {
    /// The cloud's density in [0, 1] at point `p` of the unit cube (y up).
    pub fn density_at(&self, p: Vec3) -> f32 {
        let mut q = self.frequency * p;
        if self.wispiness > 0.0 {
            let (mut omega, mut lambda) = (0.05 * self.wispiness, 10.0f32);
            for _ in 0..2 {
                q += omega * perlin_gradient(lambda * q);
                omega *= 0.5;
                lambda *= 1.99;
            }
        }
        let mut d = 0.0f32;
        let (mut omega, mut lambda) = (0.5f32, 1.0f32);
        for _ in 0..5 {
            d += omega * perlin_noise(lambda * q);
            omega *= 0.5;
            lambda *= 1.99;
        }
        let d = ((1.0 - p.y) * 4.5 * self.density * d).clamp(0.0, 1.0);
        let d = (d + 2.0 * (0.5 - p.y).max(0.0)).clamp(0.0, 1.0);
        if !self.rounded {
            return d;
        }
        // 1 inside 55% of the inscribed ellipsoid's radius, 0 outside it, smooth between.
        let r = ((p - Vec3::splat(0.5)) * 2.0).length();
        let t = ((r - 0.55) / 0.45).clamp(0.0, 1.0);
        d * (1.0 - t * t * (3.0 - 2.0 * t))
    }

    fn check(&self) -> Result<(), String> {
        for (name, v) in [("density", self.density), ("wispiness", self.wispiness), ("frequency", self.frequency)] {
            if !v.is_finite() || v < 0.0 {
                return Err(format!("cloud {name} {v} must be finite and not negative"));
            }
        }
        Ok(())
    }
}

/// Checks a generated grid's resolution with the loaders' guard ([`crate::limits::check_grid`]).
fn check_resolution(what: &str, resolution: [u32; 3], channels: u32) -> Result<(), String> {
    crate::limits::check_grid(what, resolution, channels).map(drop)
}

/// pbrt-v4's cloud density baked at the cell centres of a `resolution` grid over the unit
/// cube (values in [0, 1]; scale them with the medium's `scale`). Deterministic.
pub fn cloud_grid(resolution: [u32; 3], params: &CloudParams) -> Result<VolumeGrid, String> {
    check_resolution("the procedural cloud", resolution, 1)?;
    params.check()?;
    let [nx, ny, nz] = resolution;
    let mut data = vec![0.0f32; nx as usize * ny as usize * nz as usize];
    // Each voxel is a pure function of its centre: slices bake in parallel, bit for bit
    // the same as in order.
    data.par_chunks_mut(nx as usize * ny as usize).enumerate().for_each(|(k, slice)| {
        let z = (k as f32 + 0.5) / nz as f32;
        for (n, value) in slice.iter_mut().enumerate() {
            let (i, j) = (n % nx as usize, n / nx as usize);
            *value = params.density_at(Vec3::new((i as f32 + 0.5) / nx as f32, (j as f32 + 0.5) / ny as f32, z));
        }
    });
    VolumeGrid::new(resolution, 1, data)
}

/// A grid of `channels` (1 or 3) whose every value is `value` (finite, ≥ 0): seed 003's
/// 3D-print density is `constant_grid([100, 100, 100], 1, 100.0)`.
pub fn constant_grid(resolution: [u32; 3], channels: u32, value: f32) -> Result<VolumeGrid, String> {
    if channels != 1 && channels != 3 {
        return Err(format!("{channels} channels per voxel (expected 1 or 3)"));
    }
    check_resolution("the constant grid", resolution, channels)?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("constant value {value} must be finite and not negative"));
    }
    Ok(VolumeGrid::constant(resolution, channels, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_vanishes_on_the_lattice_and_stays_bounded() {
        for (x, y, z) in [(0, 0, 0), (3, 7, 1), (-5, 12, 255), (256, -1, 9)] {
            assert_eq!(perlin_noise(Vec3::new(x as f32, y as f32, z as f32)), 0.0);
        }
        let mut state = 7u32;
        let mut next = || {
            state = state.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            (state >> 8) as f32 / (1u32 << 24) as f32
        };
        let (mut lo, mut hi) = (f32::MAX, f32::MIN);
        for _ in 0..20_000 {
            let p = Vec3::new(next(), next(), next()) * 40.0 - 20.0;
            let n = perlin_noise(p);
            lo = lo.min(n);
            hi = hi.max(n);
            // Periodic with period 256.
            assert!((perlin_noise(p + Vec3::new(256.0, 0.0, -256.0)) - n).abs() < 1e-4);
        }
        assert!(lo > -1.1 && hi < 1.1, "range [{lo}, {hi}]");
        assert!(lo < -0.5 && hi > 0.5, "noise should vary: range [{lo}, {hi}]");
    }

    #[test]
    fn noise_is_continuous() {
        let p = Vec3::new(1.3, 2.7, -0.4);
        for d in [Vec3::X, Vec3::Y, Vec3::Z] {
            assert!((perlin_noise(p + 1e-4 * d) - perlin_noise(p)).abs() < 1e-3);
        }
        // Across a lattice plane too.
        let a = perlin_noise(Vec3::new(2.0 - 1e-5, 0.3, 0.6));
        let b = perlin_noise(Vec3::new(2.0 + 1e-5, 0.3, 0.6));
        assert!((a - b).abs() < 1e-3);
    }

    #[test]
    fn constant_grid_checks_its_inputs() {
        let g = constant_grid([100, 100, 100], 1, 100.0).unwrap();
        assert_eq!(g.data.len(), 1_000_000);
        assert_eq!(g.range(), (100.0, 100.0));
        assert!(constant_grid([2, 2, 2], 2, 1.0).is_err());
        assert!(constant_grid([0, 2, 2], 1, 1.0).is_err());
        assert!(constant_grid([2, 2, 2], 1, -1.0).is_err());
        assert!(constant_grid([100_000, 100_000, 100_000], 1, 1.0).unwrap_err().contains("limit"));
    }
}
