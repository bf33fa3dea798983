//! Compiling a kernel again gives the same PTX, byte for byte: the examples' kernels are
//! compiled twice, the second time in the opposite order and on another thread (LLVM's
//! contexts, hash maps and the libdevice cache must leave no trace in the output).

use cuprum_codegen::{compile_kernel, KernelOptions, Target};

/// The kernels of `examples/*.rs` that compile alone (no device functions, module constants
/// or generic parameters), with their options.
fn example_kernels() -> Vec<(String, syn::ItemFn, KernelOptions)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let file: syn::File = syn::parse_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        for item in file.items {
            let syn::Item::Fn(func) = item else { continue };
            let Some(attr) = func.attrs.iter().find(|a| a.path().is_ident("kernel")) else {
                continue;
            };
            let options = match &attr.meta {
                syn::Meta::List(l) => KernelOptions::parse(l.tokens.clone()).unwrap(),
                _ => KernelOptions::default(),
            };
            if !func.sig.generics.params.is_empty() {
                continue;
            }
            let name = format!("{}::{}", f.display(), func.sig.ident);
            out.push((name, func, options));
        }
    }
    out
}

fn compile_all(kernels: &[(String, syn::ItemFn, KernelOptions)]) -> Vec<Option<String>> {
    kernels
        .iter()
        .map(|(_, func, options)| {
            compile_kernel(func, options, &Target::default_target())
                .ok()
                .map(|k| k.ptx)
        })
        .collect()
}

#[test]
fn compiling_again_gives_the_same_ptx() {
    let kernels = example_kernels();
    let first = compile_all(&kernels);
    // syn's tokens are not `Send`: the other thread parses the files itself.
    let second = std::thread::spawn(|| {
        let mut kernels = example_kernels();
        kernels.reverse();
        let mut ptx = compile_all(&kernels);
        ptx.reverse();
        ptx
    })
    .join()
    .unwrap();
    let mut compared = 0;
    for ((name, ..), (a, b)) in kernels.iter().zip(first.iter().zip(&second)) {
        match (a, b) {
            (Some(a), Some(b)) => {
                assert!(a == b, "{name}: two compilations differ");
                assert!(a.contains(".entry "), "{name}: no entry");
                compared += 1;
            }
            (None, None) => {}
            _ => panic!("{name}: compiled once only"),
        }
    }
    assert!(
        compared >= 8,
        "only {compared} example kernels compiled alone"
    );
}
