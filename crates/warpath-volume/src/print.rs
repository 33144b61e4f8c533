//! 3D-print albedo volumes (seed 003's `cgg-logo` and `ad` scenes): a block of constant
//! density whose albedo grid carries an image "printed" a few voxels deep into its top face,
//! and is white below.
//!
//! Layout: the top face is the +z face of the unit cube; the voxels with k ≥ nz − `depth`
//! take the image's colour, resampled bilinearly (pixel centres, clamp to edge) so that
//! the image spans the whole face: voxel column (i, j) reads the image at
//! u = (i + ½)/nx across the width and v = 1 − (j + ½)/ny down the height — image row 0
//! (the top row of the picture) lies at the largest y, so seen from +z with +y up the
//! image reads upright. Every other voxel has albedo `white` in all three channels. White
//! is 0.95 by default, not 1: an albedo of 1 everywhere below would make a lossless medium
//! whose paths only end by leaving it.

use crate::grid::VolumeGrid;
use glam::Vec3;

/// The default albedo below the printed layer.
pub const DEFAULT_WHITE: f32 = 0.95;

/// An RGB image in linear colour, row 0 at the top, `width × height` pixels row by row
/// (the layout of `warpath_scene::Texture::pixels`).
#[derive(Clone, Copy, Debug)]
pub struct PrintImage<'a> {
    pub width: u32,
    pub height: u32,
    pub pixels: &'a [Vec3],
}

impl PrintImage<'_> {
    /// Bilinear lookup at (`u`, `v`) ∈ [0, 1]², u across, v down, pixel centres at
    /// ((x + ½)/width, (y + ½)/height), clamp to edge.
    pub fn sample(&self, u: f32, v: f32) -> Vec3 {
        let axis = |t: f32, n: u32| {
            let pos = t * n as f32 - 0.5;
            let floor = pos.floor();
            let last = n as i64 - 1;
            ((floor as i64).clamp(0, last) as usize, (floor as i64 + 1).clamp(0, last) as usize, pos - floor)
        };
        let (x0, x1, fx) = axis(u, self.width);
        let (y0, y1, fy) = axis(v, self.height);
        let w = self.width as usize;
        let at = |x: usize, y: usize| self.pixels[y * w + x];
        let top = at(x0, y0).lerp(at(x1, y0), fx);
        let bottom = at(x0, y1).lerp(at(x1, y1), fx);
        top.lerp(bottom, fy)
    }
}

/// The 3-channel albedo grid of `resolution` with `image` printed `depth` voxels deep into
/// the +z face and `white` (in [0, 1]) below. A depth larger than nz prints through the
/// whole block. Errors: an image whose pixel count does not match its size, a grid past the
/// limit, a white outside [0, 1].
pub fn print_albedo(image: &PrintImage, resolution: [u32; 3], depth: u32, white: f32) -> Result<VolumeGrid, String> {
    let (w, h) = (image.width, image.height);
    if w == 0 || h == 0 || image.pixels.len() as u64 != w as u64 * h as u64 {
        return Err(format!("a {w}×{h} image needs {} pixels, it has {}", w as u64 * h as u64, image.pixels.len()));
    }
    let [nx, ny, nz] = resolution;
    crate::limits::check_grid("the printed albedo grid", resolution, 3)?;
    if !(0.0..=1.0).contains(&white) {
        return Err(format!("white albedo {white} must lie in [0, 1]"));
    }
    // The printed colour of each (i, j) column, computed once.
    let mut layer = Vec::with_capacity(nx as usize * ny as usize);
    for j in 0..ny {
        let v = 1.0 - (j as f32 + 0.5) / ny as f32;
        for i in 0..nx {
            layer.push(image.sample((i as f32 + 0.5) / nx as f32, v));
        }
    }
    let first_printed = nz.saturating_sub(depth);
    let mut data = Vec::with_capacity(VolumeGrid::value_count(resolution, 3).unwrap_or(0) as usize);
    for k in 0..nz {
        if k >= first_printed {
            for c in &layer {
                data.extend_from_slice(&[c.x, c.y, c.z]);
            }
        } else {
            data.resize(data.len() + layer.len() * 3, white);
        }
    }
    VolumeGrid::new(resolution, 3, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_pixel_lands_in_the_expected_voxel() {
        // A 4×2 image: pixel (x, y) = (x, y, 0.5) / 10, row 0 at the top.
        let pixels: Vec<Vec3> =
            (0..2).flat_map(|y| (0..4).map(move |x| Vec3::new(x as f32, y as f32, 5.0) / 10.0)).collect();
        let image = PrintImage { width: 4, height: 2, pixels: &pixels };
        // One voxel per pixel: no interpolation at the centres.
        let grid = print_albedo(&image, [4, 2, 5], 2, 0.95).unwrap();
        let rgb = |i, j, k| [0, 1, 2].map(|c| grid.voxel(i, j, k, c));
        // Image row 0 (top) at the largest y (j = 1), row 1 at j = 0.
        assert_eq!(rgb(3, 1, 4), [0.3, 0.0, 0.5]);
        assert_eq!(rgb(3, 0, 4), [0.3, 0.1, 0.5]);
        assert_eq!(rgb(0, 1, 3), [0.0, 0.0, 0.5]);
        // Two layers deep, white below.
        assert_eq!(rgb(3, 1, 2), [0.95; 3]);
        assert_eq!(rgb(0, 0, 0), [0.95; 3]);
    }

    #[test]
    fn resampling_is_bilinear_between_pixel_centres() {
        let pixels = [Vec3::ZERO, Vec3::ONE];
        let image = PrintImage { width: 2, height: 1, pixels: &pixels };
        // 4 voxels across 2 pixels: centres at u = 1/8, 3/8, 5/8, 7/8 → positions −0.25,
        // 0.25, 0.75, 1.25 in pixel units (clamped at the ends).
        let grid = print_albedo(&image, [4, 1, 1], 1, 0.95).unwrap();
        let red: Vec<f32> = (0..4).map(|i| grid.voxel(i, 0, 0, 0)).collect();
        assert_eq!(red, vec![0.0, 0.25, 0.75, 1.0]);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let pixels = [Vec3::ONE; 3];
        let image = PrintImage { width: 2, height: 2, pixels: &pixels };
        assert!(print_albedo(&image, [4, 4, 4], 1, 0.95).unwrap_err().contains("needs 4 pixels"));
        let image = PrintImage { width: 3, height: 1, pixels: &pixels };
        assert!(print_albedo(&image, [4, 4, 4], 1, 1.5).is_err());
        assert!(print_albedo(&image, [4, 0, 4], 1, 0.5).is_err());
        // Deeper than the block: printed through.
        let g = print_albedo(&image, [2, 2, 3], 10, 0.5).unwrap();
        assert_eq!(g.range(), (1.0, 1.0));
    }
}
