//! Lowering atomics. Device scope uses LLVM's `atomicrmw`/`cmpxchg` on the place's own
//! address space (`atom.global.*` / `atom.shared.*`). LLVM 22 prints no scope for relaxed
//! read-modify-writes (PTX's default, `.gpu`), so the `_block` and `_system` variants use the
//! NVVM scoped-atomic intrinsics (`atom.cta.*` / `atom.sys.*`) where they exist; where they do
//! not, `_block` falls back to device scope (stronger, still correct) and `_system` to a
//! compare-and-swap loop at system scope.

use inkwell::llvm_sys::core::{
    LLVMBuildAtomicCmpXchgSyncScope, LLVMBuildAtomicRMWSyncScope, LLVMGetSyncScopeID,
    LLVMSetAtomicSyncScopeID, LLVMSetOrdering,
};
use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp};
use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::AddressSpace;

use super::{ok, FnLower, Slot};
use crate::ir::{AtomicOp, Expr, Place, Scope};
use crate::ty::{Scalar, Ty};

/// LLVM's name for a synchronisation scope (the empty name is system scope).
pub(crate) fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Block => "block",
        Scope::Device => "device",
        Scope::System => "",
    }
}

const MONOTONIC: LLVMAtomicOrdering = LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic;

impl<'ctx> FnLower<'_, 'ctx> {
    fn ssid(&self, scope: Scope) -> u32 {
        let name = scope_name(scope);
        // SAFETY: a lookup on this context.
        unsafe { LLVMGetSyncScopeID(self.ctx.raw(), name.as_ptr().cast(), name.len()) }
    }

    pub(crate) fn rmw(
        &self,
        op: LLVMAtomicRMWBinOp,
        ptr: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
        scope: Scope,
    ) -> BasicValueEnum<'ctx> {
        let ssid = self.ssid(scope);
        // SAFETY: `ptr` points to a value of `v`'s type; the builder is positioned.
        unsafe {
            let r = LLVMBuildAtomicRMWSyncScope(
                self.b.as_mut_ptr(),
                op,
                ptr.as_value_ref(),
                v.as_value_ref(),
                MONOTONIC,
                ssid,
            );
            BasicValueEnum::new(r)
        }
    }

    fn cmpxchg(
        &self,
        ptr: PointerValue<'ctx>,
        expected: IntValue<'ctx>,
        new: IntValue<'ctx>,
        scope: Scope,
    ) -> (IntValue<'ctx>, IntValue<'ctx>) {
        let ssid = self.ssid(scope);
        // SAFETY: as in `rmw`.
        let pair = unsafe {
            let r = LLVMBuildAtomicCmpXchgSyncScope(
                self.b.as_mut_ptr(),
                ptr.as_value_ref(),
                expected.as_value_ref(),
                new.as_value_ref(),
                MONOTONIC,
                MONOTONIC,
                ssid,
            );
            BasicValueEnum::new(r).into_struct_value()
        };
        let old = ok!(self.b.build_extract_value(pair, 0, "old")).into_int_value();
        let success = ok!(self.b.build_extract_value(pair, 1, "swapped")).into_int_value();
        (old, success)
    }

    /// `gpu::atomic_OP(&mut place, args)`; returns the old value.
    pub(crate) fn atomic(
        &mut self,
        op: AtomicOp,
        scope: Scope,
        place: &Place,
        args: &[Expr],
    ) -> Option<BasicValueEnum<'ctx>> {
        let ptr = self.place_ptr(place);
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        let Ty::Scalar(s) = place.ty else {
            unreachable!("atomics on scalars")
        };
        let shared = matches!(self.slot(place.base), Slot::Shared(_));
        // Shared memory is only visible to its block: block scope there is device scope.
        let scope = if shared && scope == Scope::Block {
            Scope::Device
        } else {
            scope
        };
        if op == AtomicOp::Load {
            return Some(self.relaxed_load(ptr, s, scope));
        }
        if op == AtomicOp::Cas {
            let (old, _) = self.cmpxchg(
                ptr,
                vals[0].into_int_value(),
                vals[1].into_int_value(),
                scope,
            );
            return Some(old.into());
        }
        let v = if op == AtomicOp::Sub {
            if s.is_float() {
                ok!(self.b.build_float_neg(vals[0].into_float_value(), "neg")).into()
            } else {
                ok!(self.b.build_int_neg(vals[0].into_int_value(), "neg")).into()
            }
        } else {
            vals[0]
        };
        if scope != Scope::Device {
            if let Some(r) = self.scoped_intrinsic(op, scope, s, ptr, v) {
                return Some(r);
            }
            if scope == Scope::System
                && s.is_int()
                && matches!(
                    op,
                    AtomicOp::Min | AtomicOp::Max | AtomicOp::Inc | AtomicOp::Dec
                )
            {
                return Some(self.cas_loop(op, s, ptr, v.into_int_value()).into());
            }
        }
        let bin = rmw_op(op, s);
        Some(self.rmw(bin, ptr, v, scope))
    }

    /// `load atomic monotonic` at `scope`: `ld.relaxed.<cta|gpu|sys>`.
    fn relaxed_load(
        &self,
        ptr: PointerValue<'ctx>,
        s: Scalar,
        scope: Scope,
    ) -> BasicValueEnum<'ctx> {
        let v = ok!(self
            .b
            .build_load(super::scalar_type(self.ctx, s), ptr, "relaxed"));
        let i = v.as_instruction_value().expect("a load is an instruction");
        let _ = i.set_alignment(s.bits() / 8);
        // SAFETY: `i` is a load on this context; monotonic is a load's ordering.
        unsafe {
            LLVMSetOrdering(i.as_value_ref(), MONOTONIC);
            LLVMSetAtomicSyncScopeID(i.as_value_ref(), self.ssid(scope));
        }
        v
    }

    /// `llvm.nvvm.atomic.<op>.gen.<i|f>.<cta|sys>` on a generic pointer, where it exists.
    fn scoped_intrinsic(
        &self,
        op: AtomicOp,
        scope: Scope,
        s: Scalar,
        ptr: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
    ) -> Option<BasicValueEnum<'ctx>> {
        let sc = if scope == Scope::Block { "cta" } else { "sys" };
        let (name, v) = match op {
            AtomicOp::Add | AtomicOp::Sub if s.is_float() => {
                (format!("llvm.nvvm.atomic.add.gen.f.{sc}"), v)
            }
            AtomicOp::Add | AtomicOp::Sub => (format!("llvm.nvvm.atomic.add.gen.i.{sc}"), v),
            AtomicOp::Exch => (format!("llvm.nvvm.atomic.exch.gen.i.{sc}"), v),
            AtomicOp::And => (format!("llvm.nvvm.atomic.and.gen.i.{sc}"), v),
            AtomicOp::Or => (format!("llvm.nvvm.atomic.or.gen.i.{sc}"), v),
            AtomicOp::Xor => (format!("llvm.nvvm.atomic.xor.gen.i.{sc}"), v),
            AtomicOp::Min if s.is_int() && s.is_signed() => {
                (format!("llvm.nvvm.atomic.min.gen.i.{sc}"), v)
            }
            AtomicOp::Max if s.is_int() && s.is_signed() => {
                (format!("llvm.nvvm.atomic.max.gen.i.{sc}"), v)
            }
            AtomicOp::Inc if s.bits() == 32 => (format!("llvm.nvvm.atomic.inc.gen.i.{sc}"), v),
            AtomicOp::Dec if s.bits() == 32 => (format!("llvm.nvvm.atomic.dec.gen.i.{sc}"), v),
            _ => return None,
        };
        // Floats exchange as their bits.
        let (v, as_bits) = if op == AtomicOp::Exch && s.is_float() {
            let t = self.int_type(s.bits());
            (ok!(self.b.build_bit_cast(v, t, "bits")), true)
        } else {
            (v, false)
        };
        let generic = ok!(self.b.build_address_space_cast(
            ptr,
            self.ctx.ptr_type(AddressSpace::from(0u16)),
            "generic"
        ));
        let r = self.call_intrinsic(
            &name,
            &[v.get_type(), generic.get_type().into()],
            &[generic.into(), v],
        );
        Some(if as_bits {
            ok!(self
                .b
                .build_bit_cast(r, super::scalar_type(self.ctx, s), "old"))
        } else {
            r
        })
    }

    /// An integer read-modify-write as a system-scope compare-and-swap loop.
    fn cas_loop(
        &mut self,
        op: AtomicOp,
        s: Scalar,
        ptr: PointerValue<'ctx>,
        v: IntValue<'ctx>,
    ) -> IntValue<'ctx> {
        use inkwell::IntPredicate as P;
        let t = v.get_type();
        let load = ok!(self.b.build_load(t, ptr, "start"));
        let _ = load.as_instruction_value().map(|i| i.set_volatile(true));
        let pre = self.b.get_insert_block().expect("positioned");
        let head = self.block_named("cas_loop");
        let done = self.block_named("cas_done");
        ok!(self.b.build_unconditional_branch(head));
        self.b.position_at_end(head);
        let old = ok!(self.b.build_phi(t, "old"));
        old.add_incoming(&[(&load, pre)]);
        let o = old.as_basic_value().into_int_value();
        let signed = s.is_signed();
        let new = match op {
            AtomicOp::Min => {
                let lt =
                    ok!(self
                        .b
                        .build_int_compare(if signed { P::SLT } else { P::ULT }, v, o, "lt"));
                ok!(self.b.build_select(lt, v, o, "new")).into_int_value()
            }
            AtomicOp::Max => {
                let gt =
                    ok!(self
                        .b
                        .build_int_compare(if signed { P::SGT } else { P::UGT }, v, o, "gt"));
                ok!(self.b.build_select(gt, v, o, "new")).into_int_value()
            }
            AtomicOp::Inc => {
                let wrap = ok!(self.b.build_int_compare(P::UGE, o, v, "wrap"));
                let inc = ok!(self.b.build_int_add(o, t.const_int(1, false), "inc"));
                ok!(self.b.build_select(wrap, t.const_zero(), inc, "new")).into_int_value()
            }
            AtomicOp::Dec => {
                let zero = ok!(self.b.build_int_compare(P::EQ, o, t.const_zero(), "zero"));
                let above = ok!(self.b.build_int_compare(P::UGT, o, v, "above"));
                let wrap = ok!(self.b.build_or(zero, above, "wrap"));
                let dec = ok!(self.b.build_int_sub(o, t.const_int(1, false), "dec"));
                ok!(self.b.build_select(wrap, v, dec, "new")).into_int_value()
            }
            _ => unreachable!("only min, max, inc and dec need the loop"),
        };
        let (seen, swapped) = self.cmpxchg(ptr, o, new, Scope::System);
        let latch = self.b.get_insert_block().expect("positioned");
        old.add_incoming(&[(&seen, latch)]);
        ok!(self.b.build_conditional_branch(swapped, done, head));
        self.b.position_at_end(done);
        seen
    }
}

fn rmw_op(op: AtomicOp, s: Scalar) -> LLVMAtomicRMWBinOp {
    use LLVMAtomicRMWBinOp::*;
    match (op, s.is_float(), s.is_signed()) {
        (AtomicOp::Add | AtomicOp::Sub, true, _) => LLVMAtomicRMWBinOpFAdd,
        (AtomicOp::Add | AtomicOp::Sub, false, _) => LLVMAtomicRMWBinOpAdd,
        (AtomicOp::Min, true, _) => LLVMAtomicRMWBinOpFMin,
        (AtomicOp::Max, true, _) => LLVMAtomicRMWBinOpFMax,
        (AtomicOp::Min, false, true) => LLVMAtomicRMWBinOpMin,
        (AtomicOp::Min, false, false) => LLVMAtomicRMWBinOpUMin,
        (AtomicOp::Max, false, true) => LLVMAtomicRMWBinOpMax,
        (AtomicOp::Max, false, false) => LLVMAtomicRMWBinOpUMax,
        (AtomicOp::Exch, ..) => LLVMAtomicRMWBinOpXchg,
        (AtomicOp::And, ..) => LLVMAtomicRMWBinOpAnd,
        (AtomicOp::Or, ..) => LLVMAtomicRMWBinOpOr,
        (AtomicOp::Xor, ..) => LLVMAtomicRMWBinOpXor,
        (AtomicOp::Inc, ..) => LLVMAtomicRMWBinOpUIncWrap,
        (AtomicOp::Dec, ..) => LLVMAtomicRMWBinOpUDecWrap,
        (AtomicOp::Cas, ..) => unreachable!("cas is cmpxchg"),
        (AtomicOp::Load, ..) => unreachable!("a load is not a read-modify-write"),
    }
}
