//! `warpath-bench traversal`: Mrays/s of every GPU traversal kernel (seed 004) on both
//! trees, for three ray distributions generated from the scene's camera:
//!
//! - **primary**: one ray through the centre of every pixel, in pixel order (coherent);
//! - **ao**: from every primary hit, a cosine-distributed direction around the surface
//!   normal, length 10% of the scene's bounding-box diagonal, any hit (shadow-like);
//! - **diffuse**: the same origins with cosine directions and unbounded length, closest
//!   hit, unsorted (as a path tracer's bounces are).
//!
//! Rays are made on the CPU (the hit points by the CPU BVH), then each kernel is timed with
//! CUDA events after warm-up runs; the median is reported. Every kernel's hits are also
//! checked against the CPU traversal (`Bvh::intersect` / `occluded`): the same triangle
//! with `t` within 1e-4 relative, or a different triangle at the same `t` (a shared edge);
//! the table's last columns count those and the mismatches.

use anyhow::{Context, Result};
use glam::{Vec2, Vec3};
use rayon::prelude::*;
use serde::Serialize;
use std::path::PathBuf;
use warpath_bvh::{BuildKind, BuildOptions, Bvh};
use warpath_cli::commands::load_scene;
use warpath_core::math::{Frame, Ray, offset_ray_origin};
use warpath_core::sampler::{pcg_hash, u32_to_unit};
use warpath_core::warp::square_to_cosine_hemisphere;
use warpath_cuda::traverse::{BenchOptions, HitMode, TraversalKernel, trace_rays};
use warpath_cuda::{CudaDevice, DeviceBvh, GpuBvh, GpuHit, GpuRay, bench_traversal};

#[derive(clap::Args)]
pub struct TraversalArgs {
    /// Scenes (built-in names or paths).
    #[arg(required = true)]
    pub scenes: Vec<String>,
    /// Primary-ray image size WIDTHxHEIGHT (one ray per pixel).
    #[arg(long, value_parser = warpath_cli::parse_resolution, default_value = "1024x1024")]
    pub resolution: (u32, u32),
    /// Timed runs per kernel (median reported).
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    /// Kernels to run (default: all): while-while, speculative, persistent, postponed.
    #[arg(long, value_delimiter = ',')]
    pub kernels: Vec<String>,
    /// Also write the results as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Serialize)]
struct Row {
    scene: String,
    triangles: usize,
    tree: String,
    rays_kind: String,
    kernel: String,
    rays: usize,
    hits: usize,
    median_ms: f32,
    mrays_per_second: f64,
    /// Rays whose GPU result equals the CPU's (same triangle, t within 1e-4 relative).
    identical: usize,
    /// Rays hitting a different triangle at the same t (shared edges).
    equal_t_ties: usize,
    mismatches: usize,
}

/// Compares GPU hits with the CPU traversal: (identical, equal-t ties, mismatches).
fn verify(bvh: &Bvh, tris: &[[Vec3; 3]], rays: &[Ray], mode: HitMode, gpu: &[GpuHit]) -> (usize, usize, usize) {
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1e-6);
    let verdicts: Vec<u8> = rays
        .par_iter()
        .zip(gpu)
        .map(|(ray, g)| match mode {
            HitMode::Any => u8::from(bvh.occluded(tris, ray) != g.is_hit()) * 2,
            HitMode::Closest => match bvh.intersect(tris, ray) {
                None if !g.is_hit() => 0,
                Some(h) if g.is_hit() && h.prim as i32 == g.prim && close(h.t, g.t) => 0,
                Some(h) if g.is_hit() && close(h.t, g.t) => 1,
                _ => 2,
            },
        })
        .collect();
    let count = |v: u8| verdicts.iter().filter(|&&x| x == v).count();
    (count(0), count(1), count(2))
}

struct RaySet {
    name: &'static str,
    mode: HitMode,
    rays: Vec<Ray>,
}

fn random2(index: u32, salt: u32) -> Vec2 {
    let a = pcg_hash(index.wrapping_mul(2).wrapping_add(salt.wrapping_mul(0x9E37_79B9)));
    let b = pcg_hash(a ^ 0x68E3_1DA4);
    Vec2::new(u32_to_unit(a), u32_to_unit(b))
}

fn make_rays(scene: &warpath_scene::Scene, bvh: &Bvh, tris: &[[Vec3; 3]], width: u32, height: u32) -> Vec<RaySet> {
    let primary: Vec<Ray> = (0..width * height)
        .map(|i| {
            let film = Vec2::new((i % width) as f32 + 0.5, (i / width) as f32 + 0.5);
            scene.camera.generate_ray(film, width, height, Vec2::splat(0.5))
        })
        .collect();
    let ao_length = 0.1 * scene.bounds().extent().length();
    let secondary: Vec<(Ray, Ray)> = primary
        .par_iter()
        .enumerate()
        .filter_map(|(i, ray)| {
            let hit = bvh.intersect(tris, ray)?;
            let [a, b, c] = tris[hit.prim as usize];
            let mut n = (b - a).cross(c - a).normalize_or_zero();
            if n == Vec3::ZERO {
                return None;
            }
            if n.dot(ray.d) > 0.0 {
                n = -n;
            }
            let p = ray.at(hit.t);
            let frame = Frame::from_normal(n);
            let ao_dir = frame.to_world(square_to_cosine_hemisphere(random2(i as u32, 1)));
            let diffuse_dir = frame.to_world(square_to_cosine_hemisphere(random2(i as u32, 2)));
            let ao = Ray::segment(offset_ray_origin(p, n, ao_dir), ao_dir, ao_length);
            let diffuse = Ray::new(offset_ray_origin(p, n, diffuse_dir), diffuse_dir);
            Some((ao, diffuse))
        })
        .collect();
    let (ao, diffuse): (Vec<Ray>, Vec<Ray>) = secondary.into_iter().unzip();
    vec![
        RaySet { name: "primary", mode: HitMode::Closest, rays: primary },
        RaySet { name: "ao", mode: HitMode::Any, rays: ao },
        RaySet { name: "diffuse", mode: HitMode::Closest, rays: diffuse },
    ]
}

pub fn run(args: TraversalArgs) -> Result<()> {
    let device = CudaDevice::open(0).context("`warpath-bench traversal` needs a CUDA device")?;
    println!("{}", crate::gpu_line(&device));
    let kernels: Vec<TraversalKernel> = if args.kernels.is_empty() {
        TraversalKernel::ALL.to_vec()
    } else {
        args.kernels
            .iter()
            .map(|k| TraversalKernel::from_name(k).with_context(|| format!("unknown traversal kernel '{k}'")))
            .collect::<Result<_>>()?
    };
    let (width, height) = args.resolution;
    let mut rows = Vec::new();
    for name in &args.scenes {
        let scene = load_scene(name)?;
        let tris = scene.triangle_soup();
        for kind in [BuildKind::Sah, BuildKind::Sbvh] {
            let (bvh, stats) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
            eprintln!("{}: {stats}", scene.name);
            let device_bvh = DeviceBvh::upload(&device, &GpuBvh::from_bvh(&bvh, &tris)?)?;
            for set in make_rays(&scene, &bvh, &tris, width, height) {
                let gpu_rays: Vec<GpuRay> = set.rays.iter().map(GpuRay::from).collect();
                for &kernel in &kernels {
                    let hits = trace_rays(&device, &device_bvh, &gpu_rays, kernel, set.mode)?;
                    let (identical, equal_t_ties, mismatches) = verify(&bvh, &tris, &set.rays, set.mode, &hits);
                    let options = BenchOptions { mode: set.mode, timed_runs: args.runs.max(1), ..Default::default() };
                    let t = bench_traversal(&device, &bvh, &tris, &set.rays, kernel, &options)
                        .with_context(|| format!("{} {kind:?} {} {}", scene.name, set.name, kernel.name()))?;
                    eprintln!("  {kind:?} {} {}: {:.0} Mrays/s", set.name, kernel.name(), t.mrays_per_second);
                    rows.push(Row {
                        scene: scene.name.clone(),
                        triangles: tris.len(),
                        tree: format!("{kind:?}").to_uppercase(),
                        rays_kind: set.name.into(),
                        kernel: kernel.name().into(),
                        rays: set.rays.len(),
                        hits: t.hit_count,
                        median_ms: t.median_ms,
                        mrays_per_second: t.mrays_per_second,
                        identical,
                        equal_t_ties,
                        mismatches,
                    });
                }
            }
        }
    }
    println!(
        "| scene | triangles | tree | rays | kernel | rays (M) | hit | median ms | Mrays/s | = CPU | ties | mismatches |"
    );
    println!("|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {:.2} | {:.1}% | {:.3} | {:.0} | {} | {} | {} |",
            r.scene,
            r.triangles,
            r.tree,
            r.rays_kind,
            r.kernel,
            r.rays as f64 / 1e6,
            100.0 * r.hits as f64 / r.rays.max(1) as f64,
            r.median_ms,
            r.mrays_per_second,
            r.identical,
            r.equal_t_ties,
            r.mismatches
        );
    }
    let mismatches: usize = rows.iter().map(|r| r.mismatches).sum();
    if let Some(p) = &args.json {
        std::fs::write(p, serde_json::to_string_pretty(&rows)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    if mismatches > 0 {
        anyhow::bail!("{mismatches} GPU results differ from the CPU traversal");
    }
    Ok(())
}
