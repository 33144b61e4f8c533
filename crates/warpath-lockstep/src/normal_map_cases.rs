//! The normal map's cases (`math_normal_map_*`): warpath_core::normal_map against
//! common/normal_map.cuh, bit for bit: Mitsuba's dp/du of a triangle (degenerate uvs among
//! them) and the perturbed frame with its side test and shadowing term (flat, grey and
//! arbitrary texels, dp/du zero or along the normal, viewers and lights on both sides). The
//! whole-path cases reach the same code through the random scenes' normal maps.

use crate::cases::draw;
use crate::host_scene::HostScene;
use crate::words::{Output, Reader, Rng, Words};
use glam::{Vec2, Vec3};
use warpath_core::{bump_map, normal_map};

pub fn dp_du(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let p = [r.vec3(), r.vec3(), r.vec3()];
    let uv = [r.vec2(), r.vec2(), r.vec2()];
    o.vec3(normal_map::triangle_dp_du(p, uv))
}

pub fn dp_dv(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let p = [r.vec3(), r.vec3(), r.vec3()];
    let uv = [r.vec2(), r.vec2(), r.vec2()];
    o.vec3(bump_map::triangle_dp_dv(p, uv))
}

pub fn height_gradient(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let h = [r.f(), r.f(), r.f(), r.f()];
    let (fx, fy, w, ht) = (r.f(), r.f(), r.u(), r.u());
    o.vec2(bump_map::height_gradient(h, fx, fy, w, ht))
}

pub fn bump_perturb(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (n, ng, dp_du, dp_dv) = (r.vec3(), r.vec3(), r.vec3(), r.vec3());
    let (gradient, scale, wo, wi) = (r.vec2(), r.f(), r.vec3(), r.vec3());
    o.vec3(bump_map::bumped_normal(n, ng, dp_du, dp_dv, gradient, scale));
    let (perturbed, mapped) = bump_map::perturb(n, ng, dp_du, dp_dv, gradient, scale, wo);
    o.vec3(perturbed);
    o.vec3(mapped.shading);
    o.f(mapped.alpha2);
    o.f(mapped.factor(perturbed, wi))
}

pub fn perturb(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (n, dp_du, texel, wo, wi) = (r.vec3(), r.vec3(), r.vec3(), r.vec3(), r.vec3());
    let (perturbed, mapped) = normal_map::perturb(n, dp_du, texel, wo);
    o.vec3(perturbed);
    o.vec3(mapped.shading);
    o.f(mapped.alpha2);
    o.f(mapped.factor(perturbed, wi))
}

/// A triangle with texture coordinates: random, degenerate (repeated or collinear uvs)
/// now and then.
pub fn uv_triangle(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    for _ in 0..3 {
        w.vec3(rng.point(2.0));
    }
    let uv0 = Vec2::new(rng.range(-1.0, 2.0), rng.range(-1.0, 2.0));
    let uv1 = Vec2::new(rng.range(-1.0, 2.0), rng.range(-1.0, 2.0));
    let uv2 = match rng.below(8) {
        0 => uv0,
        1 => uv0 + (uv1 - uv0) * 2.0,
        _ => Vec2::new(rng.range(-1.0, 2.0), rng.range(-1.0, 2.0)),
    };
    for uv in [uv0, uv1, uv2] {
        w.vec2(uv);
    }
}

/// Four heights (equal at times), the lookup's fractions and the texture's size.
pub fn height_gradient_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let flat = rng.chance(0.1);
    let h0 = rng.unit();
    for _ in 0..4 {
        w.f(if flat { h0 } else { rng.unit() });
    }
    w.f(rng.unit());
    w.f(rng.unit());
    w.u(1 + rng.below(4096));
    w.u(1 + rng.below(4096));
}

/// The bump map's inputs: a unit shading normal, a geometric normal near it (or opposite),
/// dp/du and dp/dv (random, along the normal, parallel or zero), a height gradient (zero at
/// times), a scale of either sign, the viewer and a light direction.
pub fn bump_perturb_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let n = rng.direction();
    w.vec3(n);
    w.vec3(if rng.chance(0.1) { -n } else { (n + rng.point(0.3)).normalize_or(n) });
    let dp_du = match rng.below(10) {
        0 => Vec3::ZERO,
        1 => n * rng.range(-2.0, 2.0),
        _ => rng.point(3.0),
    };
    w.vec3(dp_du);
    w.vec3(match rng.below(10) {
        0 => Vec3::ZERO,
        1 => dp_du * rng.range(-2.0, 2.0),
        _ => rng.point(3.0),
    });
    w.vec2(if rng.chance(0.1) { Vec2::ZERO } else { Vec2::new(rng.range(-40.0, 40.0), rng.range(-40.0, 40.0)) });
    w.f(rng.range(-2.0, 2.0));
    w.vec3(draw::direction(rng));
    w.vec3(draw::direction(rng));
}

/// A unit shading normal, a dp/du (random, along the normal, or zero), a normal-map texel
/// (mostly a normal map's bluish colours; any colour, flat grey or exact flat blue at
/// times), the viewer and a light direction.
pub fn perturb_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let n = rng.direction();
    w.vec3(n);
    w.vec3(match rng.below(10) {
        0 => Vec3::ZERO,
        1 => n * rng.range(-2.0, 2.0),
        _ => rng.point(3.0),
    });
    w.vec3(match rng.below(10) {
        0 => draw::color(rng),
        1 => Vec3::splat(0.5),
        2 => Vec3::new(0.5, 0.5, 1.0),
        _ => Vec3::new(rng.unit(), rng.unit(), rng.range(0.5, 1.0)),
    });
    w.vec3(draw::direction(rng));
    w.vec3(draw::direction(rng));
}
