//! Argument drawers: uniform values mixed with the edges where ports tend to part (0,
//! 1 - ε, grazing and axis-aligned directions, both hemispheres, extreme exponents and
//! roughnesses, out-of-range material kinds).

use super::*;
use warpath_core::material::flags;

/// A target function's code and a contribution: channels 0 now and then, else spread
/// over 2^-40 .. 2^40 (the range a light's f·Le·G spans), each channel on its own.
pub fn target_contribution(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    // The code (what the C++ side reads) of one of TargetFunction::EVALUATED.
    let evaluated = warpath_core::restir::TargetFunction::EVALUATED;
    w.u(evaluated[rng.below(evaluated.len() as u32) as usize].code());
    for _ in 0..3 {
        let v = if rng.chance(0.1) { 0.0 } else { rng.range(1.0, 2.0) * rng.range(-40.0, 40.0).exp2() };
        w.f(v);
    }
}

/// Two roughnesses and a threshold (equal now and then, or a threshold exactly their
/// difference); a solid-angle pdf, |cos θ_y| and d² over wide ranges; candidate counts
/// and their pdfs.
pub fn restir_similarity(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let a = rng.unit();
    let b = if rng.chance(0.1) { a } else { rng.unit() };
    let threshold = if rng.chance(0.1) { (a - b).abs() } else { rng.unit() };
    w.f(a);
    w.f(b);
    w.f(threshold);
    w.f(if rng.chance(0.1) { 0.0 } else { rng.range(1.0, 2.0) * rng.range(-20.0, 20.0).exp2() });
    w.f(rng.unit());
    w.f(rng.range(1.0, 2.0) * rng.range(-20.0, 20.0).exp2());
    w.u(rng.below(4097));
    w.f(rng.range(1.0, 2.0) * rng.range(-30.0, 10.0).exp2());
    w.u(rng.below(65));
    w.f(if rng.chance(0.2) { 0.0 } else { rng.range(1.0, 2.0) * rng.range(-20.0, 20.0).exp2() });
}

/// A number of [0, 1), now and then an edge value.
pub fn u(rng: &mut Rng) -> f32 {
    if rng.chance(1.0 / 16.0) { rng.pick(&[0.0, 0.5, ONE_MINUS_EPSILON, 1e-7, 0.25, 0.75]) } else { rng.unit() }
}
pub fn u2(rng: &mut Rng) -> Vec2 {
    let x = u(rng);
    Vec2::new(x, u(rng))
}
/// A unit vector: uniform, or an axis, a grazing or a nearly grazing direction.
pub fn direction(rng: &mut Rng) -> Vec3 {
    if !rng.chance(0.125) {
        return rng.direction();
    }
    let phi = rng.range(0.0, std::f32::consts::TAU);
    match rng.below(4) {
        0 => rng.pick(&[Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z]),
        1 => Vec3::new(phi.cos(), phi.sin(), 0.0),
        // Nearly grazing, down to z whose products underflow to zero.
        2 => {
            Vec3::new(phi.cos(), phi.sin(), rng.pick(&[1e-4f32, -1e-4, 1e-6, -1e-6, 1e-25, -1e-25, 1e-40])).normalize()
        }
        _ => Vec3::new(0.0, 0.0, rng.pick(&[1.0f32, -1.0])) + rng.point(1e-3),
    }
}
pub fn alpha(rng: &mut Rng) -> f32 {
    if rng.chance(0.125) { rng.pick(&[bsdf::MIN_GGX_ALPHA, 1.0, 0.5]) } else { rng.range(bsdf::MIN_GGX_ALPHA, 1.0) }
}
pub fn exponent(rng: &mut Rng) -> f32 {
    if rng.chance(0.125) { rng.pick(&[0.0, 1.0, 2.0, 1e4, -1.0]) } else { 10f32.powf(rng.range(0.0, 4.0)) }
}
/// Relative indices: common ones, some below 1 (the inside of a dielectric; a plastic's
/// coat whose diffuse reflectance takes the fit for η ≥ 1 at 1/η), most in [1, 2.5].
pub fn eta(rng: &mut Rng) -> f32 {
    if rng.chance(0.25) {
        rng.pick(&[1.0, 1.5, 1.33, 0.75, 2.4])
    } else if rng.chance(0.2) {
        rng.range(0.3, 1.0)
    } else {
        rng.range(1.0, 2.5)
    }
}
pub fn color(rng: &mut Rng) -> Vec3 {
    if rng.chance(0.1) { Vec3::ZERO } else { Vec3::new(rng.unit(), rng.unit(), rng.unit()) }
}
/// Any material: every kind, Null, Plastic, Principled and ThinDielectric included (and a few unknown kind values),
/// random parameters and flags (two-sided emission, one-sided BSDF, nonlinear, exact conductor
/// Fresnel, Beckmann).
pub fn material(rng: &mut Rng) -> Material {
    let kind = if rng.chance(0.05) { rng.pick(&[12, 99, u32::MAX]) } else { rng.below(12) };
    // Principled weights: often 0 or 1 (lobes off, metallic, full transmission).
    let mut weight = || if rng.chance(0.3) { rng.pick(&[0.0, 0.0, 1.0]) } else { rng.unit() };
    let mut principled = [weight(), weight(), weight(), weight(), weight(), weight(), weight(), weight()];
    // Two-sided emission, one-sided BSDF, the plastic's nonlinear flag; the exact conductor
    // Fresnel and the Beckmann distribution.
    let flags = rng.below(8)
        | if rng.chance(0.5) { flags::CONDUCTOR_ETA_K } else { 0 }
        | if rng.chance(0.5) { flags::BECKMANN } else { 0 };
    // A conductor's eta and k (in spec_tint .. spec_trans) over the named metals' range.
    if flags & flags::CONDUCTOR_ETA_K != 0 && (kind == 3 || kind == 5) && rng.chance(0.7) {
        for i in 1..4 {
            principled[i] = crate::microfacet_cases::conductor_eta(rng);
            principled[i + 3] = crate::microfacet_cases::conductor_k(rng);
        }
    }
    Material {
        kind,
        base_color_texture: -1,
        // Roughness 0 is the smooth plastic, a kind of its own.
        roughness: if rng.chance(0.25) { rng.pick(&[0.0, 0.0, 1.0, 0.02]) } else { rng.unit() },
        ior: eta(rng),
        base_color: color(rng),
        exponent: exponent(rng),
        specular: color(rng),
        flags,
        emission: Vec3::ZERO,
        normal_texture: -1,
        metallic: principled[0],
        spec_tint: principled[1],
        sheen: principled[2],
        sheen_tint: principled[3],
        clearcoat: principled[4],
        clearcoat_gloss: principled[5],
        spec_trans: principled[6],
        flatness: principled[7],
        bump_texture: -1,
        bump_scale: 1.0,
        roughness_texture: -1,
        metallic_texture: -1,
        // Opaque: the random scenes draw their masks from a stream of their own.
        opacity: 1.0,
        opacity_texture: -1,
        _pad_tail: [0; 2],
    }
}

pub fn sampler_call(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.u(rng.below(2));
    w.u(if rng.chance(0.25) { rng.below(4) } else { rng.u32() });
    w.u(if rng.chance(0.5) { rng.below(4096) } else { rng.u32() });
    w.u(if rng.chance(0.5) { rng.below(1024) } else { rng.u32() });
    // Bounces beyond 2^27 would overflow (bounce + 1)·32: Rust's debug build panics
    // where CUDA wraps; paths have at most max_depth + 1 < 2^8 bounces.
    w.u(if rng.chance(0.75) { rng.below(16) } else { rng.below(1 << 20) });
    w.u(if rng.chance(0.75) { rng.below(11) } else { rng.below(64) });
}
pub fn square(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec2(u2(rng));
}
pub fn unit_arg(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.f(u(rng));
}
pub fn square_exponent(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec2(u2(rng));
    w.f(exponent(rng));
}
pub fn direction_arg(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec3(direction(rng));
}
pub fn direction_exponent(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec3(direction(rng));
    w.f(exponent(rng));
}
pub fn exponent_arg(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.f(exponent(rng));
}
pub fn two_directions(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec3(direction(rng));
    w.vec3(direction(rng) * rng.range(0.1, 4.0));
}
pub fn offset_ray_origin(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let half_size = rng.pick(&[1.0, 100.0, 1e4]);
    w.vec3(rng.point(half_size));
    w.vec3(direction(rng));
    w.vec3(direction(rng));
}
pub fn ray_and_triangle(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let (v0, v1, v2) = (rng.point(1.0), rng.point(1.0), rng.point(1.0));
    let origin = rng.point(3.0);
    // Aim at a point near the triangle, so that about half the rays hit it.
    let (b1, b2) = (rng.range(-0.2, 1.0), rng.range(-0.2, 1.0));
    let target = v0 + (v1 - v0) * b1 + (v2 - v0) * b2;
    w.vec3(origin);
    w.vec3(if rng.chance(0.9) { (target - origin).normalize_or(Vec3::Z) } else { direction(rng) });
    w.vec3(v0);
    w.vec3(v1);
    w.vec3(v2);
    w.f(rng.pick(&[0.0, 1e-4, 1.0]));
    w.f(rng.pick(&[f32::INFINITY, 2.0, 5.0]));
}
pub fn cosine_eta(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.f(if rng.chance(0.125) { rng.pick(&[0.0, 1.0, -1.0, 1e-7, -1e-7, 1.5]) } else { rng.range(-1.0, 1.0) });
    w.f(eta(rng));
}
/// A rough plastic coat's (roughness, η, cos θ, Beckmann?): mostly inside the tables (η in [1.1, 3]),
/// their edges, and η outside them; cosines in (0, 1] with Mitsuba's table nodes and ends.
pub fn rough_plastic_coat(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let (eta_min, eta_max) = (bsdf::rough_plastic::TABLE_ETA_MIN, bsdf::rough_plastic::TABLE_ETA_MAX);
    w.f(if rng.chance(0.125) { rng.pick(&[0.0, 0.005, 0.01, 0.1, 1.0]) } else { rng.unit() });
    w.f(if rng.chance(0.125) {
        rng.pick(&[eta_min, eta_max, 1.0, 1.05, 3.5, 0.7])
    } else {
        rng.range(eta_min, eta_max)
    });
    w.f(if rng.chance(0.125) { rng.pick(&[1.0, 1e-6, 1.0 / 63.0, 0.5, 62.0 / 63.0]) } else { rng.range(1e-6, 1.0) });
    // GGX's tables or Beckmann's.
    w.u(rng.below(2));
}
pub fn color_cosine(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec3(color(rng));
    w.f(rng.range(-1.0, 1.0));
}
pub fn direction_alpha(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec3(direction(rng));
    w.f(alpha(rng));
}
pub fn two_directions_alpha(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec3(direction(rng));
    w.vec3(direction(rng));
    w.f(alpha(rng));
}
pub fn vndf_sample(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    // sample_ggx_vndf expects wo.z > 0 (the callers flip wo to the upper side).
    let wo = direction(rng);
    w.vec3(Vec3::new(wo.x, wo.y, wo.z.abs()));
    w.f(alpha(rng));
    w.vec2(u2(rng));
}
pub fn reflect_refract(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec3(direction(rng));
    w.vec3(direction(rng));
    w.f(rng.range(-1.0, 1.0));
    w.f(1.0 / eta(rng));
}
pub fn material_arg(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.pod(&material(rng));
}
/// (material, base color, wo, wi); wo in either hemisphere (opaque kinds must return
/// zero below), wi often the mirror of wo or near it, where the glossy lobes live.
pub fn bsdf_query(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.pod(&material(rng));
    w.vec3(color(rng));
    let wo = direction(rng);
    let wo = if rng.chance(0.8) { Vec3::new(wo.x, wo.y, wo.z.abs()) } else { wo };
    w.vec3(wo);
    let wi = match rng.below(4) {
        0 => (bsdf::reflect_z(wo) + rng.point(0.1)).normalize_or(Vec3::Z),
        1 => (-wo + rng.point(0.1)).normalize_or(Vec3::Z),
        _ => direction(rng),
    };
    w.vec3(wi);
}
/// (material, base color, wo, u_lobe, u); now and then u_lobe within a few ulps of a
/// lobe-selection threshold, where a one-ulp drift in the probabilities flips the lobe.
pub fn bsdf_sample(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let m = material(rng);
    let base_color = color(rng);
    let wo = direction(rng);
    let wo = if rng.chance(0.8) { Vec3::new(wo.x, wo.y, wo.z.abs()) } else { wo };
    let thresholds = lobe_thresholds(&m, base_color, wo);
    let u_lobe = if !thresholds.is_empty() && rng.chance(0.25) {
        let steps = rng.below(7) as i32 - 3;
        ulps_away(rng.pick(&thresholds), steps).clamp(0.0, ONE_MINUS_EPSILON)
    } else {
        u(rng)
    };
    w.pod(&m);
    w.vec3(base_color);
    w.vec3(wo);
    w.f(u_lobe);
    w.vec2(u2(rng));
}

/// `x` moved `steps` ulps (up for positive steps); `x` itself for x <= 0.
pub fn ulps_away(x: f32, steps: i32) -> f32 {
    if x > 0.0 && x.is_finite() { f32::from_bits(x.to_bits().saturating_add_signed(steps)) } else { x }
}

/// Where bsdf.rs's `sample` switches lobes as u_lobe grows, for aiming arguments at
/// those switches (recomputed here from the formulas of bsdf.rs; only the aim depends
/// on them, not the comparison).
fn lobe_thresholds(m: &Material, base_color: Vec3, wo: Vec3) -> Vec<f32> {
    use warpath_core::material::MaterialKind;
    let specular_probability = |diffuse: Vec3, specular: Vec3| {
        let (wd, ws) = (diffuse.max_element().max(0.0), specular.max_element().max(0.0));
        if wd + ws > 0.0 { ws / (wd + ws) } else { 0.0 }
    };
    match m.kind() {
        MaterialKind::Blinn => vec![specular_probability(base_color, m.specular)],
        MaterialKind::Glass => vec![bsdf::fresnel_dielectric(wo.z, m.ior).reflectance],
        MaterialKind::CarPaint => {
            let coat = bsdf::fresnel_dielectric(wo.z, m.ior).reflectance;
            let lower = (base_color.max_element().max(0.0) + m.specular.max_element().max(0.0)).min(1.0);
            let total = coat + (1.0 - coat) * lower;
            let p_coat = if total > 0.0 { coat / total } else { 1.0 };
            vec![p_coat, p_coat + specular_probability(base_color, m.specular) * (1.0 - p_coat)]
        }
        _ => Vec::new(),
    }
}

/// A point in (or just outside) the scene's bounds.
fn scene_point(rng: &mut Rng, scene: &HostScene) -> Vec3 {
    let bounds = scene.bounds();
    let t = Vec3::new(rng.range(-0.1, 1.1), rng.range(-0.1, 1.1), rng.range(-0.1, 1.1));
    bounds.min + (bounds.max - bounds.min) * t
}
/// A point, spot or directional light (spots with beams from 0 to their cutoff, now and
/// then wider than it, cutoffs up to 180°), a point near it and a direction, most of them
/// near the spot's cone, some exactly on its axis or at the shading point.
pub fn delta_light_query(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let position = rng.point(2.0);
    let axis = direction(rng);
    let intensity = color(rng) * rng.range(0.0, 10.0);
    let cutoffs = [rng.range(1.0, 60.0), rng.range(60.0, 180.0), 180.0, 0.5];
    let cutoff = rng.pick(&cutoffs);
    let beams = [rng.range(0.0, cutoff), cutoff, 0.0, cutoff * 1.5];
    let beam = rng.pick(&beams);
    let light = match rng.below(3) {
        0 => DeltaLight::point(position, intensity),
        1 => DeltaLight::spot(position, axis, intensity, cutoff, beam),
        _ => DeltaLight::directional(axis, intensity),
    };
    w.pod(&light);
    let p = match rng.below(8) {
        0 => position,
        1 => position + light.direction * rng.range(0.1, 3.0),
        _ => position + (light.direction + rng.point(1.0)) * rng.range(0.1, 3.0),
    };
    w.vec3(p);
    w.vec3(if rng.chance(0.5) { (light.direction + rng.point(0.7)).normalize_or_zero() } else { direction(rng) });
}
pub fn light_sample(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    w.vec3(scene_point(rng, scene));
    w.f(u(rng));
    w.vec2(u2(rng));
}
pub fn light_pdf_triangle(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    let count = scene.lights.triangles.len() as i32;
    w.i(if rng.chance(0.1) { rng.pick(&[-1, count, i32::MAX]) } else { rng.below(count.max(1) as u32) as i32 });
    w.vec3(direction(rng));
    w.f(rng.range(0.01, 10.0));
}
/// A direction of any length (the map normalizes it), now and then the zero vector.
pub fn environment_direction(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.vec3(if rng.chance(0.02) { Vec3::ZERO } else { direction(rng) * rng.pick(&[1.0, 0.3, 7.0]) });
}
/// A map coordinate: uniform, on the texel centres' rows and columns (within a few ulps,
/// where the patch changes), at the borders, or a little outside [0, 1]².
pub fn patch_uv(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    let map = scene.environment_map();
    let (columns, rows) = (map.width, map.height - 1);
    let near = |rng: &mut Rng, value: f32| ulps_away(value, rng.below(5) as i32 - 2);
    // Column centres, one past the last included: there, just beyond u = 1, the clamp of
    // the patch column meets the interpolation weight fx = 1.
    let column_centre = |rng: &mut Rng| (rng.below(columns + 1) as f32 + 0.5) / columns as f32;
    let row_centre = |rng: &mut Rng| rng.below(rows + 1) as f32 / rows as f32;
    w.vec2(match rng.below(8) {
        // Outside [0, 1]² the clamps of the patch bind (direction_to_uv never gives u ≥ 1;
        // env_patch takes any uv).
        0 => Vec2::new(
            rng.pick(&[0.0, 1.0, ONE_MINUS_EPSILON, -0.01, 1.01, -0.25, 1.25]),
            rng.pick(&[0.0, 1.0, 0.5, -0.01, 1.01, -0.25, 1.25]),
        ),
        1 | 2 => {
            let (u, v) = (column_centre(rng), row_centre(rng));
            Vec2::new(near(rng, u), near(rng, v))
        }
        _ => u2(rng),
    });
}
/// A texel (column, row) of the map.
pub fn texel(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    let map = scene.environment_map();
    w.u(rng.below(map.width));
    w.u(rng.below(map.height));
}
/// A patch (column, row) of the map's distribution.
pub fn cell(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    let map = scene.environment_map();
    w.u(rng.below(map.width));
    w.u(rng.below(map.height - 1));
}
/// u for Distribution2D::sample_cell: uniform, or within a few ulps of a CDF entry of the
/// marginal (v) and of a row's conditional (u), where the chosen cell changes.
pub fn cell_sample(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    let d = &scene.environment_map().distribution;
    if rng.chance(0.3) {
        let near = |rng: &mut Rng, cdf: &[f32]| {
            let value = cdf[rng.below(cdf.len() as u32) as usize];
            ulps_away(value, rng.below(5) as i32 - 2).clamp(0.0, ONE_MINUS_EPSILON)
        };
        let v = near(rng, &d.marginal.cdf);
        let row = rng.below(d.height as u32) as usize;
        let stride = d.width + 1;
        let u = near(rng, &d.conditional_cdf[row * stride..(row + 1) * stride]);
        w.vec2(Vec2::new(u, v));
    } else {
        w.vec2(u2(rng));
    }
}
/// (u, a, b) for sample_linear: weights zero, tiny, equal, far apart or huge.
pub fn linear_weights(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let weight = |rng: &mut Rng| {
        if rng.chance(0.25) { rng.pick(&[0.0, 1e-30, 1e-6, 1.0, 1e30, f32::MAX]) } else { rng.range(0.0, 10.0) }
    };
    w.f(u(rng));
    w.f(weight(rng));
    w.f(weight(rng));
}
pub fn texture_lookup(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    w.u(rng.below(scene.scene.textures.len() as u32));
    w.vec2(Vec2::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0)));
}
pub fn film_and_lens(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    let settings = &scene.scene.settings;
    let (width, height) = (settings.width as f32, settings.height as f32);
    w.vec2(if rng.chance(0.05) {
        Vec2::new(rng.pick(&[0.0, width, 0.5 * width]), rng.pick(&[0.0, height, 0.5 * height]))
    } else {
        Vec2::new(rng.range(0.0, width), rng.range(0.0, height))
    });
    w.vec2(u2(rng));
}
/// A pixel's f64 sums and count and a pass's f32 sums and count: zeros, magnitudes from
/// tiny to beyond f32's, now and then a non-finite pass value (dropped samples never
/// reach the buffers, but the merge must not care).
pub fn film_pass(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let magnitude = |rng: &mut Rng| 10f64.powi(rng.below(30) as i32 - 15);
    for _ in 0..6 {
        let value = if rng.chance(0.1) { 0.0 } else { rng.unit() as f64 * magnitude(rng) * 1e3 };
        w.d(value + rng.unit() as f64 * 1e-9);
    }
    for _ in 0..6 {
        w.f(if rng.chance(0.02) {
            rng.pick(&[f32::NAN, f32::INFINITY, 0.0, f32::MAX])
        } else {
            rng.unit() * magnitude(rng) as f32
        });
    }
    w.u(if rng.chance(0.1) { rng.below(1 << 30) } else { rng.below(1 << 20) });
    w.u(rng.below(1 << 12));
}
pub fn pixel_sample(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    let settings = &scene.scene.settings;
    w.u(rng.below(settings.width * settings.height));
    w.u(if rng.chance(0.5) { rng.below(64) } else { rng.u32() });
}
