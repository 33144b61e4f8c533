//! Helpers shared by the CPU renderer's test files.

use glam::Vec3;
use warpath_core::film::Film;

/// Per channel: the image mean and its standard error (from the per-pixel variances of the
/// mean; pixels are independent).
pub fn image_mean(film: &Film) -> (Vec3, Vec3) {
    let (mean, variance) = (film.mean(), film.variance_of_mean());
    let n = mean.len() as f64;
    let (mut m, mut v) = ([0.0f64; 3], [0.0f64; 3]);
    for i in 0..mean.len() {
        for c in 0..3 {
            m[c] += mean[i][c] as f64 / n;
            v[c] += variance[i][c] as f64 / (n * n);
        }
    }
    (
        Vec3::new(m[0] as f32, m[1] as f32, m[2] as f32),
        Vec3::new(v[0].sqrt() as f32, v[1].sqrt() as f32, v[2].sqrt() as f32),
    )
}
