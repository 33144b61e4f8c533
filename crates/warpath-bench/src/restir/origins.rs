//! `warpath-bench restir`'s error by sample origin: each scored frame's per-pixel error over
//! the surface pixels, tallied by where the pixel's final reservoir sample came from
//! ([`SampleOrigin`]: this frame's light or BSDF candidates, temporal or spatial reuse, or
//! none) and by the material the pixel sees — each group's share of the pixels, of the squared
//! error and of the worst 0.1% of pixels (the tail that decides the RMSE), frame by frame.

use glam::Vec3;
use serde::Serialize;
use warpath_core::restir::SampleOrigin;

/// One group's shares over the scored frames.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Share {
    pub group: String,
    /// Share of the surface pixels.
    pub pixels: f64,
    /// Share of the summed squared error (relative to the reference's mean).
    pub squared_error: f64,
    /// The group's own RMSE, relative to the reference's mean.
    pub rmse: f64,
    /// Share of each frame's worst 0.1% of surface pixels.
    pub worst: f64,
}

#[derive(Clone, Copy, Default)]
struct Sums {
    pixels: u64,
    squared: f64,
    worst: u64,
}

/// One of the worst pixels of the scored frames.
#[derive(Clone, Debug, Serialize)]
pub struct Worst {
    pub x: u32,
    pub y: u32,
    /// The scored frame's index among the scored frames.
    pub frame: u32,
    pub origin: String,
    pub material: u32,
    /// Its error and the reference, relative to the reference's mean.
    pub error: f64,
    pub reference: f64,
}

/// How many of the worst pixels the tally keeps.
const WORST_KEPT: usize = 40;

/// The running tally of the scored frames.
pub struct Tally {
    origins: [Sums; 5],
    materials: Vec<Sums>,
    width: u32,
    frames: u32,
    worst: Vec<Worst>,
}

impl Tally {
    pub fn new(materials: usize, width: u32) -> Self {
        Tally {
            origins: [Sums::default(); 5],
            materials: vec![Sums::default(); materials + 1],
            width,
            frames: 0,
            worst: Vec::new(),
        }
    }

    /// The worst pixels of all scored frames, worst first.
    pub fn worst(&self) -> &[Worst] {
        &self.worst
    }

    /// Adds one frame: `image` against `reference` over `mask`, each pixel's origin and
    /// material (u32::MAX: none; tallied last).
    pub fn add(
        &mut self,
        image: &[Vec3],
        reference: &[Vec3],
        mask: &[bool],
        origins: &[SampleOrigin],
        materials: &[u32],
    ) {
        let mut errors = Vec::new();
        let mut mean = 0.0f64;
        for i in 0..image.len() {
            if mask[i] {
                errors.push((super::pixel_error(image[i], reference[i]), i));
                let r = reference[i];
                mean += (r.x as f64 + r.y as f64 + r.z as f64) / 3.0;
            }
        }
        let n = errors.len();
        if n == 0 || !(mean > 0.0) {
            return;
        }
        let norm = mean / n as f64;
        errors.sort_by(|a, b| b.0.total_cmp(&a.0));
        let worst = n.div_ceil(1000);
        let last = self.materials.len() - 1;
        for &(e, i) in errors.iter().take(WORST_KEPT) {
            let r = reference[i];
            self.worst.push(Worst {
                x: i as u32 % self.width,
                y: i as u32 / self.width,
                frame: self.frames,
                origin: origins[i].name().into(),
                material: materials[i],
                error: e / norm,
                reference: (r.x as f64 + r.y as f64 + r.z as f64) / 3.0 / norm,
            });
        }
        self.worst.sort_by(|a, b| b.error.total_cmp(&a.error));
        self.worst.truncate(WORST_KEPT);
        self.frames += 1;
        for (rank, (e, i)) in errors.into_iter().enumerate() {
            let e = e / norm;
            let material = (materials[i] as usize).min(last);
            for sums in [&mut self.origins[origins[i] as usize], &mut self.materials[material]] {
                sums.pixels += 1;
                sums.squared += e * e;
                sums.worst += (rank < worst) as u64;
            }
        }
    }

    fn shares(groups: &[Sums], names: impl Fn(usize) -> String) -> Vec<Share> {
        let pixels: u64 = groups.iter().map(|s| s.pixels).sum();
        let squared: f64 = groups.iter().map(|s| s.squared).sum();
        let worst: u64 = groups.iter().map(|s| s.worst).sum();
        let share = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        groups
            .iter()
            .enumerate()
            .filter(|(_, s)| s.pixels > 0)
            .map(|(k, s)| Share {
                group: names(k),
                pixels: share(s.pixels as f64, pixels as f64),
                squared_error: share(s.squared, squared),
                rmse: (s.squared / s.pixels as f64).sqrt(),
                worst: share(s.worst as f64, worst as f64),
            })
            .collect()
    }

    /// The shares by origin (origins no pixel had left out).
    pub fn by_origin(&self) -> Vec<Share> {
        Self::shares(&self.origins, |k| SampleOrigin::ALL[k].name().to_string())
    }

    /// The shares by material, `names` the scene's (the last group: no material), largest
    /// share of the worst 0.1% first.
    pub fn by_material(&self, names: &[String]) -> Vec<Share> {
        let mut rows = Self::shares(&self.materials, |k| names.get(k).cloned().unwrap_or_else(|| "(none)".into()));
        rows.sort_by(|a, b| b.worst.total_cmp(&a.worst).then(b.squared_error.total_cmp(&a.squared_error)));
        rows
    }
}

/// Prints a table of shares (`what`: the grouping's name).
pub fn print(what: &str, rows: &[Share]) {
    println!();
    println!("| ReSTIR by {what} | surface pixels | squared error | own RMSE | worst 0.1% |");
    println!("|---|---:|---:|---:|---:|");
    for r in rows {
        println!(
            "| {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
            r.group,
            100.0 * r.pixels,
            100.0 * r.squared_error,
            100.0 * r.rmse,
            100.0 * r.worst
        );
    }
}

/// The origin map's colour of `origin` (linear RGB): none dark grey, light candidates blue,
/// BSDF candidates cyan, temporal green, spatial orange.
pub fn colour(origin: SampleOrigin) -> Vec3 {
    match origin {
        SampleOrigin::None => Vec3::splat(0.02),
        SampleOrigin::LightCandidate => Vec3::new(0.05, 0.15, 1.0),
        SampleOrigin::BsdfCandidate => Vec3::new(0.0, 0.8, 0.8),
        SampleOrigin::Temporal => Vec3::new(0.05, 0.6, 0.05),
        SampleOrigin::Spatial => Vec3::new(1.0, 0.35, 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shares of a known frame: 2000 surface pixels, the one bad pixel temporal, the rest split.
    #[test]
    fn shares_of_a_known_frame() {
        let n = 2000;
        let reference = vec![Vec3::ONE; n];
        let mut image = vec![Vec3::splat(1.1); n];
        image[5] = Vec3::splat(11.0);
        image[6] = Vec3::splat(3.0);
        let origins: Vec<SampleOrigin> = (0..n)
            .map(|i| {
                if i == 5 {
                    SampleOrigin::Temporal
                } else if i % 2 == 0 {
                    SampleOrigin::Spatial
                } else {
                    SampleOrigin::LightCandidate
                }
            })
            .collect();
        let materials: Vec<u32> = (0..n).map(|i| if i < 10 { 1 } else { 0 }).collect();
        let mut mask = vec![true; n];
        mask[7] = false;
        let mut tally = Tally::new(2, 40);
        tally.add(&image, &reference, &mask, &origins, &materials);
        let rows = tally.by_origin();
        let row = |name: &str| rows.iter().find(|r| r.group == name).unwrap().clone();
        let total = 1997.0 * 0.01 + 100.0 + 4.0;
        let temporal = row("temporal");
        assert!((temporal.pixels - 1.0 / 1999.0).abs() < 1e-12);
        assert!((temporal.squared_error - 100.0 / total).abs() < 1e-5, "{temporal:?}");
        assert!((temporal.rmse - 10.0).abs() < 1e-5);
        assert_eq!((temporal.worst, row("light candidate").worst), (0.5, 0.0));
        assert_eq!(row("spatial").worst, 0.5, "pixel 6 (even) is the second worst of 2 (0.1% of 1999, rounded up)");
        assert!(rows.iter().all(|r| r.group != "none"), "no pixel had no sample");
        let materials = tally.by_material(&["a".into(), "b".into()]);
        assert_eq!((materials[0].group.as_str(), materials[0].worst), ("b", 1.0));
        assert!((materials.iter().map(|r| r.pixels).sum::<f64>() - 1.0).abs() < 1e-12);
        let worst = &tally.worst()[0];
        assert_eq!((worst.x, worst.y, worst.origin.as_str(), worst.material), (5, 0, "temporal", 1));
    }
}
