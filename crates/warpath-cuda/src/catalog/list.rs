//! The catalogued kernels, program by program. Each constant's type is the kernel's CUDA
//! signature (checked against the sources by the `signatures` test).

use super::ScheduleScene;
use crate::compaction::workspace::CompactionState;
use crate::isosurface::args::{IsoArgs, IsoClimbArgs, IsoPipelineArgs, IsoRenderArgs, IsoStageOut, IsoUpdateArgs};
use crate::kernel::{ConstPtr, Kernel, KernelInfo, MutPtr};
use crate::kernels::{Estimator, Family, Program};
use crate::restir::args::RestirArgs;
use crate::scene_upload::DeviceSceneArgs;
use crate::strategy::args::{MultiStageQueues, ScheduleArgs, WavefrontBuffers};
use crate::volume_upload::DeviceVolumeSceneArgs;

/// `(const T* in, T* out, unsigned int* counter, unsigned int n, unsigned long long threshold)`.
pub type CollateArgs = (ConstPtr, MutPtr, MutPtr, u32, u64);
/// `(const T* in, T* out, CompactionState state, unsigned int n, unsigned long long threshold)`.
pub type LookbackArgs = (ConstPtr, MutPtr, CompactionState, u32, u64);
/// `(const T* in, T* out, T* intermediate, CompactionState state, unsigned int n,
/// unsigned long long threshold)`.
pub type SectionsArgs = (ConstPtr, MutPtr, MutPtr, CompactionState, u32, u64);
/// `(T* out, unsigned int n, unsigned int seed)`.
pub type FillArgs = (MutPtr, u32, u32);
/// `(const T* in, unsigned char* flags, unsigned int n, unsigned long long threshold)`.
pub type FlagsArgs = (ConstPtr, MutPtr, u32, u64);
/// `(const T* in, const unsigned char* flags, T* out, CompactionState state, unsigned int n)`.
pub type OutOfKernelArgs = (ConstPtr, ConstPtr, MutPtr, CompactionState, u32);
/// `(const T* in, unsigned int* block_counts, unsigned int n, unsigned long long threshold)`.
pub type CountArgs = (ConstPtr, MutPtr, u32, u64);
/// `(const T* in, T* out, const unsigned int* block_offsets, unsigned int n,
/// unsigned long long threshold)`.
pub type ScatterArgs = (ConstPtr, MutPtr, ConstPtr, u32, u64);
/// Every ReSTIR kernel: `(RestirArgs a)`.
pub type RestirKernelArgs = (RestirArgs,);
/// `iso_traverse_*(IsoPipelineArgs, const unsigned* in, const unsigned* in_count, unsigned bound, IsoStageOut)`.
pub type IsoTraverseArgs = (IsoPipelineArgs, ConstPtr, ConstPtr, u32, IsoStageOut);
/// `iso_intersect_*(…, IsoStageOut to_traverse, IsoStageOut to_shade)`.
pub type IsoIntersectArgs = (IsoPipelineArgs, ConstPtr, ConstPtr, u32, IsoStageOut, IsoStageOut);
/// `multistage_<stage>_surface(SurfaceScheduleArgs, MultiStageQueues, unsigned int count)`.
pub type StageArgs = (ScheduleArgs<DeviceSceneArgs>, MultiStageQueues, u32);
/// `multistage_<stage>_volume(ScheduleArgs<VolumeEstimator>, MultiStageQueues, unsigned int count)`.
pub type VolumeStageArgs = (ScheduleArgs<DeviceVolumeSceneArgs>, MultiStageQueues, u32);

crate::kernel_catalog! {
    fn declared;

    // film.cu
    /// `(float* pass_sum, float* pass_sum_sq, unsigned* pass_count, double* sum, double* sum_sq,
    /// unsigned* count, unsigned pixels)`.
    FILM_MERGE_PASS: (MutPtr, MutPtr, MutPtr, MutPtr, MutPtr, MutPtr, u32) = Program::Film, "film_merge_pass";

    // compaction.cu
    COMPACTION_COLLATE_U32: CollateArgs = Program::Compaction, "compaction_collate_u32";
    COMPACTION_COLLATE_ELEM16: CollateArgs = Program::Compaction, "compaction_collate_elem16";
    COMPACTION_COLLATE_PATH64: CollateArgs = Program::Compaction, "compaction_collate_path64";
    COMPACTION_COLLATE_X1_U32: CollateArgs = Program::Compaction, "compaction_collate_x1_u32";
    COMPACTION_LOOKBACK_U32: LookbackArgs = Program::Compaction, "compaction_lookback_u32";
    COMPACTION_LOOKBACK_ELEM16: LookbackArgs = Program::Compaction, "compaction_lookback_elem16";
    COMPACTION_LOOKBACK_PATH64: LookbackArgs = Program::Compaction, "compaction_lookback_path64";
    COMPACTION_LOOKBACK_X1_U32: LookbackArgs = Program::Compaction, "compaction_lookback_x1_u32";
    COMPACTION_LOOKBACK_DEEP_AHEAD_U32: LookbackArgs = Program::Compaction, "compaction_lookback_deep_ahead_u32";
    COMPACTION_SECTIONS_U32: SectionsArgs = Program::Compaction, "compaction_sections_u32";
    COMPACTION_SECTIONS_ELEM16: SectionsArgs = Program::Compaction, "compaction_sections_elem16";
    COMPACTION_SECTIONS_PATH64: SectionsArgs = Program::Compaction, "compaction_sections_path64";
    COMPACTION_SECTIONS_X1_U32: SectionsArgs = Program::Compaction, "compaction_sections_x1_u32";
    COMPACTION_FILL_U32: FillArgs = Program::Compaction, "compaction_fill_u32";
    COMPACTION_FILL_ELEM16: FillArgs = Program::Compaction, "compaction_fill_elem16";
    COMPACTION_FILL_PATH64: FillArgs = Program::Compaction, "compaction_fill_path64";
    COMPACTION_FLAGS_U32: FlagsArgs = Program::Compaction, "compaction_flags_u32";
    COMPACTION_FLAGS_ELEM16: FlagsArgs = Program::Compaction, "compaction_flags_elem16";
    COMPACTION_FLAGS_PATH64: FlagsArgs = Program::Compaction, "compaction_flags_path64";
    COMPACTION_OFK_U32: OutOfKernelArgs = Program::Compaction, "compaction_ofk_u32";
    COMPACTION_OFK_ELEM16: OutOfKernelArgs = Program::Compaction, "compaction_ofk_elem16";
    COMPACTION_OFK_PATH64: OutOfKernelArgs = Program::Compaction, "compaction_ofk_path64";
    COMPACTION_COUNT_U32: CountArgs = Program::Compaction, "compaction_count_u32";
    COMPACTION_COUNT_ELEM16: CountArgs = Program::Compaction, "compaction_count_elem16";
    COMPACTION_COUNT_PATH64: CountArgs = Program::Compaction, "compaction_count_path64";
    COMPACTION_SCATTER_U32: ScatterArgs = Program::Compaction, "compaction_scatter_u32";
    COMPACTION_SCATTER_ELEM16: ScatterArgs = Program::Compaction, "compaction_scatter_elem16";
    COMPACTION_SCATTER_PATH64: ScatterArgs = Program::Compaction, "compaction_scatter_path64";
    /// `(unsigned* counts, unsigned tiles, unsigned* count)`: one block of 1024 threads.
    COMPACTION_SCAN_COUNTS: (MutPtr, u32, MutPtr) = Program::Compaction, "compaction_scan_counts";
    /// `(unsigned* out)`: the compaction library's layout (`crate::compaction::host_layout`).
    COMPACTION_LAYOUT_REPORT: (MutPtr,) = Program::Compaction, "compaction_layout_report";

    // isosurface.cu
    ISO_CAST_SINGLE: (IsoArgs,) = Program::Isosurface, "iso_cast_single";
    ISO_RENDER_SINGLE: (IsoRenderArgs,) = Program::Isosurface, "iso_render_single";
    ISO_RENDER_SINGLE_F32: (IsoRenderArgs,) = Program::Isosurface, "iso_render_single_f32";
    ISO_RENDER_SINGLE_F32_R80: (IsoRenderArgs,) = Program::Isosurface, "iso_render_single_f32_r80";
    ISO_RENDER_SINGLE_F32_R64: (IsoRenderArgs,) = Program::Isosurface, "iso_render_single_f32_r64";
    ISO_UPDATE_TREE: (IsoUpdateArgs,) = Program::Isosurface, "iso_update_tree";
    ISO_UPDATE_CLIMB: (IsoClimbArgs,) = Program::Isosurface, "iso_update_climb";
    /// `(IsoUpdateArgs a, unsigned int level)`.
    ISO_UPDATE_LEVEL: (IsoUpdateArgs, u32) = Program::Isosurface, "iso_update_level";
    ISO_PIPELINE_SINGLE: (IsoPipelineArgs,) = Program::Isosurface, "iso_pipeline_single";
    /// `(IsoPipelineArgs, const unsigned* in, const unsigned* in_count, unsigned* shadow_items,
    /// unsigned* shadow_count)`.
    ISO_SHADE: (IsoPipelineArgs, ConstPtr, ConstPtr, MutPtr, MutPtr) = Program::Isosurface, "iso_shade";
    /// `(IsoPipelineArgs, const unsigned* in, const unsigned* in_count)`.
    ISO_SHADE_SHADOWS: (IsoPipelineArgs, ConstPtr, ConstPtr) = Program::Isosurface, "iso_shade_shadows";
    ISO_GENERATE_COLLATE: (IsoPipelineArgs, IsoStageOut) = Program::Isosurface, "iso_generate_collate";
    ISO_GENERATE_COMPACT: (IsoPipelineArgs, IsoStageOut) = Program::Isosurface, "iso_generate_compact";
    ISO_GENERATE_LOOKBACK: (IsoPipelineArgs, IsoStageOut) = Program::Isosurface, "iso_generate_lookback";
    ISO_GENERATE_FLAGS: (IsoPipelineArgs, IsoStageOut) = Program::Isosurface, "iso_generate_flags";
    ISO_TRAVERSE_COLLATE: IsoTraverseArgs = Program::Isosurface, "iso_traverse_collate";
    ISO_TRAVERSE_COMPACT: IsoTraverseArgs = Program::Isosurface, "iso_traverse_compact";
    ISO_TRAVERSE_LOOKBACK: IsoTraverseArgs = Program::Isosurface, "iso_traverse_lookback";
    ISO_TRAVERSE_FLAGS: IsoTraverseArgs = Program::Isosurface, "iso_traverse_flags";
    ISO_INTERSECT_COLLATE: IsoIntersectArgs = Program::Isosurface, "iso_intersect_collate";
    ISO_INTERSECT_COMPACT: IsoIntersectArgs = Program::Isosurface, "iso_intersect_compact";
    ISO_INTERSECT_LOOKBACK: IsoIntersectArgs = Program::Isosurface, "iso_intersect_lookback";
    ISO_INTERSECT_FLAGS: IsoIntersectArgs = Program::Isosurface, "iso_intersect_flags";

    // restir.cu
    RESTIR_INITIAL_RIS: RestirKernelArgs = Program::Restir, "restir_initial_ris";
    RESTIR_INITIAL_RIS_CHANNELS: RestirKernelArgs = Program::Restir, "restir_initial_ris_channels";
    RESTIR_VISIBILITY: RestirKernelArgs = Program::Restir, "restir_visibility";
    RESTIR_TEMPORAL: RestirKernelArgs = Program::Restir, "restir_temporal";
    RESTIR_TEMPORAL_CHOOSE: RestirKernelArgs = Program::Restir, "restir_temporal_choose";
    RESTIR_TEMPORAL_VISIBILITY: RestirKernelArgs = Program::Restir, "restir_temporal_visibility";
    RESTIR_BOILING_FILTER: RestirKernelArgs = Program::Restir, "restir_boiling_filter";
    RESTIR_SPATIAL: RestirKernelArgs = Program::Restir, "restir_spatial";
    RESTIR_SPATIAL_CHOOSE: RestirKernelArgs = Program::Restir, "restir_spatial_choose";
    RESTIR_SPATIAL_Z: RestirKernelArgs = Program::Restir, "restir_spatial_z";
    RESTIR_SPATIAL_PAIRWISE: RestirKernelArgs = Program::Restir, "restir_spatial_pairwise";
    RESTIR_SPATIAL_PAIRWISE_SEES: RestirKernelArgs = Program::Restir, "restir_spatial_pairwise_sees";
    RESTIR_SPATIAL_PAIRWISE_GROUPED: RestirKernelArgs = Program::Restir, "restir_spatial_pairwise_grouped";
    RESTIR_SHADE: RestirKernelArgs = Program::Restir, "restir_shade";

    // surface_stages.cu: the multi-stage wavefront's stages over the surface estimator.
    /// `(SurfaceScheduleArgs, MultiStageQueues)`.
    MULTISTAGE_GENERATE_SURFACE: (ScheduleArgs<DeviceSceneArgs>, MultiStageQueues) =
        SURFACE_STAGES_PROGRAM, "multistage_generate_surface";
    MULTISTAGE_INTERSECT_SURFACE: StageArgs = SURFACE_STAGES_PROGRAM, "multistage_intersect_surface";
    /// `(SurfaceScheduleArgs, MultiStageQueues, unsigned int kind, unsigned int count)`.
    MULTISTAGE_SHADE_SURFACE: (ScheduleArgs<DeviceSceneArgs>, MultiStageQueues, u32, u32) =
        SURFACE_STAGES_PROGRAM, "multistage_shade_surface";
    MULTISTAGE_SHADOW_SURFACE: StageArgs = SURFACE_STAGES_PROGRAM, "multistage_shadow_surface";
    MULTISTAGE_FINISH_SURFACE: StageArgs = SURFACE_STAGES_PROGRAM, "multistage_finish_surface";

    // volume_stages.cu: the multi-stage wavefront's stages over the volumetric estimator.
    /// `(ScheduleArgs<VolumeEstimator>, MultiStageQueues)`.
    MULTISTAGE_GENERATE_VOLUME: (ScheduleArgs<DeviceVolumeSceneArgs>, MultiStageQueues) =
        VOLUME_STAGES_PROGRAM, "multistage_generate_volume";
    MULTISTAGE_TRACK_VOLUME: VolumeStageArgs = VOLUME_STAGES_PROGRAM, "multistage_track_volume";
    MULTISTAGE_SCATTER_VOLUME: VolumeStageArgs = VOLUME_STAGES_PROGRAM, "multistage_scatter_volume";
    MULTISTAGE_FINISH_VOLUME: VolumeStageArgs = VOLUME_STAGES_PROGRAM, "multistage_finish_volume";
}

const SURFACE_STAGES_PROGRAM: Program = Program::Schedule(Estimator::Surface, Family::Stages);
const VOLUME_STAGES_PROGRAM: Program = Program::Schedule(Estimator::Volume, Family::Stages);

/// The kernels every estimator instantiates from `schedules/kernels.cuh`
/// (`<schedule>_<estimator>`), with the estimator's `ScheduleArgs<E>` first.
pub struct ScheduleKernels<S: ScheduleScene> {
    /// `naive_<e>(ScheduleArgs, unsigned int sample_count)`: the naive megakernel.
    pub naive: Kernel<(ScheduleArgs<S>, u32)>,
    /// `naive_wave_<e>(ScheduleArgs)`.
    pub naive_wave: Kernel<(ScheduleArgs<S>,)>,
    /// `naive_mk_first/rest_<e>(ScheduleArgs, E::Stored* paths)`.
    pub naive_mk_first: Kernel<(ScheduleArgs<S>, MutPtr)>,
    pub naive_mk_rest: Kernel<(ScheduleArgs<S>, MutPtr)>,
    /// `wavefront_extend_<method>_<e>(ScheduleArgs, WavefrontBuffers, unsigned in_count, unsigned first)`.
    pub wavefront_none: Kernel<(ScheduleArgs<S>, WavefrontBuffers, u32, u32)>,
    pub wavefront_collate: Kernel<(ScheduleArgs<S>, WavefrontBuffers, u32, u32)>,
    pub wavefront_lookback: Kernel<(ScheduleArgs<S>, WavefrontBuffers, u32, u32)>,
    pub wavefront_separate: Kernel<(ScheduleArgs<S>, WavefrontBuffers, u32, u32)>,
    pub wavefront_sorted: Kernel<(ScheduleArgs<S>, WavefrontBuffers, u32, u32)>,
    pub wavefront_sections: Kernel<(ScheduleArgs<S>, WavefrontBuffers, u32, u32)>,
    /// `regen_thread/warp/block_<e>(ScheduleArgs)`.
    pub regen_thread: Kernel<(ScheduleArgs<S>,)>,
    pub regen_warp: Kernel<(ScheduleArgs<S>,)>,
    pub regen_block: Kernel<(ScheduleArgs<S>,)>,
    /// `regen_device_fill/extend_<e>(ScheduleArgs, E::Stored* pool, unsigned int pool_size)`.
    pub regen_device_fill: Kernel<(ScheduleArgs<S>, MutPtr, u32)>,
    pub regen_device_extend: Kernel<(ScheduleArgs<S>, MutPtr, u32)>,
    /// `tiled_global_<e>(ScheduleArgs, E::Stored* path_memory)`.
    pub tiled_global: Kernel<(ScheduleArgs<S>, MutPtr)>,
    /// `tiled_shared_<e>(ScheduleArgs)`.
    pub tiled_shared: Kernel<(ScheduleArgs<S>,)>,
    /// `streaming_sk_scan/sorted_<e>(ScheduleArgs, E::Stored* pool)`.
    pub streaming_sk_scan: Kernel<(ScheduleArgs<S>, MutPtr)>,
    pub streaming_sk_sorted: Kernel<(ScheduleArgs<S>, MutPtr)>,
    /// `streaming_sk_sorting_<e>(ScheduleArgs<E::Deferred>, E::Stored* pool)`: the same
    /// arguments (the deferred form has the estimator's scene).
    pub streaming_sk_sorting: Kernel<(ScheduleArgs<S>, MutPtr)>,
    /// `streaming_mk_regen_<e>(ScheduleArgs, E::Stored* out, unsigned live, unsigned next, unsigned count)`.
    pub streaming_mk_regen: Kernel<(ScheduleArgs<S>, MutPtr, u32, u32, u32)>,
}

impl<S: ScheduleScene> Clone for ScheduleKernels<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: ScheduleScene> Copy for ScheduleKernels<S> {}

/// The kernels that `WARPATH_NAIVE_KERNEL(E, suffix)` and the family macros of
/// `schedules/kernels.cuh` define for estimator `$estimator`, suffix `$suffix`.
macro_rules! schedule_kernels {
    ($estimator:expr, $suffix:literal) => {{
        const fn kernel<A>(family: Family, name: &'static str) -> Kernel<A> {
            Kernel::new(Program::Schedule($estimator, family), name)
        }
        ScheduleKernels {
            naive: kernel(Family::Megakernel, concat!("naive_", $suffix)),
            naive_wave: kernel(Family::NaiveWaves, concat!("naive_wave_", $suffix)),
            naive_mk_first: kernel(Family::NaiveWaves, concat!("naive_mk_first_", $suffix)),
            naive_mk_rest: kernel(Family::NaiveWaves, concat!("naive_mk_rest_", $suffix)),
            wavefront_none: kernel(Family::Wavefront, concat!("wavefront_extend_none_", $suffix)),
            wavefront_collate: kernel(Family::Wavefront, concat!("wavefront_extend_collate_", $suffix)),
            wavefront_lookback: kernel(Family::Wavefront, concat!("wavefront_extend_lookback_", $suffix)),
            wavefront_separate: kernel(Family::Wavefront, concat!("wavefront_extend_separate_", $suffix)),
            wavefront_sorted: kernel(Family::Wavefront, concat!("wavefront_extend_sorted_", $suffix)),
            wavefront_sections: kernel(Family::Wavefront, concat!("wavefront_extend_sections_", $suffix)),
            regen_thread: kernel(Family::Regeneration, concat!("regen_thread_", $suffix)),
            regen_warp: kernel(Family::Regeneration, concat!("regen_warp_", $suffix)),
            regen_block: kernel(Family::Regeneration, concat!("regen_block_", $suffix)),
            regen_device_fill: kernel(Family::Regeneration, concat!("regen_device_fill_", $suffix)),
            regen_device_extend: kernel(Family::Regeneration, concat!("regen_device_extend_", $suffix)),
            tiled_global: kernel(Family::Tiled, concat!("tiled_global_", $suffix)),
            tiled_shared: kernel(Family::Tiled, concat!("tiled_shared_", $suffix)),
            streaming_sk_scan: kernel(Family::Streaming, concat!("streaming_sk_scan_", $suffix)),
            streaming_sk_sorted: kernel(Family::Streaming, concat!("streaming_sk_sorted_", $suffix)),
            streaming_sk_sorting: kernel(Family::Streaming, concat!("streaming_sk_sorting_", $suffix)),
            streaming_mk_regen: kernel(Family::Streaming, concat!("streaming_mk_regen_", $suffix)),
        }
    }};
}

/// The surface path tracer's schedule kernels (`surface_megakernel.cu`, `surface_<family>.cu`).
pub const SURFACE_SCHEDULES: ScheduleKernels<DeviceSceneArgs> = schedule_kernels!(Estimator::Surface, "surface");
/// The volumetric path tracer's (`volume_megakernel.cu`, `volume_<family>.cu`).
pub const VOLUME_SCHEDULES: ScheduleKernels<DeviceVolumeSceneArgs> = schedule_kernels!(Estimator::Volume, "volume");

impl<S: ScheduleScene> ScheduleKernels<S> {
    /// Every kernel of the table.
    pub fn all(&self) -> Vec<KernelInfo> {
        vec![
            self.naive.info(),
            self.naive_wave.info(),
            self.naive_mk_first.info(),
            self.naive_mk_rest.info(),
            self.wavefront_none.info(),
            self.wavefront_collate.info(),
            self.wavefront_lookback.info(),
            self.wavefront_separate.info(),
            self.wavefront_sorted.info(),
            self.wavefront_sections.info(),
            self.regen_thread.info(),
            self.regen_warp.info(),
            self.regen_block.info(),
            self.regen_device_fill.info(),
            self.regen_device_extend.info(),
            self.tiled_global.info(),
            self.tiled_shared.info(),
            self.streaming_sk_scan.info(),
            self.streaming_sk_sorted.info(),
            self.streaming_sk_sorting.info(),
            self.streaming_mk_regen.info(),
        ]
    }
}

/// Every catalogued kernel.
pub fn all() -> Vec<KernelInfo> {
    let mut kernels = declared();
    kernels.extend(SURFACE_SCHEDULES.all());
    kernels.extend(VOLUME_SCHEDULES.all());
    kernels
}

/// The catalogued kernels of `program`, by name (what it must define).
pub fn kernels_of(program: Program) -> Vec<&'static str> {
    all().into_iter().filter(|k| k.program == program).map(|k| k.name).collect()
}
