//! Closures: `let f = |x| ..;` in a body, and closure arguments of device functions
//! (`op: impl Fn(f32, f32) -> f32`, or `F` bounded by `Fn(..)`), all inlined.
//!
//! A closure is not a value in the IR. Its name stands for its syntax and for the scopes it
//! was written in; each call checks its body again there (so it sees, and writes, the very
//! locals it captures), with its parameters bound to the call's arguments, as a block that
//! its `return` leaves. A device function that takes a closure is checked inline at each call
//! (see `inline.rs`). Checked on its own, such a function knows only the closure's signature.

use std::rc::Rc;

use super::{error_expr, span_of, Checker, LoopScope};
use crate::ir::{Expr, ExprKind, LocalId, Stmt};
use crate::ty::{Scalar, Ty};

/// What a closure's name stands for.
pub(crate) enum Callable {
    /// A closure written in a body, with what its body sees.
    Closure {
        syntax: Box<syn::ExprClosure>,
        scopes: Vec<Vec<(String, LocalId)>>,
        generics: Vec<(String, Scalar)>,
        devices: crate::device::DeviceTable,
        kernel: bool,
        /// The module items (and const generic arguments) its body sees: those where it is
        /// written, whatever function it is called in.
        module: Box<crate::consts::ModuleItems>,
        /// The `Fn(A, B) -> R` of the parameter it was passed for, which types its
        /// parameters and result (as rustc infers a closure's types from the bound).
        signature: Option<(Vec<Ty>, Ty)>,
        /// Set when the closure stands for a `#[device]` function passed by name.
        function: Option<FnValue>,
    },
    /// A closure parameter of a device function checked on its own: its signature only.
    Signature { inputs: Vec<Ty>, output: Ty },
}

/// A `#[device]` function passed by name for a closure parameter (`apply(x, square)`): it
/// stands for the closure `|a, b| square(a, b)`, written at the name.
#[derive(Clone)]
pub(crate) struct FnValue {
    /// The name as written.
    name: String,
    /// Where it is written.
    span: proc_macro2::Span,
    /// Its parameter and result types, when they are plain scalars (compared with the
    /// parameter's `Fn(..)` bound, for one clear error); `None` for a generic function or
    /// other types, whose mismatch the inlined call reports.
    types: Option<(Vec<Ty>, Ty)>,
}

/// The `Fn(A, B) -> R` bound of a closure parameter's type: `impl Fn(..)`, or a type
/// parameter of `sig` bounded by `Fn`, `FnMut` or `FnOnce` (in its list or a `where`).
pub(super) fn closure_bound<'s>(
    sig: &'s syn::Signature,
    ty: &'s syn::Type,
) -> Option<&'s syn::ParenthesizedGenericArguments> {
    let mut ty = ty;
    while let syn::Type::Group(g) = ty {
        ty = &g.elem;
    }
    let fn_bound = |b: &'s syn::TypeParamBound| match b {
        syn::TypeParamBound::Trait(t) => {
            let last = t.path.segments.last()?;
            match (&last.arguments, last.ident.to_string().as_str()) {
                (syn::PathArguments::Parenthesized(p), "Fn" | "FnMut" | "FnOnce") => Some(p),
                _ => None,
            }
        }
        _ => None,
    };
    match ty {
        syn::Type::ImplTrait(it) => it.bounds.iter().find_map(fn_bound),
        syn::Type::Path(p) if p.qself.is_none() => {
            let ident = p.path.get_ident()?;
            let in_list = sig.generics.params.iter().find_map(|g| match g {
                syn::GenericParam::Type(t) if t.ident == *ident => {
                    t.bounds.iter().find_map(fn_bound)
                }
                _ => None,
            });
            in_list.or_else(|| {
                sig.generics.where_clause.as_ref()?.predicates.iter().find_map(|w| match w {
                    syn::WherePredicate::Type(pt)
                        if matches!(&pt.bounded_ty, syn::Type::Path(b) if b.path.is_ident(ident)) =>
                    {
                        pt.bounds.iter().find_map(fn_bound)
                    }
                    _ => None,
                })
            })
        }
        _ => None,
    }
}

/// Whether the generic parameter `name` of `sig` stands for a closure type.
pub(super) fn is_closure_generic(sig: &syn::Signature, name: &syn::Ident) -> bool {
    let ty: syn::Type = syn::Type::Path(syn::TypePath {
        qself: None,
        path: name.clone().into(),
    });
    closure_bound(sig, &ty).is_some()
}

impl Checker<'_> {
    /// What the local `id` stands for, if it is a closure.
    pub(super) fn callable_of(&self, id: LocalId) -> Option<Rc<Callable>> {
        self.callables
            .iter()
            .rev()
            .find(|(c, _)| *c == id)
            .map(|(_, c)| c.clone())
    }

    /// A closure's syntax with what it sees here.
    pub(super) fn closure_here(&self, syntax: &syn::ExprClosure) -> Rc<Callable> {
        Rc::new(Callable::Closure {
            syntax: Box::new(syntax.clone()),
            scopes: self.scopes.clone(),
            generics: self.generics.clone(),
            devices: self.devices.clone(),
            kernel: self.kernel,
            module: Box::new(self.consts.module.clone()),
            signature: None,
            function: None,
        })
    }

    /// `callable` as passed for a parameter bounded by `bound` (in the callee's context, so
    /// its generic types are known).
    pub(super) fn with_signature(
        &mut self,
        callable: Rc<Callable>,
        bound: &syn::ParenthesizedGenericArguments,
    ) -> Rc<Callable> {
        let Callable::Closure {
            syntax,
            scopes,
            generics,
            devices,
            kernel,
            module,
            function,
            ..
        } = &*callable
        else {
            return callable;
        };
        let inputs: Vec<Ty> = bound
            .inputs
            .iter()
            .map(|t| self.local_type(t).unwrap_or(Ty::Error))
            .collect();
        let output = match &bound.output {
            syn::ReturnType::Default => Ty::Unit,
            syn::ReturnType::Type(_, t) => self.local_type(t).unwrap_or(Ty::Error),
        };
        if let Some(FnValue {
            name,
            span,
            types: Some((params, result)),
        }) = function
        {
            let same = |a: &Ty, b: &Ty| {
                let b = self.infer.zonk(b);
                matches!(b, Ty::Error) || *a == b
            };
            let fits = params.len() == inputs.len()
                && params.iter().zip(&inputs).all(|(a, b)| same(a, b))
                && same(result, &output);
            if !fits {
                let list = |ts: &[Ty]| {
                    ts.iter()
                        .map(|t| self.infer.zonk(t).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let arrow = |t: &Ty| match self.infer.zonk(t) {
                    Ty::Unit => String::new(),
                    t => format!(" -> {t}"),
                };
                let msg = format!(
                    "mismatched types: `{name}` is `fn({}){}`, but this parameter takes `impl Fn({}){}`",
                    list(params),
                    arrow(result),
                    list(&inputs),
                    arrow(&output)
                );
                self.errors.push(syn::Error::new(*span, msg));
                // Calls of it are typed by the bound and report nothing more.
                return Rc::new(Callable::Signature { inputs, output });
            }
        }
        Rc::new(Callable::Closure {
            syntax: syntax.clone(),
            scopes: scopes.clone(),
            generics: generics.clone(),
            devices: devices.clone(),
            kernel: *kernel,
            module: module.clone(),
            signature: Some((inputs, output)),
            function: function.clone(),
        })
    }

    /// `let f = |..| ..;`: names the closure (no IR). `None` when the `let` is not one.
    pub(super) fn closure_let(&mut self, l: &syn::Local) -> Option<()> {
        let init = l.init.as_ref()?;
        if let (syn::Pat::Ident(pi), syn::Expr::Path(p)) =
            (&l.pat, super::expr::strip_parens(&init.expr))
        {
            // `let f = square;` of a `#[device]` function: `f` names it.
            let local = p.path.get_ident().and_then(|i| self.lookup(&i.to_string()));
            if p.qself.is_none() && local.is_none() && self.devices.get(&p.path).is_some() {
                let callable = self.function_value(p, &init.expr, None)?;
                let id = self.declare(&pi.ident.to_string(), Ty::Unit, false, pi.ident.span());
                self.callables.push((id, callable));
                return Some(());
            }
        }
        let syn::Expr::Closure(c) = super::expr::strip_parens(&init.expr) else {
            return None;
        };
        let syn::Pat::Ident(pi) = &l.pat else {
            self.error(&l.pat, "bind a closure to a name: `let f = |x| ..;`");
            return Some(());
        };
        self.check_closure_syntax(c);
        let callable = self.closure_here(c);
        let id = self.declare(&pi.ident.to_string(), Ty::Unit, false, pi.ident.span());
        self.callables.push((id, callable));
        Some(())
    }

    /// What kernels do not support in a closure's own syntax (reported where it is written).
    pub(super) fn check_closure_syntax(&mut self, c: &syn::ExprClosure) {
        if let Some(a) = &c.asyncness {
            self.error(a, "closures in kernels cannot be `async`");
        }
        if let Some(m) = &c.movability {
            self.error(m, "closures in kernels cannot be `static`");
        }
    }

    /// A closure parameter of a device function checked on its own: a name that calls check
    /// against its signature. `None` when `pt` is not a closure parameter.
    pub(super) fn closure_param(
        &mut self,
        sig: &syn::Signature,
        pt: &syn::PatType,
    ) -> Option<Option<LocalId>> {
        let bound = closure_bound(sig, &pt.ty)?;
        let syn::Pat::Ident(pi) = &*pt.pat else {
            self.error(
                &pt.pat,
                "name the closure parameter, like `op: impl Fn(f32) -> f32`",
            );
            return Some(None);
        };
        let mut inputs = Vec::new();
        for t in &bound.inputs {
            inputs.push(self.local_type(t).unwrap_or(Ty::Error));
        }
        let output = match &bound.output {
            syn::ReturnType::Default => Ty::Unit,
            syn::ReturnType::Type(_, t) => self.local_type(t).unwrap_or(Ty::Error),
        };
        let id = self.declare(&pi.ident.to_string(), Ty::Unit, false, pi.ident.span());
        self.callables
            .push((id, Rc::new(Callable::Signature { inputs, output })));
        Some(Some(id))
    }

    /// `f(args)` where `f` names a closure.
    pub(super) fn call_closure(&mut self, callable: &Callable, c: &syn::ExprCall) -> Expr {
        let span = span_of(c);
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        match callable {
            Callable::Signature { inputs, output } => {
                if inputs.len() != args.len() {
                    self.error(
                        c,
                        format!(
                            "this closure takes {} arguments but {} were supplied",
                            inputs.len(),
                            args.len()
                        ),
                    );
                    return error_expr(span);
                }
                for ((want, a), node) in inputs.iter().zip(&args).zip(&c.args) {
                    self.unify_at(want, &a.ty.clone(), node, "the closure's parameter type");
                }
                // Only a device function checked on its own gets here; its IR is not used.
                Expr {
                    kind: ExprKind::Unit,
                    ty: output.clone(),
                    span,
                }
            }
            Callable::Closure {
                syntax,
                scopes,
                generics,
                devices,
                kernel,
                module,
                signature,
                function,
            } => {
                if let Some((inputs, _)) = signature {
                    for ((want, a), node) in inputs.iter().zip(&args).zip(&c.args) {
                        self.unify_at(want, &a.ty.clone(), node, "the closure's parameter type");
                    }
                }
                if syntax.inputs.len() != args.len() {
                    let n = syntax.inputs.len();
                    let what = match function {
                        Some(f) => format!(
                            "`{}` (the `#[device]` function `{}`)",
                            super::source::expr_text(&c.func),
                            f.name
                        ),
                        None => "this closure".to_string(),
                    };
                    self.error(
                        c,
                        format!(
                            "{what} takes {n} argument{} but {} were supplied",
                            if n == 1 { "" } else { "s" },
                            args.len()
                        ),
                    );
                    return error_expr(span);
                }
                let saved_scopes = std::mem::replace(&mut self.scopes, scopes.clone());
                self.scopes.push(Vec::new());
                let saved_loops: Vec<LoopScope> = std::mem::take(&mut self.loops);
                let saved_generics = std::mem::replace(&mut self.generics, generics.clone());
                let saved_devices = std::mem::replace(&mut self.devices, devices.clone());
                let saved_kernel = std::mem::replace(&mut self.kernel, *kernel);
                let saved_module = (!self.consts.module.same_module(module))
                    .then(|| self.consts.enter_module((**module).clone()));
                let saved_ret = std::mem::replace(&mut self.ret, Ty::Error);
                let saved_return = self.inline_return;
                let mut stmts = Vec::new();
                for (pat, value) in syntax.inputs.iter().zip(args) {
                    let (pat, annotation) = match pat {
                        syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
                        other => (other, None),
                    };
                    if let Some(t) = annotation {
                        if let Some(want) = self.local_type(t) {
                            self.unify_at(
                                &want,
                                &value.ty.clone(),
                                t,
                                "the closure parameter's type",
                            );
                        }
                    }
                    let ty = value.ty.clone();
                    let pat = self.pattern(pat, &ty);
                    stmts.push(Stmt::Let { pat, init: value });
                }
                let id = self.loop_count;
                self.loop_count += 1;
                self.inline_return = Some(id);
                let body = self.expr(&syntax.body);
                if let syn::ReturnType::Type(_, t) = &syntax.output {
                    if let Some(want) = self.local_type(t) {
                        self.unify_at(
                            &want,
                            &body.ty.clone(),
                            &syntax.body,
                            "the closure's return type",
                        );
                    }
                }
                if let Some((_, output)) = signature {
                    if !matches!(self.infer.shallow(&body.ty), Ty::Never) {
                        self.unify_at(
                            output,
                            &body.ty.clone(),
                            &syntax.body,
                            "the closure's return type (from the parameter's `Fn` bound)",
                        );
                    }
                }
                self.scopes = saved_scopes;
                self.loops = saved_loops;
                self.generics = saved_generics;
                self.devices = saved_devices;
                self.kernel = saved_kernel;
                if let Some(m) = saved_module {
                    self.consts.leave_module(m);
                }
                self.ret = saved_ret;
                self.inline_return = saved_return;
                let ty = body.ty.clone();
                super::inline::inlined_call(id, stmts, body, ty, span)
            }
        }
    }

    /// The closure passed for a closure parameter whose bound is `bound`: `|a, b| ..` written
    /// there, the name of one, or the name of a `#[device]` function. `None` after an error.
    pub(super) fn closure_arg(
        &mut self,
        arg: &syn::Expr,
        bound: &syn::ParenthesizedGenericArguments,
    ) -> Option<Rc<Callable>> {
        match super::expr::strip_parens(arg) {
            syn::Expr::Closure(c) => {
                self.check_closure_syntax(c);
                Some(self.closure_here(c))
            }
            syn::Expr::Reference(r) => self.closure_arg(&r.expr, bound),
            syn::Expr::Path(p) if p.qself.is_none() => {
                let local = p.path.get_ident().and_then(|i| self.lookup(&i.to_string()));
                match local {
                    Some(id) => {
                        let found = self.callable_of(id);
                        if found.is_none() {
                            self.error(arg, format!("`{}` is a value, not a function: pass a closure here, like `|a, b| a + b`, or the name of a `#[device]` function", super::source::expr_text(&p.path)));
                        }
                        found
                    }
                    None => self.function_value(p, arg, Some(bound)),
                }
            }
            other => {
                self.error(
                    other,
                    "pass a closure here, like `|a, b| a + b`, or the name of a `#[device]` function",
                );
                None
            }
        }
    }

    /// A `#[device]` function passed by name (for a parameter bounded by `bound`, or bound
    /// to a name by `let`): the closure `|a, b| f(a, b)` written at the name, inlined at each
    /// call like any closure.
    fn function_value(
        &mut self,
        p: &syn::ExprPath,
        arg: &syn::Expr,
        bound: Option<&syn::ParenthesizedGenericArguments>,
    ) -> Option<Rc<Callable>> {
        let text = super::source::expr_text(&p.path);
        let Some(dev) = self.devices.get(&p.path).cloned() else {
            self.error(arg, format!("pass a closure here, like `|a, b| a + b`, or the name of a `#[device]` function (`{text}` is neither; for a `cuprum::gpu` or `std` function write a closure, `|x| {text}(x)`)"));
            return None;
        };
        let params: Vec<&syn::PatType> = dev
            .item
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(pt) => Some(pt),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let want = bound.map_or(params.len(), |b| b.inputs.len());
        if params.len() != want || params.len() != dev.item.sig.inputs.len() {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            self.error(
                arg,
                format!(
                    "`{text}` takes {} argument{}, but this parameter takes a function of {want} argument{}",
                    params.len(),
                    plural(params.len()),
                    plural(want)
                ),
            );
            return None;
        }
        let span = syn::spanned::Spanned::span(arg);
        let names: Vec<syn::Ident> = (0..want)
            .map(|k| syn::Ident::new(&format!("__cuprum_arg{k}"), span))
            .collect();
        let path = &p.path;
        let tokens = quote::quote_spanned!(span=> |#(#names),*| #path(#(#names),*));
        let syntax: syn::ExprClosure = syn::parse2(tokens).ok()?;
        // Plain scalar types are compared with the bound up front (one error for a mismatch).
        let scalar = |t: &syn::Type| match super::inline::strip_groups(t) {
            syn::Type::Path(tp) if tp.qself.is_none() => tp
                .path
                .get_ident()
                .and_then(|i| Scalar::from_name(&i.to_string()))
                .map(Ty::Scalar),
            syn::Type::Tuple(t) if t.elems.is_empty() => Some(Ty::Unit),
            _ => None,
        };
        let generic = !dev.item.sig.generics.params.is_empty();
        let inputs: Option<Vec<Ty>> = params.iter().map(|pt| scalar(&pt.ty)).collect();
        let output = match &dev.item.sig.output {
            syn::ReturnType::Default => Some(Ty::Unit),
            syn::ReturnType::Type(_, t) => scalar(t),
        };
        let types = match (generic, inputs, output) {
            (false, Some(i), Some(o)) => Some((i, o)),
            _ => None,
        };
        let mut callable = Rc::try_unwrap(self.closure_here(&syntax)).ok()?;
        if let Callable::Closure { function, .. } = &mut callable {
            *function = Some(FnValue {
                name: text,
                span,
                types,
            });
        }
        Some(Rc::new(callable))
    }
}
