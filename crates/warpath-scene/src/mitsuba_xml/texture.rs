//! Mitsuba textures: `bitmap` (an image file) and `checkerboard`, baked into an image with
//! Mitsuba's convention (the shared baking of [`crate::Texture::bake`], as pbrt's
//! checkerboard). Other texture types are warnings and a gray.

use super::*;
use crate::Texture;
use crate::scene::BAKED_TEXTURE_MAX_SIDE;

impl Loader {
    pub(super) fn texture(&mut self, src: &Src, node: Node) -> Result<Tex, SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let tex = match kind.as_str() {
            "bitmap" => {
                let Some((file, _)) = self.string(src, &mut props, "filename")? else {
                    return Err(src.error(node, "a 'bitmap' texture needs a <string name=\"filename\">"));
                };
                let path = self.resolve(src, &file);
                if !path.is_file() {
                    return Err(src.error(node, format!("texture '{}' not found", path.display())));
                }
                // `raw`: the stored values, not sRGB-decoded (normal maps, data).
                let raw = self.boolean(src, &mut props, "raw")?.unwrap_or(false);
                let index = match self.textures.get(&(path.clone(), raw)) {
                    Some(&i) => i,
                    None => {
                        let (texture, warning) =
                            if raw { load_raw_texture(&path)? } else { load_base_color_texture(&path)? };
                        if let Some(w) = warning {
                            self.warn(w);
                        }
                        let i = self.builder.add_texture(texture);
                        self.textures.insert((path, raw), i);
                        i
                    }
                };
                // Filtering and wrapping: warpath's textures are bilinear and repeat.
                for known in ["filter_type", "wrap_mode"] {
                    if let Some((value, _)) = self.string(src, &mut props, known)?
                        && !matches!(value.as_str(), "bilinear" | "repeat")
                    {
                        self.warn(format!(
                            "{}: bitmap '{file}': {known} = '{value}' is not supported (warpath's textures are bilinear \
                             and repeat)",
                            src.at(node)
                        ));
                    }
                }
                Tex::Bitmap(index)
            }
            "checkerboard" => {
                let a = self.color(src, &mut props, "color0")?.unwrap_or(Vec3::splat(0.4));
                let b = self.color(src, &mut props, "color1")?.unwrap_or(Vec3::splat(0.2));
                let to_uv = match self.take(&mut props, "to_uv") {
                    Some(t) => self.transform(src, t)?,
                    None => Mat4::IDENTITY,
                };
                let name = match self.attr(src, node, "id")? {
                    Some(id) => id,
                    None => format!("checkerboard@{}", src.line(node)),
                };
                let (texture, exact) = mitsuba_checkerboard(&name, a, b, to_uv).map_err(|m| src.error(node, m))?;
                if !exact {
                    self.warn(format!(
                        "{}: checkerboard '{name}': to_uv does not repeat the pattern with each unit of uv (its scale is \
                         not a whole number): the baked texture is exact for uv in [0, 1]² and repeats beyond",
                        src.at(node)
                    ));
                }
                Tex::Bitmap(self.builder.add_texture(texture))
            }
            other => {
                self.warn(format!(
                    "{}: texture type '{other}' is not supported (warpath reads 'bitmap'): a gray of {FALLBACK_REFLECTANCE} \
                     is used",
                    src.at(node)
                ));
                for e in props.entries.iter_mut() {
                    e.2 = true;
                }
                Tex::Color(Vec3::splat(FALLBACK_REFLECTANCE))
            }
        };
        self.finish(src, props);
        Ok(tex)
    }
}

/// Mitsuba's `checkerboard` (`color0`, `color1`, `to_uv`) baked into an image in warpath's uv.
/// Mitsuba evaluates at uv' = to_uv · (u, v) — its v, 1 − warpath's — and gives `color0`
/// where frac(u') and frac(v') fall on the same side of ½ (both ≤ ½ or both above), `color1`
/// elsewhere: cells of ½ × ½ in uv', starting with `color0` at the origin. The texture spans
/// one unit of warpath's uv: 512 pixels a side for coarse patterns, 16 pixels a cell for
/// finer ones (fewer for the finest, up to 2048 a side). Returns whether the pattern repeats with every unit of uv (to_uv's linear part has
/// whole entries), so that the repeating image is exact everywhere.
pub fn mitsuba_checkerboard(name: &str, color0: Vec3, color1: Vec3, to_uv: Mat4) -> Result<(Texture, bool), String> {
    let m = to_uv.transpose().to_cols_array_2d(); // rows
    let (m00, m01, m03, m10, m11, m13) = (m[0][0], m[0][1], m[0][3], m[1][0], m[1][1], m[1][3]);
    if ![m00, m01, m03, m10, m11, m13].iter().all(|v| v.is_finite()) {
        return Err("to_uv is not finite".into());
    }
    // Cells crossed along warpath's u and v across one unit of uv.
    let cells = |a: f32, b: f32| (2.0 * (a.abs() + b.abs())).ceil().clamp(1.0, BAKED_TEXTURE_MAX_SIDE as f32) as u32;
    let (nu, nv) = (cells(m00, m10), cells(m01, m11));
    // At least 512 pixels a side for coarse patterns (bilinear filtering blurs each cell edge
    // over one pixel), at least 16 a cell for fine ones, at most 2048 a side.
    let n = nu.max(nv);
    let cell = (512 / n).max((BAKED_TEXTURE_MAX_SIDE / n).min(16)).max(1);
    let texture = Texture::bake(name, nu * cell, nv * cell, |uv| {
        let (u, v) = (uv.x, 1.0 - uv.y);
        let (up, vp) = (m00 * u + m01 * v + m03, m10 * u + m11 * v + m13);
        let parity = (2.0 * up).floor() as i64 + (2.0 * vp).floor() as i64;
        if parity.rem_euclid(2) == 0 { color0 } else { color1 }
    })?;
    let whole = [m00, m01, m10, m11].iter().all(|v| v.fract() == 0.0);
    Ok((texture, whole))
}
