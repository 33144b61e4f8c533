//! NIfTI-1 volumes (`.nii`, and `.nii.gz` compressed with gzip): the format of MRI and CT
//! scans in neuroimaging (FSL, SPM, AFNI, nibabel, MRIcron).
//!
//! A single-file NIfTI-1 volume is a 348-byte header, optional extensions, and the voxel
//! data from byte `vox_offset` on. The header fields read here (byte offsets):
//! `sizeof_hdr` (0, `i32` = 348: its byte order is the file's), `dim[8]` (40, `i16`:
//! `dim[0]` the number of dimensions, then the size of each), `datatype` (70, `i16`),
//! `bitpix` (72, `i16`), `pixdim[8]` (76, `f32`: voxel spacing in `pixdim[1..=3]`),
//! `vox_offset` (108, `f32`), `scl_slope`/`scl_inter` (112/116, `f32`), `xyzt_units`
//! (123, `u8`) and the magic `n+1\0` (344).
//!
//! Conventions of this reader:
//! - the data is stored with i fastest, then j, then k — [`VolumeGrid`]'s order — and voxel
//!   (i, j, k) becomes grid voxel (x, y, z) = (i, j, k) unchanged: the qform/sform
//!   orientation is not applied (a scene orients the cube with its `to_world`);
//! - values become `f32` as `scl_slope · v + scl_inter` when `scl_slope` is finite and not 0
//!   (the standard's rule), else as stored;
//! - sample types: `u8`, `i8`, `i16`, `u16`, `i32`, `u32`, `i64`, `u64`, `f32`, `f64`
//!   (RGB and complex types are errors);
//! - 3D volumes only: `dim[0]` from 1 to 7 with every dimension past the third equal to 1
//!   (a 4D series of one frame reads, of several frames does not);
//! - the voxel spacing is `|pixdim[1..=3]|` in the header's spatial unit (a spacing that is
//!   0 or not finite reads as 1), so a scene can give the scan its real aspect ratio
//!   ([`NiftiVolume::extent`], [`NiftiVolume::aspect`]).
//!
//! Checks before allocating: the claimed grid against [`crate::limits::check_grid`] (the
//! value limit and the memory the process can get); for
//! `.nii`, `vox_offset` + data against the file's exact length (shorter: truncated;
//! longer: an error too); for `.nii.gz`, the claimed size against what the compressed
//! stream can hold at deflate's largest ratio (1032:1), then the stream must end exactly
//! after the data. NIfTI-2, `.hdr`/`.img` pairs and 4D series are errors that say so.

use crate::error::VolumeError;
use crate::grid::VolumeGrid;
use crate::limits::check_grid_values;
use std::io::{Read, Seek};
use std::path::Path;

/// Bytes in a NIfTI-1 header.
pub const HEADER_BYTES: usize = 348;
/// Deflate's largest compression ratio: no gzip stream of `n` bytes decompresses to more
/// than about 1032·n bytes.
const DEFLATE_MAX_RATIO: u64 = 1032;
/// Voxel data is read and converted in chunks of this many bytes.
const CHUNK_BYTES: usize = 1 << 20;

/// The sample types this reader converts (NIfTI-1 `datatype` codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NiftiDatatype {
    U8,
    I8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl NiftiDatatype {
    /// The type of NIfTI-1 `datatype` code `code`, or a description of why it is not read.
    pub fn from_code(code: i16) -> Result<Self, String> {
        Ok(match code {
            2 => Self::U8,
            4 => Self::I16,
            8 => Self::I32,
            16 => Self::F32,
            64 => Self::F64,
            256 => Self::I8,
            512 => Self::U16,
            768 => Self::U32,
            1024 => Self::I64,
            1280 => Self::U64,
            1 => return Err("datatype 1 (binary, 1 bit per voxel) is not supported".into()),
            32 | 1792 | 2048 => return Err(format!("datatype {code} (complex) is not supported")),
            128 | 2304 => return Err(format!("datatype {code} (RGB/RGBA colour) is not supported")),
            1536 => return Err("datatype 1536 (128-bit float) is not supported".into()),
            _ => return Err(format!("unknown datatype code {code}")),
        })
    }

    /// Bytes per sample.
    pub fn size(self) -> usize {
        match self {
            Self::U8 | Self::I8 => 1,
            Self::I16 | Self::U16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::I64 | Self::U64 | Self::F64 => 8,
        }
    }

    /// The sample at the start of `b` (at least [`size`](Self::size) bytes) as `f64`.
    fn decode(self, b: &[u8], big_endian: bool) -> f64 {
        macro_rules! read {
            ($t:ty, $n:expr) => {{
                let a: [u8; $n] = b[..$n].try_into().unwrap();
                (if big_endian { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) }) as f64
            }};
        }
        match self {
            Self::U8 => b[0] as f64,
            Self::I8 => b[0] as i8 as f64,
            Self::I16 => read!(i16, 2),
            Self::U16 => read!(u16, 2),
            Self::I32 => read!(i32, 4),
            Self::U32 => read!(u32, 4),
            Self::I64 => read!(i64, 8),
            Self::U64 => read!(u64, 8),
            Self::F32 => read!(f32, 4),
            Self::F64 => read!(f64, 8),
        }
    }
}

/// The spatial unit of `pixdim` (`xyzt_units & 7`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpatialUnit {
    Unknown,
    Metre,
    Millimetre,
    Micron,
}

/// The header fields this reader uses, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct NiftiHeader {
    pub big_endian: bool,
    /// `dim[0..8]` as stored.
    pub dim: [i16; 8],
    pub datatype: NiftiDatatype,
    /// `pixdim[0..8]` as stored.
    pub pixdim: [f32; 8],
    /// Where the voxel data starts (352 when a file says 0).
    pub vox_offset: u64,
    pub scl_slope: f32,
    pub scl_inter: f32,
    pub unit: SpatialUnit,
}

impl NiftiHeader {
    /// The grid's voxels along x, y, z (`dim[1..=3]`, 1 past `dim[0]`).
    pub fn resolution(&self) -> [u32; 3] {
        let n = self.dim[0] as usize;
        [1, 2, 3].map(|a| if a <= n { self.dim[a] as u32 } else { 1 })
    }

    /// Whether values are rescaled (`scl_slope` finite and not 0).
    pub fn rescales(&self) -> bool {
        self.scl_slope.is_finite() && self.scl_slope != 0.0
    }

    /// Bytes of voxel data the header claims.
    pub fn data_bytes(&self) -> u64 {
        let [nx, ny, nz] = self.resolution();
        nx as u64 * ny as u64 * nz as u64 * self.datatype.size() as u64
    }

    /// Voxel spacing along x, y, z: `|pixdim[1..=3]|`, 1 where that is 0 or not finite.
    pub fn spacing(&self) -> [f32; 3] {
        [1, 2, 3].map(|a| {
            let s = self.pixdim[a].abs();
            if s.is_finite() && s > 0.0 { s } else { 1.0 }
        })
    }
}

/// A NIfTI-1 scan: its scalar grid (x fastest) and how large its voxels are.
#[derive(Clone, Debug, PartialEq)]
pub struct NiftiVolume {
    pub grid: VolumeGrid,
    pub header: NiftiHeader,
    /// Voxel size along x, y, z in `header.unit`s (see [`NiftiHeader::spacing`]).
    pub spacing: [f32; 3],
}

impl NiftiVolume {
    /// The scan's size along x, y, z: resolution × spacing, in `header.unit`s.
    pub fn extent(&self) -> [f32; 3] {
        let r = self.grid.resolution;
        [0, 1, 2].map(|a| r[a] as f32 * self.spacing[a])
    }

    /// The extent divided by its largest component: the scale a `to_world` applies to the
    /// unit cube so the scan keeps its real proportions with its longest side 1.
    pub fn aspect(&self) -> [f32; 3] {
        let e = self.extent();
        let m = e[0].max(e[1]).max(e[2]);
        e.map(|v| v / m)
    }
}

/// Decodes a NIfTI-1 header from its first 348 bytes.
pub fn parse_header(h: &[u8], path: &Path) -> Result<NiftiHeader, VolumeError> {
    let format = |m: String| VolumeError::format(path, m);
    if h.len() < HEADER_BYTES {
        return Err(format(format!(
            "not a NIfTI-1 file: {} bytes, shorter than the {HEADER_BYTES}-byte header",
            h.len()
        )));
    }
    let le = i32::from_le_bytes(h[0..4].try_into().unwrap());
    let be = i32::from_be_bytes(h[0..4].try_into().unwrap());
    let big_endian = match (le, be) {
        (348, _) => false,
        (_, 348) => true,
        (540, _) | (_, 540) => return Err(format("a NIfTI-2 file (sizeof_hdr 540): only NIfTI-1 is supported".into())),
        _ => return Err(format(format!("not a NIfTI-1 file: sizeof_hdr is {le}, not 348"))),
    };
    match &h[344..348] {
        b"n+1\0" => {}
        b"ni1\0" => {
            return Err(format(
                "a NIfTI-1 header whose data is in a separate .img file (magic 'ni1'): only single .nii files are supported"
                    .into(),
            ));
        }
        m => return Err(format(format!("not a NIfTI-1 file: magic {:?}, not \"n+1\"", String::from_utf8_lossy(m)))),
    }
    let i16_at = |o: usize| {
        let a = [h[o], h[o + 1]];
        if big_endian { i16::from_be_bytes(a) } else { i16::from_le_bytes(a) }
    };
    let f32_at = |o: usize| {
        let a: [u8; 4] = h[o..o + 4].try_into().unwrap();
        if big_endian { f32::from_be_bytes(a) } else { f32::from_le_bytes(a) }
    };
    let dim: [i16; 8] = std::array::from_fn(|a| i16_at(40 + 2 * a));
    let pixdim: [f32; 8] = std::array::from_fn(|a| f32_at(76 + 4 * a));
    let rank = dim[0];
    if !(1..=7).contains(&rank) {
        return Err(format(format!("dim[0] = {rank}: the number of dimensions must be 1 to 7")));
    }
    let rank = rank as usize;
    if let Some(a) = (1..=rank).find(|&a| dim[a] < 1) {
        return Err(format(format!("dim[{a}] = {} is not positive", dim[a])));
    }
    if let Some(a) = (4..=rank).find(|&a| dim[a] != 1) {
        return Err(format(format!(
            "a {rank}D volume with dim[{a}] = {}: only 3D volumes are supported (every dimension past the third must be 1)",
            dim[a]
        )));
    }
    let code = i16_at(70);
    let datatype = NiftiDatatype::from_code(code).map_err(format)?;
    let bitpix = i16_at(72);
    if bitpix as i64 != 8 * datatype.size() as i64 {
        return Err(format(format!(
            "bitpix {bitpix} does not match datatype {code} ({} bits per voxel)",
            8 * datatype.size()
        )));
    }
    let offset = f32_at(108);
    let vox_offset = if offset == 0.0 {
        HEADER_BYTES as u64 + 4
    } else if offset.is_finite() && offset >= 352.0 && offset.fract() == 0.0 && offset <= (1u64 << 40) as f32 {
        offset as u64
    } else {
        return Err(format(format!("vox_offset {offset} is not a whole number of bytes from 352 on")));
    };
    let unit = match h[123] & 7 {
        1 => SpatialUnit::Metre,
        2 => SpatialUnit::Millimetre,
        3 => SpatialUnit::Micron,
        _ => SpatialUnit::Unknown,
    };
    Ok(NiftiHeader {
        big_endian,
        dim,
        datatype,
        pixdim,
        vox_offset,
        scl_slope: f32_at(112),
        scl_inter: f32_at(116),
        unit,
    })
}

/// Reads a `.nii` or `.nii.gz` file (gzip is recognised by its magic bytes, whatever the
/// name). Errors name the file and what is wrong.
pub fn read_nifti(path: &Path) -> Result<NiftiVolume, VolumeError> {
    let io = |e| VolumeError::io(path, e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let length = file.metadata().map_err(io)?.len();
    let mut magic = [0u8; 2];
    let gzip = length >= 2 && {
        file.read_exact(&mut magic).map_err(io)?;
        file.rewind().map_err(io)?;
        magic == [0x1f, 0x8b]
    };
    let file = std::io::BufReader::new(file);
    if gzip {
        read_stream(flate2::read::MultiGzDecoder::new(file), Source::Gzip { compressed_bytes: length }, path)
    } else {
        read_stream(file, Source::Plain { bytes: length }, path)
    }
}

/// Parses the bytes of a `.nii` or `.nii.gz` file (`path` names it in errors).
pub fn parse_nifti(bytes: &[u8], path: &Path) -> Result<NiftiVolume, VolumeError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let compressed_bytes = bytes.len() as u64;
        read_stream(flate2::read::MultiGzDecoder::new(bytes), Source::Gzip { compressed_bytes }, path)
    } else {
        read_stream(bytes, Source::Plain { bytes: bytes.len() as u64 }, path)
    }
}

/// What the stream is read from, for the size checks made before allocating.
#[derive(Clone, Copy)]
enum Source {
    Plain { bytes: u64 },
    Gzip { compressed_bytes: u64 },
}

/// Reads from `reader` exactly what it can, stopping early only at the end of the stream.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn read_stream(mut reader: impl Read, source: Source, path: &Path) -> Result<NiftiVolume, VolumeError> {
    let format = |m: String| VolumeError::format(path, m);
    // A corrupt gzip stream reports itself as an I/O error of kind InvalidInput/InvalidData.
    let io = |e: std::io::Error| match source {
        Source::Gzip { .. } => VolumeError::format(path, format!("gzip stream: {e}")),
        Source::Plain { .. } => VolumeError::io(path, e),
    };
    let mut head = [0u8; HEADER_BYTES];
    let got = read_full(&mut reader, &mut head).map_err(io)?;
    let header = parse_header(&head[..got], path)?;
    let resolution = header.resolution();
    let count = check_grid_values(path, "the NIfTI header", resolution, 1)?;
    let data_bytes = header.data_bytes();
    let needed = header.vox_offset + data_bytes;
    match source {
        Source::Plain { bytes } if bytes != needed => {
            return Err(format(format!(
                "the header says {} {}×{}×{} voxels of {} bytes from byte {} ({needed} bytes in all) but the file holds {bytes} bytes{}",
                count,
                resolution[0],
                resolution[1],
                resolution[2],
                header.datatype.size(),
                header.vox_offset,
                if bytes < needed { " (truncated?)" } else { "" }
            )));
        }
        Source::Gzip { compressed_bytes } if needed > compressed_bytes.saturating_mul(DEFLATE_MAX_RATIO) + 1024 => {
            return Err(format(format!(
                "the header claims {needed} bytes, more than {compressed_bytes} bytes of gzip can hold (truncated or corrupt?)"
            )));
        }
        _ => {}
    }
    // Skip the extensions up to vox_offset.
    let skip = header.vox_offset - HEADER_BYTES as u64;
    let skipped = std::io::copy(&mut (&mut reader).take(skip), &mut std::io::sink()).map_err(io)?;
    if skipped != skip {
        return Err(format(format!(
            "the file ends at byte {} before vox_offset {}",
            HEADER_BYTES as u64 + skipped,
            header.vox_offset
        )));
    }
    // A gzip stream may still end early: grow past the first 16 Mi values as data arrives.
    let reserve = match source {
        Source::Plain { .. } => count,
        Source::Gzip { .. } => count.min(1 << 24),
    };
    let mut values = crate::limits::reserved_vec(path, "the NIfTI header's grid", reserve)?;
    let size = header.datatype.size();
    let (slope, inter) =
        if header.rescales() { (header.scl_slope as f64, header.scl_inter as f64) } else { (1.0, 0.0) };
    let inter = if inter.is_finite() { inter } else { 0.0 };
    let mut chunk = vec![0u8; CHUNK_BYTES.min(data_bytes as usize)];
    let mut remaining = data_bytes as usize;
    while remaining > 0 {
        let want = remaining.min(chunk.len());
        let got = read_full(&mut reader, &mut chunk[..want]).map_err(io)?;
        if got < want {
            let read = data_bytes as usize - remaining + got;
            return Err(format(format!(
                "the data ends after {read} of the {data_bytes} bytes the header claims (truncated?)"
            )));
        }
        for sample in chunk[..want].chunks_exact(size) {
            let v = header.datatype.decode(sample, header.big_endian);
            values.push(if header.rescales() { (slope * v + inter) as f32 } else { v as f32 });
        }
        remaining -= want;
    }
    if let Source::Gzip { .. } = source {
        let mut extra = [0u8; 1];
        if read_full(&mut reader, &mut extra).map_err(io)? != 0 {
            return Err(format(format!("the decompressed stream goes on after the {needed} bytes the header claims")));
        }
    }
    let grid = VolumeGrid::new(resolution, 1, values).map_err(format)?;
    let spacing = header.spacing();
    Ok(NiftiVolume { grid, header, spacing })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal header written from the standard's field offsets.
    pub(crate) fn header(dim: [i16; 4], datatype: i16, bitpix: i16, big_endian: bool) -> Vec<u8> {
        let mut h = vec![0u8; 352];
        let put_i32 = |h: &mut Vec<u8>, o: usize, v: i32| {
            h[o..o + 4].copy_from_slice(&if big_endian { v.to_be_bytes() } else { v.to_le_bytes() })
        };
        let put_i16 = |h: &mut Vec<u8>, o: usize, v: i16| {
            h[o..o + 2].copy_from_slice(&if big_endian { v.to_be_bytes() } else { v.to_le_bytes() })
        };
        let put_f32 = |h: &mut Vec<u8>, o: usize, v: f32| {
            h[o..o + 4].copy_from_slice(&if big_endian { v.to_be_bytes() } else { v.to_le_bytes() })
        };
        put_i32(&mut h, 0, 348);
        for (a, d) in dim.iter().enumerate() {
            put_i16(&mut h, 40 + 2 * a, *d);
        }
        put_i16(&mut h, 70, datatype);
        put_i16(&mut h, 72, bitpix);
        for a in 0..4 {
            put_f32(&mut h, 76 + 4 * a, 1.0);
        }
        put_f32(&mut h, 108, 352.0);
        h[344..348].copy_from_slice(b"n+1\0");
        h
    }

    #[test]
    fn reads_a_hand_made_u8_file() {
        let mut bytes = header([3, 2, 2, 1], 2, 8, false);
        bytes.extend_from_slice(&[1, 2, 3, 255]);
        let v = parse_nifti(&bytes, Path::new("t.nii")).unwrap();
        assert_eq!(v.grid.resolution, [2, 2, 1]);
        assert_eq!(v.grid.data, vec![1.0, 2.0, 3.0, 255.0]);
    }

    #[test]
    fn header_errors_are_specific() {
        let p = Path::new("t.nii");
        let err = |b: &[u8]| parse_nifti(b, p).unwrap_err().to_string();
        let mut b = header([4, 2, 2, 1], 2, 8, false);
        b[48..50].copy_from_slice(&3i16.to_le_bytes());
        b.extend_from_slice(&[0; 12]);
        assert!(err(&b).contains("only 3D volumes"), "{}", err(&b));
        let mut b = header([3, 2, 2, 1], 2, 16, false);
        b.extend_from_slice(&[0; 4]);
        assert!(err(&b).contains("bitpix 16 does not match datatype 2"));
        let mut b = header([3, 2, 2, 1], 128, 24, false);
        b.extend_from_slice(&[0; 12]);
        assert!(err(&b).contains("RGB"));
        let mut b = header([3, 2, 2, 1], 2, 8, false);
        b[344..348].copy_from_slice(b"ni1\0");
        assert!(err(&b).contains("separate .img"));
        let mut b = header([3, 2, 2, 1], 2, 8, false);
        b[0..4].copy_from_slice(&540i32.to_le_bytes());
        assert!(err(&b).contains("NIfTI-2"));
        let mut b = header([3, 2, -2, 1], 2, 8, false);
        b.extend_from_slice(&[0; 4]);
        assert!(err(&b).contains("dim[2] = -2 is not positive"));
    }
}
