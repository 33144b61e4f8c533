//! The CUDA sources embedded in the binary (docs/architecture.md) and the [`Program`]s made
//! of them. Headers are handed to NVRTC in memory under the names the sources include. The
//! kernels each program defines, with their argument types, are in [`crate::catalog`].

use crate::compiler::KernelSource;

/// Every header, by the name `#include "..."` uses.
pub const HEADERS: &[(&str, &str)] = &[
    ("common/layout.cuh", include_str!("../kernels/common/layout.cuh")),
    ("common/features.cuh", include_str!("../kernels/common/features.cuh")),
    ("common/math.cuh", include_str!("../kernels/common/math.cuh")),
    ("common/film.cuh", include_str!("../kernels/common/film.cuh")),
    ("common/detmath.cuh", include_str!("../kernels/common/detmath.cuh")),
    ("common/sampler.cuh", include_str!("../kernels/common/sampler.cuh")),
    ("common/warp.cuh", include_str!("../kernels/common/warp.cuh")),
    ("common/scene.cuh", include_str!("../kernels/common/scene.cuh")),
    ("common/camera.cuh", include_str!("../kernels/common/camera.cuh")),
    ("common/rough_plastic_table.cuh", include_str!("../kernels/common/rough_plastic_table.cuh")),
    ("common/bsdf.cuh", include_str!("../kernels/common/bsdf.cuh")),
    ("common/conductor.cuh", include_str!("../kernels/common/conductor.cuh")),
    ("common/beckmann.cuh", include_str!("../kernels/common/beckmann.cuh")),
    ("common/principled.cuh", include_str!("../kernels/common/principled.cuh")),
    ("common/lights.cuh", include_str!("../kernels/common/lights.cuh")),
    ("common/normal_map.cuh", include_str!("../kernels/common/normal_map.cuh")),
    ("common/bump_map.cuh", include_str!("../kernels/common/bump_map.cuh")),
    ("common/opacity.cuh", include_str!("../kernels/common/opacity.cuh")),
    ("traversal/ray_triangle.cuh", include_str!("../kernels/traversal/ray_triangle.cuh")),
    ("traversal/traversal.cuh", include_str!("../kernels/traversal/traversal.cuh")),
    ("traversal/trace.cuh", include_str!("../kernels/traversal/trace.cuh")),
    ("traversal/wide.cuh", include_str!("../kernels/traversal/wide.cuh")),
    ("traversal/woop.cuh", include_str!("../kernels/traversal/woop.cuh")),
    ("compaction/compaction.cuh", include_str!("../kernels/compaction/compaction.cuh")),
    ("surface/estimator.cuh", include_str!("../kernels/surface/estimator.cuh")),
    ("schedules/schedule.cuh", include_str!("../kernels/schedules/schedule.cuh")),
    ("schedules/wavefront.cuh", include_str!("../kernels/schedules/wavefront.cuh")),
    ("schedules/regeneration.cuh", include_str!("../kernels/schedules/regeneration.cuh")),
    ("schedules/tiled.cuh", include_str!("../kernels/schedules/tiled.cuh")),
    ("schedules/streaming.cuh", include_str!("../kernels/schedules/streaming.cuh")),
    ("schedules/naive.cuh", include_str!("../kernels/schedules/naive.cuh")),
    ("schedules/kernels.cuh", include_str!("../kernels/schedules/kernels.cuh")),
    ("schedules/multistage.cuh", include_str!("../kernels/schedules/multistage.cuh")),
    ("surface/stages.cuh", include_str!("../kernels/surface/stages.cuh")),
    ("volume/medium.cuh", include_str!("../kernels/volume/medium.cuh")),
    ("volume/estimator.cuh", include_str!("../kernels/volume/estimator.cuh")),
    ("volume/stages.cuh", include_str!("../kernels/volume/stages.cuh")),
    ("isosurface/caster.cuh", include_str!("../kernels/isosurface/caster.cuh")),
    ("isosurface/render.cuh", include_str!("../kernels/isosurface/render.cuh")),
    ("isosurface/update.cuh", include_str!("../kernels/isosurface/update.cuh")),
    ("isosurface/pipeline.cuh", include_str!("../kernels/isosurface/pipeline.cuh")),
    ("isosurface/shapes.cuh", include_str!("../kernels/isosurface/shapes.cuh")),
    ("restir/restir.cuh", include_str!("../kernels/restir/restir.cuh")),
    ("restir/target.cuh", include_str!("../kernels/restir/target.cuh")),
    ("restir/similarity.cuh", include_str!("../kernels/restir/similarity.cuh")),
    // Rendered from crate::layout_registry (`WARPATH_BLESS=1 cargo test -p warpath-cuda layout`).
    ("generated/layout_checks.cuh", include_str!("../kernels/generated/layout_checks.cuh")),
];

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

/// `surface_stages.cu`: the surface estimator's stage list (multi-stage wavefront).
pub const SURFACE_STAGES: KernelSource = program!("surface_stages", "surface_stages.cu");
/// `volume_stages.cu`: the volumetric estimator's stage list (multi-stage wavefront).
pub const VOLUME_STAGES: KernelSource = program!("volume_stages", "volume_stages.cu");
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

/// An estimator of the schedule programs (`kernels/<estimator>_<family>.cu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Estimator {
    Surface,
    Volume,
}

impl Estimator {
    pub const ALL: [Estimator; 2] = [Estimator::Surface, Estimator::Volume];

    /// The suffix of its kernels' names (`surface`, `volume`).
    pub const fn name(self) -> &'static str {
        match self {
            Estimator::Surface => "surface",
            Estimator::Volume => "volume",
        }
    }
}

/// A schedule family: one program per (estimator, family), so a render compiles only the
/// family its strategy uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// The naive megakernel.
    Megakernel,
    /// The naive schedule's wave forms: naive_wave, naiveMK.
    NaiveWaves,
    Wavefront,
    Regeneration,
    Tiled,
    Streaming,
    /// The multi-stage wavefront: the estimator's own stage list (`<estimator>_stages.cu`).
    Stages,
}

impl Family {
    pub const ALL: [Family; 7] = [
        Family::Megakernel,
        Family::NaiveWaves,
        Family::Wavefront,
        Family::Regeneration,
        Family::Tiled,
        Family::Streaming,
        Family::Stages,
    ];
}

/// A program that another crate embeds and declares over this crate's headers (warpath-bench's
/// benchmark kernels, `crates/warpath-bench/kernels/`): its `.cu` source may include any header
/// of [`HEADERS`]. Its kernels are declared as [`crate::kernel::Kernel`] constants of
/// `Program::External(...)` in that crate (with [`crate::kernel_catalog!`]) and checked against
/// its source by [`crate::catalog::signatures::mismatches`]; it is launched through
/// [`CudaDevice::launch`](crate::runtime::CudaDevice::launch) like any program. Programs are
/// told apart by name and file name (the module cache's key is the name).
#[derive(Clone, Copy)]
pub struct ExternalProgram {
    source: KernelSource,
}

impl ExternalProgram {
    /// The program `name` of `file_name` with `source` (e.g. `include_str!("../kernels/x.cu")`),
    /// over this crate's headers.
    pub const fn new(name: &'static str, file_name: &'static str, source: &'static str) -> Self {
        ExternalProgram { source: KernelSource { name, file_name, source, headers: HEADERS } }
    }

    /// Its source, as NVRTC compiles it.
    pub const fn source(&self) -> KernelSource {
        self.source
    }
}

impl PartialEq for ExternalProgram {
    fn eq(&self, other: &Self) -> bool {
        self.source.name == other.source.name && self.source.file_name == other.source.file_name
    }
}

impl Eq for ExternalProgram {}

impl std::hash::Hash for ExternalProgram {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.source.name.hash(state);
        self.source.file_name.hash(state);
    }
}

impl std::fmt::Debug for ExternalProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.source.name, self.source.file_name)
    }
}

/// A program: one embedded `.cu` file, compiled as a module of its own. Variants of a
/// program (register caps, texture fetches, reservoir formats) are its source with
/// `#define`s in front ([`KernelSource::with_prelude`]); they define the same kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Program {
    /// `compaction.cu`.
    Compaction,
    /// `film.cu`.
    Film,
    /// `isosurface.cu`.
    Isosurface,
    /// `restir.cu`.
    Restir,
    /// `<estimator>_megakernel.cu`, `<estimator>_<family>.cu`.
    Schedule(Estimator, Family),
    /// A program of another crate ([`ExternalProgram`]).
    External(ExternalProgram),
}

impl Program {
    /// Every program of this crate (the product's; not the [`Program::External`] ones).
    pub fn all() -> Vec<Program> {
        let mut programs = vec![Program::Compaction, Program::Film, Program::Isosurface, Program::Restir];
        for estimator in Estimator::ALL {
            programs.extend(Family::ALL.map(|family| Program::Schedule(estimator, family)));
        }
        programs
    }

    /// The program's embedded source (its default build).
    pub const fn source(self) -> KernelSource {
        use {Estimator::*, Family::*};
        match self {
            Program::Compaction => COMPACTION,
            Program::Film => FILM,
            Program::Isosurface => ISOSURFACE,
            Program::Restir => RESTIR,
            Program::Schedule(Surface, Megakernel) => SURFACE_MEGAKERNEL,
            Program::Schedule(Surface, NaiveWaves) => SURFACE_NAIVE_WAVES,
            Program::Schedule(Surface, Wavefront) => SURFACE_WAVEFRONT,
            Program::Schedule(Surface, Regeneration) => SURFACE_REGENERATION,
            Program::Schedule(Surface, Tiled) => SURFACE_TILED,
            Program::Schedule(Surface, Streaming) => SURFACE_STREAMING,
            Program::Schedule(Surface, Stages) => SURFACE_STAGES,
            Program::Schedule(Volume, Megakernel) => VOLUME_MEGAKERNEL,
            Program::Schedule(Volume, NaiveWaves) => VOLUME_NAIVE_WAVES,
            Program::Schedule(Volume, Wavefront) => VOLUME_WAVEFRONT,
            Program::Schedule(Volume, Regeneration) => VOLUME_REGENERATION,
            Program::Schedule(Volume, Tiled) => VOLUME_TILED,
            Program::Schedule(Volume, Streaming) => VOLUME_STREAMING,
            Program::Schedule(Volume, Stages) => VOLUME_STAGES,
            Program::External(program) => program.source,
        }
    }

    /// Whether `source` is this program or one of its variants (the same file).
    pub fn builds(self, source: &KernelSource) -> bool {
        source.file_name == self.source().file_name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_is_its_own_file() {
        let mut files: Vec<_> = Program::all().iter().map(|p| p.source().file_name).collect();
        let count = files.len();
        files.sort_unstable();
        files.dedup();
        assert_eq!(files.len(), count);
    }
}
