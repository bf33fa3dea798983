//! The kernel parameter space: a kernel whose parameters take more bytes than its PTX target
//! allows is a compile error naming the limit, and a kernel at the limit compiles and
//! assembles (ptxas is the judge of the limit and of the layout the check counts).

use super::common;

use cuprum_codegen::sass::{assemble, parse_archs};
use cuprum_codegen::{param_space, toolkit, KernelOptions, Target};

fn ptxas() -> Option<std::path::PathBuf> {
    let found = toolkit::ptxas();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "ptxas is required under CI (scripts/setup.sh installs it)"
        );
        eprintln!("skipped: ptxas not found (pip install nvidia-cuda-nvcc-cu12)");
    }
    found
}

/// A kernel taking `out: &mut [u64]` and `n` scalars of type `ty`; it stores the first and
/// the last (so that the whole parameter space is read).
fn wide(n: usize, ty: &str) -> String {
    let params: Vec<String> = (0..n).map(|i| format!("p{i}: {ty}")).collect();
    format!(
        "fn wide(out: &mut [u64], {}) {{ out[0] = p0 as u64; out[1] = p{} as u64; }}",
        params.join(", "),
        n - 1
    )
}

#[test]
fn a_kernel_at_the_limit_compiles_and_one_byte_more_is_an_error() {
    let limit = param_space::limit(&Target::default_target());
    assert_eq!(limit, 4352);
    // out (16 bytes) + n u64 + the hidden record pointer (8) = the limit.
    let n = (limit as usize - 16 - 8) / 8;
    let k = common::compile(&wide(n, "u64"));
    assert_eq!(
        param_space::bytes(&k.program, &KernelOptions::default()),
        limit
    );
    if let Some(ptxas) = ptxas() {
        for arch in parse_archs("sm_80,sm_90").unwrap() {
            assemble(&k.ptx, &arch, &ptxas)
                .unwrap_or_else(|e| panic!("ptxas rejects a kernel at the limit: {e}"));
        }
    }
    let errors = common::errors(&wide(n + 1, "u64"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains(&format!("take {} bytes", limit + 8)) && errors[0].contains("4352"),
        "{errors:?}"
    );
}

#[test]
fn unchecked_kernels_have_no_hidden_parameter_and_small_scalars_are_aligned() {
    let unchecked = KernelOptions {
        checked: false,
        ..KernelOptions::default()
    };
    // 16 + 8 × 542 = 4352: fits without the hidden parameter.
    let k = common::compile_with(&wide(542, "u64"), &unchecked).unwrap();
    assert_eq!(param_space::bytes(&k.program, &unchecked), 4352);
    // Each `u8` takes one byte, then the slice's pointer is aligned to 8.
    let src = "fn mixed(a: u8, b: bool, out: &mut [u64], c: u16, d: u64) { out[0] = a as u64 + c as u64 + d; if b { out[1] = 1; } }";
    let k = common::compile_with(src, &unchecked).unwrap();
    // a@0, b@1, out@8..24, c@24, d@32..40.
    assert_eq!(param_space::bytes(&k.program, &unchecked), 40);
    if let Some(ptxas) = ptxas() {
        let arch = &parse_archs("sm_80").unwrap()[0];
        assemble(&k.ptx, arch, &ptxas).unwrap();
        let at_limit = common::compile_with(&wide(542, "u64"), &unchecked).unwrap();
        assemble(&at_limit.ptx, arch, &ptxas)
            .unwrap_or_else(|e| panic!("ptxas rejects a kernel at the limit: {e}"));
    }
    assert!(common::compile_with(&wide(543, "u64"), &unchecked).is_err());
}

/// A versioned kernel's flag is a parameter too: one at the limit without it keeps the
/// checked body alone (no flag, no fast copy) rather than failing to compile; with room, the
/// flag is counted (4 bytes, aligned before the record pointer).
#[test]
fn the_versioning_flag_is_counted_and_dropped_when_there_is_no_room() {
    let limit = param_space::limit(&Target::default_target());
    // `out[i] = a[i]` under `i < out.len()` is versioned on `len(out) <= len(a)`.
    let versioned = |n: usize| {
        let params: Vec<String> = (0..n).map(|i| format!("p{i}: u64")).collect();
        format!(
            "fn copy(out: &mut [u64], a: &[u64], {}) {{
                let i = gpu::global_id_x();
                if i < out.len() {{ out[i] = a[i] + p0 + p{}; }}
            }}",
            params.join(", "),
            n - 1
        )
    };
    let options = KernelOptions::default();
    // Two slices (32 bytes) + n u64 + the record pointer (8) = the limit: no room for the flag.
    let n = (limit as usize - 32 - 8) / 8;
    let k = common::compile(&versioned(n));
    assert!(k.program.host_test.is_none());
    assert!(!k.ptx.contains(".param .u32"));
    assert_eq!(param_space::bytes(&k.program, &options), limit);
    // One scalar fewer: the flag fits (4 bytes, padded to the pointer's 8).
    let k = common::compile(&versioned(n - 1));
    assert!(k.program.host_test.is_some());
    assert!(k.ptx.contains(".param .u32"));
    assert_eq!(param_space::bytes(&k.program, &options), limit);
    if let Some(ptxas) = ptxas() {
        for arch in parse_archs("sm_80,sm_90").unwrap() {
            assemble(&k.ptx, &arch, &ptxas)
                .unwrap_or_else(|e| panic!("ptxas rejects a kernel at the limit: {e}"));
        }
    }
}
