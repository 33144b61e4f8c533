//! Normal mapping, as Mitsuba 3's `normalmap` BSDF does it (its defaults:
//! `flip_invalid_normals` and `use_shadowing_function` on).
//!
//! - The tangent frame: `s` is the mesh's dp/du ([`triangle_dp_du`]) made orthogonal to the
//!   shading normal `n` (Gram–Schmidt), `t = n × s`. Flipping the uv's v direction (OBJ's
//!   versus an image's rows) changes neither: dp/du does not depend on v's sign, and `t` is
//!   always `n × s`, so a texel's green channel leans toward `n × dp/du`.
//! - The texel's RGB `c` (read raw, not sRGB-decoded) gives the normal `2c − 1` in that frame.
//!   If the viewer `wo` lies on different sides of `n` and of the mapped normal, the mapped
//!   normal's tangential part is negated (Mitsuba's `flip_invalid_normals`). The normalized
//!   result, taken to world space, is the perturbed shading normal the BSDF is evaluated in.
//! - [`MappedNormal::factor`] is what the wrapper adds to every BSDF value and sample toward
//!   a light direction `wi`: zero when `wi` lies on different sides of the unperturbed and
//!   the perturbed normals, else the shadow-terminator term of Estevez et al. (2019),
//!   `2 / (1 + √(1 + α² tan²θi))` with `α² = min(tan²θ(mapped) / 8, 1)` and θi measured
//!   from the unperturbed normal. The pdf is zeroed where the factor is.
//!
//! A two-sided material seen from behind (the integrator flips its frame toward the viewer)
//! uses the front face's perturbed normal negated: the back of the same bumps (Mitsuba's
//! `normalmap` around a `twosided` BSDF; a `twosided` around a `normalmap` mirrors them).
//!
//! The CUDA port (`kernels/common/normal_map.cuh`) computes the same thing, operation for
//! operation (checked bit for bit by warpath-lockstep).

use crate::math::Frame;
use glam::{Vec2, Vec3};

/// Mitsuba's dp/du of a triangle with vertices `p` and texture coordinates `uv`: the
/// solution of `p1 − p0 = dp/du Δu0 + dp/dv Δv0`, `p2 − p0 = dp/du Δu1 + dp/dv Δv1`.
/// Zero when the uvs are degenerate (zero determinant).
pub fn triangle_dp_du(p: [Vec3; 3], uv: [Vec2; 3]) -> Vec3 {
    let (dp0, dp1) = (p[1] - p[0], p[2] - p[0]);
    let (duv0, duv1) = (uv[1] - uv[0], uv[2] - uv[0]);
    let det = duv0.x * duv1.y - duv0.y * duv1.x;
    if det == 0.0 {
        return Vec3::ZERO;
    }
    let inv_det = 1.0 / det;
    (dp0 * duv1.y - dp1 * duv0.y) * inv_det
}

/// The unit tangent `s` of the normal map's frame: `dp_du` made orthogonal to the unit
/// shading normal `n`; an arbitrary tangent (`Frame::from_normal(n).s`) when that is zero
/// or not finite (degenerate uvs, dp/du along `n`).
pub fn tangent(n: Vec3, dp_du: Vec3) -> Vec3 {
    let s = (dp_du - n * n.dot(dp_du)).normalize_or_zero();
    if s == Vec3::ZERO { Frame::from_normal(n).s } else { s }
}

/// Mitsuba's `tan²θ` of a unit vector in a local frame: `max(1 − z², 0) / z²`.
fn tan_theta_2(cos_theta: f32) -> f32 {
    (1.0 - cos_theta * cos_theta).max(0.0) / (cos_theta * cos_theta)
}

/// What a normal-mapped surface keeps for [`MappedNormal::factor`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MappedNormal {
    /// The unperturbed shading normal (world space, oriented as the hit's frame).
    pub shading: Vec3,
    /// The shadow-terminator term's `α² = min(tan²θ(mapped) / 8, 1)`.
    pub alpha2: f32,
}

impl MappedNormal {
    /// The factor on the BSDF's value and sample weight toward `wi` (world space) at a
    /// surface whose perturbed shading normal is `perturbed`: 0 when `wi` is on different
    /// sides of the two normals, else the shadow-terminator term (1 for an unperturbed normal).
    pub fn factor(&self, perturbed: Vec3, wi: Vec3) -> f32 {
        let cos_shading = wi.dot(self.shading);
        let cos_perturbed = wi.dot(perturbed);
        if !(cos_shading * cos_perturbed > 0.0) {
            return 0.0;
        }
        // α² 0 (a flat normal): 1, also where tan²θ would overflow.
        if self.alpha2 == 0.0 {
            return 1.0;
        }
        2.0 / (1.0 + (1.0 + self.alpha2 * tan_theta_2(cos_shading)).sqrt())
    }
}

/// The perturbed shading normal (world space, unit) and its [`MappedNormal`], for the
/// front-face shading normal `n` (unit), the surface's dp/du, the normal map's `texel` (raw
/// RGB) and the direction toward the viewer `wo`.
pub fn perturb(n: Vec3, dp_du: Vec3, texel: Vec3, wo: Vec3) -> (Vec3, MappedNormal) {
    perturb_local(n, dp_du, texel * 2.0 - Vec3::ONE, wo)
}

/// The normal map's tangent frame at the front-face shading normal `n` (unit): `s` the
/// [`tangent`], `t = n × s`.
pub fn tangent_frame(n: Vec3, dp_du: Vec3) -> Frame {
    let s = tangent(n, dp_du);
    let t = n.cross(s);
    Frame { s, t, n }
}

/// [`perturb`] for a mapped normal `local` (any length) given in the [`tangent_frame`]
/// rather than as a texel: the invalid-normal flip, normalization and shadowing term.
pub fn perturb_local(n: Vec3, dp_du: Vec3, local: Vec3, wo: Vec3) -> (Vec3, MappedNormal) {
    let frame = tangent_frame(n, dp_du);
    let mut local = local;
    let wo_local = frame.to_local(wo);
    if wo_local.z * wo_local.dot(local) <= 0.0 {
        local = Vec3::new(-local.x, -local.y, local.z);
    }
    let local = local.normalize_or_zero();
    let local = if local == Vec3::ZERO { Vec3::Z } else { local };
    let world = frame.to_world(local).normalize_or_zero();
    let world = if world == Vec3::ZERO { n } else { world };
    let alpha2 = (0.125 * tan_theta_2(local.z)).min(1.0);
    (world, MappedNormal { shading: n, alpha2 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dp_du_of_a_uv_aligned_triangle_is_its_u_edge_direction() {
        let p = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 3.0, 0.0)];
        let uv = [Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)];
        assert_eq!(triangle_dp_du(p, uv), Vec3::new(2.0, 0.0, 0.0));
        // v flipped (1 − v): dp/du is unchanged.
        let flipped = uv.map(|c| Vec2::new(c.x, 1.0 - c.y));
        assert_eq!(triangle_dp_du(p, flipped), Vec3::new(2.0, 0.0, 0.0));
        assert_eq!(triangle_dp_du(p, [Vec2::ZERO; 3]), Vec3::ZERO);
    }

    #[test]
    fn a_flat_texel_leaves_the_normal_and_every_factor_one() {
        let n = Vec3::Z;
        let (world, mapped) = perturb(n, Vec3::X, Vec3::new(0.5, 0.5, 1.0), Vec3::new(0.3, 0.1, 0.9).normalize());
        assert_eq!(world, n);
        assert_eq!(mapped.alpha2, 0.0);
        assert_eq!(mapped.factor(world, Vec3::new(0.8, 0.0, 0.6)), 1.0);
        // Below both normals the side test passes (the BSDF itself sees the light from below);
        // exactly in the tangent plane it does not.
        assert_eq!(mapped.factor(world, Vec3::new(0.8, 0.0, -0.6)), 1.0);
        assert_eq!(mapped.factor(world, Vec3::X), 0.0);
    }

    #[test]
    fn a_green_lean_tilts_toward_n_cross_dp_du_and_shadows_grazing_light() {
        // 45° toward +t = n × s = z × x = +y.
        let c = 0.5 + 0.5 * std::f32::consts::FRAC_1_SQRT_2;
        let (world, mapped) = perturb(Vec3::Z, Vec3::X, Vec3::new(0.5, c, c), Vec3::Z);
        assert!((world - Vec3::new(0.0, 1.0, 1.0).normalize()).length() < 1e-6, "{world}");
        assert!((mapped.alpha2 - 0.125).abs() < 1e-6);
        // Light from the side the normal leans to, grazing the unperturbed surface: shadowed.
        let grazing = Vec3::new(0.0, 0.99, 0.141).normalize();
        let f = mapped.factor(world, grazing);
        assert!(f > 0.0 && f < 0.9, "{f}");
        // Below the perturbed normal but above the unperturbed one: none.
        assert_eq!(mapped.factor(world, Vec3::new(0.0, -0.9, 0.1).normalize()), 0.0);
    }

    #[test]
    fn a_viewer_behind_the_mapped_normal_flips_its_tangential_part() {
        // Leaning to +y, viewed from far -y (below the mapped normal): the lean goes to -y.
        let c = 0.5 + 0.5 * std::f32::consts::FRAC_1_SQRT_2;
        let wo = Vec3::new(0.0, -0.95, 0.1).normalize();
        let (world, _) = perturb(Vec3::Z, Vec3::X, Vec3::new(0.5, c, c), wo);
        assert!((world - Vec3::new(0.0, -1.0, 1.0).normalize()).length() < 1e-6, "{world}");
    }
}
