//! Comparisons of 64-bit integers computed in 32 bits where both operands fit (IR → IR,
//! every function, every build: it changes no check).
//!
//! A `usize` comparison costs a GPU two instructions (`ISETP` and `ISETP.EX`), and each
//! `+ - *` feeding it two or three, where CUDA C++'s `int` guard costs one each: laplace's
//! `i + 1 < nx` and jacobi's `i == n - 1` (`n: u32` widened before the subtraction) were most
//! of what their fast paths had over nvcc's (bench/NOTES.md §20–§23). When value ranges
//! (`passes::bounds`: launch limits, types, the guards around the comparison) put both
//! operands in `u32`'s range (`i32`'s for signed), the comparison of their low 32 bits has
//! the same result, and `+ - *` agree modulo 2³², so each operand may be computed in 32
//! bits from its operands truncated. The pass wraps both operands in [`Builtin::Fits32`];
//! the lowering does the rest (the simulator checks that they fit).
//!
//! The launch-selected fast copy of a versioned kernel (`passes::host`) may also assume what
//! the launch tests: each unsigned parameter, slice length and global index that its
//! comparisons (or `for` bounds) mention lies below 2³¹ (`global_id_x()` through
//! `grid_dim().x · block_dim().x <= 2³¹`). The tests are added only when they let a
//! comparison more be narrowed, and then for every value so assumed, so that what the
//! ranges derived from them (through guards) rests on a test. A launch past them runs the
//! checked body, as when a length test fails.
//!
//! Not narrowed: a `while` loop's own condition (`passes::counted` reads its form), and
//! comparisons of literals and values widened from 32 bits (LLVM compares those in 32 bits
//! already).

use std::collections::{HashMap, HashSet};

use super::bounds::{self, Launch};
use crate::ir::{
    Block, Builtin, Expr, ExprKind, Function, HostTest, HostValue, LocalId, Pattern, Program, Stmt,
};
use crate::options::KernelOptions;
use crate::ty::Ty;

/// What the fast copy may assume of a launch value it compares: at most this.
const ASSUMED: i128 = (1 << 31) - 1;

/// Runs the pass on every function of `program` (see the module's documentation).
pub(crate) fn run(program: &mut Program, options: &KernelOptions) {
    let launch = Launch::of(options);
    for f in program.functions.iter_mut() {
        narrow_function(f, launch, None);
    }
    let host = if options.host_tests {
        program.host_test.as_mut()
    } else {
        None
    };
    narrow_function(&mut program.kernel, launch, host);
}

fn narrow_function(f: &mut Function, launch: Launch, host: Option<&mut HostTest>) {
    let mut body = std::mem::replace(
        &mut f.body,
        Block {
            stmts: Vec::new(),
            tail: None,
            ty: Ty::Unit,
        },
    );
    let mut fits = bounds::fitting_comparisons(f, &mut body, launch, &[]);
    if let (Some(test), Some(fast)) = (host, fast_copy(&mut body)) {
        let assumed = assumptions(f, fast);
        if !assumed.is_empty() {
            let seeds: Vec<(String, bounds::Range)> = assumed
                .iter()
                .map(|a| (a.key.clone(), (0, ASSUMED)))
                .collect();
            let more = bounds::fitting_comparisons(f, fast, launch, &seeds);
            if more.iter().any(|e| !fits.contains(e)) {
                add_tests(test, &assumed);
                fits.extend(more);
            }
        }
    }
    let mut skip: HashSet<*const Expr> = HashSet::new();
    crate::walk::block(&body, &mut |e| {
        if let ExprKind::While(_, c, _) = &e.kind {
            skip.insert(&**c as *const Expr);
        }
    });
    crate::walk::block_mut(&mut body, &mut |e| {
        let key = e as *const Expr;
        if !fits.contains(&key) || skip.contains(&key) {
            return;
        }
        if let ExprKind::Binary(_, l, r, _) = &mut e.kind {
            wrap(l);
            wrap(r);
        }
    });
    f.body = body;
}

/// `e` as `Fits32(e)`.
fn wrap(e: &mut Expr) {
    let (ty, span) = (e.ty.clone(), e.span);
    let inner = std::mem::replace(
        e,
        Expr {
            kind: ExprKind::Unit,
            ty: Ty::Unit,
            span,
        },
    );
    *e = Expr {
        kind: ExprKind::Builtin(Builtin::Fits32, vec![inner]),
        ty,
        span,
    };
}

/// The launch-selected copy of a versioned kernel's body (`if flag { copy } else { .. }`).
fn fast_copy(body: &mut Block) -> Option<&mut Block> {
    if !body.stmts.is_empty() {
        return None;
    }
    let tail = body.tail.as_deref_mut()?;
    match &mut tail.kind {
        ExprKind::If(c, fast, Some(_))
            if matches!(c.kind, ExprKind::Builtin(Builtin::HostTest, _)) =>
        {
            Some(fast)
        }
        _ => None,
    }
}

/// A launch value the fast copy assumes below 2³¹: its key (`Pass::key`'s text) and what the
/// launch tests.
#[derive(PartialEq)]
struct Assumed {
    key: String,
    test: Vec<HostValue>,
    /// The product of `test` is at most this.
    limit: u64,
}

/// The launch values that the comparisons and `for` bounds of `fast` mention (through
/// immutable locals bound to them).
fn assumptions(f: &Function, fast: &Block) -> Vec<Assumed> {
    // Immutable locals and their values.
    let mut values: HashMap<LocalId, Expr> = HashMap::new();
    fn bind(f: &Function, p: &Pattern, init: &Expr, values: &mut HashMap<LocalId, Expr>) {
        match (p, &init.kind) {
            (Pattern::Local(id), _) if !f.locals[*id].mutable => {
                values.insert(*id, init.clone());
            }
            (Pattern::Tuple(ps), ExprKind::Tuple(xs)) if ps.len() == xs.len() => {
                for (p, x) in ps.iter().zip(xs) {
                    bind(f, p, x, values);
                }
            }
            _ => {}
        }
    }
    let mut lets: Vec<(Pattern, Expr)> = Vec::new();
    collect_lets(fast, &mut lets);
    crate::walk::block(fast, &mut |e| {
        let inner: Vec<&Block> = match &e.kind {
            ExprKind::If(_, t, els) => std::iter::once(t).chain(els.as_ref()).collect(),
            ExprKind::Loop(_, b) | ExprKind::While(_, _, b) | ExprKind::Block(b) => vec![b],
            ExprKind::For { body, .. } => vec![body],
            _ => Vec::new(),
        };
        for b in inner {
            collect_lets(b, &mut lets);
        }
    });
    for (p, init) in &lets {
        bind(f, p, init, &mut values);
    }
    let mut roots: Vec<Expr> = Vec::new();
    crate::walk::block(fast, &mut |e| match &e.kind {
        ExprKind::Binary(op, l, r, _) if op.is_comparison() => {
            roots.push((**l).clone());
            roots.push((**r).clone());
        }
        ExprKind::For {
            start, end, step, ..
        } => {
            roots.push((**start).clone());
            roots.push((**end).clone());
            if let Some((s, _)) = step {
                roots.push((**s).clone());
            }
        }
        _ => {}
    });
    let mut out: Vec<Assumed> = Vec::new();
    let mut seen: HashSet<LocalId> = HashSet::new();
    while let Some(root) = roots.pop() {
        crate::walk::expr(&root, &mut |e| {
            if let Some(a) = assumed(f, e) {
                if !out.contains(&a) {
                    out.push(a);
                }
            }
            if let ExprKind::Read(p) = &e.kind {
                if let Some(v) = values.get(&p.base) {
                    if seen.insert(p.base) {
                        roots.push(v.clone());
                    }
                }
            }
        });
    }
    out
}

/// The `let`s of `b` itself (not of its inner blocks).
fn collect_lets(b: &Block, out: &mut Vec<(Pattern, Expr)>) {
    for s in &b.stmts {
        if let Stmt::Let { pat, init } = s {
            out.push((pat.clone(), init.clone()));
        }
    }
}

/// The launch value `e` reads, if any: an immutable unsigned 64-bit parameter, an immutable
/// slice parameter's length, a global index.
fn assumed(f: &Function, e: &Expr) -> Option<Assumed> {
    let param = |id: LocalId| {
        let k = f.params.iter().position(|&p| p == id)?;
        (!f.locals[id].mutable).then_some(k)
    };
    match &e.kind {
        ExprKind::Read(p) if p.proj.is_empty() => {
            let wide = f.locals[p.base]
                .ty
                .as_scalar()
                .is_some_and(|s| s.is_int() && !s.is_signed() && s.bits() == 64);
            let k = param(p.base).filter(|_| wide)?;
            Some(Assumed {
                key: format!("l{}#", p.base),
                test: vec![HostValue::Scalar(k)],
                limit: ASSUMED as u64,
            })
        }
        ExprKind::Len(p) if p.proj.is_empty() => {
            if !matches!(f.locals[p.base].ty, Ty::Slice { .. }) {
                return None;
            }
            let k = param(p.base)?;
            Some(Assumed {
                key: format!("len(l{}#)", p.base),
                test: vec![HostValue::Len(k)],
                limit: ASSUMED as u64,
            })
        }
        ExprKind::Builtin(b @ Builtin::GlobalId(a), args) if args.is_empty() && *a < 3 => {
            Some(Assumed {
                key: format!("{b:?}"),
                test: vec![HostValue::GridDim(*a), HostValue::BlockDim(*a)],
                limit: ASSUMED as u64 + 1,
            })
        }
        _ => None,
    }
}

/// Adds `Π test <= limit` for each assumption to the launch's test.
fn add_tests(test: &mut HostTest, assumed: &[Assumed]) {
    let mut index = |v: HostValue| -> u32 {
        match test.values.iter().position(|&x| x == v) {
            Some(i) => i as u32,
            None => {
                test.values.push(v);
                test.values.len() as u32 - 1
            }
        }
    };
    let mut new = Vec::new();
    for a in assumed {
        let factors: Vec<u32> = a.test.iter().map(|&v| index(v)).collect();
        let limit = index(HostValue::Const(a.limit));
        new.push((vec![(1, factors)], limit));
    }
    test.tests.extend(new);
}
