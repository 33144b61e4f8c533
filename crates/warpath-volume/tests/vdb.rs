//! OpenVDB files written by OpenVDB 10.0.1 itself (Debian's python3-openvdb,
//! `data/make_vdb.py`): float and half-float grids, active tiles, a file whose first grid is
//! not a float grid, and the index-space placement of the dense box.

use std::path::{Path, PathBuf};
use warpath_volume::load::load_volume;
use warpath_volume::vdb::{read_vdb, read_vdb_grid};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// The blob's value at index (i, j, k), where active.
fn blob(i: i32, j: i32, k: i32) -> Option<f32> {
    let inside = (i as f64 + 0.5).powi(2) + (j as f64 - 7.5).powi(2) + (k as f64 - 11.5).powi(2) < 7.5 * 7.5;
    inside.then(|| (1.0 + 0.01 * i as f64 + 0.1 * j as f64 + 0.001 * k as f64) as f32)
}

#[test]
fn densifies_the_active_box_of_a_float_grid() {
    let vdb = read_vdb(&data("blob.vdb")).unwrap();
    assert_eq!(vdb.name, "density");
    assert_eq!(vdb.index_min, [-7, 1, 5]);
    assert_eq!(vdb.grid.resolution, [14, 14, 14]);
    assert_eq!(vdb.voxel_size, [0.5; 3]);
    assert_eq!(vdb.active_voxels, 1736);
    assert_eq!(vdb.background, 0.0);
    let mut active = 0;
    for z in 0..14 {
        for y in 0..14 {
            for x in 0..14 {
                let (i, j, k) = (x as i32 - 7, y as i32 + 1, z as i32 + 5);
                let got = vdb.grid.voxel(x, y, z, 0);
                match blob(i, j, k) {
                    Some(v) => {
                        // pyopenvdb stored the double as f32.
                        assert_eq!(got, v, "index ({i}, {j}, {k})");
                        active += 1;
                    }
                    None => assert_eq!(got, 0.0, "index ({i}, {j}, {k})"),
                }
            }
        }
    }
    assert_eq!(active, 1736);
    let loaded = load_volume(&data("blob.vdb"), None).unwrap();
    assert_eq!(loaded.grid, vdb.grid);
    assert_eq!(loaded.spacing, [0.5; 3]);
}

#[test]
fn reads_half_float_grids() {
    let full = read_vdb(&data("blob.vdb")).unwrap();
    let half = read_vdb(&data("blob_half.vdb")).unwrap();
    assert_eq!(half.grid.resolution, full.grid.resolution);
    for (h, f) in half.grid.data.iter().zip(&full.grid.data) {
        // Half floats keep 11 significant bits.
        assert!((h - f).abs() <= f.abs() / 1024.0, "{h} vs {f}");
    }
    assert_eq!(half.grid.voxel(7, 6, 6, 0), 1.7109375); // index (0, 7, 11): 1.711 in half
}

#[test]
fn tiles_fill_their_boxes_and_the_first_float_grid_is_taken() {
    let vdb = read_vdb(&data("tiles.vdb")).unwrap();
    assert_eq!(vdb.name, "smoke");
    assert_eq!(vdb.index_min, [0, 0, 0]);
    assert_eq!(vdb.grid.resolution, [41, 16, 8]);
    assert_eq!(vdb.background, 0.25);
    assert_eq!(vdb.active_voxels, 4097);
    for z in 0..8 {
        for y in 0..16 {
            for x in 0..41 {
                let expected = match (x, y, z) {
                    (0..=31, _, _) => 2.0,
                    (40, 3, 2) => 5.0,
                    _ => 0.25, // background, including the inactive voxel (35, 1, 1) = 7
                };
                assert_eq!(vdb.grid.voxel(x, y, z, 0), expected, "({x}, {y}, {z})");
            }
        }
    }
    let e = read_vdb_grid(&data("tiles.vdb"), Some("velocity")).unwrap_err().to_string();
    assert!(e.contains("no float grid named 'velocity'") && e.contains("velocity (Tree_vec3s_5_4_3)"), "{e}");
}

#[test]
fn not_a_vdb_file_is_an_error() {
    let e = read_vdb(&data("u8.nii")).unwrap_err().to_string();
    assert!(e.contains("u8.nii: OpenVDB:"), "{e}");
}

#[test]
fn matches_openvdbs_own_densification() {
    // data/*.vol were written from the .vdb files by scripts/vdb-to-vol.py with OpenVDB's
    // Python module (iterOnValues over the active box, background elsewhere).
    for name in ["tiles", "blob_half"] {
        let ours = read_vdb(&data(&format!("{name}.vdb"))).unwrap();
        let theirs = warpath_volume::vol::read_vol(&data(&format!("{name}.vol"))).unwrap();
        assert_eq!(ours.grid, theirs.grid, "{name}");
        assert_eq!(theirs.bbox_min, ours.index_min.map(|v| v as f32), "{name}");
    }
}

#[test]
fn a_blosc_block_larger_than_its_frame_is_refused_before_openvdb_rs_allocates_it() {
    // Found by the fuzzer (seed 24, case 159802): a damaged Blosc header whose block size
    // claims ~4 GiB, which OpenVDB-rs would allocate before noticing.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../warpath-scene/tests/regressions/fuzz-vdb-s24-159802.vdb");
    let err = read_vdb(&path).expect_err("a damaged Blosc frame").to_string();
    assert!(err.contains("Blosc frame at byte") && err.contains("fuzz-vdb-s24-159802.vdb"), "{err}");
    // The undamaged files it was mutated from still load.
    for name in ["blob_half.vdb", "tiles.vdb"] {
        read_vdb(&data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
