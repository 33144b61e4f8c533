//! What the commands share: loading a scene with a note of what it holds, the resolution
//! check of every image size, the backend the isosurface caster runs on, and the BVH each
//! renderer builds (for `info` and the benchmarks).

use crate::Backend;
use crate::progress::note;
use anyhow::{Context, Result};
use std::time::Instant;
use warpath_bvh::{BuildKind, BuildOptions};
use warpath_cpu::CpuRenderer;
use warpath_cuda::{CudaDevice, StrategyRenderer};
use warpath_scene::Scene;

/// Checks that an image size is within the scene format's limits.
pub fn check_resolution(w: u32, h: u32) -> Result<()> {
    Ok(warpath_render::check_resolution(w, h)?)
}

pub fn load_scene(name: &str) -> Result<Scene> {
    let t = Instant::now();
    let scene = warpath_scene::load(name).map_err(anyhow::Error::new)?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    let isosurfaces = match scene.isosurfaces.len() {
        0 => String::new(),
        1 => ", 1 isosurface".to_string(),
        n => format!(", {n} isosurfaces"),
    };
    note!(
        "scene '{}': {} triangles{isosurfaces}, {} materials, loaded in {:.2} s",
        scene.name,
        scene.triangle_count(),
        scene.materials.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(scene)
}

/// The CUDA device `backend` asks for (`None`: the CPU); `auto` falls back to the CPU with a
/// note when no device opens.
pub(crate) fn choose_backend(backend: Backend) -> Result<Option<CudaDevice>> {
    let (opened, fallback) = warpath_render::Backend::open(backend.choice()).context("--backend")?;
    if let Some(why) = fallback {
        note!("note: {why}");
    }
    Ok(match opened {
        warpath_render::Backend::Cpu => None,
        warpath_render::Backend::Cuda(device) => Some(device),
    })
}

/// The tree `render` builds: `BuildOptions` of the CPU renderer or the CUDA renderer.
pub fn render_bvh_options(kind: BuildKind, gpu: bool) -> BuildOptions {
    if gpu { StrategyRenderer::bvh_options(kind) } else { CpuRenderer::bvh_options(kind) }
}
