//! Kernel types: the scalars that can cross to the GPU and the few aggregates built from them.
//!
//! `Ty::Var` stands for the not-yet-known type of a numeric literal; `check::infer` binds it.

use std::fmt;

/// A scalar type, with Rust's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `bool`
    Bool,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `isize` (64 bits on the GPU, as on the 64-bit hosts Cuprum supports)
    Isize,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `usize` (64 bits)
    Usize,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl Scalar {
    /// Every scalar: `bool`, the signed integers, the unsigned ones, the floats.
    pub const ALL: [Scalar; 13] = [
        Scalar::Bool,
        Scalar::I8,
        Scalar::I16,
        Scalar::I32,
        Scalar::I64,
        Scalar::Isize,
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::U64,
        Scalar::Usize,
        Scalar::F32,
        Scalar::F64,
    ];

    /// The Rust spelling.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::Isize => "isize",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::Usize => "usize",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }

    /// Parses a Rust scalar type name.
    pub fn from_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Width in bits (`bool` counts as 8, its size in memory).
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 8,
            Scalar::I16 | Scalar::U16 => 16,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 32,
            Scalar::I64 | Scalar::U64 | Scalar::Isize | Scalar::Usize | Scalar::F64 => 64,
        }
    }

    /// Size in bytes, which is also the alignment.
    pub fn bytes(self) -> u32 {
        self.bits() / 8
    }

    /// True for the integer types (not `bool`).
    pub fn is_int(self) -> bool {
        !matches!(self, Scalar::Bool | Scalar::F32 | Scalar::F64)
    }

    /// True for the signed integer types.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64 | Scalar::Isize
        )
    }

    /// True for `f32` and `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    /// The inclusive range of an integer type, as i128.
    pub fn int_range(self) -> Option<(i128, i128)> {
        let bits = self.bits();
        if !self.is_int() {
            return None;
        }
        Some(if self.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        })
    }
}

/// A user struct as the kernel compiler sees it (`#[derive(DeviceCopy)] #[repr(C)]`).
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    /// The struct's name, as written in the module that defines it.
    pub name: String,
    /// The fields in declaration order: name (`"0"`, `"1"`, .. for a tuple struct) and type.
    pub fields: Vec<(String, Ty)>,
    /// True for a tuple struct (`struct P(f32, f32);`).
    pub tuple: bool,
    /// The alignment `#[repr(C, align(N))]` asks for (1 without `align`).
    pub align: u64,
}

impl StructDef {
    /// The index of the field named `name`.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|(n, _)| n == name)
    }
}

/// A field-less user enum as the kernel compiler sees it (`#[derive(DeviceCopy)]
/// #[repr(u8|..|i64)]`): a value is its discriminant, stored as the `repr` integer.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDef {
    /// The enum's name, as written in the module that defines it.
    pub name: String,
    /// The integer type of its `#[repr(..)]`.
    pub repr: Scalar,
    /// The variants in declaration order: name and discriminant.
    pub variants: Vec<(String, i128)>,
    /// Whether its `#[derive(..)]` lists `PartialEq` (which `==` and `!=` need, as in Rust).
    pub partial_eq: bool,
}

impl EnumDef {
    /// The name of the variant whose discriminant is `v`.
    pub fn variant_named(&self, v: i128) -> Option<&str> {
        self.variants
            .iter()
            .find(|(_, d)| *d == v)
            .map(|(n, _)| n.as_str())
    }
}

/// Size and alignment in bytes of a value of `ty` in memory, with `repr(C)` rules (the same
/// rules LLVM's NVPTX data layout applies to the struct types the lowering makes); `None`
/// for types that are not stored (slices, shared arrays, unresolved types).
pub fn size_align(ty: &Ty) -> Option<(u64, u64)> {
    match ty {
        Ty::Unit | Ty::Never => Some((0, 1)),
        Ty::Scalar(s) => Some((s.bytes() as u64, s.bytes() as u64)),
        Ty::Array(t, n) => {
            let (size, align) = size_align(t)?;
            Some((size.checked_mul(*n)?, align))
        }
        Ty::Dim3 => Some((12, 4)),
        Ty::Tuple(_) => None,
        Ty::Struct(d) => struct_layout(d).map(|l| (l.size, l.align)),
        Ty::Enum(d) => Some((d.repr.bytes() as u64, d.repr.bytes() as u64)),
        Ty::Slice { .. } | Ty::Shared { .. } | Ty::Var(_) | Ty::Error => None,
    }
}

/// The `repr(C)` layout of a struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Total size, a multiple of `align`.
    pub size: u64,
    /// Alignment: the largest of the fields'.
    pub align: u64,
    /// Each field's offset, in declaration order.
    pub offsets: Vec<u64>,
}

/// The `repr(C)` layout of `def`: each field at the next offset aligned for it, the size
/// rounded up to the largest alignment.
pub fn struct_layout(def: &StructDef) -> Option<Layout> {
    let mut offset = 0u64;
    let mut align = def.align.max(1);
    let mut offsets = Vec::new();
    for (_, t) in &def.fields {
        let (s, a) = size_align(t)?;
        offset = offset.checked_next_multiple_of(a)?;
        offsets.push(offset);
        offset = offset.checked_add(s)?;
        align = align.max(a);
    }
    Some(Layout {
        size: offset.checked_next_multiple_of(align)?,
        align,
        offsets,
    })
}

/// Whether values of `ty` can be elements of slices and shared arrays: scalars, field-less
/// enums (their `repr` integer; see `DeviceEnum` for how the host reads them back), arrays of
/// elements and structs (whose fields are elements by construction). Tuples are not: their
/// layout is Rust's, not `repr(C)`, and the host has no buffers of them.
pub fn is_element(ty: &Ty) -> bool {
    match ty {
        Ty::Scalar(_) | Ty::Struct(_) | Ty::Enum(_) => true,
        Ty::Array(t, n) => *n > 0 && is_element(t),
        _ => false,
    }
}

/// Size, `repr(C)` alignment and the alignment kernels assume for slices of `ty`
/// ([`cuprum_abi::element_align`]) of an element type.
pub fn element_layout(ty: &Ty) -> Option<(u64, u64, u64)> {
    let (size, align) = size_align(ty)?;
    Some((size, align, cuprum_abi::element_align(size, align)))
}

/// An inference variable: the type of a literal whose type is not yet known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TyVar(pub u32);

/// A kernel type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// `()`
    Unit,
    /// The type of `return`, `break` and `continue`: it unifies with anything.
    Never,
    /// A scalar.
    Scalar(Scalar),
    /// A fixed-size local array `[T; N]`.
    Array(Box<Ty>, u64),
    /// A tuple of two or more elements.
    Tuple(Vec<Ty>),
    /// A slice parameter, `&[T]` or `&mut [T]`, living in global memory.
    Slice {
        /// Element type: a scalar, an array or a struct ([`is_element`]).
        elem: Box<Ty>,
        /// `&mut [T]`
        mutable: bool,
    },
    /// A shared-memory array made by `gpu::shared_array` and friends. `dims` is empty for
    /// `dynamic_shared` (length from the launch), one entry for 1-D and two for 2-D arrays.
    Shared {
        /// Element type: a scalar, an array or a struct ([`is_element`]).
        elem: Box<Ty>,
        /// Dimensions, outermost first.
        dims: Vec<u64>,
    },
    /// `gpu::Dim3`
    Dim3,
    /// A `#[derive(DeviceCopy)]` struct: `repr(C)` fields in declaration order.
    Struct(std::rc::Rc<StructDef>),
    /// A field-less `#[derive(DeviceCopy)]` enum: its discriminant, as its `repr` integer.
    Enum(std::rc::Rc<EnumDef>),
    /// A not-yet-inferred integer (`int == true`) or float literal type.
    Var(TyVar),
    /// The type of an expression that already produced an error; it unifies with anything so
    /// that one mistake is reported once.
    Error,
}

impl Ty {
    /// Shorthand for a scalar type.
    pub const fn scalar(s: Scalar) -> Ty {
        Ty::Scalar(s)
    }

    /// `bool`
    pub const BOOL: Ty = Ty::Scalar(Scalar::Bool);
    /// `u32`
    pub const U32: Ty = Ty::Scalar(Scalar::U32);
    /// `usize`
    pub const USIZE: Ty = Ty::Scalar(Scalar::Usize);

    /// The scalar inside, if this is one.
    pub fn as_scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The integer a value of this type is in registers and memory: the scalar itself, or an
    /// enum's `repr`.
    pub fn scalar_repr(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            Ty::Enum(d) => Some(d.repr),
            _ => None,
        }
    }

    /// True when the type holds no value that needs storage (`()`, `!`).
    pub fn is_zero_sized(&self) -> bool {
        matches!(self, Ty::Unit | Ty::Never)
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Unit => f.write_str("()"),
            Ty::Never => f.write_str("!"),
            Ty::Scalar(s) => f.write_str(s.name()),
            Ty::Array(t, n) => write!(f, "[{t}; {n}]"),
            Ty::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(if ts.len() == 1 { ",)" } else { ")" })
            }
            Ty::Slice { elem, mutable } => {
                write!(f, "&{}[{}]", if *mutable { "mut " } else { "" }, elem)
            }
            Ty::Shared { elem, dims } => match dims.as_slice() {
                [] => write!(f, "gpu::DynamicShared<{elem}>"),
                [n] => write!(f, "gpu::SharedArray<{elem}, {n}>"),
                [r, c] => write!(f, "gpu::SharedArray2d<{elem}, {r}, {c}>"),
                _ => write!(f, "gpu::Shared<{elem}>"),
            },
            Ty::Dim3 => f.write_str("gpu::Dim3"),
            Ty::Struct(d) => f.write_str(&d.name),
            Ty::Enum(d) => f.write_str(&d.name),
            Ty::Var(_) => f.write_str("{number}"),
            Ty::Error => f.write_str("{unknown}"),
        }
    }
}
