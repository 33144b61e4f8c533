//! The shared TOML test scenes: one file per scene under `crates/warpath-testkit/scenes/`,
//! named by what it shows (`volume-slab.toml`, `gpu-volume.toml`, …). Tests read a scene's
//! text with [`scene_text`] and parse it themselves (`warpath_scene::toml_scene`), so that the
//! path they pass to the parser — which locates errors and relative asset names — stays
//! theirs. Each file's first line is a comment saying what the scene is for; where a test
//! asserts error lines, that comment stands where the inline text had its leading newline,
//! so the line numbers are the same as before.

use std::path::PathBuf;

/// The folder that holds the shared test scenes.
pub fn scenes_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes")
}

/// The path of the shared test scene `name` (a file name such as `"volume-slab.toml"`).
/// Panics, listing the scenes there are, if there is no such file.
pub fn scene_path(name: &str) -> PathBuf {
    let path = scenes_dir().join(name);
    if !path.is_file() {
        panic!("no shared test scene '{name}' in {}; there are: {}", scenes_dir().display(), scene_names().join(", "));
    }
    path
}

/// The text of the shared test scene `name` (see [`scene_path`]).
pub fn scene_text(name: &str) -> String {
    let path = scene_path(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The file names in [`scenes_dir`], sorted.
pub fn scene_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(scenes_dir())
        .map(|entries| entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scene_is_a_toml_file_with_a_leading_comment() {
        let names = scene_names();
        assert!(!names.is_empty(), "no scenes in {}", scenes_dir().display());
        for name in names {
            assert!(name.ends_with(".toml"), "{name}: the scenes folder holds TOML scenes only");
            assert!(scene_text(&name).starts_with("# "), "{name}: the first line says what the scene is for");
        }
    }

    #[test]
    #[should_panic(expected = "no shared test scene 'no-such-scene.toml'")]
    fn a_missing_scene_names_itself() {
        scene_path("no-such-scene.toml");
    }
}
