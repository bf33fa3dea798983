//! The PTX of the kernels that use `#[derive(DeviceCopy)]` structs: an insta snapshot each,
//! `ptxas` accepts each for sm_90 without spilling, and the PTX parameter of a struct passed
//! by value has the host type's size and alignment.

#[path = "kernels/structs.rs"]
mod structs;

/// (snapshot name, PTX entry, PTX) of every kernel.
fn kernels() -> Vec<(&'static str, &'static str, &'static str)> {
    macro_rules! k {
        ($($m:ident :: $k:ident),* $(,)?) => {
            vec![$((concat!(stringify!($m), "__", stringify!($k)), $m::$k::NAME, $m::$k::PTX)),*]
        };
    }
    k![
        structs::struct_param,
        structs::struct_locals,
        structs::nested,
        structs::methods
    ]
}

#[test]
fn struct_ptx_snapshots() {
    for (name, _, ptx) in kernels() {
        insta::assert_snapshot!(name, ptx);
    }
}

#[test]
fn ptxas_accepts_every_struct_kernel() {
    cuprum_testkit::assert_ptxas_accepts(&kernels());
}

/// The `.param .align A .b8 name[S]` declaration of parameter `index` of `entry`: (A, S).
fn byte_param(ptx: &str, entry: &str, index: usize) -> (usize, usize) {
    let name = format!("{entry}_param_{index}");
    let line = ptx
        .lines()
        .find(|l| l.contains(".param") && l.contains(&format!("{name}[")))
        .unwrap_or_else(|| panic!("no byte-array parameter {name} in:\n{ptx}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let align = words
        .iter()
        .position(|w| *w == ".align")
        .and_then(|i| words.get(i + 1))
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no alignment in {line}"));
    let size = line
        .split('[')
        .nth(1)
        .and_then(|s| s.split(']').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no size in {line}"));
    (align, size)
}

#[test]
fn struct_parameters_have_the_host_layout() {
    use std::mem::{align_of, size_of};
    let ptx = structs::struct_param::PTX;
    let entry = structs::struct_param::NAME;
    assert_eq!(
        byte_param(ptx, entry, 2),
        (
            align_of::<structs::Particle>(),
            size_of::<structs::Particle>()
        )
    );
    assert_eq!(
        byte_param(ptx, entry, 3),
        (align_of::<structs::Mixed>(), size_of::<structs::Mixed>())
    );
}
