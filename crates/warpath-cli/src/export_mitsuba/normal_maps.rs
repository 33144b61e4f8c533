//! export-mitsuba's normal maps, bump maps, data textures and opacity masks: a normal-mapped
//! material becomes Mitsuba's `normalmap` around the material's BSDF, a bump-mapped one its
//! `bumpmap` (with `scale`), a roughness or metallic texture the BSDF's `alpha`/`roughness`/
//! `metallic` as a texture; each map an EXR that a raw `bitmap` reads (the meshes carry their
//! texture coordinates: see `write_ply`); a masked one Mitsuba's `mask` around that, its opacity
//! a float or a grey EXR (the opacity times the texture's first channel).

use anyhow::Result;
use serde_json::{Value, json};
use std::path::Path;
use warpath_core::bsdf::ggx_alpha;
use warpath_core::material::{Material, MaterialKind, flags};
use warpath_scene::Scene;

/// Writes texture `texture` through `map` (on its red channel, gray) as `name` once; a raw
/// bilinear repeating bitmap reading it.
fn data_bitmap(
    scene: &Scene,
    texture: i32,
    name: String,
    map: impl Fn(f32) -> f32,
    dir: &Path,
    files: &mut Vec<String>,
) -> Result<Value> {
    let t = &scene.textures[texture as usize];
    if !files.contains(&name) {
        let pixels: Vec<glam::Vec3> = t.pixels.iter().map(|c| glam::Vec3::splat(map(c.x))).collect();
        crate::output::write_image(&dir.join(&name), t.width, t.height, &pixels, 0.0, None)?;
        files.push(name.clone());
    }
    Ok(json!({"type": "bitmap", "filename": name, "raw": true, "filter_type": "bilinear", "wrap_mode": "repeat"}))
}

/// Mitsuba's `bumpmap` around `inner` for the material's height texture and scale (the
/// height's red channel written as a linear EXR read raw). Around the `twosided` adapter, as
/// for normal maps.
pub(super) fn bump_map(
    scene: &Scene,
    m: &Material,
    inner: Value,
    dir: &Path,
    files: &mut Vec<String>,
) -> Result<Value> {
    let height = data_bitmap(scene, m.bump_texture, format!("bump-texture-{}.exr", m.bump_texture), |v| v, dir, files)?;
    Ok(json!({"type": "bumpmap", "height": height, "scale": m.bump_scale, "bsdf": inner}))
}

/// The material's roughness and metallic textures set on its exported BSDF `b` (inside a
/// `twosided` adapter if there is one): the rough kinds' `alpha` as the texels' α =
/// max((roughness · t)², 0.001), the principled BSDF's `roughness` and `metallic` as the
/// scalar times the texels (bilinear filtering then blends those rather than the factor).
pub(super) fn data_textures(
    scene: &Scene,
    m: &Material,
    mut b: Value,
    dir: &Path,
    files: &mut Vec<String>,
) -> Result<Value> {
    let target = if b["type"] == "twosided" { &mut b["bsdf"] } else { &mut b };
    if m.roughness_texture >= 0 {
        let (r, t) = (m.roughness, m.roughness_texture);
        if m.kind() == MaterialKind::Principled {
            target["roughness"] =
                data_bitmap(scene, t, format!("roughness-{t}-{}.exr", r.to_bits()), |v| r * v, dir, files)?;
        } else {
            // flags::ROUGHNESS_TEXTURE_ALPHA: roughness r·√t, α = r²·t.
            let alpha = m.flags & flags::ROUGHNESS_TEXTURE_ALPHA != 0;
            let name = format!("alpha-{t}-{}-{}.exr", r.to_bits(), alpha as u8);
            let map = |v: f32| ggx_alpha(if alpha { r * v.max(0.0).sqrt() } else { r * v });
            target["alpha"] = data_bitmap(scene, t, name, map, dir, files)?;
        }
    }
    if m.metallic_texture >= 0 && m.kind() == MaterialKind::Principled {
        let (k, t) = (m.metallic, m.metallic_texture);
        target["metallic"] = data_bitmap(scene, t, format!("metallic-{t}-{}.exr", k.to_bits()), |v| k * v, dir, files)?;
    }
    Ok(b)
}

/// Mitsuba's `normalmap` around `inner` for normal texture `texture` (written once, as a
/// linear EXR read raw). Around the `twosided` adapter: warpath's back face shows the back of
/// the front face's bumps, as Mitsuba's normalmap-around-twosided does.
pub(super) fn normal_map(
    scene: &Scene,
    texture: i32,
    inner: Value,
    dir: &Path,
    files: &mut Vec<String>,
) -> Result<Value> {
    let t = &scene.textures[texture as usize];
    let name = format!("normal-texture-{texture}.exr");
    if !files.contains(&name) {
        crate::output::write_image(&dir.join(&name), t.width, t.height, &t.pixels, 0.0, None)?;
        files.push(name.clone());
    }
    Ok(json!({
        "type": "normalmap",
        "normalmap": {"type": "bitmap", "filename": name, "raw": true, "filter_type": "bilinear", "wrap_mode": "repeat"},
        "bsdf": inner,
    }))
}

/// Mitsuba's `mask` around `inner` for a masked material: a float opacity, or a grey EXR of
/// `opacity` × the texture's first channel (written once per texture and opacity).
pub(super) fn mask(
    scene: &Scene,
    m: &warpath_core::material::Material,
    inner: Value,
    dir: &Path,
    files: &mut Vec<String>,
) -> Result<Value> {
    let opacity = if m.opacity_texture >= 0 {
        let t = &scene.textures[m.opacity_texture as usize];
        let name = format!("opacity-texture-{}-{:08x}.exr", m.opacity_texture, m.opacity.to_bits());
        if !files.contains(&name) {
            let grey: Vec<glam::Vec3> =
                t.pixels.iter().map(|p| glam::Vec3::splat((m.opacity * p.x).clamp(0.0, 1.0))).collect();
            crate::output::write_image(&dir.join(&name), t.width, t.height, &grey, 0.0, None)?;
            files.push(name.clone());
        }
        json!({"type": "bitmap", "filename": name, "raw": true, "filter_type": "bilinear", "wrap_mode": "repeat"})
    } else {
        json!(m.opacity.clamp(0.0, 1.0))
    };
    Ok(json!({"type": "mask", "opacity": opacity, "bsdf": inner}))
}

#[cfg(test)]
mod tests {
    use super::super::export;
    use glam::{Vec2, Vec3};
    use serde_json::Value;

    #[test]
    fn normal_maps_export_as_normalmap_around_the_bsdf_with_the_meshes_uvs() {
        let mut scene = super::super::tests::scene();
        scene.textures.push(warpath_scene::Texture {
            name: "n".into(),
            width: 2,
            height: 1,
            pixels: vec![Vec3::new(0.5, 0.5, 1.0), Vec3::new(0.8, 0.4, 0.9)],
        });
        let floor = scene.material_names.iter().position(|n| n == "floor").unwrap();
        scene.materials[floor].normal_texture = 0;
        let dir = tempfile::tempdir().unwrap();
        let files = export(&scene, dir.path()).unwrap();
        assert!(files.contains(&"normal-texture-0.exr".to_string()), "{files:?}");
        let text = std::fs::read_to_string(dir.path().join("scene.json")).unwrap();
        let dict: Value = serde_json::from_str(&text).unwrap();
        let shapes: Vec<&Value> =
            dict.as_object().unwrap().iter().filter(|(k, _)| k.starts_with("shape-")).map(|(_, v)| v).collect();
        let mapped: Vec<&&Value> = shapes.iter().filter(|s| s["bsdf"]["type"] == "normalmap").collect();
        assert_eq!(mapped.len(), 1, "only the floor is normal-mapped");
        let bsdf = &mapped[0]["bsdf"];
        assert_eq!(bsdf["normalmap"]["raw"], true);
        assert_eq!(bsdf["normalmap"]["filename"], "normal-texture-0.exr");
        // Outside the twosided adapter: warpath's back face is normalmap-around-twosided's.
        assert_eq!(bsdf["bsdf"]["type"], "twosided");
        // The PLY carries Mitsuba's uv (v flipped), vertex for vertex.
        let path = dir.path().join(mapped[0]["filename"].as_str().unwrap());
        let asset = warpath_scene::ply::load_ply(&path).unwrap();
        let mesh = &asset.meshes[0];
        assert_eq!(mesh.uvs.len(), mesh.positions.len());
        for (p, uv) in mesh.positions.iter().zip(&mesh.uvs) {
            let v = scene.positions.iter().position(|q| q == p).unwrap();
            assert_eq!(*uv, Vec2::new(scene.uvs[v].x, 1.0 - scene.uvs[v].y));
        }
    }

    #[test]
    fn bump_maps_export_as_bumpmap_with_their_scale_and_height_exr() {
        let mut scene = super::super::tests::scene();
        scene.textures.push(warpath_scene::Texture {
            name: "h".into(),
            width: 2,
            height: 1,
            pixels: vec![Vec3::splat(0.2), Vec3::splat(0.7)],
        });
        let floor = scene.material_names.iter().position(|n| n == "floor").unwrap();
        scene.materials[floor] = scene.materials[floor].with_bump_texture(0, 0.4);
        let dir = tempfile::tempdir().unwrap();
        let files = export(&scene, dir.path()).unwrap();
        assert!(files.contains(&"bump-texture-0.exr".to_string()), "{files:?}");
        let text = std::fs::read_to_string(dir.path().join("scene.json")).unwrap();
        let dict: Value = serde_json::from_str(&text).unwrap();
        let bumped: Vec<&Value> = dict
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, v)| k.starts_with("shape-") && v["bsdf"]["type"] == "bumpmap")
            .map(|(_, v)| v)
            .collect();
        assert_eq!(bumped.len(), 1, "only the floor is bump-mapped");
        let bsdf = &bumped[0]["bsdf"];
        assert_eq!(bsdf["height"]["raw"], true);
        assert_eq!(bsdf["height"]["filename"], "bump-texture-0.exr");
        assert!((bsdf["scale"].as_f64().unwrap() - 0.4).abs() < 1e-6);
        assert_eq!(bsdf["bsdf"]["type"], "twosided");
    }

    #[test]
    fn masked_materials_export_as_mask_around_the_bsdf() {
        let mut scene = super::super::tests::scene();
        scene.textures.push(warpath_scene::Texture {
            name: "alpha".into(),
            width: 2,
            height: 1,
            pixels: vec![Vec3::new(0.25, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0)],
        });
        let floor = scene.material_names.iter().position(|n| n == "floor").unwrap();
        scene.materials[floor] = scene.materials[floor].with_opacity(0.5, 0);
        let dir = tempfile::tempdir().unwrap();
        let files = export(&scene, dir.path()).unwrap();
        let name = format!("opacity-texture-0-{:08x}.exr", 0.5f32.to_bits());
        assert!(files.contains(&name), "{files:?}");
        let text = std::fs::read_to_string(dir.path().join("scene.json")).unwrap();
        let dict: Value = serde_json::from_str(&text).unwrap();
        let masked: Vec<&Value> = dict
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, v)| k.starts_with("shape-") && v["bsdf"]["type"] == "mask")
            .map(|(_, v)| v)
            .collect();
        assert_eq!(masked.len(), 1, "only the floor is masked");
        assert_eq!(masked[0]["bsdf"]["opacity"]["filename"], Value::from(name.clone()));
        assert_eq!(masked[0]["bsdf"]["bsdf"]["type"], "twosided");
        // The EXR holds opacity × the first channel, grey.
        let image = warpath_scene::image_io::load_image(&dir.path().join(&name)).unwrap();
        assert_eq!(image.pixels, vec![Vec3::splat(0.125), Vec3::splat(0.5)]);
        // A constant opacity is a float.
        scene.materials[floor] = scene.materials[floor].with_opacity(0.3, -1);
        let dir = tempfile::tempdir().unwrap();
        export(&scene, dir.path()).unwrap();
        let dict: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("scene.json")).unwrap()).unwrap();
        let opacities: Vec<f64> = dict
            .as_object()
            .unwrap()
            .values()
            .filter(|v| v["bsdf"]["type"] == "mask")
            .map(|v| v["bsdf"]["opacity"].as_f64().unwrap())
            .collect();
        assert_eq!(opacities, vec![0.3f32 as f64]);
    }
}
