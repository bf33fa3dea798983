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

fn init_nvptx() {
    static INIT: Once = Once::new();
    INIT.call_once(|| LlvmTarget::initialize_nvptx(&InitializationConfig::default()));
}

/// Verifies, optimises (`default<O3>`) and prints a module as PTX for `target`.
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
    String::from_utf8(buf.as_slice().to_vec()).map_err(|e| format!("PTX is not UTF-8: {e}"))
}
