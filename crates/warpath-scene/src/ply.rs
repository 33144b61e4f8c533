//! Stanford PLY: ASCII and binary (little/big endian), optionally gzip-compressed
//! (`.ply.gz`).
//!
//! Reads `vertex` (`x`,`y`,`z` of any numeric type; optional `nx`,`ny`,`nz`; optional
//! `u`,`v` / `s`,`t` / `texture_u`,`texture_v`) and `face` (a list property named
//! `vertex_indices` or `vertex_index`; polygons are triangulated as fans). Every other
//! element and property is read past and ignored.
//!
//! Errors are located: header problems by header line; ASCII bodies by line; binary
//! bodies by element, item index and byte offset. Truncated files, out-of-range indices
//! and non-finite coordinates are errors; faces with fewer than three vertices are
//! dropped with a warning.
//!
//! Sizes are checked before anything is allocated or looped over: every element count
//! against [`warpath_core::limits`] and against the bytes the body holds (an item takes at
//! least one byte per scalar in binary, two in ASCII), and a `.ply.gz` is decompressed
//! only as far as the memory the process can get.

use crate::SceneError;
use crate::mesh::{MeshAsset, TriangleMesh};
use glam::{Vec2, Vec3};
use std::io::Read;
use std::path::Path;
use warpath_core::limits;

#[derive(Clone, Copy, Debug, PartialEq)]
enum ScalarType {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl ScalarType {
    fn parse(name: &str) -> Option<Self> {
        use ScalarType::*;
        Some(match name {
            "char" | "int8" => I8,
            "uchar" | "uint8" => U8,
            "short" | "int16" => I16,
            "ushort" | "uint16" => U16,
            "int" | "int32" => I32,
            "uint" | "uint32" => U32,
            "float" | "float32" => F32,
            "double" | "float64" => F64,
            _ => return None,
        })
    }
    fn size(self) -> usize {
        use ScalarType::*;
        match self {
            I8 | U8 => 1,
            I16 | U16 => 2,
            I32 | U32 | F32 => 4,
            F64 => 8,
        }
    }
    fn is_integer(self) -> bool {
        !matches!(self, ScalarType::F32 | ScalarType::F64)
    }
}

#[derive(Clone, Debug)]
enum PropertyKind {
    Scalar(ScalarType),
    List { count: ScalarType, item: ScalarType },
}

#[derive(Clone, Debug)]
struct Property {
    name: String,
    kind: PropertyKind,
}

#[derive(Clone, Debug)]
struct Element {
    name: String,
    count: usize,
    properties: Vec<Property>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    Ascii,
    BinaryLittleEndian,
    BinaryBigEndian,
}

struct Header {
    format: Format,
    elements: Vec<Element>,
    /// Byte offset of the body in the (decompressed) file.
    body_offset: usize,
    /// Number of header lines (the body's first line is this + 1).
    line_count: usize,
}

/// Loads a `.ply` or `.ply.gz` file.
pub fn load_ply(path: &Path) -> Result<MeshAsset, SceneError> {
    let raw = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            SceneError::NotFound { path: path.to_path_buf(), hint: "PLY file not found".into() }
        }
        _ => SceneError::Io { path: path.to_path_buf(), source: e },
    })?;
    decode_ply(&raw, path)
}

/// Parses the bytes of a `.ply` or `.ply.gz` file (gzip is recognised by its magic bytes
/// or the name).
pub fn decode_ply(raw: &[u8], path: &Path) -> Result<MeshAsset, SceneError> {
    let is_gzip = path.to_string_lossy().to_lowercase().ends_with(".gz") || raw.starts_with(&[0x1f, 0x8b]);
    if is_gzip {
        let bytes = gunzip(raw, path)?;
        parse_ply(&bytes, path)
    } else {
        parse_ply(raw, path)
    }
}

/// Decompresses gzip data, checking the growing output against the memory the process
/// can get (a small file can expand without bound).
fn gunzip(raw: &[u8], path: &Path) -> Result<Vec<u8>, SceneError> {
    let invalid = |message: String| SceneError::Invalid { path: path.to_path_buf(), message };
    let mut decoder = flate2::read::GzDecoder::new(raw);
    let mut out = Vec::new();
    let mut next_check = 1u64 << 20;
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = decoder.read(&mut chunk).map_err(|e| invalid(format!("not a valid gzip file: {e}")))?;
        if n == 0 {
            return Ok(out);
        }
        let total = out.len() as u64 + n as u64;
        if total > next_check {
            next_check = next_check.saturating_mul(2);
            limits::check_bytes("the decompressed data", next_check).map_err(|e| {
                invalid(format!("{e} (it decompresses to more than {} so far)", limits::format_bytes(total)))
            })?;
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

/// Parses PLY bytes (already decompressed); `path` names the file in errors.
pub fn parse_ply(bytes: &[u8], path: &Path) -> Result<MeshAsset, SceneError> {
    let header = parse_header(bytes, path)?;
    check_element_sizes(&header, bytes.len() - header.body_offset, path)?;
    let vertex_count = header.elements.iter().find(|e| e.name == "vertex").map(|e| e.count).unwrap_or(0);
    let mut body = Body {
        path,
        data: &bytes[header.body_offset..],
        position: 0,
        body_offset: header.body_offset,
        format: header.format,
        line: header.line_count + 1,
        element: String::new(),
        item: 0,
    };
    let mut mesh = TriangleMesh { name: mesh_name(path), ..TriangleMesh::default() };
    let mut short_faces = 0usize;
    for element in &header.elements {
        body.element = element.name.clone();
        match element.name.as_str() {
            "vertex" => read_vertices(&mut body, element, &mut mesh)?,
            "face" => read_faces(&mut body, element, vertex_count, &mut mesh, &mut short_faces)?,
            // Items without properties take no bytes: nothing to read.
            _ if element.properties.is_empty() => {}
            _ => {
                for item in 0..element.count {
                    body.item = item;
                    for property in &element.properties {
                        body.skip_property(&property.kind)?;
                    }
                    body.end_item()?;
                }
            }
        }
    }
    let mut asset = MeshAsset::default();
    if short_faces > 0 {
        asset.warnings.push(format!("{}: dropped {short_faces} face(s) with fewer than 3 vertices", path.display()));
    }
    if !mesh.triangles.is_empty() {
        asset.meshes.push(mesh);
    }
    Ok(asset)
}

/// Checks every element's count before the body is read: against the limits (with the
/// memory its items take once loaded), and against the body's size (each item takes at
/// least a byte per binary scalar, or a value and a separator per ASCII property).
fn check_element_sizes(header: &Header, body_bytes: usize, path: &Path) -> Result<(), SceneError> {
    let invalid = |message: String| SceneError::Invalid { path: path.to_path_buf(), message };
    for element in &header.elements {
        let has = |name: &str| element.properties.iter().any(|p| p.name == name);
        let bytes_in_memory = match element.name.as_str() {
            "vertex" => 12 + if has("nx") { 12 } else { 0 } + if has("u") || has("s") { 8 } else { 0 },
            "face" => 12,
            _ => 0,
        };
        let what = format!("element '{}'", element.name);
        let min_item_bytes: u64 = match header.format {
            Format::Ascii => 2 * element.properties.len() as u64,
            _ => element
                .properties
                .iter()
                .map(|p| match p.kind {
                    PropertyKind::Scalar(ty) => ty.size() as u64,
                    PropertyKind::List { count, .. } => count.size() as u64,
                })
                .sum(),
        };
        // The last ASCII value may end the file without a separator.
        let needed = (element.count as u64).saturating_mul(min_item_bytes).saturating_sub(1);
        if needed > body_bytes as u64 {
            return Err(invalid(format!(
                "{what} claims {} items of at least {min_item_bytes} bytes each, but the body has only {body_bytes} bytes",
                element.count
            )));
        }
        limits::check_count(&what, element.count as u64, bytes_in_memory).map_err(|e| invalid(e.to_string()))?;
    }
    Ok(())
}

fn mesh_name(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    name.trim_end_matches(".gz").trim_end_matches(".ply").to_string()
}

fn parse_header(bytes: &[u8], path: &Path) -> Result<Header, SceneError> {
    let error = |line: usize, message: String| SceneError::Parse { path: path.to_path_buf(), line, message };
    let mut offset = 0usize;
    let mut line_number = 0usize;
    let mut format = None;
    let mut elements: Vec<Element> = Vec::new();
    loop {
        if offset >= bytes.len() {
            return Err(error(line_number.max(1), "the header has no 'end_header' line".into()));
        }
        let end = bytes[offset..].iter().position(|&b| b == b'\n').map(|p| offset + p);
        let line_end = end.unwrap_or(bytes.len());
        let line = String::from_utf8_lossy(&bytes[offset..line_end]);
        let line = line.trim();
        line_number += 1;
        offset = end.map(|e| e + 1).unwrap_or(bytes.len());
        if line_number == 1 {
            if line != "ply" {
                return Err(error(1, "not a PLY file (the first line must be 'ply')".into()));
            }
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            None | Some("comment") | Some("obj_info") => {}
            Some("format") => {
                format = Some(match words.get(1).copied() {
                    Some("ascii") => Format::Ascii,
                    Some("binary_little_endian") => Format::BinaryLittleEndian,
                    Some("binary_big_endian") => Format::BinaryBigEndian,
                    _ => return Err(error(line_number, format!("unknown PLY format '{line}'"))),
                });
            }
            Some("element") => {
                let (Some(name), Some(count), None) = (words.get(1), words.get(2), words.get(3)) else {
                    return Err(error(line_number, format!("expected 'element <name> <count>', found '{line}'")));
                };
                let count: usize = count.parse().map_err(|_| {
                    error(line_number, format!("element count '{count}' is not a non-negative integer"))
                })?;
                elements.push(Element { name: name.to_string(), count, properties: Vec::new() });
            }
            Some("property") => {
                let Some(element) = elements.last_mut() else {
                    return Err(error(line_number, "a property before any element".into()));
                };
                let type_of = |name: &str| {
                    ScalarType::parse(name).ok_or_else(|| error(line_number, format!("unknown property type '{name}'")))
                };
                let property = match words.as_slice() {
                    ["property", "list", count, item, name] => {
                        let count = type_of(count)?;
                        if !count.is_integer() {
                            return Err(error(line_number, "a list count must have an integer type".into()));
                        }
                        Property { name: name.to_string(), kind: PropertyKind::List { count, item: type_of(item)? } }
                    }
                    ["property", ty, name] if *ty != "list" => {
                        Property { name: name.to_string(), kind: PropertyKind::Scalar(type_of(ty)?) }
                    }
                    _ => return Err(error(line_number, format!("malformed property line '{line}'"))),
                };
                element.properties.push(property);
            }
            Some("end_header") => break,
            Some(other) => return Err(error(line_number, format!("unknown header keyword '{other}'"))),
        }
    }
    let Some(format) = format else {
        return Err(error(line_number, "the header has no 'format' line".into()));
    };
    Ok(Header { format, elements, body_offset: offset, line_count: line_number })
}

/// Reads the body value by value, in ASCII or binary, knowing where it is for errors.
struct Body<'a> {
    path: &'a Path,
    data: &'a [u8],
    position: usize,
    body_offset: usize,
    format: Format,
    /// ASCII: the line of the current position (1-based, in the whole file).
    line: usize,
    element: String,
    item: usize,
}

impl Body<'_> {
    fn error(&self, message: String) -> SceneError {
        match self.format {
            Format::Ascii => SceneError::Parse {
                path: self.path.to_path_buf(),
                line: self.line,
                message: format!("element '{}' {}: {message}", self.element, self.item),
            },
            _ => SceneError::Invalid {
                path: self.path.to_path_buf(),
                message: format!(
                    "element '{}' {} at byte offset {}: {message}",
                    self.element,
                    self.item,
                    self.body_offset + self.position
                ),
            },
        }
    }

    fn next_token(&mut self) -> Option<&[u8]> {
        while self.position < self.data.len() && self.data[self.position].is_ascii_whitespace() {
            if self.data[self.position] == b'\n' {
                self.line += 1;
            }
            self.position += 1;
        }
        let start = self.position;
        while self.position < self.data.len() && !self.data[self.position].is_ascii_whitespace() {
            self.position += 1;
        }
        (self.position > start).then(|| &self.data[start..self.position])
    }

    fn read(&mut self, ty: ScalarType) -> Result<f64, SceneError> {
        if self.format == Format::Ascii {
            let Some(token) = self.next_token() else {
                return Err(self.error("the file ends early".into()));
            };
            let text = String::from_utf8_lossy(token).into_owned();
            let value: f64 = text.parse().map_err(|_| self.error(format!("'{text}' is not a number")))?;
            if ty.is_integer() && value.fract() != 0.0 {
                return Err(self.error(format!("'{text}' is not an integer")));
            }
            return Ok(value);
        }
        let size = ty.size();
        if self.position + size > self.data.len() {
            return Err(self.error("the file ends early".into()));
        }
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(&self.data[self.position..self.position + size]);
        if self.format == Format::BinaryBigEndian {
            b[..size].reverse();
        }
        self.position += size;
        use ScalarType::*;
        Ok(match ty {
            I8 => b[0] as i8 as f64,
            U8 => b[0] as f64,
            I16 => i16::from_le_bytes([b[0], b[1]]) as f64,
            U16 => u16::from_le_bytes([b[0], b[1]]) as f64,
            I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            F64 => f64::from_le_bytes(b),
        })
    }

    /// ASCII: an item ends at the end of its line; values left over mean the header and
    /// the body disagree.
    fn end_item(&mut self) -> Result<(), SceneError> {
        if self.format != Format::Ascii {
            return Ok(());
        }
        while self.position < self.data.len() && matches!(self.data[self.position], b' ' | b'\t' | b'\r') {
            self.position += 1;
        }
        if self.position < self.data.len() && self.data[self.position] != b'\n' {
            return Err(self.error("more values on the line than the header declares".into()));
        }
        Ok(())
    }

    fn read_count(&mut self, ty: ScalarType) -> Result<usize, SceneError> {
        let n = self.read(ty)?;
        if n < 0.0 {
            return Err(self.error(format!("negative list length {n}")));
        }
        Ok(n as usize)
    }

    fn skip_property(&mut self, kind: &PropertyKind) -> Result<(), SceneError> {
        match *kind {
            PropertyKind::Scalar(ty) => {
                self.read(ty)?;
            }
            PropertyKind::List { count, item } => {
                let n = self.read_count(count)?;
                if self.format != Format::Ascii {
                    let bytes = n.checked_mul(item.size()).unwrap_or(usize::MAX);
                    if bytes > self.data.len() - self.position {
                        return Err(self.error("the file ends early (inside a list)".into()));
                    }
                    self.position += bytes;
                } else {
                    for _ in 0..n {
                        self.read(item)?;
                    }
                }
            }
        }
        Ok(())
    }
}

fn scalar_index(element: &Element, names: &[&str]) -> Option<usize> {
    element
        .properties
        .iter()
        .position(|p| names.contains(&p.name.as_str()) && matches!(p.kind, PropertyKind::Scalar(_)))
}

fn read_vertices(body: &mut Body, element: &Element, mesh: &mut TriangleMesh) -> Result<(), SceneError> {
    let missing = |what: &str| SceneError::Invalid {
        path: body.path.to_path_buf(),
        message: format!("element 'vertex' has no scalar property '{what}'"),
    };
    let x = scalar_index(element, &["x"]).ok_or_else(|| missing("x"))?;
    let y = scalar_index(element, &["y"]).ok_or_else(|| missing("y"))?;
    let z = scalar_index(element, &["z"]).ok_or_else(|| missing("z"))?;
    let normal = match (scalar_index(element, &["nx"]), scalar_index(element, &["ny"]), scalar_index(element, &["nz"]))
    {
        (Some(a), Some(b), Some(c)) => Some([a, b, c]),
        _ => None,
    };
    let uv = match (
        scalar_index(element, &["u", "s", "texture_u", "texture_s"]),
        scalar_index(element, &["v", "t", "texture_v", "texture_t"]),
    ) {
        (Some(a), Some(b)) => Some([a, b]),
        _ => None,
    };
    // The count was checked against the body's size (check_element_sizes).
    mesh.positions.reserve(element.count);
    let mut values = vec![0f64; element.properties.len()];
    for item in 0..element.count {
        body.item = item;
        for (k, property) in element.properties.iter().enumerate() {
            match property.kind {
                PropertyKind::Scalar(ty) => values[k] = body.read(ty)?,
                ref list => body.skip_property(list)?,
            }
        }
        body.end_item()?;
        let p = Vec3::new(values[x] as f32, values[y] as f32, values[z] as f32);
        if !p.is_finite() {
            return Err(body.error(format!("vertex position is not finite ({p})")));
        }
        mesh.positions.push(p);
        if let Some([a, b, c]) = normal {
            mesh.normals.push(Vec3::new(values[a] as f32, values[b] as f32, values[c] as f32));
        }
        if let Some([a, b]) = uv {
            mesh.uvs.push(Vec2::new(values[a] as f32, values[b] as f32));
        }
    }
    Ok(())
}

fn read_faces(
    body: &mut Body,
    element: &Element,
    vertex_count: usize,
    mesh: &mut TriangleMesh,
    short_faces: &mut usize,
) -> Result<(), SceneError> {
    let Some(indices_property) = element.properties.iter().position(|p| {
        matches!(p.name.as_str(), "vertex_indices" | "vertex_index") && matches!(p.kind, PropertyKind::List { .. })
    }) else {
        return Err(SceneError::Invalid {
            path: body.path.to_path_buf(),
            message: "element 'face' has no list property 'vertex_indices' or 'vertex_index'".into(),
        });
    };
    mesh.triangles.reserve(element.count);
    let mut polygon: Vec<u32> = Vec::with_capacity(8);
    for item in 0..element.count {
        body.item = item;
        for (k, property) in element.properties.iter().enumerate() {
            let PropertyKind::List { count, item: item_type } = property.kind else {
                body.skip_property(&property.kind)?;
                continue;
            };
            if k != indices_property {
                body.skip_property(&property.kind)?;
                continue;
            }
            let n = body.read_count(count)?;
            polygon.clear();
            for _ in 0..n {
                let index = body.read(item_type)?;
                if !(index >= 0.0 && (index as usize) < vertex_count) {
                    return Err(
                        body.error(format!("vertex index {index} is out of range (there are {vertex_count} vertices)"))
                    );
                }
                polygon.push(index as u32);
            }
        }
        body.end_item()?;
        if polygon.len() < 3 {
            *short_faces += 1;
            continue;
        }
        for i in 1..polygon.len() - 1 {
            mesh.triangles.push([polygon[0], polygon[i], polygon[i + 1]]);
        }
    }
    Ok(())
}
