// volume_megakernel.cu — the naive megakernel (seed 000 B.1, seed 003's naiveSK) over the
// volumetric estimator: schedules/naive.cuh instantiated for VolumeEstimator (naive_volume).
// One thread per pixel traces this launch's samples of its pixel, whole paths from generate
// to termination (volume/estimator.cuh), then adds its sums to the film. Its own program, so
// `--strategy naive` on a volume scene compiles only this.
#include "schedules/kernels.cuh"
#include "volume/estimator.cuh"

WARPATH_NAIVE_KERNEL(VolumeEstimator, volume)
