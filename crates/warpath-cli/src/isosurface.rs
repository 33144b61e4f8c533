//! `warpath isosurface` (issue 14, seed 001): images of the isosurface of a scalar volume
//! through the min-max brick BVH, on the GPU when one opens and on the CPU otherwise (the
//! reference renderer of `warpath_isosurface::render`, which every GPU pipeline matches
//! pixel for pixel). On the GPU, `--pipeline` picks seed 001's
//! pipeline: `caster` (one thread per pixel through caster.cuh), `single` (the pipeline's
//! stages in one kernel), or the multi-kernel pipeline with one compaction method between
//! its stages: `ink-compact`, `ink-collate`, `lookback`, `ofk`, or `cub` (CUB's
//! `DeviceSelect::Flagged` from an nvcc-built library, `--cub-lib`; docs/isosurface.md).
//!
//! Volumes: a file `warpath_volume::load` opens (`.nii`, `.nii.gz`, `.vol`, `.vdb`, raw
//! with `--raw-resolution`), or a procedural field `marschner-lobb[:N]`, `spheres[:N]`,
//! `turbulence[:N]` (N samples per axis, default 128). `--resample N` brings any volume to
//! N³ samples (seed 001's 256³ and 512³). The lattice is in index space: anisotropic voxel
//! spacing is not applied (the image is the volume as stored).
//!
//! Per frame, the tree of the isovalue is condensed (the "BVH update", timed apart from the
//! render): on the GPU by one kernel (`--tree-update gpu`, the default) or on the CPU and
//! uploaded (`--tree-update cpu`).
//!
//! The caster itself is `warpath_render::IsoCaster` (the `Renderer` API's, shared with Python
//! and the benchmarks); the options and volume loading here (`ImageOptions`, `load_lattice`,
//! `caster`) are also what `warpath-bench isosurface` times (crates/warpath-bench/src/isosurface.rs).

use crate::Backend;
use anyhow::{Context, Result, bail};
use glam::Vec3;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;
use warpath_cuda::isosurface::IsoPipeline;
use warpath_isosurface::render::{IsoView, KeyLight, Shading};
use warpath_isosurface::{BrickBvh, Lattice, fields};
use warpath_render::isosurface::{FrameImage, IsoCaster, IsoOptions, UpdateWait};
use warpath_volume::load::{RawLayout, RawSample};

/// Samples per axis of a procedural field named without `:N`.
const DEFAULT_FIELD_SAMPLES: u32 = 128;

#[derive(clap::Args, Clone, Debug)]
pub struct VolumeSource {
    /// Raw volumes: samples along x, y, z as X,Y,Z (x fastest, no header).
    #[arg(long, value_parser = parse_triple)]
    pub raw_resolution: Option<[u32; 3]>,
    /// Raw volumes: the sample type (u8, u16, f32; little-endian).
    #[arg(long, default_value = "u8", value_parser = parse_raw_sample)]
    pub raw_type: RawSample,
    /// Resample the volume to N samples per axis (trilinear) before use.
    #[arg(long)]
    pub resample: Option<u32>,
    /// Cells per brick side of the min-max BVH (seed 001's optimum: 16).
    #[arg(long, default_value_t = warpath_isosurface::DEFAULT_BRICK_CELLS)]
    pub brick: u32,
}

/// What every isosurface command shares: the image size, the volume's reading, the renderer.
#[derive(clap::Args, Clone, Debug)]
pub struct ImageOptions {
    /// Image size WIDTHxHEIGHT.
    #[arg(long, value_parser = crate::parse_resolution, default_value = "1024x1024")]
    pub resolution: (u32, u32),
    #[command(flatten)]
    pub source: VolumeSource,
    /// Renderer: cuda when a device opens, else the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// GPU: where and how the tree of each isovalue is condensed (gpu: on the device in one
    /// launch from the valid bricks up, no read-back; gpu-levels: on the device level by
    /// level, as seed 001 does, a launch per wide level; cpu: BrickBvh::condense, then an
    /// upload).
    #[arg(long, value_enum, default_value_t = TreeUpdate::Gpu)]
    pub tree_update: TreeUpdate,
    /// The `cub` pipeline: libwarpath_cub.so, built with `crates/warpath-cuda/cub/build.sh
    /// library` where nvcc is [default: the WARPATH_CUB_LIB environment variable].
    #[arg(long)]
    pub cub_lib: Option<PathBuf>,
    /// Light with a key light fixed to the camera instead of the head light (seed 001's),
    /// from X,Y,Z in camera coordinates: x right, y up, z toward the viewer [default with
    /// --shadows: -0.5,0.7,0.5, from the upper left].
    #[arg(long, value_parser = parse_direction, allow_hyphen_values = true)]
    pub key_light: Option<[f64; 3]>,
    /// Cast a shadow ray from every hit the key light faces (turns the key light on); a hit
    /// whose ray meets the isosurface keeps only the ambient term.
    #[arg(long)]
    pub shadows: bool,
}

impl ImageOptions {
    /// The shading these options ask for (Shading::default's material and background).
    pub fn shading(&self) -> Shading {
        let key_light = match (self.key_light, self.shadows) {
            (None, false) => None,
            (direction, shadows) => {
                Some(KeyLight { direction: direction.unwrap_or(KeyLight::DEFAULT_DIRECTION), shadows })
            }
        };
        Shading { key_light, ..Shading::default() }
    }

    /// The lighting in words (for logs and benchmark tables).
    pub fn lighting(&self) -> String {
        match self.shading().key_light {
            None => "head light".to_string(),
            Some(k) => format!(
                "key light from {},{},{} (camera coordinates){}",
                k.direction[0],
                k.direction[1],
                k.direction[2],
                if k.shadows { " with shadow rays" } else { ", no shadow rays" }
            ),
        }
    }
}

fn parse_direction(s: &str) -> Result<[f64; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != 3 {
        return Err(format!("'{s}' is not X,Y,Z"));
    }
    let mut out = [0.0f64; 3];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p.trim().parse().map_err(|_| format!("'{p}' in '{s}' is not a number"))?;
        if !o.is_finite() {
            return Err(format!("'{p}' in '{s}' is not finite"));
        }
    }
    if out.iter().all(|v| *v == 0.0) {
        return Err("the key light's direction is zero".to_string());
    }
    Ok(out)
}

/// Where and how the per-isovalue tree update runs.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TreeUpdate {
    /// On the device, one launch: a thread per brick, valid bricks climbing to the root.
    Gpu,
    /// On the device, seed 001's level by level (a launch per wide level, one block for the rest).
    GpuLevels,
    /// On the host (`BrickBvh::condense`), then uploaded.
    Cpu,
}

pub fn parse_pipeline(s: &str) -> Result<IsoPipeline, String> {
    IsoPipeline::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = IsoPipeline::ALL.iter().map(|p| p.name()).collect();
        format!("unknown pipeline '{s}' (one of {})", names.join(", "))
    })
}

#[derive(clap::Args, Clone, Debug)]
pub struct IsosurfaceArgs {
    /// The volume: a file (.nii, .nii.gz, .vol, .vdb; raw with --raw-resolution) or
    /// marschner-lobb[:N], spheres[:N], turbulence[:N].
    pub volume: String,
    /// The isovalue [default: the middle of the volume's range].
    #[arg(long, allow_hyphen_values = true)]
    pub isovalue: Option<f32>,
    /// A sweep A:B:STEP: one frame per isovalue, each timed; the images are named
    /// OUTPUT-iso<V>.<ext>.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "isovalue")]
    pub isovalues: Option<String>,
    /// N views around the volume (azimuths 360/N degrees apart, from --azimuth), images named
    /// OUTPUT-view<K>.<ext>.
    #[arg(long)]
    pub orbit: Option<u32>,
    /// Camera azimuth about the volume's z axis, in degrees (0: looking along +y).
    #[arg(long, default_value_t = 30.0, allow_hyphen_values = true)]
    pub azimuth: f64,
    /// Camera elevation above the xy plane, in degrees.
    #[arg(long, default_value_t = 20.0, allow_hyphen_values = true)]
    pub elevation: f64,
    #[command(flatten)]
    pub image: ImageOptions,
    /// GPU pipeline (seed 001): caster, single, ink-compact, ink-collate, lookback, ofk, cub
    /// (f64, the CPU's hits; cub needs --cub-lib), or caster-f32 (the caster in f32: faster,
    /// hits within f32 precision).
    #[arg(long, value_parser = parse_pipeline, default_value = "caster")]
    pub pipeline: IsoPipeline,
    /// Output image (.png sRGB, .exr linear).
    #[arg(short, long, default_value = "isosurface.png")]
    pub output: PathBuf,
    /// CUDA devices to cast on: `all` or a list such as 0,2 [default: all found]. Several
    /// devices share the frames (isovalues × views), a frame at a time as each asks; a frame's
    /// image does not depend on the device.
    #[arg(long, value_parser = crate::parse_devices)]
    pub devices: Option<crate::Devices>,
}

fn parse_triple(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != 3 {
        return Err(format!("'{s}' is not X,Y,Z"));
    }
    let mut out = [0u32; 3];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p.trim().parse().map_err(|_| format!("'{p}' in '{s}' is not a whole number"))?;
    }
    Ok(out)
}

fn parse_raw_sample(s: &str) -> Result<RawSample, String> {
    match s {
        "u8" => Ok(RawSample::U8),
        "u16" => Ok(RawSample::U16),
        "f32" => Ok(RawSample::F32),
        _ => Err(format!("'{s}': raw sample types are u8, u16, f32")),
    }
}

/// The isovalues of `A:B:STEP` (B included when the steps land on it).
pub fn parse_sweep(s: &str) -> Result<Vec<f32>> {
    let parts: Vec<&str> = s.split(':').collect();
    let [a, b, step] = parts.as_slice() else { bail!("--isovalues '{s}' is not A:B:STEP") };
    let parse = |v: &str| v.trim().parse::<f64>().with_context(|| format!("--isovalues '{s}': '{v}' is not a number"));
    let (a, b, step) = (parse(a)?, parse(b)?, parse(step)?);
    if !(step.is_finite() && step > 0.0 && a.is_finite() && b.is_finite() && b >= a) {
        bail!("--isovalues '{s}': needs A ≤ B and STEP > 0");
    }
    let count = ((b - a) / step + 1e-9).floor() as u64 + 1;
    if count > 100_000 {
        bail!("--isovalues '{s}': {count} frames (at most 100000)");
    }
    Ok((0..count).map(|i| (a + i as f64 * step) as f32).collect())
}

/// Loads (or makes) the volume named by `name` and resamples it as asked.
pub fn load_lattice(name: &str, source: &VolumeSource) -> Result<Lattice> {
    let field =
        |prefix: &str| -> Option<Result<u32>> {
            let rest = name.strip_prefix(prefix)?;
            if rest.is_empty() {
                return Some(Ok(DEFAULT_FIELD_SAMPLES));
            }
            let n = rest.strip_prefix(':')?;
            Some(n.parse::<u32>().ok().filter(|&n| (2..=2048).contains(&n)).with_context(|| {
                format!("'{name}': the samples per axis after ':' must be a whole number from 2 to 2048")
            }))
        };
    let lattice = if let Some(n) = field("marschner-lobb") {
        fields::marschner_lobb([n?; 3])
    } else if let Some(n) = field("spheres") {
        fields::spheres([n?; 3])
    } else if let Some(n) = field("turbulence") {
        fields::turbulence([n?; 3])
    } else {
        let path = Path::new(name);
        let raw = source.raw_resolution.map(|resolution| RawLayout {
            resolution,
            sample: source.raw_type,
            big_endian: false,
        });
        let loaded = warpath_volume::load::load_volume(path, raw.as_ref())
            .with_context(|| format!("cannot load the volume {name}"))?;
        Lattice::from_grid(&loaded.grid).with_context(|| format!("{name} as an isosurface volume"))?
    };
    match source.resample {
        Some(n) => lattice.resample([n; 3]).with_context(|| format!("--resample {n}")),
        None => Ok(lattice),
    }
}

impl From<TreeUpdate> for warpath_render::isosurface::TreeUpdate {
    fn from(update: TreeUpdate) -> Self {
        match update {
            TreeUpdate::Gpu => warpath_render::isosurface::TreeUpdate::Gpu,
            TreeUpdate::GpuLevels => warpath_render::isosurface::TreeUpdate::GpuLevels,
            TreeUpdate::Cpu => warpath_render::isosurface::TreeUpdate::Cpu,
        }
    }
}

/// The caster `options` ask for on `backend` (`warpath_render::IsoCaster`), rendering `view`
/// with `pipeline` (a `cub` one opens CUB's library here, with an error that says how to build
/// it when it cannot be).
#[allow(clippy::too_many_arguments)]
pub fn caster<'a>(
    options: &ImageOptions,
    backend: &'a warpath_render::Backend,
    lattice: &'a Lattice,
    bvh: &'a BrickBvh,
    pipeline: IsoPipeline,
    view: IsoView,
    isovalue: f32,
) -> Result<IsoCaster<'a>> {
    let iso_options =
        IsoOptions { pipeline, tree_update: options.tree_update.into(), cub_lib: options.cub_lib.clone() };
    IsoCaster::new(backend, lattice, bvh, iso_options, view, options.shading(), isovalue)
        .context("preparing the isosurface caster")
}

/// The image of the frame of `isovalue` and view `k`: OUTPUT, suffixed `-iso<V>` in a sweep and
/// `-view<K>` in an orbit.
fn frame_path(args: &IsosurfaceArgs, isovalues: &[f32], views: usize, isovalue: f32, k: usize) -> PathBuf {
    let mut path = args.output.clone();
    if isovalues.len() > 1 {
        path = suffixed(&path, &format!("iso{isovalue}"));
    }
    if views > 1 {
        path = suffixed(&path, &format!("view{k}"));
    }
    path
}

/// The frames (every isovalue × view) on several devices (`warpath_render::iso_devices`): each
/// image written as it arrives; a device that fails is reported and the others take its frames.
fn run_on_devices(
    args: &IsosurfaceArgs,
    backends: &[warpath_render::Backend],
    lattice: &Lattice,
    bvh: &BrickBvh,
    isovalues: &[f32],
    views: &[(f64, f64)],
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<()> {
    use warpath_render::iso_devices::{CastFrame, IsoFrame, cast_on_devices};
    let (width, height) = args.image.resolution;
    let names: Vec<String> = backends.iter().map(|b| b.describe()).collect();
    crate::progress::note!("casting on {} devices: {}", backends.len(), names.join("; "));
    let mut frames = Vec::new();
    let mut labels = Vec::new();
    for &isovalue in isovalues {
        for (k, &(azimuth, elevation)) in views.iter().enumerate() {
            frames.push(IsoFrame { isovalue, view: IsoView::orbit(lattice, azimuth, elevation, width, height) });
            labels.push((isovalue, k, azimuth, elevation));
        }
    }
    let options = IsoOptions {
        pipeline: args.pipeline,
        tree_update: args.image.tree_update.into(),
        cub_lib: args.image.cub_lib.clone(),
    };
    let start = Instant::now();
    let reports = cast_on_devices(
        backends,
        lattice,
        bvh,
        &options,
        args.image.shading(),
        &frames,
        cancel,
        |f: CastFrame| {
            let (isovalue, k, azimuth, elevation) = labels[f.index];
            let path = frame_path(args, isovalues, views.len(), isovalue, k);
            let linear: Vec<Vec3> = f.image.pixels.iter().map(|p| Vec3::from_array(*p)).collect();
            crate::output::write_image(&path, width, height, &linear, 0.0, None)
                .map_err(|e| warpath_render::Error::invalid(format!("{e:#}")))?;
            eprintln!(
                "isovalue {isovalue}, view {azimuth:.1}°/{elevation:.1}° (device {}): {} of {} pixels hit; tree {:.2} ms, render {:.2} ms; wrote {}",
                f.device,
                f.image.hits,
                f.image.pixels.len(),
                f.times.update_ms,
                f.times.render_ms,
                path.display()
            );
            Ok(())
        },
    )?;
    for r in &reports {
        match &r.error {
            None => eprintln!("  {}: {} frames", r.device, r.frames),
            Some(e) => eprintln!("  {}: {} frames, then failed: {e}", r.device, r.frames),
        }
    }
    eprintln!("{} frames on {} devices in {:.2} s", frames.len(), backends.len(), start.elapsed().as_secs_f64());
    if crate::progress::interrupted() {
        std::process::exit(130);
    }
    Ok(())
}

/// OUTPUT with `-suffix` before its extension.
pub fn suffixed(output: &Path, suffix: &str) -> PathBuf {
    let stem = output.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let name = match output.extension() {
        Some(ext) => format!("{stem}-{suffix}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{suffix}"),
    };
    output.with_file_name(name)
}

pub fn run(args: &IsosurfaceArgs) -> Result<()> {
    crate::progress::install_interrupt_handler()?;
    let (width, height) = args.image.resolution;
    // Everything the command line can get wrong fails before the volume loads.
    crate::commands::check_resolution(width, height)?;
    crate::output::check_outputs(&args.output, None)?;
    if args.image.source.brick == 0 {
        bail!("--brick must be at least 1");
    }
    if args.orbit == Some(0) {
        bail!("--orbit needs at least one view");
    }
    if let Some(sweep) = &args.isovalues {
        parse_sweep(sweep)?;
    }
    let lattice =
        crate::progress::stage(&format!("loading {}", args.volume), || load_lattice(&args.volume, &args.image.source))?;
    let (lo, hi) = lattice.range();
    let isovalues = match (&args.isovalues, args.isovalue) {
        (Some(sweep), _) => parse_sweep(sweep)?,
        (None, Some(v)) => vec![v],
        (None, None) => vec![0.5 * (lo + hi)],
    };
    if let Some(v) = isovalues.iter().find(|v| !v.is_finite()) {
        bail!("isovalue {v} is not a finite number");
    }
    let start = Instant::now();
    let bvh = BrickBvh::build(&lattice, args.image.source.brick);
    eprintln!(
        "{}: {}x{}x{} samples, values {lo} to {hi}; {} bricks of {}³ cells built in {:.1} ms",
        args.volume,
        lattice.samples[0],
        lattice.samples[1],
        lattice.samples[2],
        bvh.brick_count(),
        args.image.source.brick,
        start.elapsed().as_secs_f64() * 1e3
    );
    let views: Vec<(f64, f64)> = match args.orbit {
        Some(0) => unreachable!("refused above"),
        Some(n) => (0..n).map(|k| (args.azimuth + 360.0 * k as f64 / n as f64, args.elevation)).collect(),
        None => vec![(args.azimuth, args.elevation)],
    };
    let (mut backends, fallback) = crate::commands::open_backends(args.image.backend, args.devices.as_ref())?;
    if let Some(why) = fallback {
        crate::progress::note!("note: {why}");
    }
    let cancel = crate::progress::rendering("finishing the current image");
    if backends.len() > 1 {
        return run_on_devices(args, &backends, &lattice, &bvh, &isovalues, &views, &cancel);
    }
    let backend = backends.pop().expect("one backend");
    let first_view = IsoView::orbit(&lattice, args.azimuth, args.elevation, width, height);
    let mut caster = caster(&args.image, &backend, &lattice, &bvh, args.pipeline, first_view, isovalues[0])?;
    for &isovalue in &isovalues {
        if crate::progress::interrupted() {
            break;
        }
        if isovalue < lo || isovalue > hi {
            eprintln!(
                "isovalue {isovalue} lies outside the volume's values [{lo}, {hi}]: nothing to hit, an empty image"
            );
        }
        for (k, &(azimuth, elevation)) in views.iter().enumerate() {
            if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            caster.set_view(IsoView::orbit(&lattice, azimuth, elevation, width, height))?;
            let (image, times) = caster.frame(isovalue, true, UpdateWait::Apart, None)?;
            let FrameImage { pixels, hits } = image.expect("kept");
            let path = frame_path(args, &isovalues, views.len(), isovalue, k);
            let linear: Vec<Vec3> = pixels.iter().map(|p| Vec3::from_array(*p)).collect();
            crate::output::write_image(&path, width, height, &linear, 0.0, None)?;
            eprintln!(
                "isovalue {isovalue}, view {azimuth:.1}°/{elevation:.1}° ({}{}): {hits} of {} pixels hit; tree {:.2} ms, render {:.2} ms ({:.0} fps); wrote {}",
                caster.backend_name(),
                if caster.backend_name() == "cuda" { format!(", {}", args.pipeline) } else { String::new() },
                pixels.len(),
                times.update_ms,
                times.render_ms,
                1e3 / times.render_ms.max(1e-9),
                path.display()
            );
        }
    }
    if crate::progress::interrupted() {
        std::process::exit(130);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lighting_options_make_the_shading_and_bad_directions_are_refused() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            image: ImageOptions,
        }
        let shading = |args: &[&str]| Cli::try_parse_from([&["warpath"], args].concat()).map(|c| c.image.shading());
        assert_eq!(shading(&[]).unwrap().key_light, None);
        let default_key = KeyLight { direction: KeyLight::DEFAULT_DIRECTION, shadows: true };
        assert_eq!(shading(&["--shadows"]).unwrap().key_light, Some(default_key));
        let given = KeyLight { direction: [1.0, -2.0, 0.5], shadows: false };
        assert_eq!(shading(&["--key-light", "1,-2,0.5"]).unwrap().key_light, Some(given));
        for bad in ["0,0,0", "1,2", "1,x,3", "1,inf,0"] {
            assert!(shading(&["--key-light", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn sweeps_parse_and_bad_ones_are_named() {
        assert_eq!(parse_sweep("0.1:0.5:0.2").unwrap(), vec![0.1, 0.3, 0.5]);
        assert_eq!(parse_sweep("-1:-1:1").unwrap(), vec![-1.0]);
        for bad in ["1:0:0.1", "0:1:0", "0:1", "a:1:0.1", "0:1:-1"] {
            assert!(parse_sweep(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pipelines_parse_by_name_and_unknown_ones_list_the_choices() {
        for pipeline in IsoPipeline::ALL {
            assert_eq!(parse_pipeline(pipeline.name()), Ok(pipeline));
        }
        let error = parse_pipeline("thrust").unwrap_err();
        assert!(error.contains("thrust") && error.contains("ink-collate") && error.contains("caster"), "{error}");
    }

    #[test]
    fn procedural_names_and_their_errors() {
        let source = VolumeSource { raw_resolution: None, raw_type: RawSample::U8, resample: None, brick: 16 };
        assert_eq!(load_lattice("spheres:9", &source).unwrap().samples, [9, 9, 9]);
        assert_eq!(load_lattice("turbulence:5", &source).unwrap().samples, [5, 5, 5]);
        for bad in ["spheres:1", "spheres:x", "marschner-lobb:99999"] {
            let e = load_lattice(bad, &source).unwrap_err();
            assert!(format!("{e:#}").contains("whole number"), "{bad}: {e:#}");
        }
        let e = load_lattice("no/such/volume.nii", &source).unwrap_err();
        assert!(format!("{e:#}").contains("no/such/volume.nii"), "{e:#}");
        let resampled = load_lattice("marschner-lobb:9", &VolumeSource { resample: Some(17), ..source }).unwrap();
        assert_eq!(resampled.samples, [17, 17, 17]);
    }

    #[test]
    fn suffixes_go_before_the_extension() {
        assert_eq!(suffixed(Path::new("out/a.png"), "iso0.5"), PathBuf::from("out/a-iso0.5.png"));
        assert_eq!(suffixed(Path::new("a"), "view2"), PathBuf::from("a-view2"));
    }
}
