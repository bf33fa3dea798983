//! `latch::rewrite`: loop latches in the form ptxas unrolls (`setp; @%p bra HEADER`).

use super::common;

use cuprum_codegen::latch::rewrite;
use cuprum_codegen::KernelOptions;

/// convolve_cols' fast copy as LLVM wrote it: its loop's exit (the `ret` it shares with the
/// checked copy) is laid out elsewhere, so the latch branches out and jumps back.
const SHARED_EXIT: &str = "\
.visible .entry k(
\t.param .u64 k_param_0
)
{
\tmov.b64 \t%rd133, 0;
$L__BB1_11:
\tadd.s64 \t%rd133, %rd133, 32;
\t.loc\t1 115 9
\tsetp.eq.b64 \t%p13, %rd133, 256;
\t@%p13 bra \t$L__BB1_12;
\tbra.uni \t$L__BB1_11;
$L__BB1_10:
\tret;
$L__BB1_12:
\tret;
}
";

#[test]
fn a_latch_that_jumps_back_branches_back() {
    let got = rewrite(SHARED_EXIT);
    assert!(
        got.contains(
            "\tsetp.ne.b64 \t%p13, %rd133, 256;\n\t@%p13 bra \t$L__BB1_11;\n\tbra.uni \t$L__BB1_12;\n"
        ),
        "{got}"
    );
    // When the exit is the next block, it falls through.
    let next = SHARED_EXIT.replace("$L__BB1_10:\n\tret;\n", "");
    let got = rewrite(&next);
    assert!(
        got.contains("\t@%p13 bra \t$L__BB1_11;\n$L__BB1_12:\n"),
        "{got}"
    );
    // Idempotent.
    assert_eq!(rewrite(&got), got);
}

/// A loop laid out with its latch above its header: the latch's conditional branch is the
/// back-edge already, the jump up goes to the exit.
const HEADER_BELOW: &str = "\
.visible .entry k(
\t.param .u64 k_param_0
)
{
\tmov.b32 \t%r1, 0;
\tbra.uni \t$L__BB1_3;
$L__BB1_2:
\tret;
$L__BB1_1:
\tadd.s32 \t%r1, %r1, 1;
\tsetp.ne.b32 \t%p1, %r1, 8;
\t@%p1 bra \t$L__BB1_3;
\tbra.uni \t$L__BB1_2;
$L__BB1_3:
\tst.shared.b32 \t[%r1], %r1;
\tbra.uni \t$L__BB1_1;
}
";

#[test]
fn other_branches_are_left_alone() {
    let unchanged = [
        // A forward jump, not a back-edge.
        SHARED_EXIT
            .replace(
                "\tmov.b64 \t%rd133, 0;\n$L__BB1_11:\n",
                "\tmov.b64 \t%rd133, 0;\n",
            )
            .replace("$L__BB1_10:\n", "$L__BB1_10:\n$L__BB1_11:\n"),
        // A floating-point comparison (its negation is an unordered one).
        SHARED_EXIT.replace(
            "setp.eq.b64 \t%p13, %rd133, 256",
            "setp.eq.f32 \t%p13, %r1, %r2",
        ),
        // The predicate is read again.
        SHARED_EXIT.replace("$L__BB1_10:\n\tret;", "$L__BB1_10:\n\t@%p13 ret;"),
        // The branch's predicate is not the comparison's.
        SHARED_EXIT.replace("@%p13 bra", "@%p1 bra"),
    ];
    for ptx in unchanged.into_iter().chain([HEADER_BELOW.to_string()]) {
        assert_eq!(rewrite(&ptx), ptx);
    }
    // A latch on `%p1` is rewritten although `%p13` is read elsewhere.
    let two = SHARED_EXIT.replace("%p13", "%p1").replace(
        "\tret;\n}",
        "\tsetp.eq.b32 \t%p13, %r1, 0;\n\t@%p13 ret;\n\tret;\n}",
    );
    assert!(rewrite(&two).contains("@%p1 bra \t$L__BB1_11;"), "{two}");
}

/// convolve_cols (bench suite, `examples/convolution.rs`): the checked build versions its
/// body, and its fast copy's eight-output loop must end with a conditional back-edge, as the
/// unchecked build's does, for ptxas to unroll it.
#[test]
fn a_versioned_kernels_loops_branch_back() {
    let src = "fn cols(out: &mut [f32], inp: &[f32], width: u32, height: u32) {
        let tile = gpu::shared_array_2d::<f32, 16, { 10 * 8 + 1 }>();
        let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
        let (w, h) = (width as usize, height as usize);
        let x = gpu::block_idx().x as usize * 16 + tx;
        let y0 = gpu::block_idx().y as usize * 8 * 8;
        for i in 1..9 {
            tile[tx][ty + i * 8] = inp[(y0 + ty + (i - 1) * 8) * w + x];
        }
        tile[tx][ty] = if y0 > 0 { inp[(y0 + ty - 8) * w + x] } else { 0.0 };
        let below = y0 + 8 * 8 + ty;
        tile[tx][ty + 9 * 8] = if below < h { inp[below * w + x] } else { 0.0 };
        gpu::sync_threads();
        for i in 1..9 {
            let r = ty + i * 8;
            let mut acc = 0.0f32;
            for k in 0..17 {
                acc += tile[tx][r + k - 8];
            }
            out[(y0 + r - 8) * w + x] = acc;
        }
    }";
    let options = KernelOptions::parse(quote::quote!(block = (16, 8))).unwrap();
    let ptx = common::compile_with(src, &options).unwrap().ptx;
    assert_eq!(rewrite(&ptx), ptx, "nothing left to rewrite");
    // Both copies' output loops (eight turns, 32 bytes of shared tile each) end with the
    // conditional back-edge `setp.ne.b32 %p, %r, 256; @%p bra HEADER` (a 32-bit shared
    // address counts the turns).
    let lines: Vec<&str> = ptx
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with(".loc"))
        .collect();
    let back_edges = lines
        .windows(2)
        .filter(|w| {
            let Some(pred) = w[0]
                .strip_prefix("setp.ne.b32")
                .filter(|rest| rest.ends_with(", 256;"))
                .and_then(|rest| rest.trim().split(',').next())
            else {
                return false;
            };
            w[1].starts_with(&format!("@{pred} bra"))
        })
        .count();
    assert_eq!(back_edges, 2, "{ptx}");
}
