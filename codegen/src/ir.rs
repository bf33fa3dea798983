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
#[derive(Debug)]
pub struct Program {
    /// The kernel itself.
    pub kernel: Function,
    /// Device functions reachable from the kernel, monomorphised.
    pub functions: Vec<Function>,
    /// Places where the kernel can stop with `Error::KernelPanic`.
    pub sites: Vec<CheckSite>,
    /// Shared-memory allocations, one per `shared_array` call site.
    pub shared: Vec<SharedAlloc>,
}

/// One function: the kernel or a device function.
#[derive(Debug)]
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
    pub elem: Scalar,
    /// Dimensions (empty for dynamic shared memory).
    pub dims: Vec<u64>,
    /// The call that made it.
    pub span: Span,
}

/// What a runtime check guards against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    /// An index out of bounds.
    Index,
    /// Integer division or remainder by zero.
    DivZero,
    /// `step_by(0)`.
    StepZero,
}

/// A place in the source where a runtime check can fail.
#[derive(Debug, Clone)]
pub struct CheckSite {
    /// What is checked.
    pub kind: CheckKind,
    /// The checked expression.
    pub span: Span,
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
    /// A math function on floats or integers (the method's name).
    Math(MathFn),
}

/// Scalar methods lowered to instructions or intrinsics.
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
    /// `x.wrapping_add(y)`
    WrappingAdd,
    /// `x.wrapping_sub(y)`
    WrappingSub,
    /// `x.wrapping_mul(y)`
    WrappingMul,
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
}
