//! The path tracing estimator, written as the stages of seed 000 (§3.2, appendix A):
//!
//! - [`generate`] makes a path for (pixel, sample): a camera ray through a uniformly
//!   jittered point of the pixel (box filter) and the thin lens;
//! - [`extend`] traces the path's ray; on a miss it adds the environment (MIS-weighted
//!   against BSDF sampling), on a hit it adds emission (MIS-weighted against light
//!   sampling), then, unless the path has reached `max_depth` bounces, it calls
//!   [`illuminate`] and [`bounce`]; it returns whether the path is still alive;
//! - [`illuminate`] is next-event estimation: one light sample, one shadow ray, the
//!   power heuristic against BSDF sampling (weight 1 for a point, spot or directional
//!   light, which only light sampling reaches);
//! - [`bounce`] samples the BSDF for the next ray and applies Russian roulette as the
//!   seed does: a path whose weight (max component of its throughput) falls below the
//!   threshold (5%) survives with probability weight / threshold;
//! - [`accumulate`] adds the finished path's radiance to its pixel.
//!
//! Every random number comes from `Sampler::get(pixel, sample, bounce, dim)` with the
//! dimensions of `warpath_core::sampler::dims`, so a path computes the same thing
//! wherever it runs. Bounce `k` is the k-th surface hit (0 = first hit after the
//! camera); a path with `max_depth` bounces has at most `max_depth + 1` segments.

use crate::estimator::Estimator;
use glam::{Vec2, Vec3};
use warpath_bvh::Bvh;
use warpath_bvh::cpu_layout::CpuBvh;
use warpath_core::bsdf;
use warpath_core::bump_map;
use warpath_core::film::Film;
use warpath_core::light::LightSet;
use warpath_core::material::{Material, flags};
use warpath_core::math::{Frame, Ray, offset_ray_origin};
use warpath_core::normal_map::{self, MappedNormal};
use warpath_core::opacity;
use warpath_core::sampler::{Sampler, VertexSampler, dims};
use warpath_isosurface::shape::{octahedral_decode, octahedral_encode};
use warpath_scene::Scene;

/// What the estimator needs of a scene, prepared once per render.
pub struct SceneView<'a> {
    pub scene: &'a Scene,
    pub bvh: &'a Bvh,
    /// The CPU traversal layout of `bvh` (same hits, faster); what the estimator traces.
    pub cpu_bvh: &'a CpuBvh,
    /// World-space triangle vertices, indexed like `scene.triangles`.
    pub triangles: &'a [[Vec3; 3]],
    pub lights: &'a LightSet,
    pub sampler: Sampler,
    pub max_depth: u32,
    pub rr_threshold: f32,
    pub width: u32,
    pub height: u32,
}

impl SceneView<'_> {
    /// The closest hit of the triangles and the isosurfaces. An isosurface's hit has id
    /// `Scene::isosurface_hit_id(k)` and carries its outward normal in (u, v), octahedrally
    /// encoded (`warpath_isosurface::shape::octahedral_encode`).
    pub fn intersect(&self, ray: &Ray) -> Option<warpath_bvh::Hit> {
        let mut best = self.cpu_bvh.intersect(ray);
        for (k, iso) in self.scene.isosurfaces.iter().enumerate() {
            let t_max = best.map_or(ray.t_max, |h| h.t);
            if let Some(h) = iso.surface.intersect(ray.o, ray.d, ray.t_min, t_max) {
                let (u, v) = octahedral_encode(h.normal);
                best = Some(warpath_bvh::Hit { t: h.t, u, v, prim: self.scene.isosurface_hit_id(k) });
            }
        }
        best
    }

    /// Whether a triangle or an isosurface blocks `ray` within its range.
    pub fn occluded(&self, ray: &Ray) -> bool {
        self.cpu_bvh.occluded(ray)
            || self
                .scene
                .isosurfaces
                .iter()
                .any(|iso| iso.surface.intersect(ray.o, ray.d, ray.t_min, ray.t_max).is_some())
    }
}

/// The state one path carries between bounces (what a wavefront kernel would store).
#[derive(Clone, Copy, Debug)]
pub struct PathState {
    pub ray: Ray,
    /// Product of BSDF weights (and roulette compensation) so far.
    pub throughput: Vec3,
    /// Radiance gathered so far.
    pub radiance: Vec3,
    pub pixel: u32,
    pub sample: u32,
    /// Index of the next surface hit (0 for the camera ray).
    pub bounce: u32,
    /// Solid-angle pdf of the BSDF sample that made `ray` (for MIS at the next hit).
    pub last_bsdf_pdf: f32,
    /// Whether `ray` came from the camera or a delta lobe (no MIS at the next hit).
    pub last_delta: bool,
}

/// Counters the estimator increments (rays and per-bounce active paths): the one type every
/// backend fills.
pub use warpath_core::counters::PathCounters;

#[inline]
pub(crate) fn power_heuristic(a: f32, b: f32) -> f32 {
    let (a2, b2) = (a * a, b * b);
    if a2 + b2 > 0.0 { a2 / (a2 + b2) } else { 0.0 }
}

/// A camera path for `sample` of `pixel` (row-major index).
pub fn generate(view: &SceneView, pixel: u32, sample: u32) -> PathState {
    generate_with(view, &view.scene.camera, pixel, sample)
}

/// [`generate`] through `camera` instead of the scene's (ReSTIR's moving camera).
pub fn generate_with(view: &SceneView, camera: &warpath_core::camera::Camera, pixel: u32, sample: u32) -> PathState {
    // `at(pixel, sample, 0).get(dim)` equals `get(pixel, sample, 0, dim)` (the camera's dimensions
    // are read with bounce 0); the per-(pixel, bounce) work is done once.
    let s = view.sampler.at(pixel, sample, 0);
    let (x, y) = (pixel % view.width, pixel / view.width);
    let film = Vec2::new(x as f32 + s.get(dims::PIXEL_X), y as f32 + s.get(dims::PIXEL_Y));
    let lens = Vec2::new(s.get(dims::LENS_U), s.get(dims::LENS_V));
    let ray = camera.generate_ray(film, view.width, view.height, lens);
    PathState {
        ray,
        throughput: Vec3::ONE,
        radiance: Vec3::ZERO,
        pixel,
        sample,
        bounce: 0,
        last_bsdf_pdf: 0.0,
        last_delta: true,
    }
}

/// The surface a ray hit, with its shading frame oriented for the BSDF.
pub(crate) struct SurfaceHit {
    pub(crate) p: Vec3,
    /// Geometric normal, flipped toward `wo` for opaque materials.
    pub(crate) ng: Vec3,
    pub(crate) frame: Frame,
    pub(crate) material: u32,
    pub(crate) base_color: Vec3,
    pub(crate) triangle: u32,
    pub(crate) t: f32,
    /// A normal- or bump-mapped surface's unperturbed normal and shadowing term (`frame.n` is
    /// the perturbed normal); `None` without either map.
    pub(crate) normal_map: Option<MappedNormal>,
    /// The material's roughness and metallic here (their textures applied).
    pub(crate) roughness: f32,
    pub(crate) metallic: f32,
    /// The opacity mask's α here (1: opaque; see `warpath_core::opacity`).
    pub(crate) opacity: f32,
}

impl SurfaceHit {
    /// The hit's material with the roughness and metallic its textures give here: what the
    /// BSDF evaluates.
    pub(crate) fn shading_material(&self, materials: &[Material]) -> Material {
        Material { roughness: self.roughness, metallic: self.metallic, ..materials[self.material as usize] }
    }

    /// The normal map's factor on the BSDF toward `wi` (world space; 1 without a normal
    /// map): see `warpath_core::normal_map`.
    pub(crate) fn normal_map_factor(&self, wi: Vec3) -> f32 {
        self.normal_map.map_or(1.0, |m| m.factor(self.frame.n, wi))
    }
}

/// An isosurface's hit: the decoded outward normal is both normals (the interpolant's
/// gradient is smooth); no texture coordinates, so the material's base colour alone.
fn isosurface_hit(
    view: &SceneView,
    iso: &warpath_scene::SceneIsosurface,
    ray: &Ray,
    hit: &warpath_bvh::Hit,
) -> SurfaceHit {
    let material = &view.scene.materials[iso.material as usize];
    let mut n = octahedral_decode(hit.u, hit.v);
    let wo = -ray.d;
    if !bsdf::is_transmissive(material) && !material.one_sided() && n.dot(wo) < 0.0 {
        n = -n;
    }
    SurfaceHit {
        p: ray.at(hit.t),
        ng: n,
        frame: Frame::from_normal(n),
        material: iso.material,
        base_color: material.base_color,
        triangle: hit.prim,
        t: hit.t,
        normal_map: None,
        roughness: material.roughness,
        metallic: material.metallic,
        opacity: opacity::opacity(material, 1.0),
    }
}

pub(crate) fn surface_hit(view: &SceneView, ray: &Ray, hit: &warpath_bvh::Hit) -> SurfaceHit {
    let scene = view.scene;
    if let Some(iso) = scene.isosurface_of_hit(hit.prim) {
        return isosurface_hit(view, iso, ray, hit);
    }
    let tri = hit.prim as usize;
    let [a, b, c] = view.triangles[tri];
    let idx = scene.triangles[tri];
    let (u, v) = (hit.u, hit.v);
    let w = 1.0 - u - v;
    let p = ray.at(hit.t);
    let mut ng = (b - a).cross(c - a).normalize_or_zero();
    let mut ns = if scene.normals.is_empty() {
        ng
    } else {
        let n = scene.normals[idx[0] as usize] * w
            + scene.normals[idx[1] as usize] * u
            + scene.normals[idx[2] as usize] * v;
        let n = n.normalize_or_zero();
        if n == Vec3::ZERO { ng } else { n }
    };
    let material_index = scene.triangle_materials[tri];
    let material = &scene.materials[material_index as usize];
    // Keep the shading normal on the geometric normal's side.
    if ns.dot(ng) < 0.0 {
        ns = -ns;
    }
    let wo = -ray.d;
    let textured = material.base_color_texture >= 0
        || material.normal_texture >= 0
        || material.bump_texture >= 0
        || material.roughness_texture >= 0
        || material.metallic_texture >= 0
        || material.opacity_texture >= 0;
    let uvs = (textured && !scene.uvs.is_empty()).then(|| idx.map(|i| scene.uvs[i as usize]));
    let uv = uvs.map(|t| t[0] * w + t[1] * u + t[2] * v);
    // The normal map (or else the bump map) perturbs the front face's shading normal (the
    // back face below takes it negated, with the frame).
    let mut mapped = None;
    if let (true, Some(uvs), Some(uv)) = (material.normal_texture >= 0, uvs, uv) {
        let texel = scene.textures[material.normal_texture as usize].sample(uv);
        mapped = Some(normal_map::perturb(ns, normal_map::triangle_dp_du([a, b, c], uvs), texel, wo));
    } else if let (true, Some(uvs), Some(uv)) = (material.bump_texture >= 0, uvs, uv) {
        let gradient = scene.textures[material.bump_texture as usize].height_gradient(uv);
        let (dp_du, dp_dv) = (normal_map::triangle_dp_du([a, b, c], uvs), bump_map::triangle_dp_dv([a, b, c], uvs));
        mapped = Some(bump_map::perturb(ns, ng, dp_du, dp_dv, gradient, material.bump_scale, wo));
    }
    // Opaque two-sided BSDFs see the side the ray came from; one-sided ones and transmissive
    // kinds keep the front face's frame (a one-sided BSDF is then black from behind).
    if !bsdf::is_transmissive(material) && !material.one_sided() && ng.dot(wo) < 0.0 {
        ng = -ng;
        ns = -ns;
        mapped = mapped.map(|(n, m)| (-n, MappedNormal { shading: ns, ..m }));
    }
    let mut base_color = material.base_color;
    let (mut roughness, mut metallic) = (material.roughness, material.metallic);
    if let Some(uv) = uv {
        let red = |texture: i32| scene.textures[texture as usize].sample(uv).x;
        if material.base_color_texture >= 0 {
            base_color *= scene.textures[material.base_color_texture as usize].sample(uv);
        }
        if material.roughness_texture >= 0 {
            let t = red(material.roughness_texture);
            roughness *= if material.flags & flags::ROUGHNESS_TEXTURE_ALPHA != 0 { t.max(0.0).sqrt() } else { t };
        }
        if material.metallic_texture >= 0 {
            metallic *= red(material.metallic_texture);
        }
    }
    let mut texel = 1.0;
    if let (true, Some(uv)) = (material.opacity_texture >= 0, uv) {
        texel = scene.textures[material.opacity_texture as usize].sample(uv).x;
    }
    SurfaceHit {
        p,
        ng,
        frame: Frame::from_normal(mapped.map_or(ns, |(n, _)| n)),
        material: material_index,
        base_color,
        triangle: hit.prim,
        t: hit.t,
        normal_map: mapped.map(|(_, m)| m),
        roughness,
        metallic,
        opacity: opacity::opacity(material, texel),
    }
}

/// The opacity mask's α at a triangle hit (`surface_hit`'s value, without the rest).
pub(crate) fn triangle_opacity(view: &SceneView, hit: &warpath_bvh::Hit) -> f32 {
    let scene = view.scene;
    let tri = hit.prim as usize;
    let material = &scene.materials[scene.triangle_materials[tri] as usize];
    let mut texel = 1.0;
    if material.opacity_texture >= 0 && !scene.uvs.is_empty() {
        let t = scene.triangles[tri].map(|i| scene.uvs[i as usize]);
        let w = 1.0 - hit.u - hit.v;
        let uv = t[0] * w + t[1] * hit.u + t[2] * hit.v;
        texel = scene.textures[material.opacity_texture as usize].sample(uv).x;
    }
    opacity::opacity(material, texel)
}

/// Traces the path's ray and shades what it finds. Returns whether the path goes on.
pub fn extend(view: &SceneView, path: &mut PathState, counters: &mut PathCounters) -> bool {
    let depth = path.bounce as usize;
    if counters.active_per_bounce.len() <= depth {
        counters.active_per_bounce.resize(depth + 1, 0);
    }
    counters.active_per_bounce[depth] += 1;
    counters.extension_rays += 1;

    let Some(hit) = view.intersect(&path.ray) else {
        // Escaped: the environment, weighted against having sampled it by light sampling.
        let le = view.lights.environment_radiance(path.ray.d);
        if le != Vec3::ZERO {
            let weight = if path.last_delta {
                1.0
            } else {
                power_heuristic(path.last_bsdf_pdf, view.lights.pdf_environment(path.ray.d))
            };
            path.radiance += path.throughput * le * weight;
        }
        return false;
    };
    let surface = surface_hit(view, &path.ray, &hit);

    // Emission seen by this ray.
    let light_index = view.lights.triangle_to_light.get(surface.triangle as usize).copied().unwrap_or(-1);
    if light_index >= 0 {
        let light = &view.lights.triangles[light_index as usize];
        let le = light.radiance(-path.ray.d);
        if le != Vec3::ZERO {
            let weight = if path.last_delta {
                1.0
            } else {
                power_heuristic(
                    path.last_bsdf_pdf,
                    view.lights.pdf_triangle(light_index as usize, path.ray.d, surface.t),
                )
            };
            path.radiance += path.throughput * le * weight;
        }
    }

    if path.bounce >= view.max_depth {
        return false;
    }
    let numbers = view.sampler.at(path.pixel, path.sample, path.bounce);
    illuminate(view, path, &surface, &numbers, counters);
    bounce(view, path, &surface, &numbers)
}

/// Next-event estimation at `surface`: one light sample, one shadow ray.
fn illuminate(
    view: &SceneView,
    path: &mut PathState,
    surface: &SurfaceHit,
    numbers: &VertexSampler,
    counters: &mut PathCounters,
) {
    let material = &surface.shading_material(&view.scene.materials);
    if bsdf::is_purely_specular(material) || view.lights.is_empty() {
        return;
    }
    let u_select = numbers.get(dims::LIGHT_SELECT);
    let u = Vec2::new(numbers.get(dims::LIGHT_U), numbers.get(dims::LIGHT_V));
    let Some(ls) = view.lights.sample(surface.p, u_select, u) else { return };
    if ls.pdf <= 0.0 || !ls.pdf.is_finite() {
        return;
    }
    let wo = surface.frame.to_local(-path.ray.d);
    let wi = surface.frame.to_local(ls.wi);
    let normal_map = surface.normal_map_factor(ls.wi);
    // The mask scales the material by α (shadow rays stop at masked surfaces, as Mitsuba's
    // `path` does: see warpath_core::opacity).
    let f = bsdf::eval(material, surface.base_color, wo, wi) * normal_map * surface.opacity;
    if f == Vec3::ZERO {
        return;
    }
    let origin = offset_ray_origin(surface.p, surface.ng, ls.wi);
    let shadow = if ls.distance.is_finite() {
        let target = surface.p + ls.wi * ls.distance;
        let to = target - origin;
        let d = to.length();
        Ray::segment(origin, to / d, d * (1.0 - 1e-4))
    } else {
        Ray::new(origin, ls.wi)
    };
    counters.shadow_rays += 1;
    if view.occluded(&shadow) {
        return;
    }
    let bsdf_pdf = bsdf::pdf(material, surface.base_color, wo, wi) * surface.opacity;
    // A delta light cannot be hit by a BSDF sample: no MIS weight.
    let weight = if ls.delta { 1.0 } else { power_heuristic(ls.pdf, bsdf_pdf) };
    path.radiance += path.throughput * f * ls.radiance * (weight / ls.pdf);
}

/// Samples the BSDF for the path's next ray, then Russian roulette.
fn bounce(view: &SceneView, path: &mut PathState, surface: &SurfaceHit, numbers: &VertexSampler) -> bool {
    let material = &surface.shading_material(&view.scene.materials);
    let u_lobe = numbers.get(dims::BSDF_LOBE);
    let Some(u_lobe) = opacity::choose(surface.opacity, u_lobe) else {
        // The mask's null lobe: straight on, weight 1, a delta bounce (Mitsuba's `path`
        // counts it toward max_depth).
        let dir = path.ray.d;
        path.ray = Ray::new(offset_ray_origin(surface.p, surface.ng, dir), dir);
        path.last_bsdf_pdf = 1.0 - surface.opacity;
        path.last_delta = true;
        path.bounce += 1;
        return roulette(view, path, numbers);
    };
    let u = Vec2::new(numbers.get(dims::BSDF_U), numbers.get(dims::BSDF_V));
    let wo = surface.frame.to_local(-path.ray.d);
    let Some(bs) = bsdf::sample(material, surface.base_color, wo, u_lobe, u) else { return false };
    let dir = surface.frame.to_world(bs.wi).normalize();
    let weight = bs.weight * surface.normal_map_factor(dir);
    if !(weight.is_finite() && weight.max_element() > 0.0) {
        return false;
    }
    path.throughput *= weight;
    path.ray = Ray::new(offset_ray_origin(surface.p, surface.ng, dir), dir);
    // The material's lobe was chosen with probability α.
    path.last_bsdf_pdf = bs.pdf * surface.opacity;
    path.last_delta = bs.delta;
    path.bounce += 1;
    roulette(view, path, numbers)
}

/// Russian roulette after a bounce (seed 000 §3.2). Returns whether the path goes on.
fn roulette(view: &SceneView, path: &mut PathState, numbers: &VertexSampler) -> bool {
    // Russian roulette (seed 000 §3.2): below the threshold, survive with weight/threshold.
    let weight = path.throughput.max_element();
    if weight < view.rr_threshold {
        let survive = weight / view.rr_threshold;
        if numbers.get(dims::ROULETTE) >= survive {
            return false;
        }
        path.throughput /= survive;
    }
    true
}

/// Adds a finished path's radiance to its pixel.
pub fn accumulate(film: &mut Film, path: &PathState) {
    film.add_sample(path.pixel as usize, path.radiance);
}

/// Traces one whole path (the naive megakernel's loop) and returns its radiance.
pub fn trace_path(view: &SceneView, pixel: u32, sample: u32, counters: &mut PathCounters) -> Vec3 {
    crate::estimator::trace_path(view, pixel, sample, counters)
}

/// The surface path tracer as an [`Estimator`]: the stage functions of this module.
impl Estimator for SceneView<'_> {
    type Path = PathState;

    fn generate(&self, pixel: u32, sample: u32) -> PathState {
        generate(self, pixel, sample)
    }

    fn extend(&self, path: &mut PathState, counters: &mut PathCounters) -> bool {
        extend(self, path, counters)
    }

    fn radiance(&self, path: &PathState) -> Vec3 {
        path.radiance
    }

    fn resolution(&self) -> (u32, u32) {
        (self.width, self.height)
    }
}
