//! `warpath precompile`: compiles every CUDA program (or those whose names match) for the
//! GPU at hand into the kernel cache, several at once. A render compiles the programs its
//! estimator and strategy use on first use, one after another; the schedule programs of the
//! volumetric estimator take a minute or more each, so a machine that will run many
//! strategies is better warmed once, in parallel.

use anyhow::{Context, Result, bail};
use clap::Args;
use warpath_cuda::CudaDevice;
use warpath_cuda::compiler::CacheUse;

#[derive(Args)]
pub struct PrecompileArgs {
    /// Only programs whose name contains one of these (comma separated), e.g. `volume`.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Programs compiled at once (default: the number of CPU cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn run(args: &PrecompileArgs) -> Result<()> {
    let device = CudaDevice::open(0).context("`precompile` needs a CUDA device (it compiles for that GPU)")?;
    let sources: Vec<_> = warpath_cuda::kernels::programs()
        .into_iter()
        .map(|(source, _)| source)
        .filter(|source| args.only.is_empty() || args.only.iter().any(|word| source.name.contains(word.as_str())))
        .collect();
    if sources.is_empty() {
        bail!("no program name contains any of {:?}", args.only);
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    eprintln!("compiling {} programs on {threads} threads for {}", sources.len(), device.info().name);
    let start = std::time::Instant::now();
    let mut failed = 0;
    for (name, seconds, outcome) in device.precompile(&sources, threads)? {
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
