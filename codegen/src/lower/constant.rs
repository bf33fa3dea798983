//! Tables in constant memory: the hidden locals that hold `const` arrays and `static`
//! tables (`Function::constants`) become read-only globals in address space 4, so that
//! reading them is `ld.const` (cached, broadcast when a warp reads one address).

use inkwell::module::Linkage;
use inkwell::types::BasicTypeEnum;
use inkwell::values::BasicValueEnum;
use inkwell::AddressSpace;

use super::{value_type, FnLower, Slot};
use crate::ir::{Expr, ExprKind};
use crate::ty::{Scalar, Ty};

/// Constant memory.
const CONSTANT: u16 = 4;

impl<'ctx> FnLower<'_, 'ctx> {
    /// Makes the function's tables and points their locals at them.
    pub(crate) fn bind_constants(&mut self) {
        for (id, init) in &self.ir.constants {
            let ty = value_type(self.ctx, &init.ty).expect("tables have storage");
            let name = format!("__cuprum_const_{}", self.ir.locals[*id].name);
            let g = self
                .module
                .add_global(ty, Some(AddressSpace::from(CONSTANT)), &name);
            g.set_linkage(Linkage::Internal);
            g.set_constant(true);
            g.set_initializer(&self.constant_value(init));
            g.set_alignment(16);
            self.slots[*id] = Slot::Mem(g.as_pointer_value());
        }
    }

    /// The LLVM constant of a literal value (numbers, `bool`s and arrays of them).
    fn constant_value(&self, e: &Expr) -> BasicValueEnum<'ctx> {
        match (&e.kind, &e.ty) {
            (ExprKind::Int(v), t) if t.scalar_repr().is_some() => {
                self.int_const(t.scalar_repr().expect("checked"), *v).into()
            }
            (ExprKind::Float(v), Ty::Scalar(Scalar::F32)) => {
                self.ctx.f32_type().const_float(*v as f32 as f64).into()
            }
            (ExprKind::Float(v), _) => self.ctx.f64_type().const_float(*v).into(),
            (ExprKind::Bool(v), _) => self.ctx.bool_type().const_int(*v as u64, false).into(),
            (ExprKind::Array(xs), Ty::Array(elem, _)) => {
                let vals: Vec<BasicValueEnum<'ctx>> =
                    xs.iter().map(|x| self.constant_value(x)).collect();
                match value_type(self.ctx, elem).expect("elements have storage") {
                    BasicTypeEnum::IntType(t) => {
                        let v: Vec<_> = vals.iter().map(|v| v.into_int_value()).collect();
                        t.const_array(&v).into()
                    }
                    BasicTypeEnum::FloatType(t) => {
                        let v: Vec<_> = vals.iter().map(|v| v.into_float_value()).collect();
                        t.const_array(&v).into()
                    }
                    BasicTypeEnum::ArrayType(t) => {
                        let v: Vec<_> = vals.iter().map(|v| v.into_array_value()).collect();
                        t.const_array(&v).into()
                    }
                    BasicTypeEnum::StructType(t) => {
                        let v: Vec<_> = vals.iter().map(|v| v.into_struct_value()).collect();
                        t.const_array(&v).into()
                    }
                    other => unreachable!("a table of {other:?}"),
                }
            }
            // A struct or a tuple: its fields in order (`value_type`'s struct type).
            (ExprKind::Tuple(xs), _) => {
                let vals: Vec<BasicValueEnum<'ctx>> = xs
                    .iter()
                    .filter(|x| !x.ty.is_zero_sized())
                    .map(|x| self.constant_value(x))
                    .collect();
                self.ctx.const_struct(&vals, false).into()
            }
            (k, t) => unreachable!("table value {k:?} of type {t}"),
        }
    }
}
