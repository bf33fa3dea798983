//! A fuzz run of the front end: mutated valid kernels (plain, generic instances, calling
//! `#[device]` functions), mutated device functions, random typed programs, random token
//! streams, fed to `compile` (and, for what compiles, the simulator emitter), `check_device`,
//! `parse_launch` and `KernelOptions::parse`. Nothing may panic: every input either compiles
//! or is rejected with errors.
//!
//! `cargo test` runs a short, deterministic pass (a few hundred inputs of each kind). The long
//! mode runs for a given time with a fresh seed and prints its figures:
//!
//! ```text
//! CUPRUM_FUZZ_SECS=660 cargo test --release -p cuprum-codegen --test fuzz -- --nocapture
//! ```
//!
//! A panic is reported by proptest with the input, shrunk to a small case.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cuprum_codegen::device::{DeviceFn, DeviceTable};
use cuprum_codegen::launch::parse_launch;
use cuprum_codegen::ty::Scalar;
use cuprum_codegen::{compile, KernelOptions, KernelSource, Target};
use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

/// Valid kernels the mutations start from; each exercises a different part of the language.
const CORPUS: &[&str] = &[
    "fn saxpy(y: &mut [f32], x: &[f32], a: f32) { let i = gpu::global_id_x(); if i < y.len() { y[i] = a * x[i] + y[i]; } }",
    "fn arith(o: &mut [i32], x: &[i32]) { let i = gpu::global_id_x(); if i >= o.len() { return; } let v = x[i]; let a = v.wrapping_mul(3) - 7; let b = a / 5 + a % 5; let c = (b << 2) ^ (b >> 1) | (a & 0xff); o[i] = -c + !a; }",
    "fn floats(o: &mut [f32], x: &[f32]) { let i = gpu::global_id_x(); if i < o.len() { let v = x[i]; let a = v * 0.5 - 1.25; let b = (a / 3.0) % 1.5; let c = if b < 0.0 { -b } else { b }; o[i] = c.max(0.125).min(0.75).abs().floor() + c.sqrt().ceil() + (-a).trunc() + a.round(); } }",
    "fn casts(o: &mut [i64], x: &[i32]) { let i = gpu::global_id_x(); if i < o.len() { let v = x[i]; let a = v as u8 as i64; let c = (v as f32 * 0.37) as i64; let e = (v > 0) as i64; o[i] = a + c * 5 + e * 11; } }",
    "fn loops(o: &mut [u64], n: u32) { let m = (n % 50) as u64; let mut s = 0u64; for i in 0..m { s += i * i; } for i in 3..=m { s += i; } for i in (1..m).step_by(3) { s ^= i << 2; } let mut k = 0; while k < 10 { k += 1; if k == 3 { continue; } } o[0] = s + k; }",
    "fn labels(o: &mut [u32], v: u32) { let mut count = 0u32; 'outer: for i in 0..(v % 20) { for j in 0..10u32 { if j == 7 { continue 'outer; } if i * j > 40 { break 'outer; } count += i * 10 + j; } } o[0] = count; }",
    "fn arrays(o: &mut [u32], v: u32) { let mut a = [0u32; 8]; for i in 0..8 { a[i] = v.wrapping_mul(i as u32 + 1) % 97; } let b = [1u32, 2, 3, 4]; let mut s = 0; for i in 0..a.len() { s += a[i] * b[i % 4]; } o[0] = s + a[(v % 8) as usize]; }",
    "fn tuples(o: &mut [i64], v: i64) { let t = (v, v * 2, (v & 1) == 1); let (a, b, odd) = t; let mut pair = (a - b, 0i64); pair.1 = if odd { 7 } else { -7 }; let (p, _) = pair; o[0] = p + pair.1 + t.1; }",
    "fn breaks(o: &mut [i32], v: i32) { let mut k = 0; let found = loop { k += 1; if k * k > v.abs() % 5000 { break k; } }; o[0] = found; }",
    "fn f64s(o: &mut [f64], v: f64) { let x = v * 1e-3; let mut acc = 1.0; let mut term = 1.0; for k in 1..12 { term = term * x / k as f64; acc = acc + term; } o[0] = acc.mul_add(2.0, -1.0); }",
    "fn dims(o: &mut [u32]) { let t = gpu::thread_idx(); let b = gpu::block_idx(); let d = gpu::block_dim(); let i = (b.x * d.x + t.x) as usize; gpu::sync_threads(); if i < o.len() { o[i] = gpu::lane_id() + gpu::warp_id() * gpu::WARP_SIZE + gpu::grid_dim().y; } }",
    "fn shadow(o: &mut [i8], v: i8, c: bool) { let x = v; let x = x.wrapping_add(1); let y = { let x = x.max(-5); x.min(90) }; let z = if c { y } else if y < 0 { -y } else { 0 }; o[0] = x + y + z; }",
    "fn consts(o: &mut [f32], m: &mut [u64]) { o[0] = f32::MAX + f32::EPSILON + std::f32::consts::PI; m[0] = u64::MAX / (u32::BITS as u64); }",
    // Shared memory, barriers and fences.
    "fn shared(o: &mut [f32], x: &[f32]) { let t = gpu::shared_array::<f32, 256>(); let g = gpu::shared_array_2d::<u32, 16, { 16 + 1 }>(); let tid = gpu::thread_idx().x as usize; t[tid % 256] = x[tid % x.len()]; g[tid % 16][tid % 17] = tid as u32; gpu::sync_threads(); gpu::thread_fence_block(); let n = gpu::sync_threads_count(tid % 2 == 0); if gpu::sync_threads_or(n > 3) { o[tid % o.len()] = t[255 - tid % 256] + g[0][tid % 17] as f32; } }",
    "fn dynamic(o: &mut [f64]) { let d = gpu::dynamic_shared::<f64>(); let tid = gpu::thread_idx().x as usize; if tid < d.len() { d[tid] = tid as f64; } gpu::sync_threads(); if tid < d.len() && tid < o.len() { o[tid] = d[d.len() - 1 - tid]; } gpu::thread_fence(); }",
        // Runs whose checks go first (passes/checks_first.rs): stored loads, known and unknown lets, an
    // `if` and a short loop.
    "fn runs(a: &mut [f32], b: &mut [f32], x: &[f32], n: u32) { let t = gpu::thread_idx().x as usize; let tile = gpu::shared_array_2d::<f32, 32, 33>(); let v = [x[t], x[t + 1]]; let w = v[0] + 1.0; a[t] = x[t + 2]; b[t] = x[t + 3] * w; for k in [0usize, 8, 16, 24] { let r = t / 32 + k; if r < n as usize { tile[r % 32][t % 33] = x[r * 32 + t % 32]; } } gpu::sync_threads(); a[0] = tile[1][2]; }",
    // Atomics on global and shared memory, every scope.
    "fn atomics(c: &mut [u32], f: &mut [f32], w: &mut [i64]) { let i = gpu::global_id_x(); let s = gpu::shared_array::<u32, 32>(); let old = gpu::atomic_add(&mut c[i % c.len()], 1); gpu::atomic_max_block(&mut s[i % 32], old); gpu::atomic_add_system(&mut f[0], 0.5f32); let prev = gpu::atomic_cas(&mut c[0], 0, 7); gpu::atomic_inc(&mut c[1], 100); gpu::atomic_xor(&mut w[0], prev as i64); gpu::atomic_exch(&mut f[1], 2.0); }",
    // Warp shuffles and votes.
    "fn warp(o: &mut [f32], b: &mut [u32]) { let i = gpu::global_id_x(); let mut v = o[i % o.len()]; let mut d = 16u32; while d > 0 { v += gpu::shfl_down_sync(gpu::FULL_MASK, v, d); d /= 2; } let lane = gpu::lane_id(); let bal = gpu::ballot_sync(gpu::FULL_MASK, v > 0.0); let m = gpu::match_any_sync(gpu::activemask(), lane % 4); if gpu::all_sync(gpu::FULL_MASK, true) && lane == 0 { b[0] = bal ^ m ^ gpu::shfl_xor_sync(gpu::FULL_MASK, lane, 1); o[0] = v; } }",
    // libdevice math, the `f32::name(x)` forms and bit casts.
    "fn math(o: &mut [f32], d: &mut [f64], x: &[f32]) { let i = gpu::global_id_x(); if i < o.len() && i < x.len() { let v = x[i]; o[i] = v.sin() + v.exp().ln() + v.powf(2.5) + v.atan2(1.0) + v.hypot(3.0) + gpu::rsqrt(v.abs() + 1.0) + f32::sqrt(v.abs()) + <f32>::max(v, 0.0) + f32::from_bits(v.to_bits() ^ 1) + v.clamp(-1.0, 1.0) + v.powi(3) + v.cbrt(); d[0] = (v as f64).tanh() + f64::exp2(2.0); } }",
    "fn ints(o: &mut [u32], m: &mut [i64]) { let i = gpu::global_id_x() as u32; o[0] = i.count_ones() + i.leading_zeros() + i.rotate_left(3) + i.reverse_bits() + i.pow(2) + u32::max(i, 7) + i.wrapping_neg(); m[0] = (i as i64).abs().clamp(-5, 5) + gpu::clock64() as i64 % 2; }",
    // Printing and assertions: format strings with specs, named and captured arguments.
    "fn report(o: &mut [u32], x: &[f32], n: u32) { let i = gpu::global_id_x(); assert!(i < o.len(), \"i = {} of {n}\", i); assert_eq!(o[i] % 2, 0u32, \"at {i}\"); debug_assert_ne!(x[i], 1.5); gpu::println!(\"{i} {:>8.3} {:#x} {:?} {{}} {w:+05}\", x[i], o[i], x[i] > 0.0, w = n as i8); gpu::print!(\"{:e}\", x[0]); if n > 7 { panic!(\"n = {}\", n); } o[i] = if n == 0 { 1 } else if n > 0 { 2 } else { unreachable!() }; }",
    // `#[device]` functions (see DEVICES): plain, in a module, generic, taking a slice.
    CORPUS_DEVICES,
    // A generic kernel: compiled for the instance types in `generics_for`.
    CORPUS_GENERIC,
    "fn bits<T: gpu::Int>(o: &mut [T], a: T) { let i = gpu::global_id_x(); if i < o.len() { o[i] = a.rotate_left(1) ^ T::MAX ^ twice(o[i]); gpu::atomic_add(&mut o[0], a); } }",
    // Body constants: values, lengths, tables, constant expressions.
    "fn consts(o: &mut [f32], x: &[f32]) { const N: usize = 4; const M: usize = N * 2 + 1; const T: [f32; N] = [0.5, -1.0, 2.0, 0.25]; static W: [[u32; 2]; 2] = [[1, 2], [3, 4]]; let s = gpu::shared_array::<f32, { M * 8 }>(); let mut a = [0.0f32; M]; let i = gpu::global_id_x(); if i < o.len() { a[i % M] = x[i] * T[i % N] + W[i % 2][1] as f32 + (-(1 << 3) as f32); s[i % 72] = a[0]; o[i] = a[i % M] + s[0] + f32::MAX.min(1.0e3); } }",
    // `match`, `let x;`, reversed ranges and iterator loops.
    "fn control(o: &mut [i32], x: &[i32]) { let i = gpu::global_id_x(); if i >= o.len() { return; } let v = x[i % x.len()]; let a = match v % 7 { 0 => 1, 1 | 2 => v, 3..=5 => -v, k @ -6..=-1 if k < -3 => k * 2, _ => 9 }; let b; if a > 0 { b = a; } else { b = -a; } let mut s = 0; for k in (0..(b % 20)).rev().step_by(2) { s += k; } let mut arr = [0i32; 4]; for (k, e) in arr.iter_mut().enumerate() { *e = k as i32 + s; } for (p, q) in arr.iter().zip(x.iter()) { s += *p ^ q; } let t = match (a > 0, s % 3) { (true, 0) => 1, (false, _) => 2, (_, n) => n }; o[i] = s + t; }",
    // Device functions with references, views and closures (inlined); the newer built-ins.
    "fn refs(o: &mut [f32], x: &[f32]) { let s = gpu::shared_array::<f32, 64>(); let t = gpu::thread_idx().x as usize % 64; s[t] = x[t % x.len()]; gpu::sync_threads(); let mut m = 0.0f32; bump(&mut m, 2.0); bump(&mut s[t], m); let scale = 3.0f32; let f = |a: f32, b: f32| a + b * scale; let (l, r) = s.split_at_mut(32); let w = &x[..1]; o[t % o.len()] = fold(&l[1..], f) + fold(r, |a, b| a.max(b)) + fold(w, f) + gpu::fast::exp(m) + gpu::lanemask_lt() as f32 + gpu::clock() as f32 + gpu::match_all_sync(gpu::FULL_MASK, t as u32).0 as f32; }",
];

/// The `#[device]` functions the corpus calls, by call path; mutated by
/// `mutated_device_functions_never_panic`.
const DEVICES: &[(&str, &str)] = &[
    ("sq", "fn sq(v: f32) -> f32 { v * v }"),
    ("math::cube", "fn cube(v: f32) -> f32 { let s = sq(v); if s > 1e30 { return 0.0; } s * v }"),
    ("twice", "fn twice<T: Copy + core::ops::Add<Output = T>>(v: T) -> T { v + v }"),
    ("sum3", "fn sum3(x: &[f32], i: usize) -> f32 { let mut s = 0.0; for k in 0..3 { s += x[(i + k) % x.len()]; } s }"),
    ("swap_first", "fn swap_first(u: &mut [u32]) { if u.len() > 1 { let t = u[0]; u[0] = u[1]; u[1] = t; } }"),
    ("pair", "fn pair(p: (f32, u32), a: [f32; 2]) -> (u32, f32) { (p.1, p.0 + a[0] + a[1]) }"),
    ("bump", "fn bump(m: &mut f32, by: f32) { *m += by; }"),
    ("fold", "fn fold(v: &[f32], op: impl Fn(f32, f32) -> f32) -> f32 { let mut a = 0.0; for &e in v.iter() { a = op(a, e); } a }"),
];

/// Device functions' own calls: `math::cube` calls `sq`.
fn device_table(replace: Option<(usize, &syn::ItemFn)>) -> DeviceTable {
    let parse = |k: usize| -> syn::ItemFn {
        match replace {
            Some((r, item)) if r == k => item.clone(),
            _ => syn::parse_str(DEVICES[k].1).expect("device corpus parses"),
        }
    };
    let mut leaf = DeviceTable::default();
    leaf.insert(
        "sq",
        DeviceFn {
            item: parse(0),
            deps: DeviceTable::default(),
            consts: Default::default(),
        },
    );
    let mut table = DeviceTable::default();
    for (k, (path, _)) in DEVICES.iter().enumerate() {
        // Every function sees every other by its bare name (a recursive call is an error to
        // report, not to crash on).
        let deps = if k == 0 {
            DeviceTable::default()
        } else {
            leaf.clone()
        };
        table.insert(
            path,
            DeviceFn {
                item: parse(k),
                deps,
                consts: Default::default(),
            },
        );
    }
    table
}

/// The instances a kernel's generic parameters are compiled for (none for a plain kernel);
/// `pick` chooses among the scalar types, so that bounds are also checked.
fn generics_for(item: &syn::ItemFn, pick: usize) -> Vec<(String, Scalar)> {
    const TYPES: &[Scalar] = &[
        Scalar::F32,
        Scalar::F64,
        Scalar::U32,
        Scalar::I64,
        Scalar::U8,
        Scalar::Bool,
    ];
    item.sig
        .generics
        .params
        .iter()
        .enumerate()
        .filter_map(|(k, g)| match g {
            syn::GenericParam::Type(t) => {
                Some((t.ident.to_string(), TYPES[(pick + k) % TYPES.len()]))
            }
            _ => None,
        })
        .collect()
}

/// Tokens the mutations insert: keywords, operators, literals at the edges of their types,
/// names the checker knows and names it does not.
const VOCABULARY: &[&str] = &[
    "let",
    "mut",
    "if",
    "else",
    "for",
    "in",
    "while",
    "loop",
    "break",
    "continue",
    "return",
    "fn",
    "as",
    "match",
    "=>",
    "|",
    "@",
    "rev",
    "iter_mut",
    "enumerate",
    "split_at_mut",
    "unsafe",
    "move",
    "ref",
    "'outer",
    "'a",
    ":",
    "::",
    ";",
    ",",
    ".",
    "..",
    "..=",
    "=",
    "==",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "|",
    "^",
    "!",
    "&&",
    "||",
    "<<",
    ">>",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "<<=",
    ">>=",
    "->",
    "=>",
    "?",
    "@",
    "_",
    "#",
    "$",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "0",
    "1",
    "-1",
    "255",
    "256",
    "-129",
    "0u8",
    "300u8",
    "2147483648",
    "9223372036854775808",
    "340282366920938463463374607431768211455",
    "1e308",
    "1e309",
    "0.0",
    "1.5f32",
    "2.0f64",
    "0x7fff_ffff",
    "0b1",
    "1i128",
    "1usize",
    "1f32",
    "'c'",
    "\"s\"",
    "b'a'",
    "true",
    "false",
    "i",
    "x",
    "y",
    "o",
    "a",
    "n",
    "v",
    "k",
    "gpu",
    "cuprum",
    "std",
    "core",
    "f32",
    "f64",
    "u8",
    "i8",
    "u32",
    "i64",
    "usize",
    "bool",
    "char",
    "Vec",
    "Box",
    "String",
    "Self",
    "self",
    "gpu::thread_idx()",
    "gpu::global_id_x()",
    "gpu::sync_threads()",
    "gpu::WARP_SIZE",
    "gpu::shared_array",
    "gpu::shared_array::<f32, 32>()",
    "gpu::shared_array_2d::<u32, 4, 4>()",
    "gpu::dynamic_shared::<f64>()",
    "gpu::atomic_add",
    "gpu::atomic_cas_block",
    "&mut",
    "gpu::shfl_down_sync",
    "gpu::ballot_sync",
    "gpu::FULL_MASK",
    "gpu::sync_threads_count",
    "gpu::thread_fence",
    "gpu::rsqrt",
    "sin",
    "exp",
    "powf",
    "powi",
    "atan2",
    "to_bits",
    "from_bits",
    "from_f64",
    "clamp",
    "count_ones",
    "sq",
    "twice",
    "math::cube",
    "sum3",
    "pair",
    "T",
    "gpu::Float",
    "<f32>",
    "::<f32>",
    "len",
    "is_empty",
    "sqrt",
    "min",
    "max",
    "step_by",
    "wrapping_add",
    "abs",
    "MAX",
    "consts",
    "PI",
    "x[i]",
    "vec!",
    "println!",
    "|",
    "||",
    "dyn",
    "impl",
    "const",
    "static",
    "struct",
    "async",
    "await",
];

/// Kernel names that are valid Rust but awkward as PTX symbols.
const NAMES: &[&str] = &[
    "k",
    "r#type",
    "r#match",
    "r#fn",
    "ñu",
    "数",
    "__cuprum_panic",
    "__cuprum_x",
    "WARP_SZ",
    "main",
    "launch",
    "PTX",
    "_k",
    "K2",
    "entry",
    "reg",
    "global",
    "param",
    "ret",
    "exit",
];

/// Counters of one run.
struct Figures {
    inputs: AtomicU64,
    parsed: AtomicU64,
    compiled: AtomicU64,
    rejected: AtomicU64,
}

static FIGURES: Figures = Figures {
    inputs: AtomicU64::new(0),
    parsed: AtomicU64::new(0),
    compiled: AtomicU64::new(0),
    rejected: AtomicU64::new(0),
};

/// The test functions run one at a time: LLVM contexts are per thread, but the figures and
/// the panic hook are shared.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Token texts with groups flattened to their delimiters and joint punctuation kept together
/// (`+=` stays one token), so that joining them with spaces gives back the same program.
fn flatten(ts: TokenStream, out: &mut Vec<String>) {
    let mut pending = String::new();
    for t in ts {
        match t {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                out.push(open.into());
                flatten(g.stream(), out);
                out.push(close.into());
            }
            TokenTree::Punct(p) => {
                pending.push(p.as_char());
                if p.spacing() == Spacing::Alone {
                    out.push(std::mem::take(&mut pending));
                }
            }
            other => {
                // A lifetime's quote is joint with its name.
                pending.push_str(&other.to_string());
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    if !pending.is_empty() {
        out.push(pending);
    }
}

fn tokens_of(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    flatten(
        TokenStream::from_str(src).expect("corpus tokenizes"),
        &mut out,
    );
    out
}

/// One edit of a token list.
#[derive(Clone, Debug)]
enum Mutation {
    Delete(Index),
    Duplicate(Index),
    Swap(Index, Index),
    Insert(Index, Index),
    Replace(Index, Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::Delete),
        any::<Index>().prop_map(Mutation::Duplicate),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Insert(a, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
    ]
}

fn is_delimiter(t: &str) -> bool {
    matches!(t, "(" | ")" | "[" | "]" | "{" | "}")
}

/// Applies an edit without touching delimiters, so that the program stays a balanced token
/// stream (only such streams reach a proc macro; `random_token_bodies_never_panic` covers
/// the others).
fn apply(tokens: &mut Vec<String>, m: &Mutation) {
    let plain: Vec<usize> = (0..tokens.len())
        .filter(|&i| !is_delimiter(&tokens[i]))
        .collect();
    if plain.is_empty() {
        return;
    }
    let pick = |i: &Index| plain[i.index(plain.len())];
    let word = |i: &Index| {
        let words: Vec<&str> = VOCABULARY
            .iter()
            .copied()
            .filter(|w| !is_delimiter(w))
            .collect();
        words[i.index(words.len())].to_string()
    };
    match m {
        Mutation::Delete(i) => {
            tokens.remove(pick(i));
        }
        Mutation::Duplicate(i) => {
            let at = pick(i);
            tokens.insert(at, tokens[at].clone());
        }
        Mutation::Swap(a, b) => {
            let (a, b) = (pick(a), pick(b));
            tokens.swap(a, b);
        }
        Mutation::Insert(at, w) => {
            let at = at.index(tokens.len() + 1);
            tokens.insert(at, word(w));
        }
        Mutation::Replace(at, w) => {
            let at = pick(at);
            tokens[at] = word(w);
        }
    }
}

/// Options a kernel may be compiled with.
fn options() -> impl Strategy<Value = KernelOptions> {
    (
        any::<bool>(),
        any::<bool>(),
        proptest::option::of(1u32..=1024),
        proptest::option::of(0usize..cuprum_codegen::target::SUPPORTED.len()),
    )
        .prop_map(|(checked, fastmath, max_threads, target)| KernelOptions {
            checked,
            fastmath,
            max_threads,
            min_blocks: None,
            instances: Vec::new(),
            debug_assertions: true,
            target: target
                .map(|t| Target::parse(cuprum_codegen::target::SUPPORTED[t]).expect("supported")),
            ..KernelOptions::default()
        })
}

/// Compiles `src` if it parses as a function; a panic fails the case with the source.
fn compile_source(src: &str, options: &KernelOptions) -> Result<(), TestCaseError> {
    compile_with_devices(src, options, &device_table(None), 0)
}

/// Compiles `src` as `#[kernel]` does: with the device functions `devices`, and for a generic
/// kernel one instance (chosen by `pick`). What compiles is also emitted for the simulator
/// (which the macro does outside the compiler's panic guard).
fn compile_with_devices(
    src: &str,
    options: &KernelOptions,
    devices: &DeviceTable,
    pick: usize,
) -> Result<(), TestCaseError> {
    FIGURES.inputs.fetch_add(1, Ordering::Relaxed);
    // What `#[kernel]` does before parsing: reject nesting that would overflow syn's stack.
    let Ok(tokens) = TokenStream::from_str(src) else {
        return Ok(());
    };
    if cuprum_codegen::check::check_nesting(&tokens).is_err() {
        FIGURES.rejected.fetch_add(1, Ordering::Relaxed);
        return Ok(());
    }
    let Ok(item) = syn::parse2::<syn::ItemFn>(tokens) else {
        return Ok(());
    };
    FIGURES.parsed.fetch_add(1, Ordering::Relaxed);
    let generics = generics_for(&item, pick);
    let mut options = options.clone();
    if !generics.is_empty() {
        options.instances = vec![generics
            .iter()
            .map(|(_, s)| cuprum_codegen::options::InstanceArg::Type(*s))
            .collect()];
    }
    let source = KernelSource {
        item: &item,
        devices: devices.clone(),
        consts: Default::default(),
        entry: std::iter::once(syn::ext::IdentExt::unraw(&item.sig.ident).to_string())
            .chain(generics.iter().map(|(_, s)| s.name().to_string()))
            .collect::<Vec<_>>()
            .join("_"),
        generics,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        compile(&source, &options, &Target::default_target()).map(|k| {
            let name = proc_macro2::Ident::new("sim_body", proc_macro2::Span::call_site());
            let body = cuprum_codegen::sim::emit_body(&k.program, &name);
            let _ = cuprum_codegen::sim::is_cooperative(&k.program);
            let _ = cuprum_codegen::sim::static_shared_bytes(&k.program);
            (k, body)
        })
    }));
    match outcome {
        Ok(Ok((_, body))) => {
            // The simulator's code is Rust the user's crate compiles: it must at least parse.
            prop_assert!(
                syn::parse2::<syn::File>(body.clone()).is_ok(),
                "the simulator body does not parse:\n{body}\n{src}"
            );
            FIGURES.compiled.fetch_add(1, Ordering::Relaxed)
        }
        Ok(Err(e)) => {
            // Every error carries a message; none is Cuprum's own fault.
            for e in e {
                let msg = e.to_string();
                prop_assert!(!msg.is_empty());
                prop_assert!(!msg.contains("internal error"), "{msg}\n{src}");
            }
            FIGURES.rejected.fetch_add(1, Ordering::Relaxed)
        }
        Err(_) => {
            return Err(TestCaseError::fail(format!(
                "compiling panicked on:\n{src}"
            )))
        }
    };
    Ok(())
}

/// Random expressions from a small grammar, typed or not: the checker must reject the
/// ill-typed ones and the backend must take the rest.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(vec![
            "a",
            "b",
            "n",
            "m",
            "c",
            "i",
            "x[i]",
            "o[0]",
            "u[i]",
            "t.0",
            "arr[1]",
            "true",
            "gpu::thread_idx().x",
            "gpu::global_id_x()",
            "gpu::WARP_SIZE",
            "gpu::lane_id()",
            "f32::MAX",
            "u32::MAX",
            "i64::MIN",
            "f64::NAN",
            "x.len()",
            "2",
            "0",
            "-1",
            "1.5",
            "0.0f32",
            "255u8",
            "7i64",
        ])
        .prop_map(String::from),
        any::<i64>().prop_map(|v| v.to_string()),
        (
            any::<u64>(),
            prop::sample::select(vec!["u8", "i8", "u16", "i32", "u32", "u64", "usize"])
        )
            .prop_map(|(v, s)| format!("{v}{s}")),
        (-1e6f64..1e6).prop_map(|v| format!("{v:?}")),
    ];
    leaf.prop_recursive(4, 48, 3, |inner| {
        let op = prop::sample::select(vec![
            "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=",
            "&&", "||",
        ]);
        let ty = prop::sample::select(vec![
            "f32", "f64", "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "usize", "isize",
            "bool",
        ]);
        let method = prop::sample::select(vec![
            "min",
            "max",
            "abs",
            "sqrt",
            "mul_add",
            "floor",
            "ceil",
            "trunc",
            "round",
            "wrapping_add",
            "wrapping_sub",
            "wrapping_mul",
            "len",
            "sin",
            "pow",
            "nope",
        ]);
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            (prop::sample::select(vec!["-", "!"]), inner.clone())
                .prop_map(|(o, a)| format!("({o}{a})")),
            (inner.clone(), ty).prop_map(|(a, t)| format!("({a} as {t})")),
            (
                inner.clone(),
                method,
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(r, m, args)| format!("{r}.{m}({})", args.join(", "))),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, t, e)| format!("if {c} {{ {t} }} else {{ {e} }}")),
            inner.clone().prop_map(|e| format!("x[{e}]")),
            inner.clone().prop_map(|e| format!("{{ let t = {e}; t }}")),
            inner.clone().prop_map(|e| format!("loop {{ break {e}; }}")),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| format!("({},)", v.join(", "))),
            (inner.clone(), 1u8..4).prop_map(|(e, n)| format!("[{e}; {n}]")),
        ]
    })
}

fn statement() -> impl Strategy<Value = String> {
    let e = expression;
    prop_oneof![
        e().prop_map(|v| format!("let v = {v};")),
        (
            e(),
            prop::sample::select(vec!["f32", "u32", "i64", "usize", "bool", "(f32, u32)"])
        )
            .prop_map(|(v, t)| format!("let mut w: {t} = {v};")),
        e().prop_map(|v| format!("o[i] = {v};")),
        e().prop_map(|v| format!("o[i] += {v};")),
        e().prop_map(|v| format!("u[0] /= {v};")),
        (e(), e()).prop_map(|(c, v)| format!("if {c} {{ o[0] = {v}; }}")),
        (e(), e(), e()).prop_map(|(a, b, v)| format!("for k in {a}..{b} {{ u[k] = {v}; }}")),
        (e(), e()).prop_map(|(a, s)| format!("for k in (0..{a}).step_by({s}) {{ u[k] = 1; }}")),
        e().prop_map(|c| format!("while {c} {{ break; }}")),
        e().prop_map(|c| format!("if {c} {{ return; }}")),
        e().prop_map(|v| format!("{v};")),
    ]
}

/// A kernel whose body is random statements over parameters of every kind.
fn generated_kernel() -> impl Strategy<Value = String> {
    prop::collection::vec(statement(), 1..6).prop_map(|stmts| {
        format!(
            "fn k(o: &mut [f32], x: &[f32], u: &mut [u32], a: f32, b: f64, n: u32, m: i64, c: bool) {{ let i = gpu::global_id_x(); let t = (a, n); let arr = [1u32, 2, 3]; {} }}",
            stmts.join(" ")
        )
    })
}

/// The kinds of value the typed generator produces.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    F32,
    U32,
    I64,
    Usize,
    Bool,
}

/// A well-typed expression of kind `k` (up to literal ranges and runtime checks), so that most
/// generated kernels pass the checker and exercise lowering and LLVM.
fn typed(k: Kind, depth: u32) -> BoxedStrategy<String> {
    let leaves: Vec<&'static str> = match k {
        Kind::F32 => vec![
            "a",
            "x[i]",
            "o[0]",
            "1.5",
            "0.0",
            "-2.25f32",
            "f32::MAX",
            "f32::EPSILON",
            "t.0",
            "std::f32::consts::PI",
            "1e30",
            "-0.0",
        ],
        Kind::U32 => vec![
            "n",
            "gpu::thread_idx().x",
            "gpu::lane_id()",
            "gpu::WARP_SIZE",
            "u[i]",
            "7u32",
            "0",
            "u32::MAX",
            "t.1",
            "arr[2]",
            "gpu::block_dim().y",
            "4294967295",
        ],
        Kind::I64 => vec!["m", "-3i64", "i64::MIN", "42", "i64::MAX", "-1"],
        Kind::Usize => vec![
            "i",
            "x.len()",
            "3usize",
            "0",
            "gpu::grid_stride_x()",
            "u.len()",
        ],
        Kind::Bool => vec!["c", "true", "false", "x.is_empty()"],
    };
    let leaf = prop::sample::select(leaves).prop_map(String::from).boxed();
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    let same = || typed(k, d);
    let cond = || typed(Kind::Bool, d);
    let any_kind = prop::sample::select(vec![Kind::F32, Kind::U32, Kind::I64, Kind::Usize]);
    let mut choices: Vec<BoxedStrategy<String>> = vec![
        leaf,
        (cond(), same(), same())
            .prop_map(|(c, a, b)| format!("(if {c} {{ {a} }} else {{ {b} }})"))
            .boxed(),
        same()
            .prop_map(|e| format!("{{ let t2 = {e}; t2 }}"))
            .boxed(),
        same()
            .prop_map(|e| format!("loop {{ break {e}; }}"))
            .boxed(),
    ];
    match k {
        Kind::Bool => {
            let cmp = prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]);
            choices.push(
                (any_kind, cmp, any::<u64>())
                    .prop_flat_map(move |(kind, op, _)| {
                        (typed(kind, d), typed(kind, d))
                            .prop_map(move |(a, b)| format!("({a} {op} {b})"))
                    })
                    .boxed(),
            );
            let logic = prop::sample::select(vec!["&&", "||", "^", "&", "|", "==", "!="]);
            choices.push(
                (same(), logic, same())
                    .prop_map(|(a, o, b)| format!("({a} {o} {b})"))
                    .boxed(),
            );
            choices.push(same().prop_map(|a| format!("(!{a})")).boxed());
        }
        Kind::F32 => {
            let op = prop::sample::select(vec!["+", "-", "*", "/", "%"]);
            choices.push(
                (same(), op, same())
                    .prop_map(|(a, o, b)| format!("({a} {o} {b})"))
                    .boxed(),
            );
            choices.push(same().prop_map(|a| format!("(-{a})")).boxed());
            let unary =
                prop::sample::select(vec!["abs", "sqrt", "floor", "ceil", "trunc", "round"]);
            choices.push(
                (same(), unary)
                    .prop_map(|(a, m)| format!("{a}.{m}()"))
                    .boxed(),
            );
            let binary = prop::sample::select(vec!["min", "max"]);
            choices.push(
                (same(), binary, same())
                    .prop_map(|(a, m, b)| format!("{a}.{m}({b})"))
                    .boxed(),
            );
            choices.push(
                (same(), same(), same())
                    .prop_map(|(a, b, c)| format!("{a}.mul_add({b}, {c})"))
                    .boxed(),
            );
            choices.push(
                (any_kind, any::<u64>())
                    .prop_flat_map(move |(kind, _)| typed(kind, d))
                    .prop_map(|e| format!("({e} as f32)"))
                    .boxed(),
            );
            choices.push(Just("(b as f32)".to_string()).boxed());
        }
        Kind::U32 | Kind::I64 | Kind::Usize => {
            let op = prop::sample::select(vec!["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]);
            choices.push(
                (same(), op, same())
                    .prop_map(|(a, o, b)| format!("({a} {o} {b})"))
                    .boxed(),
            );
            let method = prop::sample::select(vec![
                "wrapping_add",
                "wrapping_sub",
                "wrapping_mul",
                "min",
                "max",
            ]);
            choices.push(
                (same(), method, same())
                    .prop_map(|(a, m, b)| format!("{a}.{m}({b})"))
                    .boxed(),
            );
            choices.push(same().prop_map(|a| format!("(!{a})")).boxed());
            if k == Kind::I64 {
                choices.push(same().prop_map(|a| format!("(-{a})")).boxed());
                choices.push(same().prop_map(|a| format!("{a}.abs()")).boxed());
            }
            let name = match k {
                Kind::U32 => "u32",
                Kind::I64 => "i64",
                _ => "usize",
            };
            choices.push(
                (any_kind, any::<u64>())
                    .prop_flat_map(move |(kind, _)| typed(kind, d))
                    .prop_map(move |e| format!("({e} as {name})"))
                    .boxed(),
            );
            choices.push(cond().prop_map(move |c| format!("({c} as {name})")).boxed());
        }
    }
    prop::strategy::Union::new(choices).boxed()
}

/// A statement over the typed generator's parameters.
fn typed_statement() -> BoxedStrategy<String> {
    let f = || typed(Kind::F32, 2);
    let u = || typed(Kind::U32, 2);
    let ix = || typed(Kind::Usize, 1);
    let b = || typed(Kind::Bool, 2);
    prop_oneof![
        (ix(), f()).prop_map(|(j, v)| format!("o[{j}] = {v};")),
        (ix(), u()).prop_map(|(j, v)| format!("u[{j}] = {v};")),
        (f(), f()).prop_map(|(a, v)| format!("let mut w = {a}; w += {v}; o[0] = w;")),
        u().prop_map(|v| format!("u[0] /= {v};")),
        (b(), f(), f())
            .prop_map(|(c, a, v)| format!("if {c} {{ o[0] = {a}; }} else {{ o[1] = {v}; }}")),
        (u(), u())
            .prop_map(|(a, v)| format!("for k in 0..{a} {{ u[0] = u[0].wrapping_add(k ^ {v}); }}")),
        (ix(), ix()).prop_map(|(a, s)| format!("for k in (0..{a}).step_by({s}) {{ o[k] = 1.0; }}")),
        (b(), u())
            .prop_map(|(c, v)| format!("'l: while {c} {{ if {v} > 3 {{ break 'l; }} continue; }}")),
        b().prop_map(|c| format!("if {c} {{ return; }}")),
        (u(), f()).prop_map(|(a, v)| format!("let p = ({a}, {v}); u[0] = p.0; o[0] = p.1;")),
        f().prop_map(|v| format!("let mut q = [{v}; 4]; q[1] = 2.0; o[0] = q[3] + q[1];")),
    ]
    .boxed()
}

fn typed_kernel() -> impl Strategy<Value = String> {
    prop::collection::vec(typed_statement(), 1..6).prop_map(|stmts| {
        format!(
            "fn k(o: &mut [f32], x: &[f32], u: &mut [u32], a: f32, b: f64, n: u32, m: i64, c: bool) {{ let i = gpu::global_id_x(); let t = (a, n); let arr = [1u32, 2, 3]; {} }}",
            stmts.join(" ")
        )
    })
}

/// Valid `launch!` inputs the token mutations start from.
const LAUNCHES: &[&str] = &[
    "saxpy<<<4, 256, stream>>>(&mut y, &x, 2.0)",
    "kernels::scale<<<(2, 2), (16, 16), 1024, dev.default_stream()>>>(&mut out)",
    "k<<<grid_for(n), Dim3::new(32, 1, 1), &s>>>()",
    "kernels::scale::<f32><<<blocks, 256, 4096, stream>>>(&mut y.slice_mut(0..n), 0.5f32)",
];

/// The number of fuzz targets, which share a long run equally.
const TARGETS: u32 = 7;

/// Runs `test` on values of `strategy`: `cases` of them deterministically in a normal test
/// run, or for `CUPRUM_FUZZ_SECS` seconds with a fresh seed in the long mode.
fn fuzz<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let long: Option<u64> = std::env::var("CUPRUM_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok());
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let seed = match long {
        Some(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
        None => 0x0c0f_fee0,
    };
    // Each fuzz target gets an equal share of the long run.
    let deadline = long.map(|s| Instant::now() + Duration::from_secs(s) / TARGETS);
    let start = Instant::now();
    let before = FIGURES.inputs.load(Ordering::Relaxed);
    for batch in 0u64.. {
        // A runner stops after `cases` successes, so each batch gets a fresh one.
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8..16].copy_from_slice(&batch.to_le_bytes());
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
        let mut runner = TestRunner::new_with_rng(config.clone(), rng);
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("fuzz target `{name}` (seed {seed:#x}, batch {batch}) failed: {e}");
        }
        if deadline.is_none_or(|d| Instant::now() >= d) {
            break;
        }
    }
    let tried = FIGURES.inputs.load(Ordering::Relaxed) - before;
    if long.is_some() {
        println!(
            "fuzz {name}: {tried} inputs in {:.0?}, seed {seed:#x}, no panic",
            start.elapsed()
        );
    }
}

fn report() {
    if std::env::var("CUPRUM_FUZZ_SECS").is_ok() {
        println!(
            "fuzz totals so far: {} inputs, {} parsed as functions, {} compiled, {} rejected with errors",
            FIGURES.inputs.load(Ordering::Relaxed),
            FIGURES.parsed.load(Ordering::Relaxed),
            FIGURES.compiled.load(Ordering::Relaxed),
            FIGURES.rejected.load(Ordering::Relaxed),
        );
    }
}

#[test]
fn mutated_kernels_never_panic() {
    let _serial = serial();
    let strategy = (
        0..CORPUS.len(),
        prop::collection::vec(mutation(), 1..4),
        options(),
        proptest::option::of(prop::sample::select(NAMES.to_vec())),
        0usize..6,
    );
    let devices = device_table(None);
    fuzz(
        "mutated kernels",
        300,
        strategy,
        |(k, edits, opts, name, pick)| {
            let mut tokens = tokens_of(CORPUS[k]);
            if let Some(name) = name {
                // The kernel's name becomes a PTX symbol.
                tokens[1] = name.to_string();
            }
            for m in &edits {
                apply(&mut tokens, m);
            }
            compile_with_devices(&tokens.join(" "), &opts, &devices, pick)
        },
    );
    report();
}

#[test]
fn mutated_device_functions_never_panic() {
    let _serial = serial();
    let strategy = (
        0..DEVICES.len(),
        prop::collection::vec(mutation(), 1..4),
        0usize..6,
    );
    fuzz(
        "mutated device functions",
        200,
        strategy,
        |(k, edits, pick)| {
            let mut tokens = tokens_of(DEVICES[k].1);
            for m in &edits {
                apply(&mut tokens, m);
            }
            let src = tokens.join(" ");
            let Ok(item) = syn::parse_str::<syn::ItemFn>(&src) else {
                return Ok(());
            };
            // `#[device]` checks a non-generic function on its own ...
            let table = device_table(Some((k, &item)));
            if item.sig.generics.params.is_empty() {
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    cuprum_codegen::check::check_device(&item, &table)
                }));
                prop_assert!(outcome.is_ok(), "check_device panicked on:\n{src}");
            }
            // ... and every kernel that calls it compiles it again.
            compile_with_devices(CORPUS_DEVICES, &KernelOptions::default(), &table, pick)?;
            compile_with_devices(CORPUS_GENERIC, &KernelOptions::default(), &table, pick)?;
            let user = format!(
                "fn k(o: &mut [f32], x: &[f32], u: &mut [u32]) {{ let p = pair((1.0, 2), [x[0], 3.0]); u[0] = p.0; o[0] = p.1 + sq(2.0); {} }}",
                match item.sig.inputs.len() {
                    0 => format!("let r = {}();", DEVICES[k].0),
                    1 => format!("let r = {}(x[0]);", DEVICES[k].0),
                    _ => format!("let r = {}(x, 1);", DEVICES[k].0),
                }
            );
            compile_with_devices(&user, &KernelOptions::default(), &table, pick)
        },
    );
    report();
}

/// The corpus kernel that calls the device functions, and a generic one that does too.
const CORPUS_DEVICES: &str = "fn devices(o: &mut [f32], x: &[f32], u: &mut [u32]) { let i = gpu::global_id_x(); if i < o.len() { o[i] = sq(x[i % x.len()]) + math::cube(2.0) + twice(1.5f32) + twice::<f32>(o[i]) + sum3(x, i); u[0] = twice(3u32); swap_first(u); } }";
const CORPUS_GENERIC: &str = "fn scale<T: gpu::Float>(o: &mut [T], x: &[T], a: T) { let i = gpu::global_id_x(); if i < o.len() { o[i] = a * x[i % x.len()] + T::from_f64(0.5) + twice(a) + T::MAX.min(a).sqrt(); } }";

#[test]
fn generated_kernels_never_panic() {
    let _serial = serial();
    fuzz(
        "generated kernels",
        300,
        (generated_kernel(), options()),
        |(src, opts)| compile_source(&src, &opts),
    );
    report();
}

#[test]
fn typed_kernels_never_panic() {
    let _serial = serial();
    fuzz(
        "typed kernels",
        200,
        (typed_kernel(), options()),
        |(src, opts)| compile_source(&src, &opts),
    );
    report();
}

#[test]
fn random_token_bodies_never_panic() {
    let _serial = serial();
    let word = prop::sample::select(VOCABULARY.to_vec());
    fuzz(
        "random token bodies",
        300,
        prop::collection::vec(word, 0..40),
        |words| {
            // Only balanced token streams reach a proc macro; others are skipped by the parse.
            compile_source(
                &format!(
                    "fn k(o: &mut [f32], x: &[f32], n: u32) {{ {} }}",
                    words.join(" ")
                ),
                &KernelOptions::default(),
            )
        },
    );
    report();
}

#[test]
fn launch_parser_never_panics() {
    let _serial = serial();
    let strategy = (
        0..LAUNCHES.len(),
        prop::collection::vec(mutation(), 0..6),
        prop::collection::vec(prop::sample::select(VOCABULARY.to_vec()), 0..12),
        any::<bool>(),
    );
    fuzz(
        "launch! parser",
        500,
        strategy,
        |(k, edits, words, random)| {
            FIGURES.inputs.fetch_add(1, Ordering::Relaxed);
            let text = if random {
                words.join(" ")
            } else {
                let mut tokens = tokens_of(LAUNCHES[k]);
                for m in &edits {
                    apply(&mut tokens, m);
                }
                tokens.join(" ")
            };
            let Ok(ts) = TokenStream::from_str(&text) else {
                return Ok(());
            };
            let outcome = catch_unwind(AssertUnwindSafe(|| parse_launch(ts)));
            prop_assert!(outcome.is_ok(), "parse_launch panicked on: {text}");
            Ok(())
        },
    );
    report();
}

#[test]
fn kernel_options_parser_never_panics() {
    let _serial = serial();
    let strategy = (
        prop::collection::vec(mutation(), 0..6),
        prop::collection::vec(prop::sample::select(VOCABULARY.to_vec()), 0..10),
        any::<bool>(),
    );
    let valid = "unchecked, fastmath, max_threads = 256, min_blocks = 2, target = \"sm_90\", instances(f32, f64), instances((f32, u32), (f64, i64))";
    fuzz("kernel options", 500, strategy, |(edits, words, random)| {
        FIGURES.inputs.fetch_add(1, Ordering::Relaxed);
        let text = if random {
            words.join(" ")
        } else {
            let mut tokens = tokens_of(valid);
            for m in &edits {
                apply(&mut tokens, m);
            }
            tokens.join(" ")
        };
        let Ok(ts) = TokenStream::from_str(&text) else {
            return Ok(());
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| KernelOptions::parse(ts)));
        prop_assert!(outcome.is_ok(), "KernelOptions::parse panicked on: {text}");
        Ok(())
    });
    report();
}

#[test]
fn corpus_compiles() {
    // The mutations start from valid programs: if one stopped compiling, the fuzz run would
    // quietly test less.
    let devices = device_table(None);
    for src in CORPUS {
        for text in [src.to_string(), tokens_of(src).join(" ")] {
            let item: syn::ItemFn = syn::parse_str(&text).expect("corpus parses");
            // Generic kernels compile for their first instance type (`f32`, or `u32` for
            // `gpu::Int`).
            let pick = if src.contains("gpu::Int") { 2 } else { 0 };
            let generics = generics_for(&item, pick);
            let mut options = KernelOptions::default();
            if !generics.is_empty() {
                options.instances = vec![generics
                    .iter()
                    .map(|(_, s)| cuprum_codegen::options::InstanceArg::Type(*s))
                    .collect()];
            }
            let source = KernelSource {
                item: &item,
                devices: devices.clone(),
                consts: Default::default(),
                generics,
                entry: item.sig.ident.to_string(),
            };
            if let Err(e) = compile(&source, &options, &Target::default_target()) {
                let e: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
                panic!("corpus kernel failed to compile: {e:?}\n{text}");
            }
        }
    }
    for (path, src) in DEVICES {
        let item: syn::ItemFn = syn::parse_str(src).expect("device corpus parses");
        if item.sig.generics.params.is_empty() {
            cuprum_codegen::check::check_device(&item, &device_table(None))
                .unwrap_or_else(|e| panic!("device function `{path}`: {e}"));
        }
    }
}
