//! `warpath render` and `warpath info`.

use crate::output::write_image;
use crate::{Backend, RenderArgs};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use warpath_bvh::{BuildKind, BuildOptions, Bvh};
use warpath_cpu::{CpuRenderer, RenderOptions};
use warpath_scene::Scene;

/// The largest image side we accept (a 16k×16k film already takes 9 GiB of buffers).
pub const MAX_RESOLUTION: u32 = 16384;

pub fn check_resolution(w: u32, h: u32) -> Result<()> {
    if w == 0 || h == 0 || w > MAX_RESOLUTION || h > MAX_RESOLUTION {
        bail!("resolution {w}x{h} is out of range: each side must be 1..={MAX_RESOLUTION}");
    }
    Ok(())
}

pub fn load_scene(name: &str) -> Result<Scene> {
    let t = Instant::now();
    let scene = warpath_scene::load(name).map_err(anyhow::Error::new)?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    eprintln!(
        "scene '{}': {} triangles, {} materials, loaded in {:.2} s",
        scene.name,
        scene.triangle_count(),
        scene.materials.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(scene)
}

/// The render options from the scene's settings overridden by the flags.
pub fn render_options(scene: &Scene, args: &RenderArgs) -> Result<RenderOptions> {
    let mut opts = RenderOptions::from_scene(scene);
    if let Some(spp) = args.spp {
        opts.spp = spp;
    }
    if let Some(d) = args.max_depth {
        opts.max_depth = d;
    }
    if let Some((w, h)) = args.resolution {
        opts.width = w;
        opts.height = h;
    }
    if let Some(s) = args.seed {
        opts.seed = s;
    }
    if let Some(s) = args.sampler {
        opts.sampler = s;
    }
    opts.spp_per_pass = args.spp_per_pass.max(1);
    if opts.spp == 0 {
        bail!("--spp must be at least 1");
    }
    check_resolution(opts.width, opts.height)?;
    Ok(opts)
}

pub fn render(args: &RenderArgs) -> Result<()> {
    // Fail on an unwritable output before spending minutes rendering.
    let ext = args.output.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if ext != "exr" && ext != "png" {
        bail!("{}: unsupported output format (use .exr or .png)", args.output.display());
    }
    let scene = load_scene(&args.scene)?;
    let opts = render_options(&scene, args)?;
    match args.backend {
        Backend::Auto => {
            eprintln!("backend: cpu ({} threads; this build has no CUDA backend)", rayon::current_num_threads())
        }
        Backend::Cpu => eprintln!("backend: cpu ({} threads)", rayon::current_num_threads()),
    }

    let t = Instant::now();
    let renderer = CpuRenderer::new(&scene, args.bvh.build_kind());
    eprintln!("bvh: {} ({:.2} s)", renderer.bvh_stats, t.elapsed().as_secs_f64());

    let cancel = Arc::new(AtomicBool::new(false));
    {
        let cancel = cancel.clone();
        ctrlc::set_handler(move || {
            if cancel.swap(true, Ordering::SeqCst) {
                // A second Ctrl-C exits at once.
                std::process::exit(130);
            }
            eprintln!("\ninterrupted: finishing the current pass and saving the image so far (Ctrl-C again to quit)");
        })
        .context("cannot install the Ctrl-C handler")?;
    }

    let pixels = opts.width as u64 * opts.height as u64;
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(opts.spp as u64) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40.cyan/blue} {pos}/{len} spp  {msg}  elapsed {elapsed}  eta {eta}")
            .expect("valid progress template"),
    );
    let start = Instant::now();
    let (film, stats) = renderer.render(&opts, &cancel, |done| {
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        bar.set_position(done as u64);
        bar.set_message(format!("{:.2} Msamples/s", done as f64 * pixels as f64 / secs / 1e6));
    });
    bar.finish_and_clear();

    let done_spp = film.count.first().copied().unwrap_or(0);
    if done_spp == 0 {
        bail!("interrupted before the first pass finished: no image written");
    }
    write_image(&args.output, opts.width, opts.height, &film.mean(), args.exposure)?;
    let msamples = stats.samples as f64 / stats.seconds.max(1e-9) / 1e6;
    let mrays = stats.rays() as f64 / stats.seconds.max(1e-9) / 1e6;
    eprintln!(
        "rendered {}x{} at {} spp{} in {:.2} s: {:.3} Msamples/s, {:.2} Mrays/s ({} rays)",
        opts.width,
        opts.height,
        done_spp,
        if done_spp < opts.spp { format!(" (interrupted; {} asked)", opts.spp) } else { String::new() },
        stats.seconds,
        msamples,
        mrays,
        stats.rays()
    );
    eprintln!("wrote {}", args.output.display());
    if cancel.load(Ordering::SeqCst) {
        std::process::exit(130);
    }
    Ok(())
}

pub fn info(scene: Option<&str>, list: bool) -> Result<()> {
    if list || scene.is_none() {
        println!("built-in scenes: {}", warpath_scene::builtin::NAMES.join(", "));
        return Ok(());
    }
    let scene = load_scene(scene.unwrap_or_default())?;
    let s = &scene.settings;
    println!("scene: {}", scene.name);
    println!("  triangles: {}", scene.triangle_count());
    println!(
        "  vertices: {} (normals: {}, uvs: {})",
        scene.positions.len(),
        !scene.normals.is_empty(),
        !scene.uvs.is_empty()
    );
    println!("  meshes: {}", scene.meshes.len());
    for m in scene.meshes.iter().take(20) {
        println!("    {} ({} triangles)", m.name, m.triangle_count);
    }
    println!("  materials: {}", scene.materials.len());
    let lights = scene.light_set();
    println!("  emissive triangles: {}", lights.triangles.len());
    println!(
        "  environment: {}",
        match &scene.environment {
            warpath_core::light::Environment::None => "none".to_string(),
            warpath_core::light::Environment::Constant(c) => format!("constant {c}"),
            warpath_core::light::Environment::Map(m) => format!("map {}x{}", m.width, m.height),
        }
    );
    println!(
        "  settings: {}x{}, {} spp, max depth {}, seed {}, sampler {:?}",
        s.width, s.height, s.spp, s.max_depth, s.seed, s.sampler
    );
    let b = scene.bounds();
    println!("  bounds: {} .. {}", b.min, b.max);
    println!("  scene memory: {:.1} MiB", scene.memory_bytes() as f64 / (1 << 20) as f64);
    let tris = scene.triangle_soup();
    for kind in [BuildKind::Sah, BuildKind::Sbvh] {
        let (bvh, stats) = Bvh::build(&tris, &BuildOptions { kind, ..Default::default() });
        let bytes = bvh.nodes.len() * std::mem::size_of::<warpath_bvh::BvhNode>() + bvh.prim_indices.len() * 4;
        println!("  bvh {kind:?}: {stats}; memory {:.1} MiB", bytes as f64 / (1 << 20) as f64);
    }
    Ok(())
}
