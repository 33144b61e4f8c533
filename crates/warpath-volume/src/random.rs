//! Random numbers for the tracking loops. Free-flight sampling and transmittance estimation
//! draw an unbounded number of uniforms between two path vertices, so they cannot come from
//! the sampler's fixed dimensions; instead each draw is a hash of (seed, pixel, sample,
//! bounce, stream, counter), a pure function like the sampler, so a path's tracking decisions
//! are the same on any thread and in `tracking_rng` of
//! `crates/warpath-cuda/kernels/volume/medium.cuh`.
//!
//! Stream 0 is the path's own tracking (free flights between vertex `bounce` and the next),
//! stream 1 the transmittance of vertex `bounce`'s shadow ray: the two never shift each other.

use warpath_core::sampler::{pcg_hash, u32_to_unit};

/// The free-flight stream of a path segment.
pub const STREAM_EXTEND: u32 = 0;
/// The shadow ray's transmittance stream.
pub const STREAM_SHADOW: u32 = 1;

/// The uniform numbers of one (pixel, sample, bounce, stream), drawn in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackingRng {
    key: u32,
    /// Numbers drawn so far.
    pub counter: u32,
}

impl TrackingRng {
    #[inline]
    pub fn new(seed: u32, pixel: u32, sample: u32, bounce: u32, stream: u32) -> Self {
        let mut key = pcg_hash(seed ^ 0x5bd1_e995);
        key = pcg_hash(key ^ pixel);
        key = pcg_hash(key ^ sample);
        key = pcg_hash(key ^ (bounce.wrapping_mul(2).wrapping_add(stream)));
        TrackingRng { key, counter: 0 }
    }

    /// The next uniform number in [0, 1) (24 bits).
    #[inline]
    pub fn next(&mut self) -> f32 {
        let bits = pcg_hash(self.key ^ pcg_hash(self.counter));
        self.counter = self.counter.wrapping_add(1);
        u32_to_unit(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_and_decorrelated() {
        // Mean, variance and lag-1 correlation of a long stream, and of the first draws of
        // many streams (what a tracking loop actually uses).
        let mut rng = TrackingRng::new(3, 10, 20, 4, STREAM_EXTEND);
        let xs: Vec<f64> = (0..200_000).map(|_| rng.next() as f64).collect();
        let check = |xs: &[f64]| {
            let n = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / n;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
            let lag: f64 = xs.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>() / (n - 1.0) / var;
            assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
            assert!((var - 1.0 / 12.0).abs() < 0.002, "variance {var}");
            assert!(lag.abs() < 0.01, "lag-1 correlation {lag}");
        };
        check(&xs);
        let firsts: Vec<f64> =
            (0..200_000u32).map(|p| TrackingRng::new(3, p, 0, 0, STREAM_SHADOW).next() as f64).collect();
        check(&firsts);
        assert!(xs.iter().all(|&x| (0.0..1.0).contains(&x)));
    }

    #[test]
    fn streams_and_bounces_differ() {
        let a = TrackingRng::new(1, 2, 3, 4, STREAM_EXTEND).next();
        let b = TrackingRng::new(1, 2, 3, 4, STREAM_SHADOW).next();
        let c = TrackingRng::new(1, 2, 3, 5, STREAM_EXTEND).next();
        assert!(a != b && a != c && b != c);
    }
}
