//! (in progress)
use crate::{Scene, SceneError};
use std::path::Path;
pub fn load_any(path: &Path) -> Result<Scene, SceneError> {
    let _ = path;
    todo!()
}
