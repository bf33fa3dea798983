//! Host-evaluated versioning, for `passes::bounds`: when every symbol of a versioned kernel's
//! test `P` (each `q <= len(s)`) is a value the launch knows (a slice parameter's length, an
//! unsigned scalar parameter, a grid or block dimension), the launch evaluates `P` exactly
//! ([`cuprum_abi::versioning::holds`], from the lengths of the views it passes) and hands the
//! kernel the result as a hidden `u32` parameter: one uniform branch per thread instead of a
//! test of a few dozen instructions (bench/NOTES.md, laplace).
//!
//! Soundness: a symbol's value in the test must be the value the kernel reads. A parameter
//! qualifies only if the kernel never reassigns it (so its value anywhere is the one
//! launched), a length only of a slice parameter (the kernel's `len` parameter is what the
//! launch computes it from), a dimension only as `grid_dim()`/`block_dim()` widened from
//! `u32`. Anything else keeps the test in the kernel.

use super::bounds::Limit;
use super::poly::{Poly, Symbols};
use crate::ir::{Builtin, Expr, ExprKind, Function, HostTest, HostValue, LocalId, Place};
use crate::ty::{Scalar, Ty};

/// The launch's test that each `q <= limit` of `needed` (a slice's length or a constant), or
/// `None` when a symbol is not a launch value.
pub(crate) fn test(f: &Function, needed: &[(Limit, Poly)], symbols: &Symbols) -> Option<HostTest> {
    let mut values: Vec<HostValue> = Vec::new();
    let mut index = |v: HostValue| -> u32 {
        match values.iter().position(|&x| x == v) {
            Some(i) => i as u32,
            None => {
                values.push(v);
                values.len() as u32 - 1
            }
        }
    };
    let mut tests = Vec::new();
    for (limit, q) in needed {
        let len = index(match *limit {
            Limit::Len(slice) => HostValue::Len(param_index(f, slice)?),
            Limit::Fixed(n) => HostValue::Const(u64::try_from(n).ok()?),
        });
        let mut terms = Vec::new();
        for (monomial, &c) in &q.0 {
            let mut factors = Vec::new();
            for s in monomial {
                factors.push(index(host_value(f, symbols.get(s)?)?));
            }
            terms.push((c, factors));
        }
        tests.push((terms, len));
    }
    // A length of a slice parameter that `host_value` did not check: only parameters.
    for v in &values {
        if let HostValue::Len(k) = v {
            let local = &f.locals[f.params[*k]];
            if !matches!(local.ty, Ty::Slice { .. }) || local.mutable {
                return None;
            }
        }
    }
    Some(HostTest { values, tests })
}

/// The kernel's read of the launch's flag.
pub(crate) fn flag(span: proc_macro2::Span) -> Expr {
    Expr {
        kind: ExprKind::Builtin(Builtin::HostTest, Vec::new()),
        ty: Ty::BOOL,
        span,
    }
}

/// The position of local `id` among the parameters, when it is one the kernel never
/// reassigns.
fn param_index(f: &Function, id: LocalId) -> Option<usize> {
    let k = f.params.iter().position(|&p| p == id)?;
    (!f.locals[id].mutable).then_some(k)
}

/// The launch value a symbol's IR (see `Pass::sym_of`, `Pass::launch_dim`) computes.
fn host_value(f: &Function, e: &Expr) -> Option<HostValue> {
    if e.ty != Ty::USIZE {
        return None;
    }
    let whole = |p: &Place| p.proj.is_empty().then_some(p.base);
    match &e.kind {
        ExprKind::Len(p) => {
            let id = whole(p)?;
            matches!(f.locals[id].ty, Ty::Slice { .. })
                .then(|| param_index(f, id).map(HostValue::Len))
                .flatten()
        }
        ExprKind::Read(p) => Some(HostValue::Scalar(scalar_param(f, whole(p)?)?)),
        ExprKind::Cast(x) => match &x.kind {
            ExprKind::Read(p) if x.ty.as_scalar().is_some_and(narrow_unsigned) => {
                Some(HostValue::Scalar(scalar_param(f, whole(p)?)?))
            }
            ExprKind::Field(d, axis) if x.ty == Ty::U32 && *axis < 3 => match &d.kind {
                ExprKind::Builtin(Builtin::GridDim, a) if a.is_empty() => {
                    Some(HostValue::GridDim(*axis as u8))
                }
                ExprKind::Builtin(Builtin::BlockDim, a) if a.is_empty() => {
                    Some(HostValue::BlockDim(*axis as u8))
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// Unsigned integers of at most 64 bits (their value is the same as a `u64`).
fn narrow_unsigned(s: Scalar) -> bool {
    matches!(
        s,
        Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 | Scalar::Usize
    )
}

/// The index of an unsigned scalar parameter `id` the kernel never reassigns.
fn scalar_param(f: &Function, id: LocalId) -> Option<usize> {
    let ok = f.locals[id].ty.as_scalar().is_some_and(narrow_unsigned);
    ok.then(|| param_index(f, id)).flatten()
}
