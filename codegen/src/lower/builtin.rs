//! Lowering `cuprum::gpu` functions and scalar methods to NVVM and LLVM intrinsics, and to
//! libdevice for the transcendental functions.

use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};

use super::{ok, FnLower};
use crate::ir::{BinOp, Builtin, Expr, ExprKind, MathFn, ShflKind};
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
        // `block = (X, Y, Z)`: the runtime launches no other shape (and `.reqntid` makes the
        // driver refuse one), so `block_dim()` is a constant and each index below it.
        if let (Some(b), "ntid") = (self.options.block, reg) {
            return self
                .ctx
                .i32_type()
                .const_int(u64::from(b[axis as usize]), false);
        }
        let a = ["x", "y", "z"][axis as usize];
        let f = intrinsic(
            self.module,
            &format!("llvm.nvvm.read.ptx.sreg.{reg}.{a}"),
            &[],
        );
        let call = ok!(self.b.build_call(f, &[], "call"));
        if self.fast_copy {
            // In the fast copy of a kernel versioned on the launch's flag: not identical to
            // the checked body's reads, so LLVM does not hoist the code both copies begin
            // with above the branch (after which ptxas scheduled the copy's loads worse).
            let attr = self.ctx.create_string_attribute("cuprum-fast-copy", "");
            call.add_attribute(inkwell::attributes::AttributeLoc::Function, attr);
        }
        let v = call
            .try_as_basic_value()
            .basic()
            .expect("a special register")
            .into_int_value();
        // `max_threads = n` is `.maxntid n`: the runtime and the driver refuse a bigger block,
        // so every index below n and every dimension at most n (folds the checks of
        // `shared_array::<T, N>()[thread_idx().x]` when n <= N).
        if let (Some(b), "tid") = (self.options.block, reg) {
            self.assume_below(v, u64::from(b[axis as usize]));
        }
        if let Some(n) = self.options.max_threads {
            match reg {
                "tid" => self.assume_below(v, u64::from(n)),
                "ntid" => self.assume_below(v, u64::from(n) + 1),
                _ => {}
            }
        }
        v
    }

    /// `llvm.assume(v < bound)` (unsigned).
    fn assume_below(&self, v: IntValue<'ctx>, bound: u64) {
        let below = ok!(self.b.build_int_compare(
            IntPredicate::ULT,
            v,
            v.get_type().const_int(bound, false),
            "below"
        ));
        self.assume(below);
    }

    /// `llvm.assume(fact)`: LLVM may rely on `fact` (an `i1`) holding here.
    pub(crate) fn assume(&self, fact: IntValue<'ctx>) {
        let assume = intrinsic(self.module, "llvm.assume", &[]);
        ok!(self.b.build_call(assume, &[fact.into()], ""));
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
        if let Builtin::Shared(k) = b {
            return Some(self.shared[k].into());
        }
        if let Builtin::Narrow = b {
            // `x + c`: `x` in 32 bits, sign-extended (it lies in `[-2³¹, 2³¹)`, see
            // `passes::narrow`), then `c` in 64 bits, where it can be an address offset
            // (`c = 0`: the index itself, below 2³¹).
            let (x, c) = crate::passes::narrow::split_offset(&args[0]);
            let v = self.narrow32(x)?;
            let v = self.freeze(v);
            let i64t = self.ctx.i64_type();
            let wide = ok!(self.b.build_int_s_extend(v, i64t, "sext"));
            if c == 0 {
                return Some(wide.into());
            }
            let c = i64t.const_int(c as i64 as u64, true);
            return Some(ok!(self.b.build_int_nsw_add(wide, c, "index")).into());
        }
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.expr(a)?);
        }
        let i32t = self.ctx.i32_type();
        Some(match b {
            Builtin::ThreadIdx => self.dim3("tid"),
            Builtin::BlockIdx => self.dim3("ctaid"),
            Builtin::BlockDim => self.dim3("ntid"),
            Builtin::GridDim => self.dim3("nctaid"),
            Builtin::GlobalId(axis) => {
                // 64-bit arithmetic: 2^31 blocks of 1024 threads overflow 32 bits. LLVM turns
                // the widened multiply into one `mul.wide.u32`. `%ntid` is read before
                // `%ctaid`, as nvcc orders them: ptxas then loads `ntid` from the constant
                // bank (ULDC) and issues the `ctaid` S2R alone, which measured 1.3–1.5%
                // faster on the memory-bound laplace kernel (bench/NOTES.md, 2026-12-06).
                let dim = self.widen(self.sreg("ntid", axis));
                let block = self.widen(self.sreg("ctaid", axis));
                let tid = self.widen(self.sreg("tid", axis));
                let base = ok!(self.b.build_int_nuw_mul(block, dim, "base"));
                ok!(self.b.build_int_nuw_add(base, tid, "global_id")).into()
            }
            Builtin::GridStride(axis) => {
                let dim = self.widen(self.sreg("ntid", axis));
                let grid = self.widen(self.sreg("nctaid", axis));
                ok!(self.b.build_int_nuw_mul(dim, grid, "grid_stride")).into()
            }
            Builtin::LaneId => self.call_intrinsic("llvm.nvvm.read.ptx.sreg.laneid", &[], &[]),
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
                let warp =
                    ok!(self
                        .b
                        .build_right_shift(linear, i32t.const_int(5, false), false, "warp"));
                if let Some(n) = self.options.max_threads {
                    self.assume_below(warp, u64::from(n).div_ceil(32));
                }
                warp.into()
            }
            Builtin::GridSync => {
                self.grid_sync();
                return None;
            }
            Builtin::SyncThreads => {
                self.call_void_intrinsic(
                    "llvm.nvvm.barrier.cta.sync.aligned.all",
                    &[i32t.const_zero().into()],
                );
                return None;
            }
            Builtin::SyncThreadsCount => self.call_intrinsic(
                "llvm.nvvm.barrier.cta.red.popc.aligned.all",
                &[],
                &[i32t.const_zero().into(), vals[0]],
            ),
            Builtin::SyncThreadsAnd => self.call_intrinsic(
                "llvm.nvvm.barrier.cta.red.and.aligned.all",
                &[],
                &[i32t.const_zero().into(), vals[0]],
            ),
            Builtin::SyncThreadsOr => self.call_intrinsic(
                "llvm.nvvm.barrier.cta.red.or.aligned.all",
                &[],
                &[i32t.const_zero().into(), vals[0]],
            ),
            Builtin::SyncWarp => {
                self.call_void_intrinsic("llvm.nvvm.bar.warp.sync", &[vals[0]]);
                return None;
            }
            Builtin::Fence(scope) => {
                self.fence(scope);
                return None;
            }
            Builtin::Shared(_) => unreachable!("handled above"),
            Builtin::Shfl(kind) => {
                let Ty::Scalar(s) = ty else {
                    unreachable!("shuffles move scalars")
                };
                self.shuffle(
                    kind,
                    *s,
                    vals[0].into_int_value(),
                    vals[1],
                    vals[2].into_int_value(),
                )
            }
            Builtin::Ballot => self.call_intrinsic("llvm.nvvm.vote.ballot.sync", &[], &vals),
            Builtin::AllSync => self.call_intrinsic("llvm.nvvm.vote.all.sync", &[], &vals),
            Builtin::AnySync => self.call_intrinsic("llvm.nvvm.vote.any.sync", &[], &vals),
            Builtin::ActiveMask => self.call_intrinsic("llvm.nvvm.activemask", &[], &[]),
            Builtin::MatchAny => {
                let Ty::Scalar(s) = &args[1].ty else {
                    unreachable!("matched values are scalars")
                };
                let bits = self.to_int_bits(vals[1], *s);
                let name = if s.bits() == 64 {
                    "llvm.nvvm.match.any.sync.i64"
                } else {
                    "llvm.nvvm.match.any.sync.i32"
                };
                self.call_intrinsic(name, &[], &[vals[0], bits.into()])
            }
            Builtin::Clock64 => self.call_intrinsic("llvm.nvvm.read.ptx.sreg.clock64", &[], &[]),
            Builtin::Clock => self.call_intrinsic("llvm.nvvm.read.ptx.sreg.clock", &[], &[]),
            Builtin::Narrow => unreachable!("lowered before its arguments"),
            // Outside a comparison of two (`lower::expr`), the value itself.
            Builtin::Fits32 => vals[0],
            Builtin::HostTest => {
                let flag = self
                    .host_test
                    .expect("the versioning flag is read only in a kernel that takes it");
                let zero = i32t.const_zero();
                ok!(self
                    .b
                    .build_int_compare(inkwell::IntPredicate::NE, flag, zero, "fast"))
                .into()
            }
            Builtin::LaneMask(m) => {
                let which = match m {
                    crate::ir::LaneMask::Lt => "lt",
                    crate::ir::LaneMask::Le => "le",
                    crate::ir::LaneMask::Gt => "gt",
                    crate::ir::LaneMask::Ge => "ge",
                };
                self.call_intrinsic(
                    &format!("llvm.nvvm.read.ptx.sreg.lanemask.{which}"),
                    &[],
                    &[],
                )
            }
            Builtin::MatchAll => {
                let Ty::Scalar(s) = &args[1].ty else {
                    unreachable!("matched values are scalars")
                };
                let bits = self.to_int_bits(vals[1], *s);
                let name = if s.bits() == 64 {
                    "llvm.nvvm.match.all.sync.i64p"
                } else {
                    "llvm.nvvm.match.all.sync.i32p"
                };
                self.call_intrinsic(name, &[], &[vals[0], bits.into()])
            }
            Builtin::Redux(op) => {
                let signed = args[1].ty == Ty::Scalar(Scalar::I32);
                let name = match (op, signed) {
                    (crate::ir::ReduxOp::Add, _) => "llvm.nvvm.redux.sync.add",
                    (crate::ir::ReduxOp::Min, true) => "llvm.nvvm.redux.sync.min",
                    (crate::ir::ReduxOp::Max, true) => "llvm.nvvm.redux.sync.max",
                    (crate::ir::ReduxOp::Min, false) => "llvm.nvvm.redux.sync.umin",
                    (crate::ir::ReduxOp::Max, false) => "llvm.nvvm.redux.sync.umax",
                };
                // (value, membermask), as `__nvvm_redux_sync_*`.
                self.call_intrinsic(name, &[], &[vals[1], vals[0]])
            }
            Builtin::Fast(f) => self.fast_call(f, &vals, args[0].span),
            Builtin::Math(f) => {
                let Ty::Scalar(recv) = &args[0].ty else {
                    unreachable!("math on scalars")
                };
                let Ty::Scalar(out) = ty else {
                    unreachable!("math returns scalars")
                };
                self.math(f, *recv, *out, &vals, args[0].span)
            }
        })
    }

    /// A scalar's bits as an integer of its width (floats bit-cast, `i32`/`u32` unchanged).
    fn to_int_bits(&self, v: BasicValueEnum<'ctx>, s: Scalar) -> IntValue<'ctx> {
        if s.is_float() {
            let t = self.int_type(s.bits());
            ok!(self.b.build_bit_cast(v, t, "bits")).into_int_value()
        } else {
            v.into_int_value()
        }
    }

    fn int_bits_to(&self, v: IntValue<'ctx>, s: Scalar) -> BasicValueEnum<'ctx> {
        if s.is_float() {
            ok!(self
                .b
                .build_bit_cast(v, super::scalar_type(self.ctx, s), "float"))
        } else {
            v.into()
        }
    }

    /// `shfl.sync` on 32-bit values; 64-bit values move as two halves, as CUDA does.
    fn shuffle(
        &self,
        kind: ShflKind,
        s: Scalar,
        mask: IntValue<'ctx>,
        v: BasicValueEnum<'ctx>,
        lane: IntValue<'ctx>,
    ) -> BasicValueEnum<'ctx> {
        let (mode, clamp) = match kind {
            ShflKind::Idx => ("idx", 0x1f),
            ShflKind::Up => ("up", 0),
            ShflKind::Down => ("down", 0x1f),
            ShflKind::Xor => ("bfly", 0x1f),
        };
        let i32t = self.ctx.i32_type();
        let c = i32t.const_int(clamp, false);
        if s == Scalar::F32 {
            return self.call_intrinsic(
                &format!("llvm.nvvm.shfl.sync.{mode}.f32"),
                &[],
                &[mask.into(), v, lane.into(), c.into()],
            );
        }
        let name = format!("llvm.nvvm.shfl.sync.{mode}.i32");
        if s.bits() == 32 {
            return self.call_intrinsic(&name, &[], &[mask.into(), v, lane.into(), c.into()]);
        }
        let bits = self.to_int_bits(v, s);
        let i64t = self.ctx.i64_type();
        let lo = ok!(self.b.build_int_truncate(bits, i32t, "lo"));
        let hi = ok!(self
            .b
            .build_right_shift(bits, i64t.const_int(32, false), false, "hi64"));
        let hi = ok!(self.b.build_int_truncate(hi, i32t, "hi"));
        let lo = self
            .call_intrinsic(&name, &[], &[mask.into(), lo.into(), lane.into(), c.into()])
            .into_int_value();
        let hi = self
            .call_intrinsic(&name, &[], &[mask.into(), hi.into(), lane.into(), c.into()])
            .into_int_value();
        let lo = ok!(self.b.build_int_z_extend(lo, i64t, "lo64"));
        let hi = ok!(self.b.build_int_z_extend(hi, i64t, "hi64"));
        let hi = ok!(self
            .b
            .build_left_shift(hi, i64t.const_int(32, false), "hi_shifted"));
        let joined = ok!(self.b.build_or(hi, lo, "joined"));
        self.int_bits_to(joined, s)
    }

    fn math(
        &mut self,
        f: MathFn,
        s: Scalar,
        out: Scalar,
        v: &[BasicValueEnum<'ctx>],
        span: proc_macro2::Span,
    ) -> BasicValueEnum<'ctx> {
        use MathFn::*;
        let t = super::scalar_type(self.ctx, s);
        let float = s.is_float();
        if let Some(name) = f.libdevice(s, self.options.fastmath) {
            let result = self.libdevice_call(&name, f, s, v, span);
            self.float_flags(result);
            return result;
        }
        let b = &self.b;
        let int = |x: BasicValueEnum<'ctx>| x.into_int_value();
        let out_v: BasicValueEnum = match f {
            Min if float => self.call_intrinsic("llvm.minnum", &[t], v),
            Max if float => self.call_intrinsic("llvm.maxnum", &[t], v),
            Min => self.call_intrinsic(
                if s.is_signed() {
                    "llvm.smin"
                } else {
                    "llvm.umin"
                },
                &[t],
                v,
            ),
            Max => self.call_intrinsic(
                if s.is_signed() {
                    "llvm.smax"
                } else {
                    "llvm.umax"
                },
                &[t],
                v,
            ),
            Abs if float => self.call_intrinsic("llvm.fabs", &[t], v),
            Abs => self.call_intrinsic(
                "llvm.abs",
                &[t],
                &[v[0], self.ctx.bool_type().const_zero().into()],
            ),
            Sqrt => self.call_intrinsic("llvm.sqrt", &[t], v),
            MulAdd => self.call_intrinsic("llvm.fma", &[t], v),
            Floor => self.call_intrinsic("llvm.floor", &[t], v),
            Ceil => self.call_intrinsic("llvm.ceil", &[t], v),
            Trunc => self.call_intrinsic("llvm.trunc", &[t], v),
            Round => self.call_intrinsic("llvm.round", &[t], v),
            Copysign => self.call_intrinsic("llvm.copysign", &[t], v),
            Recip => {
                let one = t.into_float_type().const_float(1.0);
                ok!(b.build_float_div(one, v[0].into_float_value(), "recip")).into()
            }
            Clamp => {
                let (x, lo, hi) = (v[0], v[1], v[2]);
                let (below, above) = if float {
                    let (xf, lof, hif) = (
                        x.into_float_value(),
                        lo.into_float_value(),
                        hi.into_float_value(),
                    );
                    (
                        ok!(b.build_float_compare(FloatPredicate::OLT, xf, lof, "below")),
                        ok!(b.build_float_compare(FloatPredicate::OGT, xf, hif, "above")),
                    )
                } else {
                    let (lt, gt) = if s.is_signed() {
                        (IntPredicate::SLT, IntPredicate::SGT)
                    } else {
                        (IntPredicate::ULT, IntPredicate::UGT)
                    };
                    (
                        ok!(b.build_int_compare(lt, int(x), int(lo), "below")),
                        ok!(b.build_int_compare(gt, int(x), int(hi), "above")),
                    )
                };
                let upper = ok!(b.build_select(above, hi, x, "upper"));
                ok!(b.build_select(below, lo, upper, "clamp"))
            }
            IsNan => {
                let x = v[0].into_float_value();
                ok!(b.build_float_compare(FloatPredicate::UNO, x, x, "is_nan")).into()
            }
            IsFinite => {
                let a = self.call_intrinsic("llvm.fabs", &[t], v).into_float_value();
                let inf = t.into_float_type().const_float(f64::INFINITY);
                ok!(self
                    .b
                    .build_float_compare(FloatPredicate::OLT, a, inf, "is_finite"))
                .into()
            }
            ToBits => self.to_int_bits(v[0], s).into(),
            FromBits => self.int_bits_to(int(v[0]), out),
            Pow => self.int_pow(int(v[0]), int(v[1])).into(),
            CountOnes | LeadingZeros | TrailingZeros => {
                let r = match f {
                    CountOnes => self.call_intrinsic("llvm.ctpop", &[t], v),
                    LeadingZeros => self.call_intrinsic(
                        "llvm.ctlz",
                        &[t],
                        &[v[0], self.ctx.bool_type().const_zero().into()],
                    ),
                    _ => self.call_intrinsic(
                        "llvm.cttz",
                        &[t],
                        &[v[0], self.ctx.bool_type().const_zero().into()],
                    ),
                };
                self.resize(int(r), 32).into()
            }
            ReverseBits => self.call_intrinsic("llvm.bitreverse", &[t], v),
            RotateLeft | RotateRight => {
                let n = self.resize(int(v[1]), s.bits());
                let name = if f == RotateLeft {
                    "llvm.fshl"
                } else {
                    "llvm.fshr"
                };
                self.call_intrinsic(name, &[t], &[v[0], v[0], n.into()])
            }
            WrappingAdd => ok!(b.build_int_add(int(v[0]), int(v[1]), "wadd")).into(),
            WrappingSub => ok!(b.build_int_sub(int(v[0]), int(v[1]), "wsub")).into(),
            WrappingMul => ok!(b.build_int_mul(int(v[0]), int(v[1]), "wmul")).into(),
            WrappingNeg => ok!(b.build_int_neg(int(v[0]), "wneg")).into(),
            WrappingShl | WrappingShr => {
                let n = self.resize(int(v[1]), s.bits());
                let mask = t.into_int_type().const_int(s.bits() as u64 - 1, false);
                let n = ok!(self.b.build_and(n, mask, "shamt"));
                if f == WrappingShl {
                    ok!(self.b.build_left_shift(int(v[0]), n, "wshl")).into()
                } else {
                    ok!(self
                        .b
                        .build_right_shift(int(v[0]), n, s.is_signed(), "wshr"))
                    .into()
                }
            }
            Exp | Exp2 | Ln | Log2 | Log10 | Powf | Powi | Sin | Cos | Tan | Asin | Acos | Atan
            | Atan2 | Sinh | Cosh | Tanh | Hypot | Cbrt | Rsqrt => {
                unreachable!("transcendental functions go to libdevice")
            }
        };
        if float && out.is_float() {
            self.float_flags(out_v);
        }
        out_v
    }

    /// `e` (a `usize`) modulo 2³², computed in 32 bits ([`Builtin::Narrow`]): `+ - *` of
    /// `usize` on its operands modulo 2³², a literal's low bits, an integer of at most 32 bits
    /// widened to `usize` as itself (extended to 32 bits as its cast would), anything else
    /// computed as written and truncated (LLVM narrows what only the truncation reads).
    pub(crate) fn narrow32(&mut self, e: &Expr) -> Option<IntValue<'ctx>> {
        let i32t = self.ctx.i32_type();
        match &e.kind {
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b, _)
                if e.ty == Ty::USIZE =>
            {
                let x = self.narrow32(a)?;
                let y = self.narrow32(b)?;
                return Some(match op {
                    BinOp::Add => ok!(self.b.build_int_add(x, y, "add32")),
                    BinOp::Sub => ok!(self.b.build_int_sub(x, y, "sub32")),
                    _ => ok!(self.b.build_int_mul(x, y, "mul32")),
                });
            }
            ExprKind::Int(c) => return Some(i32t.const_int(*c as u64 & 0xffff_ffff, false)),
            ExprKind::Cast(x) => {
                let small = x.ty.as_scalar().filter(|s| s.is_int() && s.bits() <= 32);
                if let Some(s) = small {
                    let v = self.expr(x)?.into_int_value();
                    return Some(if v.get_type().get_bit_width() == 32 {
                        v
                    } else if s.is_signed() {
                        ok!(self.b.build_int_s_extend(v, i32t, "sext32"))
                    } else {
                        ok!(self.b.build_int_z_extend(v, i32t, "zext32"))
                    });
                }
            }
            _ => {}
        }
        let v = self.expr(e)?.into_int_value();
        Some(ok!(self.b.build_int_truncate(v, i32t, "lo32")))
    }

    /// An integer zero-extended or truncated to `bits` (unsigned sense).
    fn resize(&self, v: IntValue<'ctx>, bits: u32) -> IntValue<'ctx> {
        let t = self.int_type(bits);
        match v.get_type().get_bit_width().cmp(&bits) {
            std::cmp::Ordering::Less => ok!(self.b.build_int_z_extend(v, t, "zext")),
            std::cmp::Ordering::Greater => ok!(self.b.build_int_truncate(v, t, "trunc")),
            std::cmp::Ordering::Equal => v,
        }
    }

    /// `x.pow(e)` by squaring, wrapping like Rust release builds.
    fn int_pow(&mut self, x: IntValue<'ctx>, e: IntValue<'ctx>) -> IntValue<'ctx> {
        let t = x.get_type();
        let i32t = self.ctx.i32_type();
        let pre = self.b.get_insert_block().expect("positioned");
        let head = self.block_named("pow_loop");
        let odd_bb = self.block_named("pow_odd");
        let next = self.block_named("pow_next");
        let done = self.block_named("pow_done");
        ok!(self.b.build_unconditional_branch(head));
        self.b.position_at_end(head);
        let acc = ok!(self.b.build_phi(t, "acc"));
        let base = ok!(self.b.build_phi(t, "base"));
        let exp = ok!(self.b.build_phi(i32t, "exp"));
        acc.add_incoming(&[(&t.const_int(1, false), pre)]);
        base.add_incoming(&[(&x, pre)]);
        exp.add_incoming(&[(&e, pre)]);
        let (accv, basev, expv) = (
            acc.as_basic_value().into_int_value(),
            base.as_basic_value().into_int_value(),
            exp.as_basic_value().into_int_value(),
        );
        let zero =
            ok!(self
                .b
                .build_int_compare(IntPredicate::EQ, expv, i32t.const_zero(), "exp_zero"));
        ok!(self.b.build_conditional_branch(zero, done, odd_bb));
        self.b.position_at_end(odd_bb);
        let bit = ok!(self.b.build_and(expv, i32t.const_int(1, false), "bit"));
        let is_odd = ok!(self
            .b
            .build_int_compare(IntPredicate::NE, bit, i32t.const_zero(), "odd"));
        let times = ok!(self.b.build_int_mul(accv, basev, "times"));
        let acc2 = ok!(self.b.build_select(is_odd, times, accv, "acc2")).into_int_value();
        let base2 = ok!(self.b.build_int_mul(basev, basev, "base2"));
        let exp2 = ok!(self
            .b
            .build_right_shift(expv, i32t.const_int(1, false), false, "exp2"));
        ok!(self.b.build_unconditional_branch(next));
        self.b.position_at_end(next);
        ok!(self.b.build_unconditional_branch(head));
        acc.add_incoming(&[(&acc2, next)]);
        base.add_incoming(&[(&base2, next)]);
        exp.add_incoming(&[(&exp2, next)]);
        self.b.position_at_end(done);
        accv
    }

    /// A call of the libdevice function `name` (declared here, linked in by `emit`).
    fn libdevice_call(
        &mut self,
        name: &str,
        f: MathFn,
        s: Scalar,
        v: &[BasicValueEnum<'ctx>],
        span: proc_macro2::Span,
    ) -> BasicValueEnum<'ctx> {
        let t = super::scalar_type(self.ctx, s);
        let func = self.module.get_function(name).unwrap_or_else(|| {
            let params: Vec<BasicMetadataTypeEnum> = match f {
                MathFn::Powi => vec![t.into(), self.ctx.i32_type().into()],
                MathFn::Powf | MathFn::Atan2 | MathFn::Hypot => vec![t.into(), t.into()],
                _ => vec![t.into()],
            };
            self.module
                .add_function(name, t.fn_type(&params, false), Some(Linkage::External))
        });
        self.libdevice_uses.push((name.to_string(), span));
        let args: Vec<_> = v.iter().map(|a| (*a).into()).collect();
        ok!(self.b.build_call(func, &args, "libdevice"))
            .try_as_basic_value()
            .basic()
            .expect("libdevice returns a value")
    }

    /// `gpu::fast::*`: libdevice's `__nv_fast_*` (one `ex2.approx`, `lg2.approx`,
    /// `sin.approx`, `cos.approx` or `div.approx` instruction each, after O3).
    fn fast_call(
        &mut self,
        f: crate::ir::FastFn,
        v: &[BasicValueEnum<'ctx>],
        span: proc_macro2::Span,
    ) -> BasicValueEnum<'ctx> {
        let t = self.ctx.f32_type();
        let name = f.libdevice();
        let func = self.module.get_function(name).unwrap_or_else(|| {
            let params: Vec<BasicMetadataTypeEnum> = v.iter().map(|_| t.into()).collect();
            self.module
                .add_function(name, t.fn_type(&params, false), Some(Linkage::External))
        });
        self.libdevice_uses.push((name.to_string(), span));
        let args: Vec<_> = v.iter().map(|a| (*a).into()).collect();
        ok!(self.b.build_call(func, &args, "fast"))
            .try_as_basic_value()
            .basic()
            .expect("libdevice returns a value")
    }

    /// `freeze v`: the same value (nothing here is poison), which InstCombine does not look
    /// through, so that it does not widen a 32-bit index back to 64 bits (it evaluates the
    /// extension of a tree of truncated 64-bit values in 64 bits, then masks the result).
    fn freeze(&self, v: IntValue<'ctx>) -> IntValue<'ctx> {
        use inkwell::llvm_sys::core::LLVMBuildFreeze;
        use inkwell::values::AsValueRef;
        // SAFETY: a plain LLVM C API call on this builder, with a value of its function; the
        // name outlives it.
        unsafe {
            IntValue::new(LLVMBuildFreeze(
                self.b.as_mut_ptr(),
                v.as_value_ref(),
                c"index32".as_ptr(),
            ))
        }
    }

    /// `fence.sc` at a scope (CUDA's `__threadfence*`).
    pub(crate) fn fence(&self, scope: crate::ir::Scope) {
        use inkwell::llvm_sys::core::{LLVMBuildFenceSyncScope, LLVMGetSyncScopeID};
        use inkwell::llvm_sys::LLVMAtomicOrdering;
        let name = super::atomic::scope_name(scope);
        // SAFETY: plain LLVM C API calls on this context and builder; the name outlives them.
        unsafe {
            let ssid = LLVMGetSyncScopeID(self.ctx.raw(), name.as_ptr().cast(), name.len());
            LLVMBuildFenceSyncScope(
                self.b.as_mut_ptr(),
                LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
                ssid,
                c"".as_ptr(),
            );
        }
    }
}
