//! Polynomial bounds over a kernel's uniform values, for `passes::bounds`' versioning.
//!
//! A [`Poly`] is a polynomial with integer coefficients over *symbols*: the kernel's
//! immutable unsigned scalar parameters and its slices' lengths. Symbols are never negative,
//! so a polynomial whose coefficients are all non-negative is non-negative for every value
//! of them ([`Poly::nonneg`]). [`eval`] builds the IR that computes one with saturating
//! arithmetic, and [`at_most`] the uniform test `q <= len` that never wraps.

use std::collections::BTreeMap;

use proc_macro2::Span;

use crate::ir::{BinOp, Block, Expr, ExprKind};
use crate::ty::Ty;

/// `Σ coefficient · Π symbols`; symbols are keys of [`Symbols`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct Poly(pub(crate) BTreeMap<Vec<String>, i128>);

impl Poly {
    pub(crate) fn constant(c: i128) -> Poly {
        let mut p = Poly::default();
        if c != 0 {
            p.0.insert(Vec::new(), c);
        }
        p
    }

    pub(crate) fn symbol(s: &str) -> Poly {
        let mut p = Poly::default();
        p.0.insert(vec![s.to_string()], 1);
        p
    }

    pub(crate) fn add(&self, o: &Poly) -> Option<Poly> {
        let mut r = self.clone();
        for (m, c) in &o.0 {
            let e = r.0.entry(m.clone()).or_insert(0);
            *e = e.checked_add(*c)?;
            if *e == 0 {
                r.0.remove(m);
            }
        }
        Some(r)
    }

    pub(crate) fn neg(&self) -> Poly {
        Poly(self.0.iter().map(|(m, c)| (m.clone(), -c)).collect())
    }

    pub(crate) fn sub(&self, o: &Poly) -> Option<Poly> {
        self.add(&o.neg())
    }

    pub(crate) fn mul(&self, o: &Poly) -> Option<Poly> {
        let mut r = Poly::default();
        for (ma, ca) in &self.0 {
            for (mb, cb) in &o.0 {
                let mut m: Vec<String> = ma.iter().chain(mb).cloned().collect();
                m.sort();
                if m.len() > 4 {
                    return None;
                }
                r = r.add(&Poly(BTreeMap::from([(m, ca.checked_mul(*cb)?)])))?;
            }
        }
        Some(r)
    }

    /// Whether it is non-negative for all (non-negative) symbol values: every coefficient
    /// is.
    pub(crate) fn nonneg(&self) -> bool {
        self.0.values().all(|&c| c >= 0)
    }

    /// The part with positive coefficients and the negated rest: `self = pos - neg`.
    pub(crate) fn split(&self) -> (Poly, Poly) {
        let pos = Poly(
            self.0
                .iter()
                .filter(|(_, &c)| c > 0)
                .map(|(m, c)| (m.clone(), *c))
                .collect(),
        );
        let neg = Poly(
            self.0
                .iter()
                .filter(|(_, &c)| c < 0)
                .map(|(m, c)| (m.clone(), -c))
                .collect(),
        );
        (pos, neg)
    }
}

/// The IR of each symbol (a `usize`).
pub(crate) type Symbols = BTreeMap<String, Expr>;

fn usize_lit(v: i128, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Int(v),
        ty: Ty::USIZE,
        span,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    let ty = if op.is_comparison() {
        Ty::BOOL
    } else {
        Ty::USIZE
    };
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b), None),
        ty,
        span,
    }
}

fn if_else(c: Expr, a: Expr, b: Expr, span: Span) -> Expr {
    let block = |e: Expr| Block {
        stmts: Vec::new(),
        tail: Some(Box::new(e)),
        ty: Ty::USIZE,
    };
    Expr {
        kind: ExprKind::If(Box::new(c), block(a), Some(block(b))),
        ty: Ty::USIZE,
        span,
    }
}

fn and(a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::And(Box::new(a), Box::new(b)),
        ty: Ty::BOOL,
        span,
    }
}

const MAX: i128 = u64::MAX as i128;

/// `a + b`, or `usize::MAX` when it would wrap.
fn sat_add(a: Expr, b: Expr, span: Span) -> Expr {
    let room = bin(BinOp::Sub, usize_lit(MAX, span), b.clone(), span);
    let over = bin(BinOp::Gt, a.clone(), room, span);
    if_else(
        over,
        usize_lit(MAX, span),
        bin(BinOp::Add, a, b, span),
        span,
    )
}

/// `a * b`, or `usize::MAX` when it would wrap.
fn sat_mul(a: Expr, b: Expr, span: Span) -> Expr {
    let nonzero = bin(BinOp::Ne, b.clone(), usize_lit(0, span), span);
    let limit = bin(BinOp::Div, usize_lit(MAX, span), b.clone(), span);
    let over = and(nonzero, bin(BinOp::Gt, a.clone(), limit, span), span);
    if_else(
        over,
        usize_lit(MAX, span),
        bin(BinOp::Mul, a, b, span),
        span,
    )
}

/// The IR computing `p` (non-negative coefficients) with saturating arithmetic: its value,
/// or `usize::MAX` when that is at least `usize::MAX`.
pub(crate) fn eval(p: &Poly, symbols: &Symbols, span: Span) -> Option<Expr> {
    let mut sum: Option<Expr> = None;
    for (m, &c) in &p.0 {
        if !(0..=MAX).contains(&c) {
            return None;
        }
        let mut term: Option<Expr> = (c != 1 || m.is_empty()).then(|| usize_lit(c, span));
        for s in m {
            let x = symbols.get(s)?.clone();
            term = Some(match term {
                None => x,
                Some(t) => sat_mul(t, x, span),
            });
        }
        let term = term.expect("a constant or a symbol");
        sum = Some(match sum {
            None => term,
            Some(acc) => sat_add(acc, term, span),
        });
    }
    Some(sum.unwrap_or_else(|| usize_lit(0, span)))
}

/// The uniform test that `q <= len` (`len` a symbol's IR), exact and never wrapping: with
/// `q = pos - neg`, `pos < usize::MAX && pos <= len + neg` (saturating).
pub(crate) fn at_most(q: &Poly, len: &Expr, symbols: &Symbols, span: Span) -> Option<Expr> {
    let (pos, neg) = q.split();
    let pos = eval(&pos, symbols, span)?;
    let neg = eval(&neg, symbols, span)?;
    let fits = bin(BinOp::Lt, pos.clone(), usize_lit(MAX, span), span);
    let room = if matches!(neg.kind, ExprKind::Int(0)) {
        len.clone()
    } else {
        sat_add(len.clone(), neg, span)
    };
    let within = bin(BinOp::Le, pos, room, span);
    Some(and(fits, within, span))
}

/// `a && b && ..` (`true` for none).
pub(crate) fn all(tests: Vec<Expr>, span: Span) -> Expr {
    let mut it = tests.into_iter();
    let first = it.next().unwrap_or(Expr {
        kind: ExprKind::Bool(true),
        ty: Ty::BOOL,
        span,
    });
    it.fold(first, |acc, t| and(acc, t, span))
}

/// The largest value a symbol can have: a launch dimension's limit, its type's when it
/// widens a narrower unsigned value (a `u32` parameter), `usize::MAX` otherwise.
fn symbol_max(key: &str, e: &Expr) -> i128 {
    match key {
        "GridDim.0" => return (1 << 31) - 1,
        "GridDim.1" | "GridDim.2" => return 65535,
        "BlockDim.0" | "BlockDim.1" => return 1024,
        "BlockDim.2" => return 64,
        _ => {}
    }
    match &e.kind {
        ExprKind::Cast(x) => match x.ty.as_scalar() {
            Some(crate::ty::Scalar::U8) => u8::MAX.into(),
            Some(crate::ty::Scalar::U16) => u16::MAX.into(),
            Some(crate::ty::Scalar::U32) => u32::MAX.into(),
            _ => MAX,
        },
        _ => MAX,
    }
}

/// The largest value of `p` (non-negative coefficients) when each symbol is at most its
/// [`symbol_max`], or at most `guard` when that is smaller (a symbol the test bounds
/// first); `None` when that can pass `usize::MAX`.
fn max_value(p: &Poly, symbols: &Symbols, guard: i128) -> Option<i128> {
    let mut sum: i128 = 0;
    for (m, &c) in &p.0 {
        let mut term = c;
        for s in m {
            term = term.checked_mul(symbol_max(s, symbols.get(s)?).min(guard))?;
        }
        sum = sum.checked_add(term)?;
    }
    (sum <= MAX).then_some(sum)
}

/// The IR computing `p` with plain (wrapping) `usize` arithmetic: exact when
/// [`max_value`] said it fits.
fn eval_plain(p: &Poly, symbols: &Symbols, span: Span) -> Option<Expr> {
    let mut sum: Option<Expr> = None;
    for (m, &c) in &p.0 {
        let mut term: Option<Expr> = (c != 1 || m.is_empty()).then(|| usize_lit(c, span));
        for s in m {
            let x = symbols.get(s)?.clone();
            term = Some(match term {
                None => x,
                Some(t) => bin(BinOp::Mul, t, x, span),
            });
        }
        let term = term.expect("a constant or a symbol");
        sum = Some(match sum {
            None => term,
            Some(acc) => bin(BinOp::Add, acc, term, span),
        });
    }
    Some(sum.unwrap_or_else(|| usize_lit(0, span)))
}

/// The limits a test may first bound its unbounded symbols by ([`cheap_at_most`]), largest
/// first: a symbol above one makes the test false (the checked body runs, correct).
const GUARDS: [i128; 3] = [u32::MAX as i128, i32::MAX as i128, (1 << 24) - 1];

/// The test `q <= len` without saturating arithmetic, when `q`'s two parts cannot wrap:
/// `pos <= len + neg` as `pos < neg || pos - neg <= len`. If needed, every symbol whose
/// range allows more is assumed at most one of [`GUARDS`] (the caller tests that first:
/// `guards` gets the symbol and its limit). `None` when even then `q` could wrap.
pub(crate) fn cheap_at_most(
    q: &Poly,
    len: &Expr,
    symbols: &Symbols,
    guards: &mut BTreeMap<String, i128>,
    span: Span,
) -> Option<Expr> {
    let (pos, neg) = q.split();
    let fits = |limit| {
        max_value(&pos, symbols, limit).is_some() && max_value(&neg, symbols, limit).is_some()
    };
    if !fits(MAX) {
        let limit = GUARDS.into_iter().find(|&l| fits(l))?;
        for s in pos.0.keys().chain(neg.0.keys()).flatten() {
            if symbol_max(s, symbols.get(s)?) > limit {
                let g = guards.entry(s.clone()).or_insert(limit);
                *g = (*g).min(limit);
            }
        }
    }
    let p = eval_plain(&pos, symbols, span)?;
    if neg.0.is_empty() {
        return Some(bin(BinOp::Le, p, len.clone(), span));
    }
    let n = eval_plain(&neg, symbols, span)?;
    let below = bin(BinOp::Lt, p.clone(), n.clone(), span);
    let within = bin(BinOp::Le, bin(BinOp::Sub, p, n, span), len.clone(), span);
    Some(Expr {
        kind: ExprKind::Or(Box::new(below), Box::new(within)),
        ty: Ty::BOOL,
        span,
    })
}

/// `symbol <= limit`, the test of a guarded symbol.
pub(crate) fn guard_test(symbol: &str, limit: i128, symbols: &Symbols, span: Span) -> Option<Expr> {
    let x = symbols.get(symbol)?.clone();
    Some(bin(BinOp::Le, x, usize_lit(limit, span), span))
}
