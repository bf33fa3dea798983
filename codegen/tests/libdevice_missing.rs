//! A math function that needs libdevice, when libdevice cannot be found, is a compile error at
//! the call, saying how to install it. (Its own test binary: the search result is cached per
//! process, and this one must start with `CUPRUM_LIBDEVICE` pointing nowhere.)

fn parse(src: &str) -> syn::ItemFn {
    syn::parse_str(src).unwrap_or_else(|e| panic!("test kernel does not parse: {e}\n{src}"))
}

#[test]
fn missing_libdevice_is_an_error_at_the_call() {
    // SAFETY: set before any other thread of this test binary exists (one test).
    unsafe { std::env::set_var("CUPRUM_LIBDEVICE", "/nonexistent/libdevice.10.bc") };
    let src = "fn k(y: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = x[i].exp();
    }
}";
    let item = parse(src);
    let opts = cuprum_codegen::KernelOptions::default();
    let e = cuprum_codegen::compile_kernel(&item, &opts, &cuprum_codegen::Target::default_target())
        .expect_err("exp needs libdevice");
    let msg = e.to_string();
    assert!(
        msg.contains("libdevice") && msg.contains("nvidia-cuda-nvcc-cu12"),
        "{msg}"
    );
    // One error, at the call (`x[i].exp()`, line 4), not at the kernel.
    assert_eq!(e.span().start().line, 4, "{msg}");
    assert_eq!(e.into_iter().count(), 1);

    // A kernel without libdevice math still compiles.
    let plain = parse(
        "fn k(y: &mut [f32], x: &[f32]) { let i = gpu::global_id_x(); if i < y.len() { y[i] = x[i].sqrt(); } }",
    );
    cuprum_codegen::compile_kernel(&plain, &opts, &cuprum_codegen::Target::default_target())
        .expect("sqrt is an instruction, not libdevice");
}
