//! pbrt-v4 materials and textures as warpath materials, each as close as warpath's
//! material kinds come (docs/scene-format.md, "pbrt-v4", lists the mapping per parameter):
//! `diffuse` → diffuse; `conductor` → mirror or GGX rough conductor with the exact Fresnel of
//! its eta/k (named metal spectra included), or Schlick's of its `reflectance`; `dielectric` → glass or rough dielectric;
//! `thindielectric` → thin dielectric; `coateddiffuse` → plastic (Mitsuba's `plastic`/`roughplastic`:
//! a smooth or GGX coat over the diffuse base); `coatedconductor` → car paint whose flakes are the conductor;
//! `interface` → the null boundary. Textures: `imagemap`, `checkerboard` (baked to an
//! image), `scale`, `constant`; warpath takes a texture only for a diffuse reflectance
//! (elsewhere a texture's mean is used, with a warning). A material's `normalmap` image is its
//! normal texture (read raw).

use super::params::Values;
use super::*;
use crate::Texture;
use crate::image_io::{load_base_color_texture, load_normal_texture};
use warpath_core::material::{Material, MaterialKind};

/// Largest side of a baked checkerboard texture.
use crate::scene::BAKED_TEXTURE_MAX_SIDE as CHECKER_MAX_SIDE;

impl Loader {
    /// A color parameter: `rgb`, `spectrum` (named, or wavelength/value pairs: their mean),
    /// `blackbody` (normalized to luminance 1, as pbrt-v4 does) or `float`.
    pub(super) fn color(&mut self, p: &mut Params, name: &str) -> Result<Option<Vec3>, SceneError> {
        let Some(ty) = p.type_of(name).map(str::to_string) else { return Ok(None) };
        let q = p.take(name).unwrap();
        let bad = |m: String| p.error(q.line, format!("'{name}': {m}"));
        let c = match (ty.as_str(), &q.values) {
            ("rgb", Values::Num(v)) if v.len() == 3 => Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32),
            ("rgb", _) => return Err(bad("an rgb value has 3 numbers".into())),
            ("float", Values::Num(v)) if v.len() == 1 => Vec3::splat(v[0] as f32),
            ("blackbody", Values::Num(v)) if v.len() == 1 => {
                if !(v[0] > 0.0) {
                    return Err(bad(format!("blackbody temperature {} must be positive", v[0])));
                }
                blackbody_rgb(v[0] as f32)
            }
            ("spectrum", Values::Str(s)) => match named_spectrum(&s[0]) {
                Some(c) => c,
                None if s[0].ends_with(".spd") => {
                    self.warn(format!(
                        "{}: '{name}': spectrum file '{}' is not read: a gray of 1 is used",
                        p.at_line(q.line),
                        s[0]
                    ));
                    Vec3::ONE
                }
                None => return Err(bad(format!("unknown named spectrum \"{}\"", s[0]))),
            },
            ("spectrum", Values::Num(v)) if v.len() >= 2 && v.len() % 2 == 0 => {
                let values: Vec<f64> = v.chunks_exact(2).map(|c| c[1]).collect();
                let mean = (values.iter().sum::<f64>() / values.len() as f64) as f32;
                self.warn(format!(
                    "{}: {}: '{name}': a sampled spectrum is rendered as the gray {mean} (warpath renders RGB)",
                    p.at_line(q.line),
                    p.what
                ));
                Vec3::splat(mean)
            }
            ("texture", Values::Str(s)) => match self.spectrum_textures.get(&s[0]) {
                Some(t) => {
                    let mean = t.mean();
                    if let Tex::Image(..) = t {
                        self.warn(format!(
                            "{}: {}: warpath takes no texture for '{name}': the texture's mean {mean} is used",
                            p.at_line(q.line),
                            p.what
                        ));
                    }
                    mean
                }
                None => match self.float_textures.get(&s[0]) {
                    Some(&f) => Vec3::splat(f),
                    None => {
                        let tex = s[0].clone();
                        return self.unknown_texture(p, q.line, name, &tex).map(|()| None);
                    }
                },
            },
            (t, _) => return Err(bad(format!("type '{t}' is not a color (rgb, spectrum, blackbody or float)"))),
        };
        if !c.is_finite() {
            return Err(p.error(q.line, format!("'{name}' is not finite")));
        }
        Ok(Some(c))
    }

    /// A texture name that no `Texture` defined: an error, as in pbrt-v4; under
    /// [`check_pbrt`](super::check_pbrt), whose copy of a scene may lack the included file
    /// that defines the texture, a warning (the parameter is ignored).
    fn unknown_texture(&mut self, p: &Params, line: usize, name: &str, tex: &str) -> Result<(), SceneError> {
        if self.lenient {
            self.warn(format!(
                "{}: {}: '{name}': no texture named \"{tex}\" (the file that defines it may be absent): the parameter is ignored",
                p.at_line(line),
                p.what
            ));
            return Ok(());
        }
        Err(p.error(line, format!("'{name}': no texture named \"{tex}\"")))
    }

    /// A color or texture parameter (for a diffuse reflectance).
    fn color_or_texture(&mut self, p: &mut Params, name: &str) -> Result<Option<Tex>, SceneError> {
        if p.type_of(name) == Some("texture") {
            let (tex, line) = p.string(name)?.unwrap();
            return match self.spectrum_textures.get(&tex) {
                Some(&t) => Ok(Some(t)),
                None => match self.float_textures.get(&tex) {
                    Some(&f) => Ok(Some(Tex::Color(Vec3::splat(f)))),
                    None => self.unknown_texture(p, line, name, &tex).map(|()| None),
                },
            };
        }
        Ok(self.color(p, name)?.map(Tex::Color))
    }

    /// A float parameter that may name a float texture (whose constant or mean is used).
    fn float_param(&mut self, p: &mut Params, name: &str) -> Result<Option<f32>, SceneError> {
        if p.type_of(name) == Some("texture") {
            let (tex, line) = p.string(name)?.unwrap();
            return match self.float_textures.get(&tex) {
                Some(&f) => Ok(Some(f)),
                None => self.unknown_texture(p, line, name, &tex).map(|()| None),
            };
        }
        p.float(name)
    }

    /// GGX roughness in warpath's terms (α = roughness²) from pbrt's `roughness` or
    /// `uroughness`/`vroughness` and `remaproughness` (true: α = √roughness).
    fn roughness(&mut self, p: &mut Params, prefix: &str, default: f32) -> Result<f32, SceneError> {
        Ok(self.roughness_textured(p, prefix, default)?.0)
    }

    /// [`Self::roughness`], and a roughness texture (or -1) when `roughness` (or both
    /// `uroughness` and `vroughness`, the same texture) names an image float texture: its
    /// channel mean mapped texel by texel as the scalar would be (bilinear filtering then
    /// blends warpath's roughness rather than pbrt's), the scalar 1.
    fn roughness_textured(&mut self, p: &mut Params, prefix: &str, default: f32) -> Result<(f32, i32), SceneError> {
        let image = |this: &Self, p: &Params, name: &str| -> Option<i32> {
            if p.type_of(name) != Some("texture") {
                return None;
            }
            let q = p.peek_string(name)?;
            this.float_images.get(&q).copied()
        };
        let textured = match image(self, p, &format!("{prefix}roughness")) {
            Some(i) => Some(i),
            None => {
                match (image(self, p, &format!("{prefix}uroughness")), image(self, p, &format!("{prefix}vroughness"))) {
                    (Some(u), Some(v)) if u == v => Some(u),
                    _ => None,
                }
            }
        };
        if let Some(i) = textured {
            for name in ["roughness", "uroughness", "vroughness"] {
                self.float_param(p, &format!("{prefix}{name}"))?;
            }
            let remap = p.boolean("remaproughness")?.unwrap_or(true);
            let texture = if remap {
                self.builder.add_channel_texture(i, Some(3), "pbrt remapped roughness", |r: f32| {
                    r.max(0.0).sqrt().min(1.0).sqrt()
                })
            } else {
                self.builder.add_channel_texture(i, Some(3), "pbrt roughness", |r: f32| r.clamp(0.0, 1.0).sqrt())
            };
            return Ok((1.0, texture));
        }
        let r = self.float_param(p, &format!("{prefix}roughness"))?;
        let u = self.float_param(p, &format!("{prefix}uroughness"))?;
        let v = self.float_param(p, &format!("{prefix}vroughness"))?;
        let r = match (u, v) {
            (Some(u), Some(v)) => {
                if u != v {
                    self.warn(format!(
                        "{}: {}: anisotropic roughness ({u}, {v}) is rendered isotropic ({})",
                        p.at(),
                        p.what,
                        (u * v).sqrt()
                    ));
                }
                (u * v).sqrt()
            }
            (Some(x), None) | (None, Some(x)) => r.unwrap_or(x),
            (None, None) => r.unwrap_or(default),
        };
        if !(r >= 0.0) {
            return Err(p.error(p.line, format!("roughness {r} must not be negative")));
        }
        let remap = p.boolean("remaproughness")?.unwrap_or(true);
        let alpha = if remap { r.sqrt() } else { r };
        Ok((alpha.min(1.0).sqrt(), -1))
    }

    /// A conductor's Schlick F0 from `reflectance`, or `eta`/`k` (pbrt's default: copper).
    fn conductor_f0(&mut self, p: &mut Params, prefix: &str) -> Result<Vec3, SceneError> {
        match self.conductor_fresnel(p, prefix)? {
            ConductorFresnel::Reflectance(r) => Ok(r),
            ConductorFresnel::EtaK(eta, k) => Ok(fresnel_f0(eta, k)),
        }
    }

    /// A conductor's Fresnel parameters: `reflectance` (a color, for Schlick's Fresnel), else
    /// `eta`/`k` (pbrt's default: copper, `metal-Cu-eta`/`metal-Cu-k`).
    fn conductor_fresnel(&mut self, p: &mut Params, prefix: &str) -> Result<ConductorFresnel, SceneError> {
        if let Some(r) = self.color(p, &format!("{prefix}reflectance"))? {
            return Ok(ConductorFresnel::Reflectance(r.clamp(Vec3::ZERO, Vec3::ONE)));
        }
        let eta = self.color(p, &format!("{prefix}eta"))?.unwrap_or(named_spectrum("metal-Cu-eta").unwrap());
        let k = self.color(p, &format!("{prefix}k"))?.unwrap_or(named_spectrum("metal-Cu-k").unwrap());
        Ok(ConductorFresnel::EtaK(eta.max(Vec3::ZERO), k.max(Vec3::ZERO)))
    }

    /// A dielectric's index: a float, or a named glass spectrum (its value at 550 nm).
    fn eta(&mut self, p: &mut Params, name: &str) -> Result<f32, SceneError> {
        let eta = match p.type_of(name) {
            Some("spectrum") => {
                let c = self.color(p, name)?.unwrap();
                self.warn(format!(
                    "{}: {}: a spectral '{name}' is rendered without dispersion (eta {})",
                    p.at(),
                    p.what,
                    c.y
                ));
                c.y
            }
            _ => self.float_param(p, name)?.unwrap_or(1.5),
        };
        if !(eta > 0.0) {
            return Err(p.error(p.line, format!("'{name}' = {eta} must be positive")));
        }
        Ok(eta)
    }

    /// Adds a material as [`Loader::material`] does, unless it names a texture no `Texture`
    /// has defined yet (or mixes a material that waits): pbrt-v4 creates materials after
    /// every texture of the scene, so a later `Texture` may define it. Such a material is a
    /// placeholder (pbrt's default diffuse, or `placeholder` when given) until
    /// [`Loader::resolve_deferred_materials`] builds it at the end of parsing. Returns the
    /// index and whether it is deferred (then the index is the placeholder).
    pub(super) fn add_material(
        &mut self,
        kind: &str,
        name: &str,
        p: Params,
        placeholder: Option<u32>,
    ) -> Result<(u32, bool), SceneError> {
        let undefined_texture =
            p.texture_refs().any(|t| !self.spectrum_textures.contains_key(t) && !self.float_textures.contains_key(t));
        let mixes_waiting = kind == "mix"
            && p.peek_strings("materials").iter().any(|m| {
                self.named_materials.get(*m).is_some_and(|i| self.deferred_materials.iter().any(|d| d.0 == *i))
            });
        if !undefined_texture && !mixes_waiting {
            return Ok((self.material(kind, name, p)?, false));
        }
        let index = placeholder.unwrap_or_else(|| {
            self.builder.add_material(name, Material::diffuse(Vec3::splat(shapes::DEFAULT_REFLECTANCE)))
        });
        self.deferred_materials.push((index, kind.to_string(), name.to_string(), p));
        Ok((index, true))
    }

    /// Builds the materials [`Loader::add_material`] deferred, in the order they were
    /// declared, into their placeholders. A texture still undefined is then reported.
    pub(super) fn resolve_deferred_materials(&mut self) -> Result<(), SceneError> {
        for (placeholder, kind, name, p) in std::mem::take(&mut self.deferred_materials) {
            let at = p.at();
            let index = self.material(&kind, &name, p)?;
            self.fill_placeholder(placeholder, index, &at);
        }
        Ok(())
    }

    /// Adds the material a `Material` or `MakeNamedMaterial` describes; returns its index.
    pub(super) fn material(&mut self, kind: &str, name: &str, mut p: Params) -> Result<u32, SceneError> {
        let at = p.at();
        let bump = self.displacement(&mut p)?;
        let normal_map = self.normal_map(&mut p)?;
        if normal_map.is_some() && bump.is_some() {
            return Err(p.error(p.line, "a material with both 'normalmap' and 'displacement' is not supported"));
        }
        let material = match kind {
            "diffuse" => match self.color_or_texture(&mut p, "reflectance")? {
                None => Material::diffuse(Vec3::splat(shapes::DEFAULT_REFLECTANCE)),
                Some(Tex::Color(c)) => Material::diffuse(c.clamp(Vec3::ZERO, Vec3::ONE)),
                Some(Tex::Image(i, _)) => Material { base_color_texture: i, ..Material::diffuse(Vec3::ONE) },
            },
            "conductor" => {
                let fresnel = self.conductor_fresnel(&mut p, "")?;
                let (roughness, texture) = self.roughness_textured(&mut p, "", 0.0)?;
                let smooth = texture < 0 && roughness * roughness < 1e-3;
                let m = match (fresnel, smooth) {
                    (ConductorFresnel::Reflectance(f0), true) => Material::mirror(f0),
                    (ConductorFresnel::Reflectance(f0), false) => Material::rough_conductor(f0, roughness),
                    (ConductorFresnel::EtaK(eta, k), true) => Material::conductor(eta, k, Vec3::ONE),
                    (ConductorFresnel::EtaK(eta, k), false) => {
                        Material::rough_conductor_eta_k(eta, k, Vec3::ONE, roughness)
                    }
                };
                Material { roughness_texture: texture, ..m }
            }
            "dielectric" | "thindielectric" => {
                let eta = self.eta(&mut p, "eta")?;
                if kind == "thindielectric" {
                    Material::thin_dielectric(eta)
                } else {
                    let (roughness, texture) = self.roughness_textured(&mut p, "", 0.0)?;
                    if texture < 0 && roughness * roughness < 1e-3 {
                        Material::glass(eta)
                    } else {
                        Material { roughness_texture: texture, ..Material::rough_dielectric(eta, roughness) }
                    }
                }
            }
            "coateddiffuse" => {
                let reflectance = self.color_or_texture(&mut p, "reflectance")?;
                let eta = self.eta(&mut p, "eta")?;
                let (roughness, texture) = self.roughness_textured(&mut p, "", 0.0)?;
                self.ignore_layer_parameters(&mut p);
                match reflectance {
                    // An index-matched coat (eta 1) neither reflects nor refracts: pbrt's
                    // layered BSDF passes light straight to the base, a diffuse reflector.
                    Some(Tex::Image(i, _)) if eta == 1.0 => {
                        Material { base_color_texture: i, ..Material::diffuse(Vec3::ONE) }
                    }
                    r if eta == 1.0 => {
                        Material::diffuse(r.map_or(Vec3::splat(0.5), |t| t.mean()).clamp(Vec3::ZERO, Vec3::ONE))
                    }
                    // Mitsuba's plastic: a coat of index eta over the diffuse base, with the
                    // base's light reflected back and forth under the coat (no layer medium).
                    r => Material {
                        roughness_texture: texture,
                        ..Material::plastic(
                            r.map_or(Vec3::splat(0.5), |t| t.mean()).clamp(Vec3::ZERO, Vec3::ONE),
                            Vec3::ONE,
                            eta,
                            roughness,
                            false,
                        )
                    },
                }
            }
            "coatedconductor" => {
                let eta = self.eta(&mut p, "interface.eta")?;
                let coat_roughness = self.roughness(&mut p, "interface.", 0.0)?;
                // pbrt-v4 takes the conductor's color from `reflectance` (unprefixed) or
                // from `conductor.eta` and `conductor.k`.
                let f0 = if p.has("reflectance") {
                    self.conductor_f0(&mut p, "")?
                } else {
                    self.conductor_f0(&mut p, "conductor.")?
                };
                let roughness = self.roughness(&mut p, "conductor.", 0.0)?;
                self.ignore_layer_parameters(&mut p);
                if coat_roughness > 0.0 {
                    self.warn(format!(
                        "{at}: Material \"coatedconductor\": the coat is rendered smooth (interface roughness ignored)"
                    ));
                }
                Material::car_paint(Vec3::ZERO, f0, blinn_exponent(roughness), eta)
            }
            "interface" | "" | "none" => Material::null(),
            "mix" => {
                let amount = self.float_param(&mut p, "amount")?.unwrap_or(0.5);
                let names = match p.take("materials") {
                    Some(q) => match q.values {
                        Values::Str(s) if s.len() == 2 => s,
                        _ => return Err(p.error(q.line, "'materials' names two materials")),
                    },
                    None => return Err(p.error(p.line, "a 'mix' material needs \"string materials\"")),
                };
                let pick = &names[if amount > 0.5 { 1 } else { 0 }];
                let Some(&i) = self.named_materials.get(pick) else {
                    return Err(p.error(p.line, format!("'mix': no material named \"{pick}\"")));
                };
                self.warn(format!(
                    "{at}: Material \"mix\" is rendered as \"{pick}\" alone (the one of larger weight; warpath does not \
                     mix materials)"
                ));
                self.builder.scene_mut().materials[i as usize]
            }
            "diffusetransmission" => {
                let r = self.color(&mut p, "reflectance")?.unwrap_or(Vec3::splat(0.25));
                p.ignore_all();
                self.warn(format!(
                    "{at}: Material \"diffusetransmission\" is rendered as a diffuse reflector of {r} (no transmission)"
                ));
                Material::diffuse(r.clamp(Vec3::ZERO, Vec3::ONE))
            }
            other => {
                p.ignore_all();
                let what = if MATERIALS.contains(&other) {
                    "is not supported by warpath"
                } else {
                    "is not a pbrt-v4 material"
                };
                self.warn(format!(
                    "{at}: Material \"{other}\" {what}: rendered as a gray diffuse of {}",
                    shapes::DEFAULT_REFLECTANCE
                ));
                Material::diffuse(Vec3::splat(shapes::DEFAULT_REFLECTANCE))
            }
        };
        p.finish(self.warnings());
        let material = match (normal_map, bump) {
            _ if matches!(material.kind(), MaterialKind::Null | MaterialKind::Black) => material,
            (Some(texture), _) => material.with_normal_texture(texture),
            (None, Some(texture)) => material.with_bump_texture(texture, 1.0),
            (None, None) => material,
        };
        Ok(self.builder.add_material(name, material))
    }

    /// A material's `"texture displacement"`: an image float texture becomes the bump map
    /// (its channel mean, scale 1), with a warning. pbrt-v4 bumps by finite differences of the
    /// displacement and adds its displaced normal's d·∂n/∂u terms; warpath takes the exact
    /// gradient of the bilinear lookup and Mitsuba's `bumpmap` (warpath_core::bump_map), the
    /// same to first order. A constant displacement changes no normal and is ignored.
    fn displacement(&mut self, p: &mut Params) -> Result<Option<i32>, SceneError> {
        if p.type_of("displacement").is_none() {
            return Ok(None);
        }
        if p.type_of("displacement") != Some("texture") {
            let q = p.take("displacement").unwrap();
            return Err(p.error(q.line, "'displacement' must name a float texture (\"texture displacement\")"));
        }
        let (tex, line) = p.string("displacement")?.unwrap();
        if let Some(&i) = self.float_images.get(&tex) {
            self.warn(format!(
                "{}: {}: displacement \"{tex}\" is rendered as Mitsuba's bumpmap (the exact gradient of the \
                 bilinear lookup, invalid normals flipped, a shadowing term; no displaced-normal term)",
                p.at_line(line),
                p.what
            ));
            return Ok(Some(self.builder.add_channel_texture(i, Some(3), "", |v| v)));
        }
        if !self.float_textures.contains_key(&tex) {
            return Err(p.error(line, format!("'displacement': no float texture named \"{tex}\"")));
        }
        Ok(None)
    }

    /// A material's `"string normalmap"`: the image, read with linear encoding as pbrt-v4
    /// does, as a texture index. pbrt-v4's frame is warpath's (dp/du made orthogonal to the
    /// shading normal, t = n × s, the image's rows top first at v = 1); warpath adds Mitsuba's
    /// flip of invalid normals and shadow-terminator term, which pbrt does not have (a warning).
    fn normal_map(&mut self, p: &mut Params) -> Result<Option<i32>, SceneError> {
        let Some((file, line)) = p.string("normalmap")? else { return Ok(None) };
        if file.is_empty() {
            return Ok(None);
        }
        let path = self.resolve(&p.path, line, &file);
        if !path.is_file() {
            self.missing(p, line, "normal map", &path)?;
            return Ok(None);
        }
        self.warn(format!(
            "{}: {}: normalmap '{file}' is rendered with Mitsuba's normal mapping (invalid normals flipped, a \
             shadow-terminator term), which pbrt-v4 does not apply: grazing light differs",
            p.at_line(line),
            p.what
        ));
        if let Some(&index) = self.normal_maps.get(&path) {
            return Ok(Some(index));
        }
        let (mut texture, warning) = load_normal_texture(&path)?;
        if let Some(w) = warning {
            self.warn(w);
        }
        texture.name = file;
        let index = self.builder.add_texture(texture);
        self.normal_maps.insert(path, index);
        Ok(Some(index))
    }

    /// The layered materials' medium between the layers: warned about when given.
    fn ignore_layer_parameters(&mut self, p: &mut Params) {
        for key in ["thickness", "albedo", "g", "maxdepth", "nsamples"] {
            if let Some(q) = p.take(key) {
                self.warn(format!(
                    "{}: {}: '{key}' (pbrt's stochastic layering) has no counterpart in warpath and is ignored",
                    p.at_line(q.line),
                    p.what
                ));
            }
        }
    }

    pub(super) fn texture(&mut self, name: String, class: &str, kind: &str, mut p: Params) -> Result<(), SceneError> {
        let at = p.at();
        let float = match class {
            "float" => true,
            "spectrum" | "color" => false,
            other => return Err(p.error(p.line, format!("texture class '{other}' is not \"float\" or \"spectrum\""))),
        };
        let tex = match kind {
            "constant" => Tex::Color(self.color(&mut p, "value")?.unwrap_or(Vec3::ONE)),
            "imagemap" => {
                let Some((file, fline)) = p.string("filename")? else {
                    return Err(p.error(p.line, "an 'imagemap' texture needs \"string filename\""));
                };
                let path = self.resolve(&p.path, fline, &file);
                if !path.is_file() {
                    self.missing(&p, fline, "texture", &path)?;
                    p.ignore_all();
                    p.finish(self.warnings());
                    let gray = Tex::Color(Vec3::splat(0.5));
                    if float {
                        self.float_textures.insert(name, 0.5);
                    } else {
                        self.spectrum_textures.insert(name, gray);
                    }
                    return Ok(());
                }
                let scale = p.float_or("scale", 1.0)?;
                let invert = p.boolean("invert")?.unwrap_or(false);
                for (key, default) in [("uscale", 1.0), ("vscale", 1.0), ("udelta", 0.0), ("vdelta", 0.0)] {
                    if p.float_or(key, default)? != default {
                        self.warn(format!("{at}: imagemap '{key}' is not supported (warpath maps uv as they are)"));
                    }
                }
                for (key, ok) in [("wrap", "repeat"), ("filter", "bilinear"), ("mapping", "uv")] {
                    if let Some((v, _)) = p.string(key)?
                        && v != ok
                    {
                        self.warn(format!("{at}: imagemap {key} \"{v}\" is read as \"{ok}\" (warpath's textures)"));
                    }
                }
                if let Some((enc, _)) = p.string("encoding")?
                    && enc != "sRGB"
                {
                    self.warn(format!("{at}: imagemap encoding \"{enc}\": 8-bit images are decoded as sRGB"));
                }
                let key = (path.clone(), scale.to_bits() ^ invert as u32);
                let index = match self.images.get(&key) {
                    Some(&i) => i,
                    None => {
                        let (mut texture, warning) = load_base_color_texture(&path)?;
                        if let Some(w) = warning {
                            self.warn(w);
                        }
                        for px in texture.pixels.iter_mut() {
                            let v = if invert { Vec3::ONE - *px } else { *px };
                            *px = (v * scale).clamp(Vec3::ZERO, Vec3::ONE);
                        }
                        texture.name = file.clone();
                        let i = self.builder.add_texture(texture);
                        self.images.insert(key, i);
                        i
                    }
                };
                Tex::Image(index, self.texture_mean(index))
            }
            "checkerboard" => {
                let a = self.color(&mut p, "tex1")?.unwrap_or(Vec3::ONE);
                let b = self.color(&mut p, "tex2")?.unwrap_or(Vec3::ZERO);
                let us = p.float_or("uscale", 1.0)?;
                let vs = p.float_or("vscale", 1.0)?;
                if let Some((d, _)) = p.int("dimension")?
                    && d != 2
                {
                    self.warn(format!("{at}: a 3D checkerboard is rendered as the 2D one"));
                }
                let cells = |s: f32| s.abs().round().clamp(1.0, CHECKER_MAX_SIDE as f32) as u32;
                let (cu, cv) = (cells(us), cells(vs));
                if cu as f32 != us || cv as f32 != vs {
                    self.warn(format!(
                        "{at}: checkerboard scales ({us}, {vs}) are rounded to whole cells ({cu}, {cv})"
                    ));
                }
                let cell = (CHECKER_MAX_SIDE / cu.max(cv)).clamp(1, 16);
                // pbrt's cell (⌊u·uscale⌋ + ⌊v·vscale⌋) even is tex1, odd tex2.
                let (fu, fv) = (cu as f32, cv as f32);
                let texture = Texture::bake(&name, cu * cell, cv * cell, |uv| {
                    let parity = (uv.x * fu).floor() as i64 + (uv.y * fv).floor() as i64;
                    if parity.rem_euclid(2) == 0 { a } else { b }
                })
                .map_err(|e| p.error(p.line, e))?;
                let index = self.builder.add_texture(texture);
                Tex::Image(index, 0.5 * (a + b))
            }
            "scale" => {
                let t = self.color_or_texture(&mut p, "tex")?.unwrap_or(Tex::Color(Vec3::ONE));
                let s = self.color_or_texture(&mut p, "scale")?.unwrap_or(Tex::Color(Vec3::ONE));
                match (t, s) {
                    (Tex::Color(a), Tex::Color(b)) => Tex::Color(a * b),
                    (Tex::Image(i, _), Tex::Color(c)) | (Tex::Color(c), Tex::Image(i, _)) => {
                        let mut texture = self.builder.scene_mut().textures[i as usize].clone();
                        for px in texture.pixels.iter_mut() {
                            *px = (*px * c).clamp(Vec3::ZERO, Vec3::ONE);
                        }
                        texture.name = name.clone();
                        let index = self.builder.add_texture(texture);
                        Tex::Image(index, self.texture_mean(index))
                    }
                    (Tex::Image(i, _), Tex::Image(j, m)) => {
                        self.warn(format!(
                            "{at}: 'scale' of two image textures: the second's mean {m} scales the first"
                        ));
                        let mut texture = self.builder.scene_mut().textures[i as usize].clone();
                        let _ = j;
                        for px in texture.pixels.iter_mut() {
                            *px = (*px * m).clamp(Vec3::ZERO, Vec3::ONE);
                        }
                        let index = self.builder.add_texture(texture);
                        Tex::Image(index, self.texture_mean(index))
                    }
                }
            }
            other => {
                p.ignore_all();
                self.warn(format!("{at}: texture \"{other}\" is not supported: a constant 0.5 is used"));
                Tex::Color(Vec3::splat(0.5))
            }
        };
        p.finish(self.warnings());
        if float {
            match tex {
                Tex::Image(i, _) => self.float_images.insert(name.clone(), i),
                Tex::Color(_) => self.float_images.remove(&name),
            };
            let mean = tex.mean();
            self.float_textures.insert(name, (mean.x + mean.y + mean.z) / 3.0);
        } else {
            self.spectrum_textures.insert(name, tex);
        }
        Ok(())
    }

    fn texture_mean(&mut self, index: i32) -> Vec3 {
        let t = &self.builder.scene_mut().textures[index as usize];
        t.pixels.iter().copied().sum::<Vec3>() / t.pixels.len().max(1) as f32
    }
}

/// pbrt-v4's materials, for telling an unsupported one from a misspelt one.
const MATERIALS: &[&str] = &[
    "coateddiffuse",
    "coatedconductor",
    "conductor",
    "dielectric",
    "diffuse",
    "diffusetransmission",
    "hair",
    "interface",
    "measured",
    "mix",
    "subsurface",
    "thindielectric",
];

/// The Blinn exponent whose lobe is about as wide as GGX of warpath roughness `r` (α = r²):
/// 2/α² − 2, capped.
fn blinn_exponent(r: f32) -> f32 {
    let alpha = (r * r).max(1e-3);
    (2.0 / (alpha * alpha) - 2.0).clamp(1.0, 1e4)
}

/// Normal-incidence reflectance of a conductor of index `eta` + i`k`.
pub(super) fn fresnel_f0(eta: Vec3, k: Vec3) -> Vec3 {
    warpath_core::bsdf::conductor::conductor_f0(eta, k).clamp(Vec3::ZERO, Vec3::ONE)
}

/// How a pbrt `conductor` gives its Fresnel term.
enum ConductorFresnel {
    /// `reflectance`: Schlick's Fresnel of this normal-incidence color.
    Reflectance(Vec3),
    /// `eta` and `k`: the exact conductor Fresnel.
    EtaK(Vec3, Vec3),
}

/// pbrt's named spectra as RGB: the metals' eta and k (`metal-NAME-eta`, `-k`) Mitsuba 3's
/// RGB values where Mitsuba knows NAME ([`crate::conductors`]: Ag, Al, Au, Cu, MgO, TiO2), else
/// (CuZn) at R ≈ 650 nm, G ≈ 550 nm, B ≈ 450 nm; the glasses' index (equal in all channels:
/// warpath renders no dispersion), and the standard illuminants as white.
pub(super) fn named_spectrum(name: &str) -> Option<Vec3> {
    let v = |r: f32, g: f32, b: f32| Some(Vec3::new(r, g, b));
    if let Some(metal) = name.strip_prefix("metal-")
        && let Some((metal, part)) = metal.rsplit_once('-')
        && let Some((eta, k)) = crate::conductors::named(metal)
    {
        match part {
            "eta" => return Some(eta),
            "k" => return Some(k),
            _ => {}
        }
    }
    match name {
        "metal-CuZn-eta" => v(0.444, 0.527, 1.094),
        "metal-CuZn-k" => v(3.695, 2.765, 1.829),
        "glass-BK7" => v(1.5168, 1.5168, 1.5168),
        "glass-BAF10" => v(1.6700, 1.6700, 1.6700),
        "glass-FK51A" => v(1.4866, 1.4866, 1.4866),
        "glass-LASF9" => v(1.8503, 1.8503, 1.8503),
        "glass-F5" | "glass-SF5" => v(1.6034, 1.6034, 1.6034),
        "glass-F10" | "glass-SF10" => v(1.7283, 1.7283, 1.7283),
        "glass-F11" | "glass-SF11" => v(1.7847, 1.7847, 1.7847),
        n if n.starts_with("stdillum-") || n.starts_with("illum-") => v(1.0, 1.0, 1.0),
        _ => None,
    }
}

/// A blackbody's color at `kelvin` in linear sRGB, scaled to luminance 1 (pbrt-v4 divides a
/// light's blackbody by its luminance): Planck's law integrated against an analytic fit of
/// the CIE 1931 matching functions (Wyman, Sloan and Shirley 2013).
pub(super) fn blackbody_rgb(kelvin: f32) -> Vec3 {
    let g = |x: f64, mu: f64, s1: f64, s2: f64| {
        let t = (x - mu) / if x < mu { s1 } else { s2 };
        (-0.5 * t * t).exp()
    };
    let (mut x, mut y, mut z) = (0.0f64, 0.0f64, 0.0f64);
    let t = kelvin as f64;
    for nm in (360..=830).step_by(5) {
        let l = nm as f64;
        let m = l * 1e-9;
        let planck = 1.0 / (m.powi(5) * ((1.4387769e-2 / (m * t)).exp() - 1.0));
        x += planck
            * (1.056 * g(l, 599.8, 37.9, 31.0) + 0.362 * g(l, 442.0, 16.0, 26.7) - 0.065 * g(l, 501.1, 20.4, 26.2));
        y += planck * (0.821 * g(l, 568.8, 46.9, 40.5) + 0.286 * g(l, 530.9, 16.3, 31.1));
        z += planck * (1.217 * g(l, 437.0, 11.8, 36.0) + 0.681 * g(l, 459.0, 26.0, 13.8));
    }
    if !(y > 0.0) || !y.is_finite() {
        return Vec3::ZERO;
    }
    let (x, z) = (x / y, z / y);
    let rgb = Vec3::new(
        (3.2406 * x - 1.5372 - 0.4986 * z) as f32,
        (-0.9689 * x + 1.8758 + 0.0415 * z) as f32,
        (0.0557 * x - 0.2040 + 1.0570 * z) as f32,
    );
    rgb.max(Vec3::ZERO)
}
