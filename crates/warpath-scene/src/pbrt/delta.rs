//! pbrt-v4's `point`, `spot` and `distant` lights as warpath's delta lights (reference:
//! docs/scene-format.md, "pbrt-v4"). Per parameter: `I`/`L` × `scale` is the intensity
//! (W/sr) or irradiance (W/m²) in RGB (pbrt's division by the illuminant's photometric value
//! cancels for RGB values, so an RGB `I` renders as that RGB); `power` (point, spot)
//! rescales as pbrt does, by power / k_e with k_e = 4π for a point and
//! 2π ((1 − cos start) + (cos start − cos end) / 2) for a spot; `illuminance` (distant)
//! multiplies the irradiance; `from`/`to` place and aim the light under the current
//! transform. A spot's `coneangle` becomes the cutoff angle and `coneangle − conedeltaangle` the
//! beam width: pbrt ramps the intensity by a smoothstep in cos θ between the two, warpath (as
//! Mitsuba) linearly in θ, so the rim of the cone differs slightly.

use super::*;
use std::f32::consts::PI;
use warpath_core::light::DeltaLight;

impl Loader {
    fn pbrt_point(&mut self, p: &mut Params, name: &str, default: Vec3) -> Result<Vec3, SceneError> {
        match p.numbers(name, &["point3", "point"])? {
            None => Ok(default),
            Some((v, line)) if v.len() == 3 => {
                let q = Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32);
                if !q.is_finite() {
                    return Err(p.error(line, format!("'{name}' is not finite")));
                }
                Ok(q)
            }
            Some((_, line)) => Err(p.error(line, format!("'{name}' is a point (3 numbers)"))),
        }
    }

    /// `LightSource "point" | "spot" | "distant"`.
    pub(super) fn delta_light(&mut self, kind: &str, mut p: Params) -> Result<(), SceneError> {
        let scale = p.float_or("scale", 1.0)?;
        if !(scale >= 0.0) || !scale.is_finite() {
            return Err(p.error(p.line, format!("scale = {scale} must be finite and not negative")));
        }
        let emitted_key = if kind == "distant" { "L" } else { "I" };
        let emitted = self.color(&mut p, emitted_key)?.unwrap_or(Vec3::ONE) * scale;
        if !emitted.is_finite() || emitted.min_element() < 0.0 {
            return Err(p.error(p.line, format!("'{emitted_key}' × scale = {emitted} must be finite and not negative")));
        }
        let from = self.pbrt_point(&mut p, "from", Vec3::ZERO)?;
        let to = self.pbrt_point(&mut p, "to", Vec3::Z)?;
        let ctm = self.g.ctm;
        let power = p.float("power")?;
        let light = match kind {
            "point" => {
                let k_e = 4.0 * PI;
                let intensity = match power {
                    Some(phi) if phi > 0.0 => emitted * (phi / k_e),
                    _ => emitted,
                };
                DeltaLight::point(ctm.transform_point3(from), intensity)
            }
            "spot" => {
                let cone = p.float_or("coneangle", 30.0)?;
                let delta = p.float_or("conedeltaangle", 5.0)?;
                if !(cone > 0.0 && cone <= 180.0) || !(delta >= 0.0) {
                    return Err(p.error(
                        p.line,
                        format!("coneangle = {cone} must be in (0, 180] and conedeltaangle = {delta} not negative"),
                    ));
                }
                let beam = (cone - delta).max(0.0);
                let axis = ctm.transform_vector3(to - from);
                if !(axis.length_squared() > 0.0) || !axis.is_finite() {
                    return Err(p.error(p.line, "the spot light's 'from' and 'to' coincide"));
                }
                let (cos_end, cos_start) = (cone.to_radians().cos(), beam.to_radians().cos());
                let k_e = 2.0 * PI * ((1.0 - cos_start) + (cos_start - cos_end) / 2.0);
                let intensity = match power {
                    Some(phi) if phi > 0.0 && k_e > 0.0 => emitted * (phi / k_e),
                    _ => emitted,
                };
                DeltaLight::spot(ctm.transform_point3(from), axis, intensity, cone, beam)
            }
            _ => {
                let illuminance = p.float("illuminance")?.filter(|&e| e > 0.0).unwrap_or(1.0);
                let direction = ctm.transform_vector3(to - from);
                if !(direction.length_squared() > 0.0) || !direction.is_finite() {
                    return Err(p.error(p.line, "the distant light's 'from' and 'to' coincide"));
                }
                DeltaLight::directional(direction, emitted * illuminance)
            }
        };
        if power.is_some() && kind == "distant" {
            self.warn(format!("{}: LightSource \"distant\": 'power' is not a distant light's parameter", p.at()));
        }
        self.delta_lights.push(light);
        p.finish(self.warnings());
        Ok(())
    }
}
