//! `match` on integers, `bool`, floats, field-less enums and tuples of them: literals,
//! variant paths, ranges, `|`, `_`,
//! bindings (`x`, `x @ pat`), guards, and exhaustiveness as rustc checks it for these types.
//!
//! A `match` becomes a chain of `if`s over a copy of the scrutinee: each arm binds its names
//! (copies of parts of the scrutinee, so binding before the test is harmless), then tests its
//! pattern and guard; the last unguarded arm of an exhaustive match is not tested at all.
//! Patterns on other types (field-less enums, constants) go through [`Checker::path_pattern`],
//! the one place that decides what a path in a pattern means.

use proc_macro2::Span;

use super::{error_expr, span_of, Checker};
use crate::ir::{BinOp, Block, Expr, ExprKind, Pattern, Place, Proj, Stmt, UnOp};
use crate::ty::{Scalar, Ty};

/// A pattern as exhaustiveness sees it.
#[derive(Clone, Debug)]
enum Space {
    /// `_`, a binding, or a pattern on a type whose values cannot be listed (floats).
    Any,
    /// The inclusive range of integers (or `bool` as 0 and 1) a literal or range covers.
    Range(i128, i128),
    /// A tuple pattern.
    Tuple(Vec<Space>),
    /// `a | b`
    Or(Vec<Space>),
    /// A pattern on a float: covers some values, never all.
    Some,
}

/// The values of a scrutinee's type, for exhaustiveness.
#[derive(Clone, Debug)]
enum Domain {
    /// Integers (and `bool`, 0..=1) between the bounds.
    Int(Scalar, i128, i128),
    Tuple(Vec<Domain>),
    /// A field-less enum: its variants (name, discriminant), one value each.
    Enum(std::rc::Rc<crate::ty::EnumDef>),
    /// Floats: only `_` or a binding covers them.
    Opaque,
}

impl Domain {
    /// Whether an enum is part of the values (an enum, or a tuple holding one).
    fn holds_enum(&self) -> bool {
        match self {
            Domain::Enum(_) => true,
            Domain::Tuple(ds) => ds.iter().any(Domain::holds_enum),
            Domain::Int(..) | Domain::Opaque => false,
        }
    }
}

/// One uncovered value, for the message.
enum Witness {
    Ints(Scalar, i128, i128),
    Tuple(Vec<Witness>),
    /// A variant: `Op::Sub`.
    Variant(String),
    Any,
}

impl Witness {
    fn text(&self) -> String {
        match self {
            Witness::Any => "_".into(),
            Witness::Variant(v) => v.clone(),
            Witness::Tuple(ws) => {
                let parts: Vec<String> = ws.iter().map(Witness::text).collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            Witness::Ints(Scalar::Bool, lo, _) => (*lo != 0).to_string(),
            Witness::Ints(s, lo, hi) => {
                let one = |v: i128| {
                    let (min, max) = s.int_range().expect("an integer type");
                    if v == min && s.is_signed() {
                        format!("{}::MIN", s.name())
                    } else if v == max {
                        format!("{}::MAX", s.name())
                    } else {
                        format!("{v}_{}", s.name())
                    }
                };
                if lo == hi {
                    one(*lo)
                } else {
                    format!("{}..={}", one(*lo), one(*hi))
                }
            }
        }
    }
}

/// A value of the domain not covered by any row, if there is one (the usefulness algorithm:
/// split the first column into the ranges its patterns distinguish, and recurse).
fn uncovered(rows: &[Vec<Space>], domains: &[Domain]) -> Option<Vec<Witness>> {
    let Some((first, rest)) = domains.split_first() else {
        return rows.is_empty().then(Vec::new);
    };
    // `a | b` in the first column is two rows.
    let mut expanded: Vec<Vec<Space>> = Vec::new();
    let mut stack: Vec<Vec<Space>> = rows.iter().rev().cloned().collect();
    while let Some(row) = stack.pop() {
        match &row[0] {
            Space::Or(alts) => {
                for alt in alts.iter().rev() {
                    let mut r = row.clone();
                    r[0] = alt.clone();
                    stack.push(r);
                }
            }
            _ => expanded.push(row),
        }
    }
    let tail = |r: &Vec<Space>| r[1..].to_vec();
    match first {
        Domain::Int(s, lo, hi) => {
            let mut cuts = vec![*lo, hi.saturating_add(1)];
            for r in &expanded {
                if let Space::Range(a, b) = r[0] {
                    cuts.push(a.max(*lo));
                    cuts.push(b.saturating_add(1).min(hi.saturating_add(1)));
                }
            }
            cuts.sort_unstable();
            cuts.dedup();
            for w in cuts.windows(2) {
                let (a, b) = (w[0], w[1] - 1);
                let sub: Vec<Vec<Space>> = expanded
                    .iter()
                    .filter(|r| match r[0] {
                        Space::Any => true,
                        Space::Range(x, y) => x <= a && b <= y,
                        _ => false,
                    })
                    .map(tail)
                    .collect();
                if let Some(mut wit) = uncovered(&sub, rest) {
                    wit.insert(0, Witness::Ints(*s, a, b));
                    return Some(wit);
                }
            }
            None
        }
        Domain::Enum(d) => {
            for (name, v) in &d.variants {
                let sub: Vec<Vec<Space>> = expanded
                    .iter()
                    .filter(|r| match r[0] {
                        Space::Any => true,
                        Space::Range(x, y) => x <= *v && *v <= y,
                        _ => false,
                    })
                    .map(tail)
                    .collect();
                if let Some(mut wit) = uncovered(&sub, rest) {
                    wit.insert(0, Witness::Variant(format!("{}::{name}", d.name)));
                    return Some(wit);
                }
            }
            None
        }
        Domain::Tuple(parts) => {
            let n = parts.len();
            let sub: Vec<Vec<Space>> = expanded
                .iter()
                .filter_map(|r| {
                    let mut fields = match &r[0] {
                        Space::Tuple(fs) if fs.len() == n => fs.clone(),
                        Space::Any => vec![Space::Any; n],
                        _ => return None,
                    };
                    fields.extend(tail(r));
                    Some(fields)
                })
                .collect();
            let mut doms = parts.clone();
            doms.extend(rest.iter().cloned());
            let mut wit = uncovered(&sub, &doms)?;
            let rest_w = wit.split_off(n);
            let mut out = vec![Witness::Tuple(wit)];
            out.extend(rest_w);
            Some(out)
        }
        Domain::Opaque => {
            let sub: Vec<Vec<Space>> = expanded
                .iter()
                .filter(|r| matches!(r[0], Space::Any))
                .map(tail)
                .collect();
            let mut wit = uncovered(&sub, rest)?;
            wit.insert(0, Witness::Any);
            Some(wit)
        }
    }
}

/// What one arm's pattern produced: its test (`None`: always matches), its bindings, and its
/// shape for exhaustiveness.
struct ArmPattern {
    test: Option<Expr>,
    binds: Vec<(usize, Place)>,
    space: Space,
}

impl Checker<'_> {
    /// `match scrutinee { arms }`.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) -> Expr {
        let span = span_of(m);
        let scrutinee = self.expr(&m.expr);
        if m.arms.is_empty() {
            self.error(
                &m.expr,
                "a `match` without arms matches nothing; kernels have no empty types",
            );
            return error_expr(span);
        }
        // A name no one can write: the scrutinee's copy.
        self.scopes.push(Vec::new());
        let ty = scrutinee.ty.clone();
        let scrut = self.declare("match scrutinee", ty.clone(), false, span);
        let place = Place {
            base: scrut,
            proj: Vec::new(),
            ty: ty.clone(),
        };
        let mut arms = Vec::new();
        let mut result: Option<Ty> = None;
        let before = self.init_snapshot();
        let mut ends = Vec::new();
        for arm in &m.arms {
            self.init_restore(before.clone(), false);
            self.scopes.push(Vec::new());
            let pat = self.arm_pattern(&arm.pat, &place);
            let mut binds = Vec::new();
            for (id, p) in &pat.binds {
                binds.push(Stmt::Let {
                    pat: Pattern::Local(*id),
                    init: read(p.clone(), span),
                });
            }
            let guard = arm.guard.as_ref().map(|(_, g)| {
                let e = self.expr(g);
                self.unify_at(&Ty::BOOL, &e.ty, g, "a `match` guard");
                e
            });
            let body = self.expr(&arm.body);
            ends.push(self.init_branch_end(&body.ty));
            self.scopes.pop();
            result = Some(match result {
                None => body.ty.clone(),
                Some(t) => self.join(&t, &body.ty, &arm.body),
            });
            arms.push((pat, guard, binds, body));
        }
        self.scopes.pop();
        self.init_meet(ends);
        let ty = result.unwrap_or(Ty::Never);
        // Exhaustiveness, on the unguarded arms.
        let domain = self.domain(&self.infer.zonk(&scrutinee.ty));
        let rows: Vec<Vec<Space>> = arms
            .iter()
            .filter(|(_, g, _, _)| g.is_none())
            .map(|(p, _, _, _)| vec![p.space.clone()])
            .collect();
        let exhaustive = domain.is_some();
        let holds_enum = domain.as_ref().is_some_and(Domain::holds_enum);
        if let Some(domain) = domain {
            if let Some(w) = uncovered(&rows, std::slice::from_ref(&domain)) {
                let missing = match &domain {
                    // Every variant not covered, as rustc lists them.
                    Domain::Enum(d) => d
                        .variants
                        .iter()
                        .filter(|(n, v)| {
                            let one = crate::ty::EnumDef {
                                variants: vec![(n.clone(), *v)],
                                ..(**d).clone()
                            };
                            uncovered(&rows, &[Domain::Enum(std::rc::Rc::new(one))]).is_some()
                        })
                        .map(|(n, _)| format!("`{}::{n}`", d.name))
                        .collect(),
                    _ => vec![format!("`{}`", w[0].text())],
                };
                let (what, them) = match missing.as_slice() {
                    [one] => (one.clone(), "it"),
                    [init @ .., last] => (format!("{} and {last}", init.join(", ")), "them"),
                    [] => (format!("`{}`", w[0].text()), "it"),
                };
                let verb = if missing.len() > 1 { "patterns " } else { "" };
                self.error(
                    &m.expr,
                    format!("non-exhaustive patterns: {verb}{what} not covered; add an arm for {them}, or a last arm `_ => ..`"),
                );
                return error_expr(span);
            }
        }
        // The chain, built from the last arm up.
        let mut chain: Option<Expr> = None;
        let last = arms.len() - 1;
        for (k, (pat, guard, binds, body)) in arms.into_iter().enumerate().rev() {
            // The last arm of an exhaustive match is reached only by values it matches.
            let test = if k == last && guard.is_none() && exhaustive {
                None
            } else {
                pat.test
            };
            let cond = match (test, guard) {
                (Some(t), Some(g)) => Some(and(t, g)),
                (t, g) => t.or(g),
            };
            let arm_value = match (cond, chain.take()) {
                (None, _) => body,
                (Some(c), rest) => {
                    let els = rest.unwrap_or_else(|| self.unreachable_arm(holds_enum, span));
                    let then = Block {
                        stmts: Vec::new(),
                        ty: body.ty.clone(),
                        tail: Some(Box::new(body)),
                    };
                    let els = Block {
                        stmts: Vec::new(),
                        ty: els.ty.clone(),
                        tail: Some(Box::new(els)),
                    };
                    Expr {
                        kind: ExprKind::If(Box::new(c), then, Some(els)),
                        ty: ty.clone(),
                        span,
                    }
                }
            };
            let arm_ty = if k == last {
                arm_value.ty.clone()
            } else {
                ty.clone()
            };
            chain = Some(Expr {
                kind: ExprKind::Block(Block {
                    stmts: binds,
                    ty: arm_ty.clone(),
                    tail: Some(Box::new(arm_value)),
                }),
                ty: arm_ty,
                span,
            });
        }
        let chain = chain.expect("a match has arms");
        Expr {
            kind: ExprKind::Block(Block {
                stmts: vec![Stmt::Let {
                    pat: Pattern::Local(scrut),
                    init: scrutinee,
                }],
                ty: ty.clone(),
                tail: Some(Box::new(chain)),
            }),
            ty,
            span,
        }
    }

    /// Where the arms of an exhaustive match whose last arm has a guard fall through: no
    /// value gets there (every value matched an earlier unguarded arm), so it never ends.
    /// On an enum, an integer that is no variant (memory written through
    /// `DeviceBuffer::as_repr_mut`) can get there on a GPU: it stops the kernel with an
    /// `unreachable!` report rather than hang.
    fn unreachable_arm(&mut self, holds_enum: bool, span: Span) -> Expr {
        if holds_enum {
            self.sites.push(crate::ir::CheckSite {
                kind: crate::ir::CheckKind::Panic,
                span,
                message: Some(Box::new(crate::ir::PanicMessage {
                    form: crate::ir::PanicForm::Unreachable,
                    user: Some((
                        "a `match` on an enum read an integer that is no variant of it".into(),
                        Vec::new(),
                    )),
                    values: Vec::new(),
                })),
                elided: None,
            });
            return Expr {
                kind: ExprKind::Panic(Box::new(crate::ir::PanicCall {
                    when: crate::ir::PanicWhen::Always,
                    args: Vec::new(),
                    site: self.sites.len() as crate::ir::SiteId - 1,
                    debug: false,
                })),
                ty: Ty::Never,
                span,
            };
        }
        let id = self.loop_count;
        self.loop_count += 1;
        Expr {
            kind: ExprKind::Loop(
                id,
                Block {
                    stmts: Vec::new(),
                    tail: None,
                    ty: Ty::Unit,
                },
            ),
            ty: Ty::Never,
            span,
        }
    }

    /// The values of `ty` for exhaustiveness; `None` for a type already reported.
    fn domain(&mut self, ty: &Ty) -> Option<Domain> {
        match ty {
            Ty::Scalar(Scalar::Bool) => Some(Domain::Int(Scalar::Bool, 0, 1)),
            Ty::Scalar(s) if s.is_int() => {
                let (lo, hi) = s.int_range().expect("an integer type");
                Some(Domain::Int(*s, lo, hi))
            }
            Ty::Scalar(_) => Some(Domain::Opaque),
            Ty::Var(_) => {
                // An integer or float literal whose type nothing else fixes: Rust's default.
                let t = self.infer.resolve(ty);
                let _ = self.infer.unify(ty, &t);
                self.domain(&t)
            }
            Ty::Tuple(ts) => ts
                .iter()
                .map(|t| self.domain(t))
                .collect::<Option<_>>()
                .map(Domain::Tuple),
            Ty::Unit => Some(Domain::Tuple(Vec::new())),
            Ty::Enum(d) => Some(Domain::Enum(d.clone())),
            _ => None,
        }
    }

    /// Checks one arm's pattern against the value at `place`.
    fn arm_pattern(&mut self, pat: &syn::Pat, place: &Place) -> ArmPattern {
        let span = span_of(pat);
        let any = |binds| ArmPattern {
            test: None,
            binds,
            space: Space::Any,
        };
        match pat {
            syn::Pat::Wild(_) => any(Vec::new()),
            syn::Pat::Paren(p) => self.arm_pattern(&p.pat, place),
            syn::Pat::Ident(pi) => {
                if let Some(r) = &pi.by_ref {
                    self.error(
                        r,
                        "`ref` bindings are not supported in kernels: bind by value",
                    );
                }
                let id = self.declare(
                    &pi.ident.to_string(),
                    place.ty.clone(),
                    pi.mutability.is_some(),
                    pi.ident.span(),
                );
                let mut binds = vec![(id, place.clone())];
                match &pi.subpat {
                    None => any(binds),
                    Some((_, sub)) => {
                        let mut inner = self.arm_pattern(sub, place);
                        binds.append(&mut inner.binds);
                        inner.binds = binds;
                        inner
                    }
                }
            }
            syn::Pat::Lit(l) => self.literal_pattern(&l.lit, place, span),
            syn::Pat::Range(r) => self.range_pattern(r, place, span),
            syn::Pat::Or(o) => {
                let mut tests = Vec::new();
                let mut spaces = Vec::new();
                let mut always = false;
                for case in &o.cases {
                    let before = self.scopes.last().map_or(0, Vec::len);
                    let p = self.arm_pattern(case, place);
                    if !p.binds.is_empty() {
                        self.scopes
                            .last_mut()
                            .expect("an arm scope")
                            .truncate(before);
                        self.error(case, "names cannot be bound inside `|` in kernels; bind the whole value instead, `x @ (1 | 2)`");
                    }
                    match p.test {
                        Some(t) => tests.push(t),
                        None => always = true,
                    }
                    spaces.push(p.space);
                }
                let test = if always {
                    None
                } else {
                    tests.into_iter().reduce(|a, b| Expr {
                        kind: ExprKind::Or(Box::new(a), Box::new(b)),
                        ty: Ty::BOOL,
                        span,
                    })
                };
                ArmPattern {
                    test,
                    binds: Vec::new(),
                    space: Space::Or(spaces),
                }
            }
            syn::Pat::Tuple(t) => self.tuple_pattern(t, place, span),
            syn::Pat::Path(p) => self.path_pattern(p, place),
            syn::Pat::Reference(r) => {
                self.error(r, "kernels match values, not references: remove the `&`");
                any(Vec::new())
            }
            other => {
                self.error(other, "kernels match integers, `bool`, floats and tuples of them with literals, ranges (`1..=9`), `|`, `_`, names and `name @ pattern`");
                any(Vec::new())
            }
        }
    }

    /// A path in a pattern (`i32::MAX`, and once kernels have them, a constant or an enum's
    /// variant): whatever constant value the path names, matched like a literal.
    fn path_pattern(&mut self, path: &syn::ExprPath, place: &Place) -> ArmPattern {
        let span = span_of(path);
        let Some(value) = self.pattern_constant(path, place) else {
            return failed_pattern();
        };
        self.constant_pattern(value, place, span)
    }

    /// The constant a path in a pattern names, typed like the place.
    fn pattern_constant(&mut self, path: &syn::ExprPath, place: &Place) -> Option<Expr> {
        let e = self.expr(&syn::Expr::Path(path.clone()));
        match e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) => {}
            _ if matches!(e.ty, Ty::Error) => return None,
            _ => {
                let text = super::source::expr_text(path);
                self.error(
                    path,
                    format!("`{text}` is not a constant: patterns in kernels are literals, ranges, `_` and names; compare with `==` in a guard instead (`x if x == {text}`)"),
                );
                return None;
            }
        }
        self.unify_at(&place.ty, &e.ty, path, "the matched value")
            .then_some(e)
    }

    /// The value of a literal in a pattern (`-1` included), typed like the place.
    fn pattern_literal(&mut self, lit: &syn::Lit, place: &Place) -> Option<Expr> {
        let e = match lit {
            syn::Lit::Int(i) if i.base10_digits().starts_with('-') => {
                let digits = &i.base10_digits()[1..];
                let positive = syn::LitInt::new(&format!("{digits}{}", i.suffix()), i.span());
                self.literal(&syn::Lit::Int(positive), true)
            }
            syn::Lit::Float(f) if f.base10_digits().starts_with('-') => {
                let digits = &f.base10_digits()[1..];
                let positive = syn::LitFloat::new(&format!("{digits}{}", f.suffix()), f.span());
                self.literal(&syn::Lit::Float(positive), true)
            }
            other => self.literal(other, false),
        };
        if matches!(e.ty, Ty::Error) {
            return None;
        }
        if !self.unify_at(&place.ty, &e.ty, lit, "the matched value") {
            return None;
        }
        Some(e)
    }

    fn literal_pattern(&mut self, lit: &syn::Lit, place: &Place, span: Span) -> ArmPattern {
        let Some(value) = self.pattern_literal(lit, place) else {
            return failed_pattern();
        };
        self.constant_pattern(value, place, span)
    }

    /// A pattern that is one value: an equality test.
    fn constant_pattern(&mut self, value: Expr, place: &Place, span: Span) -> ArmPattern {
        let space = match value.kind {
            ExprKind::Int(v) => Space::Range(v, v),
            ExprKind::Bool(b) => Space::Range(b as i128, b as i128),
            _ => Space::Some,
        };
        let test = match value.kind {
            ExprKind::Bool(true) => read(place.clone(), span),
            ExprKind::Bool(false) => Expr {
                kind: ExprKind::Unary(UnOp::Not, Box::new(read(place.clone(), span))),
                ty: Ty::BOOL,
                span,
            },
            _ => compare(BinOp::Eq, read(place.clone(), span), value, span),
        };
        ArmPattern {
            test: Some(test),
            binds: Vec::new(),
            space,
        }
    }

    fn range_pattern(&mut self, r: &syn::ExprRange, place: &Place, span: Span) -> ArmPattern {
        let bound = |this: &mut Self, e: &Option<Box<syn::Expr>>| -> Result<Option<Expr>, ()> {
            match e.as_deref().map(super::expr::strip_parens) {
                None => Ok(None),
                Some(syn::Expr::Lit(l)) => this.pattern_literal(&l.lit, place).map(Some).ok_or(()),
                Some(syn::Expr::Path(p)) => this.pattern_constant(p, place).map(Some).ok_or(()),
                Some(other) => {
                    this.error(other, "range patterns in kernels have constant ends, like `1..=9` or `0..=u8::MAX`");
                    Err(())
                }
            }
        };
        if let Ty::Enum(d) = self.infer.zonk(&place.ty) {
            self.error(
                r,
                format!(
                    "range patterns do not apply to the enum `{}`: list the variants with `|`",
                    d.name
                ),
            );
            return failed_pattern();
        }
        let (Ok(lo), Ok(hi)) = (bound(self, &r.start), bound(self, &r.end)) else {
            return failed_pattern();
        };
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        let ty = self.infer.zonk(&place.ty);
        let is_float = matches!(ty, Ty::Scalar(s) if s.is_float())
            || matches!(ty, Ty::Var(_)) && self.infer.is_float_var(&ty) == Some(true);
        let int = |e: &Option<Expr>| match e.as_ref().map(|e| &e.kind) {
            Some(ExprKind::Int(v)) => Some(*v),
            _ => None,
        };
        let space = if is_float {
            Space::Some
        } else {
            let (tlo, thi) = match &ty {
                Ty::Scalar(s) => s.int_range().unwrap_or((i128::MIN, i128::MAX)),
                _ => (i128::MIN, i128::MAX),
            };
            let a = int(&lo).unwrap_or(tlo);
            let b = match int(&hi) {
                Some(v) if inclusive => v,
                Some(v) => v - 1,
                None => thi,
            };
            if a > b {
                self.error(r, "this range pattern is empty: its start is past its end");
                return failed_pattern();
            }
            Space::Range(a, b)
        };
        let lo_test = lo.map(|v| compare(BinOp::Ge, read(place.clone(), span), v, span));
        let hi_test = hi.map(|v| {
            let op = if inclusive { BinOp::Le } else { BinOp::Lt };
            compare(op, read(place.clone(), span), v, span)
        });
        let test = match (lo_test, hi_test) {
            (Some(a), Some(b)) => Some(and(a, b)),
            (a, b) => a.or(b),
        };
        ArmPattern {
            test,
            binds: Vec::new(),
            space,
        }
    }

    fn tuple_pattern(&mut self, t: &syn::PatTuple, place: &Place, span: Span) -> ArmPattern {
        let tys = match self.infer.zonk(&place.ty) {
            Ty::Tuple(ts) => ts,
            Ty::Unit => Vec::new(),
            Ty::Error => return failed_pattern(),
            other => {
                let d = self.infer.describe(&other);
                self.error(t, format!("mismatched types: this tuple pattern matches a tuple, but the value is `{d}`"));
                return failed_pattern();
            }
        };
        // `..` stands for as many `_` as the tuple has elements left.
        let rest = t.elems.iter().position(|p| matches!(p, syn::Pat::Rest(_)));
        let written = t.elems.len() - rest.is_some() as usize;
        if written > tys.len() || (rest.is_none() && written != tys.len()) {
            self.error(
                t,
                format!(
                    "mismatched types: this pattern has {written} elements but the tuple has {}",
                    tys.len()
                ),
            );
            return failed_pattern();
        }
        let mut subs: Vec<Option<&syn::Pat>> = Vec::new();
        for (k, p) in t.elems.iter().enumerate() {
            if Some(k) == rest {
                subs.extend(std::iter::repeat_n(None, tys.len() - written));
            } else {
                subs.push(Some(p));
            }
        }
        let mut tests = Vec::new();
        let mut binds = Vec::new();
        let mut spaces = Vec::new();
        for (k, (sub, ty)) in subs.into_iter().zip(tys).enumerate() {
            let mut field = place.clone();
            field.proj.push(Proj::Field(k as u32));
            field.ty = ty;
            let Some(sub) = sub else {
                spaces.push(Space::Any);
                continue;
            };
            let mut p = self.arm_pattern(sub, &field);
            tests.extend(p.test.take());
            binds.append(&mut p.binds);
            spaces.push(p.space);
        }
        let _ = span;
        ArmPattern {
            test: tests.into_iter().reduce(and),
            binds,
            space: Space::Tuple(spaces),
        }
    }
}

/// A pattern that failed to check (already reported): it matches everything, so no second
/// error about exhaustiveness follows.
fn failed_pattern() -> ArmPattern {
    ArmPattern {
        test: None,
        binds: Vec::new(),
        space: Space::Any,
    }
}

fn read(place: Place, span: Span) -> Expr {
    let ty = place.ty.clone();
    Expr {
        kind: ExprKind::Read(place),
        ty,
        span,
    }
}

/// `a op b`; enums compare their discriminants.
fn compare(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    let (a, b) = (super::enums::discriminant(a), super::enums::discriminant(b));
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b), None),
        ty: Ty::BOOL,
        span,
    }
}

fn and(a: Expr, b: Expr) -> Expr {
    let span = a.span;
    Expr {
        kind: ExprKind::And(Box::new(a), Box::new(b)),
        ty: Ty::BOOL,
        span,
    }
}
