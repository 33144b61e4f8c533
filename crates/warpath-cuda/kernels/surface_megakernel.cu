// surface_megakernel.cu — the naive megakernel of seed 000 (appendix B.1) over the surface
// estimator: schedules/naive.cuh instantiated for SurfaceEstimator (naive_surface). One thread
// per pixel traces this launch's samples of its pixel, whole paths from generate to
// termination (surface/estimator.cuh: generate, extend — illuminate, bounce), then adds its
// sums to the film. Its own program, so `--strategy naive` compiles only this.
#include "schedules/kernels.cuh"
#include "surface/stages.cuh"

WARPATH_NAIVE_KERNEL(SurfaceEstimator, surface)
