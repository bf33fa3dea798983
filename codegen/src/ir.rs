//! The typed kernel IR: what `check` produces from syn's AST and what `lower` (LLVM) and `sim`
//! (host Rust for the simulator) consume.
//!
//! It is a tree, not SSA: every expression carries its resolved type and the span of the source
//! it came from. Locals live in memory (allocas); LLVM's mem2reg turns them into registers.
//! Invariant (checked by `verify`): after `check`, no `Ty::Var` or `Ty::Error` remains.

use proc_macro2::Span;

use crate::ty::{Scalar, Ty};

/// Index of a local variable in [`Function::locals`].
pub type LocalId = usize;
/// Index of a loop, unique within one function.
pub type LoopId = usize;
/// Index of a device function in [`Program::functions`].
pub type FnId = usize;
/// Index of a runtime check in [`Program::sites`].
pub type SiteId = u32;

/// A kernel together with every device function it calls.
#[derive(Debug, Clone)]
pub struct Program {
    /// The kernel itself.
    pub kernel: Function,
    /// Device functions reachable from the kernel, monomorphised.
    pub functions: Vec<Function>,
    /// Places where the kernel can stop with `Error::KernelPanic`.
    pub sites: Vec<CheckSite>,
    /// Shared-memory allocations, one per `shared_array` call site.
    pub shared: Vec<SharedAlloc>,
    /// The `const` and `static` items of the kernel's module that the kernel names, with
    /// the values they were given (so that the macro can let rustc confirm them).
    pub items_used: Vec<(String, Expr)>,
    /// The test that selects the kernel's fast copy, when the launch evaluates it
    /// (`passes::bounds`): the kernel then takes it as a hidden `u32` parameter, read by
    /// [`Builtin::HostTest`].
    pub host_test: Option<HostTest>,
}

/// A versioning test the launch evaluates on the host (see `cuprum_abi::versioning`): each
/// `Σ c · Π values[i] <= values[len]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostTest {
    /// What each value is.
    pub values: Vec<HostValue>,
    /// `(terms, len)`: `Σ terms <= values[len]`.
    pub tests: Vec<(Vec<HostTerm>, u32)>,
}

/// `coefficient · Π values[factors]`, a term of a [`HostTest`].
pub type HostTerm = (i128, Vec<u32>);

/// A value the launch knows (as a `u64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostValue {
    /// The length of the kernel's slice parameter with this index (in `Function::params`).
    Len(usize),
    /// The value of the kernel's unsigned scalar parameter with this index.
    Scalar(usize),
    /// `grid_dim()` on an axis.
    GridDim(u8),
    /// `block_dim()` on an axis.
    BlockDim(u8),
    /// A constant (the bound of a length, `passes::narrow`).
    Const(u64),
}

impl Program {
    /// Whether the kernel takes the panic-record parameter: checked kernels do, and so does
    /// every kernel with an assertion or a panic (`unchecked` does not remove those).
    pub fn records_failures(&self, checked: bool) -> bool {
        checked || self.has_panics()
    }

    /// Whether the kernel or a device function has an assertion or a panic.
    pub fn has_panics(&self) -> bool {
        self.sites.iter().any(|s| s.kind == CheckKind::Panic)
    }

    /// Whether it has a `debug_assert*!`, so that its PTX differs with debug assertions.
    pub fn has_debug_assertions(&self) -> bool {
        let mut found = false;
        for f in std::iter::once(&self.kernel).chain(&self.functions) {
            crate::walk::block(&f.body, &mut |e| {
                if let ExprKind::Panic(p) = &e.kind {
                    found |= p.debug;
                }
            });
        }
        found
    }
}

/// One function: the kernel or a device function.
#[derive(Debug, Clone)]
pub struct Function {
    /// Name as written (for the kernel, the PTX entry name).
    pub name: String,
    /// Parameters, in order; each is also a local.
    pub params: Vec<LocalId>,
    /// Every local, parameters first.
    pub locals: Vec<Local>,
    /// Return type (`()` for kernels).
    pub ret: Ty,
    /// The body.
    pub body: Block,
    /// Number of loops, for `LoopId`s.
    pub loop_count: usize,
    /// Where it is defined (its name), for the PTX's line information.
    pub span: Span,
    /// Hidden read-only locals holding `const` arrays and `static` tables, with their values
    /// (literals): the lowering places them in constant memory, the simulator binds them
    /// when the function starts.
    pub constants: Vec<(LocalId, Expr)>,
    /// The `while` loops that `passes::counted` proved to be counted loops (the lowering
    /// computes their trip count on entry).
    pub counted: Vec<LoopId>,
}

/// A local variable or parameter.
#[derive(Debug, Clone)]
pub struct Local {
    /// Name as written.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Declared `mut`.
    pub mutable: bool,
    /// Where it was declared.
    pub span: Span,
}

/// A shared-memory allocation.
#[derive(Debug, Clone)]
pub struct SharedAlloc {
    /// Element type.
    pub elem: Ty,
    /// Dimensions (empty for dynamic shared memory).
    pub dims: Vec<u64>,
    /// The call that made it.
    pub span: Span,
}

/// What a runtime check guards against (shared with the simulator and the runtime).
pub use cuprum_abi::CheckKind;

/// A place in the source where a runtime check can fail.
#[derive(Debug, Clone)]
pub struct CheckSite {
    /// What is checked.
    pub kind: CheckKind,
    /// The checked expression.
    pub span: Span,
    /// For [`CheckKind::Panic`]: how the host words the failure.
    pub message: Option<Box<PanicMessage>>,
    /// Set by an IR pass (`passes`) when the check is not compiled: why it cannot fail.
    pub elided: Option<Elision>,
}

/// Why an index check is not compiled (see `passes`). An elided site keeps its place in the
/// IR, so that the simulator can still confirm, in tests, that it never fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elision {
    /// The same check, with the same index, ran earlier (checks first, `passes::checks_first`).
    Prechecked,
    /// The index is proved below the length (value ranges, `passes::bounds`).
    InRange,
    /// The index is proved below the length in the copy of the kernel's body that runs when
    /// a uniform test on its parameters and lengths holds (`passes::bounds`).
    Versioned,
}

/// How the host words a failed assertion or a panic (Rust's wording), from the values the
/// failing thread recorded.
#[derive(Debug, Clone)]
pub struct PanicMessage {
    /// Which macro failed.
    pub form: PanicForm,
    /// The user's format string (validated, Rust syntax) and, for each of its values in
    /// record order, the name it is referred to by (`None` for a positional argument).
    pub user: Option<(String, Vec<Option<String>>)>,
    /// The type of each recorded value, in record order: `assert_eq!`'s left and right first,
    /// then the user's arguments. Filled once types are resolved.
    pub values: Vec<Scalar>,
}

/// The macro behind a [`PanicMessage`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PanicForm {
    /// `assert!(cond)`: the condition's source text.
    Assert(String),
    /// `assert_eq!` (`==`) or `assert_ne!` (`!=`).
    Compare(BinOp),
    /// `panic!`
    Panic,
    /// `unreachable!`
    Unreachable,
}

/// `assert!`-family macros and `panic!`/`unreachable!` in a kernel.
#[derive(Debug, Clone)]
pub struct PanicCall {
    /// When the thread stops.
    pub when: PanicWhen,
    /// The recorded values: for [`PanicWhen::Compare`] the left and right operands (always
    /// evaluated) then the message's arguments (evaluated only on failure, as in Rust).
    pub args: Vec<Expr>,
    /// The site its failure reports.
    pub site: SiteId,
    /// A `debug_assert*!`: compiled only into the build with debug assertions.
    pub debug: bool,
}

/// When a [`PanicCall`] stops the thread.
#[derive(Debug, Clone)]
pub enum PanicWhen {
    /// Always (`panic!`, `unreachable!`).
    Always,
    /// When the condition is false (`assert!`).
    Not(Box<Expr>),
    /// When `args[0] op args[1]` is false (`assert_eq!`: `==`, `assert_ne!`: `!=`).
    Compare(BinOp),
}

/// `gpu::print!`/`gpu::println!`: text and formatted values, one `printf` call.
#[derive(Debug, Clone)]
pub struct PrintCall {
    /// The format, in pieces (a `println!` ends with a `\n` piece).
    pub pieces: Vec<crate::format::Piece>,
    /// The arguments, each evaluated once, in the order written.
    pub args: Vec<Expr>,
}

/// `{ stmts; tail }`
#[derive(Debug, Clone)]
pub struct Block {
    /// Statements in order.
    pub stmts: Vec<Stmt>,
    /// The value of the block, if it has a tail expression.
    pub tail: Option<Box<Expr>>,
    /// The block's type.
    pub ty: Ty,
}

/// A statement.
#[derive(Debug, Clone)]
pub enum Stmt {
    /// `let pat = init;`
    Let {
        /// What is bound.
        pat: Pattern,
        /// The initial value.
        init: Expr,
    },
    /// An expression evaluated for its effects.
    Expr(Expr),
}

/// The left side of a `let`.
#[derive(Debug, Clone)]
pub enum Pattern {
    /// A name.
    Local(LocalId),
    /// `(a, b, ..)`
    Tuple(Vec<Pattern>),
    /// `_`
    Wild,
}

/// A memory location: a local, possibly indexed or projected.
#[derive(Debug, Clone)]
pub struct Place {
    /// The local at its root.
    pub base: LocalId,
    /// Indexing and field projections, applied left to right.
    pub proj: Vec<Proj>,
    /// The type of the place.
    pub ty: Ty,
}

/// One step from a place to a smaller place.
#[derive(Debug, Clone)]
pub enum Proj {
    /// `[index]`, bounds-checked at `site` unless it is `None`.
    Index {
        /// The index, always `usize`.
        index: Box<Expr>,
        /// The check, when the index is checked.
        site: Option<SiteId>,
    },
    /// `.n` of a tuple, `.x/.y/.z` (0/1/2) of a `Dim3`.
    Field(u32),
}

/// A typed expression.
#[derive(Debug, Clone)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Its type.
    pub ty: Ty,
    /// The source it came from.
    pub span: Span,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x` (logical for `bool`, bitwise for integers)
    Not,
}

/// Binary operators (the short-circuit ones are separate expression kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl BinOp {
    /// True for the comparison operators, which return `bool`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    /// The Rust spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
}

/// Built-in operations: `cuprum::gpu` functions and the methods of scalar types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `gpu::thread_idx()`
    ThreadIdx,
    /// `gpu::block_idx()`
    BlockIdx,
    /// `gpu::block_dim()`
    BlockDim,
    /// `gpu::grid_dim()`
    GridDim,
    /// `gpu::global_id_x/y/z()`: the axis 0, 1, 2
    GlobalId(u8),
    /// `gpu::grid_stride_x/y/z()`
    GridStride(u8),
    /// `gpu::lane_id()`
    LaneId,
    /// `gpu::warp_id()`
    WarpId,
    /// `gpu::sync_threads()`
    SyncThreads,
    /// `gpu::sync_threads_count(p)`
    SyncThreadsCount,
    /// `gpu::sync_threads_and(p)`
    SyncThreadsAnd,
    /// `gpu::sync_threads_or(p)`
    SyncThreadsOr,
    /// `gpu::sync_warp(mask)`
    SyncWarp,
    /// `gpu::grid_sync()`: every thread of the grid (a cooperative kernel's).
    GridSync,
    /// `gpu::thread_fence*()`
    Fence(Scope),
    /// The shared-memory allocation made at this call site (an index into
    /// [`Program::shared`]); `dynamic_shared` allocations have no dimensions.
    Shared(usize),
    /// A warp shuffle `(mask, value, lane)`.
    Shfl(ShflKind),
    /// `gpu::ballot_sync(mask, p)`
    Ballot,
    /// `gpu::all_sync(mask, p)`
    AllSync,
    /// `gpu::any_sync(mask, p)`
    AnySync,
    /// `gpu::activemask()`
    ActiveMask,
    /// `gpu::match_any_sync(mask, v)`
    MatchAny,
    /// `gpu::clock64()`
    Clock64,
    /// `gpu::match_all_sync(mask, v)`: `(mask, true)` when every lane of `mask` has the same
    /// `v`, `(0, false)` otherwise.
    MatchAll,
    /// `gpu::lanemask_lt/_le/_gt/_ge()`
    LaneMask(LaneMask),
    /// `gpu::clock()`: the low 32 bits of the SM's cycle counter.
    Clock,
    /// `gpu::__redux_add/min/max_sync(mask, v)` (hidden; the library's warp reductions): one
    /// `redux.sync` over the lanes of `mask`, for `i32`/`u32` on sm_80 and newer (the
    /// checker allows no other type or target).
    Redux(ReduxOp),
    /// Not written by users: the kernel's hidden versioning flag ([`Program::host_test`]
    /// evaluated by the launch), a `bool`.
    HostTest,
    /// Not written by users: `(index, len(s))`, an index into slice `s` that `passes::narrow`
    /// knows to be below 2³¹ when it is in range (the launch tested `s`'s length), computed
    /// in 32 bits and widened (`+ - *` agree modulo 2³²); the length is not evaluated. Its
    /// value is the index; the simulator confirms that it fits.
    Narrow,
    /// Not written by users: `(x)`, a 64-bit integer that `passes::compare32` knows to lie
    /// in 32 bits where it stands (`u32`'s range when unsigned, `i32`'s when signed); a
    /// comparison whose operands are both so wrapped is computed in 32 bits. Its value is
    /// `x`; the simulator confirms that it fits.
    Fits32,
    /// `gpu::fast::*`: the hardware approximations for `f32`.
    Fast(FastFn),
    /// A math function on floats or integers (the method's name); the receiver is the first
    /// argument.
    Math(MathFn),
}

/// The operation of [`Builtin::Redux`]; signed or unsigned by the value's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduxOp {
    /// The wrapping sum.
    Add,
    /// The smallest.
    Min,
    /// The largest.
    Max,
}

/// Which lanes `gpu::lanemask_*()` names, relative to the calling lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneMask {
    /// Lanes below this one.
    Lt,
    /// Lanes up to this one.
    Le,
    /// Lanes above this one.
    Gt,
    /// Lanes from this one up.
    Ge,
}

/// `gpu::fast::{exp, ln, sin, cos, div}` (CUDA's `__expf`, `__logf`, `__sinf`, `__cosf`,
/// `__fdividef`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FastFn {
    /// `fast::exp(x)`
    Exp,
    /// `fast::ln(x)`
    Ln,
    /// `fast::sin(x)`
    Sin,
    /// `fast::cos(x)`
    Cos,
    /// `fast::div(a, b)`
    Div,
}

impl FastFn {
    /// Its name in `gpu::fast`.
    pub fn name(self) -> &'static str {
        match self {
            FastFn::Exp => "exp",
            FastFn::Ln => "ln",
            FastFn::Sin => "sin",
            FastFn::Cos => "cos",
            FastFn::Div => "div",
        }
    }

    /// The libdevice function that computes it.
    pub fn libdevice(self) -> &'static str {
        match self {
            FastFn::Exp => "__nv_fast_expf",
            FastFn::Ln => "__nv_fast_logf",
            FastFn::Sin => "__nv_fast_sinf",
            FastFn::Cos => "__nv_fast_cosf",
            FastFn::Div => "__nv_fast_fdividef",
        }
    }

    /// Every one, for lookups.
    pub const ALL: [FastFn; 5] = [
        FastFn::Exp,
        FastFn::Ln,
        FastFn::Sin,
        FastFn::Cos,
        FastFn::Div,
    ];
}

/// Which shuffle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflKind {
    /// `shfl_sync(mask, v, src_lane)`
    Idx,
    /// `shfl_up_sync(mask, v, delta)`
    Up,
    /// `shfl_down_sync(mask, v, delta)`
    Down,
    /// `shfl_xor_sync(mask, v, lane_mask)`
    Xor,
}

/// The scope of an atomic or a fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The thread's block (`_block` suffix).
    Block,
    /// The whole GPU (the default).
    Device,
    /// The GPU, the host and peer GPUs (`_system` suffix).
    System,
}

/// Atomic read-modify-write operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomic_add`
    Add,
    /// `atomic_sub`
    Sub,
    /// `atomic_min`
    Min,
    /// `atomic_max`
    Max,
    /// `atomic_exch`
    Exch,
    /// `atomic_cas(place, expected, new)`
    Cas,
    /// `atomic_and`
    And,
    /// `atomic_or`
    Or,
    /// `atomic_xor`
    Xor,
    /// `atomic_inc(place, limit)`: `old >= limit ? 0 : old + 1`
    Inc,
    /// `atomic_dec(place, limit)`: `old == 0 || old > limit ? limit : old - 1`
    Dec,
    /// `atomic_load(place)`: a relaxed read at the scope (`ld.relaxed.gpu`), which a
    /// compiler never merges with another nor moves out of a loop
    Load,
}

impl AtomicOp {
    /// The operation's name without the `atomic_` prefix.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
            AtomicOp::Exch => "exch",
            AtomicOp::Load => "load",
            AtomicOp::Cas => "cas",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Inc => "inc",
            AtomicOp::Dec => "dec",
        }
    }
}

/// Scalar methods (and `gpu::rsqrt`) lowered to instructions, intrinsics or libdevice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathFn {
    /// `x.min(y)`
    Min,
    /// `x.max(y)`
    Max,
    /// `x.abs()`
    Abs,
    /// `x.sqrt()`
    Sqrt,
    /// `gpu::rsqrt(x)`
    Rsqrt,
    /// `x.mul_add(a, b)`
    MulAdd,
    /// `x.floor()`
    Floor,
    /// `x.ceil()`
    Ceil,
    /// `x.trunc()`
    Trunc,
    /// `x.round()`
    Round,
    /// `x.exp()`
    Exp,
    /// `x.exp2()`
    Exp2,
    /// `x.ln()`
    Ln,
    /// `x.log2()`
    Log2,
    /// `x.log10()`
    Log10,
    /// `x.powf(y)`
    Powf,
    /// `x.powi(n: i32)`
    Powi,
    /// `x.sin()`
    Sin,
    /// `x.cos()`
    Cos,
    /// `x.tan()`
    Tan,
    /// `x.asin()`
    Asin,
    /// `x.acos()`
    Acos,
    /// `x.atan()`
    Atan,
    /// `y.atan2(x)`
    Atan2,
    /// `x.sinh()`
    Sinh,
    /// `x.cosh()`
    Cosh,
    /// `x.tanh()`
    Tanh,
    /// `x.hypot(y)`
    Hypot,
    /// `x.recip()`
    Recip,
    /// `x.cbrt()`
    Cbrt,
    /// `x.copysign(sign)`
    Copysign,
    /// `x.clamp(lo, hi)`
    Clamp,
    /// `x.is_nan()`
    IsNan,
    /// `x.is_finite()`
    IsFinite,
    /// `x.to_bits()`
    ToBits,
    /// `f32::from_bits(u)` / `f64::from_bits(u)` (the receiver is the integer)
    FromBits,
    /// `x.pow(e: u32)` on integers
    Pow,
    /// `x.count_ones()`
    CountOnes,
    /// `x.leading_zeros()`
    LeadingZeros,
    /// `x.trailing_zeros()`
    TrailingZeros,
    /// `x.reverse_bits()`
    ReverseBits,
    /// `x.rotate_left(n: u32)`
    RotateLeft,
    /// `x.rotate_right(n: u32)`
    RotateRight,
    /// `x.wrapping_add(y)`
    WrappingAdd,
    /// `x.wrapping_sub(y)`
    WrappingSub,
    /// `x.wrapping_mul(y)`
    WrappingMul,
    /// `x.wrapping_neg()`
    WrappingNeg,
    /// `x.wrapping_shl(n: u32)`
    WrappingShl,
    /// `x.wrapping_shr(n: u32)`
    WrappingShr,
}

impl MathFn {
    /// The Rust method name.
    pub fn name(self) -> &'static str {
        use MathFn::*;
        match self {
            Min => "min",
            Max => "max",
            Abs => "abs",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            MulAdd => "mul_add",
            Floor => "floor",
            Ceil => "ceil",
            Trunc => "trunc",
            Round => "round",
            Exp => "exp",
            Exp2 => "exp2",
            Ln => "ln",
            Log2 => "log2",
            Log10 => "log10",
            Powf => "powf",
            Powi => "powi",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Atan2 => "atan2",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Hypot => "hypot",
            Recip => "recip",
            Cbrt => "cbrt",
            Copysign => "copysign",
            Clamp => "clamp",
            IsNan => "is_nan",
            IsFinite => "is_finite",
            ToBits => "to_bits",
            FromBits => "from_bits",
            Pow => "pow",
            CountOnes => "count_ones",
            LeadingZeros => "leading_zeros",
            TrailingZeros => "trailing_zeros",
            ReverseBits => "reverse_bits",
            RotateLeft => "rotate_left",
            RotateRight => "rotate_right",
            WrappingAdd => "wrapping_add",
            WrappingSub => "wrapping_sub",
            WrappingMul => "wrapping_mul",
            WrappingNeg => "wrapping_neg",
            WrappingShl => "wrapping_shl",
            WrappingShr => "wrapping_shr",
        }
    }

    /// The libdevice function that computes it, for the transcendental functions.
    pub fn libdevice(self, s: Scalar, fast: bool) -> Option<String> {
        use MathFn::*;
        let base = match self {
            Exp => "exp",
            Exp2 => "exp2",
            Ln => "log",
            Log2 => "log2",
            Log10 => "log10",
            Powf => "pow",
            Powi => "powi",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Atan2 => "atan2",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Hypot => "hypot",
            Cbrt => "cbrt",
            Rsqrt => "rsqrt",
            _ => return None,
        };
        Some(match s {
            Scalar::F32 => {
                let fast_ok = matches!(self, Exp | Ln | Log2 | Log10 | Powf | Sin | Cos | Tan);
                if fast && fast_ok {
                    format!("__nv_fast_{base}f")
                } else if self == Powi {
                    "__nv_powif".into()
                } else {
                    format!("__nv_{base}f")
                }
            }
            _ => format!("__nv_{base}"),
        })
    }
}

/// Expression kinds.
#[derive(Debug, Clone)]
pub enum ExprKind {
    /// An integer literal (its value; the type says how wide).
    Int(i128),
    /// A float literal.
    Float(f64),
    /// `true` / `false`
    Bool(bool),
    /// `()`
    Unit,
    /// The value stored at a place.
    Read(Place),
    /// `place = value`
    Assign(Place, Box<Expr>),
    /// `place op= value`
    CompoundAssign(BinOp, Place, Box<Expr>),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator; `site` is the division-by-zero check of `/` and `%` on integers.
    Binary(BinOp, Box<Expr>, Box<Expr>, Option<SiteId>),
    /// `a && b`
    And(Box<Expr>, Box<Expr>),
    /// `a || b`
    Or(Box<Expr>, Box<Expr>),
    /// `e as T` (T is the expression's type)
    Cast(Box<Expr>),
    /// `(a, b, ..)`
    Tuple(Vec<Expr>),
    /// `[a, b, ..]`
    Array(Vec<Expr>),
    /// `[v; n]`
    Repeat(Box<Expr>, u64),
    /// `.n` of a value that is not a place (`gpu::thread_idx().x`)
    Field(Box<Expr>, u32),
    /// A built-in call.
    Builtin(Builtin, Vec<Expr>),
    /// A call of a device function.
    Call(FnId, Vec<Expr>),
    /// A slice parameter passed on to a device function (only as a call argument).
    SliceRef(LocalId),
    /// `gpu::atomic_OP(&mut place, args..)`: returns the old value.
    Atomic(AtomicOp, Scope, Place, Vec<Expr>),
    /// The length of a slice or shared array (a place rooted at a slice parameter).
    Len(Place),
    /// `if cond { then } else { els }`
    If(Box<Expr>, Block, Option<Block>),
    /// `loop { body }`
    Loop(LoopId, Block),
    /// `while cond { body }`
    While(LoopId, Box<Expr>, Block),
    /// `for var in start..end` / `start..=end`, optionally `.step_by(step)`
    For {
        /// The loop's id.
        id: LoopId,
        /// The loop variable.
        var: LocalId,
        /// Range start.
        start: Box<Expr>,
        /// Range end.
        end: Box<Expr>,
        /// `..=`
        inclusive: bool,
        /// `step_by(step)`, a `usize`, and the check that it is not zero (none when it is a
        /// positive literal or the kernel is unchecked).
        step: Option<(Box<Expr>, Option<SiteId>)>,
        /// The body.
        body: Block,
    },
    /// `break` (with a value, for `loop`)
    Break(LoopId, Option<Box<Expr>>),
    /// `continue`
    Continue(LoopId),
    /// `return` (with a value, in device functions)
    Return(Option<Box<Expr>>),
    /// `{ .. }`
    Block(Block),
    /// `assert!`, `assert_eq!`, `assert_ne!`, `panic!`, `unreachable!` (and `debug_` forms).
    Panic(Box<PanicCall>),
    /// `gpu::print!` / `gpu::println!`.
    Print(Box<PrintCall>),
    /// `index`, checked at `site` to be below `len` (a sub-slice's own length, which no
    /// place's type knows): the value is the index.
    IndexCheck {
        /// The index, `usize`.
        index: Box<Expr>,
        /// The length it must be below, `usize`.
        len: Box<Expr>,
        /// The check (none in `unchecked` kernels).
        site: Option<SiteId>,
    },
}
