//! The NIfTI-1 reader against files written independently by nibabel (`data/make_nifti.py`):
//! every sample type, both byte orders, gzip, scl_slope/scl_inter, an extension before
//! `vox_offset`, a 4D file of one frame; and a hand-made file whose data starts after
//! padding with no extension.

use std::path::{Path, PathBuf};
use warpath_volume::load::{EXTENSIONS, load_volume};
use warpath_volume::nifti::{NiftiDatatype, SpatialUnit, parse_nifti, read_nifti};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// The stored value make_nifti.py writes at voxel (i, j, k).
fn v(i: u32, j: u32, k: u32) -> f64 {
    i as f64 + 10.0 * j as f64 + 100.0 * k as f64 - 50.0
}

fn check(name: &str, datatype: NiftiDatatype, big_endian: bool, expected: impl Fn(f64) -> f64) {
    let scan = read_nifti(&data(name)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scan.grid.resolution, [5, 4, 3], "{name}");
    assert_eq!(scan.grid.channels, 1);
    assert_eq!(scan.header.datatype, datatype, "{name}");
    assert_eq!(scan.header.big_endian, big_endian, "{name}");
    assert_eq!(scan.spacing, [0.5, 1.25, 2.0], "{name}");
    assert_eq!(scan.header.unit, SpatialUnit::Millimetre);
    for k in 0..3 {
        for j in 0..4 {
            for i in 0..5 {
                let want = expected(v(i, j, k)) as f32;
                assert_eq!(scan.grid.voxel(i, j, k, 0), want, "{name} at ({i}, {j}, {k})");
            }
        }
    }
    // The dispatcher gives the same grid and spacing.
    let loaded = load_volume(&data(name), None).unwrap();
    assert_eq!(loaded.grid, scan.grid);
    assert_eq!(loaded.spacing, scan.spacing);
}

#[test]
fn reads_every_sample_type_written_by_nibabel() {
    check("u8.nii", NiftiDatatype::U8, false, |v| v + 50.0);
    check("i8.nii", NiftiDatatype::I8, false, |v| (v / 4.0).floor());
    check("u16_extension.nii", NiftiDatatype::U16, false, |v| v + 50.0);
    check("i32.nii.gz", NiftiDatatype::I32, false, |v| v);
    check("f64_4d.nii", NiftiDatatype::F64, false, |v| v * 0.125);
}

#[test]
fn reads_big_endian_files() {
    check("i16_be_scaled.nii", NiftiDatatype::I16, true, |v| 0.5 * v + 3.0);
    check("f32_be.nii.gz", NiftiDatatype::F32, true, |v| v * 0.25);
}

#[test]
fn applies_scl_slope_and_inter() {
    check("i16_be_scaled.nii", NiftiDatatype::I16, true, |v| 0.5 * v + 3.0);
    check("u32_scaled.nii.gz", NiftiDatatype::U32, false, |v| -2.0 * (v + 50.0) + 1.5);
}

#[test]
fn reads_data_at_vox_offset_past_padding() {
    // The nifti crate 0.18 reads the data right after the extension flag when there are no
    // extensions; the standard puts it at vox_offset.
    let bytes = std::fs::read(data("u8.nii")).unwrap();
    let mut padded = bytes[..352].to_vec();
    padded[108..112].copy_from_slice(&368f32.to_le_bytes());
    padded.extend_from_slice(&[0xAA; 16]);
    padded.extend_from_slice(&bytes[352..]);
    let scan = parse_nifti(&padded, Path::new("padded.nii")).unwrap();
    assert_eq!(scan.grid.voxel(0, 0, 0, 0), 0.0);
    assert_eq!(scan.grid.voxel(4, 3, 2, 0), 234.0);
}

#[test]
fn aspect_follows_the_spacing() {
    let scan = read_nifti(&data("u8.nii")).unwrap();
    // 5·0.5, 4·1.25, 3·2 = 2.5, 5, 6.
    assert_eq!(scan.extent(), [2.5, 5.0, 6.0]);
    assert_eq!(scan.aspect(), [2.5 / 6.0, 5.0 / 6.0, 1.0]);
}

#[test]
fn size_mismatches_are_errors_before_reading() {
    let bytes = std::fs::read(data("u8.nii")).unwrap();
    let err = |b: &[u8]| parse_nifti(b, Path::new("scan.nii")).unwrap_err().to_string();
    assert!(err(&bytes[..400]).contains("(truncated?)"), "{}", err(&bytes[..400]));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(err(&longer).contains("the file holds 413 bytes"));
    // A header claiming 30000³ voxels: refused by the limit, not allocated.
    let mut huge = bytes.clone();
    for a in 1..=3 {
        huge[40 + 2 * a..42 + 2 * a].copy_from_slice(&30000i16.to_le_bytes());
    }
    assert!(err(&huge).contains("larger than the limit"), "{}", err(&huge));
    // A gzip file claiming more than its compressed bytes can hold.
    let gz = std::fs::read(data("i32.nii.gz")).unwrap();
    let mut raw = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut raw).unwrap();
    raw[42..44].copy_from_slice(&1000i16.to_le_bytes());
    raw[44..46].copy_from_slice(&1000i16.to_le_bytes());
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, &raw).unwrap();
    let inflated = enc.finish().unwrap();
    let e = parse_nifti(&inflated, Path::new("scan.nii.gz")).unwrap_err().to_string();
    assert!(e.contains("more than") && e.contains("gzip can hold"), "{e}");
}

#[test]
fn extensions_are_listed() {
    for ext in [".vol", ".nii", ".nii.gz", ".vdb"] {
        assert!(EXTENSIONS.contains(&ext));
    }
}
