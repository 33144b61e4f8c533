// volume_stages.cu — the volumetric estimator's stage list for the multi-stage wavefront
// (volume/stages.cuh): generate, then per bounce track and scatter, and finish. Bounded at
// 128 registers like the other volume schedule kernels (schedules/kernels.cuh says why).
// Host side: crates/warpath-cuda/src/strategy/multistage.rs.
#define WARPATH_SCHEDULE_REGISTERS 128
#include "schedules/kernels.cuh"
#include "volume/stages.cuh"

extern "C" __global__ void WARPATH_BOUNDS(MULTISTAGE_BLOCK)
    multistage_generate_volume(ScheduleArgs<VolumeEstimator> a, MultiStageQueues q) {
    multistage_generate_volume_paths(a, q);
}
extern "C" __global__ void WARPATH_BOUNDS(MULTISTAGE_BLOCK)
    multistage_track_volume(ScheduleArgs<VolumeEstimator> a, MultiStageQueues q, unsigned int count) {
    multistage_track(a, q, count);
}
extern "C" __global__ void WARPATH_BOUNDS(MULTISTAGE_BLOCK)
    multistage_scatter_volume(ScheduleArgs<VolumeEstimator> a, MultiStageQueues q, unsigned int count) {
    multistage_scatter(a, q, count);
}
extern "C" __global__ void WARPATH_BOUNDS(MULTISTAGE_BLOCK)
    multistage_finish_volume(ScheduleArgs<VolumeEstimator> a, MultiStageQueues q, unsigned int count) {
    multistage_finish<VolumeEstimator>(a, q, count);
}
