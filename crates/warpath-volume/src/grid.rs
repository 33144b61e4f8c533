//! Dense voxel grids on the unit cube: `f32` values with 1 channel (density) or 3 (RGB
//! albedo), stored x fastest, then y, then z, channels interleaved (the order of Mitsuba 3's
//! `.vol` files).
//!
//! Conventions (Mitsuba 3 `gridvolume`, pbrt-v4): the grid covers the local unit cube
//! [0,1]³; voxel (i, j, k) holds the value at the centre of its cell, local point
//! ((i + ½)/nx, (j + ½)/ny, (k + ½)/nz); between centres values are interpolated
//! trilinearly, and beyond the outermost centres the edge value holds (clamp to edge). The
//! scene places the cube in the world with the medium's `to_world`.
//!
//! The interpolation is written operation for operation like `grid_lookup` in
//! `crates/warpath-cuda/kernels/volume/medium.cuh` (no fused multiply-adds), so the CPU
//! reference and the GPU read the same values.

use glam::Vec3;

/// A dense grid of `channels` (1 or 3) floats per voxel.
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeGrid {
    /// Voxels along x, y, z (each ≥ 1).
    pub resolution: [u32; 3],
    /// 1 (scalar) or 3 (RGB).
    pub channels: u32,
    /// `resolution[0] × resolution[1] × resolution[2] × channels` values, x fastest.
    pub data: Vec<f32>,
}

/// Where a lookup reads: the lower and upper voxel of each axis and the weight of the upper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrilinearCorners {
    pub lower: [u32; 3],
    pub upper: [u32; 3],
    pub fraction: [f32; 3],
}

/// The two voxels and the weight of the upper one along an axis of `n` voxels, for local
/// coordinate `x` (cell centres at (i + ½)/n, clamp to edge).
#[inline]
pub fn axis_corners(x: f32, n: u32) -> (u32, u32, f32) {
    let position = x * n as f32 - 0.5;
    let floor = position.floor();
    let fraction = position - floor;
    let last = n as i64 - 1;
    // `as i64` saturates, so a non-finite or huge position clamps too.
    let lower = (floor as i64).clamp(0, last) as u32;
    let upper = (floor as i64 + 1).clamp(0, last) as u32;
    (lower, upper, fraction)
}

/// `a + (b − a)·t`: exact when `a == b`, so a constant grid reads back exactly.
#[inline]
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

impl VolumeGrid {
    /// A grid of `resolution` with `channels` (1 or 3) per voxel; `data` must hold exactly
    /// that many values. Errors say what does not fit (the loaders add the file name).
    pub fn new(resolution: [u32; 3], channels: u32, data: Vec<f32>) -> Result<Self, String> {
        if channels != 1 && channels != 3 {
            return Err(format!("{channels} channels per voxel (expected 1 or 3)"));
        }
        if resolution.contains(&0) {
            return Err(format!("a {}×{}×{} grid has no voxels", resolution[0], resolution[1], resolution[2]));
        }
        let expected = Self::value_count(resolution, channels)
            .ok_or_else(|| format!("a {}×{}×{} grid is too large", resolution[0], resolution[1], resolution[2]))?;
        if data.len() as u64 != expected {
            return Err(format!(
                "a {}×{}×{}×{channels} grid needs {expected} values, got {}",
                resolution[0],
                resolution[1],
                resolution[2],
                data.len()
            ));
        }
        Ok(VolumeGrid { resolution, channels, data })
    }

    /// Values a grid of `resolution` × `channels` holds, or `None` past `u64`.
    pub fn value_count(resolution: [u32; 3], channels: u32) -> Option<u64> {
        (resolution[0] as u64)
            .checked_mul(resolution[1] as u64)?
            .checked_mul(resolution[2] as u64)?
            .checked_mul(channels as u64)
    }

    /// A grid whose every voxel holds `value` in every channel.
    pub fn constant(resolution: [u32; 3], channels: u32, value: f32) -> Self {
        let n = Self::value_count(resolution, channels).expect("a constant grid of sensible size") as usize;
        VolumeGrid { resolution, channels, data: vec![value; n] }
    }

    /// A scalar grid with voxel (i, j, k) = `f(i, j, k)`.
    pub fn from_fn(resolution: [u32; 3], mut f: impl FnMut(u32, u32, u32) -> f32) -> Self {
        let mut data = Vec::with_capacity(Self::value_count(resolution, 1).unwrap_or(0) as usize);
        for k in 0..resolution[2] {
            for j in 0..resolution[1] {
                for i in 0..resolution[0] {
                    data.push(f(i, j, k));
                }
            }
        }
        VolumeGrid { resolution, channels: 1, data }
    }

    pub fn voxel_count(&self) -> u64 {
        self.resolution.iter().map(|&n| n as u64).product()
    }

    pub fn memory_bytes(&self) -> u64 {
        self.data.len() as u64 * 4
    }

    /// Index of channel 0 of voxel (i, j, k) in `data`.
    #[inline]
    pub fn offset(&self, i: u32, j: u32, k: u32) -> usize {
        let [nx, ny, _] = self.resolution;
        ((k as usize * ny as usize + j as usize) * nx as usize + i as usize) * self.channels as usize
    }

    #[inline]
    pub fn voxel(&self, i: u32, j: u32, k: u32, channel: u32) -> f32 {
        self.data[self.offset(i, j, k) + channel as usize]
    }

    /// The voxels and weights a lookup at local point `p` interpolates.
    #[inline]
    pub fn corners(&self, p: Vec3) -> TrilinearCorners {
        let (lx, ux, fx) = axis_corners(p.x, self.resolution[0]);
        let (ly, uy, fy) = axis_corners(p.y, self.resolution[1]);
        let (lz, uz, fz) = axis_corners(p.z, self.resolution[2]);
        TrilinearCorners { lower: [lx, ly, lz], upper: [ux, uy, uz], fraction: [fx, fy, fz] }
    }

    /// Channel `channel` at local point `p`, trilinear (x first, then y, then z).
    #[inline]
    pub fn lookup_channel(&self, p: Vec3, channel: u32) -> f32 {
        let c = self.corners(p);
        let v = |i: u32, j: u32, k: u32| self.voxel(i, j, k, channel);
        let ([x0, y0, z0], [x1, y1, z1], [fx, fy, fz]) = (c.lower, c.upper, c.fraction);
        let c00 = lerp(v(x0, y0, z0), v(x1, y0, z0), fx);
        let c10 = lerp(v(x0, y1, z0), v(x1, y1, z0), fx);
        let c01 = lerp(v(x0, y0, z1), v(x1, y0, z1), fx);
        let c11 = lerp(v(x0, y1, z1), v(x1, y1, z1), fx);
        lerp(lerp(c00, c10, fy), lerp(c01, c11, fy), fz)
    }

    /// The scalar value at local point `p` (channel 0).
    #[inline]
    pub fn lookup(&self, p: Vec3) -> f32 {
        self.lookup_channel(p, 0)
    }

    /// The RGB value at local point `p` (a 1-channel grid gives gray).
    #[inline]
    pub fn lookup_rgb(&self, p: Vec3) -> Vec3 {
        if self.channels == 1 {
            Vec3::splat(self.lookup(p))
        } else {
            Vec3::new(self.lookup_channel(p, 0), self.lookup_channel(p, 1), self.lookup_channel(p, 2))
        }
    }

    /// Smallest and largest value over all voxels and channels (`(0, 0)` for no data).
    pub fn range(&self) -> (f32, f32) {
        let mut lo = f32::INFINITY;
        let mut hi = f32::NEG_INFINITY;
        for &v in &self.data {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if self.data.is_empty() { (0.0, 0.0) } else { (lo, hi) }
    }

    /// The first voxel value that is negative or not finite, as (voxel index, value).
    pub fn first_invalid_value(&self) -> Option<(usize, f32)> {
        self.data.iter().position(|v| !v.is_finite() || *v < 0.0).map(|i| (i / self.channels as usize, self.data[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_sit_at_cell_centres_and_clamp_at_edges() {
        let grid = VolumeGrid::from_fn([4, 1, 1], |i, _, _| i as f32);
        // Centre of voxel i is (i + 0.5) / 4.
        for i in 0..4 {
            assert_eq!(grid.lookup(Vec3::new((i as f32 + 0.5) / 4.0, 0.5, 0.5)), i as f32);
        }
        // Halfway between centres 1 and 2.
        assert_eq!(grid.lookup(Vec3::new(0.5, 0.5, 0.5)), 1.5);
        // Beyond the outermost centres: the edge value.
        assert_eq!(grid.lookup(Vec3::new(0.0, 0.5, 0.5)), 0.0);
        assert_eq!(grid.lookup(Vec3::new(1.0, 0.5, 0.5)), 3.0);
        assert_eq!(grid.lookup(Vec3::new(-5.0, 0.5, 0.5)), 0.0);
    }

    #[test]
    fn trilinear_reproduces_linear_functions() {
        // A linear function of the cell centres is reproduced exactly between them.
        let n = [5, 6, 7];
        let f = |x: f32, y: f32, z: f32| 1.0 + 2.0 * x - 3.0 * y + 0.5 * z;
        let centre = |i: u32, k: usize| (i as f32 + 0.5) / n[k] as f32;
        let grid = VolumeGrid::from_fn(n, |i, j, k| f(centre(i, 0), centre(j, 1), centre(k, 2)));
        let mut rng = 0x1234_5678u32;
        let mut next = || {
            rng = rng.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (rng >> 8) as f32 / (1u32 << 24) as f32
        };
        for _ in 0..1000 {
            // Inside the centres' hull: [0.5/n, 1 − 0.5/n].
            let p = Vec3::new(
                0.1 + 0.8 * next() * (1.0 - 1.0 / 5.0),
                0.1 + 0.8 * next() * (1.0 - 1.0 / 6.0),
                0.1 + 0.8 * next() * (1.0 - 1.0 / 7.0),
            );
            let expected = f(p.x, p.y, p.z);
            assert!((grid.lookup(p) - expected).abs() < 1e-4, "at {p}: {} vs {expected}", grid.lookup(p));
        }
    }

    #[test]
    fn constant_grids_read_back_exactly() {
        let grid = VolumeGrid::constant([3, 4, 5], 1, 100.0);
        for p in [Vec3::ZERO, Vec3::splat(0.37), Vec3::new(0.99, 0.01, 0.5), Vec3::ONE] {
            assert_eq!(grid.lookup(p), 100.0);
        }
    }

    #[test]
    fn rgb_channels_are_interleaved() {
        let data: Vec<f32> = (0..2 * 3).map(|v| v as f32).collect();
        let grid = VolumeGrid::new([2, 1, 1], 3, data).unwrap();
        assert_eq!(grid.lookup_rgb(Vec3::new(0.25, 0.5, 0.5)), Vec3::new(0.0, 1.0, 2.0));
        assert_eq!(grid.lookup_rgb(Vec3::new(0.75, 0.5, 0.5)), Vec3::new(3.0, 4.0, 5.0));
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(VolumeGrid::new([2, 2, 2], 2, vec![0.0; 16]).is_err());
        assert!(VolumeGrid::new([2, 0, 2], 1, vec![]).is_err());
        assert!(VolumeGrid::new([2, 2, 2], 1, vec![0.0; 7]).unwrap_err().contains("needs 8 values, got 7"));
    }
}
