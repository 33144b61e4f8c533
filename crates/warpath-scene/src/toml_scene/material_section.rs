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
        "thin-dielectric" => &["ior", "specular"],
        "mirror" => &["specular"],
        "chrome" | "black" => &[],
        "car-paint" => &["base_color", "specular", "exponent", "ior"],
        "rough-conductor" => &["base_color", "roughness"],
        "rough-dielectric" => &["ior", "roughness", "specular"],
        "null" => &[],
        "plastic" => &["base_color", "specular", "ior", "roughness"],
        "principled" => &["base_color", "ior", "roughness", "principled"],
        other => {
            return Err(source.error_at(
                m.kind.span(),
                format!(
                    "unknown material type '{other}' (expected diffuse, blinn, glass, mirror, chrome, car-paint, \
                     rough-conductor, rough-dielectric, thin-dielectric, plastic, principled, null or black)"
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
    let principled_weights: [(&str, &Option<Spanned<f32>>); 8] = [
        ("metallic", &m.metallic),
        ("spec_tint", &m.spec_tint),
        ("sheen", &m.sheen),
        ("sheen_tint", &m.sheen_tint),
        ("clearcoat", &m.clearcoat),
        ("clearcoat_gloss", &m.clearcoat_gloss),
        ("spec_trans", &m.spec_trans),
        ("flatness", &m.flatness),
    ];
    let mut weights = [0.0f32; 8];
    for (i, (key, value)) in principled_weights.iter().enumerate() {
        let Some(v) = value else { continue };
        if !allowed.contains(&"principled") {
            return Err(source.error_at(v.span(), format!("'{key}' does not apply to material type '{kind}'")));
        }
        if !(0.0..=1.0).contains(v.get_ref()) {
            return Err(source.error_at(v.span(), format!("{key} must be in [0, 1], got {}", v.get_ref())));
        }
        weights[i] = *v.get_ref();
    }
    if m.base_color_texture.is_some() && !allowed.contains(&"base_color") {
        let span = m.base_color_texture.as_ref().map(|v| v.span()).unwrap_or_default();
        return Err(source.error_at(span, format!("'base_color_texture' does not apply to material type '{kind}'")));
    }
    let color = |v: &Option<Spanned<Triple>>, key: &str, default: Vec3| match v {
        Some(v) => check_color(source, v, key, Some(1.0)),
        None => Ok(default),
    };
    // Principled takes Mitsuba's defaults (base color and roughness 0.5).
    let default_albedo = if kind == "principled" { 0.5 } else { DEFAULT_ALBEDO };
    let base_color = color(&m.base_color, "base_color", Vec3::splat(default_albedo))?;
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
        Some(e) if !matches!(kind, "glass" | "rough-dielectric" | "thin-dielectric" | "plastic" | "principled") => {
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
        None if kind == "principled" => 0.5,
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
        "thin-dielectric" => Material { specular, ..Material::thin_dielectric(ior) },
        "mirror" => Material::mirror(specular),
        "chrome" => Material::chrome(),
        "car-paint" => Material::car_paint(base_color, specular, exponent, ior),
        "rough-conductor" => Material::rough_conductor(base_color, roughness),
        "rough-dielectric" => Material { specular, ..Material::rough_dielectric(ior, roughness) },
        "null" => Material::null(),
        "plastic" => Material::plastic(base_color, specular, ior, roughness, nonlinear),
        "principled" => {
            let [metallic, spec_tint, sheen, sheen_tint, clearcoat, clearcoat_gloss, spec_trans, flatness] = weights;
            // As Mitsuba: a transmitting surface needs an interface.
            let ior = if spec_trans > 0.0 && ior == 1.0 { 1.001 } else { ior };
            Material {
                metallic,
                spec_tint,
                sheen,
                sheen_tint,
                clearcoat,
                clearcoat_gloss,
                spec_trans,
                flatness,
                ..Material::principled(base_color, roughness, ior)
            }
        }
        _ => Material::black(),
    };
    if m.eta.is_some() || m.k.is_some() {
        // The exact conductor Fresnel of eta + ik, multiplied by `specular` (mirror) or
        // `base_color` (rough conductor), each 1 unless given.
        let span = m.eta.as_ref().or(m.k.as_ref()).map(|v| v.span()).unwrap_or_default();
        let tint = match kind {
            "mirror" => color(&m.specular, "specular", Vec3::ONE)?,
            "rough-conductor" => color(&m.base_color, "base_color", Vec3::ONE)?,
            _ => {
                return Err(source.error_at(span, format!("'eta'/'k' do not apply to material type '{kind}'")));
            }
        };
        let eta = match &m.eta {
            Some(v) => check_color(source, v, "eta", None)?,
            None => Vec3::ZERO,
        };
        let k = match &m.k {
            Some(v) => check_color(source, v, "k", None)?,
            None => Vec3::ONE,
        };
        material = Material { base_color: tint, ..material }.with_conductor_eta_k(eta, k);
    }
    if let Some(d) = &m.distribution {
        if !matches!(kind, "rough-conductor" | "rough-dielectric" | "plastic") {
            return Err(source.error_at(d.span(), format!("'distribution' does not apply to material type '{kind}'")));
        }
        match d.get_ref().as_str() {
            "ggx" => {}
            "beckmann" => material = material.with_beckmann(),
            other => {
                return Err(
                    source.error_at(d.span(), format!("distribution '{other}' must be \"ggx\" or \"beckmann\""))
                );
            }
        }
    }
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
    if let Some(o) = &m.opacity {
        if kind == "null" {
            return Err(
                source.error_at(o.span(), "'opacity' does not apply to a null boundary (it lets all light through)")
            );
        }
        if !(0.0..=1.0).contains(o.get_ref()) {
            return Err(source.error_at(o.span(), format!("opacity must be in [0, 1], got {}", o.get_ref())));
        }
        material.opacity = *o.get_ref();
    }
    if let Some(one_sided) = &m.one_sided {
        if matches!(kind, "glass" | "rough-dielectric" | "thin-dielectric" | "black") {
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
