//! Errors of the CUDA backend. Every failure a user or a machine can cause (no driver, no
//! device, no NVRTC, a kernel that does not compile, out of memory, a kernel that faults)
//! is a [`CudaError`] with a message that says what happened and what to do; nothing here
//! panics on such input.

use thiserror::Error;

/// Result alias of the CUDA backend.
pub type CudaResult<T> = Result<T, CudaError>;

#[derive(Debug, Error)]
pub enum CudaError {
    /// No usable GPU: the driver library is missing, no device is present, or the ordinal
    /// is out of range.
    #[error("no CUDA device: {reason}")]
    NoDevice { reason: String },

    /// The NVRTC library (`libnvrtc.so.13`) could not be loaded.
    #[error(
        "NVRTC is not available: {reason}. Install the CUDA toolkit or the pip wheel `nvidia-cuda-nvrtc` \
         (13.0.x) and put the folder holding libnvrtc.so.13 on LD_LIBRARY_PATH"
    )]
    NvrtcUnavailable { reason: String },

    /// NVRTC rejected a kernel source; `log` is the compiler's output.
    #[error("NVRTC failed to compile `{program}` for {arch} ({status}) with options {options:?}:\n{log}")]
    Compile { program: String, arch: String, status: String, options: Vec<String>, log: String },

    /// A device allocation that cannot fit (or that the driver refused).
    #[error(
        "out of GPU memory allocating {what}: asked {asked_mib:.1} MiB, {free_mib:.1} MiB free of {total_mib:.1} MiB"
    )]
    OutOfMemory { what: String, asked_mib: f64, free_mib: f64, total_mib: f64 },

    /// A CUDA driver call failed.
    #[error("CUDA driver error in {context}: {message}")]
    Driver { context: String, message: String },

    /// A kernel failed to launch or faulted while running.
    #[error("kernel `{kernel}` failed: {message}")]
    Kernel { kernel: String, message: String },

    /// A host-side argument is inconsistent (sizes that do not match, too many elements).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// A BVH that cannot be converted to the GPU layout.
    #[error("invalid BVH for the GPU layout: {0}")]
    InvalidBvh(String),

    /// The on-disk kernel cache could not be used (only reported where asked for; a cache
    /// failure never stops a compilation).
    #[error("kernel cache at {path}: {message}")]
    Cache { path: String, message: String },
}

impl CudaError {
    /// Wraps a cudarc driver error with the operation it came from.
    pub(crate) fn driver(context: impl Into<String>, error: cudarc::driver::DriverError) -> Self {
        CudaError::Driver { context: context.into(), message: describe_driver_error(&error) }
    }
}

/// `CUDA_ERROR_X (explanation)` for a driver error, without calling into a driver that may
/// be in a bad state more than needed.
pub(crate) fn describe_driver_error(error: &cudarc::driver::DriverError) -> String {
    let name = format!("{:?}", error.0);
    match error.error_string() {
        Ok(text) => format!("{name} ({})", text.to_string_lossy()),
        Err(_) => name,
    }
}

/// Whether a driver error is `CUDA_ERROR_OUT_OF_MEMORY`.
pub(crate) fn is_out_of_memory(error: &cudarc::driver::DriverError) -> bool {
    error.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY
}

/// Bytes to MiB for messages.
pub(crate) fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
