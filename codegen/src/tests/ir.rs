//! The IR as a checked boundary: its printer (snapshots of what the checker and the IR
//! passes make), the verifier (every violated invariant, each reported), and the passes'
//! results keyed by check site.

use super::common;

use cuprum_codegen::ir::{ExprKind, Proj, Stmt};
use cuprum_codegen::{check, passes, print, verify, KernelOptions, Program};

/// The checked IR of a kernel, before the passes.
fn checked(src: &str, options: &KernelOptions) -> Program {
    check::check_kernel(&common::parse(src), options, &Default::default(), &[])
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The IR before and after the passes, as text; both must verify.
fn before_after(src: &str) -> String {
    let options = KernelOptions::default();
    let mut p = checked(src, &options);
    assert_eq!(verify::problems(&p, Some(true)), Vec::<String>::new());
    let before = print::program(&p);
    passes::optimize(&mut p, &options);
    assert_eq!(verify::problems(&p, Some(true)), Vec::<String>::new());
    format!("{before}\n=== after the passes ===\n{}", print::program(&p))
}

const SAXPY: &str = "fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}";

/// Two tile loads that store loaded values: checks first.
const TILES: &str = "fn tiles(a: &[f32], b: &[f32], o: &mut [f32], n: usize) {
    let ta = gpu::shared_array::<f32, 16>();
    let tb = gpu::shared_array::<f32, 16>();
    let t = gpu::thread_idx().x as usize;
    ta[t] = a[n * 16 + t];
    tb[t] = b[n * 16 + t];
    gpu::sync_threads();
    o[t] = ta[t] + tb[t];
}";

const LOOPS: &str = "fn loops(o: &mut [u32], n: u32) {
    let mut k = 0u32;
    let mut s = 0u32;
    while k < n {
        k += 1;
        if k % 3 == 0 { continue; }
        s += k / (n - k + 1);
        if s > 100 { break; }
    }
    for j in (0..8).step_by(2) { o[j] = s; }
    let r = loop { if k > 0 { break k; } k += 1; };
    o[0] = r;
}";

#[test]
fn printer_shows_sites_and_types() {
    insta::assert_snapshot!("saxpy", before_after(SAXPY));
}

#[test]
fn printer_shows_checks_made_first() {
    insta::assert_snapshot!("tiles", before_after(TILES));
}

#[test]
fn printer_shows_loops_and_their_exits() {
    insta::assert_snapshot!("loops", before_after(LOOPS));
}

#[test]
fn unchecked_kernels_have_no_sites_and_the_passes_leave_them() {
    let options = KernelOptions {
        checked: false,
        ..KernelOptions::default()
    };
    let mut p = checked(TILES, &options);
    let before = print::program(&p);
    passes::optimize(&mut p, &options);
    assert_eq!(print::program(&p), before);
    assert!(!before.contains("@s"), "{before}");
    assert_eq!(verify::problems(&p, Some(false)), Vec::<String>::new());
}

#[test]
fn checks_first_keeps_the_sites_and_elides_the_accesses() {
    // Checks first alone (the bounds pass would version this kernel).
    let options = KernelOptions {
        prove_bounds: false,
        ..KernelOptions::default()
    };
    let mut p = checked(TILES, &options);
    let n = p.sites.len();
    passes::optimize(&mut p, &options);
    // The checks made first carry the original sites (so the PTX names the same sites);
    // the accesses got new, elided ones.
    let firsts: Vec<u32> = p
        .kernel
        .body
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Expr(e) => match &e.kind {
                ExprKind::IndexCheck { site, .. } => *site,
                _ => None,
            },
            _ => None,
        })
        .collect();
    // In Rust's order: the value's read, then the place written.
    assert_eq!(firsts, vec![1, 0, 3, 2], "{}", print::program(&p));
    assert!(p.sites[..n].iter().all(|s| s.elided.is_none()));
    assert!(p.sites[n..].iter().all(|s| s.elided.is_some()));
    assert_eq!(p.sites.len(), n + 4);
}

#[test]
fn the_verifier_reports_every_violation() {
    let mut p = checked(LOOPS, &KernelOptions::default());
    assert!(verify::problems(&p, Some(true)).is_empty());
    let sites = p.sites.len() as u32;
    let locals = p.kernel.locals.len();
    // A local, a loop, a site out of range; a `break` moved out of its loop; an index of
    // the wrong type.
    let body = &mut p.kernel.body;
    let Stmt::Let { init, .. } = &mut body.stmts[0] else {
        panic!("let")
    };
    init.kind = ExprKind::Read(cuprum_codegen::ir::Place {
        base: locals + 5,
        proj: Vec::new(),
        ty: init.ty.clone(),
    });
    let mut moved_break = None;
    for s in &mut body.stmts {
        if let Stmt::Expr(e) = s {
            match &mut e.kind {
                ExprKind::While(id, _, b) => {
                    *id = 99;
                    cuprum_codegen::walk::block(b, &mut |x| {
                        if matches!(x.kind, ExprKind::Break(..)) && moved_break.is_none() {
                            moved_break = Some(x.clone());
                        }
                    });
                }
                ExprKind::For { body, .. } => {
                    let Some(Stmt::Expr(a)) = body.stmts.first_mut() else {
                        panic!("o[j] = s")
                    };
                    let ExprKind::Assign(place, _) = &mut a.kind else {
                        panic!("assignment")
                    };
                    let Proj::Index { site, index } = &mut place.proj[0] else {
                        panic!("index")
                    };
                    *site = Some(sites + 7);
                    index.ty = cuprum_codegen::ty::Ty::U32;
                }
                _ => {}
            }
        }
    }
    let moved_break = moved_break.expect("the while loop's break");
    body.stmts.push(Stmt::Expr(moved_break));
    let problems = verify::problems(&p, Some(true)).join("\n");
    for expected in [
        "local l",
        "loop 99 out of range",
        "`break` of loop",
        &format!("check site s{} out of range", sites + 7),
        "index of type u32",
    ] {
        assert!(
            problems.contains(expected),
            "missing {expected:?} in:\n{problems}"
        );
    }
}

/// The IR of a kernel compiled with `#[kernel(..)]` options, after the passes.
fn optimized(src: &str, attr: proc_macro2::TokenStream) -> String {
    let options = KernelOptions::parse(attr).unwrap();
    let mut p = checked(src, &options);
    passes::optimize(&mut p, &options);
    assert_eq!(verify::problems(&p, Some(true)), Vec::<String>::new());
    print::program(&p)
}

/// The IR after the passes with the versioning test in the kernel (as where the launch
/// does not know a value the test reads).
fn in_kernel_test(src: &str) -> String {
    let options = KernelOptions {
        host_tests: false,
        ..KernelOptions::default()
    };
    let mut p = checked(src, &options);
    passes::optimize(&mut p, &options);
    assert_eq!(verify::problems(&p, Some(true)), Vec::<String>::new());
    assert!(p.host_test.is_none());
    print::program(&p)
}

const TRANSPOSE: &str =
    "fn transpose_coalesced(odata: &mut [f32], idata: &[f32], w: usize, h: usize) {
    let tile = gpu::shared_array_2d::<f32, 32, 33>();
    let tx = gpu::thread_idx().x as usize;
    let ty = gpu::thread_idx().y as usize;
    let mut x = gpu::block_idx().x as usize * 32 + tx;
    let mut y = gpu::block_idx().y as usize * 32 + ty;
    for j in (0..32).step_by(8) {
        if x < w && y + j < h {
            tile[ty + j][tx] = idata[(y + j) * w + x];
        }
    }
    gpu::sync_threads();
    x = gpu::block_idx().y as usize * 32 + tx;
    y = gpu::block_idx().x as usize * 32 + ty;
    for j in (0..32).step_by(8) {
        if x < h && y + j < w {
            odata[(y + j) * h + x] = tile[tx][ty + j];
        }
    }
}";

#[test]
fn bounds_uses_the_block_shape() {
    insta::assert_snapshot!(
        "transpose_block",
        optimized(TRANSPOSE, quote::quote!(block = (32, 8)))
    );
}

const JACOBI: &str = "fn jacobi_2d(out: &mut [f32], a: &[f32], nx: usize, ny: usize) {
    let i = gpu::global_id_x();
    let j = gpu::global_id_y();
    if i >= 1 && j >= 1 && i + 1 < nx && j + 1 < ny {
        let c = j * nx + i;
        out[c] = 0.25 * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx]);
    }
}";

#[test]
fn bounds_versions_the_body_on_a_uniform_test() {
    insta::assert_snapshot!("jacobi_versioned", optimized(JACOBI, quote::quote!()));
}

/// The bench's Jacobi step: a boundary test by `==` under `i < n && j < n`.
const JACOBI_EQ: &str = "fn jacobi(out: &mut [f32], inp: &[f32], n: u32) {
    let j = (gpu::block_idx().x * 32 + gpu::thread_idx().x) as usize;
    let i = (gpu::block_idx().y * 8 + gpu::thread_idx().y) as usize;
    let n = n as usize;
    if i < n && j < n {
        let idx = i * n + j;
        if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
            out[idx] = inp[idx];
        } else {
            out[idx] = 0.25 * ((inp[idx - n] + inp[idx + n]) + (inp[idx - 1] + inp[idx + 1]));
        }
    }
}";

#[test]
fn bounds_learns_from_equality_tests() {
    let ir = optimized(JACOBI_EQ, quote::quote!());
    // Every access of the first copy is elided; the second keeps all seven checks.
    assert_eq!(ir.matches(":versioned]").count(), 7, "{ir}");
    for site in 0..7 {
        assert!(ir.contains(&format!(" @s{site}]")), "{ir}");
    }
    insta::assert_snapshot!("jacobi_eq_versioned", ir);
}

#[test]
fn loops_are_checked_once_for_every_turn() {
    // Loop predication: every turn's index is below `n * m` (and `k < n` in the `while`),
    // so one uniform test covers all turns; the copy keeps no check of `out` or `a`.
    let src = "fn rows(out: &mut [f32], a: &[f32], n: usize, m: usize) {
        let j = gpu::global_id_x();
        if j < m {
            for i in 0..n {
                out[i * m + j] = 1.0;
            }
            let mut k = 0;
            while k < n {
                out[j] += a[k];
                k += 1;
            }
        }
    }";
    let ir = optimized(src, quote::quote!());
    assert_eq!(ir.matches(":versioned]").count(), 3, "{ir}");
    assert!(
        ir.contains("<= len(out_0)") && ir.contains("<= len(a_1)"),
        "{ir}"
    );
}

#[test]
fn a_guard_on_the_index_itself_proves_it_even_if_it_wraps() {
    // `i + 256` may wrap (nothing bounds `i`), but the access uses the value the guard
    // compared: in range, no versioning needed (reduction #6's second load).
    let src = "fn pairs(out: &mut [f32], x: &[f32], step: usize) {
        let mut i = gpu::global_id_x();
        let mut sum = 0.0f32;
        while i < x.len() {
            sum += x[i];
            if i + 256 < x.len() {
                sum += x[i + 256];
            }
            i += step;
        }
        if i - 1 < out.len() {
            out[i - 1] = sum;
        }
        out[0] = sum;
    }";
    let ir = optimized(src, quote::quote!());
    assert_eq!(ir.matches("(elided: in range)").count(), 3, "{ir}");
    assert!(!ir.contains("versioned"), "{ir}");
    // A different expression than the one compared is not proved by it.
    let other = src.replace("sum += x[i + 256]", "sum += x[i + 255]");
    // Nor versioned on a test that can never hold (`len(x) + 255 <= len(x)`).
    let ir = optimized(&other, quote::quote!());
    assert_eq!(ir.matches("(elided: in range)").count(), 2, "{ir}");
    assert!(!ir.contains("versioned"), "{ir}");
}

#[test]
fn launch_dimensions_bound_unguarded_indices_cheaply() {
    // No guard: each block handles one row of `cols`, 256 threads declared. The grid's size
    // bounds `block_idx().x`, so one test per slice (`grid_dim().x * cols <= len`, plain
    // arithmetic: `cols` is a `u32`, the grid below 2^31) elides all four checks.
    let src = "fn rows(out: &mut [f32], x: &[f32], cols: u32) {
        let base = gpu::block_idx().x as usize * cols as usize;
        let t = gpu::thread_idx().x as usize;
        out[base + t] = x[base + t];
        out[base + t + 256] = x[base + t + 256];
    }";
    let ir = optimized(src, quote::quote!(block = 256));
    assert_eq!(ir.matches("(elided: versioned)").count(), 4, "{ir}");
    assert!(ir.contains("grid_dim().x"), "{ir}");
    assert!(
        !ir.contains("18446744073709551615"),
        "no saturating arithmetic:\n{ir}"
    );
    // `usize` symbols whose product could wrap are first tested to be at most 2^32 - 1.
    let src = "fn grid(out: &mut [f32], nx: usize, ny: usize) {
        let (i, j) = (gpu::global_id_x(), gpu::global_id_y());
        if i < nx && j < ny {
            out[j * nx + i] = 1.0;
        }
    }";
    // The launch evaluates that test exactly (no limit on the symbols)...
    let ir = optimized(src, quote::quote!());
    assert!(ir.contains("if host_test()"), "{ir}");
    assert!(ir.contains("1·nx_1·ny_2 <= len(out_0)"), "{ir}");
    assert!(!ir.contains("4294967295"), "{ir}");
    // ... which the kernel would otherwise test itself (where a value is not the launch's),
    // `usize` symbols whose product could wrap first tested to be at most 2^32 - 1.
    let ir = in_kernel_test(src);
    assert!(!ir.contains("host_test"), "{ir}");
    assert!(ir.contains("(nx_1 <= 4294967295usize)"), "{ir}");
    assert!(!ir.contains("18446744073709551615"), "{ir}");
}

#[test]
fn a_copy_that_drops_no_check_in_a_loop_is_not_made() {
    // The loop's accesses are proved where they stand; only `out[t]` after the loop is a
    // candidate: copying the loop for it is not worth it.
    let src = "fn sums(out: &mut [f32], x: &[f32]) {
        let t = gpu::block_idx().x as usize * 128 + gpu::thread_idx().x as usize;
        let mut s = 0.0f32;
        for i in 0..x.len() {
            s += x[i];
        }
        out[t] = s;
    }";
    let ir = optimized(src, quote::quote!(block = 128));
    assert!(!ir.contains("versioned"), "{ir}");
    // Without the loop, the same access is versioned (`128 * grid_dim().x <= len(out)`).
    let ir = optimized(
        "fn one(out: &mut [f32]) {
            out[gpu::block_idx().x as usize * 128 + gpu::thread_idx().x as usize] = 1.0;
        }",
        quote::quote!(block = 128),
    );
    assert!(ir.contains("(elided: versioned)"), "{ir}");
}

#[test]
fn a_copy_whose_loops_keep_a_check_is_not_made() {
    // `b[k * n + x]` is a candidate (`k * n <= len(b)`), `a[i]` is not (nothing bounds
    // `i`): the copy's loop would still check `a`, so no copy.
    let src = "fn dots(c: &mut [f32], a: &[f32], b: &[f32], n: usize, k: usize, step: usize) {
        let x = gpu::global_id_x();
        if x < n {
            let mut acc = 0.0f32;
            let mut i = x;
            for j in 0..k {
                acc += a[i] * b[j * n + x];
                i += step;
            }
            c[x] = acc;
        }
    }";
    let ir = optimized(src, quote::quote!());
    assert!(!ir.contains("versioned"), "{ir}");
    // Without `a`, the loop is left with no check: versioned.
    let ir = optimized(&src.replace("a[i] * ", ""), quote::quote!());
    assert!(ir.contains("(elided: versioned)"), "{ir}");
}

#[test]
fn a_guard_on_a_multiple_bounds_it_by_the_next_multiple() {
    // convolutionSeparable's column pass: the top halo row `y0 + ty - 8` is read under
    // `if y0 > 0`; `y0` is a multiple of 64, so it is at least 64 there and the index is
    // non-negative. Every access of the copy is then versioned (none left checked).
    let src = "fn cols(out: &mut [f32], inp: &[f32], width: u32, height: u32) {
        let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
        let (w, h) = (width as usize, height as usize);
        let x = gpu::block_idx().x as usize * 16 + tx;
        let y0 = gpu::block_idx().y as usize * 8 * 8;
        let mut acc = 0.0f32;
        for i in 1..9 {
            acc += inp[(y0 + ty + (i - 1) * 8) * w + x];
        }
        if y0 > 0 {
            acc += inp[(y0 + ty - 8) * w + x];
        }
        let below = y0 + 64 + ty;
        if below < h {
            acc += inp[below * w + x];
        }
        out[(y0 + ty) * w + x] = acc;
    }";
    let ir = optimized(src, quote::quote!(block = (16, 8)));
    assert_eq!(ir.matches(":versioned]").count(), 4, "{ir}");
    // Without the multiple (`y0 = block_idx().y * 64 + 1`), `y0 > 0` says nothing about
    // `y0 - 8`: that access keeps its check in the copy.
    let src2 = src.replace("* 8 * 8;", "* 8 * 8 + 1;");
    let ir = optimized(&src2, quote::quote!(block = (16, 8)));
    assert_eq!(ir.matches(":versioned]").count(), 3, "{ir}");
}

#[test]
fn a_guard_below_a_length_over_d_proves_d_elements_per_index() {
    // nbody (bench suite, `examples/nbody_tile.rs`): `n = body.len() / 4` bodies of four
    // floats; under `j < n`, `4 * j + c` for `c < 4` is below `4 * n <= body.len()`: the
    // tile loop's four loads and the first three are in range, without a versioning test.
    // `accel` (three per body) is not bounded by `n`: its three stores keep their checks.
    let src = "fn nbody(accel: &mut [f32], body: &[f32], eps2: f32) {
        let tile = gpu::shared_array::<f32, 1024>();
        let n = body.len() / 4;
        let t = gpu::thread_idx().x as usize;
        let i = gpu::global_id_x();
        let (mut px, mut py, mut pz) = (0.0f32, 0.0f32, 0.0f32);
        if i < n {
            px = body[4 * i];
            py = body[4 * i + 1];
            pz = body[i * 4 + 2];
        }
        let mut ax = 0.0f32;
        for start in (0..n).step_by(256) {
            let j = start + t;
            for c in 0..4 {
                tile[4 * t + c] = if j < n { body[4 * j + c] } else { 0.0 };
            }
            gpu::sync_threads();
            for k in 0..256 {
                ax += (tile[4 * k] - px + py + pz) * eps2;
            }
            gpu::sync_threads();
        }
        if i < n {
            accel[3 * i] = ax;
        }
    }";
    let ir = optimized(src, quote::quote!(block = 256));
    // body: 3 + 1 (fact from `i < n`, `j < n`); tile: 2 (its range).
    assert_eq!(ir.matches("(elided: in range)").count(), 6, "{ir}");
    assert!(!ir.contains("versioned"), "{ir}");
    // `c` up to 4 is past the four elements of body `j` (and past the tile): not proved.
    let past = src.replace("for c in 0..4", "for c in 0..5");
    let ir = optimized(&past, quote::quote!(block = 256));
    assert_eq!(ir.matches("(elided: in range)").count(), 4, "{ir}");
    // Nor is a guard against `len / 4` with a factor of 8 (`8 * j + c` may reach 8n).
    let eight = src.replace("body[4 * j + c]", "body[8 * j + c]");
    let ir = optimized(&eight, quote::quote!(block = 256));
    assert_eq!(ir.matches("(elided: in range)").count(), 5, "{ir}");
}

#[test]
fn a_loop_to_n_over_d_bounds_its_variable_times_d() {
    // `t < k / 32`, so `32·t <= k − 32`: `x[t * 32 + i]` (`i < 32`) holds when `k <= len(x)`,
    // tested once for every turn. The copy's loop checks nothing.
    let src = "fn sums(out: &mut [f32], x: &[f32], k: usize) {
        let i = gpu::thread_idx().x as usize;
        if i < 32 {
            let mut acc = 0.0f32;
            for t in 0..k / 32 {
                acc += x[t * 32 + i];
            }
            out[i] = acc;
        }
    }";
    let ir = in_kernel_test(src);
    assert!(ir.contains("(elided: versioned)"), "{ir}");
    // A multiple that is not one of 32 (`16·t`) has no bound: no copy (its loop would keep
    // the check).
    let ir = in_kernel_test(&src.replace("t * 32", "t * 16"));
    assert!(!ir.contains("versioned"), "{ir}");
    // Nor a quotient of what nothing bounds (a value read from memory).
    let src2 = src.replace("k / 32", "(x[0] as usize) / 32");
    let ir = in_kernel_test(&src2);
    assert!(!ir.contains("versioned"), "{ir}");
}

#[test]
fn shared_tiles_indexed_by_thread_indices_join_the_test_on_the_block_shape() {
    // An undeclared block: `tile[ty][tx]` holds when `block_dim() <= (16, 8)`; the copy that
    // `x`'s index justifies drops the tile's checks too, tested on the launch's shape.
    let src = "fn tiles(out: &mut [f32], x: &[f32], n: u32) {
        let tile = gpu::shared_array_2d::<f32, 8, 16>();
        let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
        let n = n as usize;
        for t in 0..n / 16 {
            tile[ty][tx] = x[t * 16 + tx];
            gpu::sync_threads();
            out[t * 16 + tx] += tile[tx % 8][ty];
            gpu::sync_threads();
        }
    }";
    let mut options = KernelOptions::default();
    let mut p = checked(src, &options);
    passes::optimize(&mut p, &options);
    let t = p.host_test.clone().expect("versioned on a host test");
    use cuprum_codegen::HostValue;
    for v in [
        HostValue::BlockDim(0),
        HostValue::BlockDim(1),
        HostValue::Const(16),
        HostValue::Const(8),
    ] {
        assert!(t.values.contains(&v), "{v:?} missing from {t:?}");
    }
    // `tile[tx % 8][ty]`: `tx % 8` is proved, `ty < 16` joins the test; the copy checks
    // nothing.
    let ir = print::program(&p);
    let copy = ir.split("} else {").next().unwrap();
    let checked_sites = copy
        .split("@s")
        .skip(1)
        .filter(|r| {
            !r.trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with(':')
        })
        .count();
    assert!(copy.contains("host_test()") && checked_sites == 0, "{ir}");
    // Tested in the kernel where the launch cannot (constant lengths as literals).
    let ir = in_kernel_test(src);
    assert!(
        ir.contains("<= 8usize") && ir.contains("<= 16usize"),
        "{ir}"
    );
    // The declared block of the tile's shape proves them: no block term.
    options = KernelOptions::parse(quote::quote!(block = (16, 8))).unwrap();
    let mut p = checked(src, &options);
    passes::optimize(&mut p, &options);
    let t = p.host_test.clone().expect("versioned on a host test");
    assert!(
        !t.values.iter().any(|v| matches!(v, HostValue::BlockDim(_))),
        "{t:?}"
    );
    // The tile alone (no slice in the loop) makes no copy: LLVM folds such checks often, and
    // they do not pay for a second body.
    let alone = "fn tile_only(out: &mut [f32]) {
        let tile = gpu::shared_array_2d::<f32, 8, 16>();
        let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
        tile[ty][tx] = 1.0;
        gpu::sync_threads();
        if tx == 0 && ty == 0 {
            out[0] = tile[3][5];
        }
    }";
    let ir = optimized(alone, quote::quote!());
    assert!(!ir.contains("versioned"), "{ir}");
}
