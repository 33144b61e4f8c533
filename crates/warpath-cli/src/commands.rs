//! What the commands share: loading a scene with a note of what it holds, the resolution
//! check of every image size, the backend the isosurface caster runs on, and the BVH each
//! renderer builds (for `info` and the benchmarks).

use crate::Backend;
use crate::progress::note;
use anyhow::{Context, Result, bail};
use std::time::Instant;
use warpath_bvh::{BuildKind, BuildOptions};
use warpath_cpu::CpuRenderer;
use warpath_cuda::StrategyRenderer;
use warpath_scene::Scene;

/// Checks that an image size is within the scene format's limits.
pub fn check_resolution(w: u32, h: u32) -> Result<()> {
    Ok(warpath_render::check_resolution(w, h)?)
}

pub fn load_scene(name: &str) -> Result<Scene> {
    load_scene_with(name, &[])
}

/// [`load_scene`] with Mitsuba XML parameters (`-D NAME=VALUE`, overriding the file's
/// `<default>`s); they apply to `.xml` scenes only.
pub fn load_scene_with(name: &str, defines: &[(String, String)]) -> Result<Scene> {
    let t = Instant::now();
    let is_xml = name.to_ascii_lowercase().ends_with(".xml");
    if !defines.is_empty() && !is_xml {
        bail!("-D sets parameters of Mitsuba XML scenes; '{name}' is not a .xml file");
    }
    let scene = if is_xml {
        let pairs: Vec<(&str, &str)> = defines.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        warpath_scene::mitsuba_xml::load_mitsuba_xml(std::path::Path::new(name), &pairs)
            .map_err(warpath_scene::SceneError::with_help)
    } else {
        warpath_scene::load(name)
    }
    .map_err(anyhow::Error::new)?;
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

/// The backend `backend` asks for, opened; `auto` falls back to the CPU with a note when no
/// device opens.
pub fn open_backend(backend: Backend) -> Result<warpath_render::Backend> {
    let (opened, fallback) = warpath_render::Backend::open(backend.choice()).context("--backend")?;
    if let Some(why) = fallback {
        note!("note: {why}");
    }
    Ok(opened)
}

/// The tree `render` builds: `BuildOptions` of the CPU renderer or the CUDA renderer.
pub fn render_bvh_options(kind: BuildKind, gpu: bool) -> BuildOptions {
    if gpu { StrategyRenderer::bvh_options(kind) } else { CpuRenderer::bvh_options(kind) }
}

/// The backends `--backend` and `--devices` ask for, opened: one CPU, or one or more CUDA
/// devices (by default every device found), and the note of a fallback to the CPU.
pub fn open_backends(
    backend: Backend,
    devices: Option<&crate::Devices>,
) -> Result<(Vec<warpath_render::Backend>, Option<String>)> {
    use warpath_render::Backend as Opened;
    let context = || format!("--backend {}", backend.name());
    if backend == Backend::Cpu {
        if devices.is_some() {
            eprintln!("note: --devices chooses CUDA devices; the CPU renderer uses every core");
        }
        return Ok((vec![Opened::Cpu], None));
    }
    let count = match warpath_cuda::CudaDevice::count() {
        Ok(n) if n > 0 => n,
        _ => {
            let (opened, fallback) = Opened::open(backend.choice()).with_context(context)?;
            return Ok((vec![opened], fallback));
        }
    };
    let ordinals: Vec<usize> = match devices {
        None | Some(crate::Devices::All) => (0..count).collect(),
        Some(crate::Devices::List(list)) => {
            if let Some(bad) = list.iter().find(|&&d| d >= count) {
                bail!("--devices: there is no CUDA device {bad} (this machine has {count}: 0..{})", count - 1);
            }
            list.clone()
        }
    };
    let mut opened = Vec::new();
    for ordinal in ordinals {
        let (device, _) = Opened::open(warpath_render::BackendChoice::Cuda(ordinal))
            .with_context(|| format!("--devices: CUDA device {ordinal}"))?;
        opened.push(device);
    }
    Ok((opened, None))
}
