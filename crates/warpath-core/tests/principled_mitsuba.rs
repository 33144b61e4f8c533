//! warpath's principled BSDF against Mitsuba 3's `principled`, point by point: eval
//! (f · |cos θi|) and pdf at 60 direction pairs for each of 24 parameter sets (metallic,
//! clear coat, transmission from both sides, sheen, flatness, tints), half of the pairs at
//! Mitsuba's own samples so that the specular peaks are covered. The reference
//! (`tests/data/principled-mitsuba.txt`) comes from `scripts/mitsuba-principled-reference.py`
//! run with Mitsuba 3.9.1 (`scalar_rgb`).

use glam::Vec3;
use warpath_core::bsdf;
use warpath_core::material::Material;

struct Point {
    wo: Vec3,
    wi: Vec3,
    value: Vec3,
    pdf: f32,
}

fn load() -> Vec<(Material, Vec<Point>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/principled-mitsuba.txt");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut sets: Vec<(Material, Vec<Point>)> = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let n: Vec<f32> = fields[1..].iter().map(|f| f.parse::<f64>().expect("a number") as f32).collect();
        match fields[0] {
            "P" => {
                let mut m = Material::principled(Vec3::new(n[0], n[1], n[2]), n[3], n[5]);
                m.metallic = n[4];
                m.spec_tint = n[6];
                m.sheen = n[7];
                m.sheen_tint = n[8];
                m.clearcoat = n[9];
                m.clearcoat_gloss = n[10];
                m.spec_trans = n[11];
                m.flatness = n[12];
                sets.push((m, Vec::new()));
            }
            "D" => sets.last_mut().expect("a P line first").1.push(Point {
                wo: Vec3::new(n[0], n[1], n[2]),
                wi: Vec3::new(n[3], n[4], n[5]),
                value: Vec3::new(n[6], n[7], n[8]),
                pdf: n[9],
            }),
            other => panic!("{path}: unexpected line kind '{other}'"),
        }
    }
    sets
}

/// Relative difference, with an absolute floor for values near zero.
fn difference(ours: f32, theirs: f32) -> f32 {
    (ours - theirs).abs() / theirs.abs().max(1e-3)
}

#[test]
fn eval_and_pdf_match_mitsuba() {
    let sets = load();
    assert_eq!(sets.len(), 24);
    let (mut worst_value, mut worst_pdf, mut count, mut nonzero) = (0f32, 0f32, 0, 0);
    let mut failures = Vec::new();
    for (index, (m, points)) in sets.iter().enumerate() {
        assert_eq!(points.len(), 60);
        for p in points {
            let value = bsdf::eval(m, m.base_color, p.wo, p.wi);
            let pdf = bsdf::pdf(m, m.base_color, p.wo, p.wi);
            let dv = (0..3).map(|c| difference(value[c], p.value[c])).fold(0.0, f32::max);
            let dp = difference(pdf, p.pdf);
            worst_value = worst_value.max(dv);
            worst_pdf = worst_pdf.max(dp);
            count += 1;
            nonzero += usize::from(p.value.max_element() > 0.0);
            if dv > 2e-3 || dp > 2e-3 {
                failures.push(format!(
                    "set {index}: wo {:?} wi {:?}: ours {value:?} / {pdf}, Mitsuba {:?} / {}",
                    p.wo, p.wi, p.value, p.pdf
                ));
            }
        }
    }
    println!(
        "{count} points ({nonzero} nonzero): largest relative difference value {worst_value:.2e}, pdf {worst_pdf:.2e}"
    );
    assert!(nonzero > count / 2, "too few nonzero reference values: {nonzero} of {count}");
    assert!(failures.is_empty(), "{} of {count} points differ:\n{}", failures.len(), failures.join("\n"));
}
