//! The knobs of ReSTIR DI (issue 15): shared by the CPU reference (`warpath_cpu::restir`) and
//! the GPU kernels (`warpath_cuda::restir`), so both read one set of defaults.

/// How reused reservoirs are weighted (RTXDI's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BiasCorrection {
    /// 1/M: cheap, biased where the pixels' domains differ.
    Off,
    /// Z counts the inputs whose surface sees the sample, visibility traced: unbiased.
    RayTraced,
    /// Pairwise MIS (Bitterli 2022; RTXDI): the pixel's own reservoir paired with each reused
    /// one by a balance heuristic on their targets (with visibility: one shadow ray per reused
    /// input, for the pixel's own sample) and M, so a reused sample's weight is bounded where
    /// the two targets differ (glossy surfaces under a moving camera). Unbiased.
    Pairwise,
}

impl BiasCorrection {
    pub fn name(self) -> &'static str {
        match self {
            BiasCorrection::Off => "off",
            BiasCorrection::RayTraced => "ray-traced",
            BiasCorrection::Pairwise => "pairwise",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [BiasCorrection::Off, BiasCorrection::RayTraced, BiasCorrection::Pairwise]
            .into_iter()
            .find(|b| b.name() == name)
    }
}

/// The knobs of a ReSTIR DI frame (the defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestirOptions {
    /// Candidates per pixel in initial RIS.
    pub candidates: u32,
    /// Draw candidates from the tile's light pool (else from the power distribution).
    pub light_pool: bool,
    pub temporal: bool,
    /// The previous reservoir's M is capped at this × the current M.
    pub temporal_cap: f32,
    /// Spatial reuse passes (0: none) of `neighbours` within `radius` pixels.
    pub spatial_passes: u32,
    pub neighbours: u32,
    pub radius: f32,
    pub bias: BiasCorrection,
    pub seed: u32,
}

impl Default for RestirOptions {
    fn default() -> Self {
        RestirOptions {
            candidates: 32,
            light_pool: true,
            temporal: true,
            temporal_cap: 20.0,
            spatial_passes: 1,
            neighbours: 5,
            radius: 30.0,
            bias: BiasCorrection::RayTraced,
            seed: 0,
        }
    }
}

/// Temporal reuse under a moving camera: where the previous frame's camera saw a world point.
/// Made on the host from the previous camera ([`Reprojection::of`]) and read by the CPU
/// reference and the GPU kernels alike (`RestirArgs.prev_to_camera` ...), in one order of
/// f32 operations so that both find the same pixel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reprojection {
    /// Rows 0..3 of the previous camera's world-to-camera matrix, row-major (3 × 4).
    pub to_camera: [f32; 12],
    /// The previous camera's position.
    pub position: [f32; 3],
    /// The previous camera's `tan_half_fov(width, height)`.
    pub tan_half_fov: [f32; 2],
}

impl Reprojection {
    /// The reprojection into `camera`'s image of `width × height` pixels.
    pub fn of(camera: &crate::camera::Camera, width: u32, height: u32) -> Reprojection {
        let m = camera.to_world.inverse().transpose().to_cols_array();
        let tan = camera.tan_half_fov(width, height);
        let p = camera.position();
        Reprojection {
            to_camera: m[..12].try_into().expect("12 of 16"),
            position: p.to_array(),
            tan_half_fov: tan.to_array(),
        }
    }

    /// The pixel (index `y·width + x`) whose film area contains the projection of `p` through
    /// the lens centre, and `p`'s distance from the camera; None behind the camera or outside
    /// the image.
    pub fn pixel(&self, p: glam::Vec3, width: u32, height: u32) -> Option<(u32, f32)> {
        let m = &self.to_camera;
        let row = |r: usize| ((m[4 * r] * p.x + m[4 * r + 1] * p.y) + m[4 * r + 2] * p.z) + m[4 * r + 3];
        let (x, y, z) = (row(0), row(1), row(2));
        if !(z > 0.0) {
            return None;
        }
        // generate_ray's film position inverted: x/z = (1 − 2·sx)·tan.x.
        let fx = (1.0 - x / (z * self.tan_half_fov[0])) * 0.5 * width as f32;
        let fy = (1.0 - y / (z * self.tan_half_fov[1])) * 0.5 * height as f32;
        if !(fx >= 0.0 && fx < width as f32 && fy >= 0.0 && fy < height as f32) {
            return None;
        }
        let (px, py) = ((fx as u32).min(width - 1), (fy as u32).min(height - 1));
        let d = [p.x - self.position[0], p.y - self.position[1], p.z - self.position[2]];
        let distance = ((d[0] * d[0] + d[1] * d[1]) + d[2] * d[2]).sqrt();
        Some((py * width + px, distance))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera::Camera;
    use glam::{Vec2, Vec3};

    /// A point on a camera ray through pixel (x + a, y + b) projects back into pixel (x, y),
    /// at the ray's distance; behind the camera or off the image it projects nowhere.
    #[test]
    fn reprojection_inverts_the_camera_ray() {
        let camera = Camera::look_at(Vec3::new(1.0, 2.0, 5.0), Vec3::new(0.0, 0.5, 0.0), Vec3::Y, 40.0);
        let (w, h) = (64, 48);
        let r = Reprojection::of(&camera, w, h);
        let mut hits = 0;
        for (x, y, a, b) in [(0, 0, 0.3, 0.7), (63, 47, 0.5, 0.5), (10, 30, 0.9, 0.1), (32, 24, 0.01, 0.99)] {
            let ray = camera.generate_ray(Vec2::new(x as f32 + a, y as f32 + b), w, h, Vec2::splat(0.5));
            for t in [0.5f32, 3.0, 40.0] {
                let p = ray.o + ray.d * t;
                let (pixel, distance) = r.pixel(p, w, h).expect("in view");
                assert_eq!(pixel, y * w + x, "pixel ({x}, {y}) at t {t}");
                assert!((distance - t).abs() <= 1e-4 * t, "{distance} vs {t}");
                hits += 1;
            }
            assert_eq!(r.pixel(ray.o - ray.d * 2.0, w, h), None, "behind");
        }
        assert_eq!(hits, 12);
        let side = camera.position() + camera.to_world.x_axis.truncate() * 10.0 + camera.to_world.z_axis.truncate();
        assert_eq!(r.pixel(side, w, h), None, "off the image");
    }
}
