//! Random numbers as a pure function of (pixel, sample index, bounce, dimension).
//!
//! The default is *padded replication sampling* (Keller 2003, as seed 000 §3.2 uses it):
//! a good low-dimensional point set — Halton in bases (2, 3) for each pair of dimensions
//! that form a 2D sample (pixel, lens, light, BSDF), base 2 for single dimensions — is
//! replicated for every group of dimensions of every bounce, and the replicas are padded
//! together by randomly *permuting the sample index* per (pixel, bounce, group), so no two
//! groups see their points in the same order. Each permutation is a nested uniform
//! scramble of the index bits (Burley 2020, "Practical Hash-based Owen Scrambling", with
//! the Laine–Karras hash), which keeps every power-of-two prefix of a pixel's samples
//! stratified. A Cranley–Patterson rotation per (pixel, bounce, dimension) randomizes the
//! points. All random keys come from a linear congruential generator seeded from the
//! pixel and advanced per bounce, with O(log n) jump-ahead, so the value for any
//! (pixel, sample, bounce, dimension) is computed directly: a path gets the same numbers
//! whichever thread or kernel computes it.
//!
//! (Rotation alone, without the index permutation, would give every bounce the same
//! point order: the projection onto a dimension of bounce 0 and the same dimension of
//! bounce 1 would be a line, and per-pixel estimates would converge slower than their
//! sample variance says. The test `padded_halton_pixel_variance_is_honest` in
//! warpath-cpu checks that this does not happen.)
//!
//! The alternative, [`SamplerKind::Pcg`], hashes the four coordinates with a PCG-style
//! permutation to an independent uniform number.

/// Which sequence drives the estimator. `#[repr(u32)]` so the GPU reads the same value.
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SamplerKind {
    /// Halton replicated per bounce, scrambled by a per-pixel LCG (seed 000 §3.2).
    #[default]
    PaddedHalton = 0,
    /// Independent uniform numbers from a PCG hash.
    Pcg = 1,
}

/// The name `--sampler` and the scene format use (`padded-halton`, `pcg`).
impl std::fmt::Display for SamplerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            SamplerKind::PaddedHalton => "padded-halton",
            SamplerKind::Pcg => "pcg",
        })
    }
}

impl std::str::FromStr for SamplerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "padded-halton" | "halton" => Ok(SamplerKind::PaddedHalton),
            "pcg" => Ok(SamplerKind::Pcg),
            _ => Err(format!("unknown sampler '{s}' (expected 'padded-halton' or 'pcg')")),
        }
    }
}

/// The random dimensions one path vertex consumes. Camera dimensions are read with
/// bounce 0; vertex dimensions with the bounce (0 = first surface hit).
pub mod dims {
    pub const PIXEL_X: u32 = 0;
    pub const PIXEL_Y: u32 = 1;
    pub const LENS_U: u32 = 2;
    pub const LENS_V: u32 = 3;
    pub const LIGHT_SELECT: u32 = 4;
    pub const LIGHT_U: u32 = 5;
    pub const LIGHT_V: u32 = 6;
    pub const BSDF_LOBE: u32 = 7;
    pub const BSDF_U: u32 = 8;
    pub const BSDF_V: u32 = 9;
    pub const ROULETTE: u32 = 10;
    /// Number of dimensions per bounce.
    pub const COUNT: u32 = 11;
}

/// The Halton base of each dimension of [`dims`]: (2, 3) for the two dimensions of a 2D
/// sample, 2 for a single dimension.
pub const HALTON_BASES: [u32; dims::COUNT as usize] = [2, 3, 2, 3, 2, 2, 3, 2, 2, 3, 2];

/// The group of each dimension: dimensions of one group share an index permutation.
pub const DIM_GROUPS: [u32; dims::COUNT as usize] = [0, 0, 1, 1, 2, 3, 3, 4, 5, 5, 6];
/// Number of groups in [`DIM_GROUPS`].
pub const GROUP_COUNT: u32 = 7;
/// LCG steps between the states of consecutive bounces (one per dimension offset and one
/// per group key, with room to spare).
const LCG_STEPS_PER_BOUNCE: u32 = 32;

const LCG_A: u32 = 1_664_525;
const LCG_C: u32 = 1_013_904_223;
/// Largest f32 below 1.
pub const ONE_MINUS_EPSILON: f32 = 0.99999994;

/// The parameters a sampler needs besides the four coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    pub kind: SamplerKind,
    pub seed: u32,
}

impl Sampler {
    pub fn new(kind: SamplerKind, seed: u32) -> Self {
        Sampler { kind, seed }
    }

    /// A uniform number in [0, 1) for (pixel, sample, bounce, dimension).
    #[inline]
    pub fn get(&self, pixel: u32, sample: u32, bounce: u32, dim: u32) -> f32 {
        self.at(pixel, sample, bounce).get(dim)
    }

    /// The numbers of one path vertex: does the per-(pixel, bounce) work once, so each
    /// dimension then costs a multiply-add and a radical inverse. Values are identical
    /// to [`Sampler::get`].
    #[inline]
    pub fn at(&self, pixel: u32, sample: u32, bounce: u32) -> VertexSampler {
        let state = match self.kind {
            SamplerKind::PaddedHalton => lcg_state(self.seed, pixel, bounce),
            SamplerKind::Pcg => pcg_prefix(self.seed, pixel, sample),
        };
        VertexSampler { kind: self.kind, state, sample, bounce }
    }
}

/// The random numbers of one (pixel, sample, bounce), see [`Sampler::at`].
#[derive(Clone, Copy, Debug)]
pub struct VertexSampler {
    kind: SamplerKind,
    /// Padded Halton: the bounce's LCG state; PCG: the hash of (seed, pixel, sample).
    state: u32,
    sample: u32,
    bounce: u32,
}

impl VertexSampler {
    #[inline]
    pub fn get(&self, dim: u32) -> f32 {
        match self.kind {
            SamplerKind::PaddedHalton => padded_halton_from_state(self.state, self.sample, dim),
            SamplerKind::Pcg => pcg_from_prefix(self.state, self.bounce, dim),
        }
    }
}

/// Bijective integer hash (PCG output permutation of an LCG step).
#[inline]
pub fn pcg_hash(v: u32) -> u32 {
    let state = v.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    (word >> 22) ^ word
}

/// Maps 32 random bits to [0, 1) using the top 24 bits (exact in f32).
#[inline]
pub fn u32_to_unit(x: u32) -> f32 {
    (x >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// Advances the LCG `state` by `n` steps in O(log n) (Brown 1994, "Random number
/// generation with arbitrary strides").
#[inline]
pub fn lcg_skip(state: u32, mut n: u32) -> u32 {
    let (mut acc_mult, mut acc_plus) = (1u32, 0u32);
    let (mut cur_mult, mut cur_plus) = (LCG_A, LCG_C);
    while n > 0 {
        if n & 1 != 0 {
            acc_mult = acc_mult.wrapping_mul(cur_mult);
            acc_plus = acc_plus.wrapping_mul(cur_mult).wrapping_add(cur_plus);
        }
        cur_plus = cur_mult.wrapping_add(1).wrapping_mul(cur_plus);
        cur_mult = cur_mult.wrapping_mul(cur_mult);
        n >>= 1;
    }
    acc_mult.wrapping_mul(state).wrapping_add(acc_plus)
}

/// Radical inverse of `i` in base `b` (the Halton coordinate).
#[inline]
pub fn radical_inverse(b: u32, mut i: u32) -> f32 {
    if b == 2 {
        return (i.reverse_bits() as f64 * (1.0 / 4_294_967_296.0)) as f32;
    }
    if b == 3 {
        return radical_inverse_3(i);
    }
    let inv_b = 1.0 / b as f64;
    let (mut rev, mut inv_bn) = (0u64, 1.0f64);
    while i > 0 {
        let next = i / b;
        rev = rev * b as u64 + (i - next * b) as u64;
        inv_bn *= inv_b;
        i = next;
    }
    ((rev as f64 * inv_bn) as f32).min(ONE_MINUS_EPSILON)
}

/// Base-3 digit reversal of each number below 3^5.
const REV3_5: [u16; 243] = {
    let mut t = [0u16; 243];
    let mut i = 0;
    while i < 243 {
        let (mut x, mut r, mut k) = (i, 0, 0);
        while k < 5 {
            r = r * 3 + x % 3;
            x /= 3;
            k += 1;
        }
        t[i] = r as u16;
        i += 1;
    }
    t
};
/// For `i < 243`: the reversal of its base-3 digits (as many as it has) and their count.
const REV3_TAIL: [(u16, u8); 243] = {
    let mut t = [(0u16, 0u8); 243];
    let mut i = 0;
    while i < 243 {
        let (mut x, mut r, mut k) = (i, 0, 0);
        while x > 0 {
            r = r * 3 + x % 3;
            x /= 3;
            k += 1;
        }
        t[i] = (r as u16, k as u8);
        i += 1;
    }
    t
};
const POW3: [u64; 6] = [1, 3, 9, 27, 81, 243];
/// `(1/3)^n` by the same repeated f64 multiplication as `radical_inverse`'s loop.
const INV3_POW: [f64; 22] = {
    let mut t = [1.0f64; 22];
    let inv = 1.0 / 3.0f64;
    let mut k = 1;
    while k < 22 {
        t[k] = t[k - 1] * inv;
        k += 1;
    }
    t
};

/// `radical_inverse(3, i)`, five digits at a time (same value).
#[inline]
fn radical_inverse_3(mut i: u32) -> f32 {
    let (mut rev, mut n) = (0u64, 0usize);
    while i >= 243 {
        let next = i / 243;
        rev = rev * 243 + REV3_5[(i - next * 243) as usize] as u64;
        n += 5;
        i = next;
    }
    // The last (at most 5) digits: their reversal and count from a table.
    let (tail, digits) = REV3_TAIL[i as usize];
    rev = rev * POW3[digits as usize] + tail as u64;
    n += digits as usize;
    ((rev as f64 * INV3_POW[n]) as f32).min(ONE_MINUS_EPSILON)
}

/// The LCG state that scrambles `bounce` of `pixel`: seeded from the pixel, advanced
/// `(bounce + 1) · 32` steps. Dimension `d` takes its rotation from step `d + 1` after
/// it, group `g` its permutation key from step `COUNT + 1 + g`.
#[inline]
fn lcg_state(seed: u32, pixel: u32, bounce: u32) -> u32 {
    let s0 = pcg_hash(pixel ^ pcg_hash(seed));
    match LCG_BOUNCE_STEPS.get(bounce as usize) {
        Some(&(m, c)) => m.wrapping_mul(s0).wrapping_add(c),
        None => lcg_skip(s0, (bounce + 1) * LCG_STEPS_PER_BOUNCE),
    }
}

/// `(multiplier, increment)` of `lcg_skip(_, (bounce + 1) · 32)` for the first 64 bounces.
const LCG_BOUNCE_STEPS: [(u32, u32); 64] = {
    // One stride of 32 steps, then composed bounce after bounce.
    let (mut m32, mut c32) = (1u32, 0u32);
    let mut k = 0;
    while k < LCG_STEPS_PER_BOUNCE {
        m32 = m32.wrapping_mul(LCG_A);
        c32 = c32.wrapping_mul(LCG_A).wrapping_add(LCG_C);
        k += 1;
    }
    let mut table = [(m32, c32); 64];
    let mut b = 1;
    while b < 64 {
        let (m, c) = table[b - 1];
        table[b] = (m.wrapping_mul(m32), c.wrapping_mul(m32).wrapping_add(c32));
        b += 1;
    }
    table
};

/// A bijection of u32 in which each bit is flipped by a function of the bits below it
/// (Laine–Karras 2011's hash, as Burley 2020 uses it for Owen scrambling).
#[inline]
pub fn laine_karras_permutation(mut x: u32, seed: u32) -> u32 {
    x = x.wrapping_add(seed);
    x ^= x.wrapping_mul(0x6c50_b47c);
    x ^= x.wrapping_mul(0xb82f_1e52);
    x ^= x.wrapping_mul(0xc7af_e638);
    x ^= x.wrapping_mul(0x8d22_f6e6);
    x
}

/// Nested uniform scramble of a sample index: each bit flipped by a function of the
/// bits above it, so the first 2^k indices map to 2^k indices with distinct low k bits.
#[inline]
pub fn shuffle_index(index: u32, seed: u32) -> u32 {
    laine_karras_permutation(index.reverse_bits(), seed).reverse_bits()
}

/// `(multiplier, increment)` of the LCG advanced `n` steps, for `n` in 0..=COUNT + GROUPS.
const LCG_STEPS: [(u32, u32); (dims::COUNT + GROUP_COUNT) as usize + 1] = {
    let mut table = [(1u32, 0u32); (dims::COUNT + GROUP_COUNT) as usize + 1];
    let mut n = 1;
    while n < table.len() {
        let (m, c) = table[n - 1];
        table[n] = (m.wrapping_mul(LCG_A), c.wrapping_mul(LCG_A).wrapping_add(LCG_C));
        n += 1;
    }
    table
};

/// Padded replication sampling: Halton over the sample index, rotated by an offset
/// drawn from the per-pixel LCG at (bounce, dimension).
#[inline]
pub fn padded_halton(seed: u32, pixel: u32, sample: u32, bounce: u32, dim: u32) -> f32 {
    padded_halton_from_state(lcg_state(seed, pixel, bounce), sample, dim)
}

#[inline]
fn padded_halton_from_state(bounce_state: u32, sample: u32, dim: u32) -> f32 {
    let d = (dim % dims::COUNT) as usize;
    let lcg_step = |n: usize| {
        let (m, c) = LCG_STEPS[n];
        m.wrapping_mul(bounce_state).wrapping_add(c)
    };
    // The LCG's low bits are weak: its high bits drive the offset; the key is rehashed.
    let offset = u32_to_unit(lcg_step(d + 1));
    let key = pcg_hash(lcg_step((dims::COUNT + 1 + DIM_GROUPS[d]) as usize));
    let x = if HALTON_BASES[d] == 2 {
        // radical_inverse(2, shuffle_index(s, k)) reverses the bits shuffle_index reversed back.
        (laine_karras_permutation(sample.reverse_bits(), key) as f64 * (1.0 / 4_294_967_296.0)) as f32
    } else {
        radical_inverse(HALTON_BASES[d], shuffle_index(sample, key))
    } + offset;
    let x = if x >= 1.0 { x - 1.0 } else { x };
    x.min(ONE_MINUS_EPSILON)
}

/// Independent uniform numbers by hashing all coordinates.
#[inline]
pub fn pcg_sample(seed: u32, pixel: u32, sample: u32, bounce: u32, dim: u32) -> f32 {
    pcg_from_prefix(pcg_prefix(seed, pixel, sample), bounce, dim)
}

#[inline]
fn pcg_prefix(seed: u32, pixel: u32, sample: u32) -> u32 {
    let h = pcg_hash(seed ^ 0x9E37_79B9);
    let h = pcg_hash(h ^ pixel);
    pcg_hash(h ^ sample)
}

#[inline]
fn pcg_from_prefix(prefix: u32, bounce: u32, dim: u32) -> f32 {
    u32_to_unit(pcg_hash(prefix ^ bounce.wrapping_mul(dims::COUNT).wrapping_add(dim)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcg_skip_matches_stepping() {
        let mut s = 12345u32;
        for n in 0..200 {
            assert_eq!(lcg_skip(12345, n), s);
            s = s.wrapping_mul(LCG_A).wrapping_add(LCG_C);
        }
    }

    #[test]
    fn vertex_sampler_equals_direct_evaluation() {
        for kind in [SamplerKind::PaddedHalton, SamplerKind::Pcg] {
            let s = Sampler::new(kind, 99);
            for (px, i, b) in [(0, 0, 0), (17, 5, 3), (1 << 20, 1000, 8)] {
                let v = s.at(px, i, b);
                for d in 0..dims::COUNT {
                    let direct = match kind {
                        SamplerKind::PaddedHalton => {
                            // The definition: LCG advanced from the bounce state d + 1 times for
                            // the rotation, COUNT + 1 + group times for the permutation key.
                            let bounce_state = lcg_state(99, px, b);
                            let offset = u32_to_unit(lcg_skip(bounce_state, d + 1));
                            let key = pcg_hash(lcg_skip(bounce_state, dims::COUNT + 1 + DIM_GROUPS[d as usize]));
                            let index = shuffle_index(i, key);
                            let x = radical_inverse(HALTON_BASES[d as usize], index) + offset;
                            (if x >= 1.0 { x - 1.0 } else { x }).min(ONE_MINUS_EPSILON)
                        }
                        SamplerKind::Pcg => pcg_sample(99, px, i, b, d),
                    };
                    assert_eq!(v.get(d).to_bits(), direct.to_bits(), "{kind:?} {px} {i} {b} {d}");
                }
            }
        }
    }

    /// The table-driven base-3 path equals the digit-by-digit definition.
    #[test]
    fn bounce_table_matches_lcg_skip() {
        for bounce in 0..70u32 {
            for s0 in [0u32, 1, 0x1234_5678, u32::MAX] {
                let seed_free = match LCG_BOUNCE_STEPS.get(bounce as usize) {
                    Some(&(m, c)) => m.wrapping_mul(s0).wrapping_add(c),
                    None => lcg_skip(s0, (bounce + 1) * LCG_STEPS_PER_BOUNCE),
                };
                assert_eq!(seed_free, lcg_skip(s0, (bounce + 1) * LCG_STEPS_PER_BOUNCE), "bounce {bounce}");
            }
        }
    }

    #[test]
    fn radical_inverse_3_matches_the_digit_loop() {
        let reference = |mut i: u32| {
            let (mut rev, mut inv_bn) = (0u64, 1.0f64);
            while i > 0 {
                rev = rev * 3 + (i % 3) as u64;
                inv_bn *= 1.0 / 3.0;
                i /= 3;
            }
            ((rev as f64 * inv_bn) as f32).min(ONE_MINUS_EPSILON)
        };
        let mut x = 1u32;
        for i in (0..100_000u32).chain([242, 243, 244, 59048, 59049, u32::MAX - 1, u32::MAX]) {
            x = pcg_hash(x);
            for v in [i, x] {
                assert_eq!(radical_inverse(3, v).to_bits(), reference(v).to_bits(), "{v}");
            }
        }
    }

    #[test]
    fn radical_inverse_known_values() {
        assert_eq!(radical_inverse(2, 1), 0.5);
        assert_eq!(radical_inverse(2, 3), 0.75);
        assert!((radical_inverse(3, 1) - 1.0 / 3.0).abs() < 1e-7);
        assert!((radical_inverse(3, 5) - (2.0 / 3.0 + 1.0 / 9.0)).abs() < 1e-6);
    }

    #[test]
    fn samples_are_in_unit_interval_and_pure() {
        for kind in [SamplerKind::PaddedHalton, SamplerKind::Pcg] {
            let s = Sampler::new(kind, 7);
            for px in [0, 1, 99, 1 << 20] {
                for i in 0..64 {
                    for b in 0..9 {
                        for d in 0..dims::COUNT {
                            let x = s.get(px, i, b, d);
                            assert!((0.0..1.0).contains(&x), "{kind:?} {x}");
                            assert_eq!(x, s.get(px, i, b, d));
                        }
                    }
                }
            }
        }
    }

    /// Stratification: over 2^k samples, every base-2 dimension hits each of 2^k strata
    /// once, at every bounce (the index permutation keeps power-of-two prefixes).
    #[test]
    fn padded_halton_is_stratified_per_pixel() {
        for px in 0..16 {
            for bounce in [0, 1, 5] {
                for dim in (0..dims::COUNT).filter(|&d| HALTON_BASES[d as usize] == 2) {
                    for k in [4u32, 6] {
                        let n = 1usize << k;
                        let mut hit = vec![0u32; n];
                        for i in 0..n as u32 {
                            let x = padded_halton(3, px, i, bounce, dim);
                            hit[(x * n as f32) as usize] += 1;
                        }
                        // A rotation shifts strata boundaries by the same amount for all
                        // points, so each stratum still gets exactly one point.
                        assert!(hit.iter().all(|&c| c == 1), "px {px} bounce {bounce} dim {dim}: {hit:?}");
                    }
                }
            }
        }
    }

    /// Padding: the same dimension at two bounces must not be a function of each other
    /// (rotation alone would put all (bounce 0, bounce 1) pairs on a line): over 256
    /// samples the pairs fill a 4×4 grid of cells roughly evenly.
    #[test]
    fn bounces_are_decorrelated() {
        for dim in [dims::BSDF_U, dims::LIGHT_SELECT, dims::ROULETTE] {
            let mut cells = [0u32; 16];
            for i in 0..256 {
                let a = padded_halton(1, 42, i, 0, dim);
                let b = padded_halton(1, 42, i, 1, dim);
                cells[(a * 4.0) as usize * 4 + (b * 4.0) as usize] += 1;
            }
            // On a line, most of the 16 cells would be empty; random pairs give 16 ± 4 each.
            assert!(cells.iter().all(|&c| (4..=32).contains(&c)), "dim {dim}: {cells:?}");
        }
    }

    #[test]
    fn shuffle_index_is_a_bijection_on_prefixes() {
        for seed in [0u32, 1, 0xdead_beef] {
            for k in [1u32, 3, 8] {
                let n = 1u32 << k;
                let mut low: Vec<u32> = (0..n).map(|i| shuffle_index(i, seed) & (n - 1)).collect();
                low.sort_unstable();
                assert_eq!(low, (0..n).collect::<Vec<_>>(), "seed {seed} k {k}");
            }
        }
    }

    /// Mean and uniformity of many values across pixels for every dimension.
    #[test]
    fn uniform_across_pixels() {
        for kind in [SamplerKind::PaddedHalton, SamplerKind::Pcg] {
            let s = Sampler::new(kind, 1);
            for d in 0..dims::COUNT {
                let n = 40_000u32;
                let mut bins = [0u32; 10];
                for px in 0..n {
                    bins[(s.get(px, px % 7, 3, d) * 10.0) as usize] += 1;
                }
                let e = n as f64 / 10.0;
                let chi2: f64 = bins.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
                // 9 degrees of freedom: P(chi2 > 33.7) < 1e-4.
                assert!(chi2 < 33.7, "{kind:?} dim {d}: chi2 {chi2}, {bins:?}");
            }
        }
    }
}
