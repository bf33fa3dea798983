//! Checking calls: `cuprum::gpu` functions (indices, barriers, shared memory, atomics, warp
//! operations), scalar methods and their `f32::name(x)` forms.

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use super::builtins::{self, MethodSig, Rel};
use super::expr::{gpu_path_name, strip_parens, PlaceResult};
use super::{error_expr, source, span_of, suggest, Checker};
use crate::device::DeviceFn;
use crate::ir::{AtomicOp, Builtin, Expr, ExprKind, MathFn, ReduxOp, SharedAlloc};
use crate::ty::{Scalar, Ty};

/// Types warp shuffles and atomics move: 32- and 64-bit integers and floats.
fn is_word(s: Scalar) -> bool {
    matches!(
        s,
        Scalar::I32
            | Scalar::U32
            | Scalar::I64
            | Scalar::U64
            | Scalar::Isize
            | Scalar::Usize
            | Scalar::F32
            | Scalar::F64
    )
}

/// Whether the type arguments satisfy the bounds (`gpu::Float`: `f32`/`f64`; `gpu::Int`: the
/// integer types); a message when not.
pub(super) fn generic_bound_error(
    sig: &syn::Signature,
    names: &[String],
    types: &[Scalar],
) -> Option<String> {
    for g in &sig.generics.params {
        let syn::GenericParam::Type(t) = g else {
            continue;
        };
        let k = names.iter().position(|n| t.ident == n)?;
        for b in &t.bounds {
            let syn::TypeParamBound::Trait(tb) = b else {
                continue;
            };
            let last = tb
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let ok = match last.as_str() {
                "Float" => types[k].is_float(),
                "Int" => types[k].is_int(),
                "Num" => types[k] != Scalar::Bool,
                _ => true,
            };
            if !ok {
                return Some(format!(
                    "`{}` is `{}` here, which is not `gpu::{last}`",
                    t.ident,
                    types[k].name()
                ));
            }
        }
    }
    None
}

/// The const generic parameters of a device function and their (integer) types.
pub(super) fn const_generic_params(sig: &syn::Signature) -> Vec<(String, Scalar)> {
    sig.generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Const(c) => {
                let text = c.ty.to_token_stream().to_string();
                Some((
                    c.ident.to_string(),
                    Scalar::from_name(&text).unwrap_or(Scalar::Usize),
                ))
            }
            _ => None,
        })
        .collect()
}

/// How to size shared memory at launch.
const SHARED_HINT: &str = "; for a size chosen at launch, use `gpu::dynamic_shared::<T>()` with the launch's shared bytes";

impl Checker<'_> {
    /// The const generic parameters of a call of `name` with their values; reports the
    /// first one the call does not give (at the path) and returns `None`.
    pub(super) fn given_consts(
        &mut self,
        p: &syn::ExprPath,
        name: &str,
        params: &[(String, Scalar)],
        values: &[Option<i128>],
    ) -> Option<Vec<(String, Scalar, i128)>> {
        let mut consts = Vec::new();
        for ((cname, s), v) in params.iter().zip(values) {
            let Some(v) = v else {
                self.error(
                    p,
                    format!("write the value of `{cname}` in the call: `{name}::<..>(..)` with every generic argument"),
                );
                return None;
            };
            consts.push((cname.clone(), *s, *v));
        }
        Some(consts)
    }

    /// The value of a const generic argument (`4`, `N`, `{ N * 2 }`) of type `s`.
    pub(super) fn const_generic_arg(
        &mut self,
        g: &syn::GenericArgument,
        s: Scalar,
    ) -> Option<i128> {
        let e = match g {
            syn::GenericArgument::Const(e) => e.clone(),
            // A constant's name parses as a type.
            syn::GenericArgument::Type(syn::Type::Path(tp)) if tp.qself.is_none() => {
                syn::Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path: tp.path.clone(),
                })
            }
            other => {
                self.error(other, "this generic argument is a constant: write a number, like `4`, or a constant's name");
                return None;
            }
        };
        self.const_scalar(&e, s, "const generic arguments")
    }

    /// `f(args)`.
    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = span_of(c);
        let syn::Expr::Path(p) = strip_parens(&c.func) else {
            self.error(&c.func, "only named functions can be called in kernels (closures and function pointers are not supported)");
            return error_expr(span);
        };
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if let (Some(q), [name]) = (&p.qself, segs.as_slice()) {
            if q.position == 0 {
                if let Some(s) = self.scalar_type(&q.ty) {
                    return self.scalar_function(s, name, c);
                }
                return error_expr(span);
            }
        }
        if let [ty, name] = segs.as_slice() {
            if let Some(s) = self.scalar_named(ty) {
                return self.scalar_function(s, name, c);
            }
            if let Some(path) = self.associated_fn(ty, name) {
                let mut call = c.clone();
                *call.func = syn::Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path,
                });
                return self.call(&call);
            }
        }
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            if self.lookup(&name).is_none() && self.consts.module.get_struct(&name).is_some() {
                return self.tuple_struct_call(c, &p.path);
            }
        }
        if let Some(ident) = p.path.get_ident() {
            // A local hides every function of that name, as in Rust.
            let local = self.lookup(&ident.to_string());
            if let Some(callable) = local.and_then(|id| self.callable_of(id)) {
                return self.call_closure(&callable, c);
            }
            if local.is_some() {
                self.check_call_args(&c.args);
                let mut msg = format!("`{ident}` is a local value, not a function");
                if builtins::GPU_FUNCTIONS.contains(&ident.to_string().as_str()) {
                    msg.push_str(&format!("; the local hides `gpu::{ident}`, which you can call by its path, `gpu::{ident}()`"));
                }
                self.error(ident, msg);
                return error_expr(span);
            }
        }
        if let Some(name) = fast_path_name(&p.path) {
            return self.fast_call(&name, p, c);
        }
        if let Some((name, explicit)) = gpu_path_name(&p.path) {
            // A bare name that is a local was reported above.
            if let Some(e) = self.gpu_call(&name, p, c) {
                return e;
            }
            if explicit {
                self.check_call_args(&c.args);
                let mut msg = format!("cannot find function `{name}` in `cuprum::gpu`");
                if let Some(s) = suggest::closest(&name, builtins::GPU_FUNCTIONS.iter().copied()) {
                    msg.push_str(&format!("; did you mean `gpu::{s}`?"));
                }
                let last = p.path.segments.last().expect("a path has a segment");
                self.error(&last.ident, msg);
                return error_expr(span);
            }
        }
        self.device_call(p, c)
    }

    /// The type argument of each generic type parameter `names` of `name`, as the call's
    /// turbofish and arguments bound them (`bound`); `None` after reporting the first one
    /// left unknown.
    pub(super) fn bound_types(
        &mut self,
        p: &syn::ExprPath,
        name: &str,
        names: &[String],
        bound: &[Option<Scalar>],
    ) -> Option<Vec<Scalar>> {
        let mut types = Vec::with_capacity(bound.len());
        for (k, b) in bound.iter().enumerate() {
            match b {
                Some(s) => types.push(*s),
                None => {
                    self.error(
                        p,
                        format!(
                            "cannot infer the type `{}` of `{name}`; write `{name}::<f32>(..)`",
                            names[k]
                        ),
                    );
                    return None;
                }
            }
        }
        Some(types)
    }

    /// A call of something that is not a `cuprum::gpu` function: a `#[device]` function.
    fn device_call(&mut self, p: &syn::ExprPath, c: &syn::ExprCall) -> Expr {
        let span = span_of(c);
        let Some(dev) = self.devices.get(&p.path).cloned() else {
            self.check_call_args(&c.args);
            let msg = foreign_call_message(&p.path, &c.args);
            self.error(p, msg);
            return error_expr(span);
        };
        if self.needs_inline(&dev, &c.args) {
            return self.inline_call(&dev, p, c);
        }
        let sig = &dev.item.sig;
        let name = sig.ident.to_string();
        let generic_names: Vec<String> = sig
            .generics
            .params
            .iter()
            .filter_map(|g| match g {
                syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                _ => None,
            })
            .collect();
        let mut bound: Vec<Option<Scalar>> = vec![None; generic_names.len()];
        let const_params = const_generic_params(sig);
        let mut const_values: Vec<Option<i128>> = vec![None; const_params.len()];
        if let Some(syn::PathArguments::AngleBracketed(a)) =
            p.path.segments.last().map(|s| &s.arguments)
        {
            let (mut types_seen, mut consts_seen) = (0, 0);
            let order: Vec<bool> = sig
                .generics
                .params
                .iter()
                .filter_map(|g| match g {
                    syn::GenericParam::Type(_) => Some(true),
                    syn::GenericParam::Const(_) => Some(false),
                    syn::GenericParam::Lifetime(_) => None,
                })
                .collect();
            for (k, g) in a.args.iter().enumerate() {
                match (order.get(k), g) {
                    (Some(true), syn::GenericArgument::Type(t)) => {
                        bound[types_seen] = self.scalar_type(t);
                        types_seen += 1;
                    }
                    (Some(false), _) => {
                        let (_, s) = &const_params[consts_seen];
                        const_values[consts_seen] = self.const_generic_arg(g, *s);
                        if const_values[consts_seen].is_none() {
                            // Reported at the argument.
                            return error_expr(span);
                        }
                        consts_seen += 1;
                    }
                    (_, other) => self.error(
                        other,
                        format!("`{name}` takes {} generic argument(s)", order.len()),
                    ),
                }
            }
        }
        let Some(consts) = self.given_consts(p, &name, &const_params, &const_values) else {
            return error_expr(span);
        };
        let params: Vec<&syn::PatType> = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(pt) => Some(pt),
                _ => None,
            })
            .collect();
        if c.args.len() != params.len() {
            self.check_call_args(&c.args);
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
        let generic_of = |t: &syn::Type| -> Option<usize> {
            let mut t = t;
            while let syn::Type::Group(g) = t {
                t = &g.elem;
            }
            match t {
                syn::Type::Path(tp) if tp.qself.is_none() => tp
                    .path
                    .get_ident()
                    .and_then(|i| generic_names.iter().position(|g| i == g)),
                _ => None,
            }
        };
        let mut args = Vec::new();
        for (arg, param) in c.args.iter().zip(&params) {
            let mut pty = &*param.ty;
            while let syn::Type::Group(g) = pty {
                pty = &g.elem;
            }
            if let syn::Type::Reference(r) = pty {
                if let syn::Type::Slice(sl) = &*r.elem {
                    let e = self.slice_arg(arg, r.mutability.is_some(), &name);
                    if let (Some(k), Ty::Slice { elem, .. }) = (generic_of(&sl.elem), &e.ty) {
                        if let Ty::Scalar(s) = **elem {
                            bound[k].get_or_insert(s);
                        }
                    }
                    args.push(e);
                    continue;
                }
            }
            let e = self.expr(arg);
            if let Some(k) = generic_of(pty) {
                if bound[k].is_none() {
                    bound[k] = match self.infer.zonk(&e.ty) {
                        Ty::Scalar(s) => Some(s),
                        v @ Ty::Var(_) => {
                            let t = self.infer.resolve(&v);
                            let _ = self.infer.unify(&v, &t);
                            t.as_scalar()
                        }
                        _ => None,
                    };
                }
            }
            args.push(e);
        }
        let Some(types) = self.bound_types(p, &name, &generic_names, &bound) else {
            return error_expr(span);
        };
        if let Some(msg) = generic_bound_error(sig, &generic_names, &types) {
            self.error(p, msg);
            return error_expr(span);
        }
        let Some(fid) = self.instantiate(&dev, &generic_names, types, consts, p) else {
            return error_expr(span);
        };
        let Some(f) = &self.registry.functions[fid] else {
            self.error(p, format!("`{name}` calls itself (directly or through other functions); recursion is not supported on the GPU"));
            return error_expr(span);
        };
        let (param_tys, ret): (Vec<Ty>, Ty) = (
            f.params.iter().map(|&l| f.locals[l].ty.clone()).collect(),
            f.ret.clone(),
        );
        for ((a, want), node) in args.iter().zip(&param_tys).zip(&c.args) {
            if !matches!(want, Ty::Slice { .. }) {
                self.unify_at(want, &a.ty, node, "the parameter's type");
            }
        }
        Expr {
            kind: ExprKind::Call(fid, args),
            ty: ret,
            span,
        }
    }

    /// Checks the arguments of a call that failed, for their own mistakes; a slice or array
    /// passed by name is what a `#[device]` function could take, so it is not reported.
    fn check_call_args(&mut self, args: &Punctuated<syn::Expr, syn::Token![,]>) {
        for a in args {
            if self.aggregate_local(a).is_none() {
                self.expr(a);
            }
        }
    }

    /// "slices", "arrays" or "shared arrays" when `e` names a local of that kind.
    fn aggregate_local(&self, e: &syn::Expr) -> Option<&'static str> {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        let id = self.lookup(&p.path.get_ident()?.to_string())?;
        match self.infer.zonk(&self.locals[id].ty) {
            Ty::Slice { .. } => Some("slices"),
            Ty::Array(..) => Some("arrays"),
            Ty::Shared { .. } => Some("shared arrays"),
            _ => None,
        }
    }

    /// A slice passed on to a device function: a slice parameter, written `x`, `&x` or `&mut x`.
    fn slice_arg(&mut self, arg: &syn::Expr, want_mut: bool, callee: &str) -> Expr {
        let span = span_of(arg);
        let inner = match strip_parens(arg) {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let local = match strip_parens(inner) {
            syn::Expr::Path(p) if p.qself.is_none() => {
                p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
            }
            _ => None,
        };
        let Some(id) = local.filter(|&id| matches!(self.locals[id].ty, Ty::Slice { .. })) else {
            self.error(arg, format!("`{callee}` takes a slice here: pass a slice parameter of this function, like `x`"));
            return error_expr(span);
        };
        let Ty::Slice { elem, mutable } = self.locals[id].ty.clone() else {
            unreachable!("filtered")
        };
        if want_mut && !mutable {
            let n = self.locals[id].name.clone();
            self.error(arg, format!("`{callee}` writes through this slice, but `{n}` is `&[{}]`; declare it `&mut [{}]`", elem, elem));
        }
        Expr {
            kind: ExprKind::SliceRef(id),
            ty: Ty::Slice {
                elem,
                mutable: want_mut,
            },
            span,
        }
    }

    /// Checks device function `dev` for type arguments `types` (once per kernel).
    fn instantiate(
        &mut self,
        dev: &std::rc::Rc<DeviceFn>,
        names: &[String],
        types: Vec<Scalar>,
        consts: Vec<(String, Scalar, i128)>,
        at: &syn::ExprPath,
    ) -> Option<usize> {
        let key = std::rc::Rc::as_ptr(dev);
        let values: Vec<i128> = consts.iter().map(|(_, _, v)| *v).collect();
        if let Some((_, _, _, id)) = self
            .registry
            .instances
            .iter()
            .find(|(p, t, c, _)| *p == key && *t == types && *c == values)
        {
            return Some(*id);
        }
        let id = self.registry.functions.len();
        self.registry.functions.push(None);
        self.registry
            .instances
            .push((key, types.clone(), values, id));
        let errors_before = self.errors.len();
        let f = {
            let mut checker = Checker::new(
                self.errors,
                self.sites,
                self.shared,
                self.registry,
                self.checked,
            );
            checker.devices = dev.deps.clone();
            checker.consts.module = dev.consts.with_params(&consts);
            checker.generics = names.iter().cloned().zip(types).collect();
            let ret = checker.return_type(&dev.item.sig.output);
            checker.function(&dev.item, ret)
        };
        if self.errors.len() > errors_before {
            let name = &dev.item.sig.ident;
            self.error(
                at,
                format!("`{name}` cannot be compiled for the GPU (see the errors in its body)"),
            );
        }
        self.registry.functions[id] = Some(f);
        Some(id)
    }

    /// A `cuprum::gpu` function; `None` when `name` is not one.
    fn gpu_call(&mut self, name: &str, p: &syn::ExprPath, c: &syn::ExprCall) -> Option<Expr> {
        if let Some((builtin, params, ret)) = builtins::gpu_function(name) {
            return Some(self.builtin_call(builtin, &params, ret, c, name));
        }
        if let Some((op, scope)) = builtins::atomic(name) {
            return Some(self.atomic_call(op, scope, c, name));
        }
        if let Some(kind) = builtins::shuffle(name) {
            return Some(self.warp_value_call(Builtin::Shfl(kind), c, name, 3));
        }
        match name {
            "match_any_sync" => Some(self.warp_value_call(Builtin::MatchAny, c, name, 2)),
            "match_all_sync" => Some(self.warp_value_call(Builtin::MatchAll, c, name, 2)),
            "rsqrt" => Some(self.rsqrt_call(c)),
            "__redux_supported" => Some(match self.redux_supported(p, c) {
                Some(value) => Expr {
                    kind: ExprKind::Bool(value),
                    ty: Ty::BOOL,
                    span: span_of(c),
                },
                None => error_expr(span_of(c)),
            }),
            "__redux_add_sync" => Some(self.redux_call(ReduxOp::Add, c, name)),
            "__redux_min_sync" => Some(self.redux_call(ReduxOp::Min, c, name)),
            "__redux_max_sync" => Some(self.redux_call(ReduxOp::Max, c, name)),
            "shared_array" | "shared_array_2d" | "dynamic_shared" => {
                Some(self.shared_call(name, p, c))
            }
            _ => None,
        }
    }

    /// `gpu::fast::exp(x)` and friends: `f32` only, as the hardware instructions.
    fn fast_call(&mut self, name: &str, p: &syn::ExprPath, c: &syn::ExprCall) -> Expr {
        let span = span_of(c);
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        let Some(f) = crate::ir::FastFn::ALL
            .into_iter()
            .find(|f| f.name() == name)
        else {
            let last = &p.path.segments.last().expect("a path has a segment").ident;
            let mut msg = format!("cannot find function `{name}` in `cuprum::gpu::fast`, which has `exp`, `ln`, `sin`, `cos` and `div`");
            if let Some(s) = suggest::closest(name, crate::ir::FastFn::ALL.iter().map(|f| f.name()))
            {
                msg.push_str(&format!("; did you mean `gpu::fast::{s}`?"));
            }
            self.error(last, msg);
            return error_expr(span);
        };
        let n = if f == crate::ir::FastFn::Div { 2 } else { 1 };
        if !self.arity(c, &format!("fast::{name}"), n) {
            return error_expr(span);
        }
        let f32t = Ty::Scalar(Scalar::F32);
        for (a, node) in args.iter().zip(&c.args) {
            if self.infer.unify(&f32t, &a.ty).is_err() {
                let d = self.infer.describe(&a.ty);
                self.error(node, format!("`gpu::fast::{name}` is the hardware approximation for `f32`, not `{d}`; for `f64` use the method, `x.{}()`", if f == crate::ir::FastFn::Div { "div" } else { name }));
            }
        }
        Expr {
            kind: ExprKind::Builtin(Builtin::Fast(f), args),
            ty: f32t,
            span,
        }
    }

    fn arity(&mut self, c: &syn::ExprCall, name: &str, n: usize) -> bool {
        if c.args.len() == n {
            return true;
        }
        self.error(
            c,
            format!(
                "`gpu::{name}` takes {n} argument{} but {} were supplied",
                if n == 1 { "" } else { "s" },
                c.args.len()
            ),
        );
        false
    }

    fn builtin_call(
        &mut self,
        builtin: Builtin,
        params: &[Ty],
        ret: Ty,
        c: &syn::ExprCall,
        name: &str,
    ) -> Expr {
        let span = span_of(c);
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        if !self.arity(c, name, params.len()) {
            return error_expr(span);
        }
        for ((a, p), node) in args.iter().zip(params).zip(&c.args) {
            self.unify_at(p, &a.ty, node, "the argument");
        }
        Expr {
            kind: ExprKind::Builtin(builtin, args),
            ty: ret,
            span,
        }
    }

    /// `shfl*_sync(mask, v, lane)` and `match_any_sync(mask, v)`.
    fn warp_value_call(
        &mut self,
        builtin: Builtin,
        c: &syn::ExprCall,
        name: &str,
        n: usize,
    ) -> Expr {
        let span = span_of(c);
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        if !self.arity(c, name, n) {
            return error_expr(span);
        }
        self.unify_at(&Ty::U32, &args[0].ty, &c.args[0], "the mask");
        let v = self.infer.zonk(&args[1].ty);
        match &v {
            Ty::Scalar(s) if !is_word(*s) => {
                self.error(&c.args[1], format!("`gpu::{name}` moves `i32`, `u32`, `i64`, `u64`, `f32` or `f64`, not `{}`; cast the value", s.name()));
            }
            Ty::Scalar(_) | Ty::Var(_) | Ty::Error => {}
            other => {
                let d = self.infer.describe(other);
                self.error(
                    &c.args[1],
                    format!("`gpu::{name}` moves a scalar, not `{d}`"),
                );
            }
        }
        if n == 3 {
            self.unify_at(&Ty::U32, &args[2].ty, &c.args[2], "the lane argument");
        }
        let ty = if builtin == Builtin::MatchAny {
            Ty::U32
        } else if builtin == Builtin::MatchAll {
            Ty::Tuple(vec![Ty::U32, Ty::BOOL])
        } else {
            args[1].ty.clone()
        };
        Expr {
            kind: ExprKind::Builtin(builtin, args),
            ty,
            span,
        }
    }

    /// `gpu::__redux_supported::<T>()` (hidden; the library's warp reductions): whether
    /// `redux.sync` reduces `T` on this kernel's target (`i32`/`u32`, sm_80 and newer), a
    /// constant; `None` after reporting a mistake. `if` on it checks only the branch taken
    /// (`Checker::if_expr`).
    pub(super) fn redux_supported(&mut self, p: &syn::ExprPath, c: &syn::ExprCall) -> Option<bool> {
        const USAGE: &str = "`gpu::__redux_supported::<T>()`";
        if !c.args.is_empty() {
            self.error(&c.args, format!("{USAGE} takes no arguments"));
            return None;
        }
        let last = p.path.segments.last().expect("a path has a segment");
        let ty = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
                syn::GenericArgument::Type(t) => t,
                other => {
                    self.error(other, format!("{USAGE} takes a type, like `i32`"));
                    return None;
                }
            },
            _ => {
                self.error(last, format!("{USAGE} needs its type in the turbofish"));
                return None;
            }
        };
        let s = self.scalar_type(ty)?;
        Some(!self.registry.no_redux && matches!(s, Scalar::I32 | Scalar::U32))
    }

    /// `gpu::__redux_add/min/max_sync(mask, v)` (hidden): `i32` or `u32` on sm_80 and newer
    /// only, which `if gpu::__redux_supported::<T>()` guarantees around a generic call.
    fn redux_call(&mut self, op: ReduxOp, c: &syn::ExprCall, name: &str) -> Expr {
        let span = span_of(c);
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        if !self.arity(c, name, 2) {
            return error_expr(span);
        }
        self.unify_at(&Ty::U32, &args[0].ty, &c.args[0], "the mask");
        let v = self.infer.zonk(&args[1].ty);
        let ok = match &v {
            Ty::Scalar(Scalar::I32 | Scalar::U32) | Ty::Error => true,
            // An integer literal: `i32`, its default.
            Ty::Var(_) if self.infer.is_float_var(&v) == Some(false) => {
                self.infer.unify(&Ty::Scalar(Scalar::I32), &v).is_ok()
            }
            _ => false,
        };
        let guard = "call it inside `if gpu::__redux_supported::<T>() { .. }`, which compiles only where it applies";
        if !ok {
            let d = self.infer.describe(&v);
            self.error(
                &c.args[1],
                format!("`gpu::{name}` reduces `i32` or `u32` (`redux.sync`), not `{d}`; {guard}"),
            );
            return error_expr(span);
        }
        if self.registry.no_redux {
            self.error(
                c,
                format!("`gpu::{name}` is `redux.sync`, which needs sm_80 or newer, and this kernel's target is older; {guard}"),
            );
            return error_expr(span);
        }
        let ty = args[1].ty.clone();
        Expr {
            kind: ExprKind::Builtin(Builtin::Redux(op), args),
            ty,
            span,
        }
    }

    fn rsqrt_call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = span_of(c);
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        if !self.arity(c, "rsqrt", 1) {
            return error_expr(span);
        }
        let t = self.infer.zonk(&args[0].ty);
        let ok = match &t {
            Ty::Scalar(s) => s.is_float(),
            Ty::Var(_) => self.infer.is_float_var(&t) == Some(true),
            _ => matches!(t, Ty::Error),
        };
        if !ok {
            let d = self.infer.describe(&t);
            self.error(
                &c.args[0],
                format!("`gpu::rsqrt` takes `f32` or `f64`, not `{d}`"),
            );
        }
        let ty = args[0].ty.clone();
        Expr {
            kind: ExprKind::Builtin(Builtin::Math(MathFn::Rsqrt), args),
            ty,
            span,
        }
    }

    /// `gpu::atomic_OP(&mut place, args..)`.
    fn atomic_call(
        &mut self,
        op: AtomicOp,
        scope: crate::ir::Scope,
        c: &syn::ExprCall,
        name: &str,
    ) -> Expr {
        let span = span_of(c);
        let n = match op {
            AtomicOp::Cas => 3,
            AtomicOp::Load => 1,
            _ => 2,
        };
        let operands: Vec<Expr> = c.args.iter().skip(1).map(|a| self.expr(a)).collect();
        if !self.arity(c, name, n) {
            return error_expr(span);
        }
        let target = &c.args[0];
        let syn::Expr::Reference(r) = strip_parens(target) else {
            self.error(
                target,
                format!(
                    "the first argument of `gpu::{name}` is `&mut place`, e.g. `&mut counts[i]`"
                ),
            );
            return error_expr(span);
        };
        if r.mutability.is_none() {
            self.error(
                target,
                format!(
                    "the first argument of `gpu::{name}` must be `&mut`: write `&mut {}`",
                    source::expr_text(&r.expr)
                ),
            );
        }
        let place = match self.try_place(&r.expr) {
            PlaceResult::Place(p) => p,
            PlaceResult::Failed => return error_expr(span),
            PlaceResult::NotPlace => {
                self.error(&r.expr, "atomics work on device memory: an element of a `&mut [T]` parameter or of a shared array");
                return error_expr(span);
            }
        };
        let root = self.locals[place.base].clone();
        match &root.ty {
            Ty::Slice { mutable: true, .. } | Ty::Shared { .. }
                if place
                    .proj
                    .iter()
                    .any(|p| matches!(p, crate::ir::Proj::Index { .. })) => {}
            Ty::Slice {
                mutable: false,
                elem,
            } => {
                self.error(
                    &r.expr,
                    format!(
                        "atomics need writable memory: `{}` is `&[{}]`; declare it `&mut [{}]`",
                        root.name, elem, elem
                    ),
                );
                return error_expr(span);
            }
            _ => {
                self.error(&r.expr, "atomics work on device memory: an element of a `&mut [T]` parameter or of a shared array, not a local");
                return error_expr(span);
            }
        }
        let elem = match self.infer.zonk(&place.ty) {
            Ty::Scalar(s) => s,
            Ty::Error => return error_expr(span),
            other => {
                let what = source::expr_text(&r.expr);
                // The path to its first scalar (`.pos[0]`).
                let mut part = String::new();
                let mut t = other.clone();
                loop {
                    t = match t {
                        Ty::Struct(d) => {
                            part += &format!(".{}", d.fields[0].0);
                            d.fields[0].1.clone()
                        }
                        Ty::Array(e, _) => {
                            part += "[0]";
                            *e
                        }
                        _ => break,
                    };
                }
                self.error(
                    &r.expr,
                    format!("atomics work on one integer or float, and `{what}` is `{other}`; name the scalar to update, like `&mut {what}{part}`"),
                );
                return error_expr(span);
            }
        };
        let float_ok = matches!(
            op,
            AtomicOp::Add
                | AtomicOp::Sub
                | AtomicOp::Min
                | AtomicOp::Max
                | AtomicOp::Exch
                | AtomicOp::Load
        );
        let type_ok = match elem {
            Scalar::I32
            | Scalar::U32
            | Scalar::I64
            | Scalar::U64
            | Scalar::Isize
            | Scalar::Usize => true,
            Scalar::F32 | Scalar::F64 => float_ok,
            _ => false,
        };
        if !type_ok {
            let allowed = if float_ok {
                "`i32`, `u32`, `i64`, `u64`, `f32` and `f64`"
            } else {
                "`i32`, `u32`, `i64` and `u64`"
            };
            self.error(
                &r.expr,
                format!("`gpu::{name}` works on {allowed}, not `{}`", elem.name()),
            );
            return error_expr(span);
        }
        for (a, node) in operands.iter().zip(c.args.iter().skip(1)) {
            self.unify_at(
                &Ty::Scalar(elem),
                &a.ty,
                node,
                "the operand (like the place)",
            );
        }
        Expr {
            kind: ExprKind::Atomic(op, scope, place, operands),
            ty: Ty::Scalar(elem),
            span,
        }
    }

    /// `shared_array::<T, N>()`, `shared_array_2d::<T, R, C>()`, `dynamic_shared::<T>()`.
    fn shared_call(&mut self, name: &str, p: &syn::ExprPath, c: &syn::ExprCall) -> Expr {
        let span = span_of(c);
        let usage = match name {
            "shared_array" => "`gpu::shared_array::<T, N>()`",
            "shared_array_2d" => "`gpu::shared_array_2d::<T, ROWS, COLS>()`",
            _ => "`gpu::dynamic_shared::<T>()`",
        };
        if !c.args.is_empty() {
            self.error(&c.args, format!("{usage} takes no arguments"));
        }
        if !self.let_init {
            self.error(
                c,
                format!("bind shared memory to a name where it is made: `let tile = {usage};`"),
            );
            return error_expr(span);
        }
        let last = p.path.segments.last().expect("a path has a segment");
        let generics: Vec<&syn::GenericArgument> = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
            _ => Vec::new(),
        };
        let want = match name {
            "shared_array" => 2,
            "shared_array_2d" => 3,
            _ => 1,
        };
        if generics.len() != want {
            self.error(
                last,
                format!(
                    "{usage} needs its element type{} in the turbofish",
                    if want > 1 { " and size" } else { "" }
                ),
            );
            return error_expr(span);
        }
        let elem = match generics[0] {
            syn::GenericArgument::Type(t) => self.element_type(t, "a shared array's element"),
            other => {
                self.error(
                    other,
                    "the first generic argument of a shared array is its element type, like `f32`",
                );
                None
            }
        };
        let mut dims = Vec::new();
        for g in &generics[1..] {
            let size = match g {
                syn::GenericArgument::Const(e) => {
                    self.const_usize(e, "shared array sizes", SHARED_HINT)
                }
                // A constant's name parses as a type.
                syn::GenericArgument::Type(syn::Type::Path(tp))
                    if tp.qself.is_none() && tp.path.get_ident().is_some() =>
                {
                    let e = syn::Expr::Path(syn::ExprPath {
                        attrs: Vec::new(),
                        qself: None,
                        path: tp.path.clone(),
                    });
                    self.const_usize(&e, "shared array sizes", SHARED_HINT)
                }
                other => {
                    let text = source::expr_text(other);
                    self.error(
                        other,
                        format!(
                            "shared array sizes must be constants, like `256`, `TILE` or `{{ TILE + 1 }}`, not `{text}`"
                        ),
                    );
                    None
                }
            };
            match size {
                Some(0) => {
                    self.error(g, "a shared array cannot be empty");
                    return error_expr(span);
                }
                Some(n) => dims.push(n),
                None => return error_expr(span),
            }
        }
        let Some(elem) = elem else {
            return error_expr(span);
        };
        let sizes: proc_macro2::TokenStream =
            generics[1..].iter().map(|g| g.to_token_stream()).collect();
        if !self.static_shared_fits(&elem, &dims, sizes) {
            return error_expr(span);
        }
        self.shared.push(SharedAlloc {
            elem: elem.clone(),
            dims: dims.clone(),
            span,
        });
        let id = self.shared.len() - 1;
        Expr {
            kind: ExprKind::Builtin(Builtin::Shared(id), Vec::new()),
            ty: Ty::Shared {
                elem: Box::new(elem),
                dims,
            },
            span,
        }
    }

    /// `f32::from_bits(u)`, `f32::sqrt(x)`, `u32::max(a, b)`: scalar functions by path.
    fn scalar_function(&mut self, s: Scalar, name: &str, c: &syn::ExprCall) -> Expr {
        let span = span_of(c);
        let args: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        if name == "default" {
            if !args.is_empty() {
                self.error(c, format!("`{}::default` takes no arguments", s.name()));
                return error_expr(span);
            }
            let kind = match s {
                Scalar::Bool => ExprKind::Bool(false),
                s if s.is_float() => ExprKind::Float(0.0),
                _ => ExprKind::Int(0),
            };
            return Expr {
                kind,
                ty: Ty::Scalar(s),
                span,
            };
        }
        if name == "from_f64" && s.is_float() {
            if args.len() != 1 {
                self.error(c, format!("`{}::from_f64` takes 1 argument", s.name()));
                return error_expr(span);
            }
            let mut args = args;
            let arg = args.pop().expect("one argument");
            self.unify_at(
                &Ty::Scalar(Scalar::F64),
                &arg.ty,
                &c.args[0],
                "the argument",
            );
            return Expr {
                kind: ExprKind::Cast(Box::new(arg)),
                ty: Ty::Scalar(s),
                span,
            };
        }
        if name == "from_bits" && s.is_float() {
            let bits = if s == Scalar::F32 {
                Scalar::U32
            } else {
                Scalar::U64
            };
            if args.len() != 1 {
                self.error(c, format!("`{}::from_bits` takes 1 argument", s.name()));
                return error_expr(span);
            }
            self.unify_at(&Ty::Scalar(bits), &args[0].ty, &c.args[0], "the argument");
            return Expr {
                kind: ExprKind::Builtin(Builtin::Math(MathFn::FromBits), args),
                ty: Ty::Scalar(s),
                span,
            };
        }
        let Some(sig) = builtins::method(s, name) else {
            let t = s.name();
            let names = builtins::method_names(s);
            let msg = if let Some(m) = suggest::closest(name, names.iter().copied()) {
                format!("no function `{t}::{name}` in kernels; did you mean `{t}::{m}`?")
            } else if names.is_empty() {
                format!("no function `{t}::{name}` in kernels")
            } else {
                let list: Vec<String> = names.iter().map(|m| format!("`{m}`")).collect();
                format!(
                    "no function `{t}::{name}` in kernels; `{t}::name(x, ..)` is `x.name(..)` for the methods of `{t}`: {}",
                    list.join(", ")
                )
            };
            self.error(&c.func, msg);
            return error_expr(span);
        };
        if args.len() != sig.args.len() + 1 {
            let n = sig.args.len() + 1;
            self.error(
                c,
                format!(
                    "`{}::{name}` takes {n} argument{} but {} were supplied",
                    s.name(),
                    if n == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return error_expr(span);
        }
        let mut args = args.into_iter();
        let recv = args.next().expect("checked");
        self.unify_at(&Ty::Scalar(s), &recv.ty, &c.args[0], "the argument");
        let rest: Vec<Expr> = args.collect();
        let nodes: Vec<&syn::Expr> = c.args.iter().skip(1).collect();
        self.math_call(recv, Ty::Scalar(s), &sig, rest, &nodes, span)
    }

    /// `receiver.method(args)`.
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) -> Expr {
        let span = span_of(m);
        let name = m.method.to_string();
        if let Some(t) = &m.turbofish {
            self.error(t, "method calls in kernels take no generic arguments");
        }
        if name == "len" || name == "is_empty" {
            return self.len_call(m, &name);
        }
        if let Some(e) = self.struct_method_call(m) {
            return e;
        }
        if let Some(kind) = self.aggregate_local(&m.receiver) {
            for a in &m.args {
                self.expr(a);
            }
            let recv = source::expr_text(&m.receiver);
            self.error(
                &m.method,
                format!("`{name}` is not available on {kind} in kernels: they have `len()` and `is_empty()` and are indexed, so write a loop such as `for i in 0..{recv}.len() {{ .. {recv}[i] .. }}`"),
            );
            return error_expr(span);
        }
        let recv = self.expr(&m.receiver);
        let args: Vec<Expr> = m.args.iter().map(|a| self.expr(a)).collect();
        let t = self.infer.zonk(&recv.ty);
        let s = match &t {
            Ty::Error => return error_expr(span),
            Ty::Var(_) => {
                let d = self.infer.describe(&t);
                self.error(
                    &m.method,
                    format!("can't call method `{name}` on ambiguous numeric type `{d}`; give the value a type, like `2.0f32` or `let x: f32 = ..`"),
                );
                return error_expr(span);
            }
            Ty::Scalar(s) => *s,
            other => {
                let d = self.infer.describe(other);
                self.error(&m.method, format!("no method `{name}` on `{d}` in kernels"));
                return error_expr(span);
            }
        };
        let Some(sig) = builtins::method(s, &name) else {
            let msg = no_method_message(s, &name, &m.receiver);
            self.error(&m.method, msg);
            return error_expr(span);
        };
        if args.len() != sig.args.len() {
            let n = sig.args.len();
            self.error(
                m,
                format!(
                    "`{}::{name}` takes {n} argument{} but {} were supplied",
                    s.name(),
                    if n == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return error_expr(span);
        }
        let nodes: Vec<&syn::Expr> = m.args.iter().collect();
        self.math_call(recv, t, &sig, args, &nodes, span)
    }

    fn math_call(
        &mut self,
        recv: Expr,
        recv_ty: Ty,
        sig: &MethodSig,
        args: Vec<Expr>,
        nodes: &[&syn::Expr],
        span: proc_macro2::Span,
    ) -> Expr {
        for ((a, rel), node) in args.iter().zip(&sig.args).zip(nodes) {
            let want = rel.ty(&recv_ty);
            self.unify_at(&want, &a.ty, node, "the argument");
        }
        let ret = match sig.ret {
            Rel::Same => recv_ty,
            Rel::Fixed(s) => Ty::Scalar(s),
        };
        let mut all = vec![recv];
        all.extend(args);
        let _ = nodes.first().map(|n| n.span());
        Expr {
            kind: ExprKind::Builtin(Builtin::Math(sig.f), all),
            ty: ret,
            span,
        }
    }
}

/// The function name of a `gpu::fast::name` / `cuprum::gpu::fast::name` path.
fn fast_path_name(path: &syn::Path) -> Option<String> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gpu", "fast", name] | ["cuprum", "gpu", "fast", name] => Some(name.to_string()),
        _ => None,
    }
}

/// Why `recv.name(..)` is not a method of `s` in kernels, and what to write instead.
fn no_method_message(s: Scalar, name: &str, recv: &syn::Expr) -> String {
    let d = s.name();
    let candidates = builtins::method_names(s);
    if name == "abs" && s.is_int() && !s.is_signed() {
        return format!("`{d}` has no method `abs`: unsigned values are never negative");
    }
    if let Some(sug) = suggest::closest(name, candidates.iter().copied()) {
        return format!("no method `{name}` on `{d}` in kernels; did you mean `{sug}`?");
    }
    // A method of the other kind of number: `n.sqrt()` on an integer, `x.count_ones()` on a
    // float.
    if s.is_int() {
        if let Some(sig) = builtins::method(Scalar::F32, name) {
            let cast = source::cast_text(recv, "f32");
            let args = if sig.args.is_empty() { "()" } else { "(..)" };
            return format!("no method `{name}` on `{d}`: `{name}` is a method of floats; convert first, `({cast}).{name}{args}`");
        }
    } else if s.is_float() && builtins::method(Scalar::U32, name).is_some() {
        let recv = source::receiver_text(recv);
        let bits = if s == Scalar::F32 { "u32" } else { "u64" };
        return format!("no method `{name}` on `{d}`: `{name}` is a method of integers; for the float's bits, write `{recv}.to_bits()` (a `{bits}`)");
    }
    if candidates.is_empty() {
        return format!("no method `{name}` on `{d}` in kernels");
    }
    let list: Vec<String> = candidates.iter().map(|c| format!("`{c}`")).collect();
    format!(
        "no method `{name}` on `{d}` in kernels; the methods of `{d}` are {}",
        list.join(", ")
    )
}

/// Types whose values live on the heap.
const HEAP_TYPES: &[&str] = &[
    "Vec", "String", "Box", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap", "VecDeque",
];

/// What to say about a call of `path`, which is neither a `cuprum::gpu` function nor a
/// `#[device]` function.
fn foreign_call_message(path: &syn::Path, args: &Punctuated<syn::Expr, syn::Token![,]>) -> String {
    let text = source::expr_text(path);
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let name = segs.last().cloned().unwrap_or_default();
    if let Some(heap) = segs.iter().find(|s| HEAP_TYPES.contains(&s.as_str())) {
        return format!("`{text}` allocates on the heap, which kernels cannot do (`{heap}` is not available); take a `&mut [T]` parameter, or use a local array like `[0.0f32; 8]`");
    }
    // `f32::sqrt(x)` and `std::cmp::max(a, b)`: the method form is the one kernels support.
    let as_method = || {
        let mut args = args.iter();
        let recv = args.next()?;
        let rest: Vec<String> = args.map(source::expr_text).collect();
        let recv = source::receiver_text(strip_parens(recv));
        Some(format!("{recv}.{name}({})", rest.join(", ")))
    };
    let owner = segs.len().checked_sub(2).map(|i| segs[i].as_str());
    let is_method = builtins::KNOWN_METHODS.contains(&name.as_str());
    if is_method && (owner.is_some_and(|o| Scalar::from_name(o).is_some()) || segs.len() > 1) {
        if let Some(call) = as_method() {
            return format!("cannot call `{text}` in a kernel; call it as a method: `{call}`");
        }
    }
    if matches!(
        segs.first().map(String::as_str),
        Some("std" | "core" | "alloc")
    ) {
        return format!("`{text}` cannot be called from a kernel: the standard library does not run on the GPU; use the scalar methods (`x.max(y)`, `x.sqrt()`) and `cuprum::gpu`");
    }
    if matches!(name.as_str(), "Some" | "None" | "Ok" | "Err") {
        return format!("`{name}` cannot be used in kernels: `Option` and `Result` are not supported; use plain values and a flag");
    }
    if let Some(s) = suggest::closest(&name, builtins::GPU_FUNCTIONS.iter().copied()) {
        return format!("cannot find function `{text}`; did you mean `gpu::{s}`?");
    }
    format!("cannot call `{text}` from a kernel: kernels can call only `#[device]` functions and `cuprum::gpu`; if `{name}` is your function, mark it `#[device] fn {name}(..)`")
}
