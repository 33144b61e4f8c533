//! Light sampling tests: χ² goodness-of-fit of environment-map sampling against its pdf
//! (plain and rotated maps; the pdf integrates to 1), pdf/sample consistency, Mitsuba's
//! bilinear lookup convention, the environment's Monte Carlo integral against a quadrature
//! of the bilinear radiance, the linear-CDF inversion, light-selection frequencies and the
//! MIS pdf contract of `LightSet`, and triangle-light irradiance against Lambert's closed form.

use glam::{Mat3, Vec2, Vec3};
use std::f64::consts::PI;
use warpath_core::color::luminance;
use warpath_core::distribution::Distribution2D;
use warpath_core::light::{EnvMap, Environment, LightSet, TriangleLight, sample_linear};
use warpath_testkit::chi2::{Rng, chi2_survival, pooled_chi2};

/// Pearson χ² test of observed counts against expected counts. Bins expected to hold
/// fewer than 5 samples are pooled into one (as Mitsuba's harness does). Returns the
/// p-value; an observation in a bin of zero expectation gives 0.
fn chi2_p_value(observed: &[f64], expected: &[f64]) -> f64 {
    let mut cells: Vec<(f64, f64)> = observed.iter().copied().zip(expected.iter().copied()).collect();
    let (statistic, bins) = pooled_chi2(&mut cells, 5.0);
    chi2_survival(statistic, bins.saturating_sub(1).max(1) as f64)
}

const SIGNIFICANCE: f64 = 1e-3;

#[test]
fn chi2_p_value_helper_is_calibrated() {
    // Known χ² quantiles: P(χ²₁ > 3.841) = 0.05, P(χ²₁₀ > 23.209) = 0.01, P(χ²₁₀₀ > 124.342) = 0.05.
    assert!((chi2_survival(3.841_459, 1.0) - 0.05).abs() < 1e-5);
    assert!((chi2_survival(23.209_25, 10.0) - 0.01).abs() < 1e-5);
    assert!((chi2_survival(124.342, 100.0) - 0.05).abs() < 1e-4);
    // A count far from its expectation is rejected.
    assert!(chi2_p_value(&[50.0, 150.0], &[100.0, 100.0]) < 1e-6);
}

/// A 64×32 sky: a gradient, a dark ground with a black band, a bright sun blob, and a
/// NaN pixel.
fn synthetic_pixels() -> (u32, u32, Vec<Vec3>) {
    let (width, height) = (64u32, 32u32);
    let mut pixels = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        for x in 0..width {
            let (u, v) = ((x as f32 + 0.5) / width as f32, (y as f32 + 0.5) / height as f32);
            let sky = Vec3::new(0.3 + 0.5 * u, 0.5, 1.0 - 0.6 * v);
            let mut c = if v < 0.5 { sky * (1.2 - v) } else { Vec3::new(0.2, 0.15, 0.1) * (1.0 + (7.0 * u).sin()) };
            if (20..22).contains(&y) {
                c = Vec3::ZERO;
            }
            let sun = ((u - 0.3) * 2.0).powi(2) + (v - 0.2).powi(2);
            if sun < 0.004 {
                c += Vec3::new(400.0, 350.0, 300.0);
            }
            pixels.push(c);
        }
    }
    pixels[(5 * width + 40) as usize] = Vec3::new(f32::NAN, 1.0, 1.0);
    (width, height, pixels)
}

fn synthetic_map(to_world: Mat3) -> EnvMap {
    let (width, height, pixels) = synthetic_pixels();
    EnvMap::new(width, height, pixels, to_world, 1.5)
}

fn rotation() -> Mat3 {
    Mat3::from_axis_angle(Vec3::new(1.0, 2.0, 0.5).normalize(), 1.1)
}

/// The test's own statement of the convention: map-frame direction of (u, v).
fn map_direction(u: f64, v: f64) -> Vec3 {
    let (phi, theta) = (2.0 * PI * u, PI * v);
    Vec3::new((theta.sin() * phi.sin()) as f32, theta.cos() as f32, (-theta.sin() * phi.cos()) as f32)
}

/// Bins `count` samples of `map` on a (u, v) grid of `width / 2 × (height − 1)` bins in the
/// map frame; expected counts integrate `map.pdf` with the solid-angle Jacobian
/// `dω = 2π² sin θ du dv` by the midpoint rule on a grid of sub-cells, each inside one
/// bilinear patch (sub-cell borders at multiples of 1/(2 width) in u, which include the
/// patch borders (c + ½)/width, and of 1/(2 (height − 1)) in v): there `pdf · sin θ` is
/// bilinear, so the midpoint rule is exact. `density(u, v)` is the claimed density over
/// (u, v) (what [`true_density`] makes of `map.pdf`), so a test can swap in a wrong one to
/// see the test fail. Returns (p-value, integral of the density over the map).
fn env_chi2(map: &EnvMap, count: usize, seed: u64, density: impl Fn(f64, f64) -> f64) -> (f64, f64) {
    let (bins_u, bins_v) = (map.width as usize / 2, map.height as usize - 1);
    let mut observed = vec![0.0; bins_u * bins_v];
    let mut rng = Rng::new(seed);
    let to_map = map.to_world.transpose();
    for _ in 0..count {
        let Some((wi, pdf)) = map.sample(rng.next_vec2()) else { continue };
        assert!(pdf > 0.0 && pdf.is_finite());
        let d = (to_map * wi).normalize();
        let u = (d.x as f64).atan2(-d.z as f64) / (2.0 * PI);
        let u = u - u.floor();
        let v = (d.y as f64).clamp(-1.0, 1.0).acos() / PI;
        let (bu, bv) = (((u * bins_u as f64) as usize).min(bins_u - 1), ((v * bins_v as f64) as usize).min(bins_v - 1));
        observed[bv * bins_u + bu] += 1.0;
    }
    let (steps_u, steps_v) = (map.width as usize * 2, (map.height as usize - 1) * 2);
    let mut expected = vec![0.0; bins_u * bins_v];
    let cell_area = 1.0 / (steps_u * steps_v) as f64;
    for j in 0..steps_v {
        let v = (j as f64 + 0.5) / steps_v as f64;
        for i in 0..steps_u {
            let u = (i as f64 + 0.5) / steps_u as f64;
            let (bu, bv) = (i * bins_u / steps_u, j * bins_v / steps_v);
            expected[bv * bins_u + bu] += density(u, v) * cell_area * count as f64;
        }
    }
    let total: f64 = expected.iter().sum::<f64>() / count as f64;
    (chi2_p_value(&observed, &expected), total)
}

/// The density over (u, v) of `map.sample`, from `map.pdf` and dω = 2π² sin θ du dv.
fn true_density(map: &EnvMap) -> impl Fn(f64, f64) -> f64 + '_ {
    |u, v| map.pdf(map.to_world * map_direction(u, v)) as f64 * 2.0 * PI * PI * (PI * v).sin()
}

#[test]
fn env_map_sampling_matches_pdf_chi2() {
    let map = synthetic_map(Mat3::IDENTITY);
    let (p, total) = env_chi2(&map, 300_000, 1, true_density(&map));
    assert!((total - 1.0).abs() < 1e-4, "pdf integrates to {total}");
    assert!(p > SIGNIFICANCE, "χ² rejected environment sampling, p = {p}");
}

#[test]
fn rotated_env_map_sampling_matches_pdf_chi2() {
    let map = synthetic_map(rotation());
    let (p, total) = env_chi2(&map, 300_000, 2, true_density(&map));
    assert!((total - 1.0).abs() < 1e-4, "pdf integrates to {total}");
    assert!(p > SIGNIFICANCE, "χ² rejected rotated environment sampling, p = {p}");
}

#[test]
fn env_chi2_detects_wrong_densities() {
    // The harness can fail: forgetting sin θ in the Jacobian is caught, and so is a density
    // that is constant over each bilinear patch (each patch's mean: the right probability per
    // patch, but not the bilinear shape inside it).
    let map = synthetic_map(Mat3::IDENTITY);
    let pdf = true_density(&map);
    let (p, _) = env_chi2(&map, 100_000, 3, |u, v| pdf(u, v) / (PI * v).sin());
    assert!(p < 1e-6, "χ² missed a wrong Jacobian, p = {p}");
    let patch_mean = |u: f64, v: f64| {
        let patch = map.patch(Vec2::new(u as f32, v as f32));
        map.distribution.cell_pdf(patch.column, patch.row) as f64
    };
    let (p, total) = env_chi2(&map, 300_000, 4, patch_mean);
    assert!((total - 1.0).abs() < 1e-4, "the patch means integrate to {total}");
    assert!(p < 1e-6, "χ² missed a piecewise-constant density, p = {p}");
}

/// The lookup's convention, stated here independently of the implementation: texel (c, r)
/// is seen at u = (c + ½)/width, v = r/(height − 1) (Mitsuba 3's `envmap`), and between
/// texel centres the radiance is bilinear, wrapping around in φ and clamped at the poles.
/// Evaluated in f64 from (u, v).
fn convention_value(map: &EnvMap, u: f64, v: f64) -> Vec3 {
    let (w, h) = (map.width as usize, map.height as usize);
    let x = u * w as f64 - 0.5;
    let (x0, fx) = (x.floor(), x - x.floor());
    let (c0, c1) = (((x0 as i64).rem_euclid(w as i64)) as usize, ((x0 as i64 + 1).rem_euclid(w as i64)) as usize);
    let y = v * (h - 1) as f64;
    let r0 = (y.floor() as usize).min(h - 2);
    let fy = y - r0 as f64;
    let p = |c: usize, r: usize| map.pixels[r * w + c].as_dvec3();
    let upper = p(c0, r0) * (1.0 - fx) + p(c1, r0) * fx;
    let lower = p(c0, r0 + 1) * (1.0 - fx) + p(c1, r0 + 1) * fx;
    ((upper * (1.0 - fy) + lower * fy) * map.scale as f64).as_vec3()
}

fn texel_centre(x: usize, y: usize, width: u32, height: u32) -> (f64, f64) {
    ((x as f64 + 0.5) / width as f64, y as f64 / (height - 1) as f64)
}

fn assert_close(a: Vec3, b: Vec3, what: &str) {
    assert!((a - b).abs().max_element() <= 1e-4 * b.abs().max_element().max(1e-2), "{what}: {a} vs {b}");
}

#[test]
fn env_map_convention_and_rotation() {
    let (width, height, pixels) = synthetic_pixels();
    let map = EnvMap::new(width, height, pixels.clone(), Mat3::IDENTITY, 1.0);
    let at = |x: usize, y: usize| {
        let p = pixels[y * width as usize + x];
        if p.is_finite() { p } else { Vec3::ZERO }
    };
    // Texel centres show their texel: −z is u = 0, +x is u = 1/4, +z is u = 1/2.
    let equator_row = (height as usize - 1) / 2;
    for &(x, y) in &[(0usize, 3usize), (width as usize / 4, equator_row), (width as usize / 2, 25), (19, 6), (50, 28)] {
        let (u, v) = texel_centre(x, y, width, height);
        assert_close(map.radiance(map_direction(u, v)), at(x, y), &format!("texel ({x}, {y})"));
    }
    let (u, v) = texel_centre(width as usize / 4, equator_row, width, height);
    assert!((map_direction(u, v) - Vec3::X).length() < 0.1);
    // Halfway between four texel centres: their mean; halfway across the seam (u = 0):
    // the mean of the last and the first column; a quarter of the way between two rows.
    let (u, v) = texel_centre(20, 9, width, height);
    let (du, dv) = (0.5 / width as f64, 0.5 / (height - 1) as f64);
    let mean4 = (at(20, 9) + at(21, 9) + at(20, 10) + at(21, 10)) * 0.25;
    assert_close(map.radiance(map_direction(u + du, v + dv)), mean4, "between four texels");
    let (_, v) = texel_centre(0, 12, width, height);
    let seam = (at(0, 12) + at(width as usize - 1, 12)) * 0.5;
    assert_close(map.radiance(map_direction(1e-7, v)), seam, "across the seam");
    let (u, v) = texel_centre(33, 14, width, height);
    let quarter = at(33, 14) * 0.75 + at(33, 15) * 0.25;
    assert_close(map.radiance(map_direction(u, v + 0.5 * dv)), quarter, "a quarter down");
    // Near the poles (+y is the top row, −y the bottom row) and anywhere else.
    let mut rng = Rng::new(41);
    let mut points = vec![(0.3, 1e-3), (0.8, 1.0 - 1e-3), (0.05, 2e-3)];
    points.extend((0..500).map(|_| (rng.next_f32() as f64, rng.next_f32() as f64 * 0.998 + 0.001)));
    for (u, v) in points {
        assert_close(map.radiance(map_direction(u, v)), convention_value(&map, u, v), &format!("(u, v) = ({u}, {v})"));
    }
    // A rotated map shows (u, v) in direction to_world · map_direction(u, v).
    let r = rotation();
    let rotated = EnvMap::new(width, height, pixels.clone(), r, 2.0);
    for &(x, y) in &[(19usize, 6usize), (3, 20), (50, 28), (33, 15)] {
        let (u, v) = texel_centre(x, y, width, height);
        assert_close(rotated.radiance(r * map_direction(u, v)), 2.0 * at(x, y), &format!("rotated ({x}, {y})"));
        let uv = rotated.direction_to_uv(rotated.uv_to_direction(Vec2::new(0.3, 0.7)));
        assert!((uv - Vec2::new(0.3, 0.7)).abs().max_element() < 1e-5);
    }
}

#[test]
fn sample_linear_inverts_the_linear_cdf() {
    let mut rng = Rng::new(31);
    for (a, b) in [(1.0f32, 1.0f32), (0.0, 1.0), (1.0, 0.0), (0.2, 5.0), (3.0, 0.01), (1e-30, 2e-30)] {
        for _ in 0..1000 {
            let u = rng.next_f32();
            let x = sample_linear(u, a, b) as f64;
            assert!((0.0..=1.0).contains(&x), "x = {x}");
            // CDF of the density ∝ (1 − x) a + x b.
            let (a, b) = (a as f64, b as f64);
            let cdf = (a * x + (b - a) * x * x / 2.0) / ((a + b) / 2.0);
            assert!((cdf - u as f64).abs() < 2e-6, "a {a} b {b} u {u}: cdf({x}) = {cdf}");
        }
    }
    assert_eq!(sample_linear(0.0, 0.0, 1.0), 0.0);
    assert_eq!(sample_linear(0.3, 0.0, 0.0), 0.3);
}

#[test]
fn env_map_pdf_equals_sample_pdf() {
    for to_world in [Mat3::IDENTITY, rotation()] {
        let map = synthetic_map(to_world);
        let mut rng = Rng::new(7);
        let (count, mut mismatches) = (20_000, 0);
        for _ in 0..count {
            let (wi, pdf) = map.sample(rng.next_vec2()).expect("sample");
            assert!((wi.length() - 1.0).abs() < 1e-5);
            let pdf_again = map.pdf(wi);
            if (pdf_again - pdf).abs() > 1e-4 * pdf {
                mismatches += 1;
            }
            // Sampled directions carry radiance (black pixels have zero probability).
            assert!(map.radiance(wi).max_element() > 0.0 || (pdf_again - pdf).abs() > 1e-4 * pdf);
        }
        // Only a sample rounded across a pixel border may disagree.
        assert!(mismatches * 1000 <= count, "{mismatches} of {count} pdfs disagree");
    }
}

/// ∫ L dω of the bilinear map ([`convention_value`]) by quadrature: per patch, 64 × 64
/// midpoint nodes (v enters through sin θ, smooth), in f64.
fn bilinear_integral(map: &EnvMap) -> [f64; 3] {
    let steps = 64;
    let (w, h) = (map.width as usize, map.height as usize);
    let mut total = [0.0f64; 3];
    for j in 0..(h - 1) * steps {
        let v = (j as f64 + 0.5) / ((h - 1) * steps) as f64;
        let d_omega = 2.0 * PI * PI * (PI * v).sin() / ((w * steps) * (h - 1) * steps) as f64;
        for i in 0..w * steps {
            let u = (i as f64 + 0.5) / (w * steps) as f64;
            let value = convention_value(map, u, v);
            for c in 0..3 {
                total[c] += value[c] as f64 * d_omega;
            }
        }
    }
    total
}

#[test]
fn env_map_estimator_matches_bilinear_integral() {
    for to_world in [Mat3::IDENTITY, rotation()] {
        let map = synthetic_map(to_world);
        assert_eq!(map.nonfinite_pixels, 1);
        let exact = bilinear_integral(&map);
        let count = 200_000;
        let mut rng = Rng::new(11);
        let (mut sum, mut sum_sq) = ([0.0f64; 3], [0.0f64; 3]);
        for _ in 0..count {
            let (wi, pdf) = map.sample(rng.next_vec2()).expect("sample");
            let f = map.radiance(wi) / pdf;
            for c in 0..3 {
                sum[c] += f[c] as f64;
                sum_sq[c] += (f[c] as f64).powi(2);
            }
        }
        for c in 0..3 {
            let mean = sum[c] / count as f64;
            let std_error = ((sum_sq[c] / count as f64 - mean * mean).max(0.0) / count as f64).sqrt();
            assert!(
                (mean - exact[c]).abs() < 5.0 * std_error + 1e-4 * exact[c],
                "channel {c}: estimate {mean} ± {std_error}, exact {}",
                exact[c]
            );
        }
        let exact_luminance = luminance(Vec3::new(exact[0] as f32, exact[1] as f32, exact[2] as f32));
        let mean_luminance = map.mean_luminance();
        assert!(
            (mean_luminance * 4.0 * std::f32::consts::PI - exact_luminance).abs() < 1e-4 * exact_luminance,
            "{} vs {exact_luminance}",
            mean_luminance * 4.0 * std::f32::consts::PI
        );
    }
}

#[test]
fn env_map_zero_rows_black_maps_and_degenerate_input() {
    // Rows 0-3 black, 4-7 white: the radiance is zero above row 3 (v < 3/7), rises to row 4
    // (v = 4/7) and no sample may land where it is zero, whose pdf is zero too.
    let (width, height) = (16u32, 8u32);
    let pixels: Vec<Vec3> =
        (0..width * height).map(|i| if i / width < height / 2 { Vec3::ZERO } else { Vec3::splat(1.0) }).collect();
    let map = EnvMap::new(width, height, pixels, Mat3::IDENTITY, 1.0);
    let mut rng = Rng::new(5);
    let black_below = (PI * 3.0 / 7.0).cos() as f32;
    for _ in 0..2_000 {
        let (wi, pdf) = map.sample(rng.next_vec2()).expect("sample");
        assert!(wi.y <= black_below + 1e-6 && pdf > 0.0, "sampled the black upper part: {wi}");
        assert!(map.radiance(wi).x > 0.0, "sampled a black direction {wi}");
    }
    assert_eq!(map.pdf(Vec3::new(0.3, 0.8, 0.1)), 0.0);
    assert_eq!(map.radiance(Vec3::new(0.3, 0.8, 0.1)), Vec3::ZERO);
    // A one-row map is two equal rows.
    let one_row = EnvMap::new(4, 1, vec![Vec3::ONE; 4], Mat3::IDENTITY, 1.0);
    assert_eq!((one_row.height, one_row.pixels.len()), (2, 8));
    assert_close(one_row.radiance(Vec3::new(0.2, 0.3, 0.4)), Vec3::ONE, "one-row map");

    // All black: uniform sphere, pdf 1/4π, no power.
    let black = EnvMap::new(8, 4, vec![Vec3::ZERO; 32], Mat3::IDENTITY, 1.0);
    let (wi, pdf) = black.sample(Vec2::new(0.2, 0.9)).expect("uniform fallback");
    assert!((pdf - 1.0 / (4.0 * std::f32::consts::PI)).abs() < 1e-7);
    assert_eq!(black.pdf(wi), pdf);
    assert_eq!(black.mean_luminance(), 0.0);

    // All NaN: black map, every pixel counted.
    let nan = EnvMap::new(4, 2, vec![Vec3::NAN; 8], Mat3::IDENTITY, 1.0);
    assert_eq!(nan.nonfinite_pixels, 8);
    assert_eq!(nan.radiance(Vec3::X), Vec3::ZERO);

    // Wrong sizes do not panic.
    let short = EnvMap::new(4, 4, vec![Vec3::ONE; 3], Mat3::IDENTITY, 1.0);
    assert_eq!(short.pixels.len(), 16);
    let empty = EnvMap::new(0, 0, Vec::new(), Mat3::IDENTITY, 1.0);
    assert_eq!(empty.radiance(Vec3::Y), Vec3::ZERO);
    assert!(empty.sample(Vec2::splat(0.5)).is_some());
}

#[test]
fn distribution_2d_pdf_matches_weights() {
    let weights = [0.0, 1.0, 3.0, 0.0, 0.0, 0.0, 2.0, 2.0, 4.0];
    let d = Distribution2D::new(&weights, 3, 3);
    let total: f32 = weights.iter().sum();
    for row in 0..3 {
        for column in 0..3 {
            let uv = Vec2::new((column as f32 + 0.5) / 3.0, (row as f32 + 0.5) / 3.0);
            let expected = weights[row * 3 + column] / total * 9.0;
            assert!((d.pdf(uv) - expected).abs() < 1e-5, "cell ({column}, {row})");
        }
    }
    let mut rng = Rng::new(3);
    for _ in 0..1000 {
        let (uv, pdf) = d.sample_continuous(rng.next_vec2());
        assert!(pdf > 0.0 && (d.pdf(uv) - pdf).abs() < 1e-5 * pdf);
    }
    assert_eq!(d.pdf(Vec2::new(1.0, 0.5)), 0.0);
    let uniform = Distribution2D::new(&[0.0; 6], 3, 2);
    assert!((uniform.pdf(Vec2::new(0.1, 0.9)) - 1.0).abs() < 1e-6);
}

/// A triangle in the plane y = `height`, facing down (-y) toward the origin.
fn ceiling_triangle(center: Vec3, size: f32, emission: Vec3, index: u32) -> TriangleLight {
    let v0 = center + Vec3::new(-size, 0.0, -size);
    let v1 = center + Vec3::new(size, 0.0, -size);
    let v2 = center + Vec3::new(0.0, 0.0, size);
    let light = TriangleLight::new(v0, v1, v2, emission, false, index);
    assert!(light.normal().y < 0.0);
    light
}

#[test]
fn light_selection_frequencies_and_mis_pdfs() {
    let triangles = vec![
        ceiling_triangle(Vec3::new(-2.0, 2.0, 0.0), 0.3, Vec3::splat(10.0), 4),
        ceiling_triangle(Vec3::new(0.0, 3.0, 1.0), 0.6, Vec3::new(2.0, 1.0, 0.5), 7),
        ceiling_triangle(Vec3::new(2.0, 2.5, -1.0), 0.2, Vec3::splat(40.0), 9),
    ];
    let env = Environment::Map(synthetic_map(rotation()));
    let lights = LightSet::new(triangles.clone(), 12, env, 0.3);
    assert_eq!(lights.triangle_to_light[7], 1);
    assert_eq!(lights.triangle_to_light[0], -1);
    // Selection probabilities are proportional to power.
    for i in 1..3 {
        let ratio = lights.selection.discrete_pdf(i) / lights.selection.discrete_pdf(0);
        assert!((ratio - triangles[i].power() / triangles[0].power()).abs() < 1e-4 * ratio);
    }
    let p = Vec3::new(0.1, 0.0, -0.2);
    let centroids: Vec<Vec3> = triangles.iter().map(|t| t.p0 + (t.e1 + t.e2) / 3.0).collect();
    let count = 100_000;
    let mut observed = vec![0.0; 4];
    let mut rng = Rng::new(17);
    let mut env_mismatches = 0;
    for _ in 0..count {
        let sample = lights.sample(p, rng.next_f32(), rng.next_vec2()).expect("every light faces p");
        if sample.distance.is_infinite() {
            observed[3] += 1.0;
            let pdf = lights.pdf_environment(sample.wi);
            if (pdf - sample.pdf).abs() > 1e-4 * sample.pdf {
                env_mismatches += 1;
            }
            assert_eq!(sample.radiance, lights.environment_radiance(sample.wi));
        } else {
            let q = p + sample.wi * sample.distance;
            let index = (0..3).min_by(|&a, &b| q.distance(centroids[a]).total_cmp(&q.distance(centroids[b]))).unwrap();
            observed[index] += 1.0;
            let pdf = lights.pdf_triangle(index, sample.wi, sample.distance);
            assert!((pdf - sample.pdf).abs() <= 1e-4 * sample.pdf, "triangle {index}: {pdf} vs {}", sample.pdf);
            assert_eq!(sample.radiance, triangles[index].emission);
        }
    }
    assert!(env_mismatches * 1000 <= count, "{env_mismatches} environment pdfs disagree");
    let expected: Vec<f64> = (0..4).map(|i| lights.selection.discrete_pdf(i) as f64 * count as f64).collect();
    let p_value = chi2_p_value(&observed, &expected);
    assert!(p_value > SIGNIFICANCE, "selection frequencies {observed:?} vs {expected:?}, p = {p_value}");
    // The back of a one-sided light is never sampled, so its pdf is zero there.
    assert!(lights.pdf_triangle(0, Vec3::Y, 1.0) > 0.0);
    let from_above = -Vec3::Y; // looking down at the (unlit) top face
    assert_eq!(lights.pdf_triangle(0, from_above, 1.0), 0.0);
    assert_eq!(lights.pdf_triangle(99, Vec3::Y, 1.0), 0.0);
}

#[test]
fn constant_environment_mis_pdf() {
    let lights = LightSet::new(Vec::new(), 0, Environment::Constant(Vec3::new(0.5, 1.0, 2.0)), 1.0);
    let mut rng = Rng::new(23);
    for _ in 0..100 {
        let s = lights.sample(Vec3::ZERO, rng.next_f32(), rng.next_vec2()).expect("sample");
        assert!((s.pdf - 1.0 / (4.0 * std::f32::consts::PI)).abs() < 1e-7);
        assert_eq!(lights.pdf_environment(s.wi), s.pdf);
        assert_eq!(s.radiance, Vec3::new(0.5, 1.0, 2.0));
    }
}

/// Irradiance at `p` with normal `n` from a Lambertian polygon of radiance 1 entirely
/// above the horizon (Lambert's formula: E = ½ Σ βᵢ n·γᵢ).
fn polygon_irradiance(p: Vec3, n: Vec3, vertices: &[Vec3]) -> f64 {
    let mut sum = 0.0f64;
    for i in 0..vertices.len() {
        let a = (vertices[i] - p).normalize().as_dvec3();
        let b = (vertices[(i + 1) % vertices.len()] - p).normalize().as_dvec3();
        let angle = a.dot(b).clamp(-1.0, 1.0).acos();
        sum += angle * a.cross(b).normalize().dot(n.as_dvec3());
    }
    0.5 * sum.abs()
}

#[test]
fn triangle_light_irradiance_matches_lambert_formula() {
    let (v0, v1, v2) = (Vec3::new(-0.5, 1.0, -0.3), Vec3::new(0.7, 1.2, 0.2), Vec3::new(0.1, 1.4, 0.9));
    let emission = Vec3::new(3.0, 2.0, 1.0);
    let p = Vec3::new(0.05, 0.0, 0.1);
    let n = Vec3::new(0.2, 1.0, -0.1).normalize();
    // Orient the triangle so its emitting side faces p.
    let facing = |a: Vec3, b: Vec3, c: Vec3| (b - a).cross(c - a).dot(p - a) > 0.0;
    let (a, b, c) = if facing(v0, v1, v2) { (v0, v1, v2) } else { (v0, v2, v1) };
    for two_sided in [false, true] {
        let light = TriangleLight::new(a, b, c, emission, two_sided, 0);
        let lights = LightSet::new(vec![light], 1, Environment::None, 1.0);
        let exact = polygon_irradiance(p, n, &[a, b, c]) * emission.x as f64;
        let count = 100_000;
        let mut rng = Rng::new(29);
        let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
        for _ in 0..count {
            let s = lights.sample(p, rng.next_f32(), rng.next_vec2()).expect("front side");
            let f = (s.radiance.x * n.dot(s.wi).max(0.0) / s.pdf) as f64;
            sum += f;
            sum_sq += f * f;
        }
        let mean = sum / count as f64;
        let std_error = ((sum_sq / count as f64 - mean * mean).max(0.0) / count as f64).sqrt();
        assert!((mean - exact).abs() < 5.0 * std_error + 1e-5 * exact, "E = {mean} ± {std_error}, exact {exact}");
        // From behind, a one-sided light gives nothing and a two-sided one the mirrored value.
        let behind = 2.0 * (a + b + c) / 3.0 - p;
        let s = lights.sample(behind, 0.5, Vec2::new(0.3, 0.6));
        assert_eq!(s.is_some(), two_sided);
    }
}

/// Point, spot and directional lights join the selection after the triangles and the
/// environment, each with the power `DeltaLight::power` gives it (4π I, the spot's cone,
/// π r² E): χ² of the selected bins against those powers; every delta sample carries the
/// selection probability as its pdf, `delta` set, and I·falloff/d² or E.
#[test]
fn delta_lights_are_selected_by_power_chi2() {
    use warpath_core::light::{DeltaLight, delta_kind};
    let triangle = TriangleLight::new(
        Vec3::new(-1.0, 2.0, -1.0),
        Vec3::new(1.0, 2.0, -1.0),
        Vec3::new(0.0, 2.0, 1.0),
        Vec3::splat(5.0),
        false,
        0,
    );
    let deltas = vec![
        DeltaLight::point(Vec3::new(0.0, 3.0, 0.0), Vec3::new(2.0, 1.0, 0.5)),
        DeltaLight::spot(Vec3::new(1.0, 3.0, 0.0), Vec3::NEG_Y, Vec3::splat(8.0), 30.0, 10.0),
        DeltaLight::directional(Vec3::new(0.2, -1.0, 0.1), Vec3::splat(0.7)),
    ];
    let radius = 4.0;
    let lights =
        LightSet::with_delta_lights(vec![triangle], 1, Environment::Constant(Vec3::splat(0.1)), deltas.clone(), radius);
    assert_eq!((lights.selection.count(), lights.delta_offset()), (5, 2));
    let powers: Vec<f64> =
        [triangle.power(), luminance(Vec3::splat(0.1)) * std::f32::consts::PI * 16.0 * 4.0 * std::f32::consts::PI]
            .into_iter()
            .chain(deltas.iter().map(|d| d.power(radius)))
            .map(f64::from)
            .collect();
    assert!((powers[2] - 4.0 * PI * luminance(Vec3::new(2.0, 1.0, 0.5)) as f64).abs() < 1e-4);
    assert!((powers[4] - PI * 16.0 * 0.7).abs() < 1e-4);
    let total: f64 = powers.iter().sum();
    let n = 200_000usize;
    let mut observed = vec![0.0; 5];
    let mut rng = Rng::new(41);
    let p = Vec3::new(0.3, 0.0, 0.2);
    for _ in 0..n {
        let u_select = rng.next_f32();
        let (bin, select_pdf) = lights.selection.sample_discrete(u_select);
        observed[bin] += 1.0;
        if bin >= lights.delta_offset() {
            let light = deltas[bin - lights.delta_offset()];
            let ls = lights.sample(p, u_select, rng.next_vec2()).expect("every delta light reaches p");
            assert!(ls.delta && ls.pdf == select_pdf, "{ls:?}");
            let expected = match light.kind {
                delta_kind::DIRECTIONAL => light.intensity,
                _ => light.intensity * light.falloff(-ls.wi) / (light.position - p).length_squared(),
            };
            assert!((ls.radiance - expected).abs().max_element() <= 1e-5 * expected.max_element(), "{ls:?}");
        }
    }
    let expected: Vec<f64> = powers.iter().map(|w| w / total * n as f64).collect();
    let p_value = chi2_p_value(&observed, &expected);
    assert!(p_value > SIGNIFICANCE, "selection counts {observed:?} vs powers {expected:?}: p = {p_value}");
}

/// The spot's falloff: 1 inside the beam, linear in the angle down to 0 at the cutoff (as
/// Mitsuba's `spot`), 0 beyond; a beam wider than the cutoff is the cutoff.
#[test]
fn spot_falloff_is_linear_in_angle() {
    use warpath_core::light::DeltaLight;
    let spot = DeltaLight::spot(Vec3::ZERO, Vec3::Z, Vec3::ONE, 40.0, 20.0);
    let at = |degrees: f32| {
        let t = degrees.to_radians();
        spot.falloff(Vec3::new(t.sin(), 0.0, t.cos()))
    };
    assert_eq!(at(0.0), 1.0);
    assert_eq!(at(19.5), 1.0);
    for (angle, expected) in [(25.0, 0.75), (30.0, 0.5), (35.0, 0.25), (39.0, 0.05)] {
        assert!((at(angle) - expected).abs() < 2e-4, "{angle}°: {} vs {expected}", at(angle));
    }
    assert_eq!(at(40.5), 0.0);
    assert_eq!(at(120.0), 0.0);
    let wide = DeltaLight::spot(Vec3::ZERO, Vec3::Z, Vec3::ONE, 30.0, 45.0);
    assert_eq!(wide.cos_beam, wide.cos_cutoff);
    let t = 29.5f32.to_radians();
    assert_eq!(wide.falloff(Vec3::new(t.sin(), 0.0, t.cos())), 1.0);
}
