//! Cuprum's compiler, as a normal library: a `#[kernel]` function's syn AST → a typed IR
//! (`check`) → LLVM IR (`lower`) → PTX (`emit`), plus the same IR as host Rust for the CPU
//! simulator (`sim`).
//!
//! The proc-macro crate is a thin shell over [`compile_kernel`]; everything here can be unit
//! tested without `proc_macro`. Errors are `syn::Error`s at the user's spans, several combined
//! into one.

#![deny(missing_docs)]

pub mod check;
pub mod consts;
pub mod device;
pub mod emit;
pub mod format;
pub mod ir;
pub mod launch;
pub mod libdevice;
pub mod lower;
pub mod options;
pub mod param_space;
pub mod passes;
pub mod print;
pub mod sass;
pub mod sim;
pub mod target;
pub mod ty;
pub mod verify;
pub mod walk;

use inkwell::context::Context;

pub use cuprum_toolkit as toolkit;
pub use ir::Program;
pub use options::KernelOptions;
pub use target::Target;

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
    /// Cubins assembled ahead of time, by compute capability (see [`sass`]); filled by the
    /// caller, empty from [`compile`].
    pub sass: Vec<(u32, Vec<u8>)>,
    /// For a kernel with `debug_assert*!`: the PTX without them (`ptx` has them), which a
    /// crate built without debug assertions loads.
    pub release: Option<Release>,
}

/// The build of a kernel without its `debug_assert*!`s.
#[derive(Debug)]
pub struct Release {
    /// The PTX text.
    pub ptx: String,
    /// Its cubins, as [`CompiledKernel::sass`].
    pub sass: Vec<(u32, Vec<u8>)>,
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

/// Checks, lowers and emits a kernel. `default_target` applies unless the kernel names one.
pub fn compile(
    source: &KernelSource,
    options: &KernelOptions,
    default_target: &Target,
) -> Result<CompiledKernel, syn::Error> {
    let item = source.item;
    let mut program = check::check_kernel_in(
        item,
        options,
        &source.devices,
        &source.generics,
        &source.consts,
    )?;
    verified(&program, options, item, "checked")?;
    passes::optimize(&mut program, options);
    verified(&program, options, item, "optimized")?;
    let name = source.entry.clone();
    let target = options
        .target
        .clone()
        .unwrap_or_else(|| default_target.clone());
    param_space::check(item, &program, options, &target)?;
    let ptx = lower_and_emit(&program, options, &name, &target, item)?;
    let release = if program.has_debug_assertions() {
        let without = KernelOptions {
            debug_assertions: false,
            ..options.clone()
        };
        Some(Release {
            ptx: lower_and_emit(&program, &without, &name, &target, item)?,
            sass: Vec::new(),
        })
    } else {
        None
    };
    Ok(CompiledKernel {
        name,
        ptx,
        program,
        target,
        sass: Vec::new(),
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
) -> Result<String, syn::Error> {
    let ctx = Context::create();
    let lowered = lower::lower_program(&ctx, program, options, name);
    if let Some((_, span)) = lowered.libdevice_uses.first() {
        let path = libdevice::find().ok_or_else(|| syn::Error::new(*span, libdevice::MISSING))?;
        libdevice::link(&ctx, &lowered.module, &path)
            .map_err(|e| internal_error(&item.sig.ident, &e))?;
    }
    emit::emit_ptx(&lowered.module, target).map_err(|e| internal_error(&item.sig.ident, &e))
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
