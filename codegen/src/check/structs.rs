//! User types: `#[derive(DeviceCopy)] #[repr(C)]` structs of the kernel's module, as types,
//! field accesses and struct literals.
//!
//! The definitions come with the module's `const` items (`consts::ModuleItems`, read from the
//! kernel's source file). A struct value is an LLVM struct in the lowering (laid out as
//! `repr(C)`, `ty::struct_layout`) and the user's own type in the simulator.

use std::rc::Rc;

use quote::ToTokens;
use syn::spanned::Spanned;

use super::{error_expr, span_of, Checker};
use crate::ir::{Expr, ExprKind};
use crate::ty::{StructDef, Ty};

/// How deeply structs may nest in one another (a struct that contains itself is an error
/// of rustc's; this only keeps the walk finite).
const MAX_NESTING: u32 = 16;

impl Checker<'_> {
    /// Whether `ty` is a plain path naming a struct of the module.
    pub(super) fn user_type_named(&self, ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().is_some_and(|i| {
                let name = i.to_string();
                self.consts.module.get_struct(&name).is_some()
                    || self.consts.module.get_enum(&name).is_some()
            }),
            _ => false,
        }
    }

    /// The type a plain path names when it is a struct of the module: `Some(Some(ty))`,
    /// `Some(None)` after an error, `None` when it names no struct.
    pub(super) fn user_type(&mut self, ty: &syn::Type) -> Option<Option<Ty>> {
        let syn::Type::Path(p) = ty else {
            return None;
        };
        let name = p
            .path
            .get_ident()
            .filter(|_| p.qself.is_none())?
            .to_string();
        if self.consts.module.get_struct(&name).is_none() {
            return self.enum_type(&name, ty);
        }
        let s = self.consts.module.get_struct(&name)?.clone();
        if !s.device_copy {
            self.error(
                ty,
                format!("`{name}` cannot be used in a kernel: add `#[derive(DeviceCopy)]` (with `use cuprum::prelude::*;`) and `#[repr(C)]` to its definition"),
            );
            return Some(None);
        }
        Some(
            self.struct_def(&s.item, ty, 0)
                .map(|d| Ty::Struct(Rc::new(d))),
        )
    }

    /// The kernel compiler's view of `item`. Field types the derive rejects were reported by
    /// it at the field; here they make one error at the use `at`.
    fn struct_def(
        &mut self,
        item: &syn::ItemStruct,
        at: &syn::Type,
        depth: u32,
    ) -> Option<StructDef> {
        let name = item.ident.to_string();
        if depth > MAX_NESTING {
            self.error(
                at,
                format!("`{name}` nests structs more than {MAX_NESTING} deep"),
            );
            return None;
        }
        let (fields, tuple) = match &item.fields {
            syn::Fields::Named(f) => (&f.named, false),
            syn::Fields::Unnamed(f) => (&f.unnamed, true),
            syn::Fields::Unit => {
                self.error(
                    at,
                    format!("`{name}` has no fields: kernels cannot use a unit struct"),
                );
                return None;
            }
        };
        let mut out = Vec::new();
        for (k, f) in fields.iter().enumerate() {
            let fname = match &f.ident {
                Some(i) => {
                    let s = i.to_string();
                    if s.starts_with("r#") {
                        self.error(at, format!("`{name}` has a raw field name `{s}`, which kernels do not support; rename the field"));
                        return None;
                    }
                    s
                }
                None => k.to_string(),
            };
            let Some(t) = self.field_type(&f.ty, depth) else {
                self.error(
                    at,
                    format!(
                        "`{name}` cannot be used in a kernel: its field `{fname}` has type `{}`; fields must be scalars, arrays or other `DeviceCopy` types",
                        f.ty.to_token_stream()
                    ),
                );
                return None;
            };
            out.push((fname, t));
        }
        if out.is_empty() {
            self.error(at, format!("`{name}` has no fields: kernels cannot use it"));
            return None;
        }
        Some(StructDef {
            name,
            fields: out,
            tuple,
            align: repr_align(&item.attrs),
        })
    }

    /// A field's type, without reporting: scalars, arrays with constant lengths, and other
    /// `DeviceCopy` structs of the module.
    fn field_type(&mut self, ty: &syn::Type, depth: u32) -> Option<Ty> {
        match ty {
            syn::Type::Paren(p) => self.field_type(&p.elem, depth),
            syn::Type::Group(g) => self.field_type(&g.elem, depth),
            syn::Type::Array(a) => {
                let elem = self.field_type(&a.elem, depth)?;
                let before = self.errors.len();
                let len = self.const_len(&a.len);
                self.errors.truncate(before);
                Some(Ty::Array(Box::new(elem), len?))
            }
            syn::Type::Path(p) if p.qself.is_none() => {
                let name = p.path.get_ident()?.to_string();
                if let Some(s) = crate::ty::Scalar::from_name(&name) {
                    return Some(Ty::Scalar(s));
                }
                if self.consts.module.get_enum(&name).is_some() {
                    let before = self.errors.len();
                    let t = self.enum_type(&name, ty).flatten();
                    self.errors.truncate(before);
                    return t;
                }
                let s = self.consts.module.get_struct(&name)?.clone();
                if !s.device_copy {
                    return None;
                }
                self.struct_def(&s.item, ty, depth + 1)
                    .map(|d| Ty::Struct(Rc::new(d)))
            }
            _ => None,
        }
    }

    /// A struct literal `P { a: x, b: y }` (every field given once, in any order; the values
    /// are computed in declaration order, so values with effects must be written in it).
    pub(super) fn struct_literal(&mut self, s: &syn::ExprStruct) -> Expr {
        let span = span_of(s);
        let ty_path: syn::Type = syn::Type::Path(syn::TypePath {
            qself: s.qself.clone(),
            path: s.path.clone(),
        });
        let def = match self.user_type(&ty_path) {
            Some(Some(Ty::Struct(d))) => d,
            Some(_) => return error_expr(span),
            None => {
                self.error(
                    &s.path,
                    format!(
                        "`{}` is not a struct this kernel can see: define it with `#[derive(DeviceCopy)]` and `#[repr(C)]` in the kernel's module, or import it with `use` and write its own name",
                        s.path.to_token_stream()
                    ),
                );
                return error_expr(span);
            }
        };
        if let Some(rest) = &s.rest {
            self.error(
                rest,
                "`..base` is not supported in kernel struct literals; give every field",
            );
            return error_expr(span);
        }
        let mut values: Vec<Option<Expr>> = vec![None; def.fields.len()];
        let mut ok = true;
        for fv in &s.fields {
            let name = match &fv.member {
                syn::Member::Named(i) => i.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let value = self.expr(&fv.expr);
            let Some(k) = def.field(&name) else {
                self.error(&fv.member, format!("`{}` has no field `{name}`", def.name));
                ok = false;
                continue;
            };
            if values[k].is_some() {
                self.error(&fv.member, format!("field `{name}` is given twice"));
                ok = false;
                continue;
            }
            ok &= self.unify_at(&def.fields[k].1, &value.ty, &fv.expr, "this field");
            values[k] = Some(value);
        }
        let missing: Vec<&str> = def
            .fields
            .iter()
            .zip(&values)
            .filter(|(_, v)| v.is_none())
            .map(|((n, _), _)| n.as_str())
            .collect();
        if ok && !missing.is_empty() {
            self.error(
                &s.path,
                format!(
                    "missing fields in `{}`: `{}`",
                    def.name,
                    missing.join("`, `")
                ),
            );
            ok = false;
        }
        if !ok {
            return error_expr(span);
        }
        let values: Vec<Expr> = values
            .into_iter()
            .map(|v| v.expect("every field"))
            .collect();
        // The IR computes a literal's fields in declaration order; written in another order,
        // that is Rust's order only when the values do not depend on when they are computed.
        let written: Vec<usize> = s
            .fields
            .iter()
            .filter_map(|fv| {
                let n = match &fv.member {
                    syn::Member::Named(i) => i.to_string(),
                    syn::Member::Unnamed(i) => i.index.to_string(),
                };
                def.field(&n)
            })
            .collect();
        let in_order = written.windows(2).all(|w| w[0] < w[1]);
        if !in_order && !values.iter().all(is_simple) {
            self.error(
                &s.path,
                format!(
                    "write the fields of this `{}` literal in declaration order (`{}`), or compute the values into locals first",
                    def.name,
                    def.fields.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join("`, `")
                ),
            );
            return error_expr(span);
        }
        Expr {
            kind: ExprKind::Tuple(values),
            ty: Ty::Struct(def),
            span,
        }
    }

    /// A tuple struct's constructor `P(a, b)`: a literal, its values in declaration order.
    pub(super) fn tuple_struct_call(&mut self, c: &syn::ExprCall, path: &syn::Path) -> Expr {
        let span = span_of(c);
        let ty: syn::Type = syn::Type::Path(syn::TypePath {
            qself: None,
            path: path.clone(),
        });
        let values: Vec<Expr> = c.args.iter().map(|a| self.expr(a)).collect();
        let def = match self.user_type(&ty) {
            Some(Some(Ty::Struct(d))) => d,
            _ => return error_expr(span),
        };
        if !def.tuple {
            self.error(
                path,
                format!(
                    "`{}` has named fields: write `{} {{ {}: .. }}`",
                    def.name, def.name, def.fields[0].0
                ),
            );
            return error_expr(span);
        }
        if values.len() != def.fields.len() {
            self.error(
                c,
                format!(
                    "`{}` has {} field(s), but {} value(s) are given",
                    def.name,
                    def.fields.len(),
                    values.len()
                ),
            );
            return error_expr(span);
        }
        let mut ok = true;
        for ((_, t), (v, a)) in def.fields.iter().zip(values.iter().zip(&c.args)) {
            ok &= self.unify_at(t, &v.ty, a, "this field");
        }
        if !ok {
            return error_expr(span);
        }
        Expr {
            kind: ExprKind::Tuple(values),
            ty: Ty::Struct(def),
            span,
        }
    }

    /// `recv.name(args)` where `recv` is a struct with a `#[device] impl` method `name`:
    /// a call of the method as a device function taking `self` first (`&recv`, `&mut recv`
    /// or `recv`, as the method takes it). `None` when `name` is no such method.
    pub(super) fn struct_method_call(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let name = m.method.to_string();
        if !self.consts.module.has_method(&name) {
            return None;
        }
        // The receiver's type, checked once on the side (its errors come from the real check).
        let before = self.errors.len();
        let recv = self.expr(&m.receiver);
        self.errors.truncate(before);
        let d = match self.infer.zonk(&recv.ty) {
            Ty::Struct(d) => d.name.clone(),
            Ty::Enum(d) => d.name.clone(),
            _ => return None,
        };
        let f = self.consts.module.method(&d, &name)?.clone();
        let receiver = match f.sig.inputs.first() {
            Some(syn::FnArg::Receiver(r)) => r.clone(),
            _ => {
                self.error(
                    &m.method,
                    format!(
                        "`{}::{name}` takes no `self`; call it as `{}::{name}(..)`",
                        d, d
                    ),
                );
                return Some(error_expr(span_of(m)));
            }
        };
        let expected = f.sig.inputs.len() - 1;
        if m.args.len() != expected {
            for a in &m.args {
                self.expr(a);
            }
            self.error(
                m,
                format!(
                    "`{}::{name}` takes {expected} argument(s) besides `self`, but {} were given",
                    d,
                    m.args.len()
                ),
            );
            return Some(error_expr(span_of(m)));
        }
        let path = self.method_fn(&d, &f);
        let r = &m.receiver;
        let first: syn::Expr = match (&receiver.reference, &receiver.mutability) {
            (Some(_), Some(_)) => syn::parse_quote_spanned!(r.span()=> &mut #r),
            (Some(_), None) => syn::parse_quote_spanned!(r.span()=> &#r),
            (None, _) => (**r).clone(),
        };
        let mut args = syn::punctuated::Punctuated::new();
        args.push(first);
        args.extend(m.args.iter().cloned());
        let call = syn::ExprCall {
            attrs: Vec::new(),
            func: Box::new(syn::Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path,
            })),
            paren_token: m.paren_token,
            args,
        };
        Some(self.call(&call))
    }

    /// `P::name(args)` for an associated function of a `#[device] impl P`: the path of its
    /// device function. `None` when `P` has no such function.
    pub(super) fn associated_fn(&mut self, ty: &str, name: &str) -> Option<syn::Path> {
        if self.consts.module.get_struct(ty).is_none() {
            self.consts.module.get_enum(ty)?;
        }
        let f = self.consts.module.method(ty, name)?.clone();
        Some(self.method_fn(ty, &f))
    }

    /// Registers the method `f` of struct `ty` as a device function (once) and returns the
    /// path its calls use: `self` becomes a first parameter `__self` and `Self` the struct.
    fn method_fn(&mut self, ty: &str, f: &syn::ImplItemFn) -> syn::Path {
        let ident = syn::Ident::new(
            &format!("__cuprum_{ty}_{}", f.sig.ident),
            f.sig.ident.span(),
        );
        let path: syn::Path = ident.clone().into();
        if self.devices.get(&path).is_some() {
            return path;
        }
        let struct_ident = syn::Ident::new(ty, f.sig.ident.span());
        let mut sig = f.sig.clone();
        sig.ident = ident;
        if let Some(syn::FnArg::Receiver(r)) = sig.inputs.first().cloned() {
            let this = syn::Ident::new("__self", r.self_token.span);
            let mutability = r.mutability;
            let arg: syn::FnArg = match &r.reference {
                Some(_) => syn::parse_quote!(#this: &#mutability #struct_ident),
                None => syn::parse_quote!(#mutability #this: #struct_ident),
            };
            sig.inputs[0] = arg;
        }
        let mut item = syn::ItemFn {
            attrs: Vec::new(),
            vis: syn::Visibility::Inherited,
            sig,
            block: Box::new(f.block.clone()),
        };
        syn::visit_mut::VisitMut::visit_item_fn_mut(&mut SelfToStruct(struct_ident), &mut item);
        let dev = crate::device::DeviceFn {
            item,
            deps: self.devices.clone(),
            consts: self.consts.module.module_of_type(ty),
        };
        self.devices.insert(&crate::device::path_key(&path), dev);
        path
    }
}

/// An expression whose value does not depend on when it is computed among the others:
/// literals, reads of locals and their fields, and arrays, tuples, casts and negations of
/// such (no call, no check that could fail, no write).
fn is_simple(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Unit => true,
        ExprKind::Read(p) => p
            .proj
            .iter()
            .all(|p| matches!(p, crate::ir::Proj::Field(_))),
        ExprKind::Array(xs) | ExprKind::Tuple(xs) => xs.iter().all(is_simple),
        ExprKind::Repeat(x, _) | ExprKind::Cast(x) | ExprKind::Field(x, _) => is_simple(x),
        _ => false,
    }
}

/// Rewrites a method's `self` as `__self` and `Self` as the struct's name.
struct SelfToStruct(syn::Ident);

impl syn::visit_mut::VisitMut for SelfToStruct {
    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        if let Some(first) = p.segments.first_mut() {
            if first.ident == "self" && p.leading_colon.is_none() {
                first.ident = syn::Ident::new("__self", first.ident.span());
            } else if first.ident == "Self" {
                first.ident = syn::Ident::new(&self.0.to_string(), first.ident.span());
            }
        }
        syn::visit_mut::visit_path_mut(self, p);
    }
}

/// The `N` of `#[repr(C, align(N))]` (1 without it; the derive refuses other forms).
fn repr_align(attrs: &[syn::Attribute]) -> u64 {
    let mut align = 1;
    for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = a.parse_nested_meta(|m| {
            if m.path.is_ident("align") {
                let content;
                syn::parenthesized!(content in m.input);
                let n: syn::LitInt = content.parse()?;
                align = n.base10_parse::<u64>().unwrap_or(1);
            } else if m.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in m.input);
                let _: proc_macro2::TokenStream = content.parse()?;
            }
            Ok(())
        });
    }
    align
}
