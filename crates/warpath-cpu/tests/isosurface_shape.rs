//! Isosurface shapes in the CPU path tracer (issue 14): white furnaces. A closed isosurface
//! (the level set −r of minus the distance from the lattice centre: a sphere) in white
//! diffuse or in glass, under a constant environment of radiance 1, must look exactly 1 from
//! everywhere: the diffuse one reflects all it receives (and light sampling of the
//! environment must see the isosurface in its shadow rays, or the surface would gather more
//! than 1), the dielectric one loses nothing. A z test of the image mean against 1, with the
//! film's own variance; a control render of a grey (albedo 0.96) isosurface, whose mean
//! must fall below 1, shows that the test sees an error of that size.

use glam::{Mat4, Vec3};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use warpath_bvh::BuildKind;
use warpath_core::camera::Camera;
use warpath_core::light::Environment;
use warpath_core::material::Material;
use warpath_core::sampler::SamplerKind;
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_isosurface::{Lattice, PlacedIsosurface};
use warpath_scene::{RenderSettings, Scene, SceneIsosurface};

mod common;
use common::image_mean;

fn sphere_field(n: u32) -> Lattice {
    let c = (n - 1) as f32 / 2.0;
    Lattice::from_fn([n, n, n], |i, j, k| {
        -((i as f32 - c).powi(2) + (j as f32 - c).powi(2) + (k as f32 - c).powi(2)).sqrt()
    })
    .unwrap()
}

fn furnace(material: Material) -> Scene {
    let n = 33;
    // The unit cube centred on the origin, 2 wide; the sphere's radius is 12 of 33 lattice units.
    let to_world = Mat4::from_translation(Vec3::splat(-1.0)) * Mat4::from_scale(Vec3::splat(2.0));
    let surface = PlacedIsosurface::new(sphere_field(n), -12.0, to_world, 4);
    Scene {
        name: "isosurface-furnace".into(),
        materials: vec![material],
        material_names: vec!["m".into()],
        isosurfaces: vec![SceneIsosurface { name: "ball".into(), material: 0, surface: Arc::new(surface) }],
        environment: Environment::Constant(Vec3::ONE),
        camera: Camera::look_at(Vec3::new(0.4, 0.8, 3.0), Vec3::ZERO, Vec3::Y, 30.0),
        settings: RenderSettings {
            width: 24,
            height: 24,
            spp: 64,
            // High: the trilinear sphere is not quite round, so rays that enter it grazing meet
            // its inside near the critical angle and some are trapped by total internal
            // reflection for hundreds of bounces (at 64 the glass furnace loses 0.28%).
            max_depth: 1000,
            seed: 3,
            sampler: SamplerKind::PaddedHalton,
            rr_threshold: 0.05,
        },
        ..Default::default()
    }
}

fn render(scene: &Scene) -> (Vec3, Vec3, u64) {
    let renderer = CpuRenderer::new(scene, BuildKind::Sah);
    let (film, stats) = renderer.render(&RenderOptions::from_scene(scene), &AtomicBool::new(false), |_| {});
    let (mean, error) = image_mean(&film);
    (mean, error, stats.counters.active_per_bounce.get(1).copied().unwrap_or(0))
}

#[test]
fn white_isosurfaces_vanish_in_a_white_furnace() {
    for (label, material) in [("diffuse", Material::diffuse(Vec3::ONE)), ("glass", Material::glass(1.5))] {
        let (mean, error, second_bounce) = render(&furnace(material));
        let z = (mean - Vec3::ONE) / error;
        eprintln!("{label}: mean {mean} ± {error}, z {z}, paths at bounce 1: {second_bounce}");
        // The sphere covers a good part of the image: paths bounce off it.
        assert!(second_bounce > 24 * 24 * 64 / 10, "{label}: only {second_bounce} paths reached bounce 1");
        assert!(z.abs().max_element() < 4.0, "{label}: mean {mean} ± {error}, z {z}");
        assert!(error.max_element() < 0.005, "{label}: standard error {error} too large to see 2%");
    }
}

#[test]
fn the_furnace_sees_a_grey_isosurface() {
    // Albedo 0.96: the image mean falls below 1 by more than the test's noise.
    let (mean, error, _) = render(&furnace(Material::diffuse(Vec3::splat(0.96))));
    let z = (mean - Vec3::ONE) / error;
    eprintln!("grey: mean {mean} ± {error}, z {z}");
    assert!(z.max_element() < -4.0, "a 4% absorber must show: mean {mean} ± {error}");
}
