//! Lowering and emission: the PTX each construct produces.

use super::common;

use common::{compile, compile_with, entry_body};
use cuprum_codegen::KernelOptions;

#[test]
fn read_only_slices_load_through_the_non_coherent_cache() {
    let k = compile("fn k(o: &mut [f32], x: &[f32]) { let i = gpu::global_id_x(); if i < o.len() { o[i] = x[i]; } }");
    let body = entry_body(&k.ptx, "k");
    assert!(body.contains("ld.global.nc.b32"), "{body}");
    assert!(body.contains(".ptr .global .align 4"), "{body}");
}

#[test]
fn the_default_target_is_sm80_with_ptx_7_8() {
    let k = compile("fn k(o: &mut [f32]) {}");
    assert!(
        k.ptx.contains(".version 7.8") && k.ptx.contains(".target sm_80"),
        "{}",
        k.ptx
    );
}

#[test]
fn target_option_overrides_the_default() {
    let opts = KernelOptions {
        target: Some(cuprum_codegen::Target::parse("sm_90a").unwrap()),
        ..KernelOptions::default()
    };
    let k = compile_with("fn k(o: &mut [f32]) {}", &opts).unwrap();
    assert!(
        k.ptx.contains(".version 8.0") && k.ptx.contains(".target sm_90a"),
        "{}",
        k.ptx
    );
}

#[test]
fn multiply_add_contracts_to_fma() {
    let k = compile("fn k(o: &mut [f32], x: &[f32], a: f32) { let i = gpu::global_id_x(); if i < o.len() { o[i] = a * x[i] + o[i]; } }");
    assert!(entry_body(&k.ptx, "k").contains("fma.rn.f32"));
}

#[test]
fn bounds_checks_call_the_panic_path_and_unchecked_removes_it() {
    let src = "fn k(o: &mut [u32], x: &[u32], j: usize) { o[j] = x[j]; }";
    let checked = compile(src);
    assert!(
        checked.ptx.contains("call.uni __cuprum_panic"),
        "{}",
        checked.ptx
    );
    // Two checks (the passes may add elided copies of them).
    let live = checked.program.sites.iter().filter(|s| s.elided.is_none());
    assert_eq!(live.count(), 2);
    let unchecked = compile_with(
        src,
        &KernelOptions {
            checked: false,
            ..KernelOptions::default()
        },
    )
    .unwrap();
    assert!(
        !unchecked.ptx.contains("__cuprum_panic"),
        "{}",
        unchecked.ptx
    );
    assert!(unchecked.program.sites.is_empty());
}

#[test]
fn global_id_uses_one_wide_multiply() {
    let k = compile(
        "fn k(o: &mut [u64]) { let i = gpu::global_id_x(); if i < o.len() { o[i] = i as u64; } }",
    );
    assert!(
        entry_body(&k.ptx, "k").contains("mul.wide.u32"),
        "{}",
        k.ptx
    );
}

#[test]
fn global_id_reads_ntid_before_ctaid() {
    // nvcc's order: ptxas then takes `ntid` from the constant bank and issues one S2R.
    let k = compile(
        "fn k(o: &mut [u64]) { let i = gpu::global_id_x(); if i < o.len() { o[i] = i as u64; } }",
    );
    let body = entry_body(&k.ptx, "k");
    let ntid = body.find("%ntid.x").expect("reads %ntid.x");
    let ctaid = body.find("%ctaid.x").expect("reads %ctaid.x");
    assert!(ntid < ctaid, "{}", k.ptx);
}

#[test]
fn sync_threads_is_a_barrier() {
    let k = compile("fn k(o: &mut [u32]) { gpu::sync_threads(); o[0] = 1; }");
    assert!(
        entry_body(&k.ptx, "k").contains("bar.sync \t0"),
        "{}",
        k.ptx
    );
}

#[test]
fn index_builtins_read_special_registers() {
    let k = compile(
        "fn k(o: &mut [u32]) { let t = gpu::thread_idx(); let b = gpu::block_idx(); let d = gpu::block_dim(); let g = gpu::grid_dim();
         o[0] = t.x + t.y + t.z + b.x + b.y + b.z + d.x + d.y + d.z + g.x + g.y + g.z + gpu::lane_id() + gpu::warp_id(); }",
    );
    let body = entry_body(&k.ptx, "k");
    for reg in [
        "%tid.x",
        "%tid.y",
        "%tid.z",
        "%ctaid.z",
        "%ntid.y",
        "%nctaid.x",
        "%laneid",
    ] {
        assert!(body.contains(reg), "{reg} missing:\n{body}");
    }
}

#[test]
fn float_to_int_casts_saturate() {
    let k = compile("fn k(o: &mut [i32], x: &[f32]) { o[0] = x[0] as i32; }");
    assert!(
        entry_body(&k.ptx, "k").contains("cvt.rzi.s32.f32"),
        "{}",
        k.ptx
    );
}

/// The opcodes of `k`'s body that do a cast's arithmetic, sorted: without the loads, stores,
/// the two slices' bounds checks (`setp.ne.b64` of a length, its branch, the panic calls).
fn cast_instructions(ptx: &str) -> Vec<String> {
    let skip = [
        "ld.",
        "st.",
        "ret",
        "{",
        "}",
        ")",
        "mov.b64",
        "cvta",
        "setp.ne.b64",
        "@",
        "bra",
        "call",
        "exit",
    ];
    let mut ops: Vec<String> = entry_body(ptx, "k")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('.'))
        .filter(|l| !l.starts_with('$') && !skip.iter().any(|p| l.starts_with(p)))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect();
    ops.sort();
    ops
}

#[test]
fn float_to_int_casts_are_one_cvt_where_ptx_agrees_with_rust() {
    // PTX's `cvt.rzi` from a float clamps to the integer type's range; a NaN gives 0 only from
    // f32 to 32 bits or fewer (else `1 << (bits - 1)`). Each cast: the instructions it needs.
    let cases: &[(&str, &str, &[&str])] = &[
        ("f32", "i32", &["cvt.rzi.s32.f32"]),
        ("f32", "u32", &["cvt.rzi.u32.f32"]),
        (
            "f32",
            "i64",
            &["cvt.rzi.s64.f32", "setp.nan.f32", "selp.b64"],
        ),
        ("f32", "u64", &["max.f32", "cvt.rzi.u64.f32"]),
        (
            "f64",
            "i32",
            &["cvt.rzi.s32.f64", "setp.nan.f64", "selp.b32"],
        ),
        ("f64", "u32", &["max.f64", "cvt.rzi.u32.f64"]),
        (
            "f64",
            "i64",
            &["cvt.rzi.s64.f64", "setp.nan.f64", "selp.b64"],
        ),
        ("f64", "u64", &["max.f64", "cvt.rzi.u64.f64"]),
        ("f32", "i8", &["cvt.rzi.s32.f32", "min.s32", "max.s32"]),
        ("f32", "u16", &["cvt.rzi.u32.f32", "min.u32"]),
    ];
    for &(from, to, want) in cases {
        let src = format!("fn k(o: &mut [{to}], x: &[{from}]) {{ o[0] = x[0] as {to}; }}");
        let k = compile(&src);
        let mut want: Vec<String> = want.iter().map(|w| w.to_string()).collect();
        want.sort();
        assert_eq!(
            cast_instructions(&k.ptx),
            want,
            "{from} as {to}:\n{}",
            k.ptx
        );
    }
}

#[test]
fn float_to_int_casts_of_constants_fold() {
    // LLVM folds the saturating cast of a constant: no `cvt` is left, the value is Rust's.
    let k = compile("fn k(o: &mut [i32]) { o[0] = 3.0e10f32 as i32; o[1] = (-1.0e300f64) as i32; o[2] = f32::NAN as i32; }");
    let body = entry_body(&k.ptx, "k");
    assert!(!body.contains("cvt.rzi"), "{body}");
    for v in ["2147483647", "-2147483648"] {
        assert!(body.contains(v), "no {v}:\n{body}");
    }
}

#[test]
fn shifts_mask_their_amount_like_rust() {
    let k = compile("fn k(o: &mut [u32], s: u32) { o[0] = 1u32 << s; }");
    assert!(entry_body(&k.ptx, "k").contains("and.b32"), "{}", k.ptx);
}

#[test]
fn launch_bounds_reach_the_ptx() {
    let opts = KernelOptions {
        max_threads: Some(256),
        min_blocks: Some(2),
        ..KernelOptions::default()
    };
    let k = compile_with("fn k(o: &mut [u32]) { o[0] = 1; }", &opts).unwrap();
    assert!(
        k.ptx.contains(".maxntid 256") && k.ptx.contains(".minnctapersm 2"),
        "{}",
        k.ptx
    );
}

#[test]
fn same_source_gives_the_same_ptx() {
    let src = "fn k(o: &mut [f32], x: &[f32]) { for i in 0..x.len() { o[i] = x[i].sqrt(); } }";
    assert_eq!(compile(src).ptx, compile(src).ptx);
}

#[test]
fn bool_parameters_and_buffers_are_bytes() {
    let k = compile("fn k(o: &mut [bool], x: &[bool], flip: bool) { let i = gpu::global_id_x(); if i < o.len() { o[i] = x[i] != flip; } }");
    let body = entry_body(&k.ptx, "k");
    assert!(
        body.contains(".param .u8 k_param_4") || body.contains(".param .b8 k_param_4"),
        "{body}"
    );
    assert!(
        body.contains("ld.global.nc.b8") || body.contains("ld.global.nc.u8"),
        "{body}"
    );
}

/// A device function whose last expression is `return v` (or that returns what diverges) has
/// dead code after its `ret`: it must be `unreachable`, never a `ret void` in a function that
/// returns a value (found by the fuzz harness: LLVM rejected the module).
#[test]
fn device_functions_ending_in_return_lower_to_valid_ir() {
    use cuprum_codegen::device::{DeviceFn, DeviceTable};
    for body in [
        "{ return v }",
        "{ return v; }",
        "{ if v > 0.0 { return v } return -v }",
        "{ loop { return v } }",
    ] {
        let mut devices = DeviceTable::default();
        devices.insert(
            "f",
            DeviceFn {
                item: syn::parse_str(&format!("fn f(v: f32) -> f32 {body}")).unwrap(),
                deps: DeviceTable::default(),
                consts: Default::default(),
            },
        );
        let item = common::parse(
            "fn k(y: &mut [f32]) { let i = gpu::global_id_x(); if i < y.len() { y[i] = f(y[i]); } }",
        );
        let source = cuprum_codegen::KernelSource {
            item: &item,
            devices,
            consts: Default::default(),
            generics: Vec::new(),
            entry: "k".into(),
        };
        let k = cuprum_codegen::compile(
            &source,
            &cuprum_codegen::KernelOptions::default(),
            &cuprum_codegen::Target::default_target(),
        )
        .unwrap_or_else(|e| panic!("{body}: {e}"));
        assert!(k.ptx.contains(".entry k"), "{body}");
    }
}

/// The text between the first two `ld.global` of a kernel body.
fn between_first_two_loads(body: &str) -> &str {
    let first = body.find("ld.global").expect("a first load");
    let rest = &body[first + 1..];
    let second = rest.find("ld.global").expect("a second load");
    &rest[..second]
}

#[test]
fn a_run_that_stores_a_loaded_value_runs_its_checks_before_its_loads() {
    // sgemm's tile loads: without hoisting, `b`'s check branch sits between the loads.
    let src = "fn k(at: &mut [f32], bt: &mut [f32], a: &[f32], b: &[f32], i: usize, j: usize) {
        let t = gpu::thread_idx().x as usize;
        at[t] = a[i + t];
        bt[t] = b[j + t];
    }";
    // The checked body alone (not versioned: the fast copy, which has no checks, may share
    // its second load with it).
    let options = KernelOptions {
        prove_bounds: false,
        ..KernelOptions::default()
    };
    let k = compile_with(src, &options).unwrap_or_else(|e| panic!("{e:?}"));
    let body = entry_body(&k.ptx, "k").to_string();
    let gap = between_first_two_loads(&body);
    assert!(!gap.contains("bra"), "a branch between the loads:\n{body}");
    // Four checks all the same (at, a, bt, b in Rust's order is a, at, b, bt).
    assert_eq!(body.matches("call.uni __cuprum_panic").count(), 4, "{body}");
}

#[test]
fn a_short_loop_that_stores_loaded_values_runs_its_checks_first() {
    // transpose's tile loop, unrolled by LLVM: all turns' checks come before the first load.
    let src = "fn k(o: &mut [f32], x: &[f32], rows: u32, cols: u32) {
        let tile = gpu::shared_array_2d::<f32, 32, 33>();
        let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
        for k in [0u32, 8, 16, 24] {
            let r = gpu::block_idx().y * 32 + ty + k;
            if r < rows && tx < cols {
                tile[(ty + k) as usize][tx as usize] = x[r as usize * cols as usize + tx as usize];
            }
        }
        gpu::sync_threads();
        o[0] = tile[0][0];
    }";
    let body = entry_body(&compile(src).ptx, "k").to_string();
    let first_load = body.find("ld.global").expect("a load");
    let panics_before = body[..first_load].matches("$L__BB").count();
    assert!(panics_before > 0, "{body}");
    let gap = between_first_two_loads(&body);
    assert!(
        !gap.contains("bra") || !gap.contains("setp.ge.u64") && !gap.contains("setp.lt.u64"),
        "a 64-bit bound check between the loads:\n{body}"
    );
}

#[test]
fn checks_do_not_move_across_a_barrier() {
    // A barrier ends a run: the checks after it stay after it.
    let src = "fn k(a: &mut [f32], b: &mut [f32], x: &[f32], y: &[f32], i: usize, j: usize) {
        let t = gpu::thread_idx().x as usize;
        a[t] = x[i + t];
        gpu::sync_threads();
        b[t] = y[j + t];
        b[t + 1] = y[j + t + 1];
    }";
    let body = entry_body(&compile(src).ptx, "k").to_string();
    // The checked body is the last copy (after the fast copy that the launch's flag selects,
    // which ends in `ret`); it ends in `exit`.
    let bar = body.rfind("bar.sync").expect("a barrier");
    let after = &body[bar..];
    let main_path_end = after.find("exit;").expect("exit");
    assert!(
        after[..main_path_end].contains("setp"),
        "the checks of y and b moved above the barrier:\n{body}"
    );
}

#[test]
fn max_threads_bounds_thread_indices_and_folds_their_checks() {
    // softmax's per-warp slots and a per-thread tile: with at most 256 threads per block,
    // `warp_id() < 8` and `thread_idx().x < 256`, so neither index needs a check.
    let src = "fn k(o: &mut [f32]) {
        let red = gpu::shared_array::<f32, 8>();
        let tile = gpu::shared_array::<f32, 256>();
        let t = gpu::thread_idx().x as usize;
                tile[t] = 2.0;
        red[gpu::warp_id() as usize] = 1.0;
        gpu::sync_threads();
        o[0] = red[0] + tile[255];
    }";
    let bounded = KernelOptions {
        max_threads: Some(256),
        ..KernelOptions::default()
    };
    let with = compile_with(src, &bounded).unwrap();
    let body = entry_body(&with.ptx, "k").to_string();
    // One check is left: `o[0]` against the slice's length.
    assert_eq!(body.matches("call.uni __cuprum_panic").count(), 1, "{body}");
    assert!(body.contains(".maxntid 256"), "{body}");
    let without = compile(src);
    let body = entry_body(&without.ptx, "k").to_string();
    assert_eq!(body.matches("call.uni __cuprum_panic").count(), 3, "{body}");
}

#[test]
fn a_let_that_reads_a_local_the_run_cannot_know_is_not_replayed() {
    // `v` reads memory, so the checks-first pass does not bind it; `w` reads `v`: replaying
    // `w` in that pass would read a local that has no value there.
    let src = "fn k(o: &mut [f32], x: &[f32], i: usize, j: usize) {
        let v = [x[i], x[j]];
        let w = v[0] + 1.0;
        o[i] = x[j];
        o[j] = x[i] + w;
    }";
    let k = compile(src);
    let body = entry_body(&k.ptx, "k").to_string();
    assert!(body.contains("ld.global"), "{body}");
}

/// `if gpu::__redux_supported::<T>() { a } else { b }` compiles `a` only for `i32`/`u32` on
/// sm_80+, `b` only otherwise (`a` may then use `__redux_*_sync` on a type it does not take).
fn redux_kernel(t: &str) -> String {
    format!(
        "fn k(o: &mut [{t}], x: &[{t}]) {{
            let i = gpu::global_id_x();
            let v = x[i];
            o[i] = if gpu::__redux_supported::<{t}>() {{
                gpu::__redux_add_sync(gpu::FULL_MASK, v)
                    + gpu::__redux_min_sync(gpu::FULL_MASK, v)
                    + gpu::__redux_max_sync(gpu::FULL_MASK, v)
            }} else {{
                gpu::shfl_xor_sync(gpu::FULL_MASK, v, 1)
            }};
        }}"
    )
}

#[test]
fn redux_sync_for_32_bit_integers_on_ampere_and_later() {
    let i32k = compile(&redux_kernel("i32"));
    let body = entry_body(&i32k.ptx, "k");
    for op in [
        "redux.sync.add.s32",
        "redux.sync.min.s32",
        "redux.sync.max.s32",
    ] {
        assert!(body.contains(op), "{op}: {body}");
    }
    assert!(!body.contains("shfl.sync"), "{body}");
    let u32k = compile(&redux_kernel("u32"));
    let body = entry_body(&u32k.ptx, "k");
    // The sum's bits are the same either way: LLVM writes `.s32` for both.
    for op in [
        "redux.sync.add.s32",
        "redux.sync.min.u32",
        "redux.sync.max.u32",
    ] {
        assert!(body.contains(op), "{op}: {body}");
    }
    for t in ["f32", "i64", "u64", "f64"] {
        let k = compile(&redux_kernel(t));
        let body = entry_body(&k.ptx, "k");
        assert!(
            !body.contains("redux") && body.contains("shfl.sync.bfly"),
            "{t}: {body}"
        );
    }
    let turing = KernelOptions {
        target: Some(cuprum_codegen::Target::parse("sm_75").unwrap()),
        ..KernelOptions::default()
    };
    let k = compile_with(&redux_kernel("i32"), &turing).unwrap();
    let body = entry_body(&k.ptx, "k");
    assert!(
        !body.contains("redux") && body.contains("shfl.sync.bfly"),
        "{body}"
    );
}

#[test]
fn redux_sync_outside_its_guard_is_an_error_for_other_types_and_targets() {
    let e = common::errors(
        "fn k(o: &mut [f32], x: &[f32]) { let i = gpu::global_id_x(); o[i] = gpu::__redux_add_sync(gpu::FULL_MASK, x[i]); }",
    );
    assert!(
        e.len() == 1 && e[0].contains("reduces `i32` or `u32`") && e[0].contains("not `f32`"),
        "{e:?}"
    );
    let e = common::errors(
        "fn k(o: &mut [u64], x: &[u64]) { let i = gpu::global_id_x(); o[i] = gpu::__redux_min_sync(gpu::FULL_MASK, x[i]); }",
    );
    assert!(e.len() == 1 && e[0].contains("not `u64`"), "{e:?}");
    let turing = KernelOptions {
        target: Some(cuprum_codegen::Target::parse("sm_75").unwrap()),
        ..KernelOptions::default()
    };
    let Err(e) = compile_with(
        "fn k(o: &mut [i32], x: &[i32]) { let i = gpu::global_id_x(); o[i] = gpu::__redux_max_sync(gpu::FULL_MASK, x[i]); }",
        &turing,
    ) else {
        panic!("redux on sm_75 compiled");
    };
    assert!(
        e.len() == 1 && e[0].contains("needs sm_80 or newer"),
        "{e:?}"
    );
    // A plain `bool` holding the answer is not a guard.
    let e = common::errors(
        "fn k(o: &mut [f32], x: &[f32]) { let i = gpu::global_id_x(); let ok = gpu::__redux_supported::<f32>(); if ok { o[i] = gpu::__redux_add_sync(gpu::FULL_MASK, x[i]); } }",
    );
    assert!(e.len() == 1 && e[0].contains("not `f32`"), "{e:?}");
}

/// nbody's tile loop (`for k in 0..TILE` over a shared tile): a `usize` range to a constant
/// below 2³² counts in 32 bits, and with 32-bit shared addresses the count and the address
/// are one register: `add.s32`, `setp.ne.b32`, no 64-bit add in the loop.
#[test]
fn a_loop_over_a_shared_tile_counts_in_one_32_bit_register() {
    let src = "fn k(out: &mut [f32], x: &[f32]) {
        let tile = gpu::shared_array::<f32, 1024>();
        let t = gpu::thread_idx().x as usize;
        tile[t] = x[t];
        gpu::sync_threads();
        let mut acc = 0.0f32;
        for k in 0..256 {
            acc += tile[4 * k] * tile[4 * k + 3];
        }
        out[t] = acc;
    }";
    let opts = KernelOptions {
        checked: false,
        ..KernelOptions::parse(quote::quote!(block = 256)).unwrap()
    };
    let ptx = compile_with(src, &opts).unwrap().ptx;
    let body = entry_body(&ptx, "k");
    let lines: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with(".loc"))
        .collect();
    // The loop: from its header label to the branch back to it.
    let (head, back) = (0..lines.len())
        .find_map(|b| {
            let target = lines[b]
                .strip_prefix("@%p")?
                .split_whitespace()
                .last()?
                .trim_end_matches(';');
            let head = lines[..b].iter().position(|l| *l == format!("{target}:"))?;
            Some((head, b))
        })
        .unwrap_or_else(|| panic!("no back-edge: {body}"));
    let lp = &lines[head..=back];
    assert!(lp.iter().any(|l| l.starts_with("setp.ne.b32")), "{lp:#?}");
    assert!(
        lp.iter()
            .any(|l| l.starts_with("ld.shared") && l.contains("[%r")),
        "{lp:#?}"
    );
    assert!(
        !lp.iter().any(|l| l.contains(".s64") || l.contains(".b64 ")),
        "{lp:#?}"
    );
}
