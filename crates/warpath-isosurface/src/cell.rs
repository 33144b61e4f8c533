//! The exact first intersection of a ray with an isosurface of the trilinear interpolant
//! inside one cell (issue 14 item 4; the analysis of Marmitt et al., "Fast and accurate
//! ray-voxel intersection techniques for iso-surface ray tracing", 2004): along the ray the
//! interpolant is a cubic in t; its derivative's roots split the cell's t range into pieces
//! on which it is monotonic, and the first piece whose ends bracket the isovalue holds the
//! first hit, refined there by safeguarded bisection to double precision. Everything is in
//! f64, so the result is exact to ~1e-15 of the cell, not bound to a step size.

/// The cubic g(t) = a t³ + b t² + c t + d = f(o + t·d) − isovalue inside a cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellCubic {
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub d: f64,
}

impl CellCubic {
    /// The cubic of the ray `origin + t·direction` (in the cell's own coordinates, the cell
    /// being [0,1]³) through the interpolant of `corners` (indexed x + 2y + 4z).
    pub fn new(corners: &[f32; 8], origin: [f64; 3], direction: [f64; 3], isovalue: f64) -> Self {
        // Each corner's weight is a product of three linear factors in t: for offset 0 the
        // factor is 1 − (o + t·d), for offset 1 it is o + t·d.
        let factor = |axis: usize, offset: usize| -> (f64, f64) {
            if offset == 0 { (1.0 - origin[axis], -direction[axis]) } else { (origin[axis], direction[axis]) }
        };
        let (mut a, mut b, mut c, mut d) = (0.0, 0.0, 0.0, 0.0);
        for (corner, &value) in corners.iter().enumerate() {
            let (ux, vx) = factor(0, corner & 1);
            let (uy, vy) = factor(1, (corner >> 1) & 1);
            let (uz, vz) = factor(2, (corner >> 2) & 1);
            let value = value as f64;
            d += value * ux * uy * uz;
            c += value * (vx * uy * uz + ux * vy * uz + ux * uy * vz);
            b += value * (vx * vy * uz + vx * uy * vz + ux * vy * vz);
            a += value * vx * vy * vz;
        }
        CellCubic { a, b, c, d: d - isovalue }
    }

    pub fn eval(&self, t: f64) -> f64 {
        ((self.a * t + self.b) * t + self.c) * t + self.d
    }

    /// The roots of g′(t) = 3a t² + 2b t + c strictly inside (t0, t1), in order.
    fn extrema(&self, t0: f64, t1: f64) -> ([f64; 2], usize) {
        let (qa, qb, qc) = (3.0 * self.a, 2.0 * self.b, self.c);
        let mut roots = [0.0f64; 2];
        let mut n = 0;
        let mut push = |t: f64| {
            if t > t0 && t < t1 {
                roots[n] = t;
                n += 1;
            }
        };
        if qa.abs() <= 1e-300 {
            if qb != 0.0 {
                push(-qc / qb);
            }
        } else {
            let disc = qb * qb - 4.0 * qa * qc;
            if disc >= 0.0 {
                // The numerically stable pair of roots.
                let q = -0.5 * (qb + qb.signum() * disc.sqrt());
                let (r1, r2) = if q != 0.0 { (q / qa, qc / q) } else { (0.0, 0.0) };
                let (lo, hi) = if r1 < r2 { (r1, r2) } else { (r2, r1) };
                push(lo);
                if hi != lo {
                    push(hi);
                }
            }
        }
        (roots, n)
    }

    /// The first t in [t0, t1] where g(t) = 0, if any.
    pub fn first_root(&self, t0: f64, t1: f64) -> Option<f64> {
        if t1 < t0 {
            return None;
        }
        let (extrema, n) = self.extrema(t0, t1);
        let mut a = t0;
        let mut ga = self.eval(a);
        if ga == 0.0 {
            return Some(a);
        }
        for i in 0..=n {
            let b = if i < n { extrema[i] } else { t1 };
            let gb = self.eval(b);
            if gb == 0.0 || (ga < 0.0) != (gb < 0.0) {
                return Some(self.refine(a, ga, b, gb));
            }
            a = b;
            ga = gb;
        }
        None
    }

    /// The root in [a, b] of a monotonic piece with g(a)·g(b) ≤ 0: bisection with a secant
    /// guess kept inside the bracket, to the last bits of a double.
    fn refine(&self, mut a: f64, mut ga: f64, mut b: f64, mut gb: f64) -> f64 {
        if ga == 0.0 && gb == 0.0 {
            return a;
        }
        for _ in 0..200 {
            if gb == 0.0 && (b - a).abs() <= f64::EPSILON * b.abs().max(1.0) {
                return b;
            }
            let secant = if gb != ga { b - gb * (b - a) / (gb - ga) } else { 0.5 * (a + b) };
            let mid = 0.5 * (a + b);
            // Alternate: a secant step when it lands well inside the bracket, else bisect.
            let t = if secant > a + 0.01 * (b - a) && secant < b - 0.01 * (b - a) { secant } else { mid };
            if t <= a || t >= b {
                break;
            }
            let gt = self.eval(t);
            if gt == 0.0 {
                // Keep searching to the left for the first zero of this monotonic piece.
                b = t;
                gb = 0.0;
                continue;
            }
            if (ga < 0.0) != (gt < 0.0) {
                b = t;
                gb = gt;
            } else {
                a = t;
                ga = gt;
            }
            if (b - a).abs() <= 4.0 * f64::EPSILON * b.abs().max(1.0) {
                break;
            }
        }
        if gb == 0.0 { b } else { 0.5 * (a + b) }
    }
}

/// Whether the isosurface of `isovalue` may cross the cell of `corners`: the trilinear
/// interpolant is a convex combination of the corners, so it stays within their range, and an
/// isovalue outside it has no root in the cell. Exact (no crossing is lost), and it spares the
/// cubic in most of the cells a ray marches through.
pub fn may_cross(corners: &[f32; 8], isovalue: f64) -> bool {
    let (min, max) = corners.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &c| (lo.min(c), hi.max(c)));
    f64::from(min) <= isovalue && isovalue <= f64::from(max)
}

/// The interpolant's gradient at cell-local point `p` (in value per lattice unit).
pub fn gradient(corners: &[f32; 8], p: [f64; 3]) -> [f64; 3] {
    let c = |i: usize| corners[i] as f64;
    let [x, y, z] = p;
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
    // ∂/∂x: differences along x, blended in y and z; likewise for y and z.
    let dx = lerp(lerp(c(1) - c(0), c(3) - c(2), y), lerp(c(5) - c(4), c(7) - c(6), y), z);
    let dy = lerp(lerp(c(2) - c(0), c(3) - c(1), x), lerp(c(6) - c(4), c(7) - c(5), x), z);
    let dz = lerp(lerp(c(4) - c(0), c(5) - c(1), x), lerp(c(6) - c(2), c(7) - c(3), x), y);
    [dx, dy, dz]
}

/// The interpolant at cell-local point `p`.
pub fn interpolate(corners: &[f32; 8], p: [f64; 3]) -> f64 {
    let c = |i: usize| corners[i] as f64;
    let [x, y, z] = p;
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
    lerp(lerp(lerp(c(0), c(1), x), lerp(c(2), c(3), x), y), lerp(lerp(c(4), c(5), x), lerp(c(6), c(7), x), y), z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn the_cubic_is_the_interpolant_along_the_ray() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for _ in 0..1000 {
            let corners: [f32; 8] = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
            let o = [rng.random::<f64>(), rng.random::<f64>(), rng.random::<f64>()];
            let d = [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)];
            let cubic = CellCubic::new(&corners, o, d, 0.25);
            for t in [0.0, 0.3, 0.7, 1.0] {
                let p = [o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]];
                let expected = interpolate(&corners, p) - 0.25;
                assert!((cubic.eval(t) - expected).abs() < 1e-12, "{} vs {expected}", cubic.eval(t));
            }
        }
    }

    /// The first root is a root, and no sample of a fine march before it changes sign: the
    /// cubic has no earlier crossing (up to the march's resolution, 1e-5 of the range).
    #[test]
    fn the_first_root_is_the_first_crossing() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let mut found = 0;
        for _ in 0..2000 {
            let corners: [f32; 8] = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
            let o = [rng.random::<f64>(), rng.random::<f64>(), rng.random::<f64>()];
            let d = [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)];
            let cubic = CellCubic::new(&corners, o, d, 0.0);
            let steps = 100_000;
            let march = (0..=steps).map(|s| s as f64 / steps as f64).find(|&t| {
                let dt = 1.0 / steps as f64;
                t > 0.0 && (cubic.eval(t - dt) < 0.0) != (cubic.eval(t) < 0.0)
            });
            match (cubic.first_root(0.0, 1.0), march) {
                (Some(root), Some(t)) => {
                    found += 1;
                    assert!(cubic.eval(root).abs() < 1e-12, "g(root) = {}", cubic.eval(root));
                    assert!(root <= t + 1e-12, "root {root} after the march's first crossing {t}");
                    assert!(root >= t - 1.0 / steps as f64 - 1e-12, "root {root} long before the march's {t}");
                }
                (None, Some(t)) => panic!("missed a crossing at {t}"),
                (Some(root), None) => {
                    // A tangent touch or a double crossing inside one march step.
                    assert!(cubic.eval(root).abs() < 1e-12);
                }
                (None, None) => {}
            }
        }
        assert!(found > 300, "the test must exercise crossings ({found})");
    }

    /// Skipping a cell whose corners' range excludes the isovalue loses no crossing: over
    /// random cells and chords inside them (isovalues inside, outside and a float step beyond
    /// the corners' range), whenever the cubic has a root on the chord, `may_cross` holds.
    #[test]
    fn the_corner_range_test_loses_no_crossing() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let (mut roots, mut skipped) = (0, 0);
        for i in 0..20_000 {
            let corners: [f32; 8] = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
            let (min, max) = corners.iter().fold((f32::MAX, f32::MIN), |(a, b), &c| (a.min(c), b.max(c)));
            let isovalue = match i % 4 {
                0 => rng.random_range(-1.2..1.2),
                1 => rng.random_range(min..=max),
                2 => max.next_up(),
                _ => min.next_down(),
            } as f64;
            // A chord between two points of the cell stays inside it (t in [0, 1]).
            let p0: [f64; 3] = std::array::from_fn(|_| rng.random());
            let p1: [f64; 3] = std::array::from_fn(|_| rng.random());
            let d = std::array::from_fn(|a| p1[a] - p0[a]);
            let root = CellCubic::new(&corners, p0, d, isovalue).first_root(0.0, 1.0);
            if root.is_some() {
                roots += 1;
                assert!(may_cross(&corners, isovalue), "a root at {root:?} in a skipped cell {corners:?}, {isovalue}");
            }
            skipped += !may_cross(&corners, isovalue) as usize;
        }
        assert!(roots > 1_000 && skipped > 8_000, "the test must see both ({roots} roots, {skipped} skipped)");
    }

    #[test]
    fn a_planar_field_crosses_where_expected() {
        // f = x: the isosurface x = 0.4 is hit at t = (0.4 − 0.1) / 0.5 along +x from 0.1.
        let corners = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0];
        let cubic = CellCubic::new(&corners, [0.1, 0.5, 0.5], [0.5, 0.0, 0.0], 0.4);
        let t = cubic.first_root(0.0, 2.0).unwrap();
        assert!((t - 0.6).abs() < 1e-15, "{t}");
        assert_eq!(gradient(&corners, [0.3, 0.2, 0.9]), [1.0, 0.0, 0.0]);
        assert_eq!(cubic.first_root(0.0, 0.5), None);
    }
}
