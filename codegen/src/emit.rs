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

/// Registers the NVPTX target and sets the two LLVM options this compiler changes:
///
/// - `-nvptx-short-ptr`: shared, local and constant pointers are 32 bits wide (the NVPTX data
///   layout gains `p3:32:32-p4:32:32-p5:32:32`), as nvcc's are. Those windows are smaller
///   than 4 GiB, so the addresses fit; loop strength reduction then counts a shared tile's
///   byte offset in 32 bits instead of 64 (bench/NOTES.md §22), and PTX addresses them with
///   32-bit registers. Generic pointers stay 64 bits: an `addrspacecast` from shared to
///   generic widens (`cvt.u64.u32` + `cvta.shared.u64`).
/// - `-unroll-partial-threshold=70`: the size budget of partial and runtime unrolling, 75
///   for NVPTX (a quarter of O3's full-unroll threshold). With 32-bit shared addresses the
///   histogram's grid-stride loop (a byte load and a shared atomic per element) fit 8 copies
///   in 75 where it had been unrolled 4×, and ptxas, holding it to 32 registers, then kept
///   three loads in flight instead of four: 6% slower on the H200. At 70 it is unrolled 4×
///   again (as on main), and no other bench kernel's PTX changes. (`-unroll-max-count=4`
///   did the same for the histogram but also stopped the 8× unrolling that lets SROA keep
///   small local arrays in registers: bench/NOTES.md, branch `nbody`.)
///
/// LLVM's options are global to its copy in this process (linked statically, so not
/// rustc's) and may be parsed only once; they are read when a target machine or a pass
/// pipeline is created, so they are set before the first one.
fn init_nvptx() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        LlvmTarget::initialize_nvptx(&InitializationConfig::default());
        let args = [
            c"cuprum".as_ptr(),
            c"-nvptx-short-ptr".as_ptr(),
            c"-unroll-partial-threshold=70".as_ptr(),
        ];
        // SAFETY: valid NUL-terminated strings that live for the whole call; LLVM copies
        // what it keeps. Called once per process (the `Once`), before any target machine.
        unsafe { LLVMParseCommandLineOptions(args.len() as _, args.as_ptr(), c"".as_ptr()) };
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

    /// An sm_80 target machine, as the build makes them (after `init_nvptx`).
    fn sm80_machine() -> inkwell::targets::TargetMachine {
        init_nvptx();
        let triple = TargetTriple::create(TRIPLE);
        LlvmTarget::from_triple(&triple)
            .unwrap()
            .create_target_machine(
                &triple,
                "sm_80",
                "",
                OptimizationLevel::None,
                RelocMode::Default,
                CodeModel::Default,
            )
            .unwrap()
    }

    /// `-nvptx-short-ptr` took: shared (3), constant (4) and local (5) pointers are 32 bits,
    /// global and generic ones 64.
    #[test]
    fn shared_local_and_constant_pointers_are_32_bits() {
        let tm = sm80_machine();
        let layout = tm.get_target_data().get_data_layout();
        let layout = layout.as_str().to_str().unwrap();
        for space in ["p3:32:32", "p4:32:32", "p5:32:32"] {
            assert!(layout.contains(space), "{layout}");
        }
        assert!(
            !layout.contains("p:32") && !layout.contains("p1:32"),
            "{layout}"
        );
    }

    /// The struct layout the checker and the host assertions use is the one LLVM's NVPTX data
    /// layout gives the struct types the lowering makes.
    #[test]
    fn struct_layout_is_llvms() {
        let tm = sm80_machine();
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
