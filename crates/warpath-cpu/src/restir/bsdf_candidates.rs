//! BSDF-sampled candidates for initial RIS (`RestirOptions::bsdf_candidates`; RTXDI's BRDF
//! candidates): a direction drawn from the pixel's BSDF, traced to the closest surface; where
//! that surface is an emissive triangle the hit point is a light point, a candidate like the
//! light-sampled ones. Both kinds are combined by multiple importance sampling over their
//! source pdfs (the balance heuristic, in area measure): a candidate y from either technique
//! enters with resampling weight p̂(y) / (M_L·p_L(y) + M_B·p_B(y)), p_L the power distribution's
//! area pdf, p_B(y) = p_σ(ω_y)·|cos θ_y| / d² the BSDF's solid-angle pdf turned into area
//! measure, and the reservoir's W = w_sum / p̂(y). A glossy lobe then finds the emitters it
//! reflects, which light sampling by power rarely draws.

use super::{LightPoint, Surface};
use crate::integrator::SceneView;
use glam::{Vec2, Vec3};
use std::sync::atomic::{AtomicU64, Ordering};
use warpath_core::bsdf;
use warpath_core::math::{Ray, offset_ray_origin};

/// The BSDF's pdf of reaching light point `y` from `s`, in area measure (0 where the BSDF
/// cannot sample the direction, or the point faces away edge-on).
pub(super) fn area_pdf(view: &SceneView, s: &Surface, y: LightPoint) -> f32 {
    let light = &view.lights.triangles[y.light as usize];
    let q = light.p0 + light.e1 * y.b.x + light.e2 * y.b.y;
    let to = q - s.p;
    let d2 = to.length_squared();
    if !(d2 > 0.0) {
        return 0.0;
    }
    let wi = to / d2.sqrt();
    let cos_y = light.normal().dot(-wi).abs();
    let material = &s.shading_material(&view.scene.materials);
    let pdf = bsdf::pdf(material, s.base_color, s.frame.to_local(s.wo), s.frame.to_local(wi));
    if pdf > 0.0 && pdf.is_finite() { warpath_core::restir::bsdf_area_pdf(pdf, cos_y, d2) } else { 0.0 }
}

/// One BSDF-sampled candidate from the random numbers `u` (lobe, direction): the light point
/// the sampled direction hits first, or None (no sample, a delta lobe, a miss, or a surface that
/// does not emit). The ray traced is counted in `rays`.
pub(super) fn sample(view: &SceneView, s: &Surface, u: [f32; 3], rays: &AtomicU64) -> Option<LightPoint> {
    let material = &s.shading_material(&view.scene.materials);
    let sample = bsdf::sample(material, s.base_color, s.frame.to_local(s.wo), u[0], Vec2::new(u[1], u[2]))?;
    if sample.delta || !(sample.pdf > 0.0) {
        return None;
    }
    let wi: Vec3 = s.frame.to_world(sample.wi);
    rays.fetch_add(1, Ordering::Relaxed);
    let hit = view.intersect(&Ray::new(offset_ray_origin(s.p, s.ng, wi), wi))?;
    let light = *view.lights.triangle_to_light.get(hit.prim as usize)?;
    // The hit's barycentrics are those of the light's edges e1 = v1 − v0, e2 = v2 − v0.
    (light >= 0).then_some(LightPoint { light: light as u32, b: Vec2::new(hit.u, hit.v) })
}
