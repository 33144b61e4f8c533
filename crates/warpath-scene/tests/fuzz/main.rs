//! The fuzz harness (stable Rust, no external fuzzer): valid seed files of every format
//! (`formats.rs`, `seeds/`) are mutated (`mutate.rs`: truncated, bit-flipped, size fields
//! inflated, ...) and loaded. A case passes when the loader returns — a scene or an error —
//! within the time limit, without a panic (even one a loader catches itself) and without an
//! allocation above the ceiling (which aborts, as a real out-of-memory would). Loaders run
//! under a memory cap (`warpath_core::limits::set_memory_cap`), so a claimed size costs an
//! error, not gigabytes.
//!
//! - `cargo test` runs [`fuzz_every_format_briefly`]: a fixed seed and a budget of seconds;
//!   it also checks that every seed loads and that every file in `tests/regressions/` (each
//!   one a crash found before) gives a result;
//! - `WARPATH_FUZZ_CASES=1000000 nice cargo test --release -p warpath-scene --test fuzz --
//!   --ignored fuzz_long --nocapture` runs the long campaign (`docs/robustness.md`): a
//!   supervisor runs the cases in a child process, so a crash that aborts it is recorded and
//!   the campaign goes on from the next case; every crash becomes a regression file.
//!
//! Every case is a pure function of (run seed, format, case index), so any crash can be
//! made again from its name.

mod formats;
mod mutate;
mod seeds;

use formats::{FORMATS, Format, Outcome};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::RefCell;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// The run seed of the CI test and the default of the long run.
const DEFAULT_SEED: u64 = 12;
/// Cases per format in `cargo test` (a few seconds in all).
const CI_CASES_PER_FORMAT: u64 = 4000;
/// The memory the loaders may claim per allocation under fuzzing.
const MEMORY_CAP: u64 = 64 << 20;
/// An allocation larger than this is a finding: the loader allocated past the guard.
const ALLOCATION_CEILING: usize = 256 << 20;
/// A case running longer than this is a hang.
const HANG_LIMIT: Duration = Duration::from_secs(10);
/// A case that returns but took longer than this is a finding too (a near-hang).
const SLOW_LIMIT: Duration = Duration::from_secs(2);

// ---------------------------------------------------------------------------------------
// Crash detection: allocation ceiling, hang watchdog, panic hook
// ---------------------------------------------------------------------------------------

/// Passes allocations to the system allocator, refusing (so the process aborts, as on a real
/// out-of-memory) any above [`ALLOCATION_CEILING`] after naming the running case.
struct CeilingAllocator;

static REPORTING: AtomicBool = AtomicBool::new(false);

fn refuse(size: usize) -> *mut u8 {
    if !REPORTING.swap(true, Ordering::SeqCst) {
        report_crash(&format!("an allocation of {size} bytes (more than the {ALLOCATION_CEILING}-byte ceiling)"));
    }
    std::ptr::null_mut()
}

unsafe impl GlobalAlloc for CeilingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > ALLOCATION_CEILING {
            return refuse(layout.size());
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > ALLOCATION_CEILING {
            return refuse(layout.size());
        }
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > ALLOCATION_CEILING {
            return refuse(new_size);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CeilingAllocator = CeilingAllocator;

/// The case running now (format index, case index) and since when (ms since `EPOCH`; 0 =
/// none), for the allocator's and the watchdog's reports.
static CURRENT_FORMAT: AtomicUsize = AtomicUsize::new(usize::MAX);
static CURRENT_CASE: AtomicU64 = AtomicU64::new(0);
static CASE_STARTED_MS: AtomicU64 = AtomicU64::new(0);
static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

fn now_ms() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64 + 1
}

/// Prints the line the supervisor parses: `fuzz-crash <format> <case> <problem>`.
fn report_crash(problem: &str) {
    let format = CURRENT_FORMAT.load(Ordering::SeqCst);
    let name = FORMATS.get(format).map(|f| f.name).unwrap_or("none");
    eprintln!("fuzz-crash\t{name}\t{}\t{problem}", CURRENT_CASE.load(Ordering::SeqCst));
}

thread_local! {
    /// The message of the last panic in a case on this thread (set by the hook, taken by
    /// the runner).
    static PANIC_MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Whether this thread is inside a case (panics elsewhere print as usual).
    static IN_CASE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs the panic hook (panics are recorded, not printed) and the hang watchdog, and
/// sets the memory cap: once per process.
fn install_harness() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CASE.with(|c| c.get()) {
                let message = info.to_string();
                PANIC_MESSAGE.with(|m| *m.borrow_mut() = Some(message));
            } else {
                default_hook(info);
            }
        }));
        warpath_core::limits::set_memory_cap(Some(MEMORY_CAP));
        std::thread::spawn(|| {
            loop {
                std::thread::sleep(Duration::from_millis(200));
                let started = CASE_STARTED_MS.load(Ordering::SeqCst);
                if started != 0 && now_ms().saturating_sub(started) > HANG_LIMIT.as_millis() as u64 {
                    report_crash(&format!("still running after {} s (a hang)", HANG_LIMIT.as_secs()));
                    std::process::abort();
                }
            }
        });
    });
}

/// Runs one harness test at a time: the current case, the cap and the hook are global.
static HARNESS: Mutex<()> = Mutex::new(());

// ---------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------

struct Seeds {
    /// Per format: (seed file path, its bytes).
    files: Vec<Vec<(PathBuf, Vec<u8>)>>,
}

impl Seeds {
    fn load() -> Seeds {
        let folder = seeds::folder();
        let files = FORMATS
            .iter()
            .map(|f| {
                f.seeds
                    .iter()
                    .map(|name| {
                        let path = folder.join(name);
                        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("seed {}: {e}", path.display()));
                        (path, bytes)
                    })
                    .collect()
            })
            .collect();
        Seeds { files }
    }

    /// The input of case `case` of format `format` under run seed `seed`, and the path it
    /// is loaded as.
    fn case(&self, seed: u64, format: usize, case: u64) -> (Vec<u8>, &Path) {
        let f = &FORMATS[format];
        let mut rng = mutate::Rng::new(mutate::case_seed(seed, f.name, case));
        let (path, bytes) = &self.files[format][rng.below(self.files[format].len())];
        (mutate::mutate(bytes, f.dictionary, &mut rng), path)
    }
}

#[derive(Debug)]
struct Finding {
    format: usize,
    case: u64,
    problem: String,
}

/// Loads `bytes` as `format`, watching for panics and slowness; `Err` describes a crash.
fn check_one(format: &Format, bytes: &[u8], path: &Path) -> Result<Outcome, String> {
    PANIC_MESSAGE.with(|m| m.borrow_mut().take());
    CASE_STARTED_MS.store(now_ms(), Ordering::SeqCst);
    IN_CASE.with(|c| c.set(true));
    let start = Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (format.load)(bytes, path)));
    let elapsed = start.elapsed();
    IN_CASE.with(|c| c.set(false));
    CASE_STARTED_MS.store(0, Ordering::SeqCst);
    let panic = PANIC_MESSAGE.with(|m| m.borrow_mut().take());
    match (result, panic) {
        (Err(_), Some(message)) | (Ok(_), Some(message)) => Err(format!("panic: {}", one_line(&message))),
        (Err(_), None) => Err("panic".into()),
        (Ok(_), None) if elapsed > SLOW_LIMIT => Err(format!("took {:.1} s", elapsed.as_secs_f64())),
        (Ok(outcome), None) => Ok(outcome),
    }
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\t'], " ")
}

/// Runs global cases `range` (case k is case k / F of format k % F): returns the findings
/// and, per format, how many cases loaded and how many were errors.
fn run_cases(seeds: &Seeds, seed: u64, range: std::ops::Range<u64>) -> (Vec<Finding>, Vec<[u64; 2]>) {
    let mut findings = Vec::new();
    let mut tally = vec![[0u64; 2]; FORMATS.len()];
    for k in range {
        let format = (k % FORMATS.len() as u64) as usize;
        let case = k / FORMATS.len() as u64;
        CURRENT_FORMAT.store(format, Ordering::SeqCst);
        CURRENT_CASE.store(case, Ordering::SeqCst);
        let (bytes, path) = seeds.case(seed, format, case);
        match check_one(&FORMATS[format], &bytes, path) {
            Ok(Ok(())) => tally[format][0] += 1,
            Ok(Err(_)) => tally[format][1] += 1,
            Err(problem) => {
                report_crash(&problem);
                findings.push(Finding { format, case, problem });
            }
        }
    }
    CURRENT_FORMAT.store(usize::MAX, Ordering::SeqCst);
    (findings, tally)
}

fn regression_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions")
}

/// Saves a finding's input as `tests/regressions/fuzz-<format>-s<seed>-<case>.<ext>`.
fn save_regression(seeds: &Seeds, seed: u64, finding: &Finding) -> PathBuf {
    let (bytes, _) = seeds.case(seed, finding.format, finding.case);
    let f = &FORMATS[finding.format];
    let path = regression_folder().join(format!("fuzz-{}-s{seed}-{}.{}", f.name, finding.case, f.extension));
    std::fs::create_dir_all(regression_folder()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The format a regression file is replayed as: the first with the longest extension its
/// name ends with (`x.nii.gz` is NIfTI, not a gzipped PLY; `x.f32.raw` a raw f32 grid).
fn format_of(path: &Path) -> Option<usize> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let mut best: Option<usize> = None;
    for (i, f) in FORMATS.iter().enumerate() {
        if name.ends_with(&format!(".{}", f.extension))
            && best.is_none_or(|b| FORMATS[b].extension.len() < f.extension.len())
        {
            best = Some(i);
        }
    }
    best
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.trim().replace('_', "").parse().ok()).unwrap_or(default)
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

/// The CI run: every seed loads, every regression file gives a result, and
/// [`CI_CASES_PER_FORMAT`] mutated cases per format with a fixed seed give no crash.
#[test]
fn fuzz_every_format_briefly() {
    let _lock = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    install_harness();
    let seeds = Seeds::load();
    for (format, files) in FORMATS.iter().zip(&seeds.files) {
        for (path, bytes) in files {
            let outcome = check_one(format, bytes, path).unwrap_or_else(|crash| panic!("{}: {crash}", path.display()));
            assert!(outcome.is_ok(), "seed {} must load as {}: {outcome:?}", path.display(), format.name);
        }
    }
    let mut replayed = 0;
    for entry in std::fs::read_dir(regression_folder()).unwrap() {
        let path = entry.unwrap().path();
        let Some(format) = format_of(&path) else { continue };
        let bytes = std::fs::read(&path).unwrap();
        if let Err(crash) = check_one(&FORMATS[format], &bytes, &path) {
            panic!("regression {} crashes again: {crash}", path.display());
        }
        replayed += 1;
    }
    assert!(replayed >= 5, "the regression files are replayed ({replayed})");

    let seed = env_number("WARPATH_FUZZ_SEED", DEFAULT_SEED);
    let total = env_number("WARPATH_FUZZ_CI_CASES", CI_CASES_PER_FORMAT * FORMATS.len() as u64);
    let start = Instant::now();
    let (findings, tally) = run_cases(&seeds, seed, 0..total);
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "fuzz: {total} cases ({} formats, seed {seed}) in {seconds:.1} s, {} crashes; {} regression files replayed",
        FORMATS.len(),
        findings.len(),
        replayed
    );
    for (format, [loaded, errors]) in FORMATS.iter().zip(&tally) {
        eprintln!("fuzz:   {:<13} {loaded:>6} loaded {errors:>6} errors", format.name);
    }
    let saved: Vec<String> =
        findings.iter().map(|f| format!("{} ({})", save_regression(&seeds, seed, f).display(), f.problem)).collect();
    assert!(findings.is_empty(), "{} crash(es), saved as regression files:\n{}", findings.len(), saved.join("\n"));
    // Mutations must reach both outcomes in every format, or the fuzzing is blind.
    for (format, [loaded, errors]) in FORMATS.iter().zip(&tally) {
        assert!(*errors > 0, "{}: no mutated case was an error", format.name);
        assert!(*loaded > 0 || format.name.ends_with("-gz"), "{}: no mutated case loaded", format.name);
    }
}

/// Writes the input of one case as a regression file: `WARPATH_FUZZ_SAVE=format:case`
/// (with `WARPATH_FUZZ_SEED`), e.g. to keep a crash a run reported.
#[test]
#[ignore = "a tool: saves one case as a regression file"]
fn save_case() {
    let Ok(spec) = std::env::var("WARPATH_FUZZ_SAVE") else { return };
    let seed = env_number("WARPATH_FUZZ_SEED", DEFAULT_SEED);
    let seeds = Seeds::load();
    for item in spec.split(',') {
        let (name, case) = item.split_once(':').expect("format:case");
        let format = FORMATS.iter().position(|f| f.name == name).expect("a format of formats.rs");
        let finding = Finding { format, case: case.parse().expect("a case number"), problem: String::new() };
        eprintln!("saved {}", save_regression(&seeds, seed, &finding).display());
    }
}

/// The worker of [`fuzz_long`]: runs the cases `WARPATH_FUZZ_WORKER=seed:start:end:verbose`
/// in this process; prints a `fuzz-crash` line per crash (an abort ends the process after
/// its line), per-format tallies after every chunk, and, when verbose, each case's number
/// before it runs (to find a case that kills the process without a word, e.g. by overflowing
/// the stack).
#[test]
#[ignore = "run by fuzz_long in a child process"]
fn fuzz_worker() {
    let Ok(spec) = std::env::var("WARPATH_FUZZ_WORKER") else { return };
    let numbers: Vec<u64> = spec.split(':').map(|n| n.parse().expect("seed:start:end:verbose")).collect();
    let (seed, start, end, verbose) = (numbers[0], numbers[1], numbers[2], numbers[3] != 0);
    let _lock = HARNESS.lock().unwrap_or_else(|e| e.into_inner());
    install_harness();
    let seeds = Seeds::load();
    let chunk = if verbose { 1 } else { 20_000 };
    let mut k = start;
    while k < end {
        let next = (k + chunk).min(end);
        if verbose {
            eprintln!("fuzz-case\t{k}");
        }
        let (_, tally) = run_cases(&seeds, seed, k..next);
        for (format, [loaded, errors]) in FORMATS.iter().zip(&tally) {
            eprintln!("fuzz-tally\t{}\t{loaded}\t{errors}", format.name);
        }
        eprintln!("fuzz-progress\t{next}");
        k = next;
    }
}

/// The long campaign: `WARPATH_FUZZ_CASES` cases (default 1,000,000) with seed
/// `WARPATH_FUZZ_SEED`, run by [`fuzz_worker`] children; a crash that kills a child is
/// recorded and the campaign resumes after it. Every crash is saved under
/// `tests/regressions/`.
#[test]
#[ignore = "the long fuzz campaign: minutes; see docs/robustness.md"]
fn fuzz_long() {
    let total = env_number("WARPATH_FUZZ_CASES", 1_000_000);
    let seed = env_number("WARPATH_FUZZ_SEED", DEFAULT_SEED);
    let exe = std::env::current_exe().unwrap();
    let start = Instant::now();
    let mut crashes: Vec<(String, u64, String)> = Vec::new();
    let mut tally = vec![[0u64; 2]; FORMATS.len()];
    let mut next_case = 0u64;
    let mut verbose = false;
    let mut last_report = 0u64;
    let global = |format: &str, case: u64| {
        case * FORMATS.len() as u64 + FORMATS.iter().position(|f| f.name == format).unwrap_or(0) as u64
    };
    while next_case < total {
        let mut child = std::process::Command::new(&exe)
            .args(["fuzz_worker", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env("WARPATH_FUZZ_WORKER", format!("{seed}:{next_case}:{total}:{}", verbose as u8))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The crash reported since the last finished chunk, and the case last started.
        let mut reported_crash: Option<u64> = None;
        let mut last_started: Option<u64> = None;
        let mut progressed = next_case;
        for line in std::io::BufReader::new(child.stderr.take().unwrap()).lines() {
            let line = line.unwrap();
            let fields: Vec<&str> = line.split('\t').collect();
            match fields.as_slice() {
                ["fuzz-crash", format, case, problem] => {
                    let case: u64 = case.parse().unwrap();
                    eprintln!("fuzz: crash in {format} case {case}: {problem}");
                    crashes.push((format.to_string(), case, problem.to_string()));
                    reported_crash = Some(global(format, case));
                }
                ["fuzz-case", k] => last_started = Some(k.parse().unwrap()),
                ["fuzz-tally", format, loaded, errors] => {
                    let index = FORMATS.iter().position(|f| f.name == *format).unwrap();
                    tally[index][0] += loaded.parse::<u64>().unwrap();
                    tally[index][1] += errors.parse::<u64>().unwrap();
                }
                ["fuzz-progress", done] => {
                    progressed = done.parse().unwrap();
                    reported_crash = None;
                    if progressed >= last_report + total / 20 {
                        last_report = progressed;
                        let elapsed = start.elapsed().as_secs_f64();
                        eprintln!(
                            "fuzz: {progressed}/{total} cases, {} crashes, {elapsed:.0} s ({:.0} cases/s)",
                            crashes.len(),
                            progressed as f64 / elapsed
                        );
                    }
                }
                _ => {}
            }
        }
        let status = child.wait().unwrap();
        if status.success() {
            next_case = total;
        } else if let Some(crashed) = reported_crash {
            // An abort after its report: go on after that case.
            next_case = crashed + 1;
            verbose = false;
        } else if let (true, Some(k)) = (verbose, last_started) {
            // Found the case that died without a word.
            let format = &FORMATS[(k % FORMATS.len() as u64) as usize];
            let case = k / FORMATS.len() as u64;
            let problem = format!("the process died without a report ({status})");
            eprintln!("fuzz: crash in {} case {case}: {problem}", format.name);
            crashes.push((format.name.to_string(), case, problem));
            next_case = k + 1;
            verbose = false;
        } else {
            // Died without a word: run the unfinished chunk again case by case to find it.
            assert!(!verbose, "a verbose worker died before its first case ({status})");
            next_case = progressed;
            verbose = true;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let seeds = Seeds::load();
    let mut saved = Vec::new();
    for (format, case, problem) in &crashes {
        let format = FORMATS.iter().position(|f| f.name == format).unwrap();
        saved.push(save_regression(&seeds, seed, &Finding { format, case: *case, problem: problem.clone() }));
    }
    eprintln!(
        "fuzz: {total} cases ({} formats, seed {seed}) in {seconds:.0} s ({:.0} cases/s, {:.3} ms/case), {} crashes",
        FORMATS.len(),
        total as f64 / seconds,
        1e3 * seconds / total as f64,
        crashes.len()
    );
    for (format, [loaded, errors]) in FORMATS.iter().zip(&tally) {
        eprintln!("fuzz:   {:<13} {loaded:>8} loaded {errors:>8} errors", format.name);
    }
    assert!(crashes.is_empty(), "crashes saved as regression files: {saved:?}");
}
