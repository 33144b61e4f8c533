//! The one place that chooses where a render runs: the CPU, or a CUDA device. `auto` takes the
//! GPU when a device opens and says why it fell back to the CPU when none does.

use crate::error::Result;
use warpath_cuda::CudaDevice;

/// What the caller asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    /// CUDA device 0 when it opens, else the CPU.
    #[default]
    Auto,
    /// The CPU reference renderer (rayon, every core).
    Cpu,
    /// CUDA device `ordinal`; an error when it does not open.
    Cuda(usize),
}

impl BackendChoice {
    pub fn from_name(name: &str) -> Option<BackendChoice> {
        match name {
            "auto" => Some(BackendChoice::Auto),
            "cpu" => Some(BackendChoice::Cpu),
            "cuda" => Some(BackendChoice::Cuda(0)),
            _ => name.strip_prefix("cuda:").and_then(|n| n.parse().ok()).map(BackendChoice::Cuda),
        }
    }
}

/// Where a render runs, opened.
pub enum Backend {
    Cpu,
    Cuda(CudaDevice),
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Backend {
    /// Opens the backend `choice` names. With [`BackendChoice::Auto`] and no usable GPU, the
    /// CPU, and the reason the GPU was not taken (for the caller to show as a note).
    pub fn open(choice: BackendChoice) -> Result<(Backend, Option<String>)> {
        match choice {
            BackendChoice::Cpu => Ok((Backend::Cpu, None)),
            BackendChoice::Cuda(ordinal) => Ok((Backend::Cuda(CudaDevice::open(ordinal)?), None)),
            BackendChoice::Auto => match CudaDevice::open(0) {
                Ok(device) => Ok((Backend::Cuda(device), None)),
                Err(e) => Ok((Backend::Cpu, Some(format!("{e}; using the CPU")))),
            },
        }
    }

    pub fn device(&self) -> Option<&CudaDevice> {
        match self {
            Backend::Cpu => None,
            Backend::Cuda(device) => Some(device),
        }
    }

    pub fn is_gpu(&self) -> bool {
        matches!(self, Backend::Cuda(_))
    }

    /// `cpu` or `cuda` (for metadata and summaries).
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Cuda(_) => "cuda",
        }
    }

    /// `cpu (8 threads)` or `cuda (NVIDIA H100 80GB HBM3, 132 SMs, driver CUDA 13.0)`.
    pub fn describe(&self) -> String {
        match self {
            Backend::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
            Backend::Cuda(device) => {
                let info = device.info();
                format!(
                    "cuda ({}, {} SMs, driver CUDA {})",
                    info.name,
                    info.multiprocessors,
                    info.driver_version_string()
                )
            }
        }
    }
}
