//! warpath's environment map against Mitsuba 3's `envmap` emitter on the same random map:
//! radiance (the bilinear lookup and its conventions) and solid-angle pdf at 2000 random
//! directions. Needs a reference file from Mitsuba, so it is `#[ignore]`d:
//!
//! ```text
//! .venv/bin/python scripts/mitsuba-envmap-reference.py out/mitsuba-envmap.txt
//! WARPATH_MITSUBA_ENVMAP=$PWD/out/mitsuba-envmap.txt cargo test -p warpath-core --test mitsuba_envmap -- --ignored
//! ```

use glam::{Mat3, Vec3};
use warpath_core::light::EnvMap;

#[test]
#[ignore = "needs a reference from Mitsuba 3: see the module docs"]
fn radiance_and_pdf_match_mitsuba() {
    let path = std::env::var("WARPATH_MITSUBA_ENVMAP")
        .expect("set WARPATH_MITSUBA_ENVMAP to the output of scripts/mitsuba-envmap-reference.py");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut size, mut pixels, mut directions) = (None, Vec::new(), Vec::new());
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| fields[i].parse::<f64>().unwrap_or_else(|e| panic!("{path}: '{line}': {e}"));
        let vec3 = |i: usize| Vec3::new(number(i) as f32, number(i + 1) as f32, number(i + 2) as f32);
        match fields.first() {
            Some(&"size") => size = Some((number(1) as u32, number(2) as u32, number(3) as f32)),
            Some(&"P") => pixels.push(vec3(1)),
            Some(&"D") => directions.push((vec3(1), vec3(4), number(7))),
            _ => panic!("{path}: unexpected line '{line}'"),
        }
    }
    let (width, height, rotate_y) = size.expect("a size line");
    let map = EnvMap::new(width, height, pixels, Mat3::from_rotation_y(rotate_y.to_radians()), 1.0);
    assert_eq!(directions.len(), 2000);
    let (mut worst_radiance, mut worst_pdf) = (0f64, 0f64);
    for (d, radiance, pdf) in &directions {
        let ours = map.radiance(*d);
        let difference = (ours - *radiance).abs().max_element() / radiance.max_element().max(1e-3);
        worst_radiance = worst_radiance.max(difference as f64);
        worst_pdf = worst_pdf.max((map.pdf(*d) as f64 - pdf).abs() / pdf.max(1e-6));
    }
    println!("largest relative difference to Mitsuba: radiance {worst_radiance:.2e}, pdf {worst_pdf:.2e}");
    assert!(worst_radiance < 1e-4 && worst_pdf < 1e-3, "radiance {worst_radiance:e}, pdf {worst_pdf:e}");
}
