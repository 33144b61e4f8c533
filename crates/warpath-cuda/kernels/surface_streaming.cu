// surface_streaming.cu — the streaming schedules (schedules/streaming.cuh; crates/warpath-cuda/src/strategy/)
// instantiated for the surface estimator (SurfaceEstimator, kernels named <schedule>_surface): one program per
// schedule family, so a render compiles only the family its strategy uses.
#include "schedules/kernels.cuh"
#include "surface/estimator.cuh"

WARPATH_STREAMING_KERNELS(SurfaceEstimator, surface)
