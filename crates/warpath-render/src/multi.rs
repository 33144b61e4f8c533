//! Several devices in one render: one thread per device, each with its own renderer (its own
//! CUDA context, BVH and upload), taking batches of sample indices from one queue as it
//! finishes the last, so a slower or busier device takes fewer. Each device sums its batches
//! into its own film; the films are merged on the host in device order at the end.
//!
//! A device that fails is reported and its work goes to the others: the batch it failed in,
//! and — when its film cannot be read back any more — every batch it had finished.
//! Frame renderers (ReSTIR DI) render on one device: each frame reuses the whole previous
//! frame's reservoirs, so splitting the image would cut that reuse at the band edges.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::renderer::Renderer;
use crate::settings::Settings;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Instant;
use warpath_core::film::Film;
use warpath_scene::Scene;

/// What one device did.
#[derive(Clone, Debug)]
pub struct DeviceReport {
    /// The backend in words.
    pub device: String,
    /// Samples per pixel it rendered into the merged film.
    pub samples: u32,
    pub batches: u32,
    /// Seconds after the render's start that this device began preparing.
    pub offset: f64,
    /// Seconds it took to prepare (upload, kernels; the shared BVH is built before).
    pub prepare_seconds: f64,
    /// Seconds it rendered, from the end of its preparation.
    pub seconds: f64,
    /// Why it stopped early, if it failed.
    pub error: Option<String>,
}

impl DeviceReport {
    fn empty() -> DeviceReport {
        DeviceReport {
            device: String::new(),
            samples: 0,
            batches: 0,
            offset: 0.0,
            prepare_seconds: 0.0,
            seconds: 0.0,
            error: None,
        }
    }
}

/// What [`render_on_devices`] produced.
#[derive(Debug)]
pub struct MultiOutcome {
    pub film: Film,
    /// Samples per pixel in the film.
    pub done: u32,
    /// Seconds from the first device's first batch to the last device's last (preparation
    /// not counted, as a one-device render does not count it).
    pub seconds: f64,
    /// Seconds before the first device could render (the shared BVH, uploads, kernels).
    pub prepare_seconds: f64,
    pub cancelled: bool,
    pub devices: Vec<DeviceReport>,
}

/// The work still to hand out, and how many batches devices hold now (a device that fails
/// gives its batch back, so an empty queue is final only when none is held).
struct Queue {
    batches: VecDeque<Range<u32>>,
    held: u32,
}

/// What a device asking for work gets.
enum Next {
    Batch(Range<u32>),
    /// Nothing now, but a batch held elsewhere may come back.
    Wait,
    Done,
}

impl Queue {
    fn next(queue: &Mutex<Queue>) -> Next {
        let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
        match q.batches.pop_front() {
            Some(batch) => {
                q.held += 1;
                Next::Batch(batch)
            }
            None if q.held > 0 => Next::Wait,
            None => Next::Done,
        }
    }

    /// A held batch finished (`back`: none) or came back unfinished, with others to redo.
    fn release(queue: &Mutex<Queue>, back: &[Range<u32>]) {
        let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
        back.iter().rev().for_each(|r| q.batches.push_front(r.clone()));
        q.held -= 1;
    }

    fn give_back(queue: &Mutex<Queue>, back: &[Range<u32>]) {
        // Not held: the next round takes these.
        let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
        back.iter().rev().for_each(|r| q.batches.push_front(r.clone()));
    }
}

/// `samples` cut into batches of `batch` samples (at least 1).
fn batches(samples: Range<u32>, batch: u32) -> VecDeque<Range<u32>> {
    let batch = batch.max(1);
    let mut queue = VecDeque::new();
    let mut start = samples.start;
    while start < samples.end {
        let end = start.saturating_add(batch).min(samples.end);
        queue.push_back(start..end);
        start = end;
    }
    queue
}

/// Renders `samples` of every pixel on `backends` (one thread each), in batches of `batch`
/// samples handed out as devices finish; `progress(samples per pixel done, all devices)`
/// after each batch; stops handing out batches when `cancel` is set.
pub fn render_on_devices(
    scene: &Scene,
    settings: &Settings,
    backends: &[Backend],
    samples: Range<u32>,
    batch: u32,
    cancel: &AtomicBool,
    progress: impl FnMut(u32) + Send,
) -> Result<MultiOutcome> {
    if settings.integrator.is_frame_based() {
        return Err(Error::invalid(
            "ReSTIR DI renders on one device: each frame reuses the whole previous frame, which bands on several \
             devices would cut at their edges",
        ));
    }
    if backends.is_empty() {
        return Err(Error::invalid("no device to render on"));
    }
    let start = Instant::now();
    // One tree for every GPU (the host's build is the slow part of preparing a device).
    let bvh = backends.iter().any(Backend::is_gpu).then(|| crate::cuda::build_bvh(scene, settings));
    let bvh = bvh.as_ref();
    let queue = Mutex::new(Queue { batches: batches(samples.clone(), batch), held: 0 });
    let done = AtomicU32::new(0);
    let progress = Mutex::new(progress);
    let mut film = Film::try_new(settings.width(), settings.height())?;
    let mut devices: Vec<DeviceReport> = Vec::new();
    // Rounds: a device whose film is lost at the end gives its batches back after the others
    // may have stopped; the devices that did not fail render them in another round.
    let mut alive: Vec<&Backend> = backends.iter().collect();
    loop {
        let results: Vec<(Option<Film>, DeviceReport)> = std::thread::scope(|scope| {
            let workers: Vec<_> = alive
                .iter()
                .map(|&backend| {
                    let (queue, done, progress) = (&queue, &done, &progress);
                    scope.spawn(move || worker(scene, settings, backend, bvh, (start, queue, done), cancel, progress))
                })
                .collect();
            workers
                .into_iter()
                .zip(&alive)
                .map(|(w, backend)| {
                    w.join().unwrap_or_else(|_| {
                        let error = Some("its thread panicked".to_string());
                        (None, DeviceReport { device: backend.describe(), error, ..DeviceReport::empty() })
                    })
                })
                .collect()
        });
        let mut next_alive = Vec::new();
        for ((part, report), backend) in results.into_iter().zip(&alive) {
            if let Some(part) = part {
                film.merge(&part);
            }
            if report.error.is_none() {
                next_alive.push(*backend);
            }
            devices.push(report);
        }
        alive = next_alive;
        let left = !queue.lock().unwrap_or_else(|e| e.into_inner()).batches.is_empty();
        if !left || cancel.load(Ordering::Relaxed) {
            break;
        }
        if alive.is_empty() {
            let why: Vec<String> =
                devices.iter().filter_map(|d| d.error.as_ref().map(|e| format!("{}: {e}", d.device))).collect();
            return Err(Error::invalid(format!(
                "samples were left unrendered: every device failed ({})",
                why.join("; ")
            )));
        }
    }
    let total: u32 = devices.iter().map(|d| d.samples).sum();
    let rendering = devices.iter().filter(|d| d.batches > 0);
    let first = rendering.clone().map(|d| d.offset + d.prepare_seconds).fold(f64::INFINITY, f64::min);
    let last = rendering.map(|d| d.offset + d.prepare_seconds + d.seconds).fold(0.0, f64::max);
    Ok(MultiOutcome {
        film,
        done: total,
        seconds: if last > first { last - first } else { 0.0 },
        prepare_seconds: if first.is_finite() { first } else { start.elapsed().as_secs_f64() },
        cancelled: total < samples.len() as u32,
        devices,
    })
}

/// One device's loop: prepare, then batches until the queue is empty, cancelled or failed.
fn worker(
    scene: &Scene,
    settings: &Settings,
    backend: &Backend,
    bvh: Option<&warpath_bvh::Bvh>,
    (render_start, queue, done): (Instant, &Mutex<Queue>, &AtomicU32),
    cancel: &AtomicBool,
    progress: &Mutex<impl FnMut(u32)>,
) -> (Option<Film>, DeviceReport) {
    let start = Instant::now();
    let offset = start.duration_since(render_start).as_secs_f64();
    let mut report = DeviceReport { device: backend.describe(), offset, ..DeviceReport::empty() };
    let prepared: Result<Box<dyn Renderer + '_>> = match (backend, bvh) {
        (Backend::Cuda(device), Some(bvh)) => {
            crate::cuda::CudaPath::with_bvh(device, scene, settings, bvh).map(|r| Box::new(r) as Box<dyn Renderer>)
        }
        _ => crate::prepare(scene, settings, backend),
    };
    report.prepare_seconds = start.elapsed().as_secs_f64();
    let mut renderer = match prepared {
        Ok(r) => r,
        Err(e) => {
            report.error = Some(format!("preparing: {e}"));
            return (None, report);
        }
    };
    let mut finished: Vec<Range<u32>> = Vec::new();
    while !cancel.load(Ordering::Relaxed) {
        let batch = match Queue::next(queue) {
            Next::Batch(batch) => batch,
            Next::Wait => {
                std::thread::sleep(std::time::Duration::from_millis(5));
                continue;
            }
            Next::Done => break,
        };
        if let Err(e) = render_batch(renderer.as_mut(), batch.clone()) {
            report.error = Some(e.to_string());
            Queue::release(queue, std::slice::from_ref(&batch));
            break;
        }
        Queue::release(queue, &[]);
        let n = batch.len() as u32;
        report.samples += n;
        report.batches += 1;
        finished.push(batch);
        let total = done.fetch_add(n, Ordering::SeqCst) + n;
        (progress.lock().unwrap_or_else(|e| e.into_inner()))(total);
    }
    report.seconds = start.elapsed().as_secs_f64() - report.prepare_seconds;
    match renderer.film() {
        Ok(film) => (Some(film), report),
        Err(e) => {
            // The device's film is lost: its batches go back for the others.
            Queue::give_back(queue, &finished);
            done.fetch_sub(report.samples, Ordering::SeqCst);
            report.error =
                Some(format!("{}reading its film back: {e}", report.error.map_or(String::new(), |e| e + "; ")));
            report.samples = 0;
            (None, report)
        }
    }
}

/// One batch in the renderer's pass size.
fn render_batch(renderer: &mut dyn Renderer, batch: Range<u32>) -> Result<()> {
    let pass = renderer.pass_size().max(1);
    let mut next = batch.start;
    while next < batch.end {
        let end = next.saturating_add(pass).min(batch.end);
        renderer.render_pass(next..end)?;
        next = end;
    }
    Ok(())
}
