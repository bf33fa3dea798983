//! The PTX of the kernels whose slices and shared arrays hold structs and arrays: an insta
//! snapshot each, `ptxas` accepts each, and 16-byte elements are read and written as single
//! 128-bit accesses.

#[path = "kernels/elements.rs"]
mod elements;

/// (snapshot name, PTX entry, PTX) of every kernel.
fn kernels() -> Vec<(&'static str, &'static str, &'static str)> {
    macro_rules! k {
        ($($m:ident :: $k:ident),* $(,)?) => {
            vec![$((concat!(stringify!($m), "__", stringify!($k)), $m::$k::NAME, $m::$k::PTX)),*]
        };
    }
    k![
        elements::advance,
        elements::probe_fields,
        elements::vec4,
        elements::tiles,
        elements::local_grid,
        elements::scale4,
    ]
}

#[test]
fn element_ptx_snapshots() {
    for (name, _, ptx) in kernels() {
        insta::assert_snapshot!(name, ptx);
    }
}

#[test]
fn ptxas_accepts_every_element_kernel() {
    cuprum_testkit::assert_ptxas_accepts(&kernels());
}

/// The instructions of `ptx` that start with `op` (after the opcode's own spacing).
fn count(ptx: &str, op: &str) -> usize {
    ptx.lines()
        .filter(|l| l.trim_start().starts_with(op))
        .count()
}

/// `[f32; 4]`, the `repr(C, align(16))` struct and `[f64; 2]` are loaded with one vector
/// load each, and `[f32; 4]`, the struct and `[u32; 4]` stored with one vector store each
/// (LLVM 22 spells 32-bit vector accesses `.v4.b32`, older versions `.v4.f32`/`.v4.u32`).
#[test]
fn sixteen_byte_elements_are_single_vector_accesses() {
    let ptx = elements::vec4::PTX;
    let loads4 = count(ptx, "ld.global.nc.v4.b32") + count(ptx, "ld.global.nc.v4.f32");
    let stores4 = count(ptx, "st.global.v4.b32")
        + count(ptx, "st.global.v4.f32")
        + count(ptx, "st.global.v4.u32");
    let loads2 = count(ptx, "ld.global.nc.v2.b64") + count(ptx, "ld.global.nc.v2.f64");
    assert_eq!((loads4, loads2, stores4), (2, 1, 3), "{ptx}");
    // No 32-bit scalar global access is left: every lane moved in a vector.
    for op in [
        "ld.global.nc.b32",
        "ld.global.nc.f32",
        "st.global.b32",
        "st.global.f32",
        "st.global.u32",
    ] {
        assert_eq!(count(ptx, op), 0, "{op} in\n{ptx}");
    }
}
