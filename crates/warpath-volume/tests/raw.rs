//! Raw volumes through `load_grid`: each sample type in both byte orders, and a file whose
//! length does not match the layout.

use warpath_volume::load::{RawLayout, RawSample, load_grid, load_volume};

#[test]
fn reads_each_sample_type_in_both_byte_orders() {
    let dir = tempfile::tempdir().unwrap();
    let resolution = [4, 3, 2];
    let value = |n: usize| (n * 7 % 23) as f32 * 1.5; // exact in every type below (u8: ×2)
    for (sample, big_endian) in [
        (RawSample::U8, false),
        (RawSample::U16, false),
        (RawSample::U16, true),
        (RawSample::F32, false),
        (RawSample::F32, true),
    ] {
        let stored: Vec<f32> =
            (0..24).map(|n| if sample == RawSample::F32 { value(n) } else { 2.0 * value(n) }).collect();
        let bytes: Vec<u8> = stored
            .iter()
            .flat_map(|&v| match (sample, big_endian) {
                (RawSample::U8, _) => vec![v as u8],
                (RawSample::U16, false) => (v as u16).to_le_bytes().to_vec(),
                (RawSample::U16, true) => (v as u16).to_be_bytes().to_vec(),
                (RawSample::F32, false) => v.to_le_bytes().to_vec(),
                (RawSample::F32, true) => v.to_be_bytes().to_vec(),
            })
            .collect();
        let path = dir.path().join(format!("{sample:?}-{big_endian}.raw"));
        std::fs::write(&path, &bytes).unwrap();
        let layout = RawLayout { resolution, sample, big_endian };
        let grid = load_grid(&path, Some(&layout)).unwrap();
        assert_eq!(grid.resolution, resolution);
        assert_eq!(grid.data, stored, "{sample:?} big endian {big_endian}");
        // x fastest: voxel (1, 0, 0) is the second sample, (0, 1, 0) the fifth.
        assert_eq!(grid.voxel(1, 0, 0, 0), stored[1]);
        assert_eq!(grid.voxel(0, 1, 0, 0), stored[4]);
        assert_eq!(grid.voxel(0, 0, 1, 0), stored[12]);
        assert_eq!(load_volume(&path, Some(&layout)).unwrap().spacing, [1.0; 3]);
    }
}

#[test]
fn length_must_match_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scan.raw");
    std::fs::write(&path, vec![0u8; 47]).unwrap();
    let layout = RawLayout { resolution: [4, 3, 2], sample: RawSample::U16, big_endian: false };
    let e = load_grid(&path, Some(&layout)).unwrap_err().to_string();
    assert!(e.contains("needs exactly 48 bytes, the file holds 47") && e.contains("truncated"), "{e}");
    std::fs::write(&path, vec![0u8; 96]).unwrap();
    let e = load_grid(&path, Some(&layout)).unwrap_err().to_string();
    assert!(e.contains("the file holds 96"), "{e}");
    let huge = RawLayout { resolution: [100_000, 100_000, 100_000], ..layout };
    assert!(load_grid(&path, Some(&huge)).unwrap_err().to_string().contains("larger than the limit"));
}
