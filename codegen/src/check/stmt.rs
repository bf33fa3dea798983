//! Checking blocks, statements, `let` patterns and loops.

use quote::ToTokens;

use super::expr::strip_parens;
use super::{error_expr, span_of, Checker, LoopScope};
use crate::ir::{Block, CheckKind, Expr, ExprKind, Pattern, Place, Proj, Stmt};
use crate::ty::Ty;

impl Checker<'_> {
    /// Checks a block in a new scope.
    pub(super) fn block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        self.enter_block_items(b);
        let mut stmts = Vec::new();
        let mut tail = None;
        let mut diverges = false;
        let n = b.stmts.len();
        for (i, s) in b.stmts.iter().enumerate() {
            match s {
                syn::Stmt::Local(l) => {
                    // The `let`s of a view's offset and length belong to this block: the
                    // simulator's Rust scopes them like the user's.
                    if self.closure_let(l).is_some() {
                        // A closure is its syntax: nothing to run where it is written.
                    } else if let Some(view) = self.view_let(l) {
                        stmts.extend(view);
                    } else if let Some(stmt) = self.let_stmt(l) {
                        stmts.push(stmt);
                    }
                }
                syn::Stmt::Expr(e, semi) => {
                    let x = self.expr(e);
                    if semi.is_none() && i + 1 == n {
                        tail = Some(Box::new(x));
                    } else {
                        if matches!(self.infer.shallow(&x.ty), Ty::Never) {
                            diverges = true;
                        } else if semi.is_none() {
                            // `if`/`while`/blocks used as statements must be `()`.
                            self.expect_unit(
                                &x.ty.clone(),
                                e,
                                "an expression statement without `;`",
                            );
                        }
                        stmts.push(Stmt::Expr(x));
                    }
                }
                syn::Stmt::Item(item) => {
                    if !self.body_item(item) {
                        self.error(
                            item,
                            "items (functions, structs, `use`) cannot be declared inside a kernel; declare `#[device]` functions outside it",
                        )
                    }
                }
                syn::Stmt::Macro(m) => match self.macro_call(&m.mac) {
                    Some(x) if m.semi_token.is_none() && i + 1 == n => tail = Some(Box::new(x)),
                    Some(x) => {
                        diverges |= matches!(self.infer.shallow(&x.ty), Ty::Never);
                        stmts.push(Stmt::Expr(x));
                    }
                    None => {
                        let name = m
                            .mac
                            .path
                            .segments
                            .last()
                            .map(|s| s.ident.to_string())
                            .unwrap_or_default();
                        self.error(
                            &m.mac,
                            match name.as_str() {
                                "println" | "print" | "eprintln" | "eprint" => super::expr::PRINT_HELP.to_string(),
                                _ => format!("macros are not expanded inside kernels: `{name}!` cannot be used here"),
                            },
                        );
                    }
                },
            }
        }
        self.leave_block_items();
        self.scopes.pop();
        let ty = match &tail {
            Some(t) => t.ty.clone(),
            None if diverges => Ty::Never,
            None => Ty::Unit,
        };
        Block { stmts, tail, ty }
    }

    fn let_stmt(&mut self, l: &syn::Local) -> Option<Stmt> {
        let (pat, annotation) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            other => (other, None),
        };
        let Some(init) = &l.init else {
            return self.deferred_let(l);
        };

        if let Some((_, diverge)) = &init.diverge {
            self.error(diverge, "`let .. else` is not supported in kernels");
        }
        let value = self.let_init(&init.expr);
        let ty = match annotation {
            Some(t) => match self.annotated_type(t, &value.ty) {
                Some(ty) => {
                    self.unify_at(&ty, &value.ty, &init.expr, "the declared type");
                    ty
                }
                None => Ty::Error,
            },
            None => value.ty.clone(),
        };
        let pat = self.pattern(pat, &ty);
        Some(Stmt::Let { pat, init: value })
    }

    /// A `let` initialiser: also accepts a shared-memory constructor, which other positions do not.
    fn let_init(&mut self, e: &syn::Expr) -> Expr {
        // Only the outermost call may make shared memory: `let s = gpu::shared_array..()`.
        let direct = matches!(strip_parens(e), syn::Expr::Call(_));
        self.let_init = direct;
        let v = self.expr(e);
        self.let_init = false;
        v
    }

    pub(super) fn pattern(&mut self, pat: &syn::Pat, ty: &Ty) -> Pattern {
        match pat {
            syn::Pat::Ident(pi) => {
                if let Some(r) = &pi.by_ref {
                    self.error(r, "`ref` bindings are not supported in kernels");
                }
                if let Some((_, sub)) = &pi.subpat {
                    self.error(sub, "`@` patterns are not supported in kernels");
                }
                let name = pi.ident.to_string();
                Pattern::Local(self.declare(
                    &name,
                    ty.clone(),
                    pi.mutability.is_some(),
                    pi.ident.span(),
                ))
            }
            syn::Pat::Wild(_) => Pattern::Wild,
            syn::Pat::Paren(p) => self.pattern(&p.pat, ty),
            syn::Pat::Tuple(t) => {
                let elem_tys = match self.infer.zonk(ty) {
                    Ty::Tuple(ts) if ts.len() == t.elems.len() => ts,
                    Ty::Error => vec![Ty::Error; t.elems.len()],
                    other => {
                        let d = self.infer.describe(&other);
                        self.error(t, format!("mismatched types: this pattern has {} elements but the value is `{d}`", t.elems.len()));
                        vec![Ty::Error; t.elems.len()]
                    }
                };
                Pattern::Tuple(
                    t.elems
                        .iter()
                        .zip(elem_tys)
                        .map(|(p, t)| self.pattern(p, &t))
                        .collect(),
                )
            }
            other => {
                self.error(
                    other,
                    "kernels support these `let` patterns: `x`, `mut x`, `_` and tuples of them",
                );
                Pattern::Wild
            }
        }
    }

    /// Requires `()` (or `!`, which becomes anything).
    fn expect_unit(&mut self, ty: &Ty, at: impl ToTokens, what: &str) {
        if !matches!(self.infer.shallow(ty), Ty::Never) {
            self.unify_at(&Ty::Unit, ty, at, what);
        }
    }

    fn open_loop(&mut self, label: Option<&syn::Label>, is_loop: bool) -> usize {
        let id = self.loop_count;
        self.loop_count += 1;
        self.loops.push(LoopScope {
            id,
            label: label.map(|l| l.name.ident.to_string()),
            is_loop,
            break_ty: None,
        });
        id
    }

    pub(super) fn loop_expr(&mut self, l: &syn::ExprLoop) -> Expr {
        let span = span_of(l);
        let id = self.open_loop(l.label.as_ref(), true);
        let body = self.block(&l.body);
        self.expect_unit(&body.ty.clone(), &l.body, "the body of `loop`");
        let scope = self.loops.pop().expect("pushed above");
        let ty = scope.break_ty.unwrap_or(Ty::Never);
        Expr {
            kind: ExprKind::Loop(id, body),
            ty,
            span,
        }
    }

    pub(super) fn while_expr(&mut self, w: &syn::ExprWhile) -> Expr {
        let span = span_of(w);
        if let syn::Expr::Let(l) = &*w.cond {
            self.error(l, "`while let` is not supported in kernels");
            return error_expr(span);
        }
        let cond = self.expr(&w.cond);
        self.unify_at(&Ty::BOOL, &cond.ty, &w.cond, "the condition of `while`");
        let id = self.open_loop(w.label.as_ref(), false);
        let body = self.block(&w.body);
        self.expect_unit(&body.ty.clone(), &w.body, "the body of `while`");
        self.loops.pop();
        Expr {
            kind: ExprKind::While(id, Box::new(cond), body),
            ty: Ty::Unit,
            span,
        }
    }

    /// `for i in a..b`, `a..=b`, `(a..b).step_by(s)`.
    pub(super) fn for_expr(&mut self, f: &syn::ExprForLoop) -> Expr {
        let span = span_of(f);
        if let Some(e) = self.for_chain(f) {
            return e;
        }
        let (range, step) = match strip_parens(&f.expr) {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (strip_parens(&m.receiver), Some(&m.args[0]))
            }
            other => (other, None),
        };
        let syn::Expr::Range(r) = range else {
            if step.is_none() {
                return self.for_array(f);
            }
            self.error(
                &f.expr,
                "kernels iterate over integer ranges and local arrays: `for i in a..b`, `a..=b`, `(a..b).step_by(s)` or `for x in [1, 2, 4]`",
            );
            return error_expr(span);
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.error(r, "a `for` range in a kernel needs both ends: `a..b`");
            return error_expr(span);
        };
        let start = self.expr(start);
        let end = self.expr(end);
        let ty = start.ty.clone();
        self.unify_at(
            &ty,
            &end.ty,
            r.end.as_ref().expect("checked"),
            "the end of the range (like its start)",
        );
        if !self.is_int_like(&ty) {
            let d = self.infer.describe(&ty);
            self.error(
                r,
                format!("`for` ranges in kernels are over integers, found `{d}`"),
            );
        }
        let step = step.map(|s| {
            let e = self.expr(s);
            self.unify_at(&Ty::USIZE, &e.ty, s, "the argument of `step_by`");
            let site = match &e.kind {
                ExprKind::Int(v) if *v > 0 => None,
                ExprKind::Int(_) => {
                    self.error(
                        s,
                        "`step_by(0)` would loop forever; the step must be positive",
                    );
                    None
                }
                _ => self.site(CheckKind::StepZero, span_of(s)),
            };
            (Box::new(e), site)
        });
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        self.scopes.push(Vec::new());
        let var = match &*f.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                if let Some(m) = &pi.mutability {
                    self.error(m, "the `for` variable cannot be `mut`; copy it into a `let mut` inside the loop");
                }
                self.declare(&pi.ident.to_string(), ty.clone(), false, pi.ident.span())
            }
            syn::Pat::Wild(w) => self.declare("_", ty.clone(), false, w.underscore_token.span),
            other => {
                self.error(other, "the `for` variable must be a name or `_`");
                self.declare("_", ty.clone(), false, span)
            }
        };
        let id = self.open_loop(f.label.as_ref(), false);
        let body = self.block(&f.body);
        self.expect_unit(&body.ty.clone(), &f.body, "the body of `for`");
        self.loops.pop();
        self.scopes.pop();
        Expr {
            kind: ExprKind::For {
                id,
                var,
                start: Box::new(start),
                end: Box::new(end),
                inclusive,
                step,
                body,
            },
            ty: Ty::Unit,
            span,
        }
    }

    /// `for x in array`: a loop over the indices of a local array, binding each element.
    fn for_array(&mut self, f: &syn::ExprForLoop) -> Expr {
        let span = span_of(f);
        let array = self.expr(&f.expr);
        let (elem, n) = match self.infer.zonk(&array.ty) {
            Ty::Array(elem, n) => (*elem, n),
            Ty::Error => return error_expr(span),
            other => {
                let d = self.infer.describe(&other);
                self.error(
                    &f.expr,
                    format!("kernels iterate over integer ranges and local arrays (`for i in a..b`, `for x in [1, 2, 4]`), not `{d}`"),
                );
                return error_expr(span);
            }
        };
        self.scopes.push(Vec::new());
        let arr = self.declare("__array", array.ty.clone(), false, span);
        let idx = self.declare("__index", Ty::USIZE, false, span);
        let id = self.open_loop(f.label.as_ref(), false);
        self.scopes.push(Vec::new());
        let read = Expr {
            kind: ExprKind::Read(Place {
                base: arr,
                proj: vec![Proj::Index {
                    index: Box::new(Expr {
                        kind: ExprKind::Read(Place {
                            base: idx,
                            proj: vec![],
                            ty: Ty::USIZE,
                        }),
                        ty: Ty::USIZE,
                        span,
                    }),
                    site: None,
                }],
                ty: elem.clone(),
            }),
            ty: elem.clone(),
            span,
        };
        let pat = match &*f.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                Pattern::Local(self.declare(
                    &pi.ident.to_string(),
                    elem.clone(),
                    pi.mutability.is_some(),
                    pi.ident.span(),
                ))
            }
            syn::Pat::Wild(_) => Pattern::Wild,
            other => {
                self.error(other, "the `for` variable must be a name or `_`");
                Pattern::Wild
            }
        };
        let mut body = self.block(&f.body);
        self.expect_unit(&body.ty.clone(), &f.body, "the body of `for`");
        body.stmts.insert(0, Stmt::Let { pat, init: read });
        self.scopes.pop();
        self.loops.pop();
        self.scopes.pop();
        let zero = Expr {
            kind: ExprKind::Int(0),
            ty: Ty::USIZE,
            span,
        };
        let len = Expr {
            kind: ExprKind::Int(n as i128),
            ty: Ty::USIZE,
            span,
        };
        let for_loop = Expr {
            kind: ExprKind::For {
                id,
                var: idx,
                start: Box::new(zero),
                end: Box::new(len),
                inclusive: false,
                step: None,
                body,
            },
            ty: Ty::Unit,
            span,
        };
        let block = Block {
            stmts: vec![
                Stmt::Let {
                    pat: Pattern::Local(arr),
                    init: array,
                },
                Stmt::Expr(for_loop),
            ],
            tail: None,
            ty: Ty::Unit,
        };
        Expr {
            kind: ExprKind::Block(block),
            ty: Ty::Unit,
            span,
        }
    }

    /// Finds the loop a `break`/`continue` refers to.
    fn target_loop(
        &mut self,
        label: Option<&syn::Lifetime>,
        at: impl ToTokens,
        what: &str,
    ) -> Option<usize> {
        match label {
            None => match self.loops.len() {
                0 => {
                    self.error(at, format!("`{what}` outside of a loop"));
                    None
                }
                n => Some(n - 1),
            },
            Some(l) => {
                let name = l.ident.to_string();
                let found = self
                    .loops
                    .iter()
                    .rposition(|s| s.label.as_deref() == Some(&name));
                if found.is_none() {
                    self.error(l, format!("use of undeclared label `'{name}`"));
                }
                found
            }
        }
    }

    pub(super) fn break_expr(&mut self, b: &syn::ExprBreak) -> Expr {
        let span = span_of(b);
        let value = b.expr.as_ref().map(|e| self.expr(e));
        let Some(index) = self.target_loop(b.label.as_ref(), b, "break") else {
            return error_expr(span);
        };
        let id = self.loops[index].id;
        if let Some(v) = &value {
            if !self.loops[index].is_loop {
                self.error(b, "`break` with a value is only allowed in `loop`");
            } else {
                match self.loops[index].break_ty.clone() {
                    Some(t) => {
                        self.unify_at(
                            &t,
                            &v.ty.clone(),
                            b.expr.as_ref().expect("present"),
                            "the value of the earlier `break`",
                        );
                    }
                    None => self.loops[index].break_ty = Some(v.ty.clone()),
                }
            }
        } else if self.loops[index].is_loop {
            match self.loops[index].break_ty.clone() {
                Some(t) => {
                    self.unify_at(&t, &Ty::Unit, b, "the value of the earlier `break`");
                }
                None => self.loops[index].break_ty = Some(Ty::Unit),
            }
        }
        Expr {
            kind: ExprKind::Break(id, value.map(Box::new)),
            ty: Ty::Never,
            span,
        }
    }

    pub(super) fn continue_expr(&mut self, c: &syn::ExprContinue) -> Expr {
        let span = span_of(c);
        let Some(index) = self.target_loop(c.label.as_ref(), c, "continue") else {
            return error_expr(span);
        };
        Expr {
            kind: ExprKind::Continue(self.loops[index].id),
            ty: Ty::Never,
            span,
        }
    }

    pub(super) fn return_expr(&mut self, r: &syn::ExprReturn) -> Expr {
        let span = span_of(r);
        let value = r.expr.as_ref().map(|e| self.expr(e));
        let ret = self.ret.clone();
        if let Some(id) = self.inline_return {
            // A device function checked inline: `return` leaves its block.
            match &value {
                Some(v) => {
                    self.unify_at(
                        &ret,
                        &v.ty.clone(),
                        r.expr.as_ref().expect("present"),
                        "the return type",
                    );
                }
                None if ret != Ty::Unit => {
                    let d = self.infer.describe(&ret);
                    self.error(
                        r,
                        format!("this function returns `{d}`: write `return value`"),
                    );
                }
                None => {}
            }
            let value = if ret == Ty::Unit {
                None
            } else {
                value.map(Box::new)
            };
            return Expr {
                kind: ExprKind::Break(id, value),
                ty: Ty::Never,
                span,
            };
        }
        match &value {
            Some(v) if ret == Ty::Unit => {
                let _ = v;
                self.error(r, "kernels return nothing: write results into a `&mut [T]` parameter and use a bare `return`");
            }
            Some(v) => {
                self.unify_at(
                    &ret,
                    &v.ty.clone(),
                    r.expr.as_ref().expect("present"),
                    "the return type",
                );
            }
            None if ret != Ty::Unit => {
                let d = self.infer.describe(&ret);
                self.error(
                    r,
                    format!("this function returns `{d}`: write `return value`"),
                );
            }
            None => {}
        }
        Expr {
            kind: ExprKind::Return(value.map(Box::new)),
            ty: Ty::Never,
            span,
        }
    }
}
