//! Light sampling tests: χ² goodness-of-fit of environment-map sampling against its pdf
//! (plain and rotated maps), pdf/sample consistency, the environment's Monte Carlo
//! integral against direct pixel summation, light-selection frequencies and the MIS pdf
//! contract of `LightSet`, and triangle-light irradiance against Lambert's closed form.

use glam::{Mat3, Vec2, Vec3};
use std::f64::consts::PI;
use warpath_core::chi2::{Rng, chi2_survival, pooled_chi2};
use warpath_core::color::luminance;
use warpath_core::distribution::Distribution2D;
use warpath_core::light::{EnvMap, Environment, LightSet, TriangleLight, pixel_solid_angle};

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

/// Bins `count` samples of `map` on a grid aligned with pixels in the map frame (each bin
/// 2×2 pixels); expected counts integrate `map.pdf` with the solid-angle Jacobian
/// `dω = 2π² sin θ du dv`, which is exact because `pdf · sin θ` is constant per pixel.
/// `jacobian` lets a test swap in a wrong Jacobian to see the test fail.
/// Returns (p-value, integral of the pdf over the sphere).
fn env_chi2(map: &EnvMap, count: usize, seed: u64, jacobian: impl Fn(f64) -> f64) -> (f64, f64) {
    let (bins_u, bins_v) = (map.width as usize / 2, map.height as usize / 2);
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
    // Four midpoints per pixel.
    let (steps_u, steps_v) = (map.width as usize * 2, map.height as usize * 2);
    let mut expected = vec![0.0; bins_u * bins_v];
    let cell_area = 1.0 / (steps_u * steps_v) as f64;
    for j in 0..steps_v {
        let v = (j as f64 + 0.5) / steps_v as f64;
        for i in 0..steps_u {
            let u = (i as f64 + 0.5) / steps_u as f64;
            let pdf = map.pdf(map.to_world * map_direction(u, v)) as f64;
            let (bu, bv) = (i * bins_u / steps_u, j * bins_v / steps_v);
            expected[bv * bins_u + bu] += pdf * jacobian(v) * cell_area * count as f64;
        }
    }
    let total: f64 = expected.iter().sum::<f64>() / count as f64;
    (chi2_p_value(&observed, &expected), total)
}

fn true_jacobian(v: f64) -> f64 {
    2.0 * PI * PI * (PI * v).sin()
}

#[test]
fn env_map_sampling_matches_pdf_chi2() {
    let map = synthetic_map(Mat3::IDENTITY);
    let (p, total) = env_chi2(&map, 300_000, 1, true_jacobian);
    assert!((total - 1.0).abs() < 1e-4, "pdf integrates to {total}");
    assert!(p > SIGNIFICANCE, "χ² rejected environment sampling, p = {p}");
}

#[test]
fn rotated_env_map_sampling_matches_pdf_chi2() {
    let map = synthetic_map(rotation());
    let (p, total) = env_chi2(&map, 300_000, 2, true_jacobian);
    assert!((total - 1.0).abs() < 1e-4, "pdf integrates to {total}");
    assert!(p > SIGNIFICANCE, "χ² rejected rotated environment sampling, p = {p}");
}

#[test]
fn env_chi2_detects_a_wrong_jacobian() {
    // Forgetting sin θ in the Jacobian must be caught: the harness can fail.
    let map = synthetic_map(Mat3::IDENTITY);
    let (p, _) = env_chi2(&map, 100_000, 3, |_| 2.0 * PI * PI);
    assert!(p < 1e-6, "χ² missed a wrong Jacobian, p = {p}");
}

#[test]
fn env_map_convention_and_rotation() {
    let (width, height, pixels) = synthetic_pixels();
    let map = EnvMap::new(width, height, pixels.clone(), Mat3::IDENTITY, 1.0);
    let at = |x: usize, y: usize| pixels[y * width as usize + x];
    // +y is the top row, -y the bottom row; -z is u = 0, +x is u = 1/4, +z is u = 1/2.
    assert_eq!(map.radiance(Vec3::new(0.0001, 1.0, -0.01)), at(0, 0));
    assert_eq!(map.radiance(Vec3::new(0.0001, -1.0, -0.01)), at(0, height as usize - 1));
    let equator_row = height as usize / 2 - 1;
    let tilt = 0.05;
    assert_eq!(map.radiance(Vec3::new(0.001, tilt, -1.0)), at(0, equator_row));
    assert_eq!(map.radiance(Vec3::new(1.0, tilt, 0.001)), at(width as usize / 4, equator_row));
    assert_eq!(map.radiance(Vec3::new(-0.001, tilt, 1.0)), at(width as usize / 2, equator_row));
    // A rotated map shows pixel (u, v) in direction to_world · map_direction(u, v).
    let r = rotation();
    let rotated = EnvMap::new(width, height, pixels.clone(), r, 2.0);
    for &(x, y) in &[(19usize, 6usize), (3, 20), (50, 28), (33, 15)] {
        let d = map_direction((x as f64 + 0.5) / width as f64, (y as f64 + 0.5) / height as f64);
        assert_eq!(rotated.radiance(r * d), 2.0 * at(x, y), "pixel ({x}, {y})");
        let uv = rotated.direction_to_uv(rotated.uv_to_direction(Vec2::new(0.3, 0.7)));
        assert!((uv - Vec2::new(0.3, 0.7)).abs().max_element() < 1e-5);
    }
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

#[test]
fn env_map_estimator_matches_pixel_integral() {
    for to_world in [Mat3::IDENTITY, rotation()] {
        let map = synthetic_map(to_world);
        assert_eq!(map.nonfinite_pixels, 1);
        let (w, h) = (map.width as usize, map.height as usize);
        // ∫ L dω by summing pixels times their exact solid angle.
        let mut exact = [0.0f64; 3];
        for y in 0..h {
            for x in 0..w {
                let p = map.pixels[y * w + x] * map.scale;
                for c in 0..3 {
                    exact[c] += p[c] as f64 * pixel_solid_angle(y, w, h);
                }
            }
        }
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
        assert!((mean_luminance * 4.0 * std::f32::consts::PI - exact_luminance).abs() < 1e-4 * exact_luminance);
    }
}

#[test]
fn env_map_zero_rows_black_maps_and_degenerate_input() {
    // Top half black: no sample may go there and its pdf is zero.
    let (width, height) = (16u32, 8u32);
    let pixels: Vec<Vec3> =
        (0..width * height).map(|i| if i / width < height / 2 { Vec3::ZERO } else { Vec3::splat(1.0) }).collect();
    let map = EnvMap::new(width, height, pixels, Mat3::IDENTITY, 1.0);
    let mut rng = Rng::new(5);
    for _ in 0..2_000 {
        let (wi, pdf) = map.sample(rng.next_vec2()).expect("sample");
        assert!(wi.y <= 1e-6 && pdf > 0.0, "sampled the black upper half: {wi}");
    }
    assert_eq!(map.pdf(Vec3::new(0.3, 0.8, 0.1)), 0.0);

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
