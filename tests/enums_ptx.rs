//! The PTX of the kernels that use field-less `#[derive(DeviceCopy)]` enums and constants of
//! user types: an insta snapshot each, and `ptxas` accepts each for sm_90. An enum parameter
//! is its `repr` integer; tables of structs are in constant memory. `imported::*` use the
//! types of another module and of another crate.

#[path = "kernels/enums.rs"]
mod enums;

#[path = "kernels/model.rs"]
mod model;

#[path = "kernels/imported.rs"]
mod imported;

/// (snapshot name, PTX entry, PTX) of every kernel.
fn kernels() -> Vec<(&'static str, &'static str, &'static str)> {
    macro_rules! k {
        ($($m:ident :: $k:ident),* $(,)?) => {
            vec![$((concat!(stringify!($m), "__", stringify!($k)), $m::$k::NAME, $m::$k::PTX)),*]
        };
    }
    k![
        enums::enum_ops,
        enums::enum_match,
        enums::run_program,
        imported::step_bodies,
        imported::shade,
        enums::classify,
        enums::apply_reversed,
        enums::run_steps,
        enums::write_codes,
        enums::guarded_last
    ]
}

#[test]
fn enum_ptx_snapshots() {
    for (name, _, ptx) in kernels() {
        insta::assert_snapshot!(name, ptx);
    }
}

#[test]
fn ptxas_accepts_every_enum_kernel() {
    cuprum_testkit::assert_ptxas_accepts(&kernels());
}

/// An enum parameter by value is declared as its `repr` integer: `Op` (`u8`) a `.u8`,
/// `Level` (`i32`) a `.u32`, and `Step`, a struct holding an `Op`, 8 bytes aligned to 4.
#[test]
fn enum_parameters_are_their_repr() {
    let ptx = enums::enum_ops::PTX;
    let entry = enums::enum_ops::NAME;
    let decl = |i: usize| {
        let name = format!("{entry}_param_{i}");
        ptx.lines()
            .find(|l| l.contains(".param") && l.contains(&name))
            .unwrap_or_else(|| panic!("no parameter {name}"))
            .trim()
            .trim_end_matches(',')
            .to_string()
    };
    // Parameters: out (2), codes (2), xs (2), ys (2), then op, step, l.
    assert_eq!(decl(8), format!(".param .u8 {entry}_param_8"));
    assert_eq!(decl(9), format!(".param .align 4 .b8 {entry}_param_9[8]"));
    assert_eq!(decl(10), format!(".param .u32 {entry}_param_10"));
}

/// Constants of struct arrays and `static` tables of structs are in constant memory.
#[test]
fn struct_tables_are_in_constant_memory() {
    let ptx = enums::run_program::PTX;
    let consts: Vec<&str> = ptx.lines().filter(|l| l.contains(".const")).collect();
    assert!(consts.iter().any(|l| l.contains("TABLE")), "{ptx}");
    assert!(ptx.contains("ld.const"), "{ptx}");
}

/// An enum in device memory is its `repr` integer, loaded and stored as it (`u8` for `Op`),
/// and a `match` on one read from memory has no `unreachable` default: the PTX of the
/// method it calls tests the discriminants and takes the last arm otherwise, so an integer
/// that is no variant (written through `as_repr_mut`) gives a defined result. No `trap`
/// comes from the enum either.
#[test]
fn enums_in_memory_are_their_repr() {
    let ptx = enums::apply_reversed::PTX;
    assert!(
        ptx.contains("ld.global.nc.u8") || ptx.contains("ld.global.nc.b8"),
        "{ptx}"
    );
    assert!(
        ptx.contains("st.shared.u8") || ptx.contains("st.shared.b8"),
        "{ptx}"
    );
    assert!(
        ptx.contains("ld.shared.u8") || ptx.contains("ld.shared.b8"),
        "{ptx}"
    );
    assert!(!ptx.contains("trap"), "{ptx}");
}
