#!/usr/bin/env python3
"""compare-images.py: do two renderers agree on a scene, within Monte Carlo noise?

    .venv/bin/python scripts/compare-images.py --a out/warpath-*.exr --b out/mitsuba-*.exr

Give K independent renders from renderer A (different seeds) and K' from renderer B
(EXR or .npy, linear RGB, same size; K, K' >= 3). The image is cut into blocks of
--block x --block pixels; for each block and channel, the mean over the block in each
render is one sample, and the spread of those samples across the renders gives a
standard error, so no noise model is assumed:

    z = (mean_A - mean_B) / sqrt(se_A^2 + se_B^2)

If both renderers estimate the same image, z is close to Student-t distributed with the
Welch-Satterthwaite degrees of freedom nu (about K + K' - 2): E[z^2] = nu/(nu-2) (about 1
for many renders; 1.17 for K = K' = 8) and P(|z| > 3) is about 0.27% for large nu
(1% for nu = 14). Both are printed beside the expected values.

Also compared: the mean luminance (Rec. 709) of the whole image, with its standard
error from the spread across renders: the most sensitive test of an overall bias.

It fails (exit 1) when  mean z^2 > expected * --z2-ratio (default 1.5),  or the global
mean luminances differ by more than --sigma (default 4) standard errors, or an image
holds NaN/inf. Exit 0 when they agree, 2 on bad input. --zmap FILE writes the per-block
z as an image (where do they differ?).
"""
import argparse
import math
import os
import sys

import numpy as np

LUMINANCE = np.array([0.2126, 0.7152, 0.0722])


def load(path):
    if path.endswith(".npy"):
        image = np.load(path)
    else:
        try:
            import mitsuba as mi
        except ImportError:
            sys.exit("compare-images: reading EXR needs mitsuba: use .venv/bin/python (scripts/setup-mitsuba)")
        if not mi.variant():
            mi.set_variant("scalar_rgb")
        image = np.array(mi.Bitmap(path))
    image = np.asarray(image, dtype=np.float64)
    if image.ndim == 2:
        image = image[:, :, None]
    return image[:, :, :3]


def load_set(paths, label):
    images = [load(p) for p in paths]
    shapes = {im.shape for im in images}
    if len(shapes) != 1:
        print(f"compare-images: set {label}: images differ in size: {sorted(shapes)}", file=sys.stderr)
        sys.exit(2)
    return np.stack(images)  # K x H x W x C


def block_means(stack, block):
    k, h, w, c = stack.shape
    h2, w2 = h - h % block, w - w % block
    s = stack[:, :h2, :w2, :].reshape(k, h2 // block, block, w2 // block, block, c)
    return s.mean(axis=(2, 4)).reshape(k, -1)  # K x (blocks*channels)


def t_tail(t, nu):
    """P(|T| > t) for Student's t with nu degrees of freedom (numerical integration)."""
    if nu > 1e4:
        return math.erfc(t / math.sqrt(2))
    x = np.linspace(0.0, t, 20001)
    log_c = math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)
    pdf = np.exp(log_c - (nu + 1) / 2 * np.log1p(x * x / nu))
    return max(0.0, 1.0 - 2.0 * float(np.sum((pdf[1:] + pdf[:-1]) * 0.5 * np.diff(x))))


def mean_and_se(samples):
    """Mean over axis 0 and its standard error (from the sample variance)."""
    k = samples.shape[0]
    return samples.mean(axis=0), samples.std(axis=0, ddof=1) / math.sqrt(k)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", nargs="+", required=True, help="renders from renderer A")
    ap.add_argument("--b", nargs="+", required=True, help="renders from renderer B")
    ap.add_argument("--names", default="A,B", help="names of A and B for the printout")
    ap.add_argument("--block", type=int, default=4, help="block size in pixels (default 4)")
    ap.add_argument("--z2-ratio", type=float, default=1.5, help="fail if mean z^2 > expected * this")
    ap.add_argument("--sigma", type=float, default=4.0, help="fail if global means differ by more SEs")
    ap.add_argument("--zmap", help="write the per-block z (blocks x blocks x channels) to this .exr or .npy")
    args = ap.parse_args()
    name_a, name_b = args.names.split(",")

    if len(args.a) < 3 or len(args.b) < 3:
        print("compare-images: need at least 3 renders per side to estimate the noise", file=sys.stderr)
        sys.exit(2)
    a, b = load_set(args.a, name_a), load_set(args.b, name_b)
    if a.shape[1:] != b.shape[1:]:
        print(f"compare-images: sizes differ: {name_a} {a.shape[1:]} vs {name_b} {b.shape[1:]}", file=sys.stderr)
        sys.exit(2)
    ka, kb = a.shape[0], b.shape[0]
    h, w, c = a.shape[1:]
    failures = []

    bad_a, bad_b = int((~np.isfinite(a)).sum()), int((~np.isfinite(b)).sum())
    if bad_a or bad_b:
        failures.append(f"non-finite values: {name_a} {bad_a}, {name_b} {bad_b}")
        a, b = np.nan_to_num(a, posinf=0, neginf=0), np.nan_to_num(b, posinf=0, neginf=0)

    # Per block and channel.
    mean_a, se_a = mean_and_se(block_means(a, args.block))
    mean_b, se_b = mean_and_se(block_means(b, args.block))
    var = se_a**2 + se_b**2
    usable = var > 0
    # No noise on either side (a black background, a block inside a light): equal to 1e-4.
    close = np.abs(mean_a - mean_b) <= 1e-4 * np.maximum(np.abs(mean_a), np.abs(mean_b))
    both_zero = (~usable) & close
    differ_with_no_noise = int(((~usable) & ~close).sum())
    z = (mean_a[usable] - mean_b[usable]) / np.sqrt(var[usable])
    z2 = float(np.mean(z**2))
    frac3 = float(np.mean(np.abs(z) > 3))
    frac4 = float(np.mean(np.abs(z) > 4))
    # Welch-Satterthwaite degrees of freedom per block, and what z looks like under the null.
    va, vb = se_a[usable] ** 2, se_b[usable] ** 2
    nu = var[usable] ** 2 / (va**2 / (ka - 1) + vb**2 / (kb - 1))
    nu_typ = float(np.median(nu))
    nu_c = np.maximum(nu, 2.5)  # E[t^2] is infinite for nu <= 2
    expected_z2 = float(np.mean(nu_c / (nu_c - 2)))
    expected_frac3 = t_tail(3.0, nu_typ)
    expected_frac4 = t_tail(4.0, nu_typ)

    if args.zmap:
        zmap = np.zeros(usable.shape)
        zmap[usable] = z
        zmap = zmap.reshape(h // args.block, w // args.block, c).astype(np.float32)
        if args.zmap.endswith(".npy"):
            np.save(args.zmap, zmap)
        else:
            import mitsuba as mi
            mi.Bitmap(zmap, pixel_format=mi.Bitmap.PixelFormat.RGB).write(args.zmap)

    # Whole image, mean luminance per render.
    lum_a = (a.mean(axis=(1, 2)) @ LUMINANCE) if c == 3 else a.mean(axis=(1, 2, 3))
    lum_b = (b.mean(axis=(1, 2)) @ LUMINANCE) if c == 3 else b.mean(axis=(1, 2, 3))
    ga, gsa = float(lum_a.mean()), float(lum_a.std(ddof=1) / math.sqrt(ka))
    gb, gsb = float(lum_b.mean()), float(lum_b.std(ddof=1) / math.sqrt(kb))
    gse = math.hypot(gsa, gsb)
    gz = (gb - ga) / gse if gse > 0 else (0.0 if ga == gb else math.inf)
    rel = gb / ga - 1 if ga != 0 else math.inf
    rel_se = abs(gb / ga) * math.hypot(gsa / ga, gsb / gb) if ga and gb else math.inf

    print(f"compare-images: {name_a}: {ka} renders, {name_b}: {kb} renders, {w}x{h}, "
          f"{args.block}x{args.block} blocks x {c} channels = {usable.size} values "
          f"({int(both_zero.sum())} noiseless and equal, skipped)")
    print(f"  mean z^2           {z2:.4f}   (expected {expected_z2:.3f} for median nu = {nu_typ:.1f}; "
          f"fail above {expected_z2 * args.z2_ratio:.3f})")
    print(f"  fraction |z| > 3   {100 * frac3:.3f}%  (expected {100 * expected_frac3:.3f}%)")
    print(f"  fraction |z| > 4   {100 * frac4:.3f}%  (expected {100 * expected_frac4:.3f}%)")
    print(f"  max |z|            {float(np.max(np.abs(z))) if z.size else 0.0:.2f}")
    print(f"  mean luminance     {name_a} {ga:.6f} +- {gsa:.6f}   {name_b} {gb:.6f} +- {gsb:.6f}")
    print(f"  {name_b}/{name_a} - 1        {100 * rel:+.4f}% +- {100 * rel_se:.4f}%   "
          f"({gz:+.2f} standard errors; fail beyond {args.sigma:g})")

    if differ_with_no_noise:
        failures.append(f"{differ_with_no_noise} values differ where both sides have zero variance")
    if z2 > expected_z2 * args.z2_ratio:
        failures.append(f"mean z^2 {z2:.3f} > {expected_z2 * args.z2_ratio:.3f}")
    if abs(gz) > args.sigma:
        failures.append(f"global mean luminance differs by {gz:+.2f} standard errors")
    if failures:
        print("compare-images: DISAGREE: " + "; ".join(failures))
        sys.exit(1)
    print("compare-images: AGREE within Monte Carlo noise")


if __name__ == "__main__":
    main()
