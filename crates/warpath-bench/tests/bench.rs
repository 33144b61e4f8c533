//! The `warpath-bench` binary: its tables come out on stdout as docs/benchmarks/ holds them,
//! headed by the machine, commit and command; the trees it measures are the ones `warpath
//! render` builds; bad arguments are clean errors.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpath-bench")).args(args).output().expect("the warpath-bench binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn bvh_rows_are_the_trees_render_builds() {
    let o = run(&["bvh", "cornell", "--repeat", "1"]);
    let table = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(table.starts_with("- device: ") && table.contains("- command: `"), "{table}");
    // Its SBVH cpu row has the node count of the tree `render --backend cpu` traces (the CPU
    // renderer's; tests/robustness.rs of warpath-cli shows `info` and `render` agree on it).
    let row =
        table.lines().find(|l| l.starts_with("| cornell | SBVH | cpu (2) |")).unwrap_or_else(|| panic!("{table}"));
    let scene = warpath_scene::load("cornell").unwrap();
    let nodes = warpath_cpu::CpuRenderer::new(&scene, warpath_bvh::BuildKind::Sbvh).bvh.nodes.len().to_string();
    assert_eq!(row.split('|').map(str::trim).nth(7), Some(nodes.as_str()), "{row}");
    for tree in ["| cornell | SAH | cpu (2) |", "| cornell | SAH | cuda (4) |", "| cornell | SBVH | cuda (4) |"] {
        assert!(table.contains(tree), "{tree} missing from {table}");
    }
}

#[test]
fn cpu_prints_its_table_and_refuses_bad_sizes() {
    let o = run(&["cpu", "cornell", "--spp", "1", "--resolution", "16x8", "--max-depth", "2"]);
    let table = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(table.contains("| scene | resolution | spp | max depth | time (s) | Msamples/s | Mrays/s |"), "{table}");
    assert!(table.lines().any(|l| l.starts_with("| cornell | 16x8 | 1 | 2 | ")), "{table}");
    let o = run(&["cpu", "cornell", "--resolution", "0x8"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("0x8") && !err.contains("panicked"), "{err}");
}

#[test]
fn isosurface_times_the_casters_cpu_renderer() {
    let o = run(&[
        "isosurface",
        "spheres:9",
        "--backend",
        "cpu",
        "--resolution",
        "16x16",
        "--views",
        "2",
        "--frames",
        "1",
        "--fractions",
        "0.5",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(out.contains("- GPU: none (the CPU renderer)"), "{out}");
    assert!(out.contains("#### Table 1: fps"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("| spheres:9 | 9×9×9 | 16 | cpu | ")), "{out}");
}

/// `traversal --bvh-layout both --wide-triangles both` (needs a GPU: without one it skips with a
/// notice, or fails with `WARPATH_REQUIRE_GPU=1`): both layouts' rows (the wide ones with plain
/// and Woop triangles), every wide kernel hit equal to the CPU wide traversal's (the run fails on
/// a mismatch), and the side-by-side table for each ray set.
#[test]
fn traversal_runs_both_layouts_side_by_side() {
    let o = run(&[
        "traversal",
        "cornell",
        "--bvh-layout",
        "both",
        "--collapse",
        "both",
        "--resolution",
        "128x128",
        "--runs",
        "1",
        "--kernels",
        "while-while",
        "--wide-triangles",
        "both",
    ]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    if !o.status.success() && err.contains("needs a CUDA device") {
        assert!(std::env::var("WARPATH_REQUIRE_GPU").as_deref() != Ok("1"), "WARPATH_REQUIRE_GPU=1: {err}");
        eprintln!("notice: skipping GPU test (no CUDA device); set WARPATH_REQUIRE_GPU=1 to make this a failure");
        return;
    }
    assert!(o.status.success(), "{err}");
    for layout in ["binary", "wide8-optimal", "wide8-optimal-woop", "wide8-greedy", "wide8-greedy-woop"] {
        for rays in ["primary", "ao", "diffuse"] {
            assert!(out.contains(&format!("| {layout} | {rays} |")), "no {layout} {rays} row in {out}");
        }
    }
    assert!(
        out.contains(
            "| wide8-optimal Grays/s (kernel) | ×binary | wide8-optimal-woop Grays/s (kernel) | ×binary | \
             wide8-greedy Grays/s (kernel) | ×binary | wide8-greedy-woop Grays/s (kernel) | ×binary |"
        ),
        "{out}"
    );
    for schedule in ["while-while", "persistent", "persistent-postpone6"] {
        for layout in ["wide8-optimal", "wide8-optimal-woop"] {
            assert!(
                out.contains(&format!("| {layout} | primary | {schedule} |")),
                "no {layout} {schedule} row in {out}"
            );
        }
    }
    for rays in ["primary", "ao", "diffuse"] {
        for tree in ["SAH", "SBVH"] {
            assert!(out.contains(&format!("| cornell | {tree} | {rays} | ")), "no side-by-side {tree} {rays} in {out}");
        }
    }
}
