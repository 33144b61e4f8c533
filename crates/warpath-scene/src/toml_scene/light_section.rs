//! The `[[light]]` tables of a TOML scene (reference: docs/scene-format.md): point, spot and
//! directional lights with Mitsuba 3's definitions and units (`intensity` in W/sr,
//! `irradiance` in W/m², angles in degrees).

use super::sections::{SourceText, Triple, check_color};
use crate::SceneError;
use glam::Vec3;
use serde::Deserialize;
use toml::Spanned;
use warpath_core::light::DeltaLight;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LightSection {
    #[serde(rename = "type")]
    pub(super) kind: Spanned<String>,
    /// Point and spot: where the light sits.
    pub(super) position: Option<Spanned<[f32; 3]>>,
    /// Point and spot: W/sr.
    pub(super) intensity: Option<Spanned<Triple>>,
    /// Spot: a point on its axis; or `direction`.
    pub(super) target: Option<Spanned<[f32; 3]>>,
    /// Spot: its axis; directional: the way its light travels.
    pub(super) direction: Option<Spanned<[f32; 3]>>,
    /// Spot: degrees (default 20).
    pub(super) cutoff_angle: Option<Spanned<f32>>,
    /// Spot: degrees (default 3/4 of the cutoff angle).
    pub(super) beam_width: Option<Spanned<f32>>,
    /// Directional: W/m².
    pub(super) irradiance: Option<Spanned<Triple>>,
    /// Multiplies the intensity or irradiance (default 1).
    pub(super) scale: Option<Spanned<f32>>,
}

fn vector(source: &SourceText, value: &Spanned<[f32; 3]>, key: &str) -> Result<Vec3, SceneError> {
    let v = Vec3::from_array(*value.get_ref());
    if !v.is_finite() {
        return Err(source.error_at(value.span(), format!("{key} must be finite, got {v}")));
    }
    Ok(v)
}

fn unit(source: &SourceText, value: &Spanned<[f32; 3]>, key: &str) -> Result<Vec3, SceneError> {
    let v = vector(source, value, key)?;
    if v.length_squared() <= 1e-20 {
        return Err(source.error_at(value.span(), format!("{key} must not be zero")));
    }
    Ok(v.normalize())
}

/// One `[[light]]` table as a [`DeltaLight`].
pub(super) fn light_from_section(
    source: &SourceText,
    section: &Spanned<LightSection>,
) -> Result<DeltaLight, SceneError> {
    let l = section.get_ref();
    let kind = l.kind.get_ref().as_str();
    let scale = match &l.scale {
        Some(s) if !(s.get_ref().is_finite() && *s.get_ref() >= 0.0) => {
            return Err(source.error_at(s.span(), "scale must be finite and non-negative"));
        }
        Some(s) => *s.get_ref(),
        None => 1.0,
    };
    let refuse = |value: Option<std::ops::Range<usize>>, key: &str| match value {
        Some(span) => Err(source.error_at(span, format!("a '{kind}' light has no '{key}'"))),
        None => Ok(()),
    };
    let position = || match &l.position {
        Some(p) => vector(source, p, "position"),
        None => Err(source.error_at(section.span(), format!("a '{kind}' light needs a 'position'"))),
    };
    let intensity = || match &l.intensity {
        Some(i) => Ok(check_color(source, i, "intensity", None)? * scale),
        None => Ok(Vec3::ONE * scale),
    };
    match kind {
        "point" => {
            refuse(l.target.as_ref().map(|v| v.span()), "target")?;
            refuse(l.direction.as_ref().map(|v| v.span()), "direction")?;
            refuse(l.cutoff_angle.as_ref().map(|v| v.span()), "cutoff_angle")?;
            refuse(l.beam_width.as_ref().map(|v| v.span()), "beam_width")?;
            refuse(l.irradiance.as_ref().map(|v| v.span()), "irradiance")?;
            Ok(DeltaLight::point(position()?, intensity()?))
        }
        "spot" => {
            refuse(l.irradiance.as_ref().map(|v| v.span()), "irradiance")?;
            let position = position()?;
            let axis = match (&l.target, &l.direction) {
                (Some(_), Some(d)) => {
                    return Err(source.error_at(d.span(), "give either 'target' or 'direction', not both"));
                }
                (Some(t), None) => {
                    let to = vector(source, t, "target")? - position;
                    if to.length_squared() <= 1e-20 {
                        return Err(source.error_at(t.span(), "the spot's target is its position"));
                    }
                    to.normalize()
                }
                (None, Some(d)) => unit(source, d, "direction")?,
                (None, None) => {
                    return Err(source.error_at(section.span(), "a 'spot' light needs a 'target' or a 'direction'"));
                }
            };
            let cutoff = match &l.cutoff_angle {
                Some(c) if !(*c.get_ref() > 0.0 && *c.get_ref() <= 180.0) => {
                    return Err(source.error_at(c.span(), "cutoff_angle must be in (0, 180] degrees"));
                }
                Some(c) => *c.get_ref(),
                None => 20.0,
            };
            let beam = match &l.beam_width {
                Some(b) if !(*b.get_ref() >= 0.0 && *b.get_ref() <= cutoff) => {
                    return Err(source.error_at(b.span(), "beam_width must be in [0, cutoff_angle] degrees"));
                }
                Some(b) => *b.get_ref(),
                None => cutoff * 0.75,
            };
            Ok(DeltaLight::spot(position, axis, intensity()?, cutoff, beam))
        }
        "directional" => {
            refuse(l.position.as_ref().map(|v| v.span()), "position")?;
            refuse(l.target.as_ref().map(|v| v.span()), "target")?;
            refuse(l.intensity.as_ref().map(|v| v.span()), "intensity (its unit is 'irradiance')")?;
            refuse(l.cutoff_angle.as_ref().map(|v| v.span()), "cutoff_angle")?;
            refuse(l.beam_width.as_ref().map(|v| v.span()), "beam_width")?;
            let Some(d) = &l.direction else {
                return Err(source.error_at(section.span(), "a 'directional' light needs a 'direction'"));
            };
            let irradiance = match &l.irradiance {
                Some(e) => check_color(source, e, "irradiance", None)? * scale,
                None => Vec3::ONE * scale,
            };
            Ok(DeltaLight::directional(unit(source, d, "direction")?, irradiance))
        }
        other => Err(source
            .error_at(l.kind.span(), format!("unknown light type '{other}' (expected point, spot or directional)"))),
    }
}
