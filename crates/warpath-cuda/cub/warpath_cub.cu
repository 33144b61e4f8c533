// warpath_cub.cu — CUB's DeviceSelect::Flagged as a small C library (libwarpath_cub.so), so
// that the isosurface pipeline (issue 14, seed 001) can compact its rays between stages with
// CUB, the library seed 001 compares against (it names Thrust and Chag::PP; CUB is what
// Thrust's copy_if runs on). warpath's kernels are compiled by NVRTC, which cannot compile
// CUB's host-side dispatch, so this one is built by nvcc (build.sh library) and opened at run
// time by crates/warpath-cuda/src/cub_library.rs; CI has no nvcc and does not build it.
//
// The runtime API here runs in the context current on the calling thread: the device's
// primary context, the one warpath's cudarc device uses, so device addresses pass through.
// Every function returns a cudaError_t as int (0 = success).
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <cstddef>

extern "C" {

// The interface version the Rust side checks (bump on any change of a signature below).
int warpath_cub_abi_version() { return 1; }

// Temporary bytes that warpath_cub_select_flagged needs for n items.
int warpath_cub_select_flagged_bytes(unsigned int n, size_t* bytes) {
    size_t needed = 0;
    cudaError_t status = cub::DeviceSelect::Flagged(nullptr, needed, static_cast<const unsigned int*>(nullptr),
                                                    static_cast<const unsigned char*>(nullptr),
                                                    static_cast<unsigned int*>(nullptr),
                                                    static_cast<unsigned int*>(nullptr), static_cast<int>(n));
    *bytes = needed;
    return static_cast<int>(status);
}

// out[0..count) = the in[i] with flags[i] != 0, in order; *count written on the device;
// asynchronous on `stream` (a CUstream / cudaStream_t).
int warpath_cub_select_flagged(void* temp, size_t temp_bytes, const unsigned int* in, const unsigned char* flags,
                               unsigned int* out, unsigned int* count, unsigned int n, void* stream) {
    size_t bytes = temp_bytes;
    cudaError_t status = cub::DeviceSelect::Flagged(temp, bytes, in, flags, out, count, static_cast<int>(n),
                                                    static_cast<cudaStream_t>(stream));
    return static_cast<int>(status);
}

// The runtime's text for an error code of the functions above.
const char* warpath_cub_error_string(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }
}
