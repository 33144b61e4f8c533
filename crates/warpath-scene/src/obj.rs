//! Wavefront OBJ + MTL through `tobj` (triangulated, single index).
//!
//! tobj reports errors without line numbers, so the file is pre-scanned first: every
//! `v`/`vt`/`vn`/`f` line is checked (numbers parse, vertices are finite, face indices
//! exist), and a malformed line is reported as `file:line`.
//!
//! MTL mapping (also in `docs/scene-format.md`):
//! - `illum 5` → mirror (reflectance `Ks`, or 1);
//! - `illum 7`, or `Ni` with `d < 1` / `Tr > 0` → glass (index `Ni`, default 1.5);
//! - `Ks` > 0 with `Ns` > 0 → Blinn (diffuse `Kd`, specular `Ks`, exponent `Ns`);
//! - otherwise diffuse `Kd` (0.8 gray when absent);
//! - `Ke` → emission; `map_Kd` → base color texture (resolved against the OBJ's folder).
//!
//! A missing `.mtl` file is a warning (in `Scene::warnings`; the meshes get the default
//! material); a malformed `.mtl` or a missing texture is an error naming the file (and
//! the material). MTL values the TOML format would refuse are clamped or dropped with a
//! warning naming the MTL file and the material: `Kd`/`Ks` outside [0, 1], a negative or
//! non-finite `Ke` or `Ns`, a non-positive `Ni`, texture values outside [0, 1].
//!
//! A file with NUL bytes is not OBJ text (an error); lines whose first word is no OBJ
//! statement are skipped and counted in a warning.

use crate::SceneError;
use crate::image_io::load_base_color_texture;
use crate::mesh::{AssetMaterial, DEFAULT_ALBEDO, MeshAsset, TriangleMesh};
use glam::{Vec2, Vec3};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use warpath_core::material::Material;

/// First words of OBJ statements (geometry, grouping, display and free-form); a line with
/// any other first word is skipped with a warning.
const OBJ_KEYWORDS: &[&str] = &[
    "v",
    "vt",
    "vn",
    "vp",
    "f",
    "fo",
    "l",
    "p",
    "o",
    "g",
    "s",
    "mg",
    "usemtl",
    "mtllib",
    "cstype",
    "deg",
    "bmat",
    "step",
    "curv",
    "curv2",
    "surf",
    "parm",
    "trim",
    "hole",
    "scrv",
    "sp",
    "end",
    "con",
    "call",
    "csh",
    "bevel",
    "c_interp",
    "d_interp",
    "lod",
    "maplib",
    "usemap",
    "shadow_obj",
    "trace_obj",
    "ctech",
    "stech",
];

/// Loads an OBJ file and the MTL files it names.
pub fn load_obj(path: &Path) -> Result<MeshAsset, SceneError> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            SceneError::NotFound { path: path.to_path_buf(), hint: "OBJ file not found".into() }
        }
        _ => SceneError::Io { path: path.to_path_buf(), source: e },
    })?;
    check_is_text(&bytes, path)?;
    let text = String::from_utf8_lossy(&bytes);
    parse_obj(&text, path)
}

/// A NUL byte never occurs in OBJ or MTL text: such a file is binary.
fn check_is_text(bytes: &[u8], path: &Path) -> Result<(), SceneError> {
    match bytes.iter().position(|&b| b == 0) {
        Some(offset) => Err(SceneError::Invalid {
            path: path.to_path_buf(),
            message: format!("not a text file (a NUL byte at offset {offset}); OBJ and MTL files are text"),
        }),
        None => Ok(()),
    }
}

/// Parses OBJ text; `path` names the file in errors and locates MTL files and textures.
pub fn parse_obj(text: &str, path: &Path) -> Result<MeshAsset, SceneError> {
    check_is_text(text.as_bytes(), path)?;
    let mut asset = MeshAsset::default();
    let stripped;
    let text = if prescan(text, path, &mut asset.warnings)? {
        stripped = without_vertex_colors(text);
        stripped.as_str()
    } else {
        text
    };
    let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let missing_mtl: RefCell<Vec<PathBuf>> = RefCell::new(Vec::new());
    let broken_mtl: RefCell<Option<SceneError>> = RefCell::new(None);
    // Which MTL file defined each material, for warnings.
    let material_files: RefCell<HashMap<String, PathBuf>> = RefCell::new(HashMap::new());
    let options = tobj::LoadOptions { triangulate: true, single_index: true, ..Default::default() };
    let mut reader = std::io::BufReader::new(text.as_bytes());
    let (models, materials) = tobj::load_obj_buf(&mut reader, &options, |mtl: &Path| {
        let mtl_path = folder.join(mtl);
        if !mtl_path.is_file() {
            missing_mtl.borrow_mut().push(mtl_path);
            return Err(tobj::LoadError::OpenFileFailed);
        }
        let loaded = std::fs::read(&mtl_path)
            .map_err(|source| SceneError::Io { path: mtl_path.clone(), source })
            .and_then(|bytes| {
                check_is_text(&bytes, &mtl_path)?;
                let text = String::from_utf8_lossy(&bytes);
                let text = prescan_mtl(&text, &mtl_path)?;
                tobj::load_mtl_buf(&mut text.as_bytes()).map_err(|e| SceneError::Invalid {
                    path: mtl_path.clone(),
                    message: format!("malformed MTL file: {e}"),
                })
            });
        match loaded {
            Ok(result) => {
                for m in &result.0 {
                    material_files.borrow_mut().insert(m.name.clone(), mtl_path.clone());
                }
                Ok(result)
            }
            Err(e) => {
                broken_mtl.borrow_mut().get_or_insert(e);
                Err(tobj::LoadError::ReadError)
            }
        }
    })
    .map_err(|e| SceneError::Invalid { path: path.to_path_buf(), message: format!("malformed OBJ: {e}") })?;

    if let Some(error) = broken_mtl.into_inner() {
        return Err(error);
    }
    for mtl_path in missing_mtl.into_inner() {
        asset.warnings.push(format!(
            "{}: material library '{}' not found; using the default material",
            path.display(),
            mtl_path.display()
        ));
    }
    let materials = materials.unwrap_or_default();
    let material_files = material_files.into_inner();
    for m in &materials {
        let mtl_path = material_files.get(&m.name).cloned().unwrap_or_else(|| path.to_path_buf());
        asset.materials.push(convert_material(m, &folder, &mtl_path, &mut asset.warnings)?);
    }
    for model in models {
        let mesh = model.mesh;
        let positions: Vec<Vec3> = mesh.positions.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])).collect();
        let normals: Vec<Vec3> = mesh.normals.chunks_exact(3).map(|n| Vec3::new(n[0], n[1], n[2])).collect();
        let uvs: Vec<Vec2> = mesh.texcoords.chunks_exact(2).map(|t| Vec2::new(t[0], t[1])).collect();
        let triangles: Vec<[u32; 3]> = mesh.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
        if triangles.is_empty() {
            continue;
        }
        let name = if model.name.is_empty() { "obj".to_string() } else { model.name };
        let mut dropped = |what: &str, count: usize| {
            let drop = count > 0 && count != positions.len();
            if drop {
                asset.warnings.push(format!(
                    "{}: object '{name}': {what} ignored ({count} for {} vertices: some faces lack them)",
                    path.display(),
                    positions.len()
                ));
            }
            drop
        };
        let normals = if dropped("normals", normals.len()) { Vec::new() } else { normals };
        let uvs = if dropped("texture coordinates", uvs.len()) { Vec::new() } else { uvs };
        let material = mesh.material_id.filter(|&i| i < asset.materials.len());
        if let (Some(i), None) = (mesh.material_id, material) {
            asset.warnings.push(format!(
                "{}: object '{name}': material {i} does not exist ({} loaded); the default is used",
                path.display(),
                asset.materials.len()
            ));
        }
        asset.meshes.push(TriangleMesh { name, positions, normals, uvs, triangles, material });
    }
    Ok(asset)
}

/// Parses MTL text into materials (textures resolved against `mtl_path`'s folder);
/// returns them with the warnings about clamped values.
pub fn parse_mtl(text: &str, mtl_path: &Path) -> Result<(Vec<AssetMaterial>, Vec<String>), SceneError> {
    check_is_text(text.as_bytes(), mtl_path)?;
    let text = prescan_mtl(text, mtl_path)?;
    let mut reader = std::io::BufReader::new(text.as_bytes());
    let (materials, _) = tobj::load_mtl_buf(&mut reader).map_err(|e| SceneError::Invalid {
        path: mtl_path.to_path_buf(),
        message: format!("malformed MTL file: {e}"),
    })?;
    let folder = mtl_path.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut warnings = Vec::new();
    let converted =
        materials.iter().map(|m| convert_material(m, &folder, mtl_path, &mut warnings)).collect::<Result<_, _>>()?;
    Ok((converted, warnings))
}

/// Checks the MTL lines tobj would reject without a line number (or panic on: a color of
/// fewer than three numbers) and reports them as `file:line`. A color given as one number is
/// a gray (r = g = b, as the MTL format says) and is written out in full for tobj.
fn prescan_mtl<'t>(text: &'t str, path: &Path) -> Result<std::borrow::Cow<'t, str>, SceneError> {
    let error = |line: usize, message: String| SceneError::Parse { path: path.to_path_buf(), line, message };
    let mut expanded: Option<String> = None;
    for (index, raw_line) in text.lines().enumerate() {
        let line_number = index + 1;
        let code = raw_line.split('#').next().unwrap_or("");
        let words: Vec<&str> = code.split_whitespace().collect();
        let Some((&keyword, values)) = words.split_first() else { continue };
        let numbers = || values.iter().map(|w| w.parse::<f32>()).collect::<Result<Vec<f32>, _>>();
        let mut rewritten = None;
        match keyword {
            "Ka" | "Kd" | "Ks" | "Ke" => {
                if matches!(values.first(), Some(&"spectral") | Some(&"xyz")) {
                    return Err(error(line_number, format!("'{keyword} {}' colors are not supported", values[0])));
                }
                match numbers() {
                    Ok(v) if v.len() >= 3 => {}
                    Ok(v) if v.len() == 1 => rewritten = Some(format!("{keyword} {0} {0} {0}", v[0])),
                    _ => {
                        return Err(error(
                            line_number,
                            format!("'{keyword}' needs r g b (or one gray value): '{}'", code.trim()),
                        ));
                    }
                }
            }
            "Ns" | "Ni" | "d" | "Tr" | "illum" => {
                let ok = match keyword {
                    "illum" => values.first().is_some_and(|w| w.parse::<u8>().is_ok()),
                    _ => values.first().is_some_and(|w| w.parse::<f32>().is_ok()),
                };
                if !ok {
                    return Err(error(line_number, format!("'{keyword}' needs a number: '{}'", code.trim())));
                }
            }
            "newmtl" if values.is_empty() => {
                return Err(error(line_number, "'newmtl' needs a material name".into()));
            }
            _ => {}
        }
        if let Some(line) = rewritten {
            let out = expanded.get_or_insert_with(|| text.lines().take(index).map(|l| format!("{l}\n")).collect());
            out.push_str(&line);
            out.push('\n');
        } else if let Some(out) = &mut expanded {
            out.push_str(raw_line);
            out.push('\n');
        }
    }
    Ok(expanded.map(std::borrow::Cow::Owned).unwrap_or(std::borrow::Cow::Borrowed(text)))
}

/// A color of an MTL material clamped to [0, 1] (non-finite channels become 0), with a
/// warning when that changed it.
fn clamped_color(value: Vec3, key: &str, warn: &mut impl FnMut(String)) -> Vec3 {
    let finite = Vec3::select(value.is_finite_mask(), value, Vec3::ZERO);
    let clamped = finite.clamp(Vec3::ZERO, Vec3::ONE);
    if clamped != value {
        warn(format!("{key} {value} is outside [0, 1]; clamped to {clamped}"));
    }
    clamped
}

fn convert_material(
    m: &tobj::Material,
    folder: &Path,
    mtl_path: &Path,
    warnings: &mut Vec<String>,
) -> Result<AssetMaterial, SceneError> {
    let mut warn = |what: String| warnings.push(format!("{}: material '{}': {what}", mtl_path.display(), m.name));
    let v3 = |c: Option<[f32; 3]>| c.map(Vec3::from_array);
    let diffuse = clamped_color(v3(m.diffuse).unwrap_or(Vec3::splat(DEFAULT_ALBEDO)), "Kd", &mut warn);
    let specular = clamped_color(v3(m.specular).unwrap_or(Vec3::ZERO), "Ks", &mut warn);
    let shininess = match m.shininess {
        Some(n) if !(n.is_finite() && n >= 0.0) => {
            warn(format!("Ns {n} is negative or not finite; 0 used"));
            0.0
        }
        Some(n) => n,
        None => 0.0,
    };
    let transparency = m
        .unknown_param
        .get("Tr")
        .and_then(|t| t.trim().parse::<f32>().ok())
        .or(m.dissolve.map(|d| 1.0 - d))
        .unwrap_or(0.0);
    let ior = match m.optical_density {
        Some(n) if n.is_finite() && n > 0.0 => Some(n),
        Some(n) => {
            warn(format!("Ni {n} is not a positive number; ignored"));
            None
        }
        None => None,
    };
    let mut material = match m.illumination_model {
        Some(5) => Material::mirror(if specular.max_element() > 0.0 { specular } else { Vec3::ONE }),
        Some(7) => Material::glass(ior.unwrap_or(1.5)),
        _ if ior.is_some() && transparency > 0.0 => Material::glass(ior.unwrap_or(1.5)),
        _ if specular.max_element() > 0.0 && shininess > 0.0 => Material::blinn(diffuse, specular, shininess),
        _ => Material::diffuse(diffuse),
    };
    match v3(m.emissive) {
        Some(e) if e.is_finite() && e.min_element() >= 0.0 => material.emission = e,
        Some(e) => warn(format!("Ke {e} is negative or not finite; dropped")),
        None => {}
    }
    let base_color_texture = match &m.diffuse_texture {
        Some(file) if !file.trim().is_empty() => {
            // map_Kd may carry options (`-bm 1 tex.png`); the file name is the last word.
            let file = file.split_whitespace().last().unwrap_or(file);
            let texture_path = folder.join(file);
            if !texture_path.is_file() {
                return Err(SceneError::NotFound {
                    path: texture_path,
                    hint: format!("texture of material '{}' (map_Kd in {}) not found", m.name, mtl_path.display()),
                });
            }
            let (texture, warning) = load_base_color_texture(&texture_path)?;
            warnings.extend(warning);
            Some(texture)
        }
        _ => None,
    };
    Ok(AssetMaterial {
        name: m.name.clone(),
        material,
        base_color_texture,
        normal_texture: None,
        roughness_texture: None,
        metallic_texture: None,
        opacity_texture: None,
    })
}

/// Checks the lines tobj would reject or misread, to report them with a line number;
/// returns whether vertex colors are given for some vertices only (tobj needs all or none).
fn prescan(text: &str, path: &Path, warnings: &mut Vec<String>) -> Result<bool, SceneError> {
    let error = |line: usize, message: String| SceneError::Parse { path: path.to_path_buf(), line, message };
    let (mut positions, mut texcoords, mut normals) = (0i64, 0i64, 0i64);
    let mut unknown_lines = 0usize;
    let mut first_unknown: Option<(usize, String)> = None;
    let mut colored_vertices = 0i64;
    for (line_index, raw_line) in text.lines().enumerate() {
        let line_number = line_index + 1;
        let line = raw_line.split('#').next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        let Some(keyword) = words.next() else { continue };
        let numbers = |words: std::str::SplitWhitespace, min: usize, max: usize| -> Result<Vec<f32>, SceneError> {
            let values: Vec<&str> = words.collect();
            if values.len() < min || values.len() > max {
                return Err(error(
                    line_number,
                    format!("'{keyword}' needs {min} to {max} numbers, found {}: '{line}'", values.len()),
                ));
            }
            values
                .iter()
                .map(|w| w.parse::<f32>().map_err(|_| error(line_number, format!("'{w}' is not a number in '{line}'"))))
                .collect()
        };
        match keyword {
            "v" => {
                let v = numbers(words, 3, 6)?;
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(error(line_number, format!("vertex is not finite: '{line}'")));
                }
                match v.len() {
                    4 if v[3] == 0.0 => {
                        return Err(error(line_number, format!("vertex weight w is 0: '{line}'")));
                    }
                    5 => {
                        return Err(error(line_number, format!("'v' takes x y z, x y z w or x y z r g b: '{line}'")));
                    }
                    6 => colored_vertices += 1,
                    _ => {}
                }
                positions += 1;
            }
            "vt" => {
                numbers(words, 1, 3)?;
                texcoords += 1;
            }
            "vn" => {
                numbers(words, 3, 3)?;
                normals += 1;
            }
            "f" => {
                let refs: Vec<&str> = words.collect();
                if refs.len() < 3 {
                    return Err(error(line_number, format!("a face needs at least 3 vertices: '{line}'")));
                }
                for r in refs {
                    let parts: Vec<&str> = r.split('/').collect();
                    if parts.len() > 3 || parts[0].is_empty() {
                        return Err(error(line_number, format!("malformed face vertex '{r}'")));
                    }
                    let counts = [(positions, "vertex"), (texcoords, "texture coordinate"), (normals, "normal")];
                    for (part, &(count, what)) in parts.iter().zip(counts.iter()) {
                        if part.is_empty() {
                            continue;
                        }
                        let index: i64 = part.parse().map_err(|_| {
                            error(line_number, format!("'{part}' is not an index in face vertex '{r}'"))
                        })?;
                        let resolved = if index < 0 { count.saturating_add(index).saturating_add(1) } else { index };
                        if index == 0 {
                            return Err(error(
                                line_number,
                                format!("face refers to {what} 0, but OBJ indices start at 1 (or count back from -1)"),
                            ));
                        }
                        if resolved < 1 || resolved > count {
                            return Err(error(
                                line_number,
                                format!("face refers to {what} {index}, but only {count} are defined so far"),
                            ));
                        }
                    }
                }
            }
            known if OBJ_KEYWORDS.contains(&known) => {}
            _ => {
                unknown_lines += 1;
                if first_unknown.is_none() {
                    let shown: String = line.chars().take(40).collect();
                    first_unknown = Some((line_number, shown));
                }
            }
        }
    }
    let mixed_colors = colored_vertices > 0 && colored_vertices < positions;
    if mixed_colors {
        warnings.push(format!(
            "{}: vertex colors (which warpath does not use) are given for {colored_vertices} of {positions} vertices; \
             they were ignored",
            path.display()
        ));
    }
    if let Some((line, shown)) = first_unknown {
        warnings.push(format!(
            "{}: skipped {unknown_lines} line(s) that are not OBJ statements (the first, line {line}: '{shown}')",
            path.display()
        ));
    }
    Ok(mixed_colors)
}

/// `text` with the colors of `v x y z r g b` lines removed (tobj rejects colors given for
/// some vertices only; warpath does not use them).
fn without_vertex_colors(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or("");
        let words: Vec<&str> = code.split_whitespace().collect();
        if words.len() == 7 && words[0] == "v" {
            out.push_str(&words[..4].join(" "));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}
