//! The PTX of the kernels that exercise each language feature (`tests/kernels/*.rs`): an insta
//! snapshot each, and `ptxas` must accept each for sm_90. Large libdevice-heavy kernels are
//! snapshotted as their instruction mix (see `shape`), which is what a reviewer can read.

#[path = "kernels/atomics.rs"]
mod atomics;
#[path = "kernels/checks.rs"]
mod checks;
#[path = "kernels/control_flow.rs"]
mod control_flow;
#[path = "kernels/cooperative.rs"]
mod cooperative;
#[path = "kernels/device_fns.rs"]
mod device_fns;
#[path = "kernels/device_params.rs"]
mod device_params;
#[path = "kernels/device_refs.rs"]
mod device_refs;
#[path = "kernels/intrinsics.rs"]
mod intrinsics;
#[path = "kernels/math.rs"]
mod math;
#[path = "kernels/options.rs"]
mod options;
#[path = "kernels/prims.rs"]
mod prims;
#[path = "kernels/report.rs"]
mod report;
#[path = "kernels/shared.rs"]
mod shared;
#[path = "kernels/sync.rs"]
mod sync;
#[path = "kernels/warp.rs"]
mod warp;

/// (snapshot name, PTX entry, PTX) of every feature kernel.
fn kernels() -> Vec<(&'static str, &'static str, &'static str)> {
    macro_rules! k {
        ($($m:ident :: $k:ident $(<$t:ty>)?),* $(,)?) => {
            vec![$((concat!(stringify!($m), "__", stringify!($k) $(, "_", stringify!($t))?), $m::$k $(::<$t>)?::NAME, $m::$k $(::<$t>)?::PTX)),*]
        };
    }
    k![
        atomics::atomics_i32,
        atomics::atomics_u32,
        atomics::atomics_i64,
        atomics::atomics_u64,
        atomics::atomics_f32,
        atomics::atomics_f64,
        atomics::shared_atomics,
        atomics::relaxed_loads,
        checks::shifted_copy,
        checks::divide,
        checks::run_off_the_end,
        checks::strided_off_by_one,
        checks::small_arrays,
        checks::several_accesses,
        checks::run_of_copies,
        checks::turns_of_copies,
        device_fns::uses_devices,
        device_fns::scale<f32>,
        device_fns::scale<f64>,
        device_fns::generic_devices,
        device_params::collatz,
        device_params::waits_in_device_fns,
        device_params::array_results,
        control_flow::reversed,
        control_flow::iterators,
        control_flow::shared_iter,
        control_flow::stride_whiles,
        device_refs::sort_pairs_in_block,
        device_refs::block_scan_with_helper,
        device_refs::parts,
        device_refs::closures,
        device_refs::functions_as_values,
        cooperative::rounds,
        intrinsics::warp_masks,
        intrinsics::fast_math,
        math::math_f32,
        math::math_f64,
        math::imath_u32,
        math::imath_i64,
        math::imath_u8,
        math::clocks,
        math::float_to_int_f32,
        math::float_to_int_f64,
        options::bounded,
        options::warp_slots,
        options::fast,
        options::precise,
        options::unchecked_copy,
        options::fences,
        report::all_below,
        report::same_as,
        report::differs_from,
        report::no_negatives,
        report::classify,
        report::print_values,
        report::print_in_pieces,
        report::pair_sums,
        report::plain_guards,
        shared::transpose,
        shared::block_scan,
        sync::rotate_in_block,
        warp::shfl_i32,
        warp::shfl_u32,
        warp::shfl_i64,
        warp::shfl_u64,
        warp::shfl_f32,
        warp::shfl_f64,
        warp::warp_sum,
        warp::votes,
        warp::redux_masks,
        prims::block_and_warp,
        prims::guarded_rank,
        prims::warp_reductions,
        prims::warp_reductions_sm75,
    ]
}

/// Kernels longer than this (not counting source-line directives) are snapshotted by their
/// instruction mix rather than their text.
const MAX_LINES: usize = 400;

/// The lines of a PTX text that are code, not `.loc`/`.file` source-line directives.
fn code_lines(ptx: &str) -> usize {
    ptx.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with(".loc") && !t.starts_with(".file")
        })
        .count()
}

/// The instruction mix of a PTX text: each opcode (with its type suffixes) and how often it
/// appears, sorted.
fn shape(ptx: &str) -> String {
    let mut counts = std::collections::BTreeMap::new();
    for line in ptx.lines() {
        let t = line.trim_start();
        let t = t
            .strip_prefix('@')
            .map(|p| p.split_once(' ').map_or("", |x| x.1))
            .unwrap_or(t);
        let op = t
            .split(|c: char| c.is_whitespace() || c == ';')
            .next()
            .unwrap_or("");
        if op.is_empty()
            || op.starts_with("//")
            || op.starts_with('$')
            || op.starts_with('.')
            || op.starts_with('{')
            || op.starts_with('}')
            || op.starts_with(')')
            || op.starts_with('(')
        {
            continue;
        }
        *counts.entry(op.to_string()).or_insert(0usize) += 1;
    }
    let header: Vec<&str> = ptx
        .lines()
        .filter(|l| l.starts_with(".version") || l.starts_with(".target") || l.contains(".entry"))
        .collect();
    let mut out = header.join("\n");
    out.push_str(&format!(
        "\n// {} lines; instruction mix:\n",
        code_lines(ptx)
    ));
    for (op, n) in counts {
        out.push_str(&format!("{n:6} {op}\n"));
    }
    out
}

#[test]
fn feature_ptx_snapshots() {
    for (name, _, ptx) in kernels() {
        if code_lines(ptx) <= MAX_LINES {
            insta::assert_snapshot!(name, ptx);
        } else {
            insta::assert_snapshot!(name, shape(ptx));
        }
    }
}

#[test]
fn ptxas_accepts_every_feature_kernel() {
    cuprum_testkit::assert_ptxas_accepts(&kernels());
}

#[test]
fn shared_memory_kernels_use_the_shared_space() {
    for (name, _, ptx) in kernels() {
        if ptx.contains(".shared .align") || ptx.contains(".extern .shared") {
            assert!(
                ptx.contains("ld.shared")
                    || ptx.contains("st.shared")
                    || ptx.contains("atom.shared"),
                "{name} declares shared memory but never addresses it as .shared"
            );
        }
    }
    assert!(atomics::shared_atomics::PTX.contains("atom.shared.add.u64"));
}

/// Shared addresses are 32 bits (`-nvptx-short-ptr`, as nvcc's): no access to shared memory
/// takes a 64-bit address register, and the one conversion to a generic pointer (a
/// system-scope atomic, NVVM's generic intrinsic) widens the 32-bit address before
/// `cvta.shared.u64`.
#[test]
fn shared_addresses_are_32_bits() {
    for (name, _, ptx) in kernels() {
        for line in ptx.lines().map(str::trim) {
            let op = line.split_whitespace().next().unwrap_or("");
            if [".shared.", ".local.", ".const."]
                .iter()
                .any(|space| op.contains(space))
            {
                assert!(
                    !line.contains("[%rd"),
                    "{name}: a 64-bit address in a 32-bit space: {line}"
                );
            }
        }
    }
    let ptx = atomics::shared_atomics::PTX;
    let cvta = ptx
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("cvta.shared.u64"))
        .expect("the system-scope atomic converts its shared address");
    let src = cvta.trim_end_matches(';').rsplit(", ").next().unwrap();
    assert!(
        ptx.lines()
            .map(str::trim)
            .any(|l| l.starts_with("cvt.u64.u32") && l.contains(&format!("{src},"))),
        "{src} is the widened 32-bit address"
    );
    assert!(ptx.contains("atom.sys.add.u64"), "{ptx}");
}

/// `gpu::atomic_load` is a relaxed load at its scope (global at device and system scope; on
/// shared memory block scope is device scope, as for the other atomics), not a
/// read-modify-write.
#[test]
fn atomic_loads_are_relaxed_loads() {
    let ptx = atomics::relaxed_loads::PTX;
    for want in [
        "ld.relaxed.gpu.global.b64",
        "ld.relaxed.sys.global.b32",
        "ld.relaxed.gpu.shared.b64",
    ] {
        assert!(ptx.contains(want), "no {want} in\n{ptx}");
    }
}

/// A block collective after a `&&` guard keeps exactly the barriers and shuffles of its source
/// (`gpu::block::exclusive_sum`: two `bar.sync`, five scan shuffles and one more): none is
/// duplicated into the two sides of the guard, where threads would meet at different barriers.
#[test]
fn collectives_are_not_duplicated_into_branches() {
    let ptx = prims::guarded_rank::PTX;
    let count = |op: &str| {
        ptx.lines()
            .filter(|l| l.trim_start().starts_with(op))
            .count()
    };
    assert_eq!(count("bar.sync"), 2, "barriers duplicated:\n{ptx}");
    // The `u32` exclusive sum: five shuffles for the warp's scan, one `redux.sync` for the
    // warps before (sm_80, the default target).
    assert_eq!(count("shfl.sync.up"), 5, "shuffles duplicated:\n{ptx}");
    assert_eq!(count("redux.sync"), 1, "redux duplicated:\n{ptx}");
}
