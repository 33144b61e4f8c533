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

impl SceneError {
    /// The error with help added where a name was mistyped (the closest valid name, from the
    /// list the message gives) or an asset is missing (the `scripts/fetch-assets` command that
    /// fetches it).
    pub fn with_help(self) -> SceneError {
        match self {
            SceneError::Parse { path, line, message } => SceneError::Parse { path, line, message: add_help(message) },
            SceneError::Invalid { path, message } => SceneError::Invalid { path, message: add_help(message) },
            SceneError::NotFound { path, hint } => {
                let hint = match fetch_assets_hint(&path.to_string_lossy()) {
                    Some(fetch) => format!("{hint}; {fetch}"),
                    None => add_help(hint),
                };
                SceneError::NotFound { path, hint }
            }
            other => other,
        }
    }
}

/// `message` with "did you mean" and fetch-assets help appended where they apply.
fn add_help(message: String) -> String {
    let mut message = message;
    if let Some(fetch) = fetch_assets_hint(&message) {
        message = format!("{message}; {fetch}");
    } else if let Some(suggestion) = suggestion_for(&message) {
        message = format!("{message}; did you mean '{suggestion}'?");
    }
    message
}

/// For a missing file under `assets/` (the data `scripts/fetch-assets` downloads), the command
/// that fetches it.
pub fn fetch_assets_hint(text: &str) -> Option<String> {
    let rest = &text[text.find("assets/")? + "assets/".len()..];
    let name = match rest.split('/').next()? {
        "dragon" => "dragon",
        "bunny" => "bunny",
        "hdri" => "hdri",
        "print" => "print",
        "volumes" if rest.contains("ch2better") => "mri",
        "volumes" if rest.contains("mni152") => "mni152",
        "volumes" if rest.contains("frog") => "frog",
        _ => return None,
    };
    Some(format!("fetch it with `scripts/fetch-assets {name}` (docs/assets.md)"))
}

/// In a message naming an unknown word and the valid ones — serde's "unknown field `x`,
/// expected one of `a`, `b`" or warpath's "unknown material type 'x' (expected a, b or c)" —
/// the valid word closest to the unknown one, if one is close enough to be a typo.
fn suggestion_for(message: &str) -> Option<String> {
    let start = message.find("unknown ")?;
    let rest = &message[start..];
    let quote = rest.find(['`', '\''])?;
    let q = rest[quote..].chars().next()?;
    let word_start = quote + 1;
    let word_end = word_start + rest[word_start..].find(q)?;
    let word = &rest[word_start..word_end];
    let after = &rest[word_end + 1..];
    let expected = &after[after.find("expected")? + "expected".len()..];
    let candidates = expected
        .trim_start_matches(" one of")
        .split([',', '`', '(', ')', '\''])
        .flat_map(|part| part.split(" or "))
        .map(str::trim)
        .filter(|c| !c.is_empty() && !c.contains(' '));
    closest(word, candidates).map(str::to_string)
}

/// The candidate closest to `word` in edit distance, if within a typo's reach (1 edit for
/// short words, about a third of the word for longer ones) and not `word` itself.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let reach = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|&(d, _)| d > 0 && d <= reach)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Edit distance by characters: insertions, deletions, substitutions and transpositions of
/// neighbours (`fvo` → `fov` is one edit), each string edited once (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for j in 0..=b.len() {
        d[0][j] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = (a[i - 1] != b[j - 1]) as usize;
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_get_the_closest_valid_name() {
        let serde = "unknown field `fvo`, expected one of `look_at`, `to_world`, `fov`, `fov_axis`".to_string();
        assert!(add_help(serde).ends_with("did you mean 'fov'?"));
        let ours = "unknown material type 'difuse' (expected diffuse, blinn, glass, mirror, null or black)";
        assert!(add_help(ours.into()).ends_with("did you mean 'diffuse'?"));
        let far = "unknown shape type 'teapot' (expected mesh, rectangle, cube, sphere or isosurface)";
        assert_eq!(add_help(far.into()), far, "nothing close: no guess");
        assert_eq!(closest("cornel", ["cornell", "cornell-glass", "furnace"]), Some("cornell"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("fvo", "fov"), 1);
    }

    #[test]
    fn missing_assets_name_the_fetch_command() {
        let hint = fetch_assets_hint("mesh file 'scenes/../assets/bunny/bunny.obj' not found").unwrap();
        assert!(hint.contains("scripts/fetch-assets bunny"), "{hint}");
        assert!(fetch_assets_hint("assets/volumes/ch2better.nii.gz").unwrap().contains("fetch-assets mri"));
        assert_eq!(fetch_assets_hint("scenes/mine.toml"), None);
    }
}
