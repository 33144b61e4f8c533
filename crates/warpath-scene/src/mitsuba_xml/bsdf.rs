//! Mitsuba BSDFs to warpath materials: `diffuse`, `conductor`/`roughconductor`, `dielectric`/
//! `roughdielectric`, `thindielectric`, `plastic`/`roughplastic`, `principled`, `twosided`, `null`,
//! `normalmap` (the nested BSDF with a normal texture), `bumpmap` (with a height texture), `mask`
//! (the nested BSDF with an opacity, `warpath_core::opacity`), `blendbsdf` (where the blend is
//! one material, else its heavier component with a warning), and the grey fallback for the rest
//! (with a warning).

use super::*;
use warpath_core::bsdf::rough_plastic;
use warpath_core::material::MaterialKind;

/// Mitsuba's luminance of linear sRGB (`mitsuba::luminance`).
fn luminance(c: Vec3) -> f32 {
    if c.x == c.y && c.y == c.z { c.x } else { c.x * 0.212671 + c.y * 0.715160 + c.z * 0.072169 }
}

/// The blend (1 − w) a + w b as one material, where a and b are the same BSDF except for
/// colors that it is linear in, or affine in (Schlick's F0: F0 + (1 − F0)(1 − cos θ)⁵; an
/// affine map keeps a blend whose weights sum to 1): then the blend's BSDF is that BSDF with
/// the colors blended, for every pair of directions. `None` for any other pair.
fn linear_blend(a: &Material, b: &Material, w: f32) -> Option<Material> {
    let linear = match a.kind() {
        MaterialKind::Diffuse
        | MaterialKind::Blinn
        | MaterialKind::Glass
        | MaterialKind::Mirror
        | MaterialKind::RoughConductor
        | MaterialKind::RoughDielectric
        | MaterialKind::ThinDielectric
        | MaterialKind::Black => true,
        // ρ / (1 − R) (linear in ρ) and the coat's lobe tinted by the specular reflectance;
        // `nonlinear`'s ρ / (1 − ρ R) is not.
        MaterialKind::Plastic => a.flags & flags::NONLINEAR == 0,
        MaterialKind::CarPaint | MaterialKind::Principled | MaterialKind::Null => false,
    };
    let without_colors = |m: &Material| Material { base_color: Vec3::ZERO, specular: Vec3::ZERO, ..*m };
    (linear && without_colors(a) == without_colors(b)).then(|| Material {
        base_color: a.base_color * (1.0 - w) + b.base_color * w,
        specular: a.specular * (1.0 - w) + b.specular * w,
        ..*a
    })
}

impl Loader {
    /// A `<bsdf>` element as a material.
    pub(super) fn bsdf(&mut self, src: &Src, node: Node) -> Result<Bsdf, SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let plugin = props.plugin.clone();
        let name = self.attr(src, node, "id")?.unwrap_or_else(|| kind.clone());
        let material = match kind.as_str() {
            "diffuse" => {
                let m = match self.tex(src, &mut props, "reflectance")? {
                    None => Material::diffuse(Vec3::splat(FALLBACK_REFLECTANCE)),
                    Some(Tex::Color(c)) => Material::diffuse(check_reflectance(src, node, "reflectance", c)?),
                    Some(Tex::Bitmap(i)) => Material { base_color_texture: i, ..Material::diffuse(Vec3::ONE) },
                };
                m.with_one_sided()
            }
            "twosided" => {
                let inner: Vec<Node> = props.objects.iter().copied().filter(|n| is_bsdf_node(*n)).collect();
                props.objects.retain(|n| !is_bsdf_node(*n));
                let Some(&first) = inner.first() else {
                    return Err(src.error(node, "a 'twosided' BSDF needs a nested <bsdf> (or <ref>)"));
                };
                if inner.len() > 1 {
                    self.warn(format!(
                        "{}: 'twosided' with a different back-face BSDF is not supported: both faces use the first",
                        src.at(inner[1])
                    ));
                }
                let mut m = self.bsdf_or_ref(src, first)?.material;
                if m.normal_texture >= 0 || m.bump_texture >= 0 {
                    let map = if m.normal_texture >= 0 { "normalmap" } else { "bumpmap" };
                    self.warn(format!(
                        "{}: 'twosided' around '{map}': the back face shows the back of the front face's bumps \
                         (Mitsuba mirrors them there; put the 'twosided' inside the '{map}' for the same image)",
                        src.at(node)
                    ));
                }
                m.flags &= !flags::ONE_SIDED;
                m
            }
            "normalmap" => self.normal_map(src, node, &mut props)?,
            "bumpmap" => self.bump_map(src, node, &mut props)?,
            "mask" => self.mask(src, node, &mut props)?,
            "blendbsdf" => self.blend(src, node, &mut props)?,
            "conductor" | "roughconductor" => {
                // The exact Fresnel of eta + ik, times specular_reflectance, as Mitsuba's.
                let (eta, k) = self.conductor_eta_k(src, &mut props, node)?;
                let (reflectance, texture) = match self.tex(src, &mut props, "specular_reflectance")? {
                    None => (Vec3::ONE, -1),
                    Some(Tex::Color(c)) => (check_reflectance(src, node, "specular_reflectance", c)?, -1),
                    Some(Tex::Bitmap(i)) => (Vec3::ONE, i),
                };
                let m = if kind == "conductor" {
                    Material::conductor(eta, k, reflectance)
                } else {
                    let (roughness, roughness_texture, beckmann) = self.roughness(src, &mut props, node)?;
                    let m = Material::rough_conductor_eta_k(eta, k, reflectance, roughness);
                    let m = alpha_texture(Material { roughness_texture, ..m });
                    if beckmann { m.with_beckmann() } else { m }
                };
                Material { base_color_texture: texture, ..m }.with_one_sided()
            }
            "dielectric" | "roughdielectric" | "thindielectric" => {
                let int_ior = self.ior(src, &mut props, "int_ior", 1.5046)?;
                let ext_ior = self.ior(src, &mut props, "ext_ior", 1.000277)?;
                let ior = int_ior / ext_ior;
                let transmittance = self.color(src, &mut props, "specular_transmittance")?.unwrap_or(Vec3::ONE);
                let transmittance = check_reflectance(src, node, "specular_transmittance", transmittance)?;
                if let Some(r) = self.color(src, &mut props, "specular_reflectance")?
                    && r != Vec3::ONE
                {
                    self.warn(format!(
                        "{}: {plugin}: specular_reflectance {r} is not supported (warpath's dielectrics reflect by \
                         Fresnel alone)",
                        src.at(node)
                    ));
                }
                let m = if kind == "dielectric" {
                    Material::glass(ior)
                } else if kind == "thindielectric" {
                    Material::thin_dielectric(ior)
                } else {
                    let (roughness, texture, beckmann) = self.roughness(src, &mut props, node)?;
                    let m = alpha_texture(Material {
                        roughness_texture: texture,
                        ..Material::rough_dielectric(ior, roughness)
                    });
                    if beckmann { m.with_beckmann() } else { m }
                };
                Material { specular: transmittance, ..m }
            }
            "plastic" | "roughplastic" => {
                let int_ior = self.ior(src, &mut props, "int_ior", 1.49)?;
                let ext_ior = self.ior(src, &mut props, "ext_ior", 1.000277)?;
                let ior = int_ior / ext_ior;
                if ior == 1.0 {
                    return Err(src.error(node, format!("{plugin}: int_ior and ext_ior must differ")));
                }
                let specular = self.color(src, &mut props, "specular_reflectance")?.unwrap_or(Vec3::ONE);
                let specular = check_reflectance(src, node, "specular_reflectance", specular)?;
                let nonlinear = self.boolean(src, &mut props, "nonlinear")?.unwrap_or(false);
                // The rough coat's distribution: Beckmann (Mitsuba's default) or GGX.
                let (roughness, roughness_texture, beckmann) =
                    if kind == "roughplastic" { self.roughness(src, &mut props, node)? } else { (0.0, -1, false) };
                if roughness > 0.0 && !rough_plastic::tabulated(ior) {
                    self.warn(format!(
                        "{}: {plugin}: the rough coat's transmittance is tabulated for a relative index from {} to {}; \
                         at {ior} it is approximated by the smooth interface's",
                        src.at(node),
                        rough_plastic::TABLE_ETA_MIN,
                        rough_plastic::TABLE_ETA_MAX
                    ));
                }
                let (diffuse, texture) = match self.tex(src, &mut props, "diffuse_reflectance")? {
                    None => (Vec3::splat(0.5), -1),
                    Some(Tex::Color(c)) => (check_reflectance(src, node, "diffuse_reflectance", c)?, -1),
                    Some(Tex::Bitmap(i)) => (Vec3::ONE, i),
                };
                let m = Material::plastic(diffuse, specular, ior, roughness, nonlinear);
                let m = if beckmann { m.with_beckmann() } else { m };
                Material { base_color_texture: texture, roughness_texture, ..m }.with_one_sided()
            }
            "principled" => self.principled(src, &mut props, node)?,
            "null" => Material::null(),
            other => {
                self.warn(format!(
                    "{}: BSDF '{other}' is not supported by warpath yet: rendered as a gray diffuse of reflectance \
                     {FALLBACK_REFLECTANCE}",
                    src.at(node)
                ));
                for e in props.entries.iter_mut() {
                    e.2 = true;
                }
                props.objects.clear();
                Material::diffuse(Vec3::splat(FALLBACK_REFLECTANCE)).with_one_sided()
            }
        };
        for extra in props.objects.clone() {
            self.warn(format!(
                "{}: {plugin}: <{}> is not supported here and is ignored",
                src.at(extra),
                extra.tag_name().name()
            ));
        }
        props.objects.clear();
        self.finish(src, props);
        Ok(Bsdf { material, name, index: None })
    }

    /// Mitsuba's `blendbsdf`: (1 − w) f₀ + w f₁ of its two nested BSDFs, w its `weight` (a
    /// float, or a texture's luminance, clipped to [0, 1]). warpath's materials hold one BSDF
    /// each, so a blend is imported exactly only where it is one material: a weight of 0 or 1
    /// (the one component), or two components that are the same BSDF except for the colors it
    /// is linear or affine in ([`linear_blend`]: a diffuse's albedo, a conductor's tint or
    /// Schlick F0, a dielectric's transmission tint, a plastic's (not `nonlinear`) diffuse
    /// and specular reflectances), whose blend is that BSDF with the colors blended. Any other
    /// blend is rendered as its heavier component, with a warning naming the line (a textured
    /// weight: its mean, with a warning). The general blend needs two materials at a shading
    /// point: the path tracer could pick one per vertex (component 1 with probability w, then
    /// NEE, BSDF sampling and MIS all with it: unbiased, since each choice's estimate is
    /// unbiased for its component and the choice's expectation is the blend), but ReSTIR
    /// evaluates a reused sample's BSDF at a pixel's shading point with its target function,
    /// which must then be the exact blend (or a choice fixed per pixel and frame).
    fn blend(&mut self, src: &Src, node: Node, props: &mut Props) -> Result<Material, SceneError> {
        let inner: Vec<Node> = props.objects.iter().copied().filter(|n| is_bsdf_node(*n)).collect();
        props.objects.retain(|n| !is_bsdf_node(*n));
        let [first, second] = inner[..] else {
            return Err(src.error(
                node,
                format!("a 'blendbsdf' needs exactly two nested <bsdf>s (or <ref>s), not {}", inner.len()),
            ));
        };
        let weight_node = props.entries.iter().find(|(n, _, _)| n == "weight").map(|e| e.1);
        let weight = match self.texture_parameter(src, props, "weight")? {
            Some((w, None)) => w,
            Some((_, Some(texture))) => {
                let t = &self.builder.scene_mut().textures[texture as usize];
                let mean = t.pixels.iter().map(|p| luminance(*p)).sum::<f32>() / t.pixels.len().max(1) as f32;
                self.warn(format!(
                    "{}: blendbsdf: a textured 'weight' is not supported: its mean {mean} is used everywhere",
                    src.at(weight_node.unwrap_or(node))
                ));
                mean
            }
            None => match self.float(src, props, "weight")? {
                Some(w) => w,
                None => return Err(src.error(node, "a 'blendbsdf' needs a 'weight' (a <float> or a <texture>)")),
            },
        };
        let weight = weight.clamp(0.0, 1.0);
        let a = self.bsdf_or_ref(src, first)?.material;
        let b = self.bsdf_or_ref(src, second)?.material;
        if weight == 0.0 {
            return Ok(a);
        }
        if weight == 1.0 {
            return Ok(b);
        }
        if let Some(m) = linear_blend(&a, &b, weight) {
            return Ok(m);
        }
        let (heavier, which) = if weight > 0.5 { (b, "second") } else { (a, "first") };
        self.warn(format!(
            "{}: blendbsdf: a blend (weight {weight}) of two different BSDFs ({:?} and {:?}) is not supported: \
             rendered as its heavier, {which}, component",
            src.at(node),
            a.kind(),
            b.kind()
        ));
        Ok(heavier)
    }

    /// Mitsuba's `normalmap`: the nested BSDF with the `normalmap` texture (a bitmap) as its
    /// normal texture. Mitsuba's defaults, `flip_invalid_normals` and `use_shadowing_function`,
    /// are what warpath renders (`warpath_core::normal_map`).
    fn normal_map(&mut self, src: &Src, node: Node, props: &mut Props) -> Result<Material, SceneError> {
        let inner: Vec<Node> = props.objects.iter().copied().filter(|n| is_bsdf_node(*n)).collect();
        props.objects.retain(|n| !is_bsdf_node(*n));
        let [nested] = inner[..] else {
            return Err(
                src.error(node, format!("a 'normalmap' BSDF needs exactly one nested <bsdf>, not {}", inner.len()))
            );
        };
        let texture = match self.tex(src, props, "normalmap")? {
            Some(Tex::Bitmap(i)) => i,
            Some(Tex::Color(_)) => {
                return Err(src.error(node, "'normalmap': the 'normalmap' texture must be a bitmap"));
            }
            None => {
                return Err(src.error(node, "a 'normalmap' BSDF needs a <texture name=\"normalmap\" type=\"bitmap\">"));
            }
        };
        for option in ["flip_invalid_normals", "use_shadowing_function"] {
            if self.boolean(src, props, option)? == Some(false) {
                self.warn(format!(
                    "{}: normalmap: {option} = false is not supported: warpath renders Mitsuba's default (true)",
                    src.at(node)
                ));
            }
        }
        let material = self.bsdf_or_ref(src, nested)?.material;
        if material.normal_texture >= 0 {
            self.warn(format!("{}: a 'normalmap' inside a 'normalmap': only the outer one is applied", src.at(node)));
        }
        if material.bump_texture >= 0 {
            return Err(src.error(node, "a 'normalmap' around a 'bumpmap' is not supported (one map per material)"));
        }
        if matches!(material.kind(), MaterialKind::Null | MaterialKind::Black) {
            self.warn(format!("{}: 'normalmap' around a BSDF that does not scatter: ignored", src.at(node)));
            return Ok(material);
        }
        Ok(material.with_normal_texture(texture))
    }

    /// Mitsuba's `bumpmap`: the nested BSDF with its one nested texture (any name, or none) as
    /// the height map (its luminance; warpath_core::bump_map) and `scale` as the multiplier.
    /// `flip_invalid_normals` and `use_shadowing_function` are rendered as their default, true.
    fn bump_map(&mut self, src: &Src, node: Node, props: &mut Props) -> Result<Material, SceneError> {
        // Unnamed children: <texture>s and <ref>s to textures are the height, the rest BSDFs.
        let is_texture = |this: &Self, n: &Node| {
            n.tag_name().name() == "texture"
                || (n.tag_name().name() == "ref"
                    && matches!(node_id(*n).and_then(|id| this.objects.get(id)), Some(Object::Texture(_))))
        };
        let unnamed: Vec<Node> = props.objects.iter().copied().filter(|n| is_texture(self, n)).collect();
        props.objects.retain(|n| !is_texture(self, n));
        let inner: Vec<Node> = props.objects.iter().copied().filter(|n| is_bsdf_node(*n)).collect();
        props.objects.retain(|n| !is_bsdf_node(*n));
        let [nested] = inner[..] else {
            return Err(
                src.error(node, format!("a 'bumpmap' BSDF needs exactly one nested <bsdf>, not {}", inner.len()))
            );
        };
        let scale = self.float(src, props, "scale")?.unwrap_or(1.0);
        for option in ["flip_invalid_normals", "use_shadowing_function"] {
            if self.boolean(src, props, option)? == Some(false) {
                self.warn(format!(
                    "{}: bumpmap: {option} = false is not supported: warpath renders Mitsuba's default (true)",
                    src.at(node)
                ));
            }
        }
        // The height texture: a nested <texture> (named or not) or a <ref> to one.
        let named: Vec<String> = props
            .entries
            .iter()
            .filter(|(_, n, _)| matches!(n.tag_name().name(), "texture" | "ref"))
            .map(|e| e.0.clone())
            .collect();
        let height = match (&named[..], &unnamed[..]) {
            ([name], []) => self.tex(src, props, &name.clone())?,
            ([], [t]) if t.tag_name().name() == "texture" => Some(self.texture(src, *t)?),
            ([], [t]) => match self.reference(src, *t)? {
                Object::Texture(t) => Some(t),
                Object::Bsdf(_) => None,
            },
            _ => {
                return Err(src.error(
                    node,
                    format!("a 'bumpmap' BSDF needs exactly one nested <texture>, not {}", named.len() + unnamed.len()),
                ));
            }
        };
        let material = self.bsdf_or_ref(src, nested)?.material;
        if material.normal_texture >= 0 || material.bump_texture >= 0 {
            return Err(src.error(
                node,
                "a 'bumpmap' around a 'normalmap' or another 'bumpmap' is not supported (one map per material)",
            ));
        }
        if matches!(material.kind(), MaterialKind::Null | MaterialKind::Black) {
            self.warn(format!("{}: 'bumpmap' around a BSDF that does not scatter: ignored", src.at(node)));
            return Ok(material);
        }
        match height {
            // A constant height has no gradient: the nested BSDF as it is.
            Some(Tex::Color(_)) | None => Ok(material),
            Some(Tex::Bitmap(i)) => {
                let height = self.builder.add_channel_texture(i, None, "", |v| v);
                Ok(material.with_bump_texture(height, scale))
            }
        }
    }

    /// Mitsuba's `mask`: the nested BSDF with `opacity` (default 0.5, as Mitsuba's) as its
    /// opacity, a constant or a bitmap. Mitsuba reads a float texture's RGB as its luminance: a
    /// colour bitmap becomes a grey texture of its luminance (warpath reads the first channel),
    /// a colour constant its luminance.
    fn mask(&mut self, src: &Src, node: Node, props: &mut Props) -> Result<Material, SceneError> {
        let inner: Vec<Node> = props.objects.iter().copied().filter(|n| is_bsdf_node(*n)).collect();
        props.objects.retain(|n| !is_bsdf_node(*n));
        let [nested] = inner[..] else {
            return Err(src.error(node, format!("a 'mask' BSDF needs exactly one nested <bsdf>, not {}", inner.len())));
        };
        let (opacity, texture) = match self.tex(src, props, "opacity")? {
            None => (0.5, -1),
            Some(Tex::Color(c)) => (luminance(c), -1),
            Some(Tex::Bitmap(i)) => (1.0, self.grey_texture(i)),
        };
        if !opacity.is_finite() {
            return Err(src.error(node, format!("mask: opacity {opacity} is not a number")));
        }
        let material = self.bsdf_or_ref(src, nested)?.material;
        if material.is_null() {
            // Light passes a null BSDF whatever the mask.
            return Ok(material);
        }
        // A mask inside a mask: the opacities multiply (Mitsuba's nested null transmission).
        let opacity = opacity * material.opacity;
        let texture = match (texture, material.opacity_texture) {
            (t, -1) => t,
            (-1, t) => t,
            (outer, _) => {
                self.warn(format!(
                    "{}: a 'mask' with an opacity texture inside another: only the outer texture is applied",
                    src.at(node)
                ));
                outer
            }
        };
        Ok(material.with_opacity(opacity, texture))
    }

    /// Texture `index` as an opacity map: itself when grey (R = G = B everywhere), else a new
    /// grey texture of its luminance (Mitsuba's `eval_1` of an RGB bitmap), made once.
    fn grey_texture(&mut self, index: i32) -> i32 {
        if let Some(&grey) = self.grey_textures.get(&index) {
            return grey;
        }
        let t = &self.builder.scene_mut().textures[index as usize];
        let grey = if t.pixels.iter().all(|p| p.x == p.y && p.y == p.z) {
            index
        } else {
            let texture = crate::Texture {
                name: format!("{} (luminance)", t.name),
                width: t.width,
                height: t.height,
                pixels: t.pixels.iter().map(|&p| Vec3::splat(luminance(p))).collect(),
            };
            self.builder.add_texture(texture)
        };
        self.grey_textures.insert(index, grey);
        grey
    }

    /// Mitsuba's `principled`: every parameter but `anisotropic` (rendered isotropic, with a
    /// warning); textures for `base_color`, `roughness` and `metallic`.
    fn principled(&mut self, src: &Src, props: &mut Props, node: Node) -> Result<Material, SceneError> {
        let (base_color, texture) = match self.tex(src, props, "base_color")? {
            None => (Vec3::splat(0.5), -1),
            Some(Tex::Color(c)) => (check_reflectance(src, node, "base_color", c)?, -1),
            Some(Tex::Bitmap(i)) => (Vec3::ONE, i),
        };
        // Roughness and metallic may be textures (their luminance).
        let mut textured = |this: &mut Self, name: &str| -> Result<Option<(f32, i32)>, SceneError> {
            Ok(match this.texture_parameter(src, props, name)? {
                None => None,
                Some((_, Some(i))) => Some((1.0, this.builder.add_channel_texture(i, None, "", |v| v))),
                Some((v, None)) => Some((v, -1)),
            })
        };
        let roughness_tex = textured(self, "roughness")?;
        let metallic_tex = textured(self, "metallic")?;
        let mut weight = |this: &mut Self, name: &str, default: f32| -> Result<f32, SceneError> {
            let v = this.float(src, props, name)?.unwrap_or(default);
            if !(0.0..=1.0).contains(&v) {
                return Err(src.error(node, format!("principled: {name} = {v} must be in [0, 1]")));
            }
            Ok(v)
        };
        let roughness = match roughness_tex {
            Some((v, _)) => v,
            None => weight(self, "roughness", 0.5)?,
        };
        let mut m = Material::principled(base_color, roughness, 1.5);
        m.base_color_texture = texture;
        m.roughness_texture = roughness_tex.map_or(-1, |t| t.1);
        m.metallic = match metallic_tex {
            Some((v, _)) => v,
            None => weight(self, "metallic", 0.0)?,
        };
        m.metallic_texture = metallic_tex.map_or(-1, |t| t.1);
        m.spec_tint = weight(self, "spec_tint", 0.0)?;
        m.sheen = weight(self, "sheen", 0.0)?;
        m.sheen_tint = weight(self, "sheen_tint", 0.0)?;
        m.clearcoat = weight(self, "clearcoat", 0.0)?;
        m.clearcoat_gloss = weight(self, "clearcoat_gloss", 0.0)?;
        m.spec_trans = weight(self, "spec_trans", 0.0)?;
        m.flatness = weight(self, "flatness", 0.0)?;
        let anisotropic = weight(self, "anisotropic", 0.0)?;
        if anisotropic > 0.0 {
            self.warn(format!(
                "{}: principled: anisotropic {anisotropic} is rendered isotropic (α = roughness²)",
                src.at(node)
            ));
        }
        let eta = self.float(src, props, "eta")?;
        let specular = self.float(src, props, "specular")?;
        m.ior = match (eta, specular) {
            (Some(_), Some(_)) => {
                return Err(src.error(node, "principled: give either 'eta' or 'specular', not both"));
            }
            (Some(eta), None) => {
                if !(eta > 0.0) {
                    return Err(src.error(node, format!("principled: eta = {eta} must be positive")));
                }
                // As Mitsuba: a transmitting surface needs an interface.
                if m.spec_trans > 0.0 && eta == 1.0 { 1.001 } else { eta }
            }
            (None, specular) => {
                let s = specular.unwrap_or(0.5);
                if !(0.0..12.5).contains(&s) {
                    return Err(src.error(node, format!("principled: specular = {s} must be in [0, 12.5)")));
                }
                let s = if m.spec_trans > 0.0 && s == 0.0 { 1e-3 } else { s };
                // Mitsuba's map from the specular reflectance 0.08·s at normal incidence to η.
                2.0 / (1.0 - (0.08 * s).sqrt()) - 1.0
            }
        };
        for rate in ["main_specular_sampling_rate", "clearcoat_sampling_rate", "diffuse_reflectance_sampling_rate"] {
            if let Some(v) = self.float(src, props, rate)?
                && v != 1.0
            {
                self.warn(format!(
                    "{}: principled: {rate} {v} is ignored (it changes only how Mitsuba picks lobes, not the image)",
                    src.at(node)
                ));
            }
        }
        Ok(m.with_one_sided())
    }

    pub(super) fn bsdf_or_ref(&mut self, src: &Src, node: Node) -> Result<Bsdf, SceneError> {
        if node.tag_name().name() == "ref" {
            match self.reference(src, node)? {
                Object::Bsdf(b) => Ok(b),
                Object::Texture(_) => Err(src.error(node, "this <ref> names a texture, expected a BSDF")),
            }
        } else {
            self.bsdf(src, node)
        }
    }

    /// A rough BSDF's roughness (warpath's α = roughness²) from Mitsuba's `alpha`, the
    /// roughness texture (or -1) when `alpha` is a texture: its luminance, α, read with
    /// [`flags::ROUGHNESS_TEXTURE_ALPHA`] (the callers set it), the scalar then 1; and whether
    /// the distribution is Beckmann (Mitsuba's default) rather than GGX.
    pub(super) fn roughness(
        &mut self,
        src: &Src,
        props: &mut Props,
        node: Node,
    ) -> Result<(f32, i32, bool), SceneError> {
        let beckmann = match self.string(src, props, "distribution")? {
            None => true,
            Some((d, line)) => match d.to_lowercase().as_str() {
                "beckmann" => true,
                "ggx" => false,
                _ => {
                    return Err(SceneError::Parse {
                        path: src.path.to_path_buf(),
                        line,
                        message: format!("{}: distribution '{d}' must be 'beckmann' or 'ggx'", props.plugin),
                    });
                }
            },
        };
        if props.plugin.ends_with("'roughplastic'")
            && let Some(at) = props
                .entries
                .iter()
                .find(|(n, e, _)| n == "alpha" && matches!(e.tag_name().name(), "texture" | "ref"))
                .map(|e| e.1)
        {
            return Err(
                src.error(at, "roughplastic: 'alpha' must be a <float> (Mitsuba's roughplastic takes no texture)")
            );
        }
        if let Some(texture) = self.texture_parameter(src, props, "alpha")? {
            if let Some(i) = texture.1 {
                self.take(props, "sample_visible");
                return Ok((1.0, self.builder.add_channel_texture(i, None, "", |a: f32| a), beckmann));
            }
            let alpha = texture.0;
            if !(0.0..=1.0).contains(&alpha) {
                return Err(src.error(node, format!("alpha = {alpha} must be in [0, 1]")));
            }
            self.take(props, "sample_visible");
            return Ok((alpha.sqrt(), -1, beckmann));
        }
        let alpha = match self.float(src, props, "alpha")? {
            Some(a) => a,
            None => match (self.float(src, props, "alpha_u")?, self.float(src, props, "alpha_v")?) {
                (Some(u), Some(v)) => {
                    if u != v {
                        self.warn(format!(
                            "{}: {}: anisotropic roughness (alpha_u {u}, alpha_v {v}) is rendered isotropic with \
                             alpha = {}",
                            src.at(node),
                            props.plugin,
                            (u * v).sqrt()
                        ));
                    }
                    (u * v).sqrt()
                }
                (None, None) => 0.1,
                _ => return Err(src.error(node, "give both alpha_u and alpha_v, or alpha")),
            },
        };
        if !(0.0..=1.0).contains(&alpha) {
            return Err(src.error(node, format!("alpha = {alpha} must be in [0, 1]")));
        }
        self.take(props, "sample_visible");
        Ok((alpha.sqrt(), -1, beckmann))
    }

    /// A float parameter given as a `<texture>` (or a `<ref>` to one): `None` when `name` is
    /// absent or a plain `<float>`; else a constant (its red channel) or a bitmap texture's index.
    pub(super) fn texture_parameter(
        &mut self,
        src: &Src,
        props: &mut Props,
        name: &str,
    ) -> Result<Option<(f32, Option<i32>)>, SceneError> {
        let Some(node) = props.entries.iter().find(|(n, _, _)| n == name).map(|e| e.1) else { return Ok(None) };
        if !matches!(node.tag_name().name(), "texture" | "ref") {
            return Ok(None);
        }
        Ok(match self.tex(src, props, name)? {
            None => None,
            Some(Tex::Color(c)) => Some((c.x, None)),
            Some(Tex::Bitmap(i)) => Some((1.0, Some(i))),
        })
    }

    /// A conductor's complex index (eta, k) per RGB channel, as Mitsuba's `conductor` reads it:
    /// `eta` (default 0) and `k` (default 1) when `eta` is given or `material` is `none` (the
    /// default: eta 0, k 1, a perfect mirror); else the named material's RGB values in Mitsuba
    /// 3.9's `scalar_rgb` ([`crate::conductors`]).
    pub(super) fn conductor_eta_k(
        &mut self,
        src: &Src,
        props: &mut Props,
        node: Node,
    ) -> Result<(Vec3, Vec3), SceneError> {
        let eta = self.color(src, props, "eta")?;
        let material = self.string(src, props, "material")?.filter(|(name, _)| name != "none");
        let Some((name, line)) = material else {
            let k = self.color(src, props, "k")?;
            return Ok((eta.unwrap_or(Vec3::ZERO), k.unwrap_or(Vec3::ONE)));
        };
        if eta.is_some() || props.entries.iter().any(|(n, _, _)| n == "k") {
            return Err(src.error(node, format!("give either 'material' ({name}) or 'eta'/'k', not both")));
        }
        let Some((eta, k)) = crate::conductors::named(&name) else {
            let names: Vec<&str> = crate::conductors::CONDUCTOR_ETA_K.iter().map(|(n, _, _)| *n).collect();
            return Err(SceneError::Parse {
                path: src.path.to_path_buf(),
                line,
                message: format!(
                    "conductor material '{name}' is not one Mitsuba 3 knows (known: none, {}); or give eta and k",
                    names.join(", ")
                ),
            });
        };
        Ok((eta, k))
    }

    pub(super) fn ior(&mut self, src: &Src, props: &mut Props, name: &str, default: f32) -> Result<f32, SceneError> {
        let Some(node) = props.entries.iter().find(|(n, _, _)| n == name).map(|e| e.1) else { return Ok(default) };
        let ior = if node.tag_name().name() == "string" {
            let (value, _) = self.string(src, props, name)?.unwrap_or_default();
            match IOR_TABLE.iter().find(|(n, _)| *n == value) {
                Some(&(_, v)) => v,
                None => {
                    let names: Vec<&str> = IOR_TABLE.iter().map(|(n, _)| *n).collect();
                    return Err(src.error(
                        node,
                        format!(
                            "unknown index of refraction '{value}' (known: {}); or give a <float>",
                            names.join(", ")
                        ),
                    ));
                }
            }
        } else {
            self.float(src, props, name)?.unwrap_or(default)
        };
        if !(ior > 0.0) {
            return Err(src.error(node, format!("{name} = {ior} must be positive")));
        }
        Ok(ior)
    }

    pub(super) fn material_index(&mut self, bsdf: &mut Bsdf) -> u32 {
        match bsdf.index {
            Some(i) => i,
            None => {
                let i = self.builder.add_material(&bsdf.name, bsdf.material);
                bsdf.index = Some(i);
                i
            }
        }
    }
}

/// Mitsuba's named indices of refraction.
const IOR_TABLE: &[(&str, f32)] = &[
    ("vacuum", 1.0),
    ("helium", 1.000036),
    ("hydrogen", 1.000132),
    ("air", 1.000277),
    ("carbon dioxide", 1.00045),
    ("water", 1.333),
    ("acetone", 1.36),
    ("ethanol", 1.361),
    ("carbon tetrachloride", 1.461),
    ("glycerol", 1.4729),
    ("benzene", 1.501),
    ("silicone oil", 1.52045),
    ("bromine", 1.661),
    ("water ice", 1.31),
    ("fused quartz", 1.458),
    ("pyrex", 1.47),
    ("acrylic glass", 1.49),
    ("polypropylene", 1.49),
    ("bk7", 1.5046),
    ("sodium chloride", 1.544),
    ("amber", 1.55),
    ("pet", 1.575),
    ("diamond", 2.419),
];

/// `m` with [`flags::ROUGHNESS_TEXTURE_ALPHA`] when it has a roughness texture (Mitsuba's
/// `alpha` texture holds α).
fn alpha_texture(m: Material) -> Material {
    if m.roughness_texture >= 0 { Material { flags: m.flags | flags::ROUGHNESS_TEXTURE_ALPHA, ..m } } else { m }
}
