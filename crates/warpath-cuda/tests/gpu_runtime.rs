//! Device-level GPU tests: opening (an error, not a crash, without a GPU), device facts,
//! buffers, the out-of-memory message, and `layout_matches` (the device compiler's
//! sizeof/offsetof of every shared struct against Rust's). Each GPU test is `#[ignore]`d (run with
//! `--include-ignored`); without a device it then skips with a
//! notice when there is no device, and fails instead with `WARPATH_REQUIRE_GPU=1`.

use warpath_cuda::error::CudaError;
use warpath_cuda::runtime::{CudaDevice, test_device};
use warpath_cuda::{DeviceBuffer, GpuHit};

fn device() -> Option<CudaDevice> {
    test_device().unwrap_or_else(|error| panic!("WARPATH_REQUIRE_GPU=1 or a broken device: {error}"))
}

#[test]
fn opening_without_a_device_is_an_error_not_a_crash() {
    match CudaDevice::open(0) {
        Ok(device) => eprintln!("{}", device.info()),
        Err(CudaError::NoDevice { reason }) => {
            assert!(!reason.is_empty());
            eprintln!("no device, as expected on this machine: {reason}");
        }
        Err(other) => panic!("opening device 0 failed with something other than NoDevice: {other}"),
    }
    // An ordinal far past any machine's devices is NoDevice too, never a panic.
    assert!(matches!(CudaDevice::open(4096), Err(CudaError::NoDevice { .. })));
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn device_info_is_plausible() {
    let Some(device) = device() else { return };
    let info = device.info();
    eprintln!("{info}");
    assert!(!info.name.is_empty());
    assert!(info.compute_capability.0 >= 5, "compute capability {:?}", info.compute_capability);
    assert!(info.multiprocessors > 0);
    assert!(info.total_memory_bytes > 0 && info.free_memory_bytes <= info.total_memory_bytes);
    assert!(info.driver_version >= 12000, "driver {}", info.driver_version);
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn buffers_round_trip() {
    let Some(device) = device() else { return };
    let values: Vec<GpuHit> =
        (0..100_003).map(|i| GpuHit { t: i as f32 * 0.5, u: 0.25, v: -1.0, prim: i - 7 }).collect();
    let mut buffer = DeviceBuffer::from_slice(&device, &values).expect("upload");
    assert_eq!(buffer.len(), values.len());
    assert_eq!(buffer.download(&device).expect("download"), values);
    buffer.clear(&device).expect("clear");
    assert!(buffer.download(&device).unwrap().iter().all(|h| *h == GpuHit::default()));
    let too_many = vec![GpuHit::default(); values.len() + 1];
    assert!(matches!(buffer.upload(&device, &too_many), Err(CudaError::InvalidArgument(_))));
    let empty = DeviceBuffer::<u32>::zeroed(&device, 0).expect("empty buffer");
    assert!(empty.download(&device).unwrap().is_empty());
}

#[test]
#[ignore = "needs a CUDA GPU: cargo test -- --include-ignored"]
fn out_of_memory_says_how_much() {
    let Some(device) = device() else { return };
    let total = device.info().total_memory_bytes;
    let error = DeviceBuffer::<[f32; 4]>::zeroed(&device, 2 * total / 16).expect_err("twice the GPU's memory");
    let text = error.to_string();
    assert!(matches!(error, CudaError::OutOfMemory { .. }), "{text}");
    assert!(text.contains("asked") && text.contains("MiB free of"), "{text}");
    // The device is still usable afterwards.
    let small = DeviceBuffer::from_slice(&device, &[1u32, 2, 3]).expect("small allocation after the failure");
    assert_eq!(small.download(&device).unwrap(), vec![1, 2, 3]);
}
