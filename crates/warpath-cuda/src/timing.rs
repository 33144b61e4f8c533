//! [`KernelTimes`]: the GPU time of every kernel launched while timing was asked for
//! ([`CudaDevice::timing`](crate::runtime::CudaDevice::timing)), per kernel: total
//! milliseconds, launches, and the milliseconds per step (a bounce of the wavefront, say:
//! [`CudaDevice::set_timing_step`](crate::runtime::CudaDevice::set_timing_step)). Each
//! launch is timed between two CUDA events on the device's stream and the host waits for
//! its end, so a timed run is a little slower than an untimed one. The renderers' summaries
//! (ReSTIR's per-frame table, the strategies' per-bounce times, the isosurface pipeline's
//! per-stage times) are views over it.

/// One kernel's (or timed span's) times.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelTime {
    /// The kernel's `extern "C"` name (or the span's name).
    pub kernel: &'static str,
    /// Milliseconds over every launch.
    pub ms: f64,
    pub launches: u64,
    /// Milliseconds per step (index: the step the launches ran in; 0 unless steps are set).
    pub ms_per_step: Vec<f64>,
}

/// Per-kernel GPU times, in the order the kernels were first launched.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelTimes {
    kernels: Vec<KernelTime>,
}

impl KernelTimes {
    /// Adds one launch of `kernel` in `step` that took `ms`.
    pub fn add(&mut self, kernel: &'static str, step: usize, ms: f64) {
        let index = match self.kernels.iter().position(|k| k.kernel == kernel) {
            Some(index) => index,
            None => {
                self.kernels.push(KernelTime { kernel, ..Default::default() });
                self.kernels.len() - 1
            }
        };
        let entry = &mut self.kernels[index];
        entry.ms += ms;
        entry.launches += 1;
        if entry.ms_per_step.len() <= step {
            entry.ms_per_step.resize(step + 1, 0.0);
        }
        entry.ms_per_step[step] += ms;
    }

    /// Every kernel timed, in first-launch order.
    pub fn iter(&self) -> impl Iterator<Item = &KernelTime> {
        self.kernels.iter()
    }

    pub fn get(&self, kernel: &str) -> Option<&KernelTime> {
        self.kernels.iter().find(|k| k.kernel == kernel)
    }

    /// Milliseconds of `kernel` (0 if it did not run).
    pub fn ms(&self, kernel: &str) -> f64 {
        self.get(kernel).map_or(0.0, |k| k.ms)
    }

    /// Milliseconds of the kernels `filter` accepts.
    pub fn ms_where(&self, filter: impl Fn(&str) -> bool) -> f64 {
        self.kernels.iter().filter(|k| filter(k.kernel)).map(|k| k.ms).sum()
    }

    /// Milliseconds per step of the kernels `filter` accepts, summed step by step.
    pub fn ms_per_step_where(&self, filter: impl Fn(&str) -> bool) -> Vec<f64> {
        let mut steps: Vec<f64> = Vec::new();
        for kernel in self.kernels.iter().filter(|k| filter(k.kernel)) {
            if steps.len() < kernel.ms_per_step.len() {
                steps.resize(kernel.ms_per_step.len(), 0.0);
            }
            for (total, ms) in steps.iter_mut().zip(&kernel.ms_per_step) {
                *total += ms;
            }
        }
        steps
    }

    /// Milliseconds of every kernel.
    pub fn total_ms(&self) -> f64 {
        self.kernels.iter().map(|k| k.ms).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }

    pub fn clear(&mut self) {
        self.kernels.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_add_up_per_kernel_and_step_in_first_launch_order() {
        let mut times = KernelTimes::default();
        times.add("b", 0, 1.0);
        times.add("a", 2, 0.5);
        times.add("b", 1, 2.0);
        times.add("a", 0, 0.25);
        let names: Vec<_> = times.iter().map(|k| k.kernel).collect();
        assert_eq!(names, ["b", "a"]);
        assert_eq!(times.ms("b"), 3.0);
        assert_eq!(times.get("a").unwrap().launches, 2);
        assert_eq!(times.get("a").unwrap().ms_per_step, [0.25, 0.0, 0.5]);
        assert_eq!(times.ms_per_step_where(|_| true), [1.25, 2.0, 0.5]);
        assert_eq!(times.ms_where(|k| k == "a"), 0.75);
        assert_eq!(times.total_ms(), 3.75);
        assert_eq!(times.ms("c"), 0.0);
    }
}
