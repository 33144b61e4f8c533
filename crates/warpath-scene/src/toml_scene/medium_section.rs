//! The `[[medium]]` sections of a TOML scene (reference: docs/scene-format.md, "Media"):
//! homogeneous media from σ_t and albedo or σ_a and σ_s; grid media from a volume file
//! (`.vol`, NIfTI, OpenVDB, raw with its layout), a constant grid or pbrt-v4's procedural
//! cloud, optionally through a transfer function; albedo as a color, a grid, or an image
//! printed into the top of a block (seed 003's 3D prints); the grids' placement (`to_world`,
//! `translate`/`rotate`/`size`, or `bounds`, optionally in the scan's physical proportions);
//! the anisotropy `g` and the majorant cell size. Errors point at the offending key's line.

use super::values::{Matrix4, Rotate, SourceText, Triple, check_transform, matrix_from_rows};
use crate::SceneError;
use glam::{Mat4, Vec3};
use serde::Deserialize;
use std::ops::Range;
use std::sync::Arc;
use toml::Spanned;
use warpath_volume::load::LoadedVolume;
use warpath_volume::majorant::DEFAULT_VOXELS_PER_CELL;
use warpath_volume::print::{DEFAULT_WHITE, PrintImage, print_albedo};
use warpath_volume::procedural::{CloudParams, cloud_grid, constant_grid};
use warpath_volume::{
    Medium, MediumAlbedo, RawLayout, RawSample, TransferFunction, TransferPoint, VolumeGrid, load_volume,
};

/// Largest grid side a scene may ask for (constant and procedural grids).
pub const MAX_GRID_SIDE: i64 = 4096;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MediumSection {
    pub(super) name: Spanned<String>,
    #[serde(rename = "type")]
    kind: Spanned<String>,
    sigma_t: Option<Spanned<Triple>>,
    sigma_a: Option<Spanned<Triple>>,
    sigma_s: Option<Spanned<Triple>>,
    density: Option<Spanned<GridSpec>>,
    scale: Option<Spanned<f32>>,
    albedo: Option<Spanned<AlbedoSpec>>,
    transfer: Option<Spanned<TransferSpec>>,
    g: Option<Spanned<f32>>,
    majorant_cell: Option<Spanned<i64>>,
    to_world: Option<Spanned<Matrix4>>,
    translate: Option<Spanned<[f32; 3]>>,
    rotate: Option<Spanned<Rotate>>,
    size: Option<Spanned<Triple>>,
    bounds: Option<Spanned<[[f32; 3]; 2]>>,
    /// Scale the unit cube to the density file's physical proportions (voxel spacing).
    physical_proportions: Option<bool>,
}

/// A grid: a file name, or a table describing a raw file or a constant grid.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum GridSpec {
    File(String),
    Table(GridTable),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GridTable {
    file: Option<String>,
    resolution: Option<[i64; 3]>,
    /// Raw files: "u8", "u16" or "f32".
    format: Option<String>,
    big_endian: Option<bool>,
    constant: Option<f32>,
    /// "cloud": pbrt-v4's procedural cloud (values in [0, 1]).
    procedural: Option<String>,
    /// Cloud: domain distortion (default 1) and noise frequency over the cube (default 5).
    wispiness: Option<f32>,
    frequency: Option<f32>,
    /// Cloud: fade out toward the inscribed ellipsoid (one cumulus; default false).
    rounded: Option<bool>,
    /// Albedo only: an image printed into the block's top (+z) face, `depth` voxels deep,
    /// `white` below (seed 003's 3D prints).
    image: Option<String>,
    depth: Option<i64>,
    white: Option<f32>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum AlbedoSpec {
    Color(Triple),
    Grid(GridSpec),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum TransferSpec {
    Preset(String),
    Table(TransferTable),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TransferTable {
    preset: Option<String>,
    /// The scan values the preset spans (default: the scan's range).
    range: Option<[f32; 2]>,
    max_density: Option<f32>,
    /// Control points `[value, density, r, g, b]`.
    points: Option<Vec<[f32; 5]>>,
}

/// Builds every medium of the file, in order (names are checked unique by the caller).
pub(super) fn medium_from_section(source: &SourceText, section: &Spanned<MediumSection>) -> Result<Medium, SceneError> {
    let m = section.get_ref();
    let name = m.name.get_ref().as_str();
    let at = |span: Range<usize>, message: String| source.error_at(span, format!("medium '{name}': {message}"));
    let g = match &m.g {
        Some(g) => *g.get_ref(),
        None => 0.0,
    };
    if !(g.is_finite() && g > -1.0 && g < 1.0) {
        let span = m.g.as_ref().map(|g| g.span()).unwrap_or(section.span());
        return Err(at(span, format!("g = {g} must lie strictly between -1 and 1")));
    }
    let scale = match &m.scale {
        Some(s) if !(s.get_ref().is_finite() && *s.get_ref() >= 0.0) => {
            return Err(at(s.span(), format!("scale = {} must be finite and not negative", s.get_ref())));
        }
        Some(s) => *s.get_ref(),
        None => 1.0,
    };
    let color = |v: &Spanned<Triple>, key: &str, max: Option<f32>| -> Result<Vec3, SceneError> {
        let c = v.get_ref().0;
        if !c.is_finite() || c.min_element() < 0.0 || max.is_some_and(|max| c.max_element() > max) {
            let range = if max.is_some() { "in [0, 1]" } else { "finite and not negative" };
            return Err(at(v.span(), format!("{key} = {c} must be {range}")));
        }
        Ok(c)
    };
    let reject = |present: &[(&str, Option<Range<usize>>)], kind: &str| -> Result<(), SceneError> {
        for (key, span) in present {
            if let Some(span) = span {
                return Err(at(span.clone(), format!("'{key}' does not apply to a {kind} medium")));
            }
        }
        Ok(())
    };
    match m.kind.get_ref().as_str() {
        "homogeneous" => {
            reject(
                &[
                    ("density", m.density.as_ref().map(|v| v.span())),
                    ("transfer", m.transfer.as_ref().map(|v| v.span())),
                    ("majorant_cell", m.majorant_cell.as_ref().map(|v| v.span())),
                    ("to_world", m.to_world.as_ref().map(|v| v.span())),
                    ("translate", m.translate.as_ref().map(|v| v.span())),
                    ("rotate", m.rotate.as_ref().map(|v| v.span())),
                    ("size", m.size.as_ref().map(|v| v.span())),
                    ("bounds", m.bounds.as_ref().map(|v| v.span())),
                ],
                "homogeneous",
            )?;
            let medium = match (&m.sigma_t, &m.sigma_a, &m.sigma_s) {
                (Some(t), None, None) => {
                    let albedo = match &m.albedo {
                        Some(a) => match a.get_ref() {
                            AlbedoSpec::Color(c) => color(&Spanned::new(a.span(), *c), "albedo", Some(1.0))?,
                            AlbedoSpec::Grid(_) => {
                                return Err(at(
                                    a.span(),
                                    "a homogeneous medium's albedo is a color, not a grid".into(),
                                ));
                            }
                        },
                        None => Vec3::ONE,
                    };
                    Medium::homogeneous(name, color(t, "sigma_t", None)? * scale, albedo, g)
                }
                (None, Some(a), Some(s)) => {
                    if let Some(albedo) = &m.albedo {
                        return Err(at(
                            albedo.span(),
                            "give 'albedo' with 'sigma_t', not with 'sigma_a'/'sigma_s'".into(),
                        ));
                    }
                    Medium::from_coefficients(
                        name,
                        color(a, "sigma_a", None)? * scale,
                        color(s, "sigma_s", None)? * scale,
                        g,
                    )
                }
                _ => {
                    return Err(at(
                        m.kind.span(),
                        "a homogeneous medium needs 'sigma_t' (with 'albedo'), or 'sigma_a' and 'sigma_s'".into(),
                    ));
                }
            };
            medium.map_err(|message| at(m.kind.span(), message))
        }
        "grid" => {
            reject(
                &[
                    ("sigma_t", m.sigma_t.as_ref().map(|v| v.span())),
                    ("sigma_a", m.sigma_a.as_ref().map(|v| v.span())),
                    ("sigma_s", m.sigma_s.as_ref().map(|v| v.span())),
                ],
                "grid",
            )?;
            let Some(density_spec) = &m.density else {
                return Err(at(m.kind.span(), "a grid medium needs a 'density' grid".into()));
            };
            let (scan, spacing) = load_spec(source, density_spec, &at, 1)?;
            let (density, albedo) = match &m.transfer {
                Some(transfer) => {
                    if let Some(a) = &m.albedo {
                        return Err(at(a.span(), "the transfer function gives the albedo; remove 'albedo'".into()));
                    }
                    let function =
                        transfer_function(transfer, &scan).map_err(|message| at(transfer.span(), message))?;
                    // The transfer function makes a density (1 value) and an albedo (3) per voxel.
                    warpath_volume::limits::check_grid("the transfer function's grids", scan.resolution, 4)
                        .map_err(|message| at(transfer.span(), message))?;
                    let (density, albedo) = function.apply(&scan);
                    (density, MediumAlbedo::Grid(Arc::new(albedo)))
                }
                None => {
                    let albedo = match &m.albedo {
                        None => MediumAlbedo::Constant(Vec3::ONE),
                        Some(a) => match a.get_ref() {
                            AlbedoSpec::Color(c) => {
                                MediumAlbedo::Constant(color(&Spanned::new(a.span(), *c), "albedo", Some(1.0))?)
                            }
                            AlbedoSpec::Grid(spec) => {
                                let (grid, _) = load_spec(source, &Spanned::new(a.span(), clone_spec(spec)), &at, 3)?;
                                MediumAlbedo::Grid(Arc::new(grid))
                            }
                        },
                    };
                    (scan, albedo)
                }
            };
            if density.channels != 1 {
                return Err(at(
                    density_spec.span(),
                    format!("the density grid has {} channels (expected 1)", density.channels),
                ));
            }
            let cells = match &m.majorant_cell {
                Some(c) if !(0..=4096).contains(c.get_ref()) => {
                    return Err(at(c.span(), "majorant_cell must be between 0 (one global majorant) and 4096".into()));
                }
                Some(c) => *c.get_ref() as u32,
                None => DEFAULT_VOXELS_PER_CELL,
            };
            let mut to_world = placement(source, m, section.span(), &at)?;
            if m.physical_proportions == Some(true) {
                // The scan's extent (resolution × voxel spacing), largest side 1, about the
                // cube's centre: the scan keeps its proportions inside the placed box.
                let extent = Vec3::from_array(std::array::from_fn(|a| density.resolution[a] as f32 * spacing[a]));
                let centre = Vec3::splat(0.5);
                to_world = to_world
                    * Mat4::from_translation(centre)
                    * Mat4::from_scale(extent / extent.max_element())
                    * Mat4::from_translation(-centre);
            }
            Medium::grid(name, Arc::new(density), scale, albedo, g, to_world, cells)
                .map_err(|message| at(density_spec.span(), message))
        }
        other => Err(at(m.kind.span(), format!("unknown medium type '{other}' (expected homogeneous or grid)"))),
    }
}

fn clone_spec(spec: &GridSpec) -> GridSpec {
    match spec {
        GridSpec::File(f) => GridSpec::File(f.clone()),
        GridSpec::Table(t) => GridSpec::Table(GridTable {
            file: t.file.clone(),
            resolution: t.resolution,
            format: t.format.clone(),
            big_endian: t.big_endian,
            constant: t.constant,
            procedural: t.procedural.clone(),
            wispiness: t.wispiness,
            frequency: t.frequency,
            rounded: t.rounded,
            image: t.image.clone(),
            depth: t.depth,
            white: t.white,
        }),
    }
}

/// Loads a grid spec and its voxel spacing (1 for generated grids); a file's grid must have
/// `channels` (a scalar may stand for gray albedo).
pub(super) fn load_spec(
    source: &SourceText,
    spec: &Spanned<GridSpec>,
    at: &dyn Fn(Range<usize>, String) -> SceneError,
    channels: u32,
) -> Result<(VolumeGrid, [f32; 3]), SceneError> {
    let span = spec.span();
    let mut spacing = [1.0; 3];
    let grid = match spec.get_ref() {
        GridSpec::File(file) => {
            let loaded = open(source, file, None, span.clone(), at)?;
            spacing = loaded.spacing;
            loaded.grid
        }
        GridSpec::Table(t) => {
            let resolution = match t.resolution {
                Some(r) if r.iter().all(|&n| (1..=MAX_GRID_SIDE).contains(&n)) => Some(r.map(|n| n as u32)),
                Some(r) => {
                    return Err(at(span, format!("resolution {r:?}: each side must be between 1 and {MAX_GRID_SIDE}")));
                }
                None => None,
            };
            let sources = [t.file.is_some(), t.constant.is_some(), t.procedural.is_some(), t.image.is_some()];
            if sources.iter().filter(|&&b| b).count() != 1 {
                return Err(at(
                    span,
                    "a grid table needs exactly one of 'file', 'constant', 'procedural' or 'image'".into(),
                ));
            }
            let cloud_keys = t.wispiness.is_some() || t.frequency.is_some() || t.rounded.is_some();
            let print_keys = t.depth.is_some() || t.white.is_some();
            if (cloud_keys && t.procedural.is_none()) || (print_keys && t.image.is_none()) {
                return Err(at(
                    span,
                    "'wispiness'/'frequency'/'rounded' go with 'procedural', 'depth'/'white' with 'image'".into(),
                ));
            }
            if let Some(name) = &t.procedural {
                if name != "cloud" {
                    return Err(at(span, format!("unknown procedural grid '{name}' (expected cloud)")));
                }
                let Some(resolution) = resolution else {
                    return Err(at(span, "a procedural grid needs a 'resolution'".into()));
                };
                let defaults = CloudParams::default();
                let params = CloudParams {
                    wispiness: t.wispiness.unwrap_or(defaults.wispiness),
                    frequency: t.frequency.unwrap_or(defaults.frequency),
                    rounded: t.rounded.unwrap_or(defaults.rounded),
                    ..defaults
                };
                let grid = cloud_grid(resolution, &params).map_err(|message| at(span.clone(), message))?;
                return Ok((grid, spacing));
            }
            if let Some(image) = &t.image {
                if channels != 3 {
                    return Err(at(span, "an image prints an albedo grid, not a density".into()));
                }
                let (Some(resolution), Some(depth)) = (resolution, t.depth) else {
                    return Err(at(span, "a printed albedo needs 'resolution' and 'depth'".into()));
                };
                if !(1..=MAX_GRID_SIDE).contains(&depth) {
                    return Err(at(span, format!("depth = {depth} must be between 1 and {MAX_GRID_SIDE}")));
                }
                let path = source.resolve(image);
                if !path.is_file() {
                    return Err(at(span, format!("image '{}' not found", path.display())));
                }
                let texture = crate::image_io::load_image(&path)?;
                let print = PrintImage { width: texture.width, height: texture.height, pixels: &texture.pixels };
                let grid = print_albedo(&print, resolution, depth as u32, t.white.unwrap_or(DEFAULT_WHITE))
                    .map_err(|message| at(span.clone(), message))?;
                return Ok((grid, spacing));
            }
            match (&t.file, t.constant) {
                (Some(file), None) => {
                    let raw = match (&t.format, resolution) {
                        (Some(format), Some(resolution)) => {
                            let sample = match format.as_str() {
                                "u8" => RawSample::U8,
                                "u16" => RawSample::U16,
                                "f32" => RawSample::F32,
                                other => {
                                    return Err(at(span, format!("raw format '{other}' (expected u8, u16 or f32)")));
                                }
                            };
                            Some(RawLayout { resolution, sample, big_endian: t.big_endian.unwrap_or(false) })
                        }
                        (None, None) => None,
                        _ => return Err(at(span, "a raw volume needs both 'format' and 'resolution'".into())),
                    };
                    let loaded = open(source, file, raw.as_ref(), span.clone(), at)?;
                    spacing = loaded.spacing;
                    loaded.grid
                }
                (None, Some(value)) => {
                    let Some(resolution) = resolution else {
                        return Err(at(span, "a constant grid needs a 'resolution'".into()));
                    };
                    if !(value.is_finite() && value >= 0.0) {
                        return Err(at(span, format!("constant = {value} must be finite and not negative")));
                    }
                    constant_grid(resolution, channels, value).map_err(|message| at(span.clone(), message))?
                }
                _ => return Err(at(span, "a grid table needs either 'file' or 'constant'".into())),
            }
        }
    };
    if grid.channels != channels && !(channels == 3 && grid.channels == 1) {
        return Err(at(span, format!("the grid has {} channels (expected {channels})", grid.channels)));
    }
    Ok((grid, spacing))
}

fn open(
    source: &SourceText,
    file: &str,
    raw: Option<&RawLayout>,
    span: Range<usize>,
    at: &dyn Fn(Range<usize>, String) -> SceneError,
) -> Result<LoadedVolume, SceneError> {
    let path = source.resolve(file);
    if !path.is_file() {
        return Err(at(span, format!("volume file '{}' not found", path.display())));
    }
    load_volume(&path, raw).map_err(|e| at(span, e.to_string()))
}

fn transfer_function(spec: &Spanned<TransferSpec>, scan: &VolumeGrid) -> Result<TransferFunction, String> {
    let (low, high) = scan.range();
    let preset = |name: &str, range: Option<[f32; 2]>, max_density: Option<f32>| match name {
        "gray-red-blue" => {
            let [lo, hi] = range.unwrap_or([low, high]);
            TransferFunction::gray_red_blue(lo, hi, max_density.unwrap_or(100.0))
        }
        other => Err(format!("unknown transfer preset '{other}' (expected gray-red-blue)")),
    };
    match spec.get_ref() {
        TransferSpec::Preset(name) => preset(name, None, None),
        TransferSpec::Table(t) => match (&t.preset, &t.points) {
            (Some(name), None) => preset(name, t.range, t.max_density),
            (None, Some(points)) => {
                if t.range.is_some() || t.max_density.is_some() {
                    return Err("'range' and 'max_density' apply to a preset, not to 'points'".into());
                }
                TransferFunction::new(
                    points
                        .iter()
                        .map(|p| TransferPoint { value: p[0], density: p[1], albedo: Vec3::new(p[2], p[3], p[4]) })
                        .collect(),
                )
            }
            _ => Err("a transfer table needs either 'preset' or 'points'".into()),
        },
    }
}

/// Where the grids' unit cube goes: `to_world`, or `bounds`, or `translate`/`rotate`/`size`.
fn placement(
    source: &SourceText,
    m: &MediumSection,
    table_span: Range<usize>,
    at: &dyn Fn(Range<usize>, String) -> SceneError,
) -> Result<Mat4, SceneError> {
    let trs = m.translate.is_some() || m.rotate.is_some() || m.size.is_some();
    if let Some(matrix) = &m.to_world {
        if trs || m.bounds.is_some() {
            return Err(at(matrix.span(), "give one of 'to_world', 'bounds' or 'translate'/'rotate'/'size'".into()));
        }
        let to_world = matrix_from_rows(matrix.get_ref());
        check_transform(source, matrix.span(), to_world)?;
        return Ok(to_world);
    }
    if let Some(bounds) = &m.bounds {
        if m.translate.is_some() || m.size.is_some() {
            return Err(at(
                bounds.span(),
                "give 'bounds' (with an optional 'rotate' about its centre) or 'translate'/'rotate'/'size'".into(),
            ));
        }
        let [lo, hi] = bounds.get_ref().map(Vec3::from_array);
        if !(lo.is_finite() && hi.is_finite() && hi.cmpgt(lo).all()) {
            return Err(at(bounds.span(), format!("bounds [{lo}, {hi}]: each max must exceed its min")));
        }
        let boxed = Mat4::from_translation(lo) * Mat4::from_scale(hi - lo);
        let rotation = rotation(m, &at)?;
        let centre = 0.5 * (lo + hi);
        return Ok(Mat4::from_translation(centre) * rotation * Mat4::from_translation(-centre) * boxed);
    }
    let translate = m.translate.as_ref().map(|t| Vec3::from_array(*t.get_ref())).unwrap_or(Vec3::ZERO);
    let rotation = rotation(m, at)?;
    let size = m.size.as_ref().map(|s| s.get_ref().0).unwrap_or(Vec3::ONE);
    let to_world = Mat4::from_translation(translate) * rotation * Mat4::from_scale(size);
    let span = m.size.as_ref().map(|s| s.span()).unwrap_or(table_span);
    check_transform(source, span, to_world)?;
    Ok(to_world)
}

/// The medium's `rotate`, or the identity.
fn rotation(m: &MediumSection, at: &dyn Fn(Range<usize>, String) -> SceneError) -> Result<Mat4, SceneError> {
    match &m.rotate {
        Some(r) => {
            let axis = Vec3::from_array(r.get_ref().axis);
            let angle = r.get_ref().angle;
            if !axis.is_finite() || axis.length_squared() == 0.0 || !angle.is_finite() {
                return Err(at(r.span(), "rotate needs a non-zero finite axis and a finite angle".into()));
            }
            Ok(Mat4::from_axis_angle(axis.normalize(), angle.to_radians()))
        }
        None => Ok(Mat4::IDENTITY),
    }
}
