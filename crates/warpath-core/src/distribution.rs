//! Piecewise-constant 1D and 2D distributions (CDF + binary search), used to sample
//! emissive triangles by power and the bilinear patches of the environment map by their
//! integrals.
//! Flat `Vec<f32>` storage so the GPU can upload the same arrays.

use glam::Vec2;

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
        find_bin(&self.cdf, u)
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

/// A piecewise-constant distribution over [0,1)² on a `width × height` grid of cells,
/// as a marginal over rows (v) and one conditional per row (u).
///
/// GPU layout: the conditionals are flattened into one array, `conditional_cdf`, of
/// `height × (width + 1)` values (row `j`'s CDF starts at `j * (width + 1)`), and the
/// marginal is an ordinary [`Distribution1D`] over the row sums. Cell probabilities are
/// differences of CDF entries, both when sampling and in [`pdf`](Self::pdf), so the
/// returned pdfs are exactly the density of [`sample_continuous`](Self::sample_continuous)
/// (up to f32 rounding of the sampled position at cell borders).
#[derive(Clone, Debug, Default)]
pub struct Distribution2D {
    pub width: usize,
    pub height: usize,
    /// `height` CDFs of `width + 1` values each; a row whose weights are all zero gets a
    /// uniform CDF (it is never selected by the marginal unless every row is zero).
    pub conditional_cdf: Vec<f32>,
    /// Over rows; `marginal.func[j]` is the sum of row `j`'s weights.
    pub marginal: Distribution1D,
}

/// First bin `i` of `cdf` (length `n + 1`) with `cdf[i] <= u < cdf[i+1]`, skipping empty bins.
fn find_bin(cdf: &[f32], u: f32) -> usize {
    // partition_point gives the first index whose cdf > u; the bin is one before.
    let n = cdf.len().saturating_sub(1);
    cdf.partition_point(|&c| c <= u).saturating_sub(1).min(n.saturating_sub(1))
}

impl Distribution2D {
    /// Builds the distribution from `width × height` non-negative weights, row-major with
    /// row 0 at v = 0. Non-finite or negative weights count as 0; if every weight is zero
    /// the distribution is uniform. `func` shorter than `width × height` is padded with 0.
    pub fn new(func: &[f32], width: usize, height: usize) -> Self {
        if width == 0 || height == 0 {
            return Distribution2D { width, height, conditional_cdf: Vec::new(), marginal: Distribution1D::new(&[]) };
        }
        let mut conditional_cdf = Vec::with_capacity(height * (width + 1));
        let mut row_sums = Vec::with_capacity(height);
        let mut row = vec![0.0f32; width];
        for j in 0..height {
            for (i, r) in row.iter_mut().enumerate() {
                *r = func.get(j * width + i).copied().unwrap_or(0.0);
            }
            let row_distribution = Distribution1D::new(&row);
            row_sums.push(row_distribution.total);
            conditional_cdf.extend_from_slice(&row_distribution.cdf);
        }
        Distribution2D { width, height, conditional_cdf, marginal: Distribution1D::new(&row_sums) }
    }

    /// Sum of all weights (0 when the distribution fell back to uniform).
    pub fn total(&self) -> f32 {
        self.marginal.total
    }

    fn row_cdf(&self, row: usize) -> &[f32] {
        let stride = self.width + 1;
        &self.conditional_cdf[row * stride..(row + 1) * stride]
    }

    /// Samples a point of [0,1)²; returns it with its density w.r.t. area on [0,1)².
    pub fn sample_continuous(&self, u: Vec2) -> (Vec2, f32) {
        if self.width == 0 || self.height == 0 {
            return (Vec2::ZERO, 0.0);
        }
        let (v, pdf_v, row) = self.marginal.sample_continuous(u.y);
        let cdf = self.row_cdf(row);
        let column = find_bin(cdf, u.x);
        let p = cdf[column + 1] - cdf[column];
        let du = if p > 0.0 { ((u.x - cdf[column]) / p).clamp(0.0, 1.0) } else { 0.5 };
        let x = ((column as f32 + du) / self.width as f32).min(crate::sampler::ONE_MINUS_EPSILON);
        (Vec2::new(x, v), pdf_v * p * self.width as f32)
    }

    /// Density of [`sample_continuous`](Self::sample_continuous) at `uv` (0 outside [0,1)²).
    pub fn pdf(&self, uv: Vec2) -> f32 {
        if self.width == 0 || self.height == 0 || !(0.0..1.0).contains(&uv.x) || !(0.0..1.0).contains(&uv.y) {
            return 0.0;
        }
        let (column, row) = self.cell(uv);
        self.cell_pdf(column, row)
    }

    /// Density (w.r.t. area on [0,1)²) of the cell (`column`, `row`): its probability, a
    /// difference of CDF entries, times the number of cells.
    pub fn cell_pdf(&self, column: usize, row: usize) -> f32 {
        let cdf = self.row_cdf(row);
        self.marginal.discrete_pdf(row) * self.height as f32 * (cdf[column + 1] - cdf[column]) * self.width as f32
    }

    /// Picks a cell with probability proportional to its weight; returns (column, row), the
    /// two numbers of `u` remapped to uniform numbers in [0, 1] inside the cell's CDF intervals
    /// (for sampling a position in the cell), and [`cell_pdf`](Self::cell_pdf).
    pub fn sample_cell(&self, u: Vec2) -> (usize, usize, Vec2, f32) {
        let row = self.marginal.find(u.y);
        let p_row = self.marginal.discrete_pdf(row);
        let u_row = if p_row > 0.0 { ((u.y - self.marginal.cdf[row]) / p_row).clamp(0.0, 1.0) } else { 0.5 };
        let cdf = self.row_cdf(row);
        let column = find_bin(cdf, u.x);
        let p_column = cdf[column + 1] - cdf[column];
        let u_column = if p_column > 0.0 { ((u.x - cdf[column]) / p_column).clamp(0.0, 1.0) } else { 0.5 };
        (column, row, Vec2::new(u_column, u_row), self.cell_pdf(column, row))
    }

    /// The grid cell (column, row) containing `uv` (clamped into the grid).
    pub fn cell(&self, uv: Vec2) -> (usize, usize) {
        let column = ((uv.x * self.width as f32) as usize).min(self.width.saturating_sub(1));
        let row = ((uv.y * self.height as f32) as usize).min(self.height.saturating_sub(1));
        (column, row)
    }
}
