//! Element types of slices and shared arrays: scalars, arrays of elements and
//! `#[derive(DeviceCopy)]` structs (`&[Particle]`, `&mut [[f32; 4]]`,
//! `gpu::shared_array::<Particle, 256>()`).

use super::limits::{scalar_count, LOCAL_ARRAY_LIMIT};
use super::{source, Checker};
use crate::ir::Place;
use crate::ty::Ty;

impl Checker<'_> {
    /// The element type `ty` of `what` ("a slice's element"): a scalar, an array of
    /// elements, or a struct of the module; one error at `ty` otherwise.
    pub(super) fn element_type(&mut self, ty: &syn::Type, what: &str) -> Option<Ty> {
        match ty {
            syn::Type::Paren(p) => self.element_type(&p.elem, what),
            syn::Type::Group(g) => self.element_type(&g.elem, what),
            syn::Type::Array(a) => {
                let elem = self.element_type(&a.elem, what)?;
                let len = self.const_len(&a.len)?;
                if len == 0 {
                    self.error(
                        ty,
                        format!(
                            "{what} cannot be an empty array `{}`; give it a length of at least 1",
                            source::type_text(ty)
                        ),
                    );
                    return None;
                }
                let t = Ty::Array(Box::new(elem), len);
                if crate::ty::size_align(&t).is_none_or(|(s, _)| s > u32::MAX as u64) {
                    self.error(
                        ty,
                        format!("{what} `{}` is too large", source::type_text(ty)),
                    );
                    return None;
                }
                Some(t)
            }
            syn::Type::Tuple(t) if !t.elems.is_empty() => {
                let text = source::type_text(ty);
                self.error(
                    ty,
                    format!("{what} cannot be a tuple `{text}` (its layout is not `repr(C)`); use an array or a `#[derive(DeviceCopy)]` `#[repr(C)]` struct"),
                );
                None
            }
            syn::Type::Reference(_) | syn::Type::Slice(_) => {
                let text = source::type_text(ty);
                self.error(
                    ty,
                    format!("{what} cannot be `{text}`: elements are plain data (scalars, arrays or `DeviceCopy` structs); for nested data, index one flat slice"),
                );
                None
            }
            syn::Type::Path(_) if self.user_type_named(ty) => self.user_type(ty).flatten(),
            _ => self.scalar_type(ty).map(Ty::Scalar),
        }
    }

    /// Whether a whole element of a slice or shared array (or an aggregate part of one) at
    /// `place` is small enough to copy as a value: as a local array, at most
    /// `LOCAL_ARRAY_LIMIT` scalars; one error at `at` otherwise.
    pub(super) fn element_copy_fits(&mut self, place: &Place, at: &syn::Expr) -> bool {
        if !matches!(
            self.locals[place.base].ty,
            Ty::Slice { .. } | Ty::Shared { .. }
        ) {
            return true;
        }
        let ty = self.infer.zonk(&place.ty);
        match scalar_count(&ty) {
            Some(n) if n <= LOCAL_ARRAY_LIMIT => true,
            n => {
                let n = n.map_or_else(|| "too many".to_string(), |n| n.to_string());
                let text = source::expr_text(at);
                self.error(
                    at,
                    format!("`{text}` is a `{ty}` of {n} values, more than the {LOCAL_ARRAY_LIMIT} a kernel copies at once (as in a local array); read the parts you need, like `{text}[k]`"),
                );
                false
            }
        }
    }
}
