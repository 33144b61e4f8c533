//! The mutation engine of the fuzz harness: a small deterministic generator (SplitMix64)
//! and the mutations applied to a valid seed file — truncation, bit flips, byte overwrites,
//! chunk deletion and duplication, size fields inflated (decimal numbers in text, 16/32/64-
//! bit integers in binary, both byte orders), dictionary words spliced in, and, rarely, the
//! whole input replaced by random bytes behind the seed's first bytes (its magic).

/// SplitMix64: tiny, fast, and the same sequence on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A seed for case `index` of the format `name` under the run's `seed`: every case can be
/// made again from these three.
pub fn case_seed(seed: u64, name: &str, index: u64) -> u64 {
    let mut h = seed ^ 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let mut rng = Rng::new(h ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    rng.next_u64()
}

/// Decimal numbers a size field is inflated to (counts, dimensions, lengths, indices).
const HUGE_DECIMALS: &[&str] = &[
    "4294967295",
    "4294967296",
    "2147483647",
    "2147483648",
    "100000000000000",
    "18446744073709551615",
    "1000000",
    "65536",
    "16385",
    "-1",
    "-2147483648",
    "0",
    "1e38",
    "nan",
    "inf",
    "-inf",
    "1e-45",
];

/// Binary integers a size field is inflated to.
const HUGE_INTEGERS: &[u64] = &[
    0,
    1,
    0xff,
    0x7fff,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    1 << 20,
    1 << 28,
    1 << 31,
    u64::MAX,
    i64::MAX as u64,
];

/// Applies one to four mutations to `seed`; `dictionary` holds words of the format
/// (keywords, attribute names) to splice in.
pub fn mutate(seed: &[u8], dictionary: &[&str], rng: &mut Rng) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    if rng.chance(64) {
        // Random bytes behind the magic.
        let keep = seed.len().min(1 + rng.below(16));
        bytes.truncate(keep);
        let extra = rng.below(512);
        bytes.extend((0..extra).map(|_| rng.next_u64() as u8));
        return bytes;
    }
    let count = 1 + rng.below(4);
    for _ in 0..count {
        mutate_once(&mut bytes, dictionary, rng);
    }
    bytes
}

fn mutate_once(bytes: &mut Vec<u8>, dictionary: &[&str], rng: &mut Rng) {
    if bytes.is_empty() {
        bytes.extend((0..1 + rng.below(8)).map(|_| rng.next_u64() as u8));
        return;
    }
    let len = bytes.len();
    match rng.below(10) {
        0 => {
            // Truncate.
            bytes.truncate(rng.below(len));
        }
        1 | 2 => {
            // Flip 1 to 8 bits.
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(len);
                bytes[at] ^= 1 << rng.below(8);
            }
        }
        3 => {
            // Overwrite a byte with a boundary value.
            let at = rng.below(len);
            let random = rng.next_u64() as u8;
            bytes[at] = *rng.pick(&[0u8, 1, 0x7f, 0x80, 0xff, b'\n', b' ', b'-', b'9', random]);
        }
        4 => {
            // Delete a chunk.
            let at = rng.below(len);
            let n = 1 + rng.below((len - at).min(64));
            bytes.drain(at..at + n);
        }
        5 => {
            // Duplicate a chunk somewhere else.
            let from = rng.below(len);
            let n = 1 + rng.below((len - from).min(64));
            let chunk: Vec<u8> = bytes[from..from + n].to_vec();
            let to = rng.below(len + 1);
            bytes.splice(to..to, chunk);
        }
        6 | 7 => inflate_decimal(bytes, rng),
        8 => inflate_binary(bytes, rng),
        _ => {
            // Splice a word of the format.
            if let Some(word) = (!dictionary.is_empty()).then(|| *rng.pick(dictionary)) {
                let at = rng.below(len + 1);
                let mut inserted = word.as_bytes().to_vec();
                if rng.chance(2) {
                    inserted.push(*rng.pick(b" \n"));
                }
                bytes.splice(at..at, inserted);
            } else {
                inflate_binary(bytes, rng);
            }
        }
    }
}

/// Replaces a run of ASCII digits (a count, a size, an index in text) by a huge or odd
/// number.
fn inflate_decimal(bytes: &mut Vec<u8>, rng: &mut Rng) {
    let len = bytes.len();
    let start = rng.below(len);
    let Some(offset) = bytes[start..].iter().chain(&bytes[..start]).position(u8::is_ascii_digit) else {
        return inflate_binary(bytes, rng);
    };
    let mut first = (start + offset) % len;
    while first > 0 && bytes[first - 1].is_ascii_digit() {
        first -= 1;
    }
    let mut end = first;
    while end < len && (bytes[end].is_ascii_digit() || bytes[end] == b'.') {
        end += 1;
    }
    let replacement = rng.pick(HUGE_DECIMALS).as_bytes().to_vec();
    bytes.splice(first..end, replacement);
}

/// Writes a huge or boundary integer of 2, 4 or 8 bytes, little- or big-endian, at a random
/// (often 4-aligned) offset: where a binary header keeps its sizes.
fn inflate_binary(bytes: &mut [u8], rng: &mut Rng) {
    let width = *rng.pick(&[2usize, 4, 4, 4, 8]);
    if bytes.len() < width {
        return;
    }
    let mut at = rng.below(bytes.len() - width + 1);
    if rng.chance(2) {
        at -= at % 4;
    }
    let value = *rng.pick(HUGE_INTEGERS);
    let le = value.to_le_bytes();
    let be = value.to_be_bytes();
    let field = if rng.chance(2) { le[..width].to_vec() } else { be[8 - width..].to_vec() };
    bytes[at..at + width].copy_from_slice(&field);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_reproducible_and_differ() {
        let seed = b"ply\nformat ascii 1.0\nelement vertex 3\nend_header\n";
        let make = |i| mutate(seed, &["element"], &mut Rng::new(case_seed(1, "ply", i)));
        assert_eq!(make(5), make(5));
        let distinct: std::collections::HashSet<Vec<u8>> = (0..200).map(make).collect();
        assert!(distinct.len() > 150, "{} distinct of 200", distinct.len());
        assert!(distinct.iter().any(|m| m.windows(10).any(|w| w == b"4294967295")), "size fields get inflated");
    }
}
