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

/// Calls `f` on every expression in `block`, children first, without changing anything.
pub fn block(block: &Block, f: &mut dyn FnMut(&Expr)) {
    for s in &block.stmts {
        match s {
            Stmt::Let { init, .. } => expr(init, f),
            Stmt::Expr(e) => expr(e, f),
        }
    }
    if let Some(t) = &block.tail {
        expr(t, f);
    }
}

/// The direct sub-expressions and blocks of `e`, in evaluation order (a block's own
/// expressions are not listed: visit them with [`block`]).
pub fn children<'e>(e: &'e Expr) -> (Vec<&'e Expr>, Vec<&'e Block>) {
    let mut xs: Vec<&Expr> = Vec::new();
    let mut bs: Vec<&Block> = Vec::new();
    let place_indices = |p: &'e Place, xs: &mut Vec<&'e Expr>| {
        for j in &p.proj {
            if let Proj::Index { index, .. } = j {
                xs.push(index);
            }
        }
    };
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::Continue(_)
        | ExprKind::SliceRef(_) => {}
        ExprKind::Read(p) | ExprKind::Len(p) => place_indices(p, &mut xs),
        ExprKind::Assign(p, v) | ExprKind::CompoundAssign(_, p, v) => {
            place_indices(p, &mut xs);
            xs.push(v);
        }
        ExprKind::Atomic(_, _, p, args) => {
            place_indices(p, &mut xs);
            xs.extend(args.iter());
        }
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x)
        | ExprKind::Field(x, _)
        | ExprKind::Repeat(x, _) => xs.push(x),
        ExprKind::Binary(_, a, b, _) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            xs.push(a);
            xs.push(b);
        }
        ExprKind::Tuple(v)
        | ExprKind::Array(v)
        | ExprKind::Builtin(_, v)
        | ExprKind::Call(_, v) => xs.extend(v.iter()),
        ExprKind::If(c, t, e2) => {
            xs.push(c);
            bs.push(t);
            bs.extend(e2.iter());
        }
        ExprKind::Loop(_, b) | ExprKind::Block(b) => bs.push(b),
        ExprKind::While(_, c, b) => {
            xs.push(c);
            bs.push(b);
        }
        ExprKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            xs.push(start);
            xs.push(end);
            if let Some((s, _)) = step {
                xs.push(s);
            }
            bs.push(body);
        }
        ExprKind::Break(_, v) | ExprKind::Return(v) => xs.extend(v.as_deref()),
        ExprKind::Panic(p) => {
            if let crate::ir::PanicWhen::Not(c) = &p.when {
                xs.push(c);
            }
            xs.extend(p.args.iter());
        }
        ExprKind::Print(p) => xs.extend(p.args.iter()),
        ExprKind::IndexCheck { index, len, .. } => {
            xs.push(index);
            xs.push(len);
        }
    }
    (xs, bs)
}

/// Calls `f` on `e` and everything inside it, children first, without changing anything.
pub fn expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    let (xs, bs) = children(e);
    for x in xs {
        expr(x, f);
    }
    for b in bs {
        block(b, f);
    }
    f(e);
}

/// A direct part of an expression: a sub-expression or a block.
pub enum Child<'e> {
    /// A sub-expression (an operand, an index, a condition, ...).
    Expr(&'e mut Expr),
    /// A block (a branch, a loop's body, ...).
    Block(&'e mut Block),
}

/// Calls `f` on the direct sub-expressions and blocks of `e`, in evaluation order.
pub fn children_mut(e: &mut Expr, f: &mut dyn FnMut(Child<'_>)) {
    fn place<'e>(p: &'e mut Place, f: &mut dyn FnMut(Child<'_>)) {
        for j in &mut p.proj {
            if let Proj::Index { index, .. } = j {
                f(Child::Expr(index));
            }
        }
    }
    match &mut e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::Continue(_)
        | ExprKind::SliceRef(_) => {}
        ExprKind::Read(p) | ExprKind::Len(p) => place(p, f),
        ExprKind::Assign(p, v) | ExprKind::CompoundAssign(_, p, v) => {
            place(p, f);
            f(Child::Expr(v));
        }
        ExprKind::Atomic(_, _, p, args) => {
            place(p, f);
            args.iter_mut().for_each(|a| f(Child::Expr(a)));
        }
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x)
        | ExprKind::Field(x, _)
        | ExprKind::Repeat(x, _) => f(Child::Expr(x)),
        ExprKind::Binary(_, a, b, _) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            f(Child::Expr(a));
            f(Child::Expr(b));
        }
        ExprKind::Tuple(v)
        | ExprKind::Array(v)
        | ExprKind::Builtin(_, v)
        | ExprKind::Call(_, v) => v.iter_mut().for_each(|x| f(Child::Expr(x))),
        ExprKind::If(c, t, e2) => {
            f(Child::Expr(c));
            f(Child::Block(t));
            if let Some(e2) = e2 {
                f(Child::Block(e2));
            }
        }
        ExprKind::Loop(_, b) | ExprKind::Block(b) => f(Child::Block(b)),
        ExprKind::While(_, c, b) => {
            f(Child::Expr(c));
            f(Child::Block(b));
        }
        ExprKind::For {
            start,
            end,
            step,
            body,
            ..
        } => {
            f(Child::Expr(start));
            f(Child::Expr(end));
            if let Some((s, _)) = step {
                f(Child::Expr(s));
            }
            f(Child::Block(body));
        }
        ExprKind::Break(_, v) | ExprKind::Return(v) => {
            if let Some(v) = v {
                f(Child::Expr(v));
            }
        }
        ExprKind::Panic(p) => {
            if let crate::ir::PanicWhen::Not(c) = &mut p.when {
                f(Child::Expr(c));
            }
            p.args.iter_mut().for_each(|a| f(Child::Expr(a)));
        }
        ExprKind::Print(p) => p.args.iter_mut().for_each(|a| f(Child::Expr(a))),
        ExprKind::IndexCheck { index, len, .. } => {
            f(Child::Expr(index));
            f(Child::Expr(len));
        }
    }
}
