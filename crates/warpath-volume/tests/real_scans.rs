//! The real data of `scripts/fetch-assets` (docs/assets.md) through warpath's loaders: the
//! MRI and MNI152 NIfTI scans, the frog's raw tissue labels, and the 3D-print images printed
//! into seed 003's albedo grids. CI has no assets: each test prints a notice and passes
//! when its file is absent.

use glam::Vec3;
use std::path::PathBuf;
use warpath_core::color::srgb_to_linear;
use warpath_volume::load::{RawLayout, RawSample, load_volume};
use warpath_volume::nifti::read_nifti;
use warpath_volume::print::{DEFAULT_WHITE, PrintImage, print_albedo};

fn asset(relative: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(relative);
    if path.exists() {
        Some(path)
    } else {
        println!("notice: {relative} is not there (run scripts/fetch-assets); test skipped");
        None
    }
}

fn describe(name: &str, grid: &warpath_volume::VolumeGrid, spacing: [f32; 3]) {
    let [nx, ny, nz] = grid.resolution;
    let (lo, hi) = grid.range();
    let nonzero = grid.data.iter().filter(|&&v| v != 0.0).count();
    println!(
        "{name}: {nx}×{ny}×{nz}, values {lo}..{hi}, spacing {:?}, {:.1}% non-zero",
        spacing,
        100.0 * nonzero as f64 / grid.data.len() as f64
    );
}

#[test]
fn mricron_ch2better() {
    let Some(path) = asset("volumes/ch2better.nii.gz") else { return };
    let scan = read_nifti(&path).unwrap();
    describe("ch2better.nii.gz", &scan.grid, scan.spacing);
    println!(
        "  {:?}, big endian {}, scl {} {}, unit {:?}",
        scan.header.datatype, scan.header.big_endian, scan.header.scl_slope, scan.header.scl_inter, scan.header.unit
    );
    assert_eq!(scan.grid.resolution, [301, 370, 316]);
    let (lo, hi) = scan.grid.range();
    // nibabel 5.4.2 reads the same: u8, max 130, 37.0% non-zero, voxel (150, 180, 150) = 62.
    assert_eq!((lo, hi), (0.0, 130.0));
    assert_eq!(scan.grid.voxel(150, 180, 150, 0), 62.0);
}

#[test]
fn nilearn_mni152() {
    let Some(path) = asset("volumes/mni152_t1.nii.gz") else { return };
    let loaded = load_volume(&path, None).unwrap();
    describe("mni152_t1.nii.gz", &loaded.grid, loaded.spacing);
    let scan = read_nifti(&path).unwrap();
    println!(
        "  {:?}, big endian {}, scl {} {}, unit {:?}",
        scan.header.datatype, scan.header.big_endian, scan.header.scl_slope, scan.header.scl_inter, scan.header.unit
    );
    assert_eq!(loaded.grid.resolution, [197, 233, 189]);
    assert_eq!(loaded.spacing, [1.0; 3]);
    // nibabel 5.4.2: u8, 0..255, voxel (98, 116, 94) = 198.
    assert_eq!(loaded.grid.range(), (0.0, 255.0));
    assert_eq!(loaded.grid.voxel(98, 116, 94, 0), 198.0);
}

#[test]
fn pyvista_frog_tissues() {
    let Some(path) = asset("volumes/frog_tissues.raw") else { return };
    let layout = RawLayout { resolution: [500, 470, 136], sample: RawSample::U8, big_endian: false };
    let loaded = load_volume(&path, Some(&layout)).unwrap();
    describe("frog_tissues.raw", &loaded.grid, [1.0, 1.0, 1.5]);
    assert_eq!(loaded.grid.range(), (0.0, 29.0));
    // Labels are whole numbers.
    assert!(loaded.grid.data.iter().all(|v| v.fract() == 0.0));
}

/// A PNG as linear RGB, top row first (what warpath-scene's image loader gives).
fn load_png(path: &std::path::Path) -> (u32, u32, Vec<Vec3>) {
    let image = image::open(path).unwrap().to_rgb8();
    let pixels = image.pixels().map(|p| Vec3::from_array(p.0.map(|c| srgb_to_linear(c as f32 / 255.0)))).collect();
    (image.width(), image.height(), pixels)
}

#[test]
fn print_scenes_carry_real_images() {
    for (file, resolution) in [("print/debian-logo.png", [100, 100, 100]), ("print/astronaut.png", [320, 320, 100])] {
        let Some(path) = asset(file) else { continue };
        let (width, height, pixels) = load_png(&path);
        let image = PrintImage { width, height, pixels: &pixels };
        let grid = print_albedo(&image, resolution, 10, DEFAULT_WHITE).unwrap();
        let [nx, ny, nz] = resolution;
        // The top layer holds the image: voxel (i, j) of the top face reads the image at
        // u = (i + ½)/nx, v = 1 − (j + ½)/ny.
        for (i, j) in [(nx / 2, ny / 2), (nx / 4, 3 * ny / 4), (nx - 1, 0)] {
            let expected = image.sample((i as f32 + 0.5) / nx as f32, 1.0 - (j as f32 + 0.5) / ny as f32);
            for k in [nz - 10, nz - 1] {
                let got = Vec3::new(grid.voxel(i, j, k, 0), grid.voxel(i, j, k, 1), grid.voxel(i, j, k, 2));
                assert_eq!(got, expected, "{file}: voxel ({i}, {j}, {k})");
            }
            assert_eq!(grid.voxel(i, j, nz - 11, 0), DEFAULT_WHITE);
        }
        let top: Vec<f32> = (0..nx * ny).map(|n| grid.voxel(n % nx, n / nx, nz - 1, 0)).collect();
        let (lo, hi) = top.iter().fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
        println!("{file}: {width}×{height} printed into {nx}×{ny}×{nz}, top-layer red {lo:.3}..{hi:.3}");
        assert!(hi - lo > 0.5, "{file}: the printed layer should show the image");
    }
}
