//! The `warpath` binary as a user meets it: renders that write images, errors that say
//! what and where (and exit non-zero without a panic), and Ctrl-C saving the image so far.

use std::path::PathBuf;
use std::process::{Command, Output};

fn warpath(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpath")).args(args).output().expect("the warpath binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

fn assert_clean_error(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
}

#[test]
fn renders_png_and_exr_on_the_cpu() {
    let dir = temp_dir();
    for name in ["c.png", "c.exr"] {
        let out: PathBuf = dir.path().join(name);
        let o = warpath(
            &["render", "cornell", "--backend", "cpu", "--spp", "2", "--resolution", "32x24", "-q", "-o"]
                .iter()
                .copied()
                .chain([out.to_str().unwrap()])
                .collect::<Vec<_>>(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("Msamples/s"), "no closing summary: {}", stderr(&o));
        let bytes = std::fs::read(&out).unwrap();
        assert!(bytes.len() > 100, "{name}: {} bytes", bytes.len());
    }
}

#[test]
fn absurd_resolution_is_a_clear_error() {
    let o = warpath(&["render", "cornell", "--resolution", "0x100", "-o", "/tmp/never.png"]);
    assert_eq!(o.status.code(), Some(2), "clap rejects it as a usage error: {}", stderr(&o));
    assert!(stderr(&o).contains("out of range"), "{}", stderr(&o));
    let o = warpath(&["render", "cornell", "--resolution", "100000x100", "-o", "/tmp/never.png"]);
    assert!(stderr(&o).contains("out of range"), "{}", stderr(&o));
}

#[test]
fn missing_scene_names_the_path_and_the_built_ins() {
    let o = warpath(&["render", "no/such/scene.toml", "-o", "/tmp/never.png"]);
    assert_clean_error(&o, "no/such/scene.toml");
    assert!(stderr(&o).contains("cornell"), "{}", stderr(&o));
}

#[test]
fn malformed_scene_file_gives_file_and_line() {
    let dir = temp_dir();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, "[render]\nwidth = 64\nheight = \"tall\"\n").unwrap();
    let o = warpath(&["render", path.to_str().unwrap(), "-o", "/tmp/never.png"]);
    assert_clean_error(&o, "bad.toml:3");
}

#[test]
fn unsupported_output_format_fails_before_rendering() {
    let o = warpath(&["render", "cornell", "-o", "/tmp/out.jpg"]);
    assert_clean_error(&o, "unsupported output format");
}

#[test]
fn cuda_backend_without_a_gpu_is_a_clear_error_or_renders() {
    let dir = temp_dir();
    let out = dir.path().join("g.png");
    let o = warpath(&[
        "render",
        "cornell",
        "--backend",
        "cuda",
        "--spp",
        "2",
        "--resolution",
        "32x32",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    if o.status.success() {
        // A machine with a GPU renders.
        assert!(out.exists());
    } else {
        assert_clean_error(&o, "--backend cuda");
    }
}

#[test]
fn info_lists_and_describes() {
    let o = warpath(&["info", "--list"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("cornell"));
    let o = warpath(&["info", "cornell"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains("triangles: 36") && out.contains("SAH cost"), "{out}");
}

/// Ctrl-C (SIGINT) finishes the current pass and writes the image accumulated so far.
#[cfg(unix)]
#[test]
fn interrupt_saves_the_image_so_far() {
    let dir = temp_dir();
    let out = dir.path().join("partial.exr");
    let child = Command::new(env!("CARGO_BIN_EXE_warpath"))
        .args(["render", "cornell", "--backend", "cpu", "--spp", "100000", "--resolution", "64x64", "-q", "-o"])
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(out.exists() && std::fs::metadata(&out).unwrap().len() > 100, "{err}");
}

#[test]
fn unknown_strategy_lists_the_strategies() {
    let o = warpath(&["render", "cornell", "--strategy", "fastest-please", "-o", "/tmp/never.png"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "clap rejects it as a usage error: {err}");
    assert!(err.contains("unknown strategy 'fastest-please'") && !err.contains("panicked"), "{err}");
    for name in ["naive", "wavefront", "multistage", "regen-warp", "streaming-sk"] {
        assert!(err.contains(name), "'{name}' missing from: {err}");
    }
}

#[test]
fn quiet_render_prints_only_the_summary() {
    let dir = temp_dir();
    let out = dir.path().join("quiet.png");
    let o = warpath(&[
        "render",
        "cornell",
        "--backend",
        "cpu",
        "--resolution",
        "16x16",
        "--spp",
        "1",
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("rendered 16x16"), "the closing summary stays: {err}");
    for note in ["scene 'cornell'", "backend:", "bvh:", "wrote "] {
        assert!(!err.contains(note), "'{note}' printed under --quiet: {err}");
    }
    assert!(out.exists());
}

/// ReSTIR DI through the CLI: on the CPU it renders (and says the kernel timer has nothing to
/// time there); with `--backend cuda` it renders on a GPU or is a clean error without one; on
/// a scene with an environment it is a clean error naming the environment.
#[test]
fn restir_renders_on_the_cpu_and_fails_cleanly_elsewhere() {
    let dir = temp_dir();
    let out = dir.path().join("r.png");
    let common = ["--integrator", "restir-di", "--frames", "2", "--resolution", "24x16", "-q", "-o"];
    let mut args = vec!["render", "many-lights:64", "--backend", "cpu", "--restir-kernel-times"];
    args.extend(common);
    args.push(out.to_str().unwrap());
    let o = warpath(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.exists());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--restir-kernel-times"));

    let gpu_out = dir.path().join("g.png");
    let mut args = vec!["render", "many-lights:64", "--backend", "cuda"];
    args.extend(common);
    args.push(gpu_out.to_str().unwrap());
    let o = warpath(&args);
    if o.status.success() {
        assert!(gpu_out.exists());
    } else {
        assert_clean_error(&o, "--backend cuda");
    }

    // The furnace has a constant environment: not a ReSTIR light.
    let mut args = vec!["render", "furnace", "--backend", "cpu"];
    args.extend(common);
    args.push(out.to_str().unwrap());
    let o = warpath(&args);
    assert!(!o.status.success());
    assert_clean_error(&o, "environment");
}

/// `--frames N --sequence --orbit DEG`: N images OUTPUT-0000 ... written, each a ReSTIR frame of
/// a camera turned DEG/N more (the images differ); `--frames 0`, `--orbit` without
/// `--sequence`, `--frames` or `--sequence` with the path tracer and `--spp` with ReSTIR are
/// clean errors that write nothing.
#[test]
fn restir_sequences_write_one_image_per_frame_and_refuse_bad_counts() {
    let dir = temp_dir();
    let out = dir.path().join("seq.exr");
    let o = warpath(&[
        "render",
        "many-lights:64",
        "--backend",
        "cpu",
        "--integrator",
        "restir-di",
        "--resolution",
        "24x16",
        "--frames",
        "3",
        "--sequence",
        "--orbit",
        "30",
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("rendered 3 of 3 frames"), "{err}");
    let images: Vec<Vec<u8>> =
        (0..3).map(|k| std::fs::read(dir.path().join(format!("seq-{k:04}.exr"))).expect("frame written")).collect();
    assert!(!dir.path().join("seq-0003.exr").exists() && !out.exists());
    assert_ne!(images[0], images[2], "the camera moved: frames differ");

    let bad: [(&[&str], &str); 10] = [
        (&["--integrator", "restir-di", "--restir-temporal-cap", "2000"], "--restir-temporal-cap"),
        (&["--integrator", "restir-di", "--restir-temporal-bias", "half"], "--restir-temporal-bias"),
        (&["--integrator", "restir-di", "--frames", "0"], "--frames"),
        (&["--integrator", "restir-di", "--restir-roughness-threshold", "1.5"], "--restir-roughness-threshold"),
        (&["--integrator", "restir-di", "--restir-boiling-filter", "2"], "--restir-boiling-filter"),
        (&["--integrator", "restir-di", "--restir-bsdf-candidates", "65"], "--restir-bsdf-candidates"),
        (&["--integrator", "restir-di", "--orbit", "10"], "--sequence"),
        (&["--frames", "2"], "--frames"),
        (&["--sequence"], "--integrator restir-di"),
        (&["--integrator", "restir-di", "--spp", "2"], "--frames"),
    ];
    for (extra, named) in bad {
        let mut args = vec!["render", "many-lights:64", "--backend", "cpu", "--resolution", "8x8", "-o"];
        let target = dir.path().join("bad.exr");
        args.push(target.to_str().unwrap());
        args.extend(extra);
        let o = warpath(&args);
        assert!(!o.status.success(), "{extra:?} should fail");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(named), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
        assert!(
            std::fs::read_dir(dir.path()).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("bad"))
        );
    }
}

/// `render --samples A..B --film` parts merged by `warpath merge` give the image of one render
/// of the union (the same samples; float round-off in the sums at most); a part of another
/// seed or an overlapping range is refused naming the file; `--samples` with `--spp` is an
/// error before any work.
#[test]
fn partial_renders_merge_into_the_whole_and_mismatches_are_refused() {
    let dir = temp_dir();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let render_seed = |seed: &str, extra: &[&str]| {
        let mut args = vec!["render", "cornell", "--backend", "cpu", "--resolution", "16x12", "--seed", seed, "-q"];
        args.extend(extra);
        warpath(&args)
    };
    let render = |extra: &[&str]| render_seed("3", extra);
    for (range, name) in [("0..3", "a.wfilm"), ("3..8", "b.wfilm")] {
        let o = render(&["--samples", range, "--film", &path(name)]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!dir.path().join("warpath.exr").exists(), "--film alone writes no image");
    }
    let o = render(&["--spp", "8", "-o", &path("whole.exr")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o =
        warpath(&["merge", &path("b.wfilm"), &path("a.wfilm"), "-o", &path("merged.exr"), "--film", &path("m.wfilm")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("8 samples per pixel"), "{}", stderr(&o));
    let read = |name: &str| warpath_scene::image_io::load_image(&dir.path().join(name)).expect("an EXR").pixels;
    let (merged, whole) = (read("merged.exr"), read("whole.exr"));
    assert_eq!(merged.len(), whole.len());
    for (m, w) in merged.iter().zip(&whole) {
        assert!((*m - *w).abs().max_element() <= 1e-6 * w.abs().max_element().max(1e-3), "{m} vs {w}");
    }

    let o = render_seed("4", &["--samples", "8..10", "--film", &path("seed4.wfilm")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = warpath(&["merge", &path("a.wfilm"), &path("seed4.wfilm"), "-o", &path("x.exr")]);
    assert_clean_error(&o, "seed4.wfilm");
    let o = render(&["--samples", "2..5", "--film", &path("overlap.wfilm")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = warpath(&["merge", &path("a.wfilm"), &path("overlap.wfilm"), "-o", &path("x.exr")]);
    assert_clean_error(&o, "overlaps");
    assert!(!dir.path().join("x.exr").exists());
    let o = render(&["--samples", "0..4", "--spp", "4", "-o", &path("y.exr")]);
    assert_clean_error(&o, "--samples");
}

/// A Mitsuba 3 XML scene renders, `-D NAME=VALUE` sets its `$NAME` (here the film size), and
/// `-D` on a scene that is not XML is an error before any work.
#[test]
fn mitsuba_xml_scenes_render_with_their_parameters() {
    let dir = temp_dir();
    let out = dir.path().join("m.exr");
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/../warpath-scene/tests/data/mitsuba/cornell-box.xml");
    let o = warpath(&[
        "render",
        scene,
        "--backend",
        "cpu",
        "-D",
        "resx=12",
        "-D",
        "resy=8",
        "-D",
        "spp=2",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("rendered 12x8 at 2 spp"), "{}", stderr(&o));
    let o = warpath(&["render", "cornell", "-D", "spp=2", "-o", out.to_str().unwrap()]);
    assert_clean_error(&o, "Mitsuba XML");
}

/// `--bvh-layout` is a render flag: `wide8` on the CPU renders (the CPU keeps its own traversal),
/// an unknown layout is refused naming the two.
#[test]
fn bvh_layout_flag_is_accepted_and_checked() {
    let dir = temp_dir();
    let out = dir.path().join("wide.png");
    let o = warpath(&[
        "render",
        "cornell",
        "--backend",
        "cpu",
        "--bvh-layout",
        "wide8",
        "--spp",
        "1",
        "--resolution",
        "8x8",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.exists());
    let bad = warpath(&["render", "cornell", "--bvh-layout", "wide4"]);
    assert!(!bad.status.success());
    let text = stderr(&bad);
    assert!(text.contains("binary") && text.contains("wide8"), "{text}");
}
