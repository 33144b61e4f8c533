//! What a user sees while a command works, the same for every command: progress notes that
//! `--quiet` silences, a spinner (or one log line) for any stage that takes more than a second
//! (loading a scene, building a BVH, compiling kernels), a progress bar for the render itself,
//! and Ctrl-C, which stops promptly at every stage: while nothing has been rendered it quits at
//! once; during the render it finishes the current pass and saves the image so far.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `--quiet`: progress notes off (warnings, errors and closing summaries stay).
static QUIET: AtomicBool = AtomicBool::new(false);

pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Prints a progress note to stderr unless `--quiet` asked for silence.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        if !$crate::progress::quiet() {
            eprintln!($($arg)*);
        }
    };
}
pub use crate::note;

/// What Ctrl-C does now.
const PREPARING: u8 = 0;
const RENDERING: u8 = 1;

static PHASE: AtomicU8 = AtomicU8::new(PREPARING);
static CANCEL: AtomicBool = AtomicBool::new(false);
/// What the render does on the first Ctrl-C, e.g. "finishing the current pass".
static RENDERING_MESSAGE: Mutex<&'static str> = Mutex::new("finishing the current pass");

/// Installs the Ctrl-C handler (once per process, before any work): while preparing, Ctrl-C
/// quits at once (exit status 130: nothing to save yet); while rendering, the first Ctrl-C
/// sets the flag [`rendering`] returned and the second quits.
pub fn install_interrupt_handler() -> anyhow::Result<()> {
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    ctrlc::set_handler(|| {
        if PHASE.load(Ordering::SeqCst) == PREPARING || CANCEL.swap(true, Ordering::SeqCst) {
            eprintln!("\ninterrupted: nothing more to save; quitting");
            std::process::exit(130);
        }
        let what = *RENDERING_MESSAGE.lock().unwrap_or_else(|e| e.into_inner());
        eprintln!("\ninterrupted: {what} (Ctrl-C again to quit)");
    })
    .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))
}

/// Enters the rendering phase: from now on the first Ctrl-C sets the returned flag (and says
/// `what` happens next) instead of quitting.
pub fn rendering(what: &'static str) -> &'static AtomicBool {
    *RENDERING_MESSAGE.lock().unwrap_or_else(|e| e.into_inner()) = what;
    PHASE.store(RENDERING, Ordering::SeqCst);
    &CANCEL
}

/// Whether Ctrl-C asked the render to stop.
pub fn interrupted() -> bool {
    CANCEL.load(Ordering::SeqCst)
}

/// Runs `work`, showing "`what` ... (N s)" on a spinner (a terminal) or one line (a log) when
/// it takes more than a second; silent under `--quiet`.
pub fn stage<T>(what: &str, work: impl FnOnce() -> T) -> T {
    if quiet() {
        return work();
    }
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (done, what) = (done.clone(), what.to_string());
        std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(1) {
                if done.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if !std::io::stderr().is_terminal() {
                eprintln!("{what} ...");
                return;
            }
            let spinner = ProgressBar::new_spinner();
            spinner.set_style(ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"));
            spinner.set_message(what);
            spinner.enable_steady_tick(Duration::from_millis(100));
            while !done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20));
            }
            spinner.finish_and_clear();
        })
    };
    let result = work();
    done.store(true, Ordering::SeqCst);
    let _ = watcher.join();
    result
}

/// The render's progress: a bar on a terminal, a line every `interval` in a log (stderr not a
/// terminal), nothing under `--quiet`. The ETA is the render's alone: the clock starts when
/// the first pass does.
pub enum Progress {
    Bar(ProgressBar),
    Lines { interval: Duration, last: Instant, start: Instant },
    Silent,
}

impl Progress {
    /// Progress over `total` units (`unit`: "spp" or "frames").
    pub fn new(total: u32, unit: &str, interval_seconds: f64) -> Progress {
        if quiet() {
            return Progress::Silent;
        }
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total as u64);
            let template =
                format!("{{bar:40.cyan/blue}} {{pos}}/{{len}} {unit}  {{msg}}  elapsed {{elapsed}}  eta {{eta}}");
            bar.set_style(ProgressStyle::with_template(&template).expect("valid progress template"));
            return Progress::Bar(bar);
        }
        let now = Instant::now();
        Progress::Lines { interval: Duration::from_secs_f64(interval_seconds), last: now, start: now }
    }

    /// `done` of `total` units, at `rate` (units × pixels per second, shown in M/s).
    pub fn update(&mut self, done: u32, total: u32, unit: &str, samples_per_second: f64) {
        match self {
            Progress::Bar(bar) => {
                bar.set_position(done as u64);
                bar.set_message(format!("{:.2} Msamples/s", samples_per_second / 1e6));
            }
            Progress::Lines { interval, last, start } => {
                if last.elapsed() < *interval || done >= total {
                    return;
                }
                *last = Instant::now();
                let seconds = start.elapsed().as_secs_f64();
                let left = seconds / done.max(1) as f64 * (total - done) as f64;
                eprintln!(
                    "progress: {done}/{total} {unit} ({:.1}%), {:.2} Msamples/s, elapsed {seconds:.1} s, about {left:.1} s left",
                    100.0 * done as f64 / total as f64,
                    samples_per_second / 1e6
                );
            }
            Progress::Silent => {}
        }
    }

    pub fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
