//! Index checks first, loads after: the checks of an expression's reads run before any of its
//! loads, so the loads issue back to back instead of each waiting behind the previous check's
//! branch (a load cannot move above a branch that guards it).
//!
//! This applies to a `let` initializer, an assignment's value and its place, and a compound
//! assignment, when everything in them is pure (arithmetic, casts, reads, tuples and arrays,
//! index and math built-ins) and every index is computed without reading memory. The checks
//! run in Rust's evaluation order, so the first that fails is the one Rust would report; the
//! only difference is that loads Rust would have made before it are not made, which nothing
//! can observe.

use inkwell::IntPredicate;

use super::{ok, FnLower, Slot};
use crate::ir::{Builtin, Expr, ExprKind, Place, Proj};
use crate::ty::Ty;

impl<'ctx> FnLower<'_, 'ctx> {
    /// Runs the checks of the reads in `value` and then of `place` (when given) up front, if
    /// all of them qualify; [`FnLower::checked_site`] then skips them where the accesses are
    /// lowered.
    pub(crate) fn precheck(&mut self, place: Option<&Place>, value: &Expr) {
        if self.panic_fn.is_none() || !pure(value) || !place.is_none_or(simple_place) {
            return;
        }
        let mut places = Vec::new();
        reads(value, &mut places);
        places.extend(place);
        let accesses = places
            .iter()
            .filter(|p| {
                p.proj
                    .iter()
                    .any(|j| matches!(j, Proj::Index { site: Some(_), .. }))
            })
            .count();
        if accesses < 2 {
            return; // nothing to batch
        }
        for p in places {
            self.precheck_place(p);
        }
    }

    /// The check site of an index projection, unless [`FnLower::precheck`] already ran it.
    pub(crate) fn checked_site(&self, proj: &Proj) -> Option<u32> {
        match proj {
            Proj::Index { site, .. } if !self.prechecked.contains(&(proj as *const Proj)) => *site,
            _ => None,
        }
    }

    /// Runs the index checks of `place` (as `place_ptr` would) and marks them done.
    fn precheck_place(&mut self, place: &Place) {
        let i64t = self.ctx.i64_type();
        let mut ty = self.ir.locals[place.base].ty.clone();
        let slot = self.slot(place.base);
        for proj in &place.proj {
            let len = match (&ty, slot) {
                (Ty::Slice { elem, .. }, Slot::Slice { len, .. }) => {
                    let next = Ty::Scalar(*elem);
                    (len, next)
                }
                (Ty::Shared { elem, dims }, _) if dims.is_empty() => {
                    (self.dynamic_shared_len(*elem), Ty::Scalar(*elem))
                }
                (Ty::Shared { elem, dims }, _) => {
                    let next = if dims.len() > 1 {
                        Ty::Shared {
                            elem: *elem,
                            dims: dims[1..].to_vec(),
                        }
                    } else {
                        Ty::Scalar(*elem)
                    };
                    (i64t.const_int(dims[0], false), next)
                }
                (Ty::Array(elem, n), _) => (i64t.const_int(*n, false), (**elem).clone()),
                (Ty::Tuple(ts), _) => {
                    let Proj::Field(i) = proj else {
                        unreachable!("tuples are projected by field")
                    };
                    ty = ts[*i as usize].clone();
                    continue;
                }
                _ => return, // a Dim3 field: nothing left to check
            };
            let (len, next) = len;
            if let Proj::Index {
                index,
                site: Some(site),
            } = proj
            {
                let idx = self.expr(index).expect("usize index").into_int_value();
                let bad = ok!(self.b.build_int_compare(IntPredicate::UGE, idx, len, "oob"));
                self.check(bad, *site, idx, len);
                self.prechecked.insert(proj as *const Proj);
            }
            ty = next;
        }
    }
}

/// Whether evaluating `e` has no effect but its value, and its reads' indices read no memory.
fn pure(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::Len(_) => true,
        ExprKind::Read(place) => simple_place(place),
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x)
        | ExprKind::Field(x, _)
        | ExprKind::Repeat(x, _) => pure(x),
        ExprKind::Binary(_, l, r, site) => site.is_none() && pure(l) && pure(r),
        ExprKind::Tuple(xs) | ExprKind::Array(xs) => xs.iter().all(pure),
        ExprKind::Builtin(b, args) => pure_builtin(*b) && args.iter().all(pure),
        _ => false,
    }
}

/// Built-ins without effects, which every thread may evaluate in any order.
fn pure_builtin(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::ThreadIdx
            | Builtin::BlockIdx
            | Builtin::BlockDim
            | Builtin::GridDim
            | Builtin::GlobalId(_)
            | Builtin::GridStride(_)
            | Builtin::LaneId
            | Builtin::WarpId
            | Builtin::Math(_)
    )
}

/// A place whose every index is [`simple`].
fn simple_place(place: &Place) -> bool {
    place.proj.iter().all(|p| match p {
        Proj::Index { index, .. } => simple(index),
        Proj::Field(_) => true,
    })
}

/// An index computed from locals, constants, lengths and index built-ins, reading no memory.
fn simple(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Len(_) => true,
        ExprKind::Read(place) => place.proj.iter().all(|p| matches!(p, Proj::Field(_))),
        ExprKind::Unary(_, x) | ExprKind::Cast(x) | ExprKind::Field(x, _) => simple(x),
        ExprKind::Binary(_, l, r, site) => site.is_none() && simple(l) && simple(r),
        ExprKind::Builtin(b, args) => {
            pure_builtin(*b) && !matches!(b, Builtin::Math(_)) && args.iter().all(simple)
        }
        _ => false,
    }
}

/// The places `e` reads, in evaluation order.
fn reads<'e>(e: &'e Expr, out: &mut Vec<&'e Place>) {
    match &e.kind {
        ExprKind::Read(place) => out.push(place),
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x)
        | ExprKind::Field(x, _)
        | ExprKind::Repeat(x, _) => reads(x, out),
        ExprKind::Binary(_, l, r, _) => {
            reads(l, out);
            reads(r, out);
        }
        ExprKind::Tuple(xs) | ExprKind::Array(xs) | ExprKind::Builtin(_, xs) => {
            xs.iter().for_each(|x| reads(x, out))
        }
        _ => {}
    }
}
