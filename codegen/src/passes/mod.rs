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
//! - [`checks_first`]: the checks of a run of statements before the run.

pub mod bounds;
pub mod checks_first;
mod poly;

use crate::ir::{CheckSite, Elision, Program, SiteId};
use crate::options::KernelOptions;

/// Runs the passes that `options` asks for, in order.
pub fn optimize(program: &mut Program, options: &KernelOptions) {
    if !options.checked {
        return;
    }
    let mut sites = Sites(std::mem::take(&mut program.sites));
    let launch = bounds::Launch::of(options);
    let kernel = std::iter::once((&mut program.kernel, true));
    for (f, is_kernel) in kernel.chain(program.functions.iter_mut().map(|f| (f, false))) {
        if options.prove_bounds {
            bounds::run(f, &mut sites, launch, is_kernel);
        }
        checks_first::run(f, &mut sites);
    }
    program.sites = sites.0;
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
