//! Constants: what the checker computes for module and body `const` items (Rust's values,
//! Rust's overflow errors), and errors that stop at the constant.

use super::common;

use cuprum_codegen::consts::{module_items, ModuleItems};
use cuprum_codegen::ir::ExprKind;
use cuprum_codegen::{compile, KernelOptions, KernelSource, Target};

/// Compiles `kernel` (named `k`) in a file whose other items are `module`; returns the
/// values of the module items it used, or the errors.
fn used(module: &str, kernel: &str) -> Result<Vec<(String, String)>, Vec<String>> {
    let source = format!("{module}\n#[kernel]\n{kernel}");
    let items: ModuleItems = module_items(&source, "k", "kernel", None);
    let item = common::parse(kernel);
    let mut src = KernelSource::plain(&item);
    src.consts = items;
    let k = compile(&src, &KernelOptions::default(), &Target::default_target())
        .map_err(|e| e.into_iter().map(|e| e.to_string()).collect::<Vec<_>>())?;
    Ok(k.program
        .items_used
        .iter()
        .map(|(n, e)| {
            let v = match &e.kind {
                ExprKind::Int(v) => v.to_string(),
                ExprKind::Float(v) => format!("{v:?}"),
                ExprKind::Bool(v) => v.to_string(),
                _ => "table".to_string(),
            };
            (n.clone(), v)
        })
        .collect())
}

fn value(module: &str, name: &str) -> String {
    let kernel = format!("fn k(o: &mut [f64]) {{ o[0] = {name} as f64; }}");
    let vals = used(module, &kernel).unwrap_or_else(|e| panic!("{e:?}"));
    vals.into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("{name} not used"))
}

#[test]
fn values_follow_rust() {
    let m = "const A: u8 = 300u16 as u8; const B: i32 = -7 / 2; const C: i32 = -7 % 2; \
             const D: u32 = !0 >> 4; const E: f32 = 0.1 + 0.2; const F: i64 = -1.9f64 as i64; \
             const G: u8 = -1.0f32 as u8; const H: usize = (3 > 2) as usize + A as usize; \
             const I: u64 = u32::MAX as u64 * 2; const J: f64 = core::f64::consts::PI * 2.0;";
    assert_eq!(value(m, "A"), (300u16 as u8).to_string());
    assert_eq!(value(m, "B"), (-7i32 / 2).to_string());
    assert_eq!(value(m, "C"), (-7i32 % 2).to_string());
    assert_eq!(value(m, "D"), (!0u32 >> 4).to_string());
    assert_eq!(value(m, "E"), format!("{:?}", (0.1f32 + 0.2f32) as f64));
    assert_eq!(value(m, "F"), (-1.9f64 as i64).to_string());
    assert_eq!(value(m, "G"), (-1.0f32 as u8).to_string());
    assert_eq!(value(m, "H"), (1 + 44).to_string());
    assert_eq!(value(m, "I"), (u32::MAX as u64 * 2).to_string());
    assert_eq!(value(m, "J"), format!("{:?}", std::f64::consts::PI * 2.0));
}

#[test]
fn overflow_and_division_by_zero_are_errors_at_the_use() {
    for (m, want) in [
        ("const A: u8 = 200 + 100;", "overflows `u8`"),
        ("const A: u32 = 1 / 0;", "divides by zero"),
        ("const A: i32 = 1 << 32;", "overflows"),
        ("const A: u32 = 0 - 1;", "overflows `u32`"),
        ("const A: i128 = 0;", "not `i128`"),
        (
            "const A: usize = B; const B: usize = A;",
            "in terms of itself",
        ),
    ] {
        let e = used(m, "fn k(o: &mut [f64]) { o[0] = A as f64; }").unwrap_err();
        assert_eq!(e.len(), 1, "{m}: {e:?}");
        assert!(e[0].contains(want), "{m}: {e:?}");
        assert!(e[0].contains("`A"), "{m}: {e:?}");
    }
}

#[test]
fn deep_constant_expressions_are_an_error_not_a_crash() {
    // On a stack of the size rustc gives proc macros.
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let sum = std::iter::repeat_n("1", 5000)
                .collect::<Vec<_>>()
                .join(" + ");
            let kernel = format!("fn k(o: &mut [u32]) {{ const N: u32 = {sum}; o[0] = N; }}");
            let e = used("", &kernel).unwrap_err();
            assert_eq!(e.len(), 1, "{e:?}");
            assert!(e[0].contains("levels deep"), "{e:?}");
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn locals_shadow_constants_and_body_constants_shadow_module_ones() {
    let m = "const N: usize = 3;";
    let k = "fn k(o: &mut [f32]) { const N: usize = 5; let a = [1.0f32; N]; o[0] = a[4]; \
             { let N = 2usize; o[1] = N as f32; } }";
    assert!(used(m, k).is_ok());
    // The module's `N` (3) where no body constant hides it: a constant index out of
    // bounds is a compile error, as in Rust.
    let e = used(
        m,
        "fn k(o: &mut [f32]) { let a = [1.0f32; N]; o[0] = a[4]; }",
    )
    .unwrap_err();
    assert!(e.len() == 1 && e[0].contains("length is 3"), "{e:?}");
}

#[test]
fn a_constant_defined_under_two_cfgs_is_one_error() {
    let m = "#[cfg(feature = \"wide\")] const N: usize = 8; #[cfg(not(feature = \"wide\"))] const N: usize = 4;";
    let e = used(
        m,
        "fn k(o: &mut [f32]) { let a = [1.0f32; N]; o[0] = a[0] + N as f32; }",
    )
    .unwrap_err();
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("defined more than once"), "{e:?}");
}
