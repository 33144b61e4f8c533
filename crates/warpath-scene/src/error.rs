//! Scene loading errors. Every variant says which file and, where it applies, which
//! line, so a user can fix the input without reading our source.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error("{}: {hint}", path.display())]
    NotFound { path: PathBuf, hint: String },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// A syntax or content error at a known line (1-based).
    #[error("{}:{line}: {message}", path.display())]
    Parse { path: PathBuf, line: usize, message: String },
    /// A content error where no line applies (binary formats, whole-file checks).
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{}: unsupported file type (expected {expected})", path.display())]
    Unsupported { path: PathBuf, expected: String },
}
