//! libdevice, NVIDIA's bitcode library of math functions (`__nv_expf`, ...): where to find
//! it and how it is linked into a kernel that calls it.
//!
//! Where it is searched: [`crate::toolkit`]; which file a compilation links is the
//! [`Toolchain`](crate::Toolchain)'s.

use std::path::{Path, PathBuf};

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::values::BasicValue;

/// The message when a kernel needs libdevice and it is not installed.
pub const MISSING: &str = "this math function needs NVIDIA's libdevice (libdevice.10.bc), which was not found; install it with `pip install nvidia-cuda-nvcc-cu12` (scripts/setup.sh does), or set CUPRUM_LIBDEVICE to the file";

/// Links libdevice into `module` and makes its functions internal, so that optimisation keeps
/// only what the kernel calls (and inlines it).
pub fn link<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>, path: &Path) -> Result<(), String> {
    let bitcode = needed_bitcode(module, path)?;
    let buffer = MemoryBuffer::create_from_memory_range_copy(&bitcode, "libdevice");
    let lib = Module::parse_bitcode_from_buffer(&buffer, ctx)
        .map_err(|e| format!("cannot read the pruned libdevice: {e}"))?;
    lib.set_triple(&module.get_triple());
    lib.set_data_layout(&module.get_data_layout());
    module
        .link_in_module(lib)
        .map_err(|e| format!("cannot link libdevice: {e}"))?;
    let mut f = module.get_first_function();
    while let Some(func) = f {
        if func.get_name().to_bytes().starts_with(b"__nv_") && func.count_basic_blocks() > 0 {
            func.set_linkage(Linkage::Internal);
        }
        f = func.get_next_function();
    }
    Ok(())
}

/// The part of libdevice that `module`'s declarations reach, as bitcode, made once per set of
/// needed functions and thread (a proc macro expands a crate's kernels on one thread).
/// Parsing libdevice (about 40 ms) is the cost of a new set; cloning a parsed module instead
/// measured slower (80 to 250 ms).
fn needed_bitcode(module: &Module, path: &Path) -> Result<Vec<u8>, String> {
    use std::cell::RefCell;
    use std::collections::HashMap;

    /// (libdevice's path, the needed functions) -> the pruned bitcode.
    type Pruned = HashMap<(PathBuf, Vec<Vec<u8>>), Vec<u8>>;
    thread_local! {
        static CACHE: RefCell<Pruned> = RefCell::new(HashMap::new());
    }
    let key = (path.to_path_buf(), declared(module));
    if let Some(bc) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(bc);
    }
    let ctx = Context::create();
    let lib = Module::parse_bitcode_from_path(path, &ctx)
        .map_err(|e| format!("cannot read libdevice at {}: {e}", path.display()))?;
    keep_only(&lib, &key.1);
    let bc = lib.write_bitcode_to_memory().as_slice().to_vec();
    CACHE.with(|c| c.borrow_mut().insert(key, bc.clone()));
    Ok(bc)
}

/// The libdevice functions (`__nv_*`) that `module` declares, sorted.
fn declared(module: &Module) -> Vec<Vec<u8>> {
    let mut names = Vec::new();
    let mut f = module.get_first_function();
    while let Some(func) = f {
        if func.count_basic_blocks() == 0 && func.get_name().to_bytes().starts_with(b"__nv_") {
            names.push(func.get_name().to_bytes().to_vec());
        }
        f = func.get_next_function();
    }
    names.sort();
    names
}

/// Deletes from `lib` every function and global that the functions named in `needed` do not
/// reach: libdevice has about 350 functions and a kernel calls a handful, and linking and
/// optimising the rest cost most of a math kernel's build time.
fn keep_only(lib: &Module, needed: &[Vec<u8>]) {
    let mut f = lib.get_first_function();
    while let Some(func) = f {
        let name = func.get_name().to_bytes();
        if func.count_basic_blocks() > 0 && !needed.iter().any(|n| n == name) {
            func.set_linkage(Linkage::Internal);
        }
        f = func.get_next_function();
    }
    // Delete unreferenced internal functions and globals until none is left: deleting one can
    // leave those it called unreferenced.
    loop {
        let mut dead = Vec::new();
        let mut f = lib.get_first_function();
        while let Some(func) = f {
            if func.get_linkage() == Linkage::Internal
                && func
                    .as_global_value()
                    .as_pointer_value()
                    .get_first_use()
                    .is_none()
            {
                dead.push(func);
            }
            f = func.get_next_function();
        }
        let mut dead_globals = Vec::new();
        let mut g = lib.get_first_global();
        while let Some(global) = g {
            let private = matches!(global.get_linkage(), Linkage::Internal | Linkage::Private);
            if private && global.as_pointer_value().get_first_use().is_none() {
                dead_globals.push(global);
            }
            g = global.get_next_global();
        }
        if dead.is_empty() && dead_globals.is_empty() {
            break;
        }
        for func in dead {
            // SAFETY: the function has no uses left, and nothing else refers to it.
            unsafe { func.delete() };
        }
        for global in dead_globals {
            // SAFETY: as above, for a global with no uses.
            unsafe { global.delete() };
        }
    }
}
