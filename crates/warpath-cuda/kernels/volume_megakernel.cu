// volume_megakernel.cu — the naive megakernel (seed 000 B.1, seed 003's naiveSK) over the
// volumetric estimator: schedules/naive.cuh instantiated for VolumeEstimator (naive_volume).
// One thread per pixel traces this launch's samples of its pixel, whole paths from generate
// to termination (volume/estimator.cuh), then adds its sums to the film. Its own program, so
// `--strategy naive` on a volume scene compiles only this.
//
// Also volume_layout_report: sizeof/offsetof of GpuMedium and DeviceVolumeSceneArgs as the
// device compiler sees them, for the GPU layout test.
#include "schedules/kernels.cuh"
#include "volume/estimator.cuh"

WARPATH_NAIVE_KERNEL(VolumeEstimator, volume)

// Sizes and field offsets, in the order of warpath_cuda::volume_upload::layout_entries.
extern "C" __global__ void volume_layout_report(unsigned long long* values, unsigned int capacity,
                                                unsigned int* written) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const unsigned long long report[] = {
        sizeof(GpuMedium),
        WARPATH_OFFSETOF(GpuMedium, kind),
        WARPATH_OFFSETOF(GpuMedium, gray),
        WARPATH_OFFSETOF(GpuMedium, albedo_kind),
        WARPATH_OFFSETOF(GpuMedium, albedo_channels),
        WARPATH_OFFSETOF(GpuMedium, sigma_t),
        WARPATH_OFFSETOF(GpuMedium, scale),
        WARPATH_OFFSETOF(GpuMedium, albedo),
        WARPATH_OFFSETOF(GpuMedium, g),
        WARPATH_OFFSETOF(GpuMedium, world_to_local),
        WARPATH_OFFSETOF(GpuMedium, density_resolution),
        WARPATH_OFFSETOF(GpuMedium, density_offset),
        WARPATH_OFFSETOF(GpuMedium, albedo_resolution),
        WARPATH_OFFSETOF(GpuMedium, albedo_offset),
        WARPATH_OFFSETOF(GpuMedium, majorant_resolution),
        WARPATH_OFFSETOF(GpuMedium, majorant_offset),
        WARPATH_OFFSETOF(GpuMedium, density_texture),
        WARPATH_OFFSETOF(GpuMedium, albedo_texture),
        sizeof(DeviceVolumeSceneArgs),
        WARPATH_OFFSETOF(DeviceVolumeSceneArgs, surface),
        WARPATH_OFFSETOF(DeviceVolumeSceneArgs, media),
        WARPATH_OFFSETOF(DeviceVolumeSceneArgs, grid_data),
        WARPATH_OFFSETOF(DeviceVolumeSceneArgs, triangle_media),
        WARPATH_OFFSETOF(DeviceVolumeSceneArgs, medium_count),
        WARPATH_OFFSETOF(DeviceVolumeSceneArgs, camera_medium),
        WARPATH_OFFSETOF(DeviceVolumeSceneArgs, counter_slots),
        WARPATH_OFFSETOF(DeviceVolumeSceneArgs, _pad),
    };
    const unsigned int n = sizeof(report) / sizeof(report[0]);
    for (unsigned int i = 0; i < n && i < capacity; ++i) values[i] = report[i];
    *written = n;
}
