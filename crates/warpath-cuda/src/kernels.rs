//! The CUDA sources embedded in the binary (DESIGN.md rule 5) and the kernels each one
//! defines. Headers are handed to NVRTC in memory under the names the sources include.

use crate::compiler::KernelSource;

/// Every header, by the name `#include "..."` uses.
pub const HEADERS: &[(&str, &str)] = &[
    ("common/layout.cuh", include_str!("../kernels/common/layout.cuh")),
    ("common/math.cuh", include_str!("../kernels/common/math.cuh")),
    ("common/film.cuh", include_str!("../kernels/common/film.cuh")),
    ("common/detmath.cuh", include_str!("../kernels/common/detmath.cuh")),
    ("common/sampler.cuh", include_str!("../kernels/common/sampler.cuh")),
    ("common/warp.cuh", include_str!("../kernels/common/warp.cuh")),
    ("common/scene.cuh", include_str!("../kernels/common/scene.cuh")),
    ("common/camera.cuh", include_str!("../kernels/common/camera.cuh")),
    ("common/bsdf.cuh", include_str!("../kernels/common/bsdf.cuh")),
    ("common/lights.cuh", include_str!("../kernels/common/lights.cuh")),
    ("traversal/ray_triangle.cuh", include_str!("../kernels/traversal/ray_triangle.cuh")),
    ("traversal/traversal.cuh", include_str!("../kernels/traversal/traversal.cuh")),
    ("traversal/trace.cuh", include_str!("../kernels/traversal/trace.cuh")),
    ("compaction/compaction.cuh", include_str!("../kernels/compaction/compaction.cuh")),
    ("surface/estimator.cuh", include_str!("../kernels/surface/estimator.cuh")),
    ("schedules/schedule.cuh", include_str!("../kernels/schedules/schedule.cuh")),
    ("schedules/wavefront.cuh", include_str!("../kernels/schedules/wavefront.cuh")),
    ("schedules/regeneration.cuh", include_str!("../kernels/schedules/regeneration.cuh")),
    ("schedules/tiled.cuh", include_str!("../kernels/schedules/tiled.cuh")),
    ("schedules/streaming.cuh", include_str!("../kernels/schedules/streaming.cuh")),
    ("schedules/naive.cuh", include_str!("../kernels/schedules/naive.cuh")),
    ("schedules/kernels.cuh", include_str!("../kernels/schedules/kernels.cuh")),
    ("surface/stages.cuh", include_str!("../kernels/surface/stages.cuh")),
    ("volume/medium.cuh", include_str!("../kernels/volume/medium.cuh")),
    ("volume/estimator.cuh", include_str!("../kernels/volume/estimator.cuh")),
    ("isosurface/caster.cuh", include_str!("../kernels/isosurface/caster.cuh")),
    ("isosurface/render.cuh", include_str!("../kernels/isosurface/render.cuh")),
    ("isosurface/update.cuh", include_str!("../kernels/isosurface/update.cuh")),
    ("isosurface/pipeline.cuh", include_str!("../kernels/isosurface/pipeline.cuh")),
    ("isosurface/shapes.cuh", include_str!("../kernels/isosurface/shapes.cuh")),
    ("restir/restir.cuh", include_str!("../kernels/restir/restir.cuh")),
];

/// `layout_check.cu`: reports the device compiler's struct sizes and offsets.
pub const LAYOUT_CHECK: KernelSource = KernelSource {
    name: "layout_check",
    file_name: "layout_check.cu",
    source: include_str!("../kernels/layout_check.cu"),
    headers: HEADERS,
};

/// `traverse.cu`: the Aila–Laine traversal kernels.
pub const TRAVERSE: KernelSource = KernelSource {
    name: "traverse",
    file_name: "traverse.cu",
    source: include_str!("../kernels/traverse.cu"),
    headers: HEADERS,
};

/// `surface_megakernel.cu`: the naive megakernel (seed 000 B.1) over the surface estimator.
pub const SURFACE_MEGAKERNEL: KernelSource = KernelSource {
    name: "surface_megakernel",
    file_name: "surface_megakernel.cu",
    source: include_str!("../kernels/surface_megakernel.cu"),
    headers: HEADERS,
};

/// `compaction.cu`: stream compaction (seed 001 InK-Collate/InK-Compact, decoupled
/// look-back, OfK and three-pass baselines) over three element types.
pub const COMPACTION: KernelSource = KernelSource {
    name: "compaction",
    file_name: "compaction.cu",
    source: include_str!("../kernels/compaction.cu"),
    headers: HEADERS,
};

/// A program of the embedded sources: `program!(NAME, "file.cu")`.
macro_rules! program {
    ($name:literal, $file:literal) => {
        KernelSource {
            name: $name,
            file_name: $file,
            source: include_str!(concat!("../kernels/", $file)),
            headers: HEADERS,
        }
    };
}

/// `surface_stages.cu`: the surface estimator's stage list (multi-stage wavefront) and the
/// layout report of the schedules' structs.
pub const SURFACE_STAGES: KernelSource = program!("surface_stages", "surface_stages.cu");
/// `surface_<family>.cu`: the other scheduling strategies over the surface estimator, one
/// program per family (a render compiles only the family its strategy uses).
pub const SURFACE_NAIVE_WAVES: KernelSource = program!("surface_naive_waves", "surface_naive_waves.cu");
pub const SURFACE_WAVEFRONT: KernelSource = program!("surface_wavefront", "surface_wavefront.cu");
pub const SURFACE_REGENERATION: KernelSource = program!("surface_regeneration", "surface_regeneration.cu");
pub const SURFACE_TILED: KernelSource = program!("surface_tiled", "surface_tiled.cu");
pub const SURFACE_STREAMING: KernelSource = program!("surface_streaming", "surface_streaming.cu");

/// `volume_megakernel.cu`: the naive megakernel over the volumetric estimator (seed 003).
pub const VOLUME_MEGAKERNEL: KernelSource = KernelSource {
    name: "volume_megakernel",
    file_name: "volume_megakernel.cu",
    source: include_str!("../kernels/volume_megakernel.cu"),
    headers: HEADERS,
};

/// `volume_<family>.cu`: the scheduling strategies over the volumetric estimator.
pub const VOLUME_NAIVE_WAVES: KernelSource = program!("volume_naive_waves", "volume_naive_waves.cu");
pub const VOLUME_WAVEFRONT: KernelSource = program!("volume_wavefront", "volume_wavefront.cu");
pub const VOLUME_REGENERATION: KernelSource = program!("volume_regeneration", "volume_regeneration.cu");
pub const VOLUME_TILED: KernelSource = program!("volume_tiled", "volume_tiled.cu");
pub const VOLUME_STREAMING: KernelSource = program!("volume_streaming", "volume_streaming.cu");
/// `isosurface.cu`: the single-kernel isosurface ray caster and renderer (issue 14).
pub const ISOSURFACE: KernelSource = program!("isosurface", "isosurface.cu");
/// `restir.cu`: ReSTIR direct lighting (issue 15, seed 002), kernel by kernel.
pub const RESTIR: KernelSource = program!("restir", "restir.cu");
/// `film.cu`: the merge of a pass's f32 film buffers into the render's f64 sums.
pub const FILM: KernelSource =
    KernelSource { name: "film", file_name: "film.cu", source: include_str!("../kernels/film.cu"), headers: HEADERS };

/// Every program with the kernels (`extern "C"` names) the Rust side launches from it.
pub fn programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    [
        (LAYOUT_CHECK, vec!["layout_report"]),
        (
            TRAVERSE,
            vec![
                "traverse_while_while_closest",
                "traverse_while_while_any",
                "traverse_speculative_closest",
                "traverse_speculative_any",
                "traverse_persistent_closest",
                "traverse_persistent_any",
                "traverse_postponed_closest",
                "traverse_postponed_any",
            ],
        ),
        (SURFACE_MEGAKERNEL, vec![crate::strategy::SURFACE.kernels.naive, "megakernel_layout_report"]),
        (COMPACTION, crate::compaction::KERNEL_NAMES.to_vec()),
        (SURFACE_STAGES, crate::strategy::surface_stage_kernel_names()),
        (VOLUME_MEGAKERNEL, vec![crate::strategy::VOLUME.kernels.naive, "volume_layout_report"]),
        (FILM, vec![crate::film::MERGE_KERNEL]),
        (ISOSURFACE, crate::isosurface::KERNEL_NAMES.clone()),
        (RESTIR, crate::restir::KERNEL_NAMES.to_vec()),
    ]
    .into_iter()
    .chain(crate::strategy::SURFACE.family_programs())
    .chain(crate::strategy::VOLUME.family_programs())
    .collect()
}

/// The programs of the volumetric estimator's benchmark variants
/// ([`crate::strategy::benchmark_variants`]: grids as 3D textures, register caps), of the
/// surface estimator with isosurface shapes and ReSTIR's reservoir formats (`restir_soa`,
/// `restir_full`, `restir_soa_full`), each with its kernels: what `warpath precompile --variants` adds to [`programs`].
pub fn variant_programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    crate::strategy::benchmark_variants()
        .into_iter()
        .flat_map(|variant| crate::strategy::VOLUME.variant(variant).all_programs())
        .chain(isosurface_shape_programs())
        .chain(crate::restir::variant_programs().into_iter().map(|p| (p, crate::restir::KERNEL_NAMES.to_vec())))
        .collect()
}

/// The surface estimator's programs with isosurface shapes (what scenes with isosurfaces
/// render with: [`crate::strategy::KernelVariant::ISOSURFACE_SHAPES`]).
pub fn isosurface_shape_programs() -> Vec<(KernelSource, Vec<&'static str>)> {
    crate::strategy::SURFACE.variant(crate::strategy::KernelVariant::ISOSURFACE_SHAPES).all_programs()
}
