//! The `[render]`, `[camera]` and `[environment]` tables of a TOML scene (reference:
//! docs/scene-format.md): render settings within their limits, the camera from `look_at` or
//! `to_world` (a thin lens where asked), and the environment (none, a constant radiance, or
//! an image map, its bad pixels repaired with a warning).

use super::sections::{
    CameraSection, EnvironmentSection, RenderSection, SourceText, check_color, check_transform, matrix_from_rows,
};
use crate::image_io::{load_image, repair_pixels};
use crate::mesh::SceneBuilder;
use crate::scene::{MAX_DEPTH, MAX_RESOLUTION, MAX_SPP, UNLIMITED_DEPTH};
use crate::{RenderSettings, SceneError};
use glam::{Mat3, Vec3};
use toml::Spanned;
use warpath_core::camera::Camera;
use warpath_core::light::{EnvMap, Environment};
use warpath_core::sampler::SamplerKind;

pub(super) fn render_settings(source: &SourceText, render: &RenderSection) -> Result<RenderSettings, SceneError> {
    let mut s = RenderSettings::default();
    let ranged = |value: &Option<Spanned<i64>>, name: &str, min: i64, max: i64, default: u32| match value {
        None => Ok(default),
        Some(v) if (min..=max).contains(v.get_ref()) => Ok(*v.get_ref() as u32),
        Some(v) => Err(source.error_at(v.span(), format!("{name} = {} is out of range [{min}, {max}]", v.get_ref()))),
    };
    s.width = ranged(&render.width, "width", 1, MAX_RESOLUTION as i64, s.width)?;
    s.height = ranged(&render.height, "height", 1, MAX_RESOLUTION as i64, s.height)?;
    s.spp = ranged(&render.spp, "spp", 1, MAX_SPP as i64, s.spp)?;
    s.max_depth = match &render.max_depth {
        // Mitsuba's convention: -1 is no limit (paths end by Russian roulette or escape).
        Some(v) if *v.get_ref() == -1 => UNLIMITED_DEPTH,
        _ => ranged(&render.max_depth, "max_depth", 0, MAX_DEPTH as i64, s.max_depth)?,
    };
    s.seed = ranged(&render.seed, "seed", 0, u32::MAX as i64, s.seed)?;
    if let Some(sampler) = &render.sampler {
        s.sampler =
            sampler.get_ref().parse::<SamplerKind>().map_err(|message| source.error_at(sampler.span(), message))?;
    }
    if let Some(rr) = &render.rr_threshold {
        if !(0.0..=1.0).contains(rr.get_ref()) {
            return Err(source.error_at(rr.span(), "rr_threshold must be in [0, 1]"));
        }
        s.rr_threshold = *rr.get_ref();
    }
    Ok(s)
}

pub(super) fn camera_from_section(source: &SourceText, section: &Spanned<CameraSection>) -> Result<Camera, SceneError> {
    let c = section.get_ref();
    let fov = match &c.fov {
        Some(f) if !(*f.get_ref() > 0.0 && *f.get_ref() < 180.0) => {
            return Err(source.error_at(f.span(), "fov must be between 0 and 180 degrees"));
        }
        Some(f) => *f.get_ref(),
        None => 40.0,
    };
    let mut camera = match (&c.look_at, &c.to_world) {
        (Some(_), Some(m)) => return Err(source.error_at(m.span(), "give either 'look_at' or 'to_world', not both")),
        (None, None) => return Err(source.error_at(section.span(), "[camera] needs 'look_at' or 'to_world'")),
        (Some(l), None) => {
            let look = l.get_ref();
            let (origin, target) = (Vec3::from_array(look.origin), Vec3::from_array(look.target));
            let up = Vec3::from_array(look.up.unwrap_or([0.0, 1.0, 0.0]));
            let dir = target - origin;
            if !(origin.is_finite() && target.is_finite() && up.is_finite()) || dir.length_squared() == 0.0 {
                return Err(source.error_at(l.span(), "look_at needs finite, distinct origin and target"));
            }
            if dir.normalize().cross(up).length() < 1e-6 {
                return Err(source.error_at(l.span(), "look_at 'up' is parallel to the view direction"));
            }
            Camera::look_at(origin, target, up, fov)
        }
        (None, Some(m)) => {
            let matrix = matrix_from_rows(m.get_ref());
            check_transform(source, m.span(), matrix)?;
            Camera { to_world: matrix, fov_degrees: fov, focus_distance: 1.0, ..Camera::default() }
        }
    };
    camera.fov_degrees = fov;
    camera.fov_axis = c.fov_axis.unwrap_or_default();
    if let Some(a) = &c.aperture_radius {
        if !(a.get_ref().is_finite() && *a.get_ref() >= 0.0) {
            return Err(source.error_at(a.span(), "aperture_radius must be finite and non-negative"));
        }
        camera.aperture_radius = *a.get_ref();
    }
    if let Some(f) = &c.focus_distance {
        if !(f.get_ref().is_finite() && *f.get_ref() > 0.0) {
            return Err(source.error_at(f.span(), "focus_distance must be positive"));
        }
        camera.focus_distance = *f.get_ref();
    }
    Ok(camera)
}

pub(super) fn environment_from_section(
    source: &SourceText,
    section: &Spanned<EnvironmentSection>,
    builder: &mut SceneBuilder,
) -> Result<Environment, SceneError> {
    let e = section.get_ref();
    let scale = match &e.scale {
        Some(s) if !(s.get_ref().is_finite() && *s.get_ref() >= 0.0) => {
            return Err(source.error_at(s.span(), "scale must be finite and non-negative"));
        }
        Some(s) => *s.get_ref(),
        None => 1.0,
    };
    match e.kind.get_ref().as_str() {
        "none" => Ok(Environment::None),
        "constant" => {
            let radiance = match &e.radiance {
                Some(r) => check_color(source, r, "radiance", None)?,
                None => Vec3::ONE,
            };
            Ok(Environment::Constant(radiance * scale))
        }
        "map" => {
            let Some(file) = &e.file else {
                return Err(source.error_at(e.kind.span(), "an environment of type 'map' needs a 'file'"));
            };
            let image_path = source.resolve(file.get_ref());
            if !image_path.is_file() {
                return Err(
                    source.error_at(file.span(), format!("environment map '{}' not found", image_path.display()))
                );
            }
            let rotate_y = match &e.rotate_y {
                Some(r) if !r.get_ref().is_finite() => {
                    return Err(source.error_at(r.span(), format!("rotate_y must be finite, got {}", r.get_ref())));
                }
                Some(r) => *r.get_ref(),
                None => 0.0,
            };
            let mut texture = load_image(&image_path)?;
            let repairs = repair_pixels(&mut texture.pixels, None);
            if let Some(w) = repairs.warning(&image_path, "environment map", None) {
                builder.warn(w);
            }
            let rotation = Mat3::from_rotation_y(rotate_y.to_radians());
            Ok(Environment::Map(EnvMap::new(texture.width, texture.height, texture.pixels, rotation, scale)))
        }
        other => Err(source
            .error_at(e.kind.span(), format!("unknown environment type '{other}' (expected none, constant or map)"))),
    }
}
