//! `emit`: an LLVM module → optimised → PTX text, through LLVM's NVPTX backend.

use std::sync::Once;

use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target as LlvmTarget, TargetTriple,
};
use inkwell::OptimizationLevel;

use crate::target::Target;

/// The NVPTX triple for 64-bit addressing.
pub const TRIPLE: &str = "nvptx64-nvidia-cuda";

extern "C" {
    /// LLVM's C API (`llvm-c/Support.h`), linked with the rest of LLVM through inkwell.
    fn LLVMParseCommandLineOptions(
        argc: std::ffi::c_int,
        argv: *const *const std::ffi::c_char,
        overview: *const std::ffi::c_char,
    );
}

/// Registers the NVPTX target and sets LLVM's one option this compiler changes,
/// `-nvptx-short-ptr`: shared, local and constant pointers are 32 bits wide (the NVPTX data
/// layout gains `p3:32:32-p4:32:32-p5:32:32`), as nvcc's are. Those windows are smaller than
/// 4 GiB, so the addresses fit; loop strength reduction then counts a shared tile's byte
/// offset in 32 bits instead of 64 (bench/NOTES.md §22), and PTX addresses them with
/// `ld.shared.u32`-width registers. Generic pointers stay 64 bits: an `addrspacecast` from
/// shared to generic widens (`cvt.u64.u32` + `cvta.shared.u64`). LLVM's options are global to
/// its copy in this process (linked statically, so not rustc's) and may be parsed only once;
/// the option is read when a target machine is created, so it is set before the first one.
fn init_nvptx() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        LlvmTarget::initialize_nvptx(&InitializationConfig::default());
        let args = [c"cuprum".as_ptr(), c"-nvptx-short-ptr".as_ptr()];
        // SAFETY: two valid NUL-terminated strings that live for the whole call; LLVM copies
        // what it keeps. Called once per process (the `Once`), before any target machine.
        unsafe { LLVMParseCommandLineOptions(2, args.as_ptr(), c"".as_ptr()) };
    });
}

/// Verifies, optimises (`default<O3>`) and prints a module as PTX for `target`, its loops'
/// latches in the form ptxas unrolls ([`crate::latch`]).
/// Errors here are internal compiler errors, reported with LLVM's message.
pub fn emit_ptx(module: &Module, target: &Target) -> Result<String, String> {
    init_nvptx();
    let triple = TargetTriple::create(TRIPLE);
    let llvm_target = LlvmTarget::from_triple(&triple).map_err(|e| e.to_string())?;
    let tm = llvm_target
        .create_target_machine(
            &triple,
            &target.sm,
            &target.features(),
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| format!("LLVM cannot create a target machine for {target}"))?;
    module.set_triple(&triple);
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    module
        .verify()
        .map_err(|e| format!("invalid LLVM IR: {e}"))?;
    module
        .run_passes("default<O3>", &tm, PassBuilderOptions::create())
        .map_err(|e| format!("LLVM optimisation failed: {e}"))?;
    let buf = tm
        .write_to_memory_buffer(module, FileType::Assembly)
        .map_err(|e| format!("PTX emission failed: {e}"))?;
    let ptx =
        String::from_utf8(buf.as_slice().to_vec()).map_err(|e| format!("PTX is not UTF-8: {e}"))?;
    Ok(crate::latch::rewrite(&ptx))
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use inkwell::context::Context;

    use super::*;
    use crate::ty::{struct_layout, Scalar, StructDef, Ty};

    /// The struct layout the checker and the host assertions use is the one LLVM's NVPTX data
    /// layout gives the struct types the lowering makes.
    #[test]
    fn struct_layout_is_llvms() {
        init_nvptx();
        let triple = TargetTriple::create(TRIPLE);
        let tm = LlvmTarget::from_triple(&triple)
            .unwrap()
            .create_target_machine(
                &triple,
                "sm_80",
                "",
                OptimizationLevel::None,
                RelocMode::Default,
                CodeModel::Default,
            )
            .unwrap();
        let data = tm.get_target_data();
        let ctx = Context::create();
        let s = |x| Ty::Scalar(x);
        let inner = Ty::Struct(Rc::new(StructDef {
            name: "Inner".into(),
            fields: vec![("a".into(), s(Scalar::U8)), ("b".into(), s(Scalar::F64))],
            tuple: false,
            align: 1,
        }));
        let defs = [
            vec![s(Scalar::F32), s(Scalar::F64), s(Scalar::U8)],
            vec![
                Ty::Array(Box::new(s(Scalar::F32)), 3),
                s(Scalar::I64),
                s(Scalar::Bool),
            ],
            vec![s(Scalar::U16), inner, Ty::Array(Box::new(s(Scalar::U8)), 5)],
            vec![
                s(Scalar::Bool),
                s(Scalar::I16),
                s(Scalar::U32),
                s(Scalar::Usize),
            ],
        ];
        for fields in defs {
            let def = StructDef {
                name: "S".into(),
                fields: fields.into_iter().map(|t| (String::new(), t)).collect(),
                tuple: false,
                align: 1,
            };
            let ty = Ty::Struct(Rc::new(def.clone()));
            let llvm = crate::lower::value_type(&ctx, &ty)
                .unwrap()
                .into_struct_type();
            let ours = struct_layout(&def).unwrap();
            assert_eq!(ours.size, data.get_abi_size(&llvm), "{def:?}");
            assert_eq!(ours.align, data.get_abi_alignment(&llvm) as u64, "{def:?}");
            for (k, o) in ours.offsets.iter().enumerate() {
                assert_eq!(Some(*o), data.offset_of_element(&llvm, k as u32), "{def:?}");
            }
        }
    }
}
