//! Type inference for numeric literals: a union-find over `Ty::Var`s, Rust's defaults
//! (`i32`, `f64`) for literals nothing constrains, and the checks that can only run once
//! types are known (literal ranges, `-` on unsigned types).

use proc_macro2::Span;

use crate::ty::{Scalar, Ty, TyVar};

#[derive(Clone, Debug)]
enum VarState {
    /// Unbound; `float` says whether it came from a float literal.
    Open { float: bool },
    /// Bound to a concrete type.
    Bound(Ty),
    /// Merged into another variable.
    Link(TyVar),
}

/// Why two types could not be unified.
#[derive(Debug)]
pub struct Mismatch;

/// The inference state of one kernel or device function.
#[derive(Default)]
pub struct InferCtx {
    vars: Vec<VarState>,
    literal_checks: Vec<(Ty, i128, Span)>,
    float_checks: Vec<(Ty, f64, String, Span)>,
    negation_checks: Vec<(Ty, Span)>,
}

impl InferCtx {
    /// A fresh variable for an integer (`float == false`) or float literal.
    pub fn fresh(&mut self, float: bool) -> Ty {
        self.vars.push(VarState::Open { float });
        Ty::Var(TyVar(self.vars.len() as u32 - 1))
    }

    fn root(&self, mut v: TyVar) -> TyVar {
        while let VarState::Link(next) = self.vars[v.0 as usize] {
            v = next;
        }
        v
    }

    /// Follows bindings one level: the type a variable currently stands for, or the root var.
    pub fn shallow(&self, ty: &Ty) -> Ty {
        match ty {
            Ty::Var(v) => {
                let r = self.root(*v);
                match &self.vars[r.0 as usize] {
                    VarState::Bound(t) => t.clone(),
                    _ => Ty::Var(r),
                }
            }
            other => other.clone(),
        }
    }

    /// Whether an unbound variable came from a float literal.
    pub fn is_float_var(&self, ty: &Ty) -> Option<bool> {
        match self.shallow(ty) {
            Ty::Var(v) => match self.vars[v.0 as usize] {
                VarState::Open { float } => Some(float),
                _ => None,
            },
            _ => None,
        }
    }

    /// Makes `a` and `b` the same type.
    pub fn unify(&mut self, a: &Ty, b: &Ty) -> Result<(), Mismatch> {
        let a = self.shallow(a);
        let b = self.shallow(b);
        match (&a, &b) {
            (Ty::Error, _) | (_, Ty::Error) => Ok(()),
            (Ty::Var(x), Ty::Var(y)) => {
                if x == y {
                    return Ok(());
                }
                let (VarState::Open { float: fx }, VarState::Open { float: fy }) =
                    (&self.vars[x.0 as usize], &self.vars[y.0 as usize])
                else {
                    unreachable!("shallow() returns only open variables")
                };
                if fx != fy {
                    return Err(Mismatch);
                }
                self.vars[x.0 as usize] = VarState::Link(*y);
                Ok(())
            }
            (Ty::Var(v), other) | (other, Ty::Var(v)) => {
                let VarState::Open { float } = self.vars[v.0 as usize] else {
                    unreachable!("shallow() returns only open variables")
                };
                match other {
                    Ty::Scalar(s) if (float && s.is_float()) || (!float && s.is_int()) => {
                        self.vars[v.0 as usize] = VarState::Bound(other.clone());
                        Ok(())
                    }
                    _ => Err(Mismatch),
                }
            }
            (Ty::Array(x, n), Ty::Array(y, m)) if n == m => self.unify(x, y),
            (Ty::Tuple(xs), Ty::Tuple(ys)) if xs.len() == ys.len() => {
                for (x, y) in xs.iter().zip(ys) {
                    self.unify(x, y)?;
                }
                Ok(())
            }
            _ if a == b => Ok(()),
            _ => Err(Mismatch),
        }
    }

    /// The type with every variable replaced by what it is bound to (unbound ones stay).
    pub fn zonk(&self, ty: &Ty) -> Ty {
        match self.shallow(ty) {
            Ty::Array(t, n) => Ty::Array(Box::new(self.zonk(&t)), n),
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| self.zonk(t)).collect()),
            other => other,
        }
    }

    /// The final type: unbound literal types default to `i32` and `f64`, as in Rust.
    pub fn resolve(&self, ty: &Ty) -> Ty {
        match self.zonk(ty) {
            Ty::Var(v) => match self.vars[v.0 as usize] {
                VarState::Open { float: true } => Ty::Scalar(Scalar::F64),
                _ => Ty::Scalar(Scalar::I32),
            },
            Ty::Array(t, n) => Ty::Array(Box::new(self.resolve(&t)), n),
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| self.resolve(t)).collect()),
            other => other,
        }
    }

    /// How a type reads in a message: `{integer}` and `{float}` for open variables.
    pub fn describe(&self, ty: &Ty) -> String {
        match self.zonk(ty) {
            Ty::Var(v) => match self.vars[v.0 as usize] {
                VarState::Open { float: true } => "{float}".into(),
                _ => "{integer}".into(),
            },
            Ty::Array(t, n) => format!("[{}; {n}]", self.describe(&t)),
            Ty::Tuple(ts) => {
                let inner: Vec<String> = ts.iter().map(|t| self.describe(t)).collect();
                match inner.as_slice() {
                    [one] => format!("({one},)"),
                    _ => format!("({})", inner.join(", ")),
                }
            }
            other => other.to_string(),
        }
    }

    /// Remembers to check, once types are known, that `value` fits the literal's type.
    pub fn check_literal_later(&mut self, ty: Ty, value: i128, span: Span) {
        self.literal_checks.push((ty, value, span));
    }

    /// Remembers to check, once types are known, that the float literal `text` (of value
    /// `value`) is finite in its type, as rustc's `overflowing_literals` requires.
    pub fn check_float_literal_later(&mut self, ty: Ty, value: f64, text: String, span: Span) {
        self.float_checks.push((ty, value, text, span));
    }

    /// Remembers to check, once types are known, that `-` is applied to a signed type.
    pub fn check_negation_later(&mut self, ty: Ty, span: Span) {
        self.negation_checks.push((ty, span));
    }

    /// Runs the deferred checks; returns their errors.
    pub fn deferred_errors(&self) -> Vec<syn::Error> {
        let mut errors = Vec::new();
        for (ty, value, span) in &self.literal_checks {
            if let Ty::Scalar(s) = self.resolve(ty) {
                if let Some((lo, hi)) = s.int_range() {
                    // A negative unsigned literal is reported once, by the negation check.
                    let negated_unsigned = *value < 0 && !s.is_signed();
                    if !negated_unsigned && (*value < lo || *value > hi) {
                        let wider = Scalar::ALL.into_iter().find(|w| {
                            w.is_signed() == s.is_signed()
                                && w.bits() > s.bits()
                                && w.int_range()
                                    .is_some_and(|(l, h)| l <= *value && *value <= h)
                        });
                        let advice = match wider {
                            Some(w) => format!("; it needs a wider type such as `{}`", w.name()),
                            None => "; no kernel integer type holds it".to_string(),
                        };
                        errors.push(syn::Error::new(
                            *span,
                            format!(
                                "literal out of range for `{}`: `{value}` does not fit in {lo}..={hi}{advice}",
                                s.name()
                            ),
                        ));
                    }
                }
            }
        }
        for (ty, value, text, span) in &self.float_checks {
            let s = match self.resolve(ty) {
                Ty::Scalar(s) if s.is_float() => s,
                _ => continue,
            };
            let finite = if s == Scalar::F32 {
                (*value as f32).is_finite()
            } else {
                value.is_finite()
            };
            if !finite {
                let advice = if s == Scalar::F32 {
                    "; use `f64`, or write `f32::INFINITY` for infinity"
                } else {
                    "; write `f64::INFINITY` for infinity"
                };
                errors.push(syn::Error::new(
                    *span,
                    format!(
                        "literal out of range for `{0}`: `{text}` is larger than `{0}::MAX`{advice}",
                        s.name()
                    ),
                ));
            }
        }
        for (ty, span) in &self.negation_checks {
            if let Ty::Scalar(s) = self.resolve(ty) {
                if s.is_int() && !s.is_signed() {
                    errors.push(syn::Error::new(
                        *span,
                        format!(
                            "cannot apply unary operator `-` to type `{}`: unsigned values cannot be negated",
                            s.name()
                        ),
                    ));
                }
            }
        }
        errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_vars_default_like_rust() {
        let mut cx = InferCtx::default();
        let i = cx.fresh(false);
        let f = cx.fresh(true);
        assert_eq!(cx.resolve(&i), Ty::Scalar(Scalar::I32));
        assert_eq!(cx.resolve(&f), Ty::Scalar(Scalar::F64));
    }

    #[test]
    fn unification_binds_through_links() {
        let mut cx = InferCtx::default();
        let a = cx.fresh(false);
        let b = cx.fresh(false);
        cx.unify(&a, &b).unwrap();
        cx.unify(&b, &Ty::Scalar(Scalar::U8)).unwrap();
        assert_eq!(cx.resolve(&a), Ty::Scalar(Scalar::U8));
    }

    #[test]
    fn int_literal_never_becomes_float() {
        let mut cx = InferCtx::default();
        let a = cx.fresh(false);
        assert!(cx.unify(&a, &Ty::Scalar(Scalar::F32)).is_err());
        let f = cx.fresh(true);
        assert!(cx.unify(&a, &f).is_err());
    }

    #[test]
    fn deferred_literal_range() {
        let mut cx = InferCtx::default();
        let a = cx.fresh(false);
        cx.unify(&a, &Ty::Scalar(Scalar::U8)).unwrap();
        cx.check_literal_later(a.clone(), 256, Span::call_site());
        cx.check_literal_later(a, 255, Span::call_site());
        assert_eq!(cx.deferred_errors().len(), 1);
    }
}
