//! `warpath precompile`: compiles every CUDA program (or those whose names match) for the
//! GPU at hand into the kernel cache, several at once. A render compiles the programs its
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
use warpath_cuda::CudaDevice;
use warpath_cuda::compiler::{CacheUse, KernelCompiler};

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

pub fn run(args: &PrecompileArgs) -> Result<()> {
    let sources: Vec<_> = warpath_cuda::kernels::programs()
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
            let cache = compiler
                .cache_dir()
                .map_or("no cache: $WARPATH_KERNEL_CACHE is off".into(), |d| d.display().to_string());
            eprintln!(
                "compiling {} programs on {threads} threads for {} (driver {}) into {cache}",
                sources.len(),
                target.gpu_architecture(),
                args.driver_version
            );
            compiler.compile_many(&sources, &target, threads)
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

#[cfg(test)]
mod tests {
    use super::parse_capability;

    #[test]
    fn compute_capabilities_parse_and_bad_ones_say_why() {
        assert_eq!(parse_capability("9.0"), Ok((9, 0)));
        assert_eq!(parse_capability("8.6"), Ok((8, 6)));
        assert!(parse_capability("90").unwrap_err().contains("MAJOR.MINOR"));
        assert!(parse_capability("9.x").unwrap_err().contains("9.x"));
        assert!(parse_capability("3.5").unwrap_err().contains("older than"));
    }
}
