//! Partial renders and several devices, on the CPU: parts of disjoint sample ranges written to
//! `.wfilm` files and merged equal one render of the union bit for bit; parts of another scene
//! or other settings, overlapping ranges and damaged files are refused with the file's name;
//! several devices sharing one queue of batches render the same film as one device.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use warpath_render::{Backend, FilmPart, Overrides, Settings, fingerprint, merge, prepare, render, render_on_devices};

fn settings(scene: &warpath_scene::Scene, spp: u32, seed: u32) -> Settings {
    let overrides = Overrides {
        spp: Some(spp),
        resolution: Some((20, 14)),
        pass_size: Some(2),
        seed: Some(seed),
        ..Default::default()
    };
    Settings::resolve(scene, &overrides).expect("valid")
}

/// Whether two films hold the same samples: equal counts, and sums equal up to the grouping of
/// their f64 additions (a few units in the last place; the grouping differs between one render
/// of a range and the merge of parts of it). Returns the number of sums that differ in any bit
/// and the largest relative difference.
fn same_samples(a: &warpath_render::Film, b: &warpath_render::Film) -> (usize, f64) {
    assert_eq!(a.count, b.count, "sample counts");
    let pairs = a.sum.iter().zip(&b.sum).chain(a.sum_sq.iter().zip(&b.sum_sq));
    let (mut differ, mut worst) = (0, 0.0f64);
    for (x, y) in pairs.flat_map(|(x, y)| x.to_array().into_iter().zip(y.to_array())) {
        if x.to_bits() != y.to_bits() {
            differ += 1;
            worst = worst.max((x - y).abs() / x.abs().max(y.abs()));
        }
    }
    assert!(worst <= 1e-14, "sums differ beyond round-off: {worst:e} ({differ} sums)");
    (differ, worst)
}

fn part(scene: &warpath_scene::Scene, settings: &Settings, samples: std::ops::Range<u32>) -> FilmPart {
    let never = AtomicBool::new(false);
    let backend = Backend::Cpu;
    let outcome =
        render(prepare(scene, settings, &backend).unwrap().as_mut(), samples.clone(), &never, |_| {}).unwrap();
    FilmPart { film: outcome.film, samples, fingerprint: fingerprint(scene, settings), provenance: "cpu".into() }
}

#[test]
fn parts_written_and_merged_equal_one_render_of_their_union() {
    let scene = warpath_scene::load("cornell").unwrap();
    let s = settings(&scene, 12, 5);
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    // Out of order on purpose: the merge sorts by range.
    for (k, range) in [(0u32, 8..12), (1, 0..4), (2, 4..8)] {
        let path = dir.path().join(format!("part{k}.wfilm"));
        part(&scene, &s, range).write(&path).unwrap();
        files.push(path);
    }
    let parts: Vec<(PathBuf, FilmPart)> = files.iter().map(|p| (p.clone(), FilmPart::read(p).unwrap())).collect();
    let (film, ranges) = merge(parts).unwrap();
    assert_eq!(ranges, vec![0..4, 4..8, 8..12]);
    let whole = part(&scene, &s, 0..12);
    let (differ, worst) = same_samples(&film, &whole.film);
    eprintln!(
        "merged parts vs one render: {differ} of {} sums differ in a bit, at most {worst:e}",
        6 * film.pixel_count()
    );
    // Merging the same parts again gives the same bits: the order is canonical.
    let again: Vec<(PathBuf, FilmPart)> = files.iter().rev().map(|p| (p.clone(), FilmPart::read(p).unwrap())).collect();
    assert_eq!(same_samples(&merge(again).unwrap().0, &film), (0, 0.0));
}

#[test]
fn mismatched_overlapping_and_damaged_parts_are_refused_by_name() {
    let scene = warpath_scene::load("cornell").unwrap();
    let s = settings(&scene, 4, 5);
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.wfilm");
    part(&scene, &s, 0..2).write(&a).unwrap();
    let read = |p: &PathBuf| (p.clone(), FilmPart::read(p).unwrap());

    let other_seed = dir.path().join("seed.wfilm");
    part(&scene, &settings(&scene, 4, 6), 2..4).write(&other_seed).unwrap();
    let e = merge(vec![read(&a), read(&other_seed)]).unwrap_err().to_string();
    assert!(e.contains("seed.wfilm") && e.contains("other settings"), "{e}");

    let furnace = warpath_scene::load("furnace").unwrap();
    let other_scene = dir.path().join("furnace.wfilm");
    part(&furnace, &settings(&furnace, 4, 5), 2..4).write(&other_scene).unwrap();
    let e = merge(vec![read(&a), read(&other_scene)]).unwrap_err().to_string();
    assert!(e.contains("furnace.wfilm") && e.contains("another scene"), "{e}");

    let overlap = dir.path().join("overlap.wfilm");
    part(&scene, &s, 1..3).write(&overlap).unwrap();
    let e = merge(vec![read(&a), read(&overlap)]).unwrap_err().to_string();
    assert!(e.contains("overlap.wfilm") && e.contains("overlaps"), "{e}");

    let mut bytes = std::fs::read(&a).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    let damaged = dir.path().join("damaged.wfilm");
    std::fs::write(&damaged, &bytes).unwrap();
    let e = FilmPart::read(&damaged).unwrap_err().to_string();
    assert!(e.contains("damaged.wfilm") && e.contains("checksum"), "{e}");
    let truncated = dir.path().join("short.wfilm");
    std::fs::write(&truncated, &std::fs::read(&a).unwrap()[..100]).unwrap();
    assert!(FilmPart::read(&truncated).unwrap_err().to_string().contains("short.wfilm"));
    let not_a_film = dir.path().join("x.wfilm");
    std::fs::write(&not_a_film, b"P6 1 1 255 abc").unwrap();
    assert!(FilmPart::read(&not_a_film).unwrap_err().to_string().contains("not a warpath film"));
}

#[test]
fn several_devices_render_the_film_of_one() {
    let scene = warpath_scene::load("cornell").unwrap();
    let s = settings(&scene, 16, 3);
    let never = AtomicBool::new(false);
    let backends = [Backend::Cpu, Backend::Cpu, Backend::Cpu];
    let mut seen = Vec::new();
    let outcome = render_on_devices(&scene, &s, &backends, 0..16, 2, &never, |done| seen.push(done)).unwrap();
    assert_eq!(outcome.done, 16);
    assert_eq!(seen.last(), Some(&16));
    assert_eq!(outcome.devices.iter().map(|d| d.batches).sum::<u32>(), 8, "{:?}", outcome.devices);
    assert!(outcome.devices.iter().all(|d| d.error.is_none()));
    let one = part(&scene, &s, 0..16);
    assert!(outcome.film.count.iter().all(|&c| c == 16));
    let (differ, worst) = same_samples(&outcome.film, &one.film);
    eprintln!(
        "three devices vs one: {differ} of {} sums differ in a bit, at most {worst:e}",
        6 * one.film.pixel_count()
    );
}

#[test]
fn restir_stays_on_one_device() {
    let scene = warpath_scene::load("many-lights:64").unwrap();
    let overrides = Overrides {
        frames: Some(2),
        resolution: Some((8, 8)),
        integrator: warpath_render::Integrator::RestirDi,
        ..Default::default()
    };
    let s = Settings::resolve(&scene, &overrides).unwrap();
    let never = AtomicBool::new(false);
    let e = render_on_devices(&scene, &s, &[Backend::Cpu, Backend::Cpu], 0..2, 1, &never, |_| {}).unwrap_err();
    assert!(e.to_string().contains("one device"), "{e}");
}

#[test]
fn a_part_in_memory_is_its_file_s_bytes() {
    let scene = warpath_scene::load("cornell").unwrap();
    let s = settings(&scene, 3, 2);
    let original = part(&scene, &s, 1..3);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("part.wfilm");
    original.write(&path).unwrap();
    let bytes = original.to_bytes();
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    let back = FilmPart::from_bytes(&bytes, "sent film").unwrap();
    assert_eq!((back.samples.clone(), back.fingerprint), (1..3, original.fingerprint));
    assert_eq!(same_samples(&back.film, &original.film), (0, 0.0));
    assert_eq!(back.film.count, original.film.count);
    let error = FilmPart::from_bytes(&bytes[..bytes.len() - 9], "sent film").unwrap_err().to_string();
    assert!(error.starts_with("sent film: "), "{error}");
}
