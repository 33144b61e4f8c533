//! The programs to compile, each with the catalogued kernels it must define: every
//! [`Program`]'s default build ([`programs`], what renders use and `warpath precompile`
//! compiles) and the variant builds ([`variant_programs`]: the volumetric estimator's
//! benchmark variants, the surface estimator with isosurface shapes, ReSTIR's reservoir
//! formats; `precompile --variants`). The kernel compile test checks both.

use crate::catalog::kernels_of;
use crate::compiler::KernelSource;
use crate::kernels::Program;
use crate::strategy::{KernelVariant, SURFACE, VOLUME, benchmark_variants};

/// Every program's default build with the kernels it defines, and ReSTIR's build for the
/// compressed 8-wide BVH (the layout ReSTIR renders trace by default).
pub fn programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    Program::all()
        .into_iter()
        .map(|program| (program.source(), kernels_of(program)))
        .chain(std::iter::once((restir_wide_program(), kernels_of(Program::Restir))))
        .collect()
}

/// ReSTIR's default reservoirs tracing the compressed 8-wide BVH.
fn restir_wide_program() -> KernelSource {
    crate::restir::program_for(
        crate::restir::ReservoirLayout::Aos,
        crate::restir::LightSampleFormat::Compact,
        crate::wide_bvh::BvhLayout::Wide8,
    )
}

/// The variant builds: the volumetric estimator's benchmark variants
/// ([`crate::strategy::benchmark_variants`]: grids as 3D textures, register caps), the surface
/// estimator with isosurface shapes and ReSTIR's reservoir formats (`restir_soa`,
/// `restir_full`, `restir_soa_full`), each with its kernels.
pub fn variant_programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    benchmark_variants()
        .into_iter()
        .flat_map(|variant| VOLUME.variant(variant).programs())
        .map(|(program, source)| (source, kernels_of(program)))
        .chain(isosurface_shape_programs())
        .chain(wide_bvh_programs())
        .chain(crate::restir::variant_programs().into_iter().map(|source| (source, kernels_of(Program::Restir))))
        .collect()
}

/// The surface estimator's programs with isosurface shapes (what scenes with isosurfaces
/// render with: [`KernelVariant::ISOSURFACE_SHAPES`]).
pub fn isosurface_shape_programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    SURFACE
        .variant(KernelVariant::ISOSURFACE_SHAPES)
        .programs()
        .into_iter()
        .map(|(program, source)| (source, kernels_of(program)))
        .collect()
}

/// Both path tracers' programs tracing the compressed 8-wide BVH (what scenes uploaded with
/// [`crate::wide_bvh::BvhLayout::Wide8`] render with: `KernelVariant::wide_bvh`; ReSTIR's is
/// among [`programs`]).
pub fn wide_bvh_programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    let wide = KernelVariant { wide_bvh: true, ..Default::default() };
    SURFACE
        .variant(wide)
        .programs()
        .into_iter()
        .chain(VOLUME.variant(wide).programs())
        .map(|(program, source)| (source, kernels_of(program)))
        .collect()
}
