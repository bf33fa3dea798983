//! Where a stream's checked kernels report a failed runtime check.
//!
//! Each stream owns, once it launches a checked kernel, 16 bytes of device memory (a claim
//! word and the address of the host record) and 192 bytes of mapped, pinned host memory (the
//! record). The first failing thread claims the word with an atomic compare-and-swap in device
//! memory, fills the host record with plain stores, and every failing thread exits. After a
//! synchronisation the host reads the record directly: no copy, nothing on the launch path.
//! The layout is `cuprum_abi::record`, which the compiler's `__cuprum_panic` writes.

use std::ptr::NonNull;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaSlice, CudaStream, DevicePtr};

use crate::error::{DriverContext, Error, KernelPanic, Result};
use crate::registry::lookup_kernel;
use cuprum_abi::record::{self, HOST_BYTES};
use cuprum_abi::CheckKind;
use cuprum_std::Dim3;

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
        const _: () = assert!(record::CLAIM_BYTES == 16 && record::CLAIM_HOST_ADDRESS == 8);
        let claim = [record::UNCLAIMED as u64, mapped];
        match mapped_result.and_then(|_| cuda.clone_htod(&claim)) {
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
        if self.read::<u32>(record::STATE) != record::COMPLETE {
            return Ok(());
        }
        let id: u32 = self.read(record::KERNEL);
        let site: u32 = self.read(record::SITE);
        let index: u64 = self.read(record::INDEX);
        let len: u64 = self.read(record::LEN);
        let dim = |o: usize| Dim3::new(self.read(o), self.read(o + 4), self.read(o + 8));
        let (block, thread) = (dim(record::BLOCK), dim(record::THREAD));
        let values: Vec<u64> = (0..record::MAX_VALUES)
            .map(|k| self.read(record::VALUES + 8 * k))
            .collect();
        // SAFETY: as in `new`; the kernel that wrote the record has finished.
        unsafe { std::ptr::write_bytes(self.host.as_ptr(), 0, HOST_BYTES) };
        // SAFETY: the claim word is 4 bytes of our 16-byte allocation.
        unsafe { sys::cuMemsetD32Async(self.claim_ptr, record::UNCLAIMED, 1, stream.cu_stream()) }
            .result()
            .during("clearing the panic record")?;
        let (kernel, info) = match lookup_kernel(id) {
            Some(info) => (info.name.to_string(), info.sites.get(site as usize)),
            None => (format!("<unknown kernel {id}>"), None),
        };
        let (message, file, line, column) = match info {
            Some(s) => (
                match (s.kind, s.message) {
                    (CheckKind::Panic, Some(message)) => message(&values),
                    (kind, _) => kind.message(index, len).to_string(),
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
        // Kernels still queued on the stream may write the host record: wait for them before
        // freeing it (the stream itself may outlive this record, in buffers' lists of users).
        let _ = self.claim.stream().synchronize();
        let _ = self.ctx.bind_to_thread();
        // SAFETY: allocated by malloc_host in `new`, freed once.
        unsafe {
            let _ = result::free_host(self.host.as_ptr().cast());
        }
        let _ = &self.claim;
    }
}
