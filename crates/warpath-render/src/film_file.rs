//! Partial renders that merge exactly: a film written to a `.wfilm` file with the sample range
//! it holds and a fingerprint of the scene and the image-defining settings that made it, and
//! the merge of several such files into the film of the union of their ranges.
//!
//! Sample `s` of pixel `p` is a pure function of (p, s, dimension), so parts of disjoint
//! ranges add up to the render of their union: the same samples, the same counts. The sums are
//! f64 of f32 samples; parts merge in ascending order of their ranges (a canonical order), so
//! merging the same parts always gives the same bits. Compared with one render of the union,
//! the f64 additions are grouped differently, so a sum can differ in its last bits (the
//! squared sums most often: a square of an f32 has 48 significant bits); the tests bound the
//! difference at 1e-14 relative.
//!
//! File layout (little endian): magic `WPFILM01`; fingerprint u64; width, height u32; sample
//! range start, end u32; provenance length u32 and that many UTF-8 bytes (backend, strategy:
//! informative, not checked); then per pixel sum (3 × f64), sum_sq (3 × f64), count (u32); then
//! an FNV-1a 64 checksum of everything before it.

use crate::error::{Error, Result};
use crate::settings::Settings;
use glam::DVec3;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use warpath_core::film::Film;
use warpath_scene::Scene;

const MAGIC: &[u8; 8] = b"WPFILM01";

/// A film with the sample range it holds and what made it.
#[derive(Clone, Debug)]
pub struct FilmPart {
    pub film: Film,
    /// Sample indices (or frames) this film holds.
    pub samples: Range<u32>,
    /// [`fingerprint`] of the scene and settings.
    pub fingerprint: u64,
    /// Backend and schedule (not checked by the merge: every backend renders the same image
    /// to round-off).
    pub provenance: String,
}

/// FNV-1a, 64 bits.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn f32s(&mut self, values: impl IntoIterator<Item = f32>) {
        for v in values {
            self.u32(v.to_bits());
        }
    }
    fn text(&mut self, text: &str) {
        self.u32(text.len() as u32);
        self.bytes(text.as_bytes());
    }
}

/// A fingerprint of what decides the image: the scene's geometry, materials, textures,
/// camera, environment, media grids and isosurfaces, and the settings' size, depth, seed,
/// sampler, roulette and integrator (with ReSTIR's options). The sample count, the pass size,
/// the BVH builder, the schedule and the backend are left out: they do not change the samples.
pub fn fingerprint(scene: &Scene, settings: &Settings) -> u64 {
    let mut h = Fnv::new();
    h.f32s(scene.positions.iter().flat_map(|p| p.to_array()));
    h.f32s(scene.normals.iter().flat_map(|p| p.to_array()));
    h.f32s(scene.uvs.iter().flat_map(|p| p.to_array()));
    for t in &scene.triangles {
        t.iter().for_each(|&i| h.u32(i));
    }
    scene.triangle_materials.iter().for_each(|&m| h.u32(m));
    scene.triangle_media.iter().for_each(|&m| h.u32(m));
    h.text(&format!("{:?}", scene.materials));
    for t in &scene.textures {
        h.u32(t.width);
        h.u32(t.height);
        h.f32s(t.pixels.iter().flat_map(|p| p.to_array()));
    }
    h.text(&format!("{:?}", scene.camera));
    match &scene.environment {
        warpath_core::light::Environment::Map(map) => {
            h.u32(map.width);
            h.u32(map.height);
            h.f32s(map.pixels.iter().flat_map(|p| p.to_array()));
        }
        other => h.text(&format!("{other:?}")),
    }
    for m in &scene.media {
        use warpath_volume::{MediumAlbedo, MediumDensity};
        h.text(&format!("{:?} {:?} {}", m.to_world, m.g, m.name));
        match &m.density {
            MediumDensity::Homogeneous { sigma_t } => h.f32s(sigma_t.to_array()),
            MediumDensity::Grid { density, scale } => {
                h.f32s([*scale]);
                density.resolution.iter().for_each(|&r| h.u32(r));
                h.f32s(density.data.iter().copied());
            }
        }
        match &m.albedo {
            MediumAlbedo::Constant(a) => h.f32s(a.to_array()),
            MediumAlbedo::Grid(grid) => {
                grid.resolution.iter().for_each(|&r| h.u32(r));
                h.f32s(grid.data.iter().copied());
            }
        }
    }
    h.u32(scene.camera_medium.map_or(u32::MAX, |m| m));
    for iso in &scene.isosurfaces {
        let s = &iso.surface;
        s.lattice.samples.iter().for_each(|&n| h.u32(n));
        h.f32s(s.lattice.values.iter().copied());
        h.f32s([s.isovalue]);
        h.u32(iso.material);
        h.text(&format!("{:?}", s.world_bounds));
    }
    let s = &settings.scene;
    h.text(&format!(
        "{} {} {} {} {:?} {} {:?}",
        s.width, s.height, s.max_depth, s.seed, s.sampler, s.rr_threshold, settings.integrator
    ));
    if settings.integrator.is_frame_based() {
        h.text(&format!("{:?}", settings.restir));
    }
    h.0
}

impl FilmPart {
    /// The part in the `.wfilm` layout (what [`FilmPart::write`] writes), e.g. to send it
    /// between processes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(64 + self.film.pixel_count() * 52);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&self.fingerprint.to_le_bytes());
        for v in [self.film.width, self.film.height, self.samples.start, self.samples.end] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.extend_from_slice(&(self.provenance.len() as u32).to_le_bytes());
        bytes.extend_from_slice(self.provenance.as_bytes());
        for i in 0..self.film.pixel_count() {
            for v in self.film.sum[i].to_array().into_iter().chain(self.film.sum_sq[i].to_array()) {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            bytes.extend_from_slice(&self.film.count[i].to_le_bytes());
        }
        let mut h = Fnv::new();
        h.bytes(&bytes);
        bytes.extend_from_slice(&h.0.to_le_bytes());
        bytes
    }

    /// Writes the part to `path` (through a temporary file renamed into place).
    pub fn write(&self, path: &Path) -> Result<()> {
        let bytes = self.to_bytes();
        let temporary = path.with_extension("wfilm.tmp");
        let io = |e: std::io::Error| Error::invalid(format!("{}: cannot write the film: {e}", path.display()));
        let mut file = std::fs::File::create(&temporary).map_err(io)?;
        file.write_all(&bytes).map_err(io)?;
        file.sync_all().map_err(io)?;
        std::fs::rename(&temporary, path).map_err(io)
    }

    /// Reads a part; a file that is not a film, truncated or damaged is an error naming it.
    pub fn read(path: &Path) -> Result<FilmPart> {
        let bytes = std::fs::read(path).map_err(|e| Error::invalid(format!("{}: cannot read: {e}", path.display())))?;
        FilmPart::from_bytes(&bytes, &path.display().to_string())
    }

    /// A part from its `.wfilm` bytes ([`FilmPart::to_bytes`]); errors name it `name`.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<FilmPart> {
        let bad = |why: &str| Error::invalid(format!("{name}: {why}"));
        if bytes.len() < 8 + 8 + 20 + 8 || &bytes[..8] != MAGIC {
            return Err(bad("not a warpath film (.wfilm written by `warpath render --film`)"));
        }
        let (body, check) = bytes.split_at(bytes.len() - 8);
        let mut h = Fnv::new();
        h.bytes(body);
        if h.0.to_le_bytes() != check {
            return Err(bad("damaged: its checksum does not match its content"));
        }
        let mut at = 8;
        let mut take = |n: usize| -> Result<&[u8]> {
            let slice = body.get(at..at + n).ok_or_else(|| bad("truncated"))?;
            at += n;
            Ok(slice)
        };
        let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
        let fingerprint = u64_at(take(8)?);
        let width = u32_at(take(4)?);
        let height = u32_at(take(4)?);
        let samples = u32_at(take(4)?)..u32_at(take(4)?);
        let provenance_len = u32_at(take(4)?) as usize;
        let provenance = String::from_utf8_lossy(take(provenance_len)?).into_owned();
        let pixels = width as usize * height as usize;
        let header = 8 + 8 + 20 + provenance_len;
        if body.len() - header != pixels * 52 || samples.start > samples.end {
            return Err(bad("damaged: its size does not match its header"));
        }
        let mut film = Film::try_new(width, height)?;
        for i in 0..pixels {
            let mut v = [0f64; 6];
            for x in &mut v {
                *x = f64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
            }
            film.sum[i] = DVec3::new(v[0], v[1], v[2]);
            film.sum_sq[i] = DVec3::new(v[3], v[4], v[5]);
            film.count[i] = u32_at(take(4)?);
        }
        Ok(FilmPart { film, samples, fingerprint, provenance })
    }
}

/// Merges parts (read from `paths`, for messages) into one: they must come from the same scene
/// and settings (equal fingerprints and sizes) and hold disjoint sample ranges; they are added
/// in ascending order of their ranges. Returns the merged film and the ranges it holds.
pub fn merge(parts: Vec<(PathBuf, FilmPart)>) -> Result<(Film, Vec<Range<u32>>)> {
    let mut parts = parts;
    parts.sort_by_key(|(_, p)| (p.samples.start, p.samples.end));
    let Some((first_path, first)) = parts.first() else {
        return Err(Error::invalid("nothing to merge: give at least one .wfilm file"));
    };
    for (path, part) in &parts[1..] {
        if part.fingerprint != first.fingerprint {
            return Err(Error::invalid(format!(
                "{}: rendered from another scene or with other settings than {} (fingerprints {:016x} and {:016x})",
                path.display(),
                first_path.display(),
                part.fingerprint,
                first.fingerprint
            )));
        }
        if (part.film.width, part.film.height) != (first.film.width, first.film.height) {
            return Err(Error::invalid(format!(
                "{}: another image size than {}",
                path.display(),
                first_path.display()
            )));
        }
    }
    for pair in parts.windows(2) {
        let ((a_path, a), (b_path, b)) = (&pair[0], &pair[1]);
        if b.samples.start < a.samples.end {
            return Err(Error::invalid(format!(
                "{} (samples {}..{}) overlaps {} (samples {}..{}): each sample may be counted once",
                b_path.display(),
                b.samples.start,
                b.samples.end,
                a_path.display(),
                a.samples.start,
                a.samples.end
            )));
        }
    }
    let mut film = Film::try_new(first.film.width, first.film.height)?;
    for (_, part) in &parts {
        film.merge(&part.film);
    }
    Ok((film, parts.iter().map(|(_, p)| p.samples.clone()).collect()))
}
