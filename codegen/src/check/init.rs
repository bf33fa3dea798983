//! `let x;` assigned later, with Rust's definite-initialization rule: a read must follow an
//! assignment on every path, and a local not declared `mut` is assigned once.
//!
//! The checker walks the body in order with the set of deferred locals assigned so far.
//! Branches meet by intersection (a branch that diverges counts as assigning everything);
//! assignments inside a loop's body or the right side of `&&`/`||` do not count after it.
//! The IR needs a value at the `let`: once types are known the `let` gets the type's zero,
//! which no read can observe.

use proc_macro2::Span;

use super::Checker;
use crate::ir::{Block, Expr, ExprKind, Pattern, Stmt};
use crate::ty::Ty;
use crate::walk;

/// The locals declared without a value and which of them are assigned.
pub(crate) struct InitState {
    /// Every `let x;` of the function, with whether its type was written.
    deferred: Vec<(usize, bool, Span)>,
    /// Assigned on every path to here; `None` where no path gets here (after a diverging
    /// expression).
    assigned: Option<Vec<usize>>,
    /// Assigned on some path (for the second assignment of an immutable local).
    maybe: Vec<usize>,
}

impl Default for InitState {
    fn default() -> Self {
        InitState {
            deferred: Vec::new(),
            assigned: Some(Vec::new()),
            maybe: Vec::new(),
        }
    }
}

/// The state at a point, to come back to: what is assigned on every path, and on some path.
pub(super) type InitSnapshot = (Option<Vec<usize>>, Vec<usize>);

impl InitState {
    fn is_deferred(&self, id: usize) -> bool {
        self.deferred.iter().any(|(d, _, _)| *d == id)
    }
}

impl Checker<'_> {
    /// `let x;`, `let x: T;`, `let (a, b);`.
    pub(super) fn deferred_let(&mut self, l: &syn::Local) -> Option<Stmt> {
        let (pat, annotation) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            other => (other, None),
        };
        let ty = annotation.map(|t| self.local_type(t).unwrap_or(Ty::Error));
        let pat = self.deferred_pattern(pat, ty.as_ref())?;
        let ty = self.pattern_type(&pat);
        Some(Stmt::Let {
            pat,
            init: placeholder(ty, super::span_of(l)),
        })
    }

    /// The names of a `let` without a value; `ty` is the written type, if any.
    fn deferred_pattern(&mut self, pat: &syn::Pat, ty: Option<&Ty>) -> Option<Pattern> {
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let id = self.declare(
                    &pi.ident.to_string(),
                    // An unwritten type is fixed by the first assignment.
                    ty.cloned().unwrap_or(Ty::Never),
                    pi.mutability.is_some(),
                    pi.ident.span(),
                );
                self.init.deferred.push((id, ty.is_some(), pi.ident.span()));
                Some(Pattern::Local(id))
            }
            syn::Pat::Paren(p) => self.deferred_pattern(&p.pat, ty),
            syn::Pat::Tuple(t) => {
                let tys = match ty.map(|t| self.infer.zonk(t)) {
                    None => None,
                    Some(Ty::Tuple(ts)) if ts.len() == t.elems.len() => Some(ts),
                    Some(Ty::Error) => return None,
                    Some(other) => {
                        let d = self.infer.describe(&other);
                        self.error(t, format!("mismatched types: this pattern has {} elements but the type is `{d}`", t.elems.len()));
                        return None;
                    }
                };
                let mut ps = Vec::new();
                for (k, p) in t.elems.iter().enumerate() {
                    ps.push(self.deferred_pattern(p, tys.as_ref().map(|ts| &ts[k]))?);
                }
                Some(Pattern::Tuple(ps))
            }
            other => {
                self.error(
                    other,
                    "a `let` without a value declares names, like `let x;`, `let x: f32;` or `let (a, b);`",
                );
                None
            }
        }
    }

    /// The type of the value a pattern binds (from its locals' types).
    fn pattern_type(&self, pat: &Pattern) -> Ty {
        match pat {
            Pattern::Local(id) => self.locals[*id].ty.clone(),
            Pattern::Tuple(ps) => Ty::Tuple(ps.iter().map(|p| self.pattern_type(p)).collect()),
            Pattern::Wild => Ty::Unit,
        }
    }

    /// Reports a use of a deferred local that is not assigned on every path to here (false).
    pub(super) fn check_initialized(&mut self, id: usize, at: &syn::Ident) -> bool {
        if !self.init.is_deferred(id) {
            return true;
        }
        if let Some(assigned) = &self.init.assigned {
            if !assigned.contains(&id) {
                let verb = if self.init.maybe.contains(&id) {
                    "possibly-uninitialized"
                } else {
                    "uninitialized"
                };
                self.error(
                    at,
                    format!(
                        "used binding `{at}` is {verb}: assign it on every path before this use"
                    ),
                );
                return false;
            }
        }
        true
    }

    /// `x = value` where `x` is a deferred local: checks the value, fixes `x`'s type if it
    /// was not written, and records the assignment. `None` when `left` is not such a local.
    pub(super) fn assign_deferred(&mut self, a: &syn::ExprAssign) -> Option<Expr> {
        let syn::Expr::Path(p) = super::expr::strip_parens(&a.left) else {
            return None;
        };
        let ident = p.path.get_ident()?;
        let id = self.lookup(&ident.to_string())?;
        let typed = self
            .init
            .deferred
            .iter()
            .find(|(d, _, _)| *d == id)
            .map(|(_, t, _)| *t)?;
        let value = self.expr(&a.right);
        let span = super::span_of(a);
        if !typed && matches!(self.locals[id].ty, Ty::Never) {
            self.locals[id].ty = value.ty.clone();
        } else {
            let want = self.locals[id].ty.clone();
            self.unify_at(&want, &value.ty, &a.right, "the assigned place");
        }
        if !self.locals[id].mutable && self.init.maybe.contains(&id) {
            self.error(
                &a.left,
                format!(
                    "cannot assign twice to immutable variable `{ident}`; write `let mut {ident}`"
                ),
            );
        }
        if let Some(assigned) = &mut self.init.assigned {
            if !assigned.contains(&id) {
                assigned.push(id);
            }
        }
        if !self.init.maybe.contains(&id) {
            self.init.maybe.push(id);
        }
        let ty = self.locals[id].ty.clone();
        Some(Expr {
            kind: ExprKind::Assign(
                crate::ir::Place {
                    base: id,
                    proj: Vec::new(),
                    ty,
                },
                Box::new(value),
            ),
            ty: Ty::Unit,
            span,
        })
    }

    /// Where the walk is, to branch from.
    pub(super) fn init_snapshot(&self) -> InitSnapshot {
        (self.init.assigned.clone(), self.init.maybe.clone())
    }

    /// Goes back to `s` (before the next branch). What the abandoned path may have assigned
    /// stays "maybe" only where `keep_maybe` (a loop's body runs again).
    pub(super) fn init_restore(&mut self, s: InitSnapshot, keep_maybe: bool) {
        if self.init.deferred.is_empty() {
            return;
        }
        self.init.assigned = s.0;
        if !keep_maybe {
            self.init.maybe = s.1;
        }
    }

    /// The state at the end of a branch whose value has type `ty` (a diverging branch reaches
    /// no one, and assigns nothing anyone sees).
    pub(super) fn init_branch_end(&self, ty: &Ty) -> InitSnapshot {
        if matches!(self.infer.shallow(ty), Ty::Never) {
            (None, Vec::new())
        } else {
            self.init_snapshot()
        }
    }

    /// Where branches that ended in `states` meet.
    pub(super) fn init_meet(&mut self, states: Vec<InitSnapshot>) {
        if self.init.deferred.is_empty() {
            return;
        }
        let mut maybe = Vec::new();
        let mut live = Vec::new();
        for (assigned, m) in states {
            for x in m {
                if !maybe.contains(&x) {
                    maybe.push(x);
                }
            }
            live.extend(assigned);
        }
        let mut live = live.into_iter();
        self.init.assigned = live.next().map(|first| {
            live.fold(first, |acc, s| {
                acc.into_iter().filter(|x| s.contains(x)).collect()
            })
        });
        self.init.maybe = maybe;
    }

    /// After the body: each deferred `let` gets its type's zero as a value (never read), and a
    /// local whose type nothing fixed is an error.
    pub(super) fn fill_deferred_lets(&mut self, body: &mut Block) {
        if self.init.deferred.is_empty() {
            return;
        }
        for (id, typed, span) in self.init.deferred.clone() {
            if !typed && matches!(self.locals[id].ty, Ty::Never) {
                let name = self.locals[id].name.clone();
                self.errors.push(syn::Error::new(
                    span,
                    format!("type annotations needed: `{name}` is never assigned; write `let {name}: T;` or remove it"),
                ));
            }
        }
        let types: Vec<(usize, Ty)> = self
            .init
            .deferred
            .iter()
            .map(|(d, _, _)| (*d, self.locals[*d].ty.clone()))
            .collect();
        let fill = |b: &mut Block| {
            for s in &mut b.stmts {
                if let Stmt::Let { pat, init } = s {
                    if is_placeholder(init) {
                        if let Some(ty) = deferred_type(pat, &types) {
                            *init = zero(&ty, init.span);
                        }
                    }
                }
            }
        };
        fill(body);
        walk::block_mut(body, &mut |e| match &mut e.kind {
            ExprKind::Block(b)
            | ExprKind::Loop(_, b)
            | ExprKind::While(_, _, b)
            | ExprKind::For { body: b, .. } => fill(b),
            ExprKind::If(_, t, e2) => {
                fill(t);
                if let Some(e2) = e2 {
                    fill(e2);
                }
            }
            _ => {}
        });
    }
}

/// The type of a deferred `let`'s pattern, once its locals' types are known (`None` for a
/// pattern that is not a deferred `let`'s).
fn deferred_type(pat: &Pattern, types: &[(usize, Ty)]) -> Option<Ty> {
    match pat {
        Pattern::Local(id) => types.iter().find(|(d, _)| d == id).map(|(_, t)| t.clone()),
        Pattern::Tuple(ps) => ps
            .iter()
            .map(|p| deferred_type(p, types))
            .collect::<Option<Vec<_>>>()
            .map(Ty::Tuple),
        Pattern::Wild => None,
    }
}

/// The value a deferred `let` holds until `fill_deferred_lets` replaces it.
fn placeholder(ty: Ty, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Unit,
        ty,
        span,
    }
}

fn is_placeholder(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Unit) && !matches!(e.ty, Ty::Unit)
}

/// The zero of a type.
fn zero(ty: &Ty, span: Span) -> Expr {
    let kind = match ty {
        Ty::Scalar(s) if s.is_float() => ExprKind::Float(0.0),
        Ty::Scalar(crate::ty::Scalar::Bool) => ExprKind::Bool(false),
        Ty::Scalar(_) => ExprKind::Int(0),
        Ty::Tuple(ts) => ExprKind::Tuple(ts.iter().map(|t| zero(t, span)).collect()),
        // Never read (definite initialization), but a value of the type all the same.
        Ty::Enum(d) => ExprKind::Int(d.variants[0].1),
        Ty::Struct(d) => ExprKind::Tuple(d.fields.iter().map(|(_, t)| zero(t, span)).collect()),
        Ty::Array(t, n) => ExprKind::Repeat(Box::new(zero(t, span)), *n),
        _ => ExprKind::Unit,
    };
    Expr {
        kind,
        ty: ty.clone(),
        span,
    }
}
