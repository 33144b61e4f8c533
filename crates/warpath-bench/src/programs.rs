//! The programs warpath-bench compiles, each with the kernels it must define: its own
//! ([`programs`]: `traverse.cu`'s default build) and the variant builds its benchmarks time
//! ([`variant_programs`]: the volumetric estimator's programs with grids read from 3D textures
//! and with register caps, [`benchmark_variants`], which `warpath-bench volumes --grid-fetch
//! --max-registers` runs). `warpath-bench precompile [--variants]` compiles them into the kernel
//! cache and `tests/kernels_compile.rs` (CI's `.ci/nvrtc-check`) with NVRTC; the product's
//! programs are warpath-cuda's (`warpath precompile`).

use crate::catalog::{PROGRAMS, kernels_of};
use warpath_cuda::KernelSource;
use warpath_cuda::strategy::{GridFetch, KernelVariant, VOLUME};

/// The volumetric estimator's variants the benchmarks time: both texture fetches, and register
/// caps 255, 168, 128, 96, 64 (with buffers).
pub fn benchmark_variants() -> Vec<KernelVariant> {
    let mut variants = vec![
        KernelVariant { grid_fetch: GridFetch::Texture, max_registers: None, ..Default::default() },
        KernelVariant { grid_fetch: GridFetch::TextureLinear, max_registers: None, ..Default::default() },
    ];
    for r in [255, 168, 128, 96, 64] {
        variants.push(KernelVariant { grid_fetch: GridFetch::Buffer, max_registers: Some(r), ..Default::default() });
    }
    variants
}

/// This crate's programs (default builds) with their kernels.
pub fn programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    PROGRAMS.iter().map(|&program| (program.source(), kernels_of(program))).collect()
}

/// The volumetric estimator's programs in every [`benchmark_variants`] variant, with their
/// kernels (warpath-cuda's catalog: a variant defines the kernels of its program).
pub fn variant_programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    benchmark_variants()
        .into_iter()
        .flat_map(|variant| VOLUME.variant(variant).programs())
        .map(|(program, source)| (source, warpath_cuda::catalog::kernels_of(program)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_its_own_program_and_none_is_a_product_build() {
        let variants = variant_programs();
        assert_eq!(variants.len(), benchmark_variants().len() * 7, "megakernel, five families, stages");
        let mut names: Vec<_> = variants.iter().map(|(p, _)| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), variants.len());
        let product: Vec<_> = warpath_cuda::programs::programs()
            .into_iter()
            .chain(warpath_cuda::programs::variant_programs())
            .map(|(p, _)| p.name)
            .collect();
        for name in names.iter().chain(programs().iter().map(|(p, _)| &p.name)) {
            assert!(!product.contains(name), "{name} is also a program of warpath-cuda");
        }
        assert!(variants.iter().all(|(_, kernels)| !kernels.is_empty()));
    }
}
