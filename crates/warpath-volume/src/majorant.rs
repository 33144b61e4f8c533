//! Majorant grids: the maximum density over coarse cells of a density grid (pbrt-v4's
//! majorant grid; seed 003 samples against one global maximum), and the walk of a ray through
//! their cells that delta and ratio tracking step along.
//!
//! The majorant grid divides the local unit cube into `resolution` equal cells; cell c holds
//! the largest voxel value that a trilinear lookup anywhere in the cell can read (the voxels
//! whose centres lie in or next to it, one voxel of apron more for round-off), so
//! `density(p) ≤ majorant(cell of p)` everywhere. A 1×1×1 grid is one global majorant.
//!
//! [`MajorantWalk`] visits the cells a ray segment crosses in order (a 3D DDA in local
//! coordinates, parametrised by the world-space distance `t`, so the segment's `t` and the
//! medium's densities per world unit stay as they are). It is written operation for
//! operation like `kernels/volume/medium.cuh`.

use crate::grid::VolumeGrid;
use glam::Vec3;

/// Voxels per majorant cell along each axis by default. pbrt-v4 uses 16³ cells over a
/// medium (16 voxels a cell for a 256³ grid); issue 11 suggests 16. Measured on the H100
/// (docs/benchmarks/volumes.md): 8 voxels take fewer density lookups per path than 16
/// (MRI 44 vs 56, cloud 8 vs 11; one global majorant: 147 and 45) and are as fast or faster
/// (4 and 2 save lookups but lose more to stepping through cells on the cloud).
pub const DEFAULT_VOXELS_PER_CELL: u32 = 8;

/// The maximum of a scalar grid over coarse cells, times the medium's density scale.
#[derive(Clone, Debug, PartialEq)]
pub struct MajorantGrid {
    pub resolution: [u32; 3],
    /// One value per cell, x fastest.
    pub values: Vec<f32>,
}

impl MajorantGrid {
    /// A single cell holding `value` (one global majorant, or a homogeneous medium).
    pub fn global(value: f32) -> Self {
        MajorantGrid { resolution: [1, 1, 1], values: vec![value] }
    }

    /// Cells of `voxels_per_cell` voxels along each axis (0: one global cell), each holding
    /// `scale ×` the largest voxel that can influence it.
    pub fn build(grid: &VolumeGrid, voxels_per_cell: u32, scale: f32) -> Self {
        let resolution =
            if voxels_per_cell == 0 { [1, 1, 1] } else { grid.resolution.map(|n| n.div_ceil(voxels_per_cell).max(1)) };
        // Voxel range of each cell along each axis.
        let ranges: [Vec<(u32, u32)>; 3] = std::array::from_fn(|axis| {
            (0..resolution[axis]).map(|c| voxel_range(c, resolution[axis], grid.resolution[axis])).collect()
        });
        // Per-axis running maxima would be faster; the straightforward loop is clear and
        // runs once per medium (a 512³ grid in well under a second).
        let mut values = Vec::with_capacity(resolution.iter().map(|&n| n as usize).product());
        for &(z0, z1) in &ranges[2] {
            for &(y0, y1) in &ranges[1] {
                for &(x0, x1) in &ranges[0] {
                    let mut max = 0.0f32;
                    for k in z0..=z1 {
                        for j in y0..=y1 {
                            let row = grid.offset(x0, j, k);
                            let end = grid.offset(x1, j, k);
                            for v in &grid.data[row..=end] {
                                max = max.max(*v);
                            }
                        }
                    }
                    values.push(max * scale);
                }
            }
        }
        MajorantGrid { resolution, values }
    }

    #[inline]
    pub fn value(&self, cell: [u32; 3]) -> f32 {
        let [nx, ny, _] = self.resolution;
        self.values[((cell[2] * ny + cell[1]) * nx + cell[0]) as usize]
    }

    pub fn max(&self) -> f32 {
        self.values.iter().copied().fold(0.0, f32::max)
    }

    pub fn cell_count(&self) -> usize {
        self.values.len()
    }
}

/// The voxels along an axis of `voxels` that a lookup inside cell `c` of `cells` can read:
/// the voxels around the cell's extent [c/cells, (c+1)/cells], one voxel wider on each side.
fn voxel_range(c: u32, cells: u32, voxels: u32) -> (u32, u32) {
    // Local x reads voxels floor(x·n − ½) and floor(x·n − ½) + 1; in integers,
    // floor((2·c·n − cells) / (2·cells)).
    let n = voxels as i64;
    let m = cells as i64;
    let lo = (2 * c as i64 * n - m).div_euclid(2 * m) - 1;
    let hi = (2 * (c as i64 + 1) * n - m).div_euclid(2 * m) + 2;
    (lo.clamp(0, n - 1) as u32, hi.clamp(0, n - 1) as u32)
}

/// The parameter range `[t0, t1]` where `o + t·d` lies inside the unit cube, clipped to
/// `[0, t_max]`; `None` when empty. `d` need not be normalised; slabs with `d = 0` are
/// tested by position.
#[inline]
pub fn clip_to_unit_cube(o: Vec3, d: Vec3, t_max: f32) -> Option<(f32, f32)> {
    let mut t0 = 0.0f32;
    let mut t1 = t_max;
    for axis in 0..3 {
        let (oa, da) = (o[axis], d[axis]);
        if da == 0.0 {
            if !(0.0..=1.0).contains(&oa) {
                return None;
            }
            continue;
        }
        let ta = (0.0 - oa) / da;
        let tb = (1.0 - oa) / da;
        let (near, far) = if ta < tb { (ta, tb) } else { (tb, ta) };
        t0 = if near > t0 { near } else { t0 };
        t1 = if far < t1 { far } else { t1 };
    }
    if t0 < t1 { Some((t0, t1)) } else { None }
}

/// A ray segment's walk through the cells of a majorant grid.
#[derive(Clone, Copy, Debug)]
pub struct MajorantWalk {
    /// The local-space ray.
    origin: Vec3,
    direction: Vec3,
    /// The current cell.
    pub cell: [i32; 3],
    step: [i32; 3],
    /// The `t` at which the ray leaves the current cell through each axis's next face.
    next_t: [f32; 3],
    /// Where the walked segment ends.
    pub t_end: f32,
}

impl MajorantWalk {
    /// The walk of the local-space ray `o + t·d` over `t ∈ [t0, t1]` (inside the unit cube)
    /// through a grid of `resolution` cells.
    #[inline]
    pub fn new(o: Vec3, d: Vec3, t0: f32, t1: f32, resolution: [u32; 3]) -> Self {
        let mut walk =
            MajorantWalk { origin: o, direction: d, cell: [0; 3], step: [0; 3], next_t: [f32::INFINITY; 3], t_end: t1 };
        for axis in 0..3 {
            let n = resolution[axis] as f32;
            let p = o[axis] + d[axis] * t0;
            let c = ((p * n).floor() as i32).clamp(0, resolution[axis] as i32 - 1);
            walk.cell[axis] = c;
            walk.step[axis] = if d[axis] > 0.0 {
                1
            } else if d[axis] < 0.0 {
                -1
            } else {
                0
            };
            walk.next_t[axis] = face_t(o[axis], d[axis], c, walk.step[axis], n);
        }
        walk
    }

    /// Where the ray leaves the current cell (at most `t_end`).
    #[inline]
    pub fn cell_end(&self) -> f32 {
        let t = if self.next_t[0] < self.next_t[1] { self.next_t[0] } else { self.next_t[1] };
        let t = if self.next_t[2] < t { self.next_t[2] } else { t };
        if t < self.t_end { t } else { self.t_end }
    }

    /// Moves to the next cell; false when the segment ends in the current one.
    #[inline]
    pub fn advance(&mut self, resolution: [u32; 3]) -> bool {
        if self.cell_end() >= self.t_end {
            return false;
        }
        // The axis whose face comes first (ties: the lowest axis).
        let axis = if self.next_t[0] <= self.next_t[1] && self.next_t[0] <= self.next_t[2] {
            0
        } else if self.next_t[1] <= self.next_t[2] {
            1
        } else {
            2
        };
        let c = self.cell[axis] + self.step[axis];
        if c < 0 || c >= resolution[axis] as i32 {
            return false;
        }
        self.cell[axis] = c;
        self.next_t[axis] =
            face_t(self.origin[axis], self.direction[axis], c, self.step[axis], resolution[axis] as f32);
        true
    }

    #[inline]
    pub fn cell_u32(&self) -> [u32; 3] {
        self.cell.map(|c| c as u32)
    }
}

/// The `t` where `o + t·d` (one axis) reaches the far face of cell `c` of `n` in direction
/// `step` (∞ for `step` 0).
#[inline]
fn face_t(o: f32, d: f32, c: i32, step: i32, n: f32) -> f32 {
    if step == 0 {
        return f32::INFINITY;
    }
    let face = if step > 0 { (c + 1) as f32 / n } else { c as f32 / n };
    (face - o) / d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majorants_bound_every_lookup() {
        let mut state = 7u32;
        let grid = VolumeGrid::from_fn([37, 20, 9], |_, _, _| {
            state = state.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            (state >> 9) as f32 / (1u32 << 23) as f32
        });
        let majorants = MajorantGrid::build(&grid, 8, 2.0);
        assert_eq!(majorants.resolution, [5, 3, 2]);
        let mut s = 1u32;
        let mut next = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32
        };
        for _ in 0..20_000 {
            let p = Vec3::new(next(), next(), next());
            let cell =
                [0, 1, 2].map(|a| ((p[a] * majorants.resolution[a] as f32) as u32).min(majorants.resolution[a] - 1));
            assert!(2.0 * grid.lookup(p) <= majorants.value(cell), "at {p}");
        }
        assert_eq!(MajorantGrid::build(&grid, 0, 2.0).values, vec![2.0 * grid.range().1]);
    }

    #[test]
    fn walk_visits_the_cells_a_ray_crosses_in_order() {
        let res = [4, 4, 4];
        let o = Vec3::new(-0.5, 0.3, 0.7);
        let d = Vec3::new(1.0, 0.25, -0.5);
        let (t0, t1) = clip_to_unit_cube(o, d, f32::INFINITY).unwrap();
        let mut walk = MajorantWalk::new(o, d, t0, t1, res);
        let mut t = t0;
        let mut cells = vec![walk.cell];
        loop {
            let end = walk.cell_end();
            assert!(end >= t);
            // The midpoint of each visited piece lies in the cell the walk reports.
            let mid = o + d * (0.5 * (t + end));
            for a in 0..3 {
                assert_eq!((mid[a] * 4.0).floor() as i32, walk.cell[a], "piece [{t}, {end}]");
            }
            t = end;
            if !walk.advance(res) {
                break;
            }
            cells.push(walk.cell);
        }
        assert!((t - t1).abs() < 1e-5);
        // Each step changes one axis by one.
        for pair in cells.windows(2) {
            let moved: i32 = (0..3).map(|a| (pair[1][a] - pair[0][a]).abs()).sum();
            assert_eq!(moved, 1);
        }
    }

    #[test]
    fn clipping_to_the_unit_cube() {
        assert_eq!(clip_to_unit_cube(Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 10.0), Some((1.0, 2.0)));
        assert_eq!(clip_to_unit_cube(Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 1.5), Some((1.0, 1.5)));
        assert_eq!(clip_to_unit_cube(Vec3::new(-1.0, 1.5, 0.5), Vec3::X, 10.0), None);
        assert_eq!(clip_to_unit_cube(Vec3::new(0.5, 0.5, 0.5), -Vec3::Z * 2.0, 10.0), Some((0.0, 0.25)));
    }
}
