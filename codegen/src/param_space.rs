//! The kernel parameter space: PTX limits the bytes of a kernel's parameters, and a kernel
//! past the limit would fail only when the driver compiles it, at its first launch ("a PTX JIT
//! compilation failed"). Checked here instead, as a compile error that names the limit.

use crate::ir::Program;
use crate::options::KernelOptions;
use crate::target::Target;
use crate::ty::Ty;

/// The bytes of parameters a kernel may take: 4352 below PTX ISA 8.1, 32764 from 8.1 on
/// (ptxas: "uses too much parameter space (.., 0x1100 max)" and "0x7ffc max").
pub fn limit(target: &Target) -> u64 {
    if target.ptx >= 81 {
        32764
    } else {
        4352
    }
}

/// The bytes of the kernel's `.param` space as the lowering declares it: a slice is a
/// pointer and a `u64` length, a scalar its own size (`bool` one byte), each aligned to its
/// size, then the versioning flag (a `u32`) and the checked kernels' panic-record pointer.
pub fn bytes(program: &Program, options: &KernelOptions) -> u64 {
    let f = &program.kernel;
    let mut sizes: Vec<u64> = Vec::new();
    for &p in &f.params {
        match &f.locals[p].ty {
            Ty::Slice { .. } => sizes.extend([8, 8]),
            Ty::Scalar(s) => sizes.push(s.bytes() as u64),
            Ty::Enum(d) => sizes.push(d.repr.bytes() as u64),
            _ => {}
        }
    }
    if program.host_test.is_some() {
        sizes.push(4);
    }
    if options.checked {
        sizes.push(8);
    }
    sizes
        .into_iter()
        .fold(0, |at, size| at.next_multiple_of(size) + size)
}

/// A compile error at the kernel's parameters when they take more than the target allows.
pub fn check(
    item: &syn::ItemFn,
    program: &Program,
    options: &KernelOptions,
    target: &Target,
) -> Result<(), syn::Error> {
    let (bytes, limit) = (bytes(program, options), limit(target));
    if bytes <= limit {
        return Ok(());
    }
    let hidden = if options.checked {
        " (8 of them the hidden parameter that reports failed checks)"
    } else {
        ""
    };
    let isa = format!("{}.{}", target.ptx / 10, target.ptx % 10);
    let wider = if target.ptx >= 81 {
        String::new()
    } else {
        "; from PTX ISA 8.1, emitted for sm_100 and later, the limit is 32764".to_string()
    };
    Err(syn::Error::new_spanned(
        &item.sig.inputs,
        format!(
            "this kernel's parameters take {bytes} bytes{hidden}, more than the {limit} bytes PTX ISA {isa} allows (the target is {sm}{wider}); pass the values in a buffer (`&[T]`) instead",
            sm = target.sm
        ),
    ))
}
