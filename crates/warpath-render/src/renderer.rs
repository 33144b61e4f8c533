//! The `Renderer` API: a scene prepared for one backend, rendered in passes over ranges of
//! sample indices (or frames), into a [`Film`] of sums, squared sums and counts.
//!
//! A sample is a pure function of (pixel, sample index, dimension), so two renderers given
//! disjoint ranges produce films whose [`Film::merge`] is the render of the union: that is how
//! several GPUs (or several machines) share one image. Frame renderers (ReSTIR) carry state
//! from frame to frame, so their ranges must follow each other on one renderer.
//!
//! [`render`] is the one progressive loop every front end uses: passes until the range is done
//! or `cancel` is set, progress after each pass, and the film of what finished — also when a
//! later pass failed.

use crate::error::{Error, Result};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use warpath_core::camera::Camera;
use warpath_core::film::Film;
use warpath_core::restir::SampleOrigin;

/// A scene prepared for rendering on one backend with fixed [`crate::Settings`].
pub trait Renderer {
    /// What renders: the estimator and schedule on the first line, details (the BVH) on
    /// further lines, for progress notes.
    fn describe(&self) -> String;

    /// Samples (or frames) per pass the loop asks for: the settings' pass size, else the
    /// renderer's default (1 on the CPU, 16 on the GPU, 1 frame on the CPU's ReSTIR).
    fn pass_size(&self) -> u32;

    /// Adds samples `samples` of every pixel to the film (frame renderers: the next frames,
    /// `samples.start` being the number of frames already rendered). Returns when the work is
    /// done on the device.
    fn render_pass(&mut self, samples: Range<u32>) -> Result<()>;

    /// The film so far.
    fn film(&self) -> Result<Film>;

    /// Empties the film (frame renderers keep their history: the next frame still reuses it).
    fn clear_film(&mut self) -> Result<()>;

    /// Rays traced so far, where counted (the CPU always counts; the GPU with `count_rays`).
    fn rays(&self) -> Result<Option<u64>>;

    /// Moves the camera for the next frames (frame renderers; the path tracers render the
    /// scene's camera).
    fn set_camera(&mut self, _camera: &Camera) -> Result<()> {
        Err(Error::invalid("only frame renderers (ReSTIR DI) move the camera between passes"))
    }

    /// Frame renderers (ReSTIR DI): records where each pixel's final sample came from in every
    /// frame from now on (a debug buffer, written only while on), or stops recording.
    fn set_record_origins(&mut self, _on: bool) -> Result<()> {
        Err(Error::invalid("only ReSTIR DI records where its samples came from"))
    }

    /// The last frame's sample origins, `[reservoir target][pixel]` (one target, or three for
    /// one reservoir per colour channel), while recording; None otherwise.
    fn origins(&self) -> Result<Option<Vec<Vec<SampleOrigin>>>> {
        Ok(None)
    }

    /// Anything to say after the render (e.g. the GPU's per-kernel times), or `None`.
    fn report(&self) -> Option<String> {
        None
    }
}

/// For frame renderers: `frames` must start where the `done` frames before it ended.
pub(crate) fn check_next_frame(frames: &Range<u32>, done: u32) -> Result<()> {
    if frames.start != done {
        return Err(Error::invalid(format!(
            "ReSTIR frames follow each other: frame {} asked after {done} frames",
            frames.start
        )));
    }
    Ok(())
}

/// What [`render`] produced.
#[derive(Debug)]
pub struct Outcome {
    /// Every finished pass of the range.
    pub film: Film,
    /// Samples per pixel (or frames) finished, counted from the range's start.
    pub done: u32,
    /// Seconds spent in passes (preparation not counted).
    pub seconds: f64,
    /// Rays traced, where the renderer counts them.
    pub rays: Option<u64>,
    /// Whether `cancel` stopped the loop before the range was done.
    pub cancelled: bool,
    /// A pass that failed after others had finished: the film holds those, and this error
    /// says why the rest is missing.
    pub failed: Option<Error>,
}

impl Outcome {
    /// Samples (pixel × sample) in the film.
    pub fn samples(&self) -> u64 {
        self.film.total_samples()
    }
}

/// Renders `samples` with `renderer` in passes of [`Renderer::pass_size`], calling
/// `progress(done)` after each pass (`done` counted from `samples.start`); stops after the
/// current pass when `cancel` is set. An error in the first pass is returned; an error in a
/// later one ends the loop with the film so far and [`Outcome::failed`] set.
pub fn render(
    renderer: &mut dyn Renderer,
    samples: Range<u32>,
    cancel: &AtomicBool,
    mut progress: impl FnMut(u32),
) -> Result<Outcome> {
    let start = Instant::now();
    let pass = renderer.pass_size().max(1);
    let mut next = samples.start;
    let mut failed = None;
    while next < samples.end && !cancel.load(Ordering::Relaxed) {
        let end = next.saturating_add(pass).min(samples.end);
        if let Err(e) = renderer.render_pass(next..end) {
            if next == samples.start {
                return Err(e);
            }
            failed = Some(e);
            break;
        }
        next = end;
        progress(next - samples.start);
    }
    let seconds = start.elapsed().as_secs_f64();
    let film = match (renderer.film(), failed) {
        (Ok(film), failed) => {
            return Ok(Outcome {
                film,
                done: next - samples.start,
                seconds,
                rays: renderer.rays().unwrap_or(None),
                cancelled: next < samples.end && cancel.load(Ordering::Relaxed),
                failed,
            });
        }
        // The pass's error says more than the download's.
        (Err(_), Some(failed)) => failed,
        (Err(e), None) => e,
    };
    Err(film)
}
