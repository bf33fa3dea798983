//! `gpu::grid_sync()`: a barrier across every block of a cooperative launch.
//!
//! Cooperative kernels take one more hidden parameter, after the panic record: the address of
//! 8 bytes of device memory the runtime zeroes before each launch, `[arrivals: u32,
//! generation: u32]`. Every thread waits at `bar.sync`; thread (0, 0, 0) of each block then
//! makes its block's writes visible device-wide (`fence.sc.gpu`, cumulative over what the
//! block barrier ordered before it), reads the generation (acquire, so that its arrival
//! cannot be seen first), and adds one to the arrivals. The last block to arrive resets the
//! arrivals to zero, fences, and bumps the generation; the others spin until the generation
//! changes, then fence. A second `bar.sync` releases the block. The reset comes before the
//! bump, and a block arrives at the next barrier only after seeing the bump, so the same word
//! serves any number of barriers in one launch. A block whose leader failed a check never
//! arrives: in checked kernels the spinning leaders also watch the panic record's claim word
//! and leave the kernel when it is taken, as the failing thread did.

use inkwell::llvm_sys::LLVMAtomicRMWBinOp;
use inkwell::values::BasicValue;
use inkwell::{AtomicOrdering, IntPredicate};

use super::{ok, FnLower};
use crate::ir::Scope;

impl<'ctx> FnLower<'_, 'ctx> {
    /// Lowers one `gpu::grid_sync()`.
    pub(crate) fn grid_sync(&mut self) {
        let Some(word) = self.grid_arg else {
            unreachable!("only cooperative kernels reach grid_sync (the checker says so)")
        };
        let i32t = self.ctx.i32_type();
        let i8t = self.ctx.i8_type();
        let barrier = |this: &Self| {
            this.call_void_intrinsic(
                "llvm.nvvm.barrier.cta.sync.aligned.all",
                &[i32t.const_zero().into()],
            )
        };
        barrier(self);
        let sreg = |this: &Self, name: &str| {
            this.call_intrinsic(&format!("llvm.nvvm.read.ptx.sreg.{name}"), &[], &[])
                .into_int_value()
        };
        let tid = [
            sreg(self, "tid.x"),
            sreg(self, "tid.y"),
            sreg(self, "tid.z"),
        ];
        let any = ok!(self.b.build_or(tid[0], tid[1], "tid_xy"));
        let any = ok!(self.b.build_or(any, tid[2], "tid_any"));
        let leader =
            ok!(self
                .b
                .build_int_compare(IntPredicate::EQ, any, i32t.const_zero(), "leader"));
        let lead_bb = self.block_named("grid_lead");
        let last_bb = self.block_named("grid_last");
        let spin_bb = self.block_named("grid_spin");
        let passed_bb = self.block_named("grid_passed");
        let done_bb = self.block_named("grid_done");
        ok!(self.b.build_conditional_branch(leader, lead_bb, done_bb));

        self.b.position_at_end(lead_bb);
        self.fence(Scope::Device);
        // SAFETY: the runtime passes 8 bytes; the generation is the second word.
        let gen_ptr = unsafe {
            ok!(self.b.build_in_bounds_gep(
                i8t,
                word,
                &[self.ctx.i64_type().const_int(4, false)],
                "generation"
            ))
        };
        let gen = ok!(self.b.build_load(i32t, gen_ptr, "gen"));
        let load = gen.as_instruction_value().expect("a load");
        ok!(load.set_alignment(4));
        ok!(load.set_atomic_ordering(AtomicOrdering::Acquire));
        let blocks = [
            sreg(self, "nctaid.x"),
            sreg(self, "nctaid.y"),
            sreg(self, "nctaid.z"),
        ];
        let n = ok!(self.b.build_int_mul(blocks[0], blocks[1], "blocks_xy"));
        let n = ok!(self.b.build_int_mul(n, blocks[2], "blocks"));
        let one = i32t.const_int(1, false);
        let arrived = self.rmw(
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpAdd,
            word,
            one.into(),
            Scope::Device,
        );
        let last = ok!(self.b.build_int_sub(n, one, "last"));
        let is_last = ok!(self.b.build_int_compare(
            IntPredicate::EQ,
            arrived.into_int_value(),
            last,
            "is_last"
        ));
        ok!(self.b.build_conditional_branch(is_last, last_bb, spin_bb));

        self.b.position_at_end(last_bb);
        self.rmw(
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpXchg,
            word,
            i32t.const_zero().into(),
            Scope::Device,
        );
        self.fence(Scope::Device);
        self.rmw(
            LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpAdd,
            gen_ptr,
            one.into(),
            Scope::Device,
        );
        ok!(self.b.build_unconditional_branch(passed_bb));

        self.b.position_at_end(spin_bb);
        let now = ok!(self.b.build_load(i32t, gen_ptr, "gen_now"));
        let load = now.as_instruction_value().expect("a load");
        ok!(load.set_alignment(4));
        ok!(load.set_volatile(true));
        if let Some(record) = self.panic_arg {
            let claim = ok!(self.b.build_load(i32t, record, "claim"));
            let load = claim.as_instruction_value().expect("a load");
            ok!(load.set_alignment(4));
            ok!(load.set_volatile(true));
            let failed = ok!(self.b.build_int_compare(
                IntPredicate::NE,
                claim.into_int_value(),
                i32t.const_zero(),
                "grid_failed"
            ));
            let leave = self.block_named("grid_leave");
            let still = self.block_named("grid_still");
            ok!(self.b.build_conditional_branch(failed, leave, still));
            self.b.position_at_end(leave);
            self.call_void_intrinsic("llvm.nvvm.exit", &[]);
            ok!(self.b.build_unreachable());
            self.b.position_at_end(still);
        }
        let moved = ok!(self.b.build_int_compare(
            IntPredicate::NE,
            now.into_int_value(),
            gen.into_int_value(),
            "gen_moved"
        ));
        ok!(self.b.build_conditional_branch(moved, passed_bb, spin_bb));

        self.b.position_at_end(passed_bb);
        self.fence(Scope::Device);
        ok!(self.b.build_unconditional_branch(done_bb));

        self.b.position_at_end(done_bb);
        barrier(self);
    }
}
