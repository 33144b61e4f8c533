//! `warpath bench compaction`: effective GB/s of every stream compaction method (issue 4,
//! seed 001) for 2^k elements of each element type (u32, a 16-byte struct, a 64-byte
//! path state) at each selectivity, beside a device-to-device memcpy of the same input
//! measured in the same run. Effective bytes: n × size read (+ n flag bytes for OfK) plus
//! kept × size written; memcpy: 2 × n × size. CUDA events, warm-up runs, median.
//! docs/benchmarks/compaction.md says what each method is and how CUB is run beside it.

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use warpath_cuda::CudaDevice;
use warpath_cuda::compaction::{
    CompactionBenchOptions, CompactionMethod, CompactionTiming, ElementKind, bench_compaction,
};

#[derive(clap::Args)]
pub struct CompactionArgs {
    /// log2 of the element counts.
    #[arg(long, value_delimiter = ',', default_value = "16,20,24,28")]
    pub sizes: Vec<u32>,
    /// Kept fractions in percent.
    #[arg(long, value_delimiter = ',', default_value = "1,10,50,90,100")]
    pub selectivity: Vec<f64>,
    /// Element types: u32, elem16, path64.
    #[arg(long, value_delimiter = ',', default_value = "u32,elem16,path64")]
    pub elements: Vec<String>,
    /// Methods: ink-collate, ink-compact, lookback, lookback-staged, lookback-384,
    /// lookback-pipelined, lookback-deep, lookback-deep-vec4, lookback-deep-ahead (the
    /// fastest order-preserving one), ink-collate-vec4 (these four: u32 only), round-scan,
    /// ink-collate-bulk (these two use Hopper bulk copies where the GPU has them), ofk,
    /// three-pass, ink-collate-x1, ink-compact-x1, lookback-x1 (the x1 ones: u32 only).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "ink-collate,ink-compact,lookback,lookback-staged,lookback-384,lookback-pipelined,lookback-deep,lookback-deep-ahead,round-scan,ofk,three-pass"
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
    /// The CUB peer (`crates/warpath-cuda/cub/build.sh` builds it): run after warpath's
    /// methods with the same sizes, selectivities and elements; its `cub-if`, `cub-flagged`
    /// and its own memcpy join the table.
    #[arg(long)]
    pub cub: Option<PathBuf>,
    /// Also write the results as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
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
fn run_cub(path: &std::path::Path, args: &CompactionArgs) -> Result<Vec<CompactionTiming>> {
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
        rows.push(CompactionTiming {
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

pub fn run(args: CompactionArgs) -> Result<()> {
    let device = CudaDevice::open(0).context("`bench compaction` needs a CUDA device")?;
    let info = device.info();
    println!(
        "- gpu: {}, {} SMs, {:.0} GiB, driver CUDA {}",
        info.name,
        info.multiprocessors,
        info.total_memory_bytes as f64 / (1u64 << 30) as f64,
        info.driver_version_string()
    );
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
    let options = CompactionBenchOptions {
        sizes_log2: args.sizes.clone(),
        selectivities_percent: args.selectivity.clone(),
        kinds,
        methods: methods.clone(),
        warmup_runs: args.warmup,
        timed_runs: args.runs.max(1),
        max_buffer_bytes: (args.max_buffer_gib * (1u64 << 30) as f64) as usize,
        ..Default::default()
    };
    let (timings, skipped) = bench_compaction(&device, &options, |t| {
        eprintln!(
            "  {} 2^{} {:>5}% {:<14} {:>9.4} ms {:>8.1} GB/s",
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
    let mut columns: Vec<String> = methods.iter().map(|m| m.name().to_string()).collect();
    if let Some(cub) = &args.cub {
        let cub_rows = run_cub(cub, &args)?;
        for row in &cub_rows {
            eprintln!(
                "  {} 2^{} {:>5}% {:<14} {:>9.4} ms {:>8.1} GB/s",
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
    let memcpy = |t: &CompactionTiming| {
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
        let cells: Vec<&CompactionTiming> = timings
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
