//! The predicate every compaction method applies, and the CPU reference: an element is kept
//! when the hash of its key is below a threshold (`hash(key) < selectivity · 2^32`), so the
//! kept fraction is exact in expectation on random keys (0 keeps none, 1 keeps all). Mirrors
//! `compaction_hash` and `KeepHashBelow` in `kernels/compaction/compaction.cuh`. The reference
//! filter over elements is `elements::cpu_filter`.

/// lowbias32 (C. Wellons), the predicate's hash; mirrors `compaction_hash` in compaction.cuh.
pub fn compaction_hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// The threshold that keeps a `selectivity` fraction (0..=1) of random keys.
pub fn threshold_for(selectivity: f64) -> u64 {
    (selectivity.clamp(0.0, 1.0) * 4_294_967_296.0).round() as u64
}

/// Whether the predicate keeps `key` under `threshold`.
pub fn keeps(key: u32, threshold: u64) -> bool {
    (compaction_hash(key) as u64) < threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_keep_none_and_all_at_the_ends() {
        assert_eq!(threshold_for(0.0), 0);
        assert_eq!(threshold_for(1.0), 1 << 32);
        assert!((0..1000u32).all(|key| !keeps(key, threshold_for(0.0)) && keeps(key, threshold_for(1.0))));
        // lowbias32 pinned (the device's compaction_hash must compute the same): 0 maps to 0,
        // 1 to 0x6889_90c0 (computed independently of this code).
        assert_eq!(compaction_hash(0), 0);
        assert_eq!(compaction_hash(1), 0x6889_90c0);
    }
}
