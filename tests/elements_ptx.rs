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
    let mut all = k![
        elements::advance,
        elements::probe_fields,
        elements::vec4,
        elements::tiles,
        elements::local_grid,
        elements::scale4,
        elements::dyn_pairs,
        elements::field_atomics,
    ];
    all.push((
        "elements__join_parts",
        elements::join_parts4::<u32>::NAME,
        elements::join_parts4::<u32>::PTX,
    ));
    all.push((
        "elements__bump_parts",
        elements::bump_parts4::<u32>::NAME,
        elements::bump_parts4::<u32>::PTX,
    ));
    all
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

/// The byte offsets (from the element's address) that the global stores of `ptx` write:
/// `st.global[.vN].bW [%rdK+off], {..}` covers `off`, `off + W/8`, .. for N lanes.
fn stored_offsets(ptx: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for l in ptx.lines().map(str::trim) {
        let Some(rest) = l.strip_prefix("st.global.") else {
            continue;
        };
        let op = rest.split_whitespace().next().unwrap_or("");
        let lanes: u64 = match op.split('.').next() {
            Some("v2") => 2,
            Some("v4") => 4,
            _ => 1,
        };
        let bits: u64 = op
            .rsplit('.')
            .next()
            .and_then(|t| t[1..].parse().ok())
            .unwrap_or_else(|| panic!("no width in {l}"));
        let addr = l
            .split('[')
            .nth(1)
            .and_then(|s| s.split(']').next())
            .unwrap();
        let off: u64 = addr.split('+').nth(1).map_or(0, |o| o.parse().unwrap());
        out.extend((0..lanes).map(|k| off + k * bits / 8));
    }
    out.sort_unstable();
    out
}

/// `probe_fields` writes every scalar field of `out[i]`: its PTX stores land at exactly the
/// host's `offset_of!` of each scalar, and elements are `size_of` apart (`i << 5`).
#[test]
fn slice_elements_in_ptx_have_the_host_layout() {
    use elements::{Inner, Probe};
    use std::mem::{offset_of, size_of};
    let ptx = elements::probe_fields::PTX;
    let inner = offset_of!(Probe, inner);
    let mut want: Vec<u64> = [
        offset_of!(Probe, wide),
        offset_of!(Probe, x),
        offset_of!(Probe, id),
        offset_of!(Probe, half),
        offset_of!(Probe, byte),
        offset_of!(Probe, flag),
        inner + offset_of!(Inner, a),
        inner + offset_of!(Inner, a) + 2,
        inner + offset_of!(Inner, b),
        inner + offset_of!(Inner, c),
    ]
    .into_iter()
    .map(|o| o as u64)
    .collect();
    want.sort_unstable();
    assert_eq!(stored_offsets(ptx), want, "{ptx}");
    let shift = size_of::<Probe>().trailing_zeros();
    assert!(size_of::<Probe>().is_power_of_two());
    assert!(
        ptx.lines()
            .any(|l| l.trim().starts_with("shl.b64") && l.trim().ends_with(&format!(", {shift};"))),
        "no index scaled by {} in\n{ptx}",
        size_of::<Probe>()
    );
}

/// The middle part of `DeviceBuffer::as_vectors` is read in 16-byte loads: by a user's kernel
/// (`join_parts`) and by the library's reductions and float histograms, whose loops over the
/// vectors load nothing narrower from global memory.
#[test]
fn vector_views_are_read_in_sixteen_byte_loads() {
    let ptx = elements::join_parts4::<u32>::PTX;
    let loads4 = count(ptx, "ld.global.nc.v4.b32") + count(ptx, "ld.global.nc.v4.u32");
    assert!(loads4 >= 1, "{ptx}");
    // `as_vectors_mut`'s middle part: one 16-byte load and one 16-byte store a vector.
    let ptx = elements::bump_parts4::<u32>::PTX;
    assert!(count(ptx, "ld.global.v4") >= 1, "{ptx}");
    assert!(count(ptx, "st.global.v4") >= 1, "{ptx}");
    let library = cuprum::algorithms::__kernels();
    for (name, want) in [
        ("reduce_vectors4<i32>", "ld.global.nc.v4"),
        ("reduce_vectors4<f32>", "ld.global.nc.v4"),
        ("reduce_vectors2<f64>", "ld.global.nc.v2"),
        ("histogram_vectors4<f32, 2>", "ld.global.nc.v4"),
        ("histogram_vectors2<f64, 4>", "ld.global.nc.v2"),
    ] {
        let (_, _, ptx) = library
            .iter()
            .find(|(k, _, _)| k.replace(' ', "") == name.replace(' ', ""))
            .unwrap_or_else(|| panic!("no library kernel {name}"));
        assert!(
            count(ptx, want) >= 2,
            "{name}: fewer than two `{want}` in\n{ptx}"
        );
    }
}
