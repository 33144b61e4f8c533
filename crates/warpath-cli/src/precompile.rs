//! `warpath precompile` (and `warpath-bench precompile`, for the benchmarks' programs):
//! compiles every CUDA program (or those whose names match) for the GPU at hand into the
//! kernel cache, several at once. A render compiles the programs its
//! estimator and strategy use on first use, one after another; the schedule programs of the
//! volumetric estimator take a minute or more each, so a machine that will run many
//! strategies is better warmed once, in parallel.
//!
//! With `--offline 9.0` no GPU is needed: the programs are compiled for that compute
//! capability and the driver version `--driver-version` names (both are part of the cache
//! key, see `warpath_cuda::compiler`), so a cache filled on a build machine can be carried
//! to a GPU machine whose driver reports that version and whose NVRTC has the same
//! major.minor (`scripts/stage-gpu` does this for the H100 machine).

use anyhow::{Context, Result, bail};
use clap::Args;
use warpath_cuda::compiler::{CacheUse, KernelCompiler};
use warpath_cuda::{CudaDevice, KernelSource};

#[derive(Args)]
pub struct PrecompileArgs {
    /// Only programs whose name contains one of these (comma separated), e.g. `volume`.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Programs compiled at once (default: the number of CPU cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Compile without a GPU, for this compute capability (e.g. `9.0` for an H100).
    #[arg(long, value_name = "MAJOR.MINOR", value_parser = parse_capability)]
    pub offline: Option<(i32, i32)>,
    /// With `--offline`: the CUDA driver version of the machine that will load the cache,
    /// as `cuDriverGetVersion` reports it (13000 for CUDA 13.0 drivers such as 580).
    #[arg(long, default_value_t = 13000, requires = "offline")]
    pub driver_version: i32,
    /// With `--offline`: instead of filling the cache, print each kernel's registers, spills,
    /// stack and shared memory as ptxas reports them (`-Xptxas -v`), and the occupancy its
    /// registers allow (a markdown table; nothing is cached).
    #[arg(long, requires = "offline")]
    pub resources: bool,
    /// Also the variant builds, named `<program>-<variant>`: for `warpath`, those renders make
    /// when asked (isosurface shapes, `--bvh-layout wide8`, ReSTIR's `--restir-soa` and
    /// `--restir-light-sample full`); for `warpath-bench`, the volumetric benchmark variants
    /// (grids as 3D textures, register caps: `warpath-bench volumes --grid-fetch/--max-registers`).
    #[arg(long)]
    pub variants: bool,
}

fn parse_capability(text: &str) -> std::result::Result<(i32, i32), String> {
    let (major, minor) =
        text.split_once('.').ok_or_else(|| format!("expected MAJOR.MINOR such as 9.0, got `{text}`"))?;
    let parse = |part: &str| part.parse::<i32>().map_err(|_| format!("expected MAJOR.MINOR such as 9.0, got `{text}`"));
    let capability = (parse(major)?, parse(minor)?);
    if capability.0 < 5 || capability.1 < 0 {
        return Err(format!("compute capability {text} is older than any NVRTC of CUDA 12 or 13 targets"));
    }
    Ok(capability)
}

/// `warpath precompile`: the product's programs (warpath-cuda's) and their basic-materials
/// builds, with `--variants` also the other variant builds renders make.
pub fn run(args: &PrecompileArgs) -> Result<()> {
    let mut programs = warpath_cuda::programs::programs();
    if args.variants {
        programs.extend(warpath_cuda::programs::variant_programs());
    } else {
        // Scenes of basic materials (the Cornell box) render with these.
        programs.extend(warpath_cuda::programs::basic_material_programs());
    }
    compile(args, programs)
}

/// Compiles those of `programs` that `args` selects (`--only`) as `args` say: into the kernel
/// cache for this GPU, or `--offline` for a compute capability (`--resources`: ptxas's report).
pub fn compile(args: &PrecompileArgs, programs: Vec<(KernelSource, Vec<&'static str>)>) -> Result<()> {
    let sources: Vec<_> = programs
        .into_iter()
        .map(|(source, _)| source)
        .filter(|source| args.only.is_empty() || args.only.iter().any(|word| source.name.contains(word.as_str())))
        .collect();
    if sources.is_empty() {
        bail!("no program name contains any of {:?}", args.only);
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let start = std::time::Instant::now();
    let results = match args.offline {
        Some(capability) => {
            let compiler = KernelCompiler::new()
                .context("`precompile --offline` needs NVRTC (libnvrtc) on the library path")?
                .with_driver_version(args.driver_version);
            let target = compiler.target_for(capability)?;
            if args.resources {
                return print_resources(compiler, &target, &sources, threads);
            }
            let cache = compiler
                .cache_dir()
                .map_or("no cache: $WARPATH_KERNEL_CACHE is off".into(), |d| d.display().to_string());
            eprintln!(
                "compiling {} programs on {threads} threads for {} (driver {}) into {cache}",
                sources.len(),
                target.gpu_architecture(),
                args.driver_version
            );
            compiler.compile_many(&sources, &target, threads, |compiled| compiled.cache)
        }
        None => {
            let device = CudaDevice::open(0)
                .context("`precompile` needs a CUDA device (or `--offline MAJOR.MINOR` without one)")?;
            eprintln!("compiling {} programs on {threads} threads for {}", sources.len(), device.info().name);
            device.precompile(&sources, threads)?
        }
    };
    let mut failed = 0;
    for (name, seconds, outcome) in results {
        match outcome {
            Ok(CacheUse::Hit(_)) => println!("{name:<24} cached"),
            Ok(CacheUse::Stored(path)) => println!("{name:<24} {seconds:7.1} s  -> {}", path.display()),
            Ok(CacheUse::Disabled) => println!("{name:<24} {seconds:7.1} s  (the kernel cache is off: nothing kept)"),
            Ok(CacheUse::Failed(why)) => println!("{name:<24} {seconds:7.1} s  (not cached: {why})"),
            Err(error) => {
                failed += 1;
                println!("{name:<24} FAILED: {error}");
            }
        }
    }
    eprintln!("done in {:.1} s", start.elapsed().as_secs_f64());
    if failed > 0 {
        bail!("{failed} program(s) failed to compile");
    }
    Ok(())
}

/// One kernel's resources as ptxas reports them at compile time, without a GPU (on a GPU,
/// `warpath_cuda::strategy::KernelResources` reads them from the driver with the real
/// occupancy; `warpath-bench strategies` prints those).
#[derive(Debug, Default, PartialEq)]
struct PtxasReport {
    kernel: String,
    registers: u32,
    stack_bytes: u32,
    spill_store_bytes: u32,
    spill_load_bytes: u32,
    shared_bytes: u32,
}

/// Reads ptxas's `-v` report: an `Compiling entry function 'NAME'` line, then `N bytes stack
/// frame, N bytes spill stores, N bytes spill loads` and `Used N registers, ... N bytes smem`.
fn parse_ptxas_report(log: &str) -> Vec<PtxasReport> {
    let number_before = |line: &str, unit: &str| -> Option<u32> {
        let at = line.find(unit)?;
        line[..at].trim_end().rsplit([' ', ',']).next()?.parse().ok()
    };
    let mut kernels: Vec<PtxasReport> = Vec::new();
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or(rest);
            kernels.push(PtxasReport { kernel: name.to_string(), ..Default::default() });
        } else if let Some(k) = kernels.last_mut() {
            if line.contains("bytes stack frame") {
                k.stack_bytes = number_before(line, "bytes stack frame").unwrap_or(0);
                k.spill_store_bytes = number_before(line, "bytes spill stores").unwrap_or(0);
                k.spill_load_bytes = number_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("Used") && line.contains("registers") {
                k.registers = number_before(line, "registers").unwrap_or(0);
                k.shared_bytes = number_before(line, "bytes smem").unwrap_or(0);
            }
        }
    }
    kernels
}

/// Warps per SM that `registers` per thread allow on sm_90 (64 K registers, allocated per
/// warp in units of 256, at most 64 warps), ignoring block granularity and shared memory.
fn warps_allowed_by_registers(registers: u32) -> u32 {
    if registers == 0 {
        return 64;
    }
    let per_warp = (registers * 32).div_ceil(256) * 256;
    (65536 / per_warp).min(64)
}

fn print_resources(
    compiler: KernelCompiler,
    target: &warpath_cuda::compiler::CompileTarget,
    sources: &[warpath_cuda::compiler::KernelSource],
    threads: usize,
) -> Result<()> {
    let compiler = compiler.with_cache_dir(None).with_extra_options(&["--ptxas-options=-v"]);
    let logs = compiler.compile_many(sources, target, threads, |compiled| compiled.log);
    println!(
        "| program | kernel | registers | spill stores (B) | spill loads (B) | stack (B) | static shared (B) | warps/SM by registers | occupancy |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (program, _, outcome) in logs {
        let log = outcome.with_context(|| format!("compiling {program}"))?;
        for k in parse_ptxas_report(&log) {
            let warps = warps_allowed_by_registers(k.registers);
            println!(
                "| {program} | `{}` | {} | {} | {} | {} | {} | {warps} | {:.0}% |",
                k.kernel,
                k.registers,
                k.spill_store_bytes,
                k.spill_load_bytes,
                k.stack_bytes,
                k.shared_bytes,
                100.0 * warps as f64 / 64.0
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{parse_capability, parse_ptxas_report, warps_allowed_by_registers};

    #[test]
    fn ptxas_reports_parse() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'volume_naive' for 'sm_90'\n\
ptxas info    : Function properties for volume_naive\n\
    48 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 168 registers, used 1 barriers, 1024 bytes smem, 400 bytes cmem[0]\n\
ptxas info    : Compiling entry function 'film_merge' for 'sm_90'\n\
ptxas info    : Function properties for film_merge\n\
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 12 registers, 380 bytes cmem[0]\n";
        let kernels = parse_ptxas_report(log);
        assert_eq!(kernels.len(), 2);
        assert_eq!(
            (
                kernels[0].kernel.as_str(),
                kernels[0].registers,
                kernels[0].spill_store_bytes,
                kernels[0].spill_load_bytes
            ),
            ("volume_naive", 168, 8, 12)
        );
        assert_eq!((kernels[0].stack_bytes, kernels[0].shared_bytes), (48, 1024));
        assert_eq!((kernels[1].kernel.as_str(), kernels[1].registers, kernels[1].shared_bytes), ("film_merge", 12, 0));
    }

    #[test]
    fn register_limited_occupancy_follows_the_allocation_unit() {
        assert_eq!(warps_allowed_by_registers(32), 64); // 1024 per warp: 64 warps
        assert_eq!(warps_allowed_by_registers(64), 32);
        assert_eq!(warps_allowed_by_registers(168), 12); // 5376 per warp
        assert_eq!(warps_allowed_by_registers(255), 8);
    }

    #[test]
    fn compute_capabilities_parse_and_bad_ones_say_why() {
        assert_eq!(parse_capability("9.0"), Ok((9, 0)));
        assert_eq!(parse_capability("8.6"), Ok((8, 6)));
        assert!(parse_capability("90").unwrap_err().contains("MAJOR.MINOR"));
        assert!(parse_capability("9.x").unwrap_err().contains("9.x"));
        assert!(parse_capability("3.5").unwrap_err().contains("older than"));
    }
}
