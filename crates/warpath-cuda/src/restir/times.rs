//! The kernel times of timed ReSTIR frames ([`RestirTimes`], `RestirRenderer::set_kernel_timing`).

use crate::catalog::{
    Kernel, RESTIR_BOILING_FILTER, RESTIR_INITIAL_RIS, RESTIR_INITIAL_RIS_CHANNELS, RESTIR_SHADE, RESTIR_SPATIAL,
    RESTIR_SPATIAL_CHOOSE, RESTIR_SPATIAL_PAIRWISE, RESTIR_SPATIAL_PAIRWISE_GROUPED, RESTIR_SPATIAL_PAIRWISE_SEES,
    RESTIR_SPATIAL_Z, RESTIR_TEMPORAL, RESTIR_TEMPORAL_CHOOSE, RESTIR_TEMPORAL_VISIBILITY, RESTIR_VISIBILITY,
    RestirKernelArgs,
};
use crate::runtime::KernelTimes;

/// The kernel times of the frames timed (the film merge after `shade`, a few microseconds,
/// is not timed), and their per-frame view: milliseconds per pass, the temporal pass's
/// kernels together, the spatial passes' together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RestirTimes {
    pub frames: u32,
    pub kernels: KernelTimes,
}

impl RestirTimes {
    /// The passes of the per-frame table and the kernels each sums.
    const PASSES: [(&'static str, &'static [Kernel<RestirKernelArgs>]); 5] = [
        ("restir_initial_ris", &[RESTIR_INITIAL_RIS, RESTIR_INITIAL_RIS_CHANNELS]),
        ("restir_visibility", &[RESTIR_VISIBILITY]),
        (
            "restir_temporal",
            &[RESTIR_TEMPORAL, RESTIR_TEMPORAL_CHOOSE, RESTIR_TEMPORAL_VISIBILITY, RESTIR_BOILING_FILTER],
        ),
        (
            "restir_spatial",
            &[
                RESTIR_SPATIAL,
                RESTIR_SPATIAL_CHOOSE,
                RESTIR_SPATIAL_Z,
                RESTIR_SPATIAL_PAIRWISE,
                RESTIR_SPATIAL_PAIRWISE_SEES,
                RESTIR_SPATIAL_PAIRWISE_GROUPED,
            ],
        ),
        ("restir_shade", &[RESTIR_SHADE]),
    ];

    /// Milliseconds of every kernel over the frames.
    pub fn total(&self) -> f64 {
        self.kernels.total_ms()
    }

    /// (pass, mean milliseconds per frame): initial RIS, visibility, temporal, spatial, shade.
    pub fn per_frame(&self) -> Vec<(&'static str, f64)> {
        let n = self.frames.max(1) as f64;
        Self::PASSES
            .iter()
            .map(|(pass, kernels)| (*pass, kernels.iter().map(|k| self.kernels.ms(k.name())).sum::<f64>() / n))
            .collect()
    }
}
