//! ReSTIR direct lighting (issue 15, seed 002; Bitterli et al. 2020) on the CPU: the reference
//! the GPU kernels are to be checked against. One frame, every pixel one sample:
//!
//! 1. `initial_ris` — the camera ray (the path tracer's `generate`, jittered per frame) and its
//!    hit make the pixel's G-buffer entry; M candidates (default 32) are resampled into a
//!    reservoir with the target function p̂(y) = t(f(wo, wi)·cos · Le(y) · |cos_y| / d²), t of
//!    the unshadowed contribution in area measure ([`TargetFunction`]: luminance by default;
//!    L2 norm, channel sum or max). Candidates come from a **light pool** per
//!    16×16 tile (seed 002's shared-memory pool: each of the tile's 256 entries is one light
//!    point drawn in proportion to power — emissive triangle by `TriangleLight::power`, point
//!    uniform on it — and a pixel picks its candidates uniformly from the pool) or, without the
//!    pool, straight from the power distribution. A candidate's source pdf is the power
//!    distribution's in either case (each pool entry is marginally distributed so, which is
//!    all RIS needs to stay unbiased).
//! 2. `visibility` — one shadow ray to the reservoir's sample; occluded → W = 0.
//! 3. `temporal` — the previous frame's reservoir at the pixel (static camera) or at the
//!    pixel where the previous camera saw this pixel's surface point ([`Reprojection`], a
//!    moving camera; its depth test then uses the point's distance from the previous
//!    camera), its M capped at `temporal_cap` × M.
//! 4. `spatial` — k neighbours (default 5) within a radius (default 30 px) whose surfaces are
//!    similar (normals within 25°, depths within 10%, material roughnesses within a threshold:
//!    `similarity`).
//! 5. `shade` — f · Le · G · V · W plus emission the camera sees; V is known (below).
//!
//! With [`TargetFunction::Channels`] a pixel keeps three reservoirs, one per colour channel:
//! initial RIS streams every candidate into all three (one contribution evaluated, the same
//! selection numbers, each reservoir weighted by its own channel), each channel's reservoirs
//! are reused on their own with their channel as target, and `shade` adds each reservoir's
//! f·Le·G·W to its own channel. Each channel's estimate is an unbiased ReSTIR estimate of that
//! channel, so the sum is unbiased too.
//!
//! Reservoirs are combined by generalised RIS: input i with sample y_i, weight W_i and count
//! M_i enters with w_i = p̂_q(y_i)·W_i·M_i at the pixel q. [`BiasCorrection::Off`] then sets
//! W = Σw / (p̂_q(y)·ΣM_i) — biased where neighbours' domains differ (RTXDI's "off", 1/M);
//! [`BiasCorrection::RayTraced`] divides by Z = Σ M_i over the inputs whose own surface sees y
//! (p̂_i(y) > 0 and an unoccluded shadow ray from it), which makes the estimator unbiased
//! (Bitterli et al. 2020, Algorithm 6). [`BiasCorrection::Pairwise`] weighs input i ≥ 1 (of
//! k reused ones) by m_i = a/(a + b)/k with a = k·M_i·p̂_i(y_i), b = M_0·p̂_q(y_i), and the
//! pixel's own input by m_0 = (1/k)·Σ_i c/(c + d_i) with c = M_0·p̂_q(y_0), d_i = k·M_i·p̂_i(y_0)
//! (a partition of unity: pairwise MIS with confidence weights), w_i = m_i·p̂_q(y_i)·W_i and
//! W = Σw / p̂_q(y); the reused inputs stream first, the pixel's own last. The weights use the
//! targets times visibility where it matters: an input's own sample is visible to it (a
//! reservoir is handed on with W = 0 otherwise), and d_i is zeroed when surface i does not see
//! y_0 (one shadow ray per reused input, as the ray-traced mode traces). Without that ray —
//! RTXDI's visibility-free pairwise weights — the mode measured −15.8% on `many-lights` at
//! 160×90 (1/M: −16.5%): its small emitters shadow one another, so neighbours' visibility
//! differs almost everywhere.
//!
//! Shadow rays whose answer is known are not traced: a reservoir is handed on with W > 0 only
//! if its own surface sees its sample, so the input a combination chose its sample from sees
//! it, and so does the final reservoir's pixel in `shade` (`sees_chosen`; in the ray-traced
//! mode one ray fewer per temporal and spatial combination, and none in `shade`).
//!
//! Scope: emissive triangles only (a scene with an environment is refused: the environment is
//! not a ReSTIR light yet); purely specular surfaces get no resampled light (as in RTXDI).
//! Random numbers: [`restir_random`] (`pcg_sample` with one stream per frame and stage).

mod boiling;
mod bsdf_candidates;
mod combine;
mod light_sampler;
mod origins;
mod similarity;

pub use boiling::{BOILING_GROUP, boiling_filter};
use combine::combine;
pub use light_sampler::LightSampler;
use similarity::{similar, similar_at};

use crate::integrator::{SceneView, generate_with, surface_hit};
use glam::{Vec2, Vec3};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use warpath_core::bsdf;
use warpath_core::detmath::det_sin_cos;
use warpath_core::film::Film;
use warpath_core::material::Material;
use warpath_core::math::{Frame, Ray, offset_ray_origin};
use warpath_core::sampler::pcg_sample;

use warpath_core::camera::Camera;
pub use warpath_core::restir::{BiasCorrection, RayCounts, Reprojection, RestirOptions, SampleOrigin, TargetFunction};

/// Side of a light-pool tile in pixels, and the pool's entries (one per pixel of the tile).
pub const POOL_TILE: u32 = 16;
pub const POOL_SIZE: u32 = POOL_TILE * POOL_TILE;

// Random-number streams: stage s of frame f draws `pcg_sample(seed, pixel or tile, f ·
// STREAMS_PER_FRAME + s, 0, dim)`, so every (frame, stage) has its own hash prefix and the
// dimensions of one stage can never meet another's. (A first version put the stage in the
// `bounce` coordinate, which the hash folds as bounce · 11 + dim: the temporal pass's numbers
// were then candidate 2's and 3's, and the spatial offsets candidates 5 to 7's.)
const STREAMS_PER_FRAME: u32 = 32;
const STAGE_POOL: u32 = 0;
const STAGE_CANDIDATE: u32 = 1;
const STAGE_TEMPORAL: u32 = 2;
/// Spatial pass p uses stage STAGE_SPATIAL + p (p < 16, the CLI's limit).
const STAGE_SPATIAL: u32 = 3;

/// The random number `dim` of `stage` in `frame` for a pixel (or a pool tile).
pub fn restir_random(seed: u32, index: u32, frame: u32, stage: u32, dim: u32) -> f32 {
    pcg_sample(seed, index, frame.wrapping_mul(STREAMS_PER_FRAME).wrapping_add(stage), 0, dim)
}

/// A point on an emissive triangle: the light's index and barycentrics of `e1`, `e2` (seed
/// 002's compact light sample; position, normal and radiance are reconstructed).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LightPoint {
    pub light: u32,
    pub b: Vec2,
}

/// A reservoir: its sample, the running weight sum, the count of candidates it stands for
/// and its unbiased contribution weight W; and where its sample came from (the bench's error
/// maps by origin: [`RestirFrames::set_record_origins`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reservoir {
    pub y: Option<LightPoint>,
    pub w_sum: f32,
    pub m: f32,
    pub w: f32,
    pub origin: SampleOrigin,
}

impl Reservoir {
    /// Streams in a candidate of resampling weight `weight` (u uniform in [0, 1)).
    fn update(&mut self, y: LightPoint, weight: f32, u: f32) -> bool {
        if !(weight > 0.0 && weight.is_finite()) {
            return false;
        }
        self.w_sum += weight;
        if u * self.w_sum < weight {
            self.y = Some(y);
            return true;
        }
        false
    }
}

/// The pixel's visible surface (what the G-buffer holds).
#[derive(Clone, Copy, Debug)]
pub struct Surface {
    pub p: Vec3,
    pub ng: Vec3,
    pub frame: Frame,
    pub material: u32,
    pub base_color: Vec3,
    pub wo: Vec3,
    /// Camera distance (the similarity test's depth).
    pub depth: f32,
    /// The material's roughness (`warpath_core::restir::material_roughness`: the similarity
    /// test's roughness), its texture applied.
    pub roughness: f32,
    /// The material's roughness and metallic here (their textures applied): what the BSDF
    /// evaluates.
    pub material_roughness: f32,
    pub metallic: f32,
    /// The opacity mask's α (1 opaque): the material's value is scaled by it, in the target
    /// function and the shading alike (Mitsuba's `mask` evaluated). ReSTIR sees no further:
    /// the camera ray stops at the first surface, masked or not, and shadow rays stop at masks.
    pub opacity: f32,
}

impl Surface {
    /// The surface's material with its textured roughness and metallic.
    pub fn shading_material(&self, materials: &[Material]) -> Material {
        Material { roughness: self.material_roughness, metallic: self.metallic, ..materials[self.material as usize] }
    }
}

/// What the camera sees at a pixel this frame: emission, and the surface to light (None on a
/// miss or a purely specular surface).
#[derive(Clone, Copy, Debug, Default)]
pub struct GBufferPixel {
    pub emitted: Vec3,
    pub surface: Option<Surface>,
}

/// The light point's position, normal and emitted radiance toward `x`, and the geometry
/// between (direction, distance).
struct LightGeometry {
    wi: Vec3,
    distance: f32,
    /// Le(y → x) · |cos_y| / d².
    le_g: Vec3,
}

fn light_geometry(view: &SceneView, x: Vec3, y: LightPoint) -> Option<LightGeometry> {
    let light = &view.lights.triangles[y.light as usize];
    let q = light.p0 + light.e1 * y.b.x + light.e2 * y.b.y;
    let to = q - x;
    let d2 = to.length_squared();
    if !(d2 > 0.0) {
        return None;
    }
    let distance = d2.sqrt();
    let wi = to / distance;
    let cos_y = light.normal().dot(-wi).abs();
    let le = light.radiance(-wi);
    if cos_y <= 0.0 || le == Vec3::ZERO {
        return None;
    }
    Some(LightGeometry { wi, distance, le_g: le * (cos_y / d2) })
}

/// The unshadowed contribution f·cos · Le · G of `y` at `s` (area measure), and its direction.
fn contribution(view: &SceneView, s: &Surface, y: LightPoint) -> Option<(Vec3, LightGeometry)> {
    let g = light_geometry(view, s.p, y)?;
    let material = &s.shading_material(&view.scene.materials);
    let f = bsdf::eval(material, s.base_color, s.frame.to_local(s.wo), s.frame.to_local(g.wi)) * s.opacity;
    let c = f * g.le_g;
    (c.max_element() > 0.0 && c.is_finite()).then_some((c, g))
}

/// The target function p̂ = `kind`(unshadowed contribution) at `s`.
fn target(view: &SceneView, kind: TargetFunction, s: &Surface, y: LightPoint) -> f32 {
    contribution(view, s, y).map_or(0.0, |(c, _)| kind.of(c))
}

/// Whether nothing blocks the segment from `s` to the light point.
fn visible(view: &SceneView, s: &Surface, g: &LightGeometry) -> bool {
    let origin = offset_ray_origin(s.p, s.ng, g.wi);
    let target = s.p + g.wi * g.distance;
    let to = target - origin;
    let d = to.length();
    !view.occluded(&Ray::segment(origin, to / d, d * (1.0 - 1e-4)))
}

/// Whether `s` sees `y` at all (p̂ > 0 and unoccluded): the ray-traced Z test. A shadow ray
/// is traced (and counted in `rays`) only where p̂ > 0.
fn sees(view: &SceneView, s: &Surface, y: LightPoint, rays: &AtomicU64) -> bool {
    match contribution(view, s, y) {
        Some((_, g)) => {
            rays.fetch_add(1, Ordering::Relaxed);
            visible(view, s, &g)
        }
        None => false,
    }
}

/// [`sees`] for the input a combination chose its sample from: known without a ray. Every
/// reservoir is handed on with W = 0 unless its own surface sees its sample, and a reservoir
/// with W = 0 has resampling weight 0, so it can never be the chosen input: the input whose
/// sample won sees it. The same holds for a final reservoir's W > 0 in [`shade`]. With
/// [`verify_chosen_visibility`] on (the tests turn it on), the ray is traced anyway and a
/// surface that does not see its sample panics.
fn sees_chosen(view: &SceneView, s: &Surface, y: LightPoint) -> bool {
    if VERIFY_CHOSEN.load(std::sync::atomic::Ordering::Relaxed) {
        assert!(sees(view, s, y, &AtomicU64::new(0)), "a reservoir with W > 0 whose surface does not see its sample");
    }
    true
}

static VERIFY_CHOSEN: AtomicBool = AtomicBool::new(false);

/// Traces the ray [`sees_chosen`] knows the answer of, and panics where the answer is wrong
/// (for tests: the invariant every reuse pass relies on). Off by default: it costs a ray.
pub fn verify_chosen_visibility(on: bool) {
    VERIFY_CHOSEN.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// The G-buffer of one frame: `camera`'s ray of (pixel, sample = frame) (the path tracer's
/// `generate` with that camera in place of the scene's).
pub fn gbuffer(view: &SceneView, camera: &Camera, frame: u32) -> Vec<GBufferPixel> {
    (0..view.width * view.height)
        .into_par_iter()
        .map(|pixel| {
            let path = generate_with(view, camera, pixel, frame);
            let Some(hit) = view.intersect(&path.ray) else { return GBufferPixel::default() };
            let surface = surface_hit(view, &path.ray, &hit);
            let light_index = view.lights.triangle_to_light.get(surface.triangle as usize).copied().unwrap_or(-1);
            let emitted = if light_index >= 0 {
                view.lights.triangles[light_index as usize].radiance(-path.ray.d)
            } else {
                Vec3::ZERO
            };
            let material = &surface.shading_material(&view.scene.materials);
            let lit = !bsdf::is_purely_specular(material);
            GBufferPixel {
                emitted,
                surface: lit.then_some(Surface {
                    p: surface.p,
                    ng: surface.ng,
                    frame: surface.frame,
                    material: surface.material,
                    base_color: surface.base_color,
                    wo: -path.ray.d,
                    depth: surface.t,
                    roughness: warpath_core::restir::material_roughness(material),
                    material_roughness: surface.roughness,
                    metallic: surface.metallic,
                    opacity: surface.opacity,
                }),
            }
        })
        .collect()
}

/// The light pool of tile `tile` for `frame`: POOL_SIZE points drawn by power.
fn light_pool(sampler: &LightSampler<'_>, seed: u32, tile: u32, frame: u32) -> Vec<LightPoint> {
    (0..POOL_SIZE)
        .map(|k| {
            let u = |d: u32| restir_random(seed, tile, frame, STAGE_POOL, 3 * k + d);
            sampler.sample(u(0), Vec2::new(u(1), u(2)))
        })
        .collect()
}

/// Initial RIS at every lit pixel, then the visibility pass: one reservoir per
/// [`TargetFunction::reservoir_targets`] (three for [`TargetFunction::Channels`]), all
/// resampled from the same candidates with the same selection numbers, each with its own
/// target. The result is planar: `[target][pixel]`, as the GPU's reservoir buffers.
pub fn initial_ris(
    view: &SceneView,
    options: &RestirOptions,
    sampler: &LightSampler<'_>,
    gbuffer: &[GBufferPixel],
    frame: u32,
    rays: &AtomicU64,
    bsdf_rays: &AtomicU64,
) -> Vec<Vec<Reservoir>> {
    let (w, h) = (view.width, view.height);
    let tiles_x = w.div_ceil(POOL_TILE);
    let pools: Vec<Vec<LightPoint>> = if options.light_pool {
        (0..tiles_x * h.div_ceil(POOL_TILE)).map(|t| light_pool(sampler, options.seed, t, frame)).collect()
    } else {
        Vec::new()
    };
    let targets = options.target.reservoir_targets();
    let per_pixel: Vec<[Reservoir; 3]> = (0..w * h)
        .into_par_iter()
        .map(|pixel| {
            let mut out = [Reservoir::default(); 3];
            let Some(s) = &gbuffer[pixel as usize].surface else { return out };
            let u = |d: u32| restir_random(options.seed, pixel, frame, STAGE_CANDIDATE, d);
            let mut chosen_target = [0.0f32; 3];
            let mis = options.bsdf_candidates > 0;
            let mis_pdf = |view: &SceneView, s: &Surface, y: LightPoint, light_pdf: f32| {
                let bsdf_pdf = bsdf_candidates::area_pdf(view, s, y);
                warpath_core::restir::mis_source_pdf(options.candidates, light_pdf, options.bsdf_candidates, bsdf_pdf)
            };
            for c in 0..options.candidates {
                let y = if options.light_pool {
                    let tile = (pixel / w / POOL_TILE) * tiles_x + (pixel % w) / POOL_TILE;
                    let k = ((u(4 * c) * POOL_SIZE as f32) as u32).min(POOL_SIZE - 1);
                    pools[tile as usize][k as usize]
                } else {
                    sampler.sample(u(4 * c), Vec2::new(u(4 * c + 1), u(4 * c + 2)))
                };
                let source = sampler.pdf(view, y);
                if source > 0.0 {
                    // With BSDF candidates: the balance heuristic's M_L·p_L + M_B·p_B.
                    let source = if mis { mis_pdf(view, s, y, source) } else { source };
                    // One evaluation of the contribution serves every reservoir's target.
                    let contribution = contribution(view, s, y).map(|(c, _)| c);
                    for (t, kind) in targets.iter().enumerate() {
                        let p = contribution.map_or(0.0, |c| kind.of(c));
                        if out[t].update(y, p / source, u(4 * c + 3)) {
                            chosen_target[t] = p;
                            out[t].origin = SampleOrigin::LightCandidate;
                        }
                    }
                }
            }
            // BSDF-sampled candidates (their random numbers after the light candidates').
            for b in 0..options.bsdf_candidates {
                let d = 4 * (options.candidates + b);
                let Some(y) = bsdf_candidates::sample(view, s, [u(d), u(d + 1), u(d + 2)], bsdf_rays) else {
                    continue;
                };
                let source = mis_pdf(view, s, y, sampler.pdf(view, y));
                if !(source > 0.0) {
                    continue;
                }
                let contribution = contribution(view, s, y).map(|(c, _)| c);
                for (t, kind) in targets.iter().enumerate() {
                    let p = contribution.map_or(0.0, |c| kind.of(c));
                    if out[t].update(y, p / source, u(d + 3)) {
                        chosen_target[t] = p;
                        out[t].origin = SampleOrigin::BsdfCandidate;
                    }
                }
            }
            // The visibility pass: an occluded sample contributes nothing (one ray per distinct
            // sample: reservoirs that chose the same point share its answer).
            let mut answered: [Option<(LightPoint, bool)>; 3] = [None; 3];
            for t in 0..targets.len() {
                let r = &mut out[t];
                r.m = (options.candidates + options.bsdf_candidates) as f32;
                // (with MIS the weights already hold the 1/M: W = w_sum / p̂)
                let normaliser = if mis { 1.0 } else { r.m };
                finalize(r, chosen_target[t], normaliser);
                let Some(y) = r.y else { continue };
                let known = answered[..t].iter().flatten().find(|(point, _)| *point == y).map(|(_, v)| *v);
                let seen = known.unwrap_or_else(|| sees(view, s, y, rays));
                answered[t] = Some((y, seen));
                if !seen {
                    r.w = 0.0;
                }
            }
            out
        })
        .collect();
    (0..targets.len()).map(|t| per_pixel.iter().map(|r| r[t]).collect()).collect()
}

/// W = w_sum / (normaliser · p̂_q(y)), with `p` = p̂_q(y) of the chosen sample (known from its
/// resampling, so not evaluated again).
fn finalize(r: &mut Reservoir, p: f32, normaliser: f32) {
    r.w = if r.y.is_some() && p > 0.0 && normaliser > 0.0 { r.w_sum / (normaliser * p) } else { 0.0 };
}

/// Temporal reuse: each pixel's reservoir with the previous frame's at the same pixel
/// (`moved` None: a static camera) or at the pixel `moved` reprojects its surface point to.
pub fn reuse_temporally(
    view: &SceneView,
    options: &RestirOptions,
    gbuffer: &[GBufferPixel],
    current: &[Reservoir],
    previous: &[(Reservoir, Option<Surface>)],
    moved: Option<&Reprojection>,
    frame: u32,
    rays: &AtomicU64,
) -> Vec<Reservoir> {
    (0..current.len())
        .into_par_iter()
        .map(|i| {
            let Some(s) = &gbuffer[i].surface else { return current[i] };
            let mut inputs = vec![(current[i], *s)];
            // The previous pixel, and the depth its surface must have to be this one.
            let (j, depth) = match moved {
                None => (Some(i), s.depth),
                Some(r) => match r.pixel(s.p, view.width, view.height) {
                    Some((j, distance)) => (Some(j as usize), distance),
                    None => (None, 0.0),
                },
            };
            if let Some(j) = j
                && let (prev, Some(ps)) = &previous[j]
                && prev.m > 0.0
                && similar_at(s, ps, depth, options.roughness_threshold)
            {
                let mut prev = *prev;
                prev.m = prev.m.min(options.temporal_cap * current[i].m.max(1.0));
                inputs.push((prev, *ps));
            }
            combine(view, options, s, &inputs, SampleOrigin::Temporal, rays, |d| {
                restir_random(options.seed, i as u32, frame, STAGE_TEMPORAL, d)
            })
        })
        .collect()
}

/// One spatial pass: each pixel with k similar neighbours within the radius.
pub fn reuse_spatially(
    view: &SceneView,
    options: &RestirOptions,
    gbuffer: &[GBufferPixel],
    current: &[Reservoir],
    frame: u32,
    pass: u32,
    rays: &AtomicU64,
) -> Vec<Reservoir> {
    let (w, h) = (view.width as i64, view.height as i64);
    (0..current.len())
        .into_par_iter()
        .map(|i| {
            let Some(s) = &gbuffer[i].surface else { return current[i] };
            let u = |d: u32| restir_random(options.seed, i as u32, frame, STAGE_SPATIAL + pass, d);
            let (x, y) = (i as i64 % w, i as i64 / w);
            let mut inputs = vec![(current[i], *s)];
            for k in 0..options.neighbours {
                let (a, r) = (u(2 * k) * std::f32::consts::TAU, options.radius * u(2 * k + 1).sqrt());
                // detmath's sine and cosine: the GPU computes the same offsets bit for bit.
                let (sin, cos) = det_sin_cos(a);
                let (nx, ny) = (x + (r * cos).round() as i64, y + (r * sin).round() as i64);
                if nx < 0 || ny < 0 || nx >= w || ny >= h || (nx, ny) == (x, y) {
                    continue;
                }
                let j = (ny * w + nx) as usize;
                if let Some(ns) = &gbuffer[j].surface
                    && similar(s, ns, options.roughness_threshold)
                {
                    inputs.push((current[j], *ns));
                }
            }
            combine(view, options, s, &inputs, SampleOrigin::Spatial, rays, |d| u(1000 + d))
        })
        .collect()
}

/// The pixel's radiance: what the camera sees emitted, plus f·Le·G·V·W of each reservoir
/// (`reservoirs[t]` of target `targets[t]`: one reservoir adds the whole colour, a channel's
/// reservoir its own channel). V needs no shadow ray: a final reservoir has W > 0 only when
/// its surface sees its sample (`sees_chosen`).
pub fn shade(
    view: &SceneView,
    targets: &[TargetFunction],
    gbuffer: &[GBufferPixel],
    reservoirs: &[Vec<Reservoir>],
) -> Vec<Vec3> {
    gbuffer
        .par_iter()
        .enumerate()
        .map(|(i, g)| {
            let mut l = g.emitted;
            for (kind, reservoirs) in targets.iter().zip(reservoirs) {
                let r = reservoirs[i];
                if let (Some(s), Some(y)) = (&g.surface, r.y)
                    && r.w > 0.0
                    && sees_chosen(view, s, y)
                    && let Some((c, _)) = contribution(view, s, y)
                {
                    match kind.channel() {
                        None => l += c * r.w,
                        Some(k) => l[k] += c[k] * r.w,
                    }
                }
            }
            l
        })
        .collect()
}

/// Why a scene cannot be rendered by ReSTIR DI.
pub fn check_scene(view: &SceneView) -> Result<(), String> {
    if view.scene.needs_volume_estimator() {
        return Err("restir-di lights surfaces; this scene has participating media or 'null' boundaries \
                    (render it with the path tracer)"
            .into());
    }
    if !matches!(view.lights.environment, warpath_core::light::Environment::None) {
        return Err("restir-di resamples emissive triangles; the environment is not a ReSTIR light yet \
                    (remove the [environment], or render with the path tracer)"
            .into());
    }
    Ok(())
}

/// ReSTIR frames one after another, each with its own camera: the reservoirs and G-buffer
/// of a frame are the next frame's temporal history (reprojected when the camera moved). It
/// holds only that history, not the scene: each frame is rendered with the view passed to
/// [`RestirFrames::render`] (the same one every frame), so a renderer can own both.
pub struct RestirFrames {
    options: RestirOptions,
    /// The previous frame's final reservoirs, one set per reservoir target, with their surfaces.
    previous: Vec<Vec<(Reservoir, Option<Surface>)>>,
    previous_camera: Option<Camera>,
    frame: u32,
    /// Shadow rays traced so far, by stage.
    rays: RayCounts,
    /// The last frame's origins by reservoir target and pixel, while recording.
    origins: Option<Vec<Vec<SampleOrigin>>>,
}

impl RestirFrames {
    /// Frames of `view` with `options`; the error says why the scene cannot be rendered so.
    pub fn new(view: &SceneView, options: &RestirOptions) -> Result<Self, String> {
        check_scene(view)?;
        let pixels = (view.width * view.height) as usize;
        Ok(RestirFrames {
            options: *options,
            previous: vec![vec![(Reservoir::default(), None); pixels]; options.target.reservoirs()],
            previous_camera: None,
            frame: 0,
            rays: RayCounts::default(),
            origins: None,
        })
    }

    /// Frames rendered so far.
    pub fn frames(&self) -> u32 {
        self.frame
    }

    /// Shadow rays traced in the frames so far, by stage.
    pub fn rays(&self) -> RayCounts {
        self.rays
    }

    /// Records where each pixel's final sample came from in every frame from now on
    /// ([`RestirFrames::origins`]), or stops recording.
    pub fn set_record_origins(&mut self, on: bool) {
        self.origins = on.then(Vec::new);
    }

    /// The last frame's [`SampleOrigin`] of each pixel's final reservoir, `[target][pixel]`
    /// (None while not recording; empty before the first recorded frame).
    pub fn origins(&self) -> Option<&[Vec<SampleOrigin>]> {
        self.origins.as_deref()
    }

    /// The next frame of `view` seen by `camera`: each pixel's radiance (one sample).
    pub fn render(&mut self, view: &SceneView, camera: &Camera) -> Vec<Vec3> {
        let (options, frame) = (&self.options, self.frame);
        assert_eq!(self.previous[0].len(), (view.width * view.height) as usize, "the view of RestirFrames::new");
        let g = gbuffer(view, camera, frame);
        self.frame += 1;
        if view.lights.triangles.is_empty() {
            // No emitter: only what the camera sees (black), as the path tracer.
            if let Some(origins) = self.origins.as_mut() {
                *origins = vec![vec![SampleOrigin::None; g.len()]; options.target.reservoirs()];
            }
            return g.iter().map(|p| p.emitted).collect();
        }
        let sampler = LightSampler::new(view);
        let targets = options.target.reservoir_targets();
        let moved = match self.previous_camera {
            Some(previous) if previous != *camera => Some(Reprojection::of(&previous, view.width, view.height)),
            _ => None,
        };
        // Each reservoir target's reservoirs are reused on their own, with the same random
        // numbers (the same neighbours) and their own target.
        let rays = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];
        let mut all = initial_ris(view, options, &sampler, &g, frame, &rays[0], &rays[3]);
        for (t, reservoirs) in all.iter_mut().enumerate() {
            let options = &RestirOptions { target: targets[t], ..*options };
            if options.temporal {
                let temporal = &RestirOptions { bias: options.temporal_bias.unwrap_or(options.bias), ..*options };
                *reservoirs = reuse_temporally(
                    view,
                    temporal,
                    &g,
                    reservoirs,
                    &self.previous[t],
                    moved.as_ref(),
                    frame,
                    &rays[1],
                );
                boiling_filter(view.width, view.height, options.boiling_filter, reservoirs);
            }
            for pass in 0..options.spatial_passes {
                *reservoirs = reuse_spatially(view, options, &g, reservoirs, frame, pass, &rays[2]);
            }
        }
        let [visibility, temporal, spatial, bsdf_candidates] = rays.map(|r| r.into_inner());
        self.rays.add(&RayCounts { visibility, temporal, spatial, shade: 0, bsdf_candidates });
        let radiance = shade(view, targets, &g, &all);
        if let Some(origins) = self.origins.as_mut() {
            *origins = origins::final_origins(view, &g, &all);
        }
        self.previous = all.iter().map(|r| r.iter().zip(&g).map(|(r, p)| (*r, p.surface)).collect()).collect();
        self.previous_camera = Some(*camera);
        radiance
    }
}

/// Renders `frames` ReSTIR frames with the scene's (static) camera, each one sample per pixel
/// into `film` (progressive accumulation: the mean converges to the direct lighting).
/// Reservoirs carry from frame to frame (temporal reuse). `progress(frames done)` after each
/// frame; when `cancel` is set the render stops after the current frame, keeping what it has.
pub fn render(
    view: &SceneView,
    options: &RestirOptions,
    film: &mut Film,
    frames: u32,
    cancel: &AtomicBool,
    mut progress: impl FnMut(u32),
) -> Result<(), String> {
    let mut sequence = RestirFrames::new(view, options)?;
    for frame in 0..frames {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        for (i, l) in sequence.render(view, &view.scene.camera).into_iter().enumerate() {
            film.add_sample(i, l);
        }
        progress(frame + 1);
    }
    Ok(())
}
