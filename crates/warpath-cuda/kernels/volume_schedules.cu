// volume_schedules.cu — every path scheduling strategy of issue 5 over the volumetric
// estimator (seed 003): the instantiation list of schedules/kernels.cuh for VolumeEstimator
// (kernels named <schedule>_volume), with no copy of any schedule. The naive megakernel is
// volume_megakernel.cu. The multi-stage wavefront is the surface estimator's own stage list
// (surface/stages.cuh) and has no volume counterpart yet. Host side:
// crates/warpath-cuda/src/strategy/.
#include "schedules/kernels.cuh"
#include "volume/estimator.cuh"

WARPATH_SCHEDULE_KERNELS(VolumeEstimator, volume)
