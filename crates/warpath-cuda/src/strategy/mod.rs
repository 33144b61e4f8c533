//! Path scheduling strategies (issue 5; seeds 000 and 003): every way warpath schedules its
//! paths on the GPU, over one shared device estimator (`kernels/surface/estimator.cuh`).
//! A strategy only decides which thread runs which path when; the paths themselves are a
//! pure function of (pixel, sample, bounce, dimension), so every strategy traces the same
//! paths and produces the same per-bounce counts and, up to float round-off in the order
//! the film's sums are added, the same image.
//!
//! [`StrategyRenderer`] uploads a scene once, holds the film and the counters, and runs a
//! progressive pass with the chosen [`Strategy`]:
//!
//! | name | what | kernels |
//! |---|---|---|
//! | `naive` | one thread per pixel traces whole paths (seed 000 B.1) | `surface_megakernel.cu`, `volume_megakernel.cu` |
//! | `naive-mk` | two kernels: generate and first step of every path of a wave, then the rest of each (seed 003 naiveMK) | `schedules/naive.cuh` |
//! | `wavefront*` | one bounce per launch, paths stored between launches, survivors compacted (seed 000 B.2) | `schedules/wavefront.cuh` |
//! | `tiled`, `tiled-shared` | a 64-thread block runs a 64×8 tile of paths to the end, compacting its live-path list (seed 000 B.3) | `schedules/tiled.cuh` |
//! | `regen-thread/warp/block` | persistent threads regenerating paths from a work counter (seed 003) | `schedules/regeneration.cuh` |
//! | `regen-device` | two kernels over a pool: regenerate dead slots, extend live ones (seed 003) | `schedules/regeneration.cuh` |
//! | `streaming-sk`, `sorted-sk`, `sorting-sk` | block compaction plus regeneration in one persistent kernel; sorted: Morton order; sorting: Morton order with medium vertices completed (albedo, shadow ray) after the sort (seed 003) | `schedules/streaming.cuh` |
//! | `streaming-mk` | device compaction (InK-Collate) plus a regeneration kernel (seed 003) | `schedules/streaming.cuh` |
//! | `multistage` | a kernel per stage, SoA state and queues: the estimator's own stage list (surface: intersect, shade per material, shadow, finish; volume: track, scatter in media, finish) | `schedules/multistage.cuh`, `surface/stages.cuh`, `volume/stages.cuh` |
//!
//! Estimators × schedules: every schedule kernel is a template over the estimator
//! (`kernels/schedules/`), instantiated per estimator by one line
//! (`kernels/surface_<family>.cu`: `WARPATH_WAVEFRONT_KERNELS(SurfaceEstimator, surface)`, …);
//! the multi-stage wavefront runs the estimator's own stage list (`kernels/<estimator>/stages.cuh`,
//! compiled as `kernels/<estimator>_stages.cu`).
//!
//! The module's files:
//! - `catalog`: the [`Strategy`] list, names and descriptions;
//! - `args`: the kernels' `#[repr(C)]` arguments ([`ScheduleArgs`], [`StoredPath`],
//!   [`WavefrontBuffers`]) and their layout entries;
//! - `launch`: one typed Rust function per kernel signature (the kernels are the catalog's,
//!   [`crate::catalog::ScheduleKernels`]);
//! - `renderer`: [`StrategyRenderer`], passes and waves;
//! - `variant`: an estimator's programs ([`EstimatorKernels`]) and their compilation variants
//!   ([`GridFetch`]: buffers or 3D textures; register caps; isosurface shapes; the material
//!   features compiled in);
//! - `features`: [`MaterialFeatures`], what a scene's materials need compiled;
//! - `wavefront`, `pools`, `multistage`: the host loops with a launch per bounce or step;
//!   `queues`: the multi-stage wavefront's device arrays.

pub(crate) mod args;
mod catalog;
pub(crate) mod features;
mod launch;
mod multistage;
mod pools;
mod queues;
mod renderer;
pub(crate) mod variant;
mod wavefront;

pub use args::{
    CompactionState, MultiStageQueues, STORED_PATH_BYTES, ScheduleArgs, StoredPath, SurfaceScheduleArgs,
    WavefrontBuffers,
};
pub use catalog::{Strategy, WavefrontCompaction};
pub use features::MaterialFeatures;
pub use launch::SurfaceStage;
pub use queues::MULTISTAGE_BYTES_PER_PATH;
pub use renderer::{
    DEFAULT_POOL_FACTOR, DEFAULT_WAVE_PATHS, KernelResources, LaunchTimes, MAX_COUNTED_SURFACE_DEPTH, PathCounters,
    StrategyRenderer,
};
pub use variant::{EstimatorKernels, GridFetch, KernelVariant, REGISTER_CAP_RANGE, SURFACE, VOLUME};

#[cfg(test)]
mod tests {
    use super::*;
    use renderer::parse_counters;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for strategy in Strategy::ALL {
            assert_eq!(Strategy::from_name(strategy.name()), Some(strategy));
            assert!(seen.insert(strategy.name()), "duplicate name {}", strategy.name());
            assert!(!strategy.description().is_empty());
        }
        assert_eq!(Strategy::from_name("no-such-strategy"), None);
    }

    #[test]
    fn counters_split_into_three_tables() {
        // max_depth 2: S = 3 slots per table.
        let values = [10, 4, 6, 3, 0, 2, 1, 0, 600, 300, 0];
        let counters = parse_counters(&values, 3);
        assert_eq!(counters.extension_rays, 10);
        assert_eq!(counters.shadow_rays, 4);
        assert_eq!(counters.active_per_bounce, vec![6, 3]);
        assert_eq!(counters.active_warps_per_bounce, vec![2, 1]);
        assert_eq!(counters.warp_cycles_per_bounce, vec![600, 300]);
    }
}
