//! The accumulation film: a float buffer of per-pixel radiance sums, squared sums and
//! sample counts (a box pixel filter: each sample lands in the pixel it was taken in).
//! Progressive passes add to it; the mean and the per-pixel variance of the mean are
//! read from it at any time, so an interrupted render still yields an image.

use crate::limits::{self, LimitError};
use glam::Vec3;

#[derive(Clone, Debug)]
pub struct Film {
    pub width: u32,
    pub height: u32,
    /// Sum of sample radiance per pixel.
    pub sum: Vec<Vec3>,
    /// Sum of squared sample radiance per pixel (per channel).
    pub sum_sq: Vec<Vec3>,
    /// Samples accumulated per pixel.
    pub count: Vec<u32>,
}

impl Film {
    pub fn new(width: u32, height: u32) -> Self {
        let n = (width as usize) * (height as usize);
        Film { width, height, sum: vec![Vec3::ZERO; n], sum_sq: vec![Vec3::ZERO; n], count: vec![0; n] }
    }

    /// [`Film::new`] that checks the size first ([`limits::check_image`] against the
    /// documented limits and the memory the process can get) and allocates fallibly: a film
    /// too large for this machine is an error, not an abort.
    pub fn try_new(width: u32, height: u32) -> Result<Self, LimitError> {
        let what = "the film";
        limits::check_image(what, width as u64, height as u64, Self::bytes_per_pixel())?;
        let n = (width as usize) * (height as usize);
        Ok(Film {
            width,
            height,
            sum: limits::zeroed_vec(what, n)?,
            sum_sq: limits::zeroed_vec(what, n)?,
            count: limits::zeroed_vec(what, n)?,
        })
    }

    /// Bytes of host memory one pixel of a film takes (read from the field types).
    pub fn bytes_per_pixel() -> u64 {
        fn item_size<T>(_field: fn(&Film) -> &Vec<T>) -> u64 {
            std::mem::size_of::<T>() as u64
        }
        item_size(|f| &f.sum) + item_size(|f| &f.sum_sq) + item_size(|f| &f.count)
    }

    pub fn pixel_count(&self) -> usize {
        self.sum.len()
    }

    /// Adds one sample to pixel `index` (row-major, top-left origin). Non-finite samples
    /// are dropped, not spread: they are counted so the estimator stays unbiased where a
    /// rare NaN would otherwise poison a pixel forever.
    #[inline]
    pub fn add_sample(&mut self, index: usize, radiance: Vec3) {
        let r = if radiance.is_finite() { radiance } else { Vec3::ZERO };
        self.sum[index] += r;
        self.sum_sq[index] += r * r;
        self.count[index] += 1;
    }

    /// Adds every pixel of `other` (same size) into this film.
    pub fn merge(&mut self, other: &Film) {
        assert_eq!((self.width, self.height), (other.width, other.height));
        for i in 0..self.sum.len() {
            self.sum[i] += other.sum[i];
            self.sum_sq[i] += other.sum_sq[i];
            self.count[i] += other.count[i];
        }
    }

    /// Mean radiance per pixel.
    pub fn mean(&self) -> Vec<Vec3> {
        self.sum.iter().zip(&self.count).map(|(&s, &n)| if n > 0 { s / n as f32 } else { Vec3::ZERO }).collect()
    }

    /// Variance of each pixel's mean (sample variance / n), per channel.
    pub fn variance_of_mean(&self) -> Vec<Vec3> {
        (0..self.sum.len())
            .map(|i| {
                let n = self.count[i] as f64;
                if n < 2.0 {
                    return Vec3::ZERO;
                }
                let m = self.sum[i].as_dvec3() / n;
                let var = (self.sum_sq[i].as_dvec3() / n - m * m) * (n / (n - 1.0));
                (var.max(glam::DVec3::ZERO) / n).as_vec3()
            })
            .collect()
    }

    /// Total samples accumulated.
    pub fn total_samples(&self) -> u64 {
        self.count.iter().map(|&c| c as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn mean_and_variance() {
        let mut f = Film::new(2, 1);
        for x in [1.0, 2.0, 3.0, 4.0] {
            f.add_sample(0, Vec3::splat(x));
        }
        f.add_sample(1, Vec3::new(f32::NAN, 0.0, 0.0));
        assert_eq!(f.mean()[0], Vec3::splat(2.5));
        assert_eq!(f.mean()[1], Vec3::ZERO);
        let v = f.variance_of_mean()[0].x;
        assert!((v - (5.0 / 3.0) / 4.0).abs() < 1e-6, "{v}");
    }
}
