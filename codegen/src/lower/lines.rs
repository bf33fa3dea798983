//! Source lines in the PTX: a compile unit of kind `DebugDirectivesOnly`, a subprogram per
//! function and a location per expression, so that NVPTX emits `.file`/`.loc` (which
//! compute-sanitizer and Nsight Compute show as `src/lib.rs:42`) and nothing else: no DWARF
//! sections and no `.target .., debug`, which would make the driver compile the PTX for a
//! debugger, unoptimised. (`LineTablesOnly`, the kind LLVM's C API offers, does both; clang's
//! `-gline-directives-only` is this kind.)
//!
//! File names are the paths rustc gives the spans (`Span::file`, relative to the workspace for
//! the user's own crates), so PTX does not depend on the machine it was built on.

use std::collections::HashMap;
use std::ffi::{c_char, c_uint, c_void};

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{FlagBehavior, Module};
use inkwell::values::{AsValueRef, FunctionValue};
use proc_macro2::Span;

type Ref = *mut c_void;

/// `llvm::DICompileUnit::DebugDirectivesOnly`, missing from LLVM-C's `LLVMDWARFEmissionKind`;
/// `LLVMDIBuilderCreateCompileUnit` casts the integer to the C++ enum.
const DEBUG_DIRECTIVES_ONLY: c_uint = 3;
/// `LLVMDWARFSourceLanguageRust`'s DWARF code.
const DW_LANG_RUST: c_uint = 0x1c;

// LLVM-C's debug-info functions, declared here with `c_uint` for the emission kind (the C
// enum's ABI type) so that the kind LLVM-C does not name can be passed. The library is the
// one inkwell links.
extern "C" {
    fn LLVMCreateDIBuilder(module: Ref) -> Ref;
    fn LLVMDisposeDIBuilder(builder: Ref);
    fn LLVMDIBuilderFinalize(builder: Ref);
    fn LLVMDIBuilderCreateFile(
        builder: Ref,
        filename: *const c_char,
        filename_len: usize,
        directory: *const c_char,
        directory_len: usize,
    ) -> Ref;
    fn LLVMDIBuilderCreateCompileUnit(
        builder: Ref,
        lang: c_uint,
        file: Ref,
        producer: *const c_char,
        producer_len: usize,
        is_optimized: i32,
        flags: *const c_char,
        flags_len: usize,
        runtime_ver: c_uint,
        split_name: *const c_char,
        split_name_len: usize,
        kind: c_uint,
        dwo_id: c_uint,
        split_debug_inlining: i32,
        debug_info_for_profiling: i32,
        sys_root: *const c_char,
        sys_root_len: usize,
        sdk: *const c_char,
        sdk_len: usize,
    ) -> Ref;
    fn LLVMDIBuilderCreateSubroutineType(
        builder: Ref,
        file: Ref,
        parameter_types: *mut Ref,
        num_parameter_types: c_uint,
        flags: c_uint,
    ) -> Ref;
    fn LLVMDIBuilderCreateFunction(
        builder: Ref,
        scope: Ref,
        name: *const c_char,
        name_len: usize,
        linkage_name: *const c_char,
        linkage_name_len: usize,
        file: Ref,
        line_no: c_uint,
        ty: Ref,
        is_local_to_unit: i32,
        is_definition: i32,
        scope_line: c_uint,
        flags: c_uint,
        is_optimized: i32,
    ) -> Ref;
    fn LLVMSetSubprogram(func: Ref, subprogram: Ref);
    fn LLVMDIBuilderCreateDebugLocation(
        ctx: Ref,
        line: c_uint,
        column: c_uint,
        scope: Ref,
        inlined_at: Ref,
    ) -> Ref;
    fn LLVMSetCurrentDebugLocation2(builder: Ref, loc: Ref);
}

/// The debug-info builder of one module.
pub(crate) struct LineInfo {
    builder: Ref,
    unit: Ref,
    files: HashMap<String, Ref>,
    ty: Ref,
}

/// The file and 1-based line and column of a span (line 0 when the span has none).
fn position(span: Span) -> (String, u32, u32) {
    let start = span.start();
    (file_name(span), start.line as u32, start.column as u32 + 1)
}

/// The path rustc shows for the span's file; `<source>` for code that is in no file (parsed
/// from a string in tests, which would otherwise be numbered differently each time).
fn file_name(span: Span) -> String {
    match span.local_file() {
        Some(_) => span.file(),
        None => "<source>".into(),
    }
}

impl LineInfo {
    /// Starts line information for `module`, whose compile unit is the file of `span`.
    pub(crate) fn new(module: &Module<'_>, span: Span) -> LineInfo {
        module.add_basic_value_flag(
            "Debug Info Version",
            FlagBehavior::Warning,
            module
                .get_context()
                .i32_type()
                .const_int(inkwell::debug_info::debug_metadata_version() as u64, false),
        );
        // SAFETY: the module outlives the builder (`finish` disposes of it first); every
        // string is passed with its length.
        unsafe {
            let builder = LLVMCreateDIBuilder(module.as_mut_ptr().cast());
            let mut info = LineInfo {
                builder,
                unit: std::ptr::null_mut(),
                files: HashMap::new(),
                ty: std::ptr::null_mut(),
            };
            let file = info.file(&file_name(span));
            let producer = "cuprum";
            info.unit = LLVMDIBuilderCreateCompileUnit(
                builder,
                DW_LANG_RUST,
                file,
                producer.as_ptr().cast(),
                producer.len(),
                1,
                std::ptr::null(),
                0,
                0,
                std::ptr::null(),
                0,
                DEBUG_DIRECTIVES_ONLY,
                0,
                0,
                0,
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
            );
            info.ty = LLVMDIBuilderCreateSubroutineType(builder, file, std::ptr::null_mut(), 0, 0);
            info
        }
    }

    fn file(&mut self, name: &str) -> Ref {
        if let Some(f) = self.files.get(name) {
            return *f;
        }
        // SAFETY: the builder is live; the strings are passed with their lengths.
        let f = unsafe {
            LLVMDIBuilderCreateFile(
                self.builder,
                name.as_ptr().cast(),
                name.len(),
                std::ptr::null(),
                0,
            )
        };
        self.files.insert(name.to_string(), f);
        f
    }

    /// Gives `func` (defined at `span`) a subprogram; returns it, the scope of its locations.
    pub(crate) fn function(&mut self, func: FunctionValue<'_>, span: Span) -> Ref {
        let (file, line, _) = position(span);
        let file = self.file(&file);
        let name = func.get_name().to_string_lossy().into_owned();
        // SAFETY: the builder, unit, file and type are live metadata of this module.
        unsafe {
            let sp = LLVMDIBuilderCreateFunction(
                self.builder,
                file,
                name.as_ptr().cast(),
                name.len(),
                name.as_ptr().cast(),
                name.len(),
                file,
                line,
                self.ty,
                0,
                1,
                line,
                0,
                1,
            );
            LLVMSetSubprogram(func.as_value_ref().cast(), sp);
            sp
        }
    }

    /// Ends line information: the builder resolves what it created.
    pub(crate) fn finish(self) {
        // SAFETY: finalized once, then disposed of; nothing uses the builder after.
        unsafe {
            LLVMDIBuilderFinalize(self.builder);
            LLVMDisposeDIBuilder(self.builder);
        }
    }
}

/// Makes the instructions `b` builds from now on carry `span`'s line and column in `scope`.
pub(crate) fn set_location(ctx: &Context, b: &Builder<'_>, scope: Ref, span: Span) {
    let (_, line, column) = position(span);
    // SAFETY: `scope` is a subprogram of the module `b` builds into; the location is
    // uniqued metadata of `ctx`.
    unsafe {
        let loc = LLVMDIBuilderCreateDebugLocation(
            ctx.raw().cast(),
            line,
            column,
            scope,
            std::ptr::null_mut(),
        );
        LLVMSetCurrentDebugLocation2(b.as_mut_ptr().cast(), loc);
    }
}
