//! Thin-lens perspective camera with Mitsuba's conventions: camera space looks down +z
//! with +x to the *left* and +y up (as `look_at` builds it), the field of view is given
//! in degrees along a chosen axis, and the image origin is the top-left corner.

use crate::math::Ray;
use crate::warp::square_to_disk_concentric;
use glam::{Mat4, Vec2, Vec3};
use serde::{Deserialize, Serialize};

/// Which image axis `fov` spans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FovAxis {
    X,
    Y,
    #[default]
    Smaller,
    Larger,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Camera-to-world transform (columns: left, up, forward, position).
    pub to_world: Mat4,
    /// Field of view in degrees along `fov_axis`.
    pub fov_degrees: f32,
    pub fov_axis: FovAxis,
    /// Radius of the thin lens in world units; 0 is a pinhole.
    pub aperture_radius: f32,
    /// Distance along the view axis that is in focus.
    pub focus_distance: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Camera::look_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y, 40.0)
    }
}

impl Camera {
    /// Builds `to_world` the way Mitsuba's `look_at` does.
    pub fn look_at(origin: Vec3, target: Vec3, up: Vec3, fov_degrees: f32) -> Self {
        Camera {
            to_world: look_at_matrix(origin, target, up),
            fov_degrees,
            fov_axis: FovAxis::Smaller,
            aperture_radius: 0.0,
            focus_distance: (target - origin).length().max(1e-3),
        }
    }

    pub fn position(&self) -> Vec3 {
        self.to_world.w_axis.truncate()
    }

    /// This camera turned `degrees` about the vertical (y) axis through the point it looks at
    /// (its focus distance ahead: a `look_at` target) — ReSTIR's moving camera (`--orbit`).
    pub fn orbited(&self, degrees: f32) -> Camera {
        let forward = self.to_world.z_axis.truncate().normalize_or(Vec3::Z);
        let pivot = self.position() + forward * self.focus_distance;
        let turn = Mat4::from_translation(pivot)
            * Mat4::from_rotation_y(degrees.to_radians())
            * Mat4::from_translation(-pivot);
        Camera { to_world: turn * self.to_world, ..*self }
    }

    /// tan(half angle) along x and y for an image of `width`×`height`.
    pub fn tan_half_fov(&self, width: u32, height: u32) -> Vec2 {
        let aspect = width as f32 / height as f32;
        let t = (0.5 * self.fov_degrees.to_radians()).tan();
        let along_x = match self.fov_axis {
            FovAxis::X => true,
            FovAxis::Y => false,
            FovAxis::Smaller => width <= height,
            FovAxis::Larger => width > height,
        };
        if along_x { Vec2::new(t, t / aspect) } else { Vec2::new(t * aspect, t) }
    }

    /// Primary ray through film position `film` (pixels, origin top-left, may be
    /// fractional) with lens sample `lens` in [0,1)².
    pub fn generate_ray(&self, film: Vec2, width: u32, height: u32, lens: Vec2) -> Ray {
        let tan = self.tan_half_fov(width, height);
        let sx = film.x / width as f32;
        let sy = film.y / height as f32;
        let dir_local = Vec3::new((1.0 - 2.0 * sx) * tan.x, (1.0 - 2.0 * sy) * tan.y, 1.0);
        let (origin_local, dir_local) = if self.aperture_radius > 0.0 {
            let l = self.aperture_radius * square_to_disk_concentric(lens);
            let focus = dir_local * self.focus_distance;
            let o = Vec3::new(l.x, l.y, 0.0);
            (o, focus - o)
        } else {
            (Vec3::ZERO, dir_local)
        };
        let o = self.to_world.transform_point3(origin_local);
        let d = self.to_world.transform_vector3(dir_local).normalize();
        Ray::new(o, d)
    }
}

/// Mitsuba's `look_at`: columns (left, up, dir, origin).
pub fn look_at_matrix(origin: Vec3, target: Vec3, up: Vec3) -> Mat4 {
    let dir = (target - origin).normalize();
    let left = up.cross(dir).normalize();
    let new_up = dir.cross(left);
    Mat4::from_cols(left.extend(0.0), new_up.extend(0.0), dir.extend(0.0), origin.extend(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn center_ray_looks_forward_and_right_is_right() {
        let cam = Camera::look_at(Vec3::new(0.0, 0.0, 3.9), Vec3::ZERO, Vec3::Y, 39.3077);
        let r = cam.generate_ray(Vec2::new(128.0, 128.0), 256, 256, Vec2::splat(0.5));
        assert!((r.d - -Vec3::Z).length() < 1e-5);
        // The right edge of the image looks toward +x when looking down -z with y up.
        let r = cam.generate_ray(Vec2::new(256.0, 128.0), 256, 256, Vec2::splat(0.5));
        assert!(r.d.x > 0.0);
        let t = (0.5f32 * 39.3077f32.to_radians()).tan();
        assert!((r.d.x / -r.d.z - t).abs() < 1e-4);
        // Top of the image looks up.
        let r = cam.generate_ray(Vec2::new(128.0, 0.0), 256, 256, Vec2::splat(0.5));
        assert!(r.d.y > 0.0);
    }
    #[test]
    fn thin_lens_focuses() {
        let mut cam = Camera::look_at(Vec3::ZERO, Vec3::new(0.0, 0.0, -5.0), Vec3::Y, 40.0);
        cam.aperture_radius = 0.2;
        cam.focus_distance = 5.0;
        let film = Vec2::new(30.0, 70.0);
        let a = cam.generate_ray(film, 100, 100, Vec2::new(0.1, 0.9));
        let b = cam.generate_ray(film, 100, 100, Vec2::new(0.8, 0.3));
        // Both rays pass through the same point on the focal plane z = -5.
        let pa = a.at((-5.0 - a.o.z) / a.d.z);
        let pb = b.at((-5.0 - b.o.z) / b.d.z);
        assert!((pa - pb).length() < 1e-4, "{pa} {pb}");
        assert!((a.o - b.o).length() > 0.01);
    }
}
