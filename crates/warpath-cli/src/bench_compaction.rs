//! `warpath bench compaction`: effective GB/s of every stream compaction method (issue 4,
//! seed 001) for 2^k elements of each element type (u32, a 16-byte struct, a 64-byte
//! path state) at each selectivity, beside a device-to-device memcpy of the same input
//! measured in the same run. Effective bytes: n × size read (+ n flag bytes for OfK) plus
//! kept × size written; memcpy: 2 × n × size. CUDA events, warm-up runs, median.
//! docs/benchmarks/compaction.md says what each method is and how CUB is run beside it.

use anyhow::{Context, Result, bail};
use serde::Serialize;
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
    /// Methods: ink-collate, ink-compact, lookback, ofk, three-pass, ink-collate-x1,
    /// ink-compact-x1, lookback-x1 (the x1 ones: u32 only).
    #[arg(long, value_delimiter = ',', default_value = "ink-collate,ink-compact,lookback,ofk,three-pass")]
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
    let skipped: Vec<String> =
        skipped.iter().map(|s| format!("{} × 2^{}: {}", s.element, s.elements.trailing_zeros(), s.reason)).collect();
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
    for method in &methods {
        header.push_str(&format!(" {} GB/s |", method.name()));
        rule.push_str("---:|");
    }
    println!("{header}\n{rule}");
    let mut lines: Vec<(&str, usize, f64)> = Vec::new();
    for t in timings.iter().filter(|t| t.method != "memcpy") {
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
        for method in &methods {
            match cells.iter().find(|t| t.method == method.name()) {
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
