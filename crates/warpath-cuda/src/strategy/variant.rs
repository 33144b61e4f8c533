//! Kernel variants of the estimators' programs. The volumetric estimator's, for the
//! benchmarks of issues 11 and 13: how grids are read ([`GridFetch`]: plain buffers or 3D
//! textures) and a register bound (seed 003's Table 4.4: `__launch_bounds__` with the blocks
//! per SM that cap the registers); warpath-bench lists the ones it measures (its
//! `programs.rs`, `warpath-bench precompile --variants`). Both estimators' over the wide BVH
//! (`wide_bvh`), what scenes uploaded as `BvhLayout::Wide8` render with. The surface
//! estimator's: with isosurface shapes (`WARPATH_ISOSURFACE_SHAPES`, issue 14), what a scene
//! with isosurfaces renders with, so that the triangle-only programs keep their code and
//! registers. Every estimator's: the material features compiled in ([`MaterialFeatures`],
//! `WARPATH_MATERIAL_FEATURES`): scenes needing none of them render with the "basic" programs.
//! A variant is the same sources compiled with `#define`s in front
//! ([`KernelSource::with_prelude`]), so each is its own module and kernel-cache entry and the
//! default variant is exactly the programs every render uses. [`EstimatorKernels`] holds an
//! estimator's programs as one variant compiles them.

use super::features::MaterialFeatures;
use crate::compiler::KernelSource;
use crate::error::{CudaError, CudaResult};
use crate::kernels::{Estimator, Family, Program};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// An estimator's programs on the GPU as a render compiles them: the naive megakernel and one
/// per schedule family (so a render compiles only the family its strategy uses), its own
/// stage list among them, each the [`Program`]'s default build or a [`KernelVariant`] of it. The kernels
/// themselves are the catalog's ([`crate::catalog::ScheduleKernels`]).
#[derive(Clone, Copy, Debug)]
pub struct EstimatorKernels {
    /// The estimator's name, the suffix of its kernels (`surface`).
    pub name: &'static str,
    pub estimator: Estimator,
    pub megakernel: KernelSource,
    /// The naive schedule's wave forms: naive_wave, naiveMK.
    pub naive_waves: KernelSource,
    pub wavefront: KernelSource,
    pub regeneration: KernelSource,
    pub tiled: KernelSource,
    pub streaming: KernelSource,
    /// The estimator's stage list (the multi-stage wavefront).
    pub stages: KernelSource,
}

impl EstimatorKernels {
    /// The build of `program` these kernels run (an error for a program of another
    /// estimator, or a stage list the estimator does not have).
    pub fn source(&self, program: Program) -> CudaResult<&KernelSource> {
        let source = match program {
            Program::Schedule(estimator, family) if estimator == self.estimator => match family {
                Family::Megakernel => Some(&self.megakernel),
                Family::NaiveWaves => Some(&self.naive_waves),
                Family::Wavefront => Some(&self.wavefront),
                Family::Regeneration => Some(&self.regeneration),
                Family::Tiled => Some(&self.tiled),
                Family::Streaming => Some(&self.streaming),
                Family::Stages => Some(&self.stages),
            },
            _ => None,
        };
        source.ok_or_else(|| {
            CudaError::InvalidArgument(format!("the {} estimator's kernels have no program {program:?}", self.name))
        })
    }

    /// Every program of these kernels (megakernel, families, stages) with its build.
    pub fn programs(&self) -> Vec<(Program, KernelSource)> {
        Family::ALL
            .into_iter()
            .map(|family| {
                let program = Program::Schedule(self.estimator, family);
                (program, *self.source(program).expect("every family"))
            })
            .collect()
    }
}

/// The surface path tracer's programs (`surface_megakernel.cu`, `surface_<family>.cu`,
/// `surface_stages.cu`).
pub const SURFACE: EstimatorKernels = EstimatorKernels {
    name: Estimator::Surface.name(),
    estimator: Estimator::Surface,
    megakernel: Program::Schedule(Estimator::Surface, Family::Megakernel).source(),
    naive_waves: Program::Schedule(Estimator::Surface, Family::NaiveWaves).source(),
    wavefront: Program::Schedule(Estimator::Surface, Family::Wavefront).source(),
    regeneration: Program::Schedule(Estimator::Surface, Family::Regeneration).source(),
    tiled: Program::Schedule(Estimator::Surface, Family::Tiled).source(),
    streaming: Program::Schedule(Estimator::Surface, Family::Streaming).source(),
    stages: Program::Schedule(Estimator::Surface, Family::Stages).source(),
};

/// The volumetric path tracer's programs (`volume_megakernel.cu`, `volume_<family>.cu`,
/// `volume_stages.cu`).
pub const VOLUME: EstimatorKernels = EstimatorKernels {
    name: Estimator::Volume.name(),
    estimator: Estimator::Volume,
    megakernel: Program::Schedule(Estimator::Volume, Family::Megakernel).source(),
    naive_waves: Program::Schedule(Estimator::Volume, Family::NaiveWaves).source(),
    wavefront: Program::Schedule(Estimator::Volume, Family::Wavefront).source(),
    regeneration: Program::Schedule(Estimator::Volume, Family::Regeneration).source(),
    tiled: Program::Schedule(Estimator::Volume, Family::Tiled).source(),
    streaming: Program::Schedule(Estimator::Volume, Family::Streaming).source(),
    stages: Program::Schedule(Estimator::Volume, Family::Stages).source(),
};

/// How the volumetric estimator reads density and albedo grids (`WARPATH_GRID_FETCH` in
/// kernels/volume/medium.cuh).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GridFetch {
    /// One float array in global memory, read through the read-only cache (`__ldg`).
    #[default]
    Buffer,
    /// 3D textures (CUDA arrays), point sampled: eight fetches and the CPU's trilinear
    /// arithmetic, so the image is the buffer's bit for bit.
    Texture,
    /// 3D textures filtered by the texture unit: one fetch, weights with 8 fractional bits
    /// (an image close to, not equal to, the CPU reference's).
    TextureLinear,
}

impl GridFetch {
    pub const ALL: [GridFetch; 3] = [GridFetch::Buffer, GridFetch::Texture, GridFetch::TextureLinear];

    pub fn name(self) -> &'static str {
        match self {
            GridFetch::Buffer => "buffer",
            GridFetch::Texture => "texture",
            GridFetch::TextureLinear => "texture-linear",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The `WARPATH_GRID_FETCH` value of the kernels.
    fn define(self) -> u32 {
        match self {
            GridFetch::Buffer => 0,
            GridFetch::Texture => 1,
            GridFetch::TextureLinear => 2,
        }
    }
}

impl std::fmt::Display for GridFetch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A compilation variant of the volumetric estimator's programs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KernelVariant {
    pub grid_fetch: GridFetch,
    /// Cap every kernel at this many registers per thread (`WARPATH_MAX_REGISTERS`): kernels
    /// of B threads per block declare `__launch_bounds__(B, 65536 / (R·B))`, the naive
    /// megakernel `__maxnreg__(R)`. None: the defaults (block size only).
    pub max_registers: Option<u32>,
    /// Trace the scene's isosurface shapes too (the surface estimator, scenes with some).
    pub isosurface_shapes: bool,
    /// Trace the compressed 8-wide BVH (`WARPATH_WIDE_BVH`, traversal/trace.cuh): what a scene
    /// uploaded with [`crate::wide_bvh::BvhLayout::Wide8`] renders with.
    pub wide_bvh: bool,
    /// The material features compiled in (`WARPATH_MATERIAL_FEATURES`): the default is all
    /// of them; a render picks [`MaterialFeatures::for_scene`].
    pub materials: MaterialFeatures,
}

/// The register caps `KernelVariant::max_registers` accepts (ptxas needs at least 16; 255 is
/// the architecture's most).
pub const REGISTER_CAP_RANGE: std::ops::RangeInclusive<u32> = 16..=255;

impl KernelVariant {
    pub fn is_default(&self) -> bool {
        *self == KernelVariant::default()
    }

    /// A short label: `buffer`, `texture, ≤128 registers`, ...
    pub fn label(&self) -> String {
        let mut label = match self.max_registers {
            None => self.grid_fetch.name().to_string(),
            Some(r) => format!("{}, ≤{r} registers", self.grid_fetch.name()),
        };
        if self.isosurface_shapes {
            label += ", isosurface shapes";
        }
        if self.wide_bvh {
            label += ", wide8 BVH";
        }
        if self.materials != MaterialFeatures::ALL {
            label += &format!(", {}", self.materials);
        }
        label
    }

    /// The surface estimator's programs for scenes with isosurface shapes.
    pub const ISOSURFACE_SHAPES: KernelVariant = KernelVariant {
        grid_fetch: GridFetch::Buffer,
        max_registers: None,
        isosurface_shapes: true,
        wide_bvh: false,
        materials: MaterialFeatures::ALL,
    };

    /// The suffix of the variant's program names (empty for the default).
    pub fn suffix(&self) -> String {
        let mut suffix = String::new();
        if self.grid_fetch != GridFetch::Buffer {
            suffix += &format!("-{}", self.grid_fetch.name());
        }
        if let Some(r) = self.max_registers {
            suffix += &format!("-r{r}");
        }
        if self.isosurface_shapes {
            suffix += "-iso";
        }
        if self.wide_bvh {
            suffix += "-wide8";
        }
        if self.materials != MaterialFeatures::ALL {
            suffix += &format!("-{}", self.materials.suffix());
        }
        suffix
    }

    /// The `#define`s in front of the sources.
    pub fn prelude(&self) -> String {
        let mut prelude = format!("#define WARPATH_GRID_FETCH {}\n", self.grid_fetch.define());
        if let Some(r) = self.max_registers {
            prelude += &format!("#define WARPATH_MAX_REGISTERS {r}\n");
        }
        if self.isosurface_shapes {
            prelude += "#define WARPATH_ISOSURFACE_SHAPES 1\n";
        }
        if self.wide_bvh {
            prelude += "#define WARPATH_WIDE_BVH 1\n";
        }
        if self.materials != MaterialFeatures::ALL {
            prelude += &self.materials.define();
        }
        prelude
    }

    fn source(&self, source: &KernelSource) -> KernelSource {
        if self.is_default() { *source } else { source.with_prelude(&self.suffix(), &self.prelude()) }
    }
}

impl EstimatorKernels {
    /// These kernels compiled as `variant` (the same kernel names in programs of their own).
    /// The default variant is `self`.
    pub fn variant(&'static self, variant: KernelVariant) -> &'static EstimatorKernels {
        if variant.is_default() {
            return self;
        }
        static VARIANTS: OnceLock<Mutex<HashMap<(&'static str, KernelVariant), &'static EstimatorKernels>>> =
            OnceLock::new();
        let mut variants = VARIANTS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        variants.entry((self.name, variant)).or_insert_with(|| {
            Box::leak(Box::new(EstimatorKernels {
                megakernel: variant.source(&self.megakernel),
                naive_waves: variant.source(&self.naive_waves),
                wavefront: variant.source(&self.wavefront),
                regeneration: variant.source(&self.regeneration),
                tiled: variant.source(&self.tiled),
                streaming: variant.source(&self.streaming),
                stages: variant.source(&self.stages),
                ..*self
            }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_variant_is_the_render_programs() {
        let kernels = VOLUME.variant(KernelVariant::default());
        assert!(std::ptr::eq(kernels, &VOLUME));
        assert_eq!(KernelVariant::default().suffix(), "");
    }

    #[test]
    fn a_variant_renames_its_programs_and_defines_its_choice() {
        let variant = KernelVariant { grid_fetch: GridFetch::Texture, max_registers: Some(128), ..Default::default() };
        let kernels = VOLUME.variant(variant);
        assert_eq!(kernels.streaming.name, "volume_streaming-texture-r128");
        assert!(
            kernels.streaming.source.starts_with("#define WARPATH_GRID_FETCH 1\n#define WARPATH_MAX_REGISTERS 128\n")
        );
        assert!(kernels.streaming.source.ends_with(VOLUME.streaming.source));
        // Asking again gives the same programs (one module each).
        assert!(std::ptr::eq(kernels, VOLUME.variant(variant)));
        let names: Vec<_> = VOLUME.variant(variant).programs().iter().map(|(_, p)| p.name).collect();
        assert!(names.iter().all(|n| n.ends_with("-texture-r128")), "{names:?}");
    }

    #[test]
    fn variants_have_cache_keys_of_their_own() {
        let compiler = crate::compiler::KernelCompiler::new_for_tests();
        let target = crate::compiler::CompileTarget::Cubin { arch: 90 };
        let variants = [
            KernelVariant::default(),
            KernelVariant { grid_fetch: GridFetch::Texture, ..Default::default() },
            KernelVariant { grid_fetch: GridFetch::TextureLinear, ..Default::default() },
            KernelVariant { max_registers: Some(128), ..Default::default() },
            KernelVariant { max_registers: Some(64), ..Default::default() },
            KernelVariant { wide_bvh: true, ..Default::default() },
            KernelVariant { materials: MaterialFeatures::NONE, ..Default::default() },
            KernelVariant { wide_bvh: true, materials: MaterialFeatures::NONE, ..Default::default() },
        ];
        let keys: std::collections::HashSet<String> =
            variants.iter().map(|&v| compiler.cache_key(&VOLUME.variant(v).streaming, &target)).collect();
        assert_eq!(keys.len(), variants.len());
    }

    #[test]
    fn the_basic_variant_names_and_defines_its_features() {
        let basic = KernelVariant { materials: MaterialFeatures::NONE, ..Default::default() };
        assert!(!basic.is_default());
        assert_eq!(basic.suffix(), "-basic");
        assert_eq!(basic.label(), "buffer, basic materials");
        let kernels = SURFACE.variant(basic);
        assert_eq!(kernels.stages.name, "surface_stages-basic");
        assert!(
            kernels
                .megakernel
                .source
                .starts_with("#define WARPATH_GRID_FETCH 0\n#define WARPATH_MATERIAL_FEATURES 0x0u\n")
        );
        let wide = KernelVariant { wide_bvh: true, ..basic };
        assert_eq!(SURFACE.variant(wide).wavefront.name, "surface_wavefront-wide8-basic");
        // The default variant has every feature and no define.
        assert!(!KernelVariant::default().prelude().contains("WARPATH_MATERIAL_FEATURES"));
    }

    #[test]
    fn grid_fetch_names_round_trip() {
        for f in GridFetch::ALL {
            assert_eq!(GridFetch::from_name(f.name()), Some(f));
        }
        assert_eq!(GridFetch::from_name("tex"), None);
    }
}
