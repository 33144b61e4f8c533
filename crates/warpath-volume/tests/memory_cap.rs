//! The volume loaders under a memory cap (`warpath_core::limits::set_memory_cap`; its own
//! test binary, since the cap is process-wide): a grid within warpath's value limit but
//! larger than the memory the process can get is refused before anything of its size is
//! allocated — before the file's length or contents are even looked at — with an error that
//! names the file, the claim and the bound; the same files load once the memory is there.

use std::io::Write;
use std::path::{Path, PathBuf};
use warpath_core::limits;
use warpath_volume::grid::VolumeGrid;
use warpath_volume::load::{RawLayout, RawSample, load_volume};
use warpath_volume::nifti::parse_nifti;
use warpath_volume::procedural::{CloudParams, cloud_grid, constant_grid};
use warpath_volume::vol::{parse_vol, vol_bytes};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// A `.vol` header claiming `resolution` × 1 channel, with no values after it.
fn vol_header(resolution: [u32; 3]) -> Vec<u8> {
    let grid = VolumeGrid::new([1, 1, 1], 1, vec![0.5]).unwrap();
    let mut bytes = vol_bytes(&grid);
    bytes.truncate(48);
    for (a, n) in resolution.into_iter().enumerate() {
        bytes[8 + 4 * a..12 + 4 * a].copy_from_slice(&(n as i32).to_le_bytes());
    }
    bytes
}

/// A gzipped NIfTI-1 header claiming `dim` u8 voxels, with no voxel data.
fn nii_gz_header(dim: [i16; 3]) -> Vec<u8> {
    let mut h = vec![0u8; 352];
    h[0..4].copy_from_slice(&348i32.to_le_bytes());
    for (a, d) in [3, dim[0], dim[1], dim[2], 1, 1, 1, 1].into_iter().enumerate() {
        h[40 + 2 * a..42 + 2 * a].copy_from_slice(&d.to_le_bytes());
    }
    h[70..72].copy_from_slice(&2i16.to_le_bytes()); // u8
    h[72..74].copy_from_slice(&8i16.to_le_bytes());
    h[108..112].copy_from_slice(&352f32.to_le_bytes());
    h[344..348].copy_from_slice(b"n+1\0");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&h).unwrap();
    encoder.finish().unwrap()
}

fn assert_contains(message: &str, needles: &[&str]) {
    for needle in needles {
        assert!(message.contains(needle), "'{needle}' missing from: {message}");
    }
}

#[test]
fn grids_beyond_the_memory_cap_are_errors_and_load_without_it() {
    limits::set_memory_cap(Some(16 << 10));

    // 64×64×2 f32 = 32 KiB: within the value limit, over the cap; refused before the
    // missing body is noticed.
    let message = parse_vol(&vol_header([64, 64, 2]), Path::new("smoke.vol")).unwrap_err().to_string();
    assert_contains(
        &message,
        &["smoke.vol: the .vol header claims a grid of 64×64×2 voxels", "32.0 KiB", "16.0 KiB (memory cap)"],
    );
    assert!(!message.contains("truncated"), "{message}");

    // A 240-byte .nii.gz claiming 100×100×10 voxels (39 KiB as f32).
    let message = parse_nifti(&nii_gz_header([100, 100, 10]), Path::new("scan.nii.gz")).unwrap_err().to_string();
    assert_contains(&message, &["scan.nii.gz: the NIfTI header claims a grid of 100×100×10 voxels", "(memory cap)"]);

    // A raw layout is checked before the file is read (this file is far too short anyway).
    let layout = RawLayout { resolution: [64, 64, 4], sample: RawSample::U8, big_endian: false };
    let message = load_volume(&data("u8.nii"), Some(&layout)).unwrap_err().to_string();
    assert_contains(&message, &["u8.nii: the raw layout claims a grid of 64×64×4 voxels", "(memory cap)"]);

    // tiles.vdb (20 KB) densifies to 41×16×8 voxels, 21 KB of f32.
    let message = load_volume(&data("tiles.vdb"), None).unwrap_err().to_string();
    assert_contains(
        &message,
        &["tiles.vdb: the active voxels' bounding box claims a grid of 41×16×8 voxels", "(memory cap)"],
    );

    // Generated grids obey the same guard.
    let message = cloud_grid([32, 32, 32], &CloudParams::default()).unwrap_err();
    assert_contains(&message, &["the procedural cloud claims a grid of 32×32×32 voxels", "(memory cap)"]);
    assert!(constant_grid([16, 16, 16], 3, 0.5).unwrap_err().contains("(memory cap)"));

    // Small grids still load under the cap.
    let small = VolumeGrid::new([4, 3, 2], 1, (0..24).map(|v| v as f32).collect()).unwrap();
    assert_eq!(parse_vol(&vol_bytes(&small), Path::new("small.vol")).unwrap().grid, small);

    limits::set_memory_cap(None);
    let tiles = load_volume(&data("tiles.vdb"), None).unwrap();
    assert_eq!(tiles.grid.resolution, [41, 16, 8]);
    // The .vol header now passes the guard and fails for its missing values.
    let message = parse_vol(&vol_header([64, 64, 2]), Path::new("smoke.vol")).unwrap_err().to_string();
    assert!(message.contains("truncated") && !message.contains("memory"), "{message}");
    assert_eq!(cloud_grid([32, 32, 32], &CloudParams::default()).unwrap().data.len(), 32 * 32 * 32);
}
