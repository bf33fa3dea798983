//! IR → IR passes, run after `check` and `verify` and before the lowering and the
//! simulator (both read their result).
//!
//! The passes decide which runtime checks are compiled. They never remove a check site from
//! the IR: a check that is not needed is *elided* ([`CheckSite::elided`] says why), keyed by
//! its site id. The lowering emits no check for an elided site; the simulator still checks
//! the access, and reports a failure of an elided check as an internal error, so that the
//! tests that run kernels on the simulator also test the passes.
//!
//! - [`bounds`]: index checks proved redundant by value ranges and guards (first, so that
//!   the next pass does not move checks that are not needed);
//! - [`checks_first`]: the checks of a run of statements before the run;
//! - `host`: for `bounds`, versioning tests the launch evaluates (a hidden flag);
//! - `narrow`: 32-bit index arithmetic for indices known in range when the launch has
//!   tested the slices' lengths (after the check passes, which decide what is in range);
//! - [`counted`]: grid-stride `while` loops proved to be counted loops (in every build,
//!   checked or not: it changes no check);
//! - `compare32`: comparisons of 64-bit integers computed in 32 bits where value ranges (or,
//!   in the fast copy, the launch's test) put both operands there (every build).

pub mod bounds;
pub mod checks_first;
mod compare32;
pub mod counted;
mod host;
pub(crate) mod narrow;
mod poly;

use std::collections::HashSet;

use crate::ir::{Block, CheckSite, Elision, ExprKind, LocalId, Pattern, Program, SiteId};
use crate::options::KernelOptions;

/// Runs the passes that `options` asks for, in order.
pub fn optimize(program: &mut Program, options: &KernelOptions) {
    let launch = bounds::Launch::of(options);
    if options.checked {
        check_passes(program, options, launch);
    }
    narrow::run(program, options);
    let kernel = std::iter::once(&mut program.kernel);
    for f in kernel.chain(program.functions.iter_mut()) {
        counted::run(f, launch.max_block);
    }
    compare32::run(program, options);
}

fn check_passes(program: &mut Program, options: &KernelOptions, launch: bounds::Launch) {
    let mut sites = Sites(std::mem::take(&mut program.sites));
    let mut host_test = None;
    let kernel = std::iter::once((&mut program.kernel, true));
    for (f, is_kernel) in kernel.chain(program.functions.iter_mut().map(|f| (f, false))) {
        if options.prove_bounds {
            let test = bounds::run(f, &mut sites, launch, is_kernel);
            if is_kernel {
                host_test = test;
            }
        }
        checks_first::run(f, &mut sites);
    }
    program.sites = sites.0;
    program.host_test = host_test;
}

/// The program's site table while passes run.
pub(crate) struct Sites(pub(crate) Vec<CheckSite>);

impl Sites {
    /// Whether `site`'s check is elided.
    pub(crate) fn is_elided(&self, site: SiteId) -> bool {
        self.0[site as usize].elided.is_some()
    }

    /// Whether `site` is elided as proved in range where it stands (so its access cannot
    /// fail there).
    pub(crate) fn in_range(&self, site: SiteId) -> bool {
        matches!(
            self.0[site as usize].elided,
            Some(Elision::InRange | Elision::Versioned)
        )
    }

    /// A new site like `site` (same kind, span and message), elided for `why`.
    pub(crate) fn elided_copy(&mut self, site: SiteId, why: Elision) -> SiteId {
        let mut copy = self.0[site as usize].clone();
        copy.elided = Some(why);
        self.0.push(copy);
        self.0.len() as SiteId - 1
    }
}

/// A versioned kernel's two bodies as programs of their own, `(fast copy, checked body)`,
/// or `None` when `bounds` did not version it. The caller compiles both to see whether the
/// fast copy drops a check that the compiled checked body still has: if it does not (the
/// backend had proved the same accesses), the checked body alone is the better program.
pub fn versions(program: &Program) -> Option<(Program, Program)> {
    let body = &program.kernel.body;
    let ExprKind::If(_, fast, Some(checked)) = &body.tail.as_ref()?.kind else {
        return None;
    };
    if !body.stmts.is_empty() || !has_versioned_site(program, fast) {
        return None;
    }
    // Neither body reads the versioning flag: neither takes it.
    let with = |b: &Block| {
        let mut p = program.clone();
        p.kernel.body = b.clone();
        p.host_test = None;
        p
    };
    Some((with(fast), with(checked)))
}

/// The program whose body is its launch-selected copy alone, for the module the launch runs
/// when its test holds: the flag stays a parameter (unread), so that both modules' entries
/// take the same arguments. `None` when the launch selects nothing.
pub fn fast_entry(program: &Program) -> Option<Program> {
    program.host_test.as_ref()?;
    let body = &program.kernel.body;
    let ExprKind::If(c, fast, Some(_)) = &body.tail.as_ref()?.kind else {
        return None;
    };
    let flag = matches!(c.kind, ExprKind::Builtin(crate::ir::Builtin::HostTest, _));
    if !body.stmts.is_empty() || !flag {
        return None;
    }
    let mut p = program.clone();
    p.kernel.body = fast.clone();
    Some(p)
}

/// The program without its launch-selected copy: the body the kernel runs when the
/// launch's test fails (the checked body, or an `unchecked` kernel's body with 64-bit
/// indices), taking no flag; `None` when the launch selects nothing.
pub fn unversioned(program: &Program) -> Option<Program> {
    program.host_test.as_ref()?;
    let body = &program.kernel.body;
    let ExprKind::If(c, _, Some(other)) = &body.tail.as_ref()?.kind else {
        return None;
    };
    let flag = matches!(c.kind, ExprKind::Builtin(crate::ir::Builtin::HostTest, _));
    if !body.stmts.is_empty() || !flag {
        return None;
    }
    let mut p = program.clone();
    p.kernel.body = other.clone();
    p.host_test = None;
    Some(p)
}

fn has_versioned_site(program: &Program, b: &Block) -> bool {
    let mut found = false;
    crate::walk::block(b, &mut |e| {
        let place = match &e.kind {
            ExprKind::Read(p)
            | ExprKind::Len(p)
            | ExprKind::Assign(p, _)
            | ExprKind::CompoundAssign(_, p, _)
            | ExprKind::Atomic(_, _, p, _) => p,
            _ => return,
        };
        found |= place.proj.iter().any(|j| {
            matches!(j, crate::ir::Proj::Index { site: Some(s), .. }
                if program.sites[*s as usize].elided == Some(Elision::Versioned))
        });
    });
    found
}

/// Adds the locals that pattern `p` binds to `out`.
fn pattern_locals(p: &Pattern, out: &mut HashSet<LocalId>) {
    match p {
        Pattern::Local(id) => {
            out.insert(*id);
        }
        Pattern::Tuple(ps) => ps.iter().for_each(|p| pattern_locals(p, out)),
        Pattern::Wild => {}
    }
}
