//! The programs to compile, each with the catalogued kernels it must define: every
//! [`Program`]'s default build ([`programs`], what renders use and `warpath precompile`
//! compiles) and the variant builds that renders compile on demand ([`variant_programs`]: the
//! surface estimator with isosurface shapes, both path tracers over the wide BVH (ReSTIR's is a default build),
//! ReSTIR's reservoir formats, the basic-materials builds; `precompile --variants`). The kernel
//! compile test checks both. The basic-materials builds ([`basic_material_programs`]: what
//! scenes without principled, plastic, maps, textures, masks, eta/k or Beckmann render with)
//! `warpath precompile` compiles with the default ones.
//! The benchmarks' programs (the traversal kernels, the volumetric estimator's benchmark
//! variants) are warpath-bench's (`warpath-bench precompile`).

use crate::catalog::kernels_of;
use crate::compiler::{CompileTarget, KernelCompiler, KernelSource, ModuleImage};
use crate::kernels::Program;
use crate::strategy::{KernelVariant, MaterialFeatures, SURFACE, VOLUME};

/// Every program's default build with the kernels it defines, and ReSTIR's build for the
/// compressed 8-wide BVH without BSDF candidates (what ReSTIR renders with default options
/// trace).
pub fn programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    Program::all()
        .into_iter()
        .map(|program| (program.source(), kernels_of(program)))
        .chain(std::iter::once((restir_wide_program(MaterialFeatures::ALL, false), kernels_of(Program::Restir))))
        .collect()
}

/// ReSTIR's default reservoirs tracing the compressed 8-wide BVH.
fn restir_wide_program(materials: MaterialFeatures, bsdf_candidates: bool) -> KernelSource {
    crate::restir::program_for(
        crate::restir::ReservoirLayout::Aos,
        crate::restir::LightSampleFormat::Compact,
        crate::wide_bvh::BvhLayout::Wide8,
        (materials, bsdf_candidates),
    )
}

/// The variant builds renders use: the surface estimator with isosurface shapes, the programs
/// tracing the wide BVH and ReSTIR's reservoir formats (`restir_soa`, `restir_full`,
/// `restir_soa_full`: `warpath render --restir-soa`, `--restir-light-sample full`), each with its
/// kernels.
pub fn variant_programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    isosurface_shape_programs()
        .into_iter()
        .chain(wide_bvh_programs())
        .chain(basic_material_programs())
        .chain(std::iter::once((restir_wide_program(MaterialFeatures::ALL, true), kernels_of(Program::Restir))))
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

/// The builds for scenes whose materials need none of the optional features (the Cornell box;
/// [`MaterialFeatures::compiled_for`]): both path tracers' programs and ReSTIR's (tracing the
/// binary and the wide BVH, without BSDF candidates: `restir::compiled_features`), compiled
/// with `WARPATH_MATERIAL_FEATURES 0`. `warpath precompile`
/// compiles them with the default builds.
pub fn basic_material_programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    let basic = KernelVariant { materials: MaterialFeatures::NONE, ..Default::default() };
    let restir = [crate::wide_bvh::BvhLayout::Binary, crate::wide_bvh::BvhLayout::Wide8].map(|bvh| {
        use crate::restir::{LightSampleFormat, ReservoirLayout};
        let features = (MaterialFeatures::NONE, false);
        (
            crate::restir::program_for(ReservoirLayout::Aos, LightSampleFormat::Compact, bvh, features),
            kernels_of(Program::Restir),
        )
    });
    SURFACE
        .variant(basic)
        .programs()
        .into_iter()
        .chain(VOLUME.variant(basic).programs())
        .map(|(program, source)| (source, kernels_of(program)))
        .chain(restir)
        .collect()
}

/// Compiles `programs` for `target` on `threads` threads and returns the problems found, one
/// line each: a program that does not compile, compiles with messages (warnings), gives no
/// CUBIN or lacks one of its kernels. What CI's kernel check (`.ci/nvrtc-check`) asserts empty,
/// for this crate's programs and for warpath-bench's.
pub fn compile_problems(
    compiler: &KernelCompiler,
    target: &CompileTarget,
    programs: &[(KernelSource, Vec<&'static str>)],
    threads: usize,
) -> Vec<String> {
    let sources: Vec<_> = programs.iter().map(|(source, _)| *source).collect();
    let mut problems = Vec::new();
    let compiled = compiler.compile_many(&sources, target, threads, |module| module);
    for ((source, kernels), (_, _, outcome)) in programs.iter().zip(compiled) {
        let module = match outcome {
            Err(error) => {
                problems.push(format!("{}: {error}", source.file_name));
                continue;
            }
            Ok(module) => module,
        };
        if !module.log.is_empty() {
            problems.push(format!("{} compiled with messages:\n{}", source.file_name, module.log));
        }
        let ModuleImage::Cubin(cubin) = &module.image else {
            problems.push(format!("{}: expected a CUBIN", source.file_name));
            continue;
        };
        eprintln!("{} ({}): {} bytes of CUBIN", source.name, source.file_name, cubin.len());
        for kernel in kernels {
            if !cubin_defines(cubin, kernel) {
                problems.push(format!("{} ({}) does not define kernel `{kernel}`", source.name, source.file_name));
            }
        }
    }
    problems
}

/// Whether `name` appears as a NUL-terminated symbol name in the CUBIN's string tables.
fn cubin_defines(cubin: &[u8], name: &str) -> bool {
    let mut needle = name.as_bytes().to_vec();
    needle.push(0);
    cubin.windows(needle.len()).any(|window| window == needle.as_slice())
}
