//! The `Renderer` API on the CPU (no GPU needed): films of disjoint sample ranges merge into
//! the film of their union bit for bit, the progressive loop stops on cancellation after the
//! current pass, keeps the finished passes when a later one fails, and ReSTIR's frames must
//! follow each other.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use warpath_render::{Backend, BackendChoice, Error, Film, Integrator, Overrides, Renderer, Settings, prepare, render};

fn cornell_settings(spp: u32, pass: u32) -> (warpath_scene::Scene, Settings) {
    let scene = warpath_scene::load("cornell").expect("built-in");
    let overrides =
        Overrides { spp: Some(spp), resolution: Some((24, 16)), pass_size: Some(pass), ..Default::default() };
    let settings = Settings::resolve(&scene, &overrides).expect("valid");
    (scene, settings)
}

fn same_film(a: &Film, b: &Film) -> bool {
    a.count == b.count
        && a.sum.iter().zip(&b.sum).all(|(x, y)| x.to_array().map(f64::to_bits) == y.to_array().map(f64::to_bits))
        && a.sum_sq.iter().zip(&b.sum_sq).all(|(x, y)| x.to_array().map(f64::to_bits) == y.to_array().map(f64::to_bits))
}

#[test]
fn films_of_disjoint_ranges_merge_into_the_film_of_their_union() {
    let (scene, settings) = cornell_settings(8, 4);
    let backend = Backend::Cpu;
    let never = AtomicBool::new(false);
    let whole = render(prepare(&scene, &settings, &backend).unwrap().as_mut(), 0..8, &never, |_| {}).unwrap();
    assert_eq!((whole.done, whole.film.count[0]), (8, 8));
    let mut first = render(prepare(&scene, &settings, &backend).unwrap().as_mut(), 0..4, &never, |_| {}).unwrap();
    let second = render(prepare(&scene, &settings, &backend).unwrap().as_mut(), 4..8, &never, |_| {}).unwrap();
    assert!(!same_film(&first.film, &second.film), "different sample indices give different samples");
    first.film.merge(&second.film);
    assert!(same_film(&first.film, &whole.film), "merged halves = one render of 0..8");
    assert!(whole.rays.unwrap() > 0, "the CPU counts its rays");
}

#[test]
fn progress_counts_passes_and_cancel_stops_after_the_current_pass() {
    let (scene, settings) = cornell_settings(64, 2);
    let backend = Backend::Cpu;
    let cancel = AtomicBool::new(false);
    let mut seen = Vec::new();
    let outcome = render(prepare(&scene, &settings, &backend).unwrap().as_mut(), 10..64, &cancel, |done| {
        seen.push(done);
        if done == 6 {
            cancel.store(true, Ordering::SeqCst);
        }
    })
    .unwrap();
    assert_eq!(seen, vec![2, 4, 6]);
    assert!(outcome.cancelled);
    assert_eq!(outcome.done, 6);
    assert!(outcome.film.count.iter().all(|&c| c == 6));
}

/// A renderer whose third pass fails.
struct FailsOnThirdPass {
    passes: u32,
    film: Film,
}

impl Renderer for FailsOnThirdPass {
    fn describe(&self) -> String {
        "test".into()
    }
    fn pass_size(&self) -> u32 {
        1
    }
    fn render_pass(&mut self, samples: Range<u32>) -> warpath_render::Result<()> {
        self.passes += 1;
        if self.passes == 3 {
            return Err(Error::invalid("the device fell over"));
        }
        for i in 0..self.film.pixel_count() {
            self.film.add_sample(i, glam::Vec3::splat(samples.start as f32));
        }
        Ok(())
    }
    fn film(&self) -> warpath_render::Result<Film> {
        Ok(self.film.clone())
    }
    fn clear_film(&mut self) -> warpath_render::Result<()> {
        Ok(())
    }
    fn rays(&self) -> warpath_render::Result<Option<u64>> {
        Ok(None)
    }
}

#[test]
fn a_failing_pass_keeps_the_finished_ones_and_a_failing_first_pass_is_an_error() {
    let never = AtomicBool::new(false);
    let mut renderer = FailsOnThirdPass { passes: 0, film: Film::new(2, 2) };
    let outcome = render(&mut renderer, 0..5, &never, |_| {}).expect("two passes finished");
    assert_eq!(outcome.done, 2);
    assert!(outcome.failed.unwrap().to_string().contains("fell over"));
    assert_eq!(outcome.film.count, vec![2; 4]);
    let mut renderer = FailsOnThirdPass { passes: 2, film: Film::new(2, 2) };
    assert!(render(&mut renderer, 0..5, &never, |_| {}).is_err());
}

#[test]
fn restir_renders_frames_in_order_on_the_cpu() {
    let scene = warpath_scene::load("many-lights:64").expect("built-in");
    let overrides = Overrides {
        frames: Some(3),
        resolution: Some((16, 12)),
        integrator: Integrator::RestirDi,
        ..Default::default()
    };
    let settings = Settings::resolve(&scene, &overrides).unwrap();
    let (backend, notes) = warpath_render::open_backend(BackendChoice::Cpu, &scene, &settings).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    let mut renderer = prepare(&scene, &settings, &backend).unwrap();
    assert!(renderer.describe().starts_with("ReSTIR DI"));
    let never = AtomicBool::new(false);
    let outcome = render(renderer.as_mut(), 0..3, &never, |_| {}).unwrap();
    assert!(outcome.film.count.iter().all(|&c| c == 3));
    let error = renderer.render_pass(7..8).unwrap_err().to_string();
    assert!(error.contains("follow each other"), "{error}");
    renderer.render_pass(3..4).expect("the next frame");
    assert!(renderer.film().unwrap().count.iter().all(|&c| c == 4));
}

#[test]
fn restir_refuses_point_spot_and_directional_lights() {
    let mut scene = warpath_scene::load("many-lights:16").expect("built-in");
    scene.delta_lights.push(warpath_core::light::DeltaLight::point(glam::Vec3::Y, glam::Vec3::ONE));
    let overrides =
        Overrides { frames: Some(1), resolution: Some((8, 8)), integrator: Integrator::RestirDi, ..Default::default() };
    let settings = Settings::resolve(&scene, &overrides).unwrap();
    let error = prepare(&scene, &settings, &Backend::Cpu).err().expect("refused").to_string();
    assert!(error.contains("point/spot/directional") && error.contains("path tracer"), "{error}");
}

#[test]
fn the_cpu_says_which_gpu_settings_it_ignores() {
    let (scene, _) = cornell_settings(1, 1);
    let overrides = Overrides { strategy: Some(warpath_cuda::Strategy::Naive), ..Default::default() };
    let settings = Settings::resolve(&scene, &overrides).unwrap();
    let (_, notes) = warpath_render::open_backend(BackendChoice::Cpu, &scene, &settings).unwrap();
    assert!(notes.iter().any(|n| n.contains("--strategy naive")), "{notes:?}");
}
