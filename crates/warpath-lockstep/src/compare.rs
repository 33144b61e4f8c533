//! Runs one case on both ports over seeded random arguments and compares the results word
//! by word within the case's bound; a report says how many differed, by how many ulps at
//! most, and shows the first few arguments that differed, decoded.

use crate::Port;
use crate::cases::{Bound, Case};
use crate::host_scene::HostScene;
use crate::words::{Output, Reader, Rng, WordKind, Words};
use std::fmt::Write as _;

/// Distance in ulps between two floats given as bits: 0 for two NaNs, `u64::MAX` for a NaN
/// and a number; 0.0 and -0.0 are one ulp apart.
pub fn ulps_between(a: u32, b: u32) -> u64 {
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    if fa.is_nan() || fb.is_nan() {
        return if fa.is_nan() && fb.is_nan() { 0 } else { u64::MAX };
    }
    // Map the sign-magnitude bits onto a line where neighbouring floats are neighbours.
    let ordered = |x: u32| if x & 0x8000_0000 != 0 { -((x & 0x7fff_ffff) as i64) - 1 } else { x as i64 };
    (ordered(a) - ordered(b)).unsigned_abs()
}

/// One call whose results differ beyond the bound.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub item: usize,
    pub arguments: Vec<u32>,
    pub rust: Output,
    pub cuda: Result<Vec<u32>, String>,
    /// Largest distance over the words (`u64::MAX`: a flag, a length or a NaN differs).
    pub ulps: u64,
}

/// The outcome of one case against one scene.
#[derive(Clone, Debug)]
pub struct CaseReport {
    pub case: &'static str,
    pub scene: String,
    pub bound: Bound,
    /// Calls compared.
    pub items: usize,
    /// Calls whose results differed beyond the bound.
    pub mismatches: usize,
    /// Largest distance in ulps seen over every call (`u64::MAX` as in [`Mismatch`]).
    pub max_ulps: u64,
    /// The first few mismatches.
    pub examples: Vec<Mismatch>,
}

impl CaseReport {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }

    /// The report as text: a summary line, then each example's arguments and results.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "{} on `{}`: {} of {} calls differ (bound {:?}, largest difference {})\n",
            self.case,
            self.scene,
            self.mismatches,
            self.items,
            self.bound,
            describe_ulps(self.max_ulps)
        );
        for m in &self.examples {
            writeln!(text, "  call {}: arguments {}", m.item, floats_and_bits(&m.arguments)).unwrap();
            match &m.cuda {
                Err(message) => writeln!(text, "    CUDA side error: {message}").unwrap(),
                Ok(cuda) => {
                    let rows = m.rust.words.len().max(cuda.len());
                    for i in 0..rows {
                        let rust = m.rust.words.get(i).copied();
                        let device = cuda.get(i).copied();
                        let marker = if rust == device { " " } else { "≠" };
                        writeln!(
                            text,
                            "    {marker} result[{i:2}]  rust {:>28}  cuda {:>28}",
                            word(rust),
                            word(device)
                        )
                        .unwrap();
                    }
                }
            }
        }
        text
    }
}

fn describe_ulps(ulps: u64) -> String {
    if ulps == u64::MAX { "a flag, a length or a NaN".into() } else { format!("{ulps} ulp") }
}

fn word(w: Option<u32>) -> String {
    w.map_or("—".into(), |w| format!("{:e} ({w:#010x})", f32::from_bits(w)))
}

fn floats_and_bits(words: &[u32]) -> String {
    let parts: Vec<String> = words.iter().map(|&w| format!("{}|{w:#x}", f32::from_bits(w))).collect();
    format!("[{}]", parts.join(", "))
}

/// A seed per (case, scene), so that every pair draws its own arguments reproducibly.
fn seed_of(seed: u64, case: &str, scene: &str) -> u64 {
    // FNV-1a over the names.
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for byte in case.bytes().chain([0u8]).chain(scene.bytes()) {
        h = (h ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Compares `case` on `port` against its Rust twin over `items` random argument lists drawn
/// for `scene`; stops after the first mismatch when `stop_at_first`.
pub fn compare_case(
    port: Port,
    case: &'static Case,
    scene: &HostScene,
    items: usize,
    seed: u64,
    stop_at_first: bool,
) -> CaseReport {
    let index = port.case_index(case.name).unwrap_or_else(|| panic!("cpp/lockstep.cpp has no case `{}`", case.name));
    let mut rng = Rng::new(seed_of(seed, case.name, scene.name()));
    let mut report = CaseReport {
        case: case.name,
        scene: scene.name().to_string(),
        bound: case.bound,
        items: 0,
        mismatches: 0,
        max_ulps: 0,
        examples: Vec::new(),
    };
    for item in 0..items {
        let mut arguments = Words::default();
        (case.arguments)(&mut rng, scene, &mut arguments);
        let mut rust = Output::default();
        let mut reader = Reader::new(&arguments.0);
        (case.rust)(scene, &mut reader, &mut rust);
        assert!(reader.is_done(), "the Rust twin of `{}` did not read all its arguments", case.name);
        let cuda = port.run(index, scene, &arguments.0, rust.words.len() + 64);
        let ulps = match &cuda {
            Err(_) => u64::MAX,
            Ok(words) if words.len() != rust.words.len() => u64::MAX,
            Ok(words) => rust
                .words
                .iter()
                .zip(&rust.kinds)
                .zip(words)
                .map(|((&r, &kind), &c)| match kind {
                    WordKind::Float => ulps_between(r, c),
                    WordKind::Bits if r == c => 0,
                    WordKind::Bits => u64::MAX,
                })
                .max()
                .unwrap_or(0),
        };
        report.items += 1;
        report.max_ulps = report.max_ulps.max(ulps);
        let allowed = match case.bound {
            Bound::Exact => 0,
            Bound::Ulps(n) => n as u64,
        };
        if ulps > allowed {
            report.mismatches += 1;
            if report.examples.len() < 3 {
                report.examples.push(Mismatch { item, arguments: arguments.0, rust, cuda, ulps });
            }
            if stop_at_first {
                break;
            }
        }
    }
    report
}
