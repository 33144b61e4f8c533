//! Every traversal kernel × {closest, any} × {SAH, SBVH}, checked hit for hit against the
//! CPU traversal (`Bvh::intersect`, `Bvh::occluded`) on a random triangle soup and a
//! displaced sphere of 100k triangles, with 2^20 rays per scene: random origins inside and
//! outside the bounds with random (some axis-aligned) directions, "primary-like" rays from
//! one eye point, and "diffuse-like" rays leaving random surface points in cosine
//! directions (half of them shadow segments of finite length).
//!
//! A closest hit agrees when it names the same triangle with `t` within 1e-4 relative, or,
//! where the triangles differ, when both `t` are within 1e-4 relative and the ray really
//! hits the GPU's triangle at that `t` (shared edges). Where the GPU and the CPU tree
//! disagree otherwise, brute force decides who is wrong; only GPU errors fail the test (a
//! CPU-tree error is reported as well). Any hit must equal the CPU's `occluded`, and the
//! occluder the GPU names must really be hit.
//!
//! The GPU tests are `#[ignore]`d (they need a GPU): `cargo test -- --include-ignored` runs them;
//! without a device they then skip with a notice, or fail with `WARPATH_REQUIRE_GPU=1`.

use glam::Vec3;
use rayon::prelude::*;
use std::f32::consts::PI;
use warpath_bench::traverse::{self, HitMode, PersistentSettings, TraversalBuffers, TraversalKernel, trace_rays};
use warpath_bvh::{BuildKind, BuildOptions, Bvh, Hit, brute_force_intersect};
use warpath_core::math::{Ray, intersect_triangle};
use warpath_cuda::runtime::{CudaDevice, test_device};
use warpath_cuda::{DeviceBvh, GpuBvh, GpuHit, GpuRay};

const RAYS_PER_SCENE: usize = 1 << 20;
const RELATIVE_TOLERANCE: f32 = 1e-4;

fn device() -> Option<CudaDevice> {
    test_device().unwrap_or_else(|error| panic!("WARPATH_REQUIRE_GPU=1 or a broken device: {error}"))
}

/// SplitMix64: deterministic and independent of any rand version.
struct Random(u64);

impl Random {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn float(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn index(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn in_box(&mut self, min: Vec3, max: Vec3) -> Vec3 {
        min + (max - min) * Vec3::new(self.float(), self.float(), self.float())
    }
    fn direction(&mut self) -> Vec3 {
        let z = 1.0 - 2.0 * self.float();
        let r = (1.0 - z * z).max(0.0).sqrt();
        let phi = 2.0 * PI * self.float();
        Vec3::new(r * phi.cos(), r * phi.sin(), z)
    }
}

fn bounds(tris: &[[Vec3; 3]]) -> (Vec3, Vec3) {
    tris.iter()
        .flatten()
        .fold((Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)), |(lo, hi), &p| (lo.min(p), hi.max(p)))
}

/// Triangles of random position, size and shape (some long and thin) in a 20-unit box.
fn random_soup(count: usize, seed: u64) -> Vec<[Vec3; 3]> {
    let mut random = Random(seed);
    (0..count)
        .map(|i| {
            let center = random.in_box(Vec3::splat(-10.0), Vec3::splat(10.0));
            let size = 0.02 + 1.5 * random.float().powi(3);
            let stretch = if i % 7 == 0 { 8.0 } else { 1.0 };
            let a = center + random.direction() * size * stretch;
            [a, center + random.direction() * size, center + random.direction() * size]
        })
        .collect()
}

/// A UV sphere of radius ~1 with a bumpy radial displacement: `2 * rings * segments` triangles.
fn displaced_sphere(rings: usize, segments: usize) -> Vec<[Vec3; 3]> {
    let point = |ring: usize, segment: usize| {
        let theta = PI * ring as f32 / rings as f32;
        let phi = 2.0 * PI * (segment % segments) as f32 / segments as f32;
        let radius = 1.0 + 0.08 * (7.0 * theta).sin() * (5.0 * phi).cos() + 0.03 * (23.0 * theta + 17.0 * phi).sin();
        Vec3::new(theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin()) * radius
    };
    let mut tris = Vec::with_capacity(2 * rings * segments);
    for ring in 0..rings {
        for segment in 0..segments {
            let (a, b) = (point(ring, segment), point(ring, segment + 1));
            let (c, d) = (point(ring + 1, segment), point(ring + 1, segment + 1));
            tris.push([a, c, b]);
            tris.push([b, c, d]);
        }
    }
    tris
}

/// The ray mix of the module docs.
fn test_rays(tris: &[[Vec3; 3]], count: usize, seed: u64) -> Vec<Ray> {
    let mut random = Random(seed);
    let (lo, hi) = bounds(tris);
    let (center, extent) = ((lo + hi) * 0.5, (hi - lo).max(Vec3::splat(1e-3)));
    let scale = extent.max_element();
    let eye = center + Vec3::new(0.3, 0.4, 2.0) * scale;
    let axes = [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z];
    (0..count)
        .map(|i| match i % 10 {
            // Random origins in 1.5x the bounds (inside and outside), random directions.
            0..=3 => {
                let origin = random.in_box(center - extent * 0.75, center + extent * 0.75);
                let direction = if i % 20 == 1 { axes[random.index(6)] } else { random.direction() };
                let t_max = if i % 4 == 0 { random.float() * scale } else { f32::INFINITY };
                Ray { o: origin, d: direction, t_min: 0.0, t_max }
            }
            // Primary-like: from one eye point toward points in the bounds.
            4..=6 => {
                let target = random.in_box(lo, hi);
                Ray::new(eye, (target - eye).normalize())
            }
            // Diffuse-like: from a surface point, cosine-distributed about the normal
            // (either side), offset off the surface; every other one a shadow segment.
            _ => {
                let tri = tris[random.index(tris.len())];
                let (mut b1, mut b2) = (random.float(), random.float());
                if b1 + b2 > 1.0 {
                    (b1, b2) = (1.0 - b1, 1.0 - b2);
                }
                let p = tri[0] + (tri[1] - tri[0]) * b1 + (tri[2] - tri[0]) * b2;
                let mut normal = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or(Vec3::Y);
                if random.float() < 0.5 {
                    normal = -normal;
                }
                let tangent = normal.any_orthonormal_vector();
                let bitangent = normal.cross(tangent);
                let (r, phi) = (random.float().sqrt(), 2.0 * PI * random.float());
                let local = Vec3::new(r * phi.cos(), r * phi.sin(), (1.0 - r * r).max(0.0).sqrt());
                let direction = (tangent * local.x + bitangent * local.y + normal * local.z).normalize();
                let origin = p + normal * (1e-4 * scale);
                let t_max = if i % 2 == 0 { random.float() * scale } else { f32::INFINITY };
                Ray { o: origin, d: direction, t_min: 0.0, t_max }
            }
        })
        .collect()
}

fn relative_close(a: f32, b: f32) -> bool {
    (a - b).abs() <= RELATIVE_TOLERANCE * a.abs().max(b.abs()).max(f32::MIN_POSITIVE)
}

/// The hit of `ray` on triangle `prim` alone, if any.
fn hits_triangle(tris: &[[Vec3; 3]], ray: &Ray, prim: i32) -> Option<f32> {
    let tri = tris.get(usize::try_from(prim).ok()?)?;
    intersect_triangle(ray.o, ray.d, tri[0], tri[1], tri[2], ray.t_min, ray.t_max).map(|(t, _, _)| t)
}

/// Whether a GPU closest hit is an acceptable answer where `reference` is the truth.
fn closest_agrees(tris: &[[Vec3; 3]], ray: &Ray, reference: Option<Hit>, gpu: &GpuHit) -> bool {
    match (reference, gpu.is_hit()) {
        (None, false) => true,
        (None, true) | (Some(_), false) => false,
        (Some(cpu), true) => {
            if gpu.prim as u32 == cpu.prim {
                relative_close(gpu.t, cpu.t)
            } else {
                relative_close(gpu.t, cpu.t)
                    && hits_triangle(tris, ray, gpu.prim).is_some_and(|t| relative_close(t, gpu.t))
            }
        }
    }
}

#[derive(Default)]
struct Tally {
    bit_identical: usize,
    accepted_ties: usize,
    gpu_errors: usize,
    cpu_tree_errors: usize,
    first_error: Option<String>,
}

fn compare_closest(tris: &[[Vec3; 3]], rays: &[Ray], cpu: &[Option<Hit>], gpu: &[GpuHit]) -> Tally {
    let mut tally = Tally::default();
    for (index, ((ray, cpu_hit), gpu_hit)) in rays.iter().zip(cpu).zip(gpu).enumerate() {
        let identical = match cpu_hit {
            None => !gpu_hit.is_hit(),
            Some(h) => gpu_hit.prim as u32 == h.prim && gpu_hit.t == h.t && gpu_hit.u == h.u && gpu_hit.v == h.v,
        };
        if identical {
            tally.bit_identical += 1;
        } else if closest_agrees(tris, ray, *cpu_hit, gpu_hit) {
            tally.accepted_ties += 1;
        } else {
            let truth = brute_force_intersect(tris, ray);
            if closest_agrees(tris, ray, truth, gpu_hit) {
                tally.cpu_tree_errors += 1;
            } else {
                tally.gpu_errors += 1;
                tally.first_error.get_or_insert_with(|| {
                    format!("ray #{index} {ray:?}: CPU tree {cpu_hit:?}, brute force {truth:?}, GPU {gpu_hit:?}")
                });
            }
        }
    }
    tally
}

fn compare_any(tris: &[[Vec3; 3]], rays: &[Ray], cpu: &[bool], gpu: &[GpuHit]) -> Tally {
    let mut tally = Tally::default();
    for (index, ((ray, &occluded), gpu_hit)) in rays.iter().zip(cpu).zip(gpu).enumerate() {
        let occluder_is_real = !gpu_hit.is_hit() || hits_triangle(tris, ray, gpu_hit.prim).is_some();
        if gpu_hit.is_hit() == occluded && occluder_is_real {
            tally.bit_identical += 1;
        } else {
            let truth = brute_force_intersect(tris, ray).is_some();
            if gpu_hit.is_hit() == truth && occluder_is_real {
                tally.cpu_tree_errors += 1;
            } else {
                tally.gpu_errors += 1;
                tally.first_error.get_or_insert_with(|| {
                    format!("ray #{index} {ray:?}: CPU occluded {occluded}, brute force {truth}, GPU {gpu_hit:?}")
                });
            }
        }
    }
    tally
}

/// Builds, uploads and runs every kernel in both modes; returns one line per failure.
fn check_scene(device: &CudaDevice, scene: &str, tris: &[[Vec3; 3]], kind: BuildKind, seed: u64) -> Vec<String> {
    let (bvh, stats) = Bvh::build(tris, &BuildOptions { kind, ..Default::default() });
    eprintln!("{scene}: {stats}");
    let device_bvh = DeviceBvh::upload(device, &GpuBvh::from_bvh(&bvh, tris).expect("conversion")).expect("upload");
    let rays = test_rays(tris, RAYS_PER_SCENE, seed);
    let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
    let cpu_closest: Vec<Option<Hit>> = rays.par_iter().map(|ray| bvh.intersect(tris, ray)).collect();
    let cpu_occluded: Vec<bool> = rays.par_iter().map(|ray| bvh.occluded(tris, ray)).collect();
    let hit_fraction = cpu_closest.iter().filter(|h| h.is_some()).count() as f64 / rays.len() as f64;
    assert!(hit_fraction > 0.2, "{scene}: only {:.1}% of the test rays hit: a weak test", hit_fraction * 100.0);

    let mut failures = Vec::new();
    for kernel in TraversalKernel::ALL {
        for mode in [HitMode::Closest, HitMode::Any] {
            let label = format!("{scene} {kind} {kernel}/{mode}");
            let gpu = match trace_rays(device, &device_bvh, &gpu_rays, kernel, mode) {
                Ok(gpu) => gpu,
                Err(error) => {
                    failures.push(format!("{label}: {error}"));
                    continue;
                }
            };
            let tally = match mode {
                HitMode::Closest => compare_closest(tris, &rays, &cpu_closest, &gpu),
                HitMode::Any => compare_any(tris, &rays, &cpu_occluded, &gpu),
            };
            eprintln!(
                "{label}: {} identical, {} equal-t ties, {} GPU errors, {} CPU-tree errors of {}",
                tally.bit_identical,
                tally.accepted_ties,
                tally.gpu_errors,
                tally.cpu_tree_errors,
                rays.len()
            );
            if tally.gpu_errors > 0 {
                failures.push(format!(
                    "{label}: {} mismatches of {} rays (first: {})",
                    tally.gpu_errors,
                    rays.len(),
                    tally.first_error.unwrap_or_default()
                ));
            }
        }
    }
    failures
}

fn run_scene(scene: &str, tris: &[[Vec3; 3]], kind: BuildKind, seed: u64) {
    let Some(device) = device() else { return };
    let failures = check_scene(&device, scene, tris, kind, seed);
    assert!(failures.is_empty(), "{} failing kernel(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn random_soup_sah() {
    run_scene("random soup", &random_soup(30_000, 11), BuildKind::Sah, 101);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn random_soup_sbvh() {
    run_scene("random soup", &random_soup(30_000, 11), BuildKind::Sbvh, 102);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn displaced_sphere_sah() {
    run_scene("displaced sphere", &displaced_sphere(250, 200), BuildKind::Sah, 103);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn displaced_sphere_sbvh() {
    run_scene("displaced sphere", &displaced_sphere(250, 200), BuildKind::Sbvh, 104);
}

/// Degenerate trees: no triangles (everything misses), and a root that is a leaf.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn empty_scene_and_root_leaf() {
    let Some(device) = device() else { return };
    let (empty, _) = Bvh::build(&[], &BuildOptions::default());
    let device_bvh = DeviceBvh::upload(&device, &GpuBvh::from_bvh(&empty, &[]).unwrap()).unwrap();
    let probe = test_rays(&random_soup(10, 1), 1000, 5);
    let gpu_rays: Vec<GpuRay> = probe.iter().map(GpuRay::from).collect();
    for kernel in TraversalKernel::ALL {
        for mode in [HitMode::Closest, HitMode::Any] {
            let hits = trace_rays(&device, &device_bvh, &gpu_rays, kernel, mode).unwrap();
            let wrong = hits.iter().zip(&probe).filter(|(h, r)| h.is_hit() || h.t != r.t_max).count();
            assert_eq!(wrong, 0, "empty scene, {kernel}/{mode}: {wrong} rays report a hit or a wrong t");
        }
    }

    let tris = random_soup(3, 9);
    let (bvh, _) = Bvh::build(&tris, &BuildOptions { max_leaf_size: 8, ..Default::default() });
    assert!(bvh.nodes[0].is_leaf());
    let device_bvh = DeviceBvh::upload(&device, &GpuBvh::from_bvh(&bvh, &tris).unwrap()).unwrap();
    let rays = test_rays(&tris, 4096, 6);
    let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
    let cpu: Vec<Option<Hit>> = rays.iter().map(|r| bvh.intersect(&tris, r)).collect();
    let occluded: Vec<bool> = rays.iter().map(|r| bvh.occluded(&tris, r)).collect();
    assert!(cpu.iter().any(|h| h.is_some()));
    for kernel in TraversalKernel::ALL {
        let closest = trace_rays(&device, &device_bvh, &gpu_rays, kernel, HitMode::Closest).unwrap();
        let tally = compare_closest(&tris, &rays, &cpu, &closest);
        assert_eq!(tally.gpu_errors, 0, "root leaf, {kernel}/closest: {:?}", tally.first_error);
        let any = trace_rays(&device, &device_bvh, &gpu_rays, kernel, HitMode::Any).unwrap();
        let tally = compare_any(&tris, &rays, &occluded, &any);
        assert_eq!(tally.gpu_errors, 0, "root leaf, {kernel}/any: {:?}", tally.first_error);
    }
}

/// The persistent kernels with fetch thresholds 1 (fetch only when the warp is idle) and
/// 32 (fetch whenever a lane is idle), a grid of one block per SM, and a ray count that is
/// not a multiple of the warp size: every ray answered exactly as by while-while.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn persistent_fetch_thresholds_and_odd_counts() {
    let Some(device) = device() else { return };
    let tris = displaced_sphere(60, 50);
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::sbvh());
    let device_bvh = DeviceBvh::upload(&device, &GpuBvh::from_bvh(&bvh, &tris).unwrap()).unwrap();
    let rays: Vec<GpuRay> = test_rays(&tris, 100_003, 21).iter().map(GpuRay::from).collect();
    let reference = trace_rays(&device, &device_bvh, &rays, TraversalKernel::WhileWhile, HitMode::Closest).unwrap();
    for kernel in [TraversalKernel::PersistentDynamicFetch, TraversalKernel::PostponedLeaves] {
        for fetch_threshold in [1, 8, 20, 32] {
            for blocks_per_multiprocessor in [Some(1), None] {
                let settings = PersistentSettings { fetch_threshold, blocks_per_multiprocessor };
                let mut buffers = TraversalBuffers::new(&device, &rays).unwrap();
                let TraversalBuffers { rays: ray_buffer, hits, .. } = &mut buffers;
                let mut counter = warpath_cuda::DeviceBuffer::<u32>::zeroed(&device, 1).unwrap();
                traverse::trace(
                    &device,
                    &device_bvh,
                    ray_buffer,
                    hits,
                    &mut counter,
                    kernel,
                    HitMode::Closest,
                    &settings,
                )
                .unwrap();
                let got = buffers.hits.download(&device).unwrap();
                let differing = got.iter().zip(&reference).filter(|(a, b)| a != b).count();
                assert_eq!(differing, 0, "{kernel} with {settings:?}: {differing} rays differ from while-while");
            }
        }
    }
    let mut buffers = TraversalBuffers::new(&device, &rays).unwrap();
    let TraversalBuffers { rays: ray_buffer, hits, .. } = &mut buffers;
    let mut counter = warpath_cuda::DeviceBuffer::<u32>::zeroed(&device, 1).unwrap();
    let bad = PersistentSettings { fetch_threshold: 0, blocks_per_multiprocessor: None };
    assert!(
        traverse::trace(
            &device,
            &device_bvh,
            ray_buffer,
            hits,
            &mut counter,
            TraversalKernel::PostponedLeaves,
            HitMode::Any,
            &bad
        )
        .is_err(),
        "a fetch threshold of 0 must be refused"
    );
}

/// The typed launch functions run the kernels they name.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn typed_launch_functions() {
    let Some(device) = device() else { return };
    let tris = random_soup(2000, 3);
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    let device_bvh = DeviceBvh::from_bvh(&device, &bvh, &tris).unwrap();
    let rays = test_rays(&tris, 10_000, 8);
    let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::from).collect();
    let cpu: Vec<Option<Hit>> = rays.iter().map(|r| bvh.intersect(&tris, r)).collect();
    let occluded: Vec<bool> = rays.iter().map(|r| bvh.occluded(&tris, r)).collect();
    type Launch = fn(&CudaDevice, &DeviceBvh, &mut TraversalBuffers) -> warpath_cuda::CudaResult<()>;
    let launches: [(&str, Launch, HitMode); 8] = [
        ("closest_while_while", traverse::closest_while_while, HitMode::Closest),
        ("any_while_while", traverse::any_while_while, HitMode::Any),
        ("closest_speculative_while_while", traverse::closest_speculative_while_while, HitMode::Closest),
        ("any_speculative_while_while", traverse::any_speculative_while_while, HitMode::Any),
        ("closest_persistent_dynamic_fetch", traverse::closest_persistent_dynamic_fetch, HitMode::Closest),
        ("any_persistent_dynamic_fetch", traverse::any_persistent_dynamic_fetch, HitMode::Any),
        ("closest_postponed_leaves", traverse::closest_postponed_leaves, HitMode::Closest),
        ("any_postponed_leaves", traverse::any_postponed_leaves, HitMode::Any),
    ];
    for (name, launch, mode) in launches {
        let mut buffers = TraversalBuffers::new(&device, &gpu_rays).unwrap();
        launch(&device, &device_bvh, &mut buffers).unwrap();
        let gpu = buffers.hits.download(&device).unwrap();
        let tally = match mode {
            HitMode::Closest => compare_closest(&tris, &rays, &cpu, &gpu),
            HitMode::Any => compare_any(&tris, &rays, &occluded, &gpu),
        };
        assert_eq!(tally.gpu_errors, 0, "{name}: {} mismatches ({:?})", tally.gpu_errors, tally.first_error);
    }
}

/// `bench_traversal` runs and reports a positive rate and the hit count of a closest-hit run.
#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn bench_traversal_reports() {
    let Some(device) = device() else { return };
    let tris = displaced_sphere(100, 100);
    let (bvh, _) = Bvh::build(&tris, &BuildOptions::default());
    let rays = test_rays(&tris, 200_000, 4);
    let expected_hits = rays.iter().filter(|r| bvh.intersect(&tris, r).is_some()).count();
    let options = traverse::BenchOptions { warmup_runs: 1, timed_runs: 3, ..Default::default() };
    for kernel in TraversalKernel::ALL {
        let timing = traverse::bench_traversal(&device, &bvh, &tris, &rays, kernel, &options).unwrap();
        eprintln!("{kernel}: {:.3} ms median, {:.1} Mrays/s", timing.median_ms, timing.mrays_per_second);
        assert_eq!(timing.run_ms.len(), 3);
        assert!(timing.median_ms > 0.0 && timing.mrays_per_second > 0.0);
        assert_eq!(timing.hit_count, expected_hits, "{kernel}");
    }
}

fn as_gpu_hit(hit: Option<Hit>, ray: &Ray) -> GpuHit {
    match hit {
        Some(h) => GpuHit { t: h.t, u: h.u, v: h.v, prim: h.prim as i32 },
        None => GpuHit { t: ray.t_max, u: 0.0, v: 0.0, prim: -1 },
    }
}

/// Runs without a GPU: the comparison harness accepts the GPU layout's CPU emulation (the
/// kernels' algorithm over the converted tree) on every scene and ray kind, and flags
/// corrupted results, so the GPU tests above can pass and can fail.
#[test]
fn harness_accepts_layout_emulation_and_flags_errors() {
    for (scene, tris) in [("random soup", random_soup(30_000, 11)), ("displaced sphere", displaced_sphere(250, 200))] {
        for kind in [BuildKind::Sah, BuildKind::Sbvh] {
            let (bvh, _) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
            let layout = GpuBvh::from_bvh(&bvh, &tris).unwrap();
            let rays = test_rays(&tris, 40_000, 77);
            let cpu: Vec<Option<Hit>> = rays.par_iter().map(|r| bvh.intersect(&tris, r)).collect();
            let occluded: Vec<bool> = rays.par_iter().map(|r| bvh.occluded(&tris, r)).collect();
            let hits = cpu.iter().filter(|h| h.is_some()).count();
            assert!(hits > rays.len() / 5, "{scene} {kind}: only {hits} of {} rays hit", rays.len());
            assert!(occluded.iter().filter(|&&o| o).count() < hits + 1, "shadow segments must occlude less often");

            let emulated: Vec<GpuHit> = rays.par_iter().map(|r| as_gpu_hit(layout.intersect(r), r)).collect();
            let tally = compare_closest(&tris, &rays, &cpu, &emulated);
            assert_eq!((tally.gpu_errors, tally.accepted_ties), (0, 0), "{scene} {kind}: {:?}", tally.first_error);
            let any: Vec<GpuHit> = rays
                .par_iter()
                .map(|r| if layout.occluded(r) { as_gpu_hit(layout.intersect(r), r) } else { as_gpu_hit(None, r) })
                .collect();
            let tally = compare_any(&tris, &rays, &occluded, &any);
            assert_eq!(tally.gpu_errors, 0, "{scene} {kind} any hit: {:?}", tally.first_error);

            // Corruptions are caught: a dropped hit, a wrong triangle, a shifted t, a false occluder.
            let mut corrupted = emulated.clone();
            let hit_indices: Vec<usize> = (0..rays.len()).filter(|&i| corrupted[i].is_hit()).take(4).collect();
            corrupted[hit_indices[0]].prim = -1;
            corrupted[hit_indices[1]].prim = (corrupted[hit_indices[1]].prim + 1) % tris.len() as i32;
            corrupted[hit_indices[2]].t *= 1.001;
            let tally = compare_closest(&tris, &rays, &cpu, &corrupted);
            assert_eq!(tally.gpu_errors, 3, "{scene} {kind}: corrupted closest hits must be flagged");
            let mut false_occluder = any.clone();
            let miss = (0..rays.len()).find(|&i| !occluded[i]).unwrap();
            false_occluder[miss] = GpuHit { t: 1.0, u: 0.0, v: 0.0, prim: 0 };
            assert_eq!(compare_any(&tris, &rays, &occluded, &false_occluder).gpu_errors, 1);
        }
    }
}
