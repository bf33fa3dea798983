//! Visiting every expression of the IR, children before parents.

use crate::ir::{Block, Expr, ExprKind, Place, Proj, Stmt};

/// Calls `f` on every expression in `block`, children first.
pub fn block_mut(block: &mut Block, f: &mut dyn FnMut(&mut Expr)) {
    for s in &mut block.stmts {
        match s {
            Stmt::Let { init, .. } => expr_mut(init, f),
            Stmt::Expr(e) => expr_mut(e, f),
        }
    }
    if let Some(t) = &mut block.tail {
        expr_mut(t, f);
    }
}

/// Calls `f` on the index expressions of a place.
pub fn place_mut(place: &mut Place, f: &mut dyn FnMut(&mut Expr)) {
    for p in &mut place.proj {
        if let Proj::Index { index, .. } = p {
            expr_mut(index, f);
        }
    }
}

/// Calls `f` on `e` and everything inside it, children first.
pub fn expr_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::Continue(_)
        | ExprKind::SliceRef(_) => {}
        ExprKind::Read(p) | ExprKind::Len(p) => place_mut(p, f),
        ExprKind::Assign(p, v) | ExprKind::CompoundAssign(_, p, v) => {
            place_mut(p, f);
            expr_mut(v, f);
        }
        ExprKind::Atomic(_, _, p, args) => {
            place_mut(p, f);
            for a in args {
                expr_mut(a, f);
            }
        }
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x)
        | ExprKind::Field(x, _)
        | ExprKind::Repeat(x, _) => expr_mut(x, f),
        ExprKind::Binary(_, a, b, _) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            expr_mut(a, f);
            expr_mut(b, f);
        }
        ExprKind::Tuple(xs)
        | ExprKind::Array(xs)
        | ExprKind::Builtin(_, xs)
        | ExprKind::Call(_, xs) => {
            for x in xs {
                expr_mut(x, f);
            }
        }
        ExprKind::If(c, t, e2) => {
            expr_mut(c, f);
            block_mut(t, f);
            if let Some(e2) = e2 {
                block_mut(e2, f);
            }
        }
        ExprKind::Loop(_, b) => block_mut(b, f),
        ExprKind::While(_, c, b) => {
            expr_mut(c, f);
            block_mut(b, f);
        }
        ExprKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            expr_mut(start, f);
            expr_mut(end, f);
            if let Some((s, _)) = step {
                expr_mut(s, f);
            }
            block_mut(body, f);
        }
        ExprKind::Break(_, v) | ExprKind::Return(v) => {
            if let Some(v) = v {
                expr_mut(v, f);
            }
        }
        ExprKind::Block(b) => block_mut(b, f),
        ExprKind::Panic(p) => {
            if let crate::ir::PanicWhen::Not(c) = &mut p.when {
                expr_mut(c, f);
            }
            for a in &mut p.args {
                expr_mut(a, f);
            }
        }
        ExprKind::Print(p) => {
            for a in &mut p.args {
                expr_mut(a, f);
            }
        }
        ExprKind::IndexCheck { index, len, .. } => {
            expr_mut(index, f);
            expr_mut(len, f);
        }
    }
    f(e);
}
