//! `lower`: the typed IR → an LLVM module for the NVPTX backend.
//!
//! Every local lives in an `alloca` (mem2reg makes registers of them); slice parameters are a
//! `ptr addrspace(1)` plus an `i64` length; shared arrays are `addrspace(3)` globals. A failed
//! runtime check calls `__cuprum_panic`, which records the failure for the host and ends the
//! thread with PTX `exit` (not `trap`, so the context stays usable).

mod atomic;
mod builtin;
mod constant;
mod expr;
mod grid;
mod lines;
mod place;
mod report;

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::AddressSpace;

use cuprum_abi::{KERNEL_ID_SYMBOL, PANIC_FN};

use crate::ir::{Function, LocalId, Program};
use crate::options::KernelOptions;
use crate::ty::{Scalar, Ty};

/// PTX's `ptx_kernel` calling convention (LLVM's `CallingConv::PTX_Kernel`).
const PTX_KERNEL_CC: u32 = 71;
/// Global memory.
pub(crate) const GLOBAL: u16 = 1;
/// Shared memory.
pub(crate) const SHARED: u16 = 3;

/// What lowering produced besides the module.
pub struct Lowered<'ctx> {
    /// The module.
    pub module: Module<'ctx>,
    /// libdevice functions called, with the span of each call (for a missing-libdevice error).
    pub libdevice_uses: Vec<(String, proc_macro2::Span)>,
}

/// Unwraps a builder result: these fail only when the lowering itself is wrong.
macro_rules! ok {
    ($e:expr) => {
        $e.expect("cuprum internal error: invalid LLVM builder call")
    };
}
pub(crate) use ok;

/// Lowers a checked program into a new module of `ctx`.
pub fn lower_program<'ctx>(
    ctx: &'ctx Context,
    program: &Program,
    options: &KernelOptions,
    entry_name: &str,
) -> Lowered<'ctx> {
    let module = ctx.create_module(entry_name);
    // Assertions report through the panic record even in `unchecked` kernels.
    let options = &KernelOptions {
        checked: program.records_failures(options.checked),
        ..options.clone()
    };
    let panic_fn = options.checked.then(|| declare_panic_fn(ctx, &module));
    let takes_host_test = program.host_test.is_some();
    let kernel = declare_kernel(
        ctx,
        &module,
        &program.kernel,
        options,
        entry_name,
        takes_host_test,
    );
    let shared = declare_shared(ctx, &module, program);
    if options.fastmath {
        let ftz = ctx.i32_type().const_int(1, false);
        module.add_basic_value_flag(
            "nvvm-reflect-ftz",
            inkwell::module::FlagBehavior::Override,
            ftz,
        );
    }
    let fns: Vec<FunctionValue> = program
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| declare_device_fn(ctx, &module, f, i, options))
        .collect();
    let mut libdevice_uses = Vec::new();
    let mut lines = lines::LineInfo::new(&module, program.kernel.span);
    for (f, &func) in program.functions.iter().zip(&fns) {
        let mut lower = FnLower::new(ctx, &module, f, func, options, panic_fn);
        lower.shared = shared.clone();
        lower.fns = fns.clone();
        lower.sites = &program.sites;
        lower.scope = Some(lines.function(func, f.span));
        lower.body(false);
        libdevice_uses.append(&mut lower.libdevice_uses);
    }
    let mut lower = FnLower::new(ctx, &module, &program.kernel, kernel, options, panic_fn);
    lower.shared = shared;
    lower.fns = fns;
    lower.sites = &program.sites;
    lower.scope = Some(lines.function(kernel, program.kernel.span));
    lower.takes_host_test = takes_host_test;
    lower.body(true);
    libdevice_uses.append(&mut lower.libdevice_uses);
    drop(lower);
    lines.finish();
    Lowered {
        module,
        libdevice_uses,
    }
}

/// A device function: internal and always inlined; slices travel as (pointer, length), and
/// checked kernels pass their panic record last (cooperative kernels then their grid barrier).
fn declare_device_fn<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    f: &Function,
    index: usize,
    options: &KernelOptions,
) -> FunctionValue<'ctx> {
    let global_ptr = ctx.ptr_type(AddressSpace::from(GLOBAL));
    let mut params: Vec<BasicMetadataTypeEnum> = Vec::new();
    for &p in &f.params {
        match &f.locals[p].ty {
            Ty::Slice { .. } => {
                params.push(global_ptr.into());
                params.push(ctx.i64_type().into());
            }
            ty => {
                if let Some(t) = value_type(ctx, ty) {
                    params.push(t.into());
                }
            }
        }
    }
    if options.checked {
        params.push(global_ptr.into());
    }
    if options.cooperative {
        params.push(global_ptr.into());
    }
    let fn_ty = match value_type(ctx, &f.ret) {
        Some(t) => t.fn_type(&params, false),
        None => ctx.void_type().fn_type(&params, false),
    };
    let func = module.add_function(
        &format!("__cuprum_dev{index}_{}", f.name),
        fn_ty,
        Some(Linkage::Internal),
    );
    // `convergent`, as clang marks every CUDA function: until the always-inliner has run, a call
    // is opaque, and a non-convergent one may be duplicated into both sides of a branch (early
    // CFG simplification threaded a `&&` guard through `gpu::block::exclusive_sum`), which
    // splits the block at different copies of the barriers inside it.
    for attr in ["alwaysinline", "convergent", "nounwind"] {
        func.add_attribute(
            AttributeLoc::Function,
            ctx.create_enum_attribute(Attribute::get_named_enum_kind_id(attr), 0),
        );
    }
    func
}

/// One `addrspace(3)` global per static shared array; all `dynamic_shared` calls share one
/// external array sized at launch.
fn declare_shared<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    program: &Program,
) -> Vec<PointerValue<'ctx>> {
    let mut dynamic = None;
    program
        .shared
        .iter()
        .enumerate()
        .map(|(k, alloc)| {
            if alloc.dims.is_empty() {
                *dynamic.get_or_insert_with(|| {
                    let g = module.add_global(
                        ctx.i8_type().array_type(0),
                        Some(AddressSpace::from(SHARED)),
                        "__cuprum_dynamic_shared",
                    );
                    g.set_linkage(Linkage::External);
                    g.set_alignment(16);
                    g.as_pointer_value()
                })
            } else {
                let t = shared_global_type(ctx, &alloc.elem, &alloc.dims);
                let g = module.add_global(
                    t,
                    Some(AddressSpace::from(SHARED)),
                    &format!("__cuprum_shared{k}"),
                );
                g.set_linkage(Linkage::Internal);
                g.set_initializer(&t.into_array_type().get_undef());
                g.set_alignment(16);
                g.as_pointer_value()
            }
        })
        .collect()
}

/// How a local is held.
#[derive(Clone, Copy)]
pub(crate) enum Slot<'ctx> {
    /// In an alloca.
    Mem(PointerValue<'ctx>),
    /// A slice parameter.
    Slice {
        ptr: PointerValue<'ctx>,
        len: IntValue<'ctx>,
    },
    /// A shared-memory array (a global in address space 3).
    Shared(PointerValue<'ctx>),
    /// A zero-sized value.
    Nothing,
}

/// Where `break` and `continue` of one loop go.
#[derive(Clone, Copy)]
pub(crate) struct LoopTargets<'ctx> {
    pub break_to: BasicBlock<'ctx>,
    pub continue_to: BasicBlock<'ctx>,
    pub result: Option<PointerValue<'ctx>>,
}

/// Lowers one function.
pub(crate) struct FnLower<'a, 'ctx> {
    pub ctx: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub b: Builder<'ctx>,
    pub func: FunctionValue<'ctx>,
    pub ir: &'a Function,
    pub options: &'a KernelOptions,
    pub slots: Vec<Slot<'ctx>>,
    pub loops: Vec<Option<LoopTargets<'ctx>>>,
    pub panic_fn: Option<FunctionValue<'ctx>>,
    /// The global of each shared allocation, by allocation id.
    pub shared: Vec<PointerValue<'ctx>>,
    /// The LLVM function of each device function, by `FnId`.
    pub fns: Vec<FunctionValue<'ctx>>,
    /// libdevice functions called, with their call spans.
    pub libdevice_uses: Vec<(String, proc_macro2::Span)>,
    /// The kernel's panic-record parameter (checked kernels only).
    pub panic_arg: Option<PointerValue<'ctx>>,
    /// The grid barrier's word (cooperative kernels only; see `grid.rs`).
    pub grid_arg: Option<PointerValue<'ctx>>,
    /// The kernel takes the launch's versioning flag ([`Program::host_test`]).
    pub takes_host_test: bool,
    /// That flag (`i32`), once bound.
    pub host_test: Option<inkwell::values::IntValue<'ctx>>,
    /// Lowering the fast copy of a kernel versioned on that flag.
    pub fast_copy: bool,
    /// The program's check sites: an elided one is not compiled (see `passes`).
    pub sites: &'a [crate::ir::CheckSite],
    /// The function's subprogram, the scope of its source locations.
    pub scope: Option<*mut std::ffi::c_void>,
    /// The span whose line the instructions being built carry.
    pub location: Option<proc_macro2::Span>,
    entry: BasicBlock<'ctx>,
}

fn declare_kernel<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    f: &Function,
    options: &KernelOptions,
    name: &str,
    takes_host_test: bool,
) -> FunctionValue<'ctx> {
    let mut params: Vec<BasicMetadataTypeEnum> = Vec::new();
    let global_ptr = ctx.ptr_type(AddressSpace::from(GLOBAL));
    for &p in &f.params {
        match &f.locals[p].ty {
            Ty::Slice { .. } => {
                params.push(global_ptr.into());
                params.push(ctx.i64_type().into());
            }
            Ty::Scalar(s) => params.push(param_scalar_type(ctx, *s).into()),
            Ty::Enum(d) => params.push(param_scalar_type(ctx, d.repr).into()),
            // Passed by value: PTX's `.param .align A .b8 name[size]`, which the launch
            // fills from the host value's bytes.
            ty @ Ty::Struct(_) => params.push(value_type(ctx, ty).expect("sized").into()),
            other => unreachable!("kernel parameter of type {other}"),
        }
    }
    // The launch's versioning flag, after the user's parameters and before the hidden
    // pointers.
    if takes_host_test {
        params.push(ctx.i32_type().into());
    }
    if options.checked {
        params.push(global_ptr.into());
    }
    if options.cooperative {
        params.push(global_ptr.into());
    }
    let fn_ty = ctx.void_type().fn_type(&params, false);
    let func = module.add_function(name, fn_ty, None);
    func.set_call_conventions(PTX_KERNEL_CC);
    let hidden = options.checked as u32 + options.cooperative as u32;
    for k in 0..hidden {
        add_param_attr(ctx, func, params.len() as u32 - 1 - k, "align", 8);
    }
    let mut index = 0u32;
    for &p in &f.params {
        if let Ty::Slice { elem, mutable } = &f.locals[p].ty {
            add_param_attr(ctx, func, index, "noalias", 0);
            if !mutable {
                add_param_attr(ctx, func, index, "readonly", 0);
            }
            let align = crate::ty::element_layout(elem).map_or(1, |(_, _, a)| a);
            add_param_attr(ctx, func, index, "align", align);
            add_param_attr(ctx, func, index, "nocapture", 0);
            index += 2;
        } else {
            index += 1;
        }
    }
    // PTX allows `.reqntid` or `.maxntid`, not both: the exact shape says more.
    if let (Some(n), None) = (options.max_threads, options.block) {
        func.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("nvvm.maxntid", &n.to_string()),
        );
    }
    if let Some([x, y, z]) = options.block {
        func.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("nvvm.reqntid", &format!("{x},{y},{z}")),
        );
    }
    if let Some(n) = options.min_blocks {
        func.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("nvvm.minctasm", &n.to_string()),
        );
    }
    func
}

fn add_param_attr(ctx: &Context, func: FunctionValue, index: u32, name: &str, value: u64) {
    let kind = Attribute::get_named_enum_kind_id(name);
    if kind != 0 {
        func.add_attribute(
            AttributeLoc::Param(index),
            ctx.create_enum_attribute(kind, value),
        );
    }
}

/// The PTX parameter type of a scalar: `bool` travels as a byte.
fn param_scalar_type(ctx: &Context, s: Scalar) -> BasicTypeEnum<'_> {
    match s {
        Scalar::Bool => ctx.i8_type().into(),
        other => scalar_type(ctx, other),
    }
}

/// The register type of a scalar.
pub(crate) fn scalar_type(ctx: &Context, s: Scalar) -> BasicTypeEnum<'_> {
    match s {
        Scalar::Bool => ctx.bool_type().into(),
        Scalar::I8 | Scalar::U8 => ctx.i8_type().into(),
        Scalar::I16 | Scalar::U16 => ctx.i16_type().into(),
        Scalar::I32 | Scalar::U32 => ctx.i32_type().into(),
        Scalar::I64 | Scalar::U64 | Scalar::Isize | Scalar::Usize => ctx.i64_type().into(),
        Scalar::F32 => ctx.f32_type().into(),
        Scalar::F64 => ctx.f64_type().into(),
    }
}

/// The in-memory type of a scalar in global or shared memory (`bool` is a byte there).
pub(crate) fn memory_scalar_type(ctx: &Context, s: Scalar) -> BasicTypeEnum<'_> {
    param_scalar_type(ctx, s)
}

/// The in-memory type of a slice or shared-array element: scalars as
/// [`memory_scalar_type`], arrays and structs of such (the same layout as [`value_type`]'s,
/// whose `i1` also takes a byte).
pub(crate) fn memory_type<'ctx>(ctx: &'ctx Context, ty: &Ty) -> BasicTypeEnum<'ctx> {
    match ty {
        Ty::Scalar(s) => memory_scalar_type(ctx, *s),
        Ty::Array(t, n) => memory_type(ctx, t).array_type(*n as u32).into(),
        Ty::Struct(d) => {
            let fields: Vec<BasicTypeEnum> =
                d.fields.iter().map(|(_, t)| memory_type(ctx, t)).collect();
            ctx.struct_type(&fields, false).into()
        }
        other => value_type(ctx, other).expect("elements have storage"),
    }
}

/// The LLVM type of a value of type `ty`, or `None` for zero-sized types.
pub(crate) fn value_type<'ctx>(ctx: &'ctx Context, ty: &Ty) -> Option<BasicTypeEnum<'ctx>> {
    match ty {
        Ty::Unit | Ty::Never => None,
        Ty::Scalar(s) => Some(scalar_type(ctx, *s)),
        // An enum is its discriminant, as its `repr` integer.
        Ty::Enum(d) => Some(scalar_type(ctx, d.repr)),
        Ty::Array(t, n) => Some(value_type(ctx, t)?.array_type(*n as u32).into()),
        Ty::Tuple(ts) => {
            let fields: Vec<BasicTypeEnum> = ts.iter().filter_map(|t| value_type(ctx, t)).collect();
            Some(ctx.struct_type(&fields, false).into())
        }
        Ty::Dim3 => {
            let i32t = ctx.i32_type().into();
            Some(ctx.struct_type(&[i32t, i32t, i32t], false).into())
        }
        // Every field is stored (structs hold scalars, arrays and structs), and LLVM lays a
        // non-packed struct out as `repr(C)` does (`ty::struct_layout`).
        Ty::Struct(d) => {
            let fields: Vec<BasicTypeEnum> = d
                .fields
                .iter()
                .map(|(_, t)| value_type(ctx, t).expect("struct fields have storage"))
                .collect();
            Some(ctx.struct_type(&fields, false).into())
        }
        Ty::Shared { .. } | Ty::Slice { .. } => None,
        Ty::Var(_) | Ty::Error => unreachable!("unresolved type reached lowering"),
    }
}

/// The type of a shared array's global: `[R x [C x T]]`, `[N x T]` or `[0 x T]`.
pub(crate) fn shared_global_type<'ctx>(
    ctx: &'ctx Context,
    elem: &Ty,
    dims: &[u64],
) -> BasicTypeEnum<'ctx> {
    let mut t = memory_type(ctx, elem);
    if dims.is_empty() {
        return t.array_type(0).into();
    }
    for &d in dims.iter().rev() {
        t = t.array_type(d as u32).into();
    }
    t
}

/// `void __cuprum_panic(ptr addrspace(1) claim, i32 site, i64 index, i64 len)`: the first
/// failing thread of a launch fills the host-visible record (layout:
/// [`cuprum_abi::record`]), with the kernel's id read from the module's
/// [`KERNEL_ID_SYMBOL`] global (written by the runtime when it loads the module); every
/// failing thread then exits.
fn declare_panic_fn<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>) -> FunctionValue<'ctx> {
    let i64t = ctx.i64_type();
    declare_record_fn(
        ctx,
        module,
        PANIC_FN,
        &[i64t.into(), i64t.into()],
        cuprum_abi::record::INDEX,
    )
}

/// A function `name(claim, i32 site, values..)` that, in the first failing thread, stores
/// the `values` into the host record from byte `values_at` on (8 bytes each), with the kernel
/// id, site, block and thread, then marks the record complete; every caller exits.
/// `__cuprum_panic` stores index and length at [`record::INDEX`](cuprum_abi::record::INDEX)
/// and [`record::LEN`](cuprum_abi::record::LEN); an assertion's `__cuprum_assert{n}` stores
/// its `n` values from [`record::VALUES`](cuprum_abi::record::VALUES) on.
pub(crate) fn declare_record_fn<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    values: &[BasicMetadataTypeEnum<'ctx>],
    values_at: usize,
) -> FunctionValue<'ctx> {
    use cuprum_abi::record;
    let i32t = ctx.i32_type();
    let i64t = ctx.i64_type();
    let gptr = ctx.ptr_type(AddressSpace::from(GLOBAL));
    let mut params: Vec<BasicMetadataTypeEnum> = vec![gptr.into(), i32t.into()];
    params.extend_from_slice(values);
    let fn_ty = ctx.void_type().fn_type(&params, false);
    let f = module.add_function(name, fn_ty, Some(Linkage::Internal));
    for attr in ["noinline", "cold", "noreturn", "nounwind"] {
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_enum_attribute(Attribute::get_named_enum_kind_id(attr), 0),
        );
    }
    // External, so that neither LLVM nor ptxas assumes its initial value: the runtime
    // overwrites it after loading the module. One global, whichever record function asks.
    let kernel_id = module.get_global(KERNEL_ID_SYMBOL).unwrap_or_else(|| {
        let g = module.add_global(i32t, Some(AddressSpace::from(GLOBAL)), KERNEL_ID_SYMBOL);
        g.set_initializer(&i32t.const_zero());
        g.set_alignment(4);
        g
    });
    let b = ctx.create_builder();
    let entry = ctx.append_basic_block(f, "entry");
    let won = ctx.append_basic_block(f, "won");
    let done = ctx.append_basic_block(f, "done");
    b.position_at_end(entry);
    let rec = f.get_nth_param(0).unwrap().into_pointer_value();
    let claimed = ok!(b.build_cmpxchg(
        rec,
        i32t.const_int(record::UNCLAIMED as u64, false),
        i32t.const_int(record::CLAIMED as u64, false),
        inkwell::AtomicOrdering::Monotonic,
        inkwell::AtomicOrdering::Monotonic
    ));
    let first = ok!(b.build_extract_value(claimed, 1, "first")).into_int_value();
    ok!(b.build_conditional_branch(first, won, done));

    b.position_at_end(won);
    let host_slot = unsafe {
        ok!(b.build_in_bounds_gep(
            ctx.i8_type(),
            rec,
            &[i64t.const_int(record::CLAIM_HOST_ADDRESS as u64, false)],
            "host_slot"
        ))
    };
    let host_addr = ok!(b.build_load(i64t, host_slot, "host_addr"));
    ok!(host_addr
        .as_instruction_value()
        .expect("a load")
        .set_alignment(8));
    let host_addr = host_addr.into_int_value();
    let host = ok!(b.build_int_to_ptr(host_addr, gptr, "host"));
    let store = |offset: usize, v: BasicValueEnum<'ctx>| {
        let p = unsafe {
            ok!(b.build_in_bounds_gep(
                ctx.i8_type(),
                host,
                &[i64t.const_int(offset as u64, false)],
                "field"
            ))
        };
        let st = ok!(b.build_store(p, v));
        ok!(st.set_volatile(true));
        ok!(st.set_alignment(if offset.is_multiple_of(8) { 8 } else { 4 }));
    };
    let id = ok!(b.build_load(i32t, kernel_id.as_pointer_value(), "kernel_id"));
    ok!(id.as_instruction_value().expect("a load").set_alignment(4));
    store(record::KERNEL, id);
    store(record::SITE, f.get_nth_param(1).unwrap());
    for k in 0..values.len() {
        store(values_at + 8 * k, f.get_nth_param(2 + k as u32).unwrap());
    }
    let sreg = |name: &str| -> BasicValueEnum<'ctx> {
        let decl = builtin::intrinsic(module, name, &[]);
        ok!(b.build_call(decl, &[], name))
            .try_as_basic_value()
            .basic()
            .expect("sreg returns a value")
    };
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        store(
            record::BLOCK + 4 * i,
            sreg(&format!("llvm.nvvm.read.ptx.sreg.ctaid.{axis}")),
        );
        store(
            record::THREAD + 4 * i,
            sreg(&format!("llvm.nvvm.read.ptx.sreg.tid.{axis}")),
        );
    }
    ok!(b.build_fence(inkwell::AtomicOrdering::SequentiallyConsistent, false, ""));
    store(
        record::STATE,
        i32t.const_int(record::COMPLETE as u64, false).into(),
    );
    ok!(b.build_unconditional_branch(done));

    b.position_at_end(done);
    let exit = builtin::intrinsic(module, "llvm.nvvm.exit", &[]);
    ok!(b.build_call(exit, &[], ""));
    ok!(b.build_unreachable());
    f
}

impl<'a, 'ctx> FnLower<'a, 'ctx> {
    fn new(
        ctx: &'ctx Context,
        module: &'a Module<'ctx>,
        ir: &'a Function,
        func: FunctionValue<'ctx>,
        options: &'a KernelOptions,
        panic_fn: Option<FunctionValue<'ctx>>,
    ) -> Self {
        let entry = ctx.append_basic_block(func, "entry");
        let b = ctx.create_builder();
        b.position_at_end(entry);
        FnLower {
            ctx,
            module,
            b,
            func,
            ir,
            options,
            slots: vec![Slot::Nothing; ir.locals.len()],
            loops: vec![None; ir.loop_count],
            panic_fn,
            shared: Vec::new(),
            fns: Vec::new(),
            libdevice_uses: Vec::new(),
            panic_arg: None,
            grid_arg: None,
            takes_host_test: false,
            host_test: None,
            fast_copy: false,
            sites: &[],
            scope: None,
            location: None,
            entry,
        }
    }

    /// Binds the kernel's parameters and lowers its body.
    /// Binds the parameters (a kernel's `bool`s arrive as bytes) and lowers the body.
    fn body(&mut self, kernel: bool) {
        self.locate(Some(self.ir.span));
        self.bind_constants();
        let mut index = 0u32;
        for &p in &self.ir.params {
            let local = &self.ir.locals[p];
            match &local.ty {
                Ty::Slice { .. } => {
                    let ptr = self.func.get_nth_param(index).unwrap().into_pointer_value();
                    let len = self.func.get_nth_param(index + 1).unwrap().into_int_value();
                    ptr.set_name(&local.name);
                    len.set_name(&format!("{}_len", local.name));
                    self.slots[p] = Slot::Slice { ptr, len };
                    index += 2;
                }
                ty if value_type(self.ctx, ty).is_some() => {
                    let raw = self.func.get_nth_param(index).unwrap();
                    raw.set_name(&local.name);
                    let v = if kernel && *ty == Ty::Scalar(Scalar::Bool) {
                        let zero = self.ctx.i8_type().const_zero();
                        ok!(self.b.build_int_compare(
                            inkwell::IntPredicate::NE,
                            raw.into_int_value(),
                            zero,
                            "b"
                        ))
                        .into()
                    } else {
                        raw
                    };
                    let slot = self.alloca(&local.ty, &local.name).expect("sized");
                    ok!(self.b.build_store(slot, v));
                    self.slots[p] = Slot::Mem(slot);
                    index += 1;
                }
                _ => {}
            }
        }
        if kernel && self.takes_host_test {
            let flag = self.func.get_nth_param(index).unwrap().into_int_value();
            flag.set_name("host_test");
            self.host_test = Some(flag);
            index += 1;
        }
        if self.options.checked {
            self.panic_arg = Some(self.func.get_nth_param(index).unwrap().into_pointer_value());
            index += 1;
        }
        if self.options.cooperative {
            self.grid_arg = Some(self.func.get_nth_param(index).unwrap().into_pointer_value());
        }
        let body = &self.ir.body;
        let value = self.block(body);
        self.ret(value.filter(|_| !kernel));
    }

    /// Returns `value` from the function, if the current block is still open. A function with
    /// a return value that gets here without one is in code after something that diverged
    /// (`return v` as the last expression, `return loop {}`): that code is unreachable.
    pub(crate) fn ret(&mut self, value: Option<BasicValueEnum<'ctx>>) {
        if !self.is_open() {
            return;
        }
        let returns_value = self.func.get_type().get_return_type().is_some();
        match value {
            Some(v) if returns_value => ok!(self.b.build_return(Some(&v))),
            None if returns_value => ok!(self.b.build_unreachable()),
            _ => ok!(self.b.build_return(None)),
        };
    }

    /// An alloca in the entry block (so mem2reg promotes it).
    pub(crate) fn alloca(&self, ty: &Ty, name: &str) -> Option<PointerValue<'ctx>> {
        let t = value_type(self.ctx, ty)?;
        let b = self.ctx.create_builder();
        match self.entry.get_first_instruction() {
            Some(i) => b.position_before(&i),
            None => b.position_at_end(self.entry),
        }
        Some(ok!(b.build_alloca(t, name)))
    }

    /// Whether the current block still needs a terminator.
    pub(crate) fn is_open(&self) -> bool {
        self.b
            .get_insert_block()
            .is_some_and(|bb| bb.get_terminator().is_none())
    }

    /// After a terminator: continue in a fresh block nothing jumps to.
    pub(crate) fn start_dead_block(&self) {
        let bb = self.ctx.append_basic_block(self.func, "dead");
        self.b.position_at_end(bb);
    }

    /// A new block in this function.
    pub(crate) fn block_named(&self, name: &str) -> BasicBlock<'ctx> {
        self.ctx.append_basic_block(self.func, name)
    }

    /// The integer type of `bits` (8, 16, 32 or 64) bits.
    pub(crate) fn int_type(&self, bits: u32) -> inkwell::types::IntType<'ctx> {
        match bits {
            1 => self.ctx.bool_type(),
            8 => self.ctx.i8_type(),
            16 => self.ctx.i16_type(),
            32 => self.ctx.i32_type(),
            _ => self.ctx.i64_type(),
        }
    }

    /// Makes the instructions built from now on carry `span`'s source line; returns the span
    /// they carried before.
    pub(crate) fn locate(
        &mut self,
        span: impl Into<Option<proc_macro2::Span>>,
    ) -> Option<proc_macro2::Span> {
        let span = span.into();
        if let (Some(scope), Some(s)) = (self.scope, span) {
            lines::set_location(self.ctx, &self.b, scope, s);
        }
        std::mem::replace(&mut self.location, span)
    }

    /// The slot of a local.
    pub(crate) fn slot(&self, id: LocalId) -> Slot<'ctx> {
        self.slots[id]
    }
}
