//! Mitsuba's delta emitters — `point` (`intensity` W/sr, `position` or `to_world`), `spot`
//! (`intensity`, `cutoff_angle`, `beam_width`, `to_world`: at its origin, shining along +z)
//! and `directional` (`irradiance` W/m², `direction` or `to_world`: light travelling along
//! +z) — read into [`DeltaLight`]s with Mitsuba's units and defaults.

use super::*;
use warpath_core::light::DeltaLight;

impl Loader {
    pub(super) fn delta_emitter(&mut self, src: &Src, node: Node, kind: &str) -> Result<(), SceneError> {
        let mut props = self.props(src, node)?;
        let finite_color = |loader: &mut Loader, props: &mut Props, name: &str| -> Result<Vec3, SceneError> {
            let c = loader.color(src, props, name)?.unwrap_or(Vec3::ONE);
            if !c.is_finite() || c.min_element() < 0.0 {
                return Err(src.error(node, format!("emitter '{kind}': {name} {c} must be finite and non-negative")));
            }
            Ok(c)
        };
        let to_world = match self.take(&mut props, "to_world") {
            Some(t) => Some((self.transform(src, t)?, t)),
            None => None,
        };
        let light = match kind {
            "point" => {
                let intensity = finite_color(self, &mut props, "intensity")?;
                let position = match (self.point(src, &mut props, "position")?, to_world) {
                    (Some(_), Some((_, t))) => {
                        return Err(src.error(t, "a 'point' emitter takes 'position' or 'to_world', not both"));
                    }
                    (Some(p), None) => p,
                    (None, Some((m, _))) => m.w_axis.truncate(),
                    (None, None) => Vec3::ZERO,
                };
                if !position.is_finite() {
                    return Err(src.error(node, "the point light's position is not finite"));
                }
                DeltaLight::point(position, intensity)
            }
            "spot" => {
                let intensity = finite_color(self, &mut props, "intensity")?;
                let cutoff = self.float(src, &mut props, "cutoff_angle")?.unwrap_or(20.0);
                if !(cutoff > 0.0 && cutoff <= 180.0) {
                    return Err(src.error(node, format!("spot: cutoff_angle {cutoff} must be in (0, 180] degrees")));
                }
                let beam = self.float(src, &mut props, "beam_width")?.unwrap_or(cutoff * 0.75);
                if !(beam >= 0.0) || !beam.is_finite() {
                    return Err(src.error(node, format!("spot: beam_width {beam} must be finite and non-negative")));
                }
                if beam > cutoff {
                    self.warn(format!(
                        "{}: spot: beam_width {beam} exceeds cutoff_angle {cutoff}: the light is uniform up to the cutoff",
                        src.at(node)
                    ));
                }
                let m = to_world.map(|(m, _)| m).unwrap_or(Mat4::IDENTITY);
                let axis = m.transform_vector3(Vec3::Z);
                if !(axis.length_squared() > 0.0) || !m.is_finite() {
                    return Err(src.error(node, "spot: to_world has no forward (+z) direction"));
                }
                DeltaLight::spot(m.w_axis.truncate(), axis, intensity, cutoff, beam)
            }
            _ => {
                let irradiance = finite_color(self, &mut props, "irradiance")?;
                let direction = match (self.point(src, &mut props, "direction")?, to_world) {
                    (Some(_), Some((_, t))) => {
                        return Err(src.error(t, "a 'directional' emitter takes 'direction' or 'to_world', not both"));
                    }
                    (Some(d), None) => d,
                    (None, Some((m, _))) => m.transform_vector3(Vec3::Z),
                    (None, None) => Vec3::Z,
                };
                if !(direction.length_squared() > 0.0) || !direction.is_finite() {
                    return Err(src.error(node, "directional: the direction is zero or not finite"));
                }
                DeltaLight::directional(direction, irradiance)
            }
        };
        self.delta_lights.push(light);
        self.finish(src, props);
        Ok(())
    }
}
