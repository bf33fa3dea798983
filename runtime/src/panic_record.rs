//! Where a stream's checked kernels report a failed runtime check.
//!
//! Each stream owns, once it launches a checked kernel, 16 bytes of device memory (a claim
//! word and the address of the host record) and 192 bytes of mapped, pinned host memory (the
//! record). The first failing thread claims the word with an atomic compare-and-swap in device
//! memory, fills the host record with plain stores, and every failing thread exits. After a
//! synchronisation the host reads the record directly: no copy, nothing on the launch path.
//! Host record layout: see `cuprum_codegen::lower` (`__cuprum_panic`).

use std::ptr::NonNull;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaSlice, CudaStream, DevicePtr};

use crate::error::{DriverContext, Error, KernelPanic, Result};
use crate::expansion::{lookup_kernel, SiteKind};
use cuprum_std::Dim3;

/// The record: 64 bytes of tag, site, index, length, block and thread, then the values a
/// failed assertion records (`u64` each; see `cuprum_codegen::lower::ASSERT_VALUES_OFFSET`).
const HOST_BYTES: usize = VALUES_AT + 8 * MAX_VALUES;
/// Where an assertion's values start.
const VALUES_AT: usize = 64;
/// Most values an assertion records.
const MAX_VALUES: usize = 16;
/// `state` value meaning "the record is complete".
const COMPLETE: u32 = 2;

pub(crate) struct PanicRecord {
    claim: CudaSlice<u64>,
    claim_ptr: u64,
    host: NonNull<u8>,
    ctx: Arc<CudaContext>,
}

// SAFETY: the host pointer is only read and written with volatile accesses of plain integers,
// and it stays valid until Drop.
unsafe impl Send for PanicRecord {}
// SAFETY: as above.
unsafe impl Sync for PanicRecord {}

impl PanicRecord {
    pub fn new(cuda: &Arc<CudaStream>) -> Result<PanicRecord> {
        let ctx = cuda.context().clone();
        ctx.bind_to_thread().during("binding the context")?;
        // SAFETY: a plain pinned allocation; zeroed below before anything reads it.
        let raw = unsafe { result::malloc_host(HOST_BYTES, sys::CU_MEMHOSTALLOC_DEVICEMAP) }
            .during("allocating the panic record")?;
        let host =
            NonNull::new(raw.cast::<u8>()).expect("cuMemHostAlloc returned null without an error");
        // SAFETY: `host` points to HOST_BYTES writable bytes.
        unsafe { std::ptr::write_bytes(host.as_ptr(), 0, HOST_BYTES) };
        let mut mapped: sys::CUdeviceptr = 0;
        // SAFETY: `raw` was allocated with DEVICEMAP in this context.
        let mapped_result =
            unsafe { sys::cuMemHostGetDevicePointer_v2(&mut mapped, raw, 0) }.result();
        let record = |claim: CudaSlice<u64>| {
            let claim_ptr = {
                let (ptr, _sync) = claim.device_ptr(cuda);
                ptr
            };
            PanicRecord {
                claim_ptr,
                claim,
                host,
                ctx: ctx.clone(),
            }
        };
        match mapped_result.and_then(|_| cuda.clone_htod(&[0u64, mapped])) {
            Ok(claim) => Ok(record(claim)),
            Err(e) => {
                // SAFETY: allocated above, not shared yet.
                unsafe {
                    let _ = result::free_host(raw);
                }
                Err(Error::Driver {
                    op: "setting up the panic record",
                    source: e,
                })
            }
        }
    }

    /// The kernel parameter: the device address of the claim word.
    pub fn device_ptr(&self) -> u64 {
        self.claim_ptr
    }

    fn read<T: Copy>(&self, offset: usize) -> T {
        // SAFETY: offset + size_of::<T>() <= HOST_BYTES for every call below; aligned.
        unsafe { std::ptr::read_volatile(self.host.as_ptr().add(offset).cast::<T>()) }
    }

    /// After a synchronisation: reports and clears a recorded failure.
    pub fn take(&self, stream: &CudaStream) -> Result<()> {
        if self.read::<u32>(0) != COMPLETE {
            return Ok(());
        }
        let tag: u32 = self.read(4);
        let site: u32 = self.read(8);
        let index: u64 = self.read(16);
        let len: u64 = self.read(24);
        let dim = |o: usize| Dim3::new(self.read(o), self.read(o + 4), self.read(o + 8));
        let (block, thread) = (dim(32), dim(44));
        let values: Vec<u64> = (0..MAX_VALUES)
            .map(|k| self.read(VALUES_AT + 8 * k))
            .collect();
        // SAFETY: as in `new`; the kernel that wrote the record has finished.
        unsafe { std::ptr::write_bytes(self.host.as_ptr(), 0, HOST_BYTES) };
        // SAFETY: the claim word is 4 bytes of our 16-byte allocation.
        unsafe { sys::cuMemsetD32Async(self.claim_ptr, 0, 1, stream.cu_stream()) }
            .result()
            .during("clearing the panic record")?;
        let (kernel, info) = match lookup_kernel(tag) {
            Some(info) => (info.name.to_string(), info.sites.get(site as usize)),
            None => (format!("<unknown kernel {tag:#x}>"), None),
        };
        let (message, file, line, column) = match info {
            Some(s) => (
                match s.kind {
                    SiteKind::Index => {
                        format!("index out of bounds: the len is {len} but the index is {index}")
                    }
                    SiteKind::DivZero => "attempt to divide by zero".to_string(),
                    SiteKind::StepZero => "assertion failed: step != 0".to_string(),
                    SiteKind::Panic => match s.message {
                        Some(message) => message(&values),
                        None => "explicit panic".to_string(),
                    },
                },
                s.file,
                s.line,
                s.column,
            ),
            None => (format!("runtime check {site} failed"), "<unknown>", 0, 0),
        };
        Err(Error::KernelPanic(Box::new(KernelPanic {
            kernel,
            message,
            file,
            line,
            column,
            block,
            thread,
        })))
    }
}

impl Drop for PanicRecord {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: allocated by malloc_host in `new`, freed once.
        unsafe {
            let _ = result::free_host(self.host.as_ptr().cast());
        }
        let _ = &self.claim;
    }
}
