//! Field-less user enums: `#[derive(DeviceCopy)] #[repr(u8|..|i64)] enum Op { Add, Mul = 5 }`
//! of the kernel's module, as types, variant paths (`Op::Add`), `==`/`!=` and `as` casts to
//! integers.
//!
//! A value is its discriminant, held as the `repr` integer by the lowering and as the user's
//! own type by the simulator. Kernels can only make an enum value from a variant (there is
//! no integer-to-enum cast, as in Rust), so every value a kernel holds is a valid one;
//! comparisons compare the discriminants (`Binary` on the `repr` integer, through casts).

use std::rc::Rc;

use super::{error_expr, span_of, Checker};
use crate::ir::{BinOp, Expr, ExprKind};
use crate::ty::{EnumDef, Scalar, Ty};

impl Checker<'_> {
    /// The type the enum `name` of the module stands for: `Some(Some(ty))`, `Some(None)`
    /// after an error (reported at `at`), `None` when the module has no such enum.
    pub(super) fn enum_type(&mut self, name: &str, at: &syn::Type) -> Option<Option<Ty>> {
        let e = self.consts.module.get_enum(name)?.clone();
        if !e.device_copy {
            self.error(
                at,
                format!("`{name}` cannot be used in a kernel: add `#[derive(Clone, Copy, DeviceCopy)]` (with `use cuprum::prelude::*;`) and an integer `#[repr(..)]` such as `#[repr(u8)]` to its definition"),
            );
            return Some(None);
        }
        Some(self.enum_def(&e.item, at).map(|d| Ty::Enum(Rc::new(d))))
    }

    /// The kernel compiler's view of `item`: its `repr` integer and each variant's
    /// discriminant (written, or one more than the previous one's, from 0). What the derive
    /// rejects (fields, no integer `repr`) was reported by it at the item; here it is one
    /// error at the use `at`.
    fn enum_def(&mut self, item: &syn::ItemEnum, at: &syn::Type) -> Option<EnumDef> {
        let name = item.ident.to_string();
        let Some(repr) = enum_repr(&item.attrs) else {
            self.error(
                at,
                format!("`{name}` needs an integer `#[repr(..)]` (such as `#[repr(u8)]`) to be used in kernels"),
            );
            return None;
        };
        let mut variants: Vec<(String, i128)> = Vec::new();
        let mut next: i128 = 0;
        for v in &item.variants {
            if !matches!(v.fields, syn::Fields::Unit) {
                self.error(
                    at,
                    format!("`{name}` cannot be used in kernels: its variant `{}` has fields, and kernels take only field-less enums", v.ident),
                );
                return None;
            }
            let value = match &v.discriminant {
                Some((_, e)) => {
                    // Tokens read from the file have no place in the user's code: an error in
                    // a discriminant (rustc reports it too) is one error at the use.
                    let before = self.errors.len();
                    let value = self.const_scalar(e, repr, "enum discriminants");
                    self.errors.truncate(before);
                    let Some(value) = value else {
                        self.error(
                            at,
                            format!("the discriminant of `{name}::{}` is not computable when the kernel is compiled; write it as an integer literal", v.ident),
                        );
                        return None;
                    };
                    value
                }
                None => next,
            };
            let (lo, hi) = repr.int_range().expect("an integer repr");
            if value < lo || value > hi {
                self.error(
                    at,
                    format!(
                        "the discriminant of `{name}::{}` overflows `{}`",
                        v.ident,
                        repr.name()
                    ),
                );
                return None;
            }
            next = value + 1;
            variants.push((v.ident.to_string(), value));
        }
        if variants.is_empty() {
            self.error(
                at,
                format!("`{name}` has no variants: kernels cannot hold a value of it"),
            );
            return None;
        }
        Some(EnumDef {
            name,
            repr,
            variants,
            partial_eq: crate::consts::derives(&item.attrs, "PartialEq"),
        })
    }

    /// `Op::Add`: the variant of a module enum, as its discriminant. `None` when the path
    /// names no enum of the module.
    pub(super) fn enum_variant(&mut self, p: &syn::ExprPath) -> Option<Expr> {
        if p.qself.is_some() || p.path.leading_colon.is_some() {
            return None;
        }
        let [ty, variant] = p.path.segments.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let name = ty.ident.to_string();
        self.consts.module.get_enum(&name)?;
        let span = span_of(p);
        let at: syn::Type = syn::Type::Path(syn::TypePath {
            qself: None,
            path: ty.ident.clone().into(),
        });
        let Some(Some(Ty::Enum(d))) = self.enum_type(&name, &at) else {
            return Some(error_expr(span));
        };
        let wanted = variant.ident.to_string();
        let Some((_, v)) = d.variants.iter().find(|(n, _)| *n == wanted) else {
            let mut msg = format!("no variant named `{wanted}` in enum `{name}`");
            let names = d.variants.iter().map(|(n, _)| n.as_str());
            if let Some(s) = super::suggest::closest(&wanted, names) {
                msg.push_str(&format!("; did you mean `{name}::{s}`?"));
            }
            self.error(&variant.ident, msg);
            return Some(error_expr(span));
        };
        Some(Expr {
            kind: ExprKind::Int(*v),
            ty: Ty::Enum(d.clone()),
            span,
        })
    }

    /// [`Checker::enum_variant`] without reporting: `Some(None)` when the path names an enum
    /// of the module but no variant of it (for constants, whose errors say more).
    pub(super) fn enum_variant_quiet(&mut self, p: &syn::ExprPath) -> Option<Option<Expr>> {
        let before = self.errors.len();
        let e = self.enum_variant(p)?;
        let failed = self.errors.len() > before || matches!(e.ty, Ty::Error);
        self.errors.truncate(before);
        Some((!failed).then_some(e))
    }

    /// Whether either operand is an enum (for [`Checker::enum_binary`]).
    pub(super) fn enum_operands(&self, l: &Expr, r: &Expr) -> bool {
        [l, r]
            .iter()
            .any(|e| matches!(self.infer.zonk(&e.ty), Ty::Enum(_)))
    }

    /// `a == b` / `a != b` where an operand is an enum: the discriminants compared (the enum
    /// must derive `PartialEq`, as in Rust); other operators are errors.
    pub(super) fn enum_binary(
        &mut self,
        op: BinOp,
        l: Expr,
        r: Expr,
        node: &syn::ExprBinary,
    ) -> Expr {
        let (lt, rt) = (self.infer.zonk(&l.ty), self.infer.zonk(&r.ty));
        let span = span_of(node);
        let d = match (&lt, &rt) {
            (Ty::Enum(d), _) | (_, Ty::Enum(d)) => d.clone(),
            _ => return error_expr(span),
        };
        if !matches!(op, BinOp::Eq | BinOp::Ne) {
            self.error(
                node.op,
                format!("cannot apply `{}` to `{}`: enums are compared with `==` and `!=`, or matched; compare their discriminants with `as` (`(a as u32) < (b as u32)`)", op.symbol(), d.name),
            );
            return error_expr(span);
        }
        if self.infer.unify(&lt, &rt).is_err() {
            let (a, b) = (self.infer.describe(&lt), self.infer.describe(&rt));
            self.error(
                node,
                format!("mismatched types: cannot compare `{a}` with `{b}`"),
            );
            return error_expr(span);
        }
        if !d.partial_eq {
            self.error(
                node.op,
                format!("binary operation `{}` cannot be applied to type `{}`: add `PartialEq` to its `#[derive(..)]`, or `match` on it", op.symbol(), d.name),
            );
            return error_expr(span);
        }
        Expr {
            kind: ExprKind::Binary(
                op,
                Box::new(discriminant(l)),
                Box::new(discriminant(r)),
                None,
            ),
            ty: Ty::BOOL,
            span,
        }
    }

    /// Checks `x as T` where `x` or `T` is an enum: an enum casts to any integer type (its
    /// discriminant), nothing casts to an enum. `None` when neither is one.
    pub(super) fn enum_cast(&mut self, c: &syn::ExprCast, inner: &Expr) -> Option<Expr> {
        let span = span_of(c);
        if let syn::Type::Path(p) = &*c.ty {
            if let Some(i) = p.path.get_ident() {
                if self.consts.module.get_enum(&i.to_string()).is_some() {
                    let d = self.infer.describe(&inner.ty);
                    self.error(
                        c,
                        format!("non-primitive cast: `{d}` as `{i}`; an integer cannot be turned into an enum: `match` on it (`match x {{ 0 => {i}::.., _ => .. }}`)"),
                    );
                    return Some(error_expr(span));
                }
            }
        }
        let Ty::Enum(d) = self.infer.zonk(&inner.ty) else {
            return None;
        };
        let target = match &*c.ty {
            syn::Type::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.scalar_named(&i.to_string())),
            _ => None,
        };
        match target {
            Some(t) if t.is_int() => Some(Expr {
                kind: ExprKind::Cast(Box::new(inner.clone())),
                ty: Ty::Scalar(t),
                span,
            }),
            _ => {
                let text = super::source::type_text(&c.ty);
                self.error(
                    c,
                    format!("casting `{}` as `{text}` is invalid: an enum casts to integer types only (`x as u32`)", d.name),
                );
                Some(error_expr(span))
            }
        }
    }
}

/// The discriminant of an enum value as its `repr` integer (other values unchanged).
pub(super) fn discriminant(e: Expr) -> Expr {
    match &e.ty {
        Ty::Enum(d) => {
            let (ty, span) = (Ty::Scalar(d.repr), e.span);
            Expr {
                kind: ExprKind::Cast(Box::new(e)),
                ty,
                span,
            }
        }
        _ => e,
    }
}

/// The integer type of `#[repr(u8)]` (or any integer type; `C` and `align` are ignored).
pub(crate) fn enum_repr(attrs: &[syn::Attribute]) -> Option<Scalar> {
    let mut out = None;
    for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = a.parse_nested_meta(|m| {
            if let Some(s) = m
                .path
                .get_ident()
                .and_then(|i| Scalar::from_name(&i.to_string()))
            {
                if s.is_int() {
                    out = Some(s);
                }
            }
            if m.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in m.input);
                let _: proc_macro2::TokenStream = content.parse()?;
            }
            Ok(())
        });
    }
    out
}
