//! The volume as a lattice: sample (i, j, k) sits at the lattice point (i, j, k), and the
//! isosurface is the level set of the trilinear interpolant between samples, over the box
//! [0, nx−1] × [0, ny−1] × [0, nz−1]. Cell (i, j, k) is the unit box with corner samples
//! i..=i+1, j..=j+1, k..=k+1 (there are (n−1) cells per axis).
//!
//! This is the point-data convention of VTK/ParaView contouring. warpath's media read the
//! same samples as values at cell centres of the unit cube (`warpath_volume::grid`); lattice
//! point x maps to local point (x + ½)/n, so the isosurface lies inside the medium's box,
//! half a voxel in from its faces, where the two conventions interpolate identically.

use warpath_volume::VolumeGrid;

/// Why a grid cannot be a lattice.
#[derive(Debug, Clone, PartialEq)]
pub enum LatticeError {
    /// Fewer than 2 samples along an axis: no cell.
    TooSmall { resolution: [u32; 3] },
    /// A grid of several channels (isosurfaces are of scalar fields).
    NotScalar { channels: u32 },
    /// A NaN or infinite sample.
    NonFinite { index: [u32; 3], value: f32 },
}

impl std::fmt::Display for LatticeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LatticeError::TooSmall { resolution: [x, y, z] } => {
                write!(f, "a {x}×{y}×{z} volume has no cell: an isosurface needs at least 2 samples along each axis")
            }
            LatticeError::NotScalar { channels } => {
                write!(f, "a volume of {channels} channels: isosurfaces are of scalar (1-channel) volumes")
            }
            LatticeError::NonFinite { index: [i, j, k], value } => {
                write!(f, "sample ({i}, {j}, {k}) is {value}: every sample must be finite")
            }
        }
    }
}

impl std::error::Error for LatticeError {}

/// A scalar volume's samples as a lattice.
#[derive(Clone, Debug)]
pub struct Lattice {
    /// Samples along x, y, z (each ≥ 2).
    pub samples: [u32; 3],
    /// x fastest, then y, then z.
    pub values: Vec<f32>,
}

impl Lattice {
    /// The lattice of a 1-channel grid; errors name the problem (too small, several
    /// channels, a non-finite sample and where).
    pub fn from_grid(grid: &VolumeGrid) -> Result<Self, LatticeError> {
        if grid.channels != 1 {
            return Err(LatticeError::NotScalar { channels: grid.channels });
        }
        Self::new(grid.resolution, grid.data.clone())
    }

    /// A lattice of `samples` values (x fastest); `values.len()` must be their product.
    pub fn new(samples: [u32; 3], values: Vec<f32>) -> Result<Self, LatticeError> {
        if samples.iter().any(|&n| n < 2) {
            return Err(LatticeError::TooSmall { resolution: samples });
        }
        assert_eq!(values.len() as u64, samples.iter().map(|&n| n as u64).product::<u64>(), "sample count");
        if let Some(at) = values.iter().position(|v| !v.is_finite()) {
            let (nx, ny) = (samples[0] as usize, samples[1] as usize);
            let index = [(at % nx) as u32, ((at / nx) % ny) as u32, (at / (nx * ny)) as u32];
            return Err(LatticeError::NonFinite { index, value: values[at] });
        }
        Ok(Lattice { samples, values })
    }

    /// A lattice from a function of the sample index.
    pub fn from_fn(samples: [u32; 3], mut f: impl FnMut(u32, u32, u32) -> f32) -> Result<Self, LatticeError> {
        let mut values = Vec::with_capacity(samples.iter().map(|&n| n as usize).product());
        for k in 0..samples[2] {
            for j in 0..samples[1] {
                for i in 0..samples[0] {
                    values.push(f(i, j, k));
                }
            }
        }
        Self::new(samples, values)
    }

    /// The same field on `samples` lattice points spanning the same box (trilinear: point i
    /// of n maps to i·(m − 1)/(n − 1) of the m original samples), as seed 001 brought its
    /// data sets to 256³ and 512³.
    pub fn resample(&self, samples: [u32; 3]) -> Result<Self, LatticeError> {
        if samples.iter().any(|&n| n < 2) {
            return Err(LatticeError::TooSmall { resolution: samples });
        }
        let axis = |a: usize, i: u32| -> (u32, f64) {
            let x = i as f64 * (self.samples[a] - 1) as f64 / (samples[a] - 1) as f64;
            let cell = (x.floor() as u32).min(self.samples[a] - 2);
            (cell, x - cell as f64)
        };
        Self::from_fn(samples, |i, j, k| {
            let ((ci, fx), (cj, fy), (ck, fz)) = (axis(0, i), axis(1, j), axis(2, k));
            crate::cell::interpolate(&self.cell_corners([ci, cj, ck]), [fx, fy, fz]) as f32
        })
    }

    /// Cells along each axis (samples − 1).
    pub fn cells(&self) -> [u32; 3] {
        self.samples.map(|n| n - 1)
    }

    /// The lattice box's upper corner (its lower one is the origin).
    pub fn upper(&self) -> [f64; 3] {
        self.samples.map(|n| (n - 1) as f64)
    }

    pub fn sample(&self, i: u32, j: u32, k: u32) -> f32 {
        let [nx, ny, _] = self.samples.map(|n| n as usize);
        self.values[(k as usize * ny + j as usize) * nx + i as usize]
    }

    /// The eight corner samples of cell (i, j, k), indexed `x + 2y + 4z` by corner offset.
    pub fn cell_corners(&self, cell: [u32; 3]) -> [f32; 8] {
        let [i, j, k] = cell;
        std::array::from_fn(|c| self.sample(i + (c & 1) as u32, j + ((c >> 1) & 1) as u32, k + ((c >> 2) & 1) as u32))
    }

    /// The smallest and largest sample.
    pub fn range(&self) -> (f32, f32) {
        self.values.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resampling_keeps_the_corners_and_a_linear_field_exactly() {
        let lattice = Lattice::from_fn([5, 7, 4], |i, j, k| 2.0 * i as f32 - j as f32 + 0.5 * k as f32).unwrap();
        let finer = lattice.resample([9, 13, 7]).unwrap();
        for (i, j, k) in [(0, 0, 0), (8, 12, 6), (4, 6, 3), (3, 5, 2)] {
            let x = [i as f32 * 4.0 / 8.0, j as f32 * 6.0 / 12.0, k as f32 * 3.0 / 6.0];
            let expected = 2.0 * x[0] - x[1] + 0.5 * x[2];
            assert!((finer.sample(i, j, k) - expected).abs() < 1e-5, "({i},{j},{k})");
        }
        assert_eq!(lattice.resample([1, 4, 4]).unwrap_err(), LatticeError::TooSmall { resolution: [1, 4, 4] });
    }

    #[test]
    fn bad_volumes_are_named_errors() {
        assert_eq!(
            Lattice::new([1, 4, 4], vec![0.0; 16]).unwrap_err(),
            LatticeError::TooSmall { resolution: [1, 4, 4] }
        );
        let mut values = vec![0.0; 8];
        values[5] = f32::NAN;
        let error = Lattice::new([2, 2, 2], values).unwrap_err();
        assert!(matches!(error, LatticeError::NonFinite { index: [1, 0, 1], .. }), "{error:?}");
        assert!(error.to_string().contains("(1, 0, 1)"));
        let rgb = VolumeGrid::constant([2, 2, 2], 3, 1.0);
        assert_eq!(Lattice::from_grid(&rgb).unwrap_err(), LatticeError::NotScalar { channels: 3 });
    }

    #[test]
    fn corners_are_indexed_by_offset() {
        let lattice = Lattice::from_fn([3, 3, 3], |i, j, k| (i + 10 * j + 100 * k) as f32).unwrap();
        let c = lattice.cell_corners([1, 0, 1]);
        assert_eq!(c, [101.0, 102.0, 111.0, 112.0, 201.0, 202.0, 211.0, 212.0]);
        assert_eq!(lattice.cells(), [2, 2, 2]);
        assert_eq!(lattice.range(), (0.0, 222.0));
    }
}
