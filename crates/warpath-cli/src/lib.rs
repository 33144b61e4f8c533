//! The library of the `warpath` command line: what its commands share with the benchmarks'
//! binary, `warpath-bench` (crates/warpath-bench): loading a scene with its note and the BVH
//! each renderer builds ([`commands`]), progress notes and Ctrl-C ([`progress`]), image
//! output ([`output`]), the isosurface caster's plumbing ([`isosurface`]), compiling kernels
//! into the cache ([`precompile`]: each binary hands it its own programs), and the flags both
//! binaries take (`--backend`, `--bvh`, `--resolution`, `--strategy`). The `warpath` binary
//! (src/main.rs) renders, casts, compares, exports and precompiles; the benchmarks live in
//! warpath-bench.

pub mod commands;
pub mod isosurface;
pub mod output;
pub mod precompile;
pub mod progress;

use clap::ValueEnum;

/// Which renderer runs the estimator (`--backend`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// CUDA when a device is found, else the CPU.
    Auto,
    /// The CPU reference renderer (rayon).
    Cpu,
    /// CUDA with the chosen --strategy; an error when no device is found.
    Cuda,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        }
    }

    pub fn choice(self) -> warpath_render::BackendChoice {
        match self {
            Backend::Auto => warpath_render::BackendChoice::Auto,
            Backend::Cpu => warpath_render::BackendChoice::Cpu,
            Backend::Cuda => warpath_render::BackendChoice::Cuda(0),
        }
    }
}

/// Which BVH builder to use (`--bvh`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BvhKind {
    /// Binned surface-area heuristic.
    Sah,
    /// Spatial splits (Stich et al. 2009).
    Sbvh,
}

impl BvhKind {
    pub fn build_kind(self) -> warpath_bvh::BuildKind {
        match self {
            BvhKind::Sah => warpath_bvh::BuildKind::Sah,
            BvhKind::Sbvh => warpath_bvh::BuildKind::Sbvh,
        }
    }
}

/// `--bvh-layout`: the GPU renderers' BVH layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BvhLayoutArg {
    /// The binary Aila–Laine layout.
    Binary,
    /// The compressed 8-wide BVH (Ylitie, Karras and Laine 2017).
    Wide8,
}

impl BvhLayoutArg {
    pub fn layout(self) -> warpath_cuda::wide_bvh::BvhLayout {
        match self {
            BvhLayoutArg::Binary => warpath_cuda::wide_bvh::BvhLayout::Binary,
            BvhLayoutArg::Wide8 => warpath_cuda::wide_bvh::BvhLayout::Wide8,
        }
    }
}

/// `--strategy`: a GPU path scheduling strategy by name.
pub fn parse_strategy(s: &str) -> Result<warpath_cuda::Strategy, String> {
    warpath_cuda::Strategy::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = warpath_cuda::Strategy::ALL.iter().map(|s| s.name()).collect();
        format!("unknown strategy '{s}'; one of: {}", names.join(", "))
    })
}

/// `--resolution WIDTHxHEIGHT`, within the scene format's limits.
pub fn parse_resolution(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("'{s}' is not WIDTHxHEIGHT (e.g. 1280x720)"))?;
    let w: u32 = w.trim().parse().map_err(|_| format!("bad width in '{s}'"))?;
    let h: u32 = h.trim().parse().map_err(|_| format!("bad height in '{s}'"))?;
    commands::check_resolution(w, h).map_err(|e| e.to_string())?;
    Ok((w, h))
}

/// An error and its causes in one line, each cause once: a cause whose text the message
/// already holds (an OS error wrapped by a file error) is not repeated.
pub fn error_chain(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// `--devices`: which CUDA devices render.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    All,
    List(Vec<usize>),
}

pub fn parse_devices(s: &str) -> Result<Devices, String> {
    if s.trim() == "all" {
        return Ok(Devices::All);
    }
    let mut list = Vec::new();
    for part in s.split(',') {
        let d: usize =
            part.trim().parse().map_err(|_| format!("'{s}' is not `all` or a list of device numbers (0,2)"))?;
        if list.contains(&d) {
            return Err(format!("device {d} is listed twice in '{s}'"));
        }
        list.push(d);
    }
    Ok(Devices::List(list))
}
