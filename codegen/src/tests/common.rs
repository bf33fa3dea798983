//! Helpers for codegen tests: compile a kernel from source text.

#![allow(dead_code)]

use cuprum_codegen::{compile_kernel, CompiledKernel, KernelOptions, Target};

pub fn parse(src: &str) -> syn::ItemFn {
    syn::parse_str(src).unwrap_or_else(|e| panic!("test kernel does not parse: {e}\n{src}"))
}

pub fn compile_with(src: &str, options: &KernelOptions) -> Result<CompiledKernel, Vec<String>> {
    compile_kernel(&parse(src), options, &Target::default_target())
        .map_err(|e| e.into_iter().map(|e| e.to_string()).collect())
}

pub fn compile(src: &str) -> CompiledKernel {
    compile_with(src, &KernelOptions::default())
        .unwrap_or_else(|e| panic!("kernel failed to compile: {e:?}\n{src}"))
}

pub fn errors(src: &str) -> Vec<String> {
    match compile_with(src, &KernelOptions::default()) {
        Ok(_) => panic!("kernel compiled but should not have:\n{src}"),
        Err(e) => e,
    }
}

/// The lines of the kernel's entry (not the panic helper), for pattern checks.
pub fn entry_body(ptx: &str, name: &str) -> String {
    let start = ptx.find(&format!(".entry {name}(")).expect("entry present");
    ptx[start..].to_string()
}
