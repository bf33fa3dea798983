//! Lowering statements and expressions.

use inkwell::basic_block::BasicBlock;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::{FloatPredicate, IntPredicate};

use super::{ok, value_type, FnLower, LoopTargets, Slot};
use crate::ir::{BinOp, Block, Expr, ExprKind, Pattern, Stmt, UnOp};
use crate::ty::{Scalar, Ty};

impl<'ctx> FnLower<'_, 'ctx> {
    /// Lowers a block; returns its value.
    pub(crate) fn block(&mut self, block: &Block) -> Option<BasicValueEnum<'ctx>> {
        self.stmts(&block.stmts);
        block.tail.as_ref().and_then(|t| self.expr(t))
    }

    /// Lowers statements in order.
    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            match s {
                Stmt::Let { pat, init } => {
                    let v = self.expr(init);
                    self.bind(pat, &init.ty, v);
                }
                Stmt::Expr(e) => {
                    self.expr(e);
                }
            }
        }
    }

    pub(crate) fn bind(&mut self, pat: &Pattern, ty: &Ty, value: Option<BasicValueEnum<'ctx>>) {
        match pat {
            Pattern::Wild => {}
            Pattern::Local(id) => {
                let local = &self.ir.locals[*id];
                if let Ty::Shared { .. } = local.ty {
                    let ptr = value
                        .expect("a shared array is its global's address")
                        .into_pointer_value();
                    self.slots[*id] = Slot::Shared(ptr);
                    return;
                }
                match self.alloca(&local.ty, &local.name) {
                    Some(slot) => {
                        if let Some(v) = value {
                            ok!(self.b.build_store(slot, v));
                        }
                        self.slots[*id] = Slot::Mem(slot);
                    }
                    None => self.slots[*id] = Slot::Nothing,
                }
            }
            Pattern::Tuple(pats) => {
                let Ty::Tuple(tys) = ty else {
                    unreachable!("checked: tuple pattern on a tuple")
                };
                let mut field = 0;
                for (p, t) in pats.iter().zip(tys) {
                    let v = if value_type(self.ctx, t).is_some() {
                        let agg = value.expect("tuple value").into_struct_value();
                        let v = ok!(self.b.build_extract_value(agg, field, "elem"));
                        field += 1;
                        Some(v)
                    } else {
                        None
                    };
                    self.bind(p, t, v);
                }
            }
        }
    }

    /// Lowers an expression; `None` for zero-sized results (and after diverging).
    /// Lowers an expression; its instructions carry its source line (and its parent's
    /// carry the parent's again after it).
    pub(crate) fn expr(&mut self, e: &Expr) -> Option<BasicValueEnum<'ctx>> {
        let parent = self.locate(e.span);
        let v = self.expr_here(e);
        self.locate(parent);
        v
    }

    fn expr_here(&mut self, e: &Expr) -> Option<BasicValueEnum<'ctx>> {
        match &e.kind {
            ExprKind::Int(v) => {
                let Some(s) = e.ty.scalar_repr() else {
                    unreachable!("integer literal of type {}", e.ty)
                };
                Some(self.int_const(s, *v).into())
            }
            ExprKind::Float(v) => Some(match e.ty {
                Ty::Scalar(Scalar::F32) => self.ctx.f32_type().const_float(*v as f32 as f64).into(),
                _ => self.ctx.f64_type().const_float(*v).into(),
            }),
            ExprKind::Bool(v) => Some(self.ctx.bool_type().const_int(*v as u64, false).into()),
            ExprKind::Unit => None,
            ExprKind::Read(place) => self.read(place),
            ExprKind::Len(place) => Some(self.len(place).into()),
            ExprKind::Assign(place, value) => {
                let v = self.expr(value);
                if let Some(v) = v {
                    self.write(place, v);
                }
                None
            }
            ExprKind::CompoundAssign(op, place, value) => {
                let r = self.expr(value).expect("operands are scalars");
                let ptr = self.place_ptr(place);
                let l = self.load_scalar(ptr, &place.ty);
                let Ty::Scalar(s) = place.ty else {
                    unreachable!("compound assignment on a scalar")
                };
                let v = self.binary(*op, s, &value.ty, l, r, None);
                self.store_scalar(ptr, &place.ty, v);
                None
            }
            ExprKind::Unary(op, x) => {
                let v = self.expr(x)?;
                let Ty::Scalar(s) = x.ty else {
                    unreachable!("unary operand is a scalar")
                };
                Some(match (op, s.is_float()) {
                    (UnOp::Neg, true) => {
                        ok!(self.b.build_float_neg(v.into_float_value(), "neg")).into()
                    }
                    (UnOp::Neg, false) => {
                        ok!(self.b.build_int_neg(v.into_int_value(), "neg")).into()
                    }
                    (UnOp::Not, _) => ok!(self.b.build_not(v.into_int_value(), "not")).into(),
                })
            }
            ExprKind::Binary(op, l, r, site) => {
                if let (Some(a), Some(b)) = (fits32(l), fits32(r)) {
                    // Both operands known to fit (`passes::compare32`): compared in 32 bits,
                    // each computed there from its operands (`+ - *` modulo 2³²).
                    let (x, y) = (self.narrow32(a)?, self.narrow32(b)?);
                    let signed = l.ty.as_scalar().is_some_and(|s| s.is_signed());
                    let s = if signed { Scalar::I32 } else { Scalar::U32 };
                    return Some(self.binary(*op, s, &Ty::Scalar(s), x.into(), y.into(), *site));
                }
                let lv = self.expr(l)?;
                let rv = self.expr(r)?;
                let Ty::Scalar(s) = l.ty else {
                    unreachable!("binary operand is a scalar")
                };
                Some(self.binary(*op, s, &r.ty, lv, rv, *site))
            }
            ExprKind::And(l, r) | ExprKind::Or(l, r) => {
                let is_and = matches!(e.kind, ExprKind::And(..));
                let lv = self.expr(l)?.into_int_value();
                if speculable(r, &mut 16) {
                    // Nothing to skip: both sides evaluated and combined, one condition for
                    // LLVM and ptxas (as nvcc's `&&` of comparisons: one `EXIT` for laplace's
                    // four-part guard, not three).
                    let rv = self.expr(r)?.into_int_value();
                    return Some(if is_and {
                        ok!(self.b.build_and(lv, rv, "and")).into()
                    } else {
                        ok!(self.b.build_or(lv, rv, "or")).into()
                    });
                }
                let from = self.b.get_insert_block().expect("positioned");
                let rhs_bb = self.block_named("logic_rhs");
                let merge = self.block_named("logic_end");
                if is_and {
                    ok!(self.b.build_conditional_branch(lv, rhs_bb, merge));
                } else {
                    ok!(self.b.build_conditional_branch(lv, merge, rhs_bb));
                }
                self.b.position_at_end(rhs_bb);
                let rv = self.expr(r);
                let rhs_end = self.b.get_insert_block().expect("positioned");
                let rhs_open = self.is_open();
                if rhs_open {
                    ok!(self.b.build_unconditional_branch(merge));
                }
                self.b.position_at_end(merge);
                let phi = ok!(self.b.build_phi(self.ctx.bool_type(), "logic"));
                let short = self.ctx.bool_type().const_int(!is_and as u64, false);
                phi.add_incoming(&[(&short, from)]);
                if let (true, Some(rv)) = (rhs_open, rv) {
                    phi.add_incoming(&[(&rv, rhs_end)]);
                }
                Some(phi.as_basic_value())
            }
            ExprKind::Cast(x) => {
                let v = self.expr(x)?;
                let (Some(from), Ty::Scalar(to)) = (x.ty.scalar_repr(), &e.ty) else {
                    unreachable!("casts are between scalars")
                };
                Some(self.cast(v, from, *to))
            }
            ExprKind::Tuple(xs) => {
                let t = value_type(self.ctx, &e.ty)?.into_struct_type();
                let mut agg = t.get_undef();
                let mut field = 0;
                for x in xs {
                    if let Some(v) = self.expr(x) {
                        agg = ok!(self.b.build_insert_value(agg, v, field, "tuple"))
                            .into_struct_value();
                        field += 1;
                    }
                }
                Some(agg.into())
            }
            ExprKind::Array(xs) => {
                let t = value_type(self.ctx, &e.ty)?.into_array_type();
                let mut agg = t.get_undef();
                for (i, x) in xs.iter().enumerate() {
                    let v = self.expr(x)?;
                    agg = ok!(self.b.build_insert_value(agg, v, i as u32, "array"))
                        .into_array_value();
                }
                Some(agg.into())
            }
            ExprKind::Repeat(x, n) => {
                let v = self.expr(x)?;
                let t = value_type(self.ctx, &e.ty)?.into_array_type();
                if let Some(c) = const_repeat(v, *n) {
                    // One constant, not a chain of `insertvalue`s that the builder would fold
                    // into a new constant array at every step (quadratic in `n`).
                    return Some(c);
                }
                let mut agg = t.get_undef();
                for i in 0..*n {
                    agg = ok!(self.b.build_insert_value(agg, v, i as u32, "repeat"))
                        .into_array_value();
                }
                Some(agg.into())
            }
            ExprKind::Field(x, idx) => {
                let v = self.expr(x)?;
                Some(ok!(self.b.build_extract_value(
                    v.into_struct_value(),
                    *idx,
                    "field"
                )))
            }
            ExprKind::Builtin(b, args) => self.builtin(*b, args, &e.ty),
            ExprKind::Atomic(op, scope, place, args) => self.atomic(*op, *scope, place, args),
            ExprKind::Call(fid, args) => self.call(*fid, args, &e.ty),
            ExprKind::SliceRef(_) => unreachable!("slices are only passed as call arguments"),
            ExprKind::IndexCheck { index, len, site } => {
                let i = self.expr(index)?.into_int_value();
                let n = self.expr(len)?.into_int_value();
                if let Some(site) = site.filter(|s| !self.is_elided(*s)) {
                    self.check_in_bounds(site, i, n);
                }
                Some(i.into())
            }
            ExprKind::If(c, then, els) => self.if_expr(c, then, els.as_ref(), &e.ty),
            ExprKind::Loop(id, body) => {
                let result = self.alloca(&e.ty, "loop_value");
                let body_bb = self.block_named("loop");
                let exit = self.block_named("loop_end");
                self.loops[*id] = Some(LoopTargets {
                    break_to: exit,
                    continue_to: body_bb,
                    result,
                });
                ok!(self.b.build_unconditional_branch(body_bb));
                self.b.position_at_end(body_bb);
                self.block(body);
                if self.is_open() {
                    ok!(self.b.build_unconditional_branch(body_bb));
                }
                self.b.position_at_end(exit);
                if matches!(e.ty, Ty::Never) {
                    ok!(self.b.build_unreachable());
                    self.start_dead_block();
                    return None;
                }
                result.map(|p| {
                    ok!(self
                        .b
                        .build_load(value_type(self.ctx, &e.ty).unwrap(), p, "loop_value"))
                })
            }
            ExprKind::While(id, cond, body) => {
                if self.ir.counted.contains(id) {
                    if let Some(parts) = crate::passes::counted::parts(self.ir, *id, cond, body) {
                        self.counted_while(*id, body, parts);
                        return None;
                    }
                }
                let cond_bb = self.block_named("while_cond");
                let body_bb = self.block_named("while_body");
                let exit = self.block_named("while_end");
                self.loops[*id] = Some(LoopTargets {
                    break_to: exit,
                    continue_to: cond_bb,
                    result: None,
                });
                ok!(self.b.build_unconditional_branch(cond_bb));
                self.b.position_at_end(cond_bb);
                let c = self.expr(cond).expect("bool").into_int_value();
                ok!(self.b.build_conditional_branch(c, body_bb, exit));
                self.b.position_at_end(body_bb);
                self.block(body);
                if self.is_open() {
                    ok!(self.b.build_unconditional_branch(cond_bb));
                }
                self.b.position_at_end(exit);
                None
            }
            ExprKind::For {
                id,
                var,
                start,
                end,
                inclusive,
                step,
                body,
            } => {
                self.for_loop(
                    *id,
                    *var,
                    start,
                    end,
                    *inclusive,
                    step.as_ref().map(|(s, site)| (&**s, *site)),
                    body,
                );
                None
            }
            ExprKind::Break(id, value) => {
                let target = self.loops[*id].expect("break inside its loop");
                if let Some(v) = value.as_ref().and_then(|v| self.expr(v)) {
                    if let Some(slot) = target.result {
                        ok!(self.b.build_store(slot, v));
                    }
                }
                if self.is_open() {
                    ok!(self.b.build_unconditional_branch(target.break_to));
                }
                self.start_dead_block();
                None
            }
            ExprKind::Continue(id) => {
                let target = self.loops[*id].expect("continue inside its loop");
                ok!(self.b.build_unconditional_branch(target.continue_to));
                self.start_dead_block();
                None
            }
            ExprKind::Return(value) => {
                let v = value.as_ref().and_then(|v| self.expr(v));
                self.ret(v);
                self.start_dead_block();
                None
            }
            ExprKind::Block(b) => self.block(b),
            ExprKind::Panic(p) => self.panic_call(p),
            ExprKind::Print(p) => self.print_call(p),
        }
    }

    /// A call of device function `fid`.
    fn call(&mut self, fid: usize, args: &[Expr], ty: &Ty) -> Option<BasicValueEnum<'ctx>> {
        let mut vals: Vec<inkwell::values::BasicMetadataValueEnum> = Vec::new();
        for a in args {
            if let ExprKind::SliceRef(l) = a.kind {
                let Slot::Slice { ptr, len } = self.slot(l) else {
                    unreachable!("slice arguments are slice parameters")
                };
                vals.push(ptr.into());
                vals.push(len.into());
            } else if let Some(v) = self.expr(a) {
                vals.push(v.into());
            } else if value_type(self.ctx, &a.ty).is_some() {
                return None; // the argument diverged
            }
        }
        if let Some(p) = self.panic_arg {
            vals.push(p.into());
        }
        if let Some(g) = self.grid_arg {
            vals.push(g.into());
        }
        let call = ok!(self.b.build_call(self.fns[fid], &vals, "call"));
        if matches!(ty, Ty::Never) {
            ok!(self.b.build_unreachable());
            self.start_dead_block();
            return None;
        }
        call.try_as_basic_value().basic()
    }

    /// An integer constant of scalar type `s` (two's complement, truncated to its width).
    pub(crate) fn int_const(&self, s: Scalar, v: i128) -> IntValue<'ctx> {
        let t = super::scalar_type(self.ctx, s).into_int_type();
        let width = t.get_bit_width();
        let bits = if width >= 64 {
            v as u64
        } else {
            (v as u64) & ((1u64 << width) - 1)
        };
        t.const_int(bits, false)
    }

    fn if_expr(
        &mut self,
        c: &Expr,
        then: &Block,
        els: Option<&Block>,
        ty: &Ty,
    ) -> Option<BasicValueEnum<'ctx>> {
        let cond = self.expr(c)?.into_int_value();
        let then_bb = self.block_named("then");
        let else_bb = self.block_named("else");
        let merge = self.block_named("endif");
        let result = if els.is_some() {
            self.alloca(ty, "if_value")
        } else {
            None
        };
        let br = ok!(self.b.build_conditional_branch(cond, then_bb, else_bb));
        self.b.position_at_end(then_bb);
        // The fast copy of a kernel versioned on the launch's flag (see `sreg`).
        let fast = matches!(c.kind, ExprKind::Builtin(crate::ir::Builtin::HostTest, _));
        if fast {
            // The copy the launch selects is the likely one.
            let i32t = self.ctx.i32_type();
            let weights = self.ctx.metadata_node(&[
                self.ctx.metadata_string("branch_weights").into(),
                i32t.const_int(1 << 20, false).into(),
                i32t.const_int(1, false).into(),
            ]);
            let _ = br.set_metadata(weights, self.ctx.get_kind_id("prof"));
        }
        let outer = self.fast_copy;
        self.fast_copy |= fast;
        let tv = self.block(then);
        self.fast_copy = outer;
        if self.is_open() {
            if let (Some(slot), Some(v)) = (result, tv) {
                ok!(self.b.build_store(slot, v));
            }
            ok!(self.b.build_unconditional_branch(merge));
        }
        self.b.position_at_end(else_bb);
        if let Some(els) = els {
            let ev = self.block(els);
            if let (Some(slot), Some(v)) = (result, ev) {
                if self.is_open() {
                    ok!(self.b.build_store(slot, v));
                }
            }
        }
        if fast && self.is_open() {
            // The flag's `if` is the kernel's whole body: the other copy ends the thread on
            // its own (`exit`), so that the two copies share no last block. Sharing the
            // kernel's `ret`, SimplifyCFG sank the code both copies end with into that block,
            // where laplace's fast copy issued its last load only after waiting for the loads
            // before it (bench/NOTES.md, `stencil`). The fast copy keeps the `ret` (LLVM lays
            // a path that ends in `exit` out last, as cold).
            self.exit_thread();
            self.start_dead_block();
        }
        if self.is_open() {
            ok!(self.b.build_unconditional_branch(merge));
        }
        self.b.position_at_end(merge);
        if matches!(ty, Ty::Never) {
            ok!(self.b.build_unreachable());
            self.start_dead_block();
            return None;
        }
        result.map(|p| {
            ok!(self
                .b
                .build_load(value_type(self.ctx, ty).unwrap(), p, "if_value"))
        })
    }

    /// Ends the thread: PTX `exit` as inline assembly with side effects that may read any
    /// memory, then `unreachable`. Not `llvm.nvvm.exit`: it reads no memory, so LLVM takes
    /// the stores before it for dead (a fast copy ended with it lost three of `transpose`'s
    /// four stores on the H200: `tests::narrow::the_fast_copy_keeps_its_stores`).
    fn exit_thread(&mut self) {
        let void = self.ctx.void_type().fn_type(&[], false);
        let asm = self.ctx.create_inline_asm(
            void,
            "exit;".to_string(),
            "~{memory}".to_string(),
            true,
            false,
            None,
            false,
        );
        ok!(self.b.build_indirect_call(void, asm, &[], ""));
        ok!(self.b.build_unreachable());
    }

    /// `while i < n { …; i += s }` that `passes::counted` proved counted: `n` and `s` are
    /// evaluated once, the last turn `(n - 1 - i) / s` on entry (`s ≥ 1`, and `i + s` cannot
    /// wrap while `i < n`), so that LLVM knows the trip count, as in [`Self::for_loop`]. The
    /// body (without its last statement, the step) may assume `i < n`; the step is `nuw`.
    fn counted_while(&mut self, id: usize, body: &Block, parts: crate::passes::counted::Parts) {
        let Some(i0) = self.expr(parts.read) else {
            return;
        };
        let Some(n) = self.expr(parts.bound) else {
            return;
        };
        let (i0, n) = (i0.into_int_value(), n.into_int_value());
        let int_t = i0.get_type();
        let one = int_t.const_int(1, false);
        let pre = self.block_named("while_pre");
        let (body_bb, latch, exit) = self.loop_blocks(id, "while");
        let enter = ok!(self
            .b
            .build_int_compare(IntPredicate::ULT, i0, n, "while_enter"));
        ok!(self.b.build_conditional_branch(enter, pre, exit));

        self.b.position_at_end(pre);
        let Some(step) = self.expr(parts.step) else {
            return;
        };
        let step = step.into_int_value();
        let dist = ok!(self.b.build_int_sub(n, i0, "dist"));
        let dist = ok!(self.b.build_int_nuw_sub(dist, one, "dist"));
        let turns = self.turn_counter(&parts.read.ty, dist, step);
        ok!(self.b.build_unconditional_branch(body_bb));

        self.b.position_at_end(body_bb);
        let i = self.expr(parts.read).expect("integer").into_int_value();
        let within = ok!(self
            .b
            .build_int_compare(IntPredicate::ULT, i, n, "i_in_range"));
        self.assume(within);
        self.stmts(&body.stmts[..body.stmts.len() - 1]);
        if self.is_open() {
            ok!(self.b.build_unconditional_branch(latch));
        }

        self.b.position_at_end(latch);
        let i = self.expr(parts.read).expect("integer").into_int_value();
        let next = ok!(self.b.build_int_nuw_add(i, step, "i_next"));
        self.write(parts.place, next.into());
        let go = self.another_turn(turns, "while_cond");
        let back = ok!(self.b.build_conditional_branch(go, body_bb, exit));
        self.once_unrolled(back);
        self.b.position_at_end(exit);
    }

    /// The body, latch and exit blocks of loop `id` (`prefix_body`, `prefix_next`,
    /// `prefix_end`): `continue` goes to the latch, `break` to the exit.
    fn loop_blocks(
        &mut self,
        id: usize,
        prefix: &str,
    ) -> (BasicBlock<'ctx>, BasicBlock<'ctx>, BasicBlock<'ctx>) {
        let body = self.block_named(&format!("{prefix}_body"));
        let latch = self.block_named(&format!("{prefix}_next"));
        let exit = self.block_named(&format!("{prefix}_end"));
        self.loops[id] = Some(LoopTargets {
            break_to: exit,
            continue_to: latch,
            result: None,
        });
        (body, latch, exit)
    }

    /// A counted loop's turns (a stepped `for`, a counted `while`): the last turn, `dist /
    /// step` (`dist` the distance to the bound less one, in `step`'s type), and a counter of
    /// type `ty` from 0, which [`Self::another_turn`] compares with it at the latch, so that
    /// LLVM knows the trip count.
    fn turn_counter(&mut self, ty: &Ty, dist: IntValue<'ctx>, step: IntValue<'ctx>) -> Turns<'ctx> {
        let last = ok!(self.b.build_int_unsigned_div(dist, step, "last_turn"));
        let slot = self.alloca(ty, "turn").expect("an integer counter");
        ok!(self.b.build_store(slot, last.get_type().const_zero()));
        Turns { slot, last }
    }

    /// At a counted loop's latch: whether another turn follows (this one is not the last),
    /// with the counter stepped.
    fn another_turn(&mut self, turns: Turns<'ctx>, name: &str) -> IntValue<'ctx> {
        let t = turns.last.get_type();
        let k = ok!(self.b.build_load(t, turns.slot, "turn")).into_int_value();
        let go = ok!(self
            .b
            .build_int_compare(IntPredicate::NE, k, turns.last, name));
        let k_next = ok!(self
            .b
            .build_int_nuw_add(k, t.const_int(1, false), "turn_next"));
        ok!(self.b.build_store(turns.slot, k_next));
        go
    }

    /// `for var in start..end` (or `..=end`), optionally `.step_by(step)`.
    ///
    /// A stepped loop is lowered as a counted loop: its last turn, `(end - start - 1) / step`
    /// (`end - start` when inclusive), is computed once on entry, in 64 bits from the
    /// unclamped step, so that LLVM knows the trip count and can unroll it (a grid-stride
    /// loop then keeps several loads in flight). The body may assume `var < end` (`<=`), which
    /// removes the bounds check of `x[var]` when `end` is `x.len()`.
    #[allow(clippy::too_many_arguments)]
    fn for_loop(
        &mut self,
        id: usize,
        var: usize,
        start: &Expr,
        end: &Expr,
        inclusive: bool,
        step: Option<(&Expr, Option<u32>)>,
        body: &Block,
    ) {
        let Ty::Scalar(s) = start.ty else {
            unreachable!("for ranges are over integers")
        };
        let Some(sv) = self.expr(start) else { return };
        let Some(ev) = self.expr(end) else { return };
        let (sv, ev) = (sv.into_int_value(), ev.into_int_value());
        let int_t = sv.get_type();
        let i64t = self.ctx.i64_type();
        let raw_step = step.map(|(st, site)| {
            let raw = self.expr(st).expect("usize").into_int_value();
            let zero = i64t.const_zero();
            match site {
                Some(site) => {
                    let bad =
                        ok!(self
                            .b
                            .build_int_compare(IntPredicate::EQ, raw, zero, "step_zero"));
                    self.check(bad, site, zero, zero);
                    raw
                }
                // Unchecked (or a constant step): never divide by zero.
                None if !raw.is_const() => {
                    let one = i64t.const_int(1, false);
                    let is_zero =
                        ok!(self
                            .b
                            .build_int_compare(IntPredicate::EQ, raw, zero, "step_zero"));
                    ok!(self.b.build_select(is_zero, one, raw, "step")).into_int_value()
                }
                None => raw,
            }
        });
        let signed = s.is_signed();
        let (lt, le) = if signed {
            (IntPredicate::SLT, IntPredicate::SLE)
        } else {
            (IntPredicate::ULT, IntPredicate::ULE)
        };
        let slot = self
            .alloca(&start.ty, &self.ir.locals[var].name)
            .expect("integer loop variable");
        self.slots[var] = Slot::Mem(slot);
        ok!(self.b.build_store(slot, sv));
        // `for k in a..N` over a 64-bit unsigned type with a constant `N < 2³²`: every turn's
        // `k` and `k + 1` are at most `N`, so the loop counts in 32 bits (`ctr`) and each turn
        // stores `zext(ctr)` into `k`. LLVM keeps an `i64` counter as it is given, and a shared
        // tile's 32-bit address (`-nvptx-short-ptr`) cannot serve as its exit test; with an
        // `i32` counter loop strength reduction folds the two into one 32-bit register, as
        // nvcc's `int k` gives (bench/NOTES.md §22). A start past `N` never enters.
        let narrow = (step.is_none() && !inclusive && !signed && int_t.get_bit_width() == 64)
            .then(|| ev.get_zero_extended_constant())
            .flatten()
            .filter(|&n| n <= u64::from(u32::MAX));
        let i32t = self.ctx.i32_type();
        let ctr = narrow.map(|_| {
            let ctr = self.alloca(&Ty::Scalar(Scalar::U32), "ctr").expect("u32");
            let c0 = ok!(self.b.build_int_truncate(sv, i32t, "ctr0"));
            ok!(self.b.build_store(ctr, c0));
            ctr
        });
        let (body_bb, latch, exit) = self.loop_blocks(id, "for");
        let enter =
            ok!(self
                .b
                .build_int_compare(if inclusive { le } else { lt }, sv, ev, "for_enter"));
        // Stepped: the turn counter and the last turn (meaningful only when entering).
        let counted = raw_step.map(|st| {
            let dist = ok!(self.b.build_int_sub(ev, sv, "dist"));
            let mut dist = if int_t.get_bit_width() < 64 {
                ok!(self.b.build_int_z_extend(dist, i64t, "dist64"))
            } else {
                dist
            };
            if !inclusive {
                dist = ok!(self.b.build_int_sub(dist, i64t.const_int(1, false), "dist"));
            }
            let turns = self.turn_counter(&Ty::USIZE, dist, st);
            let step = if int_t.get_bit_width() < 64 {
                ok!(self.b.build_int_truncate(st, int_t, "step"))
            } else {
                st
            };
            (turns, step)
        });
        ok!(self.b.build_conditional_branch(enter, body_bb, exit));

        self.b.position_at_end(body_bb);
        if let Some(ctr) = ctr {
            let c = ok!(self.b.build_load(i32t, ctr, "k32")).into_int_value();
            let k = ok!(self.b.build_int_z_extend(c, int_t, "k"));
            ok!(self.b.build_store(slot, k));
        }
        if counted.is_some() {
            let i = ok!(self.b.build_load(int_t, slot, "i")).into_int_value();
            let within =
                ok!(self
                    .b
                    .build_int_compare(if inclusive { le } else { lt }, i, ev, "i_in_range"));
            self.assume(within);
        }
        self.block(body);
        if self.is_open() {
            ok!(self.b.build_unconditional_branch(latch));
        }

        self.b.position_at_end(latch);
        let i = ok!(self.b.build_load(int_t, slot, "i")).into_int_value();
        if let (Some(ctr), Some(n)) = (ctr, narrow) {
            let c = ok!(self.b.build_load(i32t, ctr, "k32")).into_int_value();
            let next = ok!(self
                .b
                .build_int_nuw_add(c, i32t.const_int(1, false), "k32_next"));
            let go = ok!(self.b.build_int_compare(
                IntPredicate::ULT,
                next,
                i32t.const_int(n, false),
                "for_cond"
            ));
            let store_bb = self.block_named("for_step");
            ok!(self.b.build_conditional_branch(go, store_bb, exit));
            self.b.position_at_end(store_bb);
            ok!(self.b.build_store(ctr, next));
            ok!(self.b.build_unconditional_branch(body_bb));
            self.b.position_at_end(exit);
            return;
        }
        let (next, go_on) = match counted {
            None if !inclusive => {
                let next = if signed {
                    ok!(self
                        .b
                        .build_int_nsw_add(i, int_t.const_int(1, false), "i_next"))
                } else {
                    ok!(self
                        .b
                        .build_int_nuw_add(i, int_t.const_int(1, false), "i_next"))
                };
                let go = ok!(self.b.build_int_compare(lt, next, ev, "for_cond"));
                (next, go)
            }
            None => {
                let go = ok!(self
                    .b
                    .build_int_compare(IntPredicate::NE, i, ev, "for_cond"));
                let next = ok!(self.b.build_int_add(i, int_t.const_int(1, false), "i_next"));
                (next, go)
            }
            Some((turns, step)) => {
                let go = self.another_turn(turns, "for_cond");
                // Another turn means i + step <= end: no wrap.
                let next = if signed {
                    ok!(self.b.build_int_nsw_add(i, step, "i_next"))
                } else {
                    ok!(self.b.build_int_nuw_add(i, step, "i_next"))
                };
                (next, go)
            }
        };
        let store_bb = self.block_named("for_step");
        ok!(self.b.build_conditional_branch(go_on, store_bb, exit));
        self.b.position_at_end(store_bb);
        ok!(self.b.build_store(slot, next));
        // Not `once_unrolled`: ptxas's further unroll of a stepped loop gained (bench/NOTES.md,
        // 2026-12-02 third session: reduce_sum lost 7% without it).
        ok!(self.b.build_unconditional_branch(body_bb));
        self.b.position_at_end(exit);
    }

    /// Marks the counted `while` loop whose back edge is `back` so that, if LLVM unrolls it by
    /// a factor (a runtime unroll, with a remainder loop), ptxas does not unroll it again:
    /// `!llvm.loop` with `llvm.loop.unroll.followup_unrolled` = `llvm.loop.unroll.disable`,
    /// which LLVM's unroller gives the unrolled loop only, and for which the NVPTX backend
    /// writes `.pragma "nounroll"` after its header's label (LLVM gives the remainder loop
    /// `unroll.disable` itself). A loop LLVM leaves rolled gets no `unroll.disable`, so ptxas
    /// may still unroll it (convolve_cols' output loop, [`crate::latch`]). Measured on the H200
    /// (bench/NOTES.md, 2026-12-02 third session): reduce6's counted `while`, 4× by LLVM and
    /// 4× again by ptxas (66 global loads in SASS), ran 2.5% faster with the pragma (10 loads,
    /// as Numba's), from 0.98 to 1.00 of Numba; reduce_sum's stepped `for` ran 7% slower with
    /// it, so stepped loops are not marked.
    fn once_unrolled(&self, back: inkwell::values::InstructionValue<'ctx>) {
        use inkwell::llvm_sys::core::{
            LLVMGetMDKindIDInContext, LLVMMDNodeInContext2, LLVMMDStringInContext2,
            LLVMMetadataAsValue, LLVMSetMetadata,
        };
        use inkwell::llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
        use inkwell::values::AsValueRef;
        const LOOP: &str = "llvm.loop";
        const FOLLOWUP: &str = "llvm.loop.unroll.followup_unrolled";
        const DISABLE: &str = "llvm.loop.unroll.disable";
        let ctx = self.ctx.raw();
        // SAFETY: every node is metadata of `ctx`, the context `back` lives in; the temporary
        // node is the loop ID's first operand until it is replaced by the ID itself (LLVM's
        // self-referential loop ID), which also frees it.
        unsafe {
            let s = |x: &str| LLVMMDStringInContext2(ctx, x.as_ptr().cast(), x.len());
            let mut disable = [s(DISABLE)];
            let disable = LLVMMDNodeInContext2(ctx, disable.as_mut_ptr(), 1);
            let mut followup = [s(FOLLOWUP), disable];
            let followup = LLVMMDNodeInContext2(ctx, followup.as_mut_ptr(), 2);
            let temp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
            let mut ops = [temp, followup];
            let id = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 2);
            LLVMMetadataReplaceAllUsesWith(temp, id);
            let kind = LLVMGetMDKindIDInContext(ctx, LOOP.as_ptr().cast(), LOOP.len() as u32);
            LLVMSetMetadata(back.as_value_ref(), kind, LLVMMetadataAsValue(ctx, id));
        }
    }

    /// `l op r` on scalars of type `s` (`r_ty` differs from `s` only for shifts).
    pub(crate) fn binary(
        &mut self,
        op: BinOp,
        s: Scalar,
        r_ty: &Ty,
        l: BasicValueEnum<'ctx>,
        r: BasicValueEnum<'ctx>,
        site: Option<u32>,
    ) -> BasicValueEnum<'ctx> {
        if s.is_float() {
            return self.float_binary(op, l, r);
        }
        let (l, r) = (l.into_int_value(), r.into_int_value());
        let signed = s.is_signed();
        let b = &self.b;
        let v: BasicValueEnum = match op {
            BinOp::Add => ok!(b.build_int_add(l, r, "add")).into(),
            BinOp::Sub => ok!(b.build_int_sub(l, r, "sub")).into(),
            BinOp::Mul => ok!(b.build_int_mul(l, r, "mul")).into(),
            BinOp::Div | BinOp::Rem => return self.int_division(op, signed, l, r, site),
            BinOp::BitAnd => ok!(b.build_and(l, r, "and")).into(),
            BinOp::BitOr => ok!(b.build_or(l, r, "or")).into(),
            BinOp::BitXor => ok!(b.build_xor(l, r, "xor")).into(),
            BinOp::Shl | BinOp::Shr => {
                // Rust (release) masks the shift amount to the width; LLVM would make it poison.
                let Ty::Scalar(rs) = r_ty else {
                    unreachable!("shift amount is an integer")
                };
                let t = l.get_type();
                let amount = self.cast(r.into(), *rs, s).into_int_value();
                let mask = t.const_int(t.get_bit_width() as u64 - 1, false);
                let amount = ok!(self.b.build_and(amount, mask, "shamt"));
                match op {
                    BinOp::Shl => ok!(self.b.build_left_shift(l, amount, "shl")).into(),
                    _ => ok!(self.b.build_right_shift(l, amount, signed, "shr")).into(),
                }
            }
            _ => {
                let pred = match (op, signed) {
                    (BinOp::Eq, _) => IntPredicate::EQ,
                    (BinOp::Ne, _) => IntPredicate::NE,
                    (BinOp::Lt, true) => IntPredicate::SLT,
                    (BinOp::Lt, false) => IntPredicate::ULT,
                    (BinOp::Le, true) => IntPredicate::SLE,
                    (BinOp::Le, false) => IntPredicate::ULE,
                    (BinOp::Gt, true) => IntPredicate::SGT,
                    (BinOp::Gt, false) => IntPredicate::UGT,
                    (BinOp::Ge, true) => IntPredicate::SGE,
                    (BinOp::Ge, false) => IntPredicate::UGE,
                    _ => unreachable!("arithmetic handled above"),
                };
                ok!(b.build_int_compare(pred, l, r, "cmp")).into()
            }
        };
        v
    }

    /// `/` and `%` on integers: a zero divisor fails the check; `MIN / -1` wraps like
    /// Rust's `wrapping_div` instead of being undefined.
    fn int_division(
        &mut self,
        op: BinOp,
        signed: bool,
        l: IntValue<'ctx>,
        r: IntValue<'ctx>,
        site: Option<u32>,
    ) -> BasicValueEnum<'ctx> {
        let t = l.get_type();
        if let Some(site) = site {
            let bad =
                ok!(self
                    .b
                    .build_int_compare(IntPredicate::EQ, r, t.const_zero(), "div_zero"));
            let zero = self.ctx.i64_type().const_zero();
            self.check(bad, site, zero, zero);
        }
        let is_rem = op == BinOp::Rem;
        if !signed {
            return if is_rem {
                ok!(self.b.build_int_unsigned_rem(l, r, "rem"))
            } else {
                ok!(self.b.build_int_unsigned_div(l, r, "div"))
            }
            .into();
        }
        if r.is_const() && r.get_sign_extended_constant() != Some(-1) {
            return if is_rem {
                ok!(self.b.build_int_signed_rem(l, r, "rem"))
            } else {
                ok!(self.b.build_int_signed_div(l, r, "div"))
            }
            .into();
        }
        let minus_one = t.const_all_ones();
        let is_m1 = ok!(self
            .b
            .build_int_compare(IntPredicate::EQ, r, minus_one, "div_m1"));
        let safe_r = ok!(self
            .b
            .build_select(is_m1, t.const_int(1, false), r, "div_rhs"))
        .into_int_value();
        if is_rem {
            let v = ok!(self.b.build_int_signed_rem(l, safe_r, "rem"));
            ok!(self.b.build_select(is_m1, t.const_zero(), v, "rem"))
        } else {
            let v = ok!(self.b.build_int_signed_div(l, safe_r, "div"));
            let neg = ok!(self.b.build_int_neg(l, "neg"));
            ok!(self.b.build_select(is_m1, neg, v, "div"))
        }
    }

    fn float_binary(
        &mut self,
        op: BinOp,
        l: BasicValueEnum<'ctx>,
        r: BasicValueEnum<'ctx>,
    ) -> BasicValueEnum<'ctx> {
        let (l, r) = (l.into_float_value(), r.into_float_value());
        let b = &self.b;
        let v: BasicValueEnum = match op {
            BinOp::Add => ok!(b.build_float_add(l, r, "fadd")).into(),
            BinOp::Sub => ok!(b.build_float_sub(l, r, "fsub")).into(),
            BinOp::Mul => ok!(b.build_float_mul(l, r, "fmul")).into(),
            BinOp::Div => ok!(b.build_float_div(l, r, "fdiv")).into(),
            BinOp::Rem => ok!(b.build_float_rem(l, r, "frem")).into(),
            _ => {
                let pred = match op {
                    BinOp::Eq => FloatPredicate::OEQ,
                    BinOp::Ne => FloatPredicate::UNE,
                    BinOp::Lt => FloatPredicate::OLT,
                    BinOp::Le => FloatPredicate::OLE,
                    BinOp::Gt => FloatPredicate::OGT,
                    BinOp::Ge => FloatPredicate::OGE,
                    _ => unreachable!("bit operations are not defined on floats"),
                };
                return ok!(b.build_float_compare(pred, l, r, "fcmp")).into();
            }
        };
        self.float_flags(v);
        v
    }

    /// Marks a float instruction with the kernel's fast-math flags: contraction into FMA
    /// always (as nvcc does by default), everything else only under `fastmath`.
    pub(crate) fn float_flags(&self, v: BasicValueEnum<'ctx>) {
        use inkwell::values::FastMathFlags;
        if let Some(inst) = v.as_instruction_value() {
            let flags = if self.options.fastmath {
                FastMathFlags::all()
            } else {
                FastMathFlags::AllowContract
            };
            let _ = inst.set_fast_math_flags(flags);
        }
    }

    /// `v as to`, with Rust's semantics (float → int saturates, NaN → 0).
    pub(crate) fn cast(
        &mut self,
        v: BasicValueEnum<'ctx>,
        from: Scalar,
        to: Scalar,
    ) -> BasicValueEnum<'ctx> {
        if from == to {
            return v;
        }
        let to_t = super::scalar_type(self.ctx, to);
        let b = &self.b;
        match (from.is_float(), to.is_float()) {
            (false, false) => {
                let v = v.into_int_value();
                let to_t = to_t.into_int_type();
                let (fw, tw) = (v.get_type().get_bit_width(), to_t.get_bit_width());
                if tw < fw {
                    ok!(b.build_int_truncate(v, to_t, "trunc")).into()
                } else if tw > fw {
                    if from.is_signed() {
                        ok!(b.build_int_s_extend(v, to_t, "sext")).into()
                    } else {
                        ok!(b.build_int_z_extend(v, to_t, "zext")).into()
                    }
                } else {
                    v.into()
                }
            }
            (false, true) => {
                let v = v.into_int_value();
                let to_t = to_t.into_float_type();
                if from.is_signed() {
                    ok!(b.build_signed_int_to_float(v, to_t, "sitofp")).into()
                } else {
                    ok!(b.build_unsigned_int_to_float(v, to_t, "uitofp")).into()
                }
            }
            (true, false) if v.into_float_value().is_const() => {
                // LLVM folds its saturating casts of constants (Rust's semantics exactly).
                let name = if to.is_signed() {
                    "llvm.fptosi.sat"
                } else {
                    "llvm.fptoui.sat"
                };
                let f = super::builtin::intrinsic(self.module, name, &[to_t, v.get_type()]);
                ok!(self.b.build_call(f, &[v.into()], "fptoi"))
                    .try_as_basic_value()
                    .basic()
                    .expect("value")
            }
            (true, false) => self.float_to_int(v.into_float_value(), from, to),
            (true, true) => {
                let v = v.into_float_value();
                let to_t = to_t.into_float_type();
                if to == Scalar::F64 {
                    ok!(b.build_float_ext(v, to_t, "fpext")).into()
                } else {
                    ok!(b.build_float_trunc(v, to_t, "fptrunc")).into()
                }
            }
        }
    }
}

impl<'ctx> FnLower<'_, 'ctx> {
    /// `v as to` for a float `v` that is not a constant, with Rust's semantics (round toward
    /// zero, saturate at the integer type's bounds, NaN to 0), around one `cvt.rzi`
    /// (`llvm.nvvm.{f,d}2{i,ui,ll,ull}.rz`). PTX's `cvt` from a float to an integer already
    /// clamps to the destination's range; a NaN gives 0 only from `f32` to 32 bits or fewer,
    /// otherwise `1 << (bits - 1)` (the PTX ISA, `cvt`, "Integer Notes"). So: from `f32` to
    /// `i32`/`u32` the `cvt` alone (LLVM's `fptosi.sat` lowering adds two compares and two
    /// selects); to an unsigned type otherwise `max(v, 0)` first (PTX's `max` returns the
    /// operand that is not NaN, so a NaN becomes 0); to a signed type otherwise a select of 0
    /// for a NaN after it. 8- and 16-bit types convert to 32 bits, then clamp to their range
    /// (a saturated 32-bit value clamped is the saturated narrow value).
    fn float_to_int(
        &mut self,
        v: inkwell::values::FloatValue<'ctx>,
        from: Scalar,
        to: Scalar,
    ) -> BasicValueEnum<'ctx> {
        let f64_src = from == Scalar::F64;
        let wide = to.bits() == 64;
        let signed = to.is_signed();
        let nan_is_zero = !f64_src && !wide;
        let ft: BasicTypeEnum<'ctx> = v.get_type().into();
        let mut x: BasicValueEnum<'ctx> = v.into();
        if !nan_is_zero && !signed {
            let zero = v.get_type().const_zero();
            x = self.call_intrinsic("llvm.maxnum", &[ft], &[x, zero.into()]);
        }
        let name = format!(
            "llvm.nvvm.{}2{}.rz",
            if f64_src { "d" } else { "f" },
            match (wide, signed) {
                (false, true) => "i",
                (false, false) => "ui",
                (true, true) => "ll",
                (true, false) => "ull",
            }
        );
        let mut r = self.call_intrinsic(&name, &[], &[x]).into_int_value();
        let b = &self.b;
        if !nan_is_zero && signed {
            let nan = ok!(b.build_float_compare(inkwell::FloatPredicate::UNO, v, v, "isnan"));
            r = ok!(b.build_select(nan, r.get_type().const_zero(), r, "nan0")).into_int_value();
        }
        if to.bits() < 32 {
            let i32t = self.ctx.i32_type();
            let (lo, hi) = to.int_range().expect("an integer type");
            let hi = i32t.const_int(hi as u64, false);
            if signed {
                let lo = i32t.const_int(lo as i64 as u64, true);
                r = self
                    .call_intrinsic("llvm.smin", &[i32t.into()], &[r.into(), hi.into()])
                    .into_int_value();
                r = self
                    .call_intrinsic("llvm.smax", &[i32t.into()], &[r.into(), lo.into()])
                    .into_int_value();
            } else {
                r = self
                    .call_intrinsic("llvm.umin", &[i32t.into()], &[r.into(), hi.into()])
                    .into_int_value();
            }
            let to_t = super::scalar_type(self.ctx, to).into_int_type();
            r = ok!(self.b.build_int_truncate(r, to_t, "narrow"));
        }
        r.into()
    }
}

/// `[v; n]` as one constant when `v` is a constant.
fn const_repeat<'ctx>(v: BasicValueEnum<'ctx>, n: u64) -> Option<BasicValueEnum<'ctx>> {
    let n = usize::try_from(n).ok()?;
    Some(match v {
        BasicValueEnum::IntValue(i) if i.is_const() => i.get_type().const_array(&vec![i; n]).into(),
        BasicValueEnum::FloatValue(f) if f.is_const() => {
            f.get_type().const_array(&vec![f; n]).into()
        }
        BasicValueEnum::ArrayValue(a) if a.is_const() => {
            a.get_type().const_array(&vec![a; n]).into()
        }
        BasicValueEnum::StructValue(s) if s.is_const() => {
            s.get_type().const_array(&vec![s; n]).into()
        }
        _ => return None,
    })
}

/// A counted loop's turn counter and its last turn ([`FnLower::turn_counter`]).
#[derive(Clone, Copy)]
struct Turns<'ctx> {
    slot: PointerValue<'ctx>,
    last: IntValue<'ctx>,
}

/// The value a [`crate::ir::Builtin::Fits32`] wraps, when `e` is one.
fn fits32(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Builtin(crate::ir::Builtin::Fits32, args) => args.first(),
        _ => None,
    }
}

/// Whether `e` may be evaluated where the program would skip it (the right side of `&&` or
/// `||`): it reads only locals, lengths and the launch's indices, and computes with no
/// operation that can fail or has an effect (no division, no call, no memory read through an
/// index), in at most `budget` nodes (cheaper than a branch).
fn speculable(e: &Expr, budget: &mut u32) -> bool {
    use crate::ir::{Builtin, Proj};
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let place = |p: &crate::ir::Place| p.proj.iter().all(|j| matches!(j, Proj::Field(_)));
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Bool(_) => true,
        ExprKind::Read(p) | ExprKind::Len(p) => place(p),
        ExprKind::Field(x, _) | ExprKind::Unary(_, x) => speculable(x, budget),
        ExprKind::Cast(x) => {
            let int = |t: &Ty| {
                t.as_scalar()
                    .is_some_and(|s| s.is_int() || s == Scalar::Bool)
            };
            int(&x.ty) && int(&e.ty) && speculable(x, budget)
        }
        ExprKind::Binary(op, a, b, None) => {
            !matches!(op, BinOp::Div | BinOp::Rem) && speculable(a, budget) && speculable(b, budget)
        }
        ExprKind::And(a, b) | ExprKind::Or(a, b) => speculable(a, budget) && speculable(b, budget),
        ExprKind::Builtin(b, args) => match b {
            Builtin::Fits32 => args.iter().all(|a| speculable(a, budget)),
            _ => args.is_empty() && crate::passes::checks_first::index_builtin(*b),
        },
        _ => false,
    }
}
