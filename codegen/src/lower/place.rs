//! Lowering places: addresses of locals, slice elements and shared-array elements, the
//! bounds checks that guard them, and loads and stores.

use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;

use super::{ok, shared_global_type, value_type, FnLower, Slot};
use crate::ir::{Place, Proj};
use crate::ty::{Scalar, Ty};

impl<'ctx> FnLower<'_, 'ctx> {
    /// The address of a place; bounds checks run on the way.
    pub(crate) fn place_ptr(&mut self, place: &Place) -> PointerValue<'ctx> {
        self.place_ptr_aligned(place).0
    }

    /// The address of a place and the alignment known for it in device memory: a kernel's
    /// slice parameters and shared arrays start at the alignment kernels assume for their
    /// elements (`cuprum_abi::element_align`, checked by every launch), and each projection
    /// keeps what its offset allows; so a 16-byte element's scalars are loaded with the
    /// alignments that let LLVM make one vector access of them.
    pub(crate) fn place_ptr_aligned(&mut self, place: &Place) -> (PointerValue<'ctx>, u64) {
        let local_ty = self.ir.locals[place.base].ty.clone();
        let i64t = self.ctx.i64_type();
        let mut align = match &local_ty {
            Ty::Slice { elem, .. } => {
                let kernel_param = self.func.get_call_conventions() == super::PTX_KERNEL_CC
                    && self.ir.params.contains(&place.base);
                crate::ty::element_layout(elem)
                    .map_or(1, |(_, a, dev)| if kernel_param { dev } else { a })
            }
            Ty::Shared { elem, .. } => crate::ty::element_layout(elem).map_or(1, |(_, _, a)| a),
            ty => crate::ty::size_align(ty).map_or(1, |(_, a)| a),
        };
        let (mut ptr, mut ty, mut proj) = match self.slot(place.base) {
            Slot::Mem(p) => (p, local_ty, &place.proj[..]),
            Slot::Slice { ptr, len } => {
                let Ty::Slice { elem, .. } = local_ty else {
                    unreachable!("slice slot holds a slice")
                };
                let Some((first @ Proj::Index { index, .. }, rest)) = place.proj.split_first()
                else {
                    unreachable!("a slice is only used through an index")
                };
                let idx = self.expr(index).expect("usize index").into_int_value();
                if let Some(site) = self.checked_site(first) {
                    self.check_in_bounds(site, idx, len);
                }
                let elem_t = super::memory_type(self.ctx, &elem);
                let p = unsafe { ok!(self.b.build_in_bounds_gep(elem_t, ptr, &[idx], "elem")) };
                (p, *elem, rest)
            }
            Slot::Shared(global) => {
                let Ty::Shared { elem, dims } = local_ty.clone() else {
                    unreachable!("shared slot holds a shared array")
                };
                if dims.is_empty() {
                    let Some((first @ Proj::Index { index, .. }, rest)) = place.proj.split_first()
                    else {
                        unreachable!("dynamic shared memory is only used through an index")
                    };
                    let idx = self.expr(index).expect("usize index").into_int_value();
                    if let Some(site) = self.checked_site(first) {
                        let len = self.dynamic_shared_len(&elem);
                        self.check_in_bounds(site, idx, len);
                    }
                    let elem_t = super::memory_type(self.ctx, &elem);
                    let p =
                        unsafe { ok!(self.b.build_in_bounds_gep(elem_t, global, &[idx], "elem")) };
                    (p, *elem, rest)
                } else {
                    (global, local_ty, &place.proj[..])
                }
            }
            Slot::Nothing => unreachable!("a zero-sized local has no address"),
        };
        while let Some((p, rest)) = proj.split_first() {
            proj = rest;
            match (p, ty.clone()) {
                (Proj::Index { index, .. }, Ty::Array(..)) => {
                    let idx = self.expr(index).expect("usize index").into_int_value();
                    let (len, next) = self.index_bound(&ty, Slot::Nothing);
                    if let Some(site) = self.checked_site(p) {
                        self.check_in_bounds(site, idx, len);
                    }
                    let arr_t = value_type(self.ctx, &ty).expect("arrays have storage");
                    align = align.min(low_bit(crate::ty::size_align(&next).map_or(1, |(s, _)| s)));
                    ptr = unsafe {
                        ok!(self.b.build_in_bounds_gep(
                            arr_t,
                            ptr,
                            &[i64t.const_zero(), idx],
                            "elem"
                        ))
                    };
                    ty = next;
                }
                (Proj::Index { index, .. }, Ty::Shared { elem, dims }) => {
                    let idx = self.expr(index).expect("usize index").into_int_value();
                    let (len, next) = self.index_bound(&ty, Slot::Nothing);
                    if let Some(site) = self.checked_site(p) {
                        self.check_in_bounds(site, idx, len);
                    }
                    let arr_t = shared_global_type(self.ctx, &elem, &dims);
                    align = align.min(low_bit(crate::ty::size_align(&next).map_or(1, |(s, _)| s)));
                    ptr = unsafe {
                        ok!(self.b.build_in_bounds_gep(
                            arr_t,
                            ptr,
                            &[i64t.const_zero(), idx],
                            "elem"
                        ))
                    };
                    ty = next;
                }
                (Proj::Field(i), Ty::Tuple(ts)) => {
                    let t = value_type(self.ctx, &ty).expect("tuples have storage");
                    let field = ts[..*i as usize]
                        .iter()
                        .filter(|t| value_type(self.ctx, t).is_some())
                        .count();
                    ptr = ok!(self.b.build_struct_gep(t, ptr, field as u32, "field"));
                    ty = ts[*i as usize].clone();
                }
                (Proj::Field(i), Ty::Struct(d)) => {
                    let t = value_type(self.ctx, &ty).expect("structs have storage");
                    let offset = crate::ty::struct_layout(&d).map_or(1, |l| l.offsets[*i as usize]);
                    align = align.min(low_bit(offset));
                    ptr = ok!(self.b.build_struct_gep(t, ptr, *i, "field"));
                    ty = d.fields[*i as usize].1.clone();
                }
                (Proj::Field(i), Ty::Dim3) => {
                    let t = value_type(self.ctx, &ty).expect("Dim3 has storage");
                    ptr = ok!(self.b.build_struct_gep(t, ptr, *i, "field"));
                    ty = Ty::U32;
                }
                (p, t) => unreachable!("projection {p:?} on {t}"),
            }
        }
        (ptr, align)
    }

    /// The site of an index projection, unless its check is elided (see `passes`).
    pub(crate) fn checked_site(&self, proj: &Proj) -> Option<u32> {
        match proj {
            Proj::Index { site: Some(s), .. } if !self.is_elided(*s) => Some(*s),
            _ => None,
        }
    }

    /// Whether an IR pass elided the check of `site`.
    pub(crate) fn is_elided(&self, site: u32) -> bool {
        self.sites
            .get(site as usize)
            .is_some_and(|s| s.elided.is_some())
    }

    /// Whether a place is in global or shared memory (a slice or a shared array), not a
    /// local; there `bool` is a byte.
    pub(crate) fn in_device_memory(&self, place: &Place) -> bool {
        matches!(
            self.ir.locals[place.base].ty,
            Ty::Slice { .. } | Ty::Shared { .. }
        )
    }

    /// What an index into a value of type `ty` is checked against, and the type of what it
    /// selects (`slot` holds a slice's length; other types do not need it).
    pub(crate) fn index_bound(&mut self, ty: &Ty, slot: Slot<'ctx>) -> (IntValue<'ctx>, Ty) {
        let i64t = self.ctx.i64_type();
        match (ty, slot) {
            (Ty::Slice { elem, .. }, Slot::Slice { len, .. }) => (len, (**elem).clone()),
            (Ty::Shared { elem, dims }, _) if dims.is_empty() => {
                (self.dynamic_shared_len(elem), (**elem).clone())
            }
            (Ty::Shared { elem, dims }, _) => {
                let next = if dims.len() > 1 {
                    Ty::Shared {
                        elem: elem.clone(),
                        dims: dims[1..].to_vec(),
                    }
                } else {
                    (**elem).clone()
                };
                (i64t.const_int(dims[0], false), next)
            }
            (Ty::Array(elem, n), _) => (i64t.const_int(*n, false), (**elem).clone()),
            (t, _) => unreachable!("an index into {t}"),
        }
    }

    /// Loads the value of a place.
    pub(crate) fn read(&mut self, place: &Place) -> Option<BasicValueEnum<'ctx>> {
        let t = value_type(self.ctx, &place.ty)?;
        let (ptr, align) = self.place_ptr_aligned(place);
        if self.in_device_memory(place) {
            return Some(self.load_memory(ptr, &place.ty, align));
        }
        Some(ok!(self.b.build_load(t, ptr, "load")))
    }

    /// Stores a value into a place.
    pub(crate) fn write(&mut self, place: &Place, v: BasicValueEnum<'ctx>) {
        let (ptr, align) = self.place_ptr_aligned(place);
        if self.in_device_memory(place) {
            self.store_memory(ptr, &place.ty, v, align);
        } else {
            ok!(self.b.build_store(ptr, v));
        }
    }

    /// Loads a scalar from memory (`bool` is a byte in device memory and `i1` in locals; both
    /// are read as `i8` and compared, which is correct for either).
    pub(crate) fn load_scalar(&mut self, ptr: PointerValue<'ctx>, ty: &Ty) -> BasicValueEnum<'ctx> {
        let Ty::Scalar(s) = ty else {
            let t = value_type(self.ctx, ty).expect("sized");
            return ok!(self.b.build_load(t, ptr, "load"));
        };
        self.load_scalar_aligned(ptr, *s, s.bytes() as u64)
    }

    /// Loads scalar `s` from memory aligned to `align` (as [`load_scalar`](Self::load_scalar)).
    fn load_scalar_aligned(
        &mut self,
        ptr: PointerValue<'ctx>,
        s: Scalar,
        align: u64,
    ) -> BasicValueEnum<'ctx> {
        let mem_t = super::memory_scalar_type(self.ctx, s);
        let v = ok!(self.b.build_load(mem_t, ptr, "load"));
        if let Some(inst) = v.as_instruction_value() {
            let _ = inst.set_alignment(align.min(16) as u32);
        }
        if s == Scalar::Bool {
            let zero = self.ctx.i8_type().const_zero();
            return ok!(self.b.build_int_compare(
                IntPredicate::NE,
                v.into_int_value(),
                zero,
                "bool"
            ))
            .into();
        }
        v
    }

    /// Stores a scalar to memory (`bool` as a byte).
    pub(crate) fn store_scalar(
        &mut self,
        ptr: PointerValue<'ctx>,
        ty: &Ty,
        v: BasicValueEnum<'ctx>,
    ) -> inkwell::values::InstructionValue<'ctx> {
        let v = match ty {
            Ty::Scalar(Scalar::Bool) => {
                ok!(self
                    .b
                    .build_int_z_extend(v.into_int_value(), self.ctx.i8_type(), "byte"))
                .into()
            }
            _ => v,
        };
        let st = ok!(self.b.build_store(ptr, v));
        if let Ty::Scalar(s) = ty {
            let _ = st.set_alignment(s.bytes());
        }
        st
    }

    /// Loads a value of type `ty` from device memory at `ptr`, known to be aligned to
    /// `align`: scalar by scalar (a `bool` is a byte there), each load marked with the
    /// alignment its offset keeps, so that LLVM joins neighbours into vector loads.
    pub(crate) fn load_memory(
        &mut self,
        ptr: PointerValue<'ctx>,
        ty: &Ty,
        align: u64,
    ) -> BasicValueEnum<'ctx> {
        match ty {
            Ty::Scalar(s) => self.load_scalar_aligned(ptr, *s, align.max(s.bytes() as u64)),
            // Its `repr` integer, whatever the bits: every operation on an enum value is
            // defined for every integer (comparisons and casts are the integer's, and a
            // `match` is a chain of tests whose last arm is not tested), so memory that holds
            // no variant (written through an integer view) is never undefined behaviour.
            Ty::Enum(d) => self.load_scalar_aligned(ptr, d.repr, align.max(d.repr.bytes() as u64)),
            Ty::Array(..) | Ty::Struct(_) => {
                let t = value_type(self.ctx, ty).expect("elements have storage");
                let mut agg = t.const_zero();
                for (k, (at, part_ty, offset)) in self.parts(ptr, ty).into_iter().enumerate() {
                    let part = self.load_memory(at, &part_ty, align.min(low_bit(offset)));
                    agg = match agg {
                        BasicValueEnum::ArrayValue(a) => {
                            ok!(self.b.build_insert_value(a, part, k as u32, "elem"))
                                .as_basic_value_enum()
                        }
                        BasicValueEnum::StructValue(s) => {
                            ok!(self.b.build_insert_value(s, part, k as u32, "field"))
                                .as_basic_value_enum()
                        }
                        _ => unreachable!("aggregates are arrays or structs"),
                    };
                }
                agg
            }
            t => unreachable!("a {t} in device memory"),
        }
    }

    /// Stores `v` of type `ty` into device memory at `ptr` (as [`load_memory`](Self::load_memory)).
    pub(crate) fn store_memory(
        &mut self,
        ptr: PointerValue<'ctx>,
        ty: &Ty,
        v: BasicValueEnum<'ctx>,
        align: u64,
    ) {
        match ty {
            Ty::Scalar(s) => {
                let st = self.store_scalar(ptr, ty, v);
                let _ = st.set_alignment(align.max(s.bytes() as u64).min(16) as u32);
            }
            Ty::Enum(d) => {
                let st = self.store_scalar(ptr, &Ty::Scalar(d.repr), v);
                let _ = st.set_alignment(align.max(d.repr.bytes() as u64).min(16) as u32);
            }
            Ty::Array(..) | Ty::Struct(_) => {
                for (k, (at, part_ty, offset)) in self.parts(ptr, ty).into_iter().enumerate() {
                    let part = match v {
                        BasicValueEnum::ArrayValue(a) => {
                            ok!(self.b.build_extract_value(a, k as u32, "elem"))
                        }
                        BasicValueEnum::StructValue(s) => {
                            ok!(self.b.build_extract_value(s, k as u32, "field"))
                        }
                        _ => unreachable!("aggregates are arrays or structs"),
                    };
                    self.store_memory(at, &part_ty, part, align.min(low_bit(offset)));
                }
            }
            t => unreachable!("a {t} in device memory"),
        }
    }

    /// The parts of an array or struct at `ptr`: each element's or field's address, type and
    /// byte offset.
    fn parts(&mut self, ptr: PointerValue<'ctx>, ty: &Ty) -> Vec<(PointerValue<'ctx>, Ty, u64)> {
        let t = super::memory_type(self.ctx, ty);
        let i64t = self.ctx.i64_type();
        match ty {
            Ty::Array(elem, n) => {
                let size = crate::ty::size_align(elem).map_or(0, |(s, _)| s);
                (0..*n)
                    .map(|k| {
                        let at = unsafe {
                            ok!(self.b.build_in_bounds_gep(
                                t,
                                ptr,
                                &[i64t.const_zero(), i64t.const_int(k, false)],
                                "elem"
                            ))
                        };
                        (at, (**elem).clone(), k * size)
                    })
                    .collect()
            }
            Ty::Struct(d) => {
                let layout = crate::ty::struct_layout(d).expect("structs have a layout");
                d.fields
                    .iter()
                    .enumerate()
                    .map(|(k, (_, ft))| {
                        let at = ok!(self.b.build_struct_gep(t, ptr, k as u32, "field"));
                        (at, ft.clone(), layout.offsets[k])
                    })
                    .collect()
            }
            t => unreachable!("parts of a {t}"),
        }
    }

    /// The length of a slice or dynamic shared array, as `usize`.
    pub(crate) fn len(&mut self, place: &Place) -> IntValue<'ctx> {
        match (self.slot(place.base), &self.ir.locals[place.base].ty) {
            (Slot::Slice { len, .. }, _) => len,
            (Slot::Shared(_), Ty::Shared { elem, dims }) if dims.is_empty() => {
                self.dynamic_shared_len(&elem.clone())
            }
            _ => unreachable!("len of a sized array is a constant"),
        }
    }

    /// Elements of `elem` that fit in the launch's dynamic shared memory.
    pub(crate) fn dynamic_shared_len(&mut self, elem: &Ty) -> IntValue<'ctx> {
        let f = super::builtin::intrinsic(
            self.module,
            "llvm.nvvm.read.ptx.sreg.dynamic_smem_size",
            &[],
        );
        let bytes = ok!(self.b.build_call(f, &[], "dyn_smem"))
            .try_as_basic_value()
            .basic()
            .expect("value")
            .into_int_value();
        let bytes = ok!(self
            .b
            .build_int_z_extend(bytes, self.ctx.i64_type(), "dyn_smem64"));
        let bytes_per = crate::ty::size_align(elem).map_or(1, |(s, _)| s.max(1));
        let size = self.ctx.i64_type().const_int(bytes_per, false);
        ok!(self.b.build_int_unsigned_div(bytes, size, "dyn_len"))
    }

    /// Stops the thread at check `site` unless `idx < len`.
    pub(crate) fn check_in_bounds(&mut self, site: u32, idx: IntValue<'ctx>, len: IntValue<'ctx>) {
        let bad = ok!(self.b.build_int_compare(IntPredicate::UGE, idx, len, "oob"));
        self.check(bad, site, idx, len);
    }

    /// Branches to the panic path when `bad` holds.
    pub(crate) fn check(
        &mut self,
        bad: IntValue<'ctx>,
        site: u32,
        index: IntValue<'ctx>,
        len: IntValue<'ctx>,
    ) {
        let (Some(panic_fn), Some(record)) = (self.panic_fn, self.panic_arg) else {
            return;
        };
        let fail = self.block_named("check_fail");
        let pass = self.block_named("check_ok");
        let br = ok!(self.b.build_conditional_branch(bad, fail, pass));
        let i32t = self.ctx.i32_type();
        let weights = self.ctx.metadata_node(&[
            self.ctx.metadata_string("branch_weights").into(),
            i32t.const_int(1, false).into(),
            i32t.const_int(1 << 20, false).into(),
        ]);
        let _ = br.set_metadata(weights, self.ctx.get_kind_id("prof"));
        self.b.position_at_end(fail);
        let i64t = self.ctx.i64_type();
        let widen = |v: IntValue<'ctx>| -> IntValue<'ctx> {
            if v.get_type().get_bit_width() == 64 {
                v
            } else {
                ok!(self.b.build_int_z_extend(v, i64t, "widen"))
            }
        };
        let (index, len) = (widen(index), widen(len));
        let args = [
            record.into(),
            i32t.const_int(site as u64, false).into(),
            index.into(),
            len.into(),
        ];
        ok!(self.b.build_call(panic_fn, &args, ""));
        ok!(self.b.build_unreachable());
        self.b.position_at_end(pass);
    }
}

/// The largest power of two dividing `offset` (any alignment for offset 0).
fn low_bit(offset: u64) -> u64 {
    if offset == 0 {
        u64::MAX
    } else {
        1 << offset.trailing_zeros()
    }
}
