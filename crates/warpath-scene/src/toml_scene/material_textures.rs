//! The data textures of a TOML `[[material]]` (reference: docs/scene-format.md, "Materials"):
//! `bump_texture` with `bump_scale`, `roughness_texture` and `metallic_texture`. Each image is
//! read raw (no sRGB decoding) and reduced to one channel, its luminance (a gray image: its
//! value); the bump map's is the height, the others multiply the material's `roughness` and
//! `metallic`.

use super::sections::{MaterialSection, SourceText};
use crate::SceneError;
use crate::image_io::load_raw_texture;
use crate::mesh::SceneBuilder;
use toml::Spanned;
use warpath_core::material::{Material, MaterialKind};

/// Loads `m`'s data textures into `builder` and sets them on `material` (named `name`).
pub(super) fn add_material_textures(
    source: &SourceText,
    builder: &mut SceneBuilder,
    m: &MaterialSection,
    name: &str,
    material: &mut Material,
) -> Result<(), SceneError> {
    let kind = material.kind();
    let load = |builder: &mut SceneBuilder, file: &Spanned<String>, key: &str| -> Result<i32, SceneError> {
        let path = source.resolve(file.get_ref());
        if !path.is_file() {
            return Err(
                source.error_at(file.span(), format!("material '{name}': {key} '{}' not found", path.display()))
            );
        }
        let (texture, warning) = load_raw_texture(&path)?;
        if let Some(w) = warning {
            builder.warn(w);
        }
        let raw = builder.add_texture(texture);
        Ok(builder.add_channel_texture(raw, None, "", |v| v))
    };
    if let Some(scale) = &m.bump_scale {
        if m.bump_texture.is_none() {
            return Err(source.error_at(scale.span(), format!("material '{name}': 'bump_scale' needs 'bump_texture'")));
        }
        if !scale.get_ref().is_finite() {
            return Err(source.error_at(scale.span(), format!("material '{name}': bump_scale must be finite")));
        }
    }
    if let Some(file) = &m.bump_texture {
        if matches!(kind, MaterialKind::Null | MaterialKind::Black) {
            return Err(source.error_at(
                file.span(),
                format!("material '{name}': 'bump_texture' does not apply to a material that does not scatter"),
            ));
        }
        if m.normal_texture.is_some() {
            return Err(source.error_at(
                file.span(),
                format!("material '{name}': give 'normal_texture' or 'bump_texture', not both"),
            ));
        }
        material.bump_texture = load(builder, file, "bump texture")?;
        material.bump_scale = m.bump_scale.as_ref().map_or(1.0, |s| *s.get_ref());
    }
    if let Some(file) = &m.roughness_texture {
        let rough = matches!(
            kind,
            MaterialKind::RoughConductor
                | MaterialKind::RoughDielectric
                | MaterialKind::Plastic
                | MaterialKind::Principled
        );
        if !rough {
            return Err(source.error_at(
                file.span(),
                format!(
                    "material '{name}': 'roughness_texture' applies to rough-conductor, rough-dielectric, plastic \
                     and principled"
                ),
            ));
        }
        if kind == MaterialKind::Plastic && material.roughness == 0.0 {
            return Err(source.error_at(
                file.span(),
                format!("material '{name}': 'roughness_texture' on a smooth plastic (roughness 0) has no effect"),
            ));
        }
        material.roughness_texture = load(builder, file, "roughness texture")?;
    }
    if let Some(file) = &m.metallic_texture {
        if kind != MaterialKind::Principled {
            return Err(source
                .error_at(file.span(), format!("material '{name}': 'metallic_texture' applies to principled only")));
        }
        material.metallic_texture = load(builder, file, "metallic texture")?;
    }
    Ok(())
}
