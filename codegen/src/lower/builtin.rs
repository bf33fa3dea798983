//! Lowering `cuprum::gpu` functions and scalar methods to NVVM and LLVM intrinsics.

use inkwell::module::Module;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue};

use super::{ok, FnLower};
use crate::ir::{Builtin, Expr, MathFn};
use crate::ty::{Scalar, Ty};

/// The declaration of an intrinsic (overloaded ones take their types).
pub(crate) fn intrinsic<'ctx>(
    module: &Module<'ctx>,
    name: &str,
    types: &[BasicTypeEnum<'ctx>],
) -> FunctionValue<'ctx> {
    inkwell::intrinsics::Intrinsic::find(name)
        .unwrap_or_else(|| panic!("cuprum internal error: LLVM has no intrinsic {name}"))
        .get_declaration(module, types)
        .unwrap_or_else(|| panic!("cuprum internal error: cannot declare {name}"))
}

impl<'ctx> FnLower<'_, 'ctx> {
    /// Calls an intrinsic that returns a value.
    pub(crate) fn call_intrinsic(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[BasicValueEnum<'ctx>],
    ) -> BasicValueEnum<'ctx> {
        let f = intrinsic(self.module, name, types);
        let args: Vec<_> = args.iter().map(|a| (*a).into()).collect();
        ok!(self.b.build_call(f, &args, "call"))
            .try_as_basic_value()
            .basic()
            .expect("intrinsic returns a value")
    }

    /// Calls an intrinsic that returns nothing.
    pub(crate) fn call_void_intrinsic(&self, name: &str, args: &[BasicValueEnum<'ctx>]) {
        let f = intrinsic(self.module, name, &[]);
        let args: Vec<_> = args.iter().map(|a| (*a).into()).collect();
        ok!(self.b.build_call(f, &args, ""));
    }

    /// A special register, as `i32`.
    fn sreg(&self, reg: &str, axis: u8) -> IntValue<'ctx> {
        let a = ["x", "y", "z"][axis as usize];
        self.call_intrinsic(&format!("llvm.nvvm.read.ptx.sreg.{reg}.{a}"), &[], &[])
            .into_int_value()
    }

    fn dim3(&self, reg: &str) -> BasicValueEnum<'ctx> {
        let t = super::value_type(self.ctx, &Ty::Dim3)
            .expect("Dim3")
            .into_struct_type();
        let mut v = t.get_undef();
        for axis in 0..3u8 {
            let x = self.sreg(reg, axis);
            v = ok!(self.b.build_insert_value(v, x, axis as u32, "dim")).into_struct_value();
        }
        v.into()
    }

    fn widen(&self, v: IntValue<'ctx>) -> IntValue<'ctx> {
        ok!(self.b.build_int_z_extend(v, self.ctx.i64_type(), "wide"))
    }

    /// Lowers a built-in call.
    pub(crate) fn builtin(
        &mut self,
        b: Builtin,
        args: &[Expr],
        ty: &Ty,
    ) -> Option<BasicValueEnum<'ctx>> {
        match b {
            Builtin::ThreadIdx => Some(self.dim3("tid")),
            Builtin::BlockIdx => Some(self.dim3("ctaid")),
            Builtin::BlockDim => Some(self.dim3("ntid")),
            Builtin::GridDim => Some(self.dim3("nctaid")),
            Builtin::GlobalId(axis) => {
                // 64-bit arithmetic: 2^31 blocks of 1024 threads overflow 32 bits. LLVM turns
                // the widened multiply into one `mul.wide.u32`.
                let block = self.widen(self.sreg("ctaid", axis));
                let dim = self.widen(self.sreg("ntid", axis));
                let tid = self.widen(self.sreg("tid", axis));
                let base = ok!(self.b.build_int_nuw_mul(block, dim, "base"));
                Some(ok!(self.b.build_int_nuw_add(base, tid, "global_id")).into())
            }
            Builtin::GridStride(axis) => {
                let dim = self.widen(self.sreg("ntid", axis));
                let grid = self.widen(self.sreg("nctaid", axis));
                Some(ok!(self.b.build_int_nuw_mul(dim, grid, "grid_stride")).into())
            }
            Builtin::LaneId => {
                Some(self.call_intrinsic("llvm.nvvm.read.ptx.sreg.laneid", &[], &[]))
            }
            Builtin::WarpId => {
                let (tx, ty_, tz) = (
                    self.sreg("tid", 0),
                    self.sreg("tid", 1),
                    self.sreg("tid", 2),
                );
                let (nx, ny) = (self.sreg("ntid", 0), self.sreg("ntid", 1));
                let zy = ok!(self.b.build_int_nuw_mul(tz, ny, "zy"));
                let row = ok!(self.b.build_int_nuw_add(zy, ty_, "row"));
                let rows = ok!(self.b.build_int_nuw_mul(row, nx, "rows"));
                let linear = ok!(self.b.build_int_nuw_add(rows, tx, "linear"));
                let five = self.ctx.i32_type().const_int(5, false);
                Some(ok!(self.b.build_right_shift(linear, five, false, "warp")).into())
            }
            Builtin::SyncThreads => {
                let zero = self.ctx.i32_type().const_zero();
                self.call_void_intrinsic("llvm.nvvm.barrier.cta.sync.aligned.all", &[zero.into()]);
                None
            }
            Builtin::Math(f) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.expr(a)?);
                }
                let Ty::Scalar(s) = ty else {
                    unreachable!("math on scalars")
                };
                Some(self.math(f, *s, &vals))
            }
        }
    }

    fn math(&mut self, f: MathFn, s: Scalar, v: &[BasicValueEnum<'ctx>]) -> BasicValueEnum<'ctx> {
        let t = super::scalar_type(self.ctx, s);
        let float = s.is_float();
        let out = match f {
            MathFn::Min if float => self.call_intrinsic("llvm.minnum", &[t], v),
            MathFn::Max if float => self.call_intrinsic("llvm.maxnum", &[t], v),
            MathFn::Min => self.call_intrinsic(
                if s.is_signed() {
                    "llvm.smin"
                } else {
                    "llvm.umin"
                },
                &[t],
                v,
            ),
            MathFn::Max => self.call_intrinsic(
                if s.is_signed() {
                    "llvm.smax"
                } else {
                    "llvm.umax"
                },
                &[t],
                v,
            ),
            MathFn::Abs if float => self.call_intrinsic("llvm.fabs", &[t], v),
            MathFn::Abs => {
                let poison = self.ctx.bool_type().const_zero();
                self.call_intrinsic("llvm.abs", &[t], &[v[0], poison.into()])
            }
            MathFn::Sqrt => self.call_intrinsic("llvm.sqrt", &[t], v),
            MathFn::MulAdd => self.call_intrinsic("llvm.fma", &[t], v),
            MathFn::Floor => self.call_intrinsic("llvm.floor", &[t], v),
            MathFn::Ceil => self.call_intrinsic("llvm.ceil", &[t], v),
            MathFn::Trunc => self.call_intrinsic("llvm.trunc", &[t], v),
            MathFn::Round => self.call_intrinsic("llvm.round", &[t], v),
            MathFn::WrappingAdd => {
                ok!(self
                    .b
                    .build_int_add(v[0].into_int_value(), v[1].into_int_value(), "wadd"))
                .into()
            }
            MathFn::WrappingSub => {
                ok!(self
                    .b
                    .build_int_sub(v[0].into_int_value(), v[1].into_int_value(), "wsub"))
                .into()
            }
            MathFn::WrappingMul => {
                ok!(self
                    .b
                    .build_int_mul(v[0].into_int_value(), v[1].into_int_value(), "wmul"))
                .into()
            }
        };
        if float {
            self.float_flags(out);
        }
        out
    }
}
