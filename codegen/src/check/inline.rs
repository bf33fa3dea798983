//! Device functions that take references or sub-slices, checked inline at each call.
//!
//! A `#[device]` function with a `&T` / `&mut T` parameter, or one called with a slice that
//! is not a whole slice parameter (a shared or local array, `&mut s[a..b]`, a part made by
//! `split_at_mut`), is checked again at every call, in the caller's function, as a block: its
//! parameters become names for the caller's places (`*p = v` writes the caller's element) and
//! for *views*, parts of a slice, shared array or local array given by an offset and a length
//! computed once at the call. Indexing a view checks the index against the view's own length
//! (`IndexCheck`) and then addresses the underlying element without a second check. `return`
//! leaves the block (it is a labelled `loop` that breaks with the value). Nothing of this
//! reaches the IR: lowering and the simulator see ordinary places.

use proc_macro2::Span;

use super::expr::{strip_parens, PlaceResult, Writable};
use super::{error_expr, span_of, Checker};
use crate::device::DeviceFn;
use crate::ir::{
    BinOp, Block, CheckKind, Expr, ExprKind, LocalId, LoopId, Pattern, Place, Proj, Stmt,
};
use crate::ty::{Scalar, Ty};

/// A part of a slice, shared array or local array.
#[derive(Clone, Debug)]
pub(crate) struct View {
    /// What it is part of: a slice parameter, a 1-D or dynamic shared array, a local array.
    base: Place,
    /// Its elements' type.
    elem: Ty,
    /// Where it starts in `base` (a constant or a local: computed once).
    offset: Expr,
    /// How many elements it has (likewise).
    len: Expr,
    /// Whether it may be written (`&mut`).
    mutable: bool,
}

/// How one argument of an inlined call is passed.
enum Bound {
    /// By value: `let p = arg;`.
    Value(Expr),
    /// `&place` / `&mut place`.
    Place(Place),
    /// A slice.
    View(Box<View>),
    /// A closure.
    Closure(std::rc::Rc<super::closure::Callable>),
}

/// What the caller's context was, to come back to after an inlined body.
struct Saved {
    scopes: Vec<Vec<(String, LocalId)>>,
    loops: Vec<super::LoopScope>,
    ret: Ty,
    generics: Vec<(String, Scalar)>,
    devices: crate::device::DeviceTable,
    kernel: bool,
    inline_return: Option<usize>,
    /// The caller's module's items, when the callee is of another module or has const
    /// generic parameters.
    module: Option<super::consts::ModuleScope>,
}

impl Checker<'_> {
    /// Whether a call of `dev` with `args` must be inlined: `dev` takes a reference, or a
    /// slice argument is not a whole slice parameter.
    pub(super) fn needs_inline(
        &self,
        dev: &DeviceFn,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    ) -> bool {
        let sig = &dev.item.sig;
        let params = typed_params(sig);
        params
            .iter()
            .zip(args)
            .any(|(pt, arg)| match strip_groups(&pt.ty) {
                _ if super::closure::closure_bound(sig, &pt.ty).is_some() => true,
                syn::Type::Reference(r) => match &*r.elem {
                    syn::Type::Slice(_) => !self.is_whole_slice_param(arg),
                    _ => true,
                },
                _ => false,
            })
    }

    /// `x`, `&x` or `&mut x` for a slice parameter `x` (not a view).
    fn is_whole_slice_param(&self, arg: &syn::Expr) -> bool {
        let inner = match strip_parens(arg) {
            syn::Expr::Reference(r) => strip_parens(&r.expr),
            other => other,
        };
        let syn::Expr::Path(p) = inner else {
            return false;
        };
        let Some(id) = p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) else {
            return false;
        };
        self.view_of_local(id).is_none() && matches!(self.locals[id].ty, Ty::Slice { .. })
    }

    /// The view a local stands for.
    pub(super) fn view_of_local(&self, id: LocalId) -> Option<&View> {
        self.views
            .iter()
            .rev()
            .find(|(v, _)| *v == id)
            .map(|(_, v)| v)
    }

    /// The view `e` names, if it is the name of one.
    pub(super) fn view_named(&self, e: &syn::Expr) -> Option<View> {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        let id = self.lookup(&p.path.get_ident()?.to_string())?;
        self.view_of_local(id).cloned()
    }

    /// `view[index]`: the element, its index checked against the view's length.
    pub(super) fn view_element(
        &mut self,
        view: View,
        index: &syn::Expr,
        whole: &syn::Expr,
    ) -> PlaceResult {
        let idx = self.expr(index);
        if !self.unify_at(&Ty::USIZE, &idx.ty, index, "a slice index") {
            return PlaceResult::Failed;
        }
        let span = span_of(whole);
        let site = self.site(CheckKind::Index, span);
        let checked = Expr {
            kind: ExprKind::IndexCheck {
                index: Box::new(idx),
                len: Box::new(view.len.clone()),
                site,
            },
            ty: Ty::USIZE,
            span,
        };
        PlaceResult::Place(element(
            &view,
            add(view.offset.clone(), checked, span),
            span,
        ))
    }

    /// The view that `e` passes as a slice (`s`, `&mut s`, `&x[a..]`, `v`), with the `let`s
    /// that compute its offset and length; `None` (after an error) when `e` is not a slice.
    fn view_arg(&mut self, e: &syn::Expr, stmts: &mut Vec<Stmt>) -> Option<View> {
        let (inner, by_ref) = match strip_parens(e) {
            syn::Expr::Reference(r) => (strip_parens(&r.expr), Some(r.mutability.is_some())),
            // A slice's own name passes it on as it is (a reborrow).
            other => (other, None),
        };
        let (whole, range) = match inner {
            syn::Expr::Index(ix) if matches!(strip_parens(&ix.index), syn::Expr::Range(_)) => {
                let syn::Expr::Range(r) = strip_parens(&ix.index) else {
                    unreachable!("matched above")
                };
                (&*ix.expr, Some(r))
            }
            other => (other, None),
        };
        let mut view = self.whole_view(whole)?;
        view.mutable &= by_ref.unwrap_or(true);
        match range {
            None => Some(view),
            Some(r) => Some(self.sub_view(view, r, stmts)),
        }
    }

    /// All of the slice, shared array, local array or view that `e` names.
    fn whole_view(&mut self, e: &syn::Expr) -> Option<View> {
        if let Some(v) = self.view_named(e) {
            return Some(v);
        }
        let span = span_of(e);
        let place = match self.try_place(e) {
            PlaceResult::Place(p) => p,
            PlaceResult::Failed => return None,
            PlaceResult::NotPlace => {
                self.error(e, "a slice is passed as a slice parameter, a shared or local array, or a part of one (`&mut s[a..b]`)");
                return None;
            }
        };
        let writable = place.proj.is_empty() && {
            let root = &self.locals[place.base];
            match &root.ty {
                Ty::Slice { mutable, .. } => *mutable,
                Ty::Shared { .. } => true,
                _ => root.mutable,
            }
        };
        let (elem, len) = match self.infer.zonk(&place.ty) {
            Ty::Slice { elem, .. } => (*elem, len_of(&place, span)),
            Ty::Shared { elem, dims } if dims.len() <= 1 => match dims.first() {
                Some(n) => (*elem, usize_lit(*n, span)),
                None => (*elem, len_of(&place, span)),
            },
            Ty::Array(elem, n) => {
                if !crate::ty::is_element(&elem) {
                    let d = self.infer.describe(&elem);
                    self.error(e, format!("only arrays of scalars, arrays and `DeviceCopy` structs can be passed as slices, not arrays of `{d}`"));
                    return None;
                }
                (*elem, usize_lit(n, span))
            }
            Ty::Error => return None,
            other => {
                let d = self.infer.describe(&other);
                self.error(
                    e,
                    format!("expected a slice, a 1-D shared array or a local array, found `{d}`"),
                );
                return None;
            }
        };
        Some(View {
            base: place,
            elem,
            offset: usize_lit(0, span),
            len,
            mutable: writable,
        })
    }

    /// `view[a..b]` (`a..`, `..b`, `a..=b`, `..`): checks `a <= b <= len` once and computes
    /// the part's offset and length into locals.
    fn sub_view(&mut self, view: View, r: &syn::ExprRange, stmts: &mut Vec<Stmt>) -> View {
        let span = span_of(r);
        let bound = |this: &mut Self, e: &Option<Box<syn::Expr>>| {
            e.as_ref().map(|e| {
                let v = this.expr(e);
                this.unify_at(&Ty::USIZE, &v.ty, e, "a range of slice indices");
                v
            })
        };
        let start = bound(self, &r.start);
        let end = bound(self, &r.end);
        let one = usize_lit(1, span);
        let end = match end {
            Some(e) if matches!(r.limits, syn::RangeLimits::Closed(_)) => add(e, one.clone(), span),
            Some(e) => e,
            None => view.len.clone(),
        };
        // end <= len, then start <= end: as `end < len + 1` and `start < end + 1`.
        let hi = self.declare("part end", Ty::USIZE, false, span);
        let site = self.site(CheckKind::Index, span);
        stmts.push(let_local(
            hi,
            Expr {
                kind: ExprKind::IndexCheck {
                    index: Box::new(end),
                    len: Box::new(add(view.len.clone(), one.clone(), span)),
                    site,
                },
                ty: Ty::USIZE,
                span,
            },
        ));
        let lo = self.declare("part start", Ty::USIZE, false, span);
        let start = start.unwrap_or_else(|| usize_lit(0, span));
        let site = self.site(CheckKind::Index, span);
        stmts.push(let_local(
            lo,
            Expr {
                kind: ExprKind::IndexCheck {
                    index: Box::new(start),
                    len: Box::new(add(local(hi, span), one, span)),
                    site,
                },
                ty: Ty::USIZE,
                span,
            },
        ));
        let offset = self.declare("part offset", Ty::USIZE, false, span);
        stmts.push(let_local(
            offset,
            add(view.offset.clone(), local(lo, span), span),
        ));
        let len = self.declare("part length", Ty::USIZE, false, span);
        stmts.push(let_local(
            len,
            Expr {
                kind: ExprKind::Binary(
                    BinOp::Sub,
                    Box::new(local(hi, span)),
                    Box::new(local(lo, span)),
                    None,
                ),
                ty: Ty::USIZE,
                span,
            },
        ));
        View {
            offset: local(offset, span),
            len: local(len, span),
            ..view
        }
    }

    /// `let v = &mut x[a..b];` and `let (a, b) = x.split_at_mut(m);`: names for views.
    /// `None` when the `let` is not one of these.
    pub(super) fn view_let(&mut self, l: &syn::Local) -> Option<Vec<Stmt>> {
        let init = l.init.as_ref()?;
        if init.diverge.is_some() {
            return None;
        }
        let value = strip_parens(&init.expr);
        let mut stmts = Vec::new();
        let span = span_of(l);
        match (&l.pat, value) {
            (syn::Pat::Ident(pi), syn::Expr::Reference(r)) if matches!(strip_parens(&r.expr), syn::Expr::Index(ix) if matches!(strip_parens(&ix.index), syn::Expr::Range(_))) =>
            {
                let Some(view) = self.view_arg(value, &mut stmts) else {
                    // Reported; the name still stands for something, so uses say nothing more.
                    self.declare(&pi.ident.to_string(), Ty::Error, false, pi.ident.span());
                    return Some(stmts);
                };
                if r.mutability.is_some() && !view.mutable {
                    self.error(
                        value,
                        "this part cannot be borrowed mutably: what it is part of is read-only",
                    );
                }
                let id = self.declare(
                    &pi.ident.to_string(),
                    slice_ty(&view),
                    false,
                    pi.ident.span(),
                );
                self.views.push((id, view));
            }
            (syn::Pat::Tuple(t), syn::Expr::MethodCall(m))
                if (m.method == "split_at_mut" || m.method == "split_at")
                    && m.args.len() == 1
                    && t.elems.len() == 2 =>
            {
                let Some(whole) = self.whole_view(&m.receiver) else {
                    for p in &t.elems {
                        if let syn::Pat::Ident(pi) = p {
                            self.declare(&pi.ident.to_string(), Ty::Error, false, pi.ident.span());
                        }
                    }
                    return Some(stmts);
                };
                let want_mut = m.method == "split_at_mut";
                if want_mut && !whole.mutable {
                    self.error(
                        &m.receiver,
                        "`split_at_mut` needs a writable slice, shared array or `let mut` array",
                    );
                }
                let mid_v = self.expr(&m.args[0]);
                self.unify_at(
                    &Ty::USIZE,
                    &mid_v.ty,
                    &m.args[0],
                    "the argument of `split_at`",
                );
                let mid = self.declare("split point", Ty::USIZE, false, span);
                let site = self.site(CheckKind::Index, span_of(&m.args[0]));
                let one = usize_lit(1, span);
                stmts.push(let_local(
                    mid,
                    Expr {
                        kind: ExprKind::IndexCheck {
                            index: Box::new(mid_v),
                            len: Box::new(add(whole.len.clone(), one, span)),
                            site,
                        },
                        ty: Ty::USIZE,
                        span,
                    },
                ));
                let rest_len = self.declare("split rest", Ty::USIZE, false, span);
                stmts.push(let_local(
                    rest_len,
                    Expr {
                        kind: ExprKind::Binary(
                            BinOp::Sub,
                            Box::new(whole.len.clone()),
                            Box::new(local(mid, span)),
                            None,
                        ),
                        ty: Ty::USIZE,
                        span,
                    },
                ));
                let right_offset = self.declare("split offset", Ty::USIZE, false, span);
                stmts.push(let_local(
                    right_offset,
                    add(whole.offset.clone(), local(mid, span), span),
                ));
                let left = View {
                    len: local(mid, span),
                    mutable: whole.mutable && want_mut,
                    ..whole.clone()
                };
                let right = View {
                    offset: local(right_offset, span),
                    len: local(rest_len, span),
                    mutable: whole.mutable && want_mut,
                    ..whole
                };
                for (p, v) in t.elems.iter().zip([left, right]) {
                    match p {
                        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            let id = self.declare(
                                &pi.ident.to_string(),
                                slice_ty(&v),
                                false,
                                pi.ident.span(),
                            );
                            self.views.push((id, v));
                        }
                        syn::Pat::Wild(_) => {}
                        other => self.error(other, "bind each part of `split_at` to a name"),
                    }
                }
            }
            _ => return None,
        }
        Some(stmts)
    }

    /// A call of `dev`, checked inline.
    pub(super) fn inline_call(
        &mut self,
        dev: &std::rc::Rc<DeviceFn>,
        p: &syn::ExprPath,
        c: &syn::ExprCall,
    ) -> Expr {
        let span = span_of(c);
        let sig = &dev.item.sig;
        let name = sig.ident.to_string();
        let key = std::rc::Rc::as_ptr(dev);
        if self.inlining.contains(&key) {
            self.error(p, format!("`{name}` calls itself (directly or through other functions); recursion is not supported on the GPU"));
            return error_expr(span);
        }
        let params = typed_params(sig);
        if params.len() != c.args.len() {
            for a in &c.args {
                self.expr(a);
            }
            self.error(
                c,
                format!(
                    "`{name}` takes {} argument{} but {} were supplied",
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    c.args.len()
                ),
            );
            return error_expr(span);
        }
        let generic_names: Vec<String> = sig
            .generics
            .params
            .iter()
            .filter_map(|g| match g {
                // A closure's type is the closure passed, not a type argument.
                syn::GenericParam::Type(t) if super::closure::is_closure_generic(sig, &t.ident) => {
                    None
                }
                syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                _ => None,
            })
            .collect();
        let mut bound: Vec<Option<Scalar>> = vec![None; generic_names.len()];
        let const_params = super::call::const_generic_params(sig);
        let mut const_values: Vec<Option<i128>> = vec![None; const_params.len()];
        if let Some(syn::PathArguments::AngleBracketed(a)) =
            p.path.segments.last().map(|s| &s.arguments)
        {
            // Each argument by its parameter's kind: a type, a constant, or a closure's type
            // (which the closure passed gives).
            let kinds: Vec<Option<bool>> = sig
                .generics
                .params
                .iter()
                .filter_map(|g| match g {
                    syn::GenericParam::Type(t)
                        if super::closure::is_closure_generic(sig, &t.ident) =>
                    {
                        Some(None)
                    }
                    syn::GenericParam::Type(_) => Some(Some(true)),
                    syn::GenericParam::Const(_) => Some(Some(false)),
                    syn::GenericParam::Lifetime(_) => None,
                })
                .collect();
            let (mut types_seen, mut consts_seen) = (0, 0);
            for (k, g) in a.args.iter().enumerate() {
                match kinds.get(k) {
                    Some(Some(true)) => {
                        if let (syn::GenericArgument::Type(t), true) = (g, types_seen < bound.len())
                        {
                            bound[types_seen] = self.scalar_type(t);
                        }
                        types_seen += 1;
                    }
                    Some(Some(false)) => {
                        let (_, s) = &const_params[consts_seen];
                        const_values[consts_seen] = self.const_generic_arg(g, *s);
                        if const_values[consts_seen].is_none() {
                            // Reported at the argument.
                            return error_expr(span);
                        }
                        consts_seen += 1;
                    }
                    _ => {}
                }
            }
        }
        let Some(consts) = self.given_consts(p, &name, &const_params, &const_values) else {
            return error_expr(span);
        };
        let generic_of = |t: &syn::Type| -> Option<usize> {
            match strip_groups(t) {
                syn::Type::Path(tp) if tp.qself.is_none() => tp
                    .path
                    .get_ident()
                    .and_then(|i| generic_names.iter().position(|g| i == g)),
                _ => None,
            }
        };
        // The arguments, in the caller's context, in order.
        let mut stmts = Vec::new();
        let mut args = Vec::new();
        let mut failed = false;
        for (arg, param) in c.args.iter().zip(&params) {
            if let Some(fn_bound) = super::closure::closure_bound(sig, &param.ty) {
                match self.closure_arg(arg, fn_bound) {
                    Some(callable) => args.push(Bound::Closure(callable)),
                    None => failed = true,
                }
                continue;
            }
            let b = match strip_groups(&param.ty) {
                syn::Type::Reference(r) => match strip_groups(&r.elem) {
                    syn::Type::Slice(sl) => match self.view_arg(arg, &mut stmts) {
                        Some(v) => {
                            if r.mutability.is_some() && !v.mutable {
                                self.error(arg, format!("`{name}` writes through this slice, but it is read-only here; pass `&mut ..` of a writable slice, shared array or `let mut` array"));
                                failed = true;
                            }
                            if let Some(k) = generic_of(&sl.elem) {
                                if let Ty::Scalar(s) = v.elem {
                                    bound[k].get_or_insert(s);
                                }
                            }
                            Bound::View(Box::new(v))
                        }
                        None => {
                            failed = true;
                            continue;
                        }
                    },
                    inner => match self.reference_arg(arg, r.mutability.is_some(), &mut stmts) {
                        Some(place) => {
                            if let (Some(k), Ty::Scalar(s)) =
                                (generic_of(inner), self.infer.zonk(&place.ty))
                            {
                                bound[k].get_or_insert(s);
                            }
                            Bound::Place(place)
                        }
                        None => {
                            failed = true;
                            continue;
                        }
                    },
                },
                pty => {
                    let e = self.expr(arg);
                    if let Some(k) = generic_of(pty) {
                        if bound[k].is_none() {
                            let t = self.infer.zonk(&e.ty);
                            let t = match t {
                                Ty::Var(_) => {
                                    let r = self.infer.resolve(&t);
                                    let _ = self.infer.unify(&t, &r);
                                    r
                                }
                                t => t,
                            };
                            bound[k] = t.as_scalar();
                        }
                    }
                    Bound::Value(e)
                }
            };
            args.push(b);
        }
        if failed {
            return error_expr(span);
        }
        let Some(types) = self.bound_types(p, &name, &generic_names, &bound) else {
            return error_expr(span);
        };
        // The body, in the callee's context.
        let saved = Saved {
            scopes: std::mem::replace(&mut self.scopes, vec![Vec::new()]),
            loops: std::mem::take(&mut self.loops),
            ret: self.ret.clone(),
            generics: std::mem::replace(
                &mut self.generics,
                generic_names.iter().cloned().zip(types).collect(),
            ),
            devices: std::mem::replace(&mut self.devices, dev.deps.clone()),
            kernel: std::mem::replace(&mut self.kernel, false),
            inline_return: self.inline_return,
            // The callee's module, with its const generic arguments ahead of its items.
            module: (!consts.is_empty() || !self.consts.module.same_module(&dev.consts))
                .then(|| self.consts.enter_module(dev.consts.with_params(&consts))),
        };
        self.inlining.push(key);
        let ret = self.return_type(&sig.output);
        self.ret = ret.clone();
        for (param, b) in params.iter().zip(args) {
            let syn::Pat::Ident(pi) = &*param.pat else {
                self.error(&param.pat, "device function parameters are plain names");
                continue;
            };
            let pname = pi.ident.to_string();
            match b {
                Bound::Value(e) => {
                    let ty = match self.param_type(&param.ty) {
                        Some(t) => t,
                        None => continue,
                    };
                    self.unify_at(&ty, &e.ty, &param.ty, "the parameter's type");
                    let id = self.declare(&pname, ty, pi.mutability.is_some(), pi.ident.span());
                    stmts.push(let_local(id, e));
                }
                Bound::Place(place) => {
                    if let syn::Type::Reference(r) = strip_groups(&param.ty) {
                        if let Some(want) = self.local_type(&r.elem) {
                            self.unify_at(
                                &want,
                                &place.ty.clone(),
                                &param.ty,
                                "the referenced value",
                            );
                        }
                    }
                    let id = self.declare(&pname, place.ty.clone(), false, pi.ident.span());
                    self.aliases.push((id, Some(place)));
                }
                Bound::Closure(callable) => {
                    let callable = match super::closure::closure_bound(sig, &param.ty) {
                        Some(bound) => self.with_signature(callable, bound),
                        None => callable,
                    };
                    let id = self.declare(&pname, Ty::Unit, false, pi.ident.span());
                    self.callables.push((id, callable));
                }
                Bound::View(v) => {
                    if let syn::Type::Reference(r) = strip_groups(&param.ty) {
                        if let syn::Type::Slice(sl) = strip_groups(&r.elem) {
                            if let Some(want) = self.element_type(&sl.elem, "a slice's element") {
                                if want != v.elem {
                                    self.error(&param.ty, format!("mismatched types: the parameter is `&[{}]`, the slice passed holds `{}`", want, v.elem));
                                }
                            }
                        }
                    }
                    let mutable = matches!(strip_groups(&param.ty), syn::Type::Reference(r) if r.mutability.is_some());
                    let v = View { mutable, ..*v };
                    let id = self.declare(&pname, slice_ty(&v), false, pi.ident.span());
                    self.views.push((id, v));
                }
            }
        }
        let id = self.loop_count;
        self.loop_count += 1;
        self.inline_return = Some(id);
        let body = self.block(&dev.item.block);
        let diverges = matches!(self.infer.shallow(&body.ty), Ty::Never);
        if !diverges {
            self.unify_at(
                &ret,
                &body.ty.clone(),
                &dev.item.block,
                "the function's return type",
            );
        }
        self.inlining.pop();
        self.scopes = saved.scopes;
        self.loops = saved.loops;
        self.ret = saved.ret;
        self.generics = saved.generics;
        self.devices = saved.devices;
        self.kernel = saved.kernel;
        self.inline_return = saved.inline_return;
        if let Some(m) = saved.module {
            self.consts.leave_module(m);
        }
        let body_ty = body.ty.clone();
        let body = Expr {
            kind: ExprKind::Block(body),
            ty: body_ty,
            span,
        };
        inlined_call(id, stmts, body, ret, span)
    }

    /// `&place` / `&mut place` passed for a `&T` / `&mut T` parameter: the place, its indices
    /// computed once into locals (so the callee sees the element the call named).
    fn reference_arg(
        &mut self,
        arg: &syn::Expr,
        want_mut: bool,
        stmts: &mut Vec<Stmt>,
    ) -> Option<Place> {
        let (inner, by_mut) = match strip_parens(arg) {
            syn::Expr::Reference(r) => (&*r.expr, r.mutability.is_some()),
            // A name that is itself a reference (a parameter of the caller, an element of
            // `iter_mut()`) passes on what it refers to.
            other if self.names_reference(other) => (other, true),
            other => {
                let fix = super::source::expr_text(other);
                let m = if want_mut { "mut " } else { "" };
                self.error(
                    other,
                    format!("this parameter is a reference: pass `&{m}{fix}`"),
                );
                return None;
            }
        };
        if want_mut && !by_mut {
            let fix = super::source::expr_text(inner);
            self.error(arg, format!("this parameter is `&mut`: pass `&mut {fix}`"));
            return None;
        }
        let mut place = match self.try_place(inner) {
            PlaceResult::Place(p) => p,
            PlaceResult::Failed => return None,
            PlaceResult::NotPlace => {
                // `&(a + b)` for a `&T`: a temporary.
                if want_mut {
                    self.error(
                        inner,
                        "`&mut` needs a place: a local, an element or a field",
                    );
                    return None;
                }
                let v = self.expr(inner);
                let span = v.span;
                let t = self.declare("argument", v.ty.clone(), false, span);
                stmts.push(let_local(t, v));
                return Some(Place {
                    base: t,
                    proj: Vec::new(),
                    ty: self.locals[t].ty.clone(),
                });
            }
        };
        if want_mut && self.check_writable(&place, inner) != Writable::Yes {
            return None;
        }
        for proj in &mut place.proj {
            if let Proj::Index { index, .. } = proj {
                if !matches!(index.kind, ExprKind::Int(_)) {
                    let span = index.span;
                    let t = self.declare("argument index", Ty::USIZE, false, span);
                    let value = std::mem::replace(&mut **index, local(t, span));
                    stmts.push(let_local(t, value));
                }
            }
        }
        Some(place)
    }
}

fn typed_params(sig: &syn::Signature) -> Vec<&syn::PatType> {
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(pt) => Some(pt),
            _ => None,
        })
        .collect()
}

pub(super) fn strip_groups(t: &syn::Type) -> &syn::Type {
    match t {
        syn::Type::Group(g) => strip_groups(&g.elem),
        syn::Type::Paren(p) => strip_groups(&p.elem),
        other => other,
    }
}

/// The type a view's name has (only for messages: every use goes through the view).
fn slice_ty(v: &View) -> Ty {
    Ty::Slice {
        elem: Box::new(v.elem.clone()),
        mutable: v.mutable,
    }
}

impl View {
    /// Its length, as an expression.
    pub(super) fn len_expr(&self) -> Expr {
        self.len.clone()
    }
}

/// The element of `view` at `index` (already checked against the view's length).
fn element(view: &View, index: Expr, span: Span) -> Place {
    let _ = span;
    let mut place = view.base.clone();
    place.proj.push(Proj::Index {
        index: Box::new(index),
        site: None,
    });
    place.ty = view.elem.clone();
    place
}

/// The element at turn `k` of a loop over `view` (`k` < its length).
pub(super) fn view_item(view: &View, k: Expr, span: Span) -> (Place, Expr) {
    let place = element(view, add(view.offset.clone(), k, span), span);
    (place, view.len.clone())
}

fn add(a: Expr, b: Expr, span: Span) -> Expr {
    if matches!(a.kind, ExprKind::Int(0)) {
        return b;
    }
    Expr {
        kind: ExprKind::Binary(BinOp::Add, Box::new(a), Box::new(b), None),
        ty: Ty::USIZE,
        span,
    }
}

fn local(id: LocalId, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Read(Place {
            base: id,
            proj: Vec::new(),
            ty: Ty::USIZE,
        }),
        ty: Ty::USIZE,
        span,
    }
}

fn len_of(place: &Place, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Len(place.clone()),
        ty: Ty::USIZE,
        span,
    }
}

fn usize_lit(n: u64, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Int(n as i128),
        ty: Ty::USIZE,
        span,
    }
}

fn let_local(id: LocalId, init: Expr) -> Stmt {
    Stmt::Let {
        pat: Pattern::Local(id),
        init,
    }
}

/// An inlined call as one expression: the argument bindings `stmts`, then `body` inside a
/// loop `id` that runs once and that the callee's `return` breaks out of (with the value,
/// unless the result `ty` is `()`).
pub(super) fn inlined_call(id: LoopId, stmts: Vec<Stmt>, body: Expr, ty: Ty, span: Span) -> Expr {
    let exit = if ty == Ty::Unit {
        vec![
            Stmt::Expr(body),
            Stmt::Expr(Expr {
                kind: ExprKind::Break(id, None),
                ty: Ty::Never,
                span,
            }),
        ]
    } else {
        vec![Stmt::Expr(Expr {
            kind: ExprKind::Break(id, Some(Box::new(body))),
            ty: Ty::Never,
            span,
        })]
    };
    let call = Expr {
        kind: ExprKind::Loop(
            id,
            Block {
                stmts: exit,
                tail: None,
                ty: Ty::Never,
            },
        ),
        ty: ty.clone(),
        span,
    };
    Expr {
        kind: ExprKind::Block(Block {
            stmts,
            tail: Some(Box::new(call)),
            ty: ty.clone(),
        }),
        ty,
        span,
    }
}
