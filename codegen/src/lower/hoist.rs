//! Index checks first for a run of straight-line statements and short loops.
//!
//! A checked access is guarded by a branch to the panic path, and a thread's stores must
//! happen before a later check can stop it. So when a value loaded from memory is stored
//! and another checked access follows (`a_tile[ty][tx] = a[..]; b_tile[ty][tx] = b[..];`, or
//! the same statement in the next turn of a short loop), the second load cannot start until
//! the first has arrived: one memory latency per access, where the unchecked kernel has
//! all its loads in flight together.
//!
//! For such a run, the lowering first emits every check of the run, in Rust's order, with
//! the run's `if`s and short loops replayed around them, and then the run itself without
//! checks. The first failing check is the one Rust would report; what changes is that a
//! thread that fails stops before the stores the run would have made ahead of the failing
//! access (documented in the README's language section).
//!
//! A run qualifies when everything the checks need is known at its start: every index and
//! every `if` condition around an access is computed from constants, lengths, index
//! built-ins and locals that the run does not assign (or that it binds by a `let` of such
//! a value), reading no memory; loops have constant bounds and at most [`MAX_TURNS`] turns;
//! nothing in the run has another effect (no calls, atomics, barriers, warp operations,
//! divisions that are checked, `break`, `continue` or `return`).

use std::collections::HashSet;

use super::FnLower;
use crate::ir::{BinOp, Block, Builtin, Expr, ExprKind, LocalId, Pattern, Place, Proj, Stmt};
use crate::ty::Ty;

/// Loops of at most this many turns are replayed for their checks (LLVM unrolls them).
const MAX_TURNS: i128 = 16;

/// What the scan of a run has seen so far.
#[derive(Clone, Default)]
struct Scan {
    /// Locals whose value at an access may differ from their value at the run's start:
    /// assigned in the run, or bound by a `let` whose value reads memory.
    dirty: HashSet<LocalId>,
    /// A value loaded from memory has been stored since the run's start.
    stored_load: bool,
    /// A checked access follows such a store: hoisting pays.
    pays: bool,
    /// The initializers of `let`s whose value is not known at the run's start (in some turn
    /// of a loop, or some branch): the checks-first pass does not bind them.
    unknown_lets: HashSet<*const Expr>,
}

impl<'ctx> FnLower<'_, 'ctx> {
    /// At statement `at` of `block` (lowered normally, not yet lowered): when the run of
    /// statements starting there qualifies, emits its checks; returns where the run ends,
    /// so the caller does not try again inside it.
    pub(crate) fn hoist_checks(&mut self, block: &Block, at: usize) -> usize {
        if self.panic_fn.is_none() {
            return block.stmts.len() + 1;
        }
        let items = items(block);
        let mut scan = Scan::default();
        let mut end = at;
        while end < items.len() {
            let mut next = scan.clone();
            if !self.scan_item(items[end], &mut next) {
                break;
            }
            scan = next;
            end += 1;
        }
        if end == at {
            return at + 1;
        }
        if scan.pays {
            self.check_mode = Some(scan.unknown_lets);
            for item in &items[at..end] {
                self.check_item(item);
            }
            self.check_mode = None;
        }
        end
    }

    /// The site of an index projection, unless its check already ran ahead of its run.
    pub(crate) fn checked_site(&self, proj: &Proj) -> Option<u32> {
        match proj {
            Proj::Index { site, .. } if !self.prechecked.contains(&(proj as *const Proj)) => *site,
            _ => None,
        }
    }

    /// A block in check mode: the checks of its statements (and its unit tail).
    pub(crate) fn check_block(&mut self, block: &Block) {
        for item in items(block) {
            if !self.is_open() {
                return;
            }
            self.check_item(&item);
        }
    }

    fn check_item(&mut self, item: &Item<'_>) {
        match *item {
            Item::Let(pat, init) => {
                let mut places = Vec::new();
                reads(init, &mut places);
                for p in places {
                    self.precheck_place(p);
                }
                let unknown = self
                    .check_mode
                    .as_ref()
                    .is_some_and(|u| u.contains(&(init as *const Expr)));
                if !unknown {
                    let v = self.expr(init);
                    self.bind(pat, &init.ty, v);
                }
            }
            Item::Expr(e) => match &e.kind {
                ExprKind::Assign(place, value) | ExprKind::CompoundAssign(_, place, value) => {
                    let mut places = Vec::new();
                    reads(value, &mut places);
                    places.push(place);
                    for p in places {
                        self.precheck_place(p);
                    }
                }
                // `if`, loops and blocks lower as usual; their blocks come back here.
                _ => {
                    self.expr(e);
                }
            },
        }
    }

    /// Whether `item` can be part of a run; updates `scan`.
    fn scan_item(&self, item: Item<'_>, scan: &mut Scan) -> bool {
        match item {
            Item::Let(pat, init) => {
                if self.known(init, &scan.dirty) {
                    return true;
                }
                if !self.pure(init, &scan.dirty) {
                    return false;
                }
                self.note_checks(init, None, scan);
                pattern_locals(pat, &mut scan.dirty);
                scan.unknown_lets.insert(init);
                true
            }
            Item::Expr(e) => self.scan_expr(e, scan),
        }
    }

    fn scan_expr(&self, e: &Expr, scan: &mut Scan) -> bool {
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
                let mut t = scan.clone();
                if !self.scan_block(then, &mut t) {
                    return false;
                }
                let mut f = scan.clone();
                if let Some(els) = els {
                    if !self.scan_block(els, &mut f) {
                        return false;
                    }
                }
                scan.dirty = t.dirty.union(&f.dirty).copied().collect();
                scan.unknown_lets = t.unknown_lets.union(&f.unknown_lets).copied().collect();
                scan.stored_load = t.stored_load || f.stored_load;
                scan.pays = t.pays || f.pays;
                true
            }
            ExprKind::For {
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
                // Twice: what one turn stores, the next turn's checks wait for.
                let turns_scanned = if turns > 1 { 2 } else { 1 };
                (0..turns_scanned).all(|_| self.scan_block(body, scan))
            }
            ExprKind::Block(b) => self.scan_block(b, scan),
            _ => false,
        }
    }

    fn scan_block(&self, block: &Block, scan: &mut Scan) -> bool {
        if block.tail.as_ref().is_some_and(|t| t.ty != Ty::Unit) {
            return false;
        }
        items(block)
            .into_iter()
            .all(|item| self.scan_item(item, scan))
    }

    /// Records the checked accesses of `value` and then `place`, in Rust's order.
    fn note_checks(&self, value: &Expr, place: Option<&Place>, scan: &mut Scan) {
        let mut places = Vec::new();
        reads(value, &mut places);
        places.extend(place);
        let checked = places
            .iter()
            .any(|p| p.proj.iter().any(|j| self.checked_site(j).is_some()));
        if checked && scan.stored_load {
            scan.pays = true;
        }
    }

    /// Runs the index checks of `place` (as `place_ptr` would) and marks them done.
    fn precheck_place(&mut self, place: &Place) {
        let mut ty = self.ir.locals[place.base].ty.clone();
        let slot = self.slot(place.base);
        for proj in &place.proj {
            match (proj, &ty) {
                (Proj::Field(i), Ty::Tuple(ts)) => ty = ts[*i as usize].clone(),
                (Proj::Field(i), Ty::Struct(d)) => ty = d.fields[*i as usize].1.clone(),
                (Proj::Field(_), _) => return, // a Dim3 field: nothing left to check
                (Proj::Index { index, .. }, _) => {
                    let (len, next) = self.index_bound(&ty, slot);
                    if let Some(site) = self.checked_site(proj) {
                        let idx = self.expr(index).expect("usize index").into_int_value();
                        self.check_in_bounds(site, idx, len);
                        self.prechecked.insert(proj as *const Proj);
                    }
                    ty = next;
                }
            }
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
                        self.ir.locals[place.base].ty,
                        Ty::Scalar(_)
                            | Ty::Enum(_)
                            | Ty::Tuple(_)
                            | Ty::Dim3
                            | Ty::Array(..)
                            | Ty::Struct(_)
                    )
                    && place.proj.iter().all(|p| match p {
                        Proj::Field(_) => true,
                        Proj::Index { index, site } => site.is_none() && self.known(index, dirty),
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
    /// it reads at is [`FnLower::known`].
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

    /// A place whose every index is [`FnLower::known`].
    fn clean_place(&self, place: &Place, dirty: &HashSet<LocalId>) -> bool {
        place.proj.iter().all(|p| match p {
            Proj::Index { index, .. } => self.known(index, dirty),
            Proj::Field(_) => true,
        })
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

fn items(block: &Block) -> Vec<Item<'_>> {
    let mut items: Vec<Item<'_>> = block
        .stmts
        .iter()
        .map(|s| match s {
            Stmt::Let { pat, init } => Item::Let(pat, init),
            Stmt::Expr(e) => Item::Expr(e),
        })
        .collect();
    if let Some(t) = &block.tail {
        items.push(Item::Expr(t));
    }
    items
}

/// Index built-ins: no effect, the same value wherever a thread evaluates them.
fn index_builtin(b: Builtin) -> bool {
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

fn pattern_locals(pat: &Pattern, out: &mut HashSet<LocalId>) {
    match pat {
        Pattern::Wild => {}
        Pattern::Local(id) => {
            out.insert(*id);
        }
        Pattern::Tuple(ps) => ps.iter().for_each(|p| pattern_locals(p, out)),
    }
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
