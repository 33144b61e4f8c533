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

#[test]
fn restir_programs_follow_the_scene_and_the_bsdf_candidates() {
    let cornell = warpath_scene::load("cornell").expect("cornell");
    let mut principled = cornell.clone();
    principled.materials.push(warpath_core::material::Material::principled(glam::Vec3::ONE, 0.4, 1.5));
    let light_only = RestirOptions::default();
    let with_bsdf = RestirOptions { bsdf_candidates: 2, ..RestirOptions::default() };
    assert_eq!(light_only.bsdf_candidates, 0);
    // Basic materials only without BSDF candidates; the candidates' code only with some.
    assert_eq!(compiled_features(&cornell, &light_only), (MaterialFeatures::NONE, false));
    assert_eq!(compiled_features(&cornell, &with_bsdf), (MaterialFeatures::ALL, true));
    assert_eq!(compiled_features(&principled, &light_only), (MaterialFeatures::ALL, false));
    assert_eq!(compiled_features(&principled, &with_bsdf), (MaterialFeatures::ALL, true));
    let (aos, compact) = (ReservoirLayout::Aos, LightSampleFormat::Compact);
    let name = |bvh, features| program_for(aos, compact, bvh, features).name;
    assert_eq!(name(BvhLayout::Binary, (MaterialFeatures::ALL, true)), "restir");
    assert_eq!(name(BvhLayout::Wide8, (MaterialFeatures::ALL, true)), "restir_wide8");
    assert_eq!(name(BvhLayout::Wide8, (MaterialFeatures::ALL, false)), "restir_wide8_nobsdf");
    assert_eq!(name(BvhLayout::Wide8, (MaterialFeatures::NONE, false)), "restir_wide8_nobsdf_basic");
    let source = program_for(ReservoirLayout::Soa, compact, BvhLayout::Binary, (MaterialFeatures::NONE, false)).source;
    assert!(source.starts_with(
        "#define RESTIR_SOA 1\n#define RESTIR_BSDF_CANDIDATES 0\n#define WARPATH_MATERIAL_FEATURES 0x0u\n"
    ));
}
