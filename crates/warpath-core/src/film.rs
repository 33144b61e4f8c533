//! The accumulation film: per-pixel radiance sums, squared sums and sample counts (a box
//! pixel filter: each sample lands in the pixel it was taken in). Progressive passes add to
//! it; the mean and the per-pixel variance of the mean are read from it at any time, so an
//! interrupted render still yields an image.
//!
//! The sums are f64: a long render adds millions of samples per pixel, and the variance
//! `sum_sq / n − mean²` behind every z test cancels catastrophically in f32 once the sums
//! carry fewer digits than that difference. A sample itself is an f32 (what the estimators
//! compute); widened to f64, it and its square are exact. The CPU sums a pass in f64; the
//! GPU sums a pass in f32 buffers and merges each pass into f64 sums on the device
//! (`warpath_cuda::film`). So at one sample per pixel per pass both add the same bits to
//! `sum` and produce bit-identical means; `sum_sq` differs there only by the f32 rounding of
//! the GPU's squares.

use crate::limits::{self, LimitError};
use glam::{DVec3, Vec3};

#[derive(Clone, Debug)]
pub struct Film {
    pub width: u32,
    pub height: u32,
    /// Sum of sample radiance per pixel.
    pub sum: Vec<DVec3>,
    /// Sum of squared sample radiance per pixel (per channel).
    pub sum_sq: Vec<DVec3>,
    /// Samples accumulated per pixel.
    pub count: Vec<u32>,
}

/// What one sample adds to the sums: its value and its square, both exact in f64
/// (a non-finite sample counts as zero).
#[inline]
pub fn sample_terms(radiance: Vec3) -> (DVec3, DVec3) {
    let r = if radiance.is_finite() { radiance } else { Vec3::ZERO }.as_dvec3();
    (r, r * r)
}

impl Film {
    pub fn new(width: u32, height: u32) -> Self {
        let n = (width as usize) * (height as usize);
        Film { width, height, sum: vec![DVec3::ZERO; n], sum_sq: vec![DVec3::ZERO; n], count: vec![0; n] }
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
        let (value, square) = sample_terms(radiance);
        self.sum[index] += value;
        self.sum_sq[index] += square;
        self.count[index] += 1;
    }

    /// Adds a pass of `count` samples to pixel `index`, given the pass's sums (the GPU's
    /// per-pass f32 buffers, or a CPU pass's f64 sums).
    #[inline]
    pub fn add_pass(&mut self, index: usize, sum: DVec3, sum_sq: DVec3, count: u32) {
        self.sum[index] += sum;
        self.sum_sq[index] += sum_sq;
        self.count[index] += count;
    }

    /// Adds every pixel of `other` (same size) into this film.
    pub fn merge(&mut self, other: &Film) {
        assert_eq!((self.width, self.height), (other.width, other.height));
        for i in 0..self.sum.len() {
            self.add_pass(i, other.sum[i], other.sum_sq[i], other.count[i]);
        }
    }

    /// Mean radiance per pixel (the f64 quotient rounded to f32).
    pub fn mean(&self) -> Vec<Vec3> {
        self.sum
            .iter()
            .zip(&self.count)
            .map(|(&s, &n)| if n > 0 { (s / n as f64).as_vec3() } else { Vec3::ZERO })
            .collect()
    }

    /// Variance of each pixel's mean (sample variance / n), per channel.
    pub fn variance_of_mean(&self) -> Vec<Vec3> {
        (0..self.sum.len())
            .map(|i| {
                let n = self.count[i] as f64;
                if n < 2.0 {
                    return Vec3::ZERO;
                }
                let m = self.sum[i] / n;
                let var = (self.sum_sq[i] / n - m * m) * (n / (n - 1.0));
                (var.max(DVec3::ZERO) / n).as_vec3()
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

    /// The reason the sums are f64: 2^24 samples of 1 ± 10^-3 (variance 10^-6, a millionth of
    /// the squared mean). In f32 the sum of ones stops growing at 2^24 and the variance is
    /// lost in the cancellation; here it is right to three digits.
    #[test]
    fn variance_survives_many_samples() {
        let mut f = Film::new(1, 1);
        let n = 1u32 << 24;
        for i in 0..n {
            let x = if i % 2 == 0 { 1.001f32 } else { 0.999f32 };
            f.add_sample(0, Vec3::splat(x));
        }
        let mean = f.mean()[0].x as f64;
        assert!((mean - 1.0).abs() < 1e-6, "mean {mean}");
        // The samples' variance is (a − b)²/4 ≈ 1e-6 with a, b the f32 values of 1.001 and 0.999
        // (times n/(n − 1), the unbiased estimate).
        let (a, b) = (1.001f32 as f64, 0.999f32 as f64);
        let exact = (a - b) * (a - b) / 4.0 / (n as f64 - 1.0);
        let got = f.variance_of_mean()[0].x as f64;
        // What is left is the f64 round-off of 2^24 additions, magnified by mean² / variance
        // = 10^6 in the cancellation: observed 1.5e-4 relative.
        assert!((got / exact - 1.0).abs() < 1e-3, "variance of the mean {got:e}, exact {exact:e}");
    }

    /// A pass of one sample per pixel adds the same bits to `sum` whether it comes as a CPU
    /// sample or as a pass of the GPU's f32 buffers (which hold the sample and its f32 square).
    #[test]
    fn one_sample_passes_give_the_same_mean_on_both_backends() {
        let samples = [Vec3::new(0.1, 3.7e-5, 12.25), Vec3::new(0.3, 1e-3, 7.0), Vec3::new(f32::INFINITY, 1.0, 0.0)];
        let (mut by_sample, mut by_pass) = (Film::new(1, 1), Film::new(1, 1));
        for s in samples {
            by_sample.add_sample(0, s);
            let r = if s.is_finite() { s } else { Vec3::ZERO };
            by_pass.add_pass(0, r.as_dvec3(), (r * r).as_dvec3(), 1);
        }
        assert_eq!(by_sample.sum, by_pass.sum);
        assert_eq!(by_sample.mean(), by_pass.mean());
        let relative = (by_sample.sum_sq[0] - by_pass.sum_sq[0]).abs() / by_sample.sum_sq[0];
        assert!(relative.max_element() < 1e-7, "{relative}");
    }
}
