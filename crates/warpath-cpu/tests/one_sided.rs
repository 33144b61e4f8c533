//! One-sided opaque BSDFs (`Material::one_sided`, TOML `one_sided = true`) against closed
//! forms: a large Lambertian square of albedo ρ in a uniform environment of radiance 1 fills
//! the image. Its front face reflects exactly ρ (it sees the whole sky, nothing else); its
//! back face does too when the BSDF is two-sided (warpath's default), and is black when it
//! is one-sided (Mitsuba's default for opaque BSDFs).

use glam::{Mat4, Vec3};
use std::sync::atomic::AtomicBool;
use warpath_bvh::BuildKind;
use warpath_core::camera::Camera;
use warpath_core::light::Environment;
use warpath_core::material::Material;
use warpath_core::sampler::SamplerKind;
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_scene::{RenderSettings, Scene};

const ALBEDO: f32 = 0.6;

/// The square [-20, 20]² in the plane z = 0, front face +z, seen from z = `camera_z`.
fn square_scene(material: Material, camera_z: f32) -> Scene {
    let square = warpath_scene::builtin::rectangle_mesh();
    let to_world = Mat4::from_scale(Vec3::new(20.0, 20.0, 1.0));
    Scene {
        name: "square".into(),
        positions: square.positions.iter().map(|&p| to_world.transform_point3(p)).collect(),
        triangles: square.triangles.clone(),
        triangle_materials: vec![0; square.triangles.len()],
        materials: vec![material],
        material_names: vec!["square".into()],
        environment: Environment::Constant(Vec3::ONE),
        camera: Camera::look_at(Vec3::new(0.0, 0.0, camera_z), Vec3::ZERO, Vec3::Y, 30.0),
        settings: RenderSettings {
            width: 8,
            height: 8,
            spp: 64,
            max_depth: 4,
            seed: 3,
            sampler: SamplerKind::PaddedHalton,
            rr_threshold: 0.05,
        },
        ..Default::default()
    }
}

/// The image mean (all channels alike here) and its standard error.
fn rendered_mean(scene: &Scene) -> (f64, f64) {
    let renderer = CpuRenderer::new(scene, BuildKind::Sah);
    let (film, _) = renderer.render(&RenderOptions::from_scene(scene), &AtomicBool::new(false), |_| {});
    let (mean, variance) = (film.mean(), film.variance_of_mean());
    let n = mean.len() as f64;
    let m = mean.iter().map(|c| c.x as f64).sum::<f64>() / n;
    let v = variance.iter().map(|c| c.x as f64).sum::<f64>() / (n * n);
    (m, v.sqrt())
}

fn assert_mean(scene: &Scene, expected: f64, what: &str) {
    let (mean, std_error) = rendered_mean(scene);
    eprintln!("{what}: {mean} ± {std_error}, expected {expected}");
    assert!((mean - expected).abs() <= 4.0 * std_error + 1e-6, "{what}: {mean} ± {std_error}, expected {expected}");
}

#[test]
fn one_sided_bsdfs_are_black_from_behind() {
    let two_sided = Material::diffuse(Vec3::splat(ALBEDO));
    let one_sided = two_sided.with_one_sided();
    let rho = ALBEDO as f64;
    assert_mean(&square_scene(two_sided, 5.0), rho, "two-sided, front");
    assert_mean(&square_scene(two_sided, -5.0), rho, "two-sided, back");
    assert_mean(&square_scene(one_sided, 5.0), rho, "one-sided, front");
    let (back, _) = rendered_mean(&square_scene(one_sided, -5.0));
    assert_eq!(back, 0.0, "a one-sided square seen from behind is black");
    // Every opaque kind is black from behind when one-sided.
    for material in [
        Material::blinn(Vec3::splat(0.3), Vec3::splat(0.3), 20.0),
        Material::mirror(Vec3::splat(0.9)),
        Material::car_paint(Vec3::new(0.2, 0.1, 0.05), Vec3::splat(0.3), 50.0, 1.5),
        Material::rough_conductor(Vec3::splat(0.9), 0.3),
    ] {
        let (front, _) = rendered_mean(&square_scene(material.with_one_sided(), 5.0));
        let (back, _) = rendered_mean(&square_scene(material.with_one_sided(), -5.0));
        assert!(front > 0.05 && back == 0.0, "{:?}: front {front}, back {back}", material.kind());
    }
}
