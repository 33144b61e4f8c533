// schedules/kernels.cuh — the instantiation lists: every schedule kernel for one estimator
// E, as extern "C" entry points named <kernel>_<NAME> (the Rust side's typed launches name
// them through the catalog, ScheduleKernels in crates/warpath-cuda/src/catalog/list.rs). A new
// estimator gets every schedule with one line per family program:
//   WARPATH_NAIVE_KERNEL(SurfaceEstimator, surface)         (surface_megakernel.cu)
//   WARPATH_NAIVE_WAVE_KERNELS(SurfaceEstimator, surface)   (surface_naive_waves.cu)
//   WARPATH_WAVEFRONT_KERNELS(SurfaceEstimator, surface)    (surface_wavefront.cu)
//   WARPATH_REGENERATION_KERNELS(SurfaceEstimator, surface) (surface_regeneration.cu)
//   WARPATH_TILED_KERNELS(SurfaceEstimator, surface)        (surface_tiled.cu)
//   WARPATH_STREAMING_KERNELS(SurfaceEstimator, surface)    (surface_streaming.cu)
// extern "C" functions cannot be templates, hence the two macros; everything they call is.
#pragma once
#include "schedules/naive.cuh"
#include "schedules/regeneration.cuh"
#include "schedules/streaming.cuh"
#include "schedules/tiled.cuh"
#include "schedules/wavefront.cuh"

// Register bounds (seed 003 Table 4.4; warpath_cuda::KernelVariant). By default each kernel
// declares only its block size and ptxas chooses the registers. With WARPATH_MAX_REGISTERS
// defined, a kernel of B threads per block declares the blocks per SM that bound its
// registers to that many (65536 registers an SM: __launch_bounds__(B, 65536 / (R · B))), and
// the naive megakernel, launched with any block shape, takes the bound itself (__maxnreg__).
//
// An estimator's program may also pin its schedule kernels' registers by defining
// WARPATH_SCHEDULE_REGISTERS before this header (the volume programs: 128). Without any bound
// ptxas's choice for the volume kernels swings between 64, 80 and 128 registers with
// unrelated changes of the estimator's code (docs/benchmarks/volume-schedules.md), which
// would make schedules compiled from one source incomparable. The naive megakernel stays
// unbounded either way (seed 003's baseline).
#ifdef WARPATH_MAX_REGISTERS
#define WARPATH_BOUNDS(B) __launch_bounds__(B, (65536 / (WARPATH_MAX_REGISTERS * (B))) > 0 ? (65536 / (WARPATH_MAX_REGISTERS * (B))) : 1)
#define WARPATH_NAIVE_BOUNDS __maxnreg__(WARPATH_MAX_REGISTERS)
#elif defined(WARPATH_SCHEDULE_REGISTERS)
#define WARPATH_BOUNDS(B) __launch_bounds__(B, (65536 / (WARPATH_SCHEDULE_REGISTERS * (B))) > 0 ? (65536 / (WARPATH_SCHEDULE_REGISTERS * (B))) : 1)
#define WARPATH_NAIVE_BOUNDS
#else
#define WARPATH_BOUNDS(B) __launch_bounds__(B)
#define WARPATH_NAIVE_BOUNDS
#endif

// The naive megakernel (schedules/naive.cuh): a 2D grid of pixels, any block shape.
#define WARPATH_NAIVE_KERNEL(E, NAME)                                                                  \
    extern "C" __global__ void WARPATH_NAIVE_BOUNDS naive_##NAME(ScheduleArgs<E> a, unsigned int sample_count) { \
        naive_render<E>(a, sample_count);                                                              \
    }

// The naive schedule's wave forms (schedules/naive.cuh), a program of their own (`<e>_naive_waves.cu`)
// so the megakernel's stays small: one thread per wave index (the image tiles of seed 003
// Table 4.2) and naiveMK's two kernels (Table 4.1), 1D grids of NAIVE_WAVE_BLOCK threads.
#define NAIVE_WAVE_BLOCK 256
#define WARPATH_NAIVE_WAVE_KERNELS(E, NAME)                                                            \
    extern "C" __global__ void WARPATH_BOUNDS(NAIVE_WAVE_BLOCK) naive_wave_##NAME(ScheduleArgs<E> a) {  \
        naive_wave<E>(a);                                                                              \
    }                                                                                                  \
    extern "C" __global__ void WARPATH_BOUNDS(NAIVE_WAVE_BLOCK)                                        \
        naive_mk_first_##NAME(ScheduleArgs<E> a, typename E::Stored* paths) {                          \
        naive_mk_first<E>(a, paths);                                                                   \
    }                                                                                                  \
    extern "C" __global__ void WARPATH_BOUNDS(NAIVE_WAVE_BLOCK)                                        \
        naive_mk_rest_##NAME(ScheduleArgs<E> a, typename E::Stored* paths) {                           \
        naive_mk_rest<E>(a, paths);                                                                    \
    }

#define WARPATH_WAVEFRONT_KERNEL(E, NAME, METHOD_NAME, METHOD)                                         \
    extern "C" __global__ void WARPATH_BOUNDS(WAVEFRONT_BLOCK)                                      \
        wavefront_extend_##METHOD_NAME##_##NAME(ScheduleArgs<E> a, WavefrontBuffers b, unsigned int in_count, \
                                                unsigned int first) {                                  \
        using Stored = typename E::Stored;                                                             \
        wavefront_extend<E, METHOD>(a, static_cast<const Stored*>(b.input), static_cast<Stored*>(b.output), b.flags, \
                                    static_cast<Stored*>(b.intermediate), b.state, in_count, first != 0); \
    }

// The schedules by family, one program each (`<estimator>_<family>.cu`), so that a render
// compiles only the family its strategy uses: wavefront variants, regeneration, tiled,
// streaming.
#define WARPATH_WAVEFRONT_KERNELS(E, NAME)                                                             \
    WARPATH_WAVEFRONT_KERNEL(E, NAME, none, WAVEFRONT_NONE)                                            \
    WARPATH_WAVEFRONT_KERNEL(E, NAME, collate, WAVEFRONT_COLLATE)                                      \
    WARPATH_WAVEFRONT_KERNEL(E, NAME, lookback, WAVEFRONT_LOOKBACK)                                    \
    WARPATH_WAVEFRONT_KERNEL(E, NAME, separate, WAVEFRONT_SEPARATE)                                    \
    WARPATH_WAVEFRONT_KERNEL(E, NAME, sorted, WAVEFRONT_SORTED)                                        \
    WARPATH_WAVEFRONT_KERNEL(E, NAME, sections, WAVEFRONT_SECTIONS)

#define WARPATH_REGENERATION_KERNELS(E, NAME)                                                          \
    extern "C" __global__ void WARPATH_BOUNDS(REGEN_BLOCK_SIZE) regen_thread_##NAME(ScheduleArgs<E> a) { \
        regen_persistent<E, REGEN_THREAD>(a);                                                          \
    }                                                                                                  \
    extern "C" __global__ void WARPATH_BOUNDS(REGEN_BLOCK_SIZE) regen_warp_##NAME(ScheduleArgs<E> a) { \
        regen_persistent<E, REGEN_WARP>(a);                                                            \
    }                                                                                                  \
    extern "C" __global__ void WARPATH_BOUNDS(REGEN_BLOCK_SIZE) regen_block_##NAME(ScheduleArgs<E> a) { \
        regen_persistent<E, REGEN_BLOCK>(a);                                                           \
    }                                                                                                  \
    extern "C" __global__ void WARPATH_BOUNDS(REGEN_BLOCK_SIZE)                                     \
        regen_device_fill_##NAME(ScheduleArgs<E> a, typename E::Stored* pool, unsigned int pool_size) { \
        regen_device_fill<E>(a, pool, pool_size);                                                      \
    }                                                                                                  \
    extern "C" __global__ void WARPATH_BOUNDS(REGEN_BLOCK_SIZE)                                     \
        regen_device_extend_##NAME(ScheduleArgs<E> a, typename E::Stored* pool, unsigned int pool_size) { \
        regen_device_extend<E>(a, pool, pool_size);                                                    \
    }

#define WARPATH_TILED_KERNELS(E, NAME)                                                                 \
    extern "C" __global__ void WARPATH_BOUNDS(TILED_THREADS)                                        \
        tiled_global_##NAME(ScheduleArgs<E> a, typename E::Stored* path_memory) {                      \
        tiled_render<E>(a, path_memory + (size_t)blockIdx.x * TILED_PATHS);                            \
    }                                                                                                  \
    extern "C" __global__ void WARPATH_BOUNDS(TILED_THREADS) tiled_shared_##NAME(ScheduleArgs<E> a) { \
        __shared__ typename E::Stored tile_paths[TILED_PATHS];                                         \
        tiled_render<E>(a, tile_paths);                                                                \
    }

#define WARPATH_STREAMING_KERNELS(E, NAME)                                                             \
    extern "C" __global__ void WARPATH_BOUNDS(STREAMING_BLOCK)                                      \
        streaming_sk_scan_##NAME(ScheduleArgs<E> a, typename E::Stored* pool) {                        \
        streaming_sk<E, false>(a, pool);                                                               \
    }                                                                                                  \
    extern "C" __global__ void WARPATH_BOUNDS(STREAMING_BLOCK)                                      \
        streaming_sk_sorted_##NAME(ScheduleArgs<E> a, typename E::Stored* pool) {                      \
        streaming_sk<E, true>(a, pool);                                                                \
    }                                                                                                  \
    extern "C" __global__ void WARPATH_BOUNDS(STREAMING_BLOCK)                                      \
        streaming_sk_sorting_##NAME(ScheduleArgs<typename E::Deferred> a, typename E::Stored* pool) {   \
        streaming_sk<typename E::Deferred, true>(a, pool);                                             \
    }                                                                                                  \
    extern "C" __global__ void streaming_mk_regen_##NAME(ScheduleArgs<E> a, typename E::Stored* out,   \
                                                         unsigned int live, unsigned int next,         \
                                                         unsigned int count) {                         \
        streaming_mk_regen<E>(a, out, live, next, count);                                              \
    }
