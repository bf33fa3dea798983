//! The IR verifier: invariants `check` must establish before lowering. It runs on every
//! compilation (it is cheap) and in tests.

use crate::ir::{ExprKind, Program};
use crate::ty::Ty;
use crate::walk;

/// Checks that no inference variable or error type is left and that operands have the types
/// their operators need.
pub fn verify_program(program: &Program) -> Result<(), String> {
    for f in std::iter::once(&program.kernel).chain(&program.functions) {
        verify_function(f)?;
    }
    Ok(())
}

fn verify_function(f: &crate::ir::Function) -> Result<(), String> {
    let mut problem = None;
    let mut body = f.body.clone();
    walk::block_mut(&mut body, &mut |e| {
        if problem.is_some() {
            return;
        }
        if matches!(e.ty, Ty::Var(_) | Ty::Error) {
            problem = Some(format!("unresolved type at {:?}", e.kind));
            return;
        }
        match &e.kind {
            ExprKind::Binary(op, l, r, _)
                if !matches!(op, crate::ir::BinOp::Shl | crate::ir::BinOp::Shr) && l.ty != r.ty =>
            {
                problem = Some(format!(
                    "operands of {} differ: {} and {}",
                    op.symbol(),
                    l.ty,
                    r.ty
                ));
            }
            ExprKind::Assign(p, v) if p.ty != v.ty && !matches!(v.ty, Ty::Never) => {
                problem = Some(format!(
                    "assignment of {} to a place of type {}",
                    v.ty, p.ty
                ));
            }
            _ => {}
        }
    });
    if let Some(p) = problem {
        return Err(p);
    }
    for l in &f.locals {
        if matches!(l.ty, Ty::Var(_) | Ty::Error) {
            return Err(format!("local `{}` has no type", l.name));
        }
    }
    Ok(())
}
