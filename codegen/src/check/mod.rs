//! `check`: syn's AST of a kernel → the typed IR, with Rust's typing rules and every error at
//! the span of the code that causes it.
//!
//! Errors are collected, not returned at the first one: a kernel with three mistakes reports
//! three errors in one build. An expression that fails gets type `Ty::Error`, which unifies
//! with anything, so one mistake is not reported again by everything that uses it.

mod builtins;
mod call;
mod closure;
mod consts;
mod elements;
mod enums;
mod expr;
mod infer;
mod init;
mod inline;
mod iterate;
mod limits;
mod macros;
mod matching;
mod resolve;
mod source;
mod stmt;
mod structs;
mod suggest;

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

use crate::consts::ModuleItems;
use crate::device::{DeviceFn, DeviceTable};
use crate::ir::{
    CheckKind, CheckSite, Function, Local, LocalId, LoopId, Program, SharedAlloc, SiteId,
};
use crate::options::KernelOptions;
use crate::ty::{Scalar, Ty};
use infer::InferCtx;

pub use builtins::GPU_FUNCTIONS;
pub use limits::check_nesting;
pub use suggest::closest;

/// Checks a `#[kernel]` function and returns its typed IR, or every error found.
#[cfg(test)]
pub fn check_kernel(
    item: &syn::ItemFn,
    options: &KernelOptions,
    devices: &DeviceTable,
    generics: &[(String, Scalar)],
) -> Result<Program, syn::Error> {
    check_kernel_in(item, options, devices, generics, &ModuleItems::default())
}

/// Checks a `#[kernel]` function whose module holds the `const` and `static` items `module`,
/// and returns its typed IR, or every error found. `options.target` is the kernel's target
/// (`None`: the default, sm_80).
pub fn check_kernel_in(
    item: &syn::ItemFn,
    options: &KernelOptions,
    devices: &DeviceTable,
    generics: &[(String, Scalar)],
    module: &ModuleItems,
) -> Result<Program, syn::Error> {
    let mut errors = Vec::new();
    let mut sites = Vec::new();
    let mut shared = Vec::new();
    let mut registry = Registry {
        no_redux: options.target.as_ref().is_some_and(|t| !t.has_redux()),
        ..Registry::default()
    };
    let instantiated = !generics.is_empty() || module.has_params();
    check_kernel_signature(item, instantiated, &mut errors);
    let names: Vec<String> = generics.iter().map(|(n, _)| n.clone()).collect();
    let types: Vec<Scalar> = generics.iter().map(|(_, s)| *s).collect();
    if let Some(msg) = call::generic_bound_error(&item.sig, &names, &types) {
        errors.push(syn::Error::new_spanned(&item.sig.generics, msg));
        return Err(errors
            .into_iter()
            .reduce(|mut all, e| {
                all.combine(e);
                all
            })
            .expect("one error at least"));
    }
    if !item.sig.generics.params.is_empty() && !instantiated {
        // Without `instances(..)` the generic parameters stand for nothing: the body would
        // only repeat that error.
        return Err(errors
            .into_iter()
            .reduce(|mut all, e| {
                all.combine(e);
                all
            })
            .expect("the signature check reports the missing instances"));
    }
    let (kernel, items_used) = {
        let mut checker = Checker::new(
            &mut errors,
            &mut sites,
            &mut shared,
            &mut registry,
            options.checked,
        );
        checker.devices = devices.clone();
        checker.generics = generics.to_vec();
        checker.consts.module = module.clone();
        checker.kernel = true;
        // A declared return type is reported once, by the signature check; the body is then
        // checked without expecting anything of its value.
        let ret = match &item.sig.output {
            syn::ReturnType::Type(_, ty) if !is_unit_type(ty) => Ty::Error,
            _ => Ty::Unit,
        };
        let f = checker.function(item, ret);
        (f, std::mem::take(&mut checker.consts.used))
    };
    let functions: Vec<Function> = registry
        .functions
        .into_iter()
        .map(|f| f.expect("every instance finished"))
        .collect();
    if !options.cooperative {
        errors.extend(grid_syncs(&kernel, &functions).into_iter().map(|span| {
            syn::Error::new(span, "`gpu::grid_sync()` waits for every block of the grid, which only a cooperative launch keeps resident at once: mark the kernel `#[kernel(cooperative)]`")
        }));
    }
    if let Some(first) = errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        return Err(first);
    }
    let mut program = Program {
        kernel,
        functions,
        sites,
        shared,
        items_used,
        host_test: None,
    };
    record_panic_value_types(&mut program);
    Ok(program)
}

/// Gives each assertion's message the resolved types of the values it records.
fn record_panic_value_types(program: &mut Program) {
    let sites = &mut program.sites;
    for f in std::iter::once(&mut program.kernel).chain(&mut program.functions) {
        crate::walk::block_mut(&mut f.body, &mut |e| {
            if let crate::ir::ExprKind::Panic(p) = &e.kind {
                if let Some(m) = sites[p.site as usize].message.as_mut() {
                    m.values = p.args.iter().filter_map(|a| a.ty.as_scalar()).collect();
                }
            }
        });
    }
}

/// Where the kernel or the device functions it calls use `gpu::grid_sync()` (the first in
/// each function).
fn grid_syncs(kernel: &Function, functions: &[Function]) -> Vec<Span> {
    let mut spans = Vec::new();
    for f in std::iter::once(kernel).chain(functions) {
        let mut found = None;
        let mut body = f.body.clone();
        crate::walk::block_mut(&mut body, &mut |e| {
            if matches!(
                e.kind,
                crate::ir::ExprKind::Builtin(crate::ir::Builtin::GridSync, _)
            ) {
                found.get_or_insert(e.span);
            }
        });
        spans.extend(found);
    }
    spans
}

/// Checks a non-generic `#[device]` function on its own (so that its mistakes are reported at
/// its definition, once).
#[cfg(test)]
pub fn check_device(item: &syn::ItemFn, devices: &DeviceTable) -> Result<(), syn::Error> {
    check_device_in(item, devices, &ModuleItems::default())
}

/// Checks a non-generic `#[device]` function whose module holds the `const` and `static` items
/// `module`.
pub fn check_device_in(
    item: &syn::ItemFn,
    devices: &DeviceTable,
    module: &ModuleItems,
) -> Result<(), syn::Error> {
    let mut errors = Vec::new();
    let (mut sites, mut shared, mut registry) = (Vec::new(), Vec::new(), Registry::default());
    {
        let mut checker = Checker::new(&mut errors, &mut sites, &mut shared, &mut registry, true);
        checker.devices = devices.clone();
        checker.consts.module = module.clone();
        let ret = checker.return_type(&item.sig.output);
        checker.function(item, ret);
    }
    match errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The device functions checked for one kernel, one per (function, type arguments).
#[derive(Default)]
pub(crate) struct Registry {
    /// By `FnId`; `None` while the function is being checked (a recursive call finds that).
    functions: Vec<Option<Function>>,
    /// (function, type arguments, const arguments, its `FnId`)
    instances: Vec<(*const DeviceFn, Vec<Scalar>, Vec<i128>, usize)>,
    /// The kernel's target lacks `redux.sync` (before sm_80). A device function checked on
    /// its own assumes the default target (sm_80); each kernel checks it again for its own.
    no_redux: bool,
}

/// What a kernel's signature may not have: generics (without `instances`), `async`, a return
/// type, and so on. Errors go to `errors`; checking goes on.
fn check_kernel_signature(item: &syn::ItemFn, instantiated: bool, errors: &mut Vec<syn::Error>) {
    let sig = &item.sig;
    // The name becomes the PTX entry's name.
    let name = syn::ext::IdentExt::unraw(&sig.ident).to_string();
    if !name.is_ascii() {
        errors.push(syn::Error::new_spanned(
            &sig.ident,
            format!("kernel names become PTX entry names, which are ASCII: rename `{name}` with ASCII letters, digits and `_`"),
        ));
    } else if name.starts_with("__cuprum") {
        errors.push(syn::Error::new_spanned(
            &sig.ident,
            "names starting with `__cuprum` are reserved for Cuprum's own PTX functions: rename the kernel",
        ));
    } else if name == "WARP_SZ" {
        errors.push(syn::Error::new_spanned(
            &sig.ident,
            "`WARP_SZ` is a name built into PTX: rename the kernel",
        ));
    }
    if let Some(t) = &sig.asyncness {
        errors.push(syn::Error::new_spanned(t, "kernels cannot be `async`"));
    }
    if let Some(t) = &sig.constness {
        errors.push(syn::Error::new_spanned(t, "kernels cannot be `const fn`"));
    }
    if let Some(t) = &sig.unsafety {
        errors.push(syn::Error::new_spanned(
            t,
            "kernels are not `unsafe`: indexing is bounds-checked; remove `unsafe` (use `#[kernel(unchecked)]` to drop the checks)",
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new_spanned(
            abi,
            "kernels take no ABI: `#[kernel]` chooses the GPU calling convention",
        ));
    }
    if let Some(v) = &sig.variadic {
        errors.push(syn::Error::new_spanned(v, "kernels cannot be variadic"));
    }
    if !sig.generics.params.is_empty() && !instantiated {
        errors.push(generics_error(&sig.generics));
    }
    check_param_names_and_attributes(sig, errors);
    match &sig.output {
        syn::ReturnType::Type(_, ty) if !is_unit_type(ty) => errors.push(syn::Error::new_spanned(
            ty,
            "kernels cannot return a value; write results into a `&mut [T]` parameter",
        )),
        _ => {}
    }
}

/// What to say about a kernel's generic parameters when no instances are listed: lifetimes
/// have nothing to stand for, const parameters need values, type parameters types.
fn generics_error(generics: &syn::Generics) -> syn::Error {
    for p in &generics.params {
        match p {
            syn::GenericParam::Lifetime(l) => {
                return syn::Error::new_spanned(
                    l,
                    format!("kernels take no lifetime parameters: remove `{}` and write slice parameters as `&[T]` / `&mut [T]`", l.lifetime),
                )
            }
            syn::GenericParam::Const(c) => {
                return syn::Error::new_spanned(
                    c,
                    format!("a kernel generic over `const {}` needs the values listed: `#[kernel(instances(128, 256))]`", c.ident),
                )
            }
            syn::GenericParam::Type(_) => {}
        }
    }
    syn::Error::new_spanned(
        generics,
        "generic kernels need their instances listed: `#[kernel(instances(f32, f64))]`",
    )
}

/// Parameter names the expansion uses itself, and attributes on parameters (a `#[cfg]` would
/// change the launch's signature behind the kernel's back).
fn check_param_names_and_attributes(sig: &syn::Signature, errors: &mut Vec<syn::Error>) {
    for arg in &sig.inputs {
        let syn::FnArg::Typed(pt) = arg else { continue };
        if let Some(attr) = pt.attrs.first() {
            errors.push(syn::Error::new_spanned(
                attr,
                "attributes on kernel parameters are not supported: a kernel's parameters are its launch's arguments; remove the attribute (for a `#[cfg]`, write two kernels)",
            ));
        }
        if let syn::Pat::Ident(pi) = &*pt.pat {
            let name = syn::ext::IdentExt::unraw(&pi.ident).to_string();
            if name.starts_with("__cuprum") {
                errors.push(syn::Error::new_spanned(
                    &pi.ident,
                    "names starting with `__cuprum` are reserved for the code Cuprum generates: rename the parameter",
                ));
            }
        }
    }
}

/// `()`, which a kernel may write as its return type.
fn is_unit_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty())
}

/// An enclosing loop, for `break` and `continue`.
struct LoopScope {
    id: LoopId,
    label: Option<String>,
    /// `loop` (which can `break` with a value) rather than `while`/`for`.
    is_loop: bool,
    /// The type of `break value` seen so far (for `loop`).
    break_ty: Option<Ty>,
}

/// Checks one function body.
pub(crate) struct Checker<'p> {
    infer: InferCtx,
    errors: &'p mut Vec<syn::Error>,
    sites: &'p mut Vec<CheckSite>,
    shared: &'p mut Vec<SharedAlloc>,
    registry: &'p mut Registry,
    /// What this function's call paths resolve to.
    devices: DeviceTable,
    /// Generic type parameters and the types they stand for in this instance.
    generics: Vec<(String, Scalar)>,
    /// The `const` and `static` items in scope, and the tables made from them.
    consts: consts::ConstState,
    /// Checking the initialiser of a `let` (where shared memory may be made).
    let_init: bool,
    /// Checking a kernel (rather than a `#[device]` function), for the wording of messages.
    kernel: bool,
    locals: Vec<Local>,
    scopes: Vec<Vec<(String, LocalId)>>,
    loops: Vec<LoopScope>,
    loop_count: usize,
    ret: Ty,
    checked: bool,
    /// The first locals are the parameters.
    param_count: usize,
    /// How deeply the expression being checked is nested, and whether that went too deep.
    depth: u32,
    too_deep: bool,
    /// Locals declared by `let x;` and where they are assigned.
    init: init::InitState,
    /// Names that stand for references: `Some(place)` for one that is another place (an
    /// element of `iter_mut()`), `None` for a reference read by copy (`iter()`); `*name` is
    /// allowed on both.
    aliases: Vec<(LocalId, Option<crate::ir::Place>)>,
    /// Names of parts of slices and arrays (`&mut s[a..b]`, slice parameters of an inlined
    /// device function).
    views: Vec<(LocalId, inline::View)>,
    /// In a device function checked inline: the loop its `return` breaks.
    inline_return: Option<LoopId>,
    /// The device functions being checked inline, innermost last (recursion is an error).
    inlining: Vec<*const DeviceFn>,
    /// Names that stand for closures.
    callables: Vec<(LocalId, std::rc::Rc<closure::Callable>)>,
}

impl<'p> Checker<'p> {
    fn new(
        errors: &'p mut Vec<syn::Error>,
        sites: &'p mut Vec<CheckSite>,
        shared: &'p mut Vec<SharedAlloc>,
        registry: &'p mut Registry,
        checked: bool,
    ) -> Self {
        Checker {
            infer: InferCtx::default(),
            errors,
            sites,
            shared,
            registry,
            devices: DeviceTable::default(),
            generics: Vec::new(),
            consts: consts::ConstState::default(),
            let_init: false,
            kernel: false,
            locals: Vec::new(),
            scopes: vec![Vec::new()],
            loops: Vec::new(),
            loop_count: 0,
            ret: Ty::Unit,
            checked,
            param_count: 0,
            depth: 0,
            too_deep: false,
            init: init::InitState::default(),
            aliases: Vec::new(),
            views: Vec::new(),
            inline_return: None,
            inlining: Vec::new(),
            callables: Vec::new(),
        }
    }

    /// A declared return type (`()` when there is none).
    fn return_type(&mut self, output: &syn::ReturnType) -> Ty {
        match output {
            syn::ReturnType::Default => Ty::Unit,
            syn::ReturnType::Type(_, t) if self.placeholder_in_signature(t) => Ty::Error,
            syn::ReturnType::Type(_, t) => self.local_type(t).unwrap_or(Ty::Error),
        }
    }

    /// Reports a `_` in a signature's type (Rust does not allow one there either; the type of
    /// what crosses a call must be written out). True when there was one.
    fn placeholder_in_signature(&mut self, ty: &syn::Type) -> bool {
        struct Find<'t>(Option<&'t syn::TypeInfer>);
        impl<'t> syn::visit::Visit<'t> for Find<'t> {
            fn visit_type_infer(&mut self, t: &'t syn::TypeInfer) {
                self.0.get_or_insert(t);
            }
        }
        let mut find = Find(None);
        syn::visit::Visit::visit_type(&mut find, ty);
        let Some(at) = find.0 else { return false };
        self.error(
            at,
            "the placeholder `_` is not allowed in a function's signature: write the type out",
        );
        true
    }

    /// Checks parameters and body; `ret` is the declared return type.
    fn function(&mut self, item: &syn::ItemFn, ret: Ty) -> Function {
        self.ret = ret.clone();
        let mut params = Vec::new();
        for arg in &item.sig.inputs {
            match arg {
                syn::FnArg::Receiver(r) => self.error(
                    r,
                    "kernels and device functions are free functions: they cannot take `self`",
                ),
                syn::FnArg::Typed(pt) => {
                    let closure = if self.kernel {
                        None
                    } else {
                        self.closure_param(&item.sig, pt)
                    };
                    match closure {
                        Some(id) => params.extend(id),
                        None => params.extend(self.param(pt)),
                    }
                }
            }
        }
        self.param_count = self.locals.len();
        let mut body = self.block(&item.block);
        let diverges = matches!(self.infer.shallow(&body.ty), Ty::Never);
        match item.block.stmts.last() {
            _ if diverges => {}
            Some(syn::Stmt::Expr(tail, None)) if ret == Ty::Unit => {
                if self.infer.unify(&Ty::Unit, &body.ty).is_err() {
                    let d = self.infer.describe(&body.ty);
                    let msg = if self.kernel {
                        format!("kernels return nothing, but this expression is a value of type `{d}`; end it with `;`, or write the value into a `&mut [T]` parameter")
                    } else {
                        format!("this function returns nothing, but this expression is a value of type `{d}`; end it with `;`, or declare the return type, `-> {d}`")
                    };
                    self.error(tail, msg);
                }
            }
            Some(syn::Stmt::Expr(tail, None)) => {
                self.unify_at(&ret, &body.ty.clone(), tail, "the function's return type");
            }
            _ => {
                self.unify_at(
                    &ret,
                    &body.ty.clone(),
                    &item.block,
                    "the function's return type",
                );
            }
        }
        let errors = self.infer.deferred_errors();
        self.errors.extend(errors);
        self.resolve_function(&mut body);
        self.fill_deferred_lets(&mut body);
        Function {
            name: item.sig.ident.to_string(),
            params,
            locals: std::mem::take(&mut self.locals),
            ret,
            body,
            loop_count: self.loop_count,
            span: item.sig.ident.span(),
            constants: std::mem::take(&mut self.consts.constants),
            counted: Vec::new(),
        }
    }

    fn param(&mut self, pt: &syn::PatType) -> Option<LocalId> {
        if self.placeholder_in_signature(&pt.ty) {
            return None;
        }
        if let Some(id) = self.reference_param(pt) {
            return id;
        }
        let Some(ty) = self.param_type(&pt.ty) else {
            // The type's error is reported; the name still stands for something, so that its
            // uses report nothing more.
            if let syn::Pat::Ident(pi) = &*pt.pat {
                if !self.locals.iter().any(|l| pi.ident == l.name) {
                    self.declare(&pi.ident.to_string(), Ty::Error, true, pi.ident.span());
                }
            }
            return None;
        };
        match &*pt.pat {
            syn::Pat::Ident(pi)
                if pi.by_ref.is_none()
                    && pi.subpat.is_none()
                    && self.locals.iter().any(|l| pi.ident == l.name) =>
            {
                self.error(
                    &pi.ident,
                    format!(
                        "parameter `{}` is declared twice; give each parameter its own name",
                        pi.ident
                    ),
                );
                None
            }
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                if pi.mutability.is_some() && matches!(ty, Ty::Slice { .. }) {
                    self.error(pi, "a slice parameter cannot be `mut`; write `x: &mut [T]` to write through it");
                }
                Some(self.declare(
                    &pi.ident.to_string(),
                    ty,
                    pi.mutability.is_some(),
                    pi.ident.span(),
                ))
            }
            other => {
                self.error(
                    other,
                    "kernel parameters must be plain names, like `x: &[f32]` (`_x` for one the kernel does not use)",
                );
                None
            }
        }
    }

    /// A device function's `&T` / `&mut T` parameter, checked on its own: a local of type `T`
    /// (mutable for `&mut`) that `*p` reads and writes. Calls check the body again inline,
    /// where `p` names the caller's place. `None` when `pt` is not such a parameter.
    fn reference_param(&mut self, pt: &syn::PatType) -> Option<Option<LocalId>> {
        let mut t = &*pt.ty;
        while let syn::Type::Group(g) = t {
            t = &g.elem;
        }
        let syn::Type::Reference(r) = t else {
            return None;
        };
        if self.kernel || matches!(&*r.elem, syn::Type::Slice(_)) {
            return None;
        }
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return None;
        };
        let Some(ty) = self.local_type(&r.elem) else {
            return Some(None);
        };
        let id = self.declare(
            &pi.ident.to_string(),
            ty,
            r.mutability.is_some(),
            pi.ident.span(),
        );
        self.aliases.push((id, None));
        Some(Some(id))
    }

    /// The type of a parameter: a scalar, `&[T]` or `&mut [T]` (and for a device function an
    /// array or a tuple).
    fn param_type(&mut self, ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Reference(r) => {
                if let syn::Type::Slice(s) = &*r.elem {
                    let elem = self.element_type(&s.elem, "a slice's element")?;
                    return Some(Ty::Slice {
                        elem: Box::new(elem),
                        mutable: r.mutability.is_some(),
                    });
                }
                let msg = reference_param_message(r);
                self.error(ty, msg);
                None
            }
            syn::Type::Paren(p) => self.param_type(&p.elem),
            syn::Type::Group(g) => self.param_type(&g.elem),
            syn::Type::Tuple(t) if !t.elems.is_empty() && self.kernel => {
                self.error(
                    ty,
                    format!(
                        "tuples cannot be kernel parameters; pass each element as its own parameter, like `{}`",
                        numbered_params(t.elems.iter())
                    ),
                );
                None
            }
            syn::Type::Array(a) if self.kernel => {
                let elem = source::type_text(&a.elem);
                self.error(
                    ty,
                    format!("arrays cannot be kernel parameters; pass a buffer as `&[{elem}]` and index it"),
                );
                None
            }
            // A device function may take arrays and tuples by value.
            syn::Type::Array(_) => self.local_type(ty),
            syn::Type::Tuple(t) if !t.elems.is_empty() => self.local_type(ty),
            syn::Type::Path(_) if self.user_type_named(ty) => self.user_type(ty).flatten(),
            _ => self.scalar_type(ty).map(Ty::Scalar),
        }
    }

    /// The scalar a type name stands for: a scalar's own name, or a generic parameter of
    /// this instance.
    fn scalar_named(&self, name: &str) -> Option<Scalar> {
        Scalar::from_name(name).or_else(|| {
            self.generics
                .iter()
                .find(|(g, _)| g == name)
                .map(|(_, s)| *s)
        })
    }

    /// A scalar type written in source; errors name what can be used instead.
    fn scalar_type(&mut self, ty: &syn::Type) -> Option<Scalar> {
        match ty {
            syn::Type::Group(g) => return self.scalar_type(&g.elem),
            syn::Type::Paren(p) => return self.scalar_type(&p.elem),
            _ => {}
        }
        let text = source::type_text(ty);
        let help = match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last().map(|s| s.ident.to_string());
                match last.as_deref() {
                    Some(name) if p.path.segments.len() == 1 => {
                        if let Some(s) = self.scalar_named(name) {
                            return Some(s);
                        }
                        type_help(name, p.path.segments.last())
                    }
                    Some(name) if Scalar::from_name(name).is_some() => {
                        format!("write the type as `{name}`")
                    }
                    // `model::Particle`: the simulator's code names user types by one name.
                    Some(name)
                        if name.starts_with(|c: char| c.is_ascii_uppercase())
                            && !matches!(
                                name,
                                "Vec"
                                    | "String"
                                    | "Box"
                                    | "Rc"
                                    | "Arc"
                                    | "HashMap"
                                    | "BTreeMap"
                                    | "VecDeque"
                                    | "Option"
                                    | "Result"
                            ) =>
                    {
                        format!("kernels name user types by their own name: import it, `use {text};`, and write `{name}`")
                    }
                    Some(name) => type_help(name, p.path.segments.last()),
                    None => KERNEL_TYPES.to_string(),
                }
            }
            syn::Type::TraitObject(_) => DYN_HELP.to_string(),
            syn::Type::ImplTrait(_) => IMPL_HELP.to_string(),
            syn::Type::BareFn(_) => FN_POINTER_HELP.to_string(),
            syn::Type::Ptr(_) => {
                "raw pointers are not supported in kernels; take a `&[T]` or `&mut [T]` parameter"
                    .to_string()
            }
            syn::Type::Reference(_) | syn::Type::Slice(_) => {
                "slices and references are only kernel parameters (`x: &[f32]`, `y: &mut [f32]`)"
                    .to_string()
            }
            _ => KERNEL_TYPES.to_string(),
        };
        self.error(
            ty,
            format!("type `{text}` cannot be used in a kernel: {help}"),
        );
        None
    }

    /// The type of a `let` annotation, whose placeholders (`_`, `[_; 4]`, `(f32, _)`) take
    /// the corresponding part of the value's type.
    fn annotated_type(&mut self, ty: &syn::Type, value: &Ty) -> Option<Ty> {
        let value = self.infer.zonk(value);
        match (ty, &value) {
            (syn::Type::Infer(_), _) => Some(value.clone()),
            (syn::Type::Paren(p), _) => self.annotated_type(&p.elem, &value),
            (syn::Type::Group(g), _) => self.annotated_type(&g.elem, &value),
            (syn::Type::Array(a), Ty::Array(elem, _)) => {
                let e = self.annotated_type(&a.elem, elem)?;
                let len = self.const_len(&a.len)?;
                if !self.array_fits(&e, len, ty) {
                    return None;
                }
                Some(Ty::Array(Box::new(e), len))
            }
            (syn::Type::Tuple(t), Ty::Tuple(vs)) if t.elems.len() == vs.len() => {
                let mut tys = Vec::new();
                for (e, v) in t.elems.iter().zip(vs) {
                    tys.push(self.annotated_type(e, v)?);
                }
                Some(Ty::Tuple(tys))
            }
            _ => self.local_type(ty),
        }
    }

    /// The type of a `let` annotation: scalars, arrays and tuples of them.
    fn local_type(&mut self, ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Array(a) => {
                let elem = self.local_type(&a.elem)?;
                let len = self.const_len(&a.len)?;
                if !self.array_fits(&elem, len, ty) {
                    return None;
                }
                Some(Ty::Array(Box::new(elem), len))
            }
            syn::Type::Tuple(t) if t.elems.is_empty() => Some(Ty::Unit),
            syn::Type::Tuple(t) => {
                let mut tys = Vec::new();
                for e in &t.elems {
                    tys.push(self.local_type(e)?);
                }
                // `(f32,)` is a one-element tuple; `(f32)` is a `Type::Paren`.
                Some(Ty::Tuple(tys))
            }
            syn::Type::Paren(p) => self.local_type(&p.elem),
            syn::Type::Group(g) => self.local_type(&g.elem),
            syn::Type::Path(_) if self.user_type_named(ty) => self.user_type(ty).flatten(),
            syn::Type::Infer(_) => {
                self.error(ty, "write the type out: `_` can stand only for a part of a `let` annotation whose value gives it");
                None
            }
            _ => self.scalar_type(ty).map(Ty::Scalar),
        }
    }

    /// An array length: a constant expression (`8`, `N`, `N + 1`).
    fn const_len(&mut self, e: &syn::Expr) -> Option<u64> {
        self.const_usize(
            e,
            "array lengths",
            "; for a length known only at run time, take a `&mut [T]` parameter",
        )
    }

    /// Records an error at the tokens of `at`.
    fn error(&mut self, at: impl ToTokens, msg: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(at, msg));
    }

    /// Unifies `expected` with `found`, reporting a mismatch at `at`.
    fn unify_at(&mut self, expected: &Ty, found: &Ty, at: impl ToTokens, what: &str) -> bool {
        if self.infer.unify(expected, found).is_ok() {
            return true;
        }
        let node: Option<syn::Expr> = syn::parse2(at.to_token_stream()).ok();
        let msg = self.mismatch_message(expected, found, what, node.as_ref());
        self.error(at, msg);
        false
    }

    /// "mismatched types: ..", with the conversion to write when there is one; `node` is the
    /// expression of type `found`.
    fn mismatch_message(
        &self,
        expected: &Ty,
        found: &Ty,
        what: &str,
        node: Option<&syn::Expr>,
    ) -> String {
        let e = self.infer.describe(expected);
        let f = self.infer.describe(found);
        let mut msg = format!("mismatched types: {what} is `{e}`, found `{f}`");
        let exp = self.infer.zonk(expected);
        let fnd = self.infer.zonk(found);
        match (&exp, &fnd, node) {
            (Ty::Scalar(s), Ty::Var(_), _)
                if s.is_float() && self.infer.is_float_var(&fnd) == Some(false) =>
            {
                match node.map(expr::strip_parens) {
                    Some(syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    })) if i.suffix().is_empty() => msg.push_str(&format!(
                        "; write a float literal, `{}.0`",
                        i.base10_digits()
                    )),
                    _ => msg.push_str(&format!(
                        "; write a float literal such as `2.0` (or `2.0{}`)",
                        s.name()
                    )),
                }
            }
            (Ty::Scalar(a), Ty::Scalar(b), node)
                if a != b && *a != Scalar::Bool && *b != Scalar::Bool =>
            {
                let fix = match node {
                    Some(n) => source::cast_text(n, a.name()),
                    None => format!("as {}", a.name()),
                };
                msg.push_str(&format!(
                    "; Cuprum does not convert implicitly: write `{fix}`"
                ));
            }
            _ => {}
        }
        msg
    }

    fn declare(&mut self, name: &str, ty: Ty, mutable: bool, span: Span) -> LocalId {
        self.locals.push(Local {
            name: name.to_string(),
            ty,
            mutable,
            span,
        });
        let id = self.locals.len() - 1;
        self.scopes
            .last_mut()
            .expect("a scope is always open")
            .push((name.to_string(), id));
        id
    }

    fn lookup(&self, name: &str) -> Option<LocalId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
    }

    /// Every local name in scope, for suggestions.
    fn names_in_scope(&self) -> Vec<String> {
        self.scopes
            .iter()
            .flatten()
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// A new runtime check, or `None` in `unchecked` kernels.
    fn site(&mut self, kind: CheckKind, span: Span) -> Option<SiteId> {
        if !self.checked {
            return None;
        }
        self.sites.push(CheckSite {
            kind,
            span,
            message: None,
            elided: None,
        });
        Some(self.sites.len() as SiteId - 1)
    }
}

/// What kernel values can be.
const KERNEL_TYPES: &str =
    "kernel values are `bool`, the integer types up to 64 bits, `f32` and `f64`";
const DYN_HELP: &str = "trait objects need dynamic dispatch, which kernels do not have; call a `#[device]` function directly";
const IMPL_HELP: &str = "kernels are compiled once for fixed types; call a `#[device]` function directly, or list the types with `#[kernel(instances(..))]` on a generic kernel";
const FN_POINTER_HELP: &str =
    "function pointers are not supported in kernels; call a `#[device]` function directly";

/// Why the type named `name` cannot be used, and what to use instead.
fn type_help(name: &str, segment: Option<&syn::PathSegment>) -> String {
    // The element type of `Vec<f32>`, for "take a `&mut [f32]`".
    let elem = match segment.map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(a)) => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) if a.args.len() == 1 => source::type_text(t),
            _ => "T".to_string(),
        },
        _ if name == "String" => "u8".to_string(),
        _ => "T".to_string(),
    };
    let boxes_dyn = match segment.map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(a)) => a
            .args
            .iter()
            .any(|g| matches!(g, syn::GenericArgument::Type(syn::Type::TraitObject(_)))),
        _ => false,
    };
    match name {
        _ if boxes_dyn => DYN_HELP.to_string(),
        "Vec" | "String" | "Box" | "Rc" | "Arc" | "HashMap" | "BTreeMap" | "VecDeque" => {
            format!("heap allocation is not available in kernels; take a `&mut [{elem}]` parameter (a `DeviceBuffer<{elem}>` on the host)")
        }
        "i128" | "u128" => {
            "128-bit integers are not supported on the GPU; use `i64` or `u64`".into()
        }
        "char" | "str" => {
            "text is not supported in kernels; pass bytes as `u8` (or `&[u8]`)".into()
        }
        "Option" | "Result" => {
            format!("`{name}` is not supported in kernels; pass plain values and a flag")
        }
        "f16" | "bf16" => "half-precision floats are not supported yet; use `f32`".into(),
        _ => format!("{KERNEL_TYPES}, and the `#[derive(DeviceCopy)]` structs and enums defined in the kernel's module or imported into it with `use`"),
    }
}

/// The message for a reference parameter that is not a slice.
fn reference_param_message(r: &syn::TypeReference) -> String {
    let text = source::type_text(r);
    let m = if r.mutability.is_some() { "mut " } else { "" };
    let advice = match &*r.elem {
        syn::Type::TraitObject(_) => DYN_HELP.to_string(),
        syn::Type::ImplTrait(_) => IMPL_HELP.to_string(),
        syn::Type::Path(p) if p.path.is_ident("str") => {
            "text is not supported in kernels; pass bytes as `&[u8]`".to_string()
        }
        syn::Type::Path(p)
            if p.path
                .get_ident()
                .and_then(|i| Scalar::from_name(&i.to_string()))
                .is_some() =>
        {
            let inner = source::type_text(&r.elem);
            if r.mutability.is_some() {
                format!(
                    "to write one value back, take `&mut [{inner}]` and write its element `[0]`"
                )
            } else {
                format!("pass the value itself, `{inner}`, or a buffer, `&[{inner}]`")
            }
        }
        elem => {
            let inner = source::type_text(elem);
            format!("pass a buffer, `&{m}[{inner}]`, where `{inner}` is a scalar type")
        }
    };
    format!("`{text}` cannot be a kernel parameter: kernels take scalars, `&[T]` and `&mut [T]`; {advice}")
}

/// `a0: f32, a1: f32` for the elements of a tuple type.
fn numbered_params<'t>(elems: impl Iterator<Item = &'t syn::Type>) -> String {
    elems
        .enumerate()
        .map(|(i, t)| format!("a{i}: {}", source::type_text(t)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A placeholder for an expression that failed to check.
fn error_expr(span: Span) -> crate::ir::Expr {
    crate::ir::Expr {
        kind: crate::ir::ExprKind::Unit,
        ty: Ty::Error,
        span,
    }
}

/// The first token's span of a syntax node.
fn span_of(node: &impl Spanned) -> Span {
    node.span()
}
