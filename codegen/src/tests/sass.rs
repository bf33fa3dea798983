//! Ahead-of-time SASS (`CUPRUM_SASS`): ptxas assembles a kernel's PTX into a cubin for each
//! listed architecture.

use super::common;

use cuprum_codegen::sass::{assemble, parse_archs};
use cuprum_codegen::toolkit;

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

const SAXPY: &str = "fn saxpy(y: &mut [f32], x: &[f32], a: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}";

#[test]
fn cubins_are_assembled_for_each_architecture() {
    let Some(ptxas) = ptxas() else { return };
    let k = common::compile(SAXPY);
    for arch in parse_archs("sm_80,sm_90").unwrap() {
        let cubin = assemble(&k.ptx, &arch, &ptxas).unwrap();
        assert_eq!(&cubin[..4], b"\x7fELF", "{}: not an ELF file", arch.name);
        // The kernel's entry symbol is in the cubin.
        assert!(
            cubin.windows(6).any(|w| w == b"saxpy\0"),
            "{}: no saxpy symbol",
            arch.name
        );
    }
}

#[test]
fn an_architecture_older_than_the_ptx_target_is_an_error() {
    let Some(ptxas) = ptxas() else { return };
    let k = common::compile(SAXPY); // PTX for sm_80
    let sm70 = &parse_archs("sm_70").unwrap()[0];
    let e = assemble(&k.ptx, sm70, &ptxas).unwrap_err();
    assert!(e.contains("sm_70"), "{e}");
}
