//! What a path tracer counts while it renders, on every backend alike: paths per bounce, rays,
//! and the volumetric tracker's steps and grid reads. The CPU reference fills the per-path
//! counts; the GPU renderers fill the same fields (equal values for the same render: the
//! lockstep and GPU tests compare them) plus their SIMT view, warps and cycles per bounce.

/// What the tracking loops of a volumetric path tracer did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrackingCounts {
    /// Tentative collisions (delta- and ratio-tracking steps).
    pub steps: u64,
    /// Density grid reads.
    pub density_lookups: u64,
    /// Albedo grid reads.
    pub albedo_lookups: u64,
}

impl TrackingCounts {
    pub fn add(&mut self, o: &TrackingCounts) {
        self.steps += o.steps;
        self.density_lookups += o.density_lookups;
        self.albedo_lookups += o.albedo_lookups;
    }
}

/// Counters of an estimator's paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    /// Paths entering the estimator's `extend` at each bounce (no trailing zero bounces).
    pub active_per_bounce: Vec<u64>,
    /// GPU only (empty on the CPU): warp executions of `extend` per bounce (a warp counts once
    /// per bounce among its lanes).
    pub active_warps_per_bounce: Vec<u64>,
    /// GPU only: the sum over those warp executions of their cycles (the slowest lane's).
    pub warp_cycles_per_bounce: Vec<u64>,
    /// Extension rays traced (camera rays included; the volumetric path tracer counts every
    /// closest-hit query, index-matched boundaries included).
    pub extension_rays: u64,
    /// Shadow rays (next-event estimations).
    pub shadow_rays: u64,
    /// Volumetric path tracer: tentative collisions and grid reads of the tracking loops.
    pub tracking: TrackingCounts,
}

impl PathCounters {
    /// Adds `o`'s counts to these (per-bounce tables element by element).
    pub fn merge(&mut self, o: &PathCounters) {
        fn add(into: &mut Vec<u64>, from: &[u64]) {
            if into.len() < from.len() {
                into.resize(from.len(), 0);
            }
            for (a, b) in into.iter_mut().zip(from) {
                *a += b;
            }
        }
        add(&mut self.active_per_bounce, &o.active_per_bounce);
        add(&mut self.active_warps_per_bounce, &o.active_warps_per_bounce);
        add(&mut self.warp_cycles_per_bounce, &o.warp_cycles_per_bounce);
        self.extension_rays += o.extension_rays;
        self.shadow_rays += o.shadow_rays;
        self.tracking.add(&o.tracking);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_adds_every_count_and_extends_the_tables() {
        let mut a = PathCounters {
            active_per_bounce: vec![4, 2],
            extension_rays: 6,
            shadow_rays: 3,
            tracking: TrackingCounts { steps: 5, density_lookups: 7, albedo_lookups: 1 },
            ..Default::default()
        };
        let b = PathCounters {
            active_per_bounce: vec![1, 1, 1],
            active_warps_per_bounce: vec![1],
            warp_cycles_per_bounce: vec![100],
            extension_rays: 3,
            shadow_rays: 2,
            tracking: TrackingCounts { steps: 1, density_lookups: 2, albedo_lookups: 3 },
        };
        a.merge(&b);
        assert_eq!(a.active_per_bounce, vec![5, 3, 1]);
        assert_eq!(a.active_warps_per_bounce, vec![1]);
        assert_eq!(a.warp_cycles_per_bounce, vec![100]);
        assert_eq!((a.extension_rays, a.shadow_rays), (9, 5));
        assert_eq!(a.tracking, TrackingCounts { steps: 6, density_lookups: 9, albedo_lookups: 4 });
    }
}
