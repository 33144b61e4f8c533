//! `warpath merge`: partial renders of disjoint sample ranges (`render --samples A..B --film
//! part.wfilm`, on several machines or at several times) combined into the image of their
//! union. Parts of another scene or other settings, overlapping ranges and damaged files are
//! refused with the file's name.

use crate::output::{RenderMetadata, check_outputs, save_render};
use crate::progress::note;
use anyhow::Result;
use std::path::PathBuf;
use warpath_render::FilmPart;

#[derive(clap::Args, Clone, Debug)]
pub struct MergeArgs {
    /// The parts (.wfilm files written by `warpath render --film`).
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    /// The merged image: .exr (linear) or .png (tone-mapped).
    #[arg(short, long, default_value = "warpath.exr")]
    pub output: PathBuf,
    /// Also write each pixel's variance of the mean (a linear .exr).
    #[arg(long)]
    pub variance_output: Option<PathBuf>,
    /// Also write the merged film (a .wfilm holding the union), to merge with more parts later.
    #[arg(long)]
    pub film: Option<PathBuf>,
    /// Exposure scale applied to PNG output only, in stops (-64 to 64).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub exposure: f32,
}

pub fn run(args: &MergeArgs) -> Result<()> {
    let outputs = check_outputs(&args.output, args.variance_output.as_deref())?;
    let mut parts = Vec::new();
    for path in &args.parts {
        parts.push((path.clone(), FilmPart::read(path)?));
    }
    let fingerprint = parts[0].1.fingerprint;
    let provenance: Vec<String> =
        parts.iter().map(|(p, part)| format!("{}: {}", p.display(), part.provenance)).collect();
    let (film, ranges) = warpath_render::merge(parts)?;
    let samples: u32 = ranges.iter().map(|r| r.len() as u32).sum();
    let contiguous = ranges.windows(2).all(|w| w[0].end == w[1].start);
    let span = ranges.first().map(|r| r.start).unwrap_or(0)..ranges.last().map(|r| r.end).unwrap_or(0);
    let listed: Vec<String> = ranges.iter().map(|r| format!("{}..{}", r.start, r.end)).collect();
    note!("merging {} parts: samples {}", args.parts.len(), listed.join(", "));
    for line in provenance {
        note!("  {line}");
    }
    if let Some(path) = &args.film {
        if !contiguous {
            anyhow::bail!("--film: the parts leave gaps ({}); a film holds one range", listed.join(", "));
        }
        FilmPart { film: film.clone(), samples: span, fingerprint, provenance: "merged".into() }.write(path)?;
        note!("wrote {}", path.display());
    }
    let metadata = RenderMetadata {
        spp_done: samples,
        spp_requested: samples,
        interrupted: false,
        seed: 0,
        max_depth: 0,
        sampler: String::new(),
        backend: "merged".into(),
        scene: format!("{} parts", args.parts.len()),
    };
    let report = save_render(&outputs, &film, args.exposure, &metadata)?;
    for path in &report.written {
        note!("wrote {}", path.display());
    }
    eprintln!("merged {} parts: {}x{} at {samples} samples per pixel", args.parts.len(), film.width, film.height);
    for (path, reason, rescue) in &report.rescued {
        eprintln!("error: {reason}; the image was saved to {} instead of {}", rescue.display(), path.display());
    }
    if !report.rescued.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}
