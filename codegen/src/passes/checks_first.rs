//! Index checks first for a run of straight-line statements and short loops (IR → IR).
//!
//! A checked access is guarded by a branch to the panic path, and a thread's stores must
//! happen before a later check can stop it. So when a value loaded from memory is stored
//! and another checked access follows (`a_tile[ty][tx] = a[..]; b_tile[ty][tx] = b[..];`, or
//! the same statement in the next turn of a short loop), the second load cannot start until
//! the first has arrived: one memory latency per access, where the unchecked kernel has
//! all its loads in flight together.
//!
//! For such a run, this pass puts before it a copy of the run that only checks: every check
//! of the run as an [`ExprKind::IndexCheck`] with the access's own site, in Rust's order, with
//! the run's `if`s and short loops replayed around them and the `let`s whose value is known
//! at the run's start bound again. The accesses themselves get a new site, marked
//! [`Elision::Prechecked`] (the check that ran before has the same index and length). The
//! first failing check is the one Rust would report, with its site; what changes is that a
//! thread that fails stops before the stores the run would have made ahead of the failing
//! access (documented in the README's language section).
//!
//! A run qualifies when everything the checks need is known at its start: every index and
//! every `if` condition around an access is computed from constants, lengths, index
//! built-ins and locals that the run does not assign (or that it binds by a `let` of such
//! a value), reading no memory; loops have constant bounds and at most `MAX_TURNS` (16) turns;
//! nothing in the run has another effect (no calls, atomics, barriers, warp operations,
//! divisions that are checked, `break`, `continue` or `return`). Runs that never store a
//! loaded value before a later check are left alone (moving checks there measured slower:
//! bench/NOTES.md §3).

use std::collections::HashSet;

use proc_macro2::Span;

use super::{pattern_locals, Sites};
use crate::ir::{
    BinOp, Block, Builtin, Elision, Expr, ExprKind, Function, LocalId, Pattern, Place, Proj,
    SiteId, Stmt,
};
use crate::ty::Ty;

/// Loops of at most this many turns are replayed for their checks (LLVM unrolls them).
const MAX_TURNS: i128 = 16;

/// Runs the pass on one function.
pub(crate) fn run(f: &mut Function, sites: &mut Sites) {
    let mut body = std::mem::replace(&mut f.body, empty_block());
    let mut pass = Pass {
        f,
        sites,
        owner: Span::call_site(),
    };
    pass.owner = pass.f.span;
    pass.block(&mut body);
    f.body = body;
}

fn empty_block() -> Block {
    Block {
        stmts: Vec::new(),
        tail: None,
        ty: Ty::Unit,
    }
}

/// What the scan of a run has seen so far, and the run's checks.
#[derive(Clone, Default)]
struct Scan {
    /// Locals whose value at an access may differ from their value at the run's start:
    /// assigned in the run, or bound by a `let` whose value reads memory.
    dirty: HashSet<LocalId>,
    /// A value loaded from memory has been stored since the run's start.
    stored_load: bool,
    /// A checked access follows such a store: checking first pays.
    pays: bool,
    /// The checks of the run so far, as statements.
    checks: Vec<Stmt>,
    /// The sites those checks check.
    checked: Vec<SiteId>,
}

struct Pass<'a> {
    f: &'a mut Function,
    sites: &'a mut Sites,
    /// The span of the expression whose block is being rewritten (the function's for its
    /// body): the lowering gives the checks of a run that line.
    owner: Span,
}

impl Pass<'_> {
    /// Rewrites `block`'s runs, then the blocks inside its statements.
    fn block(&mut self, block: &mut Block) {
        let n = block.stmts.len() + usize::from(block.tail.is_some());
        // (where the run starts, its checks)
        let mut inserts: Vec<(usize, Vec<Stmt>)> = Vec::new();
        let mut at = 0;
        while at < n {
            let mut scan = Scan::default();
            let mut end = at;
            while end < n {
                let mut next = scan.clone();
                if !self.scan_item(item(block, end), &mut next) {
                    break;
                }
                scan = next;
                end += 1;
            }
            if end == at {
                at += 1;
                continue;
            }
            if scan.pays {
                let checked: HashSet<SiteId> = scan.checked.iter().copied().collect();
                for k in at..end {
                    self.elide_in_item(block, k, &checked);
                }
                inserts.push((at, scan.checks));
            }
            at = end;
        }
        // The blocks inside the statements see the checks made first as elided; the check
        // copies themselves are not rewritten (the lowering's check mode never was).
        let owner = self.owner;
        for s in &mut block.stmts {
            match s {
                Stmt::Let { init, .. } => self.inner_blocks(init),
                Stmt::Expr(e) => self.inner_blocks(e),
            }
        }
        if let Some(t) = &mut block.tail {
            self.inner_blocks(t);
        }
        self.owner = owner;
        for (at, checks) in inserts.into_iter().rev() {
            let at = at.min(block.stmts.len());
            block.stmts.splice(at..at, checks);
        }
    }

    /// Rewrites the blocks inside `e`, each with its owner's span.
    fn inner_blocks(&mut self, e: &mut Expr) {
        let span = e.span;
        crate::walk::children_mut(e, &mut |child| match child {
            crate::walk::Child::Expr(x) => self.inner_blocks(x),
            crate::walk::Child::Block(b) => {
                self.owner = span;
                self.block(b);
            }
        });
    }

    /// Gives the accesses of item `k` whose sites are in `checked` a new, prechecked site.
    fn elide_in_item(&mut self, block: &mut Block, k: usize, checked: &HashSet<SiteId>) {
        let e: &mut Expr = match block.stmts.get_mut(k) {
            Some(Stmt::Let { init, .. }) | Some(Stmt::Expr(init)) => init,
            None => block.tail.as_deref_mut().expect("the tail item"),
        };
        let sites = &mut *self.sites;
        let mut copies: std::collections::HashMap<SiteId, SiteId> = Default::default();
        crate::walk::expr_mut(e, &mut |x| {
            let mut fix = |p: &mut Place| {
                for j in &mut p.proj {
                    if let Proj::Index {
                        site: Some(site), ..
                    } = j
                    {
                        if checked.contains(site) {
                            *site = *copies
                                .entry(*site)
                                .or_insert_with(|| sites.elided_copy(*site, Elision::Prechecked));
                        }
                    }
                }
            };
            match &mut x.kind {
                ExprKind::Read(p) | ExprKind::Assign(p, _) | ExprKind::CompoundAssign(_, p, _) => {
                    fix(p)
                }
                _ => {}
            }
        });
    }

    /// The checks of `block` (lowered in their run's check copy), as statements.
    fn check_block(&mut self, block: &Block, scan: &mut Scan) -> bool {
        if block.tail.as_ref().is_some_and(|t| t.ty != Ty::Unit) {
            return false;
        }
        let n = block.stmts.len() + usize::from(block.tail.is_some());
        (0..n).all(|k| self.scan_item(item(block, k), scan))
    }

    /// Whether `item` can be part of a run; updates `scan` and adds its checks.
    fn scan_item(&mut self, item: Item<'_>, scan: &mut Scan) -> bool {
        match item {
            Item::Let(pat, init) => {
                if self.known(init, &scan.dirty) {
                    scan.checks.push(Stmt::Let {
                        pat: pat.clone(),
                        init: init.clone(),
                    });
                    return true;
                }
                if !self.pure(init, &scan.dirty) {
                    return false;
                }
                self.note_checks(init, None, scan);
                pattern_locals(pat, &mut scan.dirty);
                true
            }
            Item::Expr(e) => self.scan_expr(e, scan),
        }
    }

    fn scan_expr(&mut self, e: &Expr, scan: &mut Scan) -> bool {
        // The checks inside `e`'s blocks carry `e`'s line, as the lowering's did; an
        // assignment's carry its block's.
        if matches!(e.kind, ExprKind::Assign(..) | ExprKind::CompoundAssign(..)) {
            return self.scan_expr_here(e, scan);
        }
        let owner = std::mem::replace(&mut self.owner, e.span);
        let ok = self.scan_expr_here(e, scan);
        self.owner = owner;
        ok
    }

    fn scan_expr_here(&mut self, e: &Expr, scan: &mut Scan) -> bool {
        match &e.kind {
            ExprKind::Assign(place, value) => {
                if !self.pure(value, &scan.dirty) || !self.clean_place(place, &scan.dirty) {
                    return false;
                }
                self.note_checks(value, Some(place), scan);
                if self.reads_memory(value) {
                    scan.stored_load = true;
                }
                scan.dirty.insert(place.base);
                true
            }
            ExprKind::CompoundAssign(op, place, value) => {
                if matches!(op, BinOp::Div | BinOp::Rem)
                    || !self.pure(value, &scan.dirty)
                    || !self.clean_place(place, &scan.dirty)
                {
                    return false;
                }
                self.note_checks(value, Some(place), scan);
                if self.reads_memory(value) || self.in_device_memory(place) {
                    scan.stored_load = true;
                }
                scan.dirty.insert(place.base);
                true
            }
            ExprKind::If(c, then, els) => {
                if e.ty != Ty::Unit || !self.known(c, &scan.dirty) {
                    return false;
                }
                let base = scan.checked.len();
                let mut t = Scan {
                    checks: Vec::new(),
                    ..scan.clone()
                };
                if !self.check_block(then, &mut t) {
                    return false;
                }
                let mut f = Scan {
                    checks: Vec::new(),
                    ..scan.clone()
                };
                if let Some(els) = els {
                    if !self.check_block(els, &mut f) {
                        return false;
                    }
                }
                let els = els
                    .as_ref()
                    .map(|_| unit_block(std::mem::take(&mut f.checks)));
                scan.checks.push(unit_stmt(
                    ExprKind::If(c.clone(), unit_block(std::mem::take(&mut t.checks)), els),
                    e.span,
                ));
                scan.dirty = t.dirty.union(&f.dirty).copied().collect();
                scan.checked = t.checked;
                for site in f.checked.into_iter().skip(base) {
                    if !scan.checked.contains(&site) {
                        scan.checked.push(site);
                    }
                }
                scan.stored_load = t.stored_load || f.stored_load;
                scan.pays = t.pays || f.pays;
                true
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
                let (ExprKind::Int(a), ExprKind::Int(b)) = (&start.kind, &end.kind) else {
                    return false;
                };
                let turns = b - a + i128::from(*inclusive);
                if !(1..=MAX_TURNS).contains(&turns) {
                    return false;
                }
                if let Some((s, site)) = step {
                    if site.is_some() || !matches!(s.kind, ExprKind::Int(_)) {
                        return false;
                    }
                }
                // Twice: what one turn stores, the next turn's checks wait for. The checks
                // are the second scan's (it knows the locals the first turn assigns).
                let turns_scanned = if turns > 1 { 2 } else { 1 };
                let mut checks = Vec::new();
                for _ in 0..turns_scanned {
                    let before = scan.checks.len();
                    if !self.check_block(body, scan) {
                        return false;
                    }
                    checks = scan.checks.split_off(before);
                }
                let id = self.f.loop_count;
                self.f.loop_count += 1;
                scan.checks.push(unit_stmt(
                    ExprKind::For {
                        id,
                        var: *var,
                        start: start.clone(),
                        end: end.clone(),
                        inclusive: *inclusive,
                        step: step.clone(),
                        body: unit_block(checks),
                    },
                    e.span,
                ));
                true
            }
            ExprKind::Block(b) => {
                let before = scan.checks.len();
                if !self.check_block(b, scan) {
                    return false;
                }
                let checks = scan.checks.split_off(before);
                scan.checks
                    .push(unit_stmt(ExprKind::Block(unit_block(checks)), e.span));
                true
            }
            _ => false,
        }
    }

    /// Adds the checks of `value`'s reads and then of `place`, in Rust's order.
    fn note_checks(&mut self, value: &Expr, place: Option<&Place>, scan: &mut Scan) {
        let mut places = Vec::new();
        reads(value, &mut places);
        places.extend(place);
        let checked = places
            .iter()
            .any(|p| p.proj.iter().any(|j| self.checked_site(j).is_some()));
        if checked && scan.stored_load {
            scan.pays = true;
        }
        for p in places {
            self.precheck_place(p, scan);
        }
    }

    /// The checks of `place`'s indices, as `place_ptr` would run them.
    fn precheck_place(&mut self, place: &Place, scan: &mut Scan) {
        let mut ty = self.f.locals[place.base].ty.clone();
        for proj in &place.proj {
            match (proj, &ty) {
                (Proj::Field(i), Ty::Tuple(ts)) => ty = ts[*i as usize].clone(),
                (Proj::Field(i), Ty::Struct(d)) => ty = d.fields[*i as usize].1.clone(),
                (Proj::Field(_), _) => return, // a Dim3 field: nothing left to check
                (Proj::Index { index, .. }, _) => {
                    let (len, next) = self.index_bound(place.base, &ty);
                    if let Some(site) = self.checked_site(proj) {
                        scan.checks.push(unit_stmt_typed(
                            ExprKind::IndexCheck {
                                index: index.clone(),
                                len: Box::new(len),
                                site: Some(site),
                            },
                            Ty::USIZE,
                            self.owner,
                        ));
                        if !scan.checked.contains(&site) {
                            scan.checked.push(site);
                        }
                    }
                    ty = next;
                }
            }
        }
    }

    /// What an index into a value of type `ty` (reached from local `base`) is checked
    /// against, and the type of what it selects.
    fn index_bound(&self, base: LocalId, ty: &Ty) -> (Expr, Ty) {
        let len = |kind| Expr {
            kind,
            ty: Ty::USIZE,
            span: self.owner,
        };
        let whole = || Place {
            base,
            proj: Vec::new(),
            ty: ty.clone(),
        };
        match ty {
            Ty::Slice { elem, .. } => (len(ExprKind::Len(whole())), (**elem).clone()),
            Ty::Shared { elem, dims } if dims.is_empty() => {
                (len(ExprKind::Len(whole())), (**elem).clone())
            }
            Ty::Shared { elem, dims } => {
                let next = if dims.len() > 1 {
                    Ty::Shared {
                        elem: elem.clone(),
                        dims: dims[1..].to_vec(),
                    }
                } else {
                    (**elem).clone()
                };
                (len(ExprKind::Int(dims[0] as i128)), next)
            }
            Ty::Array(elem, n) => (len(ExprKind::Int(*n as i128)), (**elem).clone()),
            t => unreachable!("an index into {t}"),
        }
    }

    /// The site of an index projection, unless its check is elided.
    fn checked_site(&self, proj: &Proj) -> Option<SiteId> {
        match proj {
            Proj::Index { site: Some(s), .. } if !self.sites.is_elided(*s) => Some(*s),
            _ => None,
        }
    }

    /// Whether `e` can be computed at the run's start with the same value: no memory
    /// read, no effect, no check, and no local of `dirty`.
    fn known(&self, e: &Expr, dirty: &HashSet<LocalId>) -> bool {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Unit => true,
            ExprKind::Len(_) => true,
            ExprKind::Read(place) => {
                !dirty.contains(&place.base)
                    && matches!(
                        self.f.locals[place.base].ty,
                        Ty::Scalar(_)
                            | Ty::Enum(_)
                            | Ty::Tuple(_)
                            | Ty::Dim3
                            | Ty::Array(..)
                            | Ty::Struct(_)
                    )
                    && place.proj.iter().all(|p| match p {
                        Proj::Field(_) => true,
                        Proj::Index { index, site } => {
                            (site.is_none() || site.is_some_and(|s| self.sites.in_range(s)))
                                && self.known(index, dirty)
                        }
                    })
            }
            ExprKind::Unary(_, x)
            | ExprKind::Cast(x)
            | ExprKind::Field(x, _)
            | ExprKind::Repeat(x, _) => self.known(x, dirty),
            ExprKind::Binary(_, l, r, site) => {
                site.is_none() && self.known(l, dirty) && self.known(r, dirty)
            }
            ExprKind::And(l, r) | ExprKind::Or(l, r) => {
                self.known(l, dirty) && self.known(r, dirty)
            }
            ExprKind::Tuple(xs) | ExprKind::Array(xs) => xs.iter().all(|x| self.known(x, dirty)),
            ExprKind::Builtin(b, args) => {
                index_builtin(*b) && args.iter().all(|x| self.known(x, dirty))
            }
            _ => false,
        }
    }

    /// Whether evaluating `e` has no effect but its value and its checks, and every index
    /// it reads at is [`Pass::known`].
    fn pure(&self, e: &Expr, dirty: &HashSet<LocalId>) -> bool {
        match &e.kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::Len(_) => true,
            ExprKind::Read(place) => self.clean_place(place, dirty),
            ExprKind::Unary(_, x)
            | ExprKind::Cast(x)
            | ExprKind::Field(x, _)
            | ExprKind::Repeat(x, _) => self.pure(x, dirty),
            ExprKind::Binary(_, l, r, site) => {
                site.is_none() && self.pure(l, dirty) && self.pure(r, dirty)
            }
            // The right side runs only sometimes: it may not check anything.
            ExprKind::And(l, r) | ExprKind::Or(l, r) => self.pure(l, dirty) && self.known(r, dirty),
            ExprKind::Tuple(xs) | ExprKind::Array(xs) => xs.iter().all(|x| self.pure(x, dirty)),
            ExprKind::Builtin(b, args) => {
                (index_builtin(*b) || matches!(b, Builtin::Math(_)))
                    && args.iter().all(|x| self.pure(x, dirty))
            }
            _ => false,
        }
    }

    /// A place whose every index is [`Pass::known`].
    fn clean_place(&self, place: &Place, dirty: &HashSet<LocalId>) -> bool {
        place.proj.iter().all(|p| match p {
            Proj::Index { index, .. } => self.known(index, dirty),
            Proj::Field(_) => true,
        })
    }

    /// Whether a place is in global or shared memory.
    fn in_device_memory(&self, place: &Place) -> bool {
        matches!(
            self.f.locals[place.base].ty,
            Ty::Slice { .. } | Ty::Shared { .. }
        )
    }

    /// Whether `e` reads a slice or shared memory.
    fn reads_memory(&self, e: &Expr) -> bool {
        let mut places = Vec::new();
        reads(e, &mut places);
        places.iter().any(|p| self.in_device_memory(p))
    }
}

/// A block's statements, and its tail as one more (unit) statement.
#[derive(Clone, Copy)]
enum Item<'a> {
    Let(&'a Pattern, &'a Expr),
    Expr(&'a Expr),
}

fn item(block: &Block, k: usize) -> Item<'_> {
    match block.stmts.get(k) {
        Some(Stmt::Let { pat, init }) => Item::Let(pat, init),
        Some(Stmt::Expr(e)) => Item::Expr(e),
        None => Item::Expr(block.tail.as_deref().expect("the tail item")),
    }
}

fn unit_block(stmts: Vec<Stmt>) -> Block {
    Block {
        stmts,
        tail: None,
        ty: Ty::Unit,
    }
}

fn unit_stmt(kind: ExprKind, span: Span) -> Stmt {
    unit_stmt_typed(kind, Ty::Unit, span)
}

fn unit_stmt_typed(kind: ExprKind, ty: Ty, span: Span) -> Stmt {
    Stmt::Expr(Expr { kind, ty, span })
}

/// Index built-ins: no effect, the same value wherever a thread evaluates them.
pub(crate) fn index_builtin(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::ThreadIdx
            | Builtin::BlockIdx
            | Builtin::BlockDim
            | Builtin::GridDim
            | Builtin::GlobalId(_)
            | Builtin::GridStride(_)
            | Builtin::LaneId
            | Builtin::WarpId
    )
}

/// The places `e` reads, in evaluation order.
fn reads<'e>(e: &'e Expr, out: &mut Vec<&'e Place>) {
    match &e.kind {
        ExprKind::Read(place) => out.push(place),
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x)
        | ExprKind::Field(x, _)
        | ExprKind::Repeat(x, _) => reads(x, out),
        ExprKind::Binary(_, l, r, _) | ExprKind::And(l, r) | ExprKind::Or(l, r) => {
            reads(l, out);
            reads(r, out);
        }
        ExprKind::Tuple(xs) | ExprKind::Array(xs) | ExprKind::Builtin(_, xs) => {
            xs.iter().for_each(|x| reads(x, out))
        }
        _ => {}
    }
}
