//! The isosurface caster's frames spread over several devices: each backend gets its own
//! [`IsoCaster`] of the shared volume and brick tree, frames are handed out one at a time as
//! devices ask (a faster device casts more), and every finished frame goes to the caller's
//! sink as it arrives. A device that fails is reported; the frame it failed on goes back to
//! the queue for the others. A frame is a pure function of (isovalue, view), so which device
//! casts it does not change its image.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::isosurface::{FrameImage, FrameTimes, IsoCaster, IsoOptions, UpdateWait};
use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use warpath_isosurface::render::{IsoView, Shading};
use warpath_isosurface::{BrickBvh, Lattice};

/// One frame to cast: the isovalue and the view.
#[derive(Clone, Copy, Debug)]
pub struct IsoFrame {
    pub isovalue: f32,
    pub view: IsoView,
}

/// What one device did.
#[derive(Clone, Debug, Default)]
pub struct CastReport {
    /// The backend, described.
    pub device: String,
    /// Frames it finished.
    pub frames: u32,
    /// Why it stopped early, if it failed.
    pub error: Option<String>,
}

/// A finished frame as the sink receives it: its index in `frames`, the image, its timings
/// and the index of the backend that cast it.
pub struct CastFrame {
    pub index: usize,
    pub image: FrameImage,
    pub times: FrameTimes,
    pub device: usize,
}

/// Casts `frames` on `backends` (one thread each). `sink` is called once per finished frame,
/// one call at a time; an error from it (say, an image that cannot be written) stops every
/// device and is returned. Stops handing out frames when `cancel` is set. Fails when frames
/// remain and every device has failed.
pub fn cast_on_devices(
    backends: &[Backend],
    lattice: &Lattice,
    bvh: &BrickBvh,
    options: &IsoOptions,
    shading: Shading,
    frames: &[IsoFrame],
    cancel: &AtomicBool,
    sink: impl FnMut(CastFrame) -> Result<()> + Send,
) -> Result<Vec<CastReport>> {
    if backends.is_empty() {
        return Err(Error::invalid("no device to cast on"));
    }
    let Some(first) = frames.first() else { return Ok(Vec::new()) };
    let queue = Mutex::new((0..frames.len()).collect::<VecDeque<usize>>());
    let sink = Mutex::new(sink);
    let sink_error: Mutex<Option<Error>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let mut reports: Vec<CastReport> = Vec::new();
    let mut alive: Vec<usize> = (0..backends.len()).collect();
    // Rounds: a device that fails gives its frame back, perhaps after the others stopped.
    loop {
        let round: Vec<CastReport> = std::thread::scope(|scope| {
            let workers: Vec<_> = alive
                .iter()
                .map(|&d| {
                    let (queue, sink, sink_error, stop) = (&queue, &sink, &sink_error, &stop);
                    scope.spawn(move || {
                        let backend = &backends[d];
                        let mut report = CastReport { device: backend.describe(), ..CastReport::default() };
                        let mut caster =
                            match IsoCaster::new(backend, lattice, bvh, options.clone(), first.view, shading, 0.0) {
                                Ok(caster) => caster,
                                Err(e) => {
                                    report.error = Some(e.to_string());
                                    return report;
                                }
                            };
                        loop {
                            if cancel.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed) {
                                break;
                            }
                            let Some(index) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front() else {
                                break;
                            };
                            let frame = frames[index];
                            let cast = caster
                                .set_view(frame.view)
                                .and_then(|()| caster.frame(frame.isovalue, true, UpdateWait::Apart, None));
                            match cast {
                                Ok((Some(image), times)) => {
                                    report.frames += 1;
                                    let mut sink = sink.lock().unwrap_or_else(|e| e.into_inner());
                                    if let Err(e) = (*sink)(CastFrame { index, image, times, device: d }) {
                                        *sink_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                                        stop.store(true, Ordering::Relaxed);
                                        break;
                                    }
                                }
                                Ok((None, _)) => unreachable!("frames are kept"),
                                Err(e) => {
                                    queue.lock().unwrap_or_else(|e| e.into_inner()).push_front(index);
                                    report.error = Some(e.to_string());
                                    break;
                                }
                            }
                        }
                        report
                    })
                })
                .collect();
            workers
                .into_iter()
                .zip(&alive)
                .map(|(w, &d)| {
                    w.join().unwrap_or_else(|_| CastReport {
                        device: backends[d].describe(),
                        error: Some("its thread panicked".to_string()),
                        ..CastReport::default()
                    })
                })
                .collect()
        });
        if let Some(e) = sink_error.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return Err(e);
        }
        let next: Vec<usize> = alive.iter().zip(&round).filter(|(_, r)| r.error.is_none()).map(|(&d, _)| d).collect();
        reports.extend(round);
        alive = next;
        let left = !queue.lock().unwrap_or_else(|e| e.into_inner()).is_empty();
        if !left || cancel.load(Ordering::Relaxed) {
            return Ok(reports);
        }
        if alive.is_empty() {
            let why: Vec<String> =
                reports.iter().filter_map(|r| r.error.as_ref().map(|e| format!("{}: {e}", r.device))).collect();
            return Err(Error::invalid(format!("frames were left uncast: every device failed ({})", why.join("; "))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpath_isosurface::render::render;

    #[test]
    fn frames_cast_on_several_devices_are_the_reference_frames() {
        let lattice = warpath_isosurface::fields::marschner_lobb([20, 20, 20]);
        let bvh = BrickBvh::build(&lattice, 4);
        let (lo, hi) = lattice.range();
        let frames: Vec<IsoFrame> = (0..7)
            .map(|k| IsoFrame {
                isovalue: lo + (hi - lo) * (0.2 + 0.1 * k as f32),
                view: IsoView::orbit(&lattice, 50.0 * k as f64, 15.0, 24, 20),
            })
            .collect();
        // Three "devices": CPU casters, which the GPU pipelines match pixel for pixel.
        let backends = [Backend::Cpu, Backend::Cpu, Backend::Cpu];
        let shading = Shading::default();
        let got = Mutex::new(vec![None; frames.len()]);
        let stop = AtomicBool::new(false);
        let reports =
            cast_on_devices(&backends, &lattice, &bvh, &IsoOptions::default(), shading, &frames, &stop, |f| {
                let mut got = got.lock().unwrap();
                assert!(got[f.index].is_none(), "frame {} cast twice", f.index);
                got[f.index] = Some(f.image.pixels);
                Ok(())
            })
            .unwrap();
        assert_eq!(reports.iter().map(|r| r.frames).sum::<u32>(), frames.len() as u32);
        assert!(reports.iter().all(|r| r.error.is_none()));
        for (i, frame) in frames.iter().enumerate() {
            let tree = bvh.condense(frame.isovalue);
            let expected = render(&lattice, &bvh, &tree, frame.isovalue, &frame.view, &shading);
            assert_eq!(got.lock().unwrap()[i].as_ref().unwrap(), &expected.pixels, "frame {i}");
        }
        // A sink that fails stops the cast and its error comes back.
        let error = cast_on_devices(&backends, &lattice, &bvh, &IsoOptions::default(), shading, &frames, &stop, |_| {
            Err(Error::invalid("disk full"))
        })
        .unwrap_err();
        assert!(error.to_string().contains("disk full"));
        // Cancelled before the first frame: nothing cast, no error.
        let cancelled = AtomicBool::new(true);
        let reports = cast_on_devices(
            &backends,
            &lattice,
            &bvh,
            &IsoOptions::default(),
            shading,
            &frames,
            &cancelled,
            |_| -> Result<()> { panic!("no frame should be cast") },
        )
        .unwrap();
        assert_eq!(reports.iter().map(|r| r.frames).sum::<u32>(), 0);
    }
}
