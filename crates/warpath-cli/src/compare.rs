//! `warpath compare`: do two renders agree within Monte Carlo noise? A per-pixel z test over
//! their means and variances of the mean (`render --variance-output`), and the RMSE of one
//! against the other.

use anyhow::{Result, bail};

#[derive(clap::Args, Clone, Debug)]
pub struct CompareArgs {
    /// First image (linear EXR).
    pub a: std::path::PathBuf,
    /// Its per-pixel variance of the mean (`--variance-output`).
    pub a_variance: std::path::PathBuf,
    /// Second image.
    pub b: std::path::PathBuf,
    pub b_variance: std::path::PathBuf,
    /// Fail when the mean of z² exceeds this.
    #[arg(long, default_value_t = 1.5)]
    pub max_mean_z2: f64,
    /// Fail when more than this fraction of pixel channels has |z| > 4.
    #[arg(long, default_value_t = 0.01)]
    pub max_outliers: f64,
}

/// Reads a linear EXR for `compare`, size-checked like every image warpath reads.
fn read_linear_exr(path: &std::path::Path) -> Result<warpath_scene::Texture> {
    use warpath_scene::image_io::{ImageKind, load_image};
    if ImageKind::from_path(path) != Some(ImageKind::Exr) {
        bail!("{}: compare reads linear .exr images (`render -o x.exr --variance-output x_var.exr`)", path.display());
    }
    Ok(load_image(path)?)
}

/// Values `compare` cannot use: non-finite ones, and negative variances. Returns how many
/// channels hold one, and a description of the first.
fn unusable_values(image: &warpath_scene::Texture, is_variance: bool) -> Option<(usize, String)> {
    let mut count = 0;
    let mut first = None;
    for (i, p) in image.pixels.iter().enumerate() {
        for (c, name) in ["R", "G", "B"].into_iter().enumerate() {
            let v = p[c];
            if v.is_finite() && !(is_variance && v < 0.0) {
                continue;
            }
            count += 1;
            if first.is_none() {
                let (x, y) = (i % image.width as usize, i / image.width as usize);
                first = Some(format!("pixel ({x}, {y}) channel {name} = {v}"));
            }
        }
    }
    first.map(|f| (count, f))
}

/// Per pixel and channel, z = (a − b) / sqrt(var_a + var_b): if both renders estimate the
/// same image, z is close to standard normal (E[z²] = 1, |z| > 4 in 0.006%). Channels with
/// zero variance on both sides must be equal (up to 1e-6 relative) and are not counted. A
/// NaN or infinite value in any of the four images (or a negative variance) is a
/// disagreement, reported with where it is.
pub fn compare(args: &CompareArgs) -> Result<()> {
    let images = [
        (&args.a, read_linear_exr(&args.a)?, false),
        (&args.a_variance, read_linear_exr(&args.a_variance)?, true),
        (&args.b, read_linear_exr(&args.b)?, false),
        (&args.b_variance, read_linear_exr(&args.b_variance)?, true),
    ];
    let [(_, a_image, _), (_, va_image, _), (_, b_image, _), (_, vb_image, _)] = &images;
    let (aw, ah, bw, bh) = (a_image.width, a_image.height, b_image.width, b_image.height);
    if (aw, ah) != (bw, bh)
        || (va_image.width, va_image.height) != (aw, ah)
        || (vb_image.width, vb_image.height) != (bw, bh)
    {
        bail!("image sizes differ: {aw}x{ah} and {bw}x{bh} (or a variance image does not match its image)");
    }
    let mut unusable = Vec::new();
    for (path, image, is_variance) in &images {
        if let Some((count, first)) = unusable_values(image, *is_variance) {
            let what = if *is_variance { "NaN, infinite or negative" } else { "NaN or infinite" };
            println!("{}: {count} channel value(s) are {what} (the first: {first})", path.display());
            unusable.push(path.display().to_string());
        }
    }
    if !unusable.is_empty() {
        bail!("the renders disagree: {} hold(s) values that are not finite", unusable.join(", "));
    }
    let (a, va, b, vb) = (&a_image.pixels, &va_image.pixels, &b_image.pixels, &vb_image.pixels);
    let (mut sum_z2, mut n, mut outliers, mut max_z, mut exact, mut zero_var_mismatch) =
        (0.0f64, 0u64, 0u64, 0.0f64, 0u64, 0u64);
    for i in 0..a.len() {
        for c in 0..3 {
            let (x, y) = (a[i][c] as f64, b[i][c] as f64);
            let v = va[i][c] as f64 + vb[i][c] as f64;
            if x == y {
                exact += 1;
            }
            if v <= 0.0 {
                if (x - y).abs() > 1e-6 * x.abs().max(y.abs()).max(1e-12) {
                    zero_var_mismatch += 1;
                }
                continue;
            }
            let z = (x - y) / v.sqrt();
            sum_z2 += z * z;
            n += 1;
            outliers += (z.abs() > 4.0) as u64;
            max_z = max_z.max(z.abs());
        }
    }
    let mean = |img: &[glam::Vec3]| img.iter().map(|p| (p.x + p.y + p.z) as f64 / 3.0).sum::<f64>() / img.len() as f64;
    let mean_z2 = sum_z2 / n.max(1) as f64;
    let outlier_fraction = outliers as f64 / n.max(1) as f64;
    println!(
        "channels compared: {n} (exactly equal: {exact}); mean z² {mean_z2:.4}; |z| > 4: {outliers} ({:.4}%); max |z| {max_z:.2}; zero-variance mismatches: {zero_var_mismatch}",
        100.0 * outlier_fraction
    );
    println!("image means: a {:.6}, b {:.6} (b/a − 1 = {:+.4}%)", mean(a), mean(b), 100.0 * (mean(b) / mean(a) - 1.0));
    // The error of b when a is a converged reference (equal-time comparisons).
    let squares: f64 =
        a.iter().zip(b.iter()).map(|(p, q)| (0..3).map(|c| ((q[c] - p[c]) as f64).powi(2)).sum::<f64>()).sum();
    let rmse = (squares / (3 * a.len()).max(1) as f64).sqrt();
    println!("RMSE of b against a: {rmse:.6e} ({:.3}% of a's mean)", 100.0 * rmse / mean(a));
    // Written so that a NaN statistic fails.
    let agree = mean_z2 <= args.max_mean_z2 && outlier_fraction <= args.max_outliers && zero_var_mismatch == 0;
    if !agree {
        bail!("the renders disagree beyond Monte Carlo noise");
    }
    println!("agree within Monte Carlo noise");
    Ok(())
}
