//! Checking expressions.

use proc_macro2::Span;
use quote::ToTokens;

use super::builtins::{self, ConstValue};
use super::{consts, error_expr, source, span_of, suggest, Checker};
use crate::ir::{BinOp, Block, CheckKind, Expr, ExprKind, LocalId, Place, Proj, UnOp};
use crate::ty::{Scalar, Ty};

/// Whether a place can be assigned.
#[derive(PartialEq)]
pub(super) enum Writable {
    Yes,
    /// No, and the error is reported.
    No,
    /// No: the place is a whole slice or shared array (reported).
    WholeAggregate,
}

/// The outcome of trying to read an expression as a place.
pub(super) enum PlaceResult {
    /// A place.
    Place(Place),
    /// Not a place (a call, a literal, ...); check it as a value instead.
    NotPlace,
    /// A place with an error already reported.
    Failed,
}

/// The last segment of a path to a `cuprum::gpu` item, if the path is one: `gpu::x`,
/// `cuprum::gpu::x`, or a bare `x` (from `use cuprum::gpu::*`).
pub(super) fn gpu_path_name(path: &syn::Path) -> Option<(String, bool)> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (last, prefix) = segs.split_last()?;
    let prefix: Vec<&str> = prefix.iter().map(String::as_str).collect();
    match prefix.as_slice() {
        [] => Some((last.clone(), false)),
        ["gpu"] | ["cuprum", "gpu"] => Some((last.clone(), true)),
        _ => None,
    }
}

impl Checker<'_> {
    /// Checks an expression.
    pub(super) fn expr(&mut self, e: &syn::Expr) -> Expr {
        if !self.enter(e) {
            return error_expr(span_of(e));
        }
        // Assignments of `let x;` locals inside a loop's body or on the right of `&&`/`||`
        // may not happen: they do not count after it.
        let skippable = matches!(
            e,
            syn::Expr::While(_) | syn::Expr::ForLoop(_) | syn::Expr::Loop(_)
        ) || matches!(e, syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)));
        let before = skippable.then(|| self.init_snapshot());
        let x = self.expr_here(e);
        if let Some(before) = before {
            let diverges = matches!(self.infer.shallow(&x.ty), Ty::Never);
            let loops = !matches!(e, syn::Expr::Binary(_));
            if diverges {
                self.init_restore((None, Vec::new()), loops);
            } else {
                self.init_restore(before, loops);
            }
        }
        self.depth -= 1;
        x
    }

    fn expr_here(&mut self, e: &syn::Expr) -> Expr {
        let span = span_of(e);
        match e {
            syn::Expr::Lit(l) => self.literal(&l.lit, false),
            syn::Expr::Paren(p) => self.expr(&p.expr),
            syn::Expr::Group(g) => self.expr(&g.expr),
            syn::Expr::Path(_) | syn::Expr::Index(_) | syn::Expr::Field(_) => {
                match self.try_place(e) {
                    PlaceResult::Place(place) => self.read_place(place, e),
                    PlaceResult::Failed => error_expr(span),
                    PlaceResult::NotPlace => match e {
                        syn::Expr::Path(p) => self.path_value(p),
                        syn::Expr::Field(f) => self.rvalue_field(f),
                        _ => error_expr(span),
                    },
                }
            }
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Binary(b) => self.binary(b),
            syn::Expr::Assign(a) => self.assign(a),
            syn::Expr::Cast(c) => self.cast(c),
            syn::Expr::Struct(s) => self.struct_literal(s),
            syn::Expr::Tuple(t) => {
                if t.elems.is_empty() {
                    return Expr {
                        kind: ExprKind::Unit,
                        ty: Ty::Unit,
                        span,
                    };
                }
                let elems: Vec<Expr> = t.elems.iter().map(|x| self.expr(x)).collect();
                let ty = Ty::Tuple(elems.iter().map(|x| x.ty.clone()).collect());
                Expr {
                    kind: ExprKind::Tuple(elems),
                    ty,
                    span,
                }
            }
            syn::Expr::Array(a) => {
                let elems: Vec<Expr> = a.elems.iter().map(|x| self.expr(x)).collect();
                let Some(first) = elems.first() else {
                    self.error(a, "empty arrays are not supported in kernels");
                    return error_expr(span);
                };
                let elem_ty = first.ty.clone();
                if !self.array_fits(&elem_ty, elems.len() as u64, a) {
                    return error_expr(span);
                }
                for (x, node) in elems.iter().skip(1).zip(a.elems.iter().skip(1)) {
                    self.unify_at(
                        &elem_ty,
                        &x.ty,
                        node,
                        "every array element (like the first)",
                    );
                }
                let n = elems.len() as u64;
                Expr {
                    kind: ExprKind::Array(elems),
                    ty: Ty::Array(Box::new(elem_ty), n),
                    span,
                }
            }
            syn::Expr::Repeat(r) => {
                let value = self.expr(&r.expr);
                let Some(n) = self.const_len(&r.len) else {
                    return error_expr(span);
                };
                if !self.array_fits(&value.ty, n, r) {
                    return error_expr(span);
                }
                let ty = Ty::Array(Box::new(value.ty.clone()), n);
                Expr {
                    kind: ExprKind::Repeat(Box::new(value), n),
                    ty,
                    span,
                }
            }
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::MethodCall(m) => self.method_call(m),
            syn::Expr::If(i) => self.if_expr(i),
            syn::Expr::Block(b) => {
                if let Some(label) = &b.label {
                    self.error(
                        label,
                        "labeled blocks are not supported in kernels; use a labeled `loop`",
                    );
                }
                let block = self.block(&b.block);
                let ty = block.ty.clone();
                Expr {
                    kind: ExprKind::Block(block),
                    ty,
                    span,
                }
            }
            // Nothing in a kernel is `unsafe`: the block is checked as a plain one, and the
            // `unsafe` is reported only when its body is otherwise right (so `unsafe { S }` of a
            // `static mut S` gets the one error that says what is wrong with `S`).
            syn::Expr::Unsafe(u) => {
                let before = self.errors.len();
                let block = self.block(&u.block);
                if self.errors.len() == before {
                    self.error(
                        u.unsafe_token,
                        "`unsafe` blocks are not needed in kernels: nothing in a kernel is unsafe; remove `unsafe`",
                    );
                }
                let ty = block.ty.clone();
                Expr {
                    kind: ExprKind::Block(block),
                    ty,
                    span,
                }
            }
            syn::Expr::Loop(l) => self.loop_expr(l),
            syn::Expr::While(w) => self.while_expr(w),
            syn::Expr::ForLoop(f) => self.for_expr(f),
            syn::Expr::Break(b) => self.break_expr(b),
            syn::Expr::Continue(c) => self.continue_expr(c),
            syn::Expr::Return(r) => self.return_expr(r),
            syn::Expr::Macro(m) => match self.macro_call(&m.mac) {
                Some(x) => x,
                None => {
                    self.error(e, unsupported_expr_message(e));
                    error_expr(span)
                }
            },
            syn::Expr::Match(m) => self.match_expr(m),
            _ => {
                let msg = unsupported_expr_message(e);
                self.error(e, msg);
                error_expr(span)
            }
        }
    }

    /// A literal; `negate` folds a leading `-` into it so that `-128i8` is in range.
    pub(super) fn literal(&mut self, lit: &syn::Lit, negate: bool) -> Expr {
        let span = lit.span();
        match lit {
            syn::Lit::Int(i) => {
                let suffix = i.suffix();
                if suffix == "f32" || suffix == "f64" {
                    let v: f64 = i.base10_digits().parse().unwrap_or(0.0);
                    let s = Scalar::from_name(suffix).expect("f32 or f64");
                    return Expr {
                        kind: ExprKind::Float(if negate { -v } else { v }),
                        ty: Ty::Scalar(s),
                        span,
                    };
                }
                let ty = if suffix.is_empty() {
                    self.infer.fresh(false)
                } else {
                    match Scalar::from_name(suffix).filter(|s| s.is_int()) {
                        Some(s) => Ty::Scalar(s),
                        None => {
                            self.error(
                                i,
                                format!(
                                    "invalid suffix `{suffix}` for an integer literal in a kernel"
                                ),
                            );
                            return error_expr(span);
                        }
                    }
                };
                let Ok(v) = i.base10_parse::<u128>() else {
                    self.error(i, "integer literal is too large");
                    return error_expr(span);
                };
                let Ok(v) = i128::try_from(v) else {
                    self.error(i, "integer literal is too large for any kernel type");
                    return error_expr(span);
                };
                let v = if negate { -v } else { v };
                self.infer.check_literal_later(ty.clone(), v, span);
                Expr {
                    kind: ExprKind::Int(v),
                    ty,
                    span,
                }
            }
            syn::Lit::Float(f) => {
                let suffix = f.suffix();
                let ty = match suffix {
                    "" => self.infer.fresh(true),
                    "f32" => Ty::Scalar(Scalar::F32),
                    "f64" => Ty::Scalar(Scalar::F64),
                    _ => {
                        self.error(f, format!("invalid suffix `{suffix}` for a float literal"));
                        return error_expr(span);
                    }
                };
                let v: f64 = f.base10_digits().parse().unwrap_or(0.0);
                self.infer.check_float_literal_later(
                    ty.clone(),
                    v,
                    f.base10_digits().to_string(),
                    span,
                );
                Expr {
                    kind: ExprKind::Float(if negate { -v } else { v }),
                    ty,
                    span,
                }
            }
            syn::Lit::Bool(b) => Expr {
                kind: ExprKind::Bool(b.value),
                ty: Ty::BOOL,
                span,
            },
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => {
                self.error(
                    lit,
                    "strings are not supported in kernels; pass text as bytes in a `&[u8]` parameter",
                );
                error_expr(span)
            }
            syn::Lit::Char(_) => {
                self.error(
                    lit,
                    "`char` is not supported in kernels; use a `u32` or `u8` code",
                );
                error_expr(span)
            }
            syn::Lit::Byte(b) => {
                let ty = Ty::Scalar(Scalar::U8);
                Expr {
                    kind: ExprKind::Int(b.value() as i128),
                    ty,
                    span,
                }
            }
            _ => {
                self.error(lit, "this literal is not supported in kernels");
                error_expr(span)
            }
        }
    }

    /// Tries to read `e` as a place (a local, possibly indexed and projected).
    pub(super) fn try_place(&mut self, e: &syn::Expr) -> PlaceResult {
        if !self.enter(e) {
            return PlaceResult::Failed;
        }
        let p = self.try_place_here(e);
        self.depth -= 1;
        p
    }

    fn try_place_here(&mut self, e: &syn::Expr) -> PlaceResult {
        match e {
            syn::Expr::Paren(p) => self.try_place(&p.expr),
            syn::Expr::Group(g) => self.try_place(&g.expr),
            syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let ident = p.path.get_ident().expect("checked above");
                let name = ident.to_string();
                match self.lookup(&name) {
                    Some(id) if !self.check_initialized(id, ident) => PlaceResult::Failed,
                    Some(id) if self.callable_of(id).is_some() => {
                        self.error(ident, format!("`{name}` is a closure: call it, `{name}(..)`, or pass it to a `#[device]` function that takes `impl Fn(..)`"));
                        PlaceResult::Failed
                    }
                    Some(id) if self.alias_of(id).is_some() => {
                        PlaceResult::Place(self.alias_of(id).expect("checked"))
                    }
                    Some(id) => PlaceResult::Place(Place {
                        base: id,
                        proj: Vec::new(),
                        ty: self.locals[id].ty.clone(),
                    }),
                    None => match self.named_const(ident, false) {
                        Some(consts::ConstUse::Table(place)) => PlaceResult::Place(place),
                        Some(consts::ConstUse::Value(_)) => PlaceResult::NotPlace,
                        Some(consts::ConstUse::Failed) => PlaceResult::Failed,
                        None if builtins::gpu_constant(&name).is_some() => PlaceResult::NotPlace,
                        None => {
                            self.unknown_value(ident, &name);
                            PlaceResult::Failed
                        }
                    },
                }
            }
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_)) && self.names_reference(&u.expr) =>
            {
                self.try_place(&u.expr)
            }
            syn::Expr::Index(ix) if self.view_named(&ix.expr).is_some() => {
                let view = self.view_named(&ix.expr).expect("checked");
                self.view_element(view, &ix.index, e)
            }
            syn::Expr::Index(ix) => match self.try_place(&ix.expr) {
                PlaceResult::Place(p) => self.index_place(p, &ix.index, e),
                PlaceResult::NotPlace => {
                    self.expr(&ix.index);
                    self.error(
                        &ix.expr,
                        "only slices, local arrays and shared arrays can be indexed; bind this value with `let` first",
                    );
                    PlaceResult::Failed
                }
                PlaceResult::Failed => {
                    self.expr(&ix.index);
                    PlaceResult::Failed
                }
            },
            syn::Expr::Field(f) => match self.try_place(&f.base) {
                PlaceResult::Place(mut p) => match self.field_of(&p.ty.clone(), &f.member) {
                    Some((idx, ty)) => {
                        p.proj.push(Proj::Field(idx));
                        p.ty = ty;
                        PlaceResult::Place(p)
                    }
                    None => PlaceResult::Failed,
                },
                other => other,
            },
            _ => PlaceResult::NotPlace,
        }
    }

    /// The place a reference local stands for (an element of `iter_mut()`).
    fn alias_of(&self, id: LocalId) -> Option<Place> {
        self.aliases
            .iter()
            .rev()
            .find(|(a, _)| *a == id)
            .and_then(|(_, p)| p.clone())
    }

    /// Whether `e` is a name that stands for a reference, which `*e` reads or writes.
    pub(super) fn names_reference(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return false;
        };
        p.path
            .get_ident()
            .and_then(|i| self.lookup(&i.to_string()))
            .is_some_and(|id| self.aliases.iter().any(|(a, _)| *a == id))
    }

    fn unknown_value(&mut self, ident: &syn::Ident, name: &str) {
        let names = self.names_in_scope();
        let path: syn::Path = ident.clone().into();
        if self.devices.get(&path).is_some() {
            self.error(ident, format!("`{name}` is a `#[device]` function, not a value: call it, `{name}(..)`, or pass it for a parameter that takes a function (`op: impl Fn(..)`)"));
            return;
        }
        let mut msg = format!("cannot find value `{name}` in this kernel");
        if let Some(s) = suggest::closest(name, names.iter().map(String::as_str)) {
            msg.push_str(&format!("; did you mean `{s}`?"));
        } else if self.consts.module.imports().imports_by_name(name) {
            msg = format!("the constant `{name}` is imported from a module whose items this kernel cannot read: the kernel compiler reads its own file, and the modules of the `DeviceCopy` types the kernel imports; define `{name}` in this module (replacing the `use`), or pass it as a parameter");
        } else if name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        {
            msg.push_str("; a kernel sees its parameters, its locals, `cuprum::gpu` and the `const` and `static` items defined in its own module (not imported ones): define the constant next to the kernel, or pass it as a parameter");
        }
        self.error(ident, msg);
    }

    /// `place[index]`
    fn index_place(
        &mut self,
        mut place: Place,
        index: &syn::Expr,
        whole: &syn::Expr,
    ) -> PlaceResult {
        let idx = self.expr(index);
        let idx_ty = self.infer.zonk(&idx.ty);
        match idx_ty {
            Ty::Scalar(Scalar::Usize) | Ty::Error => {}
            Ty::Scalar(s) => {
                let fix = match strip_parens(index) {
                    syn::Expr::Cast(c) => source::cast_text(&c.expr, "usize"),
                    other => source::cast_text(other, "usize"),
                };
                self.error(
                    index,
                    format!(
                        "slices and arrays are indexed by `usize`, found `{}`; write `{fix}`",
                        s.name()
                    ),
                );
                return PlaceResult::Failed;
            }
            _ => {
                if self.infer.unify(&idx.ty, &Ty::USIZE).is_err() {
                    let found = self.infer.describe(&idx.ty);
                    self.error(
                        index,
                        format!("slices and arrays are indexed by `usize`, found `{found}`"),
                    );
                    return PlaceResult::Failed;
                }
            }
        }
        let span = span_of(whole);
        let literal = match &idx.kind {
            ExprKind::Int(v) => Some(*v),
            _ => None,
        };
        let (elem, len) = match self.infer.zonk(&place.ty) {
            Ty::Slice { elem, .. } => (*elem, None),
            Ty::Array(t, n) => (*t, Some(n)),
            Ty::Shared { elem, dims } => match dims.as_slice() {
                [] => (*elem, None),
                [n] => (*elem, Some(*n)),
                [r, rest @ ..] => (
                    Ty::Shared {
                        elem,
                        dims: rest.to_vec(),
                    },
                    Some(*r),
                ),
            },
            Ty::Error => return PlaceResult::Failed,
            other => {
                let t = self.infer.describe(&other);
                self.error(whole, format!("cannot index into a value of type `{t}`"));
                return PlaceResult::Failed;
            }
        };
        let site = match (len, literal) {
            (Some(n), Some(v)) if v >= 0 && (v as u64) < n => None,
            (Some(n), Some(v)) => {
                self.error(
                    index,
                    format!("index out of bounds: the length is {n} but the index is {v}"),
                );
                return PlaceResult::Failed;
            }
            _ => self.site(CheckKind::Index, span),
        };
        place.proj.push(Proj::Index {
            index: Box::new(idx),
            site,
        });
        place.ty = elem;
        PlaceResult::Place(place)
    }

    /// The index and type of `.member` on a value of type `ty`.
    fn field_of(&mut self, ty: &Ty, member: &syn::Member) -> Option<(u32, Ty)> {
        let ty = self.infer.zonk(ty);
        match (&ty, member) {
            (Ty::Dim3, syn::Member::Named(n)) => match n.to_string().as_str() {
                "x" => Some((0, Ty::U32)),
                "y" => Some((1, Ty::U32)),
                "z" => Some((2, Ty::U32)),
                other => {
                    self.error(
                        n,
                        format!("`gpu::Dim3` has fields `x`, `y` and `z`, not `{other}`"),
                    );
                    None
                }
            },
            (Ty::Tuple(ts), syn::Member::Unnamed(i)) if (i.index as usize) < ts.len() => {
                Some((i.index, ts[i.index as usize].clone()))
            }
            (Ty::Struct(d), m) => {
                let name = match m {
                    syn::Member::Named(n) => n.to_string(),
                    syn::Member::Unnamed(i) => i.index.to_string(),
                };
                match d.field(&name) {
                    Some(k) => Some((k as u32, d.fields[k].1.clone())),
                    None => {
                        self.error(member, format!("no field `{name}` on type `{}`", d.name));
                        None
                    }
                }
            }
            (Ty::Error, _) => None,
            _ => {
                let t = self.infer.describe(&ty);
                self.error(
                    member,
                    format!("no field `{}` on type `{t}`", member.to_token_stream()),
                );
                None
            }
        }
    }

    /// `.field` of a value that is not a place, like `gpu::thread_idx().x`.
    fn rvalue_field(&mut self, f: &syn::ExprField) -> Expr {
        let base = self.expr(&f.base);
        let span = span_of(f);
        match self.field_of(&base.ty.clone(), &f.member) {
            Some((idx, ty)) => Expr {
                kind: ExprKind::Field(Box::new(base), idx),
                ty,
                span,
            },
            None => error_expr(span),
        }
    }

    /// Reading a place as a value.
    fn read_place(&mut self, place: Place, e: &syn::Expr) -> Expr {
        let span = span_of(e);
        match self.infer.zonk(&place.ty) {
            Ty::Slice { .. } => {
                self.error(
                    e,
                    "a slice cannot be copied: index it (`x[i]`) or take its length (`x.len()`)",
                );
                error_expr(span)
            }
            Ty::Shared { .. } => {
                self.error(e, "a shared array cannot be copied: index it (`s[i]`)");
                error_expr(span)
            }
            _ => {
                if !self.element_copy_fits(&place, e) {
                    return error_expr(span);
                }
                let ty = place.ty.clone();
                Expr {
                    kind: ExprKind::Read(place),
                    ty,
                    span,
                }
            }
        }
    }

    /// A path that is not a local: a constant such as `gpu::WARP_SIZE` or `f32::MAX`.
    fn path_value(&mut self, p: &syn::ExprPath) -> Expr {
        let span = span_of(p);
        if let (Some(ident), None) = (p.path.get_ident(), &p.qself) {
            match self.named_const(ident, false) {
                Some(consts::ConstUse::Value(e)) => return e,
                Some(consts::ConstUse::Failed) => return error_expr(span),
                Some(consts::ConstUse::Table(place)) => {
                    return self.read_place(place, &syn::Expr::Path(p.clone()))
                }
                None => {}
            }
        }
        if let (Some(q), Some(last)) = (&p.qself, p.path.segments.last()) {
            // `<f32>::MAX`, as macros write it.
            if q.position == 0 && p.path.segments.len() == 1 {
                let Some(s) = self.scalar_type(&q.ty) else {
                    return error_expr(span);
                };
                return match builtins::scalar_constant(s, &last.ident.to_string()) {
                    Some(ConstValue::Int(s, v)) => Expr {
                        kind: ExprKind::Int(v),
                        ty: Ty::Scalar(s),
                        span,
                    },
                    Some(ConstValue::Float(s, v)) => Expr {
                        kind: ExprKind::Float(v),
                        ty: Ty::Scalar(s),
                        span,
                    },
                    None => {
                        self.error(p, format!("no constant `{}` on `{}`", last.ident, s.name()));
                        error_expr(span)
                    }
                };
            }
        }
        if let Some(e) = self.enum_variant(p) {
            return e;
        }
        if let Some(e) = self.assoc_const_value(p) {
            return e;
        }
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
        let value = match segs.as_slice() {
            [.., ty, name] if self.scalar_named(ty).is_some() => {
                builtins::scalar_constant(self.scalar_named(ty).unwrap(), name)
            }
            ["core" | "std", ty, "consts", name] | [ty, "consts", name]
                if self.scalar_named(ty).is_some() =>
            {
                builtins::scalar_constant(self.scalar_named(ty).unwrap(), name)
            }
            _ => match gpu_path_name(&p.path) {
                Some((name, _)) => {
                    if builtins::GPU_FUNCTIONS.contains(&name.as_str()) {
                        self.error(
                            p,
                            format!("`{name}` is a function: call it, `gpu::{name}()`"),
                        );
                        return error_expr(span);
                    }
                    builtins::gpu_constant(&name)
                }
                None => None,
            },
        };
        match value {
            Some(ConstValue::Int(s, v)) => Expr {
                kind: ExprKind::Int(v),
                ty: Ty::Scalar(s),
                span,
            },
            Some(ConstValue::Float(s, v)) => Expr {
                kind: ExprKind::Float(v),
                ty: Ty::Scalar(s),
                span,
            },
            None => {
                let last = &p.path.segments.last().expect("a path has a segment").ident;
                let name = last.to_string();
                if let Some((_, true)) = gpu_path_name(&p.path) {
                    let mut msg = format!("cannot find `{name}` in `cuprum::gpu`");
                    let names = builtins::GPU_CONSTANTS
                        .iter()
                        .chain(builtins::GPU_FUNCTIONS)
                        .copied();
                    if let Some(s) = suggest::closest(&name, names) {
                        msg.push_str(&format!("; did you mean `gpu::{s}`?"));
                    }
                    self.error(last, msg);
                    return error_expr(span);
                }
                let text = source::expr_text(&p.path);
                let mut msg = format!("cannot find `{text}` in kernels: a kernel sees its parameters, its locals, `cuprum::gpu`, the `const` and `static` items of its own module and the constants of scalar types such as `f32::MAX`");
                // `model::Op::Add`: an item of a type named by its path.
                if let [.., module, ty, item] = segs.as_slice() {
                    if ty.starts_with(|c: char| c.is_ascii_uppercase())
                        && !module.starts_with(|c: char| c.is_ascii_uppercase())
                    {
                        let path = segs[..segs.len() - 1].join("::");
                        msg = format!("cannot find `{text}` in kernels: kernels name user types by their own name: import it, `use {path};`, and write `{ty}::{item}`");
                    }
                }
                if let [.., ty, _] = segs.as_slice() {
                    if let Some(s) = self.scalar_named(ty) {
                        let names = builtins::scalar_constant_names(s);
                        if let Some(c) = suggest::closest(&name, names.iter().copied()) {
                            msg = format!(
                                "`{ty}` has no constant `{name}`; did you mean `{ty}::{c}`?"
                            );
                        }
                    }
                }
                self.error(p, msg);
                error_expr(span)
            }
        }
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Expr {
        let span = span_of(u);
        match u.op {
            syn::UnOp::Neg(_) => {
                if let syn::Expr::Lit(l) = strip_parens(&u.expr) {
                    if matches!(l.lit, syn::Lit::Int(_) | syn::Lit::Float(_)) {
                        let mut e = self.literal(&l.lit, true);
                        e.span = span;
                        if let ExprKind::Int(_) = e.kind {
                            self.infer.check_negation_later(e.ty.clone(), span);
                        }
                        return e;
                    }
                }
                let inner = self.expr(&u.expr);
                let t = self.infer.zonk(&inner.ty);
                match &t {
                    Ty::Scalar(s) if *s != Scalar::Bool => {
                        if s.is_int() && !s.is_signed() {
                            self.error(u, format!("cannot apply unary operator `-` to type `{}`: unsigned values cannot be negated", s.name()));
                        }
                    }
                    Ty::Var(_) => self.infer.check_negation_later(t.clone(), span),
                    Ty::Error => {}
                    other => {
                        let d = self.infer.describe(other);
                        self.error(u, format!("cannot apply unary operator `-` to type `{d}`"));
                    }
                }
                let ty = inner.ty.clone();
                Expr {
                    kind: ExprKind::Unary(UnOp::Neg, Box::new(inner)),
                    ty,
                    span,
                }
            }
            syn::UnOp::Not(_) => {
                let inner = self.expr(&u.expr);
                let t = self.infer.zonk(&inner.ty);
                let ok = match &t {
                    Ty::Scalar(s) => !s.is_float(),
                    Ty::Var(_) => self.infer.is_float_var(&t) == Some(false),
                    Ty::Error => true,
                    _ => false,
                };
                if !ok {
                    let d = self.infer.describe(&t);
                    self.error(u, format!("cannot apply unary operator `!` to type `{d}`"));
                }
                let ty = inner.ty.clone();
                Expr {
                    kind: ExprKind::Unary(UnOp::Not, Box::new(inner)),
                    ty,
                    span,
                }
            }
            syn::UnOp::Deref(_) if self.names_reference(&u.expr) => self.expr(&u.expr),
            syn::UnOp::Deref(_) => {
                self.error(
                    u,
                    "`*` dereferences are not supported in kernels: index slices directly (`x[i]`)",
                );
                error_expr(span)
            }
            _ => {
                self.error(u, "this operator is not supported in kernels");
                error_expr(span)
            }
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Expr {
        let span = span_of(b);
        let (op, compound) = match b.op {
            syn::BinOp::And(_) | syn::BinOp::Or(_) => {
                let l = self.expr(&b.left);
                let r = self.expr(&b.right);
                self.unify_at(&Ty::BOOL, &l.ty, &b.left, "an operand of `&&`/`||`");
                self.unify_at(&Ty::BOOL, &r.ty, &b.right, "an operand of `&&`/`||`");
                let kind = if matches!(b.op, syn::BinOp::And(_)) {
                    ExprKind::And(Box::new(l), Box::new(r))
                } else {
                    ExprKind::Or(Box::new(l), Box::new(r))
                };
                return Expr {
                    kind,
                    ty: Ty::BOOL,
                    span,
                };
            }
            syn::BinOp::Add(_) => (BinOp::Add, false),
            syn::BinOp::Sub(_) => (BinOp::Sub, false),
            syn::BinOp::Mul(_) => (BinOp::Mul, false),
            syn::BinOp::Div(_) => (BinOp::Div, false),
            syn::BinOp::Rem(_) => (BinOp::Rem, false),
            syn::BinOp::BitXor(_) => (BinOp::BitXor, false),
            syn::BinOp::BitAnd(_) => (BinOp::BitAnd, false),
            syn::BinOp::BitOr(_) => (BinOp::BitOr, false),
            syn::BinOp::Shl(_) => (BinOp::Shl, false),
            syn::BinOp::Shr(_) => (BinOp::Shr, false),
            syn::BinOp::Eq(_) => (BinOp::Eq, false),
            syn::BinOp::Lt(_) => (BinOp::Lt, false),
            syn::BinOp::Le(_) => (BinOp::Le, false),
            syn::BinOp::Ne(_) => (BinOp::Ne, false),
            syn::BinOp::Ge(_) => (BinOp::Ge, false),
            syn::BinOp::Gt(_) => (BinOp::Gt, false),
            syn::BinOp::AddAssign(_) => (BinOp::Add, true),
            syn::BinOp::SubAssign(_) => (BinOp::Sub, true),
            syn::BinOp::MulAssign(_) => (BinOp::Mul, true),
            syn::BinOp::DivAssign(_) => (BinOp::Div, true),
            syn::BinOp::RemAssign(_) => (BinOp::Rem, true),
            syn::BinOp::BitXorAssign(_) => (BinOp::BitXor, true),
            syn::BinOp::BitAndAssign(_) => (BinOp::BitAnd, true),
            syn::BinOp::BitOrAssign(_) => (BinOp::BitOr, true),
            syn::BinOp::ShlAssign(_) => (BinOp::Shl, true),
            syn::BinOp::ShrAssign(_) => (BinOp::Shr, true),
            _ => {
                self.error(b, "this operator is not supported in kernels");
                return error_expr(span);
            }
        };
        if compound {
            let place = match self.try_place(&b.left) {
                PlaceResult::Place(p) => Some(p),
                PlaceResult::NotPlace => {
                    self.error(&b.left, "invalid left-hand side of a compound assignment: assign to a local or an element");
                    None
                }
                PlaceResult::Failed => None,
            };
            let r = self.expr(&b.right);
            let Some(place) = place else {
                return error_expr(span);
            };
            if self.check_writable(&place, &b.left) == Writable::WholeAggregate {
                return error_expr(span);
            }
            let lhs = Expr {
                kind: ExprKind::Unit,
                ty: place.ty.clone(),
                span: span_of(&b.left),
            };
            let (_, site) = self.operator_types(op, &lhs, &r, b, true);
            if site.is_some() {
                // A compound division checks its divisor like the plain operator does.
                let kind = ExprKind::Binary(op, Box::new(lhs), Box::new(r), site);
                return self.compound_with_site(place, kind, span);
            }
            return Expr {
                kind: ExprKind::CompoundAssign(op, place, Box::new(r)),
                ty: Ty::Unit,
                span,
            };
        }
        let l = self.expr(&b.left);
        let r = self.expr(&b.right);
        if self.enum_operands(&l, &r) {
            return self.enum_binary(op, l, r, b);
        }
        let (ty, site) = self.operator_types(op, &l, &r, b, false);
        Expr {
            kind: ExprKind::Binary(op, Box::new(l), Box::new(r), site),
            ty,
            span,
        }
    }

    /// `place /= r` with a checked divisor: `place = place / r`.
    fn compound_with_site(&mut self, place: Place, binary: ExprKind, span: Span) -> Expr {
        let ExprKind::Binary(op, _, r, site) = binary else {
            unreachable!("built by the caller")
        };
        let read = Expr {
            kind: ExprKind::Read(place.clone()),
            ty: place.ty.clone(),
            span,
        };
        let value = Expr {
            kind: ExprKind::Binary(op, Box::new(read), r, site),
            ty: place.ty.clone(),
            span,
        };
        Expr {
            kind: ExprKind::Assign(place, Box::new(value)),
            ty: Ty::Unit,
            span,
        }
    }

    /// Where to report operands of different types, and what to write instead: the operand
    /// to change (the literal, or the integer next to a float) and its conversion.
    fn operand_hint<'n>(
        &self,
        l: &Expr,
        r: &Expr,
        node: &'n syn::ExprBinary,
        compound: bool,
    ) -> (&'n syn::Expr, String) {
        let (left, right) = (&*node.left, &*node.right);
        let (lz, rz) = (self.infer.zonk(&l.ty), self.infer.zonk(&r.ty));
        let int_var = |t: &Ty| self.infer.is_float_var(t) == Some(false);
        let float_var = |t: &Ty| self.infer.is_float_var(t) == Some(true);
        const NO_IMPLICIT: &str = "; Cuprum does not convert implicitly: write";
        match (&lz, &rz) {
            (Ty::Scalar(a), _) if a.is_float() && int_var(&rz) => {
                (right, format!("{NO_IMPLICIT} {}", float_literal(right, *a)))
            }
            (_, Ty::Scalar(b)) if b.is_float() && int_var(&lz) && !compound => {
                (left, format!("{NO_IMPLICIT} {}", float_literal(left, *b)))
            }
            (Ty::Scalar(a), Ty::Scalar(b)) if a.is_int() && b.is_float() && !compound => (
                left,
                format!("{NO_IMPLICIT} `{}`", source::cast_text(left, b.name())),
            ),
            (Ty::Scalar(a), Ty::Scalar(b))
                if a != b && *a != Scalar::Bool && *b != Scalar::Bool =>
            {
                (
                    right,
                    format!("{NO_IMPLICIT} `{}`", source::cast_text(right, a.name())),
                )
            }
            (Ty::Scalar(a), _) if a.is_int() && float_var(&rz) && !compound => (
                left,
                format!(
                    "{NO_IMPLICIT} `{}` (or `as f64`)",
                    source::cast_text(left, "f32")
                ),
            ),
            (_, Ty::Scalar(b)) if b.is_int() && float_var(&lz) => (
                right,
                format!(
                    "{NO_IMPLICIT} `{}` (or `as f64`)",
                    source::cast_text(right, "f32")
                ),
            ),
            _ => (right, String::new()),
        }
    }

    /// The result type of `l op r`, and the division check if one is needed.
    fn operator_types(
        &mut self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        node: &syn::ExprBinary,
        compound: bool,
    ) -> (Ty, Option<u32>) {
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            for (side, at) in [(l, &*node.left), (r, &*node.right)] {
                if !self.is_int_like(&side.ty) {
                    let d = self.infer.describe(&side.ty);
                    self.error(at, format!("shifts need integer operands, found `{d}`"));
                }
            }
            return (l.ty.clone(), None);
        }
        if self.infer.unify(&l.ty, &r.ty).is_err() {
            let (lt, rt) = (self.infer.describe(&l.ty), self.infer.describe(&r.ty));
            let mut msg = format!(
                "mismatched types: cannot apply `{}` to `{lt}` and `{rt}`",
                op.symbol()
            );
            let (at, hint) = self.operand_hint(l, r, node, compound);
            msg.push_str(&hint);
            self.error(at, msg);
            return (
                if op.is_comparison() {
                    Ty::BOOL
                } else {
                    Ty::Error
                },
                None,
            );
        }
        let t = self.infer.zonk(&l.ty);
        let ok = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => self.is_numeric(&t),
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                self.is_int_like(&t) || matches!(t, Ty::Scalar(Scalar::Bool))
            }
            _ => matches!(t, Ty::Scalar(_) | Ty::Var(_) | Ty::Error),
        };
        if !ok {
            let d = self.infer.describe(&t);
            self.error(node, format!("cannot apply `{}` to `{d}`", op.symbol()));
        }
        let site = if matches!(op, BinOp::Div | BinOp::Rem)
            && self.is_int_like(&t)
            && !matches!(t, Ty::Error)
        {
            match &r.kind {
                ExprKind::Int(v) if *v != 0 => None,
                _ if op == BinOp::Div => self.site(CheckKind::DivZero, span_of(node)),
                _ => self.site(CheckKind::RemZero, span_of(node)),
            }
        } else {
            None
        };
        (
            if op.is_comparison() {
                Ty::BOOL
            } else {
                l.ty.clone()
            },
            site,
        )
    }

    pub(super) fn is_int_like(&self, t: &Ty) -> bool {
        match self.infer.zonk(t) {
            Ty::Scalar(s) => s.is_int(),
            Ty::Var(_) => self.infer.is_float_var(t) == Some(false),
            Ty::Error => true,
            _ => false,
        }
    }

    fn is_numeric(&self, t: &Ty) -> bool {
        match self.infer.zonk(t) {
            Ty::Scalar(s) => s != Scalar::Bool,
            Ty::Var(_) | Ty::Error => true,
            _ => false,
        }
    }

    fn assign(&mut self, a: &syn::ExprAssign) -> Expr {
        let span = span_of(a);
        if let Some(e) = self.assign_deferred(a) {
            return e;
        }
        let place = match self.try_place(&a.left) {
            PlaceResult::Place(p) => Some(p),
            PlaceResult::NotPlace => {
                self.error(
                    &a.left,
                    "invalid left-hand side of assignment: assign to a local or an element",
                );
                None
            }
            PlaceResult::Failed => None,
        };
        let Some(place) = place else {
            self.expr(&a.right);
            return error_expr(span);
        };
        if self.check_writable(&place, &a.left) == Writable::WholeAggregate {
            // `out = x` is one mistake; the value is not reported again.
            return error_expr(span);
        }
        let value = self.expr(&a.right);
        self.unify_at(&place.ty.clone(), &value.ty, &a.right, "the assigned place");
        Expr {
            kind: ExprKind::Assign(place, Box::new(value)),
            ty: Ty::Unit,
            span,
        }
    }

    /// Reports writes through `&[T]`, to immutable locals and to whole slices.
    pub(super) fn check_writable(&mut self, place: &Place, at: &syn::Expr) -> Writable {
        let root = self.locals[place.base].clone();
        let name = &root.name;
        if self.is_table(place.base) {
            self.error(
                at,
                format!("cannot assign to `{name}`: it is a constant; copy it into a local to change it, `let mut t = {name};`"),
            );
            return Writable::No;
        }
        let is_element = place.proj.iter().any(|p| matches!(p, Proj::Index { .. }));
        match &root.ty {
            Ty::Slice {
                mutable: false,
                elem,
            } if is_element => {
                self.error(
                    at,
                    format!("cannot assign to an element of `{name}`: it is a `&[{elem}]` parameter (read-only); declare it `&mut [{elem}]`"),
                );
                Writable::No
            }
            Ty::Slice { .. } | Ty::Shared { .. } if !is_element => {
                self.error(
                    at,
                    format!("cannot assign to `{name}` itself: assign to its elements (`{name}[i] = ..`)"),
                );
                Writable::WholeAggregate
            }
            Ty::Slice { .. } | Ty::Shared { .. } => Writable::Yes,
            _ if !root.mutable => {
                let fix = if place.base < self.param_count {
                    format!("declare the parameter `mut {name}`")
                } else {
                    format!("write `let mut {name}`")
                };
                self.error(
                    at,
                    format!("cannot assign to `{name}`: it is not declared mutable; {fix}"),
                );
                Writable::No
            }
            _ => Writable::Yes,
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Expr {
        let span = span_of(c);
        let inner = self.expr(&c.expr);
        if let Some(e) = self.enum_cast(c, &inner) {
            return e;
        }
        let Some(target) = self.scalar_type(&c.ty) else {
            return error_expr(span);
        };
        let src = self.infer.zonk(&inner.ty);
        let src_float = match &src {
            Ty::Scalar(s) => Some(s.is_float()),
            Ty::Var(_) => self.infer.is_float_var(&src),
            _ => None,
        };
        match (&src, target) {
            (Ty::Error, _) => {}
            (Ty::Scalar(Scalar::Bool), t) if t.is_float() => {
                self.error(
                    c,
                    format!(
                        "cannot cast `bool` as `{}`: cast to an integer first (`b as u32 as {}`)",
                        t.name(),
                        t.name()
                    ),
                );
            }
            (Ty::Scalar(_) | Ty::Var(_), Scalar::Bool)
                if !matches!(src, Ty::Scalar(Scalar::Bool)) =>
            {
                let d = self.infer.describe(&src);
                self.error(
                    c,
                    format!("cannot cast `{d}` as `bool`: compare instead (`x != 0`)"),
                );
            }
            (Ty::Scalar(_) | Ty::Var(_), _) => {
                let _ = src_float;
            }
            _ => {
                let d = self.infer.describe(&src);
                self.error(
                    c,
                    format!("non-primitive cast: `{d}` as `{}`", target.name()),
                );
            }
        }
        Expr {
            kind: ExprKind::Cast(Box::new(inner)),
            ty: Ty::Scalar(target),
            span,
        }
    }

    /// `x.len()` and `x.is_empty()` on slices, arrays and shared arrays.
    pub(super) fn len_call(&mut self, m: &syn::ExprMethodCall, name: &str) -> Expr {
        let span = span_of(m);
        if !m.args.is_empty() {
            self.error(m, format!("`{name}` takes no arguments"));
        }
        let place = match self.view_named(&m.receiver) {
            Some(v) => Err(v.len_expr()),
            None => Ok(self.try_place(&m.receiver)),
        };
        let place = match place {
            Err(len) if name == "len" => return len,
            Err(len) => {
                let zero = Expr {
                    kind: ExprKind::Int(0),
                    ty: Ty::USIZE,
                    span,
                };
                return Expr {
                    kind: ExprKind::Binary(BinOp::Eq, Box::new(len), Box::new(zero), None),
                    ty: Ty::BOOL,
                    span,
                };
            }
            Ok(p) => p,
        };
        let place = match place {
            PlaceResult::Place(p) => p,
            PlaceResult::Failed => return error_expr(span),
            PlaceResult::NotPlace => {
                let r = self.expr(&m.receiver);
                let d = self.infer.describe(&r.ty);
                self.error(&m.method, format!("no method `{name}` on `{d}`"));
                return error_expr(span);
            }
        };
        let len = match self.infer.zonk(&place.ty) {
            Ty::Slice { .. } => Expr {
                kind: ExprKind::Len(place),
                ty: Ty::USIZE,
                span,
            },
            Ty::Shared { dims, .. } if dims.is_empty() => Expr {
                kind: ExprKind::Len(place),
                ty: Ty::USIZE,
                span,
            },
            Ty::Shared { dims, .. } => Expr {
                kind: ExprKind::Int(dims[0] as i128),
                ty: Ty::USIZE,
                span,
            },
            Ty::Array(_, n) => Expr {
                kind: ExprKind::Int(n as i128),
                ty: Ty::USIZE,
                span,
            },
            Ty::Error => return error_expr(span),
            other => {
                let d = self.infer.describe(&other);
                self.error(&m.method, format!("no method `{name}` on `{d}`"));
                return error_expr(span);
            }
        };
        if name == "is_empty" {
            let zero = Expr {
                kind: ExprKind::Int(0),
                ty: Ty::USIZE,
                span,
            };
            return Expr {
                kind: ExprKind::Binary(BinOp::Eq, Box::new(len), Box::new(zero), None),
                ty: Ty::BOOL,
                span,
            };
        }
        len
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
        let span = span_of(i);
        if let syn::Expr::Let(l) = &*i.cond {
            self.error(l, "`if let` is not supported in kernels");
            return error_expr(span);
        }
        if let Some(taken) = self.static_condition(&i.cond) {
            return self.static_if(i, taken);
        }
        let cond = self.expr(&i.cond);
        self.unify_at(&Ty::BOOL, &cond.ty, &i.cond, "the condition of `if`");
        let before = self.init_snapshot();
        let then = self.block(&i.then_branch);
        let after_then = self.init_branch_end(&then.ty);
        self.init_restore(before.clone(), false);
        let els = i.else_branch.as_ref().map(|(_, e)| match &**e {
            syn::Expr::Block(b) if b.label.is_none() => self.block(&b.block),
            other => {
                let inner = self.expr(other);
                Block {
                    stmts: Vec::new(),
                    ty: inner.ty.clone(),
                    tail: Some(Box::new(inner)),
                }
            }
        });
        let after_else = match &els {
            Some(b) => self.init_branch_end(&b.ty),
            None => self.init_snapshot(),
        };
        self.init_meet(vec![after_then, after_else]);
        let ty = match &els {
            None => self.if_without_else(&then.ty, &i.then_branch),
            Some(els) => {
                let at = &i.else_branch.as_ref().expect("present").1;
                self.join(&then.ty, &els.ty, at)
            }
        };
        Expr {
            kind: ExprKind::If(Box::new(cond), then, els),
            ty,
            span,
        }
    }

    /// The value of an `if` condition that the compiler decides, `gpu::__redux_supported::<T>()`
    /// (a mistake in it reported, and taken as `false`); `None` for any other condition.
    fn static_condition(&mut self, cond: &syn::Expr) -> Option<bool> {
        let syn::Expr::Call(c) = strip_parens(cond) else {
            return None;
        };
        let syn::Expr::Path(p) = strip_parens(&c.func) else {
            return None;
        };
        let (name, explicit) = gpu_path_name(&p.path)?;
        if name != "__redux_supported" || (!explicit && self.lookup(&name).is_some()) {
            return None;
        }
        Some(self.redux_supported(p, c).unwrap_or(false))
    }

    /// `if` on a condition the compiler decides: only the branch taken is checked and
    /// compiled (as `#[cfg]` would), so the other may use what its types or the target lack
    /// (`gpu::__redux_add_sync` on `f32`). rustc still checks both as Rust.
    fn static_if(&mut self, i: &syn::ExprIf, taken: bool) -> Expr {
        let span = span_of(i);
        if taken {
            let then = self.block(&i.then_branch);
            let ty = if i.else_branch.is_some() {
                then.ty.clone()
            } else {
                self.if_without_else(&then.ty, &i.then_branch)
            };
            return Expr {
                kind: ExprKind::Block(then),
                ty,
                span,
            };
        }
        match &i.else_branch {
            Some((_, e)) => self.expr(e),
            None => Expr {
                kind: ExprKind::Unit,
                ty: Ty::Unit,
                span,
            },
        }
    }

    /// The type of an `if` without `else`: `()`, which its branch must be unless it diverges.
    fn if_without_else(&mut self, then: &Ty, at: &syn::Block) -> Ty {
        if !matches!(self.infer.shallow(then), Ty::Never) {
            self.unify_at(&Ty::Unit, then, at, "an `if` without `else`");
        }
        Ty::Unit
    }

    /// The type of two branches that meet: `!` gives way to the other.
    pub(super) fn join(&mut self, a: &Ty, b: &Ty, at: impl ToTokens) -> Ty {
        match (self.infer.shallow(a), self.infer.shallow(b)) {
            (Ty::Never, _) => b.clone(),
            (_, Ty::Never) => a.clone(),
            _ => {
                self.unify_at(a, b, at, "this branch (like the first branch)");
                a.clone()
            }
        }
    }
}

/// `2.0` for the integer literal `2` next to a float, else a cast of `e` to `to`.
fn float_literal(e: &syn::Expr, to: Scalar) -> String {
    match strip_parens(e) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) if i.suffix().is_empty() => format!("a float literal, `{}.0`", i.base10_digits()),
        _ => format!("`{}`", source::cast_text(e, to.name())),
    }
}

/// Removes parentheses and invisible groups.
pub(super) fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}

/// What to say about `println!` spelled without `gpu::`.
pub(super) const PRINT_HELP: &str = "in a kernel, print with `gpu::println!` or `gpu::print!` (the GPU's printf; the output appears at the stream's next synchronisation)";

/// What to say about an expression kind kernels do not support.
fn unsupported_expr_message(e: &syn::Expr) -> String {
    match e {
        syn::Expr::Closure(_) => {
            "closures are not supported in kernels; write a `#[device]` function".into()
        }
        syn::Expr::Macro(m) => {
            let name = m
                .mac
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            match name.as_str() {
                "vec" => {
                    let tokens = &m.mac.tokens;
                    match syn::parse2::<syn::Expr>(quote::quote!([#tokens])) {
                        Ok(array) => format!("heap allocation is not available in kernels; use a local array, `{}`, or take a `&mut [T]` parameter", source::expr_text(&array)),
                        Err(_) => "heap allocation is not available in kernels; use a local array such as `[0.0f32; 8]`, or take a `&mut [T]` parameter".into(),
                    }
                }
                "println" | "print" | "eprintln" | "eprint" => PRINT_HELP.into(),
                "format" | "write" | "writeln" => "strings cannot be built in kernels; print with `gpu::println!(\"x = {}\", x)`".into(),
                "todo" | "unimplemented" => {
                    format!("`{name}!` is not supported in kernels; write `panic!(\"..\")`")
                }
                _ => format!("macros are not expanded inside kernels: `{name}!` cannot be used here"),
            }
        }
        syn::Expr::Reference(r) => format!(
            "references cannot be taken here; use `{}` itself (`&mut place` is only for the first argument of an atomic, `&x` only to pass a slice to a `#[device]` function)",
            source::expr_text(&r.expr)
        ),
        syn::Expr::Range(_) => "ranges can only be iterated by `for` in kernels".into(),
        syn::Expr::Struct(_) => {
            "structs are not supported in kernels; use tuples or separate values".into()
        }
        syn::Expr::Unsafe(_) => "`unsafe` blocks are not needed in kernels; remove `unsafe`".into(),
        syn::Expr::Async(_) | syn::Expr::Await(_) => "`async` is not supported in kernels".into(),
        syn::Expr::Try(_) => "the `?` operator is not supported in kernels".into(),
        syn::Expr::Let(_) => "`let` expressions are not supported in kernels".into(),
        syn::Expr::Yield(_) => "`yield` is not supported in kernels".into(),
        _ => format!("`{}` is not supported in kernels", source::expr_text(e)),
    }
}
