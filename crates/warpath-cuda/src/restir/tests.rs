//! Unit tests of the ReSTIR renderer's host side: how many lanes trace a pixel's reuse rays.

use super::*;

#[test]
fn ray_lanes_per_mode() {
    let px = 1920 * 1080;
    // One lane per ray by default: the pixel's own and its k neighbours', at most 32.
    assert_eq!(RayLanes::Auto.ray_group(BiasCorrection::RayTraced, 5, px), 6);
    assert_eq!(RayLanes::Auto.ray_group(BiasCorrection::RayTraced, 40, px), 32);
    assert_eq!(RayLanes::Auto.ray_group(BiasCorrection::Pairwise, 5, px), 6);
    // 1/M traces one ray a pixel; pairwise's bits hold 32 neighbours; inline is inline.
    assert_eq!(RayLanes::Lanes(8).ray_group(BiasCorrection::Off, 5, px), 1);
    assert_eq!(RayLanes::Auto.ray_group(BiasCorrection::Pairwise, 33, px), 0);
    assert_eq!(RayLanes::Inline.ray_group(BiasCorrection::RayTraced, 5, px), 0);
    assert_eq!(RayLanes::Lanes(3).ray_group(BiasCorrection::RayTraced, 5, px), 3);
    // Threads are numbered in 32 bits: an image too large for 32 lanes a pixel is inline.
    assert_eq!(RayLanes::Lanes(32).ray_group(BiasCorrection::RayTraced, 5, u32::MAX / 8), 0);
    assert_eq!(RayLanes::from_count(0).unwrap(), RayLanes::Inline);
    assert_eq!(RayLanes::from_count(32).unwrap(), RayLanes::Lanes(32));
    assert!(RayLanes::from_count(33).is_err());
}
