//! Build benchmark: builds the same triangles with each requested builder (default options
//! otherwise) and reports the statistics, printable as a markdown table. The `warpath-bench`
//! command times traversal; this only times construction.

use crate::{BuildKind, BuildOptions, BuildStats, Bvh};
use glam::Vec3;
use std::fmt::Write;

/// One builder's result over one mesh.
#[derive(Clone, Copy, Debug)]
pub struct BuildReport {
    pub options: BuildOptions,
    pub stats: BuildStats,
}

/// Builds `tris` once per entry of `kinds` (default options for each kind).
pub fn build_benchmark(tris: &[[Vec3; 3]], kinds: &[BuildKind]) -> Vec<BuildReport> {
    kinds
        .iter()
        .map(|&kind| {
            let options = BuildOptions { kind, ..Default::default() };
            let (_, stats) = Bvh::build(tris, &options);
            BuildReport { options, stats }
        })
        .collect()
}

/// The reports as a markdown table (one row per build).
pub fn markdown_table(reports: &[BuildReport]) -> String {
    let mut table = String::from(
        "| builder | triangles | build ms | Mtris/s | nodes | leaves | references | SAH cost | depth |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for report in reports {
        let s = &report.stats;
        let _ = writeln!(
            table,
            "| {} | {} | {:.2} | {:.2} | {} | {} | {} | {:.2} | {} |",
            s.kind,
            s.triangles,
            s.build_seconds * 1e3,
            s.mtris_per_second(),
            s.node_count,
            s.leaf_count,
            s.references,
            s.sah_cost,
            s.max_depth
        );
    }
    table
}
