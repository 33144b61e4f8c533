//! The volumetric path tracer (seed 003; issue 11), the CPU reference of
//! `kernels/volume/estimator.cuh`, stage for stage with the same names:
//!
//! - [`generate`]: the camera path, starting in the camera's medium;
//! - [`extend`]: one step of a path, from its last vertex to the next one: trace to the next
//!   surface; inside a medium, sample a free flight toward it (delta tracking over the
//!   majorant grid). A real collision is a medium vertex: [`scatter_in_medium`] (next-event
//!   estimation through media, then a Henyey–Greenstein direction). Otherwise the surface is
//!   reached: an index-matched (`null`) boundary is crossed without a vertex (the medium
//!   changes, the step goes on); any other surface adds its emission and is a surface vertex
//!   (next-event estimation through media, then a BSDF direction; a transmission through a
//!   medium boundary changes the medium). A ray that escapes adds the environment.
//!   Returns whether the path goes on;
//! - shadow rays pass through media (ratio tracking) and index-matched boundaries, through
//!   an opacity mask with transmittance 1 − α, and stop at any other surface
//!   ([`shadow_transmittance`]).
//! - an opacity mask (`warpath_core::opacity`) is a surface vertex's material scaled by α and
//!   a null lobe chosen with probability 1 − α (a random number of the extend stream): the
//!   null lobe crosses the surface as an index-matched boundary, no vertex (Mitsuba's
//!   `volpath`); next-event estimation at the surface happens before the choice, either way.
//!
//! Conventions (Mitsuba 3 `volpath`, docs/scene-format.md): `max_depth` counts scattering
//! vertices, in the medium and on surfaces alike; crossing a `null` boundary is no vertex; a
//! medium vertex at bounce ≥ max_depth ends the path without next-event estimation, as a
//! surface vertex does after its emission. Emitters hit after a medium or BSDF vertex are
//! weighted against light sampling by the power heuristic, with the distance from that
//! vertex (through any null boundaries between). Russian roulette is warpath's (seed 000
//! §3.2), applied after every vertex.
//!
//! Random numbers: the vertex dimensions of the sampler at the path's bounce (light
//! selection and sample, phase/BSDF sample, roulette) and, for tracking, the counter-based
//! streams of `warpath_volume::random` keyed by the same bounce.

use crate::estimator::Estimator;
use crate::integrator::{PathCounters, SceneView, power_heuristic, surface_hit, triangle_opacity};
use glam::{Vec2, Vec3};
use warpath_core::bsdf;
use warpath_core::math::{Ray, offset_ray_origin};
use warpath_core::opacity;
use warpath_core::sampler::{VertexSampler, dims};
use warpath_volume::medium::{FreeFlight, Medium, TrackingCounts, interface};
use warpath_volume::phase::{hg_eval, hg_sample};
use warpath_volume::random::{STREAM_EXTEND, STREAM_SHADOW, TrackingRng};

/// The deepest vertex a path may reach: the GPU's stored path holds 19 bits of bounce, so
/// "no limit" (`max_depth = -1`) means this many vertices on both backends.
pub const MAX_VOLUME_DEPTH: u32 = (1 << 19) - 2;

/// Index-matched boundaries one ray may cross before the path (or shadow ray) gives up: a
/// guard against rays trapped by coincident surfaces.
pub const MAX_CROSSINGS: u32 = 256;

/// The volumetric path tracer's view of a scene: the surface estimator's (scene, BVH,
/// lights, sampler, limits) and the scene's media.
pub struct VolumeView<'a> {
    pub surface: SceneView<'a>,
}

/// The state one path carries between vertices (what a wavefront kernel stores).
#[derive(Clone, Copy, Debug)]
pub struct VolumePath {
    pub ray: Ray,
    pub throughput: Vec3,
    pub radiance: Vec3,
    pub pixel: u32,
    pub sample: u32,
    /// Index of the next vertex (0 for the camera ray).
    pub bounce: u32,
    /// Solid-angle pdf of the direction sampled at the last vertex (phase or BSDF).
    pub last_pdf: f32,
    /// `ray` came from the camera or a delta lobe (no MIS at the next emitter).
    pub last_delta: bool,
    /// The medium the ray travels in: index + 1, 0 for vacuum.
    pub medium: u32,
}

/// The camera path of (`pixel`, `sample`): the surface estimator's ray, in the camera's medium.
pub fn generate(view: &VolumeView, pixel: u32, sample: u32) -> VolumePath {
    let camera = crate::integrator::generate(&view.surface, pixel, sample);
    VolumePath {
        ray: camera.ray,
        throughput: Vec3::ONE,
        radiance: Vec3::ZERO,
        pixel,
        sample,
        bounce: 0,
        last_pdf: 0.0,
        last_delta: true,
        medium: view.surface.scene.camera_medium.map_or(0, |m| m + 1),
    }
}

/// The geometric normal of triangle `tri` as its winding defines it (not flipped toward the
/// viewer): the side it points to is the shape's exterior.
fn winding_normal(view: &SceneView, tri: u32) -> Vec3 {
    let [a, b, c] = view.triangles[tri as usize];
    (b - a).cross(c - a).normalize_or_zero()
}

/// The medium on the far side of triangle `tri` for a ray along `d` (unchanged where the
/// triangle's shape declares no media).
fn medium_across(view: &SceneView, tri: u32, d: Vec3, current: u32) -> u32 {
    let packed = view.scene.triangle_medium_interface(tri as usize);
    if interface::is_transition(packed) { interface::target(packed, d.dot(winding_normal(view, tri))) } else { current }
}

/// One step of the path (see the module doc). Returns whether the path goes on.
pub fn extend(view: &VolumeView, path: &mut VolumePath, counters: &mut PathCounters) -> bool {
    let s = &view.surface;
    let depth = path.bounce as usize;
    if counters.active_per_bounce.len() <= depth {
        counters.active_per_bounce.resize(depth + 1, 0);
    }
    counters.active_per_bounce[depth] += 1;
    let mut rng = TrackingRng::new(s.sampler.seed, path.pixel, path.sample, path.bounce, STREAM_EXTEND);
    let mut tracking = TrackingCounts::default();
    let goes_on = extend_tracked(view, path, counters, &mut rng, &mut tracking);
    counters.tracking.add(&tracking);
    goes_on
}

fn extend_tracked(
    view: &VolumeView,
    path: &mut VolumePath,
    counters: &mut PathCounters,
    rng: &mut TrackingRng,
    tracking: &mut TrackingCounts,
) -> bool {
    let s = &view.surface;
    // Distance from the last vertex, across null boundaries (for the emitter's pdf).
    let mut travelled = 0.0f32;
    for _ in 0..MAX_CROSSINGS {
        counters.extension_rays += 1;
        let hit = s.cpu_bvh.intersect(&path.ray);
        if path.medium != 0 {
            let medium = &s.scene.media[path.medium as usize - 1];
            let t_max = hit.as_ref().map_or(f32::INFINITY, |h| h.t);
            match medium.sample_free_flight(path.ray.o, path.ray.d, t_max, rng, tracking) {
                FreeFlight::Scatter { t, weight } => {
                    path.throughput *= weight;
                    if path.bounce >= s.max_depth.min(MAX_VOLUME_DEPTH) {
                        return false;
                    }
                    return scatter_in_medium(view, path, medium, t, counters, tracking);
                }
                FreeFlight::Pass { weight } => path.throughput *= weight,
            }
        }
        let Some(hit) = hit else {
            // Escaped: the environment, weighted against having sampled it by light sampling.
            let le = s.lights.environment_radiance(path.ray.d);
            if le != Vec3::ZERO {
                let weight = if path.last_delta {
                    1.0
                } else {
                    power_heuristic(path.last_pdf, s.lights.pdf_environment(path.ray.d))
                };
                path.radiance += path.throughput * le * weight;
            }
            return false;
        };
        let material = &s.scene.materials[s.scene.triangle_materials[hit.prim as usize] as usize];
        if material.is_null() {
            // An index-matched boundary: cross it, no vertex.
            let p = path.ray.at(hit.t);
            let ng = winding_normal(s, hit.prim);
            path.medium = medium_across(s, hit.prim, path.ray.d, path.medium);
            travelled += hit.t;
            path.ray = Ray::new(offset_ray_origin(p, ng, path.ray.d), path.ray.d);
            continue;
        }
        let surface = surface_hit(s, &path.ray, &hit);
        // Emission seen by this ray.
        let light_index = s.lights.triangle_to_light.get(surface.triangle as usize).copied().unwrap_or(-1);
        if light_index >= 0 {
            let le = s.lights.triangles[light_index as usize].radiance(-path.ray.d);
            if le != Vec3::ZERO {
                let weight = if path.last_delta {
                    1.0
                } else {
                    let distance = travelled + surface.t;
                    power_heuristic(path.last_pdf, s.lights.pdf_triangle(light_index as usize, path.ray.d, distance))
                };
                path.radiance += path.throughput * le * weight;
            }
        }
        let last = path.bounce >= s.max_depth.min(MAX_VOLUME_DEPTH);
        if !last {
            light_at_surface(view, path, &surface, counters, tracking);
        }
        // An opacity mask's null lobe (Mitsuba's volpath: no vertex, the medium changes as at a
        // null boundary; its own random number, as a crossing keeps the bounce).
        if surface.opacity < 1.0 && opacity::choose(surface.opacity, rng.next()).is_none() {
            let ng = winding_normal(s, hit.prim);
            path.medium = medium_across(s, hit.prim, path.ray.d, path.medium);
            travelled += hit.t;
            path.ray = Ray::new(offset_ray_origin(surface.p, ng, path.ray.d), path.ray.d);
            continue;
        }
        if last {
            return false;
        }
        return scatter_at_surface(view, path, &surface);
    }
    false
}

/// Next-event estimation through media toward a light sample seen from `vertex_p`, the shadow
/// ray leaving from `origin` (the vertex, or a point offset off its surface) toward the sampled
/// point; `f` is the scattering function (phase, or BSDF × cosine) and `scattering_pdf` its
/// pdf for MIS; `shadow_medium` is the medium the shadow ray starts in.
#[allow(clippy::too_many_arguments)]
fn add_light_sample(
    view: &VolumeView,
    path: &mut VolumePath,
    vertex_p: Vec3,
    origin: Vec3,
    ls: &warpath_core::light::LightSample,
    f: Vec3,
    scattering_pdf: f32,
    shadow_medium: u32,
    counters: &mut PathCounters,
    tracking: &mut TrackingCounts,
) {
    let s = &view.surface;
    counters.shadow_rays += 1;
    let (direction, t_max) = if ls.distance.is_finite() {
        let target = vertex_p + ls.wi * ls.distance;
        let to = target - origin;
        let d = to.length();
        (to / d, d * (1.0 - 1e-4))
    } else {
        (ls.wi, f32::INFINITY)
    };
    let mut rng = TrackingRng::new(s.sampler.seed, path.pixel, path.sample, path.bounce, STREAM_SHADOW);
    let transmittance = shadow_transmittance(view, origin, direction, t_max, shadow_medium, &mut rng, tracking);
    if transmittance == Vec3::ZERO {
        return;
    }
    // A delta light cannot be reached by scattering: no MIS weight.
    let weight = if ls.delta { 1.0 } else { power_heuristic(ls.pdf, scattering_pdf) };
    let scaled = path.throughput * f * ls.radiance * transmittance;
    path.radiance += scaled * (weight / ls.pdf);
}

/// A vertex inside `medium` at distance `t` along the path's ray: the albedo there (fetched
/// here, not by the free flight: the GPU's sortingSK schedule runs this after reordering the
/// paths), next-event estimation, then a phase-function direction.
fn scatter_in_medium(
    view: &VolumeView,
    path: &mut VolumePath,
    medium: &Medium,
    t: f32,
    counters: &mut PathCounters,
    tracking: &mut TrackingCounts,
) -> bool {
    let s = &view.surface;
    path.throughput *= medium.albedo_along(path.ray.o, path.ray.d, t, tracking);
    let p = path.ray.at(t);
    let g = medium.g;
    let numbers = s.sampler.at(path.pixel, path.sample, path.bounce);
    if !s.lights.is_empty() {
        let u_select = numbers.get(dims::LIGHT_SELECT);
        let u = Vec2::new(numbers.get(dims::LIGHT_U), numbers.get(dims::LIGHT_V));
        if let Some(ls) = s.lights.sample(p, u_select, u)
            && ls.pdf > 0.0
            && ls.pdf.is_finite()
        {
            let phase = hg_eval(g, path.ray.d.dot(ls.wi));
            add_light_sample(view, path, p, p, &ls, Vec3::splat(phase), phase, path.medium, counters, tracking);
        }
    }
    let u = Vec2::new(numbers.get(dims::BSDF_U), numbers.get(dims::BSDF_V));
    let (direction, pdf) = hg_sample(g, path.ray.d, u);
    path.ray = Ray::new(p, direction);
    path.last_pdf = pdf;
    path.last_delta = false;
    next_vertex(view, path, &numbers)
}

/// Next-event estimation through media at a (non-null) surface vertex, the material scaled by
/// its opacity mask's α (pdf too).
fn light_at_surface(
    view: &VolumeView,
    path: &mut VolumePath,
    surface: &crate::integrator::SurfaceHit,
    counters: &mut PathCounters,
    tracking: &mut TrackingCounts,
) {
    let s = &view.surface;
    let material = &surface.shading_material(&s.scene.materials);
    let numbers = s.sampler.at(path.pixel, path.sample, path.bounce);
    let wo = surface.frame.to_local(-path.ray.d);
    if !bsdf::is_purely_specular(material) && !s.lights.is_empty() {
        let u_select = numbers.get(dims::LIGHT_SELECT);
        let u = Vec2::new(numbers.get(dims::LIGHT_U), numbers.get(dims::LIGHT_V));
        if let Some(ls) = s.lights.sample(surface.p, u_select, u)
            && ls.pdf > 0.0
            && ls.pdf.is_finite()
        {
            let wi = surface.frame.to_local(ls.wi);
            let f =
                bsdf::eval(material, surface.base_color, wo, wi) * surface.normal_map_factor(ls.wi) * surface.opacity;
            if f != Vec3::ZERO {
                let origin = offset_ray_origin(surface.p, surface.ng, ls.wi);
                let medium = medium_across(s, surface.triangle, ls.wi, path.medium);
                let pdf = bsdf::pdf(material, surface.base_color, wo, wi) * surface.opacity;
                add_light_sample(view, path, surface.p, origin, &ls, f, pdf, medium, counters, tracking);
            }
        }
    }
}

/// A (non-null) surface vertex's BSDF direction, the material's own lobe (an opacity mask's
/// null lobe was not chosen: its pdf is scaled by α); a transmission through a medium
/// boundary changes the medium.
fn scatter_at_surface(view: &VolumeView, path: &mut VolumePath, surface: &crate::integrator::SurfaceHit) -> bool {
    let s = &view.surface;
    let material = &surface.shading_material(&s.scene.materials);
    let numbers = s.sampler.at(path.pixel, path.sample, path.bounce);
    let wo = surface.frame.to_local(-path.ray.d);
    let u_lobe = numbers.get(dims::BSDF_LOBE);
    let u = Vec2::new(numbers.get(dims::BSDF_U), numbers.get(dims::BSDF_V));
    let Some(bs) = bsdf::sample(material, surface.base_color, wo, u_lobe, u) else { return false };
    let direction = surface.frame.to_world(bs.wi).normalize();
    let weight = bs.weight * surface.normal_map_factor(direction);
    if !(weight.is_finite() && weight.max_element() > 0.0) {
        return false;
    }
    path.throughput *= weight;
    path.medium = medium_across(s, surface.triangle, direction, path.medium);
    path.ray = Ray::new(offset_ray_origin(surface.p, surface.ng, direction), direction);
    path.last_pdf = bs.pdf * surface.opacity;
    path.last_delta = bs.delta;
    next_vertex(view, path, &numbers)
}

/// Counts the vertex and applies Russian roulette (seed 000 §3.2): below the threshold, the
/// path survives with probability weight / threshold.
fn next_vertex(view: &VolumeView, path: &mut VolumePath, numbers: &VertexSampler) -> bool {
    path.bounce += 1;
    let threshold = view.surface.rr_threshold;
    let weight = path.throughput.max_element();
    if weight < threshold {
        let survive = weight / threshold;
        if numbers.get(dims::ROULETTE) >= survive {
            return false;
        }
        path.throughput /= survive;
    }
    true
}

/// The transmittance from `origin` along unit `d` over `t_max` (∞: to the scene's end),
/// starting in medium `medium` (index + 1): ratio tracking through every medium on the way,
/// index-matched boundaries crossed, zero at any other surface.
///
/// A finite ray ends at the fixed point `origin + d · t_max` (the caller keeps it short of
/// the light by 1e-4 of the distance). After each crossing the ray leaves from an origin
/// offset off the boundary along its normal (up to 1e-4 · (1 + |p|), as much as that margin
/// or more), so it is aimed again at that end point: carrying the distance on along the old
/// direction moved the end past the light, and the shadow ray struck the light itself (NEE
/// through null boundaries lost 25% of the light on scenes/compare-volume-cloud.toml).
#[allow(clippy::too_many_arguments)]
pub fn shadow_transmittance(
    view: &VolumeView,
    origin: Vec3,
    d: Vec3,
    t_max: f32,
    mut medium: u32,
    rng: &mut TrackingRng,
    tracking: &mut TrackingCounts,
) -> Vec3 {
    let s = &view.surface;
    let mut transmittance = Vec3::ONE;
    let mut o = origin;
    let mut d = d;
    let mut remaining = t_max;
    let end = origin + d * t_max;
    for _ in 0..MAX_CROSSINGS {
        let ray = if remaining.is_finite() { Ray::segment(o, d, remaining) } else { Ray::new(o, d) };
        let hit = s.cpu_bvh.intersect(&ray);
        let t = hit.as_ref().map_or(remaining, |h| h.t);
        if medium != 0 {
            transmittance *= s.scene.media[medium as usize - 1].transmittance(o, d, t, rng, tracking);
            if transmittance == Vec3::ZERO {
                return Vec3::ZERO;
            }
        }
        let Some(hit) = hit else { return transmittance };
        let material = &s.scene.materials[s.scene.triangle_materials[hit.prim as usize] as usize];
        if !material.is_null() {
            // An opacity mask lets 1 − α through (Mitsuba's eval_null_transmission).
            let alpha = if material.is_masked() { triangle_opacity(s, &hit) } else { 1.0 };
            if alpha >= 1.0 {
                return Vec3::ZERO;
            }
            transmittance *= 1.0 - alpha;
            if transmittance == Vec3::ZERO {
                return Vec3::ZERO;
            }
        }
        let p = ray.at(hit.t);
        medium = medium_across(s, hit.prim, d, medium);
        o = offset_ray_origin(p, winding_normal(s, hit.prim), d);
        if remaining.is_finite() {
            let to = end - o;
            let length = to.length();
            if !(length > 0.0) || to.dot(d) <= 0.0 {
                // The offset carried the origin to or past the end point.
                return transmittance;
            }
            d = to / length;
            remaining = length;
        }
    }
    Vec3::ZERO
}

/// The volumetric path tracer as an [`Estimator`].
impl Estimator for VolumeView<'_> {
    type Path = VolumePath;

    fn generate(&self, pixel: u32, sample: u32) -> VolumePath {
        generate(self, pixel, sample)
    }

    fn extend(&self, path: &mut VolumePath, counters: &mut PathCounters) -> bool {
        extend(self, path, counters)
    }

    fn radiance(&self, path: &VolumePath) -> Vec3 {
        path.radiance
    }

    fn resolution(&self) -> (u32, u32) {
        (self.surface.width, self.surface.height)
    }
}
