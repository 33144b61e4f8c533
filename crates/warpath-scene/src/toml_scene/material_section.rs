//! The `[[material]]` tables of a TOML scene (reference: docs/scene-format.md, "Materials"):
//! each type's keys, the checks of their values, and the `Material` they make. Textures are
//! loaded by the caller, which knows the scene's builder.

use super::sections::{MaterialSection, SourceText, Triple, check_color};
use crate::SceneError;
use crate::mesh::DEFAULT_ALBEDO;
use glam::Vec3;
use std::ops::Range;
use toml::Spanned;
use warpath_core::material::{Material, flags};

pub(super) fn material_from_section(source: &SourceText, m: &MaterialSection) -> Result<Material, SceneError> {
    let kind = m.kind.get_ref().as_str();
    let allowed: &[&str] = match kind {
        "diffuse" => &["base_color"],
        "blinn" => &["base_color", "specular", "exponent"],
        "glass" => &["ior", "specular"],
        "mirror" => &["specular"],
        "chrome" | "black" => &[],
        "car-paint" => &["base_color", "specular", "exponent", "ior"],
        "rough-conductor" => &["base_color", "roughness"],
        "rough-dielectric" => &["ior", "roughness", "specular"],
        "null" => &[],
        "plastic" => &["base_color", "specular", "ior", "roughness"],
        other => {
            return Err(source.error_at(
                m.kind.span(),
                format!(
                    "unknown material type '{other}' (expected diffuse, blinn, glass, mirror, chrome, car-paint, \
                     rough-conductor, rough-dielectric, plastic, null or black)"
                ),
            ));
        }
    };
    let present: [(&str, Option<Range<usize>>); 5] = [
        ("base_color", m.base_color.as_ref().map(|v| v.span())),
        ("specular", m.specular.as_ref().map(|v| v.span())),
        ("exponent", m.exponent.as_ref().map(|v| v.span())),
        ("ior", m.ior.as_ref().map(|v| v.span())),
        ("roughness", m.roughness.as_ref().map(|v| v.span())),
    ];
    for (key, span) in present {
        if let Some(span) = span
            && !allowed.contains(&key)
        {
            return Err(source.error_at(span, format!("'{key}' does not apply to material type '{kind}'")));
        }
    }
    if m.base_color_texture.is_some() && !allowed.contains(&"base_color") {
        let span = m.base_color_texture.as_ref().map(|v| v.span()).unwrap_or_default();
        return Err(source.error_at(span, format!("'base_color_texture' does not apply to material type '{kind}'")));
    }
    let color = |v: &Option<Spanned<Triple>>, key: &str, default: Vec3| match v {
        Some(v) => check_color(source, v, key, Some(1.0)),
        None => Ok(default),
    };
    let base_color = color(&m.base_color, "base_color", Vec3::splat(DEFAULT_ALBEDO))?;
    let specular_default = match kind {
        "blinn" => Vec3::splat(0.2),
        "car-paint" => Vec3::splat(0.2),
        _ => Vec3::ONE,
    };
    let specular = color(&m.specular, "specular", specular_default)?;
    let exponent = match &m.exponent {
        Some(e) if !(e.get_ref().is_finite() && *e.get_ref() >= 0.0) => {
            return Err(source.error_at(e.span(), "exponent must be finite and non-negative"));
        }
        Some(e) => *e.get_ref(),
        None => 100.0,
    };
    let ior = match &m.ior {
        Some(i) if !(i.get_ref().is_finite() && *i.get_ref() > 0.0) => {
            return Err(source.error_at(i.span(), format!("ior must be positive, got {}", i.get_ref())));
        }
        Some(i) => *i.get_ref(),
        None => 1.5,
    };
    let ior = match &m.exterior_ior {
        Some(e) if !matches!(kind, "glass" | "rough-dielectric" | "plastic") => {
            return Err(source.error_at(e.span(), format!("'exterior_ior' does not apply to material type '{kind}'")));
        }
        Some(e) if !(e.get_ref().is_finite() && *e.get_ref() > 0.0) => {
            return Err(source.error_at(e.span(), format!("exterior_ior must be positive, got {}", e.get_ref())));
        }
        Some(e) => ior / *e.get_ref(),
        None => ior,
    };
    let roughness = match &m.roughness {
        Some(r) if !(0.0..=1.0).contains(r.get_ref()) => {
            return Err(source.error_at(r.span(), format!("roughness must be in [0, 1], got {}", r.get_ref())));
        }
        Some(r) => *r.get_ref(),
        None if kind == "plastic" => 0.0,
        None => 0.3,
    };
    let nonlinear = match &m.nonlinear {
        Some(n) if kind != "plastic" => {
            return Err(source.error_at(n.span(), format!("'nonlinear' does not apply to material type '{kind}'")));
        }
        Some(n) => *n.get_ref(),
        None => false,
    };
    let ior = match (kind, &m.ior) {
        // Mitsuba's default interior: polypropylene.
        ("plastic", None) => 1.49 / m.exterior_ior.as_ref().map_or(1.0, |e| *e.get_ref()),
        _ => ior,
    };
    if kind == "plastic" && ior == 1.0 {
        let span = m.ior.as_ref().map(|v| v.span()).unwrap_or_else(|| m.kind.span());
        return Err(source.error_at(span, "a plastic's coat needs ior ≠ exterior_ior (ior 1 has no coat)"));
    }
    if base_color.max_element() + specular.max_element() > 1.0 && kind == "blinn" {
        // Allowed, but the material then reflects more light than it receives.
    }
    let mut material = match kind {
        "diffuse" => Material::diffuse(base_color),
        "blinn" => Material::blinn(base_color, specular, exponent),
        "glass" => Material { specular, ..Material::glass(ior) },
        "mirror" => Material::mirror(specular),
        "chrome" => Material::chrome(),
        "car-paint" => Material::car_paint(base_color, specular, exponent, ior),
        "rough-conductor" => Material::rough_conductor(base_color, roughness),
        "rough-dielectric" => Material { specular, ..Material::rough_dielectric(ior, roughness) },
        "null" => Material::null(),
        "plastic" => Material::plastic(base_color, specular, ior, roughness, nonlinear),
        _ => Material::black(),
    };
    if kind == "null"
        && let Some(e) = &m.emission
    {
        return Err(source.error_at(e.span(), "a null (index-matched) boundary cannot emit"));
    }
    if let Some(e) = &m.emission {
        material.emission = check_color(source, e, "emission", None)?;
    }
    if m.two_sided_emission == Some(true) {
        material.flags |= flags::TWO_SIDED_EMISSION;
    }
    if let Some(one_sided) = &m.one_sided {
        if matches!(kind, "glass" | "rough-dielectric" | "black") {
            let why = if kind == "black" { "it does not scatter" } else { "it transmits and sees both sides" };
            return Err(source
                .error_at(one_sided.span(), format!("'one_sided' does not apply to material type '{kind}' ({why})")));
        }
        if *one_sided.get_ref() {
            material.flags |= flags::ONE_SIDED;
        }
    }
    Ok(material)
}
