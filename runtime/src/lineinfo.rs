//! `CUPRUM_LINEINFO=1` at run time: kernels are compiled from their PTX with line
//! information (`CU_JIT_GENERATE_LINE_INFO`), so that compute-sanitizer and Nsight Compute
//! name the Rust file and line of an instruction. The driver's JIT drops the PTX's `.loc`
//! lines unless asked, and cudarc loads modules without options, so the PTX is compiled here
//! with the driver's linker and the cubin is loaded. Off by default: the driver's own PTX
//! cache is then used as usual. (Ahead-of-time cubins, `CUPRUM_SASS`, always carry lines.)

use std::ffi::{c_void, CString};
use std::sync::OnceLock;

use cudarc::driver::sys::{self, CUjitInputType, CUjit_option};

use crate::error::{DriverContext, Error, Result};

/// Whether `CUPRUM_LINEINFO=1` was set when the first kernel was loaded.
pub(crate) fn wanted() -> bool {
    static WANTED: OnceLock<bool> = OnceLock::new();
    *WANTED.get_or_init(|| std::env::var("CUPRUM_LINEINFO").is_ok_and(|v| v == "1"))
}

/// Compiles `ptx` for the current context's device, with line information. The caller has
/// bound the context to this thread.
pub(crate) fn compile(ptx: &str) -> Result<Vec<u8>> {
    let src =
        CString::new(ptx).map_err(|_| Error::Tool("a kernel's PTX contains a NUL byte".into()))?;
    let name = c"kernel.ptx";
    let mut options = [CUjit_option::CU_JIT_GENERATE_LINE_INFO];
    // The option's value is an `int` passed in the pointer itself.
    let mut values = [std::ptr::without_provenance_mut::<c_void>(1)];
    let mut state: sys::CUlinkState = std::ptr::null_mut();
    // SAFETY: one option with its value; `state` receives the linker, destroyed below.
    unsafe { sys::cuLinkCreate_v2(1, options.as_mut_ptr(), values.as_mut_ptr(), &mut state) }
        .result()
        .during("starting the JIT with line information")?;
    let cubin = (|| {
        // SAFETY: `src` is NUL-terminated and outlives the call; no per-input options.
        unsafe {
            sys::cuLinkAddData_v2(
                state,
                CUjitInputType::CU_JIT_INPUT_PTX,
                src.as_ptr() as *mut c_void,
                src.as_bytes_with_nul().len(),
                name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .during("compiling a kernel's PTX with line information")?;
        let mut image: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: the image belongs to `state` and is copied before it is destroyed.
        unsafe { sys::cuLinkComplete(state, &mut image, &mut size) }
            .result()
            .during("linking a kernel compiled with line information")?;
        // SAFETY: the driver returned `size` readable bytes at `image`.
        Ok(unsafe { std::slice::from_raw_parts(image as *const u8, size) }.to_vec())
    })();
    // SAFETY: created above, destroyed once.
    unsafe {
        let _ = sys::cuLinkDestroy(state);
    }
    cubin
}
