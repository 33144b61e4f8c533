//! The yardstick's references: the path tracer (max depth 1) at many spp, rendered once per
//! scene, camera, size, backend and seed and cached as a little-endian float file under the
//! bench's `--cache` folder (the key's FNV-1a hash names the file).

use super::RestirArgs;
use anyhow::{Context, Result};
use glam::Vec3;
use std::path::Path;
use std::time::Instant;
use warpath_render::{Backend, Settings, prepare};
use warpath_scene::Scene;

/// The reference image of `scene` (its camera) with `settings`, from the cache or rendered
/// and cached.
pub(super) fn reference_image(
    scene: &Scene,
    settings: &Settings,
    backend: &Backend,
    args: &RestirArgs,
) -> Result<Vec<Vec3>> {
    let key = format!(
        "v1|{}|{}|{}|{}x{}|{}|{:?}|{}|{}",
        args.scene,
        scene.name,
        scene.triangle_soup().len(),
        settings.width(),
        settings.height(),
        settings.count,
        scene.camera,
        backend.name(),
        settings.scene.seed
    );
    let path = args.cache.join(format!("reference-{:016x}.bin", fnv1a(key.as_bytes())));
    if let Some(image) = read_reference(&path, settings.width(), settings.height()) {
        eprintln!("reference: {} (cached)", path.display());
        return Ok(image);
    }
    let start = Instant::now();
    let mut renderer = prepare(scene, settings, backend)?;
    let stop = std::sync::atomic::AtomicBool::new(false);
    let image = warpath_render::render(renderer.as_mut(), 0..settings.count, &stop, |_| {})?.film.mean();
    std::fs::create_dir_all(&args.cache).with_context(|| format!("cannot create {}", args.cache.display()))?;
    std::fs::write(&path, encode_reference(&image, settings.width(), settings.height()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!(
        "reference: {} spp in {:.1} s, cached in {}",
        settings.count,
        start.elapsed().as_secs_f64(),
        path.display()
    );
    Ok(image)
}

/// The cache file: "WPRSTREF", width and height (u32), then RGB f32, all little-endian.
fn encode_reference(image: &[Vec3], width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"WPRSTREF".to_vec();
    bytes.extend(width.to_le_bytes());
    bytes.extend(height.to_le_bytes());
    for c in image.iter().flat_map(|p| p.to_array()) {
        bytes.extend(c.to_le_bytes());
    }
    bytes
}

fn read_reference(path: &Path, width: u32, height: u32) -> Option<Vec<Vec3>> {
    let bytes = std::fs::read(path).ok()?;
    let n = width as usize * height as usize;
    if bytes.len() != 16 + 12 * n || &bytes[..8] != b"WPRSTREF" {
        return None;
    }
    let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
    if word(8) != width || word(12) != height {
        return None;
    }
    let f = |i: usize| f32::from_bits(word(16 + 4 * i));
    Some((0..n).map(|p| Vec3::new(f(3 * p), f(3 * p + 1), f(3 * p + 2))).collect())
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_cache_reads_what_it_wrote() {
        let dir = std::env::temp_dir().join(format!("warpath-restir-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.bin");
        let image: Vec<Vec3> = (0..6).map(|i| Vec3::new(i as f32, 0.5, -1.0)).collect();
        std::fs::write(&path, encode_reference(&image, 3, 2)).unwrap();
        assert_eq!(read_reference(&path, 3, 2), Some(image));
        assert_eq!(read_reference(&path, 2, 3), None, "another size is not this reference");
        std::fs::remove_dir_all(&dir).ok();
    }
}
