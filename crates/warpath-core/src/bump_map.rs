//! Bump mapping, as Mitsuba 3's `bumpmap` BSDF does it.
//!
//! - The height is a texture's red channel (raw, not sRGB-decoded; the importers store the
//!   luminance of an RGB height image there, as Mitsuba's `eval_1` reads it). Its gradient
//!   over (u, v) is the exact derivative of the bilinear lookup
//!   (`warpath_scene::Texture::sample`): [`height_gradient`], from the four texels around the
//!   lookup, times the bump map's `scale`.
//! - The surface's dp/du and dp/dv (the triangle's, [`crate::normal_map::triangle_dp_du`] and
//!   [`triangle_dp_dv`]) get their component along the shading normal `n` replaced by the
//!   scaled gradient's: dp/du' = dp/du + n (∂h/∂u − n·dp/du), likewise for v. The bumped
//!   normal is dp/du' × dp/dv' normalized, flipped onto the geometric normal's side (which
//!   makes it independent of the sign of v). Only variations of the height matter, not its
//!   offset.
//! - From there on it is a normal map (Mitsuba 3.9's `bumpmap` has `normalmap`'s options
//!   and defaults): the bumped normal, taken to the normal map's tangent frame, goes through
//!   [`crate::normal_map::perturb_local`]: its tangential part is mirrored when the viewer
//!   sees it from the other side than `n`, and the BSDF toward `wi` gets the side test and
//!   the shadow-terminator term of [`crate::normal_map::MappedNormal::factor`].
//!
//! A two-sided material seen from behind uses the front face's bumped normal negated (as for
//! normal maps). The CUDA port (`kernels/common/bump_map.cuh`) computes the same thing,
//! operation for operation (checked bit for bit by warpath-lockstep).

use crate::normal_map::{self, MappedNormal};
use glam::{Vec2, Vec3};

/// Mitsuba's dp/dv of a triangle with vertices `p` and texture coordinates `uv` (the
/// companion of [`crate::normal_map::triangle_dp_du`]); zero for degenerate uvs.
pub fn triangle_dp_dv(p: [Vec3; 3], uv: [Vec2; 3]) -> Vec3 {
    let (dp0, dp1) = (p[1] - p[0], p[2] - p[0]);
    let (duv0, duv1) = (uv[1] - uv[0], uv[2] - uv[0]);
    let det = duv0.x * duv1.y - duv0.y * duv1.x;
    if det == 0.0 {
        return Vec3::ZERO;
    }
    let inv_det = 1.0 / det;
    (dp1 * duv0.x - dp0 * duv1.x) * inv_det
}

/// The (u, v) gradient of a bilinear lookup in a `width × height` texture whose rows are
/// stored top first (v grows upward): `h` the heights at the lookup's texels (x0, y0),
/// (x0 + 1, y0), (x0, y0 + 1), (x0 + 1, y0 + 1) (row y0 + 1 lies below y0) and (`fx`, `fy`)
/// the lookup's fractions between them.
pub fn height_gradient(h: [f32; 4], fx: f32, fy: f32, width: u32, height: u32) -> Vec2 {
    let [h00, h10, h01, h11] = h;
    let d_x = (h10 - h00) * (1.0 - fy) + (h11 - h01) * fy;
    let d_y = (h01 - h00) * (1.0 - fx) + (h11 - h10) * fx;
    Vec2::new(d_x * width as f32, -(d_y * height as f32))
}

/// The bumped normal (world space, unit, on `ng`'s side) before the normal map's treatment,
/// for the front face's shading normal `n` (unit) and geometric normal `ng`, the surface's
/// dp/du and dp/dv, the height's (u, v) `gradient` and the bump map's `scale`. Degenerate
/// inputs (zero dp/du and dp/dv, a non-finite normal) leave `n`.
pub fn bumped_normal(n: Vec3, ng: Vec3, dp_du: Vec3, dp_dv: Vec3, gradient: Vec2, scale: f32) -> Vec3 {
    let g = gradient * scale;
    let du = dp_du + n * (g.x - n.dot(dp_du));
    let dv = dp_dv + n * (g.y - n.dot(dp_dv));
    let m = du.cross(dv).normalize_or_zero();
    if m == Vec3::ZERO {
        n
    } else if m.dot(ng) < 0.0 {
        -m
    } else {
        m
    }
}

/// The perturbed shading normal (world space, unit) and its [`MappedNormal`]: the
/// [`bumped_normal`] as a normal map in its tangent frame, seen from `wo`.
pub fn perturb(
    n: Vec3,
    ng: Vec3,
    dp_du: Vec3,
    dp_dv: Vec3,
    gradient: Vec2,
    scale: f32,
    wo: Vec3,
) -> (Vec3, MappedNormal) {
    let m = bumped_normal(n, ng, dp_du, dp_dv, gradient, scale);
    let local = normal_map::tangent_frame(n, dp_du).to_local(m);
    normal_map::perturb_local(n, dp_du, local, wo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normal_map::triangle_dp_du;

    #[test]
    fn dp_dv_of_a_uv_aligned_triangle_is_its_v_edge_direction() {
        let p = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 3.0, 0.0)];
        let uv = [Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)];
        assert_eq!(triangle_dp_dv(p, uv), Vec3::new(0.0, 3.0, 0.0));
        let flipped = uv.map(|c| Vec2::new(c.x, 1.0 - c.y));
        assert_eq!(triangle_dp_dv(p, flipped), Vec3::new(0.0, -3.0, 0.0));
        assert_eq!(triangle_dp_dv(p, [Vec2::ZERO; 3]), Vec3::ZERO);
    }

    #[test]
    fn a_linear_ramp_tilts_the_normal_by_its_slope() {
        // Height h = a u + b v over a plane with dp/du = x, dp/dv = y: the bumped surface is
        // (u, v, s h), whose normal is (−s a, −s b, 1) normalized.
        let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let uv = [Vec2::ZERO, Vec2::X, Vec2::Y];
        let (dp_du, dp_dv) = (triangle_dp_du(p, uv), triangle_dp_dv(p, uv));
        let (a, b, s) = (0.3, -0.7, 2.0);
        let expected = Vec3::new(-s * a, -s * b, 1.0).normalize();
        let m = bumped_normal(Vec3::Z, Vec3::Z, dp_du, dp_dv, Vec2::new(a, b), s);
        assert!((m - expected).length() < 1e-6, "{m} vs {expected}");
        // Seen from above: the normal map's treatment keeps it, with the terminator's α².
        let (world, mapped) = perturb(Vec3::Z, Vec3::Z, dp_du, dp_dv, Vec2::new(a, b), s, Vec3::Z);
        assert!((world - expected).length() < 1e-6, "{world} vs {expected}");
        let tan2 = (1.0 - expected.z * expected.z) / (expected.z * expected.z);
        assert!((mapped.alpha2 - (tan2 / 8.0).min(1.0)).abs() < 1e-5, "{}", mapped.alpha2);
        assert_eq!(mapped.factor(world, Vec3::new(0.0, 1.0, 0.0)), 0.0);
        // The sign of v (uvs flipped upside down, so dp/dv and ∂h/∂v both negate) changes nothing.
        let m2 = bumped_normal(Vec3::Z, Vec3::Z, dp_du, -dp_dv, Vec2::new(a, -b), s);
        assert!((m2 - m).length() < 1e-6, "{m2} vs {m}");
        // A viewer below the bumped normal but above n sees the tilt mirrored.
        let tilt = Vec3::new(expected.x, expected.y, 0.0).normalize();
        let wo = (-tilt + Vec3::Z * 0.05).normalize();
        let (flipped, _) = perturb(Vec3::Z, Vec3::Z, dp_du, dp_dv, Vec2::new(a, b), s, wo);
        let mirrored = Vec3::new(-expected.x, -expected.y, expected.z);
        assert!((flipped - mirrored).length() < 1e-6, "{flipped} vs {mirrored}");
    }

    #[test]
    fn a_constant_height_leaves_the_normal() {
        let n = Vec3::new(0.1, 0.2, 1.0).normalize();
        let g = height_gradient([0.4; 4], 0.3, 0.8, 16, 8);
        assert_eq!(g, Vec2::ZERO);
        let m = bumped_normal(n, Vec3::Z, Vec3::X, Vec3::Y, g, 5.0);
        // dp/du' × dp/dv' with both made tangent to n is along n.
        assert!((m - n).length() < 1e-6, "{m} vs {n}");
        let (world, mapped) = perturb(n, Vec3::Z, Vec3::X, Vec3::Y, g, 5.0, Vec3::Z);
        assert!((world - n).length() < 1e-6 && mapped.alpha2 < 1e-10, "{world} {}", mapped.alpha2);
    }

    #[test]
    fn the_gradient_is_the_derivative_of_the_bilinear_lookup() {
        // Heights rising by 1 per texel to the right and 2 per row downward (toward lower v).
        let h = [0.0, 1.0, 2.0, 3.0];
        let (w, ht) = (4, 8);
        let g = height_gradient(h, 0.25, 0.75, w, ht);
        assert_eq!(g, Vec2::new(1.0 * w as f32, -2.0 * ht as f32));
    }

    #[test]
    fn the_bumped_normal_stays_on_the_geometric_side() {
        // dp/du × dp/dv pointing below: the result is flipped up.
        let m = bumped_normal(Vec3::Z, Vec3::Z, Vec3::Y, Vec3::X, Vec2::new(0.2, 0.1), 1.0);
        assert!(m.z > 0.0, "{m}");
        let m = bumped_normal(Vec3::Z, Vec3::Z, Vec3::ZERO, Vec3::ZERO, Vec2::new(0.2, 0.1), 1.0);
        assert_eq!(m, Vec3::Z);
    }
}
