//! Mitsuba media: `homogeneous` and `heterogeneous` (with `gridvolume` and `constvolume`
//! volumes), their phase functions (`isotropic`, `hg`), mapped onto warpath's media
//! (`warpath_volume::Medium`, the TOML `[[medium]]` model). A medium is declared at the top
//! level with an `id` (then `<ref name="interior" id="..."/>`) or inline in a shape
//! (`<medium name="interior" ...>`) or a sensor. What warpath's model cannot express (an
//! RGB extinction grid, an albedo grid placed apart from the extinction grid, other phase
//! functions or volumes) is an error naming the element and its line.

use super::*;
use std::sync::Arc;
use warpath_volume::majorant::DEFAULT_VOXELS_PER_CELL;
use warpath_volume::vol::parse_vol;
use warpath_volume::{Medium, MediumAlbedo, VolumeGrid};

/// A medium parameter: a constant or a grid on the unit cube placed by `to_world`.
enum Volume {
    Constant(Vec3),
    Grid { grid: Arc<VolumeGrid>, to_world: Mat4, file: String },
}

impl Loader {
    /// A `<medium>` or a `<ref>` to one declared before: its index among the scene's media.
    /// `owner` names an inline medium without an `id` (`SHAPE/interior`, `sensor`).
    pub(super) fn medium_or_ref(&mut self, src: &Src, node: Node, owner: &str) -> Result<u32, SceneError> {
        if node.tag_name().name() == "medium" {
            return self.medium(src, node, Some(owner));
        }
        let id = self.required(src, node, "id")?;
        self.media_ids.get(&id).copied().ok_or_else(|| {
            let mut ids: Vec<&str> = self.media_ids.keys().map(|s| s.as_str()).collect();
            ids.sort();
            let known =
                if ids.is_empty() { "none is declared".to_string() } else { format!("declared: {}", ids.join(", ")) };
            src.error(node, format!("<ref id=\"{id}\"> names no medium declared before it ({known})"))
        })
    }

    /// A `<medium>`, added to the scene; its index among the scene's media. Its name is its
    /// `id`, else `owner`, else `TYPE@LINE`.
    pub(super) fn medium(&mut self, src: &Src, node: Node, owner: Option<&str>) -> Result<u32, SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let name = match (self.attr(src, node, "id")?, owner) {
            (Some(id), _) => id,
            (None, Some(owner)) => owner.to_string(),
            (None, None) => format!("{kind}@{}", src.line(node)),
        };
        let what = format!("medium '{name}' ({kind})");
        let scale = self.float(src, &mut props, "scale")?.unwrap_or(1.0);
        if !(scale >= 0.0) {
            return Err(src.error(node, format!("{what}: scale = {scale} must not be negative")));
        }
        // warpath always samples emitters from inside media (Mitsuba's default).
        self.take(&mut props, "sample_emitters");
        self.take(&mut props, "has_spectral_extinction");
        let mut g = 0.0;
        let mut sigma_t: Option<Volume> = None;
        let mut albedo: Option<Volume> = None;
        for child in props.objects.clone() {
            match (child.tag_name().name(), child.attribute("name")) {
                ("phase", _) => g = self.phase(src, child)?,
                ("volume", Some(slot @ ("sigma_t" | "albedo" | "density"))) => {
                    if slot == "density" {
                        self.warn(format!(
                            "{}: {what}: 'density' is Mitsuba 0.6's name; Mitsuba 3 calls it 'sigma_t'",
                            src.at(child)
                        ));
                    }
                    let v = self.volume(src, child)?;
                    if slot == "albedo" { albedo = Some(v) } else { sigma_t = Some(v) }
                }
                (tag, _) => {
                    return Err(src.error(
                        child,
                        format!("{what}: <{tag}> is not supported here (warpath reads <phase>, and <volume> for sigma_t and albedo)"),
                    ));
                }
            }
        }
        for slot in ["sigma_t", "albedo", "density"] {
            if self.take_peek(&props, slot).is_none() {
                continue;
            }
            let node = self.take(&mut props, slot).unwrap();
            if slot == "density" {
                self.warn(format!(
                    "{}: {what}: 'density' is Mitsuba 0.6's name; Mitsuba 3 calls it 'sigma_t'",
                    src.at(node)
                ));
            }
            let c = self.color_node(src, node, slot)?;
            if slot == "albedo" { albedo = Some(Volume::Constant(c)) } else { sigma_t = Some(Volume::Constant(c)) }
        }
        let sigma_t = sigma_t.unwrap_or(Volume::Constant(Vec3::ONE));
        let albedo = albedo.unwrap_or(Volume::Constant(Vec3::splat(0.75)));
        let err = |m: String| src.error(node, format!("{what}: {m}"));
        let medium = match (kind.as_str(), sigma_t, albedo) {
            ("homogeneous" | "heterogeneous", Volume::Constant(s), Volume::Constant(a)) => {
                Medium::homogeneous(&name, s * scale, a, g).map_err(err)?
            }
            ("homogeneous", _, _) => {
                return Err(err(
                    "a homogeneous medium takes constant sigma_t and albedo; use 'heterogeneous' for grids".into(),
                ));
            }
            ("heterogeneous", Volume::Grid { grid, to_world, file }, albedo) => {
                if grid.channels != 1 {
                    return Err(err(format!(
                        "'{file}' holds {} channels: warpath's extinction grids are scalar (an RGB sigma_t grid cannot be \
                         expressed; give a 1-channel grid and the color in 'albedo')",
                        grid.channels
                    )));
                }
                let albedo = match albedo {
                    Volume::Constant(a) => MediumAlbedo::Constant(a),
                    Volume::Grid { grid: a, to_world: placed, file: afile } => {
                        if (placed - to_world).abs_diff_eq(Mat4::ZERO, 1e-6) {
                            MediumAlbedo::Grid(a)
                        } else {
                            return Err(err(format!(
                                "the albedo grid '{afile}' is placed apart from the sigma_t grid '{file}': warpath's \
                                 grids share one placement (give both volumes the same to_world)"
                            )));
                        }
                    }
                };
                Medium::grid(&name, grid, scale, albedo, g, to_world, DEFAULT_VOXELS_PER_CELL).map_err(err)?
            }
            ("heterogeneous", Volume::Constant(_), Volume::Grid { .. }) => {
                return Err(err(
                    "an albedo grid needs a sigma_t grid (warpath places the albedo on the sigma_t grid)".into()
                ));
            }
            (other, _, _) => {
                return Err(src.error(
                    node,
                    format!("medium type '{other}' is not supported (warpath reads 'homogeneous' and 'heterogeneous')"),
                ));
            }
        };
        props.objects.clear();
        self.finish(src, props);
        let media = &mut self.builder.scene_mut().media;
        media.push(medium);
        Ok((media.len() - 1) as u32)
    }

    fn take_peek<'a, 'i>(&self, props: &Props<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
        props.entries.iter().find(|(n, _, _)| n == name).map(|e| e.1)
    }

    /// A `<phase>`: its Henyey–Greenstein g (0 for `isotropic`).
    fn phase(&mut self, src: &Src, node: Node) -> Result<f32, SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let g = match kind.as_str() {
            "isotropic" => 0.0,
            // Mitsuba's default g is 0.8.
            "hg" => self.float(src, &mut props, "g")?.unwrap_or(0.8),
            other => {
                return Err(src.error(
                    node,
                    format!(
                        "phase function '{other}' is not supported: warpath's media scatter by Henyey–Greenstein \
                         ('hg', or 'isotropic')"
                    ),
                ));
            }
        };
        if !(g > -1.0 && g < 1.0) {
            return Err(src.error(node, format!("phase 'hg': g = {g} must lie strictly between -1 and 1")));
        }
        self.finish(src, props);
        Ok(g)
    }

    /// A `<volume>`: `gridvolume` (a `.vol` file) or `constvolume`.
    fn volume(&mut self, src: &Src, node: Node) -> Result<Volume, SceneError> {
        let kind = self.attr(src, node, "type")?.unwrap_or_default();
        let mut props = self.props(src, node)?;
        let volume = match kind.as_str() {
            "constvolume" => {
                let value = match self.take(&mut props, "value") {
                    Some(n) => self.color_node(src, n, "value")?,
                    None => Vec3::ONE,
                };
                Volume::Constant(value)
            }
            "gridvolume" => {
                let Some((file, line)) = self.string(src, &mut props, "filename")? else {
                    return Err(src.error(node, "a 'gridvolume' needs <string name=\"filename\">"));
                };
                let err = |message: String| SceneError::Parse { path: src.path.to_path_buf(), line, message };
                let path = self.resolve(src, &file);
                if !path.is_file() {
                    return Err(err(format!("volume file '{}' not found", path.display())));
                }
                let bytes = std::fs::read(&path).map_err(|e| SceneError::Io { path: path.clone(), source: e })?;
                let vol = parse_vol(&bytes, &path).map_err(|e| err(e.to_string()))?;
                let mut to_world = match self.take(&mut props, "to_world") {
                    Some(t) => self.transform(src, t)?,
                    None => Mat4::IDENTITY,
                };
                if self.boolean(src, &mut props, "use_grid_bbox")?.unwrap_or(false) {
                    let (lo, hi) = (Vec3::from_array(vol.bbox_min), Vec3::from_array(vol.bbox_max));
                    if !(lo.is_finite() && hi.is_finite() && (hi - lo).min_element() > 0.0) {
                        return Err(err(format!("use_grid_bbox: the file's bounding box {lo} .. {hi} is empty")));
                    }
                    to_world = to_world * Mat4::from_translation(lo) * Mat4::from_scale(hi - lo);
                }
                for (key, fine) in [("filter_type", "trilinear"), ("wrap_mode", "clamp")] {
                    if let Some((value, vline)) = self.string(src, &mut props, key)?
                        && value != fine
                    {
                        self.warn(format!(
                            "{}:{vline}: gridvolume '{file}': {key} = '{value}' is not supported (warpath's grids are \
                             trilinear and clamp to the edge)",
                            src.path.display()
                        ));
                    }
                }
                // In RGB rendering, `raw` changes nothing; `accel` is Mitsuba's own.
                self.take(&mut props, "raw");
                self.take(&mut props, "accel");
                Volume::Grid { grid: Arc::new(vol.grid), to_world, file }
            }
            other => {
                return Err(src.error(
                    node,
                    format!("volume type '{other}' is not supported (warpath reads 'gridvolume' and 'constvolume')"),
                ));
            }
        };
        self.finish(src, props);
        Ok(volume)
    }
}
