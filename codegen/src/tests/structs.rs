//! User types: every use of a `DeviceCopy` struct that kernels do not support is an error
//! (never a panic of the compiler), and supported uses compile.

use super::common;

use cuprum_codegen::consts::module_items;
use cuprum_codegen::{compile, KernelOptions, KernelSource, Target};

const MODULE: &str = r#"
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct P { pub x: f32, pub v: [u32; 2] }

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct W(pub P, pub f64);

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Plain { pub x: f32 }

#[device]
impl P {
    fn get(&self) -> f32 { self.x }
    fn bump(&mut self) { self.v[0] += 1; }
    fn new(x: f32) -> Self { Self { x, v: [0, 1] } }
    const N: usize = 2 + 1;
    const HALF: f32 = 0.5;
    fn half(&self) -> f32 { self.x * Self::HALF }
}
"#;

/// Compiles `kernel` (named `k`) next to `MODULE`: the errors, if any.
fn errors(kernel: &str) -> Vec<String> {
    let source = format!("{MODULE}\n#[kernel]\n{kernel}");
    let item = common::parse(kernel);
    let mut src = KernelSource::plain(&item);
    src.consts = module_items(&source, "k", "kernel", None);
    match compile(&src, &KernelOptions::default(), &Target::default_target()) {
        Ok(_) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn supported_uses_compile() {
    for body in [
        "let p = P { x: 1.0, v: [1, 2] }; o[0] = p.x + p.v[1] as f32;",
        "let mut w = W(P::new(2.0), 1.0); w.0.v[1] = 3; w.0.bump(); o[0] = w.0.get() + w.1 as f32;",
        "let a = [P::new(1.0); 3]; o[0] = a[2].x;",
        "let mut p: P; p = P::new(3.0); o[0] = p.x;",
        "let p = P::new(1.0); match p { _ => o[0] = p.x }",
        "let y = 2.0; let p = P { v: [1, 2], x: y }; o[0] = p.x;",
        "let a = [P::HALF; P::N]; o[0] = a[2] + P::new(1.0).half();",
        "let s = gpu::shared_array::<P, 4>(); s[1] = q; s[0].v[1] = 2; o[0] = s[1].x + s[0].v[1] as f32;",
        "let s = gpu::shared_array_2d::<[f32; 4], 2, 3>(); s[1][2][3] = 1.0; o[0] = s[1][2][3];",
        "let s = gpu::dynamic_shared::<W>(); s[0].0.bump(); o[0] = s[0].0.get();",
        "let m = [[1.0f32; 2]; 8]; o[0] = m[7][1];",
    ] {
        let kernel = format!("fn k(o: &mut [f32], q: P) {{ let _ = q.x; {body} }}");
        assert_eq!(errors(&kernel), Vec::<String>::new(), "{body}");
    }
}

#[test]
fn unsupported_uses_are_one_error_each() {
    let mut bad = Vec::new();
    for body in [
        "let p = P::new(1.0); let q = P::new(2.0); o[0] = if p == q { 1.0 } else { 0.0 };",
        "let p = P::new(1.0); o[0] = (p + p).x;",
        "let p = P::new(1.0); o[0] = (-p).x;",
        "let p = P::new(1.0); o[0] = (p as f32) * 2.0;",
        "let p = P::new(1.0); o[0] = p[0];",
        "let p = P::new(1.0); for x in p { o[0] = x; }",
        "let mut p = P::new(1.0); gpu::atomic_add(&mut p, 1.0);",
        "let p = P { x: 1.0, v: [1, 2], w: 3 }; o[0] = p.x;",
        "let p = Plain { x: 1.0 }; o[0] = p.x;",
        "let p = P::missing(); o[0] = p.x;",
        "let p = P::new(1.0); o[0] = p.nope;",
        "let p = P::new(1.0); o[0] = p.get(3);",
        "let w = W(1.0); o[0] = w.1 as f32;",
        "o[0] = P::MISSING;",
        "let mut p = P::new(1.0); let q = P { v: [0, 0], x: { p.x = 2.0; p.x } }; o[0] = q.x;",
    ] {
        let kernel = format!("fn k(o: &mut [f32]) {{ {body} }}");
        let errs = errors(&kernel);
        if errs.len() != 1 {
            bad.push(format!("{body}: {errs:?}"));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Slices of structs and arrays as kernel parameters: elements read, written, methods called.
#[test]
fn slices_of_structs_and_arrays_compile() {
    for (params, body) in [
        (
            "ps: &mut [P]",
            "ps[0].bump(); ps[1].v[0] = 3; ps[2] = ps[1]; o[0] = ps[0].get();",
        ),
        (
            "ws: &mut [W], q: &[W]",
            "ws[0].0.v[1] = q[1].0.v[0]; ws[1] = q[0]; o[0] = ws[0].1 as f32;",
        ),
        (
            "a: &[[f32; 4]], b: &mut [[u32; 2]]",
            "b[0] = [1, 2]; b[1][1] = 3; o[0] = a[0][3];",
        ),
        ("a: &[[[f64; 2]; 3]]", "o[0] = a[0][2][1] as f32;"),
        ("a: &[[f32; 100000]]", "o[0] = a[3][99999];"),
        (
            "ps: &mut [P]",
            "gpu::atomic_add(&mut ps[0].v[1], 1); o[0] = 0.0;",
        ),
        ("ps: &mut [P]", "for p in ps.iter_mut() { p.bump(); } o[0] = 0.0;"),
        ("a: &mut [[f32; 4]]", "let s = gpu::shared_array::<[f32; 4], 8>(); s[1] = a[0]; a[1] = s[1]; gpu::atomic_add(&mut a[2][3], 1.0); o[0] = s[1][2];"),
    ] {
        let kernel = format!("fn k(o: &mut [f32], {params}) {{ {body} }}");
        assert_eq!(errors(&kernel), Vec::<String>::new(), "{params}: {body}");
    }
}

/// Element types kernels cannot hold, and writes through read-only slices of structs: one
/// error each.
#[test]
fn bad_element_uses_are_one_error_each() {
    let mut bad = Vec::new();
    for (params, body) in [
        ("a: &[(f32, u32)]", "o[0] = 0.0;"),
        ("a: &[&[f32]]", "o[0] = 0.0;"),
        ("a: &[[f32; 0]]", "o[0] = 0.0;"),
        ("a: &[Plain]", "o[0] = 0.0;"),
        ("a: &[String]", "o[0] = 0.0;"),
        ("ps: &[P]", "ps[0].x = 1.0; o[0] = 0.0;"),
        ("ps: &[P]", "ps[0].bump(); o[0] = 0.0;"),
        (
            "ps: &mut [P]",
            "gpu::atomic_add(&mut ps[0], 1.0); o[0] = 0.0;",
        ),
        ("ps: &mut [P]", "o[0] = ps[0];"),
        (
            "",
            "let s = gpu::shared_array::<(f32, f32), 4>(); o[0] = s[0].0;",
        ),
        ("ps: &mut [P]", "ps[0] = 1.0; o[0] = 0.0;"),
        ("ps: &mut [P]", "o[0] = ps[0].nope;"),
        ("ps: &mut [P]", "o[0] = ps[0][1];"),
        ("a: &[[f32; 4]]", "o[0] = a[0].x;"),
        ("a: &[[f32; 4]]", "o[0] = a[0][4];"),
        (
            "ps: &[P]",
            "for p in ps.iter_mut() { p.bump(); } o[0] = 0.0;",
        ),
        ("ps: &mut [P]", "let q = ps[0]; q.bump(); o[0] = 0.0;"),
        ("a: &mut [[u32; 2]]", "a[0] += [1, 1]; o[0] = 0.0;"),
        (
            "a: &[[f32; 4]], b: &[[f32; 4]]",
            "o[0] = if a[0] == b[0] { 1.0 } else { 0.0 };",
        ),
        ("a: &[[f32; 100000]]", "let v = a[0]; o[0] = v[7];"),
    ] {
        let kernel = format!("fn k(o: &mut [f32], {params}) {{ {body} }}");
        let errs = errors(&kernel);
        if errs.len() != 1 {
            bad.push(format!("{params}: {body}: {errs:?}"));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
