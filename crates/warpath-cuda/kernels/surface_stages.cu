// surface_stages.cu — the surface estimator's stage list for the multi-stage wavefront
// (surface/stages.cuh). The naive megakernel is surface_megakernel.cu, the other schedules
// surface_<family>.cu. Host side: crates/warpath-cuda/src/strategy/.
#include "schedules/kernels.cuh"
#include "surface/stages.cuh"

// ---- the multi-stage wavefront: the surface estimator's stages (surface/stages.cuh) --------------------------------
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_generate_surface(SurfaceScheduleArgs a, MultiStageQueues q) {
    multistage_generate(a, q);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_intersect_surface(SurfaceScheduleArgs a, MultiStageQueues q, unsigned int count) {
    multistage_intersect(a, q, count);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_shade_surface(SurfaceScheduleArgs a, MultiStageQueues q, unsigned int kind, unsigned int count) {
    multistage_shade(a, q, kind, count);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_shadow_surface(SurfaceScheduleArgs a, MultiStageQueues q, unsigned int count) {
    multistage_shadow(a, q, count);
}
extern "C" __global__ void __launch_bounds__(MULTISTAGE_BLOCK)
    multistage_finish_surface(SurfaceScheduleArgs a, MultiStageQueues q, unsigned int count) {
    multistage_finish<SurfaceEstimator>(a, q, count);
}
