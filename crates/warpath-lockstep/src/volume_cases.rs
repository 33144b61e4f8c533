//! The `volume_` cases: volume/medium.cuh and volume/estimator.cuh against warpath-volume
//! (grid.rs, phase.rs, random.rs, majorant.rs, medium.rs) and warpath-cpu's volpath.rs, and
//! the argument drawers that aim at what the tracking loops branch on: points on voxel
//! centres and outside the unit cube, rays grazing or along the cube's faces, anisotropies at
//! the isotropic switch, segments ending inside, at and beyond the media, unbounded ones.
//!
//! Grids and rays of the pure cases travel in the arguments; the media of the free-flight and
//! transmittance cases are the scene's (`Medium` on the Rust side, the `GpuMedium` records and
//! grid array of `warpath_cuda::volume_upload::MediaTables` on the device side).

use crate::cases::draw;
use crate::det_cases::step_ulps;
use crate::host_scene::HostScene;
use crate::words::{Output, Reader, Rng, Words};
use glam::Vec3;
use warpath_cpu::integrator::PathCounters;
use warpath_cpu::volpath::{self, VolumePath};
use warpath_cuda::volume_upload::counter_slots;
use warpath_volume::grid::axis_corners;
use warpath_volume::majorant::{MajorantWalk, clip_to_unit_cube};
use warpath_volume::medium::{AffineRows, FreeFlight, MediumDensity, TrackingCounts};
use warpath_volume::phase::{ISOTROPIC_G, hg_eval, hg_sample, hg_sample_cos};
use warpath_volume::random::TrackingRng;
use warpath_volume::{Medium, VolumeGrid};

/// The most advances the walk cases follow (both ports stop there).
const MAX_WALK_STEPS: usize = 256;

// ---- the Rust twins ---------------------------------------------------------------------------

pub fn grid_lookup(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let resolution = [r.u(), r.u(), r.u()];
    let channels = r.u();
    let count = resolution.iter().product::<u32>() * channels;
    let data = (0..count).map(|_| r.f()).collect();
    let (p, channel) = (r.vec3(), r.u());
    for axis in 0..3 {
        let (lower, upper, fraction) = axis_corners(p[axis], resolution[axis]);
        o.u(lower);
        o.u(upper);
        o.f(fraction);
    }
    let grid = VolumeGrid::new(resolution, channels, data).expect("the drawer makes whole grids");
    o.f(grid.lookup_channel(p, channel));
}

pub fn phase_eval(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let g = r.f();
    o.f(hg_eval(g, r.f()));
}

pub fn phase_sample(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (g, direction, u) = (r.f(), r.vec3(), r.vec2());
    o.f(hg_sample_cos(g, u.x));
    let (wi, pdf) = hg_sample(g, direction, u);
    o.vec3(wi);
    o.f(pdf);
}

pub fn tracking_rng(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (seed, pixel, sample, bounce, stream) = (r.u(), r.u(), r.u(), r.u(), r.u());
    let mut rng = TrackingRng::new(seed, pixel, sample, bounce, stream);
    for _ in 0..r.u() {
        o.f(rng.next());
    }
    o.u(rng.counter);
}

pub fn affine(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let rows = AffineRows(std::array::from_fn(|_| r.f()));
    let (p, v) = (r.vec3(), r.vec3());
    o.vec3(rows.point(p));
    o.vec3(rows.vector(v));
}

pub fn clip(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (origin, direction, t_max) = (r.vec3(), r.vec3(), r.f());
    let clipped = clip_to_unit_cube(origin, direction, t_max);
    o.flag(clipped.is_some());
    if let Some((t0, t1)) = clipped {
        o.f(t0);
        o.f(t1);
    }
}

pub fn majorant_walk(_: &HostScene, r: &mut Reader, o: &mut Output) {
    let (origin, direction, t0, t1) = (r.vec3(), r.vec3(), r.f(), r.f());
    let resolution = [r.u(), r.u(), r.u()];
    let mut walk = MajorantWalk::new(origin, direction, t0, t1, resolution);
    let write_cell = |o: &mut Output, walk: &MajorantWalk| {
        for c in walk.cell {
            o.u(c as u32);
        }
        o.f(walk.cell_end());
    };
    o.f(walk.t_end);
    write_cell(o, &walk);
    for _ in 0..MAX_WALK_STEPS {
        let moved = walk.advance(resolution);
        o.flag(moved);
        if !moved {
            break;
        }
        write_cell(o, &walk);
    }
}

/// A tracking loop's arguments: medium index, origin, direction, t_max and the stream.
struct Segment {
    medium: usize,
    origin: Vec3,
    direction: Vec3,
    t_max: f32,
    rng: TrackingRng,
}

fn read_segment(r: &mut Reader) -> Segment {
    let (medium, origin, direction, t_max) = (r.u() as usize, r.vec3(), r.vec3(), r.f());
    let rng = TrackingRng::new(r.u(), r.u(), r.u(), r.u(), r.u());
    Segment { medium, origin, direction, t_max, rng }
}

fn write_tracking(o: &mut Output, rng: &TrackingRng, counts: &TrackingCounts) {
    o.u(rng.counter);
    o.u(counts.steps as u32);
    o.u(counts.density_lookups as u32);
    o.u(counts.albedo_lookups as u32);
}

pub fn free_flight(s: &HostScene, r: &mut Reader, o: &mut Output) {
    let mut segment = read_segment(r);
    let medium = &s.scene.media[segment.medium];
    let mut counts = TrackingCounts::default();
    let flight =
        medium.sample_free_flight(segment.origin, segment.direction, segment.t_max, &mut segment.rng, &mut counts);
    match flight {
        FreeFlight::Scatter { t, weight } => {
            o.flag(true);
            o.f(t);
            o.vec3(weight);
            o.vec3(medium.albedo_along(segment.origin, segment.direction, t, &mut counts));
        }
        FreeFlight::Pass { weight } => {
            o.flag(false);
            o.vec3(weight);
        }
    }
    write_tracking(o, &segment.rng, &counts);
}

pub fn transmittance(s: &HostScene, r: &mut Reader, o: &mut Output) {
    let mut segment = read_segment(r);
    let medium = &s.scene.media[segment.medium];
    let mut counts = TrackingCounts::default();
    o.vec3(medium.transmittance(segment.origin, segment.direction, segment.t_max, &mut segment.rng, &mut counts));
    write_tracking(o, &segment.rng, &counts);
}

pub fn shadow_transmittance(s: &HostScene, r: &mut Reader, o: &mut Output) {
    let (origin, direction, t_max, medium) = (r.vec3(), r.vec3(), r.f(), r.u());
    let mut rng = TrackingRng::new(r.u(), r.u(), r.u(), r.u(), r.u());
    let mut counts = TrackingCounts::default();
    let view = s.volume_view();
    o.vec3(volpath::shadow_transmittance(&view, origin, direction, t_max, medium, &mut rng, &mut counts));
    write_tracking(o, &rng, &counts);
}

/// The path state and running counters as cpp/lockstep.cpp's volume_path writes them.
fn write_volume_state(o: &mut Output, path: &VolumePath, goes_on: bool, counters: &PathCounters) {
    o.flag(goes_on);
    o.vec3(path.ray.o);
    o.vec3(path.ray.d);
    o.vec3(path.throughput);
    o.vec3(path.radiance);
    o.u(path.bounce);
    o.f(path.last_pdf);
    o.flag(path.last_delta);
    o.u(path.medium);
    o.u(counters.extension_rays as u32);
    o.u(counters.shadow_rays as u32);
    o.u(counters.tracking.steps as u32);
    o.u(counters.tracking.density_lookups as u32);
    o.u(counters.tracking.albedo_lookups as u32);
}

/// Words per step of volume_path (flag, origin, direction, throughput, radiance, bounce,
/// pdf, delta, medium, five counters).
pub const VOLUME_STATE_WORDS: usize = 22;

/// One whole volumetric path through warpath-cpu's volpath: the state and counters after
/// generate and after every extend, then the paths entering extend per bounce slot.
pub fn volume_path(s: &HostScene, r: &mut Reader, o: &mut Output) {
    let (pixel, sample) = (r.u(), r.u());
    let view = s.volume_view();
    let mut counters = PathCounters::default();
    let mut path = volpath::generate(&view, pixel, sample);
    write_volume_state(o, &path, true, &counters);
    let mut goes_on = true;
    while goes_on {
        goes_on = volpath::extend(&view, &mut path, &mut counters);
        write_volume_state(o, &path, goes_on, &counters);
    }
    write_bounce_counts(s, o, &counters);
}

/// The paths entering extend per bounce slot, as cpp/lockstep.cpp's volume_path ends.
fn write_bounce_counts(s: &HostScene, o: &mut Output, counters: &PathCounters) {
    for bounce in 0..counter_slots(s.scene.settings.max_depth) as usize {
        o.u(counters.active_per_bounce.get(bounce).copied().unwrap_or(0) as u32);
    }
}

/// The same path, only its final state and the counters: what the deferred estimator of
/// sortingSK (whose extends end half a step from these) must reach.
pub fn volume_path_final(s: &HostScene, r: &mut Reader, o: &mut Output) {
    let (pixel, sample) = (r.u(), r.u());
    let view = s.volume_view();
    let mut counters = PathCounters::default();
    let mut path = volpath::generate(&view, pixel, sample);
    while volpath::extend(&view, &mut path, &mut counters) {}
    write_volume_state(o, &path, false, &counters);
    write_bounce_counts(s, o, &counters);
}

// ---- argument drawers -------------------------------------------------------------------------

/// `x` moved up to `spread` ulps either way.
fn jitter(rng: &mut Rng, x: f32, spread: u32) -> f32 {
    step_ulps(x, rng.below(2 * spread + 1) as i32 - spread as i32)
}

/// A local coordinate: inside the unit cube, on a voxel centre of `n` (give or take an ulp),
/// on the cube's faces, or outside it.
fn local_coordinate(rng: &mut Rng, n: u32) -> f32 {
    match rng.below(10) {
        0..=4 => rng.unit(),
        5 | 6 => {
            let centre = (rng.below(n) as f32 + 0.5) / n as f32;
            jitter(rng, centre, 2)
        }
        7 => rng.pick(&[0.0, 1.0, -0.0, ONE_MINUS, 1e-30, 0.5]),
        _ => rng.range(-1.0, 2.0),
    }
}

const ONE_MINUS: f32 = 1.0 - f32::EPSILON / 2.0;

pub fn grid_query(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let resolution = std::array::from_fn::<u32, 3, _>(|_| if rng.chance(0.2) { 1 } else { 1 + rng.below(5) });
    let channels = rng.pick(&[1, 3]);
    for n in resolution {
        w.u(n);
    }
    w.u(channels);
    for _ in 0..resolution.iter().product::<u32>() * channels {
        w.f(match rng.below(8) {
            0 => 0.0,
            1 => rng.range(0.0, 1e5),
            _ => rng.range(0.0, 10.0),
        });
    }
    let p = Vec3::new(
        local_coordinate(rng, resolution[0]),
        local_coordinate(rng, resolution[1]),
        local_coordinate(rng, resolution[2]),
    );
    w.vec3(p);
    w.u(rng.below(channels));
}

/// An anisotropy: uniform in (−1, 1), at the isotropic switch (±10⁻³, give or take an ulp),
/// 0, −0, or close to ±1.
fn anisotropy(rng: &mut Rng) -> f32 {
    match rng.below(8) {
        0 => {
            let g = rng.pick(&[ISOTROPIC_G, -ISOTROPIC_G]);
            jitter(rng, g, 2)
        }
        1 => rng.pick(&[0.0, -0.0, 0.999, -0.999, 0.9, -0.9]),
        _ => rng.range(-0.99, 0.99),
    }
}

pub fn phase_eval_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.f(anisotropy(rng));
    w.f(if rng.chance(0.1) { rng.pick(&[1.0, -1.0, 0.0, -0.0]) } else { rng.range(-1.0, 1.0) });
}

pub fn phase_sample_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    w.f(anisotropy(rng));
    w.vec3(draw::direction(rng));
    w.vec2(draw::u2(rng));
}

pub fn tracking_rng_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    for _ in 0..5 {
        w.u(if rng.chance(0.5) { rng.below(8) } else { rng.u32() });
    }
    w.u(rng.below(9));
}

pub fn affine_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    for _ in 0..12 {
        w.f(if rng.chance(0.1) { rng.pick(&[0.0, 1.0, -1.0]) } else { rng.range(-3.0, 3.0) });
    }
    w.vec3(rng.point(5.0));
    w.vec3(draw::direction(rng) * rng.range(0.1, 4.0));
}

/// A local ray near the unit cube: origins inside, on faces and outside; directions of any
/// length, some along the axes or with exactly zero (or −0) components.
fn local_ray(rng: &mut Rng) -> (Vec3, Vec3) {
    let origin = match rng.below(6) {
        0 => Vec3::new(rng.unit(), rng.unit(), rng.unit()),
        1 => {
            // On a face.
            let mut p = Vec3::new(rng.unit(), rng.unit(), rng.unit());
            p[rng.below(3) as usize] = rng.pick(&[0.0, 1.0]);
            p
        }
        _ => Vec3::splat(0.5) + rng.point(1.5),
    };
    let target = Vec3::new(rng.range(-0.2, 1.2), rng.range(-0.2, 1.2), rng.range(-0.2, 1.2));
    let mut direction = match rng.below(4) {
        0 => draw::direction(rng),
        _ => (target - origin).normalize_or(Vec3::X),
    } * rng.pick(&[1.0, 1.0, 0.3, 2.5]);
    if rng.chance(0.15) {
        direction[rng.below(3) as usize] = rng.pick(&[0.0, -0.0]);
    }
    (origin, direction)
}

fn segment_length(rng: &mut Rng) -> f32 {
    match rng.below(10) {
        0..=3 => f32::INFINITY,
        4 => rng.pick(&[0.0, -1.0, 1e-6]),
        _ => rng.range(0.0, 4.0),
    }
}

pub fn clip_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let (origin, direction) = local_ray(rng);
    w.vec3(origin);
    w.vec3(direction);
    w.f(segment_length(rng));
}

/// A walk over the segment inside the unit cube (as the tracker clips it), or now and then
/// over an unclipped one (the walk clamps its first cell).
pub fn walk_args(rng: &mut Rng, _: &HostScene, w: &mut Words) {
    let (origin, direction) = local_ray(rng);
    let (t0, t1) = match clip_to_unit_cube(origin, direction, segment_length(rng)) {
        Some(range) if rng.chance(0.85) => range,
        _ => {
            let t0 = rng.range(0.0, 1.0);
            (t0, t0 + rng.range(0.0, 3.0))
        }
    };
    w.vec3(origin);
    w.vec3(direction);
    w.f(t0);
    w.f(t1);
    for _ in 0..3 {
        w.u(if rng.chance(0.2) { 1 } else { 1 + rng.below(8) });
    }
}

/// Whether ratio tracking may never end on an unbounded segment of `medium`: a homogeneous
/// σ_t with a zero channel beside a positive one keeps that channel's transmittance at 1, so
/// Russian roulette never starts (on the CPU and the GPU alike).
fn endless_when_unbounded(medium: &Medium) -> bool {
    match &medium.density {
        MediumDensity::Homogeneous { sigma_t } => sigma_t.min_element() == 0.0 && sigma_t.max_element() > 0.0,
        MediumDensity::Grid { .. } => false,
    }
}

fn tracking_stream(rng: &mut Rng, w: &mut Words) {
    w.u(rng.u32());
    w.u(rng.below(1 << 16));
    w.u(if rng.chance(0.5) { rng.below(64) } else { rng.u32() });
    w.u(rng.below(64));
    w.u(rng.below(2));
}

/// (medium, origin, direction, t_max, stream) for the tracking loops: grid media get rays
/// from around their unit cube (mostly aimed into it) in world space, homogeneous media any
/// ray; segments end short of, inside or past the medium, or never.
pub fn segment_args(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    let index = rng.below(scene.scene.media.len() as u32);
    let medium = &scene.scene.media[index as usize];
    let (origin, direction) = if medium.is_homogeneous() {
        (rng.point(2.0), draw::direction(rng))
    } else {
        let local = Vec3::splat(0.5) + rng.point(0.8);
        let origin = medium.to_world.transform_point3(local);
        let target = medium.to_world.transform_point3(Vec3::new(rng.unit(), rng.unit(), rng.unit()));
        let direction = if rng.chance(0.8) { (target - origin).normalize_or(Vec3::Y) } else { draw::direction(rng) };
        (origin, direction)
    };
    let mut t_max = match rng.below(10) {
        0..=3 => f32::INFINITY,
        4 => rng.pick(&[0.0, 1e-6, -1.0]),
        _ => rng.range(0.0, 4.0),
    };
    if t_max.is_infinite() && endless_when_unbounded(medium) {
        t_max = rng.range(0.0, 8.0);
    }
    w.u(index);
    w.vec3(origin);
    w.vec3(direction);
    w.f(t_max);
    tracking_stream(rng, w);
}

/// A point in (or just outside) the scene's bounds.
fn scene_point(rng: &mut Rng, scene: &HostScene) -> Vec3 {
    let bounds = scene.bounds();
    let t = Vec3::new(rng.range(-0.1, 1.1), rng.range(-0.1, 1.1), rng.range(-0.1, 1.1));
    bounds.min + (bounds.max - bounds.min) * t
}

/// A shadow ray of the volumetric estimator: from a scene point toward another one (a
/// segment a little short of it, as next-event estimation makes) or off to infinity, starting
/// in any of the scene's media or in vacuum.
pub fn shadow_args(rng: &mut Rng, scene: &HostScene, w: &mut Words) {
    let origin = scene_point(rng, scene);
    let target = scene_point(rng, scene);
    let to = target - origin;
    let (direction, t_max) = if rng.chance(0.6) && to.length() > 1e-3 {
        (to.normalize(), to.length() * (1.0 - 1e-4))
    } else {
        (draw::direction(rng), f32::INFINITY)
    };
    w.vec3(origin);
    w.vec3(direction);
    w.f(t_max);
    w.u(rng.below(scene.scene.media.len() as u32 + 1));
    tracking_stream(rng, w);
}
