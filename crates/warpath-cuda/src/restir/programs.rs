//! ReSTIR's programs: `kernels/restir.cu` compiled for a reservoir layout and light sample
//! ([`program`]: `RESTIR_SOA`, `RESTIR_FULL_SAMPLE`), the scene's BVH layout
//! (`WARPATH_WIDE_BVH`), its material features (`WARPATH_MATERIAL_FEATURES`) and with or
//! without initial RIS's BSDF-sampled candidates (`RESTIR_BSDF_CANDIDATES`) ([`program_for`],
//! [`compiled_features`]).

use super::{LightSampleFormat, ReservoirLayout};
use crate::compiler::KernelSource;
use crate::kernels::{Program, RESTIR};
use crate::strategy::MaterialFeatures;
use crate::wide_bvh::BvhLayout;
use warpath_core::restir::RestirOptions;
use warpath_scene::Scene;

/// The program of a reservoir layout and light sample: `restir` (AoS, compact), else
/// `restir` with the suffixes `_soa` (RESTIR_SOA) and `_full` (RESTIR_FULL_SAMPLE).
pub fn program(layout: ReservoirLayout, sample: LightSampleFormat) -> KernelSource {
    match (layout, sample) {
        (ReservoirLayout::Aos, LightSampleFormat::Compact) => Program::Restir.source(),
        (ReservoirLayout::Soa, LightSampleFormat::Compact) => RESTIR.with_prelude("_soa", "#define RESTIR_SOA 1"),
        (ReservoirLayout::Aos, LightSampleFormat::Full) => RESTIR.with_prelude("_full", "#define RESTIR_FULL_SAMPLE 1"),
        (ReservoirLayout::Soa, LightSampleFormat::Full) => {
            RESTIR.with_prelude("_soa_full", "#define RESTIR_SOA 1\n#define RESTIR_FULL_SAMPLE 1")
        }
    }
}

/// [`program`] for a scene uploaded in `bvh`'s layout, compiled for the material features
/// `materials` and with or without initial RIS's BSDF-sampled candidates (what
/// [`RestirRenderer`] picks: [`compiled_features`]). The wide layout adds
/// `WARPATH_WIDE_BVH` (traversal/trace.cuh traces the compressed 8-wide BVH) and the suffix
/// `_wide8`; no BSDF candidates `RESTIR_BSDF_CANDIDATES 0` and `_nobsdf` (initial RIS without
/// their second traversal); a set of features other than all its `WARPATH_MATERIAL_FEATURES`
/// and `_basic` (or `_m<bits>`).
pub fn program_for(
    layout: ReservoirLayout,
    sample: LightSampleFormat,
    bvh: BvhLayout,
    (materials, bsdf_candidates): (MaterialFeatures, bool),
) -> KernelSource {
    if bvh == BvhLayout::Binary && materials == MaterialFeatures::ALL && bsdf_candidates {
        return program(layout, sample);
    }
    let (mut suffix, mut prelude) = (String::new(), String::new());
    if bvh == BvhLayout::Wide8 {
        prelude += "#define WARPATH_WIDE_BVH 1\n";
    }
    if layout == ReservoirLayout::Soa {
        suffix += "_soa";
        prelude += "#define RESTIR_SOA 1\n";
    }
    if sample == LightSampleFormat::Full {
        suffix += "_full";
        prelude += "#define RESTIR_FULL_SAMPLE 1\n";
    }
    if bvh == BvhLayout::Wide8 {
        suffix += "_wide8";
    }
    if !bsdf_candidates {
        suffix += "_nobsdf";
        prelude += "#define RESTIR_BSDF_CANDIDATES 0\n";
    }
    if materials != MaterialFeatures::ALL {
        suffix += &format!("_{}", materials.suffix());
        prelude += &materials.define();
    }
    RESTIR.with_prelude(&suffix, &prelude)
}

/// The (material features, BSDF candidates compiled in) of ReSTIR's programs for `scene`
/// rendered with `options`: the candidates' code only when `options` takes some, and the
/// basic materials ([`MaterialFeatures::for_scene`]) only without them — ptxas gives the
/// basic initial RIS with candidates 150 registers instead of the full one's 128 (one block of
/// 256 threads per SM instead of two; docs/benchmarks/pathtracer-registers.md).
pub fn compiled_features(scene: &Scene, options: &RestirOptions) -> (MaterialFeatures, bool) {
    match options.bsdf_candidates {
        0 => (MaterialFeatures::for_scene(scene), false),
        _ => (MaterialFeatures::ALL, true),
    }
}

/// Every program [`program`] makes other than `restir` itself (for `precompile` and the
/// compile test).
pub fn variant_programs() -> Vec<KernelSource> {
    let mut programs = Vec::new();
    for layout in [ReservoirLayout::Aos, ReservoirLayout::Soa] {
        for sample in [LightSampleFormat::Compact, LightSampleFormat::Full] {
            if (layout, sample) != (ReservoirLayout::Aos, LightSampleFormat::Compact) {
                programs.push(program(layout, sample));
            }
        }
    }
    programs
}
