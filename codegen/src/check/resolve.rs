//! The last step of checking: every inferred type is replaced by its final type.

use super::Checker;
use crate::ir::{Block, ExprKind, Place};
use crate::walk;

impl Checker<'_> {
    /// Replaces every `Ty::Var` in the function (expressions, places, blocks, locals).
    pub(super) fn resolve_function(&mut self, body: &mut Block) {
        let infer = &self.infer;
        let resolve_place = |p: &mut Place| p.ty = infer.resolve(&p.ty);
        walk::block_mut(body, &mut |e| {
            e.ty = infer.resolve(&e.ty);
            match &mut e.kind {
                ExprKind::Read(p)
                | ExprKind::Len(p)
                | ExprKind::Assign(p, _)
                | ExprKind::CompoundAssign(_, p, _)
                | ExprKind::Atomic(_, _, p, _) => resolve_place(p),
                ExprKind::If(_, t, e2) => {
                    t.ty = infer.resolve(&t.ty);
                    if let Some(e2) = e2 {
                        e2.ty = infer.resolve(&e2.ty);
                    }
                }
                ExprKind::Loop(_, b)
                | ExprKind::While(_, _, b)
                | ExprKind::Block(b)
                | ExprKind::For { body: b, .. } => b.ty = infer.resolve(&b.ty),
                _ => {}
            }
        });
        body.ty = infer.resolve(&body.ty);
        for l in &mut self.locals {
            l.ty = infer.resolve(&l.ty);
        }
    }
}
