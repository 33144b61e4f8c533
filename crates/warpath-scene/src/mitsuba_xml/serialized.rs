//! Mitsuba's `.serialized` meshes (the `serialized` shape), read and written.
//!
//! A file is a run of meshes, each an uncompressed header — `u16` 0x041C, `u16` version 3
//! or 4 — followed by one zlib stream: `u32` flags (0x0001 vertex normals, 0x0002 texture
//! coordinates, 0x0008 vertex colors, 0x0010 face normals, 0x1000 single / 0x2000 double
//! precision), the shape's name as a NUL-terminated string (version 4 only), `u64` vertex
//! and triangle counts, positions, normals, uvs and colors (f32 or f64 per the flags), and
//! the triangles' `u32` indices (`u64` beyond 2³² vertices). The file ends with a dictionary:
//! each mesh's byte offset (`u64` in version 4, `u32` in version 3), then the `u32` count of
//! meshes. Everything is little endian. Every claim is checked against the bytes and the
//! memory guard before anything is allocated, so a truncated or lying file is an error.

use crate::mesh::TriangleMesh;
use flate2::read::ZlibDecoder;
use glam::{Vec2, Vec3};
use std::io::{Read, Write};

/// The file format identifier of every mesh's header.
pub const SERIALIZED_MAGIC: u16 = 0x041C;

const HAS_NORMALS: u32 = 0x0001;
const HAS_TEXCOORDS: u32 = 0x0002;
const HAS_COLORS: u32 = 0x0008;
const FACE_NORMALS: u32 = 0x0010;
const DOUBLE_PRECISION: u32 = 0x2000;

/// One mesh read from a `.serialized` file.
#[derive(Clone, Debug)]
pub struct SerializedMesh {
    pub mesh: TriangleMesh,
    /// The mesh asks for face normals (flag 0x0010); its vertex normals, if any, are kept
    /// in `mesh` and should be dropped.
    pub face_normals: bool,
}

/// A file's version and its end-of-file dictionary: where each mesh starts. The dictionary
/// is checked whole (it fits the file, starts at 0, increases, and each entry points at a
/// mesh header), which also catches most truncated files.
fn dictionary(bytes: &[u8]) -> Result<(u16, Vec<usize>), String> {
    if bytes.len() < 8 {
        return Err(format!("{} bytes: too short for a Mitsuba serialized mesh (truncated?)", bytes.len()));
    }
    let magic = u16::from_le_bytes([bytes[0], bytes[1]]);
    if magic != SERIALIZED_MAGIC {
        return Err(format!(
            "not a Mitsuba serialized mesh: the file starts with 0x{magic:04X}, not 0x{SERIALIZED_MAGIC:04X}"
        ));
    }
    let version = u16::from_le_bytes([bytes[2], bytes[3]]);
    if version != 3 && version != 4 {
        return Err(format!("serialized format version {version} is not supported (Mitsuba writes 3 and 4)"));
    }
    let count = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
    let entry = if version == 4 { 8 } else { 4 };
    let table = count as u64 * entry + 4;
    let bad = |why: String| format!("the end-of-file dictionary is damaged (truncated file?): {why}");
    if count == 0 || table + 4 > bytes.len() as u64 {
        return Err(bad(format!("it claims {count} meshes, which a file of {} bytes cannot hold", bytes.len())));
    }
    let start = bytes.len() - table as usize;
    let mut offsets = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let at = start + i * entry as usize;
        let offset = if version == 4 {
            u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
        } else {
            u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as u64
        };
        let previous = offsets.last().copied();
        if (i == 0 && offset != 0)
            || previous.is_some_and(|p| offset as usize <= p)
            || offset.saturating_add(4) > start as u64
        {
            return Err(bad(format!("mesh {i} is listed at byte {offset}")));
        }
        let o = offset as usize;
        if bytes[o..o + 4] != bytes[0..4] {
            return Err(bad(format!("mesh {i} at byte {offset} does not start with the serialized header")));
        }
        offsets.push(o);
    }
    Ok((version, offsets))
}

/// Reads mesh `shape_index` of a `.serialized` file's bytes.
pub fn parse_serialized(bytes: &[u8], shape_index: u32) -> Result<SerializedMesh, String> {
    let (version, offsets) = dictionary(bytes)?;
    let Some(&offset) = offsets.get(shape_index as usize) else {
        return Err(format!(
            "shape_index {shape_index} is out of range: the file's dictionary lists {} mesh{}",
            offsets.len(),
            if offsets.len() == 1 { "" } else { "es" }
        ));
    };
    // The mesh's compressed stream ends before the next mesh (or the dictionary).
    let end = offsets
        .get(shape_index as usize + 1)
        .copied()
        .unwrap_or(bytes.len() - (offsets.len() * if version == 4 { 8 } else { 4 } + 4));
    let mut z = Stream { inner: ZlibDecoder::new(&bytes[offset + 4..end]), shape_index };
    let flags = z.u32()?;
    let mut name = String::new();
    if version == 4 {
        let mut raw = Vec::new();
        loop {
            let b = z.u8()?;
            if b == 0 {
                break;
            }
            if raw.len() >= 4096 {
                return Err(format!("mesh {shape_index}: its name runs past 4096 bytes without a terminating NUL"));
            }
            raw.push(b);
        }
        name = String::from_utf8_lossy(&raw).into_owned();
    }
    let vertices = z.u64()?;
    let triangles = z.u64()?;
    let what = |w: &str| format!("mesh {shape_index}'s {w}");
    // Positions, normals, uvs: 32 bytes a vertex; indices and material: 16 a triangle.
    warpath_core::limits::check_count(&what("vertices"), vertices, 32).map_err(|e| e.to_string())?;
    warpath_core::limits::check_count(&what("triangles"), triangles, 16).map_err(|e| e.to_string())?;
    if vertices > u32::MAX as u64 {
        return Err(format!("mesh {shape_index} claims {vertices} vertices, more than warpath's 2^32"));
    }
    let double = flags & DOUBLE_PRECISION != 0;
    let n = vertices as usize;
    let mut mesh = TriangleMesh { name, ..TriangleMesh::default() };
    mesh.positions = z.vec3s(n, double, "positions")?;
    if flags & HAS_NORMALS != 0 {
        mesh.normals = z.vec3s(n, double, "normals")?;
    }
    if flags & HAS_TEXCOORDS != 0 {
        let raw = z.reals(2 * n, double, "texture coordinates")?;
        mesh.uvs = raw.chunks_exact(2).map(|c| Vec2::new(c[0], c[1])).collect();
    }
    if flags & HAS_COLORS != 0 {
        z.reals(3 * n, double, "vertex colors")?;
    }
    let indices = z.bytes(triangles as usize * 12, "triangle indices")?;
    mesh.triangles = indices
        .chunks_exact(12)
        .map(|c| [0, 4, 8].map(|o| u32::from_le_bytes(c[o..o + 4].try_into().unwrap())))
        .collect();
    if let Some((t, bad)) = mesh
        .triangles
        .iter()
        .enumerate()
        .find_map(|(t, tri)| tri.iter().find(|&&i| i as u64 >= vertices).map(|&i| (t, i)))
    {
        return Err(format!(
            "mesh {shape_index}: triangle {t} uses vertex {bad}, but there are only {vertices} vertices"
        ));
    }
    Ok(SerializedMesh { mesh, face_normals: flags & FACE_NORMALS != 0 })
}

/// The decompressed stream of one mesh.
struct Stream<'a> {
    inner: ZlibDecoder<&'a [u8]>,
    shape_index: u32,
}

impl Stream<'_> {
    fn read(&mut self, out: &mut [u8], what: &str) -> Result<(), String> {
        self.inner.read_exact(out).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => {
                format!("mesh {}: the compressed data ends inside its {what} (truncated?)", self.shape_index)
            }
            _ => format!("mesh {}: the compressed data is corrupt in its {what} ({e})", self.shape_index),
        })
    }
    /// `len` bytes, read as they come (a file that claims more than it holds fails before
    /// the claimed size is allocated).
    fn bytes(&mut self, len: usize, what: &str) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(len.min(1 << 20));
        (&mut self.inner)
            .take(len as u64)
            .read_to_end(&mut out)
            .map_err(|e| format!("mesh {}: the compressed data is corrupt in its {what} ({e})", self.shape_index))?;
        if out.len() != len {
            return Err(format!("mesh {}: the compressed data ends inside its {what} (truncated?)", self.shape_index));
        }
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, String> {
        let mut b = [0u8; 1];
        self.read(&mut b, "name")?;
        Ok(b[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        let mut b = [0u8; 4];
        self.read(&mut b, "flags")?;
        Ok(u32::from_le_bytes(b))
    }
    fn u64(&mut self) -> Result<u64, String> {
        let mut b = [0u8; 8];
        self.read(&mut b, "vertex and triangle counts")?;
        Ok(u64::from_le_bytes(b))
    }
    fn reals(&mut self, count: usize, double: bool, what: &str) -> Result<Vec<f32>, String> {
        let size = if double { 8 } else { 4 };
        let raw = self.bytes(count * size, what)?;
        Ok(if double {
            raw.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap()) as f32).collect()
        } else {
            raw.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
        })
    }
    fn vec3s(&mut self, count: usize, double: bool, what: &str) -> Result<Vec<Vec3>, String> {
        Ok(self.reals(3 * count, double, what)?.chunks_exact(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect())
    }
}

/// The bytes of a version-4, single-precision `.serialized` file holding `meshes` (with
/// their normals and uvs where they have them), for tests and tools.
pub fn serialized_bytes(meshes: &[TriangleMesh]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for mesh in meshes {
        offsets.push(out.len() as u64);
        out.extend_from_slice(&SERIALIZED_MAGIC.to_le_bytes());
        out.extend_from_slice(&4u16.to_le_bytes());
        let mut body = Vec::new();
        let mut flags = 0x1000;
        if !mesh.normals.is_empty() {
            flags |= HAS_NORMALS;
        }
        if !mesh.uvs.is_empty() {
            flags |= HAS_TEXCOORDS;
        }
        body.extend_from_slice(&(flags as u32).to_le_bytes());
        body.extend_from_slice(mesh.name.as_bytes());
        body.push(0);
        body.extend_from_slice(&(mesh.positions.len() as u64).to_le_bytes());
        body.extend_from_slice(&(mesh.triangles.len() as u64).to_le_bytes());
        let floats = mesh
            .positions
            .iter()
            .chain(&mesh.normals)
            .flat_map(|v| v.to_array())
            .chain(mesh.uvs.iter().flat_map(|v| v.to_array()));
        for f in floats {
            body.extend_from_slice(&f.to_le_bytes());
        }
        for i in mesh.triangles.iter().flatten() {
            body.extend_from_slice(&i.to_le_bytes());
        }
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&body).expect("writing to memory");
        out.extend_from_slice(&z.finish().expect("writing to memory"));
    }
    for o in offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    out.extend_from_slice(&(meshes.len() as u32).to_le_bytes());
    out
}
