//! The baked pbrt-v4 cloud: deterministic (bit for bit, pinned by a hash), values in
//! [0, 1], the floor fill and the falloff with height that its formula prescribes.

use glam::Vec3;
use warpath_volume::procedural::{CloudParams, cloud_grid, perlin_noise};

fn fnv1a(data: &[f32]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for v in data {
        for b in v.to_bits().to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

#[test]
fn the_cloud_is_deterministic() {
    let params = CloudParams::default();
    let a = cloud_grid([32, 32, 32], &params).unwrap();
    let b = cloud_grid([32, 32, 32], &params).unwrap();
    assert_eq!(
        a.data.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        b.data.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    // Pinned: a change of this hash is a change of the cloud (update docs/volumes.md too).
    assert_eq!(fnv1a(&a.data), PINNED, "cloud bake changed: {:#x}", fnv1a(&a.data));
}

const PINNED: u64 = 0x926592594169e065;

#[test]
fn the_cloud_follows_its_formula() {
    let params = CloudParams::default();
    let n = 48;
    let grid = cloud_grid([n, n, n], &params).unwrap();
    let (lo, hi) = grid.range();
    assert!(lo >= 0.0 && hi <= 1.0, "range [{lo}, {hi}]");
    let mut slab_mean = vec![0.0f64; n as usize];
    let (mut empty, mut partial) = (0, 0);
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let d = grid.voxel(i, j, k, 0);
                let y = (j as f32 + 0.5) / n as f32;
                // Below y = ½ the density is at least 2(½ − y).
                assert!(d >= (2.0 * (0.5 - y)).min(1.0) - 1e-6, "({i}, {j}, {k}): {d} at y {y}");
                assert_eq!(
                    d,
                    params.density_at(Vec3::new((i as f32 + 0.5) / n as f32, y, (k as f32 + 0.5) / n as f32))
                );
                slab_mean[j as usize] += d as f64 / (n * n) as f64;
                if d == 0.0 {
                    empty += 1;
                } else if d < 1.0 {
                    partial += 1;
                }
            }
        }
    }
    // The floor is nearly full, the top thins out, and the upper half has structure.
    assert!(slab_mean[0] > 0.95, "bottom slab mean {}", slab_mean[0]);
    assert!(slab_mean[n as usize - 1] < 0.1, "top slab mean {}", slab_mean[n as usize - 1]);
    assert!(slab_mean[n as usize / 4] > slab_mean[3 * n as usize / 4]);
    assert!(empty > 1000 && partial > 1000, "{empty} empty, {partial} partial voxels");
    println!(
        "cloud 48³: slab means bottom {:.3}, middle {:.3}, top {:.3}; {empty} empty, {partial} partial",
        slab_mean[0], slab_mean[24], slab_mean[47]
    );
}

#[test]
fn a_64_cube_bakes_and_reports_its_time() {
    let start = std::time::Instant::now();
    let grid = cloud_grid([64, 64, 64], &CloudParams::default()).unwrap();
    println!("cloud 64³ baked in {:.2} s on {} threads", start.elapsed().as_secs_f64(), rayon::current_num_threads());
    assert_eq!(grid.data.len(), 64 * 64 * 64);
}

#[test]
fn wispiness_and_frequency_change_the_cloud() {
    let base = cloud_grid([16, 16, 16], &CloudParams::default()).unwrap();
    let smooth = cloud_grid([16, 16, 16], &CloudParams { wispiness: 0.0, ..Default::default() }).unwrap();
    let fine = cloud_grid([16, 16, 16], &CloudParams { frequency: 9.0, ..Default::default() }).unwrap();
    assert_ne!(base, smooth);
    assert_ne!(base, fine);
    assert!(cloud_grid([16, 16, 16], &CloudParams { density: f32::NAN, ..Default::default() }).is_err());
    // Noise at a lattice point of the scaled domain is 0 (without distortion).
    assert_eq!(perlin_noise(Vec3::new(5.0, 2.0, 1.0)), 0.0);
}
