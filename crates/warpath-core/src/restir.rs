//! The knobs of ReSTIR DI (issue 15): shared by the CPU reference (`warpath_cpu::restir`) and
//! the GPU kernels (`warpath_cuda::restir`), so both read one set of defaults.

/// How reused reservoirs are weighted (RTXDI's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BiasCorrection {
    /// 1/M: cheap, biased where the pixels' domains differ.
    Off,
    /// Z counts the inputs whose surface sees the sample, visibility traced: unbiased.
    RayTraced,
}

impl BiasCorrection {
    pub fn name(self) -> &'static str {
        match self {
            BiasCorrection::Off => "off",
            BiasCorrection::RayTraced => "ray-traced",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [BiasCorrection::Off, BiasCorrection::RayTraced].into_iter().find(|b| b.name() == name)
    }
}

/// The knobs of a ReSTIR DI frame (the defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestirOptions {
    /// Candidates per pixel in initial RIS.
    pub candidates: u32,
    /// Draw candidates from the tile's light pool (else from the power distribution).
    pub light_pool: bool,
    pub temporal: bool,
    /// The previous reservoir's M is capped at this × the current M.
    pub temporal_cap: f32,
    /// Spatial reuse passes (0: none) of `neighbours` within `radius` pixels.
    pub spatial_passes: u32,
    pub neighbours: u32,
    pub radius: f32,
    pub bias: BiasCorrection,
    pub seed: u32,
}

impl Default for RestirOptions {
    fn default() -> Self {
        RestirOptions {
            candidates: 32,
            light_pool: true,
            temporal: true,
            temporal_cap: 20.0,
            spatial_passes: 1,
            neighbours: 5,
            radius: 30.0,
            bias: BiasCorrection::RayTraced,
            seed: 0,
        }
    }
}
