//! `warpath`: the command line. `render` renders a scene to EXR/PNG, `info` describes a
//! scene and its BVH, `isosurface` casts a volume's isosurface, `compare`, `merge`,
//! `export-mitsuba` and `precompile`. The benchmarks whose tables go to docs/benchmarks/ are
//! the `warpath-bench` binary's (crates/warpath-bench); what both share is this crate's
//! library (src/lib.rs).

mod compare;
mod export_mitsuba;
mod info;
mod merge;
mod render;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use warpath_cli::{
    Backend, BvhKind, BvhLayoutArg, Devices, commands, isosurface, output, parse_devices, parse_resolution,
    parse_strategy, progress,
};

#[derive(Parser)]
#[command(name = "warpath", version, about = "A physically based path tracer for NVIDIA GPUs, with a CPU reference")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which estimator renders the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Integrator {
    /// The path tracer (the volumetric one for scenes with media).
    Path,
    /// ReSTIR direct lighting: emissive triangles resampled with temporal and spatial reuse;
    /// renders --frames frames of a static camera, accumulated (GPU or CPU).
    RestirDi,
}

/// What a GPU ReSTIR reservoir's light sample holds (`--restir-light-sample`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LightSampleArg {
    /// The emissive triangle and barycentrics; the rest reconstructed where it is read.
    Compact,
    /// The reconstructed point, normal, emission and source pdf too (seed 002's 56 bytes).
    Full,
}

#[derive(clap::Args, Clone, Debug)]
pub struct RenderArgs {
    /// A built-in scene name (cornell, furnace, ...; see `warpath info --list`) or a
    /// path to a .toml scene, a Mitsuba 3 .xml scene, a pbrt-v4 .pbrt scene or a mesh (.obj, .ply, .ply.gz, .gltf, .glb).
    pub scene: String,
    /// A parameter of a Mitsuba XML scene, NAME=VALUE (its `$NAME`; overrides the file's
    /// `<default>`); repeat for more.
    #[arg(short = 'D', value_parser = parse_define)]
    pub defines: Vec<(String, String)>,
    /// Samples per pixel of the path tracer, 1 to 16777216 [default: the scene's, else 64].
    #[arg(long, value_parser = parse_spp)]
    pub spp: Option<u32>,
    /// Maximum number of bounces, 0 to 100000, or -1 for no limit (8 = Mitsuba's max_depth 9)
    /// [default: the scene's, else 8].
    #[arg(long, value_parser = parse_max_depth, allow_negative_numbers = true)]
    pub max_depth: Option<u32>,
    /// Image size as WIDTHxHEIGHT [default: the scene's].
    #[arg(long, value_parser = parse_resolution)]
    pub resolution: Option<(u32, u32)>,
    /// Seed of the sampler; the same seed gives the same samples, so a bit-identical image on
    /// the CPU (the GPU adds a pass's samples of a pixel with atomics, in varying order: equal
    /// to float round-off there, bit-identical at --spp-per-pass 1).
    #[arg(long)]
    pub seed: Option<u32>,
    /// Random sequence: padded-halton (seed 000 §3.2) or pcg.
    #[arg(long)]
    pub sampler: Option<warpath_core::sampler::SamplerKind>,
    /// Renderer to use.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// BVH builder.
    #[arg(long, value_enum, default_value_t = BvhKind::Sbvh)]
    pub bvh: BvhKind,
    /// GPU BVH layout: binary (Aila–Laine) or wide8 (the compressed 8-wide BVH of Ylitie et al.
    /// 2017, collapsed from the --bvh tree). Every GPU renderer traces it (path tracer under
    /// every strategy, volumes, ReSTIR DI); the CPU renderer keeps its own traversal. Default:
    /// the faster one measured for the integrator (docs/benchmarks/traversal.md): wide8 for
    /// restir-di, binary for the path tracers.
    #[arg(long, value_enum)]
    pub bvh_layout: Option<BvhLayoutArg>,
    /// GPU path scheduling strategy (docs/benchmarks/strategies.md): multistage (a kernel per
    /// stage; faster than naive on every benchmark scene, fastest on the open ones), naive (the megakernel), naive-mk, wavefront,
    /// wavefront-lookback, wavefront-inkcompact, wavefront-ofk, wavefront-nocompact, wavefront-sorted, tiled,
    /// tiled-shared, regen-thread, regen-warp, regen-block, regen-device, streaming-sk,
    /// sorted-sk, sorting-sk, streaming-mk. Every strategy renders the same image; they differ in speed.
    /// Scenes with media default to sorting-sk, the fastest on the volume scenes
    /// (docs/benchmarks/volume-schedules.md).
    /// [default: multistage, or sorting-sk for scenes with media]
    #[arg(long, value_parser = parse_strategy)]
    pub strategy: Option<warpath_cuda::Strategy>,
    /// Count the rays a GPU render traces (extension and shadow rays), for Mrays/s in the
    /// summary; costs about 10% of GPU speed (9% measured: dragon, 1280×768, 64 spp, H100). The CPU always counts.
    #[arg(long)]
    pub count_rays: bool,
    /// Output image: .exr is linear HDR (with the render's settings as metadata); .png is
    /// tone-mapped (clamped) sRGB. Checked to be writable before the render starts; if writing
    /// still fails at the end, the image is saved to a warpath-rescued-*.exr in the working
    /// directory instead.
    /// [default: warpath.exr; none when only --film is given]
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Samples per pixel (or ReSTIR frames) per progressive pass, 1 to 16777216 (the image
    /// can be saved between passes) [default: 1 on the CPU, 16 on the GPU].
    #[arg(long, value_parser = parse_spp)]
    pub spp_per_pass: Option<u32>,
    /// Also write each pixel's variance of the mean (a linear .exr), for `warpath compare`.
    #[arg(long)]
    pub variance_output: Option<PathBuf>,
    /// Exposure scale applied to PNG output only, in stops (-64 to 64).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = parse_exposure)]
    pub exposure: f32,
    /// Seconds between progress lines when stderr is not a terminal (a log file, CI); a
    /// terminal shows a progress bar instead.
    #[arg(long, default_value_t = 5.0, value_parser = parse_interval)]
    pub progress_interval: f64,
    /// The estimator: path (the path tracer) or restir-di (ReSTIR direct lighting; --frames
    /// frames of a static camera, accumulated; on the GPU or the CPU; no environment light).
    #[arg(long, value_enum, default_value_t = Integrator::Path)]
    pub integrator: Integrator,
    /// restir-di: candidates per pixel in initial RIS (1 to 4096).
    #[arg(long, default_value_t = 32, value_parser = parse_candidates)]
    pub restir_candidates: u32,
    /// restir-di: bias correction of reuse: ray-traced (unbiased: the reused inputs' visibility
    /// traced, 1/Z), pairwise (pairwise MIS with visibility: unbiased, the same rays, weights
    /// bounded where targets differ: glossy surfaces under motion) or off (1/M, biased).
    /// Default: chosen by the scene's emitters, pairwise under coloured lights, ray-traced
    /// under near-white ones (with the target below; docs/restir.md).
    #[arg(long, value_parser = parse_bias)]
    pub restir_bias: Option<warpath_cpu::restir::BiasCorrection>,
    /// restir-di: the target function p̂ of a sample's unshadowed contribution c: luminance,
    /// l2 (|c|), sum (r + g + b), max (of the channels), or channels (one reservoir per colour
    /// channel from the same candidates, each resampled and reused with its own channel: best
    /// under coloured lights, three times the reservoirs); CPU and GPU alike.
    /// Default: chosen by the scene's emitters, channels when their colours differ, luminance
    /// when they are near-white (the faster and, there, the better at equal time).
    #[arg(long, value_parser = parse_target)]
    pub restir_target: Option<warpath_cpu::restir::TargetFunction>,
    /// restir-di: visibility-aware reuse: temporal and spatial reuse weigh a reused sample by
    /// its visibility from the pixel (one shadow ray per reused input, before resampling), so a
    /// neighbour's sample the pixel cannot see never wins and leaves the pixel black; unbiased
    /// with ray-traced and pairwise weights.
    #[arg(long)]
    pub restir_reuse_visibility: bool,
    /// restir-di: BSDF-sampled candidates per pixel (0 to 64): directions drawn from the
    /// pixel's BSDF, each traced to the first surface (an emitter's hit is a candidate), combined
    /// with the light candidates by multiple importance sampling over their source pdfs (finds
    /// the emitters glossy surfaces reflect; one ray each).
    #[arg(long, default_value_t = 0, value_parser = parse_bsdf_candidates)]
    pub restir_bsdf_candidates: u32,
    /// restir-di: temporal and spatial reuse reject a neighbour whose material roughness
    /// (GGX perceptual roughness; 1 for diffuse, 0 for mirrors; Blinn lobes by their width)
    /// differs from the pixel's by more than this, 0 to 1 (1: no roughness test; unbiased
    /// modes stay unbiased).
    #[arg(long, default_value_t = warpath_core::restir::DEFAULT_ROUGHNESS_THRESHOLD, value_parser = parse_roughness_threshold)]
    pub restir_roughness_threshold: f32,
    /// restir-di: RTXDI's boiling filter after temporal reuse, at this strength in 0 to 1 (0:
    /// off; RTXDI's default 0.2): in each 8x8 pixel group, a reservoir whose weight exceeds
    /// (10/strength - 9) times the group's mean nonzero weight is emptied (biased: it trades
    /// the rare bright sample's light for no spreading fireflies).
    #[arg(long, default_value_t = 0.0, value_parser = parse_boiling_filter)]
    pub restir_boiling_filter: f32,
    /// restir-di: spatial reuse passes (0: none), each of --restir-neighbours within --restir-radius
    /// pixels [default: 0 with temporal reuse (--sequence, --restir-temporal), where a spatial pass
    /// costs more than it gives at equal time; 1 without (an accumulated still)].
    #[arg(long, value_parser = parse_passes)]
    pub restir_spatial_passes: Option<u32>,
    /// restir-di: neighbours per spatial pass (0 to 64).
    #[arg(long, default_value_t = 5, value_parser = parse_neighbours)]
    pub restir_neighbours: u32,
    /// restir-di: radius of the spatial neighbourhood in pixels.
    #[arg(long, default_value_t = 30.0, value_parser = parse_radius)]
    pub restir_radius: f32,
    /// restir-di: no temporal reuse.
    #[arg(long, conflicts_with = "restir_temporal")]
    pub restir_no_temporal: bool,
    /// restir-di: the temporal pass's bias correction where it differs from --restir-bias:
    /// ray-traced, pairwise or off (pairwise here with ray-traced spatial reuse bounds the
    /// weight a fresh sample gets where the history's surface does not see it; unbiased).
    #[arg(long, value_parser = parse_bias)]
    pub restir_temporal_bias: Option<warpath_cpu::restir::BiasCorrection>,
    /// restir-di: temporal reuse caps the history's candidate count M at this many times the
    /// current frame's (0 to 1000). Default: by the temporal pass's bias correction, 5 with
    /// ray-traced weights, 20 with pairwise MIS or none (docs/restir.md).
    #[arg(long, value_parser = parse_temporal_cap)]
    pub restir_temporal_cap: Option<f32>,
    /// restir-di: temporal reuse in an accumulated still too. A still accumulates frames without
    /// it by default (reuse across frames correlates them, so N accumulated frames
    /// are worth fewer independent ones); --sequence frames have it unless --restir-no-temporal.
    #[arg(long)]
    pub restir_temporal: bool,
    /// restir-di: draw candidates from the power distribution, not the 16x16 tile's light pool.
    #[arg(long)]
    pub restir_no_pool: bool,
    /// restir-di on the GPU: store reservoirs as one array per 4-byte field (SoA, seed 002's
    /// first optimisation) instead of an array of structs; the image is the same.
    #[arg(long)]
    pub restir_soa: bool,
    /// restir-di on the GPU: the reservoirs' light sample: compact (triangle + barycentrics,
    /// 24-byte reservoirs; seed 002's second optimisation) or full (the reconstructed point,
    /// normal and emission too: 68-byte reservoirs, no triangle read when reused); the image
    /// is the same.
    #[arg(long, value_enum, default_value_t = LightSampleArg::Compact)]
    pub restir_light_sample: LightSampleArg,
    /// restir-di on the GPU: who traces the spatial pass's shadow rays to one light point from
    /// the pixel's and its neighbours' surfaces: 0 — the spatial kernel's thread, one after
    /// another; N (1 to 32) — a kernel of their own with N lanes of a warp per pixel (1: one
    /// thread a pixel). Default: one lane per ray, neighbours + 1 (at most 32; the fastest
    /// measured, docs/benchmarks/restir.md); the 1/M mode's one ray a pixel takes one lane.
    /// Any value but 0 also moves the temporal pass's ray to a kernel of its own (ray-traced
    /// and 1/M). The image is the same.
    #[arg(long)]
    pub restir_ray_lanes: Option<u32>,
    /// restir-di on the GPU: time every kernel and print the mean per frame at the end (the
    /// kernels then wait for each other, so the render is a little slower).
    #[arg(long)]
    pub restir_kernel_times: bool,
    /// restir-di: frames to render, 1 to 16777216, each one sample per pixel, the reservoirs
    /// carried from frame to frame (temporal reuse); accumulated into one image, or written
    /// one image a frame with --sequence [default: the scene's spp].
    #[arg(long, value_parser = parse_frames)]
    pub frames: Option<u32>,
    /// restir-di: write each frame as its own image, OUTPUT-0000.EXT to OUTPUT-(N-1).EXT (one
    /// sample per pixel, not accumulated; reprojected temporal reuse when the camera moves,
    /// see --orbit).
    #[arg(long)]
    pub sequence: bool,
    /// restir-di with --sequence: move the camera DEGREES in all (DEGREES/N a frame) about the
    /// vertical (y) axis through the point it looks at (its focus distance ahead; a
    /// `look_at` target).
    #[arg(long, requires = "sequence", allow_negative_numbers = true, value_parser = parse_orbit)]
    pub orbit: Option<f32>,
    /// Render only the sample indices A..B of every pixel (e.g. 0..512), a part of a larger
    /// render: parts of disjoint ranges, written with --film, merge into the render of their
    /// union (`warpath merge`). Replaces --spp (B - A samples per pixel) [default: 0..spp].
    #[arg(long, value_parser = parse_sample_range)]
    pub samples: Option<std::ops::Range<u32>>,
    /// Also write the film — per-pixel sums, squared sums and counts, the sample range, and a
    /// fingerprint of the scene and settings — to this .wfilm file, for `warpath merge`.
    /// Without -o, only the film is written.
    #[arg(long)]
    pub film: Option<PathBuf>,
    /// CUDA devices to render on: `all` or a list such as 0,2 [default: all found]. Several
    /// devices share the samples in batches (a faster device takes more); the image is the
    /// one-device image (the same samples, sums equal to float round-off). ReSTIR DI renders
    /// on one device.
    #[arg(long, value_parser = parse_devices)]
    pub devices: Option<Devices>,
    /// No progress bar and no progress notes (scene, backend, BVH, files written); warnings,
    /// errors and the closing "rendered ..." summary still print.
    #[arg(short, long)]
    pub quiet: bool,
}

fn parse_define(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.to_string())),
        _ => Err(format!("'{s}' is not NAME=VALUE (e.g. -D spp=256)")),
    }
}

/// `--samples A..B`: a non-empty range of sample indices within the scene format's limits.
fn parse_sample_range(s: &str) -> Result<std::ops::Range<u32>, String> {
    let (a, b) = s.split_once("..").ok_or_else(|| format!("'{s}' is not a range A..B (e.g. 0..512)"))?;
    let max = warpath_scene::scene::MAX_SPP as u64;
    let parse = |t: &str| t.trim().parse::<u64>().ok().filter(|&v| v <= u32::MAX as u64);
    match (parse(a), parse(b)) {
        (Some(a), Some(b)) if a < b && b - a <= max => Ok(a as u32..b as u32),
        (Some(a), Some(b)) if a >= b => Err(format!("'{s}' is empty: A must be below B")),
        (Some(_), Some(_)) => Err(format!("'{s}' holds more than {max} samples per pixel")),
        _ => Err(format!("'{s}' is not a range A..B of whole numbers (e.g. 0..512)")),
    }
}
fn parse_candidates(s: &str) -> Result<u32, String> {
    parse_in_range(s, 1, 4096)
}

fn parse_frames(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("--frames 0 renders nothing: give at least 1 frame".into()),
        _ => parse_in_range(s, 1, warpath_scene::scene::MAX_SPP),
    }
}

fn parse_orbit(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(d) if d.is_finite() && d.abs() <= 36_000.0 => Ok(d),
        _ => Err(format!("'{s}' is not an angle in degrees between -36000 and 36000")),
    }
}

fn parse_passes(s: &str) -> Result<u32, String> {
    parse_in_range(s, 0, 16)
}

fn parse_neighbours(s: &str) -> Result<u32, String> {
    parse_in_range(s, 0, 64)
}

fn parse_radius(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(r) if r.is_finite() && (1.0..=10_000.0).contains(&r) => Ok(r),
        _ => Err(format!("'{s}' is not a radius between 1 and 10000 pixels")),
    }
}

fn parse_temporal_cap(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(c) if c.is_finite() && (0.0..=1000.0).contains(&c) => Ok(c),
        _ => Err(format!("'{s}' is not a temporal cap between 0 and 1000")),
    }
}

fn parse_bsdf_candidates(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if n <= 64 => Ok(n),
        _ => Err(format!("'{s}' is not a count of BSDF candidates between 0 and 64")),
    }
}

fn parse_roughness_threshold(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(t) if (0.0..=1.0).contains(&t) => Ok(t),
        _ => Err(format!("'{s}' is not a roughness threshold between 0 and 1 (1: no roughness test)")),
    }
}

fn parse_boiling_filter(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(t) if (0.0..=1.0).contains(&t) => Ok(t),
        _ => Err(format!("'{s}' is not a boiling filter strength between 0 (off) and 1")),
    }
}

fn parse_target(s: &str) -> Result<warpath_cpu::restir::TargetFunction, String> {
    warpath_cpu::restir::TargetFunction::from_name(s)
        .ok_or_else(|| format!("unknown target function '{s}' (one of luminance, l2, sum, max, channels)"))
}

fn parse_bias(s: &str) -> Result<warpath_cpu::restir::BiasCorrection, String> {
    warpath_cpu::restir::BiasCorrection::from_name(s)
        .ok_or_else(|| format!("unknown bias correction '{s}' (one of ray-traced, pairwise, off)"))
}

/// `--spp` and `--spp-per-pass`: the limits of the scene format's `spp`.
fn parse_spp(s: &str) -> Result<u32, String> {
    parse_in_range(s, 1, warpath_scene::scene::MAX_SPP)
}

/// `--max-depth`: the limits of the scene format's `max_depth` (-1: no limit).
fn parse_max_depth(s: &str) -> Result<u32, String> {
    if s.trim() == "-1" {
        return Ok(warpath_scene::UNLIMITED_DEPTH);
    }
    parse_in_range(s, 0, warpath_scene::scene::MAX_DEPTH).map_err(|e| format!("{e}, or -1 for no limit"))
}

fn parse_in_range(s: &str, min: u32, max: u32) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(v) if (min as u64..=max as u64).contains(&v) => Ok(v as u32),
        _ => Err(format!("'{s}' is not a whole number in {min}..={max} (the limit scene files have too)")),
    }
}

fn parse_exposure(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && (-64.0..=64.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a number of stops in -64..=64")),
    }
}

fn parse_interval(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 86400.0 => Ok(v),
        _ => Err(format!("'{s}' is not a number of seconds in (0, 86400]")),
    }
}

#[derive(Subcommand)]
enum Command {
    /// Render a scene to an image.
    Render(RenderArgs),
    /// Describe a scene: triangles, materials, lights, BVH nodes and SAH cost, memory.
    Info {
        /// Scene name or path (omit with --list).
        scene: Option<String>,
        /// List the built-in scenes.
        #[arg(long)]
        list: bool,
        /// Describe only the tree of this builder [default: both; `render` uses sbvh].
        #[arg(long, value_enum)]
        bvh: Option<BvhKind>,
    },
    /// Merge partial renders (`render --samples A..B --film part.wfilm`) of disjoint sample
    /// ranges of one scene into one image (and film).
    Merge(merge::MergeArgs),
    /// Test whether two renders of the same scene agree within Monte Carlo noise, from
    /// their means and per-pixel variances (`render --variance-output`).
    Compare(compare::CompareArgs),
    /// Write the scene as warpath loaded it as a Mitsuba 3 scene (DIR/scene.json with PLY
    /// meshes and .vol grids) for scripts/mitsuba-render.py (docs/mitsuba.md).
    ExportMitsuba(export_mitsuba::ExportMitsubaArgs),
    /// Moved to the `warpath-bench` binary; prints where and exits 2 (hidden from --help).
    #[command(hide = true, disable_help_flag = true)]
    Bench {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Compile the CUDA programs for this GPU into the kernel cache, several at once (a
    /// render otherwise compiles what it needs on first use, one program at a time).
    Precompile(warpath_cli::precompile::PrecompileArgs),
    /// Render the isosurface of a scalar volume (a scan, a simulation) at an isovalue, or a
    /// sweep of isovalues, from views around it: the min-max brick BVH, the exact trilinear
    /// intersection, Blinn-Phong under a head light (docs/isosurface.md).
    Isosurface(isosurface::IsosurfaceArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Render(args) => render::render(&args),
        Command::Info { scene, list, bvh } => info::info(scene.as_deref(), list, bvh),
        Command::Compare(args) => compare::compare(&args),
        Command::Merge(args) => merge::run(&args),
        Command::ExportMitsuba(args) => export_mitsuba::run(&args),
        Command::Bench { args } => {
            let rest: String = args.iter().map(|a| format!(" {a}")).collect();
            eprintln!("error: the benchmarks moved to their own binary: run `warpath-bench{rest}` instead");
            std::process::exit(2);
        }
        Command::Precompile(args) => warpath_cli::precompile::run(&args),
        Command::Isosurface(args) => isosurface::run(&args),
    };
    if let Err(e) = result {
        eprintln!("error: {}", warpath_cli::error_chain(&e));
        std::process::exit(1);
    }
}
