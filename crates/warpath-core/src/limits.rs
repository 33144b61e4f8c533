//! Size guards for everything a file *claims* before it is allocated: image dimensions,
//! element counts, grid dimensions, decompressed sizes. Every loader calls one of the
//! `check_*` functions with the size it read from a header, before it allocates, and turns a
//! [`LimitError`] into an error naming its file. A claim fails when it is larger than
//! warpath's documented limit (the constants below; `docs/robustness.md`) or needs more
//! memory than this process can get (the least of: available system memory, the cgroup's
//! memory limit, the address-space limit `ulimit -v`, and a cap set with
//! [`set_memory_cap`]).
//!
//! This module has no dependency on any file format, so every crate with a loader (scenes,
//! meshes, images, volumes) can call it.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Most pixels of one image (a texture, an environment map, a film): 2^28, 16384².
pub const MAX_IMAGE_PIXELS: u64 = 1 << 28;
/// Longest side of one image, in pixels (a 2^20 × 256 strip is allowed, a 2^21 × 1 is not).
pub const MAX_IMAGE_SIDE: u64 = 1 << 20;
/// Most items of one kind (vertices, faces, triangles, elements of a PLY element) a file may
/// claim: 2^32 − 1, since vertex indices are 32-bit.
pub const MAX_ELEMENT_COUNT: u64 = u32::MAX as u64;
/// Most voxels of one volume grid: 2^32 (e.g. 1625³).
pub const MAX_GRID_VOXELS: u64 = 1 << 32;
/// Most bytes one claim may need, whatever memory the machine has: 64 GiB.
pub const MAX_ALLOCATION_BYTES: u64 = 1 << 36;
/// Claims below this size are not checked against the memory the system offers (reading it
/// costs a few system-file reads); a cap set with [`set_memory_cap`] applies to all.
const SMALL_ALLOCATION_BYTES: u64 = 16 << 20;

/// A claimed size warpath refuses, and why. Its `Display` reads as the end of a sentence
/// that starts with the file name: "`env.exr: <this>`".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitError {
    /// The claim is larger than one of warpath's documented limits.
    OverLimit { what: String, claimed: String, limit: String },
    /// The claim (`claimed`, where it is a count) needs more memory than the process can get.
    OutOfMemory { what: String, claimed: Option<String>, needed_bytes: u64, available: Available },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            LimitError::OverLimit { what, claimed, limit } => {
                write!(f, "{what} claims {claimed}, more than warpath's limit of {limit} (docs/robustness.md)")
            }
            LimitError::OutOfMemory { what, claimed, needed_bytes, available } => {
                match claimed {
                    Some(claimed) => write!(f, "{what} claims {claimed}, which need")?,
                    None => write!(f, "{what} needs")?,
                }
                write!(
                    f,
                    " {} of memory, but this process can get only {} ({})",
                    format_bytes(*needed_bytes),
                    format_bytes(available.bytes),
                    available.source
                )
            }
        }
    }
}

impl std::error::Error for LimitError {}

impl LimitError {
    /// Names the count behind an out-of-memory error ("8000×8000 pixels").
    fn with_claim(self, claim: String) -> Self {
        match self {
            LimitError::OutOfMemory { what, needed_bytes, available, .. } => {
                LimitError::OutOfMemory { what, claimed: Some(claim), needed_bytes, available }
            }
            other => other,
        }
    }
}

/// How much memory the process can get, and which bound says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Available {
    pub bytes: u64,
    /// The bound: "available system memory", "cgroup memory limit", "address-space limit
    /// (ulimit -v)", "memory cap" or "warpath's allocation limit".
    pub source: &'static str,
}

/// Cap on the memory one claim may need, in bytes; 0 = none.
static MEMORY_CAP: AtomicU64 = AtomicU64::new(0);

/// Caps the memory any one claim may need (process-wide), below what the machine offers:
/// for tests that must see the guard refuse, for fuzzing (so a claimed size costs no
/// gigabytes), and for programs that embed warpath beside other work. `None` removes it.
pub fn set_memory_cap(bytes: Option<u64>) {
    MEMORY_CAP.store(bytes.unwrap_or(0), Ordering::Relaxed);
}

/// The cap set with [`set_memory_cap`], if any.
pub fn memory_cap() -> Option<u64> {
    Some(MEMORY_CAP.load(Ordering::Relaxed)).filter(|&c| c > 0)
}

/// Checks an image of `width × height` pixels at `bytes_per_pixel` bytes each.
pub fn check_image(what: &str, width: u64, height: u64, bytes_per_pixel: u64) -> Result<(), LimitError> {
    let claimed = || format!("{width}×{height} pixels");
    if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(over(what, claimed(), format!("{MAX_IMAGE_SIDE} pixels per side")));
    }
    let pixels = width * height; // both ≤ 2^20: no overflow
    if pixels > MAX_IMAGE_PIXELS {
        return Err(over(what, claimed(), format!("{MAX_IMAGE_PIXELS} pixels (16384×16384)")));
    }
    check_bytes(what, pixels.saturating_mul(bytes_per_pixel)).map_err(|e| e.with_claim(claimed()))
}

/// Checks `count` items (vertices, faces, elements of a PLY element, ...) of
/// `bytes_per_item` bytes each in memory.
pub fn check_count(what: &str, count: u64, bytes_per_item: u64) -> Result<(), LimitError> {
    if count > MAX_ELEMENT_COUNT {
        return Err(over(what, format!("{count} items"), format!("{MAX_ELEMENT_COUNT} items")));
    }
    check_bytes(what, count.saturating_mul(bytes_per_item)).map_err(|e| e.with_claim(format!("{count} items")))
}

/// Checks a volume grid of `dimensions` voxels of `bytes_per_voxel` bytes each.
pub fn check_grid(what: &str, dimensions: [u64; 3], bytes_per_voxel: u64) -> Result<(), LimitError> {
    let [x, y, z] = dimensions;
    let voxels = x.checked_mul(y).and_then(|xy| xy.checked_mul(z));
    match voxels {
        Some(v) if v <= MAX_GRID_VOXELS => check_bytes(what, v.saturating_mul(bytes_per_voxel))
            .map_err(|e| e.with_claim(format!("a grid of {x}×{y}×{z} voxels"))),
        _ => Err(over(what, format!("a grid of {x}×{y}×{z} voxels"), format!("{MAX_GRID_VOXELS} voxels"))),
    }
}

/// Checks a claim of `bytes` bytes (a decompressed size, a buffer).
pub fn check_bytes(what: &str, bytes: u64) -> Result<(), LimitError> {
    if bytes > MAX_ALLOCATION_BYTES {
        return Err(LimitError::OutOfMemory {
            what: what.to_string(),
            claimed: None,
            needed_bytes: bytes,
            available: Available { bytes: MAX_ALLOCATION_BYTES, source: "warpath's allocation limit" },
        });
    }
    if let Some(cap) = memory_cap()
        && bytes > cap
    {
        let available = Available { bytes: cap, source: "memory cap" };
        return Err(LimitError::OutOfMemory { what: what.to_string(), claimed: None, needed_bytes: bytes, available });
    }
    if bytes < SMALL_ALLOCATION_BYTES {
        return Ok(());
    }
    match available_memory() {
        Some(available) if bytes > available.bytes => {
            Err(LimitError::OutOfMemory { what: what.to_string(), claimed: None, needed_bytes: bytes, available })
        }
        _ => Ok(()),
    }
}

/// The most bytes a single claim may need now: the least of the memory cap, available
/// system memory, the cgroup's limit less its usage, and `ulimit -v` less the address space
/// in use. `None` where no bound is known (then only the constants apply).
pub fn available_memory() -> Option<Available> {
    let mut best: Option<Available> = None;
    let mut consider = |bytes: Option<u64>, source: &'static str| {
        if let Some(bytes) = bytes
            && best.is_none_or(|b| bytes < b.bytes)
        {
            best = Some(Available { bytes, source });
        }
    };
    consider(memory_cap(), "memory cap");
    consider(system::available(), "available system memory");
    consider(system::cgroup_headroom(), "cgroup memory limit");
    consider(system::address_space_headroom(), "address-space limit (ulimit -v)");
    best
}

/// A `Vec` of `count` default values, allocated only after [`check_bytes`] passes and with a
/// fallible reservation, so a refused or failed allocation is an error, not an abort.
pub fn zeroed_vec<T: Clone + Default>(what: &str, count: usize) -> Result<Vec<T>, LimitError> {
    let bytes = (count as u64).saturating_mul(std::mem::size_of::<T>() as u64);
    check_bytes(what, bytes)?;
    let mut v = Vec::new();
    v.try_reserve_exact(count).map_err(|_| LimitError::OutOfMemory {
        what: what.to_string(),
        claimed: None,
        needed_bytes: bytes,
        available: Available { bytes: 0, source: "the allocator refused it" },
    })?;
    v.resize(count, T::default());
    Ok(v)
}

/// `bytes` as "512 B", "3.0 KiB", "7.5 GiB", ...
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}

fn over(what: &str, claimed: String, limit: String) -> LimitError {
    LimitError::OverLimit { what: what.to_string(), claimed, limit }
}

/// What the operating system says about memory (Linux: `/proc` and `/sys/fs/cgroup`; other
/// systems: nothing known).
mod system {
    use std::fs::read_to_string;

    /// A `Key:   1234 kB` line of a `/proc` status file, in bytes.
    fn proc_kb(file: &str, key: &str) -> Option<u64> {
        let text = read_to_string(file).ok()?;
        let line = text.lines().find(|l| l.starts_with(key))?;
        let kb: u64 = line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb.saturating_mul(1024))
    }

    fn number_in(file: &str) -> Option<u64> {
        read_to_string(file).ok()?.trim().parse().ok()
    }

    pub fn available() -> Option<u64> {
        proc_kb("/proc/meminfo", "MemAvailable:")
    }

    /// The tightest cgroup limit less usage over this process's cgroup and its ancestors
    /// (cgroup v2 `memory.max`, or v1 `memory.limit_in_bytes`).
    pub fn cgroup_headroom() -> Option<u64> {
        let membership = read_to_string("/proc/self/cgroup").ok()?;
        let mut best: Option<u64> = None;
        for line in membership.lines() {
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            let (root, limit_file, usage_file) = match controllers {
                "" => ("/sys/fs/cgroup", "memory.max", "memory.current"),
                c if c.split(',').any(|c| c == "memory") => {
                    ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")
                }
                _ => continue,
            };
            let mut folder = format!("{root}{}", path.trim_end_matches('/'));
            loop {
                if let Some(limit) = number_in(&format!("{folder}/{limit_file}")) {
                    let used = number_in(&format!("{folder}/{usage_file}")).unwrap_or(0);
                    let headroom = limit.saturating_sub(used);
                    best = Some(best.map_or(headroom, |b| b.min(headroom)));
                }
                if folder.len() <= root.len() {
                    break;
                }
                folder.truncate(folder.rfind('/').unwrap_or(0).max(root.len()));
            }
        }
        best
    }

    /// `ulimit -v` (RLIMIT_AS) less the address space this process already maps.
    pub fn address_space_headroom() -> Option<u64> {
        let limits = read_to_string("/proc/self/limits").ok()?;
        let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
        let soft: u64 = line["Max address space".len()..].split_whitespace().next()?.parse().ok()?;
        let mapped = proc_kb("/proc/self/status", "VmSize:").unwrap_or(0);
        Some(soft.saturating_sub(mapped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_refuse_absurd_claims_and_name_them() {
        let e = check_image("EXR data window", 1_000_000, 1_000_000, 12).unwrap_err();
        assert!(e.to_string().contains("1000000×1000000 pixels"), "{e}");
        assert!(e.to_string().contains("268435456 pixels"), "{e}");
        let e = check_image("PNG header", 1 << 21, 1, 4).unwrap_err();
        assert!(e.to_string().contains("per side"), "{e}");
        let e = check_count("element 'junk'", 100_000_000_000_000, 0).unwrap_err();
        assert!(e.to_string().contains("100000000000000 items"), "{e}");
        let e = check_grid("grid", [1 << 22, 1 << 22, 1 << 22], 4).unwrap_err();
        assert!(e.to_string().contains("4194304×4194304×4194304"), "{e}");
        let e = check_bytes("buffer", 1 << 40).unwrap_err();
        assert!(e.to_string().contains("1.0 TiB") && e.to_string().contains("allocation limit"), "{e}");
        assert!(check_image("small", 64, 64, 12).is_ok());
        assert!(check_count("vertices", 1000, 12).is_ok());
        assert!(check_grid("grid", [64, 64, 64], 4).is_ok());
    }

    #[test]
    fn bytes_are_formatted_in_binary_units() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(3 << 10), "3.0 KiB");
        assert_eq!(format_bytes(4_000_008_000_004), "3.6 TiB");
    }

    #[test]
    fn this_machine_reports_some_memory_bound() {
        if cfg!(target_os = "linux") {
            let a = available_memory().expect("Linux reports available memory");
            assert!(a.bytes > 1 << 20, "{a:?}");
        }
    }
}
