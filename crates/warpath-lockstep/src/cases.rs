//! The lockstep cases: for each device function of the CUDA headers that cpp/lockstep.cpp
//! exposes, its Rust twin (same name, same argument and result words), how to draw its
//! arguments, which scenes it runs against and the bound of the comparison.
//!
//! Adding a function: a case function in cpp/lockstep.cpp and a line in its CASES; here a
//! twin (read the arguments with [`Reader`], write the results with [`Output`] in the C++
//! order), an argument drawer (or an existing one), and a line in [`CASES`].

use crate::det_cases;
use crate::host_scene::HostScene;
use crate::microfacet_cases;
use crate::normal_map_cases;
use crate::opacity_cases;
use crate::volume_cases;
use crate::words::{Output, Reader, Rng, Words};
use glam::{DVec3, Vec2, Vec3};
use warpath_core::bsdf;
use warpath_core::film::Film;
use warpath_core::light::{DeltaLight, Environment, sample_linear};
use warpath_core::material::Material;
use warpath_core::math::{Frame, intersect_triangle, offset_ray_origin};
use warpath_core::sampler::{ONE_MINUS_EPSILON, Sampler, SamplerKind};
use warpath_core::warp;
use warpath_cpu::integrator::{self, PathCounters, PathState};

/// How close the two ports' results must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Every word equal, bit for bit (a NaN equals any NaN): both sides perform the same
    /// exactly rounded operations in the same order (transcendentals included: detmath).
    Exact,
    /// Float words within this many ulps (0.0 and -0.0 are 1 apart); other words exact.
    /// For functions whose two ports may round differently; none needs it today.
    Ulps(u32),
}

/// Which scenes a case runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Pure functions of their arguments: run once, against the empty scene.
    Nothing,
    /// A camera and film size: every scene but the empty one.
    Camera,
    /// At least one light (triangle or environment).
    Lights,
    /// An environment map.
    EnvironmentMap,
    /// At least one texture.
    Textures,
    /// Geometry to trace paths through.
    Geometry,
    /// Participating media (the medium-level volume cases).
    Media,
    /// What the volumetric path tracer renders: geometry, and media or null boundaries.
    Volume,
}

impl Needs {
    pub fn admits(self, scene: &HostScene) -> bool {
        match self {
            Needs::Nothing => scene.is_empty(),
            Needs::Camera => !scene.is_empty(),
            Needs::Lights => scene.params.selection_count > 0,
            Needs::EnvironmentMap => matches!(scene.lights.environment, Environment::Map(_)),
            Needs::Textures => !scene.scene.textures.is_empty(),
            Needs::Geometry => !scene.scene.triangles.is_empty(),
            Needs::Media => !scene.scene.media.is_empty(),
            Needs::Volume => !scene.scene.triangles.is_empty() && scene.scene.needs_volume_estimator(),
        }
    }
}

/// One function under comparison.
pub struct Case {
    /// The C++ case of the same name in cpp/lockstep.cpp.
    pub name: &'static str,
    pub bound: Bound,
    pub needs: Needs,
    /// Draws one argument list.
    pub arguments: fn(&mut Rng, &HostScene, &mut Words),
    /// The Rust twin: reads the arguments, writes the results.
    pub rust: fn(&HostScene, &mut Reader, &mut Output),
}

const fn exact(
    name: &'static str,
    needs: Needs,
    arguments: fn(&mut Rng, &HostScene, &mut Words),
    rust: fn(&HostScene, &mut Reader, &mut Output),
) -> Case {
    Case { name, bound: Bound::Exact, needs, arguments, rust }
}

/// Every case, in the order of cpp/lockstep.cpp's table.
pub const CASES: &[Case] = &[
    exact("sampler_get", Needs::Nothing, draw::sampler_call, sampler_get),
    exact("warp_disk_concentric", Needs::Nothing, draw::square, |_, r, o| {
        o.vec2(warp::square_to_disk_concentric(r.vec2()))
    }),
    exact("warp_cosine_hemisphere", Needs::Nothing, draw::square, |_, r, o| {
        o.vec3(warp::square_to_cosine_hemisphere(r.vec2()))
    }),
    exact("warp_cosine_hemisphere_pdf", Needs::Nothing, draw::direction_arg, |_, r, o| {
        o.f(warp::cosine_hemisphere_pdf(r.vec3()))
    }),
    exact("warp_uniform_sphere", Needs::Nothing, draw::square, |_, r, o| {
        o.vec3(warp::square_to_uniform_sphere(r.vec2()))
    }),
    exact("warp_triangle", Needs::Nothing, draw::square, |_, r, o| o.vec2(warp::square_to_triangle(r.vec2()))),
    exact("warp_blinn_lobe", Needs::Nothing, draw::square_exponent, |_, r, o| {
        let u = r.vec2();
        o.vec3(warp::square_to_blinn_lobe(u, r.f()))
    }),
    exact("warp_blinn_lobe_pdf", Needs::Nothing, draw::direction_exponent, |_, r, o| {
        let v = r.vec3();
        o.f(warp::blinn_lobe_pdf(v, r.f()))
    }),
    exact("math_frame", Needs::Nothing, draw::two_directions, math_frame),
    exact("math_offset_ray_origin", Needs::Nothing, draw::offset_ray_origin, |_, r, o| {
        let (p, ng, dir) = (r.vec3(), r.vec3(), r.vec3());
        o.vec3(offset_ray_origin(p, ng, dir))
    }),
    exact("math_intersect_triangle", Needs::Nothing, draw::ray_and_triangle, math_intersect_triangle),
    exact("math_normal_map_dp_du", Needs::Nothing, normal_map_cases::uv_triangle, normal_map_cases::dp_du),
    exact("math_normal_map_perturb", Needs::Nothing, normal_map_cases::perturb_args, normal_map_cases::perturb),
    exact("math_bump_map_dp_dv", Needs::Nothing, normal_map_cases::uv_triangle, normal_map_cases::dp_dv),
    exact(
        "math_bump_map_gradient",
        Needs::Nothing,
        normal_map_cases::height_gradient_args,
        normal_map_cases::height_gradient,
    ),
    exact("math_bump_map_perturb", Needs::Nothing, normal_map_cases::bump_perturb_args, normal_map_cases::bump_perturb),
    exact("math_opacity", Needs::Nothing, opacity_cases::alpha_args, opacity_cases::alpha),
    exact("math_mask_choose", Needs::Nothing, opacity_cases::choose_args, opacity_cases::choose),
    exact("bsdf_fresnel_dielectric", Needs::Nothing, draw::cosine_eta, |_, r, o| {
        let cos_theta_i = r.f();
        let fr = bsdf::fresnel_dielectric(cos_theta_i, r.f());
        o.f(fr.reflectance);
        o.f(fr.cos_theta_t);
        o.f(fr.eta_it);
        o.f(fr.eta_ti);
    }),
    exact("bsdf_rough_plastic_coat", Needs::Nothing, draw::rough_plastic_coat, |_, r, o| {
        let (roughness, eta, cos_theta, beckmann) = (r.f(), r.f(), r.f(), r.u() != 0);
        let cell = bsdf::rough_plastic::coat_cell(roughness, eta, beckmann);
        o.flag(cell.is_some());
        if let Some(cell) = cell {
            o.u(cell.p_node as u32);
            o.u(cell.x_node as u32);
            o.u(cell.r_x_node as u32);
            o.f(bsdf::rough_plastic::coat_transmittance(&cell, cos_theta));
            o.f(bsdf::rough_plastic::coat_internal_reflectance(&cell));
        }
    }),
    exact(
        "bsdf_fresnel_conductor",
        Needs::Nothing,
        microfacet_cases::fresnel_conductor_args,
        microfacet_cases::fresnel_conductor,
    ),
    exact("bsdf_beckmann", Needs::Nothing, microfacet_cases::beckmann_args, microfacet_cases::beckmann_functions),
    exact(
        "bsdf_sample_beckmann",
        Needs::Nothing,
        microfacet_cases::sample_beckmann_args,
        microfacet_cases::sample_beckmann,
    ),
    exact("bsdf_schlick_fresnel", Needs::Nothing, draw::color_cosine, |_, r, o| {
        let f0 = r.vec3();
        o.vec3(bsdf::schlick_fresnel(f0, r.f()))
    }),
    exact("bsdf_blinn_normalization", Needs::Nothing, draw::exponent_arg, |_, r, o| {
        o.f(bsdf::blinn_normalization(r.f()))
    }),
    exact("bsdf_ggx_d", Needs::Nothing, draw::direction_alpha, |_, r, o| {
        let h = r.vec3();
        o.f(bsdf::ggx_d(h, r.f()))
    }),
    exact("bsdf_smith", Needs::Nothing, draw::two_directions_alpha, |_, r, o| {
        let (wo, wi, alpha) = (r.vec3(), r.vec3(), r.f());
        o.f(bsdf::ggx_lambda(wo, alpha));
        o.f(bsdf::smith_g1(wo, alpha));
        o.f(bsdf::smith_g2(wo, wi, alpha));
    }),
    exact("bsdf_sample_ggx_vndf", Needs::Nothing, draw::vndf_sample, |_, r, o| {
        let (wo, alpha, u) = (r.vec3(), r.f(), r.vec2());
        o.vec3(bsdf::sample_ggx_vndf(wo, alpha, u))
    }),
    exact("bsdf_ggx_vndf_pdf", Needs::Nothing, draw::two_directions_alpha, |_, r, o| {
        let (wo, h, alpha) = (r.vec3(), r.vec3(), r.f());
        o.f(bsdf::ggx_vndf_pdf(wo, h, alpha))
    }),
    exact("bsdf_reflect_refract", Needs::Nothing, draw::reflect_refract, |_, r, o| {
        let (w, h, cos_theta_t, eta_ti) = (r.vec3(), r.vec3(), r.f(), r.f());
        o.vec3(bsdf::reflect_z(w));
        o.vec3(bsdf::reflect(w, h));
        o.vec3(bsdf::refract(w, h, cos_theta_t, eta_ti));
    }),
    exact("bsdf_material_class", Needs::Nothing, draw::material_arg, |_, r, o| {
        let m: Material = r.pod();
        o.u(m.kind() as u32);
        o.flag(bsdf::is_transmissive(&m));
        o.flag(bsdf::is_purely_specular(&m));
    }),
    exact("bsdf_eval", Needs::Nothing, draw::bsdf_query, |_, r, o| {
        let (m, base_color, wo, wi) = (r.pod::<Material>(), r.vec3(), r.vec3(), r.vec3());
        o.vec3(bsdf::eval(&m, base_color, wo, wi))
    }),
    exact("bsdf_pdf", Needs::Nothing, draw::bsdf_query, |_, r, o| {
        let (m, base_color, wo, wi) = (r.pod::<Material>(), r.vec3(), r.vec3(), r.vec3());
        o.f(bsdf::pdf(&m, base_color, wo, wi))
    }),
    exact("bsdf_sample", Needs::Nothing, draw::bsdf_sample, bsdf_sample),
    exact("light_delta", Needs::Nothing, draw::delta_light_query, |_, r, o| {
        let (light, p, w) = (r.pod::<DeltaLight>(), r.vec3(), r.vec3());
        o.f(light.falloff(w));
        let lit = light.illuminate(p);
        o.flag(lit.is_some());
        if let Some((wi, distance, radiance)) = lit {
            o.vec3(wi);
            o.f(distance);
            o.vec3(radiance);
        }
    }),
    exact("light_selection", Needs::Lights, draw::unit_arg, light_selection),
    exact("light_sample", Needs::Lights, draw::light_sample, light_sample),
    exact("light_pdf_triangle", Needs::Lights, draw::light_pdf_triangle, |s, r, o| {
        let (light, wi, distance) = (r.i(), r.vec3(), r.f());
        let light = usize::try_from(light).unwrap_or(usize::MAX);
        o.f(s.lights.pdf_triangle(light, wi, distance))
    }),
    exact("light_pdf_environment", Needs::Lights, draw::environment_direction, |s, r, o| {
        o.f(s.lights.pdf_environment(r.vec3()))
    }),
    exact("light_environment_radiance", Needs::Camera, draw::environment_direction, |s, r, o| {
        o.vec3(s.lights.environment_radiance(r.vec3()))
    }),
    exact("env_direction_to_uv", Needs::EnvironmentMap, draw::environment_direction, |s, r, o| {
        o.vec2(s.environment_map().direction_to_uv(r.vec3()))
    }),
    exact("env_patch", Needs::EnvironmentMap, draw::patch_uv, |s, r, o| {
        let p = s.environment_map().patch(r.vec2());
        o.u(p.column as u32);
        o.u(p.next_column as u32);
        o.u(p.row as u32);
        o.f(p.fx);
        o.f(p.fy);
    }),
    exact("env_texel", Needs::EnvironmentMap, draw::texel, |s, r, o| {
        let map = s.environment_map();
        let (column, row) = (r.u() as usize, r.u() as usize);
        let texel = row * map.width as usize + column;
        o.vec3(map.pixels[texel]);
        o.f(map.weights[texel]);
    }),
    exact("env_sample_cell", Needs::EnvironmentMap, draw::cell_sample, |s, r, o| {
        let (column, row, remapped, cell_pdf) = s.environment_map().distribution.sample_cell(r.vec2());
        o.u(column as u32);
        o.u(row as u32);
        o.vec2(remapped);
        o.f(cell_pdf);
    }),
    exact("env_cell_pdf", Needs::EnvironmentMap, draw::cell, |s, r, o| {
        let (column, row) = (r.u() as usize, r.u() as usize);
        o.f(s.environment_map().distribution.cell_pdf(column, row))
    }),
    exact("env_sample_linear", Needs::Nothing, draw::linear_weights, |_, r, o| {
        let (u, a, b) = (r.f(), r.f(), r.f());
        o.f(sample_linear(u, a, b))
    }),
    exact("env_sample", Needs::EnvironmentMap, draw::square, |s, r, o| {
        let sample = s.environment_map().sample(r.vec2());
        o.flag(sample.is_some());
        if let Some((wi, pdf)) = sample {
            o.vec3(wi);
            o.f(pdf);
        }
    }),
    exact("env_pdf", Needs::EnvironmentMap, draw::environment_direction, |s, r, o| {
        o.f(s.environment_map().pdf(r.vec3()))
    }),
    exact("env_radiance", Needs::EnvironmentMap, draw::environment_direction, |s, r, o| {
        o.vec3(s.environment_map().radiance(r.vec3()))
    }),
    exact("texture_sample", Needs::Textures, draw::texture_lookup, |s, r, o| {
        let (texture, uv) = (r.u(), r.vec2());
        o.vec3(s.scene.textures[texture as usize].sample(uv))
    }),
    exact("camera_generate_ray", Needs::Camera, draw::film_and_lens, |s, r, o| {
        let (film, lens) = (r.vec2(), r.vec2());
        let settings = &s.scene.settings;
        let ray = s.scene.camera.generate_ray(film, settings.width, settings.height, lens);
        o.vec3(ray.o);
        o.vec3(ray.d);
        o.f(ray.t_min);
        o.f(ray.t_max);
    }),
    exact("film_merge", Needs::Nothing, draw::film_pass, film_merge),
    // ReSTIR's target functions (issue 29): the CPU's TargetFunction::of.
    exact("restir_target", Needs::Nothing, draw::target_contribution, |_, r, o| {
        let code = r.u();
        let kind = warpath_core::restir::TargetFunction::EVALUATED.into_iter().find(|t| t.code() == code);
        let kind = kind.expect("a code of TargetFunction::EVALUATED");
        o.f(kind.of(r.vec3()))
    }),
    // Reuse's roughness similarity and the BSDF candidates' pdfs (restir/similarity.cuh).
    exact("restir_material_roughness", Needs::Nothing, draw::material_arg, |_, r, o| {
        o.f(warpath_core::restir::material_roughness(&r.pod::<Material>()))
    }),
    exact("restir_similarity_math", Needs::Nothing, draw::restir_similarity, |_, r, o| {
        use warpath_core::restir::{bsdf_area_pdf, mis_source_pdf, roughness_similar};
        let (a, b, threshold) = (r.f(), r.f(), r.f());
        o.flag(roughness_similar(a, b, threshold));
        let (pdf, cos_y, d2) = (r.f(), r.f(), r.f());
        o.f(bsdf_area_pdf(pdf, cos_y, d2));
        let (light_candidates, light_pdf, bsdf_candidates, bsdf_pdf) = (r.u(), r.f(), r.u(), r.f());
        o.f(mis_source_pdf(light_candidates, light_pdf, bsdf_candidates, bsdf_pdf))
    }),
    exact("det_sin_cos", Needs::Nothing, det_cases::sin_cos_arg, det_cases::sin_cos),
    exact("det_atan2", Needs::Nothing, det_cases::atan2_args, det_cases::atan2),
    exact("det_acos", Needs::Nothing, det_cases::acos_arg, det_cases::acos),
    exact("det_exp", Needs::Nothing, det_cases::exp_arg, det_cases::exp),
    exact("det_exp2", Needs::Nothing, det_cases::exp2_arg, det_cases::exp2),
    exact("det_ln", Needs::Nothing, det_cases::ln_arg, det_cases::ln),
    exact("det_pow", Needs::Nothing, det_cases::pow_args, det_cases::pow),
    exact("surface_path", Needs::Geometry, draw::pixel_sample, surface_path),
    exact("volume_grid_lookup", Needs::Nothing, volume_cases::grid_query, volume_cases::grid_lookup),
    exact("volume_hg_eval", Needs::Nothing, volume_cases::phase_eval_args, volume_cases::phase_eval),
    exact("volume_hg_sample", Needs::Nothing, volume_cases::phase_sample_args, volume_cases::phase_sample),
    exact("volume_tracking_rng", Needs::Nothing, volume_cases::tracking_rng_args, volume_cases::tracking_rng),
    exact("volume_affine", Needs::Nothing, volume_cases::affine_args, volume_cases::affine),
    exact("volume_clip", Needs::Nothing, volume_cases::clip_args, volume_cases::clip),
    exact("volume_majorant_walk", Needs::Nothing, volume_cases::walk_args, volume_cases::majorant_walk),
    exact("volume_free_flight", Needs::Media, volume_cases::segment_args, volume_cases::free_flight),
    exact("volume_transmittance", Needs::Media, volume_cases::segment_args, volume_cases::transmittance),
    exact("volume_shadow_transmittance", Needs::Volume, volume_cases::shadow_args, volume_cases::shadow_transmittance),
    exact("volume_path", Needs::Volume, draw::pixel_sample, volume_cases::volume_path),
    // The deferred estimator of sortingSK (medium vertices completed at the next extend):
    // the immediate CPU estimator's final state and counts, bit for bit.
    exact("volume_path_deferred", Needs::Volume, draw::pixel_sample, volume_cases::volume_path_final),
];

/// The case named `name`.
pub fn case(name: &str) -> &'static Case {
    CASES.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no lockstep case `{name}`"))
}

fn sampler_get(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let kind = if r.u() == SamplerKind::Pcg as u32 { SamplerKind::Pcg } else { SamplerKind::PaddedHalton };
    let sampler = Sampler::new(kind, r.u());
    let (pixel, sample, bounce, dim) = (r.u(), r.u(), r.u(), r.u());
    o.f(sampler.get(pixel, sample, bounce, dim));
}

fn math_frame(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (n, v) = (r.vec3(), r.vec3());
    let frame = Frame::from_normal(n);
    o.vec3(frame.s);
    o.vec3(frame.t);
    o.vec3(frame.n);
    o.vec3(frame.to_local(v));
    o.vec3(frame.to_world(v));
}

fn math_intersect_triangle(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (origin, direction, v0, v1, v2) = (r.vec3(), r.vec3(), r.vec3(), r.vec3(), r.vec3());
    let (t_min, t_max) = (r.f(), r.f());
    let hit = intersect_triangle(origin, direction, v0, v1, v2, t_min, t_max);
    o.flag(hit.is_some());
    if let Some((t, u, v)) = hit {
        o.f(t);
        o.f(u);
        o.f(v);
    }
}

fn bsdf_sample(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (m, base_color, wo, u_lobe, u) = (r.pod::<Material>(), r.vec3(), r.vec3(), r.f(), r.vec2());
    let sample = bsdf::sample(&m, base_color, wo, u_lobe, u);
    o.flag(sample.is_some());
    if let Some(s) = sample {
        o.vec3(s.wi);
        o.vec3(s.weight);
        o.f(s.pdf);
        o.flag(s.delta);
    }
}

fn light_selection(s: &HostScene, r: &mut Reader, o: &mut Output) {
    let (bin, pdf) = s.lights.selection.sample_discrete(r.f());
    o.u(bin as u32);
    o.f(pdf);
}

fn light_sample(s: &HostScene, r: &mut Reader, o: &mut Output) {
    let (p, u_select, u) = (r.vec3(), r.f(), r.vec2());
    let sample = s.lights.sample(p, u_select, u);
    o.flag(sample.is_some());
    if let Some(ls) = sample {
        o.vec3(ls.wi);
        o.f(ls.distance);
        o.vec3(ls.radiance);
        o.f(ls.pdf);
        o.flag(ls.delta);
    }
}

/// One pixel's f32 pass sums added to the film's f64 sums (the GPU's film_merge_pixel), then
/// the pass buffers as the GPU leaves them (zeroed).
fn film_merge(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let mut film = Film::new(1, 1);
    film.sum[0] = DVec3::new(r.d(), r.d(), r.d());
    film.sum_sq[0] = DVec3::new(r.d(), r.d(), r.d());
    let (pass_sum, pass_sum_sq) = (r.vec3(), r.vec3());
    film.count[0] = r.u();
    let pass_count = r.u();
    film.add_pass(0, pass_sum.as_dvec3(), pass_sum_sq.as_dvec3(), pass_count);
    for v in film.sum[0].to_array().into_iter().chain(film.sum_sq[0].to_array()) {
        o.d(v);
    }
    o.u(film.count[0]);
    o.vec3(Vec3::ZERO);
    o.vec3(Vec3::ZERO);
    o.u(0);
}

/// The path state as cpp/lockstep.cpp's surface_path writes it.
fn write_path_state(o: &mut Output, path: &PathState, goes_on: bool) {
    o.flag(goes_on);
    o.vec3(path.ray.o);
    o.vec3(path.ray.d);
    o.vec3(path.throughput);
    o.vec3(path.radiance);
    o.u(path.bounce);
    o.f(path.last_bsdf_pdf);
    o.flag(path.last_delta);
}

/// One whole path through warpath-cpu's estimator: the state after generate and after
/// every extend, then the counters (extension rays, shadow rays, paths per bounce).
fn surface_path(s: &HostScene, r: &mut Reader, o: &mut Output) {
    let (pixel, sample) = (r.u(), r.u());
    let view = s.scene_view();
    let mut counters = PathCounters::default();
    let mut path = integrator::generate(&view, pixel, sample);
    write_path_state(o, &path, true);
    let mut goes_on = true;
    while goes_on {
        goes_on = integrator::extend(&view, &mut path, &mut counters);
        write_path_state(o, &path, goes_on);
    }
    o.u(counters.extension_rays as u32);
    o.u(counters.shadow_rays as u32);
    for bounce in 0..=view.max_depth as usize {
        o.u(counters.active_per_bounce.get(bounce).copied().unwrap_or(0) as u32);
    }
}

/// Argument drawers (`cases/draw.rs`).
pub mod draw;
