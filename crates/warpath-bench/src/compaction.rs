//! `warpath-bench compaction`: effective GB/s of the stream compaction methods (issue 4, seed
//! 001; the method table is `warpath_cuda::compaction::CompactionMethod`) for 2^k elements of
//! each element type (u32, a 16-byte struct, a 64-byte path state) at each selectivity,
//! beside a device-to-device memcpy of the same input measured in the same run, and
//! optionally beside the CUB peer (`--cub`). Effective bytes: n × size read (+ n flag bytes
//! for OfK) plus kept × size written; memcpy: 2 × n × size. CUDA events, warm-up runs,
//! median; every method's kept count is checked against the others' and CUB's.
//! docs/benchmarks/compaction.md says what each method is and how CUB is run beside it.

use anyhow::{Context, Result, bail};
use clap::builder::PossibleValuesParser;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use warpath_cuda::compaction::{
    CompactElem16, CompactPathState, CompactionBuffers, CompactionElement, CompactionMethod, ElementKind, fill,
    median_ms, threshold_for, time_input_copy, time_method, write_flags,
};
use warpath_cuda::{CudaDevice, DeviceBuffer};

/// The seed of the benchmark's data (the data of 2^k elements uses `DATA_SEED ^ 2^k`); the
/// CUB peer (`crates/warpath-bench/cub/cub_select.cu`) makes the same data from the same seed.
const DATA_SEED: u32 = 0x2545_f491;

/// The methods of the benchmark's table unless `--methods` says otherwise: the renderer's
/// in-kernel methods, the fastest order-preserving u32 kernel, and the out-of-kernel ones.
const DEFAULT_METHODS: &str = "ink-collate,ink-compact,lookback,lookback-deep-ahead,ofk,three-pass";

#[derive(clap::Args)]
pub struct CompactionArgs {
    /// log2 of the element counts (at most 31).
    #[arg(long, value_delimiter = ',', default_value = "16,20,24,28")]
    pub sizes: Vec<u32>,
    /// Kept fractions in percent.
    #[arg(long, value_delimiter = ',', default_value = "1,10,50,90,100")]
    pub selectivity: Vec<f64>,
    /// Element types.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "u32,elem16,path64",
        value_parser = PossibleValuesParser::new(ElementKind::ALL.map(ElementKind::name))
    )]
    pub elements: Vec<String>,
    /// Methods, one table column each: InK-Collate (order within a block only), InK-Compact
    /// (block sections), decoupled look-back, the deep look-back with tickets ahead (the
    /// fastest order-preserving u32 kernel), OfK (from a flag array), three-pass, and the
    /// one-element-per-thread forms the wavefront path tracer calls (`-x1`). The deep
    /// look-back and the `-x1` forms exist for u32 only ("–" in other elements' rows).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = DEFAULT_METHODS,
        value_parser = PossibleValuesParser::new(CompactionMethod::ALL.map(CompactionMethod::name))
    )]
    pub methods: Vec<String>,
    /// Timed runs per combination (median reported).
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    /// Untimed runs first.
    #[arg(long, default_value_t = 3)]
    pub warmup: usize,
    /// Skip combinations whose input buffer exceeds this many GiB (each of input, output
    /// and InK-Compact's intermediate buffer has that size).
    #[arg(long, default_value_t = 4.0)]
    pub max_buffer_gib: f64,
    /// The CUB peer (`crates/warpath-bench/cub/build.sh` builds it): run after warpath's
    /// methods with the same sizes, selectivities and elements; its `cub-if`, `cub-flagged`
    /// and its own memcpy join the table.
    #[arg(long)]
    pub cub: Option<PathBuf>,
    /// Also write the results as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// What one benchmark run measures.
#[derive(Clone, Debug, PartialEq)]
struct Plan {
    sizes_log2: Vec<u32>,
    selectivities_percent: Vec<f64>,
    kinds: Vec<ElementKind>,
    methods: Vec<CompactionMethod>,
    warmup_runs: usize,
    timed_runs: usize,
    /// Combinations whose input buffer would exceed this many bytes are skipped.
    max_buffer_bytes: usize,
}

/// One timed (element, size, selectivity, method), or the memcpy row (`method == "memcpy"`).
#[derive(Clone, Debug, PartialEq)]
struct Timing {
    element: &'static str,
    element_bytes: usize,
    elements: usize,
    selectivity_percent: f64,
    method: String,
    kept: usize,
    /// Bytes counted: n × size (+ n flag bytes for OfK) read, kept × size written; memcpy:
    /// 2 × n × size.
    effective_bytes: u64,
    run_ms: Vec<f32>,
    median_ms: f32,
    gigabytes_per_second: f64,
}

/// An (element, size) left out because its buffers would exceed the cap.
#[derive(Clone, Debug, PartialEq)]
struct SkippedSize {
    element: &'static str,
    elements: usize,
    reason: String,
}

impl std::fmt::Display for SkippedSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} × 2^{}: {}", self.element, self.elements.trailing_zeros(), self.reason)
    }
}

fn gigabytes_per_second(bytes: u64, ms: f32) -> f64 {
    if ms > 0.0 { bytes as f64 / (ms as f64 * 1e-3) / 1e9 } else { 0.0 }
}

/// Times every method of `plan` on random data of every size, selectivity and element kind,
/// beside a device-to-device memcpy of the input in the same run; `progress` sees each row.
fn bench(
    device: &CudaDevice,
    plan: &Plan,
    mut progress: impl FnMut(&Timing),
) -> Result<(Vec<Timing>, Vec<SkippedSize>)> {
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for &kind in &plan.kinds {
        for &log2 in &plan.sizes_log2 {
            let n = 1usize << log2;
            let bytes = n * kind.size_bytes();
            if bytes > plan.max_buffer_bytes {
                skipped.push(SkippedSize {
                    element: kind.name(),
                    elements: n,
                    reason: format!(
                        "{} MiB per buffer exceeds the cap of {} MiB",
                        bytes >> 20,
                        plan.max_buffer_bytes >> 20
                    ),
                });
                continue;
            }
            match kind {
                ElementKind::U32 => bench_kind::<u32>(device, plan, n, &mut rows, &mut progress)?,
                ElementKind::Elem16 => bench_kind::<CompactElem16>(device, plan, n, &mut rows, &mut progress)?,
                ElementKind::PathState => bench_kind::<CompactPathState>(device, plan, n, &mut rows, &mut progress)?,
            }
        }
    }
    Ok((rows, skipped))
}

/// The memcpy row and every (selectivity, method) row of `n` elements of `T`.
fn bench_kind<T: CompactionElement>(
    device: &CudaDevice,
    plan: &Plan,
    n: usize,
    rows: &mut Vec<Timing>,
    progress: &mut impl FnMut(&Timing),
) -> Result<()> {
    let kind = T::KIND;
    let mut input = DeviceBuffer::<T>::zeroed(device, n)?;
    fill(device, &mut input, DATA_SEED ^ n as u32)?;
    let mut buffers = CompactionBuffers::new(device, input)?;
    let size = kind.size_bytes() as u64;
    let row = |selectivity: f64, method: &str, kept: usize, effective_bytes: u64, run_ms: Vec<f32>| {
        let median = median_ms(&run_ms);
        Timing {
            element: kind.name(),
            element_bytes: kind.size_bytes(),
            elements: n,
            selectivity_percent: selectivity,
            method: method.to_string(),
            kept,
            effective_bytes,
            gigabytes_per_second: gigabytes_per_second(effective_bytes, median),
            median_ms: median,
            run_ms,
        }
    };
    let run_ms = time_input_copy(device, &mut buffers, plan.warmup_runs, plan.timed_runs)?;
    let timing = row(100.0, "memcpy", n, 2 * n as u64 * size, run_ms);
    progress(&timing);
    rows.push(timing);
    for &selectivity in &plan.selectivities_percent {
        let threshold = threshold_for(selectivity / 100.0);
        write_flags(device, &buffers.input, &mut buffers.flags, threshold)?;
        let mut reference: Option<(CompactionMethod, u32)> = None;
        for &method in plan.methods.iter().filter(|m| m.supports(kind)) {
            let run_ms = time_method(device, &mut buffers, method, threshold, plan.warmup_runs, plan.timed_runs)
                .with_context(|| format!("{method} on 2^{} {}", n.trailing_zeros(), kind.name()))?;
            let kept = buffers.workspace.count(device)?;
            match reference {
                Some((first, count)) if count != kept => bail!(
                    "{method} kept {kept} of {n} {} elements at {selectivity}%, but {first} kept {count}",
                    kind.name()
                ),
                Some(_) => {}
                None => reference = Some((method, kept)),
            }
            let flag_bytes = if method.reads_flags() { n as u64 } else { 0 };
            let effective = n as u64 * size + flag_bytes + kept as u64 * size;
            let timing = row(selectivity, method.name(), kept as usize, effective, run_ms);
            progress(&timing);
            rows.push(timing);
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct Row<'a> {
    element: &'a str,
    element_bytes: usize,
    elements: usize,
    selectivity_percent: f64,
    method: &'a str,
    kept: usize,
    effective_bytes: u64,
    median_ms: f32,
    gigabytes_per_second: f64,
    fraction_of_memcpy: f64,
    run_ms: &'a [f32],
}

/// One JSON line of `cub_select`.
#[derive(Deserialize)]
struct CubLine {
    element: String,
    element_bytes: usize,
    elements: usize,
    selectivity_percent: f64,
    method: String,
    kept: usize,
    effective_bytes: u64,
    median_ms: f32,
    gigabytes_per_second: f64,
}

/// Runs the CUB peer with the benchmark's settings and reads its rows.
fn run_cub(path: &std::path::Path, args: &CompactionArgs) -> Result<Vec<Timing>> {
    let list = |values: Vec<String>| values.join(",");
    let output = std::process::Command::new(path)
        .arg("--sizes")
        .arg(list(args.sizes.iter().map(|s| s.to_string()).collect()))
        .arg("--selectivity")
        .arg(list(args.selectivity.iter().map(|s| s.to_string()).collect()))
        .arg("--elements")
        .arg(args.elements.join(","))
        .arg("--runs")
        .arg(args.runs.max(1).to_string())
        .arg("--warmup")
        .arg(args.warmup.to_string())
        .arg("--max-buffer-gib")
        .arg(args.max_buffer_gib.to_string())
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run the CUB peer {}", path.display()))?;
    if !output.status.success() {
        bail!("the CUB peer {} failed ({})", path.display(), output.status);
    }
    let mut rows = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines().filter(|l| l.trim_start().starts_with('{')) {
        let cub: CubLine = serde_json::from_str(line).with_context(|| format!("CUB peer line `{line}`"))?;
        let element = ElementKind::from_name(&cub.element)
            .with_context(|| format!("CUB peer: unknown element `{}`", cub.element))?
            .name();
        let method = if cub.method == "memcpy" { "cub-memcpy".to_string() } else { cub.method };
        rows.push(Timing {
            element,
            element_bytes: cub.element_bytes,
            elements: cub.elements,
            selectivity_percent: cub.selectivity_percent,
            method,
            kept: cub.kept,
            effective_bytes: cub.effective_bytes,
            run_ms: vec![cub.median_ms],
            median_ms: cub.median_ms,
            gigabytes_per_second: cub.gigabytes_per_second,
        });
    }
    Ok(rows)
}

#[derive(Serialize)]
struct Output<'a> {
    device: String,
    rows: Vec<Row<'a>>,
    skipped: Vec<String>,
}

/// The plan `args` ask for, or an error naming the value that is out of range.
fn plan(args: &CompactionArgs) -> Result<Plan> {
    let kinds = args
        .elements
        .iter()
        .map(|name| ElementKind::from_name(name).with_context(|| format!("unknown element type '{name}'")))
        .collect::<Result<Vec<_>>>()?;
    let methods = args
        .methods
        .iter()
        .map(|name| CompactionMethod::from_name(name).with_context(|| format!("unknown compaction method '{name}'")))
        .collect::<Result<Vec<_>>>()?;
    if let Some(&size) = args.sizes.iter().find(|&&s| s > 31) {
        bail!("--sizes {size}: sizes are log2 of the element count, at most 31");
    }
    if let Some(&s) = args.selectivity.iter().find(|&&s| !(0.0..=100.0).contains(&s)) {
        bail!("--selectivity {s}: selectivities are percentages in 0..=100");
    }
    if args.max_buffer_gib.is_nan() || args.max_buffer_gib <= 0.0 {
        bail!("--max-buffer-gib {}: the cap must be a positive number of GiB", args.max_buffer_gib);
    }
    Ok(Plan {
        sizes_log2: args.sizes.clone(),
        selectivities_percent: args.selectivity.clone(),
        kinds,
        methods,
        warmup_runs: args.warmup,
        timed_runs: args.runs.max(1),
        max_buffer_bytes: (args.max_buffer_gib * (1u64 << 30) as f64) as usize,
    })
}

pub fn run(args: CompactionArgs) -> Result<()> {
    let plan = plan(&args)?;
    let device = CudaDevice::open(0).context("`warpath-bench compaction` needs a CUDA device")?;
    let info = device.info();
    println!(
        "- gpu: {}, {} SMs, {:.0} GiB, driver CUDA {}",
        info.name,
        info.multiprocessors,
        info.total_memory_bytes as f64 / (1u64 << 30) as f64,
        info.driver_version_string()
    );
    let (timings, skipped) = bench(&device, &plan, |t| {
        eprintln!(
            "  {} 2^{} {:>5}% {:<19} {:>9.4} ms {:>8.1} GB/s",
            t.element,
            t.elements.trailing_zeros(),
            t.selectivity_percent,
            t.method,
            t.median_ms,
            t.gigabytes_per_second
        )
    })
    .context("compaction benchmark")?;
    let mut timings = timings;
    let mut columns: Vec<String> = plan.methods.iter().map(|m| m.name().to_string()).collect();
    if let Some(cub) = &args.cub {
        let cub_rows = run_cub(cub, &args)?;
        for row in &cub_rows {
            eprintln!(
                "  {} 2^{} {:>5}% {:<19} {:>9.4} ms {:>8.1} GB/s",
                row.element,
                row.elements.trailing_zeros(),
                row.selectivity_percent,
                row.method,
                row.median_ms,
                row.gigabytes_per_second
            );
            // Counts must agree: the same data, the same predicate.
            if let Some(ours) = timings.iter().find(|t| {
                t.method != "memcpy"
                    && t.element == row.element
                    && t.elements == row.elements
                    && t.selectivity_percent == row.selectivity_percent
            }) && row.method != "cub-memcpy"
                && ours.kept != row.kept
            {
                bail!(
                    "{} kept {} of 2^{} {} at {}%, warpath's {} kept {}",
                    row.method,
                    row.kept,
                    row.elements.trailing_zeros(),
                    row.element,
                    row.selectivity_percent,
                    ours.method,
                    ours.kept
                );
            }
        }
        timings.extend(cub_rows);
        columns.extend(["cub-if", "cub-flagged"].map(String::from));
    }
    let skipped: Vec<String> = skipped.iter().map(|s| s.to_string()).collect();
    for line in &skipped {
        println!("- skipped {line}");
    }
    let memcpy = |t: &Timing| {
        timings
            .iter()
            .find(|m| m.method == "memcpy" && m.element == t.element && m.elements == t.elements)
            .map(|m| m.gigabytes_per_second)
            .unwrap_or(0.0)
    };

    // One line per (element, size, selectivity), one GB/s column per method.
    println!();
    let mut header = String::from("| element | n | kept % | memcpy GB/s |");
    let mut rule = String::from("|---|---:|---:|---:|");
    for column in &columns {
        header.push_str(&format!(" {column} GB/s |"));
        rule.push_str("---:|");
    }
    println!("{header}\n{rule}");
    let mut lines: Vec<(&str, usize, f64)> = Vec::new();
    for t in timings.iter().filter(|t| t.method != "memcpy" && t.method != "cub-memcpy") {
        let key = (t.element, t.elements, t.selectivity_percent);
        if !lines.contains(&key) {
            lines.push(key);
        }
    }
    for (element, elements, selectivity) in lines {
        let cells: Vec<&Timing> = timings
            .iter()
            .filter(|t| t.element == element && t.elements == elements && t.selectivity_percent == selectivity)
            .collect();
        let Some(first) = cells.first() else { continue };
        let mut line =
            format!("| {element} | 2^{} | {selectivity} | {:.0} |", elements.trailing_zeros(), memcpy(first));
        for column in &columns {
            match cells.iter().find(|t| &t.method == column) {
                Some(t) => line.push_str(&format!(" {:.0} |", t.gigabytes_per_second)),
                None => line.push_str(" – |"),
            }
        }
        println!("{line}");
    }

    if let Some(path) = args.json {
        let rows = timings
            .iter()
            .map(|t| Row {
                element: t.element,
                element_bytes: t.element_bytes,
                elements: t.elements,
                selectivity_percent: t.selectivity_percent,
                method: &t.method,
                kept: t.kept,
                effective_bytes: t.effective_bytes,
                median_ms: t.median_ms,
                gigabytes_per_second: t.gigabytes_per_second,
                fraction_of_memcpy: t.gigabytes_per_second / memcpy(t).max(1e-9),
                run_ms: &t.run_ms,
            })
            .collect();
        let output = Output { device: info.to_string(), rows, skipped };
        std::fs::write(&path, serde_json::to_string_pretty(&output)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        args: CompactionArgs,
    }

    fn parse(arguments: &[&str]) -> Result<CompactionArgs, clap::Error> {
        Command::try_parse_from(std::iter::once("compaction").chain(arguments.iter().copied())).map(|c| c.args)
    }

    #[test]
    fn defaults_plan_the_headline_table() {
        let plan = plan(&parse(&[]).expect("defaults parse")).expect("defaults plan");
        assert_eq!(
            plan.methods,
            [
                CompactionMethod::Collate,
                CompactionMethod::Sections,
                CompactionMethod::Lookback,
                CompactionMethod::LookbackDeepAhead,
                CompactionMethod::OutOfKernel,
                CompactionMethod::ThreePass
            ]
        );
        assert_eq!(plan.kinds, ElementKind::ALL);
        assert_eq!(plan.sizes_log2, [16, 20, 24, 28]);
        assert_eq!(plan.max_buffer_bytes, 4 << 30);
    }

    #[test]
    fn help_lists_every_method_and_unknown_ones_are_refused_by_name() {
        let help = Command::command().render_long_help().to_string();
        for method in CompactionMethod::ALL {
            assert!(help.contains(method.name()), "--help lacks {method}:\n{help}");
        }
        let error = parse(&["--methods", "lookback,round-scan"]).err().expect("round-scan is gone");
        let text = error.to_string();
        assert!(text.contains("round-scan") && text.contains("lookback-deep-ahead"), "{text}");
        assert!(parse(&["--elements", "u64"]).is_err());
    }

    #[test]
    fn out_of_range_values_are_errors_naming_the_value() {
        let text = plan(&parse(&["--sizes", "20,32"]).unwrap()).unwrap_err().to_string();
        assert!(text.contains("--sizes 32"), "{text}");
        let text = plan(&parse(&["--selectivity", "50,101"]).unwrap()).unwrap_err().to_string();
        assert!(text.contains("--selectivity 101"), "{text}");
        let text = plan(&parse(&["--max-buffer-gib", "0"]).unwrap()).unwrap_err().to_string();
        assert!(text.contains("--max-buffer-gib 0"), "{text}");
    }

    #[test]
    fn skipped_sizes_name_the_element_and_the_power_of_two() {
        let skipped = SkippedSize { element: "path64", elements: 1 << 28, reason: "too big".into() };
        assert_eq!(skipped.to_string(), "path64 × 2^28: too big");
        assert_eq!(gigabytes_per_second(2_000_000_000, 1000.0), 2.0);
        assert_eq!(gigabytes_per_second(1, 0.0), 0.0);
    }
}
