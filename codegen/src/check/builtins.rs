//! The names a kernel can use without declaring them: `cuprum::gpu` functions and constants,
//! the associated constants of scalar types, and the scalar methods.

use crate::ir::{Builtin, MathFn};
use crate::ty::{Scalar, Ty};

/// Every public function name in `cuprum::gpu` (DESIGN §2), for "did you mean" suggestions.
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
    if let Some((lo, hi)) = ty.int_range() {
        return match name {
            "MAX" => Some(ConstValue::Int(ty, hi)),
            "MIN" => Some(ConstValue::Int(ty, lo)),
            "BITS" => Some(ConstValue::Int(Scalar::U32, ty.bits() as i128)),
            _ => None,
        };
    }
    let f32_ = ty == Scalar::F32;
    let v = match name {
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

/// Float methods with their arity (not counting the receiver); all return the receiver's type.
pub fn float_method(name: &str) -> Option<(MathFn, usize)> {
    Some(match name {
        "min" => (MathFn::Min, 1),
        "max" => (MathFn::Max, 1),
        "abs" => (MathFn::Abs, 0),
        "sqrt" => (MathFn::Sqrt, 0),
        "mul_add" => (MathFn::MulAdd, 2),
        "floor" => (MathFn::Floor, 0),
        "ceil" => (MathFn::Ceil, 0),
        "trunc" => (MathFn::Trunc, 0),
        "round" => (MathFn::Round, 0),
        _ => return None,
    })
}

/// Integer methods with their arity; all return the receiver's type.
pub fn int_method(name: &str, signed: bool) -> Option<(MathFn, usize)> {
    Some(match name {
        "min" => (MathFn::Min, 1),
        "max" => (MathFn::Max, 1),
        "abs" if signed => (MathFn::Abs, 0),
        "wrapping_add" => (MathFn::WrappingAdd, 1),
        "wrapping_sub" => (MathFn::WrappingSub, 1),
        "wrapping_mul" => (MathFn::WrappingMul, 1),
        _ => return None,
    })
}

/// The names of [`KNOWN_METHODS`] that `supported` accepts, for "the methods of `f32` are ..".
pub fn supported_methods(supported: impl Fn(&str) -> bool) -> Vec<&'static str> {
    KNOWN_METHODS
        .iter()
        .copied()
        .filter(|n| supported(n))
        .collect()
}

/// Every scalar method name of DESIGN §2, for suggestions when a method is not found.
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
    "from_bits",
    "pow",
    "count_ones",
    "leading_zeros",
    "trailing_zeros",
    "reverse_bits",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "rotate_left",
    "rotate_right",
    "len",
    "is_empty",
];
