//! Render output, in one place for every backend: the output paths are checked before a
//! render starts ([`check_outputs`]); the finished film is written as linear float EXR
//! (with metadata: samples per pixel reached, interrupted or not, seed, scene, warpath
//! version and commit) or tone-mapped sRGB PNG ([`save_render`]); and when writing fails
//! anyway, the render goes to a fallback file in the working directory (or the temporary
//! folder), so a finished render is never lost. Files are written to a temporary name beside
//! the target and renamed, so an interrupted write never leaves a truncated image where a
//! good one was.

use anyhow::{Context, Result, bail};
use glam::Vec3;
use std::path::{Path, PathBuf};
use warpath_core::film::Film;

/// Where a render's images go: checked, before the render, to be writable.
#[derive(Clone, Debug)]
pub struct OutputPaths {
    /// The image: `.exr` (linear) or `.png` (tone-mapped).
    pub image: PathBuf,
    /// The per-pixel variance of the mean, always `.exr`.
    pub variance: Option<PathBuf>,
}

/// What an EXR records about the render that made it.
#[derive(Clone, Debug)]
pub struct RenderMetadata {
    pub spp_done: u32,
    pub spp_requested: u32,
    pub interrupted: bool,
    pub seed: u32,
    pub max_depth: u32,
    pub sampler: String,
    pub backend: String,
    /// The scene argument as given (a built-in name or a path).
    pub scene: String,
}

/// The warpath version and the commit it was built from (`build.rs`), for metadata.
pub fn version_and_commit() -> (&'static str, &'static str) {
    (env!("CARGO_PKG_VERSION"), env!("WARPATH_COMMIT"))
}

use warpath_render::image_file::{extension, temporary_path};

/// Checks, before rendering, that the image and variance files can be written: their
/// extensions, that their folder exists or can be made, and that a file can be created there
/// (the temporary file the writer will use is created and removed; an existing image is
/// left untouched).
pub fn check_outputs(image: &Path, variance: Option<&Path>) -> Result<OutputPaths> {
    let ext = extension(image);
    if ext != "exr" && ext != "png" {
        bail!("{}: unsupported output format (use .exr or .png)", image.display());
    }
    if let Some(variance) = variance {
        if extension(variance) != "exr" {
            bail!(
                "{}: --variance-output must be an .exr file (linear float variance, what `warpath compare` reads); \
                 a PNG would be tone-mapped",
                variance.display()
            );
        }
        if variance == image {
            bail!("{}: the image and --variance-output are the same file", image.display());
        }
    }
    for path in std::iter::once(image).chain(variance) {
        check_writable(path)?;
    }
    Ok(OutputPaths { image: image.to_path_buf(), variance: variance.map(Path::to_path_buf) })
}

fn check_writable(path: &Path) -> Result<()> {
    if path.is_dir() {
        bail!("{}: is a folder, not an image file", path.display());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the output folder {}", path.display(), dir.display()))?;
    }
    let probe = temporary_path(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .or_else(|e| match e.kind() {
            // Left over from an earlier run: it may be replaced.
            std::io::ErrorKind::AlreadyExists => std::fs::OpenOptions::new().write(true).open(&probe),
            _ => Err(e),
        })
        .with_context(|| format!("{}: cannot create a file in its folder", path.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// What [`save_render`] wrote.
pub struct SaveReport {
    /// Files written where they were asked for.
    pub written: Vec<PathBuf>,
    /// Files that could not be written, why, and where their content went instead.
    pub rescued: Vec<(PathBuf, String, PathBuf)>,
}

/// Writes the film's mean (and variance, if asked) to `outputs`. A file that cannot be
/// written is saved as an EXR in the working directory instead (or, if that fails too, in
/// the temporary folder); only when every place fails is the result an error.
pub fn save_render(
    outputs: &OutputPaths,
    film: &Film,
    exposure_stops: f32,
    metadata: &RenderMetadata,
) -> Result<SaveReport> {
    let fallback_folders: Vec<PathBuf> = std::env::current_dir().into_iter().chain([std::env::temp_dir()]).collect();
    save_render_with_fallback(outputs, film, exposure_stops, metadata, &fallback_folders)
}

/// [`save_render`] with the folders to try, in order, for a file that cannot be written.
fn save_render_with_fallback(
    outputs: &OutputPaths,
    film: &Film,
    exposure_stops: f32,
    metadata: &RenderMetadata,
    fallback_folders: &[PathBuf],
) -> Result<SaveReport> {
    let (width, height) = (film.width, film.height);
    let mut report = SaveReport { written: Vec::new(), rescued: Vec::new() };
    let mut jobs: Vec<(&Path, Vec<Vec3>, f32, &str)> = vec![(&outputs.image, film.mean(), exposure_stops, "image")];
    if let Some(variance) = &outputs.variance {
        jobs.push((variance, film.variance_of_mean(), 0.0, "variance"));
    }
    for (path, pixels, exposure, what) in jobs {
        match write_image(path, width, height, &pixels, exposure, Some(metadata)) {
            Ok(()) => report.written.push(path.to_path_buf()),
            Err(error) => {
                let reason = format!("{error:#}");
                let rescue = rescue_image(path, width, height, &pixels, metadata, what, fallback_folders)
                    .with_context(|| format!("{reason}; saving the {what} elsewhere failed too"))?;
                report.rescued.push((path.to_path_buf(), reason, rescue));
            }
        }
    }
    Ok(report)
}

/// Writes `pixels` as `warpath-rescued-<name>-<what>-<time>-<pid>.exr` in the first of
/// `folders` that takes it; returns the path written.
fn rescue_image(
    original: &Path,
    width: u32,
    height: u32,
    pixels: &[Vec3],
    metadata: &RenderMetadata,
    what: &str,
    folders: &[PathBuf],
) -> Result<PathBuf> {
    let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let stem = original.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = format!("warpath-rescued-{stem}-{what}-{seconds}-{}.exr", std::process::id());
    let mut last_error = None;
    for folder in folders {
        let path = folder.join(&name);
        match write_image(&path, width, height, pixels, 0.0, Some(metadata)) {
            Ok(()) => return Ok(path),
            Err(e) => last_error = Some(e),
        }
    }
    Err(last_error.unwrap_or_else(|| anyhow::anyhow!("no folder to write to")))
}

/// Writes one image: `.exr` as linear float RGB with `metadata` as header attributes,
/// `.png` as sRGB scaled by 2^`exposure_stops` and clamped.
pub fn write_image(
    path: &Path,
    width: u32,
    height: u32,
    pixels: &[Vec3],
    exposure_stops: f32,
    metadata: Option<&RenderMetadata>,
) -> Result<()> {
    let attributes = metadata.map(exr_attributes).unwrap_or_default();
    Ok(warpath_render::image_file::write_image(path, width, height, pixels, exposure_stops, attributes)?)
}

/// EXR header attributes named `warpath.*` (read them with any EXR tool, e.g. `exrheader`).
fn exr_attributes(m: &RenderMetadata) -> Vec<(exr::meta::attribute::Text, exr::meta::attribute::AttributeValue)> {
    use exr::meta::attribute::{AttributeValue, Text};
    // EXR text is Latin-1: other characters become '?'.
    let text = |s: &str| {
        let latin1: String = s.chars().map(|c| if (c as u32) < 256 { c } else { '?' }).collect();
        AttributeValue::Text(Text::new_or_none(latin1).unwrap_or_else(|| Text::from("?")))
    };
    let (version, commit) = version_and_commit();
    let int = |v: u32| AttributeValue::I32(v.min(i32::MAX as u32) as i32);
    vec![
        (Text::from("warpath.spp"), int(m.spp_done)),
        (Text::from("warpath.sppRequested"), int(m.spp_requested)),
        (Text::from("warpath.interrupted"), text(if m.interrupted { "yes" } else { "no" })),
        (Text::from("warpath.seed"), text(&m.seed.to_string())),
        // -1 for no limit, as a scene file writes it.
        (
            Text::from("warpath.maxDepth"),
            if m.max_depth == warpath_scene::UNLIMITED_DEPTH { AttributeValue::I32(-1) } else { int(m.max_depth) },
        ),
        (Text::from("warpath.sampler"), text(&m.sampler)),
        (Text::from("warpath.backend"), text(&m.backend)),
        (Text::from("warpath.scene"), text(&m.scene)),
        (Text::from("warpath.version"), text(version)),
        (Text::from("warpath.commit"), text(commit)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata() -> RenderMetadata {
        RenderMetadata {
            spp_done: 3,
            spp_requested: 3,
            interrupted: false,
            seed: 7,
            max_depth: 8,
            sampler: "pcg".into(),
            backend: "cpu".into(),
            scene: "test".into(),
        }
    }

    fn film() -> Film {
        let mut film = Film::new(4, 2);
        for i in 0..8 {
            for s in 0..3 {
                film.add_sample(i, Vec3::splat((i * 3 + s) as f32));
            }
        }
        film
    }

    fn read_rgb(path: &Path) -> Vec<Vec3> {
        warpath_scene::image_io::load_image(path).unwrap().pixels
    }

    #[test]
    fn a_render_whose_output_became_unwritable_is_saved_beside() {
        let dir = tempfile::tempdir().unwrap();
        // Checked while writable; then the folder is replaced by a file, so no file can be
        // created under it, whoever runs the test.
        let folder = dir.path().join("out");
        let outputs = check_outputs(&folder.join("image.png"), Some(&folder.join("var.exr"))).unwrap();
        std::fs::remove_dir(&folder).unwrap();
        std::fs::write(&folder, b"a file now").unwrap();
        let rescue_folder = dir.path().join("rescue");
        std::fs::create_dir(&rescue_folder).unwrap();
        let unusable = dir.path().join("out").join("deeper");
        let film = film();
        let report =
            save_render_with_fallback(&outputs, &film, 0.0, &metadata(), &[unusable, rescue_folder.clone()]).unwrap();
        assert!(report.written.is_empty());
        assert_eq!(report.rescued.len(), 2);
        let (original, reason, rescued) = &report.rescued[0];
        assert_eq!(original, &outputs.image);
        assert!(reason.contains("image.png"), "{reason}");
        assert!(rescued.starts_with(&rescue_folder), "{}", rescued.display());
        assert!(rescued.file_name().unwrap().to_string_lossy().starts_with("warpath-rescued-image-image-"));
        // The rescue is the linear image (not tone-mapped), and the variance its variance.
        assert_eq!(read_rgb(rescued), film.mean());
        assert_eq!(read_rgb(&report.rescued[1].2), film.variance_of_mean());
    }

    #[test]
    fn outputs_are_checked_before_rendering() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, b"x").unwrap();
        let message = format!("{:#}", check_outputs(&file.join("x.exr"), None).unwrap_err());
        assert!(message.contains("cannot create the output folder"), "{message}");
        let message =
            format!("{:#}", check_outputs(&dir.path().join("x.exr"), Some(&dir.path().join("v.png"))).unwrap_err());
        assert!(message.contains("--variance-output must be an .exr"), "{message}");
        let message = format!("{:#}", check_outputs(&dir.path().join("x.jpg"), None).unwrap_err());
        assert!(message.contains("unsupported output format"), "{message}");
        let same = dir.path().join("same.exr");
        assert!(check_outputs(&same, Some(&same)).is_err());
        assert!(check_outputs(dir.path(), None).is_err(), "a folder is no image file");
        // A writable path passes and leaves nothing behind; a new folder is made.
        let fine = dir.path().join("new/folder/x.exr");
        check_outputs(&fine, Some(&dir.path().join("new/folder/v.exr"))).unwrap();
        assert!(dir.path().join("new/folder").is_dir());
        assert_eq!(std::fs::read_dir(dir.path().join("new/folder")).unwrap().count(), 0);
    }
}
