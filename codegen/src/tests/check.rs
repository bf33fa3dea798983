//! The type checker: Rust's typing rules, literal inference, and errors collected at spans.

use super::common;

use common::{compile, errors};
use cuprum_codegen::ir::{ExprKind, Stmt};
use cuprum_codegen::ty::{Scalar, Ty};

fn local_type(src: &str, name: &str) -> Ty {
    let k = compile(src);
    k.program
        .kernel
        .locals
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no local {name}"))
        .ty
        .clone()
}

#[test]
fn float_literal_takes_its_type_from_context() {
    let src = "fn k(o: &mut [f32], a: f32) { let x = 2.0; let y = a * x; o[0] = y; }";
    assert_eq!(local_type(src, "x"), Ty::Scalar(Scalar::F32));
}

#[test]
fn unconstrained_literals_default_like_rust() {
    assert_eq!(
        local_type(
            "fn k(o: &mut [f64]) { let x = 2.5; let i = 3; o[0] = x; }",
            "i"
        ),
        Ty::Scalar(Scalar::I32)
    );
    assert_eq!(
        local_type("fn k(o: &mut [i32]) { let x = 2.5; o[0] = 1; }", "x"),
        Ty::Scalar(Scalar::F64)
    );
}

#[test]
fn integer_literal_inferred_through_later_use() {
    let src = "fn k(o: &mut [u8]) { let mut c = 0; c += 1; o[0] = c; }";
    assert_eq!(local_type(src, "c"), Ty::Scalar(Scalar::U8));
}

#[test]
fn index_literals_become_usize() {
    let src = "fn k(o: &mut [f32]) { let i = 5; o[i] = 1.0; }";
    assert_eq!(local_type(src, "i"), Ty::Scalar(Scalar::Usize));
}

#[test]
fn shadowing_gives_each_binding_its_own_type() {
    let k = compile("fn k(o: &mut [f32], x: u32) { let v = x; let v = v as f32; o[0] = v; }");
    let vs: Vec<&Ty> = k
        .program
        .kernel
        .locals
        .iter()
        .filter(|l| l.name == "v")
        .map(|l| &l.ty)
        .collect();
    assert_eq!(vs, vec![&Ty::Scalar(Scalar::U32), &Ty::Scalar(Scalar::F32)]);
}

#[test]
fn tuples_arrays_and_loops_type_check() {
    let src = r#"fn k(o: &mut [i64]) {
        let mut acc = [0i64; 4];
        let (a, b) = (1, 2i64);
        for i in (0..4).step_by(2) { acc[i] = a + b; }
        let v = loop { break acc[0] + acc[2]; };
        let w = if v > 0 { v } else { -v };
        let mut j = 0;
        while j < 3 { j += 1; if j == 2 { continue; } }
        o[0] = w + j;
    }"#;
    let k = compile(src);
    assert!(k.ptx.contains(".entry k("));
    let ty = |n: &str| {
        k.program
            .kernel
            .locals
            .iter()
            .find(|l| l.name == n)
            .unwrap()
            .ty
            .clone()
    };
    assert_eq!(ty("a"), Ty::Scalar(Scalar::I64));
    assert_eq!(ty("i"), Ty::Scalar(Scalar::Usize));
    assert_eq!(ty("acc"), Ty::Array(Box::new(Ty::Scalar(Scalar::I64)), 4));
    assert_eq!(ty("j"), Ty::Scalar(Scalar::I64));
}

#[test]
fn if_else_is_an_expression() {
    let k = compile("fn k(o: &mut [u32], c: bool) { let v = if c { 1 } else { 2 }; o[0] = v; }");
    let Stmt::Let { init, .. } = &k.program.kernel.body.stmts[0] else {
        panic!()
    };
    assert!(matches!(init.kind, ExprKind::If(..)));
    assert_eq!(init.ty, Ty::Scalar(Scalar::U32));
}

#[test]
fn mixed_float_widths_are_an_error_with_a_cast_hint() {
    let e = errors("fn k(o: &mut [f32], a: f32, b: f64) { o[0] = a * b; }");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("cannot apply `*` to `f32` and `f64`") && e[0].contains("as f32"),
        "{e:?}"
    );
}

#[test]
fn int_literal_next_to_float_suggests_a_float_literal() {
    let e = errors("fn k(o: &mut [f32], a: f32) { o[0] = a * 2; }");
    assert!(e[0].contains("write a float literal, `2.0`"), "{e:?}");
}

#[test]
fn several_mistakes_are_all_reported() {
    let e = errors("fn k(o: &mut [f32], n: u32) { let a = n + 1.5; o[n] = 1.0; let z: u8 = 300; }");
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(
        e.iter()
            .any(|m| m.contains("cannot apply `+` to `u32` and `{float}`")),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|m| m.contains("indexed by `usize`, found `u32`")),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|m| m.contains("literal out of range for `u8`")),
        "{e:?}"
    );
}

#[test]
fn writing_through_a_shared_reference_is_an_error() {
    let e = errors("fn k(x: &[f32]) { x[0] = 1.0; }");
    assert!(
        e[0].contains("read-only") && e[0].contains("&mut [f32]"),
        "{e:?}"
    );
}

#[test]
fn assigning_an_immutable_local_is_an_error() {
    let e = errors("fn k(o: &mut [i32]) { let a = 1; a = 2; o[0] = a; }");
    assert!(e[0].contains("not declared mutable"), "{e:?}");
}

#[test]
fn unsigned_negation_is_an_error() {
    let e = errors("fn k(o: &mut [u32], a: u32) { o[0] = -a; }");
    assert!(
        e[0].contains("cannot apply unary operator `-` to type `u32`"),
        "{e:?}"
    );
    let e = errors("fn k(o: &mut [u32]) { let a = -1; o[0] = a; }");
    assert!(e[0].contains("unary operator `-`"), "{e:?}");
}

#[test]
fn kernels_cannot_return_values() {
    let e = errors("fn k(o: &mut [i32]) -> i32 { 1 }");
    assert!(
        e.iter()
            .any(|m| m.contains("kernels cannot return a value")),
        "{e:?}"
    );
}

#[test]
fn unknown_gpu_function_suggests_the_right_one() {
    let e = errors("fn k(o: &mut [u32]) { o[0] = gpu::thread_id().x; }");
    assert!(e[0].contains("did you mean `gpu::thread_idx`"), "{e:?}");
}

#[test]
fn calling_an_undeclared_function_suggests_device() {
    let e = errors("fn k(o: &mut [f32]) { o[0] = helper(1.0); }");
    assert!(e[0].contains("#[device] fn helper"), "{e:?}");
}

#[test]
fn heap_types_are_rejected_with_advice() {
    let e = errors("fn k(v: Vec<f32>) {}");
    assert!(
        e[0].contains("heap allocation is not available in kernels"),
        "{e:?}"
    );
}

#[test]
fn break_outside_loop_and_unknown_label() {
    let e = errors("fn k(o: &mut [i32]) { break; }");
    assert!(e[0].contains("`break` outside of a loop"), "{e:?}");
    let e = errors("fn k(o: &mut [i32]) { loop { break 'nope; } }");
    assert!(e[0].contains("undeclared label `'nope`"), "{e:?}");
}

#[test]
fn constant_index_past_a_local_array_is_a_compile_error() {
    let e = errors("fn k(o: &mut [i32]) { let a = [1, 2, 3]; o[0] = a[3]; }");
    assert!(e[0].contains("the length is 3 but the index is 3"), "{e:?}");
}

#[test]
fn ir_verifier_accepts_every_checked_program() {
    let k =
        compile("fn k(o: &mut [f32], x: &[f32]) { for i in 0..x.len() { o[i] = x[i] * 2.0; } }");
    cuprum_codegen::verify::verify_program(&k.program).unwrap();
}

#[test]
fn kernel_names_must_be_ptx_entry_names() {
    let k = compile("fn r#type(o: &mut [f32]) { o[0] = 1.0; }");
    assert!(k.ptx.contains(".entry type("), "{}", k.ptx);
    for (name, msg) in [
        ("ñu", "ASCII"),
        ("__cuprum_panic", "reserved for Cuprum"),
        ("WARP_SZ", "built into PTX"),
    ] {
        let e = errors(&format!("fn {name}(o: &mut [f32]) {{ o[0] = 1.0; }}"));
        assert!(e.len() == 1 && e[0].contains(msg), "{name}: {e:?}");
    }
}

#[test]
fn local_arrays_are_bounded() {
    compile(
        "fn k(o: &mut [f32], j: usize) { let mut a = [1.5f32; 1024]; a[j] = 2.0; o[0] = a[j]; }",
    );
    for src in [
        "fn k(o: &mut [u8]) { let a = [0u8; 4000000000]; o[0] = a[5]; }",
        "fn k(o: &mut [u8]) { let a = [[0u8; 64]; 64]; o[0] = a[5][1]; }",
        "fn k(o: &mut [u8]) { let a: [u8; 2000] = [0; 2000]; o[0] = a[5]; }",
    ] {
        let e = errors(src);
        assert!(
            e.iter()
                .any(|m| m.contains("local arrays hold at most 1024")),
            "{src}: {e:?}"
        );
    }
    let e = errors("fn k(o: &mut [u8]) { let a = [(); 3]; o[0] = 1; }");
    assert!(e[0].contains("arrays of `()` are not supported"), "{e:?}");
}

/// Runs `f` on a thread with rustc's 8 MiB stack, where proc macros run.
fn on_rustc_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    on_rustc_stack(|| {
        let tokens = |s: String| s.parse::<proc_macro2::TokenStream>().unwrap();
        let check = cuprum_codegen::check::check_nesting;
        // Nesting that syn itself would overflow on is caught before parsing.
        let parens = format!(
            "fn k(o: &mut [i32]) {{ o[0] = {}1{}; }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        assert!(check(&tokens(parens))
            .unwrap_err()
            .to_string()
            .contains("nest more than 128"));
        let negations = format!("fn k(o: &mut [i32]) {{ o[0] = {}1; }}", "- ".repeat(5000));
        assert!(check(&tokens(negations))
            .unwrap_err()
            .to_string()
            .contains("operators nest"));
        // A long chain that syn parses is stopped by the checker.
        let chain = format!("fn k(o: &mut [i32]) {{ o[0] = 1{}; }}", " + 1".repeat(5000));
        assert!(check(&tokens(chain.clone())).is_ok());
        let e = errors(&chain);
        assert!(
            e.len() == 1 && e[0].contains("nests more than 256 levels"),
            "{e:?}"
        );
    });
}

#[test]
fn one_element_tuples_are_tuples() {
    compile("fn k(o: &mut [f32]) { let t: (f32,) = (1.0f32,); o[0] = t.0; }");
}

#[test]
fn a_parameter_declared_twice_is_an_error() {
    let e = errors("fn k(o: &mut [f32], o: &mut [f32]) { o[0] = 1.0; }");
    assert!(e.len() == 1 && e[0].contains("declared twice"), "{e:?}");
}

#[test]
fn calling_a_local_says_it_hides_the_gpu_function() {
    let e = errors("fn k(o: &mut [u32]) { let thread_idx = 3; o[0] = thread_idx().x; }");
    assert!(
        e.len() == 1 && e[0].contains("the local hides `gpu::thread_idx`"),
        "{e:?}"
    );
}

#[test]
fn an_explicit_unit_return_type_is_allowed() {
    compile("fn k(o: &mut [f32]) -> () { o[0] = 1.0; }");
}

#[test]
fn every_gpu_function_name_is_known_to_the_checker() {
    // A name in the suggestion list that the checker did not handle would be reported as
    // missing from `cuprum::gpu`, next to a "did you mean" naming itself.
    for name in cuprum_codegen::check::GPU_FUNCTIONS {
        let src = format!("fn k(o: &mut [u32]) {{ let v = gpu::{name}(); }}");
        let item = common::parse(&src);
        let Err(e) = cuprum_codegen::compile_kernel(
            &item,
            &Default::default(),
            &cuprum_codegen::Target::default_target(),
        ) else {
            continue;
        };
        for e in e {
            let msg = e.to_string();
            assert!(!msg.contains("cannot find"), "gpu::{name}: {msg}");
        }
    }
}

#[test]
fn scalar_functions_by_path_stay_supported() {
    compile("fn k(o: &mut [f32], x: &[f32]) { o[0] = f32::sqrt(x[0]) + <f32>::max(x[0], 1.0) + f32::from_bits(3u32); }");
    let e = errors("fn k(o: &mut [f32], x: &[f32]) { o[0] = std::cmp::max(x[0], x[1]); }");
    assert!(
        e[0].contains("call it as a method: `x[0].max(x[1])`"),
        "{e:?}"
    );
    let e = errors("fn k(o: &mut [f32], x: &[f32]) { o[0] = f32::max(x[0]); }");
    assert!(
        e[0].contains("takes 2 arguments but 1 were supplied"),
        "{e:?}"
    );
    let e = errors("fn k(o: &mut [f32], x: &[f32]) { o[0] = f32::sqt(x[0]); }");
    assert!(e[0].contains("did you mean `f32::sqrt`?"), "{e:?}");
}

#[test]
fn a_method_of_the_other_kind_of_number_says_how_to_convert() {
    let e = errors("fn k(o: &mut [f32], n: u32) { o[0] = (n + 1).sqrt(); }");
    assert!(
        e[0].contains("convert first, `((n + 1) as f32).sqrt()`"),
        "{e:?}"
    );
    let e = errors("fn k(o: &mut [u32], x: &[f32]) { o[0] = x[0].count_ones(); }");
    assert!(e[0].contains("`x[0].to_bits()`"), "{e:?}");
    let e = errors("fn k(o: &mut [u32], n: u32) { o[0] = n.abs(); }");
    assert!(e[0].contains("unsigned values are never negative"), "{e:?}");
}

#[test]
fn a_non_constant_shared_array_size_is_reported_at_the_size() {
    let e = errors("fn k(o: &mut [f32]) { let s = gpu::shared_array::<f32, N>(); o[0] = s[0]; }");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("not `N`"), "{e:?}");
    assert!(e[0].contains("gpu::dynamic_shared"), "{e:?}");
    compile(
        "fn k(o: &mut [f32]) { let s = gpu::shared_array::<f32, { 32 * 33 }>(); o[0] = s[0]; }",
    );
}

#[test]
fn a_generic_kernel_without_instances_reports_only_that() {
    let e = errors("fn k<T: gpu::Float>(o: &mut [T], a: T) { o[0] = a; }");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("instances(f32, f64)"), "{e:?}");
}

#[test]
fn kernel_parameters_may_not_be_arrays_or_tuples() {
    let e = errors("fn k(o: &mut [f32], p: (f32, u32), a: [f32; 4]) { o[0] = 1.0; }");
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].contains("like `a0: f32, a1: u32`"), "{e:?}");
    assert!(e[1].contains("`&[f32]`"), "{e:?}");
}

#[test]
fn raw_kernel_names_are_entries_without_r_hash() {
    let k = compile("fn r#type(o: &mut [f32]) { o[0] = 1.0; }");
    assert_eq!(k.name, "type");
    assert!(k.ptx.contains(".entry type("));
}

#[test]
fn float_literals_must_be_finite_in_their_type() {
    let e = errors("fn k(o: &mut [f32]) { o[0] = 1e308; }");
    assert!(
        e[0].contains("literal out of range for `f32`: `1e308` is larger than `f32::MAX`"),
        "{e:?}"
    );
    let e = errors("fn k(o: &mut [f64]) { o[0] = -1e309; }");
    assert!(e[0].contains("out of range for `f64`"), "{e:?}");
    compile("fn k(o: &mut [f32], d: &mut [f64]) { o[0] = 3.4e38; d[0] = 1e308 + f64::INFINITY; }");
}

#[test]
fn a_placeholder_type_in_a_signature_is_an_error() {
    // A kernel parameter.
    let e = common::errors("fn k(y: &mut [f32], a: _) { y[0] = 1.0; }");
    assert!(e.iter().any(|m| m.contains("placeholder `_`")), "{e:?}");
    // A device function's return type and an array parameter (found by the fuzz harness: the
    // inference variable of `-> _` escaped its function and crashed the checker).
    for src in [
        "fn sq(v: f32) -> _ { v * v }",
        "fn first(a: [_; 2]) -> f32 { a[0] }",
    ] {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let e = cuprum_codegen::check::check_device(&item, &Default::default())
            .expect_err(src)
            .to_string();
        assert!(e.contains("placeholder `_`"), "{src}: {e}");
    }
    // `_` in a `let` annotation takes the value's type, in any part of it.
    common::compile(
        "fn k(y: &mut [f32]) { let a: _ = 2.0f32; let b: [_; 2] = [1.0f32, a]; let p: (f32, _) = (b[1], 3u32); y[0] = p.0 + p.1 as f32; }",
    );
}
