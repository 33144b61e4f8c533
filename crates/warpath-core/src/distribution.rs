//! Piecewise-constant 1D and 2D distributions (CDF + binary search), used to sample
//! emissive triangles by power and the environment map by luminance × sin θ.
//! Flat `Vec<f32>` storage so the GPU can upload the same arrays.

/// A piecewise-constant distribution over `n` bins of [0, 1).
#[derive(Clone, Debug, Default)]
pub struct Distribution1D {
    /// Non-negative bin weights as given (non-finite or negative weights count as 0).
    pub func: Vec<f32>,
    /// `n + 1` cumulative values, normalized so `cdf[n] == 1`.
    pub cdf: Vec<f32>,
    /// Sum of `func`.
    pub total: f32,
}

impl Distribution1D {
    /// Builds the CDF. If every weight is zero the distribution is uniform.
    pub fn new(weights: &[f32]) -> Self {
        let func: Vec<f32> = weights.iter().map(|&w| if w.is_finite() && w > 0.0 { w } else { 0.0 }).collect();
        let n = func.len();
        let mut cdf = Vec::with_capacity(n + 1);
        let mut acc = 0.0f64;
        cdf.push(0.0);
        for &f in &func {
            acc += f as f64;
            cdf.push(acc as f32);
        }
        let total = acc as f32;
        if total > 0.0 {
            for c in cdf.iter_mut() {
                *c = (*c as f64 / acc) as f32;
            }
        } else {
            for (i, c) in cdf.iter_mut().enumerate() {
                *c = i as f32 / n.max(1) as f32;
            }
        }
        if n > 0 {
            cdf[n] = 1.0;
        }
        Distribution1D { func, cdf, total }
    }

    pub fn count(&self) -> usize {
        self.func.len()
    }

    /// Finds the bin `i` with `cdf[i] <= u < cdf[i+1]`, skipping empty bins.
    pub fn find(&self, u: f32) -> usize {
        let n = self.count();
        // partition_point gives the first index whose cdf > u; the bin is one before.
        let i = self.cdf.partition_point(|&c| c <= u);
        i.saturating_sub(1).min(n - 1)
    }

    /// Probability of bin `i`.
    pub fn discrete_pdf(&self, i: usize) -> f32 {
        if i >= self.count() {
            return 0.0;
        }
        self.cdf[i + 1] - self.cdf[i]
    }

    /// Picks a bin with probability proportional to its weight; returns (bin, prob).
    pub fn sample_discrete(&self, u: f32) -> (usize, f32) {
        let i = self.find(u);
        (i, self.discrete_pdf(i))
    }

    /// Samples a continuous position in [0, 1) with density `func / mean(func)`;
    /// returns (x, pdf, bin).
    pub fn sample_continuous(&self, u: f32) -> (f32, f32, usize) {
        let n = self.count();
        let i = self.find(u);
        let p = self.discrete_pdf(i);
        let du = if p > 0.0 { ((u - self.cdf[i]) / p).clamp(0.0, 1.0) } else { 0.5 };
        let x = ((i as f32 + du) / n as f32).min(crate::sampler::ONE_MINUS_EPSILON);
        (x, p * n as f32, i)
    }
}

/// A piecewise-constant distribution over [0,1)², as a marginal over rows (v) and one
/// conditional per row (u).
#[derive(Clone, Debug, Default)]
pub struct Distribution2D {
    pub conditional: Vec<Distribution1D>,
    pub marginal: Distribution1D,
}
