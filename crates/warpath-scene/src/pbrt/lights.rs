//! pbrt-v4 lights, camera, film, sampler, integrator and media. Lights: `infinite`
//! (constant, or an equal-area octahedral image resampled to warpath's latitude-longitude
//! environment) and `AreaLightSource "diffuse"`; `point`, `spot` and `distant` are read in
//! `delta.rs`; `goniometric` and `projection` have no counterpart in warpath (a warning, and
//! an error when nothing else lights the scene). Media: `homogeneous`, `uniformgrid` and `cloud` (warpath's bake
//! of pbrt's procedural cloud); `nanovdb` and `rgbgrid` are refused by line.

use super::*;
use crate::image_io::{load_image, repair_pixels};
use crate::scene::{MAX_RESOLUTION, MAX_SPP};
use std::f32::consts::PI;
use warpath_core::camera::FovAxis;
use warpath_core::light::EnvMap;
use warpath_volume::majorant::DEFAULT_VOXELS_PER_CELL;
use warpath_volume::medium::interface;
use warpath_volume::procedural::{CloudParams, cloud_grid};
use warpath_volume::{Medium, MediumAlbedo, VolumeGrid};

/// Voxels per side of the grid pbrt's procedural `cloud` is baked into.
pub const CLOUD_RESOLUTION: u32 = 128;

impl Loader {
    pub(super) fn camera(&mut self, kind: &str, mut p: Params, lx: &Lexer, line: usize) -> Result<(), SceneError> {
        let at = p.at();
        if kind != "perspective" {
            self.warn(format!(
                "{at}: Camera \"{kind}\" is rendered as a perspective camera (warpath has no other projection)"
            ));
        }
        let inverse = self.g.ctm.inverse();
        if !inverse.is_finite() || self.g.ctm.determinant() == 0.0 {
            return Err(lx.error(line, "Camera: the current transform is singular"));
        }
        self.named_coordinates.insert("camera".into(), inverse);
        // pbrt's camera x is the image's right, warpath's the image's left.
        let to_world = inverse * Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let fov = p.float_or("fov", 90.0)?;
        if !(fov > 0.0 && fov < 180.0) {
            return Err(p.error(line, format!("fov = {fov} must be between 0 and 180 degrees")));
        }
        let lens = p.float_or("lensradius", 0.0)?;
        let focus = p.float_or("focaldistance", 1e6)?;
        if !(lens >= 0.0) || !(focus > 0.0) {
            return Err(p.error(line, "lensradius must be ≥ 0 and focaldistance > 0"));
        }
        for key in ["screenwindow", "frameaspectratio"] {
            if let Some(q) = p.take(key) {
                self.warn(format!(
                    "{}: Camera: '{key}' is not supported (warpath's image spans the field of view)",
                    p.at_line(q.line)
                ));
            }
        }
        if let Some(q) = p.take("shutteropen").or(p.take("shutterclose")) {
            self.warn(format!(
                "{}: Camera: the shutter is ignored (warpath renders no motion blur)",
                p.at_line(q.line)
            ));
        }
        if kind != "perspective" {
            p.ignore_all();
        }
        p.finish(self.warnings());
        if self.camera.is_some() {
            self.warn(format!("{at}: a second Camera replaces the first ({})", self.camera_line));
        }
        // pbrt's fov spans the shorter image axis.
        self.camera = Some(Camera {
            to_world,
            fov_degrees: fov,
            fov_axis: FovAxis::Smaller,
            aperture_radius: lens,
            focus_distance: focus,
        });
        self.camera_line = at;
        self.camera_medium = self.g.outside.clone();
        Ok(())
    }

    pub(super) fn film(&mut self, kind: &str, mut p: Params) -> Result<(), SceneError> {
        if !matches!(kind, "rgb" | "gbuffer" | "spectral" | "image") {
            self.warn(format!("{}: Film \"{kind}\" is read as an RGB film (its resolution only)", p.at()));
        }
        for (key, default) in [("xresolution", 1280), ("yresolution", 720)] {
            let (v, line) = p.int(key)?.unwrap_or((default, p.line));
            if !(1..=MAX_RESOLUTION as i64).contains(&v) {
                return Err(p.error(line, format!("{key} = {v} is out of range [1, {MAX_RESOLUTION}]")));
            }
            if key == "xresolution" {
                self.settings.width = v as u32;
            } else {
                self.settings.height = v as u32;
            }
        }
        // The output file is the command line's (-o FILE).
        p.take("filename");
        for key in ["cropwindow", "pixelbounds"] {
            if let Some(q) = p.take(key) {
                self.warn(format!(
                    "{}: Film: '{key}' is not supported: the whole image is rendered",
                    p.at_line(q.line)
                ));
            }
        }
        p.finish(self.warnings());
        Ok(())
    }

    pub(super) fn sampler(&mut self, kind: &str, mut p: Params) -> Result<(), SceneError> {
        let _ = kind; // warpath uses its own sequence (--sampler on the command line).
        if let Some((n, line)) = p.int("pixelsamples")? {
            if !(1..=MAX_SPP as i64).contains(&n) {
                return Err(p.error(line, format!("pixelsamples = {n} is out of range [1, {MAX_SPP}]")));
            }
            self.settings.spp = n as u32;
        }
        if let Some((seed, line)) = p.int("seed")? {
            if !(0..=u32::MAX as i64).contains(&seed) {
                return Err(p.error(line, format!("seed = {seed} is out of range")));
            }
            self.settings.seed = seed as u32;
        }
        p.finish(self.warnings());
        Ok(())
    }

    pub(super) fn integrator(&mut self, kind: &str, mut p: Params) -> Result<(), SceneError> {
        if !matches!(kind, "path" | "volpath") {
            self.warn(format!(
                "{}: Integrator \"{kind}\" is rendered with warpath's path tracer (its maxdepth is read)",
                p.at()
            ));
        }
        if let Some((d, line)) = p.int("maxdepth")? {
            self.settings.max_depth = max_depth_from_pbrt(d).ok_or_else(|| {
                p.error(line, format!("maxdepth = {d} is out of range (-1, or 0 ..= {})", crate::scene::MAX_DEPTH))
            })?;
        }
        if let Some(q) = p.take("regularize") {
            self.warn(format!("{}: Integrator: 'regularize' is ignored", p.at_line(q.line)));
        }
        if !matches!(kind, "path" | "volpath") {
            p.ignore_all();
        }
        p.finish(self.warnings());
        Ok(())
    }

    pub(super) fn area_light(&mut self, kind: &str, mut p: Params) -> Result<(), SceneError> {
        if kind != "diffuse" {
            p.ignore_all();
            self.warn(format!(
                "{}: AreaLightSource \"{kind}\" is not supported (pbrt-v4 has \"diffuse\"): ignored",
                p.at()
            ));
            p.finish(self.warnings());
            return Ok(());
        }
        let l = self.color(&mut p, "L")?.unwrap_or(Vec3::ONE);
        let scale = p.float_or("scale", 1.0)?;
        let two_sided = p.boolean("twosided")?.unwrap_or(false);
        let radiance = l * scale;
        if !radiance.is_finite() || radiance.min_element() < 0.0 {
            return Err(p.error(p.line, format!("radiance {radiance} must be finite and not negative")));
        }
        for key in ["power", "filename"] {
            if let Some(q) = p.take(key) {
                self.warn(format!("{}: AreaLightSource: '{key}' is not supported and is ignored", p.at_line(q.line)));
            }
        }
        p.finish(self.warnings());
        self.g.area_light = Some(AreaLight { radiance, two_sided });
        Ok(())
    }

    pub(super) fn light(&mut self, kind: &str, mut p: Params) -> Result<(), SceneError> {
        let at = p.at();
        let env = match kind {
            "infinite" => {
                let scale = p.float_or("scale", 1.0)?;
                if !(scale >= 0.0) {
                    return Err(p.error(p.line, "scale must not be negative"));
                }
                for key in ["illuminance", "portal"] {
                    if let Some(q) = p.take(key) {
                        self.warn(format!(
                            "{}: infinite light: '{key}' is not supported and is ignored",
                            p.at_line(q.line)
                        ));
                    }
                }
                let l = self.color(&mut p, "L")?;
                match (l, p.string("filename")?) {
                    (Some(_), Some((_, line))) => {
                        return Err(p.error(line, "give either \"L\" or \"filename\", not both"));
                    }
                    (Some(l), None) => Environment::Constant(l * scale),
                    (None, None) => Environment::Constant(Vec3::splat(scale)),
                    (None, Some((file, line))) => {
                        let path = self.resolve(&p.path, line, &file);
                        if !path.is_file() {
                            self.missing(&p, line, "environment map", &path)?;
                            p.ignore_all();
                            p.finish(self.warnings());
                            return Ok(());
                        }
                        let mut image = load_image(&path)?;
                        let repairs = repair_pixels(&mut image.pixels, None);
                        if let Some(w) = repairs.warning(&path, "environment map", None) {
                            self.warn(w);
                        }
                        if image.width != image.height {
                            return Err(p.error(
                                line,
                                format!(
                                    "'{file}' is {}×{}: pbrt-v4's infinite lights take square equal-area images",
                                    image.width, image.height
                                ),
                            ));
                        }
                        warpath_core::limits::check_image(
                            "the environment map resampled to latitude-longitude",
                            2 * image.width as u64,
                            image.width as u64,
                            12,
                        )
                        .map_err(|e| p.error(line, e.to_string()))?;
                        let (w, h, pixels) = equal_area_to_latlong(&image, self.g.ctm);
                        Environment::Map(EnvMap::new(w, h, pixels, glam::Mat3::IDENTITY, scale))
                    }
                }
            }
            "point" | "spot" | "distant" => return self.delta_light(kind, p),
            "goniometric" | "projection" => {
                p.ignore_all();
                self.warn(format!(
                    "{at}: LightSource \"{kind}\" is not supported (warpath has area, infinite, point, spot and \
                     distant lights): it is not rendered; replace it with a spot or point light"
                ));
                self.unsupported_lights.push(format!("LightSource \"{kind}\" at {at}"));
                p.finish(self.warnings());
                return Ok(());
            }
            other => return Err(p.error(
                p.line,
                format!(
                    "unknown light \"{other}\" (pbrt-v4 has infinite, point, spot, distant, goniometric, projection)"
                ),
            )),
        };
        p.finish(self.warnings());
        if let Some((_, first)) = &self.environment {
            return Err(SceneError::Parse {
                path: PathBuf::from(at.rsplit_once(':').map(|(f, _)| f).unwrap_or(&at)),
                line: at.rsplit_once(':').and_then(|(_, l)| l.parse().ok()).unwrap_or(0),
                message: format!(
                    "a second infinite light (the first is at {first}): warpath's scenes have one environment"
                ),
            });
        }
        self.environment = Some((env, at));
        Ok(())
    }

    pub(super) fn medium(&mut self, name: String, mut p: Params) -> Result<(), SceneError> {
        let Some((kind, tline)) = p.string("type")? else {
            return Err(p.error(p.line, "MakeNamedMedium needs \"string type\""));
        };
        p.what = format!("MakeNamedMedium \"{name}\" (type \"{kind}\")");
        let at = p.at();
        if let Some((preset, _)) = p.string("preset")? {
            self.warn(format!("{at}: medium preset \"{preset}\" is not known to warpath: sigma_a/sigma_s are used"));
        }
        let sigma_a = self.color(&mut p, "sigma_a")?.unwrap_or(Vec3::ONE);
        let sigma_s = self.color(&mut p, "sigma_s")?.unwrap_or(Vec3::ONE);
        let scale = p.float_or("scale", 1.0)?;
        let g = p.float_or("g", 0.0)?;
        for key in ["Le", "Lescale", "temperature", "temperaturescale", "temperatureoffset"] {
            if let Some(q) = p.take(key) {
                self.warn(format!(
                    "{}: {}: emission ('{key}') is not supported and is ignored",
                    p.at_line(q.line),
                    p.what
                ));
            }
        }
        let sigma_t = (sigma_a + sigma_s) * scale;
        let albedo = Vec3::select(sigma_t.cmpgt(Vec3::ZERO), sigma_s * scale / sigma_t, Vec3::ZERO);
        let bounds = |p: &mut Params| -> Result<Mat4, SceneError> {
            let p0 = p.numbers("p0", &["point3"])?.map(|(v, _)| v).unwrap_or(vec![0.0; 3]);
            let p1 = p.numbers("p1", &["point3"])?.map(|(v, _)| v).unwrap_or(vec![1.0; 3]);
            if p0.len() != 3 || p1.len() != 3 {
                return Err(p.error(p.line, "p0 and p1 are points (3 numbers)"));
            }
            let (a, b) = (
                Vec3::new(p0[0] as f32, p0[1] as f32, p0[2] as f32),
                Vec3::new(p1[0] as f32, p1[1] as f32, p1[2] as f32),
            );
            Ok(Mat4::from_translation(a) * Mat4::from_scale(b - a))
        };
        let err = |p: &Params, m: String| p.error(p.line, m);
        let medium = match kind.as_str() {
            "homogeneous" => Some(Medium::homogeneous(&name, sigma_t, albedo, g).map_err(|m| err(&p, m))?),
            "uniformgrid" | "cloud" => {
                let unit = self.g.ctm * bounds(&mut p)?;
                let density = if kind == "cloud" {
                    let d = CloudParams::default();
                    let params = CloudParams {
                        density: p.float_or("density", d.density)?,
                        wispiness: p.float_or("wispiness", d.wispiness)?,
                        frequency: p.float_or("frequency", d.frequency)?,
                        rounded: false,
                    };
                    let key = [params.density.to_bits(), params.wispiness.to_bits(), params.frequency.to_bits()];
                    match self.clouds.get(&key) {
                        Some(g) => g.clone(),
                        None => {
                            let g = Arc::new(cloud_grid([CLOUD_RESOLUTION; 3], &params).map_err(|m| err(&p, m))?);
                            self.clouds.insert(key, g.clone());
                            g
                        }
                    }
                } else {
                    let mut res = [1u32; 3];
                    for (i, key) in ["nx", "ny", "nz"].into_iter().enumerate() {
                        let (v, line) = p.int(key)?.unwrap_or((1, p.line));
                        if !(1..=65536).contains(&v) {
                            return Err(p.error(line, format!("{key} = {v} is out of range")));
                        }
                        res[i] = v as u32;
                    }
                    let Some((values, line)) = p.numbers("density", &["float"])? else {
                        return Err(err(
                            &p,
                            "a 'uniformgrid' medium needs \"float density\" (RGB grids are not supported)".into(),
                        ));
                    };
                    let expected = res.iter().map(|&r| r as u64).product::<u64>();
                    if values.len() as u64 != expected {
                        return Err(
                            p.error(line, format!("density has {} values, nx·ny·nz = {expected}", values.len()))
                        );
                    }
                    Arc::new(
                        VolumeGrid::new(res, 1, values.iter().map(|&v| v as f32).collect())
                            .map_err(|m| p.error(line, m))?,
                    )
                };
                let mean = (sigma_t.x + sigma_t.y + sigma_t.z) / 3.0;
                if (sigma_t - Vec3::splat(mean)).abs().max_element() > 1e-6 * mean.max(1.0) {
                    self.warn(format!(
                        "{at}: colored sigma_t {sigma_t} of a grid medium is rendered gray ({mean}); the color goes to the albedo"
                    ));
                }
                Some(
                    Medium::grid(
                        &name,
                        density,
                        mean,
                        MediumAlbedo::Constant(albedo),
                        g,
                        unit,
                        DEFAULT_VOXELS_PER_CELL,
                    )
                    .map_err(|m| err(&p, m))?,
                )
            }
            "nanovdb" | "rgbgrid" => {
                p.ignore_all();
                let why = if kind == "nanovdb" {
                    "NanoVDB files are not read (no maintained Rust crate reading NanoVDB was found; convert the grid to .vdb or .vol and \
                     describe the medium in a warpath TOML scene)"
                } else {
                    "RGB grids are not supported"
                };
                if !self.lenient {
                    return Err(p.error(tline, format!("medium \"{kind}\": {why}")));
                }
                // check_pbrt: the medium is dropped (shapes that name it bound vacuum).
                self.warn(format!("{}: medium \"{kind}\": {why}; the medium is dropped", p.at_line(tline)));
                None
            }
            other => {
                return Err(p.error(
                    tline,
                    format!("unknown medium type \"{other}\" (homogeneous, uniformgrid, cloud, nanovdb, rgbgrid)"),
                ));
            }
        };
        p.finish(self.warnings());
        let index = medium.map(|m| {
            let media = &mut self.builder.scene_mut().media;
            media.push(m);
            (media.len() - 1) as u32
        });
        self.media.insert(name, index);
        Ok(())
    }

    /// The packed medium interface of a shape declared now (`None`: the shape declares none).
    pub(super) fn shape_media(&self) -> Option<u32> {
        if self.g.inside == self.g.outside {
            return None;
        }
        let id = |n: &String| if n.is_empty() { None } else { self.media.get(n).copied().flatten() };
        Some(interface::pack(id(&self.g.inside), id(&self.g.outside)))
    }
}

/// pbrt-v4's equal-area octahedral image (square; row 0 at the top) resampled into warpath's
/// latitude-longitude map (2n × n for an n × n image), through the light's transform `ctm`.
fn equal_area_to_latlong(image: &crate::Texture, ctm: Mat4) -> (u32, u32, Vec<Vec3>) {
    let n = image.width.max(2);
    let (w, h) = (2 * n, n);
    let to_light = glam::Mat3::from_mat4(ctm).inverse();
    let side = image.width as f32;
    let fetch = |x: i64, y: i64| {
        let s = image.width as i64;
        image.pixels[(y.clamp(0, s - 1) * s + x.clamp(0, s - 1)) as usize]
    };
    let mut pixels = Vec::with_capacity((w * h) as usize);
    for r in 0..h {
        for c in 0..w {
            // warpath's texel (c, r): u = (c + ½)/w, v = r/(h − 1); direction as EnvMap's.
            let (u, v) = ((c as f32 + 0.5) / w as f32, r as f32 / (h - 1) as f32);
            let (sin_phi, cos_phi) = (2.0 * PI * u).sin_cos();
            let (sin_theta, cos_theta) = (PI * v).sin_cos();
            let world = Vec3::new(sin_theta * sin_phi, cos_theta, -sin_theta * cos_phi);
            let d = (to_light * world).normalize_or(Vec3::Z);
            let (s, t) = sphere_to_equal_area(d);
            let (x, y) = (s * side - 0.5, t * side - 0.5);
            let (x0, y0) = (x.floor(), y.floor());
            let (fx, fy) = (x - x0, y - y0);
            let (xi, yi) = (x0 as i64, y0 as i64);
            let top = fetch(xi, yi).lerp(fetch(xi + 1, yi), fx);
            let bottom = fetch(xi, yi + 1).lerp(fetch(xi + 1, yi + 1), fx);
            pixels.push(top.lerp(bottom, fy));
        }
    }
    (w, h, pixels)
}

/// Clarberg's equal-area map of the unit sphere onto [0, 1]² (the octahedral layout pbrt-v4
/// stores environment maps in; +z at the centre).
pub(super) fn sphere_to_equal_area(d: Vec3) -> (f32, f32) {
    let (x, y, z) = (d.x.abs(), d.y.abs(), d.z.abs());
    let r = (1.0 - z).max(0.0).sqrt();
    let a = x.max(y);
    let b = if a == 0.0 { 0.0 } else { x.min(y) / a };
    let mut phi = b.atan() * 2.0 / PI;
    if x < y {
        phi = 1.0 - phi;
    }
    let mut v = phi * r;
    let mut u = r - v;
    if d.z < 0.0 {
        std::mem::swap(&mut u, &mut v);
        u = 1.0 - u;
        v = 1.0 - v;
    }
    let u = u.copysign(d.x);
    let v = v.copysign(d.y);
    (0.5 * (u + 1.0), 0.5 * (v + 1.0))
}
