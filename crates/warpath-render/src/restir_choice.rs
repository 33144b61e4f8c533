//! ReSTIR DI's target function and bias correction when the caller names neither: chosen by the
//! colours of the scene's emitters. One reservoir per colour channel with pairwise MIS is what
//! coloured lights need (on the GPU yardstick it halves the equal-time error of the luminance
//! target there), but on near-white lights the three channels carry the same information three
//! times at four times the frame cost, and the luminance target with ray-traced weights is twice
//! as good at equal time (docs/benchmarks/restir.md). The spatial passes follow the mode: with
//! temporal reuse (frames of a sequence) a spatial pass costs more than it gives at equal time on
//! every scene measured, without it (an accumulated still) it is the only reuse there is. The
//! temporal history's cap follows the bias correction: 5 with ray-traced weights, 20 with
//! pairwise MIS or none.

use warpath_core::restir::{BiasCorrection, TargetFunction};
use warpath_scene::Scene;

/// Emitters whose chromaticities spread more than this (the power-weighted mean of each
/// emitter's largest channel deviation from the mean chromaticity, chromaticity = rgb / (r + g
/// + b)) count as coloured. Saturated hues spread ~0.4–0.6, tinted whites ~0.05.
pub const COLOURED_SPREAD: f32 = 0.1;

/// The power-weighted spread of the emitting triangles' chromaticities (0 for one colour or no
/// emitter); see [`COLOURED_SPREAD`].
pub fn emitter_colour_spread(scene: &Scene) -> f32 {
    // (weight, chromaticity) per emitting triangle: its area times its emission's channel sum.
    let mut emitters = Vec::new();
    for (i, &m) in scene.triangle_materials.iter().enumerate() {
        let material = &scene.materials[m as usize];
        if !material.is_emissive() {
            continue;
        }
        let sum = material.emission.x + material.emission.y + material.emission.z;
        let [a, b, c] = scene.triangle_vertices(i);
        let weight = 0.5 * (b - a).cross(c - a).length() * sum;
        if sum > 0.0 && weight.is_finite() && weight > 0.0 {
            emitters.push((weight, material.emission / sum));
        }
    }
    let total: f32 = emitters.iter().map(|(w, _)| w).sum();
    if emitters.is_empty() || total <= 0.0 {
        return 0.0;
    }
    let mean = emitters.iter().fold(glam::Vec3::ZERO, |acc, (w, c)| acc + *w * *c) / total;
    emitters.iter().map(|(w, c)| w * (*c - mean).abs().max_element()).sum::<f32>() / total
}

/// The target function and bias correction for `scene`: one reservoir per channel with pairwise
/// MIS under coloured emitters, the luminance target with ray-traced weights under near-white
/// ones.
pub fn restir_choice(scene: &Scene) -> (TargetFunction, BiasCorrection) {
    if emitter_colour_spread(scene) > COLOURED_SPREAD {
        (TargetFunction::Channels, BiasCorrection::Pairwise)
    } else {
        (TargetFunction::Luminance, BiasCorrection::RayTraced)
    }
}

/// Spatial reuse passes when the caller gives none: 0 under temporal reuse, 1 without. On the GPU
/// yardstick (one steady frame against the path tracer at equal time, docs/benchmarks/restir.md)
/// dropping the spatial pass under temporal reuse halves the frame's cost and its tail: the
/// near-white fixtures' RMSE ratio goes from 0.51× to 0.25×, `many-lights`' from 1.02× to
/// 0.61×, `restir-bunny`'s from 1.01× to 0.56×.
pub fn spatial_passes(temporal: bool) -> u32 {
    if temporal { 0 } else { 1 }
}

/// The temporal history's cap (the previous frame's M at most this × the current frame's) when
/// the caller gives none, by the temporal pass's bias correction. With ray-traced 1/Z weights the
/// tail of a steady frame is a fresh sample that last frame's surface point does not see (its
/// weight then goes to the current pixel alone): a shorter history bounds it. On the GPU yardstick
/// at 1920×1080 (docs/benchmarks/restir.md) cap 5 took the near-white fixtures orbiting from 0.30×
/// to 0.24× the path tracer's RMSE at equal time (time-adjusted; static 0.25× either way) and the
/// 99.9th percentile from 0.33× to 0.17×, while under pairwise MIS (the coloured scenes) it lost:
/// `many-lights` 0.48× → 0.61×, `restir-bunny` 0.48× → 0.68×.
pub fn temporal_cap(temporal_bias: BiasCorrection) -> f32 {
    match temporal_bias {
        BiasCorrection::RayTraced => 5.0,
        BiasCorrection::Pairwise | BiasCorrection::Off => 20.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn saturated_hues_are_coloured_and_one_white_light_is_not() {
        let many = warpath_scene::load("many-lights").expect("built-in");
        assert!(emitter_colour_spread(&many) > 0.3, "{}", emitter_colour_spread(&many));
        assert_eq!(restir_choice(&many), (TargetFunction::Channels, BiasCorrection::Pairwise));
        let cornell = warpath_scene::load("cornell").expect("built-in");
        assert!(emitter_colour_spread(&cornell) < 1e-6);
        assert_eq!(restir_choice(&cornell), (TargetFunction::Luminance, BiasCorrection::RayTraced));
    }

    #[test]
    fn tinted_whites_stay_near_white_and_a_red_light_among_them_does_not() {
        let mut scene = warpath_scene::load("cornell").expect("built-in");
        let light = scene.materials.iter().position(|m| m.is_emissive()).unwrap();
        // A warm white (the fixtures' kind): chromaticity (0.37, 0.33, 0.30).
        scene.materials[light].emission = Vec3::new(18.0, 16.0, 14.5);
        assert!(emitter_colour_spread(&scene) < 1e-6, "one colour has no spread");
        assert_eq!(restir_choice(&scene).0, TargetFunction::Luminance);
        // Half the emitting triangles red: a spread of 2/3 - 0.37 on red for every emitter.
        let mut red = scene.materials[light];
        red.emission = Vec3::new(48.0, 0.0, 0.0);
        scene.materials.push(red);
        let red_id = (scene.materials.len() - 1) as u32;
        let lit: Vec<usize> =
            (0..scene.triangle_materials.len()).filter(|&i| scene.triangle_materials[i] == light as u32).collect();
        assert!(lit.len() >= 2);
        scene.triangle_materials[lit[0]] = red_id;
        assert!(emitter_colour_spread(&scene) > COLOURED_SPREAD, "{}", emitter_colour_spread(&scene));
        assert_eq!(restir_choice(&scene).0, TargetFunction::Channels);
    }
}
