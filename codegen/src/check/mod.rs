//! `check`: syn's AST of a kernel → the typed IR, with Rust's typing rules and every error at
//! the span of the code that causes it.
//!
//! Errors are collected, not returned at the first one: a kernel with three mistakes reports
//! three errors in one build. An expression that fails gets type `Ty::Error`, which unifies
//! with anything, so one mistake is not reported again by everything that uses it.

mod builtins;
mod call;
mod expr;
mod infer;
mod resolve;
mod stmt;
mod suggest;

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

use crate::device::{DeviceFn, DeviceTable};
use crate::ir::{
    CheckKind, CheckSite, Function, Local, LocalId, LoopId, Program, SharedAlloc, SiteId,
};
use crate::options::KernelOptions;
use crate::ty::{Scalar, Ty};
use infer::InferCtx;

pub use builtins::GPU_FUNCTIONS;

/// Checks a `#[kernel]` function and returns its typed IR, or every error found.
pub fn check_kernel(
    item: &syn::ItemFn,
    options: &KernelOptions,
    devices: &DeviceTable,
    generics: &[(String, Scalar)],
) -> Result<Program, syn::Error> {
    let mut errors = Vec::new();
    let mut sites = Vec::new();
    let mut shared = Vec::new();
    let mut registry = Registry::default();
    check_kernel_signature(item, !generics.is_empty(), &mut errors);
    let kernel = {
        let mut checker = Checker::new(
            &mut errors,
            &mut sites,
            &mut shared,
            &mut registry,
            options.checked,
        );
        checker.devices = devices.clone();
        checker.generics = generics.to_vec();
        checker.function(item, Ty::Unit)
    };
    if let Some(first) = errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        return Err(first);
    }
    Ok(Program {
        kernel,
        functions: registry
            .functions
            .into_iter()
            .map(|f| f.expect("every instance finished"))
            .collect(),
        sites,
        shared,
    })
}

/// Checks a non-generic `#[device]` function on its own (so that its mistakes are reported at
/// its definition, once).
pub fn check_device(item: &syn::ItemFn, devices: &DeviceTable) -> Result<(), syn::Error> {
    let mut errors = Vec::new();
    let (mut sites, mut shared, mut registry) = (Vec::new(), Vec::new(), Registry::default());
    {
        let mut checker = Checker::new(&mut errors, &mut sites, &mut shared, &mut registry, true);
        checker.devices = devices.clone();
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
    instances: Vec<(*const DeviceFn, Vec<Scalar>, usize)>,
}

/// What a kernel's signature may not have: generics (without `instances`), `async`, a return
/// type, and so on. Errors go to `errors`; checking goes on.
fn check_kernel_signature(item: &syn::ItemFn, instantiated: bool, errors: &mut Vec<syn::Error>) {
    let sig = &item.sig;
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
        errors.push(syn::Error::new_spanned(
            &sig.generics,
            "generic kernels need their instances listed: `#[kernel(instances(f32, f64))]`",
        ));
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        errors.push(syn::Error::new_spanned(
            ty,
            "kernels cannot return a value; write results into a `&mut [T]` parameter",
        ));
    }
    for arg in &sig.inputs {
        if let syn::FnArg::Typed(pt) = arg {
            let mut ty = &*pt.ty;
            while let syn::Type::Group(g) = ty {
                ty = &g.elem;
            }
            if matches!(ty, syn::Type::Array(_) | syn::Type::Tuple(_)) {
                errors.push(syn::Error::new_spanned(
                    ty,
                    "kernel parameters are scalars and slices; pass arrays and tuples as `&[T]` buffers or separate scalars",
                ));
            }
        }
    }
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
    /// Checking the initialiser of a `let` (where shared memory may be made).
    let_init: bool,
    locals: Vec<Local>,
    scopes: Vec<Vec<(String, LocalId)>>,
    loops: Vec<LoopScope>,
    loop_count: usize,
    ret: Ty,
    checked: bool,
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
            let_init: false,
            locals: Vec::new(),
            scopes: vec![Vec::new()],
            loops: Vec::new(),
            loop_count: 0,
            ret: Ty::Unit,
            checked,
        }
    }

    /// A declared return type (`()` when there is none).
    fn return_type(&mut self, output: &syn::ReturnType) -> Ty {
        match output {
            syn::ReturnType::Default => Ty::Unit,
            syn::ReturnType::Type(_, t) => self.local_type(t).unwrap_or(Ty::Error),
        }
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
                    if let Some(id) = self.param(pt) {
                        params.push(id);
                    }
                }
            }
        }
        let mut body = self.block(&item.block);
        self.unify_at(
            &ret,
            &body.ty.clone(),
            &item.block,
            "the function's return type",
        );
        let errors = self.infer.deferred_errors();
        self.errors.extend(errors);
        self.resolve_function(&mut body);
        Function {
            name: item.sig.ident.to_string(),
            params,
            locals: std::mem::take(&mut self.locals),
            ret,
            body,
            loop_count: self.loop_count,
        }
    }

    fn param(&mut self, pt: &syn::PatType) -> Option<LocalId> {
        let ty = self.param_type(&pt.ty)?;
        match &*pt.pat {
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
                    "kernel parameters must be plain names, like `x: &[f32]`",
                );
                None
            }
        }
    }

    /// The type of a parameter: a scalar, `&[T]` or `&mut [T]`.
    fn param_type(&mut self, ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Reference(r) => {
                if let syn::Type::Slice(s) = &*r.elem {
                    let elem = self.scalar_type(&s.elem)?;
                    return Some(Ty::Slice {
                        elem,
                        mutable: r.mutability.is_some(),
                    });
                }
                let inner = r.elem.to_token_stream().to_string().replace(' ', "");
                let m = if r.mutability.is_some() { "mut " } else { "" };
                self.error(
                    ty,
                    format!(
                        "references other than slices cannot be kernel parameters; pass `&{m}[{inner}]` (a buffer) or `{inner}` by value"
                    ),
                );
                None
            }
            syn::Type::Paren(p) => self.param_type(&p.elem),
            syn::Type::Group(g) => self.param_type(&g.elem),
            syn::Type::Array(_) | syn::Type::Tuple(_) => self.local_type(ty),
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
        if let syn::Type::Path(p) = ty {
            if p.qself.is_none() {
                if let Some(ident) = p.path.get_ident() {
                    let name = ident.to_string();
                    if let Some(s) = Scalar::from_name(&name) {
                        return Some(s);
                    }
                    if let Some((_, s)) = self.generics.iter().find(|(g, _)| *g == name) {
                        return Some(*s);
                    }
                    let help = match name.as_str() {
                        "Vec" | "String" | "Box" => {
                            "heap allocation is not available in kernels; take a `&mut [T]` parameter"
                        }
                        "i128" | "u128" => "128-bit integers are not supported on the GPU; use `i64` or `u64`",
                        "char" | "str" => "text is not supported in kernels; pass bytes as `u8`",
                        _ => "kernel types are `bool`, the integer types up to 64 bits, `f32` and `f64`",
                    };
                    self.error(
                        ty,
                        format!("type `{name}` cannot be used in a kernel: {help}"),
                    );
                    return None;
                }
                if let Some(last) = p.path.segments.last() {
                    let name = last.ident.to_string();
                    if matches!(name.as_str(), "Vec" | "String" | "Box") {
                        self.error(
                            ty,
                            format!("type `{name}` cannot be used in a kernel: heap allocation is not available in kernels; take a `&mut [T]` parameter"),
                        );
                        return None;
                    }
                }
            }
        }
        let text = ty.to_token_stream().to_string().replace(' ', "");
        self.error(
            ty,
            format!("type `{text}` cannot be used here: kernel types are `bool`, the integer types up to 64 bits, `f32` and `f64`"),
        );
        None
    }

    /// The type of a `let` annotation: scalars, arrays and tuples of them.
    fn local_type(&mut self, ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Array(a) => {
                let elem = self.local_type(&a.elem)?;
                let len = self.const_len(&a.len)?;
                Some(Ty::Array(Box::new(elem), len))
            }
            syn::Type::Tuple(t) if t.elems.is_empty() => Some(Ty::Unit),
            syn::Type::Tuple(t) => {
                let mut tys = Vec::new();
                for e in &t.elems {
                    tys.push(self.local_type(e)?);
                }
                Some(if tys.len() == 1 {
                    tys.pop().unwrap()
                } else {
                    Ty::Tuple(tys)
                })
            }
            syn::Type::Paren(p) => self.local_type(&p.elem),
            syn::Type::Group(g) => self.local_type(&g.elem),
            syn::Type::Infer(_) => Some(self.infer.fresh(false)),
            _ => self.scalar_type(ty).map(Ty::Scalar),
        }
    }

    /// An array length or shared-array size: an integer literal.
    fn const_len(&mut self, e: &syn::Expr) -> Option<u64> {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => match i.base10_parse::<u64>() {
                Ok(v) => Some(v),
                Err(_) => {
                    self.error(i, "array length does not fit in `usize`");
                    None
                }
            },
            syn::Expr::Paren(p) => self.const_len(&p.expr),
            syn::Expr::Group(g) => self.const_len(&g.expr),
            _ => {
                self.error(
                    e,
                    "array lengths must be integer literals, like `[0.0f32; 8]`",
                );
                None
            }
        }
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
        let msg = self.mismatch_message(expected, found, what);
        self.error(at, msg);
        false
    }

    fn mismatch_message(&self, expected: &Ty, found: &Ty, what: &str) -> String {
        let e = self.infer.describe(expected);
        let f = self.infer.describe(found);
        let mut msg = format!("mismatched types: {what} is `{e}`, found `{f}`");
        let exp = self.infer.zonk(expected);
        let fnd = self.infer.zonk(found);
        match (&exp, &fnd) {
            (Ty::Scalar(s), Ty::Var(_))
                if s.is_float() && self.infer.is_float_var(&fnd) == Some(false) =>
            {
                msg.push_str(&format!(
                    "; write a float literal such as `2.0` (or `2.0{}`)",
                    s.name()
                ));
            }
            (Ty::Scalar(a), Ty::Scalar(b))
                if a != b && *a != Scalar::Bool && *b != Scalar::Bool =>
            {
                msg.push_str(&format!(
                    "; Cuprum does not convert implicitly: write `as {}`",
                    a.name()
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
        self.sites.push(CheckSite { kind, span });
        Some(self.sites.len() as SiteId - 1)
    }
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
