//! 32-bit index arithmetic where it is exact (IR → IR, the kernel only, every build).
//!
//! Indices are `usize`, and a 64-bit `+` costs a GPU two instructions, a 64-bit `*` three,
//! and each address two more (`LEA`, `LEA.HI.X`), where CUDA C++'s `int` indices cost one
//! each and one `IMAD.WIDE` per address (bench/NOTES.md §8, §16: laplace and jacobi_2d at
//! 0.96 of nvcc with no check left). `+ - *` agree modulo 2³²: an index computed in 32 bits
//! from its operands truncated is the 64-bit index whenever that index fits, whatever the
//! operands and intermediate values were. An index into a slice is below the slice's
//! length when the access is known to be in range (its check elided: `InRange`,
//! `Versioned`, `Prechecked`). So when the launch has tested the slice's length, such an
//! index may be computed in 32 bits: the pass wraps it in [`Builtin::Narrow`], which the
//! lowering computes that way (and the simulator checks that it fits).
//!
//! The literals added at the index's root stay outside, in 64 bits, so that they remain
//! address offsets (`inp[idx - 1]`, `inp[idx + 1]`: one address, `[a-4]` and `[a+4]`, as
//! nvcc makes of `int` indices): `x + c` is computed as `sext(x mod 2³²) + c`, exact when
//! `x` lies in `[-2³¹, 2³¹)`. With `|c| <= M` for every such literal of slice `s` and an index
//! `v = x + c` below `len(s)`, the launch's test `len(s) + M <= 2³¹` gives `0 <= v < 2³¹ - M`,
//! so `x = v - c` lies in `[-M, 2³¹)`.
//!
//! Where it applies: the fast copy of a checked kernel that `passes::bounds` versioned with
//! a launch-evaluated test, that test extended ([`Program::host_test`], `passes::host`), so a
//! slice of 2³¹ elements or more runs the checked body. (An `unchecked` kernel's copy of its
//! body with 32-bit indices, chosen by the same kind of test, measured nothing on laplace,
//! 0.968 of nvcc both ways: bench/NOTES.md, `stencil`; not kept.)
//!
//! Only indices whose arithmetic multiplies a 64-bit value (`j * nx + i` with `nx: usize`)
//! are narrowed: elsewhere (`x[i]`, `x[base + t + 256 * j]`, `(y as usize) * (w as usize)`) the
//! 64-bit form costs about as much, and narrowing only makes the two copies' common code
//! harder for LLVM to share. Only indices of the kernel's own slice parameters (the launch knows
//! their lengths), never reassigned.

use std::collections::BTreeMap;

use crate::ir::{
    BinOp, Block, Builtin, Elision, Expr, ExprKind, Function, HostTest, HostValue, Place, Program,
    Proj, SiteId,
};
use crate::options::KernelOptions;
use crate::ty::Ty;

/// A slice narrowed has at most this many elements less its largest root offset.
const LIMIT: u64 = 1 << 31;

/// The largest literal kept outside the 32-bit computation ([`split_offset`]).
const MAX_OFFSET: i128 = 1 << 20;

/// Runs the pass on the kernel of `program` (see the module's documentation).
pub(crate) fn run(program: &mut Program, options: &KernelOptions) {
    if !options.host_tests || !options.prove_bounds {
        return;
    }
    if program.host_test.is_some() {
        narrow_fast_copy(program);
    }
}

/// A checked kernel versioned by the launch: narrows its fast copy's in-range indices.
fn narrow_fast_copy(program: &mut Program) {
    let Program {
        kernel: f,
        sites,
        host_test,
        ..
    } = program;
    let Some(test) = host_test.as_mut() else {
        return;
    };
    if !f.body.stmts.is_empty() {
        return;
    }
    let params = Params::of(f);
    let Some(tail) = f.body.tail.as_deref_mut() else {
        return;
    };
    let ExprKind::If(c, fast, Some(_)) = &mut tail.kind else {
        return;
    };
    if !matches!(c.kind, ExprKind::Builtin(Builtin::HostTest, _)) {
        return;
    }
    let in_range = |site: Option<SiteId>| {
        site.is_some_and(|s| {
            matches!(
                sites[s as usize].elided,
                Some(Elision::InRange | Elision::Versioned | Elision::Prechecked)
            )
        })
    };
    let narrowed = narrow_block(fast, &params, &in_range);
    add_tests(test, &narrowed);
}

/// The kernel's slice parameters that it never reassigns: (local, position, type).
struct Params(Vec<(usize, usize, Ty)>);

impl Params {
    fn of(f: &Function) -> Params {
        Params(
            f.params
                .iter()
                .enumerate()
                .filter(|(_, &id)| {
                    let l = &f.locals[id];
                    matches!(l.ty, Ty::Slice { .. }) && !l.mutable
                })
                .map(|(k, &id)| (id, k, f.locals[id].ty.clone()))
                .collect(),
        )
    }

    /// The position among the parameters of slice parameter `local`.
    fn position(&self, local: usize) -> Option<usize> {
        self.0
            .iter()
            .find(|(id, _, _)| *id == local)
            .map(|(_, k, _)| *k)
    }

    /// The type of slice parameter `local` (one that [`Params::position`] finds).
    fn ty(&self, local: usize) -> Ty {
        let found = self.0.iter().find(|(id, _, _)| *id == local);
        found.map(|(_, _, t)| t.clone()).unwrap_or(Ty::Unit)
    }
}

/// Wraps in [`Builtin::Narrow`] each index of `b` into a slice parameter whose access
/// `in_range` (given its site) holds and whose root is arithmetic; returns the positions of
/// the slice parameters so indexed, each with its largest root offset ([`split_offset`]).
fn narrow_block(
    b: &mut Block,
    params: &Params,
    in_range: &dyn Fn(Option<SiteId>) -> bool,
) -> BTreeMap<usize, i128> {
    let mut narrowed = BTreeMap::new();
    crate::walk::block_mut(b, &mut |e| {
        let place = match &mut e.kind {
            ExprKind::Read(p)
            | ExprKind::Assign(p, _)
            | ExprKind::CompoundAssign(_, p, _)
            | ExprKind::Atomic(_, _, p, _) => p,
            _ => return,
        };
        if let Some((k, offset)) = narrow_place(place, params, in_range) {
            let m = narrowed.entry(k).or_insert(0);
            *m = offset.abs().max(*m);
        }
    });
    narrowed
}

fn narrow_place(
    p: &mut Place,
    params: &Params,
    in_range: &dyn Fn(Option<SiteId>) -> bool,
) -> Option<(usize, i128)> {
    let k = params.position(p.base)?;
    let p_ty = params.ty(p.base);
    let Some(Proj::Index { index, site }) = p.proj.first_mut() else {
        return None;
    };
    if index.ty != Ty::USIZE || !wide_mul(index) || !in_range(*site) {
        return None;
    }
    let offset = split_offset(index).1;
    let span = index.span;
    let len = Expr {
        kind: ExprKind::Len(Place {
            base: p.base,
            proj: Vec::new(),
            ty: p_ty.clone(),
        }),
        ty: Ty::USIZE,
        span,
    };
    let inner = std::mem::replace(
        &mut **index,
        Expr {
            kind: ExprKind::Unit,
            ty: Ty::Unit,
            span,
        },
    );
    **index = Expr {
        kind: ExprKind::Builtin(Builtin::Narrow, vec![inner, len]),
        ty: Ty::USIZE,
        span,
    };
    Some((k, offset))
}

/// Whether the `+ - *` tree at `e`'s root multiplies two values of which one is 64-bit
/// (`j * nx` with `nx` a `usize`: three instructions, where one `IMAD.WIDE.U32` multiplies
/// two widened `u32`s, a literal factor is a shift or one `IMAD`, and the address's two
/// instructions that narrowing saves otherwise are a wash).
fn wide_mul(e: &Expr) -> bool {
    let small = |x: &Expr| match &x.kind {
        ExprKind::Cast(y) => {
            y.ty.as_scalar()
                .is_some_and(|s| s.is_int() && s.bits() <= 32)
        }
        _ => false,
    };
    let literal = |x: &Expr| matches!(x.kind, ExprKind::Int(_));
    match &e.kind {
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b, _) if e.ty == Ty::USIZE => {
            wide_mul(a) || wide_mul(b)
        }
        ExprKind::Binary(BinOp::Mul, a, b, _) if e.ty == Ty::USIZE => {
            let wide = !(literal(a) || literal(b) || small(a) && small(b));
            wide || wide_mul(a) || wide_mul(b)
        }
        _ => false,
    }
}

/// `e` as `x + c`: the literals added to or subtracted from its root (`idx - 1` is
/// `(idx, -1)`, `base + t + 768` is `(base + t, 768)`); `c = 0` when there are none or
/// they add up past [`MAX_OFFSET`].
pub(crate) fn split_offset(e: &Expr) -> (&Expr, i128) {
    let (mut x, mut c) = (e, 0i128);
    loop {
        let (rest, k) = match &x.kind {
            ExprKind::Binary(BinOp::Add, a, b, _) => match (&a.kind, &b.kind) {
                (_, ExprKind::Int(k)) => (&**a, *k),
                (ExprKind::Int(k), _) => (&**b, *k),
                _ => break,
            },
            ExprKind::Binary(BinOp::Sub, a, b, _) => match &b.kind {
                ExprKind::Int(k) => (&**a, -*k),
                _ => break,
            },
            _ => break,
        };
        c += k;
        if c.abs() > MAX_OFFSET {
            return (e, 0);
        }
        x = rest;
    }
    (x, c)
}

/// Adds `len(s) + M <= 2³¹` for each slice parameter position in `slices` (with its
/// largest root offset `M`) to `test`.
fn add_tests(test: &mut HostTest, slices: &BTreeMap<usize, i128>) {
    let mut index = |v: HostValue| -> u32 {
        match test.values.iter().position(|&x| x == v) {
            Some(i) => i as u32,
            None => {
                test.values.push(v);
                test.values.len() as u32 - 1
            }
        }
    };
    let limit = index(HostValue::Const(LIMIT));
    let mut new = Vec::new();
    for (&k, &m) in slices {
        let len = index(HostValue::Len(k));
        let mut terms = vec![(1, vec![len])];
        if m > 0 {
            terms.push((m, Vec::new()));
        }
        new.push((terms, limit));
    }
    test.tests.extend(new);
}
