//! The errors of the front door: what a caller (the CLI, Python, a multi-GPU driver) can tell
//! apart — a scene it could not read, a setting that does not fit, a device that failed —
//! each with a message that says what and where.

use warpath_core::limits::LimitError;
use warpath_cuda::CudaError;
use warpath_scene::SceneError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The scene file or built-in scene could not be read (names the file and line).
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A setting is out of range or does not fit the scene or the integrator.
    #[error("{0}")]
    Invalid(String),
    /// The image (film, outputs) does not fit the memory this process can get.
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// The GPU, its driver or a kernel failed.
    #[error(transparent)]
    Cuda(#[from] CudaError),
}

impl Error {
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::Invalid(message.into())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
