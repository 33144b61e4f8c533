//! The command-line cases of issue 12, run through the `warpath` binary: oversized images
//! are clean errors in `info` and `compare`; `compare` calls a NaN a disagreement and says
//! where; output paths are checked before the render, and a render whose output became
//! unwritable is saved beside (also after Ctrl-C); command-line values obey the scene
//! format's limits; a film too large for the memory is an error, not an abort; progress
//! lines go to logs; EXRs carry the render's metadata; `info` describes the tree `render`
//! builds; messages are said once and in the user's words.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn warpath() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpath"))
}

fn run(args: &[&str]) -> Output {
    warpath().args(args).output().expect("the warpath binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn regression(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../warpath-scene/tests/regressions").join(name)
}

fn assert_contains(haystack: &str, needles: &[&str]) {
    for n in needles {
        assert!(haystack.contains(n), "'{n}' missing from: {haystack}");
    }
}

/// An error exit (1), not an abort (SIGABRT gives no exit code) or a panic.
fn assert_clean_error(o: &Output, needles: &[&str]) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(!err.contains("panicked") && !err.contains("memory allocation of"), "{err}");
    assert_contains(&err, needles);
}

fn write_exr(path: &Path, width: usize, height: usize, pixels: &[[f32; 3]]) {
    use exr::prelude::*;
    let channels = SpecificChannels::rgb(|p: Vec2<usize>| {
        let [r, g, b] = pixels[p.y() * width + p.x()];
        (r, g, b)
    });
    Image::from_channels((width, height), channels).write().to_file(path).unwrap();
}

/// The `warpath.*` attributes of an EXR header, as text.
fn warpath_attributes(path: &Path) -> std::collections::HashMap<String, String> {
    use exr::meta::attribute::AttributeValue;
    let meta = exr::meta::MetaData::read_from_file(path, false).unwrap();
    let mut found = std::collections::HashMap::new();
    let header = &meta.headers[0];
    for (name, value) in header.shared_attributes.other.iter().chain(&header.own_attributes.other) {
        let name = name.to_string();
        if let Some(key) = name.strip_prefix("warpath.") {
            let value = match value {
                AttributeValue::Text(t) => t.to_string(),
                AttributeValue::I32(i) => i.to_string(),
                other => format!("{other:?}"),
            };
            found.insert(key.to_string(), value);
        }
    }
    found
}

fn send_interrupt(child: &Child) {
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

/// Reads the child's stderr line by line until a line contains `needle`; returns the lines.
fn read_until(lines: &mut impl Iterator<Item = std::io::Result<String>>, needle: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let done = line.contains(needle);
        seen.push(line);
        if done {
            return seen;
        }
    }
    panic!("'{needle}' never printed: {seen:?}");
}

#[test]
fn an_exr_claiming_a_million_squared_pixels_is_an_error_in_info_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.exr");
    std::fs::copy(regression("exr-data-window-1e6.exr"), &huge).unwrap();
    let scene = dir.path().join("env.toml");
    std::fs::write(&scene, "[environment]\ntype = \"map\"\nfile = \"huge.exr\"\n").unwrap();
    let o = run(&["info", scene.to_str().unwrap()]);
    assert_clean_error(&o, &["huge.exr", "1000000×1000000 pixels", "limit"]);

    let small = dir.path().join("small.exr");
    write_exr(&small, 2, 1, &[[1.0; 3]; 2]);
    let (h, s) = (huge.to_str().unwrap(), small.to_str().unwrap());
    let o = run(&["compare", h, s, s, s]);
    assert_clean_error(&o, &["huge.exr", "1000000×1000000 pixels"]);
}

#[test]
fn compare_calls_a_nan_pixel_a_disagreement_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let mean = vec![[0.5f32; 3]; 4 * 3];
    let variance = vec![[0.01f32; 3]; 4 * 3];
    let mut with_nan = mean.clone();
    with_nan[4 + 2] = [0.5, f32::NAN, 0.5];
    write_exr(&path("a.exr"), 4, 3, &mean);
    write_exr(&path("b.exr"), 4, 3, &with_nan);
    write_exr(&path("v.exr"), 4, 3, &variance);
    let (a, b, v) = (path("a.exr"), path("b.exr"), path("v.exr"));
    let (a, b, v) = (a.to_str().unwrap(), b.to_str().unwrap(), v.to_str().unwrap());
    // Without the NaN they agree.
    let o = run(&["compare", a, v, a, v]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("agree within Monte Carlo noise"));
    let o = run(&["compare", a, v, b, v]);
    assert_clean_error(&o, &["the renders disagree", "b.exr"]);
    let stdout = text(&o.stdout);
    assert_contains(&stdout, &["b.exr: 1 channel value(s) are NaN or infinite", "pixel (2, 1) channel G = NaN"]);
    assert!(!stdout.contains("agree within"), "{stdout}");
    // An infinite variance too.
    let mut infinite = variance.clone();
    infinite[0] = [f32::INFINITY, 0.01, 0.01];
    write_exr(&path("vinf.exr"), 4, 3, &infinite);
    let o = run(&["compare", a, v, a, path("vinf.exr").to_str().unwrap()]);
    assert_clean_error(&o, &["the renders disagree", "vinf.exr"]);
    assert_contains(&text(&o.stdout), &["pixel (0, 0) channel R = inf"]);
}

#[test]
fn an_unwritable_output_fails_before_the_render() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, b"x").unwrap();
    let out = file.join("image.exr");
    let o = run(&["render", "cornell", "--backend", "cpu", "--spp", "1", "-o", out.to_str().unwrap()]);
    assert_clean_error(&o, &["image.exr", "cannot create the output folder"]);
    let err = text(&o.stderr);
    assert!(!err.contains("rendered") && !err.contains("scene 'cornell'"), "checked before loading: {err}");
    // The variance file too, and its format.
    let good = dir.path().join("ok.exr");
    let o = run(&["render", "cornell", "-o", good.to_str().unwrap(), "--variance-output", out.to_str().unwrap()]);
    assert_clean_error(&o, &["image.exr", "cannot create the output folder"]);
    let o = run(&["render", "cornell", "-o", good.to_str().unwrap(), "--variance-output", "v.png"]);
    assert_clean_error(&o, &["v.png", "--variance-output must be an .exr"]);
    assert!(!good.exists());
}

/// Ctrl-C after the output folder became unwritable: the partial render goes to a
/// `warpath-rescued-*.exr` in the working directory, with its metadata, and the message
/// says where.
#[cfg(unix)]
#[test]
fn interrupted_render_with_an_unwritable_output_is_saved_beside() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("out");
    let mut child = warpath()
        .current_dir(dir.path())
        .args(["render", "cornell", "--backend", "cpu", "--spp", "1000000", "--resolution", "24x16"])
        .args(["--progress-interval", "0.05", "-o", "out/image.png"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    read_until(&mut lines, "progress:");
    // The folder was made and checked; now no file can be created in it.
    std::fs::remove_dir_all(&folder).unwrap();
    std::fs::write(&folder, b"a file now").unwrap();
    send_interrupt(&child);
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    let status = child.wait().unwrap();
    let err = rest.join("\n");
    assert_eq!(status.code(), Some(130), "{err}");
    assert_contains(&err, &["interrupted", "cannot write out/image.png", "the render was saved to"]);
    let rescued: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("warpath-rescued-image-image-"))
        .collect();
    assert_eq!(rescued.len(), 1, "{err}");
    assert!(err.contains(&rescued[0].display().to_string()), "the message names the file: {err}");
    let attributes = warpath_attributes(&rescued[0]);
    assert_eq!(attributes["interrupted"], "yes");
    assert_eq!(attributes["sppRequested"], "1000000");
}

/// With stderr not a terminal, progress is a line every `--progress-interval`; an EXR
/// records the samples per pixel reached, whether the render was interrupted, the seed, the
/// scene, and warpath's version and commit.
#[cfg(unix)]
#[test]
fn logs_get_progress_lines_and_exrs_carry_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let partial = dir.path().join("partial.exr");
    let mut child = warpath()
        .args(["render", "cornell", "--backend", "cpu", "--spp", "1000000", "--resolution", "24x16", "--seed", "42"])
        .args(["--progress-interval", "0.05", "-o"])
        .arg(&partial)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = read_until(&mut lines, "progress:");
    let second = read_until(&mut lines, "progress:");
    send_interrupt(&child);
    let _: Vec<_> = lines.collect();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    for line in [first.last().unwrap(), second.last().unwrap()] {
        assert!(line.starts_with("progress: "), "{line}");
        assert_contains(line, &["/1000000 spp (", "Msamples/s", "elapsed", "s left"]);
    }
    let attributes = warpath_attributes(&partial);
    let spp: u32 = attributes["spp"].parse().unwrap();
    assert!(spp > 0 && spp < 1_000_000, "{attributes:?}");
    assert_eq!(attributes["interrupted"], "yes");
    assert_eq!(attributes["seed"], "42");
    assert_eq!(attributes["scene"], "cornell");
    assert_eq!(attributes["version"], env!("CARGO_PKG_VERSION"));
    assert!(!attributes["commit"].is_empty(), "{attributes:?}");

    // A finished render says so.
    let full = dir.path().join("full.exr");
    let o = run(&["render", "cornell", "--backend", "cpu", "--spp", "3", "--resolution", "8x8", "-q", "-o"]
        .into_iter()
        .chain([full.to_str().unwrap()])
        .collect::<Vec<_>>());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let attributes = warpath_attributes(&full);
    assert_eq!((attributes["spp"].as_str(), attributes["interrupted"].as_str()), ("3", "no"));
    assert_eq!(attributes["sampler"], "padded-halton");
    assert_eq!(attributes["backend"], "cpu");
    assert_eq!(attributes["maxDepth"], "8");

    // --max-depth -1 asks for no limit, as a scene's max_depth = -1 does, and the EXR says -1.
    let unlimited = dir.path().join("unlimited.exr");
    let o = run(&["render", "cornell", "--backend", "cpu", "--spp", "1", "--resolution", "8x8", "--max-depth", "-1"]
        .into_iter()
        .chain(["-q", "-o", unlimited.to_str().unwrap()])
        .collect::<Vec<_>>());
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(warpath_attributes(&unlimited)["maxDepth"], "-1");
}

#[test]
fn command_line_values_obey_the_scene_format_limits() {
    for (flag, value, needle) in [
        ("--spp", "0", "1..=16777216"),
        ("--spp", "16777217", "1..=16777216"),
        ("--max-depth", "100001", "0..=100000"),
        ("--max-depth", "-2", "or -1 for no limit"),
        ("--spp-per-pass", "0", "1..=16777216"),
        ("--exposure", "nan", "-64..=64"),
        ("--exposure", "inf", "-64..=64"),
        ("--progress-interval", "0", "seconds"),
    ] {
        let o = run(&["render", "cornell", flag, value, "-o", "/tmp/never.png"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: a usage error: {err}");
        assert_contains(&err, &[flag, needle]);
    }
}

/// A 16384² film needs about 14 GiB: under `ulimit -v` of 8 GiB it is an error naming the
/// size and the bound, before the render, where `vec!` used to abort.
#[cfg(target_os = "linux")]
#[test]
fn a_film_larger_than_the_memory_is_an_error_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big.exr");
    let script = format!(
        "ulimit -v 8388608 && exec '{}' render cornell --backend cpu --spp 1 --resolution 16384x16384 -o '{}'",
        env!("CARGO_BIN_EXE_warpath"),
        out.display()
    );
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_clean_error(
        &o,
        &["cannot render 16384x16384", "16384×16384 pixels", "GiB of memory", "address-space limit (ulimit -v)"],
    );
    assert!(!out.exists());
}

#[test]
fn scenes_that_render_black_warn_and_still_render() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("empty.toml");
    std::fs::write(&scene, "").unwrap();
    let out = dir.path().join("black.png");
    let o = run(&["render", scene.to_str().unwrap(), "--backend", "cpu", "--spp", "1", "--resolution", "8x8", "-o"]
        .into_iter()
        .chain([out.to_str().unwrap()])
        .collect::<Vec<_>>());
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_contains(&text(&o.stderr), &["warning: ", "empty.toml", "no geometry and no light", "black"]);
    assert!(out.exists());
}

/// The `N nodes, L leaves, R references (G), SAH cost C, depth D` part of a BVH summary.
fn tree_shape(line: &str) -> String {
    let start = line.find(" nodes").and_then(|e| line[..e].rfind(' ')).unwrap();
    line[start + 1..].split(" (0.").next().unwrap().split(';').next().unwrap().to_string()
}

#[test]
fn info_describes_the_tree_render_builds() {
    let o = run(&["render", "cornell", "--backend", "cpu", "--spp", "1", "--resolution", "8x8", "-o", "/tmp/i.exr"]);
    let err = text(&o.stderr);
    let render_line = err.lines().find(|l| l.starts_with("bvh: ")).unwrap_or_else(|| panic!("{err}"));
    let o = run(&["info", "cornell"]);
    let out = text(&o.stdout);
    let info_line =
        out.lines().find(|l| l.contains("`render --bvh sbvh --backend cpu`")).unwrap_or_else(|| panic!("{out}"));
    assert_eq!(tree_shape(info_line), tree_shape(render_line), "info: {info_line}\nrender: {render_line}");
    assert!(info_line.contains("leaves of up to 2"), "{info_line}");
    assert!(out.contains("`render --bvh sbvh --backend cuda` builds it (leaves of up to 4)"), "{out}");
    // (`warpath-bench bvh` builds the same trees: crates/warpath-bench/tests/bench.rs.)
    // Names as the command line spells them, no Rust debug names.
    assert_contains(&out, &["sampler padded-halton"]);
    assert!(!out.contains("PaddedHalton") && !out.contains("Sah ") && !out.contains("Sbvh"), "{out}");
}

#[test]
fn the_benchmarks_are_warpath_bench_s() {
    // `warpath bench` points to the benchmarks' own binary (exit 2, as a usage error) and
    // `--help` no longer lists it.
    let o = run(&["bench", "bvh", "cornell", "--repeat", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_contains(&text(&o.stderr), &["`warpath-bench bvh cornell --repeat 1`"]);
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    let help = text(&run(&["--help"]).stdout);
    assert!(help.contains("render") && !help.contains("bench"), "{help}");
}

#[test]
fn messages_say_each_thing_once() {
    let o = run(&["compare", "/no/such/a.exr", "/no/such/b.exr", "/no/such/c.exr", "/no/such/d.exr"]);
    assert_clean_error(&o, &["/no/such/a.exr"]);
    assert_eq!(text(&o.stderr).matches("os error 2").count(), 1, "{}", text(&o.stderr));
    let o = run(&["render", "cornell", "--spp", "1", "--resolution", "4x4", "-o", "/tmp/m.exr"]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("(no CUDA device"), "{err}");
}
