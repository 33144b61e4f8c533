//! Lights: emissive triangles sampled by power, the environment (a constant or an
//! equirectangular HDR map importance-sampled by luminance × sin θ), and delta lights
//! (point, spot and directional, Mitsuba 3's `point`, `spot` and `directional`).
//!
//! One [`LightSet`] holds them all. Light sampling first picks a light from a discrete
//! distribution over `[triangle lights..., environment, delta lights...]` (weights
//! proportional to an estimate of emitted power; see [`DeltaLight::power`]), then a point or
//! direction on it. All pdfs returned are solid-angle densities at the shading point
//! *including* the selection probability, so the integrator can use them for MIS directly;
//! a delta light's sample has `delta` set and its pdf is the selection probability alone
//! (no ray can hit it, so it takes no MIS weight).
//!
//! Emission is one-sided by default: a triangle emits toward the side its geometric
//! normal `cross(v1 - v0, v2 - v0)` points to (as Mitsuba's area emitter does).
//!
//! Environment convention (Mitsuba 3's `envmap`): a world direction `d` is rotated into the
//! map's frame by the inverse of `to_world`, then `u = frac(atan2(d.x, -d.z) / 2π)`,
//! `v = acos(d.y) / π`; pixel (0,0) is the top-left of the image (v = 0 is +y, "up"). The
//! lookup is bilinear between texel centres, which sit at u = (c + ½)/width (column
//! centres, φ periodic) and v = r/(height − 1) (the first and last rows on the poles).
//!
//! Environment sampling follows Mitsuba's too: its density over (u, v) is the bilinear
//! interpolant of per-texel weights luminance × sin θ(row), so it is proportional to the
//! radiance's luminance × sin θ up to the interpolation of sin θ. A patch between four texel
//! centres is chosen by its integral (a [`Distribution2D`] over the patches), then v inside
//! it from the marginal (linear in v), then u from the conditional (linear in u), each by
//! inverting a linear CDF ([`sample_linear`]); the pdf is the patch's probability times the
//! bilinear weight over the patch's mean weight, and the solid-angle pdf divides by
//! 2π² sin θ.

use crate::color::luminance;
use crate::detmath::{det_acos, det_atan2, det_sin_cos};
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

/// [`DeltaLight::kind`] values.
pub mod delta_kind {
    /// Mitsuba's `point`: `intensity` (W/sr) in every direction from `position`.
    pub const POINT: u32 = 0;
    /// Mitsuba's `spot`: `intensity` (W/sr) along `direction` from `position`, falling off
    /// linearly in angle from the beam width to the cutoff angle.
    pub const SPOT: u32 = 1;
    /// Mitsuba's `directional`: `irradiance` (W/m², on a surface facing the light) arriving
    /// along `direction` from infinitely far away.
    pub const DIRECTIONAL: u32 = 2;
}

/// A point, spot or directional light, 64 bytes, GPU-readable. Never hit by a ray: only
/// next-event estimation sees it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct DeltaLight {
    /// Where a point or spot light sits (unused by a directional one).
    pub position: Vec3,
    /// A [`delta_kind`] value.
    pub kind: u32,
    /// Unit vector: the spot's axis (the way it shines), or the way a directional light's
    /// light travels.
    pub direction: Vec3,
    /// Spot: cosine of the cutoff angle (black at and beyond it).
    pub cos_cutoff: f32,
    /// Intensity (W/sr) of a point or spot light (the spot's on its axis), or the irradiance
    /// (W/m²) of a directional one, linear RGB.
    pub intensity: Vec3,
    /// Spot: cosine of the beam width (full intensity inside it).
    pub cos_beam: f32,
    /// Spot: the cutoff angle in radians.
    pub cutoff: f32,
    /// Spot: 1 / (cutoff − beam width) in radians (0 when the two are equal).
    pub inv_transition: f32,
    pub _pad: [f32; 2],
}

impl DeltaLight {
    /// A point light at `position` of `intensity` W/sr.
    pub fn point(position: Vec3, intensity: Vec3) -> Self {
        DeltaLight { position, kind: delta_kind::POINT, intensity, ..Zeroable::zeroed() }
    }

    /// A spot light at `position` shining along `axis` (need not be unit), `intensity` W/sr on
    /// its axis, black from `cutoff_degrees` on, full inside `beam_degrees` (clamped to the
    /// cutoff) and falling off linearly in angle between (Mitsuba 3's `spot`).
    pub fn spot(position: Vec3, axis: Vec3, intensity: Vec3, cutoff_degrees: f32, beam_degrees: f32) -> Self {
        let cutoff = cutoff_degrees.to_radians();
        let beam = beam_degrees.to_radians().min(cutoff);
        let transition = cutoff - beam;
        DeltaLight {
            position,
            kind: delta_kind::SPOT,
            direction: axis.normalize_or_zero(),
            cos_cutoff: cutoff.cos(),
            intensity,
            cos_beam: beam.cos(),
            cutoff,
            inv_transition: if transition > 0.0 { 1.0 / transition } else { 0.0 },
            _pad: [0.0; 2],
        }
    }

    /// A directional light whose light travels along `direction` (need not be unit) with
    /// `irradiance` W/m² (Mitsuba 3's `directional`).
    pub fn directional(direction: Vec3, irradiance: Vec3) -> Self {
        DeltaLight {
            kind: delta_kind::DIRECTIONAL,
            direction: direction.normalize_or_zero(),
            intensity: irradiance,
            ..Zeroable::zeroed()
        }
    }

    /// The spot's falloff toward unit direction `w` (pointing away from the light): 1 inside
    /// the beam, `(cutoff − θ) / (cutoff − beam)` between, 0 from the cutoff on (Mitsuba's
    /// linear ramp in angle). 1 for the other kinds.
    pub fn falloff(&self, w: Vec3) -> f32 {
        if self.kind != delta_kind::SPOT {
            return 1.0;
        }
        let cos_theta = self.direction.dot(w);
        if !(cos_theta > self.cos_cutoff) {
            return 0.0;
        }
        if cos_theta >= self.cos_beam {
            1.0
        } else {
            ((self.cutoff - det_acos(cos_theta.clamp(-1.0, 1.0))) * self.inv_transition).clamp(0.0, 1.0)
        }
    }

    /// Emitted power estimate used for light selection: 4π I for a point light,
    /// 2π I (1 − (cos cutoff + cos beam)/2) for a spot (the solid angle of a cone halfway
    /// between beam and cutoff, as pbrt-v4 estimates it), and π r² E for a directional light,
    /// whose light crosses the scene's bounding sphere of radius `scene_radius` (as Mitsuba's
    /// `directional` emits through that sphere); luminance of I or E.
    pub fn power(&self, scene_radius: f32) -> f32 {
        let l = luminance(self.intensity);
        match self.kind {
            delta_kind::POINT => 4.0 * PI * l,
            delta_kind::SPOT => 2.0 * PI * l * (1.0 - 0.5 * (self.cos_cutoff + self.cos_beam)),
            _ => PI * scene_radius * scene_radius * l,
        }
    }

    /// The light seen from `p`: direction toward it, distance (infinite for a directional
    /// light) and the radiance-like quantity the estimator multiplies by the BSDF (I · falloff
    /// / distance², or E). `None` when it sends nothing to `p`.
    pub fn illuminate(&self, p: Vec3) -> Option<(Vec3, f32, Vec3)> {
        if self.kind == delta_kind::DIRECTIONAL {
            let wi = -self.direction;
            if wi == Vec3::ZERO || self.intensity == Vec3::ZERO {
                return None;
            }
            return Some((wi, f32::INFINITY, self.intensity));
        }
        let to = self.position - p;
        let dist2 = to.length_squared();
        if !(dist2 > 0.0) {
            return None;
        }
        let dist = dist2.sqrt();
        let wi = to / dist;
        let falloff = self.falloff(-wi);
        let radiance = self.intensity * falloff / dist2;
        if radiance == Vec3::ZERO {
            return None;
        }
        Some((wi, dist, radiance))
    }
}

/// An equirectangular HDR environment map with Mitsuba's bilinear lookup, and a sampling
/// distribution whose density is the bilinear interpolant of luminance × sin θ (see the
/// module docs).
#[derive(Clone, Debug)]
pub struct EnvMap {
    pub width: u32,
    /// At least 2 (a one-row map is stored as two equal rows).
    pub height: u32,
    /// Linear RGB, row-major, top row first.
    pub pixels: Vec<Vec3>,
    /// Sampling weight of each texel: its luminance × sin θ of its row (θ = π r / (height − 1),
    /// so the pole rows weigh 0). The sampling density over (u, v) is the bilinear
    /// interpolant of these, laid out as the radiance is.
    pub weights: Vec<f32>,
    /// Over the `width × (height − 1)` patches between texel centres (patch (c, r) has the
    /// corner texels (c, r), (c + 1 mod width, r), (c, r + 1), (c + 1 mod width, r + 1)), each
    /// weighted by the sum of its four corner weights (a quarter of which is its integral).
    pub distribution: Distribution2D,
    /// Rotation of the map into the world; directions are mapped with its transpose.
    pub to_world: Mat3,
    /// Radiance multiplier.
    pub scale: f32,
    /// How many pixels were NaN or infinite in the input (they are stored as black).
    pub nonfinite_pixels: usize,
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
    /// Solid-angle pdf, selection probability included; for a delta light, the selection
    /// probability alone.
    pub pdf: f32,
    /// Whether the sample is of a delta light (no MIS weight: no ray can hit it).
    pub delta: bool,
}

/// Every light of a scene and the distribution that selects among them.
#[derive(Clone, Debug, Default)]
pub struct LightSet {
    pub triangles: Vec<TriangleLight>,
    /// For every scene triangle, its index in `triangles`, or -1.
    pub triangle_to_light: Vec<i32>,
    pub environment: Environment,
    /// Point, spot and directional lights.
    pub deltas: Vec<DeltaLight>,
    /// Selection over `triangles`, then one bin for the environment when present, then
    /// `deltas`.
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
        Self::with_delta_lights(triangles, num_scene_triangles, environment, Vec::new(), scene_radius)
    }

    /// [`LightSet::new`] with point, spot and directional lights too (selected by
    /// [`DeltaLight::power`]).
    pub fn with_delta_lights(
        triangles: Vec<TriangleLight>,
        num_scene_triangles: usize,
        environment: Environment,
        deltas: Vec<DeltaLight>,
        scene_radius: f32,
    ) -> Self {
        let mut triangle_to_light = vec![-1; num_scene_triangles];
        for (i, t) in triangles.iter().enumerate() {
            if let Some(slot) = triangle_to_light.get_mut(t.triangle as usize) {
                *slot = i as i32;
            }
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
        let r = scene_radius.max(1e-3);
        weights.extend(deltas.iter().map(|d| d.power(r).max(0.0)));
        let selection = Distribution1D::new(&weights);
        LightSet { triangles, triangle_to_light, environment, deltas, selection }
    }

    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty() && matches!(self.environment, Environment::None) && self.deltas.is_empty()
    }

    /// The selection bin of delta light 0 (after the triangles and the environment).
    pub fn delta_offset(&self) -> usize {
        self.triangles.len() + self.has_environment() as usize
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
            Some(LightSample { wi, distance: dist, radiance, pdf, delta: false })
        } else if index >= self.delta_offset() {
            let light = self.deltas.get(index - self.delta_offset())?;
            let (wi, distance, radiance) = light.illuminate(p)?;
            Some(LightSample { wi, distance, radiance, pdf: select_pdf, delta: true })
        } else {
            let (wi, pdf_dir) = self.sample_environment(u)?;
            Some(LightSample {
                wi,
                distance: f32::INFINITY,
                radiance: self.environment_radiance(wi),
                pdf: select_pdf * pdf_dir,
                delta: false,
            })
        }
    }

    /// Solid-angle pdf with which [`sample`](Self::sample) from `p` picks triangle light
    /// `light` at the point `p + wi · distance`. Zero where `sample` never returns a
    /// sample: the unlit back of a one-sided light, or an index that is not a light.
    pub fn pdf_triangle(&self, light: usize, wi: Vec3, distance: f32) -> f32 {
        let Some(l) = self.triangles.get(light) else {
            return 0.0;
        };
        let cos_l = l.normal().dot(wi).abs();
        if cos_l <= 0.0 || l.area <= 0.0 || l.radiance(-wi) == Vec3::ZERO {
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

/// Where a point (u, v) of the map lies among the texel centres: the patch of its four
/// nearest texels and the bilinear weights inside it (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnvPatch {
    /// Column of the left corners (the patch's index across).
    pub column: usize,
    /// Column of the right corners: `column + 1`, wrapping to 0 (φ is periodic).
    pub next_column: usize,
    /// Row of the upper corners (the patch's index down); the lower ones are `row + 1`.
    pub row: usize,
    /// Position inside the patch, each in [0, 1].
    pub fx: f32,
    pub fy: f32,
}

/// glam's `lerp`, `a · (1 − t) + b · t`, for scalars (the GPU spells it the same way).
#[inline]
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

/// A position in [0, 1] with density ∝ `(1 − x) a + x b` (a, b ≥ 0), by inverting its CDF in
/// the form `u (a + b) / (a + √((1 − u) a² + u b²))`, on weights scaled to a + b = 1. Uniform
/// when a + b is 0.
pub fn sample_linear(u: f32, a: f32, b: f32) -> f32 {
    let total = a + b;
    if !(total > 0.0) {
        return u;
    }
    let a = a / total;
    let b = b / total;
    let mix = a * a * (1.0 - u) + b * b * u;
    let denominator = a + mix.sqrt();
    if denominator > 0.0 { (u / denominator).min(1.0) } else { 0.0 }
}

impl EnvMap {
    /// Builds the map and its sampling distribution.
    ///
    /// Non-finite pixels become black and are counted in
    /// [`nonfinite_pixels`](Self::nonfinite_pixels) (so a loader can warn); negative
    /// components are clamped to 0. A pixel vector of the wrong length is padded with black
    /// or truncated, a zero-sized map becomes a black one, and a map of one row is stored as
    /// two equal rows (the lookup interpolates between rows). `to_world` must be a
    /// rotation; a non-finite or negative `scale` is treated as 0.
    pub fn new(width: u32, height: u32, mut pixels: Vec<Vec3>, to_world: Mat3, scale: f32) -> Self {
        let (width, height) = if width == 0 || height == 0 {
            pixels.clear();
            (1, 1)
        } else {
            (width, height)
        };
        let (w, h) = (width as usize, height as usize);
        pixels.resize(w * h, Vec3::ZERO);
        let mut nonfinite_pixels = 0;
        for p in pixels.iter_mut() {
            if p.is_finite() {
                *p = p.max(Vec3::ZERO);
            } else {
                *p = Vec3::ZERO;
                nonfinite_pixels += 1;
            }
        }
        let (height, h) = if h == 1 {
            pixels.extend_from_within(..);
            (2, 2)
        } else {
            (height, h)
        };
        let mut weights = Vec::with_capacity(w * h);
        for row in 0..h {
            let sin_theta =
                if row == 0 || row == h - 1 { 0.0 } else { (std::f64::consts::PI * row as f64 / (h - 1) as f64).sin() };
            weights.extend(pixels[row * w..(row + 1) * w].iter().map(|&p| luminance(p) * sin_theta as f32));
        }
        let mut patch_weights = Vec::with_capacity(w * (h - 1));
        for row in 0..h - 1 {
            for column in 0..w {
                let next = if column + 1 == w { 0 } else { column + 1 };
                let (top, bottom) = (row * w, (row + 1) * w);
                patch_weights.push(
                    weights[top + column] + weights[top + next] + weights[bottom + column] + weights[bottom + next],
                );
            }
        }
        let distribution = Distribution2D::new(&patch_weights, w, h - 1);
        let scale = if scale.is_finite() && scale > 0.0 { scale } else { 0.0 };
        EnvMap { width, height, pixels, weights, distribution, to_world, scale, nonfinite_pixels }
    }

    /// Map coordinates (u, v) ∈ [0,1)×[0,1] of world direction `wi` (need not be normalized).
    pub fn direction_to_uv(&self, wi: Vec3) -> Vec2 {
        let d = (self.to_world.transpose() * wi).normalize_or_zero();
        let u = det_atan2(d.x, -d.z) * (0.5 / PI);
        let u = u - u.floor();
        let v = det_acos(d.y.clamp(-1.0, 1.0)) / PI;
        Vec2::new(if u < 1.0 { u } else { 0.0 }, v)
    }

    /// World direction of map coordinates (u, v); inverse of [`direction_to_uv`](Self::direction_to_uv).
    pub fn uv_to_direction(&self, uv: Vec2) -> Vec3 {
        let (sin_phi, cos_phi) = det_sin_cos(2.0 * PI * uv.x);
        let (sin_theta, cos_theta) = det_sin_cos(PI * uv.y);
        self.to_world * Vec3::new(sin_theta * sin_phi, cos_theta, -sin_theta * cos_phi)
    }

    /// The patch of texel centres around (u, v): texel (c, r) sits at
    /// u = (c + ½) / width (φ wraps around) and v = r / (height − 1) (clamped at the poles).
    pub fn patch(&self, uv: Vec2) -> EnvPatch {
        let columns = self.width as f32;
        let rows = (self.height - 1) as f32;
        let x = uv.x * columns - 0.5;
        let y = uv.y * rows;
        let x0 = x.floor().max(-1.0).min(columns - 1.0);
        let y0 = y.floor().max(0.0).min(rows - 1.0);
        let fx = (x - x0).clamp(0.0, 1.0);
        let fy = (y - y0).clamp(0.0, 1.0);
        let column = if x0 < 0.0 { self.width as usize - 1 } else { x0 as usize };
        let next_column = if column + 1 == self.width as usize { 0 } else { column + 1 };
        EnvPatch { column, next_column, row: y0 as usize, fx, fy }
    }

    /// `true` when the map is black everywhere and sampling falls back to uniform directions.
    fn is_black(&self) -> bool {
        self.distribution.total() <= 0.0
    }

    /// Radiance seen looking along world direction `wi`: the bilinear interpolation of the
    /// four texels around it, times `scale`.
    pub fn radiance(&self, wi: Vec3) -> Vec3 {
        let p = self.patch(self.direction_to_uv(wi));
        let w = self.width as usize;
        let (top, bottom) = (p.row * w, (p.row + 1) * w);
        let upper = self.pixels[top + p.column] * (1.0 - p.fx) + self.pixels[top + p.next_column] * p.fx;
        let lower = self.pixels[bottom + p.column] * (1.0 - p.fx) + self.pixels[bottom + p.next_column] * p.fx;
        self.scale * (upper * (1.0 - p.fy) + lower * p.fy)
    }

    /// The four corner weights of patch `p`: (upper left, upper right, lower left, lower right).
    fn corner_weights(&self, p: &EnvPatch) -> [f32; 4] {
        let w = self.width as usize;
        let (top, bottom) = (p.row * w, (p.row + 1) * w);
        [
            self.weights[top + p.column],
            self.weights[top + p.next_column],
            self.weights[bottom + p.column],
            self.weights[bottom + p.next_column],
        ]
    }

    /// Density over (u, v) at a point of patch `p`: the patch's probability (as the CDFs
    /// give it) times the bilinear weight there over the patch's mean weight.
    fn patch_pdf_uv(&self, p: &EnvPatch, cell_pdf: f32) -> f32 {
        let [a, b, c, d] = self.corner_weights(p);
        let sum = a + b + c + d;
        if !(sum > 0.0) {
            return 0.0;
        }
        let value = lerp(lerp(a, b, p.fx), lerp(c, d, p.fx), p.fy);
        cell_pdf * (value * 4.0 / sum)
    }

    /// Samples a world direction; returns it with its solid-angle pdf
    /// (`pdf_uv / (2π² sin θ)`, uniform `1/4π` for an all-black map): a patch by its
    /// integral, then v and u inside it from the bilinear density (each linear given the
    /// other).
    pub fn sample(&self, u: Vec2) -> Option<(Vec3, f32)> {
        if self.is_black() {
            return Some((warp::square_to_uniform_sphere(u), warp::UNIFORM_SPHERE_PDF));
        }
        let (column, row, remapped, cell_pdf) = self.distribution.sample_cell(u);
        let next_column = if column + 1 == self.width as usize { 0 } else { column + 1 };
        let mut p = EnvPatch { column, next_column, row, fx: 0.0, fy: 0.0 };
        let [a, b, c, d] = self.corner_weights(&p);
        p.fy = sample_linear(remapped.y, a + b, c + d);
        p.fx = sample_linear(remapped.x, lerp(a, c, p.fy), lerp(b, d, p.fy));
        let pdf_uv = self.patch_pdf_uv(&p, cell_pdf);
        let mut map_u = (column as f32 + p.fx + 0.5) / self.width as f32;
        if map_u >= 1.0 {
            map_u -= 1.0;
        }
        let map_v = (row as f32 + p.fy) / (self.height - 1) as f32;
        let (sin_theta, cos_theta) = det_sin_cos(PI * map_v);
        if pdf_uv <= 0.0 || sin_theta <= 0.0 {
            return None;
        }
        let (sin_phi, cos_phi) = det_sin_cos(2.0 * PI * map_u);
        let local = Vec3::new(sin_theta * sin_phi, cos_theta, -sin_theta * cos_phi);
        Some((self.to_world * local, pdf_uv / (2.0 * PI * PI * sin_theta)))
    }

    /// Solid-angle pdf of [`sample`](Self::sample) producing `wi` (0 exactly at the poles,
    /// a set of measure zero that `sample` never returns).
    pub fn pdf(&self, wi: Vec3) -> f32 {
        if self.is_black() {
            return warp::UNIFORM_SPHERE_PDF;
        }
        let d = (self.to_world.transpose() * wi).normalize_or_zero();
        let sin_theta = (d.x * d.x + d.z * d.z).sqrt();
        if sin_theta <= 0.0 {
            return 0.0;
        }
        let p = self.patch(self.direction_to_uv(wi));
        let pdf_uv = self.patch_pdf_uv(&p, self.distribution.cell_pdf(p.column, p.row));
        pdf_uv / (2.0 * PI * PI * sin_theta)
    }

    /// Mean luminance of the (bilinear) map over the sphere, solid-angle weighted, times `scale`.
    pub fn mean_luminance(&self) -> f32 {
        let (w, h) = (self.width as usize, self.height as usize);
        let luminance_at = |row: usize, column: usize| luminance(self.pixels[row * w + column]) as f64;
        let mut integral = 0.0f64;
        for row in 0..h - 1 {
            let (upper, lower) = patch_row_solid_angles(row, w, h);
            for column in 0..w {
                let next = if column + 1 == w { 0 } else { column + 1 };
                integral += upper * (luminance_at(row, column) + luminance_at(row, next)) * 0.5
                    + lower * (luminance_at(row + 1, column) + luminance_at(row + 1, next)) * 0.5;
            }
        }
        (integral / (4.0 * std::f64::consts::PI)) as f32 * self.scale
    }
}

/// For a patch of row `row` (between texel rows `row` and `row + 1`) of a `width × height`
/// map: the solid angles that weigh its upper and lower rows' values in the integral of the
/// bilinear interpolant over the patch, `∫ (1 − t) dω` and `∫ t dω` with t the position down
/// the patch (exact: θ runs linearly from π row/(h − 1) to π (row + 1)/(h − 1)).
pub fn patch_row_solid_angles(row: usize, width: usize, height: usize) -> (f64, f64) {
    use std::f64::consts::PI;
    let delta = PI / (height - 1) as f64;
    let (theta0, theta1) = (row as f64 * delta, (row + 1) as f64 * delta);
    // ∫₀¹ sin(θ0 + tΔ) Δ dt and ∫₀¹ t sin(θ0 + tΔ) Δ dt.
    let whole = theta0.cos() - theta1.cos();
    let lower = -theta1.cos() + (theta1.sin() - theta0.sin()) / delta;
    let phi = 2.0 * PI / width as f64;
    (phi * (whole - lower), phi * lower)
}
