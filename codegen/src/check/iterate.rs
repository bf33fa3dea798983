//! `for` over iterator chains, lowered to counted loops: `(a..b).rev()`,
//! `(a..b).rev().step_by(s)`, and `x.iter()`, `x.iter_mut()`, `.enumerate()`, `.zip(..)` of
//! slices, shared arrays and local arrays.
//!
//! Every chain becomes `for k in 0..n` over a hidden counter: a reversed range binds
//! `(end - 1 - k) + start`; an element of `x.iter()` is a copy of `x[k]` (so `*v` and `v`
//! both read it); an element of `x.iter_mut()` is an alias of the place `x[k]` (`*v = ..`
//! writes it). `n` is the shortest length, so the element accesses need no bounds check.

use proc_macro2::Span;

use super::expr::{strip_parens, PlaceResult};
use super::{error_expr, span_of, Checker};
use crate::ir::{BinOp, Block, Builtin, Expr, ExprKind, MathFn, Pattern, Place, Proj, Stmt};
use crate::ty::Ty;

/// What each turn of a chain yields.
enum Item {
    /// The turn number, `usize` (`enumerate`).
    Count,
    /// A copy of the element at `k` of an aggregate (`iter()`).
    Copy(Place),
    /// The element at `k` itself (`iter_mut()`).
    Alias(Place),
    /// `(a, b)` of two chains (`enumerate`, `zip`).
    Pair(Box<Item>, Box<Item>),
}

impl Checker<'_> {
    /// `for` over an iterator chain; `None` when `f` iterates something else (a range, a
    /// local array), which `for_expr` handles.
    pub(super) fn for_chain(&mut self, f: &syn::ExprForLoop) -> Option<Expr> {
        let syn::Expr::MethodCall(m) = strip_parens(&f.expr) else {
            return None;
        };
        let name = m.method.to_string();
        match name.as_str() {
            "rev" => Some(self.for_rev(f, &m.receiver, None)),
            "step_by" => match strip_parens(&m.receiver) {
                syn::Expr::MethodCall(r) if r.method == "rev" && m.args.len() == 1 => {
                    Some(self.for_rev(f, &r.receiver, Some(&m.args[0])))
                }
                _ => None,
            },
            "iter" | "iter_mut" | "enumerate" | "zip" => Some(self.for_items(f)),
            // Another adaptor on such a chain (`.skip(1)`, `.map(..)`): reported at it.
            _ if mentions_items(&m.receiver) => Some(self.for_items(f)),
            _ => None,
        }
    }

    /// `for i in (a..b).rev()` and `(a..=b).rev().step_by(s)`.
    fn for_rev(
        &mut self,
        f: &syn::ExprForLoop,
        range: &syn::Expr,
        step: Option<&syn::Expr>,
    ) -> Expr {
        let span = span_of(f);
        let syn::Expr::Range(r) = strip_parens(range) else {
            self.error(
                range,
                "`.rev()` in kernels reverses an integer range: `for i in (a..b).rev()`",
            );
            return error_expr(span);
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.error(
                r,
                "a reversed range in a kernel needs both ends: `(a..b).rev()`",
            );
            return error_expr(span);
        };
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        let start_v = self.expr(start);
        let end_v = self.expr(end);
        let ty = start_v.ty.clone();
        self.unify_at(&ty, &end_v.ty, end, "the end of the range (like its start)");
        if !self.is_int_like(&ty) {
            let d = self.infer.describe(&ty);
            self.error(
                r,
                format!("`for` ranges in kernels are over integers, found `{d}`"),
            );
            return error_expr(span);
        }
        self.scopes.push(Vec::new());
        let s = self.declare("range start", ty.clone(), false, span);
        let e = self.declare("range end", ty.clone(), false, span);
        let k = self.declare("range counter", ty.clone(), false, span);
        let step = step.map(|st| {
            let v = self.expr(st);
            self.unify_at(&Ty::USIZE, &v.ty, st, "the argument of `step_by`");
            let site = match &v.kind {
                ExprKind::Int(n) if *n > 0 => None,
                ExprKind::Int(_) => {
                    self.error(
                        st,
                        "`step_by(0)` would loop forever; the step must be positive",
                    );
                    None
                }
                _ => self.site(crate::ir::CheckKind::StepZero, span_of(st)),
            };
            (Box::new(v), site)
        });
        // i = (end - 1 - k) + start (`end - k` when inclusive): never overflows, since
        // start <= k < end.
        let back = |op_ty: &Ty, a: Expr, b: Expr| Expr {
            kind: ExprKind::Binary(BinOp::Sub, Box::new(a), Box::new(b), None),
            ty: op_ty.clone(),
            span,
        };
        let mut from_end = local(e, &ty, span);
        if !inclusive {
            let one = Expr {
                kind: ExprKind::Int(1),
                ty: ty.clone(),
                span,
            };
            from_end = back(&ty, from_end, one);
        }
        let offset = back(&ty, from_end, local(k, &ty, span));
        let value = Expr {
            kind: ExprKind::Binary(
                BinOp::Add,
                Box::new(offset),
                Box::new(local(s, &ty, span)),
                None,
            ),
            ty: ty.clone(),
            span,
        };
        let lets = self.bind_loop_pattern(&f.pat, value);
        let id = self.open_loop_for(f.label.as_ref());
        let body = self.loop_body(f, lets);
        self.scopes.pop();
        let for_loop = Expr {
            kind: ExprKind::For {
                id,
                var: k,
                start: Box::new(local(s, &ty, span)),
                end: Box::new(local(e, &ty, span)),
                inclusive,
                step,
                body,
            },
            ty: Ty::Unit,
            span,
        };
        block_expr(
            vec![
                Stmt::Let {
                    pat: Pattern::Local(s),
                    init: start_v,
                },
                Stmt::Let {
                    pat: Pattern::Local(e),
                    init: end_v,
                },
                Stmt::Expr(for_loop),
            ],
            span,
        )
    }

    /// `for pat in` a chain of `iter()`, `iter_mut()`, `enumerate()` and `zip(..)`.
    fn for_items(&mut self, f: &syn::ExprForLoop) -> Expr {
        let span = span_of(f);
        self.scopes.push(Vec::new());
        let k = self.declare("item counter", Ty::USIZE, false, span);
        let mut lens = Vec::new();
        let Some(item) = self.chain_item(&f.expr, k, &mut lens) else {
            self.scopes.pop();
            return error_expr(span);
        };
        let n = lens
            .into_iter()
            .reduce(|a, b| Expr {
                kind: ExprKind::Builtin(Builtin::Math(MathFn::Min), vec![a, b]),
                ty: Ty::USIZE,
                span,
            })
            .unwrap_or_else(|| usize_lit(0, span));
        let lets = self.bind_item(&f.pat, item, k, span);
        let id = self.open_loop_for(f.label.as_ref());
        let body = self.loop_body(f, lets);
        self.scopes.pop();
        Expr {
            kind: ExprKind::For {
                id,
                var: k,
                start: Box::new(usize_lit(0, span)),
                end: Box::new(n),
                inclusive: false,
                step: None,
                body,
            },
            ty: Ty::Unit,
            span,
        }
    }

    /// What each turn of `e` yields at turn `k`; the lengths of its aggregates go to `lens`.
    fn chain_item(&mut self, e: &syn::Expr, k: usize, lens: &mut Vec<Expr>) -> Option<Item> {
        let e = strip_parens(e);
        let syn::Expr::MethodCall(m) = e else {
            // `zip(&y)`, `zip(&mut y)`, `zip(y)`: the elements of an aggregate.
            return match e {
                syn::Expr::Reference(r) => {
                    self.aggregate_item(&r.expr, r.mutability.is_some(), k, lens)
                }
                other => self.aggregate_item(other, false, k, lens),
            };
        };
        let name = m.method.to_string();
        match (name.as_str(), m.args.len()) {
            ("iter", 0) => self.aggregate_item(&m.receiver, false, k, lens),
            ("iter_mut", 0) => self.aggregate_item(&m.receiver, true, k, lens),
            ("enumerate", 0) => {
                let inner = self.chain_item(&m.receiver, k, lens)?;
                Some(Item::Pair(Box::new(Item::Count), Box::new(inner)))
            }
            ("zip", 1) => {
                let a = self.chain_item(&m.receiver, k, lens)?;
                let b = self.chain_item(&m.args[0], k, lens)?;
                Some(Item::Pair(Box::new(a), Box::new(b)))
            }
            _ => {
                self.error(
                    &m.method,
                    format!("`{name}` cannot be used in a kernel's `for`: kernels iterate `x.iter()`, `x.iter_mut()`, `.enumerate()`, `.zip(..)`, ranges, `(a..b).rev()` and `.step_by(s)`"),
                );
                None
            }
        }
    }

    /// The elements of the slice, shared array or local array `e` (written through when
    /// `write`).
    fn aggregate_item(
        &mut self,
        e: &syn::Expr,
        write: bool,
        k: usize,
        lens: &mut Vec<Expr>,
    ) -> Option<Item> {
        let span = span_of(e);
        if let Some(view) = self.view_named(e) {
            let (at, len) = super::inline::view_item(&view, local(k, &Ty::USIZE, span), span);
            lens.push(len);
            if write && self.check_writable(&at, e) != super::expr::Writable::Yes {
                return None;
            }
            return Some(if write {
                Item::Alias(at)
            } else {
                Item::Copy(at)
            });
        }
        let place = match self.try_place(e) {
            PlaceResult::Place(p) => p,
            PlaceResult::Failed => return None,
            PlaceResult::NotPlace => {
                self.error(e, "kernels iterate over slices, shared arrays and local arrays: bind this value with `let` first");
                return None;
            }
        };
        let (elem, len) = match self.infer.zonk(&place.ty) {
            Ty::Slice { elem, .. } => (
                *elem,
                Expr {
                    kind: ExprKind::Len(place.clone()),
                    ty: Ty::USIZE,
                    span,
                },
            ),
            Ty::Shared { elem, dims } if dims.len() <= 1 => {
                let len = match dims.first() {
                    Some(n) => usize_lit(*n, span),
                    None => Expr {
                        kind: ExprKind::Len(place.clone()),
                        ty: Ty::USIZE,
                        span,
                    },
                };
                (*elem, len)
            }
            Ty::Array(elem, n) => (*elem, usize_lit(n, span)),
            Ty::Error => return None,
            other => {
                let d = self.infer.describe(&other);
                self.error(e, format!("kernels iterate over slices, 1-D shared arrays and local arrays, not `{d}`"));
                return None;
            }
        };
        lens.push(len);
        let mut at = place.clone();
        // In range: k < the shortest length.
        at.proj.push(Proj::Index {
            index: Box::new(local(k, &Ty::USIZE, span)),
            site: None,
        });
        at.ty = elem;
        if write {
            if let Ty::Slice {
                mutable: false,
                elem,
            } = &self.locals[place.base].ty
            {
                let name = self.locals[place.base].name.clone();
                let t = elem.to_string();
                self.error(e, format!("`iter_mut()` writes through `{name}`, but it is a `&[{t}]` parameter (read-only); declare it `&mut [{t}]`"));
                return None;
            }
            if self.check_writable(&at, e) != super::expr::Writable::Yes {
                return None;
            }
            Some(Item::Alias(at))
        } else {
            Some(Item::Copy(at))
        }
    }

    /// Binds the user's pattern to one turn's item: `let`s at the top of the body.
    fn bind_item(&mut self, pat: &syn::Pat, item: Item, k: usize, span: Span) -> Vec<Stmt> {
        match (pat, item) {
            (syn::Pat::Wild(_), _) => Vec::new(),
            (syn::Pat::Paren(p), item) => self.bind_item(&p.pat, item, k, span),
            (syn::Pat::Tuple(t), Item::Pair(a, b)) if t.elems.len() == 2 => {
                let mut lets = self.bind_item(&t.elems[0], *a, k, span);
                lets.extend(self.bind_item(&t.elems[1], *b, k, span));
                lets
            }
            (syn::Pat::Reference(r), Item::Copy(place)) if r.mutability.is_none() => {
                let v = read(place);
                self.bind_loop_pattern(&r.pat, v)
            }
            (syn::Pat::Ident(pi), Item::Alias(place))
                if pi.by_ref.is_none() && pi.subpat.is_none() =>
            {
                let id = self.declare(
                    &pi.ident.to_string(),
                    place.ty.clone(),
                    false,
                    pi.ident.span(),
                );
                self.aliases.push((id, Some(place)));
                Vec::new()
            }
            (syn::Pat::Ident(pi), Item::Copy(place))
                if pi.by_ref.is_none() && pi.subpat.is_none() =>
            {
                let lets = self.bind_loop_pattern(pat, read(place));
                if let Some(id) = self.lookup(&pi.ident.to_string()) {
                    self.aliases.push((id, None));
                }
                lets
            }
            (_, Item::Count) => self.bind_loop_pattern(pat, local(k, &Ty::USIZE, span)),
            (_, Item::Pair(..)) => {
                self.error(pat, "this turn's item is a pair: write `(a, b)`");
                Vec::new()
            }
            (_, Item::Alias(_)) => {
                self.error(pat, "an element of `iter_mut()` is bound to a name, like `v`, and written with `*v = ..`");
                Vec::new()
            }
            (_, Item::Copy(place)) => self.bind_loop_pattern(pat, read(place)),
        }
    }

    /// `let pat = value;` for a loop's pattern (a name, `_` or a tuple of them).
    fn bind_loop_pattern(&mut self, pat: &syn::Pat, value: Expr) -> Vec<Stmt> {
        let ty = value.ty.clone();
        let pat = self.pattern(pat, &ty);
        vec![Stmt::Let { pat, init: value }]
    }

    fn open_loop_for(&mut self, label: Option<&syn::Label>) -> usize {
        let id = self.loop_count;
        self.loop_count += 1;
        self.loops.push(super::LoopScope {
            id,
            label: label.map(|l| l.name.ident.to_string()),
            is_loop: false,
            break_ty: None,
        });
        id
    }

    /// The loop's body after the `lets` that bind its pattern; closes the loop.
    fn loop_body(&mut self, f: &syn::ExprForLoop, lets: Vec<Stmt>) -> Block {
        let mut body = self.block(&f.body);
        if !matches!(self.infer.shallow(&body.ty), Ty::Never) {
            self.unify_at(&Ty::Unit, &body.ty.clone(), &f.body, "the body of `for`");
        }
        self.loops.pop();
        let rest = std::mem::take(&mut body.stmts);
        body.stmts = lets;
        body.stmts.extend(rest);
        body
    }
}

/// Whether a method chain includes `iter()`, `iter_mut()`, `enumerate()` or `zip(..)`.
fn mentions_items(e: &syn::Expr) -> bool {
    match strip_parens(e) {
        syn::Expr::MethodCall(m) => {
            matches!(
                m.method.to_string().as_str(),
                "iter" | "iter_mut" | "enumerate" | "zip"
            ) || mentions_items(&m.receiver)
        }
        _ => false,
    }
}

fn local(id: usize, ty: &Ty, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Read(Place {
            base: id,
            proj: Vec::new(),
            ty: ty.clone(),
        }),
        ty: ty.clone(),
        span,
    }
}

fn read(place: Place) -> Expr {
    let ty = place.ty.clone();
    Expr {
        kind: ExprKind::Read(place),
        ty,
        span: Span::call_site(),
    }
}

fn usize_lit(n: u64, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Int(n as i128),
        ty: Ty::USIZE,
        span,
    }
}

fn block_expr(stmts: Vec<Stmt>, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Block(Block {
            stmts,
            tail: None,
            ty: Ty::Unit,
        }),
        ty: Ty::Unit,
        span,
    }
}
