//! Point, spot and directional lights against closed forms: a large Lambertian square of
//! albedo ρ in the plane z = 0, seen head-on through a very narrow camera, lit by one delta
//! light and nothing else, with one bounce (next-event estimation at the first hit; the
//! continuation escapes into black). The pixel values are then ρ/π · I · falloff · cos θ / d²
//! (point, spot) or ρ/π · E · cos θ (directional), up to the tiny spread of the pixels'
//! footprint; with the three lights at once, light selection makes each sample one light's
//! contribution over its selection probability, whose mean is the sum.

use glam::{Mat4, Vec3};
use std::f32::consts::PI;
use std::sync::atomic::AtomicBool;
use warpath_bvh::BuildKind;
use warpath_core::camera::Camera;
use warpath_core::light::DeltaLight;
use warpath_core::material::Material;
use warpath_core::sampler::SamplerKind;
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_scene::{RenderSettings, Scene};

const ALBEDO: f32 = 0.6;

fn lit_square(lights: Vec<DeltaLight>, spp: u32) -> Scene {
    let square = warpath_scene::builtin::rectangle_mesh();
    let to_world = Mat4::from_scale(Vec3::new(20.0, 20.0, 1.0));
    Scene {
        name: "lit-square".into(),
        positions: square.positions.iter().map(|&p| to_world.transform_point3(p)).collect(),
        triangles: square.triangles.clone(),
        triangle_materials: vec![0; square.triangles.len()],
        materials: vec![Material::diffuse(Vec3::splat(ALBEDO))],
        material_names: vec!["square".into()],
        delta_lights: lights,
        camera: Camera::look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y, 0.2),
        settings: RenderSettings {
            width: 4,
            height: 4,
            spp,
            max_depth: 1,
            seed: 5,
            sampler: SamplerKind::PaddedHalton,
            rr_threshold: 0.0,
        },
        ..Default::default()
    }
}

/// The image mean of each channel and the standard error of the red one.
fn rendered(scene: &Scene) -> (Vec3, f64) {
    let renderer = CpuRenderer::new(scene, BuildKind::Sah);
    let (film, _) = renderer.render(&RenderOptions::from_scene(scene), &AtomicBool::new(false), |_| {});
    let (mean, variance) = (film.mean(), film.variance_of_mean());
    let n = mean.len() as f32;
    let m = mean.iter().copied().sum::<Vec3>() / n;
    let v = variance.iter().map(|c| c.x as f64).sum::<f64>() / (n as f64 * n as f64);
    (m, v.sqrt())
}

fn assert_close(got: Vec3, expected: Vec3, relative: f32, what: &str) {
    eprintln!("{what}: {got}, expected {expected}");
    assert!(((got - expected).abs().cmple(expected * relative)).all(), "{what}: {got}, expected {expected}");
}

fn point() -> DeltaLight {
    DeltaLight::point(Vec3::new(0.0, 0.0, 2.0), Vec3::new(3.0, 2.0, 1.0))
}

/// Straight above the square's centre, its axis tilted 25° away: the centre sees it halfway
/// down the ramp from the 20° beam to the 30° cutoff.
fn spot() -> DeltaLight {
    let angle = 25f32.to_radians();
    let axis = Vec3::new(angle.sin(), 0.0, -angle.cos());
    DeltaLight::spot(Vec3::new(0.0, 0.0, 2.0), axis, Vec3::new(1.0, 4.0, 2.0), 30.0, 20.0)
}

fn sun() -> DeltaLight {
    let angle = 30f32.to_radians();
    DeltaLight::directional(Vec3::new(angle.sin(), 0.0, -angle.cos()), Vec3::new(2.0, 1.0, 0.5))
}

fn expected_point() -> Vec3 {
    Vec3::new(3.0, 2.0, 1.0) * (ALBEDO / PI / 4.0)
}

fn expected_spot() -> Vec3 {
    Vec3::new(1.0, 4.0, 2.0) * (ALBEDO / PI * 0.5 / 4.0)
}

fn expected_sun() -> Vec3 {
    Vec3::new(2.0, 1.0, 0.5) * (ALBEDO / PI * 30f32.to_radians().cos())
}

#[test]
fn a_point_light_gives_intensity_over_distance_squared() {
    assert_close(rendered(&lit_square(vec![point()], 4)).0, expected_point(), 2e-3, "point");
}

#[test]
fn a_spot_light_ramps_linearly_in_angle_between_beam_and_cutoff() {
    assert_close(rendered(&lit_square(vec![spot()], 4)).0, expected_spot(), 1e-2, "spot");
    // Outside the cutoff: black.
    let mut narrow = spot();
    narrow.cos_cutoff = 24f32.to_radians().cos();
    narrow.cos_beam = 20f32.to_radians().cos();
    assert_eq!(rendered(&lit_square(vec![narrow], 4)).0, Vec3::ZERO);
    // Inside the beam: the full intensity.
    let wide = {
        let s = spot();
        DeltaLight::spot(s.position, s.direction, s.intensity, 40.0, 30.0)
    };
    assert_close(rendered(&lit_square(vec![wide], 4)).0, expected_spot() * 2.0, 2e-3, "spot inside its beam");
}

#[test]
fn a_directional_light_gives_irradiance_times_cosine() {
    assert_close(rendered(&lit_square(vec![sun()], 4)).0, expected_sun(), 1e-4, "directional");
}

#[test]
fn light_selection_over_delta_lights_is_unbiased() {
    let (mean, std_error) = rendered(&lit_square(vec![point(), spot(), sun()], 65536));
    let expected = expected_point() + expected_spot() + expected_sun();
    eprintln!("three lights: {mean} ± {std_error} (red), expected {expected}");
    assert!(std_error > 0.0, "selection among three lights must vary per sample");
    // The spot's footprint spread (≤ 1%) and the 4σ noise band.
    let tolerance = 4.0 * std_error as f32 + 0.01 * expected_spot().x;
    assert!(tolerance < 0.5 * expected_spot().x, "too noisy to see a spot half as bright: ±{tolerance}");
    assert!((mean.x - expected.x).abs() <= tolerance, "{mean} vs {expected} (±{tolerance})");
}
