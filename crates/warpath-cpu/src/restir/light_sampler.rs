//! The candidates' source distribution of ReSTIR DI on the CPU ([`LightSampler`]).

use super::LightPoint;
use crate::integrator::SceneView;
use glam::Vec2;
use warpath_core::distribution::Distribution1D;
use warpath_core::warp;

/// The emissive triangles' power distribution (the source pdf of every candidate): the light
/// set's selection (`TriangleLight::power` per triangle; a ReSTIR scene has no environment,
/// so no extra bin), the distribution the GPU reads as `light_cdf`.
pub struct LightSampler<'a> {
    distribution: &'a Distribution1D,
}

impl<'a> LightSampler<'a> {
    pub fn new(view: &'a SceneView) -> Self {
        LightSampler { distribution: &view.lights.selection }
    }

    pub(super) fn sample(&self, u_select: f32, u: Vec2) -> LightPoint {
        let (light, _) = self.distribution.sample_discrete(u_select);
        LightPoint { light: light as u32, b: warp::square_to_triangle(u) }
    }

    /// Area-measure pdf of drawing `y`.
    pub(super) fn pdf(&self, view: &SceneView, y: LightPoint) -> f32 {
        let light = &view.lights.triangles[y.light as usize];
        if light.area <= 0.0 { 0.0 } else { self.distribution.discrete_pdf(y.light as usize) / light.area }
    }
}
