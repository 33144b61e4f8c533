//! Errors of the volume loaders: each names the file and what is wrong with it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum VolumeError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file's contents do not make a valid volume.
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
    /// Dimensions or values that are valid in the file but not usable (too large, negative).
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

impl VolumeError {
    pub fn format(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        VolumeError::Format { path: path.into(), message: message.into() }
    }

    pub fn invalid(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        VolumeError::Invalid { path: path.into(), message: message.into() }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        VolumeError::Io { path: path.into(), source }
    }
}
