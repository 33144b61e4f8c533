//! Typed device buffers: a `DeviceBuffer<T>` holds `len` values of a `Pod` type `T` in
//! device memory (stored as bytes, so any `#[repr(C)]` Pod layout from `layout.rs` fits
//! without further trait impls). Allocation checks free memory first and fails with
//! "asked N MiB, M MiB free of T MiB"; copies check lengths and report faults instead of
//! panicking.

use crate::error::{CudaError, CudaResult};
use crate::runtime::CudaDevice;
use bytemuck::Pod;
use cudarc::driver::CudaSlice;
use std::marker::PhantomData;

/// `len` values of `T` in device memory.
pub struct DeviceBuffer<T: Pod> {
    bytes: CudaSlice<u8>,
    len: usize,
    marker: PhantomData<T>,
}

impl<T: Pod> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer<{}>[{}]", std::any::type_name::<T>(), self.len)
    }
}

fn byte_size<T>(len: usize) -> CudaResult<usize> {
    len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
        CudaError::InvalidArgument(format!("{len} values of {} overflow the address space", std::any::type_name::<T>()))
    })
}

fn short_type_name<T>() -> &'static str {
    let name = std::any::type_name::<T>();
    name.rsplit("::").next().unwrap_or(name)
}

impl<T: Pod> DeviceBuffer<T> {
    /// `len` zeroed values.
    pub fn zeroed(device: &CudaDevice, len: usize) -> CudaResult<Self> {
        let bytes = byte_size::<T>(len)?;
        let what = format!("{len} × {} ({} B each)", short_type_name::<T>(), std::mem::size_of::<T>());
        Ok(DeviceBuffer { bytes: device.allocate_bytes(&what, bytes)?, len, marker: PhantomData })
    }

    /// A buffer holding a copy of `data`.
    pub fn from_slice(device: &CudaDevice, data: &[T]) -> CudaResult<Self> {
        let mut buffer = Self::zeroed(device, data.len())?;
        buffer.upload(device, data)?;
        Ok(buffer)
    }

    /// Copies `data` into the start of the buffer (`data.len() <= self.len()`).
    pub fn upload(&mut self, device: &CudaDevice, data: &[T]) -> CudaResult<()> {
        if data.len() > self.len {
            return Err(CudaError::InvalidArgument(format!(
                "uploading {} values of {} into a buffer of {}",
                data.len(),
                short_type_name::<T>(),
                self.len
            )));
        }
        if data.is_empty() {
            return Ok(());
        }
        let source: &[u8] = bytemuck::cast_slice(data);
        device
            .stream()
            .memcpy_htod(source, &mut self.bytes)
            .map_err(|e| device.fault(&format!("uploading {} bytes", source.len()), e))
    }

    /// Copies the buffer back to the host (waits for the stream).
    pub fn download(&self, device: &CudaDevice) -> CudaResult<Vec<T>> {
        if self.len == 0 {
            return Ok(Vec::new());
        }
        let size = byte_size::<T>(self.len)?;
        let mut host = vec![0u8; size];
        device
            .stream()
            .memcpy_dtoh(&self.bytes.slice(0..size), &mut host)
            .map_err(|e| device.fault(&format!("downloading {size} bytes"), e))?;
        device.synchronize()?;
        Ok(bytemuck::pod_collect_to_vec(&host))
    }

    /// Sets every byte to zero.
    pub fn clear(&mut self, device: &CudaDevice) -> CudaResult<()> {
        device.stream().memset_zeros(&mut self.bytes).map_err(|e| device.fault("clearing a buffer", e))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of the values (the allocation may be slightly larger).
    pub fn size_bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// The device address of the first value, for pointers inside argument structs.
    pub(crate) fn address(&self, device: &CudaDevice) -> u64 {
        use cudarc::driver::DevicePtr;
        let (address, _record) = self.bytes.device_ptr(device.stream());
        address
    }

    /// The raw allocation, for kernel arguments (`const T*` on the device) of a typed launch
    /// ([`CudaDevice::launch`]).
    pub fn raw(&self) -> &CudaSlice<u8> {
        &self.bytes
    }

    /// The raw allocation, for kernel arguments the kernel writes (`T*`).
    pub fn raw_mut(&mut self) -> &mut CudaSlice<u8> {
        &mut self.bytes
    }
}
