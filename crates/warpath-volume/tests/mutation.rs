//! Damaged files never panic: each format's valid file is truncated, bit-flipped and
//! "inflated" (header bytes overwritten with large values, bytes appended) many times with
//! a fixed seed; every outcome must be a grid or an error that names the file, and no
//! loader may allocate what a damaged header claims (a claim past the limits is an error).

use std::path::{Path, PathBuf};
use warpath_volume::grid::VolumeGrid;
use warpath_volume::load::{RawLayout, RawSample, load_volume};
use warpath_volume::nifti::parse_nifti;
use warpath_volume::raw::parse_raw;
use warpath_volume::vol::{parse_vol, vol_bytes};
use warpath_volume::{VolumeError, load_grid};

/// xorshift64*: a fixed, portable sequence.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The `trial`-th damaged copy of `good`; header fields live in the first `header` bytes.
fn mutate(good: &[u8], header: usize, trial: usize, rng: &mut Rng) -> Vec<u8> {
    let mut b = good.to_vec();
    match trial % 4 {
        0 => b.truncate(rng.below(good.len())),
        1 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
        }
        2 => {
            // Inflate: a run of 0xff / 0x7f bytes over a header field.
            let i = rng.below(header.min(b.len()).saturating_sub(4).max(1));
            for k in 0..1 + rng.below(4) {
                if i + k < b.len() {
                    b[i + k] = if rng.below(2) == 0 { 0xff } else { 0x7f };
                }
            }
        }
        _ => {
            let extra = 1 + rng.below(64);
            b.extend((0..extra).map(|_| rng.next() as u8));
        }
    }
    b
}

/// Runs `parse` on 1,000 damaged copies of `good`; every error must name `path`.
fn no_panics(good: &[u8], header: usize, path: &Path, parse: impl Fn(&[u8]) -> Result<VolumeGrid, VolumeError>) {
    let mut rng = Rng(0x5EED_0003_u64 ^ good.len() as u64);
    let (mut ok, mut errors) = (0, 0);
    for trial in 0..1000 {
        let bytes = mutate(good, header, trial, &mut rng);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse(&bytes)));
        match outcome {
            Err(_) => panic!("{}: trial {trial} panicked ({} bytes)", path.display(), bytes.len()),
            Ok(Ok(grid)) => {
                assert_eq!(grid.data.len() as u64, VolumeGrid::value_count(grid.resolution, grid.channels).unwrap());
                ok += 1;
            }
            Ok(Err(e)) => {
                let message = e.to_string();
                assert!(message.starts_with(&path.display().to_string()), "error does not name the file: {message}");
                assert!(message.len() > path.display().to_string().len() + 10, "error says too little: {message}");
                errors += 1;
            }
        }
    }
    println!("{}: {ok} damaged copies still read, {errors} clear errors", path.display());
    assert!(errors > 500, "most damaged copies must be errors ({errors} of 1000)");
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

#[test]
fn damaged_vol_files() {
    let grid = VolumeGrid::from_fn([6, 5, 4], |i, j, k| (i + 2 * j + 3 * k) as f32);
    let path = Path::new("damaged.vol");
    no_panics(&vol_bytes(&grid), 48, path, |b| parse_vol(b, path).map(|f| f.grid));
}

#[test]
fn damaged_nifti_files() {
    for name in ["u8.nii", "i16_be_scaled.nii", "u16_extension.nii", "f64_4d.nii"] {
        let path = PathBuf::from(format!("damaged-{name}"));
        no_panics(&std::fs::read(data(name)).unwrap(), 352, &path, |b| parse_nifti(b, &path).map(|s| s.grid));
    }
}

#[test]
fn damaged_gzip_nifti_files() {
    for name in ["i32.nii.gz", "f32_be.nii.gz", "u32_scaled.nii.gz"] {
        let path = PathBuf::from(format!("damaged-{name}"));
        let good = std::fs::read(data(name)).unwrap();
        // Damage the compressed bytes...
        no_panics(&good, good.len(), &path, |b| parse_nifti(b, &path).map(|s| s.grid));
        // ...and the header inside the stream (recompressed, so the damage reaches the parser).
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&good[..]), &mut raw).unwrap();
        let mut rng = Rng(11);
        for trial in 0..300 {
            let damaged = mutate(&raw, 352, trial, &mut rng);
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut enc, &damaged).unwrap();
            let gz = enc.finish().unwrap();
            let outcome = std::panic::catch_unwind(|| parse_nifti(&gz, &path).map(|s| s.grid));
            assert!(outcome.is_ok(), "{name}: recompressed trial {trial} panicked");
        }
    }
}

#[test]
fn damaged_raw_files() {
    let layout = RawLayout { resolution: [6, 5, 4], sample: RawSample::U16, big_endian: true };
    let good: Vec<u8> = (0..120u16).flat_map(|v| v.to_be_bytes()).collect();
    let path = Path::new("damaged.raw");
    // Flips keep a raw file valid (no header); truncations and extensions must be errors.
    let mut rng = Rng(3);
    for trial in 0..1000 {
        let bytes = mutate(&good, 0, trial, &mut rng);
        let outcome = std::panic::catch_unwind(|| parse_raw(&bytes, &layout, path));
        let result = outcome.unwrap_or_else(|_| panic!("raw trial {trial} panicked"));
        assert_eq!(result.is_ok(), bytes.len() == good.len(), "trial {trial}");
    }
    // Inflated layouts: refused by size or by the limit, before allocating.
    for resolution in [[6, 5, 5], [u32::MAX, u32::MAX, u32::MAX], [1 << 16, 1 << 16, 1], [0, 5, 4]] {
        let layout = RawLayout { resolution, ..layout };
        let e = parse_raw(&good, &layout, path).unwrap_err().to_string();
        assert!(e.starts_with("damaged.raw: "), "{e}");
    }
}

#[test]
fn damaged_vdb_files() {
    // OpenVDB-rs reads from a file: each damaged copy is written to disk first.
    let dir = tempfile::tempdir().unwrap();
    for name in ["blob.vdb", "blob_half.vdb", "tiles.vdb"] {
        let good = std::fs::read(data(name)).unwrap();
        let path = dir.path().join(format!("damaged-{name}"));
        let file_path = path.clone();
        // Header fields of interest lie throughout (descriptors, offsets, node masks).
        no_panics(&good, good.len(), Path::new(&file_path), move |b| {
            std::fs::write(&path, b).unwrap();
            warpath_volume::vdb::read_vdb(&path).map(|v| v.grid)
        });
    }
}

#[test]
fn damaged_files_through_the_dispatcher() {
    // The file-reading paths (lengths from metadata, streams) on damaged files on disk.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(17);
    for name in ["u8.nii", "i32.nii.gz"] {
        let good = std::fs::read(data(name)).unwrap();
        let path = dir.path().join(name);
        for trial in 0..200 {
            std::fs::write(&path, mutate(&good, 352, trial, &mut rng)).unwrap();
            let outcome = std::panic::catch_unwind(|| load_volume(&path, None));
            assert!(outcome.is_ok(), "{name}: trial {trial} panicked");
        }
    }
    let vdb = dir.path().join("blob.vdb");
    for bytes in [&b" BDV\0\0\0\0"[..], b"", b"VDB", &[0x20, 0x42, 0x44, 0x56, 0, 0, 0, 0, 1, 2, 3]] {
        std::fs::write(&vdb, bytes).unwrap();
        let e = load_grid(&vdb, None).unwrap_err().to_string();
        assert!(e.contains("blob.vdb: "), "{e}");
    }
}
