//! Lowering what a kernel reports to the host: assertions and panics (the failing thread
//! records its values in the panic record and exits) and `gpu::println!` (`vprintf`).

use inkwell::module::{Linkage, Module};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue};
use inkwell::{AddressSpace, FloatPredicate, IntPredicate};

use super::{ok, FnLower};
use crate::format::{printf_directive, printf_text, ArgKind, ArgRef, Piece, Promote};
use crate::ir::{BinOp, Expr, PanicCall, PanicWhen, PrintCall};
use crate::ty::Scalar;

/// The record function of an assertion that records `n` values:
/// `__cuprum_assert{n}(claim, site, i64 value..)` (see `declare_record_fn`).
fn assert_fn<'ctx>(
    ctx: &'ctx inkwell::context::Context,
    module: &Module<'ctx>,
    n: u32,
) -> FunctionValue<'ctx> {
    let name = format!("__cuprum_assert{n}");
    module.get_function(&name).unwrap_or_else(|| {
        let values = vec![ctx.i64_type().into(); n as usize];
        super::declare_record_fn(ctx, module, &name, &values, cuprum_abi::record::VALUES)
    })
}

fn scalar_of(e: &Expr) -> Scalar {
    e.ty.as_scalar()
        .expect("printed and recorded values are scalars (checked)")
}

impl<'ctx> FnLower<'_, 'ctx> {
    /// `assert!`, `assert_eq!`, `assert_ne!`, `panic!`, `unreachable!`: on failure, the
    /// message's arguments are evaluated (only then, as in Rust) and every value is recorded.
    pub(crate) fn panic_call(&mut self, p: &PanicCall) -> Option<BasicValueEnum<'ctx>> {
        if p.debug && !self.options.debug_assertions {
            return None;
        }
        let (bad, first) = match &p.when {
            PanicWhen::Always => (None, Vec::new()),
            PanicWhen::Not(c) => {
                let c = self.expr(c)?.into_int_value();
                (Some(ok!(self.b.build_not(c, "assert_bad"))), Vec::new())
            }
            PanicWhen::Compare(op) => {
                let l = self.expr(&p.args[0])?;
                let r = self.expr(&p.args[1])?;
                let s = scalar_of(&p.args[0]);
                let holds = if s.is_float() {
                    let pred = if *op == BinOp::Eq {
                        FloatPredicate::OEQ
                    } else {
                        FloatPredicate::UNE
                    };
                    ok!(self.b.build_float_compare(
                        pred,
                        l.into_float_value(),
                        r.into_float_value(),
                        "assert_cmp"
                    ))
                } else {
                    let pred = if *op == BinOp::Eq {
                        IntPredicate::EQ
                    } else {
                        IntPredicate::NE
                    };
                    ok!(self.b.build_int_compare(
                        pred,
                        l.into_int_value(),
                        r.into_int_value(),
                        "assert_cmp"
                    ))
                };
                (
                    Some(ok!(self.b.build_not(holds, "assert_bad"))),
                    vec![(l, s), (r, s)],
                )
            }
        };
        let pass = bad.map(|bad| {
            let fail = self.block_named("assert_fail");
            let pass = self.block_named("assert_ok");
            let br = ok!(self.b.build_conditional_branch(bad, fail, pass));
            let i32t = self.ctx.i32_type();
            let weights = self.ctx.metadata_node(&[
                self.ctx.metadata_string("branch_weights").into(),
                i32t.const_int(1, false).into(),
                i32t.const_int(1 << 20, false).into(),
            ]);
            let _ = br.set_metadata(weights, self.ctx.get_kind_id("prof"));
            self.b.position_at_end(fail);
            pass
        });
        let mut values = first;
        for a in &p.args[values.len()..] {
            let v = self.expr(a)?;
            values.push((v, scalar_of(a)));
        }
        let record = self
            .panic_arg
            .expect("a kernel with assertions takes the panic record");
        let i32t = self.ctx.i32_type();
        let mut args: Vec<BasicMetadataValueEnum> =
            vec![record.into(), i32t.const_int(p.site as u64, false).into()];
        for (v, s) in values {
            args.push(self.value_bits(v, s).into());
        }
        let f = assert_fn(self.ctx, self.module, args.len() as u32 - 2);
        ok!(self.b.build_call(f, &args, ""));
        ok!(self.b.build_unreachable());
        match pass {
            Some(pass) => self.b.position_at_end(pass),
            None => self.start_dead_block(),
        }
        None
    }

    /// A scalar's bits as the `u64` the host decodes (integers sign- or zero-extended as
    /// their type, floats by their bits).
    fn value_bits(&mut self, v: BasicValueEnum<'ctx>, s: Scalar) -> IntValue<'ctx> {
        let i64t = self.ctx.i64_type();
        let int = match s {
            Scalar::F32 => {
                ok!(self.b.build_bit_cast(v, self.ctx.i32_type(), "bits")).into_int_value()
            }
            Scalar::F64 => return ok!(self.b.build_bit_cast(v, i64t, "bits")).into_int_value(),
            _ => v.into_int_value(),
        };
        if int.get_type().get_bit_width() == 64 {
            int
        } else if s.is_signed() {
            ok!(self.b.build_int_s_extend(int, i64t, "widen"))
        } else {
            ok!(self.b.build_int_z_extend(int, i64t, "widen"))
        }
    }

    /// `gpu::print!`/`gpu::println!`: `vprintf(format, &values)`, the values promoted as C
    /// promotes variadic arguments (see `format::printf_directive`).
    pub(crate) fn print_call(&mut self, p: &PrintCall) -> Option<BasicValueEnum<'ctx>> {
        let mut values = Vec::new();
        for a in &p.args {
            values.push(self.expr(a)?);
        }
        let mut format = String::new();
        let mut fields: Vec<BasicValueEnum<'ctx>> = Vec::new();
        for piece in &p.pieces {
            match piece {
                Piece::Text(t) => format.push_str(&printf_text(t)),
                Piece::Arg { arg, spec } => {
                    let ArgRef::Index(i) = arg else {
                        unreachable!("format arguments are resolved by the checker")
                    };
                    let s = scalar_of(&p.args[*i]);
                    let (directive, promote) = printf_directive(spec, ArgKind::of(s));
                    format.push_str(&directive);
                    fields.push(self.promote(values[*i], s, promote));
                }
            }
        }
        let fmt = ok!(self.b.build_global_string_ptr(&format, "__cuprum_fmt"));
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let buf = if fields.is_empty() {
            ptr.const_null()
        } else {
            let types: Vec<BasicTypeEnum> = fields.iter().map(|f| f.get_type()).collect();
            let st = self.ctx.struct_type(&types, false);
            let slot = self.entry_alloca(st.into(), "printf_args");
            for (k, f) in fields.iter().enumerate() {
                let field = ok!(self.b.build_struct_gep(st, slot, k as u32, "printf_arg"));
                ok!(self.b.build_store(field, *f));
            }
            slot
        };
        let vprintf = self.module.get_function("vprintf").unwrap_or_else(|| {
            let ty = self
                .ctx
                .i32_type()
                .fn_type(&[ptr.into(), ptr.into()], false);
            self.module
                .add_function("vprintf", ty, Some(Linkage::External))
        });
        ok!(self.b.build_call(
            vprintf,
            &[fmt.as_pointer_value().into(), buf.into()],
            "printf"
        ));
        None
    }

    fn promote(
        &mut self,
        v: BasicValueEnum<'ctx>,
        s: Scalar,
        promote: Promote,
    ) -> BasicValueEnum<'ctx> {
        let i64t = self.ctx.i64_type();
        match promote {
            Promote::Double if s == Scalar::F32 => {
                ok!(self
                    .b
                    .build_float_ext(v.into_float_value(), self.ctx.f64_type(), "double"))
                .into()
            }
            Promote::Double => v,
            Promote::Str => {
                let text = |this: &mut Self, t: &str| {
                    let name = format!("__cuprum_{t}");
                    match this.module.get_global(&name) {
                        Some(g) => g.as_pointer_value(),
                        None => ok!(this.b.build_global_string_ptr(t, &name)).as_pointer_value(),
                    }
                };
                let (t, f) = (text(self, "true"), text(self, "false"));
                ok!(self.b.build_select(v.into_int_value(), t, f, "bool_text"))
            }
            Promote::Signed | Promote::Unsigned => {
                let int = v.into_int_value();
                if int.get_type().get_bit_width() == 64 {
                    int.into()
                } else if promote == Promote::Signed {
                    ok!(self.b.build_int_s_extend(int, i64t, "promote")).into()
                } else {
                    ok!(self.b.build_int_z_extend(int, i64t, "promote")).into()
                }
            }
        }
    }

    /// An alloca of an LLVM type in the entry block.
    fn entry_alloca(
        &self,
        t: BasicTypeEnum<'ctx>,
        name: &str,
    ) -> inkwell::values::PointerValue<'ctx> {
        let b = self.ctx.create_builder();
        match self.entry.get_first_instruction() {
            Some(i) => b.position_before(&i),
            None => b.position_at_end(self.entry),
        }
        ok!(b.build_alloca(t, name))
    }
}
