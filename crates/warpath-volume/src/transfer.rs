//! Transfer functions: how a scalar scan (CT, MRI) becomes a medium. A piecewise-linear map
//! from the scan's value to a density and an RGB albedo, given as control points sorted by
//! value; below the first and above the last point the end values hold.
//!
//! [`TransferFunction::gray_red_blue`] is seed 003's map for its Osirix CT scenes: the
//! density grows linearly with the scan value up to a maximum (100 in the seed) while the
//! albedo goes from gray through red to blue.

use crate::grid::VolumeGrid;
use glam::Vec3;

/// One control point: scan value → (density, albedo).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransferPoint {
    pub value: f32,
    pub density: f32,
    pub albedo: Vec3,
}

/// A piecewise-linear transfer function.
#[derive(Clone, Debug, PartialEq)]
pub struct TransferFunction {
    points: Vec<TransferPoint>,
}

impl TransferFunction {
    /// From control points in increasing value order; densities finite and ≥ 0, albedos in
    /// [0, 1]. Errors say which point is wrong.
    pub fn new(points: Vec<TransferPoint>) -> Result<Self, String> {
        if points.is_empty() {
            return Err("a transfer function needs at least one point".into());
        }
        for (i, p) in points.iter().enumerate() {
            if !p.value.is_finite() {
                return Err(format!("point {}: value {} is not finite", i + 1, p.value));
            }
            if !(p.density.is_finite() && p.density >= 0.0) {
                return Err(format!("point {}: density {} must be finite and not negative", i + 1, p.density));
            }
            if !(p.albedo.is_finite() && p.albedo.min_element() >= 0.0 && p.albedo.max_element() <= 1.0) {
                return Err(format!("point {}: albedo {} must lie in [0, 1]", i + 1, p.albedo));
            }
            if i > 0 && p.value <= points[i - 1].value {
                return Err(format!(
                    "point {}: values must increase ({} after {})",
                    i + 1,
                    p.value,
                    points[i - 1].value
                ));
            }
        }
        Ok(TransferFunction { points })
    }

    /// Seed 003's map over scan values [`low`, `high`]: density 0 → `max_density`, albedo
    /// gray (0.8) → red → blue.
    pub fn gray_red_blue(low: f32, high: f32, max_density: f32) -> Result<Self, String> {
        if !(low.is_finite() && high.is_finite() && high > low) {
            return Err(format!("the value range [{low}, {high}] is empty"));
        }
        let at = |f: f32| low + (high - low) * f;
        Self::new(vec![
            TransferPoint { value: at(0.0), density: 0.0, albedo: Vec3::splat(0.8) },
            TransferPoint { value: at(0.5), density: 0.5 * max_density, albedo: Vec3::new(0.9, 0.15, 0.1) },
            TransferPoint { value: at(1.0), density: max_density, albedo: Vec3::new(0.1, 0.2, 0.9) },
        ])
    }

    pub fn points(&self) -> &[TransferPoint] {
        &self.points
    }

    /// Density and albedo of scan value `v`.
    pub fn eval(&self, v: f32) -> (f32, Vec3) {
        let first = self.points[0];
        let last = *self.points.last().unwrap();
        if !(v > first.value) {
            return (first.density, first.albedo);
        }
        if v >= last.value {
            return (last.density, last.albedo);
        }
        let i = self.points.partition_point(|p| p.value <= v);
        let (a, b) = (self.points[i - 1], self.points[i]);
        let t = (v - a.value) / (b.value - a.value);
        (a.density + (b.density - a.density) * t, a.albedo + (b.albedo - a.albedo) * t)
    }

    /// The density grid (1 channel) and albedo grid (3 channels) of a scalar scan, voxel by
    /// voxel (the interpolation of the mapped grids then happens in the renderer).
    pub fn apply(&self, scan: &VolumeGrid) -> (VolumeGrid, VolumeGrid) {
        let mut density = Vec::with_capacity(scan.data.len() / scan.channels as usize);
        let mut albedo = Vec::with_capacity(density.capacity() * 3);
        for v in scan.data.iter().step_by(scan.channels as usize) {
            let (d, a) = self.eval(*v);
            density.push(d);
            albedo.extend_from_slice(&[a.x, a.y, a.z]);
        }
        (
            VolumeGrid { resolution: scan.resolution, channels: 1, data: density },
            VolumeGrid { resolution: scan.resolution, channels: 3, data: albedo },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piecewise_linear_with_clamped_ends() {
        let tf = TransferFunction::gray_red_blue(0.0, 200.0, 100.0).unwrap();
        assert_eq!(tf.eval(-5.0), (0.0, Vec3::splat(0.8)));
        assert_eq!(tf.eval(100.0), (50.0, Vec3::new(0.9, 0.15, 0.1)));
        assert_eq!(tf.eval(500.0), (100.0, Vec3::new(0.1, 0.2, 0.9)));
        let (d, a) = tf.eval(50.0);
        assert!((d - 25.0).abs() < 1e-5 && (a - Vec3::new(0.85, 0.475, 0.45)).length() < 1e-5);
        assert_eq!(tf.eval(f32::NAN).0, 0.0);
    }

    #[test]
    fn bad_points_are_errors() {
        let p = |value, density, a| TransferPoint { value, density, albedo: Vec3::splat(a) };
        assert!(TransferFunction::new(vec![]).is_err());
        assert!(TransferFunction::new(vec![p(0.0, 1.0, 0.5), p(0.0, 2.0, 0.5)]).unwrap_err().contains("must increase"));
        assert!(TransferFunction::new(vec![p(0.0, -1.0, 0.5)]).unwrap_err().contains("density -1"));
        assert!(TransferFunction::new(vec![p(0.0, 1.0, 1.5)]).unwrap_err().contains("albedo"));
    }

    #[test]
    fn applies_voxel_by_voxel() {
        let scan = VolumeGrid::from_fn([3, 1, 1], |i, _, _| i as f32 * 100.0);
        let (density, albedo) = TransferFunction::gray_red_blue(0.0, 200.0, 100.0).unwrap().apply(&scan);
        assert_eq!(density.data, vec![0.0, 50.0, 100.0]);
        assert_eq!(albedo.channels, 3);
        assert_eq!(&albedo.data[6..9], &[0.1, 0.2, 0.9]);
    }
}
