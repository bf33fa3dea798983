//! Cuprum's compiler, as a normal library: a `#[kernel]` function's syn AST → a typed IR
//! (`check`) → LLVM IR (`lower`) → PTX (`emit`), plus the same IR as host Rust for the CPU
//! simulator (`sim`).
//!
//! The proc-macro crate reaches it through one entry point for compiling, [`build`] (a
//! kernel's source, its options and the [`Toolchain`] in, one typed [`Artifact`] out), and
//! the front end that reads what users write before compiling: [`KernelOptions`] (the
//! attribute), [`launch`] (the syntax of `launch!`), [`device`] (`#[device]` bundles),
//! [`consts`] (a module's items), [`check_nesting`] and [`check_device_in`]. The other modules
//! are private; the compiler's tests are unit tests (`src/tests/`), and `tests/architecture.rs`
//! keeps the macro crate to the list above. Everything here
//! can be tested without `proc_macro`. Errors are `syn::Error`s at the user's spans, several
//! combined into one.

#![deny(missing_docs)]

mod artifact;
pub mod consts;
pub mod device;
pub mod imports;
pub mod launch;

mod check;
mod emit;
mod format;
mod ir;
mod latch;
mod libdevice;
mod lower;
mod options;
mod param_space;
mod passes;
#[cfg(test)]
mod print;
mod sass;
mod sim;
mod target;
mod ty;
mod verify;
mod walk;

// The compiler's own tests reach its private modules by the crate's name, as its users'
// paths would read.
#[cfg(test)]
extern crate self as cuprum_codegen;
#[cfg(test)]
mod tests;

use inkwell::context::Context;

pub use artifact::{
    build, Artifact, Build, Cubins, ItemUse, Sim, Site, StructLayout, Toolchain, SIM_BODY,
};
pub use check::{check_device_in, check_nesting};
pub use cuprum_toolkit as toolkit;
pub use ir::{HostTest, HostValue, Program};
pub use options::{InstanceArg, KernelOptions};
pub use target::Target;
pub use ty::{EnumDef, Scalar};

/// A compiled kernel.
#[derive(Debug)]
pub struct CompiledKernel {
    /// The PTX entry name.
    pub name: String,
    /// The PTX text.
    pub ptx: String,
    /// The checked IR (parameters, runtime-check sites, shared allocations).
    pub program: Program,
    /// The target the PTX is for.
    pub target: Target,
    /// For a kernel whose fast copy the launch selects (`program.host_test`): the PTX of a
    /// module whose entry is that copy alone, with the same name and parameters (the flag
    /// among them, unread). The launch runs it when the test holds, `ptx`'s entry otherwise:
    /// in a function that also holds the checked copy and its calls to the failure handler,
    /// ptxas unrolls the fast copy's loops less than in the unchecked kernel (bench/NOTES.md,
    /// `convcols`).
    pub fast_ptx: Option<String>,
    /// For a kernel with `debug_assert*!`: the PTX without them (`ptx` has them), which a
    /// crate built without debug assertions loads.
    pub release: Option<Release>,
}

/// The build of a kernel without its `debug_assert*!`s.
#[derive(Debug)]
pub struct Release {
    /// The PTX text.
    pub ptx: String,
    /// Its fast module, as [`CompiledKernel::fast_ptx`].
    pub fast_ptx: Option<String>,
}

/// What to compile: a kernel, the device functions its calls resolve to, and for a generic
/// kernel the types of one instance.
pub struct KernelSource<'a> {
    /// The kernel as written.
    pub item: &'a syn::ItemFn,
    /// Its device functions.
    pub devices: device::DeviceTable,
    /// The `const` and `static` items of its module (see [`consts`]).
    pub consts: consts::ModuleItems,
    /// Generic parameters and their types in this instance (empty for a plain kernel).
    pub generics: Vec<(String, ty::Scalar)>,
    /// The PTX entry name, from the unraw'd ident (`scale_f32` for an instance of `scale`;
    /// `r#fn` is `fn`).
    pub entry: String,
}

impl<'a> KernelSource<'a> {
    /// A plain kernel without device functions.
    pub fn plain(item: &'a syn::ItemFn) -> KernelSource<'a> {
        KernelSource {
            item,
            devices: device::DeviceTable::default(),
            consts: consts::ModuleItems::default(),
            generics: Vec::new(),
            entry: syn::ext::IdentExt::unraw(&item.sig.ident).to_string(),
        }
    }
}

/// Checks, lowers and emits a kernel without device functions (see [`compile`]).
pub fn compile_kernel(
    item: &syn::ItemFn,
    options: &KernelOptions,
    default_target: &Target,
) -> Result<CompiledKernel, syn::Error> {
    compile(&KernelSource::plain(item), options, default_target)
}

/// Checks, lowers and emits a kernel with this process's toolchain ([`Toolchain::search`]).
/// `default_target` applies unless the kernel names one.
pub fn compile(
    source: &KernelSource,
    options: &KernelOptions,
    default_target: &Target,
) -> Result<CompiledKernel, syn::Error> {
    let toolchain = Toolchain {
        target: default_target.clone(),
        ..Toolchain::search()
    };
    compile_with(source, options, &toolchain)
}

/// Checks, lowers and emits a kernel for `toolchain` (whose target applies unless the kernel
/// names one). The macro crate calls [`build`], which also assembles cubins and gathers what
/// the expansion prints.
pub fn compile_with(
    source: &KernelSource,
    options: &KernelOptions,
    toolchain: &Toolchain,
) -> Result<CompiledKernel, syn::Error> {
    let item = source.item;
    let target = options
        .target
        .clone()
        .unwrap_or_else(|| toolchain.target.clone());
    // The checker compiles `if gpu::__redux_supported::<T>()` for the target.
    let check_options = KernelOptions {
        target: Some(target.clone()),
        ..options.clone()
    };
    let mut program = check::check_kernel_in(
        item,
        &check_options,
        &source.devices,
        &source.generics,
        &source.consts,
    )?;
    verified(&program, options, item, "checked")?;
    passes::optimize(&mut program, options);
    verified(&program, options, item, "optimized")?;
    let name = source.entry.clone();
    // The versioning flag is a parameter too: without room for it, the checked body alone.
    if program.host_test.is_some()
        && param_space::bytes(&program, options) > param_space::limit(&target)
    {
        if let Some(body) = passes::unversioned(&program) {
            program = body;
        }
    }
    param_space::check(item, &program, options, &target)?;
    let libdevice = toolchain.libdevice.as_deref();
    // A versioned kernel keeps its fast copy only when that copy compiles with fewer
    // failure paths than the checked body does alone (else the copy doubles the code for
    // nothing: the backend had proved what the uniform test would), and only when the two
    // bodies together need at most 1 KiB more local memory per thread than the checked body
    // alone (each body's local arrays get their own frame slots, so a large frame would
    // double: 320 KiB of arrays asked for 640 KiB, past the GPU's 512 KiB, refused at launch;
    // and the driver reserves a frame for every thread that can be resident).
    let mut emitted = None;
    let mut fallback = None;
    if let Some((fast, checked)) = passes::versions(&program) {
        let emit = |p: &Program| lower_and_emit(p, options, &name, &target, item, libdevice);
        let fast_ptx = emit(&fast)?;
        let checked_ptx = emit(&checked)?;
        if panic_calls(&fast_ptx) >= panic_calls(&checked_ptx) {
            program = checked;
            emitted = Some(checked_ptx);
        } else {
            fallback = Some((checked, checked_ptx));
        }
    }
    let mut ptx = match emitted {
        Some(ptx) => ptx,
        None => lower_and_emit(&program, options, &name, &target, item, libdevice)?,
    };
    if let Some((checked, checked_ptx)) = fallback {
        if local_bytes(&ptx) > local_bytes(&checked_ptx) + 1024 {
            program = checked;
            ptx = checked_ptx;
        }
    }
    let fast = passes::fast_entry(&program);
    let emit_fast = |o: &KernelOptions| match &fast {
        Some(f) => lower_and_emit(f, o, &name, &target, item, libdevice).map(Some),
        None => Ok(None),
    };
    let fast_ptx = emit_fast(options)?;
    let release = if program.has_debug_assertions() {
        let without = KernelOptions {
            debug_assertions: false,
            ..options.clone()
        };
        Some(Release {
            ptx: lower_and_emit(&program, &without, &name, &target, item, libdevice)?,
            fast_ptx: emit_fast(&without)?,
        })
    } else {
        None
    };
    Ok(CompiledKernel {
        name,
        ptx,
        fast_ptx,
        program,
        target,
        release,
    })
}

/// `Ok` when `program` keeps every invariant of `verify`, an internal error listing the
/// violations otherwise.
fn verified(
    program: &Program,
    options: &KernelOptions,
    item: &syn::ItemFn,
    stage: &str,
) -> Result<(), syn::Error> {
    let problems = verify::problems(program, Some(options.checked));
    if problems.is_empty() {
        return Ok(());
    }
    let message = format!("the {stage} IR is invalid: {}", problems.join("; "));
    Err(internal_error(&item.sig.ident, &message))
}

/// Lowers a checked program to LLVM, links libdevice when it is used, and emits PTX.
fn lower_and_emit(
    program: &Program,
    options: &KernelOptions,
    name: &str,
    target: &Target,
    item: &syn::ItemFn,
    libdevice: Option<&std::path::Path>,
) -> Result<String, syn::Error> {
    let ctx = Context::create();
    let lowered = lower::lower_program(&ctx, program, options, name);
    if let Some((_, span)) = lowered.libdevice_uses.first() {
        let path = libdevice.ok_or_else(|| syn::Error::new(*span, libdevice::MISSING))?;
        libdevice::link(&ctx, &lowered.module, path)
            .map_err(|e| internal_error(&item.sig.ident, &e))?;
    }
    emit::emit_ptx(&lowered.module, target).map_err(|e| internal_error(&item.sig.ident, &e))
}

/// The number of calls to the failure handler of checks in `ptx`.
fn panic_calls(ptx: &str) -> usize {
    ptx.lines()
        .filter(|l| l.trim_start().starts_with("call") && l.contains("__cuprum_panic,"))
        .count()
}

/// The largest per-thread local frame (`__local_depot<N>[bytes]`) of the functions in `ptx`.
fn local_bytes(ptx: &str) -> usize {
    ptx.split("__local_depot")
        .skip(1)
        .filter_map(|rest| {
            let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            rest.strip_prefix('[')?.split_once(']')?.0.parse().ok()
        })
        .max()
        .unwrap_or(0)
}

/// An error that is Cuprum's fault, not the user's.
pub fn internal_error(at: &syn::Ident, message: &str) -> syn::Error {
    syn::Error::new(
        at.span(),
        format!(
            "internal error in Cuprum's compiler (please report it with this kernel): {message}"
        ),
    )
}
