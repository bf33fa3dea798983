//! Math through libdevice and LLVM intrinsics: the PTX calls what it should.

use super::common;

use common::{compile, compile_with, entry_body};
use cuprum_codegen::KernelOptions;

#[test]
fn transcendental_functions_link_libdevice() {
    if cuprum_codegen::Toolchain::search().libdevice.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "libdevice is required under CI (pip install nvidia-cuda-nvcc-cu12)"
        );
        eprintln!("skipped: libdevice not found");
        return;
    }
    let k = compile("fn k(o: &mut [f32], x: &[f32]) { let i = gpu::global_id_x(); if i < o.len() { o[i] = x[i].exp() + x[i].sin() * x[i].ln(); } }");
    let body = entry_body(&k.ptx, "k");
    assert!(
        !k.ptx.contains("__nv_"),
        "libdevice calls are inlined:\n{}",
        k.ptx
    );
    assert!(
        body.contains("ex2.approx") || body.contains("fma.rn"),
        "{body}"
    );
}

#[test]
fn fastmath_uses_approximate_instructions() {
    if cuprum_codegen::Toolchain::search().libdevice.is_none() {
        return;
    }
    let src = "fn k(o: &mut [f32], x: &[f32]) { let i = gpu::global_id_x(); if i < o.len() { o[i] = x[i].sin() / x[i].sqrt(); } }";
    let fast = compile_with(
        src,
        &KernelOptions {
            fastmath: true,
            ..KernelOptions::default()
        },
    )
    .unwrap();
    let body = entry_body(&fast.ptx, "k");
    assert!(body.contains("sin.approx"), "{body}");
    let precise = compile(src);
    assert!(
        !entry_body(&precise.ptx, "k").contains("sin.approx"),
        "{}",
        precise.ptx
    );
    assert!(
        entry_body(&precise.ptx, "k").contains("sqrt.rn.f32"),
        "{}",
        precise.ptx
    );
}
