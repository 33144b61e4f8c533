//! RTXDI's boiling filter for ReSTIR's temporal reuse: in each 8×8 pixel group a reservoir
//! whose W is far above the group's mean nonzero W is emptied (the GPU's twin: restir.cu
//! `restir_boiling_filter`, which sums each group's W in this order).

use super::Reservoir;

/// Side of the pixel groups of the boiling filter (RTXDI's 8×8 thread groups).
pub const BOILING_GROUP: u32 = 8;

/// RTXDI's boiling filter (`RestirOptions::boiling_filter` = strength in (0, 1]): in each 8×8
/// pixel group, a reservoir whose W exceeds (10/strength − 9) × the group's mean nonzero W is
/// emptied, so that a rare bright sample does not spread through temporal and spatial reuse.
/// Biased (the emptied samples' light is lost); off at 0.
pub fn boiling_filter(width: u32, height: u32, strength: f32, reservoirs: &mut [Reservoir]) {
    let Some(multiplier) = warpath_core::restir::boiling_multiplier(strength) else { return };
    for gy in (0..height).step_by(BOILING_GROUP as usize) {
        for gx in (0..width).step_by(BOILING_GROUP as usize) {
            let pixels = || {
                (gy..(gy + BOILING_GROUP).min(height))
                    .flat_map(move |y| (gx..(gx + BOILING_GROUP).min(width)).map(move |x| (y * width + x) as usize))
            };
            let (sum, count) =
                pixels().map(|i| reservoirs[i].w).filter(|w| *w > 0.0).fold((0.0f32, 0u32), |(s, n), w| (s + w, n + 1));
            if count == 0 {
                continue;
            }
            let limit = sum / count as f32 * multiplier;
            for i in pixels() {
                if reservoirs[i].w > limit {
                    reservoirs[i] = Reservoir::default();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::restir::LightPoint;

    /// The boiling filter empties only the reservoir far above its 8×8 group's mean nonzero W
    /// (strength 0.2: 41×), leaves other groups (here one without any light) alone, and does
    /// nothing at strength 0.
    #[test]
    fn the_boiling_filter_empties_outliers_of_their_group() {
        let (w, h) = (16, 8);
        let lit = Reservoir { y: Some(LightPoint::default()), w_sum: 1.0, m: 32.0, w: 1.0, ..Default::default() };
        let mut reservoirs: Vec<Reservoir> =
            (0..w * h).map(|i| if i % w < 8 { lit } else { Reservoir::default() }).collect();
        // The group's mean nonzero W: (62 + 1000 + 100)/64 ≈ 18.2, so the limit is ≈ 744.
        reservoirs[3 * w as usize + 5].w = 1000.0;
        reservoirs[4 * w as usize + 2].w = 100.0; // under the limit: kept
        let before = reservoirs.clone();
        boiling_filter(w, h, 0.0, &mut reservoirs);
        assert_eq!(reservoirs, before, "strength 0 is off");
        boiling_filter(w, h, 0.2, &mut reservoirs);
        for (i, (a, b)) in reservoirs.iter().zip(&before).enumerate() {
            if i == 3 * w as usize + 5 {
                assert_eq!(*a, Reservoir::default(), "the outlier is emptied");
            } else {
                assert_eq!(a, b, "pixel {i} kept");
            }
        }
    }
}
