//! `warpath.render` and `warpath.render_frames`: the CLI's path through warpath-render
//! (`Settings::resolve`, `open_backend`, `prepare`, `render`) from Python.
//!
//! The render runs in a thread of its own, the GIL released; the calling thread waits for it
//! in slices of 50 ms, and between two it calls the progress callback and checks for signals
//! (`PyErr_CheckSignals`, which only the main thread can do). Ctrl-C sets the render's cancel
//! flag, which the loop reads after every pass: the call raises `KeyboardInterrupt` once the
//! current pass is done, or after a second at most (the render thread then finishes its
//! pass in the background and exits), and the process stays usable.

use crate::arrays::{image_array, image_stack};
use crate::scene::PyScene;
use crate::{render_error, value_error, warpath_error};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use warpath_render::{Backend, BackendChoice, Film, Integrator, Overrides, Settings};

/// How long the calling thread waits for the render thread between two signal checks.
const POLL: Duration = Duration::from_millis(50);
/// How long an interrupted call waits for the render thread to finish its pass.
const INTERRUPT_GRACE: Duration = Duration::from_secs(1);

/// What the render thread tells the calling thread.
enum Message<T> {
    /// A note to show (the CPU fallback, a setting the backend ignores).
    Note(String),
    /// The renderer is ready: the backend and what renders, in words.
    Prepared(String),
    /// Samples (or frames) done so far.
    Progress(u32),
    Done(T),
}

/// Runs `work` in a thread of its own with the GIL released, calling `on_message` (with the
/// GIL) for what it sends (its result: the value it returns, or a [`Message::Done`] it sends
/// itself, e.g. before it frees the renderer); Ctrl-C (or an exception from `on_message`) sets the cancel flag
/// `work` watches and is raised once `work` has returned, or after [`INTERRUPT_GRACE`].
fn drive<T: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool, &Sender<Message<T>>) -> Option<T> + Send + 'static,
    mut on_message: impl FnMut(Python<'_>, Message<T>) -> PyResult<Option<T>>,
) -> PyResult<T> {
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = channel::<Message<T>>();
    // Waited on with the GIL released, so it must be shareable: one waiter at a time.
    let rx = Mutex::new(rx);
    let thread_cancel = cancel.clone();
    let worker = std::thread::Builder::new()
        .name("warpath-render".into())
        .spawn(move || {
            // `None`: `work` sent its result itself (before freeing what it rendered with).
            if let Some(result) = work(&thread_cancel, &tx) {
                let _ = tx.send(Message::Done(result));
            }
        })
        .map_err(|e| warpath_error(format!("cannot start the render thread: {e}")))?;
    let receive = |rx: &Mutex<Receiver<Message<T>>>, py: Python<'_>, timeout: Duration| {
        py.allow_threads(|| match rx.lock().unwrap_or_else(|p| p.into_inner()).recv_timeout(timeout) {
            Ok(m) => Ok(Some(m)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(()),
        })
    };
    let interrupted = |error: PyErr, rx: &Mutex<Receiver<Message<T>>>| -> PyErr {
        cancel.store(true, Ordering::Relaxed);
        // Give the pass in flight a moment to finish, so the thread is usually gone when the
        // exception is raised; past that it finishes in the background.
        let deadline = Instant::now() + INTERRUPT_GRACE;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match receive(rx, py, left) {
                Ok(Some(Message::Done(_))) | Err(()) => break,
                Ok(_) => {}
            }
        }
        error
    };
    loop {
        match receive(&rx, py, POLL) {
            Ok(Some(Message::Done(result))) => {
                // Not joined: the thread may still be freeing the renderer (GPU buffers, the
                // stream), which the caller need not wait for.
                drop(worker);
                return Ok(result);
            }
            Ok(Some(message)) => match on_message(py, message) {
                Ok(Some(result)) => return Ok(result),
                Ok(None) => {}
                Err(e) => return Err(interrupted(e, &rx)),
            },
            Ok(None) => {}
            Err(()) => {
                // The thread ended without its result: it panicked.
                let why = match worker.join() {
                    Err(panic) => panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "unknown".into()),
                    Ok(()) => "no result".into(),
                };
                return Err(warpath_error(format!("internal error in the render thread: {why}")));
            }
        }
        if let Err(e) = py.check_signals() {
            return Err(interrupted(e, &rx));
        }
    }
}

/// `progress=`: nothing, a line on `sys.stderr`, or a callable `f(done, total)`.
enum Progress<'py> {
    Off,
    Line { last: Option<Instant>, started: Instant },
    Call(Bound<'py, PyAny>),
}

impl<'py> Progress<'py> {
    fn new(arg: Option<&Bound<'py, PyAny>>) -> PyResult<Progress<'py>> {
        Ok(match arg {
            None => Progress::Line { last: None, started: Instant::now() },
            Some(a) if a.is_instance_of::<PyBool>() => {
                if a.extract::<bool>()? {
                    Progress::Line { last: None, started: Instant::now() }
                } else {
                    Progress::Off
                }
            }
            Some(a) if a.is_callable() => Progress::Call(a.clone()),
            Some(a) => {
                let type_name = a.get_type().name()?.to_string();
                return Err(value_error(format!(
                    "progress must be True, False or a callable f(done, total), not a {type_name}"
                )));
            }
        })
    }

    fn stderr(py: Python<'_>, text: &str) -> PyResult<()> {
        let stderr = py.import("sys")?.getattr("stderr")?;
        if !stderr.is_none() {
            stderr.call_method1("write", (text,))?;
            stderr.call_method0("flush")?;
        }
        Ok(())
    }

    fn note(&self, py: Python<'_>, text: &str) -> PyResult<()> {
        match self {
            Progress::Line { .. } => Progress::stderr(py, &format!("warpath: {text}\n")),
            _ => Ok(()),
        }
    }

    fn update(&mut self, py: Python<'_>, done: u32, total: u32, unit: &str) -> PyResult<()> {
        match self {
            Progress::Off => Ok(()),
            Progress::Call(f) => f.call1((done, total)).map(|_| ()),
            Progress::Line { last, started } => {
                // At most twice a second, and the last pass.
                if done < total && last.is_some_and(|t| t.elapsed() < Duration::from_millis(500)) {
                    return Ok(());
                }
                *last = Some(Instant::now());
                let end = if done >= total { "\n" } else { "" };
                let line = format!("\rwarpath: {done}/{total} {unit}, {:.1} s{end}", started.elapsed().as_secs_f64());
                Progress::stderr(py, &line)
            }
        }
    }
}

pub(crate) fn parse_backend(name: &str) -> PyResult<BackendChoice> {
    BackendChoice::from_name(name)
        .ok_or_else(|| value_error(format!("unknown backend '{name}' (expected auto, cpu, cuda or cuda:N)")))
}

fn parse_integrator(name: &str) -> PyResult<Integrator> {
    match name {
        "path" => Ok(Integrator::Path),
        "restir-di" | "restir_di" | "restir" => Ok(Integrator::RestirDi),
        other => Err(value_error(format!("unknown integrator '{other}' (expected path or restir-di)"))),
    }
}

/// `resolution=`: `(width, height)` or `"WxH"`.
fn parse_resolution(arg: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
    let parsed = if let Ok(s) = arg.extract::<String>() {
        s.split_once(['x', 'X']).and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
    } else {
        arg.extract::<(i64, i64)>().ok().and_then(|(w, h)| Some((u32::try_from(w).ok()?, u32::try_from(h).ok()?)))
    };
    let (w, h) = parsed.ok_or_else(|| {
        value_error(format!(
            "resolution {}: expected (width, height) or 'WIDTHxHEIGHT'",
            arg.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })?;
    warpath_render::check_resolution(w, h).map_err(|e| value_error(e.to_string()))?;
    Ok((w, h))
}

/// The keyword arguments every render shares, as [`Overrides`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn overrides(
    spp: Option<i64>,
    frames: Option<i64>,
    resolution: Option<&Bound<'_, PyAny>>,
    integrator: &str,
    strategy: Option<&str>,
    seed: Option<i64>,
    max_depth: Option<i64>,
    pass_size: Option<i64>,
    count_rays: bool,
) -> PyResult<Overrides> {
    // Negative or huge counts are the settings' range errors (ValueError), not overflows.
    let count = |v: Option<i64>, what: &str| -> PyResult<Option<u32>> {
        v.map(|v| {
            u32::try_from(v)
                .map_err(|_| value_error(format!("{what} {v} is out of range: 1..={}", warpath_scene::scene::MAX_SPP)))
        })
        .transpose()
    };
    let (spp, frames, pass_size) = (count(spp, "spp")?, count(frames, "frames")?, count(pass_size, "pass_size")?);
    let seed = seed
        .map(|s| u32::try_from(s).map_err(|_| value_error(format!("seed {s} is out of range: 0..={}", u32::MAX))))
        .transpose()?;
    let strategy = match strategy {
        Some(name) => Some(warpath_cuda::Strategy::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = warpath_cuda::Strategy::ALL.iter().map(|s| s.name()).collect();
            value_error(format!("unknown strategy '{name}'; one of: {}", names.join(", ")))
        })?),
        None => None,
    };
    let max_depth = match max_depth {
        Some(-1) => Some(warpath_scene::UNLIMITED_DEPTH),
        Some(d) => Some(u32::try_from(d).map_err(|_| {
            value_error(format!(
                "max depth {d} is out of range: 0..={}, or -1 for no limit",
                warpath_scene::scene::MAX_DEPTH
            ))
        })?),
        None => None,
    };
    Ok(Overrides {
        spp,
        frames,
        max_depth,
        resolution: resolution.map(parse_resolution).transpose()?,
        seed,
        pass_size,
        integrator: parse_integrator(integrator)?,
        strategy,
        count_rays,
        // As the command line does when none of ReSTIR's flags is given.
        restir_by_scene: warpath_render::RestirByScene::ALL,
        ..Default::default()
    })
}

/// CUDA devices opened by earlier renders, kept for the next ones: a device holds its loaded
/// kernel modules, so a render that takes one skips loading them again (about 80 ms on an
/// H200). A render takes a device out while it runs and puts it back after, so two renders
/// at once never share one (the second opens its own).
static DEVICES: Mutex<Vec<(usize, warpath_cuda::CudaDevice)>> = Mutex::new(Vec::new());

/// [`warpath_render::open_backend`], with a device kept by an earlier render where there is one.
fn open_backend(
    choice: BackendChoice,
    scene: &warpath_scene::Scene,
    settings: &Settings,
) -> Result<(Backend, Vec<String>), warpath_render::Error> {
    let ordinal = match choice {
        BackendChoice::Cpu => None,
        BackendChoice::Auto => Some(0),
        BackendChoice::Cuda(ordinal) => Some(ordinal),
    };
    let kept = ordinal.and_then(|ordinal| {
        let mut devices = DEVICES.lock().unwrap_or_else(|p| p.into_inner());
        let at = devices.iter().position(|(o, _)| *o == ordinal)?;
        Some(devices.swap_remove(at).1)
    });
    match kept {
        Some(device) => warpath_render::fit_backend(Backend::Cuda(device), choice, scene, settings),
        None => warpath_render::open_backend(choice, scene, settings),
    }
}

/// Keeps `backend`'s device for the next render.
fn keep_device(backend: Backend) {
    if let Backend::Cuda(device) = backend {
        let ordinal = device.info().ordinal;
        DEVICES.lock().unwrap_or_else(|p| p.into_inner()).push((ordinal, device));
    }
}

/// What the render thread hands back.
pub(crate) struct Rendered {
    pub film: Film,
    pub done: u32,
    pub seconds: f64,
    /// Opening the backend and preparing the renderer (BVH, upload, kernels).
    pub prepare_seconds: f64,
    pub rays: Option<u64>,
    pub failed: Option<String>,
    pub backend: &'static str,
    pub description: String,
}

/// What `render` and `render_film` share: `samples` (sample indices, or frames from 0) of
/// `scene` rendered with `settings` on the backend `choice` in the render thread
/// ([`warpath_render::render`], the one progressive loop), with progress and Ctrl-C; a pass
/// that failed after others is an error.
pub(crate) fn render_range(
    py: Python<'_>,
    scene: Arc<warpath_scene::Scene>,
    settings: &Settings,
    choice: BackendChoice,
    samples: Range<u32>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Rendered> {
    let mut progress = Progress::new(progress)?;
    let total = samples.len() as u32;
    let unit = settings.integrator.unit();
    let work_settings = settings.clone();
    let result = drive(
        py,
        move |cancel, tx| {
            let start = Instant::now();
            let (backend, notes) = match open_backend(choice, &scene, &work_settings) {
                Ok(opened) => opened,
                Err(e) => return Some(Err(e)),
            };
            for note in notes {
                let _ = tx.send(Message::Note(note));
            }
            let mut renderer = match warpath_render::prepare(&scene, &work_settings, &backend) {
                Ok(renderer) => renderer,
                Err(e) => return Some(Err(e)),
            };
            let prepare_seconds = start.elapsed().as_secs_f64();
            let description = renderer.describe();
            let first = description.lines().next().unwrap_or_default().to_string();
            let _ = tx.send(Message::Prepared(format!("{}, {first}", backend.describe())));
            let outcome = match warpath_render::render(renderer.as_mut(), samples, cancel, |done| {
                let _ = tx.send(Message::Progress(done));
            }) {
                Ok(outcome) => outcome,
                Err(e) => return Some(Err(e)),
            };
            let rendered = Rendered {
                film: outcome.film,
                done: outcome.done,
                seconds: outcome.seconds,
                prepare_seconds,
                rays: outcome.rays,
                failed: outcome.failed.map(|e| e.to_string()),
                backend: backend.name(),
                description,
            };
            // The image goes back before the renderer is freed.
            let _ = tx.send(Message::Done(Ok(rendered)));
            drop(renderer);
            keep_device(backend);
            None
        },
        |py, message| {
            match message {
                Message::Note(note) => progress.note(py, &format!("note: {note}"))?,
                Message::Prepared(what) => progress.note(py, &what)?,
                Message::Progress(done) => progress.update(py, done, total, unit)?,
                Message::Done(_) => {}
            }
            Ok(None)
        },
    )?;
    let rendered = result.map_err(|e| render_error(&e))?;
    if let Some(failed) = &rendered.failed {
        return Err(warpath_error(format!("the render stopped after {} {unit}: {failed}", rendered.done)));
    }
    Ok(rendered)
}

/// Renders `scene` and returns the image: a `float32` array `(H, W, 3)` of linear RGB, the
/// film's mean (what the CLI writes to an EXR, bit for bit).
///
/// `spp`, `resolution` (`(w, h)` or `"WxH"`), `seed`, `max_depth` (-1: no limit) override the
/// scene's `[render]` settings; `integrator` is `"path"` or `"restir-di"` (which counts
/// `frames`, not `spp`, accumulated without temporal reuse: independent frames); `backend` `"auto"`, `"cpu"`, `"cuda"` or `"cuda:N"`; `strategy` the
/// GPU schedule; `pass_size` samples per progressive pass. `progress`: `True` (a line on
/// stderr), `False`, or a callable `f(done, total)`. With `variance=True` or `counts=True`
/// the result is a dict: `image`, `variance` (of the mean, per channel), `counts` (samples
/// per pixel, `uint32` (H, W)), `done`, `seconds`, `rays`, `backend`.
///
/// The GIL is released while rendering; Ctrl-C raises `KeyboardInterrupt` after the current
/// pass (within about a second).
///
/// >>> image = warpath.render(warpath.load("cornell"), spp=64, resolution=(256, 256))
#[pyfunction]
#[pyo3(signature = (scene, spp=None, resolution=None, backend="auto", integrator="path", strategy=None, seed=None, max_depth=None, frames=None, progress=None, variance=false, counts=false, pass_size=None, count_rays=false))]
#[allow(clippy::too_many_arguments)]
fn render<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyScene>,
    spp: Option<i64>,
    resolution: Option<&Bound<'py, PyAny>>,
    backend: &str,
    integrator: &str,
    strategy: Option<&str>,
    seed: Option<i64>,
    max_depth: Option<i64>,
    frames: Option<i64>,
    progress: Option<&Bound<'py, PyAny>>,
    variance: bool,
    counts: bool,
    pass_size: Option<i64>,
    count_rays: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let scene = scene.get().scene.clone();
    let choice = parse_backend(backend)?;
    let mut overrides =
        overrides(spp, frames, resolution, integrator, strategy, seed, max_depth, pass_size, count_rays)?;
    // An accumulated still: ReSTIR without temporal reuse, whose frames would be correlated
    // (issue 29; the CLI's default too). The frame sequences below keep it.
    overrides.restir.temporal = false;
    let settings = Settings::resolve(&scene, &overrides).map_err(|e| render_error(&e))?;
    let rendered = render_range(py, scene, &settings, choice, 0..settings.count, progress)?;
    let (width, height) = (settings.width(), settings.height());
    let image = image_array(py, width, height, &rendered.film.mean())?;
    if !(variance || counts) {
        return Ok(image);
    }
    let out = PyDict::new(py);
    out.set_item("image", image)?;
    if variance {
        out.set_item("variance", image_array(py, width, height, &rendered.film.variance_of_mean())?)?;
    }
    if counts {
        let c = PyArray1::from_vec(py, rendered.film.count.clone()).reshape([height as usize, width as usize])?;
        out.set_item("counts", c)?;
    }
    out.set_item("done", rendered.done)?;
    out.set_item("seconds", rendered.seconds)?;
    out.set_item("prepare_seconds", rendered.prepare_seconds)?;
    out.set_item("rays", rendered.rays)?;
    out.set_item("backend", rendered.backend)?;
    out.set_item("renderer", rendered.description)?;
    Ok(out.into_any())
}

/// Renders `frames` ReSTIR DI frames (one sample per pixel each, temporal reuse from frame
/// to frame), the camera turned `orbit` degrees in all about the scene's camera target
/// (0: a static camera). Returns a dict: `images`, a `float32` array `(frames, H, W, 3)`,
/// and `ms`, each frame's render time in milliseconds (the image download not counted).
/// `range=(a, b)`: only frames `a..b` of the sequence come back (`images` `(b - a, H, W,
/// 3)`); the frames before `a` are still rendered, unreturned, for the reservoirs they leave
/// to the next (temporal reuse), so the frames equal those of the whole sequence.
/// Ctrl-C stops after the current frame and raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (scene, frames, orbit=0.0, resolution=None, backend="auto", seed=None, max_depth=None, progress=None, range=None))]
#[allow(clippy::too_many_arguments)]
fn render_frames<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyScene>,
    frames: i64,
    orbit: f32,
    resolution: Option<&Bound<'py, PyAny>>,
    backend: &str,
    seed: Option<i64>,
    max_depth: Option<i64>,
    progress: Option<&Bound<'py, PyAny>>,
    range: Option<(i64, i64)>,
) -> PyResult<Bound<'py, PyAny>> {
    if !orbit.is_finite() {
        return Err(value_error(format!("orbit {orbit} is not finite")));
    }
    let scene = scene.get().scene.clone();
    let choice = parse_backend(backend)?;
    let overrides = overrides(None, Some(frames), resolution, "restir-di", None, seed, max_depth, None, false)?;
    let frames = overrides.frames.unwrap_or(1);
    let keep = match range {
        None => 0..frames,
        Some((a, b)) if 0 <= a && a < b && b <= frames as i64 => a as u32..b as u32,
        Some((a, b)) => {
            return Err(value_error(format!("range ({a}, {b}): expected 0 <= a < b <= frames ({frames})")));
        }
    };
    // Frames rendered, those before `keep` included.
    let last = keep.end;
    let settings = Settings::resolve(&scene, &overrides).map_err(|e| render_error(&e))?;
    let mut progress = Progress::new(progress)?;
    let work_settings = settings.clone();
    let step = orbit / frames as f32;
    type Frames = (Vec<Vec<glam::Vec3>>, Vec<f64>);
    let result = drive(
        py,
        move |cancel, tx| {
            Some((|| -> Result<Frames, warpath_render::Error> {
                let (backend, notes) = open_backend(choice, &scene, &work_settings)?;
                for note in notes {
                    let _ = tx.send(Message::Note(note));
                }
                let mut renderer = warpath_render::prepare(&scene, &work_settings, &backend)?;
                let first = renderer.describe().lines().next().unwrap_or_default().to_string();
                let _ = tx.send(Message::Prepared(format!("{}, {first}", backend.describe())));
                let (mut images, mut ms) = (Vec::new(), Vec::new());
                for k in 0..keep.end {
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    renderer.set_camera(&scene.camera.orbited(step * k as f32))?;
                    renderer.clear_film()?;
                    let start = Instant::now();
                    renderer.render_pass(k..k + 1)?;
                    if k >= keep.start {
                        ms.push(start.elapsed().as_secs_f64() * 1e3);
                        images.push(renderer.film()?.mean());
                    }
                    let _ = tx.send(Message::Progress(k + 1));
                }
                drop(renderer);
                keep_device(backend);
                Ok((images, ms))
            })())
        },
        |py, message| {
            match message {
                Message::Note(note) => progress.note(py, &format!("note: {note}"))?,
                Message::Prepared(what) => progress.note(py, &what)?,
                Message::Progress(done) => progress.update(py, done, last, "frames")?,
                Message::Done(_) => {}
            }
            Ok(None)
        },
    )?;
    let (images, ms) = result.map_err(|e| render_error(&e))?;
    let (w, h) = (settings.width() as usize, settings.height() as usize);
    let out = PyDict::new(py);
    let shape = [images.len(), h, w, 3];
    out.set_item("images", image_stack(py, &shape, images.iter().flatten().map(|p| p.to_array()))?)?;
    out.set_item("ms", PyArray1::from_vec(py, ms))?;
    Ok(out.into_any())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(render_frames, m)?)?;
    Ok(())
}
