//! Assertions and printing in the compiler: the two builds of a kernel with
//! `debug_assert!`, what a site records, device functions called inside macro arguments.

use super::common;
use common::*;

use cuprum_codegen::ir::{CheckKind, PanicForm};
use cuprum_codegen::ty::Scalar;

#[test]
fn debug_assertions_get_a_second_build_without_them() {
    let k = compile(
        "fn k(x: &mut [i32]) { let i = gpu::global_id_x(); if i < x.len() { debug_assert!(x[i] >= 0); x[i] += 1; } }",
    );
    let release = k
        .release
        .as_ref()
        .expect("a build without debug assertions");
    assert!(k.ptx.contains("__cuprum_assert"), "{}", k.ptx);
    assert!(!release.ptx.contains("__cuprum_assert"), "{}", release.ptx);
    let plain = compile(
        "fn k(x: &mut [i32]) { let i = gpu::global_id_x(); if i < x.len() { assert!(x[i] >= 0); x[i] += 1; } }",
    );
    assert!(plain.release.is_none());
    assert!(plain.ptx.contains("__cuprum_assert"));
}

#[test]
fn an_assertion_site_records_its_values_types() {
    let k = compile(
        "fn k(a: &[u16], b: &[u16]) { let i = gpu::global_id_x(); assert_eq!(a[i], b[i], \"at {} of {n}\", i, n = a.len() as f32); }",
    );
    let site = k
        .program
        .sites
        .iter()
        .find(|s| s.kind == CheckKind::Panic)
        .expect("an assertion site");
    let m = site.message.as_ref().expect("a message");
    assert!(matches!(m.form, PanicForm::Compare(_)));
    assert_eq!(
        m.values,
        [Scalar::U16, Scalar::U16, Scalar::Usize, Scalar::F32]
    );
    let (format, names) = m.user.as_ref().expect("a user message");
    assert_eq!(format, "at {} of {n}");
    assert_eq!(names, &[None, Some("n".to_string())]);
}

#[test]
fn unchecked_kernels_with_assertions_take_the_panic_record() {
    let options = cuprum_codegen::KernelOptions {
        checked: false,
        ..Default::default()
    };
    let k = compile_with(
        "fn k(x: &[f32]) { let i = gpu::global_id_x(); assert!(x[i] > 0.0); }",
        &options,
    )
    .expect("compiles");
    assert!(k.program.records_failures(false));
    assert!(k.ptx.contains("__cuprum_assert0"), "{}", k.ptx);
    // Its index is not checked (an assertion without a message records no values).
    assert!(!k.ptx.contains("__cuprum_panic"), "{}", k.ptx);
}

#[test]
fn macro_arguments_are_searched_for_device_calls() {
    let item = parse("fn k(x: &[f32]) { gpu::println!(\"{}\", helper(x[0])); assert!(other(1) > 0, \"{}\", third(2)); }");
    let calls: Vec<String> = cuprum_codegen::device::device_calls(&item)
        .iter()
        .map(cuprum_codegen::device::path_key)
        .collect();
    assert_eq!(calls, ["helper", "other", "third"]);
}

#[test]
fn print_formats_reach_vprintf() {
    let k = compile(
        "fn k(x: &[f32]) { let i = gpu::global_id_x(); gpu::println!(\"{i}: {:.2}\", x[i]); }",
    );
    assert!(k.ptx.contains("vprintf"), "{}", k.ptx);
    // `%llu: %.2f\n` as bytes, and the float promoted to double.
    let bytes: Vec<String> = "%llu: %.2f\n\0".bytes().map(|b| b.to_string()).collect();
    assert!(
        k.ptx.contains(&bytes[..bytes.len() - 1].join(", ")),
        "{}",
        k.ptx
    );
    assert!(k.ptx.contains("cvt.f64.f32"), "{}", k.ptx);
}
