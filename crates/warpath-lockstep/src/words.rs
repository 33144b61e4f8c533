//! The word lists the two ports exchange (arguments in, results out, floats as their bit
//! patterns, so nothing is rounded on the way), and the seeded random numbers that draw
//! the arguments.

use bytemuck::Pod;
use glam::{Vec2, Vec3};

/// Arguments of one call, as the C++ `In` reads them (cpp/lockstep.cpp).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Words(pub Vec<u32>);

impl Words {
    pub fn u(&mut self, value: u32) {
        self.0.push(value);
    }
    pub fn i(&mut self, value: i32) {
        self.0.push(value as u32);
    }
    pub fn f(&mut self, value: f32) {
        self.0.push(value.to_bits());
    }
    /// A double as two words, low then high.
    pub fn d(&mut self, value: f64) {
        let bits = value.to_bits();
        self.u(bits as u32);
        self.u((bits >> 32) as u32);
    }
    pub fn vec2(&mut self, v: Vec2) {
        self.f(v.x);
        self.f(v.y);
    }
    pub fn vec3(&mut self, v: Vec3) {
        self.f(v.x);
        self.f(v.y);
        self.f(v.z);
    }
    /// A `#[repr(C)]` Pod struct, word by word (the C++ side memcpys it into its mirror).
    pub fn pod<T: Pod>(&mut self, value: &T) {
        let bytes = bytemuck::bytes_of(value);
        assert!(bytes.len().is_multiple_of(4), "a Pod argument of whole words");
        self.0.extend(bytes.chunks_exact(4).map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]])));
    }
}

/// Reads arguments back in the order they were written (the Rust twins' side of `In`).
pub struct Reader<'a> {
    words: &'a [u32],
    next: usize,
}

impl<'a> Reader<'a> {
    pub fn new(words: &'a [u32]) -> Self {
        Reader { words, next: 0 }
    }
    pub fn u(&mut self) -> u32 {
        let value = *self.words.get(self.next).expect("a Rust twin read past its arguments");
        self.next += 1;
        value
    }
    pub fn i(&mut self) -> i32 {
        self.u() as i32
    }
    pub fn f(&mut self) -> f32 {
        f32::from_bits(self.u())
    }
    pub fn d(&mut self) -> f64 {
        let low = self.u() as u64;
        f64::from_bits(low | (self.u() as u64) << 32)
    }
    pub fn vec2(&mut self) -> Vec2 {
        let x = self.f();
        Vec2::new(x, self.f())
    }
    pub fn vec3(&mut self) -> Vec3 {
        let (x, y) = (self.f(), self.f());
        Vec3::new(x, y, self.f())
    }
    pub fn pod<T: Pod>(&mut self) -> T {
        let size = std::mem::size_of::<T>();
        assert!(size.is_multiple_of(4), "a Pod argument of whole words");
        let bytes: Vec<u8> = (0..size / 4).flat_map(|_| self.u().to_ne_bytes()).collect();
        bytemuck::pod_read_unaligned(&bytes)
    }
    /// Whether every argument was read.
    pub fn is_done(&self) -> bool {
        self.next == self.words.len()
    }
}

/// What a result word holds: floats are compared by their distance in ulps, other words
/// (flags, indices, counts) bit for bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordKind {
    Float,
    Bits,
}

/// Results of one call, as the C++ `Out` writes them, with the kind of each word.
#[derive(Clone, Debug, Default)]
pub struct Output {
    pub words: Vec<u32>,
    pub kinds: Vec<WordKind>,
}

impl Output {
    pub fn u(&mut self, value: u32) {
        self.words.push(value);
        self.kinds.push(WordKind::Bits);
    }
    pub fn flag(&mut self, value: bool) {
        self.u(value as u32);
    }
    pub fn f(&mut self, value: f32) {
        self.words.push(value.to_bits());
        self.kinds.push(WordKind::Float);
    }
    /// A double as two words (compared bit for bit).
    pub fn d(&mut self, value: f64) {
        let bits = value.to_bits();
        self.u(bits as u32);
        self.u((bits >> 32) as u32);
    }
    pub fn vec2(&mut self, v: Vec2) {
        self.f(v.x);
        self.f(v.y);
    }
    pub fn vec3(&mut self, v: Vec3) {
        self.f(v.x);
        self.f(v.y);
        self.f(v.z);
    }
}

/// SplitMix64 (Steele et al. 2014): a small, seeded, reproducible generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.u32() as u64 * n as u64) >> 32) as u32
    }
    /// Uniform in [0, 1) on the 2^-24 grid.
    pub fn unit(&mut self) -> f32 {
        (self.u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }
    /// One of `values`, uniformly.
    pub fn pick<T: Copy>(&mut self, values: &[T]) -> T {
        values[self.below(values.len() as u32) as usize]
    }
    /// A point of the cube [-half, half]³.
    pub fn point(&mut self, half: f32) -> Vec3 {
        Vec3::new(self.range(-half, half), self.range(-half, half), self.range(-half, half))
    }
    /// A unit vector, uniform on the sphere (normalized in f32).
    pub fn direction(&mut self) -> Vec3 {
        loop {
            let v = self.point(1.0);
            let len2 = v.length_squared();
            if len2 > 1e-4 && len2 <= 1.0 {
                return v.normalize();
            }
        }
    }
}
