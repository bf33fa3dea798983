//! `const` and `static` items: those of the kernel's module (read from its file, see
//! `crate::consts`) and those declared in a body, and const generic parameters.
//!
//! Their values are computed here, when the kernel is compiled: literals, other constants,
//! arithmetic, comparisons, `as` casts, array literals and indexing, and the constants of
//! the scalar types (`u32::MAX`). A scalar constant becomes a literal where it is used; an
//! array constant or a `static` table becomes a hidden read-only local that the lowering
//! places in constant memory (`Function::constants`) and the simulator binds once.

use std::rc::Rc;

use proc_macro2::TokenStream;
use quote::ToTokens;

use super::builtins::{self, ConstValue};
use super::expr::gpu_path_name;
use super::{source, Checker};
use crate::consts::{ItemKind, ModuleItems};
use crate::ir::{Expr, ExprKind, Local, LocalId, Place};
use crate::ty::{Scalar, Ty};

/// Tables (array constants) larger than this many scalars are an error: constant memory
/// holds 64 KiB.
const TABLE_LIMIT: u64 = 16 * 1024;

/// A constant's value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CValue {
    Int(i128),
    Float(f64),
    Bool(bool),
    Array(Vec<CValue>),
    /// A struct's fields in declaration order, or a tuple's elements.
    Tuple(Vec<CValue>),
}

/// Which item: one of the module's (by name) or one declared in a body (by number).
#[derive(Clone, Debug, PartialEq)]
enum Key {
    Module(String),
    Body(usize),
}

/// A `const` or `static` declared in a block of the body.
struct BodyItem {
    id: usize,
    name: String,
    kind: ItemKind,
    ty: Rc<syn::Type>,
    expr: Rc<syn::Expr>,
}

/// The type of a value being computed: known, or that of an unsuffixed literal.
#[derive(Clone, Debug, PartialEq)]
enum CTy {
    Known(Ty),
    Int,
    Float,
}

/// Why a value cannot be computed: the tokens to point at and the message.
struct Fail(TokenStream, String);

type Eval = Result<(CTy, CValue), Fail>;

/// What a name of a constant gives where it is used.
pub(super) enum ConstUse {
    /// A scalar: its literal.
    Value(Expr),
    /// An array or a `static`: a place rooted at its hidden local.
    Table(Place),
    /// Its definition has an error (already reported).
    Failed,
}

/// The constants one function can see, and what using them made.
#[derive(Default)]
pub(crate) struct ConstState {
    /// The items of the function's module.
    pub module: ModuleItems,
    /// Const generic parameters of this instance: name, type, value.
    pub params: Vec<(String, Scalar, i128)>,
    body: Vec<Vec<BodyItem>>,
    next_body_id: usize,
    cache: Vec<(Key, Option<(Ty, CValue)>)>,
    evaluating: Vec<Key>,
    tables: Vec<(Key, LocalId)>,
    /// Hidden locals holding tables, with their values.
    pub constants: Vec<(LocalId, Expr)>,
    /// The module's items named by this function, with their values.
    pub used: Vec<(String, Expr)>,
    /// Set while a function of another module is checked inline: its items are not
    /// nameable in the kernel's module, so they are not recorded in `used`.
    elsewhere: bool,
}

/// What [`ConstState::enter_module`] replaced.
pub(crate) struct ModuleScope {
    module: ModuleItems,
    cache: Vec<(Key, Option<(Ty, CValue)>)>,
    tables: Vec<(Key, LocalId)>,
    elsewhere: bool,
}

impl ConstState {
    /// Makes `module`'s items the ones names resolve to (a device function of another
    /// module checked inline), until [`ConstState::leave_module`].
    pub(crate) fn enter_module(&mut self, module: ModuleItems) -> ModuleScope {
        ModuleScope {
            module: std::mem::replace(&mut self.module, module),
            cache: std::mem::take(&mut self.cache),
            tables: std::mem::take(&mut self.tables),
            elsewhere: std::mem::replace(&mut self.elsewhere, true),
        }
    }

    /// Restores what [`ConstState::enter_module`] replaced.
    pub(crate) fn leave_module(&mut self, scope: ModuleScope) {
        self.module = scope.module;
        self.cache = scope.cache;
        self.tables = scope.tables;
        self.elsewhere = scope.elsewhere;
    }
}

impl ConstState {
    /// The item `name` resolves to: the innermost block's first, then the module's.
    fn find(&self, name: &str) -> Option<(Key, ItemKind, Rc<syn::Type>, Rc<syn::Expr>)> {
        for scope in self.body.iter().rev() {
            if let Some(b) = scope.iter().find(|b| b.name == name) {
                return Some((Key::Body(b.id), b.kind, b.ty.clone(), b.expr.clone()));
            }
        }
        self.module.get(name).map(|m| {
            (
                Key::Module(name.into()),
                m.kind,
                m.ty.clone(),
                m.expr.clone(),
            )
        })
    }
}

impl Checker<'_> {
    /// Opens a block: its `const` and `static` items are visible in all of it.
    pub(super) fn enter_block_items(&mut self, b: &syn::Block) {
        let mut items = Vec::new();
        for s in &b.stmts {
            let syn::Stmt::Item(item) = s else { continue };
            let (name, kind, ty, expr) = match item {
                syn::Item::Const(c) => (&c.ident, ItemKind::Const, &*c.ty, &*c.expr),
                syn::Item::Static(s) => {
                    let kind = if matches!(s.mutability, syn::StaticMutability::Mut(_)) {
                        ItemKind::StaticMut
                    } else {
                        ItemKind::Static
                    };
                    (&s.ident, kind, &*s.ty, &*s.expr)
                }
                _ => continue,
            };
            if !crate::consts::shallow(expr, crate::consts::MAX_CONST_DEPTH) {
                self.error(
                    name,
                    format!("the value of `{name}` nests more than {} levels deep, more than Cuprum's compiler handles; split it into several constants", crate::consts::MAX_CONST_DEPTH),
                );
                // Its uses are not reported again.
                self.consts.next_body_id += 1;
                items.push(BodyItem {
                    id: self.consts.next_body_id,
                    name: name.to_string(),
                    kind,
                    ty: Rc::new(ty.clone()),
                    expr: Rc::new(syn::Expr::Verbatim(TokenStream::new())),
                });
                self.consts
                    .cache
                    .push((Key::Body(self.consts.next_body_id), None));
                continue;
            }
            self.consts.next_body_id += 1;
            items.push(BodyItem {
                id: self.consts.next_body_id,
                name: name.to_string(),
                kind,
                ty: Rc::new(ty.clone()),
                expr: Rc::new(expr.clone()),
            });
        }
        self.consts.body.push(items);
    }

    /// Closes a block opened by [`Checker::enter_block_items`].
    pub(super) fn leave_block_items(&mut self) {
        self.consts.body.pop();
    }

    /// Checks a `const` or `static` item of a body where it is declared (so that an error in
    /// it is reported even when nothing uses it). False for other items.
    pub(super) fn body_item(&mut self, item: &syn::Item) -> bool {
        let ident = match item {
            syn::Item::Const(c) if c.generics.params.is_empty() => &c.ident,
            syn::Item::Static(s) => &s.ident,
            _ => return false,
        };
        let _ = self.named_const(ident, true);
        true
    }

    /// Whether local `id` is a hidden table (which cannot be assigned).
    pub(super) fn is_table(&self, id: LocalId) -> bool {
        self.consts.tables.iter().any(|(_, l)| *l == id)
    }

    /// What the name `ident` means as a constant, or `None` when it names none.
    /// `declaration` is true at the item itself (errors point into it either way).
    pub(super) fn named_const(
        &mut self,
        ident: &syn::Ident,
        declaration: bool,
    ) -> Option<ConstUse> {
        let name = ident.to_string();
        if let Some((_, s, v)) = self.consts.params.iter().find(|(n, ..)| *n == name) {
            return Some(ConstUse::Value(literal_expr(
                &Ty::Scalar(*s),
                &CValue::Int(*v),
                ident.span(),
            )));
        }
        let (key, kind, _, _) = self.consts.find(&name)?;
        if kind == ItemKind::Ambiguous {
            if !self.consts.cache.iter().any(|(k, _)| *k == key) {
                self.error(ident, format!("`{name}` is defined more than once in this module (under different `#[cfg]`s, say), and the kernel compiler cannot tell which definition applies: define it once, or give the variants different names"));
                self.consts.cache.push((key, None));
            }
            return Some(ConstUse::Failed);
        }
        if kind == ItemKind::StaticMut {
            if !declaration || matches!(key, Key::Body(_)) {
                self.error(ident, format!("`static mut {name}` cannot be used in kernels: every thread would race on it; pass the value as a parameter, or a `&mut [T]` to write to"));
            }
            return Some(ConstUse::Failed);
        }
        let (ty, value) = match self.item_value(&name, ident) {
            Some(v) => v,
            None => return Some(ConstUse::Failed),
        };
        if declaration {
            return Some(ConstUse::Failed);
        }

        if let Ty::Scalar(_) | Ty::Enum(_) = ty {
            return Some(ConstUse::Value(literal_expr(&ty, &value, ident.span())));
        }
        let id = match self.consts.tables.iter().find(|(k, _)| *k == key) {
            Some((_, id)) => *id,
            None => {
                self.locals.push(Local {
                    name: name.clone(),
                    ty: ty.clone(),
                    mutable: false,
                    span: ident.span(),
                });
                let id = self.locals.len() - 1;
                self.consts.tables.push((key, id));
                let init = literal_expr(&ty, &value, ident.span());
                self.consts.constants.push((id, init));
                id
            }
        };
        Some(ConstUse::Table(Place {
            base: id,
            proj: Vec::new(),
            ty,
        }))
    }

    /// The type and value of the item `name` (computed once); errors are reported, at the
    /// item for one in the body and at `used` for one of the module (whose tokens the
    /// compiler has no place for).
    fn item_value(&mut self, name: &str, used: &syn::Ident) -> Option<(Ty, CValue)> {
        let (key, _, ty, expr) = self.consts.find(name)?;
        if let Some((_, v)) = self.consts.cache.iter().find(|(k, _)| *k == key) {
            return v.clone();
        }
        if self.consts.evaluating.contains(&key) {
            self.error(
                used,
                format!("the constant `{name}` is defined in terms of itself"),
            );
            return None;
        }
        let module = matches!(key, Key::Module(_));
        // A module item's own names resolve among the module's items only.
        let saved_body = if module {
            Some(std::mem::take(&mut self.consts.body))
        } else {
            None
        };
        self.consts.evaluating.push(key.clone());
        let result = self.const_type(&ty).and_then(|t| {
            let (ct, v) = self.eval(&expr, Some(&t))?;
            let v = fit(&ct, v, &t, &expr)?;
            Ok((t, v))
        });
        self.consts.evaluating.pop();
        if let Some(b) = saved_body {
            self.consts.body = b;
        }
        let out = match result {
            Ok((t, v)) => {
                let param = self.consts.module.get(name).map(|m| m.kind) == Some(ItemKind::Param);
                if module && !param && !self.consts.elsewhere {
                    self.consts
                        .used
                        .push((name.to_string(), literal_expr(&t, &v, used.span())));
                }
                Some((t, v))
            }
            Err(Fail(at, msg)) => {
                if msg.is_empty() {
                    // Reported where it went wrong (a cycle, nesting too deep).
                } else if module {
                    let text = source::type_text(&ty);
                    self.error(
                        used,
                        format!("the constant `{name}: {text}` (defined outside the kernel) cannot be used in kernels: {msg}"),
                    );
                } else {
                    self.error(at, msg);
                }
                None
            }
        };
        self.consts.cache.push((key, out.clone()));
        out
    }

    /// `P::NAME` for an associated `const` of a `#[device] impl P`: its type and value,
    /// computed where used (`None` when `p` names no such constant).
    fn assoc_const(&mut self, p: &syn::ExprPath) -> Option<Eval> {
        let [ty, name] = p.path.segments.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        if p.qself.is_some() {
            return None;
        }
        let (t, e) = self
            .consts
            .module
            .impl_const(&ty.ident.to_string(), &name.ident.to_string())?;
        let evaluated = self.const_type(&t).and_then(|want| {
            let (ct, v) = self.eval(&e, Some(&want))?;
            let v = fit(&ct, v, &want, &e)?;
            Ok((CTy::Known(want), v))
        });
        // Tokens read from the file have no place in the user's code: errors go to the use.
        Some(evaluated.map_err(|Fail(_, msg)| Fail(p.to_token_stream(), msg)))
    }

    /// The value of `P::NAME` (an associated `const` of a `#[device] impl P`) where a value
    /// is expected; `None` when `p` names no such constant.
    pub(super) fn assoc_const_value(&mut self, p: &syn::ExprPath) -> Option<Expr> {
        let span = super::span_of(p);
        Some(match self.assoc_const(p)? {
            Ok((CTy::Known(ty), v)) => literal_expr(&ty, &v, span),
            Ok(_) => super::error_expr(span),
            Err(Fail(at, msg)) => {
                if !msg.is_empty() {
                    let text = source::expr_text(&p.path);
                    self.error(
                        at,
                        format!("`{text}` is not computable at compile time: {msg}"),
                    );
                }
                super::error_expr(span)
            }
        })
    }

    /// The type of a constant: scalars, `DeviceCopy` structs and enums, and arrays and
    /// tuples of them.
    fn const_type(&mut self, ty: &syn::Type) -> Result<Ty, Fail> {
        match ty {
            syn::Type::Tuple(t) if !t.elems.is_empty() => {
                let tys = t
                    .elems
                    .iter()
                    .map(|e| self.const_type(e))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Ty::Tuple(tys))
            }
            syn::Type::Path(p) if p.qself.is_none() && self.user_type_named(ty) => {
                // Reported at the type's use in the kernel, with the definition's own
                // problem (the tokens of a module item have no place in the user's code).
                let before = self.errors.len();
                let t = self.user_type(ty).flatten();
                let why = self.errors.drain(before..).next();
                match (t, why) {
                    (Some(t), _) => Ok(t),
                    (None, Some(e)) => Err(Fail(p.to_token_stream(), e.to_string())),
                    (None, None) => Err(bad_type(ty)),
                }
            }
            syn::Type::Paren(p) => self.const_type(&p.elem),
            syn::Type::Group(g) => self.const_type(&g.elem),
            syn::Type::Array(a) => {
                let elem = self.const_type(&a.elem)?;
                let n = self.eval_usize(&a.len)?;
                if scalars_in(&elem).saturating_mul(n) > TABLE_LIMIT {
                    return Err(Fail(
                        ty.to_token_stream(),
                        format!("a constant table holds at most {TABLE_LIMIT} values (constant memory is 64 KiB); keep large data in a `&[T]` parameter"),
                    ));
                }
                Ok(Ty::Array(Box::new(elem), n))
            }
            syn::Type::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(i) => match self.scalar_named(&i.to_string()) {
                    Some(s) => Ok(Ty::Scalar(s)),
                    None => Err(bad_type(ty)),
                },
                None => Err(bad_type(ty)),
            },
            _ => Err(bad_type(ty)),
        }
    }

    /// A constant `usize`, such as an array length.
    fn eval_usize(&mut self, e: &syn::Expr) -> Result<u64, Fail> {
        let (ct, v) = self.eval(e, Some(&Ty::USIZE))?;
        match fit(&ct, v, &Ty::USIZE, e)? {
            CValue::Int(n) => Ok(n as u64),
            _ => unreachable!("a usize is an integer"),
        }
    }

    /// An array length or shared-array size written as a constant expression (`8`, `N`,
    /// `{ TILE + 1 }`); reports and returns `None` when it is not one.
    /// `hint` ends the message.
    pub(super) fn const_usize(&mut self, e: &syn::Expr, what: &str, hint: &str) -> Option<u64> {
        match self.eval_usize(e) {
            Ok(n) => Some(n),
            Err(Fail(at, msg)) => {
                if !msg.is_empty() {
                    let text = source::expr_text(e);
                    self.error(at, format!("{what} must be constants, like `8`, `N` or `{{ N + 1 }}`, not `{text}`: {msg}{hint}"));
                }
                None
            }
        }
    }

    /// An integer constant of type `s` (a const generic argument); reports and returns
    /// `None` when `e` is not one.
    pub(super) fn const_scalar(&mut self, e: &syn::Expr, s: Scalar, what: &str) -> Option<i128> {
        let ty = Ty::Scalar(s);
        let result = self
            .eval(e, Some(&ty))
            .and_then(|(ct, v)| fit(&ct, v, &ty, e));
        match result {
            Ok(CValue::Int(v)) => Some(v),
            Ok(_) => None,
            Err(Fail(at, msg)) => {
                if !msg.is_empty() {
                    let text = source::expr_text(e);
                    self.error(at, format!("{what} must be constants, not `{text}`: {msg}"));
                }
                None
            }
        }
    }

    /// Computes a constant expression; `want` is the type the context expects.
    fn eval(&mut self, e: &syn::Expr, want: Option<&Ty>) -> Eval {
        if !self.enter(e) {
            // Reported by `enter`.
            return Err(Fail(TokenStream::new(), String::new()));
        }
        let v = self.eval_here(e, want);
        self.depth -= 1;
        v
    }

    fn eval_here(&mut self, e: &syn::Expr, want: Option<&Ty>) -> Eval {
        let want_scalar = want.and_then(Ty::as_scalar);
        match e {
            syn::Expr::Paren(p) => self.eval(&p.expr, want),
            syn::Expr::Group(g) => self.eval(&g.expr, want),
            syn::Expr::Block(b) if b.block.stmts.len() == 1 && b.label.is_none() => {
                match &b.block.stmts[0] {
                    syn::Stmt::Expr(x, None) => self.eval(x, want),
                    _ => Err(not_const(e, "only a single expression can be computed here")),
                }
            }
            syn::Expr::Lit(l) => literal(&l.lit, want_scalar),
            syn::Expr::Path(p) => self.eval_path(p),
            syn::Expr::Unary(u) => {
                let (t, v) = self.eval(&u.expr, want)?;
                match (&u.op, v) {
                    (syn::UnOp::Neg(_), CValue::Int(x)) => {
                        if let CTy::Known(Ty::Scalar(s)) = &t {
                            if !s.is_signed() {
                                return Err(not_const(e, &format!("cannot negate an unsigned `{}`", s.name())));
                            }
                        }
                        let neg = x.checked_neg().ok_or_else(|| not_const(e, "it overflows"))?;
                        Ok((t.clone(), check_range(&t, neg, e)?))
                    }
                    (syn::UnOp::Neg(_), CValue::Float(x)) => Ok((t, CValue::Float(-x))),
                    (syn::UnOp::Not(_), CValue::Bool(b)) => Ok((t, CValue::Bool(!b))),
                    (syn::UnOp::Not(_), CValue::Int(x)) => {
                        let s = scalar_of(&t).unwrap_or(Scalar::I32);
                        Ok((t, CValue::Int(wrap(!x, s))))
                    }
                    _ => Err(not_const(e, "this operator cannot be computed here")),
                }
            }
            syn::Expr::Binary(b) => self.eval_binary(b, want),
            syn::Expr::Cast(c) => {
                let to = self.const_type(&c.ty)?;
                let Ty::Scalar(s) = to else {
                    return Err(not_const(e, "only scalars can be cast"));
                };
                let (t, v) = self.eval(&c.expr, None)?;
                let v = match (v, &t) {
                    (CValue::Int(x), _) if s.is_int() => CValue::Int(wrap(x, s)),
                    (CValue::Int(x), _) if s == Scalar::F32 => CValue::Float(x as f32 as f64),
                    (CValue::Int(x), _) if s == Scalar::F64 => CValue::Float(x as f64),
                    (CValue::Float(x), _) if s.is_int() => {
                        let (lo, hi) = s.int_range().expect("an integer type");
                        CValue::Int(if x.is_nan() { 0 } else { (x.trunc().clamp(lo as f64, hi as f64)) as i128 })
                    }
                    (CValue::Float(x), _) if s == Scalar::F32 => CValue::Float(x as f32 as f64),
                    (CValue::Float(x), _) if s == Scalar::F64 => CValue::Float(x),
                    (CValue::Bool(x), _) if s.is_int() => CValue::Int(x as i128),
                    (CValue::Bool(x), _) if s == Scalar::Bool => CValue::Bool(x),
                    _ => return Err(not_const(e, &format!("this value cannot be cast to `{}`", s.name()))),
                };
                Ok((CTy::Known(Ty::Scalar(s)), v))
            }
            syn::Expr::Array(a) => {
                let elem_want = match want {
                    Some(Ty::Array(t, _)) => Some((**t).clone()),
                    _ => None,
                };
                let mut elem_ty: Option<CTy> = elem_want.clone().map(CTy::Known);
                let mut vals = Vec::new();
                for x in &a.elems {
                    let w = match &elem_ty {
                        Some(CTy::Known(t)) => Some(t.clone()),
                        _ => None,
                    };
                    let (t, v) = self.eval(x, w.as_ref())?;
                    let v = match &elem_ty {
                        Some(CTy::Known(k)) => fit(&t, v, k, x)?,
                        _ => v,
                    };
                    if !matches!(elem_ty, Some(CTy::Known(_))) {
                        elem_ty = Some(t);
                    }
                    vals.push(v);
                }
                let Some(CTy::Known(et)) = elem_ty else {
                    return Err(not_const(e, "write the element type: `const T: [f32; 3] = [..]`"));
                };
                let n = vals.len() as u64;
                Ok((CTy::Known(Ty::Array(Box::new(et), n)), CValue::Array(vals)))
            }
            syn::Expr::Repeat(r) => {
                let elem_want = match want {
                    Some(Ty::Array(t, _)) => Some((**t).clone()),
                    _ => None,
                };
                let (t, v) = self.eval(&r.expr, elem_want.as_ref())?;
                let et = match (elem_want, &t) {
                    (Some(k), _) => k,
                    (None, CTy::Known(k)) => k.clone(),
                    _ => return Err(not_const(e, "write the element type: `const T: [f32; 3] = [..]`")),
                };
                let v = fit(&t, v, &et, &r.expr)?;
                let n = self.eval_usize(&r.len)?;
                if scalars_in(&et).saturating_mul(n) > TABLE_LIMIT {
                    return Err(not_const(e, &format!("a constant table holds at most {TABLE_LIMIT} values")));
                }
                Ok((CTy::Known(Ty::Array(Box::new(et), n)), CValue::Array(vec![v; n as usize])))
            }
            syn::Expr::Index(ix) => {
                let (t, v) = self.eval(&ix.expr, None)?;
                let i = self.eval_usize(&ix.index)?;
                match (t, v) {
                    (CTy::Known(Ty::Array(et, n)), CValue::Array(vals)) => match vals.get(i as usize) {
                        Some(x) => Ok((CTy::Known(*et), x.clone())),
                        None => Err(not_const(&ix.index, &format!("index {i} is out of bounds of an array of {n}"))),
                    },
                    _ => Err(not_const(&ix.expr, "only arrays can be indexed")),
                }
            }
            syn::Expr::Struct(s) => self.eval_struct(s, want),
            syn::Expr::Tuple(t) => self.eval_tuple(t, want),
            syn::Expr::Field(f) => {
                let (t, v) = self.eval(&f.base, None)?;
                let member = match &f.member {
                    syn::Member::Named(i) => i.to_string(),
                    syn::Member::Unnamed(i) => i.index.to_string(),
                };
                let (k, ft) = match &t {
                    CTy::Known(Ty::Struct(d)) => match d.field(&member) {
                        Some(k) => (k, d.fields[k].1.clone()),
                        None => return Err(not_const(&f.member, &format!("`{}` has no field `{member}`", d.name))),
                    },
                    CTy::Known(Ty::Tuple(ts)) => match member.parse::<usize>().ok().filter(|k| *k < ts.len()) {
                        Some(k) => (k, ts[k].clone()),
                        None => return Err(not_const(&f.member, &format!("the tuple has no field `{member}`"))),
                    },
                    _ => return Err(not_const(&f.base, "only structs and tuples have fields")),
                };
                let CValue::Tuple(vs) = v else {
                    return Err(not_const(&f.base, "only structs and tuples have fields"));
                };
                Ok((CTy::Known(ft), vs[k].clone()))
            }
            syn::Expr::Call(c) if self.is_tuple_struct_path(&c.func) => self.eval_tuple_struct(c),
            syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Macro(_) => Err(not_const(
                e,
                "function calls are not computed when the kernel is compiled; write the value, or arithmetic on literals and other constants",
            )),
            _ => Err(not_const(
                e,
                "it is not computable when the kernel is compiled (constants are literals, other constants, arithmetic, comparisons, `as` casts and arrays of them)",
            )),
        }
    }

    /// A name in a constant expression.
    fn eval_path(&mut self, p: &syn::ExprPath) -> Eval {
        if let Some(v) = self.assoc_const(p) {
            return v;
        }
        if let Some(e) = self.enum_variant_quiet(p) {
            return match e {
                Some(e) => match e.kind {
                    ExprKind::Int(v) => Ok((CTy::Known(e.ty), CValue::Int(v))),
                    _ => Err(not_const(p, "this is not an enum variant")),
                },
                None => Err(not_const(
                    p,
                    &format!(
                        "`{}` is not a variant of that enum",
                        source::expr_text(&p.path)
                    ),
                )),
            };
        }
        if let (Some(ident), None) = (p.path.get_ident(), &p.qself) {
            let name = ident.to_string();
            if let Some((_, s, v)) = self.consts.params.iter().find(|(n, ..)| *n == name) {
                return Ok((CTy::Known(Ty::Scalar(*s)), CValue::Int(*v)));
            }
            if self.lookup(&name).is_some() {
                return Err(not_const(
                    p,
                    &format!("`{name}` is a variable, known only when the kernel runs"),
                ));
            }
            if let Some((_, kind, ..)) = self.consts.find(&name) {
                if kind == ItemKind::Ambiguous {
                    // Reported once, by `named_const`.
                    let _ = self.named_const(ident, false);
                    return Err(Fail(p.to_token_stream(), String::new()));
                }
                if kind == ItemKind::StaticMut {
                    return Err(not_const(
                        p,
                        &format!("`static mut {name}` is not a constant"),
                    ));
                }
                return match self.item_value(&name, ident) {
                    Some((t, v)) => Ok((CTy::Known(t), v)),
                    // Reported already; an empty message is not reported again.
                    None => Err(Fail(p.to_token_stream(), String::new())),
                };
            }
            if let Some(ConstValue::Int(s, v)) = builtins::gpu_constant(&name) {
                return Ok((CTy::Known(Ty::Scalar(s)), CValue::Int(v)));
            }
            return Err(not_const(p, &format!("cannot find the constant `{name}`; a kernel sees the `const` and `static` items of its own module and body (for one defined elsewhere, write `const {name}: T = path::{name};` next to the kernel)")));
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
                builtins::scalar_constant(self.scalar_named(ty).expect("checked"), name)
            }
            ["core" | "std", ty, "consts", name] | [ty, "consts", name]
                if self.scalar_named(ty).is_some() =>
            {
                builtins::scalar_constant(self.scalar_named(ty).expect("checked"), name)
            }
            _ => gpu_path_name(&p.path).and_then(|(n, _)| builtins::gpu_constant(&n)),
        };
        match value {
            Some(ConstValue::Int(s, v)) => Ok((CTy::Known(Ty::Scalar(s)), CValue::Int(v))),
            Some(ConstValue::Float(s, v)) => Ok((CTy::Known(Ty::Scalar(s)), CValue::Float(v))),
            None => Err(not_const(
                p,
                &format!(
                    "`{}` is not a constant a kernel knows",
                    source::expr_text(&p.path)
                ),
            )),
        }
    }

    fn eval_binary(&mut self, b: &syn::ExprBinary, want: Option<&Ty>) -> Eval {
        use syn::BinOp as B;
        let e = &syn::Expr::Binary(b.clone());
        match b.op {
            B::And(_) | B::Or(_) => {
                let (_, l) = self.eval(&b.left, Some(&Ty::BOOL))?;
                let (_, r) = self.eval(&b.right, Some(&Ty::BOOL))?;
                match (l, r) {
                    (CValue::Bool(l), CValue::Bool(r)) => Ok((
                        CTy::Known(Ty::BOOL),
                        CValue::Bool(if matches!(b.op, B::And(_)) {
                            l && r
                        } else {
                            l || r
                        }),
                    )),
                    _ => Err(not_const(e, "`&&` and `||` take `bool`s")),
                }
            }
            B::Eq(_) | B::Ne(_) | B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) => {
                let (lt, l) = self.eval(&b.left, None)?;
                let rw = match &lt {
                    CTy::Known(t) => Some(t.clone()),
                    _ => None,
                };
                let (rt, r) = self.eval(&b.right, rw.as_ref())?;
                let (_, l, r) = unify(lt, l, rt, r, e)?;
                let ord = match (&l, &r) {
                    (CValue::Int(a), CValue::Int(b)) => a.partial_cmp(b),
                    (CValue::Float(a), CValue::Float(b)) => a.partial_cmp(b),
                    (CValue::Bool(a), CValue::Bool(b)) => a.partial_cmp(b),
                    _ => return Err(not_const(e, "only scalars can be compared here")),
                };
                use std::cmp::Ordering::*;
                let v = match b.op {
                    B::Eq(_) => ord == Some(Equal),
                    B::Ne(_) => ord != Some(Equal),
                    B::Lt(_) => ord == Some(Less),
                    B::Le(_) => matches!(ord, Some(Less | Equal)),
                    B::Gt(_) => ord == Some(Greater),
                    _ => matches!(ord, Some(Greater | Equal)),
                };
                Ok((CTy::Known(Ty::BOOL), CValue::Bool(v)))
            }
            B::Shl(_) | B::Shr(_) => {
                let (lt, l) = self.eval(&b.left, want)?;
                let (_, r) = self.eval(&b.right, None)?;
                let (CValue::Int(l), CValue::Int(r)) = (l, r) else {
                    return Err(not_const(e, "shifts take integers"));
                };
                let s = scalar_of(&lt).unwrap_or(Scalar::I32);
                if r < 0 || r >= s.bits() as i128 {
                    return Err(not_const(
                        e,
                        &format!("shifting a `{}` by {r} overflows", s.name()),
                    ));
                }
                let v = if matches!(b.op, B::Shl(_)) {
                    wrap(l << r, s)
                } else {
                    l >> r
                };
                Ok((lt, CValue::Int(v)))
            }
            _ => {
                let (lt, l) = self.eval(&b.left, want)?;
                let rw = match &lt {
                    CTy::Known(t) => Some(t.clone()),
                    _ => want.cloned(),
                };
                let (rt, r) = self.eval(&b.right, rw.as_ref())?;
                let (t, l, r) = unify(lt, l, rt, r, e)?;
                let v = match (l, r) {
                    (CValue::Int(l), CValue::Int(r)) => {
                        let v = match b.op {
                            B::Add(_) => l.checked_add(r),
                            B::Sub(_) => l.checked_sub(r),
                            B::Mul(_) => l.checked_mul(r),
                            B::Div(_) | B::Rem(_) if r == 0 => {
                                return Err(not_const(e, "it divides by zero"))
                            }
                            B::Div(_) => l.checked_div(r),
                            B::Rem(_) => l.checked_rem(r),
                            B::BitAnd(_) => Some(l & r),
                            B::BitOr(_) => Some(l | r),
                            B::BitXor(_) => Some(l ^ r),
                            _ => return Err(not_const(e, "this operator cannot be computed here")),
                        };
                        let v = v.ok_or_else(|| not_const(e, "it overflows"))?;
                        check_range(&t, v, e)?
                    }
                    (CValue::Float(l), CValue::Float(r)) => {
                        let v = match b.op {
                            B::Add(_) => l + r,
                            B::Sub(_) => l - r,
                            B::Mul(_) => l * r,
                            B::Div(_) => l / r,
                            B::Rem(_) => l % r,
                            _ => {
                                return Err(not_const(e, "this operator does not apply to floats"))
                            }
                        };
                        // f32 arithmetic: each result rounded to f32 (exact for these
                        // operations on f32 operands computed in f64).
                        CValue::Float(if scalar_of(&t) == Some(Scalar::F32) {
                            v as f32 as f64
                        } else {
                            v
                        })
                    }
                    (CValue::Bool(l), CValue::Bool(r)) => CValue::Bool(match b.op {
                        B::BitAnd(_) => l & r,
                        B::BitOr(_) => l | r,
                        B::BitXor(_) => l ^ r,
                        _ => return Err(not_const(e, "this operator does not apply to `bool`")),
                    }),
                    _ => return Err(not_const(e, "this operator cannot be computed here")),
                };
                Ok((t, v))
            }
        }
    }

    /// A struct literal in a constant, `P { a: 1.0, b: [0; 3] }`: every field given once.
    fn eval_struct(&mut self, s: &syn::ExprStruct, want: Option<&Ty>) -> Eval {
        let e = &syn::Expr::Struct(s.clone());
        let ty: syn::Type = syn::Type::Path(syn::TypePath {
            qself: s.qself.clone(),
            path: s.path.clone(),
        });
        let d = match self.const_type(&ty)? {
            Ty::Struct(d) => d,
            other => return Err(not_const(&s.path, &format!("`{other}` is not a struct"))),
        };
        if let Some(w) = want.filter(|w| **w != Ty::Struct(d.clone())) {
            return Err(not_const(
                e,
                &format!("mismatched types: expected `{w}`, found `{}`", d.name),
            ));
        }
        if let Some(rest) = &s.rest {
            return Err(not_const(
                rest,
                "`..base` is not computed in constants; give every field",
            ));
        }
        let mut values: Vec<Option<CValue>> = vec![None; d.fields.len()];
        for fv in &s.fields {
            let name = match &fv.member {
                syn::Member::Named(i) => i.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let Some(k) = d.field(&name) else {
                return Err(not_const(
                    &fv.member,
                    &format!("`{}` has no field `{name}`", d.name),
                ));
            };
            if values[k].is_some() {
                return Err(not_const(
                    &fv.member,
                    &format!("field `{name}` is given twice"),
                ));
            }
            let ft = d.fields[k].1.clone();
            let (t, v) = self.eval(&fv.expr, Some(&ft))?;
            values[k] = Some(fit(&t, v, &ft, &fv.expr)?);
        }
        let missing: Vec<&str> = d
            .fields
            .iter()
            .zip(&values)
            .filter(|(_, v)| v.is_none())
            .map(|((n, _), _)| n.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(not_const(
                &s.path,
                &format!("missing fields in `{}`: `{}`", d.name, missing.join("`, `")),
            ));
        }
        let values = values
            .into_iter()
            .map(|v| v.expect("every field"))
            .collect();
        Ok((CTy::Known(Ty::Struct(d)), CValue::Tuple(values)))
    }

    /// A tuple in a constant, `(1.0f32, 2u32)`; unsuffixed literals take the expected type,
    /// or Rust's defaults.
    fn eval_tuple(&mut self, t: &syn::ExprTuple, want: Option<&Ty>) -> Eval {
        if t.elems.is_empty() {
            return Err(not_const(t, "`()` is not a kernel constant"));
        }
        let wants: Vec<Option<Ty>> = match want {
            Some(Ty::Tuple(ts)) if ts.len() == t.elems.len() => {
                ts.iter().cloned().map(Some).collect()
            }
            _ => vec![None; t.elems.len()],
        };
        let mut tys = Vec::new();
        let mut vals = Vec::new();
        for (x, w) in t.elems.iter().zip(wants) {
            let (ct, v) = self.eval(x, w.as_ref())?;
            let ty = match (w, ct) {
                (Some(w), ct) => {
                    let v = fit(&ct, v, &w, x)?;
                    vals.push(v);
                    tys.push(w);
                    continue;
                }
                (None, CTy::Known(k)) => k,
                (None, CTy::Int) => Ty::Scalar(Scalar::I32),
                (None, CTy::Float) => Ty::Scalar(Scalar::F64),
            };
            let v = match v {
                CValue::Int(x) if ty == Ty::Scalar(Scalar::F64) => CValue::Float(x as f64),
                v => v,
            };
            tys.push(ty);
            vals.push(v);
        }
        Ok((CTy::Known(Ty::Tuple(tys)), CValue::Tuple(vals)))
    }

    /// Whether `f` (a called expression) names a tuple struct of the module.
    fn is_tuple_struct_path(&self, f: &syn::Expr) -> bool {
        match f {
            syn::Expr::Path(p) if p.qself.is_none() => p
                .path
                .get_ident()
                .and_then(|i| self.consts.module.get_struct(&i.to_string()))
                .is_some_and(|s| matches!(s.item.fields, syn::Fields::Unnamed(_))),
            _ => false,
        }
    }

    /// A tuple struct's constructor in a constant, `P(1.0, 2)`.
    fn eval_tuple_struct(&mut self, c: &syn::ExprCall) -> Eval {
        let syn::Expr::Path(p) = &*c.func else {
            return Err(not_const(c, "not a tuple struct"));
        };
        let ty: syn::Type = syn::Type::Path(syn::TypePath {
            qself: None,
            path: p.path.clone(),
        });
        let Ty::Struct(d) = self.const_type(&ty)? else {
            return Err(not_const(&c.func, "not a tuple struct"));
        };
        if c.args.len() != d.fields.len() {
            return Err(not_const(
                c,
                &format!(
                    "`{}` has {} field(s), but {} value(s) are given",
                    d.name,
                    d.fields.len(),
                    c.args.len()
                ),
            ));
        }
        let mut vals = Vec::new();
        for (a, (_, ft)) in c.args.iter().zip(&d.fields) {
            let (t, v) = self.eval(a, Some(ft))?;
            vals.push(fit(&t, v, ft, a)?);
        }
        Ok((CTy::Known(Ty::Struct(d)), CValue::Tuple(vals)))
    }
}

/// An IR literal for a constant's value.
pub(super) fn literal_expr(ty: &Ty, v: &CValue, span: proc_macro2::Span) -> Expr {
    let kind = match (v, ty) {
        (CValue::Tuple(xs), Ty::Struct(d)) => ExprKind::Tuple(
            xs.iter()
                .zip(&d.fields)
                .map(|(x, (_, t))| literal_expr(t, x, span))
                .collect(),
        ),
        (CValue::Tuple(xs), Ty::Tuple(ts)) => ExprKind::Tuple(
            xs.iter()
                .zip(ts)
                .map(|(x, t)| literal_expr(t, x, span))
                .collect(),
        ),
        (CValue::Tuple(_), t) => unreachable!("a tuple value of type {t}"),
        (CValue::Int(x), _) => ExprKind::Int(*x),
        (CValue::Float(x), _) => ExprKind::Float(*x),
        (CValue::Bool(x), _) => ExprKind::Bool(*x),
        (CValue::Array(xs), Ty::Array(et, _)) => {
            ExprKind::Array(xs.iter().map(|x| literal_expr(et, x, span)).collect())
        }
        (CValue::Array(_), t) => unreachable!("an array value of type {t}"),
    };
    Expr {
        kind,
        ty: ty.clone(),
        span,
    }
}

/// How many scalars a value of `ty` holds.
fn scalars_in(ty: &Ty) -> u64 {
    match ty {
        Ty::Array(t, n) => scalars_in(t).saturating_mul(*n),
        Ty::Tuple(ts) => ts.iter().map(scalars_in).fold(0, u64::saturating_add),
        Ty::Struct(d) => d
            .fields
            .iter()
            .map(|(_, t)| scalars_in(t))
            .fold(0, u64::saturating_add),
        _ => 1,
    }
}

fn scalar_of(t: &CTy) -> Option<Scalar> {
    match t {
        CTy::Known(Ty::Scalar(s)) => Some(*s),
        _ => None,
    }
}

fn not_const(at: impl ToTokens, why: &str) -> Fail {
    Fail(at.to_token_stream(), why.to_string())
}

fn bad_type(ty: &syn::Type) -> Fail {
    let text = source::type_text(ty);
    Fail(
        ty.to_token_stream(),
        format!("constants in kernels are scalars (`bool`, integers, `f32`, `f64`), `DeviceCopy` structs and enums, and arrays and tuples of them, not `{text}`"),
    )
}

/// Wraps an integer to the width of `s`, as `as` does.
fn wrap(v: i128, s: Scalar) -> i128 {
    if !s.is_int() {
        return v;
    }
    let bits = s.bits();
    let m = v & ((1i128 << bits) - 1);
    if s.is_signed() && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// An error unless integer `v` fits type `t`.
fn check_range(t: &CTy, v: i128, at: &syn::Expr) -> Result<CValue, Fail> {
    if let Some((lo, hi)) = scalar_of(t).and_then(Scalar::int_range) {
        if v < lo || v > hi {
            let s = scalar_of(t).expect("an integer type");
            return Err(not_const(
                at,
                &format!("its value {v} overflows `{}`", s.name()),
            ));
        }
    }
    Ok(CValue::Int(v))
}

/// Gives two operands one type (an unsuffixed literal takes the other's).
fn unify(
    lt: CTy,
    l: CValue,
    rt: CTy,
    r: CValue,
    at: &syn::Expr,
) -> Result<(CTy, CValue, CValue), Fail> {
    match (&lt, &rt) {
        (a, b) if a == b => Ok((lt, l, r)),
        (CTy::Known(t), _) => {
            let r = fit(&rt, r, t, at)?;
            Ok((lt, l, r))
        }
        (_, CTy::Known(t)) => {
            let l = fit(&lt, l, t, at)?;
            Ok((rt, l, r))
        }
        _ => Err(not_const(
            at,
            "an integer and a float cannot be mixed; write a float literal such as `2.0`",
        )),
    }
}

/// A value of type `from` as type `to`: unsuffixed literals take `to`; anything else must
/// already be `to`.
fn fit(from: &CTy, v: CValue, to: &Ty, at: &impl ToTokens) -> Result<CValue, Fail> {
    match (from, to, v) {
        (CTy::Known(f), t, v) if f == t => Ok(v),
        (CTy::Int, Ty::Scalar(s), CValue::Int(x)) if s.is_int() => {
            let (lo, hi) = s.int_range().expect("an integer type");
            if x < lo || x > hi {
                return Err(not_const(
                    at,
                    &format!("{x} does not fit in `{}`", s.name()),
                ));
            }
            Ok(CValue::Int(x))
        }
        (CTy::Float, Ty::Scalar(Scalar::F32), CValue::Float(x)) => {
            Ok(CValue::Float(x as f32 as f64))
        }
        (CTy::Float, Ty::Scalar(Scalar::F64), CValue::Float(x)) => Ok(CValue::Float(x)),
        (f, t, _) => {
            let f = match f {
                CTy::Known(k) => k.to_string(),
                CTy::Int => "integer".into(),
                CTy::Float => "float".into(),
            };
            Err(not_const(
                at,
                &format!("mismatched types: expected `{t}`, found `{f}`"),
            ))
        }
    }
}

/// A literal, typed by its suffix or by `want`.
fn literal(lit: &syn::Lit, want: Option<Scalar>) -> Eval {
    match lit {
        syn::Lit::Bool(b) => Ok((CTy::Known(Ty::BOOL), CValue::Bool(b.value))),
        syn::Lit::Int(i) => {
            let suffix = i.suffix();
            let digits = i.base10_digits();
            let s = if suffix.is_empty() {
                None
            } else {
                Scalar::from_name(suffix)
            };
            let s = s.or(want.filter(|w| w.is_int() || w.is_float()));
            match s {
                Some(s @ (Scalar::F32 | Scalar::F64)) => {
                    let x: f64 = digits.parse().map_err(|_| not_const(i, "not a number"))?;
                    if suffix.is_empty() {
                        return Err(not_const(i, &format!("mismatched types: expected `{}`, found an integer; write a float literal, `{digits}.0`", s.name())));
                    }
                    Ok((
                        CTy::Known(Ty::Scalar(s)),
                        CValue::Float(if s == Scalar::F32 {
                            digits.parse::<f32>().map(f64::from).unwrap_or(x)
                        } else {
                            x
                        }),
                    ))
                }
                _ => {
                    let x: i128 = digits
                        .parse()
                        .map_err(|_| not_const(i, "this integer is too large"))?;
                    match s {
                        Some(s) => Ok((
                            CTy::Known(Ty::Scalar(s)),
                            check_range(
                                &CTy::Known(Ty::Scalar(s)),
                                x,
                                &syn::Expr::Lit(syn::ExprLit {
                                    attrs: Vec::new(),
                                    lit: lit.clone(),
                                }),
                            )?,
                        )),
                        None => Ok((CTy::Int, CValue::Int(x))),
                    }
                }
            }
        }
        syn::Lit::Float(f) => {
            let digits = f.base10_digits();
            let s = match f.suffix() {
                "" => want.filter(|s| s.is_float()),
                x => Scalar::from_name(x),
            };
            let x: f64 = digits.parse().map_err(|_| not_const(f, "not a number"))?;
            match s {
                Some(Scalar::F32) => Ok((
                    CTy::Known(Ty::Scalar(Scalar::F32)),
                    CValue::Float(digits.parse::<f32>().map(f64::from).unwrap_or(x)),
                )),
                Some(Scalar::F64) => Ok((CTy::Known(Ty::Scalar(Scalar::F64)), CValue::Float(x))),
                _ => Ok((CTy::Float, CValue::Float(x))),
            }
        }
        _ => Err(not_const(lit, "this literal is not a kernel value")),
    }
}
