//! pbrt-v4 scenes through the command line and the renderer (issue 33): `warpath info` and
//! `warpath render` take a `.pbrt` file through the same loader dispatch as `.xml`, and the
//! Cornell box written in pbrt-v4 renders the same CPU image as the one written in Mitsuba
//! XML.

use std::process::{Command, Output};
use std::sync::atomic::AtomicBool;
use warpath_render::{Backend, BackendChoice, Overrides, Settings, prepare, render};

const PBRT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../warpath-scene/tests/data/pbrt/cornell-box.pbrt");
const XML: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../warpath-scene/tests/data/mitsuba/cornell-box.xml");

fn warpath(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpath")).args(args).output().expect("run warpath")
}

#[test]
fn info_and_render_take_pbrt_files() {
    let o = warpath(&["info", PBRT]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains("triangles: 36"), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("c.exr");
    let o = warpath(&[
        "render",
        PBRT,
        "--backend",
        "cpu",
        "--resolution",
        "12x8",
        "--spp",
        "2",
        "-q",
        "-o",
        image.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("rendered 12x8 at 2 spp"), "{err}");
    assert!(image.is_file());
    // A malformed pbrt file: the error names the file and line, before any work.
    let bad = dir.path().join("bad.pbrt");
    std::fs::write(&bad, "WorldBegin\nShape \"sphere\" \"float radius\" [1\n").unwrap();
    let o = warpath(&["render", bad.to_str().unwrap(), "--backend", "cpu", "-o", image.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("bad.pbrt:2") && err.contains("never closed"), "{err}");
}

/// The mean image of `scene` on the CPU at 48 × 48, 8 spp, seed 3.
fn cpu_image(path: &str) -> Vec<glam::Vec3> {
    let scene = warpath_scene::load(path).unwrap_or_else(|e| panic!("{e}"));
    let overrides = Overrides { spp: Some(8), resolution: Some((48, 48)), seed: Some(3), ..Default::default() };
    let settings = Settings::resolve(&scene, &overrides).unwrap();
    let (backend, _) = Backend::open(BackendChoice::Cpu).unwrap();
    let mut renderer = prepare(&scene, &settings, &backend).unwrap();
    let stop = AtomicBool::new(false);
    render(renderer.as_mut(), 0..8, &stop, |_| {}).unwrap().film.mean()
}

#[test]
fn the_pbrt_and_xml_cornell_boxes_render_the_same_cpu_image() {
    let (a, b) = (cpu_image(PBRT), cpu_image(XML));
    assert_eq!(a.len(), b.len());
    let mean = a.iter().map(|p| p.element_sum()).sum::<f32>() / (3 * a.len()) as f32;
    assert!(mean > 0.05, "the box is lit: mean {mean}");
    // The scenes differ only by float round-off in the camera (pbrt's LookAt against the XML's
    // 0.9999999 matrix): the same samples land on the same surfaces, pixel for pixel.
    let differing =
        a.iter().zip(&b).filter(|(p, q)| (**p - **q).abs().max_element() > 1e-3 * (1.0 + p.max_element())).count();
    let total: f32 = a.iter().zip(&b).map(|(p, q)| (*p - *q).abs().element_sum()).sum();
    eprintln!("{differing} of {} pixels differ; mean |difference| {}", a.len(), total / (3 * a.len()) as f32);
    assert!(differing <= a.len() / 100, "{differing} pixels differ");
    assert!(total / ((3 * a.len()) as f32) < 1e-3 * mean);
}
