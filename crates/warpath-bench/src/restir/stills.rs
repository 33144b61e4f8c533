//! `warpath-bench restir --accumulate N,…`: accumulated stills against the path tracer at equal
//! time. ReSTIR renders the still as `warpath render --integrator restir-di` does (temporal reuse
//! off unless `--still-temporal`: frames that reuse each other are correlated, and their
//! average converges more slowly than their count says), one renderer accumulating frames; the
//! film after each N of the list is scored. The path tracer (max depth 1) accumulates likewise,
//! to round(N × the time ratio) spp at each N (the ratio measured in the run, or
//! `--time-ratio`), and is scored at the same points.

use super::{RestirArgs, Scores, path_ms_per_spp, score};
use anyhow::{Result, bail};
use glam::Vec3;
use serde::Serialize;
use std::time::Instant;
use warpath_render::{Backend, Settings, prepare};
use warpath_scene::Scene;

/// What a still is scored against.
pub(super) struct Still<'a> {
    pub scene: &'a Scene,
    pub backend: &'a Backend,
    pub reference: &'a [Vec3],
    pub mask: &'a [bool],
    pub args: &'a RestirArgs,
}

#[derive(Serialize)]
struct StillRow {
    frames: u32,
    /// The path tracer's spp at the same time.
    spp: u32,
    restir_surfaces: Scores,
    restir_all: Scores,
    path_surfaces: Scores,
    path_all: Scores,
}

#[derive(Serialize)]
struct StillReport {
    scene: String,
    backend: String,
    width: u32,
    height: u32,
    temporal: bool,
    restir_ms_per_frame: f64,
    path_ms_per_spp: f64,
    /// ReSTIR's time a frame over the path tracer's a spp (measured, or `--time-ratio`).
    time_ratio: f64,
    restir_note: Option<String>,
    rows: Vec<StillRow>,
}

impl Still<'_> {
    pub fn run(
        &self,
        counts: &[u32],
        restir_settings: &Settings,
        path_settings: &dyn Fn(u32, u32) -> warpath_render::Result<Settings>,
    ) -> Result<()> {
        let mut counts: Vec<u32> = counts.iter().copied().filter(|&n| n > 0).collect();
        counts.sort_unstable();
        counts.dedup();
        let Some(&most) = counts.last() else { bail!("--accumulate: give frame counts ≥ 1, e.g. 1,4,16,64,256") };
        let mut settings = restir_settings.clone();
        settings.restir.temporal = self.args.still_temporal;
        let (w, h) = (settings.width(), settings.height());
        println!("- stills: ReSTIR ({}) accumulated to {counts:?} frames", warpath_render::restir_summary(&settings));
        let all = vec![true; self.reference.len()];
        let scores = |image: &[Vec3]| (score(image, self.reference, self.mask), score(image, self.reference, &all));

        // ReSTIR: one renderer, its film scored after each count; frame 0 (the kernels'
        // compilation on the GPU) is not timed.
        let mut renderer = prepare(self.scene, &settings, self.backend)?;
        let mut restir = Vec::new();
        let (mut done, mut seconds) = (0u32, 0.0f64);
        for &n in &counts {
            if done == 0 {
                renderer.render_pass(0..1)?;
                done = 1;
            }
            let start = Instant::now();
            if n > done {
                renderer.render_pass(done..n)?;
            }
            seconds += start.elapsed().as_secs_f64();
            done = done.max(n);
            restir.push(scores(&renderer.film()?.mean()));
        }
        let restir_ms = 1e3 * seconds / (most - 1).max(1) as f64;
        let restir_note = renderer.report();
        drop(renderer);

        let path_ms = path_ms_per_spp(self.scene, self.backend, path_settings)?;
        let ratio = self.args.time_ratio.unwrap_or(restir_ms / path_ms);
        let spp_of = |n: u32| ((n as f64 * ratio).round() as u32).max(1);
        let mut path = prepare(self.scene, &path_settings(spp_of(most), self.args.seed)?, self.backend)?;
        let mut rows = Vec::new();
        let mut spp_done = 0;
        for (&n, (restir_surfaces, restir_all)) in counts.iter().zip(restir) {
            let spp = spp_of(n);
            if spp > spp_done {
                path.render_pass(spp_done..spp)?;
                spp_done = spp;
            }
            let (path_surfaces, path_all) = scores(&path.film()?.mean());
            rows.push(StillRow { frames: n, spp, restir_surfaces, restir_all, path_surfaces, path_all });
        }
        let report = StillReport {
            scene: self.scene.name.clone(),
            backend: self.backend.describe(),
            width: w,
            height: h,
            temporal: settings.restir.temporal,
            restir_ms_per_frame: restir_ms,
            path_ms_per_spp: path_ms,
            time_ratio: ratio,
            restir_note,
            rows,
        };
        print_table(&report);
        crate::write_json(self.args.json.as_deref(), &report)
    }
}

fn print_table(r: &StillReport) {
    if let Some(note) = &r.restir_note {
        println!("- {note}");
    }
    println!(
        "- time: ReSTIR still {:.3} ms a frame (temporal reuse {}), path tracer {:.3} ms a spp; ratio {:.2}{}",
        r.restir_ms_per_frame,
        if r.temporal { "on" } else { "off" },
        r.path_ms_per_spp,
        r.time_ratio,
        if (r.time_ratio - r.restir_ms_per_frame / r.path_ms_per_spp).abs() > 1e-9 { " (given)" } else { "" }
    );
    println!();
    println!(
        "| frames | PT spp | surfaces: ReSTIR RMSE | PT RMSE | ReSTIR / PT | ReSTIR median | PT median | ReSTIR / PT | all pixels: ReSTIR / PT RMSE |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let q = |x: f64, y: f64| if y > 0.0 { format!("{:.2}×", x / y) } else { "—".into() };
    for row in &r.rows {
        let (a, b) = (&row.restir_surfaces, &row.path_surfaces);
        println!(
            "| {} | {} | {:.1}% | {:.1}% | {} | {:.1}% | {:.1}% | {} | {} |",
            row.frames,
            row.spp,
            100.0 * a.rmse,
            100.0 * b.rmse,
            q(a.rmse, b.rmse),
            100.0 * a.median,
            100.0 * b.median,
            q(a.median, b.median),
            q(row.restir_all.rmse, row.path_all.rmse)
        );
    }
}
