//! Grid-stride `while` loops proved to be counted loops (IR → IR annotation, every build).
//!
//! `while i < n { …; i += s }`, with `i` an unsigned local that only the last statement
//! assigns, `n` and `s` pure and the same on every turn, is the CUDA idiom for a grid-stride
//! loop. LLVM cannot count its turns: `i += s` wraps as far as it knows, and then the loop
//! would go on with a small `i`. When value ranges prove that `i + s` cannot wrap while
//! `i < n` (`max n − 1 + max s` fits `i`'s type) and that `s ≥ 1`, the loop is recorded in
//! [`Function::counted`]; the lowering then computes its last turn, `(n − 1 − i) / s`, on
//! entry, as for `(a..b).step_by(s)`, so that LLVM knows the trip count and unrolls it.
//! The IR is not changed (the simulator runs the loop as written): the annotation only says
//! that the two forms compute the same thing.
//!
//! What is proved, from the expressions alone (no guards): integer literals, slice lengths
//! (a device slice's bytes fit in `isize`, so `len ≤ 2⁶³ − 1`), `block_dim()` and `grid_dim()`
//! fields and `grid_stride_*()` (≥ 1; the kernel's declared block when it has one), casts, immutable locals by
//! their initial value, and `+`, `*` of those; anything else has its type's whole range.
//! A loop that these ranges allow at most `SHORT` (4) turns is not recorded.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    BinOp, Block, Builtin, Expr, ExprKind, Function, LocalId, LoopId, Pattern, Place, Proj, Stmt,
};
use crate::ty::Ty;

use super::bounds::{type_range, Range};
use super::pattern_locals;

/// Largest grid per axis (`grid_dim()`).
const MAX_GRID: [i128; 3] = [(1 << 31) - 1, 65535, 65535];

/// Loops that can make at most this many turns are left as written: unrolling cannot save
/// more than a few branches there, and the runtime trip count that the counted lowering
/// computes invites it anyway. convolve_rows' tile loop (`while j < 144 { …; j += 128 }`, one
/// or two turns) counted became a 64-bit turn counter that ptxas unrolled by 4 with a
/// remainder loop (272 → 416 SASS instructions), and the kernel went from 1.0 to 0.92 of nvcc
/// (bench/NOTES.md, 2026-12-02). Left as written, its exit test stays `j < 144`.
const SHORT: i128 = 4;

/// The most turns `while i < n { …; i += s }` can make from any `i ≥ 0`, for `n` and `s` in
/// their ranges (`s ≥ 1`): `⌈max n / min s⌉`.
fn most_turns(n: Range, s: Range) -> i128 {
    if n.1 <= 0 {
        return 0;
    }
    (n.1 + s.0 - 1) / s.0
}

/// Records in `f.counted` the `while` loops of `f` that are counted loops; `block` is the
/// kernel's exact block shape when it declares one, `max_block` the largest per axis.
pub(crate) fn run(f: &mut Function, max_block: [i128; 3]) {
    let found = {
        let f: &Function = f;
        let mut pass = Pass {
            f,
            lets: HashMap::new(),
            assigned: HashSet::new(),
            max_block,
            found: Vec::new(),
        };
        pass.collect_lets(&f.body);
        pass.block(&f.body);
        pass.found
    };
    f.counted = found;
}

/// The parts of a counted `while`: the induction local, the bound `n` and the step `s`.
pub(crate) struct Parts<'a> {
    /// `i` as the condition reads it.
    pub read: &'a Expr,
    /// `i` as a place.
    pub place: &'a Place,
    /// `n` in `i < n`.
    pub bound: &'a Expr,
    /// `s` in the last statement, `i += s`.
    pub step: &'a Expr,
}

/// `while cond { body }` as `while i < n { …; i += s }`, its shape only (not the proof).
pub(crate) fn parts<'a>(
    f: &Function,
    id: LoopId,
    cond: &'a Expr,
    body: &'a Block,
) -> Option<Parts<'a>> {
    let ExprKind::Binary(BinOp::Lt, l, bound, None) = &cond.kind else {
        return None;
    };
    let var = plain_local(l)?;
    let ExprKind::Read(place) = &l.kind else {
        return None;
    };
    let Ty::Scalar(s) = &l.ty else { return None };
    if !s.is_int() || s.is_signed() || !f.locals[var].mutable || body.tail.is_some() {
        return None;
    }
    let Some(Stmt::Expr(last)) = body.stmts.last() else {
        return None;
    };
    let step = match &last.kind {
        ExprKind::CompoundAssign(BinOp::Add, p, s) if place_local(p) == Some(var) => &**s,
        ExprKind::Assign(p, v) if place_local(p) == Some(var) => match &v.kind {
            ExprKind::Binary(BinOp::Add, a, s, None) if plain_local(a) == Some(var) => &**s,
            _ => return None,
        },
        _ => return None,
    };
    // Nothing else assigns `i`, and no `continue` skips the step.
    let rest = &body.stmts[..body.stmts.len() - 1];
    let mut clean = true;
    for s in rest {
        let e = match s {
            Stmt::Let { init, .. } => init,
            Stmt::Expr(e) => e,
        };
        crate::walk::expr(e, &mut |x| match &x.kind {
            ExprKind::Continue(c) if *c == id => clean = false,
            ExprKind::Assign(p, _)
            | ExprKind::CompoundAssign(_, p, _)
            | ExprKind::Atomic(_, _, p, _) => clean &= p.base != var,
            _ => {}
        });
    }
    // The step is evaluated before the loop: it may not read a local the body declares.
    let mut inner = HashSet::new();
    declared(body, &mut inner);
    crate::walk::expr(step, &mut |x| {
        if let ExprKind::Read(p) = &x.kind {
            clean &= !inner.contains(&p.base);
        }
    });
    clean.then_some(Parts {
        read: l,
        place,
        bound,
        step,
    })
}

/// The locals that `let`s in `b` (at any depth) declare.
fn declared(b: &Block, out: &mut HashSet<LocalId>) {
    fn expr(e: &Expr, out: &mut HashSet<LocalId>) {
        let (xs, bs) = crate::walk::children(e);
        xs.into_iter().for_each(|x| expr(x, out));
        bs.into_iter().for_each(|b| declared(b, out));
    }
    for s in &b.stmts {
        match s {
            Stmt::Let { pat, init } => {
                pattern_locals(pat, out);
                expr(init, out);
            }
            Stmt::Expr(e) => expr(e, out),
        }
    }
    if let Some(t) = &b.tail {
        expr(t, out);
    }
}

/// The smallest range holding every one of `ranges` (`None` if any is unknown or there are
/// none).
fn hull(ranges: impl Iterator<Item = Option<Range>>) -> Option<Range> {
    let mut all: Option<Range> = None;
    for r in ranges {
        let r = r?;
        all = Some(all.map_or(r, |a| (a.0.min(r.0), a.1.max(r.1))));
    }
    all
}

fn plain_local(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Read(p) => place_local(p),
        _ => None,
    }
}

fn place_local(p: &Place) -> Option<LocalId> {
    p.proj.is_empty().then_some(p.base)
}

struct Pass<'a> {
    f: &'a Function,
    /// Immutable locals bound by `let x = init`, with their initial values: more than one
    /// where `bounds` versioned the body (the copy binds the same locals again), and the
    /// local's range is then the hull of its values' ranges.
    lets: HashMap<LocalId, Vec<&'a Expr>>,
    /// Locals that an assignment writes (whatever their declaration says).
    assigned: HashSet<LocalId>,
    max_block: [i128; 3],
    found: Vec<LoopId>,
}

impl<'a> Pass<'a> {
    fn collect_lets(&mut self, b: &'a Block) {
        for s in &b.stmts {
            match s {
                Stmt::Let {
                    pat: Pattern::Local(id),
                    init,
                } if !self.f.locals[*id].mutable => {
                    // A local bound twice (the versioned copy's `let`s bind the same locals
                    // again) holds one of its values wherever it is read.
                    self.lets.entry(*id).or_default().push(init);
                    self.collect_expr(init);
                }
                Stmt::Let { init, .. } | Stmt::Expr(init) => self.collect_expr(init),
            }
        }
        if let Some(t) = &b.tail {
            self.collect_expr(t);
        }
    }

    fn collect_expr(&mut self, e: &'a Expr) {
        if let ExprKind::Assign(p, _) | ExprKind::CompoundAssign(_, p, _) = &e.kind {
            self.assigned.insert(p.base);
        }
        let (xs, bs) = crate::walk::children(e);
        for x in xs {
            self.collect_expr(x);
        }
        for b in bs {
            self.collect_lets(b);
        }
    }

    fn block(&mut self, b: &Block) {
        crate::walk::block(b, &mut |e| {
            if let ExprKind::While(id, cond, body) = &e.kind {
                if self.proved(*id, cond, body) {
                    self.found.push(*id);
                }
            }
        });
    }

    fn proved(&self, id: LoopId, cond: &Expr, body: &Block) -> bool {
        let Some(p) = parts(self.f, id, cond, body) else {
            return false;
        };
        let (Some(n), Some(s)) = (self.range(p.bound, 0), self.range(p.step, 0)) else {
            return false;
        };
        let max = type_range(&cond_ty(cond)).1;
        s.0 >= 1 && n.1 - 1 + s.1 <= max && most_turns(n, s) > SHORT
    }

    /// The values `e` can have when it is pure (no memory read but immutable locals, no
    /// effect), else `None`.
    fn range(&self, e: &Expr, depth: usize) -> Option<Range> {
        if depth > 32 {
            return None;
        }
        let t = type_range(&e.ty);
        let fixed = |id: LocalId| !self.f.locals[id].mutable && !self.assigned.contains(&id);
        let r = match &e.kind {
            ExprKind::Int(v) => (*v, *v),
            ExprKind::Len(p) if p.proj.is_empty() && fixed(p.base) => (0, i128::from(i64::MAX)),
            ExprKind::Read(p) if fixed(p.base) => match p.proj.as_slice() {
                [] => match self.lets.get(&p.base) {
                    Some(inits) => hull(inits.iter().map(|i| self.range(i, depth + 1)))?,
                    None if self.f.params.contains(&p.base) => t,
                    None => return None,
                },
                [Proj::Field(k)] => {
                    let inits = self.lets.get(&p.base)?;
                    hull(inits.iter().map(|i| self.dim3_field(i, *k)))?
                }
                _ => return None,
            },
            ExprKind::Field(x, k) => self.dim3_field(x, *k)?,
            ExprKind::Builtin(Builtin::GridStride(a), args) if args.is_empty() => {
                let a = *a as usize % 3;
                (1, MAX_GRID[a] * self.max_block[a])
            }
            ExprKind::Cast(x) => {
                let r = self.range(x, depth + 1)?;
                // Only casts that keep the value (else the type's range).
                if r.0 >= t.0 && r.1 <= t.1 {
                    r
                } else {
                    t
                }
            }
            ExprKind::Binary(op, a, b, None) => {
                let (x, y) = (self.range(a, depth + 1)?, self.range(b, depth + 1)?);
                let exact = match op {
                    BinOp::Add => x.0.checked_add(y.0).zip(x.1.checked_add(y.1)),
                    BinOp::Mul if x.0 >= 0 && y.0 >= 0 => {
                        x.0.checked_mul(y.0).zip(x.1.checked_mul(y.1))
                    }
                    _ => return None,
                };
                // Wrapping arithmetic: outside the type's range, anything in it.
                match exact {
                    Some(r) if r.0 >= t.0 && r.1 <= t.1 => r,
                    _ => t,
                }
            }
            _ => return None,
        };
        Some(r)
    }

    /// The range of field `k` of `e` when `e` is `block_dim()` or `grid_dim()`.
    fn dim3_field(&self, e: &Expr, k: u32) -> Option<Range> {
        let axis = k as usize % 3;
        match &e.kind {
            ExprKind::Builtin(Builtin::BlockDim, a) if a.is_empty() => {
                Some((1, self.max_block[axis]))
            }
            ExprKind::Builtin(Builtin::GridDim, a) if a.is_empty() => Some((1, MAX_GRID[axis])),
            _ => None,
        }
    }
}

fn cond_ty(cond: &Expr) -> Ty {
    match &cond.kind {
        ExprKind::Binary(_, l, _, _) => l.ty.clone(),
        _ => cond.ty.clone(),
    }
}
