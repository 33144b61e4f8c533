//! Where ReSTIR's final samples come from (`RestirFrames::set_record_origins`, the bench's
//! error maps by origin), on the built-in many-light scene at 32×24:
//!
//! - each pipeline records only the origins its stages can produce (RIS alone: light
//!   candidates; with BSDF candidates also those; temporal reuse: temporal, never in the first
//!   frame; spatial reuse: spatial), and each of those occurs;
//! - a pixel's origin is `None` exactly where its final reservoir adds nothing to the image
//!   (its radiance is what the camera sees emitted), channel by channel with one reservoir per
//!   colour channel;
//! - recording changes no image bit.

use glam::Vec3;
use warpath_bvh::BuildKind;
use warpath_cpu::restir::{BiasCorrection, RestirFrames, RestirOptions, SampleOrigin, TargetFunction, gbuffer};
use warpath_cpu::{CpuRenderer, RenderOptions};

fn scene() -> warpath_scene::Scene {
    let mut scene = warpath_scene::builtin::many_lights(512);
    scene.settings.width = 32;
    scene.settings.height = 24;
    scene.settings.max_depth = 1;
    scene.camera = warpath_core::camera::Camera::look_at(Vec3::new(0.0, 1.2, 4.5), Vec3::ZERO, Vec3::Y, 40.0);
    scene
}

#[test]
fn origins_name_the_stage_each_final_sample_came_from() {
    let scene = scene();
    let renderer = CpuRenderer::new(&scene, BuildKind::Sah);
    let view = renderer.view(&RenderOptions { seed: 5, ..RenderOptions::from_scene(&scene) });
    let classic = RestirOptions {
        target: TargetFunction::Luminance,
        bias: BiasCorrection::RayTraced,
        radius: 3.0,
        seed: 5,
        ..RestirOptions::default()
    };
    use SampleOrigin::*;
    let ris = RestirOptions { temporal: false, spatial_passes: 0, ..classic };
    for (label, options, possible) in [
        ("RIS", ris, &[None, LightCandidate][..]),
        ("RIS + BSDF candidates", RestirOptions { bsdf_candidates: 2, ..ris }, &[None, LightCandidate, BsdfCandidate]),
        ("temporal", RestirOptions { spatial_passes: 0, ..classic }, &[None, LightCandidate, Temporal]),
        ("spatial", RestirOptions { temporal: false, ..classic }, &[None, LightCandidate, Spatial]),
        ("the pipeline", classic, &[None, LightCandidate, Temporal, Spatial]),
        (
            "pairwise, 2 passes",
            RestirOptions { bias: BiasCorrection::Pairwise, spatial_passes: 2, ..classic },
            &[None, LightCandidate, Temporal, Spatial],
        ),
        (
            "per-channel, pairwise, BSDF candidates",
            RestirOptions {
                target: TargetFunction::Channels,
                bias: BiasCorrection::Pairwise,
                bsdf_candidates: 1,
                ..classic
            },
            &[None, LightCandidate, BsdfCandidate, Temporal, Spatial],
        ),
        ("1/M", RestirOptions { bias: BiasCorrection::Off, ..classic }, &[None, LightCandidate, Temporal, Spatial]),
    ] {
        let mut frames = RestirFrames::new(&view, &options).expect("renders");
        let mut plain = RestirFrames::new(&view, &options).expect("renders");
        assert!(frames.origins().is_none(), "{label}: not recording");
        frames.set_record_origins(true);
        let mut seen = [0usize; 5];
        for frame in 0..4 {
            let image = frames.render(&view, &scene.camera);
            assert_eq!(image, plain.render(&view, &scene.camera), "{label}: recording changes the image");
            let origins = frames.origins().expect("recording");
            let targets = options.target.reservoir_targets();
            assert_eq!(origins.len(), targets.len(), "{label}: one origin map per reservoir target");
            let g = gbuffer(&view, &scene.camera, frame);
            for (t, kind) in targets.iter().enumerate() {
                for (i, origin) in origins[t].iter().enumerate() {
                    assert!(possible.contains(origin), "{label}, frame {frame}: pixel {i} has origin {origin:?}");
                    assert!(frame > 0 || *origin != Temporal, "{label}: temporal reuse in the first frame");
                    seen[*origin as usize] += 1;
                    // None exactly where the reservoir adds nothing (the scene's emitters are
                    // not seen: only resampled light is in the image).
                    let adds = match kind.channel() {
                        Option::None => image[i] != g[i].emitted,
                        Some(k) => image[i][k] != g[i].emitted[k],
                    };
                    assert_eq!(*origin != None, adds, "{label}, frame {frame}, pixel {i}: origin {origin:?}");
                }
            }
        }
        eprintln!("{label}: origins over 4 frames {seen:?} (none, light, BSDF, temporal, spatial)");
        for origin in possible {
            assert!(seen[*origin as usize] > 0, "{label}: no pixel's sample came from {origin:?}");
        }
    }
}
