//! Index checks proved redundant by value ranges (IR → IR): elided as [`Elision::InRange`].
//!
//! The pass walks each function in evaluation order with what it knows about values:
//!
//! - **ranges** (inclusive, as mathematical integers) of expressions, keyed by their text
//!   (`Pass::key`): `thread_idx().x < block_dim().x ≤ 1024` (`≤ 64` for `z`; the kernel's
//!   `block = (X, Y, Z)` or `max_threads = N` when it has one), `block_idx().x < 2³¹ − 1`
//!   (`y`, `z` < 65535), `lane_id() < 32`, `global_id_x()` from those; a `for` variable
//!   between its range's ends (with or without `step_by`); what guards say (`if x < 32`,
//!   `if i >= 1`, `while k < n`); arithmetic on those, where it cannot wrap;
//! - **length facts** `b + k < len(s)` for a slice `s`: from a guard `b + k < n` where `n` is
//!   `s.len()` (or an immutable local bound to it), from `for b in a..s.len()`, and only
//!   when the guard's own arithmetic cannot wrap.
//!
//! - **polynomial bounds** `key <= p` where `p` is a polynomial of the kernel's uniform
//!   values (immutable unsigned parameters, slice lengths; `passes::poly`), from guards
//!   such as `x < w` and `for i in 0..n`.
//!
//! An access `s[b + c]` is proved when `b + c` cannot wrap below zero (its range) and a
//! length fact `b + k < len(s)` with `k ≥ c` holds; an access into an array or a static
//! shared array when the index's range ends below the length.
//!
//! A slice access that is not proved but whose index lies between a non-negative
//! polynomial and `q - 1` (`Pass::bounds`) is a candidate for versioning: the kernel's
//! body becomes `if P { copy } else { body }`, `P` testing `q <= len(s)` once per slice and
//! largest `q` (uniform, saturating), the copy's candidates elided as
//! [`Elision::Versioned`]; the other branch keeps every check. This is loop predication at
//! the kernel's entry: an index in a loop (`out[i * m + j]` under `j < m`, `for i in 0..n`)
//! is tested once for every turn (`n * m <= out.len()`).
//!
//! Soundness: a fact holds from where its guard is evaluated until a local it mentions may
//! change: an assignment drops the facts that mention the local, a loop drops those of every
//! local it assigns before its body is walked (the body runs again after the assignment),
//! and what a branch or a block learned about an outer value is dropped when it ends (what
//! its assignments changed, too). Immutable locals are replaced by their value's text
//! (`let n = s.len()` makes `n` mean `len(s)`) when that value mentions no mutable local. An
//! `if c { return }` (any branch that leaves) lets the code after it assume `!c`.

use std::collections::{HashMap, HashSet};

use super::checks_first::index_builtin;
use super::poly::{self, Poly, Symbols};
use super::{pattern_locals, Sites};
use crate::ir::{
    BinOp, Block, Builtin, Elision, Expr, ExprKind, Function, HostTest, LocalId, Pattern, Place,
    Proj, SiteId, Stmt, UnOp,
};
use crate::ty::{Scalar, Ty};

/// What the kernel's launch promises: the largest block, by axis (the exact one with
/// `block = ..`).
#[derive(Clone, Copy)]
pub(crate) struct Launch {
    /// The largest `block_dim()` per axis.
    pub max_block: [i128; 3],
    /// `block_dim()` per axis when the shape is exact.
    pub exact_block: Option<[i128; 3]>,
    /// The kernel declares its block (`block = ..` or `max_threads = N`).
    pub declared: bool,
    /// The most threads a block has.
    pub max_threads: i128,
    /// The launch may evaluate the versioning test (`KernelOptions::host_tests`).
    pub host_tests: bool,
}

impl Launch {
    /// From the kernel's options.
    pub(crate) fn of(options: &crate::options::KernelOptions) -> Launch {
        if let Some(b) = options.block {
            let b = b.map(i128::from);
            return Launch {
                max_block: b,
                exact_block: Some(b),
                declared: true,
                max_threads: b.iter().product(),
                host_tests: options.host_tests,
            };
        }
        let n = i128::from(options.max_threads.unwrap_or(1024));
        Launch {
            max_block: [n, n, n.min(64)],
            exact_block: None,
            declared: options.max_threads.is_some(),
            max_threads: n,
            host_tests: options.host_tests,
        }
    }
}

/// What a versioning candidate's index must stay below: a slice's length, or the constant
/// length of a fixed-size array or a shared array's dimension (indexed by thread indices of
/// a launch the kernel does not declare: `tile[ty][tx]` holds when `block_dim() <= (32, 32)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Limit {
    /// `len(slice)`.
    Len(LocalId),
    /// A constant length.
    Fixed(i128),
}

/// The largest grid per axis.
const MAX_GRID: [i128; 3] = [(1 << 31) - 1, 65535, 65535];

/// An inclusive range of values.
pub(super) type Range = (i128, i128);

#[derive(Clone, Default)]
struct Env {
    /// Ranges learned for expressions, by key.
    ranges: HashMap<String, Range>,
    /// `key + k < len(slice)`: (key, slice local, k).
    lens: Vec<(String, LocalId, i128)>,
    /// `key <= poly` (the key's value, a polynomial of uniform symbols).
    ub: Vec<(String, Poly)>,
    /// `d * key <= poly` (`d > 1`): a loop variable of `for t in 0..n / d` (`d·t <= n − d`),
    /// whose own bound `n / d − 1` is no polynomial but whose multiples of `d` have one.
    scaled: Vec<(String, i128, Poly)>,
}

impl Env {
    fn narrow(&mut self, key: String, r: Range) {
        let e = self.ranges.entry(key).or_insert(r);
        *e = (e.0.max(r.0), e.1.min(r.1));
    }

    /// Forgets what mentions local `id`.
    fn forget(&mut self, id: LocalId) {
        let tag = local_tag(id);
        self.ranges.retain(|k, _| !k.contains(&tag));
        self.lens.retain(|(k, _, _)| !k.contains(&tag));
        self.ub.retain(|(k, _)| !k.contains(&tag));
        self.scaled.retain(|(k, _, _)| !k.contains(&tag));
    }
}

fn local_tag(id: LocalId) -> String {
    format!("l{id}#")
}

/// Runs the pass on one function. For the kernel (`version`), accesses that hold when a
/// uniform condition on its parameters and lengths holds are elided in a copy of the body
/// that runs when it does (`if P { fast } else { body }`, see [`version_body`]).
///
/// Returns the test the launch evaluates ([`HostTest`]) when the copy is selected by one.
pub(crate) fn run(
    f: &mut Function,
    sites: &mut Sites,
    launch: Launch,
    version: bool,
) -> Option<HostTest> {
    let mut body = std::mem::replace(
        &mut f.body,
        Block {
            stmts: Vec::new(),
            tail: None,
            ty: Ty::Unit,
        },
    );
    let mut pass = Pass {
        f,
        sites,
        launch,
        alias: HashMap::new(),
        symbols: Symbols::new(),
        candidates: Vec::new(),
        fits: None,
    };
    let mut env = Env::default();
    pass.block(&mut body, &mut env);
    let candidates = std::mem::take(&mut pass.candidates);
    let symbols = std::mem::take(&mut pass.symbols);
    let mut host = None;
    if version {
        let host_tests = launch.host_tests.then_some(&mut host);
        body = version_body(f, sites, body, &candidates, &symbols, host_tests);
    }
    f.body = body;
    host
}

/// The comparisons of 64-bit integers in `b` (`f`'s body or a block of it, walked from its
/// start knowing only that each key of `seeds` lies in its range) whose operands both lie in
/// 32 bits where they stand: in `u32`'s range when unsigned, `i32`'s when signed
/// (`passes::compare32`). By address (the walk moves nothing). Comparisons of literals and
/// values widened from 32 bits are left out: LLVM compares those in 32 bits already.
pub(crate) fn fitting_comparisons(
    f: &Function,
    b: &mut Block,
    launch: Launch,
    seeds: &[(String, Range)],
) -> HashSet<*const Expr> {
    let mut sites = Sites(Vec::new());
    let mut pass = Pass {
        f,
        sites: &mut sites,
        launch,
        alias: HashMap::new(),
        symbols: Symbols::new(),
        candidates: Vec::new(),
        fits: Some(HashSet::new()),
    };
    let mut env = Env::default();
    for (k, r) in seeds {
        env.narrow(k.clone(), *r);
    }
    pass.block(b, &mut env);
    pass.fits.unwrap_or_default()
}

/// The most expressions a kernel body may have to be copied for [`version_body`].
const MAX_VERSIONED: usize = 4000;

/// `if P { body with the candidates' checks elided } else { body }`, or `body` when there is
/// nothing to gain. A site is elided only when every use of it is a candidate. `P` is
/// uniform (parameters and lengths only), so every thread of a launch takes one branch.
/// When the launch knows every value `P` reads, `P` is the launch's flag
/// ([`Builtin::HostTest`]) and `host` gets the test it evaluates (`passes::host`).
fn version_body(
    f: &mut Function,
    sites: &mut Sites,
    body: Block,
    candidates: &[(SiteId, Limit, Poly)],
    symbols: &Symbols,
    host: Option<&mut Option<HostTest>>,
) -> Block {
    // A copy is made for slices: a constant length joins a test that slices justify (its
    // checks alone, often folded by LLVM, do not pay for a second body).
    if !candidates
        .iter()
        .any(|(_, l, _)| matches!(l, Limit::Len(_)))
    {
        return body;
    }
    let mut uses: HashMap<SiteId, usize> = HashMap::new();
    let mut size = 0;
    crate::walk::block(&body, &mut |e| {
        size += 1;
        if let Some(p) = place_of(e) {
            for j in &p.proj {
                if let Proj::Index { site: Some(s), .. } = j {
                    *uses.entry(*s).or_default() += 1;
                }
            }
        }
    });
    if size > MAX_VERSIONED {
        return body;
    }
    let mut seen: HashMap<SiteId, usize> = HashMap::new();
    for (s, _, _) in candidates {
        *seen.entry(*s).or_default() += 1;
    }
    let elide: HashSet<SiteId> = seen
        .iter()
        .filter(|(s, n)| uses.get(s) == Some(n))
        .map(|(s, _)| *s)
        .collect();
    // Where the body loops, the copy pays (twice the code, its loops scheduled anew) only
    // when its loops are left with no check of a slice: on the H200 the histogram's grid-stride loop
    // ran 7% slower in a copy that dropped one check after it, fast_matmul's tile loop 5%
    // slower in a copy that kept `a`'s check in it (bench/NOTES.md §14).
    let mut has_loop = false;
    // Checks in loops, with whether each is of a slice (a check of a fixed-length array
    // is one LLVM often folds from the block shape; a slice's stays).
    let mut in_loops: HashMap<SiteId, bool> = HashMap::new();
    let locals = &f.locals;
    crate::walk::block(&body, &mut |e| {
        if matches!(
            e.kind,
            ExprKind::Loop(..) | ExprKind::While(..) | ExprKind::For { .. }
        ) {
            has_loop = true;
            crate::walk::expr(e, &mut |x| {
                let Some(p) = place_of(x) else { return };
                for (n, j) in p.proj.iter().enumerate() {
                    if let Proj::Index { site: Some(s), .. } = j {
                        let slice = n == 0 && matches!(locals[p.base].ty, Ty::Slice { .. });
                        in_loops.insert(*s, slice);
                    }
                }
            });
        }
    });
    let kept_in_loops = in_loops
        .iter()
        .any(|(s, slice)| *slice && !elide.contains(s) && !sites.is_elided(*s));
    // A loop's checks of fixed-length (shared) arrays alone do not make a copy either: the one
    // reduce6's tree loop (`sdata[t + s]`) made ran 8% slower on an H100. That copy's loss was
    // `passes::counted` dropping its twice-bound `let` stride (fixed since: the copy now
    // unrolls); this rule is what was measured, and undoing it awaits a measurement
    // (bench/NOTES.md, 2026-12-06; experiments/2026-12-06-reduce6-copy-again.patch).
    let elides_slice_in_loop = elide.iter().any(|s| in_loops.get(s) == Some(&true));
    if has_loop && (kept_in_loops || !elides_slice_in_loop) {
        return body;
    }
    let span = f.span;
    // One test per slice and largest `q` (`q1 - q2` non-negative: `q1 <= len` gives
    // `q2 <= len`).
    let mut needed: Vec<(Limit, Poly)> = Vec::new();
    for (s, slice, q) in candidates {
        if !elide.contains(s) {
            continue;
        }
        let covered = needed
            .iter()
            .any(|(l, p)| l == slice && p.sub(q).is_some_and(|d| d.nonneg()));
        if covered {
            continue;
        }
        needed.retain(|(l, p)| !(l == slice && q.sub(p).is_some_and(|d| d.nonneg())));
        needed.push((*slice, q.clone()));
    }
    let host_test = match host {
        Some(_) if !needed.is_empty() => super::host::test(f, &needed, symbols),
        _ => None,
    };
    // Plain arithmetic where the polynomials cannot wrap (bounded symbols, or symbols first
    // tested to be at most a limit, `poly::GUARDS`); saturating arithmetic otherwise (dearer: the
    // test runs in every thread).
    let mut tests: Vec<Expr> = Vec::new();
    let mut guards = std::collections::BTreeMap::new();
    for (limit, q) in needed.iter().filter(|_| host_test.is_none()) {
        let len = match limit {
            Limit::Len(slice) => match symbols.get(&len_symbol(*slice)) {
                Some(len) => len.clone(),
                None => return body,
            },
            Limit::Fixed(n) => Expr {
                kind: ExprKind::Int(*n),
                ty: Ty::USIZE,
                span,
            },
        };
        let len = &len;
        let test = poly::cheap_at_most(q, len, symbols, &mut guards, span)
            .or_else(|| poly::at_most(q, len, symbols, span));
        match test {
            Some(t) => tests.push(t),
            None => return body,
        }
    }
    let mut first = Vec::new();
    for (s, limit) in &guards {
        match poly::guard_test(s, *limit, symbols, span) {
            Some(t) => first.push(t),
            None => return body,
        }
    }
    tests.splice(0..0, first);
    if let (Some(h), Some(host)) = (host_test, host) {
        tests = vec![super::host::flag(f.span)];
        *host = Some(h);
    }
    if tests.is_empty() {
        return body;
    }
    let mut fast = body.clone();
    let mut copies: HashMap<SiteId, SiteId> = HashMap::new();
    let mut loops: HashMap<usize, usize> = HashMap::new();
    let loop_count = &mut f.loop_count;
    crate::walk::block_mut(&mut fast, &mut |e| {
        let mut renumber = |id: &mut usize| {
            *id = *loops.entry(*id).or_insert_with(|| {
                *loop_count += 1;
                *loop_count - 1
            });
        };
        match &mut e.kind {
            ExprKind::Read(p)
            | ExprKind::Len(p)
            | ExprKind::Assign(p, _)
            | ExprKind::CompoundAssign(_, p, _)
            | ExprKind::Atomic(_, _, p, _) => {
                for j in &mut p.proj {
                    if let Proj::Index { site: Some(s), .. } = j {
                        if elide.contains(s) {
                            *s = *copies
                                .entry(*s)
                                .or_insert_with(|| sites.elided_copy(*s, Elision::Versioned));
                        }
                    }
                }
            }
            ExprKind::Loop(id, _)
            | ExprKind::While(id, _, _)
            | ExprKind::For { id, .. }
            | ExprKind::Break(id, _)
            | ExprKind::Continue(id) => renumber(id),
            _ => {}
        }
    });
    let ty = body.ty.clone();
    let test = poly::all(tests, span);
    Block {
        stmts: Vec::new(),
        tail: Some(Box::new(Expr {
            kind: ExprKind::If(Box::new(test), fast, Some(body)),
            ty: ty.clone(),
            span,
        })),
        ty,
    }
}

/// The place an expression reads, writes or measures, if any.
fn place_of(e: &Expr) -> Option<&Place> {
    match &e.kind {
        ExprKind::Read(p)
        | ExprKind::Len(p)
        | ExprKind::Assign(p, _)
        | ExprKind::CompoundAssign(_, p, _)
        | ExprKind::Atomic(_, _, p, _) => Some(p),
        _ => None,
    }
}

fn len_symbol(slice: LocalId) -> String {
    format!("len({})", local_tag(slice))
}

struct Pass<'a> {
    f: &'a Function,
    sites: &'a mut Sites,
    launch: Launch,
    /// Immutable locals and their value (with its key).
    alias: HashMap<LocalId, (String, Expr)>,
    /// The uniform symbols met, with their IR.
    symbols: Symbols,
    /// Checked accesses whose index is at most a polynomial: (site, limit, `q`) where the
    /// access holds when `q <= limit`.
    candidates: Vec<(SiteId, Limit, Poly)>,
    /// Only when asked for ([`fitting_comparisons`]): nothing is elided, and the comparisons
    /// of 64-bit integers whose operands both fit in 32 bits where they stand are collected
    /// (by address: the walk moves nothing).
    fits: Option<HashSet<*const Expr>>,
}

/// The range of values of a scalar type.
pub(super) fn type_range(ty: &Ty) -> Range {
    let Ty::Scalar(s) = ty else {
        return (i128::MIN, i128::MAX);
    };
    let bits = match s {
        Scalar::I8 | Scalar::U8 => 8,
        Scalar::I16 | Scalar::U16 => 16,
        Scalar::I32 | Scalar::U32 => 32,
        Scalar::Bool => return (0, 1),
        Scalar::F32 | Scalar::F64 => return (i128::MIN, i128::MAX),
        _ => 64,
    };
    if s.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn within(r: Range, t: Range) -> Option<Range> {
    (r.0 >= t.0 && r.1 <= t.1).then_some(r)
}

/// `e` as `base + c` with `c` a constant (`c` = 0 when `e` is not a sum or difference with
/// a literal).
fn split_offset(e: &Expr) -> (&Expr, i128) {
    match &e.kind {
        ExprKind::Binary(BinOp::Add, l, r, None) => match r.kind {
            ExprKind::Int(c) => (l, c),
            _ => match l.kind {
                ExprKind::Int(c) => (r, c),
                _ => (e, 0),
            },
        },
        ExprKind::Binary(BinOp::Sub, l, r, None) => match r.kind {
            ExprKind::Int(c) => (l, -c),
            _ => (e, 0),
        },
        _ => (e, 0),
    }
}

impl Pass<'_> {
    /// A text that two evaluations of `e` share exactly when they have the same value (as
    /// long as the locals it mentions are not assigned between them), or `None` when `e`
    /// reads memory or has an effect.
    fn key(&self, e: &Expr) -> Option<String> {
        Some(match &e.kind {
            ExprKind::Int(v) => format!("{v}"),
            ExprKind::Bool(b) => format!("{b}"),
            ExprKind::Read(p) => self.place_key(p)?,
            ExprKind::Len(p) if p.proj.is_empty() => format!("len({})", local_tag(p.base)),
            ExprKind::Builtin(b, args) if args.is_empty() && index_builtin(*b) => format!("{b:?}"),
            ExprKind::Field(x, k) => format!("{}.{k}", self.key(x)?),
            ExprKind::Cast(x) => format!("({} as {})", self.key(x)?, e.ty),
            ExprKind::Unary(op, x) => format!("({op:?} {})", self.key(x)?),
            ExprKind::Binary(op, l, r, None) => {
                format!("({} {} {})", self.key(l)?, op.symbol(), self.key(r)?)
            }
            _ => return None,
        })
    }

    fn place_key(&self, p: &Place) -> Option<String> {
        let mut s = match self.alias.get(&p.base) {
            Some((k, _)) => k.clone(),
            None => local_tag(p.base),
        };
        for j in &p.proj {
            match j {
                Proj::Field(k) => s = format!("{s}.{k}"),
                Proj::Index { .. } => return None,
            }
        }
        Some(s)
    }

    /// Whether `key` mentions a mutable local.
    fn mentions_mutable(&self, key: &str) -> bool {
        self.f
            .locals
            .iter()
            .enumerate()
            .any(|(id, l)| l.mutable && key.contains(&local_tag(id)))
    }

    /// The slice whose length `e` is, if it is one.
    fn len_of(&self, e: &Expr) -> Option<LocalId> {
        let k = self.key(e)?;
        let id: LocalId = k.strip_prefix("len(l")?.strip_suffix("#)")?.parse().ok()?;
        matches!(self.f.locals.get(id)?.ty, Ty::Slice { .. }).then_some(id)
    }

    /// `(s, d)` when `e` is `s.len() / d` for a slice `s` and a constant `d > 1` (or an
    /// immutable local bound to it).
    fn len_over(&self, e: &Expr) -> Option<(LocalId, i128)> {
        let k = self.key(e)?;
        let (len, d) = k.strip_prefix('(')?.strip_suffix(')')?.split_once(" / ")?;
        let id: LocalId = len
            .strip_prefix("len(l")?
            .strip_suffix("#)")?
            .parse()
            .ok()?;
        let d: i128 = d.parse().ok()?;
        (d > 1 && matches!(self.f.locals.get(id)?.ty, Ty::Slice { .. })).then_some((id, d))
    }

    /// The built-in whose `Dim3` `e` is (`thread_idx()`, or a local bound to it).
    fn dim3_builtin(&self, e: &Expr) -> Option<Builtin> {
        let k = self.key(e)?;
        [
            Builtin::ThreadIdx,
            Builtin::BlockIdx,
            Builtin::BlockDim,
            Builtin::GridDim,
        ]
        .into_iter()
        .find(|b| format!("{b:?}") == k)
    }

    /// The values `e` can have (its type's whole range when nothing is known).
    fn range(&self, e: &Expr, env: &Env) -> Range {
        let t = type_range(&e.ty);
        let mut r = self
            .range_here(e, env)
            .and_then(|r| within(r, t))
            .unwrap_or(t);
        if let Some(known) = self.key(e).and_then(|k| env.ranges.get(&k)) {
            r = (r.0.max(known.0), r.1.min(known.1));
            // A guard's bound on a multiple of `d` moves to the next multiple: under
            // `if y0 > 0` with `y0 = block_idx().y * 64`, `y0 >= 64`.
            if let Some(d) = self.divisor(e, env).filter(|&d| d > 1) {
                let rounded = (
                    r.0.div_euclid(d) * d + if r.0.rem_euclid(d) == 0 { 0 } else { d },
                    r.1.div_euclid(d) * d,
                );
                if rounded.0 <= rounded.1 {
                    r = rounded;
                }
            }
        }
        r
    }

    /// A number that divides every value `e` computes (its constant factors: `64` for
    /// `(by * 8) * 8`), where its arithmetic cannot wrap (a wrapped product need not be a
    /// multiple); `None` when nothing is known.
    fn divisor(&self, e: &Expr, env: &Env) -> Option<i128> {
        let exact = |e: &Expr| {
            self.range_here(e, env)
                .and_then(|r| within(r, type_range(&e.ty)))
                .is_some()
        };
        match &e.kind {
            ExprKind::Int(c) if *c != 0 => Some(c.abs()),
            ExprKind::Read(p) if p.proj.is_empty() => {
                let (_, value) = self.alias.get(&p.base)?;
                self.divisor(value, env)
            }
            ExprKind::Cast(x) => {
                let int = |t: &Ty| t.as_scalar().is_some_and(|s| s.is_int());
                let (from, to) = (type_range(&x.ty), type_range(&e.ty));
                (int(&x.ty) && int(&e.ty) && from.0 >= to.0 && from.1 <= to.1)
                    .then(|| self.divisor(x, env))
                    .flatten()
            }
            ExprKind::Binary(op @ (BinOp::Mul | BinOp::Add | BinOp::Sub), a, b, _) if exact(e) => {
                let (da, db) = (self.divisor(a, env), self.divisor(b, env));
                match op {
                    BinOp::Mul => match (da, db) {
                        (Some(x), Some(y)) => x.checked_mul(y).filter(|&d| d < 1 << 62),
                        (x, y) => x.or(y),
                    },
                    _ => Some(gcd(da?, db?)),
                }
            }
            _ => None,
        }
    }

    /// Whether `V(e)` (see [`Pass::bounds`]) is the value `e` computes: no `+ - *` of
    /// `usize` in it wraps. Conservative: a node `bounds` takes as a leaf is checked as if
    /// it were not (a leaf's `V` is its value anyway).
    fn computes_exactly(&self, e: &Expr, env: &Env) -> bool {
        match &e.kind {
            ExprKind::Read(p) if p.proj.is_empty() => match self.alias.get(&p.base) {
                Some((_, value)) => self.computes_exactly(value, env),
                None => true,
            },
            ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b, _)
                if e.ty == Ty::USIZE =>
            {
                self.range_here(e, env)
                    .and_then(|r| within(r, type_range(&e.ty)))
                    .is_some()
                    && self.computes_exactly(a, env)
                    && self.computes_exactly(b, env)
            }
            _ => true,
        }
    }

    fn range_here(&self, e: &Expr, env: &Env) -> Option<Range> {
        let l = &self.launch;
        match &e.kind {
            ExprKind::Int(v) => Some((*v, *v)),
            ExprKind::Bool(_) => Some((0, 1)),
            ExprKind::Read(p) if p.proj.is_empty() => {
                let (_, value) = self.alias.get(&p.base)?;
                Some(self.range(value, env))
            }
            ExprKind::Read(p) => {
                // A `Dim3` local's field.
                if let (Some(Proj::Field(k)), 1) = (p.proj.first(), p.proj.len()) {
                    let whole = Expr {
                        kind: ExprKind::Read(Place {
                            base: p.base,
                            proj: Vec::new(),
                            ty: Ty::Dim3,
                        }),
                        ty: Ty::Dim3,
                        span: e.span,
                    };
                    if let Some(b) = self.dim3_builtin(&whole) {
                        return Some(self.dim3_range(b, *k as usize));
                    }
                }
                None
            }
            ExprKind::Field(x, k) => self
                .dim3_builtin(x)
                .map(|b| self.dim3_range(b, *k as usize)),
            ExprKind::Builtin(Builtin::LaneId, _) => Some((0, 31)),
            ExprKind::Builtin(Builtin::WarpId, _) => Some((0, (l.max_threads - 1) / 32)),
            ExprKind::Builtin(Builtin::GlobalId(a), _) => {
                let a = *a as usize % 3;
                Some((0, MAX_GRID[a] * l.max_block[a] - 1))
            }
            ExprKind::Cast(x) => Some(self.range(x, env)),
            ExprKind::Binary(op, a, b, _) => {
                let (x, y) = (self.range(a, env), self.range(b, env));
                match op {
                    BinOp::Add => Some((x.0.checked_add(y.0)?, x.1.checked_add(y.1)?)),
                    BinOp::Sub => Some((x.0.checked_sub(y.1)?, x.1.checked_sub(y.0)?)),
                    BinOp::Mul if x.0 >= 0 && y.0 >= 0 => {
                        Some((x.0.checked_mul(y.0)?, x.1.checked_mul(y.1)?))
                    }
                    BinOp::Div if x.0 >= 0 && y.0 >= 1 => Some((x.0 / y.1, x.1 / y.0)),
                    BinOp::Rem if x.0 >= 0 && y.0 >= 1 => Some((0, x.1.min(y.1 - 1))),
                    BinOp::BitAnd if x.0 >= 0 && y.0 >= 0 => Some((0, x.1.min(y.1))),
                    BinOp::Shr if x.0 >= 0 && y.0 >= 0 && y.1 < 64 => {
                        Some((x.0 >> y.1, x.1 >> y.0))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn dim3_range(&self, b: Builtin, axis: usize) -> Range {
        let l = &self.launch;
        let axis = axis % 3;
        match b {
            Builtin::ThreadIdx => (0, l.max_block[axis] - 1),
            Builtin::BlockDim => match l.exact_block {
                Some(s) => (s[axis], s[axis]),
                None => (1, l.max_block[axis]),
            },
            Builtin::BlockIdx => (0, MAX_GRID[axis] - 1),
            _ => (1, MAX_GRID[axis]),
        }
    }

    /// The uniform symbol `e` is exactly (an immutable unsigned parameter, widened or not,
    /// or a slice's length), registering its IR.
    fn sym_of(&mut self, e: &Expr) -> Option<String> {
        let unsigned = |t: &Ty| t.as_scalar().is_some_and(|s| s.is_int() && !s.is_signed());
        match &e.kind {
            ExprKind::Read(p) if p.proj.is_empty() => {
                if let Some((_, value)) = self.alias.get(&p.base) {
                    let value = value.clone();
                    return self.sym_of(&value);
                }
                let local = &self.f.locals[p.base];
                if local.mutable || !self.f.params.contains(&p.base) || !unsigned(&local.ty) {
                    return None;
                }
                let key = local_tag(p.base);
                let mut ir = e.clone();
                if ir.ty != Ty::USIZE {
                    ir = Expr {
                        kind: ExprKind::Cast(Box::new(ir)),
                        ty: Ty::USIZE,
                        span: e.span,
                    };
                }
                self.symbols.entry(key.clone()).or_insert(ir);
                Some(key)
            }
            ExprKind::Cast(x) if unsigned(&e.ty) && unsigned(&x.ty) => {
                let (from, to) = (type_range(&x.ty), type_range(&e.ty));
                if from.1 <= to.1 {
                    self.sym_of(x)
                } else {
                    None
                }
            }
            ExprKind::Len(p) if p.proj.is_empty() => {
                if !matches!(self.f.locals[p.base].ty, Ty::Slice { .. }) {
                    return None;
                }
                let key = len_symbol(p.base);
                self.symbols.entry(key.clone()).or_insert_with(|| e.clone());
                Some(key)
            }
            _ => None,
        }
    }

    /// Polynomial bounds `(lower, upper)` on one value `V(e)` of `e`, an unsigned integer.
    /// `V` is `e`'s own value at a *leaf* (a symbol, an expression a guard bounds, one
    /// whose range is known) and the exact sum, difference or product of its operands' `V`
    /// at `+ - *` in `usize` (which may leave `0..2⁶⁴`). Since `+ - *` agree modulo 2⁶⁴,
    /// the value `e` computes is `V(e)` modulo 2⁶⁴: when `lower` is non-negative and
    /// `upper` below a length, the index is `V(e)` itself. Both bounds are of the same `V`
    /// (each node is a leaf or not for both).
    fn bounds(&mut self, e: &Expr, env: &Env) -> Option<(Poly, Poly)> {
        let unsigned =
            e.ty.as_scalar()
                .is_some_and(|s| s.is_int() && !s.is_signed());
        if !unsigned {
            return None;
        }
        if let Some(k) = self.sym_of(e) {
            let p = Poly::symbol(&k);
            return Some((p.clone(), p));
        }
        // A guard's bound on `e`, or on the narrower value it widens: a leaf.
        let guarded = match &e.kind {
            ExprKind::Cast(x) if x.ty.as_scalar().is_some_and(|s| !s.is_signed()) => x,
            _ => e,
        };
        if let Some(k) = self.key(guarded) {
            if let Some((_, p)) = env.ub.iter().rev().find(|(key, _)| *key == k) {
                let low = Poly::constant(self.range(e, env).0.max(0));
                return Some((low, p.clone()));
            }
        }
        match &e.kind {
            ExprKind::Int(c) => return Some((Poly::constant(*c), Poly::constant(*c))),
            ExprKind::Read(p) if p.proj.is_empty() => {
                if let Some((_, value)) = self.alias.get(&p.base) {
                    let value = value.clone();
                    return self.bounds(&value, env);
                }
            }
            ExprKind::Binary(op, a, b, _) if e.ty == Ty::USIZE => {
                if let Some(high) = self.scaled_product(*op, a, b, env) {
                    return Some((Poly::constant(0), high));
                }
                if let (Some((la, ha)), Some((lb, hb))) = (self.bounds(a, env), self.bounds(b, env))
                {
                    let both = match op {
                        BinOp::Add => Some((la.add(&lb)?, ha.add(&hb)?)),
                        BinOp::Sub => Some((la.sub(&hb)?, ha.sub(&lb)?)),
                        // Monotone only where both factors are non-negative.
                        BinOp::Mul if la.nonneg() && lb.nonneg() => {
                            Some((la.mul(&lb)?, ha.mul(&hb)?))
                        }
                        _ => None,
                    };
                    if let Some((low, high)) = both {
                        // A lower bound the operands' polynomials miss (`y0 + ty - 8` under
                        // `if y0 > 0`, `y0` a multiple of 64) from the value's range, when
                        // that range is `V`'s (nothing in `e` wraps).
                        if !low.nonneg() {
                            let r = self.range(e, env);
                            if r.0 >= 0 && self.computes_exactly(e, env) {
                                return Some((Poly::constant(r.0), high));
                            }
                        }
                        return Some((low, high));
                    }
                }
            }
            _ => {}
        }
        // A leaf known by its range. Not the limits of a launch the kernel did not declare:
        // a test with 1023 for `thread_idx().x` would fail for most launches, and make the
        // whole copy useless.
        // The grid's indices are bounded by the launch's own dimensions instead, symbols of
        // the test like the parameters (`block_idx().x < grid_dim().x`).
        let r = self.range(e, env);
        let launch_bound = self.key(e).is_some_and(|k| {
            let undeclared = ["ThreadIdx", "BlockDim", "WarpId"];
            ["BlockIdx", "GridDim", "GlobalId"]
                .iter()
                .any(|b| k.contains(b))
                || (!self.launch.declared && undeclared.iter().any(|b| k.contains(b)))
        });
        if r.1 < 1 << 20 && !launch_bound {
            return Some((Poly::constant(r.0.max(0)), Poly::constant(r.1)));
        }
        self.launch_leaf(e)
    }

    /// An upper bound of `x * c` (or `c * x`), `c` a constant multiple of `d`, where
    /// `d * x <= p` is known (`Env::scaled`): `(c / d) · p`. The product is then a leaf (its
    /// value is at most that, so it does not wrap).
    fn scaled_product(&self, op: BinOp, a: &Expr, b: &Expr, env: &Env) -> Option<Poly> {
        if op != BinOp::Mul {
            return None;
        }
        let (x, c) = match (&a.kind, &b.kind) {
            (_, ExprKind::Int(c)) => (a, *c),
            (ExprKind::Int(c), _) => (b, *c),
            _ => return None,
        };
        if c <= 0 || self.range(x, env).0 < 0 {
            return None;
        }
        let unsigned = |t: &Ty| t.as_scalar().is_some_and(|s| s.is_int() && !s.is_signed());
        let x = match &x.kind {
            ExprKind::Cast(y)
                if unsigned(&y.ty)
                    && unsigned(&x.ty)
                    && type_range(&y.ty).1 <= type_range(&x.ty).1 =>
            {
                y
            }
            _ => x,
        };
        let k = self.key(x)?;
        env.scaled
            .iter()
            .rev()
            .filter(|(key, d, _)| *key == k && c % d == 0)
            .find_map(|(_, d, p)| p.mul(&Poly::constant(c / d)))
    }

    /// `(d, p)` when `e` is `x / d` for a constant `d > 1` and `x` (unsigned) at most the
    /// polynomial `p` of the launch's values, `x` never negative.
    fn quotient_bound(&mut self, e: &Expr, env: &Env) -> Option<(i128, Poly)> {
        let ExprKind::Binary(BinOp::Div, x, d, None) = &e.kind else {
            return None;
        };
        let ExprKind::Int(d) = d.kind else {
            return None;
        };
        let unsigned =
            e.ty.as_scalar()
                .is_some_and(|s| s.is_int() && !s.is_signed());
        if !unsigned || d <= 1 {
            return None;
        }
        let (low, high) = self.bounds(x, env)?;
        // `V(x)` is `x` itself when it is never negative (a non-negative value modulo 2⁶⁴ is
        // at most itself), so `x <= high`.
        (low.nonneg() && high.0.keys().any(|m| !m.is_empty())).then_some((d, high))
    }

    /// Bounds of a launch index or dimension (widened or not) in the launch's dimensions:
    /// `thread_idx().x <= block_dim().x - 1`, `block_idx().x <= grid_dim().x - 1`.
    fn launch_leaf(&mut self, e: &Expr) -> Option<(Poly, Poly)> {
        let one = Poly::constant(1);
        if let ExprKind::Cast(x) = &e.kind {
            let unsigned = |t: &Ty| t.as_scalar().is_some_and(|s| s.is_int() && !s.is_signed());
            let widens = type_range(&x.ty).1 <= type_range(&e.ty).1;
            return (unsigned(&x.ty) && unsigned(&e.ty) && widens)
                .then(|| self.launch_leaf(x))
                .flatten();
        }
        // Not `global_id_x()`: the index of element-wise kernels, whose grids are rounded up
        // past the data (a test `grid · block <= len` would fail for most launches).
        let (b, axis) = self.dim3_field(e)?;
        match b {
            Builtin::ThreadIdx => Some((
                Poly::constant(0),
                self.launch_dim(Builtin::BlockDim, axis).sub(&one)?,
            )),
            Builtin::BlockIdx => Some((
                Poly::constant(0),
                self.launch_dim(Builtin::GridDim, axis).sub(&one)?,
            )),
            Builtin::BlockDim | Builtin::GridDim => {
                let d = self.launch_dim(b, axis);
                Some((d.clone(), d))
            }
            _ => None,
        }
    }

    /// `block_dim()` or `grid_dim()` on `axis`: a constant for a declared block, else a
    /// symbol (registered with its IR, `usize`).
    fn launch_dim(&mut self, b: Builtin, axis: usize) -> Poly {
        if let (Builtin::BlockDim, Some(s)) = (b, self.launch.exact_block) {
            return Poly::constant(s[axis]);
        }
        let key = format!("{b:?}.{axis}");
        let span = self.f.span;
        self.symbols.entry(key.clone()).or_insert_with(|| {
            let dim3 = Expr {
                kind: ExprKind::Builtin(b, Vec::new()),
                ty: Ty::Dim3,
                span,
            };
            let field = Expr {
                kind: ExprKind::Field(Box::new(dim3), axis as u32),
                ty: Ty::U32,
                span,
            };
            Expr {
                kind: ExprKind::Cast(Box::new(field)),
                ty: Ty::USIZE,
                span,
            }
        });
        Poly::symbol(&key)
    }

    /// The built-in and axis of `e` when it is a field of a `Dim3` built-in
    /// (`thread_idx().x`, or `t.x` of a local bound to one).
    fn dim3_field(&self, e: &Expr) -> Option<(Builtin, usize)> {
        match &e.kind {
            ExprKind::Field(x, k) => Some((self.dim3_builtin(x)?, *k as usize % 3)),
            ExprKind::Read(p) if p.proj.len() == 1 => {
                let Proj::Field(k) = p.proj[0] else {
                    return None;
                };
                let whole = Expr {
                    kind: ExprKind::Read(Place {
                        base: p.base,
                        proj: Vec::new(),
                        ty: Ty::Dim3,
                    }),
                    ty: Ty::Dim3,
                    span: e.span,
                };
                Some((self.dim3_builtin(&whole)?, k as usize % 3))
            }
            _ => None,
        }
    }

    /// Records `e` ([`Pass::fits`]) when it compares 64-bit integers that both fit in 32 bits
    /// here.
    fn collect_fitting(&mut self, e: &Expr, env: &Env) {
        let ExprKind::Binary(op, l, r, _) = &e.kind else {
            return;
        };
        let Some(s) = l.ty.as_scalar() else { return };
        if !op.is_comparison() || !s.is_int() || s.bits() != 64 {
            return;
        }
        let narrow = |x: &Expr| match &x.kind {
            ExprKind::Int(_) => true,
            ExprKind::Cast(y) => {
                y.ty.as_scalar()
                    .is_some_and(|t| t.is_int() && t.bits() <= 32)
            }
            _ => false,
        };
        if narrow(l) && narrow(r) {
            return;
        }
        let t: Range = if s.is_signed() {
            (-(1 << 31), (1 << 31) - 1)
        } else {
            (0, (1 << 32) - 1)
        };
        let fits = |x: &Expr| within(self.range(x, env), t).is_some();
        if fits(l) && fits(r) {
            if let Some(set) = self.fits.as_mut() {
                set.insert(e as *const Expr);
            }
        }
    }

    /// Learns what `cond` being `holds` says.
    fn assume(&mut self, cond: &Expr, holds: bool, env: &mut Env) {
        match (&cond.kind, holds) {
            (ExprKind::And(l, r), true) | (ExprKind::Or(l, r), false) => {
                self.assume(l, holds, env);
                self.assume(r, holds, env);
            }
            (ExprKind::Unary(UnOp::Not, x), _) if x.ty == Ty::Scalar(Scalar::Bool) => {
                self.assume(x, !holds, env)
            }
            (ExprKind::Binary(op, l, r, _), _)
                if op.is_comparison() && l.ty.as_scalar().is_some_and(|s| s.is_int()) =>
            {
                // As `x < y` (strict) or `x <= y`.
                let (x, y, strict) = match (op, holds) {
                    (BinOp::Lt, true) | (BinOp::Ge, false) => (l, r, true),
                    (BinOp::Le, true) | (BinOp::Gt, false) => (l, r, false),
                    (BinOp::Gt, true) | (BinOp::Le, false) => (r, l, true),
                    (BinOp::Ge, true) | (BinOp::Lt, false) => (r, l, false),
                    (BinOp::Ne, true) | (BinOp::Eq, false) => {
                        self.assume_ne(l, r, env);
                        self.assume_ne(r, l, env);
                        return;
                    }
                    _ => return,
                };
                self.assume_less(x, y, strict, env);
            }
            _ => {}
        }
    }

    /// Learns `x != y`: a bound of `x` that equals `y` moves past it.
    fn assume_ne(&mut self, x: &Expr, y: &Expr, env: &mut Env) {
        let Some(k) = self.key(x) else { return };
        let (rx, ry) = (self.range(x, env), self.range(y, env));
        if ry.0 == ry.1 {
            if rx.0 == ry.0 {
                env.narrow(k.clone(), (ry.0 + 1, i128::MAX));
            } else if rx.1 == ry.0 {
                env.narrow(k.clone(), (i128::MIN, ry.0 - 1));
            }
        }
        let Some(p) = self.exact(y, env) else { return };
        let at_bound = env.ub.iter().any(|(key, q)| *key == k && *q == p);
        if at_bound {
            if let Some(q) = p.sub(&Poly::constant(1)) {
                env.ub.push((k, q));
            }
        }
    }

    /// The value of `e` as a polynomial of symbols, when it is exactly that (its arithmetic
    /// cannot wrap).
    fn exact(&mut self, e: &Expr, env: &Env) -> Option<Poly> {
        if let Some(k) = self.sym_of(e) {
            return Some(Poly::symbol(&k));
        }
        match &e.kind {
            ExprKind::Int(c) => Some(Poly::constant(*c)),
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b, _) => {
                let ExprKind::Int(c) = b.kind else {
                    return None;
                };
                let (ra, t) = (self.range(a, env), type_range(&e.ty));
                let c = if *op == BinOp::Sub { -c } else { c };
                if ra.0 + c < t.0 || ra.1.checked_add(c)? > t.1 {
                    return None;
                }
                self.exact(a, env)?.add(&Poly::constant(c))
            }
            _ => None,
        }
    }

    /// Learns `x < y` (`x <= y` unless `strict`).
    fn assume_less(&mut self, x: &Expr, y: &Expr, strict: bool, env: &mut Env) {
        let gap = i128::from(strict);
        // `x <= y - gap` where `y` is a symbol.
        let ceiling = self
            .sym_of(y)
            .and_then(|k| Poly::symbol(&k).sub(&Poly::constant(gap)));
        let (rx, ry) = (self.range(x, env), self.range(y, env));
        if let Some(k) = self.key(x) {
            env.narrow(k, (i128::MIN, ry.1 - gap));
        }
        if let Some(k) = self.key(y) {
            env.narrow(k, (rx.0 + gap, i128::MAX));
        }
        // `b + c < y` with `b + c` not wrapping: `b < y - c`.
        let (b, c) = split_offset(x);
        // `x < len(s)` for `x`'s value as computed, wrapped or not: an index that is the
        // same expression is in range whatever its arithmetic did.
        if let (true, Some(s), Some(k)) = (c != 0, self.len_of(y), self.key(x)) {
            env.lens.push((k, s, gap - 1));
        }
        if let (Some(k), Some(p)) = (self.key(x), &ceiling) {
            env.ub.push((k, p.clone()));
        }
        // `x < len(s) / d`: `d * x <= d * (len(s) / d) - d <= len(s) - d`, so `d * x` (which
        // cannot wrap) plus up to `d - 1` is below `len(s)`: `d` elements per index (nbody's
        // bodies of four floats).
        if let (true, Some((s, d)), Some(k)) = (strict, self.len_over(y), self.key(x)) {
            env.lens.push((format!("({d} * {k})"), s, d - 1));
            env.lens.push((format!("({k} * {d})"), s, d - 1));
        }
        if c != 0 {
            let rb = self.range(b, env);
            let t = type_range(&x.ty);
            if rb.0 + c >= t.0 && rb.1 + c <= t.1 {
                if let Some(k) = self.key(b) {
                    env.narrow(k.clone(), (i128::MIN, ry.1 - gap - c));
                    if let Some(p) = ceiling.as_ref().and_then(|p| p.sub(&Poly::constant(c))) {
                        env.ub.push((k, p));
                    }
                }
            } else {
                return;
            }
        }
        // `k <= b + c`: `b >= k - c`.
        let (yb, yc) = split_offset(y);
        if yc != 0 {
            let rb = self.range(yb, env);
            let t = type_range(&y.ty);
            if rb.0 + yc >= t.0 && rb.1 + yc <= t.1 {
                if let Some(k) = self.key(yb) {
                    env.narrow(k, (rx.0 + gap - yc, i128::MAX));
                }
            }
        }
        if let (Some(s), Some(k)) = (self.len_of(y), self.key(b)) {
            env.lens.push((k, s, c + gap - 1));
        }
    }

    /// Whether `index` is proved below the length of what `ty` is (reached from `base`).
    fn proved(&self, base: LocalId, ty: &Ty, index: &Expr, env: &Env) -> bool {
        let r = self.range(index, env);
        match ty {
            Ty::Array(_, n) => r.0 >= 0 && r.1 < *n as i128,
            Ty::Shared { dims, .. } if !dims.is_empty() => r.0 >= 0 && r.1 < dims[0] as i128,
            Ty::Slice { .. } => {
                // The index as computed is what a guard compared (`if i + B < s.len()`).
                let whole = self.key(index).is_some_and(|k| {
                    env.lens
                        .iter()
                        .any(|(key, s, kk)| *s == base && *key == k && *kk >= 0)
                });
                if whole && type_range(&index.ty).0 >= 0 {
                    return true;
                }
                // `b + e` with `e` between 0 and `hi` (a loop variable: `4 * j + c` for
                // `c in 0..4`) and `b + hi` below the length, where `b + e` cannot wrap.
                if let ExprKind::Binary(BinOp::Add, l, r, None) = &index.kind {
                    for (b, e) in [(l, r), (r, l)] {
                        let (rb, re) = (self.range(b, env), self.range(e, env));
                        let Some(k) = self.key(b) else { continue };
                        if re.0 >= 0
                            && rb.0 >= 0
                            && rb
                                .1
                                .checked_add(re.1)
                                .is_some_and(|hi| hi <= type_range(&index.ty).1)
                            && env
                                .lens
                                .iter()
                                .any(|(key, s, kk)| *s == base && *key == k && *kk >= re.1)
                        {
                            return true;
                        }
                    }
                }
                let (b, c) = split_offset(index);
                let rb = self.range(b, env);
                let Some(k) = self.key(b) else { return false };
                rb.0 + c >= 0
                    && rb
                        .1
                        .checked_add(c)
                        .is_some_and(|hi| hi <= type_range(&index.ty).1)
                    && env
                        .lens
                        .iter()
                        .any(|(key, s, kk)| *s == base && *key == k && *kk >= c)
            }
            _ => false,
        }
    }

    fn block(&mut self, b: &mut Block, env: &mut Env) {
        for s in &mut b.stmts {
            match s {
                Stmt::Let { pat, init } => {
                    self.expr(init, env);
                    self.bind(pat, init, env);
                }
                Stmt::Expr(e) => {
                    self.expr(e, env);
                    // `if c { return }`: what follows may assume `!c`.
                    if let ExprKind::If(c, then, None) = &e.kind {
                        if leaves(then) {
                            self.assume(c, false, env);
                        }
                    }
                }
            }
        }
        if let Some(t) = &mut b.tail {
            self.expr(t, env);
        }
    }

    fn bind(&mut self, pat: &Pattern, init: &Expr, env: &mut Env) {
        match pat {
            Pattern::Wild => {}
            Pattern::Tuple(ps) => match &init.kind {
                // `let (tx, ty) = (thread_idx().x, thread_idx().y);`
                ExprKind::Tuple(xs) if xs.len() == ps.len() => {
                    for (p, x) in ps.iter().zip(xs) {
                        self.bind(p, x, env);
                    }
                }
                _ => {
                    let mut ids = HashSet::new();
                    pattern_locals(pat, &mut ids);
                    for id in ids {
                        self.alias.remove(&id);
                        env.forget(id);
                    }
                }
            },
            Pattern::Local(id) => {
                self.alias.remove(id);
                env.forget(*id);
                if !self.f.locals[*id].mutable {
                    if let Some(k) = self.key(init).filter(|k| !self.mentions_mutable(k)) {
                        self.alias.insert(*id, (k, init.clone()));
                        return;
                    }
                }
                let r = self.range(init, env);
                if r != type_range(&init.ty) {
                    env.narrow(local_tag(*id), r);
                }
            }
        }
    }

    /// Walks `e` in evaluation order, eliding what it proves; afterwards `env` holds what is
    /// still true.
    fn expr(&mut self, e: &mut Expr, env: &mut Env) {
        if self.fits.is_some() {
            self.collect_fitting(e, env);
        }
        let is_assign = matches!(e.kind, ExprKind::Assign(..));
        match &mut e.kind {
            ExprKind::Assign(place, value) | ExprKind::CompoundAssign(_, place, value) => {
                self.expr(value, env);
                self.place(place, env);
                let assigned = is_assign && place.proj.is_empty();
                let r = self.range(value, env);
                env.forget(place.base);
                if assigned && r != type_range(&value.ty) {
                    env.narrow(local_tag(place.base), r);
                }
            }
            ExprKind::Read(p) | ExprKind::Len(p) => self.place(p, env),
            ExprKind::Atomic(_, _, p, args) => {
                self.place(p, env);
                for a in args.iter_mut() {
                    self.expr(a, env);
                }
            }
            ExprKind::And(l, r) => {
                self.expr(l, env);
                let mut inner = env.clone();
                self.assume(l, true, &mut inner);
                self.expr(r, &mut inner);
                forget_assigned(r, env);
            }
            ExprKind::Or(l, r) => {
                self.expr(l, env);
                let mut inner = env.clone();
                self.assume(l, false, &mut inner);
                self.expr(r, &mut inner);
                forget_assigned(r, env);
            }
            ExprKind::If(c, then, els) => {
                self.expr(c, env);
                let mut t = env.clone();
                self.assume(c, true, &mut t);
                self.block(then, &mut t);
                if let Some(els) = els {
                    let mut f = env.clone();
                    self.assume(c, false, &mut f);
                    self.block(els, &mut f);
                    forget_assigned_block(els, env);
                }
                forget_assigned_block(then, env);
            }
            ExprKind::While(_, c, body) => {
                forget_assigned(c, env);
                forget_assigned_block(body, env);
                let mut inner = env.clone();
                self.expr(c, &mut inner);
                self.assume(c, true, &mut inner);
                self.block(body, &mut inner);
            }
            ExprKind::Loop(_, body) => {
                forget_assigned_block(body, env);
                let mut inner = env.clone();
                self.block(body, &mut inner);
            }
            ExprKind::For {
                var,
                start,
                end,
                inclusive,
                step,
                body,
                ..
            } => {
                self.expr(start, env);
                self.expr(end, env);
                if let Some((s, _)) = step {
                    self.expr(s, env);
                }
                forget_assigned_block(body, env);
                let mut inner = env.clone();
                let (rs, re) = (self.range(start, env), self.range(end, env));
                let mut last = if *inclusive { re.1 } else { re.1 - 1 };
                // A constant start and step: the last turn's value is on the step's grid.
                if let (Some((st, _)), true) = (step, rs.0 == rs.1) {
                    let rst = self.range(st, env);
                    if rst.0 == rst.1 && rst.0 > 0 && last >= rs.0 {
                        last = rs.0 + (last - rs.0) / rst.0 * rst.0;
                    }
                }
                let tag = local_tag(*var);
                self.alias.remove(var);
                inner.forget(*var);
                inner.narrow(tag.clone(), (rs.0, last));
                if let Some(k) = self.sym_of(end) {
                    let p = Poly::symbol(&k).sub(&Poly::constant(i128::from(!*inclusive)));
                    inner.ub.extend(p.map(|p| (tag.clone(), p)));
                }
                if let (false, Some(s)) = (*inclusive, self.len_of(end)) {
                    inner.lens.push((tag.clone(), s, 0));
                }
                // `for t in a..n / d`: `t <= n / d - 1`, so `d * t <= n - d` (loop predication:
                // the index's value at the last turn, `t * d` in `a[.. + t * 32 + ..]`, is a
                // polynomial of the launch's values).
                if let Some((d, p)) = self.quotient_bound(end, env) {
                    let p = p.sub(&Poly::constant(if *inclusive { 0 } else { d }));
                    inner.scaled.extend(p.map(|p| (tag, d, p)));
                }
                self.block(body, &mut inner);
            }
            ExprKind::Block(b) => {
                let mut inner = env.clone();
                self.block(b, &mut inner);
                forget_assigned_block(b, env);
            }
            _ => {
                crate::walk::children_mut(e, &mut |child| match child {
                    crate::walk::Child::Expr(x) => self.expr(x, env),
                    crate::walk::Child::Block(b) => {
                        let mut inner = env.clone();
                        self.block(b, &mut inner);
                        forget_assigned_block(b, env);
                    }
                });
            }
        }
    }

    /// Records the access `slice[index]` at `site` as a candidate for versioning when its
    /// index is bounded by polynomials: non-negative below, `q - 1` above.
    fn candidate(&mut self, site: SiteId, limit: Limit, index: &Expr, env: &Env) {
        let Some((low, high)) = self.bounds(index, env) else {
            return;
        };
        let Some(q) = high.add(&Poly::constant(1)) else {
            return;
        };
        // Only worth a test when it involves the uniform values (else `range` decided).
        if !low.nonneg() || q.0.keys().all(|m| m.is_empty()) {
            return;
        }
        let len = match limit {
            Limit::Len(slice) => {
                let len = Expr {
                    kind: ExprKind::Len(Place {
                        base: slice,
                        proj: Vec::new(),
                        ty: self.f.locals[slice].ty.clone(),
                    }),
                    ty: Ty::USIZE,
                    span: index.span,
                };
                let Some(len) = self.sym_of(&len) else {
                    return;
                };
                Poly::symbol(&len)
            }
            Limit::Fixed(n) => Poly::constant(n),
        };
        // `q <= len` can never hold when `q - len` is a positive polynomial: no test.
        let never = q
            .sub(&len)
            .is_some_and(|d| d.nonneg() && d != Poly::default());
        if !never {
            self.candidates.push((site, limit, q));
        }
    }

    /// Walks a place's indices, eliding the checks it proves.
    fn place(&mut self, p: &mut Place, env: &mut Env) {
        let mut ty = self.f.locals[p.base].ty.clone();
        let base = p.base;
        for j in &mut p.proj {
            match j {
                Proj::Field(k) => {
                    ty = match &ty {
                        Ty::Tuple(ts) => ts[*k as usize].clone(),
                        Ty::Struct(d) => d.fields[*k as usize].1.clone(),
                        _ => Ty::U32,
                    };
                }
                Proj::Index { index, site } => {
                    self.expr(index, env);
                    if self.fits.is_some() {
                        // Only collecting comparisons: nothing elided.
                    } else if let Some(s) = *site {
                        if !self.sites.is_elided(s) && self.proved(base, &ty, index, env) {
                            *site = Some(self.sites.elided_copy(s, Elision::InRange));
                        } else if !self.sites.is_elided(s) {
                            let limit = match &ty {
                                Ty::Slice { .. } => Some(Limit::Len(base)),
                                Ty::Array(_, n) => Some(Limit::Fixed(*n as i128)),
                                Ty::Shared { dims, .. } if !dims.is_empty() => {
                                    Some(Limit::Fixed(dims[0] as i128))
                                }
                                _ => None,
                            };
                            if let Some(limit) = limit {
                                self.candidate(s, limit, index, env);
                            }
                        }
                    }
                    ty = match &ty {
                        Ty::Slice { elem, .. } => (**elem).clone(),
                        Ty::Array(t, _) => (**t).clone(),
                        Ty::Shared { elem, dims } if dims.len() > 1 => Ty::Shared {
                            elem: elem.clone(),
                            dims: dims[1..].to_vec(),
                        },
                        Ty::Shared { elem, .. } => (**elem).clone(),
                        other => other.clone(),
                    };
                }
            }
        }
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// Whether a block always leaves by `return`, `break` or `continue` (or diverges).
fn leaves(b: &Block) -> bool {
    if b.ty == Ty::Never {
        return true;
    }
    let last = match (&b.tail, b.stmts.last()) {
        (Some(t), _) => Some(&**t),
        (None, Some(Stmt::Expr(e))) => Some(e),
        _ => None,
    };
    last.is_some_and(|e| {
        matches!(
            e.kind,
            ExprKind::Return(_) | ExprKind::Break(..) | ExprKind::Continue(_)
        ) || e.ty == Ty::Never
    })
}

/// The locals assigned anywhere in `e`.
fn assigned(e: &Expr, out: &mut HashSet<LocalId>) {
    crate::walk::expr(e, &mut |x| match &x.kind {
        ExprKind::Assign(p, _)
        | ExprKind::CompoundAssign(_, p, _)
        | ExprKind::Atomic(_, _, p, _) => {
            out.insert(p.base);
        }
        _ => {}
    });
}

fn forget_assigned(e: &Expr, env: &mut Env) {
    let mut ids = HashSet::new();
    assigned(e, &mut ids);
    ids.into_iter().for_each(|id| env.forget(id));
}

fn forget_assigned_block(b: &Block, env: &mut Env) {
    let mut ids = HashSet::new();
    crate::walk::block(b, &mut |x| match &x.kind {
        ExprKind::Assign(p, _)
        | ExprKind::CompoundAssign(_, p, _)
        | ExprKind::Atomic(_, _, p, _) => {
            ids.insert(p.base);
        }
        _ => {}
    });
    ids.into_iter().for_each(|id| env.forget(id));
}
