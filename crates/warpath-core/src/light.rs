//! Lights: emissive triangles sampled by power, and the environment (a constant or an
//! equirectangular HDR map importance-sampled by luminance × sin θ).
//!
//! One [`LightSet`] holds both. Light sampling first picks a light from a discrete
//! distribution over `[triangle lights..., environment]` (weights proportional to an
//! estimate of emitted power), then a point or direction on it. All pdfs returned are
//! solid-angle densities at the shading point *including* the selection probability, so
//! the integrator can use them for MIS directly.
//!
//! Emission is one-sided by default: a triangle emits toward the side its geometric
//! normal `cross(v1 - v0, v2 - v0)` points to (as Mitsuba's area emitter does).
//!
//! Environment convention (Mitsuba's): a world direction `d` is rotated into the map's
//! frame by the inverse of `to_world`, then `u = frac(atan2(d.x, -d.z) / 2π)`,
//! `v = acos(d.y) / π`; pixel (0,0) is the top-left of the image (v = 0 is +y, "up").

use crate::color::luminance;
use crate::distribution::{Distribution1D, Distribution2D};
use crate::warp;
use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Vec2, Vec3};
use std::f32::consts::PI;

/// One emissive triangle, 64 bytes, GPU-readable.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct TriangleLight {
    pub p0: Vec3,
    pub area: f32,
    pub e1: Vec3,
    /// 1 if the triangle emits from both faces.
    pub two_sided: u32,
    pub e2: Vec3,
    /// Index of the triangle in the scene's triangle list.
    pub triangle: u32,
    pub emission: Vec3,
    pub _pad: f32,
}

impl TriangleLight {
    pub fn new(v0: Vec3, v1: Vec3, v2: Vec3, emission: Vec3, two_sided: bool, triangle: u32) -> Self {
        let (e1, e2) = (v1 - v0, v2 - v0);
        TriangleLight {
            p0: v0,
            area: 0.5 * e1.cross(e2).length(),
            e1,
            two_sided: two_sided as u32,
            e2,
            triangle,
            emission,
            _pad: 0.0,
        }
    }
    pub fn normal(&self) -> Vec3 {
        self.e1.cross(self.e2).normalize_or_zero()
    }
    /// Radiance leaving the triangle toward direction `w` (pointing away from it).
    pub fn radiance(&self, w: Vec3) -> Vec3 {
        if self.two_sided != 0 || self.normal().dot(w) > 0.0 { self.emission } else { Vec3::ZERO }
    }
    /// Emitted power estimate used for light selection.
    pub fn power(&self) -> f32 {
        luminance(self.emission) * self.area * PI * if self.two_sided != 0 { 2.0 } else { 1.0 }
    }
}

/// An equirectangular HDR environment map with its sampling distribution.
#[derive(Clone, Debug)]
pub struct EnvMap {
    pub width: u32,
    pub height: u32,
    /// Linear RGB, row-major, top row first.
    pub pixels: Vec<Vec3>,
    /// Over (u, v), weighted by luminance × sin θ of each pixel.
    pub distribution: Distribution2D,
    /// Rotation of the map into the world; directions are mapped with its transpose.
    pub to_world: Mat3,
    /// Radiance multiplier.
    pub scale: f32,
}

/// What lights rays that leave the scene.
#[derive(Clone, Debug, Default)]
pub enum Environment {
    #[default]
    None,
    Constant(Vec3),
    Map(EnvMap),
}

/// A light sample seen from a shading point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightSample {
    /// Unit direction from the shading point toward the light.
    pub wi: Vec3,
    /// Distance to the sampled point (`f32::INFINITY` for the environment).
    pub distance: f32,
    /// Radiance arriving along `-wi`.
    pub radiance: Vec3,
    /// Solid-angle pdf, selection probability included.
    pub pdf: f32,
}

/// Every light of a scene and the distribution that selects among them.
#[derive(Clone, Debug, Default)]
pub struct LightSet {
    pub triangles: Vec<TriangleLight>,
    /// For every scene triangle, its index in `triangles`, or -1.
    pub triangle_to_light: Vec<i32>,
    pub environment: Environment,
    /// Selection over `triangles` followed by one bin for the environment when present.
    pub selection: Distribution1D,
}

impl LightSet {
    /// `scene_radius` sizes the environment's power estimate (radius of the bounding
    /// sphere of the scene).
    pub fn new(
        triangles: Vec<TriangleLight>,
        num_scene_triangles: usize,
        environment: Environment,
        scene_radius: f32,
    ) -> Self {
        let mut triangle_to_light = vec![-1; num_scene_triangles];
        for (i, t) in triangles.iter().enumerate() {
            triangle_to_light[t.triangle as usize] = i as i32;
        }
        let mut weights: Vec<f32> = triangles.iter().map(|t| t.power()).collect();
        let env_mean = match &environment {
            Environment::None => None,
            Environment::Constant(c) => Some(luminance(*c)),
            Environment::Map(m) => Some(m.mean_luminance()),
        };
        if let Some(mean) = env_mean {
            let r = scene_radius.max(1e-3);
            weights.push((mean * PI * r * r * 4.0 * PI).max(1e-12));
        }
        let selection = Distribution1D::new(&weights);
        LightSet { triangles, triangle_to_light, environment, selection }
    }

    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty() && matches!(self.environment, Environment::None)
    }

    fn has_environment(&self) -> bool {
        !matches!(self.environment, Environment::None)
    }

    /// Samples a light as seen from `p`.
    pub fn sample(&self, p: Vec3, u_select: f32, u: Vec2) -> Option<LightSample> {
        if self.selection.count() == 0 {
            return None;
        }
        let (index, select_pdf) = self.selection.sample_discrete(u_select);
        if index < self.triangles.len() {
            let light = &self.triangles[index];
            let b = warp::square_to_triangle(u);
            let q = light.p0 + light.e1 * b.x + light.e2 * b.y;
            let to = q - p;
            let dist2 = to.length_squared();
            if dist2 <= 0.0 || light.area <= 0.0 {
                return None;
            }
            let dist = dist2.sqrt();
            let wi = to / dist;
            let cos_l = light.normal().dot(-wi).abs();
            let radiance = light.radiance(-wi);
            if cos_l <= 0.0 || radiance == Vec3::ZERO {
                return None;
            }
            let pdf = select_pdf * dist2 / (cos_l * light.area);
            Some(LightSample { wi, distance: dist, radiance, pdf })
        } else {
            let (wi, pdf_dir) = self.sample_environment(u)?;
            Some(LightSample {
                wi,
                distance: f32::INFINITY,
                radiance: self.environment_radiance(wi),
                pdf: select_pdf * pdf_dir,
            })
        }
    }

    /// Solid-angle pdf with which [`sample`](Self::sample) from `p` picks triangle light
    /// `light` at the point `p + wi · distance`.
    pub fn pdf_triangle(&self, light: usize, wi: Vec3, distance: f32) -> f32 {
        let l = &self.triangles[light];
        let cos_l = l.normal().dot(wi).abs();
        if cos_l <= 0.0 || l.area <= 0.0 {
            return 0.0;
        }
        self.selection.discrete_pdf(light) * distance * distance / (cos_l * l.area)
    }

    /// Solid-angle pdf with which [`sample`](Self::sample) picks environment direction `wi`.
    pub fn pdf_environment(&self, wi: Vec3) -> f32 {
        if !self.has_environment() {
            return 0.0;
        }
        self.selection.discrete_pdf(self.triangles.len()) * self.environment_pdf_direction(wi)
    }

    /// Radiance arriving from the environment along `-wi` (i.e. seen looking along `wi`).
    pub fn environment_radiance(&self, wi: Vec3) -> Vec3 {
        match &self.environment {
            Environment::None => Vec3::ZERO,
            Environment::Constant(c) => *c,
            Environment::Map(m) => m.radiance(wi),
        }
    }

    fn sample_environment(&self, u: Vec2) -> Option<(Vec3, f32)> {
        match &self.environment {
            Environment::None => None,
            Environment::Constant(_) => Some((warp::square_to_uniform_sphere(u), warp::UNIFORM_SPHERE_PDF)),
            Environment::Map(m) => m.sample(u),
        }
    }

    fn environment_pdf_direction(&self, wi: Vec3) -> f32 {
        match &self.environment {
            Environment::None => 0.0,
            Environment::Constant(_) => warp::UNIFORM_SPHERE_PDF,
            Environment::Map(m) => m.pdf(wi),
        }
    }
}

impl EnvMap {
    /// Builds the map and its luminance × sin θ sampling distribution.
    pub fn new(width: u32, height: u32, pixels: Vec<Vec3>, to_world: Mat3, scale: f32) -> Self {
        let _ = (width, height, pixels, to_world, scale);
        todo!("EnvMap::new")
    }
    /// Radiance seen looking along world direction `wi`.
    pub fn radiance(&self, wi: Vec3) -> Vec3 {
        let _ = wi;
        todo!("EnvMap::radiance")
    }
    /// Samples a world direction; returns it with its solid-angle pdf.
    pub fn sample(&self, u: Vec2) -> Option<(Vec3, f32)> {
        let _ = u;
        todo!("EnvMap::sample")
    }
    /// Solid-angle pdf of [`sample`](Self::sample) producing `wi`.
    pub fn pdf(&self, wi: Vec3) -> f32 {
        let _ = wi;
        todo!("EnvMap::pdf")
    }
    /// Mean luminance over the sphere (solid-angle weighted), times `scale`.
    pub fn mean_luminance(&self) -> f32 {
        todo!("EnvMap::mean_luminance")
    }
}
