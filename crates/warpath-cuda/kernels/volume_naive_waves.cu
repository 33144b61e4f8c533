// volume_naive_waves.cu — the naive schedule's wave forms (schedules/naive.cuh) instantiated for the
// volume estimator (VolumeEstimator, kernels named <schedule>_volume): naive_wave (one thread per path of a
// wave: seed 003's image tiles) and naiveMK's two kernels (naive_mk_first, naive_mk_rest).
// Schedule kernels bounded at 128 registers (schedules/kernels.cuh says why).
#define WARPATH_SCHEDULE_REGISTERS 128
#include "schedules/kernels.cuh"
#include "volume/estimator.cuh"

WARPATH_NAIVE_WAVE_KERNELS(VolumeEstimator, volume)
