//! The parts of a `[[shape]]` table that are more than a mesh: its placement (`to_world`, or
//! `translate`/`rotate`/`scale`), `isosurface` shapes (a volume's level set, its min-max tree
//! built at load time) and `light-field` shapes (many small emitters). The loop over shapes,
//! with meshes and built-in primitives, is `parse_toml_scene` in the parent module.

use super::medium_section;
use super::sections::{ShapeSection, SourceText, check_transform, matrix_from_rows};
use crate::builtin;
use crate::mesh::SceneBuilder;
use crate::{SceneError, SceneIsosurface};
use glam::{Mat4, Vec3};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;
use warpath_core::material::Material;

/// The most cells per brick side an isosurface's min-max tree may ask for.
const MAX_BRICK_CELLS: i64 = 256;

/// An `isosurface` shape: its volume loaded as a lattice, the tree built and condensed at the
/// isovalue, placed with `to_world` (the volume fills the unit cube, as a medium's grid does).
pub(super) fn isosurface_shape(
    source: &SourceText,
    shape: &ShapeSection,
    name: String,
    material: u32,
    to_world: Mat4,
    builder: &mut SceneBuilder,
) -> Result<SceneIsosurface, SceneError> {
    let here = |message: String| source.error_at(shape.kind.span(), message);
    let not_here = [
        shape.emission.as_ref().map(|v| ("emission", v.span())),
        shape.interior.as_ref().map(|v| ("interior", v.span())),
        shape.exterior.as_ref().map(|v| ("exterior", v.span())),
    ];
    if let Some((key, span)) = not_here.into_iter().flatten().next() {
        return Err(
            source.error_at(span, format!("'{key}' does not apply to isosurfaces (they neither emit nor bound media)"))
        );
    }
    let Some(volume) = &shape.volume else {
        return Err(here(format!("isosurface '{name}' needs a 'volume' (a grid, as a medium's 'density')")));
    };
    let Some(isovalue) = &shape.isovalue else {
        return Err(here(format!("isosurface '{name}' needs an 'isovalue'")));
    };
    let iso = *isovalue.get_ref();
    if !iso.is_finite() {
        return Err(source.error_at(isovalue.span(), format!("isovalue = {iso} must be finite")));
    }
    let brick_cells = match &shape.brick_cells {
        Some(b) if !(1..=MAX_BRICK_CELLS).contains(b.get_ref()) => {
            return Err(source.error_at(b.span(), format!("brick_cells must be between 1 and {MAX_BRICK_CELLS}")));
        }
        Some(b) => *b.get_ref() as u32,
        None => warpath_isosurface::DEFAULT_BRICK_CELLS,
    };
    let m = builder.scene_mut().materials[material as usize].clone();
    let material_name = builder.scene_mut().material_names[material as usize].clone();
    if m.is_emissive() || m.is_null() {
        return Err(here(format!(
            "isosurface '{name}': material '{material_name}' {}: isosurfaces take opaque or dielectric materials",
            if m.is_null() { "is 'null'" } else { "emits" }
        )));
    }
    if m.base_color_texture >= 0
        || m.normal_texture >= 0
        || m.bump_texture >= 0
        || m.roughness_texture >= 0
        || m.metallic_texture >= 0
        || m.opacity_texture >= 0
    {
        builder.warn(format!(
            "{}: isosurface '{name}' has no texture coordinates: material '{material_name}''s textures are not applied",
            source.path.display()
        ));
    }
    let at = |span: Range<usize>, message: String| source.error_at(span, message);
    let (grid, _spacing) = medium_section::load_spec(source, volume, &at, 1)?;
    let lattice = warpath_isosurface::Lattice::from_grid(&grid)
        .map_err(|e| source.error_at(volume.span(), format!("isosurface '{name}': {e}")))?;
    let (lo, hi) = lattice.range();
    if !(lo <= iso && iso <= hi) {
        builder.warn(format!(
            "{}: isosurface '{name}': isovalue {iso} is outside the volume's range [{lo}, {hi}]: the shape is empty",
            source.path.display()
        ));
    }
    let surface = warpath_isosurface::PlacedIsosurface::new(lattice, iso, to_world, brick_cells);
    Ok(SceneIsosurface { name, material, surface: std::sync::Arc::new(surface) })
}

/// A `light-field` shape: [`builtin::LightField`]'s triangles with their centres in the box
/// [-1,1]³ placed by the shape's transform (sizes and facing stay in world units), one
/// emitter material per hue (`NAME-hue-H`: black, emitting `emission` × the hue's colour).
#[allow(clippy::too_many_arguments)]
pub(super) fn light_field_shape(
    source: &SourceText,
    shape: &ShapeSection,
    table_span: Range<usize>,
    shape_name: &str,
    emission: Option<Vec3>,
    to_world: Mat4,
    builder: &mut SceneBuilder,
    path: &Path,
) -> Result<(), SceneError> {
    if let Some(m) = &shape.material {
        return Err(source.error_at(m.span(), "a light-field makes its own emitters: give 'emission', not 'material'"));
    }
    let Some(emission) = emission else {
        return Err(source
            .error_at(table_span, "a light-field needs 'emission' (the radiance of each hue's brightest channel)"));
    };
    let whole = |v: &Option<Spanned<i64>>, key: &str, default: i64, range: std::ops::RangeInclusive<i64>| match v {
        Some(v) if !range.contains(v.get_ref()) => Err(source
            .error_at(v.span(), format!("'{key}' must be a whole number from {} to {}", range.start(), range.end()))),
        Some(v) => Ok(*v.get_ref()),
        None => Ok(default),
    };
    let Some(count) = &shape.count else {
        return Err(source.error_at(table_span, "a light-field needs 'count' (how many emissive triangles)"));
    };
    let count = whole(&Some(count.clone()), "count", 0, 1..=4_000_000)? as u32;
    let hues = whole(&shape.hues, "hues", 32, 1..=1024)? as u32;
    let seed = whole(&shape.seed, "seed", 4242, 0..=u32::MAX as i64)? as u32;
    let light_size = match &shape.light_size {
        Some(s) => {
            let [a, b] = *s.get_ref();
            if !(a.is_finite() && b.is_finite() && a > 0.0 && b >= a) {
                return Err(source.error_at(s.span(), "'light_size' must be [MIN, MAX] with 0 < MIN <= MAX"));
            }
            [a, b]
        }
        None => [0.04, 0.08],
    };
    let saturation = match &shape.saturation {
        Some(s) if !(0.0..=1.0).contains(s.get_ref()) => {
            return Err(source.error_at(s.span(), "'saturation' must be from 0 (white) to 1 (pure hues)"));
        }
        Some(s) => *s.get_ref(),
        None => 1.0,
    };
    let field = builtin::LightField { count, hues, seed, light_size, saturation };
    for (mut mesh, colour) in field.meshes(|u| to_world.transform_point3(u * 2.0 - Vec3::ONE)) {
        let hue = mesh.name.trim_start_matches("lights-").to_string();
        mesh.name = format!("{shape_name}-{}", mesh.name);
        let material = builder.add_material(&format!("{shape_name}-hue-{hue}"), Material::emitter(colour * emission));
        builder.add_mesh(&mesh, Mat4::IDENTITY, material, path)?;
    }
    Ok(())
}

pub(super) fn shape_transform(
    source: &SourceText,
    shape: &ShapeSection,
    table_span: Range<usize>,
) -> Result<Mat4, SceneError> {
    if let Some(m) = &shape.to_world {
        if shape.translate.is_some() || shape.rotate.is_some() || shape.scale.is_some() {
            return Err(source.error_at(m.span(), "give either 'to_world' or 'translate'/'rotate'/'scale', not both"));
        }
        let matrix = matrix_from_rows(m.get_ref());
        check_transform(source, m.span(), matrix)?;
        return Ok(matrix);
    }
    let translate = shape.translate.as_ref().map(|t| Vec3::from_array(*t.get_ref())).unwrap_or(Vec3::ZERO);
    let rotation = match &shape.rotate {
        Some(r) => {
            let axis = Vec3::from_array(r.get_ref().axis);
            let angle = r.get_ref().angle;
            if !axis.is_finite() || axis.length_squared() == 0.0 || !angle.is_finite() {
                return Err(source.error_at(r.span(), "rotate needs a non-zero finite axis and a finite angle"));
            }
            Mat4::from_axis_angle(axis.normalize(), angle.to_radians())
        }
        None => Mat4::IDENTITY,
    };
    let scale = shape.scale.as_ref().map(|s| s.get_ref().0).unwrap_or(Vec3::ONE);
    let matrix = Mat4::from_translation(translate) * rotation * Mat4::from_scale(scale);
    let span =
        shape.scale.as_ref().map(|s| s.span()).or(shape.translate.as_ref().map(|t| t.span())).unwrap_or(table_span);
    check_transform(source, span, matrix)?;
    Ok(matrix)
}
