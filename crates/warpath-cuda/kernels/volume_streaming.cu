// volume_streaming.cu — the streaming schedules (schedules/streaming.cuh; crates/warpath-cuda/src/strategy/)
// instantiated for the volume estimator (VolumeEstimator, kernels named <schedule>_volume): one program per
// schedule family, so a render compiles only the family its strategy uses.
// Schedule kernels bounded at 128 registers (schedules/kernels.cuh says why).
#define WARPATH_SCHEDULE_REGISTERS 128
#include "schedules/kernels.cuh"
#include "volume/estimator.cuh"

WARPATH_STREAMING_KERNELS(VolumeEstimator, volume)
