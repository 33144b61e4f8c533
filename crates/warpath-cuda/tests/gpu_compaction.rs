//! Every compaction method (issue 4; `CompactionMethod::ALL`: InK-Collate, InK-Compact,
//! look-back, the deep look-back with tickets ahead, OfK, three-pass, and the
//! one-element-per-thread forms the wavefront calls) against a CPU filter on fresh random
//! data: sizes 0, 1, 31, 32, 33, 1023, 2^20 + 7 and (u32 only) 2^26; selectivity 0, 1%, 50%
//! and 100%; each element type a method has; each combination repeated to expose races. The
//! order-preserving methods must equal the filter exactly; InK-Collate must hold the same
//! multiset; every count must be exact. Also the device's struct layout and tile shapes
//! against Rust's.
//!
//! The data's seed is printed; `WARPATH_COMPACTION_SEED=<n>` repeats a run.
//! The GPU tests are `#[ignore]`d (they need a GPU): `cargo test -- --include-ignored` runs them;
//! without a device they then skip with a notice, or fail with `WARPATH_REQUIRE_GPU=1`.

use rayon::prelude::*;
use warpath_cuda::DeviceBuffer;
use warpath_cuda::compaction::{
    self, CompactElem16, CompactPathState, CompactionBuffers, CompactionElement, CompactionMethod, cpu_filter,
    threshold_for,
};
use warpath_cuda::runtime::{CudaDevice, test_device};

fn device() -> Option<CudaDevice> {
    test_device().unwrap_or_else(|error| panic!("WARPATH_REQUIRE_GPU=1 or a broken device: {error}"))
}

const SELECTIVITIES: [f64; 4] = [0.0, 0.01, 0.5, 1.0];
const SMALL_SIZES: [usize; 7] = [0, 1, 31, 32, 33, 1023, (1 << 20) + 7];
const LARGE_SIZE: usize = 1 << 26;

fn seed() -> u64 {
    let seed = std::env::var("WARPATH_COMPACTION_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
    });
    eprintln!("compaction test seed: {seed} (WARPATH_COMPACTION_SEED={seed} repeats it)");
    seed
}

/// SplitMix64 over the element index: fresh random keys, generated in parallel.
fn random_elements<T: CompactionElement>(n: usize, seed: u64) -> Vec<T> {
    (0..n)
        .into_par_iter()
        .map(|i| {
            let mut z = seed.wrapping_add((i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            T::make(i as u32, z as u32)
        })
        .collect()
}

fn sorted_by_bytes<T: CompactionElement>(mut values: Vec<T>) -> Vec<T> {
    values.par_sort_unstable_by(|a, b| {
        a.key().cmp(&b.key()).then_with(|| bytemuck::bytes_of(a).cmp(bytemuck::bytes_of(b)))
    });
    values
}

fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y).or((a.len() != b.len()).then_some(a.len().min(b.len())))
}

/// Runs every method on `n` random elements of `T`, `repeats` times per selectivity.
fn check_kind<T: CompactionElement>(device: &CudaDevice, n: usize, seed: u64, repeats: usize) -> Vec<String> {
    let mut failures = Vec::new();
    let input = random_elements::<T>(n, seed ^ (n as u64).wrapping_mul(0x5851_f42d_4c95_7f2d));
    let device_input = DeviceBuffer::from_slice(device, &input).expect("upload");
    let mut buffers = CompactionBuffers::new(device, device_input).expect("buffers");
    for selectivity in SELECTIVITIES {
        let threshold = threshold_for(selectivity);
        let expected = cpu_filter(&input, threshold);
        let expected_sorted = sorted_by_bytes(expected.clone());
        compaction::write_flags(device, &buffers.input, &mut buffers.flags, threshold).expect("flags");
        for method in CompactionMethod::ALL.into_iter().filter(|m| m.supports(T::KIND)) {
            for repeat in 0..repeats {
                let what =
                    format!("{} {} n={n} selectivity={selectivity} repeat {repeat}", method.name(), T::KIND.name());
                buffers.output.clear(device).expect("clear");
                if let Err(error) = buffers.run(device, method, threshold) {
                    failures.push(format!("{what}: {error}"));
                    continue;
                }
                let got = match buffers.result(device) {
                    Ok(got) => got,
                    Err(error) => {
                        failures.push(format!("{what}: {error}"));
                        continue;
                    }
                };
                if got.len() != expected.len() {
                    failures.push(format!("{what}: kept {} instead of {}", got.len(), expected.len()));
                    continue;
                }
                if method.preserves_order() {
                    if let Some(i) = first_difference(&got, &expected) {
                        failures.push(format!(
                            "{what}: order or content differs at output {i}: {:?} instead of {:?}",
                            got[i], expected[i]
                        ));
                    }
                } else if let Some(i) = first_difference(&sorted_by_bytes(got), &expected_sorted) {
                    failures.push(format!("{what}: not the same multiset (sorted outputs differ at {i})"));
                }
            }
        }
    }
    failures
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn compaction_layout_and_tile_shapes_match_rust() {
    let Some(device) = device() else { return };
    let report = compaction::layout_report(&device).expect("layout report");
    assert_eq!(report, compaction::host_layout(), "device vs host: sizes, offsets, block, items per thread");
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn compaction_every_method_matches_the_cpu_filter() {
    let Some(device) = device() else { return };
    let seed = seed();
    // WARPATH_COMPACTION_MAX_N caps the sizes (compute-sanitizer runs use small ones).
    let max_n = std::env::var("WARPATH_COMPACTION_MAX_N").ok().and_then(|v| v.parse().ok()).unwrap_or(usize::MAX);
    let mut failures = Vec::new();
    for n in SMALL_SIZES.into_iter().filter(|&n| n <= max_n) {
        let repeats = if n > 4096 { 3 } else { 5 };
        failures.extend(check_kind::<u32>(&device, n, seed, repeats));
        failures.extend(check_kind::<CompactElem16>(&device, n, seed, repeats));
        failures.extend(check_kind::<CompactPathState>(&device, n, seed, repeats));
    }
    if LARGE_SIZE <= max_n {
        failures.extend(check_kind::<u32>(&device, LARGE_SIZE, seed, 2));
    }
    assert!(failures.is_empty(), "{} failure(s), seed {seed}:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn compaction_selectivity_is_exact_in_expectation() {
    // Host-only: the predicate keeps about the asked fraction of random keys.
    let keys = random_elements::<u32>(1 << 20, 7);
    for selectivity in [0.0, 0.01, 0.1, 0.5, 0.9, 1.0] {
        let kept = cpu_filter(&keys, threshold_for(selectivity)).len() as f64 / keys.len() as f64;
        assert!((kept - selectivity).abs() < 0.003, "asked {selectivity}, kept {kept}");
    }
}
