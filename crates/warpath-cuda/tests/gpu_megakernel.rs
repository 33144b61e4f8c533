//! The naive megakernel against the CPU reference estimator (warpath-cpu), same scene,
//! seed and spp (DESIGN.md, "CPU vs CUDA"):
//!
//! - per-bounce active path counts (paths entering `extend`), extension and shadow rays
//!   agree to 0.1% (or 3 paths, for the sparse last bounces);
//! - the images agree within Monte Carlo noise: per pixel and channel
//!   z = (gpu − cpu) / sqrt(var_gpu + var_cpu) from the films' `variance_of_mean()`, with
//!   mean z² < 1.5 and fewer than 1% of pixels with |z| > 4; the number of pixels that are
//!   exactly equal is printed (the estimator is a 1:1 port, so most paths are identical up
//!   to float round-off of the transcendentals);
//! - on the built-in Cornell box, and on a scene built here with an environment map,
//!   textures, shading normals, a thin lens and every material kind (glass, rough
//!   dielectric, rough conductor, mirror, Blinn, car paint);
//! - two GPU renders with the same seed are bit-identical;
//! - the device compiler's layout of the estimator's structs equals Rust's.
//!
//! Skips with a notice when there is no device; fails instead with `WARPATH_REQUIRE_GPU=1`.

use glam::{Mat3, Vec2, Vec3};
use warpath_bvh::BuildKind;
use warpath_core::camera::Camera;
use warpath_core::film::Film;
use warpath_core::light::{EnvMap, Environment};
use warpath_core::material::Material;
use warpath_core::sampler::SamplerKind;
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_cuda::megakernel::{MegakernelRenderer, PathCounters};
use warpath_cuda::runtime::{CudaDevice, test_device};
use warpath_cuda::scene_upload::{device_layout_report, layout_entries};
use warpath_scene::{RenderSettings, Scene, Texture};

fn device() -> Option<CudaDevice> {
    test_device().unwrap_or_else(|error| panic!("WARPATH_REQUIRE_GPU=1 or a broken device: {error}"))
}

fn settings(width: u32, height: u32, spp: u32, seed: u32, sampler: SamplerKind) -> RenderSettings {
    RenderSettings { width, height, spp, max_depth: 8, seed, sampler, rr_threshold: 0.05 }
}

fn cpu_options(s: &RenderSettings) -> RenderOptions {
    RenderOptions {
        width: s.width,
        height: s.height,
        spp: s.spp,
        max_depth: s.max_depth,
        seed: s.seed,
        sampler: s.sampler,
        rr_threshold: s.rr_threshold,
        spp_per_pass: s.spp,
    }
}

fn render_cpu(scene: &Scene, s: &RenderSettings) -> (Film, warpath_cpu::integrator::PathCounters) {
    let renderer = CpuRenderer::new(scene, BuildKind::Sah);
    let mut film = Film::new(s.width, s.height);
    let counters = renderer.render_pass(&cpu_options(s), &mut film, 0, s.spp);
    (film, counters)
}

/// Renders in two passes (exercising first_sample) with instrumentation on.
fn render_gpu(device: &CudaDevice, scene: &Scene, s: &RenderSettings) -> (Film, PathCounters) {
    let mut renderer = MegakernelRenderer::new(device, scene, s, BuildKind::Sah).expect("upload");
    renderer.set_instrumentation(true).expect("counters");
    let first = s.spp / 2;
    renderer.render_pass(0, first).expect("pass 1");
    renderer.render_pass(first, s.spp - first).expect("pass 2");
    (renderer.download_film().expect("film"), renderer.counters().expect("counters"))
}

fn compare_counters(label: &str, cpu: &warpath_cpu::integrator::PathCounters, gpu: &PathCounters) {
    eprintln!("{label}: CPU active per bounce {:?}", cpu.active_per_bounce);
    eprintln!("{label}: GPU active per bounce {:?}", gpu.active_per_bounce);
    eprintln!(
        "{label}: extension rays CPU {} GPU {}, shadow rays CPU {} GPU {}",
        cpu.extension_rays, gpu.extension_rays, cpu.shadow_rays, gpu.shadow_rays
    );
    let close = |c: u64, g: u64| (c as f64 - g as f64).abs() <= (0.001 * c as f64).max(3.0);
    let bounces = cpu.active_per_bounce.len().max(gpu.active_per_bounce.len());
    for b in 0..bounces {
        let c = cpu.active_per_bounce.get(b).copied().unwrap_or(0);
        let g = gpu.active_per_bounce.get(b).copied().unwrap_or(0);
        assert!(close(c, g), "{label}: bounce {b}: CPU {c} paths, GPU {g}");
    }
    assert!(close(cpu.extension_rays, gpu.extension_rays), "{label}: extension rays");
    assert!(close(cpu.shadow_rays, gpu.shadow_rays), "{label}: shadow rays");
    assert_eq!(cpu.active_per_bounce[0], gpu.active_per_bounce[0], "{label}: every sample starts a path");
}

fn compare_images(label: &str, cpu: &Film, gpu: &Film) {
    assert_eq!(cpu.count, gpu.count, "{label}: sample counts");
    let (cpu_mean, gpu_mean) = (cpu.mean(), gpu.mean());
    let (cpu_var, gpu_var) = (cpu.variance_of_mean(), gpu.variance_of_mean());
    let (mut z2_sum, mut values, mut outliers, mut exact) = (0.0f64, 0usize, 0usize, 0usize);
    let mut worst = (0.0f64, 0usize);
    for i in 0..cpu.pixel_count() {
        if cpu.sum[i] == gpu.sum[i] && cpu.sum_sq[i] == gpu.sum_sq[i] {
            exact += 1;
        }
        let mut pixel_outlier = false;
        for c in 0..3 {
            let (a, b) = (cpu_mean[i][c] as f64, gpu_mean[i][c] as f64);
            let var = cpu_var[i][c] as f64 + gpu_var[i][c] as f64;
            let diff = (a - b).abs();
            let z = if var > 0.0 {
                diff / var.sqrt()
            } else if diff <= 1e-5 * a.abs().max(b.abs()) + 1e-7 {
                0.0
            } else {
                f64::INFINITY
            };
            z2_sum += if z.is_finite() { z * z } else { 100.0 };
            values += 1;
            pixel_outlier |= z > 4.0;
            if z > worst.0 {
                worst = (z, i);
            }
        }
        outliers += pixel_outlier as usize;
    }
    let mean_z2 = z2_sum / values as f64;
    let outlier_fraction = outliers as f64 / cpu.pixel_count() as f64;
    eprintln!(
        "{label}: {exact} of {} pixels exactly equal; mean z² {mean_z2:.4}; {outliers} pixels with |z| > 4; \
         worst |z| {:.2} at pixel {} (CPU {:?}, GPU {:?})",
        cpu.pixel_count(),
        worst.0,
        worst.1,
        cpu_mean[worst.1],
        gpu_mean[worst.1]
    );
    assert!(mean_z2 < 1.5, "{label}: mean z² {mean_z2}");
    assert!(outlier_fraction < 0.01, "{label}: {outliers} pixels with |z| > 4");
}

#[test]
fn estimator_layout_matches() {
    let Some(device) = device() else { return };
    let report = device_layout_report(&device).expect("layout report");
    let entries = layout_entries();
    assert_eq!(report.len(), entries.len());
    for (entry, value) in entries.iter().zip(&report) {
        assert_eq!(entry.value as u64, *value, "{}", entry.label);
    }
}

#[test]
fn cornell_matches_cpu_reference() {
    let Some(device) = device() else { return };
    let scene = warpath_scene::load("cornell").expect("built-in");
    for sampler in [SamplerKind::PaddedHalton, SamplerKind::Pcg] {
        let s = settings(64, 64, 16, 7, sampler);
        let (cpu_film, cpu_counters) = render_cpu(&scene, &s);
        let (gpu_film, gpu_counters) = render_gpu(&device, &scene, &s);
        let label = format!("cornell/{sampler:?}");
        compare_counters(&label, &cpu_counters, &gpu_counters);
        compare_images(&label, &cpu_film, &gpu_film);
    }
}

/// Adds a mesh to `scene` with per-vertex normals and uvs.
fn add_mesh(scene: &mut Scene, positions: &[Vec3], normals: &[Vec3], uvs: &[Vec2], tris: &[[u32; 3]], material: u32) {
    let base = scene.positions.len() as u32;
    scene.positions.extend_from_slice(positions);
    scene.normals.extend_from_slice(normals);
    scene.uvs.extend_from_slice(uvs);
    for t in tris {
        scene.triangles.push([t[0] + base, t[1] + base, t[2] + base]);
        scene.triangle_materials.push(material);
    }
}

fn add_sphere(scene: &mut Scene, center: Vec3, radius: f32, material: u32) {
    let sphere = warpath_scene::builtin::sphere_mesh(2);
    let (unit, tris) = (sphere.positions, sphere.triangles);
    let positions: Vec<Vec3> = unit.iter().map(|&p| center + p * radius).collect();
    let uvs: Vec<Vec2> = unit.iter().map(|p| Vec2::new(0.5 + 0.5 * p.x, 0.5 + 0.5 * p.y)).collect();
    add_mesh(scene, &positions, &unit, &uvs, &tris, material);
}

fn add_quad(scene: &mut Scene, corners: [Vec3; 4], uv_scale: f32, material: u32) {
    let normal = (corners[1] - corners[0]).cross(corners[2] - corners[0]).normalize();
    let uvs = [Vec2::ZERO, Vec2::new(uv_scale, 0.0), Vec2::splat(uv_scale), Vec2::new(0.0, uv_scale)];
    add_mesh(scene, &corners, &[normal; 4], &uvs, &[[0, 1, 2], [0, 2, 3]], material);
}

/// A synthetic HDR sky: a gradient, a bright sun and a coloured band, rotated about y.
fn environment_map() -> EnvMap {
    let (w, h) = (32u32, 16u32);
    let mut pixels = Vec::with_capacity((w * h) as usize);
    for row in 0..h {
        for column in 0..w {
            let v = (row as f32 + 0.5) / h as f32;
            let mut p = Vec3::new(0.3, 0.4, 0.6) * (1.2 - v) + Vec3::splat(0.05);
            if (row, column) == (4, 9) || (row, column) == (4, 10) {
                p = Vec3::new(60.0, 50.0, 35.0);
            }
            if row == 9 && column % 4 == 0 {
                p = Vec3::new(2.0, 0.3, 0.2);
            }
            pixels.push(p);
        }
    }
    EnvMap::new(w, h, pixels, Mat3::from_rotation_y(0.7), 1.3)
}

/// Every material kind under an environment map and a small area light, with a textured
/// floor, shading normals and a thin-lens camera.
fn material_scene() -> Scene {
    let mut scene = Scene { name: "gpu-megakernel-materials".into(), ..Default::default() };
    let materials = [
        Material { base_color_texture: 0, ..Material::diffuse(Vec3::splat(0.8)) },
        Material::glass(1.5),
        Material::rough_dielectric(1.4, 0.3),
        Material::rough_conductor(Vec3::new(0.9, 0.6, 0.3), 0.35),
        Material::chrome(),
        Material::blinn(Vec3::new(0.4, 0.2, 0.1), Vec3::splat(0.4), 40.0),
        Material::car_paint(Vec3::new(0.1, 0.2, 0.5), Vec3::splat(0.3), 60.0, 1.5),
        Material::emitter(Vec3::new(8.0, 7.0, 6.0)),
    ];
    scene.materials = materials.to_vec();
    scene.material_names = (0..materials.len()).map(|i| format!("m{i}")).collect();
    let mut checker = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            checker.push(if (x + y) % 2 == 0 { Vec3::new(0.9, 0.9, 0.8) } else { Vec3::new(0.2, 0.3, 0.25) });
        }
    }
    scene.textures = vec![Texture { name: "checker".into(), width: 4, height: 4, pixels: checker }];
    add_quad(
        &mut scene,
        [
            Vec3::new(-4.0, -1.0, 4.0),
            Vec3::new(4.0, -1.0, 4.0),
            Vec3::new(4.0, -1.0, -4.0),
            Vec3::new(-4.0, -1.0, -4.0),
        ],
        3.0,
        0,
    );
    let spheres = [(-2.4, 1), (-1.2, 2), (0.0, 3), (1.2, 4), (2.4, 5)];
    for (x, material) in spheres {
        add_sphere(&mut scene, Vec3::new(x, -0.45, 0.0), 0.55, material);
    }
    add_sphere(&mut scene, Vec3::new(0.6, -0.6, 1.3), 0.4, 6);
    // A one-sided light facing down.
    add_quad(
        &mut scene,
        [Vec3::new(-0.5, 2.5, -0.5), Vec3::new(-0.5, 2.5, 0.5), Vec3::new(0.5, 2.5, 0.5), Vec3::new(0.5, 2.5, -0.5)],
        1.0,
        7,
    );
    scene.environment = Environment::Map(environment_map());
    let mut camera = Camera::look_at(Vec3::new(0.0, 1.2, 6.0), Vec3::new(0.0, -0.4, 0.0), Vec3::Y, 45.0);
    camera.aperture_radius = 0.05;
    scene.camera = camera;
    scene
}

#[test]
fn material_scene_matches_cpu_reference() {
    let Some(device) = device() else { return };
    let scene = material_scene();
    let s = settings(64, 48, 16, 3, SamplerKind::PaddedHalton);
    let (cpu_film, cpu_counters) = render_cpu(&scene, &s);
    let (gpu_film, gpu_counters) = render_gpu(&device, &scene, &s);
    compare_counters("materials", &cpu_counters, &gpu_counters);
    compare_images("materials", &cpu_film, &gpu_film);
}

#[test]
fn same_seed_is_bit_identical() {
    let Some(device) = device() else { return };
    for scene in [warpath_scene::load("cornell").expect("built-in"), material_scene()] {
        let s = settings(64, 64, 8, 11, SamplerKind::PaddedHalton);
        let mut renderer = MegakernelRenderer::new(&device, &scene, &s, BuildKind::Sah).expect("upload");
        renderer.render_pass(0, s.spp).expect("render");
        let first = renderer.download_film().expect("film");
        renderer.reset().expect("reset");
        // A different block shape and instrumentation on must not change a single bit.
        renderer.set_block_size((16, 16)).expect("block");
        renderer.set_instrumentation(true).expect("counters");
        renderer.render_pass(0, s.spp).expect("render");
        let second = renderer.download_film().expect("film");
        assert_eq!(first.count, second.count);
        assert!(first.sum == second.sum && first.sum_sq == second.sum_sq, "{}: renders differ", scene.name);
    }
}

/// Runs without a GPU: the test scene is valid for the uploader and the CPU renders it
/// with every material reached, so the GPU comparison above exercises what it claims.
#[test]
fn material_scene_is_valid_and_lit() {
    let scene = material_scene();
    let lights = scene.light_set();
    let params =
        warpath_cuda::scene_upload::GpuSceneParams::new(&scene, &lights, &settings(32, 24, 4, 3, SamplerKind::Pcg))
            .expect("valid scene");
    assert_eq!(params.env_kind, warpath_cuda::scene_upload::env_kind::MAP);
    assert_eq!(params.light_count, 2);
    let (film, counters) = render_cpu(&scene, &settings(32, 24, 4, 3, SamplerKind::Pcg));
    let mean: f32 = film.mean().iter().map(|p| p.x + p.y + p.z).sum::<f32>() / film.pixel_count() as f32;
    assert!(mean.is_finite() && mean > 0.05, "mean {mean}");
    assert!(counters.active_per_bounce.len() >= 4 && counters.shadow_rays > 0, "{counters:?}");
}
