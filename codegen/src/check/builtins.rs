//! The names a kernel can use without declaring them: `cuprum::gpu` functions and constants,
//! the associated constants of scalar types, and the scalar methods.

use crate::ir::{AtomicOp, Builtin, LaneMask, MathFn, Scope, ShflKind};
use crate::ty::{Scalar, Ty};

/// Every public function name in `cuprum::gpu`, for "did you mean" suggestions.
pub const GPU_FUNCTIONS: &[&str] = &[
    "thread_idx",
    "block_idx",
    "block_dim",
    "grid_dim",
    "global_id_x",
    "global_id_y",
    "global_id_z",
    "grid_stride_x",
    "grid_stride_y",
    "grid_stride_z",
    "lane_id",
    "warp_id",
    "shared_array",
    "shared_array_2d",
    "dynamic_shared",
    "sync_threads",
    "sync_threads_count",
    "sync_threads_and",
    "sync_threads_or",
    "sync_warp",
    "thread_fence",
    "thread_fence_block",
    "thread_fence_system",
    "atomic_add",
    "atomic_sub",
    "atomic_min",
    "atomic_max",
    "atomic_exch",
    "atomic_cas",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_inc",
    "atomic_dec",
    "atomic_load",
    "shfl_sync",
    "shfl_up_sync",
    "shfl_down_sync",
    "shfl_xor_sync",
    "ballot_sync",
    "all_sync",
    "any_sync",
    "activemask",
    "match_any_sync",
    "rsqrt",
    "clock64",
    "grid_sync",
    "match_all_sync",
    "lanemask_lt",
    "lanemask_le",
    "lanemask_gt",
    "lanemask_ge",
    "clock",
];

/// A `cuprum::gpu` function this compiler lowers, with its parameter and return types.
pub fn gpu_function(name: &str) -> Option<(Builtin, Vec<Ty>, Ty)> {
    let usize_ = Ty::USIZE;
    Some(match name {
        "thread_idx" => (Builtin::ThreadIdx, vec![], Ty::Dim3),
        "block_idx" => (Builtin::BlockIdx, vec![], Ty::Dim3),
        "block_dim" => (Builtin::BlockDim, vec![], Ty::Dim3),
        "grid_dim" => (Builtin::GridDim, vec![], Ty::Dim3),
        "global_id_x" => (Builtin::GlobalId(0), vec![], usize_),
        "global_id_y" => (Builtin::GlobalId(1), vec![], usize_),
        "global_id_z" => (Builtin::GlobalId(2), vec![], usize_),
        "grid_stride_x" => (Builtin::GridStride(0), vec![], usize_),
        "grid_stride_y" => (Builtin::GridStride(1), vec![], usize_),
        "grid_stride_z" => (Builtin::GridStride(2), vec![], usize_),
        "lane_id" => (Builtin::LaneId, vec![], Ty::U32),
        "warp_id" => (Builtin::WarpId, vec![], Ty::U32),
        "sync_threads" => (Builtin::SyncThreads, vec![], Ty::Unit),
        "sync_threads_count" => (Builtin::SyncThreadsCount, vec![Ty::BOOL], Ty::U32),
        "sync_threads_and" => (Builtin::SyncThreadsAnd, vec![Ty::BOOL], Ty::BOOL),
        "sync_threads_or" => (Builtin::SyncThreadsOr, vec![Ty::BOOL], Ty::BOOL),
        "sync_warp" => (Builtin::SyncWarp, vec![Ty::U32], Ty::Unit),
        "thread_fence" => (Builtin::Fence(Scope::Device), vec![], Ty::Unit),
        "thread_fence_block" => (Builtin::Fence(Scope::Block), vec![], Ty::Unit),
        "thread_fence_system" => (Builtin::Fence(Scope::System), vec![], Ty::Unit),
        "ballot_sync" => (Builtin::Ballot, vec![Ty::U32, Ty::BOOL], Ty::U32),
        "all_sync" => (Builtin::AllSync, vec![Ty::U32, Ty::BOOL], Ty::BOOL),
        "any_sync" => (Builtin::AnySync, vec![Ty::U32, Ty::BOOL], Ty::BOOL),
        "activemask" => (Builtin::ActiveMask, vec![], Ty::U32),
        "clock64" => (Builtin::Clock64, vec![], Ty::Scalar(Scalar::U64)),
        "grid_sync" => (Builtin::GridSync, vec![], Ty::Unit),
        "lanemask_lt" => (Builtin::LaneMask(LaneMask::Lt), vec![], Ty::U32),
        "lanemask_le" => (Builtin::LaneMask(LaneMask::Le), vec![], Ty::U32),
        "lanemask_gt" => (Builtin::LaneMask(LaneMask::Gt), vec![], Ty::U32),
        "lanemask_ge" => (Builtin::LaneMask(LaneMask::Ge), vec![], Ty::U32),
        "clock" => (Builtin::Clock, vec![], Ty::U32),
        _ => return None,
    })
}

/// The atomic `gpu::atomic_<op>[_block|_system]`, if `name` is one.
pub fn atomic(name: &str) -> Option<(AtomicOp, Scope)> {
    let rest = name.strip_prefix("atomic_")?;
    let (op, scope) = if let Some(op) = rest.strip_suffix("_block") {
        (op, Scope::Block)
    } else if let Some(op) = rest.strip_suffix("_system") {
        (op, Scope::System)
    } else {
        (rest, Scope::Device)
    };
    let op = match op {
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "min" => AtomicOp::Min,
        "max" => AtomicOp::Max,
        "exch" => AtomicOp::Exch,
        "cas" => AtomicOp::Cas,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        "load" => AtomicOp::Load,
        _ => return None,
    };
    Some((op, scope))
}

/// The shuffle `gpu::shfl*_sync`, if `name` is one.
pub fn shuffle(name: &str) -> Option<ShflKind> {
    Some(match name {
        "shfl_sync" => ShflKind::Idx,
        "shfl_up_sync" => ShflKind::Up,
        "shfl_down_sync" => ShflKind::Down,
        "shfl_xor_sync" => ShflKind::Xor,
        _ => return None,
    })
}

/// A constant: its type and value.
pub enum ConstValue {
    /// An integer constant.
    Int(Scalar, i128),
    /// A float constant.
    Float(Scalar, f64),
}

/// Every constant in `cuprum::gpu`, for "did you mean" suggestions.
pub const GPU_CONSTANTS: &[&str] = &["WARP_SIZE", "FULL_MASK"];

/// `gpu::WARP_SIZE`, `gpu::FULL_MASK`.
pub fn gpu_constant(name: &str) -> Option<ConstValue> {
    match name {
        "WARP_SIZE" => Some(ConstValue::Int(Scalar::U32, 32)),
        "FULL_MASK" => Some(ConstValue::Int(Scalar::U32, 0xffff_ffff)),
        _ => None,
    }
}

/// `u32::MAX`, `f32::EPSILON`, `f64::consts::PI` (written `core::f64::consts::PI` or
/// `std::f64::consts::PI` too) and the like.
pub fn scalar_constant(ty: Scalar, name: &str) -> Option<ConstValue> {
    if ty == Scalar::Bool {
        return None;
    }
    if let Some((lo, hi)) = ty.int_range() {
        return match name {
            "MAX" => Some(ConstValue::Int(ty, hi)),
            "MIN" => Some(ConstValue::Int(ty, lo)),
            "BITS" => Some(ConstValue::Int(Scalar::U32, ty.bits() as i128)),
            "ZERO" => Some(ConstValue::Int(ty, 0)),
            "ONE" => Some(ConstValue::Int(ty, 1)),
            _ => None,
        };
    }
    let f32_ = ty == Scalar::F32;
    let v = match name {
        "ZERO" => 0.0,
        "ONE" => 1.0,
        "MAX" => pick(f32_, f32::MAX as f64, f64::MAX),
        "MIN" => pick(f32_, f32::MIN as f64, f64::MIN),
        "MIN_POSITIVE" => pick(f32_, f32::MIN_POSITIVE as f64, f64::MIN_POSITIVE),
        "EPSILON" => pick(f32_, f32::EPSILON as f64, f64::EPSILON),
        "INFINITY" => f64::INFINITY,
        "NEG_INFINITY" => f64::NEG_INFINITY,
        "NAN" => f64::NAN,
        "PI" => pick(f32_, std::f32::consts::PI as f64, std::f64::consts::PI),
        "TAU" => pick(f32_, std::f32::consts::TAU as f64, std::f64::consts::TAU),
        "E" => pick(f32_, std::f32::consts::E as f64, std::f64::consts::E),
        "SQRT_2" => pick(
            f32_,
            std::f32::consts::SQRT_2 as f64,
            std::f64::consts::SQRT_2,
        ),
        "LN_2" => pick(f32_, std::f32::consts::LN_2 as f64, std::f64::consts::LN_2),
        "LN_10" => pick(
            f32_,
            std::f32::consts::LN_10 as f64,
            std::f64::consts::LN_10,
        ),
        "FRAC_PI_2" => pick(
            f32_,
            std::f32::consts::FRAC_PI_2 as f64,
            std::f64::consts::FRAC_PI_2,
        ),
        "FRAC_1_SQRT_2" => pick(
            f32_,
            std::f32::consts::FRAC_1_SQRT_2 as f64,
            std::f64::consts::FRAC_1_SQRT_2,
        ),
        _ => return None,
    };
    Some(ConstValue::Float(ty, v))
}

/// The associated constants [`scalar_constant`] knows for `ty`, for suggestions.
pub fn scalar_constant_names(ty: Scalar) -> Vec<&'static str> {
    const NAMES: &[&str] = &[
        "MAX",
        "MIN",
        "BITS",
        "ZERO",
        "ONE",
        "MIN_POSITIVE",
        "EPSILON",
        "INFINITY",
        "NEG_INFINITY",
        "NAN",
        "PI",
        "TAU",
        "E",
        "SQRT_2",
        "LN_2",
        "LN_10",
        "FRAC_PI_2",
        "FRAC_1_SQRT_2",
    ];
    NAMES
        .iter()
        .copied()
        .filter(|n| scalar_constant(ty, n).is_some())
        .collect()
}

fn pick(f32_: bool, a: f64, b: f64) -> f64 {
    if f32_ {
        a
    } else {
        b
    }
}

/// An argument or result type of a scalar method, relative to the receiver's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    /// The receiver's type.
    Same,
    /// A fixed scalar type.
    Fixed(Scalar),
}

impl Rel {
    /// The concrete type for receiver type `recv`.
    pub fn ty(self, recv: &Ty) -> Ty {
        match self {
            Rel::Same => recv.clone(),
            Rel::Fixed(s) => Ty::Scalar(s),
        }
    }
}

/// What a scalar method takes and returns.
pub struct MethodSig {
    /// The operation.
    pub f: MathFn,
    /// Argument types (not counting the receiver).
    pub args: Vec<Rel>,
    /// The result type.
    pub ret: Rel,
}

fn sig(f: MathFn, args: &[Rel], ret: Rel) -> MethodSig {
    MethodSig {
        f,
        args: args.to_vec(),
        ret,
    }
}

/// The method `name` of scalar type `recv`, if Cuprum supports it there.
pub fn method(recv: Scalar, name: &str) -> Option<MethodSig> {
    use MathFn::*;
    use Rel::{Fixed, Same};
    const U32: Rel = Fixed(Scalar::U32);
    const BOOL: Rel = Fixed(Scalar::Bool);
    if recv.is_float() {
        let bits = Fixed(if recv == Scalar::F32 {
            Scalar::U32
        } else {
            Scalar::U64
        });
        return Some(match name {
            "min" => sig(Min, &[Same], Same),
            "max" => sig(Max, &[Same], Same),
            "powf" => sig(Powf, &[Same], Same),
            "atan2" => sig(Atan2, &[Same], Same),
            "hypot" => sig(Hypot, &[Same], Same),
            "copysign" => sig(Copysign, &[Same], Same),
            "mul_add" => sig(MulAdd, &[Same, Same], Same),
            "clamp" => sig(Clamp, &[Same, Same], Same),
            "powi" => sig(Powi, &[Fixed(Scalar::I32)], Same),
            "is_nan" => sig(IsNan, &[], BOOL),
            "is_finite" => sig(IsFinite, &[], BOOL),
            "to_bits" => sig(ToBits, &[], bits),
            _ => {
                let f = match name {
                    "abs" => Abs,
                    "sqrt" => Sqrt,
                    "floor" => Floor,
                    "ceil" => Ceil,
                    "trunc" => Trunc,
                    "round" => Round,
                    "exp" => Exp,
                    "exp2" => Exp2,
                    "ln" => Ln,
                    "log2" => Log2,
                    "log10" => Log10,
                    "sin" => Sin,
                    "cos" => Cos,
                    "tan" => Tan,
                    "asin" => Asin,
                    "acos" => Acos,
                    "atan" => Atan,
                    "sinh" => Sinh,
                    "cosh" => Cosh,
                    "tanh" => Tanh,
                    "recip" => Recip,
                    "cbrt" => Cbrt,
                    _ => return None,
                };
                sig(f, &[], Same)
            }
        });
    }
    if !recv.is_int() {
        return None;
    }
    Some(match name {
        "min" => sig(Min, &[Same], Same),
        "max" => sig(Max, &[Same], Same),
        "clamp" => sig(Clamp, &[Same, Same], Same),
        "abs" if recv.is_signed() => sig(Abs, &[], Same),
        "pow" => sig(Pow, &[U32], Same),
        "count_ones" => sig(CountOnes, &[], U32),
        "leading_zeros" => sig(LeadingZeros, &[], U32),
        "trailing_zeros" => sig(TrailingZeros, &[], U32),
        "reverse_bits" => sig(ReverseBits, &[], Same),
        "rotate_left" => sig(RotateLeft, &[U32], Same),
        "rotate_right" => sig(RotateRight, &[U32], Same),
        "wrapping_add" => sig(WrappingAdd, &[Same], Same),
        "wrapping_sub" => sig(WrappingSub, &[Same], Same),
        "wrapping_mul" => sig(WrappingMul, &[Same], Same),
        "wrapping_neg" => sig(WrappingNeg, &[], Same),
        "wrapping_shl" => sig(WrappingShl, &[U32], Same),
        "wrapping_shr" => sig(WrappingShr, &[U32], Same),
        _ => return None,
    })
}

/// The method names Cuprum supports on a type, for suggestions.
pub fn method_names(recv: Scalar) -> Vec<&'static str> {
    KNOWN_METHODS
        .iter()
        .copied()
        .filter(|m| method(recv, m).is_some())
        .collect()
}

/// Every scalar method name kernels can call, for suggestions when a method is not found.
pub const KNOWN_METHODS: &[&str] = &[
    "sqrt",
    "exp",
    "exp2",
    "ln",
    "log2",
    "log10",
    "powf",
    "powi",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "floor",
    "ceil",
    "round",
    "trunc",
    "abs",
    "mul_add",
    "min",
    "max",
    "hypot",
    "recip",
    "cbrt",
    "copysign",
    "clamp",
    "is_nan",
    "is_finite",
    "to_bits",
    "pow",
    "count_ones",
    "leading_zeros",
    "trailing_zeros",
    "reverse_bits",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "wrapping_neg",
    "wrapping_shl",
    "wrapping_shr",
    "rotate_left",
    "rotate_right",
];
